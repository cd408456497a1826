// SPDX-License-Identifier: GPL-2.0
/*
 * cxen: channels and the hitless reconfiguration engine.
 *
 * A channel is one RQ, one SQ, their CQs, a NAPI instance and an
 * interrupt vector; with an XDP program, an XDP SQ and its CQ too. A
 * port runs one set of channels; every change that needs new queues
 * (ring sizes, channel count, MTU, RX layout, attaching or detaching an
 * XDP program) builds a new set and switches to it while traffic flows.
 * A reconfiguration of a running port follows allocate-new, switch,
 * drain-old, free-old:
 *
 *   1. cxen_channels_create(): the new channels with the new parameters,
 *      RX rings full, SQs created. Failing here leaves the old set
 *      untouched. Their NAPI is enabled and their CQs armed at once
 *      (cxen_channels_start()), so that RX is served from the first frame
 *      steered to them.
 *   2. switch: SET_RSS steers RX to the new RQs (atomically in the device),
 *      TX is paused (netif_tx_disable) for as long as it takes the old
 *      SQs to complete and the new set to be published, then resumes on
 *      the new SQs.
 *   3. cxen_channels_drain(): the old RQs are destroyed (the device has
 *      then written its last CQE for them), the old NAPI instances reap
 *      what is left on the old CQs and the last TX completions.
 *   4. cxen_channels_free(): the old channels go, their counters folded
 *      into the port's base.
 *
 * Within the switch, the port's MTU goes down before RX moves to the new
 * set's smaller buffers and up only after it moved to larger ones, so a
 * frame the port accepts always fits the RQ it lands in; and the stack's
 * RX queue count grows before RX moves to more RQs and shrinks only after
 * the old ones drained, so every frame's queue is one the stack counts. Every step
 * undoes the ones before it on failure: the old set keeps running.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <net/netdev_queues.h>

#include "en_rx.h"

/* ------------------------------------------------------------------ */
/* One channel                                                         */
/* ------------------------------------------------------------------ */

/* Doorbell records of a channel, one cache line apart in one page. */
enum {
	CXEN_DBREC_RQ,
	CXEN_DBREC_SQ,
	CXEN_DBREC_RQ_CQ,
	CXEN_DBREC_SQ_CQ,
	CXEN_DBREC_XSQ,
	CXEN_DBREC_XSQ_CQ,
	/* The RQ a queue restart builds beside the running one (en_queue.c). */
	CXEN_DBREC_RQ_ALT,
	CXEN_DBREC_RQ_CQ_ALT,
};

static void *cxen_dbrec(struct cxen_channel *ch, int which, dma_addr_t *dma)
{
	*dma = ch->dbrec_dma + which * SMP_CACHE_BYTES;
	return ch->dbrec_page + which * SMP_CACHE_BYTES;
}

/**
 * cxen_channel_spare_dbrecs() - doorbell records for a channel's next RQ
 * @ch: the channel
 * @rq: an RQ being built beside @ch's running one, by a queue restart
 *
 * A channel has two pairs of RQ and RQ CQ records: the running RQ uses
 * one, the RQ that replaces it the other (the old one is destroyed on
 * the device before a next restart builds in its records).
 */
void cxen_channel_spare_dbrecs(struct cxen_channel *ch, struct cxen_rq *rq)
{
	bool first = (void *)ch->rq.dbrec == ch->dbrec_page +
				CXEN_DBREC_RQ * SMP_CACHE_BYTES;
	dma_addr_t dma;

	rq->dbrec = cxen_dbrec(ch, first ? CXEN_DBREC_RQ_ALT : CXEN_DBREC_RQ,
			       &dma);
	rq->cq.dbrec = cxen_dbrec(ch, first ? CXEN_DBREC_RQ_CQ_ALT :
				  CXEN_DBREC_RQ_CQ, &dma);
}

