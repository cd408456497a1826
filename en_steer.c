// SPDX-License-Identifier: GPL-2.0
/*
 * cxen RX steering: which frames the port takes and which RQ each goes to.
 * The device's RX filter (SET_RX_FILTER) from the netdev's addresses and
 * flags, MAC address changes, and RSS (SET_RSS): the key and the
 * indirection table over the running channels' RQs.
 *
 * What the filter holds: the port's MAC and the netdev's unicast list
 * (macvlan, ...) in the device's table of CXEN_HW_RX_UC_ENTRIES; more
 * than it holds makes the port unicast promiscuous. The multicast list
 * as the device's 64-bucket hash, which holds any number of groups (a
 * group sharing a bucket with a joined one passes too; the stack drops
 * it). IFF_PROMISC and IFF_ALLMULTI as the device's PROMISC and ALLMULTI.
 *
 * Who programs it, always the whole state of the moment: ndo_set_rx_mode
 * runs under netif_addr_lock_bh (atomic) and a command sleeps, so it
 * only queues the port's rx_mode_work, which programs the filter under
 * RTNL. ndo_set_mac_address (RTNL) programs the new MAC before the stack
 * switches to it, so a frame to the new address is accepted as soon as
 * the change returns. The port's setup programs it at creation and in
 * the rebuild after a device reset (RTNL), the reset having returned it
 * to the device's power-on state (broadcast only). RTNL serialises all
 * of them.
 */
#include <linux/crc32.h>
#include <linux/etherdevice.h>
#include <linux/ethtool.h>
#include <linux/rtnetlink.h>

#include "en.h"

/* The device's multicast bucket of @addr (cxen_hw.h, SET_RX_FILTER). */
static u32 cxen_rx_mc_bucket(const u8 *addr)
{
	BUILD_BUG_ON(sizeof_field(struct cxen_rx_filter, mc_hash) * BITS_PER_BYTE !=
		     CXEN_HW_RX_MC_BUCKETS);
	return FIELD_GET(CXEN_RX_MC_BUCKET, ether_crc_le(ETH_ALEN, addr));
}

/*
 * Fill @f from the netdev's flags and address lists, with @mac as the
 * port's own address. Return: how many unicast addresses the port has,
 * its own included; more than CXEN_HW_RX_UC_ENTRIES and @f is unicast
 * promiscuous.
 */
static unsigned int cxen_rx_filter_build(struct net_device *netdev,
					 const u8 *mac,
					 struct cxen_rx_filter *f)
{
	struct netdev_hw_addr *ha;
	unsigned int n = 0, want;
	u64 hash = 0;
	u32 flags = 0;

	memset(f, 0, sizeof(*f));
	ether_addr_copy(f->uc[n++].mac, mac);
	want = n;
	if (netdev->flags & IFF_PROMISC)
		flags |= CXEN_RX_FILTER_PROMISC;
	if (netdev->flags & IFF_ALLMULTI)
		flags |= CXEN_RX_FILTER_ALLMULTI;

	/*
	 * Before register_netdevice() the address lists are empty and their
	 * lock is not initialized yet (lockdep would turn itself off).
	 */
	if (netdev->reg_state == NETREG_UNINITIALIZED)
		goto out;
	netif_addr_lock_bh(netdev);
	netdev_for_each_uc_addr(ha, netdev) {
		if (ether_addr_equal(ha->addr, mac))
			continue;
		if (n < CXEN_HW_RX_UC_ENTRIES)
			ether_addr_copy(f->uc[n++].mac, ha->addr);
		want++;
	}
	netdev_for_each_mc_addr(ha, netdev)
		hash |= BIT_ULL(cxen_rx_mc_bucket(ha->addr));
	netif_addr_unlock_bh(netdev);
out:
	if (want > CXEN_HW_RX_UC_ENTRIES)
		flags |= CXEN_RX_FILTER_UC_PROMISC;
	f->flags = cpu_to_be32(flags);
	f->num_uc = n;
	f->mc_hash = cpu_to_be64(hash);
	return want;
}

/**
 * cxen_rx_filter_program() - give the device the port's RX filter
 * @priv: the port; RTNL held, or its netdev not registered yet
 * @mac: the port's own address: the netdev's, or the one it changes to
 *
 * Sleeps. The unicast table overflowing (unicast promiscuous) is logged
 * once, when it starts.
 *
 * Return: 0 or a negative errno (the device's filter is then unchanged).
 */
int cxen_rx_filter_program(struct cxen_priv *priv, const u8 *mac)
{
	struct net_device *netdev = priv->netdev;
	struct cxen_rx_filter f;
	unsigned int want;
	bool overflow;
	int err;

	want = cxen_rx_filter_build(netdev, mac, &f);
	err = cxen_cmd_set_rx_filter(priv->cdev, priv->port, &f);
	if (err)
		return err;
	overflow = want > CXEN_HW_RX_UC_ENTRIES;
	if (overflow && !priv->rx_uc_overflow)
		netdev_info(netdev, "%u unicast addresses, the device's table holds %u: unicast promiscuous\n",
			    want, CXEN_HW_RX_UC_ENTRIES);
	priv->rx_uc_overflow = overflow;
	return 0;
}

