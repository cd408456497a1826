// SPDX-License-Identifier: GPL-2.0
/*
 * cxen ethtool: driver info, link, rings, channels and counters.
 */
#include <kunit/visibility.h>
#include <linux/ethtool.h>
#include <linux/ethtool_netlink.h>
#include <linux/rtnetlink.h>
#include <linux/string_choices.h>
#include <net/page_pool/helpers.h>

#include "en.h"

struct cxen_hw_stat {
	char	name[ETH_GSTRING_LEN];
	size_t	offset;
};

/* The device's port counters since the port was created, host endian. */

#define CXEN_HW_STAT(f)							\
	{ .name = "hw_" #f, .offset = offsetof(struct cxen_port_counters, f) }

/* The device's own port counters (QUERY_COUNTERS), as ethtool -S shows. */
static const struct cxen_hw_stat cxen_hw_stats[] = {
	CXEN_HW_STAT(tx_frames),
	CXEN_HW_STAT(tx_bytes),
	CXEN_HW_STAT(tx_oversize),
	CXEN_HW_STAT(tx_link_down),
	CXEN_HW_STAT(tx_error_cqes),
	CXEN_HW_STAT(rx_frames),
	CXEN_HW_STAT(rx_bytes),
	CXEN_HW_STAT(rx_oversize),
	CXEN_HW_STAT(rx_no_rq),
	CXEN_HW_STAT(rx_out_of_buffer),
	CXEN_HW_STAT(rx_cq_overrun),
	CXEN_HW_STAT(rx_queue_error),
	CXEN_HW_STAT(rx_error_cqes),
	CXEN_HW_STAT(rx_csum_bad),
	CXEN_HW_STAT(tx_multicast),
	CXEN_HW_STAT(tx_broadcast),
	CXEN_HW_STAT(rx_multicast),
	CXEN_HW_STAT(rx_broadcast),
	CXEN_HW_STAT(rx_vlan_stripped),
	CXEN_HW_STAT(tx_pause),
	CXEN_HW_STAT(rx_pause),
	CXEN_HW_STAT(rx_filtered),
	CXEN_HW_STAT(rx_filtered_bytes),
	CXEN_HW_STAT(tx_discarded),
};

#define CXEN_NUM_HW_STATS	ARRAY_SIZE(cxen_hw_stats)

/*
 * The counters ethtool -S shows per queue as well, in this order, each
 * named with the queue index after its first word (rx_xdp_pass: queue 2's
 * is rx2_xdp_pass), over every channel that had that index.
 */
struct cxen_queue_stat {
	char	name[ETH_GSTRING_LEN];
	size_t	total;		/* in struct cxen_stats_base */
};

#define CXEN_QUEUE_STAT(f)						\
	{ .name = #f, .total = offsetof(struct cxen_stats_base, f) }

static const struct cxen_queue_stat cxen_queue_stats[] = {
	CXEN_QUEUE_STAT(rx_packets),
	CXEN_QUEUE_STAT(rx_bytes),
	CXEN_QUEUE_STAT(tx_packets),
	CXEN_QUEUE_STAT(tx_bytes),
	CXEN_QUEUE_STAT(rx_xdp_pass),
	CXEN_QUEUE_STAT(rx_xdp_drop),
	CXEN_QUEUE_STAT(rx_xdp_tx),
	CXEN_QUEUE_STAT(rx_xdp_redirect),
	CXEN_QUEUE_STAT(rx_xdp_aborted),
	CXEN_QUEUE_STAT(tx_xdp_xmit),
	CXEN_QUEUE_STAT(tx_xdp_full),
	CXEN_QUEUE_STAT(xdp_tx_doorbell),
};

#define CXEN_NUM_QUEUE_STATS	ARRAY_SIZE(cxen_queue_stats)

/* rx_xdp_pass of queue 2: rx2_xdp_pass. */
static void cxen_queue_stat_string(u8 **data, const char *name,
				   unsigned int q)
{
	const char *rest = strchr(name, '_');

	ethtool_sprintf(data, "%.*s%u%s", (int)(rest - name), name, q, rest);
}

/*
 * Private flags name an RX layout other than the default page_pool one
 * (at most one flag set): the striding RQ (on a device that has it), and
 * the benchmark's comparison layouts when built (CONFIG_CXEN_RX_COMPARE).
 * Each flag is named after its layout; striding comes last so that the
 * comparison flags keep their bits. The flag after them, "auto" (on by
 * default), lets the driver pick when none is named
 * (cxen_rx_layout_pick(): striding above the MTU the default layout
 * builds in place, unless XDP runs). The flags show what was asked; the
 * layout running is debugfs cxen/<dev>-port<N>/rx_layout.
 */
static const enum cxen_rx_layout cxen_priv_flag_layout[] = {
#if IS_ENABLED(CONFIG_CXEN_RX_COMPARE)
	CXEN_RX_LEGACY2012,
	CXEN_RX_WHOLEPAGE2012,
	CXEN_RX_ONEFRAG2013,
#endif
	CXEN_RX_STRIDING,
};

#define CXEN_NUM_LAYOUT_FLAGS	ARRAY_SIZE(cxen_priv_flag_layout)
#define CXEN_PRIV_FLAG_AUTO	CXEN_NUM_LAYOUT_FLAGS
#define CXEN_NUM_PRIV_FLAGS	(CXEN_NUM_LAYOUT_FLAGS + 1)

static void cxen_get_drvinfo(struct net_device *netdev,
			     struct ethtool_drvinfo *info)
{
	struct cxen_priv *priv = netdev_priv(netdev);

	strscpy(info->driver, CXEN_DRV_NAME, sizeof(info->driver));
	strscpy(info->version, CXEN_DRV_VERSION, sizeof(info->version));
	strscpy(info->bus_info, dev_name(priv->cdev->dev), sizeof(info->bus_info));
	snprintf(info->fw_version, sizeof(info->fw_version), "%u.%u",
		 priv->cdev->caps.fw_version >> 16,
		 priv->cdev->caps.fw_version & 0xffff);
}

static int cxen_get_sset_count(struct net_device *netdev, int sset)
{
	struct cxen_priv *priv = netdev_priv(netdev);

	switch (sset) {
	case ETH_SS_STATS:
		return CXEN_NUM_SW_STATS + CXEN_NUM_HW_STATS +
		       CXEN_NUM_QUEUE_STATS * priv->params.num_channels +
		       page_pool_ethtool_stats_get_count();
	case ETH_SS_PRIV_FLAGS:
		return CXEN_NUM_PRIV_FLAGS;
	default:
		return -EOPNOTSUPP;
	}
}

static void cxen_get_strings(struct net_device *netdev, u32 sset, u8 *data)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	unsigned int i, j;

	if (sset == ETH_SS_PRIV_FLAGS) {
		for (i = 0; i < CXEN_NUM_LAYOUT_FLAGS; i++)
			ethtool_puts(&data,
				     cxen_rx_layouts[cxen_priv_flag_layout[i]].name);
		ethtool_puts(&data, CXEN_RX_AUTO_NAME);
		return;
	}
	if (sset != ETH_SS_STATS)
		return;
	cxen_sw_stats_strings(&data);
	for (i = 0; i < CXEN_NUM_HW_STATS; i++)
		ethtool_puts(&data, cxen_hw_stats[i].name);
	for (i = 0; i < priv->params.num_channels; i++)
		for (j = 0; j < CXEN_NUM_QUEUE_STATS; j++)
			cxen_queue_stat_string(&data, cxen_queue_stats[j].name,
					       i);
	page_pool_ethtool_stats_get_strings(data);
}

/* page_pool's own counters over the port's life, if built in. */
static u64 *cxen_get_page_pool_stats(struct cxen_priv *priv, u64 *data)
{
#ifdef CONFIG_PAGE_POOL_STATS
	struct page_pool_stats pps;

	cxen_get_pp_stats(priv, &pps);
	return page_pool_ethtool_stats_get(data, &pps);
#else
	return data;
#endif
}

static void cxen_get_ethtool_stats(struct net_device *netdev,
				   struct ethtool_stats *stats, u64 *data)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	u64 hw[CXEN_HW_NCNT];
	unsigned int i, j;

	data = cxen_sw_stats_values(priv, data);
	/* -S shows every counter but the histograms (--groups rmon). */
	BUILD_BUG_ON(CXEN_HW(rsvd) - 2 * CXEN_HIST_BUCKETS != CXEN_NUM_HW_STATS);
	if (cxen_hw_stats_read(priv, hw))
		memset(hw, 0, sizeof(hw));
	for (i = 0; i < CXEN_NUM_HW_STATS; i++)
		*data++ = hw[cxen_hw_stats[i].offset / sizeof(u64)];
	for (i = 0; i < priv->params.num_channels; i++) {
		struct cxen_stats_base q;

		cxen_get_queue_stats(priv, i, &q);
		for (j = 0; j < CXEN_NUM_QUEUE_STATS; j++)
			*data++ = *(u64 *)((void *)&q +
					   cxen_queue_stats[j].total);
	}
	cxen_get_page_pool_stats(priv, data);
}

