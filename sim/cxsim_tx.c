// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim TX engine: SQ execution, LSO, and the wire to the peer port's RX
 * engine (cxsim_rx.c).
 *
 * An SQ_DB write kicks the SQ's engine. When the engine is idle and the
 * writer runs with bottom halves off and interrupts on (ndo_start_xmit(),
 * NAPI), the engine runs right there, in the doorbell writer's context,
 * as a veth transmit does, when the db_inline parameter is on (off by
 * default); otherwise the SQ's work item runs it on the datapath
 * workqueue.
 * One runner at a time (CXSIM_SQ_RUN): a doorbell that finds the engine
 * busy leaves CXSIM_SQ_KICK for the runner, which queues the work when it
 * is done. A run reads the SQ's producer counter from its doorbell record
 * and executes WQEs from its consumer counter, at most CXSIM_TX_BUDGET.
 * A frame goes on the wire at once: the peer port receives it in the same
 * run, steers it to an RQ, scatters it into the buffers of the RQ's next
 * WQE and writes the RX CQE. With flow control on (the default) a frame
 * that finds its RQ empty waits for the driver to post a WQE, as a
 * transmitter held by PAUSE would: the work sleeps; a doorbell writer,
 * which may not sleep, parks the frame and the rest of its WQE in the SQ
 * and leaves them to the work.
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

static bool db_inline;
module_param(db_inline, bool, 0644);
MODULE_PARM_DESC(db_inline,
		 "Run an idle SQ in the doorbell writer's context (default N: always in the SQ's work item)");

/* Bits of struct cxsim_sq.engine */
enum {
	CXSIM_SQ_RUN,		/* a runner (work or doorbell writer) owns the SQ */
	CXSIM_SQ_KICK,		/* a doorbell since the runner read the PI */
};

/* Write a TX CQE for WQE @sq->cons; raise the vector if armed. */
static void cxsim_sq_cqe(struct cxsim_sq *sq, u8 opcode, u8 synd)
{
	struct cxen_cqe cqe = {
		.qpn		= cpu_to_be32(FIELD_PREP(CXEN_CQE_QPN, sq->sqn)),
		.wqe_index	= cpu_to_be16(sq->cons),
		.syndrome	= synd,
		.owner_sr_opcode = CXEN_CQE_IS_SEND |
				   FIELD_PREP(CXEN_CQE_OPCODE, opcode),
	};
	struct cxsim_cq *cq = sq->cq;
	unsigned long flags;
	bool fire = false;
	int err;

	spin_lock_irqsave(&cq->lock, flags);
	err = cxsim_cq_post_locked(cq, &cqe, &fire);
	spin_unlock_irqrestore(&cq->lock, flags);

	if (err) {
		sq->cnt[CXSIM_SQ_CQ_OVERRUN]++;
		cxsim_async_event(sq->sd, CXEN_ASYNC_CQ_OVERRUN);
	}
	if (fire)
		cxsim_raise_irq(sq->sd, cq->vector);
}

/* A bad WQE: error CQE, then the SQ is in error until destroyed. */
static void cxsim_sq_fail(struct cxsim_sq *sq, u8 synd)
{
	sq->error = true;
	sq->cnt[CXSIM_SQ_ERROR_CQES]++;
	cxsim_port_inc(&sq->sd->port[sq->port], CXSIM_PORT_TX_ERRORS, 1);
	cxsim_sq_cqe(sq, CXEN_CQE_OP_ERROR, synd);
	cxsim_async_event(sq->sd, CXEN_ASYNC_QUEUE_ERROR);
}

static void cxsim_sq_flush(struct cxsim_sq *sq)
{
	sq->cnt[CXSIM_SQ_FLUSHED]++;
	cxsim_port_inc(&sq->sd->port[sq->port], CXSIM_PORT_TX_ERRORS, 1);
	cxsim_sq_cqe(sq, CXEN_CQE_OP_ERROR, CXEN_SYND_WR_FLUSH);
}

