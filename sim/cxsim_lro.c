// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim large receive offload (CXEN_RQ_F_LRO, interface minor 3,
 * Documentation/hw-interface.rst "Large receive offload").
 *
 * An LRO RQ merges consecutive TCP segments of one flow into one frame
 * in its striding WQE, as a NIC's receive coalescing engine does: the
 * first segment is placed whole, each next one's payload right after the
 * bytes before it, and when the merge ends the device rewrites the first
 * segment's headers to describe the whole (IP length and checksum, the
 * last segment's acknowledgment, window and timestamp, PSH, a TCP
 * checksum over everything) and writes one CQE with CXEN_CQE_LRO and the
 * segment count. A merge of one segment gets a plain CQE and its bytes
 * are left as they came.
 *
 * Called with the RQ's and its CQ's locks held (cxsim_rx.c and
 * cxsim_stride.c). A merge ends on the first frame of the RQ that does
 * not continue it, on PSH, on the limits (CXEN_HW_LRO_MAX_IP,
 * CXEN_HW_LRO_MAX_SEGS, the WQE's end), when the RQ is stopped (its
 * frames are lost) and, at the latest, when the context that delivered
 * into it is done (cxsim_lro_flush() below): a merge never waits
 * for traffic that may not come.
 */
#include <linux/bitfield.h>
#include <linux/if_vlan.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/tcp.h>
#include <net/checksum.h>
#include <net/ip.h>
#include <net/tcp.h>
#include <kunit/visibility.h>

#include "cxsim.h"
#include "cxsim_rx.h"

/* The TCP flags a mergeable segment may carry: ACK, and PSH on the last. */
#define CXSIM_LRO_FLAGS_MASK	(TCP_FLAG_CWR | TCP_FLAG_ECE | TCP_FLAG_URG | \
				 TCP_FLAG_ACK | TCP_FLAG_PSH | TCP_FLAG_RST | \
				 TCP_FLAG_SYN | TCP_FLAG_FIN)

/**
 * struct cxsim_lro_seg - a TCP segment as LRO sees it
 * @l3: its IP header (in the frame as it came off the wire)
 * @th: its TCP header
 * @l3_off: the IP header's offset as delivered (a stripped tag removed)
 * @l4_off: the TCP header's
 * @thlen: the TCP header's length
 * @paylen: its payload's
 * @seq: its sequence number
 * @ack: its acknowledgment number
 * @tsval: its timestamp, with @ts
 * @ts: it has the timestamp option (and no other)
 * @psh: PSH is set
 * @v6: IPv6
 */
struct cxsim_lro_seg {
	const u8 *l3;
	const struct tcphdr *th;
	u16 l3_off;
	u16 l4_off;
	u16 thlen;
	u32 paylen;
	u32 seq;
	u32 ack;
	u32 tsval;
	bool ts;
	bool psh;
	bool v6;
};

/*
 * Whether the frame of @rx is a TCP segment LRO may merge: TCP over IPv4
 * without options or fragments, or over IPv6 without extension headers,
 * no trailing bytes, both checksums verified, no ECN congestion mark, ACK
 * (with PSH or not) and nothing else, a payload, and either no TCP
 * option or the timestamp alone (NOP, NOP, TS).
 */
static bool cxsim_lro_parse(const struct cxsim_rx_ctx *rx,
			    struct cxsim_lro_seg *g)
{
	const struct cxsim_pkt *pkt = rx->pkt;
	u32 strip = rx->strip ? VLAN_HLEN : 0, iplen, l3len;
	const __be32 *opt;
	__be32 flags;

	if (!pkt || pkt->l4 != CXEN_CQE_L4_TCP || pkt->frag || rx->csum_bad ||
	    rx->hlen || !(rx->flags & CXEN_CQE_L4_CSUM_OK))
		return false;
	g->l3 = rx->frame + pkt->l3_off;
	l3len = pkt->l4_off - pkt->l3_off;
	if (pkt->l3 == CXEN_CQE_L3_IPV4) {
		const struct iphdr *iph = (const void *)g->l3;

		if (l3len != sizeof(*iph) ||
		    !(rx->flags & CXEN_CQE_L3_CSUM_OK) ||
		    INET_ECN_is_ce(iph->tos))
			return false;
		iplen = ntohs(iph->tot_len);
		g->v6 = false;
	} else if (pkt->l3 == CXEN_CQE_L3_IPV6) {
		const struct ipv6hdr *ip6 = (const void *)g->l3;

		if (l3len != sizeof(*ip6) || ip6->nexthdr != IPPROTO_TCP ||
		    INET_ECN_is_ce(ipv6_get_dsfield(ip6)))
			return false;
		iplen = sizeof(*ip6) + ntohs(ip6->payload_len);
		g->v6 = true;
	} else {
		return false;
	}
	/* No padding after the packet: the merged length is the sum. */
	if (pkt->l3_off + iplen != rx->len + strip ||
	    pkt->l4_len != iplen - l3len)
		return false;

