// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim datapath: SQ execution, the wire, RX steering and scatter, CQEs
 * and interrupts.
 *
 * An SQ_DB write kicks the SQ's engine. When the engine is idle and the
 * writer runs with bottom halves off and interrupts on (ndo_start_xmit(),
 * NAPI), the engine runs right there, in the doorbell writer's context,
 * as a veth transmit does, when the db_inline parameter is on (off by
 * default); otherwise the SQ's work item runs it on the datapath
 * workqueue.
 * One runner at a time (CXSIM_SQ_RUN): a doorbell that finds the engine
 * busy leaves CXSIM_SQ_KICK for the runner, which queues the work when it
 * is done. A run reads the SQ's producer counter from its doorbell record
 * and executes WQEs from its consumer counter, at most CXSIM_TX_BUDGET.
 * A frame goes on the wire at once: the peer port receives it in the same
 * run, steers it to an RQ, scatters it into the buffers of the RQ's next
 * WQE and writes the RX CQE. With flow control on (the default) a frame
 * that finds its RQ empty waits for the driver to post a WQE, as a
 * transmitter held by PAUSE would: the work sleeps; a doorbell writer,
 * which may not sleep, parks the frame and the rest of its WQE in the SQ
 * and leaves them to the work. Interrupts are raised with no model lock
 * held (cxsim_raise_irq()): by the run that wrote the CQE, or, moderated
 * or asked for by an arm, from the CQ's work item (with the irq_direct
 * parameter on, from the CQ's hrtimer in its hard interrupt).
 */
#include <linux/bitfield.h>
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <kunit/visibility.h>

#include "cxsim.h"
#include "cxsim_pkt.h"
#include "cxsim_rss.h"
#include "cxsim_rx.h"

#define CXSIM_SEG_BYTES		sizeof(struct cxen_data_seg)	/* 16 */

static bool db_inline;
module_param(db_inline, bool, 0644);
MODULE_PARM_DESC(db_inline,
		 "Run an idle SQ in the doorbell writer's context (default N: always in the SQ's work item)");

static bool irq_direct;
module_param(irq_direct, bool, 0644);
MODULE_PARM_DESC(irq_direct,
		 "Raise a moderated or arm-due interrupt from the CQ's hrtimer, in hard interrupt context (default N: from the CQ's work item)");

/* Bits of struct cxsim_sq.engine */
enum {
	CXSIM_SQ_RUN,		/* a runner (work or doorbell writer) owns the SQ */
	CXSIM_SQ_KICK,		/* a doorbell since the runner read the PI */
};

/* Data segments an SQ WQE holds at most: its largest stride, 1 KiB. */
#define CXSIM_LSO_MAX_DSEGS	((1u << CXEN_HW_SQ_MAX_LOG_STRIDE) / CXSIM_SEG_BYTES)

/* LRO merges one delivering context keeps open at once (RQs) */
#define CXSIM_LRO_CTX_RQS	8

/*
 * How long a frame steered to another RQ than its flow's frames before
 * waits for the host to be done with them (cxsim_flow_wait()) while the
 * host takes none of that RQ's CQEs
 */
#define CXSIM_RSS_ORDER_MS	100

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

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */
/* ------------------------------------------------------------------ */

/* Consumer index the driver published, or -1 when unreadable. */
static s64 cxsim_cq_ci(struct cxsim_cq *cq)
{
	struct cxen_cq_dbrec *db;

	db = cxsim_dma_ptr(cq->sd, cq->dbrec_dma, sizeof(*db));
	if (!db)
		return -1;
	return be32_to_cpu(READ_ONCE(db->ci)) & CXEN_CQ_DBREC_CI;
}

/* CQEs written and not yet consumed; the CQ size or more when unknown. */
static u32 cxsim_cq_used_locked(struct cxsim_cq *cq)
{
	s64 ci = cxsim_cq_ci(cq);

	if (ci < 0)
		return U32_MAX;
	return (cq->prod - (u32)ci) & CXEN_CQ_DBREC_CI;
}

/* CQEs the CQ can take now without overrunning: 0 when unknown. */
u32 cxsim_cq_room_locked(struct cxsim_cq *cq)
{
	u32 used = cxsim_cq_used_locked(cq), size = 1u << cq->log_size;

	return used < size ? size - used : 0;
}

/*
 * Disarm and fire: now (@fire: the caller raises the vector once it has
 * dropped its locks) or, without @fire, from the CQ's hrtimer at once, in
 * its hard interrupt, as an MSI-X message arrives (from the CQ's work with
 * irq_direct off).
 */
static void cxsim_cq_fire_locked(struct cxsim_cq *cq, bool *fire)
{
	cq->armed = false;
	cq->cnt[CXSIM_CQ_IRQS]++;
	if (fire) {
		hrtimer_try_to_cancel(&cq->moder_timer);
		*fire = true;
		return;
	}
	cq->fire = true;
	if (READ_ONCE(irq_direct)) {
		hrtimer_start(&cq->moder_timer, 0, HRTIMER_MODE_REL_HARD);
	} else {
		hrtimer_try_to_cancel(&cq->moder_timer);
		queue_work(cq->sd->dp_wq, &cq->irq_work);
	}
}

/*
 * A CQE was written to an armed CQ. Without moderation the interrupt
 * fires now. With moder_usecs, the first CQE starts the moderation timer
 * and the interrupt fires when it expires, or earlier when moder_frames
 * (if not 0) CQEs have been written since the arm.
 */
static void cxsim_cq_event_locked(struct cxsim_cq *cq, bool *fire)
{
	cq->armed_cqes++;
	if (!cq->moder_usecs ||
	    (cq->moder_frames && cq->armed_cqes >= cq->moder_frames)) {
		cxsim_cq_fire_locked(cq, fire);
		return;
	}
	if (cq->armed_cqes == 1)
		hrtimer_start(&cq->moder_timer,
			      ns_to_ktime(cq->moder_usecs * NSEC_PER_USEC),
			      HRTIMER_MODE_REL_HARD);
}

/**
 * cxsim_cq_moder_timer() - the CQ's hrtimer: raise its interrupt
 * @timer: the CQ's moder_timer
 *
 * Expires when the moderation period of an armed CQ is over, or at once
 * for an interrupt an arm found due (@cq->fire). Hard interrupt context:
 * the vector is raised here, and the NAPI softirq the driver's handler
 * raises runs on this interrupt's way out (with irq_direct off, the CQ's
 * work raises it).
 *
 * Return: HRTIMER_NORESTART.
 */
enum hrtimer_restart cxsim_cq_moder_timer(struct hrtimer *timer)
{
	struct cxsim_cq *cq = container_of(timer, struct cxsim_cq, moder_timer);
	bool direct = READ_ONCE(irq_direct);
	unsigned long flags;
	bool fire = false;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->armed && cq->armed_cqes)
		cxsim_cq_fire_locked(cq, &fire);
	if (cq->fire) {
		cq->fire = false;
		fire = true;
	}
	if (fire && !direct) {
		/* irq_direct turned off since: the work raises it. */
		cq->fire = true;
		queue_work(cq->sd->dp_wq, &cq->irq_work);
		fire = false;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	if (fire && !cxsim_halted(cq->sd))
		cxsim_raise_irq(cq->sd, cq->vector);
	return HRTIMER_NORESTART;
}

/*
 * Fault injection wrote a CQE with the stale owner bit: give it the
 * right one now (the next CQE or arm of the CQ): a late CQE.
 */
static void cxsim_cq_unstale_locked(struct cxsim_cq *cq)
{
	u32 mask = (1u << cq->log_size) - 1;
	struct cxen_cqe *slot;

	cq->stale = false;
	slot = cxsim_dma_ptr(cq->sd, cq->ring_dma +
			     (u64)(cq->stale_idx & mask) * sizeof(*slot),
			     sizeof(*slot));
	if (slot)
		WRITE_ONCE(slot->owner_sr_opcode,
			   READ_ONCE(slot->owner_sr_opcode) ^ CXEN_CQE_OWNER);
}

/**
 * cxsim_cq_post_locked() - write one CQE
 * @cq: the CQ, locked
 * @cqe: the CQE, all fields but the owner bit set
 * @fire: set to true when the CQ was armed: the caller raises its vector
 *
 * The CQE goes to index prod & (size - 1) with OWNER = bit log_size of
 * prod; every other byte is written before the owner byte. A CQ holding
 * size unconsumed CQEs (per the consumer index in its doorbell record) is
 * full: the CQE is lost and counted.
 *
 * Return: 0, or -ENOSPC when the CQ was full.
 */
static int cxsim_cq_post_locked(struct cxsim_cq *cq, struct cxen_cqe *cqe,
				bool *fire)
{
	u32 mask = (1u << cq->log_size) - 1;
	struct cxen_cqe *slot;
	bool owner;

	lockdep_assert_held(&cq->lock);
	if (cxsim_cq_used_locked(cq) > mask) {
		cq->cnt[CXSIM_CQ_OVERRUN]++;
		return -ENOSPC;
	}
	slot = cxsim_dma_ptr(cq->sd, cq->ring_dma +
			     (u64)(cq->prod & mask) * sizeof(*cqe),
			     sizeof(*cqe));
	if (!slot) {
		cq->cnt[CXSIM_CQ_OVERRUN]++;
		return -ENOSPC;
	}
	if (unlikely(cq->stale))
		cxsim_cq_unstale_locked(cq);
	owner = (cq->prod >> cq->log_size) & 1;
	if (unlikely(cxsim_fault_cqe(cq->sd, cqe))) {
		owner = !owner;
		cq->stale = true;
		cq->stale_idx = cq->prod;
	}
	if (owner)
		cqe->owner_sr_opcode |= CXEN_CQE_OWNER;
	else
		cqe->owner_sr_opcode &= ~CXEN_CQE_OWNER;
	memcpy(slot, cqe, offsetof(struct cxen_cqe, owner_sr_opcode));
	wmb();		/* the CQE before its owner byte (dma_wmb()) */
	WRITE_ONCE(slot->owner_sr_opcode, cqe->owner_sr_opcode);

	cq->prod++;
	cq->cnt[CXSIM_CQ_CQES]++;
	if (cq->armed)
		cxsim_cq_event_locked(cq, fire);
	return 0;
}

