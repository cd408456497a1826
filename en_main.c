// SPDX-License-Identifier: GPL-2.0
/*
 * cxen: probe, netdev life cycle, channels, NAPI and interrupts.
 */
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <net/netdev_queues.h>
#include <net/page_pool/helpers.h>

#include "en.h"

static int cxen_rx_strategy_param = CXEN_RX_PAGEPOOL;

static int cxen_rx_strategy_set(const char *val, const struct kernel_param *kp)
{
	int s = cxen_rx_strategy_find(val);

	if (s < 0) {
		pr_err("cxen: rx_strategy '%s' unknown: use pagepool, legacy2012, wholepage2012 or onefrag2013\n",
		       val);
		return -EINVAL;
	}
	*(int *)kp->arg = s;
	return 0;
}

static int cxen_rx_strategy_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%s\n", cxen_rx_strategies[*(int *)kp->arg].name);
}

static const struct kernel_param_ops cxen_rx_strategy_ops = {
	.set = cxen_rx_strategy_set,
	.get = cxen_rx_strategy_get,
};
module_param_cb(rx_strategy, &cxen_rx_strategy_ops, &cxen_rx_strategy_param, 0444);
MODULE_PARM_DESC(rx_strategy,
		 "RX buffer strategy of new ports: one of pagepool, legacy2012, wholepage2012, onefrag2013 (default pagepool; the others are the benchmark's mlx4 comparison layouts)");

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */
/* ------------------------------------------------------------------ */

/**
 * cxen_cq_alloc() - allocate a CQ ring and a CQ number
 * @cdev: the device
 * @cq: the CQ; @cq->dbrec must already point at its doorbell record
 * @log_size: log2 of the number of CQEs
 *
 * Every CQE's owner bit starts set, so that nothing is owned by software
 * until the device writes the first pass (see cxen_cqe_owned()).
 *
 * Return: 0 or a negative errno.
 */
int cxen_cq_alloc(struct cxen_dev *cdev, struct cxen_cq *cq, u8 log_size)
{
	size_t bytes = sizeof(struct cxen_cqe) << log_size;
	unsigned int i;
	int cqn;

	cqn = ida_alloc_max(&cdev->cqn_ida, CXEN_HW_NUM_CQ - 1, GFP_KERNEL);
	if (cqn < 0)
		return cqn;
	cq->cqes = dma_alloc_coherent(cdev->dev, bytes, &cq->ring_dma,
				      GFP_KERNEL);
	if (!cq->cqes) {
		ida_free(&cdev->cqn_ida, cqn);
		return -ENOMEM;
	}
	for (i = 0; i < (1U << log_size); i++)
		cq->cqes[i].owner_sr_opcode = CXEN_CQE_OWNER;
	cq->cqn = cqn;
	cq->log_size = log_size;
	cq->ci = 0;
	cxen_cq_update_ci(cq);
	return 0;
}

void cxen_cq_free(struct cxen_dev *cdev, struct cxen_cq *cq)
{
	dma_free_coherent(cdev->dev, sizeof(struct cxen_cqe) << cq->log_size,
			  cq->cqes, cq->ring_dma);
	ida_free(&cdev->cqn_ida, cq->cqn);
	cq->cqes = NULL;
}

/**
 * cxen_cq_arm() - ask for one interrupt on the next CQE
 * @cdev: the device
 * @cq: the CQ, whose consumer index is already published
 */
void cxen_cq_arm(struct cxen_dev *cdev, struct cxen_cq *cq)
{
	cxen_cq_update_ci(cq);
	/* The device must see the consumer index before the arm request. */
	wmb();
	cxen_wr32(cdev, CXEN_REG_CQ_ARM, FIELD_PREP(CXEN_CQ_ARM_CQN, cq->cqn));
}

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

static void cxen_dim_init(struct cxen_channel *ch)
{
	INIT_WORK(&ch->rx_dim.work, cxen_rx_dim_work);
	INIT_WORK(&ch->tx_dim.work, cxen_tx_dim_work);
	ch->rx_dim.mode = DIM_CQ_PERIOD_MODE_START_FROM_EQE;
	ch->tx_dim.mode = DIM_CQ_PERIOD_MODE_START_FROM_EQE;
	ch->rx_dim_on = ch->priv->params.rx_dim;
	ch->tx_dim_on = ch->priv->params.tx_dim;
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
	unsigned int i;
	int err = 0;

	ASSERT_RTNL();
	mutex_lock(&priv->moder_lock);
	for (i = 0; i < priv->num_live; i++) {
		err = cxen_channel_set_moder(priv->live[i], new);
		if (err)
			break;
	}
	if (err) {
		unsigned int failed = i;

		NL_SET_ERR_MSG_MOD(extack, "device refused the moderation: previous values kept");
		/* Including the channel that failed: it may be half changed. */
		for (i = 0; i <= failed; i++)
			cxen_channel_set_moder(priv->live[i], &priv->params);
	} else {
		priv->params = *new;
	}
	mutex_unlock(&priv->moder_lock);
	return err;
}

/* ------------------------------------------------------------------ */
/* NAPI and interrupts                                                 */
/* ------------------------------------------------------------------ */

static int cxen_napi_poll(struct napi_struct *napi, int budget)
{
	struct cxen_channel *ch = container_of(napi, struct cxen_channel, napi);
	struct cxen_dev *cdev = ch->priv->cdev;
	bool tx_done;
	int work;

	tx_done = cxen_poll_tx(&ch->sq, budget);
	work = cxen_poll_rx(&ch->rq, napi, budget);
	if (!tx_done || work == budget)
		return budget;

	if (napi_complete_done(napi, work)) {
		cxen_dim_sample(ch);
		cxen_cq_arm(cdev, &ch->sq.cq);
		cxen_cq_arm(cdev, &ch->rq.cq);
	}
	return work;
}

static irqreturn_t cxen_channel_irq(int irq, void *data)
{
	struct cxen_channel *ch = data;

	WRITE_ONCE(ch->irq_events, ch->irq_events + 1);
	napi_schedule_irqoff(&ch->napi);
	return IRQ_HANDLED;
}

/* ------------------------------------------------------------------ */
/* Channels                                                            */
/* ------------------------------------------------------------------ */