/* IEEE 802.3 MAC counters: frames and bytes the device delivered or sent. */
static void cxen_get_eth_mac_stats(struct net_device *netdev,
				   struct ethtool_eth_mac_stats *s)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	u64 hw[CXEN_HW_NCNT];

	if (cxen_hw_stats_read(priv, hw))
		return;
	s->FramesTransmittedOK = hw[CXEN_HW(tx_frames)];
	s->OctetsTransmittedOK = hw[CXEN_HW(tx_bytes)];
	s->MulticastFramesXmittedOK = hw[CXEN_HW(tx_multicast)];
	s->BroadcastFramesXmittedOK = hw[CXEN_HW(tx_broadcast)];
	s->FramesReceivedOK = hw[CXEN_HW(rx_frames)];
	s->OctetsReceivedOK = hw[CXEN_HW(rx_bytes)];
	s->MulticastFramesReceivedOK = hw[CXEN_HW(rx_multicast)];
	s->BroadcastFramesReceivedOK = hw[CXEN_HW(rx_broadcast)];
	s->FrameTooLongErrors = hw[CXEN_HW(rx_oversize)];
}

/* The device's size buckets (cxen_hw.h), FCS included. */
static const struct ethtool_rmon_hist_range cxen_rmon_ranges[] = {
	{    0,   64 },
	{   65,  127 },
	{  128,  255 },
	{  256,  511 },
	{  512, 1023 },
	{ 1024, 1518 },
	{ 1519, 2047 },
	{ 2048, 4095 },
	{ 4096, 9622 },
	{}
};

