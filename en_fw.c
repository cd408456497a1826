// SPDX-License-Identifier: GPL-2.0
/*
 * cxen: the device as a whole: finding it lost, resetting it, rebuilding
 * the ports, and the devlink health reporter "fw".
 *
 * Lost. The device is declared lost (cxen_dev_fatal(), CXEN_DEV_FATAL) when
 * a command times out or finds the command interface busy (en_cmd.c),
 * when DEV_STATUS has a syndrome (the async CXEN_ASYNC_FATAL event, or the
 * once-a-second poll, fw_poll), when its heartbeat has not moved for
 * CXEN_FW_HEARTBEAT_MISSES polls, and when a DESTROY fails: the device may
 * still own that queue. From then on no command is sent: each fails at
 * once with -EIO. fatal_work takes every port's carrier away (the stack
 * stops sending and its watchdog stays quiet) and reports to "fw".
 *
 * Nothing the device may still write is freed while it is lost: every
 * DESTROY goes through cxen_hw_release(), which resets the device first
 * (cxen_dev_reset()); both, and cxen_dev_fatal(), are the command
 * channel's (en_cmd.c), below every queue. A reset has the device forget every queue; hw_gen
 * counts resets, so a queue created before the last one needs no DESTROY.
 * A reset that does not complete within CXEN_HW_RESET_MS leaves the device
 * dead (CXEN_DEV_DEAD): memory it was given stays allocated and mapped
 * (leaked rather than freed under it, en_rx.c and en_tx.c; the channels
 * that hold it are kept on &cxen_dev.leaked, en_channels.c) and no further
 * reset is tried until one is asked for by hand. The recovery frees that
 * memory once its reset completed (cxen_leaked_free()); removal tries a
 * reset for it too.
 *
 * Recovery is the "fw" reporter's recover op (auto-recover, or `devlink
 * health recover DEV reporter fw`): reset the device if no DESTROY did
 * already, then rebuild every port with its configuration
 * (cxen_port_rebuild()): the port's state in the device programmed again,
 * and a running port given new channels. Ports come back with their MTU,
 * channels, rings, coalescing, RSS key and table, offloads and pause.
 *
 * Locking: cxen_dev_reset() holds cmd_lock, so no command runs across a
 * reset. The recover op runs under the devlink instance lock and takes
 * RTNL, as the "tx" and "rx" reporters' do; fatal_work reports holding
 * neither.
 */
#include <linux/iopoll.h>
#include <linux/netdevice.h>
#include <linux/rtnetlink.h>
#include <net/devlink.h>

#include "en.h"

#define CXEN_FW_POLL_MS			1000
/* Polls with a frozen heartbeat before the device counts as hung. */
#define CXEN_FW_HEARTBEAT_MISSES	3
/*
 * mlx5's fw_fatal reporter waits 20 minutes before it recovers again on
 * its own: a device that fails again that soon is left to the user.
 */
#define CXEN_FW_GRACE_MS		(20 * 60 * 1000)

/* DEV_STATUS: lost if it has a syndrome. Returns the heartbeat. */
static u16 cxen_fw_check(struct cxen_dev *cdev)
{
	u32 st = cxen_rd32(cdev, CXEN_REG_DEV_STATUS);
	u8 syndrome = FIELD_GET(CXEN_DEV_STATUS_SYNDROME, st);

	if (syndrome && !test_bit(CXEN_DEV_FATAL, &cdev->state)) {
		WRITE_ONCE(cdev->syndrome, syndrome);
		dev_err(cdev->dev, "device reports fatal syndrome %#x\n", syndrome);
		cxen_dev_fatal(cdev, CXEN_FATAL_SYNDROME);
	}
	return FIELD_GET(CXEN_DEV_STATUS_HEARTBEAT, st);
}

/**
 * cxen_fw_async() - the device raised CXEN_ASYNC_FATAL
 * @cdev: the device
 */
void cxen_fw_async(struct cxen_dev *cdev)
{
	cxen_fw_check(cdev);
}

static void cxen_fw_poll(struct work_struct *work)
{
	struct cxen_dev *cdev = container_of(to_delayed_work(work),
					     struct cxen_dev, fw_poll);
	u16 hb;

	/* A lost device is the reset's; its heartbeat means nothing. */
	if (!test_bit(CXEN_DEV_FATAL, &cdev->state)) {
		hb = cxen_fw_check(cdev);
		if (hb != cdev->heartbeat) {
			cdev->heartbeat = hb;
			cdev->heartbeat_misses = 0;
		} else if (++cdev->heartbeat_misses >= CXEN_FW_HEARTBEAT_MISSES) {
			dev_err(cdev->dev, "device heartbeat stuck at %u for %u s\n",
				hb, cdev->heartbeat_misses * CXEN_FW_POLL_MS / 1000);
			cxen_dev_fatal(cdev, CXEN_FATAL_HEARTBEAT);
		}
	}
	schedule_delayed_work(&cdev->fw_poll, msecs_to_jiffies(CXEN_FW_POLL_MS));
}

/* Every port loses its carrier, then the reporter hears of it. */
static void cxen_fatal_work(struct work_struct *work)
{
	struct cxen_dev *cdev = container_of(work, struct cxen_dev, fatal_work);
	unsigned int p;
	char msg[64];

	rtnl_lock();
	for (p = 0; p < cdev->caps.num_ports; p++)
		if (cdev->ports[p])
			netif_carrier_off(cdev->ports[p]);
	rtnl_unlock();

	if (!READ_ONCE(cdev->reporting))
		return;		/* probe or removal: their teardown resets */
	snprintf(msg, sizeof(msg), "device lost: %s",
		 cxen_fatal_cause_name(READ_ONCE(cdev->fatal_cause)));
	devlink_health_report(cdev->fw_reporter, msg, NULL);
}

