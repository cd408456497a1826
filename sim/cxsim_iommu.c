// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim IOMMU: a DMA remapping unit in front of the model's device, so
 * that the driver's map/unmap calls cost what they cost behind an IOMMU
 * and a device access the driver did not map is caught.
 *
 * With cxsim.iommu=strict or cxsim.iommu=lazy the model gives its
 * platform device dma_map_ops of its own (set_dma_ops(), before the driver
 * can probe). Every mapping allocates I/O virtual addresses with the
 * kernel's IOVA allocator (alloc_iova_fast(), per-CPU range caches, as
 * drivers/iommu/dma-iommu.c does) and fills a flat I/O page table, one
 * entry per 4 KiB IOVA page: the physical page and the device's read and
 * write permissions from the DMA direction. The device (cxsim_dma.c)
 * translates every access through that table, page by page, so a range
 * whose IOVA pages are contiguous while their physical pages are not is
 * copied piecewise.
 *
 * An access to an IOVA page that is not mapped, or without the permission
 * it needs, is a fault, as a DMAR fault is: the access is refused (the
 * device sees what it sees for a bad address), counted ("faults" or
 * "perm_faults" in <debugfs>/cxsim/iommu) and logged, ratelimited, with
 * the address. The driver's own misuse is counted too: an unmap of an
 * IOVA that is not mapped ("bad_unmaps") and a CPU sync of one
 * ("bad_syncs").
 *
 * Unmapping clears the entries at once (the model has no IOTLB that
 * could keep a stale translation: it refuses an access after an unmap in
 * both modes, where real hardware in lazy mode may still honour one).
 * Then the IOTLB must be invalidated before the IOVA is used again:
 *
 *   strict  one invalidation per unmap, then the IOVA is freed;
 *   lazy    the IOVA waits in a flush queue; one invalidation frees the
 *           whole queue, when it holds CXSIM_IOMMU_FQ_SIZE entries or
 *           CXSIM_IOMMU_FQ_TIMEOUT_MS after its first (the kernel's flush
 *           queue: 256 entries, 10 ms).
 *
 * An invalidation is a busy wait of cxsim.iommu_inval_ns nanoseconds on
 * the CPU that asked for it, as a VT-d invalidation-queue wait descriptor
 * is (Documentation/hw-interface.rst, "IOMMU", gives the figure and its
 * source).
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/dma-map-ops.h>
#include <linux/fs.h>
#include <linux/gfp.h>
#include <kunit/visibility.h>
#include <linux/iova.h>
#include <linux/kstrtox.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/platform_device.h>
#include <linux/scatterlist.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/timer.h>
#include <linux/vmalloc.h>

#include "cxsim.h"
#include "cxsim_iommu.h"

static char *iommu = "off";
module_param(iommu, charp, 0444);
MODULE_PARM_DESC(iommu,
		 "DMA remapping in front of the device: off (bus address = physical, the default), strict (IOTLB invalidated at every unmap) or lazy (unmapped IOVAs freed in batches by one invalidation, as the kernel's flush queue)");

/*
 * ~2,000 cycles per IOTLB invalidation (VT-d, invalidation queue with a
 * wait descriptor) at 2.5 GHz; see Documentation/hw-interface.rst.
 */
static unsigned int iommu_inval_ns = 800;
module_param(iommu_inval_ns, uint, 0444);
MODULE_PARM_DESC(iommu_inval_ns,
		 "Busy wait per IOTLB invalidation, in ns (default 800: ~2000 cycles at 2.5 GHz)");

static const char * const cxsim_iommu_modes[] = {
	[CXSIM_IOMMU_OFF]	= "off",
	[CXSIM_IOMMU_STRICT]	= "strict",
	[CXSIM_IOMMU_LAZY]	= "lazy",
};

