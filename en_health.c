// SPDX-License-Identifier: GPL-2.0
/*
 * cxen: queue health and recovery, and the devlink health reporters.
 *
 * Finding a fault. Two watchers find a TX queue that stopped completing:
 * the stack's watchdog (ndo_tx_timeout, stopped queues only) and a check
 * of the others once a second (the port's health_work). NAPI finds an SQ
 * (the stack's or a channel's XDP SQ) or an RQ the device put in the
 * error state by its error CQE (en_tx.c, en_xdp.c, en_rx.c), and the
 * async QUEUE_ERROR event has every queue queried (cxen_health_scan()),
 * for an error whose CQE was lost. Each marks the
 * queue (CXEN_SQ_RESET, CXEN_RQ_RESET) and queues the device's
 * recover_work.
 *
 * Reporting. recover_work reports each marked queue to the devlink
 * health reporter "tx" or "rx" of the device, which counts the error
 * and, with auto-recover on and outside the grace period after the last
 * recovery, calls the reporter's recover op, as does `devlink health
 * recover` by hand. Before the devlink instance is registered and once
 * removal began (cdev->reporting false) the work resets at once.
 *
 * Resetting, in place: nothing is freed or allocated, so a reset that
 * fails leaves the queue stopped, never half built. The queue is stopped
 * in the device (MODIFY to RST: when the command returns the device is
 * done with it), what it completed before is reaped, what it never
 * completed is dropped and counted, and it starts over at WQE 0 (MODIFY
 * to RDY) with the same number, CQ, ring and buffers. A reset the device
 * refuses leaves the queue marked and stopped, counted (recover_fail),
 * the reporter in the error state until a recovery succeeds; the next
 * reconfiguration replaces the queue.
 *
 * Locking: the recover, diagnose and dump ops run under the devlink
 * instance lock and take RTNL (the order probe and reload use too);
 * recover_work reports holding neither, and removal stops the reports
 * (cxen_health_disable()) before it takes the instance lock.
 */
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <linux/workqueue.h>
#include <net/devlink.h>

#include "en_rx.h"

/* mlx5's grace period: errors closer than this are left to the user. */
#define CXEN_HEALTH_GRACE_MS	500

/* What the health ops act on: a queue, or (NULL) every marked queue. */
struct cxen_health_ctx {
	u8	port;
	u16	qid;
	bool	tx;		/* recover_work's list: which reporter */
};

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

/* ------------------------------------------------------------------ */
/* Resetting a queue in place                                          */
/* ------------------------------------------------------------------ */

/*
 * Reset one channel's SQ through the device while the rest of the port
 * keeps running. Under RTNL. On failure the SQ stays out of service
 * (its TX queue stopped, nothing freed) and CXEN_SQ_RESET stays set.
 */
static int cxen_sq_recover(struct cxen_channel *ch,
			   struct netlink_ext_ack *extack)
{
	struct cxen_priv *priv = ch->priv;
	struct cxen_dev *cdev = priv->cdev;
	struct cxen_sq *sq = &ch->sq;
	int err;

	cxen_sq_report(ch, "resetting");
	cxen_sq_serve(sq, false);
	err = cxen_cmd_modify_wq(cdev, CXEN_CMD_MODIFY_SQ, sq->sqn, CXEN_WQ_RST);
	if (err)
		goto err_out;

	/* The device is done with the SQ: what it completed, then the rest. */
	napi_disable(&ch->napi);
	cxen_sq_reap_all(sq);
	cxen_sq_drop_pending(sq);
	cxen_sq_restart(sq);
	err = cxen_cmd_modify_wq(cdev, CXEN_CMD_MODIFY_SQ, sq->sqn, CXEN_WQ_RDY);
	/* The wake below answers a counted stop (NAPI still off: cacc is ours). */
	if (!err && test_and_clear_bit(CXEN_SQ_STOPPED, &sq->state))
		cxen_sqc_inc(sq, queue_wake);
	napi_enable(&ch->napi);
	if (err)
		goto err_out;

