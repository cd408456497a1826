// SPDX-License-Identifier: GPL-2.0
/*
 * cxen RX: receive queues, page_pool buffers, CQE parsing, skb building.
 *
 * An RQ is a ring of WQEs, each a scatter list of the fragments that
 * en_frag.c lays out for the MTU. Fragments come from one page_pool per
 * RQ: pages are DMA-mapped once by the pool and carved into strides, and
 * come back to the pool when the stack frees the skbs (skb_mark_for_recycle).
 *
 * Ring accounting: @pi counts WQEs posted, @ci WQEs consumed (both free
 * running). Slot s = counter & mask owns bufs[s * nfrags ...]. A received
 * frame takes its fragments away from the slot (page = NULL) and the slot
 * is refilled before it is posted again; a dropped frame leaves its
 * fragments in place, so they are simply posted again.
 */
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <net/page_pool/helpers.h>

#include "en.h"

/* Bytes copied into the skb head for multi-fragment frames. */
#define CXEN_RX_HDR_SIZE	256

static inline u32 cxen_rq_mask(const struct cxen_rq *rq)
{
	return (1U << rq->log_size) - 1;
}

static inline struct cxen_rx_buf *cxen_rq_slot_bufs(struct cxen_rq *rq, u32 slot)
{
	return &rq->bufs[slot * rq->layout.nfrags];
}

static void cxen_rq_layout(struct cxen_channel *ch, struct cxen_frag_layout *l)
{
	struct cxen_priv *priv = ch->priv;
	struct cxen_frag_param p = {
		.mtu = priv->params.mtu,
		.page_size = PAGE_SIZE,
		.headroom = NET_SKB_PAD + NET_IP_ALIGN,
		.tailroom = SKB_DATA_ALIGN(sizeof(struct skb_shared_info)),
		.max_frags = priv->cdev->caps.max_rx_segs,
	};

	/* The MTU range is checked against the same limits at ndo_change_mtu. */
	WARN_ON(cxen_frag_layout(&p, l));
}

/**
 * cxen_rq_alloc() - allocate an RQ with its CQ, pool and buffers, and
 * create it on the device
 * @ch: the channel
 * @rq: the RQ inside @ch
 *
 * Return: 0 or a negative errno; on error nothing is left allocated.
 */
