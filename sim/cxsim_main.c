// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim: register/DMA-level model of the cxen NIC (see cxsim.h).
 *
 * This file owns the device: the "cxsim" platform device and its
 * registers (trapped through struct cxen_mmio_bus, as QEMU traps MMIO),
 * the irq domain whose IRQs are the device's vectors, and module load and
 * unload.
 */
#include <linux/bitfield.h>
#include <linux/bottom_half.h>
#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/irqdomain.h>
#include <linux/module.h>
#include <linux/notifier.h>
#include <linux/platform_device.h>
#include <linux/slab.h>

#include "cxsim.h"
#include "cxsim_iommu.h"

const char * const cxsim_dev_cnt_names[CXSIM_DEV_NCNT] = {
	[CXSIM_DEV_COMMANDS]		= "commands",
	[CXSIM_DEV_CMD_BUSY]		= "cmd_busy",
	[CXSIM_DEV_CMD_FAILED]		= "cmd_failed",
	[CXSIM_DEV_BAD_REG]		= "bad_reg",
	[CXSIM_DEV_BAD_DB]		= "bad_doorbell",
	[CXSIM_DEV_DMA_ERRORS]		= "dma_errors",
	[CXSIM_DEV_ASYNC_EVENTS]	= "async_events",
	[CXSIM_DEV_RESETS]		= "resets",
	[CXSIM_DEV_ORDER_WAITS]		= "order_waits",
	[CXSIM_DEV_ORDER_TIMEOUTS]	= "order_timeouts",
};

const char * const cxsim_port_cnt_names[CXSIM_PORT_NCNT] = {
	[CXSIM_PORT_TX_FRAMES]		= "tx_frames",
	[CXSIM_PORT_TX_BYTES]		= "tx_bytes",
	[CXSIM_PORT_TX_OVERSIZE]	= "tx_oversize",
	[CXSIM_PORT_TX_LINK_DOWN]	= "tx_link_down",
	[CXSIM_PORT_TX_ERRORS]		= "tx_error_cqes",
	[CXSIM_PORT_RX_FRAMES]		= "rx_frames",
	[CXSIM_PORT_RX_BYTES]		= "rx_bytes",
	[CXSIM_PORT_RX_OVERSIZE]	= "rx_oversize",
	[CXSIM_PORT_RX_NO_RQ]		= "rx_no_rq",
	[CXSIM_PORT_RX_OUT_OF_BUFFER]	= "rx_out_of_buffer",
	[CXSIM_PORT_RX_CQ_OVERRUN]	= "rx_cq_overrun",
	[CXSIM_PORT_RX_QUEUE_ERROR]	= "rx_queue_error",
	[CXSIM_PORT_RX_ERRORS]		= "rx_error_cqes",
	[CXSIM_PORT_RX_CSUM_BAD]	= "rx_csum_bad",
	[CXSIM_PORT_TX_MCAST]		= "tx_multicast",
	[CXSIM_PORT_TX_BCAST]		= "tx_broadcast",
	[CXSIM_PORT_RX_MCAST]		= "rx_multicast",
	[CXSIM_PORT_RX_BCAST]		= "rx_broadcast",
	[CXSIM_PORT_RX_VLAN_STRIPPED]	= "rx_vlan_stripped",
	[CXSIM_PORT_TX_PAUSE]		= "tx_pause",
	[CXSIM_PORT_RX_PAUSE]		= "rx_pause",
	[CXSIM_PORT_TX_HIST + 0]	= "tx_64",
	[CXSIM_PORT_TX_HIST + 1]	= "tx_65_127",
	[CXSIM_PORT_TX_HIST + 2]	= "tx_128_255",
	[CXSIM_PORT_TX_HIST + 3]	= "tx_256_511",
	[CXSIM_PORT_TX_HIST + 4]	= "tx_512_1023",
	[CXSIM_PORT_TX_HIST + 5]	= "tx_1024_1518",
	[CXSIM_PORT_TX_HIST + 6]	= "tx_1519_2047",
	[CXSIM_PORT_TX_HIST + 7]	= "tx_2048_4095",
	[CXSIM_PORT_TX_HIST + 8]	= "tx_4096_max",
	[CXSIM_PORT_RX_HIST + 0]	= "rx_64",
	[CXSIM_PORT_RX_HIST + 1]	= "rx_65_127",
	[CXSIM_PORT_RX_HIST + 2]	= "rx_128_255",
	[CXSIM_PORT_RX_HIST + 3]	= "rx_256_511",
	[CXSIM_PORT_RX_HIST + 4]	= "rx_512_1023",
	[CXSIM_PORT_RX_HIST + 5]	= "rx_1024_1518",
	[CXSIM_PORT_RX_HIST + 6]	= "rx_1519_2047",
	[CXSIM_PORT_RX_HIST + 7]	= "rx_2048_4095",
	[CXSIM_PORT_RX_HIST + 8]	= "rx_4096_max",
	[CXSIM_PORT_RX_FILTERED]	= "rx_filtered",
	[CXSIM_PORT_RX_FILTERED_BYTES]	= "rx_filtered_bytes",
	[CXSIM_PORT_TX_DISCARDED]	= "tx_discarded",
};

