// SPDX-License-Identifier: GPL-2.0
/*
 * cxen XDP test program for xdp-loader (tests/integration/xdp.sh): counts
 * the frames it sees and passes them, with frags support. Nothing here
 * changes the packet through a helper: the dispatcher of libxdp 1.3
 * (Debian 12's xdp-tools) refuses, as an extension of its stubs, a
 * program that does (xdp_act adjusts heads and tails).
 */
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u64);
} frames SEC(".maps");

SEC("xdp.frags")
int xdp_count(struct xdp_md *ctx)
{
	__u32 k = 0;
	__u64 *v = bpf_map_lookup_elem(&frames, &k);

	if (v)
		__sync_fetch_and_add(v, 1);
	return XDP_PASS;
}

char _license[] SEC("license") = "GPL";
