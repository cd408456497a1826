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
 *
 * The queues themselves (CQ, RQ, SQ) are en_txrx.h's, the port's
 * configuration en_params.h's; this header has the device, the port and
 * the channel, and the functions each file exports to the others.
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
#include "en_params.h"
#include "en_stats.h"
#include "en_txrx.h"

#define CXEN_DRV_NAME		"cxen"
/* The VERSION file, passed by Kbuild. */
#define CXEN_DRV_VERSION	CXEN_PKG_VERSION

#define CXEN_CMD_TIMEOUT_MS	5000

/*
 * The device's port counters are read by a command this often (and on
 * every ethtool -S); ethtool -c shows it as stats-block-usecs, how long
 * a tool waits before trusting ndo_get_stats64's device counters.
 */
#define CXEN_STATS_PERIOD_USECS	1000000U	/* 1 s */

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
 * @bus: the register window (en_bus.c), for cxen_rd32() and cxen_wr32()
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

/**
 * cxen_rd32() - read a device register
 * @cdev: the device
 * @reg: the register's offset (CXEN_REG_*)
 *
 * Through the bus en_bus.c found at probe: the model's accessors here,
 * readl() on BAR 0 for a PCI device. The only code that reads registers.
 *
 * Return: the register's value.
 */
static inline u32 cxen_rd32(struct cxen_dev *cdev, u32 reg)
{
	return cdev->bus->read32(cdev->bus->ctx, reg);
}

/**
 * cxen_wr32() - write a device register (a doorbell, a command's control)
 * @cdev: the device
 * @reg: the register's offset (CXEN_REG_*)
 * @val: the value
 *
 * The only code that writes registers.
 */
static inline void cxen_wr32(struct cxen_dev *cdev, u32 reg, u32 val)
{
	cdev->bus->write32(cdev->bus->ctx, reg, val);
}

/* en_bus.c: the register window */
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

/* en_irq.c: interrupts, NAPI, moderation */
int cxen_napi_poll(struct napi_struct *napi, int budget);
irqreturn_t cxen_channel_irq(int irq, void *data);
void cxen_dim_init(struct cxen_channel *ch);
void cxen_rx_dim_restart(struct cxen_channel *ch);
int cxen_set_moderation(struct cxen_priv *priv, const struct cxen_params *new,
			struct netlink_ext_ack *extack);

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

#endif /* _CXEN_EN_H_ */
