#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Host side of `make profile`: which functions the guest traces, and what
each one counts as.

    bench/profile_funcs.py MODDIR KSRC > funcs.json

MODDIR is the build directory of the modules the VM loads (cxen.ko,
sim/cxsim.ko and their .o files); KSRC an unpacked linux-source-6.12.

The profile (bench/profile_guest.py) walks the function_graph tracer's
entry/return events per task and charges each stretch of time to the
innermost open traced function. So only the functions where the CPU moves
from one part to another need tracing:

  driver  the functions of cxen.ko entered from outside the part of the
          driver they belong to: its source file sorts each into rx
          (en_rx*.c, en_frag.c), tx (en_tx.c) or other
          (interrupt, NAPI, CQ, control path); a helper called only from
          its own part runs inside a traced one
  model   the functions of cxsim.ko that can be entered from outside it:
          those whose address the module takes (work items, timers, the
          register trap, ops tables: a relocation that is not a call or a
          jump). Functions it only calls directly run inside one of them;
          tracing them all costs ~16 events per packet under TCG.
  stack   the network stack's entry points (socket calls, softirqs, TCP
          timers) and the net/ functions through which the driver hands
          it a packet or lets it run (STACK_DOORS); the other net/
          helpers the driver calls (napi_build_skb, eth_type_trans,
          page_pool) count as the driver's
  markers tick_nohz_idle_enter/exit: idle is what /proc/stat counts as
          idle, the idle task between the two

