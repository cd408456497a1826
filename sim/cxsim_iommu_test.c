// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of the model's IOMMU (cxsim_iommu.c) and of the device's
 * accesses through it (cxsim_dma.c): a scatterlist of two pages that are
 * not consecutive in memory becomes one DMA segment, and device reads and
 * writes across its page boundary land piecewise in the right pages;
 * an access after the unmap, or without the permission the direction
 * gave, is refused and counted; strict mode invalidates per unmap, lazy
 * mode once per flush.
 *
 * Part of cxsim_kunit.ko (load cxsim.ko first: EXPORT_SYMBOL_IF_KUNIT).
 */
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/string.h>

#include "cxsim.h"
#include "cxsim_iommu.h"

struct iommu_fixture {
	struct cxsim_dev *sd;
	struct cxsim_iommu *im;
	struct page *pages;	/* order 1: two consecutive pages */
	u8 *lo, *hi;		/* their kernel addresses */
};

static void iommu_fixture_init(struct kunit *test, struct iommu_fixture *fx,
			       int mode)
{
	fx->sd = kunit_kzalloc(test, sizeof(*fx->sd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx->sd);
	fx->im = cxsim_iommu_create(mode);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fx->im);
	fx->sd->iommu = fx->im;
	fx->pages = alloc_pages(GFP_KERNEL, 1);
	KUNIT_ASSERT_NOT_NULL(test, fx->pages);
	fx->lo = page_address(fx->pages);
	fx->hi = fx->lo + PAGE_SIZE;
	memset(fx->lo, 0x11, PAGE_SIZE);
	memset(fx->hi, 0x22, PAGE_SIZE);
}

static void iommu_fixture_exit(struct iommu_fixture *fx)
{
	cxsim_iommu_destroy(fx->im);
	__free_pages(fx->pages, 1);
}

/*
 * The high page first, then the low one: one IOVA range whose second
 * page is physically before its first.
 */
static int iommu_map_reversed(struct kunit *test, struct iommu_fixture *fx,
			      struct scatterlist *sg,
			      enum dma_data_direction dir)
{
	sg_init_table(sg, 2);
	sg_set_page(&sg[0], fx->pages + 1, PAGE_SIZE, 0);
	sg_set_page(&sg[1], fx->pages, PAGE_SIZE, 0);
	return cxsim_iommu_map_sgl(fx->im, sg, 2, dir, DMA_BIT_MASK(64),
				   UINT_MAX);
}

static void iommu_noncontiguous(struct kunit *test)
{
	static const u8 msg[12] = "0123456789ab";
	struct iommu_fixture fx;
	struct scatterlist sg[2];
	u8 buf[32], want[32];
	dma_addr_t addr;

	iommu_fixture_init(test, &fx, CXSIM_IOMMU_STRICT);
	KUNIT_ASSERT_EQ(test, iommu_map_reversed(test, &fx, sg,
						 DMA_BIDIRECTIONAL), 1);
	KUNIT_EXPECT_EQ(test, sg_dma_len(&sg[0]), 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, sg_dma_len(&sg[1]), 0);
	addr = sg_dma_address(&sg[0]);
	KUNIT_EXPECT_EQ(test, offset_in_page(addr), 0);

	/* 16 bytes of the high page, then 16 of the low one. */
	KUNIT_ASSERT_TRUE(test, cxsim_dma_read(fx.sd, addr + PAGE_SIZE - 16,
					       buf, sizeof(buf)));
	memset(want, 0x22, 16);
	memset(want + 16, 0x11, 16);
	KUNIT_EXPECT_MEMEQ(test, buf, want, sizeof(buf));

	/* A write across the boundary: 6 bytes each side. */
	KUNIT_ASSERT_TRUE(test, cxsim_dma_write(fx.sd, addr + PAGE_SIZE - 6,
						msg, sizeof(msg)));
	KUNIT_EXPECT_MEMEQ(test, fx.hi + PAGE_SIZE - 6, msg, 6);
	KUNIT_EXPECT_MEMEQ(test, fx.lo, msg + 6, 6);
	KUNIT_EXPECT_EQ(test, fx.lo[6], 0x11);
	KUNIT_EXPECT_EQ(test, fx.hi[PAGE_SIZE - 7], 0x22);

	/* After the unmap the same read faults, and nothing is copied. */
	cxsim_iommu_unmap_sgl(fx.im, sg, 2);
	KUNIT_EXPECT_EQ(test, cxsim_iommu_count(fx.im, "unmaps"), 1);
	KUNIT_EXPECT_EQ(test, cxsim_iommu_count(fx.im, "invalidations"), 1);
	memset(buf, 0x5a, sizeof(buf));
	KUNIT_EXPECT_FALSE(test, cxsim_dma_read(fx.sd, addr + PAGE_SIZE - 16,
						buf, sizeof(buf)));
	KUNIT_EXPECT_EQ(test, buf[0], 0x5a);
	KUNIT_EXPECT_EQ(test, cxsim_iommu_count(fx.im, "faults"), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&fx.sd->cnt[CXSIM_DEV_DMA_ERRORS]), 1);

	/* A second unmap is the driver's bug: counted, nothing freed twice. */
	cxsim_iommu_unmap_sgl(fx.im, sg, 2);
	KUNIT_EXPECT_EQ(test, cxsim_iommu_count(fx.im, "bad_unmaps"), 1);
	KUNIT_EXPECT_EQ(test, cxsim_iommu_count(fx.im, "invalidations"), 1);
	iommu_fixture_exit(&fx);
}

