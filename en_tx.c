// SPDX-License-Identifier: GPL-2.0
/*
 * cxen TX: send queues, WQE building, doorbells and completions.
 *
 * Each skb takes one WQE of CXEN_SQ_STRIDE bytes: a control segment, an
 * LSO segment with the headers for TSO, then either the whole frame
 * inline (small frames, no DMA map) or one data segment per DMA mapping.
 * @pi counts WQEs posted and @ci WQEs completed, both free running; the
 * device completes in order and reports the counter of the WQE a CQE
 * completes.
 *
 * Doorbells are batched: the producer counter
 * is published and the SQ doorbell rung only when the stack has no more
 * packets for us (netdev_xmit_more()) or the queue is stopping, as
 * __netdev_tx_sent_queue() decides together with BQL. The devlink
 * parameter tx_doorbell_batch (en_devlink.c) turns batching off, for
 * measurements: a doorbell for every packet. Its value is cached in the
 * port (priv->tx_doorbell_batch), next to the channel set xmit reads.
 */
#include <linux/if_vlan.h>
#include <linux/skbuff.h>
#include <net/netdev_queues.h>
#include <net/tcp.h>

#include "en.h"

/**
 * cxen_sq_alloc() - allocate an SQ with its CQ and create it on the device
 * @ch: the channel
 * @sq: the SQ inside @ch
 * @xdp: the channel's XDP SQ (no TX queue; WQEs of CXEN_XSQ_LOG_STRIDE,
 *	struct cxen_xdp_buf per WQE) rather than the stack's
 *
 * Both take the port's TX ring size and TX interrupt moderation.
 *
 * Return: 0 or a negative errno; on error nothing is left allocated.
 */
int cxen_sq_alloc(struct cxen_channel *ch, struct cxen_sq *sq, bool xdp)
{
	struct cxen_priv *priv = ch->priv;
	struct cxen_dev *cdev = priv->cdev;
	dma_addr_t sq_dbrec;
	size_t buf_size;
	int err, sqn;
	u32 size;

	sq->cdev = cdev;
	sq->priv = priv;
	sq->dma_dev = cdev->dev;
	sq->qid = ch->idx;
	sq->lkey = cdev->caps.rsvd_lkey;
	sq->xdp = xdp;
	sq->txq = xdp ? NULL : netdev_get_tx_queue(priv->netdev, ch->idx);
	sq->napi = &ch->napi;
	sq->log_size = ilog2(priv->params.sq_size);
	sq->log_stride = xdp ? CXEN_XSQ_LOG_STRIDE : CXEN_SQ_LOG_STRIDE;
	buf_size = xdp ? sizeof(*sq->xbufs) : sizeof(*sq->bufs);
	size = 1U << sq->log_size;
	sq->pi = 0;
	sq->ci = 0;
	sq->db_pi = 0;
	spin_lock_init(&sq->xdp_lock);
	sq->hw_destroyed = true;	/* until CREATE_SQ succeeds */
	u64_stats_init(&sq->stats.syncp);
	u64_stats_init(&sq->cstats.syncp);

	sq_dbrec = ch->dbrec_dma + ((void *)sq->dbrec - ch->dbrec_page);
	sq->dbrec->pi = 0;

	sq->bufs = kvcalloc(size, buf_size, GFP_KERNEL);
	if (!sq->bufs)
		return -ENOMEM;
	sq->wqes = dma_alloc_coherent(cdev->dev, (size_t)size << sq->log_stride,
				      &sq->ring_dma, GFP_KERNEL);
	if (!sq->wqes) {
		err = -ENOMEM;
		goto err_bufs;
	}

	err = cxen_cq_create(ch, &sq->cq, sq->log_size, priv->params.tx_usecs,
			     priv->params.tx_frames);
	if (err)
		goto err_wqes;

	sqn = ida_alloc_max(&cdev->sqn_ida, CXEN_HW_NUM_SQ - 1, GFP_KERNEL);
	if (sqn < 0) {
		err = sqn;
		goto err_cq_hw;
	}
	sq->sqn = sqn;
	sq->hw_gen = READ_ONCE(cdev->hw_gen);
	err = cxen_cmd_create_wq(cdev, CXEN_CMD_CREATE_SQ, sq->sqn, priv->port,
				 sq->ring_dma, sq_dbrec, sq->cq.cqn,
				 sq->log_size, sq->log_stride);
	if (err)
		goto err_sqn;
	sq->hw_destroyed = false;
	return 0;

err_sqn:
	ida_free(&cdev->sqn_ida, sq->sqn);
err_cq_hw:
	/* A CQ the device did not give back stays allocated. */
	cxen_cq_destroy(cdev, &sq->cq);
err_wqes:
	dma_free_coherent(cdev->dev, (size_t)size << sq->log_stride,
			  sq->wqes, sq->ring_dma);
err_bufs:
	kvfree(sq->bufs);
	return err;
}

