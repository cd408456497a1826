/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxen queues: completion queues, RQs and SQs, their buffers, and the
 * data path's functions over them.
 *
 * The stack's send queues (en_tx.c) and the XDP send queues (en_xdp.c)
 * are both a struct cxen_sq, built, released and freed by en_tx.c
 * (@sq->xdp says which); both post WQEs of a control segment and data
 * segments on a ring, ring the same doorbell, and take the same send
 * CQEs, each completing every WQE up to the counter it names: what they
 * share is inline at the end of this header. The RQ's kinds are
 * en_rx.h's.
 */
#ifndef _CXEN_EN_TXRX_H_
#define _CXEN_EN_TXRX_H_

#include <linux/bitfield.h>
#include <linux/dma-mapping.h>
#include <linux/netdevice.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/page_pool/types.h>
#include <net/xdp.h>

#include "cxen_hw.h"
#include "en_frag.h"
#include "en_stats.h"

struct cxen_channel;
struct cxen_dev;
struct cxen_priv;

/*
 * SQ WQE stride, 512 bytes: room for the control segment, the largest LSO
 * segment (4 bytes + a 192-byte header, padded) and CXEN_TX_MAX_SEGS data
 * segments: the linear part and MAX_SKB_FRAGS page fragments.
 */
#define CXEN_SQ_LOG_STRIDE	9
#define CXEN_SQ_STRIDE		BIT(CXEN_SQ_LOG_STRIDE)
#define CXEN_TX_LSO_SEG_MAX	ALIGN(sizeof(struct cxen_tx_lso_seg) + \
				      CXEN_HW_TX_MAX_LSO_HDR, 16)
#define CXEN_TX_MAX_SEGS	((CXEN_SQ_STRIDE - sizeof(struct cxen_tx_ctrl_seg) - \
				  CXEN_TX_LSO_SEG_MAX) / sizeof(struct cxen_data_seg))
/* Default and largest frame sent inline in the WQE instead of mapped. */
#define CXEN_TX_INLINE_DEF	0
#define CXEN_TX_INLINE_MAX	CXEN_HW_TX_MAX_INLINE
/*
 * A WQE is reserved for each skb; stop the queue below this many free,
 * and wake it once this many more are (hysteresis, as fbnic's 2x).
 */
#define CXEN_TX_STOP_THRESH	2
#define CXEN_TX_WAKE_THRESH	32

/*
 * XDP SQ WQE stride, 128 bytes: the control segment and 7 data segments,
 * room for a frame of cxen's own (a head and at most three more RX
 * fragments) or an xdp_frame of up to 6 frags from ndo_xdp_xmit.
 */
#define CXEN_XSQ_LOG_STRIDE	7
#define CXEN_XSQ_MAX_SEGS	((BIT(CXEN_XSQ_LOG_STRIDE) - \
				  sizeof(struct cxen_tx_ctrl_seg)) / \
				 sizeof(struct cxen_data_seg))

/* RX WQE stride: 16 bytes per data segment, power of two. */
#define CXEN_RX_LOG_STRIDE	6	/* 4 segments */
/* Refill in batches of this many WQEs from NAPI. */
#define CXEN_RX_REFILL_BATCH	16
/* Frames up to this many bytes are copied and their buffer reposted. */
#define CXEN_RX_COPYBREAK_DEF	256
#define CXEN_RX_COPYBREAK_MAX	1024
/* Retry a ring left empty by allocation failures after this long. */
#define CXEN_RX_REFILL_RETRY	msecs_to_jiffies(10)

/**
 * struct cxen_cq - a completion queue
 * @cqes: the ring, 1 << @log_size entries, in coherent DMA memory
 * @dbrec: consumer-index doorbell record
 * @ci: consumer index, free running
 * @cqn: hardware CQ number
 * @log_size: log2 of the number of entries
 * @ring_dma: bus address of @cqes
 * @moder_usecs: interrupt moderation time, 0 = interrupt on every arm
 * @moder_frames: interrupt after this many CQEs at most, 0 = no limit
 * @hw_gen: &cxen_dev.hw_gen when the CQ was created in the device
 */
