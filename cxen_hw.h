/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxen hardware interface: registers, command mailbox, descriptors, CQEs
 * and doorbell records of the cxen NIC.
 *
 * This header is the whole contract between the driver (cxen.ko) and the
 * device. The device model (sim/cxsim.ko) implements it; a silicon device
 * would implement the same. Documentation/hw-interface.rst is the prose
 * version of this file. Everything the device reads or writes in host
 * memory is big-endian, as on ConnectX; registers are host-endian u32.
 *
 * Field masks are GENMASK()/BIT() macros used with FIELD_GET()/FIELD_PREP()
 * (fbnic_csr.h style); nothing else in either module hard-codes an offset,
 * a shift or a bit.
 */
#ifndef _CXEN_HW_H_
#define _CXEN_HW_H_

#include <linux/bitfield.h>
#include <linux/bits.h>
#include <linux/types.h>
#include <asm/byteorder.h>

/* ------------------------------------------------------------------ */
/* Identity and limits                                                 */
/* ------------------------------------------------------------------ */

#define CXEN_HW_ID_MAGIC		0x4358454eu	/* "CXEN" */
/*
 * Minor 1 added DEV_STATUS and DEV_RESET; 2 SET_RX_FILTER, rx_filtered;
 * 3 the striding RQ and header/data split (cxen_dev_caps.cap_flags,
 * struct cxen_rq_ctx, the RX CQE's stride and header fields);
 * 4 rx_filtered_bytes; 5 tx_discarded.
 */
#define CXEN_HW_VERSION_MAJOR		1
#define CXEN_HW_VERSION_MINOR		5

#define CXEN_HW_BAR_SIZE		0x1000
#define CXEN_HW_MAX_PORTS		2
#define CXEN_HW_MAX_CHANNELS		16	/* per port */
#define CXEN_HW_NUM_SQ			128	/* per device, numbered 0.. */
#define CXEN_HW_NUM_RQ			128
#define CXEN_HW_NUM_CQ			256
/* Vector 0 is the async vector; 1.. are completion vectors. */
#define CXEN_HW_ASYNC_VECTOR		0
#define CXEN_HW_NUM_VECTORS		(1 + CXEN_HW_MAX_PORTS * CXEN_HW_MAX_CHANNELS)

#define CXEN_HW_MIN_LOG_RING		6	/* 64 entries */
#define CXEN_HW_MAX_LOG_RING		13	/* 8192 entries */
#define CXEN_HW_MIN_MTU			68
#define CXEN_HW_MAX_MTU			9600
#define CXEN_HW_SPEED_MBPS		100000
/* Longest a frame waits for an RX WQE under flow control (SET_PORT). */
#define CXEN_HW_PAUSE_STORM_MS		100

/* RX WQE: at most this many data segments; stride 1 << log_stride bytes. */
#define CXEN_HW_RX_MAX_SEGS		4
#define CXEN_HW_RQ_MIN_LOG_STRIDE	4
#define CXEN_HW_RQ_MAX_LOG_STRIDE	6
/* SQ WQE stride: 64 << n bytes, n = log_stride - 6, 64..1024. */
#define CXEN_HW_SQ_MIN_LOG_STRIDE	6
#define CXEN_HW_SQ_MAX_LOG_STRIDE	10
#define CXEN_HW_TX_MAX_INLINE		256	/* bytes of inline data */
#define CXEN_HW_TX_MAX_LSO_HDR		192	/* bytes of LSO header */

/*
 * Striding RQ (CXEN_RQ_F_STRIDING, minor 3). A striding WQE is one data
 * segment per page, 1 << (log_stride - 4) of them (ring stride 16 bytes
 * to 1 KiB: 1 to 64 pages), each page 1 << log_page_bytes bytes (4 KiB to
 * 64 KiB), the WQE cut into strides of 1 << log_stride_bytes bytes (64 B
 * to 8 KiB, at most the page). A WQE spans at most 256 KiB, so it has at
 * most CXEN_HW_MAX_WQE_STRIDES strides. Page addresses are aligned to
 * CXEN_HW_STRIDE_ALIGN. The device may keep headroom before and tailroom
 * after every whole frame, each at most CXEN_HW_MAX_RX_PAD bytes.
 */
#define CXEN_HW_RQ_MAX_LOG_STRIDE_STRIDING	10
#define CXEN_HW_MIN_LOG_STRIDE_BYTES	6
#define CXEN_HW_MAX_LOG_STRIDE_BYTES	13
#define CXEN_HW_MIN_LOG_PAGE_BYTES	12
#define CXEN_HW_MAX_LOG_PAGE_BYTES	16
#define CXEN_HW_MAX_LOG_WQE_BYTES	18
#define CXEN_HW_MAX_WQE_STRIDES		(1u << (CXEN_HW_MAX_LOG_WQE_BYTES - \
						CXEN_HW_MIN_LOG_STRIDE_BYTES))
#define CXEN_HW_STRIDE_ALIGN		64
#define CXEN_HW_MAX_RX_PAD		2048

