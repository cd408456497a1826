// SPDX-License-Identifier: GPL-2.0
/*
 * cxen RX: receive queues, page_pool buffers, CQE parsing, skb building.
 *
 * An RQ is a ring of WQEs, each a scatter list of the fragments that
 * en_frag.c lays out for the MTU. Fragments come from the RQ's buffer
 * strategy (en_frag.c): by default one page_pool per RQ, pages DMA-mapped
 * once by the pool, carved into strides, and back to the pool when the
 * stack frees the skbs (skb_mark_for_recycle).
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
 */
#include <kunit/visibility.h>
#include <linux/bpf_trace.h>
#include <linux/etherdevice.h>
#include <linux/filter.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/page_pool/helpers.h>
#include <net/xdp.h>

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

static void cxen_rq_release_all(struct cxen_rq *rq);
static void cxen_rq_refill_work(struct work_struct *work);

/*
 * The data path gets and releases the default strategy's buffers by
 * direct calls; only an RQ of a comparison layout (CONFIG_CXEN_RX_COMPARE)
 * goes through its ops, out of line in en_frag_compare.c. Without
 * CONFIG_CXEN_RX_COMPARE the test is constant and that branch is gone.
 */
static __always_inline bool cxen_rq_pagepool(const struct cxen_rq *rq)
{
	return !IS_ENABLED(CONFIG_CXEN_RX_COMPARE) ||
	       likely(rq->ops == &cxen_rx_strategies[CXEN_RX_PAGEPOOL]);
}

static __always_inline int cxen_rx_get(struct cxen_rq *rq, unsigned int f,
				       struct cxen_rx_buf *buf, gfp_t gfp)
{
	if (cxen_rq_pagepool(rq))
		return cxen_pp_get(rq, f, buf, gfp);
	return cxen_rx_compare_get(rq, f, buf, gfp);
}

static __always_inline void cxen_rx_release(struct cxen_rq *rq, unsigned int f,
					    struct cxen_rx_buf *buf, bool to_skb)
{
	if (cxen_rq_pagepool(rq))
		cxen_pp_release(rq, f, buf, to_skb);
	else
		cxen_rx_compare_release(rq, f, buf, to_skb);
}

/**
 * cxen_frag_param_init() - the fragment layout's input for this port
 * @priv: the port
 * @mtu: the MTU to lay out for
 * @xdp: for an RQ that runs an XDP program
 * @p: filled in: the kernel's page size, skb (or XDP) head- and tailroom
 *	and the device's data segments per WQE
 */
void cxen_frag_param_init(const struct cxen_priv *priv, u32 mtu, bool xdp,
			  struct cxen_frag_param *p)
{
	p->mtu = mtu;
	p->page_size = PAGE_SIZE;
	p->headroom = xdp ? XDP_PACKET_HEADROOM : NET_SKB_PAD + NET_IP_ALIGN;
	p->tailroom = SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
	p->max_frags = priv->cdev->caps.max_rx_segs;
	p->xdp = xdp;
}