/* IOVAs below 4 GiB, as dma-iommu gives a PCI device first. */
#define CXSIM_IOMMU_IOVA_BITS	32
#define CXSIM_IOMMU_NPTE	(1UL << (CXSIM_IOMMU_IOVA_BITS - PAGE_SHIFT))
#define CXSIM_IOMMU_FQ_SIZE	256
#define CXSIM_IOMMU_FQ_TIMEOUT_MS 10

/* An I/O page table entry: physical page, permissions; 0: not mapped. */
#define CXSIM_PTE_R		BIT_ULL(0)
#define CXSIM_PTE_W		BIT_ULL(1)
#define CXSIM_PTE_PERM		(CXSIM_PTE_R | CXSIM_PTE_W)

enum {
	CXSIM_IOMMU_MAPS,	/* map calls: page, sg list, coherent, resource */
	CXSIM_IOMMU_UNMAPS,
	CXSIM_IOMMU_MAP_FAILED,	/* no IOVA space left */
	CXSIM_IOMMU_INVALIDATIONS,	/* each a busy wait of iommu_inval_ns */
	CXSIM_IOMMU_FAULTS,	/* device access to an IOVA not mapped */
	CXSIM_IOMMU_PERM_FAULTS,	/* mapped, without that permission */
	CXSIM_IOMMU_BAD_UNMAPS,	/* unmap of an IOVA not mapped */
	CXSIM_IOMMU_BAD_SYNCS,	/* CPU sync of an IOVA not mapped */
	CXSIM_IOMMU_NCNT
};

static const char * const cxsim_iommu_cnt_names[CXSIM_IOMMU_NCNT] = {
	[CXSIM_IOMMU_MAPS]		= "maps",
	[CXSIM_IOMMU_UNMAPS]		= "unmaps",
	[CXSIM_IOMMU_MAP_FAILED]	= "map_failed",
	[CXSIM_IOMMU_INVALIDATIONS]	= "invalidations",
	[CXSIM_IOMMU_FAULTS]		= "faults",
	[CXSIM_IOMMU_PERM_FAULTS]	= "perm_faults",
	[CXSIM_IOMMU_BAD_UNMAPS]	= "bad_unmaps",
	[CXSIM_IOMMU_BAD_SYNCS]		= "bad_syncs",
};

struct cxsim_iommu_fq_entry {
	unsigned long pfn;
	unsigned long npages;
};

struct cxsim_iommu {
	int mode;
	struct device *dev;		/* for messages; set at attach */
	u64 *pte;			/* CXSIM_IOMMU_NPTE entries */
	struct iova_domain iovad;
	atomic_long_t mapped;		/* IOVA pages mapped now */

	spinlock_t fq_lock;		/* the flush queue */
	unsigned int fq_len;
	struct timer_list fq_timer;
	struct cxsim_iommu_fq_entry fq[CXSIM_IOMMU_FQ_SIZE];

	atomic64_t cnt[CXSIM_IOMMU_NCNT];
};

static void cxsim_iommu_inc(struct cxsim_iommu *im, int c)
{
	atomic64_inc(&im->cnt[c]);
}

static struct cxsim_iommu *cxsim_iommu_of(struct device *dev)
{
	struct cxen_mmio_bus *bus = dev_get_platdata(dev);
	struct cxsim_dev *sd = bus->ctx;

	return sd->iommu;
}

/* IOVA pages that [@off, @off + @len) spans from its first page on. */
static unsigned long cxsim_iommu_npages(unsigned long off, size_t len)
{
	return max(1UL, PAGE_ALIGN(offset_in_page(off) + len) >> PAGE_SHIFT);
}

static u64 cxsim_iommu_prot(enum dma_data_direction dir)
{
	switch (dir) {
	case DMA_BIDIRECTIONAL:
		return CXSIM_PTE_R | CXSIM_PTE_W;
	case DMA_TO_DEVICE:
		return CXSIM_PTE_R;
	case DMA_FROM_DEVICE:
		return CXSIM_PTE_W;
	default:
		return 0;
	}
}

