// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim debugfs: read-only, root-only view of the model's state and
 * counters, in <debugfs>/cxsim/:
 *
 *   dev         "name value" lines: device counters
 *   vectors     "vector virq irqs" table
 *   port0 port1 "name value" lines: state, RSS context, RX filter,
 *               port counters
 *   cqs sqs rqs one header line, then one line per existing queue
 *   fault/      fault injection knobs and counters (cxsim_fault.c)
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "cxsim.h"

static void cxsim_seq_header(struct seq_file *m, const char *first,
			     const char * const *names, int n)
{
	int i;

	seq_puts(m, first);
	for (i = 0; i < n; i++)
		seq_printf(m, " %s", names[i]);
	seq_putc(m, '\n');
}

static void cxsim_seq_u64s(struct seq_file *m, const u64 *cnt, int n)
{
	int i;

	for (i = 0; i < n; i++)
		seq_printf(m, " %llu", READ_ONCE(cnt[i]));
	seq_putc(m, '\n');
}

/* Producer counter in a WQ doorbell record, -1 when unreadable. */
static int cxsim_dbrec_pi(struct cxsim_dev *sd, u64 dbrec)
{
	struct cxen_wq_dbrec *db = cxsim_dma_ptr(sd, dbrec, sizeof(*db));

	if (!db)
		return -1;
	return be32_to_cpu(READ_ONCE(db->pi)) & CXEN_WQ_DBREC_PI;
}

/* Header ring producer counter in an RQ's doorbell record, -1: unreadable. */
static int cxsim_dbrec_hdr_pi(struct cxsim_dev *sd, u64 dbrec)
{
	struct cxen_wq_dbrec *db = cxsim_dma_ptr(sd, dbrec, sizeof(*db));

	if (!db)
		return -1;
	return be32_to_cpu(READ_ONCE(db->hdr_pi)) & CXEN_WQ_DBREC_PI;
}

