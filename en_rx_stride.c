// SPDX-License-Identifier: GPL-2.0
/*
 * cxen RX: the striding RQ, the kind of the layout CXEN_RX_STRIDING.
 *
 * A striding WQE is a run of page_pool pages, one data segment per page,
 * cut into strides (Documentation/hw-interface.rst "Striding RQ"); the
 * device writes each frame at the next free stride and the frame pins
 * only the strides it takes. The geometry is cxen_stride_layout()'s
 * (en_frag.c) with no pads: frames are packed back to back, so an skb is
 * never built in place; its headers are copied into a small head and the
 * rest of the frame is attached as page frags, one per page it touches.
 *
 * Pages and references: each page of a WQE is posted with
 * CXEN_STRIDE_PAGE_BIAS page_pool references, its strides per page, the
 * most skb frags it can ever give out (a frame that touches a page holds
 * at least one of its strides). Every skb frag takes one of them (@given)
 * and gives it back when the skb is freed; when the WQE is retired (its
 * last CQE, a filler, a flush) the driver drops the ones it did not give
 * out. A page therefore returns to its pool when the last skb holding
 * one of its strides is freed, or at retirement if none does.
 *
 * Every CQE goes through cxen_stride_account() before anything is taken
 * from the ring: a CQE it refuses is counted by verdict (rx_stride_*) and
 * its frame dropped; the strides the device consumed under it are
 * dropped at the next CQE accepted. Two CQEs in a row naming a WQE the
 * driver does not have in use reset the RQ (the position may be behind
 * the device).
 */
#include <kunit/visibility.h>
#include <linux/etherdevice.h>
#include <linux/sizes.h>
#include <net/page_pool/helpers.h>

#include "en_rx.h"

/* page_pool's recycling ring: this many times the pages the ring posts. */
#define CXEN_STRIDE_POOL_MULT		2
#define CXEN_STRIDE_MAX_POOL_SIZE	32768
/* CQEs naming a wrong WQE in a row that reset the RQ. */
#define CXEN_STRIDE_BAD_WQE_RESET	2

/* References a page is posted with: its strides. */
static inline u32 cxen_stride_page_bias(const struct cxen_stride_layout *l)
{
	return 1U << (l->log_page - l->log_stride);
}

static inline u32 cxen_stride_mask(const struct cxen_rq *rq)
{
	return (1U << rq->log_size) - 1;
}

/* The pages of WQE @counter (free running). */
static inline struct cxen_stride_page *
cxen_stride_wqe_pages(struct cxen_rq *rq, u32 counter)
{
	return &rq->spages[(counter & cxen_stride_mask(rq)) <<
			   rq->slayout.log_wqe_pages];
}

/*
 * Give back what WQE @counter did not hand to skbs. @direct: from the
 * pool's NAPI, into its lockless cache.
 */
static void cxen_stride_retire(struct cxen_rq *rq, u32 counter, bool direct)
{
	const struct cxen_stride_layout *l = &rq->slayout;
	struct cxen_stride_page *pg = cxen_stride_wqe_pages(rq, counter);
	u32 bias = cxen_stride_page_bias(l);
	unsigned int i;

	for (i = 0; i < 1U << l->log_wqe_pages; i++) {
		long left;

		if (!pg[i].page)
			continue;
		left = bias - pg[i].given;
		if (left > 0 && !page_pool_unref_page(pg[i].page, left))
			page_pool_put_unrefed_page(rq->pool, pg[i].page, -1,
						   direct);
		pg[i].page = NULL;
	}
}

/* Every WQE's pages, posted or not: the device no longer uses them. */
static void cxen_stride_release_all(struct cxen_rq *rq)
{
	u32 slot;

	for (slot = 0; slot < 1U << rq->log_size; slot++)
		cxen_stride_retire(rq, slot, false);
}

