/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxsim RX internals shared by the scatter-list receive path
 * (cxsim_dp.c) and the striding RQ and header/data split
 * (cxsim_stride.c). Nothing outside the datapath includes this.
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

/* cxsim_dp.c, called with the RQ's and its CQ's locks held */
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

#endif /* _CXSIM_RX_H_ */