static int cxen_channel_vector(struct cxen_priv *priv, int idx)
{
	return 1 + priv->port * priv->cdev->caps.max_channels + idx;
}

/**
 * cxen_channel_park() - keep a channel whose queues the device may still use
 * @ch: the channel, torn down as far as it could be (IRQ freed, NAPI
 *	deleted); @ch->leaked names the queues cxen_sq_free() or
 *	cxen_rq_free() had to leave (each untied from the NAPI)
 *
 * The device failed to let go of them and could not be reset, so their
 * rings, CQs, buffers, page pool and the channel's doorbell records stay
 * allocated and mapped. The channel goes on the device's list instead of
 * being freed: what the queues need to be freed later stays reachable
 * (and is no leak to kmemleak), and cxen_leaked_free() frees it after a
 * reset the device completed, or at removal. Under RTNL.
 */
static void cxen_channel_park(struct cxen_channel *ch)
{
	struct cxen_dev *cdev = ch->priv->cdev;

	ASSERT_RTNL();
	ch->leak_gen = READ_ONCE(cdev->hw_gen);
	list_add_tail(&ch->leak_node, &cdev->leaked);
}

/**
 * cxen_leaked_free() - free the parked channels a device reset made safe
 * @cdev: the device
 *
 * A channel parked by cxen_channel_park() is freed once the device has
 * completed a reset since (&cxen_dev.hw_gen moved on): the reset made it
 * forget every queue, so it touches none of their memory again. Its
 * queues' free functions find their generation gone and send no DESTROY.
 * Channels parked since the last reset stay. Under RTNL; the channels'
 * netdev is still allocated (at removal: before free_netdev()).
 */
void cxen_leaked_free(struct cxen_dev *cdev)
{
	struct cxen_channel *ch, *tmp;

	ASSERT_RTNL();
	list_for_each_entry_safe(ch, tmp, &cdev->leaked, leak_node) {
		if (ch->leak_gen == READ_ONCE(cdev->hw_gen))
			continue;
		if ((ch->leaked & CXEN_CH_LEAK_SQ) && cxen_sq_free(&ch->sq))
			ch->leaked &= ~CXEN_CH_LEAK_SQ;
		if ((ch->leaked & CXEN_CH_LEAK_XSQ) && cxen_xsq_free(&ch->xsq))
			ch->leaked &= ~CXEN_CH_LEAK_XSQ;
		if ((ch->leaked & CXEN_CH_LEAK_RQ) && cxen_rq_free(&ch->rq))
			ch->leaked &= ~CXEN_CH_LEAK_RQ;
		/* Cannot happen: the generation moved on. */
		if (WARN_ON_ONCE(ch->leaked))
			continue;
		netdev_info(ch->priv->netdev, "channel %d: the memory kept after the device failed is freed\n",
			    ch->idx);
		list_del(&ch->leak_node);
		dma_free_coherent(cdev->dev, PAGE_SIZE, ch->dbrec_page,
				  ch->dbrec_dma);
		kfree(ch);
	}
}

static struct cxen_channel *cxen_channel_create(struct cxen_priv *priv, int idx)
{
	struct cxen_dev *cdev = priv->cdev;
	struct cxen_channel *ch;
	dma_addr_t dma;
	int err;

	ch = kzalloc_node(sizeof(*ch), GFP_KERNEL, dev_to_node(cdev->dev));
	if (!ch)
		return ERR_PTR(-ENOMEM);
	ch->priv = priv;
	ch->idx = idx;
	ch->vector = cxen_channel_vector(priv, idx);
	ch->irq = cdev->irqs[ch->vector];

