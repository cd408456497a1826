// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the cxen RX fragment layout (en_frag.c): every MTU from
 * 68 to 9600 on 4, 16 and 64 KiB pages, with the skb headroom and with the
 * XDP headroom and the real skb_shared_info tailroom, for the default
 * layout, its XDP form (an RQ running an XDP program) and, when
 * the driver has them (CONFIG_CXEN_RX_COMPARE), the three mlx4
 * comparison layouts. A build without them checks that the
 * table holds the default only.
 *
 * The expectations are written from the specification
 * (Documentation/rx-buffers.rst), not read back from the code: the test
 * computes what the fragments must be and compares.
 */

#include <kunit/test.h>
#include <linux/module.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <net/xdp.h>

#include "../../en_frag.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define FRAG_TAILROOM		SKB_DATA_ALIGN(sizeof(struct skb_shared_info))
#define FRAG_MAX_REPORTS	8

static const unsigned int frag_page_sizes[] = { SZ_4K, SZ_16K, SZ_64K };

/* NET_SKB_PAD is max(32, L1_CACHE_BYTES): not usable in an initializer. */
static unsigned int frag_headroom(bool xdp)
{
	return xdp ? XDP_PACKET_HEADROOM : NET_SKB_PAD + NET_IP_ALIGN;
}

static struct cxen_frag_param frag_param(unsigned int mtu,
					 unsigned int page_size, bool xdp,
					 unsigned int max_frags)
{
	return (struct cxen_frag_param) {
		.mtu = mtu,
		.page_size = page_size,
		.headroom = frag_headroom(xdp),
		.tailroom = FRAG_TAILROOM,
		.max_frags = max_frags,
	};
}

/*
 * Sweeps check tens of thousands of layouts: report the first few failures
 * with the MTU, page size, headroom and layout that failed, then stop.
 */
struct frag_ctx {
	struct kunit *test;
	const char *layout_name;
	struct cxen_frag_param p;
	unsigned int fails;
	unsigned long checks;
};

static __printf(3, 4) bool frag_check(struct frag_ctx *c, bool ok,
				      const char *fmt, ...)
{
	struct va_format vaf;
	va_list args;

	c->checks++;
	if (ok)
		return true;
	if (c->fails++ < FRAG_MAX_REPORTS) {
		va_start(args, fmt);
		vaf.fmt = fmt;
		vaf.va = &args;
		KUNIT_FAIL(c->test,
			   "%s mtu %u page %u headroom %u max_frags %u: %pV",
			   c->layout_name, c->p.mtu, c->p.page_size, c->p.headroom,
			   c->p.max_frags, &vaf);
		va_end(args);
	}
	return false;
}

static bool frag_too_many_fails(struct frag_ctx *c)
{
	if (c->fails <= FRAG_MAX_REPORTS)
		return false;
	KUNIT_FAIL(c->test, "%u failures, stopped after %lu checks",
		   c->fails, c->checks);
	return true;
}

static u32 frag_room(const struct cxen_frag_layout *l)
{
	u32 room = 0;
	unsigned int i;

	for (i = 0; i < l->nfrags; i++)
		room += l->frag[i].size;
	return room;
}

/* Invariants of every fragment layout of every RX buffer layout. */
static void frag_check_layout(struct frag_ctx *c,
			      const struct cxen_frag_layout *l)
{
	unsigned int i;

	frag_check(c, l->frame_max == c->p.mtu + ETH_HLEN + 2 * VLAN_HLEN,
		   "frame_max %u", l->frame_max);
	frag_check(c, l->nfrags >= 1 && l->nfrags <= c->p.max_frags &&
		   l->nfrags <= CXEN_HW_RX_MAX_SEGS,
		   "nfrags %u", l->nfrags);
	frag_check(c, is_power_of_2(l->alloc_size) &&
		   l->alloc_size >= c->p.page_size,
		   "alloc_size %u", l->alloc_size);
	frag_check(c, frag_room(l) >= l->frame_max,
		   "fragments hold %u < frame_max %u", frag_room(l),
		   l->frame_max);

	for (i = 0; i < l->nfrags && i < CXEN_HW_RX_MAX_SEGS; i++) {
		const struct cxen_frag *f = &l->frag[i];
		u32 slots = f->stride ? l->alloc_size / f->stride : 0;

		frag_check(c, f->size > 0, "frag %u size 0", i);
		frag_check(c, f->stride &&
			   IS_ALIGNED(f->stride, SMP_CACHE_BYTES),
			   "frag %u stride %u not a multiple of %u", i,
			   f->stride, SMP_CACHE_BYTES);
		frag_check(c, f->offset + f->size <= f->stride,
			   "frag %u offset %u + size %u > stride %u", i,
			   f->offset, f->size, f->stride);
		/* Strides carved back to back: the last ends in the buffer. */
		frag_check(c, slots >= 1 &&
			   (slots - 1) * f->stride + f->offset + f->size <=
			   l->alloc_size,
			   "frag %u stride %u crosses the %u-byte buffer", i,
			   f->stride, l->alloc_size);
	}
}

/* A frame of @len bytes: fits, in the fewest fragments, charged honestly. */
static void frag_check_len(struct frag_ctx *c,
			   const struct cxen_frag_layout *l, u32 len)
{
	unsigned int n = cxen_frag_count(l, len), i;
	u32 room = 0, before = 0, strides = 0;

	if (len == 0 || len > frag_room(l)) {
		frag_check(c, n == 0 && cxen_frag_truesize(l, len) == 0,
			   "len %u: count %u truesize %u, want 0", len, n,
			   cxen_frag_truesize(l, len));
		return;
	}
	if (!frag_check(c, n >= 1 && n <= l->nfrags,
			"len %u: count %u of %u", len, n, l->nfrags))
		return;

	for (i = 0; i < n; i++) {
		before = room;
		room += l->frag[i].size;
		strides += l->frag[i].stride;
	}
	frag_check(c, room >= len, "len %u: %u fragments hold only %u",
		   len, n, room);
	frag_check(c, before < len, "len %u: fits in %u fragments, got %u",
		   len, n - 1, n);
	if (len <= l->frag[0].size)
		frag_check(c, n == 1, "len %u fits frag 0 (%u), count %u",
			   len, l->frag[0].size, n);
	frag_check(c, cxen_frag_truesize(l, len) == strides,
		   "len %u: truesize %u, strides of its %u fragments %u", len,
		   cxen_frag_truesize(l, len), n, strides);
	frag_check(c, strides >= len, "len %u: truesize %u < len", len,
		   strides);
}

/* The lengths where cxen_frag_count() can change, and the extremes. */
static void frag_check_boundaries(struct frag_ctx *c,
				  const struct cxen_frag_layout *l)
{
	u32 room = 0;
	unsigned int i;

	frag_check_len(c, l, 0);
	frag_check_len(c, l, 1);
	frag_check_len(c, l, ETH_ZLEN);
	frag_check_len(c, l, l->frame_max - 1);
	frag_check_len(c, l, l->frame_max);
	for (i = 0; i < l->nfrags; i++) {
		room += l->frag[i].size;
		frag_check_len(c, l, room);
		frag_check_len(c, l, room + 1);
	}
	frag_check_len(c, l, U32_MAX);
}

