// SPDX-License-Identifier: GPL-2.0
/*
 * cxen: a port's parameters (struct cxen_params): its defaults
 * (cxen_port_defaults()), what each request is checked against, what the
 * driver derives from it (the RX buffer layout picked, LRO's and XDP's
 * features), whether a change needs new queues, and cxen_reconfigure(),
 * the one entry of every change: check, then apply it the cheapest way
 * that works (nothing to build, one RX queue at a time in en_queue.c, or
 * a new channel set in en_channels.c).
 *
 * A request that fails a check is refused with an extack message saying
 * what to change, and the port keeps its configuration.
 */
#include <kunit/visibility.h>
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>
#include <net/xdp.h>

#include "en_rx.h"

/**
 * cxen_port_defaults() - a new port's configuration
 * @priv: the port, its device set
 *
 * What it runs with until the user tunes it: the defaults of en_params.h
 * within the device's limits, the RX layout the devlink parameters name,
 * a random RSS key.
 */
void cxen_port_defaults(struct cxen_priv *priv)
{
	struct cxen_dev *cdev = priv->cdev;

	priv->params.num_channels = min_t(u32, CXEN_DEF_CHANNELS,
					  cdev->caps.max_channels);
	priv->params.rq_size = CXEN_DEF_RING_SIZE;
	priv->params.sq_size = CXEN_DEF_RING_SIZE;
	priv->params.mtu = ETH_DATA_LEN;
	priv->params.rx_usecs = CXEN_DEF_RX_USECS;
	priv->params.rx_frames = CXEN_DEF_RX_FRAMES;
	priv->params.tx_usecs = CXEN_DEF_TX_USECS;
	priv->params.tx_frames = CXEN_DEF_TX_FRAMES;
	priv->params.rx_named = cdev->rx_named;
	priv->params.rx_auto = cdev->rx_auto;
	cxen_rx_pick_params(priv, &priv->params);
	priv->rx_pause = true;
	priv->tx_pause = true;
	priv->tx_doorbell_batch = cdev->tx_doorbell_batch;
	priv->rx_copybreak = CXEN_RX_COPYBREAK_DEF;
	priv->tx_inline_max = CXEN_TX_INLINE_DEF;
	netdev_rss_key_fill(priv->rss_key, sizeof(priv->rss_key));
}

/* Whether @new changes what an RQ alone is built from. */
static bool cxen_rq_params_differ(const struct cxen_params *cur,
				  const struct cxen_params *new)
{
	return new->hdr_split != cur->hdr_split || new->lro != cur->lro ||
	       new->rx_layout != cur->rx_layout ||
	       new->rq_size != cur->rq_size;
}

/* Whether @new keeps everything the channels share. */
static bool cxen_channel_params_same(const struct cxen_params *cur,
				     const struct cxen_params *new)
{
	return new->num_channels == cur->num_channels &&
	       new->sq_size == cur->sq_size &&
	       new->mtu == cur->mtu && new->rx_usecs == cur->rx_usecs &&
	       new->rx_frames == cur->rx_frames &&
	       new->tx_usecs == cur->tx_usecs &&
	       new->tx_frames == cur->tx_frames &&
	       new->rx_dim == cur->rx_dim && new->tx_dim == cur->tx_dim &&
	       new->xdp_prog == cur->xdp_prog;
}

/**
 * cxen_rx_queues_only() - whether a change touches only what RQs are built from
 * @cur: the port's parameters
 * @new: the requested ones
 *
 * What an RQ alone is built from: header/data split, the RX buffer
 * layout (the striding flag, the comparison layouts, the automatic
 * choice) and the RX ring's size. Everything the channels share (their
 * number, the SQs, the MTU, moderation, the XDP program) must stay as it
 * is.
 *
 * Return: true when @new differs from @cur in those and nothing else.
 */
bool cxen_rx_queues_only(const struct cxen_params *cur,
			 const struct cxen_params *new)
{
	return cxen_rq_params_differ(cur, new) &&
	       cxen_channel_params_same(cur, new);
}
EXPORT_SYMBOL_IF_KUNIT(cxen_rx_queues_only);

