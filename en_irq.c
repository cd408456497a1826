// SPDX-License-Identifier: GPL-2.0
/*
 * cxen: interrupts, NAPI and interrupt moderation.
 *
 * Each channel has one vector: its handler schedules the channel's NAPI,
 * whose poll reaps the SQ's CQ and the XDP SQ's (if any), then the RQ's
 * (en_tx.c, en_xdp.c, en_rx.c), feeds net_dim and arms the CQs again.
 * Moderation changes go to the live CQs (MODIFY_CQ), from ethtool -C or
 * from DIM's work.
 */
#include <linux/dim.h>
#include <linux/interrupt.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>

#include "en_rx.h"

/* ------------------------------------------------------------------ */
/* Interrupt moderation                                                */
/* ------------------------------------------------------------------ */

/*
 * Moderation is a CQ attribute the device changes on a live CQ
 * (MODIFY_CQ), so ethtool -C never rebuilds the channels. With adaptive
 * moderation the kernel's net_dim picks a profile from NAPI's samples
 * and a work item applies it; priv->moder_lock orders those works with
 * ethtool, so a static setting written last is the one that stays.
 */
static int cxen_cq_set_moder(struct cxen_dev *cdev, struct cxen_cq *cq,
			     u16 usecs, u16 frames)
{
	int err;

	if (cq->moder_usecs == usecs && cq->moder_frames == frames)
		return 0;
	err = cxen_cmd_modify_cq(cdev, cq->cqn, usecs, frames);
	if (err)
		return err;
	cq->moder_usecs = usecs;
	cq->moder_frames = frames;
	return 0;
}

static void cxen_dim_apply(struct cxen_channel *ch, struct cxen_cq *cq,
			   const bool *on, struct dim_cq_moder m)
{
	struct cxen_priv *priv = ch->priv;

	mutex_lock(&priv->moder_lock);
	if (READ_ONCE(*on))
		cxen_cq_set_moder(priv->cdev, cq,
				  min_t(u16, m.usec, CXEN_HW_MAX_MODER_USECS),
				  min_t(u16, m.pkts, CXEN_HW_MAX_MODER_FRAMES));
	mutex_unlock(&priv->moder_lock);
}

static void cxen_rx_dim_work(struct work_struct *work)
{
	struct dim *dim = container_of(work, struct dim, work);
	struct cxen_channel *ch = container_of(dim, struct cxen_channel, rx_dim);

	cxen_dim_apply(ch, &ch->rq.cq, &ch->rx_dim_on,
		       net_dim_get_rx_moderation(dim->mode, dim->profile_ix));
	dim->state = DIM_START_MEASURE;
}

static void cxen_tx_dim_work(struct work_struct *work)
{
	struct dim *dim = container_of(work, struct dim, work);
	struct cxen_channel *ch = container_of(dim, struct cxen_channel, tx_dim);

	cxen_dim_apply(ch, &ch->sq.cq, &ch->tx_dim_on,
		       net_dim_get_tx_moderation(dim->mode, dim->profile_ix));
	dim->state = DIM_START_MEASURE;
}

void cxen_dim_init(struct cxen_channel *ch)
{
	INIT_WORK(&ch->rx_dim.work, cxen_rx_dim_work);
	INIT_WORK(&ch->tx_dim.work, cxen_tx_dim_work);
	ch->rx_dim.mode = DIM_CQ_PERIOD_MODE_START_FROM_EQE;
	ch->tx_dim.mode = DIM_CQ_PERIOD_MODE_START_FROM_EQE;
	ch->rx_dim_on = ch->priv->params.rx_dim;
	ch->tx_dim_on = ch->priv->params.tx_dim;
}

/**
 * cxen_rx_dim_restart() - adaptive RX moderation for a channel's new RQ
 * @ch: the channel, its NAPI disabled, the RQ of a queue restart in place
 *
 * The restart cancelled DIM's work, which may have left DIM waiting in
 * DIM_APPLY_NEW_PROFILE for a work that will not run: it measures afresh.
 * The new RQ's CQ was created with the static values: it takes DIM's
 * current profile.
 */
void cxen_rx_dim_restart(struct cxen_channel *ch)
{
	struct dim *dim = &ch->rx_dim;

	dim->state = DIM_START_MEASURE;
	cxen_dim_apply(ch, &ch->rq.cq, &ch->rx_dim_on,
		       net_dim_get_rx_moderation(dim->mode, dim->profile_ix));
}

/* From NAPI, once a poll completes: feed the adaptive moderation. */
static void cxen_dim_sample(struct cxen_channel *ch)
{
	u16 events = READ_ONCE(ch->irq_events);
	struct dim_sample s;

	if (READ_ONCE(ch->rx_dim_on)) {
		dim_update_sample(events, u64_stats_read(&ch->rq.stats.packets),
				  u64_stats_read(&ch->rq.stats.bytes), &s);
		net_dim(&ch->rx_dim, s);
	}
	if (READ_ONCE(ch->tx_dim_on)) {
		dim_update_sample(events, u64_stats_read(&ch->sq.cstats.packets),
				  u64_stats_read(&ch->sq.cstats.bytes), &s);
		net_dim(&ch->tx_dim, s);
	}
}

