/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxen: driver-wide definitions.
 *
 * Object model:
 *   struct cxen_dev      one per NIC (bus device): command channel, IRQs,
 *                        queue-number allocators, the port netdevs.
 *   struct cxen_priv     one per port (netdev_priv): configuration, the
 *                        channel array, stats carried across reconfigs.
 *   struct cxen_channel  one per queue pair: an interrupt vector, a NAPI
 *                        instance, one RQ and one SQ, each with its CQ.
 */
#ifndef _CXEN_EN_H_
#define _CXEN_EN_H_

#include <linux/bitfield.h>
#include <linux/dim.h>
#include <linux/dma-mapping.h>
#include <linux/idr.h>
#include <linux/interrupt.h>
#include <linux/mutex.h>
#include <linux/netdevice.h>
#include <linux/platform_device.h>
#include <linux/rtnetlink.h>
#include <linux/u64_stats_sync.h>
#include <linux/workqueue.h>
#include <net/devlink.h>
#include <net/page_pool/helpers.h>
#include <net/xdp.h>

#include "cxen_hw.h"
#include "en_frag.h"
#include "en_stats.h"

#define CXEN_DRV_NAME		"cxen"
/* The VERSION file, passed by Kbuild. */
#define CXEN_DRV_VERSION	CXEN_PKG_VERSION

#define CXEN_DEF_RING_SIZE	1024
#define CXEN_DEF_CHANNELS	1
/*
 * The most of the memory a port could use (available, plus what its
 * running configuration pins) that its RX buffers may pin after a
 * reconfiguration: cxen_params_mem_check().
 */
#define CXEN_RX_MEM_SHARE_PCT	50
/* Interrupt moderation defaults, as mlx4: 16 us, 44 RX / 16 TX frames. */
#define CXEN_DEF_RX_USECS	16
#define CXEN_DEF_RX_FRAMES	44
#define CXEN_DEF_TX_USECS	16
#define CXEN_DEF_TX_FRAMES	16
#define CXEN_CMD_TIMEOUT_MS	5000

/*
 * SQ WQE stride, 512 bytes: room for the control segment, the largest LSO
 * segment (4 bytes + a 192-byte header, padded) and CXEN_TX_MAX_SEGS data
 * segments: the linear part and MAX_SKB_FRAGS page fragments.
 */
#define CXEN_SQ_LOG_STRIDE	9
#define CXEN_SQ_STRIDE		BIT(CXEN_SQ_LOG_STRIDE)
#define CXEN_TX_LSO_SEG_MAX	ALIGN(sizeof(struct cxen_tx_lso_seg) + \
				      CXEN_HW_TX_MAX_LSO_HDR, 16)
#define CXEN_TX_MAX_SEGS	((CXEN_SQ_STRIDE - sizeof(struct cxen_tx_ctrl_seg) - \
				  CXEN_TX_LSO_SEG_MAX) / sizeof(struct cxen_data_seg))
/* Default and largest frame sent inline in the WQE instead of mapped. */
#define CXEN_TX_INLINE_DEF	0
#define CXEN_TX_INLINE_MAX	CXEN_HW_TX_MAX_INLINE
/*
 * A WQE is reserved for each skb; stop the queue below this many free,
 * and wake it once this many more are (hysteresis, as fbnic's 2x).
 */
#define CXEN_TX_STOP_THRESH	2
#define CXEN_TX_WAKE_THRESH	32

/*
 * The device's port counters are read by a command this often (and on
 * every ethtool -S); ethtool -c shows it as stats-block-usecs, how long
 * a tool waits before trusting ndo_get_stats64's device counters.
 */
#define CXEN_STATS_PERIOD_USECS	1000000U	/* 1 s */

/*
 * XDP SQ WQE stride, 128 bytes: the control segment and 7 data segments,
 * room for a frame of cxen's own (a head and at most three more RX
 * fragments) or an xdp_frame of up to 6 frags from ndo_xdp_xmit.
 */
#define CXEN_XSQ_LOG_STRIDE	7
#define CXEN_XSQ_MAX_SEGS	((BIT(CXEN_XSQ_LOG_STRIDE) - \
				  sizeof(struct cxen_tx_ctrl_seg)) / \
				 sizeof(struct cxen_data_seg))

/* RX WQE stride: 16 bytes per data segment, power of two. */
#define CXEN_RX_LOG_STRIDE	6	/* 4 segments */
/* Refill in batches of this many WQEs from NAPI. */
#define CXEN_RX_REFILL_BATCH	16
/* Frames up to this many bytes are copied and their buffer reposted. */
#define CXEN_RX_COPYBREAK_DEF	256
#define CXEN_RX_COPYBREAK_MAX	1024
/* Retry a ring left empty by allocation failures after this long. */
#define CXEN_RX_REFILL_RETRY	msecs_to_jiffies(10)

/**
 * struct cxen_cq - a completion queue
 * @cqes: the ring, 1 << @log_size entries, in coherent DMA memory
 * @dbrec: consumer-index doorbell record
 * @ci: consumer index, free running
 * @cqn: hardware CQ number
 * @log_size: log2 of the number of entries
 * @ring_dma: bus address of @cqes
 * @moder_usecs: interrupt moderation time, 0 = interrupt on every arm
 * @moder_frames: interrupt after this many CQEs at most, 0 = no limit
 * @hw_gen: &cxen_dev.hw_gen when the CQ was created in the device
 */
struct cxen_cq {
	struct cxen_cqe		*cqes;
	struct cxen_cq_dbrec	*dbrec;
	u32			ci;
	u32			cqn;
	u32			hw_gen;
	u8			log_size;
	u16			moder_usecs;
	u16			moder_frames;
	dma_addr_t		ring_dma;
};

