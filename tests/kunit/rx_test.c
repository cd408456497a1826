// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite for what the driver believes of an RX CQE's checksum flags
 * (cxen_rx_csum_ok(), en_rx.c): CHECKSUM_UNNECESSARY only for TCP or UDP,
 * no IP fragment, the L4 checksum verified and, over IPv4, the header
 * checksum too; a device that claims more is not believed. The header
 * length its L3/L4 types let the driver read without the flow dissector
 * (cxen_rx_hdr_len()). And the XDP hash type of its hash type
 * (cxen_xdp_rss_type(), en_xdp.c).
 */

#include <kunit/test.h>
#include <linux/bitfield.h>
#include <linux/if_vlan.h>
#include <linux/in6.h>
#include <linux/ip.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/tcp.h>

#include "../../en_rx.h"

/* CQE flags: L3 and L4 types, and the other bits (constant expression). */
#define rx_flags(l3, l4, more)						\
	(((l3) << __bf_shf(CXEN_CQE_L3_TYPE)) |				\
	 ((l4) << __bf_shf(CXEN_CQE_L4_TYPE)) | (more))

struct rx_csum_case {
	const char *what;
	u32 flags;
	bool ok;
};

#define L3OK	CXEN_CQE_L3_CSUM_OK
#define L4OK	CXEN_CQE_L4_CSUM_OK
#define FRAG	CXEN_CQE_IP_FRAG

static const struct rx_csum_case rx_csum_cases[] = {
	{ "IPv4 TCP, both verified",
	  rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_TCP, L3OK | L4OK), true },
	{ "IPv4 UDP, both verified",
	  rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_UDP, L3OK | L4OK), true },
	{ "IPv6 TCP, L4 verified",
	  rx_flags(CXEN_CQE_L3_IPV6, CXEN_CQE_L4_TCP, L4OK), true },
	{ "IPv6 UDP, L4 verified",
	  rx_flags(CXEN_CQE_L3_IPV6, CXEN_CQE_L4_UDP, L4OK), true },
	{ "IPv4 TCP, bad IP header checksum",
	  rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_TCP, L4OK), false },
	{ "IPv4 UDP, bad L4 checksum",
	  rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_UDP, L3OK), false },
	{ "IPv4 UDP fragment claimed verified",
	  rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_UDP, L3OK | L4OK | FRAG), false },
	{ "IPv6 fragment claimed verified",
	  rx_flags(CXEN_CQE_L3_IPV6, CXEN_CQE_L4_NONE, L4OK | FRAG), false },
	{ "IPv4 fragment, no L4 header, claimed verified",
	  rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_NONE, L3OK | L4OK), false },
	{ "IPv4 other protocol, header verified",
	  rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_NONE, L3OK), false },
	{ "no IP, L4 claimed verified",
	  rx_flags(CXEN_CQE_L3_NONE, CXEN_CQE_L4_TCP, L4OK), false },
	{ "unknown L4 type claimed verified",
	  rx_flags(CXEN_CQE_L3_IPV4, 3, L3OK | L4OK), false },
	{ "unknown L3 type claimed verified",
	  rx_flags(3, CXEN_CQE_L4_UDP, L3OK | L4OK), false },
};

static void rx_csum_case_desc(const struct rx_csum_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rx_csum, rx_csum_cases, rx_csum_case_desc);

static void rx_csum_ok_test(struct kunit *test)
{
	const struct rx_csum_case *c = test->param_value;

	KUNIT_EXPECT_EQ_MSG(test, cxen_rx_csum_ok(c->flags), c->ok,
			    "flags %#x", c->flags);
}

/*
 * The XDP hash type of each CQE hash type (cxen_xdp_rss_type(), en_xdp.c,
 * for bpf_xdp_metadata_rx_hash()): L3 or L4, IPv4 or IPv6, TCP or UDP,
 * none for a frame not hashed or a type the device has not defined; the
 * other CQE bits do not matter.
 */