/* Give WQE slot @counter its pages (those it lacks) and write it. */
static int cxen_stride_post(struct cxen_rq *rq, u32 counter, gfp_t gfp)
{
	const struct cxen_stride_layout *l = &rq->slayout;
	struct cxen_stride_page *pg = cxen_stride_wqe_pages(rq, counter);
	struct cxen_data_seg *seg = &rq->swqes[(counter & cxen_stride_mask(rq)) <<
					       l->log_wqe_pages];
	u32 bias = cxen_stride_page_bias(l);
	unsigned int i;

	for (i = 0; i < 1U << l->log_wqe_pages; i++) {
		if (!pg[i].page) {
			struct page *page;

			page = page_pool_alloc_pages(rq->pool,
						     gfp | __GFP_NOWARN);
			if (unlikely(!page))
				return -ENOMEM;
			/* One reference for each skb frag it may give. */
			page_pool_fragment_page(page, bias);
			pg[i].page = page;
			pg[i].dma = page_pool_get_dma_addr(page);
			pg[i].given = 0;
			cxen_rq_inc(rq, pages_started);
		}
		seg[i].byte_count = cpu_to_be32(1U << l->log_page);
		seg[i].lkey = cpu_to_be32(rq->lkey);
		seg[i].addr = cpu_to_be64(pg[i].dma);
	}
	return 0;
}

/* Header buffers a page holds. */
#define CXEN_HDR_PER_PAGE	(PAGE_SIZE / CXEN_HDR_BUF_SIZE)

/* The kernel address and bus address of header buffer @n (free running). */
static void *cxen_stride_hdr_buf(const struct cxen_rq *rq, u32 n,
				 dma_addr_t *dma)
{
	u32 i = n & (rq->hdr_size - 1);
	struct page *page = rq->hdr_pages[i / CXEN_HDR_PER_PAGE];
	u32 off = (i % CXEN_HDR_PER_PAGE) * CXEN_HDR_BUF_SIZE;

	*dma = page_pool_get_dma_addr(page) + off;
	return page_address(page) + off;
}

/*
 * Header/data split: @size header buffers carved from page_pool pages
 * the RQ keeps for its life, each at a fixed place of the header ring.
 */
static int cxen_stride_hdr_alloc(struct cxen_rq *rq, u32 size)
{
	u32 npages = DIV_ROUND_UP(size, CXEN_HDR_PER_PAGE), i;
	dma_addr_t dma;

	rq->hdr_size = size;
	rq->hdr_ci = 0;
	rq->hdr_pi = 0;
	rq->hdr_pages = kcalloc(npages, sizeof(*rq->hdr_pages), GFP_KERNEL);
	if (!rq->hdr_pages)
		return -ENOMEM;
	rq->hdr_ring = dma_alloc_coherent(rq->dma_dev,
					  size * sizeof(*rq->hdr_ring),
					  &rq->hdr_ring_dma, GFP_KERNEL);
	if (!rq->hdr_ring)
		goto err_pages;
	for (i = 0; i < npages; i++) {
		rq->hdr_pages[i] = page_pool_alloc_pages(rq->pool, GFP_KERNEL);
		if (!rq->hdr_pages[i])
			goto err_put;
		cxen_rq_inc(rq, pages_started);
	}
	for (i = 0; i < size; i++) {
		cxen_stride_hdr_buf(rq, i, &dma);
		rq->hdr_ring[i].byte_count = cpu_to_be32(CXEN_HDR_BUF_SIZE);
		rq->hdr_ring[i].lkey = cpu_to_be32(rq->lkey);
		rq->hdr_ring[i].addr = cpu_to_be64(dma);
	}
	return 0;

err_put:
	while (i--)
		page_pool_put_full_page(rq->pool, rq->hdr_pages[i], false);
	dma_free_coherent(rq->dma_dev, size * sizeof(*rq->hdr_ring),
			  rq->hdr_ring, rq->hdr_ring_dma);
	rq->hdr_ring = NULL;
err_pages:
	kfree(rq->hdr_pages);
	rq->hdr_pages = NULL;
	return -ENOMEM;
}

/* Give the header buffers' pages back; the device no longer uses them. */
static void cxen_stride_hdr_free(struct cxen_rq *rq)
{
	u32 i;

	if (!rq->hdr_ring)
		return;
	for (i = 0; i < DIV_ROUND_UP(rq->hdr_size, CXEN_HDR_PER_PAGE); i++)
		page_pool_put_full_page(rq->pool, rq->hdr_pages[i], false);
	dma_free_coherent(rq->dma_dev, rq->hdr_size * sizeof(*rq->hdr_ring),
			  rq->hdr_ring, rq->hdr_ring_dma);
	rq->hdr_ring = NULL;
	kfree(rq->hdr_pages);
	rq->hdr_pages = NULL;
}

