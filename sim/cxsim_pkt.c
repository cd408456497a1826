// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim packet functions (see cxsim_pkt.h). All multi-byte fields are
 * read and written with the unaligned big-endian accessors: frames sit at
 * arbitrary offsets in the model's buffers.
 */
#include <linux/errno.h>
#include <linux/export.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <linux/tcp.h>
#include <linux/udp.h>
#include <linux/unaligned.h>
#include <net/checksum.h>
#include <net/ip6_checksum.h>
#include <net/ipv6.h>

#include <kunit/visibility.h>

#include "cxen_hw.h"
#include "cxsim_pkt.h"

/* IPv6 extension headers the parser walks over, at most this many. */
#define CXSIM_MAX_EXTHDRS	8

/* Byte offsets inside headers. */
#define IP4_TOT_LEN	2
#define IP4_ID		4
#define IP4_FRAG_OFF	6
#define IP4_PROTO	9
#define IP4_CHECK	10
#define IP4_SADDR	12
#define IP4_DADDR	16
#define IP6_PLEN	4
#define IP6_NEXTHDR	6
#define IP6_SADDR	8
#define IP6_DADDR	24
#define IP6_HLEN	40
#define TCP_SEQ		4
#define TCP_DOFF	12
#define TCP_FLAGS	13
#define TCP_CHECK	16
#define UDP_CHECK	6

#define TCP_FLAG_BYTE_FIN	0x01
#define TCP_FLAG_BYTE_PSH	0x08
#define TCP_FLAG_BYTE_CWR	0x80

/*
 * Parse the L4 header at @off. @whole: lengths in the IP header must be
 * consistent with the frame (not so for an LSO template header).
 */
static void cxsim_parse_l4(const u8 *f, u32 len, u8 proto, u32 off,
			   u32 l4_len, bool whole, struct cxsim_pkt *pkt)
{
	u32 hlen;

	switch (proto) {
	case IPPROTO_TCP:
		if (off + sizeof(struct tcphdr) > len)
			return;
		hlen = (f[off + TCP_DOFF] >> 4) * 4;
		if (hlen < sizeof(struct tcphdr) || off + hlen > len)
			return;
		pkt->l4 = CXEN_CQE_L4_TCP;
		break;
	case IPPROTO_UDP:
		hlen = sizeof(struct udphdr);
		if (off + hlen > len)
			return;
		pkt->l4 = CXEN_CQE_L4_UDP;
		break;
	default:
		return;
	}
	if (whole && l4_len < hlen) {
		pkt->l4 = CXEN_CQE_L4_NONE;
		return;
	}
	pkt->l4_off = off;
	pkt->l4_hlen = hlen;
	pkt->l4_len = l4_len;
}

static void cxsim_parse_ipv4(const u8 *f, u32 len, u32 off, bool whole,
			     struct cxsim_pkt *pkt)
{
	u32 ihl, tot;

	if (off + sizeof(struct iphdr) > len || f[off] >> 4 != 4)
		return;
	ihl = (f[off] & 0xf) * 4;
	tot = get_unaligned_be16(f + off + IP4_TOT_LEN);
	if (ihl < sizeof(struct iphdr) || off + ihl > len)
		return;
	if (whole && (tot < ihl || off + tot > len))
		return;

	pkt->l3 = CXEN_CQE_L3_IPV4;
	pkt->l3_off = off;
	if (get_unaligned_be16(f + off + IP4_FRAG_OFF) & (IP_MF | IP_OFFSET)) {
		pkt->frag = true;
		return;
	}
	cxsim_parse_l4(f, len, f[off + IP4_PROTO], off + ihl,
		       whole ? tot - ihl : 0, whole, pkt);
}

static void cxsim_parse_ipv6(const u8 *f, u32 len, u32 off, bool whole,
			     struct cxsim_pkt *pkt)
{
	u32 end, l4, i;
	u8 nh;

	if (off + IP6_HLEN > len || f[off] >> 4 != 6)
		return;
	end = off + IP6_HLEN + get_unaligned_be16(f + off + IP6_PLEN);
	if (whole && end > len)
		return;
	if (!whole)
		end = len;

