// SPDX-License-Identifier: GPL-2.0
/*
 * cxen: TX health and recovery.
 *
 * Two watchers find a TX queue that stopped completing: the stack's
 * watchdog (ndo_tx_timeout, stopped queues only) and a check of the
 * others once a second. Either, or an SQ in the error state (en_tx.c),
 * marks the SQ with cxen_sq_schedule_reset() (en.h), and the reset work
 * rebuilds that one SQ under RTNL while the rest of the port keeps
 * running.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>

#include "en.h"

/**
 * cxen_sq_report() - log what is done to a stuck SQ
 * @ch: its channel
 * @what: what is done ("resetting", "giving up on")
 *
 * The driver's and then the device's view of the SQ, for whoever reads
 * the log. Process context.
 */
void cxen_sq_report(struct cxen_channel *ch, const char *what)
{
	struct cxen_priv *priv = ch->priv;
	struct cxen_sq *sq = &ch->sq;
	struct cxen_wq_state st;

	netdev_warn(priv->netdev, "TX queue %d: %s SQ %u (pi %u ci %u, CQ %u ci %u)\n",
		    ch->idx, what, sq->sqn, sq->pi, READ_ONCE(sq->ci),
		    sq->cq.cqn, sq->cq.ci);
	if (cxen_cmd_query_wq(priv->cdev, CXEN_CMD_QUERY_SQ, sq->sqn, &st))
		return;
	netdev_warn(priv->netdev, "TX queue %d: device SQ %u: %s, consumed %u of %u, %llu WQEs, %llu frames, %llu dropped, %llu error CQEs, %llu flushed\n",
		    ch->idx, sq->sqn,
		    be32_to_cpu(st.flags) & CXEN_WQ_STATE_ERROR ? "in error" : "ok",
		    be16_to_cpu(st.cons), be16_to_cpu(st.pi),
		    be64_to_cpu(st.wqes), be64_to_cpu(st.frames),
		    be64_to_cpu(st.drops), be64_to_cpu(st.error_cqes),
		    be64_to_cpu(st.flushed));
}

/*
 * Rebuild one channel's SQ through the mailbox while the rest of the port
 * keeps running: stop its TX queue and NAPI, destroy the SQ and its CQ
 * (packets never sent are dropped and counted), create them again.
 */
static int cxen_sq_recover(struct cxen_channel *ch)
{
	struct cxen_priv *priv = ch->priv;
	struct cxen_sq *sq = &ch->sq;
	int err;

	cxen_sq_report(ch, "resetting");
	cxen_sq_serve(sq, false);
	napi_disable(&ch->napi);

	cxen_sq_free(sq);
	err = cxen_sq_alloc(ch, sq);

	napi_enable(&ch->napi);
	if (err) {
		netdev_err(priv->netdev, "TX queue %d: cannot create a new SQ (%d): the queue stays stopped until the port is reconfigured\n",
			   ch->idx, err);
		return err;
	}
	cxen_cq_arm(priv->cdev, &sq->cq);
	cxen_cq_arm(priv->cdev, &ch->rq.cq);
	cxen_sq_serve(sq, true);
	netif_tx_wake_queue(sq->txq);
	atomic64_inc(&priv->port_stats.tx_recovers);
	return 0;
}

static void cxen_reset_work(struct work_struct *work)
{
	struct cxen_priv *priv = container_of(work, struct cxen_priv, reset_work);
	struct cxen_chans *chans;
	unsigned int i;

	rtnl_lock();
	/* SQs of sets switched away meanwhile went with their marks. */
	chans = cxen_chans_rtnl(priv);
	for (i = 0; chans && i < chans->num; i++)
		if (test_and_clear_bit(CXEN_SQ_RESET, &chans->ch[i]->sq.state))
			cxen_sq_recover(chans->ch[i]);
	rtnl_unlock();
}

/**
 * cxen_tx_timeout() - the stack's watchdog found a TX queue stuck
 * @netdev: the port
 * @txqueue: the queue
 */
