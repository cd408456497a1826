// SPDX-License-Identifier: GPL-2.0
/*
 * cxen XDP send queues: XDP_TX and ndo_xdp_xmit.
 *
 * A channel whose RQ runs an XDP program has one more SQ, its XDP SQ
 * (struct cxen_sq with @xdp set), with its own CQ on the channel's
 * vector. Two producers post to it, under its xdp_lock:
 *
 *   - the channel's NAPI, for the frames its program returns XDP_TX for:
 *     the RQ's page_pool pages themselves, which the pool maps for both
 *     directions, so nothing is mapped here, only synced for the device;
 *   - ndo_xdp_xmit (cxen as a redirect target), from the NAPI of the
 *     device that redirected the frames, on any CPU: each frame is mapped
 *     here and unmapped when sent.
 *
 * Doorbells are batched: XDP_TX rings once at the end of the NAPI poll
 * (cxen_xsq_flush() from cxen_poll_rx()), ndo_xdp_xmit once per call with
 * XDP_XMIT_FLUSH; either only if something was posted since the last one.
 *
 * Completions are reaped by the channel's NAPI (cxen_poll_xsq()): XDP_TX
 * pages go straight back to their pool's cache (the pool is this NAPI's),
 * ndo_xdp_xmit frames are unmapped and returned to whoever owns their
 * memory (xdp_return_frame_bulk()).
 */
#include <linux/bitfield.h>
#include <kunit/visibility.h>
#include <linux/etherdevice.h>
#include <net/page_pool/helpers.h>
#include <net/xdp.h>

#include "en_rx.h"
#include "en_txrx.h"

/*
 * @n more of the XDP SQ counter @c. Under xdp_lock: XDP_TX and
 * ndo_xdp_xmit on other CPUs write the same counters (the debug kernel's
 * lockdep checks every caller, even with nothing to count).
 */
static void cxen_xsq_count(struct cxen_sq *sq, u64_stats_t *c, unsigned int n)
{
	lockdep_assert_held(&sq->xdp_lock);
	if (!n)
		return;
	u64_stats_update_begin(&sq->stats.syncp);
	u64_stats_add(c, n);
	u64_stats_update_end(&sq->stats.syncp);
}

/*
 * Finish the WQE at @sq->pi, whose @nsegs data segments are written: a
 * SEND asking for a CQE, the owner bit of its pass. Under xdp_lock.
 */
static void cxen_xsq_post(struct cxen_sq *sq, struct cxen_tx_ctrl_seg *ctrl,
			  unsigned int nsegs)
{
	cxen_sq_ctrl(sq, ctrl, CXEN_TX_OP_SEND, 1 + nsegs, CXEN_TX_FLAG_CQ_UPDATE);
	sq->pi++;
}

/* Ring the doorbell if WQEs were posted since the last one. Under xdp_lock. */
static void cxen_xsq_doorbell(struct cxen_sq *sq)
{
	if (sq->db_pi == sq->pi)
		return;
	cxen_sq_ring_doorbell(sq);
	sq->db_pi = sq->pi;
	cxen_xsq_count(sq, &sq->stats.xdp_doorbell, 1);
}

/**
 * cxen_xsq_flush() - ring an XDP SQ's doorbell for what was posted
 * @sq: the XDP SQ
 *
 * Once per NAPI poll that queued XDP_TX frames. BH disabled.
 */
void cxen_xsq_flush(struct cxen_sq *sq)
{
	spin_lock(&sq->xdp_lock);
	cxen_xsq_doorbell(sq);
	spin_unlock(&sq->xdp_lock);
}

/**
 * cxen_xdp_tx() - queue a frame an XDP program returned XDP_TX for
 * @sq: the channel's XDP SQ
 * @xdp: the frame, in pages of the RQ's pool, as the program left it
 * @head: the page of its head (@xdp->data)
 *
 * The channel's NAPI. The WQE is posted; the doorbell rings at the end of
 * the poll (cxen_xsq_flush()). Each buffer is synced for the device over
 * the bytes sent (the program may have written them).
 *
 * Return: true when queued: the frame's pages belong to the SQ until it
 * is sent. False when there was no room (counted in tx_xdp_full) or the
 * frame cannot be sent (shorter than an Ethernet header): the caller
 * still owns its pages.
 */
