// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests of cxsim's pure functions: the Toeplitz RSS hash against
 * the Microsoft RSS verification vectors, header parsing, checksum
 * verification and insertion, VLAN insertion and LSO segmentation of
 * known packets. The expected checksums were computed independently of
 * this code (RFC 1071 sums over the same bytes).
 *
 * Built as cxsim_kunit.ko against a kernel with KUnit; it uses symbols
 * cxsim.ko exports with EXPORT_SYMBOL_IF_KUNIT(): load cxsim.ko first.
 */
#include <kunit/test.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/ipv6.h>
#include <linux/module.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <net/ipv6.h>

#include "cxen_hw.h"
#include "cxsim_pkt.h"
#include "cxsim_rss.h"

/* ------------------------------------------------------------------ */
/* Frame construction                                                  */
/* ------------------------------------------------------------------ */

static const u8 test_macs[2 * ETH_ALEN] = {
	0x02, 0x43, 0x58, 0x45, 0x00, 0x01,	/* destination: port 1 */
	0x02, 0x43, 0x58, 0x45, 0x00, 0x00,	/* source: port 0 */
};

static const u8 src6[16] = { 0xfd, 0x00, 0x00, 0xc0, [15] = 1 };
static const u8 dst6[16] = { 0xfd, 0x00, 0x00, 0xc0, [15] = 2 };

static void fill(u8 *p, u32 n, u8 a, u8 b)
{
	u32 i;

	for (i = 0; i < n; i++)
		p[i] = i * a + b;
}

static u32 put_eth(u8 *f, u16 proto)
{
	memcpy(f, test_macs, sizeof(test_macs));
	put_unaligned_be16(proto, f + 12);
	return ETH_HLEN;
}

/* IPv4 header, DF, TTL 64, checksum 0. */
static u32 put_ip4(u8 *p, u16 tot, u16 id, u8 proto, const u8 *s,
		   const u8 *d)
{
	memset(p, 0, 20);
	p[0] = 0x45;
	put_unaligned_be16(tot, p + 2);
	put_unaligned_be16(id, p + 4);
	put_unaligned_be16(0x4000, p + 6);
	p[8] = 64;
	p[9] = proto;
	memcpy(p + 12, s, 4);
	memcpy(p + 16, d, 4);
	return 20;
}

static u32 put_ip6(u8 *p, u16 plen, u8 nh, const u8 *s, const u8 *d)
{
	memset(p, 0, 40);
	p[0] = 0x60;
	put_unaligned_be16(plen, p + 4);
	p[6] = nh;
	p[7] = 64;
	memcpy(p + 8, s, 16);
	memcpy(p + 24, d, 16);
	return 40;
}

/* TCP header, doff 5, ack 0x0a0b0c0d, window 502, checksum 0. */
static u32 put_tcp(u8 *p, u16 sport, u16 dport, u32 seq, u8 flags)
{
	memset(p, 0, 20);
	put_unaligned_be16(sport, p);
	put_unaligned_be16(dport, p + 2);
	put_unaligned_be32(seq, p + 4);
	put_unaligned_be32(0x0a0b0c0d, p + 8);
	p[12] = 5 << 4;
	p[13] = flags;
	put_unaligned_be16(502, p + 14);
	return 20;
}

static u32 put_udp(u8 *p, u16 sport, u16 dport, u16 len)
{
	put_unaligned_be16(sport, p);
	put_unaligned_be16(dport, p + 2);
	put_unaligned_be16(len, p + 4);
	put_unaligned_be16(0, p + 6);
	return 8;
}

static const u8 src4[4] = { 192, 0, 2, 1 };
static const u8 dst4[4] = { 192, 0, 2, 2 };

/* Frame A: IPv4/TCP, 37 bytes of payload; 91 bytes, checksums 0. */
static u32 frame_a(u8 *f)
{
	u32 off = put_eth(f, ETH_P_IP);

	off += put_ip4(f + off, 20 + 20 + 37, 0x1234, IPPROTO_TCP,
		       src4, dst4);
	off += put_tcp(f + off, 40000, 5201, 0x01020304, 0x18);
	fill(f + off, 37, 7, 3);
	return off + 37;
}

