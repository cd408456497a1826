/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxen RX fragment layout: how the buffers of one RX WQE are carved from
 * pages for a given MTU. Pure arithmetic (en_frag.c); the allocation side
 * lives in en_rx.c. Documentation/rx-buffers.rst explains the formula.
 */
#ifndef _CXEN_EN_FRAG_H_
#define _CXEN_EN_FRAG_H_

#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/gfp_types.h>
#include <linux/sizes.h>
#include <linux/types.h>

#include "cxen_hw.h"

/* Largest frame for an L3 MTU: Ethernet header, two VLAN tags, no FCS. */
#define CXEN_FRAME_MAX(mtu)	((mtu) + ETH_HLEN + 2 * VLAN_HLEN)

/**
 * struct cxen_frag_param - input of the fragment layout
 * @mtu: L3 MTU, CXEN_HW_MIN_MTU..CXEN_HW_MAX_MTU
 * @page_size: PAGE_SIZE in the driver; any power of two from 4 KiB to
 *	256 KiB in tests
 * @headroom: bytes before the frame when the skb is built around the
 *	buffer: NET_SKB_PAD + NET_IP_ALIGN, or XDP_PACKET_HEADROOM
 * @tailroom: bytes after the frame for the skb_shared_info when the skb is
 *	built around the buffer: SKB_DATA_ALIGN(sizeof(struct skb_shared_info));
 *	must be a multiple of SMP_CACHE_BYTES
 * @max_frags: data segments per RX WQE, 1..CXEN_HW_RX_MAX_SEGS
 * @xdp: the layout of an RQ that runs an XDP program (@headroom is then
 *	XDP_PACKET_HEADROOM): the first fragment keeps @headroom and
 *	@tailroom also when the frame needs several fragments (the
 *	xdp_buff's head, whose skb_shared_info lists the others), and every
 *	other fragment is a whole page, so that bpf_xdp_adjust_tail() may
 *	grow the last one up to its page's end
 */
struct cxen_frag_param {
	unsigned int mtu;
	unsigned int page_size;
	unsigned int headroom;
	unsigned int tailroom;
	unsigned int max_frags;
	bool xdp;
};

/**
 * struct cxen_frag - one fragment (one data segment) of an RX WQE
 * @offset: where the device writes within the stride: the headroom for a
 *	build_skb fragment, else 0
 * @size: bytes the device may write: the data segment's byte_count
 * @stride: bytes of the buffer this fragment occupies, the truesize it
 *	charges. Fragments of one slot are carved back to back from buffers
 *	of &cxen_frag_layout.alloc_size bytes, alloc_size / stride of them
 *	per buffer, none crossing the buffer's end.
 */
struct cxen_frag {
	u32 offset;
	u32 size;
	u32 stride;
};

/**
 * struct cxen_frag_layout - fragments of one RX WQE
 * @frame_max: largest frame, CXEN_FRAME_MAX(mtu)
 * @alloc_size: bytes of the buffers fragments are carved from: the page
 *	size for the default layout, PAGE_ALIGN(16 KiB) (a compound page on
 *	4 KiB pages) for the mlx4 comparison layouts
 * @nfrags: fragments (data segments) per WQE, 1..max_frags
 * @build_skb: fragment 0 holds headroom + frame + tailroom: the driver
 *	builds the skb (or the xdp_buff) around it with
 *	napi_build_skb(va, stride). Only an XDP layout (@xdp of the
 *	parameters) has further fragments then, attached as page frags.
 * @frag: the fragments, in the order the device fills them
 */
struct cxen_frag_layout {
	u32 frame_max;
	u32 alloc_size;
	u16 nfrags;
	bool build_skb;
	struct cxen_frag frag[CXEN_HW_RX_MAX_SEGS];
};

int cxen_frag_layout(const struct cxen_frag_param *p,
		     struct cxen_frag_layout *l);
unsigned int cxen_frag_count(const struct cxen_frag_layout *l, u32 frame_len);
unsigned int cxen_frag_max_linear_mtu(const struct cxen_frag_param *p);
u32 cxen_frag_truesize(const struct cxen_frag_layout *l, u32 frame_len);

