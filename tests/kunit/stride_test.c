// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for the striding RQ's pure arithmetic (en_frag.c, "The
 * striding RQ"): the geometry for every MTU on 4, 16 and 64 KiB pages,
 * packed and with the skb or XDP pads; what a frame charges; where its
 * bytes are; and the accounting of CQEs' stride ranges, frame by frame
 * (worked cases: fillers, the counters' wrap, each kind of bad CQE) and
 * over long random runs of a reference device that lies now and then.
 *
 * The expectations come from Documentation/hw-interface.rst ("Striding
 * RQ") and rx-buffers.rst, not from the code: the reference device below
 * places frames as the specification says and writes the CQEs it must.
 */

#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/log2.h>
#include <linux/module.h>
#include <linux/prandom.h>
#include <linux/sizes.h>
#include <linux/skbuff.h>
#include <net/xdp.h>

#include "../../en_frag.h"

MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);

#define ST_TAILROOM	SKB_DATA_ALIGN(sizeof(struct skb_shared_info))
#define ST_STRIDE	max_t(u32, 64, SMP_CACHE_BYTES)

enum st_pads { ST_PACKED, ST_SKB, ST_XDP };

static struct cxen_stride_param st_param(unsigned int mtu,
					 unsigned int page_size,
					 enum st_pads pads,
					 unsigned int hdr_buf)
{
	struct cxen_stride_param p = {
		.mtu = mtu,
		.page_size = page_size,
		.hdr_buf = hdr_buf,
	};

	if (pads != ST_PACKED) {
		p.headroom = pads == ST_XDP ? XDP_PACKET_HEADROOM :
			     NET_SKB_PAD + NET_IP_ALIGN;
		p.tailroom = ST_TAILROOM;
	}
	return p;
}

static u32 st_wqe_bytes(const struct cxen_stride_layout *l)
{
	return l->strides << l->log_stride;
}

/* ------------------------------------------------------------------ */
/* Geometry                                                            */
/* ------------------------------------------------------------------ */

struct st_sweep_case {
	unsigned int page_size;
	enum st_pads pads;
};

static const struct st_sweep_case st_sweep_cases[] = {
	{ SZ_4K, ST_PACKED }, { SZ_4K, ST_SKB }, { SZ_4K, ST_XDP },
	{ SZ_16K, ST_PACKED }, { SZ_16K, ST_SKB }, { SZ_16K, ST_XDP },
	{ SZ_64K, ST_PACKED }, { SZ_64K, ST_SKB }, { SZ_64K, ST_XDP },
};

static void st_sweep_desc(const struct st_sweep_case *t, char *desc)
{
	static const char * const names[] = { "packed", "skb pads", "xdp pads" };

	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "page_size %u %s", t->page_size,
		 names[t->pads]);
}

KUNIT_ARRAY_PARAM(st_sweep, st_sweep_cases, st_sweep_desc);

/*
 * Every MTU: the layout CREATE_RQ accepts, a stride of a cache line, the
 * fewest pages holding CXEN_STRIDE_WQE_FRAMES of the largest frames
 * within the device's WQE, and what frames take and charge.
 */
static void stride_layout_sweep_test(struct kunit *test)
{
	const struct st_sweep_case *t = test->param_value;
	u32 max_pages = min_t(u32, CXEN_HW_MAX_WQE_PAGES,
			      (1u << CXEN_HW_MAX_LOG_WQE_BYTES) / t->page_size);
	u32 last_wqe = 0, need, pages, S = ST_STRIDE, len, n;
	const u32 lens[] = { 1, ETH_ZLEN, 1000 };
	struct cxen_stride_layout l;
	struct cxen_stride_param p;
	unsigned int mtu, i;

	for (mtu = CXEN_HW_MIN_MTU; mtu <= CXEN_HW_MAX_MTU; mtu++) {
		p = st_param(mtu, t->page_size, t->pads, 0);
		KUNIT_ASSERT_EQ_MSG(test, cxen_stride_layout(&p, &l), 0,
				    "mtu %u", mtu);
		need = DIV_ROUND_UP(p.headroom + CXEN_FRAME_MAX(mtu) +
				    p.tailroom, S);
		pages = 1u << l.log_wqe_pages;
		if (l.frame_max != CXEN_FRAME_MAX(mtu) ||
		    (1u << l.log_stride) != S || l.frame_strides != need ||
		    (1u << l.log_page) != t->page_size ||
		    l.strides != pages * (t->page_size / S) ||
		    l.headroom != p.headroom || l.tailroom != p.tailroom) {
			KUNIT_FAIL(test, "mtu %u: %u %u %u (%u) %u pages %u",
				   mtu, l.frame_max, 1u << l.log_stride,
				   l.frame_strides, need, pages, l.strides);
			return;
		}
		/* What CREATE_RQ takes (hw-interface.rst). */
		if (l.log_stride < CXEN_HW_MIN_LOG_STRIDE_BYTES ||
		    l.log_stride > CXEN_HW_MAX_LOG_STRIDE_BYTES ||
		    l.log_stride > l.log_page ||
		    l.log_wqe_pages + 4 > CXEN_HW_RQ_MAX_LOG_STRIDE_STRIDING ||
		    l.log_wqe_pages + l.log_page > CXEN_HW_MAX_LOG_WQE_BYTES ||
		    l.strides > CXEN_HW_MAX_WQE_STRIDES) {
			KUNIT_FAIL(test, "mtu %u: CREATE_RQ refuses %u/%u/%u",
				   mtu, l.log_stride, l.log_page, pages);
			return;
		}
		/* Enough frames a WQE, or the device's largest WQE; no more. */
		if (l.strides < need ||
		    (l.strides < CXEN_STRIDE_WQE_FRAMES * need &&
		     pages != max_pages) ||
		    (pages > 1 && (pages / 2) * (t->page_size / S) >=
		     CXEN_STRIDE_WQE_FRAMES * need)) {
			KUNIT_FAIL(test, "mtu %u: %u pages (%u strides) for frames of %u strides",
				   mtu, pages, l.strides, need);
			return;
		}
		KUNIT_ASSERT_GE(test, st_wqe_bytes(&l), last_wqe);
		last_wqe = st_wqe_bytes(&l);

		/* Whole frames: their pads and bytes, rounded up to strides. */
		for (i = 0; i <= ARRAY_SIZE(lens); i++) {
			len = i < ARRAY_SIZE(lens) ? min(lens[i], l.frame_max) :
			      l.frame_max;
			n = cxen_stride_frame_strides(&l, len, 0);
			if (n != DIV_ROUND_UP(p.headroom + len + p.tailroom, S) ||
			    n > need ||
			    cxen_stride_truesize(&l, n, false) !=
			    n * S) {
				KUNIT_FAIL(test, "mtu %u len %u: %u strides", mtu,
					   len, n);
				return;
			}
		}
	}
	kunit_info(test, "WQE of %u bytes at MTU %u\n", last_wqe,
		   CXEN_HW_MAX_MTU);
}