int cxen_rq_alloc(struct cxen_channel *ch, struct cxen_rq *rq)
{
	struct cxen_priv *priv = ch->priv;
	struct cxen_dev *cdev = priv->cdev;
	struct page_pool_params pp = {};
	dma_addr_t rq_dbrec, cq_dbrec;
	u32 i, size;
	int err, rqn;

	rq->netdev = priv->netdev;
	rq->dma_dev = cdev->dev;
	rq->qid = ch->idx;
	rq->lkey = cdev->caps.rsvd_lkey;
	rq->log_size = ilog2(priv->params.rq_size);
	size = 1U << rq->log_size;
	u64_stats_init(&rq->stats.syncp);
	cxen_rq_layout(ch, &rq->layout);

	rq_dbrec = ch->dbrec_dma + ((void *)rq->dbrec - ch->dbrec_page);
	cq_dbrec = ch->dbrec_dma + ((void *)rq->cq.dbrec - ch->dbrec_page);

	pp.flags = PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV;
	pp.order = 0;
	pp.pool_size = size * rq->layout.nfrags;
	pp.nid = dev_to_node(cdev->dev);
	pp.dev = cdev->dev;
	pp.napi = &ch->napi;
	pp.netdev = priv->netdev;
	pp.queue_idx = ch->idx;
	pp.dma_dir = DMA_FROM_DEVICE;
	pp.offset = 0;
	pp.max_len = PAGE_SIZE;
	rq->pool = page_pool_create(&pp);
	if (IS_ERR(rq->pool)) {
		err = PTR_ERR(rq->pool);
		rq->pool = NULL;
		return err;
	}

	rq->bufs = kvcalloc(size * rq->layout.nfrags, sizeof(*rq->bufs),
			    GFP_KERNEL);
	if (!rq->bufs) {
		err = -ENOMEM;
		goto err_pool;
	}
	rq->wqes = dma_alloc_coherent(cdev->dev, size * sizeof(*rq->wqes),
				      &rq->ring_dma, GFP_KERNEL);
	if (!rq->wqes) {
		err = -ENOMEM;
		goto err_bufs;
	}
	/* Fragments past the layout's count terminate each scatter list. */
	for (i = 0; i < size; i++)
		memset(rq->wqes[i].seg, 0, sizeof(rq->wqes[i].seg));
	rq->pi = 0;
	rq->ci = 0;
	rq->dbrec->pi = 0;

	err = cxen_cq_alloc(cdev, &rq->cq, rq->log_size);
	if (err)
		goto err_wqes;
	rq->cq.moder_usecs = priv->params.rx_usecs;
	rq->cq.moder_frames = priv->params.rx_frames;
	err = cxen_cmd_create_cq(cdev, &rq->cq, cq_dbrec, ch->vector);
	if (err)
		goto err_cq;

	rqn = ida_alloc_max(&cdev->rqn_ida, CXEN_HW_NUM_RQ - 1, GFP_KERNEL);
	if (rqn < 0) {
		err = rqn;
		goto err_cq_hw;
	}
	rq->rqn = rqn;

	/* Post buffers before the device can see the queue. */
	err = cxen_rq_fill(rq, GFP_KERNEL);
	if (err) {
		netdev_err(priv->netdev, "cannot allocate RX buffers for queue %d\n",
			   ch->idx);
		goto err_rqn;
	}
	err = cxen_cmd_create_wq(cdev, CXEN_CMD_CREATE_RQ, rq->rqn, priv->port,
				 rq->ring_dma, rq_dbrec, rq->cq.cqn,
				 rq->log_size, CXEN_RX_LOG_STRIDE);
	if (err)
		goto err_bufs_posted;
	return 0;

err_bufs_posted:
	for (i = 0; i < size * rq->layout.nfrags; i++)
		if (rq->bufs[i].page)
			page_pool_put_full_page(rq->pool, rq->bufs[i].page, false);
err_rqn:
	ida_free(&cdev->rqn_ida, rq->rqn);
err_cq_hw:
	cxen_cmd_destroy(cdev, CXEN_CMD_DESTROY_CQ, rq->cq.cqn);
err_cq:
	cxen_cq_free(cdev, &rq->cq);
err_wqes:
	dma_free_coherent(cdev->dev, size * sizeof(*rq->wqes), rq->wqes,
			  rq->ring_dma);
err_bufs:
	kvfree(rq->bufs);
err_pool:
	page_pool_destroy(rq->pool);
	rq->pool = NULL;
	return err;
}

/**
 * cxen_rq_free() - destroy an RQ on the device and free everything
 * @rq: the RQ; its NAPI instance is disabled
 */
void cxen_rq_free(struct cxen_rq *rq)
{
	struct cxen_channel *ch = container_of(rq, struct cxen_channel, rq);
	struct cxen_dev *cdev = ch->priv->cdev;
	u32 i, size = 1U << rq->log_size;

	/* After DESTROY the device no longer writes into our buffers. */
	cxen_cmd_destroy(cdev, CXEN_CMD_DESTROY_RQ, rq->rqn);
	cxen_cmd_destroy(cdev, CXEN_CMD_DESTROY_CQ, rq->cq.cqn);
	ida_free(&cdev->rqn_ida, rq->rqn);

	for (i = 0; i < size * rq->layout.nfrags; i++)
		if (rq->bufs[i].page)
			page_pool_put_full_page(rq->pool, rq->bufs[i].page, false);
	cxen_cq_free(cdev, &rq->cq);
	dma_free_coherent(cdev->dev, size * sizeof(*rq->wqes), rq->wqes,
			  rq->ring_dma);
	kvfree(rq->bufs);
	page_pool_destroy(rq->pool);
	rq->pool = NULL;
}

/* Make sure every fragment of @slot has a buffer and write its WQE. */
static int cxen_rq_post_slot(struct cxen_rq *rq, u32 slot, gfp_t gfp)
{
	struct cxen_rx_buf *bufs = cxen_rq_slot_bufs(rq, slot);
	const struct cxen_frag_layout *l = &rq->layout;
	struct cxen_rx_wqe *wqe = &rq->wqes[slot];
	unsigned int f;

	for (f = 0; f < l->nfrags; f++) {
		const struct cxen_frag *frag = &l->frag[f];
		struct cxen_rx_buf *buf = &bufs[f];
		dma_addr_t dma;

		if (!buf->page) {
			buf->page = page_pool_alloc_frag(rq->pool, &buf->offset,
							 frag->stride, gfp);
			if (unlikely(!buf->page))
				return -ENOMEM;
			/* A fragment at offset 0 starts a page: fresh or recycled. */
			if (!buf->offset)
				u64_stats_inc(&rq->stats.pages_started);
		}
		dma = page_pool_get_dma_addr(buf->page) + buf->offset +
		      frag->offset;
		wqe->seg[f].byte_count = cpu_to_be32(frag->size);
		wqe->seg[f].lkey = cpu_to_be32(rq->lkey);
		wqe->seg[f].addr = cpu_to_be64(dma);
	}
	return 0;
}

