// SPDX-License-Identifier: GPL-2.0
/*
 * cxen bus glue: the register window, found and checked at probe. The
 * accessors that use it, cxen_rd32() and cxen_wr32(), are inline in en.h.
 *
 * The cxsim model hands the driver a struct cxen_mmio_bus as platform data;
 * its accessors stand in for readl()/writel() on BAR 0 and let the model
 * trap doorbell writes as QEMU traps MMIO. A PCI device replaces this file
 * (and the platform driver in en_main.c) with pci_iomap() and readl/writel.
 */
#include "en.h"

/**
 * cxen_bus_init() - find the register window and check the device
 * @cdev: the device, with @pdev set
 *
 * Return: 0, or -ENODEV if there is no register window or it is not a
 * cxen device of a major version this driver speaks.
 */
int cxen_bus_init(struct cxen_dev *cdev)
{
	const struct cxen_mmio_bus *bus = dev_get_platdata(cdev->dev);
	u32 id, ver;

	if (!bus || !bus->read32 || !bus->write32) {
		dev_err(cdev->dev, "no register window in platform data\n");
		return -ENODEV;
	}
	cdev->bus = bus;

	id = cxen_rd32(cdev, CXEN_REG_ID);
	ver = cxen_rd32(cdev, CXEN_REG_VERSION);
	if (id != CXEN_HW_ID_MAGIC) {
		dev_err(cdev->dev, "not a cxen device (id %#x)\n", id);
		return -ENODEV;
	}
	if (FIELD_GET(CXEN_VERSION_MAJOR, ver) != CXEN_HW_VERSION_MAJOR) {
		dev_err(cdev->dev, "unsupported interface version %lu.%lu, driver speaks %u.x\n",
			FIELD_GET(CXEN_VERSION_MAJOR, ver),
			FIELD_GET(CXEN_VERSION_MINOR, ver), CXEN_HW_VERSION_MAJOR);
		return -ENODEV;
	}
	cdev->hw_version = ver;
	return 0;
}