struct rx_rss_case {
	u32 cqe_type;
	enum xdp_rss_hash_type want;
};

static const struct rx_rss_case rx_rss_cases[] = {
	{ CXEN_CQE_HASH_NONE,		XDP_RSS_TYPE_NONE },
	{ CXEN_CQE_HASH_IPV4,		XDP_RSS_TYPE_L3_IPV4 },
	{ CXEN_CQE_HASH_IPV4_TCP,	XDP_RSS_TYPE_L4_IPV4_TCP },
	{ CXEN_CQE_HASH_IPV4_UDP,	XDP_RSS_TYPE_L4_IPV4_UDP },
	{ CXEN_CQE_HASH_IPV6,		XDP_RSS_TYPE_L3_IPV6 },
	{ CXEN_CQE_HASH_IPV6_TCP,	XDP_RSS_TYPE_L4_IPV6_TCP },
	{ CXEN_CQE_HASH_IPV6_UDP,	XDP_RSS_TYPE_L4_IPV6_UDP },
	{ 7,				XDP_RSS_TYPE_NONE },
	{ 15,				XDP_RSS_TYPE_NONE },
};

static void rx_rss_case_desc(const struct rx_rss_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "CQE hash type %u", c->cqe_type);
}

KUNIT_ARRAY_PARAM(rx_rss, rx_rss_cases, rx_rss_case_desc);

static void rx_xdp_rss_type_test(struct kunit *test)
{
	const struct rx_rss_case *c = test->param_value;
	u32 type = FIELD_PREP(CXEN_CQE_HASH_TYPE, c->cqe_type);

	KUNIT_EXPECT_EQ(test, cxen_xdp_rss_type(type), c->want);
	/* Every other flag set: the type alone decides. */
	KUNIT_EXPECT_EQ(test, cxen_xdp_rss_type(type | ~CXEN_CQE_HASH_TYPE),
			c->want);
}

/*
 * Which reconfigurations go one RX queue at a time (per-queue restart):
 * header/data split, the RX layout and the RX ring's size, alone or
 * together; with anything else, or with nothing changed, the whole
 * channel set.
 */
static void rx_queues_only_test(struct kunit *test)
{
	const struct cxen_params cur = {
		.num_channels = 4, .rq_size = 1024, .sq_size = 1024,
		.mtu = 1500, .rx_usecs = 16, .rx_frames = 32,
		.tx_usecs = 16, .tx_frames = 32,
		.rx_layout = CXEN_RX_STRIDING,
	};
	struct cxen_params p = cur;

	KUNIT_EXPECT_FALSE(test, cxen_rx_queues_only(&cur, &p));
	p.hdr_split = true;
	KUNIT_EXPECT_TRUE(test, cxen_rx_queues_only(&cur, &p));
	KUNIT_EXPECT_TRUE(test, cxen_rx_queues_only(&p, &cur));
	p.rq_size = 2048;
	KUNIT_EXPECT_TRUE(test, cxen_rx_queues_only(&cur, &p));
	p.hdr_split = false;
	KUNIT_EXPECT_TRUE(test, cxen_rx_queues_only(&cur, &p));
	p.rx_layout = CXEN_RX_PAGEPOOL;
	KUNIT_EXPECT_TRUE(test, cxen_rx_queues_only(&cur, &p));
	p.rq_size = cur.rq_size;
	KUNIT_EXPECT_TRUE(test, cxen_rx_queues_only(&cur, &p));
	/* An RQ change with a channel-wide one goes the whole set's way. */
	p.mtu = 9000;
	KUNIT_EXPECT_FALSE(test, cxen_rx_queues_only(&cur, &p));
	p.mtu = cur.mtu;
	p.sq_size = 2048;
	KUNIT_EXPECT_FALSE(test, cxen_rx_queues_only(&cur, &p));
	p.sq_size = cur.sq_size;
	p.num_channels = 2;
	KUNIT_EXPECT_FALSE(test, cxen_rx_queues_only(&cur, &p));
	p.num_channels = cur.num_channels;
	p.tx_dim = true;
	KUNIT_EXPECT_FALSE(test, cxen_rx_queues_only(&cur, &p));
	p.tx_dim = cur.tx_dim;
	p.rx_usecs = 64;
	KUNIT_EXPECT_FALSE(test, cxen_rx_queues_only(&cur, &p));
	p.rx_usecs = cur.rx_usecs;
	KUNIT_EXPECT_TRUE(test, cxen_rx_queues_only(&cur, &p));
	/* LRO on or off: new RQs, one at a time. */
	p = cur;
	p.lro = true;
	KUNIT_EXPECT_TRUE(test, cxen_rx_queues_only(&cur, &p));
}

