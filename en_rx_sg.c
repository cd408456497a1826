// SPDX-License-Identifier: GPL-2.0
/*
 * cxen RX: the scatter-list RQ, the kind of the default buffer layout.
 *
 * An RQ is a ring of WQEs, each a scatter list of the fragments that
 * en_frag.c lays out for the MTU: by default one page_pool per RQ, pages
 * DMA-mapped once by the pool, carved into strides, and back to the pool
 * when the stack frees the skbs (skb_mark_for_recycle).
 *
 * Ring accounting: @pi counts WQEs posted, @ci WQEs consumed (both free
 * running). Slot s = counter & mask owns bufs[s * nfrags ...]. A received
 * frame takes its fragments away from the slot (page = NULL) and the slot
 * is refilled before it is posted again; a dropped frame leaves its
 * fragments in place, so they are simply posted again.
 *
 * With an XDP program (rq->xdp) every frame first becomes an xdp_buff
 * over its fragments (cxen_rx_xdp()): the head with XDP_PACKET_HEADROOM,
 * more fragments as the buff's frags. The frags leave the slot with the
 * buff, the head when the verdict takes the frame: to the skb built from
 * the buff as the program left it (XDP_PASS), to the XDP SQ (XDP_TX) or
 * to the redirect target. A dropped frame's head stays in the slot and is
 * posted again as it is; its frags go back into the pool's cache.
 *
 * The comparison layouts (CONFIG_CXEN_RX_COMPARE, en_rx_compare.c) run
 * this same ring with their own buffers and receive routine. Every entry
 * point below is one __always_inline body built twice, with @cmp a
 * constant: the default kind never tests for the other per frame, and
 * without CONFIG_CXEN_RX_COMPARE the second build does not exist.
 */
#include <linux/bpf_trace.h>
#include <linux/etherdevice.h>
#include <linux/filter.h>
#include <net/page_pool/helpers.h>
#include <net/xdp.h>

#include "en_rx.h"

static inline u32 cxen_rq_mask(const struct cxen_rq *rq)
{
	return (1U << rq->log_size) - 1;
}

static inline struct cxen_rx_buf *cxen_rq_slot_bufs(struct cxen_rq *rq, u32 slot)
{
	return &rq->bufs[slot * rq->layout.nfrags];
}

static __always_inline int cxen_sg_get(struct cxen_rq *rq, unsigned int f,
				       struct cxen_rx_buf *buf, gfp_t gfp,
				       bool cmp)
{
	if (IS_ENABLED(CONFIG_CXEN_RX_COMPARE) && cmp)
		return cxen_rx_compare_get(rq, f, buf, gfp);
	return cxen_pp_get(rq, f, buf, gfp);
}

static __always_inline void cxen_sg_release(struct cxen_rq *rq, unsigned int f,
					    struct cxen_rx_buf *buf,
					    bool to_skb, bool cmp)
{
	if (IS_ENABLED(CONFIG_CXEN_RX_COMPARE) && cmp)
		cxen_rx_compare_release(rq, f, buf, to_skb);
	else
		cxen_pp_release(rq, buf, to_skb);
}

/*
 * An XDP RQ's rxq info: registered with its page_pool as the memory model
 * (xdp_return_frame() of its frames finds the pool), frag_size the page
 * when frames take several fragments (each a whole page: the last one
 * may grow to its end). The registration holds a reference on the pool,
 * so cxen_rq_xdp_unreg() comes before the pool's own destruction.
 */
static int cxen_rq_xdp_reg(struct cxen_rq *rq)
{
	u32 frag_size = rq->layout.nfrags > 1 ? PAGE_SIZE : 0;
	int err;

	if (!rq->xdp)
		return 0;
	err = __xdp_rxq_info_reg(&rq->xdp_rxq, rq->netdev, rq->qid,
				 rq->napi->napi_id, frag_size);
	if (err)
		return err;
	err = xdp_rxq_info_reg_mem_model(&rq->xdp_rxq, MEM_TYPE_PAGE_POOL,
					 rq->pool);
	if (err)
		xdp_rxq_info_unreg(&rq->xdp_rxq);
	return err;
}

static void cxen_rq_xdp_unreg(struct cxen_rq *rq)
{
	if (xdp_rxq_info_is_reg(&rq->xdp_rxq))
		xdp_rxq_info_unreg(&rq->xdp_rxq);
}