static int cxen_rq_layout(struct cxen_channel *ch, struct cxen_rq *rq)
{
	struct cxen_priv *priv = ch->priv;
	struct cxen_frag_param p;

	cxen_frag_param_init(priv, priv->params.mtu, rq->xdp, &p);
	rq->ops = &cxen_rx_strategies[priv->params.rx_strategy];
	return rq->ops->layout(&p, &rq->layout);
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

/**
 * cxen_rq_pool_create() - an RQ's page_pool
 * @rq: the RQ, its DMA device, NAPI, netdev, queue index and DMA
 *	direction set
 * @pool_size: pages its recycling ring holds
 *
 * Every RX strategy takes its pages from one of these: order-0 pages,
 * mapped once by the pool and synced for the device by it when recycled.
 *
 * Return: 0 or a negative errno, with @rq->pool NULL.
 */
int cxen_rq_pool_create(struct cxen_rq *rq, u32 pool_size)
{
	struct page_pool_params pp = {
		.flags		= PP_FLAG_DMA_MAP | PP_FLAG_DMA_SYNC_DEV,
		.order		= 0,
		.pool_size	= pool_size,
		.nid		= dev_to_node(rq->dma_dev),
		.dev		= rq->dma_dev,
		.napi		= rq->napi,
		.netdev		= rq->netdev,
		.queue_idx	= rq->qid,
		/* An XDP RQ's pages go out again from XDP_TX. */
		.dma_dir	= rq->dma_dir,
		.offset		= 0,
		.max_len	= PAGE_SIZE,
	};

	rq->pool = page_pool_create(&pp);
	if (IS_ERR(rq->pool)) {
		int err = PTR_ERR(rq->pool);

		rq->pool = NULL;
		return err;
	}
	return 0;
}

/**
 * cxen_rq_cq_create() - an RQ's CQ on its channel's vector, and its number
 * @ch: the channel
 * @rq: the RQ, its doorbell records in the channel's page
 * @log_size: the CQ's size
 *
 * Builds the CQ in the device with the port's RX moderation and takes an
 * RQ number for the CREATE_RQ that follows. Every RQ kind does this the
 * same way; cxen_rq_cq_destroy() undoes it.
 *
 * Return: 0, or a negative errno with nothing left.
 */
int cxen_rq_cq_create(struct cxen_channel *ch, struct cxen_rq *rq,
		      u8 log_size)
{
	struct cxen_priv *priv = ch->priv;
	struct cxen_dev *cdev = priv->cdev;
	int err, rqn;

	err = cxen_cq_create(ch, &rq->cq, log_size, priv->params.rx_usecs,
			     priv->params.rx_frames);
	if (err)
		return err;
	rqn = ida_alloc_max(&cdev->rqn_ida, CXEN_HW_NUM_RQ - 1, GFP_KERNEL);
	if (rqn < 0) {
		cxen_cq_destroy(cdev, &rq->cq);
		return rqn;
	}
	rq->rqn = rqn;
	return 0;
}

/**
 * cxen_rq_cq_destroy() - undo cxen_rq_cq_create() for an RQ never created
 * @rq: the RQ; the device has no RQ @rq->rqn
 *
 * A CQ the device does not give back (DESTROY_CQ failed) stays allocated:
 * the device may still write its CQEs.
 */
void cxen_rq_cq_destroy(struct cxen_rq *rq)
{
	struct cxen_dev *cdev = rq->priv->cdev;

	ida_free(&cdev->rqn_ida, rq->rqn);
	cxen_cq_destroy(cdev, &rq->cq);
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
	dma_addr_t rq_dbrec;
	u32 size;
	int err;

	rq->priv = priv;
	rq->ch = ch;
	rq->hw_destroyed = true;	/* until CREATE_RQ succeeds */
	rq->netdev = priv->netdev;
	rq->napi = &ch->napi;
	rq->dma_dev = cdev->dev;
	rq->qid = ch->idx;
	rq->lkey = cdev->caps.rsvd_lkey;
	rq->log_size = ilog2(priv->params.rq_size);
	size = 1U << rq->log_size;
	/* The channel sets rq->xsq once its XDP SQ exists. */
	rq->xdp = !!priv->params.xdp_prog;
	RCU_INIT_POINTER(rq->xdp_prog, priv->params.xdp_prog);
	rq->dma_dir = rq->xdp ? DMA_BIDIRECTIONAL : DMA_FROM_DEVICE;
	u64_stats_init(&rq->stats.syncp);
	INIT_DELAYED_WORK(&rq->refill_work, cxen_rq_refill_work);
	err = cxen_rq_layout(ch, rq);
	if (err) {
		netdev_err(priv->netdev, "no RX buffer layout for MTU %u with %s buffers\n",
			   priv->params.mtu, rq->ops->name);
		return err;
	}
	/* A strategy with an RQ of its own kind (striding) builds it. */
	if (rq->ops->ring)
		return rq->ops->ring->alloc(ch, rq);

	rq_dbrec = ch->dbrec_dma + ((void *)rq->dbrec - ch->dbrec_page);

	err = rq->ops->init(rq);
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

	/* Post buffers before the device can see the queue. */
	/* Fail before the OOM killer runs (cxen_params_mem_check()); say so once below. */
	err = cxen_rq_fill(rq, GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	cxen_rq_stats_publish(rq);
	if (err) {
		netdev_err(priv->netdev, "cannot allocate RX buffers for queue %d\n",
			   ch->idx);
		goto err_bufs_posted;
	}
	rq->hw_gen = READ_ONCE(cdev->hw_gen);
	err = cxen_cmd_create_wq(cdev, CXEN_CMD_CREATE_RQ, rq->rqn, priv->port,
				 rq->ring_dma, rq_dbrec, rq->cq.cqn,
				 rq->log_size, CXEN_RX_LOG_STRIDE);
	if (err)
		goto err_bufs_posted;
	rq->hw_destroyed = false;
	return 0;

err_bufs_posted:
	cxen_rq_release_all(rq);
	cxen_rq_cq_destroy(rq);
err_wqes:
	dma_free_coherent(cdev->dev, size * sizeof(*rq->wqes), rq->wqes,
			  rq->ring_dma);
err_bufs:
	kvfree(rq->bufs);
err_xdp_unreg:
	cxen_rq_xdp_unreg(rq);
err_uninit:
	rq->ops->uninit(rq);
	return err;
}

/**
 * cxen_rq_stop_hw() - destroy the RQ in the device, keep its CQ
 * @rq: the RQ
 *
 * When this returns 0 the device has written its last CQE for the RQ and
 * will not touch its ring or buffers again (destroyed, or forgotten in a
 * device reset); the CQ still holds whatever NAPI has not reaped yet.
 *
 * Return: 0, or -EIO if the device may still use the RQ (it failed and
 * could not be reset): nothing it was given may be freed.
 */
int cxen_rq_stop_hw(struct cxen_rq *rq)
{
	struct cxen_channel *ch = rq->ch;
	int err;

	if (rq->hw_destroyed)
		return 0;
	err = cxen_hw_release(ch->priv->cdev, CXEN_CMD_DESTROY_RQ, rq->rqn,
			      rq->hw_gen);
	if (!err)
		rq->hw_destroyed = true;
	return err;
}

/**
 * cxen_rq_leak() - leave an RQ the device may still write into
 * @rq: the RQ; its NAPI instance is disabled, or serves another RQ
 *	(@rq->beside)
 *
 * Its ring, CQ, buffers and page pool stay allocated and mapped, never
 * freed under the device. The pool is untied from the channel's NAPI,
 * which is freed with the channel: a page of it that an skb still holds
 * must not find that NAPI when it is freed.
 */
void cxen_rq_leak(struct cxen_rq *rq)
{
	netdev_err(rq->netdev, "RQ %u: the device may still write into it: its memory stays allocated\n",
		   rq->rqn);
	if (!rq->pool)
		return;
	/* An RQ built beside the running one shares a live NAPI. */
	if (rq->beside)
		napi_disable(rq->napi);
	page_pool_disable_direct_recycling(rq->pool);
	if (rq->beside)
		napi_enable(rq->napi);
}

/**
 * cxen_rq_free() - destroy an RQ on the device and free everything
 * @rq: the RQ; its NAPI instance is disabled, or serves another RQ
 *	(@rq->beside)
 *
 * Return: true, or false if the device may still write into the RQ (it
 * failed and could not be reset): its ring, CQ, buffers and page pool
 * are then left allocated and mapped, never freed under the device.
 */
bool cxen_rq_free(struct cxen_rq *rq)
{
	struct cxen_channel *ch = rq->ch;
	struct cxen_dev *cdev = ch->priv->cdev;
	u32 size = 1U << rq->log_size;

	if (rq->ops->ring)
		return rq->ops->ring->free(rq);
	cancel_delayed_work_sync(&rq->refill_work);
	/* After DESTROY the device no longer writes into our buffers. */
	if (cxen_rq_stop_hw(rq) ||
	    cxen_hw_release(cdev, CXEN_CMD_DESTROY_CQ, rq->cq.cqn, rq->cq.hw_gen)) {
		cxen_rq_leak(rq);
		return false;
	}
	ida_free(&cdev->rqn_ida, rq->rqn);

	cxen_rq_release_all(rq);
	cxen_cq_free(cdev, &rq->cq);
	dma_free_coherent(cdev->dev, size * sizeof(*rq->wqes), rq->wqes,
			  rq->ring_dma);
	kvfree(rq->bufs);
	cxen_rq_xdp_unreg(rq);
	rq->ops->uninit(rq);
	return true;
}

/*
 * Give every fragment of @slot without a buffer a new one and write it
 * into the WQE. A fragment that kept its buffer (a frame dropped, copied
 * or restarted over) is described by the WQE already: the device never
 * writes the RQ's ring, so it is left as it is.
 */
static int cxen_rq_post_slot(struct cxen_rq *rq, u32 slot, gfp_t gfp)
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
		if (unlikely(cxen_rx_get(rq, f, buf, gfp)))
			return -ENOMEM;
		wqe->seg[f].byte_count = cpu_to_be32(frag->size);
		wqe->seg[f].lkey = cpu_to_be32(rq->lkey);
		wqe->seg[f].addr = cpu_to_be64(buf->dma + frag->offset);
	}
	return 0;
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

	if (rq->ops->ring)
		return rq->ops->ring->fill(rq, gfp);
	while (pi - rq->ci < size) {
		err = cxen_rq_post_slot(rq, pi & cxen_rq_mask(rq), gfp);
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

/**
 * cxen_rx_csum_ok() - may the stack skip verifying this frame's checksums?
 * @flags: the RX CQE's flags
 *
 * Only a TCP or UDP frame over IPv4 or IPv6 that is no IP fragment, whose
 * L4 checksum the device verified and, over IPv4, whose header checksum
 * too. A device claiming L4_CSUM_OK for anything else (no L4 header it
 * could have checked, a fragment, whose checksum covers the datagram and
 * not the frame) is not believed.
 *
 * Return: true for CHECKSUM_UNNECESSARY.
 */
bool cxen_rx_csum_ok(u32 flags)
{
	u32 l3 = FIELD_GET(CXEN_CQE_L3_TYPE, flags);
	u32 l4 = FIELD_GET(CXEN_CQE_L4_TYPE, flags);

	if (!(flags & CXEN_CQE_L4_CSUM_OK) || (flags & CXEN_CQE_IP_FRAG))
		return false;
	if (l4 != CXEN_CQE_L4_TCP && l4 != CXEN_CQE_L4_UDP)
		return false;
	if (l3 == CXEN_CQE_L3_IPV4)
		return flags & CXEN_CQE_L3_CSUM_OK;
	return l3 == CXEN_CQE_L3_IPV6;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_rx_csum_ok);

/**
 * cxen_rx_lro_gso() - make a frame the device merged (LRO) a GSO packet
 * @skb: the frame, after eth_type_trans()
 * @flags: its CQE's flags (CXEN_CQE_LRO)
 * @segs: the segments the CQE says it merged
 *
 * What the stack needs to account the frame as @segs segments and to
 * cut it again when it forwards it: gso_size (its payload over @segs,
 * rounded up, as the sender's MSS), gso_type, gso_segs. The device's word
 * is checked against the headers it rewrote: TCP over IPv4 without
 * options or over IPv6 without extension headers (one 802.1Q or 802.1ad
 * tag allowed), checksums verified, the IP length the frame's, at least
 * two segments and a payload byte per segment. The headers are read
 * with skb_header_pointer(): a striding frame that starts at the end of a
 * page has only part of them in its head (cxen_rx_hdr_len() cannot apply
 * there), and the rest in its first frag.
 *
 * Context: NAPI; any, for the KUnit suite.
 * Return: 0, or -EINVAL: the caller drops the frame.
 */
int cxen_rx_lro_gso(struct sk_buff *skb, u32 flags, u32 segs)
{
	u32 l3 = FIELD_GET(CXEN_CQE_L3_TYPE, flags), off = 0, iplen, thoff;
	const struct tcphdr *th;
	__be16 proto = skb->protocol;
	unsigned int gso_type;
	struct tcphdr _th;

	if (segs < 2 || FIELD_GET(CXEN_CQE_L4_TYPE, flags) != CXEN_CQE_L4_TCP ||
	    !cxen_rx_csum_ok(flags))
		return -EINVAL;
	if (eth_type_vlan(proto)) {
		const struct vlan_hdr *vh;
		struct vlan_hdr _vh;

		vh = skb_header_pointer(skb, 0, sizeof(_vh), &_vh);
		if (!vh)
			return -EINVAL;
		proto = vh->h_vlan_encapsulated_proto;
		off = VLAN_HLEN;
	}
	if (l3 == CXEN_CQE_L3_IPV4 && proto == htons(ETH_P_IP)) {
		const struct iphdr *iph;
		struct iphdr _iph;

		iph = skb_header_pointer(skb, off, sizeof(_iph), &_iph);
		if (!iph || iph->version != 4 || iph->ihl != 5 ||
		    iph->protocol != IPPROTO_TCP)
			return -EINVAL;
		iplen = ntohs(iph->tot_len);
		thoff = off + sizeof(*iph);
		gso_type = SKB_GSO_TCPV4;
	} else if (l3 == CXEN_CQE_L3_IPV6 && proto == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6h;
		struct ipv6hdr _ip6h;

		ip6h = skb_header_pointer(skb, off, sizeof(_ip6h), &_ip6h);
		if (!ip6h || ip6h->version != 6 || ip6h->nexthdr != IPPROTO_TCP)
			return -EINVAL;
		iplen = sizeof(*ip6h) + ntohs(ip6h->payload_len);
		thoff = off + sizeof(*ip6h);
		gso_type = SKB_GSO_TCPV6;
	} else {
		return -EINVAL;
	}
	th = skb_header_pointer(skb, thoff, sizeof(_th), &_th);
	if (!th || th->doff < 5 || off + iplen != skb->len ||
	    skb->len < thoff + th->doff * 4 + segs)
		return -EINVAL;
	skb_shinfo(skb)->gso_size = DIV_ROUND_UP(skb->len - thoff - th->doff * 4,
						 segs);
	skb_shinfo(skb)->gso_type = gso_type;
	skb_shinfo(skb)->gso_segs = segs;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_rx_lro_gso);

/**
 * cxen_rx_hdr_len() - a frame's header length from its CQE's parse
 * @va: the frame's first bytes
 * @avail: how many of them may be read (the first buffer's, at most the
 *	head the caller copies into)
 * @flags: the RX CQE's flags
 *
 * For a TCP or UDP frame over IPv4 or IPv6 (one 802.1Q or 802.1ad tag
 * allowed), as the CQE's L3 and L4 types say, the bytes up to the end of
 * its TCP or UDP header: what eth_get_headlen() would find, without the
 * flow dissector. The CQE only says where to look: the headers are read
 * and must agree with it (EtherType, IP version and protocol, no IPv6
 * extension header, IPv4 and TCP header lengths in range), and all of
 * them must lie within @avail.
 *
 * Return: the header length, or 0 when the CQE's parse does not apply
 * (the caller asks eth_get_headlen()).
 */
u32 cxen_rx_hdr_len(const void *va, u32 avail, u32 flags)
{
	u32 l3 = FIELD_GET(CXEN_CQE_L3_TYPE, flags);
	u32 l4 = FIELD_GET(CXEN_CQE_L4_TYPE, flags);
	const struct ethhdr *eth = va;
	u32 off = ETH_HLEN, ipproto;
	__be16 proto;

	if ((l4 != CXEN_CQE_L4_TCP && l4 != CXEN_CQE_L4_UDP) ||
	    (flags & CXEN_CQE_IP_FRAG) || avail < ETH_HLEN)
		return 0;
	ipproto = l4 == CXEN_CQE_L4_TCP ? IPPROTO_TCP : IPPROTO_UDP;
	proto = eth->h_proto;
	if (eth_type_vlan(proto)) {
		const struct vlan_hdr *vh = va + off;

		if (avail < off + VLAN_HLEN)
			return 0;
		proto = vh->h_vlan_encapsulated_proto;
		off += VLAN_HLEN;
	}

	if (l3 == CXEN_CQE_L3_IPV4 && proto == htons(ETH_P_IP)) {
		const struct iphdr *iph = va + off;

		if (avail < off + sizeof(*iph) || iph->version != 4 ||
		    iph->ihl < 5 || iph->protocol != ipproto)
			return 0;
		off += iph->ihl * 4;
	} else if (l3 == CXEN_CQE_L3_IPV6 && proto == htons(ETH_P_IPV6)) {
		const struct ipv6hdr *ip6h = va + off;

		if (avail < off + sizeof(*ip6h) || ip6h->version != 6 ||
		    ip6h->nexthdr != ipproto)
			return 0;
		off += sizeof(*ip6h);
	} else {
		return 0;
	}

	if (ipproto == IPPROTO_TCP) {
		const struct tcphdr *th = va + off;

		if (avail < off + sizeof(*th) || th->doff < 5)
			return 0;
		off += th->doff * 4;
	} else {
		off += sizeof(struct udphdr);
	}
	return off <= avail ? off : 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_rx_hdr_len);

static __always_inline void cxen_rx_csum(struct cxen_rq *rq,
					 struct sk_buff *skb, u32 flags)
{
	if ((rq->netdev->features & NETIF_F_RXCSUM) && cxen_rx_csum_ok(flags)) {
		skb->ip_summed = CHECKSUM_UNNECESSARY;
		cxen_rq_inc(rq, csum_unnecessary);
	} else {
		skb->ip_summed = CHECKSUM_NONE;
		cxen_rq_inc(rq, csum_none);
	}
}

/*
 * The device's hash, or none: every frame sets it or clears it, since
 * NAPI's frags skb goes from frame to frame (napi_reuse_skb() keeps the
 * last frame's hash).
 */
static __always_inline void cxen_rx_hash(struct cxen_rq *rq,
					 struct sk_buff *skb,
					 const struct cxen_cqe *cqe, u32 flags)
{
	enum pkt_hash_types type = PKT_HASH_TYPE_NONE;
	u32 hash = 0;

	if (rq->netdev->features & NETIF_F_RXHASH) {
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
		}
	}
	if (type != PKT_HASH_TYPE_NONE)
		hash = be32_to_cpu(cqe->rss_hash);
	skb_set_hash(skb, hash, type);
}

/* Checksum, hash and VLAN tag from the CQE onto the skb. */
static __always_inline void cxen_rx_meta(struct cxen_rq *rq, struct sk_buff *skb,
					 const struct cxen_cqe *cqe, u32 flags)
{
	cxen_rx_csum(rq, skb, flags);
	cxen_rx_hash(rq, skb, cqe, flags);
	/* The device strips only when told to (NETIF_F_HW_VLAN_CTAG_RX); a
	 * tag stripped just before the feature went off still belongs here.
	 */
	if (flags & CXEN_CQE_VLAN_STRIPPED)
		__vlan_hwaccel_put_tag(skb, htons(ETH_P_8021Q),
				       be16_to_cpu(cqe->vlan_tci));
}

/**
 * cxen_rx_cqe_meta() - checksum, hash and VLAN tag from a CQE onto an skb
 * @rq: the RQ the frame came from
 * @skb: the frame's skb
 * @cqe: its CQE
 * @flags: be32_to_cpu(@cqe->flags)
 *
 * What the default path does inline, out of line for the comparison
 * layouts' receive path (en_frag_compare.c) and the striding RQ's
 * (en_rx_stride.c). Counts the checksum verdict.
 */
void cxen_rx_cqe_meta(struct cxen_rq *rq, struct sk_buff *skb,
		      const struct cxen_cqe *cqe, u32 flags)
{
	cxen_rx_meta(rq, skb, cqe, flags);
}

/* Give back every buffer still on the ring; the device no longer uses it. */
static void cxen_rq_release_all(struct cxen_rq *rq)
{
	u32 slot, size = 1U << rq->log_size;
	unsigned int f;

	for (slot = 0; slot < size; slot++) {
		struct cxen_rx_buf *bufs = cxen_rq_slot_bufs(rq, slot);

		for (f = 0; f < rq->layout.nfrags; f++)
			if (bufs[f].page)
				cxen_rx_release(rq, f, &bufs[f], false);
	}
}

/**
 * cxen_rq_restart() - start an RQ over at WQE 0, for a reset in place
 * @rq: the RQ, reset in the device (MODIFY_RQ to RST), NAPI disabled
 *
 * CQEs NAPI did not take before it stopped are dropped (rx_err_cqe).
 * Every buffer stays on the ring where it is: cxen_rq_fill() posts the
 * slots again from 0 and allocates only for the empty ones.
 */
void cxen_rq_restart(struct cxen_rq *rq)
{
	unsigned int left = 0;

	if (rq->ops->ring) {
		rq->ops->ring->restart(rq);
		return;
	}
	while (cxen_cqe_owned(&rq->cq)) {
		dma_rmb();
		rq->cq.ci++;
		left++;
	}
	if (left) {
		cxen_cq_update_ci(&rq->cq);
		cxen_rq_add(rq, err_cqe, left);
	}
	rq->pi = 0;
	rq->ci = 0;
	WRITE_ONCE(rq->dbrec->pi, 0);
}

/* A ring left empty gets no completions, so nothing else would refill it. */
static void cxen_rq_refill_work(struct work_struct *work)
{
	struct cxen_rq *rq = container_of(to_delayed_work(work), struct cxen_rq,
					  refill_work);

	local_bh_disable();
	napi_schedule(rq->napi);
	local_bh_enable();
}

/**
 * cxen_rq_move() - move an RQ into another struct cxen_rq
 * @dst: where it goes: its channel, or a queue restart's memory
 * @src: the RQ; its NAPI disabled, its refill work idle
 *
 * An RQ points to itself only from its refill work and its counters'
 * seqcount, both set up again; everything else (rings, CQ, page_pool,
 * xdp_rxq_info) is the device's or the heap's and moves as it is. @src
 * is not used again.
 */
void cxen_rq_move(struct cxen_rq *dst, const struct cxen_rq *src)
{
	*dst = *src;
	INIT_DELAYED_WORK(&dst->refill_work, cxen_rq_refill_work);
	u64_stats_init(&dst->stats.syncp);
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
	cxen_rx_release(rq, 0, buf, true);
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
	skb = napi_alloc_skb(napi, CXEN_RX_HDR_SIZE);
	if (unlikely(!skb))
		return NULL;
	avail = min3(len, l->frag[0].size, (u32)CXEN_RX_HDR_SIZE);
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
			cxen_rx_release(rq, f, &bufs[f], true);
		} else {
			/* Wholly copied into the head: drop the fragment. */
			cxen_rx_release(rq, f, &bufs[f], false);
		}
		len -= chunk;
	}
	return skb;
}