	ch->dbrec_page = dma_alloc_coherent(cdev->dev, PAGE_SIZE,
					    &ch->dbrec_dma, GFP_KERNEL);
	if (!ch->dbrec_page) {
		err = -ENOMEM;
		goto err_free_ch;
	}
	ch->rq.dbrec = cxen_dbrec(ch, CXEN_DBREC_RQ, &dma);
	ch->sq.dbrec = cxen_dbrec(ch, CXEN_DBREC_SQ, &dma);
	ch->rq.cq.dbrec = cxen_dbrec(ch, CXEN_DBREC_RQ_CQ, &dma);
	ch->sq.cq.dbrec = cxen_dbrec(ch, CXEN_DBREC_SQ_CQ, &dma);
	ch->xsq.dbrec = cxen_dbrec(ch, CXEN_DBREC_XSQ, &dma);
	ch->xsq.cq.dbrec = cxen_dbrec(ch, CXEN_DBREC_XSQ_CQ, &dma);

	netif_napi_add(priv->netdev, &ch->napi, cxen_napi_poll);
	netif_napi_set_irq(&ch->napi, ch->irq);
	cxen_dim_init(ch);

	err = cxen_rq_alloc(ch, &ch->rq);
	if (err)
		goto err_napi;
	err = cxen_sq_alloc(ch, &ch->sq, false);
	if (err)
		goto err_rq;
	if (ch->rq.xdp) {
		err = cxen_sq_alloc(ch, &ch->xsq, true);
		if (err)
			goto err_sq;
		ch->rq.xsq = &ch->xsq;
	}

	snprintf(ch->irq_name, sizeof(ch->irq_name), "%s-ch%d",
		 priv->netdev->name, idx);
	/* Shared: while a reconfiguration drains them, old and new channels of
	 * the same index live side by side on one vector.
	 */
	err = request_irq(ch->irq, cxen_channel_irq, IRQF_SHARED, ch->irq_name, ch);
	if (err) {
		netdev_err(priv->netdev, "cannot get IRQ %d for channel %d: %d\n",
			   ch->irq, idx, err);
		goto err_xsq;
	}
	return ch;

err_xsq:
	if (ch->rq.xdp && !cxen_xsq_free(&ch->xsq))
		ch->leaked |= CXEN_CH_LEAK_XSQ;
err_sq:
	if (!cxen_sq_free(&ch->sq))
		ch->leaked |= CXEN_CH_LEAK_SQ;
err_rq:
	if (!cxen_rq_free(&ch->rq))
		ch->leaked |= CXEN_CH_LEAK_RQ;
err_napi:
	netif_napi_del(&ch->napi);
	/* Queues the device may still use stay, with the records, until a reset. */
	if (ch->leaked) {
		cxen_channel_park(ch);
		return ERR_PTR(err);
	}
	/* A device that could not be reset may still write the records. */
	if (!test_bit(CXEN_DEV_DEAD, &cdev->state))
		dma_free_coherent(cdev->dev, PAGE_SIZE, ch->dbrec_page,
				  ch->dbrec_dma);
err_free_ch:
	kfree(ch);
	return ERR_PTR(err);
}

/*
 * Tear a stopped channel down. Its counters are final once its queues are
 * destroyed: they move into the port's base in the same critical section
 * that takes the channel off the stats' lists (the caller's), so totals
 * never go back. Queues the device may still use are left, marked in
 * @ch->leaked: the caller parks the channel (cxen_channel_park()).
 */
static void cxen_channel_teardown(struct cxen_channel *ch)
{
	struct cxen_priv *priv = ch->priv;

	/* NAPI is off: no new DIM work, the CQs outlive the last one. */
	cancel_work_sync(&ch->rx_dim.work);
	cancel_work_sync(&ch->tx_dim.work);
	free_irq(ch->irq, ch);
	if (!cxen_sq_free(&ch->sq))
		ch->leaked |= CXEN_CH_LEAK_SQ;
	/* XDP_TX pages go back to the pool before it goes. */
	if (ch->rq.xdp && !cxen_xsq_free(&ch->xsq))
		ch->leaked |= CXEN_CH_LEAK_XSQ;
	if (!cxen_rq_free(&ch->rq))
		ch->leaked |= CXEN_CH_LEAK_RQ;
	/* What the last polls and the teardown counted, before the fold. */
	cxen_rq_stats_publish(&ch->rq);
	netif_napi_del(&ch->napi);
	/* The doorbell records go with the queues, or stay with them. */
	if (!ch->leaked)
		dma_free_coherent(priv->cdev->dev, PAGE_SIZE, ch->dbrec_page,
				  ch->dbrec_dma);
}