/* Doorbell records of a channel, one cache line apart in one page. */
enum {
	CXEN_DBREC_RQ,
	CXEN_DBREC_SQ,
	CXEN_DBREC_RQ_CQ,
	CXEN_DBREC_SQ_CQ,
};

static void *cxen_dbrec(struct cxen_channel *ch, int which, dma_addr_t *dma)
{
	*dma = ch->dbrec_dma + which * SMP_CACHE_BYTES;
	return ch->dbrec_page + which * SMP_CACHE_BYTES;
}

static int cxen_channel_vector(struct cxen_priv *priv, int idx)
{
	return 1 + priv->port * priv->cdev->caps.max_channels + idx;
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

	netif_napi_add(priv->netdev, &ch->napi, cxen_napi_poll);
	cxen_dim_init(ch);

	err = cxen_rq_alloc(ch, &ch->rq);
	if (err)
		goto err_napi;
	err = cxen_sq_alloc(ch, &ch->sq);
	if (err)
		goto err_rq;

	snprintf(ch->irq_name, sizeof(ch->irq_name), "%s-ch%d",
		 priv->netdev->name, idx);
	/* Shared: while a reconfiguration drains them, old and new channels of
	 * the same index live side by side on one vector.
	 */
	err = request_irq(ch->irq, cxen_channel_irq, IRQF_SHARED, ch->irq_name, ch);
	if (err) {
		netdev_err(priv->netdev, "cannot get IRQ %d for channel %d: %d\n",
			   ch->irq, idx, err);
		goto err_sq;
	}
	return ch;

err_sq:
	cxen_sq_free(&ch->sq);
err_rq:
	cxen_rq_free(&ch->rq);
err_napi:
	netif_napi_del(&ch->napi);
	dma_free_coherent(cdev->dev, PAGE_SIZE, ch->dbrec_page, ch->dbrec_dma);
err_free_ch:
	kfree(ch);
	return ERR_PTR(err);
}

/*
 * @to += @from, counter by counter, for structs of u64 counters only
 * (struct cxen_stats_base, struct page_pool_stats) of @size bytes.
 */
static void cxen_counters_add(void *to, const void *from, size_t size)
{
	const u64 *f = from;
	u64 *t = to;
	unsigned int i;

	BUILD_BUG_ON(sizeof(struct cxen_stats_base) % sizeof(u64));
#ifdef CONFIG_PAGE_POOL_STATS
	BUILD_BUG_ON(sizeof(struct page_pool_stats) % sizeof(u64));
#endif
	for (i = 0; i < size / sizeof(u64); i++)
		t[i] += f[i];
}

/*
 * Tear a stopped channel down. Its counters are final once its queues are
 * destroyed: they move into the port's base in the same critical section
 * that takes the channel off the stats' lists (the caller's), so totals
 * never go back.
 */
static void cxen_channel_teardown(struct cxen_channel *ch)
{
	struct cxen_priv *priv = ch->priv;

	/* NAPI is off: no new DIM work, the CQs outlive the last one. */
	cancel_work_sync(&ch->rx_dim.work);
	cancel_work_sync(&ch->tx_dim.work);
	free_irq(ch->irq, ch);
	cxen_sq_free(&ch->sq);
	cxen_rq_free(&ch->rq);
	netif_napi_del(&ch->napi);
	dma_free_coherent(priv->cdev->dev, PAGE_SIZE, ch->dbrec_page,
			  ch->dbrec_dma);
}

static void cxen_channel_fold(struct cxen_channel *ch)
{
	struct cxen_priv *priv = ch->priv;
	struct cxen_queue_base *q = &priv->qbase[ch->idx];
	struct cxen_stats_base b = {};

	cxen_rq_fold_stats(&ch->rq, &b);
	cxen_sq_fold_stats(&ch->sq, &b);
	q->rx_packets += b.rx_packets;
	q->rx_bytes += b.rx_bytes;
	q->tx_packets += b.tx_packets;
	q->tx_bytes += b.tx_bytes;
	cxen_counters_add(&priv->base, &b, sizeof(b));
#ifdef CONFIG_PAGE_POOL_STATS
	cxen_counters_add(&priv->pp_base, &ch->rq.pp_final,
			  sizeof(ch->rq.pp_final));
#endif
}

/**
 * cxen_sq_schedule_reset() - have an SQ destroyed and created again
 * @sq: an SQ in the error state, or one the watchdog found stuck
 *
 * Any context. The reset runs from process context under RTNL.
 */
void cxen_sq_schedule_reset(struct cxen_sq *sq)
{
	struct cxen_priv *priv = sq->priv;

	if (!test_and_set_bit(sq->qid, priv->sq_reset))
		schedule_work(&priv->reset_work);
}

/*
 * Log what is done to a stuck SQ (@what), with the driver's and then the
 * device's view of it, for whoever reads the log. Process context.
 */
static void cxen_sq_report(struct cxen_channel *ch, const char *what)
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
	atomic64_inc(&priv->tx_recovers);
	return 0;
}