	g->th = (const void *)(rx->frame + pkt->l4_off);
	g->thlen = pkt->l4_hlen;
	if (pkt->l4_len <= g->thlen ||
	    pkt->l4_off - strip + g->thlen > CXSIM_LRO_MAX_HDR)
		return false;
	flags = tcp_flag_word(g->th) & CXSIM_LRO_FLAGS_MASK;
	if (flags != TCP_FLAG_ACK && flags != (TCP_FLAG_ACK | TCP_FLAG_PSH))
		return false;
	opt = (const __be32 *)(g->th + 1);
	if (g->thlen == sizeof(struct tcphdr)) {
		g->ts = false;
		g->tsval = 0;
	} else if (g->thlen == sizeof(struct tcphdr) + TCPOLEN_TSTAMP_ALIGNED &&
		   *opt == htonl((TCPOPT_NOP << 24) | (TCPOPT_NOP << 16) |
				 (TCPOPT_TIMESTAMP << 8) | TCPOLEN_TIMESTAMP)) {
		g->ts = true;
		g->tsval = ntohl(opt[1]);
	} else {
		return false;
	}
	g->l3_off = pkt->l3_off - strip;
	g->l4_off = pkt->l4_off - strip;
	g->paylen = pkt->l4_len - g->thlen;
	g->seq = ntohl(g->th->seq);
	g->ack = ntohl(g->th->ack_seq);
	g->psh = !!(flags & TCP_FLAG_PSH);
	return true;
}

/* The sum of the pseudo header's addresses (IPv4 or IPv6 alike). */
static __wsum cxsim_lro_addr_csum(const struct cxsim_lro_seg *g)
{
	if (g->v6)
		return csum_partial(&((const struct ipv6hdr *)g->l3)->saddr,
				    2 * sizeof(struct in6_addr), 0);
	return csum_partial(&((const struct iphdr *)g->l3)->saddr,
			    2 * sizeof(__be32), 0);
}

/*
 * The ones' complement sum of a segment's payload, from its verified
 * checksum: the pseudo header, the TCP header (checksum included) and
 * the payload sum to 0xffff, so the payload sums to what the checksum of
 * the first two alone would be. No pass over the payload.
 */
static __wsum cxsim_lro_pay_csum(const struct cxsim_lro_seg *g, __wsum addr)
{
	__wsum sum = csum_add(addr, (__force __wsum)htonl(g->thlen + g->paylen +
							   IPPROTO_TCP));

	return (__force __wsum)(__force u32)
	       csum_fold(csum_partial(g->th, g->thlen, sum));
}

/* The session's headers, as delivered: the frame's, less a stripped tag. */
static void cxsim_lro_copy_hdr(struct cxsim_lro *s,
			       const struct cxsim_rx_ctx *rx)
{
	if (rx->strip) {
		memcpy(s->hdr, rx->frame, 2 * ETH_ALEN);
		memcpy(s->hdr + 2 * ETH_ALEN, rx->frame + 2 * ETH_ALEN + VLAN_HLEN,
		       s->hlen - 2 * ETH_ALEN);
	} else {
		memcpy(s->hdr, rx->frame, s->hlen);
	}
}

/*
 * Whether segment @g of @rx belongs to the open merge: the same Ethernet
 * header, the same IP header but for its length, identification and
 * checksum, the same ports and TCP header length, the same CQE fields.
 */