/*
 * Give every fragment of @slot without a buffer a new one and write it
 * into the WQE. A fragment that kept its buffer (a frame dropped, copied
 * or restarted over) is described by the WQE already: the device never
 * writes the RQ's ring, so it is left as it is.
 */
static __always_inline int cxen_sg_post_slot(struct cxen_rq *rq, u32 slot,
					     gfp_t gfp, bool cmp)
{
	struct cxen_rx_buf *bufs = cxen_rq_slot_bufs(rq, slot);
	const struct cxen_frag_layout *l = &rq->layout;
	struct cxen_rx_wqe *wqe = &rq->wqes[slot];
	unsigned int f;

	for (f = 0; f < l->nfrags; f++) {
		const struct cxen_frag *frag = &l->frag[f];
		struct cxen_rx_buf *buf = &bufs[f];

		if (buf->page)
			continue;
		if (unlikely(cxen_sg_get(rq, f, buf, gfp, cmp)))
			return -ENOMEM;
		wqe->seg[f].byte_count = cpu_to_be32(frag->size);
		wqe->seg[f].lkey = cpu_to_be32(rq->lkey);
		wqe->seg[f].addr = cpu_to_be64(buf->dma + frag->offset);
	}
	return 0;
}

/*
 * Post WQEs until the ring is full (&cxen_rx_kind.fill); the new producer
 * counter goes to the device once, at the end.
 */
static __always_inline int cxen_sg_fill(struct cxen_rq *rq, gfp_t gfp,
					bool cmp)
{
	u32 size = 1U << rq->log_size;
	u32 pi = rq->pi;
	int err = 0;

	while (pi - rq->ci < size) {
		err = cxen_sg_post_slot(rq, pi & cxen_rq_mask(rq), gfp, cmp);
		if (unlikely(err)) {
			cxen_rq_inc(rq, alloc_fail);
			break;
		}
		pi++;
	}
	if (pi != rq->pi) {
		rq->pi = pi;
		/* WQEs must be visible before the producer counter. */
		dma_wmb();
		WRITE_ONCE(rq->dbrec->pi,
			   cpu_to_be32(pi & CXEN_WQ_DBREC_PI));
	}
	return err;
}

/* Give back every buffer still on the ring; the device no longer uses it. */
static __always_inline void cxen_sg_release_all(struct cxen_rq *rq, bool cmp)
{
	u32 slot, size = 1U << rq->log_size;
	unsigned int f;

	for (slot = 0; slot < size; slot++) {
		struct cxen_rx_buf *bufs = cxen_rq_slot_bufs(rq, slot);

		for (f = 0; f < rq->layout.nfrags; f++)
			if (bufs[f].page)
				cxen_sg_release(rq, f, &bufs[f], false, cmp);
	}
}

/*
 * Build the ring, its CQ and buffers and create the RQ on the device, the
 * common fields set (cxen_rq_init()). Its buffers come from the default
 * layout's page_pool, or the comparison layouts' (@cmp).
 */
static __always_inline int cxen_sg_alloc(struct cxen_channel *ch,
					 struct cxen_rq *rq, bool cmp)
{
	struct cxen_priv *priv = ch->priv;
	struct cxen_dev *cdev = priv->cdev;
	u32 size = 1U << rq->log_size;
	dma_addr_t rq_dbrec;
	int err;

	rq_dbrec = ch->dbrec_dma + ((void *)rq->dbrec - ch->dbrec_page);

	err = cmp ? cxen_rx_compare_init(rq) : cxen_pp_init(rq);
	if (err)
		return err;
	err = cxen_rq_xdp_reg(rq);
	if (err)
		goto err_uninit;

	rq->bufs = kvcalloc(size * rq->layout.nfrags, sizeof(*rq->bufs),
			    GFP_KERNEL);
	if (!rq->bufs) {
		err = -ENOMEM;
		goto err_xdp_unreg;
	}
	rq->wqes = dma_alloc_coherent(cdev->dev, size * sizeof(*rq->wqes),
				      &rq->ring_dma, GFP_KERNEL);
	if (!rq->wqes) {
		err = -ENOMEM;
		goto err_bufs;
	}
	/* Unused data segments (byte_count 0) end each scatter list. */
	rq->pi = 0;
	rq->ci = 0;
	rq->dbrec->pi = 0;

