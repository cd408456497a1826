// SPDX-License-Identifier: GPL-2.0
/*
 * cxen: the module, probe and remove, the device's async events. The
 * ports' netdevs and their ops are en_netdev.c's.
 *
 * Probe order: the devlink instance (its private data is struct cxen_dev,
 * en_devlink.c), the bus, the command channel, the async interrupt, then
 * under the devlink instance lock the parameters, the health reporters
 * (en_health.c, en_fw.c), the ports and the instance's registration, and
 * last fault reports and the device's health poll. Remove undoes it in reverse,
 * stopping the reports before it takes the instance lock; devlink reload
 * destroys and creates only the ports (cxen_ports_destroy(),
 * cxen_ports_create()).
 */
#include <linux/mod_devicetable.h>
#include <linux/module.h>
#include <linux/rtnetlink.h>
#include <net/devlink.h>

#include "en.h"

/* ------------------------------------------------------------------ */
/* Async events                                                        */
/* ------------------------------------------------------------------ */

static void cxen_async_work(struct work_struct *work)
{
	struct cxen_dev *cdev = container_of(work, struct cxen_dev, async_work);
	u32 cause = cxen_rd32(cdev, CXEN_REG_ASYNC_CAUSE);
	unsigned int p;

	if (cause & CXEN_ASYNC_QUEUE_ERROR)
		dev_warn(cdev->dev, "device reports a queue in error state\n");
	if (cause & CXEN_ASYNC_CQ_OVERRUN)
		dev_warn(cdev->dev, "device reports a CQ overrun: completions lost\n");
	if (cause & CXEN_ASYNC_FATAL)
		cxen_fw_async(cdev);

	rtnl_lock();
	if (cause & CXEN_ASYNC_QUEUE_ERROR)
		cxen_health_scan(cdev);
	for (p = 0; p < cdev->caps.num_ports; p++) {
		struct cxen_priv *priv;

		if (!(cause & CXEN_ASYNC_PORT_CHANGE(p)) || !cdev->ports[p])
			continue;
		priv = netdev_priv(cdev->ports[p]);
		cxen_update_carrier(priv);
	}
	rtnl_unlock();
}

static irqreturn_t cxen_async_irq(int irq, void *data)
{
	struct cxen_dev *cdev = data;

	schedule_work(&cdev->async_work);
	return IRQ_HANDLED;
}