#define FRAME_A_IP_CSUM		0xa473
#define FRAME_A_TCP_CSUM	0xc2e2

/* Frame B: IPv6/UDP, 20 bytes of payload; 82 bytes, checksum 0. */
static u32 frame_b(u8 *f)
{
	u32 off = put_eth(f, ETH_P_IPV6);

	off += put_ip6(f + off, 8 + 20, IPPROTO_UDP, src6, dst6);
	off += put_udp(f + off, 5353, 9999, 8 + 20);
	fill(f + off, 20, 5, 1);
	return off + 20;
}

#define FRAME_B_UDP_CSUM	0xfa39

/* ------------------------------------------------------------------ */
/* RSS                                                                 */
/* ------------------------------------------------------------------ */

static const u8 ms_key[CXEN_RSS_KEY_SIZE] = {
	0x6d, 0x5a, 0x56, 0xda, 0x25, 0x5b, 0x0e, 0xc2,
	0x41, 0x67, 0x25, 0x3d, 0x43, 0xa3, 0x8f, 0xb0,
	0xd0, 0xca, 0x2b, 0xcb, 0xae, 0x7b, 0x30, 0xb4,
	0x77, 0xcb, 0x2d, 0xa3, 0x80, 0x30, 0xf2, 0x0c,
	0x6a, 0x42, 0xb7, 0x3b, 0xbe, 0xac, 0x01, 0xfa,
};

struct rss_vec4 {
	u8 dst[4];
	u16 dport;
	u8 src[4];
	u16 sport;
	u32 ip;
	u32 tcp;
};

/* "Verifying the RSS Hash Calculation", Microsoft, IPv4 table */
static const struct rss_vec4 rss_v4[] = {
	{ { 161, 142, 100, 80 }, 1766, { 66, 9, 149, 187 }, 2794,
	  0x323e8fc2, 0x51ccc178 },
	{ { 65, 69, 140, 83 }, 4739, { 199, 92, 111, 2 }, 14230,
	  0xd718262a, 0xc626b0ea },
	{ { 12, 22, 207, 184 }, 38024, { 24, 19, 198, 95 }, 12898,
	  0xd2d0a5de, 0x5c2b394a },
	{ { 209, 142, 163, 6 }, 2217, { 38, 27, 205, 30 }, 48228,
	  0x82989176, 0xafc7327f },
	{ { 202, 188, 127, 2 }, 1303, { 153, 39, 163, 191 }, 44251,
	  0x5d1809c5, 0x10e828a2 },
};

struct rss_vec6 {
	u8 dst[16];
	u16 dport;
	u8 src[16];
	u16 sport;
	u32 ip;
	u32 tcp;
};

/* The same document, IPv6 table */
static const struct rss_vec6 rss_v6[] = {
	{ { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x00, 0x03, [15] = 0x01 },
	  1766,
	  { 0x3f, 0xfe, 0x25, 0x01, 0x02, 0x00, 0x1f, 0xff, [15] = 0x07 },
	  2794, 0x2cc18cd5, 0x40207d3d },
	{ { 0xff, 0x02, [15] = 0x01 }, 4739,
	  { 0x3f, 0xfe, 0x05, 0x01, 0x00, 0x08, 0x00, 0x00,
	    0x02, 0x60, 0x97, 0xff, 0xfe, 0x40, 0xef, 0xab },
	  14230, 0x0f0c461c, 0xdde51bbf },
	{ { 0xfe, 0x80, 0, 0, 0, 0, 0, 0,
	    0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf }, 38024,
	  { 0x3f, 0xfe, 0x19, 0x00, 0x45, 0x45, 0x00, 0x03,
	    0x02, 0x00, 0xf8, 0xff, 0xfe, 0x21, 0x67, 0xcf },
	  44251, 0x4b61e985, 0x02d1feef },
};

