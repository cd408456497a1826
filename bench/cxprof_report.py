#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The report of `make profile` (the instruction counter, the default):
instructions and memory accesses per packet, per part and per function.

    bench/cxprof_report.py [--moddir DIR] [--top N] RUNDIR...

Each RUNDIR holds raw.txt (bench/cxprof_guest.py's PROFILE-* lines: the
guest's symbols and, per workload, the window's number and the ports'
counters) and cxprof.out (the plugin's counts per translated block and
window, bench/plugin/cxprof.c). MODDIR (default: the "moddir" of
RUNDIR/host.json) holds the cxen.ko and sim/cxsim.ko the VM loaded:
their section sizes bound the modules' code, their objects sort the
driver's functions into rx/tx/other. Writes RUNDIR/results.json,
results.md and, with gnuplot, profile.png; prints results.md.

Attribution (Documentation/testing.rst, "The instrument"):

1. Every block's instructions and accesses go to the function holding
   its start address: the guest's /proc/kallsyms (text symbols, the next
   symbol ends a function), module code bounded by its sections.
2. Own code: cxen.ko by source file, as bench/profile_funcs.py sorts it
   (RX: en_rx*.c, en_frag.c; TX: en_tx.c; other: the rest); cxsim.ko is the model; user space (addresses below 2^47) is
   rest.
3. The stack's roots: the socket system calls, net_rx_action,
   net_tx_action, TCP's timers (bench/profile_funcs.py NET_ENTRIES) and
   the net/ functions through which the driver hands it a packet or
   lets it run (STACK_DOORS: napi_gro_receive, napi_complete_done,
   napi_consume_skb...) are the stack.
