/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxsim: register/DMA-level model of the cxen NIC.
 *
 * One device, two ports cabled back to back. The driver sees only what
 * cxen_hw.h describes: registers trapped through struct cxen_mmio_bus,
 * rings and doorbell records in its own DMA memory, and Linux IRQs from
 * an irq domain the model owns. The model touches host memory only by
 * DMA address (cxsim_dma.c).
 *
 * Execution contexts:
 *   - register traps (cxsim_main.c): any context, never sleep; they
 *     latch values and queue work, but for SQ_DB, which may run the SQ
 *     right there (cxsim_sq_kick());
 *   - the command work (cxsim_cmd.c), on an ordered workqueue: one
 *     command at a time, under cfg_lock;
 *   - each SQ's engine (cxsim_tx.c), run by the doorbell writer or by
 *     the SQ's work item on the datapath workqueue, one runner at a time:
 *     it executes WQEs, puts frames on the wire and receives them on the
 *     peer port, writes CQEs and raises interrupts;
 *   - one work item per CQ, raising the interrupt of a moderation period
 *     (its hrtimer's expiry) or of an arm; with irq_direct, the CQ's
 *     hrtimer raises it in hard interrupt context.
 *
 * Lock order: cfg_lock (mutex) -> SQ engine (CXSIM_SQ_RUN) -> rq->lock
 * (bottom halves off) -> cq->lock -> reg_lock.
 * Queue pointers in the device tables are RCU-protected: the datapath
 * and the traps look them up under rcu_read_lock(); DESTROY_* unpublishes
 * the queue, waits for a grace period and for the queue's work, and only
 * then returns, so the device never touches the queue's memory again;
 * but DESTROY_RQ, which marks the RQ dead under its lock instead (a frame
 * steered to it before is steered again) and frees it after a grace
 * period: a queue restart's traffic waits across no grace period.
 */
#ifndef _CXSIM_H_
#define _CXSIM_H_

#include <linux/atomic.h>
#include <linux/hrtimer.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/rcupdate.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/workqueue.h>

#include "cxen_hw.h"

struct dentry;
struct device;
struct fwnode_handle;
struct irq_domain;
struct platform_device;

/* Values the model reports in QUERY_DEV. */
#define CXSIM_FW_MAJOR		0
#define CXSIM_FW_MINOR		1
#define CXSIM_RSVD_LKEY		0x00000100u

#define CXSIM_DEFAULT_MTU	1500
/* Longest frame on the wire: max MTU + Ethernet header + one VLAN tag. */
#define CXSIM_MAX_WIRE_FRAME	(CXEN_HW_MAX_MTU + ETH_HLEN + VLAN_HLEN)
/* Bytes one TX WQE may gather (inline + data segments, LSO payload). */
#define CXSIM_TX_MAX_GATHER	65536
/* Room in front of the gathered bytes: LSO header, then a VLAN tag. */
#define CXSIM_TX_HEADROOM	(CXEN_HW_TX_MAX_LSO_HDR + VLAN_HLEN)
/* One LSO segment, with room in front for a VLAN tag. */
#define CXSIM_SEG_BUF		(VLAN_HLEN + CXSIM_MAX_WIRE_FRAME)
/* WQEs one SQ executes per work run before it yields. */
#define CXSIM_TX_BUDGET		64
/* How often a frame held by flow control looks for a posted RX WQE. */
#define CXSIM_PAUSE_POLL_US	20
/* Mailboxes are 4 KiB; rings are 4 KiB aligned. */
#define CXSIM_MBOX_SIZE		4096
#define CXSIM_RING_ALIGN	4096

/* Device counters */
enum {
	CXSIM_DEV_COMMANDS,	/* commands executed */
	CXSIM_DEV_CMD_BUSY,	/* CMD_CTRL written while GO was set */
	CXSIM_DEV_CMD_FAILED,	/* commands that returned a status != OK */
	CXSIM_DEV_BAD_REG,	/* access to an unknown or misaligned register */
	CXSIM_DEV_BAD_DB,	/* SQ_DB/CQ_ARM naming no existing queue */
	CXSIM_DEV_DMA_ERRORS,	/* DMA to a non-addressable bus address */
	CXSIM_DEV_ASYNC_EVENTS,	/* async vector raised */
	CXSIM_DEV_RESETS,	/* DEV_RESET writes that completed */
	CXSIM_DEV_ORDER_WAITS,	/* frames that waited for their flow's order */
	CXSIM_DEV_ORDER_TIMEOUTS,	/* and went on before it was kept */
	CXSIM_DEV_NCNT
};

/*
 * Port counters: frames the port put on / took off the wire. In the order
 * of struct cxen_port_counters, which QUERY_COUNTERS copies them into.
 */
enum {
	CXSIM_PORT_TX_FRAMES,
	CXSIM_PORT_TX_BYTES,
	CXSIM_PORT_TX_OVERSIZE,	/* longer than this port's MTU: dropped */
	CXSIM_PORT_TX_LINK_DOWN,	/* dropped: link down */
	CXSIM_PORT_TX_ERRORS,	/* TX error CQEs (flushes included) */
	CXSIM_PORT_RX_FRAMES,
	CXSIM_PORT_RX_BYTES,
	CXSIM_PORT_RX_OVERSIZE,	/* longer than this port's MTU: dropped */
	CXSIM_PORT_RX_NO_RQ,	/* no RQ to steer to: dropped */
	CXSIM_PORT_RX_OUT_OF_BUFFER,	/* RQ had no posted WQE: dropped */
	CXSIM_PORT_RX_CQ_OVERRUN,	/* RQ's CQ full: dropped */
	CXSIM_PORT_RX_QUEUE_ERROR,	/* RQ in error state: dropped */
	CXSIM_PORT_RX_ERRORS,	/* RX error CQEs (flushes included) */
	CXSIM_PORT_RX_CSUM_BAD,	/* delivered with a bad IPv4/L4 checksum */
	CXSIM_PORT_TX_MCAST,
	CXSIM_PORT_TX_BCAST,
	CXSIM_PORT_RX_MCAST,
	CXSIM_PORT_RX_BCAST,
	CXSIM_PORT_RX_VLAN_STRIPPED,
	CXSIM_PORT_TX_PAUSE,
	CXSIM_PORT_RX_PAUSE,
	CXSIM_PORT_TX_HIST,	/* CXEN_HIST_BUCKETS counters */
	CXSIM_PORT_RX_HIST = CXSIM_PORT_TX_HIST + CXEN_HIST_BUCKETS,
	/* refused by the RX filter: dropped */
	CXSIM_PORT_RX_FILTERED = CXSIM_PORT_RX_HIST + CXEN_HIST_BUCKETS,
	CXSIM_PORT_RX_FILTERED_BYTES,
	/* frames of a WQE that failed after its first went: dropped */
	CXSIM_PORT_TX_DISCARDED,
	CXSIM_PORT_NCNT
};

/* SQ counters */
enum {
	CXSIM_SQ_WQES,		/* WQEs consumed */
	CXSIM_SQ_FRAMES,	/* frames put on the wire */
	CXSIM_SQ_BYTES,
	CXSIM_SQ_OVERSIZE,
	CXSIM_SQ_LINK_DOWN,
	CXSIM_SQ_ERROR_CQES,	/* error CQEs other than flushes */
	CXSIM_SQ_FLUSHED,	/* WQEs completed with WR_FLUSH */
	CXSIM_SQ_CQ_OVERRUN,	/* CQEs lost: CQ full */
	CXSIM_SQ_INLINE_RUNS,	/* runs in the doorbell writer's context */
	CXSIM_SQ_WORK_RUNS,	/* runs of the SQ's work */
	CXSIM_SQ_PARKED,	/* frames a writer's run left to the work */
	CXSIM_SQ_LRO_BURST,	/* LSO segments merged at once (LRO) */
	CXSIM_SQ_NCNT
};

/* RQ counters */
enum {
	CXSIM_RQ_FRAMES,
	CXSIM_RQ_BYTES,
	CXSIM_RQ_OUT_OF_BUFFER,
	CXSIM_RQ_ERROR_CQES,	/* error CQEs other than flushes */
	CXSIM_RQ_FLUSHED,
	CXSIM_RQ_CQ_OVERRUN,	/* frames dropped: CQ full */
	CXSIM_RQ_CSUM_BAD,
	CXSIM_RQ_WQES,		/* WQEs completed (released, when striding) */
	CXSIM_RQ_HDR_SPLIT,	/* frames whose headers went to a header buffer */
	CXSIM_RQ_HDR_NO_BUFFER,	/* would have been: no header buffer fit */
	CXSIM_RQ_FILLERS,	/* filler CQEs (striding) */
	CXSIM_RQ_STRIDES,	/* strides frames consumed (striding) */
	CXSIM_RQ_LRO,		/* frames merged from segments (LRO) */
	CXSIM_RQ_LRO_SEGS,	/* the segments they merged */
	CXSIM_RQ_NCNT
};

/* CQ counters */
enum {
	CXSIM_CQ_CQES,		/* CQEs written */
	CXSIM_CQ_OVERRUN,	/* CQEs lost: CQ full */
	CXSIM_CQ_ARMS,
	CXSIM_CQ_IRQS,
	CXSIM_CQ_MODIFIED,	/* MODIFY_CQ commands */
	CXSIM_CQ_NCNT
};

/* Fault injection knobs ("every Nth") and counters (cxsim_fault.c) */
enum {
	CXSIM_FAULT_DROP,
	CXSIM_FAULT_CORRUPT_CSUM,
	CXSIM_FAULT_CQE_BAD_LEN,
	CXSIM_FAULT_CQE_BAD_INDEX,
	CXSIM_FAULT_CQE_ERROR,
	CXSIM_FAULT_CQE_STALE_OWNER,
	CXSIM_FAULT_STRIDE_OVERRUN,
	CXSIM_FAULT_HDR_LEN,
	CXSIM_FAULT_FILLER_MID,
	CXSIM_FAULT_NKNOB,
	CXSIM_FAULT_DELAYED = CXSIM_FAULT_NKNOB,
	CXSIM_FAULT_STALLED,
	CXSIM_FAULT_SQ_ERROR,
	CXSIM_FAULT_RQ_ERROR,
	CXSIM_FAULT_CMD_FAILED,
	CXSIM_FAULT_CMD_HUNG,
	CXSIM_FAULT_DEV_HANG,
	CXSIM_FAULT_DEV_FATAL,
	CXSIM_FAULT_RESET_FAILED,
	CXSIM_FAULT_NCNT
};

struct cxsim_fault_knob {
	struct cxsim_dev *sd;
	int knob;
};

/* A one-shot queue knob's debugfs file: the knob and its limit. */
struct cxsim_fault_qknob {
	int *knob;
	int limit;
};

struct cxsim_fault {
	struct cxsim_fault_knob knob[CXSIM_FAULT_NKNOB];	/* debugfs */
	u32 every[CXSIM_FAULT_NKNOB];	/* 0: off */
	atomic_t seq[CXSIM_FAULT_NKNOB];
	u32 delay_us;
	int stall_sqn;			/* -1: none */
	int sq_error_sqn;		/* -1: none; one shot */
	int rq_error_rqn;		/* -1: none; one shot */
	u32 cmd_fail_opcode;		/* 0: none */
	atomic_t cmd_fail_count;	/* commands of that opcode left to fail */
	u32 cmd_hang_opcode;		/* 0: none; one shot (cxsim_health.c) */
	atomic_t reset_fail;		/* DEV_RESET writes left to ignore */
	struct cxsim_fault_qknob qknob[2];	/* sq_error_sqn, rq_error_rqn */
	atomic64_t cnt[CXSIM_FAULT_NCNT];
};

extern const char * const cxsim_dev_cnt_names[CXSIM_DEV_NCNT];
extern const char * const cxsim_port_cnt_names[CXSIM_PORT_NCNT];
extern const char * const cxsim_sq_cnt_names[CXSIM_SQ_NCNT];
extern const char * const cxsim_rq_cnt_names[CXSIM_RQ_NCNT];
extern const char * const cxsim_cq_cnt_names[CXSIM_CQ_NCNT];

struct cxsim_dev;
struct cxsim_iommu;
struct cxsim_sq_park;

struct cxsim_cq {
	struct cxsim_dev *sd;
	u64 ring_dma;
	u64 dbrec_dma;
	u32 cqn;
	u8 log_size;
	u16 vector;
	u16 moder_usecs;		/* 0: no interrupt moderation */
	u16 moder_frames;
	unsigned int users;		/* WQs completing here; cfg_lock */
	struct work_struct irq_work;	/* raises the IRQ (no irq_direct) */
	/* moder_usecs after a CQE when armed; at once for @fire */
	struct hrtimer moder_timer;

	spinlock_t lock;		/* the fields below */
	u32 prod;			/* CQEs written, free running */
	u32 armed_cqes;			/* CQEs written since the arm */
	u32 stale_idx;			/* CQE written with a stale owner */
	bool stale;			/* (fault injection) */
	bool armed;
	bool fire;			/* moder_timer (irq_work) must raise */
	u32 arm_ci;			/* consumer index at the last CQ_ARM */
	u64 cnt[CXSIM_CQ_NCNT];
};

struct cxsim_sq {
	struct cxsim_dev *sd;
	struct cxsim_cq *cq;
	u64 ring_dma;
	u64 dbrec_dma;
	u32 sqn;
	u8 port;
	u8 log_size;
	u8 log_stride;
	struct work_struct work;	/* runs the engine where it may sleep */
	unsigned long engine;		/* CXSIM_SQ_RUN, CXSIM_SQ_KICK */
	bool dead;			/* being destroyed: do not requeue */
	bool stopped;			/* MODIFY_SQ to RST: execute nothing */

	/* Only the engine's owner (CXSIM_SQ_RUN) touches these. */
	bool error;			/* error state: flush every WQE */
	u16 cons;			/* WQE counter, free running */
	u8 *wqe;			/* copy of the WQE being executed */
	u8 *buf;			/* headroom + gathered bytes */
	u8 *seg;			/* CXSIM_SEG_BUF: an LSO segment */
	struct cxsim_sq_park *park;	/* the frame on its way, its WQE */
	u64 cnt[CXSIM_SQ_NCNT];
};

/* Ethernet (with a tag left in), IPv6, TCP with the timestamp option. */
#define CXSIM_LRO_MAX_HDR	(ETH_HLEN + VLAN_HLEN + 40 + 32)

/**
 * struct cxsim_lro - the TCP segments an LRO RQ is merging (cxsim_lro.c)
 * @open: a merge is open: its frame sits at stride @first of WQE cons
 *	and has no CQE yet
 * @v6: IPv6, else IPv4
 * @ts: the segments carry the timestamp option
 * @l3_off: the IP header's offset in the frame as delivered
 * @l4_off: the TCP header's
 * @hlen: the headers' length
 * @segs: segments merged
 * @first: the frame's first stride
 * @start: its first byte in the WQE (after the headroom)
 * @len: its bytes so far, as delivered
 * @next_seq: the sequence number the next segment must have
 * @ack: the last segment's acknowledgment number
 * @tsval: and its timestamp
 * @paylen: TCP payload bytes so far
 * @pay_csum: their ones' complement sum
 * @addr_csum: the sum of the pseudo header's addresses
 * @flags: the CQE flags of the first segment (the others' are equal)
 * @hash: its RSS hash
 * @vlan_tci: its stripped tag
 * @hdr: its headers as delivered, updated by every segment merged
 */
struct cxsim_lro {
	bool open;
	bool v6;
	bool ts;
	u16 l3_off;
	u16 l4_off;
	u16 hlen;
	u16 segs;
	u32 first;
	u32 start;
	u32 len;
	u32 next_seq;
	u32 ack;
	u32 tsval;
	u32 paylen;
	__wsum pay_csum;
	__wsum addr_csum;
	u32 flags;
	u32 hash;
	u16 vlan_tci;
	u8 hdr[CXSIM_LRO_MAX_HDR];
};

/*
 * An RQ. Scatter-list (rq_flags 0), or striding and/or with header/data
 * split (CXEN_RQ_F_*, cxsim_stride.c): the parameters from CREATE_RQ
 * never change; the positions are the RQ's state under its lock.
 */
struct cxsim_rq {
	struct cxsim_dev *sd;
	struct cxsim_cq *cq;
	struct rcu_head rcu;
	u64 ring_dma;
	u64 dbrec_dma;
	u32 rqn;
	u8 port;
	u8 log_size;
	u8 log_stride;
	u8 rq_flags;			/* CXEN_RQ_F_* */
	/* CXEN_RQ_F_STRIDING */
	u8 log_stride_bytes;
	u8 log_page_bytes;
	u16 headroom;
	u16 tailroom;
	u32 strides;			/* per WQE */
	/* CXEN_RQ_F_HDR_SPLIT */
	u8 log_hdr_size;
	u16 split_min;
	u64 hdr_ring_dma;

	spinlock_t lock;		/* the fields below */
	bool dead;			/* destroyed: frames steer again */
	bool error;			/* error state: flush, drop frames */
	bool stopped;			/* MODIFY_RQ to RST: drop frames */
	bool pause_storm;		/* a frame waited too long: drop until */
					/* the driver posts a WQE again */
	u16 cons;			/* WQE counter, free running */
	u16 hdr_cons;			/* header ring counter, free running */
	u32 stride_pos;			/* next free stride of WQE cons */
	bool wqe_valid;			/* @page holds WQE cons, checked */
	u64 page[CXEN_HW_MAX_WQE_PAGES];	/* its pages' bus addresses */
	struct cxsim_lro lro;		/* CXEN_RQ_F_LRO: the merge open */
	u64 cnt[CXSIM_RQ_NCNT];
};

/* RSS context of a port, replaced as a whole by SET_RSS (RCU). */
struct cxsim_rss {
	struct rcu_head rcu;
	u32 hash_fields;
	u8 key[CXEN_RSS_KEY_SIZE];
	u16 rqn[CXEN_RSS_TABLE_SIZE];
};

/*
 * RX filter of a port, replaced as a whole by SET_RX_FILTER (RCU). NULL
 * is the power-on state: no entry, no flag, nothing but broadcast.
 */
struct cxsim_rx_filter {
	struct rcu_head rcu;
	u32 flags;			/* CXEN_RX_FILTER_* */
	u64 mc_hash;			/* bit n: multicast bucket n */
	unsigned int num_uc;
	u8 uc[CXEN_HW_RX_UC_ENTRIES][ETH_ALEN];
};

struct cxsim_port {
	struct cxsim_dev *sd;
	u8 index;
	u8 mac[ETH_ALEN];
	/* Written by commands under cfg_lock, read by the datapath. */
	u16 mtu;
	bool admin_up;
	bool link_up;
	bool vlan_strip;
	bool loopback;
	bool rx_pause;			/* honour PAUSE: hold the transmitter */
	bool tx_pause;			/* send PAUSE: RX waits for buffers */
	int default_rqn;		/* lowest RQ of the port, -1: none */
	unsigned int num_rq;		/* cfg_lock */
	struct cxsim_rss __rcu *rss;	/* NULL: all frames to default_rqn */
	/*
	 * Per RSS table entry, where its last frame went: a CQ and the CQEs
	 * it will have written with that frame's (cxsim_flow_wait()).
	 */
	atomic64_t flow_last[CXEN_RSS_TABLE_SIZE];
	struct cxsim_rx_filter __rcu *filter;	/* NULL: broadcast only */
	atomic64_t cnt[CXSIM_PORT_NCNT];
};

/* A command latched from the registers when GO was written. */
struct cxsim_cmd {
	u64 in_dma;
	u64 out_dma;
	u32 mod;
	u16 opcode;
};

/* The wire generator (cxsim_gen.c): a link partner replaying one frame. */
struct cxsim_gen {
	struct mutex lock;		/* the fields below; one run at a time */
	u8 *frame;
	u32 len;
	u32 port;			/* debugfs; checked at each run */
	u64 last_frames;
	u64 last_ns;
};

struct cxsim_dev {
	struct platform_device *pdev;
	struct device *dma_dev;		/* the device DMA addresses belong to */
	struct cxsim_iommu *iommu;	/* NULL: bus address = physical */
	struct cxen_mmio_bus bus;
	struct notifier_block bus_nb;	/* catches dma_dev at device_add() */
	struct fwnode_handle *fwnode;
	struct irq_domain *domain;
	unsigned int virq[CXEN_HW_NUM_VECTORS];
	struct workqueue_struct *cmd_wq;
	struct workqueue_struct *dp_wq;
	struct dentry *debugfs;

	spinlock_t reg_lock;		/* command registers */
	u32 cmd_in_lo;
	u32 cmd_in_hi;
	u32 cmd_out_lo;
	u32 cmd_out_hi;
	u32 cmd_mod;
	u32 cmd_ctrl;
	struct cxsim_cmd cmd;		/* latched at GO */
	struct work_struct cmd_work;
	/* Health (cxsim_health.c), under reg_lock too */
	bool halted;			/* hung or fatal: execute nothing */
	bool resetting;			/* DEV_STATUS.READY clear */
	u8 syndrome;
	u16 heartbeat;			/* frozen at the halt */
	struct work_struct reset_work;

	atomic_t async_cause;

	struct mutex cfg_lock;		/* command execution, queue tables */
	struct cxsim_port port[CXEN_HW_MAX_PORTS];
	struct cxsim_cq __rcu *cq[CXEN_HW_NUM_CQ];
	struct cxsim_sq __rcu *sq[CXEN_HW_NUM_SQ];
	struct cxsim_rq __rcu *rq[CXEN_HW_NUM_RQ];

	atomic64_t cnt[CXSIM_DEV_NCNT];
	atomic64_t irqs[CXEN_HW_NUM_VECTORS];
	struct cxsim_fault fault;
	struct cxsim_gen gen;
};

static inline void cxsim_port_inc(struct cxsim_port *port, int c, u64 v)
{
	atomic64_add(v, &port->cnt[c]);
}

static inline void cxsim_dev_inc(struct cxsim_dev *sd, int c)
{
	atomic64_inc(&sd->cnt[c]);
}

/* cxsim_main.c */
void cxsim_raise_irq(struct cxsim_dev *sd, unsigned int vector);
void cxsim_async_event(struct cxsim_dev *sd, u32 bits);

/* cxsim_dma.c: the only code that touches host memory */
bool cxsim_dma_check(struct cxsim_dev *sd, u64 addr, u64 len);
bool cxsim_dma_read(struct cxsim_dev *sd, u64 addr, void *buf, u32 len);
const void *cxsim_dma_src(struct cxsim_dev *sd, u64 addr, u32 len);
bool cxsim_dma_write_csum(struct cxsim_dev *sd, u64 addr, const void *buf,
			  u32 len, __wsum *sum);
bool cxsim_dma_write(struct cxsim_dev *sd, u64 addr, const void *buf,
		     u32 len);
void *cxsim_dma_ptr(struct cxsim_dev *sd, u64 addr, u32 len);

/* cxsim_cmd.c */
void cxsim_cmd_work(struct work_struct *work);
void cxsim_destroy_all(struct cxsim_dev *sd);
void cxsim_port_filter_reset(struct cxsim_port *port);

#if IS_ENABLED(CONFIG_KUNIT)
u8 cxsim_cmd_run(struct cxsim_dev *sd, u16 opcode, u32 mod, u64 in_dma,
		 u64 out_dma);
void cxsim_lro_end_test(struct cxsim_dev *sd, u16 rqn);
int cxsim_rx_frame_test(struct cxsim_port *port, const u8 *frame, u32 len,
			bool hold);
#endif

/* cxsim_tx.c: the SQs' engine */
void cxsim_sq_work(struct work_struct *work);
void cxsim_sq_kick(struct cxsim_sq *sq);
void cxsim_sq_schedule(struct cxsim_sq *sq);
void cxsim_sq_lock(struct cxsim_sq *sq);
void cxsim_sq_unlock(struct cxsim_sq *sq);
struct cxsim_sq_park *cxsim_sq_park_alloc(void);
/* cxsim_cq.c: completion queues, interrupts */
void cxsim_cq_irq_work(struct work_struct *work);
void cxsim_cq_arm(struct cxsim_cq *cq);
enum hrtimer_restart cxsim_cq_moder_timer(struct hrtimer *timer);
/* cxsim_rx.c: frames into a port */
void cxsim_wire_rx(struct cxsim_port *port, const u8 *frame, u32 len);
void cxsim_flow_forget(struct cxsim_port *port, u16 cqn);
/* cxsim_lro.c */
void cxsim_rq_end_merge(struct cxsim_rq *rq);

/* cxsim_health.c */
bool cxsim_halted(struct cxsim_dev *sd);
u32 cxsim_dev_status(struct cxsim_dev *sd);
void cxsim_dev_reset_write(struct cxsim_dev *sd, u32 val);
void cxsim_reset_work(struct work_struct *work);
bool cxsim_fault_cmd_hang(struct cxsim_dev *sd, u16 opcode);
void cxsim_health_debugfs_init(struct cxsim_dev *sd, struct dentry *dir);

/* cxsim_fault.c */
bool cxsim_fault_wire(struct cxsim_dev *sd, u8 *frame, u32 len,
		      u8 *csum_known);
bool cxsim_fault_cqe(struct cxsim_dev *sd, struct cxen_cqe *cqe);
int cxsim_fault_sq(struct cxsim_sq *sq, bool may_sleep);
bool cxsim_fault_sq_error(struct cxsim_sq *sq);
bool cxsim_fault_rq_error(struct cxsim_rq *rq);
void cxsim_fault_rx_cqe(struct cxsim_dev *sd, struct cxen_cqe *cqe,
			u32 strides, u32 hdr_buf);
bool cxsim_fault_filler_mid(struct cxsim_dev *sd);
bool cxsim_fault_cmd(struct cxsim_dev *sd, u16 opcode);
void cxsim_fault_debugfs_init(struct cxsim_dev *sd, struct dentry *parent);

/* cxsim_gen.c */
void cxsim_gen_init(struct cxsim_dev *sd, struct dentry *parent);
void cxsim_gen_exit(struct cxsim_dev *sd);

/* cxsim_debugfs.c */
void cxsim_debugfs_init(struct cxsim_dev *sd);
void cxsim_debugfs_exit(struct cxsim_dev *sd);

#endif /* _CXSIM_H_ */