static void cxen_reset_work(struct work_struct *work)
{
	struct cxen_priv *priv = container_of(work, struct cxen_priv, reset_work);
	struct cxen_channel **chs;
	unsigned int i;

	rtnl_lock();
	chs = priv->live;
	for (i = 0; i < CXEN_HW_MAX_CHANNELS; i++) {
		if (!test_and_clear_bit(i, priv->sq_reset))
			continue;
		/* Channels rebuilt meanwhile start with a new SQ anyway. */
		if (chs && i < priv->num_live)
			cxen_sq_recover(chs[i]);
	}
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
	struct cxen_channel **chs;

	atomic64_inc(&priv->tx_timeouts);
	rcu_read_lock();
	chs = rcu_dereference(priv->channels);
	if (chs && txqueue < READ_ONCE(priv->num_channels)) {
		struct cxen_sq *sq = &chs[txqueue]->sq;

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
	unsigned int i;

	spin_lock_bh(&priv->stats_lock);
	for (i = 0; i < priv->num_live; i++) {
		struct cxen_sq *sq = &priv->live[i]->sq;

		/* A stopped queue is the stack's watchdog's (tx_timeout). */
		if (!carrier || netif_xmit_stopped(sq->txq)) {
			sq->hang_since = 0;
			continue;
		}
		if (!cxen_sq_hung(sq, now, netdev->watchdog_timeo))
			continue;
		atomic64_inc(&priv->tx_hangs);
		netdev_err(netdev, "TX queue %u: no completion for %u ms with %u WQEs outstanding (SQ %u pi %u ci %u)\n",
			   i, jiffies_to_msecs(netdev->watchdog_timeo),
			   READ_ONCE(sq->pi) - READ_ONCE(sq->ci), sq->sqn,
			   READ_ONCE(sq->pi), READ_ONCE(sq->ci));
		cxen_sq_schedule_reset(sq);
	}
	spin_unlock_bh(&priv->stats_lock);
	schedule_delayed_work(&priv->health_work, round_jiffies_relative(HZ));
}

/* ------------------------------------------------------------------ */
/* Stats                                                               */
/* ------------------------------------------------------------------ */

/**
 * cxen_get_stats_base() - totals over the port's life
 * @priv: the port
 * @b: filled with the counters of destroyed channels, of channels being
 *	drained by a reconfiguration and of the live ones
 */
void cxen_get_stats_base(struct cxen_priv *priv, struct cxen_stats_base *b)
{
	unsigned int i;

	spin_lock_bh(&priv->stats_lock);
	*b = priv->base;
	for (i = 0; i < priv->num_live; i++) {
		cxen_rq_fold_stats(&priv->live[i]->rq, b);
		cxen_sq_fold_stats(&priv->live[i]->sq, b);
	}
	for (i = 0; i < priv->num_stale; i++) {
		cxen_rq_fold_stats(&priv->stale[i]->rq, b);
		cxen_sq_fold_stats(&priv->stale[i]->sq, b);
	}
	spin_unlock_bh(&priv->stats_lock);
	b->tx_timeout = atomic64_read(&priv->tx_timeouts);
	b->tx_hang = atomic64_read(&priv->tx_hangs);
	b->tx_recover = atomic64_read(&priv->tx_recovers);
}

#ifdef CONFIG_PAGE_POOL_STATS
static void cxen_rq_pp_stats(struct cxen_rq *rq, struct page_pool_stats *pps)
{
	cxen_counters_add(pps, &rq->pp_final, sizeof(*pps));
	if (rq->pool)
		page_pool_get_stats(rq->pool, pps);
}

/**
 * cxen_get_pp_stats() - page_pool counters over the port's life
 * @priv: the port
 * @pps: filled with the counters of the pools of destroyed channels, of
 *	channels being drained and of the live ones, so they never go back
 */
void cxen_get_pp_stats(struct cxen_priv *priv, struct page_pool_stats *pps)
{
	unsigned int i;

	spin_lock_bh(&priv->stats_lock);
	*pps = priv->pp_base;
	for (i = 0; i < priv->num_live; i++)
		cxen_rq_pp_stats(&priv->live[i]->rq, pps);
	for (i = 0; i < priv->num_stale; i++)
		cxen_rq_pp_stats(&priv->stale[i]->rq, pps);
	spin_unlock_bh(&priv->stats_lock);
}
#endif

/**
 * cxen_get_queue_stats() - per-queue totals over the port's life
 * @priv: the port
 * @idx: queue index, below CXEN_HW_MAX_CHANNELS
 * @q: filled with the counts of every channel that had this index
 */
void cxen_get_queue_stats(struct cxen_priv *priv, unsigned int idx,
			  struct cxen_queue_base *q)
{
	struct cxen_stats_base b = {};
	unsigned int i;

	spin_lock_bh(&priv->stats_lock);
	*q = priv->qbase[idx];
	if (idx < priv->num_live) {
		cxen_rq_fold_stats(&priv->live[idx]->rq, &b);
		cxen_sq_fold_stats(&priv->live[idx]->sq, &b);
	}
	for (i = 0; i < priv->num_stale; i++) {
		if (priv->stale[i]->idx != idx)
			continue;
		cxen_rq_fold_stats(&priv->stale[i]->rq, &b);
		cxen_sq_fold_stats(&priv->stale[i]->sq, &b);
	}
	spin_unlock_bh(&priv->stats_lock);
	q->rx_packets += b.rx_packets;
	q->rx_bytes += b.rx_bytes;
	q->tx_packets += b.tx_packets;
	q->tx_bytes += b.tx_bytes;
}

static void cxen_get_stats64(struct net_device *netdev,
			     struct rtnl_link_stats64 *s)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_stats_base b;

	cxen_get_stats_base(priv, &b);
	s->rx_packets = b.rx_packets;
	s->rx_bytes = b.rx_bytes;
	s->tx_packets = b.tx_packets;
	s->tx_bytes = b.tx_bytes;
	s->rx_errors = b.rx_err_cqe + b.rx_oversize + b.rx_bad_cqe;
	s->rx_dropped = b.rx_err_cqe + b.rx_oversize + b.rx_bad_cqe;
	s->rx_length_errors = b.rx_oversize;
	s->tx_errors = b.tx_err_cqe;
	s->tx_dropped = b.tx_dropped + b.tx_dma_map_err;
}

/*
 * Queue stats over netlink (netdev_stat_ops). An active queue reports its
 * live channel's counters; everything counted by channels that no longer
 * exist is the base, so base + queues = ndo_get_stats64 at any time.
 */
static void cxen_qstats_fill_rx(struct netdev_queue_stats_rx *rx,
				const struct cxen_stats_base *b)
{
	rx->packets = b->rx_packets;
	rx->bytes = b->rx_bytes;
	rx->alloc_fail = b->rx_alloc_fail;
	rx->hw_drops = b->rx_err_cqe;
	rx->csum_unnecessary = b->rx_csum_unnecessary;
	rx->csum_none = b->rx_csum_none;
}

static void cxen_qstats_fill_tx(struct netdev_queue_stats_tx *tx,
				const struct cxen_stats_base *b)
{
	tx->packets = b->tx_packets;
	tx->bytes = b->tx_bytes;
	tx->hw_drops = b->tx_err_cqe;
	tx->needs_csum = b->tx_csum_offload;
	tx->hw_gso_packets = b->tx_tso_packets;
	tx->hw_gso_bytes = b->tx_tso_bytes;
	tx->stop = b->tx_queue_stop;
	tx->wake = b->tx_queue_wake;
}

static void cxen_qstats_channel(struct net_device *netdev, int idx,
				struct cxen_stats_base *b)
{
	struct cxen_priv *priv = netdev_priv(netdev);

