/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxsim datapath internals shared by the CQ engine (cxsim_cq.c), the RX
 * engine (cxsim_rx.c), the TX engine (cxsim_tx.c), the striding RQ and
 * header/data split (cxsim_stride.c) and LRO (cxsim_lro.c). Nothing
 * outside the datapath includes this.
 */
#ifndef _CXSIM_RX_H_
#define _CXSIM_RX_H_

#include "cxsim.h"
#include "cxsim_pkt.h"

/**
 * struct cxsim_rx_ctx - a frame being received
 * @frame: the frame as it came off the wire
 * @pkt: what the parser found in it
 * @len: bytes delivered: the frame's, less the 802.1Q tag at offset 12
 *	when @strip
 * @flags: CQE flags (CXEN_CQE_*)
 * @hash: RSS hash
 * @vlan_tci: the stripped tag
 * @tcp_end: TCP with a payload: where its header ends in @frame (wire
 *	offset); else 0. What header/data split cuts at.
 * @strip: the tag is stripped
 * @csum_bad: a checksum was verified wrong
 * @hlen: this delivery attempt splits the frame: header bytes (else 0)
 * @hdr_bc: and the header buffer's byte_count
 * @hdr_addr: and its bus address
 * @no_hdr_buf: split but for the header buffer: none posted, or too small
 * @fire: (under the RQ lock) a CQE fired the CQ's interrupt
 * @async: (under the RQ lock) CXEN_ASYNC_* bits to raise after it
 * @lro_open: (under the RQ lock) the frame went into an LRO merge that
 *	is still open: the delivering context closes it when it is done
 *	(cxsim_lro_flush())
 */
struct cxsim_rx_ctx {
	const u8 *frame;
	const struct cxsim_pkt *pkt;
	u32 len;
	u32 flags;
	u32 hash;
	u16 vlan_tci;
	u16 tcp_end;
	bool strip;
	u8 csum_known;		/* CXSIM_CSUM_*: right without summing */
	bool csum_bad;
	u32 hlen;
	u32 hdr_bc;
	u64 hdr_addr;
	bool no_hdr_buf;
	bool fire;
	u32 async;
	bool lro_open;
};

/* What a frame that finds its RQ without a posted WQE does. */
enum cxsim_rx_fc {
	CXSIM_FC_DROP,		/* no flow control: drop it */
	CXSIM_FC_HOLD,		/* wait for the driver to post a WQE */
	CXSIM_FC_EXPIRED,	/* it waited CXEN_HW_PAUSE_STORM_MS: drop */
};

/* cxsim_cq.c and cxsim_rx.c, called with the RQ's and its CQ's locks held */
u32 cxsim_cq_room_locked(struct cxsim_cq *cq);
int cxsim_rq_cqe_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			u8 opcode, u8 synd);
int cxsim_rq_post_cqe_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			     struct cxen_cqe *cqe);
void cxsim_rq_cqe_init(const struct cxsim_rq *rq, struct cxen_cqe *cqe,
		       u8 opcode, u8 synd);
void cxsim_rq_next_wqe(struct cxsim_rq *rq);
void cxsim_rq_fail_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			  u16 pi, u8 synd);
int cxsim_rq_no_buffer_locked(struct cxsim_rq *rq, enum cxsim_rx_fc fc);
void cxsim_rq_cq_overrun_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx);
void cxsim_rq_count_frame(struct cxsim_rq *rq, const struct cxsim_rx_ctx *rx);
void cxsim_rx_copy(struct cxsim_rq *rq, const struct cxsim_rx_ctx *rx,
		   u64 dma, u32 off, u32 n);

/* cxsim_stride.c */
u32 cxsim_stride_need(u8 log_stride_bytes, u16 headroom, u16 tailroom,
		      u32 len, u32 hlen);
int cxsim_rx_split_plan(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx);
void cxsim_rx_split_write(struct cxsim_rq *rq, const struct cxsim_rx_ctx *rx,
			  struct cxen_cqe *cqe);
int cxsim_rq_stride_receive(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			    enum cxsim_rx_fc fc, u16 pi);
bool cxsim_stride_bytes(struct cxsim_rq *rq, const struct cxsim_rx_ctx *rx,
			u32 off, u32 n, u32 src);