static bool cxsim_lro_same_flow(const struct cxsim_lro *s,
				const struct cxsim_rx_ctx *rx,
				const struct cxsim_lro_seg *g)
{
	const u8 *l3 = s->hdr + s->l3_off;
	u32 strip = rx->strip ? VLAN_HLEN : 0;

	if (g->v6 != s->v6 || g->l3_off != s->l3_off ||
	    g->l4_off != s->l4_off || g->thlen != s->hlen - s->l4_off ||
	    rx->flags != s->flags || rx->hash != s->hash ||
	    rx->vlan_tci != s->vlan_tci)
		return false;
	/* The MAC addresses, then the rest up to the IP header. */
	if (memcmp(rx->frame, s->hdr, 2 * ETH_ALEN) ||
	    memcmp(rx->frame + 2 * ETH_ALEN + strip, s->hdr + 2 * ETH_ALEN,
		   s->l3_off - 2 * ETH_ALEN))
		return false;
	if (g->v6) {
		/* Version, class, flow label; next header, hop limit, addresses. */
		if (memcmp(g->l3, l3, 4) || memcmp(g->l3 + 6, l3 + 6, 34))
			return false;
	} else {
		/* Version, TOS; DF; TTL, protocol; addresses. */
		if (memcmp(g->l3, l3, 2) || memcmp(g->l3 + 6, l3 + 6, 4) ||
		    memcmp(g->l3 + 12, l3 + 12, 8))
			return false;
	}
	return !memcmp(g->th, s->hdr + s->l4_off, 4);	/* the ports */
}

/* The last segment's acknowledgment, window and timestamps; PSH. */
static void cxsim_lro_update_hdr(struct cxsim_lro *s,
				 const struct cxsim_lro_seg *g)
{
	struct tcphdr *th = (void *)(s->hdr + s->l4_off);

	th->ack_seq = g->th->ack_seq;
	th->window = g->th->window;
	if (g->psh)
		th->psh = 1;
	if (s->ts)
		memcpy(th + 1, g->th + 1, TCPOLEN_TSTAMP_ALIGNED);
	s->ack = g->ack;
	s->tsval = g->tsval;
}

/* Add segment @g's payload, @paylen bytes, to the merge's sum and counts. */
static void cxsim_lro_add(struct cxsim_lro *s, const struct cxsim_lro_seg *g)
{
	s->pay_csum = csum_block_add(s->pay_csum,
				     cxsim_lro_pay_csum(g, s->addr_csum),
				     s->paylen);
	s->paylen += g->paylen;
	s->len += g->paylen;
	s->next_seq = g->seq + g->paylen;
	s->segs++;
}

/*
 * Whether the open merge has room for @segs more segments of @bytes of
 * payload in all: the segment and IP length limits, the WQE's end.
 */
static bool cxsim_lro_room(const struct cxsim_rq *rq,
			   const struct cxsim_lro *s, u32 segs, u32 bytes)
{
	u32 wqe_bytes = rq->strides << rq->log_stride_bytes;

	return s->segs + segs <= CXEN_HW_LRO_MAX_SEGS &&
	       s->len - s->l3_off + bytes <= CXEN_HW_LRO_MAX_IP &&
	       s->start + s->len + bytes + rq->tailroom <= wqe_bytes;
}

/**
 * cxsim_lro_open_locked() - start a merge with a frame just placed whole
 * @rq: the LRO RQ, locked with its CQ (CQ room for the CQE was checked)
 * @rx: the frame, at WQE byte @start, stride @first
 * @first: its first stride
 * @start: its first byte in the WQE
 *
 * A segment LRO may merge and that does not end a merge itself (PSH)
 * opens one: no CQE now, the strides stay the RQ's next free ones until
 * the merge ends, and @rx->lro_open tells the delivering context to end
 * it when done.
 *
 * Return: true when the merge is open.
 */
bool cxsim_lro_open_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			   u32 first, u32 start)
{
	struct cxsim_lro *s = &rq->lro;
	struct cxsim_lro_seg g;

	if (!cxsim_lro_parse(rx, &g) || g.psh)
		return false;
	s->v6 = g.v6;
	s->ts = g.ts;
	s->l3_off = g.l3_off;
	s->l4_off = g.l4_off;
	s->hlen = g.l4_off + g.thlen;
	s->first = first;
	s->start = start;
	s->len = s->hlen;
	s->segs = 0;
	s->paylen = 0;
	s->pay_csum = 0;
	s->addr_csum = cxsim_lro_addr_csum(&g);
	s->flags = rx->flags;
	s->hash = rx->hash;
	s->vlan_tci = rx->vlan_tci;
	s->ack = g.ack;
	s->tsval = g.tsval;
	cxsim_lro_copy_hdr(s, rx);
	cxsim_lro_add(s, &g);
	s->open = true;
	rx->lro_open = true;
	return true;
}

