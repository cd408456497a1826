// SPDX-License-Identifier: GPL-2.0
/*
 * cxen RX fragment layout: which buffers an RX WQE posts for an MTU.
 *
 * Pure arithmetic: no allocation, no state, any page size, so KUnit can
 * prove it for every MTU and page size (tests/kunit/frag_test.c).
 *
 * The default layout (CXEN_RX_PAGEPOOL)
 * -------------------------------------
 *
 *   frame_max = mtu + ETH_HLEN + 2 * VLAN_HLEN           (no FCS)
 *   need      = ALIGN(headroom + frame_max, SMP_CACHE_BYTES) + tailroom
 *
 * need <= page_size: one fragment per frame and the skb is built around
 * it (napi_build_skb()), n frames per page:
 *
 *   n      = page_size / need
 *   stride = ALIGN_DOWN(page_size / n, SMP_CACHE_BYTES)
 *   offset = headroom
 *   size   = stride - headroom - tailroom              (>= frame_max)
 *
 * The page's leftover is shared out among its n frames, so the stride a
 * frame charges as truesize is what it pins, give or take less than a
 * cache line: MTU 1500 on 4 KiB pages has need = 1920, n = 2, stride 2048.
 *
 * need > page_size (jumbo frames on small pages): no head- or tailroom,
 * the skb gets the fragments as page frags; the fewest fragments:
 *
 *   nfrags = DIV_ROUND_UP(frame_max, page_size)        (-EINVAL > max_frags)
 *   frag[0 .. nfrags - 2]:  offset 0, size = stride = page_size
 *   rem    = frame_max - (nfrags - 1) * page_size      (1 .. page_size)
 *   frag[nfrags - 1]:       offset 0, size = rem,
 *                           stride = max(roundup_pow_of_two(rem),
 *                                        SMP_CACHE_BYTES)
 *
 * A power-of-two tail stride divides the page, so small tails share one
 * (mlx5 does the same): MTU 9000 on 4 KiB pages is 4096 + 4096 + 830 bytes
 * in strides of 4096 + 4096 + 1024.
 *
 * An RQ that runs an XDP program (p->xdp, headroom XDP_PACKET_HEADROOM)
 * lays out the same while need <= page_size: one buffer per frame, built
 * around. Beyond, the program sees an xdp_buff with frags: the first
 * fragment is its head and keeps the head- and tailroom (the frags are
 * listed in the skb_shared_info at its end), the others are whole pages
 * (bpf_xdp_adjust_tail() may grow the last one to its page's end):
 *
 *   head   = page_size - headroom - tailroom
 *   frag[0]:                offset = headroom, size = head, stride = page
 *   rest   = frame_max - head
 *   nfrags = 1 + DIV_ROUND_UP(rest, page_size)         (-EINVAL > max_frags)
 *   frag[1 .. nfrags - 1]:  offset 0, size = page_size (the last: what is
 *                           left of rest), stride = page_size
 *
 * MTU 9000 on 4 KiB pages with XDP is 3520 + 4096 + 1406 bytes in three
 * pages. cxen_frag_max_linear_mtu() is the largest MTU laid out in one
 * buffer: 3498 on 4 KiB pages on x86-64, where an XDP program without
 * frags support (xdp.frags) may run.
 *
 * Either way every stride is a multiple of SMP_CACHE_BYTES and at most the
 * page, fragments of one slot are carved back to back from a page and
 * none crosses its end, and a frame of frame_len bytes charges
 *
 *   truesize = sum of the strides of the fragments it fills
 *
 * (cxen_frag_truesize()), which is what it keeps from being reused.
 *
 * The comparison layouts (CONFIG_CXEN_RX_COMPARE: the mlx4 history the
 * benchmark measures against) are in en_frag_compare.c; the table of
 * strategies at the end of this file is the one switch between them.
 */

#include <linux/align.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include <net/page_pool/helpers.h>

#include "en.h"