static void cxen_get_rmon_stats(struct net_device *netdev,
				struct ethtool_rmon_stats *s,
				const struct ethtool_rmon_hist_range **ranges)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	u64 hw[CXEN_HW_NCNT];
	unsigned int i;

	BUILD_BUG_ON(ARRAY_SIZE(cxen_rmon_ranges) != CXEN_HIST_BUCKETS + 1 ||
		     CXEN_HIST_BUCKETS > ETHTOOL_RMON_HIST_MAX);
	if (cxen_hw_stats_read(priv, hw))
		return;
	s->oversize_pkts = hw[CXEN_HW(rx_oversize)];
	for (i = 0; i < CXEN_HIST_BUCKETS; i++) {
		s->hist[i] = hw[CXEN_HW(rx_hist) + i];
		s->hist_tx[i] = hw[CXEN_HW(tx_hist) + i];
	}
	*ranges = cxen_rmon_ranges;
}

static void cxen_get_ringparam(struct net_device *netdev,
			       struct ethtool_ringparam *ring,
			       struct kernel_ethtool_ringparam *kring,
			       struct netlink_ext_ack *extack)
{
	struct cxen_priv *priv = netdev_priv(netdev);

	ring->rx_max_pending = 1U << priv->cdev->caps.log_max_ring;
	ring->tx_max_pending = 1U << priv->cdev->caps.log_max_ring;
	ring->rx_pending = priv->params.rq_size;
	ring->tx_pending = priv->params.sq_size;
	if (priv->cdev->caps.cap_flags & CXEN_DEV_CAP_HDR_SPLIT)
		kring->tcp_data_split = priv->params.hdr_split ?
					ETHTOOL_TCP_DATA_SPLIT_ENABLED :
					ETHTOOL_TCP_DATA_SPLIT_DISABLED;
}