void cxen_tx_timeout(struct net_device *netdev, unsigned int txqueue)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_chans *chans;

	atomic64_inc(&priv->port_stats.tx_timeouts);
	rcu_read_lock();
	chans = rcu_dereference(priv->chans);
	if (chans && txqueue < chans->num) {
		struct cxen_sq *sq = &chans->ch[txqueue]->sq;

		netdev_err(netdev, "TX timeout on queue %u: SQ %u pi %u ci %u, CQ %u ci %u\n",
			   txqueue, sq->sqn, sq->pi, READ_ONCE(sq->ci), sq->cq.cqn,
			   sq->cq.ci);
		cxen_sq_schedule_reset(sq);
	}
	rcu_read_unlock();
}

/*
 * An SQ hangs when it has WQEs outstanding and its consumer counter has
 * not moved for @timeo. Armed again after each report, so a queue that
 * stays stuck is reported (and reset) once per @timeo at most.
 */
static bool cxen_sq_hung(struct cxen_sq *sq, unsigned long now,
			 unsigned long timeo)
{
	u32 ci = READ_ONCE(sq->ci);

	if (ci == READ_ONCE(sq->pi) || ci != sq->hang_ci || !sq->hang_since) {
		sq->hang_ci = ci;
		sq->hang_since = now;
		return false;
	}
	if (!time_after(now, sq->hang_since + timeo))
		return false;
	sq->hang_since = now;
	return true;
}

/*
 * The stack's watchdog looks only at stopped TX queues, and a sender
 * usually stops at its socket's send buffer long before a stuck ring
 * fills: check the other live SQs here, once a second while the port is
 * up. Without carrier the device drops what it is given, and the check
 * is disarmed.
 */
static void cxen_health_work(struct work_struct *work)
{
	struct cxen_priv *priv = container_of(to_delayed_work(work),
					      struct cxen_priv, health_work);
	struct net_device *netdev = priv->netdev;
	bool carrier = netif_carrier_ok(netdev);
	unsigned long now = jiffies;
	struct cxen_chans *chans;
	unsigned int i;

	spin_lock_bh(&priv->stats_lock);
	chans = cxen_chans_rtnl(priv);
	for (i = 0; chans && i < chans->num; i++) {
		struct cxen_sq *sq = &chans->ch[i]->sq;

		/* A stopped queue is the stack's watchdog's (tx_timeout). */
		if (!carrier || netif_xmit_stopped(sq->txq)) {
			sq->hang_since = 0;
			continue;
		}
		if (!cxen_sq_hung(sq, now, netdev->watchdog_timeo))
			continue;
		atomic64_inc(&priv->port_stats.tx_hangs);
		netdev_err(netdev, "TX queue %u: no completion for %u ms with %u WQEs outstanding (SQ %u pi %u ci %u)\n",
			   i, jiffies_to_msecs(netdev->watchdog_timeo),
			   READ_ONCE(sq->pi) - READ_ONCE(sq->ci), sq->sqn,
			   READ_ONCE(sq->pi), READ_ONCE(sq->ci));
		cxen_sq_schedule_reset(sq);
	}
	spin_unlock_bh(&priv->stats_lock);
	schedule_delayed_work(&priv->health_work, round_jiffies_relative(HZ));
}

/**
 * cxen_health_init() - set up a port's TX recovery and health check
 * @priv: the port, not registered yet
 */
void cxen_health_init(struct cxen_priv *priv)
{
	INIT_WORK(&priv->reset_work, cxen_reset_work);
	INIT_DELAYED_WORK(&priv->health_work, cxen_health_work);
}

/**
 * cxen_health_start() - start the once-a-second check of an open port
 * @priv: the port
 */
void cxen_health_start(struct cxen_priv *priv)
{
	schedule_delayed_work(&priv->health_work, round_jiffies_relative(HZ));
}

/**
 * cxen_health_stop() - stop the check of a port being closed
 * @priv: the port
 *
 * Resets still pending go with the channels: new ones start with fresh
 * SQs.
 */
void cxen_health_stop(struct cxen_priv *priv)
{
	cancel_delayed_work_sync(&priv->health_work);
}

/**
 * cxen_health_cleanup() - wait for a reset in flight, the port unregistered
 * @priv: the port
 */
void cxen_health_cleanup(struct cxen_priv *priv)
{
	cancel_work_sync(&priv->reset_work);
}