/*
 * RX buffer layouts: the default (page_pool, the layout above), the
 * striding RQ's and, with CONFIG_CXEN_RX_COMPARE, the three mlx4 layouts
 * the benchmark compares the default with (Documentation/rx-buffers.rst).
 * Selected by name: the devlink parameter rx_layout for new ports, an
 * ethtool private flag per port. Their geometry and table are en_frag.c's;
 * each runs on the kind of RQ its entry names (en_rx.h).
 */
enum cxen_rx_layout {
	CXEN_RX_PAGEPOOL,	/* default: cxen_frag_layout() */
#if IS_ENABLED(CONFIG_CXEN_RX_COMPARE)
	CXEN_RX_LEGACY2012,	/* mlx4 of Linux 3.4: map every fragment */
	CXEN_RX_WHOLEPAGE2012,	/* mlx4 of 3.6: 16 KiB pages mapped once */
	CXEN_RX_ONEFRAG2013,	/* mlx4 of 3.11: one 1536-byte fragment a frame */
#endif
	CXEN_RX_STRIDING,	/* the striding RQ (en_rx_stride.c) */
	CXEN_RX_NR_LAYOUTS
};

/* The names cxen_rx_layout_find() knows, for messages to the user. */
#if IS_ENABLED(CONFIG_CXEN_RX_COMPARE)
#define CXEN_RX_LAYOUT_NAMES	"pagepool, legacy2012, wholepage2012, onefrag2013 or striding"
#else
#define CXEN_RX_LAYOUT_NAMES	"pagepool or striding"
#endif

struct cxen_channel;
struct cxen_cqe;
struct cxen_rq;
struct cxen_rx_buf;
struct napi_struct;
struct sk_buff;

/**
 * enum cxen_rx_kind_id - the kind of RQ a layout runs on (en_rx.h)
 * @CXEN_RX_KIND_SG: the scatter-list RQ (en_rx_sg.c)
 * @CXEN_RX_KIND_STRIDE: the striding RQ (en_rx_stride.c)
 * @CXEN_RX_KIND_COMPARE: the scatter-list ring with the comparison
 *	layouts' buffers and receive routine (en_rx_compare.c)
 */
enum cxen_rx_kind_id {
	CXEN_RX_KIND_SG,
	CXEN_RX_KIND_STRIDE,
	CXEN_RX_KIND_COMPARE,
};

/**
 * struct cxen_rx_layout_ops - one RX buffer layout
 * @name: its name for the devlink parameter and the ethtool private flag
 * @layout: computes its fragment layout; same contract as cxen_frag_layout()
 * @kind: the kind of RQ that runs it, chosen once per RQ (en_rx.h)
 * @dev_cap: CXEN_DEV_CAP_* bits the device must have for the layout
 */
struct cxen_rx_layout_ops {
	const char *name;
	int (*layout)(const struct cxen_frag_param *p,
		      struct cxen_frag_layout *l);
	enum cxen_rx_kind_id kind;
	u32 dev_cap;
};

extern const struct cxen_rx_layout_ops
	cxen_rx_layouts[CXEN_RX_NR_LAYOUTS];

int cxen_rx_layout_find(const char *name);

/* The devlink rx_layout value and private flag of the driver's own choice. */
#define CXEN_RX_AUTO_NAME	"auto"

/**
 * struct cxen_rx_pick - what decides a port's RX buffer layout
 * @named: the layout the user named (an ethtool private flag, devlink
 *	rx_layout); CXEN_RX_PAGEPOOL when none is named
 * @automatic: with no layout named, the driver picks one (private flag
 *	and devlink rx_layout "auto", the default)
 * @striding_rq: the device has the striding RQ
 * @xdp: an XDP program is attached
 * @hdr_split: tcp-data-split is on
 * @lro: LRO is on
 * @mtu: the MTU
 * @max_linear_mtu: the largest MTU the default layout builds in place,
 *	one buffer per frame (cxen_frag_max_linear_mtu(), no XDP)
 */