	memset(b, 0, sizeof(*b));
	spin_lock_bh(&priv->stats_lock);
	if (idx < priv->num_live) {
		cxen_rq_fold_stats(&priv->live[idx]->rq, b);
		cxen_sq_fold_stats(&priv->live[idx]->sq, b);
	}
	spin_unlock_bh(&priv->stats_lock);
}

static void cxen_get_queue_stats_rx(struct net_device *netdev, int idx,
				    struct netdev_queue_stats_rx *rx)
{
	struct cxen_stats_base b;

	cxen_qstats_channel(netdev, idx, &b);
	cxen_qstats_fill_rx(rx, &b);
}

static void cxen_get_queue_stats_tx(struct net_device *netdev, int idx,
				    struct netdev_queue_stats_tx *tx)
{
	struct cxen_stats_base b;

	cxen_qstats_channel(netdev, idx, &b);
	cxen_qstats_fill_tx(tx, &b);
}

static void cxen_get_base_stats(struct net_device *netdev,
				struct netdev_queue_stats_rx *rx,
				struct netdev_queue_stats_tx *tx)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_stats_base b;
	unsigned int i;

	/* Destroyed channels and channels being drained. */
	spin_lock_bh(&priv->stats_lock);
	b = priv->base;
	for (i = 0; i < priv->num_stale; i++) {
		cxen_rq_fold_stats(&priv->stale[i]->rq, &b);
		cxen_sq_fold_stats(&priv->stale[i]->sq, &b);
	}
	spin_unlock_bh(&priv->stats_lock);
	cxen_qstats_fill_rx(rx, &b);
	cxen_qstats_fill_tx(tx, &b);
}

static const struct netdev_stat_ops cxen_stat_ops = {
	.get_queue_stats_rx	= cxen_get_queue_stats_rx,
	.get_queue_stats_tx	= cxen_get_queue_stats_tx,
	.get_base_stats		= cxen_get_base_stats,
};

/* ------------------------------------------------------------------ */
/* Open / stop                                                         */
/* ------------------------------------------------------------------ */

/**
 * cxen_rss_apply() - program an RSS key and table into the device
 * @priv: the port
 * @key: CXEN_RSS_KEY_SIZE bytes
 * @indir: CXEN_RSS_TABLE_SIZE queue indices, each below @n
 * @chs: the channels the queue indices name, NULL when the port is down
 * @n: their number
 *
 * The device switches key and table atomically: frames go to the old RQs
 * or to the new ones, never nowhere. The caller keeps @key and @indir as
 * the port's once this succeeds.
 *
 * Return: 0 or a negative errno (the device keeps its previous table).
 */
int cxen_rss_apply(struct cxen_priv *priv, const u8 *key, const u32 *indir,
		   struct cxen_channel **chs, unsigned int n)
{
	u32 rqn[CXEN_RSS_TABLE_SIZE];
	unsigned int i;

	if (!chs)
		return 0;
	for (i = 0; i < CXEN_RSS_TABLE_SIZE; i++) {
		u32 q = indir[i];

		if (WARN_ON_ONCE(q >= n))
			q = 0;
		rqn[i] = chs[q]->rq.rqn;
	}
	return cxen_cmd_set_rss(priv->cdev, priv->port, key, rqn);
}

/* The table for @n queues: the default spread, or the user's own. */
static void cxen_rss_indir_for(struct cxen_priv *priv, unsigned int n,
			       u32 *indir)
{
	unsigned int i;

	if (netif_is_rxfh_configured(priv->netdev)) {
		memcpy(indir, priv->rss_indir, sizeof(priv->rss_indir));
		return;
	}
	for (i = 0; i < CXEN_RSS_TABLE_SIZE; i++)
		indir[i] = ethtool_rxfh_indir_default(i, n);
}

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
	if (up && netif_running(priv->netdev) && priv->num_live)
		netif_carrier_on(priv->netdev);
	else
		netif_carrier_off(priv->netdev);
}

/*
 * Channel sets. A reconfiguration of a running port follows
 * allocate-new, switch, drain-old, free-old:
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
 */
static void cxen_channels_free(struct cxen_priv *priv,
			       struct cxen_channel **chs, unsigned int n)
{
	unsigned int i;

	/* Torn-down channels' counters are final and still readable. */
	for (i = 0; i < n; i++)
		cxen_channel_teardown(chs[i]);
	spin_lock_bh(&priv->stats_lock);
	for (i = 0; i < n; i++)
		cxen_channel_fold(chs[i]);
	if (priv->stale == chs) {
		priv->stale = NULL;
		priv->num_stale = 0;
	}
	spin_unlock_bh(&priv->stats_lock);
	for (i = 0; i < n; i++)
		kfree(chs[i]);
	kfree(chs);
}

static struct cxen_channel **cxen_channels_create(struct cxen_priv *priv,
						  unsigned int n)
{
	struct cxen_channel **chs;
	unsigned int i;
	int err;

	chs = kcalloc(n, sizeof(*chs), GFP_KERNEL);
	if (!chs)
		return ERR_PTR(-ENOMEM);
	for (i = 0; i < n; i++) {
		chs[i] = cxen_channel_create(priv, i);
		if (IS_ERR(chs[i])) {
			err = PTR_ERR(chs[i]);
			goto err_destroy;
		}
	}
	return chs;

err_destroy:
	cxen_channels_free(priv, chs, i);
	return ERR_PTR(err);
}

static bool cxen_channel_quiet(struct cxen_channel *ch)
{
	return READ_ONCE(ch->sq.ci) == ch->sq.pi &&
	       !cxen_cqe_owned(&ch->sq.cq) && !cxen_cqe_owned(&ch->rq.cq);
}

/*
 * Whether the SQs of @chs feed their TX queues. Taken away before TX
 * stops for a switch or a close: completions reaped while the old SQs
 * drain must not start the queues again, or the stack would keep
 * filling SQs that are on their way out.
 */
static void cxen_channels_serve(struct cxen_channel **chs, unsigned int n,
				bool serving)
{
	unsigned int i;

	for (i = 0; i < n; i++)
		cxen_sq_serve(&chs[i]->sq, serving);
}

/*
 * With TX stopped, let the old SQs complete what they hold: the TX queues'
 * BQL state passes to the new SQs, so the old ones must be done with it.
 * An SQ the device does not complete within a second is destroyed and its
 * packets dropped and counted.
 */