	clear_bit(CXEN_SQ_RESET, &sq->state);
	cxen_sq_serve(sq, true);
	netif_tx_wake_queue(sq->txq);
	cxen_channel_kick(ch);
	atomic64_inc(&priv->port_stats.tx_recovers);
	return 0;

err_out:
	atomic64_inc(&priv->port_stats.recover_fails);
	netdev_err(priv->netdev, "TX queue %d: device refused to reset SQ %u (%d): the queue stays stopped; retry with 'devlink health recover', or reconfigure the port\n",
		   ch->idx, sq->sqn, err);
	NL_SET_ERR_MSG_FMT_MOD(extack, "%s TX queue %d: device refused to reset SQ %u",
			       netdev_name(priv->netdev), ch->idx, sq->sqn);
	return err;
}

/*
 * Reset one channel's XDP SQ in place (cxen_xsq_recover()). Under RTNL. On
 * failure it stays marked and takes no frame.
 */
static int cxen_xsq_recover_ch(struct cxen_channel *ch,
			       struct netlink_ext_ack *extack)
{
	struct cxen_priv *priv = ch->priv;
	struct cxen_sq *sq = &ch->xsq;
	int err;

	netdev_warn(priv->netdev, "TX queue %d: resetting XDP SQ %u (pi %u ci %u, CQ %u ci %u)\n",
		    ch->idx, sq->sqn, sq->pi, READ_ONCE(sq->ci), sq->cq.cqn,
		    sq->cq.ci);
	err = cxen_xsq_recover(ch);
	if (err) {
		atomic64_inc(&priv->port_stats.recover_fails);
		netdev_err(priv->netdev, "TX queue %d: device refused to reset XDP SQ %u (%d): XDP_TX and redirects to the port on this queue are dropped; retry with 'devlink health recover', or attach the program again\n",
			   ch->idx, sq->sqn, err);
		NL_SET_ERR_MSG_FMT_MOD(extack, "%s TX queue %d: device refused to reset XDP SQ %u",
				       netdev_name(priv->netdev), ch->idx, sq->sqn);
		return err;
	}
	atomic64_inc(&priv->port_stats.tx_recovers);
	return 0;
}

/* The marked SQs of a channel: the stack's, its XDP SQ, or both. */
static int cxen_tx_recover(struct cxen_channel *ch,
			   struct netlink_ext_ack *extack)
{
	int err = 0, ret;

	if (test_bit(CXEN_SQ_RESET, &ch->sq.state))
		err = cxen_sq_recover(ch, extack);
	if (ch->rq.xdp && test_bit(CXEN_SQ_RESET, &ch->xsq.state)) {
		ret = cxen_xsq_recover_ch(ch, extack);
		if (ret && !err)
			err = ret;
	}
	return err;
}

/**
 * cxen_napi_reap() - have NAPI take the CQEs of @cq written so far
 * @ch: the channel whose NAPI serves @cq
 * @cq: one of its CQs
 *
 * Sleeps. Return: true, or false when some were left after a second.
 */
bool cxen_napi_reap(struct cxen_channel *ch, struct cxen_cq *cq)
{
	unsigned long deadline = jiffies + HZ;

	while (cxen_cqe_owned(cq)) {
		if (time_after(jiffies, deadline))
			return false;
		local_bh_disable();
		napi_schedule(&ch->napi);
		local_bh_enable();
		usleep_range(200, 500);
	}
	return true;
}

/*
 * Reset one channel's RQ, which the device put in the error state (it
 * flushes every WQE posted and drops the frames RSS steers to it). Under
 * RTNL. The frames it received before the error go up the stack; its
 * buffers stay on the ring.
 */