/*
 * Put a frame on the wire: MTU and link checks, then the peer receives it,
 * or the port itself in loopback. @csum_known: the CXSIM_CSUM_* checksums
 * the SQ wrote into it. Return: 0, or -EAGAIN when it must wait for an RX
 * buffer and the run may not sleep: the SQ's park holds it.
 */
static int cxsim_sq_xmit(struct cxsim_sq *sq, u8 *frame, u32 len,
			 u8 csum_known, bool may_sleep)
{
	struct cxsim_port *port = &sq->sd->port[sq->port];
	u32 limit = READ_ONCE(port->mtu) + ETH_HLEN;
	struct cxsim_rx_wait *w = &sq->park->w;

	if (cxsim_pkt_vlan_tagged(frame, len))
		limit += VLAN_HLEN;
	if (len > limit) {
		sq->cnt[CXSIM_SQ_OVERSIZE]++;
		cxsim_port_inc(port, CXSIM_PORT_TX_OVERSIZE, 1);
		return 0;
	}
	if (!READ_ONCE(port->link_up)) {
		sq->cnt[CXSIM_SQ_LINK_DOWN]++;
		cxsim_port_inc(port, CXSIM_PORT_TX_LINK_DOWN, 1);
		return 0;
	}
	sq->cnt[CXSIM_SQ_FRAMES]++;
	sq->cnt[CXSIM_SQ_BYTES] += len;
	cxsim_port_inc(port, CXSIM_PORT_TX_FRAMES, 1);
	cxsim_port_inc(port, CXSIM_PORT_TX_BYTES, len);
	cxsim_port_count_frame(port, CXSIM_PORT_TX_MCAST, CXSIM_PORT_TX_HIST,
			       frame, len);

	if (unlikely(cxsim_fault_wire(sq->sd, frame, len, &csum_known)))
		return 0;
	w->port = READ_ONCE(port->loopback) ? port :
					      &sq->sd->port[sq->port ^ 1];
	if (!cxsim_rx_begin(w, sq, frame, len, csum_known))
		return 0;
	return cxsim_rx_deliver(w, sq, may_sleep);
}

/**
 * cxsim_lso_piece() - where a piece of the LSO WQE's payload is
 * @ctx: the SQ executing the WQE
 * @off: the piece's offset in the payload
 * @max: its most bytes
 * @p: set to its kernel address
 *
 * The payload's first bytes may be inline data, in sq->buf; the rest is
 * the data segments' host memory, read in place (the driver keeps it
 * mapped until the WQE's completion), a piece never crossing a segment
 * or a page.
 *
 * Return: the piece's length, at most @max; 0 when its host memory is not
 * addressable (an IOMMU fault) or @off is past the payload.
 */
static u32 cxsim_lso_piece(void *ctx, u32 off, u32 max, const u8 **p)
{
	struct cxsim_sq *sq = ctx;
	struct cxsim_sq_park *pk = sq->park;
	u32 i, start = pk->lso_inl, n;
	u64 addr;

	if (off < pk->lso_inl) {
		*p = sq->buf + CXSIM_TX_HEADROOM + off;
		return min(max, pk->lso_inl - off);
	}
	for (i = 0; i < pk->lso_nds && off - start >= pk->lso_len[i]; i++)
		start += pk->lso_len[i];
	if (i == pk->lso_nds)
		return 0;
	addr = pk->lso_addr[i] + (off - start);
	n = min3(max, pk->lso_len[i] - (off - start),
		 (u32)(PAGE_SIZE - offset_in_page(addr)));
	*p = cxsim_dma_src(sq->sd, addr, n);
	return *p ? n : 0;
}

/*
 * Read bytes [@off, @off + @len) of the LSO WQE's payload to the same
 * place in sq->buf (where the inline bytes already are): what building a
 * segment needs. Return: false when not addressable.
 */