bool cxen_xdp_tx(struct cxen_sq *sq, const struct xdp_buff *xdp,
		 struct page *head)
{
	const struct skb_shared_info *sinfo = xdp_get_shared_info_from_buff(xdp);
	unsigned int i, n = 1 + (xdp_buff_has_frags(xdp) ? sinfo->nr_frags : 0);
	struct page *page[CXEN_HW_RX_MAX_SEGS];
	u32 len[CXEN_HW_RX_MAX_SEGS];
	dma_addr_t dma[CXEN_HW_RX_MAX_SEGS];
	struct cxen_tx_ctrl_seg *ctrl;
	struct cxen_data_seg *seg;
	struct cxen_xdp_buf *xb;

	if (unlikely(n > CXEN_HW_RX_MAX_SEGS || xdp_get_buff_len(xdp) < ETH_HLEN))
		return false;
	page[0] = head;
	len[0] = xdp->data_end - xdp->data;
	dma[0] = page_pool_get_dma_addr(head) + (xdp->data - page_address(head));
	for (i = 1; i < n; i++) {
		const skb_frag_t *frag = &sinfo->frags[i - 1];

		page[i] = skb_frag_page(frag);
		len[i] = skb_frag_size(frag);
		dma[i] = page_pool_get_dma_addr(page[i]) + skb_frag_off(frag);
	}
	for (i = 0; i < n; i++) {
		/* A data segment of 0 bytes would be a malformed WQE. */
		if (unlikely(!len[i]))
			return false;
		dma_sync_single_for_device(sq->dma_dev, dma[i], len[i],
					   DMA_BIDIRECTIONAL);
	}

	spin_lock(&sq->xdp_lock);
	if (unlikely(!cxen_sq_room(sq) || test_bit(CXEN_SQ_RESET, &sq->state))) {
		cxen_xsq_count(sq, &sq->stats.xdp_full, 1);
		spin_unlock(&sq->xdp_lock);
		return false;
	}
	xb = &sq->xbufs[sq->pi & cxen_sq_mask(sq)];
	ctrl = cxen_sq_wqe(sq, sq->pi);
	seg = (struct cxen_data_seg *)(ctrl + 1);
	xb->xdpf = NULL;
	xb->nr = n;
	for (i = 0; i < n; i++) {
		xb->page[i] = page[i];
		cxen_sq_set_seg(sq, &seg[i], dma[i], len[i]);
	}
	cxen_xsq_post(sq, ctrl, n);
	spin_unlock(&sq->xdp_lock);
	return true;
}

/* Undo the mappings of an ndo_xdp_xmit WQE: map[0] single, the rest pages. */
static void cxen_xsq_unmap(struct cxen_sq *sq, struct cxen_xdp_buf *xb)
{
	unsigned int i;

	for (i = 0; i < xb->nr; i++) {
		if (i)
			dma_unmap_page(sq->dma_dev, xb->map[i].addr,
				       xb->map[i].len, DMA_TO_DEVICE);
		else
			dma_unmap_single(sq->dma_dev, xb->map[i].addr,
					 xb->map[i].len, DMA_TO_DEVICE);
	}
	xb->nr = 0;
}

/*
 * Map and post one frame of ndo_xdp_xmit. Under xdp_lock, with room for
 * its WQE. Return: false if it cannot be sent (too short, too many frags,
 * an empty frag) or mapped; nothing is left mapped then.
 */
