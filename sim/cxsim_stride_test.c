// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit self-test of the model's striding RQ and header/data split
 * (cxsim_stride.c, hw-interface.rst "Striding RQ", "Header/data split"),
 * through the device's own paths: queues made by the commands
 * (cxsim_cmd_run()), frames delivered by the receive path
 * (cxsim_rx_frame_test()), everything in host memory reached by bus
 * address through the model's IOMMU, as the driver will use them. The
 * test reads the CQEs and the buffers as the driver would, and checks
 * them against the specification: strides, fillers, WQE_LAST, pads,
 * frames across pages, split headers, the fault knobs' lies, errors.
 *
 * Part of cxsim_kunit.ko (load cxsim.ko first: EXPORT_SYMBOL_IF_KUNIT).
 */
#include <kunit/test.h>
#include <linux/dma-mapping.h>
#include <linux/gfp.h>
#include <linux/if_ether.h>
#include <linux/if_vlan.h>
#include <linux/in.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/string.h>
#include <linux/unaligned.h>
#include <net/tcp.h>

#include "cxsim.h"
#include "cxsim_iommu.h"
#include "cxsim_pkt.h"

/*
 * Host memory: 32 pages, one IOVA range. Page 0: the mailboxes; 1: the CQ
 * ring (64 CQEs) and the doorbell records; 2: the RQ ring; 3: the header
 * ring; 4: header buffers (16 of 256 bytes); 8..31: data pages.
 */
#define ST_ORDER	5
#define ST_PAGES	BIT(ST_ORDER)
#define ST_MBOX_IN	0
#define ST_MBOX_OUT	2048
#define ST_CQ_RING	(1 * PAGE_SIZE)
#define ST_CQ_DB	(1 * PAGE_SIZE + 3072)
#define ST_RQ_DB	(1 * PAGE_SIZE + 3584)
#define ST_RQ_RING	(2 * PAGE_SIZE)
#define ST_HDR_RING	(3 * PAGE_SIZE)
#define ST_HDR_BUFS	(4 * PAGE_SIZE)
#define ST_HDR_BUF	256
#define ST_DATA		8	/* first data page */
#define ST_CQN		5
#define ST_RQN		9
#define ST_LOG_CQ	6

struct st_fx {
	struct kunit *test;
	struct cxsim_dev *sd;
	struct cxsim_iommu *im;
	struct page *pages;
	struct scatterlist sg;
	u8 *va;			/* the 32 pages */
	u64 dma;		/* their bus address */
	u32 ci;			/* CQEs consumed */
	u16 pi;			/* RQ producer counter */
	u16 hdr_pi;
	struct cxen_rq_ctx ctx;	/* the RQ as created */
	u8 frame[16400];
};

static u8 st_cmd(struct st_fx *fx, u16 op, u32 mod, const void *in, u32 len)
{
	memset(fx->va + ST_MBOX_IN, 0, 2048);
	if (in)
		memcpy(fx->va + ST_MBOX_IN, in, len);
	return cxsim_cmd_run(fx->sd, op, mod, fx->dma + ST_MBOX_IN,
			     fx->dma + ST_MBOX_OUT);
}

static void st_fx_init(struct kunit *test, struct st_fx *fx)
{
	struct cxen_cq_ctx cq = {
		.ring_dma = 0,
		.log_size = ST_LOG_CQ,
		.vector = cpu_to_be16(1),
	};
	int p;

	memset(fx, 0, sizeof(*fx));
	fx->test = test;
	fx->sd = kunit_kzalloc(test, sizeof(*fx->sd), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, fx->sd);
	mutex_init(&fx->sd->cfg_lock);
	for (p = 0; p < CXEN_HW_MAX_PORTS; p++) {
		fx->sd->port[p].sd = fx->sd;
		fx->sd->port[p].index = p;
		fx->sd->port[p].default_rqn = -1;
	}
	fx->sd->fault.stall_sqn = -1;
	fx->sd->fault.sq_error_sqn = -1;
	fx->sd->fault.rq_error_rqn = -1;
	fx->im = cxsim_iommu_create(CXSIM_IOMMU_STRICT);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, fx->im);
	fx->sd->iommu = fx->im;
	fx->pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, ST_ORDER);
	KUNIT_ASSERT_NOT_NULL(test, fx->pages);
	fx->va = page_address(fx->pages);
	sg_init_table(&fx->sg, 1);
	sg_set_page(&fx->sg, fx->pages, ST_PAGES * PAGE_SIZE, 0);
	KUNIT_ASSERT_EQ(test, cxsim_iommu_map_sgl(fx->im, &fx->sg, 1,
						  DMA_BIDIRECTIONAL,
						  DMA_BIT_MASK(64), UINT_MAX), 1);
	fx->dma = sg_dma_address(&fx->sg);

	/* Every CQE owned by the device: owner bit 1 (hw-interface.rst). */
	for (p = 0; p < 1 << ST_LOG_CQ; p++)
		fx->va[ST_CQ_RING + p * 32 + 31] = CXEN_CQE_OWNER;
	cq.ring_dma = cpu_to_be64(fx->dma + ST_CQ_RING);
	cq.dbrec_dma = cpu_to_be64(fx->dma + ST_CQ_DB);
	KUNIT_ASSERT_EQ(test, st_cmd(fx, CXEN_CMD_CREATE_CQ, ST_CQN, &cq,
				     sizeof(cq)), CXEN_STAT_OK);
}

static void st_fx_exit(struct st_fx *fx)
{
	cxsim_destroy_all(fx->sd);
	cxsim_iommu_unmap_sgl(fx->im, &fx->sg, 1);
	cxsim_iommu_destroy(fx->im);
	__free_pages(fx->pages, ST_ORDER);
}

/* A fixture for one test case: kunit memory, torn down by the case itself. */
static struct st_fx *st_fx_new(struct kunit *test)
{
	struct st_fx *fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, fx);
	st_fx_init(test, fx);
	return fx;
}

/* An RQ on port 0 of @flags with 64 WQEs; for striding, 4 pages a WQE. */
static struct cxen_rq_ctx st_rq_ctx(struct st_fx *fx, u8 flags)
{
	struct cxen_rq_ctx c = {
		.wq = {
			.ring_dma = cpu_to_be64(fx->dma + ST_RQ_RING),
			.dbrec_dma = cpu_to_be64(fx->dma + ST_RQ_DB),
			.cqn = cpu_to_be32(ST_CQN),
			.log_size = 6,
			.log_stride = 6,	/* 4 segments: 4 pages */
			.rq_flags = flags,
		},
		.log_stride_bytes = 6,
		.log_page_bytes = PAGE_SHIFT,
		.headroom = cpu_to_be16(64),
		.tailroom = cpu_to_be16(320),
		.hdr_ring_dma = cpu_to_be64(fx->dma + ST_HDR_RING),
		.log_hdr_size = 6,
		.split_min = cpu_to_be16(128),
	};
	return c;
}

static u8 st_create(struct st_fx *fx, const struct cxen_rq_ctx *c)
{
	u8 st = st_cmd(fx, CXEN_CMD_CREATE_RQ, ST_RQN, c, sizeof(*c));

	if (st == CXEN_STAT_OK)
		fx->ctx = *c;
	return st;
}

static struct cxsim_rq *st_rq(struct st_fx *fx)
{
	return rcu_dereference_protected(fx->sd->rq[ST_RQN], true);
}