static bool cxsim_lso_gather(struct cxsim_sq *sq, u32 off, u32 len)
{
	u8 *dst = sq->buf + CXSIM_TX_HEADROOM + off;
	const u8 *p;
	u32 n;

	for (; len; dst += n, off += n, len -= n) {
		n = cxsim_lso_piece(sq, off, len, &p);
		if (!n)
			return false;
		if (p != dst)
			memcpy(dst, p, n);
	}
	return true;
}

/*
 * The segments of the LSO WQE being executed from @i on, merged at once
 * into the LRO merge its segment @i - 1 went into and left open
 * (cxsim_lro_burst_locked()), as they would have been one by one: only
 * without the wire's fault knobs and a VLAN tag to insert, the link up.
 * Counts what cxsim_sq_xmit() and the receive path count per frame.
 * Return: the segments merged; 0: segment @i goes on its own.
 */
static u32 cxsim_sq_lso_burst(struct cxsim_sq *sq, u32 i)
{
	struct cxsim_port *port = &sq->sd->port[sq->port];
	struct cxsim_sq_park *pk = sq->park;
	struct cxsim_lso *lso = &pk->lso;
	struct cxsim_rx_wait *w = &pk->w;
	struct cxsim_dev *sd = sq->sd;
	u32 k = 0, bytes, j, len;
	unsigned long flags;
	struct cxsim_rq *rq;

	len = cxsim_lso_seg_len(lso, i);
	if (w->lro_last < 0 || READ_ONCE(sd->fault.every[CXSIM_FAULT_DROP]) ||
	    READ_ONCE(sd->fault.every[CXSIM_FAULT_CORRUPT_CSUM]) ||
	    !READ_ONCE(port->link_up) ||
	    len > READ_ONCE(port->mtu) + ETH_HLEN ||
	    len > READ_ONCE(w->port->mtu) + ETH_HLEN)
		return 0;
	rcu_read_lock();
	rq = rcu_dereference(sd->rq[w->lro_last]);
	if (rq && rq->port == w->port->index) {
		spin_lock_bh(&rq->lock);
		spin_lock_irqsave(&rq->cq->lock, flags);
		k = cxsim_lro_burst_locked(rq, &w->rx, lso, cxsim_lso_piece,
					   sq, i, &bytes);
		spin_unlock_irqrestore(&rq->cq->lock, flags);
		spin_unlock_bh(&rq->lock);
		if (w->rx.fire) {
			w->rx.fire = false;
			cxsim_raise_irq(sd, rq->cq->vector);
		}
	}
	rcu_read_unlock();
	if (w->rx.async) {
		cxsim_async_event(sd, w->rx.async);
		w->rx.async = 0;
	}
	if (!k)
		return 0;
	sq->cnt[CXSIM_SQ_FRAMES] += k;
	sq->cnt[CXSIM_SQ_BYTES] += bytes;
	sq->cnt[CXSIM_SQ_LRO_BURST] += k;
	cxsim_port_inc(port, CXSIM_PORT_TX_FRAMES, k);
	cxsim_port_inc(port, CXSIM_PORT_TX_BYTES, bytes);
	for (j = i; j < i + k; j++) {
		len = cxsim_lso_seg_len(lso, j);
		cxsim_port_count_frame(port, CXSIM_PORT_TX_MCAST,
				       CXSIM_PORT_TX_HIST, lso->hdr, len);
		cxsim_port_count_frame(w->port, CXSIM_PORT_RX_MCAST,
				       CXSIM_PORT_RX_HIST, lso->hdr, len);
	}
	return k;
}

/*
 * Send the segments of the LSO WQE being executed (@sq->park->lso) from
 * @sq->park->lso_next on, each read from host memory as it goes.
 * Return: 0, -EAGAIN: a segment is parked, or LOCAL_PROT: a segment's
 * payload was not addressable any more (the rest is not sent).
 */
