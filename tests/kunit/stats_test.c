// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the cxen counters (en_stats.c, en_ethtool.c): the
 * ethtool -S strings and what the port totals, ndo_get_stats64 and the
 * netdev queue stats report for known per-queue counters.
 *
 * The expectations are written from Documentation/cxen.rst and from what
 * tests and tools parse, not read back from the driver's tables: the
 * names of the port counters are frozen (none renamed, removed or
 * reordered; new ones may come between them), the hw_* names and the
 * per-queue names are exact.
 */

#include <kunit/test.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <net/netdev_queues.h>
#include <net/page_pool/helpers.h>

#include "../../en.h"

/* ethtool -S names of the port counters, as users and tests know them. */
static const char * const stats_sw_names[] = {
	"rx_packets", "rx_bytes", "tx_packets", "tx_bytes",
	"rx_csum_unnecessary", "rx_csum_none", "rx_gro_packets",
	"rx_gro_segs", "rx_truesize_bytes", "rx_copybreak", "rx_alloc_fail",
	"rx_page_alloc", "rx_page_recycle", "rx_page_release", "rx_dma_map",
	"rx_page_start",
	"rx_err_cqe", "rx_oversize", "rx_bad_cqe", "rx_flush_cqe", "tx_doorbell",
	"tx_tso_packets", "tx_tso_bytes", "tx_csum_offload", "tx_inline",
	"tx_linearize", "tx_dma_map_err", "tx_queue_stop", "tx_queue_wake",
	"tx_err_cqe", "tx_dropped", "tx_timeout", "tx_hang", "tx_recover",
	"rx_recover", "rx_queue_restart", "recover_fail", "rx_skb_alloc_fail", "rx_xdp_pass",
	"rx_xdp_drop", "rx_xdp_tx", "rx_xdp_redirect", "rx_xdp_aborted",
	"tx_xdp_xmit", "tx_xdp_full", "xdp_tx_doorbell",
};

/* Per queue N, in this order (Documentation/cxen.rst). */
static const char * const stats_queue_fmts[] = {
	"rx%u_packets", "rx%u_bytes", "tx%u_packets", "tx%u_bytes",
	"rx%u_xdp_pass", "rx%u_xdp_drop", "rx%u_xdp_tx", "rx%u_xdp_redirect",
	"rx%u_xdp_aborted", "tx%u_xdp_xmit", "tx%u_xdp_full",
	"xdp%u_tx_doorbell",
};

#define STATS_NUM_QUEUE	ARRAY_SIZE(stats_queue_fmts)

/* The device's counters (QUERY_COUNTERS), in the order ethtool -S shows. */
static const char * const stats_hw_names[] = {
	"hw_tx_frames", "hw_tx_bytes", "hw_tx_oversize", "hw_tx_link_down",
	"hw_tx_error_cqes", "hw_rx_frames", "hw_rx_bytes", "hw_rx_oversize",
	"hw_rx_no_rq", "hw_rx_out_of_buffer", "hw_rx_cq_overrun",
	"hw_rx_queue_error", "hw_rx_error_cqes", "hw_rx_csum_bad",
	"hw_tx_multicast", "hw_tx_broadcast", "hw_rx_multicast",
	"hw_rx_broadcast", "hw_rx_vlan_stripped", "hw_tx_pause", "hw_rx_pause",
	"hw_rx_filtered", "hw_rx_filtered_bytes", "hw_tx_discarded",
};

#define STATS_NUM_CH	2

static struct net_device *stats_netdev(struct kunit *test)
{
	struct net_device *netdev;
	struct cxen_priv *priv;

	netdev = alloc_etherdev(sizeof(*priv));
	KUNIT_ASSERT_NOT_NULL(test, netdev);
	priv = netdev_priv(netdev);
	priv->netdev = netdev;
	priv->params.num_channels = STATS_NUM_CH;
	spin_lock_init(&priv->stats_lock);
	return netdev;
}

