// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim RX engine: a frame arriving at a port, the port's RX filter and
 * MTU, its classification (L3/L4 types, checksums, VLAN strip), RSS
 * steering to an RQ (in order per flow across a table change), flow
 * control (a frame without an RX buffer waits for one, as a transmitter
 * held by PAUSE would), and its scatter into the buffers of the RQ's next
 * WQE with its CQE. The striding RQ's placement is cxsim_stride.c's, the
 * LRO merge cxsim_lro.c's.
 */
#include <linux/bitfield.h>
#include <linux/crc32.h>
#include <linux/delay.h>
#include <linux/etherdevice.h>
#include <linux/hrtimer.h>
#include <linux/jiffies.h>
#include <linux/minmax.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <kunit/visibility.h>

#include "cxsim.h"
#include "cxsim_pkt.h"
#include "cxsim_rss.h"
#include "cxsim_rx.h"

/*
 * How long a frame steered to another RQ than its flow's frames before
 * waits for the host to be done with them (cxsim_flow_wait()) while the
 * host takes none of that RQ's CQEs
 */
#define CXSIM_RSS_ORDER_MS	100

/* The CQE of RQ @rq's WQE at its consumer counter: @opcode, @synd. */
void cxsim_rq_cqe_init(const struct cxsim_rq *rq, struct cxen_cqe *cqe,
		       u8 opcode, u8 synd)
{
	memset(cqe, 0, sizeof(*cqe));
	cqe->qpn = cpu_to_be32(FIELD_PREP(CXEN_CQE_QPN, rq->rqn));
	cqe->wqe_index = cpu_to_be16(rq->cons);
	cqe->syndrome = synd;
	cqe->owner_sr_opcode = FIELD_PREP(CXEN_CQE_OPCODE, opcode);
}

/* Post a CQE of @rq; the interrupt it fires is @rx's to raise. */
int cxsim_rq_post_cqe_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			     struct cxen_cqe *cqe)
{
	return cxsim_cq_post_locked(rq->cq, cqe, &rx->fire);
}

/*
 * Write an RX CQE for WQE @rq->cons: a RECV CQE carries the frame's
 * fields (a split frame's header fields too). On a striding RQ an error
 * CQE completes what is left of the WQE, strides stride_pos..N - 1 with
 * WQE_LAST, but for LOCAL_LENGTH (a frame no WQE could hold), which
 * consumes nothing.
 */
int cxsim_rq_cqe_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			u8 opcode, u8 synd)
{
	struct cxen_cqe cqe;

	cxsim_rq_cqe_init(rq, &cqe, opcode, synd);
	if (opcode == CXEN_CQE_OP_RECV) {
		cqe.rss_hash = cpu_to_be32(rx->hash);
		cqe.flags = cpu_to_be32(rx->flags);
		cqe.vlan_tci = cpu_to_be16(rx->vlan_tci);
		cqe.byte_cnt = cpu_to_be32(rx->len);
		if (rx->hlen) {
			cxsim_rx_split_write(rq, rx, &cqe);
			cxsim_fault_rx_cqe(rq->sd, &cqe, 0, rx->hdr_bc);
		}
	} else if (rq->rq_flags & CXEN_RQ_F_STRIDING) {
		if (synd == CXEN_SYND_LOCAL_LENGTH) {
			cqe.strides = cxen_cqe_strides(rq->stride_pos, 0);
		} else {
			cqe.strides = cxen_cqe_strides(rq->stride_pos,
						       rq->strides -
						       rq->stride_pos);
			cqe.flags = cpu_to_be32(CXEN_CQE_WQE_LAST);
		}
	}
	return cxsim_rq_post_cqe_locked(rq, rx, &cqe);
}

/* The device is done with WQE @rq->cons: on to the next one. */
void cxsim_rq_next_wqe(struct cxsim_rq *rq)
{
	rq->cons++;
	rq->stride_pos = 0;
	rq->wqe_valid = false;
	rq->cnt[CXSIM_RQ_WQES]++;
}

/* Complete posted WQEs up to @pi with WR_FLUSH; stop when the CQ is full. */
static void cxsim_rq_flush_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
				  u16 pi)
{
	struct cxsim_port *port = &rq->sd->port[rq->port];

	while (rq->cons != pi) {
		if (cxsim_rq_cqe_locked(rq, rx, CXEN_CQE_OP_ERROR,
					CXEN_SYND_WR_FLUSH)) {
			rx->async |= CXEN_ASYNC_CQ_OVERRUN;
			return;
		}
		rq->cnt[CXSIM_RQ_FLUSHED]++;
		cxsim_port_inc(port, CXSIM_PORT_RX_ERRORS, 1);
		cxsim_rq_next_wqe(rq);
	}
}

