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
 * benchmark measures against) are laid out before the table of layouts
 * below, the one switch between them; their buffers and receive routine
 * are en_rx_compare.c's.
 */

#include <linux/align.h>
#include <linux/bug.h>
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/log2.h>
#include <linux/math.h>
#include <linux/math64.h>
#include <linux/minmax.h>
#include <linux/sizes.h>
#include <linux/string.h>
#include <kunit/visibility.h>
#include <net/page_pool/helpers.h>

#include "en.h"

static bool cxen_frag_param_ok(const struct cxen_frag_param *p)
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
 * The invariants every fragment layout keeps, of any RX layout: at least one
 * fragment and no more than the WQE takes, enough room for frame_max,
 * cache-aligned strides no larger than the buffer they are carved from, the
 * written bytes inside the stride, and build_skb only for a single
 * fragment that keeps its head- and tailroom.
 */
static bool cxen_frag_layout_sane(const struct cxen_frag_param *p,
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
 * Buffer sources: where the fragments of each layout come from.
 *
 * Every layout carves its buffers the same way: fragment index f of
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
 *                  fragment leaves the ring; no reuse (en_rx_compare.c)
 *   legacy2012     the same pages, but every fragment dma_map_single()d
 *                  when posted and unmapped when received
 *
 * The scatter-list RQ (en_rx_sg.c) gets a fragment for WQE fragment index
 * f and releases one off the ring, either to an skb (which keeps the page
 * reference) or to be dropped: cxen_pp_get() and cxen_pp_release() for
 * the default, the comparison kind's own for the others.
 */

/**
 * cxen_rq_pool_create() - an RQ's page_pool
 * @rq: the RQ, its DMA device, NAPI, netdev, queue index and DMA
 *	direction set
 * @pool_size: pages its recycling ring holds
 *
 * The default and the striding layouts take their pages from one of these: order-0 pages,
 * mapped once by the pool and synced for the device by it when recycled.
 *
 * Return: 0 or a negative errno, with @rq->pool NULL.
 */
int cxen_rq_pool_create(struct cxen_rq *rq, u32 pool_size)
{
	struct page_pool_params pp = {
		.flags		= PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.order		= 0,
		.pool_size	= pool_size,
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

/**
 * cxen_pp_init() - the default layout's buffer source for an RQ
 * @rq: the RQ, its ring size and layout set
 *
 * Return: 0 or a negative errno, as cxen_rq_pool_create().
 */
int cxen_pp_init(struct cxen_rq *rq)
{
	return cxen_rq_pool_create(rq, min(CXEN_PP_RING_MULT *
					   (1U << rq->log_size) *
					   rq->layout.nfrags,
					   CXEN_PP_MAX_POOL_SIZE));
}

/**
 * cxen_pp_start_page() - a new page for fragment index @f to be carved from
 * @rq: an RQ of the default layout
 * @f: the fragment index whose page is used up
 * @gfp: GFP_KERNEL at creation, GFP_ATOMIC from NAPI
 *
 * The slow half of cxen_pp_get(): one page from the pool, fragmented into
 * one pool reference per fragment it will give.
 *
 * Return: 0, or -ENOMEM.
 */
int cxen_pp_start_page(struct cxen_rq *rq, unsigned int f, gfp_t gfp)
{
	struct cxen_rx_carve *c = &rq->carve[f];
	unsigned int n = rq->layout.alloc_size / rq->layout.frag[f].stride;
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
	cxen_rq_inc(rq, pages_started);
	return 0;
}

void cxen_pp_uninit(struct cxen_rq *rq)
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
	/*
	 * page_pool_destroy() unties the pool from its NAPI, which must not
	 * run meanwhile: an RQ built beside the running one shares a live
	 * NAPI (its queue restart failed or was undone), stopped for it.
	 */
	if (rq->beside)
		napi_disable(rq->napi);
	page_pool_destroy(pool);
	if (rq->beside)
		napi_enable(rq->napi);
}

#if IS_ENABLED(CONFIG_CXEN_RX_COMPARE)
/* mlx4's MLX4_EN_ALLOC_SIZE: PAGE_ALIGN(16384), order 2 on 4 KiB pages. */
#define CXEN_MLX4_ALLOC_SIZE(page_size)	max_t(u32, SZ_16K, (page_size))

/*
 * mlx4_en_calc_rx_buf() as of 2012-2013: nominal sizes filled in order,
 * each fragment holding what is left up to its nominal size and charging
 * its nominal size as stride.
 */
static int cxen_frag_layout_mlx4(const struct cxen_frag_param *p,
				 struct cxen_frag_layout *l,
				 u32 sz0, u32 sz1, u32 sz2)
{
	u32 alloc_size = CXEN_MLX4_ALLOC_SIZE(p->page_size);
	const u32 nominal[CXEN_HW_RX_MAX_SEGS] = {
		sz0, sz1, sz2, alloc_size,
	};
	u32 covered = 0, size;
	unsigned int i = 0;

	if (!cxen_frag_param_ok(p))
		return -EINVAL;

	memset(l, 0, sizeof(*l));
	l->frame_max = CXEN_FRAME_MAX(p->mtu);
	l->alloc_size = alloc_size;

	while (covered < l->frame_max) {
		if (i == p->max_frags)
			return -EINVAL;
		size = min(nominal[i], l->frame_max - covered);
		l->frag[i].size = size;
		l->frag[i].stride = ALIGN(nominal[i], SMP_CACHE_BYTES);
		covered += size;
		i++;
	}
	l->nfrags = i;

	if (WARN_ON_ONCE(!cxen_frag_layout_sane(p, l)))
		return -EINVAL;
	return 0;
}

/**
 * cxen_frag_layout_legacy2012 - mlx4 RX fragments of Linux 3.4
 * @p: as for cxen_frag_layout(); headroom and tailroom are not used
 * @l: the layout, written on success
 *
 * Fragments of 512 - NET_IP_ALIGN, 1024, 4096 and 16384 bytes filled in
 * order (MTU 1500: two fragments). In 2012 each was dma_map_single()d on
 * refill and unmapped on receive, the allocation side of this layout.
 *
 * Context: any; pure arithmetic.
 * Return: 0, or -EINVAL as cxen_frag_layout().
 */
int cxen_frag_layout_legacy2012(const struct cxen_frag_param *p,
				struct cxen_frag_layout *l)
{
	return cxen_frag_layout_mlx4(p, l, 512 - NET_IP_ALIGN, 1024, 4096);
}
EXPORT_SYMBOL_IF_KUNIT(cxen_frag_layout_legacy2012);

/**
 * cxen_frag_layout_wholepage2012 - mlx4 RX fragments of Linux 3.6 - 3.10
 * @p: as for cxen_frag_layout(); headroom and tailroom are not used
 * @l: the layout, written on success
 *
 * The fragment sizes of legacy2012 (3.6 changed the mapping, not the
 * sizes: the 3.11 change removes these very 512 - NET_IP_ALIGN and 1024),
 * carved from 16 KiB buffers each mapped once.
 *
 * Context: any; pure arithmetic.
 * Return: 0, or -EINVAL as cxen_frag_layout().
 */
int cxen_frag_layout_wholepage2012(const struct cxen_frag_param *p,
				   struct cxen_frag_layout *l)
{
	return cxen_frag_layout_mlx4(p, l, 512 - NET_IP_ALIGN, 1024, 4096);
}
EXPORT_SYMBOL_IF_KUNIT(cxen_frag_layout_wholepage2012);

/**
 * cxen_frag_layout_onefrag2013 - mlx4 RX fragments of Linux 3.11
 * @p: as for cxen_frag_layout(); headroom and tailroom are not used
 * @l: the layout, written on success
 *
 * Fragments of 1536 - NET_IP_ALIGN, 4096, 4096 and 16384 bytes: a
 * 1500-MTU frame in one fragment, so GRO packs twice the segments.
 *
 * Context: any; pure arithmetic.
 * Return: 0, or -EINVAL as cxen_frag_layout().
 */
int cxen_frag_layout_onefrag2013(const struct cxen_frag_param *p,
				 struct cxen_frag_layout *l)
{
	return cxen_frag_layout_mlx4(p, l, 1536 - NET_IP_ALIGN, 4096, 4096);
}
EXPORT_SYMBOL_IF_KUNIT(cxen_frag_layout_onefrag2013);

#endif /* CONFIG_CXEN_RX_COMPARE */

const struct cxen_rx_layout_ops cxen_rx_layouts[CXEN_RX_NR_LAYOUTS] = {
	[CXEN_RX_PAGEPOOL] = {
		.name		= "pagepool",
		.layout		= cxen_frag_layout,
		.kind		= CXEN_RX_KIND_SG,
	},
#if IS_ENABLED(CONFIG_CXEN_RX_COMPARE)
	[CXEN_RX_LEGACY2012] = {
		.name		= "legacy2012",
		.layout		= cxen_frag_layout_legacy2012,
		.kind		= CXEN_RX_KIND_COMPARE,
	},
	[CXEN_RX_WHOLEPAGE2012] = {
		.name		= "wholepage2012",
		.layout		= cxen_frag_layout_wholepage2012,
		.kind		= CXEN_RX_KIND_COMPARE,
	},
	[CXEN_RX_ONEFRAG2013] = {
		.name		= "onefrag2013",
		.layout		= cxen_frag_layout_onefrag2013,
		.kind		= CXEN_RX_KIND_COMPARE,
	},
#endif
	[CXEN_RX_STRIDING] = {
		.name		= "striding",
		.layout		= cxen_stride_frag_check,
		.kind		= CXEN_RX_KIND_STRIDE,
		.dev_cap	= CXEN_DEV_CAP_STRIDING_RQ,
	},
};
EXPORT_SYMBOL_IF_KUNIT(cxen_rx_layouts);

/**
 * cxen_rx_layout_find - an RX buffer layout by name
 * @name: one of CXEN_RX_LAYOUT_NAMES: "pagepool", and with
 *	CONFIG_CXEN_RX_COMPARE "legacy2012", "wholepage2012" or
 *	"onefrag2013"; a trailing newline is ignored
 *
 * Context: any.
 * Return: its &enum cxen_rx_layout, or -EINVAL.
 */
int cxen_rx_layout_find(const char *name)
{
	int i;

	for (i = 0; i < CXEN_RX_NR_LAYOUTS; i++)
		if (sysfs_streq(name, cxen_rx_layouts[i].name))
			return i;
	return -EINVAL;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_rx_layout_find);

/**
 * cxen_rx_layout_pick - the RX buffer layout a port runs
 * @in: the user's request and what constrains it
 *
 * A layout the user named is the one: the checks that follow
 * (cxen_params_check()) refuse it where it cannot run. With none named
 * and @in->automatic off, the default layout. With @in->automatic on the
 * driver picks, in this order:
 *
 *   an XDP program                pagepool (XDP runs on it only)
 *   no striding RQ on the device  pagepool
 *   tcp-data-split on             striding (split runs on it only)
 *   LRO on                        striding (LRO runs on it only)
 *   mtu > max_linear_mtu          striding
 *   otherwise                     pagepool
 *
 * Up to max_linear_mtu (3690 on x86-64, 4 KiB pages) the default layout
 * builds each skb around its one buffer; above it both layouts attach the
 * frame as page frags, and striding pins only the strides a frame fills: at
 * MTU 9000 half the memory per queue at the same CPU per byte
 * (Documentation/rx-buffers.rst, "Choosing a layout").
 *
 * Context: any; pure.
 * Return: the layout.
 */
enum cxen_rx_layout cxen_rx_layout_pick(const struct cxen_rx_pick *in)
{
	if (in->named != CXEN_RX_PAGEPOOL || !in->automatic)
		return in->named;
	if (in->xdp || !in->striding_rq)
		return CXEN_RX_PAGEPOOL;
	if (in->hdr_split || in->lro || in->mtu > in->max_linear_mtu)
		return CXEN_RX_STRIDING;
	return CXEN_RX_PAGEPOOL;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_rx_layout_pick);

/*
 * The striding RQ
 * ---------------
 *
 * A striding WQE (Documentation/hw-interface.rst "Striding RQ") is a run
 * of pages cut into strides; the device places each frame at the next free
 * stride and the frame pins only the strides it takes. The geometry:
 *
 *   stride        = max(64, SMP_CACHE_BYTES)   (the device's smallest)
 *   frame_strides = DIV_ROUND_UP(headroom + frame_max + tailroom, stride)
 *   pages         = the fewest, a power of two, holding
 *                   CXEN_STRIDE_WQE_FRAMES (4) frames of frame_strides,
 *                   and with LRO at least CXEN_STRIDE_LRO_WQE (64 KiB),
 *                   within the device's 64 pages and 256 KiB
 *   strides       = pages * page_size / stride
 *
 * The stride does not follow the MTU: the smallest stride is the finest
 * charge (a frame pins under a cache line it does not use) and the device
 * writes whole cache lines. The MTU sets the WQE's size instead: a frame
 * that does not fit what is left of a WQE releases it with a filler, so up
 * to one largest frame of every WQE may go unused, at most a quarter of it
 * with 4 frames to a WQE. More would waste less but raise the smallest RX
 * memory a queue can have (the device's rings have 64 WQEs at least): at
 * MTU 9000 on 4 KiB pages a WQE is 16 pages (7 frames), 64 of them 4 MiB,
 * under half of the scatter-list layout's 9 MiB for 1024 frames.
 *
 * A frame charges its strides, plus its header buffer when split
 * (cxen_stride_truesize()). Every CQE of a striding RQ gives the strides
 * it consumes; cxen_stride_account() checks them against what the
 * driver's own count allows and tells what to do, trusting nothing.
 */

static bool cxen_stride_param_ok(const struct cxen_stride_param *p)
{
	return p->mtu >= CXEN_HW_MIN_MTU && p->mtu <= CXEN_HW_MAX_MTU &&
	       is_power_of_2(p->page_size) &&
	       p->page_size >= 1u << CXEN_HW_MIN_LOG_PAGE_BYTES &&
	       p->page_size <= 1u << CXEN_HW_MAX_LOG_PAGE_BYTES &&
	       p->headroom <= CXEN_HW_MAX_RX_PAD &&
	       p->tailroom <= CXEN_HW_MAX_RX_PAD &&
	       p->hdr_buf <= CXEN_HW_MAX_HDR_BUF;
}

/**
 * cxen_stride_layout - the striding RQ's geometry for an MTU and page size
 * @p: MTU, page size, the device's pads around whole frames, header buffer
 * @l: the layout, written on success
 *
 * The formula is at "The striding RQ" above and in
 * Documentation/rx-buffers.rst.
 *
 * Context: any; pure arithmetic.
 * Return: 0, or -EINVAL when a parameter is out of range (or, which no
 * parameter in range does, the device's largest WQE cannot hold a frame).
 */
int cxen_stride_layout(const struct cxen_stride_param *p,
		       struct cxen_stride_layout *l)
{
	u32 log_stride, log_page, frame_bytes, pages, max_pages;

	if (!cxen_stride_param_ok(p))
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	log_stride = max_t(u32, CXEN_HW_MIN_LOG_STRIDE_BYTES,
			   ilog2(SMP_CACHE_BYTES));
	log_page = ilog2(p->page_size);
	if (log_stride > CXEN_HW_MAX_LOG_STRIDE_BYTES || log_stride > log_page)
		return -EINVAL;

	l->frame_max = CXEN_FRAME_MAX(p->mtu);
	l->headroom = p->headroom;
	l->tailroom = p->tailroom;
	l->hdr_buf = p->hdr_buf;
	l->log_stride = log_stride;
	l->log_page = log_page;
	l->frame_strides = DIV_ROUND_UP(p->headroom + l->frame_max + p->tailroom,
					1u << log_stride);

	frame_bytes = l->frame_strides << log_stride;
	pages = DIV_ROUND_UP(CXEN_STRIDE_WQE_FRAMES * frame_bytes,
			     p->page_size);
	if (p->lro)
		pages = max(pages, DIV_ROUND_UP(CXEN_STRIDE_LRO_WQE,
						p->page_size));
	pages = roundup_pow_of_two(pages);
	max_pages = min(CXEN_HW_MAX_WQE_PAGES,
			1u << (CXEN_HW_MAX_LOG_WQE_BYTES - log_page));
	pages = min(pages, max_pages);
	if (pages << log_page < frame_bytes)
		return -EINVAL;
	l->log_wqe_pages = ilog2(pages);
	l->strides = pages << (log_page - log_stride);
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_stride_layout);

/**
 * cxen_stride_param_init() - the striding layout's input for an MTU
 * @mtu: the MTU
 * @p: filled in: the kernel's page size, no pads (frames packed), no
 *	header split
 */
void cxen_stride_param_init(u32 mtu, struct cxen_stride_param *p)
{
	memset(p, 0, sizeof(*p));
	p->mtu = mtu;
	p->page_size = PAGE_SIZE;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_stride_param_init);

/**
 * cxen_stride_frag_check() - the striding layout's &cxen_rx_layout_ops.layout
 * @p: fragment layout input: its MTU and page size are used
 * @l: written with the frame size only (no fragments: the striding RQ has
 *	a geometry of its own, &cxen_rq.slayout)
 *
 * Lets the reconfiguration check an MTU against the striding RQ before
 * anything is built.
 *
 * Return: 0, or -EINVAL when cxen_stride_layout() refuses the MTU or page
 * size, or for an XDP RQ (XDP runs on the pagepool layout only).
 */
int cxen_stride_frag_check(const struct cxen_frag_param *p,
			   struct cxen_frag_layout *l)
{
	struct cxen_stride_layout sl;
	struct cxen_stride_param sp;

	if (p->xdp)
		return -EINVAL;
	cxen_stride_param_init(p->mtu, &sp);
	sp.page_size = p->page_size;
	if (cxen_stride_layout(&sp, &sl))
		return -EINVAL;
	memset(l, 0, sizeof(*l));
	l->frame_max = sl.frame_max;
	l->alloc_size = p->page_size;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_stride_frag_check);

/**
 * cxen_stride_frame_strides - strides the device gives a frame
 * @l: the RQ's layout
 * @len: the frame's length (the CQE's byte_cnt)
 * @hdr_len: the bytes that went to a header buffer, 0 when not split
 *
 * A whole frame takes its headroom, itself and its tailroom; a split one
 * its payload alone (hw-interface.rst, "Placing a frame").
 *
 * Context: any.
 * Return: the strides, or 0 for a length of 0, headers not shorter than
 * the frame, or a frame no WQE of @l holds (an implausible CQE).
 */
u32 cxen_stride_frame_strides(const struct cxen_stride_layout *l, u32 len,
			      u32 hdr_len)
{
	u64 bytes;
	u32 n;

	if (!len || hdr_len >= len)
		return 0;
	bytes = hdr_len ? len - hdr_len :
		(u64)l->headroom + len + l->tailroom;
	if (bytes > (u64)l->strides << l->log_stride)
		return 0;
	n = DIV_ROUND_UP_ULL(bytes, 1u << l->log_stride);
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_stride_frame_strides);

/**
 * cxen_stride_truesize - buffer bytes a frame of a striding RQ pins
 * @l: the RQ's layout
 * @num: the strides it consumed (checked by cxen_stride_account())
 * @split: its headers are in a header buffer, which it pins too
 *
 * Context: any.
 * Return: @num strides, plus the header buffer when @split.
 */
u32 cxen_stride_truesize(const struct cxen_stride_layout *l, u32 num,
			 bool split)
{
	return (num << l->log_stride) + (split ? l->hdr_buf : 0);
}
EXPORT_SYMBOL_IF_KUNIT(cxen_stride_truesize);

/**
 * cxen_stride_ring_wqes - WQEs a striding RQ needs to hold some bytes
 * @l: the RQ's layout
 * @bytes: the RX memory the ring should hold
 *
 * Context: any.
 * Return: the fewest WQEs holding @bytes, a power of two within the
 * device's ring sizes (64..8192).
 */
u32 cxen_stride_ring_wqes(const struct cxen_stride_layout *l, u64 bytes)
{
	u64 wqe = (u64)l->strides << l->log_stride;
	u64 n = div64_u64(bytes + wqe - 1, wqe);

	n = clamp_t(u64, n, 1u << CXEN_HW_MIN_LOG_RING,
		    1u << CXEN_HW_MAX_LOG_RING);
	return roundup_pow_of_two(n);
}
EXPORT_SYMBOL_IF_KUNIT(cxen_stride_ring_wqes);

/**
 * cxen_stride_cq_plan - a striding RQ's CQ and the WQEs it may post at once
 * @l: the RQ's layout
 * @wqes: the WQEs of its ring
 * @log_max_cq: log2 of the most CQEs a CQ of the device holds
 * @post_max: written: the most WQEs posted and not yet retired
 *
 * Each completion takes a stride at least (a frame of up to 64 bytes, a
 * split frame's payload, a filler, a flush), so the WQEs posted and not
 * yet retired account for at most @post_max * @l->strides CQEs: with no
 * more posted the device cannot overrun the CQ, however small the frames
 * (a ring of full-MTU slots taking short frames from a smaller-MTU peer,
 * a stream of ACKs). The CQ holds the whole ring's worth when the device
 * allows, else the posting is capped.
 *
 * Context: any.
 * Return: log2 of the CQ's CQEs, or -EINVAL when one WQE has more strides
 * than a CQ can take.
 */
int cxen_stride_cq_plan(const struct cxen_stride_layout *l, u32 wqes,
			u32 log_max_cq, u32 *post_max)
{
	u32 log_cq;

	if (!l->strides || !wqes || l->strides > 1U << log_max_cq)
		return -EINVAL;
	log_cq = min_t(u32, order_base_2((u64)wqes * l->strides), log_max_cq);
	*post_max = min_t(u32, wqes, (1U << log_cq) / l->strides);
	return log_cq;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_stride_cq_plan);

/**
 * cxen_stride_pieces - where a frame's bytes are, page by page
 * @l: the RQ's layout
 * @first: the frame's first stride
 * @len: its length (byte_cnt)
 * @hdr_len: bytes in a header buffer, 0 when not split
 * @pc: the pieces, one per page the bytes touch, in order
 * @max: room in @pc
 *
 * A whole frame starts @l->headroom bytes into stride @first, a split
 * frame's payload at the stride itself; it runs on across pages. These
 * are the page frags the driver attaches (one piece: it may build the
 * skb in place, with the pads for head- and tailroom).
 *
 * Context: any.
 * Return: the number of pieces, or 0 when the bytes leave the WQE, are
 * none, or need more than @max pieces.
 */
unsigned int cxen_stride_pieces(const struct cxen_stride_layout *l,
				u32 first, u32 len, u32 hdr_len,
				struct cxen_stride_piece *pc,
				unsigned int max)
{
	u64 wqe = (u64)l->strides << l->log_stride, off;
	u32 page = 1u << l->log_page, bytes, chunk;
	unsigned int n = 0;

	if (!len || hdr_len >= len || first >= l->strides)
		return 0;
	bytes = len - hdr_len;
	off = ((u64)first << l->log_stride) + (hdr_len ? 0 : l->headroom);
	if (off + bytes > wqe)
		return 0;
	while (bytes) {
		if (n == max)
			return 0;
		pc[n].page = off >> l->log_page;
		pc[n].offset = off & (page - 1);
		chunk = min(bytes, page - pc[n].offset);
		pc[n].len = chunk;
		off += chunk;
		bytes -= chunk;
		n++;
	}
	return n;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_stride_pieces);

/**
 * cxen_hdr_split_ok - is a split frame's header length plausible?
 * @hdr_buf: bytes of the header buffer it names
 * @byte_cnt: the frame's length
 * @hdr_len: the CQE's hdr_len
 *
 * The headers reach at least to the end of a TCP header over IPv4, stay
 * within the header buffer, and leave a payload.
 *
 * Context: any.
 * Return: true when the driver may use them.
 */
bool cxen_hdr_split_ok(u32 hdr_buf, u32 byte_cnt, u32 hdr_len)
{
	return hdr_len >= CXEN_SPLIT_MIN_HDR && hdr_len <= hdr_buf &&
	       hdr_len < byte_cnt;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_hdr_split_ok);

/*
 * The checks of cxen_stride_account(), nothing changed. @skip: the CQE
 * names the next WQE; @next: the stride the CQE must not start before.
 */
static enum cxen_stride_verdict
cxen_stride_check(const struct cxen_stride_layout *l,
		  const struct cxen_stride_pos *pos, const struct cxen_cqe *cqe,
		  bool *skip, u32 *next)
{
	u32 first = cxen_cqe_stride_first(cqe), num = cxen_cqe_stride_num(cqe);
	u8 op = FIELD_GET(CXEN_CQE_OPCODE, cqe->owner_sr_opcode);
	u32 flags = be32_to_cpu(cqe->flags), hdr_len = 0;
	u16 idx = be16_to_cpu(cqe->wqe_index);
	bool last = flags & CXEN_CQE_WQE_LAST;

	*skip = false;
	*next = pos->next;
	if (idx == (u16)(pos->wqe + 1) && pos->claimed) {
		*skip = true;
		*next = 0;
	} else if (idx != (u16)pos->wqe) {
		return CXEN_STRIDE_BAD_WQE;
	}
	if (first >= l->strides || num > l->strides - first)
		return CXEN_STRIDE_BAD_RANGE;
	if (first < *next)
		return CXEN_STRIDE_REUSED;
	if (first > *next && !pos->refused)
		return CXEN_STRIDE_BAD_FIRST;

	if (op == CXEN_CQE_OP_RECV && (flags & CXEN_CQE_FILLER)) {
		if (!last || cqe->byte_cnt || !num || first + num != l->strides)
			return CXEN_STRIDE_BAD_FILLER;
		return CXEN_STRIDE_OK;
	}
	if (last != (first + num == l->strides))
		return CXEN_STRIDE_BAD_LAST;
	if (op != CXEN_CQE_OP_RECV)
		return CXEN_STRIDE_OK;
	if (flags & CXEN_CQE_HDR_SPLIT)
		hdr_len = be16_to_cpu(cqe->hdr_len);
	if (!num || num != cxen_stride_frame_strides(l, be32_to_cpu(cqe->byte_cnt),
						     hdr_len))
		return CXEN_STRIDE_BAD_COUNT;
	return CXEN_STRIDE_OK;
}

/**
 * cxen_stride_refuse - note a CQE refused without taking anything
 * @l: the RQ's layout
 * @pos: the WQE in use and its next free stride, left where they are
 * @cqe: the CQE refused
 *
 * What cxen_stride_account() does with a CQE it refuses, for a CQE the
 * caller refuses for its own reasons before accounting it (a header
 * length out of its buffer, say): the device consumed strides the driver
 * will not see, so the next CQE may start further on, or name the next
 * WQE when this one claimed the WQE's end.
 *
 * Context: any; pure arithmetic on @pos.
 */
void cxen_stride_refuse(const struct cxen_stride_layout *l,
			struct cxen_stride_pos *pos, const struct cxen_cqe *cqe)
{
	u32 first = cxen_cqe_stride_first(cqe), num = cxen_cqe_stride_num(cqe);
	bool last = be32_to_cpu(cqe->flags) & CXEN_CQE_WQE_LAST;

	pos->refused = true;
	if (last || (u64)first + num == l->strides)
		pos->claimed = true;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_stride_refuse);

/**
 * cxen_stride_account - check a striding RQ's CQE and say how to apply it
 * @l: the RQ's layout
 * @pos: the WQE in use and its next free stride, advanced when accepted
 * @cqe: the CQE (RECV or ERROR), its owner bit and queue already checked
 * @t: what to do, written when accepted
 *
 * What the device promises (hw-interface.rst) is checked, not believed:
 * the CQE names the WQE in use; its strides start at its next free one
 * and stay in the WQE; a frame's count matches its byte_cnt (and
 * hdr_len); WQE_LAST is set exactly when they reach the WQE's end; a
 * filler has WQE_LAST, no bytes, and reaches the end.
 *
 * After a refused CQE the device has consumed strides the driver did not
 * see: the next CQE accepted may then start further on (a gap, dropped),
 * and, when a refused CQE claimed the WQE's end, name the next WQE (the
 * rest of the one in use dropped, the WQE retired). Without a refusal
 * neither is accepted, so one lying CQE among truthful ones never makes
 * the driver take strides other than the device's: no stride is handed
 * out twice, and every stride of a WQE is handed out (to a frame) or
 * dropped once before the WQE is retired. Lies that keep the strides
 * true (a header length, say) are the caller's to check
 * (cxen_hdr_split_ok()).
 *
 * Context: any; pure arithmetic on @pos.
 * Return: the verdict; @t is written, and @pos advanced, only for
 * CXEN_STRIDE_OK.
 */
enum cxen_stride_verdict cxen_stride_account(const struct cxen_stride_layout *l,
					     struct cxen_stride_pos *pos,
					     const struct cxen_cqe *cqe,
					     struct cxen_stride_take *t)
{
	u32 first = cxen_cqe_stride_first(cqe), num = cxen_cqe_stride_num(cqe);
	u8 op = FIELD_GET(CXEN_CQE_OPCODE, cqe->owner_sr_opcode);
	u32 flags = be32_to_cpu(cqe->flags), next;
	bool last = flags & CXEN_CQE_WQE_LAST;
	enum cxen_stride_verdict v;
	bool skip;

	v = cxen_stride_check(l, pos, cqe, &skip, &next);
	if (v != CXEN_STRIDE_OK) {
		cxen_stride_refuse(l, pos, cqe);
		return v;
	}

	t->skip_wqe = skip;
	t->skip_from = pos->next;
	t->gap_from = next;
	t->first = first;
	t->num = num;
	t->frame = op == CXEN_CQE_OP_RECV && !(flags & CXEN_CQE_FILLER);
	t->release = last;
	if (skip)
		pos->wqe++;
	pos->next = first + num;
	if (last) {
		pos->wqe++;
		pos->next = 0;
	}
	pos->refused = false;
	pos->claimed = false;
	return CXEN_STRIDE_OK;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_stride_account);
