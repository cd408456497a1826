// SPDX-License-Identifier: GPL-2.0
/*
 * cxen command channel: the HCR-like mailbox of Documentation/hw-interface.rst.
 *
 * One command at a time under cmd_lock, from process context: copy the
 * input into the input mailbox, program the mailbox addresses and the
 * modifier, write the opcode with GO, then poll until the device clears GO.
 */
#include <linux/ctype.h>
#include <linux/delay.h>
#include <linux/iopoll.h>

#include "en.h"

#define CXEN_MBOX_SIZE	SZ_4K

static const char *cxen_cmd_status_str(u8 status)
{
	switch (status) {
	case CXEN_STAT_OK:		return "ok";
	case CXEN_STAT_BAD_OP:		return "unknown opcode";
	case CXEN_STAT_BAD_PARAM:	return "bad parameter";
	case CXEN_STAT_BAD_RES:		return "bad resource";
	case CXEN_STAT_BAD_STATE:	return "bad state";
	case CXEN_STAT_BAD_ADDR:	return "bad address";
	case CXEN_STAT_INTERNAL:	return "internal error";
	default:			return "unknown status";
	}
}

static int cxen_cmd_status_errno(u8 status)
{
	switch (status) {
	case CXEN_STAT_OK:		return 0;
	case CXEN_STAT_BAD_OP:		return -EOPNOTSUPP;
	case CXEN_STAT_BAD_PARAM:	return -EINVAL;
	case CXEN_STAT_BAD_RES:		return -EBUSY;
	case CXEN_STAT_BAD_STATE:	return -EBUSY;
	case CXEN_STAT_BAD_ADDR:	return -EFAULT;
	default:			return -EIO;
	}
}

int cxen_cmd_init(struct cxen_dev *cdev)
{
	mutex_init(&cdev->cmd_lock);
	cdev->cmd_in = dma_alloc_coherent(cdev->dev, CXEN_MBOX_SIZE,
					  &cdev->cmd_in_dma, GFP_KERNEL);
	if (!cdev->cmd_in)
		return -ENOMEM;
	cdev->cmd_out = dma_alloc_coherent(cdev->dev, CXEN_MBOX_SIZE,
					   &cdev->cmd_out_dma, GFP_KERNEL);
	if (!cdev->cmd_out) {
		dma_free_coherent(cdev->dev, CXEN_MBOX_SIZE, cdev->cmd_in,
				  cdev->cmd_in_dma);
		return -ENOMEM;
	}
	return 0;
}

void cxen_cmd_cleanup(struct cxen_dev *cdev)
{
	dma_free_coherent(cdev->dev, CXEN_MBOX_SIZE, cdev->cmd_out,
			  cdev->cmd_out_dma);
	dma_free_coherent(cdev->dev, CXEN_MBOX_SIZE, cdev->cmd_in,
			  cdev->cmd_in_dma);
	mutex_destroy(&cdev->cmd_lock);
}

/**
 * cxen_cmd_exec() - run one command on the device and wait for it
 * @cdev: the device
 * @op: enum cxen_cmd_opcode
 * @mod: input modifier (port or queue number)
 * @in: input mailbox contents, or NULL
 * @in_len: bytes of @in (at most 4 KiB)
 * @out: buffer for the output mailbox, or NULL
 * @out_len: bytes of @out
 *
 * Sleeps. A device found lost (en_fw.c) is not asked: every command fails
 * with -EIO until it is reset. A command that times out, or a command
 * interface busy before one starts, declares it lost.
 *
 * Return: 0, -EIO if the device is lost, -ETIMEDOUT if it did not finish
 * within CXEN_CMD_TIMEOUT_MS, or the errno of the device's status.
 */
