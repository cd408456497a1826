#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The report of `make profile`: tables and plots from a run directory.

    bench/profile_report.py [--tolerance PCT] DIR

Reads DIR/raw.txt (the guest's PROFILE-* lines, bench/profile_guest.py),
DIR/host.json and DIR/funcs.json; writes DIR/results.json, DIR/results.md,
DIR/profile.png and DIR/profile-per-packet.png (gnuplot).

The check: the busy time the trace charges (every part but idle) must
equal /proc/stat's, computed as the window's CPU time minus /proc/stat's
idle (the idle task's own clock; the tick-filled busy columns come late
under TCG, shown beside it). A difference of more than PCT percent of
/proc/stat's busy time (default 15: interrupts on idle vCPUs are busy in
/proc/stat and not seen by the trace; Documentation/testing.rst) fails
the report (exit 1).
"""

import argparse
import json
import os
import subprocess
import sys

CATS = ["driver_rx", "driver_tx", "driver_other", "model", "stack", "rest", "idle"]
LABEL = {"driver_rx": "driver RX", "driver_tx": "driver TX", "driver_other": "driver other",
         "model": "model", "stack": "stack", "rest": "rest", "idle": "idle"}
WL = {"tcp1": "TCP stream, 1 flow", "tcp16": "TCP stream, 16 flows",
      "rr1": "TCP RR, 1 byte", "udp64": "UDP stream, 64 B"}


def load(d):
    cond, res, errs, done = None, [], [], None
    with open(os.path.join(d, "raw.txt")) as f:
        for line in f:
            tag, _, js = line.partition(" ")
            if tag == "PROFILE-COND":
                cond = json.loads(js)
            elif tag == "PROFILE-RESULT":
                res.append(json.loads(js))
            elif tag == "PROFILE-ERROR":
                errs.append(json.loads(js))
            elif tag == "PROFILE-DONE":
                done = json.loads(js)
    return cond, res, errs, done


def analyse(r, ncpu, tol):
    p, t = r["plain"], r["traced"]
    cats = t["cats_s"]
    # The trace's window: between the middles of the markers around the
    # two /proc/stat reads (trace clock).
    w = t["trace_window_s"]
    cpu = ncpu * w
    charged = sum(cats.values())
    busy_tr = charged - cats["idle"]
    busy_st = cpu - t["stat_idle_s"]
    resid = busy_tr - busy_st
    rx, tx = t["rx_packets"], t["tx_packets"]
    drv = cats["driver_rx"] + cats["driver_tx"] + cats["driver_other"]

    def ns(s, n):
        return s * 1e9 / n if n else None
    a = {
        "workload": r["workload"], "layout": r["layout"], "rep": r["rep"],
        "window_s": t["window_s"], "trace_window_s": w,
        "stat_read_ms": [x * 1e3 for x in t["stat_read_s"]],
        "share_pct": {c: 100.0 * cats[c] / cpu for c in CATS},
        "busy_share_pct": {c: 100.0 * cats[c] / busy_tr if busy_tr else None
                           for c in CATS if c != "idle"},
        "charged_pct": 100.0 * charged / cpu,
        "busy_trace_s": busy_tr, "busy_stat_s": busy_st,
        "busy_tick_s": t["stat_tick_busy_s"],
        "idle_trace_s": cats["idle"], "idle_stat_s": t["stat_idle_s"],
        "residual_s": resid,
        "residual_pct_of_busy": 100.0 * resid / busy_st if busy_st else None,
        "rx_packets": rx, "tx_packets": tx,
        "driver_rx_ns_per_rx_pkt": ns(cats["driver_rx"], rx),
        "driver_tx_ns_per_tx_pkt": ns(cats["driver_tx"], tx),
        "driver_other_ns_per_pkt": ns(cats["driver_other"], rx + tx),
        "driver_ns_per_pkt": ns(drv, rx + tx),
        "model_ns_per_frame": ns(cats["model"], tx),
        "stack_ns_per_pkt": ns(cats["stack"], rx + tx),
        "plain_pps": p["rate_pps"], "traced_pps": t["rate_pps"],
        "plain_mbps": p["rate_mbps"], "traced_mbps": t["rate_mbps"],
        "overhead_ratio": t["rate_pps"] / p["rate_pps"] if p["rate_pps"] else None,
        # Busy CPU per packet received, with the tracer over without.
        "cpu_per_pkt_ratio": ((busy_st / t["dev"]["cxen1"][1]) /
                              (p["stat_busy_s"] / p["dev"]["cxen1"][1])
                              if t["dev"]["cxen1"][1] and p["dev"]["cxen1"][1]
                              and p["stat_busy_s"] else None),
        "plain_busy_pct": 100.0 * p["stat_busy_s"] / (ncpu * p["window_s"]),
        "traced_busy_pct": 100.0 * busy_st / cpu,
        "unmatched_returns": t["unmatched_returns"], "unparsed": t["unparsed"],
        "trace_lines": t["lines"], "walk_s": t["walk_s"],
        "top_self": [(k, v * 1e9 / (rx + tx) if rx + tx else None, t["calls"].get(k))
                     for k, v in list(t["self_s"].items())[:12]],
    }
    a["ok"] = (a["residual_pct_of_busy"] is not None and abs(a["residual_pct_of_busy"]) <= tol
               and abs(a["charged_pct"] - 100.0) <= tol)
    return a


def f(x, fmt="{:.1f}"):
    return "n/a" if x is None else fmt.format(x)


def markdown(host, cond, rows, errs, tol):
    o = []
    o.append("# Where the CPU goes (make profile)\n")
    o.append(f"Stock kernel {cond['kernel']}, {cond['vcpus']} vCPUs, QEMU {cond.get('accel')}; "
             f"host {host.get('host')} ({host.get('host_cpus')} CPUs, load at start "
             f"{host.get('host_loadavg_start')}), commit {host.get('git_commit', '')[:12]}"
             f"{' (dirty)' if host.get('git_dirty') else ''}, {host.get('date_utc')}. "
             f"Window {cond['duration_s']} s after {cond['warm_s']} s of warm-up, "
             f"{cond['reps']} run(s) each; {cond['traced_functions']} functions traced "
             f"(function_graph, trace clock {cond['trace_clock']}).\n")
    o.append("## CPU time by part (traced run)\n")
    o.append("Percent of the window's CPU time (vCPUs x seconds). Driver: cxen.ko "
             "(RX: the RX kinds and en_rx.c, en_frag.c; TX: en_tx.c; other: interrupt, NAPI, CQ), with "
             "the kernel services it calls (DMA API, page_pool, page allocator); model: "
             "cxsim.ko; stack: net/ (from the socket calls, the softirqs and every net/ "
             "function the modules call); rest: any other busy time (scheduler, system "
             "call entry, user space, workqueue core).\n")
    o.append("| workload | layout | " + " | ".join(LABEL[c] for c in CATS)
             + " | not seen | busy /proc/stat | residual |")
    o.append("|---|---|" + "---:|" * (len(CATS) + 3))
    for a in rows:
        o.append(f"| {WL[a['workload']]} | {a['layout']} | "
                 + " | ".join(f(a["share_pct"][c]) for c in CATS)
                 + f" | {f(-100.0 * a['residual_s'] / (a['busy_stat_s'] + a['idle_stat_s']))}"
                 + f" | {f(a['traced_busy_pct'])} | {f(a['residual_pct_of_busy'], '{:+.1f}')}% |")
    o.append("\nnot seen: busy in /proc/stat, idle in the trace (interrupts taken by an "
             "idle vCPU: interrupt entry is not traced), in % of the window; the parts "
             "but idle, plus it, make /proc/stat's busy. residual: (busy time charged "
             "by the trace - /proc/stat busy time) / /proc/stat busy time; the run "
             f"fails beyond +-{tol}%.\n")
    o.append("## Per packet (traced run)\n")
    o.append("ns of CPU per packet: driver RX per packet received by a cxen port, "
             "driver TX per packet sent, driver other and stack per packet either way, "
             "model per frame moved (packets sent).\n")
    o.append("| workload | layout | RX packets | TX packets | driver RX ns/pkt | "
             "driver TX ns/pkt | driver other ns/pkt | driver ns/pkt | model ns/frame | stack ns/pkt |")
    o.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for a in rows:
        o.append(f"| {WL[a['workload']]} | {a['layout']} | {a['rx_packets']} | {a['tx_packets']} | "
                 f"{f(a['driver_rx_ns_per_rx_pkt'], '{:.0f}')} | "
                 f"{f(a['driver_tx_ns_per_tx_pkt'], '{:.0f}')} | "
                 f"{f(a['driver_other_ns_per_pkt'], '{:.0f}')} | "
                 f"{f(a['driver_ns_per_pkt'], '{:.0f}')} | "
                 f"{f(a['model_ns_per_frame'], '{:.0f}')} | {f(a['stack_ns_per_pkt'], '{:.0f}')} |")
    o.append("\n## The check and the tracer's cost\n")
    o.append("Seconds of CPU in the window. /proc/stat busy = window x vCPUs - idle "
             "(idle from the idle task's clock); tick busy = the user+system+softirq... "
             "columns, filled by the timer tick (late under TCG when busy). Rate: "
             "packets/s received by cxen1, without the tracer (plain) and with it, "
             "run one after the other; traced/plain is the tracer's cost in rate, "
             "CPU/pkt traced/plain in busy CPU per packet received (both include "
             "whatever the host's load did between the two runs).\n")
    o.append("| workload | layout | window s | idle trace | idle /proc/stat | busy trace | "
             "busy /proc/stat | busy tick | plain pps | traced pps | traced/plain | "
             "CPU/pkt traced/plain | plain Mbit/s | busy % plain | busy % traced | trace lines | unmatched returns |")
    o.append("|---|---|" + "---:|" * 15)
    for a in rows:
        o.append(f"| {WL[a['workload']]} | {a['layout']} | {a['trace_window_s']:.2f} | "
                 f"{a['idle_trace_s']:.2f} | {a['idle_stat_s']:.2f} | {a['busy_trace_s']:.2f} | "
                 f"{a['busy_stat_s']:.2f} | {a['busy_tick_s']:.2f} | {a['plain_pps']:.0f} | "
                 f"{a['traced_pps']:.0f} | {f(a['overhead_ratio'], '{:.2f}')} | "
                 f"{f(a['cpu_per_pkt_ratio'], '{:.2f}')} | "
                 f"{a['plain_mbps']:.1f} | {a['plain_busy_pct']:.0f} | {a['traced_busy_pct']:.0f} | "
                 f"{a['trace_lines']} | {a['unmatched_returns']} |")
    o.append("\n## Top functions by own time (traced run)\n")
    o.append("Own time of a traced function (what it runs and calls untraced, and "
             "the tracer's own cost around each traced function it calls), ns per "
             "packet (RX + TX), and its calls in the whole trace.\n")
    for a in rows:
        o.append(f"- {WL[a['workload']]}, {a['layout']}: " + "; ".join(
            f"`{k}` {f(v, '{:.0f}')} ({c})" for k, v, c in a["top_self"][:8]))
    if errs:
        o.append("\n## Failed runs\n")
        for e in errs:
            o.append(f"- {e['workload']} {e['layout']}: {e['error']}")
    bad = [a for a in rows if not a["ok"]]
    o.append("")
    o.append("Check: " + ("all runs within tolerance." if not bad else
                          "FAILED for " + ", ".join(f"{a['workload']}/{a['layout']}" for a in bad)
                          + "."))
    return "\n".join(o) + "\n"


def plots(d, rows):
    dat = os.path.join(d, "profile.dat")
    with open(dat, "w") as fh:
        fh.write("# label " + " ".join(CATS) + " drv_rx_ns drv_tx_ns model_ns stack_ns\n")
        for a in rows:
            lab = f"{a['workload']}" + ("" if a["layout"] == "default" else f"/{a['layout']}")
            vals = [a["share_pct"][c] for c in CATS] + [
                a["driver_rx_ns_per_rx_pkt"], a["driver_tx_ns_per_tx_pkt"],
                a["model_ns_per_frame"], a["stack_ns_per_pkt"]]
            fh.write(f'"{lab}" ' + " ".join("NaN" if v is None else f"{v:.3f}" for v in vals) + "\n")
    gp = os.path.join(d, "profile.gp")
    with open(gp, "w") as fh:
        fh.write(f"""set terminal png size 1000,560 noenhanced