/*
 * Account pages the pool took from the page allocator since last time.
 * Called inside a stats update section.
 */
static void cxen_rq_count_pool_pages(struct cxen_rq *rq)
{
	u32 hold = READ_ONCE(rq->pool->pages_state_hold_cnt);
	u32 fresh = hold - rq->pool_pages_seen;

	if (!fresh)
		return;
	rq->pool_pages_seen = hold;
	/* The pool maps each page once, when it comes from the allocator. */
	u64_stats_add(&rq->stats.page_alloc, fresh);
	u64_stats_add(&rq->stats.dma_map, fresh);
}

/**
 * cxen_rq_fill() - post WQEs until the ring is full
 * @rq: the RQ
 * @gfp: GFP_KERNEL at creation, GFP_ATOMIC from NAPI
 *
 * Publishes the new producer counter to the device once, at the end.
 *
 * Return: 0, or -ENOMEM if a buffer could not be allocated (the WQEs
 * posted so far stay posted; the caller retries later).
 */
int cxen_rq_fill(struct cxen_rq *rq, gfp_t gfp)
{
	u32 size = 1U << rq->log_size;
	u32 pi = rq->pi;
	int err = 0;

	u64_stats_update_begin(&rq->stats.syncp);
	while (pi - rq->ci < size) {
		err = cxen_rq_post_slot(rq, pi & cxen_rq_mask(rq), gfp);
		if (unlikely(err)) {
			u64_stats_inc(&rq->stats.alloc_fail);
			break;
		}
		pi++;
	}
	cxen_rq_count_pool_pages(rq);
	u64_stats_update_end(&rq->stats.syncp);
	if (pi != rq->pi) {
		rq->pi = pi;
		/* WQEs must be visible before the producer counter. */
		dma_wmb();
		WRITE_ONCE(rq->dbrec->pi,
			   cpu_to_be32(pi & CXEN_WQ_DBREC_PI));
	}
	return err;
}

static void cxen_rx_csum(struct cxen_rq *rq, struct sk_buff *skb, u32 flags)
{
	if ((rq->netdev->features & NETIF_F_RXCSUM) &&
	    (flags & CXEN_CQE_L4_CSUM_OK) &&
	    (FIELD_GET(CXEN_CQE_L3_TYPE, flags) != CXEN_CQE_L3_IPV4 ||
	     (flags & CXEN_CQE_L3_CSUM_OK))) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		u64_stats_inc(&rq->stats.csum_unnecessary);
	} else {
		skb->ip_summed = CHECKSUM_NONE;
		u64_stats_inc(&rq->stats.csum_none);
	}
}

static void cxen_rx_hash(struct cxen_rq *rq, struct sk_buff *skb,
			 const struct cxen_cqe *cqe, u32 flags)
{
	enum pkt_hash_types type;

	if (!(rq->netdev->features & NETIF_F_RXHASH))
		return;
	switch (FIELD_GET(CXEN_CQE_HASH_TYPE, flags)) {
	case CXEN_CQE_HASH_IPV4_TCP:
	case CXEN_CQE_HASH_IPV4_UDP:
	case CXEN_CQE_HASH_IPV6_TCP:
	case CXEN_CQE_HASH_IPV6_UDP:
		type = PKT_HASH_TYPE_L4;
		break;
	case CXEN_CQE_HASH_IPV4:
	case CXEN_CQE_HASH_IPV6:
		type = PKT_HASH_TYPE_L3;
		break;
	default:
		return;
	}
	skb_set_hash(skb, be32_to_cpu(cqe->rss_hash), type);
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
	return skb;
}

/* Copy the headers into a small head, attach the rest as page frags. */
static struct sk_buff *cxen_rx_build_frags(struct cxen_rq *rq,
					   struct napi_struct *napi,
					   struct cxen_rx_buf *bufs, u32 len)
{
	const struct cxen_frag_layout *l = &rq->layout;
	void *va = page_address(bufs[0].page) + bufs[0].offset + l->frag[0].offset;
	unsigned int f, hlen, off;
	struct sk_buff *skb;

