// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim datapath: SQ execution, the wire, RX steering and scatter, CQEs
 * and interrupts.
 *
 * An SQ_DB write queues the SQ's work item on the datapath workqueue.
 * The work reads the SQ's producer counter from its doorbell record and
 * executes WQEs from its consumer counter, at most CXSIM_TX_BUDGET per
 * run. A frame goes on the wire at once: the peer port receives it in the
 * same work, steers it to an RQ, scatters it into the buffers of the RQ's
 * next WQE and writes the RX CQE. With flow control on (the default) a
 * frame that finds its RQ empty waits for the driver to post a WQE: the
 * sending SQ's work sleeps, as a transmitter held by PAUSE would. Interrupts
 * are raised from the works with no model lock held (cxsim_raise_irq()).
 */
#include <linux/bitfield.h>
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <kunit/visibility.h>

#include "cxsim.h"
#include "cxsim_pkt.h"
#include "cxsim_rss.h"
#include "cxsim_rx.h"

#define CXSIM_SEG_BYTES		sizeof(struct cxen_data_seg)	/* 16 */

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

/* Disarm and fire: now (@fire) or, without @fire, from the CQ's work. */
static void cxsim_cq_fire_locked(struct cxsim_cq *cq, bool *fire)
{
	cq->armed = false;
	cq->cnt[CXSIM_CQ_IRQS]++;
	hrtimer_try_to_cancel(&cq->moder_timer);
	if (fire) {
		*fire = true;
	} else {
		cq->fire = true;
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
			      HRTIMER_MODE_REL);
}

/* The moderation period of an armed CQ is over: fire, from the CQ's work. */
enum hrtimer_restart cxsim_cq_moder_timer(struct hrtimer *timer)
{
	struct cxsim_cq *cq = container_of(timer, struct cxsim_cq, moder_timer);
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	if (cq->armed && cq->armed_cqes)
		cxsim_cq_fire_locked(cq, NULL);
	spin_unlock_irqrestore(&cq->lock, flags);
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
 * work, not from the trap); otherwise the next CQE raises it. Either way
 * at most one interrupt per arm.
 */
void cxsim_cq_arm(struct cxsim_cq *cq)
{
	unsigned long flags;

	spin_lock_irqsave(&cq->lock, flags);
	cq->cnt[CXSIM_CQ_ARMS]++;
	if (unlikely(cq->stale))
		cxsim_cq_unstale_locked(cq);
	if (!cq->armed && !cq->fire) {
		cq->armed = true;
		cq->armed_cqes = 0;
		if (cxsim_cq_ci(cq) >= 0 && cxsim_cq_used_locked(cq))
			cxsim_cq_fire_locked(cq, NULL);
	}
	spin_unlock_irqrestore(&cq->lock, flags);
}

