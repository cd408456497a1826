/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxen: a port's configuration (struct cxen_params), its defaults, and
 * en_params.c's checks and derivations of it.
 */
#ifndef _CXEN_EN_PARAMS_H_
#define _CXEN_EN_PARAMS_H_

#include <linux/types.h>

#include "en_frag.h"

struct bpf_prog;
struct cxen_dev;
struct cxen_priv;
struct net_device;
struct netlink_ext_ack;

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

/* en_params.c: the port's parameters, their checks, cxen_reconfigure() */
void cxen_port_defaults(struct cxen_priv *priv);
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

#endif /* _CXEN_EN_PARAMS_H_ */