/**
 * cxsim_cq_arm() - CQ_ARM doorbell
 * @cq: the CQ
 *
 * Called from the register trap, in any context. When CQEs the driver
 * has not consumed exist, the interrupt fires at once (from the CQ's
 * hrtimer, not from the trap); otherwise the next CQE raises it. Either
 * way at most one interrupt per arm.
 */
void cxsim_cq_arm(struct cxsim_cq *cq)
{
	s64 ci = cxsim_cq_ci(cq);
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	cq->cnt[CXSIM_CQ_ARMS]++;
	/* The host is done with the CQEs before it (cxsim_flow_wait()). */
	if (ci >= 0)
		WRITE_ONCE(cq->arm_ci, ci);
	if (unlikely(cq->stale))
		cxsim_cq_unstale_locked(cq);
	if (!cq->armed && !cq->fire) {
		cq->armed = true;
		cq->armed_cqes = 0;
		if (ci >= 0 && cxsim_cq_used_locked(cq))
			cxsim_cq_fire_locked(cq, NULL);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}

/*
 * Raise @cq's interrupt if an arm or a moderation period found it due and
 * its work has not raised it yet.
 */
static void cxsim_cq_raise_due(struct cxsim_cq *cq)
{
	unsigned long flags;
	bool fire;

	spin_lock_irqsave(&cq->lock, flags);
	fire = cq->fire;
	cq->fire = false;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (fire && !cxsim_halted(cq->sd))
		cxsim_raise_irq(cq->sd, cq->vector);
}

/* The CQ's work: raise its interrupt when due (no irq_direct). */
void cxsim_cq_irq_work(struct work_struct *work)
{
	cxsim_cq_raise_due(container_of(work, struct cxsim_cq, irq_work));
}

/* ------------------------------------------------------------------ */
/* RX                                                                  */
/* ------------------------------------------------------------------ */

/* The CQE of RQ @rq's WQE at its consumer counter: @opcode, @synd. */
void cxsim_rq_cqe_init(const struct cxsim_rq *rq, struct cxen_cqe *cqe,
		       u8 opcode, u8 synd)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->qpn = cpu_to_be32(FIELD_PREP(CXEN_CQE_QPN, rq->rqn));
	cqe->wqe_index = cpu_to_be16(rq->cons);
	cqe->syndrome = synd;
	cqe->owner_sr_opcode = FIELD_PREP(CXEN_CQE_OPCODE, opcode);
}

/* Post a CQE of @rq; the interrupt it fires is @rx's to raise. */
int cxsim_rq_post_cqe_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			     struct cxen_cqe *cqe)
{
	return cxsim_cq_post_locked(rq->cq, cqe, &rx->fire);
}

/*
 * Write an RX CQE for WQE @rq->cons: a RECV CQE carries the frame's
 * fields (a split frame's header fields too). On a striding RQ an error
 * CQE completes what is left of the WQE, strides stride_pos..N - 1 with
 * WQE_LAST, but for LOCAL_LENGTH (a frame no WQE could hold), which
 * consumes nothing.
 */
int cxsim_rq_cqe_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			u8 opcode, u8 synd)
{
	struct cxen_cqe cqe;

	cxsim_rq_cqe_init(rq, &cqe, opcode, synd);
	if (opcode == CXEN_CQE_OP_RECV) {
		cqe.rss_hash = cpu_to_be32(rx->hash);
		cqe.flags = cpu_to_be32(rx->flags);
		cqe.vlan_tci = cpu_to_be16(rx->vlan_tci);
		cqe.byte_cnt = cpu_to_be32(rx->len);
		if (rx->hlen) {
			cxsim_rx_split_write(rq, rx, &cqe);
			cxsim_fault_rx_cqe(rq->sd, &cqe, 0, rx->hdr_bc);
		}
	} else if (rq->rq_flags & CXEN_RQ_F_STRIDING) {
		if (synd == CXEN_SYND_LOCAL_LENGTH) {
			cqe.strides = cxen_cqe_strides(rq->stride_pos, 0);
		} else {
			cqe.strides = cxen_cqe_strides(rq->stride_pos,
						       rq->strides -
						       rq->stride_pos);
			cqe.flags = cpu_to_be32(CXEN_CQE_WQE_LAST);
		}
	}
	return cxsim_rq_post_cqe_locked(rq, rx, &cqe);
}

/* The device is done with WQE @rq->cons: on to the next one. */
void cxsim_rq_next_wqe(struct cxsim_rq *rq)
{
	rq->cons++;
	rq->stride_pos = 0;
	rq->wqe_valid = false;
	rq->cnt[CXSIM_RQ_WQES]++;
}

/* Complete posted WQEs up to @pi with WR_FLUSH; stop when the CQ is full. */
static void cxsim_rq_flush_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
				  u16 pi)
{
	struct cxsim_port *port = &rq->sd->port[rq->port];

	while (rq->cons != pi) {
		if (cxsim_rq_cqe_locked(rq, rx, CXEN_CQE_OP_ERROR,
					CXEN_SYND_WR_FLUSH)) {
			rx->async |= CXEN_ASYNC_CQ_OVERRUN;
			return;
		}
		rq->cnt[CXSIM_RQ_FLUSHED]++;
		cxsim_port_inc(port, CXSIM_PORT_RX_ERRORS, 1);
		cxsim_rq_next_wqe(rq);
	}
}

/* A malformed WQE at cons: error CQE, error state, flush the rest. */
void cxsim_rq_fail_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			  u16 pi, u8 synd)
{
	struct cxsim_port *port = &rq->sd->port[rq->port];

	rq->error = true;
	rx->async |= CXEN_ASYNC_QUEUE_ERROR;
	if (cxsim_rq_cqe_locked(rq, rx, CXEN_CQE_OP_ERROR, synd)) {
		rx->async |= CXEN_ASYNC_CQ_OVERRUN;
		return;
	}
	rq->cnt[CXSIM_RQ_ERROR_CQES]++;
	cxsim_port_inc(port, CXSIM_PORT_RX_ERRORS, 1);
	cxsim_rq_next_wqe(rq);
	cxsim_rq_flush_locked(rq, rx, pi);
}

/*
 * No posted WQE for the frame. Return: -ENOBUFS when it may wait for one
 * (@fc, and no pause storm), else 0 with the drop counted.
 */
int cxsim_rq_no_buffer_locked(struct cxsim_rq *rq, enum cxsim_rx_fc fc)
{
	if (fc == CXSIM_FC_HOLD && !rq->pause_storm)
		return -ENOBUFS;
	if (fc == CXSIM_FC_EXPIRED)
		rq->pause_storm = true;
	rq->cnt[CXSIM_RQ_OUT_OF_BUFFER]++;
	cxsim_port_inc(&rq->sd->port[rq->port], CXSIM_PORT_RX_OUT_OF_BUFFER, 1);
	return 0;
}

/* The RQ's CQ has no room for the frame's CQEs: drop it, consume nothing. */
void cxsim_rq_cq_overrun_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx)
{
	rq->cq->cnt[CXSIM_CQ_OVERRUN]++;
	rq->cnt[CXSIM_RQ_CQ_OVERRUN]++;
	cxsim_port_inc(&rq->sd->port[rq->port], CXSIM_PORT_RX_CQ_OVERRUN, 1);
	rx->async |= CXEN_ASYNC_CQ_OVERRUN;
}

/* A frame delivered: the RQ's and the port's counters. */
void cxsim_rq_count_frame(struct cxsim_rq *rq, const struct cxsim_rx_ctx *rx)
{
	struct cxsim_port *port = &rq->sd->port[rq->port];

	rq->cnt[CXSIM_RQ_FRAMES]++;
	rq->cnt[CXSIM_RQ_BYTES] += rx->len;
	cxsim_port_inc(port, CXSIM_PORT_RX_FRAMES, 1);
	cxsim_port_inc(port, CXSIM_PORT_RX_BYTES, rx->len);
	if (rx->csum_bad) {
		rq->cnt[CXSIM_RQ_CSUM_BAD]++;
		cxsim_port_inc(port, CXSIM_PORT_RX_CSUM_BAD, 1);
	}
	if (rx->hlen)
		rq->cnt[CXSIM_RQ_HDR_SPLIT]++;
	else if (rx->no_hdr_buf)
		rq->cnt[CXSIM_RQ_HDR_NO_BUFFER]++;
}

/*
 * Check the scatter list of @wqe against a frame of @len bytes.
 * Return: the number of segments the frame uses, or a negative syndrome.
 */
static int cxsim_rq_plan(struct cxsim_rq *rq, const struct cxen_rx_wqe *wqe,
			 u32 len)
{
	u32 nsegs = min(1u << (rq->log_stride - 4), CXEN_HW_RX_MAX_SEGS);
	u32 left = len, i;

	for (i = 0; i < nsegs && left; i++) {
		const struct cxen_data_seg *seg = &wqe->seg[i];
		u32 bc = be32_to_cpu(seg->byte_count);
		u32 n;

		if (!bc)
			break;
		if (bc & BIT(31))
			return -CXEN_SYND_LOCAL_QP_OP;
		if (be32_to_cpu(seg->lkey) != CXSIM_RSVD_LKEY)
			return -CXEN_SYND_LOCAL_PROT;
		n = min(bc, left);
		if (!cxsim_dma_check(rq->sd, be64_to_cpu(seg->addr), n))
			return -CXEN_SYND_LOCAL_PROT;
		left -= n;
	}
	if (left)
		return -CXEN_SYND_LOCAL_LENGTH;
	return i;
}