	pkt->l3 = CXEN_CQE_L3_IPV6;
	pkt->l3_off = off;
	nh = f[off + IP6_NEXTHDR];
	l4 = off + IP6_HLEN;
	for (i = 0; i < CXSIM_MAX_EXTHDRS; i++) {
		if (nh == NEXTHDR_FRAGMENT) {
			pkt->frag = true;
			return;
		}
		if (nh != NEXTHDR_HOP && nh != NEXTHDR_ROUTING &&
		    nh != NEXTHDR_DEST)
			break;
		if (l4 + 8 > end)
			return;
		nh = f[l4];
		l4 += (f[l4 + 1] + 1) * 8;
	}
	if (l4 > end)
		return;
	cxsim_parse_l4(f, len, nh, l4, whole ? end - l4 : 0, whole, pkt);
}

static void __cxsim_pkt_parse(const u8 *f, u32 len, bool whole,
			      struct cxsim_pkt *pkt)
{
	u32 off = ETH_HLEN;
	u16 proto;

	memset(pkt, 0, sizeof(*pkt));
	if (len < ETH_HLEN)
		return;
	proto = get_unaligned_be16(f + ETH_ALEN * 2);
	if (proto == ETH_P_8021Q || proto == ETH_P_8021AD) {
		if (len < VLAN_ETH_HLEN)
			return;
		pkt->vlan = true;
		proto = get_unaligned_be16(f + ETH_HLEN + 2);
		off = VLAN_ETH_HLEN;
	}
	if (proto == ETH_P_IP)
		cxsim_parse_ipv4(f, len, off, whole, pkt);
	else if (proto == ETH_P_IPV6)
		cxsim_parse_ipv6(f, len, off, whole, pkt);
}

/**
 * cxsim_pkt_parse() - find the L3 and L4 headers of a frame
 * @frame: Ethernet frame, no FCS
 * @len: its length
 * @pkt: result
 *
 * One outer VLAN tag is skipped. IPv4 and IPv6 (over hop-by-hop,
 * routing and destination options headers) are recognised when their
 * headers are well formed and their length fits the frame; TCP and UDP
 * when not a fragment and their header fits.
 */
void cxsim_pkt_parse(const u8 *frame, u32 len, struct cxsim_pkt *pkt)
{
	__cxsim_pkt_parse(frame, len, true, pkt);
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_pkt_parse);

/* Does the frame carry an outer VLAN tag? */
bool cxsim_pkt_vlan_tagged(const u8 *frame, u32 len)
{
	u16 proto;

	if (len < ETH_HLEN)
		return false;
	proto = get_unaligned_be16(frame + ETH_ALEN * 2);
	return proto == ETH_P_8021Q || proto == ETH_P_8021AD;
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_pkt_vlan_tagged);

/* Does the frame carry an outer 802.1Q tag (the one VLAN strip removes)? */
bool cxsim_pkt_ctag(const u8 *frame, u32 len)
{
	return len >= VLAN_ETH_HLEN &&
	       get_unaligned_be16(frame + ETH_ALEN * 2) == ETH_P_8021Q;
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_pkt_ctag);

/*
 * TCP/UDP checksum of the L4 part including the pseudo header, folded:
 * @sum is the sum of its bytes (csum_partial()).
 */
static __sum16 cxsim_l4_csum_of(const u8 *f, const struct cxsim_pkt *pkt,
				__wsum sum)
{
	u8 proto = pkt->l4 == CXEN_CQE_L4_TCP ? IPPROTO_TCP : IPPROTO_UDP;

	if (pkt->l3 == CXEN_CQE_L3_IPV4) {
		__be32 saddr, daddr;

		memcpy(&saddr, f + pkt->l3_off + IP4_SADDR, sizeof(saddr));
		memcpy(&daddr, f + pkt->l3_off + IP4_DADDR, sizeof(daddr));
		return csum_tcpudp_magic(saddr, daddr, pkt->l4_len, proto,
					 sum);
	} else {
		struct in6_addr saddr, daddr;

		memcpy(&saddr, f + pkt->l3_off + IP6_SADDR, sizeof(saddr));
		memcpy(&daddr, f + pkt->l3_off + IP6_DADDR, sizeof(daddr));
		return csum_ipv6_magic(&saddr, &daddr, pkt->l4_len, proto,
				       sum);
	}
}

static __sum16 cxsim_l4_csum(const u8 *f, const struct cxsim_pkt *pkt)
{
	return cxsim_l4_csum_of(f, pkt,
				csum_partial(f + pkt->l4_off, pkt->l4_len, 0));
}