/*
 * A change of the layout asked for that leaves the one picked (private
 * flag auto turned off at MTU 1500, where it picked the default) builds
 * no queue; any change cxen_rx_queues_only() sees builds some.
 */
static void rx_queues_unchanged_test(struct kunit *test)
{
	const struct cxen_params cur = {
		.num_channels = 4, .rq_size = 1024, .sq_size = 1024,
		.mtu = 1500, .rx_layout = CXEN_RX_PAGEPOOL,
		.rx_named = CXEN_RX_PAGEPOOL, .rx_auto = true,
	};
	struct cxen_params p = cur;

	KUNIT_EXPECT_TRUE(test, cxen_queues_unchanged(&cur, &p));
	p.rx_auto = false;
	KUNIT_EXPECT_TRUE(test, cxen_queues_unchanged(&cur, &p));
	KUNIT_EXPECT_FALSE(test, cxen_rx_queues_only(&cur, &p));
	p.rx_named = CXEN_RX_STRIDING;
	p.rx_layout = CXEN_RX_STRIDING;
	KUNIT_EXPECT_FALSE(test, cxen_queues_unchanged(&cur, &p));
	KUNIT_EXPECT_TRUE(test, cxen_rx_queues_only(&cur, &p));
	p = cur;
	p.mtu = 9000;
	KUNIT_EXPECT_FALSE(test, cxen_queues_unchanged(&cur, &p));
	p = cur;
	p.hdr_split = true;
	KUNIT_EXPECT_FALSE(test, cxen_queues_unchanged(&cur, &p));
	p = cur;
	p.tx_frames = 8;
	KUNIT_EXPECT_FALSE(test, cxen_queues_unchanged(&cur, &p));
}

/*
 * The header length read from a frame the CQE's parse points at
 * (cxen_rx_hdr_len(), en_rx.c): the bytes up to the end of the TCP or
 * UDP header when the frame's own headers agree with the CQE, 0 (ask the
 * flow dissector) when they do not or do not fit in what may be read.
 */
struct rx_hdr_case {
	const char *what;
	u32 flags;		/* the CQE's */
	u16 vlan_proto;		/* one tag of this TPID, or none */
	u16 ethertype;
	u8 ip_version;		/* what the IP header says */
	u8 ihl;			/* IPv4, in 32-bit words */
	u8 proto;		/* IPv4 protocol or IPv6 next header */
	u8 doff;		/* TCP, in 32-bit words */
	u32 avail;		/* bytes that may be read; 0: all 128 */
	u32 want;
};

#define TCP4	rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_TCP, L3OK | L4OK)
#define UDP4	rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_UDP, L3OK | L4OK)
#define TCP6	rx_flags(CXEN_CQE_L3_IPV6, CXEN_CQE_L4_TCP, L4OK)
#define UDP6	rx_flags(CXEN_CQE_L3_IPV6, CXEN_CQE_L4_UDP, L4OK)