static void stats_strings_test(struct kunit *test)
{
	const struct ethtool_ops *ops = &cxen_ethtool_ops;
	unsigned int n, nsw, i, j, pos;
	struct net_device *netdev;
	char (*s)[ETH_GSTRING_LEN];
	u8 *pp;
	int count;

	netdev = stats_netdev(test);
	count = ops->get_sset_count(netdev, ETH_SS_STATS);
	n = page_pool_ethtool_stats_get_count();
	KUNIT_ASSERT_GT(test, count, (int)(ARRAY_SIZE(stats_hw_names) +
					   STATS_NUM_QUEUE * STATS_NUM_CH + n));
	nsw = count - ARRAY_SIZE(stats_hw_names) -
	      STATS_NUM_QUEUE * STATS_NUM_CH - n;
	KUNIT_EXPECT_GE(test, nsw, ARRAY_SIZE(stats_sw_names));

	s = kunit_kcalloc(test, count, ETH_GSTRING_LEN, GFP_KERNEL);
	pp = kunit_kcalloc(test, n + 1, ETH_GSTRING_LEN, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, s);
	KUNIT_ASSERT_NOT_NULL(test, pp);
	ops->get_strings(netdev, ETH_SS_STATS, (u8 *)s);

	/* The frozen port names, in their order, among the first nsw. */
	for (i = 0, j = 0; i < nsw && j < ARRAY_SIZE(stats_sw_names); i++)
		if (!strcmp(s[i], stats_sw_names[j]))
			j++;
	KUNIT_EXPECT_EQ_MSG(test, j, ARRAY_SIZE(stats_sw_names),
			    "port counter %s missing or out of order",
			    j < ARRAY_SIZE(stats_sw_names) ?
			    stats_sw_names[j] : "");
	for (i = 0; i < nsw; i++)
		for (j = 0; j < i; j++)
			KUNIT_EXPECT_STRNEQ(test, s[i], s[j]);

	pos = nsw;
	for (i = 0; i < ARRAY_SIZE(stats_hw_names); i++)
		KUNIT_EXPECT_STREQ(test, s[pos++], stats_hw_names[i]);
	for (i = 0; i < STATS_NUM_CH; i++) {
		for (j = 0; j < STATS_NUM_QUEUE; j++) {
			char want[ETH_GSTRING_LEN];

			snprintf(want, sizeof(want), stats_queue_fmts[j], i);
			KUNIT_EXPECT_STREQ(test, s[pos++], want);
		}
	}
	page_pool_ethtool_stats_get_strings(pp);
	KUNIT_EXPECT_EQ(test, memcmp(s[pos], pp, n * ETH_GSTRING_LEN), 0);

	free_netdev(netdev);
}

/* Counter number k of channel c, and of the base (destroyed channels). */
static u64 ch_val(unsigned int c, unsigned int k)
{
	return (c + 1) * 1000ULL + k;
}

static u64 base_val(unsigned int k)
{
	return 900000ULL + k;
}

static void stats_fill_rq(struct cxen_rq *rq, unsigned int c)
{
	struct cxen_rq_stats *r = &rq->stats;

	u64_stats_init(&r->syncp);
	u64_stats_set(&r->packets, ch_val(c, 1));
	u64_stats_set(&r->bytes, ch_val(c, 2));
	u64_stats_set(&r->csum_unnecessary, ch_val(c, 3));
	u64_stats_set(&r->csum_none, ch_val(c, 4));
	u64_stats_set(&r->gro_packets, ch_val(c, 5));
	u64_stats_set(&r->gro_segs, ch_val(c, 6));
	u64_stats_set(&r->truesize_bytes, ch_val(c, 7));
	u64_stats_set(&r->copybreak, ch_val(c, 8));
	u64_stats_set(&r->alloc_fail, ch_val(c, 9));
	u64_stats_set(&r->page_alloc, ch_val(c, 10));
	u64_stats_set(&r->dma_map, ch_val(c, 13));
	u64_stats_set(&r->pages_started, ch_val(c, 12));
	u64_stats_set(&r->err_cqe, ch_val(c, 14));
	u64_stats_set(&r->oversize, ch_val(c, 15));
	u64_stats_set(&r->bad_cqe, ch_val(c, 16));
	u64_stats_set(&r->flush_cqe, ch_val(c, 17));
	u64_stats_set(&r->skb_alloc_fail, ch_val(c, 18));
	u64_stats_set(&r->xdp_pass, ch_val(c, 51));
	u64_stats_set(&r->xdp_drop, ch_val(c, 52));
	u64_stats_set(&r->xdp_tx, ch_val(c, 53));
	u64_stats_set(&r->xdp_redirect, ch_val(c, 54));
	u64_stats_set(&r->xdp_aborted, ch_val(c, 55));
}