static void rss_toeplitz_raw(struct kunit *test)
{
	u8 in[CXSIM_RSS_MAX_INPUT];
	int i;

	for (i = 0; i < ARRAY_SIZE(rss_v4); i++) {
		const struct rss_vec4 *v = &rss_v4[i];

		memcpy(in, v->src, 4);
		memcpy(in + 4, v->dst, 4);
		put_unaligned_be16(v->sport, in + 8);
		put_unaligned_be16(v->dport, in + 10);
		KUNIT_EXPECT_EQ(test, cxsim_toeplitz(ms_key, sizeof(ms_key),
						     in, 8), v->ip);
		KUNIT_EXPECT_EQ(test, cxsim_toeplitz(ms_key, sizeof(ms_key),
						     in, 12), v->tcp);
	}
	for (i = 0; i < ARRAY_SIZE(rss_v6); i++) {
		const struct rss_vec6 *v = &rss_v6[i];

		memcpy(in, v->src, 16);
		memcpy(in + 16, v->dst, 16);
		put_unaligned_be16(v->sport, in + 32);
		put_unaligned_be16(v->dport, in + 34);
		KUNIT_EXPECT_EQ(test, cxsim_toeplitz(ms_key, sizeof(ms_key),
						     in, 32), v->ip);
		KUNIT_EXPECT_EQ(test, cxsim_toeplitz(ms_key, sizeof(ms_key),
						     in, 36), v->tcp);
	}
}

static const u32 all_fields = CXEN_RSS_HASH_IPV4 | CXEN_RSS_HASH_IPV6 |
			      CXEN_RSS_HASH_TCP | CXEN_RSS_HASH_UDP;

/* The vectors through the frame parser and the field selection. */
static void rss_hash_frames(struct kunit *test)
{
	struct cxsim_pkt pkt;
	u8 f[128], type;
	u32 len, off;
	int i;

	for (i = 0; i < ARRAY_SIZE(rss_v4); i++) {
		const struct rss_vec4 *v = &rss_v4[i];

		off = put_eth(f, ETH_P_IP);
		off += put_ip4(f + off, 40, 1, IPPROTO_TCP, v->src, v->dst);
		len = off + put_tcp(f + off, v->sport, v->dport, 1, 0x10);
		cxsim_pkt_parse(f, len, &pkt);
		KUNIT_EXPECT_EQ(test, cxsim_rss_hash(ms_key, all_fields, f,
						     &pkt, &type), v->tcp);
		KUNIT_EXPECT_EQ(test, type, CXEN_CQE_HASH_IPV4_TCP);
		KUNIT_EXPECT_EQ(test, cxsim_rss_hash(ms_key, CXEN_RSS_HASH_IPV4,
						     f, &pkt, &type), v->ip);
		KUNIT_EXPECT_EQ(test, type, CXEN_CQE_HASH_IPV4);
		/* UDP fields do not apply to a TCP frame */
		KUNIT_EXPECT_EQ(test, cxsim_rss_hash(ms_key, CXEN_RSS_HASH_IPV4 |
						     CXEN_RSS_HASH_UDP, f, &pkt,
						     &type), v->ip);
		KUNIT_EXPECT_EQ(test, type, CXEN_CQE_HASH_IPV4);
		/* IPv4 not enabled: no hash */
		KUNIT_EXPECT_EQ(test, cxsim_rss_hash(ms_key, CXEN_RSS_HASH_IPV6 |
						     CXEN_RSS_HASH_TCP, f, &pkt,
						     &type), 0);
		KUNIT_EXPECT_EQ(test, type, CXEN_CQE_HASH_NONE);
	}
	for (i = 0; i < ARRAY_SIZE(rss_v6); i++) {
		const struct rss_vec6 *v = &rss_v6[i];

		off = put_eth(f, ETH_P_IPV6);
		off += put_ip6(f + off, 8, IPPROTO_UDP, v->src, v->dst);
		len = off + put_udp(f + off, v->sport, v->dport, 8);
		cxsim_pkt_parse(f, len, &pkt);
		/* Same 4-tuple input over UDP: the TCP column's value. */
		KUNIT_EXPECT_EQ(test, cxsim_rss_hash(ms_key, all_fields, f,
						     &pkt, &type), v->tcp);
		KUNIT_EXPECT_EQ(test, type, CXEN_CQE_HASH_IPV6_UDP);
		KUNIT_EXPECT_EQ(test, cxsim_rss_hash(ms_key, CXEN_RSS_HASH_IPV6 |
						     CXEN_RSS_HASH_TCP, f, &pkt,
						     &type), v->ip);
		KUNIT_EXPECT_EQ(test, type, CXEN_CQE_HASH_IPV6);
	}

	/* Not IP: no hash. */
	len = put_eth(f, ETH_P_ARP) + 28;
	memset(f + ETH_HLEN, 0, 28);
	cxsim_pkt_parse(f, len, &pkt);
	KUNIT_EXPECT_EQ(test, cxsim_rss_hash(ms_key, all_fields, f, &pkt,
					     &type), 0);
	KUNIT_EXPECT_EQ(test, type, CXEN_CQE_HASH_NONE);
}