/* The default layout: the formula of rx-buffers.rst. */
static void frag_check_pagepool(struct frag_ctx *c,
				const struct cxen_frag_layout *l)
{
	const struct cxen_frag_param *p = &c->p;
	u32 need = ALIGN(p->headroom + l->frame_max, SMP_CACHE_BYTES) +
		   p->tailroom;
	const struct cxen_frag *f = &l->frag[0];
	unsigned int i, k;
	u32 n, rem, tail;

	frag_check(c, l->alloc_size == p->page_size, "alloc_size %u",
		   l->alloc_size);
	frag_check(c, l->build_skb == (need <= p->page_size),
		   "build_skb %d with need %u", l->build_skb, need);

	if (l->build_skb) {
		n = p->page_size / need;
		frag_check(c, l->nfrags == 1, "build_skb with %u fragments",
			   l->nfrags);
		frag_check(c, f->offset == p->headroom,
			   "offset %u, want the headroom", f->offset);
		frag_check(c, f->offset + f->size + p->tailroom == f->stride,
			   "tailroom: %u + %u + %u != stride %u", f->offset,
			   f->size, p->tailroom, f->stride);
		frag_check(c, f->size >= l->frame_max, "size %u < frame_max",
			   f->size);
		frag_check(c, p->page_size / f->stride == n,
			   "%u frames per page, want %u",
			   p->page_size / f->stride, n);
		/* The leftover is shared out: under a cache line a frame. */
		frag_check(c, p->page_size - n * f->stride <
			   n * SMP_CACHE_BYTES,
			   "stride %u leaves %u of the page unaccounted",
			   f->stride, p->page_size - n * f->stride);
		return;
	}

	k = DIV_ROUND_UP(l->frame_max, p->page_size);
	rem = l->frame_max - (k - 1) * p->page_size;
	tail = max_t(u32, roundup_pow_of_two(rem), SMP_CACHE_BYTES);
	frag_check(c, l->nfrags == k, "%u fragments, fewest is %u",
		   l->nfrags, k);
	for (i = 0; i < l->nfrags && i < CXEN_HW_RX_MAX_SEGS; i++) {
		f = &l->frag[i];
		frag_check(c, f->offset == 0, "frag %u offset %u", i,
			   f->offset);
		if (i + 1 < l->nfrags)
			frag_check(c, f->size == p->page_size &&
				   f->stride == p->page_size,
				   "frag %u size %u stride %u, want the page",
				   i, f->size, f->stride);
		else
			frag_check(c, f->size == rem && f->stride == tail &&
				   p->page_size % f->stride == 0,
				   "tail size %u stride %u, want %u in %u",
				   f->size, f->stride, rem, tail);
	}
}

/*
 * The XDP layout: one buffer per frame, XDP_PACKET_HEADROOM
 * before it and the skb_shared_info after, while need fits a page (as the
 * default layout); beyond, a head fragment of one page keeping both, the
 * rest of the frame in whole pages (the last one filled only in part),
 * the fewest that hold it. Truesize charges whole pages then.
 */
static void frag_check_xdp(struct frag_ctx *c, const struct cxen_frag_layout *l)
{
	const struct cxen_frag_param *p = &c->p;
	u32 need = ALIGN(p->headroom + l->frame_max, SMP_CACHE_BYTES) +
		   p->tailroom;
	const struct cxen_frag *f = &l->frag[0];
	u32 head = p->page_size - p->headroom - p->tailroom, rest;
	unsigned int i, k, n;

	frag_check(c, l->build_skb, "XDP layout without build_skb");
	frag_check(c, l->alloc_size == p->page_size, "alloc_size %u",
		   l->alloc_size);
	frag_check(c, f->offset == p->headroom,
		   "head offset %u, want the headroom %u", f->offset,
		   p->headroom);
	frag_check(c, f->offset + f->size + p->tailroom <= f->stride,
		   "head: %u + %u + tailroom %u > stride %u", f->offset,
		   f->size, p->tailroom, f->stride);
	frag_check(c, (l->nfrags == 1) ==
		   (p->mtu <= cxen_frag_max_linear_mtu(p)),
		   "%u fragments, max linear MTU %u", l->nfrags,
		   cxen_frag_max_linear_mtu(p));

	if (need <= p->page_size) {
		n = p->page_size / need;
		frag_check(c, l->nfrags == 1, "%u fragments with need %u",
			   l->nfrags, need);
		frag_check(c, f->size >= l->frame_max, "size %u < frame_max",
			   f->size);
		frag_check(c, p->page_size / f->stride == n,
			   "%u frames per page, want %u",
			   p->page_size / f->stride, n);
		return;
	}

	rest = l->frame_max - head;
	k = 1 + DIV_ROUND_UP(rest, p->page_size);
	frag_check(c, l->nfrags == k, "%u fragments, want %u", l->nfrags, k);
	frag_check(c, f->size == head && f->stride == p->page_size,
		   "head size %u stride %u, want %u in the page", f->size,
		   f->stride, head);
	for (i = 1; i < l->nfrags && i < CXEN_HW_RX_MAX_SEGS; i++) {
		u32 want = min(rest, p->page_size);

		f = &l->frag[i];
		frag_check(c, f->offset == 0 && f->stride == p->page_size &&
			   f->size == want,
			   "frag %u offset %u size %u stride %u, want %u in a page",
			   i, f->offset, f->size, f->stride, want);
		rest -= min(rest, p->page_size);
	}
	frag_check(c, cxen_frag_truesize(l, l->frame_max) ==
		   l->nfrags * p->page_size,
		   "truesize %u, want %u pages",
		   cxen_frag_truesize(l, l->frame_max), l->nfrags);
}

/* ------------------------------------------------------------------ */
/* Parameters                                                          */
/* ------------------------------------------------------------------ */

struct frag_sweep_case {
	unsigned int page_size;
	bool xdp;
};

static const struct frag_sweep_case frag_sweep_cases[] = {
	{ SZ_4K, false }, { SZ_4K, true },
	{ SZ_16K, false }, { SZ_16K, true },
	{ SZ_64K, false }, { SZ_64K, true },
};

static void frag_sweep_desc(const struct frag_sweep_case *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "page_size %u headroom %u",
		 t->page_size, frag_headroom(t->xdp));
}

KUNIT_ARRAY_PARAM(frag_sweep, frag_sweep_cases, frag_sweep_desc);

struct frag_layout_case {
	enum cxen_rx_layout layout;
	unsigned int page_size;
};

static const struct frag_layout_case frag_layout_cases[] = {
	{ CXEN_RX_PAGEPOOL, SZ_4K },
	{ CXEN_RX_PAGEPOOL, SZ_16K },
	{ CXEN_RX_PAGEPOOL, SZ_64K },
#if IS_ENABLED(CONFIG_CXEN_RX_COMPARE)
	{ CXEN_RX_LEGACY2012, SZ_4K },
	{ CXEN_RX_LEGACY2012, SZ_16K },
	{ CXEN_RX_LEGACY2012, SZ_64K },
	{ CXEN_RX_WHOLEPAGE2012, SZ_4K },
	{ CXEN_RX_WHOLEPAGE2012, SZ_16K },
	{ CXEN_RX_WHOLEPAGE2012, SZ_64K },
	{ CXEN_RX_ONEFRAG2013, SZ_4K },
	{ CXEN_RX_ONEFRAG2013, SZ_16K },
	{ CXEN_RX_ONEFRAG2013, SZ_64K },
#endif
};