static void cxen_channels_drain_tx(struct cxen_priv *priv,
				   struct cxen_channel **chs, unsigned int n)
{
	unsigned long deadline = jiffies + HZ;
	unsigned int i;
	bool done;

	do {
		done = true;
		local_bh_disable();
		for (i = 0; i < n; i++) {
			if (READ_ONCE(chs[i]->sq.ci) == chs[i]->sq.pi)
				continue;
			done = false;
			napi_schedule(&chs[i]->napi);
		}
		local_bh_enable();
		if (!done)
			usleep_range(200, 500);
	} while (!done && time_before(jiffies, deadline));
	if (done)
		return;

	netdev_warn(priv->netdev, "TX queues did not complete in a second: dropping what they hold\n");
	for (i = 0; i < n; i++) {
		struct cxen_sq *sq = &chs[i]->sq;

		if (READ_ONCE(sq->ci) == sq->pi)
			continue;
		cxen_sq_report(chs[i], "giving up on");
		cxen_sq_stop_hw(sq);
		/* Reap CQEs written before the destroy, then drop the rest. */
		napi_disable(&chs[i]->napi);
		local_bh_disable();
		cxen_poll_tx(sq, 0);
		local_bh_enable();
		cxen_sq_drop_pending(sq);
		napi_enable(&chs[i]->napi);
	}
}

/*
 * Let channels that no longer receive new work finish: destroy their RQs
 * in the device, have NAPI reap the last RX CQEs and TX completions, then
 * stop NAPI. SQs the device never completes (stalled, in error) are given
 * up after a second: their packets are dropped and counted.
 */
static void cxen_channels_drain(struct cxen_priv *priv,
				struct cxen_channel **chs, unsigned int n)
{
	unsigned long deadline;
	unsigned int i;
	bool quiet;

	for (i = 0; i < n; i++)
		cxen_rq_stop_hw(&chs[i]->rq);
	/* The second starts now: each DESTROY_RQ above may take a while. */
	deadline = jiffies + HZ;
	do {
		quiet = true;
		local_bh_disable();
		for (i = 0; i < n; i++) {
			if (cxen_channel_quiet(chs[i]))
				continue;
			quiet = false;
			napi_schedule(&chs[i]->napi);
		}
		local_bh_enable();
		if (!quiet)
			usleep_range(500, 1000);
	} while (!quiet && time_before(jiffies, deadline));
	if (!quiet)
		netdev_warn(priv->netdev, "old queues did not drain in a second: dropping what they hold\n");
	for (i = 0; i < n; i++) {
		napi_disable(&chs[i]->napi);
		if (!quiet && !cxen_channel_quiet(chs[i]))
			netdev_warn(priv->netdev, "queue %u: SQ %u pi %u ci %u, its CQ %u ci %u %s; RQ %u CQ %u ci %u %s\n",
				    i, chs[i]->sq.sqn, chs[i]->sq.pi,
				    chs[i]->sq.ci, chs[i]->sq.cq.cqn,
				    chs[i]->sq.cq.ci,
				    cxen_cqe_owned(&chs[i]->sq.cq) ? "has CQEs" : "empty",
				    chs[i]->rq.rqn, chs[i]->rq.cq.cqn,
				    chs[i]->rq.cq.ci,
				    cxen_cqe_owned(&chs[i]->rq.cq) ? "has CQEs" : "empty");
	}
}

/*
 * Enable the new set's NAPI and arm its CQs before any frame is steered to
 * it: its RX rings must be served from the first frame on, while TX still
 * runs on the old set.
 */
static void cxen_channels_start(struct cxen_priv *priv,
				struct cxen_channel **chs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		napi_enable(&chs[i]->napi);
		cxen_cq_arm(priv->cdev, &chs[i]->sq.cq);
		cxen_cq_arm(priv->cdev, &chs[i]->rq.cq);
	}
}

/* Tie the stack's queues to the NAPI instances of the live set. */
static void cxen_channels_link(struct cxen_priv *priv,
			       struct cxen_channel **chs, unsigned int n)
{
	unsigned int i;

	for (i = 0; i < n; i++) {
		netif_queue_set_napi(priv->netdev, i, NETDEV_QUEUE_TYPE_RX,
				     &chs[i]->napi);
		netif_queue_set_napi(priv->netdev, i, NETDEV_QUEUE_TYPE_TX,
				     &chs[i]->napi);
	}
}

/*
 * Make @chs the live set (NULL: none) with TX paused; the previous live
 * set becomes the stale one for the stats until cxen_channels_free().
 */
static void cxen_channels_publish(struct cxen_priv *priv,
				  struct cxen_channel **chs, unsigned int n)
{
	spin_lock_bh(&priv->stats_lock);
	priv->stale = priv->live;
	priv->num_stale = priv->num_live;
	priv->live = chs;
	priv->num_live = n;
	spin_unlock_bh(&priv->stats_lock);
	WRITE_ONCE(priv->num_channels, 0);
	rcu_assign_pointer(priv->channels, chs);
	WRITE_ONCE(priv->num_channels, n);
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

/**
 * cxen_channels_switch() - replace the live channel set without a gap
 * @priv: the port, running or being opened
 * @params: the parameters of the new set (become priv->params on success)
 * @extack: for the user-facing error, may be NULL
 *
 * Return: 0, or a negative errno with the old set (if any) still running.
 */
static int cxen_channels_switch(struct cxen_priv *priv,
				const struct cxen_params *params,
				struct netlink_ext_ack *extack)
{
	struct net_device *netdev = priv->netdev;
	struct cxen_params old = priv->params;
	struct cxen_channel **chs, **old_chs;
	unsigned int i, n = params->num_channels;
	u32 indir[CXEN_RSS_TABLE_SIZE];
	unsigned int old_n = priv->num_live;
	bool set_mtu, mtu_first;
	int err;

	/* Channel creation reads the parameters from priv. */
	priv->params = *params;
	chs = cxen_channels_create(priv, n);
	if (IS_ERR(chs)) {
		err = PTR_ERR(chs);
		NL_SET_ERR_MSG_MOD(extack, "cannot allocate the new queues: old ones kept");
		goto err_params;
	}

	cxen_channels_start(priv, chs, n);