/**
 * cxen_queues_unchanged() - whether a change leaves every queue as it is
 * @cur: the port's parameters
 * @new: the requested ones, their RX layout picked
 *
 * A request that changes only the RX layout asked for, not the one
 * picked (private flag auto turned off at an MTU where it picked the
 * default layout), builds no queue.
 *
 * Return: true when the queues @new describes are @cur's.
 */
bool cxen_queues_unchanged(const struct cxen_params *cur,
			   const struct cxen_params *new)
{
	return !cxen_rq_params_differ(cur, new) &&
	       cxen_channel_params_same(cur, new);
}
EXPORT_SYMBOL_IF_KUNIT(cxen_queues_unchanged);

/**
 * cxen_xdp_max_mtu() - the largest MTU of one buffer per frame with XDP
 * @priv: the port
 *
 * Return: the largest MTU at which an XDP program without frags support
 * (not loaded as xdp.frags) may run: every frame in one buffer.
 */
static unsigned int cxen_xdp_max_mtu(const struct cxen_priv *priv)
{
	struct cxen_frag_param fp;

	cxen_frag_param_init(priv, priv->params.mtu, true, &fp);
	return cxen_frag_max_linear_mtu(&fp);
}

/**
 * cxen_xdp_check() - whether @p's XDP program can run with @p's buffers
 * @priv: the port
 * @p: the parameters wanted, @p->xdp_prog the program (NULL: none)
 * @extack: for the message; NULL: the message goes to the kernel log
 *
 * XDP runs on the default (page_pool) RX layout only, and a program
 * without frags support only at MTUs whose frames fit one buffer.
 *
 * Return: 0 or -EINVAL.
 */
int cxen_xdp_check(struct cxen_priv *priv, const struct cxen_params *p,
		   struct netlink_ext_ack *extack)
{
	unsigned int max = cxen_xdp_max_mtu(priv);

	if (!p->xdp_prog)
		return 0;
	if (p->rx_layout != CXEN_RX_PAGEPOOL) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "XDP needs the pagepool RX layout: clear private flag %s",
				       cxen_rx_layouts[p->rx_layout].name);
		if (!extack)
			netdev_err(priv->netdev, "XDP needs the pagepool RX layout, not %s\n",
				   cxen_rx_layouts[p->rx_layout].name);
		return -EINVAL;
	}
	if (!p->xdp_prog->aux->xdp_has_frags && p->mtu > max) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "MTU %u is above %u, the largest for XDP without xdp.frags",
				       p->mtu, max);
		if (!extack)
			netdev_err(priv->netdev, "MTU %u is above %u, the largest for the attached XDP program (no frags support): detach it or load it as xdp.frags\n",
				   p->mtu, max);
		return -EINVAL;
	}
	return 0;
}

/**
 * cxen_rx_layout_dev_check() - whether the device can run an RX layout
 * @cdev: the device
 * @netdev: the port, for the message when there is no @extack; may be NULL
 * @s: the layout
 * @extack: for the message; may be NULL
 *
 * A layout may need device capabilities (&cxen_rx_layout_ops.dev_cap:
 * the striding RQ needs CXEN_DEV_CAP_STRIDING_RQ, interface minor 3).
 *
 * Return: 0, or -EOPNOTSUPP when the device lacks one.
 */
int cxen_rx_layout_dev_check(const struct cxen_dev *cdev,
			     struct net_device *netdev, enum cxen_rx_layout s,
			     struct netlink_ext_ack *extack)
{
	u32 need = cxen_rx_layouts[s].dev_cap;

	if ((cdev->caps.cap_flags & need) == need)
		return 0;
	NL_SET_ERR_MSG_FMT_MOD(extack,
			       "the device cannot run the %s RX layout (capabilities %#x, needs %#x)",
			       cxen_rx_layouts[s].name, cdev->caps.cap_flags,
			       need);
	if (!extack && netdev)
		netdev_err(netdev, "the device cannot run the %s RX layout (capabilities %#x, needs %#x)\n",
			   cxen_rx_layouts[s].name, cdev->caps.cap_flags,
			   need);
	return -EOPNOTSUPP;
}

/**
 * cxen_hdr_split_check() - whether @p's header/data split can run
 * @priv: the port
 * @p: the parameters wanted
 * @extack: for the message; NULL: the message goes to the kernel log
 *
 * Header/data split (ethtool -G tcp-data-split on) runs on the striding
 * RQ only, on a device with CXEN_DEV_CAP_HDR_SPLIT.
 *
 * Return: 0 or -EINVAL / -EOPNOTSUPP.
 */
