// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim striding RQ and header/data split (interface minor 3,
 * Documentation/hw-interface.rst "Striding RQ", "Header/data split").
 *
 * Called from the receive path (cxsim_rx.c) with the RQ's and its CQ's
 * locks held, once the RQ is known to be usable, a WQE posted and the CQ
 * not full:
 *
 *   - cxsim_rx_split_plan(): does this frame go apart, and to which header
 *     buffer (peeked, not consumed: a frame that waits for a WQE, or is
 *     dropped, leaves the header ring as it was);
 *   - cxsim_rq_stride_receive(): a striding RQ places the frame at the
 *     next free stride of the WQE in use, releasing it first with a filler
 *     CQE when the frame does not fit what is left of it.
 *
 * The scatter-list RQ's own path, split or not, stays in cxsim_rx.c.
 */
#include <linux/bitfield.h>
#include <linux/if_vlan.h>
#include <linux/math.h>
#include <linux/minmax.h>
#include <kunit/visibility.h>

#include "cxsim.h"
#include "cxsim_rx.h"

/* ------------------------------------------------------------------ */
/* Header/data split                                                   */
/* ------------------------------------------------------------------ */

/**
 * cxsim_rx_split_plan() - whether and where a frame's headers go apart
 * @rq: the RQ, locked
 * @rx: the frame; @rx->hlen, @rx->hdr_bc, @rx->hdr_addr and
 *	@rx->no_hdr_buf are set for this delivery attempt
 *
 * A frame is split on an RQ with CXEN_RQ_F_HDR_SPLIT when it is TCP with
 * a payload (@rx->tcp_end), at least split_min bytes long as delivered,
 * and the header buffer at the header ring's consumer counter is posted
 * and holds its headers. Only the last missing sets @rx->no_hdr_buf.
 *
 * Return: 0, or the syndrome of a bad header ring or entry (the RQ then
 * fails as for a bad WQE).
 */
int cxsim_rx_split_plan(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx)
{
	u32 size = 1u << rq->log_hdr_size, hlen, bc;
	struct cxen_wq_dbrec *db;
	struct cxen_data_seg seg;
	u16 posted;

	rx->hlen = 0;
	rx->hdr_bc = 0;
	rx->hdr_addr = 0;
	rx->no_hdr_buf = false;
	if (!(rq->rq_flags & CXEN_RQ_F_HDR_SPLIT) || !rx->tcp_end)
		return 0;
	hlen = rx->tcp_end - (rx->strip ? VLAN_HLEN : 0);
	if (rx->len < rq->split_min || hlen >= rx->len)
		return 0;

	db = cxsim_dma_ptr(rq->sd, rq->dbrec_dma, sizeof(*db));
	if (!db)
		return CXEN_SYND_LOCAL_PROT;
	posted = (be32_to_cpu(READ_ONCE(db->hdr_pi)) & CXEN_WQ_DBREC_PI) -
		 rq->hdr_cons;
	if (!posted) {
		rx->no_hdr_buf = true;
		return 0;
	}
	if (posted > size)
		return CXEN_SYND_LOCAL_QP_OP;
	dma_rmb();	/* the entries after the producer counter */
	if (!cxsim_dma_read(rq->sd, rq->hdr_ring_dma +
			    (u64)(rq->hdr_cons & (size - 1)) * sizeof(seg),
			    &seg, sizeof(seg)))
		return CXEN_SYND_LOCAL_PROT;
	bc = be32_to_cpu(seg.byte_count);
	if (!bc || bc > CXEN_HW_MAX_HDR_BUF)
		return CXEN_SYND_LOCAL_QP_OP;	/* bit 31 included */
	if (be32_to_cpu(seg.lkey) != CXSIM_RSVD_LKEY)
		return CXEN_SYND_LOCAL_PROT;
	if (hlen > bc) {
		rx->no_hdr_buf = true;
		return 0;
	}
	if (!cxsim_dma_check(rq->sd, be64_to_cpu(seg.addr), hlen))
		return CXEN_SYND_LOCAL_PROT;
	rx->hlen = hlen;
	rx->hdr_bc = bc;
	rx->hdr_addr = be64_to_cpu(seg.addr);
	return 0;
}

/* A split frame's CQE fields: HDR_SPLIT, hdr_len, hdr_index. */
void cxsim_rx_split_write(struct cxsim_rq *rq, const struct cxsim_rx_ctx *rx,
			  struct cxen_cqe *cqe)
{
	cqe->flags |= cpu_to_be32(CXEN_CQE_HDR_SPLIT);
	cqe->hdr_len = cpu_to_be16(rx->hlen);
	cqe->hdr_index = cpu_to_be16(rq->hdr_cons);
}

/* ------------------------------------------------------------------ */
/* Striding RQ                                                         */
/* ------------------------------------------------------------------ */