struct cxen_rx_pick {
	enum cxen_rx_layout named;
	bool automatic;
	bool striding_rq;
	bool xdp;
	bool hdr_split;
	bool lro;
	u32 mtu;
	u32 max_linear_mtu;
};

enum cxen_rx_layout cxen_rx_layout_pick(const struct cxen_rx_pick *in);

/*
 * en_frag.c: where the buffers come from. The default layout's RQ takes
 * its pages from a page_pool (cxen_pp_init()), carved by cxen_pp_get()
 * (inline in en_rx.h), whose slow half is cxen_pp_start_page(); the
 * striding RQ has a pool of its own (cxen_rq_pool_create()).
 * cxen_pp_uninit() destroys either, keeping its counters.
 */
int cxen_rq_pool_create(struct cxen_rq *rq, u32 pool_size);
int cxen_pp_init(struct cxen_rq *rq);
int cxen_pp_start_page(struct cxen_rq *rq, unsigned int f, gfp_t gfp);
void cxen_pp_uninit(struct cxen_rq *rq);

/* en_frag.c, the comparison layouts' geometry (CONFIG_CXEN_RX_COMPARE). */
int cxen_frag_layout_legacy2012(const struct cxen_frag_param *p,
				struct cxen_frag_layout *l);
int cxen_frag_layout_wholepage2012(const struct cxen_frag_param *p,
				   struct cxen_frag_layout *l);
int cxen_frag_layout_onefrag2013(const struct cxen_frag_param *p,
				 struct cxen_frag_layout *l);

/**
 * struct cxen_mlx4_rx - how the 2012-2013 receive path takes one frame
 * @copy: bytes copied into the skb's head: the whole frame when it is
 *	small and not for GRO, HEADER_COPY_SIZE when larger and not for GRO,
 *	0 for napi_gro_frags() (GRO pulls the headers)
 * @nfrags: fragments attached to the skb as page frags (0: copied whole)
 * @truesize: what those fragments charge, the sum of their strides
 */
struct cxen_mlx4_rx {
	u32 copy;
	u32 truesize;
	u16 nfrags;
};

void cxen_mlx4_rx_plan(const struct cxen_frag_layout *l, u32 len, bool gro,
		       struct cxen_mlx4_rx *plan);

/*
 * The striding RQ (Documentation/hw-interface.rst "Striding RQ",
 * Documentation/rx-buffers.rst "The striding RQ"): its geometry for an MTU
 * and page size, what a frame charges, and how the driver checks and
 * applies each CQE's stride range. Pure arithmetic, like the fragment
 * layout above (en_frag.c), proven by the KUnit suite cxen_stride
 * (tests/kunit/stride_test.c).
 */

/* A WQE holds at least this many of the largest frames (rx-buffers.rst). */
#define CXEN_STRIDE_WQE_FRAMES	4
/*
 * With LRO a WQE is at least this large: a merged frame of 64 KiB less
 * the pads, as the stack's GSO packets (the device merges up to 64 KiB of
 * IP packet, and never across WQEs).
 */
#define CXEN_STRIDE_LRO_WQE	SZ_64K
/* Smallest headers a split frame can have: Ethernet, IPv4, TCP. */
#define CXEN_SPLIT_MIN_HDR	(ETH_HLEN + 20 + 20)

/**
 * struct cxen_stride_param - input of the striding RQ layout
 * @mtu: L3 MTU, CXEN_HW_MIN_MTU..CXEN_HW_MAX_MTU
 * @page_size: bytes of one page of a WQE: PAGE_SIZE in the driver; any
 *	power of two the device takes (4 KiB..64 KiB) in tests
 * @headroom: bytes the device keeps before every whole frame: 0 to pack
 *	frames (headers copied, or split), NET_SKB_PAD + NET_IP_ALIGN or
 *	XDP_PACKET_HEADROOM to build skbs in place; <= CXEN_HW_MAX_RX_PAD
 * @tailroom: bytes it keeps after it: 0, or
 *	SKB_DATA_ALIGN(sizeof(struct skb_shared_info)); <= CXEN_HW_MAX_RX_PAD
 * @hdr_buf: header/data split: the bytes one header buffer occupies,
 *	which a split frame charges besides its strides
 *	(<= CXEN_HW_MAX_HDR_BUF); 0 without split
 * @lro: the device merges TCP segments into frames of up to
 *	CXEN_STRIDE_LRO_WQE bytes: a WQE holds one (with pads)
 */