/*
 * Small frame: copy it into a fresh skb and leave the buffer on the ring,
 * where it is posted again (seed 003's copy-vs-map trade-off).
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

static void cxen_rx_count_gro(struct cxen_rq *rq, gro_result_t ret)
{
	/* Each frame is a segment; each held or normal one becomes a packet. */
	cxen_rq_inc(rq, gro_segs);
	if (ret == GRO_HELD || ret == GRO_NORMAL)
		cxen_rq_inc(rq, gro_packets);
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
		cxen_rx_release(rq, f, &bufs[f], true);
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
 *
 * Every device value is checked before use: the CQE must be a receive
 * or error completion of this RQ, for the WQE at the consumer index, with
 * a length the posted fragments can hold. A bad CQE is counted and its
 * WQE's fragments are posted again untouched.
 */
static void cxen_rx_cqe(struct cxen_rq *rq, struct napi_struct *napi,
			const struct cxen_cqe *cqe, struct bpf_prog *prog)
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
		/* The RQ is in error: the WQE comes back unused. */
		if (cqe->syndrome == CXEN_SYND_WR_FLUSH) {
			cxen_rq_inc(rq, flush_cqe);
			return;
		}
		cxen_rq_inc(rq, err_cqe);
		net_dbg_ratelimited("%s: RX error CQE, syndrome %#x\n",
				    rq->netdev->name, cqe->syndrome);
		/*
		 * A frame too long (LOCAL_LENGTH) costs that frame; any other
		 * syndrome put the RQ in the error state, in which it
		 * flushes every WQE: only a reset brings it back.
		 */
		if (cqe->syndrome != CXEN_SYND_LOCAL_LENGTH)
			cxen_rq_schedule_reset(rq);
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
	if (!cxen_rq_pagepool(rq)) {
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

	if (rq->ops->recycle)
		skb_mark_for_recycle(skb);
	skb->protocol = eth_type_trans(skb, rq->netdev);
	skb_record_rx_queue(skb, rq->qid);
	cxen_rx_meta(rq, skb, cqe, flags);

	cxen_rq_add(rq, truesize_bytes, skb->truesize);
	ret = napi_gro_receive(napi, skb);
	cxen_rx_count_gro(rq, ret);
}

