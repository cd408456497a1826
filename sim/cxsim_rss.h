/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxsim RSS: the Toeplitz hash and the choice of the fields it covers.
 * Pure functions, checked by KUnit against the Microsoft RSS
 * verification vectors.
 */
#ifndef _CXSIM_RSS_H_
#define _CXSIM_RSS_H_

#include <linux/types.h>

struct cxsim_pkt;

/* Longest hash input: IPv6 source and destination addresses and ports. */
#define CXSIM_RSS_MAX_INPUT	36

u32 cxsim_toeplitz(const u8 *key, u32 key_len, const u8 *data, u32 len);
u32 cxsim_rss_hash(const u8 *key, u32 hash_fields, const u8 *frame,
		   const struct cxsim_pkt *pkt, u8 *hash_type);

#endif /* _CXSIM_RSS_H_ */