/* ------------------------------------------------------------------ */
/* Parsing                                                             */
/* ------------------------------------------------------------------ */

static void pkt_parse(struct kunit *test)
{
	struct cxsim_pkt pkt;
	u8 f[256], t[256];
	u32 len, off;

	len = frame_a(f);
	cxsim_pkt_parse(f, len, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.l3, CXEN_CQE_L3_IPV4);
	KUNIT_EXPECT_EQ(test, pkt.l4, CXEN_CQE_L4_TCP);
	KUNIT_EXPECT_EQ(test, pkt.l3_off, 14);
	KUNIT_EXPECT_EQ(test, pkt.l4_off, 34);
	KUNIT_EXPECT_EQ(test, pkt.l4_hlen, 20);
	KUNIT_EXPECT_EQ(test, pkt.l4_len, 57);
	KUNIT_EXPECT_FALSE(test, pkt.vlan);
	KUNIT_EXPECT_FALSE(test, pkt.frag);

	/* Padding after the IP datagram does not count. */
	memset(f + len, 0, 20);
	cxsim_pkt_parse(f, len + 20, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.l4_len, 57);

	/* Truncated: total length beyond the frame. */
	cxsim_pkt_parse(f, len - 1, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.l3, CXEN_CQE_L3_NONE);
	KUNIT_EXPECT_EQ(test, pkt.l4, CXEN_CQE_L4_NONE);

	/* VLAN tagged */
	memcpy(t + VLAN_HLEN, f, len);
	len = cxsim_pkt_vlan_insert(t + VLAN_HLEN, 0x2064) == t ? len + 4 : 0;
	KUNIT_ASSERT_EQ(test, len, 95);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(t + 12), ETH_P_8021Q);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(t + 14), 0x2064);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(t + 16), ETH_P_IP);
	KUNIT_EXPECT_TRUE(test, cxsim_pkt_vlan_tagged(t, len));
	KUNIT_EXPECT_TRUE(test, cxsim_pkt_ctag(t, len));
	KUNIT_EXPECT_FALSE(test, cxsim_pkt_ctag(t, VLAN_ETH_HLEN - 1));
	cxsim_pkt_parse(t, len, &pkt);
	KUNIT_EXPECT_TRUE(test, pkt.vlan);
	KUNIT_EXPECT_EQ(test, pkt.l3_off, 18);
	KUNIT_EXPECT_EQ(test, pkt.l4_off, 38);
	KUNIT_EXPECT_EQ(test, pkt.l4, CXEN_CQE_L4_TCP);
	/* An 802.1ad tag is a VLAN tag but not the one VLAN strip removes. */
	put_unaligned_be16(ETH_P_8021AD, t + 12);
	KUNIT_EXPECT_TRUE(test, cxsim_pkt_vlan_tagged(t, len));
	KUNIT_EXPECT_FALSE(test, cxsim_pkt_ctag(t, len));

	/* IPv4 fragment: L3 only */
	len = frame_a(f);
	put_unaligned_be16(0x2000, f + 14 + 6);		/* MF */
	cxsim_pkt_parse(f, len, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.l3, CXEN_CQE_L3_IPV4);
	KUNIT_EXPECT_EQ(test, pkt.l4, CXEN_CQE_L4_NONE);
	KUNIT_EXPECT_TRUE(test, pkt.frag);

	/* IPv6, hop-by-hop options header, then TCP */
	off = put_eth(f, ETH_P_IPV6);
	off += put_ip6(f + off, 8 + 20, NEXTHDR_HOP, src6, dst6);
	memset(f + off, 0, 8);
	f[off] = IPPROTO_TCP;
	off += 8;
	len = off + put_tcp(f + off, 1, 2, 3, 0x10);
	cxsim_pkt_parse(f, len, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.l3, CXEN_CQE_L3_IPV6);
	KUNIT_EXPECT_EQ(test, pkt.l4, CXEN_CQE_L4_TCP);
	KUNIT_EXPECT_EQ(test, pkt.l4_off, 62);
	KUNIT_EXPECT_EQ(test, pkt.l4_len, 20);

	/* IPv6 fragment header */
	f[off - 8] = NEXTHDR_FRAGMENT;
	cxsim_pkt_parse(f, len, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.l3, CXEN_CQE_L3_IPV6);
	KUNIT_EXPECT_EQ(test, pkt.l4, CXEN_CQE_L4_NONE);
	KUNIT_EXPECT_TRUE(test, pkt.frag);

	/* Runt and non-IP */
	cxsim_pkt_parse(f, 13, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.l3, CXEN_CQE_L3_NONE);
	len = put_eth(f, ETH_P_ARP) + 28;
	cxsim_pkt_parse(f, len, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.l3, CXEN_CQE_L3_NONE);
	KUNIT_EXPECT_FALSE(test, cxsim_pkt_vlan_tagged(f, len));
	KUNIT_EXPECT_FALSE(test, cxsim_pkt_ctag(f, len));
}

