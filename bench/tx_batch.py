#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""TX doorbell batching, on and off, side by side (issue 5's measurement).

    bench/tx_batch.py [--secs S] [--reps N] [--channels N] [--rows R,..]
    (on the host it boots the stock kernel with the cabled pair and runs
    itself inside: tests/vm/run --pair -- bench/tx_batch.py ...)

Rows (cx0 -> cx1, MTU 1500): tcp1 and tcp16 (iperf3 TCP, 1 and 16
streams), udp64, udp128, udp1024, udp1472 (iperf3 UDP at full rate, 4
streams, that payload), and pktgen64 (the kernel's pktgen on cxen0,
60-byte UDP frames in bursts of 16 with xmit_more set on all but the
last of each burst: the batch the stack gives a driver when its queue
is backlogged, which one iperf3 thread rarely builds). Each row runs with the
devlink parameter tx_doorbell_batch true (ring the doorbell only when
netdev_xmit_more() is false or the queue is about to stop) and false (a
doorbell per packet), alternating,
--reps times; the median of each is printed. From cxen0's ethtool -S
over the run: TX doorbells per packet, packets per second sent, queue
stops; for UDP the datagrams cx1 received (netstat Udp InDatagrams; for pktgen,
cxen1's rx_packets). The
last line is "# json {...}" with every repetition.
"""
import argparse
import json
import os
import statistics
import subprocess
import time

import pairlib
from pairlib import ns, sh

ROWS = {
    "tcp1": ("tcp", 1, 0), "tcp16": ("tcp", 16, 0),
    "udp64": ("udp", 4, 64), "udp128": ("udp", 4, 128),
    "udp1024": ("udp", 4, 1024), "udp1472": ("udp", 4, 1472),
    "pktgen64": ("pktgen", 16, 60),
}
PKTGEN_COUNT = 300000
COUNTERS = ["tx_packets", "tx_bytes", "tx_doorbell", "tx_queue_stop",
            "tx_tso_packets"]
PARAM = "tx_doorbell_batch"   # devlink dev param of the ports' device


def stats(n, dev):
    return pairlib.stats(n, dev, COUNTERS)


def rx_packets(n, dev):
    for line in ns(n, "ethtool", "-S", dev).splitlines():
        k, _, v = line.strip().partition(": ")
        if k == "rx_packets":
            return int(v)
    return 0


def udp_in(n):
    for line in ns(n, "nstat", "-asz", "UdpInDatagrams").splitlines():
        f = line.split()
        if f and f[0] == "UdpInDatagrams":
            return int(f[1])
    return 0


def pg_write(ns_name, path, cmd):
    ns(ns_name, "sh", "-c", f"echo '{cmd}' > {path}")


def pktgen(burst, size):
    """PKTGEN_COUNT frames of @size bytes from cxen0 in bursts of @burst.
    Returns (seconds, packets sent) from pktgen's result line."""
    mac = ns("cx1", "cat", "/sys/class/net/cxen1/address").strip()
    th, dev = "/proc/net/pktgen/kpktgend_0", "/proc/net/pktgen/cxen0"
    pg_write("cx0", th, "rem_device_all")
    pg_write("cx0", th, "add_device cxen0")
    for cmd in (f"count {PKTGEN_COUNT}", f"pkt_size {size}", f"burst {burst}",
                "delay 0", "dst 192.0.2.2", f"dst_mac {mac}",
                "udp_dst_min 9", "udp_dst_max 9"):
        pg_write("cx0", dev, cmd)
    # Writing start to pgctrl returns when the run is over.
    pg_write("cx0", "/proc/net/pktgen/pgctrl", "start")
    res = ns("cx0", "cat", dev)
    # "Result: OK: 1234567(c...+d...) usec, 300000 (60byte,0frags)"
    for line in res.splitlines():
        line = line.strip()
        if line.startswith("Result: OK:"):
            usec = int(line.split()[2].split("(")[0])
            sent = int(line.split("usec,")[1].split()[0])
            pg_write("cx0", th, "rem_device_all")
            return usec / 1e6, sent
    raise RuntimeError("pktgen: no result: " + res)


def measure(dl, row, batch, secs):
    proto, streams, size = ROWS[row]
    pairlib.devlink_set(dl, PARAM, "true" if batch else "false")
    if proto == "pktgen":
        a, r0 = stats("cx0", "cxen0"), rx_packets("cx1", "cxen1")
        got_s, sent = pktgen(streams, size)
        b, r1 = stats("cx0", "cxen0"), rx_packets("cx1", "cxen1")
        d = {k: b[k] - a[k] for k in COUNTERS}
        return {"row": row, "batch": batch, "secs": got_s,
                "tx_packets": d["tx_packets"], "doorbells": d["tx_doorbell"],
                "doorbells_per_pkt": d["tx_doorbell"] / max(d["tx_packets"], 1),
                "queue_stops": d["tx_queue_stop"], "tso_packets": 0,
                "mbit_s": d["tx_bytes"] * 8 / got_s / 1e6,
                "sent_pps": sent / got_s, "sent": sent, "received": r1 - r0}
    srv = subprocess.Popen(["ip", "netns", "exec", "cx1", "iperf3", "-s", "-1",
                            "-B", "192.0.2.2"], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    for _ in range(50):
        if "5201" in ns("cx1", "ss", "-Hltn", "sport = :5201"):
            break
        time.sleep(0.1)
    cmd = ["ip", "netns", "exec", "cx0", "iperf3", "-c", "192.0.2.2",
           "-P", str(streams), "-t", str(secs), "-J"]
    if proto == "udp":
        cmd += ["-u", "-b", "0", "-l", str(size)]
    a, u0 = stats("cx0", "cxen0"), udp_in("cx1")
    t0 = time.monotonic()
    out = subprocess.run(cmd, check=True, capture_output=True, text=True,
                         timeout=secs + 60).stdout
    t1 = time.monotonic()
    b, u1 = stats("cx0", "cxen0"), udp_in("cx1")
    srv.wait(timeout=30)
    d = {k: b[k] - a[k] for k in COUNTERS}
    end = json.loads(out)["end"]
    pk = max(d["tx_packets"], 1)
    r = {"row": row, "batch": batch, "secs": t1 - t0,
         "tx_packets": d["tx_packets"], "doorbells": d["tx_doorbell"],
         "doorbells_per_pkt": d["tx_doorbell"] / pk,
         "queue_stops": d["tx_queue_stop"], "tso_packets": d["tx_tso_packets"]}
    if proto == "tcp":
        r["mbit_s"] = end["sum_received"]["bits_per_second"] / 1e6
        r["retransmits"] = end["sum_sent"].get("retransmits", 0)
    else:
        s = end["sum"]
        r["mbit_s"] = s["bits_per_second"] / 1e6
        r["sent_pps"] = s["packets"] / max(s["seconds"], 1e-9)
        r["received"] = u1 - u0
        r["sent"] = s["packets"]
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--secs", type=float, default=8)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--channels", type=int, default=2)
    ap.add_argument("--rows", default=",".join(ROWS),
                    help="comma-separated subset of " + ",".join(ROWS))
    args = ap.parse_args()

    pairlib.in_vm("bench/tx_batch.py")
    dl = pairlib.devlink_handle()

    for i in (0, 1):
        ns(f"cx{i}", "ethtool", "-L", f"cxen{i}", "combined", str(args.channels))
    if "pktgen64" in args.rows.split(","):
        sh("modprobe", "pktgen")
    print(f"# {args.secs:g} s per run, median of {args.reps}, batching on/off "
          f"alternating, MTU 1500, {args.channels} channels, cx0 -> cx1, "
          "counters of cxen0")
    print(f"{'row':8} {'batch':>5} {'Mbit/s':>8} {'kpps':>8} {'db/pkt':>7} "
          f"{'stops':>6} {'rx/sent':>8}")
    runs = []
    for row in args.rows.split(","):
        got = {1: [], 0: []}
        for _ in range(args.reps):
            for batch in (1, 0):
                r = measure(dl, row, batch, args.secs)
                runs.append(r)
                got[batch].append(r)
        for batch in (1, 0):
            rs = got[batch]
            med = {k: statistics.median(x[k] for x in rs)
                   for k in ("mbit_s", "doorbells_per_pkt", "queue_stops")}
            kpps = statistics.median(x["tx_packets"] / x["secs"] for x in rs) / 1e3
            ratio = "-"
            if "received" in rs[0]:
                ratio = f"{statistics.median(x['received'] / max(x['sent'], 1) for x in rs):.3f}"
            print(f"{row:8} {batch:5} {med['mbit_s']:8.1f} {kpps:8.1f} "
                  f"{med['doorbells_per_pkt']:7.3f} {med['queue_stops']:6.0f} "
                  f"{ratio:>8}", flush=True)
    pairlib.devlink_set(dl, PARAM, "true")
    print("# json " + json.dumps({"secs": args.secs, "reps": args.reps,
                                  "channels": args.channels,
                                  "kernel": os.uname().release, "runs": runs}))


if __name__ == "__main__":
    main()
