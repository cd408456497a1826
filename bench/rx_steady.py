#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""RX buffer layouts at steady state (issue 4's measurement).

    bench/rx_steady.py [--warm S] [--secs S] [--channels N] [--layouts L,..]
                       [--flows N,..] [--pause on,off]
    (on the host it boots the stock kernel with the cabled pair and runs
    itself inside: tests/vm/run --pair -- bench/rx_steady.py ...)

For each RX layout (default page_pool, legacy2012, wholepage2012,
onefrag2013) and for 1 and 16 TCP flows (iperf3, MTU 1500, cx0 -> cx1):
the stream runs warm-up + window seconds; cxen1's ethtool -S counters are
read at the start and the end of the window only, so the socket buffers
and the page_pool have grown to their working size before anything is
counted. Printed per row: throughput over the window, DMA maps, page
allocations, pages the pools gave back to the page allocator (frees) and
pages recycled per received packet, segments per GRO
packet, received bytes / truesize, frames the device dropped for want of
a posted buffer (no-buf) and PAUSE frames cxen1 sent (pause). --pause
off turns link flow control off on both ports (ethtool -A), so the
receiver drops what it cannot take instead of holding the sender. The
last line is "# json {...}" with every figure.
"""
import argparse
import json
import os
import subprocess
import time

import pairlib
from pairlib import ns

LAYOUTS = ["default", "legacy2012", "wholepage2012", "onefrag2013"]
# "default" is every flag off, auto too (the automatic choice).
FLAGS = ["legacy2012", "wholepage2012", "onefrag2013", "auto"]
COUNTERS = ["rx_packets", "rx_bytes", "rx_dma_map", "rx_page_alloc",
            "rx_page_start", "rx_gro_packets", "rx_gro_segs",
            "rx_truesize_bytes", "rx_alloc_fail", "hw_rx_out_of_buffer",
            "hw_tx_pause", "pp_page_alloc", "pp_page_release"]


def stats(n, dev):
    """cxen1's counters, and the page pools' pages (both ports' pools: in
    steady state cxen0's, which receives only ACKs, take none)."""
    s = pairlib.stats(n, dev, COUNTERS)
    s.update(pairlib.pp_pages())
    return s


def set_layout(layout):
    for i in (0, 1):
        args = []
        for f in FLAGS:
            args += [f, "on" if f == layout else "off"]
        ns(f"cx{i}", "ethtool", "--set-priv-flags", f"cxen{i}", *args)


def set_pause(on):
    for i in (0, 1):
        ns(f"cx{i}", "ethtool", "-A", f"cxen{i}", "rx", on, "tx", on)


def measure(layout, flows, pause, warm, secs):
    set_layout(layout)
    set_pause(pause)
    time.sleep(1)
    srv = subprocess.Popen(["ip", "netns", "exec", "cx1", "iperf3", "-s", "-1",
                            "-B", "192.0.2.2"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    time.sleep(0.5)
    cli = subprocess.Popen(["ip", "netns", "exec", "cx0", "iperf3", "-c", "192.0.2.2",
                            "-P", str(flows), "-t", str(warm + secs), "-J"],
                           stdout=subprocess.PIPE, text=True)
    time.sleep(warm)
    t0, a = time.monotonic(), stats("cx1", "cxen1")
    time.sleep(secs)
    t1, b = time.monotonic(), stats("cx1", "cxen1")
    out, _ = cli.communicate(timeout=warm + secs + 60)
    srv.wait(timeout=30)
    d = {k: b[k] - a[k] for k in COUNTERS}
    pk = max(d["rx_packets"], 1)
    res = json.loads(out)
    return {
        "layout": layout, "flows": flows, "pause": pause,
        "mbit_s": d["rx_bytes"] * 8 / (t1 - t0) / 1e6,
        "iperf3_mbit_s": res["end"]["sum_received"]["bits_per_second"] / 1e6,
        "retransmits": res["end"]["sum_sent"].get("retransmits", 0),
        "packets": d["rx_packets"],
        # The driver's own maps and pages (comparison layouts), and the
        # page_pool's (default layout), which maps each page it allocates.
        "maps_per_pkt": (d["rx_dma_map"] + d["pp_page_alloc"]) / pk,
        "allocs_per_pkt": (d["rx_page_alloc"] + d["pp_page_alloc"]) / pk,
        "recycled_per_pkt": max(d["rx_page_start"] - d["rx_page_alloc"]
                                - d["pp_page_alloc"], 0) / pk,
        "released_per_pkt": d["pp_page_release"] / pk,
        "segs_per_gro": d["rx_gro_segs"] / max(d["rx_gro_packets"], 1),
        "bytes_per_truesize": d["rx_bytes"] / max(d["rx_truesize_bytes"], 1),
        "alloc_fail": d["rx_alloc_fail"],
        "out_of_buffer": d["hw_rx_out_of_buffer"],
        "pause_frames": d["hw_tx_pause"],
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--warm", type=float, default=8)
    ap.add_argument("--secs", type=float, default=10)
    ap.add_argument("--channels", type=int, default=2)
    ap.add_argument("--layouts", default=",".join(LAYOUTS),
                    help="comma-separated subset of " + ",".join(LAYOUTS))
    ap.add_argument("--flows", default="1,16", help="comma-separated flow counts")
    ap.add_argument("--pause", default="on",
                    help="link flow control: on, off or on,off (both, side by side)")
    args = ap.parse_args()

    pairlib.in_vm("bench/rx_steady.py")

    for i in (0, 1):
        ns(f"cx{i}", "ethtool", "-L", f"cxen{i}", "combined", str(args.channels))
    rows = []
    print(f"# {args.warm:g} s warm-up, {args.secs:g} s window, MTU 1500, "
          f"{args.channels} channels, cx0 -> cx1, counters of cxen1")
    print(f"{'layout':14} {'flows':>5} {'pause':>5} {'Mbit/s':>8} {'retr':>5} "
          f"{'maps/pkt':>9} {'allocs/pkt':>10} {'frees/pkt':>9} {'recyc/pkt':>9} {'segs/GRO':>8} "
          f"{'B/truesize':>10} {'no-buf':>6} {'pause':>6}")
    for flows in (int(f) for f in args.flows.split(",")):
        for pause in args.pause.split(","):
            for layout in args.layouts.split(","):
                r = measure(layout, flows, pause, args.warm, args.secs)
                rows.append(r)
                print(f"{layout:14} {flows:5} {pause:>5} {r['mbit_s']:8.1f} "
                      f"{r['retransmits']:5} {r['maps_per_pkt']:9.4f} "
                      f"{r['allocs_per_pkt']:10.4f} {r['released_per_pkt']:9.4f} "
                      f"{r['recycled_per_pkt']:9.4f} "
                      f"{r['segs_per_gro']:8.1f} {r['bytes_per_truesize']:10.3f} "
                      f"{r['out_of_buffer']:6} {r['pause_frames']:6}", flush=True)
    set_layout("default")
    set_pause("on")
    # The VM sees the host read-only: the figures go out on stdout.
    print("# json " + json.dumps({"warm_s": args.warm, "window_s": args.secs,
                                  "channels": args.channels,
                                  "kernel": os.uname().release, "rows": rows}))


if __name__ == "__main__":
    main()