/**
 * struct cxen_rx_buf - one fragment posted in an RX WQE
 * @page: the page holding the fragment (NULL: slot needs a buffer)
 * @offset: byte offset of the fragment's stride in @page
 * @dma: bus address of the stride's first byte
 */
struct cxen_rx_buf {
	struct page	*page;
	u32		offset;
	dma_addr_t	dma;
};

/**
 * struct cxen_rx_carve - the buffer fragments of one WQE index are cut from
 * @page: current buffer
 * @dma: its bus address, when mapped as a whole
 * @offset: next stride to hand out
 * @left: strides of @page not handed out yet
 */
struct cxen_rx_carve {
	struct page	*page;
	dma_addr_t	dma;
	u32		offset;
	u32		left;
};

/**
 * struct cxen_stride_page - one page of a striding WQE
 * @page: the page_pool page, NULL once the WQE is retired
 * @dma: its bus address
 * @given: page_pool references handed to skbs (one per skb frag); the
 *	page was posted with CXEN_STRIDE_PAGE_BIAS(rq) of them, and the WQE
 *	gives back the rest when it is retired
 */
struct cxen_stride_page {
	struct page	*page;
	dma_addr_t	dma;
	u32		given;
};

struct cxen_sq;
struct cxen_rx_kind;

/*
 * struct cxen_rq - a receive queue
 *
 * With an XDP program (@xdp), the layout keeps XDP_PACKET_HEADROOM, the
 * pool maps for both directions (XDP_TX sends from its pages), @xdp_rxq
 * is registered with the pool as its memory model, and @xdp_prog runs on
 * every frame. The other members are described where they are declared.
 */
struct cxen_rq {
	struct cxen_cq		cq;
	struct cxen_rx_wqe	*wqes;
	struct cxen_wq_dbrec	*dbrec;
	struct cxen_rx_buf	*bufs;		/* [size][nfrags] */
	const struct cxen_rx_layout_ops *ops;	/* its buffer layout */
	const struct cxen_rx_kind *kind;	/* en_rx.h, from @ops */
	struct page_pool	*pool;		/* pagepool and striding */
	struct cxen_rx_carve	carve[CXEN_HW_RX_MAX_SEGS];
	struct napi_struct	*napi;
	struct net_device	*netdev;
	struct device		*dma_dev;
	struct cxen_priv	*priv;
	/* The channel it serves; a restarting queue's new or old RQ lives
	 * outside it (en_queue.c).
	 */
	struct cxen_channel	*ch;
	struct delayed_work	refill_work;	/* retries a starved ring */
	struct cxen_frag_layout	layout;
	u32			pi;		/* WQEs posted, free running */
	u32			ci;		/* WQEs consumed, free running */
	u32			rqn;
	u32			lkey;
	u8			log_size;
	u16			qid;
	bool			hw_destroyed;	/* DESTROY_RQ done */
	/* Built beside the channel's running RQ by a queue restart and not
	 * started: the NAPI it names is live, serving that other RQ.
	 */
	bool			beside;
	u32			hw_gen;		/* cxen_dev.hw_gen at CREATE_RQ */
	unsigned long		state;		/* CXEN_RQ_* bits */
#ifdef CONFIG_PAGE_POOL_STATS
	/* Counters of the pools this RQ destroyed, taken under stats_lock. */
	struct page_pool_stats	pp_final;
#endif
	dma_addr_t		ring_dma;
	struct cxen_rq_stats	stats;
#if !CXEN_STATS_DIRECT
	struct cxen_rq_acc	acc;		/* this poll's, to publish */
#endif
	/* Striding RQ (CXEN_RX_STRIDING, en_rx_stride.c): its geometry, the
	 * WQE in use and its next stride as the driver counts them, the
	 * pages of every WQE ([WQEs][pages]), the ring of striding WQEs
	 * (pages data segments each), CQEs naming a wrong WQE in a row.
	 */
	struct cxen_stride_layout slayout;
	struct cxen_stride_pos	spos;
	struct cxen_stride_page	*spages;
	struct cxen_data_seg	*swqes;
	u32			ring_bytes;	/* of @swqes */
	u32			post_max;	/* cxen_stride_cq_plan() */
	u32			bad_wqe_run;
	/* Header/data split: the header ring (@hdr_size data segments, each
	 * a CXEN_HDR_BUF_SIZE buffer of @hdr_pages, at fixed places), the
	 * buffers the device consumed (@hdr_ci, by the split CQEs) and the
	 * producer counter last published; NULL @hdr_ring: no split.
	 */
	struct cxen_data_seg	*hdr_ring;
	dma_addr_t		hdr_ring_dma;
	struct page		**hdr_pages;
	u32			hdr_size;
	u32			hdr_ci;
	u32			hdr_pi;
	bool			lro;		/* created with CXEN_RQ_F_LRO */
	/* XDP: the program (swapped under RCU, never to or from NULL while
	 * the RQ lives), the channel's XDP SQ, the RQ's rxq info.
	 */
	struct bpf_prog __rcu	*xdp_prog;
	struct cxen_sq		*xsq;
	bool			xdp;		/* built for XDP (see above) */
	bool			xdp_tx;		/* this poll queued XDP_TX */
	bool			xdp_redirect;	/* this poll redirected */
	enum dma_data_direction	dma_dir;	/* of @pool's mappings */
	struct xdp_rxq_info	xdp_rxq;
};

/**
 * struct cxen_tx_buf - what a TX WQE holds until it completes
 * @skb: the packet, freed on completion
 * @wire_bytes: bytes the WQE puts on the wire, headers of every segment
 * @wire_pkts: frames the WQE puts on the wire
 * @nr_maps: DMA mappings recorded in @map
 * @map: bus address and length of each mapping
 */