	err = cxen_rq_cq_create(ch, rq, rq->log_size);
	if (err)
		goto err_wqes;

	err = cxen_rq_first_fill(rq);
	if (err)
		goto err_bufs_posted;
	rq->hw_gen = READ_ONCE(cdev->hw_gen);
	err = cxen_cmd_create_wq(cdev, CXEN_CMD_CREATE_RQ, rq->rqn, priv->port,
				 rq->ring_dma, rq_dbrec, rq->cq.cqn,
				 rq->log_size, CXEN_RX_LOG_STRIDE);
	if (err)
		goto err_bufs_posted;
	rq->hw_destroyed = false;
	return 0;

err_bufs_posted:
	cxen_sg_release_all(rq, cmp);
	cxen_rq_cq_destroy(rq);
err_wqes:
	dma_free_coherent(cdev->dev, size * sizeof(*rq->wqes), rq->wqes,
			  rq->ring_dma);
err_bufs:
	kvfree(rq->bufs);
err_xdp_unreg:
	cxen_rq_xdp_unreg(rq);
err_uninit:
	if (cmp)
		cxen_rx_compare_uninit(rq);
	else
		cxen_pp_uninit(rq);
	return err;
}

/* The scatter-list kind's &cxen_rx_kind.free. */
static __always_inline bool cxen_sg_free(struct cxen_rq *rq, bool cmp)
{
	struct cxen_dev *cdev = rq->priv->cdev;
	u32 size = 1U << rq->log_size;

	if (!cxen_rq_release_hw(rq))
		return false;
	cxen_sg_release_all(rq, cmp);
	cxen_cq_free(cdev, &rq->cq);
	dma_free_coherent(cdev->dev, size * sizeof(*rq->wqes), rq->wqes,
			  rq->ring_dma);
	kvfree(rq->bufs);
	cxen_rq_xdp_unreg(rq);
	if (cmp)
		cxen_rx_compare_uninit(rq);
	else
		cxen_pp_uninit(rq);
	return true;
}

/*
 * &cxen_rx_kind.restart: CQEs NAPI did not take are dropped. Every buffer
 * stays on the ring where it is: the next fill posts the slots again from
 * 0 and allocates only for the empty ones.
 */
static void cxen_sg_restart(struct cxen_rq *rq)
{
	cxen_rq_drain_cq(rq);
	rq->pi = 0;
	rq->ci = 0;
	WRITE_ONCE(rq->dbrec->pi, 0);
}

/* Build an skb around a single build_skb fragment. */
static struct sk_buff *cxen_rx_build_linear(struct cxen_rq *rq,
					    struct cxen_rx_buf *buf, u32 len)
{
	const struct cxen_frag *frag = &rq->layout.frag[0];
	void *va = page_address(buf->page) + buf->offset;
	struct sk_buff *skb;

	net_prefetch(va + frag->offset);
	skb = napi_build_skb(va, frag->stride);
	if (unlikely(!skb))
		return NULL;
	skb_reserve(skb, frag->offset);
	skb_put(skb, len);
	cxen_pp_release(rq, buf, true);
	return skb;
}

/*
 * Copy the headers into a small head and attach the rest of the frame as
 * page frags, each charging its fragment's stride as truesize.
 */
static struct sk_buff *cxen_rx_build_frags(struct cxen_rq *rq,
					   struct napi_struct *napi,
					   struct cxen_rx_buf *bufs, u32 len,
					   u32 flags)
{
	const struct cxen_frag_layout *l = &rq->layout;
	void *va = page_address(bufs[0].page) + bufs[0].offset + l->frag[0].offset;
	unsigned int f, hlen, off;
	struct sk_buff *skb;
	u32 avail;

	net_prefetch(va);
	skb = napi_alloc_skb(napi, CXEN_RX_HDR_COPY);
	if (unlikely(!skb))
		return NULL;
	avail = min3(len, l->frag[0].size, (u32)CXEN_RX_HDR_COPY);
	hlen = cxen_rx_hdr_len(va, avail, flags) ?:
	       eth_get_headlen(rq->netdev, va, avail);
	skb_put_data(skb, va, hlen);

	for (f = 0, off = hlen; len; f++, off = 0) {
		u32 chunk = min(len, l->frag[f].size);

		if (chunk > off) {
			skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags,
					bufs[f].page,
					bufs[f].offset + l->frag[f].offset + off,
					chunk - off, l->frag[f].stride);
			cxen_pp_release(rq, &bufs[f], true);
		} else {
			/* Wholly copied into the head: drop the fragment. */
			cxen_pp_release(rq, &bufs[f], false);
		}
		len -= chunk;
	}
	return skb;
}