/* A malformed WQE at cons: error CQE, error state, flush the rest. */
void cxsim_rq_fail_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			  u16 pi, u8 synd)
{
	struct cxsim_port *port = &rq->sd->port[rq->port];

	rq->error = true;
	rx->async |= CXEN_ASYNC_QUEUE_ERROR;
	if (cxsim_rq_cqe_locked(rq, rx, CXEN_CQE_OP_ERROR, synd)) {
		rx->async |= CXEN_ASYNC_CQ_OVERRUN;
		return;
	}
	rq->cnt[CXSIM_RQ_ERROR_CQES]++;
	cxsim_port_inc(port, CXSIM_PORT_RX_ERRORS, 1);
	cxsim_rq_next_wqe(rq);
	cxsim_rq_flush_locked(rq, rx, pi);
}

/*
 * No posted WQE for the frame. Return: -ENOBUFS when it may wait for one
 * (@fc, and no pause storm), else 0 with the drop counted.
 */
int cxsim_rq_no_buffer_locked(struct cxsim_rq *rq, enum cxsim_rx_fc fc)
{
	if (fc == CXSIM_FC_HOLD && !rq->pause_storm)
		return -ENOBUFS;
	if (fc == CXSIM_FC_EXPIRED)
		rq->pause_storm = true;
	rq->cnt[CXSIM_RQ_OUT_OF_BUFFER]++;
	cxsim_port_inc(&rq->sd->port[rq->port], CXSIM_PORT_RX_OUT_OF_BUFFER, 1);
	return 0;
}

/* The RQ's CQ has no room for the frame's CQEs: drop it, consume nothing. */
void cxsim_rq_cq_overrun_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx)
{
	rq->cq->cnt[CXSIM_CQ_OVERRUN]++;
	rq->cnt[CXSIM_RQ_CQ_OVERRUN]++;
	cxsim_port_inc(&rq->sd->port[rq->port], CXSIM_PORT_RX_CQ_OVERRUN, 1);
	rx->async |= CXEN_ASYNC_CQ_OVERRUN;
}

/* A frame delivered: the RQ's and the port's counters. */
void cxsim_rq_count_frame(struct cxsim_rq *rq, const struct cxsim_rx_ctx *rx)
{
	struct cxsim_port *port = &rq->sd->port[rq->port];

	rq->cnt[CXSIM_RQ_FRAMES]++;
	rq->cnt[CXSIM_RQ_BYTES] += rx->len;
	cxsim_port_inc(port, CXSIM_PORT_RX_FRAMES, 1);
	cxsim_port_inc(port, CXSIM_PORT_RX_BYTES, rx->len);
	if (rx->csum_bad) {
		rq->cnt[CXSIM_RQ_CSUM_BAD]++;
		cxsim_port_inc(port, CXSIM_PORT_RX_CSUM_BAD, 1);
	}
	if (rx->hlen)
		rq->cnt[CXSIM_RQ_HDR_SPLIT]++;
	else if (rx->no_hdr_buf)
		rq->cnt[CXSIM_RQ_HDR_NO_BUFFER]++;
}

/*
 * Check the scatter list of @wqe against a frame of @len bytes.
 * Return: the number of segments the frame uses, or a negative syndrome.
 */
static int cxsim_rq_plan(struct cxsim_rq *rq, const struct cxen_rx_wqe *wqe,
			 u32 len)
{
	u32 nsegs = min(1u << (rq->log_stride - 4), CXEN_HW_RX_MAX_SEGS);
	u32 left = len, i;

	for (i = 0; i < nsegs && left; i++) {
		const struct cxen_data_seg *seg = &wqe->seg[i];
		u32 bc = be32_to_cpu(seg->byte_count);
		u32 n;

		if (!bc)
			break;
		if (bc & BIT(31))
			return -CXEN_SYND_LOCAL_QP_OP;
		if (be32_to_cpu(seg->lkey) != CXSIM_RSVD_LKEY)
			return -CXEN_SYND_LOCAL_PROT;
		n = min(bc, left);
		if (!cxsim_dma_check(rq->sd, be64_to_cpu(seg->addr), n))
			return -CXEN_SYND_LOCAL_PROT;
		left -= n;
	}
	if (left)
		return -CXEN_SYND_LOCAL_LENGTH;
	return i;
}

