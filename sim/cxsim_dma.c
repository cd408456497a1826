// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim DMA: the model reaches host memory only by bus (DMA) address, as
 * a device does. A bus address is translated one page at a time: through
 * the model's IOMMU when it has one (cxsim_iommu.c: an IOVA page that is
 * not mapped, or lacks the permission, is a fault), else with
 * dma_to_phys() for the model's own platform device (with swiotlb=force
 * the addresses are bounce slots and the driver's syncs decide what the
 * CPU sees, as with real hardware). Pages that are contiguous for the
 * device need not be in memory: a transfer is copied page by page. Every
 * page a transfer touches must translate to valid memory (pfn_valid(),
 * and never page 0) or the transfer is refused before a single byte
 * moves, and counted in the device's dma_errors.
 */
#include <kunit/visibility.h>
#include <linux/dma-direct.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>
#include <net/checksum.h>

#include "cxsim.h"
#include "cxsim_iommu.h"

/*
 * Kernel address of @addr for an @access (CXSIM_DMA_*), or NULL when its
 * page is not addressable.
 */
static void *cxsim_dma_page(struct cxsim_dev *sd, u64 addr,
			    unsigned int access)
{
	unsigned long pfn;
	phys_addr_t phys;

	if (sd->iommu) {
		if (!cxsim_iommu_translate(sd->iommu, addr, access, &phys))
			return NULL;
	} else {
		phys = dma_to_phys(sd->dma_dev, addr);
	}
	pfn = PHYS_PFN(phys);

	if (!pfn || !pfn_valid(pfn))
		return NULL;
	return phys_to_virt(phys);
}

/* Bytes from @addr to the end of its page, at most @len. */
static u32 cxsim_dma_chunk(u64 addr, u64 len)
{
	return min_t(u64, len, PAGE_SIZE - offset_in_page(addr));
}

/*
 * Whether every page of [@addr, @addr + @len) may be accessed for @access
 * (CXSIM_DMA_*); a refusal is counted in dma_errors.
 */
static bool cxsim_dma_check_access(struct cxsim_dev *sd, u64 addr, u64 len,
				   unsigned int access)
{
	if (!len)
		return true;
	if (len - 1 > U64_MAX - addr)
		goto bad;
	while (len) {
		u32 chunk = cxsim_dma_chunk(addr, len);

		if (!cxsim_dma_page(sd, addr, access))
			goto bad;
		addr += chunk;
		len -= chunk;
	}
	return true;
bad:
	cxsim_dev_inc(sd, CXSIM_DEV_DMA_ERRORS);
	return false;
}

/**
 * cxsim_dma_check() - check that a bus address range is addressable
 * @sd: the device
 * @addr: first bus address
 * @len: length in bytes; 0 is always addressable
 *
 * Return: true when every page of [@addr, @addr + @len) may be accessed.
 */
bool cxsim_dma_check(struct cxsim_dev *sd, u64 addr, u64 len)
{
	return cxsim_dma_check_access(sd, addr, len, CXSIM_DMA_ANY);
}

/*
 * Copy @len bytes between @buf and bus address @addr, page by page: the
 * pages behind consecutive bus pages need not be consecutive. A page
 * that no longer translates (the driver unmapped it since the check: its
 * bug, a fault) ends the transfer there.
 */
static bool cxsim_dma_copy(struct cxsim_dev *sd, u64 addr, void *buf,
			   u32 len, unsigned int access)
{
	while (len) {
		u32 chunk = cxsim_dma_chunk(addr, len);
		void *p = cxsim_dma_page(sd, addr, access);

		if (!p) {
			cxsim_dev_inc(sd, CXSIM_DEV_DMA_ERRORS);
			return false;
		}
		if (access == CXSIM_DMA_WRITE)
			memcpy(p, buf, chunk);
		else
			memcpy(buf, p, chunk);
		buf += chunk;
		addr += chunk;
		len -= chunk;
	}
	return true;
}