/* Write delivered bytes [@off, @off + @n) of the frame to @dma. */
void cxsim_rx_copy(struct cxsim_rq *rq, const struct cxsim_rx_ctx *rx,
		   u64 dma, u32 off, u32 n)
{
	u32 head;

	if (rx->strip) {
		/* The MAC addresses, then what followed the tag. */
		if (off < 2 * ETH_ALEN) {
			head = min(n, 2 * ETH_ALEN - off);
			cxsim_dma_write(rq->sd, dma, rx->frame + off, head);
			dma += head;
			off += head;
			n -= head;
		}
		off += VLAN_HLEN;
	}
	if (n)
		cxsim_dma_write(rq->sd, dma, rx->frame + off, n);
}

/*
 * Deliver one frame to @rq. Called with the RQ found under RCU.
 * Return: -ENOBUFS, without counting a drop, when the RQ has no posted
 * WQE and the frame may wait for one (@fc, and no pause storm);
 * -ESTALE when the RQ was destroyed since: the frame is steered again;
 * else 0.
 */
static int cxsim_rq_receive(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			    enum cxsim_rx_fc fc)
{
	struct cxsim_port *port = &rq->sd->port[rq->port];
	u32 size = 1u << rq->log_size;
	struct cxsim_cq *cq = rq->cq;
	struct cxen_wq_dbrec *db;
	struct cxen_rx_wqe wqe;
	unsigned long flags;
	u32 off, posted;
	int nsegs, i, ret = 0;
	u16 pi;
	u8 synd;

	spin_lock_bh(&rq->lock);
	spin_lock_irqsave(&cq->lock, flags);

	if (rq->dead) {
		ret = -ESTALE;
		goto unlock;
	}
	if (rq->stopped) {
		cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
		goto unlock;
	}
	/* A frame that does not continue the RQ's LRO merge ends it. */
	if (rq->lro.open) {
		if (cxsim_lro_append_locked(rq, rx))
			goto unlock;
		cxsim_lro_close_locked(rq, rx);
	}
	db = cxsim_dma_ptr(rq->sd, rq->dbrec_dma, sizeof(*db));
	if (!db) {
		rq->error = true;
		rx->async |= CXEN_ASYNC_QUEUE_ERROR;
	}
	if (rq->error) {
		if (db)
			cxsim_rq_flush_locked(rq, rx,
					      be32_to_cpu(READ_ONCE(db->pi)) &
					      CXEN_WQ_DBREC_PI);
		cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
		goto unlock;
	}
	pi = be32_to_cpu(READ_ONCE(db->pi)) & CXEN_WQ_DBREC_PI;
	posted = (u16)(pi - rq->cons);
	if (!posted) {
		ret = cxsim_rq_no_buffer_locked(rq, fc);
		goto unlock;
	}
	if (posted > size) {
		cxsim_rq_fail_locked(rq, rx, pi, CXEN_SYND_LOCAL_QP_OP);
		cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
		goto unlock;
	}
	/* Drop rather than consume a WQE whose completion would be lost. */
	if (!cxsim_cq_room_locked(cq)) {
		cxsim_rq_cq_overrun_locked(rq, rx);
		goto unlock;
	}
	dma_rmb();	/* the WQEs after the producer counter */
	rq->pause_storm = false;
	if (unlikely(cxsim_fault_rq_error(rq))) {
		/* The frame's loss is the error CQE's: counted by the driver. */
		cxsim_rq_fail_locked(rq, rx, pi, CXEN_SYND_LOCAL_PROT);
		goto unlock;
	}
	if (rq->rq_flags & CXEN_RQ_F_STRIDING) {
		ret = cxsim_rq_stride_receive(rq, rx, fc, pi);
		goto unlock;
	}
	/* Header/data split: where the headers go, if they go apart. */
	synd = cxsim_rx_split_plan(rq, rx);
	if (synd) {
		cxsim_rq_fail_locked(rq, rx, pi, synd);
		cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
		goto unlock;
	}

	memset(&wqe, 0, sizeof(wqe));
	if (!cxsim_dma_read(rq->sd, rq->ring_dma +
			    ((u64)(rq->cons & (size - 1)) << rq->log_stride),
			    &wqe, min(1u << rq->log_stride, sizeof(wqe)))) {
		cxsim_rq_fail_locked(rq, rx, pi, CXEN_SYND_LOCAL_PROT);
		cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
		goto unlock;
	}
	/* A split frame's payload goes to the segments from their start. */
	nsegs = cxsim_rq_plan(rq, &wqe, rx->len - rx->hlen);
	if (nsegs == -CXEN_SYND_LOCAL_LENGTH) {
		/* The frame is dropped; the queue carries on. */
		cxsim_rq_cqe_locked(rq, rx, CXEN_CQE_OP_ERROR,
				    CXEN_SYND_LOCAL_LENGTH);
		rq->cnt[CXSIM_RQ_ERROR_CQES]++;
		cxsim_port_inc(port, CXSIM_PORT_RX_ERRORS, 1);
		cxsim_rq_next_wqe(rq);
		goto unlock;
	}
	if (nsegs < 0) {
		cxsim_rq_fail_locked(rq, rx, pi, -nsegs);
		cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
		goto unlock;
	}

	if (rx->hlen)
		cxsim_rx_copy(rq, rx, rx->hdr_addr, 0, rx->hlen);
	off = rx->hlen;
	for (i = 0; i < nsegs; i++) {
		u32 n = min(be32_to_cpu(wqe.seg[i].byte_count), rx->len - off);

		cxsim_rx_copy(rq, rx, be64_to_cpu(wqe.seg[i].addr), off, n);
		off += n;
	}
	cxsim_rq_cqe_locked(rq, rx, CXEN_CQE_OP_RECV, 0);
	if (rx->hlen)
		rq->hdr_cons++;
	cxsim_rq_next_wqe(rq);
	cxsim_rq_count_frame(rq, rx);
unlock:
	spin_unlock_irqrestore(&cq->lock, flags);
	spin_unlock_bh(&rq->lock);
	return ret;
}

/*
 * Count a frame in a port's multicast/broadcast counters (@mcast, then
 * broadcast at @mcast + 1) and size histogram (@hist). Sizes include the
 * FCS and the padding to 64 bytes the MAC would add.
 */
static void cxsim_port_count_frame(struct cxsim_port *port, int mcast,
				   int hist, const u8 *frame, u32 len)
{
	static const u32 limit[CXEN_HIST_BUCKETS] = CXEN_HIST_LIMITS;
	u32 wire = max(len + ETH_FCS_LEN, ETH_ZLEN + ETH_FCS_LEN);
	int i = 0;

	while (i < CXEN_HIST_BUCKETS - 1 && wire > limit[i])
		i++;
	cxsim_port_inc(port, hist + i, 1);
	if (len < ETH_ALEN)
		return;
	if (is_broadcast_ether_addr(frame))
		cxsim_port_inc(port, mcast + 1, 1);
	else if (is_multicast_ether_addr(frame))
		cxsim_port_inc(port, mcast, 1);
}

/*
 * The port's RX filter: whether it accepts a frame by its destination
 * address (SET_RX_FILTER). Broadcast always; the power-on state (no
 * filter set) nothing else. Frames a port in loopback sends itself are
 * not filtered (@own).
 */
static bool cxsim_rx_accept(struct cxsim_port *port, const u8 *frame,
			    u32 len, bool own)
{
	const struct cxsim_rx_filter *f;
	bool ok = false;
	unsigned int i;
	u32 bucket;

	if (own || len < ETH_ALEN || is_broadcast_ether_addr(frame))
		return true;
	rcu_read_lock();
	f = rcu_dereference(port->filter);
	if (!f)
		goto out;
	if (f->flags & CXEN_RX_FILTER_PROMISC) {
		ok = true;
	} else if (is_multicast_ether_addr(frame)) {
		bucket = FIELD_GET(CXEN_RX_MC_BUCKET,
				   ether_crc_le(ETH_ALEN, frame));
		ok = (f->flags & CXEN_RX_FILTER_ALLMULTI) ||
		     (f->mc_hash & BIT_ULL(bucket));
	} else if (f->flags & CXEN_RX_FILTER_UC_PROMISC) {
		ok = true;
	} else {
		for (i = 0; i < f->num_uc && !ok; i++)
			ok = ether_addr_equal_unaligned(frame, f->uc[i]);
	}
out:
	rcu_read_unlock();
	return ok;
}

/* CQE flags of a received frame: L3/L4 types, verified checksums. */
static void cxsim_rx_classify(struct cxsim_rx_ctx *rx,
			      const struct cxsim_pkt *pkt)
{
	rx->flags |= FIELD_PREP(CXEN_CQE_L3_TYPE, pkt->l3) |
		     FIELD_PREP(CXEN_CQE_L4_TYPE, pkt->l4);
	if (pkt->frag)
		rx->flags |= CXEN_CQE_IP_FRAG;
	if (pkt->l3 == CXEN_CQE_L3_IPV4) {
		if ((rx->csum_known & CXSIM_CSUM_L3) ||
		    cxsim_pkt_l3_csum_ok(rx->frame, pkt))
			rx->flags |= CXEN_CQE_L3_CSUM_OK;
		else
			rx->csum_bad = true;
	}
	if (pkt->l4 != CXEN_CQE_L4_NONE) {
		if ((rx->csum_known & CXSIM_CSUM_L4) ||
		    cxsim_pkt_l4_csum_ok(rx->frame, pkt))
			rx->flags |= CXEN_CQE_L4_CSUM_OK;
		else
			rx->csum_bad = true;
	}
	/* Where header/data split would cut: after a TCP header, if data. */
	if (pkt->l4 == CXEN_CQE_L4_TCP && pkt->l4_len > pkt->l4_hlen)
		rx->tcp_end = pkt->l4_off + pkt->l4_hlen;
}