/*
 * Header/data split (CXEN_RQ_F_HDR_SPLIT, minor 3): header buffers are
 * data segments of 1..CXEN_HW_MAX_HDR_BUF bytes in a ring of their own,
 * 1 << log_hdr_size entries (CXEN_HW_MIN_LOG_RING..CXEN_HW_MAX_LOG_RING).
 */
#define CXEN_HW_MAX_HDR_BUF		4096

/*
 * Large receive offload (CXEN_RQ_F_LRO, minor 3): a merged frame's IP
 * packet is at most CXEN_HW_LRO_MAX_IP bytes (IPv4 total length; IPv6
 * 40 + payload length) and CXEN_HW_LRO_MAX_SEGS segments.
 */
#define CXEN_HW_LRO_MAX_IP		65535
#define CXEN_HW_LRO_MAX_SEGS		255

/* ------------------------------------------------------------------ */
/* Registers (BAR 0, 32-bit, host-endian)                              */
/* ------------------------------------------------------------------ */

#define CXEN_REG_ID			0x0000	/* RO: CXEN_HW_ID_MAGIC */
#define CXEN_REG_VERSION		0x0004	/* RO */
#define   CXEN_VERSION_MAJOR		GENMASK(31, 16)
#define   CXEN_VERSION_MINOR		GENMASK(15, 0)

/*
 * Command interface (HCR-like). The driver writes the DMA addresses of
 * the input and output mailboxes (one 4 KiB page each, may be 0 when the
 * command has none) and the input modifier, then writes CMD_CTRL with the
 * opcode and GO set. The device executes the command asynchronously, then
 * writes STATUS and clears GO. One command at a time; writing CMD_CTRL
 * while GO is set is ignored and counted by the device.
 */
#define CXEN_REG_CMD_IN_LO		0x0010
#define CXEN_REG_CMD_IN_HI		0x0014
#define CXEN_REG_CMD_OUT_LO		0x0018
#define CXEN_REG_CMD_OUT_HI		0x001c
#define CXEN_REG_CMD_MOD		0x0020	/* input modifier */
#define CXEN_REG_CMD_CTRL		0x0024
#define   CXEN_CMD_CTRL_GO		BIT(31)
#define   CXEN_CMD_CTRL_STATUS		GENMASK(23, 16)
#define   CXEN_CMD_CTRL_OPCODE		GENMASK(11, 0)

/*
 * Async events. Bits are set by the device and cleared by reading the
 * register (read-to-clear). Setting a bit that was clear raises the async
 * vector.
 */
#define CXEN_REG_ASYNC_CAUSE		0x0030
#define   CXEN_ASYNC_PORT_CHANGE(p)	BIT(p)	/* link state of port p changed */
#define   CXEN_ASYNC_QUEUE_ERROR	BIT(8)	/* a queue entered the error state */
#define   CXEN_ASYNC_CQ_OVERRUN		BIT(9)	/* a CQ was full: CQE lost */
#define   CXEN_ASYNC_FATAL		BIT(10)	/* DEV_STATUS has a syndrome */

/*
 * Device health. HEARTBEAT advances at least every CXEN_HW_HEARTBEAT_MS
 * while the device's firmware runs: frozen, the device has stopped
 * without a word (hung). SYNDROME is non-zero once the device hit a fatal
 * error (enum cxen_syndrome), and CXEN_ASYNC_FATAL is raised with it.
 * Either way the device executes nothing more until a reset: no command
 * completes (GO stays set), no WQE runs, no CQE, doorbell record or
 * interrupt is written. READY is clear from a DEV_RESET write until the
 * reset is done.
 */
#define CXEN_REG_DEV_STATUS		0x0050	/* RO */
#define   CXEN_DEV_STATUS_READY		BIT(31)
#define   CXEN_DEV_STATUS_SYNDROME	GENMASK(23, 16)
#define   CXEN_DEV_STATUS_HEARTBEAT	GENMASK(15, 0)
#define CXEN_HW_HEARTBEAT_MS		100

enum cxen_syndrome {
	CXEN_SYNDROME_NONE		= 0x00,
	CXEN_SYNDROME_FW_ASSERT		= 0x01,	/* firmware assertion */
	CXEN_SYNDROME_HW_ERROR		= 0x02,	/* internal hardware error */
	/* other values: device specific, fatal all the same */
};

/*
 * Device reset: writing CXEN_DEV_RESET_MAGIC clears READY. The device then
 * abandons the command in flight (GO cleared, no status), stops and
 * forgets every CQ, SQ and RQ, clears ASYNC_CAUSE and the syndrome, and
 * returns every port to its power-on state (admin down, MTU 1500, no VLAN
 * strip, no loopback, pause on, no RSS: every frame to no RQ). Port
 * counters are kept. READY set again means the reset is done: from then
 * on the device touches none of the memory it was given before, and it
 * is set within CXEN_HW_RESET_MS or the reset failed (write the magic
 * again to retry). Any other value written is ignored.
 */
#define CXEN_REG_DEV_RESET		0x0054	/* WO */
#define   CXEN_DEV_RESET_MAGIC		0x52535421	/* "RST!" */
#define CXEN_HW_RESET_MS		2000

/*
 * SQ doorbell: write the SQ number after publishing the new producer
 * counter in the SQ's doorbell record. The device then executes WQEs from
 * its consumer counter up to the producer counter.
 */
