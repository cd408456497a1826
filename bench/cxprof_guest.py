#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of `make profile` with the instruction counter (the default).

    bench/cxprof_guest.py [--workloads tcp1,tcp16,rr1,udp64] [--layouts default,...]
                          [--duration S] [--warm S] [--reps N]

Runs inside the VM that bench/profile boots with the cxprof QEMU plugin
(tests/vm/run --plugin; bench/plugin/cxprof.c). For each workload, RX
layout and repetition it starts the traffic, waits WARM seconds, reads
the ports' counters, opens the plugin's window (executes "xchg %bx,%bx"
from this process: the plugin sees that instruction's bytes), sleeps S
seconds, closes it ("xchg %cx,%cx") and reads the counters again. The
plugin numbers the windows in the order they close; so does this script
("window" in each PROFILE-RESULT line).

First it prints the guest's text symbols (/proc/kallsyms, types t/T/w/W)
and the module sections (/sys/module/{cxen,cxsim}/sections/*) as one
"PROFILE-SYMS <base64 of zlib>" lines: the kernel's and the modules'
addresses are randomised (KASLR), bench/cxprof_report.py maps the
plugin's addresses with them.

Without the plugin the two instructions do nothing: the same script then
gives the rates the plugin's slowdown is measured against.
"""

import argparse
import base64
import ctypes
import glob
import json
import mmap
import os
import subprocess
import sys
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402  (bench/guest.py: set-up, servers, layouts)
from profile_guest import Holder, client_argv, proc_stat  # noqa: E402

WORKLOADS = ["tcp1", "tcp16", "rr1", "udp64", "xdpdrop"]
# xdpdrop: frames from cxsim's wire generator (the link partner of
# cxen1's port: no TX path in front) to an XDP program on cxen1 that
# drops them (tests/xdp/xdp_act.bpf.c, bench/xdp_bench.py's set-up);
# 60-byte UDP frames, XDP_FRAMES of them a window.
XDP_FRAMES = 20000
CLK_TCK = os.sysconf("SC_CLK_TCK")


def log(msg):
    print(f"profile: {msg}", file=sys.stderr, flush=True)


class Window:
    """The plugin's window: two magic instructions, each in a page of
    executable memory of this process, called through ctypes."""

    OPEN = b"\x66\x87\xdb\xc3"    # xchg %bx,%bx; ret
    CLOSE = b"\x66\x87\xc9\xc3"   # xchg %cx,%cx; ret

    def __init__(self):
        self.maps = []
        self.open = self._fn(self.OPEN)
        self.close = self._fn(self.CLOSE)
        self.n = 0

    def _fn(self, code):
        m = mmap.mmap(-1, mmap.PAGESIZE,
                      prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
        m.write(code)
        self.maps.append(m)
        addr = ctypes.addressof(ctypes.c_char.from_buffer(m))
        return ctypes.CFUNCTYPE(None)(addr)


def symbols():
    """The guest's text symbols and module sections, compressed."""
    os.makedirs("/proc/sys/kernel", exist_ok=True)
    with open("/proc/sys/kernel/kptr_restrict", "w") as f:
        f.write("0")
    lines = []
    with open("/proc/kallsyms") as f:
        for line in f:
            p = line.split()
            if len(p) >= 3 and p[1] in "tTwW":
                lines.append(line.rstrip("\n"))
    secs = {}
    for mod in ("cxen", "cxsim"):
        d = {}
        for path in glob.glob(f"/sys/module/{mod}/sections/.*") + \
                glob.glob(f"/sys/module/{mod}/sections/*"):
            try:
                with open(path) as f:
                    d[os.path.basename(path)] = f.read().strip()
            except OSError:
                pass
        secs[mod] = d
    blob = json.dumps({"kallsyms": lines, "sections": secs}).encode()
    return base64.b64encode(zlib.compress(blob, 6)).decode()


def measure(holder, win, wl, secs, warm):
    argv = ["ip", "netns", "exec", "cx0"] + client_argv(wl, int(warm + secs + 30))
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    # The warm-up counts from the first frames: with -icount
    # shift=N,sleep=off the guest's clock jumps ahead while it waits for
    # the host (the client's binary read over 9p on a loaded host), and a
    # fixed warm-up was seen to end before the client sent anything.
    first = holder.read()["cxen1"][1]
    while holder.read()["cxen1"][1] - first < 20:
        if p.poll() is not None or time.monotonic() - t0 > 120:
            break
        time.sleep(0.02)
    time.sleep(warm)
    s_a = proc_stat()
    a = holder.read()
    ta = time.monotonic()
    win.open()
    time.sleep(secs)
    win.close()
    tb = time.monotonic()
    b = holder.read()
    s_b = proc_stat()
    idx = win.n
    win.n += 1
    # The client ran all along (it failed if it ended before the window
    # closed); then it is stopped, not waited for: under -icount every
    # guest second costs the host more than one.
    early = p.poll() is not None
    if not early:
        p.terminate()
    out, err = p.communicate(timeout=300)
    if early and p.returncode:
        raise RuntimeError(f"{' '.join(argv)}: exit {p.returncode}: {err.strip()} {out[-300:]}")
    if early:
        raise RuntimeError(f"{' '.join(argv)}: ended before the window closed: "
                           f"{err.strip()[-300:]} {out[-300:]}")
    w = tb - ta
    dev = {d: [y - x for x, y in zip(a[d], b[d])] for d in a}
    if not dev["cxen1"][1]:
        raise RuntimeError(f"{wl}: no frame received in the window: {err.strip()[-300:]}")
    stat = {k: s_b[k] - s_a[k] for k in s_a}
    return {"window": idx, "window_s": w, "client_s": time.monotonic() - t0,
            "rx_packets": dev["cxen0"][1] + dev["cxen1"][1],
            "tx_packets": dev["cxen0"][3] + dev["cxen1"][3],
            "dev": dev, "stat_ticks": stat,
            "rate_mbps": dev["cxen1"][0] * 8 / w / 1e6,
            "rate_pps": dev["cxen1"][1] / w}


class Xdp:
    """cxen1 with tests/xdp/xdp_act.bpf.c set to drop, for the window."""

    def __init__(self):
        import xdp_bench
        self.x = xdp_bench
        obj = os.path.join(guest.ROOT, "build/xdp/xdp_act.o")
        os.makedirs(xdp_bench.BPFFS, exist_ok=True)
        subprocess.run(["mount", "-t", "bpf", "bpf", xdp_bench.BPFFS], check=True)
        os.makedirs(f"{xdp_bench.BPFFS}/c", exist_ok=True)
        subprocess.run(["bpftool", "prog", "load", obj, f"{xdp_bench.BPFFS}/c/prog", "type",
                        "xdp", "pinmaps", f"{xdp_bench.BPFFS}/c"], check=True)
        xdp_bench.cfg("c", xdp_bench.ACTS["drop"])
        subprocess.run(["ip", "-n", "cx1", "link", "set", "dev", "cxen1", "xdpdrv", "pinned",
                        f"{xdp_bench.BPFFS}/c/prog"], check=True)
        self.mac = guest.nsrun("cx1", "cat", "/sys/class/net/cxen1/address").strip()

    def drop_count(self):
        return guest.ethtool_stats("cx1", "cxen1")["rx_xdp_drop"]

    def stop(self):
        subprocess.run(["ip", "-n", "cx1", "link", "set", "dev", "cxen1", "xdpdrv", "off"])
        subprocess.run(["umount", self.x.BPFFS])


def measure_xdp(holder, win, xdp, frames):
    s_a = proc_stat()
    a = holder.read()
    d0 = xdp.drop_count()
    ta = time.monotonic()
    win.open()
    secs, sent = xdp.x.wiregen(xdp.mac, frames, 60)
    win.close()
    tb = time.monotonic()
    b = holder.read()
    s_b = proc_stat()
    dropped = xdp.drop_count() - d0
    idx = win.n
    win.n += 1
    if dropped != sent:
        raise RuntimeError(f"xdpdrop: {sent} frames sent, {dropped} dropped by XDP")
    dev = {d: [y - x for x, y in zip(a[d], b[d])] for d in a}
    w = tb - ta
    return {"window": idx, "window_s": w, "gen_s": secs,
            # Every frame dropped by the program is a frame received.
            "rx_packets": dropped, "tx_packets": dev["cxen0"][3] + dev["cxen1"][3],
            "dev": dev, "stat_ticks": {k: s_b[k] - s_a[k] for k in s_a},
            "rate_mbps": 0.0, "rate_pps": dropped / secs if secs else 0.0}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--layouts", default="default")
    ap.add_argument("--duration", type=float, default=1.0)
    ap.add_argument("--warm", type=float, default=1.0)
    ap.add_argument("--reps", type=int, default=1)
    a = ap.parse_args()
    wls = a.workloads.split(",")
    for w in wls:
        if w not in WORKLOADS:
            raise SystemExit(f"profile: unknown workload {w} (known: {', '.join(WORKLOADS)})")
    # xdpdrop last (its program stays attached to the end), on the
    # default layout only.
    wls = [w for w in wls if w != "xdpdrop"] + [w for w in wls if w == "xdpdrop"]
    layouts = a.layouts.split(",")
    known = guest.LAYOUTS + ["striding"]
    for lay in layouts:
        if lay not in known:
            raise SystemExit(f"profile: unknown layout {lay} (known: {', '.join(known)})")
    print("PROFILE-COND " + json.dumps({
        "kernel": os.uname().release, "accel": os.environ.get("CXEN_ACCEL"),
        "instrument": "cxprof", "vcpus": os.cpu_count(), "duration_s": a.duration,
        "warm_s": a.warm, "reps": a.reps,
        "cmdline": open("/proc/cmdline").read().strip(),
        "guest_loadavg": open("/proc/loadavg").read().split()[:3]}), flush=True)
    # In lines of 8000 characters: longer ones were cut at 32 KiB on the
    # way out of the VM.
    blob = symbols()
    for i in range(0, len(blob), 8000):
        print("PROFILE-SYMS " + blob[i:i + 8000], flush=True)
    win = Window()
    guest.veth_setup()
    guest.servers()
    holder = Holder()
    failures = 0
    xdp = None
    t_all = time.monotonic()
    try:
        for wl in wls:
            for lay in layouts:
                if wl == "xdpdrop" and lay != "default":
                    log(f"xdpdrop runs on the default layout only: {lay} skipped")
                    continue
                if guest._current["layout"] != lay:
                    guest.set_layout(lay)
                    # A layout change rebuilds the queues: traffic begun
                    # before the link is back loses its SYN (1 s RTO).
                    for ns_, dev in (("cx0", "cxen0"), ("cx1", "cxen1")):
                        guest.wait_carrier(ns_, dev)
                    guest.wait_ping("cx0", guest.ENDS["cxen"]["addr"])
                for rep in range(a.reps):
                    rec = {"workload": wl, "layout": lay, "rep": rep}
                    try:
                        if wl == "xdpdrop":
                            if xdp is None:
                                xdp = Xdp()
                            rec["run"] = measure_xdp(holder, win, xdp, XDP_FRAMES)
                        else:
                            try:
                                rec["run"] = measure(holder, win, wl, a.duration, a.warm)
                            except RuntimeError as err:
                                # Once more: iperf3's server now and then
                                # still holds the last (stopped) client.
                                log(f"{wl} {lay}: {err}; once more")
                                time.sleep(2)
                                rec["retried"] = str(err)
                                rec["run"] = measure(holder, win, wl, a.duration, a.warm)
                    except (RuntimeError, OSError, subprocess.TimeoutExpired) as err:
                        failures += 1
                        rec["error"] = str(err)
                        print("PROFILE-ERROR " + json.dumps(rec), flush=True)
                        log(f"{wl} {lay}: FAILED: {err}")
                        continue
                    print("PROFILE-RESULT " + json.dumps(rec), flush=True)
                    r = rec["run"]
                    log(f"{wl} {lay} rep {rep + 1}: window {r['window']}, "
                        f"{r['rate_pps']:.0f} pps, {r['rx_packets']} frames received")
    finally:
        if xdp is not None:
            xdp.stop()
        holder.stop()
        guest.servers_stop()
        guest.veth_teardown()
        if guest._current["layout"] not in (None, "default"):
            guest.set_layout("default")
    print("PROFILE-DONE " + json.dumps({"failures": failures, "windows": win.n,
                                        "seconds": round(time.monotonic() - t_all, 1)}),
          flush=True)
    if failures:
        raise SystemExit(f"profile: {failures} measurement(s) failed")


if __name__ == "__main__":
    main()
