// SPDX-License-Identifier: GPL-2.0
/*
 * cxen: statistics.
 *
 * Every counter lives in the queue that counts it (u64_stats, no atomics
 * in the data path). Readers fold the live channels, the channels a
 * reconfiguration is draining and the base, which holds what destroyed
 * channels counted, under priv->stats_lock: totals never go back.
 *
 * What each counter is (its scope, its total, its ethtool -S name, what
 * it feeds in ndo_get_stats64 and the queue stats) is one line of
 * en_stats_list.h; the readers below walk cxen_sw_stats[], built from it.
 */
#include <kunit/visibility.h>
#include <linux/bitops.h>
#include <linux/ethtool.h>
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

/* ------------------------------------------------------------------ */
/* The counters' table, from en_stats_list.h                           */
/* ------------------------------------------------------------------ */

struct page_pool_stats;

enum cxen_stat_scope {
	CXEN_STAT_RQ,
	CXEN_STAT_POOL,
	CXEN_STAT_SQ,
	CXEN_STAT_SQC,
	CXEN_STAT_PORT,
};

/**
 * struct cxen_sw_stat - one line of en_stats_list.h
 * @string: its ethtool -S name
 * @scope: where it is counted (enum cxen_stat_scope)
 * @qstat: 1 + its index among the u64s of struct netdev_queue_stats_rx,
 *	or, with %CXEN_QSTAT_TX, of struct netdev_queue_stats_tx; 0: none
 * @stats64: bit i set: added to the u64 i of struct rtnl_link_stats64
 * @total: offset of its total in struct cxen_stats_base
 * @offset: offset of the counter in its scope's struct
 * @pool: %CXEN_STAT_POOL: the total, from the port's page pools' counters
 */
struct cxen_sw_stat {
	char	string[ETH_GSTRING_LEN];
	u8	scope;
	u8	qstat;
	u32	stats64;
	u32	total;
	u32	offset;
	u64	(*pool)(const struct page_pool_stats *pps);
};

/* The qstat and stats64 columns of the list. */
#define CXEN_U64_IDX(type, f)	(offsetof(type, f) / sizeof(u64))
#define CXEN_QSTAT_TX		0x80
#define QRX(f)	(CXEN_U64_IDX(struct netdev_queue_stats_rx, f) + 1)
#define QTX(f)	(CXEN_QSTAT_TX | (CXEN_U64_IDX(struct netdev_queue_stats_tx, f) + 1))
#define S64(f)	BIT(CXEN_U64_IDX(struct rtnl_link_stats64, f))

#ifdef CONFIG_PAGE_POOL_STATS
/*
 * The CXEN_POOL lines, from the counters of every page pool the port had.
 * A page an skb or the ring let go of goes back to its pool's cache or
 * ring for reuse (recycle), or, both full or the page still referenced
 * elsewhere, back to the page allocator (release). The pool also releases
 * what its cache and ring hold when it is destroyed: not counted here.
 */
static u64 cxen_pool_recycle(const struct page_pool_stats *pps)
{
	return pps->recycle_stats.cached + pps->recycle_stats.ring;
}

static u64 cxen_pool_release(const struct page_pool_stats *pps)
{
	return pps->recycle_stats.ring_full +
	       pps->recycle_stats.released_refcnt;
}

#else
#define cxen_pool_recycle	NULL
#define cxen_pool_release	NULL
#endif

#define CXEN_SW_STAT(SCOPE, type, name, field, qs, s64)		\
	{ .string = #name, .scope = CXEN_STAT_##SCOPE, .qstat = qs,	\
	  .stats64 = s64, .total = offsetof(struct cxen_stats_base, name), \
	  .offset = offsetof(type, field) },