bool cxen_frag_param_ok(const struct cxen_frag_param *p)
{
	return p->mtu >= CXEN_HW_MIN_MTU && p->mtu <= CXEN_HW_MAX_MTU &&
	       is_power_of_2(p->page_size) &&
	       p->page_size >= SZ_4K && p->page_size <= SZ_256K &&
	       p->headroom <= p->page_size &&
	       p->tailroom <= p->page_size &&
	       IS_ALIGNED(p->tailroom, SMP_CACHE_BYTES) &&
	       p->max_frags >= 1 && p->max_frags <= CXEN_HW_RX_MAX_SEGS;
}

/*
 * The invariants every layout keeps, whatever the strategy: at least one
 * fragment and no more than the WQE takes, enough room for frame_max,
 * cache-aligned strides no larger than the buffer they are carved from, the
 * written bytes inside the stride, and build_skb only for a single
 * fragment that keeps its head- and tailroom.
 */
bool cxen_frag_layout_sane(const struct cxen_frag_param *p,
			   const struct cxen_frag_layout *l)
{
	u32 room = 0;
	unsigned int i;

	if (!l->nfrags || l->nfrags > p->max_frags ||
	    !is_power_of_2(l->alloc_size))
		return false;

	for (i = 0; i < l->nfrags; i++) {
		const struct cxen_frag *f = &l->frag[i];

		if (!f->size || !f->stride ||
		    !IS_ALIGNED(f->stride, SMP_CACHE_BYTES) ||
		    f->stride > l->alloc_size ||
		    f->offset + f->size > f->stride)
			return false;
		room += f->size;
	}

	if (room < l->frame_max)
		return false;

	if (l->build_skb)
		return (l->nfrags == 1 || p->xdp) &&
		       l->frag[0].offset == p->headroom &&
		       l->frag[0].offset + l->frag[0].size + p->tailroom <=
		       l->frag[0].stride;

	return true;
}

/*
 * The XDP layout of a frame that does not fit one buffer: a head with
 * head- and tailroom, then whole pages (the formula at the top).
 */
static int cxen_frag_layout_xdp_frags(const struct cxen_frag_param *p,
				      struct cxen_frag_layout *l)
{
	u32 head, rest;
	unsigned int i, n;

	if (p->headroom + p->tailroom >= p->page_size)
		return -EINVAL;
	head = p->page_size - p->headroom - p->tailroom;
	rest = l->frame_max - head;
	n = 1 + DIV_ROUND_UP(rest, p->page_size);
	if (n > p->max_frags)
		return -EINVAL;

	l->build_skb = true;
	l->nfrags = n;
	l->frag[0].offset = p->headroom;
	l->frag[0].size = head;
	l->frag[0].stride = p->page_size;
	for (i = 1; i < n; i++) {
		l->frag[i].size = min(rest, p->page_size);
		l->frag[i].stride = p->page_size;
		rest -= l->frag[i].size;
	}
	return 0;
}

/**
 * cxen_frag_layout - the default (page_pool) RX fragment layout for an MTU
 * @p: MTU, page size, head- and tailroom and data segments per WQE
 * @l: the layout, written on success
 *
 * One fragment with head- and tailroom for napi_build_skb() when the frame
 * and its overheads fit a page, several frames per page sharing out the
 * leftover; else the fewest page-sized fragments, the last one sized to
 * the remainder in a power-of-two stride, or with @p->xdp a head with
 * head- and tailroom and whole pages after it. The formula is at the top
 * of this file and in Documentation/rx-buffers.rst.
 *
 * Context: any; pure arithmetic.
 * Return: 0, or -EINVAL when a parameter is out of range or the frame
 * needs more than @p->max_frags fragments.
 */
int cxen_frag_layout(const struct cxen_frag_param *p,
		     struct cxen_frag_layout *l)
{
	u32 frame_max, need, n, stride, rem;
	unsigned int i;

	if (!cxen_frag_param_ok(p))
		return -EINVAL;