/*
 * Small frame: copy it into a fresh skb and leave the buffer on the ring,
 * where it is posted again: a copy costs less than a new buffer for a
 * small frame (Documentation/cxen.rst, rx-copybreak).
 */
static struct sk_buff *cxen_rx_copybreak(struct cxen_rq *rq,
					 struct napi_struct *napi,
					 struct cxen_rx_buf *buf, u32 len)
{
	const struct cxen_frag *frag = &rq->layout.frag[0];
	struct sk_buff *skb;

	skb = napi_alloc_skb(napi, len);
	if (unlikely(!skb))
		return NULL;
	skb_put_data(skb, page_address(buf->page) + buf->offset + frag->offset,
		     len);
	/* The device writes this buffer again. */
	dma_sync_single_range_for_device(rq->dma_dev, buf->dma, frag->offset,
					 len, rq->dma_dir);
	cxen_rq_inc(rq, copybreak);
	return skb;
}

/*
 * No skb for a frame: counted as an allocation failure. Its fragments
 * stay on the ring and are posted again (an XDP frame's go back to the
 * pool).
 */
static void cxen_rx_no_skb(struct cxen_rq *rq)
{
	cxen_rq_inc(rq, alloc_fail);
	cxen_rq_inc(rq, skb_alloc_fail);
}

/* The frags an XDP program left in its buff back into the pool's cache. */
static void cxen_rx_xdp_put_frags(struct cxen_rq *rq, const struct xdp_buff *xdp)
{
	const struct skb_shared_info *sinfo;
	unsigned int i;

	if (likely(!xdp_buff_has_frags(xdp)))
		return;
	sinfo = xdp_get_shared_info_from_buff(xdp);
	for (i = 0; i < sinfo->nr_frags; i++)
		page_pool_put_full_page(rq->pool, skb_frag_page(&sinfo->frags[i]),
					true);
}

/*
 * An XDP frame that goes nowhere: its head and the frags the program left
 * back into the pool's cache (NAPI: direct recycling).
 */
static void cxen_rx_xdp_recycle(struct cxen_rq *rq, const struct xdp_buff *xdp,
				struct page *head)
{
	cxen_rx_xdp_put_frags(rq, xdp);
	page_pool_put_full_page(rq->pool, head, true);
}

/*
 * An XDP frame dropped (or aborted, or not sent). Its head fragment stays
 * in the slot, synced back for the device, and is posted again as it is:
 * no trip through the pool. The frags the program left go back into the
 * pool's cache.
 */
static void cxen_rx_xdp_drop(struct cxen_rq *rq, const struct xdp_buff *xdp,
			     struct cxen_rx_buf *head)
{
	const struct cxen_frag *frag = &rq->layout.frag[0];

	cxen_rx_xdp_put_frags(rq, xdp);
	dma_sync_single_range_for_device(rq->dma_dev, head->dma, frag->offset,
					 frag->size, rq->dma_dir);
}

/*
 * XDP_PASS: the skb around the buff's head as the program left it (start,
 * end, metadata), its frags as page frags charging their pages. NULL if
 * no skb could be had: the frame is recycled and counted.
 */
static struct sk_buff *cxen_rx_xdp_skb(struct cxen_rq *rq,
				       const struct xdp_buff *xdp,
				       struct page *head)
{
	const struct skb_shared_info *sinfo = xdp_get_shared_info_from_buff(xdp);
	unsigned int metasize = xdp->data - xdp->data_meta;
	unsigned int nr_frags = 0, frags_size = 0, i;
	u32 truesize = 0;
	struct sk_buff *skb;