/* Worked examples on 4 KiB pages (the x86-64 cache line, 64 bytes). */
static void stride_layout_examples_test(struct kunit *test)
{
	struct cxen_stride_param p = st_param(1500, SZ_4K, ST_PACKED, 0);
	struct cxen_stride_layout l;

	if (SMP_CACHE_BYTES != 64)
		kunit_skip(test, "examples for 64-byte cache lines");

	/* MTU 1500, packed: 1522 bytes in 24 strides; 2 pages, 5 frames. */
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.log_stride, 6);
	KUNIT_EXPECT_EQ(test, l.frame_strides, 24);
	KUNIT_EXPECT_EQ(test, l.log_wqe_pages, 1);
	KUNIT_EXPECT_EQ(test, l.strides, 128);
	/* A 1514-byte TCP segment pins 1536 bytes: bytes / truesize 0.986. */
	KUNIT_EXPECT_EQ(test, cxen_stride_frame_strides(&l, 1514, 0), 24);
	KUNIT_EXPECT_EQ(test, cxen_stride_truesize(&l, 24, false), 1536);
	/* A 64-byte frame (60 without FCS) one stride: 0.94. */
	KUNIT_EXPECT_EQ(test, cxen_stride_frame_strides(&l, ETH_ZLEN, 0), 1);
	KUNIT_EXPECT_EQ(test, cxen_stride_truesize(&l, 1, false), 64);

	/* Split, 256-byte header buffers: a 1448-byte payload, 23 strides. */
	p.hdr_buf = 256;
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_frame_strides(&l, 1514, 66), 23);
	KUNIT_EXPECT_EQ(test, cxen_stride_truesize(&l, 23, true), 1472 + 256);

	/* With the skb pads: 64 + 1522 + 320 = 1906, 30 strides. */
	p = st_param(1500, SZ_4K, ST_SKB, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.frame_strides,
			DIV_ROUND_UP(NET_SKB_PAD + NET_IP_ALIGN + 1522 +
				     ST_TAILROOM, 64));
	KUNIT_EXPECT_EQ(test, l.strides, 128);

	/*
	 * MTU 9000: 9022 bytes, 141 strides; 16 pages (7 frames). The
	 * smallest ring, 64 WQEs, is 4 MiB: under half the scatter-list
	 * layout's 1024 frames of 9216 bytes (9 MiB).
	 */
	p = st_param(9000, SZ_4K, ST_PACKED, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.frame_strides, 141);
	KUNIT_EXPECT_EQ(test, l.log_wqe_pages, 4);
	KUNIT_EXPECT_EQ(test, l.strides, 1024);
	KUNIT_EXPECT_EQ(test, cxen_stride_ring_wqes(&l, 1), 64);
	KUNIT_EXPECT_LE(test, 64ULL * st_wqe_bytes(&l), 1024ULL * 9216 / 2);
	KUNIT_EXPECT_EQ(test, cxen_stride_ring_wqes(&l, 64ULL * SZ_64K), 64);
	KUNIT_EXPECT_EQ(test, cxen_stride_ring_wqes(&l, 64ULL * SZ_64K + 1),
			128);
	KUNIT_EXPECT_EQ(test, cxen_stride_ring_wqes(&l, U64_MAX / 2), 8192);

	/* MTU 68: 90 bytes, 2 strides; one page. */
	p = st_param(68, SZ_4K, ST_PACKED, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.frame_strides, 2);
	KUNIT_EXPECT_EQ(test, l.log_wqe_pages, 0);
	KUNIT_EXPECT_EQ(test, l.strides, 64);

	/* XDP pads at MTU 9600: 256 + 9622 + 320 -> 160 strides, 16 pages. */
	p = st_param(9600, SZ_4K, ST_XDP, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.frame_strides,
			DIV_ROUND_UP(XDP_PACKET_HEADROOM + 9622 + ST_TAILROOM,
				     64));
	KUNIT_EXPECT_EQ(test, l.log_wqe_pages, 4);

	/* 64 KiB pages: one page a WQE up to the largest MTU. */
	p = st_param(9000, SZ_64K, ST_PACKED, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.log_wqe_pages, 0);
	KUNIT_EXPECT_EQ(test, l.strides, 1024);

	/*
	 * LRO: a WQE of 64 KiB at least, whatever the MTU (16 pages of 4
	 * KiB, one of 64 KiB); MTU 9000's 16 pages already are. A merged
	 * frame of the whole WQE is 16 pieces, at most one frag each.
	 */
	p = st_param(1500, SZ_4K, ST_PACKED, 0);
	p.lro = true;
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.log_wqe_pages, 4);
	KUNIT_EXPECT_EQ(test, l.strides, 1024);
	KUNIT_EXPECT_EQ(test, cxen_stride_frame_strides(&l, SZ_64K, 0), 1024);
	KUNIT_EXPECT_EQ(test, cxen_stride_frame_strides(&l, SZ_64K + 1, 0), 0);
	KUNIT_EXPECT_LE(test, CXEN_STRIDE_MAX_PIECES, MAX_SKB_FRAGS);
	p.mtu = 9000;
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.log_wqe_pages, 4);
	p.page_size = SZ_64K;
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, l.log_wqe_pages, 0);
}

