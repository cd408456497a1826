#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""How many times slower the VM runs a packet's path than the host does:
the factor the model's device latencies are scaled by under emulation
(Documentation/testing.rst, "Device time under emulation").

    bench/calib.py [--secs S] [--reps N] [--json]

Run natively on the host and again inside the VM (the same script, the
same tools): a veth pair between two network namespaces, TSO off and GRO
on at both ends (every 1500-byte frame crosses the pair on its own, the
per-frame work of a NIC's path outside its driver and device), one TCP
stream (iperf3) for S seconds (default 3), N times (default 3). Per run:
frames received and the machine's busy CPU time from /proc/stat (busy =
total - idle - iowait, all CPUs); the figure is the median of the runs'
CPU ns per frame. Printed: one line per run, then "calib ns_per_frame=N"
(and with --json a "# json {...}" line). The factor is the VM's figure
over the host's: bench/run computes it and passes the scaled latency
to cxsim.
"""
import argparse
import json
import os
import statistics
import subprocess
import time

NS = ("cxcal0", "cxcal1")
DEV = ("cxcv0", "cxcv1")
ADDR = ("10.251.0.1", "10.251.0.2")


def sh(*argv, check=True):
    return subprocess.run(argv, check=check, capture_output=True, text=True).stdout


def nsx(n, *argv, check=True):
    return sh("ip", "netns", "exec", NS[n], *argv, check=check)


def busy_jiffies():
    with open("/proc/stat") as fh:
        v = [int(x) for x in fh.readline().split()[1:]]
    return sum(v) - v[3] - v[4]


def rx_frames():
    return int(nsx(1, "cat", f"/sys/class/net/{DEV[1]}/statistics/rx_packets"))


def setup():
    teardown()
    for n in NS:
        sh("ip", "netns", "add", n)
    sh("ip", "link", "add", DEV[0], "netns", NS[0], "type", "veth",
       "peer", "name", DEV[1], "netns", NS[1])
    for i in (0, 1):
        nsx(i, "ip", "addr", "add", ADDR[i] + "/24", "dev", DEV[i])
        nsx(i, "ip", "link", "set", DEV[i], "up")
        nsx(i, "ethtool", "-K", DEV[i], "tso", "off", "gro", "on")


def teardown():
    for n in NS:
        sh("ip", "netns", "del", n, check=False)


def run(secs):
    srv = subprocess.Popen(["ip", "netns", "exec", NS[1], "iperf3", "-s", "-1",
                            "--forceflush"], stdout=subprocess.PIPE,
                           stderr=subprocess.DEVNULL, text=True)
    for ln in srv.stdout:
        if "listening" in ln:
            break
    cli = subprocess.Popen(["ip", "netns", "exec", NS[0], "iperf3", "-c", ADDR[1],
                            "-t", str(secs + 2)], stdout=subprocess.DEVNULL,
                           stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    hz = os.sysconf("SC_CLK_TCK")
    f0, b0, t0 = rx_frames(), busy_jiffies(), time.monotonic()
    time.sleep(secs)
    f1, b1, t1 = rx_frames(), busy_jiffies(), time.monotonic()
    # A client that failed leaves the one-shot server waiting: stop it.
    for p in (cli, srv):
        try:
            p.wait(timeout=secs + 10)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait()
    frames = f1 - f0
    busy_ns = (b1 - b0) * 1e9 / hz
    return {"frames": frames, "window_s": round(t1 - t0, 3),
            "busy_s": round(busy_ns / 1e9, 3),
            "ns_per_frame": round(busy_ns / frames, 1) if frames else None}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--secs", type=float, default=3.0)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--json", action="store_true")
    a = ap.parse_args()
    setup()
    try:
        runs = [run(a.secs) for _ in range(a.reps)]
    finally:
        teardown()
    for r in runs:
        print("calib run", " ".join(f"{k}={v}" for k, v in r.items()))
    vals = [r["ns_per_frame"] for r in runs if r["ns_per_frame"]]
    if not vals:
        raise SystemExit("calib: no frame crossed the veth pair")
    med = statistics.median(vals)
    print(f"calib ns_per_frame={med:.1f}")
    if a.json:
        print("# json " + json.dumps({"ns_per_frame": med, "runs": runs}))


if __name__ == "__main__":
    main()