/* The port strips an outer 802.1Q tag: the frame is delivered without. */
static void cxsim_rx_vlan_strip(struct cxsim_port *port,
				struct cxsim_rx_ctx *rx)
{
	if (!READ_ONCE(port->vlan_strip) || !cxsim_pkt_ctag(rx->frame, rx->len))
		return;
	rx->strip = true;
	rx->vlan_tci = get_unaligned_be16(rx->frame + 2 * ETH_ALEN + 2);
	rx->len -= VLAN_HLEN;
	rx->flags |= CXEN_CQE_VLAN_STRIPPED;
	cxsim_port_inc(port, CXSIM_PORT_RX_VLAN_STRIPPED, 1);
}

/* struct cxsim_port.flow_last: a CQ and its CQE count, or nothing (0) */
#define CXSIM_FLOW_VALID	BIT_ULL(32)
#define CXSIM_FLOW_CQN		GENMASK_ULL(31, 24)
#define CXSIM_FLOW_PROD		GENMASK_ULL(23, 0)

/*
 * A frame of RSS entry @i went into @rq, whose CQ has written or will
 * write its CQE: with an LRO merge open, the merge's CQE is the next
 * one. Under RCU, the frame's RQ lock dropped.
 */
static void cxsim_flow_note(struct cxsim_port *port, u32 i,
			    struct cxsim_rq *rq)
{
	u32 prod = READ_ONCE(rq->cq->prod) + READ_ONCE(rq->lro.open);

	atomic64_set(&port->flow_last[i], CXSIM_FLOW_VALID |
		     FIELD_PREP(CXSIM_FLOW_CQN, rq->cq->cqn) |
		     FIELD_PREP(CXSIM_FLOW_PROD, prod & CXEN_CQ_DBREC_CI));
}

/*
 * Whether a frame of RSS entry @i steered to @rq must wait: the entry's
 * last frame went to another RQ (SET_RSS moved the entry, or a queue
 * was replaced), and the host is not done with it yet. The host is done
 * with a CQ's first CQEs once it armed the CQ with its consumer index
 * past them (it arms a CQ when it has handed up what it took), or once
 * the CQ is gone. Under RCU. What is found done waits no more.
 *
 * Return: the CQ to wait for, or NULL.
 */
static struct cxsim_cq *cxsim_flow_wait(struct cxsim_port *port, u32 i,
					struct cxsim_rq *rq)
{
	u64 last = atomic64_read(&port->flow_last[i]);
	struct cxsim_cq *cq;
	u32 cqn, behind;

	cqn = FIELD_GET(CXSIM_FLOW_CQN, last);
	if (!(last & CXSIM_FLOW_VALID) || cqn == rq->cq->cqn)
		return NULL;
	cq = rcu_dereference(port->sd->cq[cqn]);
	if (cq) {
		behind = (FIELD_GET(CXSIM_FLOW_PROD, last) -
			  READ_ONCE(cq->arm_ci)) & CXEN_CQ_DBREC_CI;
		if (behind && behind <= CXEN_CQ_DBREC_CI / 2)
			return cq;
	}
	atomic64_cmpxchg(&port->flow_last[i], last, 0);
	return NULL;
}

/**
 * cxsim_flow_forget() - no flow of a port waits for a CQ any more
 * @port: the port
 * @cqn: the CQ, being destroyed
 */
void cxsim_flow_forget(struct cxsim_port *port, u16 cqn)
{
	u64 last;
	int i;

	for (i = 0; i < CXEN_RSS_TABLE_SIZE; i++) {
		last = atomic64_read(&port->flow_last[i]);
		if ((last & CXSIM_FLOW_VALID) &&
		    FIELD_GET(CXSIM_FLOW_CQN, last) == cqn)
			atomic64_cmpxchg(&port->flow_last[i], last, 0);
	}
}

/*
 * Steer a frame through the port's RSS context (@entry set to the table
 * entry), or to its default RQ (@entry -1).
 */
static struct cxsim_rq *cxsim_rx_steer(struct cxsim_port *port,
				       struct cxsim_rx_ctx *rx,
				       const struct cxsim_pkt *pkt, int *entry)
{
	struct cxsim_rss *rss, *now = rcu_dereference(port->rss);
	struct cxsim_rq *rq;
	int rqn, dflt;
	u8 hash_type;

	do {
		rss = now;
		dflt = READ_ONCE(port->default_rqn);
		*entry = -1;
		rqn = dflt;
		if (rss) {
			rx->hash = cxsim_rss_hash(rss->key, rss->hash_fields,
						  rx->frame, pkt, &hash_type);
			rx->flags &= ~CXEN_CQE_HASH_TYPE;
			rx->flags |= FIELD_PREP(CXEN_CQE_HASH_TYPE, hash_type);
			*entry = rx->hash % CXEN_RSS_TABLE_SIZE;
			rqn = rss->rqn[*entry];
		}
		rq = rqn >= 0 ? rcu_dereference(port->sd->rq[rqn]) : NULL;
		if (rq && rq->port == port->index)
			return rq;
		/*
		 * The RQ this steering names is gone. A driver moves RX to
		 * new RQs before it destroys the old ones, and the frame
		 * may have read the steering before that move and the RQ's
		 * slot after the destroy: then it is steered again by what
		 * replaced it (published before the slot was cleared, so
		 * seen now), not dropped as a frame with no RQ.
		 */
		smp_rmb();
		now = rcu_dereference(port->rss);
	} while (now != rss || (!rss && READ_ONCE(port->default_rqn) != dflt));
	return NULL;
}

/*
 * Link-level flow control between the sending port (@sq's) and @port:
 * a frame may wait for an RX WQE when @port sends PAUSE and the sender
 * honours it, while the sender's link is up and its SQ alive. The wire
 * generator (no @sq) always honours it.
 */
static bool cxsim_rx_may_hold(const struct cxsim_port *port,
			      const struct cxsim_sq *sq)
{
	const struct cxsim_port *from;

	if (!sq)
		return READ_ONCE(port->tx_pause);
	from = &sq->sd->port[sq->port];
	return READ_ONCE(port->tx_pause) && READ_ONCE(from->rx_pause) &&
	       READ_ONCE(from->link_up) && !READ_ONCE(sq->dead) &&
	       !READ_ONCE(sq->stopped);
}

/* Longer than @port's MTU allows (a VLAN tag not counted): count, drop. */
static bool cxsim_rx_oversize(struct cxsim_port *port,
			      const struct cxsim_pkt *pkt, u32 len)
{
	if (len <= READ_ONCE(port->mtu) + ETH_HLEN +
		   (pkt->vlan ? VLAN_HLEN : 0))
		return false;
	cxsim_port_inc(port, CXSIM_PORT_RX_OVERSIZE, 1);
	return true;
}

/*
 * A frame arrives at @w->port: the oversize check against the receiving
 * port's MTU, the counters of frames seen, the RX filter, classification
 * and VLAN stripping into @w. Return: false when it goes no further.
 */
static bool cxsim_rx_begin(struct cxsim_rx_wait *w, struct cxsim_sq *sq,
			   const u8 *frame, u32 len, u8 csum_known)
{
	struct cxsim_port *port = w->port;

	memset(&w->rx, 0, sizeof(w->rx));
	w->rx.frame = frame;
	w->rx.pkt = &w->pkt;
	w->lro_last = -1;
	w->rx.len = len;
	w->rx.csum_known = csum_known;
	w->len = len;
	w->fc = CXSIM_FC_DROP;
	w->deadline = 0;
	w->order_deadline = 0;
	w->order_expired = false;

	cxsim_pkt_parse(frame, len, &w->pkt);
	if (cxsim_rx_oversize(port, &w->pkt, len))
		return false;
	cxsim_port_count_frame(port, CXSIM_PORT_RX_MCAST, CXSIM_PORT_RX_HIST,
			       frame, len);
	if (!cxsim_rx_accept(port, frame, len,
			     sq && port == &port->sd->port[sq->port])) {
		/* Bytes as rx_bytes would count them: a stripped tag not. */
		cxsim_port_inc(port, CXSIM_PORT_RX_FILTERED, 1);
		cxsim_port_inc(port, CXSIM_PORT_RX_FILTERED_BYTES,
			       READ_ONCE(port->vlan_strip) &&
			       cxsim_pkt_ctag(frame, len) ? len - VLAN_HLEN : len);
		return false;
	}
	cxsim_rx_classify(&w->rx, &w->pkt);
	cxsim_rx_vlan_strip(port, &w->rx);
	return true;
}

/**
 * cxsim_rq_end_merge() - end the LRO merge an RQ has open, if any
 * @rq: the RQ, kept from being freed by the caller
 *
 * The merge's CQE is written now: by the context that filled it when it
 * is done, and by the commands after which the RQ takes no more frames
 * (MODIFY_RQ to RST, DESTROY_RQ), so that no merged segment is lost.
 * Raises the CQ's interrupt when it fires.
 */
void cxsim_rq_end_merge(struct cxsim_rq *rq)
{
	struct cxsim_rx_ctx rx = {};
	unsigned long flags;

	spin_lock_bh(&rq->lock);
	spin_lock_irqsave(&rq->cq->lock, flags);
	if (rq->lro.open)
		cxsim_lro_close_locked(rq, &rx);
	spin_unlock_irqrestore(&rq->cq->lock, flags);
	spin_unlock_bh(&rq->lock);
	if (rx.fire && !cxsim_halted(rq->sd))
		cxsim_raise_irq(rq->sd, rq->cq->vector);
	if (rx.async)
		cxsim_async_event(rq->sd, rx.async);
}

/*
 * End the LRO merge RQ @rqn has open, if any: the delivering context is
 * done with it. The RQ is looked up again: it may have gone meanwhile.
 */
