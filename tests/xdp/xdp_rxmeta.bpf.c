// SPDX-License-Identifier: GPL-2.0
/*
 * cxen XDP test program for the RX metadata kfuncs (tests/integration/
 * xdp.sh): for every UDP frame to port cfg[0] it asks the driver for the
 * frame's RSS hash and stripped VLAN tag and keeps the answers of the
 * last one; every frame is passed. Loaded bound to the port
 * (BPF_F_XDP_DEV_BOUND_ONLY, tests/xdp/xdp_rxmeta_load.c): the kfuncs are
 * the driver's xdp_metadata_ops.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/in.h>
#include <linux/ip.h>
#include <linux/udp.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

/* As the kernel declares them (net/core/xdp.c, include/net/xdp.h): libbpf
 * checks the prototypes against the kernel's BTF, an enum for an enum.
 */
enum xdp_rss_hash_type {
	XDP_RSS_TYPE_L4_IPV4_UDP = 41,
};

extern int bpf_xdp_metadata_rx_hash(const struct xdp_md *ctx, __u32 *hash,
				    enum xdp_rss_hash_type *rss_type) __ksym;
extern int bpf_xdp_metadata_rx_vlan_tag(const struct xdp_md *ctx,
					__be16 *vlan_proto,
					__u16 *vlan_tci) __ksym;

/* What the last matching frame got: the slots of meta[] (u64 each). */
#define M_SEEN		0	/* matching frames */
#define M_HASH_ERR	1	/* rx_hash's return (0 or -errno) */
#define M_HASH		2
#define M_HASH_TYPE	3
#define M_VLAN_ERR	4	/* rx_vlan_tag's return */
#define M_VLAN_PROTO	5	/* host order */
#define M_VLAN_TCI	6
#define M_MAX		7

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} cfg SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, M_MAX);
	__type(key, __u32);
	__type(value, __s64);
} meta SEC(".maps");

static void put(__u32 k, __s64 v)
{
	__s64 *p = bpf_map_lookup_elem(&meta, &k);

	if (p)
		*p = v;
}

SEC("xdp.frags")
int xdp_rxmeta(struct xdp_md *ctx)
{
	void *data_end = (void *)(long)ctx->data_end;
	void *data = (void *)(long)ctx->data;
	struct ethhdr *eth = data;
	enum xdp_rss_hash_type type = 0;
	__u32 hash = 0, k = 0, *port;
	__be16 proto = 0;
	struct udphdr *udp;
	struct iphdr *ip;
	__u16 tci = 0;
	__s64 *seen;
	__be16 l3;
	int err;

	if ((void *)(eth + 1) > data_end)
		return XDP_PASS;
	l3 = eth->h_proto;
	ip = (void *)(eth + 1);
	/* A tag the port left in the frame (rx-vlan-offload off). */
	if (l3 == bpf_htons(ETH_P_8021Q)) {
		if ((void *)ip + 4 > data_end)
			return XDP_PASS;
		l3 = *(__be16 *)((void *)ip + 2);
		ip = (void *)ip + 4;
	}
	udp = (void *)(ip + 1);
	if ((void *)(udp + 1) > data_end || l3 != bpf_htons(ETH_P_IP) ||
	    ip->ihl != 5 || ip->protocol != IPPROTO_UDP)
		return XDP_PASS;
	port = bpf_map_lookup_elem(&cfg, &k);
	if (!port || udp->dest != bpf_htons(*port))
		return XDP_PASS;

	err = bpf_xdp_metadata_rx_hash(ctx, &hash, &type);
	put(M_HASH_ERR, err);
	put(M_HASH, hash);
	put(M_HASH_TYPE, type);
	err = bpf_xdp_metadata_rx_vlan_tag(ctx, &proto, &tci);
	put(M_VLAN_ERR, err);
	put(M_VLAN_PROTO, bpf_ntohs(proto));
	put(M_VLAN_TCI, tci);
	k = M_SEEN;
	seen = bpf_map_lookup_elem(&meta, &k);
	if (seen)
		__sync_fetch_and_add(seen, 1);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