	net_prefetch(va);
	skb = napi_alloc_skb(napi, CXEN_RX_HDR_SIZE);
	if (unlikely(!skb))
		return NULL;
	hlen = eth_get_headlen(rq->netdev, va,
			       min_t(u32, min_t(u32, len, l->frag[0].size),
				     CXEN_RX_HDR_SIZE));
	skb_put_data(skb, va, hlen);

	off = hlen;
	for (f = 0; len; f++) {
		u32 chunk = min_t(u32, len, l->frag[f].size);

		if (chunk > off)
			skb_add_rx_frag(skb, skb_shinfo(skb)->nr_frags,
					bufs[f].page,
					bufs[f].offset + l->frag[f].offset + off,
					chunk - off, l->frag[f].stride);
		else
			/* Fragment fully copied: give it back to the pool. */
			page_pool_put_full_page(rq->pool, bufs[f].page, true);
		len -= chunk;
		off = 0;
	}
	return skb;
}

static void cxen_rx_count_gro(struct cxen_rq *rq, gro_result_t ret)
{
	/* Each frame is a segment; each held or normal one becomes a packet. */
	u64_stats_inc(&rq->stats.gro_segs);
	if (ret == GRO_HELD || ret == GRO_NORMAL)
		u64_stats_inc(&rq->stats.gro_packets);
}

/**
 * cxen_rx_cqe() - handle one RX completion
 * @rq: the RQ
 * @napi: NAPI instance the frame is delivered through
 * @cqe: the CQE, owned by software, fields readable (after dma_rmb)
 *
 * Every device value is checked before use: the CQE must be a receive
 * or error completion of this RQ, for the WQE at the consumer index, with
 * a length the posted fragments can hold. A bad CQE is counted and its
 * WQE's fragments are posted again untouched.
 */
static void cxen_rx_cqe(struct cxen_rq *rq, struct napi_struct *napi,
			const struct cxen_cqe *cqe)
{
	u8 opcode = FIELD_GET(CXEN_CQE_OPCODE, cqe->owner_sr_opcode);
	u32 slot = rq->ci & cxen_rq_mask(rq);
	struct cxen_rx_buf *bufs = cxen_rq_slot_bufs(rq, slot);
	u16 counter = rq->ci;
	const struct cxen_frag_layout *l = &rq->layout;
	u32 len = be32_to_cpu(cqe->byte_cnt);
	u32 flags = be32_to_cpu(cqe->flags);
	unsigned int f, nfrags;
	struct sk_buff *skb;
	gro_result_t ret;
	u32 rem;

	/* The RQ consumes in order: whatever the CQE says, it is rq->ci. */
	rq->ci++;

	if (unlikely(opcode == CXEN_CQE_OP_ERROR)) {
		u64_stats_inc(&rq->stats.err_cqe);
		net_dbg_ratelimited("%s: RX error CQE, syndrome %#x\n",
				    rq->netdev->name, cqe->syndrome);
		return;
	}
	if (unlikely(opcode != CXEN_CQE_OP_RECV ||
		     FIELD_GET(CXEN_CQE_QPN, be32_to_cpu(cqe->qpn)) != rq->rqn ||
		     be16_to_cpu(cqe->wqe_index) != counter)) {
		u64_stats_inc(&rq->stats.bad_cqe);
		return;
	}
	if (unlikely(len < ETH_HLEN || len > l->frame_max)) {
		u64_stats_inc(&rq->stats.oversize);
		return;
	}

	/* Sync for the CPU only the bytes the device wrote. */
	nfrags = cxen_frag_count(l, len);
	for (f = 0, rem = len; f < nfrags; f++) {
		u32 chunk = min_t(u32, rem, l->frag[f].size);

		dma_sync_single_range_for_cpu(rq->dma_dev,
					      page_pool_get_dma_addr(bufs[f].page),
					      bufs[f].offset + l->frag[f].offset,
					      chunk, DMA_FROM_DEVICE);
		rem -= chunk;
	}

	if (l->build_skb)
		skb = cxen_rx_build_linear(rq, &bufs[0], len);
	else
		skb = cxen_rx_build_frags(rq, napi, bufs, len);
	if (unlikely(!skb)) {
		/* Fragments stay on the ring and are posted again. */
		u64_stats_inc(&rq->stats.alloc_fail);
		return;
	}
	/* The fragments now belong to the skb. */
	for (f = 0; f < nfrags; f++)
		bufs[f].page = NULL;

	skb_mark_for_recycle(skb);
	skb->protocol = eth_type_trans(skb, rq->netdev);
	skb_record_rx_queue(skb, rq->qid);
	cxen_rx_csum(rq, skb, flags);
	cxen_rx_hash(rq, skb, cqe, flags);
	if ((flags & CXEN_CQE_VLAN_STRIPPED) &&
	    (rq->netdev->features & NETIF_F_HW_VLAN_CTAG_RX))
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q),
				       be16_to_cpu(cqe->vlan_tci));

	u64_stats_inc(&rq->stats.packets);
	u64_stats_add(&rq->stats.bytes, len);
	u64_stats_add(&rq->stats.truesize_bytes, skb->truesize);
	ret = napi_gro_receive(napi, skb);
	cxen_rx_count_gro(rq, ret);
}