#define CXEN_REG_SQ_DB			0x0040
#define   CXEN_SQ_DB_SQN		GENMASK(23, 0)

/*
 * CQ arm doorbell: request one interrupt on the CQ's vector for the next
 * CQE written at or after the consumer index found in the CQ's doorbell
 * record. If such CQEs already exist the interrupt fires at once. The CQ
 * is disarmed when it fires: at most one interrupt per arm.
 */
#define CXEN_REG_CQ_ARM			0x0044
#define   CXEN_CQ_ARM_CQN		GENMASK(23, 0)

/* ------------------------------------------------------------------ */
/* Commands                                                            */
/* ------------------------------------------------------------------ */

enum cxen_cmd_opcode {
	CXEN_CMD_QUERY_DEV	= 0x001,	/* out: cxen_dev_caps */
	CXEN_CMD_QUERY_PORT	= 0x010,	/* mod: port; out: cxen_port_info */
	CXEN_CMD_SET_PORT	= 0x011,	/* mod: port; in: cxen_port_set */
	CXEN_CMD_SET_RX_FILTER	= 0x012,	/* mod: port; in: cxen_rx_filter */
	CXEN_CMD_CREATE_CQ	= 0x020,	/* mod: cqn; in: cxen_cq_ctx */
	CXEN_CMD_DESTROY_CQ	= 0x021,	/* mod: cqn */
	CXEN_CMD_MODIFY_CQ	= 0x022,	/* mod: cqn; in: cxen_cq_moder */
	CXEN_CMD_CREATE_SQ	= 0x030,	/* mod: sqn; in: cxen_wq_ctx */
	CXEN_CMD_DESTROY_SQ	= 0x031,	/* mod: sqn */
	CXEN_CMD_QUERY_SQ	= 0x032,	/* mod: sqn; out: cxen_wq_state */
	CXEN_CMD_MODIFY_SQ	= 0x033,	/* mod: sqn; in: cxen_wq_modify */
	CXEN_CMD_CREATE_RQ	= 0x040,	/* mod: rqn; in: cxen_wq_ctx */
	CXEN_CMD_DESTROY_RQ	= 0x041,	/* mod: rqn */
	CXEN_CMD_QUERY_RQ	= 0x042,	/* mod: rqn; out: cxen_wq_state */
	CXEN_CMD_MODIFY_RQ	= 0x043,	/* mod: rqn; in: cxen_wq_modify */
	CXEN_CMD_SET_RSS	= 0x050,	/* mod: port; in: cxen_rss_ctx */
	CXEN_CMD_QUERY_COUNTERS	= 0x060,	/* mod: port; out: cxen_port_counters */
};

enum cxen_cmd_status {
	CXEN_STAT_OK		= 0x00,
	CXEN_STAT_BAD_OP	= 0x01,	/* unknown opcode */
	CXEN_STAT_BAD_PARAM	= 0x02,	/* a field out of range */
	CXEN_STAT_BAD_RES	= 0x03,	/* queue number free/in use, wrong port */
	CXEN_STAT_BAD_STATE	= 0x04,	/* e.g. destroying a CQ still in use */
	CXEN_STAT_BAD_ADDR	= 0x05,	/* mailbox or ring not DMA-addressable */
	CXEN_STAT_INTERNAL	= 0x06,
};

/* CXEN_CMD_QUERY_DEV output */
struct cxen_dev_caps {
	__be32	fw_version;		/* major[31:16] minor[15:0] */
	u8	num_ports;
	u8	max_channels;		/* per port */
	u8	max_rx_segs;		/* data segments per RX WQE */
	u8	log_max_ring;
	u8	log_min_ring;
	u8	rsvd0[3];
	__be32	rsvd_lkey;		/* lkey of the physical (bus address) region */
	__be16	min_mtu;
	__be16	max_mtu;
	__be32	num_sq;
	__be32	num_rq;
	__be32	num_cq;
	__be32	num_vectors;
	char	serial[16];		/* ASCII, NUL padded */
	__be32	cap_flags;		/* CXEN_DEV_CAP_*; minor 3 */
	u8	log_min_stride_bytes;	/* striding RQ: stride size range */
	u8	log_max_stride_bytes;
	u8	log_max_wqe_bytes;	/* bytes a striding WQE spans */
	u8	rsvd1;
};

#define CXEN_DEV_CAP_STRIDING_RQ	BIT(0)	/* CXEN_RQ_F_STRIDING */
#define CXEN_DEV_CAP_HDR_SPLIT		BIT(1)	/* CXEN_RQ_F_HDR_SPLIT */
#define CXEN_DEV_CAP_LRO		BIT(2)	/* CXEN_RQ_F_LRO */

/* CXEN_CMD_QUERY_PORT output */
struct cxen_port_info {
	u8	mac[6];
	__be16	mtu;
	__be32	state;
	__be32	speed_mbps;		/* 0 when the link is down */
	__be32	rsvd[5];
};

#define CXEN_PORT_STATE_ADMIN_UP	BIT(0)	/* set by SET_PORT */
#define CXEN_PORT_STATE_LINK_UP		BIT(1)	/* both ends admin up, or
						 * admin up in loopback
						 */