static int cxsim_sq_lso_send(struct cxsim_sq *sq, bool may_sleep)
{
	const struct cxen_tx_ctrl_seg *ctrl = (void *)sq->wqe;
	const u8 *payload = sq->buf + CXSIM_TX_HEADROOM;
	bool ins = ctrl->ins_vlan & CXEN_TX_INS_VLAN;
	struct cxsim_sq_park *pk = sq->park;
	struct cxsim_lso *lso = &pk->lso;
	u32 i, len;
	u8 *frame;
	int err;

	while (pk->lso_next < lso->nseg) {
		/* The rest of an LRO merge's segments at once, when it can. */
		if (!ins && pk->lso_next) {
			i = cxsim_sq_lso_burst(sq, pk->lso_next);
			if (i) {
				pk->lso_next += i;
				continue;
			}
		}
		i = pk->lso_next++;
		if (cxsim_lso_seg_len(lso, i) > CXSIM_MAX_WIRE_FRAME) {
			/* Longer than any MTU allows: oversize. */
			sq->cnt[CXSIM_SQ_OVERSIZE]++;
			cxsim_port_inc(&sq->sd->port[sq->port],
				       CXSIM_PORT_TX_OVERSIZE, 1);
			continue;
		}
		if (!cxsim_lso_gather(sq, i * lso->mss,
				      cxsim_lso_seg_len(lso, i) - lso->hdr_len)) {
			/* This segment and the ones after it never go. */
			cxsim_port_inc(&sq->sd->port[sq->port],
				       CXSIM_PORT_TX_DISCARDED, lso->nseg - i);
			pk->lso_next = lso->nseg;
			return CXEN_SYND_LOCAL_PROT;
		}
		frame = sq->seg + VLAN_HLEN;
		len = cxsim_lso_build(lso, i, payload, frame);
		if (ins) {
			frame = cxsim_pkt_vlan_insert(frame,
						      be16_to_cpu(ctrl->vlan_tci));
			len += VLAN_HLEN;
		}
		/* The segment's checksums are the model's own. */
		err = cxsim_sq_xmit(sq, frame, len,
				    (lso->pkt.l3 == CXEN_CQE_L3_IPV4 ?
				     CXSIM_CSUM_L3 : 0) | CXSIM_CSUM_L4,
				    may_sleep);
		if (err)
			return err;
	}
	return 0;
}

/*
 * Segment an LSO WQE's payload and send every segment.
 * Return: 0, -EAGAIN when a segment is parked, or the syndrome of the
 * error CQE the WQE gets.
 */
static int cxsim_sq_lso(struct cxsim_sq *sq, const u8 *hdr, u32 hdr_len,
			u32 mss, u32 payload_len, bool may_sleep)
{
	struct cxsim_sq_park *pk = sq->park;

	if (cxsim_lso_init(&pk->lso, hdr, hdr_len, mss, payload_len))
		return CXEN_SYND_LOCAL_QP_OP;
	pk->lso_next = 0;
	pk->in_lso = true;
	return cxsim_sq_lso_send(sq, may_sleep);
}

/**
 * cxsim_sq_send() - gather and send a SEND or LSO WQE
 * @sq: the SQ; sq->wqe holds the WQE
 * @ctrl: its control segment
 * @ds_cnt: its size in 16-byte units, control segment included
 * @lso: an LSO segment follows the control segment
 * @may_sleep: the run may wait for an RX buffer (else a frame parks)
 *
 * Return: 0, -EAGAIN when a frame of the WQE is parked, or the syndrome
 * of the error CQE the WQE gets.
 */