/* WQE @n's page @i: data pages in reverse within each WQE. */
static u32 st_wqe_page(u32 n, u32 i)
{
	return ST_DATA + (n % 6) * 4 + 3 - i;
}

/* A frame of @len bytes from fx->frame arrives at port 0: the hook. */
static int st_rx(struct st_fx *fx, u32 len)
{
	return cxsim_rx_frame_test(&fx->sd->port[0], fx->frame, len, false);
}

/* Post striding WQE number fx->pi (4 pages, in reverse order). */
static void st_post(struct st_fx *fx)
{
	struct cxen_data_seg *seg = (void *)(fx->va + ST_RQ_RING +
					     (fx->pi & 63) * 64);
	u32 i;

	for (i = 0; i < 4; i++) {
		seg[i].byte_count = cpu_to_be32(PAGE_SIZE);
		seg[i].lkey = cpu_to_be32(CXSIM_RSVD_LKEY);
		seg[i].addr = cpu_to_be64(fx->dma + st_wqe_page(fx->pi, i) *
					  PAGE_SIZE);
	}
	fx->pi++;
	put_unaligned_be32(fx->pi, fx->va + ST_RQ_DB);
}

/* Post a header buffer of @bytes (buffer k at ST_HDR_BUFS + k * 256). */
static void st_post_hdr(struct st_fx *fx, u32 bytes)
{
	struct cxen_data_seg *seg = (void *)(fx->va + ST_HDR_RING +
					     (fx->hdr_pi & 63) * 16);

	seg->byte_count = cpu_to_be32(bytes);
	seg->lkey = cpu_to_be32(CXSIM_RSVD_LKEY);
	seg->addr = cpu_to_be64(fx->dma + ST_HDR_BUFS +
				(fx->hdr_pi & 15) * ST_HDR_BUF);
	fx->hdr_pi++;
	put_unaligned_be32(fx->hdr_pi, fx->va + ST_RQ_DB + 4);
}

/* The next CQE, consumed (the consumer index published); NULL: none. */
static const struct cxen_cqe *st_next_cqe(struct st_fx *fx)
{
	struct cxen_cqe *c = (void *)(fx->va + ST_CQ_RING +
				      (fx->ci & 63) * 32);
	bool owner = (fx->ci >> ST_LOG_CQ) & 1;

	if (!!(c->owner_sr_opcode & CXEN_CQE_OWNER) != owner)
		return NULL;
	fx->ci++;
	put_unaligned_be32(fx->ci, fx->va + ST_CQ_DB);
	return c;
}

/*
 * A TCP/IPv4 frame (IPv6 with @v6) with @payload bytes, an 802.1Q tag
 * when @vlan; UDP with @udp. The payload is a pattern of its offset.
 * Return: its length.
 */
static u32 st_build(struct st_fx *fx, u32 payload, bool v6, bool vlan,
		    bool udp)
{
	u8 *f = fx->frame, *l3, *l4;
	u32 l4h = udp ? 8 : 20, l3h = v6 ? 40 : 20, off = 12, i;

	memset(f, 0, 64);
	memcpy(f, "\x02\x43\x58\x45\x00\x01\x02\x43\x58\x45\x00\x00", 12);
	if (vlan) {
		put_unaligned_be16(ETH_P_8021Q, f + 12);
		put_unaligned_be16(0x0123, f + 14);
		off = 16;
	}
	put_unaligned_be16(v6 ? ETH_P_IPV6 : ETH_P_IP, f + off);
	l3 = f + off + 2;
	l4 = l3 + l3h;
	if (v6) {
		l3[0] = 0x60;
		put_unaligned_be16(l4h + payload, l3 + 4);
		l3[6] = udp ? IPPROTO_UDP : IPPROTO_TCP;
		l3[7] = 64;
	} else {
		l3[0] = 0x45;
		put_unaligned_be16(l3h + l4h + payload, l3 + 2);
		l3[8] = 64;
		l3[9] = udp ? IPPROTO_UDP : IPPROTO_TCP;
	}
	memset(l4, 0, l4h);
	if (udp)
		put_unaligned_be16(l4h + payload, l4 + 4);
	else
		l4[12] = 5 << 4;
	for (i = 0; i < payload; i++)
		l4[l4h + i] = i * 7 + 3;
	return l4 - f + l4h + payload;
}

/* The bytes of WQE @n from byte @off, across its pages, equal @want. */
static bool st_wqe_bytes_eq(struct st_fx *fx, u32 n, u32 off, const u8 *want,
			    u32 len)
{
	u32 chunk;

	while (len) {
		chunk = min_t(u32, len, PAGE_SIZE - off % PAGE_SIZE);
		if (memcmp(fx->va + st_wqe_page(n, off / PAGE_SIZE) * PAGE_SIZE +
			   off % PAGE_SIZE, want, chunk))
			return false;
		off += chunk;
		want += chunk;
		len -= chunk;
	}
	return true;
}

static u32 st_flags(const struct cxen_cqe *c)
{
	return be32_to_cpu(c->flags);
}

static u8 st_op(const struct cxen_cqe *c)
{
	return FIELD_GET(CXEN_CQE_OPCODE, c->owner_sr_opcode);
}

/* Expect a frame's CQE: WQE, strides, LAST, length, split. */
static void st_expect_frame(struct kunit *test, const struct cxen_cqe *c,
			    u32 wqe, u32 first, u32 num, bool last, u32 len,
			    u32 hlen)
{
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, st_op(c), CXEN_CQE_OP_RECV);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(c->wqe_index), (u16)wqe);
	KUNIT_EXPECT_EQ(test, cxen_cqe_stride_first(c), first);
	KUNIT_EXPECT_EQ(test, cxen_cqe_stride_num(c), num);
	KUNIT_EXPECT_EQ(test, !!(st_flags(c) & CXEN_CQE_WQE_LAST), last);
	KUNIT_EXPECT_FALSE(test, st_flags(c) & CXEN_CQE_FILLER);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(c->byte_cnt), len);
	KUNIT_EXPECT_EQ(test, !!(st_flags(c) & CXEN_CQE_HDR_SPLIT), !!hlen);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(c->hdr_len), hlen);
}

static void st_expect_filler(struct kunit *test, const struct cxen_cqe *c,
			     u32 wqe, u32 first, u32 num)
{
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, st_op(c), CXEN_CQE_OP_RECV);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(c->wqe_index), (u16)wqe);
	KUNIT_EXPECT_EQ(test, st_flags(c) &
			(CXEN_CQE_FILLER | CXEN_CQE_WQE_LAST),
			CXEN_CQE_FILLER | CXEN_CQE_WQE_LAST);
	KUNIT_EXPECT_EQ(test, cxen_cqe_stride_first(c), first);
	KUNIT_EXPECT_EQ(test, cxen_cqe_stride_num(c), num);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(c->byte_cnt), 0);
}

/* Strides of a whole frame: 64 + len + 320 in 64-byte strides. */
static u32 st_need(u32 len)
{
	return DIV_ROUND_UP(64 + len + 320, 64);
}

/* ------------------------------------------------------------------ */
/* CREATE_RQ, QUERY_DEV                                                */
/* ------------------------------------------------------------------ */