static bool cxen_xsq_xmit_frame(struct cxen_sq *sq, struct xdp_frame *xdpf)
{
	struct skb_shared_info *sinfo = xdp_get_shared_info_from_frame(xdpf);
	unsigned int i, nfrags = xdp_frame_has_frags(xdpf) ? sinfo->nr_frags : 0;
	struct cxen_xdp_buf *xb = &sq->xbufs[sq->pi & cxen_sq_mask(sq)];
	struct cxen_tx_ctrl_seg *ctrl = cxen_sq_wqe(sq, sq->pi);
	struct cxen_data_seg *seg = (struct cxen_data_seg *)(ctrl + 1);
	dma_addr_t dma;

	if (unlikely(1 + nfrags > CXEN_XSQ_MAX_SEGS || !xdpf->len ||
		     xdp_get_frame_len(xdpf) < ETH_HLEN))
		return false;
	xb->nr = 0;
	dma = dma_map_single(sq->dma_dev, xdpf->data, xdpf->len, DMA_TO_DEVICE);
	if (unlikely(dma_mapping_error(sq->dma_dev, dma)))
		return false;
	xb->map[0].addr = dma;
	xb->map[0].len = xdpf->len;
	xb->nr = 1;
	cxen_sq_set_seg(sq, &seg[0], dma, xdpf->len);
	for (i = 0; i < nfrags; i++) {
		const skb_frag_t *frag = &sinfo->frags[i];
		u32 len = skb_frag_size(frag);

		if (unlikely(!len))
			goto err_unmap;
		dma = skb_frag_dma_map(sq->dma_dev, frag, 0, len, DMA_TO_DEVICE);
		if (unlikely(dma_mapping_error(sq->dma_dev, dma)))
			goto err_unmap;
		xb->map[xb->nr].addr = dma;
		xb->map[xb->nr].len = len;
		cxen_sq_set_seg(sq, &seg[xb->nr], dma, len);
		xb->nr++;
	}
	xb->xdpf = xdpf;
	cxen_xsq_post(sq, ctrl, xb->nr);
	return true;

err_unmap:
	cxen_xsq_unmap(sq, xb);
	return false;
}

/**
 * cxen_xdp_xmit() - ndo_xdp_xmit: send frames redirected to the port
 * @netdev: the port
 * @n: frames in @frames
 * @frames: the frames, in memory of whoever redirected them
 * @flags: XDP_XMIT_FLUSH: ring the doorbell, once, for what is posted
 *
 * On the XDP SQ of the channel of the calling CPU (modulo the channels),
 * which exist while an XDP program is attached: a redirect target with
 * none is refused (the convention of i40e and ice; xdp-features shows
 * ndo-xmit only then). Frames are sent from the first on; the first that
 * finds no room (tx_xdp_full) or cannot be mapped stops it, and the stack
 * frees it and those after it. BH disabled (the redirecting NAPI).
 *
 * Return: the frames queued, or -EINVAL for unknown flags, -ENXIO when
 * the port has no XDP SQs (down, or no program).
 */
int cxen_xdp_xmit(struct net_device *netdev, int n, struct xdp_frame **frames,
		  u32 flags)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	unsigned int full = 0, bad = 0;
	struct cxen_chans *chans;
	struct cxen_sq *sq;
	int i, nxmit = 0;

	if (unlikely(flags & ~XDP_XMIT_FLAGS_MASK))
		return -EINVAL;
	chans = rcu_dereference_check(priv->chans, rcu_read_lock_bh_held());
	if (unlikely(!chans || !chans->ch[0]->rq.xdp))
		return -ENXIO;
	sq = &chans->ch[smp_processor_id() % chans->num]->xsq;

	spin_lock(&sq->xdp_lock);
	for (i = 0; i < n; i++) {
		if (unlikely(!cxen_sq_room(sq) ||
			     test_bit(CXEN_SQ_RESET, &sq->state))) {
			full = n - i;
			break;
		}
		if (unlikely(!cxen_xsq_xmit_frame(sq, frames[i]))) {
			bad = 1;
			break;
		}
		nxmit++;
	}
	cxen_xsq_count(sq, &sq->stats.xdp_xmit, nxmit);
	cxen_xsq_count(sq, &sq->stats.xdp_full, full);
	cxen_xsq_count(sq, &sq->stats.dma_map_err, bad);
	if (flags & XDP_XMIT_FLUSH)
		cxen_xsq_doorbell(sq);
	spin_unlock(&sq->xdp_lock);
	return nxmit;
}