struct cxen_tx_buf {
	struct sk_buff	*skb;
	u32		wire_bytes;	/* bytes on the wire, all segments */
	u16		wire_pkts;	/* frames on the wire (gso_segs) */
	u8		nr_maps;
	struct {
		dma_addr_t	addr;
		u32		len;
		bool		page;
	} map[CXEN_TX_MAX_SEGS];
};

/**
 * struct cxen_xdp_buf - what an XDP SQ WQE holds until it completes
 * @xdpf: ndo_xdp_xmit: the frame, returned when sent; NULL: XDP_TX
 * @nr: XDP_TX: pages in @page; ndo_xdp_xmit: mappings in @map
 * @page: XDP_TX: the RQ's page_pool pages of the frame, back to the pool
 * @map: ndo_xdp_xmit: bus address and length of each mapping, undone
 */
struct cxen_xdp_buf {
	struct xdp_frame	*xdpf;
	u8			nr;
	union {
		struct page	*page[CXEN_HW_RX_MAX_SEGS];
		struct {
			dma_addr_t	addr;
			u32		len;
		} map[CXEN_XSQ_MAX_SEGS];
	};
};

/*
 * struct cxen_sq - a send queue: the stack's (one per TX queue) or, with
 * @xdp, a channel's XDP SQ
 *
 * An XDP SQ sends what the channel's XDP program returns XDP_TX for and
 * what ndo_xdp_xmit gives it; @xdp_lock orders those producers (the
 * channel's NAPI and any CPU's redirect), its completions free pages
 * and frames (en_xdp.c). It has no TX queue, no BQL, no wake.
 */
struct cxen_sq {
	struct cxen_cq		cq;
	void			*wqes;
	struct cxen_wq_dbrec	*dbrec;
	union {
		struct cxen_tx_buf	*bufs;
		struct cxen_xdp_buf	*xbufs;	/* @xdp */
	};
	struct netdev_queue	*txq;
	struct napi_struct	*napi;		/* the channel's, reaps the CQ */
	struct device		*dma_dev;
	struct cxen_dev		*cdev;
	struct cxen_priv	*priv;
	u32			pi;		/* WQEs posted, free running */
	u32			ci;		/* WQEs completed, free running */
	u32			sqn;
	u32			lkey;
	u8			log_size;
	u8			log_stride;	/* of its WQEs */
	u16			qid;
	bool			hw_destroyed;	/* DESTROY_SQ done */
	bool			xdp;		/* the channel's XDP SQ */
	u32			db_pi;		/* XDP SQ: pi of the last doorbell */
	spinlock_t		xdp_lock;	/* XDP SQ: pi, db_pi, @stats */
	u32			hw_gen;		/* cxen_dev.hw_gen at CREATE_SQ */
	unsigned long		state;		/* CXEN_SQ_* bits */
	/* Hang check (priv->health_work only): ci when last seen moving. */
	u32			hang_ci;
	unsigned long		hang_since;	/* jiffies; 0: not armed */
	dma_addr_t		ring_dma;
	struct cxen_sq_stats	stats;
	struct cxen_sq_cstats	cstats;
#if !CXEN_STATS_DIRECT
	struct cxen_sqc_acc	cacc;		/* this poll's, to publish */
#endif
};

/**
 * enum cxen_sq_state_bits - what an SQ is doing, bits of &cxen_sq.state
 * @CXEN_SQ_SERVING: its TX queue feeds it, so its completions may wake
 *	the queue. Changed under the queue's xmit lock (cxen_sq_serve()):
 *	off while a switch drains it or a reset rebuilds it.
 * @CXEN_SQ_RESET: the SQ needs a reset (en_health.c): set when a fault
 *	is found, cleared when a reset brought it back; an SQ whose reset
 *	failed keeps it, stopped, until `devlink health recover` or the next
 *	reconfiguration replaces it.
 * @CXEN_SQ_STOPPED: the driver stopped the TX queue for lack of WQEs and
 *	counted the stop (cxen_tx_maybe_stop()); whoever wakes the queue
 *	clears it and counts the wake, so tx_queue_stop and tx_queue_wake
 *	pair up. A stop that a reconfiguration ends instead stays unpaired.
 */
enum cxen_sq_state_bits {
	CXEN_SQ_SERVING,
	CXEN_SQ_RESET,
	CXEN_SQ_STOPPED,
};

/**
 * enum cxen_rq_state_bits - bits of &cxen_rq.state
 * @CXEN_RQ_RESET: the device put the RQ in the error state and it needs a
 *	reset (en_health.c); as %CXEN_SQ_RESET.
 */
enum cxen_rq_state_bits {
	CXEN_RQ_RESET,
};

/**
 * enum cxen_channel_leak_bits - what of a torn-down channel the device may
 *	still use, in &cxen_channel.leaked
 * @CXEN_CH_LEAK_SQ: its SQ (cxen_sq_free() failed)
 * @CXEN_CH_LEAK_XSQ: its XDP SQ
 * @CXEN_CH_LEAK_RQ: its RQ (cxen_rq_free() failed)
 *
 * The device failed to let go of the queue and could not be reset: its
 * memory stays, with the channel and its doorbell records, on
 * &cxen_dev.leaked until a device reset (cxen_leaked_free()).
 */
enum cxen_channel_leak_bits {
	CXEN_CH_LEAK_SQ		= BIT(0),
	CXEN_CH_LEAK_XSQ	= BIT(1),
	CXEN_CH_LEAK_RQ		= BIT(2),
};