static void stride_create(struct kunit *test)
{
	struct cxen_dev_caps *caps;
	struct cxen_rq_ctx c;
	struct st_fx *fx;

	fx = st_fx_new(test);

	KUNIT_ASSERT_EQ(test, st_cmd(fx, CXEN_CMD_QUERY_DEV, 0, NULL, 0),
			CXEN_STAT_OK);
	caps = (void *)(fx->va + ST_MBOX_OUT);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(caps->cap_flags),
			CXEN_DEV_CAP_STRIDING_RQ | CXEN_DEV_CAP_HDR_SPLIT |
			CXEN_DEV_CAP_LRO);
	KUNIT_EXPECT_EQ(test, caps->log_min_stride_bytes, 6);
	KUNIT_EXPECT_EQ(test, caps->log_max_stride_bytes, 13);
	KUNIT_EXPECT_EQ(test, caps->log_max_wqe_bytes, 18);

#define ST_REFUSED(field, value, status) do {				\
	c = st_rq_ctx(fx, CXEN_RQ_F_STRIDING | CXEN_RQ_F_HDR_SPLIT);	\
	c.field = value;						\
	KUNIT_EXPECT_EQ_MSG(test, st_create(fx, &c), status, #field);	\
	KUNIT_EXPECT_NULL(test, st_rq(fx));				\
} while (0)
	ST_REFUSED(wq.rq_flags, 8, CXEN_STAT_BAD_PARAM);
	/* LRO merges into striding WQEs, whole frames only. */
	ST_REFUSED(wq.rq_flags, CXEN_RQ_F_LRO, CXEN_STAT_BAD_PARAM);
	ST_REFUSED(wq.rq_flags, CXEN_RQ_F_STRIDING | CXEN_RQ_F_HDR_SPLIT |
		   CXEN_RQ_F_LRO, CXEN_STAT_BAD_PARAM);
	ST_REFUSED(log_page_bytes, 11, CXEN_STAT_BAD_PARAM);
	ST_REFUSED(log_page_bytes, 17, CXEN_STAT_BAD_PARAM);
	ST_REFUSED(log_stride_bytes, 5, CXEN_STAT_BAD_PARAM);
	ST_REFUSED(log_stride_bytes, 14, CXEN_STAT_BAD_PARAM);
	ST_REFUSED(log_stride_bytes, PAGE_SHIFT + 1, CXEN_STAT_BAD_PARAM);
	ST_REFUSED(wq.log_stride, 11, CXEN_STAT_BAD_PARAM);
	ST_REFUSED(wq.log_stride, 3, CXEN_STAT_BAD_PARAM);
	ST_REFUSED(headroom, cpu_to_be16(2049), CXEN_STAT_BAD_PARAM);
	ST_REFUSED(tailroom, cpu_to_be16(2049), CXEN_STAT_BAD_PARAM);
	ST_REFUSED(log_hdr_size, 5, CXEN_STAT_BAD_PARAM);
	ST_REFUSED(log_hdr_size, 14, CXEN_STAT_BAD_PARAM);
	ST_REFUSED(hdr_ring_dma, cpu_to_be64(fx->dma + ST_HDR_RING + 64),
		   CXEN_STAT_BAD_ADDR);
	ST_REFUSED(hdr_ring_dma, cpu_to_be64(0x7f0000000000ULL),
		   CXEN_STAT_BAD_ADDR);
	/* A WQE over 256 KiB: 64 pages of 16 KiB. */
	c = st_rq_ctx(fx, CXEN_RQ_F_STRIDING);
	c.wq.log_stride = 10;
	c.log_page_bytes = 14;
	KUNIT_EXPECT_EQ(test, st_create(fx, &c), CXEN_STAT_BAD_PARAM);
	/* 64 pages of 4 KiB is the largest: a 64 KiB ring of 1 KiB WQEs. */
	c.log_page_bytes = 12;
	KUNIT_EXPECT_EQ(test, st_cmd(fx, CXEN_CMD_CREATE_RQ, ST_RQN + 1, &c,
				     sizeof(c)), CXEN_STAT_OK);
	KUNIT_EXPECT_EQ(test, st_cmd(fx, CXEN_CMD_DESTROY_RQ, ST_RQN + 1, NULL,
				     0), CXEN_STAT_OK);
	/* A scatter-list RQ takes no large WQE... */
	c = st_rq_ctx(fx, 0);
	c.wq.log_stride = 7;
	KUNIT_EXPECT_EQ(test, st_create(fx, &c), CXEN_STAT_BAD_PARAM);
#undef ST_REFUSED

	/* ...and ignores the fields after cxen_wq_ctx, bad as they are. */
	c = st_rq_ctx(fx, 0);
	c.log_page_bytes = 99;
	c.headroom = cpu_to_be16(60000);
	c.hdr_ring_dma = cpu_to_be64(1);
	KUNIT_ASSERT_EQ(test, st_create(fx, &c), CXEN_STAT_OK);
	KUNIT_ASSERT_NOT_NULL(test, st_rq(fx));
	KUNIT_EXPECT_EQ(test, st_rq(fx)->rq_flags, 0);
	KUNIT_EXPECT_EQ(test, st_cmd(fx, CXEN_CMD_DESTROY_RQ, ST_RQN, NULL, 0),
			CXEN_STAT_OK);

	c = st_rq_ctx(fx, CXEN_RQ_F_STRIDING | CXEN_RQ_F_HDR_SPLIT);
	KUNIT_ASSERT_EQ(test, st_create(fx, &c), CXEN_STAT_OK);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->strides, 4 * PAGE_SIZE / 64);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->headroom, 64);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->split_min, 128);
	st_fx_exit(fx);
}

/* ------------------------------------------------------------------ */
/* Placement                                                           */
/* ------------------------------------------------------------------ */

/*
 * Frames at the next free stride after the headroom, across pages (the
 * WQE's pages are in reverse order in memory), a filler when one does not
 * fit, WQE_LAST on a frame that ends the WQE, and the WQE counter going on.
 */
