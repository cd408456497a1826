// SPDX-License-Identifier: GPL-2.0
/*
 * cxen debugfs: /sys/kernel/debug/cxen/<device>-port<N>/, one directory
 * a port, for tests and for whoever debugs the driver. Nothing depends on
 * it: a port without it works the same.
 *
 *   rx_queue_restart  (write) an RX queue index: that queue's RQ is
 *                     rebuilt beside the running one (en_queue.c), as
 *                     the core's netdev_rx_queue_restart() would
 *   rx_layout         (read) the RX buffer layout the port's RQs run, and
 *                     why
 */
#include <linux/debugfs.h>
#include <linux/rtnetlink.h>
#include <linux/seq_file.h>

#include "en.h"

static struct dentry *cxen_dbg_root;

/* rx_queue_restart: write a queue index to rebuild that RX queue. */
static ssize_t cxen_dbg_restart_write(struct file *file,
				      const char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	struct cxen_priv *priv = file->private_data;
	unsigned int idx;
	int err;

	err = kstrtouint_from_user(ubuf, count, 0, &idx);
	if (err)
		return err;
	rtnl_lock();
	err = cxen_rx_queue_restart(priv, idx);
	rtnl_unlock();
	if (err == -ENETDOWN)
		netdev_err(priv->netdev, "rx_queue_restart: no running RX queue %u (the port must be up, with more than %u queues)\n",
			   idx, idx);
	else if (err)
		netdev_err(priv->netdev, "rx_queue_restart: RX queue %u not restarted: %d\n",
			   idx, err);
	return err ?: count;
}

static const struct file_operations cxen_dbg_restart_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.write	= cxen_dbg_restart_write,
	.llseek	= noop_llseek,
};

/*
 * rx_layout: the RX buffer layout the port's RQs run, and why: "named"
 * (a private flag or devlink rx_layout), "auto" (the driver's pick) or
 * "default" (none named, private flag auto off).
 */
static int cxen_dbg_layout_show(struct seq_file *m, void *unused)
{
	struct cxen_priv *priv = m->private;
	struct cxen_params p;

	rtnl_lock();
	p = priv->params;
	rtnl_unlock();
	seq_printf(m, "%s %s\n", cxen_rx_layouts[p.rx_layout].name,
		   p.rx_named != CXEN_RX_PAGEPOOL ? "named" :
		   p.rx_auto ? CXEN_RX_AUTO_NAME : "default");
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxen_dbg_layout);

/**
 * cxen_debugfs_port_add() - a port's debugfs directory
 * @priv: the port
 *
 * Nothing depends on debugfs: a failure leaves the port without it.
 */
void cxen_debugfs_port_add(struct cxen_priv *priv)
{
	char name[64];

	snprintf(name, sizeof(name), "%s-port%u", dev_name(priv->cdev->dev),
		 priv->port);
	priv->dbg_dir = debugfs_create_dir(name, cxen_dbg_root);
	debugfs_create_file("rx_queue_restart", 0200, priv->dbg_dir, priv,
			    &cxen_dbg_restart_fops);
	debugfs_create_file("rx_layout", 0400, priv->dbg_dir, priv,
			    &cxen_dbg_layout_fops);
}

/**
 * cxen_debugfs_port_remove() - remove it, waiting for a write under way
 * @priv: the port; called without RTNL (a write takes it)
 */
void cxen_debugfs_port_remove(struct cxen_priv *priv)
{
	debugfs_remove_recursive(priv->dbg_dir);
	priv->dbg_dir = NULL;
}

/* The driver's directory, /sys/kernel/debug/cxen/, at module load. */
void cxen_debugfs_init(void)
{
	cxen_dbg_root = debugfs_create_dir(KBUILD_MODNAME, NULL);
}

/* ...and its removal at unload, after every port's. */
void cxen_debugfs_exit(void)
{
	debugfs_remove_recursive(cxen_dbg_root);
}