struct cxen_channel {
	struct cxen_priv	*priv;
	struct napi_struct	napi;
	struct cxen_rq		rq;
	struct cxen_sq		sq;
	struct cxen_sq		xsq;		/* XDP SQ: only if rq.xdp */
	/* Coherent page holding the queues' doorbell records. */
	void			*dbrec_page;
	dma_addr_t		dbrec_dma;
	int			idx;
	int			vector;
	int			irq;
	char			irq_name[IFNAMSIZ + 16];
	/* Adaptive moderation (ethtool -C adaptive-rx/tx): the flags are
	 * written under priv->moder_lock, read by NAPI.
	 */
	u16			irq_events;	/* interrupts, DIM's event count */
	bool			rx_dim_on;
	bool			tx_dim_on;
	struct dim		rx_dim;
	struct dim		tx_dim;
	/* Torn down with queues the device may still use (&cxen_dev.leaked). */
	struct list_head	leak_node;
	u32			leak_gen;	/* &cxen_dev.hw_gen then */
	u8			leaked;		/* enum cxen_channel_leak_bits */
};

/**
 * struct cxen_chans - a set of channels: what a port runs, as one object
 * @num: channels in the set, the port's TX and RX queue count
 * @ch: channel i serves TX and RX queue i
 *
 * A port has at most two sets (struct cxen_priv): the running one and,
 * while a reconfiguration switches, the one being drained. The array and
 * its count are one object, so no reader sees one without the other.
 * xmit looks the set up under RCU; a set is freed only after it was
 * unpublished and a grace period passed (cxen_channels_publish()).
 */
struct cxen_chans {
	unsigned int		num;
	struct cxen_channel	*ch[] __counted_by(num);
};

/**
 * struct cxen_params - a port's datapath configuration
 * @num_channels: queue pairs
 * @rq_size: RX WQEs per RQ (power of two)
 * @sq_size: TX WQEs per SQ (power of two)
 * @mtu: L3 MTU
 * @rx_usecs: RX CQ interrupt moderation time (ethtool -C rx-usecs)
 * @rx_frames: RX CQ interrupt moderation frames (rx-frames)
 * @tx_usecs: TX CQ interrupt moderation time (tx-usecs)
 * @tx_frames: TX CQ interrupt moderation frames (tx-frames)
 * @rx_dim: adaptive RX moderation (adaptive-rx), net_dim picks the values
 * @tx_dim: adaptive TX moderation (adaptive-tx)
 * @rx_layout: the RX buffer layout the RQs run (en_frag.c):
 *	cxen_rx_layout_pick() of @rx_named, @rx_auto and the rest, set by
 *	cxen_reconfigure()
 * @rx_named: the RX layout the user named (an ethtool private flag, or
 *	devlink rx_layout for a new port); CXEN_RX_PAGEPOOL when none
 * @rx_auto: private flag "auto": with no layout named the driver picks one
 * @hdr_split: header/data split (ethtool -G tcp-data-split on): the
 *	striding RQ's TCP frames have their headers in header buffers
 * @lro: large receive offload (ethtool -K lro on): the striding RQ's
 *	device merges TCP segments (CXEN_RQ_F_LRO)
 * @xdp_prog: the port's XDP program, NULL for none; it holds the
 *	reference the stack gave with XDP_SETUP_PROG (en_main.c). Channels
 *	built with one have XDP RQs and XDP SQs.
 *
 * The moderation fields change on live CQs (cxen_set_moderation()); the
 * others take a new channel set (cxen_reconfigure()).
 */
struct cxen_params {
	u32	num_channels;
	u32	rq_size;
	u32	sq_size;
	u32	mtu;
	u16	rx_usecs;
	u16	rx_frames;
	u16	tx_usecs;
	u16	tx_frames;
	bool	rx_dim;
	bool	tx_dim;
	enum cxen_rx_layout rx_layout;
	enum cxen_rx_layout rx_named;
	bool	rx_auto;
	bool	hdr_split;
	bool	lro;
	struct bpf_prog *xdp_prog;
};

/* The device's port counters (struct cxen_port_counters) as an array. */
#define CXEN_HW_NCNT	(sizeof(struct cxen_port_counters) / sizeof(u64))
#define CXEN_HW(field)	(offsetof(struct cxen_port_counters, field) / sizeof(u64))