struct cxen_stride_param {
	unsigned int mtu;
	unsigned int page_size;
	unsigned int headroom;
	unsigned int tailroom;
	unsigned int hdr_buf;
	bool lro;
};

/**
 * struct cxen_stride_layout - geometry of a striding RQ
 * @frame_max: largest frame, CXEN_FRAME_MAX(mtu)
 * @strides: strides per WQE
 * @frame_strides: strides the largest whole frame takes, pads included
 * @headroom: as in &struct cxen_stride_param
 * @tailroom: as in &struct cxen_stride_param
 * @hdr_buf: as in &struct cxen_stride_param
 * @log_stride: a stride is 1 << @log_stride bytes (CREATE_RQ's
 *	log_stride_bytes)
 * @log_page: a page is 1 << @log_page bytes (log_page_bytes)
 * @log_wqe_pages: a WQE has 1 << @log_wqe_pages pages (CREATE_RQ's
 *	log_stride is @log_wqe_pages + 4)
 */
struct cxen_stride_layout {
	u32 frame_max;
	u32 strides;
	u32 frame_strides;
	u16 headroom;
	u16 tailroom;
	u16 hdr_buf;
	u8 log_stride;
	u8 log_page;
	u8 log_wqe_pages;
};

/**
 * struct cxen_stride_piece - one page's part of a frame in a striding WQE
 * @page: the page's index in the WQE
 * @offset: where the frame's bytes start in the page
 * @len: the frame's bytes in the page
 */
struct cxen_stride_piece {
	u32 page;
	u32 offset;
	u32 len;
};

/**
 * struct cxen_stride_pos - the driver's view of a striding RQ's WQE in use
 * @wqe: its counter, free running (the RQ's consumer counter)
 * @next: its first stride no CQE accepted so far consumed
 * @refused: a CQE was refused since the last one accepted: the device
 *	consumed strides the driver did not see (a gap may follow)
 * @claimed: and one of those said it ended the WQE (WQE_LAST, or strides
 *	to the WQE's end): the next CQE may name the next WQE
 */
struct cxen_stride_pos {
	u32 wqe;
	u32 next;
	bool refused;
	bool claimed;
};

/**
 * enum cxen_stride_verdict - what cxen_stride_account() made of a CQE
 * @CXEN_STRIDE_OK: applied (&struct cxen_stride_take)
 * @CXEN_STRIDE_BAD_WQE: it names neither the WQE in use nor the next one
 * @CXEN_STRIDE_BAD_RANGE: its strides leave the WQE
 * @CXEN_STRIDE_REUSED: its strides start before the WQE's next free
 *	one: some would be handed out twice
 * @CXEN_STRIDE_BAD_FIRST: they start after it while no CQE was refused:
 *	the device skipped strides
 * @CXEN_STRIDE_BAD_COUNT: a frame whose stride count does not match its
 *	byte_cnt (and hdr_len), or an implausible byte_cnt
 * @CXEN_STRIDE_BAD_LAST: WQE_LAST set without the strides reaching the
 *	WQE's end, or clear with them reaching it
 * @CXEN_STRIDE_BAD_FILLER: a filler without WQE_LAST, with bytes, with no
 *	stride or not reaching the WQE's end (a filler in the middle)
 *
 * Every verdict but OK takes nothing and leaves the position where it
 * was, noting only that a CQE was refused (and whether it claimed the
 * WQE's end): the driver counts the CQE and drops its frame. The strides
 * the device did consume show up at the next CQE it accepts, as a gap
 * or a skipped WQE (&struct cxen_stride_take), and are dropped then.
 */
enum cxen_stride_verdict {
	CXEN_STRIDE_OK,
	CXEN_STRIDE_BAD_WQE,
	CXEN_STRIDE_BAD_RANGE,
	CXEN_STRIDE_REUSED,
	CXEN_STRIDE_BAD_FIRST,
	CXEN_STRIDE_BAD_COUNT,
	CXEN_STRIDE_BAD_LAST,
	CXEN_STRIDE_BAD_FILLER,
};

