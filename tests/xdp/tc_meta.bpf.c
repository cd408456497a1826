// SPDX-License-Identifier: GPL-2.0
/*
 * cxen XDP metadata test (tests/integration/xdp.sh), tc ingress: for a
 * frame of ethertype ETH_P_META, the 4 bytes of XDP metadata the driver
 * handed to the skb (skb_metadata_set()) are written into payload bytes
 * 4..7, where the receiving packet socket (bound to ETH_P_META, so after
 * tc ingress) checks them against bytes 0..3 XOR META_XOR. Without
 * metadata the bytes are left alone and the check fails. Attached as a
 * tcx link (xdp-frames.py tcx): the debug kernel has no sch_ingress.
 */
#include <linux/bpf.h>
#include <linux/if_ether.h>
#include <linux/pkt_cls.h>
#include <bpf/bpf_endian.h>
#include <bpf/bpf_helpers.h>

#include "xdp_test.h"

SEC("tc")
int tc_meta(struct __sk_buff *skb)
{
	void *data = (void *)(long)skb->data;
	void *meta = (void *)(long)skb->data_meta;
	__u32 *m = meta, v;

	if (skb->protocol != bpf_htons(ETH_P_META))
		return TC_ACT_OK;
	if ((void *)(m + 1) > data)
		return TC_ACT_OK;
	/* Helpers take no packet pointer: through the stack. */
	v = *m;
	bpf_skb_store_bytes(skb, ETH_HLEN + 4, &v, sizeof(v), 0);
	return TC_ACT_OK;
}

char _license[] SEC("license") = "GPL";