static const struct rx_hdr_case rx_hdr_cases[] = {
	{ "IPv4 TCP", TCP4, 0, ETH_P_IP, 4, 5, IPPROTO_TCP, 5, 0, 54 },
	{ "IPv4 TCP with timestamps", TCP4, 0, ETH_P_IP, 4, 5, IPPROTO_TCP, 8, 0, 66 },
	{ "IPv4 with options, UDP", UDP4, 0, ETH_P_IP, 4, 6, IPPROTO_UDP, 0, 0, 46 },
	{ "IPv6 TCP with timestamps", TCP6, 0, ETH_P_IPV6, 6, 0, IPPROTO_TCP, 8, 0, 86 },
	{ "IPv6 UDP", UDP6, 0, ETH_P_IPV6, 6, 0, IPPROTO_UDP, 0, 0, 62 },
	{ "802.1Q, IPv4 TCP", TCP4, ETH_P_8021Q, ETH_P_IP, 4, 5, IPPROTO_TCP, 5, 0, 58 },
	{ "802.1ad, IPv6 UDP", UDP6, ETH_P_8021AD, ETH_P_IPV6, 6, 0, IPPROTO_UDP, 0, 0, 66 },
	{ "headers end exactly at avail", TCP4, 0, ETH_P_IP, 4, 5, IPPROTO_TCP, 8, 66, 66 },
	{ "TCP header past avail", TCP4, 0, ETH_P_IP, 4, 5, IPPROTO_TCP, 8, 65, 0 },
	{ "IPv4 header past avail", TCP4, 0, ETH_P_IP, 4, 5, IPPROTO_TCP, 5, 30, 0 },
	{ "shorter than Ethernet", TCP4, 0, ETH_P_IP, 4, 5, IPPROTO_TCP, 5, 10, 0 },
	{ "CQE TCP, frame UDP", TCP4, 0, ETH_P_IP, 4, 5, IPPROTO_UDP, 5, 0, 0 },
	{ "CQE IPv4, frame IPv6", TCP4, 0, ETH_P_IPV6, 6, 0, IPPROTO_TCP, 5, 0, 0 },
	{ "CQE IPv6, frame IPv4", TCP6, 0, ETH_P_IP, 4, 5, IPPROTO_TCP, 5, 0, 0 },
	{ "IPv4 EtherType, version 6", TCP4, 0, ETH_P_IP, 6, 5, IPPROTO_TCP, 5, 0, 0 },
	{ "IPv4 header length 4 words", TCP4, 0, ETH_P_IP, 4, 4, IPPROTO_TCP, 5, 0, 0 },
	{ "TCP header length 4 words", TCP4, 0, ETH_P_IP, 4, 5, IPPROTO_TCP, 4, 0, 0 },
	{ "IPv6 hop-by-hop header first", TCP6, 0, ETH_P_IPV6, 6, 0, IPPROTO_HOPOPTS, 5, 0, 0 },
	{ "IP fragment", TCP4 | FRAG, 0, ETH_P_IP, 4, 5, IPPROTO_TCP, 5, 0, 0 },
	{ "no L4 type", rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_NONE, L3OK),
	  0, ETH_P_IP, 4, 5, IPPROTO_TCP, 5, 0, 0 },
	{ "no L3 type", rx_flags(CXEN_CQE_L3_NONE, CXEN_CQE_L4_TCP, 0),
	  0, ETH_P_IP, 4, 5, IPPROTO_TCP, 5, 0, 0 },
	{ "ARP", rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_TCP, 0),
	  0, ETH_P_ARP, 4, 5, IPPROTO_TCP, 5, 0, 0 },
};

static void rx_hdr_case_desc(const struct rx_hdr_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rx_hdr, rx_hdr_cases, rx_hdr_case_desc);

