// SPDX-License-Identifier: GPL-2.0
/*
 * cxen RX: what every kind of RQ shares (en_rx.h): the RQ's common
 * fields, its CQ and number, its release from the device and its
 * teardown when the device will not let go, error CQEs, and the parsing
 * of headers the CQE describes. The kinds are en_rx_sg.c (the default),
 * en_rx_stride.c and en_rx_compare.c; nothing here calls them.
 */
#include <kunit/visibility.h>
#include <linux/etherdevice.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <net/page_pool/helpers.h>
#include <net/xdp.h>

#include "en_rx.h"

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
 * cxen_rq_init() - an RQ's common fields and buffer layout
 * @ch: the channel
 * @rq: the RQ inside @ch, or a queue restart's
 *
 * What every kind needs before it builds its ring: the port's, the
 * channel's and the device's facts, the XDP program, and the layout of
 * the port's buffer layout for its MTU.
 *
 * Return: 0, or -EINVAL when the layout cannot hold the MTU (said).
 */
int cxen_rq_init(struct cxen_channel *ch, struct cxen_rq *rq)
{
	struct cxen_priv *priv = ch->priv;
	struct cxen_dev *cdev = priv->cdev;
	struct cxen_frag_param p;
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
	/* The channel sets rq->xsq once its XDP SQ exists. */
	rq->xdp = !!priv->params.xdp_prog;
	RCU_INIT_POINTER(rq->xdp_prog, priv->params.xdp_prog);
	rq->dma_dir = rq->xdp ? DMA_BIDIRECTIONAL : DMA_FROM_DEVICE;
	u64_stats_init(&rq->stats.syncp);
	INIT_DELAYED_WORK(&rq->refill_work, cxen_rq_refill_work);

	cxen_frag_param_init(priv, priv->params.mtu, rq->xdp, &p);
	rq->ops = &cxen_rx_layouts[priv->params.rx_layout];
	err = rq->ops->layout(&p, &rq->layout);
	if (err)
		netdev_err(priv->netdev, "no RX buffer layout for MTU %u with %s buffers\n",
			   priv->params.mtu, rq->ops->name);
	return err;
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
static void cxen_rq_leak(struct cxen_rq *rq)
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
 * cxen_rq_release_hw() - have the device let go of an RQ and its CQ
 * @rq: the RQ; its NAPI instance is disabled, or serves another RQ
 *	(@rq->beside)
 *
 * The first step of every kind's free: stops the refill work, destroys
 * the RQ and its CQ in the device and gives back the RQ number.
 *
 * Return: true, or false if the device may still write into the RQ (it
 * failed and could not be reset): the RQ is then left as it is
 * (cxen_rq_leak()) and must not be freed.
 */
bool cxen_rq_release_hw(struct cxen_rq *rq)
{
	struct cxen_dev *cdev = rq->priv->cdev;

	cancel_delayed_work_sync(&rq->refill_work);
	if (cxen_rq_stop_hw(rq) ||
	    cxen_hw_release(cdev, CXEN_CMD_DESTROY_CQ, rq->cq.cqn, rq->cq.hw_gen)) {
		cxen_rq_leak(rq);
		return false;
	}
	ida_free(&cdev->rqn_ida, rq->rqn);
	return true;
}

/**
 * cxen_rq_first_fill() - post an RQ's buffers before the device sees it
 * @rq: the RQ, its ring built, its kind set
 *
 * Fails before the OOM killer would run (cxen_params_mem_check() sized
 * the request) and says so once.
 *
 * Return: 0, or -ENOMEM: the caller undoes what it built.
 */
int cxen_rq_first_fill(struct cxen_rq *rq)
{
	int err;

	err = rq->kind->fill(rq, GFP_KERNEL | __GFP_NORETRY | __GFP_NOWARN);
	cxen_rq_stats_publish(rq);
	if (err)
		netdev_err(rq->netdev, "cannot allocate RX buffers for queue %u\n",
			   rq->qid);
	return err;
}

/**
 * cxen_rq_drain_cq() - drop the CQEs NAPI did not take, for a restart
 * @rq: the RQ, reset in the device, NAPI disabled
 *
 * Counted as rx_err_cqe: their frames are lost with the reset.
 */
void cxen_rq_drain_cq(struct cxen_rq *rq)
{
	unsigned int left = 0;

	while (cxen_cqe_owned(&rq->cq)) {
		dma_rmb();
		rq->cq.ci++;
		left++;
	}
	if (left) {
		cxen_cq_update_ci(&rq->cq);
		cxen_rq_add(rq, err_cqe, left);
	}
}

/**
 * cxen_rx_err_cqe() - an error CQE of an RQ
 * @rq: the RQ
 * @cqe: the CQE, CXEN_CQE_OP_ERROR, of this RQ
 *
 * A flushed WQE (the RQ is in error, or being destroyed) is counted as
 * such. A frame too long (LOCAL_LENGTH) costs that frame; any other
 * syndrome put the RQ in the error state, in which it flushes every WQE:
 * only a reset brings it back, and one is scheduled.
 */
void cxen_rx_err_cqe(struct cxen_rq *rq, const struct cxen_cqe *cqe)
{
	if (cqe->syndrome == CXEN_SYND_WR_FLUSH) {
		cxen_rq_inc(rq, flush_cqe);
		return;
	}
	cxen_rq_inc(rq, err_cqe);
	net_dbg_ratelimited("%s: RX error CQE, syndrome %#x\n",
			    rq->netdev->name, cqe->syndrome);
	if (cqe->syndrome != CXEN_SYND_LOCAL_LENGTH)
		cxen_rq_schedule_reset(rq);
}

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