static int cxsim_dev_show(struct seq_file *m, void *v)
{
	struct cxsim_dev *sd = m->private;
	int i;

	for (i = 0; i < CXSIM_DEV_NCNT; i++)
		seq_printf(m, "%s %lld\n", cxsim_dev_cnt_names[i],
			   atomic64_read(&sd->cnt[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxsim_dev);

static int cxsim_vectors_show(struct seq_file *m, void *v)
{
	struct cxsim_dev *sd = m->private;
	int i;

	seq_puts(m, "vector virq irqs\n");
	for (i = 0; i < CXEN_HW_NUM_VECTORS; i++)
		seq_printf(m, "%d %u %lld\n", i, sd->virq[i],
			   atomic64_read(&sd->irqs[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxsim_vectors);

static int cxsim_port_show(struct seq_file *m, void *v)
{
	struct cxsim_port *port = m->private;
	struct cxsim_dev *sd = port->sd;
	struct cxsim_rx_filter *f;
	struct cxsim_rss *rss;
	int i;

	mutex_lock(&sd->cfg_lock);
	seq_printf(m, "mac %pM\nmtu %u\nadmin_up %d\nlink_up %d\n",
		   port->mac, port->mtu, port->admin_up, port->link_up);
	seq_printf(m, "vlan_strip %d\nloopback %d\n", port->vlan_strip,
		   port->loopback);
	seq_printf(m, "pause_rx %d\npause_tx %d\n", port->rx_pause,
		   port->tx_pause);
	seq_printf(m, "num_rq %u\ndefault_rqn %d\n", port->num_rq,
		   port->default_rqn);
	rss = rcu_dereference_protected(port->rss,
					lockdep_is_held(&sd->cfg_lock));
	if (rss) {
		seq_printf(m, "rss_fields 0x%x\nrss_key %*phN\nrss_table",
			   rss->hash_fields, CXEN_RSS_KEY_SIZE, rss->key);
		for (i = 0; i < CXEN_RSS_TABLE_SIZE; i++)
			seq_printf(m, " %u", rss->rqn[i]);
		seq_putc(m, '\n');
	} else {
		seq_puts(m, "rss_fields none\n");
	}
	f = rcu_dereference_protected(port->filter,
				      lockdep_is_held(&sd->cfg_lock));
	seq_printf(m, "rx_filter_flags 0x%x\nrx_filter_mc_hash 0x%016llx\nrx_filter_uc",
		   f ? f->flags : 0, f ? f->mc_hash : 0);
	for (i = 0; f && i < f->num_uc; i++)
		seq_printf(m, " %pM", f->uc[i]);
	seq_putc(m, '\n');
	mutex_unlock(&sd->cfg_lock);

	for (i = 0; i < CXSIM_PORT_NCNT; i++)
		seq_printf(m, "%s %lld\n", cxsim_port_cnt_names[i],
			   atomic64_read(&port->cnt[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxsim_port);

static int cxsim_cqs_show(struct seq_file *m, void *v)
{
	struct cxsim_dev *sd = m->private;
	int i;

	cxsim_seq_header(m, "cqn vector log_size users prod armed moder_usecs moder_frames",
			 cxsim_cq_cnt_names, CXSIM_CQ_NCNT);
	mutex_lock(&sd->cfg_lock);
	for (i = 0; i < CXEN_HW_NUM_CQ; i++) {
		struct cxsim_cq *cq = rcu_dereference_protected(sd->cq[i],
					lockdep_is_held(&sd->cfg_lock));

		if (!cq)
			continue;
		seq_printf(m, "%u %u %u %u %u %d %u %u", cq->cqn, cq->vector,
			   cq->log_size, cq->users, READ_ONCE(cq->prod),
			   READ_ONCE(cq->armed), READ_ONCE(cq->moder_usecs),
			   READ_ONCE(cq->moder_frames));
		cxsim_seq_u64s(m, cq->cnt, CXSIM_CQ_NCNT);
	}
	mutex_unlock(&sd->cfg_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxsim_cqs);

static int cxsim_sqs_show(struct seq_file *m, void *v)
{
	struct cxsim_dev *sd = m->private;
	int i;

	cxsim_seq_header(m, "sqn port cqn log_size log_stride pi cons error",
			 cxsim_sq_cnt_names, CXSIM_SQ_NCNT);
	mutex_lock(&sd->cfg_lock);
	for (i = 0; i < CXEN_HW_NUM_SQ; i++) {
		struct cxsim_sq *sq = rcu_dereference_protected(sd->sq[i],
					lockdep_is_held(&sd->cfg_lock));

		if (!sq)
			continue;
		seq_printf(m, "%u %u %u %u %u %d %u %d", sq->sqn, sq->port,
			   sq->cq->cqn, sq->log_size, sq->log_stride,
			   cxsim_dbrec_pi(sd, sq->dbrec_dma),
			   READ_ONCE(sq->cons), READ_ONCE(sq->error));
		cxsim_seq_u64s(m, sq->cnt, CXSIM_SQ_NCNT);
	}
	mutex_unlock(&sd->cfg_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxsim_sqs);

/* The fixed columns of the rqs file, before the counters. */
#define CXSIM_RQS_COLUMNS \
	"rqn port cqn log_size log_stride pi cons error rq_flags stride_pos hdr_pi hdr_cons"

static int cxsim_rqs_show(struct seq_file *m, void *v)
{
	struct cxsim_dev *sd = m->private;
	int i;

	cxsim_seq_header(m, CXSIM_RQS_COLUMNS, cxsim_rq_cnt_names,
			 CXSIM_RQ_NCNT);
	mutex_lock(&sd->cfg_lock);
	for (i = 0; i < CXEN_HW_NUM_RQ; i++) {
		struct cxsim_rq *rq = rcu_dereference_protected(sd->rq[i],
					lockdep_is_held(&sd->cfg_lock));

		if (!rq)
			continue;
		seq_printf(m, "%u %u %u %u %u %d %u %d %#x %u %d %u", rq->rqn,
			   rq->port, rq->cq->cqn, rq->log_size, rq->log_stride,
			   cxsim_dbrec_pi(sd, rq->dbrec_dma),
			   READ_ONCE(rq->cons), READ_ONCE(rq->error),
			   rq->rq_flags, READ_ONCE(rq->stride_pos),
			   rq->rq_flags & CXEN_RQ_F_HDR_SPLIT ?
			   cxsim_dbrec_hdr_pi(sd, rq->dbrec_dma) : 0,
			   READ_ONCE(rq->hdr_cons));
		cxsim_seq_u64s(m, rq->cnt, CXSIM_RQ_NCNT);
	}
	mutex_unlock(&sd->cfg_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxsim_rqs);

void cxsim_debugfs_init(struct cxsim_dev *sd)
{
	static const char * const port_names[CXEN_HW_MAX_PORTS] = {
		"port0", "port1",
	};
	struct dentry *dir;
	int p;

	dir = debugfs_create_dir(CXEN_SIM_DEV_NAME, NULL);
	sd->debugfs = dir;
	debugfs_create_file("dev", 0400, dir, sd, &cxsim_dev_fops);
	debugfs_create_file("vectors", 0400, dir, sd, &cxsim_vectors_fops);
	for (p = 0; p < CXEN_HW_MAX_PORTS; p++)
		debugfs_create_file(port_names[p], 0400, dir, &sd->port[p],
				    &cxsim_port_fops);
	debugfs_create_file("cqs", 0400, dir, sd, &cxsim_cqs_fops);
	debugfs_create_file("sqs", 0400, dir, sd, &cxsim_sqs_fops);
	debugfs_create_file("rqs", 0400, dir, sd, &cxsim_rqs_fops);
	cxsim_fault_debugfs_init(sd, dir);
	cxsim_gen_init(sd, dir);
}

void cxsim_debugfs_exit(struct cxsim_dev *sd)
{
	debugfs_remove_recursive(sd->debugfs);
	cxsim_gen_exit(sd);
}