struct cxen_cq {
	struct cxen_cqe		*cqes;
	struct cxen_cq_dbrec	*dbrec;
	u32			ci;
	u32			cqn;
	u32			hw_gen;
	u8			log_size;
	u16			moder_usecs;
	u16			moder_frames;
	dma_addr_t		ring_dma;
};

/**
 * struct cxen_rx_buf - one fragment posted in an RX WQE
 * @page: the page holding the fragment (NULL: slot needs a buffer)
 * @offset: byte offset of the fragment's stride in @page
 * @dma: bus address of the stride's first byte
 */
struct cxen_rx_buf {
	struct page	*page;
	u32		offset;
	dma_addr_t	dma;
};

/**
 * struct cxen_rx_carve - the buffer fragments of one WQE index are cut from
 * @page: current buffer
 * @dma: its bus address, when mapped as a whole
 * @offset: next stride to hand out
 * @left: strides of @page not handed out yet
 */
struct cxen_rx_carve {
	struct page	*page;
	dma_addr_t	dma;
	u32		offset;
	u32		left;
};

/**
 * struct cxen_stride_page - one page of a striding WQE
 * @page: the page_pool page, NULL once the WQE is retired
 * @dma: its bus address
 * @given: page_pool references handed to skbs (one per skb frag); the
 *	page was posted with CXEN_STRIDE_PAGE_BIAS(rq) of them, and the WQE
 *	gives back the rest when it is retired
 */
struct cxen_stride_page {
	struct page	*page;
	dma_addr_t	dma;
	u32		given;
};

struct cxen_sq;
struct cxen_rx_kind;

/*
 * struct cxen_rq - a receive queue
 *
 * With an XDP program (@xdp), the layout keeps XDP_PACKET_HEADROOM, the
 * pool maps for both directions (XDP_TX sends from its pages), @xdp_rxq
 * is registered with the pool as its memory model, and @xdp_prog runs on
 * every frame. The other members are described where they are declared.
 */
struct cxen_rq {
	struct cxen_cq		cq;
	struct cxen_wq_dbrec	*dbrec;
	const struct cxen_rx_layout_ops *ops;	/* its buffer layout */
	const struct cxen_rx_kind *kind;	/* en_rx.h, from @ops */
	struct page_pool	*pool;		/* pagepool and striding */
	struct cxen_rx_carve	carve[CXEN_HW_RX_MAX_SEGS];
	struct napi_struct	*napi;
	struct net_device	*netdev;
	struct device		*dma_dev;
	struct cxen_priv	*priv;
	/* The channel it serves; a restarting queue's new or old RQ lives
	 * outside it (en_queue.c).
	 */
	struct cxen_channel	*ch;
	struct delayed_work	refill_work;	/* retries a starved ring */
	struct cxen_frag_layout	layout;
	u32			pi;		/* WQEs posted, free running */
	u32			ci;		/* WQEs consumed, free running */
	u32			rqn;
	u32			lkey;
	u8			log_size;
	u16			qid;
	bool			hw_destroyed;	/* DESTROY_RQ done */
	/* Built beside the channel's running RQ by a queue restart and not
	 * started: the NAPI it names is live, serving that other RQ.
	 */
	bool			beside;
	u32			hw_gen;		/* cxen_dev.hw_gen at CREATE_RQ */
	unsigned long		state;		/* CXEN_RQ_* bits */
#ifdef CONFIG_PAGE_POOL_STATS
	/* Counters of the pools this RQ destroyed, taken under stats_lock. */
	struct page_pool_stats	pp_final;
#endif
	dma_addr_t		ring_dma;
	struct cxen_rq_stats	stats;
#if !CXEN_STATS_DIRECT
	struct cxen_rq_acc	acc;		/* this poll's, to publish */
#endif
	/* XDP: the program (swapped under RCU, never to or from NULL while
	 * the RQ lives), the channel's XDP SQ; the rxq info is the ring's.
	 */
	struct bpf_prog __rcu	*xdp_prog;
	struct cxen_sq		*xsq;
	bool			xdp;		/* built for XDP (see above) */
	bool			xdp_tx;		/* this poll queued XDP_TX */
	bool			xdp_redirect;	/* this poll redirected */
	enum dma_data_direction	dma_dir;	/* of @pool's mappings */
	/* What only one kind of RQ has (en_rx.h): @kind says which. */
	union {
		/* The scatter-list ring (en_rx_sg.c, en_rx_compare.c). */
		struct {
			struct cxen_rx_wqe	*wqes;
			struct cxen_rx_buf	*bufs;	/* [size][nfrags] */
			struct xdp_rxq_info	xdp_rxq;
		};
		struct {
			/* The striding RQ (en_rx_stride.c): its geometry,
			 * the WQE in use and its next stride as the driver
			 * counts them, the pages of every WQE ([WQEs][pages]),
			 * the ring of striding WQEs (pages data segments
			 * each), CQEs naming a wrong WQE in a row.
			 */
			struct cxen_stride_layout slayout;
			struct cxen_stride_pos	spos;
			struct cxen_stride_page	*spages;
			struct cxen_data_seg	*swqes;
			u32			ring_bytes;	/* of @swqes */
			u32			post_max;	/* cxen_stride_cq_plan() */
			u32			bad_wqe_run;
			/* Header/data split: the header ring (@hdr_size
			 * data segments, each a CXEN_HDR_BUF_SIZE buffer of
			 * @hdr_pages, at fixed places), the buffers the device
			 * consumed (@hdr_ci, by the split CQEs) and the
			 * producer counter last published; NULL @hdr_ring: no
			 * split.
			 */
			struct cxen_data_seg	*hdr_ring;
			dma_addr_t		hdr_ring_dma;
			struct page		**hdr_pages;
			u32			hdr_size;
			u32			hdr_ci;
			u32			hdr_pi;
			bool			lro;	/* CXEN_RQ_F_LRO */
		};
	};
};

