// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim command interface: executes the command latched when the driver
 * wrote CMD_CTRL with GO, on the model's ordered command workqueue, then
 * writes STATUS and clears GO.
 *
 * Every command validates everything before it changes anything, in this
 * order: the input modifier (BAD_PARAM), the input mailbox (BAD_ADDR),
 * the state of the resources it names (BAD_RES, BAD_STATE), the fields of
 * the input (BAD_PARAM, BAD_RES), the bus addresses in it (BAD_ADDR). A
 * command that fails changes nothing.
 */
#include <linux/bitfield.h>
#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "cxsim.h"

#define cxsim_deref(sd, p) \
	rcu_dereference_protected(p, lockdep_is_held(&(sd)->cfg_lock))

static u8 cxsim_mbox_read(struct cxsim_dev *sd, const struct cxsim_cmd *cmd,
			  void *buf, u32 len)
{
	if (!cmd->in_dma || !IS_ALIGNED(cmd->in_dma, 8) ||
	    !cxsim_dma_read(sd, cmd->in_dma, buf, len))
		return CXEN_STAT_BAD_ADDR;
	return CXEN_STAT_OK;
}

static u8 cxsim_mbox_write(struct cxsim_dev *sd, const struct cxsim_cmd *cmd,
			   const void *buf, u32 len)
{
	if (!cmd->out_dma || !IS_ALIGNED(cmd->out_dma, 8) ||
	    !cxsim_dma_write(sd, cmd->out_dma, buf, len))
		return CXEN_STAT_BAD_ADDR;
	return CXEN_STAT_OK;
}

/* A ring: 4 KiB aligned, every byte addressable. */
static bool cxsim_ring_ok(struct cxsim_dev *sd, u64 addr, u64 len)
{
	return IS_ALIGNED(addr, CXSIM_RING_ALIGN) &&
	       cxsim_dma_check(sd, addr, len);
}

/* A doorbell record: 8 bytes, 8-byte aligned, addressable. */
static bool cxsim_dbrec_ok(struct cxsim_dev *sd, u64 addr)
{
	return IS_ALIGNED(addr, 8) && cxsim_dma_check(sd, addr, 8);
}

/* ------------------------------------------------------------------ */
/* Device and ports                                                    */
/* ------------------------------------------------------------------ */

static u8 cxsim_query_dev(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxen_dev_caps caps = {
		.fw_version	= cpu_to_be32(CXSIM_FW_MAJOR << 16 |
					      CXSIM_FW_MINOR),
		.num_ports	= CXEN_HW_MAX_PORTS,
		.max_channels	= CXEN_HW_MAX_CHANNELS,
		.max_rx_segs	= CXEN_HW_RX_MAX_SEGS,
		.log_max_ring	= CXEN_HW_MAX_LOG_RING,
		.log_min_ring	= CXEN_HW_MIN_LOG_RING,
		.rsvd_lkey	= cpu_to_be32(CXSIM_RSVD_LKEY),
		.min_mtu	= cpu_to_be16(CXEN_HW_MIN_MTU),
		.max_mtu	= cpu_to_be16(CXEN_HW_MAX_MTU),
		.num_sq		= cpu_to_be32(CXEN_HW_NUM_SQ),
		.num_rq		= cpu_to_be32(CXEN_HW_NUM_RQ),
		.num_cq		= cpu_to_be32(CXEN_HW_NUM_CQ),
		.num_vectors	= cpu_to_be32(CXEN_HW_NUM_VECTORS),
		.cap_flags	= cpu_to_be32(CXEN_DEV_CAP_STRIDING_RQ |
					      CXEN_DEV_CAP_HDR_SPLIT |
					      CXEN_DEV_CAP_LRO),
		.log_min_stride_bytes = CXEN_HW_MIN_LOG_STRIDE_BYTES,
		.log_max_stride_bytes = CXEN_HW_MAX_LOG_STRIDE_BYTES,
		.log_max_wqe_bytes = CXEN_HW_MAX_LOG_WQE_BYTES,
	};

	/* The serial number: the base of the ports' MAC addresses. */
	snprintf(caps.serial, sizeof(caps.serial), "CX%*phN",
		 ETH_ALEN - 1, sd->port[0].mac);
	return cxsim_mbox_write(sd, cmd, &caps, sizeof(caps));
}

static u8 cxsim_query_port(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxen_port_info info = {};
	struct cxsim_port *port;
	u32 state = 0;

	if (cmd->mod >= CXEN_HW_MAX_PORTS)
		return CXEN_STAT_BAD_PARAM;
	port = &sd->port[cmd->mod];

	if (port->admin_up)
		state |= CXEN_PORT_STATE_ADMIN_UP;
	if (port->link_up)
		state |= CXEN_PORT_STATE_LINK_UP;
	if (port->vlan_strip)
		state |= CXEN_PORT_STATE_VLAN_STRIP;
	if (port->loopback)
		state |= CXEN_PORT_STATE_LOOPBACK;
	if (port->rx_pause)
		state |= CXEN_PORT_STATE_RX_PAUSE;
	if (port->tx_pause)
		state |= CXEN_PORT_STATE_TX_PAUSE;
	memcpy(info.mac, port->mac, ETH_ALEN);
	info.mtu = cpu_to_be16(port->mtu);
	info.state = cpu_to_be32(state);
	info.speed_mbps = cpu_to_be32(port->link_up ? CXEN_HW_SPEED_MBPS : 0);

	return cxsim_mbox_write(sd, cmd, &info, sizeof(info));
}