static void frag_layout_desc(const struct frag_layout_case *t, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s page_size %u",
		 cxen_rx_layouts[t->layout].name, t->page_size);
}

KUNIT_ARRAY_PARAM(frag_layout, frag_layout_cases, frag_layout_desc);

/* ------------------------------------------------------------------ */
/* Sweeps                                                              */
/* ------------------------------------------------------------------ */

/*
 * Default layout, every MTU, every max_frags 1..CXEN_HW_RX_MAX_SEGS: it
 * fails exactly when a jumbo frame needs more page-sized fragments than
 * allowed; otherwise every invariant holds, and a larger MTU never
 * charges less.
 */
static void frag_pagepool_sweep_test(struct kunit *test)
{
	const struct frag_sweep_case *t = test->param_value;
	struct frag_ctx c = { .test = test, .layout_name = "pagepool" };
	unsigned int mtu, max_frags, last_build_skb = 0, most_frags = 0;
	u32 last_truesize = 0, need, k;
	struct cxen_frag_layout l;
	bool want_einval;
	int ret;

	for (mtu = CXEN_HW_MIN_MTU; mtu <= CXEN_HW_MAX_MTU; mtu++) {
		for (max_frags = 1; max_frags <= CXEN_HW_RX_MAX_SEGS;
		     max_frags++) {
			c.p = frag_param(mtu, t->page_size, t->xdp, max_frags);
			need = ALIGN(c.p.headroom + CXEN_FRAME_MAX(mtu),
				     SMP_CACHE_BYTES) + c.p.tailroom;
			k = DIV_ROUND_UP(CXEN_FRAME_MAX(mtu), t->page_size);
			want_einval = need > t->page_size && k > max_frags;

			ret = cxen_frag_layout(&c.p, &l);
			frag_check(&c, ret == (want_einval ? -EINVAL : 0),
				   "returned %d, want %d", ret,
				   want_einval ? -EINVAL : 0);
			if (ret)
				continue;

			frag_check_layout(&c, &l);
			frag_check_pagepool(&c, &l);
			if (max_frags < CXEN_HW_RX_MAX_SEGS)
				continue;

			frag_check_boundaries(&c, &l);
			frag_check(&c, cxen_frag_truesize(&l, l.frame_max) >=
				   last_truesize,
				   "truesize %u < %u of the MTU below",
				   cxen_frag_truesize(&l, l.frame_max),
				   last_truesize);
			last_truesize = cxen_frag_truesize(&l, l.frame_max);
			if (l.build_skb)
				last_build_skb = mtu;
			most_frags = max_t(unsigned int, most_frags, l.nfrags);
		}
		if (frag_too_many_fails(&c))
			return;
	}

	KUNIT_EXPECT_GT(test, c.checks, 0UL);
	kunit_info(test, "page_size %u headroom %u: %lu checks\n",
		   t->page_size, c.p.headroom, c.checks);
	kunit_info(test, "build_skb up to MTU %u, nfrags at most %u\n",
		   last_build_skb, most_frags);
}

/* Every layout, every MTU: the invariants every layout must keep. */
static void frag_layout_sweep_test(struct kunit *test)
{
	const struct frag_layout_case *t = test->param_value;
	const struct cxen_rx_layout_ops *ops =
		&cxen_rx_layouts[t->layout];
	struct frag_ctx c = { .test = test, .layout_name = ops->name };
	struct cxen_frag_layout l;
	unsigned int mtu;
	int ret;

	for (mtu = CXEN_HW_MIN_MTU; mtu <= CXEN_HW_MAX_MTU; mtu++) {
		c.p = frag_param(mtu, t->page_size, false, CXEN_HW_RX_MAX_SEGS);
		ret = ops->layout(&c.p, &l);
		if (!frag_check(&c, ret == 0, "returned %d", ret))
			continue;
		frag_check_layout(&c, &l);
		frag_check_boundaries(&c, &l);
		if (t->layout != CXEN_RX_PAGEPOOL)
			frag_check(&c, !l.build_skb && l.frag[0].offset == 0,
				   "build_skb %d offset %u", l.build_skb,
				   l.frag[0].offset);
		if (frag_too_many_fails(&c))
			return;
	}
	KUNIT_EXPECT_GT(test, c.checks, 0UL);
}

/*
 * The XDP layout, every MTU and max_frags, 4/16/64 KiB pages: -EINVAL
 * exactly when the head and the whole pages after it need more fragments
 * than allowed; otherwise the default's invariants, the XDP shape, and a
 * larger MTU never charges less.
 */
static void frag_xdp_sweep_test(struct kunit *test)
{
	struct frag_ctx c = { .test = test, .layout_name = "pagepool+xdp" };
	unsigned int pg, mtu, max_frags, k, linear;
	struct cxen_frag_layout l;
	u32 need, last_truesize;
	bool want_einval;
	int ret;

	for (pg = 0; pg < ARRAY_SIZE(frag_page_sizes); pg++) {
		last_truesize = 0;
		for (mtu = CXEN_HW_MIN_MTU; mtu <= CXEN_HW_MAX_MTU; mtu++) {
			for (max_frags = 1; max_frags <= CXEN_HW_RX_MAX_SEGS;
			     max_frags++) {
				c.p = frag_param(mtu, frag_page_sizes[pg], true,
						 max_frags);
				c.p.xdp = true;
				need = ALIGN(c.p.headroom + CXEN_FRAME_MAX(mtu),
					     SMP_CACHE_BYTES) + c.p.tailroom;
				k = 1 + DIV_ROUND_UP(CXEN_FRAME_MAX(mtu) -
						     min(CXEN_FRAME_MAX(mtu),
							 frag_page_sizes[pg] -
							 c.p.headroom -
							 c.p.tailroom),
						     frag_page_sizes[pg]);
				want_einval = need > frag_page_sizes[pg] &&
					      k > max_frags;
				ret = cxen_frag_layout(&c.p, &l);
				frag_check(&c, ret == (want_einval ? -EINVAL : 0),
					   "returned %d, want %d", ret,
					   want_einval ? -EINVAL : 0);
				if (ret)
					continue;
				frag_check_layout(&c, &l);
				frag_check_xdp(&c, &l);
				if (max_frags < CXEN_HW_RX_MAX_SEGS)
					continue;
				frag_check_boundaries(&c, &l);
				frag_check(&c, cxen_frag_truesize(&l, l.frame_max) >=
					   last_truesize,
					   "truesize %u < %u of the MTU below",
					   cxen_frag_truesize(&l, l.frame_max),
					   last_truesize);
				last_truesize = cxen_frag_truesize(&l, l.frame_max);
			}
			if (frag_too_many_fails(&c))
				return;
		}
		linear = cxen_frag_max_linear_mtu(&c.p);
		kunit_info(test, "page_size %u: one buffer per frame up to MTU %u\n",
			   frag_page_sizes[pg], linear);
	}
	KUNIT_EXPECT_GT(test, c.checks, 0UL);
}