struct cxen_priv {
	struct cxen_dev		*cdev;
	struct net_device	*netdev;
	u8			port;
	/* devlink tx_doorbell_batch, read by xmit: by the hot fields. */
	bool			tx_doorbell_batch;
	/* Changed under RTNL. */
	struct cxen_params	params;
	/* LRO is wanted and cannot run (cxen_fix_features() said why). */
	bool			lro_held;
	/* The port's devlink port (physical, number @port), linked to @netdev. */
	struct devlink_port	dl_port;
	/*
	 * The running set (NULL while the port is down) and the set a
	 * reconfiguration is draining (NULL but during a switch). Both
	 * change under RTNL and @stats_lock; xmit reads @chans under RCU,
	 * the control path under RTNL, the stats under @stats_lock, which
	 * also covers @base and @qbase, so that totals never go back.
	 */
	struct cxen_chans __rcu	*chans;
	struct cxen_chans	*draining;
	/*
	 * A queue restart (en_queue.c): the RQ it took out of its channel,
	 * not yet freed (@retired_rq, counted with the sets until then), the
	 * RQ it built (@pending_rq, before stop), and the memory its stop
	 * moved the old RQ to (@stopped_rq, until start). RTNL; @retired_rq
	 * also @stats_lock.
	 */
	struct cxen_rq		*retired_rq;
	struct cxen_rq		*pending_rq;
	struct cxen_rq		*stopped_rq;
	struct dentry		*dbg_dir;	/* en_debugfs.c */
	spinlock_t		stats_lock;	/* the sets, @base, @qbase */
	struct cxen_stats_base	base;
#ifdef CONFIG_PAGE_POOL_STATS
	struct page_pool_stats	pp_base;	/* of freed channels */
#endif
	/* Per queue index: what destroyed channels of that index counted. */
	struct cxen_stats_base	qbase[CXEN_HW_MAX_CHANNELS];
	u32			tx_inline_max;	/* bytes; 0: never inline */
	struct cxen_port_stats	port_stats;	/* CXEN_PORT counters */
	/* Once a second while up: TX queues that stopped completing. */
	struct delayed_work	health_work;
	u32			rx_copybreak;	/* bytes; frames up to it are copied */
	/* Link flow control the port was last given (ethtool -A), rtnl. */
	bool			rx_pause;
	bool			tx_pause;
	/* Serialises MODIFY_CQ from ethtool -C and the DIM works. */
	struct mutex		moder_lock;
	/* Device port counters when the port was created: ethtool -S shows
	 * them since then, like every other counter of the driver.
	 */
	u64			hw_base[CXEN_HW_NCNT];
	/*
	 * The device's counters since then, as last read (stats_work every
	 * CXEN_STATS_PERIOD_USECS, every ethtool -S): ndo_get_stats64 must
	 * not sleep on a command. Under @stats_lock.
	 */
	u64			hw_cache[CXEN_HW_NCNT];
	struct delayed_work	stats_work;
	/* RSS: key and indirection table of queue indices (ethtool -x/-X). */
	u8			rss_key[CXEN_RSS_KEY_SIZE];
	u32			rss_indir[CXEN_RSS_TABLE_SIZE];
	/* RX filter (en_steer.c): programs it for ndo_set_rx_mode. */
	struct work_struct	rx_mode_work;
	/* The filter last programmed is unicast promiscuous (rtnl). */
	bool			rx_uc_overflow;
};

/**
 * struct cxen_dev - one NIC
 * @pdev: the bus device
 * @dev: &pdev->dev, the DMA device
 * @bus: register accessors (see en_bus.c)
 * @cmd_lock: serialises the command interface
 * @cmd_in: input mailbox (4 KiB coherent)
 * @cmd_out: output mailbox (4 KiB coherent)
 * @caps: QUERY_DEV output, host endian where used
 * @irqs: Linux IRQ of each vector
 * @sqn_ida: free SQ numbers
 * @rqn_ida: free RQ numbers
 * @cqn_ida: free CQ numbers
 * @hw_version: the interface version the device speaks (REG_VERSION)
 * @ports: one netdev per port (NULL until registered); changed under
 *	the devlink instance lock and RTNL
 * @async_work: handles async events (link changes) in process context
 * @recover_work: reports queues marked for a reset to the devlink health
 *	reporters, which reset them (en_health.c)
 * @tx_reporter: devlink health reporter "tx" (SQs of every port)
 * @rx_reporter: devlink health reporter "rx" (RQs of every port)
 * @reporting: the devlink instance is registered: faults are reported
 *	through it (else reset at once, counted only by the ports)
 * @rx_named: devlink rx_layout: the RX layout ports are created with
 *	(CXEN_RX_PAGEPOOL for "pagepool" and for "auto")
 * @rx_auto: devlink rx_layout is "auto" (the default): ports start with
 *	the driver's pick (&cxen_params.rx_auto)
 * @tx_doorbell_batch: devlink tx_doorbell_batch, copied to each port
 *
 * The devlink instance's private data (en_devlink.c).
 */
/**
 * enum cxen_dev_state_bits - the device as a whole, bits of &cxen_dev.state
 * @CXEN_DEV_FATAL: the device is not to be trusted (a command timed out,
 *	a syndrome, a stopped heartbeat, a DESTROY that failed): commands
 *	fail at once and nothing it may still write is freed until a reset
 * @CXEN_DEV_DEAD: a reset did not complete: the device's memory is kept
 *	(leaked) until a reset by hand (`devlink health recover ... fw`) works
 * @CXEN_DEV_REBUILD: a reset was done: every port must be programmed
 *	again, and running ports get new queues
 */
enum cxen_dev_state_bits {
	CXEN_DEV_FATAL,
	CXEN_DEV_DEAD,
	CXEN_DEV_REBUILD,
};

/**
 * enum cxen_fatal_cause - why the device was declared lost
 * @CXEN_FATAL_NONE: it was not
 * @CXEN_FATAL_CMD_TIMEOUT: a command did not complete in time
 * @CXEN_FATAL_CMD_BUSY: the command interface was busy before a command
 * @CXEN_FATAL_SYNDROME: DEV_STATUS reported a syndrome
 * @CXEN_FATAL_HEARTBEAT: the heartbeat stopped
 * @CXEN_FATAL_DESTROY: a DESTROY failed: the device may own the queue
 */
enum cxen_fatal_cause {
	CXEN_FATAL_NONE,
	CXEN_FATAL_CMD_TIMEOUT,
	CXEN_FATAL_CMD_BUSY,
	CXEN_FATAL_SYNDROME,
	CXEN_FATAL_HEARTBEAT,
	CXEN_FATAL_DESTROY,
};