static void rx_hdr_len_test(struct kunit *test)
{
	const struct rx_hdr_case *c = test->param_value;
	u32 avail = c->avail ?: 128, off = ETH_HLEN;
	u8 frame[128] = {}, *cut;
	__be16 *type = (__be16 *)&frame[12];

	if (c->vlan_proto) {
		*type = htons(c->vlan_proto);
		type = (__be16 *)&frame[16];
		off += VLAN_HLEN;
	}
	*type = htons(c->ethertype);
	if (c->ethertype == ETH_P_IP) {
		struct iphdr *iph = (struct iphdr *)&frame[off];

		iph->version = c->ip_version;
		iph->ihl = c->ihl;
		iph->protocol = c->proto;
		off += c->ihl * 4;
	} else if (c->ethertype == ETH_P_IPV6) {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)&frame[off];

		ip6h->version = c->ip_version;
		ip6h->nexthdr = c->proto;
		off += sizeof(*ip6h);
	}
	if (c->proto == IPPROTO_TCP)
		((struct tcphdr *)&frame[off])->doff = c->doff;

	/* In a buffer of @avail bytes: a read past it is KASAN's report. */
	cut = kunit_kmalloc(test, avail, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, cut);
	memcpy(cut, frame, avail);
	KUNIT_EXPECT_EQ(test, cxen_rx_hdr_len(cut, avail, c->flags), c->want);
}

/*
 * cxen_rx_lro_gso(): a merged frame becomes a GSO packet of the sender's
 * MSS only when its headers agree with the CQE: TCP over IPv4 (no
 * options) or IPv6, a tag allowed, the IP length the frame's, two
 * segments or more, a payload byte per segment, checksums verified;
 * wherever the headers lie (all in the head, or partly in the first frag,
 * as a striding frame from a page's last bytes has them).
 */
struct rx_lro_case {
	const char *what;
	u32 flags;
	bool v6;
	bool vlan;
	u8 ihl;		/* IPv4 header words (5) */
	int iplen_off;	/* added to the IP length field */
	u32 payload;
	u32 segs;
	int want;	/* 0: gso_size below, else the error */
	u32 gso_size;
	u32 linear;	/* 0: all in the head, else bytes in it (the rest a frag) */
};

#define TCP4L	rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_TCP, L3OK | L4OK)
#define TCP6L	rx_flags(CXEN_CQE_L3_IPV6, CXEN_CQE_L4_TCP, L4OK)

static const struct rx_lro_case rx_lro_cases[] = {
	{ "IPv4, 3 x 1448", TCP4L, false, false, 5, 0, 4344, 3, 0, 1448 },
	{ "IPv6, 4000 in 3", TCP6L, true, false, 5, 0, 4000, 3, 0, 1334 },
	{ "802.1Q, IPv4, 2 x 1000", TCP4L, false, true, 5, 0, 2000, 2, 0, 1000 },
	{ "255 one-byte segments", TCP4L, false, false, 5, 0, 255, 255, 0, 1 },
	{ "one segment", TCP4L, false, false, 5, 0, 1448, 1, -EINVAL, 0 },
	{ "no segment", TCP4L, false, false, 5, 0, 1448, 0, -EINVAL, 0 },
	{ "more segments than bytes", TCP4L, false, false, 5, 0, 2, 3, -EINVAL, 0 },
	{ "IP length short", TCP4L, false, false, 5, -1, 4344, 3, -EINVAL, 0 },
	{ "IP length long", TCP6L, true, false, 5, 1, 4344, 3, -EINVAL, 0 },
	{ "IPv4 options", TCP4L, false, false, 6, 0, 4344, 3, -EINVAL, 0 },
	{ "UDP", rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_UDP, L3OK | L4OK),
	  false, false, 5, 0, 4344, 3, -EINVAL, 0 },
	{ "checksum not verified", rx_flags(CXEN_CQE_L3_IPV4, CXEN_CQE_L4_TCP, L3OK),
	  false, false, 5, 0, 4344, 3, -EINVAL, 0 },
	{ "CQE IPv6, frame IPv4", TCP6L, false, false, 5, 0, 4344, 3, -EINVAL, 0 },
	/* A striding frame from a page's last bytes: headers in two places. */
	{ "IPv4, 14 header bytes in the head", TCP4L, false, false, 5, 0, 4344, 3,
	  0, 1448, 14 },
	{ "802.1Q, IPv6, 50 bytes in the head", TCP6L, true, true, 5, 0, 4000, 3,
	  0, 1334, 50 },
	{ "IPv4 options, split", TCP4L, false, false, 6, 0, 4344, 3, -EINVAL, 0, 20 },
};

