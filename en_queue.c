// SPDX-License-Identifier: GPL-2.0
/*
 * cxen per-queue restart: struct netdev_queue_mgmt_ops, one RX queue's RQ
 * rebuilt with fresh memory while every other queue keeps running.
 *
 *   mem_alloc  builds a whole RQ beside the running one: its CQ on the
 *              channel's vector, page_pool, buffers posted, created on the
 *              device in the channel's spare doorbell records and named by
 *              no RSS entry, so it receives nothing yet.
 *   stop       steers the queue's RSS entries to that new RQ (or, when no
 *              new one was built for it, to the next queue), destroys the
 *              old RQ on the device, has NAPI take its last completions,
 *              then stops the channel's NAPI and moves the old RQ out of
 *              the channel into the caller's memory.
 *   start      moves the new RQ in, points the queue's RSS entries at it
 *              and starts NAPI again, which takes what waited in it. It
 *              does not fail: the core's error path would restart an RQ
 *              the device no longer has.
 *   mem_free   frees an RQ no channel holds: the old one after a restart,
 *              or a new one that was never started.
 *
 * RSS moves before the old RQ is destroyed, so the queue's share of the
 * traffic is not dropped on the way. The old RQ's counters stay in the
 * port's totals as priv->retired_rq until mem_free folds them into the
 * base. The channel's TX keeps its SQ; only its completions wait while
 * NAPI is stopped.
 *
 * The core calls these ops to bind device memory to a queue (netdev
 * bind-rx), which cxen refuses in mem_alloc until its pools take
 * unreadable netmem. 6.12 does not export netdev_rx_queue_restart(), so
 * cxen_rx_queue_restart() runs the same sequence for the driver's own
 * users (debugfs rx_queue_restart).
 * The memory the core passes around is a struct cxen_rq; one whose ch is
 * NULL holds nothing (never built, or moved into its channel).
 * Everything here runs under RTNL.
 */
#include <kunit/visibility.h>
#include <net/netdev_queues.h>
#include <net/netdev_rx_queue.h>

#include "en_rx.h"

/* The running channel of queue @idx, or NULL (port down, no such queue). */
static struct cxen_channel *cxen_queue_channel(struct cxen_priv *priv, int idx)
{
	struct cxen_chans *chans = cxen_chans_rtnl(priv);

	if (!chans || idx < 0 || idx >= chans->num)
		return NULL;
	return chans->ch[idx];
}

static void cxen_queue_mem_free(struct net_device *netdev, void *mem)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_rq *rq = mem;

	ASSERT_RTNL();
	if (!rq->ch)
		return;
	if (priv->pending_rq == rq)
		priv->pending_rq = NULL;
	/*
	 * The old RQ's pool was untied from the NAPI in stop; a new RQ never
	 * started is ->beside: its pool is let go with the NAPI stopped.
	 * false: the device may still write into it, its memory stays.
	 */
	cxen_rq_free(rq);
	cxen_rq_stats_publish(rq);
	spin_lock_bh(&priv->stats_lock);
	cxen_rq_fold(priv, rq);
	if (priv->retired_rq == rq)
		priv->retired_rq = NULL;
	spin_unlock_bh(&priv->stats_lock);
	rq->ch = NULL;
}

static int cxen_queue_mem_alloc(struct net_device *netdev, void *mem, int idx)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_rq *rq = mem;
	struct cxen_channel *ch;
	int err;

	ASSERT_RTNL();
	/*
	 * A memory provider (devmem TCP, netdev bind-rx) needs a pool of
	 * unreadable netmem and a queue that never reads its payload: not
	 * supported yet. Refused here, so the queue keeps its host pages
	 * and the bind fails instead of seeming to work.
	 */
	if (__netif_get_rx_queue(netdev, idx)->mp_params.mp_priv) {
		netdev_err(netdev, "RX queue %d: device memory (devmem TCP) is not supported: bind refused, the queue keeps host pages\n",
			   idx);
		return -EOPNOTSUPP;
	}
	ch = cxen_queue_channel(priv, idx);
	if (!ch)
		return -ENETDOWN;
	if (test_bit(CXEN_DEV_DEAD, &priv->cdev->state))
		return -EIO;
	if (priv->stopped_rq || priv->pending_rq)
		return -EBUSY;
	cxen_channel_spare_dbrecs(ch, rq);
	rq->beside = true;
	err = cxen_rq_alloc(ch, rq);
	if (err) {
		rq->ch = NULL;
		return err;
	}
	/* The channel's XDP SQ takes this RQ's XDP_TX too: same kind. */
	if (WARN_ON_ONCE(rq->xdp != ch->rq.xdp)) {
		cxen_queue_mem_free(netdev, rq);
		return -EBUSY;
	}
	rq->xsq = ch->rq.xsq;
	priv->pending_rq = rq;
	return 0;
}

