// SPDX-License-Identifier: GPL-2.0
/*
 * cxsim fault injection, driven from debugfs (root only):
 *
 *   <debugfs>/cxsim/fault/
 *     drop_every             drop every Nth frame on the wire
 *     corrupt_csum_every     corrupt the checksum of every Nth frame
 *                            that has one (TCP/UDP, else IPv4 header)
 *     cqe_bad_len_every      every Nth RX CQE: byte_cnt + 64 KiB
 *     cqe_bad_index_every    every Nth CQE: wqe_index ^ 0x8000
 *     cqe_error_every        every Nth RX CQE: LOCAL_LENGTH error CQE
 *                            instead (the frame is lost, the RQ goes on)
 *     cqe_stale_owner_every  every Nth CQE written with the stale owner
 *                            bit, made valid only at the CQ's next CQE
 *                            or arm: a late CQE
 *     cqe_stride_overrun_every  every Nth frame CQE of a striding RQ: its
 *                            stride range goes one stride past the WQE
 *     cqe_hdr_len_every      every Nth split frame's CQE: hdr_len one
 *                            byte past its header buffer
 *     filler_mid_every       every Nth frame a striding RQ places in the
 *                            middle of a WQE: a filler CQE for one stride
 *                            first, which releases nothing
 *     delay_us               sleep this long before each WQE (<= 1 s;
 *                            larger values are refused)
 *     stall_sqn              this SQ executes nothing while set (-1: none);
 *                            destroying or resetting (MODIFY_SQ to RST)
 *                            the SQ clears it (a reset cures the hang)
 *     sq_error_sqn           this SQ's next WQE fails (LOCAL_QP_OP error
 *                            CQE): the SQ enters the error state and
 *                            flushes; reads -1 again once injected
 *     rq_error_rqn           the next frame for this RQ fails on its WQE
 *                            (LOCAL_PROT error CQE): the RQ enters the
 *                            error state, flushes its WQEs and drops
 *                            frames until reset; -1 again once injected
 *     cmd_fail_opcode        commands with this opcode (cxen_hw.h) fail
 *     cmd_fail_count         ... this many more times (each failure
 *                            executes nothing, status INTERNAL)
 *     dev_hang, dev_fatal, cmd_hang_opcode, reset_fail
 *                            the device failing as a whole
 *                            (cxsim_health.c)
 *     counters               what was injected, "name value" lines
 *
 * N = 0 turns a knob off. Counting starts when a knob is written.
 */
#include <linux/bitfield.h>
#include <linux/debugfs.h>
#include <linux/minmax.h>
#include <linux/seq_file.h>
#include <linux/sizes.h>

#include "cxsim.h"
#include "cxsim_pkt.h"

static const char * const cxsim_fault_knob_names[CXSIM_FAULT_NKNOB] = {
	[CXSIM_FAULT_DROP]		= "drop_every",
	[CXSIM_FAULT_CORRUPT_CSUM]	= "corrupt_csum_every",
	[CXSIM_FAULT_CQE_BAD_LEN]	= "cqe_bad_len_every",
	[CXSIM_FAULT_CQE_BAD_INDEX]	= "cqe_bad_index_every",
	[CXSIM_FAULT_CQE_ERROR]		= "cqe_error_every",
	[CXSIM_FAULT_CQE_STALE_OWNER]	= "cqe_stale_owner_every",
	[CXSIM_FAULT_STRIDE_OVERRUN]	= "cqe_stride_overrun_every",
	[CXSIM_FAULT_HDR_LEN]		= "cqe_hdr_len_every",
	[CXSIM_FAULT_FILLER_MID]	= "filler_mid_every",
};