static u8 cxsim_query_counters(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxen_port_counters out = {};
	__be64 *v = (__be64 *)&out;
	struct cxsim_port *port;
	int i;

	/* The counters are kept in the layout of the output. */
	BUILD_BUG_ON(offsetof(struct cxen_port_counters, rx_csum_bad) !=
		     CXSIM_PORT_RX_CSUM_BAD * sizeof(u64));
	BUILD_BUG_ON(offsetof(struct cxen_port_counters, rx_vlan_stripped) !=
		     CXSIM_PORT_RX_VLAN_STRIPPED * sizeof(u64));
	BUILD_BUG_ON(offsetof(struct cxen_port_counters, rx_pause) !=
		     CXSIM_PORT_RX_PAUSE * sizeof(u64));
	BUILD_BUG_ON(offsetof(struct cxen_port_counters, tx_hist) !=
		     CXSIM_PORT_TX_HIST * sizeof(u64));
	BUILD_BUG_ON(offsetof(struct cxen_port_counters, rx_filtered) !=
		     CXSIM_PORT_RX_FILTERED * sizeof(u64));
	BUILD_BUG_ON(offsetof(struct cxen_port_counters, rx_filtered_bytes) !=
		     CXSIM_PORT_RX_FILTERED_BYTES * sizeof(u64));
	BUILD_BUG_ON(offsetof(struct cxen_port_counters, tx_discarded) !=
		     CXSIM_PORT_TX_DISCARDED * sizeof(u64));
	BUILD_BUG_ON(offsetof(struct cxen_port_counters, rsvd) !=
		     CXSIM_PORT_NCNT * sizeof(u64));
	if (cmd->mod >= CXEN_HW_MAX_PORTS)
		return CXEN_STAT_BAD_PARAM;
	port = &sd->port[cmd->mod];
	for (i = 0; i < CXSIM_PORT_NCNT; i++)
		v[i] = cpu_to_be64(atomic64_read(&port->cnt[i]));
	return cxsim_mbox_write(sd, cmd, &out, sizeof(out));
}

/*
 * The cable: a port's link is up when it is admin up and either in
 * loopback or cabled to a peer that is admin up and not in loopback.
 */
static void cxsim_update_links(struct cxsim_dev *sd, u32 *async)
{
	struct cxsim_port *port, *peer;
	bool link;
	int p;

	BUILD_BUG_ON(CXEN_HW_MAX_PORTS != 2);
	for (p = 0; p < CXEN_HW_MAX_PORTS; p++) {
		port = &sd->port[p];
		peer = &sd->port[p ^ 1];
		link = port->admin_up &&
		       (port->loopback || (peer->admin_up && !peer->loopback));
		if (link != port->link_up) {
			WRITE_ONCE(port->link_up, link);
			*async |= CXEN_ASYNC_PORT_CHANGE(p);
		}
	}
}

static u8 cxsim_set_port(struct cxsim_dev *sd, const struct cxsim_cmd *cmd,
			 u32 *async)
{
	const u32 known = CXEN_PORT_SET_MTU | CXEN_PORT_SET_ADMIN |
			  CXEN_PORT_SET_VLAN_STRIP | CXEN_PORT_SET_LOOPBACK |
			  CXEN_PORT_SET_PAUSE;
	struct cxen_port_set set;
	struct cxsim_port *port;
	u32 valid;
	u16 mtu;
	u8 st;

	if (cmd->mod >= CXEN_HW_MAX_PORTS)
		return CXEN_STAT_BAD_PARAM;
	port = &sd->port[cmd->mod];
	st = cxsim_mbox_read(sd, cmd, &set, sizeof(set));
	if (st)
		return st;

	/* Check everything, then change everything. */
	valid = be32_to_cpu(set.valid);
	if (valid & ~known)
		return CXEN_STAT_BAD_PARAM;
	mtu = be16_to_cpu(set.mtu);
	if ((valid & CXEN_PORT_SET_MTU) &&
	    (mtu < CXEN_HW_MIN_MTU || mtu > CXEN_HW_MAX_MTU))
		return CXEN_STAT_BAD_PARAM;
	if (((valid & CXEN_PORT_SET_ADMIN) && set.admin_up > 1) ||
	    ((valid & CXEN_PORT_SET_VLAN_STRIP) && set.vlan_strip > 1) ||
	    ((valid & CXEN_PORT_SET_LOOPBACK) && set.loopback > 1) ||
	    ((valid & CXEN_PORT_SET_PAUSE) &&
	     (set.rx_pause > 1 || set.tx_pause > 1)))
		return CXEN_STAT_BAD_PARAM;

	if ((valid & CXEN_PORT_SET_MTU) && mtu != port->mtu) {
		bool down = mtu < port->mtu;

		WRITE_ONCE(port->mtu, mtu);
		/*
		 * A frame checked against the old MTU is delivered before
		 * the command completes (cxsim_wire_rx()): after it, every
		 * frame the port accepts fits the new MTU.
		 */
		if (down)
			synchronize_rcu_expedited();
	}
	if (valid & CXEN_PORT_SET_ADMIN)
		port->admin_up = set.admin_up;
	if (valid & CXEN_PORT_SET_VLAN_STRIP)
		WRITE_ONCE(port->vlan_strip, set.vlan_strip);
	if (valid & CXEN_PORT_SET_LOOPBACK)
		WRITE_ONCE(port->loopback, set.loopback);
	if (valid & CXEN_PORT_SET_PAUSE) {
		WRITE_ONCE(port->rx_pause, set.rx_pause);
		WRITE_ONCE(port->tx_pause, set.tx_pause);
	}
	cxsim_update_links(sd, async);
	return CXEN_STAT_OK;
}

/* ------------------------------------------------------------------ */
/* RX filter                                                           */
/* ------------------------------------------------------------------ */

#define CXSIM_RX_FILTER_FLAGS	(CXEN_RX_FILTER_PROMISC | \
				 CXEN_RX_FILTER_ALLMULTI | \
				 CXEN_RX_FILTER_UC_PROMISC)

/**
 * cxsim_port_filter_reset() - the RX filter's power-on state
 * @port: the port, cfg_lock held
 *
 * No entry, no flag: the port accepts nothing but broadcast.
 */
void cxsim_port_filter_reset(struct cxsim_port *port)
{
	struct cxsim_rx_filter *old;

	old = rcu_replace_pointer(port->filter, NULL,
				  lockdep_is_held(&port->sd->cfg_lock));
	if (old)
		kfree_rcu(old, rcu);
}

