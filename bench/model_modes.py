#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The model's cost, side by side with veth in one VM (make bench,
platform model): issue 18's goals.

    bench/model_modes.py [--reps N] [--secs S] [--modes work,fast-0,work-lro,...]
                         [--quick]
    (on the host it boots the stock kernel with the cabled pair and runs
    itself inside: tests/vm/run --pair -- bench/model_modes.py ...)

The model's two datapaths, switched at run time through cxsim's module
parameters (Documentation/hw-interface.rst, "Model execution"):

  work    db_inline=0 irq_direct=0 (the default): every SQ doorbell runs
          in the SQ's work item, every moderated interrupt is raised from
          the CQ's work item
  inline  db_inline=1 irq_direct=0: an idle SQ runs in the
          doorbell writer's context (an LSO WQE is left to the work),
          moderated interrupts still come from the CQ's work item
  fast    db_inline=1 irq_direct=1: that, and interrupts come from the
          CQ's hrtimer, in its hard interrupt

and the same with the ports' interrupt moderation changed (ethtool -C on
both cxen ports; the other modes keep what the ports had at the start,
the driver's defaults unless changed):

  work-dim, fast-dim  adaptive-rx and adaptive-tx on (net_dim picks
          rx/tx-usecs from the traffic, as mlx5 does by default)
  work-0, fast-0      rx-usecs 0, tx-usecs 0: every CQE interrupts at
          once (no moderation timer at all)
  fast-rx0  rx-usecs 0 only: a frame received interrupts at once, the
          send completions wait for their moderation period (or for the
          NAPI poll a received frame brings, which reaps both CQs)

and any of these with "-lro" (work-lro, fast-0-lro, ...): LRO on at both
cxen ports (ethtool -K lro on; the driver runs the striding RQ and the
device merges a flow's TCP segments, Documentation/hw-interface.rst
"Large receive offload"); the others run with LRO off, the default;

and two veth pairs in the same VM:

  veth      as created: TSO on, so a TCP stream crosses the pair as 64 KB
            GSO packets, no segmentation and no GRO on the way
  veth-seg  TSO off and GRO on (NAPI) at both ends: the stack segments
            each GSO packet into MTU-sized frames before the pair and GRO
            merges them after it, the per-frame work a NIC's path has
            outside its driver and device (issue 18's stream goals are
            ratios to veth; this says how much of the gap is per-frame
            work any NIC pays)

Per repetition, each mode and both veth pairs in turn (interleaved), the
driver's defaults otherwise (the automatic layout: pagepool at MTU 1500,
striding with LRO; 1 channel, rx-usecs/tx-usecs 16). Default modes:
work, fast-0, work-lro, fast-0-lro:

  tcp1, tcp16  TCP stream (iperf3), 1 and 16 flows, MTU 1500: Mbit/s and
               the VM's CPU per KB received (/proc/stat: busy = window x
               CPUs - idle, both ends and the model together)
  tcp_rr, udp_rr  1-byte request/response (bench/rr): transactions/s
               (counted), p50 latency, and the VM's busy CPU per
               transaction (/proc/stat, both ends and the model: near the
               latency when the round trip is CPU-bound)