	/* napi_build_skb() clears nr_frags: read the frags first. */
	if (unlikely(xdp_buff_has_frags(xdp))) {
		nr_frags = sinfo->nr_frags;
		frags_size = sinfo->xdp_frags_size;
		for (i = 1; i <= nr_frags; i++)
			truesize += rq->layout.frag[i].stride;
	}
	skb = napi_build_skb(xdp->data_hard_start, xdp->frame_sz);
	if (unlikely(!skb)) {
		cxen_rx_xdp_recycle(rq, xdp, head);
		cxen_rx_no_skb(rq);
		return NULL;
	}
	skb_reserve(skb, xdp->data - xdp->data_hard_start);
	__skb_put(skb, xdp->data_end - xdp->data);
	if (metasize)
		skb_metadata_set(skb, metasize);
	if (nr_frags)
		xdp_update_skb_shared_info(skb, nr_frags, frags_size, truesize,
					   xdp_buff_is_frag_pfmemalloc(xdp));
	return skb;
}

/**
 * cxen_rx_xdp() - run the RQ's XDP program on a received frame
 * @rq: the RQ
 * @prog: its program
 * @cqe: the frame's CQE, which the metadata kfuncs read (en_xdp.c)
 * @bufs: the frame's slot: its fragments, synced for the CPU
 * @nfrags: fragments the frame fills (cxen_frag_count())
 * @len: the frame's length
 *
 * The xdp_buff is the head fragment, XDP_PACKET_HEADROOM before the
 * frame and the skb_shared_info after, plus the other fragments as its
 * frags. The slot gives up the frags at once and the head when the frame
 * leaves (XDP_PASS, XDP_TX, XDP_REDIRECT done); a dropped frame's head is
 * posted again as it is (cxen_rx_xdp_drop()). What happens to the frame
 * is counted in one of the rx_xdp_* counters (en_stats_list.h); a verdict
 * that cannot be carried out is traced (xdp:xdp_exception).
 *
 * Return: the skb to deliver for XDP_PASS, else NULL (the frame was
 * taken, or dropped and recycled).
 */
static struct sk_buff *cxen_rx_xdp(struct cxen_rq *rq, struct bpf_prog *prog,
				   const struct cxen_cqe *cqe,
				   struct cxen_rx_buf *bufs,
				   unsigned int nfrags, u32 len)
{
	const struct cxen_frag_layout *l = &rq->layout;
	struct page *head = bufs[0].page;
	struct skb_shared_info *sinfo;
	struct cxen_xdp_buff xb;
	struct xdp_buff *xdp;
	unsigned int f;
	u32 act, chunk;

	xb.rq = rq;
	xb.cqe = cqe;
	xdp = &xb.xdp;
	xdp_init_buff(xdp, l->frag[0].stride, &rq->xdp_rxq);
	chunk = min(len, l->frag[0].size);
	xdp_prepare_buff(xdp, page_address(head) + bufs[0].offset,
			 l->frag[0].offset, chunk, true);
	net_prefetch(xdp->data);
	if (unlikely(nfrags > 1)) {
		sinfo = xdp_get_shared_info_from_buff(xdp);
		sinfo->xdp_frags_size = 0;
		for (f = 1, len -= chunk; f < nfrags; f++, len -= chunk) {
			chunk = min(len, l->frag[f].size);
			skb_frag_fill_page_desc(&sinfo->frags[f - 1], bufs[f].page,
						bufs[f].offset + l->frag[f].offset,
						chunk);
			sinfo->xdp_frags_size += chunk;
			if (page_is_pfmemalloc(bufs[f].page))
				xdp_buff_set_frag_pfmemalloc(xdp);
		}
		sinfo->nr_frags = nfrags - 1;
		xdp_buff_set_frags_flag(xdp);
	}
	/*
	 * The buff owns the frags now: the program may free some of them.
	 * The head stays in the slot until the verdict takes it away.
	 */
	for (f = 1; f < nfrags; f++)
		bufs[f].page = NULL;

	act = bpf_prog_run_xdp(prog, xdp);
	switch (act) {
	case XDP_PASS:
		cxen_rq_inc(rq, xdp_pass);
		bufs[0].page = NULL;
		return cxen_rx_xdp_skb(rq, xdp, head);
	case XDP_TX:
		if (likely(cxen_xdp_tx(rq->xsq, xdp, head))) {
			bufs[0].page = NULL;
			cxen_rq_inc(rq, xdp_tx);
			rq->xdp_tx = true;
			return NULL;
		}
		trace_xdp_exception(rq->netdev, prog, act);
		break;
	case XDP_REDIRECT:
		if (likely(!xdp_do_redirect(rq->netdev, xdp, prog))) {
			bufs[0].page = NULL;
			cxen_rq_inc(rq, xdp_redirect);
			rq->xdp_redirect = true;
			return NULL;
		}
		trace_xdp_exception(rq->netdev, prog, act);
		break;
	case XDP_DROP:
		break;
	default:
		bpf_warn_invalid_xdp_action(rq->netdev, prog, act);
		fallthrough;
	case XDP_ABORTED:
		trace_xdp_exception(rq->netdev, prog, act);
		cxen_rq_inc(rq, xdp_aborted);
		cxen_rx_xdp_drop(rq, xdp, &bufs[0]);
		return NULL;
	}
	cxen_rq_inc(rq, xdp_drop);
	cxen_rx_xdp_drop(rq, xdp, &bufs[0]);
	return NULL;
}