/* The IOTLB invalidation: a busy wait, as for the hardware's answer. */
static void cxsim_iommu_invalidate(struct cxsim_iommu *im)
{
	cxsim_iommu_inc(im, CXSIM_IOMMU_INVALIDATIONS);
	if (iommu_inval_ns)
		ndelay(iommu_inval_ns);
}

/* Invalidate once and free every queued IOVA. fq_lock held. */
static void cxsim_iommu_fq_flush_locked(struct cxsim_iommu *im)
{
	unsigned int i;

	if (!im->fq_len)
		return;
	cxsim_iommu_invalidate(im);
	for (i = 0; i < im->fq_len; i++)
		free_iova_fast(&im->iovad, im->fq[i].pfn, im->fq[i].npages);
	im->fq_len = 0;
}

static void cxsim_iommu_fq_flush(struct cxsim_iommu *im)
{
	unsigned long flags;

	spin_lock_irqsave(&im->fq_lock, flags);
	cxsim_iommu_fq_flush_locked(im);
	spin_unlock_irqrestore(&im->fq_lock, flags);
}

static void cxsim_iommu_fq_timeout(struct timer_list *t)
{
	struct cxsim_iommu *im = from_timer(im, t, fq_timer);

	cxsim_iommu_fq_flush(im);
}

static void cxsim_iommu_fq_add(struct cxsim_iommu *im, unsigned long pfn,
			       unsigned long npages)
{
	unsigned long flags;

	spin_lock_irqsave(&im->fq_lock, flags);
	if (im->fq_len == CXSIM_IOMMU_FQ_SIZE)
		cxsim_iommu_fq_flush_locked(im);
	im->fq[im->fq_len].pfn = pfn;
	im->fq[im->fq_len].npages = npages;
	if (!im->fq_len++)
		mod_timer(&im->fq_timer,
			  jiffies + msecs_to_jiffies(CXSIM_IOMMU_FQ_TIMEOUT_MS));
	spin_unlock_irqrestore(&im->fq_lock, flags);
}

/* First IOVA page of @npages below @mask, or 0 when there is no room. */
static unsigned long cxsim_iommu_alloc_iova(struct cxsim_iommu *im,
					    unsigned long npages, u64 mask)
{
	unsigned long limit, pfn;

	limit = min_t(u64, mask, DMA_BIT_MASK(CXSIM_IOMMU_IOVA_BITS)) >>
		PAGE_SHIFT;
	pfn = alloc_iova_fast(&im->iovad, npages, limit, true);
	if (!pfn && im->mode == CXSIM_IOMMU_LAZY) {
		/* IOVAs waiting for a flush may be all that is left. */
		cxsim_iommu_fq_flush(im);
		pfn = alloc_iova_fast(&im->iovad, npages, limit, true);
	}
	if (!pfn)
		cxsim_iommu_inc(im, CXSIM_IOMMU_MAP_FAILED);
	return pfn;
}

/* Entries for @npages IOVA pages from @pfn onto physical pages from @phys. */
static void cxsim_iommu_set(struct cxsim_iommu *im, unsigned long pfn,
			    phys_addr_t phys, unsigned long npages, u64 prot)
{
	unsigned long i;

	for (i = 0; i < npages; i++)
		WRITE_ONCE(im->pte[pfn + i],
			   ((phys & PAGE_MASK) + i * PAGE_SIZE) | prot);
	atomic_long_add(npages, &im->mapped);
}

static dma_addr_t cxsim_iommu_map_phys(struct cxsim_iommu *im,
				       phys_addr_t phys, size_t size, u64 prot,
				       u64 mask)
{
	unsigned long npages = cxsim_iommu_npages(phys, size);
	unsigned long pfn;

	pfn = cxsim_iommu_alloc_iova(im, npages, mask);
	if (!pfn)
		return DMA_MAPPING_ERROR;
	cxsim_iommu_set(im, pfn, phys, npages, prot);
	cxsim_iommu_inc(im, CXSIM_IOMMU_MAPS);
	return ((dma_addr_t)pfn << PAGE_SHIFT) + offset_in_page(phys);
}