set datafile missing 'NaN'
set style data histograms
set style fill solid 0.8 border -1
set key outside right
set grid ytics
set output '{d}/profile.png'
set title 'Where the CPU goes (share of the window, function_graph attribution)'
set ylabel '% of vCPU time'
set yrange [0:105]
set style histogram rowstacked
set boxwidth 0.6
plot """ + ", ".join(f"'{dat}' using {i + 2}{':xtic(1)' if i == 0 else ''} title '{LABEL[c]}'"
                     for i, c in enumerate(CATS)) + f"""
set output '{d}/profile-per-packet.png'
set title 'CPU per packet (log scale)'
set ylabel 'ns'
set logscale y
set yrange [100:*]
set style histogram clustered gap 1
set boxwidth 0.9
plot '{dat}' using 9:xtic(1) title 'driver RX / RX pkt', '' using 10 title 'driver TX / TX pkt', \\
     '' using 11 title 'model / frame', '' using 12 title 'stack / pkt'
""")
    try:
        rc = subprocess.run(["gnuplot", gp]).returncode
    except FileNotFoundError:
        print("profile: no gnuplot: no plots (apt-get install gnuplot-nox)", file=sys.stderr)
        return False
    if rc:
        print(f"profile: gnuplot failed ({gp} kept)", file=sys.stderr)
        return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tolerance", type=float, default=15.0)
    ap.add_argument("dir")
    a = ap.parse_args()
    d = os.path.abspath(a.dir)
    with open(os.path.join(d, "host.json")) as fh:
        host = json.load(fh)
    cond, res, errs, done = load(d)
    if cond is None:
        raise SystemExit(f"profile: no PROFILE-COND in {d}/raw.txt: the guest did not start")
    rows = [analyse(r, cond["vcpus"], a.tolerance) for r in res]
    md = markdown(host, cond, rows, errs, a.tolerance)
    with open(os.path.join(d, "results.md"), "w") as fh:
        fh.write(md)
    with open(os.path.join(d, "results.json"), "w") as fh:
        json.dump({"host": host, "conditions": cond, "done": done, "rows": rows,
                   "errors": errs, "tolerance_pct": a.tolerance}, fh, indent=1)
    ok = plots(d, rows) if rows else False
    sys.stdout.write(md)
    fail = False
    for r in rows:
        if not r["ok"]:
            print(f"profile: {r['workload']}/{r['layout']}: the trace charges "
                  f"{r['busy_trace_s']:.3f} s busy, /proc/stat says {r['busy_stat_s']:.3f} s "
                  f"({r['residual_pct_of_busy']:+.1f}%, tolerance {a.tolerance}%), "
                  f"{r['charged_pct']:.1f}% of the window charged", file=sys.stderr)
            fail = True
    if not rows or errs or done is None or not ok:
        fail = True
    sys.exit(1 if fail else 0)


if __name__ == "__main__":
    main()