/*
 * Free what a completed (or abandoned) WQE held: XDP_TX pages back to
 * their pool, a frame of ndo_xdp_xmit unmapped and returned (through @bq
 * when not NULL).
 *
 * @napi: from the channel's NAPI poll. Only the pool of the RQ the
 * channel runs now takes pages into its lockless cache then: an XDP_TX
 * WQE posted before a per-queue restart (en_queue.c) holds pages of the
 * old RQ's pool, which mem_free destroys from process context while this
 * NAPI runs; those go back through the pool's ring.
 */
static void cxen_xsq_free_buf(struct cxen_sq *sq, struct cxen_xdp_buf *xb,
			      struct xdp_frame_bulk *bq, bool napi)
{
	struct page_pool *running = NULL;
	unsigned int i;

	if (xb->xdpf) {
		cxen_xsq_unmap(sq, xb);
		if (bq)
			xdp_return_frame_bulk(xb->xdpf, bq);
		else
			xdp_return_frame(xb->xdpf);
		xb->xdpf = NULL;
		return;
	}
	if (napi)
		running = container_of(sq, struct cxen_channel, xsq)->rq.pool;
	for (i = 0; i < xb->nr; i++) {
		struct page_pool *pp = xb->page[i]->pp;

		page_pool_put_full_page(pp, xb->page[i], pp == running);
	}
	xb->nr = 0;
}

/*
 * Take up to @limit CQEs of the XDP SQ; @napi: from the channel's NAPI
 * poll, whose pool takes XDP_TX pages back into its cache. Return: true
 * if all completions were processed.
 */
static bool cxen_xsq_reap(struct cxen_sq *sq, unsigned int limit, bool napi)
{
	struct xdp_frame_bulk bq;
	unsigned int n = 0;
	u32 ci = sq->ci, i;
	u8 opcode;
	int done;

	xdp_frame_bulk_init(&bq);
	/* xdp_return_frame_bulk() looks the frames' memory up under RCU. */
	rcu_read_lock();
	while (n < limit && (done = cxen_sq_take_cqe(sq, ci, &opcode)) >= 0) {
		n++;
		for (i = 0; i < done; i++, ci++)
			cxen_xsq_free_buf(sq, &sq->xbufs[ci & cxen_sq_mask(sq)],
					  &bq, napi);
	}
	xdp_flush_frame_bulk(&bq);
	rcu_read_unlock();

	if (n) {
		cxen_cq_update_ci(&sq->cq);
		/* Producers read ci for the room they have. */
		smp_store_release(&sq->ci, ci);
	}
	cxen_sq_cstats_publish(sq);
	return n < limit;
}

/**
 * cxen_poll_xsq() - reap an XDP SQ's completions
 * @sq: the XDP SQ
 * @budget: NAPI budget, not 0: the channel's NAPI poll (never netpoll's),
 *	whose pool takes XDP_TX pages back into its cache
 *
 * A CQE completes every WQE up to the counter it names; one naming a WQE
 * not outstanding is counted (tx_err_cqe) and ignored. An error CQE
 * other than a flush means the device stopped the SQ: it is counted and
 * logged, what it held completes as flushes, and the SQ is marked for a
 * reset in place (cxen_xsq_recover()); until then nothing is posted to
 * it.
 *
 * Return: true if all completions were processed.
 */
bool cxen_poll_xsq(struct cxen_sq *sq, int budget)
{
	return cxen_xsq_reap(sq, CXEN_SQ_REAP_LIMIT(budget), true);
}

/**
 * cxen_xsq_idle() - whether an XDP SQ holds nothing the device must send
 * @sq: the XDP SQ
 *
 * Return: true when every posted WQE completed.
 */
bool cxen_xsq_idle(struct cxen_sq *sq)
{
	return READ_ONCE(sq->ci) == READ_ONCE(sq->pi);
}