/* Whether every IOVA page of [@addr, @addr + @size) is mapped. */
static bool cxsim_iommu_mapped(struct cxsim_iommu *im, dma_addr_t addr,
			       size_t size)
{
	unsigned long pfn = addr >> PAGE_SHIFT;
	unsigned long npages = cxsim_iommu_npages(addr, size);
	unsigned long i;

	if (pfn + npages > CXSIM_IOMMU_NPTE || pfn + npages < pfn)
		return false;
	for (i = 0; i < npages; i++)
		if (!(READ_ONCE(im->pte[pfn + i]) & CXSIM_PTE_PERM))
			return false;
	return true;
}

/*
 * Unmap [@addr, @addr + @size): clear the entries, then invalidate now
 * (strict) or queue the IOVA for the next flush (lazy).
 */
static void cxsim_iommu_unmap_range(struct cxsim_iommu *im, dma_addr_t addr,
				    size_t size)
{
	unsigned long npages = cxsim_iommu_npages(addr, size);
	unsigned long pfn = addr >> PAGE_SHIFT;
	unsigned long i;

	if (!cxsim_iommu_mapped(im, addr, size)) {
		cxsim_iommu_inc(im, CXSIM_IOMMU_BAD_UNMAPS);
		dev_err_ratelimited(im->dev,
				    "IOMMU: unmap of IOVA %pad (%zu bytes), not mapped\n",
				    &addr, size);
		return;
	}
	for (i = 0; i < npages; i++)
		WRITE_ONCE(im->pte[pfn + i], 0);
	atomic_long_sub(npages, &im->mapped);
	cxsim_iommu_inc(im, CXSIM_IOMMU_UNMAPS);
	if (im->mode == CXSIM_IOMMU_STRICT) {
		cxsim_iommu_invalidate(im);
		free_iova_fast(&im->iovad, pfn, npages);
	} else {
		cxsim_iommu_fq_add(im, pfn, npages);
	}
}

static dma_addr_t cxsim_iommu_map_page(struct device *dev, struct page *page,
				       unsigned long offset, size_t size,
				       enum dma_data_direction dir,
				       unsigned long attrs)
{
	return cxsim_iommu_map_phys(cxsim_iommu_of(dev),
				    page_to_phys(page) + offset, size,
				    cxsim_iommu_prot(dir), dma_get_mask(dev));
}

static void cxsim_iommu_unmap_page(struct device *dev, dma_addr_t addr,
				   size_t size, enum dma_data_direction dir,
				   unsigned long attrs)
{
	cxsim_iommu_unmap_range(cxsim_iommu_of(dev), addr, size);
}

static dma_addr_t cxsim_iommu_map_resource(struct device *dev,
					   phys_addr_t phys, size_t size,
					   enum dma_data_direction dir,
					   unsigned long attrs)
{
	return cxsim_iommu_map_phys(cxsim_iommu_of(dev), phys, size,
				    cxsim_iommu_prot(dir), dma_get_mask(dev));
}

/*
 * One IOVA range for the whole list, each entry from the IOVA page after
 * the previous one's last: entries that end and start on a page boundary
 * become one DMA segment, contiguous for the device even though the pages
 * behind it are not (as dma-iommu does).
 */