static int cxen_set_ringparam(struct net_device *netdev,
			      struct ethtool_ringparam *ring,
			      struct kernel_ethtool_ringparam *kring,
			      struct netlink_ext_ack *extack)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	u32 min = 1U << priv->cdev->caps.log_min_ring;
	u32 max = 1U << priv->cdev->caps.log_max_ring;
	struct cxen_params p = priv->params;
	int err;

	if (ring->rx_mini_pending || ring->rx_jumbo_pending) {
		NL_SET_ERR_MSG_MOD(extack, "only rx and tx rings can be sized");
		return -EINVAL;
	}
	if (ring->rx_pending < min || ring->tx_pending < min) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "rings need at least %u entries", min);
		return -EINVAL;
	}
	/* The core already refused sizes over the maximum. */
	p.rq_size = roundup_pow_of_two(ring->rx_pending);
	p.sq_size = roundup_pow_of_two(ring->tx_pending);
	if (p.rq_size > max || p.sq_size > max) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "rings hold at most %u entries", max);
		return -EINVAL;
	}
	if (p.rq_size != ring->rx_pending || p.sq_size != ring->tx_pending)
		NL_SET_ERR_MSG_MOD(extack, "ring sizes rounded up to a power of two");
	/* auto (UNKNOWN) is the driver's default: no split. */
	p.hdr_split = kring->tcp_data_split == ETHTOOL_TCP_DATA_SPLIT_ENABLED;
	if (p.rq_size == priv->params.rq_size &&
	    p.sq_size == priv->params.sq_size &&
	    p.hdr_split == priv->params.hdr_split)
		return 0;
	err = cxen_reconfigure(priv, &p, extack);
	if (!err)
		cxen_lro_update(priv);
	return err;
}

static void cxen_get_channels(struct net_device *netdev,
			      struct ethtool_channels *ch)
{
	struct cxen_priv *priv = netdev_priv(netdev);

	ch->max_combined = priv->cdev->caps.max_channels;
	ch->combined_count = priv->params.num_channels;
}

static int cxen_set_channels(struct net_device *netdev,
			     struct ethtool_channels *ch)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_params p = priv->params;

	/* The core refuses rx, tx and other counts we do not report. */
	if (!ch->combined_count ||
	    ch->combined_count > priv->cdev->caps.max_channels) {
		netdev_err(netdev, "combined channels must be 1..%u\n",
			   priv->cdev->caps.max_channels);
		return -EINVAL;
	}
	if (ch->combined_count == p.num_channels)
		return 0;
	p.num_channels = ch->combined_count;
	return cxen_reconfigure(priv, &p, NULL);
}

static int cxen_get_coalesce(struct net_device *netdev,
			     struct ethtool_coalesce *ec,
			     struct kernel_ethtool_coalesce *kec,
			     struct netlink_ext_ack *extack)
{
	struct cxen_priv *priv = netdev_priv(netdev);

	ec->rx_coalesce_usecs = priv->params.rx_usecs;
	ec->rx_max_coalesced_frames = priv->params.rx_frames;
	ec->tx_coalesce_usecs = priv->params.tx_usecs;
	ec->tx_max_coalesced_frames = priv->params.tx_frames;
	ec->use_adaptive_rx_coalesce = priv->params.rx_dim;
	ec->use_adaptive_tx_coalesce = priv->params.tx_dim;
	ec->stats_block_coalesce_usecs = CXEN_STATS_PERIOD_USECS;
	return 0;
}