/**
 * cxsim_lro_append_locked() - merge a frame into the RQ's open merge
 * @rq: the LRO RQ, locked with its CQ, a merge open
 * @rx: the frame
 *
 * The frame continues the merge when it is a segment LRO may merge, of
 * the same flow, at the next sequence number, acknowledging no less and
 * with no older timestamp than the segments before, and its payload fits
 * the limits and what is left of the WQE. Its payload is then written
 * right after the merge's bytes; PSH ends the merge with it.
 *
 * Return: true when merged; false: the caller ends the merge and places
 * the frame on its own.
 */
bool cxsim_lro_append_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx)
{
	struct cxsim_lro *s = &rq->lro;
	struct cxsim_lro_seg g;

	if (!cxsim_lro_parse(rx, &g) || !cxsim_lro_same_flow(s, rx, &g) ||
	    g.seq != s->next_seq || before(g.ack, s->ack) ||
	    (s->ts && before(g.tsval, s->tsval)) ||
	    !cxsim_lro_room(rq, s, 1, g.paylen) ||
	    !cxsim_stride_bytes(rq, NULL, s->start + s->len, g.paylen, 0))
		return false;

	cxsim_stride_bytes(rq, rx, s->start + s->len, g.paylen,
			   g.l4_off + g.thlen);
	cxsim_lro_update_hdr(s, &g);
	cxsim_lro_add(s, &g);
	cxsim_rq_count_frame(rq, rx);
	if (g.psh)
		cxsim_lro_close_locked(rq, rx);
	else
		rx->lro_open = true;
	return true;
}

/**
 * cxsim_lro_burst_locked() - merge the next segments of an LSO WQE at once
 * @rq: the LRO RQ, locked with its CQ
 * @rx: the delivery of segment @i - 1 of the same WQE, which the RQ's
 *	merge took and left open (its CQE fields); a CQE's interrupt is its
 *	to raise
 * @lso: the LSO operation
 * @piece: where a piece of its payload is (at most so many bytes from an
 *	offset, in kernel memory; 0: not addressable)
 * @ctx: @piece's
 * @i: the first segment to merge
 * @wire_bytes: set to the bytes on the wire of the segments merged
 *
 * What segment after segment through cxsim_lro_append_locked() would do,
 * in one pass over their payload: the segments of one LSO WQE differ only
 * in what the merge rewrites (IP length and ID, sequence number,
 * checksums) or in what cannot continue a merge (FIN on the last), so the
 * merge rules are checked once against the WQE's header template, the
 * limits segment by segment. The payload is copied from where it is into
 * the WQE and summed in the same pass (cxsim_dma_write_csum()). The RQ's
 * and the receiving port's frame counters count every segment; the
 * caller counts the sending side's.
 *
 * Return: the segments merged, 0 when segment @i must go on its own.
 */