/* Write delivered bytes [@off, @off + @n) of the frame to @dma. */
void cxsim_rx_copy(struct cxsim_rq *rq, const struct cxsim_rx_ctx *rx,
		   u64 dma, u32 off, u32 n)
{
	u32 head;

	if (rx->strip) {
		/* The MAC addresses, then what followed the tag. */
		if (off < 2 * ETH_ALEN) {
			head = min(n, 2 * ETH_ALEN - off);
			cxsim_dma_write(rq->sd, dma, rx->frame + off, head);
			dma += head;
			off += head;
			n -= head;
		}
		off += VLAN_HLEN;
	}
	if (n)
		cxsim_dma_write(rq->sd, dma, rx->frame + off, n);
}

/*
 * Deliver one frame to @rq. Called with the RQ found under RCU.
 * Return: -ENOBUFS, without counting a drop, when the RQ has no posted
 * WQE and the frame may wait for one (@fc, and no pause storm);
 * -ESTALE when the RQ was destroyed since: the frame is steered again;
 * else 0.
 */
static int cxsim_rq_receive(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			    enum cxsim_rx_fc fc)
{
	struct cxsim_port *port = &rq->sd->port[rq->port];
	u32 size = 1u << rq->log_size;
	struct cxsim_cq *cq = rq->cq;
	struct cxen_wq_dbrec *db;
	struct cxen_rx_wqe wqe;
	unsigned long flags;
	u32 off, posted;
	int nsegs, i, ret = 0;
	u16 pi;
	u8 synd;

	spin_lock_bh(&rq->lock);
	spin_lock_irqsave(&cq->lock, flags);

	if (rq->dead) {
		ret = -ESTALE;
		goto unlock;
	}
	if (rq->stopped) {
		cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
		goto unlock;
	}
	/* A frame that does not continue the RQ's LRO merge ends it. */
	if (rq->lro.open) {
		if (cxsim_lro_append_locked(rq, rx))
			goto unlock;
		cxsim_lro_close_locked(rq, rx);
	}
	db = cxsim_dma_ptr(rq->sd, rq->dbrec_dma, sizeof(*db));
	if (!db) {
		rq->error = true;
		rx->async |= CXEN_ASYNC_QUEUE_ERROR;
	}
	if (rq->error) {
		if (db)
			cxsim_rq_flush_locked(rq, rx,
					      be32_to_cpu(READ_ONCE(db->pi)) &
					      CXEN_WQ_DBREC_PI);
		cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
		goto unlock;
	}
	pi = be32_to_cpu(READ_ONCE(db->pi)) & CXEN_WQ_DBREC_PI;
	posted = (u16)(pi - rq->cons);
	if (!posted) {
		ret = cxsim_rq_no_buffer_locked(rq, fc);
		goto unlock;
	}
	if (posted > size) {
		cxsim_rq_fail_locked(rq, rx, pi, CXEN_SYND_LOCAL_QP_OP);
		cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
		goto unlock;
	}
	/* Drop rather than consume a WQE whose completion would be lost. */
	if (!cxsim_cq_room_locked(cq)) {
		cxsim_rq_cq_overrun_locked(rq, rx);
		goto unlock;
	}
	dma_rmb();	/* the WQEs after the producer counter */
	rq->pause_storm = false;
	if (unlikely(cxsim_fault_rq_error(rq))) {
		/* The frame's loss is the error CQE's: counted by the driver. */
		cxsim_rq_fail_locked(rq, rx, pi, CXEN_SYND_LOCAL_PROT);
		goto unlock;
	}
	if (rq->rq_flags & CXEN_RQ_F_STRIDING) {
		ret = cxsim_rq_stride_receive(rq, rx, fc, pi);
		goto unlock;
	}
	/* Header/data split: where the headers go, if they go apart. */
	synd = cxsim_rx_split_plan(rq, rx);
	if (synd) {
		cxsim_rq_fail_locked(rq, rx, pi, synd);
		cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
		goto unlock;
	}

	memset(&wqe, 0, sizeof(wqe));
	if (!cxsim_dma_read(rq->sd, rq->ring_dma +
			    ((u64)(rq->cons & (size - 1)) << rq->log_stride),
			    &wqe, min(1u << rq->log_stride, sizeof(wqe)))) {
		cxsim_rq_fail_locked(rq, rx, pi, CXEN_SYND_LOCAL_PROT);
		cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
		goto unlock;
	}
	/* A split frame's payload goes to the segments from their start. */
	nsegs = cxsim_rq_plan(rq, &wqe, rx->len - rx->hlen);
	if (nsegs == -CXEN_SYND_LOCAL_LENGTH) {
		/* The frame is dropped; the queue carries on. */
		cxsim_rq_cqe_locked(rq, rx, CXEN_CQE_OP_ERROR,
				    CXEN_SYND_LOCAL_LENGTH);
		rq->cnt[CXSIM_RQ_ERROR_CQES]++;
		cxsim_port_inc(port, CXSIM_PORT_RX_ERRORS, 1);
		cxsim_rq_next_wqe(rq);
		goto unlock;
	}
	if (nsegs < 0) {
		cxsim_rq_fail_locked(rq, rx, pi, -nsegs);
		cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
		goto unlock;
	}

	if (rx->hlen)
		cxsim_rx_copy(rq, rx, rx->hdr_addr, 0, rx->hlen);
	off = rx->hlen;
	for (i = 0; i < nsegs; i++) {
		u32 n = min(be32_to_cpu(wqe.seg[i].byte_count), rx->len - off);

		cxsim_rx_copy(rq, rx, be64_to_cpu(wqe.seg[i].addr), off, n);
		off += n;
	}
	cxsim_rq_cqe_locked(rq, rx, CXEN_CQE_OP_RECV, 0);
	if (rx->hlen)
		rq->hdr_cons++;
	cxsim_rq_next_wqe(rq);
	cxsim_rq_count_frame(rq, rx);
unlock:
	spin_unlock_irqrestore(&cq->lock, flags);
	spin_unlock_bh(&rq->lock);
	return ret;
}

