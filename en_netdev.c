// SPDX-License-Identifier: GPL-2.0
/*
 * cxen: the ports. Each is a netdev with its struct cxen_priv: its
 * net_device_ops (open, stop, MTU, features, XDP attach), its creation
 * with the port's defaults and its state in the device, its rebuild
 * after a device reset, and its destruction. Probe and remove
 * (en_main.c) and devlink reload (en_devlink.c) create and destroy all
 * of them (cxen_ports_create(), cxen_ports_destroy()).
 */
#include <linux/bpf.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/kmemleak.h>
#include <linux/rtnetlink.h>
#include <net/devlink.h>
#include <net/netdev_queues.h>
#include <net/xdp.h>

#include "en.h"

static int cxen_open(struct net_device *netdev)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_params p = priv->params;
	int err;

	netif_carrier_off(netdev);
	err = cxen_channels_switch(priv, &p, NULL);
	if (err) {
		netdev_err(netdev, "cannot create queues: %d\n", err);
		return err;
	}
	err = cxen_cmd_set_port(priv->cdev, priv->port, CXEN_PORT_SET_ADMIN, 0,
				true);
	if (err) {
		netdev_err(netdev, "device refused to bring the port up: %d\n", err);
		cxen_channels_close(priv);
		return err;
	}
	cxen_update_carrier(priv);
	cxen_health_start(priv);
	return 0;
}

static int cxen_stop(struct net_device *netdev)
{
	struct cxen_priv *priv = netdev_priv(netdev);

	cxen_health_stop(priv);
	netif_carrier_off(netdev);
	cxen_cmd_set_port(priv->cdev, priv->port, CXEN_PORT_SET_ADMIN, 0, false);
	cxen_channels_close(priv);
	return 0;
}

static int cxen_change_mtu(struct net_device *netdev, int new_mtu)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_params p = priv->params;
	int err;

	p.mtu = new_mtu;
	err = cxen_reconfigure(priv, &p, NULL);
	if (err) {
		netdev_err(netdev, "cannot change MTU to %d: %d\n", new_mtu, err);
		return err;
	}
	WRITE_ONCE(netdev->mtu, new_mtu);
	return 0;
}

/*
 * LRO runs where cxen_lro_why_not() allows: asked for elsewhere, it stays
 * off (ethtool -K says so) and the log tells why, once until it runs or
 * is no longer wanted.
 */
static netdev_features_t cxen_fix_features(struct net_device *netdev,
					   netdev_features_t features)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_params p = priv->params;
	const char *why = NULL;

	if (features & NETIF_F_LRO) {
		p.lro = true;
		cxen_rx_pick_params(priv, &p);
		why = cxen_lro_why_not(priv, &p);
	}
	if (why && !priv->lro_held)
		netdev_warn(netdev, "LRO stays off: %s\n", why);
	priv->lro_held = !!why;
	return why ? features & ~NETIF_F_LRO : features;
}

/* LRO: new RQs, one at a time, the old ones kept on failure. */
static int cxen_set_lro(struct cxen_priv *priv, bool on)
{
	struct cxen_params p = priv->params;

	p.lro = on;
	return cxen_reconfigure(priv, &p, NULL);
}

/*
 * LRO takes new RQs; VLAN strip and loopback are the device's port
 * settings; the other features are the stack's or read per packet. A
 * failure leaves every feature as it was.
 */
static int cxen_set_features(struct net_device *netdev,
			     netdev_features_t features)
{
	netdev_features_t changed = netdev->features ^ features;
	struct cxen_priv *priv = netdev_priv(netdev);
	int err;

	if (changed & NETIF_F_LRO) {
		err = cxen_set_lro(priv, features & NETIF_F_LRO);
		if (err)
			return err;
	}
	if (!(changed & (NETIF_F_HW_VLAN_CTAG_RX | NETIF_F_LOOPBACK)))
		return 0;
	err = cxen_cmd_set_port_offloads(priv->cdev, priv->port,
					 features & NETIF_F_HW_VLAN_CTAG_RX,
					 features & NETIF_F_LOOPBACK);
	if (err) {
		netdev_err(netdev, "device refused VLAN strip %s, loopback %s: %d\n",
			   str_on_off(features & NETIF_F_HW_VLAN_CTAG_RX),
			   str_on_off(features & NETIF_F_LOOPBACK), err);
		if ((changed & NETIF_F_LRO) &&
		    cxen_set_lro(priv, netdev->features & NETIF_F_LRO))
			netdev_err(netdev, "LRO could not be set back to %s\n",
				   str_on_off(netdev->features & NETIF_F_LRO));
	}
	return err;
}

