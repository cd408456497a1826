// SPDX-License-Identifier: GPL-2.0
/*
 * cxen RX: the comparison layouts' kind (CONFIG_CXEN_RX_COMPARE), the
 * mlx4 history the benchmark measures the default layout against. Built
 * only when asked for. Their geometry and the table of layouts that
 * switches between them are in en_frag.c; their RQ is the scatter-list
 * ring (en_rx_sg.c, built a second time for them as cxen_rx_compare_kind)
 * with the buffers and the receive routine below.
 *
 * mlx4_en_calc_rx_buf() of 2012-2013: nominal fragment sizes filled in
 * order until frame_max is covered; fragment i holds
 * min(nominal[i], what is left), its stride is ALIGN(nominal[i],
 * SMP_CACHE_BYTES) whatever it holds, and each fragment slot is carved
 * from its own 16 KiB buffers (MLX4_EN_ALLOC_SIZE). No headroom, no
 * build_skb: a frame goes to napi_gro_frags() as page frags (GRO pulls the
 * headers), or mlx4_en_rx_skb() copies it, or its first bytes, into a
 * small skb (cxen_rx_compare_cqe()).
 *
 *   legacy2012     512 - NET_IP_ALIGN, 1024, 4096, 16 KiB  (Linux <= 3.5:
 *                  every fragment dma_map_single()d on refill)
 *   wholepage2012  the same sizes (Linux 3.6 - 3.10: the 16 KiB page is
 *                  mapped once and the fragments share the mapping)
 *   onefrag2013    1536 - NET_IP_ALIGN, 4096, 4096, 16 KiB  (Linux 3.11:
 *                  one fragment per 1500-MTU frame)
 *
 * legacy2012 and wholepage2012 differ only in how their buffers are
 * mapped (below); the 3.11 change removed the 512/1024 sizes
 * wholepage2012 still used (Documentation/rx-buffers.rst, "The
 * comparison layouts", gives the history).
 *
 * Their buffers are compound pages of alloc_size bytes from the page
 * allocator, carved as the default carves page_pool pages:
 *
 *   wholepage2012  mapped once when allocated and unmapped when their last
 *   onefrag2013    fragment leaves the ring; no reuse
 *   legacy2012     the same pages, but every fragment dma_map_single()d
 *                  when posted and unmapped when received
 *
 * The ring calls these out of line (cxen_rx_compare_get(),
 * cxen_rx_compare_release(), cxen_rx_compare_cqe()). Where they still
 * differ from the 2012-2013 code, and why, is listed in
 * Documentation/rx-buffers.rst.
 */

#include <linux/dma-mapping.h>
#include <linux/etherdevice.h>
#include <linux/export.h>
#include <linux/gfp.h>
#include <linux/minmax.h>
#include <linux/mm.h>
#include <linux/sizes.h>
#include <linux/netdevice.h>
#include <linux/skbuff.h>
#include <linux/string.h>
#include <kunit/visibility.h>

#include "en_rx.h"

/*
 * mlx4_en.h of 2012-2013: SMALL_PACKET_SIZE, the skb head mlx4_en_rx_skb()
 * allocated and the largest frame it copied whole, and HEADER_COPY_SIZE,
 * the bytes it copied into that head from a larger frame.
 */
#define CXEN_MLX4_SMALL_PACKET	(256 - NET_IP_ALIGN)
#define CXEN_MLX4_HEADER_COPY	(128 - NET_IP_ALIGN)

/* legacy2012 maps per fragment; the other two map whole buffers. */
static bool cxen_mlx4_legacy(const struct cxen_rq *rq)
{
	return rq->ops == &cxen_rx_layouts[CXEN_RX_LEGACY2012];
}

/* The mlx4 layouts own no pool. */
int cxen_rx_compare_init(struct cxen_rq *rq)
{
	return 0;
}

/*
 * Carve from a compound page of alloc_size bytes. page_private() counts
 * the page's fragments still on the ring (or not yet handed out): when it
 * drops to zero the device can no longer write to the page.
 */
static int cxen_mlx4_carve(struct cxen_rq *rq, unsigned int f,
			   struct cxen_rx_buf *buf, gfp_t gfp, bool map_page)
{
	struct cxen_rx_carve *c = &rq->carve[f];
	u32 alloc_size = rq->layout.alloc_size;
	u32 stride = rq->layout.frag[f].stride;