static int cxen_set_coalesce(struct net_device *netdev,
			     struct ethtool_coalesce *ec,
			     struct kernel_ethtool_coalesce *kec,
			     struct netlink_ext_ack *extack)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_params p = priv->params;

	if (ec->rx_coalesce_usecs > CXEN_HW_MAX_MODER_USECS ||
	    ec->tx_coalesce_usecs > CXEN_HW_MAX_MODER_USECS) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "rx-usecs and tx-usecs must be 0..%u",
				       CXEN_HW_MAX_MODER_USECS);
		return -EINVAL;
	}
	if (ec->rx_max_coalesced_frames > CXEN_HW_MAX_MODER_FRAMES ||
	    ec->tx_max_coalesced_frames > CXEN_HW_MAX_MODER_FRAMES) {
		NL_SET_ERR_MSG_FMT_MOD(extack, "rx-frames and tx-frames must be 0..%u",
				       CXEN_HW_MAX_MODER_FRAMES);
		return -EINVAL;
	}
	if (ec->stats_block_coalesce_usecs != CXEN_STATS_PERIOD_USECS) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "stats-block-usecs is fixed: the device counters are read every %u us",
				       CXEN_STATS_PERIOD_USECS);
		return -EINVAL;
	}
	p.rx_usecs = ec->rx_coalesce_usecs;
	p.rx_frames = ec->rx_max_coalesced_frames;
	p.tx_usecs = ec->tx_coalesce_usecs;
	p.tx_frames = ec->tx_max_coalesced_frames;
	p.rx_dim = ec->use_adaptive_rx_coalesce;
	p.tx_dim = ec->use_adaptive_tx_coalesce;
	if (p.rx_usecs == priv->params.rx_usecs &&
	    p.rx_frames == priv->params.rx_frames &&
	    p.tx_usecs == priv->params.tx_usecs &&
	    p.tx_frames == priv->params.tx_frames &&
	    p.rx_dim == priv->params.rx_dim && p.tx_dim == priv->params.tx_dim)
		return 0;
	/* Applied to the live CQs: no queue is rebuilt. */
	return cxen_set_moderation(priv, &p, extack);
}

static int cxen_get_rxnfc(struct net_device *netdev, struct ethtool_rxnfc *cmd,
			  u32 *rule_locs)
{
	struct cxen_priv *priv = netdev_priv(netdev);

	switch (cmd->cmd) {
	case ETHTOOL_GRXRINGS:
		cmd->data = priv->params.num_channels;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static u32 cxen_get_rxfh_key_size(struct net_device *netdev)
{
	return CXEN_RSS_KEY_SIZE;
}

static u32 cxen_get_rxfh_indir_size(struct net_device *netdev)
{
	return CXEN_RSS_TABLE_SIZE;
}

static int cxen_get_rxfh(struct net_device *netdev,
			 struct ethtool_rxfh_param *rxfh)
{
	struct cxen_priv *priv = netdev_priv(netdev);

	rxfh->hfunc = ETH_RSS_HASH_TOP;
	if (rxfh->indir)
		memcpy(rxfh->indir, priv->rss_indir, sizeof(priv->rss_indir));
	if (rxfh->key)
		memcpy(rxfh->key, priv->rss_key, sizeof(priv->rss_key));
	return 0;
}

static int cxen_set_rxfh(struct net_device *netdev,
			 struct ethtool_rxfh_param *rxfh,
			 struct netlink_ext_ack *extack)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	u32 indir[CXEN_RSS_TABLE_SIZE];
	u8 key[CXEN_RSS_KEY_SIZE];
	unsigned int i;
	int err;

	if (rxfh->hfunc != ETH_RSS_HASH_NO_CHANGE &&
	    rxfh->hfunc != ETH_RSS_HASH_TOP) {
		NL_SET_ERR_MSG_MOD(extack, "the device hashes with Toeplitz only");
		return -EOPNOTSUPP;
	}
	if (rxfh->indir)
		for (i = 0; i < CXEN_RSS_TABLE_SIZE; i++)
			if (rxfh->indir[i] >= priv->params.num_channels) {
				NL_SET_ERR_MSG_FMT_MOD(extack,
						       "indirection entry %u: queue %u of %u",
						       i, rxfh->indir[i],
						       priv->params.num_channels);
				return -EINVAL;
			}

	memcpy(indir, rxfh->indir ?: priv->rss_indir, sizeof(indir));
	memcpy(key, rxfh->key ?: priv->rss_key, sizeof(key));
	err = cxen_rss_apply(priv, key, indir, cxen_chans_rtnl(priv));
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "device refused the RSS configuration");
		return err;
	}
	memcpy(priv->rss_indir, indir, sizeof(indir));
	memcpy(priv->rss_key, key, sizeof(key));
	return 0;
}