static void stride_layout_einval_test(struct kunit *test)
{
	struct cxen_stride_param ok = st_param(1500, SZ_4K, ST_SKB, 256), p;
	struct cxen_stride_layout l;

	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&ok, &l), 0);
	p = ok;
	p.mtu = CXEN_HW_MIN_MTU - 1;
	KUNIT_EXPECT_EQ(test, cxen_stride_layout(&p, &l), -EINVAL);
	p.mtu = CXEN_HW_MAX_MTU + 1;
	KUNIT_EXPECT_EQ(test, cxen_stride_layout(&p, &l), -EINVAL);
	p = ok;
	p.page_size = SZ_2K;
	KUNIT_EXPECT_EQ(test, cxen_stride_layout(&p, &l), -EINVAL);
	p.page_size = SZ_128K;
	KUNIT_EXPECT_EQ(test, cxen_stride_layout(&p, &l), -EINVAL);
	p.page_size = 3 * SZ_4K;
	KUNIT_EXPECT_EQ(test, cxen_stride_layout(&p, &l), -EINVAL);
	p = ok;
	p.headroom = CXEN_HW_MAX_RX_PAD + 1;
	KUNIT_EXPECT_EQ(test, cxen_stride_layout(&p, &l), -EINVAL);
	p = ok;
	p.tailroom = CXEN_HW_MAX_RX_PAD + 1;
	KUNIT_EXPECT_EQ(test, cxen_stride_layout(&p, &l), -EINVAL);
	p = ok;
	p.hdr_buf = CXEN_HW_MAX_HDR_BUF + 1;
	KUNIT_EXPECT_EQ(test, cxen_stride_layout(&p, &l), -EINVAL);
	/* The largest pads and MTU still fit the device's WQE. */
	p = ok;
	p.mtu = CXEN_HW_MAX_MTU;
	p.headroom = CXEN_HW_MAX_RX_PAD;
	p.tailroom = CXEN_HW_MAX_RX_PAD;
	KUNIT_EXPECT_EQ(test, cxen_stride_layout(&p, &l), 0);

	/* Implausible frames take no stride. */
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&ok, &l), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_frame_strides(&l, 0, 0), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_frame_strides(&l, 100, 100), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_frame_strides(&l, 100, 200), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_frame_strides(&l, U32_MAX, 0), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_frame_strides(&l, st_wqe_bytes(&l) -
				l.headroom - l.tailroom + 1, 0), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_frame_strides(&l, st_wqe_bytes(&l) -
				l.headroom - l.tailroom, 0), l.strides);
}

/* ------------------------------------------------------------------ */
/* Where a frame's bytes are                                           */
/* ------------------------------------------------------------------ */

static void stride_pieces_test(struct kunit *test)
{
	struct cxen_stride_param p = st_param(1500, SZ_4K, ST_PACKED, 256);
	struct cxen_stride_piece pc[8];
	struct cxen_stride_layout l;
	u32 S = ST_STRIDE, per_page, first, len, hlen, start, bytes, off;
	unsigned int n, i, bad = 0;

	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	per_page = SZ_4K / S;

	/* A frame that starts 4 strides before a page's end spans two. */
	n = cxen_stride_pieces(&l, per_page - 4, 1514, 0, pc, ARRAY_SIZE(pc));
	KUNIT_ASSERT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, pc[0].page, 0);
	KUNIT_EXPECT_EQ(test, pc[0].offset, SZ_4K - 4 * S);
	KUNIT_EXPECT_EQ(test, pc[0].len, 4 * S);
	KUNIT_EXPECT_EQ(test, pc[1].page, 1);
	KUNIT_EXPECT_EQ(test, pc[1].offset, 0);
	KUNIT_EXPECT_EQ(test, pc[1].len, 1514 - 4 * S);
	/* One that starts at a page: one piece, the build-in-place case. */
	n = cxen_stride_pieces(&l, per_page, 1514, 0, pc, ARRAY_SIZE(pc));
	KUNIT_ASSERT_EQ(test, n, 1);
	KUNIT_EXPECT_EQ(test, pc[0].page, 1);
	KUNIT_EXPECT_EQ(test, pc[0].len, 1514);
	/* Leaving the WQE, no bytes, too few pieces: none. */
	KUNIT_EXPECT_EQ(test, cxen_stride_pieces(&l, l.strides - 1, 1514, 0,
						 pc, ARRAY_SIZE(pc)), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_pieces(&l, l.strides, 1, 0, pc,
						 ARRAY_SIZE(pc)), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_pieces(&l, 0, 0, 0, pc,
						 ARRAY_SIZE(pc)), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_pieces(&l, 0, 100, 100, pc,
						 ARRAY_SIZE(pc)), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_pieces(&l, per_page - 4, 1514, 0,
						 pc, 1), 0);

	/*
	 * Every first stride and length, whole (skb pads) and split: the
	 * pieces tile the frame's bytes in order, from the headroom (whole)
	 * or the stride (split), one per page touched.
	 */
	p = st_param(1500, SZ_4K, ST_SKB, 256);
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	for (first = 0; first < l.strides; first++) {
		for (len = 60; len <= l.frame_max; len += 7) {
			hlen = (len & 1) && len > 120 ? 54 + (len % 64) : 0;
			start = first * S + (hlen ? 0 : l.headroom);
			bytes = len - hlen;
			n = cxen_stride_pieces(&l, first, len, hlen, pc,
					       ARRAY_SIZE(pc));
			if (start + bytes > st_wqe_bytes(&l)) {
				bad += n != 0;
				continue;
			}
			bad += n != (start + bytes - 1) / SZ_4K -
			       start / SZ_4K + 1;
			for (i = 0, off = start; i < n; i++) {
				bad += pc[i].page * SZ_4K + pc[i].offset != off ||
				       !pc[i].len ||
				       pc[i].offset + pc[i].len > SZ_4K;
				off += pc[i].len;
			}
			bad += n && off != start + bytes;
		}
	}
	KUNIT_EXPECT_EQ(test, bad, 0);
}

static void stride_hdr_split_ok_test(struct kunit *test)
{
	KUNIT_EXPECT_TRUE(test, cxen_hdr_split_ok(256, 1514, 66));
	KUNIT_EXPECT_TRUE(test, cxen_hdr_split_ok(256, 1514, 54));
	KUNIT_EXPECT_TRUE(test, cxen_hdr_split_ok(256, 1514, 256));
	KUNIT_EXPECT_FALSE(test, cxen_hdr_split_ok(256, 1514, 53));
	/* The cqe_hdr_len_every fault: one byte past the header buffer. */
	KUNIT_EXPECT_FALSE(test, cxen_hdr_split_ok(256, 1514, 257));
	KUNIT_EXPECT_FALSE(test, cxen_hdr_split_ok(256, 66, 66));
	KUNIT_EXPECT_FALSE(test, cxen_hdr_split_ok(256, 60, 66));
	KUNIT_EXPECT_FALSE(test, cxen_hdr_split_ok(0, 1514, 66));
}

/* ------------------------------------------------------------------ */
/* Accounting: worked cases                                            */
/* ------------------------------------------------------------------ */

/* A striding RQ's CQE as hw-interface.rst describes it. */
static struct cxen_cqe st_cqe(u8 op, u32 wqe, u32 first, u32 num, u32 flags,
			      u32 len, u32 hlen)
{
	struct cxen_cqe c = {
		.flags = cpu_to_be32(flags | (hlen ? CXEN_CQE_HDR_SPLIT : 0)),
		.byte_cnt = cpu_to_be32(len),
		.wqe_index = cpu_to_be16(wqe),
		.strides = cxen_cqe_strides(first, num),
		.hdr_len = cpu_to_be16(hlen),
		.owner_sr_opcode = FIELD_PREP(CXEN_CQE_OPCODE, op),
	};
	return c;
}

