#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""bench/report.py DIR: results.json, results.md and PNG plots from the raw
guest output (raw-<platform>.txt) and host-*.json that bench/run left in DIR.

Each figure is the median over the repetitions; ratios are to the default
layout's median of the same row and platform.
"""

import argparse
import glob
import json
import os
import statistics
import subprocess
import sys

VARIANTS = ["default", "legacy2012", "wholepage2012", "onefrag2013", "veth"]
MAIN = {"stream": "mbps", "rr": "tps", "udp": "recv_pps"}
SD = {"stream": "sd_us_per_kb", "rr": "sd_us_per_trans", "udp": "sd_us_per_kb"}
COUNTERS = ["maps_per_pkt", "page_allocs_per_pkt", "pages_recycled_per_pkt",
            "segs_per_gro", "bytes_per_truesize", "doorbells_per_pkt",
            "irqs_per_pkt"]


def load(d):
    conds, results, done, errors = {}, [], {}, []
    for f in sorted(glob.glob(os.path.join(d, "raw-*.txt"))):
        with open(f) as fh:
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
    for f in sorted(glob.glob(os.path.join(d, "host-*.json"))):
        with open(f) as fh:
            host[os.path.basename(f)[5:-5]] = json.load(fh)
    return conds, results, done, host, errors


def rowkey(r):
    p = r["params"]
    if r["kind"] == "stream":
        return f"MTU {p['mtu']}, {p['flows']} flow{'s' if p['flows'] > 1 else ''}"
    if r["kind"] == "rr":
        return f"{p['proto'].upper()} {p['size']} B"
    return f"UDP {p['size']} B"


def median(vals):
    vals = [v for v in vals if isinstance(v, (int, float))]
    return statistics.median(vals) if vals else None


def aggregate(results):
    """rows[(platform, kind, key)] = {"params", "variants": {v: {...}}}"""
    rows = {}
    for r in results:
        k = (r["platform"], r["kind"], rowkey(r))
        row = rows.setdefault(k, {"platform": r["platform"], "kind": r["kind"],
                                  "row": k[2], "params": r["params"],
                                  "variants": {}})
        row["variants"].setdefault(r["variant"], []).append(r["result"])
    for row in rows.values():
        agg = {}
        for v, reps in row["variants"].items():
            keys = [k for k in reps[0] if k != "counters"]
            m = {k: median([x.get(k) for x in reps]) for k in keys}
            main = MAIN[row["kind"]]
            m["reps"] = len(reps)
            m[main + "_all"] = [x.get(main) for x in reps]
            agg[v] = {"median": m, "reps": reps}
        base = agg.get("default", {}).get("median", {}).get(MAIN[row["kind"]])
        for v, a in agg.items():
            x = a["median"].get(MAIN[row["kind"]])
            a["median"]["ratio_to_default"] = x / base if base and x is not None else None
        row["variants"] = agg
    return rows


def f(x, nd=1):
    if x is None:
        return "-"
    if isinstance(x, float):
        if abs(x) >= 1000:
            return f"{x:.0f}"
        return f"{x:.{nd}f}"
    return str(x)


def ordered(rows, platform, kind):
    out = [r for r in rows.values() if r["platform"] == platform and r["kind"] == kind]
    def sk(r):
        p = r["params"]
        return (p.get("proto", ""), p.get("mtu", 0), p.get("flows", 0), p.get("size", 0))
    return sorted(out, key=sk)


def counters_cells(m):
    return [f(m.get(c), 3 if c not in ("segs_per_gro",) else 1) for c in COUNTERS]


COUNTER_HEAD = ["maps/pkt", "allocs/pkt", "recycled/pkt", "segs/GRO",
                "bytes/truesize", "doorbells/pkt", "irqs/pkt"]


def table(head, lines):
    s = "| " + " | ".join(head) + " |\n|" + "|".join("---" for _ in head) + "|\n"
    for ln in lines:
        s += "| " + " | ".join(ln) + " |\n"
    return s


def md_stream(rows, platform):
    out = ""
    for row in ordered(rows, platform, "stream"):
        out += f"\n**TCP stream, {row['row']}** (64000-byte writes)\n\n"
        lines = []
        for v in VARIANTS:
            if v not in row["variants"]:
                continue
            m = row["variants"][v]["median"]
            lines.append([v, str(m["reps"]), f(m.get("mbps")), "x" + f(m.get("ratio_to_default"), 2),
                          f(m.get("retransmits"), 0), f(m.get("hw_rx_out_of_buffer"), 0),
                          f(m.get("cpu_util_pct")), f(m.get("sd_us_per_kb"), 2),
                          f(m.get("send_sd_us_per_kb"), 2), f(m.get("recv_sd_us_per_kb"), 2)]
                         + counters_cells(m))
        out += table(["layout", "n", "Mbit/s", "vs default", "retrans", "rx no-buf",
                      "VM CPU %", "SD us/KB", "send SD", "recv SD"] + COUNTER_HEAD, lines)
    return out


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
                m = row["variants"][v]["median"]
                lines.append([str(row["params"]["size"]), v, str(m["reps"]), f(m.get("tps")),
                              "x" + f(m.get("ratio_to_default"), 2),
                              f(m.get("p50_us"), 0), f(m.get("p90_us"), 0), f(m.get("p99_us"), 0),
                              f(m.get("cpu_util_pct")), f(m.get("sd_us_per_trans"))]
                             + counters_cells(m))
        out += table(["size", "layout", "n", "R-R /s", "vs default", "p50 us", "p90 us",
                      "p99 us", "VM CPU %", "S.Demand us/trans"] + COUNTER_HEAD, lines)
    return out


def md_udp(rows):
    out = ""
    lines = []
    for row in ordered(rows, "default", "udp"):
        for v in VARIANTS:
            if v not in row["variants"]:
                continue
            m = row["variants"][v]["median"]
            lines.append([str(row["params"]["size"]), v, str(m["reps"]), f(m.get("sent_pps")),
                          f(m.get("recv_pps")),
                          "x" + f(m.get("ratio_to_default"), 2), f(m.get("recv_pct")),
                          f(m.get("recv_mbps")), f(m.get("cpu_util_pct")),
                          f(m.get("sd_us_per_kb"), 2)] + counters_cells(m))
    if lines:
        out += "\n**UDP stream, 1 flow, unlimited rate**\n\n"
        out += table(["payload", "layout", "n", "sent pkt/s", "recv pkt/s", "recv vs default",
                      "recv %", "recv Mbit/s", "VM CPU %", "SD us/KB"] + COUNTER_HEAD, lines)
    return out


def get(rows, platform, kind, row, variant, key="mbps"):
    r = rows.get((platform, kind, row))
    if not r or variant not in r["variants"]:
        return None
    return r["variants"][variant]["median"].get(key)


def ratio(a, b):
    return a / b if a is not None and b else None


def headline(rows):
    h = {}
    # Seed 000: mapping whole pages, legacy2012 -> wholepage2012, where maps
    # cost (swiotlb=force), 16 flows as uperf's 16 threads; 1 flow too.
    for plat in ("swiotlb", "default"):
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
    # The default against every comparison layout, every row.
    beats = {}
    for (plat, kind, rk), r in rows.items():
        d = r["variants"].get("default", {}).get("median", {}).get(MAIN[kind])
        for v in ("legacy2012", "wholepage2012", "onefrag2013"):
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
    return h


def md_headline(h, rows):
    s = "\n## Headline\n\n"
    lines = []
    for plat in ("default", "swiotlb"):
        for row in ("MTU 1500, 1 flow", "MTU 1500, 16 flows", "MTU 9000, 1 flow", "MTU 9000, 16 flows"):
            if (plat, "stream", row) not in rows:
                continue
            for v in VARIANTS[1:]:
                lines.append([plat, row, v,
                              "x" + f(ratio(get(rows, plat, "stream", row, v),
                                            get(rows, plat, "stream", row, "default")), 2),
                              f(get(rows, plat, "stream", row, v, "maps_per_pkt"), 3),
                              f(get(rows, plat, "stream", row, "default", "maps_per_pkt"), 3)])
    s += "Throughput of each layout relative to the default (median of the reps), TCP stream:\n\n"
    s += table(["platform", "row", "layout", "throughput vs default", "its maps/pkt",
                "default maps/pkt"], lines)
    s += "\nThe seeds' claims:\n\n"
    for k, v in h.items():
        if k.startswith("seed000"):
            s += (f"- seed 000 ({k[8:]}): legacy2012 {f(v['legacy2012_mbps'])} -> wholepage2012 "
                  f"{f(v['wholepage2012_mbps'])} Mbit/s = x{f(v['ratio'], 2)} (seed: x{v['seed_ratio']}); "
                  f"maps/pkt {f(v['legacy2012_maps_per_pkt'], 3)} -> {f(v['wholepage2012_maps_per_pkt'], 3)}\n")
        elif k.startswith("seed001"):
            s += (f"- seed 001 ({k[8:]}): wholepage2012 {f(v['wholepage2012_mbps'])} -> onefrag2013 "
                  f"{f(v['onefrag2013_mbps'])} Mbit/s = x{f(v['ratio'], 2)} (seed: x{v['seed_ratio']}); "
                  f"segments per GRO packet {f(v['wholepage2012_segs_per_gro'])} -> "
                  f"{f(v['onefrag2013_segs_per_gro'])} (seed: 8 -> 16 MSS)\n")
    s += "\nThe default layout against each comparison layout (main figure of every row, all platforms):\n\n"
    for v, b in h["default_vs_layouts"].items():
        s += f"- vs {v}: default as good or better in {b['default_better']} of {b['rows']} rows"
        s += ("; worse in: " + "; ".join(b["losses"])) if b["losses"] else ""
        s += "\n"
    return s


def plot_cmd(data, cols, title_of, valid):
    """gnuplot plot command for the columns COLS (1-based) that have at
    least one number (a series with none makes gnuplot fail)."""
    parts = [f"'{data}' using {c}:xtic(1) title '{title_of(c)}' "
             f"lc {VARIANTS.index(title_of(c)) + 1}" for c in cols if valid.get(c)]
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


def plots(d, rows):
    data = os.path.join(d, "plot-stream.dat")
    labels = []
    with open(data, "w") as fh:
        fh.write("row " + " ".join(VARIANTS) + " " + " ".join("sd_" + v for v in VARIANTS) + "\n")
        for plat in ("default", "swiotlb"):
            for r in ordered(rows, plat, "stream"):
                lab = f"{'swiotlb ' if plat == 'swiotlb' else ''}{r['row'].replace('MTU ', '').replace(', ', '/')}"
                labels.append(lab)
                vals = [get(rows, plat, "stream", r["row"], v) for v in VARIANTS]
                sds = [get(rows, plat, "stream", r["row"], v, "sd_us_per_kb") for v in VARIANTS]
                fh.write('"' + lab + '" ' + " ".join("NaN" if x is None else f"{x:.3f}"
                                                      for x in vals + sds) + "\n")
    n = len(VARIANTS)
    vv = valid_cols(data)
    common = ("set terminal png size 1200,560\nset style data histograms\n"
              "set style histogram clustered gap 1\nset style fill solid 0.8 border -1\n"
              "set key top left\nset grid ytics\nset xtics rotate by -20\nset yrange [0:*]\n")
    gp = common + (
        f"set output '{d}/stream-throughput.png'\n"
        "set title 'TCP stream throughput per RX layout (median, QEMU TCG: compare bars, not absolutes)'\n"
        "set ylabel 'Mbit/s'\n"
        + plot_cmd(data, range(2, n + 2), lambda c: VARIANTS[c - 2], vv) +
        f"set output '{d}/stream-service-demand.png'\n"
        "set title 'TCP stream service demand per RX layout (VM CPU-us per KB received, lower is better)'\n"
        "set ylabel 'us/KB'\n"
        + plot_cmd(data, range(n + 2, 2 * n + 2), lambda c: VARIANTS[c - 2 - n], vv))
    # Request/response and UDP stream: the main figure per row.
    for kind, ylabel, title in (("rr", "transactions/s", "Request/response rate per RX layout"),
                                ("udp", "received packets/s", "UDP stream received packets/s per RX layout")):
        rs = ordered(rows, "default", kind)
        if not rs:
            continue
        dat = os.path.join(d, f"plot-{kind}.dat")
        with open(dat, "w") as fh:
            fh.write("row " + " ".join(VARIANTS) + " " + " ".join("sd_" + v for v in VARIANTS) + "\n")
            for r in rs:
                vals = [get(rows, "default", kind, r["row"], v, MAIN[kind]) for v in VARIANTS]
                sds = [get(rows, "default", kind, r["row"], v, SD[kind]) for v in VARIANTS]
                fh.write('"' + r["row"] + '" ' + " ".join("NaN" if x is None else f"{x:.3f}"
                                                          for x in vals + sds) + "\n")
        sdl = "us/transaction" if kind == "rr" else "us/KB"
        kv = valid_cols(dat)
        gp += (f"set output '{d}/{kind}.png'\nset title '{title} (median)'\nset ylabel '{ylabel}'\n"
               + plot_cmd(dat, range(2, n + 2), lambda c: VARIANTS[c - 2], kv) +
               f"set output '{d}/{kind}-service-demand.png'\n"
               f"set title '{title.split(' per')[0]}: service demand (VM CPU {sdl}, lower is better)'\n"
               f"set ylabel '{sdl}'\n"
               + plot_cmd(dat, range(n + 2, 2 * n + 2), lambda c: VARIANTS[c - 2 - n], kv))
    with open(os.path.join(d, "plots.gp"), "w") as fh:
        fh.write(gp)
    if subprocess.run(["gnuplot", os.path.join(d, "plots.gp")]).returncode:
        print("report: gnuplot failed (plots.gp kept)", file=sys.stderr)
        return False
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--total-seconds", type=int)
    a = ap.parse_args()
    d = os.path.abspath(a.dir)
    conds, results, done, host, errors = load(d)
    if not results:
        sys.exit(f"report: no BENCH-RESULT lines under {d}")
    rows = aggregate(results)
    h = headline(rows)
    hs = host.get("start", {})
    doc = {"conditions": {"host": hs, "platforms": {p: dict(c, guest_seconds=done.get(p),
                                                            host=host.get(p))
                                                     for p, c in conds.items()},
                          "total_seconds": a.total_seconds},
           "unfinished_platforms": sorted(p for p in conds if p not in done),
           "notes": {
               "n": "repetitions of the row for that variant",
               "median": "each figure is the median of the repetitions, interleaved across variants",
               "sd_us_per_kb": "VM-wide busy CPU time (/proc/stat, both vCPUs, sender and receiver "
                               "and the device model together) per KB received, in the window after "
                               "the warm-up",
               "send_sd/recv_sd": "iperf3's per-process CPU (getrusage) of the sending / receiving "
                                  "process per KB: process context only, softirq elsewhere is not in it",
               "counters": "deltas of ethtool -S around the whole client run (warm-up included): "
                           "RX counters of the receiving port (both ports for request/response), "
                           "TX counters of the sending port (both for request/response)",
               "segs_per_gro": "rx_gro_segs / rx_gro_packets: frames per GRO packet handed up "
                               "(6.12 GRO chains skbs with frag_list once the frags are full)",
               "pages_recycled_per_pkt": "rx_page_recycle: estimated without PAGE_POOL_STATS "
                                         "(the stock kernel lacks it)",
               "irqs_per_pkt": "interrupts of the receiving port's channels (/proc/interrupts, "
                               "cxsim domain) per received frame",
           },
           "headline": h,
           "rows": list(rows.values()),
           "errors": errors,
           "raw": results}
    with open(os.path.join(d, "results.json"), "w") as fh:
        json.dump(doc, fh, indent=1)

    c0 = next(iter(conds.values()))
    md = "# cxen benchmark results\n\n"
    md += (f"Date {hs.get('date_utc')}, commit {hs.get('git_commit', '')[:12]}"
           f"{' (dirty)' if hs.get('git_dirty') else ''}; guest kernel {c0['kernel']}, "
           f"{c0['vcpus']} vCPUs, QEMU TCG ({hs.get('qemu')}); host {hs.get('host_cpus')} CPUs, "
           f"load average at start {hs.get('host_loadavg_start')}")
    for p, x in sorted(host.items()):
        if p != "start":
            md += f", after {p} {x.get('host_loadavg_end')}"
    md += (f". {c0['reps']} repetition(s) per variant, interleaved; median quoted; "
           f"durations {c0['durations_s']} s (+1 s warm-up for iperf3, 0.5 s for RR). "
           f"Channels per port: {c0['channels']}. Total duration: {a.total_seconds} s.\n\n"
           "Absolute numbers under QEMU TCG mean little (the NIC is a model in the same "
           "kernel, on the same 2 vCPUs): compare the layouts side by side. veth is the "
           "software reference in the same VM.\n")
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
    md += "\n## Request/response (seed 002)\n" + md_rr(rows)
    md += "\n## UDP stream (seed 003)\n" + md_udp(rows)
    md += ("\n## Columns\n\n" + "\n".join(f"- `{k}`: {v}" for k, v in doc["notes"].items()) + "\n"
           "- `rx no-buf`: hw_rx_out_of_buffer, frames the device dropped because the RX ring was empty\n")
    with open(os.path.join(d, "results.md"), "w") as fh:
        fh.write(md)
    ok = plots(d, rows)
    print(f"report: {len(results)} measurements, {len(rows)} rows -> {d}/results.md")
    if not ok:
        sys.exit(1)


if __name__ == "__main__":
    main()