	/*
	 * A frame the port accepts must fit the buffers of the RQ it lands
	 * in, or it becomes an error CQE: the port's MTU goes down before
	 * RX moves to the new set's smaller buffers, and up only after RX
	 * moved to its larger ones.
	 */
	set_mtu = params->mtu != old.mtu || !old_n;
	mtu_first = set_mtu && params->mtu < old.mtu;
	if (mtu_first) {
		err = cxen_set_port_mtu(priv, params->mtu, extack);
		if (err)
			goto err_rss;
	}
	cxen_rss_indir_for(priv, n, indir);
	err = cxen_rss_apply(priv, priv->rss_key, indir, chs, n);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "device refused to steer RX to the new queues");
		goto err_mtu_first;
	}
	if (set_mtu && !mtu_first) {
		err = cxen_set_port_mtu(priv, params->mtu, extack);
		if (err)
			goto err_steer_back;
	}

	/*
	 * Switch TX: pause it, resize the stack's queues, let the old SQs
	 * finish, resume on the new. The resize comes before the drain:
	 * if it fails, the old SQs resume whole, none given up.
	 */
	if (priv->live)
		cxen_channels_serve(priv->live, old_n, false);
	netif_tx_disable(netdev);
	err = netif_set_real_num_tx_queues(netdev, n);
	if (!err)
		err = netif_set_real_num_rx_queues(netdev, n);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "cannot resize the stack's queues: old ones kept");
		netif_set_real_num_tx_queues(netdev, old_n ? old_n : 1);
		if (priv->live)
			cxen_channels_serve(priv->live, old_n, true);
		netif_tx_wake_all_queues(netdev);
		goto err_mtu_back;
	}
	if (priv->live)
		cxen_channels_drain_tx(priv, priv->live, old_n);
	old_chs = priv->live;
	memcpy(priv->rss_indir, indir, sizeof(indir));
	cxen_channels_publish(priv, chs, n);
	cxen_channels_link(priv, chs, n);
	cxen_channels_serve(chs, n, true);
	netif_tx_wake_all_queues(netdev);

	if (old_chs) {
		cxen_channels_drain(priv, old_chs, old_n);
		for (i = n; i < old_n; i++) {
			netif_queue_set_napi(netdev, i, NETDEV_QUEUE_TYPE_RX, NULL);
			netif_queue_set_napi(netdev, i, NETDEV_QUEUE_TYPE_TX, NULL);
		}
		cxen_channels_free(priv, old_chs, old_n);
	}
	return 0;

err_mtu_back:
	if (!mtu_first && params->mtu != old.mtu)
		cxen_set_port_mtu(priv, old.mtu, NULL);
err_steer_back:
	if (old_n && cxen_rss_apply(priv, priv->rss_key, priv->rss_indir,
				    priv->live, old_n))
		netdev_err(netdev, "cannot steer RX back to the old queues\n");
err_mtu_first:
	if (mtu_first)
		cxen_set_port_mtu(priv, old.mtu, NULL);
err_rss:
	/* Frames the new set received meanwhile went up the stack. */
	cxen_channels_drain(priv, chs, n);
	cxen_channels_free(priv, chs, n);
err_params:
	priv->params = old;
	return err;
}

/* Stop the datapath: TX first, then drain and free every channel. */
static void cxen_channels_close(struct cxen_priv *priv)
{
	struct cxen_channel **chs = priv->live;
	unsigned int i, n = priv->num_live;

	if (!chs)
		return;
	cxen_channels_serve(chs, n, false);
	netif_tx_disable(priv->netdev);
	cxen_channels_drain_tx(priv, chs, n);
	cxen_channels_publish(priv, NULL, 0);
	cxen_channels_drain(priv, chs, n);
	for (i = 0; i < n; i++) {
		netif_queue_set_napi(priv->netdev, i, NETDEV_QUEUE_TYPE_RX, NULL);
		netif_queue_set_napi(priv->netdev, i, NETDEV_QUEUE_TYPE_TX, NULL);
	}
	cxen_channels_free(priv, chs, n);
}

static int cxen_open(struct net_device *netdev)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_params p = priv->params;
	int err;

	netif_carrier_off(netdev);
	err = cxen_channels_switch(priv, &p, NULL);
	if (err) {
		netdev_err(netdev, "cannot create queues: %d\n", err);
		return err;
	}
	err = cxen_cmd_set_port(priv->cdev, priv->port, CXEN_PORT_SET_ADMIN, 0,
				true);
	if (err) {
		netdev_err(netdev, "device refused to bring the port up: %d\n", err);
		cxen_channels_close(priv);
		return err;
	}
	cxen_update_carrier(priv);
	schedule_delayed_work(&priv->health_work, round_jiffies_relative(HZ));
	return 0;
}

static int cxen_stop(struct net_device *netdev)
{
	struct cxen_priv *priv = netdev_priv(netdev);

	cancel_delayed_work_sync(&priv->health_work);
	netif_carrier_off(netdev);
	cxen_cmd_set_port(priv->cdev, priv->port, CXEN_PORT_SET_ADMIN, 0, false);
	cxen_channels_close(priv);
	/* New channels start with fresh SQs: pending resets are moot. */
	bitmap_zero(priv->sq_reset, CXEN_HW_MAX_CHANNELS);
	return 0;
}

/* Whether the RX buffers of @p can be laid out: check before touching anything. */
static int cxen_params_check(struct cxen_priv *priv, const struct cxen_params *p,
			     struct netlink_ext_ack *extack)
{
	struct cxen_frag_layout l;
	struct cxen_frag_param fp;
	unsigned int i;

	if (netif_is_rxfh_configured(priv->netdev))
		for (i = 0; i < CXEN_RSS_TABLE_SIZE; i++)
			if (priv->rss_indir[i] >= p->num_channels) {
				NL_SET_ERR_MSG_FMT_MOD(extack,
						       "RSS table uses queue %u: reset it (ethtool -X default)",
						       priv->rss_indir[i]);
				return -EINVAL;
			}
	cxen_frag_param_init(priv, p->mtu, &fp);
	if (cxen_rx_strategies[p->rx_strategy].layout(&fp, &l)) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "MTU %u does not fit %u RX fragments with %s buffers",
				       p->mtu, fp.max_frags,
				       cxen_rx_strategies[p->rx_strategy].name);
		return -EINVAL;
	}
	return 0;
}