static void cxsim_lro_end(struct cxsim_dev *sd, u16 rqn)
{
	struct cxsim_rq *rq;

	rcu_read_lock();
	rq = rcu_dereference(sd->rq[rqn]);
	if (rq)
		cxsim_rq_end_merge(rq);
	rcu_read_unlock();
}

/**
 * cxsim_lro_flush() - end the LRO merges a delivering context left open
 * @sd: the device
 * @w: the context's delivery
 *
 * Called when the context is done delivering (an SQ's run, a frame of the
 * wire generator) and before it waits: a merge never outlives the burst
 * of frames that filled it.
 */
static void cxsim_lro_flush(struct cxsim_dev *sd, struct cxsim_rx_wait *w)
{
	w->lro_last = -1;
	while (w->lro_n)
		cxsim_lro_end(sd, w->lro_rqn[--w->lro_n]);
}

/* The frame of @w left @rqn's LRO merge open: note it for the flush. */
static void cxsim_lro_note(struct cxsim_dev *sd, struct cxsim_rx_wait *w,
			   u16 rqn)
{
	unsigned int i;

	w->rx.lro_open = false;
	for (i = 0; i < w->lro_n; i++)
		if (w->lro_rqn[i] == rqn)
			goto out;
	if (w->lro_n == CXSIM_LRO_CTX_RQS)
		cxsim_lro_flush(sd, w);
	w->lro_rqn[w->lro_n++] = rqn;
out:
	w->lro_last = rqn;
}

/*
 * The frame of @w waits for its flow's frames before it, in a CQ whose
 * consumer index is @ci (cxsim_flow_wait()): as long as the host takes
 * CQEs from it, or CXSIM_RSS_ORDER_MS after it took the last; not for an
 * SQ stopped or being destroyed. The merges before it end first: the
 * host may be waiting for them. Return: 0 to steer it again, -EAGAIN
 * when it must wait and may not sleep.
 */
static int cxsim_rx_order_wait(struct cxsim_rx_wait *w, struct cxsim_sq *sq,
			       u32 ci, bool may_sleep)
{
	struct cxsim_dev *sd = w->port->sd;

	if (!w->order_deadline)
		cxsim_dev_inc(sd, CXSIM_DEV_ORDER_WAITS);
	if (!w->order_deadline || ci != w->order_ci) {
		w->order_ci = ci;
		w->order_deadline = jiffies +
				    msecs_to_jiffies(CXSIM_RSS_ORDER_MS);
	}
	if (time_after(jiffies, w->order_deadline) ||
	    (sq && (READ_ONCE(sq->dead) || READ_ONCE(sq->stopped)))) {
		/* Its flow may be reordered now: counted. */
		cxsim_dev_inc(sd, CXSIM_DEV_ORDER_TIMEOUTS);
		w->order_expired = true;
		return 0;
	}
	cxsim_lro_flush(sd, w);
	if (!may_sleep)
		return -EAGAIN;
	usleep_range(CXSIM_PAUSE_POLL_US, 2 * CXSIM_PAUSE_POLL_US);
	return 0;
}

/*
 * Steer the frame of @w and deliver it. When its RQ has no posted WQE and
 * flow control holds it, the frame waits for one: @w->port counts a PAUSE
 * sent, the sender one received, and with @may_sleep the caller sleeps
 * until the driver posts, the link or the SQ goes, or
 * CXEN_HW_PAUSE_STORM_MS pass. A frame steered to another RQ than its
 * RSS entry's frame before waits, the same way, until the host is done
 * with that one (cxsim_flow_wait()). Without @may_sleep it returns at
 * once; @w keeps where the wait stands for a later call that may sleep.
 *
 * Return: 0, the frame delivered or dropped, or -EAGAIN when it must wait
 * and @may_sleep is false.
 */
static int cxsim_rx_deliver(struct cxsim_rx_wait *w, struct cxsim_sq *sq,
			    bool may_sleep)
{
	struct cxsim_port *port = w->port;
	struct cxsim_dev *sd = port->sd;
	struct cxsim_cq *wcq;
	struct cxsim_rq *rq;
	int ret, entry;
	u32 ci;

	for (;;) {
		if (w->fc != CXSIM_FC_EXPIRED)
			w->fc = cxsim_rx_may_hold(port, sq) ? CXSIM_FC_HOLD :
							      CXSIM_FC_DROP;
		/*
		 * The MTU checked again with the steering, in one RCU
		 * section, at every try (a frame that waited for a buffer
		 * meets the MTU of now): SET_PORT waits out the sections that
		 * saw an MTU it lowered, so a driver that lowers the MTU,
		 * then steers RX to smaller buffers, never gets a frame too
		 * long for them.
		 */
		rcu_read_lock();
		if (cxsim_rx_oversize(port, &w->pkt, w->len)) {
			rcu_read_unlock();
			break;
		}
		rq = cxsim_rx_steer(port, &w->rx, &w->pkt, &entry);
		if (!rq) {
			rcu_read_unlock();
			cxsim_port_inc(port, CXSIM_PORT_RX_NO_RQ, 1);
			break;
		}
		wcq = entry >= 0 && !w->order_expired ?
		      cxsim_flow_wait(port, entry, rq) : NULL;
		if (wcq) {
			ci = cxsim_cq_ci(wcq);
			/*
			 * Its interrupt may be due, its work queued behind
			 * this run on this CPU: the host must hear of it.
			 */
			cxsim_cq_raise_due(wcq);
			rcu_read_unlock();
			ret = cxsim_rx_order_wait(w, sq, ci, may_sleep);
			if (ret)
				goto out;
			continue;
		}
		ret = cxsim_rq_receive(rq, &w->rx, w->fc);
		if (ret == -ESTALE) {
			/* Destroyed since it was steered to: steer it again. */
			rcu_read_unlock();
			continue;
		}
		if (!ret && entry >= 0)
			cxsim_flow_note(port, entry, rq);
		/*
		 * Still under RCU: the CQ cannot go before its RQ. Once: a
		 * striding RQ may write a filler, then hold the frame.
		 */
		if (w->rx.fire) {
			w->rx.fire = false;
			cxsim_raise_irq(sd, rq->cq->vector);
		}
		if (w->rx.lro_open)
			cxsim_lro_note(sd, w, rq->rqn);
		rcu_read_unlock();
		if (ret != -ENOBUFS)
			break;

		if (!w->deadline) {
			w->deadline = jiffies +
				      msecs_to_jiffies(CXEN_HW_PAUSE_STORM_MS);
			cxsim_port_inc(port, CXSIM_PORT_TX_PAUSE, 1);
			if (sq)
				cxsim_port_inc(&sd->port[sq->port],
					       CXSIM_PORT_RX_PAUSE, 1);
		} else if (time_after(jiffies, w->deadline)) {
			w->fc = CXSIM_FC_EXPIRED;
			continue;
		}
		/* A frame that waits lets the merges before it end. */
		cxsim_lro_flush(sd, w);
		if (!may_sleep) {
			ret = -EAGAIN;
			goto out;
		}
		usleep_range(CXSIM_PAUSE_POLL_US, 2 * CXSIM_PAUSE_POLL_US);
	}
	ret = 0;
out:
	if (w->rx.async) {
		cxsim_async_event(sd, w->rx.async);
		w->rx.async = 0;
	}
	return ret;
}

/**
 * cxsim_wire_rx() - a frame arrives on a port from the wire generator
 * @port: the receiving port
 * @frame: the frame
 * @len: its length
 *
 * The generator (cxsim_gen.c) is a partner that honours PAUSE: a frame
 * that finds its RQ empty waits for a WQE (cxsim_rx_deliver()). Process
 * context.
 */
void cxsim_wire_rx(struct cxsim_port *port, const u8 *frame, u32 len)
{
	struct cxsim_rx_wait w = { .port = port };

	if (cxsim_rx_begin(&w, NULL, frame, len, 0))
		cxsim_rx_deliver(&w, NULL, true);
	cxsim_lro_flush(port->sd, &w);
}

/* ------------------------------------------------------------------ */
/* TX                                                                  */
/* ------------------------------------------------------------------ */

/* Write a TX CQE for WQE @sq->cons; raise the vector if armed. */
static void cxsim_sq_cqe(struct cxsim_sq *sq, u8 opcode, u8 synd)
{
	struct cxen_cqe cqe = {
		.qpn		= cpu_to_be32(FIELD_PREP(CXEN_CQE_QPN, sq->sqn)),
		.wqe_index	= cpu_to_be16(sq->cons),
		.syndrome	= synd,
		.owner_sr_opcode = CXEN_CQE_IS_SEND |
				   FIELD_PREP(CXEN_CQE_OPCODE, opcode),
	};
	struct cxsim_cq *cq = sq->cq;
	unsigned long flags;
	bool fire = false;
	int err;

	spin_lock_irqsave(&cq->lock, flags);
	err = cxsim_cq_post_locked(cq, &cqe, &fire);
	spin_unlock_irqrestore(&cq->lock, flags);

	if (err) {
		sq->cnt[CXSIM_SQ_CQ_OVERRUN]++;
		cxsim_async_event(sq->sd, CXEN_ASYNC_CQ_OVERRUN);
	}
	if (fire)
		cxsim_raise_irq(sq->sd, cq->vector);
}

/* A bad WQE: error CQE, then the SQ is in error until destroyed. */
static void cxsim_sq_fail(struct cxsim_sq *sq, u8 synd)
{
	sq->error = true;
	sq->cnt[CXSIM_SQ_ERROR_CQES]++;
	cxsim_port_inc(&sq->sd->port[sq->port], CXSIM_PORT_TX_ERRORS, 1);
	cxsim_sq_cqe(sq, CXEN_CQE_OP_ERROR, synd);
	cxsim_async_event(sq->sd, CXEN_ASYNC_QUEUE_ERROR);
}

