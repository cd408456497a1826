// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim device health and reset: DEV_STATUS, DEV_RESET (cxen_hw.h) and
 * the knobs that make the device fail as a whole.
 *
 * A halted device (hung, or fatal with a syndrome) executes nothing: the
 * command work leaves GO set, SQ runs return at once (so no frame is sent
 * or received and no CQE written) and no CQ interrupt is raised. Only a
 * reset brings it back: the reset work, on the ordered command workqueue,
 * destroys every queue as cxsim's unload does (each queue unpublished, a
 * grace period, its works waited for), returns the ports to their
 * power-on state and only then sets READY.
 *
 * Knobs, in <debugfs>/cxsim/fault/ (root only):
 *   dev_hang         write 1: the device stops without a word (heartbeat
 *                    frozen, no syndrome, no event); reads 1 while halted
 *   dev_fatal        write a syndrome (1..255): the device stops, reports
 *                    it in DEV_STATUS and raises CXEN_ASYNC_FATAL; reads
 *                    the syndrome
 *   cmd_hang_opcode  the next command with this opcode never completes
 *                    (GO stays set) while the datapath runs on, as a
 *                    firmware stuck in one command; one shot, reads 0
 *                    again once it hit
 *   reset_fail       this many DEV_RESET writes are ignored (READY stays
 *                    clear: the driver's reset times out)
 */
#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/jiffies.h>

#include "cxsim.h"

/* The heartbeat of a running device: time, in CXEN_HW_HEARTBEAT_MS. */
static u16 cxsim_heartbeat_now(void)
{
	return jiffies_to_msecs(jiffies) / CXEN_HW_HEARTBEAT_MS;
}

/**
 * cxsim_halted() - has the device stopped executing?
 * @sd: the device
 *
 * Return: true from a hang or a fatal error until the reset is done.
 */
bool cxsim_halted(struct cxsim_dev *sd)
{
	return READ_ONCE(sd->halted);
}

/* Stop the device; @syndrome 0: silently. */
static void cxsim_halt(struct cxsim_dev *sd, u8 syndrome)
{
	spin_lock_irq(&sd->reg_lock);
	if (!sd->halted) {
		sd->heartbeat = cxsim_heartbeat_now();
		WRITE_ONCE(sd->halted, true);
	}
	if (syndrome)
		sd->syndrome = syndrome;
	spin_unlock_irq(&sd->reg_lock);
	if (syndrome)
		cxsim_async_event(sd, CXEN_ASYNC_FATAL);
}

/**
 * cxsim_dev_status() - the value of DEV_STATUS
 * @sd: the device
 *
 * Return: READY unless a reset is under way, the syndrome, the heartbeat
 * (frozen while halted).
 */
u32 cxsim_dev_status(struct cxsim_dev *sd)
{
	unsigned long flags;
	u32 val;

	spin_lock_irqsave(&sd->reg_lock, flags);
	val = FIELD_PREP(CXEN_DEV_STATUS_SYNDROME, sd->syndrome) |
	      FIELD_PREP(CXEN_DEV_STATUS_HEARTBEAT,
			 sd->halted ? sd->heartbeat : cxsim_heartbeat_now());
	if (!sd->resetting)
		val |= CXEN_DEV_STATUS_READY;
	spin_unlock_irqrestore(&sd->reg_lock, flags);
	return val;
}

/**
 * cxsim_dev_reset_write() - DEV_RESET written
 * @sd: the device
 * @val: the value; only CXEN_DEV_RESET_MAGIC starts a reset
 *
 * Any context: READY clears now, the reset work does the rest. While
 * reset_fail is positive the write is swallowed (READY stays clear).
 */
void cxsim_dev_reset_write(struct cxsim_dev *sd, u32 val)
{
	unsigned long flags;

	if (val != CXEN_DEV_RESET_MAGIC) {
		cxsim_dev_inc(sd, CXSIM_DEV_BAD_REG);
		return;
	}
	spin_lock_irqsave(&sd->reg_lock, flags);
	sd->resetting = true;
	spin_unlock_irqrestore(&sd->reg_lock, flags);
	if (atomic_dec_if_positive(&sd->fault.reset_fail) >= 0) {
		atomic64_inc(&sd->fault.cnt[CXSIM_FAULT_RESET_FAILED]);
		return;
	}
	queue_work(sd->cmd_wq, &sd->reset_work);
}

/* Power-on state of a port; its MAC and counters are kept. */
static void cxsim_port_power_on(struct cxsim_port *port)
{
	WRITE_ONCE(port->admin_up, false);
	WRITE_ONCE(port->link_up, false);
	WRITE_ONCE(port->mtu, CXSIM_DEFAULT_MTU);
	WRITE_ONCE(port->vlan_strip, false);
	WRITE_ONCE(port->loopback, false);
	WRITE_ONCE(port->rx_pause, true);
	WRITE_ONCE(port->tx_pause, true);
	cxsim_port_filter_reset(port);
}

/**
 * cxsim_reset_work() - the device reset
 * @work: &cxsim_dev.reset_work
 *
 * On the ordered command workqueue, so no command runs meanwhile. Every
 * queue is destroyed before READY is set: the driver may free all it gave
 * the device once it reads READY.
 */
void cxsim_reset_work(struct work_struct *work)
{
	struct cxsim_dev *sd = container_of(work, struct cxsim_dev, reset_work);
	int p;

	cxsim_destroy_all(sd);
	mutex_lock(&sd->cfg_lock);
	for (p = 0; p < CXEN_HW_MAX_PORTS; p++)
		cxsim_port_power_on(&sd->port[p]);
	mutex_unlock(&sd->cfg_lock);
	atomic_set(&sd->async_cause, 0);

	spin_lock_irq(&sd->reg_lock);
	sd->cmd_ctrl = 0;
	sd->syndrome = CXEN_SYNDROME_NONE;
	WRITE_ONCE(sd->halted, false);
	sd->resetting = false;
	spin_unlock_irq(&sd->reg_lock);
	cxsim_dev_inc(sd, CXSIM_DEV_RESETS);
}

/**
 * cxsim_fault_cmd_hang() - must this command hang?
 * @sd: the device, its command about to execute
 * @opcode: the command's opcode
 *
 * Return: true, once, for cmd_hang_opcode.
 */
bool cxsim_fault_cmd_hang(struct cxsim_dev *sd, u16 opcode)
{
	struct cxsim_fault *f = &sd->fault;

	if (likely(!opcode || READ_ONCE(f->cmd_hang_opcode) != opcode))
		return false;
	if (cmpxchg(&f->cmd_hang_opcode, opcode, 0) != opcode)
		return false;
	atomic64_inc(&f->cnt[CXSIM_FAULT_CMD_HUNG]);
	return true;
}

/* ------------------------------------------------------------------ */
/* debugfs                                                             */
/* ------------------------------------------------------------------ */

static int cxsim_dev_hang_get(void *data, u64 *val)
{
	*val = cxsim_halted(data);
	return 0;
}

static int cxsim_dev_hang_set(void *data, u64 val)
{
	struct cxsim_dev *sd = data;

	if (val != 1)
		return -EINVAL;
	atomic64_inc(&sd->fault.cnt[CXSIM_FAULT_DEV_HANG]);
	cxsim_halt(sd, CXEN_SYNDROME_NONE);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(cxsim_dev_hang_fops, cxsim_dev_hang_get,
			 cxsim_dev_hang_set, "%llu\n");

static int cxsim_dev_fatal_get(void *data, u64 *val)
{
	*val = FIELD_GET(CXEN_DEV_STATUS_SYNDROME, cxsim_dev_status(data));
	return 0;
}

static int cxsim_dev_fatal_set(void *data, u64 val)
{
	struct cxsim_dev *sd = data;

	if (!val || val > FIELD_MAX(CXEN_DEV_STATUS_SYNDROME))
		return -EINVAL;
	atomic64_inc(&sd->fault.cnt[CXSIM_FAULT_DEV_FATAL]);
	cxsim_halt(sd, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(cxsim_dev_fatal_fops, cxsim_dev_fatal_get,
			 cxsim_dev_fatal_set, "%llu\n");

static int cxsim_cmd_hang_get(void *data, u64 *val)
{
	struct cxsim_dev *sd = data;

	*val = READ_ONCE(sd->fault.cmd_hang_opcode);
	return 0;
}

static int cxsim_cmd_hang_set(void *data, u64 val)
{
	struct cxsim_dev *sd = data;

	if (val > FIELD_MAX(CXEN_CMD_CTRL_OPCODE))
		return -EINVAL;
	WRITE_ONCE(sd->fault.cmd_hang_opcode, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(cxsim_cmd_hang_fops, cxsim_cmd_hang_get,
			 cxsim_cmd_hang_set, "%#llx\n");

static int cxsim_reset_fail_get(void *data, u64 *val)
{
	struct cxsim_dev *sd = data;

	*val = atomic_read(&sd->fault.reset_fail);
	return 0;
}

static int cxsim_reset_fail_set(void *data, u64 val)
{
	struct cxsim_dev *sd = data;

	if (val > INT_MAX)
		return -EINVAL;
	atomic_set(&sd->fault.reset_fail, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(cxsim_reset_fail_fops, cxsim_reset_fail_get,
			 cxsim_reset_fail_set, "%llu\n");

/**
 * cxsim_health_debugfs_init() - the device-failure knobs
 * @sd: the device
 * @dir: <debugfs>/cxsim/fault
 */
void cxsim_health_debugfs_init(struct cxsim_dev *sd, struct dentry *dir)
{
	debugfs_create_file_unsafe("dev_hang", 0600, dir, sd,
				   &cxsim_dev_hang_fops);
	debugfs_create_file_unsafe("dev_fatal", 0600, dir, sd,
				   &cxsim_dev_fatal_fops);
	debugfs_create_file_unsafe("cmd_hang_opcode", 0600, dir, sd,
				   &cxsim_cmd_hang_fops);
	debugfs_create_file_unsafe("reset_fail", 0600, dir, sd,
				   &cxsim_reset_fail_fops);
}
