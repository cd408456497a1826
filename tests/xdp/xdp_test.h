/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the XDP test programs (tests/xdp/) and tests/integration/xdp.sh
 * agree on: the map slots and the experimental ethertypes.
 */
#ifndef _CXEN_XDP_TEST_H_
#define _CXEN_XDP_TEST_H_

/* cfg[] of xdp_act: u32 each */
#define CFG_ACT		0	/* verdict for the test's UDP frames */
#define CFG_PORT	1	/* their UDP destination port */
#define CFG_NEWPORT	2	/* XDP_REDIRECT: the port they leave with */
#define CFG_BLACKHOLE	3	/* XDP_TX, XDP_REDIRECT: to BLACKHOLE_MAC */
#define CFG_MAX		4

/* A destination no port accepts: the benchmark's frames die there. */
#define BLACKHOLE_MAC	{ 0x02, 0x00, 0x00, 0x00, 0x00, 0x01 }

/* stats[] of xdp_act: u64 frames seen, by kind */
#define ST_TEST		0	/* UDP to cfg[CFG_PORT] */
#define ST_HEAD		1
#define ST_TAIL_SHRINK	2
#define ST_TAIL_GROW	3
#define ST_META		4
#define ST_OTHER	5	/* passed untouched */
#define ST_MAX		6

#define ETH_P_HEAD		0x88b5
#define ETH_P_TAIL_SHRINK	0x88b6
#define ETH_P_TAIL_GROW		0x88b7
#define ETH_P_META		0x88b8

#define TAIL_LEN	16
#define TAIL_MARK	"cxen-xdp-tail+16"
#define META_XOR	0x5a5a5a5a

#endif /* _CXEN_XDP_TEST_H_ */