#define CXEN_PORT_STATE_VLAN_STRIP	BIT(2)
#define CXEN_PORT_STATE_LOOPBACK	BIT(3)
#define CXEN_PORT_STATE_RX_PAUSE	BIT(4)
#define CXEN_PORT_STATE_TX_PAUSE	BIT(5)

/*
 * Frame size buckets of the RMON histograms in cxen_port_counters, by the
 * frame's length on the wire including the 4-byte FCS the MAC appends:
 * 64, 65-127, 128-255, 256-511, 512-1023, 1024-1518, 1519-2047,
 * 2048-4095, 4096-9622 (the longest frame: CXEN_HW_MAX_MTU + 14 + a
 * 4-byte tag + FCS).
 * Shorter frames are padded to 64 bytes by the MAC.
 */
#define CXEN_HIST_BUCKETS		9
#define CXEN_HIST_LIMITS		{ 64, 127, 255, 511, 1023, 1518, 2047, \
					  4095, 9622 }

/*
 * CXEN_CMD_QUERY_COUNTERS output: the port's counters since the device
 * started, free running. Frames the device dropped are counted here only.
 * Byte counts exclude the FCS.
 */
struct cxen_port_counters {
	__be64	tx_frames;
	__be64	tx_bytes;
	__be64	tx_oversize;		/* longer than the port's MTU: dropped */
	__be64	tx_link_down;		/* sent while the link was down: dropped */
	__be64	tx_error_cqes;
	__be64	rx_frames;
	__be64	rx_bytes;
	__be64	rx_oversize;		/* longer than the port's MTU: dropped */
	__be64	rx_no_rq;		/* no RQ to steer to: dropped */
	__be64	rx_out_of_buffer;	/* the RQ had no posted WQE: dropped */
	__be64	rx_cq_overrun;		/* the RQ's CQ was full: dropped */
	__be64	rx_queue_error;		/* the RQ was in error: dropped */
	__be64	rx_error_cqes;
	__be64	rx_csum_bad;		/* delivered with a bad checksum */
	__be64	tx_multicast;		/* of tx_frames, broadcast excluded */
	__be64	tx_broadcast;
	__be64	rx_multicast;		/* of the frames the port received */
	__be64	rx_broadcast;
	__be64	rx_vlan_stripped;
	__be64	tx_pause;		/* PAUSE frames sent: an RQ had no WQE */
	__be64	rx_pause;		/* PAUSE frames received: TX held */
	__be64	tx_hist[CXEN_HIST_BUCKETS];	/* of tx_frames */
	__be64	rx_hist[CXEN_HIST_BUCKETS];	/* of the frames received, */
						/* oversize ones excluded */
	__be64	rx_filtered;		/* refused by the RX filter: dropped */
	__be64	rx_filtered_bytes;	/* their bytes, as rx_bytes (minor 4) */
	__be64	tx_discarded;		/* frames of a WQE that failed after */
					/* its first went: dropped (minor 5) */
	__be64	rsvd;
};

/*
 * CXEN_CMD_SET_PORT input: only fields whose bit is in @valid change.
 * @vlan_strip: RX frames with an outer 802.1Q (0x8100) tag reach the
 * buffers without it; the CQE carries the tag (CXEN_CQE_VLAN_STRIPPED).
 * 802.1ad tags are never stripped. @loopback: frames the port sends come
 * back to its own RX instead of going to the cable; the link is then up
 * whenever the port is admin up.
 *
 * @rx_pause, @tx_pause: IEEE 802.3 annex 31B flow control, no
 * autonegotiation (the device's default is both on). A port with
 * @tx_pause sends PAUSE when a frame finds its RQ without a posted WQE:
 * the frame waits in the port's buffer for the driver to post one
 * instead of being dropped. A sender with @rx_pause honours it and holds
 * its transmitter; without either, the frame is dropped
 * (rx_out_of_buffer). A frame that waits longer than
 * CXEN_HW_PAUSE_STORM_MS is dropped and the RQ drops at once until the
 * driver posts again (pause storm prevention: a receiver that stopped
 * refilling cannot hold its peer forever).
 */
struct cxen_port_set {
	__be32	valid;
	__be16	mtu;			/* L3 MTU: frames up to mtu + 14 (+4 tagged) */
	u8	admin_up;		/* 0 or 1 */
	u8	vlan_strip;		/* 0 or 1 */
	u8	loopback;		/* 0 or 1 */
	u8	rx_pause;		/* 0 or 1 */
	u8	tx_pause;		/* 0 or 1 */
	u8	rsvd0;
	__be32	rsvd1[5];
};

#define CXEN_PORT_SET_MTU		BIT(0)
#define CXEN_PORT_SET_ADMIN		BIT(1)
#define CXEN_PORT_SET_VLAN_STRIP	BIT(2)
#define CXEN_PORT_SET_LOOPBACK		BIT(3)
#define CXEN_PORT_SET_PAUSE		BIT(4)	/* rx_pause and tx_pause */

