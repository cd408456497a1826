// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim wire generator: a link partner that sends one frame again and
 * again into a port, as a hardware traffic generator cabled to it would.
 *
 * It measures the receive side alone: the frames enter the port where a
 * frame from the peer's SQ does (cxsim_wire_rx(): MTU check, RX filter,
 * steering, scatter, CQE, interrupt), with no transmitting driver and no
 * SQ engine in front of them. A benchmark of the RX path (bench/
 * xdp_bench.py's XDP_DROP rows) needs a source that is not its
 * bottleneck; pktgen on the peer port pays for the peer's TX path and
 * the model's SQ engine on the same CPUs.
 *
 *   <debugfs>/cxsim/gen/ (root only)
 *     frame   write the frame (raw bytes, 14 ..CXSIM_MAX_WIRE_FRAME, in
 *             one write); reads back its length
 *     port    the port it is cabled to (0 or 1; default 1)
 *     run     write N (1..10^9): send N copies, in the writer's context;
 *             the write returns when all went, or -EINTR on a fatal
 *             signal, -ENOLINK while the port's link is down, -ENODEV
 *             when the device halts. Reads the last run: "frames F ns T"
 *
 * The partner honours PAUSE as the peer port does: with the port's flow
 * control on, a frame that finds its RQ empty waits for a WQE (up to
 * CXEN_HW_PAUSE_STORM_MS), else it is dropped and counted out_of_buffer.
 * The wire's fault knobs do not apply to it (they would change the one
 * frame for every later copy). The receiving driver's interrupts and
 * NAPI run in the writer's context when they fire at a CQE, as they run
 * in the SQ engine's for frames from the peer: pin the writer to choose
 * the CPU.
 */
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/kstrtox.h>
#include <linux/ktime.h>
#include <linux/sched/signal.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cxsim.h"

/* Frames between two looks at signals, the link and the scheduler. */
#define CXSIM_GEN_BATCH		64
#define CXSIM_GEN_MAX_RUN	1000000000ULL

static ssize_t cxsim_gen_frame_write(struct file *file,
				     const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct cxsim_dev *sd = file->private_data;
	struct cxsim_gen *gen = &sd->gen;
	u8 *frame;

	if (*ppos || count < ETH_HLEN || count > CXSIM_MAX_WIRE_FRAME)
		return -EINVAL;
	frame = memdup_user(ubuf, count);
	if (IS_ERR(frame))
		return PTR_ERR(frame);
	mutex_lock(&gen->lock);
	kfree(gen->frame);
	gen->frame = frame;
	gen->len = count;
	mutex_unlock(&gen->lock);
	*ppos = count;
	return count;
}

static ssize_t cxsim_gen_frame_read(struct file *file, char __user *ubuf,
				    size_t count, loff_t *ppos)
{
	struct cxsim_dev *sd = file->private_data;
	char buf[16];
	int n;

	mutex_lock(&sd->gen.lock);
	n = scnprintf(buf, sizeof(buf), "%u\n", sd->gen.len);
	mutex_unlock(&sd->gen.lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations cxsim_gen_frame_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= cxsim_gen_frame_read,
	.write	= cxsim_gen_frame_write,
	.llseek	= default_llseek,
};

/* Send @n copies of the frame into @port. Under gen->lock. */
static int cxsim_gen_run(struct cxsim_dev *sd, struct cxsim_port *port, u64 n)
{
	struct cxsim_gen *gen = &sd->gen;
	u64 sent = 0;
	ktime_t t0;
	int err = 0;

	t0 = ktime_get();
	while (sent < n) {
		u64 i, batch = min_t(u64, n - sent, CXSIM_GEN_BATCH);

		if (fatal_signal_pending(current)) {
			err = -EINTR;
			break;
		}
		if (cxsim_halted(sd)) {
			err = -ENODEV;
			break;
		}
		if (!READ_ONCE(port->link_up)) {
			err = -ENOLINK;
			break;
		}
		for (i = 0; i < batch; i++)
			cxsim_wire_rx(port, gen->frame, gen->len);
		sent += batch;
		cond_resched();
	}
	gen->last_frames = sent;
	gen->last_ns = ktime_to_ns(ktime_sub(ktime_get(), t0));
	return err;
}

static ssize_t cxsim_gen_run_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct cxsim_dev *sd = file->private_data;
	struct cxsim_gen *gen = &sd->gen;
	u32 port;
	u64 n;
	int err;

	err = kstrtou64_from_user(ubuf, count, 0, &n);
	if (err)
		return err;
	if (!n || n > CXSIM_GEN_MAX_RUN)
		return -EINVAL;
	if (mutex_lock_interruptible(&gen->lock))
		return -EINTR;
	/* debugfs writes @port without the lock: checked and used once. */
	port = READ_ONCE(gen->port);
	if (!gen->frame || port >= CXEN_HW_MAX_PORTS)
		err = -EINVAL;
	else
		err = cxsim_gen_run(sd, &sd->port[port], n);
	mutex_unlock(&gen->lock);
	return err ? err : count;
}

static ssize_t cxsim_gen_run_read(struct file *file, char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	struct cxsim_dev *sd = file->private_data;
	char buf[64];
	int n;

	if (mutex_lock_interruptible(&sd->gen.lock))
		return -EINTR;
	n = scnprintf(buf, sizeof(buf), "frames %llu ns %llu\n",
		      sd->gen.last_frames, sd->gen.last_ns);
	mutex_unlock(&sd->gen.lock);
	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations cxsim_gen_run_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= cxsim_gen_run_read,
	.write	= cxsim_gen_run_write,
	.llseek	= default_llseek,
};

/**
 * cxsim_gen_init() - the wire generator's state and debugfs files
 * @sd: the device
 * @parent: the device's debugfs directory
 */
void cxsim_gen_init(struct cxsim_dev *sd, struct dentry *parent)
{
	struct dentry *dir = debugfs_create_dir("gen", parent);

	mutex_init(&sd->gen.lock);
	sd->gen.port = 1;
	debugfs_create_file("frame", 0600, dir, sd, &cxsim_gen_frame_fops);
	debugfs_create_u32("port", 0600, dir, &sd->gen.port);
	debugfs_create_file("run", 0600, dir, sd, &cxsim_gen_run_fops);
}

/**
 * cxsim_gen_exit() - free the generator's frame
 * @sd: the device, its debugfs files gone (no run in progress)
 */
void cxsim_gen_exit(struct cxsim_dev *sd)
{
	kfree(sd->gen.frame);
	sd->gen.frame = NULL;
	mutex_destroy(&sd->gen.lock);
}
