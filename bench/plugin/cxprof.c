// SPDX-License-Identifier: GPL-2.0
/*
 * cxprof: a QEMU TCG plugin (plugin API version 1, QEMU 7.2) that counts
 * the guest instructions executed and the memory accesses made, per
 * translated block (TB) start address, inside windows the guest opens
 * and closes. bench/plugin/build builds it; bench/profile loads it with
 * tests/vm/run --plugin. Documentation/testing.rst, "The instrument".
 *
 * Counting: every TB gets two inline counters (no helper call), in a
 * record kept per guest virtual start address for the whole run:
 *   execs += 1 and insns += n_insns at the TB's start
 *   (qemu_plugin_register_vcpu_tb_exec_inline), and
 *   mem += 1 after each guest memory access of each of its instructions
 *   (qemu_plugin_register_vcpu_mem_inline).
 * Inline counters are plain (not atomic) adds to one counter for all
 * vCPUs, so the VM must run TCG single-threaded (-accel tcg,thread=single,
 * or -icount, which implies it): then exactly one vCPU runs at a time.
 *
 * The window: API v1 cannot read guest registers or memory, but it sees
 * each instruction's bytes at translation time. The guest opens a window
 * by executing "xchg %bx,%bx" (66 87 db) and closes it with
 * "xchg %cx,%cx" (66 87 c9) in user mode; compilers do not emit these
 * (bench/profile_guest.py runs them through ctypes). The plugin puts an
 * exec callback on those instructions only; the callback snapshots
 * every record at open and, at close, writes the difference of every
 * record that moved to the output file as one window. Windows are
 * numbered from 0 in the order they close.
 *
 * Output (outfile=PATH, default cxprof.out), one line each:
 *   W <n> open                        a window opened
 *   T <start> <execs> <insns> <mem> <end> <last-insn-bytes>
 *                                     a TB's counts in the window: start
 *                                     and end (last instruction) virtual
 *                                     addresses in hex, the last
 *                                     instruction's bytes in hex
 *   E <n> <total insns> <total mem> <tbs>   the window closed
 *   X <translations> <records>        at exit
 */
#include <glib.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

struct rec {
	uint64_t start, end;
	uint64_t execs, insns, mem;
	/* Snapshot at the window's opening. */
	uint64_t s_execs, s_insns, s_mem;
	uint8_t last[16];
	uint8_t last_len;
	struct rec *next_all;
};

static GHashTable *recs;	/* start vaddr -> struct rec * */
static struct rec *all;
static uint64_t n_recs, n_trans;
static GMutex lock;
static FILE *out;
static int window_open;
static unsigned int windows;

static const uint8_t magic_open[] = { 0x66, 0x87, 0xdb };	/* xchg %bx,%bx */
static const uint8_t magic_close[] = { 0x66, 0x87, 0xc9 };	/* xchg %cx,%cx */

static struct rec *rec_get(uint64_t start)
{
	struct rec *r = g_hash_table_lookup(recs, &start);

	if (!r) {
		r = g_new0(struct rec, 1);
		r->start = start;
		r->next_all = all;
		all = r;
		n_recs++;
		g_hash_table_insert(recs, &r->start, r);
	}
	return r;
}

static void win_open(unsigned int vcpu, void *udata)
{
	struct rec *r;

	g_mutex_lock(&lock);
	if (!window_open) {
		for (r = all; r; r = r->next_all) {
			r->s_execs = r->execs;
			r->s_insns = r->insns;
			r->s_mem = r->mem;
		}
		window_open = 1;
		fprintf(out, "W %u open\n", windows);
	}
	g_mutex_unlock(&lock);
}

static void win_close(unsigned int vcpu, void *udata)
{
	struct rec *r;
	uint64_t ti = 0, tm = 0, tbs = 0;
	unsigned int i;

	g_mutex_lock(&lock);
	if (window_open) {
		for (r = all; r; r = r->next_all) {
			uint64_t e = r->execs - r->s_execs;
			uint64_t n = r->insns - r->s_insns;
			uint64_t m = r->mem - r->s_mem;

			if (!e && !m)
				continue;
			fprintf(out, "T %" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIx64 " ",
				r->start, e, n, m, r->end);
			for (i = 0; i < r->last_len; i++)
				fprintf(out, "%02x", r->last[i]);
			fputc('\n', out);
			ti += n;
			tm += m;
			tbs++;
		}
		fprintf(out, "E %u %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", windows, ti, tm, tbs);
		fflush(out);
		windows++;
		window_open = 0;
	}
	g_mutex_unlock(&lock);
}

static int is_magic(struct qemu_plugin_insn *insn, const uint8_t *m)
{
	return qemu_plugin_insn_size(insn) == 3 &&
	       !memcmp(qemu_plugin_insn_data(insn), m, 3) &&
	       /* user mode only: a canonical lower-half address */
	       qemu_plugin_insn_vaddr(insn) < 0x800000000000ULL;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i;
	uint64_t start = qemu_plugin_tb_vaddr(tb);
	struct qemu_plugin_insn *last;
	struct rec *r;

	g_mutex_lock(&lock);
	n_trans++;
	r = rec_get(start);
	last = qemu_plugin_tb_get_insn(tb, n - 1);
	if (qemu_plugin_insn_vaddr(last) >= r->end) {
		size_t sz = qemu_plugin_insn_size(last);

		r->end = qemu_plugin_insn_vaddr(last);
		if (sz > sizeof(r->last))
			sz = sizeof(r->last);
		memcpy(r->last, qemu_plugin_insn_data(last), sz);
		r->last_len = sz;
	}
	g_mutex_unlock(&lock);

	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &r->execs, 1);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64, &r->insns, n);
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);

		qemu_plugin_register_vcpu_mem_inline(insn, QEMU_PLUGIN_MEM_RW,
						     QEMU_PLUGIN_INLINE_ADD_U64, &r->mem, 1);
		if (is_magic(insn, magic_open))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, win_open,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
		else if (is_magic(insn, magic_close))
			qemu_plugin_register_vcpu_insn_exec_cb(insn, win_close,
							       QEMU_PLUGIN_CB_NO_REGS, NULL);
	}
}

static void at_exit(qemu_plugin_id_t id, void *p)
{
	g_mutex_lock(&lock);
	fprintf(out, "X %" PRIu64 " %" PRIu64 "\n", n_trans, n_recs);
	fclose(out);
	out = NULL;
	g_mutex_unlock(&lock);
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv)
{
	const char *path = "cxprof.out";
	int i;

	for (i = 0; i < argc; i++) {
		if (g_str_has_prefix(argv[i], "outfile="))
			path = argv[i] + strlen("outfile=");
		else {
			fprintf(stderr, "cxprof: unknown argument %s\n", argv[i]);
			return -1;
		}
	}
	if (info->system_emulation && info->system.smp_vcpus > 1 && info->system.max_vcpus > 1) {
		/* Nothing to check here: thread=single is the caller's job. */
	}
	out = fopen(path, "w");
	if (!out) {
		perror(path);
		return -1;
	}
	recs = g_hash_table_new(g_int64_hash, g_int64_equal);
	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, at_exit, NULL);
	return 0;
}