static void stride_place(struct kunit *test)
{
	u32 N = 4 * PAGE_SIZE / 64, n = st_need(1514), k, pos, len;
	const struct cxen_cqe *c;
	struct cxen_rq_ctx ctx;
	struct st_fx *fx;
	struct cxen_wq_state *q;

	fx = st_fx_new(test);
	ctx = st_rq_ctx(fx, CXEN_RQ_F_STRIDING);
	KUNIT_ASSERT_EQ(test, st_create(fx, &ctx), CXEN_STAT_OK);

	/* No WQE: out of buffer, nothing written. */
	len = st_build(fx, 1460, false, false, false);
	KUNIT_ASSERT_EQ(test, len, 1514);
	st_rx(fx, len);
	KUNIT_EXPECT_NULL(test, st_next_cqe(fx));
	KUNIT_EXPECT_EQ(test, st_rq(fx)->cnt[CXSIM_RQ_OUT_OF_BUFFER], 1);

	st_post(fx);
	st_post(fx);
	for (k = 0, pos = 0; pos + n <= N; k++, pos += n) {
		KUNIT_ASSERT_EQ(test, st_rx(fx, len), 0);
		c = st_next_cqe(fx);
		st_expect_frame(test, c, 0, pos, n, false, 1514, 0);
		KUNIT_EXPECT_TRUE(test, st_wqe_bytes_eq(fx, 0, pos * 64 + 64,
							fx->frame, len));
	}
	/* Some of those crossed a page boundary. */
	KUNIT_EXPECT_GT(test, k, PAGE_SIZE / (n * 64));
	/* The next one does not fit: a filler, then WQE 1 from stride 0. */
	st_rx(fx, len);
	c = st_next_cqe(fx);
	st_expect_filler(test, c, 0, pos, N - pos);
	c = st_next_cqe(fx);
	st_expect_frame(test, c, 1, 0, n, false, 1514, 0);
	KUNIT_EXPECT_TRUE(test, st_wqe_bytes_eq(fx, 1, 64, fx->frame, len));

	/* Fill WQE 1 exactly: frames of 1514, then one of the rest. */
	for (pos = n; pos + 2 * n <= N; pos += n) {
		st_rx(fx, len);
		c = st_next_cqe(fx);
		st_expect_frame(test, c, 1, pos, n, false, 1514, 0);
	}
	len = (N - pos) * 64 - 64 - 320;
	len = st_build(fx, len - 54, false, false, false);
	KUNIT_ASSERT_EQ(test, st_need(len), N - pos);
	st_rx(fx, len);
	c = st_next_cqe(fx);
	st_expect_frame(test, c, 1, pos, N - pos, true, len, 0);
	KUNIT_EXPECT_TRUE(test, st_wqe_bytes_eq(fx, 1, pos * 64 + 64,
						fx->frame, len));
	KUNIT_EXPECT_NULL(test, st_next_cqe(fx));
	KUNIT_EXPECT_EQ(test, st_rq(fx)->cons, 2);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->cnt[CXSIM_RQ_FILLERS], 1);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->cnt[CXSIM_RQ_WQES], 2);

	/* Both WQEs used up: out of buffer again. A third, and QUERY_RQ. */
	st_rx(fx, 100);
	KUNIT_EXPECT_NULL(test, st_next_cqe(fx));
	st_post(fx);
	len = st_build(fx, 100, false, false, true);
	st_rx(fx, len);
	c = st_next_cqe(fx);
	st_expect_frame(test, c, 2, 0, st_need(len), false, len, 0);
	KUNIT_EXPECT_EQ(test, st_flags(c) & CXEN_CQE_L4_TYPE,
			FIELD_PREP(CXEN_CQE_L4_TYPE, CXEN_CQE_L4_UDP));
	KUNIT_ASSERT_EQ(test, st_cmd(fx, CXEN_CMD_QUERY_RQ, ST_RQN, NULL, 0),
			CXEN_STAT_OK);
	q = (void *)(fx->va + ST_MBOX_OUT);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(q->cons), 2);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(q->stride_pos), st_need(len));
	KUNIT_EXPECT_EQ(test, be64_to_cpu(q->wqes), 2);

	/*
	 * Flow control: a frame that does not fit the rest of WQE 2, with
	 * no WQE 3 posted, releases WQE 2 with its filler and waits; once
	 * WQE 3 is posted it lands at its stride 0, and no second filler.
	 */
	pos = st_need(len);
	st_build(fx, 9000, false, false, true);
	len = 15800;
	KUNIT_ASSERT_GT(test, pos + st_need(len), N);
	KUNIT_ASSERT_LE(test, st_need(len), N);
	KUNIT_EXPECT_EQ(test, cxsim_rx_frame_test(&fx->sd->port[0], fx->frame,
						  len, true), -ENOBUFS);
	st_expect_filler(test, st_next_cqe(fx), 2, pos, N - pos);
	KUNIT_EXPECT_NULL(test, st_next_cqe(fx));
	KUNIT_EXPECT_EQ(test, cxsim_rx_frame_test(&fx->sd->port[0], fx->frame,
						  len, true), -ENOBUFS);
	KUNIT_EXPECT_NULL(test, st_next_cqe(fx));
	st_post(fx);
	KUNIT_EXPECT_EQ(test, cxsim_rx_frame_test(&fx->sd->port[0], fx->frame,
						  len, true), 0);
	st_expect_frame(test, st_next_cqe(fx), 3, 0, st_need(len), false, len,
			0);
	KUNIT_EXPECT_NULL(test, st_next_cqe(fx));
	KUNIT_EXPECT_EQ(test, st_rq(fx)->cnt[CXSIM_RQ_OUT_OF_BUFFER], 2);
	st_fx_exit(fx);
}

/* ------------------------------------------------------------------ */
/* Header/data split                                                   */
/* ------------------------------------------------------------------ */

static void stride_split(struct kunit *test)
{
	u32 len, pos = 0, hb;
	const struct cxen_cqe *c;
	struct cxen_rq_ctx ctx;
	struct st_fx *fx;

	fx = st_fx_new(test);
	ctx = st_rq_ctx(fx, CXEN_RQ_F_STRIDING | CXEN_RQ_F_HDR_SPLIT);
	KUNIT_ASSERT_EQ(test, st_create(fx, &ctx), CXEN_STAT_OK);
	st_post(fx);
	st_post_hdr(fx, ST_HDR_BUF);
	st_post_hdr(fx, ST_HDR_BUF);

	/* TCP/IPv4: 54 bytes of headers apart, the payload at the stride. */
	len = st_build(fx, 1000, false, false, false);
	st_rx(fx, len);
	c = st_next_cqe(fx);
	st_expect_frame(test, c, 0, 0, DIV_ROUND_UP(1000, 64), false, len, 54);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(c->hdr_index), 0);
	KUNIT_EXPECT_MEMEQ(test, fx->va + ST_HDR_BUFS, fx->frame, 54);
	KUNIT_EXPECT_TRUE(test, st_wqe_bytes_eq(fx, 0, 0, fx->frame + 54, 1000));
	pos += DIV_ROUND_UP(1000, 64);

	/* TCP/IPv6 behind an 802.1Q tag: 14 + 4 + 40 + 20 = 78. */
	len = st_build(fx, 700, true, true, false);
	st_rx(fx, len);
	c = st_next_cqe(fx);
	st_expect_frame(test, c, 0, pos, DIV_ROUND_UP(700, 64), false, len, 78);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(c->hdr_index), 1);
	KUNIT_EXPECT_MEMEQ(test, fx->va + ST_HDR_BUFS + ST_HDR_BUF, fx->frame,
			   78);
	KUNIT_EXPECT_TRUE(test, st_wqe_bytes_eq(fx, 0, pos * 64, fx->frame + 78,
						700));
	pos += DIV_ROUND_UP(700, 64);

	/* The header ring is empty: received whole, counted. */
	len = st_build(fx, 500, false, false, false);
	st_rx(fx, len);
	c = st_next_cqe(fx);
	st_expect_frame(test, c, 0, pos, st_need(len), false, len, 0);
	KUNIT_EXPECT_TRUE(test, st_wqe_bytes_eq(fx, 0, pos * 64 + 64,
						fx->frame, len));
	KUNIT_EXPECT_EQ(test, st_rq(fx)->cnt[CXSIM_RQ_HDR_NO_BUFFER], 1);
	pos += st_need(len);

	/* UDP, a bare ACK, a frame under split_min: whole, buffer kept. */
	st_post_hdr(fx, ST_HDR_BUF);
	len = st_build(fx, 500, false, false, true);
	st_rx(fx, len);
	st_expect_frame(test, st_next_cqe(fx), 0, pos, st_need(len), false,
			len, 0);
	pos += st_need(len);
	len = st_build(fx, 0, false, false, false);
	st_rx(fx, len);
	st_expect_frame(test, st_next_cqe(fx), 0, pos, st_need(len), false,
			len, 0);
	pos += st_need(len);
	len = st_build(fx, 20, false, false, false);
	KUNIT_ASSERT_LT(test, len, 128);
	st_rx(fx, len);
	st_expect_frame(test, st_next_cqe(fx), 0, pos, st_need(len), false,
			len, 0);
	pos += st_need(len);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->hdr_cons, 2);

	/* With VLAN strip the tag is not in the headers: 54 again. */
	fx->sd->port[0].vlan_strip = true;
	len = st_build(fx, 300, false, true, false);
	st_rx(fx, len);
	c = st_next_cqe(fx);
	st_expect_frame(test, c, 0, pos, DIV_ROUND_UP(300, 64), false,
			len - 4, 54);
	KUNIT_EXPECT_TRUE(test, st_flags(c) & CXEN_CQE_VLAN_STRIPPED);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(c->vlan_tci), 0x0123);
	hb = ST_HDR_BUFS + 2 * ST_HDR_BUF;
	KUNIT_EXPECT_MEMEQ(test, fx->va + hb, fx->frame, 12);
	KUNIT_EXPECT_MEMEQ(test, fx->va + hb + 12, fx->frame + 16, 42);
	KUNIT_EXPECT_TRUE(test, st_wqe_bytes_eq(fx, 0, pos * 64, fx->frame + 58,
						300));
	pos += DIV_ROUND_UP(300, 64);
	fx->sd->port[0].vlan_strip = false;

	/* A header buffer too small for the headers: whole, counted. */
	st_post_hdr(fx, 40);
	len = st_build(fx, 300, false, false, false);
	st_rx(fx, len);
	st_expect_frame(test, st_next_cqe(fx), 0, pos, st_need(len), false,
			len, 0);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->cnt[CXSIM_RQ_HDR_NO_BUFFER], 2);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->cnt[CXSIM_RQ_HDR_SPLIT], 3);
	st_fx_exit(fx);
}