/*
 * CXEN_CMD_SET_RX_FILTER input: which received frames the port accepts,
 * by destination address. Replaces the port's filter as a whole; a frame
 * sees either the old or the new one. Accepted are:
 *
 *   - broadcast, always;
 *   - unicast to one of the first @num_uc entries of @uc (at most
 *     CXEN_HW_RX_UC_ENTRIES), or any unicast with CXEN_RX_FILTER_UC_PROMISC;
 *   - multicast whose bucket has its bit set in @mc_hash, or any multicast
 *     with CXEN_RX_FILTER_ALLMULTI. The bucket of an address is
 *     FIELD_GET(CXEN_RX_MC_BUCKET, ether_crc_le(6, addr)): the low 6
 *     bits of the IEEE 802.3 CRC-32 (reflected, initial value ~0, no
 *     final inversion) of its 6 bytes. A hash: other groups of a set
 *     bucket pass too;
 *   - everything with CXEN_RX_FILTER_PROMISC.
 *
 * A frame the filter refuses is dropped before steering (no RQ, no WQE)
 * and counted in rx_filtered. Frames a port in loopback receives from
 * itself are not filtered. Power-on state (and after DEV_RESET): no
 * entry, hash 0, no flag: nothing but broadcast is accepted.
 */
struct cxen_rx_uc_entry {
	u8	mac[6];
	__be16	rsvd;
};

#define CXEN_HW_RX_UC_ENTRIES		16
#define CXEN_HW_RX_MC_BUCKETS		64

struct cxen_rx_filter {
	__be32	flags;			/* CXEN_RX_FILTER_* */
	u8	num_uc;			/* 0..CXEN_HW_RX_UC_ENTRIES */
	u8	rsvd0[3];
	__be64	mc_hash;		/* bit n: accept multicast bucket n */
	struct cxen_rx_uc_entry uc[CXEN_HW_RX_UC_ENTRIES];
	__be32	rsvd1[4];
};

#define CXEN_RX_FILTER_PROMISC		BIT(0)	/* every frame */
#define CXEN_RX_FILTER_ALLMULTI		BIT(1)	/* every multicast */
#define CXEN_RX_FILTER_UC_PROMISC	BIT(2)	/* every unicast */
#define CXEN_RX_MC_BUCKET		GENMASK(5, 0)	/* of ether_crc_le() */

/* CXEN_CMD_CREATE_CQ input */
struct cxen_cq_ctx {
	__be64	ring_dma;		/* 32 << log_size bytes, page aligned */
	__be64	dbrec_dma;		/* struct cxen_cq_dbrec, 8-byte aligned */
	u8	log_size;
	u8	rsvd0;
	__be16	vector;			/* completion vector, 1..num_vectors-1 */
	__be16	moder_usecs;		/* interrupt moderation: 0 = off */
	__be16	moder_frames;		/* 0 = no frame limit */
	__be32	rsvd1[4];
};

#define CXEN_HW_MAX_MODER_USECS		4095
#define CXEN_HW_MAX_MODER_FRAMES	4095

/*
 * CXEN_CMD_MODIFY_CQ input: new interrupt moderation of a live CQ. Takes
 * effect from the next arm; an interrupt pending under the old values
 * still fires.
 */
struct cxen_cq_moder {
	__be16	moder_usecs;
	__be16	moder_frames;
	__be32	rsvd[3];
};

/* CXEN_CMD_CREATE_SQ input, and the first part of CXEN_CMD_CREATE_RQ's */
struct cxen_wq_ctx {
	__be64	ring_dma;		/* stride << log_size bytes, page aligned */
	__be64	dbrec_dma;		/* struct cxen_wq_dbrec, 8-byte aligned */
	__be32	cqn;			/* completions go to this CQ */
	u8	port;
	u8	log_size;		/* entries = 1 << log_size */
	u8	log_stride;		/* WQE stride = 1 << log_stride bytes */
	u8	rq_flags;		/* CREATE_RQ: CXEN_RQ_F_*; SQ: reserved */
	__be32	rsvd1[4];
};

#define CXEN_RQ_F_STRIDING		BIT(0)	/* striding WQEs (minor 3) */
#define CXEN_RQ_F_HDR_SPLIT		BIT(1)	/* header/data split (minor 3) */
#define CXEN_RQ_F_LRO			BIT(2)	/* large receive offload (minor 3) */

/*
 * CXEN_CMD_CREATE_RQ input. @wq as for an SQ; the fields after it are
 * read only when @wq.rq_flags has their bit, else ignored: an RQ created
 * with rq_flags 0 is the scatter-list RQ of minor 0, byte for byte.
 *
 * CXEN_RQ_F_STRIDING: @wq.log_stride is 4..CXEN_HW_RQ_MAX_LOG_STRIDE_STRIDING
 * (a WQE of 1 << (log_stride - 4) pages), @log_page_bytes the size of
 * each page, @log_stride_bytes of each stride (<= the page), and the WQE
 * at most 1 << CXEN_HW_MAX_LOG_WQE_BYTES bytes. @headroom bytes before
 * and @tailroom after every frame that is not split are part of the
 * strides it consumes (each <= CXEN_HW_MAX_RX_PAD).
 *
 * CXEN_RQ_F_HDR_SPLIT: the header ring at @hdr_ring_dma, 4 KiB aligned,
 * 1 << @log_hdr_size data segments; its producer counter is
 * cxen_wq_dbrec.hdr_pi. TCP frames of at least @split_min bytes with a
 * payload are split (Documentation/hw-interface.rst).
 *
 * CXEN_RQ_F_LRO: with CXEN_RQ_F_STRIDING and without CXEN_RQ_F_HDR_SPLIT;
 * consecutive TCP segments of a flow are merged into one frame of at most
 * CXEN_HW_LRO_MAX_IP bytes of IP packet and CXEN_HW_LRO_MAX_SEGS segments,
 * within one WQE (hw-interface.rst "Large receive offload").
 */