/**
 * cxen_xdp_setup() - XDP_SETUP_PROG: attach, replace or detach a program
 * @netdev: the port, RTNL held
 * @prog: the program (its reference is the port's on success), or NULL
 * @extack: for the user-facing error
 *
 * Attaching or detaching changes the buffers and the queues (XDP
 * headroom, pools mapped for both directions, XDP SQs): a running port
 * switches to new channels as for ethtool -G, without a gap; a port that
 * is down takes the program with its configuration, for its next open.
 * Replacing a program swaps it on the running RQs under RCU. A program
 * without frags support is refused above the MTU whose frames fit one
 * buffer (cxen_xdp_check()). While a program is attached the port is a
 * redirect target (ndo_xdp_xmit on the XDP SQs).
 *
 * Return: 0, or a negative errno with the previous program in place.
 */
static int cxen_xdp_setup(struct net_device *netdev, struct bpf_prog *prog,
			  struct netlink_ext_ack *extack)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct bpf_prog *old = priv->params.xdp_prog;
	struct cxen_params p = priv->params;
	int err;

	ASSERT_RTNL();
	p.xdp_prog = prog;
	if (old && prog) {
		err = cxen_xdp_check(priv, &p, extack);
		if (err)
			return err;
		priv->params.xdp_prog = prog;
		cxen_channels_xdp_swap(priv, prog);
		bpf_prog_put(old);
		return 0;
	}
	if (!old && !prog)
		return 0;

	err = cxen_reconfigure(priv, &p, extack);
	if (err)
		return err;
	if (prog)
		xdp_features_set_redirect_target(netdev, true);
	else
		xdp_features_clear_redirect_target(netdev);
	if (old)
		bpf_prog_put(old);
	cxen_lro_update(priv);
	return 0;
}

static int cxen_bpf(struct net_device *netdev, struct netdev_bpf *bpf)
{
	switch (bpf->command) {
	case XDP_SETUP_PROG:
		return cxen_xdp_setup(netdev, bpf->prog, bpf->extack);
	default:
		return -EINVAL;
	}
}

static const struct net_device_ops cxen_netdev_ops = {
	.ndo_open		= cxen_open,
	.ndo_stop		= cxen_stop,
	.ndo_start_xmit		= cxen_start_xmit,
	.ndo_features_check	= cxen_features_check,
	.ndo_fix_features	= cxen_fix_features,
	.ndo_set_features	= cxen_set_features,
	.ndo_get_stats64	= cxen_get_stats64,
	.ndo_tx_timeout		= cxen_tx_timeout,
	.ndo_change_mtu		= cxen_change_mtu,
	.ndo_validate_addr	= eth_validate_addr,
	.ndo_set_mac_address	= cxen_set_mac_address,
	.ndo_set_rx_mode	= cxen_set_rx_mode,
	.ndo_bpf		= cxen_bpf,
	.ndo_xdp_xmit		= cxen_xdp_xmit,
};

/* ------------------------------------------------------------------ */
/* Creation and destruction                                            */
/* ------------------------------------------------------------------ */

/* What the port's netdev offers the stack. */
static void cxen_port_features(struct net_device *netdev)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct cxen_dev *cdev = priv->cdev;

	netdev->watchdog_timeo = 5 * HZ;
	netdev->netdev_ops = &cxen_netdev_ops;
	netdev->xdp_metadata_ops = &cxen_xdp_metadata_ops;
	netdev->ethtool_ops = &cxen_ethtool_ops;
	netdev->stat_ops = &cxen_stat_ops;
	netdev->queue_mgmt_ops = &cxen_queue_mgmt_ops;
	netdev->min_mtu = max_t(u32, cdev->caps.min_mtu, ETH_MIN_MTU);
	netdev->max_mtu = cdev->caps.max_mtu;
	netdev->hw_features = NETIF_F_SG | NETIF_F_IP_CSUM | NETIF_F_IPV6_CSUM |
			      NETIF_F_TSO | NETIF_F_TSO6 | NETIF_F_RXCSUM |
			      NETIF_F_RXHASH | NETIF_F_HW_VLAN_CTAG_TX |
			      NETIF_F_HW_VLAN_CTAG_RX | NETIF_F_LOOPBACK;
	/* LRO is the user's choice (it must go for forwarding): off. */
	if (cdev->caps.cap_flags & CXEN_DEV_CAP_LRO)
		netdev->hw_features |= NETIF_F_LRO;
	netdev->features = (netdev->hw_features &
			    ~(NETIF_F_LOOPBACK | NETIF_F_LRO)) |
			   NETIF_F_HIGHDMA;
	netdev->vlan_features = netdev->features &
				~(NETIF_F_HW_VLAN_CTAG_TX | NETIF_F_HW_VLAN_CTAG_RX);
	/* The device filters by unicast address and takes a new MAC live. */
	netdev->priv_flags |= IFF_UNICAST_FLT | IFF_LIVE_ADDR_CHANGE;
	netif_set_tso_max_size(netdev, SZ_64K - 1);
	cxen_xdp_features_update(netdev_priv(netdev));
}

