#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/report.py: the tables and plots of `make bench`, and the check of
README's benchmark figures.

    bench/report.py DIR [--total-seconds N]
        DIR holds the raw guest output (raw-<platform>.txt) and host-*.json
        that bench/run left: writes DIR/results.json, DIR/results.md and
        DIR/*.png. A DIR with results.json and no raw-*.txt (a committed
        run, bench/results/<date>/) is regenerated from its results.json:
        results.md and the plots are rewritten, results.json is not.
    bench/report.py DIR --readme-table
        prints the TCP stream table of README's Benchmarks section for DIR.
    bench/report.py --check-readme README.md
        compares every figure of README's Benchmarks section with the
        results.json of the run that section names ("committed in `DIR`"):
        the table cell by cell, each figure of the prose by the claim it
        makes; a figure of that prose no claim covers fails too. The XDP,
        RX layouts and model bullets are checked the same way against the
        "# json" line of the table each names ("its own table `FILE`") in
        the run each quotes ("The committed run (`DIR`, medians of N):"),
        each figure at the precision README rounds it to. Exit 1 on any
        difference.

Every table cell is min / median / max of the repetitions of that row and
variant (one figure when the three agree at the precision shown); ratios
are to the default layout's median of the same row and platform, computed
on the medians.
"""

import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile

# veth-seg: a veth pair with TSO off and GRO on at both ends (the per-frame
# stack work every NIC path pays; the stream and round-trip goals are
# ratios to it); veth: as created (64 KB GSO packets). A run from before
# bench/guest.py measured veth-seg has no veth-seg rows: every table
# leaves out a variant a row does not have.
VETHS = ["veth-seg", "veth"]
VARIANTS = ["default", "legacy2012", "wholepage2012", "onefrag2013"] + VETHS
OTHERS = ["legacy2012", "wholepage2012", "onefrag2013"]
MAIN = {"stream": "mbps", "rr": "tps", "udp": "recv_pps"}
SD = {"stream": "sd_us_per_kb", "rr": "sd_us_per_trans", "udp": "sd_us_per_kb"}
COUNTERS = ["maps_per_pkt", "page_allocs_per_pkt", "pages_recycled_per_pkt",
            "copybreak_per_pkt", "segs_per_gro", "bytes_per_truesize",
            "doorbells_per_pkt", "irqs_per_pkt"]
COUNTER_HEAD = ["maps/pkt", "allocs/pkt", "recycled/pkt", "copybreak/pkt", "segs/GRO",
                "bytes/truesize", "doorbells/pkt", "irqs/pkt"]
# The model's IOMMU (bench/run's iommu platform), one platform per mode.
IOMMU_PLATS = ["iommu-strict", "iommu-strict-dt", "iommu-lazy", "iommu-off"]
IOMMU_COUNTERS = ["iommu_maps_per_pkt", "iommu_invalidations_per_pkt", "iommu_faults"]
IOMMU_HEAD = ["IOMMU maps/pkt", "IOTLB inval/pkt", "IOMMU faults"]
ACCEL = {"tcg": "QEMU TCG", "kvm": "QEMU KVM"}
CELLS = ("Each cell: min / median / max of the `n` repetitions (one figure when "
         "the three agree at the precision shown). `vs default`: this layout's "
         "median over the default layout's median, same row and platform.")


# ---------------------------------------------------------------- input

def load_raw(d):
    conds, results, done, errors = {}, [], {}, []
    for fn in sorted(glob.glob(os.path.join(d, "raw-*.txt"))):
        with open(fn) as fh:
            for line in fh:
                tag, _, rest = line.partition(" ")
                if tag == "BENCH-COND":
                    c = json.loads(rest)
                    conds[c["platform"]] = c
                elif tag == "BENCH-RESULT":
                    results.append(json.loads(rest))
                elif tag == "BENCH-ERROR":
                    errors.append(json.loads(rest))
                elif tag == "BENCH-DONE":
                    x = json.loads(rest)
                    done[x["platform"]] = x["seconds"]
    host = {}
    for fn in sorted(glob.glob(os.path.join(d, "host-*.json"))):
        with open(fn) as fh:
            host[os.path.basename(fn)[5:-5]] = json.load(fh)
    return conds, results, done, host, errors


def load_json(path):
    """The inputs of a report, back from the results.json it wrote."""
    with open(path) as fh:
        doc = json.load(fh)
    c = doc["conditions"]
    conds, done, host = {}, {}, {"start": c.get("host", {})}
    for p, pc in c["platforms"].items():
        conds[p] = {k: v for k, v in pc.items() if k not in ("guest_seconds", "host")}
        if pc.get("guest_seconds") is not None and p not in doc.get("unfinished_platforms", []):
            done[p] = pc["guest_seconds"]
        if pc.get("host") is not None:
            host[p] = pc["host"]
    return conds, doc["raw"], done, host, doc.get("errors", []), c.get("total_seconds")


def accelerator(conds, hs):
    """tcg, kvm, None (not recorded) or "kvm/tcg" (the guest's CXEN_ACCEL,
    what tests/vm/run gave QEMU, and bench/run's own test disagree)."""
    seen = {c.get("accel") for c in conds.values() if c.get("accel")}
    if hs.get("accel"):
        seen.add(hs["accel"])
    return "/".join(sorted(seen)) if seen else None


def accel_label(a):
    if a is None:
        return "QEMU accelerator not recorded"
    return ACCEL.get(a, f"QEMU {a} (bench/run and the guest disagree)")


# ---------------------------------------------------------------- figures

def rowkey(r):
    p = r["params"]
    if r["kind"] == "stream":
        return f"MTU {p['mtu']}, {p['flows']} flow{'s' if p['flows'] > 1 else ''}"
    if r["kind"] == "rr":
        return f"{p['proto'].upper()} {p['size']} B"
    return f"UDP {p['size']} B"


def nums(vals):
    return [v for v in vals if isinstance(v, (int, float)) and not isinstance(v, bool)]


def aggregate(results):
    """rows[(platform, kind, key)] = {"params", "variants": {v: {"median",
    "min", "max", "reps"}}}"""
    rows = {}
    for r in results:
        k = (r["platform"], r["kind"], rowkey(r))
        row = rows.setdefault(k, {"platform": r["platform"], "kind": r["kind"],
                                  "row": k[2], "params": r["params"],
                                  "variants": {}})
        row["variants"].setdefault(r["variant"], []).append(r["result"])
    for row in rows.values():
        agg = {}
        main = MAIN[row["kind"]]
        for v, reps in row["variants"].items():
            keys = [k for k in reps[0] if k != "counters"]
            st = {"median": {}, "min": {}, "max": {}}
            for k in keys:
                xs = nums(x.get(k) for x in reps)
                st["median"][k] = statistics.median(xs) if xs else None
                st["min"][k] = min(xs) if xs else None
                st["max"][k] = max(xs) if xs else None
            st["median"]["reps"] = len(reps)
            st["median"][main + "_all"] = [x.get(main) for x in reps]
            st["reps"] = reps
            agg[v] = st
        base = agg.get("default", {}).get("median", {}).get(main)
        for v, a in agg.items():
            x = a["median"].get(main)
            a["median"]["ratio_to_default"] = x / base if base and x is not None else None
            # Each variant's median over each veth pair's (the goals' ratios:
            # to veth-seg; to veth as before), when the row has that pair.
            for w in VETHS:
                wb = agg.get(w, {}).get("median", {}).get(main)
                if wb is not None:
                    a["median"][vkey(w)] = x / wb if wb and x is not None else None
        row["variants"] = agg
    return rows


def vkey(w):
    """The median's key of the ratio to veth pair W: ratio_to_veth_seg,
    ratio_to_veth."""
    return "ratio_to_" + w.replace("-", "_")


def get(rows, platform, kind, row, variant, key="mbps", which="median"):
    r = rows.get((platform, kind, row))
    if not r or variant not in r["variants"]:
        return None
    return r["variants"][variant][which].get(key)


def ratio(a, b):
    return a / b if a is not None and b else None


def f(x, nd=1):
    if x is None:
        return "-"
    if isinstance(x, float):
        if abs(x) >= 1000:
            return f"{x:.0f}"
        return f"{x:.{nd}f}"
    return str(x)


def mmm(st, key, nd=1):
    """min / median / max of KEY in a variant's statistics."""
    if st["median"].get(key) is None:
        return "-"
    a, b, c = (f(st[w].get(key), nd) for w in ("min", "median", "max"))
    return b if a == b == c else f"{a} / {b} / {c}"


def ordered(rows, platform, kind):
    out = [r for r in rows.values() if r["platform"] == platform and r["kind"] == kind]

    def sk(r):
        p = r["params"]
        return (p.get("proto", ""), p.get("mtu", 0), p.get("flows", 0), p.get("size", 0))
    return sorted(out, key=sk)


# ---------------------------------------------------------------- results.md

def counters_cells(st):
    return [mmm(st, c, 1 if c == "segs_per_gro" else 3) for c in COUNTERS]


def table(head, lines):
    s = "| " + " | ".join(head) + " |\n|" + "|".join("---" for _ in head) + "|\n"
    for ln in lines:
        s += "| " + " | ".join(ln) + " |\n"
    return s


def vs(st):
    return "x" + f(st["median"].get("ratio_to_default"), 2)


def vs_veths(st):
    """This variant's median over veth-seg's and over veth's ("-": the row
    has no such pair, or it is that pair)."""
    return ["-" if st["median"].get(vkey(w)) is None else "x" + f(st["median"][vkey(w)], 2)
            for w in VETHS]


VS_HEAD = "vs default (medians)"
VS_VETH_HEAD = ["vs veth-seg", "vs veth"]


def md_stream(rows, platform):
    out = ""
    iommu = platform in IOMMU_PLATS
    for row in ordered(rows, platform, "stream"):
        out += f"\n**TCP stream, {row['row']}** (64000-byte writes)\n\n"
        lines = []
        for v in VARIANTS:
            if v not in row["variants"]:
                continue
            st = row["variants"][v]
            lines.append([v, str(st["median"]["reps"]), mmm(st, "mbps"), vs(st)]
                         + vs_veths(st)
                         + [mmm(st, "retransmits", 0), mmm(st, "hw_rx_out_of_buffer", 0),
                            mmm(st, "cpu_util_pct"), mmm(st, "sd_us_per_kb", 2),
                            mmm(st, "send_sd_us_per_kb", 2), mmm(st, "recv_sd_us_per_kb", 2)]
                         + counters_cells(st)
                         + ([mmm(st, c, 0 if c == "iommu_faults" else 3)
                             for c in IOMMU_COUNTERS] if iommu else []))
        out += table(["layout", "n", "Mbit/s (min / median / max)", VS_HEAD] + VS_VETH_HEAD
                     + ["retrans", "rx no-buf", "VM CPU %", "SD us/KB", "send SD", "recv SD"]
                     + COUNTER_HEAD + (IOMMU_HEAD if iommu else []), lines)
    return out


def md_iommu_seed000(rows):
    """legacy2012 -> wholepage2012 for each IOMMU mode, side by side."""
    lines = []
    for row in ("MTU 1500, 16 flows", "MTU 1500, 1 flow"):
        for plat in IOMMU_PLATS:
            a = get(rows, plat, "stream", row, "legacy2012")
            b = get(rows, plat, "stream", row, "wholepage2012")
            if a is None and b is None:
                continue
            lines.append([plat[6:], row, f(a), f(b), "x" + f(ratio(b, a), 2),
                          f(get(rows, plat, "stream", row, "legacy2012", "iommu_maps_per_pkt"), 3)
                          + " -> " +
                          f(get(rows, plat, "stream", row, "wholepage2012", "iommu_maps_per_pkt"), 3),
                          f(get(rows, plat, "stream", row, "legacy2012",
                                "iommu_invalidations_per_pkt"), 3) + " -> " +
                          f(get(rows, plat, "stream", row, "wholepage2012",
                                "iommu_invalidations_per_pkt"), 3)])
    if not lines:
        return ""
    return ("\nSeed 000 under the model's IOMMU (medians; seed: x"
            f"{8.90 / 2.91:.2f} at 16 flows behind a POWER IOMMU):\n\n"
            + table(["IOMMU", "row", "legacy2012 Mbit/s", "wholepage2012 Mbit/s", "ratio",
                     "IOMMU maps/pkt", "IOTLB invalidations/pkt"], lines))


def md_rr(rows):
    out = ""
    for proto in ("tcp", "udp"):
        rr = [r for r in ordered(rows, "default", "rr") if r["params"]["proto"] == proto]
        if not rr:
            continue
        out += f"\n**{proto.upper()} request/response, 1 connection**\n\n"
        lines = []
        for row in rr:
            for v in VARIANTS:
                if v not in row["variants"]:
                    continue
                st = row["variants"][v]
                lines.append([str(row["params"]["size"]), v, str(st["median"]["reps"]),
                              mmm(st, "transactions", 0), mmm(st, "tps"), vs(st)]
                             + vs_veths(st)
                             + [mmm(st, "p50_us", 0), mmm(st, "p90_us", 0), mmm(st, "p99_us", 0),
                                mmm(st, "cpu_util_pct"), mmm(st, "sd_us_per_trans")]
                             + counters_cells(st))
        out += table(["size", "layout", "n", "transactions", "R-R /s (min / median / max)", VS_HEAD]
                     + VS_VETH_HEAD + ["p50 us", "p90 us", "p99 us", "VM CPU %", "S.Demand us/trans"]
                     + COUNTER_HEAD, lines)
    return out


def md_udp(rows):
    out = ""
    lines = []
    for row in ordered(rows, "default", "udp"):
        for v in VARIANTS:
            if v not in row["variants"]:
                continue
            st = row["variants"][v]
            lines.append([str(row["params"]["size"]), v, str(st["median"]["reps"]),
                          mmm(st, "sent_pps"), mmm(st, "recv_pps"), vs(st)]
                         + vs_veths(st)
                         + [mmm(st, "recv_pct"), mmm(st, "recv_mbps"), mmm(st, "cpu_util_pct"),
                            mmm(st, "sd_us_per_kb", 2)] + counters_cells(st))
    if lines:
        out += "\n**UDP stream, 1 flow, unlimited rate**\n\n"
        out += table(["payload", "layout", "n", "sent pkt/s", "recv pkt/s (min / median / max)",
                      "recv " + VS_HEAD] + ["recv " + x for x in VS_VETH_HEAD]
                     + ["recv %", "recv Mbit/s", "VM CPU %", "SD us/KB"] + COUNTER_HEAD, lines)
    return out


def headline(rows):
    h = {}
    # Seed 000: mapping whole pages, legacy2012 -> wholepage2012, where maps
    # cost (swiotlb=force), 16 flows as uperf's 16 threads; 1 flow too.
    iommu = [p for p in IOMMU_PLATS if any(r["platform"] == p for r in rows.values())]
    for plat in ["swiotlb", "default"] + iommu:
        for row in ("MTU 1500, 16 flows", "MTU 1500, 1 flow"):
            a = get(rows, plat, "stream", row, "legacy2012")
            b = get(rows, plat, "stream", row, "wholepage2012")
            h[f"seed000 {plat} {row}"] = {
                "legacy2012_mbps": a, "wholepage2012_mbps": b,
                "ratio": ratio(b, a), "seed_ratio": round(8.90 / 2.91, 2),
                "legacy2012_maps_per_pkt": get(rows, plat, "stream", row, "legacy2012", "maps_per_pkt"),
                "wholepage2012_maps_per_pkt": get(rows, plat, "stream", row, "wholepage2012", "maps_per_pkt")}
    # Seed 001: one fragment per frame, wholepage2012 -> onefrag2013, 1 flow.
    for plat in ("default", "swiotlb"):
        row = "MTU 1500, 1 flow"
        a = get(rows, plat, "stream", row, "wholepage2012")
        b = get(rows, plat, "stream", row, "onefrag2013")
        h[f"seed001 {plat} {row}"] = {
            "wholepage2012_mbps": a, "onefrag2013_mbps": b, "ratio": ratio(b, a),
            "seed_ratio": round(17273.80 / 13798.47, 2),
            "wholepage2012_segs_per_gro": get(rows, plat, "stream", row, "wholepage2012", "segs_per_gro"),
            "onefrag2013_segs_per_gro": get(rows, plat, "stream", row, "onefrag2013", "segs_per_gro"),
            "seed_segs": "8 -> 16"}
    # The default against every comparison layout, every row (medians).
    beats = {}
    for (plat, kind, rk), r in rows.items():
        d = r["variants"].get("default", {}).get("median", {}).get(MAIN[kind])
        for v in OTHERS:
            x = r["variants"].get(v, {}).get("median", {}).get(MAIN[kind])
            if d is None or x is None:
                continue
            b = beats.setdefault(v, {"rows": 0, "default_better": 0, "losses": []})
            b["rows"] += 1
            if d >= x:
                b["default_better"] += 1
            else:
                b["losses"].append(f"{plat}/{rk}: default {d:.1f} < {v} {x:.1f}")
    h["default_vs_layouts"] = beats
    # The default layout against both veth pairs, every stream and
    # round-trip row (the goals: ratios to veth-seg); None where the run
    # has no such pair (a run from before bench/guest.py measured veth-seg).
    vv = {}
    plats = ["default", "swiotlb"] + IOMMU_PLATS
    plats += sorted({r["platform"] for r in rows.values()} - set(plats))
    for plat, kind in ((p, k) for p in plats for k in ("stream", "rr")):
        for r in ordered(rows, plat, kind):
            rk = r["row"]
            med = {v: r["variants"].get(v, {}).get("median", {}).get(MAIN[kind])
                   for v in ["default"] + VETHS}
            vv[f"{plat} {kind} {rk}"] = dict(
                {f"{v}_{MAIN[kind]}": x for v, x in med.items()},
                **{vkey(w): ratio(med["default"], med[w]) for w in VETHS})
    h["default_vs_veth"] = vv
    return h


def md_headline(h, rows):
    s = "\n## Headline\n\n"
    lines = []
    for plat in ["default", "swiotlb"] + IOMMU_PLATS:
        for row in ("MTU 1500, 1 flow", "MTU 1500, 16 flows", "MTU 9000, 1 flow", "MTU 9000, 16 flows"):
            r = rows.get((plat, "stream", row))
            if not r:
                continue
            for v in VARIANTS:
                if v not in r["variants"]:
                    continue
                st = r["variants"][v]
                lines.append([plat, row, v, str(st["median"]["reps"]), mmm(st, "mbps"), vs(st),
                              mmm(st, "maps_per_pkt", 3)])
    s += "TCP stream, each layout against the default:\n\n"
    s += table(["platform", "row", "layout", "n", "Mbit/s (min / median / max)", VS_HEAD,
                "maps/pkt (min / median / max)"], lines)
    vl = []
    for k, x in h.get("default_vs_veth", {}).items():
        plat, kind, rk = k.split(" ", 2)
        unit = MAIN[kind]
        vl.append([plat, "TCP stream" if kind == "stream" else "round trip", rk]
                  + [f(x.get(f"{v}_{unit}")) for v in ["default"] + VETHS]
                  + ["-" if x.get(vkey(w)) is None else "x" + f(x[vkey(w)], 2) for w in VETHS])
    if vl:
        s += ("\nThe default layout against the two veth pairs (medians: Mbit/s, "
              "transactions/s). veth-seg: TSO off, GRO on at both ends, so the stack "
              "segments and GRO merges every frame, the per-frame work every NIC path "
              "pays (the stream and round-trip goals are ratios to it); veth: as "
              "created, 64 KB GSO packets, no segmentation, no GRO, no device; "
              "\"-\": this run has no such pair:\n\n")
        s += table(["platform", "workload", "row", "cxen default", "veth-seg", "veth",
                    "cxen / veth-seg", "cxen / veth"], vl)
    s += "\nThe seeds' claims (medians; min-max of the repetitions in brackets):\n\n"

    def mm(plat, row, v, key="mbps", nd=1):
        return (f"{f(get(rows, plat, 'stream', row, v, key, 'min'), nd)}-"
                f"{f(get(rows, plat, 'stream', row, v, key, 'max'), nd)}")
    for k, v in h.items():
        if k.startswith("seed000"):
            plat, row = k[8:].split(" ", 1)
            s += (f"- seed 000 ({k[8:]}): legacy2012 {f(v['legacy2012_mbps'])} "
                  f"({mm(plat, row, 'legacy2012')}) -> wholepage2012 "
                  f"{f(v['wholepage2012_mbps'])} ({mm(plat, row, 'wholepage2012')}) Mbit/s "
                  f"= x{f(v['ratio'], 2)} (seed: x{v['seed_ratio']}); "
                  f"maps/pkt {f(v['legacy2012_maps_per_pkt'], 3)} -> "
                  f"{f(v['wholepage2012_maps_per_pkt'], 3)}\n")
        elif k.startswith("seed001"):
            plat, row = k[8:].split(" ", 1)
            s += (f"- seed 001 ({k[8:]}): wholepage2012 {f(v['wholepage2012_mbps'])} "
                  f"({mm(plat, row, 'wholepage2012')}) -> onefrag2013 "
                  f"{f(v['onefrag2013_mbps'])} ({mm(plat, row, 'onefrag2013')}) Mbit/s "
                  f"= x{f(v['ratio'], 2)} (seed: x{v['seed_ratio']}); "
                  f"segments per GRO packet {f(v['wholepage2012_segs_per_gro'])} -> "
                  f"{f(v['onefrag2013_segs_per_gro'])} (seed: 8 -> 16 MSS)\n")
    s += ("\nThe default layout against each comparison layout (median of the main "
          "figure of every row, all platforms):\n\n")
    for v, b in h["default_vs_layouts"].items():
        s += f"- vs {v}: default as good or better in {b['default_better']} of {b['rows']} rows"
        s += ("; worse in: " + "; ".join(b["losses"])) if b["losses"] else ""
        s += "\n"
    return s


NOTES = {
    "n": "repetitions of the row for that variant",
    "vs veth-seg, vs veth": "this variant's median over the median of the veth pair "
                            "with TSO off and GRO on at both ends (veth-seg: the "
                            "per-frame baseline, the goals' ratios) and over the pair as "
                            "created (veth: 64 KB GSO packets), same row; \"-\" when the "
                            "row has no such pair (runs from before bench/guest.py "
                            "measured veth-seg)",
    "min / median / max": "of the repetitions, interleaved across variants; the ratios "
                          "to the default are on the medians",
    "sd_us_per_kb": "VM-wide busy CPU time (/proc/stat, both vCPUs, sender and receiver "
                    "and the device model together) per KB received, in the window after "
                    "the warm-up",
    "sd_us_per_trans": "VM-wide busy CPU time (/proc/stat, both vCPUs) per transaction: "
                       "bench/rr reads /proc/stat at both ends of the window it counts "
                       "its transactions in, and counts them (transactions: that count; "
                       "R-R /s: that count over that window)",
    "send_sd/recv_sd": "iperf3's per-process CPU (getrusage) of the sending / receiving "
                       "process per KB: process context only, softirq elsewhere is not in it",
    "counters": "deltas of ethtool -S around the whole client run (warm-up included): "
                "RX counters of the receiving port (both ports for request/response), "
                "TX counters of the sending port (both for request/response)",
    "segs_per_gro": "rx_gro_segs / rx_gro_packets: frames per GRO packet handed up "
                    "(6.12 GRO chains skbs with frag_list once the frags are full)",
    "copybreak_per_pkt": "rx_copybreak per received frame: frames copied into a small "
                         "skb instead of handed up in their buffer",
    "maps_per_pkt/page_allocs_per_pkt": "the driver's own (rx_dma_map, rx_page_alloc: "
                              "the comparison layouts) plus the pages the page_pools took "
                              "from the page allocator, each mapped once (their tracepoint "
                              "page_pool_state_hold, every pool of the VM: tests/vm/pp-trace)",
    "pages_recycled_per_pkt": "pages the rings started carving (rx_page_start) that did not "
                              "come fresh from the page allocator",
    "irqs_per_pkt": "interrupts of the receiving port's channels (/proc/interrupts, "
                    "cxsim domain) per received frame",
    "IOMMU maps/pkt, IOTLB inval/pkt, IOMMU faults": "iommu platforms only: the model's "
                    "IOMMU counters (<debugfs>/cxsim/iommu), device-wide (both ports, RX and "
                    "TX mappings), per frame received by the receiving port: map calls, "
                    "IOTLB invalidations (strict: one per unmap; lazy: one per flush of up "
                    "to 256 unmaps), device accesses refused (must be 0)",
}


def md_doc(conds, results, done, host, errors, total, rows, h, accel):
    hs = host.get("start", {})
    c0 = next(iter(conds.values()))
    label = accel_label(accel)
    md = "# cxen benchmark results\n\n"
    md += (f"Date {hs.get('date_utc')}, commit {hs.get('git_commit', '')[:12]}"
           f"{' (dirty)' if hs.get('git_dirty') else ''}; guest kernel {c0['kernel']}, "
           f"{c0['vcpus']} vCPUs, {label} ({hs.get('qemu')}); host {hs.get('host_cpus')} CPUs, "
           f"load average at start {hs.get('host_loadavg_start')}")
    for p, x in sorted(host.items()):
        if p != "start":
            md += f", after {p} {x.get('host_loadavg_end')}"
    pause = c0.get("pause")
    md += (f". {len(results)} measurements, {c0['reps']} repetition(s) per variant, "
           f"interleaved; min / median / max quoted; "
           f"durations {c0['durations_s']} s (+1 s warm-up for iperf3, 0.5 s for RR). "
           f"Channels per port: {c0['channels']}. "
           + (f"Link flow control (ethtool -a): {json.dumps(pause)}. " if pause else
              "Link flow control: not recorded. ")
           + f"Total duration: {total} s.\n\n")
    md += ("Absolute numbers mean little here (the NIC is a model in the same kernel, "
           f"on the same {c0['vcpus']} vCPUs"
           + (", and TCG emulates every instruction" if accel == "tcg" else "")
           + "): compare the layouts side by side. Two veth pairs in the same VM are the "
           "software references: veth-seg (TSO off, GRO on at both ends: the stack "
           "segments and GRO merges every frame, the per-frame work every NIC path pays; "
           "the stream and round-trip goals are ratios to it) and veth (as created: 64 KB "
           "GSO packets, no segmentation, no GRO, no device).\n\n" + CELLS + "\n")
    unfinished = sorted(p for p in conds if p not in done)
    if unfinished:
        md += (f"\n**Partial: platform(s) {', '.join(unfinished)} stopped before the end of "
               "the plan**; only the rows below were measured (`n` = repetitions).\n")
    if errors:
        md += f"\n**{len(errors)} measurement(s) failed** (in results.json `errors`); " \
              "their rows have fewer repetitions.\n"
    md += md_headline(h, rows)
    md += "\n## Stream (seeds 000 and 001)\n"
    md += "\n### Platform: stock kernel\n" + md_stream(rows, "default")
    if any(r["platform"] == "swiotlb" for r in rows.values()):
        md += "\n### Platform: swiotlb=force (every DMA map bounces)\n" + md_stream(rows, "swiotlb")
    for plat in IOMMU_PLATS:
        if any(r["platform"] == plat for r in rows.values()):
            c = conds.get(plat, {})
            dt = c.get("device_time") or {}
            scaled = (f" = {dt.get('base_inval_ns')} ns x{dt.get('scale')}, the VM's CPU per "
                      f"frame through veth {dt.get('guest_ns_per_frame', 0):.0f} ns over the "
                      f"host's {dt.get('host_ns_per_frame', 0):.0f} ns" if dt else "")
            md += (f"\n### Platform: the model's IOMMU, {plat[6:]} "
                   f"(cxsim.iommu={c.get('iommu', plat[6:])}, "
                   f"{c.get('iommu_inval_ns')} ns per IOTLB invalidation{scaled}; "
                   "cxsim reloaded with each mode in turn, same VM)\n" + md_stream(rows, plat))
    md += md_iommu_seed000(rows)
    md += "\n## Request/response (seed 002)\n" + md_rr(rows)
    md += "\n## UDP stream (seed 003)\n" + md_udp(rows)
    md += ("\n## Columns\n\n" + "\n".join(f"- `{k}`: {v}" for k, v in NOTES.items()) + "\n"
           "- `rx no-buf`: hw_rx_out_of_buffer, frames the device dropped because the RX ring was empty\n")
    return md


# ---------------------------------------------------------------- plots

def plot_cmd(data, series, valid):
    """gnuplot plot command: SERIES is [(variant, first column)], each
    series three columns (median, min, max: bar and whisker); a series
    with no number is left out (gnuplot fails on it)."""
    parts = [f"'{data}' using {c}:{c + 1}:{c + 2}:xtic(1) title '{v}' "
             f"lc {VARIANTS.index(v) + 1}" for v, c in series if valid.get(c)]
    return "plot " + ", ".join(parts) + "\n" if parts else ""


def valid_cols(data):
    valid = {}
    with open(data) as fh:
        next(fh)
        for line in fh:
            vals = line.rsplit('"', 1)[1].split()
            for i, x in enumerate(vals):
                if x != "NaN":
                    valid[i + 2] = True
    return valid


def write_dat(path, rows, entries):
    """ENTRIES: [(label, platform, kind, row)]; per variant the median, min,
    max of the main figure, then the same of the service demand."""
    with open(path, "w") as fh:
        fh.write("# row " + " ".join(f"{v} {v}_min {v}_max" for v in VARIANTS) + " "
                 + " ".join(f"sd_{v} sd_{v}_min sd_{v}_max" for v in VARIANTS) + "\n")
        for lab, plat, kind, row in entries:
            vals = []
            for key in (MAIN[kind], SD[kind]):
                for v in VARIANTS:
                    vals += [get(rows, plat, kind, row, v, key, w) for w in ("median", "min", "max")]
            fh.write('"' + lab + '" ' + " ".join("NaN" if x is None else f"{x:.3f}"
                                                  for x in vals) + "\n")


def plots(d, rows, accel, reps, workdir):
    n = len(VARIANTS)
    main_series = [(v, 2 + 3 * i) for i, v in enumerate(VARIANTS)]
    sd_series = [(v, 2 + 3 * n + 3 * i) for i, v in enumerate(VARIANTS)]
    bars = f"bars: median of {reps}, whiskers: min-max"
    where = accel_label(accel)
    common = ("set terminal png size 1200,560\nset style data histograms\n"
              "set style histogram errorbars gap 1 lw 1\nset style fill solid 0.8 border -1\n"
              "set key top left\nset grid ytics\nset xtics rotate by -20\nset yrange [0:*]\n")
    data = os.path.join(workdir, "plot-stream.dat")
    write_dat(data, rows, [(f"{'' if plat == 'default' else plat + ' '}"
                      f"{r['row'].replace('MTU ', '').replace(', ', '/')}", plat, "stream", r["row"])
                     for plat in ["default", "swiotlb"] + IOMMU_PLATS
                     for r in ordered(rows, plat, "stream")])
    vv = valid_cols(data)
    gp = common + (
        f"set output '{d}/stream-throughput.png'\n"
        f"set title 'TCP stream throughput per RX layout ({bars}; {where}: compare bars, not absolutes)'\n"
        "set ylabel 'Mbit/s'\n"
        + plot_cmd(data, main_series, vv) +
        f"set output '{d}/stream-service-demand.png'\n"
        "set title 'TCP stream service demand per RX layout (VM CPU-us per KB received, "
        f"lower is better; {bars})'\n"
        "set ylabel 'us/KB'\n"
        + plot_cmd(data, sd_series, vv))
    # Request/response and UDP stream: the main figure per row.
    for kind, ylabel, title in (("rr", "transactions/s", "Request/response rate per RX layout"),
                                ("udp", "received packets/s", "UDP stream received packets/s per RX layout")):
        rs = ordered(rows, "default", kind)
        if not rs:
            continue
        dat = os.path.join(workdir, f"plot-{kind}.dat")
        write_dat(dat, rows, [(r["row"], "default", kind, r["row"]) for r in rs])
        sdl = "us/transaction" if kind == "rr" else "us/KB"
        kv = valid_cols(dat)
        gp += (f"set output '{d}/{kind}.png'\nset title '{title} ({bars})'\nset ylabel '{ylabel}'\n"
               + plot_cmd(dat, main_series, kv) +
               f"set output '{d}/{kind}-service-demand.png'\n"
               f"set title '{title.split(' per')[0]}: service demand (VM CPU {sdl}, lower is better; {bars})'\n"
               f"set ylabel '{sdl}'\n"
               + plot_cmd(dat, sd_series, kv))
    gpf = os.path.join(workdir, "plots.gp")
    with open(gpf, "w") as fh:
        fh.write(gp)
    try:
        rc = subprocess.run(["gnuplot", gpf]).returncode
    except FileNotFoundError:
        print("report: no gnuplot: no plots (apt-get install gnuplot-nox)", file=sys.stderr)
        return True
    if rc:
        print(f"report: gnuplot failed ({gpf} kept)", file=sys.stderr)
        return False
    return True


# ---------------------------------------------------------------- README

def rng(vals, nd):
    """"a-b" of the values formatted with ND decimals, "a" when they agree."""
    xs = nums(vals)
    if not xs:
        return "-"
    a, b = f"{min(xs):.{nd}f}", f"{max(xs):.{nd}f}"
    return a if a == b else f"{a}-{b}"


README_ROWS = ["MTU 1500, 1 flow", "MTU 1500, 16 flows", "MTU 9000, 1 flow", "MTU 9000, 16 flows"]
README_PLAT = {"default": "stock", "swiotlb": "swiotlb=force"}


def readme_table(rows):
    """README's TCP stream table: ratios of the medians to the default's
    median; the default's cells: median Mbit/s (min-max of the repetitions);
    maps/pkt at MTU 1500: min-max over every repetition of the 1 and
    16-flow rows."""
    head = ["platform", "layout", "1500, 1 flow", "1500, 16 flows", "9000, 1 flow",
            "9000, 16 flows", "maps/pkt at 1500"]
    lines = []
    for plat in ("default", "swiotlb"):
        if not any((plat, "stream", r) in rows for r in README_ROWS):
            continue
        for v in VARIANTS:
            if not any(v in rows[(plat, "stream", r)]["variants"] for r in README_ROWS
                       if (plat, "stream", r) in rows):
                continue
            cells = [README_PLAT[plat], v]
            for r in README_ROWS:
                if v == "default":
                    md, lo, hi = (get(rows, plat, "stream", r, v, "mbps", w)
                                  for w in ("median", "min", "max"))
                    cells.append("-" if md is None else
                                 f"{md:.0f}{' Mbit/s' if r == README_ROWS[0] else ''} "
                                 f"({lo:.0f}-{hi:.0f})")
                else:
                    cells.append("x" + f(get(rows, plat, "stream", r, v, "ratio_to_default"), 2))
            maps = []
            for r in README_ROWS[:2]:
                row = rows.get((plat, "stream", r))
                if row and v in row["variants"]:
                    maps += [x.get("maps_per_pkt") for x in row["variants"][v]["reps"]]
            cells.append(rng(maps, 3))
            lines.append(cells)
    return table(head, lines)


def readme_claims(rows, conds, host, results, total, accel):
    """[(what, regex over the whitespace-collapsed text, expected groups)]:
    each regex must match once, its groups equal the figures of results.json."""
    g = lambda *a, **k: get(rows, *a, **k)  # noqa: E731
    hs = host.get("start", {})
    loads = hs.get("host_loadavg_start", "").split()
    for p, x in host.items():
        if p != "start":
            loads += x.get("host_loadavg_end", "").split()
    loads = [float(x) for x in loads]
    reps = sorted({c.get("reps") for c in conds.values()})
    cx = [r for r in results if r["variant"] not in VETHS]
    paused = sum(1 for r in cx
                 if any(r["result"].get("counters", {}).get(p, {}).get("hw_tx_pause", 0)
                        for p in ("cxen0", "cxen1")))
    word = {None: "not recorded", "tcg": "TCG", "kvm": "KVM"}.get(accel, accel)

    def ratios(plat, kind, rks, key="ratio_to_default", vs=OTHERS):
        out = []
        for rk in rks:
            if key == "ratio_to_default":
                out += [g(plat, kind, rk, v, key) for v in vs]
            else:       # the ratio of the medians of KEY
                out += [ratio(g(plat, kind, rk, v, key), g(plat, kind, rk, "default", key))
                        for v in vs]
        return rng(out, 2).replace("-", "-x")

    stream = [(p, r) for (p, k, r) in rows if k == "stream"]
    beaten = sum(1 for p, r in stream
                 if all((g(p, "stream", r, "default") or 0) >= (g(p, "stream", r, v) or 0)
                        for v in OTHERS))
    sd_def = [g("default", "stream", r, "default", "sd_us_per_kb") for r in README_ROWS[:2]]
    sd_oth = [g("default", "stream", r, v, "sd_us_per_kb") for r in README_ROWS[:2] for v in OTHERS]
    lower = max(nums(sd_def)) < min(nums(sd_oth))
    s0 = {(p, r): ratio(g(p, "stream", r, "wholepage2012"), g(p, "stream", r, "legacy2012"))
          for p in ("swiotlb", "default") for r in README_ROWS[:2]}
    s0maps = lambda v: rng([g(p, "stream", r, v, "maps_per_pkt")  # noqa: E731
                            for p in ("swiotlb", "default") for r in README_ROWS[:2]], 3)
    s1 = rng([ratio(g(p, "stream", README_ROWS[0], "onefrag2013"),
                    g(p, "stream", README_ROWS[0], "wholepage2012"))
              for p in ("default", "swiotlb")], 2)
    segs = rng([g(p, "stream", README_ROWS[0], v, "segs_per_gro")
                for p in ("default", "swiotlb") for v in VARIANTS[:4]], 1)
    small = ["TCP 1 B", "TCP 8 B", "TCP 32 B", "TCP 128 B"]
    small_maps = rng([g("default", "rr", r, v, "maps_per_pkt", which=w)
                      for r in small for v in VARIANTS[:4] for w in ("min", "max")], 3)
    small_cb = rng([g("default", "rr", r, v, "copybreak_per_pkt", which=w)
                    for r in small for v in VARIANTS[:4] for w in ("min", "max")], 3)
    udp_small = ["UDP 64 B", "UDP 128 B"]
    udp_cb = rng([g("default", "udp", r, v, "copybreak_per_pkt", which=w)
                  for r in udp_small for v in VARIANTS[:4] for w in ("min", "max")], 3)
    # Seed 000 behind the model's IOMMU, strict, in device time (when the
    # run has that platform: bench/run calibrates on the host first).
    dtc = conds.get("iommu-strict-dt")
    dt_claims = []
    if dtc:
        s0dt = [ratio(g("iommu-strict-dt", "stream", r, "wholepage2012"),
                      g("iommu-strict-dt", "stream", r, "legacy2012")) for r in README_ROWS[:2]]
        dt_claims = [("seed 000 in device time",
                      r"in device time \(`iommu-strict-dt`: (\d+) ns per invalidation, x(\d+\.\d) "
                      r"the published (\d+) ns\), legacy2012 -> wholepage2012 is x(\d+\.\d\d) "
                      r"\(1 flow\) and x(\d+\.\d\d) \(16 flows\)",
                      [str(dtc.get("iommu_inval_ns")),
                       f"{(dtc.get('device_time') or {}).get('scale', 0):.1f}",
                       str((dtc.get("device_time") or {}).get("base_inval_ns")),
                       f(s0dt[0], 2), f(s0dt[1], 2)])]
    h = headline(rows)
    seed000 = h["seed000 swiotlb MTU 1500, 1 flow"]["seed_ratio"]
    seed001 = h["seed001 default MTU 1500, 1 flow"]["seed_ratio"]
    return [
        ("make bench duration", r"make bench # (\d+) min on this", [f"{total / 60:.0f}"]),
        ("measurement count", r"\((\d+) measurements: (\d+) rows x (\d+) variants x (\S+) repetitions",
         [str(len(results)), str(len(rows)),
          str(len({v for r in rows.values() for v in r["variants"]})), "/".join(map(str, reps))]),
        ("total duration", r"; (\d+) min (\d+) s;", [str(total // 60), str(total % 60)]),
        ("host load averages", r"host load average (\d+\.\d\d)-(\d+\.\d\d)",
         [f"{min(loads):.2f}", f"{max(loads):.2f}"]),
        ("vCPUs and channels", r"(\d+) vCPUs, (\d+) channels? per port",
         ["/".join(sorted({str(c.get("vcpus")) for c in conds.values()})),
          "/".join(sorted({str(c.get("channels")) for c in conds.values()}))]),
        ("accelerator", r"QEMU accelerator: (TCG|KVM|not recorded)", [word]),
        ("pause frames", r"pause frames went out \(`hw_tx_pause`\) in (\d+) of its (\d+) cxen measurements",
         [str(paused), str(len(cx))]),
        ("stream rows the default wins",
         r"beats every comparison layout in (\d+) of the (\d+) stream rows",
         [str(beaten), str(len(stream))]),
        ("service demand, stock, MTU 1500",
         r"(lower|overlapping) service demand at MTU 1500 on the stock kernel \((\d+\.\d)-(\d+\.\d) us/KB "
         r"against (\d+\.\d)-(\d+\.\d)\)",
         ["lower" if lower else "overlapping"] + rng(sd_def, 1).split("-") + rng(sd_oth, 1).split("-")),
        ("seed 000's ratio", r"Seed 000 \(whole-page mapping, x(\d+\.\d\d)\)", [f"{seed000:.2f}"]),
        ("seed 000's ratio, again", r"that made seed 000's x(\d+\.\d\d)", [f"{seed000:.2f}"]),
        ("seed 000 here", r"legacy2012 -> wholepage2012 is x(\d\.\d\d) \(1 flow\) and x(\d\.\d\d) "
         r"\(16 flows\) under swiotlb=force, x(\d\.\d\d) / x(\d\.\d\d) without",
         [f(s0[("swiotlb", README_ROWS[0])], 2), f(s0[("swiotlb", README_ROWS[1])], 2),
          f(s0[("default", README_ROWS[0])], 2), f(s0[("default", README_ROWS[1])], 2)]),
        ("seed 000's maps/pkt", r"maps/pkt falls from (\S+) to ([\d.-]+)",
         [s0maps("legacy2012"), s0maps("wholepage2012")]),
        ("seed 001's gain", r"one fragment per frame, \+(\d+)%", [f"{(seed001 - 1) * 100:.0f}"]),
        ("seed 001's segments per GRO packet", r"Its (\d+ -> \d+) MSS does not show",
         [h["seed001 default MTU 1500, 1 flow"]["seed_segs"]]),
        ("seed 001 here", r"wholepage2012 -> onefrag2013 is x(\S+) on both platforms at 1 flow",
         [s1.replace("-", "-x")]),
        ("segments per GRO packet", r"segments per GRO packet \((\d+\.\d)-(\d+\.\d) for every layout "
         r"at MTU 1500, 1 flow", segs.split("-")),
        ("TCP RR, 1-128 bytes", r"the comparison layouts run at x(\S+) of the default's rate at "
         r"1-128 bytes", [ratios("default", "rr", small)]),
        ("TCP RR, 1-128 bytes, copybreak",
         r"copybreak: (\S+) per frame, (\S+) DMA maps per packet", [small_cb, small_maps]),
        ("TCP RR, 512 bytes", r"and x(\S+) at 512 bytes", [ratios("default", "rr", ["TCP 512 B"])]),
        ("UDP RR, 1 byte", r"in UDP 1-byte round trips at x(\S+),", [ratios("default", "rr", ["UDP 1 B"])]),
        ("UDP RR, 1 byte, the default's spread",
         r"default's own repetitions range from (\d+) to (\d+) transactions/s",
         [f"{g('default', 'rr', 'UDP 1 B', 'default', 'tps', which='min'):.0f}",
          f"{g('default', 'rr', 'UDP 1 B', 'default', 'tps', which='max'):.0f}"]),
        ("UDP stream, 64/128 bytes", r"the others receive x(\S+) of the default's packets/s at "
         r"64/128 bytes", [ratios("default", "udp", udp_small)]),
        ("UDP stream, 64/128 bytes, copybreak", r"at 64/128 bytes \(copybreak: (\S+) per frame\)",
         [udp_cb]),
        ("UDP stream, 64/128 bytes, sent", r"sent pkt/s x(\S+)\)",
         [ratios("default", "udp", udp_small, key="sent_pps")]),
        ("UDP stream, 1024/1472 bytes", r"and x(\S+) at 1024/1472 bytes",
         [ratios("default", "udp", ["UDP 1024 B", "UDP 1472 B"])]),
    ] + dt_claims


# ---------------------------------------------------------------- README's bullets

# The benchmarks with a table of their own (bench/xdp_bench.py, rx_layouts.py,
# model_modes.py): README's bullet for each names the table ("its own table
# `xdp.txt`") and the committed run it quotes ("The committed run (`DIR`,
# medians of N):"); every figure after that is a claim below, checked against
# the "# json" line of DIR/<table> at the precision README shows it.
NUM = r"(\d+(?:\.\d+)?)"


def bench_doc(path):
    """The "# json" line of a committed bench/*.py table, None without one."""
    try:
        with open(path) as fh:
            for line in fh:
                if line.startswith("# json "):
                    return json.loads(line[7:])
    except OSError:
        return None
    return None


def median_of(xs):
    xs = nums(xs)
    return statistics.median(xs) if xs else None


def xdp_claims(doc):
    def kpps(dev, act, size):
        return median_of(r["pps"] / 1000 for r in doc["runs"]
                         if (r["dev"], r["act"], r["size"]) == (dev, act, size))
    drop = [r.get("page_alloc_per_pkt") for r in doc["runs"] if r["act"] == "drop"
            and r["dev"] != "veth"]
    return [
        ("XDP_DROP kpps, wire generator and veth",
         rf"XDP_DROP {NUM} kpps at 60 B and {NUM} at 1514 B behind the wire generator, "
         rf"veth {NUM} and {NUM};",
         [kpps("wire", "drop", 60), kpps("wire", "drop", 1514),
          kpps("veth", "drop", 60), kpps("veth", "drop", 1514)]),
        ("XDP_DROP page allocations", rf"{NUM} page allocations per dropped frame",
         [max(nums(drop)) if nums(drop) else None]),
    ]


def layouts_claims(doc):
    def med(layout, mtu, key):
        return median_of(r.get(key) for r in doc["rows"]
                         if (r["layout"], r["mtu"]) == (layout, mtu))
    return [
        ("TCP socket charge at MTU 1500",
         rf"a socket holding a TCP stream at MTU 1500 is charged {NUM} \(default\), "
         rf"{NUM} \(striding\) and {NUM} \(split\) of its bytes",
         [med(ly, 1500, "tcp_sock_ratio") for ly in ("default", "striding", "striding+split")]),
        ("RX memory per queue idle",
         rf"the striding RQ pins {NUM} KiB per queue idle against the default layout's "
         rf"{NUM} at MTU 1500 and {NUM} at MTU 9000,",
         # one figure for the striding RQ at both MTUs: None when they differ
         [med("striding", 1500, "mem_kib_per_queue_idle")
          if med("striding", 1500, "mem_kib_per_queue_idle")
          == med("striding", 9000, "mem_kib_per_queue_idle") else None,
          med("default", 1500, "mem_kib_per_queue_idle"),
          med("default", 9000, "mem_kib_per_queue_idle")]),
        ("striding throughput at MTU 9000", rf"where it runs at x{NUM} the throughput",
         [ratio(med("striding", 9000, "mbit_s"), med("default", 9000, "mbit_s"))]),
        ("striding CPU per KB at MTU 1500", rf"at MTU 1500 it costs x{NUM} the CPU per KB",
         [ratio(med("striding", 1500, "cpu_us_per_kb"), med("default", 1500, "cpu_us_per_kb"))]),
    ]


def model_claims(doc):
    def med(workload, variant, key):
        return median_of(r.get(key) for r in doc["rows"]
                         if (r["workload"], r["variant"]) == (workload, variant))
    four = ("work", "work-lro", "veth", "veth-seg")
    return [
        ("one TCP flow, Mbit/s",
         rf"one TCP flow at {NUM} Mbit/s without LRO and {NUM} with it "
         rf"\(veth {NUM}, veth-seg {NUM}\),",
         [med("tcp1", v, "mbps") for v in four]),
        ("one TCP flow, CPU per KB",
         rf"{NUM} and {NUM} us of CPU per KB \(veth {NUM}, veth-seg {NUM}\);",
         [med("tcp1", v, "cpu_us_per_kb") for v in four]),
        ("TCP_RR 1 byte",
         rf"TCP_RR 1 byte {NUM}/s with the fast model and LRO \(veth {NUM}, veth-seg {NUM}\)",
         [med("tcp_rr", v, "tps") for v in ("fast-0-lro", "veth", "veth-seg")]),
    ]


README_BULLETS = [
    ("XDP", "native XDP (`bench/xdp_bench.py`", xdp_claims),
    ("layouts", "RX layouts of the striding RQ (`bench/rx_layouts.py`", layouts_claims),
    ("model", "the model's datapaths against veth (`bench/model_modes.py`", model_claims),
]


def as_shown(shown, x):
    """X with the decimals README shows in SHOWN: the check's only tolerance
    is README's rounding."""
    if x is None:
        return None
    d = shown.partition(".")[2]
    return f"{x:.{len(d)}f}"


def bullets(sec):
    """README's "- " list items of SEC, each whitespace-collapsed."""
    out, cur = [], None
    for ln in sec.splitlines():
        if ln.startswith("- "):
            cur = [ln]
            out.append(cur)
        elif cur is not None and ln.startswith("  ") and ln.strip():
            cur.append(ln)
        else:
            cur = None
    return [" ".join(" ".join(b).split()) for b in out]


def match_claims(claims, text, source, where="", shown=None, wanted=None, fix=""):
    """Each claim (what, regex, expected) of CLAIMS against TEXT: the regex
    must match once, its groups equal to the expected values as README
    shows them (SHOWN(got, exp); exactly, without). WANTED formats the
    expected values for a claim not found; FIX ends a mismatch's message.
    Returns ([failures], [spans of the matches])."""
    bad, spans = [], []
    for what, rx, exp in claims:
        ms = list(re.finditer(rx, text))
        if len(ms) != 1:
            bad.append(f"{where}{what}: {'not found' if not ms else f'{len(ms)} matches'} "
                       f"(/{rx}/); {source} gives {wanted(exp) if wanted else exp}")
            continue
        got = list(ms[0].groups())
        want = shown(got, exp) if shown else exp
        if got != want:
            bad.append(f"{where}{what}: README says {got}, {source} gives {want}"
                       + (f" (\"...{ms[0].group()}...\"){fix}" if fix else ""))
        spans.append(ms[0].span())
    return bad, spans


def check_bullets(path, sec):
    """([failures], [lines of what matched]) of README's bullets with a
    committed run of their own."""
    bad, ok = [], []
    items = bullets(sec)
    base = os.path.dirname(os.path.abspath(path))
    for name, lead, claims in README_BULLETS:
        its = [b for b in items if b[2:].startswith(lead)]
        if len(its) != 1:
            bad.append(f"{name} bullet: {len(its)} bullets start with {lead!r}")
            continue
        b = its[0]
        tm = re.search(r"its own table `([^`]+)`", b)
        rm = re.search(r"The committed run \(`([^`]+)`, medians of (\d+)\):", b)
        if not tm or not rm:
            bad.append(f"{name} bullet names no committed table: it needs \"its own table "
                       f"`FILE`\" and \"The committed run (`DIR`, medians of N):\"")
            continue
        rel = os.path.join(rm.group(1), tm.group(1))
        doc = bench_doc(os.path.join(base, rel))
        if doc is None:
            bad.append(f"{name} bullet: {rel} is not a committed table with a \"# json\" line")
            continue
        before = len(bad)
        if rm.group(2) != str(doc.get("reps")):
            bad.append(f"{name} bullet: README says medians of {rm.group(2)}, {rel} has "
                       f"{doc.get('reps')} repetitions")
        more, covered = match_claims(
            claims(doc), b, rel, f"{name} bullet, ",
            shown=lambda got, exp: [as_shown(s, x) for s, x in zip(got, exp)],
            wanted=lambda exp: [f(x, 3) for x in exp],
            fix=f": correct README to {rel}")
        bad += more
        covered.append(rm.span())
        # Any other figure after "The committed run" is one no committed result holds.
        for fm in re.finditer(r"\d+(?:\.\d+)?", b[rm.start():]):
            at = rm.start() + fm.start()
            if any(s <= at < e for s, e in covered):
                continue
            bad.append(f"{name} bullet: figure {fm.group()!r} is checked against no committed "
                       f"result (no claim of {claims.__name__}() covers it: add one, or drop "
                       f"the figure): ...{b[max(0, at - 60):at + 30]}...")
        if len(bad) == before:
            ok.append((name, rel))
    return bad, ok


# Figures of the committed-run prose that are not measurements.
README_FIXED = {"6.12"}
FIGURE = re.compile(r"x\d+\.\d+|(?<![\w.])\d+\.\d+(?![\w.])|(?<![\w.])\d+(?:-\d+)? ?%")


def check_readme(path):
    with open(path) as fh:
        text = fh.read()
    m = re.search(r"^## Benchmarks\n(.*?)(?=^## |\Z)", text, re.S | re.M)
    if not m:
        sys.exit(f"report: no '## Benchmarks' section in {path}")
    sec = m.group(1)
    flat = " ".join(sec.split())
    dm = re.search(r"committed in `([^`]+)`", flat)
    if not dm:
        sys.exit(f"report: {path}'s Benchmarks section names no committed run (\"committed in `DIR`\")")
    rdir = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(path)), dm.group(1)))
    conds, results, done, host, errors, total = load_json(os.path.join(rdir, "results.json"))
    rows = aggregate(results)
    accel = accelerator(conds, host.get("start", {}))
    bad = []
    # The table, line by line: the header line and the "|" lines after it.
    lines = sec.splitlines()
    top = next((i for i, ln in enumerate(lines) if ln.startswith("| platform | layout |")), None)
    have = []
    if top is not None:
        for ln in lines[top:]:
            if not ln.startswith("|"):
                break
            have.append(ln.rstrip())
    want = readme_table(rows).splitlines()
    if have != want:
        for i in range(max(len(have), len(want))):
            a = have[i] if i < len(have) else "(missing)"
            b = want[i] if i < len(want) else "(none)"
            if a != b:
                bad.append(f"table line {i + 1}:\n    README:       {a}\n    results.json: {b}")
    # The prose, claim by claim.
    body = " ".join(ln for ln in sec.splitlines() if not ln.startswith("|"))
    body = " ".join(body.split())
    more, covered = match_claims(readme_claims(rows, conds, host, results, total, accel),
                                 body, "results.json")
    bad += more
    # Any other figure of the committed run's prose is one nobody checks.
    start = body.find("One full run is committed")
    for fm in FIGURE.finditer(body, max(start, 0)):
        if fm.group() in README_FIXED or any(a <= fm.start() < b for a, b in covered):
            continue
        bad.append(f"unchecked figure {fm.group()!r}: ...{body[max(0, fm.start() - 40):fm.end() + 20]}...")
    main_bad = len(bad)
    more, ok = check_bullets(path, sec)
    bad += more
    for b in bad:
        print(f"README {path}: {b}")
    for name, rel in ok:
        print(f"report: {path}'s {name} figures match {rel}")
    if bad:
        print(f"report: {len(bad)} figure(s) of {path} differ from the committed results"
              f" ({main_bad} from {rdir}/results.json)")
        return 1
    print(f"report: {path}'s benchmark figures match {os.path.join(dm.group(1), 'results.json')}")
    return 0


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--total-seconds", type=int)
    ap.add_argument("--readme-table", action="store_true",
                    help="print README's TCP stream table for DIR")
    ap.add_argument("--check-readme", metavar="README",
                    help="compare README's Benchmarks figures with the committed results.json")
    a = ap.parse_args()
    if a.check_readme:
        sys.exit(check_readme(a.check_readme))
    if not a.dir:
        ap.error("DIR or --check-readme")
    d = os.path.abspath(a.dir)
    from_json = not glob.glob(os.path.join(d, "raw-*.txt"))
    if from_json:
        if not os.path.exists(os.path.join(d, "results.json")):
            sys.exit(f"report: neither raw-*.txt nor results.json under {d}")
        conds, results, done, host, errors, total = load_json(os.path.join(d, "results.json"))
        if a.total_seconds is not None:
            total = a.total_seconds
    else:
        conds, results, done, host, errors = load_raw(d)
        total = a.total_seconds
    if not results:
        sys.exit(f"report: no BENCH-RESULT lines under {d}")
    rows = aggregate(results)
    if a.readme_table:
        print(readme_table(rows), end="")
        return
    h = headline(rows)
    hs = host.get("start", {})
    accel = accelerator(conds, hs)
    if "/" in (accel or ""):
        print(f"report: accelerator: bench/run says {hs.get('accel')}, the guest's CXEN_ACCEL "
              f"{sorted({c.get('accel') for c in conds.values()})}", file=sys.stderr)
    if not from_json:
        doc = {"conditions": {"host": hs, "accelerator": accel,
                              "platforms": {p: dict(c, guest_seconds=done.get(p), host=host.get(p))
                                            for p, c in conds.items()},
                              "total_seconds": total},
               "unfinished_platforms": sorted(p for p in conds if p not in done),
               "notes": NOTES,
               "headline": h,
               "rows": list(rows.values()),
               "errors": errors,
               "raw": results}
        with open(os.path.join(d, "results.json"), "w") as fh:
            json.dump(doc, fh, indent=1)
    with open(os.path.join(d, "results.md"), "w") as fh:
        fh.write(md_doc(conds, results, done, host, errors, total, rows, h, accel))
    reps = "/".join(map(str, sorted({c.get("reps") for c in conds.values()})))
    if from_json:
        # A committed run keeps only results.json, results.md and the PNGs.
        with tempfile.TemporaryDirectory() as work:
            ok = plots(d, rows, accel, reps, work)
    else:
        ok = plots(d, rows, accel, reps, d)
    print(f"report: {len(results)} measurements, {len(rows)} rows -> {d}/results.md"
          + (" (from results.json, which is left as it was)" if from_json else ""))
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
