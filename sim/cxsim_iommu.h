/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxsim IOMMU: the model's own DMA remapping unit (cxsim_iommu.c).
 */
#ifndef _CXSIM_IOMMU_H_
#define _CXSIM_IOMMU_H_

#include <linux/dma-direction.h>
#include <linux/types.h>

struct cxsim_dev;
struct cxsim_iommu;
struct device;
struct scatterlist;

/* cxsim.iommu= */
enum {
	CXSIM_IOMMU_OFF,
	CXSIM_IOMMU_STRICT,
	CXSIM_IOMMU_LAZY,
};

/* What a device access needs from a translation. */
#define CXSIM_DMA_ANY		0	/* mapped, whatever the permissions */
#define CXSIM_DMA_READ		BIT(0)	/* the device reads host memory */
#define CXSIM_DMA_WRITE		BIT(1)	/* the device writes host memory */

int cxsim_iommu_init(struct cxsim_dev *sd);
void cxsim_iommu_exit(struct cxsim_dev *sd);
void cxsim_iommu_attach(struct cxsim_dev *sd, struct device *dev);
bool cxsim_iommu_translate(struct cxsim_iommu *im, u64 iova,
			   unsigned int access, phys_addr_t *phys);

#if IS_ENABLED(CONFIG_KUNIT)
struct cxsim_iommu *cxsim_iommu_create(int mode);
void cxsim_iommu_destroy(struct cxsim_iommu *im);
int cxsim_iommu_map_sgl(struct cxsim_iommu *im, struct scatterlist *sgl,
			int nents, enum dma_data_direction dir, u64 mask,
			unsigned int max_seg);
void cxsim_iommu_unmap_sgl(struct cxsim_iommu *im, struct scatterlist *sgl,
			   int nents);
u64 cxsim_iommu_count(struct cxsim_iommu *im, const char *name);
#endif

#endif /* _CXSIM_IOMMU_H_ */