/*
 * Post again the header buffers the device consumed: each is where it
 * was, so the producer counter runs a ring's size ahead of them.
 */
static void cxen_stride_hdr_post(struct cxen_rq *rq)
{
	u32 pi = rq->hdr_ci + rq->hdr_size;

	if (!rq->hdr_ring || pi == rq->hdr_pi)
		return;
	rq->hdr_pi = pi;
	/* Buffers synced for the device before the counter. */
	dma_wmb();
	WRITE_ONCE(rq->dbrec->hdr_pi, cpu_to_be32(pi & CXEN_WQ_DBREC_PI));
}

/*
 * A split CQE (RECV with HDR_SPLIT): the device consumed a header
 * buffer. Checks its index against the driver's count and its length
 * with cxen_hdr_split_ok(). Return: the header buffer's counter, or -1
 * when the CQE is refused (counted).
 */
static s64 cxen_stride_hdr_check(struct cxen_rq *rq, const struct cxen_cqe *cqe)
{
	u32 n = rq->hdr_ci;

	if (unlikely(!rq->hdr_ring)) {
		/* Split without a header ring: nothing to trust. */
		cxen_rq_inc(rq, hdr_bad_index);
		return -1;
	}
	rq->hdr_ci++;
	if (unlikely(be16_to_cpu(cqe->hdr_index) != (u16)n)) {
		cxen_rq_inc(rq, hdr_bad_index);
		return -1;
	}
	if (unlikely(!cxen_hdr_split_ok(CXEN_HDR_BUF_SIZE,
					be32_to_cpu(cqe->byte_cnt),
					be16_to_cpu(cqe->hdr_len)))) {
		cxen_rq_inc(rq, hdr_bad_len);
		return -1;
	}
	return n;
}

/**
 * cxen_stride_fill() - post striding WQEs until the ring is full
 * @rq: the RQ
 * @gfp: GFP_KERNEL at creation and reset, GFP_ATOMIC from NAPI
 *
 * Return: 0, or -ENOMEM (the WQEs posted so far stay posted; a WQE short
 * of pages keeps those it got for the next try).
 */
static int cxen_stride_fill(struct cxen_rq *rq, gfp_t gfp)
{
	u32 pi = rq->pi;
	int err = 0;

	/* No more than the CQ can complete, however short the frames. */
	while (pi - rq->ci < rq->post_max) {
		err = cxen_stride_post(rq, pi, gfp);
		if (unlikely(err)) {
			cxen_rq_inc(rq, alloc_fail);
			break;
		}
		cxen_rq_inc(rq, stride_wqe_post);
		pi++;
	}
	if (pi != rq->pi) {
		rq->pi = pi;
		/* WQEs must be visible before the producer counter. */
		dma_wmb();
		WRITE_ONCE(rq->dbrec->pi, cpu_to_be32(pi & CXEN_WQ_DBREC_PI));
	}
	cxen_stride_hdr_post(rq);
	return err;
}

/* Count a CQE cxen_stride_account() refused; its frame is dropped. */
static void cxen_stride_refused(struct cxen_rq *rq, enum cxen_stride_verdict v)
{
	switch (v) {
	case CXEN_STRIDE_BAD_WQE:
		cxen_rq_inc(rq, stride_bad_wqe);
		/* Two in a row: the position may be behind the device. */
		if (++rq->bad_wqe_run >= CXEN_STRIDE_BAD_WQE_RESET)
			cxen_rq_schedule_reset(rq);
		return;
	case CXEN_STRIDE_BAD_RANGE:
		cxen_rq_inc(rq, stride_bad_range);
		break;
	case CXEN_STRIDE_REUSED:
		cxen_rq_inc(rq, stride_reused);
		break;
	case CXEN_STRIDE_BAD_FIRST:
		cxen_rq_inc(rq, stride_bad_first);
		break;
	case CXEN_STRIDE_BAD_COUNT:
		cxen_rq_inc(rq, stride_bad_count);
		break;
	case CXEN_STRIDE_BAD_LAST:
		cxen_rq_inc(rq, stride_bad_last);
		break;
	case CXEN_STRIDE_BAD_FILLER:
		cxen_rq_inc(rq, stride_bad_filler);
		break;
	case CXEN_STRIDE_OK:
		break;
	}
	rq->bad_wqe_run = 0;
}