static const char * const cxsim_fault_cnt_names[CXSIM_FAULT_NCNT] = {
	[CXSIM_FAULT_DROP]		= "dropped",
	[CXSIM_FAULT_CORRUPT_CSUM]	= "corrupted_csum",
	[CXSIM_FAULT_CQE_BAD_LEN]	= "bad_len_cqes",
	[CXSIM_FAULT_CQE_BAD_INDEX]	= "bad_index_cqes",
	[CXSIM_FAULT_CQE_ERROR]		= "error_cqes",
	[CXSIM_FAULT_CQE_STALE_OWNER]	= "stale_owner_cqes",
	[CXSIM_FAULT_STRIDE_OVERRUN]	= "stride_overrun_cqes",
	[CXSIM_FAULT_HDR_LEN]		= "bad_hdr_len_cqes",
	[CXSIM_FAULT_FILLER_MID]	= "mid_fillers",
	[CXSIM_FAULT_DELAYED]		= "delayed_wqes",
	[CXSIM_FAULT_STALLED]		= "stalled_runs",
	[CXSIM_FAULT_SQ_ERROR]		= "sq_errors",
	[CXSIM_FAULT_RQ_ERROR]		= "rq_errors",
	[CXSIM_FAULT_CMD_FAILED]	= "failed_cmds",
	[CXSIM_FAULT_CMD_HUNG]		= "hung_cmds",
	[CXSIM_FAULT_DEV_HANG]		= "dev_hangs",
	[CXSIM_FAULT_DEV_FATAL]		= "dev_fatals",
	[CXSIM_FAULT_RESET_FAILED]	= "failed_resets",
};

#define CXSIM_FAULT_MAX_DELAY_US	1000000

/* Is this the Nth event for @knob? Counts the injection if so. */
static bool cxsim_fault_hit(struct cxsim_dev *sd, int knob)
{
	struct cxsim_fault *f = &sd->fault;
	u32 n = READ_ONCE(f->every[knob]);

	if (likely(!n))
		return false;
	if ((u32)atomic_inc_return(&f->seq[knob]) % n)
		return false;
	atomic64_inc(&f->cnt[knob]);
	return true;
}

/**
 * cxsim_fault_wire() - faults on a frame in transit
 * @sd: the device
 * @frame: the frame, writable
 * @len: its length
 * @csum_known: the CXSIM_CSUM_* checksums the model wrote into @frame;
 *	cleared when a checksum is corrupted
 *
 * Return: true when the frame is lost.
 */
bool cxsim_fault_wire(struct cxsim_dev *sd, u8 *frame, u32 len,
		      u8 *csum_known)
{
	struct cxsim_pkt pkt;
	u32 off;

	if (cxsim_fault_hit(sd, CXSIM_FAULT_DROP))
		return true;
	if (likely(!READ_ONCE(sd->fault.every[CXSIM_FAULT_CORRUPT_CSUM])))
		return false;
	cxsim_pkt_parse(frame, len, &pkt);
	if (pkt.l4 != CXEN_CQE_L4_NONE)
		off = pkt.l4_off + (pkt.l4 == CXEN_CQE_L4_TCP ? 16 : 6);
	else if (pkt.l3 == CXEN_CQE_L3_IPV4)
		off = pkt.l3_off + 10;
	else
		return false;
	if (cxsim_fault_hit(sd, CXSIM_FAULT_CORRUPT_CSUM)) {
		frame[off] ^= 0x5a;
		*csum_known = 0;
	}
	return false;
}

/**
 * cxsim_fault_cqe() - faults on a CQE about to be written
 * @sd: the device
 * @cqe: the CQE
 *
 * Return: true when the CQE must be written with the stale owner bit.
 */
bool cxsim_fault_cqe(struct cxsim_dev *sd, struct cxen_cqe *cqe)
{
	u8 op = FIELD_GET(CXEN_CQE_OPCODE, cqe->owner_sr_opcode);

	if (op == CXEN_CQE_OP_RECV) {
		if (cxsim_fault_hit(sd, CXSIM_FAULT_CQE_BAD_LEN))
			cqe->byte_cnt = cpu_to_be32(be32_to_cpu(cqe->byte_cnt) +
						    SZ_64K);
		if (cxsim_fault_hit(sd, CXSIM_FAULT_CQE_ERROR)) {
			cqe->owner_sr_opcode &= ~CXEN_CQE_OPCODE;
			cqe->owner_sr_opcode |= FIELD_PREP(CXEN_CQE_OPCODE,
							   CXEN_CQE_OP_ERROR);
			cqe->syndrome = CXEN_SYND_LOCAL_LENGTH;
		}
	}
	if (cxsim_fault_hit(sd, CXSIM_FAULT_CQE_BAD_INDEX))
		cqe->wqe_index = cpu_to_be16(be16_to_cpu(cqe->wqe_index) ^
					     0x8000);
	return cxsim_fault_hit(sd, CXSIM_FAULT_CQE_STALE_OWNER);
}