static const struct cxen_sw_stat cxen_sw_stats[] = {
#define CXEN_RQ(...)							\
	CXEN_SW_STAT(RQ, struct cxen_rq_stats, __VA_ARGS__)
#define CXEN_POOL(name, field, qs, s64)					\
	{ .string = #name, .scope = CXEN_STAT_POOL, .qstat = qs,	\
	  .stats64 = s64, .total = offsetof(struct cxen_stats_base, name), \
	  .pool = cxen_pool_##field },
#define CXEN_SQ(...)							\
	CXEN_SW_STAT(SQ, struct cxen_sq_stats, __VA_ARGS__)
#define CXEN_SQC(...)							\
	CXEN_SW_STAT(SQC, struct cxen_sq_cstats, __VA_ARGS__)
#define CXEN_PORT(...)							\
	CXEN_SW_STAT(PORT, struct cxen_port_stats, __VA_ARGS__)
#include "en_stats_list.h"
};

#define CXEN_SW_STATS_END	(cxen_sw_stats + ARRAY_SIZE(cxen_sw_stats))

static u64 *cxen_stat_ptr(struct cxen_stats_base *b,
			  const struct cxen_sw_stat *s)
{
	return (void *)b + s->total;
}

static u64 cxen_stat_get(const struct cxen_stats_base *b,
			 const struct cxen_sw_stat *s)
{
	return *(const u64 *)((const void *)b + s->total);
}

/* ------------------------------------------------------------------ */
/* Publishing what NAPI counted                                        */
/* ------------------------------------------------------------------ */

#if !CXEN_STATS_DIRECT
/*
 * Add the @n counters of @acc to the first @n u64_stats_t of @set, a
 * struct built from the same lines of en_stats_list.h in the same order,
 * in one section, and zero them.
 */
static void cxen_stats_publish(u64_stats_t *set, struct u64_stats_sync *syncp,
			       u64 *acc, unsigned int n)
{
	unsigned int i;

	u64_stats_update_begin(syncp);
	for (i = 0; i < n; i++) {
		if (!acc[i])
			continue;
		u64_stats_add(&set[i], acc[i]);
		acc[i] = 0;
	}
	u64_stats_update_end(syncp);
}

/**
 * cxen_rq_stats_publish() - make what NAPI counted on an RQ visible
 * @rq: the RQ; NAPI's context, or NAPI disabled
 *
 * One short u64_stats section per poll, not one around GRO and delivery.
 */
void cxen_rq_stats_publish(struct cxen_rq *rq)
{
	BUILD_BUG_ON(offsetof(struct cxen_rq_stats, syncp) !=
		     sizeof(struct cxen_rq_acc) / sizeof(u64) *
		     sizeof(u64_stats_t));
	cxen_stats_publish((u64_stats_t *)&rq->stats, &rq->stats.syncp,
			   (u64 *)&rq->acc, sizeof(rq->acc) / sizeof(u64));
}

/**
 * cxen_sq_cstats_publish() - make what completions counted visible
 * @sq: the SQ; NAPI's context (or netpoll's), or NAPI disabled
 */
void cxen_sq_cstats_publish(struct cxen_sq *sq)
{
	BUILD_BUG_ON(offsetof(struct cxen_sq_cstats, syncp) !=
		     sizeof(struct cxen_sqc_acc) / sizeof(u64) *
		     sizeof(u64_stats_t));
	cxen_stats_publish((u64_stats_t *)&sq->cstats, &sq->cstats.syncp,
			   (u64 *)&sq->cacc, sizeof(sq->cacc) / sizeof(u64));
}

#endif /* !CXEN_STATS_DIRECT */

/* ------------------------------------------------------------------ */
/* Folding                                                             */
/* ------------------------------------------------------------------ */

/*
 * @b += the counters of one u64_stats set of a queue, @set of @scope
 * (%CXEN_STAT_RQ, %CXEN_STAT_SQ or %CXEN_STAT_SQC), read in one section.
 */
static void cxen_set_stats_add(const void *set,
			       const struct u64_stats_sync *syncp,
			       enum cxen_stat_scope scope,
			       struct cxen_stats_base *b)
{
	struct cxen_stats_base o = {};
	const struct cxen_sw_stat *s;
	unsigned int start;

	do {
		start = u64_stats_fetch_begin(syncp);
		for (s = cxen_sw_stats; s < CXEN_SW_STATS_END; s++)
			if (s->scope == scope)
				*cxen_stat_ptr(&o, s) =
					u64_stats_read(set + s->offset);
	} while (u64_stats_fetch_retry(syncp, start));
	cxen_counters_add(b, &o, sizeof(o));
}

/* @b += the counters of one SQ, the stack's or an XDP SQ. */
static void cxen_sq_stats_add(const struct cxen_sq *sq,
			      struct cxen_stats_base *b)
{
	cxen_set_stats_add(&sq->stats, &sq->stats.syncp, CXEN_STAT_SQ, b);
	cxen_set_stats_add(&sq->cstats, &sq->cstats.syncp, CXEN_STAT_SQC, b);
}

/* @b += every counter of the channel @ch, its XDP SQ's included. */
static void cxen_ch_stats_add(const struct cxen_channel *ch,
			      struct cxen_stats_base *b)
{
	cxen_set_stats_add(&ch->rq.stats, &ch->rq.stats.syncp,
			   CXEN_STAT_RQ, b);
	cxen_sq_stats_add(&ch->sq, b);
	if (ch->rq.xdp)
		cxen_sq_stats_add(&ch->xsq, b);
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
	struct cxen_stats_base b = {};

	cxen_ch_stats_add(ch, &b);
	cxen_counters_add(&priv->qbase[ch->idx], &b, sizeof(b));
	cxen_counters_add(&priv->base, &b, sizeof(b));
#ifdef CONFIG_PAGE_POOL_STATS
	cxen_counters_add(&priv->pp_base, &ch->rq.pp_final,
			  sizeof(ch->rq.pp_final));
#endif
}

/**
 * cxen_rq_fold() - fold a freed RQ a queue restart retired into the base
 * @priv: the port
 * @rq: the RQ, no longer in a channel, its page_pool destroyed
 *
 * Caller holds priv->stats_lock, in the section that forgets @rq as
 * priv->retired_rq, so that totals never go back.
 */
void cxen_rq_fold(struct cxen_priv *priv, struct cxen_rq *rq)
{
	struct cxen_stats_base b = {};

	cxen_set_stats_add(&rq->stats, &rq->stats.syncp, CXEN_STAT_RQ, &b);
	cxen_counters_add(&priv->qbase[rq->qid], &b, sizeof(b));
	cxen_counters_add(&priv->base, &b, sizeof(b));
#ifdef CONFIG_PAGE_POOL_STATS
	cxen_counters_add(&priv->pp_base, &rq->pp_final, sizeof(rq->pp_final));
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
		cxen_ch_stats_add(chans->ch[i], b);
	}
}