VISIBLE_IF_KUNIT int cxsim_iommu_map_sgl(struct cxsim_iommu *im,
					 struct scatterlist *sgl, int nents,
					 enum dma_data_direction dir, u64 mask,
					 unsigned int max_seg)
{
	u64 prot = cxsim_iommu_prot(dir);
	struct scatterlist *s, *cur = sgl;
	unsigned long pfn, npages = 0;
	dma_addr_t next = 0;
	int i, count = 0;

	for_each_sg(sgl, s, nents, i)
		npages += cxsim_iommu_npages(sg_phys(s), s->length);
	pfn = cxsim_iommu_alloc_iova(im, npages, mask);
	if (!pfn)
		return -ENOMEM;

	for_each_sg(sgl, s, nents, i) {
		phys_addr_t phys = sg_phys(s);
		unsigned long n = cxsim_iommu_npages(phys, s->length);
		dma_addr_t addr = ((dma_addr_t)pfn << PAGE_SHIFT) +
				  offset_in_page(phys);

		cxsim_iommu_set(im, pfn, phys, n, prot);
		pfn += n;
		if (count && addr == next &&
		    sg_dma_len(cur) + s->length <= max_seg) {
			sg_dma_len(cur) += s->length;
		} else {
			if (count)
				cur = sg_next(cur);
			sg_dma_address(cur) = addr;
			sg_dma_len(cur) = s->length;
			count++;
		}
		next = addr + s->length;
	}
	/* Unused DMA segments end the list for unmap_sg and the syncs. */
	for (s = sg_next(cur), i = count; s && i < nents; s = sg_next(s), i++)
		sg_dma_len(s) = 0;
	cxsim_iommu_inc(im, CXSIM_IOMMU_MAPS);
	return count;
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_iommu_map_sgl);

static int cxsim_iommu_map_sg(struct device *dev, struct scatterlist *sgl,
			      int nents, enum dma_data_direction dir,
			      unsigned long attrs)
{
	return cxsim_iommu_map_sgl(cxsim_iommu_of(dev), sgl, nents, dir,
				   dma_get_mask(dev),
				   dma_get_max_seg_size(dev));
}

/* Unmap what cxsim_iommu_map_sgl() mapped: one IOVA range. */
VISIBLE_IF_KUNIT void cxsim_iommu_unmap_sgl(struct cxsim_iommu *im,
					    struct scatterlist *sgl, int nents)
{
	dma_addr_t start = sg_dma_address(sgl), end = start;
	struct scatterlist *s;
	int i;

	for_each_sg(sgl, s, nents, i) {
		if (!sg_dma_len(s))
			break;
		end = sg_dma_address(s) + sg_dma_len(s);
	}
	if (end > start)
		cxsim_iommu_unmap_range(im, start, end - start);
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_iommu_unmap_sgl);

static void cxsim_iommu_unmap_sg(struct device *dev, struct scatterlist *sgl,
				 int nents, enum dma_data_direction dir,
				 unsigned long attrs)
{
	cxsim_iommu_unmap_sgl(cxsim_iommu_of(dev), sgl, nents);
}

/*
 * The model is cache coherent and bounces nothing: a sync only checks
 * that the driver still owns a mapping there.
 */
static void cxsim_iommu_sync(struct device *dev, dma_addr_t addr, size_t size,
			     enum dma_data_direction dir)
{
	struct cxsim_iommu *im = cxsim_iommu_of(dev);

	if (cxsim_iommu_mapped(im, addr, size))
		return;
	cxsim_iommu_inc(im, CXSIM_IOMMU_BAD_SYNCS);
	dev_err_ratelimited(dev, "IOMMU: sync of IOVA %pad (%zu bytes), not mapped\n",
			    &addr, size);
}

static void cxsim_iommu_sync_sg(struct device *dev, struct scatterlist *sgl,
				int nents, enum dma_data_direction dir)
{
	struct scatterlist *s;
	int i;

	for_each_sg(sgl, s, nents, i) {
		if (!sg_dma_len(s))
			break;
		cxsim_iommu_sync(dev, sg_dma_address(s), sg_dma_len(s), dir);
	}
}