/**
 * cxen_stride_skb() - the skb of a frame in strides of the WQE in use
 * @rq: the RQ
 * @napi: its NAPI instance
 * @pc: the frame's pieces, one per page (cxen_stride_pieces())
 * @n: how many
 * @len: the frame's length
 * @hdr: a split frame's headers (its header buffer, synced), else NULL
 * @hdr_len: their length
 * @truesize: what its strides pin (cxen_stride_truesize()); set to 0 when
 *	the frame was copied whole (no frag charges its strides)
 * @flags: its CQE's flags
 *
 * A split frame's headers are copied from its header buffer into a small
 * head and its payload pieces attached as page frags. Otherwise a frame
 * up to rx_copybreak is copied whole and its strides dropped, and a
 * larger one has its headers (cxen_rx_hdr_len() from the CQE's parse,
 * else eth_get_headlen(), over the first piece) copied into a small head
 * and the rest attached. Each frag takes one of
 * its page's references and charges its bytes; the skb is charged the
 * rest of the frame's strides on top (skb_add_rx_frag() wants no frag
 * charging less than its size).
 *
 * Return: the skb, or NULL when none could be allocated (the strides are
 * dropped with their WQE).
 */
static struct sk_buff *cxen_stride_skb(struct cxen_rq *rq,
				       struct napi_struct *napi,
				       const struct cxen_stride_piece *pc,
				       unsigned int n, u32 len, const void *hdr,
				       u32 hdr_len, u32 *truesize, u32 flags)
{
	struct cxen_stride_page *pg = cxen_stride_wqe_pages(rq, rq->ci);
	void *va = page_address(pg[pc[0].page].page) + pc[0].offset;
	u32 hlen, rem, skip, attached = 0;
	struct sk_buff *skb;
	unsigned int i;

	net_prefetch(va);
	if (hdr) {
		hlen = hdr_len;
	} else if (len <= READ_ONCE(rq->priv->rx_copybreak)) {
		hlen = len;
	} else {
		u32 avail = min3(len, pc[0].len, (u32)CXEN_RX_HDR_COPY);

		hlen = cxen_rx_hdr_len(va, avail, flags) ?:
		       eth_get_headlen(rq->netdev, va, avail);
	}
	skb = napi_alloc_skb(napi, max_t(u32, hlen, CXEN_RX_HDR_COPY));
	if (unlikely(!skb))
		return NULL;
	if (hdr) {
		skb_put_data(skb, hdr, hlen);
		cxen_rq_inc(rq, hdr_split);
		hlen = 0;	/* the pieces are the payload */
	} else if (hlen == len) {
		cxen_rq_inc(rq, copybreak);
	}

	for (i = 0, rem = hlen; i < n; i++) {
		struct cxen_stride_page *p = &pg[pc[i].page];

		skip = min(rem, pc[i].len);
		if (skip)
			skb_put_data(skb, page_address(p->page) + pc[i].offset,
				     skip);
		rem -= skip;
		if (pc[i].len == skip)
			continue;
		/* Each frag charges its bytes, the strides' rest below. */
		skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags, p->page,
				pc[i].offset + skip, pc[i].len - skip,
				pc[i].len - skip);
		attached += pc[i].len - skip;
		p->given++;
	}
	if (skb_shinfo(skb)->nr_frags)
		skb->truesize += *truesize - attached;
	else
		*truesize = 0;
	skb_mark_for_recycle(skb);
	return skb;
}