/* @b += the counters of a retired RQ of queue @idx (or any), if one. */
static void cxen_retired_fold(const struct cxen_priv *priv, int idx,
			      struct cxen_stats_base *b)
{
	const struct cxen_rq *rq = priv->retired_rq;

	if (rq && (idx == CXEN_ALL_QUEUES || rq->qid == idx))
		cxen_set_stats_add(&rq->stats, &rq->stats.syncp,
				   CXEN_STAT_RQ, b);
}

/**
 * cxen_get_stats_base() - totals over the port's life
 * @priv: the port
 * @b: filled with the counters of destroyed channels, of channels being
 *	drained by a reconfiguration and of the live ones
 */
void cxen_get_stats_base(struct cxen_priv *priv, struct cxen_stats_base *b)
{
	const struct cxen_sw_stat *s;
#ifdef CONFIG_PAGE_POOL_STATS
	struct page_pool_stats pps;

	cxen_get_pp_stats(priv, &pps);
#endif
	spin_lock_bh(&priv->stats_lock);
	*b = priv->base;
	cxen_chans_fold(cxen_chans_rtnl(priv), CXEN_ALL_QUEUES, b);
	cxen_chans_fold(priv->draining, CXEN_ALL_QUEUES, b);
	cxen_retired_fold(priv, CXEN_ALL_QUEUES, b);
	spin_unlock_bh(&priv->stats_lock);
	for (s = cxen_sw_stats; s < CXEN_SW_STATS_END; s++) {
		if (s->scope == CXEN_STAT_PORT)
			*cxen_stat_ptr(b, s) =
				atomic64_read((void *)&priv->port_stats +
					      s->offset);
#ifdef CONFIG_PAGE_POOL_STATS
		if (s->scope == CXEN_STAT_POOL)
			*cxen_stat_ptr(b, s) = s->pool(&pps);
#endif
	}
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
	if (priv->retired_rq)
		cxen_rq_pp_stats(priv->retired_rq, pps);
	spin_unlock_bh(&priv->stats_lock);
}
#endif

/**
 * cxen_get_queue_stats() - per-queue totals over the port's life
 * @priv: the port
 * @idx: queue index, below CXEN_HW_MAX_CHANNELS
 * @q: filled with the counts of every channel that had this index (the
 *	queue counters: CXEN_PORT ones are the port's, 0 here)
 */