/*
 * Channel 1's XDP SQ: what an XDP SQ counts, 60 + k; an SQ of the stack
 * never counts the XDP ones.
 */
static void stats_fill_xsq(struct cxen_sq *sq, unsigned int c)
{
	struct cxen_sq_cstats *cs = &sq->cstats;
	struct cxen_sq_stats *s = &sq->stats;

	u64_stats_init(&s->syncp);
	u64_stats_init(&cs->syncp);
	u64_stats_set(&s->xdp_xmit, ch_val(c, 61));
	u64_stats_set(&s->xdp_full, ch_val(c, 62));
	u64_stats_set(&s->xdp_doorbell, ch_val(c, 63));
	u64_stats_set(&s->dropped, ch_val(c, 64));
	u64_stats_set(&s->dma_map_err, ch_val(c, 65));
	u64_stats_set(&cs->err_cqe, ch_val(c, 66));
}

static void stats_fill_sq(struct cxen_sq *sq, unsigned int c)
{
	struct cxen_sq_cstats *cs = &sq->cstats;
	struct cxen_sq_stats *s = &sq->stats;

	u64_stats_init(&s->syncp);
	u64_stats_init(&cs->syncp);
	u64_stats_set(&s->doorbell, ch_val(c, 21));
	u64_stats_set(&s->tso_packets, ch_val(c, 22));
	u64_stats_set(&s->tso_bytes, ch_val(c, 23));
	u64_stats_set(&s->csum_offload, ch_val(c, 24));
	u64_stats_set(&s->inline_pkts, ch_val(c, 25));
	u64_stats_set(&s->linearize, ch_val(c, 26));
	u64_stats_set(&s->dma_map_err, ch_val(c, 27));
	u64_stats_set(&s->queue_stop, ch_val(c, 28));
	u64_stats_set(&s->dropped, ch_val(c, 29));
	u64_stats_set(&cs->packets, ch_val(c, 31));
	u64_stats_set(&cs->bytes, ch_val(c, 32));
	u64_stats_set(&cs->queue_wake, ch_val(c, 33));
	u64_stats_set(&cs->err_cqe, ch_val(c, 34));
}

/*
 * Base: what destroyed channels counted, base_val(k) for counter k. Live
 * channels 0 and 1, and channel 2, at index 0 of the set a
 * reconfiguration is draining (so queue 0 counts it too).
 */
static struct net_device *stats_port(struct kunit *test)
{
	struct net_device *netdev = stats_netdev(test);
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_stats_base *b = &priv->base;
	struct cxen_chans *live, *drain;
	struct cxen_channel *ch[3];
	unsigned int c;

	for (c = 0; c < ARRAY_SIZE(ch); c++) {
		ch[c] = kunit_kzalloc(test, sizeof(*ch[c]), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, ch[c]);
		ch[c]->priv = priv;
		ch[c]->idx = c == 2 ? 0 : c;
		stats_fill_rq(&ch[c]->rq, c);
		stats_fill_sq(&ch[c]->sq, c);
	}
	ch[1]->rq.xdp = true;
	stats_fill_xsq(&ch[1]->xsq, 1);
	live = kunit_kzalloc(test, struct_size(live, ch, 2), GFP_KERNEL);
	drain = kunit_kzalloc(test, struct_size(drain, ch, 1), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, live);
	KUNIT_ASSERT_NOT_NULL(test, drain);
	live->num = 2;
	live->ch[0] = ch[0];
	live->ch[1] = ch[1];
	drain->num = 1;
	drain->ch[0] = ch[2];
	RCU_INIT_POINTER(priv->chans, live);
	priv->draining = drain;

