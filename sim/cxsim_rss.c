// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim RSS hash (see cxsim_rss.h and Documentation/hw-interface.rst).
 */
#include <linux/bitops.h>
#include <linux/export.h>
#include <linux/string.h>

#include <kunit/visibility.h>

#include "cxen_hw.h"
#include "cxsim_pkt.h"
#include "cxsim_rss.h"

/**
 * cxsim_toeplitz() - the Toeplitz hash of Microsoft RSS
 * @key: secret key
 * @key_len: its length in bytes (at least 4)
 * @data: input, in network byte order
 * @len: its length in bytes
 *
 * For every input bit that is set, XOR in the 32 key bits that start at
 * that bit's position (key bits past @key_len are 0). A 64-bit window
 * holds the key bits from the current input byte's first on, most
 * significant first: bit p of the byte (p = 0 its most significant)
 * takes the window's bits 63 - p down to 32 - p. Only the set bits cost
 * work.
 *
 * Return: the hash.
 */
u32 cxsim_toeplitz(const u8 *key, u32 key_len, const u8 *data, u32 len)
{
	u32 hash = 0, i, k;
	u64 window = 0;
	unsigned long v;

	for (k = 0; k < 8; k++)
		window = window << 8 | (k < key_len ? key[k] : 0);
	for (i = 0; i < len; i++) {
		/* Bit b from the least significant is p = 7 - b. */
		for (v = data[i]; v; v &= v - 1)
			hash ^= (u32)(window >> (25 + __ffs(v)));
		window = window << 8 | (i + 8 < key_len ? key[i + 8] : 0);
	}
	return hash;
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_toeplitz);

/**
 * cxsim_rss_hash() - RSS hash of a received frame
 * @key: the port's CXEN_RSS_KEY_SIZE-byte key
 * @hash_fields: CXEN_RSS_HASH_* of the port
 * @frame: the frame
 * @pkt: its parse result
 * @hash_type: set to the enum cxen_cqe_hash that was computed
 *
 * IPv4 (IPv6) frames are hashed over source and destination address when
 * CXEN_RSS_HASH_IPV4 (_IPV6) is set, plus source and destination port
 * when the frame is TCP (UDP), not a fragment, and CXEN_RSS_HASH_TCP
 * (_UDP) is set. Other frames are not hashed: hash 0, type NONE.
 *
 * Return: the hash.
 */
u32 cxsim_rss_hash(const u8 *key, u32 hash_fields, const u8 *frame,
		   const struct cxsim_pkt *pkt, u8 *hash_type)
{
	u8 in[CXSIM_RSS_MAX_INPUT];
	u32 alen, len;
	u8 type;

	switch (pkt->l3) {
	case CXEN_CQE_L3_IPV4:
		if (!(hash_fields & CXEN_RSS_HASH_IPV4))
			goto none;
		alen = 4;
		memcpy(in, frame + pkt->l3_off + 12, 2 * alen);
		type = CXEN_CQE_HASH_IPV4;
		break;
	case CXEN_CQE_L3_IPV6:
		if (!(hash_fields & CXEN_RSS_HASH_IPV6))
			goto none;
		alen = 16;
		memcpy(in, frame + pkt->l3_off + 8, 2 * alen);
		type = CXEN_CQE_HASH_IPV6;
		break;
	default:
		goto none;
	}
	len = 2 * alen;

	if ((pkt->l4 == CXEN_CQE_L4_TCP && hash_fields & CXEN_RSS_HASH_TCP) ||
	    (pkt->l4 == CXEN_CQE_L4_UDP && hash_fields & CXEN_RSS_HASH_UDP)) {
		memcpy(in + len, frame + pkt->l4_off, 4);
		len += 4;
		/* IPV4_TCP = IPV4 + 1, IPV4_UDP = IPV4 + 2, same for IPv6 */
		type += pkt->l4 == CXEN_CQE_L4_TCP ? 1 : 2;
	}

	*hash_type = type;
	return cxsim_toeplitz(key, CXEN_RSS_KEY_SIZE, in, len);
none:
	*hash_type = CXEN_CQE_HASH_NONE;
	return 0;
}
EXPORT_SYMBOL_IF_KUNIT(cxsim_rss_hash);