static int cxen_rq_recover(struct cxen_channel *ch,
			   struct netlink_ext_ack *extack)
{
	struct cxen_priv *priv = ch->priv;
	struct cxen_dev *cdev = priv->cdev;
	struct cxen_rq *rq = &ch->rq;
	int err;

	netdev_warn(priv->netdev, "RX queue %d: resetting RQ %u (pi %u ci %u, CQ %u ci %u)\n",
		    ch->idx, rq->rqn, rq->pi, rq->ci, rq->cq.cqn, rq->cq.ci);
	err = cxen_cmd_modify_wq(cdev, CXEN_CMD_MODIFY_RQ, rq->rqn, CXEN_WQ_RST);
	if (err)
		goto err_out;

	if (!cxen_napi_reap(ch, &rq->cq))
		netdev_warn(priv->netdev, "RX queue %d: completions not taken in a second: dropped\n",
			    ch->idx);
	napi_disable(&ch->napi);
	cxen_rq_restart(rq);
	err = cxen_cmd_modify_wq(cdev, CXEN_CMD_MODIFY_RQ, rq->rqn, CXEN_WQ_RDY);
	if (!err && cxen_rq_fill(rq, GFP_KERNEL))
		/* NAPI refills what is missing; it runs at the first CQE. */
		netdev_warn(priv->netdev, "RX queue %d: ring refilled in part\n",
			    ch->idx);
	cxen_rq_stats_publish(rq);
	napi_enable(&ch->napi);
	if (err)
		goto err_out;

	clear_bit(CXEN_RQ_RESET, &rq->state);
	cxen_channel_kick(ch);
	atomic64_inc(&priv->port_stats.rx_recovers);
	return 0;

err_out:
	atomic64_inc(&priv->port_stats.recover_fails);
	netdev_err(priv->netdev, "RX queue %d: device refused to reset RQ %u (%d): its share of traffic is lost; retry with 'devlink health recover', or reconfigure the port\n",
		   ch->idx, rq->rqn, err);
	NL_SET_ERR_MSG_FMT_MOD(extack, "%s RX queue %d: device refused to reset RQ %u",
			       netdev_name(priv->netdev), ch->idx, rq->rqn);
	return err;
}

/* The channels of port @p's running set, or NULL. Under RTNL. */
static struct cxen_chans *cxen_health_chans(struct cxen_dev *cdev,
					    unsigned int p)
{
	struct net_device *netdev = cdev->ports[p];

	return netdev ? cxen_chans_rtnl(netdev_priv(netdev)) : NULL;
}

static bool cxen_ch_marked(struct cxen_channel *ch, bool tx)
{
	if (!tx)
		return test_bit(CXEN_RQ_RESET, &ch->rq.state);
	return test_bit(CXEN_SQ_RESET, &ch->sq.state) ||
	       (ch->rq.xdp && test_bit(CXEN_SQ_RESET, &ch->xsq.state));
}

/*
 * Reset the marked SQs (@tx) or RQs of @ctx's queue, or of every port.
 * Under RTNL. Return: 0 or the first error; every marked queue is tried.
 */
static int cxen_health_recover(struct cxen_dev *cdev, bool tx,
			       const struct cxen_health_ctx *ctx,
			       struct netlink_ext_ack *extack)
{
	unsigned int p, i;
	int err = 0, ret;

	ASSERT_RTNL();
	/* Its reset and rebuild replace every queue (en_fw.c). */
	if (test_bit(CXEN_DEV_FATAL, &cdev->state)) {
		NL_SET_ERR_MSG_MOD(extack, "the device is lost: the fw reporter recovers it");
		return -EIO;
	}
	for (p = 0; p < cdev->caps.num_ports; p++) {
		struct cxen_chans *chans = cxen_health_chans(cdev, p);

		if (!chans || (ctx && ctx->port != p))
			continue;
		for (i = 0; i < chans->num; i++) {
			struct cxen_channel *ch = chans->ch[i];

			if ((ctx && ctx->qid != i) || !cxen_ch_marked(ch, tx))
				continue;
			ret = tx ? cxen_tx_recover(ch, extack) :
				   cxen_rq_recover(ch, extack);
			if (ret && !err)
				err = ret;
		}
	}
	return err;
}