/*
 * Frames GRO can merge go to it as page frags: TCP, not an IP fragment,
 * GRO on, over the copybreak (a pure ACK is copied).
 */
static bool cxen_rx_gro_frags_ok(const struct cxen_rq *rq, u32 flags, u32 len)
{
	return FIELD_GET(CXEN_CQE_L4_TYPE, flags) == CXEN_CQE_L4_TCP &&
	       !(flags & CXEN_CQE_IP_FRAG) &&
	       (rq->netdev->features & NETIF_F_GRO) &&
	       len > READ_ONCE(rq->priv->rx_copybreak);
}

/*
 * A frame GRO can merge: its fragments become page frags of NAPI's frags
 * skb (napi_get_frags()) for napi_gro_frags(). When GRO merges it, as it
 * does most of a stream's frames, GRO keeps the frags and hands the skb
 * back for the next frame: no skb is built and freed and no
 * eth_type_trans() runs per merged frame (GRO reads the Ethernet header
 * from the frag). A frame GRO holds or passes on gets its headers pulled
 * into the skb's head there.
 */
static void cxen_rx_gro_frags(struct cxen_rq *rq, struct napi_struct *napi,
			      const struct cxen_cqe *cqe,
			      struct cxen_rx_buf *bufs, unsigned int nfrags,
			      u32 len, u32 flags)
{
	const struct cxen_frag_layout *l = &rq->layout;
	u32 head_truesize, strides = 0;
	struct sk_buff *skb;
	gro_result_t ret;
	unsigned int f;

	net_prefetch(page_address(bufs[0].page) + bufs[0].offset +
		     l->frag[0].offset);
	skb = napi_get_frags(napi);
	if (unlikely(!skb)) {
		cxen_rx_no_skb(rq);
		return;
	}
	cxen_rq_inc(rq, packets);
	cxen_rq_add(rq, bytes, len);
	head_truesize = skb->truesize;
	skb->len += len;
	skb->data_len += len;
	for (f = 0; f < nfrags; f++) {
		u32 chunk = min(len, l->frag[f].size);

		__skb_fill_page_desc(skb, f, bufs[f].page,
				     bufs[f].offset + l->frag[f].offset, chunk);
		cxen_pp_release(rq, &bufs[f], true);
		strides += l->frag[f].stride;
		len -= chunk;
	}
	skb_shinfo(skb)->nr_frags = nfrags;
	skb->truesize += strides;
	skb_mark_for_recycle(skb);
	skb_record_rx_queue(skb, rq->qid);
	cxen_rx_meta(rq, skb, cqe, flags);
	ret = napi_gro_frags(napi);
	cxen_rx_count_gro(rq, ret);
	/* The frame pins its strides, and the head unless GRO gave it back. */
	if (ret != GRO_MERGED_FREE)
		strides += head_truesize;
	cxen_rq_add(rq, truesize_bytes, strides);
}

/**
 * cxen_rx_cqe() - handle one RX completion
 * @rq: the RQ
 * @napi: NAPI instance the frame is delivered through
 * @cqe: the CQE, owned by software, fields readable (after dma_rmb)
 * @prog: the RQ's XDP program, NULL for none
 * @cmp: the comparison layouts' kind: the frame goes to their routine
 *
 * Every device value is checked before use: the CQE must be a receive
 * or error completion of this RQ, for the WQE at the consumer index, with
 * a length the posted fragments can hold. A bad CQE is counted and its
 * WQE's fragments are posted again untouched.
 */