static void cxen_rx_mode_work(struct work_struct *work)
{
	struct cxen_priv *priv = container_of(work, struct cxen_priv,
					      rx_mode_work);
	struct net_device *netdev = priv->netdev;
	int err;

	rtnl_lock();
	/*
	 * Not once unregistered: the port is going away. A lost device is
	 * not told either: its reset programs the filter again.
	 */
	if (netdev->reg_state == NETREG_REGISTERED &&
	    !test_bit(CXEN_DEV_FATAL, &priv->cdev->state)) {
		err = cxen_rx_filter_program(priv, netdev->dev_addr);
		if (err)
			netdev_err(netdev, "cannot program the RX filter: %d\n",
				   err);
	}
	rtnl_unlock();
}

/**
 * cxen_set_rx_mode() - ndo_set_rx_mode: the address lists or flags changed
 * @netdev: the port
 *
 * Atomic (netif_addr_lock_bh held): the work programs the device.
 */
void cxen_set_rx_mode(struct net_device *netdev)
{
	struct cxen_priv *priv = netdev_priv(netdev);

	schedule_work(&priv->rx_mode_work);
}

/**
 * cxen_set_mac_address() - ndo_set_mac_address
 * @netdev: the port, RTNL held
 * @addr: a struct sockaddr with the new address
 *
 * The device's filter takes the new address first, in place of the old
 * one; only then does the netdev switch. Running ports too
 * (IFF_LIVE_ADDR_CHANGE).
 *
 * Return: 0, or a negative errno with the address and the filter as
 * they were.
 */
int cxen_set_mac_address(struct net_device *netdev, void *addr)
{
	struct cxen_priv *priv = netdev_priv(netdev);
	struct sockaddr *sa = addr;
	int err;

	err = eth_prepare_mac_addr_change(netdev, addr);
	if (err)
		return err;
	err = cxen_rx_filter_program(priv, sa->sa_data);
	if (err) {
		netdev_err(netdev, "device refused MAC address %pM: %d\n",
			   sa->sa_data, err);
		return err;
	}
	eth_commit_mac_addr_change(netdev, addr);
	return 0;
}

void cxen_rx_mode_init(struct cxen_priv *priv)
{
	INIT_WORK(&priv->rx_mode_work, cxen_rx_mode_work);
}

/**
 * cxen_rx_mode_stop() - wait for the last RX mode work of a port
 * @priv: the port, unregistered (no ndo_set_rx_mode queues it again);
 *	RTNL not held (the work takes it)
 */
void cxen_rx_mode_stop(struct cxen_priv *priv)
{
	cancel_work_sync(&priv->rx_mode_work);
}

/* ------------------------------------------------------------------ */
/* RSS                                                                 */
/* ------------------------------------------------------------------ */

/*
 * Program @key and @indir over @chans' RQs, queue @steer_idx's entries
 * naming @steer_rqn instead of its channel's RQ (no queue: -1).
 */
static int cxen_rss_program(struct cxen_priv *priv, const u8 *key,
			    const u32 *indir, const struct cxen_chans *chans,
			    int steer_idx, u32 steer_rqn)
{
	u32 rqn[CXEN_RSS_TABLE_SIZE];
	unsigned int i;

	if (!chans)
		return 0;
	for (i = 0; i < CXEN_RSS_TABLE_SIZE; i++) {
		u32 q = indir[i];

		if (WARN_ON_ONCE(q >= chans->num))
			q = 0;
		rqn[i] = (int)q == steer_idx ? steer_rqn : chans->ch[q]->rq.rqn;
	}
	return cxen_cmd_set_rss(priv->cdev, priv->port, key, rqn);
}

/**
 * cxen_rss_apply() - program an RSS key and table into the device
 * @priv: the port
 * @key: CXEN_RSS_KEY_SIZE bytes
 * @indir: CXEN_RSS_TABLE_SIZE queue indices, each below @chans->num
 * @chans: the channels the queue indices name, NULL when the port is down
 *
 * The device switches key and table atomically: frames go to the old RQs
 * or to the new ones, never nowhere. The caller keeps @key and @indir as
 * the port's once this succeeds.
 *
 * Return: 0 or a negative errno (the device keeps its previous table).
 */
int cxen_rss_apply(struct cxen_priv *priv, const u8 *key, const u32 *indir,
		   const struct cxen_chans *chans)
{
	return cxen_rss_program(priv, key, indir, chans, -1, 0);
}

/**
 * cxen_rss_steer_queue() - point one queue's RSS entries at another RQ
 * @priv: the port, running
 * @idx: the queue whose entries of the port's table move
 * @rqn: the RQ they name from now on (a queue restart's new or detour RQ)
 *
 * The port's key and table stay; every other entry names its channel's
 * RQ. Under RTNL.
 *
 * Return: 0 or a negative errno (the device keeps its previous table).
 */
int cxen_rss_steer_queue(struct cxen_priv *priv, int idx, u32 rqn)
{
	return cxen_rss_program(priv, priv->rss_key, priv->rss_indir,
				cxen_chans_rtnl(priv), idx, rqn);
}

/**
 * cxen_rss_indir_for() - the RSS table a port of @n queues runs
 * @priv: the port
 * @n: its queues
 * @indir: written: the default spread, or the user's own table
 */
void cxen_rss_indir_for(struct cxen_priv *priv, unsigned int n, u32 *indir)
{
	unsigned int i;

	if (netif_is_rxfh_configured(priv->netdev)) {
		memcpy(indir, priv->rss_indir, sizeof(priv->rss_indir));
		return;
	}
	for (i = 0; i < CXEN_RSS_TABLE_SIZE; i++)
		indir[i] = ethtool_rxfh_indir_default(i, n);
}