static struct cxen_cqe st_frame(const struct cxen_stride_layout *l, u32 wqe,
				u32 first, u32 len, u32 hlen)
{
	u32 n = cxen_stride_frame_strides(l, len, hlen);

	return st_cqe(CXEN_CQE_OP_RECV, wqe, first, n,
		      first + n == l->strides ? CXEN_CQE_WQE_LAST : 0, len, hlen);
}

static struct cxen_cqe st_filler(const struct cxen_stride_layout *l, u32 wqe,
				 u32 first)
{
	return st_cqe(CXEN_CQE_OP_RECV, wqe, first, l->strides - first,
		      CXEN_CQE_FILLER | CXEN_CQE_WQE_LAST, 0, 0);
}

/* 4 KiB pages, MTU 1500, packed: 128 strides, frames of 1522 take 24. */
static void st_layout_1500(struct kunit *test, struct cxen_stride_layout *l)
{
	struct cxen_stride_param p = st_param(1500, SZ_4K, ST_PACKED, 256);

	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, l), 0);
	KUNIT_ASSERT_GE(test, l->strides, 4 * l->frame_strides);
}

static void st_expect_take(struct kunit *test, const struct cxen_stride_take *t,
			   bool skip, u32 gap, u32 first, u32 num, bool frame,
			   bool release)
{
	KUNIT_EXPECT_EQ(test, t->skip_wqe, skip);
	KUNIT_EXPECT_EQ(test, t->gap_from, gap);
	KUNIT_EXPECT_EQ(test, t->first, first);
	KUNIT_EXPECT_EQ(test, t->num, num);
	KUNIT_EXPECT_EQ(test, t->frame, frame);
	KUNIT_EXPECT_EQ(test, t->release, release);
}

/* Frames fill a WQE; the one that does not fit comes after a filler. */
static void stride_account_filler_test(struct kunit *test)
{
	struct cxen_stride_pos pos = { .wqe = 7 };
	struct cxen_stride_layout l;
	struct cxen_stride_take t;
	struct cxen_cqe c;
	u32 fs, k, used;

	st_layout_1500(test, &l);
	fs = l.frame_strides;
	for (k = 0, used = 0; used + fs <= l.strides; k++, used += fs) {
		c = st_frame(&l, 7, used, l.frame_max, 0);
		KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
				CXEN_STRIDE_OK);
		st_expect_take(test, &t, false, used, used, fs, true,
			       used + fs == l.strides);
	}
	KUNIT_ASSERT_LT(test, used, l.strides);
	KUNIT_EXPECT_EQ(test, pos.wqe, 7);
	KUNIT_EXPECT_EQ(test, pos.next, used);

	/* The next frame does not fit: a filler releases the tail. */
	c = st_filler(&l, 7, used);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	st_expect_take(test, &t, false, used, used, l.strides - used, false,
		       true);
	KUNIT_EXPECT_EQ(test, pos.wqe, 8);
	KUNIT_EXPECT_EQ(test, pos.next, 0);

	/* And lands at stride 0 of the next WQE. */
	c = st_frame(&l, 8, 0, l.frame_max, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	st_expect_take(test, &t, false, 0, 0, fs, true, false);

	/* A frame ending the WQE exactly releases it: no filler. */
	c = st_frame(&l, 8, l.strides - fs, l.frame_max, 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_BAD_FIRST);
	pos = (struct cxen_stride_pos){ .wqe = 8, .next = l.strides - fs };
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	st_expect_take(test, &t, false, l.strides - fs, l.strides - fs, fs,
		       true, true);
	KUNIT_EXPECT_EQ(test, pos.wqe, 9);
	KUNIT_EXPECT_EQ(test, pos.next, 0);
}

/* The WQE counter wraps: u16 in the CQE, u32 in the driver. */
static void stride_account_wrap_test(struct kunit *test)
{
	static const u32 starts[] = { 0xfffe, 0xfffffffe };
	struct cxen_stride_layout l;
	struct cxen_stride_take t;
	struct cxen_stride_pos pos;
	struct cxen_cqe c;
	unsigned int s, w;

	st_layout_1500(test, &l);
	for (s = 0; s < ARRAY_SIZE(starts); s++) {
		pos = (struct cxen_stride_pos){ .wqe = starts[s] };
		for (w = 0; w < 4; w++) {
			c = st_frame(&l, starts[s] + w, 0, l.frame_max, 0);
			KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
					CXEN_STRIDE_OK);
			c = st_filler(&l, starts[s] + w, l.frame_strides);
			KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
					CXEN_STRIDE_OK);
			KUNIT_EXPECT_TRUE(test, t.release);
			KUNIT_EXPECT_EQ(test, pos.wqe, starts[s] + w + 1);
		}
		/* The WQE before, retired, is refused. */
		c = st_frame(&l, starts[s] + 3, 0, 60, 0);
		KUNIT_EXPECT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
				CXEN_STRIDE_BAD_WQE);
	}
}