struct cxen_rq_ctx {
	struct cxen_wq_ctx wq;
	/* CXEN_RQ_F_STRIDING */
	u8	log_stride_bytes;
	u8	log_page_bytes;
	__be16	headroom;
	__be16	tailroom;
	__be16	rsvd0;
	/* CXEN_RQ_F_HDR_SPLIT */
	__be64	hdr_ring_dma;		/* 16 << log_hdr_size bytes */
	u8	log_hdr_size;
	u8	rsvd1;
	__be16	split_min;		/* shorter frames are not split */
	__be32	rsvd2[5];
};

/*
 * CXEN_CMD_QUERY_SQ and CXEN_CMD_QUERY_RQ output: the device's view of a
 * queue and its counters since it was created.
 */
struct cxen_wq_state {
	__be32	flags;			/* CXEN_WQ_STATE_* */
	__be16	cons;			/* WQEs the device consumed (low 16 bits) */
	__be16	pi;			/* producer counter it last read */
	__be32	cqn;
	__be16	hdr_cons;		/* RQ, header split: buffers consumed */
	__be16	stride_pos;		/* striding RQ: next free stride of cons */
	__be64	wqes;			/* WQEs executed or filled */
	__be64	frames;			/* sent / delivered */
	__be64	bytes;
	__be64	drops;			/* SQ: oversize + link down; RQ: out of
					 * buffer + CQ overrun
					 */
	__be64	error_cqes;		/* error CQEs other than flushes */
	__be64	flushed;		/* WQEs completed with WR_FLUSH */
	__be64	rsvd1[2];
};

#define CXEN_WQ_STATE_ERROR		BIT(0)	/* flushing until reset */
#define CXEN_WQ_STATE_RESET		BIT(1)	/* stopped by MODIFY to RST */

/*
 * CXEN_CMD_MODIFY_SQ and CXEN_CMD_MODIFY_RQ input: move a queue to @state.
 *
 *   RST (from any state, RST included): the queue stops. Once the
 *	command completed, the device reads none of its WQEs, writes no CQE
 *	for it and touches none of its buffers; WQEs it had not completed
 *	are forgotten (no flush CQE). Frames steered to a stopped RQ are
 *	dropped and counted (rx_queue_error). A stalled queue is released.
 *   RDY (from RST): the queue starts over: its WQE counter is 0, and the
 *	device reads the producer counter in the doorbell record again (the
 *	driver sets it to 0 first, and posts from index 0 with the owner
 *	bit of the first pass).
 *
 * Any other transition fails with CXEN_STAT_BAD_STATE and changes nothing.
 * The queue keeps its number, CQ, ring and counters throughout.
 */
struct cxen_wq_modify {
	__be32	state;			/* CXEN_WQ_RST or CXEN_WQ_RDY */
	__be32	rsvd[3];
};

#define CXEN_WQ_RST			0
#define CXEN_WQ_RDY			1

#define CXEN_RSS_KEY_SIZE		40
#define CXEN_RSS_TABLE_SIZE		128

/*
 * CXEN_CMD_SET_RSS input. RX frames of the port go to
 * rqn[hash % CXEN_RSS_TABLE_SIZE]; the table and key switch atomically.
 * Every entry must name an RQ of that port.
 */
struct cxen_rss_ctx {
	__be32	hash_fields;		/* CXEN_RSS_HASH_* */
	u8	key[CXEN_RSS_KEY_SIZE];
	__be32	rqn[CXEN_RSS_TABLE_SIZE];
};

#define CXEN_RSS_HASH_IPV4		BIT(0)	/* 2-tuple */
#define CXEN_RSS_HASH_IPV6		BIT(1)
#define CXEN_RSS_HASH_TCP		BIT(2)	/* + ports, when L4 is TCP */
#define CXEN_RSS_HASH_UDP		BIT(3)

/* ------------------------------------------------------------------ */
/* Doorbell records (in host memory, written by the driver)            */
/* ------------------------------------------------------------------ */

/*
 * SQ and RQ: producer counter, free running, low 16 bits significant. An
 * RQ with header/data split: @hdr_pi is its header ring's producer
 * counter, the same way (reserved otherwise).
 */
struct cxen_wq_dbrec {
	__be32	pi;
	__be32	hdr_pi;
};

#define CXEN_WQ_DBREC_PI		GENMASK(15, 0)

/* CQ: consumer index, free running, low 24 bits significant. */
struct cxen_cq_dbrec {
	__be32	ci;
	__be32	rsvd;
};