/*
 * Count a frame in a port's multicast/broadcast counters (@mcast, then
 * broadcast at @mcast + 1) and size histogram (@hist). Sizes include the
 * FCS and the padding to 64 bytes the MAC would add.
 */
void cxsim_port_count_frame(struct cxsim_port *port, int mcast,
			    int hist, const u8 *frame, u32 len)
{
	static const u32 limit[CXEN_HIST_BUCKETS] = CXEN_HIST_LIMITS;
	u32 wire = max(len + ETH_FCS_LEN, ETH_ZLEN + ETH_FCS_LEN);
	int i = 0;

	while (i < CXEN_HIST_BUCKETS - 1 && wire > limit[i])
		i++;
	cxsim_port_inc(port, hist + i, 1);
	if (len < ETH_ALEN)
		return;
	if (is_broadcast_ether_addr(frame))
		cxsim_port_inc(port, mcast + 1, 1);
	else if (is_multicast_ether_addr(frame))
		cxsim_port_inc(port, mcast, 1);
}

/*
 * The port's RX filter: whether it accepts a frame by its destination
 * address (SET_RX_FILTER). Broadcast always; the power-on state (no
 * filter set) nothing else. Frames a port in loopback sends itself are
 * not filtered (@own).
 */
static bool cxsim_rx_accept(struct cxsim_port *port, const u8 *frame,
			    u32 len, bool own)
{
	const struct cxsim_rx_filter *f;
	bool ok = false;
	unsigned int i;
	u32 bucket;

	if (own || len < ETH_ALEN || is_broadcast_ether_addr(frame))
		return true;
	rcu_read_lock();
	f = rcu_dereference(port->filter);
	if (!f)
		goto out;
	if (f->flags & CXEN_RX_FILTER_PROMISC) {
		ok = true;
	} else if (is_multicast_ether_addr(frame)) {
		bucket = FIELD_GET(CXEN_RX_MC_BUCKET,
				   ether_crc_le(ETH_ALEN, frame));
		ok = (f->flags & CXEN_RX_FILTER_ALLMULTI) ||
		     (f->mc_hash & BIT_ULL(bucket));
	} else if (f->flags & CXEN_RX_FILTER_UC_PROMISC) {
		ok = true;
	} else {
		for (i = 0; i < f->num_uc && !ok; i++)
			ok = ether_addr_equal_unaligned(frame, f->uc[i]);
	}
out:
	rcu_read_unlock();
	return ok;
}

