#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Where a module function's instructions go, by source line (make profile).

    bench/cxprof_lines.py [--moddir DIR] [--workload W] [--top N] RUNDIR FUNC...

For each FUNC of cxen.ko or cxsim.ko (its name as in the report, e.g.
cxen_poll_rx), every guest instruction the plugin counted in it during
WORKLOAD's window (default: the first workload of RUNDIR) is charged to
the source line the module's debug information gives its address
(inlined code to the line it was inlined from, innermost first), per
frame received. Blocks are counted exactly (cxprof.out: executions and instructions per
translated block); the instructions of a block are read back from the
module with objdump. Prints the top N lines (default 25) per function
and the function's total, which matches the report's own-code figure.
"""

import argparse
import collections
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import cxprof_report as r  # noqa: E402


def insn_addrs(ko, lo, hi):
    """Instruction addresses in KO's .text between section offsets LO and HI."""
    out = subprocess.run(["objdump", "-d", "-j", ".text", f"--start-address={lo:#x}",
                          f"--stop-address={hi:#x}", ko], check=True,
                         capture_output=True, text=True).stdout
    return [int(m.group(1), 16) for m in re.finditer(r"^\s*([0-9a-f]+):\t[^\t\n]*\t", out, re.M)]


def lines_of(ko, addrs):
    """{address: "file:line (inlined in ...)"} from addr2line -i."""
    if not addrs:
        return {}
    p = subprocess.run(["addr2line", "-i", "-f", "-a", "-j", ".text", "-e", ko]
                       + [f"{a:#x}" for a in addrs], check=True, capture_output=True,
                       text=True).stdout.splitlines()
    res, cur, chain = {}, None, []
    i = 0
    while i < len(p):
        if p[i].startswith("0x"):
            if cur is not None:
                res[cur] = chain
            cur, chain = int(p[i], 16), []
            i += 1
            continue
        fn, loc = p[i], p[i + 1] if i + 1 < len(p) else "?"
        chain.append(f"{os.path.basename(loc.split(' ')[0])} {fn}")
        i += 2
    if cur is not None:
        res[cur] = chain
    return {a: (c[0] + (f"  <- {c[-1]}" if len(c) > 1 else "")) if c else "?"
            for a, c in res.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--moddir")
    ap.add_argument("--workload")
    ap.add_argument("--top", type=int, default=25)
    ap.add_argument("--asm", action="store_true",
                    help="print the function's instructions with their executions per frame")
    ap.add_argument("rundir")
    ap.add_argument("funcs", nargs="+")
    a = ap.parse_args()
    import json
    host = json.load(open(os.path.join(a.rundir, "host.json")))
    moddir = a.moddir or host["moddir"]
    cond, syms, res, errs, done = r.load_raw(a.rundir)
    sym = r.Symbols(syms, moddir)
    wins, _ = r.load_plugin(os.path.join(a.rundir, "cxprof.out"))
    rec = next((x for x in res if not a.workload or x["workload"] == a.workload), None)
    if rec is None:
        raise SystemExit(f"cxprof_lines: no workload {a.workload} in {a.rundir}")
    run = rec["run"]
    tbs = wins[run["window"]]["tbs"]
    rx = run["rx_packets"]
    print(f"{rec['workload']} {rec['layout']}: {rx} frames received in the window")
    for func in a.funcs:
        mod = "cxsim" if func.startswith("cxsim") else "cxen"
        ko = os.path.join(moddir, "cxen.ko" if mod == "cxen" else "sim/cxsim.ko")
        base = int(syms["sections"][mod][".text"], 16)
        per_line, total, per_insn = collections.Counter(), 0, collections.Counter()
        for (s, ex, ins, mem, end, lb) in tbs:
            k, name, m = sym.func(s)
            if name != func or m != mod:
                continue
            size = ins // ex if ex else 0
            addrs = insn_addrs(ko, s - base, end - base + 1)
            if len(addrs) != size:
                # The block's size in the module differs (patched code):
                # charge it whole to its first instruction's line.
                addrs = addrs[:1] * size if addrs else []
            loc = lines_of(ko, sorted(set(addrs)))
            for ad in addrs:
                per_line[loc.get(ad, "?")] += ex
                per_insn[ad] += ex
            total += ins
        print(f"\n{func}: {total / rx:.1f} instructions per frame")
        for line, n in per_line.most_common(a.top):
            print(f"  {n / rx:7.1f}  {line}")
        if a.asm and per_insn:
            lo, hi = min(per_insn), max(per_insn) + 16
            out = subprocess.run(["objdump", "-d", "--no-show-raw-insn", "-j", ".text",
                                  f"--start-address={lo:#x}", f"--stop-address={hi:#x}", ko],
                                 check=True, capture_output=True, text=True).stdout
            for ln in out.splitlines():
                m = re.match(r"^\s*([0-9a-f]+):\t(.*)", ln)
                if m and per_insn.get(int(m.group(1), 16)):
                    print(f"  {per_insn[int(m.group(1), 16)] / rx:5.2f}  {m.group(1)}  {m.group(2)}")


if __name__ == "__main__":
    main()