void cxen_get_queue_stats(struct cxen_priv *priv, unsigned int idx,
			  struct cxen_stats_base *q)
{
	spin_lock_bh(&priv->stats_lock);
	*q = priv->qbase[idx];
	cxen_chans_fold(cxen_chans_rtnl(priv), idx, q);
	cxen_chans_fold(priv->draining, idx, q);
	cxen_retired_fold(priv, idx, q);
	spin_unlock_bh(&priv->stats_lock);
}
EXPORT_SYMBOL_IF_KUNIT(cxen_get_queue_stats);

/**
 * cxen_get_stats64() - ndo_get_stats64
 * @netdev: the port
 * @stats: zeroed by the core (dev_get_stats()); each total is added to
 *	the fields its S64() names
 */
void cxen_get_stats64(struct net_device *netdev,
		      struct rtnl_link_stats64 *stats)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	const struct cxen_sw_stat *s;
	u64 *to = (u64 *)stats;
	struct cxen_stats_base b;
	u64 hw[CXEN_HW_NCNT];
	unsigned long fields;
	unsigned int f;

	BUILD_BUG_ON(sizeof(*stats) % sizeof(u64) ||
		     sizeof(*stats) / sizeof(u64) > 32);
	cxen_get_stats_base(priv, &b);
	for (s = cxen_sw_stats; s < CXEN_SW_STATS_END; s++) {
		fields = s->stats64;
		for_each_set_bit(f, &fields, 32)
			to[f] += cxen_stat_get(&b, s);
	}

	/*
	 * What the device dropped before any CQE, from its counters as last
	 * read (include/uapi/linux/if_link.h says where each goes).
	 */
	spin_lock_bh(&priv->stats_lock);
	memcpy(hw, priv->hw_cache, sizeof(hw));
	spin_unlock_bh(&priv->stats_lock);
	/* No RX buffer posted, or the RQ's CQ full: the host fell behind. */
	stats->rx_missed_errors += hw[CXEN_HW(rx_out_of_buffer)] +
				   hw[CXEN_HW(rx_cq_overrun)];
	/* Longer than the port's MTU. */
	stats->rx_length_errors += hw[CXEN_HW(rx_oversize)];
	stats->rx_errors += hw[CXEN_HW(rx_oversize)];
	/* Nowhere to go: no RQ, or an RQ in the error state. */
	stats->rx_dropped += hw[CXEN_HW(rx_no_rq)] +
			     hw[CXEN_HW(rx_queue_error)];
	stats->multicast += hw[CXEN_HW(rx_multicast)];
	/* Sent without a link, or longer than the MTU: never on the wire. */
	stats->tx_carrier_errors += hw[CXEN_HW(tx_link_down)];
	stats->tx_errors += hw[CXEN_HW(tx_link_down)] +
			    hw[CXEN_HW(tx_oversize)];
	/* The rest of a WQE that failed half sent: never on the wire. */
	stats->tx_dropped += hw[CXEN_HW(tx_discarded)];
}

/**
 * cxen_hw_counters_now() - the device's counters of a port, as they stand
 * @priv: the port
 * @v: filled with CXEN_HW_NCNT counters (struct cxen_port_counters order)
 *
 * Sleeps (a command). Return: 0 or a negative errno.
 */
int cxen_hw_counters_now(struct cxen_priv *priv, u64 *v)
{
	struct cxen_port_counters hw;
	unsigned int i;
	int err;

	err = cxen_cmd_query_counters(priv->cdev, priv->port, &hw);
	if (err)
		return err;
	for (i = 0; i < CXEN_HW_NCNT; i++)
		v[i] = be64_to_cpu(((__be64 *)&hw)[i]);
	return 0;
}

/**
 * cxen_hw_stats_read() - read a port's counters from the device
 * @priv: the port
 * @v: filled with CXEN_HW_NCNT counters, each since the port was created
 *
 * Sleeps (a command). A successful read is also what ndo_get_stats64
 * reports until the next one.
 *
 * Return: 0 or a negative errno (@v and the cache untouched).
 */
int cxen_hw_stats_read(struct cxen_priv *priv, u64 *v)
{
	unsigned int i;
	int err;

	err = cxen_hw_counters_now(priv, v);
	if (err)
		return err;
	for (i = 0; i < CXEN_HW_NCNT; i++)
		v[i] -= priv->hw_base[i];
	spin_lock_bh(&priv->stats_lock);
	memcpy(priv->hw_cache, v, sizeof(priv->hw_cache));
	spin_unlock_bh(&priv->stats_lock);
	return 0;
}