static void cxsim_sq_flush(struct cxsim_sq *sq)
{
	sq->cnt[CXSIM_SQ_FLUSHED]++;
	cxsim_port_inc(&sq->sd->port[sq->port], CXSIM_PORT_TX_ERRORS, 1);
	cxsim_sq_cqe(sq, CXEN_CQE_OP_ERROR, CXEN_SYND_WR_FLUSH);
}

/*
 * Put a frame on the wire: MTU and link checks, then the peer receives it,
 * or the port itself in loopback. @csum_known: the CXSIM_CSUM_* checksums
 * the SQ wrote into it. Return: 0, or -EAGAIN when it must wait for an RX
 * buffer and the run may not sleep: the SQ's park holds it.
 */
static int cxsim_sq_xmit(struct cxsim_sq *sq, u8 *frame, u32 len,
			 u8 csum_known, bool may_sleep)
{
	struct cxsim_port *port = &sq->sd->port[sq->port];
	u32 limit = READ_ONCE(port->mtu) + ETH_HLEN;
	struct cxsim_rx_wait *w = &sq->park->w;

	if (cxsim_pkt_vlan_tagged(frame, len))
		limit += VLAN_HLEN;
	if (len > limit) {
		sq->cnt[CXSIM_SQ_OVERSIZE]++;
		cxsim_port_inc(port, CXSIM_PORT_TX_OVERSIZE, 1);
		return 0;
	}
	if (!READ_ONCE(port->link_up)) {
		sq->cnt[CXSIM_SQ_LINK_DOWN]++;
		cxsim_port_inc(port, CXSIM_PORT_TX_LINK_DOWN, 1);
		return 0;
	}
	sq->cnt[CXSIM_SQ_FRAMES]++;
	sq->cnt[CXSIM_SQ_BYTES] += len;
	cxsim_port_inc(port, CXSIM_PORT_TX_FRAMES, 1);
	cxsim_port_inc(port, CXSIM_PORT_TX_BYTES, len);
	cxsim_port_count_frame(port, CXSIM_PORT_TX_MCAST, CXSIM_PORT_TX_HIST,
			       frame, len);

	if (unlikely(cxsim_fault_wire(sq->sd, frame, len, &csum_known)))
		return 0;
	w->port = READ_ONCE(port->loopback) ? port :
					      &sq->sd->port[sq->port ^ 1];
	if (!cxsim_rx_begin(w, sq, frame, len, csum_known))
		return 0;
	return cxsim_rx_deliver(w, sq, may_sleep);
}

/**
 * cxsim_lso_piece() - where a piece of the LSO WQE's payload is
 * @ctx: the SQ executing the WQE
 * @off: the piece's offset in the payload
 * @max: its most bytes
 * @p: set to its kernel address
 *
 * The payload's first bytes may be inline data, in sq->buf; the rest is
 * the data segments' host memory, read in place (the driver keeps it
 * mapped until the WQE's completion), a piece never crossing a segment
 * or a page.
 *
 * Return: the piece's length, at most @max; 0 when its host memory is not
 * addressable (an IOMMU fault) or @off is past the payload.
 */
static u32 cxsim_lso_piece(void *ctx, u32 off, u32 max, const u8 **p)
{
	struct cxsim_sq *sq = ctx;
	struct cxsim_sq_park *pk = sq->park;
	u32 i, start = pk->lso_inl, n;
	u64 addr;

	if (off < pk->lso_inl) {
		*p = sq->buf + CXSIM_TX_HEADROOM + off;
		return min(max, pk->lso_inl - off);
	}
	for (i = 0; i < pk->lso_nds && off - start >= pk->lso_len[i]; i++)
		start += pk->lso_len[i];
	if (i == pk->lso_nds)
		return 0;
	addr = pk->lso_addr[i] + (off - start);
	n = min3(max, pk->lso_len[i] - (off - start),
		 (u32)(PAGE_SIZE - offset_in_page(addr)));
	*p = cxsim_dma_src(sq->sd, addr, n);
	return *p ? n : 0;
}

/*
 * Read bytes [@off, @off + @len) of the LSO WQE's payload to the same
 * place in sq->buf (where the inline bytes already are): what building a
 * segment needs. Return: false when not addressable.
 */
static bool cxsim_lso_gather(struct cxsim_sq *sq, u32 off, u32 len)
{
	u8 *dst = sq->buf + CXSIM_TX_HEADROOM + off;
	const u8 *p;
	u32 n;

	for (; len; dst += n, off += n, len -= n) {
		n = cxsim_lso_piece(sq, off, len, &p);
		if (!n)
			return false;
		if (p != dst)
			memcpy(dst, p, n);
	}
	return true;
}

/*
 * The segments of the LSO WQE being executed from @i on, merged at once
 * into the LRO merge its segment @i - 1 went into and left open
 * (cxsim_lro_burst_locked()), as they would have been one by one: only
 * without the wire's fault knobs and a VLAN tag to insert, the link up.
 * Counts what cxsim_sq_xmit() and the receive path count per frame.
 * Return: the segments merged; 0: segment @i goes on its own.
 */
static u32 cxsim_sq_lso_burst(struct cxsim_sq *sq, u32 i)
{
	struct cxsim_port *port = &sq->sd->port[sq->port];
	struct cxsim_sq_park *pk = sq->park;
	struct cxsim_lso *lso = &pk->lso;
	struct cxsim_rx_wait *w = &pk->w;
	struct cxsim_dev *sd = sq->sd;
	u32 k = 0, bytes, j, len;
	unsigned long flags;
	struct cxsim_rq *rq;

	len = cxsim_lso_seg_len(lso, i);
	if (w->lro_last < 0 || READ_ONCE(sd->fault.every[CXSIM_FAULT_DROP]) ||
	    READ_ONCE(sd->fault.every[CXSIM_FAULT_CORRUPT_CSUM]) ||
	    !READ_ONCE(port->link_up) ||
	    len > READ_ONCE(port->mtu) + ETH_HLEN ||
	    len > READ_ONCE(w->port->mtu) + ETH_HLEN)
		return 0;
	rcu_read_lock();
	rq = rcu_dereference(sd->rq[w->lro_last]);
	if (rq && rq->port == w->port->index) {
		spin_lock_bh(&rq->lock);
		spin_lock_irqsave(&rq->cq->lock, flags);
		k = cxsim_lro_burst_locked(rq, &w->rx, lso, cxsim_lso_piece,
					   sq, i, &bytes);
		spin_unlock_irqrestore(&rq->cq->lock, flags);
		spin_unlock_bh(&rq->lock);
		if (w->rx.fire) {
			w->rx.fire = false;
			cxsim_raise_irq(sd, rq->cq->vector);
		}
	}
	rcu_read_unlock();
	if (w->rx.async) {
		cxsim_async_event(sd, w->rx.async);
		w->rx.async = 0;
	}
	if (!k)
		return 0;
	sq->cnt[CXSIM_SQ_FRAMES] += k;
	sq->cnt[CXSIM_SQ_BYTES] += bytes;
	sq->cnt[CXSIM_SQ_LRO_BURST] += k;
	cxsim_port_inc(port, CXSIM_PORT_TX_FRAMES, k);
	cxsim_port_inc(port, CXSIM_PORT_TX_BYTES, bytes);
	for (j = i; j < i + k; j++) {
		len = cxsim_lso_seg_len(lso, j);
		cxsim_port_count_frame(port, CXSIM_PORT_TX_MCAST,
				       CXSIM_PORT_TX_HIST, lso->hdr, len);
		cxsim_port_count_frame(w->port, CXSIM_PORT_RX_MCAST,
				       CXSIM_PORT_RX_HIST, lso->hdr, len);
	}
	return k;
}

/*
 * Send the segments of the LSO WQE being executed (@sq->park->lso) from
 * @sq->park->lso_next on, each read from host memory as it goes.
 * Return: 0, -EAGAIN: a segment is parked, or LOCAL_PROT: a segment's
 * payload was not addressable any more (the rest is not sent).
 */