/* Moderation of one channel's CQs as @p says; adaptive: DIM's start. */
static int cxen_channel_set_moder(struct cxen_channel *ch,
				  const struct cxen_params *p)
{
	struct cxen_dev *cdev = ch->priv->cdev;
	struct dim_cq_moder rx, tx;
	int err;

	rx = p->rx_dim ? net_dim_get_def_rx_moderation(ch->rx_dim.mode) :
	     (struct dim_cq_moder){ .usec = p->rx_usecs, .pkts = p->rx_frames };
	tx = p->tx_dim ? net_dim_get_def_tx_moderation(ch->tx_dim.mode) :
	     (struct dim_cq_moder){ .usec = p->tx_usecs, .pkts = p->tx_frames };
	WRITE_ONCE(ch->rx_dim_on, p->rx_dim);
	WRITE_ONCE(ch->tx_dim_on, p->tx_dim);
	err = cxen_cq_set_moder(cdev, &ch->rq.cq, rx.usec, rx.pkts);
	if (!err)
		err = cxen_cq_set_moder(cdev, &ch->sq.cq, tx.usec, tx.pkts);
	/* The XDP SQ's completions: the static TX values, DIM or not. */
	if (!err && ch->rq.xdp)
		err = cxen_cq_set_moder(cdev, &ch->xsq.cq, p->tx_usecs,
					p->tx_frames);
	return err;
}

/**
 * cxen_set_moderation() - change interrupt moderation on the live CQs
 * @priv: the port
 * @new: the parameters wanted; only the moderation fields may differ
 * @extack: for the user-facing error
 *
 * Caller holds RTNL. Return: 0, or a negative errno with every CQ back
 * on the previous moderation.
 */
int cxen_set_moderation(struct cxen_priv *priv, const struct cxen_params *new,
			struct netlink_ext_ack *extack)
{
	struct cxen_chans *chans = cxen_chans_rtnl(priv);
	unsigned int i;
	int err = 0;

	ASSERT_RTNL();
	mutex_lock(&priv->moder_lock);
	for (i = 0; chans && i < chans->num; i++) {
		err = cxen_channel_set_moder(chans->ch[i], new);
		if (err)
			break;
	}
	if (err) {
		unsigned int failed = i;

		NL_SET_ERR_MSG_MOD(extack, "device refused the moderation: previous values kept");
		/* Including the channel that failed: it may be half changed. */
		for (i = 0; i <= failed; i++)
			cxen_channel_set_moder(chans->ch[i], &priv->params);
	} else {
		priv->params = *new;
	}
	mutex_unlock(&priv->moder_lock);
	return err;
}

/* ------------------------------------------------------------------ */
/* NAPI and interrupts                                                 */
/* ------------------------------------------------------------------ */

int cxen_napi_poll(struct napi_struct *napi, int budget)
{
	struct cxen_channel *ch = container_of(napi, struct cxen_channel, napi);
	struct cxen_dev *cdev = ch->priv->cdev;
	bool tx_done;
	int work;

	tx_done = cxen_poll_tx(&ch->sq, budget);
	/*
	 * XDP SQ room before RX posts XDP_TX frames to it. Not from netpoll
	 * (budget 0, IRQs off): returning pages and frames needs BHs, and
	 * netpoll needs room on the stack's SQ only.
	 */
	if (ch->rq.xdp && budget)
		tx_done &= cxen_poll_xsq(&ch->xsq, budget);
	work = cxen_poll_rx(&ch->rq, napi, budget);
	if (!tx_done || work == budget)
		return budget;

	if (napi_complete_done(napi, work)) {
		cxen_dim_sample(ch);
		cxen_cq_arm(cdev, &ch->sq.cq);
		if (ch->rq.xdp)
			cxen_cq_arm(cdev, &ch->xsq.cq);
		cxen_cq_arm(cdev, &ch->rq.cq);
	}
	return work;
}

/**
 * cxen_channel_irq() - a channel's completion interrupt
 * @irq: the vector's Linux IRQ
 * @data: the channel
 *
 * Channel i of the running set and channel i of a set being drained
 * share vector i (IRQF_SHARED): the interrupt is this channel's only if
 * one of its CQs holds a CQE. NAPI is scheduled either way: an armed CQ
 * that fired is disarmed, and a netpoll poll (which runs outside NAPI's
 * scheduling) may have taken the CQE before this ran; only a NAPI poll
 * arms the CQ again.
 *
 * Return: IRQ_HANDLED if the channel had completions, else IRQ_NONE.
 */
irqreturn_t cxen_channel_irq(int irq, void *data)
{
	struct cxen_channel *ch = data;
	bool mine;

	mine = cxen_cqe_owned(&ch->rq.cq) || cxen_cqe_owned(&ch->sq.cq) ||
	       (ch->rq.xdp && cxen_cqe_owned(&ch->xsq.cq));
	if (mine)
		WRITE_ONCE(ch->irq_events, ch->irq_events + 1);
	napi_schedule_irqoff(&ch->napi);
	return mine ? IRQ_HANDLED : IRQ_NONE;
}