struct cxen_dev {
	struct platform_device	*pdev;
	struct device		*dev;
	const struct cxen_mmio_bus *bus;
	struct mutex		cmd_lock;	/* one command at a time */
	void			*cmd_in;
	void			*cmd_out;
	dma_addr_t		cmd_in_dma;
	dma_addr_t		cmd_out_dma;
	struct {
		u32	num_ports;
		u32	max_channels;
		u32	max_rx_segs;
		u32	rsvd_lkey;
		u32	min_mtu;
		u32	max_mtu;
		u32	num_vectors;
		u32	fw_version;	/* major << 16 | minor */
		char	serial[17];	/* "" when the device gave none */
		u32	log_min_ring;
		u32	log_max_ring;
		u32	cap_flags;	/* CXEN_DEV_CAP_*, minor 3 */
		u8	log_min_stride_bytes;
		u8	log_max_stride_bytes;
		u8	log_max_wqe_bytes;
	} caps;
	int			irqs[CXEN_HW_NUM_VECTORS];
	struct ida		sqn_ida;
	struct ida		rqn_ida;
	struct ida		cqn_ida;
	struct net_device	*ports[CXEN_HW_MAX_PORTS];
	u32			hw_version;	/* REG_VERSION */
	struct work_struct	async_work;
	struct work_struct	recover_work;
	struct devlink_health_reporter *tx_reporter;
	struct devlink_health_reporter *rx_reporter;
	bool			reporting;
	enum cxen_rx_layout	rx_named;
	bool			rx_auto;
	bool			tx_doorbell_batch;
	/* The device as a whole (en_fw.c) */
	unsigned long		state;		/* enum cxen_dev_state_bits */
	u32			hw_gen;		/* device resets done */
	enum cxen_fatal_cause	fatal_cause;
	u8			syndrome;	/* DEV_STATUS at the fatal error */
	u16			heartbeat;	/* DEV_STATUS at the last poll */
	unsigned int		heartbeat_misses;
	u64			fatal_errors;
	u64			reset_failures;
	struct delayed_work	fw_poll;
	struct work_struct	fatal_work;
	struct devlink_health_reporter *fw_reporter;
	/* Channels whose queues a dead device may still use; RTNL. */
	struct list_head	leaked;
};

/* en_bus.c: the only code that touches registers */
u32 cxen_rd32(struct cxen_dev *cdev, u32 reg);
void cxen_wr32(struct cxen_dev *cdev, u32 reg, u32 val);
int cxen_bus_init(struct cxen_dev *cdev);

/* en_cmd.c: the command channel */
int cxen_cmd_init(struct cxen_dev *cdev);
void cxen_cmd_cleanup(struct cxen_dev *cdev);
int cxen_cmd_query_dev(struct cxen_dev *cdev);
int cxen_cmd_query_port(struct cxen_dev *cdev, u8 port,
			struct cxen_port_info *info);
int cxen_cmd_query_counters(struct cxen_dev *cdev, u8 port,
			    struct cxen_port_counters *out);
int cxen_cmd_set_port(struct cxen_dev *cdev, u8 port, u32 valid, u16 mtu,
		      bool admin_up);
int cxen_cmd_set_port_offloads(struct cxen_dev *cdev, u8 port, bool vlan_strip,
			       bool loopback);
int cxen_cmd_set_port_pause(struct cxen_dev *cdev, u8 port, bool rx_pause,
			    bool tx_pause);
int cxen_cmd_create_cq(struct cxen_dev *cdev, struct cxen_cq *cq,
		       dma_addr_t dbrec_dma, int vector);
int cxen_cmd_modify_cq(struct cxen_dev *cdev, u32 cqn, u16 usecs, u16 frames);
int cxen_cmd_query_wq(struct cxen_dev *cdev, u16 op, u32 num,
		      struct cxen_wq_state *out);
int cxen_cmd_modify_wq(struct cxen_dev *cdev, u16 op, u32 num, u32 state);
int cxen_cmd_create_wq(struct cxen_dev *cdev, u16 op, u32 num, u8 port,
		       dma_addr_t ring_dma, dma_addr_t dbrec_dma, u32 cqn,
		       u8 log_size, u8 log_stride);
int cxen_cmd_create_rq(struct cxen_dev *cdev, u32 num,
		       const struct cxen_rq_ctx *ctx);
int cxen_cmd_set_rss(struct cxen_dev *cdev, u8 port, const u8 *key,
		     const u32 *rqn);
int cxen_cmd_set_rx_filter(struct cxen_dev *cdev, u8 port,
			   const struct cxen_rx_filter *filter);
/* en_cmd.c: the device lost and reset */
void cxen_dev_fatal(struct cxen_dev *cdev, enum cxen_fatal_cause cause);
const char *cxen_fatal_cause_name(enum cxen_fatal_cause cause);
int cxen_dev_reset(struct cxen_dev *cdev);
int cxen_hw_release(struct cxen_dev *cdev, u16 op, u32 num, u32 gen);

/* en_tx.c */
int cxen_sq_alloc(struct cxen_channel *ch, struct cxen_sq *sq, bool xdp);
bool cxen_sq_free(struct cxen_sq *sq);
int cxen_sq_stop_hw(struct cxen_sq *sq);
void cxen_sq_serve(struct cxen_sq *sq, bool serving);
void cxen_sq_drop_pending(struct cxen_sq *sq);
void cxen_sq_reap_all(struct cxen_sq *sq);
void cxen_sq_restart(struct cxen_sq *sq);
netdev_tx_t cxen_start_xmit(struct sk_buff *skb, struct net_device *dev);
netdev_features_t cxen_features_check(struct sk_buff *skb,
				      struct net_device *netdev,
				      netdev_features_t features);
bool cxen_poll_tx(struct cxen_sq *sq, int budget);

/**
 * struct cxen_xdp_buff - the xdp_buff an RQ runs its program on, with
 * what the metadata kfuncs (cxen_xdp_metadata_ops) read
 * @xdp: the buff; first, the program's context points at it
 * @rq: the RQ
 * @cqe: the frame's CQE, in the CQ ring while the program runs
 */
struct cxen_xdp_buff {
	struct xdp_buff xdp;
	struct cxen_rq *rq;
	const struct cxen_cqe *cqe;
};