u32 cxsim_lro_burst_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx,
			   const struct cxsim_lso *lso, cxsim_piece_fn piece,
			   void *ctx, u32 i, u32 *wire_bytes)
{
	u32 S = 1u << rq->log_page_bytes, off, done, chunk, k, j, seg;
	const struct cxsim_pkt *pkt = &lso->pkt;
	struct cxsim_lro *s = &rq->lro;
	struct cxsim_rx_ctx fake = *rx;
	struct cxsim_lro_seg g;
	__wsum sum, acc = 0;
	bool psh = false;
	u32 bytes = 0;
	const u8 *src;
	u8 flags;

	*wire_bytes = 0;
	if (!s->open || rq->stopped || rq->dead || pkt->vlan || rx->strip ||
	    pkt->l4 != CXEN_CQE_L4_TCP || i >= lso->nseg)
		return 0;
	g.v6 = pkt->l3 == CXEN_CQE_L3_IPV6;
	g.l3 = lso->hdr + pkt->l3_off;
	g.th = (const void *)(lso->hdr + pkt->l4_off);
	g.l3_off = pkt->l3_off;
	g.l4_off = pkt->l4_off;
	g.thlen = lso->hdr_len - pkt->l4_off;
	fake.frame = lso->hdr;
	if (!cxsim_lro_same_flow(s, &fake, &g) ||
	    ntohl(g.th->seq) + i * lso->mss != s->next_seq)
		return 0;
	/*
	 * The template's flags: FIN and PSH are the last segment's (PSH ends
	 * the merge, FIN is not merged), CWR the first's; the rest is ACK, as
	 * segment @i - 1, which the merge took, had.
	 */
	flags = ((const u8 *)g.th)[13];
	if ((flags & ~(TCPHDR_FIN | TCPHDR_PSH | TCPHDR_CWR)) != TCPHDR_ACK)
		return 0;

	for (j = i; j < lso->nseg; j++) {
		seg = lso->payload_len - j * lso->mss;
		seg = min(seg, lso->mss);
		if (j == lso->nseg - 1 && (flags & TCPHDR_FIN))
			break;
		if (!cxsim_lro_room(rq, s, j - i + 1, bytes + seg))
			break;
		bytes += seg;
		*wire_bytes += lso->hdr_len + seg;
		if (j == lso->nseg - 1 && (flags & TCPHDR_PSH))
			psh = true;
	}
	k = j - i;
	if (!k)
		return 0;
	off = s->start + s->len;
	if (!cxsim_stride_bytes(rq, NULL, off, bytes, 0)) {
		*wire_bytes = 0;
		return 0;
	}
	for (done = 0; done < bytes; done += chunk) {
		chunk = piece(ctx, i * lso->mss + done,
			      min(bytes - done, S - ((off + done) & (S - 1))),
			      &src);
		/*
		 * Not addressable: what was written lies past the merge's
		 * end, in strides no CQE names; the segment goes on its own.
		 */
		if (!chunk) {
			*wire_bytes = 0;
			return 0;
		}
		cxsim_dma_write_csum(rq->sd,
				     rq->page[(off + done) >> rq->log_page_bytes] +
				     ((off + done) & (S - 1)), src, chunk, &sum);
		acc = csum_block_add(acc, sum, done);
	}
	s->pay_csum = csum_block_add(s->pay_csum, acc, s->paylen);
	s->paylen += bytes;
	s->len += bytes;
	s->next_seq += bytes;
	s->segs += k;
	rq->cnt[CXSIM_RQ_FRAMES] += k;
	rq->cnt[CXSIM_RQ_BYTES] += *wire_bytes;
	cxsim_port_inc(&rq->sd->port[rq->port], CXSIM_PORT_RX_FRAMES, k);
	cxsim_port_inc(&rq->sd->port[rq->port], CXSIM_PORT_RX_BYTES, *wire_bytes);
	if (psh) {
		((struct tcphdr *)(s->hdr + s->l4_off))->psh = 1;
		cxsim_lro_close_locked(rq, rx);
	}
	return k;
}

/*
 * Rewrite the merged frame's headers: IP length (and the IPv4 header's
 * checksum), the TCP checksum over the whole segment.
 */
static void cxsim_lro_fix_hdr(struct cxsim_lro *s)
{
	struct tcphdr *th = (void *)(s->hdr + s->l4_off);
	u32 l4len = s->len - s->l4_off;
	__wsum sum;

	if (s->v6) {
		struct ipv6hdr *ip6 = (void *)(s->hdr + s->l3_off);

		ip6->payload_len = htons(s->len - s->l3_off - sizeof(*ip6));
	} else {
		struct iphdr *iph = (void *)(s->hdr + s->l3_off);

		iph->tot_len = htons(s->len - s->l3_off);
		iph->check = 0;
		iph->check = ip_fast_csum(iph, iph->ihl);
	}
	th->check = 0;
	sum = csum_add(s->addr_csum, (__force __wsum)htonl(l4len + IPPROTO_TCP));
	sum = csum_partial(th, s->hlen - s->l4_off, sum);
	/* The TCP header's length is a multiple of 4: the payload's sum as is. */
	th->check = csum_fold(csum_add(sum, s->pay_csum));
}

/**
 * cxsim_lro_close_locked() - end the RQ's open merge: its CQE
 * @rq: the LRO RQ, locked with its CQ, a merge open
 * @rx: the delivery the CQE's interrupt goes with
 *
 * More than one segment: the headers are rewritten in the WQE and the CQE
 * carries CXEN_CQE_LRO and their count. One: a plain CQE.
 */