/* ------------------------------------------------------------------ */
/* Checksums                                                           */
/* ------------------------------------------------------------------ */

static void pkt_csum_ipv4_tcp(struct kunit *test)
{
	struct cxsim_pkt pkt;
	u8 f[128];
	u32 len;

	len = frame_a(f);
	cxsim_pkt_parse(f, len, &pkt);
	KUNIT_EXPECT_FALSE(test, cxsim_pkt_l3_csum_ok(f, &pkt));
	KUNIT_EXPECT_FALSE(test, cxsim_pkt_l4_csum_ok(f, &pkt));

	/* L4 only; it says which it wrote (the receiver trusts those) */
	KUNIT_EXPECT_EQ(test, cxsim_pkt_tx_csum(f, &pkt, false, true),
			CXSIM_CSUM_L4);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(f + 24), 0);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(f + 50), FRAME_A_TCP_CSUM);

	/* Both; whatever the field held before is ignored */
	put_unaligned_be16(0xdead, f + 50);
	KUNIT_EXPECT_EQ(test, cxsim_pkt_tx_csum(f, &pkt, true, true),
			CXSIM_CSUM_L3 | CXSIM_CSUM_L4);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(f + 24), FRAME_A_IP_CSUM);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(f + 50), FRAME_A_TCP_CSUM);
	KUNIT_EXPECT_TRUE(test, cxsim_pkt_l3_csum_ok(f, &pkt));
	KUNIT_EXPECT_TRUE(test, cxsim_pkt_l4_csum_ok(f, &pkt));

	/* One payload bit flipped: L4 bad, L3 still good */
	f[len - 1] ^= 0x10;
	KUNIT_EXPECT_TRUE(test, cxsim_pkt_l3_csum_ok(f, &pkt));
	KUNIT_EXPECT_FALSE(test, cxsim_pkt_l4_csum_ok(f, &pkt));
	/* A header bit flipped: L3 bad */
	f[22] ^= 1;
	KUNIT_EXPECT_FALSE(test, cxsim_pkt_l3_csum_ok(f, &pkt));
}

static void pkt_csum_ipv6_udp(struct kunit *test)
{
	struct cxsim_pkt pkt;
	u8 f[128];
	u32 len;

	len = frame_b(f);
	cxsim_pkt_parse(f, len, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.l3, CXEN_CQE_L3_IPV6);
	KUNIT_EXPECT_EQ(test, pkt.l4, CXEN_CQE_L4_UDP);
	/* UDP over IPv6 must have a checksum */
	KUNIT_EXPECT_FALSE(test, cxsim_pkt_l4_csum_ok(f, &pkt));
	/* IP_CSUM on IPv6 changes nothing */
	KUNIT_EXPECT_EQ(test, cxsim_pkt_tx_csum(f, &pkt, true, true),
			CXSIM_CSUM_L4);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(f + 60), FRAME_B_UDP_CSUM);
	KUNIT_EXPECT_TRUE(test, cxsim_pkt_l4_csum_ok(f, &pkt));
	KUNIT_EXPECT_FALSE(test, cxsim_pkt_l3_csum_ok(f, &pkt));
}