static int cxen_cmd_exec(struct cxen_dev *cdev, u16 op, u32 mod,
			 const void *in, size_t in_len, void *out, size_t out_len)
{
	u32 ctrl;
	int err;

	if (WARN_ON(in_len > CXEN_MBOX_SIZE || out_len > CXEN_MBOX_SIZE))
		return -EINVAL;

	mutex_lock(&cdev->cmd_lock);
	if (test_bit(CXEN_DEV_FATAL, &cdev->state)) {
		err = -EIO;
		goto unlock;
	}
	ctrl = cxen_rd32(cdev, CXEN_REG_CMD_CTRL);
	if (ctrl & CXEN_CMD_CTRL_GO) {
		dev_err(cdev->dev, "command interface busy before command %#x\n", op);
		cxen_dev_fatal(cdev, CXEN_FATAL_CMD_BUSY);
		err = -EIO;
		goto unlock;
	}

	memset(cdev->cmd_in, 0, CXEN_MBOX_SIZE);
	if (in)
		memcpy(cdev->cmd_in, in, in_len);
	memset(cdev->cmd_out, 0, CXEN_MBOX_SIZE);

	cxen_wr32(cdev, CXEN_REG_CMD_IN_LO, lower_32_bits(cdev->cmd_in_dma));
	cxen_wr32(cdev, CXEN_REG_CMD_IN_HI, upper_32_bits(cdev->cmd_in_dma));
	cxen_wr32(cdev, CXEN_REG_CMD_OUT_LO, lower_32_bits(cdev->cmd_out_dma));
	cxen_wr32(cdev, CXEN_REG_CMD_OUT_HI, upper_32_bits(cdev->cmd_out_dma));
	cxen_wr32(cdev, CXEN_REG_CMD_MOD, mod);
	/* The mailbox must be visible to the device before GO. */
	wmb();
	cxen_wr32(cdev, CXEN_REG_CMD_CTRL,
		  CXEN_CMD_CTRL_GO | FIELD_PREP(CXEN_CMD_CTRL_OPCODE, op));

	err = read_poll_timeout(cxen_rd32, ctrl, !(ctrl & CXEN_CMD_CTRL_GO),
				20, CXEN_CMD_TIMEOUT_MS * USEC_PER_MSEC, false,
				cdev, CXEN_REG_CMD_CTRL);
	if (err) {
		dev_err(cdev->dev, "command %#x (mod %#x) timed out\n", op, mod);
		cxen_dev_fatal(cdev, CXEN_FATAL_CMD_TIMEOUT);
		goto unlock;
	}
	/* Read the output only after seeing GO clear. */
	rmb();
	err = cxen_cmd_status_errno(FIELD_GET(CXEN_CMD_CTRL_STATUS, ctrl));
	if (err) {
		dev_err(cdev->dev, "command %#x (mod %#x) failed: %s\n", op, mod,
			cxen_cmd_status_str(FIELD_GET(CXEN_CMD_CTRL_STATUS, ctrl)));
		goto unlock;
	}
	if (out)
		memcpy(out, cdev->cmd_out, out_len);
unlock:
	mutex_unlock(&cdev->cmd_lock);
	return err;
}

/*
 * The device's serial number, NUL padded in @in: kept only if it is
 * letters, digits and dashes (it goes to devlink and the log as is).
 */
static void cxen_cmd_copy_serial(char *out, const char in[16])
{
	unsigned int i;

	memcpy(out, in, 16);
	out[16] = '\0';
	for (i = 0; out[i]; i++) {
		if (!isalnum(out[i]) && out[i] != '-') {
			out[0] = '\0';
			return;
		}
	}
}