/**
 * cxen_reconfigure() - switch a port to new datapath parameters
 * @priv: the port
 * @new: the parameters wanted
 * @extack: for the user-facing error, may be NULL
 *
 * A port that is down just takes @new (the MTU goes to the device at the
 * next open). A running port switches to a new channel set without a
 * gap (cxen_channels_switch()); if that fails, the old set keeps running
 * untouched. Caller holds RTNL.
 *
 * Return: 0 or a negative errno, with the old configuration in place.
 */
int cxen_reconfigure(struct cxen_priv *priv, const struct cxen_params *new,
		     struct netlink_ext_ack *extack)
{
	int err;

	ASSERT_RTNL();
	err = cxen_params_check(priv, new, extack);
	if (err)
		return err;
	if (!netif_running(priv->netdev)) {
		priv->params = *new;
		return 0;
	}
	err = cxen_channels_switch(priv, new, extack);
	if (err)
		netdev_err(priv->netdev, "reconfiguration failed (%d): the previous configuration keeps running\n",
			   err);
	return err;
}

static int cxen_change_mtu(struct net_device *netdev, int new_mtu)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_params p = priv->params;
	int err;

	p.mtu = new_mtu;
	err = cxen_reconfigure(priv, &p, NULL);
	if (err) {
		netdev_err(netdev, "cannot change MTU to %d: %d\n", new_mtu, err);
		return err;
	}
	WRITE_ONCE(netdev->mtu, new_mtu);
	return 0;
}

/* VLAN strip and loopback are the device's; the other features are ours. */
static int cxen_set_features(struct net_device *netdev,
			     netdev_features_t features)
{
	netdev_features_t changed = netdev->features ^ features;
	struct cxen_priv *priv = netdev_priv(netdev);
	int err;

	if (!(changed & (NETIF_F_HW_VLAN_CTAG_RX | NETIF_F_LOOPBACK)))
		return 0;
	err = cxen_cmd_set_port_offloads(priv->cdev, priv->port,
					 features & NETIF_F_HW_VLAN_CTAG_RX,
					 features & NETIF_F_LOOPBACK);
	if (err)
		netdev_err(netdev, "device refused VLAN strip %s, loopback %s: %d\n",
			   str_on_off(features & NETIF_F_HW_VLAN_CTAG_RX),
			   str_on_off(features & NETIF_F_LOOPBACK), err);
	return err;
}

static const struct net_device_ops cxen_netdev_ops = {
	.ndo_open		= cxen_open,
	.ndo_stop		= cxen_stop,
	.ndo_start_xmit		= cxen_start_xmit,
	.ndo_features_check	= cxen_features_check,
	.ndo_set_features	= cxen_set_features,
	.ndo_get_stats64	= cxen_get_stats64,
	.ndo_tx_timeout		= cxen_tx_timeout,
	.ndo_change_mtu		= cxen_change_mtu,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_set_mac_address	= eth_mac_addr,
};

/* ------------------------------------------------------------------ */
/* Async events                                                        */
/* ------------------------------------------------------------------ */

static void cxen_async_work(struct work_struct *work)
{
	struct cxen_dev *cdev = container_of(work, struct cxen_dev, async_work);
	u32 cause = cxen_rd32(cdev, CXEN_REG_ASYNC_CAUSE);
	unsigned int p;

	if (cause & CXEN_ASYNC_QUEUE_ERROR)
		dev_warn(cdev->dev, "device reports a queue in error state\n");
	if (cause & CXEN_ASYNC_CQ_OVERRUN)
		dev_warn(cdev->dev, "device reports a CQ overrun: completions lost\n");

	rtnl_lock();
	for (p = 0; p < cdev->caps.num_ports; p++) {
		struct cxen_priv *priv;

		if (!(cause & CXEN_ASYNC_PORT_CHANGE(p)) || !cdev->ports[p])
			continue;
		priv = netdev_priv(cdev->ports[p]);
		cxen_update_carrier(priv);
	}
	rtnl_unlock();
}

static irqreturn_t cxen_async_irq(int irq, void *data)
{
	struct cxen_dev *cdev = data;

	schedule_work(&cdev->async_work);
	return IRQ_HANDLED;
}

/* ------------------------------------------------------------------ */
/* Probe / remove                                                      */
/* ------------------------------------------------------------------ */