static u8 cxsim_set_rx_filter(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxsim_rx_filter *f, *old;
	struct cxen_rx_filter *in;
	struct cxsim_port *port;
	unsigned int i;
	u8 st;

	if (cmd->mod >= CXEN_HW_MAX_PORTS)
		return CXEN_STAT_BAD_PARAM;
	port = &sd->port[cmd->mod];

	in = kmalloc(sizeof(*in), GFP_KERNEL);
	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!in || !f) {
		st = CXEN_STAT_INTERNAL;
		goto out;
	}
	st = cxsim_mbox_read(sd, cmd, in, sizeof(*in));
	if (st)
		goto out;

	/* A table entry names one station: a group address is refused. */
	st = CXEN_STAT_BAD_PARAM;
	f->flags = be32_to_cpu(in->flags);
	if ((f->flags & ~CXSIM_RX_FILTER_FLAGS) ||
	    in->num_uc > CXEN_HW_RX_UC_ENTRIES)
		goto out;
	for (i = 0; i < in->num_uc; i++) {
		if (is_multicast_ether_addr(in->uc[i].mac))
			goto out;
		ether_addr_copy(f->uc[i], in->uc[i].mac);
	}
	f->num_uc = in->num_uc;
	f->mc_hash = be64_to_cpu(in->mc_hash);

	old = rcu_replace_pointer(port->filter, f,
				  lockdep_is_held(&sd->cfg_lock));
	if (old)
		kfree_rcu(old, rcu);
	f = NULL;
	st = CXEN_STAT_OK;
out:
	kfree(f);
	kfree(in);
	return st;
}

/* ------------------------------------------------------------------ */
/* Completion queues                                                   */
/* ------------------------------------------------------------------ */

static u8 cxsim_create_cq(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxen_cq_ctx ctx;
	struct cxsim_cq *cq;
	u64 ring, dbrec;
	u32 cqn = cmd->mod;
	u16 vector;
	u8 st;

	if (cqn >= CXEN_HW_NUM_CQ)
		return CXEN_STAT_BAD_PARAM;
	st = cxsim_mbox_read(sd, cmd, &ctx, sizeof(ctx));
	if (st)
		return st;
	if (cxsim_deref(sd, sd->cq[cqn]))
		return CXEN_STAT_BAD_RES;

	vector = be16_to_cpu(ctx.vector);
	if (ctx.log_size < CXEN_HW_MIN_LOG_RING ||
	    ctx.log_size > CXEN_HW_MAX_LOG_RING ||
	    vector == CXEN_HW_ASYNC_VECTOR || vector >= CXEN_HW_NUM_VECTORS ||
	    be16_to_cpu(ctx.moder_usecs) > CXEN_HW_MAX_MODER_USECS ||
	    be16_to_cpu(ctx.moder_frames) > CXEN_HW_MAX_MODER_FRAMES)
		return CXEN_STAT_BAD_PARAM;
	ring = be64_to_cpu(ctx.ring_dma);
	dbrec = be64_to_cpu(ctx.dbrec_dma);
	if (!cxsim_ring_ok(sd, ring, sizeof(struct cxen_cqe) << ctx.log_size) ||
	    !cxsim_dbrec_ok(sd, dbrec))
		return CXEN_STAT_BAD_ADDR;

	cq = kzalloc(sizeof(*cq), GFP_KERNEL);
	if (!cq)
		return CXEN_STAT_INTERNAL;
	cq->sd = sd;
	cq->cqn = cqn;
	cq->ring_dma = ring;
	cq->dbrec_dma = dbrec;
	cq->log_size = ctx.log_size;
	cq->vector = vector;
	cq->moder_usecs = be16_to_cpu(ctx.moder_usecs);
	cq->moder_frames = be16_to_cpu(ctx.moder_frames);
	spin_lock_init(&cq->lock);
	INIT_WORK(&cq->irq_work, cxsim_cq_irq_work);
	hrtimer_init(&cq->moder_timer, CLOCK_MONOTONIC, HRTIMER_MODE_REL_HARD);
	cq->moder_timer.function = cxsim_cq_moder_timer;
	rcu_assign_pointer(sd->cq[cqn], cq);
	return CXEN_STAT_OK;
}

static u8 cxsim_modify_cq(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxen_cq_moder in;
	u16 usecs, frames;
	struct cxsim_cq *cq;
	unsigned long flags;
	u8 st;

	if (cmd->mod >= CXEN_HW_NUM_CQ)
		return CXEN_STAT_BAD_PARAM;
	st = cxsim_mbox_read(sd, cmd, &in, sizeof(in));
	if (st)
		return st;
	cq = cxsim_deref(sd, sd->cq[cmd->mod]);
	if (!cq)
		return CXEN_STAT_BAD_RES;
	usecs = be16_to_cpu(in.moder_usecs);
	frames = be16_to_cpu(in.moder_frames);
	if (usecs > CXEN_HW_MAX_MODER_USECS || frames > CXEN_HW_MAX_MODER_FRAMES)
		return CXEN_STAT_BAD_PARAM;

	spin_lock_irqsave(&cq->lock, flags);
	cq->moder_usecs = usecs;
	cq->moder_frames = frames;
	cq->cnt[CXSIM_CQ_MODIFIED]++;
	spin_unlock_irqrestore(&cq->lock, flags);
	return CXEN_STAT_OK;
}

/*
 * The commands' grace periods are expedited: a device's command takes
 * microseconds, and a driver may hold a queue's traffic across a few of
 * them, as long as its peer's TCP waits for an ACK.
 */
static void cxsim_free_cq(struct cxsim_dev *sd, struct cxsim_cq *cq)
{
	int p;

	/* No flow waits for it any more (cxsim_flow_wait()). */
	for (p = 0; p < CXEN_HW_MAX_PORTS; p++)
		cxsim_flow_forget(&sd->port[p], cq->cqn);
	RCU_INIT_POINTER(sd->cq[cq->cqn], NULL);
	synchronize_rcu_expedited();	/* no CQ_ARM trap sees it any more */
	hrtimer_cancel(&cq->moder_timer);
	cancel_work_sync(&cq->irq_work);
	kfree(cq);
}