/* ------------------------------------------------------------------ */
/* Channel sets                                                       */
/* ------------------------------------------------------------------ */

/*
 * Tear down and free every channel of @chans, and @chans; a channel with
 * queues the device may still use is parked instead.
 */
static void cxen_channels_free(struct cxen_priv *priv, struct cxen_chans *chans)
{
	unsigned int i;

	/* Torn-down channels' counters are final and still readable. */
	for (i = 0; i < chans->num; i++)
		cxen_channel_teardown(chans->ch[i]);
	spin_lock_bh(&priv->stats_lock);
	for (i = 0; i < chans->num; i++)
		cxen_channel_fold(chans->ch[i]);
	if (priv->draining == chans)
		priv->draining = NULL;
	spin_unlock_bh(&priv->stats_lock);
	for (i = 0; i < chans->num; i++) {
		if (chans->ch[i]->leaked)
			cxen_channel_park(chans->ch[i]);
		else
			kfree(chans->ch[i]);
	}
	kfree(chans);
}

static struct cxen_chans *cxen_channels_create(struct cxen_priv *priv,
					       unsigned int n)
{
	struct cxen_chans *chans;
	unsigned int i;
	int err;

	chans = kzalloc(struct_size(chans, ch, n), GFP_KERNEL);
	if (!chans)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < n; i++) {
		struct cxen_channel *ch = cxen_channel_create(priv, i);

		if (IS_ERR(ch)) {
			err = PTR_ERR(ch);
			goto err_destroy;
		}
		chans->ch[i] = ch;
		chans->num = i + 1;
	}
	return chans;

err_destroy:
	cxen_channels_free(priv, chans);
	return ERR_PTR(err);
}

/* An SQ a device reset made the device forget: it completes nothing more. */
static bool cxen_sq_forgotten(const struct cxen_sq *sq)
{
	return sq->hw_gen != READ_ONCE(sq->cdev->hw_gen);
}

/* The channel's XDP SQ, if any, holds nothing the device will complete. */
static bool cxen_xsq_quiet(struct cxen_channel *ch)
{
	return !ch->rq.xdp ||
	       ((cxen_xsq_idle(&ch->xsq) || cxen_sq_forgotten(&ch->xsq)) &&
		!cxen_cqe_owned(&ch->xsq.cq));
}

static bool cxen_channel_quiet(struct cxen_channel *ch)
{
	return READ_ONCE(ch->sq.ci) == ch->sq.pi &&
	       !cxen_cqe_owned(&ch->sq.cq) && !cxen_cqe_owned(&ch->rq.cq) &&
	       cxen_xsq_quiet(ch);
}

/*
 * Whether the SQs of @chans feed their TX queues. Taken away before TX
 * stops for a switch or a close: completions reaped while the old SQs
 * drain must not start the queues again, or the stack would keep
 * filling SQs that are on their way out.
 */
static void cxen_channels_serve(struct cxen_chans *chans, bool serving)
{
	unsigned int i;

	for (i = 0; i < chans->num; i++)
		cxen_sq_serve(&chans->ch[i]->sq, serving);
}

/*
 * With TX stopped, let the old SQs complete what they hold: the TX queues'
 * BQL state passes to the new SQs, so the old ones must be done with it.
 * An SQ the device does not complete within a second, or one it forgot in
 * a reset, is destroyed and its packets dropped and counted.
 */
