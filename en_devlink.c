// SPDX-License-Identifier: GPL-2.0
/*
 * cxen devlink: the device's instance (struct cxen_dev is its private
 * data), its driver-specific parameters and reload.
 *
 *   tx_doorbell_batch  bool, runtime, default true: ring the TX doorbell
 *                      once per batch the stack hands over
 *   rx_layout          string, driverinit, default "auto": the RX
 *                      buffer layout the ports start with ("auto": the
 *                      driver picks by MTU, cxen_rx_layout_pick()),
 *                      applied by `devlink dev reload` (which creates the
 *                      ports anew)
 *
 * Documentation/cxen.rst describes them for users. The values live in
 * struct cxen_dev; tx_doorbell_batch is also cached in each port's
 * struct cxen_priv, where xmit reads it.
 *
 * Locking: the devlink instance lock covers the parameters and the ports
 * array. Probe holds it from registering the parameters until the
 * instance is registered, remove from unregistering it until the
 * parameters are gone, and devlink holds it around every parameter
 * operation and reload: a parameter's set and reload always see the
 * ports array stable.
 */
#include <linux/bitfield.h>
#include <linux/device.h>
#include <linux/string.h>
#include <net/devlink.h>

#include "en.h"

enum cxen_devlink_param_id {
	CXEN_DEVLINK_PARAM_ID_BASE = DEVLINK_PARAM_GENERIC_ID_MAX,
	CXEN_DEVLINK_PARAM_ID_TX_DOORBELL_BATCH,
	CXEN_DEVLINK_PARAM_ID_RX_LAYOUT,
};

static int cxen_devlink_tx_db_batch_get(struct devlink *devlink, u32 id,
					struct devlink_param_gset_ctx *ctx)
{
	struct cxen_dev *cdev = devlink_priv(devlink);

	ctx->val.vbool = cdev->tx_doorbell_batch;
	return 0;
}

static int cxen_devlink_tx_db_batch_set(struct devlink *devlink, u32 id,
					struct devlink_param_gset_ctx *ctx,
					struct netlink_ext_ack *extack)
{
	struct cxen_dev *cdev = devlink_priv(devlink);
	unsigned int p;

	cdev->tx_doorbell_batch = ctx->val.vbool;
	for (p = 0; p < CXEN_HW_MAX_PORTS; p++) {
		struct cxen_priv *priv;

		if (!cdev->ports[p])
			continue;
		priv = netdev_priv(cdev->ports[p]);
		WRITE_ONCE(priv->tx_doorbell_batch, ctx->val.vbool);
	}
	return 0;
}

static int cxen_devlink_rx_layout_validate(struct devlink *devlink, u32 id,
					   union devlink_param_value val,
					   struct netlink_ext_ack *extack)
{
	int s;

	if (sysfs_streq(val.vstr, CXEN_RX_AUTO_NAME))
		return 0;
	s = cxen_rx_layout_find(val.vstr);
	if (s < 0) {
		NL_SET_ERR_MSG_MOD(extack, "unknown RX layout: use "
				   CXEN_RX_AUTO_NAME ", " CXEN_RX_LAYOUT_NAMES);
		return -EINVAL;
	}
	return cxen_rx_layout_dev_check(devlink_priv(devlink), NULL, s,
					  extack);
}

static const struct devlink_param cxen_devlink_params[] = {
	DEVLINK_PARAM_DRIVER(CXEN_DEVLINK_PARAM_ID_TX_DOORBELL_BATCH,
			     "tx_doorbell_batch", DEVLINK_PARAM_TYPE_BOOL,
			     BIT(DEVLINK_PARAM_CMODE_RUNTIME),
			     cxen_devlink_tx_db_batch_get,
			     cxen_devlink_tx_db_batch_set, NULL),
	DEVLINK_PARAM_DRIVER(CXEN_DEVLINK_PARAM_ID_RX_LAYOUT,
			     "rx_layout", DEVLINK_PARAM_TYPE_STRING,
			     BIT(DEVLINK_PARAM_CMODE_DRIVERINIT),
			     NULL, NULL, cxen_devlink_rx_layout_validate),
};

/*
 * The driverinit value of rx_layout: what the ports are created with.
 * It was validated when set, so it is "auto" or names a layout of the
 * table.
 */
static void cxen_devlink_load_rx_layout(struct cxen_dev *cdev)
{
	struct devlink *devlink = priv_to_devlink(cdev);
	union devlink_param_value val;
	int s;

	if (devl_param_driverinit_value_get(devlink,
					    CXEN_DEVLINK_PARAM_ID_RX_LAYOUT,
					    &val))
		return;
	cdev->rx_auto = sysfs_streq(val.vstr, CXEN_RX_AUTO_NAME);
	if (cdev->rx_auto) {
		cdev->rx_named = CXEN_RX_PAGEPOOL;
		return;
	}
	s = cxen_rx_layout_find(val.vstr);
	if (!WARN_ON_ONCE(s < 0))
		cdev->rx_named = s;
}