static u8 cxsim_destroy_cq(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxsim_cq *cq;

	if (cmd->mod >= CXEN_HW_NUM_CQ)
		return CXEN_STAT_BAD_PARAM;
	cq = cxsim_deref(sd, sd->cq[cmd->mod]);
	if (!cq)
		return CXEN_STAT_BAD_RES;
	if (cq->users)
		return CXEN_STAT_BAD_STATE;
	cxsim_free_cq(sd, cq);
	return CXEN_STAT_OK;
}

/* ------------------------------------------------------------------ */
/* Work queues                                                         */
/* ------------------------------------------------------------------ */

struct cxsim_wq_args {
	struct cxsim_cq *cq;
	u64 ring;
	u64 dbrec;
	u8 port;
	u8 log_size;
	u8 log_stride;
};

/*
 * Validate a cxen_wq_ctx for an SQ (@sq) or an RQ; a striding RQ's WQEs
 * may be larger (@striding).
 */
static u8 cxsim_wq_parse(struct cxsim_dev *sd, const struct cxen_wq_ctx *ctx,
			 bool sq, bool striding, struct cxsim_wq_args *a)
{
	u8 min_stride = sq ? CXEN_HW_SQ_MIN_LOG_STRIDE :
			     CXEN_HW_RQ_MIN_LOG_STRIDE;
	u8 max_stride = sq ? CXEN_HW_SQ_MAX_LOG_STRIDE :
			striding ? CXEN_HW_RQ_MAX_LOG_STRIDE_STRIDING :
			CXEN_HW_RQ_MAX_LOG_STRIDE;
	u32 cqn = be32_to_cpu(ctx->cqn);

	if (cqn >= CXEN_HW_NUM_CQ || ctx->port >= CXEN_HW_MAX_PORTS ||
	    ctx->log_size < CXEN_HW_MIN_LOG_RING ||
	    ctx->log_size > CXEN_HW_MAX_LOG_RING ||
	    ctx->log_stride < min_stride || ctx->log_stride > max_stride)
		return CXEN_STAT_BAD_PARAM;
	a->cq = cxsim_deref(sd, sd->cq[cqn]);
	if (!a->cq)
		return CXEN_STAT_BAD_RES;
	a->ring = be64_to_cpu(ctx->ring_dma);
	a->dbrec = be64_to_cpu(ctx->dbrec_dma);
	if (!cxsim_ring_ok(sd, a->ring,
			   (u64)1 << (ctx->log_size + ctx->log_stride)) ||
	    !cxsim_dbrec_ok(sd, a->dbrec))
		return CXEN_STAT_BAD_ADDR;
	a->port = ctx->port;
	a->log_size = ctx->log_size;
	a->log_stride = ctx->log_stride;
	return CXEN_STAT_OK;
}

static void cxsim_free_sq_mem(struct cxsim_sq *sq)
{
	kfree(sq->park);
	kvfree(sq->seg);
	kvfree(sq->buf);
	kfree(sq->wqe);
	kfree(sq);
}

static u8 cxsim_create_sq(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxsim_wq_args a;
	struct cxen_wq_ctx ctx;
	struct cxsim_sq *sq;
	u32 sqn = cmd->mod;
	u8 st;

	if (sqn >= CXEN_HW_NUM_SQ)
		return CXEN_STAT_BAD_PARAM;
	st = cxsim_mbox_read(sd, cmd, &ctx, sizeof(ctx));
	if (st)
		return st;
	if (cxsim_deref(sd, sd->sq[sqn]))
		return CXEN_STAT_BAD_RES;
	st = cxsim_wq_parse(sd, &ctx, true, false, &a);
	if (st)
		return st;

	sq = kzalloc(sizeof(*sq), GFP_KERNEL);
	if (!sq)
		return CXEN_STAT_INTERNAL;
	sq->wqe = kmalloc(1 << CXEN_HW_SQ_MAX_LOG_STRIDE, GFP_KERNEL);
	sq->buf = kvmalloc(CXSIM_TX_HEADROOM + CXSIM_TX_MAX_GATHER, GFP_KERNEL);
	sq->seg = kvmalloc(CXSIM_SEG_BUF, GFP_KERNEL);
	sq->park = cxsim_sq_park_alloc();
	if (!sq->wqe || !sq->buf || !sq->seg || !sq->park) {
		cxsim_free_sq_mem(sq);
		return CXEN_STAT_INTERNAL;
	}
	sq->sd = sd;
	sq->cq = a.cq;
	sq->ring_dma = a.ring;
	sq->dbrec_dma = a.dbrec;
	sq->sqn = sqn;
	sq->port = a.port;
	sq->log_size = a.log_size;
	sq->log_stride = a.log_stride;
	INIT_WORK(&sq->work, cxsim_sq_work);
	a.cq->users++;
	rcu_assign_pointer(sd->sq[sqn], sq);
	return CXEN_STAT_OK;
}

static void cxsim_free_sq(struct cxsim_dev *sd, struct cxsim_sq *sq)
{
	WRITE_ONCE(sq->dead, true);
	RCU_INIT_POINTER(sd->sq[sq->sqn], NULL);
	synchronize_rcu_expedited();	/* no SQ_DB trap sees it any more */
	cxsim_sq_lock(sq);		/* and its last run is over */
	cxsim_sq_unlock(sq);
	/* A hung queue stays hung until the driver resets it: this one. */
	cmpxchg(&sd->fault.stall_sqn, (int)sq->sqn, -1);
	sq->cq->users--;
	cxsim_free_sq_mem(sq);
}

static u8 cxsim_destroy_sq(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxsim_sq *sq;

	if (cmd->mod >= CXEN_HW_NUM_SQ)
		return CXEN_STAT_BAD_PARAM;
	sq = cxsim_deref(sd, sd->sq[cmd->mod]);
	if (!sq)
		return CXEN_STAT_BAD_RES;
	cxsim_free_sq(sd, sq);
	return CXEN_STAT_OK;
}