and, for cxen, the model's SQ runs per packet sent (inline, work) and
the interrupts per packet. Printed: one line per measurement, then a
table of min / median / max per mode, each median's ratio to veth's and
to veth-seg's, then "# json {...}" with every figure.
"""
import argparse
import json
import os
import statistics
import subprocess
import time

import pairlib
from pairlib import ns

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RR = os.environ.get("CXEN_BENCH_RR", os.path.join(ROOT, "build", "bench", "rr"))
PARAMS = "/sys/module/cxsim/parameters"
# mode: (db_inline, irq_direct, ethtool -C arguments or None: as at start)
MODES = {"work": ("N", "N", None), "inline": ("Y", "N", None),
         "fast": ("Y", "Y", None),
         "work-dim": ("N", "N", ["adaptive-rx", "on", "adaptive-tx", "on"]),
         "fast-dim": ("Y", "Y", ["adaptive-rx", "on", "adaptive-tx", "on"]),
         "work-0": ("N", "N", ["adaptive-rx", "off", "adaptive-tx", "off",
                               "rx-usecs", "0", "tx-usecs", "0"]),
         "fast-0": ("Y", "Y", ["adaptive-rx", "off", "adaptive-tx", "off",
                               "rx-usecs", "0", "tx-usecs", "0"]),
         "fast-rx0": ("Y", "Y", ["adaptive-rx", "off", "rx-usecs", "0"])}
# The same with LRO on at both ports (ethtool -K lro on: the striding RQ,
# the device merging TCP segments): "work-lro", "fast-0-lro", ...
LRO_SUFFIX = "-lro"
PORTS = (("cx0", "cxen0"), ("cx1", "cxen1"))
ENDS = {"cxen": ("cx0", "cx1", "192.0.2.2"),
        "veth": ("vx0", "vx1", "198.51.100.2"),
        "veth-seg": ("sx0", "sx1", "203.0.113.2")}
VETHS = ["veth", "veth-seg"]
# What a variant's medians are divided by: cxen's by both pairs'.
BASES = {"veth": [], "veth-seg": ["veth"]}
WORKLOADS = ["tcp1", "tcp16", "tcp_rr", "udp_rr"]
SQ_COLS = ["inline_runs", "work_runs", "parked"]


def coalescing():
    """The ethtool -C arguments that restore the ports' moderation now."""
    want = {"rx-usecs:": "rx-usecs", "rx-frames:": "rx-frames",
            "tx-usecs:": "tx-usecs", "tx-frames:": "tx-frames"}
    args = []
    for ln in ns("cx1", "ethtool", "-c", "cxen1").splitlines():
        w = ln.split()
        if ln.startswith("Adaptive RX:"):
            # "Adaptive RX: off  TX: off"
            args += ["adaptive-rx", w[2], "adaptive-tx", w[4]]
        elif len(w) > 1 and w[0] in want and w[1].isdigit():
            args += [want[w[0]], w[1]]
    return args


def set_coalescing(args):
    for n, d in PORTS:
        # ethtool -C exits 80 when nothing changed: not an error here.
        r = subprocess.run(["ip", "netns", "exec", n, "ethtool", "-C", d] + args,
                           capture_output=True, text=True, check=False)
        if r.returncode not in (0, 80):
            raise SystemExit(f"model_modes: ethtool -C {d} {' '.join(args)}: {r.stderr}")


def mode_of(mode):
    """(db_inline, irq_direct, ethtool -C arguments, LRO) of a mode name."""
    lro = mode.endswith(LRO_SUFFIX)
    base = mode[:-len(LRO_SUFFIX)] if lro else mode
    if base not in MODES:
        raise SystemExit(f"model_modes: no mode {mode} (one of {list(MODES)}, "
                         f"each also with {LRO_SUFFIX})")
    return MODES[base] + (lro,)


def set_lro(on):
    want = "on" if on else "off"
    for n, d in PORTS:
        r = subprocess.run(["ip", "netns", "exec", n, "ethtool", "-K", d, "lro", want],
                           capture_output=True, text=True, check=False)
        got = ns(n, "ethtool", "-k", d)
        if f"large-receive-offload: {want}" not in got:
            raise SystemExit(f"model_modes: ethtool -K {d} lro {want}: {r.stderr}")


def set_mode(mode, start_coal):
    inline, direct, coal, lro = mode_of(mode)
    set_lro(lro)
    for name, val in (("db_inline", inline), ("irq_direct", direct)):
        with open(f"{PARAMS}/{name}", "w") as f:
            f.write(val)
        with open(f"{PARAMS}/{name}") as f:
            if f.read().strip() != val:
                raise SystemExit(f"model_modes: cxsim.{name} is not {val}")
    # The ports' moderation at the start, then the mode's changes to it.
    set_coalescing(start_coal)
    if coal is not None:
        set_coalescing(coal)


def veth_setup(end):
    n0, n1, addr1 = ENDS[end]
    prefix = addr1.rsplit(".", 1)[0]
    for n in (n0, n1):
        pairlib.sh("ip", "netns", "add", n)
    pairlib.sh("ip", "-n", n0, "link", "add", "veth0", "type", "veth",
               "peer", "name", "veth1", "netns", n1)
    for n, dev, addr in ((n0, "veth0", f"{prefix}.1/24"),
                         (n1, "veth1", f"{prefix}.2/24")):
        pairlib.sh("ip", "-n", n, "addr", "add", addr, "dev", dev)
        pairlib.sh("ip", "-n", n, "link", "set", dev, "up")
        pairlib.sh("ip", "-n", n, "link", "set", "lo", "up")
        if end != "veth-seg":
            continue
        ns(n, "ethtool", "-K", dev, "tso", "off", "gro", "on")
        feat = ns(n, "ethtool", "-k", dev)
        for want in ("tcp-segmentation-offload: off",
                     "generic-receive-offload: on"):
            if want not in feat:
                raise SystemExit(f"model_modes: {dev} in {n}: not {want}")