	if (!c->left) {
		unsigned int n = alloc_size / stride;
		struct page *page;
		dma_addr_t dma = 0;

		page = alloc_pages_node(dev_to_node(rq->dma_dev),
					gfp | __GFP_COMP | __GFP_NOWARN,
					get_order(alloc_size));
		if (unlikely(!page))
			return -ENOMEM;
		if (map_page) {
			dma = dma_map_page(rq->dma_dev, page, 0, alloc_size,
					   DMA_FROM_DEVICE);
			if (unlikely(dma_mapping_error(rq->dma_dev, dma))) {
				__free_pages(page, get_order(alloc_size));
				return -ENOMEM;
			}
			cxen_rq_inc(rq, dma_map);
		}
		page_ref_add(page, n - 1);
		set_page_private(page, n);
		c->page = page;
		c->dma = dma;
		c->offset = 0;
		c->left = n;
		cxen_rq_inc(rq, page_alloc);
		cxen_rq_inc(rq, pages_started);
	}
	buf->page = c->page;
	buf->offset = c->offset;
	buf->dma = c->dma + c->offset;
	c->offset += stride;
	c->left--;
	return 0;
}

/* A fragment leaves the ring: unmap the page with its last one. */
static void cxen_mlx4_unring(struct cxen_rq *rq, struct page *page,
			     dma_addr_t page_dma, bool mapped)
{
	unsigned long left = page_private(page) - 1;

	set_page_private(page, left);
	if (!left && mapped)
		dma_unmap_page(rq->dma_dev, page_dma, rq->layout.alloc_size,
			       DMA_FROM_DEVICE);
}

static int cxen_wholepage_get(struct cxen_rq *rq, unsigned int f,
			      struct cxen_rx_buf *buf, gfp_t gfp)
{
	return cxen_mlx4_carve(rq, f, buf, gfp, true);
}

static void cxen_wholepage_release(struct cxen_rq *rq, unsigned int f,
				   struct cxen_rx_buf *buf, bool to_skb)
{
	cxen_mlx4_unring(rq, buf->page, buf->dma - buf->offset, true);
	if (!to_skb)
		put_page(buf->page);
	buf->page = NULL;
}

static int cxen_legacy_get(struct cxen_rq *rq, unsigned int f,
			   struct cxen_rx_buf *buf, gfp_t gfp)
{
	const struct cxen_frag *frag = &rq->layout.frag[f];
	dma_addr_t dma;
	int err;

	err = cxen_mlx4_carve(rq, f, buf, gfp, false);
	if (err)
		return err;
	/* 2012: every fragment mapped on refill... */
	dma = dma_map_single(rq->dma_dev,
			     page_address(buf->page) + buf->offset,
			     frag->offset + frag->size, DMA_FROM_DEVICE);
	if (unlikely(dma_mapping_error(rq->dma_dev, dma))) {
		cxen_mlx4_unring(rq, buf->page, 0, false);
		put_page(buf->page);
		buf->page = NULL;
		return -ENOMEM;
	}
	buf->dma = dma;
	cxen_rq_inc(rq, dma_map);
	return 0;
}

static void cxen_legacy_release(struct cxen_rq *rq, unsigned int f,
				struct cxen_rx_buf *buf, bool to_skb)
{
	const struct cxen_frag *frag = &rq->layout.frag[f];

	/* ...and unmapped on receive. */
	dma_unmap_single(rq->dma_dev, buf->dma, frag->offset + frag->size,
			 DMA_FROM_DEVICE);
	cxen_mlx4_unring(rq, buf->page, 0, false);
	if (!to_skb)
		put_page(buf->page);
	buf->page = NULL;
}

/* What was carved and never posted goes back to the page allocator. */
void cxen_rx_compare_uninit(struct cxen_rq *rq)
{
	bool mapped = !cxen_mlx4_legacy(rq);
	unsigned int f;

	for (f = 0; f < CXEN_HW_RX_MAX_SEGS; f++) {
		struct cxen_rx_carve *c = &rq->carve[f];

		for (; c->left; c->left--) {
			cxen_mlx4_unring(rq, c->page, c->dma, mapped);
			put_page(c->page);
		}
	}
}