/* The producer counter in a queue's doorbell record, 0 if unreadable. */
static u16 cxsim_wq_pi(struct cxsim_dev *sd, u64 dbrec_dma)
{
	struct cxen_wq_dbrec *db = cxsim_dma_ptr(sd, dbrec_dma, sizeof(*db));

	return db ? be32_to_cpu(READ_ONCE(db->pi)) & CXEN_WQ_DBREC_PI : 0;
}

/*
 * The SQ's state belongs to its work, which may be running: a snapshot,
 * each field read once, is what a diagnostic query needs.
 */
static u8 cxsim_query_sq(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxen_wq_state out = {};
	struct cxsim_sq *sq;

	if (cmd->mod >= CXEN_HW_NUM_SQ)
		return CXEN_STAT_BAD_PARAM;
	sq = cxsim_deref(sd, sd->sq[cmd->mod]);
	if (!sq)
		return CXEN_STAT_BAD_RES;
	out.flags = cpu_to_be32((READ_ONCE(sq->error) ? CXEN_WQ_STATE_ERROR : 0) |
				(READ_ONCE(sq->stopped) ? CXEN_WQ_STATE_RESET : 0));
	out.cons = cpu_to_be16(READ_ONCE(sq->cons));
	out.pi = cpu_to_be16(cxsim_wq_pi(sd, sq->dbrec_dma));
	out.cqn = cpu_to_be32(sq->cq->cqn);
	out.wqes = cpu_to_be64(READ_ONCE(sq->cnt[CXSIM_SQ_WQES]));
	out.frames = cpu_to_be64(READ_ONCE(sq->cnt[CXSIM_SQ_FRAMES]));
	out.bytes = cpu_to_be64(READ_ONCE(sq->cnt[CXSIM_SQ_BYTES]));
	out.drops = cpu_to_be64(READ_ONCE(sq->cnt[CXSIM_SQ_OVERSIZE]) +
				READ_ONCE(sq->cnt[CXSIM_SQ_LINK_DOWN]));
	out.error_cqes = cpu_to_be64(READ_ONCE(sq->cnt[CXSIM_SQ_ERROR_CQES]));
	out.flushed = cpu_to_be64(READ_ONCE(sq->cnt[CXSIM_SQ_FLUSHED]));
	return cxsim_mbox_write(sd, cmd, &out, sizeof(out));
}

static u8 cxsim_query_rq(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxen_wq_state out = {};
	struct cxsim_rq *rq;

	if (cmd->mod >= CXEN_HW_NUM_RQ)
		return CXEN_STAT_BAD_PARAM;
	rq = cxsim_deref(sd, sd->rq[cmd->mod]);
	if (!rq)
		return CXEN_STAT_BAD_RES;
	spin_lock_bh(&rq->lock);
	out.flags = cpu_to_be32((rq->error ? CXEN_WQ_STATE_ERROR : 0) |
				(rq->stopped ? CXEN_WQ_STATE_RESET : 0));
	out.cons = cpu_to_be16(rq->cons);
	out.hdr_cons = cpu_to_be16(rq->hdr_cons);
	out.stride_pos = cpu_to_be16(rq->stride_pos);
	out.wqes = cpu_to_be64(rq->cnt[CXSIM_RQ_WQES]);
	out.frames = cpu_to_be64(rq->cnt[CXSIM_RQ_FRAMES]);
	out.bytes = cpu_to_be64(rq->cnt[CXSIM_RQ_BYTES]);
	out.drops = cpu_to_be64(rq->cnt[CXSIM_RQ_OUT_OF_BUFFER] +
				rq->cnt[CXSIM_RQ_CQ_OVERRUN]);
	out.error_cqes = cpu_to_be64(rq->cnt[CXSIM_RQ_ERROR_CQES]);
	out.flushed = cpu_to_be64(rq->cnt[CXSIM_RQ_FLUSHED]);
	spin_unlock_bh(&rq->lock);
	out.pi = cpu_to_be16(cxsim_wq_pi(sd, rq->dbrec_dma));
	out.cqn = cpu_to_be32(rq->cq->cqn);
	return cxsim_mbox_write(sd, cmd, &out, sizeof(out));
}

/* The state MODIFY_SQ/RQ asks for, or -1 when the input is unreadable/bad. */
static int cxsim_wq_modify_state(struct cxsim_dev *sd,
				 const struct cxsim_cmd *cmd, u8 *st)
{
	struct cxen_wq_modify in;
	u32 state;

	*st = cxsim_mbox_read(sd, cmd, &in, sizeof(in));
	if (*st)
		return -1;
	state = be32_to_cpu(in.state);
	if (state != CXEN_WQ_RST && state != CXEN_WQ_RDY) {
		*st = CXEN_STAT_BAD_PARAM;
		return -1;
	}
	return state;
}

/*
 * RST: nothing of the SQ runs once this returns (its work is idle and
 * will not run again until RDY), and a stall on it is over: a reset cures
 * the hang. RDY: it starts over at WQE 0.
 */
static u8 cxsim_modify_sq(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxsim_sq *sq;
	int state;
	u8 st;

	if (cmd->mod >= CXEN_HW_NUM_SQ)
		return CXEN_STAT_BAD_PARAM;
	state = cxsim_wq_modify_state(sd, cmd, &st);
	if (state < 0)
		return st;
	sq = cxsim_deref(sd, sd->sq[cmd->mod]);
	if (!sq)
		return CXEN_STAT_BAD_RES;
	if (state == CXEN_WQ_RST) {
		/* Again from RST too: a reset whose RDY failed is retried. */
		WRITE_ONCE(sq->stopped, true);
		/* A run in flight sees it at its next wait, and ends. */
		cxsim_sq_lock(sq);
		cxsim_sq_unlock(sq);
		cmpxchg(&sd->fault.stall_sqn, (int)sq->sqn, -1);
		return CXEN_STAT_OK;
	}
	if (!sq->stopped)
		return CXEN_STAT_BAD_STATE;
	/* A run the next doorbell starts reads these. */
	cxsim_sq_lock(sq);
	sq->cons = 0;
	sq->error = false;
	WRITE_ONCE(sq->stopped, false);
	cxsim_sq_unlock(sq);
	return CXEN_STAT_OK;
}