/**
 * struct cxen_tx_buf - what a TX WQE holds until it completes
 * @skb: the packet, freed on completion
 * @wire_bytes: bytes the WQE puts on the wire, headers of every segment
 * @wire_pkts: frames the WQE puts on the wire
 * @nr_maps: DMA mappings recorded in @map
 * @map: bus address and length of each mapping
 */
struct cxen_tx_buf {
	struct sk_buff	*skb;
	u32		wire_bytes;	/* bytes on the wire, all segments */
	u16		wire_pkts;	/* frames on the wire (gso_segs) */
	u8		nr_maps;
	struct {
		dma_addr_t	addr;
		u32		len;
		bool		page;
	} map[CXEN_TX_MAX_SEGS];
};

/**
 * struct cxen_xdp_buf - what an XDP SQ WQE holds until it completes
 * @xdpf: ndo_xdp_xmit: the frame, returned when sent; NULL: XDP_TX
 * @nr: XDP_TX: pages in @page; ndo_xdp_xmit: mappings in @map
 * @page: XDP_TX: the RQ's page_pool pages of the frame, back to the pool
 * @map: ndo_xdp_xmit: bus address and length of each mapping, undone
 */
struct cxen_xdp_buf {
	struct xdp_frame	*xdpf;
	u8			nr;
	union {
		struct page	*page[CXEN_HW_RX_MAX_SEGS];
		struct {
			dma_addr_t	addr;
			u32		len;
		} map[CXEN_XSQ_MAX_SEGS];
	};
};

/*
 * struct cxen_sq - a send queue: the stack's (one per TX queue) or, with
 * @xdp, a channel's XDP SQ
 *
 * An XDP SQ sends what the channel's XDP program returns XDP_TX for and
 * what ndo_xdp_xmit gives it; @xdp_lock orders those producers (the
 * channel's NAPI and any CPU's redirect), its completions free pages
 * and frames (en_xdp.c). It has no TX queue, no BQL, no wake.
 */