static void pkt_csum_udp4_zero(struct kunit *test)
{
	struct cxsim_pkt pkt;
	u8 f[128];
	u32 off, len;

	off = put_eth(f, ETH_P_IP);
	off += put_ip4(f + off, 20 + 8 + 4, 7, IPPROTO_UDP, src4, dst4);
	off += put_udp(f + off, 1, 2, 12);
	fill(f + off, 4, 0, 0);
	len = off + 4;
	cxsim_pkt_parse(f, len, &pkt);
	/* No checksum (0) over IPv4 counts as verified */
	KUNIT_EXPECT_TRUE(test, cxsim_pkt_l4_csum_ok(f, &pkt));
	cxsim_pkt_tx_csum(f, &pkt, false, true);
	KUNIT_EXPECT_NE(test, get_unaligned_be16(f + 40), 0);
	KUNIT_EXPECT_TRUE(test, cxsim_pkt_l4_csum_ok(f, &pkt));
}

/* ------------------------------------------------------------------ */
/* LSO                                                                 */
/* ------------------------------------------------------------------ */

struct lso_seg_exp {
	u32 len;
	u16 ip_csum;
	u16 tcp_csum;
	u8 flags;
	u32 seq;
};

static void lso_check(struct kunit *test, const u8 *hdr, u32 hdr_len,
		      const u8 *payload, u32 plen, u32 mss, bool v6,
		      const struct lso_seg_exp *exp, u32 nexp)
{
	struct cxsim_pkt pkt;
	struct cxsim_lso lso;
	u32 i, len;
	u8 *out;

	out = kunit_kzalloc(test, 2048, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, out);
	KUNIT_ASSERT_EQ(test, cxsim_lso_init(&lso, hdr, hdr_len, mss, plen),
			0);
	KUNIT_ASSERT_EQ(test, lso.nseg, nexp);
	for (i = 0; i < nexp; i++) {
		KUNIT_EXPECT_EQ(test, cxsim_lso_seg_len(&lso, i), exp[i].len);
		len = cxsim_lso_build(&lso, i, payload, out);
		KUNIT_ASSERT_EQ(test, len, exp[i].len);
		KUNIT_EXPECT_EQ(test, memcmp(out + hdr_len, payload + i * mss,
					     len - hdr_len), 0);
		cxsim_pkt_parse(out, len, &pkt);
		KUNIT_EXPECT_EQ(test, pkt.l4, CXEN_CQE_L4_TCP);
		KUNIT_EXPECT_TRUE(test, cxsim_pkt_l4_csum_ok(out, &pkt));
		KUNIT_EXPECT_EQ(test, get_unaligned_be16(out + pkt.l4_off + 16),
				exp[i].tcp_csum);
		KUNIT_EXPECT_EQ(test, get_unaligned_be32(out + pkt.l4_off + 4),
				exp[i].seq);
		KUNIT_EXPECT_EQ(test, out[pkt.l4_off + 13], exp[i].flags);
		if (v6) {
			KUNIT_EXPECT_EQ(test, get_unaligned_be16(out + 18),
					len - 54);
		} else {
			KUNIT_EXPECT_TRUE(test, cxsim_pkt_l3_csum_ok(out, &pkt));
			KUNIT_EXPECT_EQ(test, get_unaligned_be16(out + 16),
					len - 14);
			KUNIT_EXPECT_EQ(test, get_unaligned_be16(out + 18),
					0x1234 + i);
			KUNIT_EXPECT_EQ(test, get_unaligned_be16(out + 24),
					exp[i].ip_csum);
		}
	}
}