static int cxsim_sq_send(struct cxsim_sq *sq,
			 const struct cxen_tx_ctrl_seg *ctrl, u32 ds_cnt,
			 bool lso, bool may_sleep)
{
	u8 *data = sq->buf + CXSIM_TX_HEADROOM;
	u32 end = ds_cnt * 16, off = sizeof(*ctrl);
	u32 flags = be32_to_cpu(ctrl->flags);
	u32 glen = 0, hdr_len = 0, mss = 0;
	const u8 *hdr = NULL;
	struct cxsim_pkt pkt;
	u8 known = 0;
	u32 v, n;
	u8 *frame;

	if (lso) {
		if (off + sizeof(struct cxen_tx_lso_seg) > end)
			return CXEN_SYND_LOCAL_QP_OP;
		v = get_unaligned_be32(sq->wqe + off);
		mss = FIELD_GET(CXEN_TX_LSO_MSS, v);
		hdr_len = FIELD_GET(CXEN_TX_LSO_HDR_SIZE, v);
		n = ALIGN(sizeof(struct cxen_tx_lso_seg) + hdr_len, 16);
		if (!mss || !hdr_len || hdr_len > CXEN_HW_TX_MAX_LSO_HDR ||
		    off + n > end)
			return CXEN_SYND_LOCAL_QP_OP;
		hdr = sq->wqe + off + sizeof(struct cxen_tx_lso_seg);
		off += n;
	}

	/* An inline segment, if any, comes first. */
	if (off < end) {
		v = get_unaligned_be32(sq->wqe + off);
		if (v & CXEN_TX_INLINE) {
			glen = FIELD_GET(CXEN_TX_INLINE_LEN, v);
			n = ALIGN(sizeof(struct cxen_tx_inline_seg) + glen, 16);
			if (glen > CXEN_HW_TX_MAX_INLINE || off + n > end)
				return CXEN_SYND_LOCAL_QP_OP;
			memcpy(data, sq->wqe + off +
			       sizeof(struct cxen_tx_inline_seg), glen);
			off += n;
		}
	}

	/*
	 * A SEND's data is read now; an LSO WQE's is checked now and read
	 * as its segments go (cxsim_lso_piece()).
	 */
	sq->park->lso_inl = glen;
	sq->park->lso_nds = 0;
	for (; off < end; off += CXSIM_SEG_BYTES) {
		const struct cxen_data_seg *seg = (void *)(sq->wqe + off);
		u32 bc = be32_to_cpu(seg->byte_count);
		u64 addr = be64_to_cpu(seg->addr);

		if (!bc || bc & CXEN_TX_INLINE)
			return CXEN_SYND_LOCAL_QP_OP;
		if (be32_to_cpu(seg->lkey) != CXSIM_RSVD_LKEY)
			return CXEN_SYND_LOCAL_PROT;
		if (bc > CXSIM_TX_MAX_GATHER - glen)
			return CXEN_SYND_LOCAL_LENGTH;
		if (lso) {
			if (!cxsim_dma_check(sq->sd, addr, bc))
				return CXEN_SYND_LOCAL_PROT;
			sq->park->lso_addr[sq->park->lso_nds] = addr;
			sq->park->lso_len[sq->park->lso_nds++] = bc;
		} else if (!cxsim_dma_read(sq->sd, addr, data + glen, bc)) {
			return CXEN_SYND_LOCAL_PROT;
		}
		glen += bc;
	}

	if (lso)
		return cxsim_sq_lso(sq, hdr, hdr_len, mss, glen, may_sleep);

	if (glen < ETH_HLEN)
		return CXEN_SYND_LOCAL_LENGTH;
	frame = data;
	if (flags & (CXEN_TX_FLAG_IP_CSUM | CXEN_TX_FLAG_L4_CSUM)) {
		cxsim_pkt_parse(frame, glen, &pkt);
		known = cxsim_pkt_tx_csum(frame, &pkt,
					  flags & CXEN_TX_FLAG_IP_CSUM,
					  flags & CXEN_TX_FLAG_L4_CSUM);
	}
	if (ctrl->ins_vlan & CXEN_TX_INS_VLAN) {
		frame = cxsim_pkt_vlan_insert(frame,
					      be16_to_cpu(ctrl->vlan_tci));
		glen += VLAN_HLEN;
	}
	return cxsim_sq_xmit(sq, frame, glen, known, may_sleep);
}

/* The device is done with WQE @sq->cons. */
static void cxsim_sq_next_wqe(struct cxsim_sq *sq)
{
	sq->cons++;
	sq->cnt[CXSIM_SQ_WQES]++;
}