/*
 * cxen_frag_max_linear_mtu(): the layout of that MTU is one buffer built
 * around, the next MTU's is not (or it is the device's largest), for the
 * default and the XDP layout on every page size; 0 when not even the
 * smallest fits.
 */
static void frag_max_linear_mtu_test(struct kunit *test)
{
	struct cxen_frag_layout l;
	struct cxen_frag_param p;
	unsigned int pg, xdp, max;

	for (pg = 0; pg < ARRAY_SIZE(frag_page_sizes); pg++) {
		for (xdp = 0; xdp <= 1; xdp++) {
			p = frag_param(CXEN_HW_MIN_MTU, frag_page_sizes[pg], xdp,
				       CXEN_HW_RX_MAX_SEGS);
			p.xdp = xdp;
			max = cxen_frag_max_linear_mtu(&p);
			KUNIT_ASSERT_GE(test, max, CXEN_HW_MIN_MTU);
			KUNIT_EXPECT_LE(test, max, CXEN_HW_MAX_MTU);
			p.mtu = max;
			KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
			KUNIT_EXPECT_EQ(test, l.nfrags, 1);
			KUNIT_EXPECT_TRUE(test, l.build_skb);
			if (max == CXEN_HW_MAX_MTU)
				continue;
			/*
			 * Beyond: the XDP layout takes a second fragment, the
			 * default one a fragment without head- or tailroom.
			 */
			p.mtu = max + 1;
			KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
			if (xdp)
				KUNIT_EXPECT_GT(test, l.nfrags, 1);
			else
				KUNIT_EXPECT_FALSE(test, l.build_skb);
		}
	}

	/* 4 KiB, XDP: 4096 - tailroom (320 on x86-64) - 256 - 22 = 3498. */
	p = frag_param(1500, SZ_4K, true, 4);
	KUNIT_EXPECT_EQ(test, cxen_frag_max_linear_mtu(&p),
			ALIGN_DOWN(SZ_4K - FRAG_TAILROOM, SMP_CACHE_BYTES) -
			XDP_PACKET_HEADROOM - ETH_HLEN - 2 * VLAN_HLEN);
	/* 16 KiB and up hold the largest frame in one buffer. */
	p.page_size = SZ_16K;
	KUNIT_EXPECT_EQ(test, cxen_frag_max_linear_mtu(&p), CXEN_HW_MAX_MTU);
	/* Not even MTU 68 after a whole-page headroom. */
	p.page_size = SZ_4K;
	p.headroom = SZ_4K - FRAG_TAILROOM;
	KUNIT_EXPECT_EQ(test, cxen_frag_max_linear_mtu(&p), 0);
}

/*
 * Every frame length, 0 to one past what the fragments hold, of the
 * layouts of one layout and MTU on every page size, with the skb and
 * with the XDP headroom.
 */
static void frag_check_every_length(struct frag_ctx *c,
				    const struct cxen_rx_layout_ops *ops,
				    unsigned int mtu)
{
	struct cxen_frag_layout l;
	unsigned int pg, xdp;
	u32 len;

	for (pg = 0; pg < ARRAY_SIZE(frag_page_sizes); pg++) {
		for (xdp = 0; xdp <= 1; xdp++) {
			c->p = frag_param(mtu, frag_page_sizes[pg], xdp,
					  CXEN_HW_RX_MAX_SEGS);
			if (!frag_check(c, ops->layout(&c->p, &l) == 0,
					"layout failed"))
				continue;
			for (len = 0; len <= frag_room(&l) + 1; len++)
				frag_check_len(c, &l, len);
		}
	}
}

/*
 * Not just the boundaries: every frame length for MTUs around the
 * thresholds on 4 KiB pages, the last build_skb MTU (3690 with the skb
 * headroom on x86-64) and a frame_max of exactly two pages (8170).
 */
static void frag_every_length_test(struct kunit *test)
{
	static const unsigned int mtus[] = {
		68, 1500, 3690, 3691, 4000, 8170, 8171, 9000, 9600,
	};
	struct frag_ctx c = { .test = test };
	unsigned int s, m;

	for (s = 0; s < CXEN_RX_NR_LAYOUTS; s++) {
		/* An RQ of its own geometry (striding): suite cxen_stride. */
		if (cxen_rx_layouts[s].kind == CXEN_RX_KIND_STRIDE)
			continue;
		c.layout_name = cxen_rx_layouts[s].name;
		for (m = 0; m < ARRAY_SIZE(mtus); m++) {
			frag_check_every_length(&c, &cxen_rx_layouts[s],
						mtus[m]);
			if (frag_too_many_fails(&c))
				return;
		}
	}
	KUNIT_EXPECT_GT(test, c.checks, 0UL);
}

/* ------------------------------------------------------------------ */
/* The default layout: worked examples                                 */
/* ------------------------------------------------------------------ */

/* MTU 1500 on 4 KiB pages: one fragment, two frames per page. */
static void frag_mtu1500_4k_test(struct kunit *test)
{
	struct cxen_frag_param p = frag_param(1500, SZ_4K, false, 4);
	struct cxen_frag_layout l;

	/* need = ALIGN(64 + 1522, 64) + 320 = 1920 on x86-64: n = 2 */
	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.frame_max, 1522);
	KUNIT_EXPECT_EQ(test, l.nfrags, 1);
	KUNIT_EXPECT_TRUE(test, l.build_skb);
	KUNIT_EXPECT_EQ(test, l.frag[0].stride, 2048);
	KUNIT_EXPECT_EQ(test, SZ_4K / l.frag[0].stride, 2);
	KUNIT_EXPECT_EQ(test, l.frag[0].offset, NET_SKB_PAD + NET_IP_ALIGN);
	KUNIT_EXPECT_EQ(test, l.frag[0].size,
			2048 - (NET_SKB_PAD + NET_IP_ALIGN) - FRAG_TAILROOM);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, 1522), 1);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 1522), 2048);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 60), 2048);

	/* One data segment is enough. */
	p.max_frags = 1;
	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.frag[0].stride, 2048);

	/*
	 * XDP headroom: need = ALIGN(256 + 1522, 64) + 320 = 2112 > 2048,
	 * so one frame per page and it charges the page.
	 */
	p = frag_param(1500, SZ_4K, true, 4);
	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_EXPECT_TRUE(test, l.build_skb);
	KUNIT_EXPECT_EQ(test, l.frag[0].offset, XDP_PACKET_HEADROOM);
	KUNIT_EXPECT_EQ(test, l.frag[0].stride, SZ_4K);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 1522), SZ_4K);
}