/* Split on a scatter-list RQ; and a plain one's CQE, reserved bytes 0. */
static void stride_scatter(struct kunit *test)
{
	struct cxen_data_seg *seg;
	const struct cxen_cqe *c;
	struct cxen_rq_ctx ctx;
	struct st_fx *fx;
	u32 len, i;

	fx = st_fx_new(test);
	ctx = st_rq_ctx(fx, CXEN_RQ_F_HDR_SPLIT);
	ctx.wq.log_stride = 5;		/* 2 segments of 1024 bytes */
	KUNIT_ASSERT_EQ(test, st_create(fx, &ctx), CXEN_STAT_OK);
	for (i = 0; i < 4; i++) {
		seg = (void *)(fx->va + ST_RQ_RING + i * 32);
		seg[0].byte_count = cpu_to_be32(1024);
		seg[0].lkey = cpu_to_be32(CXSIM_RSVD_LKEY);
		seg[0].addr = cpu_to_be64(fx->dma + (ST_DATA + i) * PAGE_SIZE);
		seg[1] = seg[0];
		seg[1].addr = cpu_to_be64(fx->dma + (ST_DATA + i) * PAGE_SIZE +
					  2048);
	}
	put_unaligned_be32(4, fx->va + ST_RQ_DB);
	st_post_hdr(fx, ST_HDR_BUF);

	/* 54 bytes apart, 1400 of payload over both segments. */
	len = st_build(fx, 1400, false, false, false);
	st_rx(fx, len);
	c = st_next_cqe(fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, st_op(c), CXEN_CQE_OP_RECV);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(c->byte_cnt), len);
	KUNIT_EXPECT_TRUE(test, st_flags(c) & CXEN_CQE_HDR_SPLIT);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(c->hdr_len), 54);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(c->strides), 0);
	KUNIT_EXPECT_MEMEQ(test, fx->va + ST_HDR_BUFS, fx->frame, 54);
	KUNIT_EXPECT_MEMEQ(test, fx->va + ST_DATA * PAGE_SIZE, fx->frame + 54,
			   1024);
	KUNIT_EXPECT_MEMEQ(test, fx->va + ST_DATA * PAGE_SIZE + 2048,
			   fx->frame + 54 + 1024, 1400 - 1024);

	/* Payload longer than the segments: LOCAL_LENGTH, header kept. */
	len = st_build(fx, 2100, false, false, false);
	st_rx(fx, len);
	c = st_next_cqe(fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, st_op(c), CXEN_CQE_OP_ERROR);
	KUNIT_EXPECT_EQ(test, c->syndrome, CXEN_SYND_LOCAL_LENGTH);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->hdr_cons, 1);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->cons, 2);

	/* Not split (UDP): every field minor 3 added stays 0. */
	len = st_build(fx, 100, false, false, true);
	st_rx(fx, len);
	c = st_next_cqe(fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(c->wqe_index), 2);
	KUNIT_EXPECT_EQ(test, st_flags(c) & ~GENMASK(12, 0), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(c->hdr_len), 0);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(c->hdr_index), 0);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(c->strides), 0);
	KUNIT_EXPECT_EQ(test, c->lro_segs, 0);
	KUNIT_EXPECT_EQ(test, c->rsvd4, 0);
	KUNIT_EXPECT_MEMEQ(test, fx->va + (ST_DATA + 2) * PAGE_SIZE, fx->frame,
			   len);
	st_fx_exit(fx);
}

/* ------------------------------------------------------------------ */
/* Fault knobs and errors                                              */
/* ------------------------------------------------------------------ */

static void stride_faults(struct kunit *test)
{
	u32 N = 4 * PAGE_SIZE / 64, n, len, pos;
	struct cxsim_fault *f;
	const struct cxen_cqe *c;
	struct cxen_rq_ctx ctx;
	struct st_fx *fx;

	fx = st_fx_new(test);
	f = &fx->sd->fault;
	ctx = st_rq_ctx(fx, CXEN_RQ_F_STRIDING | CXEN_RQ_F_HDR_SPLIT);
	KUNIT_ASSERT_EQ(test, st_create(fx, &ctx), CXEN_STAT_OK);
	st_post(fx);
	st_post(fx);
	len = st_build(fx, 1000, false, false, true);	/* UDP: whole */
	n = st_need(len);

	/* Every 2nd frame's CQE overruns the WQE; the device goes on true. */
	f->every[CXSIM_FAULT_STRIDE_OVERRUN] = 2;
	st_rx(fx, len);
	st_expect_frame(test, st_next_cqe(fx), 0, 0, n, false, len, 0);
	st_rx(fx, len);
	c = st_next_cqe(fx);
	st_expect_frame(test, c, 0, n, N - n + 1, false, len, 0);
	f->every[CXSIM_FAULT_STRIDE_OVERRUN] = 0;
	st_rx(fx, len);
	st_expect_frame(test, st_next_cqe(fx), 0, 2 * n, n, false, len, 0);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->cnt[CXSIM_FAULT_STRIDE_OVERRUN]),
			1);

	/* A filler in the middle, releasing nothing, then the frame there. */
	f->every[CXSIM_FAULT_FILLER_MID] = 1;
	pos = 3 * n;
	st_rx(fx, len);
	st_expect_filler(test, st_next_cqe(fx), 0, pos, 1);
	KUNIT_EXPECT_LT(test, pos + 1, N);
	st_expect_frame(test, st_next_cqe(fx), 0, pos, n, false, len, 0);
	f->every[CXSIM_FAULT_FILLER_MID] = 0;
	KUNIT_EXPECT_EQ(test, st_rq(fx)->cons, 0);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->stride_pos, pos + n);
	pos += n;

	/* A header length one byte past its header buffer. */
	f->every[CXSIM_FAULT_HDR_LEN] = 1;
	st_post_hdr(fx, ST_HDR_BUF);
	len = st_build(fx, 600, false, false, false);
	st_rx(fx, len);
	st_expect_frame(test, st_next_cqe(fx), 0, pos, DIV_ROUND_UP(600, 64),
			false, len, ST_HDR_BUF + 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->cnt[CXSIM_FAULT_HDR_LEN]), 1);
	KUNIT_EXPECT_EQ(test, atomic64_read(&f->cnt[CXSIM_FAULT_FILLER_MID]), 1);
	f->every[CXSIM_FAULT_HDR_LEN] = 0;
	st_fx_exit(fx);
}