static int cxen_queue_stop(struct net_device *netdev, void *mem, int idx)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_rq *rq = mem, *next = priv->pending_rq;
	struct cxen_chans *chans = cxen_chans_rtnl(priv);
	struct cxen_rq *detour = NULL;
	struct cxen_channel *ch;
	int err;

	ASSERT_RTNL();
	ch = cxen_queue_channel(priv, idx);
	if (!ch)
		return -ENETDOWN;
	if (priv->stopped_rq)
		return -EBUSY;

	/* Where the queue's traffic goes while it has no running RQ. */
	if (next && next->ch == ch)
		detour = next;
	else if (chans->num > 1)
		detour = &chans->ch[(idx + 1) % chans->num]->rq;
	if (detour) {
		err = cxen_rss_steer_queue(priv, idx, detour->rqn);
		if (err) {
			netdev_err(netdev, "RX queue %d: device refused to steer its traffic away (%d): not restarted\n",
				   idx, err);
			return err;
		}
	}
	/* Its last CQE is written when DESTROY returns: take them all. */
	err = cxen_rq_stop_hw(&ch->rq);
	if (err) {
		if (detour && cxen_rss_steer_queue(priv, idx, ch->rq.rqn))
			netdev_err(netdev, "RX queue %d: cannot steer RSS back to RQ %u\n",
				   idx, ch->rq.rqn);
		return err;
	}
	if (!cxen_napi_reap(ch, &ch->rq.cq))
		netdev_warn(netdev, "RX queue %d: completions not taken in a second: dropped\n",
			    idx);
	napi_disable(&ch->napi);
	/* Its pool recycles from this NAPI no more: freed while NAPI runs. */
	if (ch->rq.pool)
		page_pool_disable_direct_recycling(ch->rq.pool);
	/* The old pool goes with the old RQ: nothing may still send its pages. */
	if (!cxen_xsq_drain(ch))
		netdev_warn(netdev, "RX queue %d: XDP_TX frames not sent in %u ms: the device may read pages of the old RQ\n",
			    idx, CXEN_CMD_TIMEOUT_MS);
	/* The interrupt handler reads the RQ's CQ, which is about to move. */
	disable_irq(ch->irq);
	cancel_work_sync(&ch->rx_dim.work);
	cancel_delayed_work_sync(&ch->rq.refill_work);
	cxen_rq_stats_publish(&ch->rq);
	cxen_rq_move(rq, &ch->rq);
	priv->stopped_rq = rq;
	return 0;
}

static int cxen_queue_start(struct net_device *netdev, void *mem, int idx)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_rq *rq = mem, *old = priv->stopped_rq;
	struct cxen_channel *ch;
	int err;

	ASSERT_RTNL();
	ch = cxen_queue_channel(priv, idx);
	/* RTNL held since stop: the channel is the one stop left. */
	if (WARN_ON_ONCE(!ch || !old))
		return -EINVAL;
	priv->stopped_rq = NULL;
	if (rq != old) {
		cancel_delayed_work_sync(&rq->refill_work);
		spin_lock_bh(&priv->stats_lock);
		cxen_rq_move(&ch->rq, rq);
		ch->rq.beside = false;
		priv->retired_rq = old;
		spin_unlock_bh(&priv->stats_lock);
		cxen_rx_dim_restart(ch);
		rq->ch = NULL;
		if (priv->pending_rq == rq)
			priv->pending_rq = NULL;
	} else {
		/* Only the core's error path starts the old memory again. */
		netdev_err(netdev, "RX queue %d: its old RQ %u is destroyed: the queue receives nothing until the port is reconfigured\n",
			   idx, ch->rq.rqn);
	}

	err = cxen_rss_steer_queue(priv, idx, ch->rq.rqn);
	if (err)
		netdev_err(netdev, "RX queue %d: device refused to steer RSS to RQ %u (%d): set the RSS table again (ethtool -X)\n",
			   idx, ch->rq.rqn, err);
	enable_irq(ch->irq);
	napi_enable(&ch->napi);
	cxen_channel_kick(ch);
	if (rq != old)
		atomic64_inc(&priv->port_stats.rx_queue_restarts);
	return 0;
}

