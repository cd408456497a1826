// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim completion queues: CQEs written into the host's ring, the
 * consumer index the driver publishes, arming, interrupt moderation (a
 * CQ's hrtimer and work item), and overruns. Interrupts are raised with
 * no model lock held (cxsim_raise_irq()): by the run that wrote the CQE,
 * or, moderated or asked for by an arm, from the CQ's work item (with the
 * irq_direct parameter on, from the CQ's hrtimer in its hard interrupt).
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

static bool irq_direct;
module_param(irq_direct, bool, 0644);
MODULE_PARM_DESC(irq_direct,
		 "Raise a moderated or arm-due interrupt from the CQ's hrtimer, in hard interrupt context (default N: from the CQ's work item)");

/* Consumer index the driver published, or -1 when unreadable. */
s64 cxsim_cq_ci(struct cxsim_cq *cq)
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
int cxsim_cq_post_locked(struct cxsim_cq *cq, struct cxen_cqe *cqe,
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
void cxsim_cq_raise_due(struct cxsim_cq *cq)
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