/**
 * cxen_rx_compare_get() - a comparison layout's buffer for a WQE fragment
 * @rq: an RQ whose layout is not the default
 * @f: the fragment index in the WQE
 * @buf: filled in, DMA-mapped
 * @gfp: allocation flags
 *
 * Out of line, so en_rx.c's hot loop keeps direct calls for the default;
 * the 2012-2013 driver called its allocator directly, and so does this.
 *
 * Return: 0 or -ENOMEM.
 */
int cxen_rx_compare_get(struct cxen_rq *rq, unsigned int f,
			struct cxen_rx_buf *buf, gfp_t gfp)
{
	if (cxen_mlx4_legacy(rq))
		return cxen_legacy_get(rq, f, buf, gfp);
	return cxen_wholepage_get(rq, f, buf, gfp);
}

/**
 * cxen_rx_compare_release() - a comparison layout's fragment leaves the ring
 * @rq: an RQ whose layout is not the default
 * @f: the fragment index in the WQE
 * @buf: the fragment
 * @to_skb: an skb took its page reference; else it is dropped
 */
void cxen_rx_compare_release(struct cxen_rq *rq, unsigned int f,
			     struct cxen_rx_buf *buf, bool to_skb)
{
	if (cxen_mlx4_legacy(rq))
		cxen_legacy_release(rq, f, buf, to_skb);
	else
		cxen_wholepage_release(rq, f, buf, to_skb);
}

/**
 * cxen_mlx4_rx_plan() - what the 2012-2013 receive path does with a frame
 * @l: the comparison layout the WQE was posted with
 * @len: the frame's length, 1 .. what the fragments hold
 * @gro: the frame goes to napi_gro_frags() (checksum verified, GRO on)
 * @plan: written: bytes copied into an skb head, fragments attached as
 *	page frags and the truesize they charge
 *
 * mlx4_en_process_rx_cq() of Linux 3.4 - 3.11: a frame whose checksum the
 * device verified went, with GRO on, whole as page frags to
 * napi_gro_frags(), which pulls the headers itself; any other frame went
 * through mlx4_en_rx_skb(): up to SMALL_PACKET_SIZE bytes copied whole
 * into a small skb, a larger one attached as page frags with
 * HEADER_COPY_SIZE bytes copied into the skb's head.
 *
 * Context: any; pure arithmetic.
 */
void cxen_mlx4_rx_plan(const struct cxen_frag_layout *l, u32 len, bool gro,
		       struct cxen_mlx4_rx *plan)
{
	memset(plan, 0, sizeof(*plan));
	if (!gro && len <= CXEN_MLX4_SMALL_PACKET) {
		plan->copy = len;
		return;
	}
	plan->nfrags = cxen_frag_count(l, len);
	plan->truesize = cxen_frag_truesize(l, len);
	if (!gro)
		plan->copy = CXEN_MLX4_HEADER_COPY;
}
EXPORT_SYMBOL_IF_KUNIT(cxen_mlx4_rx_plan);

/*
 * mlx4's test: IPOK (not a fragment, header checksum good) and a verified
 * TCP/UDP checksum, RX checksumming on: the driver's own.
 */
static bool cxen_mlx4_csum_ok(const struct net_device *netdev, u32 flags)
{
	return (netdev->features & NETIF_F_RXCSUM) && cxen_rx_csum_ok(flags);
}

/* Hand the fragments to the skb as page frags, each charging its stride. */
static void cxen_mlx4_attach(struct cxen_rq *rq, struct sk_buff *skb,
			     struct cxen_rx_buf *bufs, u32 len,
			     const struct cxen_mlx4_rx *plan, bool legacy)
{
	const struct cxen_frag_layout *l = &rq->layout;
	unsigned int f;

	for (f = 0; f < plan->nfrags; f++) {
		u32 chunk = min(len, l->frag[f].size);

		/*
		 * 3.6 - 3.11 synced the fragment's size for the CPU; 3.4
		 * unmapped it (in cxen_legacy_release()), which syncs.
		 */
		if (!legacy)
			dma_sync_single_range_for_cpu(rq->dma_dev, bufs[f].dma,
						      0, l->frag[f].size,
						      DMA_FROM_DEVICE);
		skb_add_rx_frag(skb, f, bufs[f].page, bufs[f].offset, chunk,
				l->frag[f].stride);
		cxen_rx_compare_release(rq, f, &bufs[f], true);
		len -= chunk;
	}
}

