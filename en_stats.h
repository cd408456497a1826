/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cxen: the software counters' structures, derived from their one list
 * (en_stats_list.h): the per-queue u64_stats_t sets the data path
 * increments, the port's atomics and the port totals.
 */
#ifndef _CXEN_EN_STATS_H_
#define _CXEN_EN_STATS_H_

#include <linux/atomic.h>
#include <linux/u64_stats_sync.h>

/*
 * A struct member from a macro, its ';' included: the declaration is the
 * argument (as struct_group() takes its members), so the list's lines
 * can each declare one.
 */
#define CXEN_MEMBER(...)		__VA_ARGS__
#define CXEN_STAT_U64S(field, ...)	CXEN_MEMBER(u64_stats_t field;)
#define CXEN_STAT_ATOMIC(field, ...)	CXEN_MEMBER(atomic64_t field;)
#define CXEN_STAT_TOTAL(name, ...)	CXEN_MEMBER(u64 name;)
#define CXEN_STAT_ACC(field, ...)	CXEN_MEMBER(u64 field;)

/* Per-RQ software counters (CXEN_RQ lines). NAPI only. */
struct cxen_rq_stats {
#define CXEN_RQ(name, field, ...)	CXEN_STAT_U64S(field, name)
#include "en_stats_list.h"
	struct u64_stats_sync syncp;
};

/*
 * Per-SQ software counters, in two sets because they have two writers:
 * the xmit path (under the TX queue lock, CXEN_SQ lines) and completions
 * (NAPI, CXEN_SQC lines).
 */
struct cxen_sq_stats {
#define CXEN_SQ(name, field, ...)	CXEN_STAT_U64S(field, name)
#include "en_stats_list.h"
	struct u64_stats_sync syncp;
};

struct cxen_sq_cstats {
#define CXEN_SQC(name, field, ...)	CXEN_STAT_U64S(field, name)
#include "en_stats_list.h"
	struct u64_stats_sync syncp;
};

/*
 * NAPI counts on an RQ (CXEN_RQ lines) and on an SQ's completions
 * (CXEN_SQC) with cxen_rq_add() and cxen_sqc_add(), as does the control
 * path with NAPI disabled. A 64-bit kernel reads a u64_stats_t whole
 * without a section: the count goes into the set at once, and publishing
 * is nothing. A 32-bit one counts in plain copies only NAPI touches
 * (struct cxen_rq_acc, struct cxen_sqc_acc) and adds them to the sets in
 * one short section at the end of each poll (cxen_rq_stats_publish(),
 * cxen_sq_cstats_publish()): a reader never waits on GRO or delivery.
 */
#if BITS_PER_LONG == 64
#define CXEN_STATS_DIRECT	1
#define cxen_rq_add(rq, field, n)	u64_stats_add(&((rq)->stats.field), n)
#define cxen_sqc_add(sq, field, n)	u64_stats_add(&((sq)->cstats.field), n)
#else
#define CXEN_STATS_DIRECT	0
#define cxen_rq_add(rq, field, n)	(((rq)->acc.field) += (n))
#define cxen_sqc_add(sq, field, n)	(((sq)->cacc.field) += (n))
#endif
#define cxen_rq_inc(rq, field)		cxen_rq_add(rq, field, 1)
#define cxen_sqc_inc(sq, field)		cxen_sqc_add(sq, field, 1)

struct cxen_rq_acc {
#define CXEN_RQ(name, field, ...)	CXEN_STAT_ACC(field, name)
#include "en_stats_list.h"
};

struct cxen_sqc_acc {
#define CXEN_SQC(name, field, ...)	CXEN_STAT_ACC(field, name)
#include "en_stats_list.h"
};

/* The port's own counters (CXEN_PORT lines), for rare events. */
struct cxen_port_stats {
#define CXEN_PORT(name, field, ...)	CXEN_STAT_ATOMIC(field, name)
#include "en_stats_list.h"
};

/*
 * Port totals: every line's @name, in the list's order, all u64. In
 * struct cxen_priv, the totals of channels that no longer exist, so
 * counters never go back.
 */
struct cxen_stats_base {
#define CXEN_RQ		CXEN_STAT_TOTAL
#define CXEN_POOL	CXEN_STAT_TOTAL
#define CXEN_SQ		CXEN_STAT_TOTAL
#define CXEN_SQC	CXEN_STAT_TOTAL
#define CXEN_PORT	CXEN_STAT_TOTAL
#include "en_stats_list.h"
};

/* The number of lines of the list: the port counters of ethtool -S. */
#define CXEN_NUM_SW_STATS	(sizeof(struct cxen_stats_base) / sizeof(u64))

#endif /* _CXEN_EN_STATS_H_ */