/**
 * cxen_poll_rx() - process RX completions and refill
 * @rq: the RQ
 * @napi: its NAPI instance
 * @budget: most frames to process
 *
 * Return: frames processed.
 */
int cxen_poll_rx(struct cxen_rq *rq, struct napi_struct *napi, int budget)
{
	struct cxen_cqe *cqe;
	int work = 0;

	if (unlikely(!budget))
		return 0;

	u64_stats_update_begin(&rq->stats.syncp);
	while (work < budget && (cqe = cxen_cqe_owned(&rq->cq))) {
		/* Read the CQE only after seeing its owner bit. */
		dma_rmb();
		cxen_rx_cqe(rq, napi, cqe);
		rq->cq.ci++;
		work++;
	}
	u64_stats_update_end(&rq->stats.syncp);

	if (work) {
		cxen_cq_update_ci(&rq->cq);
		if ((1U << rq->log_size) - (rq->pi - rq->ci) >= CXEN_RX_REFILL_BATCH)
			cxen_rq_fill(rq, GFP_ATOMIC);
	}
	return work;
}

/**
 * cxen_rq_fold_stats() - add an RQ's counters to @b
 * @rq: the RQ
 * @b: accumulator
 */
void cxen_rq_fold_stats(struct cxen_rq *rq, struct cxen_stats_base *b)
{
	const struct cxen_rq_stats *s = &rq->stats;
	struct cxen_stats_base o;
	unsigned int start;
	u64 started;

	do {
		start = u64_stats_fetch_begin(&s->syncp);
		o.rx_packets = u64_stats_read(&s->packets);
		o.rx_bytes = u64_stats_read(&s->bytes);
		o.rx_csum_unnecessary = u64_stats_read(&s->csum_unnecessary);
		o.rx_csum_none = u64_stats_read(&s->csum_none);
		o.rx_gro_packets = u64_stats_read(&s->gro_packets);
		o.rx_gro_segs = u64_stats_read(&s->gro_segs);
		o.rx_truesize_bytes = u64_stats_read(&s->truesize_bytes);
		o.rx_copybreak = u64_stats_read(&s->copybreak);
		o.rx_alloc_fail = u64_stats_read(&s->alloc_fail);
		o.rx_page_alloc = u64_stats_read(&s->page_alloc);
		started = u64_stats_read(&s->pages_started);
		o.rx_dma_map = u64_stats_read(&s->dma_map);
		o.rx_err_cqe = u64_stats_read(&s->err_cqe);
		o.rx_oversize = u64_stats_read(&s->oversize);
		o.rx_bad_cqe = u64_stats_read(&s->bad_cqe);
	} while (u64_stats_fetch_retry(&s->syncp, start));

	b->rx_packets += o.rx_packets;
	b->rx_bytes += o.rx_bytes;
	b->rx_csum_unnecessary += o.rx_csum_unnecessary;
	b->rx_csum_none += o.rx_csum_none;
	b->rx_gro_packets += o.rx_gro_packets;
	b->rx_gro_segs += o.rx_gro_segs;
	b->rx_truesize_bytes += o.rx_truesize_bytes;
	b->rx_copybreak += o.rx_copybreak;
	b->rx_alloc_fail += o.rx_alloc_fail;
	b->rx_page_alloc += o.rx_page_alloc;
	/*
	 * page_recycle counts pages the ring started carving; those not
	 * fresh from the page allocator were recycled by the pool.
	 */
	b->rx_page_recycle += started > o.rx_page_alloc ?
			      started - o.rx_page_alloc : 0;
	b->rx_dma_map += o.rx_dma_map;
	b->rx_err_cqe += o.rx_err_cqe;
	b->rx_oversize += o.rx_oversize;
	b->rx_bad_cqe += o.rx_bad_cqe;
}
