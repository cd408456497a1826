/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxen RX: what every kind of RQ shares, and the RQ's entry points.
 *
 * An RQ is of one kind, chosen once when it is built from its buffer
 * layout (&cxen_rx_layout_ops.kind, en_frag.c) and kept in @rq->kind:
 *
 *   en_rx_sg.c       the scatter-list RQ: a ring of WQEs, each a scatter
 *                    list of the fragments the layout cuts (the default)
 *   en_rx_stride.c   the striding RQ: WQEs of pages cut into strides
 *   en_rx_compare.c  the benchmark's comparison layouts, the mlx4 driver
 *                    of 2012-2013 on the scatter-list ring, whose code
 *                    en_rx_sg.c builds a second time for them
 *                    (CONFIG_CXEN_RX_COMPARE)
 *
 * The rest of the driver calls an RQ only through the inlines below,
 * which go to its kind once per call, never per frame. What the kinds
 * share is here (CQE metadata, buffer get and put) and in en_rx.c (RQ
 * set-up, CQ, teardown, header parsing, error CQEs); a kind calls nothing
 * of another.
 */
#ifndef _CXEN_EN_RX_H_
#define _CXEN_EN_RX_H_

#include <linux/indirect_call_wrapper.h>
#include <linux/if_vlan.h>

#include "en.h"

/*
 * The most bytes of a frame's headers any kind copies into a small skb
 * head when it attaches the rest as page frags.
 */
#define CXEN_RX_HDR_COPY	256

/**
 * struct cxen_rx_kind - the operations of one kind of RQ
 * @alloc: builds the RQ's ring, CQ and buffers and creates it on the
 *	device, the common fields set by cxen_rq_init(); on error nothing
 *	is left allocated
 * @free: destroys it on the device and frees it; false if the device may
 *	still write into it (its memory is then left, cxen_rq_leak())
 * @fill: posts WQEs until the ring is full, one doorbell at the end
 * @restart: starts it over at WQE 0 after a reset in place
 * @poll: takes up to a budget of CQEs, delivers their frames, refills
 */
struct cxen_rx_kind {
	int (*alloc)(struct cxen_channel *ch, struct cxen_rq *rq);
	bool (*free)(struct cxen_rq *rq);
	int (*fill)(struct cxen_rq *rq, gfp_t gfp);
	void (*restart)(struct cxen_rq *rq);
	int (*poll)(struct cxen_rq *rq, struct napi_struct *napi, int budget);
};

/* en_rx_sg.c, which builds the comparison layouts' kind too */
extern const struct cxen_rx_kind cxen_rx_sg_kind;
extern const struct cxen_rx_kind cxen_rx_compare_kind;
int cxen_rx_sg_poll(struct cxen_rq *rq, struct napi_struct *napi, int budget);
/* en_rx_stride.c */
extern const struct cxen_rx_kind cxen_rx_stride_kind;
int cxen_stride_poll(struct cxen_rq *rq, struct napi_struct *napi, int budget);
/* en_rx_compare.c: the comparison layouts' buffers and receive routine */
int cxen_rx_compare_init(struct cxen_rq *rq);
void cxen_rx_compare_uninit(struct cxen_rq *rq);
int cxen_rx_compare_get(struct cxen_rq *rq, unsigned int f,
			struct cxen_rx_buf *buf, gfp_t gfp);
void cxen_rx_compare_release(struct cxen_rq *rq, unsigned int f,
			     struct cxen_rx_buf *buf, bool to_skb);
void cxen_rx_compare_cqe(struct cxen_rq *rq, struct napi_struct *napi,
			 const struct cxen_cqe *cqe, struct cxen_rx_buf *bufs,
			 u32 len);

/* en_rx.c: what the kinds share */
void cxen_frag_param_init(const struct cxen_priv *priv, u32 mtu, bool xdp,
			  struct cxen_frag_param *p);
int cxen_rq_init(struct cxen_channel *ch, struct cxen_rq *rq);
int cxen_rq_cq_create(struct cxen_channel *ch, struct cxen_rq *rq,
		      u8 log_size);
void cxen_rq_cq_destroy(struct cxen_rq *rq);
int cxen_rq_stop_hw(struct cxen_rq *rq);
bool cxen_rq_release_hw(struct cxen_rq *rq);
int cxen_rq_first_fill(struct cxen_rq *rq);
void cxen_rq_drain_cq(struct cxen_rq *rq);
void cxen_rq_move(struct cxen_rq *dst, const struct cxen_rq *src);
void cxen_rx_err_cqe(struct cxen_rq *rq, const struct cxen_cqe *cqe);
u32 cxen_rx_hdr_len(const void *va, u32 avail, u32 flags);
int cxen_rx_lro_gso(struct sk_buff *skb, u32 flags, u32 segs);