/*
 * Frames are delivered under the RQ's lock: once RST took it, none is in
 * flight and none will be until RDY. An LRO merge RST finds open ends
 * with its CQE, its segments delivered.
 */
static u8 cxsim_modify_rq(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxsim_rq *rq;
	int state;
	u8 st;

	if (cmd->mod >= CXEN_HW_NUM_RQ)
		return CXEN_STAT_BAD_PARAM;
	state = cxsim_wq_modify_state(sd, cmd, &st);
	if (state < 0)
		return st;
	rq = cxsim_deref(sd, sd->rq[cmd->mod]);
	if (!rq)
		return CXEN_STAT_BAD_RES;
	st = CXEN_STAT_OK;
	spin_lock_bh(&rq->lock);
	if (state == CXEN_WQ_RST) {
		rq->stopped = true;
	} else if (!rq->stopped) {
		st = CXEN_STAT_BAD_STATE;
	} else {
		rq->stopped = false;
		rq->error = false;
		rq->pause_storm = false;
		rq->cons = 0;
		rq->stride_pos = 0;
		rq->wqe_valid = false;
		rq->hdr_cons = 0;
	}
	spin_unlock_bh(&rq->lock);
	/* Stopped, it merges no more: a merge open gets its CQE now. */
	if (state == CXEN_WQ_RST)
		cxsim_rq_end_merge(rq);
	return st;
}

/*
 * Steering without an RSS context: every frame of the port goes to its
 * lowest-numbered RQ. A port whose last RQ goes away loses its context.
 */
static void cxsim_port_rqs_changed(struct cxsim_dev *sd,
				   struct cxsim_port *port)
{
	struct cxsim_rss *rss;
	int rqn, def = -1;

	for (rqn = 0; rqn < CXEN_HW_NUM_RQ; rqn++) {
		struct cxsim_rq *rq = cxsim_deref(sd, sd->rq[rqn]);

		if (rq && rq->port == port->index) {
			def = rqn;
			break;
		}
	}
	WRITE_ONCE(port->default_rqn, def);

	if (!port->num_rq) {
		rss = rcu_replace_pointer(port->rss, NULL,
					  lockdep_is_held(&sd->cfg_lock));
		if (rss)
			kfree_rcu(rss, rcu);
	}
}

#define CXSIM_RQ_FLAGS		(CXEN_RQ_F_STRIDING | CXEN_RQ_F_HDR_SPLIT | \
				 CXEN_RQ_F_LRO)

/*
 * The striding fields of CREATE_RQ (CXEN_RQ_F_STRIDING): page and stride
 * sizes in range, the stride no larger than the page, the WQE (pages of
 * 1 << (log_stride - 4) segments) no larger than 256 KiB, the pads in
 * range. Return: 0 or BAD_PARAM.
 */
static u8 cxsim_rq_stride_parse(const struct cxen_rq_ctx *ctx)
{
	if (ctx->log_page_bytes < CXEN_HW_MIN_LOG_PAGE_BYTES ||
	    ctx->log_page_bytes > CXEN_HW_MAX_LOG_PAGE_BYTES ||
	    ctx->log_stride_bytes < CXEN_HW_MIN_LOG_STRIDE_BYTES ||
	    ctx->log_stride_bytes > CXEN_HW_MAX_LOG_STRIDE_BYTES ||
	    ctx->log_stride_bytes > ctx->log_page_bytes ||
	    ctx->wq.log_stride < CXEN_HW_RQ_MIN_LOG_STRIDE ||
	    ctx->wq.log_stride > CXEN_HW_RQ_MAX_LOG_STRIDE_STRIDING ||
	    ctx->wq.log_stride - 4 + ctx->log_page_bytes >
	    CXEN_HW_MAX_LOG_WQE_BYTES ||
	    be16_to_cpu(ctx->headroom) > CXEN_HW_MAX_RX_PAD ||
	    be16_to_cpu(ctx->tailroom) > CXEN_HW_MAX_RX_PAD)
		return CXEN_STAT_BAD_PARAM;
	return CXEN_STAT_OK;
}

/* The parameters CREATE_RQ's flags select, once all were checked. */
static void cxsim_rq_set_ext(struct cxsim_rq *rq, const struct cxen_rq_ctx *ctx)
{
	rq->rq_flags = ctx->wq.rq_flags;
	if (rq->rq_flags & CXEN_RQ_F_STRIDING) {
		rq->log_stride_bytes = ctx->log_stride_bytes;
		rq->log_page_bytes = ctx->log_page_bytes;
		rq->headroom = be16_to_cpu(ctx->headroom);
		rq->tailroom = be16_to_cpu(ctx->tailroom);
		rq->strides = 1u << (ctx->wq.log_stride - 4 +
				     ctx->log_page_bytes -
				     ctx->log_stride_bytes);
	}
	if (rq->rq_flags & CXEN_RQ_F_HDR_SPLIT) {
		rq->hdr_ring_dma = be64_to_cpu(ctx->hdr_ring_dma);
		rq->log_hdr_size = ctx->log_hdr_size;
		rq->split_min = be16_to_cpu(ctx->split_min);
	}
}