def cpu_ticks():
    """(busy, total) jiffies of the whole VM; busy = total - idle - iowait."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    total = sum(v[:8])
    return total - v[3] - v[4], total


def sq_counters():
    """The model's SQ counters (debugfs cxsim/sqs, by header), summed."""
    with open("/sys/kernel/debug/cxsim/sqs") as f:
        lines = f.read().splitlines()
    head = lines[0].split()
    out = dict.fromkeys(SQ_COLS, 0)
    for ln in lines[1:]:
        v = ln.split()
        for c in SQ_COLS:
            out[c] += int(v[head.index(c)])
    return out


def irq_count():
    n = 0
    with open("/proc/interrupts") as f:
        for ln in f:
            if "cxsim" in ln:
                n += sum(int(x) for x in ln.split()[1:] if x.isdigit())
    return n


def tx_packets():
    return sum(int(pairlib.stats(n, d, ["tx_packets"])["tx_packets"])
               for n, d in (("cx0", "cxen0"), ("cx1", "cxen1")))


def stream(end, flows, secs):
    cns, _, addr = ENDS[end]
    b0, t0 = cpu_ticks()
    out = ns(cns, "iperf3", "-c", addr, "-t", str(secs), "-O", "1",
             "-P", str(flows), "-J")
    b1, t1 = cpu_ticks()
    j = json.loads(out)
    rcv = j["end"]["sum_received"]
    kb = rcv["bytes"] / 1024
    # Busy seconds over the whole run (omitted second included) per KB
    # of the counted window, scaled to the window: the omitted second is
    # 1 of secs + 1.
    busy_s = (b1 - b0) / os.sysconf("SC_CLK_TCK") * secs / (secs + 1)
    return {"mbps": rcv["bits_per_second"] / 1e6,
            "cpu_us_per_kb": busy_s * 1e6 / kb if kb else None}


def rr(end, udp, secs):
    cns, _, addr = ENDS[end]
    argv = [RR, "-c", addr, "-p", "7778" if udp else "7777", "-l", "1",
            "-t", str(secs), "-w", "0.5"]
    if udp:
        argv.insert(1, "-u")
    j = json.loads(ns(cns, *argv))
    # The whole VM's busy CPU per transaction, both ends included.
    cpu = j["cpu_busy_ticks"] / j["clk_tck"] * 1e6 / j["transactions"]
    return {"tps": j["tps"], "p50_us": j["p50_us"], "cpu_us_per_t": round(cpu, 1),
            "timeouts": j["timeouts"]}


def measure(end, wl, secs):
    if wl == "tcp1":
        return stream(end, 1, secs)
    if wl == "tcp16":
        return stream(end, 16, secs)
    return rr(end, wl == "udp_rr", secs)


def servers():
    procs = []
    for end in ENDS.values():
        procs.append(subprocess.Popen(["ip", "netns", "exec", end[1], "iperf3",
                                       "-s", "-B", end[2]],
                                      stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL))
        for udp in (False, True):
            argv = ["ip", "netns", "exec", end[1], RR, "-s", "-b", end[2],
                    "-p", "7778" if udp else "7777"]
            if udp:
                argv.insert(5, "-u")
            procs.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL,
                                          stderr=subprocess.DEVNULL))
    time.sleep(1)
    return procs


MAIN = {"tcp1": "mbps", "tcp16": "mbps", "tcp_rr": "tps", "udp_rr": "tps"}


def fmt3(vals, f):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "-"
    lo, med, hi = min(vals), statistics.median(vals), max(vals)
    return f"{f.format(lo)}/{f.format(med)}/{f.format(hi)}"