/* CQE flags of a received frame: L3/L4 types, verified checksums. */
static void cxsim_rx_classify(struct cxsim_rx_ctx *rx,
			      const struct cxsim_pkt *pkt)
{
	rx->flags |= FIELD_PREP(CXEN_CQE_L3_TYPE, pkt->l3) |
		     FIELD_PREP(CXEN_CQE_L4_TYPE, pkt->l4);
	if (pkt->frag)
		rx->flags |= CXEN_CQE_IP_FRAG;
	if (pkt->l3 == CXEN_CQE_L3_IPV4) {
		if ((rx->csum_known & CXSIM_CSUM_L3) ||
		    cxsim_pkt_l3_csum_ok(rx->frame, pkt))
			rx->flags |= CXEN_CQE_L3_CSUM_OK;
		else
			rx->csum_bad = true;
	}
	if (pkt->l4 != CXEN_CQE_L4_NONE) {
		if ((rx->csum_known & CXSIM_CSUM_L4) ||
		    cxsim_pkt_l4_csum_ok(rx->frame, pkt))
			rx->flags |= CXEN_CQE_L4_CSUM_OK;
		else
			rx->csum_bad = true;
	}
	/* Where header/data split would cut: after a TCP header, if data. */
	if (pkt->l4 == CXEN_CQE_L4_TCP && pkt->l4_len > pkt->l4_hlen)
		rx->tcp_end = pkt->l4_off + pkt->l4_hlen;
}

/* The port strips an outer 802.1Q tag: the frame is delivered without. */
static void cxsim_rx_vlan_strip(struct cxsim_port *port,
				struct cxsim_rx_ctx *rx)
{
	if (!READ_ONCE(port->vlan_strip) || !cxsim_pkt_ctag(rx->frame, rx->len))
		return;
	rx->strip = true;
	rx->vlan_tci = get_unaligned_be16(rx->frame + 2 * ETH_ALEN + 2);
	rx->len -= VLAN_HLEN;
	rx->flags |= CXEN_CQE_VLAN_STRIPPED;
	cxsim_port_inc(port, CXSIM_PORT_RX_VLAN_STRIPPED, 1);
}

/* struct cxsim_port.flow_last: a CQ and its CQE count, or nothing (0) */
#define CXSIM_FLOW_VALID	BIT_ULL(32)
#define CXSIM_FLOW_CQN		GENMASK_ULL(31, 24)
#define CXSIM_FLOW_PROD		GENMASK_ULL(23, 0)

/*
 * A frame of RSS entry @i went into @rq, whose CQ has written or will
 * write its CQE: with an LRO merge open, the merge's CQE is the next
 * one. Under RCU, the frame's RQ lock dropped.
 */
static void cxsim_flow_note(struct cxsim_port *port, u32 i,
			    struct cxsim_rq *rq)
{
	u32 prod = READ_ONCE(rq->cq->prod) + READ_ONCE(rq->lro.open);

	atomic64_set(&port->flow_last[i], CXSIM_FLOW_VALID |
		     FIELD_PREP(CXSIM_FLOW_CQN, rq->cq->cqn) |
		     FIELD_PREP(CXSIM_FLOW_PROD, prod & CXEN_CQ_DBREC_CI));
}

/*
 * Whether a frame of RSS entry @i steered to @rq must wait: the entry's
 * last frame went to another RQ (SET_RSS moved the entry, or a queue
 * was replaced), and the host is not done with it yet. The host is done
 * with a CQ's first CQEs once it armed the CQ with its consumer index
 * past them (it arms a CQ when it has handed up what it took), or once
 * the CQ is gone. Under RCU. What is found done waits no more.
 *
 * Return: the CQ to wait for, or NULL.
 */
static struct cxsim_cq *cxsim_flow_wait(struct cxsim_port *port, u32 i,
					struct cxsim_rq *rq)
{
	u64 last = atomic64_read(&port->flow_last[i]);
	struct cxsim_cq *cq;
	u32 cqn, behind;

	cqn = FIELD_GET(CXSIM_FLOW_CQN, last);
	if (!(last & CXSIM_FLOW_VALID) || cqn == rq->cq->cqn)
		return NULL;
	cq = rcu_dereference(port->sd->cq[cqn]);
	if (cq) {
		behind = (FIELD_GET(CXSIM_FLOW_PROD, last) -
			  READ_ONCE(cq->arm_ci)) & CXEN_CQ_DBREC_CI;
		if (behind && behind <= CXEN_CQ_DBREC_CI / 2)
			return cq;
	}
	atomic64_cmpxchg(&port->flow_last[i], last, 0);
	return NULL;
}

/**
 * cxsim_flow_forget() - no flow of a port waits for a CQ any more
 * @port: the port
 * @cqn: the CQ, being destroyed
 */