/* ------------------------------------------------------------------ */
/* devlink health reporters                                            */
/* ------------------------------------------------------------------ */

static int cxen_reporter_recover(struct devlink_health_reporter *reporter,
				 void *priv_ctx, struct netlink_ext_ack *extack,
				 bool tx)
{
	struct cxen_dev *cdev = devlink_health_reporter_priv(reporter);
	int err;

	rtnl_lock();
	err = cxen_health_recover(cdev, tx, priv_ctx, extack);
	rtnl_unlock();
	return err;
}

static int cxen_tx_reporter_recover(struct devlink_health_reporter *reporter,
				    void *priv_ctx,
				    struct netlink_ext_ack *extack)
{
	return cxen_reporter_recover(reporter, priv_ctx, extack, true);
}

static int cxen_rx_reporter_recover(struct devlink_health_reporter *reporter,
				    void *priv_ctx,
				    struct netlink_ext_ack *extack)
{
	return cxen_reporter_recover(reporter, priv_ctx, extack, false);
}

/* The device's view of a queue: its state, counters, position. */
static void cxen_fmsg_device_wq(struct devlink_fmsg *fmsg,
				struct cxen_dev *cdev, u16 op, u32 num)
{
	struct cxen_wq_state st;
	u32 flags;

	if (cxen_cmd_query_wq(cdev, op, num, &st)) {
		devlink_fmsg_string_pair_put(fmsg, "device", "query failed");
		return;
	}
	flags = be32_to_cpu(st.flags);
	devlink_fmsg_pair_nest_start(fmsg, "device");
	devlink_fmsg_obj_nest_start(fmsg);
	devlink_fmsg_string_pair_put(fmsg, "state",
				     flags & CXEN_WQ_STATE_RESET ? "reset" :
				     flags & CXEN_WQ_STATE_ERROR ? "error" :
				     "ready");
	devlink_fmsg_u32_pair_put(fmsg, "cons", be16_to_cpu(st.cons));
	devlink_fmsg_u32_pair_put(fmsg, "pi", be16_to_cpu(st.pi));
	devlink_fmsg_u64_pair_put(fmsg, "wqes", be64_to_cpu(st.wqes));
	devlink_fmsg_u64_pair_put(fmsg, "drops", be64_to_cpu(st.drops));
	devlink_fmsg_u64_pair_put(fmsg, "error_cqes", be64_to_cpu(st.error_cqes));
	devlink_fmsg_u64_pair_put(fmsg, "flushed", be64_to_cpu(st.flushed));
	devlink_fmsg_obj_nest_end(fmsg);
	devlink_fmsg_pair_nest_end(fmsg);
}