def table(rows, modes):
    variants = modes + VETHS
    med = {}
    for r in rows:
        med.setdefault((r["variant"], r["workload"]), []).append(r)
    out = ["", "min/median/max of the repetitions; (xR, xS): the median over "
           "veth's median and over veth-seg's, same row", ""]
    head = ["workload", "figure"] + variants
    lines = [head, ["---"] * len(head)]
    for wl in WORKLOADS:
        figs = [(MAIN[wl], "{:.0f}")]
        if wl.startswith("tcp1"):
            figs.append(("cpu_us_per_kb", "{:.1f}"))
        else:
            figs += [("p50_us", "{:.0f}"), ("cpu_us_per_t", "{:.0f}")]
        if wl == "tcp16":
            figs = [("mbps", "{:.0f}"), ("cpu_us_per_kb", "{:.1f}")]
        figs += [("inline_per_pkt", "{:.2f}"), ("work_per_pkt", "{:.2f}"),
                 ("irqs_per_pkt", "{:.2f}")]
        for key, f in figs:
            cells = [wl, key]
            vmed = {}
            for b in VETHS:
                rs = med.get((b, wl), [])
                if rs and all(r.get(key) is not None for r in rs):
                    vmed[b] = statistics.median(r[key] for r in rs)
            for v in variants:
                rs = med.get((v, wl), [])
                vals = [r.get(key) for r in rs]
                cell = fmt3(vals, f)
                real = [x for x in vals if x is not None]
                ratios = [f"x{statistics.median(real) / vmed[b]:.2f}"
                          for b in BASES.get(v, VETHS) if real and vmed.get(b)]
                if ratios:
                    cell += f" ({', '.join(ratios)})"
                cells.append(cell)
            if all(c == "-" for c in cells[2:]):
                continue
            lines.append(cells)
    out += ["| " + " | ".join(ln) + " |" for ln in lines]
    return "\n".join(out)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--secs", type=float, default=4)
    ap.add_argument("--modes", default="work,fast-0,work-lro,fast-0-lro",
                    help=f"comma-separated, of: {', '.join(MODES)}, each "
                    f"also with {LRO_SUFFIX}")
    ap.add_argument("--quick", action="store_true",
                    help="one repetition, 2 s windows")
    args = ap.parse_args()
    if args.quick:
        args.reps, args.secs = 1, 2
    modes = args.modes.split(",")
    for m in modes:
        mode_of(m)

    pairlib.in_vm("bench/model_modes.py")
    if not os.access(RR, os.X_OK):
        raise SystemExit(f"model_modes: {RR} missing: bench/run builds it on the host")
    with open(f"{PARAMS}/db_inline") as f, open(f"{PARAMS}/irq_direct") as g:
        default = f"db_inline={f.read().strip()} irq_direct={g.read().strip()}"
    for b in VETHS:
        veth_setup(b)
    procs = servers()
    start_coal = coalescing()
    coal = " ".join(start_coal)
    print(f"# {args.secs:g} s windows, {args.reps} repetitions, kernel "
          f"{os.uname().release}, cxsim loaded with {default}; cxen1: {coal}",
          flush=True)
    rows = []
    try:
        for rep in range(args.reps):
            for wl in WORKLOADS:
                for v in modes + VETHS:
                    end = v if v in VETHS else "cxen"
                    if v not in VETHS:
                        set_mode(v, start_coal)
                        c0, i0, p0 = sq_counters(), irq_count(), tx_packets()
                    r = measure(end, wl, args.secs)
                    if v not in VETHS:
                        c1, i1, p1 = sq_counters(), irq_count(), tx_packets()
                        pk = max(p1 - p0, 1)
                        r["inline_per_pkt"] = (c1["inline_runs"] - c0["inline_runs"]) / pk
                        r["work_per_pkt"] = (c1["work_runs"] - c0["work_runs"]) / pk
                        r["irqs_per_pkt"] = (i1 - i0) / pk
                        r["parked"] = c1["parked"] - c0["parked"]
                    r.update(variant=v, workload=wl, rep=rep)
                    rows.append(r)
                    print(f"rep {rep} {wl:7} {v:8} " +
                          " ".join(f"{k}={r[k]:.2f}" for k in sorted(r)
                                   if isinstance(r[k], float)), flush=True)
    finally:
        for p in procs:
            p.terminate()
        for m, (i, d, c) in MODES.items():
            if c is None and default == f"db_inline={i} irq_direct={d}":
                set_mode(m, start_coal)
                break
        set_lro(False)
    print(table(rows, modes), flush=True)
    print("# json " + json.dumps({"secs": args.secs, "reps": args.reps,
                                  "kernel": os.uname().release,
                                  "cxsim": default, "rows": rows}))


if __name__ == "__main__":
    main()