/* What became of the WQE a run executed (cxsim_sq_exec()) */
enum cxsim_exec {
	CXSIM_EXEC_DONE,	/* completed: on to the next */
	CXSIM_EXEC_PARKED,	/* a frame of it is parked: the work completes it */
	CXSIM_EXEC_DEFER,	/* untouched: the work executes it */
};

/*
 * Execute the WQE at sq->cons. A doorbell writer's run (no @may_sleep)
 * leaves an LSO WQE to the work untouched: up to 64 KiB of segments is
 * the device's DMA engine at work while the sender goes on, not the
 * sender's own time, as a veth transmit of one frame is.
 */
static enum cxsim_exec cxsim_sq_exec(struct cxsim_sq *sq, bool may_sleep)
{
	struct cxen_tx_ctrl_seg *ctrl = (void *)sq->wqe;
	u32 stride = 1u << sq->log_stride;
	u32 oo, ds_cnt;
	u64 addr;
	int synd;

	sq->park->in_lso = false;
	addr = sq->ring_dma +
	       ((u64)(sq->cons & ((1u << sq->log_size) - 1)) << sq->log_stride);
	if (!cxsim_dma_read(sq->sd, addr, ctrl, sizeof(*ctrl))) {
		cxsim_sq_fail(sq, CXEN_SYND_LOCAL_PROT);
		return CXSIM_EXEC_DONE;
	}
	oo = be32_to_cpu(ctrl->owner_opcode);
	if (!may_sleep && FIELD_GET(CXEN_TX_OPCODE, oo) == CXEN_TX_OP_LSO)
		return CXSIM_EXEC_DEFER;
	if (!!(oo & CXEN_TX_OWNER) != ((sq->cons >> sq->log_size) & 1)) {
		cxsim_sq_fail(sq, CXEN_SYND_BAD_OWNER);
		return CXSIM_EXEC_DONE;
	}
	ds_cnt = FIELD_GET(CXEN_TX_DS_CNT, ctrl->ds_cnt);
	if (!ds_cnt || ds_cnt * 16 > stride) {
		cxsim_sq_fail(sq, CXEN_SYND_LOCAL_QP_OP);
		return CXSIM_EXEC_DONE;
	}
	if (ds_cnt > 1 &&
	    !cxsim_dma_read(sq->sd, addr + sizeof(*ctrl),
			    sq->wqe + sizeof(*ctrl),
			    (ds_cnt - 1) * 16)) {
		cxsim_sq_fail(sq, CXEN_SYND_LOCAL_PROT);
		return CXSIM_EXEC_DONE;
	}

	switch (FIELD_GET(CXEN_TX_OPCODE, oo)) {
	case CXEN_TX_OP_NOP:
		synd = 0;
		break;
	case CXEN_TX_OP_SEND:
		synd = cxsim_sq_send(sq, ctrl, ds_cnt, false, may_sleep);
		break;
	case CXEN_TX_OP_LSO:
		synd = cxsim_sq_send(sq, ctrl, ds_cnt, true, may_sleep);
		break;
	default:
		synd = CXEN_SYND_LOCAL_QP_OP;
		break;
	}
	if (synd == -EAGAIN) {
		sq->park->cqe = be32_to_cpu(ctrl->flags) &
				CXEN_TX_FLAG_CQ_UPDATE;
		sq->park->parked = true;
		sq->cnt[CXSIM_SQ_PARKED]++;
		return CXSIM_EXEC_PARKED;
	}
	if (synd)
		cxsim_sq_fail(sq, synd);
	else if (be32_to_cpu(ctrl->flags) & CXEN_TX_FLAG_CQ_UPDATE)
		cxsim_sq_cqe(sq, CXEN_CQE_OP_SEND, 0);
	return CXSIM_EXEC_DONE;
}