	memset(l, 0, sizeof(*l));
	frame_max = CXEN_FRAME_MAX(p->mtu);
	l->frame_max = frame_max;
	l->alloc_size = p->page_size;

	need = ALIGN(p->headroom + frame_max, SMP_CACHE_BYTES) + p->tailroom;
	if (need <= p->page_size) {
		n = p->page_size / need;
		stride = ALIGN_DOWN(p->page_size / n, SMP_CACHE_BYTES);

		l->build_skb = true;
		l->nfrags = 1;
		l->frag[0].offset = p->headroom;
		l->frag[0].size = stride - p->headroom - p->tailroom;
		l->frag[0].stride = stride;
	} else if (p->xdp) {
		if (cxen_frag_layout_xdp_frags(p, l))
			return -EINVAL;
	} else {
		n = DIV_ROUND_UP(frame_max, p->page_size);
		if (n > p->max_frags)
			return -EINVAL;

		for (i = 0; i < n - 1; i++) {
			l->frag[i].size = p->page_size;
			l->frag[i].stride = p->page_size;
		}
		rem = frame_max - (n - 1) * p->page_size;
		l->frag[n - 1].size = rem;
		l->frag[n - 1].stride = max_t(u32, roundup_pow_of_two(rem),
					      SMP_CACHE_BYTES);
		l->nfrags = n;
	}

	if (WARN_ON_ONCE(!cxen_frag_layout_sane(p, l)))
		return -EINVAL;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_frag_layout);

/**
 * cxen_frag_max_linear_mtu - the largest MTU laid out in one buffer
 * @p: page size, head- and tailroom; @p->mtu and @p->max_frags are ignored
 *
 * The largest MTU whose frame and overheads fit one buffer (need <=
 * page_size in the formula at the top): the one fragment an XDP program
 * without frags support needs. Larger MTUs take several fragments.
 *
 * Context: any.
 * Return: the MTU, at most CXEN_HW_MAX_MTU, or 0 when not even
 * CXEN_HW_MIN_MTU fits one buffer.
 */
unsigned int cxen_frag_max_linear_mtu(const struct cxen_frag_param *p)
{
	u32 room = ALIGN_DOWN(p->page_size - min(p->tailroom, p->page_size),
			      SMP_CACHE_BYTES);
	u32 frame;

	if (room < p->headroom + CXEN_FRAME_MAX(CXEN_HW_MIN_MTU))
		return 0;
	frame = room - p->headroom;
	return min_t(u32, frame - CXEN_FRAME_MAX(0), CXEN_HW_MAX_MTU);
}
EXPORT_SYMBOL_IF_KUNIT(cxen_frag_max_linear_mtu);

/**
 * cxen_frag_count - fragments a frame of some length fills
 * @l: the layout the WQE was posted with
 * @frame_len: the frame's length (the CQE's byte count)
 *
 * The device fills the fragments in order, each up to its size.
 *
 * Context: any.
 * Return: the number of fragments, 1..@l->nfrags; 0 when @frame_len is 0
 * or larger than the fragments hold together (an implausible CQE).
 */
unsigned int cxen_frag_count(const struct cxen_frag_layout *l, u32 frame_len)
{
	u32 room = 0;
	unsigned int i;

	if (!frame_len)
		return 0;

	for (i = 0; i < l->nfrags; i++) {
		room += l->frag[i].size;
		if (frame_len <= room)
			return i + 1;
	}
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_frag_count);

/**
 * cxen_frag_truesize - buffer bytes a frame of some length pins
 * @l: the layout the WQE was posted with
 * @frame_len: the frame's length
 *
 * The sum of the strides of the fragments the frame fills: what the skb
 * charges for its buffers (napi_build_skb(va, stride) for a build_skb
 * fragment, skb_add_rx_frag(..., stride) per page frag). The sk_buff
 * itself is not included.
 *
 * Context: any.
 * Return: the bytes, or 0 when cxen_frag_count() is 0.
 */