static void cxen_fmsg_queue(struct devlink_fmsg *fmsg, struct cxen_channel *ch,
			    bool tx)
{
	struct cxen_dev *cdev = ch->priv->cdev;

	devlink_fmsg_obj_nest_start(fmsg);
	devlink_fmsg_u32_pair_put(fmsg, "queue", ch->idx);
	if (tx) {
		struct cxen_sq *sq = &ch->sq;

		devlink_fmsg_u32_pair_put(fmsg, "sqn", sq->sqn);
		devlink_fmsg_u32_pair_put(fmsg, "pi", sq->pi);
		devlink_fmsg_u32_pair_put(fmsg, "ci", READ_ONCE(sq->ci));
		devlink_fmsg_u32_pair_put(fmsg, "cqn", sq->cq.cqn);
		devlink_fmsg_u32_pair_put(fmsg, "cq_ci", sq->cq.ci);
		devlink_fmsg_bool_pair_put(fmsg, "stopped",
					   netif_xmit_stopped(sq->txq));
		devlink_fmsg_bool_pair_put(fmsg, "needs_reset",
					   test_bit(CXEN_SQ_RESET, &sq->state));
		cxen_fmsg_device_wq(fmsg, cdev, CXEN_CMD_QUERY_SQ, sq->sqn);
	} else {
		struct cxen_rq *rq = &ch->rq;

		devlink_fmsg_u32_pair_put(fmsg, "rqn", rq->rqn);
		devlink_fmsg_u32_pair_put(fmsg, "pi", rq->pi);
		devlink_fmsg_u32_pair_put(fmsg, "ci", rq->ci);
		devlink_fmsg_u32_pair_put(fmsg, "cqn", rq->cq.cqn);
		devlink_fmsg_u32_pair_put(fmsg, "cq_ci", rq->cq.ci);
		devlink_fmsg_bool_pair_put(fmsg, "needs_reset",
					   test_bit(CXEN_RQ_RESET, &rq->state));
		cxen_fmsg_device_wq(fmsg, cdev, CXEN_CMD_QUERY_RQ, rq->rqn);
	}
	devlink_fmsg_obj_nest_end(fmsg);
}

/*
 * Every port's queues (@ctx NULL, or only those needing a reset with
 * @marked), or @ctx's queue. Under RTNL.
 */
static void cxen_fmsg_ports(struct devlink_fmsg *fmsg, struct cxen_dev *cdev,
			    bool tx, const struct cxen_health_ctx *ctx,
			    bool marked)
{
	unsigned int p, i;

	devlink_fmsg_arr_pair_nest_start(fmsg, "ports");
	for (p = 0; p < cdev->caps.num_ports; p++) {
		struct net_device *netdev = cdev->ports[p];
		struct cxen_chans *chans;

		if (!netdev || (ctx && ctx->port != p))
			continue;
		chans = cxen_chans_rtnl(netdev_priv(netdev));
		devlink_fmsg_obj_nest_start(fmsg);
		devlink_fmsg_u32_pair_put(fmsg, "port", p);
		devlink_fmsg_string_pair_put(fmsg, "netdev", netdev_name(netdev));
		devlink_fmsg_bool_pair_put(fmsg, "up", chans);
		devlink_fmsg_arr_pair_nest_start(fmsg, tx ? "sqs" : "rqs");
		for (i = 0; chans && i < chans->num; i++) {
			if ((ctx && ctx->qid != i) ||
			    (marked && !cxen_ch_marked(chans->ch[i], tx)))
				continue;
			cxen_fmsg_queue(fmsg, chans->ch[i], tx);
		}
		devlink_fmsg_arr_pair_nest_end(fmsg);
		devlink_fmsg_obj_nest_end(fmsg);
	}
	devlink_fmsg_arr_pair_nest_end(fmsg);
}

static int cxen_reporter_diagnose(struct devlink_health_reporter *reporter,
				  struct devlink_fmsg *fmsg, bool tx)
{
	struct cxen_dev *cdev = devlink_health_reporter_priv(reporter);

	rtnl_lock();
	cxen_fmsg_ports(fmsg, cdev, tx, NULL, false);
	rtnl_unlock();
	return 0;
}

static int cxen_tx_reporter_diagnose(struct devlink_health_reporter *reporter,
				     struct devlink_fmsg *fmsg,
				     struct netlink_ext_ack *extack)
{
	return cxen_reporter_diagnose(reporter, fmsg, true);
}

static int cxen_rx_reporter_diagnose(struct devlink_health_reporter *reporter,
				     struct devlink_fmsg *fmsg,
				     struct netlink_ext_ack *extack)
{
	return cxen_reporter_diagnose(reporter, fmsg, false);
}