/**
 * cxsim_fault_rx_cqe() - faults on a striding or split frame's CQE
 * @sd: the device
 * @cqe: the frame's RECV CQE, about to be posted
 * @strides: strides per WQE of a striding RQ, else 0
 * @hdr_buf: the header buffer's byte_count when the frame is split, else 0
 *
 * Only the CQE lies: the frame is where the device put it, and the
 * device's own state stays true.
 */
void cxsim_fault_rx_cqe(struct cxsim_dev *sd, struct cxen_cqe *cqe,
			u32 strides, u32 hdr_buf)
{
	u32 first;

	if (strides && cxsim_fault_hit(sd, CXSIM_FAULT_STRIDE_OVERRUN)) {
		first = cxen_cqe_stride_first(cqe);
		cqe->strides = cxen_cqe_strides(first, strides - first + 1);
	}
	if (hdr_buf && cxsim_fault_hit(sd, CXSIM_FAULT_HDR_LEN))
		cqe->hdr_len = cpu_to_be16(hdr_buf + 1);
}

/**
 * cxsim_fault_filler_mid() - a filler in the middle of a WQE?
 * @sd: the device, a striding RQ about to place a frame at a stride > 0
 *
 * Return: true when a filler CQE that releases nothing must come first.
 */
bool cxsim_fault_filler_mid(struct cxsim_dev *sd)
{
	return cxsim_fault_hit(sd, CXSIM_FAULT_FILLER_MID);
}

/**
 * cxsim_fault_sq() - faults on an SQ about to execute a WQE
 * @sq: the SQ, from its engine
 * @may_sleep: the run may sleep (the SQ's work)
 *
 * Return: 0 to go on (after the delay knob's sleep, if set), -EBUSY when
 * the SQ is stalled: execute nothing, -EAGAIN when a delay is due and the
 * run may not sleep: leave the SQ to its work.
 */
int cxsim_fault_sq(struct cxsim_sq *sq, bool may_sleep)
{
	struct cxsim_fault *f = &sq->sd->fault;
	u32 delay = READ_ONCE(f->delay_us);

	if (unlikely(READ_ONCE(f->stall_sqn) == sq->sqn)) {
		atomic64_inc(&f->cnt[CXSIM_FAULT_STALLED]);
		return -EBUSY;
	}
	if (unlikely(delay)) {
		if (!may_sleep)
			return -EAGAIN;
		atomic64_inc(&f->cnt[CXSIM_FAULT_DELAYED]);
		fsleep(min(delay, CXSIM_FAULT_MAX_DELAY_US));
	}
	return 0;
}

/* Take a one-shot queue knob if it names @qn: -1 again, counted. */
static bool cxsim_fault_take(struct cxsim_dev *sd, int *knob, u32 qn, int cnt)
{
	if (likely(READ_ONCE(*knob) != (int)qn))
		return false;
	if (cmpxchg(knob, (int)qn, -1) != (int)qn)
		return false;
	atomic64_inc(&sd->fault.cnt[cnt]);
	return true;
}

/**
 * cxsim_fault_sq_error() - must the SQ's WQE at its consumer counter fail?
 * @sq: the SQ, from its engine
 *
 * Return: true once after sq_error_sqn was set to @sq's number.
 */
bool cxsim_fault_sq_error(struct cxsim_sq *sq)
{
	return cxsim_fault_take(sq->sd, &sq->sd->fault.sq_error_sqn, sq->sqn,
				CXSIM_FAULT_SQ_ERROR);
}