u32 cxen_frag_truesize(const struct cxen_frag_layout *l, u32 frame_len)
{
	unsigned int i, n = cxen_frag_count(l, frame_len);
	u32 truesize = 0;

	for (i = 0; i < n; i++)
		truesize += l->frag[i].stride;
	return truesize;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_frag_truesize);

/*
 * Buffer sources: where the fragments of each strategy come from.
 *
 * Every strategy carves its buffers the same way: fragment index f of
 * every WQE is cut from its own buffer of alloc_size bytes (rq->carve[f]),
 * alloc_size / stride fragments per buffer, handed out in ring order. Each
 * fragment owns one reference on the buffer's page, so the page is freed
 * (or recycled) when the last skb or the ring lets go of it. What differs
 * is where buffers come from and how they are DMA-mapped:
 *
 *   pagepool       page_pool pages, mapped once by the pool, back to the
 *                  pool when the skbs are freed (skb_mark_for_recycle)
 *   wholepage2012  16 KiB compound pages from the page allocator, mapped
 *   onefrag2013    once when allocated and unmapped when their last
 *                  fragment leaves the ring; no reuse (en_frag_compare.c)
 *   legacy2012     the same pages, but every fragment dma_map_single()d
 *                  when posted and unmapped when received
 *
 * ->get hands out one fragment for WQE fragment index f; ->release takes
 * one off the ring, either to an skb (which keeps the page reference) or
 * to be dropped. ->uninit frees what was carved but never handed out.
 */

/*
 * page_pool's recycling ring holds this many rings' worth of fragments.
 * Pages come back in bursts when a reader drains a socket (up to its
 * rcvbuf at once), from another CPU, while NAPI takes them one WQE at a
 * time; a pool the size of the ring overflows in such a burst, frees the
 * excess to the page allocator and allocates it again later. With 16
 * TCP flows into a 1024-entry ring that was 0.016 page allocations per
 * packet at steady state; with 4 rings' worth, none (bench/rx_steady.py,
 * Documentation/rx-buffers.rst). The cost is the pages parked in the
 * ring after a burst: at most 4096 (16 MiB) per default-sized queue.
 */
#define CXEN_PP_RING_MULT	4
/* page_pool_create() refuses a larger recycling ring (-E2BIG). */
#define CXEN_PP_MAX_POOL_SIZE	32768

static int cxen_pp_init(struct cxen_rq *rq)
{
	struct page_pool_params pp = {
		.flags		= PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.order		= 0,
		.pool_size	= min(CXEN_PP_RING_MULT * (1U << rq->log_size) *
				      rq->layout.nfrags, CXEN_PP_MAX_POOL_SIZE),
		.nid		= dev_to_node(rq->dma_dev),
		.dev		= rq->dma_dev,
		.napi		= rq->napi,
		.netdev		= rq->netdev,
		.queue_idx	= rq->qid,
		/* An XDP RQ's pages go out again from XDP_TX. */
		.dma_dir	= rq->dma_dir,
		.offset		= 0,
		.max_len	= PAGE_SIZE,
	};

	rq->pool = page_pool_create(&pp);
	if (IS_ERR(rq->pool)) {
		int err = PTR_ERR(rq->pool);

		rq->pool = NULL;
		return err;
	}
	return 0;
}

int cxen_pp_get(struct cxen_rq *rq, unsigned int f, struct cxen_rx_buf *buf,
		gfp_t gfp)
{
	struct cxen_rx_carve *c = &rq->carve[f];
	u32 stride = rq->layout.frag[f].stride;

	if (!c->left) {
		unsigned int n = rq->layout.alloc_size / stride;
		struct page *page;

		page = page_pool_alloc_pages(rq->pool, gfp | __GFP_NOWARN);
		if (unlikely(!page))
			return -ENOMEM;
		/* One pool reference per fragment carved from the page. */
		page_pool_fragment_page(page, n);
		c->page = page;
		c->dma = page_pool_get_dma_addr(page);
		c->offset = 0;
		c->left = n;
		rq->acc.pages_started++;
	}
	buf->page = c->page;
	buf->offset = c->offset;
	buf->dma = c->dma + c->offset;
	c->offset += stride;
	c->left--;
	return 0;
}

