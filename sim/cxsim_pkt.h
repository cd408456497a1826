/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxsim packet functions: header parsing, checksum verification and
 * insertion, VLAN insertion, LSO segmentation. Pure functions over byte
 * buffers (no device state), so KUnit can check them on known packets.
 */
#ifndef _CXSIM_PKT_H_
#define _CXSIM_PKT_H_

#include <linux/types.h>

/**
 * struct cxsim_pkt - what the parser found in a frame
 * @l3_off: offset of the IPv4/IPv6 header (0: not IP)
 * @l4_off: offset of the TCP/UDP header (0: none)
 * @l4_hlen: TCP/UDP header length
 * @l4_len: TCP/UDP header + payload length per the IP header (whole frames)
 * @l3: enum cxen_cqe_l3
 * @l4: enum cxen_cqe_l4
 * @vlan: the frame carries an 802.1Q/802.1ad tag
 * @frag: IP fragment (then @l4 is NONE)
 */
struct cxsim_pkt {
	u16 l3_off;
	u16 l4_off;
	u16 l4_hlen;
	u16 l4_len;
	u8 l3;
	u8 l4;
	bool vlan;
	bool frag;
};

void cxsim_pkt_parse(const u8 *frame, u32 len, struct cxsim_pkt *pkt);
bool cxsim_pkt_l3_csum_ok(const u8 *frame, const struct cxsim_pkt *pkt);
bool cxsim_pkt_l4_csum_ok(const u8 *frame, const struct cxsim_pkt *pkt);
/*
 * Checksums the model itself wrote into a frame (cxsim_pkt_tx_csum(), an
 * LSO segment) and that nothing changed since: the receiving port knows
 * them right without summing the bytes again (cxsim_wire_rx()).
 */
#define CXSIM_CSUM_L3	BIT(0)	/* the IPv4 header checksum */
#define CXSIM_CSUM_L4	BIT(1)	/* the TCP or UDP checksum */

u8 cxsim_pkt_tx_csum(u8 *frame, const struct cxsim_pkt *pkt, bool ip,
		     bool l4);
u8 *cxsim_pkt_vlan_insert(u8 *frame, u16 tci);
bool cxsim_pkt_vlan_tagged(const u8 *frame, u32 len);
bool cxsim_pkt_ctag(const u8 *frame, u32 len);

/**
 * struct cxsim_lso - an LSO (TSO) operation
 * @hdr: template header: Ethernet [+ VLAN] + IPv4/IPv6 + TCP
 * @hdr_len: its length
 * @pkt: the parsed template
 * @mss: payload bytes per segment
 * @payload_len: total payload bytes
 * @nseg: number of segments (at least 1)
 */
struct cxsim_lso {
	const u8 *hdr;
	u32 hdr_len;
	struct cxsim_pkt pkt;
	u32 mss;
	u32 payload_len;
	u32 nseg;
};

int cxsim_lso_init(struct cxsim_lso *lso, const u8 *hdr, u32 hdr_len,
		   u32 mss, u32 payload_len);
u32 cxsim_lso_seg_len(const struct cxsim_lso *lso, u32 i);
u32 cxsim_lso_build(const struct cxsim_lso *lso, u32 i, const u8 *payload,
		    u8 *out);

#endif /* _CXSIM_PKT_H_ */