static void stride_errors(struct kunit *test)
{
	u32 N = 4 * PAGE_SIZE / 64, len, n, k, free, used;
	struct cxen_data_seg *seg;
	const struct cxen_cqe *c;
	struct cxen_wq_modify mod = {};
	struct cxen_rq_ctx ctx;
	struct st_fx *fx;

	fx = st_fx_new(test);
	ctx = st_rq_ctx(fx, CXEN_RQ_F_STRIDING);
	KUNIT_ASSERT_EQ(test, st_create(fx, &ctx), CXEN_STAT_OK);
	st_post(fx);

	/*
	 * Too long for any WQE (16 KiB with its pads; the bytes after the
	 * IP datagram are padding): LOCAL_LENGTH, nothing consumed.
	 */
	st_build(fx, 9000, false, false, true);
	len = 16100;
	st_rx(fx, len);
	c = st_next_cqe(fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, st_op(c), CXEN_CQE_OP_ERROR);
	KUNIT_EXPECT_EQ(test, c->syndrome, CXEN_SYND_LOCAL_LENGTH);
	KUNIT_EXPECT_EQ(test, cxen_cqe_stride_num(c), 0);
	KUNIT_EXPECT_FALSE(test, st_flags(c) & CXEN_CQE_WQE_LAST);
	len = st_build(fx, 100, false, false, true);
	n = st_need(len);
	st_rx(fx, len);
	st_expect_frame(test, st_next_cqe(fx), 0, 0, n, false, len, 0);

	/*
	 * Room in the CQ for one CQE where a frame needs two (a filler and
	 * its own): dropped, nothing consumed.
	 */
	for (k = 1; (k + 1) * n <= N; k++) {
		st_rx(fx, len);
		KUNIT_ASSERT_NOT_NULL(test, st_next_cqe(fx));
	}
	st_post(fx);
	free = fx->ci;
	put_unaligned_be32(fx->ci - 63, fx->va + ST_CQ_DB);
	len = st_build(fx, 1400, false, false, true);
	st_rx(fx, len);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->cnt[CXSIM_RQ_CQ_OVERRUN], 1);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->cons, 0);
	KUNIT_EXPECT_EQ(test, st_rq(fx)->stride_pos, k * n);
	put_unaligned_be32(free, fx->va + ST_CQ_DB);
	KUNIT_EXPECT_NULL(test, st_next_cqe(fx));

	/*
	 * WQE 2 has a page of the wrong size: when the device starts it,
	 * LOCAL_QP_OP for the rest of WQE 1... after its filler; then the
	 * error CQE completes WQE 2 whole, and the RQ is in error.
	 */
	st_rx(fx, len);
	st_expect_filler(test, st_next_cqe(fx), 0, k * n, N - k * n);
	used = st_need(len);
	st_expect_frame(test, st_next_cqe(fx), 1, 0, used, false, len, 0);
	st_post(fx);
	seg = (void *)(fx->va + ST_RQ_RING + 2 * 64);
	seg[2].byte_count = cpu_to_be32(PAGE_SIZE / 2);
	st_post(fx);
	/* A frame that fits a WQE, not the rest of WQE 1: on to WQE 2. */
	st_build(fx, 9000, false, false, true);
	len = 15000;
	KUNIT_ASSERT_LE(test, st_need(len), N);
	KUNIT_ASSERT_GT(test, st_need(len), N - used);
	st_rx(fx, len);
	st_expect_filler(test, st_next_cqe(fx), 1, used, N - used);
	c = st_next_cqe(fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, st_op(c), CXEN_CQE_OP_ERROR);
	KUNIT_EXPECT_EQ(test, c->syndrome, CXEN_SYND_LOCAL_QP_OP);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(c->wqe_index), 2);
	KUNIT_EXPECT_EQ(test, cxen_cqe_stride_first(c), 0);
	KUNIT_EXPECT_EQ(test, cxen_cqe_stride_num(c), N);
	KUNIT_EXPECT_TRUE(test, st_flags(c) & CXEN_CQE_WQE_LAST);
	/* WQE 3 flushed, whole. */
	c = st_next_cqe(fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, c->syndrome, CXEN_SYND_WR_FLUSH);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(c->wqe_index), 3);
	KUNIT_EXPECT_EQ(test, cxen_cqe_stride_num(c), N);
	KUNIT_EXPECT_TRUE(test, st_flags(c) & CXEN_CQE_WQE_LAST);
	KUNIT_EXPECT_NULL(test, st_next_cqe(fx));
	KUNIT_EXPECT_TRUE(test, st_rq(fx)->error);

	/* RST, RDY: WQE 0, stride 0 again. */
	mod.state = cpu_to_be32(CXEN_WQ_RST);
	KUNIT_EXPECT_EQ(test, st_cmd(fx, CXEN_CMD_MODIFY_RQ, ST_RQN, &mod,
				     sizeof(mod)), CXEN_STAT_OK);
	fx->pi = 0;
	put_unaligned_be32(0, fx->va + ST_RQ_DB);
	mod.state = cpu_to_be32(CXEN_WQ_RDY);
	KUNIT_EXPECT_EQ(test, st_cmd(fx, CXEN_CMD_MODIFY_RQ, ST_RQN, &mod,
				     sizeof(mod)), CXEN_STAT_OK);
	st_post(fx);
	len = st_build(fx, 100, false, false, true);
	st_rx(fx, len);
	st_expect_frame(test, st_next_cqe(fx), 0, 0, st_need(len), false, len,
			0);
	st_fx_exit(fx);
}

/* ------------------------------------------------------------------ */
/* Large receive offload                                               */
/* ------------------------------------------------------------------ */

/**
 * struct st_seg - a TCP segment st_tcp() builds
 * @v6: over IPv6, else IPv4
 * @ts: with the timestamp option (NOP, NOP, TS)
 * @seq: its sequence number; its payload is the stream's bytes from
 *	@seq (st_pay(@seq + i) each)
 * @ack: its acknowledgment number
 * @payload: its payload bytes
 * @flags: TCP flags (TCPHDR_*)
 * @win: its window
 * @dport: its destination port
 */
struct st_seg {
	bool v6;
	bool ts;
	u32 seq;
	u32 ack;
	u32 payload;
	u8 flags;
	u16 win;
	u16 dport;
};

/* The stream's byte at sequence number @seq. */
static u8 st_pay(u32 seq)
{
	return seq * 7 + 3;
}