void cxsim_stride_write(struct cxsim_rq *rq, u32 off, const void *buf, u32 n);
void cxsim_stride_post_frame(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			     struct cxen_cqe *cqe, u32 first, u32 n);

/* cxsim_lro.c */
bool cxsim_lro_open_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			   u32 first, u32 start);
bool cxsim_lro_append_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx);
void cxsim_lro_close_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx);
/* Where a piece of a payload is: see cxsim_lro_burst_locked(). */
typedef u32 (*cxsim_piece_fn)(void *ctx, u32 off, u32 max, const u8 **p);
u32 cxsim_lro_burst_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			   const struct cxsim_lso *lso, cxsim_piece_fn piece,
			   void *ctx, u32 i, u32 *wire_bytes);

#define CXSIM_SEG_BYTES		sizeof(struct cxen_data_seg)	/* 16 */

/* Data segments an SQ WQE holds at most: its largest stride, 1 KiB. */
#define CXSIM_LSO_MAX_DSEGS	((1u << CXEN_HW_SQ_MAX_LOG_STRIDE) / CXSIM_SEG_BYTES)

/* LRO merges one delivering context keeps open at once (RQs) */
#define CXSIM_LRO_CTX_RQS	8

/*
 * A frame on its way into a port, and where its delivery stands: a frame
 * held by flow control keeps it across its tries; an SQ's is in the SQ
 * (struct cxsim_sq_park) and outlives a parked run.
 */
struct cxsim_rx_wait {
	struct cxsim_port *port;
	struct cxsim_rx_ctx rx;
	struct cxsim_pkt pkt;
	u32 len;			/* on the wire */
	enum cxsim_rx_fc fc;
	unsigned long deadline;		/* of the wait; 0: it has not waited */
	/* Of its wait for its flow's order (cxsim_rx_order_wait()); 0: none */
	unsigned long order_deadline;
	u32 order_ci;			/* the CQ's consumer index seen last */
	bool order_expired;		/* that wait is over: go */
	/* The RQs whose LRO merge this context left open (cxsim_lro_flush()) */
	u16 lro_rqn[CXSIM_LRO_CTX_RQS];
	u8 lro_n;
	int lro_last;			/* and the one @rx went into, or -1 */
};

/*
 * The frame an SQ's run is delivering, and the WQE it belongs to. When a
 * doorbell writer's run finds the frame must wait for an RX buffer, it
 * parks: @parked, and the work delivers the frame, sends the rest of an
 * LSO WQE's segments (@lso from @lso_next) and completes the WQE (@cqe).
 */
struct cxsim_sq_park {
	struct cxsim_rx_wait w;
	struct cxsim_lso lso;
	u32 lso_next;
	bool in_lso;
	bool cqe;
	bool parked;
	/*
	 * The LSO WQE's payload: @lso_inl bytes of inline data (copied to
	 * sq->buf with the WQE), then @lso_nds data segments, read from host
	 * memory as the segments go (cxsim_lso_piece()).
	 */
	u32 lso_inl;
	u32 lso_nds;
	u64 lso_addr[CXSIM_LSO_MAX_DSEGS];
	u32 lso_len[CXSIM_LSO_MAX_DSEGS];
};

/* cxsim_cq.c */
int cxsim_cq_post_locked(struct cxsim_cq *cq, struct cxen_cqe *cqe,
			 bool *fire);
s64 cxsim_cq_ci(struct cxsim_cq *cq);
void cxsim_cq_raise_due(struct cxsim_cq *cq);
/* cxsim_rx.c */
void cxsim_port_count_frame(struct cxsim_port *port, int mcast,
			    int hist, const u8 *frame, u32 len);
bool cxsim_rx_begin(struct cxsim_rx_wait *w, struct cxsim_sq *sq,
		    const u8 *frame, u32 len, u8 csum_known);
int cxsim_rx_deliver(struct cxsim_rx_wait *w, struct cxsim_sq *sq,
		     bool may_sleep);
/* cxsim_lro.c: the merges a delivering context leaves open */
void cxsim_lro_flush(struct cxsim_dev *sd, struct cxsim_rx_wait *w);
void cxsim_lro_note(struct cxsim_dev *sd, struct cxsim_rx_wait *w,
		    u16 rqn);

#endif /* _CXSIM_RX_H_ */