/**
 * cxen_xsq_drain() - wait until an XDP SQ has sent what it holds
 * @ch: the channel; its NAPI disabled, so its RQ posts no more XDP_TX
 *
 * A per-queue restart frees the old RQ and its page_pool once the new RQ
 * runs: an XDP_TX WQE still holding a page of it would have the device
 * read a page freed and unmapped under it (seen as an IOMMU fault). The
 * XDP SQ's completions are reaped here, NAPI being off, until every WQE
 * posted before the call completed; ndo_xdp_xmit on other CPUs may post
 * meanwhile. An SQ waiting for its reset sends nothing: its WQEs are
 * dropped by the reset, not sent. Sleeps.
 *
 * Return: true, or false if the device did not complete them within
 * CXEN_CMD_TIMEOUT_MS.
 */
bool cxen_xsq_drain(struct cxen_channel *ch)
{
	unsigned long deadline = jiffies + msecs_to_jiffies(CXEN_CMD_TIMEOUT_MS);
	struct cxen_sq *sq = &ch->xsq;
	u32 pi;

	if (!ch->rq.xdp)
		return true;
	spin_lock_bh(&sq->xdp_lock);
	pi = sq->pi;
	spin_unlock_bh(&sq->xdp_lock);
	for (;;) {
		if (test_bit(CXEN_SQ_RESET, &sq->state))
			return true;
		cxen_xsq_reap(sq, U32_MAX, false);
		if ((s32)(READ_ONCE(sq->ci) - pi) >= 0)
			return true;
		if (time_after(jiffies, deadline))
			return false;
		usleep_range(200, 500);
	}
}

/**
 * cxen_xsq_drop_pending() - free what an XDP SQ will never send
 * @sq: an XDP SQ stopped in the device, its CQ reaped, its NAPI disabled
 *	and no longer reachable by ndo_xdp_xmit
 *
 * Pages go back to their pool, frames to their owner; each is counted in
 * tx_dropped, under xdp_lock: a reset in place (cxen_xsq_recover()) runs
 * while ndo_xdp_xmit on other CPUs may count a full ring on the same
 * counters.
 */
static void cxen_xsq_drop_pending(struct cxen_sq *sq)
{
	unsigned int dropped = 0;

	while (sq->ci != sq->pi) {
		cxen_xsq_free_buf(sq, &sq->xbufs[sq->ci & cxen_sq_mask(sq)],
				  NULL, false);
		sq->ci++;
		dropped++;
	}
	spin_lock_bh(&sq->xdp_lock);
	cxen_xsq_count(sq, &sq->stats.dropped, dropped);
	spin_unlock_bh(&sq->xdp_lock);
}

/**
 * cxen_xsq_free() - destroy an XDP SQ on the device, free what it holds
 * @sq: the XDP SQ; its NAPI instance is disabled, ndo_xdp_xmit no longer
 *	reaches it
 *
 * Return: true, or false if the device may still use the SQ: its memory
 * is then left allocated (cxen_sq_release_hw()).
 */
bool cxen_xsq_free(struct cxen_sq *sq)
{
	if (!cxen_sq_release_hw(sq))
		return false;
	cxen_xsq_drop_pending(sq);
	cxen_sq_free_ring(sq);
	return true;
}

/**
 * cxen_xsq_recover() - reset a channel's XDP SQ in place
 * @ch: the channel, whose XDP SQ the device put in the error state
 *	(marked CXEN_SQ_RESET by cxen_poll_xsq())
 *
 * As the stack's SQs are reset (en_health.c): nothing freed or
 * allocated. Producers (the channel's XDP_TX, any CPU's ndo_xdp_xmit)
 * see the mark under xdp_lock and post nothing more; the device stops
 * the SQ (MODIFY_SQ to RST), NAPI is disabled while what it completed is
 * reaped and what it did not is dropped (tx_dropped), and the SQ starts
 * over at WQE 0 (RDY) with its number, CQ and ring. Under RTNL. On
 * failure the SQ stays marked, taking nothing, until a recovery succeeds
 * or the channels are rebuilt.
 *
 * Return: 0, or the device's error.
 */