	b->rx_packets = base_val(1);
	b->rx_bytes = base_val(2);
	b->rx_csum_unnecessary = base_val(3);
	b->rx_csum_none = base_val(4);
	b->rx_gro_packets = base_val(5);
	b->rx_gro_segs = base_val(6);
	b->rx_truesize_bytes = base_val(7);
	b->rx_copybreak = base_val(8);
	b->rx_alloc_fail = base_val(9);
	b->rx_page_alloc = base_val(10);
	b->rx_dma_map = base_val(13);
	b->rx_page_start = base_val(12);
	b->rx_err_cqe = base_val(14);
	b->rx_oversize = base_val(15);
	b->rx_bad_cqe = base_val(16);
	b->rx_flush_cqe = base_val(17);
	b->rx_skb_alloc_fail = base_val(18);
	b->tx_doorbell = base_val(21);
	b->tx_tso_packets = base_val(22);
	b->tx_tso_bytes = base_val(23);
	b->tx_csum_offload = base_val(24);
	b->tx_inline = base_val(25);
	b->tx_linearize = base_val(26);
	b->tx_dma_map_err = base_val(27);
	b->tx_queue_stop = base_val(28);
	b->tx_dropped = base_val(29);
	b->tx_packets = base_val(31);
	b->tx_bytes = base_val(32);
	b->tx_queue_wake = base_val(33);
	b->tx_err_cqe = base_val(34);
	b->rx_xdp_pass = base_val(51);
	b->rx_xdp_drop = base_val(52);
	b->rx_xdp_tx = base_val(53);
	b->rx_xdp_redirect = base_val(54);
	b->rx_xdp_aborted = base_val(55);
	b->tx_xdp_xmit = base_val(61);
	b->tx_xdp_full = base_val(62);
	b->xdp_tx_doorbell = base_val(63);
	atomic64_set(&priv->port_stats.tx_timeouts, 41);
	atomic64_set(&priv->port_stats.tx_hangs, 42);
	atomic64_set(&priv->port_stats.tx_recovers, 43);
	atomic64_set(&priv->port_stats.rx_recovers, 44);
	atomic64_set(&priv->port_stats.recover_fails, 45);
	for (c = 0; c < STATS_NUM_CH; c++) {
		priv->qbase[c].rx_packets = base_val(100 + 10 * c + 1);
		priv->qbase[c].rx_bytes = base_val(100 + 10 * c + 2);
		priv->qbase[c].tx_packets = base_val(100 + 10 * c + 3);
		priv->qbase[c].tx_bytes = base_val(100 + 10 * c + 4);
	}
	return netdev;
}

/* Counter k over the port's life: base and channels 0, 1 and 2. */
static u64 total(unsigned int k)
{
	return base_val(k) + ch_val(0, k) + ch_val(1, k) + ch_val(2, k);
}