static u32 cxsim_l4_check_off(const struct cxsim_pkt *pkt)
{
	return pkt->l4_off +
	       (pkt->l4 == CXEN_CQE_L4_TCP ? TCP_CHECK : UDP_CHECK);
}

/**
 * cxsim_pkt_l3_csum_ok() - verify the IPv4 header checksum
 * @frame: a parsed frame
 * @pkt: its parse result
 *
 * Return: true for an IPv4 frame whose header checksum is right.
 */
bool cxsim_pkt_l3_csum_ok(const u8 *frame, const struct cxsim_pkt *pkt)
{
	const u8 *iph = frame + pkt->l3_off;

	if (pkt->l3 != CXEN_CQE_L3_IPV4)
		return false;
	return !ip_compute_csum(iph, (iph[0] & 0xf) * 4);
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_pkt_l3_csum_ok);

/**
 * cxsim_pkt_l4_csum_ok() - verify the TCP or UDP checksum
 * @frame: a parsed frame
 * @pkt: its parse result
 *
 * A UDP over IPv4 datagram without checksum (0) counts as verified.
 *
 * Return: true for a TCP/UDP frame whose checksum is right.
 */
bool cxsim_pkt_l4_csum_ok(const u8 *frame, const struct cxsim_pkt *pkt)
{
	if (pkt->l4 == CXEN_CQE_L4_NONE)
		return false;
	if (pkt->l4 == CXEN_CQE_L4_UDP && pkt->l3 == CXEN_CQE_L3_IPV4 &&
	    !get_unaligned_be16(frame + cxsim_l4_check_off(pkt)))
		return true;
	return !cxsim_l4_csum(frame, pkt);
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_pkt_l4_csum_ok);

static void cxsim_ipv4_csum(u8 *frame, const struct cxsim_pkt *pkt)
{
	u8 *iph = frame + pkt->l3_off;
	__sum16 csum;

	put_unaligned_be16(0, iph + IP4_CHECK);
	csum = ip_compute_csum(iph, (iph[0] & 0xf) * 4);
	memcpy(iph + IP4_CHECK, &csum, sizeof(csum));
}

static void cxsim_l4_csum_insert(u8 *frame, const struct cxsim_pkt *pkt)
{
	u8 *check = frame + cxsim_l4_check_off(pkt);
	__sum16 csum;

	put_unaligned_be16(0, check);
	csum = cxsim_l4_csum(frame, pkt);
	if (pkt->l4 == CXEN_CQE_L4_UDP && !csum)
		csum = CSUM_MANGLED_0;
	memcpy(check, &csum, sizeof(csum));
}

/**
 * cxsim_pkt_tx_csum() - insert checksums into a frame about to be sent
 * @frame: the frame
 * @pkt: its parse result
 * @ip: compute the IPv4 header checksum (nothing for other frames)
 * @l4: compute the TCP/UDP checksum (nothing for other frames)
 *
 * The device computes the complete checksum and ignores what the field
 * held, so a partial (pseudo-header) sum left there by the stack is fine.
 *
 * Return: the checksums written, CXSIM_CSUM_* bits.
 */
u8 cxsim_pkt_tx_csum(u8 *frame, const struct cxsim_pkt *pkt, bool ip,
		     bool l4)
{
	u8 done = 0;

	if (ip && pkt->l3 == CXEN_CQE_L3_IPV4) {
		cxsim_ipv4_csum(frame, pkt);
		done |= CXSIM_CSUM_L3;
	}
	if (l4 && pkt->l4 != CXEN_CQE_L4_NONE) {
		cxsim_l4_csum_insert(frame, pkt);
		done |= CXSIM_CSUM_L4;
	}
	return done;
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_pkt_tx_csum);

/**
 * cxsim_pkt_vlan_insert() - insert an 802.1Q tag after the MAC addresses
 * @frame: the frame; the VLAN_HLEN bytes before it must be writable
 * @tci: tag control information
 *
 * Return: the start of the tagged frame, VLAN_HLEN bytes longer.
 */
u8 *cxsim_pkt_vlan_insert(u8 *frame, u16 tci)
{
	u8 *tagged = frame - VLAN_HLEN;

	memmove(tagged, frame, ETH_ALEN * 2);
	put_unaligned_be16(ETH_P_8021Q, tagged + ETH_ALEN * 2);
	put_unaligned_be16(tci, tagged + ETH_ALEN * 2 + 2);
	return tagged;
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_pkt_vlan_insert);

