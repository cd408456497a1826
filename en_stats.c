// SPDX-License-Identifier: GPL-2.0
/*
 * cxen: statistics.
 *
 * Every counter lives in the queue that counts it (u64_stats, no atomics
 * in the data path). Readers fold the live channels, the channels a
 * reconfiguration is draining and the base, which holds what destroyed
 * channels counted, under priv->stats_lock: totals never go back.
 */
#include <kunit/visibility.h>
#include <linux/netdevice.h>
#include <net/netdev_queues.h>
#include <net/page_pool/helpers.h>

#include "en.h"

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

/**
 * cxen_channel_fold() - fold a torn-down channel's counters into the base
 * @ch: the channel, its queues destroyed
 *
 * Caller holds priv->stats_lock, in the section that takes @ch off the
 * stats' lists, so that totals never go back.
 */
void cxen_channel_fold(struct cxen_channel *ch)
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

/* ------------------------------------------------------------------ */
/* Port and queue totals                                               */
/* ------------------------------------------------------------------ */

#define CXEN_ALL_QUEUES	(-1)

/*
 * @b += the counters of the channels of @chans (NULL: none) that serve
 * queue @idx, or of all of them (CXEN_ALL_QUEUES). Under stats_lock.
 */
static void cxen_chans_fold(const struct cxen_chans *chans, int idx,
			    struct cxen_stats_base *b)
{
	unsigned int i;

	if (!chans)
		return;
	for (i = 0; i < chans->num; i++) {
		if (idx != CXEN_ALL_QUEUES && i != idx)
			continue;
		cxen_rq_fold_stats(&chans->ch[i]->rq, b);
		cxen_sq_fold_stats(&chans->ch[i]->sq, b);
	}
}

/**
 * cxen_get_stats_base() - totals over the port's life
 * @priv: the port
 * @b: filled with the counters of destroyed channels, of channels being
 *	drained by a reconfiguration and of the live ones
 */
void cxen_get_stats_base(struct cxen_priv *priv, struct cxen_stats_base *b)
{
	spin_lock_bh(&priv->stats_lock);
	*b = priv->base;
	cxen_chans_fold(cxen_chans_rtnl(priv), CXEN_ALL_QUEUES, b);
	cxen_chans_fold(priv->draining, CXEN_ALL_QUEUES, b);
	spin_unlock_bh(&priv->stats_lock);
	b->tx_timeout = atomic64_read(&priv->tx_timeouts);
	b->tx_hang = atomic64_read(&priv->tx_hangs);
	b->tx_recover = atomic64_read(&priv->tx_recovers);
}
EXPORT_SYMBOL_IF_KUNIT(cxen_get_stats_base);

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
	struct cxen_chans *sets[2];
	unsigned int s, i;

	spin_lock_bh(&priv->stats_lock);
	*pps = priv->pp_base;
	sets[0] = cxen_chans_rtnl(priv);
	sets[1] = priv->draining;
	for (s = 0; s < ARRAY_SIZE(sets); s++)
		for (i = 0; sets[s] && i < sets[s]->num; i++)
			cxen_rq_pp_stats(&sets[s]->ch[i]->rq, pps);
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

	spin_lock_bh(&priv->stats_lock);
	*q = priv->qbase[idx];
	cxen_chans_fold(cxen_chans_rtnl(priv), idx, &b);
	cxen_chans_fold(priv->draining, idx, &b);
	spin_unlock_bh(&priv->stats_lock);
	q->rx_packets += b.rx_packets;
	q->rx_bytes += b.rx_bytes;
	q->tx_packets += b.tx_packets;
	q->tx_bytes += b.tx_bytes;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_get_queue_stats);

void cxen_get_stats64(struct net_device *netdev, struct rtnl_link_stats64 *s)
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
EXPORT_SYMBOL_IF_KUNIT(cxen_get_stats64);

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
	cxen_chans_fold(cxen_chans_rtnl(priv), idx, b);
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

	/* Destroyed channels and channels being drained. */
	spin_lock_bh(&priv->stats_lock);
	b = priv->base;
	cxen_chans_fold(priv->draining, CXEN_ALL_QUEUES, &b);
	spin_unlock_bh(&priv->stats_lock);
	cxen_qstats_fill_rx(rx, &b);
	cxen_qstats_fill_tx(tx, &b);
}

const struct netdev_stat_ops cxen_stat_ops = {
	.get_queue_stats_rx	= cxen_get_queue_stats_rx,
	.get_queue_stats_tx	= cxen_get_queue_stats_tx,
	.get_base_stats		= cxen_get_base_stats,
};
EXPORT_SYMBOL_IF_KUNIT(cxen_stat_ops);