/**
 * cxsim_fault_rq_error() - must the RQ's WQE at its consumer counter fail?
 * @rq: the RQ, locked, a frame for it in hand
 *
 * Return: true once after rq_error_rqn was set to @rq's number.
 */
bool cxsim_fault_rq_error(struct cxsim_rq *rq)
{
	return cxsim_fault_take(rq->sd, &rq->sd->fault.rq_error_rqn, rq->rqn,
				CXSIM_FAULT_RQ_ERROR);
}

/**
 * cxsim_fault_cmd() - must this command fail?
 * @sd: the device, its command about to execute
 * @opcode: the command's opcode
 *
 * Return: true while cmd_fail_count is positive for cmd_fail_opcode.
 */
bool cxsim_fault_cmd(struct cxsim_dev *sd, u16 opcode)
{
	struct cxsim_fault *f = &sd->fault;

	if (likely(READ_ONCE(f->cmd_fail_opcode) != opcode || !opcode))
		return false;
	if (atomic_dec_if_positive(&f->cmd_fail_count) < 0)
		return false;
	atomic64_inc(&f->cnt[CXSIM_FAULT_CMD_FAILED]);
	return true;
}

/* ------------------------------------------------------------------ */
/* debugfs                                                             */
/* ------------------------------------------------------------------ */

static int cxsim_fault_every_get(void *data, u64 *val)
{
	struct cxsim_fault_knob *k = data;

	*val = READ_ONCE(k->sd->fault.every[k->knob]);
	return 0;
}