static void cxen_tx_unmap(struct cxen_sq *sq, struct cxen_tx_buf *buf)
{
	unsigned int i;

	for (i = 0; i < buf->nr_maps; i++) {
		if (buf->map[i].page)
			dma_unmap_page(sq->dma_dev, buf->map[i].addr,
				       buf->map[i].len, DMA_TO_DEVICE);
		else
			dma_unmap_single(sq->dma_dev, buf->map[i].addr,
					 buf->map[i].len, DMA_TO_DEVICE);
	}
	buf->nr_maps = 0;
}

/**
 * cxen_sq_stop_hw() - destroy the SQ in the device, keep its CQ
 * @sq: the SQ; nothing is posted to it any more
 *
 * When this returns 0 the device reads none of the SQ's WQEs or buffers and
 * writes no more CQEs for it (destroyed, or forgotten in a device reset).
 *
 * Return: 0, or -EIO if the device may still use the SQ (it failed and
 * could not be reset): nothing it was given may be freed.
 */
int cxen_sq_stop_hw(struct cxen_sq *sq)
{
	int err;

	if (sq->hw_destroyed)
		return 0;
	err = cxen_hw_release(sq->cdev, CXEN_CMD_DESTROY_SQ, sq->sqn, sq->hw_gen);
	if (!err)
		sq->hw_destroyed = true;
	return err;
}

/**
 * cxen_sq_drop_pending() - free the packets the device will never complete
 * @sq: an SQ stopped in the device whose CQ has been reaped
 *
 * They are dropped and counted, and completed for BQL so that the TX
 * queue's byte accounting stays exact for whichever SQ serves it next.
 */
void cxen_sq_drop_pending(struct cxen_sq *sq)
{
	unsigned int pkts = 0, bytes = 0;

	while (sq->ci != sq->pi) {
		struct cxen_tx_buf *buf = &sq->bufs[sq->ci & cxen_sq_mask(sq)];

		cxen_tx_unmap(sq, buf);
		bytes += buf->wire_bytes;
		pkts++;
		dev_kfree_skb_any(buf->skb);
		buf->skb = NULL;
		sq->ci++;
	}
	if (!pkts)
		return;
	netdev_tx_completed_queue(sq->txq, pkts, bytes);
	u64_stats_update_begin(&sq->stats.syncp);
	u64_stats_add(&sq->stats.dropped, pkts);
	u64_stats_update_end(&sq->stats.syncp);
}

/**
 * cxen_sq_reap_all() - take every completion left in a stopped SQ's CQ
 * @sq: an SQ the device no longer completes (destroyed, or reset), its
 *	NAPI instance disabled
 *
 * Calls netpoll's flavour of the poll until a call finds the CQ empty:
 * what the device wrote before it stopped completes normally, so that
 * only what it never completed is left for cxen_sq_drop_pending().
 */
void cxen_sq_reap_all(struct cxen_sq *sq)
{
	local_bh_disable();
	while (!cxen_poll_tx(sq, 0))
		;
	local_bh_enable();
}