static void stats_totals_test(struct kunit *test)
{
	struct net_device *netdev = stats_port(test);
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_stats_base b;

	cxen_get_stats_base(priv, &b);
	KUNIT_EXPECT_EQ(test, b.rx_packets, total(1));
	KUNIT_EXPECT_EQ(test, b.rx_bytes, total(2));
	KUNIT_EXPECT_EQ(test, b.rx_csum_unnecessary, total(3));
	KUNIT_EXPECT_EQ(test, b.rx_csum_none, total(4));
	KUNIT_EXPECT_EQ(test, b.rx_gro_packets, total(5));
	KUNIT_EXPECT_EQ(test, b.rx_gro_segs, total(6));
	KUNIT_EXPECT_EQ(test, b.rx_truesize_bytes, total(7));
	KUNIT_EXPECT_EQ(test, b.rx_copybreak, total(8));
	KUNIT_EXPECT_EQ(test, b.rx_alloc_fail, total(9));
	KUNIT_EXPECT_EQ(test, b.rx_page_alloc, total(10));
	/* No page pool counted anything: the pools' lines are 0. */
	KUNIT_EXPECT_EQ(test, b.rx_page_recycle, 0);
	KUNIT_EXPECT_EQ(test, b.rx_page_release, 0);
	KUNIT_EXPECT_EQ(test, b.rx_dma_map, total(13));
	KUNIT_EXPECT_EQ(test, b.rx_page_start, total(12));
	KUNIT_EXPECT_EQ(test, b.rx_err_cqe, total(14));
	KUNIT_EXPECT_EQ(test, b.rx_oversize, total(15));
	KUNIT_EXPECT_EQ(test, b.rx_bad_cqe, total(16));
	KUNIT_EXPECT_EQ(test, b.rx_flush_cqe, total(17));
	KUNIT_EXPECT_EQ(test, b.rx_skb_alloc_fail, total(18));
	KUNIT_EXPECT_EQ(test, b.tx_doorbell, total(21));
	KUNIT_EXPECT_EQ(test, b.tx_tso_packets, total(22));
	KUNIT_EXPECT_EQ(test, b.tx_tso_bytes, total(23));
	KUNIT_EXPECT_EQ(test, b.tx_csum_offload, total(24));
	KUNIT_EXPECT_EQ(test, b.tx_inline, total(25));
	KUNIT_EXPECT_EQ(test, b.tx_linearize, total(26));
	/* Channel 1's XDP SQ adds its drops, map errors and error CQEs. */
	KUNIT_EXPECT_EQ(test, b.tx_dma_map_err, total(27) + ch_val(1, 65));
	KUNIT_EXPECT_EQ(test, b.tx_queue_stop, total(28));
	KUNIT_EXPECT_EQ(test, b.tx_dropped, total(29) + ch_val(1, 64));
	KUNIT_EXPECT_EQ(test, b.tx_packets, total(31));
	KUNIT_EXPECT_EQ(test, b.tx_bytes, total(32));
	KUNIT_EXPECT_EQ(test, b.tx_queue_wake, total(33));
	KUNIT_EXPECT_EQ(test, b.tx_err_cqe, total(34) + ch_val(1, 66));
	KUNIT_EXPECT_EQ(test, b.rx_xdp_pass, total(51));
	KUNIT_EXPECT_EQ(test, b.rx_xdp_drop, total(52));
	KUNIT_EXPECT_EQ(test, b.rx_xdp_tx, total(53));
	KUNIT_EXPECT_EQ(test, b.rx_xdp_redirect, total(54));
	KUNIT_EXPECT_EQ(test, b.rx_xdp_aborted, total(55));
	KUNIT_EXPECT_EQ(test, b.tx_xdp_xmit, base_val(61) + ch_val(1, 61));
	KUNIT_EXPECT_EQ(test, b.tx_xdp_full, base_val(62) + ch_val(1, 62));
	KUNIT_EXPECT_EQ(test, b.xdp_tx_doorbell, base_val(63) + ch_val(1, 63));
	KUNIT_EXPECT_EQ(test, b.tx_timeout, 41);
	KUNIT_EXPECT_EQ(test, b.tx_hang, 42);
	KUNIT_EXPECT_EQ(test, b.tx_recover, 43);
	KUNIT_EXPECT_EQ(test, b.rx_recover, 44);
	KUNIT_EXPECT_EQ(test, b.recover_fail, 45);

	free_netdev(netdev);
}

#ifdef CONFIG_PAGE_POOL_STATS
/*
 * rx_page_recycle and rx_page_release come from the page pools' own
 * counters (page_pool_get_stats()): those of destroyed pools (the base),
 * of pools destroyed with an RQ still listed (pp_final) and of the live
 * ones. Recycled: back into the pool's cache or ring; released: to the
 * page allocator, the ring full or the page held elsewhere. Neither
 * counts a page the pool merely handed out (the alloc side), nor
 * cache_full (the page then went on to the ring).
 */
static void stats_pool_fill(struct page_pool_stats *pps, u64 k)
{
	pps->alloc_stats.fast = k + 1;
	pps->alloc_stats.slow = k + 2;
	pps->alloc_stats.refill = k + 3;
	pps->recycle_stats.cached = k + 10;
	pps->recycle_stats.cache_full = k + 20;
	pps->recycle_stats.ring = k + 30;
	pps->recycle_stats.ring_full = k + 40;
	pps->recycle_stats.released_refcnt = k + 50;
}

static void stats_pool_test(struct kunit *test)
{
	struct net_device *netdev = stats_port(test);
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_chans *live = rcu_dereference_protected(priv->chans, 1);
	struct cxen_stats_base b;
	u64 k[4] = { 1000, 2000, 3000, 4000 };

	stats_pool_fill(&priv->pp_base, k[0]);
	stats_pool_fill(&live->ch[0]->rq.pp_final, k[1]);
	stats_pool_fill(&live->ch[1]->rq.pp_final, k[2]);
	stats_pool_fill(&priv->draining->ch[0]->rq.pp_final, k[3]);
	cxen_get_stats_base(priv, &b);
	KUNIT_EXPECT_EQ(test, b.rx_page_recycle,
			4 * (10 + 30) + 2 * (k[0] + k[1] + k[2] + k[3]));
	KUNIT_EXPECT_EQ(test, b.rx_page_release,
			4 * (40 + 50) + 2 * (k[0] + k[1] + k[2] + k[3]));

	free_netdev(netdev);
}
#endif