const char * const cxsim_sq_cnt_names[CXSIM_SQ_NCNT] = {
	[CXSIM_SQ_WQES]			= "wqes",
	[CXSIM_SQ_FRAMES]		= "frames",
	[CXSIM_SQ_BYTES]		= "bytes",
	[CXSIM_SQ_OVERSIZE]		= "oversize",
	[CXSIM_SQ_LINK_DOWN]		= "link_down",
	[CXSIM_SQ_ERROR_CQES]		= "error_cqes",
	[CXSIM_SQ_FLUSHED]		= "flushed",
	[CXSIM_SQ_CQ_OVERRUN]		= "cq_overrun",
	[CXSIM_SQ_INLINE_RUNS]		= "inline_runs",
	[CXSIM_SQ_WORK_RUNS]		= "work_runs",
	[CXSIM_SQ_PARKED]		= "parked",
	[CXSIM_SQ_LRO_BURST]		= "lro_burst",
};

const char * const cxsim_rq_cnt_names[CXSIM_RQ_NCNT] = {
	[CXSIM_RQ_FRAMES]		= "frames",
	[CXSIM_RQ_BYTES]		= "bytes",
	[CXSIM_RQ_OUT_OF_BUFFER]	= "out_of_buffer",
	[CXSIM_RQ_ERROR_CQES]		= "error_cqes",
	[CXSIM_RQ_FLUSHED]		= "flushed",
	[CXSIM_RQ_CQ_OVERRUN]		= "cq_overrun",
	[CXSIM_RQ_CSUM_BAD]		= "csum_bad",
	[CXSIM_RQ_WQES]			= "wqes",
	[CXSIM_RQ_HDR_SPLIT]		= "hdr_split",
	[CXSIM_RQ_HDR_NO_BUFFER]	= "hdr_no_buffer",
	[CXSIM_RQ_FILLERS]		= "fillers",
	[CXSIM_RQ_STRIDES]		= "strides",
	[CXSIM_RQ_LRO]			= "lro",
	[CXSIM_RQ_LRO_SEGS]		= "lro_segs",
};

const char * const cxsim_cq_cnt_names[CXSIM_CQ_NCNT] = {
	[CXSIM_CQ_CQES]			= "cqes",
	[CXSIM_CQ_OVERRUN]		= "overrun",
	[CXSIM_CQ_ARMS]			= "arms",
	[CXSIM_CQ_IRQS]			= "irqs",
	[CXSIM_CQ_MODIFIED]		= "modified",
};

static struct cxsim_dev *cxsim;

/* ------------------------------------------------------------------ */
/* Interrupts                                                          */
/* ------------------------------------------------------------------ */

/* The vectors have no hardware behind them: nothing to mask or ack. */
static void cxsim_irq_noop(struct irq_data *d)
{
}

/*
 * Edge semantics, like MSI-X: a vector raised while its handler runs on
 * another CPU is replayed when that handler returns, never lost.
 */
static struct irq_chip cxsim_irq_chip = {
	.name		= "cxsim",
	.irq_ack	= cxsim_irq_noop,
	.irq_mask	= cxsim_irq_noop,
	.irq_unmask	= cxsim_irq_noop,
};