void cxsim_flow_forget(struct cxsim_port *port, u16 cqn)
{
	u64 last;
	int i;

	for (i = 0; i < CXEN_RSS_TABLE_SIZE; i++) {
		last = atomic64_read(&port->flow_last[i]);
		if ((last & CXSIM_FLOW_VALID) &&
		    FIELD_GET(CXSIM_FLOW_CQN, last) == cqn)
			atomic64_cmpxchg(&port->flow_last[i], last, 0);
	}
}

/*
 * Steer a frame through the port's RSS context (@entry set to the table
 * entry), or to its default RQ (@entry -1).
 */
static struct cxsim_rq *cxsim_rx_steer(struct cxsim_port *port,
				       struct cxsim_rx_ctx *rx,
				       const struct cxsim_pkt *pkt, int *entry)
{
	struct cxsim_rss *rss, *now = rcu_dereference(port->rss);
	struct cxsim_rq *rq;
	int rqn, dflt;
	u8 hash_type;

	do {
		rss = now;
		dflt = READ_ONCE(port->default_rqn);
		*entry = -1;
		rqn = dflt;
		if (rss) {
			rx->hash = cxsim_rss_hash(rss->key, rss->hash_fields,
						  rx->frame, pkt, &hash_type);
			rx->flags &= ~CXEN_CQE_HASH_TYPE;
			rx->flags |= FIELD_PREP(CXEN_CQE_HASH_TYPE, hash_type);
			*entry = rx->hash % CXEN_RSS_TABLE_SIZE;
			rqn = rss->rqn[*entry];
		}
		rq = rqn >= 0 ? rcu_dereference(port->sd->rq[rqn]) : NULL;
		if (rq && rq->port == port->index)
			return rq;
		/*
		 * The RQ this steering names is gone. A driver moves RX to
		 * new RQs before it destroys the old ones, and the frame
		 * may have read the steering before that move and the RQ's
		 * slot after the destroy: then it is steered again by what
		 * replaced it (published before the slot was cleared, so
		 * seen now), not dropped as a frame with no RQ.
		 */
		smp_rmb();
		now = rcu_dereference(port->rss);
	} while (now != rss || (!rss && READ_ONCE(port->default_rqn) != dflt));
	return NULL;
}

/*
 * Link-level flow control between the sending port (@sq's) and @port:
 * a frame may wait for an RX WQE when @port sends PAUSE and the sender
 * honours it, while the sender's link is up and its SQ alive. The wire
 * generator (no @sq) always honours it.
 */
static bool cxsim_rx_may_hold(const struct cxsim_port *port,
			      const struct cxsim_sq *sq)
{
	const struct cxsim_port *from;

	if (!sq)
		return READ_ONCE(port->tx_pause);
	from = &sq->sd->port[sq->port];
	return READ_ONCE(port->tx_pause) && READ_ONCE(from->rx_pause) &&
	       READ_ONCE(from->link_up) && !READ_ONCE(sq->dead) &&
	       !READ_ONCE(sq->stopped);
}

/* Longer than @port's MTU allows (a VLAN tag not counted): count, drop. */
static bool cxsim_rx_oversize(struct cxsim_port *port,
			      const struct cxsim_pkt *pkt, u32 len)
{
	if (len <= READ_ONCE(port->mtu) + ETH_HLEN +
		   (pkt->vlan ? VLAN_HLEN : 0))
		return false;
	cxsim_port_inc(port, CXSIM_PORT_RX_OVERSIZE, 1);
	return true;
}

/*
 * A frame arrives at @w->port: the oversize check against the receiving
 * port's MTU, the counters of frames seen, the RX filter, classification
 * and VLAN stripping into @w. Return: false when it goes no further.
 */