void cxen_pp_release(struct cxen_rq *rq, unsigned int f,
		     struct cxen_rx_buf *buf, bool to_skb)
{
	/* An skb keeps the reference and returns it to the pool when freed. */
	if (!to_skb)
		page_pool_put_full_page(rq->pool, buf->page, false);
	buf->page = NULL;
}

static void cxen_pp_uninit(struct cxen_rq *rq)
{
	struct cxen_priv *priv = netdev_priv(rq->netdev);
	struct page_pool *pool = rq->pool;
	unsigned int f;

	for (f = 0; f < CXEN_HW_RX_MAX_SEGS; f++) {
		struct cxen_rx_carve *c = &rq->carve[f];

		for (; c->left; c->left--)
			page_pool_put_full_page(pool, c->page, false);
	}
	/*
	 * ethtool -S reads the pool's counters under stats_lock: keep them
	 * and let go of the pool under it, so they neither vanish nor are
	 * read from a destroyed pool.
	 */
	spin_lock_bh(&priv->stats_lock);
#ifdef CONFIG_PAGE_POOL_STATS
	page_pool_get_stats(pool, &rq->pp_final);
#endif
	rq->pool = NULL;
	spin_unlock_bh(&priv->stats_lock);
	page_pool_destroy(pool);
}

const struct cxen_rx_strategy_ops cxen_rx_strategies[CXEN_RX_NR_STRATEGIES] = {
	[CXEN_RX_PAGEPOOL] = {
		.name		= "pagepool",
		.layout		= cxen_frag_layout,
		.init		= cxen_pp_init,
		.uninit		= cxen_pp_uninit,
		.get		= cxen_pp_get,
		.release	= cxen_pp_release,
		.recycle	= true,
	},
#if IS_ENABLED(CONFIG_CXEN_RX_COMPARE)
	[CXEN_RX_LEGACY2012] = {
		.name		= "legacy2012",
		.layout		= cxen_frag_layout_legacy2012,
		.init		= cxen_mlx4_init,
		.uninit		= cxen_mlx4_uninit,
		.get		= cxen_legacy_get,
		.release	= cxen_legacy_release,
	},
	[CXEN_RX_WHOLEPAGE2012] = {
		.name		= "wholepage2012",
		.layout		= cxen_frag_layout_wholepage2012,
		.init		= cxen_mlx4_init,
		.uninit		= cxen_mlx4_uninit,
		.get		= cxen_wholepage_get,
		.release	= cxen_wholepage_release,
	},
	[CXEN_RX_ONEFRAG2013] = {
		.name		= "onefrag2013",
		.layout		= cxen_frag_layout_onefrag2013,
		.init		= cxen_mlx4_init,
		.uninit		= cxen_mlx4_uninit,
		.get		= cxen_wholepage_get,
		.release	= cxen_wholepage_release,
	},
#endif
};
EXPORT_SYMBOL_IF_KUNIT(cxen_rx_strategies);

/**
 * cxen_rx_strategy_find - an RX buffer strategy by name
 * @name: one of CXEN_RX_STRATEGY_NAMES: "pagepool", and with
 *	CONFIG_CXEN_RX_COMPARE "legacy2012", "wholepage2012" or
 *	"onefrag2013"; a trailing newline is ignored
 *
 * Context: any.
 * Return: its &enum cxen_rx_strategy, or -EINVAL.
 */
int cxen_rx_strategy_find(const char *name)
{
	int i;

	for (i = 0; i < CXEN_RX_NR_STRATEGIES; i++)
		if (sysfs_streq(name, cxen_rx_strategies[i].name))
			return i;
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_rx_strategy_find);