static int cxsim_irq_map(struct irq_domain *d, unsigned int virq,
			 irq_hw_number_t hw)
{
	irq_set_chip_and_handler(virq, &cxsim_irq_chip, handle_edge_irq);
	irq_set_chip_data(virq, d->host_data);
	return 0;
}

static const struct irq_domain_ops cxsim_irq_ops = {
	.map	= cxsim_irq_map,
};

/**
 * cxsim_raise_irq() - deliver an interrupt on one of the device's vectors
 * @sd: the device
 * @vector: 0 (async) .. CXEN_HW_NUM_VECTORS - 1
 *
 * Runs the driver's handler now, in the caller's context, with interrupts
 * disabled. From a task or a softirq (an SQ's run), softirqs it raised
 * (NAPI) run when bottom halves are enabled again on the way out; from a
 * hard interrupt (a CQ's hrtimer), on that interrupt's exit. Call with no
 * model lock held: the driver's handler and NAPI may write registers.
 */
void cxsim_raise_irq(struct cxsim_dev *sd, unsigned int vector)
{
	atomic64_inc(&sd->irqs[vector]);
	if (in_hardirq()) {
		generic_handle_irq_safe(sd->virq[vector]);
		return;
	}
	local_bh_disable();
	generic_handle_irq_safe(sd->virq[vector]);
	local_bh_enable();
}

/**
 * cxsim_async_event() - set bits in ASYNC_CAUSE
 * @sd: the device
 * @bits: CXEN_ASYNC_* bits
 *
 * Raises the async vector when one of @bits was clear. Process context,
 * no model lock held.
 */
void cxsim_async_event(struct cxsim_dev *sd, u32 bits)
{
	u32 old = atomic_fetch_or(bits, &sd->async_cause);

	if (bits & ~old) {
		cxsim_dev_inc(sd, CXSIM_DEV_ASYNC_EVENTS);
		cxsim_raise_irq(sd, CXEN_HW_ASYNC_VECTOR);
	}
}

static int cxsim_irq_init(struct cxsim_dev *sd)
{
	int i, err;

	sd->fwnode = irq_domain_alloc_named_fwnode(CXEN_SIM_DEV_NAME);
	if (!sd->fwnode)
		return -ENOMEM;
	sd->domain = irq_domain_create_linear(sd->fwnode, CXEN_HW_NUM_VECTORS,
					      &cxsim_irq_ops, sd);
	if (!sd->domain) {
		err = -ENOMEM;
		goto err_fwnode;
	}
	for (i = 0; i < CXEN_HW_NUM_VECTORS; i++) {
		sd->virq[i] = irq_create_mapping(sd->domain, i);
		if (!sd->virq[i]) {
			err = -ENOSPC;
			goto err_map;
		}
	}
	return 0;

err_map:
	while (i--)
		irq_dispose_mapping(sd->virq[i]);
	irq_domain_remove(sd->domain);
err_fwnode:
	irq_domain_free_fwnode(sd->fwnode);
	return err;
}

static void cxsim_irq_exit(struct cxsim_dev *sd)
{
	int i;

	for (i = 0; i < CXEN_HW_NUM_VECTORS; i++)
		irq_dispose_mapping(sd->virq[i]);
	irq_domain_remove(sd->domain);
	irq_domain_free_fwnode(sd->fwnode);
}

/* ------------------------------------------------------------------ */
/* Registers                                                           */
/* ------------------------------------------------------------------ */