static u8 cxsim_create_rq(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxsim_wq_args a;
	struct cxsim_port *port;
	struct cxen_rq_ctx ctx;
	struct cxsim_rq *rq;
	u32 rqn = cmd->mod;
	bool striding;
	u8 st;

	if (rqn >= CXEN_HW_NUM_RQ)
		return CXEN_STAT_BAD_PARAM;
	st = cxsim_mbox_read(sd, cmd, &ctx, sizeof(ctx));
	if (st)
		return st;
	if (cxsim_deref(sd, sd->rq[rqn]))
		return CXEN_STAT_BAD_RES;

	/* rq_flags 0: the fields after ctx.wq are not looked at. */
	if (ctx.wq.rq_flags & ~CXSIM_RQ_FLAGS)
		return CXEN_STAT_BAD_PARAM;
	striding = ctx.wq.rq_flags & CXEN_RQ_F_STRIDING;
	/* LRO merges into a striding WQE, never with split headers. */
	if ((ctx.wq.rq_flags & CXEN_RQ_F_LRO) &&
	    (!striding || (ctx.wq.rq_flags & CXEN_RQ_F_HDR_SPLIT)))
		return CXEN_STAT_BAD_PARAM;
	if (striding) {
		st = cxsim_rq_stride_parse(&ctx);
		if (st)
			return st;
	}
	if ((ctx.wq.rq_flags & CXEN_RQ_F_HDR_SPLIT) &&
	    (ctx.log_hdr_size < CXEN_HW_MIN_LOG_RING ||
	     ctx.log_hdr_size > CXEN_HW_MAX_LOG_RING))
		return CXEN_STAT_BAD_PARAM;
	st = cxsim_wq_parse(sd, &ctx.wq, false, striding, &a);
	if (st)
		return st;
	if ((ctx.wq.rq_flags & CXEN_RQ_F_HDR_SPLIT) &&
	    !cxsim_ring_ok(sd, be64_to_cpu(ctx.hdr_ring_dma),
			   sizeof(struct cxen_data_seg) << ctx.log_hdr_size))
		return CXEN_STAT_BAD_ADDR;

	rq = kzalloc(sizeof(*rq), GFP_KERNEL);
	if (!rq)
		return CXEN_STAT_INTERNAL;
	rq->sd = sd;
	rq->cq = a.cq;
	rq->ring_dma = a.ring;
	rq->dbrec_dma = a.dbrec;
	rq->rqn = rqn;
	rq->port = a.port;
	rq->log_size = a.log_size;
	rq->log_stride = a.log_stride;
	cxsim_rq_set_ext(rq, &ctx);
	spin_lock_init(&rq->lock);
	a.cq->users++;
	rcu_assign_pointer(sd->rq[rqn], rq);
	port = &sd->port[rq->port];
	port->num_rq++;
	cxsim_port_rqs_changed(sd, port);
	return CXEN_STAT_OK;
}

/*
 * Frames are delivered under the RQ's lock: once the destroy took it, the
 * last of them is in the RQ, with its CQE; a frame steered to it before
 * it was unpublished finds it dead and is steered again. An LRO merge
 * still open gets its CQE: the driver reaps the CQ. No grace period: the
 * memory goes after one.
 */
static void cxsim_free_rq(struct cxsim_dev *sd, struct cxsim_rq *rq)
{
	struct cxsim_port *port = &sd->port[rq->port];

	RCU_INIT_POINTER(sd->rq[rq->rqn], NULL);
	port->num_rq--;
	cxsim_port_rqs_changed(sd, port);
	spin_lock_bh(&rq->lock);
	rq->dead = true;
	spin_unlock_bh(&rq->lock);
	cxsim_rq_end_merge(rq);
	rq->cq->users--;
	kfree_rcu(rq, rcu);
}

static u8 cxsim_destroy_rq(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxsim_rq *rq;

	if (cmd->mod >= CXEN_HW_NUM_RQ)
		return CXEN_STAT_BAD_PARAM;
	rq = cxsim_deref(sd, sd->rq[cmd->mod]);
	if (!rq)
		return CXEN_STAT_BAD_RES;
	cxsim_free_rq(sd, rq);
	return CXEN_STAT_OK;
}

/* ------------------------------------------------------------------ */
/* RSS                                                                 */
/* ------------------------------------------------------------------ */

#define CXSIM_RSS_FIELDS	(CXEN_RSS_HASH_IPV4 | CXEN_RSS_HASH_IPV6 | \
				 CXEN_RSS_HASH_TCP | CXEN_RSS_HASH_UDP)

static u8 cxsim_set_rss(struct cxsim_dev *sd, const struct cxsim_cmd *cmd)
{
	struct cxsim_rss *rss, *old;
	struct cxen_rss_ctx *ctx;
	struct cxsim_port *port;
	u32 fields, rqn;
	u8 st;
	int i;

	if (cmd->mod >= CXEN_HW_MAX_PORTS)
		return CXEN_STAT_BAD_PARAM;
	port = &sd->port[cmd->mod];

	ctx = kmalloc(sizeof(*ctx), GFP_KERNEL);
	rss = kzalloc(sizeof(*rss), GFP_KERNEL);
	if (!ctx || !rss) {
		st = CXEN_STAT_INTERNAL;
		goto out;
	}
	st = cxsim_mbox_read(sd, cmd, ctx, sizeof(*ctx));
	if (st)
		goto out;

	st = CXEN_STAT_BAD_PARAM;
	fields = be32_to_cpu(ctx->hash_fields);
	if (fields & ~CXSIM_RSS_FIELDS)
		goto out;
	for (i = 0; i < CXEN_RSS_TABLE_SIZE; i++) {
		rqn = be32_to_cpu(ctx->rqn[i]);
		if (rqn >= CXEN_HW_NUM_RQ)
			goto out;
		rss->rqn[i] = rqn;
	}
	st = CXEN_STAT_BAD_RES;
	for (i = 0; i < CXEN_RSS_TABLE_SIZE; i++) {
		struct cxsim_rq *rq = cxsim_deref(sd, sd->rq[rss->rqn[i]]);

		if (!rq || rq->port != port->index)
			goto out;
	}

	rss->hash_fields = fields;
	memcpy(rss->key, ctx->key, CXEN_RSS_KEY_SIZE);
	old = rcu_replace_pointer(port->rss, rss,
				  lockdep_is_held(&sd->cfg_lock));
	/*
	 * No grace period: a frame the old context steered may reach its RQ
	 * after the command completes. When that RQ is destroyed first, the
	 * frame is steered again (cxsim_free_rq(), cxsim_rx_steer()), and
	 * a flow's frames the new context steers elsewhere wait for the
	 * ones before them (cxsim_flow_wait()): none is lost or overtaken.
	 */
	kfree_rcu(old, rcu);
	rss = NULL;
	st = CXEN_STAT_OK;
out:
	kfree(rss);
	kfree(ctx);
	return st;
}