static void *cxsim_iommu_alloc(struct device *dev, size_t size,
			       dma_addr_t *handle, gfp_t gfp,
			       unsigned long attrs)
{
	void *cpu;

	size = PAGE_ALIGN(size);
	cpu = alloc_pages_exact(size, gfp | __GFP_ZERO);
	if (!cpu)
		return NULL;
	*handle = cxsim_iommu_map_phys(cxsim_iommu_of(dev), virt_to_phys(cpu),
				       size,
				       CXSIM_PTE_R | CXSIM_PTE_W,
				       dev->coherent_dma_mask);
	if (*handle == DMA_MAPPING_ERROR) {
		free_pages_exact(cpu, size);
		return NULL;
	}
	return cpu;
}

static void cxsim_iommu_free(struct device *dev, size_t size, void *cpu,
			     dma_addr_t handle, unsigned long attrs)
{
	size = PAGE_ALIGN(size);
	cxsim_iommu_unmap_range(cxsim_iommu_of(dev), handle, size);
	free_pages_exact(cpu, size);
}

static struct page *cxsim_iommu_alloc_pages(struct device *dev, size_t size,
					    dma_addr_t *handle,
					    enum dma_data_direction dir,
					    gfp_t gfp)
{
	struct page *page;

	page = alloc_pages_node(dev_to_node(dev), gfp, get_order(size));
	if (!page)
		return NULL;
	*handle = cxsim_iommu_map_phys(cxsim_iommu_of(dev), page_to_phys(page),
				       size,
				       cxsim_iommu_prot(dir),
				       dev->coherent_dma_mask);
	if (*handle == DMA_MAPPING_ERROR) {
		__free_pages(page, get_order(size));
		return NULL;
	}
	return page;
}

static void cxsim_iommu_free_pages(struct device *dev, size_t size,
				   struct page *page, dma_addr_t handle,
				   enum dma_data_direction dir)
{
	cxsim_iommu_unmap_range(cxsim_iommu_of(dev), handle, size);
	__free_pages(page, get_order(size));
}

/* The IOVA space is 32 bits: a narrower mask is refused. */
static int cxsim_iommu_dma_supported(struct device *dev, u64 mask)
{
	return mask >= DMA_BIT_MASK(CXSIM_IOMMU_IOVA_BITS);
}

static u64 cxsim_iommu_required_mask(struct device *dev)
{
	return DMA_BIT_MASK(CXSIM_IOMMU_IOVA_BITS);
}

static const struct dma_map_ops cxsim_iommu_ops = {
	.alloc			= cxsim_iommu_alloc,
	.free			= cxsim_iommu_free,
	.alloc_pages_op		= cxsim_iommu_alloc_pages,
	.free_pages		= cxsim_iommu_free_pages,
	.map_page		= cxsim_iommu_map_page,
	.unmap_page		= cxsim_iommu_unmap_page,
	.map_sg			= cxsim_iommu_map_sg,
	.unmap_sg		= cxsim_iommu_unmap_sg,
	.map_resource		= cxsim_iommu_map_resource,
	.unmap_resource		= cxsim_iommu_unmap_page,
	.sync_single_for_cpu	= cxsim_iommu_sync,
	.sync_single_for_device	= cxsim_iommu_sync,
	.sync_sg_for_cpu	= cxsim_iommu_sync_sg,
	.sync_sg_for_device	= cxsim_iommu_sync_sg,
	.dma_supported		= cxsim_iommu_dma_supported,
	.get_required_mask	= cxsim_iommu_required_mask,
};

/**
 * cxsim_iommu_translate() - translate a device access through the IOMMU
 * @im: the IOMMU
 * @iova: the bus address the device uses
 * @access: CXSIM_DMA_READ and/or CXSIM_DMA_WRITE, or CXSIM_DMA_ANY
 * @phys: the physical address, on success
 *
 * A page that is not mapped, or mapped without a permission @access
 * needs, is a fault: counted and logged (ratelimited), as a DMAR fault.
 *
 * Return: true when the access may go on at *@phys.
 */