/* A frame's CQE accepted: deliver it from its strides. */
static void cxen_stride_frame(struct cxen_rq *rq, struct napi_struct *napi,
			      const struct cxen_cqe *cqe,
			      const struct cxen_stride_take *t, s64 hdr_n)
{
	const struct cxen_stride_layout *l = &rq->slayout;
	struct cxen_stride_page *pg = cxen_stride_wqe_pages(rq, rq->ci);
	struct cxen_stride_piece pc[CXEN_STRIDE_MAX_PIECES];
	u32 len = be32_to_cpu(cqe->byte_cnt), truesize, hdr_len = 0, segs = 1;
	u32 flags = be32_to_cpu(cqe->flags);
	void *hdr = NULL;
	struct sk_buff *skb;
	dma_addr_t hdr_dma;
	gro_result_t ret;
	unsigned int i, n;

	if (hdr_n >= 0) {
		hdr_len = be16_to_cpu(cqe->hdr_len);
		hdr = cxen_stride_hdr_buf(rq, hdr_n, &hdr_dma);
		dma_sync_single_range_for_cpu(rq->dma_dev, hdr_dma, 0, hdr_len,
					      DMA_FROM_DEVICE);
	}
	/* Every piece may become a frag (an LRO frame's 64 KiB on 4 KiB pages). */
	BUILD_BUG_ON(CXEN_STRIDE_MAX_PIECES > MAX_SKB_FRAGS);
	n = cxen_stride_pieces(l, t->first, len, hdr_len, pc, ARRAY_SIZE(pc));
	if (unlikely(len < ETH_HLEN || !n)) {
		cxen_rq_inc(rq, oversize);
		return;
	}
	/* Sync for the CPU only the bytes the device wrote. */
	for (i = 0; i < n; i++)
		dma_sync_single_range_for_cpu(rq->dma_dev, pg[pc[i].page].dma,
					      pc[i].offset, pc[i].len,
					      DMA_FROM_DEVICE);

	/* The headers are copied: their buffer is not the skb's to pin. */
	truesize = cxen_stride_truesize(l, t->num, false);
	skb = cxen_stride_skb(rq, napi, pc, n, len, hdr, hdr_len, &truesize,
			      flags);
	if (hdr)
		dma_sync_single_range_for_device(rq->dma_dev, hdr_dma, 0,
						 hdr_len, DMA_FROM_DEVICE);
	if (unlikely(!skb)) {
		cxen_rq_inc(rq, alloc_fail);
		cxen_rq_inc(rq, skb_alloc_fail);
		return;
	}
	/* The Ethernet header may start in the page before the next one. */
	if (unlikely(!pskb_may_pull(skb, ETH_HLEN))) {
		napi_consume_skb(skb, 0);
		cxen_rq_inc(rq, oversize);
		return;
	}
	skb->protocol = eth_type_trans(skb, rq->netdev);
	/* A merged frame: the segments it stands for, checked. */
	if (flags & CXEN_CQE_LRO) {
		if (unlikely(!rq->lro ||
			     cxen_rx_lro_gso(skb, flags, cqe->lro_segs))) {
			napi_consume_skb(skb, 0);
			cxen_rq_inc(rq, lro_bad);
			return;
		}
		segs = cqe->lro_segs;
		cxen_rq_inc(rq, lro_packets);
		cxen_rq_add(rq, lro_bytes, len);
	}
	cxen_rq_add(rq, packets, segs);
	cxen_rq_add(rq, bytes, len);
	cxen_rq_add(rq, stride_truesize, truesize);
	skb_record_rx_queue(skb, rq->qid);
	cxen_rx_meta(rq, skb, cqe, flags);
	cxen_rq_add(rq, truesize_bytes, skb->truesize);
	ret = napi_gro_receive(napi, skb);
	cxen_rq_add(rq, gro_segs, segs);
	if (ret == GRO_HELD || ret == GRO_NORMAL)
		cxen_rq_inc(rq, gro_packets);
}

/*
 * One CQE of the RQ, owned by software and read after dma_rmb(). Nothing
 * is taken from the ring before cxen_stride_account() accepted it.
 */