/* The faulty queue when reported, or (by hand) every queue needing a reset. */
static int cxen_reporter_dump(struct devlink_health_reporter *reporter,
			      struct devlink_fmsg *fmsg, void *priv_ctx,
			      bool tx)
{
	struct cxen_dev *cdev = devlink_health_reporter_priv(reporter);

	rtnl_lock();
	cxen_fmsg_ports(fmsg, cdev, tx, priv_ctx, !priv_ctx);
	rtnl_unlock();
	return 0;
}

static int cxen_tx_reporter_dump(struct devlink_health_reporter *reporter,
				 struct devlink_fmsg *fmsg, void *priv_ctx,
				 struct netlink_ext_ack *extack)
{
	return cxen_reporter_dump(reporter, fmsg, priv_ctx, true);
}

static int cxen_rx_reporter_dump(struct devlink_health_reporter *reporter,
				 struct devlink_fmsg *fmsg, void *priv_ctx,
				 struct netlink_ext_ack *extack)
{
	return cxen_reporter_dump(reporter, fmsg, priv_ctx, false);
}

static const struct devlink_health_reporter_ops cxen_tx_reporter_ops = {
	.name		= "tx",
	.recover	= cxen_tx_reporter_recover,
	.diagnose	= cxen_tx_reporter_diagnose,
	.dump		= cxen_tx_reporter_dump,
};

static const struct devlink_health_reporter_ops cxen_rx_reporter_ops = {
	.name		= "rx",
	.recover	= cxen_rx_reporter_recover,
	.diagnose	= cxen_rx_reporter_diagnose,
	.dump		= cxen_rx_reporter_dump,
};

/**
 * cxen_health_reporters_create() - the device's "tx" and "rx" reporters
 * @cdev: the device, its devlink instance locked, no port yet
 *
 * Return: 0 or a negative errno (nothing created).
 */
int cxen_health_reporters_create(struct cxen_dev *cdev)
{
	struct devlink *devlink = priv_to_devlink(cdev);

	cdev->tx_reporter = devl_health_reporter_create(devlink,
							&cxen_tx_reporter_ops,
							CXEN_HEALTH_GRACE_MS,
							cdev);
	if (IS_ERR(cdev->tx_reporter))
		return PTR_ERR(cdev->tx_reporter);
	cdev->rx_reporter = devl_health_reporter_create(devlink,
							&cxen_rx_reporter_ops,
							CXEN_HEALTH_GRACE_MS,
							cdev);
	if (IS_ERR(cdev->rx_reporter)) {
		devl_health_reporter_destroy(cdev->tx_reporter);
		return PTR_ERR(cdev->rx_reporter);
	}
	return 0;
}

/**
 * cxen_health_reporters_destroy() - undo cxen_health_reporters_create()
 * @cdev: the device, its devlink instance locked, reports stopped
 */
void cxen_health_reporters_destroy(struct cxen_dev *cdev)
{
	devl_health_reporter_destroy(cdev->rx_reporter);
	devl_health_reporter_destroy(cdev->tx_reporter);
}

/**
 * cxen_health_enable() - report faults through devlink from now on
 * @cdev: the device, its devlink instance registered
 */
void cxen_health_enable(struct cxen_dev *cdev)
{
	WRITE_ONCE(cdev->reporting, true);
	schedule_work(&cdev->recover_work);	/* marked before: report */
}

/**
 * cxen_health_disable() - stop reporting, before devlink is unregistered
 * @cdev: the device; the caller does not hold its devlink instance lock
 *
 * Queues marked from now on are reset by recover_work directly.
 */
void cxen_health_disable(struct cxen_dev *cdev)
{
	WRITE_ONCE(cdev->reporting, false);
	cancel_work_sync(&cdev->recover_work);
	schedule_work(&cdev->recover_work);	/* what it did not report */
}

#define CXEN_HEALTH_MAX_REPORTS	(2 * CXEN_HW_MAX_PORTS * CXEN_HW_MAX_CHANNELS)

/*
 * Report each marked queue once to its reporter, which resets it when
 * it recovers automatically; unmarked by a successful reset only.
 */