/* The kind of an RQ of buffer layout @s (en_frag.c's table). */
static inline const struct cxen_rx_kind *
cxen_rx_kind_of(enum cxen_rx_layout s)
{
	switch (cxen_rx_layouts[s].kind) {
	case CXEN_RX_KIND_STRIDE:
		return &cxen_rx_stride_kind;
#if IS_ENABLED(CONFIG_CXEN_RX_COMPARE)
	case CXEN_RX_KIND_COMPARE:
		return &cxen_rx_compare_kind;
#endif
	default:
		return &cxen_rx_sg_kind;
	}
}

/**
 * cxen_rq_alloc() - allocate an RQ with its CQ and buffers, and create it
 * on the device
 * @ch: the channel
 * @rq: the RQ inside @ch, or a queue restart's
 *
 * Return: 0 or a negative errno; on error nothing is left allocated.
 */
static inline int cxen_rq_alloc(struct cxen_channel *ch, struct cxen_rq *rq)
{
	int err = cxen_rq_init(ch, rq);

	if (err)
		return err;
	rq->kind = cxen_rx_kind_of(ch->priv->params.rx_layout);
	return rq->kind->alloc(ch, rq);
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
static inline bool cxen_rq_free(struct cxen_rq *rq)
{
	return rq->kind->free(rq);
}

/**
 * cxen_rq_fill() - post WQEs until the ring is full
 * @rq: the RQ
 * @gfp: GFP_KERNEL at creation, GFP_ATOMIC from NAPI
 *
 * Return: 0, or -ENOMEM if a buffer could not be allocated (the WQEs
 * posted so far stay posted; the caller retries later).
 */
static inline int cxen_rq_fill(struct cxen_rq *rq, gfp_t gfp)
{
	return rq->kind->fill(rq, gfp);
}

/**
 * cxen_rq_restart() - start an RQ over at WQE 0, for a reset in place
 * @rq: the RQ, reset in the device (MODIFY_RQ to RST), NAPI disabled
 *
 * CQEs NAPI did not take before it stopped are dropped (rx_err_cqe).
 */
static inline void cxen_rq_restart(struct cxen_rq *rq)
{
	rq->kind->restart(rq);
}

/**
 * cxen_poll_rx() - process RX completions and refill
 * @rq: the RQ
 * @napi: its NAPI instance
 * @budget: most CQEs to take; 0 (netpoll) takes none
 *
 * Return: CQEs taken.
 */
static inline int cxen_poll_rx(struct cxen_rq *rq, struct napi_struct *napi,
			       int budget)
{
	if (unlikely(!budget))
		return 0;
	return INDIRECT_CALL_2(rq->kind->poll, cxen_rx_sg_poll,
			       cxen_stride_poll, rq, napi, budget);
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
static inline bool cxen_rx_csum_ok(u32 flags)
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

/**
 * cxen_rx_meta() - checksum, hash and VLAN tag from a CQE onto an skb
 * @rq: the RQ the frame came from
 * @skb: the frame's skb
 * @cqe: its CQE
 * @flags: be32_to_cpu(@cqe->flags)
 *
 * Counts the checksum verdict.
 */
static __always_inline void cxen_rx_meta(struct cxen_rq *rq,
					 struct sk_buff *skb,
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

/* What GRO made of a frame: each is a segment, a held or passed one a packet. */
static __always_inline void cxen_rx_count_gro(struct cxen_rq *rq,
					      gro_result_t ret)
{
	cxen_rq_inc(rq, gro_segs);
	if (ret == GRO_HELD || ret == GRO_NORMAL)
		cxen_rq_inc(rq, gro_packets);
}

/**
 * cxen_pp_get() - the next fragment of the page fragment index @f carves
 * @rq: an RQ of the default layout (page_pool, en_frag.c)
 * @f: the fragment index within the WQE
 * @buf: filled in: the page, the fragment's offset in it, its bus address
 * @gfp: for a new page (cxen_pp_start_page())
 *
 * Inline for the fill loop: most calls only step through the page.
 *
 * Return: 0, or -ENOMEM.
 */
static inline int cxen_pp_get(struct cxen_rq *rq, unsigned int f,
			      struct cxen_rx_buf *buf, gfp_t gfp)
{
	struct cxen_rx_carve *c = &rq->carve[f];

	if (unlikely(!c->left) && cxen_pp_start_page(rq, f, gfp))
		return -ENOMEM;
	buf->page = c->page;
	buf->offset = c->offset;
	buf->dma = c->dma + c->offset;
	c->offset += rq->layout.frag[f].stride;
	c->left--;
	return 0;
}

/**
 * cxen_pp_release() - take a default-layout fragment off the ring
 * @rq: its RQ
 * @buf: the fragment
 * @to_skb: an skb took it: the skb keeps the pool reference and returns
 *	it when freed; else the reference goes back to the pool now
 */
static inline void cxen_pp_release(struct cxen_rq *rq, struct cxen_rx_buf *buf,
				   bool to_skb)
{
	if (!to_skb)
		page_pool_put_full_page(rq->pool, buf->page, false);
	buf->page = NULL;
}

#endif /* _CXEN_EN_RX_H_ */