static void lso_ipv4(struct kunit *test)
{
	static const struct lso_seg_exp exp[] = {
		{ 1054, 0xa0b0, 0x8285, 0x90, 0x01020304 },
		{ 1054, 0xa0af, 0xde7c, 0x10, 0x010206ec },
		{ 554, 0xa2a2, 0x1b72, 0x19, 0x01020ad4 },
	};
	u8 hdr[54], *payload;
	u32 off;

	payload = kunit_kzalloc(test, 2500, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, payload);
	fill(payload, 2500, 13, 1);
	/* The template's length and checksum fields are ignored. */
	off = put_eth(hdr, ETH_P_IP);
	off += put_ip4(hdr + off, 0xffff, 0x1234, IPPROTO_TCP, src4, dst4);
	off += put_tcp(hdr + off, 40000, 5201, 0x01020304, 0x99);
	put_unaligned_be16(0xbeef, hdr + 50);
	lso_check(test, hdr, off, payload, 2500, 1000, false, exp,
		  ARRAY_SIZE(exp));
}

static void lso_ipv6(struct kunit *test)
{
	static const struct lso_seg_exp exp[] = {
		{ 1474, 0, 0x8dcc, 0x90, 0xfffffc00 },
		{ 1174, 0, 0xb6c6, 0x19, 0x00000178 },
	};
	u8 hdr[74], *payload;
	u32 off;

	payload = kunit_kzalloc(test, 2500, GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, payload);
	fill(payload, 2500, 13, 1);
	off = put_eth(hdr, ETH_P_IPV6);
	off += put_ip6(hdr + off, 0, IPPROTO_TCP, src6, dst6);
	off += put_tcp(hdr + off, 40000, 5201, 0xfffffc00, 0x99);
	lso_check(test, hdr, off, payload, 2500, 1400, true, exp,
		  ARRAY_SIZE(exp));
}

static void lso_bad_header(struct kunit *test)
{
	struct cxsim_lso lso;
	u8 hdr[64];
	u32 off;

	off = put_eth(hdr, ETH_P_IP);
	off += put_ip4(hdr + off, 0, 1, IPPROTO_TCP, src4, dst4);
	off += put_tcp(hdr + off, 1, 2, 3, 0x10);
	KUNIT_EXPECT_EQ(test, cxsim_lso_init(&lso, hdr, off, 1000, 10), 0);
	KUNIT_EXPECT_EQ(test, lso.nseg, 1);
	KUNIT_EXPECT_EQ(test, cxsim_lso_init(&lso, hdr, off, 1000, 0), 0);
	KUNIT_EXPECT_EQ(test, lso.nseg, 1);
	KUNIT_EXPECT_EQ(test, cxsim_lso_init(&lso, hdr, off, 0, 10), -EINVAL);
	/* header size must end exactly at the end of the TCP header */
	KUNIT_EXPECT_EQ(test, cxsim_lso_init(&lso, hdr, off - 1, 100, 10),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, cxsim_lso_init(&lso, hdr, off + 4, 100, 10),
			-EINVAL);
	/* not TCP */
	hdr[14 + 9] = IPPROTO_UDP;
	KUNIT_EXPECT_EQ(test, cxsim_lso_init(&lso, hdr, off, 100, 10),
			-EINVAL);
	/* not IP */
	put_unaligned_be16(ETH_P_ARP, hdr + 12);
	KUNIT_EXPECT_EQ(test, cxsim_lso_init(&lso, hdr, off, 100, 10),
			-EINVAL);
}

static struct kunit_case cxsim_rss_cases[] = {
	KUNIT_CASE(rss_toeplitz_raw),
	KUNIT_CASE(rss_hash_frames),
	{}
};

static struct kunit_suite cxsim_rss_suite = {
	.name = "cxsim_rss",
	.test_cases = cxsim_rss_cases,
};

static struct kunit_case cxsim_pkt_cases[] = {
	KUNIT_CASE(pkt_parse),
	KUNIT_CASE(pkt_csum_ipv4_tcp),
	KUNIT_CASE(pkt_csum_ipv6_udp),
	KUNIT_CASE(pkt_csum_udp4_zero),
	KUNIT_CASE(lso_ipv4),
	KUNIT_CASE(lso_ipv6),
	KUNIT_CASE(lso_bad_header),
	{}
};

static struct kunit_suite cxsim_pkt_suite = {
	.name = "cxsim_pkt",
	.test_cases = cxsim_pkt_cases,
};

kunit_test_suites(&cxsim_rss_suite, &cxsim_pkt_suite);

MODULE_DESCRIPTION("KUnit tests of the cxsim device model's pure functions");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
