// SPDX-License-Identifier: GPL-2.0
/*
 * cxen XDP test program (tests/integration/xdp.sh): a verdict chosen at
 * run time for the test's frames, counted; every other frame passes.
 *
 * Built twice (tests/xdp/Makefile): xdp_act.o in SEC("xdp"), without
 * frags support, and xdp_act_frags.o in SEC("xdp.frags") (-DCXEN_FRAGS),
 * which sees frames larger than one buffer as multi-buffer xdp_buffs.
 *
 * The test's frames are IPv4/UDP to port cfg[CFG_PORT]; each gets
 * cfg[CFG_ACT]:
 *
 *   XDP_PASS, XDP_DROP, XDP_ABORTED  as they are;
 *   XDP_TX        sent back: Ethernet and IP addresses and UDP ports
 *                 swapped (no checksum changes: the sums are symmetric);
 *   XDP_REDIRECT  to slot 0 of the devmap tx_port, with the UDP
 *                 destination port rewritten to cfg[CFG_NEWPORT] (checksum
 *                 0, none, as IPv4 allows), so that a frame that comes
 *                 back to this program is not taken again.
 *
 * With cfg[CFG_BLACKHOLE] (bench/xdp_bench.py), frames sent or redirected
 * go to BLACKHOLE_MAC instead: the receiving port's filter drops them,
 * and no stack downstream is part of the measurement.
 *
 * Ethertypes 0x88b5..0x88b8 (IEEE local experimental) test the buffer
 * edits an skb must show after XDP_PASS:
 *
 *   0x88b5  the frame carries another Ethernet frame after its header:
 *           bpf_xdp_adjust_head(+14) strips the outer header
 *   0x88b6  bpf_xdp_adjust_tail(-TAIL_LEN): the last 16 bytes go
 *   0x88b7  bpf_xdp_adjust_tail(+TAIL_LEN), the new bytes TAIL_MARK
 *           (bpf_xdp_store_bytes(): in a frag for a multi-buffer frame)
 *   0x88b8  bpf_xdp_adjust_meta(-4): the metadata is the frame's first
 *           4 payload bytes XOR META_XOR, for tc_meta.bpf.c to check
 *
 * stats[]: frames seen by kind, to tell the test's frames from whatever
 * else the port receives (ND, ARP).
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp_test.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, CFG_MAX);
	__type(key, __u32);
	__type(value, __u32);
} cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, ST_MAX);
	__type(key, __u32);
	__type(value, __u64);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_DEVMAP);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} tx_port SEC(".maps");

static __always_inline __u32 cfg_get(__u32 k)
{
	__u32 *v = bpf_map_lookup_elem(&cfg, &k);

	return v ? *v : 0;
}

static __always_inline void count(__u32 k)
{
	__u64 *v = bpf_map_lookup_elem(&stats, &k);

	if (v)
		__sync_fetch_and_add(v, 1);
}

static __always_inline void swap_bytes(__u8 *a, __u8 *b, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		__u8 t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

/* The test's UDP frames: the configured verdict. */
static __always_inline void blackhole(struct ethhdr *eth)
{
	static const __u8 mac[ETH_ALEN] = BLACKHOLE_MAC;
	int i;

	if (!cfg_get(CFG_BLACKHOLE))
		return;
	for (i = 0; i < ETH_ALEN; i++)
		eth->h_dest[i] = mac[i];
}

static __always_inline int udp_frame(struct xdp_md *ctx, struct ethhdr *eth,
				     struct iphdr *ip, struct udphdr *udp)
{
	__u32 act = cfg_get(CFG_ACT);
	__be32 addr;
	__be16 port;

	count(ST_TEST);
	switch (act) {
	case XDP_TX:
		swap_bytes(eth->h_dest, eth->h_source, ETH_ALEN);
		addr = ip->saddr;
		ip->saddr = ip->daddr;
		ip->daddr = addr;
		port = udp->source;
		udp->source = udp->dest;
		udp->dest = port;
		blackhole(eth);
		return XDP_TX;
	case XDP_REDIRECT:
		udp->dest = bpf_htons(cfg_get(CFG_NEWPORT));
		udp->check = 0;
		blackhole(eth);
		return bpf_redirect_map(&tx_port, 0, 0);
	case XDP_PASS:
	case XDP_DROP:
	case XDP_ABORTED:
		return act;
	}
	return XDP_ABORTED;
}

/* The edits of the experimental ethertypes. */
static __always_inline int edit_frame(struct xdp_md *ctx, __u16 proto)
{
	static const char mark[TAIL_LEN] = TAIL_MARK;
	void *data, *data_end, *meta;
	__u32 len, *m, *p;

	switch (proto) {
	case ETH_P_HEAD:
		count(ST_HEAD);
		if (bpf_xdp_adjust_head(ctx, ETH_HLEN))
			return XDP_ABORTED;
		return XDP_PASS;
	case ETH_P_TAIL_SHRINK:
		count(ST_TAIL_SHRINK);
		if (bpf_xdp_adjust_tail(ctx, -TAIL_LEN))
			return XDP_ABORTED;
		return XDP_PASS;
	case ETH_P_TAIL_GROW:
		count(ST_TAIL_GROW);
		len = bpf_xdp_get_buff_len(ctx);
		if (bpf_xdp_adjust_tail(ctx, TAIL_LEN))
			return XDP_ABORTED;
		if (len > 0xffff || bpf_xdp_store_bytes(ctx, len, (void *)mark,
							TAIL_LEN))
			return XDP_ABORTED;
		return XDP_PASS;
	case ETH_P_META:
		count(ST_META);
		if (bpf_xdp_adjust_meta(ctx, -(int)sizeof(__u32)))
			return XDP_ABORTED;
		data = (void *)(long)ctx->data;
		data_end = (void *)(long)ctx->data_end;
		meta = (void *)(long)ctx->data_meta;
		m = meta;
		p = data + ETH_HLEN;
		if ((void *)(m + 1) > data || (void *)(p + 1) > data_end)
			return XDP_ABORTED;
		*m = *p ^ META_XOR;
		return XDP_PASS;
	}
	count(ST_OTHER);
	return XDP_PASS;
}

#ifdef CXEN_FRAGS
SEC("xdp.frags")
#else
SEC("xdp")
#endif
int xdp_act(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	struct udphdr *udp;
	struct iphdr *ip;

	if ((void *)(eth + 1) > data_end) {
		count(ST_OTHER);
		return XDP_PASS;
	}
	if (eth->h_proto != bpf_htons(ETH_P_IP))
		return edit_frame(ctx, bpf_ntohs(eth->h_proto));
	ip = (void *)(eth + 1);
	if ((void *)(ip + 1) > data_end || ip->ihl != 5 ||
	    ip->protocol != IPPROTO_UDP) {
		count(ST_OTHER);
		return XDP_PASS;
	}
	udp = (void *)(ip + 1);
	if ((void *)(udp + 1) > data_end ||
	    udp->dest != bpf_htons(cfg_get(CFG_PORT))) {
		count(ST_OTHER);
		return XDP_PASS;
	}
	return udp_frame(ctx, eth, ip, udp);
}

char _license[] SEC("license") = "GPL";