static void cxen_stride_cqe(struct cxen_rq *rq, struct napi_struct *napi,
			    const struct cxen_cqe *cqe)
{
	u8 op = FIELD_GET(CXEN_CQE_OPCODE, cqe->owner_sr_opcode);
	const struct cxen_stride_layout *l = &rq->slayout;
	enum cxen_stride_verdict v;
	struct cxen_stride_take t;
	s64 hdr_n = -1;

	if (unlikely((op != CXEN_CQE_OP_RECV && op != CXEN_CQE_OP_ERROR) ||
		     FIELD_GET(CXEN_CQE_QPN, be32_to_cpu(cqe->qpn)) != rq->rqn)) {
		cxen_rq_inc(rq, bad_cqe);
		return;
	}
	if (op == CXEN_CQE_OP_RECV &&
	    (be32_to_cpu(cqe->flags) & CXEN_CQE_HDR_SPLIT)) {
		hdr_n = cxen_stride_hdr_check(rq, cqe);
		if (unlikely(hdr_n < 0)) {
			/* Its strides, whatever it says, are dropped later. */
			cxen_stride_refuse(l, &rq->spos, cqe);
			return;
		}
	}
	v = cxen_stride_account(l, &rq->spos, cqe, &t);
	if (unlikely(v != CXEN_STRIDE_OK)) {
		cxen_stride_refused(rq, v);
		return;
	}
	rq->bad_wqe_run = 0;

	/* A refused CQE released the WQE in use: drop its rest, retire it. */
	if (unlikely(t.skip_wqe)) {
		cxen_rq_add(rq, stride_drop, l->strides - t.skip_from);
		cxen_stride_retire(rq, rq->ci, true);
		cxen_rq_inc(rq, stride_wqe_retire);
		rq->ci++;
	}
	/* Strides a refused CQE consumed before these. */
	cxen_rq_add(rq, stride_drop, t.first - t.gap_from);

	if (likely(t.frame)) {
		cxen_stride_frame(rq, napi, cqe, &t, hdr_n);
	} else {
		cxen_rq_add(rq, stride_drop, t.num);
		if (op == CXEN_CQE_OP_ERROR)
			cxen_rx_err_cqe(rq, cqe);
		else
			cxen_rq_inc(rq, stride_filler);
	}
	if (t.release) {
		cxen_stride_retire(rq, rq->ci, true);
		cxen_rq_inc(rq, stride_wqe_retire);
		rq->ci++;
	}
}

/**
 * cxen_stride_poll() - the striding RQ's poll (cxen_poll_rx())
 * @rq: the RQ
 * @napi: its NAPI instance
 * @budget: most CQEs to take (fillers included), at least 1
 *
 * Return: CQEs taken.
 */
int cxen_stride_poll(struct cxen_rq *rq, struct napi_struct *napi, int budget)
{
	struct cxen_cqe *cqe;
	int work = 0;

	while (work < budget && (cqe = cxen_cqe_owned(&rq->cq))) {
		/* Read the CQE only after seeing its owner bit. */
		dma_rmb();
		cxen_stride_cqe(rq, napi, cqe);
		rq->cq.ci++;
		work++;
	}
	if (work)
		cxen_cq_update_ci(&rq->cq);
	/* An RQ in error flushes whatever is posted: wait for its reset. */
	if (likely(!test_bit(CXEN_RQ_RESET, &rq->state)))
		cxen_stride_hdr_post(rq);
	if (likely(!test_bit(CXEN_RQ_RESET, &rq->state)) &&
	    rq->pi - rq->ci < rq->post_max &&
	    cxen_stride_fill(rq, GFP_ATOMIC) && rq->pi == rq->ci)
		/* Starved: no completion will come to retry for us. */
		schedule_delayed_work(&rq->refill_work, CXEN_RX_REFILL_RETRY);
	cxen_rq_stats_publish(rq);
	return work;
}

/**
 * cxen_stride_restart() - the striding RQ's &cxen_rx_kind.restart
 * @rq: the RQ, reset in the device (MODIFY_RQ to RST), NAPI disabled
 *
 * CQEs NAPI did not take are dropped (rx_err_cqe). Every WQE is retired
 * (the device forgot them): the pages go back but for the strides skbs
 * hold, and cxen_rq_fill() posts new ones from WQE 0, stride 0.
 */
static void cxen_stride_restart(struct cxen_rq *rq)
{
	cxen_rq_drain_cq(rq);
	cxen_stride_release_all(rq);
	rq->pi = 0;
	rq->ci = 0;
	memset(&rq->spos, 0, sizeof(rq->spos));
	rq->bad_wqe_run = 0;
	/* Header buffers are never completed but by split frames: all back. */
	rq->hdr_ci = 0;
	rq->hdr_pi = 0;
	WRITE_ONCE(rq->dbrec->pi, 0);
	WRITE_ONCE(rq->dbrec->hdr_pi, 0);
}