/* A valid TCP segment @g in fx->frame (checksums right). Return: its length. */
static u32 st_tcp(struct st_fx *fx, const struct st_seg *g)
{
	u32 l3h = g->v6 ? 40 : 20, thl = g->ts ? 32 : 20, i;
	u8 *f = fx->frame, *l3 = f + ETH_HLEN, *th = l3 + l3h;
	struct cxsim_pkt pkt;

	memset(f, 0, ETH_HLEN + l3h + thl);
	memcpy(f, "\x02\x43\x58\x45\x00\x01\x02\x43\x58\x45\x00\x00", 12);
	put_unaligned_be16(g->v6 ? ETH_P_IPV6 : ETH_P_IP, f + 12);
	if (g->v6) {
		l3[0] = 0x60;
		put_unaligned_be16(thl + g->payload, l3 + 4);
		l3[6] = IPPROTO_TCP;
		l3[7] = 64;
		l3[23] = 1;			/* fd00::1 -> fd00::2 */
		l3[39] = 2;
		l3[8] = 0xfd;
		l3[24] = 0xfd;
	} else {
		l3[0] = 0x45;
		put_unaligned_be16(l3h + thl + g->payload, l3 + 2);
		put_unaligned_be16(g->seq, l3 + 4);	/* a changing IP ID */
		l3[6] = 0x40;				/* DF */
		l3[8] = 64;
		l3[9] = IPPROTO_TCP;
		put_unaligned_be32(0xc0000201, l3 + 12);
		put_unaligned_be32(0xc0000202, l3 + 16);
	}
	put_unaligned_be16(40000, th);
	put_unaligned_be16(g->dport ?: 5201, th + 2);
	put_unaligned_be32(g->seq, th + 4);
	put_unaligned_be32(g->ack, th + 8);
	th[12] = (thl / 4) << 4;
	th[13] = g->flags;
	put_unaligned_be16(g->win ?: 512, th + 14);
	if (g->ts) {
		put_unaligned_be32(0x0101080a, th + 20);
		put_unaligned_be32(g->ack, th + 24);	/* TSval follows ack */
		put_unaligned_be32(77, th + 28);
	}
	for (i = 0; i < g->payload; i++)
		th[thl + i] = st_pay(g->seq + i);
	cxsim_pkt_parse(f, th + thl + g->payload - f, &pkt);
	cxsim_pkt_tx_csum(f, &pkt, true, true);
	return th + thl + g->payload - f;
}

/* An LRO RQ (4 pages a WQE, 64-byte headroom, 320 tailroom), 2 WQEs. */
static struct st_fx *st_lro_new(struct kunit *test)
{
	struct st_fx *fx = st_fx_new(test);
	struct cxen_rq_ctx ctx = st_rq_ctx(fx, CXEN_RQ_F_STRIDING |
					   CXEN_RQ_F_LRO);

	KUNIT_ASSERT_EQ(test, st_create(fx, &ctx), CXEN_STAT_OK);
	st_post(fx);
	st_post(fx);
	return fx;
}

/* Read @len bytes of WQE @n from byte @off into @buf. */
static void st_wqe_read(struct st_fx *fx, u32 n, u32 off, u8 *buf, u32 len)
{
	u32 chunk;

	while (len) {
		chunk = min_t(u32, len, PAGE_SIZE - off % PAGE_SIZE);
		memcpy(buf, fx->va + st_wqe_page(n, off / PAGE_SIZE) * PAGE_SIZE +
		       off % PAGE_SIZE, chunk);
		off += chunk;
		buf += chunk;
		len -= chunk;
	}
}

/*
 * The merged frame of CQE @c (WQE @n): its headers describe @segs
 * segments of @first's flow from @first->seq with @bytes of payload, the
 * last one @last (acknowledgment, window, timestamp, PSH); both checksums
 * verify and the payload is the stream's bytes.
 */
static void st_expect_merged(struct kunit *test, struct st_fx *fx,
			     const struct cxen_cqe *c, u32 n, u32 segs,
			     const struct st_seg *first, const struct st_seg *last,
			     u32 bytes)
{
	u32 l3h = first->v6 ? 40 : 20, thl = first->ts ? 32 : 20;
	u32 hlen = ETH_HLEN + l3h + thl, len = hlen + bytes, i;
	u8 *f = kunit_kzalloc(test, len, GFP_KERNEL), *th;
	struct cxsim_pkt pkt;
	bool psh;

	KUNIT_ASSERT_NOT_NULL(test, f);
	st_expect_frame(test, c, n, cxen_cqe_stride_first(c), st_need(len),
			!!(st_flags(c) & CXEN_CQE_WQE_LAST), len, 0);
	KUNIT_EXPECT_TRUE(test, st_flags(c) & CXEN_CQE_LRO);
	KUNIT_EXPECT_EQ(test, c->lro_segs, segs);
	KUNIT_EXPECT_TRUE(test, st_flags(c) & CXEN_CQE_L4_CSUM_OK);
	st_wqe_read(fx, n, cxen_cqe_stride_first(c) * 64 + 64, f, len);
	cxsim_pkt_parse(f, len, &pkt);
	KUNIT_EXPECT_EQ(test, pkt.l4, CXEN_CQE_L4_TCP);
	KUNIT_EXPECT_EQ(test, pkt.l4_len, thl + bytes);
	if (!first->v6)
		KUNIT_EXPECT_TRUE(test, cxsim_pkt_l3_csum_ok(f, &pkt));
	KUNIT_EXPECT_TRUE(test, cxsim_pkt_l4_csum_ok(f, &pkt));
	th = f + ETH_HLEN + l3h;
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(th + 4), first->seq);
	KUNIT_EXPECT_EQ(test, get_unaligned_be32(th + 8), last->ack);
	KUNIT_EXPECT_EQ(test, get_unaligned_be16(th + 14), last->win ?: 512);
	psh = th[13] & TCPHDR_PSH;
	KUNIT_EXPECT_EQ(test, psh, !!(last->flags & TCPHDR_PSH));
	if (first->ts)
		KUNIT_EXPECT_EQ(test, get_unaligned_be32(th + 24), last->ack);
	for (i = 0; i < bytes; i++)
		if (th[thl + i] != st_pay(first->seq + i))
			break;
	KUNIT_EXPECT_EQ(test, i, bytes);
}

/*
 * Consecutive segments of a flow merge into one frame with one CQE
 * (CXEN_CQE_LRO, the count), over IPv4 and IPv6, with and without
 * timestamps: nothing is completed until PSH ends the merge.
 */
static void lro_merge(struct kunit *test)
{
	static const struct { bool v6, ts; } v[] = {
		{ false, false }, { false, true }, { true, false }, { true, true },
	};
	struct st_seg g, first;
	const struct cxen_cqe *c;
	struct st_fx *fx;
	u32 k, i, len;

	for (k = 0; k < ARRAY_SIZE(v); k++) {
		fx = st_lro_new(test);
		g = (struct st_seg){ .v6 = v[k].v6, .ts = v[k].ts, .seq = 1000,
				     .ack = 50, .payload = 1000,
				     .flags = TCPHDR_ACK };
		first = g;
		for (i = 0; i < 3; i++) {
			if (i == 2)
				g.flags |= TCPHDR_PSH;
			len = st_tcp(fx, &g);
			KUNIT_ASSERT_EQ(test, st_rx(fx, len), 0);
			if (i < 2)
				KUNIT_EXPECT_NULL(test, st_next_cqe(fx));
			g.seq += g.payload;
			g.ack += 10;
			g.win += 100;
		}
		g.ack -= 10;
		g.win -= 100;
		c = st_next_cqe(fx);
		st_expect_merged(test, fx, c, 0, 3, &first, &g, 3000);
		KUNIT_EXPECT_EQ(test, cxen_cqe_stride_first(c), 0);
		KUNIT_EXPECT_NULL(test, st_next_cqe(fx));
		KUNIT_EXPECT_EQ(test, st_rq(fx)->cnt[CXSIM_RQ_FRAMES], 3);
		KUNIT_EXPECT_EQ(test, st_rq(fx)->cnt[CXSIM_RQ_LRO], 1);
		KUNIT_EXPECT_EQ(test, st_rq(fx)->cnt[CXSIM_RQ_LRO_SEGS], 3);
		KUNIT_EXPECT_FALSE(test, st_rq(fx)->lro.open);
		st_fx_exit(fx);
	}
}