static int cxen_hdr_split_check(struct cxen_priv *priv,
				const struct cxen_params *p,
				struct netlink_ext_ack *extack)
{
	if (!p->hdr_split)
		return 0;
	if (!(priv->cdev->caps.cap_flags & CXEN_DEV_CAP_HDR_SPLIT)) {
		NL_SET_ERR_MSG_MOD(extack, "the device has no header/data split");
		if (!extack)
			netdev_err(priv->netdev, "the device has no header/data split\n");
		return -EOPNOTSUPP;
	}
	if (p->rx_layout != CXEN_RX_STRIDING) {
		NL_SET_ERR_MSG_MOD(extack,
				   "tcp-data-split needs the striding RX layout: private flag striding, or auto without XDP");
		if (!extack)
			netdev_err(priv->netdev, "tcp-data-split is on: it needs the striding RX layout (ethtool -G %s tcp-data-split off first)\n",
				   netdev_name(priv->netdev));
		return -EINVAL;
	}
	return 0;
}

/**
 * cxen_lro_why_not() - why @p's LRO cannot run
 * @priv: the port
 * @p: the parameters wanted, their RX layout picked
 *
 * LRO (ethtool -K lro on) runs on the striding RQ of a device with
 * CXEN_DEV_CAP_LRO, without XDP (a program would see merged frames no
 * wire carried) and without header/data split (the device merges into
 * whole frames).
 *
 * Return: NULL when it can, else what the user must change.
 */
const char *cxen_lro_why_not(const struct cxen_priv *priv,
			     const struct cxen_params *p)
{
	if (!(priv->cdev->caps.cap_flags & CXEN_DEV_CAP_LRO))
		return "the device has no LRO";
	if (p->xdp_prog)
		return "XDP and LRO exclude each other: ethtool -K <dev> lro off first";
	if (p->hdr_split)
		return "LRO and tcp-data-split exclude each other: turn one off";
	if (p->rx_layout != CXEN_RX_STRIDING)
		return "LRO needs the striding RX layout: private flag striding, or auto";
	return NULL;
}

/* Whether @p's LRO can run (cxen_lro_why_not()). Return: 0 or -EINVAL. */
static int cxen_lro_check(struct cxen_priv *priv, const struct cxen_params *p,
			  struct netlink_ext_ack *extack)
{
	const char *why;

	if (!p->lro)
		return 0;
	why = cxen_lro_why_not(priv, p);
	if (!why)
		return 0;
	NL_SET_ERR_MSG_FMT_MOD(extack, "%s", why);
	if (!extack)
		netdev_err(priv->netdev, "LRO is on: %s\n", why);
	return -EINVAL;
}

/**
 * cxen_rx_pick_params() - set the RX layout @p's RQs run
 * @priv: the port
 * @p: parameters; @p->rx_layout is set from the layout named, the
 *	automatic choice and what constrains it (cxen_rx_layout_pick())
 */
void cxen_rx_pick_params(const struct cxen_priv *priv, struct cxen_params *p)
{
	struct cxen_rx_pick in = {
		.named		= p->rx_named,
		.automatic	= p->rx_auto,
		.striding_rq	= priv->cdev->caps.cap_flags &
				  CXEN_DEV_CAP_STRIDING_RQ,
		.xdp		= !!p->xdp_prog,
		.hdr_split	= p->hdr_split,
		.lro		= p->lro,
		.mtu		= p->mtu,
	};
	struct cxen_frag_param fp;

	cxen_frag_param_init(priv, p->mtu, false, &fp);
	in.max_linear_mtu = cxen_frag_max_linear_mtu(&fp);
	p->rx_layout = cxen_rx_layout_pick(&in);
}

/*
 * RX memory a configuration pins, in bytes: every RQ's posted buffers,
 * the strides of its fragments times its WQEs (what cxen_rq_fill()
 * posts), or a striding ring's pages and its header buffers. 0 when @p
 * has no layout (cxen_params_check() refuses it).
 */