#define CXEN_CQ_DBREC_CI		GENMASK(23, 0)

/* ------------------------------------------------------------------ */
/* Work queue entries                                                  */
/* ------------------------------------------------------------------ */

/* Data segment: one buffer by bus (DMA) address. byte_count 0 ends a list. */
struct cxen_data_seg {
	__be32	byte_count;
	__be32	lkey;
	__be64	addr;
};

/*
 * RX WQE: CXEN_HW_RX_MAX_SEGS data segments at most, stride 1 << log_stride
 * (16, 32 or 64 bytes: 1, 2 or 4 segments). A
 * frame fills the segments in order; a frame longer than their sum is
 * dropped with a LOCAL_LENGTH error CQE.
 */
struct cxen_rx_wqe {
	struct cxen_data_seg	seg[CXEN_HW_RX_MAX_SEGS];
};

/*
 * Striding RX WQE: 1 << (log_stride - 4) data segments, one per page,
 * each byte_count = 1 << log_page_bytes, lkey = rsvd_lkey, addr aligned
 * to CXEN_HW_STRIDE_ALIGN. Stride s of the WQE is at byte
 * s << log_stride_bytes of the WQE, i.e. in page (s << log_stride_bytes)
 * >> log_page_bytes. Frames are placed at the next free stride, never
 * across the WQE's end; a frame may span pages.
 */
#define CXEN_HW_MAX_WQE_PAGES		(1u << (CXEN_HW_RQ_MAX_LOG_STRIDE_STRIDING - 4))

/*
 * A header ring entry (header/data split) is a struct cxen_data_seg too:
 * byte_count 1..CXEN_HW_MAX_HDR_BUF, lkey = rsvd_lkey, addr.
 */

/*
 * TX WQE: a control segment, then an optional LSO segment, then either an
 * inline segment or data segments (both may be present: inline first).
 * Everything is in 16-byte units; ds_cnt counts them, control included.
 */
struct cxen_tx_ctrl_seg {
	__be32	owner_opcode;
	__be16	vlan_tci;
	u8	ins_vlan;
	u8	ds_cnt;
	__be32	flags;
	__be32	rsvd;
};

/* The unit of a TX WQE's size (ds_cnt) and of its segments' alignment. */
#define CXEN_TX_WQE_UNIT		16
/* OWNER must equal bit log_size of the WQE's counter (wrap parity). */
#define CXEN_TX_OWNER			BIT(31)
#define CXEN_TX_OPCODE			GENMASK(7, 0)
#define CXEN_TX_INS_VLAN		BIT(6)		/* in ins_vlan */
#define CXEN_TX_DS_CNT			GENMASK(5, 0)	/* in ds_cnt */
#define CXEN_TX_FLAG_CQ_UPDATE		BIT(3)	/* write a CQE when done */
#define CXEN_TX_FLAG_IP_CSUM		BIT(4)	/* insert IPv4 header csum */
#define CXEN_TX_FLAG_L4_CSUM		BIT(5)	/* insert TCP/UDP csum */

enum cxen_tx_opcode {
	CXEN_TX_OP_NOP		= 0x00,
	CXEN_TX_OP_SEND		= 0x0a,
	CXEN_TX_OP_LSO		= 0x0e,
};

/* LSO segment: mss and header size, then the header bytes, padded to 16. */
struct cxen_tx_lso_seg {
	__be32	mss_hdr_size;
	u8	header[];
};

#define CXEN_TX_LSO_MSS			GENMASK(31, 16)
#define CXEN_TX_LSO_HDR_SIZE		GENMASK(15, 0)

/* Inline segment: byte count with INLINE set, then the bytes, padded to 16. */
struct cxen_tx_inline_seg {
	__be32	byte_count;
	u8	data[];
};

#define CXEN_TX_INLINE			BIT(31)
#define CXEN_TX_INLINE_LEN		GENMASK(9, 0)

/* ------------------------------------------------------------------ */
/* Completion queue entries                                            */
/* ------------------------------------------------------------------ */

/*
 * 32-byte CQE. The device writes CQE number n (free running) at ring
 * index n & (size - 1) with OWNER = (n >> log_size) & 1, and writes the
 * owner byte last. The driver initialises every owner byte to OWNER and
 * owns the CQE at consumer index ci when its OWNER bit equals
 * (ci >> log_size) & 1.
 */
struct cxen_cqe {
	__be32	qpn;			/* SQ or RQ number in [23:0] */
	__be32	rss_hash;
	__be32	flags;			/* RX: CXEN_CQE_* */
	__be16	vlan_tci;		/* RX: stripped tag, if VLAN_STRIPPED */
	__be16	hdr_len;		/* RX: header bytes, if HDR_SPLIT */
	__be32	byte_cnt;		/* RX: frame length */
	__be16	wqe_index;		/* WQE counter (low 16 bits) */
	u8	syndrome;		/* ERROR CQEs: enum cxen_cqe_syndrome */
	u8	lro_segs;		/* RX: segments merged, if LRO */
	__be32	strides;		/* striding RQ: CXEN_CQE_STRIDE_* */
	__be16	hdr_index;		/* RX: header ring counter, if HDR_SPLIT */
	u8	rsvd4;
	u8	owner_sr_opcode;
};