static void cxen_channels_drain_tx(struct cxen_priv *priv,
				   struct cxen_chans *chans)
{
	unsigned long deadline = jiffies + HZ;
	bool done, late = false;
	unsigned int i;

	do {
		done = true;
		local_bh_disable();
		for (i = 0; i < chans->num; i++) {
			struct cxen_channel *ch = chans->ch[i];

			if (READ_ONCE(ch->sq.ci) == ch->sq.pi ||
			    cxen_sq_forgotten(&ch->sq))
				continue;
			done = false;
			napi_schedule(&ch->napi);
		}
		local_bh_enable();
		if (!done)
			usleep_range(200, 500);
	} while (!done && time_before(jiffies, deadline));

	for (i = 0; i < chans->num; i++) {
		struct cxen_channel *ch = chans->ch[i];
		struct cxen_sq *sq = &ch->sq;

		if (READ_ONCE(sq->ci) == sq->pi)
			continue;
		if (!cxen_sq_forgotten(sq)) {
			if (!late)
				netdev_warn(priv->netdev, "TX queues did not complete in a second: dropping what they hold\n");
			late = true;
			cxen_sq_report(ch, "giving up on");
		}
		/* A device that may still read them keeps its packets. */
		if (cxen_sq_stop_hw(sq))
			continue;
		/*
		 * Reap every CQE written before the destroy (each one, not a
		 * batch: one left behind would count as a bad CQE later),
		 * then drop the rest.
		 */
		napi_disable(&ch->napi);
		cxen_sq_reap_all(sq);
		cxen_sq_drop_pending(sq);
		napi_enable(&ch->napi);
	}
}

/*
 * Let channels that no longer receive new work finish: destroy their RQs
 * in the device, have NAPI reap the last RX CQEs and TX completions, then
 * stop NAPI. SQs the device never completes (stalled, in error) are given
 * up after a second: their packets are dropped and counted.
 */
static void cxen_channels_drain(struct cxen_priv *priv,
				struct cxen_chans *chans)
{
	unsigned long deadline;
	unsigned int i;
	bool quiet;

	for (i = 0; i < chans->num; i++)
		cxen_rq_stop_hw(&chans->ch[i]->rq);
	/* The second starts now: each DESTROY_RQ above may take a while. */
	deadline = jiffies + HZ;
	do {
		quiet = true;
		local_bh_disable();
		for (i = 0; i < chans->num; i++) {
			if (cxen_channel_quiet(chans->ch[i]))
				continue;
			quiet = false;
			/* Each poll flushes the XDP SQ it posted to. */
			napi_schedule(&chans->ch[i]->napi);
		}
		local_bh_enable();
		if (!quiet)
			usleep_range(500, 1000);
	} while (!quiet && time_before(jiffies, deadline));
	if (!quiet)
		netdev_warn(priv->netdev, "old queues did not drain in a second: dropping what they hold\n");
	for (i = 0; i < chans->num; i++) {
		struct cxen_channel *ch = chans->ch[i];

		napi_disable(&ch->napi);
		if (!quiet && !cxen_channel_quiet(ch))
			netdev_warn(priv->netdev, "queue %u: SQ %u pi %u ci %u, its CQ %u ci %u %s; RQ %u CQ %u ci %u %s\n",
				    i, ch->sq.sqn, ch->sq.pi, ch->sq.ci,
				    ch->sq.cq.cqn, ch->sq.cq.ci,
				    cxen_cqe_owned(&ch->sq.cq) ? "has CQEs" : "empty",
				    ch->rq.rqn, ch->rq.cq.cqn, ch->rq.cq.ci,
				    cxen_cqe_owned(&ch->rq.cq) ? "has CQEs" : "empty");
		if (!quiet && !cxen_xsq_quiet(ch))
			netdev_warn(priv->netdev, "queue %u: XDP SQ %u pi %u ci %u, its CQ %u ci %u %s: what it holds is dropped\n",
				    i, ch->xsq.sqn, ch->xsq.pi, ch->xsq.ci,
				    ch->xsq.cq.cqn, ch->xsq.cq.ci,
				    cxen_cqe_owned(&ch->xsq.cq) ? "has CQEs" : "empty");
	}
}