/**
 * cxen_sq_restart() - start an SQ over at WQE 0, for a reset in place
 * @sq: the SQ, reset in the device (MODIFY_SQ to RST), its CQ reaped and
 *	what it held dropped; NAPI disabled, not serving its TX queue
 *
 * The device starts over at counter 0 after MODIFY_SQ to RDY: so do the
 * driver's counters and the doorbell record. The ring is cleared so that
 * no stale WQE carries the owner bit of the first pass.
 */
void cxen_sq_restart(struct cxen_sq *sq)
{
	WARN_ON_ONCE(sq->ci != sq->pi);
	memset(sq->wqes, 0, (size_t)1 << (sq->log_size + sq->log_stride));
	sq->pi = 0;
	sq->db_pi = 0;
	WRITE_ONCE(sq->ci, 0);
	sq->hang_since = 0;
	WRITE_ONCE(sq->dbrec->pi, 0);
	/* The ring and the record before the device's RDY reads them. */
	dma_wmb();
}

/**
 * cxen_sq_release_hw() - have the device let go of an SQ and its CQ
 * @sq: the SQ; its NAPI instance is disabled and nothing is posted to it
 *
 * The first step of freeing either kind of SQ (cxen_sq_free(),
 * cxen_xsq_free()); what it held is dropped next, then the ring freed
 * (cxen_sq_free_ring()).
 *
 * Return: true, or false if the device may still use the SQ (it failed
 * and could not be reset): its ring, CQ and packets are then left
 * allocated and mapped, never freed under the device.
 */
bool cxen_sq_release_hw(struct cxen_sq *sq)
{
	struct cxen_dev *cdev = sq->cdev;

	/* After DESTROY the device reads none of our WQEs or buffers. */
	if (cxen_sq_stop_hw(sq) ||
	    cxen_hw_release(cdev, CXEN_CMD_DESTROY_CQ, sq->cq.cqn, sq->cq.hw_gen)) {
		netdev_err(sq->priv->netdev, "SQ %u: the device may still use it: its memory stays allocated\n",
			   sq->sqn);
		return false;
	}
	ida_free(&cdev->sqn_ida, sq->sqn);
	return true;
}

/**
 * cxen_sq_free_ring() - free an SQ's ring and CQ
 * @sq: an SQ released by the device (cxen_sq_release_hw()), everything
 *	it held dropped
 */
void cxen_sq_free_ring(struct cxen_sq *sq)
{
	struct cxen_dev *cdev = sq->cdev;

	cxen_cq_free(cdev, &sq->cq);
	dma_free_coherent(cdev->dev, (size_t)1 << (sq->log_size + sq->log_stride),
			  sq->wqes, sq->ring_dma);
	kvfree(sq->bufs);
}

/**
 * cxen_sq_free() - destroy a stack's SQ on the device, free what it holds
 * @sq: the SQ; its NAPI instance is disabled and its queue stopped
 *
 * Return: true, or false if the device may still use the SQ: its memory
 * is then left allocated (cxen_sq_release_hw()).
 */
bool cxen_sq_free(struct cxen_sq *sq)
{
	if (!cxen_sq_release_hw(sq))
		return false;
	cxen_sq_drop_pending(sq);
	cxen_sq_free_ring(sq);
	return true;
}

/*
 * Map the skb from byte @skip of its linear part (the bytes before are in
 * the WQE already) into data segments. On error, everything mapped is
 * undone. Return: data segments written, or -ENOMEM.
 */
static int cxen_tx_map(struct cxen_sq *sq, struct sk_buff *skb,
		       unsigned int skip, struct cxen_tx_buf *buf,
		       struct cxen_data_seg *seg)
{
	unsigned int i, headlen = skb_headlen(skb);
	dma_addr_t addr;