/**
 * cxen_poll_rx() - process RX completions and refill
 * @rq: the RQ
 * @napi: its NAPI instance
 * @budget: most frames to process
 *
 * With an XDP program, XDP_TX frames queued and redirects done in the
 * poll are flushed once at its end: one XDP SQ doorbell, one
 * xdp_do_flush().
 *
 * Return: frames processed.
 */
int cxen_poll_rx(struct cxen_rq *rq, struct napi_struct *napi, int budget)
{
	struct bpf_prog *prog = NULL;
	struct cxen_cqe *cqe;
	int work = 0;

	if (unlikely(!budget))
		return 0;
	/* Once per poll: a strategy with its own RQ (striding) polls it. */
	if (rq->ops->ring)
		return rq->ops->ring->poll(rq, napi, budget);

	/* One program for the whole poll: a swap takes effect at the next. */
	if (rq->xdp)
		prog = rcu_dereference_bh(rq->xdp_prog);
	while (work < budget && (cqe = cxen_cqe_owned(&rq->cq))) {
		/* Read the CQE only after seeing its owner bit. */
		dma_rmb();
		cxen_rx_cqe(rq, napi, cqe, prog);
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
	    cxen_rq_fill(rq, GFP_ATOMIC) && rq->pi == rq->ci)
		/* Starved: no completion will come to retry for us. */
		schedule_delayed_work(&rq->refill_work, CXEN_RX_REFILL_RETRY);
	cxen_rq_stats_publish(rq);
	return work;
}