/* MTU 9000 on 4 KiB pages: 4096 + 4096 + 830 in strides 4096/4096/1024. */
static void frag_jumbo9000_4k_test(struct kunit *test)
{
	struct cxen_frag_param p = frag_param(9000, SZ_4K, false, 4);
	struct cxen_frag_layout l;
	unsigned int i;

	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.frame_max, 9022);
	KUNIT_EXPECT_FALSE(test, l.build_skb);
	KUNIT_ASSERT_EQ(test, l.nfrags, 3);
	KUNIT_EXPECT_EQ(test, l.frag[0].size, 4096);
	KUNIT_EXPECT_EQ(test, l.frag[0].stride, 4096);
	KUNIT_EXPECT_EQ(test, l.frag[1].size, 4096);
	KUNIT_EXPECT_EQ(test, l.frag[1].stride, 4096);
	KUNIT_EXPECT_EQ(test, l.frag[2].size, 9022 - 8192);
	KUNIT_EXPECT_EQ(test, l.frag[2].stride, 1024);
	for (i = 0; i < l.nfrags; i++)
		KUNIT_EXPECT_EQ(test, l.frag[i].offset, 0);

	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, 4096), 1);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, 4097), 2);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, 8192), 2);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, 8193), 3);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 1500), 4096);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 8192), 8192);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 9022), 9216);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, 9023), 0);

	/* XDP headroom changes nothing without build_skb. */
	p = frag_param(9000, SZ_4K, true, 3);
	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.nfrags, 3);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 9022), 9216);
}

/*
 * XDP on 4 KiB pages: MTU 1500 one page per frame (need 2112); the last
 * MTU of one buffer and the next; MTU 9000 in a head of 3520 bytes
 * (4096 - 256 - 320 on x86-64) and two pages, 3520 + 4096 + 1406, truesize
 * three pages; MTU 9600 in three pages too, not two.
 */
static void frag_xdp_4k_test(struct kunit *test)
{
	struct cxen_frag_param p = frag_param(1500, SZ_4K, true, 4);
	u32 head = SZ_4K - XDP_PACKET_HEADROOM - FRAG_TAILROOM;
	struct cxen_frag_layout l;
	unsigned int max;

	p.xdp = true;
	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.nfrags, 1);
	KUNIT_EXPECT_TRUE(test, l.build_skb);
	KUNIT_EXPECT_EQ(test, l.frag[0].offset, XDP_PACKET_HEADROOM);
	KUNIT_EXPECT_EQ(test, l.frag[0].stride, SZ_4K);
	KUNIT_EXPECT_EQ(test, l.frag[0].size, head);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 1522), SZ_4K);

	max = cxen_frag_max_linear_mtu(&p);
	p.mtu = max;
	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.nfrags, 1);
	KUNIT_EXPECT_EQ(test, l.frag[0].size, head);
	KUNIT_EXPECT_LE(test, l.frame_max, head);
	p.mtu = max + 1;
	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_ASSERT_EQ(test, l.nfrags, 2);
	KUNIT_EXPECT_EQ(test, l.frag[0].size, head);
	KUNIT_EXPECT_EQ(test, l.frag[1].size, CXEN_FRAME_MAX(max + 1) - head);
	KUNIT_EXPECT_EQ(test, l.frag[1].stride, SZ_4K);

	p.mtu = 9000;
	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_EXPECT_TRUE(test, l.build_skb);
	KUNIT_ASSERT_EQ(test, l.nfrags, 3);
	KUNIT_EXPECT_EQ(test, l.frag[0].offset, XDP_PACKET_HEADROOM);
	KUNIT_EXPECT_EQ(test, l.frag[0].size, head);
	KUNIT_EXPECT_EQ(test, l.frag[0].stride, SZ_4K);
	KUNIT_EXPECT_EQ(test, l.frag[1].offset, 0);
	KUNIT_EXPECT_EQ(test, l.frag[1].size, SZ_4K);
	KUNIT_EXPECT_EQ(test, l.frag[1].stride, SZ_4K);
	KUNIT_EXPECT_EQ(test, l.frag[2].offset, 0);
	KUNIT_EXPECT_EQ(test, l.frag[2].size, 9022 - head - SZ_4K);
	KUNIT_EXPECT_EQ(test, l.frag[2].stride, SZ_4K);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, head), 1);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, head + 1), 2);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, head + SZ_4K), 2);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, head + SZ_4K + 1), 3);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 1522), SZ_4K);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 9022), 3 * SZ_4K);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, 9023), 0);

	/* Two segments are too few for a jumbo frame with XDP. */
	p.max_frags = 2;
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), -EINVAL);
	p.max_frags = 3;
	p.mtu = CXEN_HW_MAX_MTU;
	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.nfrags, 3);
	KUNIT_EXPECT_EQ(test, l.frag[2].size, 9622 - head - SZ_4K);

	/* Without p.xdp the same headroom gives the default jumbo layout. */
	p.xdp = false;
	p.mtu = 9000;
	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_EXPECT_FALSE(test, l.build_skb);
	KUNIT_EXPECT_EQ(test, l.frag[0].offset, 0);
}

/* Larger pages: jumbo frames are built around one fragment too. */
static void frag_big_pages_test(struct kunit *test)
{
	struct cxen_frag_param p = frag_param(9600, SZ_16K, true, 1);
	struct cxen_frag_layout l;
	u32 need;

	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_EXPECT_TRUE(test, l.build_skb);
	KUNIT_EXPECT_EQ(test, l.nfrags, 1);
	KUNIT_EXPECT_EQ(test, l.frag[0].stride, SZ_16K);

	/* MTU 1500 on 64 KiB pages: 34 frames of 1920 on x86-64. */
	p = frag_param(1500, SZ_64K, false, 1);
	need = ALIGN(p.headroom + 1522, SMP_CACHE_BYTES) + p.tailroom;
	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_EXPECT_TRUE(test, l.build_skb);
	KUNIT_EXPECT_EQ(test, SZ_64K / l.frag[0].stride, SZ_64K / need);
	KUNIT_EXPECT_GE(test, l.frag[0].stride, need);
	KUNIT_EXPECT_LT(test, l.frag[0].stride, need + SMP_CACHE_BYTES);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 1522), l.frag[0].stride);
}

static void frag_einval_test(struct kunit *test)
{
	struct cxen_frag_param ok = frag_param(1500, SZ_4K, false, 4), p;
	struct cxen_frag_layout l;
	unsigned int s;

	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&ok, &l), 0);

	p = ok;
	p.mtu = 0;
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), -EINVAL);
	p.mtu = CXEN_HW_MIN_MTU - 1;
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), -EINVAL);
	p.mtu = CXEN_HW_MAX_MTU + 1;
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), -EINVAL);

	p = ok;
	p.page_size = 0;
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), -EINVAL);
	p.page_size = 3000;
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), -EINVAL);
	p.page_size = SZ_2K;
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), -EINVAL);
	p.page_size = SZ_512K;
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), -EINVAL);

	p = ok;
	p.max_frags = 0;
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), -EINVAL);
	p.max_frags = CXEN_HW_RX_MAX_SEGS + 1;
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), -EINVAL);

	p = ok;
	p.tailroom = FRAG_TAILROOM + 1;
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), -EINVAL);

	/* Jumbo on 4 KiB pages needs 3 segments: 1 or 2 are too few. */
	p = frag_param(9000, SZ_4K, false, 1);
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), -EINVAL);
	p.max_frags = 2;
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), -EINVAL);
	p.max_frags = 3;
	KUNIT_EXPECT_EQ(test, cxen_frag_layout(&p, &l), 0);