	buf->nr_maps = 0;
	if (headlen > skip) {
		addr = dma_map_single(sq->dma_dev, skb->data + skip,
				      headlen - skip, DMA_TO_DEVICE);
		if (unlikely(dma_mapping_error(sq->dma_dev, addr)))
			return -ENOMEM;
		buf->map[0].addr = addr;
		buf->map[0].len = headlen - skip;
		buf->map[0].page = false;
		cxen_sq_set_seg(sq, &seg[0], addr, headlen - skip);
		buf->nr_maps = 1;
	}
	for (i = 0; i < skb_shinfo(skb)->nr_frags; i++) {
		const skb_frag_t *frag = &skb_shinfo(skb)->frags[i];
		u32 len = skb_frag_size(frag);
		unsigned int n = buf->nr_maps;

		addr = skb_frag_dma_map(sq->dma_dev, frag, 0, len, DMA_TO_DEVICE);
		if (unlikely(dma_mapping_error(sq->dma_dev, addr))) {
			cxen_tx_unmap(sq, buf);
			return -ENOMEM;
		}
		buf->map[n].addr = addr;
		buf->map[n].len = len;
		buf->map[n].page = true;
		cxen_sq_set_seg(sq, &seg[n], addr, len);
		buf->nr_maps = n + 1;
	}
	return buf->nr_maps;
}

static void cxen_tx_ring_doorbell(struct cxen_sq *sq)
{
	cxen_sq_ring_doorbell(sq);
	u64_stats_inc(&sq->stats.doorbell);
}

/*
 * Stop the queue when the next packet might not fit; completions wake it
 * only once CXEN_TX_WAKE_THRESH WQEs are free again (hysteresis: a queue
 * does not flap on every completion). The barrier in
 * netif_txq_try_stop() pairs with the one in cxen_sq_completed(): see the
 * new ci, or be woken.
 *
 * A stop is counted with the wake that ends it, so the two counters pair
 * up: CXEN_SQ_STOPPED says the queue owes a wake. A completion may wake
 * the queue between its stop and the re-check here; whoever clears the
 * bit settles it: the completion counts a wake (and this a stop), the
 * re-check alone counts neither.
 */
static void cxen_tx_maybe_stop(struct cxen_sq *sq)
{
	if (likely(cxen_sq_room(sq) >= CXEN_TX_STOP_THRESH))
		return;
	set_bit(CXEN_SQ_STOPPED, &sq->state);
	/* The bit before the stop: a completion that sees it stopped sees the bit. */
	smp_mb__after_atomic();
	if (netif_txq_try_stop(sq->txq, cxen_sq_room(sq),
			       CXEN_TX_WAKE_THRESH) &&
	    test_and_clear_bit(CXEN_SQ_STOPPED, &sq->state))
		return;
	u64_stats_inc(&sq->stats.queue_stop);
}

/*
 * Checksum flags for a CHECKSUM_PARTIAL skb. The device parses the frame
 * itself (IPv4/IPv6, TCP/UDP), so only those are advertised
 * (NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM) and the stack resolves the rest.
 */
static u32 cxen_tx_csum_flags(struct cxen_sq *sq, struct sk_buff *skb)
{
	u32 flags = 0;

	if (skb->ip_summed != CHECKSUM_PARTIAL)
		return 0;
	flags = CXEN_TX_FLAG_L4_CSUM;
	if (skb->protocol == htons(ETH_P_IP) ||
	    (eth_type_vlan(skb->protocol) &&
	     vlan_get_protocol(skb) == htons(ETH_P_IP)))
		flags |= CXEN_TX_FLAG_IP_CSUM;
	u64_stats_inc(&sq->stats.csum_offload);
	return flags;
}

/**
 * cxen_tx_build_wqe() - write the segments of one skb's WQE
 * @sq: the SQ
 * @skb: the packet, at most CXEN_TX_MAX_SEGS mappings
 * @ctrl: the WQE
 * @buf: its tx_buf, filled with the mappings and wire accounting
 *
 * Return: the WQE's size in CXEN_TX_WQE_UNIT units, or -ENOMEM if DMA
 * mapping failed.
 */
static int cxen_tx_build_wqe(struct cxen_sq *sq, struct sk_buff *skb,
			     struct cxen_tx_ctrl_seg *ctrl,
			     struct cxen_tx_buf *buf)
{
	u32 inline_max = READ_ONCE(sq->priv->tx_inline_max);
	void *seg = ctrl + 1;
	unsigned int skip = 0;
	int n;

	buf->wire_pkts = 1;
	buf->wire_bytes = skb->len;
	buf->nr_maps = 0;