int cxen_cmd_query_dev(struct cxen_dev *cdev)
{
	struct cxen_dev_caps caps;
	int err;

	err = cxen_cmd_exec(cdev, CXEN_CMD_QUERY_DEV, 0, NULL, 0,
			    &caps, sizeof(caps));
	if (err)
		return err;

	cdev->caps.num_ports = caps.num_ports;
	cdev->caps.max_channels = caps.max_channels;
	cdev->caps.max_rx_segs = caps.max_rx_segs;
	cdev->caps.log_min_ring = caps.log_min_ring;
	cdev->caps.log_max_ring = caps.log_max_ring;
	cdev->caps.rsvd_lkey = be32_to_cpu(caps.rsvd_lkey);
	cdev->caps.min_mtu = be16_to_cpu(caps.min_mtu);
	cdev->caps.max_mtu = be16_to_cpu(caps.max_mtu);
	cdev->caps.num_vectors = be32_to_cpu(caps.num_vectors);
	cdev->caps.fw_version = be32_to_cpu(caps.fw_version);
	cxen_cmd_copy_serial(cdev->caps.serial, caps.serial);
	/* Reserved (0) before minor 3: no striding RQ, no header split. */
	cdev->caps.cap_flags = be32_to_cpu(caps.cap_flags);
	cdev->caps.log_min_stride_bytes = caps.log_min_stride_bytes;
	cdev->caps.log_max_stride_bytes = caps.log_max_stride_bytes;
	cdev->caps.log_max_wqe_bytes = caps.log_max_wqe_bytes;

	/* Never trust the device with a value that sizes our arrays. */
	if (!cdev->caps.num_ports || cdev->caps.num_ports > CXEN_HW_MAX_PORTS ||
	    !cdev->caps.max_channels ||
	    cdev->caps.max_channels > CXEN_HW_MAX_CHANNELS ||
	    !cdev->caps.max_rx_segs ||
	    cdev->caps.max_rx_segs > CXEN_HW_RX_MAX_SEGS ||
	    cdev->caps.num_vectors > CXEN_HW_NUM_VECTORS ||
	    cdev->caps.num_vectors <
	    1 + cdev->caps.num_ports * cdev->caps.max_channels ||
	    cdev->caps.log_min_ring < CXEN_HW_MIN_LOG_RING ||
	    cdev->caps.min_mtu > cdev->caps.max_mtu ||
	    cdev->caps.log_min_ring > cdev->caps.log_max_ring ||
	    cdev->caps.log_max_ring > CXEN_HW_MAX_LOG_RING) {
		dev_err(cdev->dev, "device reports implausible capabilities\n");
		return -EIO;
	}
	return 0;
}

int cxen_cmd_query_port(struct cxen_dev *cdev, u8 port,
			struct cxen_port_info *info)
{
	return cxen_cmd_exec(cdev, CXEN_CMD_QUERY_PORT, port, NULL, 0,
			     info, sizeof(*info));
}

int cxen_cmd_query_counters(struct cxen_dev *cdev, u8 port,
			    struct cxen_port_counters *out)
{
	return cxen_cmd_exec(cdev, CXEN_CMD_QUERY_COUNTERS, port, NULL, 0,
			     out, sizeof(*out));
}

int cxen_cmd_set_port(struct cxen_dev *cdev, u8 port, u32 valid, u16 mtu,
		      bool admin_up)
{
	struct cxen_port_set in = {
		.valid = cpu_to_be32(valid),
		.mtu = cpu_to_be16(mtu),
		.admin_up = admin_up,
	};

	return cxen_cmd_exec(cdev, CXEN_CMD_SET_PORT, port, &in, sizeof(in),
			     NULL, 0);
}

/**
 * cxen_cmd_set_port_offloads() - set a port's VLAN strip and loopback
 * @cdev: the device
 * @port: the port
 * @vlan_strip: strip the outer 802.1Q tag of received frames into the CQE
 * @loopback: send the port's frames back to itself instead of the cable
 *
 * Return: 0 or a negative errno.
 */
int cxen_cmd_set_port_offloads(struct cxen_dev *cdev, u8 port, bool vlan_strip,
			       bool loopback)
{
	struct cxen_port_set in = {
		.valid = cpu_to_be32(CXEN_PORT_SET_VLAN_STRIP |
				     CXEN_PORT_SET_LOOPBACK),
		.vlan_strip = vlan_strip,
		.loopback = loopback,
	};

	return cxen_cmd_exec(cdev, CXEN_CMD_SET_PORT, port, &in, sizeof(in),
			     NULL, 0);
}

/**
 * cxen_cmd_set_port_pause() - set a port's link flow control
 * @cdev: the device
 * @port: the port
 * @rx_pause: hold the transmitter when the peer sends PAUSE
 * @tx_pause: send PAUSE, rather than drop, when an RQ has no posted WQE
 *
 * Return: 0 or a negative errno.
 */