/* "ethtool -r": take the link down and up again. */
static int cxen_nway_reset(struct net_device *netdev)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	int err;

	if (!netif_running(netdev))
		return -ENETDOWN;
	err = cxen_cmd_set_port(priv->cdev, priv->port, CXEN_PORT_SET_ADMIN, 0,
				false);
	if (err)
		return err;
	/* The link is down now: say so before it comes back (async event). */
	cxen_update_carrier(priv);
	return cxen_cmd_set_port(priv->cdev, priv->port, CXEN_PORT_SET_ADMIN, 0,
				 true);
}

static int cxen_get_link_ksettings(struct net_device *netdev,
				   struct ethtool_link_ksettings *ks)
{
	ks->base.port = PORT_DA;
	ks->base.autoneg = AUTONEG_DISABLE;
	ethtool_link_ksettings_add_link_mode(ks, supported, Pause);
	ethtool_link_ksettings_add_link_mode(ks, supported, Asym_Pause);
	if (netif_carrier_ok(netdev)) {
		ks->base.speed = CXEN_HW_SPEED_MBPS;
		ks->base.duplex = DUPLEX_FULL;
	} else {
		ks->base.speed = SPEED_UNKNOWN;
		ks->base.duplex = DUPLEX_UNKNOWN;
	}
	return 0;
}

/* Link flow control (ethtool -a/-A): symmetric or not, never negotiated. */
static void cxen_get_pauseparam(struct net_device *netdev,
				struct ethtool_pauseparam *pause)
{
	struct cxen_priv *priv = netdev_priv(netdev);

	pause->autoneg = AUTONEG_DISABLE;
	pause->rx_pause = priv->rx_pause;
	pause->tx_pause = priv->tx_pause;
}

static int cxen_set_pauseparam(struct net_device *netdev,
			       struct ethtool_pauseparam *pause)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	int err;

	if (pause->autoneg) {
		netdev_err(netdev, "pause autonegotiation is not supported: use autoneg off\n");
		return -EOPNOTSUPP;
	}
	err = cxen_cmd_set_port_pause(priv->cdev, priv->port, pause->rx_pause,
				      pause->tx_pause);
	if (err) {
		netdev_err(netdev, "device refused rx pause %s, tx pause %s: %d\n",
			   str_on_off(pause->rx_pause),
			   str_on_off(pause->tx_pause), err);
		return err;
	}
	priv->rx_pause = pause->rx_pause;
	priv->tx_pause = pause->tx_pause;
	return 0;
}

static void cxen_get_pause_stats(struct net_device *netdev,
				 struct ethtool_pause_stats *s)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	u64 hw[CXEN_HW_NCNT];

	if (cxen_hw_stats_read(priv, hw))
		return;
	s->tx_pause_frames = hw[CXEN_HW(tx_pause)];
	s->rx_pause_frames = hw[CXEN_HW(rx_pause)];
}

static u32 cxen_get_priv_flags(struct net_device *netdev)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	u32 flags = 0;
	unsigned int i;

	for (i = 0; i < CXEN_NUM_LAYOUT_FLAGS; i++)
		if (priv->params.rx_named == cxen_priv_flag_layout[i])
			flags |= BIT(i);
	if (priv->params.rx_auto)
		flags |= BIT(CXEN_PRIV_FLAG_AUTO);
	return flags;
}

static int cxen_set_priv_flags(struct net_device *netdev, u32 flags)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	u32 layouts = flags & ~BIT(CXEN_PRIV_FLAG_AUTO);
	struct cxen_params p = priv->params;
	int err;

	if (hweight32(layouts) > 1) {
		netdev_err(netdev, "select at most one RX buffer layout flag\n");
		return -EINVAL;
	}
	p.rx_named = layouts ? cxen_priv_flag_layout[__ffs(layouts)] :
			       CXEN_RX_PAGEPOOL;
	p.rx_auto = flags & BIT(CXEN_PRIV_FLAG_AUTO);
	if (p.rx_named == priv->params.rx_named &&
	    p.rx_auto == priv->params.rx_auto)
		return 0;
	err = cxen_reconfigure(priv, &p, NULL);
	if (!err)
		cxen_lro_update(priv);
	return err;
}

