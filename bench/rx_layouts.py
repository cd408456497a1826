#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""RX buffer layouts of issue 22: today's default, striding, striding +
header/data split, side by side in one VM (make bench, platform layouts).

    bench/rx_layouts.py [--reps N] [--warm S] [--secs S] [--channels N]
                        [--mtus 1500,9000] [--layouts L,..] [--quick]
    (on the host it boots the stock kernel with the cabled pair and runs
    itself inside: tests/vm/run --pair -- bench/rx_layouts.py ...)

For each MTU, each repetition and each layout in turn (interleaved, so
that a drift of the host falls on every layout alike), with both ports
on the layout and cxen1 receiving:

  memory     pages the page pools hold (page_pool's hold/release
             tracepoints, tests/vm/pp-trace, both ports' pools) per RX
             queue: idle after the switch (what the rings post), and in
             the middle of the TCP stream (ring + in flight)
  stream     one TCP flow (iperf3) cx0 -> cx1, warm-up + window seconds;
             over the window, from cxen1's ethtool -S: Mbit/s, frames,
             maps and page allocations per frame (the pools' pages: each
             is mapped once, when allocated), segments per GRO packet,
             frame bytes / truesize as the driver charges each frame
             (before GRO); CPU per KB from /proc/stat (busy = window x
             CPUs - idle: under TCG the tick columns undercount)
  socket     bytes / truesize as the receiving socket is charged, after
             GRO (tests/integration/sock_truesize.py: SO_MEMINFO of an
             unread 2 MiB TCP stream, and of 1000 UDP datagrams of 64
             bytes)
  udp64      the driver's frame bytes / truesize over those 64-byte
             datagrams, rx-copybreak 0 on cxen1 (no frame copied)
  strides    on the striding layouts, frame bytes / what the frames'
             strides pin (rx_stride_truesize: strides consumed x stride
             size) plus, for a split frame, its header buffer
             (CXEN_HDR_BUF_SIZE): issue 22's definition, skb heads left
             out

Printed: one line per measurement, then a table of min / median / max
per layout and MTU, then "# json {...}" with every figure.
"""
import argparse
import glob
import json
import os
import re
import statistics
import subprocess
import time

import pairlib
from pairlib import ns

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SOCK = os.path.join(ROOT, "tests/integration/sock_truesize.py")
LAYOUTS = ["default", "striding", "striding+split"]
COUNTERS = ["rx_packets", "rx_bytes", "rx_truesize_bytes", "rx_dma_map",
            "rx_page_alloc", "rx_gro_packets", "rx_gro_segs",
            "rx_hdr_split", "rx_copybreak", "hw_rx_out_of_buffer",
            "rx_stride_truesize"]
PAGE = os.sysconf("SC_PAGESIZE")


def hdr_buf_size():
    """The bytes a split frame's header buffer pins (en_frag.h's
    CXEN_HDR_BUF_SIZE): issue 22 charges it to the frame with its
    strides."""
    with open(os.path.join(ROOT, "en_frag.h")) as f:
        m = re.search(r"#define CXEN_HDR_BUF_SIZE\s+(\d+)", f.read())
    if not m:
        raise SystemExit("rx_layouts: no CXEN_HDR_BUF_SIZE in en_frag.h")
    return int(m.group(1))


HDR_BUF = hdr_buf_size()


def ethtool_split():
    """An ethtool that knows tcp-data-split (Debian 12's 6.1 does not):
    scripts/newer-ethtool's, passed by bench/run or from its cache."""
    d = os.environ.get("CXEN_ETHTOOL_DIR")
    found = sorted(glob.glob("/var/cache/cxen/ethtool-*/usr/sbin/ethtool"))
    et = os.path.join(d, "ethtool") if d else (found[-1] if found else None)
    if not et or not os.access(et, os.X_OK):
        raise SystemExit("rx_layouts: no ethtool with tcp-data-split "
                         "(run scripts/newer-ethtool on the host)")
    return et


def set_layout(layout, et):
    """Both ports to @layout; split goes off before striding does."""
    striding = "on" if layout.startswith("striding") else "off"
    split = "on" if layout == "striding+split" else "off"
    for i in (0, 1):
        n, dev = f"cx{i}", f"cxen{i}"
        if split == "off":
            ns(n, et, "-G", dev, "tcp-data-split", "off")
        # auto off: "default" is the default layout at every MTU.
        ns(n, "ethtool", "--set-priv-flags", dev, "striding", striding,
           "auto", "off")
        if split == "on":
            ns(n, et, "-G", dev, "tcp-data-split", "on")


def set_mtu(mtu):
    for i in (0, 1):
        pairlib.sh("ip", "-n", f"cx{i}", "link", "set", "dev", f"cxen{i}",
                   "mtu", str(mtu))


def held_pages():
    p = pairlib.pp_pages()
    return p["pp_page_alloc"] - p["pp_page_release"]


def cpu_idle():
    """(idle + iowait ticks of all CPUs, tick rate, CPUs)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    return v[3] + v[4], os.sysconf("SC_CLK_TCK"), os.cpu_count()


def stream(warm, secs, queues):
    srv = subprocess.Popen(["ip", "netns", "exec", "cx1", "iperf3", "-s", "-1",
                            "-B", "192.0.2.2"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    for _ in range(100):
        if ns("cx1", "ss", "-Hltn", "sport = :5201").strip():
            break
        time.sleep(0.1)
    cli = subprocess.Popen(["ip", "netns", "exec", "cx0", "iperf3", "-c",
                            "192.0.2.2", "-t", str(warm + secs), "-J"],
                           stdout=subprocess.PIPE, text=True)
    time.sleep(warm)
    a = pairlib.stats("cx1", "cxen1", COUNTERS)
    a.update(pairlib.pp_pages())
    t0, (i0, hz, ncpu) = time.monotonic(), cpu_idle()
    time.sleep(secs / 2)
    held = held_pages()
    time.sleep(secs / 2)
    t1, (i1, _, _) = time.monotonic(), cpu_idle()
    b = pairlib.stats("cx1", "cxen1", COUNTERS)
    b.update(pairlib.pp_pages())
    out, _ = cli.communicate(timeout=warm + secs + 60)
    try:
        srv.wait(timeout=30)
    except subprocess.TimeoutExpired:
        srv.kill()
        raise RuntimeError(f"iperf3 server still running after the client: {out}")
    res = json.loads(out)
    d = {k: b.get(k, 0) - a.get(k, 0) for k in COUNTERS + ["pp_page_alloc"]}
    pk = max(d["rx_packets"], 1)
    busy_s = (t1 - t0) * ncpu - (i1 - i0) / hz
    return {
        "window_s": t1 - t0, "busy_s": busy_s, "deltas": d,
        "mbit_s": d["rx_bytes"] * 8 / (t1 - t0) / 1e6,
        "iperf3_mbit_s": res["end"]["sum_received"]["bits_per_second"] / 1e6,
        "cpu_us_per_kb": busy_s * 1e6 / max(d["rx_bytes"] / 1024, 1),
        "frames": d["rx_packets"],
        # The driver's own maps and pages (comparison layouts) and the
        # pools' (both ports'): a pool maps each page once, when it
        # allocates it.
        "maps_per_pkt": (d["rx_dma_map"] + d["pp_page_alloc"]) / pk,
        "allocs_per_pkt": (d["rx_page_alloc"] + d["pp_page_alloc"]) / pk,
        "segs_per_gro": d["rx_gro_segs"] / max(d["rx_gro_packets"], 1),
        "bytes_per_truesize": d["rx_bytes"] / max(d["rx_truesize_bytes"], 1),
        # What the frames' strides and header buffers pin.
        "bytes_per_strides": d["rx_bytes"] /
        (d["rx_stride_truesize"] + d["rx_hdr_split"] * HDR_BUF)
        if d["rx_stride_truesize"] else None,
        "split_frames": d["rx_hdr_split"],
        "out_of_buffer": d["hw_rx_out_of_buffer"],
        "mem_kib_per_queue_load": held * PAGE / 1024 / queues,
    }


def sock_ratio(kind, *extra):
    out = subprocess.run(["python3", SOCK, kind, "cx1", "192.0.2.2", "cx0",
                          *extra], capture_output=True, text=True, timeout=300)
    last = (out.stdout.strip().splitlines() or [""])[-1].split()
    if out.returncode or "ratio" not in last:
        raise RuntimeError(f"sock_truesize {kind}: {out.stdout}{out.stderr}")
    return float(last[last.index("ratio") + 1])


def udp64():
    """The driver's bytes / truesize over 1000 datagrams of 64 bytes,
    rx-copybreak 0 (every frame in its buffer), and the socket's."""
    old = ns("cx1", "ethtool", "--get-tunable", "cxen1", "rx-copybreak")
    old = old.split(":")[-1].strip()
    ns("cx1", "ethtool", "--set-tunable", "cxen1", "rx-copybreak", "0")
    try:
        a = pairlib.stats("cx1", "cxen1", COUNTERS)
        sock = sock_ratio("udp", "64000", "64")
        b = pairlib.stats("cx1", "cxen1", COUNTERS)
    finally:
        ns("cx1", "ethtool", "--set-tunable", "cxen1", "rx-copybreak", old)
    d = {k: b.get(k, 0) - a.get(k, 0) for k in COUNTERS}
    return {"udp64_bytes_per_truesize": d["rx_bytes"] / max(d["rx_truesize_bytes"], 1),
            "udp64_bytes_per_strides": d["rx_bytes"] / d["rx_stride_truesize"]
            if d["rx_stride_truesize"] else None,
            "udp64_copied": d["rx_copybreak"],
            "udp64_sock_ratio": sock}


def measure(layout, mtu, args, et):
    set_layout(layout, et)
    time.sleep(1)
    idle = held_pages()
    r = stream(args.warm, args.secs, 2 * args.channels)
    r["mem_kib_per_queue_idle"] = idle * PAGE / 1024 / (2 * args.channels)
    r["tcp_sock_ratio"] = sock_ratio("tcp", str(2 * 1024 * 1024))
    r.update(udp64())
    r.update({"layout": layout, "mtu": mtu})
    return r


COLS = [("Mbit/s", "mbit_s", "{:.0f}"), ("CPU us/KB", "cpu_us_per_kb", "{:.2f}"),
        ("maps/pkt", "maps_per_pkt", "{:.3f}"), ("allocs/pkt", "allocs_per_pkt", "{:.3f}"),
        ("segs/GRO", "segs_per_gro", "{:.1f}"),
        ("B/truesize", "bytes_per_truesize", "{:.3f}"),
        ("B/strides", "bytes_per_strides", "{:.3f}"),
        ("sock TCP", "tcp_sock_ratio", "{:.3f}"),
        ("udp64 B/ts", "udp64_bytes_per_truesize", "{:.3f}"),
        ("udp64 B/str", "udp64_bytes_per_strides", "{:.3f}"),
        ("sock udp64", "udp64_sock_ratio", "{:.3f}"),
        ("KiB/q idle", "mem_kib_per_queue_idle", "{:.0f}"),
        ("KiB/q load", "mem_kib_per_queue_load", "{:.0f}")]


def table(rows, mtus, layouts):
    """min / median / max of every column, per MTU and layout."""
    lines = []
    for mtu in mtus:
        lines.append(f"MTU {mtu}:")
        for key_name, key, fmt in COLS:
            cells = []
            for lay in layouts:
                v = [r[key] for r in rows if r["mtu"] == mtu and r["layout"] == lay
                     and r[key] is not None]
                if not v:
                    cells.append("-")
                    continue
                lo, med, hi = min(v), statistics.median(v), max(v)
                cells.append(fmt.format(med) if len(v) == 1 else
                             f"{fmt.format(lo)}/{fmt.format(med)}/{fmt.format(hi)}")
            lines.append(f"  {key_name:14} " + " ".join(f"{c:>22}" for c in cells))
        lines.append(f"  {'':14} " + " ".join(f"{lay:>22}" for lay in layouts))
    return "\n".join(lines)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--warm", type=float, default=4)
    ap.add_argument("--secs", type=float, default=8)
    ap.add_argument("--channels", type=int, default=2)
    ap.add_argument("--mtus", default="1500,9000")
    ap.add_argument("--layouts", default=",".join(LAYOUTS))
    ap.add_argument("--quick", action="store_true",
                    help="one repetition, 2 s warm-up, 4 s window")
    args = ap.parse_args()
    if args.quick:
        args.reps, args.warm, args.secs = 1, 2, 4

    pairlib.in_vm("bench/rx_layouts.py")
    et = ethtool_split()
    mtus = [int(m) for m in args.mtus.split(",")]
    layouts = args.layouts.split(",")
    for lay in layouts:
        if lay not in LAYOUTS:
            raise SystemExit(f"rx_layouts: no layout {lay} (one of {LAYOUTS})")

    # Every pool is created after the tracepoints are on: held pages =
    # allocated - released.
    for i in (0, 1):
        pairlib.sh("ip", "-n", f"cx{i}", "link", "set", "dev", f"cxen{i}", "down")
    pairlib.pp_pages()
    for i in (0, 1):
        ns(f"cx{i}", "ethtool", "-L", f"cxen{i}", "combined", str(args.channels))
        pairlib.sh("ip", "-n", f"cx{i}", "link", "set", "dev", f"cxen{i}", "up")
    time.sleep(3)

    print(f"# {args.warm:g} s warm-up, {args.secs:g} s window, {args.channels} "
          f"channels, rx ring {ns('cx1', 'ethtool', '-g', 'cxen1').split('RX:')[-1].split()[0]}, "
          f"cx0 -> cx1, {PAGE}-byte pages, kernel {os.uname().release}", flush=True)
    rows = []
    for mtu in mtus:
        set_layout("default", et)
        set_mtu(mtu)
        time.sleep(2)
        for rep in range(args.reps):
            for lay in layouts:
                r = measure(lay, mtu, args, et)
                r["rep"] = rep
                rows.append(r)
                print(f"MTU {mtu} rep {rep} {lay:15} " +
                      " ".join(f"{n}={'-' if r[k] is None else fmt.format(r[k])}"
                               for n, k, fmt in COLS),
                      flush=True)
    set_layout("default", et)
    set_mtu(1500)
    print(table(rows, mtus, layouts), flush=True)
    print("# json " + json.dumps({"warm_s": args.warm, "window_s": args.secs,
                                  "channels": args.channels, "reps": args.reps,
                                  "page_size": PAGE,
                                  "kernel": os.uname().release, "rows": rows}))


if __name__ == "__main__":
    main()
