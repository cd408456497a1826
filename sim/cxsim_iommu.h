/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxsim IOMMU: the model's own DMA remapping unit (cxsim_iommu.c).
 */
#ifndef _CXSIM_IOMMU_H_
#define _CXSIM_IOMMU_H_

#include <linux/types.h>

struct cxsim_dev;
struct cxsim_iommu;
struct device;

/* What a device access needs from a translation. */
#define CXSIM_DMA_ANY		0	/* mapped, whatever the permissions */
#define CXSIM_DMA_READ		BIT(0)	/* the device reads host memory */
#define CXSIM_DMA_WRITE		BIT(1)	/* the device writes host memory */

int cxsim_iommu_init(struct cxsim_dev *sd);
void cxsim_iommu_exit(struct cxsim_dev *sd);
void cxsim_iommu_attach(struct cxsim_dev *sd, struct device *dev);
bool cxsim_iommu_translate(struct cxsim_iommu *im, u64 iova,
			   unsigned int access, phys_addr_t *phys);

#endif /* _CXSIM_IOMMU_H_ */