struct cxen_sq {
	struct cxen_cq		cq;
	void			*wqes;
	struct cxen_wq_dbrec	*dbrec;
	union {
		struct cxen_tx_buf	*bufs;
		struct cxen_xdp_buf	*xbufs;	/* @xdp */
	};
	struct netdev_queue	*txq;
	struct napi_struct	*napi;		/* the channel's, reaps the CQ */
	struct device		*dma_dev;
	struct cxen_dev		*cdev;
	struct cxen_priv	*priv;
	u32			pi;		/* WQEs posted, free running */
	u32			ci;		/* WQEs completed, free running */
	u32			sqn;
	u32			lkey;
	u8			log_size;
	u8			log_stride;	/* of its WQEs */
	u16			qid;
	bool			hw_destroyed;	/* DESTROY_SQ done */
	bool			xdp;		/* the channel's XDP SQ */
	u32			db_pi;		/* XDP SQ: pi of the last doorbell */
	spinlock_t		xdp_lock;	/* XDP SQ: pi, db_pi, @stats */
	u32			hw_gen;		/* cxen_dev.hw_gen at CREATE_SQ */
	unsigned long		state;		/* CXEN_SQ_* bits */
	/* Hang check (priv->health_work only): ci when last seen moving. */
	u32			hang_ci;
	unsigned long		hang_since;	/* jiffies; 0: not armed */
	dma_addr_t		ring_dma;
	struct cxen_sq_stats	stats;
	struct cxen_sq_cstats	cstats;
#if !CXEN_STATS_DIRECT
	struct cxen_sqc_acc	cacc;		/* this poll's, to publish */
#endif
};

/**
 * enum cxen_sq_state_bits - what an SQ is doing, bits of &cxen_sq.state
 * @CXEN_SQ_SERVING: its TX queue feeds it, so its completions may wake
 *	the queue. Changed under the queue's xmit lock (cxen_sq_serve()):
 *	off while a switch drains it or a reset rebuilds it.
 * @CXEN_SQ_RESET: the SQ needs a reset (en_health.c): set when a fault
 *	is found, cleared when a reset brought it back; an SQ whose reset
 *	failed keeps it, stopped, until `devlink health recover` or the next
 *	reconfiguration replaces it.
 * @CXEN_SQ_STOPPED: the driver stopped the TX queue for lack of WQEs and
 *	counted the stop (cxen_tx_maybe_stop()); whoever wakes the queue
 *	clears it and counts the wake, so tx_queue_stop and tx_queue_wake
 *	pair up. A stop that a reconfiguration ends instead stays unpaired.
 */
enum cxen_sq_state_bits {
	CXEN_SQ_SERVING,
	CXEN_SQ_RESET,
	CXEN_SQ_STOPPED,
};

/**
 * enum cxen_rq_state_bits - bits of &cxen_rq.state
 * @CXEN_RQ_RESET: the device put the RQ in the error state and it needs a
 *	reset (en_health.c); as %CXEN_SQ_RESET.
 */
enum cxen_rq_state_bits {
	CXEN_RQ_RESET,
};

/* The register accessors, inline in en.h once struct cxen_dev is whole. */
static inline u32 cxen_rd32(struct cxen_dev *cdev, u32 reg);
static inline void cxen_wr32(struct cxen_dev *cdev, u32 reg, u32 val);

/* en_tx.c */
int cxen_sq_alloc(struct cxen_channel *ch, struct cxen_sq *sq, bool xdp);
bool cxen_sq_free(struct cxen_sq *sq);
int cxen_sq_stop_hw(struct cxen_sq *sq);
void cxen_sq_serve(struct cxen_sq *sq, bool serving);
void cxen_sq_drop_pending(struct cxen_sq *sq);
void cxen_sq_reap_all(struct cxen_sq *sq);
void cxen_sq_restart(struct cxen_sq *sq);
netdev_tx_t cxen_start_xmit(struct sk_buff *skb, struct net_device *dev);
netdev_features_t cxen_features_check(struct sk_buff *skb,
				      struct net_device *netdev,
				      netdev_features_t features);
bool cxen_poll_tx(struct cxen_sq *sq, int budget);

/**
 * struct cxen_xdp_buff - the xdp_buff an RQ runs its program on, with
 * what the metadata kfuncs (cxen_xdp_metadata_ops) read
 * @xdp: the buff; first, the program's context points at it
 * @rq: the RQ
 * @cqe: the frame's CQE, in the CQ ring while the program runs
 */
struct cxen_xdp_buff {
	struct xdp_buff xdp;
	struct cxen_rq *rq;
	const struct cxen_cqe *cqe;
};