	if (skb_is_gso(skb)) {
		struct cxen_tx_lso_seg *lso = seg;
		unsigned int hlen = skb_tcp_all_headers(skb);

		/* cxen_features_check() keeps hlen within the LSO limit. */
		lso->mss_hdr_size = cpu_to_be32(FIELD_PREP(CXEN_TX_LSO_MSS,
							   skb_shinfo(skb)->gso_size) |
						FIELD_PREP(CXEN_TX_LSO_HDR_SIZE, hlen));
		skb_copy_from_linear_data(skb, lso->header, hlen);
		seg += ALIGN(sizeof(*lso) + hlen, CXEN_TX_WQE_UNIT);
		skip = hlen;
		buf->wire_pkts = skb_shinfo(skb)->gso_segs;
		buf->wire_bytes += (buf->wire_pkts - 1) * hlen;
		u64_stats_inc(&sq->stats.tso_packets);
		u64_stats_add(&sq->stats.tso_bytes, skb->len - hlen);
	} else if (skb->len <= inline_max) {
		struct cxen_tx_inline_seg *inl = seg;

		/* Small frame: copy it into the WQE and map nothing. */
		inl->byte_count = cpu_to_be32(CXEN_TX_INLINE |
					      FIELD_PREP(CXEN_TX_INLINE_LEN, skb->len));
		skb_copy_bits(skb, 0, inl->data, skb->len);
		seg += ALIGN(sizeof(*inl) + skb->len, CXEN_TX_WQE_UNIT);
		u64_stats_inc(&sq->stats.inline_pkts);
		return (seg - (void *)ctrl) / CXEN_TX_WQE_UNIT;
	}

	n = cxen_tx_map(sq, skb, skip, buf, seg);
	if (n < 0)
		return n;
	seg += n * sizeof(struct cxen_data_seg);
	return (seg - (void *)ctrl) / CXEN_TX_WQE_UNIT;
}

netdev_tx_t cxen_start_xmit(struct sk_buff *skb, struct net_device *netdev)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_tx_ctrl_seg *ctrl;
	struct cxen_chans *chans;
	u16 qid = skb_get_queue_mapping(skb);
	struct cxen_tx_buf *buf;
	struct cxen_sq *sq;
	u32 flags;
	int ds;

	chans = rcu_dereference_bh(priv->chans);
	if (unlikely(!chans || qid >= chans->num)) {
		dev_kfree_skb_any(skb);
		return NETDEV_TX_OK;
	}
	sq = &chans->ch[qid]->sq;

	if (unlikely(!cxen_sq_room(sq))) {
		/* cxen_tx_maybe_stop() keeps this from happening. */
		netif_tx_stop_queue(sq->txq);
		net_err_ratelimited("%s: TX queue %u full while awake\n",
				    netdev->name, qid);
		return NETDEV_TX_BUSY;
	}

	u64_stats_update_begin(&sq->stats.syncp);
	if (skb_shinfo(skb)->nr_frags + 1 > CXEN_TX_MAX_SEGS) {
		if (skb_linearize(skb))
			goto drop;
		u64_stats_inc(&sq->stats.linearize);
	}
	/* The device does not pad runts on the wire. */
	if (eth_skb_pad(skb)) {
		u64_stats_inc(&sq->stats.dropped);
		goto kick;
	}

	buf = &sq->bufs[sq->pi & cxen_sq_mask(sq)];
	ctrl = cxen_sq_wqe(sq, sq->pi);
	flags = CXEN_TX_FLAG_CQ_UPDATE | cxen_tx_csum_flags(sq, skb);
	ds = cxen_tx_build_wqe(sq, skb, ctrl, buf);
	if (unlikely(ds < 0)) {
		u64_stats_inc(&sq->stats.dma_map_err);
		goto drop;
	}
	buf->skb = skb;

	cxen_sq_ctrl(sq, ctrl, skb_is_gso(skb) ? CXEN_TX_OP_LSO : CXEN_TX_OP_SEND,
		     ds, flags);
	if (skb_vlan_tag_present(skb)) {
		ctrl->vlan_tci = cpu_to_be16(skb_vlan_tag_get(skb));
		ctrl->ins_vlan = CXEN_TX_INS_VLAN;
	}
	skb_tx_timestamp(skb);
	sq->pi++;

	cxen_tx_maybe_stop(sq);
	if (__netdev_tx_sent_queue(sq->txq, buf->wire_bytes,
				   READ_ONCE(priv->tx_doorbell_batch) &&
				   netdev_xmit_more()))
		cxen_tx_ring_doorbell(sq);
	u64_stats_update_end(&sq->stats.syncp);
	return NETDEV_TX_OK;