static void stats_stats64_test(struct kunit *test)
{
	struct net_device *netdev = stats_port(test);
	struct rtnl_link_stats64 s, want = {};

	struct cxen_priv *priv = netdev_priv(netdev);
	unsigned int i;

	/* The device's counters as last read: 7000 + their index. */
	for (i = 0; i < CXEN_HW_NCNT; i++)
		priv->hw_cache[i] = 7000 + i;

	/* include/uapi/linux/if_link.h: each event in the fields it names. */
	want.rx_packets = total(1);
	want.rx_bytes = total(2);
	want.tx_packets = total(31);
	want.tx_bytes = total(32);
	/* Bad frames: error, implausible and oversized CQEs; too long. */
	want.rx_errors = total(14) + total(15) + total(16) +
			 7000 + CXEN_HW(rx_oversize);
	want.rx_length_errors = total(15) + 7000 + CXEN_HW(rx_oversize);
	/* No skb for a frame; nowhere for the device to put it. */
	want.rx_dropped = total(18) + 7000 + CXEN_HW(rx_no_rq) +
			  7000 + CXEN_HW(rx_queue_error);
	/* The device dropped it: the host fell behind. */
	want.rx_missed_errors = 7000 + CXEN_HW(rx_out_of_buffer) +
				7000 + CXEN_HW(rx_cq_overrun);
	want.multicast = 7000 + CXEN_HW(rx_multicast);
	want.tx_errors = total(34) + ch_val(1, 66) + 7000 +
			 CXEN_HW(tx_link_down) + 7000 + CXEN_HW(tx_oversize);
	want.tx_carrier_errors = 7000 + CXEN_HW(tx_link_down);
	/*
	 * A failed DMA mapping is one of the drops, counted once; the
	 * device's discarded frames are drops too.
	 */
	want.tx_dropped = total(29) + ch_val(1, 64) + 7000 +
			  CXEN_HW(tx_discarded);
	/* The core zeroes the storage first (dev_get_stats()). */
	memset(&s, 0, sizeof(s));
	cxen_get_stats64(netdev, &s);
	KUNIT_EXPECT_MEMEQ(test, &s, &want, sizeof(s));

	free_netdev(netdev);
}

static void stats_qstats_test(struct kunit *test)
{
	struct netdev_queue_stats_rx rx, want_rx;
	struct netdev_queue_stats_tx tx, want_tx;
	struct net_device *netdev = stats_port(test);
	const struct netdev_stat_ops *ops = &cxen_stat_ops;
	unsigned int c;

	/* A queue: its live channel only. Unset fields stay untouched. */
	for (c = 0; c < STATS_NUM_CH; c++) {
		memset(&rx, 0xff, sizeof(rx));
		memset(&want_rx, 0xff, sizeof(want_rx));
		want_rx.packets = ch_val(c, 1);
		want_rx.bytes = ch_val(c, 2);
		want_rx.alloc_fail = ch_val(c, 9);
		want_rx.hw_drops = ch_val(c, 14);
		want_rx.csum_unnecessary = ch_val(c, 3);
		want_rx.csum_none = ch_val(c, 4);
		ops->get_queue_stats_rx(netdev, c, &rx);
		KUNIT_EXPECT_MEMEQ(test, &rx, &want_rx, sizeof(rx));

		memset(&tx, 0xff, sizeof(tx));
		memset(&want_tx, 0xff, sizeof(want_tx));
		want_tx.packets = ch_val(c, 31);
		want_tx.bytes = ch_val(c, 32);
		/* Channel 1's XDP SQ: its error CQEs too. */
		want_tx.hw_drops = ch_val(c, 34) + (c == 1 ? ch_val(1, 66) : 0);
		want_tx.needs_csum = ch_val(c, 24);
		want_tx.hw_gso_packets = ch_val(c, 22);
		want_tx.hw_gso_bytes = ch_val(c, 23);
		want_tx.stop = ch_val(c, 28);
		want_tx.wake = ch_val(c, 33);
		ops->get_queue_stats_tx(netdev, c, &tx);
		KUNIT_EXPECT_MEMEQ(test, &tx, &want_tx, sizeof(tx));
	}

	/* The base: destroyed channels and the draining one (channel 2). */
	memset(&rx, 0xff, sizeof(rx));
	memset(&tx, 0xff, sizeof(tx));
	memset(&want_rx, 0xff, sizeof(want_rx));
	memset(&want_tx, 0xff, sizeof(want_tx));
	want_rx.packets = base_val(1) + ch_val(2, 1);
	want_rx.bytes = base_val(2) + ch_val(2, 2);
	want_rx.alloc_fail = base_val(9) + ch_val(2, 9);
	want_rx.hw_drops = base_val(14) + ch_val(2, 14);
	want_rx.csum_unnecessary = base_val(3) + ch_val(2, 3);
	want_rx.csum_none = base_val(4) + ch_val(2, 4);
	want_tx.packets = base_val(31) + ch_val(2, 31);
	want_tx.bytes = base_val(32) + ch_val(2, 32);
	want_tx.hw_drops = base_val(34) + ch_val(2, 34);
	want_tx.needs_csum = base_val(24) + ch_val(2, 24);
	want_tx.hw_gso_packets = base_val(22) + ch_val(2, 22);
	want_tx.hw_gso_bytes = base_val(23) + ch_val(2, 23);
	want_tx.stop = base_val(28) + ch_val(2, 28);
	want_tx.wake = base_val(33) + ch_val(2, 33);
	ops->get_base_stats(netdev, &rx, &tx);
	KUNIT_EXPECT_MEMEQ(test, &rx, &want_rx, sizeof(rx));
	KUNIT_EXPECT_MEMEQ(test, &tx, &want_tx, sizeof(tx));

	free_netdev(netdev);
}