/*
 * Finish the WQE a doorbell writer's run parked, as its run would have:
 * the parked frame waits for its RX buffer (or, the SQ stopped or gone,
 * is dropped), the rest of an LSO WQE's segments follow, then the WQE
 * completes. Sleeps.
 */
static void cxsim_sq_unpark(struct cxsim_sq *sq)
{
	struct cxsim_sq_park *pk = sq->park;
	int synd = 0;

	pk->parked = false;
	cxsim_rx_deliver(&pk->w, sq, true);
	if (pk->in_lso)
		synd = cxsim_sq_lso_send(sq, true);
	cxsim_lro_flush(sq->sd, &pk->w);
	if (synd > 0)
		cxsim_sq_fail(sq, synd);
	else if (pk->cqe)
		cxsim_sq_cqe(sq, CXEN_CQE_OP_SEND, 0);
	cxsim_sq_next_wqe(sq);
}

/*
 * The SQ's engine; the caller owns CXSIM_SQ_RUN. Executes WQEs from the
 * consumer counter up to the producer counter in the doorbell record,
 * CXSIM_TX_BUDGET at most. In the error state every WQE is flushed.
 * Without @may_sleep (a doorbell writer's run) it stops at a frame that
 * must wait for an RX buffer, at an LSO WQE and at a delay fault.
 *
 * Return: true when the work must go on: WQEs are left after the
 * budget, or a frame is parked, an LSO WQE is left to it, or a delay
 * must be slept.
 */
static bool cxsim_sq_run(struct cxsim_sq *sq, bool may_sleep)
{
	u32 size = 1u << sq->log_size;
	struct cxen_wq_dbrec *db;
	int budget, err;
	u16 pi;

	if (sq->park->parked) {
		if (!may_sleep)
			return true;
		cxsim_sq_unpark(sq);
	}
	if (READ_ONCE(sq->dead) || READ_ONCE(sq->stopped) ||
	    cxsim_halted(sq->sd))
		return false;
	db = cxsim_dma_ptr(sq->sd, sq->dbrec_dma, sizeof(*db));
	if (!db) {
		if (!sq->error)
			cxsim_sq_fail(sq, CXEN_SYND_LOCAL_PROT);
		return false;
	}
	pi = be32_to_cpu(READ_ONCE(db->pi)) & CXEN_WQ_DBREC_PI;
	dma_rmb();	/* the WQEs after the producer counter */

	for (budget = CXSIM_TX_BUDGET; budget && sq->cons != pi; budget--) {
		err = cxsim_fault_sq(sq, may_sleep);
		if (unlikely(err))
			return err == -EAGAIN;
		if (sq->error)
			cxsim_sq_flush(sq);
		else if ((u16)(pi - sq->cons) > size)
			cxsim_sq_fail(sq, CXEN_SYND_LOCAL_QP_OP);
		else if (unlikely(cxsim_fault_sq_error(sq)))
			cxsim_sq_fail(sq, CXEN_SYND_LOCAL_QP_OP);
		else if (cxsim_sq_exec(sq, may_sleep) != CXSIM_EXEC_DONE)
			return true;
		cxsim_sq_next_wqe(sq);
	}
	return sq->cons != pi;
}

/* Run the SQ as the owner of CXSIM_SQ_RUN, then let go of it. */
static void cxsim_sq_engine(struct cxsim_sq *sq, bool may_sleep)
{
	bool more;

	clear_bit(CXSIM_SQ_KICK, &sq->engine);
	smp_mb__after_atomic();	/* KICK cleared before the PI is read */
	more = cxsim_sq_run(sq, may_sleep);
	cxsim_lro_flush(sq->sd, &sq->park->w);
	clear_bit_unlock(CXSIM_SQ_RUN, &sq->engine);
	smp_mb__after_atomic();	/* RUN cleared before KICK is read */
	if ((more || test_bit(CXSIM_SQ_KICK, &sq->engine)) &&
	    !READ_ONCE(sq->dead))
		queue_work(sq->sd->dp_wq, &sq->work);
}