/* en_xdp.c: XDP SQs, XDP_TX, ndo_xdp_xmit, RX metadata */
extern const struct xdp_metadata_ops cxen_xdp_metadata_ops;
bool cxen_xdp_tx(struct cxen_sq *sq, const struct xdp_buff *xdp,
		 struct page *head);
void cxen_xsq_flush(struct cxen_sq *sq);
bool cxen_poll_xsq(struct cxen_sq *sq, int budget);
bool cxen_xsq_free(struct cxen_sq *sq);
bool cxen_xsq_idle(struct cxen_sq *sq);
bool cxen_xsq_drain(struct cxen_channel *ch);
int cxen_xsq_recover(struct cxen_channel *ch);
enum xdp_rss_hash_type cxen_xdp_rss_type(u32 cqe_flags);
int cxen_xdp_xmit(struct net_device *netdev, int n, struct xdp_frame **frames,
		  u32 flags);
/* en_cq.c: completion queues */
void cxen_cq_free(struct cxen_dev *cdev, struct cxen_cq *cq);
int cxen_cq_create(struct cxen_channel *ch, struct cxen_cq *cq, u8 log_size,
		   u16 usecs, u16 frames);
bool cxen_cq_destroy(struct cxen_dev *cdev, struct cxen_cq *cq);
void cxen_cq_arm(struct cxen_dev *cdev, struct cxen_cq *cq);

/**
 * cxen_cqe_owned() - whether the CQE at the consumer index is the driver's
 * @cq: the CQ
 *
 * Return: the CQE at @cq->ci if the device has written it, else NULL.
 * The caller must dma_rmb() before reading the CQE's other fields.
 */
static inline struct cxen_cqe *cxen_cqe_owned(struct cxen_cq *cq)
{
	struct cxen_cqe *cqe = &cq->cqes[cq->ci & ((1U << cq->log_size) - 1)];
	bool sw_parity = (cq->ci >> cq->log_size) & 1;

	if (!!(READ_ONCE(cqe->owner_sr_opcode) & CXEN_CQE_OWNER) != sw_parity)
		return NULL;
	return cqe;
}

/* Publish the CQ consumer index to the device. */
static inline void cxen_cq_update_ci(struct cxen_cq *cq)
{
	WRITE_ONCE(cq->dbrec->ci, cpu_to_be32(cq->ci & CXEN_CQ_DBREC_CI));
}

/*
 * CQEs one poll takes at most: twice NAPI's budget, and at least 128 (a
 * netpoll's budget is 0). Completions are cheap and free ring room.
 */
#define CXEN_SQ_REAP_LIMIT(budget)	(max((budget), 64) * 2)

static inline u32 cxen_sq_mask(const struct cxen_sq *sq)
{
	return (1U << sq->log_size) - 1;
}

/* Free WQEs, as the producer sees them (ci moves under it). */
static inline u32 cxen_sq_room(const struct cxen_sq *sq)
{
	return (1U << sq->log_size) - (sq->pi - READ_ONCE(sq->ci));
}

/* The WQE of free-running counter @counter. */
static inline void *cxen_sq_wqe(struct cxen_sq *sq, u32 counter)
{
	return sq->wqes + ((counter & cxen_sq_mask(sq)) << sq->log_stride);
}

/* One data segment of a WQE: @len bytes at bus address @addr. */
static inline void cxen_sq_set_seg(const struct cxen_sq *sq,
				   struct cxen_data_seg *seg, dma_addr_t addr,
				   u32 len)
{
	seg->lkey = cpu_to_be32(sq->lkey);
	seg->addr = cpu_to_be64(addr);
	seg->byte_count = cpu_to_be32(len);
}

/**
 * cxen_sq_ctrl() - the control segment of the WQE at @sq->pi
 * @sq: the SQ
 * @ctrl: the WQE's control segment
 * @opcode: CXEN_TX_OP_SEND or CXEN_TX_OP_LSO
 * @units: the WQE's size in CXEN_TX_WQE_UNIT units, control included
 * @flags: CXEN_TX_FLAG_*
 *
 * No VLAN tag to insert: the caller sets one after. The owner bit
 * carries the wrap parity of the WQE's counter: the device takes the WQE
 * once it sees its pass's.
 */