bool cxsim_rx_begin(struct cxsim_rx_wait *w, struct cxsim_sq *sq,
		    const u8 *frame, u32 len, u8 csum_known)
{
	struct cxsim_port *port = w->port;

	memset(&w->rx, 0, sizeof(w->rx));
	w->rx.frame = frame;
	w->rx.pkt = &w->pkt;
	w->lro_last = -1;
	w->rx.len = len;
	w->rx.csum_known = csum_known;
	w->len = len;
	w->fc = CXSIM_FC_DROP;
	w->deadline = 0;
	w->order_deadline = 0;
	w->order_expired = false;

	cxsim_pkt_parse(frame, len, &w->pkt);
	if (cxsim_rx_oversize(port, &w->pkt, len))
		return false;
	cxsim_port_count_frame(port, CXSIM_PORT_RX_MCAST, CXSIM_PORT_RX_HIST,
			       frame, len);
	if (!cxsim_rx_accept(port, frame, len,
			     sq && port == &port->sd->port[sq->port])) {
		/* Bytes as rx_bytes would count them: a stripped tag not. */
		cxsim_port_inc(port, CXSIM_PORT_RX_FILTERED, 1);
		cxsim_port_inc(port, CXSIM_PORT_RX_FILTERED_BYTES,
			       READ_ONCE(port->vlan_strip) &&
			       cxsim_pkt_ctag(frame, len) ? len - VLAN_HLEN : len);
		return false;
	}
	cxsim_rx_classify(&w->rx, &w->pkt);
	cxsim_rx_vlan_strip(port, &w->rx);
	return true;
}

/*
 * The frame of @w waits for its flow's frames before it, in a CQ whose
 * consumer index is @ci (cxsim_flow_wait()): as long as the host takes
 * CQEs from it, or CXSIM_RSS_ORDER_MS after it took the last; not for an
 * SQ stopped or being destroyed. The merges before it end first: the
 * host may be waiting for them. Return: 0 to steer it again, -EAGAIN
 * when it must wait and may not sleep.
 */
static int cxsim_rx_order_wait(struct cxsim_rx_wait *w, struct cxsim_sq *sq,
			       u32 ci, bool may_sleep)
{
	struct cxsim_dev *sd = w->port->sd;

	if (!w->order_deadline)
		cxsim_dev_inc(sd, CXSIM_DEV_ORDER_WAITS);
	if (!w->order_deadline || ci != w->order_ci) {
		w->order_ci = ci;
		w->order_deadline = jiffies +
				    msecs_to_jiffies(CXSIM_RSS_ORDER_MS);
	}
	if (time_after(jiffies, w->order_deadline) ||
	    (sq && (READ_ONCE(sq->dead) || READ_ONCE(sq->stopped)))) {
		/* Its flow may be reordered now: counted. */
		cxsim_dev_inc(sd, CXSIM_DEV_ORDER_TIMEOUTS);
		w->order_expired = true;
		return 0;
	}
	cxsim_lro_flush(sd, w);
	if (!may_sleep)
		return -EAGAIN;
	usleep_range(CXSIM_PAUSE_POLL_US, 2 * CXSIM_PAUSE_POLL_US);
	return 0;
}

/*
 * Steer the frame of @w and deliver it. When its RQ has no posted WQE and
 * flow control holds it, the frame waits for one: @w->port counts a PAUSE
 * sent, the sender one received, and with @may_sleep the caller sleeps
 * until the driver posts, the link or the SQ goes, or
 * CXEN_HW_PAUSE_STORM_MS pass. A frame steered to another RQ than its
 * RSS entry's frame before waits, the same way, until the host is done
 * with that one (cxsim_flow_wait()). Without @may_sleep it returns at
 * once; @w keeps where the wait stands for a later call that may sleep.
 *
 * Return: 0, the frame delivered or dropped, or -EAGAIN when it must wait
 * and @may_sleep is false.
 */