static int cxen_port_create(struct cxen_dev *cdev, u8 port)
{
	struct cxen_port_counters hw;
	struct cxen_port_info info;
	struct net_device *netdev;
	struct cxen_priv *priv;
	unsigned int i;
	int err;

	err = cxen_cmd_query_port(cdev, port, &info);
	if (err)
		return err;

	netdev = alloc_etherdev_mqs(sizeof(*priv), cdev->caps.max_channels,
				    cdev->caps.max_channels);
	if (!netdev)
		return -ENOMEM;
	SET_NETDEV_DEV(netdev, cdev->dev);
	netdev->dev_port = port;

	priv = netdev_priv(netdev);
	priv->cdev = cdev;
	priv->netdev = netdev;
	priv->port = port;
	priv->params.num_channels = min_t(u32, CXEN_DEF_CHANNELS,
					  cdev->caps.max_channels);
	priv->params.rq_size = CXEN_DEF_RING_SIZE;
	priv->params.sq_size = CXEN_DEF_RING_SIZE;
	priv->params.mtu = ETH_DATA_LEN;
	priv->rx_pause = true;
	priv->tx_pause = true;
	priv->params.rx_usecs = CXEN_DEF_RX_USECS;
	priv->params.rx_frames = CXEN_DEF_RX_FRAMES;
	priv->params.tx_usecs = CXEN_DEF_TX_USECS;
	priv->params.tx_frames = CXEN_DEF_TX_FRAMES;
	priv->params.rx_strategy = cxen_rx_strategy_param;
	priv->rx_copybreak = CXEN_RX_COPYBREAK_DEF;
	INIT_WORK(&priv->reset_work, cxen_reset_work);
	INIT_DELAYED_WORK(&priv->health_work, cxen_health_work);
	spin_lock_init(&priv->stats_lock);
	mutex_init(&priv->moder_lock);
	netdev_rss_key_fill(priv->rss_key, sizeof(priv->rss_key));
	netdev->watchdog_timeo = 5 * HZ;

	netdev->netdev_ops = &cxen_netdev_ops;
	netdev->ethtool_ops = &cxen_ethtool_ops;
	netdev->stat_ops = &cxen_stat_ops;
	netdev->min_mtu = max_t(u32, cdev->caps.min_mtu, ETH_MIN_MTU);
	netdev->max_mtu = cdev->caps.max_mtu;
	netdev->hw_features = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
			      NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_RXCSUM |
			      NETIF_F_RXHASH | NETIF_F_HW_VLAN_CTAG_TX |
			      NETIF_F_HW_VLAN_CTAG_RX | NETIF_F_LOOPBACK;
	netdev->features = (netdev->hw_features & ~NETIF_F_LOOPBACK) |
			   NETIF_F_HIGHDMA;
	netdev->vlan_features = netdev->features &
				~(NETIF_F_HW_VLAN_CTAG_TX | NETIF_F_HW_VLAN_CTAG_RX);
	netif_set_tso_max_size(netdev, SZ_64K - 1);
	priv->tx_inline_max = CXEN_TX_INLINE_DEF;

	if (is_valid_ether_addr(info.mac)) {
		eth_hw_addr_set(netdev, info.mac);
	} else {
		dev_warn(cdev->dev, "port %u: device MAC %pM invalid, using a random one\n",
			 port, info.mac);
		eth_hw_addr_random(netdev);
	}

	err = cxen_cmd_query_counters(cdev, port, &hw);
	if (err)
		goto err_free;
	for (i = 0; i < ARRAY_SIZE(priv->hw_base); i++)
		priv->hw_base[i] = be64_to_cpu(((__be64 *)&hw)[i]);

	/* The port starts down with the default MTU and offloads. */
	err = cxen_cmd_set_port(cdev, port, CXEN_PORT_SET_MTU | CXEN_PORT_SET_ADMIN,
				netdev->mtu, false);
	if (!err)
		err = cxen_cmd_set_port_offloads(cdev, port,
						 netdev->features & NETIF_F_HW_VLAN_CTAG_RX,
						 false);
	if (!err)
		err = cxen_cmd_set_port_pause(cdev, port, priv->rx_pause,
					      priv->tx_pause);
	if (err)
		goto err_free;

	netif_carrier_off(netdev);
	err = register_netdev(netdev);
	if (err)
		goto err_free;
	cdev->ports[port] = netdev;
	return 0;

err_free:
	mutex_destroy(&priv->moder_lock);
	free_netdev(netdev);
	return err;
}

static void cxen_ports_destroy(struct cxen_dev *cdev)
{
	unsigned int p;

	for (p = 0; p < CXEN_HW_MAX_PORTS; p++) {
		struct net_device *netdev = cdev->ports[p];

		if (!netdev)
			continue;
		unregister_netdev(netdev);
		cancel_work_sync(&((struct cxen_priv *)netdev_priv(netdev))->reset_work);
		rtnl_lock();
		cdev->ports[p] = NULL;
		rtnl_unlock();
		mutex_destroy(&((struct cxen_priv *)netdev_priv(netdev))->moder_lock);
		free_netdev(netdev);
	}
}

static int cxen_probe(struct platform_device *pdev)
{
	struct cxen_dev *cdev;
	unsigned int i;
	int err;

	cdev = devm_kzalloc(&pdev->dev, sizeof(*cdev), GFP_KERNEL);
	if (!cdev)
		return -ENOMEM;
	cdev->pdev = pdev;
	cdev->dev = &pdev->dev;
	ida_init(&cdev->sqn_ida);
	ida_init(&cdev->rqn_ida);
	ida_init(&cdev->cqn_ida);
	INIT_WORK(&cdev->async_work, cxen_async_work);
	platform_set_drvdata(pdev, cdev);

	err = dma_set_mask_and_coherent(cdev->dev, DMA_BIT_MASK(64));
	if (err) {
		dev_err(cdev->dev, "no usable DMA configuration\n");
		return err;
	}
	err = cxen_bus_init(cdev);
	if (err)
		return err;
	err = cxen_cmd_init(cdev);
	if (err)
		return err;
	err = cxen_cmd_query_dev(cdev);
	if (err)
		goto err_cmd;

	for (i = 0; i < cdev->caps.num_vectors; i++) {
		err = platform_get_irq(pdev, i);
		if (err < 0)
			goto err_cmd;
		cdev->irqs[i] = err;
	}
	err = request_irq(cdev->irqs[CXEN_HW_ASYNC_VECTOR], cxen_async_irq, 0,
			  dev_name(cdev->dev), cdev);
	if (err)
		goto err_cmd;

	for (i = 0; i < cdev->caps.num_ports; i++) {
		err = cxen_port_create(cdev, i);
		if (err) {
			dev_err(cdev->dev, "cannot create port %u: %d\n", i, err);
			goto err_ports;
		}
	}
	dev_info(cdev->dev, "%u ports, %u channels max, %u RX segments per WQE\n",
		 cdev->caps.num_ports, cdev->caps.max_channels,
		 cdev->caps.max_rx_segs);
	return 0;

err_ports:
	cxen_ports_destroy(cdev);
	free_irq(cdev->irqs[CXEN_HW_ASYNC_VECTOR], cdev);
	cancel_work_sync(&cdev->async_work);
err_cmd:
	cxen_cmd_cleanup(cdev);
	return err;
}

static void cxen_remove(struct platform_device *pdev)
{
	struct cxen_dev *cdev = platform_get_drvdata(pdev);

	cxen_ports_destroy(cdev);
	free_irq(cdev->irqs[CXEN_HW_ASYNC_VECTOR], cdev);
	cancel_work_sync(&cdev->async_work);
	cxen_cmd_cleanup(cdev);
	ida_destroy(&cdev->sqn_ida);
	ida_destroy(&cdev->rqn_ida);
	ida_destroy(&cdev->cqn_ida);
}

static const struct platform_device_id cxen_id_table[] = {
	{ .name = CXEN_SIM_DEV_NAME },
	{ }
};
MODULE_DEVICE_TABLE(platform, cxen_id_table);

static struct platform_driver cxen_driver = {
	.probe		= cxen_probe,
	.remove		= cxen_remove,
	.id_table	= cxen_id_table,
	.driver		= {
		.name	= CXEN_DRV_NAME,
	},
};
module_platform_driver(cxen_driver);

MODULE_AUTHOR("cxen developers");
MODULE_DESCRIPTION("cxen ConnectX-style Ethernet driver");
MODULE_LICENSE("GPL");
MODULE_VERSION(CXEN_DRV_VERSION);