What a traced function calls and is not traced counts as the caller's:
the DMA API and page allocator under the driver, memcpy under the model,
the whole TCP/IP code under napi_gro_receive(). Every traced call costs
two ring-buffer events (an entry and a return); the fewer per packet, the
less the tracer changes what it measures.
"""

import json
import os
import re
import subprocess
import sys

# Entry points of the stack from outside it: system calls on sockets
# (iperf3 and bench/rr use read/write/send/recv/sendto/recvfrom and
# select), the softirqs, TCP's timers and its small-queue tasklet.
NET_ENTRIES = [
    "sock_read_iter", "sock_write_iter", "__sys_sendto", "__sys_recvfrom",
    "__sys_sendmsg", "__sys_recvmsg", "__sys_sendmmsg", "__sys_recvmmsg",
    "__sys_connect", "__sys_accept4", "__sys_setsockopt", "__sys_getsockopt",
    "sock_poll", "sock_close", "net_rx_action", "net_tx_action",
    "tcp_write_timer", "tcp_delack_timer", "tcp_keepalive_timer",
    "tcp_tasklet_func", "tcp_pace_kick", "tcp_compressed_ack_kick",
]

# Where the driver hands a packet to the stack, or lets it run (GRO
# flush, freeing a sent skb runs its destructor, a queue wake its qdisc).
# The other net/ helpers the driver calls per packet (napi_build_skb,
# eth_type_trans, skb_put...) count as the driver's, like the DMA API.
STACK_DOORS = {
    "napi_gro_receive", "napi_gro_frags", "napi_gro_flush", "netif_receive_skb",
    "netif_receive_skb_list", "napi_complete_done", "napi_consume_skb",
    "dev_kfree_skb_any_reason", "consume_skb", "sk_skb_reason_drop",
    "netif_tx_wake_queue", "netif_schedule_queue",
}

# Where /proc/stat's idle time starts and stops (kernel/time/tick-sched.c).
# The guest switches the tracer only while every vCPU spins in user space:
# under TCG, patching them while the text-patching IPI woke the idle CPU
# into tick_nohz_idle_exit() once ran a stale int3 (an oops). Interrupt
# entry (irq_enter_rcu) is on that IPI's own path: not traced, so an
# interrupt taken in idle counts as idle here and as busy in /proc/stat
# (part of the residual).
MARKERS = ["tick_nohz_idle_enter", "tick_nohz_idle_exit"]

# The RX kinds and what they share (en_rx.h); en_frag_compare was
# en_rx_compare's name before 2026-12-07.
RX_FILES = {"en_rx", "en_rx_sg", "en_rx_stride", "en_rx_compare", "en_frag",
            "en_frag_compare"}
TX_FILES = {"en_tx"}
# Sections whose relocations are metadata (not a use of the address).
META = re.compile(r"^(\.debug|\.call_sites|\.return_sites|\.orc_unwind|__mcount_loc|"
                  r"__patchable_function_entries|\.ibt_endbr_seal|\.smp_locks|"
                  r"\.altinstr|__bug_table|\.static_call_sites|\.gnu\.linkonce|"
                  r"__jump_table|__ex_table|\.exit\.)")


def sh(*argv):
    return subprocess.run(argv, check=True, capture_output=True, text=True).stdout


def text_funcs(ko):
    """{section: [(start, end, name)]} of the FUNC symbols of KO."""
    secs = {}
    for m in re.finditer(r"^\s*\[\s*(\d+)\]\s+(\S+)", sh("readelf", "-SW", ko), re.M):
        secs[m.group(1)] = m.group(2)
    out = {}
    for line in sh("readelf", "-sW", ko).splitlines():
        f = line.split()
        if len(f) < 8 or f[3] != "FUNC" or not f[6].isdigit():
            continue
        name = f[7]
        if name.startswith("__pfx_"):
            continue
        start = int(f[1], 16)
        out.setdefault(secs[f[6]], []).append((start, start + int(f[2]), name))
    return out


def func_at(funcs, sec, addr):
    for start, end, name in funcs.get(sec, []):
        if start <= addr < max(end, start + 1):
            return name
    return None


def references(ko):
    """(taken, calls) of KO: the functions whose address is used other than
    by a direct call or jump (the ways in from outside), and the direct
    calls between its own functions that kept a relocation (those across
    source files, as `ld -r` leaves them): {(caller, callee)}."""
    funcs = text_funcs(ko)
    names = {n for lst in funcs.values() for _, _, n in lst}
    taken = set()
    calls = set()

    def target(sym, addend, pcrel):
        if sym in names:
            return sym
        # A section-relative reference: .text+0x4d80 (PC-relative ones
        # carry -4 for the displacement's own size).
        return func_at(funcs, sym, addend + (4 if pcrel else 0))

    # Code: objdump -dr puts each relocation under its instruction.
    insn = ""
    sec = None
    caller = None
    for line in sh("objdump", "-dr", "--no-show-raw-insn", ko).splitlines():
        m = re.match(r"^Disassembly of section (\S+):", line)
        if m:
            sec = m.group(1)
            continue
        m = re.match(r"^[0-9a-f]+ <([^>+]+)>:", line)
        if m:
            caller = m.group(1)
            continue
        m = re.match(r"^\s+[0-9a-f]+:\s+(R_X86_64_\w+)\s+([^+\-\s]+)([+-]0x[0-9a-f]+)?", line)
        if not m:
            m = re.match(r"^\s+[0-9a-f]+:\s+(\S+)", line)
            if m:
                insn = m.group(1)
            continue
        if sec is None or META.match(sec):
            continue
        t = target(m.group(2), int(m.group(3) or "0", 16),
                   m.group(1) in ("R_X86_64_PC32", "R_X86_64_PLT32"))
        if not t:
            continue
        if insn in ("call", "jmp"):
            calls.add((caller, t))
        else:
            taken.add(t)
    # Data: ops tables, initialisers.
    sec = None
    for line in sh("objdump", "-r", ko).splitlines():
        m = re.match(r"^RELOCATION RECORDS FOR \[(\S+)\]:", line)
        if m:
            sec = m.group(1)
            continue
        if sec is None or META.match(sec) or "text" in sec or "altinstr" in sec:
            continue
        f = line.split()
        if len(f) != 3 or not f[1].startswith("R_X86_64"):
            continue
        m = re.match(r"^([^+\-]+)([+-]0x[0-9a-f]+)?$", f[2])
        if not m:
            continue
        t = target(m.group(1), int(m.group(2) or "0", 16), f[1].endswith("PC32"))
        if t:
            taken.add(t)
    # Module init/exit run once, not under a workload.
    taken -= {"init_module", "cleanup_module"}
    return taken, calls


def file_of(moddir, prefix):
    """{function: source file stem} from the per-file objects."""
    out = {}
    d = os.path.join(moddir, prefix)
    for fn in sorted(os.listdir(d)):
        if not fn.endswith(".o") or fn.endswith(".mod.o") or fn in ("cxen.o", "cxsim.o"):
            continue
        for line in sh("nm", "--defined-only", os.path.join(d, fn)).splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "tT" and not f[2].startswith("__pfx_"):
                out.setdefault(f[2], fn[:-2])
    return out


def net_exports(ksrc):
    """Symbols exported from files under net/."""
    out = set()
    r = subprocess.run(["grep", "-rhoE", r"EXPORT_SYMBOL(_GPL)?\(\w+\)",
                        "--include=*.c", os.path.join(ksrc, "net")],
                       capture_output=True, text=True)
    for m in re.finditer(r"\((\w+)\)", r.stdout):
        out.add(m.group(1))
    return out


def main():
    if len(sys.argv) != 3:
        raise SystemExit("usage: profile_funcs.py MODDIR KSRC")
    moddir, ksrc = sys.argv[1], sys.argv[2]
    cxen_ko = os.path.join(moddir, "cxen.ko")
    cxsim_ko = os.path.join(moddir, "sim", "cxsim.ko")
    exports = net_exports(ksrc)
    if len(exports) < 1000:
        raise SystemExit(f"profile_funcs: only {len(exports)} net/ exports in {ksrc}")
    missing = STACK_DOORS - exports
    if missing:
        raise SystemExit(f"profile_funcs: not exported from net/: {sorted(missing)}")
    called = set()
    for ko in (cxen_ko, cxsim_ko):
        called |= set(sh("nm", "-u", ko).split()) - {"U"}
    net_called = sorted(s for s in called if s in STACK_DOORS)
    files = file_of(moddir, ".")
    drv = {}
    for fn, stem in files.items():
        drv[fn] = "rx" if stem in RX_FILES else "tx" if stem in TX_FILES else "other"
    taken, calls = references(cxen_ko)
    # The driver's functions entered from outside the part of the driver
    # they belong to (rx, tx, other): its ways in, and the steps between
    # its parts. A helper called only from its own part runs inside it.
    drv_entries = set(taken) | {callee for caller, callee in calls
                                if drv.get(caller, "other") != drv.get(callee, "other")}
    model_entries, _ = references(cxsim_ko)
    json.dump({"driver": drv, "driver_files": files, "markers": MARKERS,
               "driver_entries": sorted(f for f in drv_entries if f in drv),
               "model_entries": sorted(model_entries),
               "net": sorted(set(NET_ENTRIES) | set(net_called)),
               "net_called_by_modules": net_called}, sys.stdout, indent=1, sort_keys=True)
    print()


if __name__ == "__main__":
    main()