static u32 cxsim_read32(void *ctx, u32 reg)
{
	struct cxsim_dev *sd = ctx;
	unsigned long flags;
	u32 val = 0;

	if (reg >= CXEN_HW_BAR_SIZE || reg & 3) {
		cxsim_dev_inc(sd, CXSIM_DEV_BAD_REG);
		return ~0u;
	}

	switch (reg) {
	case CXEN_REG_ID:
		return CXEN_HW_ID_MAGIC;
	case CXEN_REG_VERSION:
		return FIELD_PREP(CXEN_VERSION_MAJOR, CXEN_HW_VERSION_MAJOR) |
		       FIELD_PREP(CXEN_VERSION_MINOR, CXEN_HW_VERSION_MINOR);
	case CXEN_REG_ASYNC_CAUSE:
		return atomic_xchg(&sd->async_cause, 0);
	case CXEN_REG_DEV_STATUS:
		return cxsim_dev_status(sd);
	case CXEN_REG_DEV_RESET:
		return 0;	/* write-only */
	case CXEN_REG_SQ_DB:
	case CXEN_REG_CQ_ARM:
		return 0;	/* write-only */
	}

	spin_lock_irqsave(&sd->reg_lock, flags);
	switch (reg) {
	case CXEN_REG_CMD_IN_LO:
		val = sd->cmd_in_lo;
		break;
	case CXEN_REG_CMD_IN_HI:
		val = sd->cmd_in_hi;
		break;
	case CXEN_REG_CMD_OUT_LO:
		val = sd->cmd_out_lo;
		break;
	case CXEN_REG_CMD_OUT_HI:
		val = sd->cmd_out_hi;
		break;
	case CXEN_REG_CMD_MOD:
		val = sd->cmd_mod;
		break;
	case CXEN_REG_CMD_CTRL:
		val = sd->cmd_ctrl;
		break;
	default:
		cxsim_dev_inc(sd, CXSIM_DEV_BAD_REG);
		break;
	}
	spin_unlock_irqrestore(&sd->reg_lock, flags);
	return val;
}

/* CMD_CTRL written: latch the command and start it, unless one is running. */
static void cxsim_cmd_ctrl_write(struct cxsim_dev *sd, u32 val)
{
	unsigned long flags;

	if (!(val & CXEN_CMD_CTRL_GO))
		return;

	spin_lock_irqsave(&sd->reg_lock, flags);
	if (sd->cmd_ctrl & CXEN_CMD_CTRL_GO) {
		spin_unlock_irqrestore(&sd->reg_lock, flags);
		cxsim_dev_inc(sd, CXSIM_DEV_CMD_BUSY);
		return;
	}
	sd->cmd.in_dma = (u64)sd->cmd_in_hi << 32 | sd->cmd_in_lo;
	sd->cmd.out_dma = (u64)sd->cmd_out_hi << 32 | sd->cmd_out_lo;
	sd->cmd.mod = sd->cmd_mod;
	sd->cmd.opcode = FIELD_GET(CXEN_CMD_CTRL_OPCODE, val);
	sd->cmd_ctrl = CXEN_CMD_CTRL_GO |
		       FIELD_PREP(CXEN_CMD_CTRL_OPCODE, sd->cmd.opcode);
	queue_work(sd->cmd_wq, &sd->cmd_work);
	spin_unlock_irqrestore(&sd->reg_lock, flags);
}

static void cxsim_sq_doorbell(struct cxsim_dev *sd, u32 val)
{
	u32 sqn = FIELD_GET(CXEN_SQ_DB_SQN, val);
	struct cxsim_sq *sq = NULL;

	rcu_read_lock();
	if (sqn < CXEN_HW_NUM_SQ)
		sq = rcu_dereference(sd->sq[sqn]);
	if (sq)
		cxsim_sq_kick(sq);
	else
		cxsim_dev_inc(sd, CXSIM_DEV_BAD_DB);
	rcu_read_unlock();
}

static void cxsim_cq_doorbell(struct cxsim_dev *sd, u32 val)
{
	u32 cqn = FIELD_GET(CXEN_CQ_ARM_CQN, val);
	struct cxsim_cq *cq = NULL;

	rcu_read_lock();
	if (cqn < CXEN_HW_NUM_CQ)
		cq = rcu_dereference(sd->cq[cqn]);
	if (cq)
		cxsim_cq_arm(cq);
	else
		cxsim_dev_inc(sd, CXSIM_DEV_BAD_DB);
	rcu_read_unlock();
}

/*
 * Register writes may come from any context, including hard and soft
 * interrupts: latch, queue work, never sleep.
 */