static inline void cxen_sq_ctrl(const struct cxen_sq *sq,
				struct cxen_tx_ctrl_seg *ctrl, u32 opcode,
				u32 units, u32 flags)
{
	ctrl->vlan_tci = 0;
	ctrl->ins_vlan = 0;
	ctrl->ds_cnt = FIELD_PREP(CXEN_TX_DS_CNT, units);
	ctrl->flags = cpu_to_be32(flags);
	ctrl->rsvd = 0;
	ctrl->owner_opcode =
		cpu_to_be32(FIELD_PREP(CXEN_TX_OPCODE, opcode) |
			    ((sq->pi >> sq->log_size) & 1 ? CXEN_TX_OWNER : 0));
}

/* Tell the device what was posted up to @sq->pi. Counting is the caller's. */
static inline void cxen_sq_ring_doorbell(struct cxen_sq *sq)
{
	/* WQEs must be visible before the producer counter... */
	dma_wmb();
	WRITE_ONCE(sq->dbrec->pi, cpu_to_be32(sq->pi & CXEN_WQ_DBREC_PI));
	/* ...and the producer counter before the doorbell. */
	wmb();
	cxen_wr32(sq->cdev, CXEN_REG_SQ_DB, FIELD_PREP(CXEN_SQ_DB_SQN, sq->sqn));
}

/* en_tx.c: an SQ's life, and what a bad or error CQE costs */
bool cxen_sq_release_hw(struct cxen_sq *sq);
void cxen_sq_free_ring(struct cxen_sq *sq);
void cxen_sq_bad_cqe(struct cxen_sq *sq, const struct cxen_cqe *cqe);
void cxen_sq_err_cqe(struct cxen_sq *sq, const struct cxen_cqe *cqe);

/**
 * cxen_sq_cqe_done() - how many WQEs a send CQE completes
 * @sq: the SQ
 * @cqe: the CQE, owned by software, read after dma_rmb()
 * @ci: the SQ's consumer counter before it
 * @opcode: written: the CQE's opcode
 *
 * A CQE completes every WQE up to the counter it names. One of another
 * SQ, naming a WQE not outstanding, or neither a send nor an error CQE is
 * counted (tx_err_cqe), logged and ignored. An error CQE is counted, and
 * unless it is a flush the device stopped the SQ: a reset is scheduled;
 * its WQEs complete, unsent.
 *
 * Return: WQEs completed, 0 for a CQE ignored.
 */
static inline u32 cxen_sq_cqe_done(struct cxen_sq *sq,
				   const struct cxen_cqe *cqe, u32 ci,
				   u8 *opcode)
{
	u8 op = FIELD_GET(CXEN_CQE_OPCODE, cqe->owner_sr_opcode);
	u32 done = (u16)(be16_to_cpu(cqe->wqe_index) - (u16)ci) + 1;

	*opcode = op;
	if (unlikely(FIELD_GET(CXEN_CQE_QPN, be32_to_cpu(cqe->qpn)) != sq->sqn ||
		     done > READ_ONCE(sq->pi) - ci ||
		     (op != CXEN_CQE_OP_SEND && op != CXEN_CQE_OP_ERROR))) {
		cxen_sq_bad_cqe(sq, cqe);
		return 0;
	}
	if (unlikely(op == CXEN_CQE_OP_ERROR))
		cxen_sq_err_cqe(sq, cqe);
	return done;
}

/**
 * cxen_sq_take_cqe() - take the next CQE of an SQ's CQ
 * @sq: the SQ
 * @ci: the SQ's consumer counter before it
 * @opcode: written: the CQE's opcode
 *
 * Return: the WQEs it completes from @ci (cxen_sq_cqe_done(): 0 for one
 * ignored), or -1 when the device has written no CQE there.
 */
static inline int cxen_sq_take_cqe(struct cxen_sq *sq, u32 ci, u8 *opcode)
{
	struct cxen_cqe *cqe = cxen_cqe_owned(&sq->cq);

	if (!cqe)
		return -1;
	/* Read the CQE only after seeing its owner bit. */
	dma_rmb();
	sq->cq.ci++;
	return cxen_sq_cqe_done(sq, cqe, ci, opcode);
}

#endif /* _CXEN_EN_TXRX_H_ */