/* rx<N>_packets ... xdp<N>_tx_doorbell: every channel that had index N. */
static void stats_queue_totals_test(struct kunit *test)
{
	struct net_device *netdev = stats_port(test);
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_stats_base q;

	cxen_get_queue_stats(priv, 0, &q);
	KUNIT_EXPECT_EQ(test, q.rx_packets,
			base_val(101) + ch_val(0, 1) + ch_val(2, 1));
	KUNIT_EXPECT_EQ(test, q.rx_bytes,
			base_val(102) + ch_val(0, 2) + ch_val(2, 2));
	KUNIT_EXPECT_EQ(test, q.tx_packets,
			base_val(103) + ch_val(0, 31) + ch_val(2, 31));
	KUNIT_EXPECT_EQ(test, q.tx_bytes,
			base_val(104) + ch_val(0, 32) + ch_val(2, 32));
	KUNIT_EXPECT_EQ(test, q.rx_xdp_drop, ch_val(0, 52) + ch_val(2, 52));
	KUNIT_EXPECT_EQ(test, q.tx_xdp_xmit, 0);
	cxen_get_queue_stats(priv, 1, &q);
	KUNIT_EXPECT_EQ(test, q.rx_packets, base_val(111) + ch_val(1, 1));
	KUNIT_EXPECT_EQ(test, q.rx_bytes, base_val(112) + ch_val(1, 2));
	KUNIT_EXPECT_EQ(test, q.tx_packets, base_val(113) + ch_val(1, 31));
	KUNIT_EXPECT_EQ(test, q.tx_bytes, base_val(114) + ch_val(1, 32));
	KUNIT_EXPECT_EQ(test, q.rx_xdp_pass, ch_val(1, 51));
	KUNIT_EXPECT_EQ(test, q.rx_xdp_aborted, ch_val(1, 55));
	KUNIT_EXPECT_EQ(test, q.tx_xdp_xmit, ch_val(1, 61));
	KUNIT_EXPECT_EQ(test, q.tx_xdp_full, ch_val(1, 62));
	KUNIT_EXPECT_EQ(test, q.xdp_tx_doorbell, ch_val(1, 63));

	free_netdev(netdev);
}

static struct kunit_case cxen_stats_cases[] = {
	KUNIT_CASE(stats_strings_test),
	KUNIT_CASE(stats_totals_test),
#ifdef CONFIG_PAGE_POOL_STATS
	KUNIT_CASE(stats_pool_test),
#endif
	KUNIT_CASE(stats_stats64_test),
	KUNIT_CASE(stats_qstats_test),
	KUNIT_CASE(stats_queue_totals_test),
	{}
};

static struct kunit_suite cxen_stats_suite = {
	.name = "cxen_stats",
	.test_cases = cxen_stats_cases,
};

kunit_test_suite(cxen_stats_suite);