static void cxsim_write32(void *ctx, u32 reg, u32 val)
{
	struct cxsim_dev *sd = ctx;
	unsigned long flags;

	if (reg >= CXEN_HW_BAR_SIZE || reg & 3) {
		cxsim_dev_inc(sd, CXSIM_DEV_BAD_REG);
		return;
	}

	switch (reg) {
	case CXEN_REG_SQ_DB:
		cxsim_sq_doorbell(sd, val);
		return;
	case CXEN_REG_CQ_ARM:
		cxsim_cq_doorbell(sd, val);
		return;
	case CXEN_REG_CMD_CTRL:
		cxsim_cmd_ctrl_write(sd, val);
		return;
	case CXEN_REG_DEV_RESET:
		cxsim_dev_reset_write(sd, val);
		return;
	}

	spin_lock_irqsave(&sd->reg_lock, flags);
	switch (reg) {
	case CXEN_REG_CMD_IN_LO:
		sd->cmd_in_lo = val;
		break;
	case CXEN_REG_CMD_IN_HI:
		sd->cmd_in_hi = val;
		break;
	case CXEN_REG_CMD_OUT_LO:
		sd->cmd_out_lo = val;
		break;
	case CXEN_REG_CMD_OUT_HI:
		sd->cmd_out_hi = val;
		break;
	case CXEN_REG_CMD_MOD:
		sd->cmd_mod = val;
		break;
	default:
		cxsim_dev_inc(sd, CXSIM_DEV_BAD_REG);	/* RO or unknown */
		break;
	}
	spin_unlock_irqrestore(&sd->reg_lock, flags);
}

/* ------------------------------------------------------------------ */
/* Device                                                              */
/* ------------------------------------------------------------------ */

static void cxsim_init_ports(struct cxsim_dev *sd)
{
	/* Locally administered, "CXE" + port: 02:43:58:45:00:0p */
	static const u8 base_mac[ETH_ALEN] = { 0x02, 0x43, 0x58, 0x45, 0, 0 };
	int p, c;

	for (p = 0; p < CXEN_HW_MAX_PORTS; p++) {
		struct cxsim_port *port = &sd->port[p];

		port->sd = sd;
		port->index = p;
		ether_addr_copy(port->mac, base_mac);
		port->mac[ETH_ALEN - 1] = p;
		port->mtu = CXSIM_DEFAULT_MTU;
		port->rx_pause = true;
		port->tx_pause = true;
		port->default_rqn = -1;
		for (c = 0; c < CXSIM_PORT_NCNT; c++)
			atomic64_set(&port->cnt[c], 0);
	}
}

/*
 * The driver may bind, and issue commands, before
 * platform_device_register_full() returns: catch the struct device when
 * it is added to the bus, before any probe, to translate bus addresses.
 */
static int cxsim_bus_notify(struct notifier_block *nb, unsigned long action,
			    void *data)
{
	struct cxsim_dev *sd = container_of(nb, struct cxsim_dev, bus_nb);
	struct device *dev = data;
	struct cxen_mmio_bus *bus;

	if (action != BUS_NOTIFY_ADD_DEVICE ||
	    strcmp(to_platform_device(dev)->name, CXEN_SIM_DEV_NAME))
		return NOTIFY_DONE;
	bus = dev_get_platdata(dev);
	if (bus && bus->ctx == sd && !sd->dma_dev) {
		sd->dma_dev = get_device(dev);
		cxsim_iommu_attach(sd, dev);
	}
	return NOTIFY_DONE;
}