bool cxsim_iommu_translate(struct cxsim_iommu *im, u64 iova,
			   unsigned int access, phys_addr_t *phys)
{
	u64 pfn = iova >> PAGE_SHIFT;
	u64 need = 0, pte = 0;

	if (pfn < CXSIM_IOMMU_NPTE)
		pte = READ_ONCE(im->pte[pfn]);
	if (!(pte & CXSIM_PTE_PERM)) {
		cxsim_iommu_inc(im, CXSIM_IOMMU_FAULTS);
		dev_err_ratelimited(im->dev,
				    "DMAR: [DMA %s] fault addr %#llx: PTE not present\n",
				    access & CXSIM_DMA_WRITE ? "Write" : "Read",
				    iova);
		return false;
	}
	if (access & CXSIM_DMA_READ)
		need |= CXSIM_PTE_R;
	if (access & CXSIM_DMA_WRITE)
		need |= CXSIM_PTE_W;
	if (need & ~pte) {
		cxsim_iommu_inc(im, CXSIM_IOMMU_PERM_FAULTS);
		dev_err_ratelimited(im->dev,
				    "DMAR: [DMA %s] fault addr %#llx: PTE %s access is not set\n",
				    need & ~pte & CXSIM_PTE_W ? "Write" : "Read",
				    iova,
				    need & ~pte & CXSIM_PTE_W ? "Write" : "Read");
		return false;
	}
	*phys = (pte & PAGE_MASK) | offset_in_page(iova);
	return true;
}

static int cxsim_iommu_show(struct seq_file *m, void *v)
{
	struct cxsim_dev *sd = m->private;
	struct cxsim_iommu *im = sd->iommu;
	int c;

	seq_printf(m, "mode %s\n", im ? cxsim_iommu_modes[im->mode] : "off");
	seq_printf(m, "inval_ns %u\n", iommu_inval_ns);
	seq_printf(m, "mapped_pages %ld\n", im ? atomic_long_read(&im->mapped) : 0);
	for (c = 0; c < CXSIM_IOMMU_NCNT; c++)
		seq_printf(m, "%s %lld\n", cxsim_iommu_cnt_names[c],
			   im ? (s64)atomic64_read(&im->cnt[c]) : 0);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxsim_iommu);

/*
 * "probe": a test of the device's address path. Writing a bus address
 * makes the device read one byte there, as any DMA would; the write
 * fails with -EFAULT when the device was refused (an IOMMU fault when
 * the model has an IOMMU).
 */
static ssize_t cxsim_iommu_probe_write(struct file *file,
				       const char __user *ubuf, size_t len,
				       loff_t *ppos)
{
	struct cxsim_dev *sd = file->private_data;
	u64 addr;
	u8 byte;
	int err;

	err = kstrtou64_from_user(ubuf, len, 0, &addr);
	if (err)
		return err;
	if (!cxsim_dma_read(sd, addr, &byte, 1))
		return -EFAULT;
	return len;
}

static const struct file_operations cxsim_iommu_probe_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= cxsim_iommu_probe_write,
	.llseek	= noop_llseek,
};

/**
 * cxsim_iommu_attach() - put the IOMMU in front of the device
 * @sd: the model
 * @dev: its platform device, added to the bus and not yet probed
 */
void cxsim_iommu_attach(struct cxsim_dev *sd, struct device *dev)
{
	if (!sd->iommu)
		return;
	sd->iommu->dev = dev;
	set_dma_ops(dev, &cxsim_iommu_ops);
}

/**
 * cxsim_iommu_create() - an IOMMU with an empty I/O page table
 * @mode: CXSIM_IOMMU_STRICT or CXSIM_IOMMU_LAZY
 *
 * Return: the IOMMU, or an ERR_PTR().
 */