/* TO_DEVICE: the device may read, not write; FROM_DEVICE the reverse. */
static void iommu_permissions(struct kunit *test)
{
	struct iommu_fixture fx;
	struct scatterlist sg[2];
	dma_addr_t addr;
	u8 b = 0x77;

	iommu_fixture_init(test, &fx, CXSIM_IOMMU_STRICT);
	KUNIT_ASSERT_EQ(test, iommu_map_reversed(test, &fx, sg, DMA_TO_DEVICE), 1);
	addr = sg_dma_address(&sg[0]);
	KUNIT_EXPECT_TRUE(test, cxsim_dma_read(fx.sd, addr, &b, 1));
	KUNIT_EXPECT_EQ(test, b, 0x22);
	KUNIT_EXPECT_FALSE(test, cxsim_dma_write(fx.sd, addr, &b, 1));
	KUNIT_EXPECT_EQ(test, cxsim_iommu_count(fx.im, "perm_faults"), 1);
	cxsim_iommu_unmap_sgl(fx.im, sg, 2);

	KUNIT_ASSERT_EQ(test, iommu_map_reversed(test, &fx, sg, DMA_FROM_DEVICE), 1);
	addr = sg_dma_address(&sg[0]);
	KUNIT_EXPECT_FALSE(test, cxsim_dma_read(fx.sd, addr, &b, 1));
	KUNIT_EXPECT_TRUE(test, cxsim_dma_write(fx.sd, addr, &b, 1));
	KUNIT_EXPECT_EQ(test, fx.hi[0], b);
	KUNIT_EXPECT_EQ(test, cxsim_iommu_count(fx.im, "perm_faults"), 2);
	KUNIT_EXPECT_EQ(test, cxsim_iommu_count(fx.im, "faults"), 0);
	cxsim_iommu_unmap_sgl(fx.im, sg, 2);
	iommu_fixture_exit(&fx);
}

/* Lazy: unmaps queue their IOVA; one invalidation when the queue fills. */
static void iommu_lazy(struct kunit *test)
{
	struct iommu_fixture fx;
	struct scatterlist sg[2];
	dma_addr_t addr;
	int i;
	u8 b;

	iommu_fixture_init(test, &fx, CXSIM_IOMMU_LAZY);
	for (i = 0; i < 300; i++) {
		KUNIT_ASSERT_EQ(test, iommu_map_reversed(test, &fx, sg,
							 DMA_BIDIRECTIONAL), 1);
		addr = sg_dma_address(&sg[0]);
		cxsim_iommu_unmap_sgl(fx.im, sg, 2);
		/* No translation survives the unmap, flushed or not. */
		KUNIT_EXPECT_FALSE(test, cxsim_dma_read(fx.sd, addr, &b, 1));
	}
	KUNIT_EXPECT_EQ(test, cxsim_iommu_count(fx.im, "unmaps"), 300);
	/* 256 queued, then a flush; or the 10 ms timer flushed earlier. */
	KUNIT_EXPECT_GE(test, cxsim_iommu_count(fx.im, "invalidations"), 1);
	KUNIT_EXPECT_LT(test, cxsim_iommu_count(fx.im, "invalidations"), 300);
	KUNIT_EXPECT_EQ(test, cxsim_iommu_count(fx.im, "faults"), 300);
	iommu_fixture_exit(&fx);
}

static struct kunit_case cxsim_iommu_cases[] = {
	KUNIT_CASE(iommu_noncontiguous),
	KUNIT_CASE(iommu_permissions),
	KUNIT_CASE(iommu_lazy),
	{}
};

static struct kunit_suite cxsim_iommu_suite = {
	.name = "cxsim_iommu",
	.test_cases = cxsim_iommu_cases,
};

kunit_test_suite(cxsim_iommu_suite);