/* Reset if still needed, then rebuild every port. Under RTNL. */
static int cxen_dev_recover(struct cxen_dev *cdev,
			    struct netlink_ext_ack *extack)
{
	unsigned int p;
	int err, ret;

	ASSERT_RTNL();
	/* By hand after a failed reset: try again. */
	clear_bit(CXEN_DEV_DEAD, &cdev->state);
	err = cxen_dev_reset(cdev);
	if (err) {
		NL_SET_ERR_MSG_MOD(extack, "device reset did not complete");
		return err;
	}
	/* What a failed reset left to the device is safe to free now. */
	cxen_leaked_free(cdev);
	if (!test_and_clear_bit(CXEN_DEV_REBUILD, &cdev->state))
		return 0;
	for (p = 0; p < cdev->caps.num_ports; p++) {
		if (!cdev->ports[p])
			continue;
		ret = cxen_port_rebuild(netdev_priv(cdev->ports[p]));
		if (ret && !err) {
			NL_SET_ERR_MSG_FMT_MOD(extack, "port %u not rebuilt: %d",
					       p, ret);
			err = ret;
		}
	}
	/* Queue faults found while the device was lost went with it. */
	if (!err) {
		devlink_health_reporter_state_update(cdev->tx_reporter,
						     DEVLINK_HEALTH_REPORTER_STATE_HEALTHY);
		devlink_health_reporter_state_update(cdev->rx_reporter,
						     DEVLINK_HEALTH_REPORTER_STATE_HEALTHY);
	}
	return err;
}

static int cxen_fw_reporter_recover(struct devlink_health_reporter *reporter,
				    void *priv_ctx,
				    struct netlink_ext_ack *extack)
{
	struct cxen_dev *cdev = devlink_health_reporter_priv(reporter);
	int err;

	rtnl_lock();
	err = cxen_dev_recover(cdev, extack);
	rtnl_unlock();
	return err;
}

static int cxen_fw_reporter_diagnose(struct devlink_health_reporter *reporter,
				     struct devlink_fmsg *fmsg,
				     struct netlink_ext_ack *extack)
{
	struct cxen_dev *cdev = devlink_health_reporter_priv(reporter);
	u32 st = cxen_rd32(cdev, CXEN_REG_DEV_STATUS);
	const char *state = "ok";

	if (test_bit(CXEN_DEV_DEAD, &cdev->state))
		state = "dead (reset failed)";
	else if (test_bit(CXEN_DEV_FATAL, &cdev->state))
		state = "lost";
	devlink_fmsg_string_pair_put(fmsg, "state", state);
	devlink_fmsg_string_pair_put(fmsg, "cause",
				     cxen_fatal_cause_name(READ_ONCE(cdev->fatal_cause)));
	devlink_fmsg_bool_pair_put(fmsg, "ready", st & CXEN_DEV_STATUS_READY);
	devlink_fmsg_u8_pair_put(fmsg, "syndrome",
				 FIELD_GET(CXEN_DEV_STATUS_SYNDROME, st));
	devlink_fmsg_u32_pair_put(fmsg, "heartbeat",
				  FIELD_GET(CXEN_DEV_STATUS_HEARTBEAT, st));
	devlink_fmsg_u32_pair_put(fmsg, "resets", READ_ONCE(cdev->hw_gen));
	devlink_fmsg_u64_pair_put(fmsg, "reset_failures", cdev->reset_failures);
	return 0;
}

static const struct devlink_health_reporter_ops cxen_fw_reporter_ops = {
	.name		= "fw",
	.recover	= cxen_fw_reporter_recover,
	.diagnose	= cxen_fw_reporter_diagnose,
};

/**
 * cxen_fw_init() - set up the device-level works
 * @cdev: the device, no port yet
 */
void cxen_fw_init(struct cxen_dev *cdev)
{
	INIT_DELAYED_WORK(&cdev->fw_poll, cxen_fw_poll);
	INIT_WORK(&cdev->fatal_work, cxen_fatal_work);
}

/**
 * cxen_fw_reporter_create() - the device's "fw" reporter
 * @cdev: the device, its devlink instance locked
 *
 * Return: 0 or a negative errno.
 */
int cxen_fw_reporter_create(struct cxen_dev *cdev)
{
	cdev->fw_reporter = devl_health_reporter_create(priv_to_devlink(cdev),
							&cxen_fw_reporter_ops,
							CXEN_FW_GRACE_MS, cdev);
	return PTR_ERR_OR_ZERO(cdev->fw_reporter);
}

/**
 * cxen_fw_reporter_destroy() - undo cxen_fw_reporter_create()
 * @cdev: the device, its devlink instance locked, reports stopped
 */
void cxen_fw_reporter_destroy(struct cxen_dev *cdev)
{
	devl_health_reporter_destroy(cdev->fw_reporter);
}

/**
 * cxen_fw_start() - start watching the device's health
 * @cdev: the device
 */
void cxen_fw_start(struct cxen_dev *cdev)
{
	cdev->heartbeat = FIELD_GET(CXEN_DEV_STATUS_HEARTBEAT,
				    cxen_rd32(cdev, CXEN_REG_DEV_STATUS));
	schedule_delayed_work(&cdev->fw_poll, msecs_to_jiffies(CXEN_FW_POLL_MS));
}

/**
 * cxen_fw_stop() - stop watching, and reporting
 * @cdev: the device; reports already stopped (cdev->reporting false)
 */
void cxen_fw_stop(struct cxen_dev *cdev)
{
	cancel_delayed_work_sync(&cdev->fw_poll);
	cancel_work_sync(&cdev->fatal_work);
}