static int cxsim_sq_lso_send(struct cxsim_sq *sq, bool may_sleep)
{
	const struct cxen_tx_ctrl_seg *ctrl = (void *)sq->wqe;
	const u8 *payload = sq->buf + CXSIM_TX_HEADROOM;
	bool ins = ctrl->ins_vlan & CXEN_TX_INS_VLAN;
	struct cxsim_sq_park *pk = sq->park;
	struct cxsim_lso *lso = &pk->lso;
	u32 i, len;
	u8 *frame;
	int err;

	while (pk->lso_next < lso->nseg) {
		/* The rest of an LRO merge's segments at once, when it can. */
		if (!ins && pk->lso_next) {
			i = cxsim_sq_lso_burst(sq, pk->lso_next);
			if (i) {
				pk->lso_next += i;
				continue;
			}
		}
		i = pk->lso_next++;
		if (cxsim_lso_seg_len(lso, i) > CXSIM_MAX_WIRE_FRAME) {
			/* Longer than any MTU allows: oversize. */
			sq->cnt[CXSIM_SQ_OVERSIZE]++;
			cxsim_port_inc(&sq->sd->port[sq->port],
				       CXSIM_PORT_TX_OVERSIZE, 1);
			continue;
		}
		if (!cxsim_lso_gather(sq, i * lso->mss,
				      cxsim_lso_seg_len(lso, i) - lso->hdr_len)) {
			/* This segment and the ones after it never go. */
			cxsim_port_inc(&sq->sd->port[sq->port],
				       CXSIM_PORT_TX_DISCARDED, lso->nseg - i);
			pk->lso_next = lso->nseg;
			return CXEN_SYND_LOCAL_PROT;
		}
		frame = sq->seg + VLAN_HLEN;
		len = cxsim_lso_build(lso, i, payload, frame);
		if (ins) {
			frame = cxsim_pkt_vlan_insert(frame,
						      be16_to_cpu(ctrl->vlan_tci));
			len += VLAN_HLEN;
		}
		/* The segment's checksums are the model's own. */
		err = cxsim_sq_xmit(sq, frame, len,
				    (lso->pkt.l3 == CXEN_CQE_L3_IPV4 ?
				     CXSIM_CSUM_L3 : 0) | CXSIM_CSUM_L4,
				    may_sleep);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Segment an LSO WQE's payload and send every segment.
 * Return: 0, -EAGAIN when a segment is parked, or the syndrome of the
 * error CQE the WQE gets.
 */
static int cxsim_sq_lso(struct cxsim_sq *sq, const u8 *hdr, u32 hdr_len,
			u32 mss, u32 payload_len, bool may_sleep)
{
	struct cxsim_sq_park *pk = sq->park;

	if (cxsim_lso_init(&pk->lso, hdr, hdr_len, mss, payload_len))
		return CXEN_SYND_LOCAL_QP_OP;
	pk->lso_next = 0;
	pk->in_lso = true;
	return cxsim_sq_lso_send(sq, may_sleep);
}

/**
 * cxsim_sq_send() - gather and send a SEND or LSO WQE
 * @sq: the SQ; sq->wqe holds the WQE
 * @ctrl: its control segment
 * @ds_cnt: its size in 16-byte units, control segment included
 * @lso: an LSO segment follows the control segment
 * @may_sleep: the run may wait for an RX buffer (else a frame parks)
 *
 * Return: 0, -EAGAIN when a frame of the WQE is parked, or the syndrome
 * of the error CQE the WQE gets.
 */
static int cxsim_sq_send(struct cxsim_sq *sq,
			 const struct cxen_tx_ctrl_seg *ctrl, u32 ds_cnt,
			 bool lso, bool may_sleep)
{
	u8 *data = sq->buf + CXSIM_TX_HEADROOM;
	u32 end = ds_cnt * 16, off = sizeof(*ctrl);
	u32 flags = be32_to_cpu(ctrl->flags);
	u32 glen = 0, hdr_len = 0, mss = 0;
	const u8 *hdr = NULL;
	struct cxsim_pkt pkt;
	u8 known = 0;
	u32 v, n;
	u8 *frame;

	if (lso) {
		if (off + sizeof(struct cxen_tx_lso_seg) > end)
			return CXEN_SYND_LOCAL_QP_OP;
		v = get_unaligned_be32(sq->wqe + off);
		mss = FIELD_GET(CXEN_TX_LSO_MSS, v);
		hdr_len = FIELD_GET(CXEN_TX_LSO_HDR_SIZE, v);
		n = ALIGN(sizeof(struct cxen_tx_lso_seg) + hdr_len, 16);
		if (!mss || !hdr_len || hdr_len > CXEN_HW_TX_MAX_LSO_HDR ||
		    off + n > end)
			return CXEN_SYND_LOCAL_QP_OP;
		hdr = sq->wqe + off + sizeof(struct cxen_tx_lso_seg);
		off += n;
	}

	/* An inline segment, if any, comes first. */
	if (off < end) {
		v = get_unaligned_be32(sq->wqe + off);
		if (v & CXEN_TX_INLINE) {
			glen = FIELD_GET(CXEN_TX_INLINE_LEN, v);
			n = ALIGN(sizeof(struct cxen_tx_inline_seg) + glen, 16);
			if (glen > CXEN_HW_TX_MAX_INLINE || off + n > end)
				return CXEN_SYND_LOCAL_QP_OP;
			memcpy(data, sq->wqe + off +
			       sizeof(struct cxen_tx_inline_seg), glen);
			off += n;
		}
	}

	/*
	 * A SEND's data is read now; an LSO WQE's is checked now and read
	 * as its segments go (cxsim_lso_piece()).
	 */
	sq->park->lso_inl = glen;
	sq->park->lso_nds = 0;
	for (; off < end; off += CXSIM_SEG_BYTES) {
		const struct cxen_data_seg *seg = (void *)(sq->wqe + off);
		u32 bc = be32_to_cpu(seg->byte_count);
		u64 addr = be64_to_cpu(seg->addr);

		if (!bc || bc & CXEN_TX_INLINE)
			return CXEN_SYND_LOCAL_QP_OP;
		if (be32_to_cpu(seg->lkey) != CXSIM_RSVD_LKEY)
			return CXEN_SYND_LOCAL_PROT;
		if (bc > CXSIM_TX_MAX_GATHER - glen)
			return CXEN_SYND_LOCAL_LENGTH;
		if (lso) {
			if (!cxsim_dma_check(sq->sd, addr, bc))
				return CXEN_SYND_LOCAL_PROT;
			sq->park->lso_addr[sq->park->lso_nds] = addr;
			sq->park->lso_len[sq->park->lso_nds++] = bc;
		} else if (!cxsim_dma_read(sq->sd, addr, data + glen, bc)) {
			return CXEN_SYND_LOCAL_PROT;
		}
		glen += bc;
	}

	if (lso)
		return cxsim_sq_lso(sq, hdr, hdr_len, mss, glen, may_sleep);

	if (glen < ETH_HLEN)
		return CXEN_SYND_LOCAL_LENGTH;
	frame = data;
	if (flags & (CXEN_TX_FLAG_IP_CSUM | CXEN_TX_FLAG_L4_CSUM)) {
		cxsim_pkt_parse(frame, glen, &pkt);
		known = cxsim_pkt_tx_csum(frame, &pkt,
					  flags & CXEN_TX_FLAG_IP_CSUM,
					  flags & CXEN_TX_FLAG_L4_CSUM);
	}
	if (ctrl->ins_vlan & CXEN_TX_INS_VLAN) {
		frame = cxsim_pkt_vlan_insert(frame,
					      be16_to_cpu(ctrl->vlan_tci));
		glen += VLAN_HLEN;
	}
	return cxsim_sq_xmit(sq, frame, glen, known, may_sleep);
}

/* The device is done with WQE @sq->cons. */
static void cxsim_sq_next_wqe(struct cxsim_sq *sq)
{
	sq->cons++;
	sq->cnt[CXSIM_SQ_WQES]++;
}

/* What became of the WQE a run executed (cxsim_sq_exec()) */
enum cxsim_exec {
	CXSIM_EXEC_DONE,	/* completed: on to the next */
	CXSIM_EXEC_PARKED,	/* a frame of it is parked: the work completes it */
	CXSIM_EXEC_DEFER,	/* untouched: the work executes it */
};

/*
 * Execute the WQE at sq->cons. A doorbell writer's run (no @may_sleep)
 * leaves an LSO WQE to the work untouched: up to 64 KiB of segments is
 * the device's DMA engine at work while the sender goes on, not the
 * sender's own time, as a veth transmit of one frame is.
 */
static enum cxsim_exec cxsim_sq_exec(struct cxsim_sq *sq, bool may_sleep)
{
	struct cxen_tx_ctrl_seg *ctrl = (void *)sq->wqe;
	u32 stride = 1u << sq->log_stride;
	u32 oo, ds_cnt;
	u64 addr;
	int synd;

	sq->park->in_lso = false;
	addr = sq->ring_dma +
	       ((u64)(sq->cons & ((1u << sq->log_size) - 1)) << sq->log_stride);
	if (!cxsim_dma_read(sq->sd, addr, ctrl, sizeof(*ctrl))) {
		cxsim_sq_fail(sq, CXEN_SYND_LOCAL_PROT);
		return CXSIM_EXEC_DONE;
	}
	oo = be32_to_cpu(ctrl->owner_opcode);
	if (!may_sleep && FIELD_GET(CXEN_TX_OPCODE, oo) == CXEN_TX_OP_LSO)
		return CXSIM_EXEC_DEFER;
	if (!!(oo & CXEN_TX_OWNER) != ((sq->cons >> sq->log_size) & 1)) {
		cxsim_sq_fail(sq, CXEN_SYND_BAD_OWNER);
		return CXSIM_EXEC_DONE;
	}
	ds_cnt = FIELD_GET(CXEN_TX_DS_CNT, ctrl->ds_cnt);
	if (!ds_cnt || ds_cnt * 16 > stride) {
		cxsim_sq_fail(sq, CXEN_SYND_LOCAL_QP_OP);
		return CXSIM_EXEC_DONE;
	}
	if (ds_cnt > 1 &&
	    !cxsim_dma_read(sq->sd, addr + sizeof(*ctrl),
			    sq->wqe + sizeof(*ctrl),
			    (ds_cnt - 1) * 16)) {
		cxsim_sq_fail(sq, CXEN_SYND_LOCAL_PROT);
		return CXSIM_EXEC_DONE;
	}

	switch (FIELD_GET(CXEN_TX_OPCODE, oo)) {
	case CXEN_TX_OP_NOP:
		synd = 0;
		break;
	case CXEN_TX_OP_SEND:
		synd = cxsim_sq_send(sq, ctrl, ds_cnt, false, may_sleep);
		break;
	case CXEN_TX_OP_LSO:
		synd = cxsim_sq_send(sq, ctrl, ds_cnt, true, may_sleep);
		break;
	default:
		synd = CXEN_SYND_LOCAL_QP_OP;
		break;
	}
	if (synd == -EAGAIN) {
		sq->park->cqe = be32_to_cpu(ctrl->flags) &
				CXEN_TX_FLAG_CQ_UPDATE;
		sq->park->parked = true;
		sq->cnt[CXSIM_SQ_PARKED]++;
		return CXSIM_EXEC_PARKED;
	}
	if (synd)
		cxsim_sq_fail(sq, synd);
	else if (be32_to_cpu(ctrl->flags) & CXEN_TX_FLAG_CQ_UPDATE)
		cxsim_sq_cqe(sq, CXEN_CQE_OP_SEND, 0);
	return CXSIM_EXEC_DONE;
}

/*
 * Finish the WQE a doorbell writer's run parked, as its run would have:
 * the parked frame waits for its RX buffer (or, the SQ stopped or gone,
 * is dropped), the rest of an LSO WQE's segments follow, then the WQE
 * completes. Sleeps.
 */
static void cxsim_sq_unpark(struct cxsim_sq *sq)
{
	struct cxsim_sq_park *pk = sq->park;
	int synd = 0;

	pk->parked = false;
	cxsim_rx_deliver(&pk->w, sq, true);
	if (pk->in_lso)
		synd = cxsim_sq_lso_send(sq, true);
	cxsim_lro_flush(sq->sd, &pk->w);
	if (synd > 0)
		cxsim_sq_fail(sq, synd);
	else if (pk->cqe)
		cxsim_sq_cqe(sq, CXEN_CQE_OP_SEND, 0);
	cxsim_sq_next_wqe(sq);
}

/*
 * The SQ's engine; the caller owns CXSIM_SQ_RUN. Executes WQEs from the
 * consumer counter up to the producer counter in the doorbell record,
 * CXSIM_TX_BUDGET at most. In the error state every WQE is flushed.
 * Without @may_sleep (a doorbell writer's run) it stops at a frame that
 * must wait for an RX buffer, at an LSO WQE and at a delay fault.
 *
 * Return: true when the work must go on: WQEs are left after the
 * budget, or a frame is parked, an LSO WQE is left to it, or a delay
 * must be slept.
 */
static bool cxsim_sq_run(struct cxsim_sq *sq, bool may_sleep)
{
	u32 size = 1u << sq->log_size;
	struct cxen_wq_dbrec *db;
	int budget, err;
	u16 pi;

	if (sq->park->parked) {
		if (!may_sleep)
			return true;
		cxsim_sq_unpark(sq);
	}
	if (READ_ONCE(sq->dead) || READ_ONCE(sq->stopped) ||
	    cxsim_halted(sq->sd))
		return false;
	db = cxsim_dma_ptr(sq->sd, sq->dbrec_dma, sizeof(*db));
	if (!db) {
		if (!sq->error)
			cxsim_sq_fail(sq, CXEN_SYND_LOCAL_PROT);
		return false;
	}
	pi = be32_to_cpu(READ_ONCE(db->pi)) & CXEN_WQ_DBREC_PI;
	dma_rmb();	/* the WQEs after the producer counter */

	for (budget = CXSIM_TX_BUDGET; budget && sq->cons != pi; budget--) {
		err = cxsim_fault_sq(sq, may_sleep);
		if (unlikely(err))
			return err == -EAGAIN;
		if (sq->error)
			cxsim_sq_flush(sq);
		else if ((u16)(pi - sq->cons) > size)
			cxsim_sq_fail(sq, CXEN_SYND_LOCAL_QP_OP);
		else if (unlikely(cxsim_fault_sq_error(sq)))
			cxsim_sq_fail(sq, CXEN_SYND_LOCAL_QP_OP);
		else if (cxsim_sq_exec(sq, may_sleep) != CXSIM_EXEC_DONE)
			return true;
		cxsim_sq_next_wqe(sq);
	}
	return sq->cons != pi;
}

/* Run the SQ as the owner of CXSIM_SQ_RUN, then let go of it. */
static void cxsim_sq_engine(struct cxsim_sq *sq, bool may_sleep)
{
	bool more;

	clear_bit(CXSIM_SQ_KICK, &sq->engine);
	smp_mb__after_atomic();	/* KICK cleared before the PI is read */
	more = cxsim_sq_run(sq, may_sleep);
	cxsim_lro_flush(sq->sd, &sq->park->w);
	clear_bit_unlock(CXSIM_SQ_RUN, &sq->engine);
	smp_mb__after_atomic();	/* RUN cleared before KICK is read */
	if ((more || test_bit(CXSIM_SQ_KICK, &sq->engine)) &&
	    !READ_ONCE(sq->dead))
		queue_work(sq->sd->dp_wq, &sq->work);
}

/**
 * cxsim_sq_work() - the SQ's work item: its engine, where it may sleep
 * @work: the SQ's work
 *
 * Runs the engine unless a doorbell writer's run owns it: that run queues
 * the work again when it is done and was kicked meanwhile.
 */
void cxsim_sq_work(struct work_struct *work)
{
	struct cxsim_sq *sq = container_of(work, struct cxsim_sq, work);

	if (test_and_set_bit_lock(CXSIM_SQ_RUN, &sq->engine))
		return;
	sq->cnt[CXSIM_SQ_WORK_RUNS]++;
	cxsim_sq_engine(sq, true);
}

/**
 * cxsim_sq_kick() - an SQ_DB write: run the SQ's engine
 * @sq: the SQ, looked up under RCU by the register trap
 *
 * In the writer's context when the engine is idle, db_inline is on and
 * the writer runs with bottom halves off and interrupts on (the driver's
 * ndo_start_xmit() and NAPI); else from the SQ's work. The run raises
 * the interrupts of the CQEs it writes: the driver's handler runs inside
 * this write, as an MSI-X message may arrive right after it, and the NAPI
 * it schedules once the writer enables bottom halves again, as after a
 * veth transmit. A writer that finds the engine busy leaves
 * CXSIM_SQ_KICK: the runner queues the work once it is done.
 */
void cxsim_sq_kick(struct cxsim_sq *sq)
{
	smp_mb__before_atomic();	/* the doorbell record before KICK */
	set_bit(CXSIM_SQ_KICK, &sq->engine);
	if (!READ_ONCE(db_inline) || !in_softirq() || in_hardirq() ||
	    irqs_disabled()) {
		queue_work(sq->sd->dp_wq, &sq->work);
		return;
	}
	/* Fully ordered: KICK set before RUN is read (cxsim_sq_engine()). */
	if (test_and_set_bit(CXSIM_SQ_RUN, &sq->engine))
		return;
	sq->cnt[CXSIM_SQ_INLINE_RUNS]++;
	cxsim_sq_engine(sq, false);
}

/**
 * cxsim_sq_schedule() - run the SQ's engine from its work
 * @sq: the SQ
 *
 * For the model's own reasons to look at an SQ again (a stall released).
 */
void cxsim_sq_schedule(struct cxsim_sq *sq)
{
	set_bit(CXSIM_SQ_KICK, &sq->engine);
	queue_work(sq->sd->dp_wq, &sq->work);
}

/**
 * cxsim_sq_lock() - own the SQ's engine, from the command work
 * @sq: the SQ
 *
 * Waits for the SQ's work and for a doorbell writer's run (which never
 * sleeps), then finishes a WQE a run parked: its frame goes to its RQ if
 * one is posted and is dropped otherwise when the SQ is stopped or gone,
 * the WQE completes. Until cxsim_sq_unlock() nothing runs the SQ; with
 * @sq->stopped or @sq->dead set before, nothing executes it after.
 * Process context.
 */
void cxsim_sq_lock(struct cxsim_sq *sq)
{
	cancel_work_sync(&sq->work);
	while (test_and_set_bit_lock(CXSIM_SQ_RUN, &sq->engine))
		cond_resched();
	if (sq->park->parked)
		cxsim_sq_unpark(sq);
}

/**
 * cxsim_sq_unlock() - let go of the SQ's engine
 * @sq: the SQ, owned by cxsim_sq_lock()
 */
void cxsim_sq_unlock(struct cxsim_sq *sq)
{
	clear_bit_unlock(CXSIM_SQ_RUN, &sq->engine);
}

/**
 * cxsim_sq_park_alloc() - the state of an SQ's frame on its way
 *
 * Return: a zeroed struct cxsim_sq_park for struct cxsim_sq.park (freed
 * with kfree()), or NULL.
 */
struct cxsim_sq_park *cxsim_sq_park_alloc(void)
{
	return kzalloc(sizeof(struct cxsim_sq_park), GFP_KERNEL);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * cxsim_rx_frame_test() - a frame arrives at a port, for KUnit
 * @port: the receiving port
 * @frame: the frame
 * @len: its length
 * @hold: flow control: a frame without a WQE may wait (else dropped)
 *
 * One try of the receive path from classification on (no MTU check, no
 * RX filter, no wait), with no interrupt raised: the model's self-test
 * drives RQs with it.
 *
 * Return: -ENOBUFS when the frame would wait for a WQE, else the
 * CXEN_ASYNC_* bits it would have raised.
 */
int cxsim_rx_frame_test(struct cxsim_port *port, const u8 *frame, u32 len,
			bool hold)
{
	struct cxsim_rx_ctx rx = { .frame = frame, .len = len };
	struct cxsim_pkt pkt;
	struct cxsim_rq *rq;
	int ret = 0, entry;

	rx.pkt = &pkt;
	cxsim_pkt_parse(frame, len, &pkt);
	cxsim_rx_classify(&rx, &pkt);
	cxsim_rx_vlan_strip(port, &rx);
	rcu_read_lock();
	rq = cxsim_rx_steer(port, &rx, &pkt, &entry);
	if (rq)
		ret = cxsim_rq_receive(rq, &rx, hold ? CXSIM_FC_HOLD :
				       CXSIM_FC_DROP);
	else
		cxsim_port_inc(port, CXSIM_PORT_RX_NO_RQ, 1);
	rcu_read_unlock();
	return ret ? ret : rx.async;
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_rx_frame_test);

/**
 * cxsim_lro_end_test() - end RQ @rqn's LRO merge, as a context's flush
 * @sd: the device
 * @rqn: the RQ
 *
 * cxsim_rx_frame_test() leaves a merge open, as one delivering context
 * does between its frames: the self-test ends it here.
 */
void cxsim_lro_end_test(struct cxsim_dev *sd, u16 rqn)
{
	cxsim_lro_end(sd, rqn);
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_lro_end_test);
#endif