/*
 * The port's state in the device, from its configuration: down, with its
 * MTU, VLAN strip, loopback, pause and RX filter. Queues and RSS come
 * with ndo_open.
 */
static int cxen_port_hw_setup(struct cxen_priv *priv)
{
	netdev_features_t features = priv->netdev->features;
	struct cxen_dev *cdev = priv->cdev;
	u8 port = priv->port;
	int err;

	err = cxen_cmd_set_port(cdev, port, CXEN_PORT_SET_MTU | CXEN_PORT_SET_ADMIN,
				priv->netdev->mtu, false);
	if (err)
		return err;
	err = cxen_cmd_set_port_offloads(cdev, port,
					 features & NETIF_F_HW_VLAN_CTAG_RX,
					 features & NETIF_F_LOOPBACK);
	if (err)
		return err;
	err = cxen_cmd_set_port_pause(cdev, port, priv->rx_pause,
				      priv->tx_pause);
	if (err)
		return err;
	return cxen_rx_filter_program(priv, priv->netdev->dev_addr);
}

/*
 * The device's side of a new port: its counters' starting point (the
 * port's totals count from here), then its state.
 */
static int cxen_port_hw_init(struct cxen_priv *priv)
{
	int err;

	err = cxen_hw_counters_now(priv, priv->hw_base);
	if (err)
		return err;
	return cxen_port_hw_setup(priv);
}

/**
 * cxen_port_rebuild() - program a port again after a device reset
 * @priv: the port, RTNL held
 *
 * The reset made the device forget the port's queues and state (it keeps
 * the counters): a running port is closed (its queues need no DESTROY),
 * its state programmed again and, if it was running, it is opened again
 * with its configuration.
 *
 * Return: 0 or a negative errno. A running port that cannot be opened
 * again is brought down (dev_close()): it has no queues, and every change
 * of a running port assumes it has them; `ip link set up` tries again.
 */
int cxen_port_rebuild(struct cxen_priv *priv)
{
	struct net_device *netdev = priv->netdev;
	bool running = netif_running(netdev);
	int err;

	ASSERT_RTNL();
	if (running)
		cxen_stop(netdev);
	err = cxen_port_hw_setup(priv);
	if (!err && running)
		err = cxen_open(netdev);
	if (!err)
		return 0;
	if (running) {
		netdev_err(netdev, "port not restored after the device reset (%d): brought down, 'ip link set up' tries again\n",
			   err);
		/* ndo_stop again: nothing left to close but the port's state. */
		dev_close(netdev);
	} else {
		netdev_err(netdev, "port not reprogrammed after the device reset (%d): 'devlink health recover' tries again\n",
			   err);
	}
	return err;
}