static void cxen_recover_work(struct work_struct *work)
{
	struct cxen_dev *cdev = container_of(work, struct cxen_dev, recover_work);
	struct cxen_health_ctx *todo;
	unsigned int p, i, n = 0;
	char msg[64];

	rtnl_lock();
	if (!READ_ONCE(cdev->reporting)) {
		cxen_health_recover(cdev, true, NULL, NULL);
		cxen_health_recover(cdev, false, NULL, NULL);
		rtnl_unlock();
		return;
	}
	todo = kcalloc(CXEN_HEALTH_MAX_REPORTS, sizeof(*todo), GFP_KERNEL);
	for (p = 0; todo && p < cdev->caps.num_ports; p++) {
		struct cxen_chans *chans = cxen_health_chans(cdev, p);

		for (i = 0; chans && i < chans->num; i++) {
			if (cxen_ch_marked(chans->ch[i], true))
				todo[n++] = (struct cxen_health_ctx){ p, i, true };
			if (cxen_ch_marked(chans->ch[i], false))
				todo[n++] = (struct cxen_health_ctx){ p, i, false };
		}
	}
	if (!todo) {
		/* No memory to report: reset unreported rather than not at all. */
		cxen_health_recover(cdev, true, NULL, NULL);
		cxen_health_recover(cdev, false, NULL, NULL);
	}
	rtnl_unlock();

	/* devlink takes its instance lock, which nests outside RTNL. */
	for (i = 0; i < n; i++) {
		struct cxen_health_ctx *ctx = &todo[i];

		snprintf(msg, sizeof(msg), "port %u %s queue %u needs a reset",
			 ctx->port, ctx->tx ? "TX" : "RX", ctx->qid);
		devlink_health_report(ctx->tx ? cdev->tx_reporter :
						cdev->rx_reporter, msg, ctx);
	}
	kfree(todo);
}

/**
 * cxen_health_scan() - find queues the device put in the error state
 * @cdev: the device, RTNL held
 *
 * For the async QUEUE_ERROR event: an error CQE may have been lost (a CQ
 * overrun), so the device is asked about every queue of the running sets.
 */
void cxen_health_scan(struct cxen_dev *cdev)
{
	struct cxen_wq_state st;
	unsigned int p, i;

	ASSERT_RTNL();
	for (p = 0; p < cdev->caps.num_ports; p++) {
		struct cxen_chans *chans = cxen_health_chans(cdev, p);

		for (i = 0; chans && i < chans->num; i++) {
			struct cxen_channel *ch = chans->ch[i];

			if (!cxen_cmd_query_wq(cdev, CXEN_CMD_QUERY_SQ, ch->sq.sqn, &st) &&
			    be32_to_cpu(st.flags) & CXEN_WQ_STATE_ERROR)
				cxen_sq_schedule_reset(&ch->sq);
			if (ch->rq.xdp &&
			    !cxen_cmd_query_wq(cdev, CXEN_CMD_QUERY_SQ, ch->xsq.sqn, &st) &&
			    be32_to_cpu(st.flags) & CXEN_WQ_STATE_ERROR)
				cxen_sq_schedule_reset(&ch->xsq);
			if (!cxen_cmd_query_wq(cdev, CXEN_CMD_QUERY_RQ, ch->rq.rqn, &st) &&
			    be32_to_cpu(st.flags) & CXEN_WQ_STATE_ERROR)
				cxen_rq_schedule_reset(&ch->rq);
		}
	}
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
 * cxen_health_init() - set up a port's TX health check
 * @priv: the port, not registered yet
 */
void cxen_health_init(struct cxen_priv *priv)
{
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
 * cxen_health_dev_init() - set up the device's recovery work
 * @cdev: the device, no port yet
 */
void cxen_health_dev_init(struct cxen_dev *cdev)
{
	INIT_WORK(&cdev->recover_work, cxen_recover_work);
}