static int cxsim_register_pdev(struct cxsim_dev *sd)
{
	struct platform_device_info info = {
		.name		= CXEN_SIM_DEV_NAME,
		.id		= PLATFORM_DEVID_NONE,
		.num_res	= CXEN_HW_NUM_VECTORS,
		.data		= &sd->bus,
		.size_data	= sizeof(sd->bus),
		.dma_mask	= DMA_BIT_MASK(64),
	};
	struct platform_device *pdev;
	struct resource *res;
	int i, err;

	/* One IRQ resource per vector, index = vector. */
	res = kcalloc(CXEN_HW_NUM_VECTORS, sizeof(*res), GFP_KERNEL);
	if (!res)
		return -ENOMEM;
	for (i = 0; i < CXEN_HW_NUM_VECTORS; i++) {
		res[i].start = sd->virq[i];
		res[i].end = sd->virq[i];
		res[i].flags = IORESOURCE_IRQ;
		res[i].name = CXEN_SIM_DEV_NAME;
	}
	info.res = res;

	/*
	 * The model keeps a reference to the struct device from the moment
	 * it is added: it translates bus addresses for it, and tears its
	 * queues down after the driver has unbound and the device is gone
	 * from the bus.
	 */
	sd->bus_nb.notifier_call = cxsim_bus_notify;
	err = bus_register_notifier(&platform_bus_type, &sd->bus_nb);
	if (err)
		goto out;
	pdev = platform_device_register_full(&info);	/* copies res */
	bus_unregister_notifier(&platform_bus_type, &sd->bus_nb);
	if (IS_ERR(pdev)) {
		err = PTR_ERR(pdev);
		goto out;
	}
	if (WARN_ON(sd->dma_dev != &pdev->dev)) {
		platform_device_unregister(pdev);
		err = -ENODEV;
		goto out;
	}
	sd->pdev = pdev;
out:
	if (err && sd->dma_dev) {
		put_device(sd->dma_dev);
		sd->dma_dev = NULL;
	}
	kfree(res);
	return err;
}

static int __init cxsim_init(void)
{
	struct cxsim_dev *sd;
	int err;

	sd = kzalloc(sizeof(*sd), GFP_KERNEL);
	if (!sd)
		return -ENOMEM;

	spin_lock_init(&sd->reg_lock);
	mutex_init(&sd->cfg_lock);
	INIT_WORK(&sd->cmd_work, cxsim_cmd_work);
	INIT_WORK(&sd->reset_work, cxsim_reset_work);
	sd->bus.ctx = sd;
	sd->bus.read32 = cxsim_read32;
	sd->bus.write32 = cxsim_write32;
	cxsim_init_ports(sd);

	err = -ENOMEM;
	sd->cmd_wq = alloc_ordered_workqueue("cxsim_cmd", 0);
	if (!sd->cmd_wq)
		goto err_free;
	sd->dp_wq = alloc_workqueue("cxsim_dp", 0, 0);
	if (!sd->dp_wq)
		goto err_cmd_wq;

	err = cxsim_irq_init(sd);
	if (err)
		goto err_dp_wq;

	cxsim_debugfs_init(sd);

	err = cxsim_iommu_init(sd);
	if (err)
		goto err_debugfs;

	err = cxsim_register_pdev(sd);
	if (err)
		goto err_iommu;

	cxsim = sd;
	return 0;

err_iommu:
	cxsim_iommu_exit(sd);
err_debugfs:
	cxsim_debugfs_exit(sd);
	cxsim_irq_exit(sd);
err_dp_wq:
	destroy_workqueue(sd->dp_wq);
err_cmd_wq:
	destroy_workqueue(sd->cmd_wq);
err_free:
	mutex_destroy(&sd->cfg_lock);
	kfree(sd);
	return err;
}

static void __exit cxsim_exit(void)
{
	struct cxsim_dev *sd = cxsim;
	int p;

	/* The driver unbinds here, destroying its queues through commands. */
	platform_device_unregister(sd->pdev);

	/* Nothing can write a register any more. */
	flush_workqueue(sd->cmd_wq);
	cxsim_debugfs_exit(sd);
	mutex_lock(&sd->cfg_lock);
	for (p = 0; p < CXEN_HW_MAX_PORTS; p++)
		cxsim_port_filter_reset(&sd->port[p]);
	mutex_unlock(&sd->cfg_lock);
	cxsim_destroy_all(sd);		/* queues; waits for kfree_rcu() */
	destroy_workqueue(sd->dp_wq);
	destroy_workqueue(sd->cmd_wq);
	cxsim_irq_exit(sd);
	put_device(sd->dma_dev);
	cxsim_iommu_exit(sd);	/* after the device: its last unmaps */
	mutex_destroy(&sd->cfg_lock);
	kfree(sd);
}

module_init(cxsim_init);
module_exit(cxsim_exit);

MODULE_DESCRIPTION("cxsim: register/DMA-level model of the cxen NIC");
MODULE_LICENSE("GPL");
MODULE_VERSION(CXEN_PKG_VERSION);