/* en_xdp.c: XDP SQs, XDP_TX, ndo_xdp_xmit, RX metadata */
extern const struct xdp_metadata_ops cxen_xdp_metadata_ops;
bool cxen_xdp_tx(struct cxen_sq *sq, const struct xdp_buff *xdp,
		 struct page *head);
void cxen_xsq_flush(struct cxen_sq *sq);
bool cxen_poll_xsq(struct cxen_sq *sq, int budget);
bool cxen_xsq_free(struct cxen_sq *sq);
bool cxen_xsq_idle(struct cxen_sq *sq);
bool cxen_xsq_drain(struct cxen_channel *ch);
int cxen_xsq_recover(struct cxen_channel *ch);
enum xdp_rss_hash_type cxen_xdp_rss_type(u32 cqe_flags);
int cxen_xdp_xmit(struct net_device *netdev, int n, struct xdp_frame **frames,
		  u32 flags);
/* en_cq.c: completion queues */
void cxen_cq_free(struct cxen_dev *cdev, struct cxen_cq *cq);
int cxen_cq_create(struct cxen_channel *ch, struct cxen_cq *cq, u8 log_size,
		   u16 usecs, u16 frames);
bool cxen_cq_destroy(struct cxen_dev *cdev, struct cxen_cq *cq);
void cxen_cq_arm(struct cxen_dev *cdev, struct cxen_cq *cq);

/* en_irq.c: interrupts, NAPI, moderation */
int cxen_napi_poll(struct napi_struct *napi, int budget);
irqreturn_t cxen_channel_irq(int irq, void *data);
void cxen_dim_init(struct cxen_channel *ch);
void cxen_rx_dim_restart(struct cxen_channel *ch);
int cxen_set_moderation(struct cxen_priv *priv, const struct cxen_params *new,
			struct netlink_ext_ack *extack);

/* en_params.c: the port's parameters, their checks, cxen_reconfigure() */
int cxen_reconfigure(struct cxen_priv *priv, const struct cxen_params *new,
		     struct netlink_ext_ack *extack);
void cxen_rx_pick_params(const struct cxen_priv *priv, struct cxen_params *p);
const char *cxen_lro_why_not(const struct cxen_priv *priv,
			     const struct cxen_params *p);
void cxen_lro_update(struct cxen_priv *priv);
void cxen_xdp_features_update(struct cxen_priv *priv);
int cxen_xdp_check(struct cxen_priv *priv, const struct cxen_params *p,
		   struct netlink_ext_ack *extack);
int cxen_rx_layout_dev_check(const struct cxen_dev *cdev,
			     struct net_device *netdev, enum cxen_rx_layout s,
			     struct netlink_ext_ack *extack);
bool cxen_rx_queues_only(const struct cxen_params *cur,
			 const struct cxen_params *new);
bool cxen_queues_unchanged(const struct cxen_params *cur,
			   const struct cxen_params *new);

/* en_channels.c: channel sets, the switch engine, carrier */
int cxen_channels_switch(struct cxen_priv *priv,
			 const struct cxen_params *params,
			 struct netlink_ext_ack *extack);
void cxen_channels_close(struct cxen_priv *priv);
void cxen_leaked_free(struct cxen_dev *cdev);
void cxen_update_carrier(struct cxen_priv *priv);
void cxen_channels_xdp_swap(struct cxen_priv *priv, struct bpf_prog *prog);
void cxen_channel_spare_dbrecs(struct cxen_channel *ch, struct cxen_rq *rq);

/* en_stats.c */
void cxen_channel_fold(struct cxen_channel *ch);
void cxen_rq_fold(struct cxen_priv *priv, struct cxen_rq *rq);
void cxen_get_stats_base(struct cxen_priv *priv, struct cxen_stats_base *b);
#ifdef CONFIG_PAGE_POOL_STATS
void cxen_get_pp_stats(struct cxen_priv *priv, struct page_pool_stats *pps);
#endif
void cxen_get_queue_stats(struct cxen_priv *priv, unsigned int idx,
			  struct cxen_stats_base *q);
void cxen_get_stats64(struct net_device *netdev,
		      struct rtnl_link_stats64 *stats);
#if CXEN_STATS_DIRECT
static inline void cxen_rq_stats_publish(struct cxen_rq *rq) {}
static inline void cxen_sq_cstats_publish(struct cxen_sq *sq) {}
#else
void cxen_rq_stats_publish(struct cxen_rq *rq);
void cxen_sq_cstats_publish(struct cxen_sq *sq);
#endif
int cxen_hw_counters_now(struct cxen_priv *priv, u64 *v);
int cxen_hw_stats_read(struct cxen_priv *priv, u64 *v);
void cxen_stats_start(struct cxen_priv *priv);
void cxen_stats_stop(struct cxen_priv *priv);
void cxen_sw_stats_strings(u8 **data);
u64 *cxen_sw_stats_values(struct cxen_priv *priv, u64 *data);
extern const struct netdev_stat_ops cxen_stat_ops;

/* en_fw.c: the device as a whole: lost, rebuilt, the "fw" reporter */
void cxen_fw_async(struct cxen_dev *cdev);
void cxen_fw_init(struct cxen_dev *cdev);
int cxen_fw_reporter_create(struct cxen_dev *cdev);
void cxen_fw_reporter_destroy(struct cxen_dev *cdev);
void cxen_fw_start(struct cxen_dev *cdev);
void cxen_fw_stop(struct cxen_dev *cdev);

/* en_queue.c: per-queue restart (netdev_queue_mgmt_ops) */
extern const struct netdev_queue_mgmt_ops cxen_queue_mgmt_ops;
int cxen_rx_queue_restart(struct cxen_priv *priv, unsigned int idx);
int cxen_rx_queues_switch(struct cxen_priv *priv,
			  const struct cxen_params *params,
			  struct netlink_ext_ack *extack);