static void rx_lro_case_desc(const struct rx_lro_case *c, char *desc)
{
	strscpy(desc, c->what, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(rx_lro, rx_lro_cases, rx_lro_case_desc);

static void rx_lro_gso_test(struct kunit *test)
{
	const struct rx_lro_case *c = test->param_value;
	u32 l3 = c->v6 ? sizeof(struct ipv6hdr) : c->ihl * 4, off = 0;
	u32 len = (c->vlan ? VLAN_HLEN : 0) + l3 + 20 + c->payload;
	struct sk_buff *skb = alloc_skb(len, GFP_KERNEL);
	struct tcphdr *th;
	u8 *p;

	KUNIT_ASSERT_NOT_NULL(test, skb);
	p = skb_put_zero(skb, len);
	/* As after eth_type_trans(): data at what follows the MAC header. */
	skb->protocol = htons(c->v6 ? ETH_P_IPV6 : ETH_P_IP);
	if (c->vlan) {
		struct vlan_hdr *vh = (struct vlan_hdr *)p;

		vh->h_vlan_encapsulated_proto = skb->protocol;
		skb->protocol = htons(ETH_P_8021Q);
		off = VLAN_HLEN;
	}
	if (c->v6) {
		struct ipv6hdr *ip6h = (struct ipv6hdr *)(p + off);

		ip6h->version = 6;
		ip6h->nexthdr = IPPROTO_TCP;
		ip6h->payload_len = htons(20 + c->payload + c->iplen_off);
	} else {
		struct iphdr *iph = (struct iphdr *)(p + off);

		iph->version = 4;
		iph->ihl = c->ihl;
		iph->protocol = IPPROTO_TCP;
		iph->tot_len = htons(l3 + 20 + c->payload + c->iplen_off);
	}
	th = (struct tcphdr *)(p + off + l3);
	th->doff = 5;
	if (c->linear) {
		struct page *page = alloc_pages(GFP_KERNEL | __GFP_COMP, 1);
		u32 rest = len - c->linear;

		/* The frame's bytes past @linear move to an 8 KB frag. */
		KUNIT_ASSERT_NOT_NULL(test, page);
		memcpy(page_address(page), p + c->linear, rest);
		skb_trim(skb, c->linear);
		skb_add_rx_frag(skb, 0, page, 0, rest, 2 * PAGE_SIZE);
		KUNIT_ASSERT_EQ(test, skb_headlen(skb), c->linear);
	}

	KUNIT_EXPECT_EQ(test, cxen_rx_lro_gso(skb, c->flags, c->segs), c->want);
	if (!c->want) {
		KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_size, c->gso_size);
		KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_segs, c->segs);
		KUNIT_EXPECT_EQ(test, skb_shinfo(skb)->gso_type,
				c->v6 ? SKB_GSO_TCPV6 : SKB_GSO_TCPV4);
	} else {
		KUNIT_EXPECT_FALSE(test, skb_is_gso(skb));
	}
	kfree_skb(skb);
}

static struct kunit_case cxen_rx_cases[] = {
	KUNIT_CASE_PARAM(rx_csum_ok_test, rx_csum_gen_params),
	KUNIT_CASE_PARAM(rx_xdp_rss_type_test, rx_rss_gen_params),
	KUNIT_CASE_PARAM(rx_hdr_len_test, rx_hdr_gen_params),
	KUNIT_CASE_PARAM(rx_lro_gso_test, rx_lro_gen_params),
	KUNIT_CASE(rx_queues_only_test),
	KUNIT_CASE(rx_queues_unchanged_test),
	{}
};

static struct kunit_suite cxen_rx_suite = {
	.name = "cxen_rx",
	.test_cases = cxen_rx_cases,
};

kunit_test_suite(cxen_rx_suite);