/**
 * cxsim_stride_need() - strides a frame takes in a striding WQE
 * @log_stride_bytes: the RQ's stride size, log2
 * @headroom: the RQ's headroom (whole frames only)
 * @tailroom: the RQ's tailroom (whole frames only)
 * @len: the frame's length as delivered
 * @hlen: header bytes that went to a header buffer, 0 when not split
 *
 * A whole frame takes its headroom, itself and its tailroom; a split
 * frame its payload alone.
 *
 * Return: the number of strides.
 */
u32 cxsim_stride_need(u8 log_stride_bytes, u16 headroom, u16 tailroom,
		      u32 len, u32 hlen)
{
	u32 bytes = hlen ? len - hlen : headroom + len + tailroom;

	return DIV_ROUND_UP(bytes, 1u << log_stride_bytes);
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_stride_need);

/*
 * Read and check WQE rq->cons: one data segment per page, byte_count the
 * page size, the reserved lkey, 64-byte aligned addresses.
 * Return: 0, or the syndrome.
 */
static u8 cxsim_stride_load_locked(struct cxsim_rq *rq)
{
	u32 npages = 1u << (rq->log_stride - 4), i;
	u64 wqe = rq->ring_dma + ((u64)(rq->cons & ((1u << rq->log_size) - 1))
				  << rq->log_stride);
	struct cxen_data_seg seg;
	u64 addr;

	for (i = 0; i < npages; i++) {
		if (!cxsim_dma_read(rq->sd, wqe + i * sizeof(seg), &seg,
				    sizeof(seg)))
			return CXEN_SYND_LOCAL_PROT;
		if (be32_to_cpu(seg.byte_count) != 1u << rq->log_page_bytes)
			return CXEN_SYND_LOCAL_QP_OP;
		if (be32_to_cpu(seg.lkey) != CXSIM_RSVD_LKEY)
			return CXEN_SYND_LOCAL_PROT;
		addr = be64_to_cpu(seg.addr);
		if (!IS_ALIGNED(addr, CXEN_HW_STRIDE_ALIGN))
			return CXEN_SYND_LOCAL_QP_OP;
		rq->page[i] = addr;
	}
	rq->wqe_valid = true;
	return 0;
}

/**
 * cxsim_stride_bytes() - check or write bytes of the WQE in use
 * @rq: the RQ, locked, its WQE loaded
 * @rx: the frame whose delivered bytes are written; NULL: check only
 * @off: the first byte in the WQE
 * @n: how many
 * @src: the first of the frame's delivered bytes to write there
 *
 * Page by page: a frame's bytes may cross pages.
 *
 * Return: false when a page's range is not addressable (check only).
 */
bool cxsim_stride_bytes(struct cxsim_rq *rq, const struct cxsim_rx_ctx *rx,
			u32 off, u32 n, u32 src)
{
	u32 page = 1u << rq->log_page_bytes, in, chunk;
	u64 dma;

	while (n) {
		in = off & (page - 1);
		chunk = min(n, page - in);
		dma = rq->page[off >> rq->log_page_bytes] + in;
		if (!rx) {
			if (!cxsim_dma_check(rq->sd, dma, chunk))
				return false;
		} else {
			cxsim_rx_copy(rq, rx, dma, src, chunk);
			src += chunk;
		}
		off += chunk;
		n -= chunk;
	}
	return true;
}

/* Write @n bytes of @buf at byte @off of the WQE in use (checked before). */
void cxsim_stride_write(struct cxsim_rq *rq, u32 off, const void *buf, u32 n)
{
	u32 page = 1u << rq->log_page_bytes, in, chunk;

	while (n) {
		in = off & (page - 1);
		chunk = min(n, page - in);
		cxsim_dma_write(rq->sd, rq->page[off >> rq->log_page_bytes] + in,
				buf, chunk);
		buf += chunk;
		off += chunk;
		n -= chunk;
	}
}

/**
 * cxsim_stride_post_frame() - complete a frame placed in the WQE in use
 * @rq: the RQ, locked with its CQ
 * @rx: the delivery (the interrupt the CQE fires is its to raise)
 * @cqe: the frame's CQE, all but its strides set
 * @first: its first stride
 * @n: its strides
 *
 * The CQE gets the strides, and WQE_LAST when they end the WQE, which is
 * then released.
 */
void cxsim_stride_post_frame(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			     struct cxen_cqe *cqe, u32 first, u32 n)
{
	cqe->strides = cxen_cqe_strides(first, n);
	if (first + n == rq->strides)
		cqe->flags |= cpu_to_be32(CXEN_CQE_WQE_LAST);
	cxsim_fault_rx_cqe(rq->sd, cqe, rq->strides, rx->hdr_bc);
	cxsim_rq_post_cqe_locked(rq, rx, cqe);
	rq->cnt[CXSIM_RQ_STRIDES] += n;
	rq->stride_pos = first + n;
	if (rq->stride_pos == rq->strides)
		cxsim_rq_next_wqe(rq);
}