static u64 cxen_params_rx_bytes(const struct cxen_priv *priv,
				const struct cxen_params *p)
{
	u64 per_rq = 0;
	unsigned int f;

	if (p->rx_layout == CXEN_RX_STRIDING) {
		struct cxen_stride_layout sl;
		struct cxen_stride_param sp;
		u32 nwqes;

		cxen_stride_param_init(p->mtu, &sp);
		sp.lro = p->lro;
		if (cxen_stride_layout(&sp, &sl))
			return 0;
		nwqes = cxen_stride_ring_wqes(&sl, (u64)p->rq_size *
					      CXEN_STRIDE_BYTES_PER_ENTRY);
		per_rq = (u64)nwqes << (sl.log_wqe_pages + sl.log_page);
		if (p->hdr_split)
			per_rq += 2ULL * p->rq_size * sl.hdr_buf;
	} else {
		struct cxen_frag_layout l;
		struct cxen_frag_param fp;

		cxen_frag_param_init(priv, p->mtu, !!p->xdp_prog, &fp);
		if (cxen_rx_layouts[p->rx_layout].layout(&fp, &l))
			return 0;
		for (f = 0; f < l.nfrags; f++)
			per_rq += l.frag[f].stride;
		per_rq *= p->rq_size;
	}
	return per_rq * p->num_channels;
}

/**
 * cxen_params_mem_check() - whether the machine has the RX memory @new pins
 * @priv: the port
 * @new: the parameters wanted, their RX layout picked
 * @extack: for the message; NULL: the message goes to the kernel log
 *
 * A reconfiguration must never cost the system its processes: a ring
 * size times channels the memory cannot hold would be allocated until
 * the OOM killer ran. @new's RX buffers (cxen_params_rx_bytes()) may take
 * at most CXEN_RX_MEM_SHARE_PCT percent of what the port could use, the
 * memory available now (si_mem_available()) plus what its running
 * configuration pins and gives back. What passes this estimate is still
 * allocated with __GFP_NORETRY, failing before the OOM killer.
 *
 * Return: 0 or -ENOMEM.
 */
static int cxen_params_mem_check(struct cxen_priv *priv,
				 const struct cxen_params *new,
				 struct netlink_ext_ack *extack)
{
	u64 need = cxen_params_rx_bytes(priv, new), now = 0, room;

	if (netif_running(priv->netdev) && cxen_chans_rtnl(priv))
		now = cxen_params_rx_bytes(priv, &priv->params);
	room = ((u64)si_mem_available() << PAGE_SHIFT) + now;
	if (need <= div_u64(room * CXEN_RX_MEM_SHARE_PCT, 100))
		return 0;
	/* An extack message holds 80 bytes. */
	NL_SET_ERR_MSG_FMT_MOD(extack,
			       "RX buffers: %llu MiB > %u%% of %llu MiB available; shrink -G or -L",
			       need >> 20, CXEN_RX_MEM_SHARE_PCT, room >> 20);
	if (!extack)
		netdev_err(priv->netdev, "RX buffers of %u x %u entries would pin %llu MiB, more than %u%% of the %llu MiB available: use smaller rings or fewer channels\n",
			   new->num_channels, new->rq_size, need >> 20,
			   CXEN_RX_MEM_SHARE_PCT, room >> 20);
	return -ENOMEM;
}

/* Whether the RX buffers of @p can be laid out: check before touching anything. */
static int cxen_params_check(struct cxen_priv *priv, const struct cxen_params *p,
			     struct netlink_ext_ack *extack)
{
	struct cxen_frag_layout l;
	struct cxen_frag_param fp;
	unsigned int i;
	int err;

	if (netif_is_rxfh_configured(priv->netdev))
		for (i = 0; i < CXEN_RSS_TABLE_SIZE; i++)
			if (priv->rss_indir[i] >= p->num_channels) {
				NL_SET_ERR_MSG_FMT_MOD(extack,
						       "RSS table uses queue %u: reset it (ethtool -X default)",
						       priv->rss_indir[i]);
				return -EINVAL;
			}
	err = cxen_xdp_check(priv, p, extack);
	if (err)
		return err;
	err = cxen_rx_layout_dev_check(priv->cdev, priv->netdev,
				       p->rx_layout, extack);
	if (err)
		return err;
	err = cxen_hdr_split_check(priv, p, extack);
	if (err)
		return err;
	err = cxen_lro_check(priv, p, extack);
	if (err)
		return err;
	cxen_frag_param_init(priv, p->mtu, !!p->xdp_prog, &fp);
	if (cxen_rx_layouts[p->rx_layout].layout(&fp, &l)) {
		NL_SET_ERR_MSG_FMT_MOD(extack,
				       "MTU %u does not fit %u RX fragments with %s buffers",
				       p->mtu, fp.max_frags,
				       cxen_rx_layouts[p->rx_layout].name);
		return -EINVAL;
	}
	return 0;
}