/**
 * cxsim_dma_read() - device read from host memory
 * @sd: the device
 * @addr: bus address
 * @buf: model buffer
 * @len: bytes
 *
 * Nothing is copied unless the whole range is addressable.
 *
 * Return: true on success.
 */
bool cxsim_dma_read(struct cxsim_dev *sd, u64 addr, void *buf, u32 len)
{
	if (!cxsim_dma_check_access(sd, addr, len, CXSIM_DMA_READ))
		return false;
	return cxsim_dma_copy(sd, addr, buf, len, CXSIM_DMA_READ);
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_dma_read);

/**
 * cxsim_dma_write() - device write to host memory
 * @sd: the device
 * @addr: bus address
 * @buf: model buffer
 * @len: bytes
 *
 * Nothing is written unless the whole range is addressable.
 *
 * Return: true on success.
 */
bool cxsim_dma_write(struct cxsim_dev *sd, u64 addr, const void *buf,
		     u32 len)
{
	if (!cxsim_dma_check_access(sd, addr, len, CXSIM_DMA_WRITE))
		return false;
	return cxsim_dma_copy(sd, addr, (void *)buf, len, CXSIM_DMA_WRITE);
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_dma_write);

/**
 * cxsim_dma_write_csum() - device write to host memory, summed on the way
 * @sd: the device
 * @addr: bus address
 * @buf: model buffer
 * @len: bytes
 * @sum: set to the ones' complement sum of the bytes written
 *
 * What a receive engine that checksums as it writes does: one pass over
 * the bytes. Nothing is written unless the whole range is addressable.
 *
 * Return: true on success.
 */
bool cxsim_dma_write_csum(struct cxsim_dev *sd, u64 addr, const void *buf,
			  u32 len, __wsum *sum)
{
	u32 done = 0;

	*sum = 0;
	if (!cxsim_dma_check_access(sd, addr, len, CXSIM_DMA_WRITE))
		return false;
	while (done < len) {
		u32 chunk = cxsim_dma_chunk(addr, len - done);
		void *p = cxsim_dma_page(sd, addr, CXSIM_DMA_WRITE);

		if (!p) {
			cxsim_dev_inc(sd, CXSIM_DEV_DMA_ERRORS);
			return false;
		}
		*sum = csum_block_add(*sum, csum_partial_copy_nocheck(buf + done,
								      p, chunk),
				      done);
		addr += chunk;
		done += chunk;
	}
	return true;
}

/**
 * cxsim_dma_src() - kernel address of bytes the device reads in place
 * @sd: the device
 * @addr: bus address
 * @len: bytes; they must not cross a page boundary
 *
 * For a DMA engine that reads host memory as it goes (an LSO WQE's
 * payload): read access only, as a DMA_TO_DEVICE mapping gives.
 *
 * Return: the address, or NULL when not addressable.
 */
const void *cxsim_dma_src(struct cxsim_dev *sd, u64 addr, u32 len)
{
	void *p = NULL;

	if (len && cxsim_dma_chunk(addr, len) == len)
		p = cxsim_dma_page(sd, addr, CXSIM_DMA_READ);
	if (!p)
		cxsim_dev_inc(sd, CXSIM_DEV_DMA_ERRORS);
	return p;
}

/**
 * cxsim_dma_ptr() - kernel address of a small object in host memory
 * @sd: the device
 * @addr: bus address
 * @len: size of the object; it must not cross a page boundary
 *
 * For objects the device accesses field by field with ordering rules
 * (CQEs, doorbell records): they must be mapped for reads and writes.
 *
 * Return: the address, or NULL when the range crosses a page boundary or
 * is not addressable.
 */
void *cxsim_dma_ptr(struct cxsim_dev *sd, u64 addr, u32 len)
{
	void *p;

	if (!len || cxsim_dma_chunk(addr, len) != len)
		goto bad;
	p = cxsim_dma_page(sd, addr, CXSIM_DMA_READ | CXSIM_DMA_WRITE);
	if (!p)
		goto bad;
	return p;
bad:
	cxsim_dev_inc(sd, CXSIM_DEV_DMA_ERRORS);
	return NULL;
}