int cxen_cmd_set_port_pause(struct cxen_dev *cdev, u8 port, bool rx_pause,
			    bool tx_pause)
{
	struct cxen_port_set in = {
		.valid = cpu_to_be32(CXEN_PORT_SET_PAUSE),
		.rx_pause = rx_pause,
		.tx_pause = tx_pause,
	};

	return cxen_cmd_exec(cdev, CXEN_CMD_SET_PORT, port, &in, sizeof(in),
			     NULL, 0);
}

/**
 * cxen_cmd_modify_cq() - change the interrupt moderation of a live CQ
 * @cdev: the device
 * @cqn: the CQ
 * @usecs: moderation time, 0..CXEN_HW_MAX_MODER_USECS (0: off)
 * @frames: moderation frames, 0..CXEN_HW_MAX_MODER_FRAMES (0: no limit)
 *
 * Return: 0 or a negative errno.
 */
int cxen_cmd_modify_cq(struct cxen_dev *cdev, u32 cqn, u16 usecs, u16 frames)
{
	struct cxen_cq_moder in = {
		.moder_usecs = cpu_to_be16(usecs),
		.moder_frames = cpu_to_be16(frames),
	};

	return cxen_cmd_exec(cdev, CXEN_CMD_MODIFY_CQ, cqn, &in, sizeof(in),
			     NULL, 0);
}

int cxen_cmd_create_cq(struct cxen_dev *cdev, struct cxen_cq *cq,
		       dma_addr_t dbrec_dma, int vector)
{
	struct cxen_cq_ctx in = {
		.ring_dma = cpu_to_be64(cq->ring_dma),
		.dbrec_dma = cpu_to_be64(dbrec_dma),
		.log_size = cq->log_size,
		.vector = cpu_to_be16(vector),
		.moder_usecs = cpu_to_be16(cq->moder_usecs),
		.moder_frames = cpu_to_be16(cq->moder_frames),
	};

	/* A reset after this point has the device forget the CQ. */
	cq->hw_gen = READ_ONCE(cdev->hw_gen);
	return cxen_cmd_exec(cdev, CXEN_CMD_CREATE_CQ, cq->cqn, &in, sizeof(in),
			     NULL, 0);
}

/**
 * cxen_cmd_query_wq() - the device's view of an SQ or RQ
 * @cdev: the device
 * @op: CXEN_CMD_QUERY_SQ or CXEN_CMD_QUERY_RQ
 * @num: the queue number
 * @out: filled on success
 *
 * Return: 0 or a negative errno.
 */
int cxen_cmd_query_wq(struct cxen_dev *cdev, u16 op, u32 num,
		      struct cxen_wq_state *out)
{
	return cxen_cmd_exec(cdev, op, num, NULL, 0, out, sizeof(*out));
}

/**
 * cxen_cmd_modify_wq() - move an SQ or RQ to another state
 * @cdev: the device
 * @op: CXEN_CMD_MODIFY_SQ or CXEN_CMD_MODIFY_RQ
 * @num: the queue number
 * @state: CXEN_WQ_RST (stop: the device is done with the queue when this
 *	returns 0) or CXEN_WQ_RDY (start over at WQE 0)
 *
 * Return: 0 or a negative errno.
 */
int cxen_cmd_modify_wq(struct cxen_dev *cdev, u16 op, u32 num, u32 state)
{
	struct cxen_wq_modify in = { .state = cpu_to_be32(state) };

	return cxen_cmd_exec(cdev, op, num, &in, sizeof(in), NULL, 0);
}

int cxen_cmd_create_wq(struct cxen_dev *cdev, u16 op, u32 num, u8 port,
		       dma_addr_t ring_dma, dma_addr_t dbrec_dma, u32 cqn,
		       u8 log_size, u8 log_stride)
{
	struct cxen_wq_ctx in = {
		.ring_dma = cpu_to_be64(ring_dma),
		.dbrec_dma = cpu_to_be64(dbrec_dma),
		.cqn = cpu_to_be32(cqn),
		.port = port,
		.log_size = log_size,
		.log_stride = log_stride,
	};

	return cxen_cmd_exec(cdev, op, num, &in, sizeof(in), NULL, 0);
}

