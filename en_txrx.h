/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxen TX: what the stack's send queues (en_tx.c) and the XDP send queues
 * (en_xdp.c) share. Both are a struct cxen_sq, built, released and freed
 * by en_tx.c (@sq->xdp says which); both post WQEs of a control segment
 * and data segments on a ring, ring the same doorbell, and take the same
 * send CQEs, each completing every WQE up to the counter it names.
 */
#ifndef _CXEN_EN_TXRX_H_
#define _CXEN_EN_TXRX_H_

#include "en.h"

/*
 * CQEs one poll takes at most: twice NAPI's budget, and at least 128 (a
 * netpoll's budget is 0). Completions are cheap and free ring room.
 */
#define CXEN_SQ_REAP_LIMIT(budget)	(max((budget), 64) * 2)

static inline u32 cxen_sq_mask(const struct cxen_sq *sq)
{
	return (1U << sq->log_size) - 1;
}

/* Free WQEs, as the producer sees them (ci moves under it). */
static inline u32 cxen_sq_room(const struct cxen_sq *sq)
{
	return (1U << sq->log_size) - (sq->pi - READ_ONCE(sq->ci));
}

/* The WQE of free-running counter @counter. */
static inline void *cxen_sq_wqe(struct cxen_sq *sq, u32 counter)
{
	return sq->wqes + ((counter & cxen_sq_mask(sq)) << sq->log_stride);
}

/* One data segment of a WQE: @len bytes at bus address @addr. */
static inline void cxen_sq_set_seg(const struct cxen_sq *sq,
				   struct cxen_data_seg *seg, dma_addr_t addr,
				   u32 len)
{
	seg->lkey = cpu_to_be32(sq->lkey);
	seg->addr = cpu_to_be64(addr);
	seg->byte_count = cpu_to_be32(len);
}

/**
 * cxen_sq_ctrl() - the control segment of the WQE at @sq->pi
 * @sq: the SQ
 * @ctrl: the WQE's control segment
 * @opcode: CXEN_TX_OP_SEND or CXEN_TX_OP_LSO
 * @units: the WQE's size in CXEN_TX_WQE_UNIT units, control included
 * @flags: CXEN_TX_FLAG_*
 *
 * No VLAN tag to insert: the caller sets one after. The owner bit
 * carries the wrap parity of the WQE's counter: the device takes the WQE
 * once it sees its pass's.
 */
static inline void cxen_sq_ctrl(const struct cxen_sq *sq,
				struct cxen_tx_ctrl_seg *ctrl, u32 opcode,
				u32 units, u32 flags)
{
	ctrl->vlan_tci = 0;
	ctrl->ins_vlan = 0;
	ctrl->ds_cnt = FIELD_PREP(CXEN_TX_DS_CNT, units);
	ctrl->flags = cpu_to_be32(flags);
	ctrl->rsvd = 0;
	ctrl->owner_opcode =
		cpu_to_be32(FIELD_PREP(CXEN_TX_OPCODE, opcode) |
			    ((sq->pi >> sq->log_size) & 1 ? CXEN_TX_OWNER : 0));
}

/* Tell the device what was posted up to @sq->pi. Counting is the caller's. */
static inline void cxen_sq_ring_doorbell(struct cxen_sq *sq)
{
	/* WQEs must be visible before the producer counter... */
	dma_wmb();
	WRITE_ONCE(sq->dbrec->pi, cpu_to_be32(sq->pi & CXEN_WQ_DBREC_PI));
	/* ...and the producer counter before the doorbell. */
	wmb();
	cxen_wr32(sq->cdev, CXEN_REG_SQ_DB, FIELD_PREP(CXEN_SQ_DB_SQN, sq->sqn));
}

/* en_tx.c: an SQ's life, and what a bad or error CQE costs */
bool cxen_sq_release_hw(struct cxen_sq *sq);
void cxen_sq_free_ring(struct cxen_sq *sq);
void cxen_sq_bad_cqe(struct cxen_sq *sq, const struct cxen_cqe *cqe);
void cxen_sq_err_cqe(struct cxen_sq *sq, const struct cxen_cqe *cqe);

/**
 * cxen_sq_cqe_done() - how many WQEs a send CQE completes
 * @sq: the SQ
 * @cqe: the CQE, owned by software, read after dma_rmb()
 * @ci: the SQ's consumer counter before it
 * @opcode: written: the CQE's opcode
 *
 * A CQE completes every WQE up to the counter it names. One of another
 * SQ, naming a WQE not outstanding, or neither a send nor an error CQE is
 * counted (tx_err_cqe), logged and ignored. An error CQE is counted, and
 * unless it is a flush the device stopped the SQ: a reset is scheduled;
 * its WQEs complete, unsent.
 *
 * Return: WQEs completed, 0 for a CQE ignored.
 */
static inline u32 cxen_sq_cqe_done(struct cxen_sq *sq,
				   const struct cxen_cqe *cqe, u32 ci,
				   u8 *opcode)
{
	u8 op = FIELD_GET(CXEN_CQE_OPCODE, cqe->owner_sr_opcode);
	u32 done = (u16)(be16_to_cpu(cqe->wqe_index) - (u16)ci) + 1;

	*opcode = op;
	if (unlikely(FIELD_GET(CXEN_CQE_QPN, be32_to_cpu(cqe->qpn)) != sq->sqn ||
		     done > READ_ONCE(sq->pi) - ci ||
		     (op != CXEN_CQE_OP_SEND && op != CXEN_CQE_OP_ERROR))) {
		cxen_sq_bad_cqe(sq, cqe);
		return 0;
	}
	if (unlikely(op == CXEN_CQE_OP_ERROR))
		cxen_sq_err_cqe(sq, cqe);
	return done;
}

#endif /* _CXEN_EN_TXRX_H_ */