/*
 * Enable the new set's NAPI and arm its CQs before any frame is steered to
 * it: its RX rings must be served from the first frame on, while TX still
 * runs on the old set.
 */
static void cxen_channels_start(struct cxen_priv *priv,
				struct cxen_chans *chans)
{
	unsigned int i;

	for (i = 0; i < chans->num; i++) {
		napi_enable(&chans->ch[i]->napi);
		cxen_cq_arm(priv->cdev, &chans->ch[i]->sq.cq);
		cxen_cq_arm(priv->cdev, &chans->ch[i]->rq.cq);
		if (chans->ch[i]->rq.xdp)
			cxen_cq_arm(priv->cdev, &chans->ch[i]->xsq.cq);
	}
}

/*
 * Tie the stack's queues @from..@to - 1 to the NAPI instances of
 * @chans (NULL: to none).
 */
static void cxen_channels_link(struct cxen_priv *priv,
			       struct cxen_chans *chans, unsigned int from,
			       unsigned int to)
{
	unsigned int i;

	for (i = from; i < to; i++) {
		struct napi_struct *napi = chans ? &chans->ch[i]->napi : NULL;

		netif_queue_set_napi(priv->netdev, i, NETDEV_QUEUE_TYPE_RX, napi);
		netif_queue_set_napi(priv->netdev, i, NETDEV_QUEUE_TYPE_TX, napi);
	}
}

/*
 * Make @chans the running set (NULL: none) with TX paused; the set that
 * ran becomes the draining one, which the stats keep reading until
 * cxen_channels_free().
 */
static void cxen_channels_publish(struct cxen_priv *priv,
				  struct cxen_chans *chans)
{
	struct cxen_chans *old = cxen_chans_rtnl(priv);

	spin_lock_bh(&priv->stats_lock);
	priv->draining = old;
	rcu_assign_pointer(priv->chans, chans);
	spin_unlock_bh(&priv->stats_lock);
	/* No xmit still uses the old set once this returns. */
	synchronize_net();
}

/* The port's MTU in the device: what it accepts from the wire. */
static int cxen_set_port_mtu(struct cxen_priv *priv, u32 mtu,
			     struct netlink_ext_ack *extack)
{
	int err;

	err = cxen_cmd_set_port(priv->cdev, priv->port, CXEN_PORT_SET_MTU,
				mtu, false);
	if (err) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "device refused MTU %u", mtu);
		if (!extack)
			netdev_err(priv->netdev, "device refused MTU %u: %d\n",
				   mtu, err);
	}
	return err;
}

/* RX back to @old (NULL: nothing to do) with the port's RSS table. */
static void cxen_rss_restore(struct cxen_priv *priv, struct cxen_chans *old)
{
	if (old && cxen_rss_apply(priv, priv->rss_key, priv->rss_indir, old))
		netdev_err(priv->netdev, "cannot steer RX back to the old queues\n");
}

/*
 * Steer RX to @chans, with the port's MTU changed from @old_mtu to
 * @new_mtu on the side of the move that keeps every accepted frame
 * within the buffers of the RQ it lands in: down before RX moves to the
 * new set's smaller buffers, up only after it moved to larger ones. On
 * failure, undone. @indir: the RSS table for @chans.
 */
static int cxen_channels_steer(struct cxen_priv *priv, struct cxen_chans *chans,
			       struct cxen_chans *old, const u32 *indir,
			       u32 old_mtu, u32 new_mtu,
			       struct netlink_ext_ack *extack)
{
	bool set_mtu = new_mtu != old_mtu || !old;
	bool mtu_first = set_mtu && new_mtu < old_mtu;
	int err;