/**
 * cxsim_lso_init() - check an LSO request and count its segments
 * @lso: result
 * @hdr: template header from the WQE: Ethernet [+ VLAN] + IPv4 or IPv6
 *	 (extension headers allowed) + TCP, nothing else
 * @hdr_len: its length
 * @mss: payload bytes per segment, not 0
 * @payload_len: bytes of payload gathered after the header
 *
 * Return: 0, or -EINVAL when the header is not exactly that.
 */
int cxsim_lso_init(struct cxsim_lso *lso, const u8 *hdr, u32 hdr_len,
		   u32 mss, u32 payload_len)
{
	memset(lso, 0, sizeof(*lso));
	__cxsim_pkt_parse(hdr, hdr_len, false, &lso->pkt);
	if (!mss || lso->pkt.frag || lso->pkt.l4 != CXEN_CQE_L4_TCP ||
	    lso->pkt.l4_off + lso->pkt.l4_hlen != hdr_len)
		return -EINVAL;
	lso->hdr = hdr;
	lso->hdr_len = hdr_len;
	lso->mss = mss;
	lso->payload_len = payload_len;
	lso->nseg = max(1u, DIV_ROUND_UP(payload_len, mss));
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_lso_init);

/* Payload bytes of segment @i. */
static u32 cxsim_lso_chunk(const struct cxsim_lso *lso, u32 i)
{
	return min(lso->mss, lso->payload_len - i * lso->mss);
}

/* Length of segment @i on the wire. */
u32 cxsim_lso_seg_len(const struct cxsim_lso *lso, u32 i)
{
	return lso->hdr_len + cxsim_lso_chunk(lso, i);
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_lso_seg_len);

/**
 * cxsim_lso_build() - build one segment of an LSO operation
 * @lso: the operation
 * @i: segment number, 0 .. nseg - 1
 * @payload: the whole payload
 * @out: room for cxsim_lso_seg_len(@lso, @i) bytes
 *
 * Every segment gets the template header with: IPv4 total length,
 * ID + @i and header checksum, or IPv6 payload length; TCP sequence
 * number + @i * mss; FIN and PSH only on the last segment, CWR only on
 * the first; the TCP checksum. The payload is summed as it is copied
 * (one pass over its bytes), the TCP header on its own.
 *
 * Return: the segment length.
 */
u32 cxsim_lso_build(const struct cxsim_lso *lso, u32 i, const u8 *payload,
		    u8 *out)
{
	u32 chunk = cxsim_lso_chunk(lso, i);
	const struct cxsim_pkt *pkt = &lso->pkt;
	u32 len = lso->hdr_len + chunk;
	struct cxsim_pkt seg = *pkt;
	u8 *l3 = out + pkt->l3_off;
	u8 *th = out + pkt->l4_off;
	u32 th_len = lso->hdr_len - pkt->l4_off;
	__wsum psum, sum;
	__sum16 csum;
	u8 flags;

	memcpy(out, lso->hdr, lso->hdr_len);
	psum = chunk ? csum_partial_copy_nocheck(payload + i * lso->mss,
						 out + lso->hdr_len, chunk) : 0;

	if (pkt->l3 == CXEN_CQE_L3_IPV4) {
		put_unaligned_be16(len - pkt->l3_off, l3 + IP4_TOT_LEN);
		put_unaligned_be16(get_unaligned_be16(l3 + IP4_ID) + i,
				   l3 + IP4_ID);
		cxsim_ipv4_csum(out, pkt);
	} else {
		put_unaligned_be16(len - pkt->l3_off - IP6_HLEN,
				   l3 + IP6_PLEN);
	}

	put_unaligned_be32(get_unaligned_be32(th + TCP_SEQ) + i * lso->mss,
			   th + TCP_SEQ);
	flags = th[TCP_FLAGS];
	if (i != lso->nseg - 1)
		flags &= ~(TCP_FLAG_BYTE_FIN | TCP_FLAG_BYTE_PSH);
	if (i)
		flags &= ~TCP_FLAG_BYTE_CWR;
	th[TCP_FLAGS] = flags;

	seg.l4_len = len - pkt->l4_off;
	put_unaligned_be16(0, th + TCP_CHECK);
	sum = csum_block_add(csum_partial(th, th_len, 0), psum, th_len);
	csum = cxsim_l4_csum_of(out, &seg, sum);
	memcpy(th + TCP_CHECK, &csum, sizeof(csum));
	return len;
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_lso_build);