const struct netdev_queue_mgmt_ops cxen_queue_mgmt_ops = {
	.ndo_queue_mem_size	= sizeof(struct cxen_rq),
	.ndo_queue_mem_alloc	= cxen_queue_mem_alloc,
	.ndo_queue_mem_free	= cxen_queue_mem_free,
	.ndo_queue_start	= cxen_queue_start,
	.ndo_queue_stop		= cxen_queue_stop,
};

/**
 * cxen_rx_queue_restart() - rebuild one RX queue while the others run
 * @priv: the port
 * @idx: the queue
 *
 * The core's netdev_rx_queue_restart() sequence, on cxen_queue_mgmt_ops
 * (6.12 does not export it). Under RTNL; sleeps.
 *
 * Return: 0, or a negative errno with the queue running as before
 * (-ENETDOWN: the port is down or has no queue @idx).
 */
int cxen_rx_queue_restart(struct cxen_priv *priv, unsigned int idx)
{
	const struct netdev_queue_mgmt_ops *ops = &cxen_queue_mgmt_ops;
	struct net_device *netdev = priv->netdev;
	struct cxen_rq *new_mem, *old_mem;
	int err = -ENOMEM;

	ASSERT_RTNL();
	if (idx > INT_MAX)
		return -ENETDOWN;
	new_mem = kvzalloc(sizeof(*new_mem), GFP_KERNEL);
	old_mem = kvzalloc(sizeof(*old_mem), GFP_KERNEL);
	if (!new_mem || !old_mem)
		goto out;
	err = ops->ndo_queue_mem_alloc(netdev, new_mem, idx);
	if (err)
		goto out;
	err = ops->ndo_queue_stop(netdev, old_mem, idx);
	if (err) {
		ops->ndo_queue_mem_free(netdev, new_mem);
		goto out;
	}
	WARN_ON_ONCE(ops->ndo_queue_start(netdev, new_mem, idx));
	ops->ndo_queue_mem_free(netdev, old_mem);
out:
	kvfree(old_mem);
	kvfree(new_mem);
	return err;
}

/**
 * cxen_rx_queues_switch() - apply a change one RX queue at a time
 * @priv: the port, running
 * @params: the new parameters (cxen_rx_queues_only() of the port's)
 * @extack: why it failed
 *
 * Each RX queue is restarted on @params while the others run, so the
 * port needs the memory of one more RQ, not of a second channel set. If
 * one cannot be, the queues already restarted are restarted again on the
 * old parameters. Under RTNL.
 *
 * Return: 0 or a negative errno.
 */
int cxen_rx_queues_switch(struct cxen_priv *priv,
			  const struct cxen_params *params,
			  struct netlink_ext_ack *extack)
{
	unsigned int i, n = cxen_chans_rtnl(priv)->num;
	struct cxen_params old = priv->params;
	int err = 0;

	ASSERT_RTNL();
	/* RQs are built from the port's parameters. */
	priv->params = *params;
	for (i = 0; i < n && !err; i++)
		err = cxen_rx_queue_restart(priv, i);
	if (!err)
		return 0;

	i--;
	if (i)
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "RX queue %u could not be rebuilt (%pe): queues 0-%u go back to the old configuration",
				       i, ERR_PTR(err), i - 1);
	else
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "RX queue 0 could not be rebuilt (%pe): nothing changed",
				       ERR_PTR(err));
	priv->params = old;
	while (i--)
		if (cxen_rx_queue_restart(priv, i))
			netdev_err(priv->netdev, "RX queue %u could not be rebuilt back: it keeps the new RX configuration until the next reconfiguration\n",
				   i);
	return err;
}