VISIBLE_IF_KUNIT struct cxsim_iommu *cxsim_iommu_create(int mode)
{
	struct cxsim_iommu *im;
	int err, c;

	im = kzalloc(sizeof(*im), GFP_KERNEL);
	if (!im)
		return ERR_PTR(-ENOMEM);
	im->mode = mode;
	im->pte = vzalloc(array_size(CXSIM_IOMMU_NPTE, sizeof(*im->pte)));
	if (!im->pte) {
		err = -ENOMEM;
		goto err_free;
	}
	err = iova_cache_get();
	if (err)
		goto err_pte;
	/* IOVA page 0 is never handed out: 0 stays a bad address. */
	init_iova_domain(&im->iovad, PAGE_SIZE, 1);
	err = iova_domain_init_rcaches(&im->iovad);
	if (err)
		goto err_domain;
	spin_lock_init(&im->fq_lock);
	timer_setup(&im->fq_timer, cxsim_iommu_fq_timeout, 0);
	atomic_long_set(&im->mapped, 0);
	for (c = 0; c < CXSIM_IOMMU_NCNT; c++)
		atomic64_set(&im->cnt[c], 0);
	return im;

err_domain:
	put_iova_domain(&im->iovad);
	iova_cache_put();
err_pte:
	vfree(im->pte);
err_free:
	kfree(im);
	return ERR_PTR(err);
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_iommu_create);

/**
 * cxsim_iommu_destroy() - free an IOMMU
 * @im: the IOMMU, whose device is gone
 *
 * Flushes the flush queue. A page still mapped now is a mapping its user
 * leaked: logged.
 */
VISIBLE_IF_KUNIT void cxsim_iommu_destroy(struct cxsim_iommu *im)
{
	long left;

	timer_shutdown_sync(&im->fq_timer);
	cxsim_iommu_fq_flush(im);
	left = atomic_long_read(&im->mapped);
	if (left)
		pr_err("cxsim: IOMMU: %ld IOVA pages still mapped at unload (leaked mappings)\n",
		       left);
	put_iova_domain(&im->iovad);
	iova_cache_put();
	vfree(im->pte);
	kfree(im);
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_iommu_destroy);

#if IS_ENABLED(CONFIG_KUNIT)
/* A counter by its debugfs name, for the KUnit tests; 0 when unknown. */
u64 cxsim_iommu_count(struct cxsim_iommu *im, const char *name)
{
	int c = match_string(cxsim_iommu_cnt_names, CXSIM_IOMMU_NCNT, name);

	return c < 0 ? 0 : atomic64_read(&im->cnt[c]);
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_iommu_count);
#endif

/**
 * cxsim_iommu_init() - the IOMMU the module parameter asks for
 * @sd: the model
 *
 * Sets sd->iommu (NULL with iommu=off) and the debugfs files "iommu" and
 * "probe".
 *
 * Return: 0, -EINVAL for an unknown mode, or -ENOMEM.
 */
int cxsim_iommu_init(struct cxsim_dev *sd)
{
	struct cxsim_iommu *im;
	int mode;

	mode = sysfs_match_string(cxsim_iommu_modes, iommu);
	if (mode < 0) {
		pr_err("cxsim: iommu=%s: not off, strict or lazy\n", iommu);
		return -EINVAL;
	}
	if (mode != CXSIM_IOMMU_OFF) {
		im = cxsim_iommu_create(mode);
		if (IS_ERR(im))
			return PTR_ERR(im);
		sd->iommu = im;
		pr_info("cxsim: IOMMU %s, %u ns per IOTLB invalidation\n",
			cxsim_iommu_modes[mode], iommu_inval_ns);
	}
	debugfs_create_file("iommu", 0400, sd->debugfs, sd, &cxsim_iommu_fops);
	debugfs_create_file("probe", 0200, sd->debugfs, sd,
			    &cxsim_iommu_probe_fops);
	return 0;
}

/**
 * cxsim_iommu_exit() - tear the IOMMU down
 * @sd: the model, whose device is gone
 */
void cxsim_iommu_exit(struct cxsim_dev *sd)
{
	struct cxsim_iommu *im = sd->iommu;

	if (!im)
		return;
	sd->iommu = NULL;
	cxsim_iommu_destroy(im);
}