/* Each kind of bad CQE is refused and takes nothing. */
static void stride_account_bad_test(struct kunit *test)
{
	struct cxen_stride_pos pos0 = { .wqe = 3, .next = 24 }, pos;
	struct cxen_stride_layout l;
	struct cxen_stride_take t;
	struct cxen_cqe c;
	u32 fs, N;

	st_layout_1500(test, &l);
	fs = l.frame_strides;
	N = l.strides;

#define ST_REFUSE(cqe, verdict) do {					\
	pos = pos0;							\
	c = (cqe);							\
	KUNIT_EXPECT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),	\
			verdict);					\
	KUNIT_EXPECT_EQ(test, pos.wqe, pos0.wqe);			\
	KUNIT_EXPECT_EQ(test, pos.next, pos0.next);			\
	KUNIT_EXPECT_TRUE(test, pos.refused);				\
} while (0)

	/* The WQE in use, the one before, two ahead, another lap. */
	ST_REFUSE(st_frame(&l, 2, 24, 1000, 0), CXEN_STRIDE_BAD_WQE);
	ST_REFUSE(st_frame(&l, 4, 0, 1000, 0), CXEN_STRIDE_BAD_WQE);
	ST_REFUSE(st_frame(&l, 5, 0, 1000, 0), CXEN_STRIDE_BAD_WQE);
	ST_REFUSE(st_frame(&l, 3 ^ 0x8000, 24, 1000, 0), CXEN_STRIDE_BAD_WQE);
	/* cqe_stride_overrun_every: one stride past the WQE. */
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, 24, N - 24 + 1, 0, 1000, 0),
		  CXEN_STRIDE_BAD_RANGE);
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, N, 1, 0, 60, 0),
		  CXEN_STRIDE_BAD_RANGE);
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, 0xffff, 0xffff, 0, 60, 0),
		  CXEN_STRIDE_BAD_RANGE);
	/* Strides handed out already; strides skipped with nothing refused. */
	ST_REFUSE(st_frame(&l, 3, 23, 60, 0), CXEN_STRIDE_REUSED);
	ST_REFUSE(st_frame(&l, 3, 0, 60, 0), CXEN_STRIDE_REUSED);
	ST_REFUSE(st_frame(&l, 3, 25, 60, 0), CXEN_STRIDE_BAD_FIRST);
	/* Counts that do not match the bytes (cqe_bad_len_every: +64 KiB). */
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, 24, fs - 1, 0, l.frame_max, 0),
		  CXEN_STRIDE_BAD_COUNT);
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, 24, 2, 0, 64 + SZ_64K, 0),
		  CXEN_STRIDE_BAD_COUNT);
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, 24, 0, 0, 60, 0),
		  CXEN_STRIDE_BAD_COUNT);
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, 24, 1, 0, 0, 0),
		  CXEN_STRIDE_BAD_COUNT);
	/* A split frame: the payload's strides, not the frame's. */
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, 24, fs, 0, 1514, 66),
		  CXEN_STRIDE_BAD_COUNT);
	/* WQE_LAST without the end, the end without WQE_LAST. */
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, 24, 1, CXEN_CQE_WQE_LAST, 60, 0),
		  CXEN_STRIDE_BAD_LAST);
	KUNIT_EXPECT_TRUE(test, pos.claimed);
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, N - 1, 1, 0, 60, 0),
		  CXEN_STRIDE_BAD_FIRST);
	pos0.next = N - 1;
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, N - 1, 1, 0, 60, 0),
		  CXEN_STRIDE_BAD_LAST);
	KUNIT_EXPECT_TRUE(test, pos.claimed);
	pos0.next = 24;
	/* Fillers: in the middle (filler_mid_every), without LAST, bytes. */
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, 24, 1,
			 CXEN_CQE_FILLER | CXEN_CQE_WQE_LAST, 0, 0),
		  CXEN_STRIDE_BAD_FILLER);
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, 24, N - 24, CXEN_CQE_FILLER, 0, 0),
		  CXEN_STRIDE_BAD_FILLER);
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, 24, N - 24,
			 CXEN_CQE_FILLER | CXEN_CQE_WQE_LAST, SZ_64K, 0),
		  CXEN_STRIDE_BAD_FILLER);
	ST_REFUSE(st_cqe(CXEN_CQE_OP_RECV, 3, 24, 0,
			 CXEN_CQE_FILLER | CXEN_CQE_WQE_LAST, 0, 0),
		  CXEN_STRIDE_BAD_FILLER);