static int cxsim_fault_every_set(void *data, u64 val)
{
	struct cxsim_fault_knob *k = data;
	struct cxsim_fault *f = &k->sd->fault;

	if (val > U32_MAX)
		return -EINVAL;
	atomic_set(&f->seq[k->knob], 0);
	WRITE_ONCE(f->every[k->knob], val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(cxsim_fault_every_fops, cxsim_fault_every_get,
			 cxsim_fault_every_set, "%llu\n");

static int cxsim_fault_stall_get(void *data, u64 *val)
{
	struct cxsim_dev *sd = data;

	*val = (s64)READ_ONCE(sd->fault.stall_sqn);
	return 0;
}

/* Set the stalled SQ; the one released gets its pending WQEs executed. */
static int cxsim_fault_stall_set(void *data, u64 val)
{
	struct cxsim_dev *sd = data;
	s64 sqn = (s64)val;
	struct cxsim_sq *sq;
	int old;

	if (sqn < -1 || sqn >= CXEN_HW_NUM_SQ)
		return -EINVAL;
	old = xchg(&sd->fault.stall_sqn, (int)sqn);
	if (old < 0 || old == sqn)
		return 0;
	rcu_read_lock();
	sq = rcu_dereference(sd->sq[old]);
	if (sq)
		cxsim_sq_schedule(sq);
	rcu_read_unlock();
	return 0;
}

static int cxsim_fault_delay_get(void *data, u64 *val)
{
	struct cxsim_dev *sd = data;

	*val = READ_ONCE(sd->fault.delay_us);
	return 0;
}

/* Refuse what would be clamped: the value read back is the one applied. */
static int cxsim_fault_delay_set(void *data, u64 val)
{
	struct cxsim_dev *sd = data;

	if (val > CXSIM_FAULT_MAX_DELAY_US)
		return -EINVAL;
	WRITE_ONCE(sd->fault.delay_us, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(cxsim_fault_delay_fops, cxsim_fault_delay_get,
			 cxsim_fault_delay_set, "%llu\n");

DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(cxsim_fault_stall_fops,
				cxsim_fault_stall_get, cxsim_fault_stall_set,
				"%lld\n");

/* sq_error_sqn, rq_error_rqn: a queue number below the knob's limit, or -1. */
static int cxsim_fault_qknob_get(void *data, u64 *val)
{
	struct cxsim_fault_qknob *k = data;

	*val = (s64)READ_ONCE(*k->knob);
	return 0;
}

static int cxsim_fault_qknob_set(void *data, u64 val)
{
	struct cxsim_fault_qknob *k = data;
	s64 qn = (s64)val;

	if (qn < -1 || qn >= k->limit)
		return -EINVAL;
	WRITE_ONCE(*k->knob, (int)qn);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE_SIGNED(cxsim_fault_qknob_fops, cxsim_fault_qknob_get,
				cxsim_fault_qknob_set, "%lld\n");

static int cxsim_fault_cmd_opcode_get(void *data, u64 *val)
{
	struct cxsim_dev *sd = data;

	*val = READ_ONCE(sd->fault.cmd_fail_opcode);
	return 0;
}

static int cxsim_fault_cmd_opcode_set(void *data, u64 val)
{
	struct cxsim_dev *sd = data;

	if (val > FIELD_MAX(CXEN_CMD_CTRL_OPCODE))
		return -EINVAL;
	WRITE_ONCE(sd->fault.cmd_fail_opcode, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(cxsim_fault_cmd_opcode_fops,
			 cxsim_fault_cmd_opcode_get,
			 cxsim_fault_cmd_opcode_set, "%#llx\n");

static int cxsim_fault_cmd_count_get(void *data, u64 *val)
{
	struct cxsim_dev *sd = data;

	*val = atomic_read(&sd->fault.cmd_fail_count);
	return 0;
}

static int cxsim_fault_cmd_count_set(void *data, u64 val)
{
	struct cxsim_dev *sd = data;

	if (val > INT_MAX)
		return -EINVAL;
	atomic_set(&sd->fault.cmd_fail_count, val);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(cxsim_fault_cmd_count_fops, cxsim_fault_cmd_count_get,
			 cxsim_fault_cmd_count_set, "%llu\n");

static int cxsim_fault_counters_show(struct seq_file *m, void *v)
{
	struct cxsim_dev *sd = m->private;
	int i;

	for (i = 0; i < CXSIM_FAULT_NCNT; i++)
		seq_printf(m, "%s %lld\n", cxsim_fault_cnt_names[i],
			   atomic64_read(&sd->fault.cnt[i]));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(cxsim_fault_counters);

void cxsim_fault_debugfs_init(struct cxsim_dev *sd, struct dentry *parent)
{
	struct dentry *dir = debugfs_create_dir("fault", parent);
	int i;

	struct cxsim_fault_qknob *qk = sd->fault.qknob;

	sd->fault.stall_sqn = -1;
	sd->fault.sq_error_sqn = -1;
	sd->fault.rq_error_rqn = -1;
	qk[0] = (struct cxsim_fault_qknob){ &sd->fault.sq_error_sqn,
					    CXEN_HW_NUM_SQ };
	qk[1] = (struct cxsim_fault_qknob){ &sd->fault.rq_error_rqn,
					    CXEN_HW_NUM_RQ };
	for (i = 0; i < CXSIM_FAULT_NKNOB; i++) {
		sd->fault.knob[i].sd = sd;
		sd->fault.knob[i].knob = i;
		debugfs_create_file_unsafe(cxsim_fault_knob_names[i], 0600, dir,
					   &sd->fault.knob[i],
					   &cxsim_fault_every_fops);
	}
	debugfs_create_file_unsafe("delay_us", 0600, dir, sd,
				   &cxsim_fault_delay_fops);
	debugfs_create_file_unsafe("stall_sqn", 0600, dir, sd,
				   &cxsim_fault_stall_fops);
	debugfs_create_file_unsafe("sq_error_sqn", 0600, dir, &qk[0],
				   &cxsim_fault_qknob_fops);
	debugfs_create_file_unsafe("rq_error_rqn", 0600, dir, &qk[1],
				   &cxsim_fault_qknob_fops);
	debugfs_create_file_unsafe("cmd_fail_opcode", 0600, dir, sd,
				   &cxsim_fault_cmd_opcode_fops);
	debugfs_create_file_unsafe("cmd_fail_count", 0600, dir, sd,
				   &cxsim_fault_cmd_count_fops);
	cxsim_health_debugfs_init(sd, dir);
	debugfs_create_file("counters", 0400, dir, sd,
			    &cxsim_fault_counters_fops);
}