static int cxen_get_tunable(struct net_device *netdev,
			    const struct ethtool_tunable *tuna, void *data)
{
	struct cxen_priv *priv = netdev_priv(netdev);

	switch (tuna->id) {
	case ETHTOOL_RX_COPYBREAK:
		*(u32 *)data = priv->rx_copybreak;
		return 0;
	case ETHTOOL_TX_COPYBREAK:
		*(u32 *)data = priv->tx_inline_max;
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

static int cxen_set_tunable(struct net_device *netdev,
			    const struct ethtool_tunable *tuna,
			    const void *data)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	u32 val = *(const u32 *)data;

	switch (tuna->id) {
	case ETHTOOL_RX_COPYBREAK:
		if (val > CXEN_RX_COPYBREAK_MAX) {
			netdev_err(netdev, "rx-copybreak %u over the maximum %u\n",
				   val, CXEN_RX_COPYBREAK_MAX);
			return -EINVAL;
		}
		WRITE_ONCE(priv->rx_copybreak, val);
		return 0;
	case ETHTOOL_TX_COPYBREAK:
		if (val > CXEN_TX_INLINE_MAX) {
			netdev_err(netdev, "tx-copybreak (inline) %u over the maximum %u\n",
				   val, CXEN_TX_INLINE_MAX);
			return -EINVAL;
		}
		WRITE_ONCE(priv->tx_inline_max, val);
		return 0;
	default:
		return -EOPNOTSUPP;
	}
}

const struct ethtool_ops cxen_ethtool_ops = {
	.supported_coalesce_params = ETHTOOL_COALESCE_USECS |
				     ETHTOOL_COALESCE_MAX_FRAMES |
				     ETHTOOL_COALESCE_USE_ADAPTIVE |
				     ETHTOOL_COALESCE_STATS_BLOCK_USECS,
	.supported_ring_params	= ETHTOOL_RING_USE_TCP_DATA_SPLIT,
	.get_drvinfo		= cxen_get_drvinfo,
	.get_link		= ethtool_op_get_link,
	/* skb_tx_timestamp() in cxen_start_xmit(): software TX stamps. */
	.get_ts_info		= ethtool_op_get_ts_info,
	.get_link_ksettings	= cxen_get_link_ksettings,
	.nway_reset		= cxen_nway_reset,
	.get_ringparam		= cxen_get_ringparam,
	.set_ringparam		= cxen_set_ringparam,
	.get_channels		= cxen_get_channels,
	.set_channels		= cxen_set_channels,
	.get_coalesce		= cxen_get_coalesce,
	.set_coalesce		= cxen_set_coalesce,
	.get_rxnfc		= cxen_get_rxnfc,
	.get_rxfh_key_size	= cxen_get_rxfh_key_size,
	.get_rxfh_indir_size	= cxen_get_rxfh_indir_size,
	.get_rxfh		= cxen_get_rxfh,
	.set_rxfh		= cxen_set_rxfh,
	.get_sset_count		= cxen_get_sset_count,
	.get_strings		= cxen_get_strings,
	.get_ethtool_stats	= cxen_get_ethtool_stats,
	.get_eth_mac_stats	= cxen_get_eth_mac_stats,
	.get_rmon_stats		= cxen_get_rmon_stats,
	.get_pause_stats	= cxen_get_pause_stats,
	.get_pauseparam		= cxen_get_pauseparam,
	.set_pauseparam		= cxen_set_pauseparam,
	.get_priv_flags		= cxen_get_priv_flags,
	.set_priv_flags		= cxen_set_priv_flags,
	.get_tunable		= cxen_get_tunable,
	.set_tunable		= cxen_set_tunable,
};
EXPORT_SYMBOL_IF_KUNIT(cxen_ethtool_ops);