/*
 * What ends a merge, and what never opens one: another flow, a gap in the
 * sequence, a segment of other flags, UDP, a bad checksum, the context's
 * end (a merge of one segment then gets a plain CQE), the WQE's end, the
 * segment limit, an RQ stopped (the merge ends with its CQE: nothing is
 * lost).
 */
static void lro_end(struct kunit *test)
{
	struct st_seg g = { .seq = 1, .ack = 1, .payload = 500,
			    .flags = TCPHDR_ACK }, a;
	const struct cxen_cqe *c;
	struct cxen_wq_modify mod = {};
	struct st_fx *fx;
	u32 len, i, n;

	/* Two segments, then another flow: the merge's CQE, then its own. */
	fx = st_lro_new(test);
	a = g;
	st_rx(fx, st_tcp(fx, &g));
	g.seq += 500;
	st_rx(fx, st_tcp(fx, &g));
	g.seq += 500;
	g.dport = 80;
	len = st_tcp(fx, &g);
	st_rx(fx, len);
	c = st_next_cqe(fx);
	st_expect_merged(test, fx, c, 0, 2, &a, &a, 1000);
	KUNIT_EXPECT_NULL(test, st_next_cqe(fx));
	/* That one opened a merge of its own: the context's end closes it. */
	KUNIT_EXPECT_TRUE(test, st_rq(fx)->lro.open);
	cxsim_lro_end_test(fx->sd, ST_RQN);
	c = st_next_cqe(fx);
	st_expect_frame(test, c, 0, st_need(ETH_HLEN + 40 + 1000), st_need(len),
			false, len, 0);
	KUNIT_EXPECT_FALSE(test, st_flags(c) & CXEN_CQE_LRO);
	KUNIT_EXPECT_EQ(test, c->lro_segs, 0);
	KUNIT_EXPECT_TRUE(test, st_wqe_bytes_eq(fx, 0,
						cxen_cqe_stride_first(c) * 64 + 64,
						fx->frame, len));
	g.dport = 0;

	/* A gap in the sequence, then segments that never merge. */
	st_rx(fx, st_tcp(fx, &g));
	g.seq += 501;
	st_rx(fx, st_tcp(fx, &g));
	KUNIT_EXPECT_FALSE(test, st_flags(st_next_cqe(fx)) & CXEN_CQE_LRO);
	cxsim_lro_end_test(fx->sd, ST_RQN);
	KUNIT_EXPECT_NOT_NULL(test, st_next_cqe(fx));
	g.seq += 500;
	for (i = 0; i < 4; i++) {
		a = g;
		a.flags = i == 0 ? TCPHDR_ACK | TCPHDR_FIN :
			  i == 1 ? TCPHDR_ACK | TCPHDR_URG : TCPHDR_ACK;
		len = i == 2 ? st_build(fx, 100, false, false, true) :
			       st_tcp(fx, &a);
		if (i == 3)
			fx->frame[len - 1] ^= 1;	/* checksum now wrong */
		st_rx(fx, len);
		KUNIT_EXPECT_FALSE(test, st_rq(fx)->lro.open);
		c = st_next_cqe(fx);
		KUNIT_ASSERT_NOT_NULL(test, c);
		KUNIT_EXPECT_FALSE(test, st_flags(c) & CXEN_CQE_LRO);
		KUNIT_EXPECT_EQ(test, be32_to_cpu(c->byte_cnt), len);
	}
	st_fx_exit(fx);

	/*
	 * The WQE's end: 1000-byte segments into 16 KiB less the pads; the
	 * one that does not fit ends the merge and opens one in the next WQE.
	 */
	fx = st_lro_new(test);
	g = (struct st_seg){ .seq = 7, .ack = 1, .payload = 1000,
			     .flags = TCPHDR_ACK };
	a = g;
	n = (4 * PAGE_SIZE - 64 - 320 - ETH_HLEN - 40) / 1000;
	for (i = 0; i <= n; i++) {
		st_rx(fx, st_tcp(fx, &g));
		g.seq += 1000;
	}
	c = st_next_cqe(fx);
	st_expect_merged(test, fx, c, 0, n, &a, &a, n * 1000);
	/* Whatever is left of WQE 0 is too small: a filler releases it. */
	cxsim_lro_end_test(fx->sd, ST_RQN);
	c = st_next_cqe(fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	if (st_flags(c) & CXEN_CQE_FILLER)
		c = st_next_cqe(fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, be16_to_cpu(c->wqe_index), 1);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(c->byte_cnt), ETH_HLEN + 40 + 1000);
	st_fx_exit(fx);

	/* The segment limit: 300 one-byte segments, 255 merged. */
	fx = st_lro_new(test);
	g = (struct st_seg){ .seq = 9, .ack = 1, .payload = 1,
			     .flags = TCPHDR_ACK };
	a = g;
	for (i = 0; i < 300; i++) {
		st_rx(fx, st_tcp(fx, &g));
		g.seq++;
	}
	c = st_next_cqe(fx);
	st_expect_merged(test, fx, c, 0, CXEN_HW_LRO_MAX_SEGS, &a, &a,
			 CXEN_HW_LRO_MAX_SEGS);
	cxsim_lro_end_test(fx->sd, ST_RQN);
	c = st_next_cqe(fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_EQ(test, c->lro_segs, 300 - CXEN_HW_LRO_MAX_SEGS);

	/* An RQ stopped with a merge open: the merge gets its CQE then. */
	st_rx(fx, st_tcp(fx, &g));
	g.seq++;
	st_rx(fx, st_tcp(fx, &g));
	KUNIT_EXPECT_TRUE(test, st_rq(fx)->lro.open);
	mod.state = cpu_to_be32(CXEN_WQ_RST);
	KUNIT_EXPECT_EQ(test, st_cmd(fx, CXEN_CMD_MODIFY_RQ, ST_RQN, &mod,
				     sizeof(mod)), CXEN_STAT_OK);
	KUNIT_EXPECT_FALSE(test, st_rq(fx)->lro.open);
	c = st_next_cqe(fx);
	KUNIT_ASSERT_NOT_NULL(test, c);
	KUNIT_EXPECT_TRUE(test, st_flags(c) & CXEN_CQE_LRO);
	KUNIT_EXPECT_EQ(test, c->lro_segs, 2);
	KUNIT_EXPECT_EQ(test, be32_to_cpu(c->byte_cnt), ETH_HLEN + 40 + 2);
	cxsim_lro_end_test(fx->sd, ST_RQN);
	KUNIT_EXPECT_NULL(test, st_next_cqe(fx));
	st_fx_exit(fx);
}

static struct kunit_case cxsim_stride_cases[] = {
	KUNIT_CASE(stride_create),
	KUNIT_CASE(stride_place),
	KUNIT_CASE(stride_split),
	KUNIT_CASE(stride_scatter),
	KUNIT_CASE(stride_faults),
	KUNIT_CASE(stride_errors),
	KUNIT_CASE(lro_merge),
	KUNIT_CASE(lro_end),
	{}
};

static struct kunit_suite cxsim_stride_suite = {
	.name = "cxsim_stride",
	.test_cases = cxsim_stride_cases,
};

kunit_test_suite(cxsim_stride_suite);