#if IS_ENABLED(CONFIG_CXEN_RX_COMPARE)
	/* legacy2012 needs all 4 segments at MTU 9000. */
	KUNIT_EXPECT_EQ(test, cxen_frag_layout_legacy2012(&p, &l), -EINVAL);
#endif

	for (s = 0; s < CXEN_RX_NR_LAYOUTS; s++) {
		p = ok;
		p.mtu = 0;
		KUNIT_EXPECT_EQ_MSG(test, cxen_rx_layouts[s].layout(&p, &l),
				    -EINVAL, "%s", cxen_rx_layouts[s].name);
	}
}

static void frag_count_edges_test(struct kunit *test)
{
	struct cxen_frag_param p = frag_param(1500, SZ_4K, false, 4);
	struct cxen_frag_layout l;

	KUNIT_ASSERT_EQ(test, cxen_frag_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, 0), 0);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 0), 0);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, 1), 1);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, l.frag[0].size), 1);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, l.frag[0].size + 1), 0);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, l.frag[0].size + 1), 0);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, U32_MAX), 0);
}

/* ------------------------------------------------------------------ */
/* The comparison layouts (mlx4 history)                               */
/* ------------------------------------------------------------------ */

#if IS_ENABLED(CONFIG_CXEN_RX_COMPARE)

/*
 * legacy2012 at MTU 1500: frame_max 1522 in 512 - NET_IP_ALIGN and the
 * rest of 1024. On x86 NET_IP_ALIGN is 0: 512 + 1010 in strides 512 and
 * 1024, truesize 1536. At MTU 9000 all four: 512 + 1024 + 4096 + 3390 in
 * strides 512 + 1024 + 4096 + 16384 = 22016.
 */
static void frag_legacy2012_test(struct kunit *test)
{
	struct cxen_frag_param p = frag_param(1500, SZ_4K, false, 4);
	struct cxen_frag_layout l;

	KUNIT_ASSERT_EQ(test, cxen_frag_layout_legacy2012(&p, &l), 0);
	KUNIT_EXPECT_FALSE(test, l.build_skb);
	KUNIT_EXPECT_EQ(test, l.alloc_size, SZ_16K);
	KUNIT_ASSERT_EQ(test, l.nfrags, 2);
	KUNIT_EXPECT_EQ(test, l.frag[0].offset, 0);
	KUNIT_EXPECT_EQ(test, l.frag[0].size, 512 - NET_IP_ALIGN);
	KUNIT_EXPECT_EQ(test, l.frag[0].stride, 512);
	KUNIT_EXPECT_EQ(test, l.frag[1].offset, 0);
	KUNIT_EXPECT_EQ(test, l.frag[1].size, 1522 - (512 - NET_IP_ALIGN));
	KUNIT_EXPECT_EQ(test, l.frag[1].stride, 1024);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, 512 - NET_IP_ALIGN), 1);
	KUNIT_EXPECT_EQ(test, cxen_frag_count(&l, 513 - NET_IP_ALIGN), 2);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 1522), 1536);

	p.mtu = 9000;
	KUNIT_ASSERT_EQ(test, cxen_frag_layout_legacy2012(&p, &l), 0);
	KUNIT_ASSERT_EQ(test, l.nfrags, 4);
	KUNIT_EXPECT_EQ(test, l.frag[2].size, 4096);
	KUNIT_EXPECT_EQ(test, l.frag[3].size, 9022 - (5632 - NET_IP_ALIGN));
	KUNIT_EXPECT_EQ(test, l.frag[3].stride, SZ_16K);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 9022), 22016);
}

/* Linux 3.6 changed the mapping, not the sizes: same geometry. */
static void frag_wholepage2012_test(struct kunit *test)
{
	struct cxen_frag_layout a, b;
	struct cxen_frag_param p;
	unsigned int mtu, pg;

	p = frag_param(1500, SZ_4K, false, 4);
	KUNIT_ASSERT_EQ(test, cxen_frag_layout_wholepage2012(&p, &a), 0);
	KUNIT_ASSERT_EQ(test, a.nfrags, 2);
	KUNIT_EXPECT_EQ(test, a.frag[0].size, 512 - NET_IP_ALIGN);
	KUNIT_EXPECT_EQ(test, a.frag[1].stride, 1024);
	KUNIT_EXPECT_EQ(test, a.alloc_size, SZ_16K);

	for (pg = 0; pg < ARRAY_SIZE(frag_page_sizes); pg++) {
		for (mtu = CXEN_HW_MIN_MTU; mtu <= CXEN_HW_MAX_MTU; mtu++) {
			p = frag_param(mtu, frag_page_sizes[pg], false, 4);
			KUNIT_ASSERT_EQ(test, 0,
					cxen_frag_layout_wholepage2012(&p, &a));
			KUNIT_ASSERT_EQ(test, 0,
					cxen_frag_layout_legacy2012(&p, &b));
			if (memcmp(&a, &b, sizeof(a))) {
				KUNIT_FAIL(test, "mtu %u page_size %u differ",
					   mtu, frag_page_sizes[pg]);
				return;
			}
		}
	}
}

/*
 * onefrag2013 at MTU 1500: the whole 1522-byte frame in one fragment of
 * 1536 - NET_IP_ALIGN, stride 1536, ten to a 16 KiB buffer. At MTU 9000:
 * 1536 + 4096 + 3390 in strides 1536 + 4096 + 4096.
 */
static void frag_onefrag2013_test(struct kunit *test)
{
	struct cxen_frag_param p = frag_param(1500, SZ_4K, false, 4);
	struct cxen_frag_layout l;

	KUNIT_ASSERT_EQ(test, cxen_frag_layout_onefrag2013(&p, &l), 0);
	KUNIT_EXPECT_FALSE(test, l.build_skb);
	KUNIT_ASSERT_EQ(test, l.nfrags, 1);
	KUNIT_EXPECT_EQ(test, l.frag[0].offset, 0);
	KUNIT_EXPECT_EQ(test, l.frag[0].size, 1522);
	KUNIT_EXPECT_EQ(test, l.frag[0].stride, 1536);
	KUNIT_EXPECT_EQ(test, l.alloc_size / l.frag[0].stride, 10);
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 1522), 1536);

	p.mtu = 9000;
	KUNIT_ASSERT_EQ(test, cxen_frag_layout_onefrag2013(&p, &l), 0);
	KUNIT_ASSERT_EQ(test, l.nfrags, 3);
	KUNIT_EXPECT_EQ(test, l.frag[0].size, 1536 - NET_IP_ALIGN);
	KUNIT_EXPECT_EQ(test, l.frag[2].size, 9022 - (5632 - NET_IP_ALIGN));
	KUNIT_EXPECT_EQ(test, cxen_frag_truesize(&l, 9022), 1536 + 4096 + 4096);
}

/*
 * How the 2012-2013 receive path takes a frame (cxen_mlx4_rx_plan()),
 * worked examples at MTU 1500 on x86-like numbers: SMALL_PACKET_SIZE
 * 256 - NET_IP_ALIGN, HEADER_COPY_SIZE 128 - NET_IP_ALIGN.
 */