/**
 * cxen_cmd_create_rq() - CREATE_RQ with the whole RQ context
 * @cdev: the device
 * @num: the RQ number
 * @ctx: the context, device endian, rq_flags and the fields of its flags
 *	set (a striding RQ, header split)
 *
 * Return: 0 or a negative errno.
 */
int cxen_cmd_create_rq(struct cxen_dev *cdev, u32 num,
		       const struct cxen_rq_ctx *ctx)
{
	return cxen_cmd_exec(cdev, CXEN_CMD_CREATE_RQ, num, ctx, sizeof(*ctx),
			     NULL, 0);
}

/**
 * cxen_cmd_set_rss() - set a port's RSS key and indirection table
 * @cdev: the device
 * @port: the port
 * @key: CXEN_RSS_KEY_SIZE bytes of Toeplitz key
 * @rqn: CXEN_RSS_TABLE_SIZE RQ numbers, all of that port
 *
 * The device switches key and table atomically. Return: 0 or a negative
 * errno.
 */
int cxen_cmd_set_rss(struct cxen_dev *cdev, u8 port, const u8 *key,
		     const u32 *rqn)
{
	struct cxen_rss_ctx *in;
	unsigned int i;
	int err;

	in = kzalloc(sizeof(*in), GFP_KERNEL);
	if (!in)
		return -ENOMEM;
	in->hash_fields = cpu_to_be32(CXEN_RSS_HASH_IPV4 | CXEN_RSS_HASH_IPV6 |
				      CXEN_RSS_HASH_TCP | CXEN_RSS_HASH_UDP);
	memcpy(in->key, key, sizeof(in->key));
	for (i = 0; i < CXEN_RSS_TABLE_SIZE; i++)
		in->rqn[i] = cpu_to_be32(rqn[i]);
	err = cxen_cmd_exec(cdev, CXEN_CMD_SET_RSS, port, in, sizeof(*in),
			    NULL, 0);
	kfree(in);
	return err;
}

/**
 * cxen_cmd_set_rx_filter() - replace a port's RX filter
 * @cdev: the device
 * @port: the port
 * @filter: the filter as the device reads it (big-endian fields)
 *
 * The device switches to it atomically. Return: 0 or a negative errno
 * (the filter is then unchanged).
 */
int cxen_cmd_set_rx_filter(struct cxen_dev *cdev, u8 port,
			   const struct cxen_rx_filter *filter)
{
	return cxen_cmd_exec(cdev, CXEN_CMD_SET_RX_FILTER, port, filter,
			     sizeof(*filter), NULL, 0);
}

/*
 * The device lost and reset. Everything that finds the device lost (a
 * command that times out, here; DEV_STATUS and the heartbeat, en_fw.c; a
 * DESTROY that fails) calls cxen_dev_fatal(); every DESTROY of a queue
 * goes through cxen_hw_release(), which resets a lost device before the
 * caller frees memory the device was given. en_fw.c reports the loss and
 * rebuilds the ports.
 */

static const char * const cxen_fatal_cause_str[] = {
	[CXEN_FATAL_NONE]		= "none",
	[CXEN_FATAL_CMD_TIMEOUT]	= "command timeout",
	[CXEN_FATAL_CMD_BUSY]		= "command interface stuck",
	[CXEN_FATAL_SYNDROME]		= "syndrome",
	[CXEN_FATAL_HEARTBEAT]		= "heartbeat stopped",
	[CXEN_FATAL_DESTROY]		= "DESTROY failed",
};

/**
 * cxen_fatal_cause_name() - why the device was declared lost, in words
 * @cause: &cxen_dev.fatal_cause
 *
 * Return: a static string.
 */
const char *cxen_fatal_cause_name(enum cxen_fatal_cause cause)
{
	if (cause >= ARRAY_SIZE(cxen_fatal_cause_str))
		return "unknown";
	return cxen_fatal_cause_str[cause];
}