/* A filler CQE for strides @first .. @first + @num - 1 of WQE cons. */
static void cxsim_stride_filler_locked(struct cxsim_rq *rq,
				       struct cxsim_rx_ctx *rx, u32 first,
				       u32 num)
{
	struct cxen_cqe cqe;

	cxsim_rq_cqe_init(rq, &cqe, CXEN_CQE_OP_RECV, 0);
	cqe.flags = cpu_to_be32(CXEN_CQE_FILLER | CXEN_CQE_WQE_LAST);
	cqe.strides = cxen_cqe_strides(first, num);
	cxsim_rq_post_cqe_locked(rq, rx, &cqe);
	rq->cnt[CXSIM_RQ_FILLERS]++;
}

/**
 * cxsim_rq_stride_receive() - place a frame in a striding RQ
 * @rq: the RQ, locked with its CQ; a WQE posted, the CQ not full
 * @rx: the frame
 * @fc: what the frame does when no WQE is left for it
 * @pi: the producer counter in the doorbell record
 *
 * A frame too long for any WQE gets a LOCAL_LENGTH CQE that consumes
 * nothing. One that does not fit what is left of the WQE in use releases
 * it with a filler CQE, then takes the next WQE (none: out of buffer, or
 * wait under flow control). Otherwise it is written at the WQE's next
 * free stride: after the headroom when whole, its payload alone at the
 * stride when split. Its CQE gives its strides and WQE_LAST when they
 * end the WQE. Nothing is written or consumed when the CQ lacks room for
 * every CQE the frame needs.
 *
 * Return: -ENOBUFS when the frame may wait for a WQE, else 0.
 */
int cxsim_rq_stride_receive(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			    enum cxsim_rx_fc fc, u16 pi)
{
	struct cxsim_port *port = &rq->sd->port[rq->port];
	u32 S = 1u << rq->log_stride_bytes, n, first, room, start;
	struct cxen_cqe cqe;
	bool filler, mid;
	u8 synd;

	synd = cxsim_rx_split_plan(rq, rx);
	if (synd)
		goto fail;
	n = cxsim_stride_need(rq->log_stride_bytes, rq->headroom,
			      rq->tailroom, rx->len, rx->hlen);
	if (n > rq->strides) {
		/* No WQE holds it: dropped, nothing consumed. */
		cxsim_rq_cqe_locked(rq, rx, CXEN_CQE_OP_ERROR,
				    CXEN_SYND_LOCAL_LENGTH);
		rq->cnt[CXSIM_RQ_ERROR_CQES]++;
		cxsim_port_inc(port, CXSIM_PORT_RX_ERRORS, 1);
		return 0;
	}
	filler = rq->stride_pos + n > rq->strides;
	room = cxsim_cq_room_locked(rq->cq);
	if (room < 1 + filler) {
		cxsim_rq_cq_overrun_locked(rq, rx);
		return 0;
	}
	if (filler) {
		cxsim_stride_filler_locked(rq, rx, rq->stride_pos,
					   rq->strides - rq->stride_pos);
		cxsim_rq_next_wqe(rq);
		if (rq->cons == pi)
			return cxsim_rq_no_buffer_locked(rq, fc);
	}
	if (!rq->wqe_valid) {
		synd = cxsim_stride_load_locked(rq);
		if (synd)
			goto fail;
	}

	first = rq->stride_pos;
	start = first * S + (rx->hlen ? 0 : rq->headroom);
	if (!cxsim_stride_bytes(rq, NULL, start, rx->len - rx->hlen, 0)) {
		synd = CXEN_SYND_LOCAL_PROT;
		goto fail;
	}
	/* Fault: a filler that releases nothing, in the middle of the WQE. */
	mid = first && room >= 2 && cxsim_fault_filler_mid(rq->sd);
	if (mid)
		cxsim_stride_filler_locked(rq, rx, first, 1);

	if (rx->hlen)
		cxsim_rx_copy(rq, rx, rx->hdr_addr, 0, rx->hlen);
	cxsim_stride_bytes(rq, rx, start, rx->len - rx->hlen, rx->hlen);
	cxsim_rq_count_frame(rq, rx);
	/* A TCP segment may open a merge: its CQE waits for the merge's end. */
	if ((rq->rq_flags & CXEN_RQ_F_LRO) &&
	    cxsim_lro_open_locked(rq, rx, first, start))
		return 0;

	cxsim_rq_cqe_init(rq, &cqe, CXEN_CQE_OP_RECV, 0);
	cqe.rss_hash = cpu_to_be32(rx->hash);
	cqe.flags = cpu_to_be32(rx->flags);
	cqe.vlan_tci = cpu_to_be16(rx->vlan_tci);
	cqe.byte_cnt = cpu_to_be32(rx->len);
	if (rx->hlen) {
		cxsim_rx_split_write(rq, rx, &cqe);
		rq->hdr_cons++;
	}
	cxsim_stride_post_frame(rq, rx, &cqe, first, n);
	return 0;

fail:
	cxsim_rq_fail_locked(rq, rx, pi, synd);
	cxsim_port_inc(port, CXSIM_PORT_RX_QUEUE_ERROR, 1);
	return 0;
}