/* The CREATE_RQ context of a striding RQ. */
static void cxen_stride_ctx(struct cxen_rq *rq, dma_addr_t dbrec_dma,
			    struct cxen_rq_ctx *ctx)
{
	const struct cxen_stride_layout *l = &rq->slayout;

	memset(ctx, 0, sizeof(*ctx));
	ctx->wq.ring_dma = cpu_to_be64(rq->ring_dma);
	ctx->wq.dbrec_dma = cpu_to_be64(dbrec_dma);
	ctx->wq.cqn = cpu_to_be32(rq->cq.cqn);
	ctx->wq.port = rq->priv->port;
	ctx->wq.log_size = rq->log_size;
	ctx->wq.log_stride = l->log_wqe_pages + 4;
	ctx->wq.rq_flags = CXEN_RQ_F_STRIDING;
	ctx->log_stride_bytes = l->log_stride;
	ctx->log_page_bytes = l->log_page;
	ctx->headroom = cpu_to_be16(l->headroom);
	ctx->tailroom = cpu_to_be16(l->tailroom);
	if (rq->lro)
		ctx->wq.rq_flags |= CXEN_RQ_F_LRO;
	if (rq->hdr_ring) {
		ctx->wq.rq_flags |= CXEN_RQ_F_HDR_SPLIT;
		ctx->hdr_ring_dma = cpu_to_be64(rq->hdr_ring_dma);
		ctx->log_hdr_size = ilog2(rq->hdr_size);
		/* Every TCP frame with a payload. */
		ctx->split_min = 0;
	}
}

/* Whether the device takes the layout: its capabilities and stride limits. */
static bool cxen_stride_dev_ok(const struct cxen_dev *cdev,
			       const struct cxen_stride_layout *l, bool split,
			       bool lro)
{
	return (cdev->caps.cap_flags & CXEN_DEV_CAP_STRIDING_RQ) &&
	       (!split || (cdev->caps.cap_flags & CXEN_DEV_CAP_HDR_SPLIT)) &&
	       (!lro || (cdev->caps.cap_flags & CXEN_DEV_CAP_LRO)) &&
	       l->log_stride >= cdev->caps.log_min_stride_bytes &&
	       l->log_stride <= cdev->caps.log_max_stride_bytes &&
	       l->log_wqe_pages + l->log_page <= cdev->caps.log_max_wqe_bytes;
}

/**
 * cxen_stride_rq_alloc() - the striding RQ's &cxen_rx_kind.alloc
 * @ch: the channel
 * @rq: its RQ, the common fields set by cxen_rq_init()
 *
 * The ring holds the WQEs of ethtool's rx ring size times
 * CXEN_STRIDE_BYTES_PER_ENTRY bytes (cxen_stride_ring_wqes()); the CQ
 * twice as many entries as the rx ring size (fillers take CQEs too).
 *
 * Return: 0 or a negative errno; on error nothing is left allocated.
 */