/*
 * Every CXEN_STATS_PERIOD_USECS for the port's life: ndo_get_stats64 reads
 * the cache, so its device counters are at most that old (ethtool -c
 * reports the period as stats-block-usecs).
 */
static void cxen_stats_work(struct work_struct *work)
{
	struct cxen_priv *priv = container_of(to_delayed_work(work),
					      struct cxen_priv, stats_work);
	u64 hw[CXEN_HW_NCNT];

	cxen_hw_stats_read(priv, hw);
	schedule_delayed_work(&priv->stats_work,
			      usecs_to_jiffies(CXEN_STATS_PERIOD_USECS));
}

/**
 * cxen_stats_start() - start caching a port's device counters
 * @priv: the port, its counters' base read
 */
void cxen_stats_start(struct cxen_priv *priv)
{
	INIT_DELAYED_WORK(&priv->stats_work, cxen_stats_work);
	schedule_delayed_work(&priv->stats_work, 0);
}

/**
 * cxen_stats_stop() - stop it, before the port goes
 * @priv: the port
 */
void cxen_stats_stop(struct cxen_priv *priv)
{
	cancel_delayed_work_sync(&priv->stats_work);
}
EXPORT_SYMBOL_IF_KUNIT(cxen_get_stats64);

/*
 * Queue stats over netlink (netdev_stat_ops). An active queue reports its
 * live channel's counters; everything counted by channels that no longer
 * exist is the base, so base + queues = ndo_get_stats64 at any time.
 * Each total of @b with a QRX() (@tx false) or a QTX() (@tx true) goes to
 * that field of @qs, struct netdev_queue_stats_rx or _tx; the other
 * fields are left as they are (not reported).
 */
static void cxen_qstats_fill(u64 *qs, bool tx,
			     const struct cxen_stats_base *b)
{
	const struct cxen_sw_stat *s;

	for (s = cxen_sw_stats; s < CXEN_SW_STATS_END; s++)
		if (s->qstat && !!(s->qstat & CXEN_QSTAT_TX) == tx)
			qs[(s->qstat & ~CXEN_QSTAT_TX) - 1] =
				cxen_stat_get(b, s);
}

static void cxen_qstats_fill_rx(struct netdev_queue_stats_rx *rx,
				const struct cxen_stats_base *b)
{
	BUILD_BUG_ON(sizeof(*rx) % sizeof(u64));
	cxen_qstats_fill((u64 *)rx, false, b);
}

static void cxen_qstats_fill_tx(struct netdev_queue_stats_tx *tx,
				const struct cxen_stats_base *b)
{
	BUILD_BUG_ON(sizeof(*tx) % sizeof(u64));
	cxen_qstats_fill((u64 *)tx, true, b);
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

/**
 * cxen_sw_stats_strings() - the ethtool -S names of the port counters
 * @data: where to put the %CXEN_NUM_SW_STATS names, advanced past them
 */
void cxen_sw_stats_strings(u8 **data)
{
	const struct cxen_sw_stat *s;

	for (s = cxen_sw_stats; s < CXEN_SW_STATS_END; s++)
		ethtool_puts(data, s->string);
}

/**
 * cxen_sw_stats_values() - the port counters, in their names' order
 * @priv: the port
 * @data: where to put the %CXEN_NUM_SW_STATS values
 *
 * Return: @data advanced past them.
 */
u64 *cxen_sw_stats_values(struct cxen_priv *priv, u64 *data)
{
	const struct cxen_sw_stat *s;
	struct cxen_stats_base b;

	BUILD_BUG_ON(ARRAY_SIZE(cxen_sw_stats) != CXEN_NUM_SW_STATS);
	cxen_get_stats_base(priv, &b);
	for (s = cxen_sw_stats; s < CXEN_SW_STATS_END; s++)
		*data++ = cxen_stat_get(&b, s);
	return data;
}

const struct netdev_stat_ops cxen_stat_ops = {
	.get_queue_stats_rx	= cxen_get_queue_stats_rx,
	.get_queue_stats_tx	= cxen_get_queue_stats_tx,
	.get_base_stats		= cxen_get_base_stats,
};
EXPORT_SYMBOL_IF_KUNIT(cxen_stat_ops);
