# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# What counts as a kernel splat in a console or dmesg log (sourced by
# tests/vm/run on the host and tests/integration/suite.sh in the VM):
# BUG, WARNING, KASAN, UBSAN, lockdep, RCU stall or suspicious usage,
# Oops, general protection, refcount_t, hung task, soft lockup, page_pool
# "stalled pool shutdown", ref_tracker, kmemleak, panic; and a checker
# that switches itself off (lockdep, DMA-API debugging, kmemleak, debug
# objects): it checks nothing after, so the run proves nothing after.
# Lines naming the kernel command line or guest-init's own messages are
# not splats.

cxen_splat_re='\bBUG:|\bWARNING:|cut here ]|KASAN:|UBSAN:|kernel BUG at|\bOops\b|general protection|Kernel panic|'
cxen_splat_re+='possible circular locking|inconsistent lock state|possible recursive locking|'
cxen_splat_re+='bad unlock balance|held lock freed|lock held when returning|suspicious RCU usage|'
# Lockdep that turns itself off (an uninitialized lock) checks nothing after.
cxen_splat_re+='trying to register non-static key|turning off the locking correctness validator|DEBUG_LOCKS_WARN_ON|'
cxen_splat_re+='lockdep is turned off|'
# The other checkers that turn themselves off (6.12: kernel/dma/debug.c,
# mm/kmemleak.c, lib/debugobjects.c): out of memory for their own
# tracking, or a tracking structure found inconsistent.
cxen_splat_re+='DMA-API: debugging out of memory|DMA-API: cacheline tracking ENOMEM|dma_debug_add_bus: out of memory|'
cxen_splat_re+='kmemleak: Kernel memory leak detector disabled|kmemleak: Cannot allocate a kmemleak_object|'
cxen_splat_re+='kmemleak: Cannot insert .* into the object search tree|kmemleak: Memory pool empty|'
cxen_splat_re+='kmemleak: Kmemleak disabled without freeing|ODEBUG: Out of memory|'
cxen_splat_re+='rcu: INFO:|self-detected stall|detected stalls|unreferenced object|'
cxen_splat_re+='stalled pool shutdown|ref_tracker|hung task|blocked for more than|refcount_t|'
cxen_splat_re+='soft lockup|hard LOCKUP|list_add corruption|list_del corruption|Unable to handle kernel'

# cxen_splats FILE: the splat lines of a log, nothing when clean.
cxen_splats() {
	grep -av -e 'Kernel command line:' -e 'cxen guest-init:' "$1" |
		grep -aE "$cxen_splat_re" || true
}