/**
 * cxen_rx_compare_cqe() - receive a frame as the 2012-2013 mlx4 driver did
 * @rq: an RQ of a comparison layout
 * @napi: its NAPI instance
 * @cqe: the frame's CQE, checked by the caller
 * @bufs: the fragments of the WQE it completes
 * @len: the frame's length, checked against the layout by the caller
 *
 * mlx4_en_process_rx_cq() of Linux 3.4 (legacy2012), 3.6 - 3.10
 * (wholepage2012) and 3.11 (onefrag2013), as cxen_mlx4_rx_plan() says:
 * a verified frame with GRO on goes to napi_gro_frags() as page frags,
 * any other is built by mlx4_en_rx_skb() and goes to netif_receive_skb().
 * legacy2012 unmaps each fragment it hands over and no more (the unmap
 * syncs); a frame it copies leaves its fragment posted, synced back to the
 * device. wholepage2012 and onefrag2013 sync for the CPU what they read
 * and then replace every fragment of the WQE, used or not, as
 * mlx4_en_free_frag() did for all of them after each completion.
 *
 * Context: NAPI, inside the RQ's stats update section.
 */
void cxen_rx_compare_cqe(struct cxen_rq *rq, struct napi_struct *napi,
			 const struct cxen_cqe *cqe, struct cxen_rx_buf *bufs,
			 u32 len)
{
	struct net_device *netdev = rq->netdev;
	u32 flags = be32_to_cpu(cqe->flags);
	bool legacy = cxen_mlx4_legacy(rq);
	struct cxen_mlx4_rx plan;
	struct sk_buff *skb;
	unsigned int f;
	bool gro;
	void *va;

	gro = cxen_mlx4_csum_ok(netdev, flags) &&
	      (netdev->features & NETIF_F_GRO);
	cxen_mlx4_rx_plan(&rq->layout, len, gro, &plan);

	if (gro)
		skb = napi_get_frags(napi);
	else
		skb = napi_alloc_skb(napi, CXEN_MLX4_SMALL_PACKET);
	if (unlikely(!skb)) {
		cxen_rq_inc(rq, alloc_fail);
		cxen_rq_inc(rq, skb_alloc_fail);
		goto out;
	}

	va = page_address(bufs[0].page) + bufs[0].offset;
	if (!plan.nfrags) {
		/* A small frame, copied whole. */
		dma_sync_single_range_for_cpu(rq->dma_dev, bufs[0].dma, 0, len,
					      DMA_FROM_DEVICE);
		skb_put_data(skb, va, len);
		if (legacy)
			dma_sync_single_range_for_device(rq->dma_dev,
							 bufs[0].dma, 0, len,
							 DMA_FROM_DEVICE);
		cxen_rq_inc(rq, copybreak);
	} else {
		cxen_mlx4_attach(rq, skb, bufs, len, &plan, legacy);
		if (plan.copy) {
			skb_frag_t *frag = &skb_shinfo(skb)->frags[0];

			/* The head gets the first bytes, the frag the rest. */
			memcpy(skb->data, va, plan.copy);
			skb->tail += plan.copy;
			skb->data_len -= plan.copy;
			skb_frag_off_add(frag, plan.copy);
			skb_frag_size_sub(frag, plan.copy);
		}
	}

	skb_record_rx_queue(skb, rq->qid);
	cxen_rx_meta(rq, skb, cqe, flags);
	cxen_rq_inc(rq, packets);
	cxen_rq_add(rq, bytes, len);
	cxen_rq_add(rq, truesize_bytes, skb->truesize);
	if (gro) {
		cxen_rx_count_gro(rq, napi_gro_frags(napi));
	} else {
		skb->protocol = eth_type_trans(skb, netdev);
		netif_receive_skb(skb);
	}
out:
	if (legacy)
		return;
	for (f = 0; f < rq->layout.nfrags; f++)
		if (bufs[f].page)
			cxen_wholepage_release(rq, f, &bufs[f], false);
}