static void frag_mlx4_rx_plan_test(struct kunit *test)
{
	struct cxen_frag_param p = frag_param(1500, SZ_4K, false, 4);
	const u32 small = 256 - NET_IP_ALIGN, hdr = 128 - NET_IP_ALIGN;
	struct cxen_frag_layout l;
	struct cxen_mlx4_rx r;

	KUNIT_ASSERT_EQ(test, cxen_frag_layout_legacy2012(&p, &l), 0);

	/* GRO: no copy at all, whatever the size; GRO pulls the headers. */
	cxen_mlx4_rx_plan(&l, 66, true, &r);
	KUNIT_EXPECT_EQ(test, r.copy, 0);
	KUNIT_EXPECT_EQ(test, r.nfrags, 1);
	KUNIT_EXPECT_EQ(test, r.truesize, 512);
	cxen_mlx4_rx_plan(&l, 1522, true, &r);
	KUNIT_EXPECT_EQ(test, r.copy, 0);
	KUNIT_EXPECT_EQ(test, r.nfrags, 2);
	KUNIT_EXPECT_EQ(test, r.truesize, 1536);

	/* No GRO: small frames copied whole, no fragment attached... */
	cxen_mlx4_rx_plan(&l, 66, false, &r);
	KUNIT_EXPECT_EQ(test, r.copy, 66);
	KUNIT_EXPECT_EQ(test, r.nfrags, 0);
	KUNIT_EXPECT_EQ(test, r.truesize, 0);
	cxen_mlx4_rx_plan(&l, small, false, &r);
	KUNIT_EXPECT_EQ(test, r.copy, small);
	KUNIT_EXPECT_EQ(test, r.nfrags, 0);

	/* ...larger ones attached, HEADER_COPY_SIZE bytes in the head. */
	cxen_mlx4_rx_plan(&l, small + 1, false, &r);
	KUNIT_EXPECT_EQ(test, r.copy, hdr);
	KUNIT_EXPECT_EQ(test, r.nfrags, 1);
	KUNIT_EXPECT_EQ(test, r.truesize, 512);
	cxen_mlx4_rx_plan(&l, 1522, false, &r);
	KUNIT_EXPECT_EQ(test, r.copy, hdr);
	KUNIT_EXPECT_EQ(test, r.nfrags, 2);
	KUNIT_EXPECT_EQ(test, r.truesize, 1536);

	/*
	 * onefrag2013: one fragment a 1500-MTU frame, charging its stride
	 * ALIGN(1536, SMP_CACHE_BYTES) and not the buffer's leftover (the
	 * 1024 bytes ten strides leave of 16 KiB): mlx4 did not charge it
	 * before Linux 4.12.
	 */
	KUNIT_ASSERT_EQ(test, cxen_frag_layout_onefrag2013(&p, &l), 0);
	cxen_mlx4_rx_plan(&l, 1522, true, &r);
	KUNIT_EXPECT_EQ(test, r.nfrags, 1);
	KUNIT_EXPECT_EQ(test, r.truesize, 1536);
	p.mtu = 9000;
	KUNIT_ASSERT_EQ(test, cxen_frag_layout_onefrag2013(&p, &l), 0);
	cxen_mlx4_rx_plan(&l, 9022, true, &r);
	KUNIT_EXPECT_EQ(test, r.nfrags, 3);
	KUNIT_EXPECT_EQ(test, r.truesize, 1536 + 4096 + 4096);
}

/*
 * Every length at MTU 1500 and 9000, every comparison layout, with and
 * without GRO: a frame is either copied whole (small, no GRO) or attached
 * in the fewest fragments charging their strides, and a head copy stays
 * inside the first fragment's bytes.
 */
static bool mlx4_plan_ok(const struct cxen_frag_layout *l, u32 len, bool gro)
{
	const u32 small = 256 - NET_IP_ALIGN, hdr = 128 - NET_IP_ALIGN;
	struct cxen_mlx4_rx r;

	cxen_mlx4_rx_plan(l, len, gro, &r);
	if (!gro && len <= small)
		return r.copy == len && !r.nfrags && !r.truesize;
	return r.copy == (gro ? 0 : hdr) &&
	       r.nfrags == cxen_frag_count(l, len) &&
	       r.truesize == cxen_frag_truesize(l, len) &&
	       r.copy < min(len, l->frag[0].size);
}

/* The first frame length the plan gets wrong, or 0. */
static u32 mlx4_plan_first_bad(const struct cxen_frag_layout *l, bool gro)
{
	u32 len;

	for (len = ETH_HLEN; len <= l->frame_max; len++)
		if (!mlx4_plan_ok(l, len, gro))
			return len;
	return 0;
}

static void frag_mlx4_rx_plan_sweep_test(struct kunit *test)
{
	static const unsigned int mtus[] = { 1500, 9000 };
	unsigned int s, m, gro;

	for (s = CXEN_RX_LEGACY2012; s <= CXEN_RX_ONEFRAG2013; s++) {
		for (m = 0; m < ARRAY_SIZE(mtus); m++) {
			struct cxen_frag_param p = frag_param(mtus[m], SZ_4K,
							      false, 4);
			struct cxen_frag_layout l;
			u32 len;

			KUNIT_ASSERT_EQ(test, 0,
					cxen_rx_layouts[s].layout(&p, &l));
			for (gro = 0; gro < 2; gro++) {
				len = mlx4_plan_first_bad(&l, gro);
				if (len) {
					KUNIT_FAIL(test, "%s mtu %u len %u gro %u",
						   cxen_rx_layouts[s].name,
						   mtus[m], len, gro);
					return;
				}
			}
		}
	}
}
#endif /* CONFIG_CXEN_RX_COMPARE */