drop:
	u64_stats_inc(&sq->stats.dropped);
	dev_kfree_skb_any(skb);
kick:
	/* Earlier packets may still wait for a doorbell. */
	if (!netdev_xmit_more() && READ_ONCE(sq->dbrec->pi) !=
	    cpu_to_be32(sq->pi & CXEN_WQ_DBREC_PI))
		cxen_tx_ring_doorbell(sq);
	u64_stats_update_end(&sq->stats.syncp);
	return NETDEV_TX_OK;
}

/**
 * cxen_features_check() - per-skb offload limits of the device
 * @skb: the packet
 * @netdev: the port
 * @features: what the stack would use
 *
 * LSO takes at most CXEN_HW_TX_MAX_LSO_HDR header bytes and only plain
 * TCP over IPv4/IPv6; anything else is segmented by the stack.
 *
 * Return: @features, less what the device cannot do for this skb.
 */
netdev_features_t cxen_features_check(struct sk_buff *skb,
				      struct net_device *netdev,
				      netdev_features_t features)
{
	features = vlan_features_check(skb, features);
	if (skb_is_gso(skb) &&
	    (skb->encapsulation ||
	     skb_tcp_all_headers(skb) > CXEN_HW_TX_MAX_LSO_HDR))
		features &= ~NETIF_F_GSO_MASK;
	return features;
}

/**
 * cxen_sq_serve() - give a TX queue to an SQ, or take it away
 * @sq: the SQ
 * @serving: whether @sq->txq now feeds @sq
 *
 * Taking it away stops the queue: once this returns, completions of an
 * SQ being drained or reset cannot start it again behind
 * netif_tx_disable(). They wake it locklessly (cxen_sq_completed()), so
 * the bit is cleared first and a NAPI poll that may have read it still
 * set is waited for. Process context, the SQ's NAPI instance enabled.
 */
void cxen_sq_serve(struct cxen_sq *sq, bool serving)
{
	if (serving) {
		set_bit(CXEN_SQ_SERVING, &sq->state);
		return;
	}
	clear_bit(CXEN_SQ_SERVING, &sq->state);
	/*
	 * Completions wake the queue without the xmit lock: one that read
	 * the bit still set must be done before the queue stops for good.
	 */
	smp_mb__after_atomic();
	napi_synchronize(sq->napi);
	__netif_tx_lock_bh(sq->txq);
	netif_tx_stop_queue(sq->txq);
	__netif_tx_unlock_bh(sq->txq);
}

/*
 * Report @pkts/@bytes to BQL and wake the queue if CXEN_TX_WAKE_THRESH
 * WQEs are free and @sq still feeds it (cxen_sq_serve()), also when this
 * poll reaped nothing (a netpoll poll may have reaped and left the wake).
 * BH off.
 *
 * netpoll (@budget 0) polls with IRQs off, from any context a printk
 * comes from: there the wake is left to a NAPI poll of our own, which
 * looks at the queue even when it reaps nothing.
 */