/**
 * cxen_reconfigure() - switch a port to new datapath parameters
 * @priv: the port
 * @new: the parameters wanted
 * @extack: for the user-facing error, may be NULL
 *
 * The RX layout is picked for @new first (cxen_rx_pick_params()): a
 * change of MTU, XDP program or header split may change it too under the
 * automatic choice. A port that is down, or a change that leaves every
 * queue as it is, just takes @new (the MTU goes to the device at the next
 * open). A running port switches to a new channel set without a gap
 * (cxen_channels_switch()), or one RX queue at a time when only the RQs
 * change; if that fails, the old configuration keeps running untouched.
 * Caller holds RTNL.
 *
 * Return: 0 or a negative errno, with the old configuration in place.
 */
int cxen_reconfigure(struct cxen_priv *priv, const struct cxen_params *new,
		     struct netlink_ext_ack *extack)
{
	struct cxen_params p = *new;
	int err;

	ASSERT_RTNL();
	cxen_rx_pick_params(priv, &p);
	err = cxen_params_check(priv, &p, extack);
	if (err)
		return err;
	err = cxen_params_mem_check(priv, &p, extack);
	if (err)
		return err;
	if (!netif_running(priv->netdev) ||
	    cxen_queues_unchanged(&priv->params, &p)) {
		priv->params = p;
		cxen_xdp_features_update(priv);
		return 0;
	}
	/* One RX queue at a time where only the RQs change. */
	if (cxen_rx_queues_only(&priv->params, &p))
		err = cxen_rx_queues_switch(priv, &p, extack);
	else
		err = cxen_channels_switch(priv, &p, extack);
	if (err) {
		netdev_err(priv->netdev, "reconfiguration failed (%d): the previous configuration keeps running\n",
			   err);
		return err;
	}
	cxen_xdp_features_update(priv);
	return 0;
}

/**
 * cxen_lro_update() - apply LRO again after what it depends on changed
 * @priv: the port, RTNL held
 *
 * LRO asked for (ethtool -K) while it could not run stays in the wanted
 * features; once XDP is gone, tcp-data-split off or the layout striding
 * again, it runs.
 */
void cxen_lro_update(struct cxen_priv *priv)
{
	struct net_device *netdev = priv->netdev;

	if ((netdev->wanted_features ^ netdev->features) & NETIF_F_LRO)
		netdev_update_features(netdev);
}

/* What ip link and bpftool net show; ndo-xmit only with XDP SQs. */
#define CXEN_XDP_FEATURES	(NETDEV_XDP_ACT_BASIC | NETDEV_XDP_ACT_REDIRECT | \
				 NETDEV_XDP_ACT_RX_SG)
#define CXEN_XDP_XMIT		(NETDEV_XDP_ACT_NDO_XMIT | NETDEV_XDP_ACT_NDO_XMIT_SG)

/**
 * cxen_xdp_features_update() - xdp-features as the port's parameters allow
 * @priv: the port, RTNL held (or not registered yet)
 *
 * A program attaches only to the pagepool layout, without header/data
 * split and without LRO (cxen_xdp_check(), cxen_hdr_split_check(),
 * cxen_lro_why_not()): while any of those runs the port advertises no XDP
 * action, as mlx5 does, and the features come back with it. ndo-xmit
 * follows the attached program (xdp_features_set_redirect_target()).
 */
void cxen_xdp_features_update(struct cxen_priv *priv)
{
	const struct cxen_params *p = &priv->params;
	struct net_device *netdev = priv->netdev;
	xdp_features_t f = CXEN_XDP_FEATURES;

	if (p->rx_named != CXEN_RX_PAGEPOOL || p->hdr_split || p->lro)
		f = 0;
	xdp_set_features_flag(netdev, f | (netdev->xdp_features & CXEN_XDP_XMIT));
}