static int cxen_port_create(struct cxen_dev *cdev, u8 port)
{
	struct cxen_port_info info;
	struct net_device *netdev;
	struct cxen_priv *priv;
	int err;

	err = cxen_cmd_query_port(cdev, port, &info);
	if (err)
		return err;

	netdev = alloc_etherdev_mqs(sizeof(*priv), cdev->caps.max_channels,
				    cdev->caps.max_channels);
	if (!netdev)
		return -ENOMEM;
	SET_NETDEV_DEV(netdev, cdev->dev);
	netdev->dev_port = port;

	priv = netdev_priv(netdev);
	priv->cdev = cdev;
	priv->netdev = netdev;
	priv->port = port;
	cxen_port_defaults(priv);
	cxen_health_init(priv);
	cxen_rx_mode_init(priv);
	spin_lock_init(&priv->stats_lock);
	mutex_init(&priv->moder_lock);
	cxen_port_features(netdev);

	if (is_valid_ether_addr(info.mac)) {
		eth_hw_addr_set(netdev, info.mac);
	} else {
		dev_warn(cdev->dev, "port %u: device MAC %pM invalid, using a random one\n",
			 port, info.mac);
		eth_hw_addr_random(netdev);
	}

	err = cxen_port_hw_init(priv);
	if (err)
		goto err_free;

	/* devlink port show: a physical port, linked to the netdev. */
	devlink_port_attrs_set(&priv->dl_port, &(struct devlink_port_attrs){
		.flavour = DEVLINK_PORT_FLAVOUR_PHYSICAL,
		.phys.port_number = port,
	});
	err = devl_port_register(priv_to_devlink(cdev), &priv->dl_port, port);
	if (err)
		goto err_free;
	SET_NETDEV_DEVLINK_PORT(netdev, &priv->dl_port);

	netif_carrier_off(netdev);
	cxen_stats_start(priv);
	err = register_netdev(netdev);
	if (err)
		goto err_stats;
	cdev->ports[port] = netdev;
	cxen_debugfs_port_add(priv);
	return 0;

err_stats:
	cxen_stats_stop(priv);
	devl_port_unregister(&priv->dl_port);
err_free:
	cxen_rx_mode_stop(priv);
	mutex_destroy(&priv->moder_lock);
	free_netdev(netdev);
	return err;
}

/*
 * At removal, with every port closed: the channels a dead device may still
 * write into (&cxen_dev.leaked) are freed if a reset now completes. If it
 * does not, they stay allocated and mapped for good: never freed under
 * the device, and told to kmemleak as no leak (the list that held them
 * goes with @cdev).
 */
static void cxen_leaked_release(struct cxen_dev *cdev)
{
	struct cxen_channel *ch;

	rtnl_lock();
	if (!list_empty(&cdev->leaked)) {
		clear_bit(CXEN_DEV_DEAD, &cdev->state);
		cxen_dev_reset(cdev);
		cxen_leaked_free(cdev);
	}
	list_for_each_entry(ch, &cdev->leaked, leak_node)
		kmemleak_not_leak(ch);
	rtnl_unlock();
}

/**
 * cxen_ports_destroy() - unregister and free every port's netdev
 * @cdev: the device, its devlink instance locked
 */
void cxen_ports_destroy(struct cxen_dev *cdev)
{
	unsigned int p;

	for (p = 0; p < CXEN_HW_MAX_PORTS; p++) {
		struct net_device *netdev = cdev->ports[p];

		if (!netdev)
			continue;
		/* A restart written there takes RTNL: not held here. */
		cxen_debugfs_port_remove(netdev_priv(netdev));
		unregister_netdev(netdev);
	}
	/* Before the netdevs go: the parked channels point into them. */
	cxen_leaked_release(cdev);
	for (p = 0; p < CXEN_HW_MAX_PORTS; p++) {
		struct net_device *netdev = cdev->ports[p];
		struct cxen_priv *priv;

		if (!netdev)
			continue;
		priv = netdev_priv(netdev);
		cxen_stats_stop(priv);
		cxen_rx_mode_stop(priv);
		devl_port_unregister(&priv->dl_port);
		rtnl_lock();
		cdev->ports[p] = NULL;
		rtnl_unlock();
		mutex_destroy(&priv->moder_lock);
		free_netdev(netdev);
	}
}

/**
 * cxen_ports_create() - create and register a netdev for every port
 * @cdev: the device, its devlink instance locked
 *
 * The ports take the RX layout and TX doorbell batching of the devlink
 * parameters (@cdev->rx_named and @cdev->rx_auto, @cdev->tx_doorbell_batch).
 *
 * Return: 0 or a negative errno; on error no port is left.
 */
int cxen_ports_create(struct cxen_dev *cdev)
{
	unsigned int i;
	int err;

	for (i = 0; i < cdev->caps.num_ports; i++) {
		err = cxen_port_create(cdev, i);
		if (err) {
			dev_err(cdev->dev, "cannot create port %u: %d\n", i, err);
			cxen_ports_destroy(cdev);
			return err;
		}
	}
	return 0;
}