static __always_inline void cxen_rx_cqe(struct cxen_rq *rq,
					struct napi_struct *napi,
					const struct cxen_cqe *cqe,
					struct bpf_prog *prog, bool cmp)
{
	u8 opcode = FIELD_GET(CXEN_CQE_OPCODE, cqe->owner_sr_opcode);
	u32 slot = rq->ci & cxen_rq_mask(rq);
	struct cxen_rx_buf *bufs = cxen_rq_slot_bufs(rq, slot);
	const struct cxen_frag_layout *l = &rq->layout;
	u32 len = be32_to_cpu(cqe->byte_cnt);
	u32 flags = be32_to_cpu(cqe->flags);
	u16 counter = rq->ci;
	unsigned int f, nfrags;
	struct sk_buff *skb;
	gro_result_t ret;
	u32 rem;

	/* The RQ consumes in order: whatever the CQE says, it is rq->ci. */
	rq->ci++;

	if (unlikely(opcode == CXEN_CQE_OP_ERROR)) {
		/* The WQE comes back unused. */
		cxen_rx_err_cqe(rq, cqe);
		return;
	}
	if (unlikely(opcode != CXEN_CQE_OP_RECV ||
		     FIELD_GET(CXEN_CQE_QPN, be32_to_cpu(cqe->qpn)) != rq->rqn ||
		     be16_to_cpu(cqe->wqe_index) != counter)) {
		cxen_rq_inc(rq, bad_cqe);
		return;
	}
	/* Most frames fill the first fragment alone. */
	nfrags = likely(len <= l->frag[0].size) ? 1 : cxen_frag_count(l, len);
	if (unlikely(len < ETH_HLEN || !nfrags)) {
		cxen_rq_inc(rq, oversize);
		return;
	}

	/* A comparison layout receives as the 2012-2013 mlx4 driver did. */
	if (IS_ENABLED(CONFIG_CXEN_RX_COMPARE) && cmp) {
		cxen_rx_compare_cqe(rq, napi, cqe, bufs, len);
		return;
	}

	/* Sync for the CPU only the bytes the device wrote. */
	for (f = 0, rem = len; f < nfrags; f++) {
		u32 chunk = min(rem, l->frag[f].size);

		dma_sync_single_range_for_cpu(rq->dma_dev, bufs[f].dma,
					      l->frag[f].offset, chunk,
					      rq->dma_dir);
		rem -= chunk;
	}

	if (!prog && cxen_rx_gro_frags_ok(rq, flags, len)) {
		cxen_rx_gro_frags(rq, napi, cqe, bufs, nfrags, len, flags);
		return;
	}
	if (prog) {
		/* Every good frame is received, whatever its program says. */
		cxen_rq_inc(rq, packets);
		cxen_rq_add(rq, bytes, len);
		skb = cxen_rx_xdp(rq, prog, cqe, bufs, nfrags, len);
		if (!skb)
			return;
	} else {
		if (len <= READ_ONCE(rq->priv->rx_copybreak) && nfrags == 1)
			skb = cxen_rx_copybreak(rq, napi, &bufs[0], len);
		else if (l->build_skb)
			skb = cxen_rx_build_linear(rq, &bufs[0], len);
		else
			skb = cxen_rx_build_frags(rq, napi, bufs, len, flags);
		if (unlikely(!skb)) {
			cxen_rx_no_skb(rq);
			return;
		}
		cxen_rq_inc(rq, packets);
		cxen_rq_add(rq, bytes, len);
	}

	skb_mark_for_recycle(skb);
	skb->protocol = eth_type_trans(skb, rq->netdev);
	skb_record_rx_queue(skb, rq->qid);
	cxen_rx_meta(rq, skb, cqe, flags);

	cxen_rq_add(rq, truesize_bytes, skb->truesize);
	ret = napi_gro_receive(napi, skb);
	cxen_rx_count_gro(rq, ret);
}