4. Every other kernel function is split among its callers, in
   proportion to the calls each made to it in the window (gprof's
   rule), transitively: a direct call (E8) or a tail jump (E9/EB to
   another function's start) ending a block counts the block's
   executions as calls from the function holding the call to the
   target; a function's entries are the executions of the block at its
   start address. Entries no direct call explains (indirect calls,
   interrupts, exceptions) stay with no part: rest.
5. Driver services: the DMA API (dma_*, __dma_*, swiotlb_*, iommu_dma_*)
   and page_pool (page_pool_*, __page_pool_*, napi_pp_*) count as the
   driver's whoever calls them: what rule 4 does not give the driver or
   the model goes to driver other (e.g. page_pool recycling run from the
   stack's skb free).
"""

import argparse
import base64
import bisect
import json
import os
import re
import subprocess
import sys
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import profile_funcs  # noqa: E402

PARTS = ["driver_rx", "driver_tx", "driver_other", "model", "stack", "rest"]
PROP = PARTS[:5]          # the parts a function's share can go to
LABEL = {"driver_rx": "driver RX", "driver_tx": "driver TX", "driver_other": "driver other",
         "model": "model", "stack": "stack", "rest": "rest"}
WL = {"tcp1": "TCP stream, 1 flow", "tcp16": "TCP stream, 16 flows",
      "rr1": "TCP RR, 1 byte", "udp64": "UDP stream, 64 B", "xdpdrop": "XDP_DROP"}
SERVICE = re.compile(r"^(dma_|__dma_|swiotlb_|iommu_dma_|page_pool_|__page_pool_|napi_pp_)")
USER_TOP = 0x800000000000
EVENTS = {"skbs": "cxen_start_xmit [cxen]", "polls": "cxen_napi_poll [cxen]",
          "irqs": "cxen_channel_irq [cxen]", "napi_gro_receive": "napi_gro_receive",
          "napi_gro_frags": "napi_gro_frags"}


def load_raw(d):
    cond, syms, res, errs, done = None, [], [], [], None
    with open(os.path.join(d, "raw.txt")) as f:
        for line in f:
            tag, _, js = line.partition(" ")
            if tag == "PROFILE-COND":
                cond = json.loads(js)
            elif tag == "PROFILE-SYMS":
                syms.append(js.strip())
            elif tag == "PROFILE-RESULT":
                res.append(json.loads(js))
            elif tag == "PROFILE-ERROR":
                errs.append(json.loads(js))
            elif tag == "PROFILE-DONE":
                done = json.loads(js)
    syms = json.loads(zlib.decompress(base64.b64decode("".join(syms)))) if syms else None
    return cond, syms, res, errs, done


def load_plugin(path):
    """{window: {"tbs": [(start, execs, insns, mem, end, lastbytes)], "insns", "mem"}}"""
    wins, cur, exit_line = {}, None, None
    with open(path) as f:
        for line in f:
            if line.startswith("T "):
                p = line.split()
                cur.append((int(p[1], 16), int(p[2]), int(p[3]), int(p[4]), int(p[5], 16),
                            p[6] if len(p) > 6 else ""))
            elif line.startswith("W "):
                cur = []
            elif line.startswith("E "):
                p = line.split()
                wins[int(p[1])] = {"tbs": cur, "insns": int(p[2]), "mem": int(p[3])}
                cur = None
            elif line.startswith("X "):
                exit_line = line.split()[1:]
    return wins, exit_line


def ko_text_sections(ko):
    """{section name: size} of KO's executable sections."""
    out = {}
    for line in subprocess.run(["readelf", "-SW", ko], check=True, capture_output=True,
                               text=True).stdout.splitlines():
        m = re.match(r"^\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+[0-9a-f]+\s+[0-9a-f]+\s+([0-9a-f]+)\s+\S+\s+(\S*)", line)
        if m and "X" in m.group(3):
            out[m.group(1)] = int(m.group(2), 16)
    return out


class Symbols:
    def __init__(self, syms, moddir):
        ents = []
        for line in syms["kallsyms"]:
            p = line.split()
            addr = int(p[0], 16)
            if addr == 0:
                continue
            mod = p[3].strip("[]") if len(p) > 3 else ""
            ents.append((addr, p[2], mod))
        ents.sort()
        self.addr = [e[0] for e in ents]
        self.ents = ents
        self.start_of = {}
        # Module code: [base, base + size) of each executable section.
        self.ranges = []
        for mod, ko in (("cxen", os.path.join(moddir, "cxen.ko")),
                        ("cxsim", os.path.join(moddir, "sim", "cxsim.ko"))):
            sizes = ko_text_sections(ko)
            for sec, base in syms["sections"].get(mod, {}).items():
                if sec in sizes:
                    b = int(base, 16)
                    self.ranges.append((b, b + sizes[sec], mod))
        if not any(r[2] == "cxen" for r in self.ranges):
            raise SystemExit("cxprof_report: no cxen text section among the guest's "
                             "/sys/module/cxen/sections (was it loaded?)")
        self.kernel_lo = min((a for a, n, m in ents if not m and n in ("_stext", "_text")),
                             default=None)
        self.kernel_hi = max((a for a, n, m in ents if not m and n == "_etext"), default=None)

    def module_of(self, a):
        for lo, hi, mod in self.ranges:
            if lo <= a < hi:
                return mod
        return None

    def func(self, a):
        """(key, name, module) of the function holding address A."""
        if a < USER_TOP:
            return ("(user)", "(user space)", "user")
        mod = self.module_of(a)
        i = bisect.bisect_right(self.addr, a) - 1
        if i < 0:
            return ("(unknown)", "(unknown kernel)", "?")
        start, name, smod = self.ents[i]
        if mod is not None and smod != mod:
            return (f"{mod}+{a:x}", f"({mod} code)", mod)
        if mod is None and smod:
            # Past a module's text (its data, or other modules' code).
            return (f"{name} [{smod}]", name, smod)
        if not smod and self.kernel_hi and a >= self.kernel_hi:
            return ("(unknown)", "(kernel, past _etext: BPF, trampolines)", "?")
        key = f"{name} [{smod}]" if smod else name
        self.start_of[key] = start
        return (key, name, smod)

    def func_start(self, a):
        i = bisect.bisect_right(self.addr, a) - 1
        return i >= 0 and self.ents[i][0] == a


def decode_branch(end, hexbytes):
    """(kind, target) of a block's last instruction: kind "call" (E8) or
    "jmp" (E9, EB) with its target, else (None, None)."""
    b = bytes.fromhex(hexbytes) if hexbytes else b""
    i = 0
    while i < len(b) and b[i] in (0x2e, 0x3e):   # segment prefixes (branch hints)
        i += 1
    b2 = b[i:]
    if len(b2) >= 5 and b2[0] in (0xe8, 0xe9):
        rel = int.from_bytes(b2[1:5], "little", signed=True)
        return ("call" if b2[0] == 0xe8 else "jmp"), (end + len(b) + rel) & ((1 << 64) - 1)
    if len(b2) >= 2 and b2[0] == 0xeb:
        rel = int.from_bytes(b2[1:2], "little", signed=True)
        return "jmp", (end + len(b) + rel) & ((1 << 64) - 1)
    return None, None


def attribute(tbs, sym, drv_part):
    """Per function: own insns and mem; shares per part (the rules above)."""
    own_i, own_m, entries, edges, info = {}, {}, {}, {}, {}
    for start, execs, insns, mem, end, last in tbs:
        key, name, mod = sym.func(start)
        info.setdefault(key, (name, mod))
        own_i[key] = own_i.get(key, 0) + insns
        own_m[key] = own_m.get(key, 0) + mem
        if mod not in ("user", "?") and sym.func_start(start):
            entries[key] = entries.get(key, 0) + execs
        kind, tgt = decode_branch(end, last)
        if kind and execs:
            if not sym.func_start(tgt):
                continue
            tkey, tname, tmod = sym.func(tgt)
            ckey = sym.func(end)[0]
            if kind == "jmp" and tkey == ckey:
                continue
            info.setdefault(tkey, (tname, tmod))
            e = edges.setdefault(tkey, {})
            e[ckey] = e.get(ckey, 0) + execs
    roots = set(profile_funcs.NET_ENTRIES) | set(profile_funcs.STACK_DOORS)
    fixed, free = {}, []
    for key, (name, mod) in info.items():
        if mod == "cxen":
            fixed[key] = {"driver_" + drv_part.get(name, "other"): 1.0}
        elif mod == "cxsim":
            fixed[key] = {"model": 1.0}
        elif mod in ("user", "?"):
            fixed[key] = {}
        elif not mod and name in roots:
            fixed[key] = {"stack": 1.0}
        elif mod:
            fixed[key] = {}          # other modules: no part (rest)
        else:
            free.append(key)
    share = dict(fixed)
    for key in free:
        share[key] = {}
    for _ in range(60):
        changed = 0.0
        for key in free:
            ins = edges.get(key, {})
            tot = sum(c for g, c in ins.items() if g != key)
            denom = max(entries.get(key, 0) - ins.get(key, 0), tot)
            v = {}
            if denom:
                for g, c in ins.items():
                    if g == key:
                        continue
                    for p, s in share.get(g, {}).items():
                        v[p] = v.get(p, 0.0) + c * s / denom
            if SERVICE.match(info[key][0]):
                left = 1.0 - sum(v.get(p, 0.0) for p in ("driver_rx", "driver_tx",
                                                          "driver_other", "model"))
                v.pop("stack", None)
                if left > 0:
                    v["driver_other"] = v.get("driver_other", 0.0) + left
            old = share[key]
            changed += sum(abs(v.get(p, 0.0) - old.get(p, 0.0)) for p in PROP)
            share[key] = v
        if changed < 1e-9:
            break
    return own_i, own_m, share, info, entries


def analyse(rec, win, sym, drv_part, top):
    r = rec["run"]
    own_i, own_m, share, info, entries = attribute(win["tbs"], sym, drv_part)
    parts_i = {p: 0.0 for p in PARTS}
    parts_m = {p: 0.0 for p in PARTS}
    svc_i = {p: 0.0 for p in PARTS}
    funcs = []
    for key in own_i:
        sh = share.get(key, {})
        rest = max(0.0, 1.0 - sum(sh.values()))
        own_part = info[key][1] in ("cxen", "cxsim")
        for p in PROP:
            parts_i[p] += own_i[key] * sh.get(p, 0.0)
            parts_m[p] += own_m[key] * sh.get(p, 0.0)
            if not own_part and p != "stack":
                svc_i[p] += own_i[key] * sh.get(p, 0.0)
        parts_i["rest"] += own_i[key] * rest
        parts_m["rest"] += own_m[key] * rest
        main = max(PROP, key=lambda p: sh.get(p, 0.0)) if sh else "rest"
        if rest > sh.get(main, 0.0):
            main = "rest"
        funcs.append((key, own_i[key], own_m[key], main,
                      {p: round(sh.get(p, 0.0), 3) for p in PROP if sh.get(p, 0.0) > 0.0005}))
    rx, tx = r["rx_packets"], r["tx_packets"]
    tx_n = tx if tx >= 0.01 * rx else 0

    def per(v, n):
        return v / n if n else None
    drv = ["driver_rx", "driver_tx", "driver_other"]
    # Events counted as entries of a function (the executions of the
    # block at its start): skbs the driver was given to send, NAPI polls,
    # channel interrupts, packets handed to GRO.
    ev = {name: entries.get(key, 0) for name, key in EVENTS.items()}
    ev["gro"] = ev.pop("napi_gro_receive") + ev.pop("napi_gro_frags")
    a = {
        "workload": rec["workload"], "layout": rec["layout"], "rep": rec["rep"],
        "events": ev,
        "events_per_rx": {k: per(v, rx) for k, v in ev.items()},
        "driver_tx_per_skb": per(parts_i["driver_tx"], ev["skbs"]),
        "window": r["window"], "window_s": r["window_s"], "rate_pps": r["rate_pps"],
        "rate_mbps": r["rate_mbps"], "rx_packets": rx, "tx_packets": tx,
        "insns_total": win["insns"], "mem_total": win["mem"],
        "insns": parts_i, "mem": parts_m, "services_insns": svc_i,
        # Per packet: driver TX per frame sent, everything else per frame
        # received (the two ports together; in the pair they match).
        # (No TX figure when the window sent next to nothing: XDP_DROP.)
        "insns_per_pkt": {p: per(parts_i[p], tx_n if p == "driver_tx" else rx) for p in PARTS},
        "mem_per_pkt": {p: per(parts_m[p], tx_n if p == "driver_tx" else rx) for p in PARTS},
        "driver_insns_per_pkt": per(sum(parts_i[p] for p in drv), rx),
        "driver_mem_per_pkt": per(sum(parts_m[p] for p in drv), rx),
        "all_insns_per_pkt": per(win["insns"], rx),
        "top": [(k, per(i, rx), per(m, rx), p, s) for k, i, m, p, s in
                sorted(funcs, key=lambda x: -x[1])[:top]],
        # Instructions charged to the driver's parts, per packet received.
        "top_driver": [(k, per(i * sum(s.get(q, 0) for q in drv), rx), per(m, rx), p, s)
                       for k, i, m, p, s in
                       sorted(funcs, key=lambda x: -x[1] * sum(x[4].get(q, 0) for q in drv))
                       if any(q in s for q in drv)][:top],
    }
    return a


def f(x, fmt="{:.0f}"):
    return "n/a" if x is None else fmt.format(x)


def _split(s):
    d = sum(s.get(q, 0) for q in ("driver_rx", "driver_tx", "driver_other"))
    if d >= 0.995 and len(s) == 1:
        return ""
    return " (" + ", ".join(f"{LABEL[q]} {v:.2f}" for q, v in s.items()) + ")"


def markdown(cond, host, rows, errs):
    o = ["# Instructions per packet (make profile, cxprof)\n"]
    o.append(f"Stock kernel {cond['kernel']}, {cond['vcpus']} vCPUs, QEMU TCG single-threaded "
             f"with the cxprof plugin{', -icount ' + host['icount'] if host.get('icount') else ''}; "
             f"host {host.get('host')} (load at start {host.get('host_loadavg_start')}), "
             f"commit {host.get('git_commit', '')[:12]}{' (dirty)' if host.get('git_dirty') else ''}, "
             f"{host.get('date_utc')}. Window {cond['duration_s']} s (guest clock) after "
             f"{cond['warm_s']} s of warm-up, {cond['reps']} run(s) each.\n")
    o.append("Guest instructions executed in the window per packet, by part "
             "(Documentation/testing.rst, \"The instrument\"): driver TX per frame sent, "
             "the others per frame received (both ports). Driver parts include the kernel "
             "services called for them (DMA API, page_pool, page allocator, skb building); "
             "svc: how much of the driver's figure those are.\n")
    o.append("| workload | layout | rep | frames rx | " + " | ".join(LABEL[p] for p in PARTS)
             + " | driver (svc) | all |")
    o.append("|---|---|---:|---:|" + "---:|" * (len(PARTS) + 2))
    for a in rows:
        svc = sum(a["services_insns"][p] for p in ("driver_rx", "driver_tx", "driver_other"))
        o.append(f"| {WL.get(a['workload'], a['workload'])} | {a['layout']} | {a['rep'] + 1} | "
                 f"{a['rx_packets']} | " + " | ".join(f(a["insns_per_pkt"][p]) for p in PARTS)
                 + f" | {f(a['driver_insns_per_pkt'])} ({f(svc / a['rx_packets'] if a['rx_packets'] else None)})"
                 + f" | {f(a['all_insns_per_pkt'])} |")
    o.append("\n## Events per frame received, driver TX per skb\n")
    o.append("Counted as entries of a function: skbs (cxen_start_xmit), NAPI polls "
             "(cxen_napi_poll), channel interrupts (cxen_channel_irq), GRO hand-offs "
             "(napi_gro_receive + napi_gro_frags); driver TX instructions per skb sent.\n")
    o.append("| workload | layout | rep | frames rx | frames tx | skbs/frame tx | polls/frame | "
             "irqs/frame | GRO/frame | driver TX / skb |")
    o.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for a in rows:
        e = a["events"]
        o.append(f"| {WL.get(a['workload'], a['workload'])} | {a['layout']} | {a['rep'] + 1} | "
                 f"{a['rx_packets']} | {a['tx_packets']} | "
                 f"{f(e['skbs'] / a['tx_packets'] if a['tx_packets'] else None, '{:.3f}')} | "
                 f"{f(a['events_per_rx']['polls'], '{:.3f}')} | {f(a['events_per_rx']['irqs'], '{:.3f}')} | "
                 f"{f(a['events_per_rx']['gro'], '{:.3f}')} | {f(a['driver_tx_per_skb'])} |")
    o.append("\n## Memory accesses per packet\n")
    o.append("| workload | layout | rep | " + " | ".join(LABEL[p] for p in PARTS) + " | driver |")
    o.append("|---|---|---:|" + "---:|" * (len(PARTS) + 1))
    for a in rows:
        o.append(f"| {WL.get(a['workload'], a['workload'])} | {a['layout']} | {a['rep'] + 1} | "
                 + " | ".join(f(a["mem_per_pkt"][p]) for p in PARTS)
                 + f" | {f(a['driver_mem_per_pkt'])} |")
    o.append("\n## Rates under the plugin\n")
    o.append("| workload | layout | rep | window s | pps (cxen1 rx) | Mbit/s | insns in window |")
    o.append("|---|---|---:|---:|---:|---:|---:|")
    for a in rows:
        o.append(f"| {WL.get(a['workload'], a['workload'])} | {a['layout']} | {a['rep'] + 1} | "
                 f"{a['window_s']:.2f} | {a['rate_pps']:.0f} | {a['rate_mbps']:.1f} | "
                 f"{a['insns_total']:.3e} |")
    o.append("\n## Driver functions (instructions per packet received)\n")
    o.append("The functions with the most instructions charged to the driver's parts "
             "(own code and services): the instructions charged, and the function's "
             "share in the driver when not all of it.\n")
    for a in rows:
        o.append(f"- {WL.get(a['workload'], a['workload'])}, {a['layout']}, run {a['rep'] + 1}: " +
                 "; ".join(f"`{k}` {v:.1f}" + _split(s) for k, v, m, p, s in a["top_driver"][:14]))
    o.append("\n## All functions (instructions per packet received)\n")
    for a in rows:
        o.append(f"- {WL.get(a['workload'], a['workload'])}, {a['layout']}, run {a['rep'] + 1}: " +
                 "; ".join(f"`{k}` {v:.0f} ({p})" for k, v, m, p, s in a["top"][:14]))
    if errs:
        o.append("\n## Failed runs\n")
        for e in errs:
            o.append(f"- {e['workload']} {e['layout']}: {e['error']}")
    return "\n".join(o) + "\n"


def plot(d, rows):
    dat = os.path.join(d, "profile.dat")
    with open(dat, "w") as fh:
        fh.write("# label " + " ".join(PARTS) + "\n")
        for a in rows:
            lab = a["workload"] + ("" if a["layout"] == "default" else "/" + a["layout"])
            if a["rep"]:
                lab += f"#{a['rep'] + 1}"
            fh.write(f'"{lab}" ' + " ".join("NaN" if a["insns_per_pkt"][p] is None else
                                            f"{a['insns_per_pkt'][p]:.1f}" for p in PARTS) + "\n")
    gp = os.path.join(d, "profile.gp")
    with open(gp, "w") as fh:
        fh.write(f"""set terminal png size 1000,560 noenhanced
set datafile missing 'NaN'
set style data histograms
set style histogram rowstacked
set style fill solid 0.8 border -1
set boxwidth 0.6
set key outside right
set grid ytics
set xtics rotate by -30
set output '{d}/profile.png'
set title 'Guest instructions per packet by part (cxprof)'
set ylabel 'instructions / packet'
plot """ + ", ".join(f"'{dat}' using {i + 2}{':xtic(1)' if i == 0 else ''} title '{LABEL[p]}'"
                     for i, p in enumerate(PARTS)) + "\n")
    try:
        return subprocess.run(["gnuplot", gp]).returncode == 0
    except FileNotFoundError:
        return False


def report(d, moddir=None, top=25):
    host = {}
    if os.path.exists(os.path.join(d, "host.json")):
        with open(os.path.join(d, "host.json")) as fh:
            host = json.load(fh)
    moddir = moddir or host.get("moddir")
    if not moddir:
        raise SystemExit("cxprof_report: no --moddir and none in host.json")
    cond, syms, res, errs, done = load_raw(d)
    if cond is None or syms is None:
        raise SystemExit(f"cxprof_report: {d}/raw.txt lacks PROFILE-COND or PROFILE-SYMS")
    wins, exit_line = load_plugin(os.path.join(d, "cxprof.out"))
    sym = Symbols(syms, moddir)
    files = profile_funcs.file_of(moddir, ".")
    drv_part = {fn: "rx" if st in profile_funcs.RX_FILES else
                "tx" if st in profile_funcs.TX_FILES else "other" for fn, st in files.items()}
    rows = []
    for rec in res:
        w = wins.get(rec["run"]["window"])
        if w is None:
            errs.append({"workload": rec["workload"], "layout": rec["layout"],
                         "error": f"window {rec['run']['window']} not in cxprof.out"})
            continue
        if not rec["run"]["rx_packets"]:
            errs.append({"workload": rec["workload"], "layout": rec["layout"],
                         "error": f"window {rec['run']['window']}: no frame received"})
            continue
        rows.append(analyse(rec, w, sym, drv_part, top))
    md = markdown(cond, host, rows, errs)
    with open(os.path.join(d, "results.md"), "w") as fh:
        fh.write(md)
    with open(os.path.join(d, "results.json"), "w") as fh:
        json.dump({"host": host, "conditions": cond, "done": done, "rows": rows,
                   "errors": errs, "plugin_exit": exit_line}, fh, indent=1)
    if rows:
        plot(d, rows)
    return md, rows, errs, done


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--moddir")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    fail = False
    for d in a.dirs:
        md, rows, errs, done = report(os.path.abspath(d), a.moddir, a.top)
        sys.stdout.write(md)
        if not rows or errs or done is None:
            fail = True
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