	if (mtu_first) {
		err = cxen_set_port_mtu(priv, new_mtu, extack);
		if (err)
			return err;
	}
	err = cxen_rss_apply(priv, priv->rss_key, indir, chans);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "device refused to steer RX to the new queues");
		goto err_mtu_first;
	}
	if (set_mtu && !mtu_first) {
		err = cxen_set_port_mtu(priv, new_mtu, extack);
		if (err)
			goto err_steer_back;
	}
	return 0;

err_steer_back:
	cxen_rss_restore(priv, old);
err_mtu_first:
	if (mtu_first)
		cxen_set_port_mtu(priv, old_mtu, NULL);
	return err;
}

/*
 * Undo cxen_channels_steer(): RX back to @old (the port's RSS table),
 * the MTU back from @new_mtu to @old_mtu, in the safe order.
 */
static void cxen_channels_unsteer(struct cxen_priv *priv,
				  struct cxen_chans *old, u32 old_mtu,
				  u32 new_mtu)
{
	if (new_mtu > old_mtu)
		cxen_set_port_mtu(priv, old_mtu, NULL);
	cxen_rss_restore(priv, old);
	if (new_mtu < old_mtu)
		cxen_set_port_mtu(priv, old_mtu, NULL);
}

/*
 * Move TX from @old (NULL: none) to @chans: pause it, resize the stack's
 * TX queues, let the old SQs finish, publish @chans, resume. The resize
 * comes before the drain: if it fails, the old SQs resume whole, none
 * given up, and TX runs on @old as before.
 */
static int cxen_channels_switch_tx(struct cxen_priv *priv,
				   struct cxen_chans *chans,
				   struct cxen_chans *old,
				   struct netlink_ext_ack *extack)
{
	struct net_device *netdev = priv->netdev;
	unsigned int old_n = old ? old->num : 0;
	int err;

	if (old)
		cxen_channels_serve(old, false);
	netif_tx_disable(netdev);
	err = netif_set_real_num_tx_queues(netdev, chans->num);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "cannot resize the stack's queues: old ones kept");
		netif_set_real_num_tx_queues(netdev, old_n ? old_n : 1);
		if (old)
			cxen_channels_serve(old, true);
		netif_tx_wake_all_queues(netdev);
		return err;
	}
	if (old)
		cxen_channels_drain_tx(priv, old);
	cxen_channels_publish(priv, chans);
	cxen_channels_link(priv, chans, 0, chans->num);
	cxen_channels_serve(chans, true);
	netif_tx_wake_all_queues(netdev);
	return 0;
}

/**
 * cxen_channels_switch() - replace the running channel set without a gap
 * @priv: the port, running or being opened
 * @params: the parameters of the new set (become priv->params on success)
 * @extack: for the user-facing error, may be NULL
 *
 * The sequence at the top of this file. Caller holds RTNL.
 *
 * Return: 0, or a negative errno with the old set (if any) still running.
 */
int cxen_channels_switch(struct cxen_priv *priv,
			 const struct cxen_params *params,
			 struct netlink_ext_ack *extack)
{
	struct cxen_chans *old = cxen_chans_rtnl(priv), *chans;
	unsigned int old_rxq = priv->netdev->real_num_rx_queues;
	struct cxen_params old_params = priv->params;
	u32 indir[CXEN_RSS_TABLE_SIZE];
	int err;

	/* Channel creation reads the parameters from priv. */
	priv->params = *params;
	chans = cxen_channels_create(priv, params->num_channels);
	if (IS_ERR(chans)) {
		NL_SET_ERR_MSG_MOD(extack, "cannot allocate the new queues: old ones kept");
		priv->params = old_params;
		return PTR_ERR(chans);
	}
	cxen_channels_start(priv, chans);