/* Raise the interrupt an arm found due. */
void cxsim_cq_irq_work(struct work_struct *work)
{
	struct cxsim_cq *cq = container_of(work, struct cxsim_cq, irq_work);
	unsigned long flags;
	bool fire;

	spin_lock_irqsave(&cq->lock, flags);
	fire = cq->fire;
	cq->fire = false;
	spin_unlock_irqrestore(&cq->lock, flags);
	if (fire && !cxsim_halted(cq->sd))
		cxsim_raise_irq(cq->sd, cq->vector);
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
 * WQE and the frame may wait for one (@fc, and no pause storm); else 0.
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

	spin_lock(&rq->lock);
	spin_lock_irqsave(&cq->lock, flags);

	if (rq->stopped) {
		cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
		goto unlock;
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
	spin_unlock(&rq->lock);
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

/* Steer a frame through the port's RSS context, or to its default RQ. */
static struct cxsim_rq *cxsim_rx_steer(struct cxsim_port *port,
				       struct cxsim_rx_ctx *rx,
				       const struct cxsim_pkt *pkt)
{
	struct cxsim_rq *rq = NULL;
	struct cxsim_rss *rss;
	u8 hash_type;
	int rqn;

	rss = rcu_dereference(port->rss);
	if (rss) {
		rx->hash = cxsim_rss_hash(rss->key, rss->hash_fields, rx->frame,
					  pkt, &hash_type);
		rx->flags &= ~CXEN_CQE_HASH_TYPE;
		rx->flags |= FIELD_PREP(CXEN_CQE_HASH_TYPE, hash_type);
		rqn = rss->rqn[rx->hash % CXEN_RSS_TABLE_SIZE];
	} else {
		rqn = READ_ONCE(port->default_rqn);
	}
	if (rqn >= 0)
		rq = rcu_dereference(port->sd->rq[rqn]);
	if (!rq || rq->port != port->index)
		return NULL;
	return rq;
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

/**
 * cxsim_wire_rx() - a frame arrives on a port from the wire
 * @port: the receiving port
 * @sq: the SQ that sent it (on the peer port, or on @port in loopback),
 *	or NULL from the wire generator (cxsim_gen.c), a partner that
 *	honours PAUSE
 * @frame: the frame (the sender's buffer)
 * @len: its length
 * @csum_known: CXSIM_CSUM_* checksums the sending SQ wrote into @frame and
 *	nothing changed since: verified without summing the bytes again
 *
 * Oversize check against the receiving port's MTU (again after a wait for
 * a buffer), the RX filter, steering, delivery.
 * When the RQ has no posted WQE and flow control is on (SET_PORT), the
 * frame waits for one: @port counts a PAUSE sent, the sender one
 * received, and the sender (@sq's work, or the generator) sleeps until
 * the driver posts, the link or the SQ goes, or CXEN_HW_PAUSE_STORM_MS
 * pass. Process context.
 */
void cxsim_wire_rx(struct cxsim_port *port, struct cxsim_sq *sq,
		   const u8 *frame, u32 len, u8 csum_known)
{
	struct cxsim_rx_ctx rx = {
		.frame = frame, .len = len, .csum_known = csum_known,
	};
	enum cxsim_rx_fc fc = CXSIM_FC_DROP;
	struct cxsim_dev *sd = port->sd;
	unsigned long deadline = 0;
	struct cxsim_rq *rq;
	struct cxsim_pkt pkt;
	int ret;

	cxsim_pkt_parse(frame, len, &pkt);
	if (cxsim_rx_oversize(port, &pkt, len))
		return;
	cxsim_port_count_frame(port, CXSIM_PORT_RX_MCAST, CXSIM_PORT_RX_HIST,
			       frame, len);
	if (!cxsim_rx_accept(port, frame, len,
			     sq && port == &sd->port[sq->port])) {
		cxsim_port_inc(port, CXSIM_PORT_RX_FILTERED, 1);
		return;
	}
	cxsim_rx_classify(&rx, &pkt);
	cxsim_rx_vlan_strip(port, &rx);

	for (;;) {
		if (fc != CXSIM_FC_EXPIRED)
			fc = cxsim_rx_may_hold(port, sq) ? CXSIM_FC_HOLD :
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
		if (cxsim_rx_oversize(port, &pkt, len)) {
			rcu_read_unlock();
			break;
		}
		rq = cxsim_rx_steer(port, &rx, &pkt);
		if (!rq) {
			rcu_read_unlock();
			cxsim_port_inc(port, CXSIM_PORT_RX_NO_RQ, 1);
			break;
		}
		ret = cxsim_rq_receive(rq, &rx, fc);
		/*
		 * Still under RCU: the CQ cannot go before its RQ. Once: a
		 * striding RQ may write a filler, then hold the frame.
		 */
		if (rx.fire) {
			rx.fire = false;
			cxsim_raise_irq(sd, rq->cq->vector);
		}
		rcu_read_unlock();
		if (ret != -ENOBUFS)
			break;

		if (!deadline) {
			deadline = jiffies +
				   msecs_to_jiffies(CXEN_HW_PAUSE_STORM_MS);
			cxsim_port_inc(port, CXSIM_PORT_TX_PAUSE, 1);
			if (sq)
				cxsim_port_inc(&sd->port[sq->port],
					       CXSIM_PORT_RX_PAUSE, 1);
		} else if (time_after(jiffies, deadline)) {
			fc = CXSIM_FC_EXPIRED;
			continue;
		}
		usleep_range(CXSIM_PAUSE_POLL_US, 2 * CXSIM_PAUSE_POLL_US);
	}
	if (rx.async)
		cxsim_async_event(sd, rx.async);
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
 * the SQ wrote into it.
 */
static void cxsim_sq_xmit(struct cxsim_sq *sq, u8 *frame, u32 len,
			  u8 csum_known)
{
	struct cxsim_port *port = &sq->sd->port[sq->port];
	u32 limit = READ_ONCE(port->mtu) + ETH_HLEN;
	struct cxsim_port *to;

	if (cxsim_pkt_vlan_tagged(frame, len))
		limit += VLAN_HLEN;
	if (len > limit) {
		sq->cnt[CXSIM_SQ_OVERSIZE]++;
		cxsim_port_inc(port, CXSIM_PORT_TX_OVERSIZE, 1);
		return;
	}
	if (!READ_ONCE(port->link_up)) {
		sq->cnt[CXSIM_SQ_LINK_DOWN]++;
		cxsim_port_inc(port, CXSIM_PORT_TX_LINK_DOWN, 1);
		return;
	}
	sq->cnt[CXSIM_SQ_FRAMES]++;
	sq->cnt[CXSIM_SQ_BYTES] += len;
	cxsim_port_inc(port, CXSIM_PORT_TX_FRAMES, 1);
	cxsim_port_inc(port, CXSIM_PORT_TX_BYTES, len);
	cxsim_port_count_frame(port, CXSIM_PORT_TX_MCAST, CXSIM_PORT_TX_HIST,
			       frame, len);

	if (unlikely(cxsim_fault_wire(sq->sd, frame, len, &csum_known)))
		return;
	to = READ_ONCE(port->loopback) ? port : &sq->sd->port[sq->port ^ 1];
	cxsim_wire_rx(to, sq, frame, len, csum_known);
}

/* Segment an LSO WQE's payload and send every segment. */
static u8 cxsim_sq_lso(struct cxsim_sq *sq, const struct cxen_tx_ctrl_seg *ctrl,
		       const u8 *hdr, u32 hdr_len, u32 mss, u32 payload_len)
{
	const u8 *payload = sq->buf + CXSIM_TX_HEADROOM;
	bool ins = ctrl->ins_vlan & CXEN_TX_INS_VLAN;
	struct cxsim_lso lso;
	u32 i, len;
	u8 *frame;

	if (cxsim_lso_init(&lso, hdr, hdr_len, mss, payload_len))
		return CXEN_SYND_LOCAL_QP_OP;

	for (i = 0; i < lso.nseg; i++) {
		if (cxsim_lso_seg_len(&lso, i) > CXSIM_MAX_WIRE_FRAME) {
			/* Longer than any MTU allows: oversize. */
			sq->cnt[CXSIM_SQ_OVERSIZE]++;
			cxsim_port_inc(&sq->sd->port[sq->port],
				       CXSIM_PORT_TX_OVERSIZE, 1);
			continue;
		}
		frame = sq->seg + VLAN_HLEN;
		len = cxsim_lso_build(&lso, i, payload, frame);
		if (ins) {
			frame = cxsim_pkt_vlan_insert(frame,
						      be16_to_cpu(ctrl->vlan_tci));
			len += VLAN_HLEN;
		}
		/* The segment's checksums are the model's own. */
		cxsim_sq_xmit(sq, frame, len,
			      (lso.pkt.l3 == CXEN_CQE_L3_IPV4 ?
			       CXSIM_CSUM_L3 : 0) | CXSIM_CSUM_L4);
	}
	return 0;
}

/**
 * cxsim_sq_send() - gather and send a SEND or LSO WQE
 * @sq: the SQ; sq->wqe holds the WQE
 * @ctrl: its control segment
 * @ds_cnt: its size in 16-byte units, control segment included
 * @lso: an LSO segment follows the control segment
 *
 * Return: 0, or the syndrome of the error CQE the WQE gets.
 */
static u8 cxsim_sq_send(struct cxsim_sq *sq,
			const struct cxen_tx_ctrl_seg *ctrl, u32 ds_cnt,
			bool lso)
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

	for (; off < end; off += CXSIM_SEG_BYTES) {
		const struct cxen_data_seg *seg = (void *)(sq->wqe + off);
		u32 bc = be32_to_cpu(seg->byte_count);

		if (!bc || bc & CXEN_TX_INLINE)
			return CXEN_SYND_LOCAL_QP_OP;
		if (be32_to_cpu(seg->lkey) != CXSIM_RSVD_LKEY)
			return CXEN_SYND_LOCAL_PROT;
		if (bc > CXSIM_TX_MAX_GATHER - glen)
			return CXEN_SYND_LOCAL_LENGTH;
		if (!cxsim_dma_read(sq->sd, be64_to_cpu(seg->addr),
				    data + glen, bc))
			return CXEN_SYND_LOCAL_PROT;
		glen += bc;
	}

	if (lso)
		return cxsim_sq_lso(sq, ctrl, hdr, hdr_len, mss, glen);

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
	cxsim_sq_xmit(sq, frame, glen, known);
	return 0;
}

/* Execute the WQE at sq->cons. */
static void cxsim_sq_exec(struct cxsim_sq *sq)
{
	struct cxen_tx_ctrl_seg *ctrl = (void *)sq->wqe;
	u32 stride = 1u << sq->log_stride;
	u32 oo, ds_cnt;
	u64 addr;
	u8 synd;

	addr = sq->ring_dma +
	       ((u64)(sq->cons & ((1u << sq->log_size) - 1)) << sq->log_stride);
	if (!cxsim_dma_read(sq->sd, addr, ctrl, sizeof(*ctrl))) {
		cxsim_sq_fail(sq, CXEN_SYND_LOCAL_PROT);
		return;
	}
	oo = be32_to_cpu(ctrl->owner_opcode);
	if (!!(oo & CXEN_TX_OWNER) != ((sq->cons >> sq->log_size) & 1)) {
		cxsim_sq_fail(sq, CXEN_SYND_BAD_OWNER);
		return;
	}
	ds_cnt = FIELD_GET(CXEN_TX_DS_CNT, ctrl->ds_cnt);
	if (!ds_cnt || ds_cnt * 16 > stride) {
		cxsim_sq_fail(sq, CXEN_SYND_LOCAL_QP_OP);
		return;
	}
	if (ds_cnt > 1 &&
	    !cxsim_dma_read(sq->sd, addr + sizeof(*ctrl),
			    sq->wqe + sizeof(*ctrl),
			    (ds_cnt - 1) * 16)) {
		cxsim_sq_fail(sq, CXEN_SYND_LOCAL_PROT);
		return;
	}

	switch (FIELD_GET(CXEN_TX_OPCODE, oo)) {
	case CXEN_TX_OP_NOP:
		synd = 0;
		break;
	case CXEN_TX_OP_SEND:
		synd = cxsim_sq_send(sq, ctrl, ds_cnt, false);
		break;
	case CXEN_TX_OP_LSO:
		synd = cxsim_sq_send(sq, ctrl, ds_cnt, true);
		break;
	default:
		synd = CXEN_SYND_LOCAL_QP_OP;
		break;
	}
	if (synd)
		cxsim_sq_fail(sq, synd);
	else if (be32_to_cpu(ctrl->flags) & CXEN_TX_FLAG_CQ_UPDATE)
		cxsim_sq_cqe(sq, CXEN_CQE_OP_SEND, 0);
}

/**
 * cxsim_sq_work() - the SQ's execution engine
 * @work: the SQ's work
 *
 * Executes WQEs from the consumer counter up to the producer counter in
 * the doorbell record, CXSIM_TX_BUDGET at most, then requeues itself if
 * more are posted. In the error state every WQE is flushed.
 */
void cxsim_sq_work(struct work_struct *work)
{
	struct cxsim_sq *sq = container_of(work, struct cxsim_sq, work);
	u32 size = 1u << sq->log_size;
	struct cxen_wq_dbrec *db;
	int budget;
	u16 pi;

	if (READ_ONCE(sq->dead) || READ_ONCE(sq->stopped) ||
	    cxsim_halted(sq->sd))
		return;
	db = cxsim_dma_ptr(sq->sd, sq->dbrec_dma, sizeof(*db));
	if (!db) {
		if (!sq->error)
			cxsim_sq_fail(sq, CXEN_SYND_LOCAL_PROT);
		return;
	}
	pi = be32_to_cpu(READ_ONCE(db->pi)) & CXEN_WQ_DBREC_PI;
	dma_rmb();	/* the WQEs after the producer counter */

	for (budget = CXSIM_TX_BUDGET; budget && sq->cons != pi; budget--) {
		if (unlikely(cxsim_fault_sq(sq)))
			return;
		if (sq->error)
			cxsim_sq_flush(sq);
		else if ((u16)(pi - sq->cons) > size)
			cxsim_sq_fail(sq, CXEN_SYND_LOCAL_QP_OP);
		else if (unlikely(cxsim_fault_sq_error(sq)))
			cxsim_sq_fail(sq, CXEN_SYND_LOCAL_QP_OP);
		else
			cxsim_sq_exec(sq);
		sq->cons++;
		sq->cnt[CXSIM_SQ_WQES]++;
	}
	if (sq->cons != pi && !READ_ONCE(sq->dead) && !READ_ONCE(sq->stopped))
		queue_work(sq->sd->dp_wq, &sq->work);
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
	int ret = 0;

	cxsim_pkt_parse(frame, len, &pkt);
	cxsim_rx_classify(&rx, &pkt);
	cxsim_rx_vlan_strip(port, &rx);
	rcu_read_lock();
	rq = cxsim_rx_steer(port, &rx, &pkt);
	if (rq)
		ret = cxsim_rq_receive(rq, &rx, hold ? CXSIM_FC_HOLD :
				       CXSIM_FC_DROP);
	else
		cxsim_port_inc(port, CXSIM_PORT_RX_NO_RQ, 1);
	rcu_read_unlock();
	return ret ? ret : rx.async;
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_rx_frame_test);
#endif