/**
 * cxen_devlink_params_register() - register the parameters, set defaults
 * @cdev: the device, its devlink instance locked and not registered yet
 *
 * Return: 0 or a negative errno; on error nothing is registered.
 */
int cxen_devlink_params_register(struct cxen_dev *cdev)
{
	struct devlink *devlink = priv_to_devlink(cdev);
	union devlink_param_value val = {};
	int err;

	err = devl_params_register(devlink, cxen_devlink_params,
				   ARRAY_SIZE(cxen_devlink_params));
	if (err)
		return err;
	cdev->tx_doorbell_batch = true;
	cdev->rx_named = CXEN_RX_PAGEPOOL;
	cdev->rx_auto = true;
	strscpy(val.vstr, CXEN_RX_AUTO_NAME, sizeof(val.vstr));
	devl_param_driverinit_value_set(devlink, CXEN_DEVLINK_PARAM_ID_RX_LAYOUT,
					val);
	return 0;
}

/**
 * cxen_devlink_params_unregister() - undo cxen_devlink_params_register()
 * @cdev: the device, its devlink instance locked
 */
void cxen_devlink_params_unregister(struct cxen_dev *cdev)
{
	devl_params_unregister(priv_to_devlink(cdev), cxen_devlink_params,
			       ARRAY_SIZE(cxen_devlink_params));
}

/*
 * Reload (driver reinit): the ports are destroyed and created again with
 * the driverinit values; the device, its command channel and interrupts
 * stay. Their netdevs come back in the namespace the instance is in.
 */
static int cxen_devlink_reload_down(struct devlink *devlink, bool netns_change,
				    enum devlink_reload_action action,
				    enum devlink_reload_limit limit,
				    struct netlink_ext_ack *extack)
{
	if (netns_change) {
		NL_SET_ERR_MSG_MOD(extack,
				   "reload with a network namespace is not supported: move the netdevs instead");
		return -EOPNOTSUPP;
	}
	cxen_ports_destroy(devlink_priv(devlink));
	return 0;
}

static int cxen_devlink_reload_up(struct devlink *devlink,
				  enum devlink_reload_action action,
				  enum devlink_reload_limit limit,
				  u32 *actions_performed,
				  struct netlink_ext_ack *extack)
{
	struct cxen_dev *cdev = devlink_priv(devlink);
	int err;

	cxen_devlink_load_rx_layout(cdev);
	err = cxen_ports_create(cdev);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack,
				   "cannot create the ports again (the kernel log says why): reload to retry");
		return err;
	}
	*actions_performed = BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT);
	return 0;
}

/*
 * devlink dev info: the device's serial number, its firmware version and
 * the version of the hardware interface it speaks (cxen_hw.h).
 */
static int cxen_devlink_info_get(struct devlink *devlink,
				 struct devlink_info_req *req,
				 struct netlink_ext_ack *extack)
{
	struct cxen_dev *cdev = devlink_priv(devlink);
	char buf[16];
	int err;

	if (cdev->caps.serial[0]) {
		err = devlink_info_serial_number_put(req, cdev->caps.serial);
		if (err)
			return err;
	}
	snprintf(buf, sizeof(buf), "%u.%u", cdev->caps.fw_version >> 16,
		 cdev->caps.fw_version & 0xffff);
	err = devlink_info_version_running_put(req,
					       DEVLINK_INFO_VERSION_GENERIC_FW,
					       buf);
	if (err)
		return err;
	snprintf(buf, sizeof(buf), "%lu.%lu",
		 FIELD_GET(CXEN_VERSION_MAJOR, cdev->hw_version),
		 FIELD_GET(CXEN_VERSION_MINOR, cdev->hw_version));
	return devlink_info_version_fixed_put(req, "hw.interface", buf);
}

static const struct devlink_ops cxen_devlink_ops = {
	.info_get	= cxen_devlink_info_get,
	.reload_actions	= BIT(DEVLINK_RELOAD_ACTION_DRIVER_REINIT),
	.reload_down	= cxen_devlink_reload_down,
	.reload_up	= cxen_devlink_reload_up,
};

/**
 * cxen_devlink_alloc() - allocate the device's devlink instance
 * @dev: the bus device
 *
 * Return: the zeroed struct cxen_dev inside the instance, or NULL.
 * Free with devlink_free(priv_to_devlink(cdev)).
 */
struct cxen_dev *cxen_devlink_alloc(struct device *dev)
{
	struct devlink *devlink;

	devlink = devlink_alloc(&cxen_devlink_ops, sizeof(struct cxen_dev), dev);
	if (!devlink)
		return NULL;
	return devlink_priv(devlink);
}