static void frag_layout_table_test(struct kunit *test)
{
	struct cxen_frag_param p = frag_param(1500, SZ_4K, false, 4);
	struct cxen_frag_layout l;
	char name[32];
	int s;

	KUNIT_EXPECT_TRUE(test, cxen_rx_layouts[CXEN_RX_PAGEPOOL].layout ==
			  cxen_frag_layout);
	KUNIT_EXPECT_STREQ(test, cxen_rx_layouts[CXEN_RX_PAGEPOOL].name,
			   "pagepool");
#if IS_ENABLED(CONFIG_CXEN_RX_COMPARE)
	KUNIT_EXPECT_EQ(test, CXEN_RX_NR_LAYOUTS, 5);
	KUNIT_EXPECT_STREQ(test, cxen_rx_layouts[CXEN_RX_LEGACY2012].name,
			   "legacy2012");
	KUNIT_EXPECT_STREQ(test, cxen_rx_layouts[CXEN_RX_WHOLEPAGE2012].name,
			   "wholepage2012");
	KUNIT_EXPECT_STREQ(test, cxen_rx_layouts[CXEN_RX_ONEFRAG2013].name,
			   "onefrag2013");
	for (s = CXEN_RX_LEGACY2012; s <= CXEN_RX_ONEFRAG2013; s++)
		KUNIT_EXPECT_EQ(test, cxen_rx_layouts[s].kind,
				CXEN_RX_KIND_COMPARE);
#else
	/* A minimal build knows the default and the striding RQ only. */
	KUNIT_EXPECT_EQ(test, CXEN_RX_NR_LAYOUTS, 2);
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_find("legacy2012"), -EINVAL);
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_find("wholepage2012"), -EINVAL);
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_find("onefrag2013"), -EINVAL);
#endif
	/* The striding RQ: a kind of its own, a device capability. */
	KUNIT_EXPECT_STREQ(test, cxen_rx_layouts[CXEN_RX_STRIDING].name,
			   "striding");
	KUNIT_EXPECT_EQ(test, cxen_rx_layouts[CXEN_RX_STRIDING].kind,
			CXEN_RX_KIND_STRIDE);
	KUNIT_EXPECT_EQ(test, cxen_rx_layouts[CXEN_RX_STRIDING].dev_cap,
			(u32)CXEN_DEV_CAP_STRIDING_RQ);
	KUNIT_EXPECT_EQ(test, cxen_rx_layouts[CXEN_RX_PAGEPOOL].kind,
			CXEN_RX_KIND_SG);
	KUNIT_EXPECT_EQ(test, cxen_rx_layouts[CXEN_RX_PAGEPOOL].dev_cap, 0U);

	for (s = 0; s < CXEN_RX_NR_LAYOUTS; s++) {
		const struct cxen_rx_layout_ops *ops = &cxen_rx_layouts[s];

		KUNIT_ASSERT_NOT_NULL(test, ops->name);
		KUNIT_ASSERT_NOT_NULL(test, ops->layout);
		KUNIT_EXPECT_EQ(test, cxen_rx_layout_find(ops->name), s);
		snprintf(name, sizeof(name), "%s\n", ops->name);
		KUNIT_EXPECT_EQ(test, cxen_rx_layout_find(name), s);
		KUNIT_EXPECT_EQ_MSG(test, ops->layout(&p, &l), 0, "%s",
				    ops->name);
	}
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_find(""), -EINVAL);
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_find("onefrag"), -EINVAL);
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_find("pagepool2"), -EINVAL);
}

/*
 * The automatic RX layout (cxen_rx_layout_pick()): a named layout is
 * the one whatever the rest; with none named and auto on, striding
 * exactly where the default layout cannot build the skb around its one
 * buffer (swept over every MTU and page size), or for header split; the
 * default layout with XDP, without the device's striding RQ, or with
 * auto off.
 */
static void frag_layout_pick_test(struct kunit *test)
{
	struct cxen_rx_pick in = {
		.named = CXEN_RX_PAGEPOOL, .automatic = true,
		.striding_rq = true, .mtu = 9000, .max_linear_mtu = 3690,
	};
	struct cxen_frag_layout l;
	struct cxen_frag_param p;
	unsigned int pg, mtu, s;

	/* "auto" is a devlink value and a flag, never a layout's name. */
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_find(CXEN_RX_AUTO_NAME), -EINVAL);

	KUNIT_EXPECT_EQ(test, cxen_rx_layout_pick(&in), CXEN_RX_STRIDING);
	in.mtu = 3691;
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_pick(&in), CXEN_RX_STRIDING);
	in.mtu = 3690;
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_pick(&in), CXEN_RX_PAGEPOOL);
	in.mtu = 1500;
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_pick(&in), CXEN_RX_PAGEPOOL);
	in.hdr_split = true;
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_pick(&in), CXEN_RX_STRIDING);
	/* LRO, as split, runs on the striding RQ only. */
	in.hdr_split = false;
	in.lro = true;
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_pick(&in), CXEN_RX_STRIDING);
	in.lro = false;
	in.hdr_split = true;
	/* XDP runs on the default layout: it wins over split and MTU. */
	in.xdp = true;
	in.mtu = 9000;
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_pick(&in), CXEN_RX_PAGEPOOL);
	in.xdp = false;
	in.striding_rq = false;
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_pick(&in), CXEN_RX_PAGEPOOL);
	in.striding_rq = true;
	in.automatic = false;
	KUNIT_EXPECT_EQ(test, cxen_rx_layout_pick(&in), CXEN_RX_PAGEPOOL);
	/*
	 * A named layout, auto or not, XDP or not: the checks refuse it
	 * where it cannot run. (Naming pagepool is naming none.)
	 */
	for (s = 0; s < CXEN_RX_NR_LAYOUTS; s++) {
		if (s == CXEN_RX_PAGEPOOL)
			continue;
		in.named = s;
		in.automatic = !(s & 1);
		in.xdp = s & 2;
		KUNIT_EXPECT_EQ(test, cxen_rx_layout_pick(&in), s);
	}

	in = (struct cxen_rx_pick){ .automatic = true, .striding_rq = true };
	for (pg = 0; pg < ARRAY_SIZE(frag_page_sizes); pg++) {
		p = frag_param(CXEN_HW_MIN_MTU, frag_page_sizes[pg], false,
			       CXEN_HW_RX_MAX_SEGS);
		in.max_linear_mtu = cxen_frag_max_linear_mtu(&p);
		for (mtu = CXEN_HW_MIN_MTU; mtu <= CXEN_HW_MAX_MTU; mtu++) {
			p.mtu = mtu;
			in.mtu = mtu;
			if (cxen_frag_layout(&p, &l))
				continue;
			if (cxen_rx_layout_pick(&in) !=
			    (l.build_skb ? CXEN_RX_PAGEPOOL : CXEN_RX_STRIDING)) {
				KUNIT_FAIL(test, "page %u MTU %u: build_skb %d, picked %d",
					   frag_page_sizes[pg], mtu, l.build_skb,
					   cxen_rx_layout_pick(&in));
				return;
			}
		}
	}
}

static struct kunit_case cxen_frag_cases[] = {
	KUNIT_CASE_PARAM(frag_pagepool_sweep_test, frag_sweep_gen_params),
	KUNIT_CASE_PARAM(frag_layout_sweep_test, frag_layout_gen_params),
	KUNIT_CASE(frag_xdp_sweep_test),
	KUNIT_CASE(frag_max_linear_mtu_test),
	KUNIT_CASE(frag_every_length_test),
	KUNIT_CASE(frag_mtu1500_4k_test),
	KUNIT_CASE(frag_xdp_4k_test),
	KUNIT_CASE(frag_jumbo9000_4k_test),
	KUNIT_CASE(frag_big_pages_test),
	KUNIT_CASE(frag_einval_test),
	KUNIT_CASE(frag_count_edges_test),
#if IS_ENABLED(CONFIG_CXEN_RX_COMPARE)
	KUNIT_CASE(frag_legacy2012_test),
	KUNIT_CASE(frag_wholepage2012_test),
	KUNIT_CASE(frag_onefrag2013_test),
	KUNIT_CASE(frag_mlx4_rx_plan_test),
	KUNIT_CASE(frag_mlx4_rx_plan_sweep_test),
#endif
	KUNIT_CASE(frag_layout_table_test),
	KUNIT_CASE(frag_layout_pick_test),
	{}
};

static struct kunit_suite cxen_frag_suite = {
	.name = "cxen_frag",
	.test_cases = cxen_frag_cases,
};

kunit_test_suite(cxen_frag_suite);

MODULE_DESCRIPTION("KUnit tests for the cxen RX fragment layout");
MODULE_LICENSE("GPL");