void cxsim_lro_close_locked(struct cxsim_rq *rq, struct cxsim_rx_ctx *rx)
{
	struct cxsim_lro *s = &rq->lro;
	struct cxen_cqe cqe;
	u32 n;

	s->open = false;
	cxsim_rq_cqe_init(rq, &cqe, CXEN_CQE_OP_RECV, 0);
	cqe.rss_hash = cpu_to_be32(s->hash);
	cqe.flags = cpu_to_be32(s->flags);
	cqe.vlan_tci = cpu_to_be16(s->vlan_tci);
	cqe.byte_cnt = cpu_to_be32(s->len);
	if (s->segs > 1) {
		cxsim_lro_fix_hdr(s);
		cxsim_stride_write(rq, s->start, s->hdr, s->hlen);
		cqe.flags |= cpu_to_be32(CXEN_CQE_LRO);
		cqe.lro_segs = s->segs;
		rq->cnt[CXSIM_RQ_LRO]++;
		rq->cnt[CXSIM_RQ_LRO_SEGS] += s->segs;
	}
	n = cxsim_stride_need(rq->log_stride_bytes, rq->headroom, rq->tailroom,
			      s->len, 0);
	cxsim_stride_post_frame(rq, rx, &cqe, s->first, n);
}

/**
 * cxsim_rq_end_merge() - end the LRO merge an RQ has open, if any
 * @rq: the RQ, kept from being freed by the caller
 *
 * The merge's CQE is written now: by the context that filled it when it
 * is done, and by the commands after which the RQ takes no more frames
 * (MODIFY_RQ to RST, DESTROY_RQ), so that no merged segment is lost.
 * Raises the CQ's interrupt when it fires.
 */
void cxsim_rq_end_merge(struct cxsim_rq *rq)
{
	struct cxsim_rx_ctx rx = {};
	unsigned long flags;

	spin_lock_bh(&rq->lock);
	spin_lock_irqsave(&rq->cq->lock, flags);
	if (rq->lro.open)
		cxsim_lro_close_locked(rq, &rx);
	spin_unlock_irqrestore(&rq->cq->lock, flags);
	spin_unlock_bh(&rq->lock);
	if (rx.fire && !cxsim_halted(rq->sd))
		cxsim_raise_irq(rq->sd, rq->cq->vector);
	if (rx.async)
		cxsim_async_event(rq->sd, rx.async);
}

/*
 * End the LRO merge RQ @rqn has open, if any: the delivering context is
 * done with it. The RQ is looked up again: it may have gone meanwhile.
 */
static void cxsim_lro_end(struct cxsim_dev *sd, u16 rqn)
{
	struct cxsim_rq *rq;

	rcu_read_lock();
	rq = rcu_dereference(sd->rq[rqn]);
	if (rq)
		cxsim_rq_end_merge(rq);
	rcu_read_unlock();
}

/**
 * cxsim_lro_flush() - end the LRO merges a delivering context left open
 * @sd: the device
 * @w: the context's delivery
 *
 * Called when the context is done delivering (an SQ's run, a frame of the
 * wire generator) and before it waits: a merge never outlives the burst
 * of frames that filled it.
 */
void cxsim_lro_flush(struct cxsim_dev *sd, struct cxsim_rx_wait *w)
{
	w->lro_last = -1;
	while (w->lro_n)
		cxsim_lro_end(sd, w->lro_rqn[--w->lro_n]);
}

/* The frame of @w left @rqn's LRO merge open: note it for the flush. */
void cxsim_lro_note(struct cxsim_dev *sd, struct cxsim_rx_wait *w,
		    u16 rqn)
{
	unsigned int i;

	w->rx.lro_open = false;
	for (i = 0; i < w->lro_n; i++)
		if (w->lro_rqn[i] == rqn)
			goto out;
	if (w->lro_n == CXSIM_LRO_CTX_RQS)
		cxsim_lro_flush(sd, w);
	w->lro_rqn[w->lro_n++] = rqn;
out:
	w->lro_last = rqn;
}

#if IS_ENABLED(CONFIG_KUNIT)
/**
 * cxsim_lro_end_test() - end RQ @rqn's LRO merge, as a context's flush
 * @sd: the device
 * @rqn: the RQ
 *
 * cxsim_rx_frame_test() leaves a merge open, as one delivering context
 * does between its frames: the self-test ends it here.
 */
void cxsim_lro_end_test(struct cxsim_dev *sd, u16 rqn)
{
	cxsim_lro_end(sd, rqn);
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_lro_end_test);
#endif