int cxen_xsq_recover(struct cxen_channel *ch)
{
	struct cxen_dev *cdev = ch->priv->cdev;
	struct cxen_sq *sq = &ch->xsq;
	int err;

	ASSERT_RTNL();
	/* Every producer that read the mark clear has posted by now. */
	spin_lock_bh(&sq->xdp_lock);
	spin_unlock_bh(&sq->xdp_lock);
	err = cxen_cmd_modify_wq(cdev, CXEN_CMD_MODIFY_SQ, sq->sqn, CXEN_WQ_RST);
	if (err)
		return err;

	napi_disable(&ch->napi);
	while (!cxen_xsq_reap(sq, U32_MAX, false))
		;
	cxen_xsq_drop_pending(sq);
	cxen_sq_restart(sq);
	err = cxen_cmd_modify_wq(cdev, CXEN_CMD_MODIFY_SQ, sq->sqn, CXEN_WQ_RDY);
	if (!err)
		clear_bit(CXEN_SQ_RESET, &sq->state);
	napi_enable(&ch->napi);
	if (err)
		return err;
	cxen_channel_kick(ch);
	return 0;
}

/*
 * RX metadata kfuncs (bpf_xdp_metadata_rx_hash() and _rx_vlan_tag()) for
 * programs bound to the port (BPF_F_XDP_DEV_BOUND_ONLY): the CQE's
 * fields, under the same conditions that put them on an skb.
 */
/**
 * cxen_xdp_rss_type() - the XDP hash type of a CQE's hash type
 * @cqe_flags: the CQE's flags, CPU order
 *
 * Return: the XDP_RSS_TYPE_* of CXEN_CQE_HASH_TYPE, XDP_RSS_TYPE_NONE for
 * a frame the device did not hash or a type this driver does not know.
 */
enum xdp_rss_hash_type cxen_xdp_rss_type(u32 cqe_flags)
{
	switch (FIELD_GET(CXEN_CQE_HASH_TYPE, cqe_flags)) {
	case CXEN_CQE_HASH_IPV4:
		return XDP_RSS_TYPE_L3_IPV4;
	case CXEN_CQE_HASH_IPV4_TCP:
		return XDP_RSS_TYPE_L4_IPV4_TCP;
	case CXEN_CQE_HASH_IPV4_UDP:
		return XDP_RSS_TYPE_L4_IPV4_UDP;
	case CXEN_CQE_HASH_IPV6:
		return XDP_RSS_TYPE_L3_IPV6;
	case CXEN_CQE_HASH_IPV6_TCP:
		return XDP_RSS_TYPE_L4_IPV6_TCP;
	case CXEN_CQE_HASH_IPV6_UDP:
		return XDP_RSS_TYPE_L4_IPV6_UDP;
	default:
		return XDP_RSS_TYPE_NONE;
	}
}
EXPORT_SYMBOL_IF_KUNIT(cxen_xdp_rss_type);

static int cxen_xdp_rx_hash(const struct xdp_md *ctx, u32 *hash,
			    enum xdp_rss_hash_type *rss_type)
{
	const struct cxen_xdp_buff *xb = (const struct cxen_xdp_buff *)ctx;
	enum xdp_rss_hash_type type;

	if (!(xb->rq->netdev->features & NETIF_F_RXHASH))
		return -ENODATA;
	type = cxen_xdp_rss_type(be32_to_cpu(xb->cqe->flags));
	if (type == XDP_RSS_TYPE_NONE)
		return -ENODATA;
	*rss_type = type;
	*hash = be32_to_cpu(xb->cqe->rss_hash);
	return 0;
}

static int cxen_xdp_rx_vlan_tag(const struct xdp_md *ctx, __be16 *vlan_proto,
				u16 *vlan_tci)
{
	const struct cxen_xdp_buff *xb = (const struct cxen_xdp_buff *)ctx;

	if (!(be32_to_cpu(xb->cqe->flags) & CXEN_CQE_VLAN_STRIPPED))
		return -ENODATA;
	*vlan_proto = htons(ETH_P_8021Q);
	*vlan_tci = be16_to_cpu(xb->cqe->vlan_tci);
	return 0;
}

const struct xdp_metadata_ops cxen_xdp_metadata_ops = {
	.xmo_rx_hash		= cxen_xdp_rx_hash,
	.xmo_rx_vlan_tag	= cxen_xdp_rx_vlan_tag,
};