static int cxen_probe(struct platform_device *pdev)
{
	struct devlink *devlink;
	struct cxen_dev *cdev;
	unsigned int i;
	int err;

	cdev = cxen_devlink_alloc(&pdev->dev);
	if (!cdev)
		return -ENOMEM;
	devlink = priv_to_devlink(cdev);
	cdev->pdev = pdev;
	cdev->dev = &pdev->dev;
	ida_init(&cdev->sqn_ida);
	ida_init(&cdev->rqn_ida);
	ida_init(&cdev->cqn_ida);
	INIT_LIST_HEAD(&cdev->leaked);
	INIT_WORK(&cdev->async_work, cxen_async_work);
	cxen_health_dev_init(cdev);
	cxen_fw_init(cdev);
	platform_set_drvdata(pdev, cdev);

	err = dma_set_mask_and_coherent(cdev->dev, DMA_BIT_MASK(64));
	if (err) {
		dev_err(cdev->dev, "no usable DMA configuration\n");
		goto err_free;
	}
	err = cxen_bus_init(cdev);
	if (err)
		goto err_free;
	err = cxen_cmd_init(cdev);
	if (err)
		goto err_free;
	err = cxen_cmd_query_dev(cdev);
	if (err)
		goto err_cmd;

	for (i = 0; i < cdev->caps.num_vectors; i++) {
		err = platform_get_irq(pdev, i);
		if (err < 0)
			goto err_cmd;
		cdev->irqs[i] = err;
	}
	err = request_irq(cdev->irqs[CXEN_HW_ASYNC_VECTOR], cxen_async_irq, 0,
			  dev_name(cdev->dev), cdev);
	if (err)
		goto err_cmd;

	devl_lock(devlink);
	err = cxen_devlink_params_register(cdev);
	if (err)
		goto err_unlock;
	err = cxen_health_reporters_create(cdev);
	if (err)
		goto err_params;
	err = cxen_fw_reporter_create(cdev);
	if (err)
		goto err_reporters;
	err = cxen_ports_create(cdev);
	if (err)
		goto err_fw_reporter;
	err = devl_register(devlink);
	if (err)
		goto err_ports;
	devl_unlock(devlink);
	cxen_health_enable(cdev);
	cxen_fw_start(cdev);
	dev_info(cdev->dev, "%u ports, %u channels max, %u RX segments per WQE\n",
		 cdev->caps.num_ports, cdev->caps.max_channels,
		 cdev->caps.max_rx_segs);
	return 0;

err_ports:
	cxen_ports_destroy(cdev);
err_fw_reporter:
	cxen_fw_reporter_destroy(cdev);
err_reporters:
	cxen_health_reporters_destroy(cdev);
	cancel_work_sync(&cdev->recover_work);
err_params:
	cxen_devlink_params_unregister(cdev);
err_unlock:
	devl_unlock(devlink);
	free_irq(cdev->irqs[CXEN_HW_ASYNC_VECTOR], cdev);
	cancel_work_sync(&cdev->async_work);
err_cmd:
	cancel_work_sync(&cdev->fatal_work);
	cxen_cmd_cleanup(cdev);
err_free:
	devlink_free(devlink);
	return err;
}

static void cxen_remove(struct platform_device *pdev)
{
	struct cxen_dev *cdev = platform_get_drvdata(pdev);
	struct devlink *devlink = priv_to_devlink(cdev);

	/* Faults found from here on are reset without a report. */
	cxen_health_disable(cdev);
	cxen_fw_stop(cdev);
	devl_lock(devlink);
	devl_unregister(devlink);
	/* A lost device is reset as the ports' queues go (cxen_hw_release()). */
	cxen_ports_destroy(cdev);
	cxen_fw_reporter_destroy(cdev);
	cxen_health_reporters_destroy(cdev);
	cxen_devlink_params_unregister(cdev);
	devl_unlock(devlink);
	cancel_work_sync(&cdev->recover_work);
	free_irq(cdev->irqs[CXEN_HW_ASYNC_VECTOR], cdev);
	cancel_work_sync(&cdev->async_work);
	/* A DESTROY that failed above queued it. */
	cancel_work_sync(&cdev->fatal_work);
	cxen_cmd_cleanup(cdev);
	ida_destroy(&cdev->sqn_ida);
	ida_destroy(&cdev->rqn_ida);
	ida_destroy(&cdev->cqn_ida);
	devlink_free(devlink);
}

static const struct platform_device_id cxen_id_table[] = {
	{ .name = CXEN_SIM_DEV_NAME },
	{ }
};
MODULE_DEVICE_TABLE(platform, cxen_id_table);

static struct platform_driver cxen_driver = {
	.probe		= cxen_probe,
	.remove		= cxen_remove,
	.id_table	= cxen_id_table,
	.driver		= {
		.name	= CXEN_DRV_NAME,
	},
};

static int __init cxen_init(void)
{
	int err;

	cxen_debugfs_init();
	err = platform_driver_register(&cxen_driver);
	if (err)
		cxen_debugfs_exit();
	return err;
}
module_init(cxen_init);

static void __exit cxen_exit(void)
{
	platform_driver_unregister(&cxen_driver);
	cxen_debugfs_exit();
}
module_exit(cxen_exit);

MODULE_AUTHOR("cxen developers");
MODULE_DESCRIPTION("cxen ConnectX-style Ethernet driver");
MODULE_LICENSE("GPL");
MODULE_VERSION(CXEN_DRV_VERSION);