/* ------------------------------------------------------------------ */
/* Execution                                                           */
/* ------------------------------------------------------------------ */

static u8 cxsim_cmd_exec(struct cxsim_dev *sd, const struct cxsim_cmd *cmd,
			 u32 *async)
{
	switch (cmd->opcode) {
	case CXEN_CMD_QUERY_DEV:
		return cxsim_query_dev(sd, cmd);
	case CXEN_CMD_QUERY_PORT:
		return cxsim_query_port(sd, cmd);
	case CXEN_CMD_SET_PORT:
		return cxsim_set_port(sd, cmd, async);
	case CXEN_CMD_SET_RX_FILTER:
		return cxsim_set_rx_filter(sd, cmd);
	case CXEN_CMD_CREATE_CQ:
		return cxsim_create_cq(sd, cmd);
	case CXEN_CMD_DESTROY_CQ:
		return cxsim_destroy_cq(sd, cmd);
	case CXEN_CMD_MODIFY_CQ:
		return cxsim_modify_cq(sd, cmd);
	case CXEN_CMD_CREATE_SQ:
		return cxsim_create_sq(sd, cmd);
	case CXEN_CMD_DESTROY_SQ:
		return cxsim_destroy_sq(sd, cmd);
	case CXEN_CMD_QUERY_SQ:
		return cxsim_query_sq(sd, cmd);
	case CXEN_CMD_MODIFY_SQ:
		return cxsim_modify_sq(sd, cmd);
	case CXEN_CMD_CREATE_RQ:
		return cxsim_create_rq(sd, cmd);
	case CXEN_CMD_DESTROY_RQ:
		return cxsim_destroy_rq(sd, cmd);
	case CXEN_CMD_QUERY_RQ:
		return cxsim_query_rq(sd, cmd);
	case CXEN_CMD_MODIFY_RQ:
		return cxsim_modify_rq(sd, cmd);
	case CXEN_CMD_SET_RSS:
		return cxsim_set_rss(sd, cmd);
	case CXEN_CMD_QUERY_COUNTERS:
		return cxsim_query_counters(sd, cmd);
	default:
		return CXEN_STAT_BAD_OP;
	}
}

/**
 * cxsim_cmd_work() - execute the latched command
 * @work: the device's cmd_work
 *
 * Runs on the ordered command workqueue. The output mailbox is written
 * before GO clears; async events a command causes (link changes) are
 * raised after it completed.
 */
void cxsim_cmd_work(struct work_struct *work)
{
	struct cxsim_dev *sd = container_of(work, struct cxsim_dev, cmd_work);
	struct cxsim_cmd cmd;
	u32 async = 0;
	u8 st;

	spin_lock_irq(&sd->reg_lock);
	cmd = sd->cmd;
	spin_unlock_irq(&sd->reg_lock);

	/* A halted device, or one stuck in this command: GO stays set. */
	if (cxsim_halted(sd) || cxsim_fault_cmd_hang(sd, cmd.opcode))
		return;

	mutex_lock(&sd->cfg_lock);
	if (unlikely(cxsim_fault_cmd(sd, cmd.opcode)))
		st = CXEN_STAT_INTERNAL;	/* executed nothing */
	else
		st = cxsim_cmd_exec(sd, &cmd, &async);
	mutex_unlock(&sd->cfg_lock);

	cxsim_dev_inc(sd, CXSIM_DEV_COMMANDS);
	if (st)
		cxsim_dev_inc(sd, CXSIM_DEV_CMD_FAILED);

	spin_lock_irq(&sd->reg_lock);
	sd->cmd_ctrl = FIELD_PREP(CXEN_CMD_CTRL_STATUS, st) |
		       FIELD_PREP(CXEN_CMD_CTRL_OPCODE, cmd.opcode);
	spin_unlock_irq(&sd->reg_lock);

	if (async)
		cxsim_async_event(sd, async);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * cxsim_cmd_run() - execute one command at once, for KUnit
 * @sd: the device
 * @opcode: the command's opcode
 * @mod: its input modifier
 * @in_dma: the input mailbox's bus address (0: none)
 * @out_dma: the output mailbox's (0: none)
 *
 * What the command work does with a latched command, without the
 * registers, fault injection or async events: the model's self-test
 * creates its queues with it.
 *
 * Return: the command's status (enum cxen_cmd_status).
 */
u8 cxsim_cmd_run(struct cxsim_dev *sd, u16 opcode, u32 mod, u64 in_dma,
		 u64 out_dma)
{
	struct cxsim_cmd cmd = {
		.in_dma = in_dma,
		.out_dma = out_dma,
		.mod = mod,
		.opcode = opcode,
	};
	u32 async = 0;
	u8 st;

	mutex_lock(&sd->cfg_lock);
	st = cxsim_cmd_exec(sd, &cmd, &async);
	mutex_unlock(&sd->cfg_lock);
	return st;
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_cmd_run);
#endif

/**
 * cxsim_destroy_all() - destroy every queue a driver left behind
 * @sd: the device, with the driver gone and the command work idle
 */
void cxsim_destroy_all(struct cxsim_dev *sd)
{
	struct cxsim_sq *sq;
	struct cxsim_rq *rq;
	struct cxsim_cq *cq;
	int i;

	mutex_lock(&sd->cfg_lock);
	for (i = 0; i < CXEN_HW_NUM_SQ; i++) {
		sq = cxsim_deref(sd, sd->sq[i]);
		if (sq)
			cxsim_free_sq(sd, sq);
	}
	for (i = 0; i < CXEN_HW_NUM_RQ; i++) {
		rq = cxsim_deref(sd, sd->rq[i]);
		if (rq)
			cxsim_free_rq(sd, rq);
	}
	for (i = 0; i < CXEN_HW_NUM_CQ; i++) {
		cq = cxsim_deref(sd, sd->cq[i]);
		if (cq)
			cxsim_free_cq(sd, cq);
	}
	mutex_unlock(&sd->cfg_lock);
	/* kfree_rcu() of RSS contexts must finish before the module goes. */
	rcu_barrier();
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_destroy_all);