static void cxen_sq_completed(struct cxen_sq *sq, int budget,
			      unsigned int pkts, unsigned int bytes)
{
	/* BQL's barrier: pairs with netif_txq_try_stop()'s. */
	netdev_txq_completed_mb(sq->txq, pkts, bytes);
	if (likely(!netif_tx_queue_stopped(sq->txq)) ||
	    cxen_sq_room(sq) < CXEN_TX_WAKE_THRESH)
		return;
	if (unlikely(!budget)) {
		napi_schedule(sq->napi);
		return;
	}
	if (!test_bit(CXEN_SQ_SERVING, &sq->state))
		return;
	/* Before the wake: a stop after it owes a wake of its own. */
	if (test_and_clear_bit(CXEN_SQ_STOPPED, &sq->state))
		cxen_sqc_inc(sq, queue_wake);
	netif_tx_wake_queue(sq->txq);
}

/* The name of an SQ's kind in messages. */
static const char *cxen_sq_what(const struct cxen_sq *sq)
{
	return sq->xdp ? "XDP SQ" : "TX queue";
}

/**
 * cxen_sq_bad_cqe() - a CQE an SQ cannot take, counted and ignored
 * @sq: the SQ (either kind)
 * @cqe: the CQE: of another SQ, for a WQE not outstanding, or of an
 *	opcode no SQ completes with
 */
void cxen_sq_bad_cqe(struct cxen_sq *sq, const struct cxen_cqe *cqe)
{
	cxen_sqc_inc(sq, err_cqe);
	net_err_ratelimited("%s: %s %u: bad CQE (qpn %#x index %u opcode %#lx)\n",
			    netdev_name(sq->priv->netdev), cxen_sq_what(sq),
			    sq->qid, be32_to_cpu(cqe->qpn),
			    be16_to_cpu(cqe->wqe_index),
			    FIELD_GET(CXEN_CQE_OPCODE, cqe->owner_sr_opcode));
}

/**
 * cxen_sq_err_cqe() - an error CQE of an SQ
 * @sq: the SQ (either kind)
 * @cqe: the CQE, CXEN_CQE_OP_ERROR
 *
 * Counted; unless it is a flush, the device put the SQ in the error
 * state, where only a reset in place brings it back: scheduled.
 */
void cxen_sq_err_cqe(struct cxen_sq *sq, const struct cxen_cqe *cqe)
{
	cxen_sqc_inc(sq, err_cqe);
	if (cqe->syndrome == CXEN_SYND_WR_FLUSH)
		return;
	net_err_ratelimited("%s: %s %u: error CQE, syndrome %#x: resetting it\n",
			    netdev_name(sq->priv->netdev), cxen_sq_what(sq),
			    sq->qid, cqe->syndrome);
	cxen_sq_schedule_reset(sq);
}

/**
 * cxen_poll_tx() - reap TX completions
 * @sq: the SQ
 * @budget: NAPI budget; 0 means netpoll (no napi_consume_skb caching)
 *
 * A CQE completes every WQE up to the counter it names. A CQE naming a
 * WQE that is not outstanding is counted and ignored.
 *
 * Return: true if all completions were processed.
 */
bool cxen_poll_tx(struct cxen_sq *sq, int budget)
{
	unsigned int pkts = 0, bytes = 0, n = 0;
	int done, limit = CXEN_SQ_REAP_LIMIT(budget);
	u32 ci = sq->ci, i;
	u8 opcode;

	while (n < limit && (done = cxen_sq_take_cqe(sq, ci, &opcode)) >= 0) {
		n++;
		for (i = 0; i < done; i++, ci++) {
			struct cxen_tx_buf *buf = &sq->bufs[ci & cxen_sq_mask(sq)];
			struct sk_buff *skb = buf->skb;

			cxen_tx_unmap(sq, buf);
			buf->skb = NULL;
			pkts++;
			bytes += buf->wire_bytes;
			if (opcode == CXEN_CQE_OP_SEND) {
				cxen_sqc_add(sq, packets, buf->wire_pkts);
				cxen_sqc_add(sq, bytes, buf->wire_bytes);
			}
			napi_consume_skb(skb, budget);
		}
	}

	if (n) {
		cxen_cq_update_ci(&sq->cq);
		/* Publish ci before the queue state: pairs with maybe_stop. */
		smp_store_release(&sq->ci, ci);
	}
	cxen_sq_completed(sq, budget, pkts, bytes);
	cxen_sq_cstats_publish(sq);
	return n < limit;
}