/*
 * &cxen_rx_kind.poll. With an XDP program, XDP_TX frames queued and
 * redirects done in the poll are flushed once at its end: one XDP SQ
 * doorbell, one xdp_do_flush().
 */
static __always_inline int cxen_sg_poll(struct cxen_rq *rq,
					struct napi_struct *napi, int budget,
					bool cmp)
{
	struct bpf_prog *prog = NULL;
	struct cxen_cqe *cqe;
	int work = 0;

	/* One program for the whole poll: a swap takes effect at the next. */
	if (rq->xdp)
		prog = rcu_dereference_bh(rq->xdp_prog);
	while (work < budget && (cqe = cxen_cqe_owned(&rq->cq))) {
		/* Read the CQE only after seeing its owner bit. */
		dma_rmb();
		cxen_rx_cqe(rq, napi, cqe, prog, cmp);
		rq->cq.ci++;
		work++;
	}

	if (work)
		cxen_cq_update_ci(&rq->cq);
	/* One doorbell and one redirect flush for the whole poll. */
	if (rq->xdp_tx) {
		rq->xdp_tx = false;
		cxen_xsq_flush(rq->xsq);
	}
	if (rq->xdp_redirect) {
		rq->xdp_redirect = false;
		xdp_do_flush();
	}
	/* An RQ in error flushes whatever is posted: wait for its reset. */
	if (likely(!test_bit(CXEN_RQ_RESET, &rq->state)) &&
	    (1U << rq->log_size) - (rq->pi - rq->ci) >= CXEN_RX_REFILL_BATCH &&
	    cxen_sg_fill(rq, GFP_ATOMIC, cmp) && rq->pi == rq->ci)
		/* Starved: no completion will come to retry for us. */
		schedule_delayed_work(&rq->refill_work, CXEN_RX_REFILL_RETRY);
	cxen_rq_stats_publish(rq);
	return work;
}

/* The default layout's kind: page_pool buffers. */
static int cxen_rx_sg_alloc(struct cxen_channel *ch, struct cxen_rq *rq)
{
	return cxen_sg_alloc(ch, rq, false);
}

static bool cxen_rx_sg_free(struct cxen_rq *rq)
{
	return cxen_sg_free(rq, false);
}

static int cxen_rx_sg_fill(struct cxen_rq *rq, gfp_t gfp)
{
	return cxen_sg_fill(rq, gfp, false);
}

/**
 * cxen_rx_sg_poll() - the scatter-list RQ's poll (cxen_poll_rx())
 * @rq: an RQ of the default layout
 * @napi: its NAPI instance
 * @budget: most frames to process, at least 1
 *
 * Return: frames processed.
 */
int cxen_rx_sg_poll(struct cxen_rq *rq, struct napi_struct *napi, int budget)
{
	return cxen_sg_poll(rq, napi, budget, false);
}

const struct cxen_rx_kind cxen_rx_sg_kind = {
	.alloc		= cxen_rx_sg_alloc,
	.free		= cxen_rx_sg_free,
	.fill		= cxen_rx_sg_fill,
	.restart	= cxen_sg_restart,
	.poll		= cxen_rx_sg_poll,
};

#if IS_ENABLED(CONFIG_CXEN_RX_COMPARE)
/* The comparison layouts' kind: the same ring, their buffers (en_rx_compare.c). */
static int cxen_rx_cmp_alloc(struct cxen_channel *ch, struct cxen_rq *rq)
{
	return cxen_sg_alloc(ch, rq, true);
}

static bool cxen_rx_cmp_free(struct cxen_rq *rq)
{
	return cxen_sg_free(rq, true);
}

static int cxen_rx_cmp_fill(struct cxen_rq *rq, gfp_t gfp)
{
	return cxen_sg_fill(rq, gfp, true);
}

static int cxen_rx_cmp_poll(struct cxen_rq *rq, struct napi_struct *napi,
			    int budget)
{
	return cxen_sg_poll(rq, napi, budget, true);
}

const struct cxen_rx_kind cxen_rx_compare_kind = {
	.alloc		= cxen_rx_cmp_alloc,
	.free		= cxen_rx_cmp_free,
	.fill		= cxen_rx_cmp_fill,
	.restart	= cxen_sg_restart,
	.poll		= cxen_rx_cmp_poll,
};
#endif /* CONFIG_CXEN_RX_COMPARE */