static int cxen_stride_rq_alloc(struct cxen_channel *ch, struct cxen_rq *rq)
{
	struct cxen_stride_layout *l = &rq->slayout;
	struct cxen_priv *priv = ch->priv;
	struct cxen_dev *cdev = priv->cdev;
	struct cxen_stride_param sp;
	struct cxen_rq_ctx ctx;
	dma_addr_t rq_dbrec;
	u32 nwqes, npages, log_hdr;
	int err, log_cq;

	cxen_stride_param_init(priv->params.mtu, &sp);
	sp.lro = priv->params.lro;
	err = cxen_stride_layout(&sp, l);
	if (err)
		return err;
	if (!cxen_stride_dev_ok(cdev, l, priv->params.hdr_split,
				priv->params.lro)) {
		netdev_err(priv->netdev, "the device has no striding RQ for MTU %u\n",
			   priv->params.mtu);
		return -EOPNOTSUPP;
	}
	nwqes = cxen_stride_ring_wqes(l, (u64)priv->params.rq_size *
				      CXEN_STRIDE_BYTES_PER_ENTRY);
	nwqes = clamp(nwqes, 1U << cdev->caps.log_min_ring,
		      1U << cdev->caps.log_max_ring);
	rq->log_size = ilog2(nwqes);
	err = cxen_stride_cq_plan(l, nwqes, cdev->caps.log_max_ring,
				  &rq->post_max);
	if (err < 0)
		return err;
	log_cq = err;
	npages = nwqes << l->log_wqe_pages;
	rq->ring_bytes = npages * sizeof(*rq->swqes);
	rq->pi = 0;
	rq->ci = 0;
	memset(&rq->spos, 0, sizeof(rq->spos));
	rq->bad_wqe_run = 0;
	rq->lro = priv->params.lro;

	rq_dbrec = ch->dbrec_dma + ((void *)rq->dbrec - ch->dbrec_page);

	err = cxen_rq_pool_create(rq, min(CXEN_STRIDE_POOL_MULT * npages,
					  CXEN_STRIDE_MAX_POOL_SIZE));
	if (err)
		return err;
	rq->spages = kvcalloc(npages, sizeof(*rq->spages), GFP_KERNEL);
	if (!rq->spages) {
		err = -ENOMEM;
		goto err_pool;
	}
	rq->swqes = dma_alloc_coherent(cdev->dev, rq->ring_bytes, &rq->ring_dma,
				       GFP_KERNEL);
	if (!rq->swqes) {
		err = -ENOMEM;
		goto err_pages;
	}
	WRITE_ONCE(rq->dbrec->pi, 0);
	WRITE_ONCE(rq->dbrec->hdr_pi, 0);

	/* Header buffers: two per rx ring entry, one a split frame. */
	rq->hdr_ring = NULL;
	rq->hdr_pages = NULL;
	if (priv->params.hdr_split) {
		log_hdr = min_t(u32, ilog2(priv->params.rq_size) + 1,
				cdev->caps.log_max_ring);
		err = cxen_stride_hdr_alloc(rq, 1U << log_hdr);
		if (err)
			goto err_ring;
	}
	err = cxen_rq_cq_create(ch, rq, log_cq);
	if (err)
		goto err_hdr;

	err = cxen_rq_first_fill(rq);
	if (err)
		goto err_bufs_posted;
	rq->hw_gen = READ_ONCE(cdev->hw_gen);
	cxen_stride_ctx(rq, rq_dbrec, &ctx);
	err = cxen_cmd_create_rq(cdev, rq->rqn, &ctx);
	if (err)
		goto err_bufs_posted;
	rq->hw_destroyed = false;
	return 0;

err_bufs_posted:
	cxen_stride_release_all(rq);
	cxen_rq_cq_destroy(rq);
err_hdr:
	cxen_stride_hdr_free(rq);
err_ring:
	dma_free_coherent(cdev->dev, rq->ring_bytes, rq->swqes, rq->ring_dma);
err_pages:
	kvfree(rq->spages);
err_pool:
	cxen_pp_uninit(rq);
	return err;
}

/**
 * cxen_stride_rq_free() - the striding RQ's &cxen_rx_kind.free
 * @rq: the RQ; its NAPI instance is disabled
 *
 * Return: true, or false if the device may still write into the RQ: its
 * memory is then left allocated and mapped.
 */
static bool cxen_stride_rq_free(struct cxen_rq *rq)
{
	struct cxen_dev *cdev = rq->priv->cdev;

	if (!cxen_rq_release_hw(rq))
		return false;
	cxen_stride_release_all(rq);
	cxen_stride_hdr_free(rq);
	cxen_cq_free(cdev, &rq->cq);
	dma_free_coherent(cdev->dev, rq->ring_bytes, rq->swqes, rq->ring_dma);
	kvfree(rq->spages);
	cxen_pp_uninit(rq);
	return true;
}

const struct cxen_rx_kind cxen_rx_stride_kind = {
	.alloc		= cxen_stride_rq_alloc,
	.free		= cxen_stride_rq_free,
	.fill		= cxen_stride_fill,
	.restart	= cxen_stride_restart,
	.poll		= cxen_stride_poll,
};