/**
 * struct cxen_stride_take - how the driver applies one accepted CQE, in
 * this order
 * @skip_wqe: the CQE names the WQE after the one in use, which a CQE the
 *	driver refused released: drop that WQE's strides from @skip_from to
 *	its end and retire it
 * @skip_from: see @skip_wqe
 * @gap_from: strides [@gap_from, @first) of the CQE's WQE no accepted CQE
 *	claimed: drop them (empty but after a refused CQE)
 * @first: the CQE's own strides, [@first, @first + @num): a frame's, for
 *	its skb; a filler's or an error CQE's, to drop
 * @num: see @first
 * @frame: the strides hold a frame (a RECV CQE that is not a filler)
 * @release: the CQE releases its WQE: retire it after its strides
 */
struct cxen_stride_take {
	bool skip_wqe;
	u32 skip_from;
	u32 gap_from;
	u32 first;
	u32 num;
	bool frame;
	bool release;
};

int cxen_stride_layout(const struct cxen_stride_param *p,
		       struct cxen_stride_layout *l);
u32 cxen_stride_frame_strides(const struct cxen_stride_layout *l, u32 len,
			      u32 hdr_len);
u32 cxen_stride_truesize(const struct cxen_stride_layout *l, u32 num,
			 bool split);
u32 cxen_stride_ring_wqes(const struct cxen_stride_layout *l, u64 bytes);
int cxen_stride_cq_plan(const struct cxen_stride_layout *l, u32 wqes,
			u32 log_max_cq, u32 *post_max);
unsigned int cxen_stride_pieces(const struct cxen_stride_layout *l,
				u32 first, u32 len, u32 hdr_len,
				struct cxen_stride_piece *pc,
				unsigned int max);
bool cxen_hdr_split_ok(u32 hdr_buf, u32 byte_cnt, u32 hdr_len);
void cxen_stride_refuse(const struct cxen_stride_layout *l,
			struct cxen_stride_pos *pos, const struct cxen_cqe *cqe);
enum cxen_stride_verdict cxen_stride_account(const struct cxen_stride_layout *l,
					     struct cxen_stride_pos *pos,
					     const struct cxen_cqe *cqe,
					     struct cxen_stride_take *t);

/*
 * en_rx_stride.c: the striding RQ's layout (CXEN_RX_STRIDING).
 *
 * The ring's WQE count comes from a byte budget: ethtool's rx ring size
 * times CXEN_STRIDE_BYTES_PER_ENTRY (an MTU 1500 frame's slot in the
 * scatter-list layout), within the device's ring sizes. A frame touches
 * at most CXEN_STRIDE_MAX_PIECES pages: the largest frame on the
 * smallest page, crossing one more, or an LRO frame all the pages of its
 * WQE.
 */
#define CXEN_STRIDE_BYTES_PER_ENTRY	SZ_2K
/*
 * Header/data split (ethtool -G tcp-data-split on, striding RQs only):
 * header buffers of this many bytes, carved from page_pool pages the RQ
 * keeps for its life; the driver copies the headers into the skb head
 * and posts the buffer again.
 */
#define CXEN_HDR_BUF_SIZE		256
#define CXEN_STRIDE_MTU_PIECES	(DIV_ROUND_UP(CXEN_FRAME_MAX(CXEN_HW_MAX_MTU), \
					      SZ_4K) + 1)
#define CXEN_STRIDE_LRO_PIECES	(CXEN_STRIDE_LRO_WQE / SZ_4K)
#define CXEN_STRIDE_MAX_PIECES	CXEN_STRIDE_LRO_PIECES
static_assert(CXEN_STRIDE_MTU_PIECES <= CXEN_STRIDE_LRO_PIECES);
int cxen_stride_frag_check(const struct cxen_frag_param *p,
			   struct cxen_frag_layout *l);
void cxen_stride_param_init(u32 mtu, struct cxen_stride_param *p);

#endif /* _CXEN_EN_FRAG_H_ */
