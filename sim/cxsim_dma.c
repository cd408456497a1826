// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim DMA: the model reaches host memory only by bus (DMA) address, as
 * a device does. A bus address is translated with dma_to_phys() for the
 * model's own platform device, one page at a time: with swiotlb=force the
 * addresses are bounce slots and the driver's syncs decide what the CPU
 * sees, as with real hardware. Every page a transfer touches must be
 * valid memory (pfn_valid(), and never page 0) or the transfer is refused
 * before a single byte moves, and counted in the device's dma_errors.
 */
#include <linux/dma-direct.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/string.h>

#include "cxsim.h"

/* Kernel address of @addr, or NULL when its page is not addressable. */
static void *cxsim_dma_page(struct cxsim_dev *sd, u64 addr)
{
	phys_addr_t phys = dma_to_phys(sd->dma_dev, addr);
	unsigned long pfn = PHYS_PFN(phys);

	if (!pfn || !pfn_valid(pfn))
		return NULL;
	return phys_to_virt(phys);
}

/* Bytes from @addr to the end of its page, at most @len. */
static u32 cxsim_dma_chunk(u64 addr, u64 len)
{
	return min_t(u64, len, PAGE_SIZE - offset_in_page(addr));
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
	if (!len)
		return true;
	if (len - 1 > U64_MAX - addr)
		goto bad;
	while (len) {
		u32 chunk = cxsim_dma_chunk(addr, len);

		if (!cxsim_dma_page(sd, addr))
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
	if (!cxsim_dma_check(sd, addr, len))
		return false;
	while (len) {
		u32 chunk = cxsim_dma_chunk(addr, len);

		memcpy(buf, cxsim_dma_page(sd, addr), chunk);
		buf += chunk;
		addr += chunk;
		len -= chunk;
	}
	return true;
}

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
	if (!cxsim_dma_check(sd, addr, len))
		return false;
	while (len) {
		u32 chunk = cxsim_dma_chunk(addr, len);

		memcpy(cxsim_dma_page(sd, addr), buf, chunk);
		buf += chunk;
		addr += chunk;
		len -= chunk;
	}
	return true;
}

/**
 * cxsim_dma_ptr() - kernel address of a small object in host memory
 * @sd: the device
 * @addr: bus address
 * @len: size of the object; it must not cross a page boundary
 *
 * For objects the device accesses field by field with ordering rules
 * (CQEs, doorbell records).
 *
 * Return: the address, or NULL when the range crosses a page boundary or
 * is not addressable.
 */
void *cxsim_dma_ptr(struct cxsim_dev *sd, u64 addr, u32 len)
{
	void *p;

	if (!len || cxsim_dma_chunk(addr, len) != len)
		goto bad;
	p = cxsim_dma_page(sd, addr);
	if (!p)
		goto bad;
	return p;
bad:
	cxsim_dev_inc(sd, CXSIM_DEV_DMA_ERRORS);
	return NULL;
}