/**
 * cxen_dev_fatal() - declare the device lost
 * @cdev: the device
 * @cause: why
 *
 * Any context. The first call of an episode logs, records @cause and
 * queues the report; later ones do nothing until a reset.
 */
void cxen_dev_fatal(struct cxen_dev *cdev, enum cxen_fatal_cause cause)
{
	if (test_and_set_bit(CXEN_DEV_FATAL, &cdev->state))
		return;
	WRITE_ONCE(cdev->fatal_cause, cause);
	cdev->fatal_errors++;
	dev_err(cdev->dev, "device lost (%s): no command is sent until it is reset\n",
		cxen_fatal_cause_str[cause]);
	schedule_work(&cdev->fatal_work);
}

/**
 * cxen_dev_reset() - reset a lost device
 * @cdev: the device
 *
 * Sleeps, holding the command lock. Does nothing for a device that is not
 * lost, fails at once for one whose last reset failed (CXEN_DEV_DEAD).
 * On success the device has forgotten every queue (hw_gen moved on) and
 * touches none of the memory it was given; the ports need a rebuild
 * (CXEN_DEV_REBUILD).
 *
 * Return: 0, or -EIO if the device did not come back.
 */
int cxen_dev_reset(struct cxen_dev *cdev)
{
	int err = 0;
	u32 st;

	mutex_lock(&cdev->cmd_lock);
	if (!test_bit(CXEN_DEV_FATAL, &cdev->state))
		goto unlock;
	if (test_bit(CXEN_DEV_DEAD, &cdev->state)) {
		err = -EIO;
		goto unlock;
	}
	dev_warn(cdev->dev, "resetting the device\n");
	cxen_wr32(cdev, CXEN_REG_DEV_RESET, CXEN_DEV_RESET_MAGIC);
	err = read_poll_timeout(cxen_rd32, st, st & CXEN_DEV_STATUS_READY,
				USEC_PER_MSEC, CXEN_HW_RESET_MS * USEC_PER_MSEC,
				true, cdev, CXEN_REG_DEV_STATUS);
	if (err) {
		set_bit(CXEN_DEV_DEAD, &cdev->state);
		cdev->reset_failures++;
		dev_err(cdev->dev, "device reset did not complete in %u ms: its memory stays allocated; retry with devlink health recover\n",
			CXEN_HW_RESET_MS);
		err = -EIO;
		goto unlock;
	}
	WRITE_ONCE(cdev->hw_gen, cdev->hw_gen + 1);
	cdev->heartbeat = FIELD_GET(CXEN_DEV_STATUS_HEARTBEAT, st);
	cdev->heartbeat_misses = 0;
	set_bit(CXEN_DEV_REBUILD, &cdev->state);
	clear_bit(CXEN_DEV_FATAL, &cdev->state);
	dev_info(cdev->dev, "device reset\n");
unlock:
	mutex_unlock(&cdev->cmd_lock);
	return err;
}

/**
 * cxen_hw_release() - have the device let go of a CQ, SQ or RQ
 * @cdev: the device
 * @op: CXEN_CMD_DESTROY_CQ, _SQ or _RQ
 * @num: the queue's number
 * @gen: &cxen_dev.hw_gen when the queue was created
 *
 * A queue of an earlier device generation is already gone. A DESTROY that
 * fails leaves the device owning the queue: it is declared lost and reset.
 *
 * Return: 0 when the device will not touch the queue's memory again, or
 * -EIO when it may (the reset failed): the caller must free none of it.
 */
int cxen_hw_release(struct cxen_dev *cdev, u16 op, u32 num, u32 gen)
{
	int err;

	if (gen != READ_ONCE(cdev->hw_gen))
		return 0;
	err = cxen_cmd_exec(cdev, op, num, NULL, 0, NULL, 0);
	if (!err)
		return 0;
	cxen_dev_fatal(cdev, CXEN_FATAL_DESTROY);
	return cxen_dev_reset(cdev);
}