/**
 * cxsim_sq_work() - the SQ's work item: its engine, where it may sleep
 * @work: the SQ's work
 *
 * Runs the engine unless a doorbell writer's run owns it: that run queues
 * the work again when it is done and was kicked meanwhile.
 */
void cxsim_sq_work(struct work_struct *work)
{
	struct cxsim_sq *sq = container_of(work, struct cxsim_sq, work);

	if (test_and_set_bit_lock(CXSIM_SQ_RUN, &sq->engine))
		return;
	sq->cnt[CXSIM_SQ_WORK_RUNS]++;
	cxsim_sq_engine(sq, true);
}

/**
 * cxsim_sq_kick() - an SQ_DB write: run the SQ's engine
 * @sq: the SQ, looked up under RCU by the register trap
 *
 * In the writer's context when the engine is idle, db_inline is on and
 * the writer runs with bottom halves off and interrupts on (the driver's
 * ndo_start_xmit() and NAPI); else from the SQ's work. The run raises
 * the interrupts of the CQEs it writes: the driver's handler runs inside
 * this write, as an MSI-X message may arrive right after it, and the NAPI
 * it schedules once the writer enables bottom halves again, as after a
 * veth transmit. A writer that finds the engine busy leaves
 * CXSIM_SQ_KICK: the runner queues the work once it is done.
 */
void cxsim_sq_kick(struct cxsim_sq *sq)
{
	smp_mb__before_atomic();	/* the doorbell record before KICK */
	set_bit(CXSIM_SQ_KICK, &sq->engine);
	if (!READ_ONCE(db_inline) || !in_softirq() || in_hardirq() ||
	    irqs_disabled()) {
		queue_work(sq->sd->dp_wq, &sq->work);
		return;
	}
	/* Fully ordered: KICK set before RUN is read (cxsim_sq_engine()). */
	if (test_and_set_bit(CXSIM_SQ_RUN, &sq->engine))
		return;
	sq->cnt[CXSIM_SQ_INLINE_RUNS]++;
	cxsim_sq_engine(sq, false);
}

/**
 * cxsim_sq_schedule() - run the SQ's engine from its work
 * @sq: the SQ
 *
 * For the model's own reasons to look at an SQ again (a stall released).
 */
void cxsim_sq_schedule(struct cxsim_sq *sq)
{
	set_bit(CXSIM_SQ_KICK, &sq->engine);
	queue_work(sq->sd->dp_wq, &sq->work);
}

/**
 * cxsim_sq_lock() - own the SQ's engine, from the command work
 * @sq: the SQ
 *
 * Waits for the SQ's work and for a doorbell writer's run (which never
 * sleeps), then finishes a WQE a run parked: its frame goes to its RQ if
 * one is posted and is dropped otherwise when the SQ is stopped or gone,
 * the WQE completes. Until cxsim_sq_unlock() nothing runs the SQ; with
 * @sq->stopped or @sq->dead set before, nothing executes it after.
 * Process context.
 */
void cxsim_sq_lock(struct cxsim_sq *sq)
{
	cancel_work_sync(&sq->work);
	while (test_and_set_bit_lock(CXSIM_SQ_RUN, &sq->engine))
		cond_resched();
	if (sq->park->parked)
		cxsim_sq_unpark(sq);
}

/**
 * cxsim_sq_unlock() - let go of the SQ's engine
 * @sq: the SQ, owned by cxsim_sq_lock()
 */
void cxsim_sq_unlock(struct cxsim_sq *sq)
{
	clear_bit_unlock(CXSIM_SQ_RUN, &sq->engine);
}

/**
 * cxsim_sq_park_alloc() - the state of an SQ's frame on its way
 *
 * Return: a zeroed struct cxsim_sq_park for struct cxsim_sq.park (freed
 * with kfree()), or NULL.
 */
struct cxsim_sq_park *cxsim_sq_park_alloc(void)
{
	return kzalloc(sizeof(struct cxsim_sq_park), GFP_KERNEL);
}