/* en_debugfs.c */
void cxen_debugfs_port_add(struct cxen_priv *priv);
void cxen_debugfs_port_remove(struct cxen_priv *priv);
void cxen_debugfs_init(void);
void cxen_debugfs_exit(void);

/* en_health.c: TX hang detection and SQ recovery */
bool cxen_napi_reap(struct cxen_channel *ch, struct cxen_cq *cq);
void cxen_health_init(struct cxen_priv *priv);
void cxen_health_start(struct cxen_priv *priv);
void cxen_health_stop(struct cxen_priv *priv);
void cxen_health_dev_init(struct cxen_dev *cdev);
int cxen_health_reporters_create(struct cxen_dev *cdev);
void cxen_health_reporters_destroy(struct cxen_dev *cdev);
void cxen_health_enable(struct cxen_dev *cdev);
void cxen_health_disable(struct cxen_dev *cdev);
void cxen_health_scan(struct cxen_dev *cdev);
void cxen_sq_report(struct cxen_channel *ch, const char *what);
void cxen_tx_timeout(struct net_device *netdev, unsigned int txqueue);

/* en_netdev.c: the ports, their netdevs and net_device_ops */
int cxen_port_rebuild(struct cxen_priv *priv);
int cxen_ports_create(struct cxen_dev *cdev);
void cxen_ports_destroy(struct cxen_dev *cdev);

/* en_steer.c: the device's RX filter, MAC address changes, RSS */
void cxen_rx_mode_init(struct cxen_priv *priv);
void cxen_rx_mode_stop(struct cxen_priv *priv);
int cxen_rx_filter_program(struct cxen_priv *priv, const u8 *mac);
void cxen_set_rx_mode(struct net_device *netdev);
int cxen_set_mac_address(struct net_device *netdev, void *addr);
int cxen_rss_steer_queue(struct cxen_priv *priv, int idx, u32 rqn);
int cxen_rss_apply(struct cxen_priv *priv, const u8 *key, const u32 *indir,
		   const struct cxen_chans *chans);
void cxen_rss_indir_for(struct cxen_priv *priv, unsigned int n, u32 *indir);

/* en_devlink.c */
struct cxen_dev *cxen_devlink_alloc(struct device *dev);
int cxen_devlink_params_register(struct cxen_dev *cdev);
void cxen_devlink_params_unregister(struct cxen_dev *cdev);

/* en_ethtool.c */
extern const struct ethtool_ops cxen_ethtool_ops;

/**
 * cxen_cqe_owned() - whether the CQE at the consumer index is the driver's
 * @cq: the CQ
 *
 * Return: the CQE at @cq->ci if the device has written it, else NULL.
 * The caller must dma_rmb() before reading the CQE's other fields.
 */
static inline struct cxen_cqe *cxen_cqe_owned(struct cxen_cq *cq)
{
	struct cxen_cqe *cqe = &cq->cqes[cq->ci & ((1U << cq->log_size) - 1)];
	bool sw_parity = (cq->ci >> cq->log_size) & 1;

	if (!!(READ_ONCE(cqe->owner_sr_opcode) & CXEN_CQE_OWNER) != sw_parity)
		return NULL;
	return cqe;
}

/**
 * cxen_chans_rtnl() - the running channel set, for its writers' side
 * @priv: the port
 *
 * Caller holds RTNL or @priv->stats_lock.
 *
 * Return: the set, NULL while the port is down.
 */
static inline struct cxen_chans *cxen_chans_rtnl(struct cxen_priv *priv)
{
	return rcu_dereference_protected(priv->chans,
					 lockdep_rtnl_is_held() ||
					 lockdep_is_held(&priv->stats_lock));
}

/**
 * cxen_sq_schedule_reset() - have an SQ reset in place
 * @sq: an SQ in the error state, or one the watchdog found stuck
 *
 * Any context: marks @sq and queues the device's health work, which
 * reports it to the devlink "tx" reporter, whose recovery resets the
 * marked SQs of the running sets (en_health.c).
 */
static inline void cxen_sq_schedule_reset(struct cxen_sq *sq)
{
	if (!test_and_set_bit(CXEN_SQ_RESET, &sq->state))
		schedule_work(&sq->cdev->recover_work);
}

/**
 * cxen_rq_schedule_reset() - have an RQ the device put in error reset
 * @rq: the RQ
 *
 * Any context; the reset runs from the device's health work.
 */
static inline void cxen_rq_schedule_reset(struct cxen_rq *rq)
{
	if (!test_and_set_bit(CXEN_RQ_RESET, &rq->state))
		schedule_work(&rq->priv->cdev->recover_work);
}

/**
 * cxen_channel_kick() - have NAPI take what came while it was off
 * @ch: the channel, its NAPI enabled again after a queue was reset or
 *	replaced
 *
 * CQEs written while the NAPI was disabled found their CQ disarmed, or
 * raised an interrupt no poll answered: a poll takes them, and arms every
 * CQ of the channel (its SQ's, its XDP SQ's, its RQ's) when it completes.
 */
static inline void cxen_channel_kick(struct cxen_channel *ch)
{
	local_bh_disable();
	napi_schedule(&ch->napi);
	local_bh_enable();
}

/* Publish the CQ consumer index to the device. */
static inline void cxen_cq_update_ci(struct cxen_cq *cq)
{
	WRITE_ONCE(cq->dbrec->ci, cpu_to_be32(cq->ci & CXEN_CQ_DBREC_CI));
}

#endif /* _CXEN_EN_H_ */