#define CXEN_CQE_QPN			GENMASK(23, 0)
#define CXEN_CQE_OWNER			BIT(7)	/* in owner_sr_opcode */
#define CXEN_CQE_IS_SEND		BIT(6)
#define CXEN_CQE_OPCODE			GENMASK(4, 0)

enum cxen_cqe_opcode {
	CXEN_CQE_OP_RECV	= 0x00,
	CXEN_CQE_OP_SEND	= 0x0a,
	CXEN_CQE_OP_ERROR	= 0x1e,
};

enum cxen_cqe_syndrome {
	CXEN_SYND_LOCAL_LENGTH	= 0x01,	/* frame longer than the posted buffers */
	CXEN_SYND_LOCAL_QP_OP	= 0x02,	/* malformed WQE */
	CXEN_SYND_LOCAL_PROT	= 0x04,	/* bad lkey or address */
	CXEN_SYND_WR_FLUSH	= 0x05,	/* queue in error: WQE not executed */
	CXEN_SYND_BAD_OWNER	= 0x06,	/* TX WQE owner bit wrong */
};

/* RX CQE flags */
#define CXEN_CQE_L3_TYPE		GENMASK(1, 0)
#define CXEN_CQE_L4_TYPE		GENMASK(3, 2)
#define CXEN_CQE_L3_CSUM_OK		BIT(4)	/* IPv4 header checksum verified */
#define CXEN_CQE_L4_CSUM_OK		BIT(5)	/* TCP/UDP checksum verified */
#define CXEN_CQE_VLAN_STRIPPED		BIT(6)
#define CXEN_CQE_HASH_TYPE		GENMASK(11, 8)
#define CXEN_CQE_IP_FRAG		BIT(12)
#define CXEN_CQE_HDR_SPLIT		BIT(13)	/* headers in a header buffer */
#define CXEN_CQE_WQE_LAST		BIT(14)	/* striding: releases the WQE */
#define CXEN_CQE_FILLER			BIT(15)	/* striding: no frame, the
						 * WQE's unused tail
						 */
#define CXEN_CQE_LRO			BIT(16)	/* lro_segs (>= 2) TCP
						 * segments merged
						 */

/*
 * Striding RQ CQEs (RECV and ERROR): the strides of WQE wqe_index the CQE
 * consumes, [FIRST, FIRST + NUM). NUM may be 0 (a frame too long for any
 * WQE: LOCAL_LENGTH).
 */
#define CXEN_CQE_STRIDE_FIRST		GENMASK(15, 0)
#define CXEN_CQE_STRIDE_NUM		GENMASK(31, 16)

static inline u32 cxen_cqe_stride_first(const struct cxen_cqe *cqe)
{
	return FIELD_GET(CXEN_CQE_STRIDE_FIRST, be32_to_cpu(cqe->strides));
}

static inline u32 cxen_cqe_stride_num(const struct cxen_cqe *cqe)
{
	return FIELD_GET(CXEN_CQE_STRIDE_NUM, be32_to_cpu(cqe->strides));
}

static inline __be32 cxen_cqe_strides(u32 first, u32 num)
{
	return cpu_to_be32(FIELD_PREP(CXEN_CQE_STRIDE_FIRST, first) |
			   FIELD_PREP(CXEN_CQE_STRIDE_NUM, num));
}

enum cxen_cqe_l3 {
	CXEN_CQE_L3_NONE	= 0,
	CXEN_CQE_L3_IPV4	= 1,
	CXEN_CQE_L3_IPV6	= 2,
};

enum cxen_cqe_l4 {
	CXEN_CQE_L4_NONE	= 0,
	CXEN_CQE_L4_TCP		= 1,
	CXEN_CQE_L4_UDP		= 2,
};

enum cxen_cqe_hash {
	CXEN_CQE_HASH_NONE	= 0,
	CXEN_CQE_HASH_IPV4	= 1,
	CXEN_CQE_HASH_IPV4_TCP	= 2,
	CXEN_CQE_HASH_IPV4_UDP	= 3,
	CXEN_CQE_HASH_IPV6	= 4,
	CXEN_CQE_HASH_IPV6_TCP	= 5,
	CXEN_CQE_HASH_IPV6_UDP	= 6,
};

/* ------------------------------------------------------------------ */
/* Bus                                                                 */
/* ------------------------------------------------------------------ */

/*
 * The model's "BAR": register reads and writes go through these two
 * accessors, which the model traps as QEMU traps MMIO. The model passes
 * this structure as the platform data of its "cxsim" platform device,
 * together with one IRQ resource per vector. A PCI device would replace
 * it with readl()/writel() on BAR 0; only the driver's register accessors
 * (cxen_rd32(), cxen_wr32() in en.h, over the window en_bus.c finds) know
 * which. These are the only code pointers crossing
 * the boundary, and they carry register values only.
 */
struct cxen_mmio_bus {
	void	*ctx;
	u32	(*read32)(void *ctx, u32 reg);
	void	(*write32)(void *ctx, u32 reg, u32 val);
};

#define CXEN_SIM_DEV_NAME		"cxsim"

#endif /* _CXEN_HW_H_ */