	/*
	 * The stack's RX queue count covers every RQ that may deliver a
	 * frame (RPS looks the queue up): it grows before RX is steered to
	 * more RQs, and shrinks only once the old ones drained.
	 */
	if (chans->num > old_rxq) {
		err = netif_set_real_num_rx_queues(priv->netdev, chans->num);
		if (err) {
			NL_SET_ERR_MSG_MOD(extack,
					   "cannot grow the stack's RX queues: old ones kept");
			goto err_drain;
		}
	}
	cxen_rss_indir_for(priv, chans->num, indir);
	err = cxen_channels_steer(priv, chans, old, indir, old_params.mtu,
				  params->mtu, extack);
	if (err)
		goto err_drain;
	err = cxen_channels_switch_tx(priv, chans, old, extack);
	if (err)
		goto err_unsteer;
	memcpy(priv->rss_indir, indir, sizeof(indir));

	if (old) {
		cxen_channels_drain(priv, old);
		if (old->num > chans->num)
			cxen_channels_link(priv, NULL, chans->num, old->num);
		cxen_channels_free(priv, old);
	}
	/* Fewer queues than before: cannot fail. */
	if (chans->num < old_rxq)
		netif_set_real_num_rx_queues(priv->netdev, chans->num);
	return 0;

err_unsteer:
	cxen_channels_unsteer(priv, old, old_params.mtu, params->mtu);
err_drain:
	/* Frames the new set received meanwhile went up the stack. */
	cxen_channels_drain(priv, chans);
	if (chans->num > old_rxq)
		netif_set_real_num_rx_queues(priv->netdev, old_rxq);
	cxen_channels_free(priv, chans);
	priv->params = old_params;
	return err;
}

/**
 * cxen_channels_close() - stop the datapath of a port
 * @priv: the port
 *
 * TX first, then drain and free every channel. Caller holds RTNL.
 */
void cxen_channels_close(struct cxen_priv *priv)
{
	struct cxen_chans *chans = cxen_chans_rtnl(priv);

	if (!chans)
		return;
	cxen_channels_serve(chans, false);
	netif_tx_disable(priv->netdev);
	cxen_channels_drain_tx(priv, chans);
	cxen_channels_publish(priv, NULL);
	cxen_channels_drain(priv, chans);
	cxen_channels_link(priv, NULL, 0, chans->num);
	cxen_channels_free(priv, chans);
}

/**
 * cxen_channels_xdp_swap() - give the running RQs another XDP program
 * @priv: the port, RTNL held; its channels (if any) were built for XDP
 * @prog: the new program, not NULL
 *
 * A replace needs no new queues: the buffers of a program with or without
 * frags support are the same (cxen_xdp_check() refused what would not
 * fit). Each RQ takes @prog at its next NAPI poll; the caller puts the
 * old program, which the RCU grace period of its release outlives every
 * poll still running it.
 */
void cxen_channels_xdp_swap(struct cxen_priv *priv, struct bpf_prog *prog)
{
	struct cxen_chans *chans = cxen_chans_rtnl(priv);
	unsigned int i;

	ASSERT_RTNL();
	for (i = 0; chans && i < chans->num; i++)
		rcu_assign_pointer(chans->ch[i]->rq.xdp_prog, prog);
}

/* ------------------------------------------------------------------ */
/* The port's state as its parameters and the device make it          */
/* ------------------------------------------------------------------ */

/**
 * cxen_update_carrier() - set the carrier from the device's link state
 * @priv: the port
 *
 * Sleeps (a mailbox command). Carrier is on only for a running port with
 * queues whose link the device reports up.
 */
void cxen_update_carrier(struct cxen_priv *priv)
{
	struct cxen_port_info info;
	bool up = false;

	if (!cxen_cmd_query_port(priv->cdev, priv->port, &info))
		up = be32_to_cpu(info.state) & CXEN_PORT_STATE_LINK_UP;
	if (up && netif_running(priv->netdev) && rcu_access_pointer(priv->chans))
		netif_carrier_on(priv->netdev);
	else
		netif_carrier_off(priv->netdev);
}