#undef ST_REFUSE

	/* Error CQEs: LOCAL_LENGTH takes nothing, a flush the WQE's rest. */
	pos = pos0;
	c = st_cqe(CXEN_CQE_OP_ERROR, 3, 24, 0, 0, 0, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	st_expect_take(test, &t, false, 24, 24, 0, false, false);
	KUNIT_EXPECT_EQ(test, pos.next, 24);
	c = st_cqe(CXEN_CQE_OP_ERROR, 3, 24, N - 24, CXEN_CQE_WQE_LAST, 0, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	st_expect_take(test, &t, false, 24, 24, N - 24, false, true);
	c = st_cqe(CXEN_CQE_OP_ERROR, 4, 0, N, CXEN_CQE_WQE_LAST, 0, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	KUNIT_EXPECT_EQ(test, pos.wqe, 5);
	/* cqe_error_every: a frame's CQE turned error keeps its strides. */
	c = st_frame(&l, 5, 0, 1000, 0);
	c.owner_sr_opcode = FIELD_PREP(CXEN_CQE_OPCODE, CXEN_CQE_OP_ERROR);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	st_expect_take(test, &t, false, 0, 0,
		       cxen_stride_frame_strides(&l, 1000, 0), false, false);
}

/*
 * After a refused CQE: the strides it hid come back as a gap, or, when
 * it claimed the WQE's end, as the rest of a skipped WQE.
 */
static void stride_account_resync_test(struct kunit *test)
{
	struct cxen_stride_pos pos = { .wqe = 10 };
	struct cxen_stride_layout l;
	struct cxen_stride_take t;
	struct cxen_cqe c;
	u32 fs, N;

	st_layout_1500(test, &l);
	fs = l.frame_strides;
	N = l.strides;

	/* A frame at 0; the next one's CQE overruns the WQE: refused. */
	c = st_frame(&l, 10, 0, l.frame_max, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	c = st_cqe(CXEN_CQE_OP_RECV, 10, fs, N - fs + 1, 0, l.frame_max, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_BAD_RANGE);
	KUNIT_EXPECT_FALSE(test, pos.claimed);
	/* The third lands after the second's true strides: a gap. */
	c = st_frame(&l, 10, 2 * fs, 100, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	st_expect_take(test, &t, false, fs, 2 * fs,
		       cxen_stride_frame_strides(&l, 100, 0), true, false);
	KUNIT_EXPECT_FALSE(test, pos.refused);
	/* The gap is allowed once only. */
	c = st_frame(&l, 10, pos.next + 1, 100, 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_BAD_FIRST);

	/* A filler in the middle is refused and releases nothing. */
	pos = (struct cxen_stride_pos){ .wqe = 10, .next = 30 };
	c = st_cqe(CXEN_CQE_OP_RECV, 10, 30, 1,
		   CXEN_CQE_FILLER | CXEN_CQE_WQE_LAST, 0, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_BAD_FILLER);
	c = st_frame(&l, 10, 30, 200, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	st_expect_take(test, &t, false, 30, 30,
		       cxen_stride_frame_strides(&l, 200, 0), true, false);
	KUNIT_EXPECT_EQ(test, pos.wqe, 10);

	/*
	 * The frame that ends the WQE overruns it: refused, but it claimed
	 * the end. The next CQE names WQE 11: WQE 10 is skipped from the
	 * refused frame's first stride on.
	 */
	pos = (struct cxen_stride_pos){ .wqe = 10, .next = N - fs };
	c = st_cqe(CXEN_CQE_OP_RECV, 10, N - fs, fs + 1, CXEN_CQE_WQE_LAST,
		   l.frame_max, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_BAD_RANGE);
	KUNIT_EXPECT_TRUE(test, pos.claimed);
	c = st_frame(&l, 11, 0, 500, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	KUNIT_EXPECT_TRUE(test, t.skip_wqe);
	KUNIT_EXPECT_EQ(test, t.skip_from, N - fs);
	st_expect_take(test, &t, true, 0, 0,
		       cxen_stride_frame_strides(&l, 500, 0), true, false);
	KUNIT_EXPECT_EQ(test, pos.wqe, 11);

	/* Without a claim, the next WQE is refused (the device lies). */
	pos = (struct cxen_stride_pos){ .wqe = 10, .next = 5 };
	c = st_frame(&l, 11, 0, 500, 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_BAD_WQE);
	/* A refused CQE with a bad index and WQE_LAST claims the end too. */
	pos = (struct cxen_stride_pos){ .wqe = 10, .next = N - fs };
	c = st_frame(&l, 10 ^ 0x8000, N - fs, l.frame_max, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_BAD_WQE);
	c = st_filler(&l, 11, 0);
	c.strides = cxen_cqe_strides(0, N);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	KUNIT_EXPECT_TRUE(test, t.skip_wqe);
	KUNIT_EXPECT_EQ(test, pos.wqe, 12);
}

/* ------------------------------------------------------------------ */
/* Accounting: a reference device, random frames and lies              */
/* ------------------------------------------------------------------ */

#define ST_WQES		8	/* WQEs the driver tracks at once (ring) */
#define ST_MAX_STRIDES	CXEN_HW_MAX_WQE_STRIDES

/*
 * The reference device: places frames as hw-interface.rst says, writes
 * their CQEs, and lies in one of them now and then the way the model's
 * fault knobs do (the CQE only; its own state stays true).
 */
struct st_dev {
	const struct cxen_stride_layout *l;
	u32 wqe;
	u32 pos;
};

enum st_lie {
	ST_TRUE,
	ST_OVERRUN,	/* cqe_stride_overrun_every */
	ST_MID_FILLER,	/* filler_mid_every: an extra CQE first */
	ST_BAD_LEN,	/* cqe_bad_len_every */
	ST_BAD_INDEX,	/* cqe_bad_index_every */
	ST_TO_ERROR,	/* cqe_error_every: the frame's CQE turned error */
	ST_NO_LAST,	/* WQE_LAST flipped */
	ST_FIRST_UP,	/* the first stride moved on by one */
	ST_HDR_LEN,	/* cqe_hdr_len_every (split frames) */
	ST_NR_LIES
};

/*
 * The CQEs for one frame: a filler first when it does not fit, a lying
 * filler first when asked; at most 3. @truth: the frame's true CQE.
 */
static int st_dev_frame(struct st_dev *d, u32 len, u32 hlen, enum st_lie lie,
			struct cxen_cqe *cqe, struct cxen_cqe *truth)
{
	const struct cxen_stride_layout *l = d->l;
	u32 n = cxen_stride_frame_strides(l, len, hlen), k = 0;
	struct cxen_cqe *c;

	if (d->pos + n > l->strides) {
		cqe[k++] = st_filler(l, d->wqe, d->pos);
		d->wqe++;
		d->pos = 0;
	}
	if (lie == ST_MID_FILLER && d->pos)
		cqe[k++] = st_cqe(CXEN_CQE_OP_RECV, d->wqe, d->pos, 1,
				  CXEN_CQE_FILLER | CXEN_CQE_WQE_LAST, 0, 0);
	*truth = st_frame(l, d->wqe, d->pos, len, hlen);
	c = &cqe[k++];
	*c = *truth;
	switch (lie) {
	case ST_OVERRUN:
		c->strides = cxen_cqe_strides(d->pos, l->strides - d->pos + 1);
		break;
	case ST_BAD_LEN:
		c->byte_cnt = cpu_to_be32(len + SZ_64K);
		break;
	case ST_BAD_INDEX:
		c->wqe_index = cpu_to_be16(d->wqe ^ 0x8000);
		break;
	case ST_TO_ERROR:
		c->owner_sr_opcode = FIELD_PREP(CXEN_CQE_OPCODE,
						CXEN_CQE_OP_ERROR);
		c->syndrome = CXEN_SYND_LOCAL_LENGTH;
		break;
	case ST_NO_LAST:
		c->flags ^= cpu_to_be32(CXEN_CQE_WQE_LAST);
		break;
	case ST_FIRST_UP:
		c->strides = cxen_cqe_strides(d->pos + 1, n);
		break;
	case ST_HDR_LEN:
		if (hlen)
			c->hdr_len = cpu_to_be16(l->hdr_buf + 1);
		break;
	default:
		break;
	}
	d->pos += n;
	if (d->pos == l->strides) {
		d->wqe++;
		d->pos = 0;
	}
	return k;
}

/* The driver: each WQE's strides handed out or dropped, and by whom. */
struct st_drv {
	const struct cxen_stride_layout *l;
	struct cxen_stride_pos pos;
	DECLARE_BITMAP(used[ST_WQES], ST_MAX_STRIDES);
	u32 retired;
	u32 frames;		/* accepted frame CQEs */
	u32 bad;		/* failed checks */
};

static void st_drv_mark(struct st_drv *v, u32 wqe, u32 from, u32 to)
{
	unsigned long *map = v->used[wqe % ST_WQES];
	u32 s;

	for (s = from; s < to; s++)
		v->bad += __test_and_set_bit(s, map);	/* handed out twice */
}

/* Retire a WQE: every stride handed out or dropped, each once. */
static void st_drv_retire(struct st_drv *v, u32 wqe)
{
	unsigned long *map = v->used[wqe % ST_WQES];

	v->bad += bitmap_weight(map, v->l->strides) != v->l->strides;
	bitmap_zero(map, ST_MAX_STRIDES);
	v->retired++;
}

/*
 * Apply one CQE the way the driver will. An accepted frame must be the
 * device's truth: same WQE, strides and length.
 */
static void st_drv_cqe(struct st_drv *v, const struct cxen_cqe *c,
		       const struct cxen_cqe *truth)
{
	u32 wqe = v->pos.wqe;
	struct cxen_stride_take t;

	if (cxen_stride_account(v->l, &v->pos, c, &t) != CXEN_STRIDE_OK)
		return;
	if (t.skip_wqe) {
		st_drv_mark(v, wqe, t.skip_from, v->l->strides);
		st_drv_retire(v, wqe);
		wqe++;
	}
	st_drv_mark(v, wqe, t.gap_from, t.first);
	st_drv_mark(v, wqe, t.first, t.first + t.num);
	if (t.frame) {
		v->frames++;
		v->bad += !truth || c->strides != truth->strides ||
			  c->wqe_index != truth->wqe_index ||
			  c->byte_cnt != truth->byte_cnt;
	}
	if (t.release)
		st_drv_retire(v, wqe);
}

/*
 * Whether a lie costs its frame: every one that touches the frame's CQE
 * does (refused, or taken as an error CQE); an extra filler does not,
 * nor a header length on a frame that is not split.
 */
static bool st_lie_loses_frame(enum st_lie lie, u32 hlen)
{
	return lie != ST_TRUE && lie != ST_MID_FILLER &&
	       !(lie == ST_HDR_LEN && !hlen);
}

/*
 * Thousands of frames of random lengths (some split), a lie every so
 * often, one lie among truthful CQEs at a time: the driver never hands
 * a stride out twice, retires every WQE fully accounted, accepts only
 * true frames, and refuses every lie that changes a frame's strides.
 */
static void stride_account_random_test(struct kunit *test)
{
	static const unsigned int mtus[] = { 1500, 9000, 68 };
	struct cxen_cqe cqe[3], truth;
	struct rnd_state rnd;
	unsigned int m, i, k;

	prandom_seed_state(&rnd, 22);
	for (m = 0; m < ARRAY_SIZE(mtus); m++) {
		struct cxen_stride_param p = st_param(mtus[m], SZ_4K, ST_SKB,
						      256);
		u32 lies = 0, lie_frames = 0, frames = 0, quiet = 0;
		struct cxen_stride_layout l;
		struct st_dev d = { .wqe = 0xfff0 };
		struct st_drv *v;

		KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
		v = kunit_kzalloc(test, sizeof(*v), GFP_KERNEL);
		KUNIT_ASSERT_NOT_NULL(test, v);
		v->l = &l;
		v->pos.wqe = d.wqe;
		d.l = &l;

		for (i = 0; i < 20000; i++) {
			u32 len = ETH_ZLEN + prandom_u32_state(&rnd) %
				  (l.frame_max - ETH_ZLEN + 1);
			u32 hlen = 0, r = prandom_u32_state(&rnd);
			enum st_lie lie = ST_TRUE;
			int n;

			if (len > 200 && (r & 1))
				hlen = 54 + (r >> 1) % 40;
			/* A lie, then at least two truthful frames. */
			if (quiet >= 2 && (r >> 8) % 16 == 0) {
				lie = 1 + (r >> 12) % (ST_NR_LIES - 1);
				quiet = 0;
				lies++;
			} else {
				quiet++;
			}
			n = st_dev_frame(&d, len, hlen, lie, cqe, &truth);
			for (k = 0; k < n; k++)
				st_drv_cqe(v, &cqe[k], k == n - 1 ? &truth :
					   NULL);
			frames++;
			lie_frames += st_lie_loses_frame(lie, hlen);
		}
		KUNIT_EXPECT_EQ_MSG(test, v->bad, 0, "mtu %u", mtus[m]);
		/* Every truthful frame accepted, every lying one not. */
		KUNIT_EXPECT_EQ_MSG(test, v->frames, frames - lie_frames,
				    "mtu %u", mtus[m]);
		KUNIT_EXPECT_GT(test, v->retired, 100);
		KUNIT_EXPECT_GT(test, lies, 100);
		kunit_info(test, "mtu %u: %u frames, %u lies, %u WQEs retired\n",
			   mtus[m], frames, lies, v->retired);
	}
}

/*
 * The driver's choices (en_rx_stride.c): packed frames on the kernel's
 * pages; the layout's layout check; ring sizes from the byte budget;
 * every frame of every MTU within CXEN_STRIDE_MAX_PIECES pages from any
 * stride it may start at (which sizes the driver's array of pieces),
 * each piece on the page after the one before: one skb frag, one page
 * reference, per page a frame touches.
 */
static void stride_driver_test(struct kunit *test)
{
	struct cxen_stride_piece pc[CXEN_STRIDE_MAX_PIECES];
	struct cxen_frag_param fp = {
		.page_size = SZ_4K, .max_frags = CXEN_HW_RX_MAX_SEGS,
	};
	struct cxen_stride_param p;
	struct cxen_stride_layout l;
	struct cxen_frag_layout fl;
	u32 mtu, len, first, n;

	cxen_stride_param_init(1500, &p);
	KUNIT_EXPECT_EQ(test, p.mtu, 1500U);
	KUNIT_EXPECT_EQ(test, p.page_size, (unsigned int)PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, p.headroom + p.tailroom + p.hdr_buf, 0U);

	fp.mtu = 1500;
	KUNIT_EXPECT_EQ(test, cxen_stride_frag_check(&fp, &fl), 0);
	KUNIT_EXPECT_EQ(test, fl.frame_max, 1522U);
	KUNIT_EXPECT_EQ(test, fl.nfrags, 0);
	fp.xdp = true;
	KUNIT_EXPECT_EQ(test, cxen_stride_frag_check(&fp, &fl), -EINVAL);
	fp.xdp = false;
	fp.mtu = 0;
	KUNIT_EXPECT_EQ(test, cxen_stride_frag_check(&fp, &fl), -EINVAL);

	/* The default rx ring (1024) on 4 KiB pages: 2 MiB, 4 MiB. */
	p.page_size = SZ_4K;
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_ring_wqes(&l, 1024ULL *
						CXEN_STRIDE_BYTES_PER_ENTRY),
			256U);
	p.mtu = 9000;
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_ring_wqes(&l, 1024ULL *
						CXEN_STRIDE_BYTES_PER_ENTRY),
			64U);
	KUNIT_EXPECT_EQ(test, l.log_wqe_pages, 4);

	for (mtu = CXEN_HW_MIN_MTU; mtu <= CXEN_HW_MAX_MTU; mtu += 97) {
		p.mtu = mtu;
		KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
		for (len = ETH_HLEN; len <= l.frame_max; len += 61) {
			n = cxen_stride_frame_strides(&l, len, 0);
			KUNIT_ASSERT_GT(test, n, 0U);
			for (first = 0; first + n <= l.strides; first += 7) {
				unsigned int np, i;

				np = cxen_stride_pieces(&l, first, len, 0, pc,
							ARRAY_SIZE(pc));
				KUNIT_ASSERT_GT_MSG(test, np, 0U,
						    "mtu %u len %u first %u",
						    mtu, len, first);
				for (i = 1; i < np; i++)
					KUNIT_ASSERT_EQ(test, pc[i].page,
							pc[i - 1].page + 1);
			}
		}
	}
}

/*
 * cxen_stride_refuse(): a split CQE the driver refused for its header
 * (en_rx_stride.c) leaves the position as a refusal by
 * cxen_stride_account() would: the next frame may start after its
 * strides, or in the next WQE when it claimed the end.
 */
static void stride_refuse_test(struct kunit *test)
{
	struct cxen_stride_pos pos = { .wqe = 3 };
	struct cxen_stride_layout l;
	struct cxen_stride_take t;
	struct cxen_cqe c;
	u32 n;

	st_layout_1500(test, &l);
	/* A split frame at 0 with a header past its buffer: refused. */
	c = st_frame(&l, 3, 0, 1400, 257);
	n = cxen_cqe_stride_num(&c);
	cxen_stride_refuse(&l, &pos, &c);
	KUNIT_EXPECT_TRUE(test, pos.refused);
	KUNIT_EXPECT_FALSE(test, pos.claimed);
	KUNIT_EXPECT_EQ(test, pos.next, 0U);
	/* The next frame after its strides: accepted, the gap dropped. */
	c = st_frame(&l, 3, n, 1000, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	st_expect_take(test, &t, false, 0, n,
		       cxen_stride_frame_strides(&l, 1000, 0), true, false);

	/* Refused while it ends the WQE: the next CQE names the next one. */
	pos = (struct cxen_stride_pos){ .wqe = 3, .next = l.strides - 2 };
	c = st_cqe(CXEN_CQE_OP_RECV, 3, l.strides - 2, 2, CXEN_CQE_WQE_LAST,
		   120, 66);
	cxen_stride_refuse(&l, &pos, &c);
	KUNIT_EXPECT_TRUE(test, pos.claimed);
	c = st_frame(&l, 4, 0, 1000, 0);
	KUNIT_ASSERT_EQ(test, cxen_stride_account(&l, &pos, &c, &t),
			CXEN_STRIDE_OK);
	st_expect_take(test, &t, true, 0, 0,
		       cxen_stride_frame_strides(&l, 1000, 0), true, false);
	KUNIT_EXPECT_EQ(test, t.skip_from, l.strides - 2);
	KUNIT_EXPECT_EQ(test, pos.wqe, 4U);
}

/*
 * The CQ holds a completion for every stride posted (a CQE takes one
 * stride at least), else the driver posts fewer WQEs: no frame size can
 * make the device overrun it.
 */
static void stride_cq_plan_test(struct kunit *test)
{
	struct cxen_stride_param p = st_param(1500, SZ_4K, ST_PACKED, 0);
	struct cxen_stride_layout l;
	u32 post = 0, wqes, mtu;
	int log_cq;

	/* MTU 1500, rx 1024: 256 WQEs of 128 strides want 32768 CQEs. */
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_ASSERT_EQ(test, l.strides, 128);
	log_cq = cxen_stride_cq_plan(&l, 256, CXEN_HW_MAX_LOG_RING, &post);
	KUNIT_EXPECT_EQ(test, log_cq, CXEN_HW_MAX_LOG_RING);
	KUNIT_EXPECT_EQ(test, post, 64U);
	/* A small ring fits whole: 64 WQEs, 8192 CQEs. */
	KUNIT_EXPECT_EQ(test, cxen_stride_cq_plan(&l, 64, 13, &post), 13);
	KUNIT_EXPECT_EQ(test, post, 64U);
	/* MTU 9000: 1024 strides a WQE, 8 of the 64 posted at once. */
	p.mtu = 9000;
	KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
	KUNIT_EXPECT_EQ(test, cxen_stride_cq_plan(&l, 64, 13, &post), 13);
	KUNIT_EXPECT_EQ(test, post, 8U);
	/* Refused: no strides, no WQEs, a WQE larger than any CQ. */
	KUNIT_EXPECT_EQ(test, cxen_stride_cq_plan(&l, 0, 13, &post), -EINVAL);
	KUNIT_EXPECT_EQ(test, cxen_stride_cq_plan(&l, 64, 9, &post), -EINVAL);

	/* Every MTU and ring: posted strides never exceed the CQ. */
	for (mtu = CXEN_HW_MIN_MTU; mtu <= CXEN_HW_MAX_MTU; mtu += 331) {
		p.mtu = mtu;
		KUNIT_ASSERT_EQ(test, cxen_stride_layout(&p, &l), 0);
		for (wqes = 1U << CXEN_HW_MIN_LOG_RING;
		     wqes <= 1U << CXEN_HW_MAX_LOG_RING; wqes <<= 1) {
			log_cq = cxen_stride_cq_plan(&l, wqes,
						     CXEN_HW_MAX_LOG_RING,
						     &post);
			KUNIT_ASSERT_GE(test, log_cq, CXEN_HW_MIN_LOG_RING);
			KUNIT_EXPECT_LE(test, log_cq, CXEN_HW_MAX_LOG_RING);
			KUNIT_EXPECT_GE(test, post, 1U);
			KUNIT_EXPECT_LE(test, post, wqes);
			KUNIT_EXPECT_LE(test, (u64)post * l.strides,
					1ULL << log_cq);
			/* As many as fit: one more would not. */
			if (post < wqes)
				KUNIT_EXPECT_GT(test, (u64)(post + 1) * l.strides,
						1ULL << log_cq);
		}
	}
}

static struct kunit_case cxen_stride_cases[] = {
	KUNIT_CASE_PARAM(stride_layout_sweep_test, st_sweep_gen_params),
	KUNIT_CASE(stride_layout_examples_test),
	KUNIT_CASE(stride_layout_einval_test),
	KUNIT_CASE(stride_pieces_test),
	KUNIT_CASE(stride_hdr_split_ok_test),
	KUNIT_CASE(stride_account_filler_test),
	KUNIT_CASE(stride_account_wrap_test),
	KUNIT_CASE(stride_account_bad_test),
	KUNIT_CASE(stride_account_resync_test),
	KUNIT_CASE(stride_account_random_test),
	KUNIT_CASE(stride_driver_test),
	KUNIT_CASE(stride_refuse_test),
	KUNIT_CASE(stride_cq_plan_test),
	{}
};

static struct kunit_suite cxen_stride_suite = {
	.name = "cxen_stride",
	.test_cases = cxen_stride_cases,
};

kunit_test_suite(cxen_stride_suite);

MODULE_DESCRIPTION("KUnit tests for the cxen striding RQ arithmetic");
MODULE_LICENSE("GPL");