int cxsim_rx_deliver(struct cxsim_rx_wait *w, struct cxsim_sq *sq,
		     bool may_sleep)
{
	struct cxsim_port *port = w->port;
	struct cxsim_dev *sd = port->sd;
	struct cxsim_cq *wcq;
	struct cxsim_rq *rq;
	int ret, entry;
	u32 ci;

	for (;;) {
		if (w->fc != CXSIM_FC_EXPIRED)
			w->fc = cxsim_rx_may_hold(port, sq) ? CXSIM_FC_HOLD :
							      CXSIM_FC_DROP;
		/*
		 * The MTU checked again with the steering, in one RCU
		 * section, at every try (a frame that waited for a buffer
		 * meets the MTU of now): SET_PORT waits out the sections that
		 * saw an MTU it lowered, so a driver that lowers the MTU,
		 * then steers RX to smaller buffers, never gets a frame too
		 * long for them.
		 */
		rcu_read_lock();
		if (cxsim_rx_oversize(port, &w->pkt, w->len)) {
			rcu_read_unlock();
			break;
		}
		rq = cxsim_rx_steer(port, &w->rx, &w->pkt, &entry);
		if (!rq) {
			rcu_read_unlock();
			cxsim_port_inc(port, CXSIM_PORT_RX_NO_RQ, 1);
			break;
		}
		wcq = entry >= 0 && !w->order_expired ?
		      cxsim_flow_wait(port, entry, rq) : NULL;
		if (wcq) {
			ci = cxsim_cq_ci(wcq);
			/*
			 * Its interrupt may be due, its work queued behind
			 * this run on this CPU: the host must hear of it.
			 */
			cxsim_cq_raise_due(wcq);
			rcu_read_unlock();
			ret = cxsim_rx_order_wait(w, sq, ci, may_sleep);
			if (ret)
				goto out;
			continue;
		}
		ret = cxsim_rq_receive(rq, &w->rx, w->fc);
		if (ret == -ESTALE) {
			/* Destroyed since it was steered to: steer it again. */
			rcu_read_unlock();
			continue;
		}
		if (!ret && entry >= 0)
			cxsim_flow_note(port, entry, rq);
		/*
		 * Still under RCU: the CQ cannot go before its RQ. Once: a
		 * striding RQ may write a filler, then hold the frame.
		 */
		if (w->rx.fire) {
			w->rx.fire = false;
			cxsim_raise_irq(sd, rq->cq->vector);
		}
		if (w->rx.lro_open)
			cxsim_lro_note(sd, w, rq->rqn);
		rcu_read_unlock();
		if (ret != -ENOBUFS)
			break;

		if (!w->deadline) {
			w->deadline = jiffies +
				      msecs_to_jiffies(CXEN_HW_PAUSE_STORM_MS);
			cxsim_port_inc(port, CXSIM_PORT_TX_PAUSE, 1);
			if (sq)
				cxsim_port_inc(&sd->port[sq->port],
					       CXSIM_PORT_RX_PAUSE, 1);
		} else if (time_after(jiffies, w->deadline)) {
			w->fc = CXSIM_FC_EXPIRED;
			continue;
		}
		/* A frame that waits lets the merges before it end. */
		cxsim_lro_flush(sd, w);
		if (!may_sleep) {
			ret = -EAGAIN;
			goto out;
		}
		usleep_range(CXSIM_PAUSE_POLL_US, 2 * CXSIM_PAUSE_POLL_US);
	}
	ret = 0;
out:
	if (w->rx.async) {
		cxsim_async_event(sd, w->rx.async);
		w->rx.async = 0;
	}
	return ret;
}

/**
 * cxsim_wire_rx() - a frame arrives on a port from the wire generator
 * @port: the receiving port
 * @frame: the frame
 * @len: its length
 *
 * The generator (cxsim_gen.c) is a partner that honours PAUSE: a frame
 * that finds its RQ empty waits for a WQE (cxsim_rx_deliver()). Process
 * context.
 */
void cxsim_wire_rx(struct cxsim_port *port, const u8 *frame, u32 len)
{
	struct cxsim_rx_wait w = { .port = port };

	if (cxsim_rx_begin(&w, NULL, frame, len, 0))
		cxsim_rx_deliver(&w, NULL, true);
	cxsim_lro_flush(port->sd, &w);
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * cxsim_rx_frame_test() - a frame arrives at a port, for KUnit
 * @port: the receiving port
 * @frame: the frame
 * @len: its length
 * @hold: flow control: a frame without a WQE may wait (else dropped)
 *
 * One try of the receive path from classification on (no MTU check, no
 * RX filter, no wait), with no interrupt raised: the model's self-test
 * drives RQs with it.
 *
 * Return: -ENOBUFS when the frame would wait for a WQE, else the
 * CXEN_ASYNC_* bits it would have raised.
 */
int cxsim_rx_frame_test(struct cxsim_port *port, const u8 *frame, u32 len,
			bool hold)
{
	struct cxsim_rx_ctx rx = { .frame = frame, .len = len };
	struct cxsim_pkt pkt;
	struct cxsim_rq *rq;
	int ret = 0, entry;

	rx.pkt = &pkt;
	cxsim_pkt_parse(frame, len, &pkt);
	cxsim_rx_classify(&rx, &pkt);
	cxsim_rx_vlan_strip(port, &rx);
	rcu_read_lock();
	rq = cxsim_rx_steer(port, &rx, &pkt, &entry);
	if (rq)
		ret = cxsim_rq_receive(rq, &rx, hold ? CXSIM_FC_HOLD :
				       CXSIM_FC_DROP);
	else
		cxsim_port_inc(port, CXSIM_PORT_RX_NO_RQ, 1);
	rcu_read_unlock();
	return ret ? ret : rx.async;
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_rx_frame_test);

#endif
