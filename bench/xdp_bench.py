#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""XDP verdicts per second, cxen next to veth's native XDP (issue 21).

    bench/xdp_bench.py [--count N] [--reps N] [--sizes 60,1514]
                       [--acts drop,tx,redirect]
    (on the host it builds tests/xdp/ and boots the stock kernel with the
    cabled pair, then runs itself inside: tests/vm/run --pair -- ...)

N UDP frames of each size (60 and 1514 bytes, no FCS) to port 9, from
three sources, interleaved:

  wire   cxsim's wire generator (sim/cxsim_gen.c, <debugfs>/cxsim/gen):
         the link partner of cxen1's port replays one frame into it from
         a process pinned to CPU 1, honouring PAUSE; no TX path in front
         of the receiver, as with a hardware generator on the cable;
  cxen   pktgen on cxen0 (netns cx0), over the model's wire to cxen1:
         cxen0's TX path and the model's SQ engine run on the same CPUs;
  veth   pktgen on a veth end (netns cxb-a), the program on its peer
         (netns cxb-b) in native mode (veth's NAPI XDP).

cxen1's program (tests/xdp/xdp_act.bpf.c) gives the verdict: drop; tx
(sent back out, addressed to a MAC nobody has, so the other side's
filter drops them: no stack on the way); redirect (cxen: through a
devmap to cxen0, which needs a program of its own for its XDP send
queues, addressed to nobody again; veth: not measured, "-"). The figure
is frames the program ran on per second of the generator's run
(pktgen's "Result" time, the wire generator's own), the median of
--reps. For the wire rows: frames sent but not seen by the program
("lost", 0 expected with flow control on), the page allocations per
XDP_DROP frame (rx_page_alloc, target 0) and the doorbells per XDP_TX
frame (xdp_tx_doorbell / rx_xdp_tx). Compare rows of one run, never
absolute rates (TCG). The last line is "# json {...}" with every run.
"""
import argparse
import json
import os
import statistics
import struct
import subprocess
import sys
import time

import pairlib
from pairlib import ns, sh

BPFFS = "/run/cxen-bench-bpf"
ACTS = {"drop": 1, "tx": 3, "redirect": 4}
PORT = 9
ST_TEST = 0


def root():
    return os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def bpftool_map(inst, name, key, value):
    kb = " ".join(str(b) for b in struct.pack("=I", key))
    vb = " ".join(str(b) for b in struct.pack("=I", value))
    sh("sh", "-c", f"bpftool map update pinned {BPFFS}/{inst}/{name} "
       f"key {kb} value {vb}")


def prog_count(inst):
    out = json.loads(sh("bpftool", "-j", "map", "lookup", "pinned",
                        f"{BPFFS}/{inst}/stats", "key", "0", "0", "0", "0"))
    if "formatted" in out:
        return int(out["formatted"]["value"])
    # Raw bytes, as hex strings: a little-endian u64.
    return int.from_bytes(bytes(int(b, 16) for b in out["value"]), "little")


def cfg(inst, act, blackhole=1):
    for k, v in enumerate((act, PORT, PORT, blackhole)):
        bpftool_map(inst, "cfg", k, v)


def pg_write(ns_name, path, cmd):
    ns(ns_name, "sh", "-c", f"echo '{cmd}' > {path}")


def pktgen(ns_name, dev, dst_mac, count, size):
    """COUNT frames of SIZE bytes from DEV in NS_NAME; (seconds, sent)."""
    th, pg = "/proc/net/pktgen/kpktgend_0", f"/proc/net/pktgen/{dev}"
    pg_write(ns_name, th, "rem_device_all")
    pg_write(ns_name, th, f"add_device {dev}")
    for cmd in (f"count {count}", f"pkt_size {size}", "delay 0",
                "dst 192.0.2.2", f"dst_mac {dst_mac}", f"udp_dst_min {PORT}",
                f"udp_dst_max {PORT}"):
        pg_write(ns_name, pg, cmd)
    pg_write(ns_name, "/proc/net/pktgen/pgctrl", "start")
    res = ns(ns_name, "cat", pg)
    for line in res.splitlines():
        line = line.strip()
        if line.startswith("Result: OK:"):
            usec = int(line.split()[2].split("(")[0])
            sent = int(line.split("usec,")[1].split()[0])
            pg_write(ns_name, th, "rem_device_all")
            return usec / 1e6, sent
    raise RuntimeError("pktgen: no result: " + res)


GEN = "/sys/kernel/debug/cxsim/gen"


def udp_frame(dst_mac, size):
    """An IPv4/UDP frame of SIZE bytes (no FCS) to 192.0.2.2 port PORT."""
    ihl, udp = 20, 8
    pay = size - 14 - ihl - udp
    ip = bytearray(struct.pack("!BBHHHBBH4s4s", 0x45, 0, ihl + udp + pay, 0,
                               0x4000, 64, 17, 0, bytes([192, 0, 2, 1]),
                               bytes([192, 0, 2, 2])))
    csum = sum(struct.unpack("!10H", ip))
    csum = (csum & 0xffff) + (csum >> 16)
    csum = (csum & 0xffff) + (csum >> 16)
    ip[10:12] = struct.pack("!H", ~csum & 0xffff)
    # UDP checksum 0: none, as IPv4 allows.
    return (bytes.fromhex(dst_mac.replace(":", "")) +
            bytes.fromhex("020000000001") + b"\x08\x00" + bytes(ip) +
            struct.pack("!HHHH", 4000, PORT, udp + pay, 0) + b"x" * pay)


def wiregen(dst_mac, count, size):
    """COUNT frames of SIZE bytes from cxsim's wire generator into cxen1's
    port (cxsim_gen.c), run on CPU 1; (seconds, sent)."""
    with open(f"{GEN}/frame", "wb") as f:
        f.write(udp_frame(dst_mac, size))
    sh("sh", "-c", f"echo 1 > {GEN}/port && taskset -c 1 sh -c 'echo {count} > {GEN}/run'")
    with open(f"{GEN}/run") as f:
        w = f.read().split()
    return int(w[3]) / 1e9, int(w[1])


def cxen_stats():
    return pairlib.stats("cx1", "cxen1", ["rx_page_alloc", "rx_xdp_tx",
                                          "xdp_tx_doorbell", "rx_xdp_drop"])


def setup():
    obj = os.path.join(root(), "build/xdp")
    os.makedirs(BPFFS, exist_ok=True)
    sh("mount", "-t", "bpf", "bpf", BPFFS)
    for inst in ("c", "p", "v"):
        os.makedirs(f"{BPFFS}/{inst}", exist_ok=True)
        sh("bpftool", "prog", "load", f"{obj}/xdp_act.o", f"{BPFFS}/{inst}/prog",
           "type", "xdp", "pinmaps", f"{BPFFS}/{inst}")
        cfg(inst, 2, 0)
    sh("modprobe", "pktgen")
    # veth: cxb-a (pktgen, GRO so XDP_TX frames have a way back) and cxb-b.
    sh("ip", "netns", "add", "cxb-a")
    sh("ip", "netns", "add", "cxb-b")
    sh("ip", "-n", "cxb-a", "link", "add", "va", "type", "veth", "peer", "name",
       "vb", "netns", "cxb-b")
    sh("ip", "-n", "cxb-a", "addr", "add", "192.0.2.1/24", "dev", "va")
    sh("ip", "-n", "cxb-b", "addr", "add", "192.0.2.2/24", "dev", "vb")
    sh("ip", "-n", "cxb-a", "link", "set", "va", "up")
    sh("ip", "-n", "cxb-b", "link", "set", "vb", "up")
    ns("cxb-a", "ethtool", "-K", "va", "gro", "on")
    # Programs attached now, before any traffic (the XDP dispatcher's text
    # poke under traffic trips QEMU TCG: tests/integration/xdp.sh).
    sh("ip", "-n", "cx1", "link", "set", "dev", "cxen1", "xdpdrv", "pinned",
       f"{BPFFS}/c/prog")
    sh("ip", "-n", "cx0", "link", "set", "dev", "cxen0", "xdpdrv", "pinned",
       f"{BPFFS}/p/prog")
    sh("ip", "-n", "cxb-b", "link", "set", "dev", "vb", "xdpdrv", "pinned",
       f"{BPFFS}/v/prog")
    idx = int(ns("cx0", "cat", "/sys/class/net/cxen0/ifindex"))
    ns("cx0", "sh", "-c", f"bpftool map update pinned {BPFFS}/c/tx_port "
       f"key 0 0 0 0 value {' '.join(str(b) for b in struct.pack('=I', idx))}")
    cxen1 = ns("cx1", "cat", "/sys/class/net/cxen1/address").strip()
    return {"cxen": ("cx0", "cxen0", cxen1, "c"),
            "wire": (None, None, cxen1, "c"),
            "veth": ("cxb-a", "va", ns("cxb-b", "cat", "/sys/class/net/vb/address").strip(), "v")}


def measure(dev, target, act, size, count):
    gen_ns, gen_dev, mac, inst = target
    cfg(inst, ACTS[act])
    a = cxen_stats() if dev != "veth" else None
    c0 = prog_count(inst)
    if dev == "wire":
        secs, sent = wiregen(mac, count, size)
    else:
        secs, sent = pktgen(gen_ns, gen_dev, mac, count, size)
    time.sleep(0.5)
    seen = prog_count(inst) - c0
    r = {"dev": dev, "act": act, "size": size, "secs": secs, "sent": sent,
         "seen": seen, "pps": seen / secs, "gen_pps": sent / secs}
    if a is not None:
        b = cxen_stats()
        d = {k: b[k] - a[k] for k in a}
        if act == "drop":
            r["page_alloc_per_pkt"] = d["rx_page_alloc"] / max(d["rx_xdp_drop"], 1)
        if act == "tx":
            r["doorbells_per_pkt"] = d["xdp_tx_doorbell"] / max(d["rx_xdp_tx"], 1)
    return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--sizes", default="60,1514")
    ap.add_argument("--acts", default="drop,tx,redirect")
    args = ap.parse_args()

    if not os.environ.get("CXEN_VM"):
        subprocess.run(["make", "-s", "-C", os.path.join(root(), "tests/xdp")],
                       check=True)
    pairlib.in_vm("bench/xdp_bench.py")
    targets = setup()
    print(f"# {args.count} frames per run, median of {args.reps}, 1 channel; "
          "kpps = frames the program ran on per second of the generator's run")
    print("# wire: cxsim's wire generator into cxen1 (no TX path in front); "
          "pktgen: pktgen on cxen0 over the model's wire / on a veth end")
    print(f"{'verdict':9} {'size':>5} {'wire kpps':>10} {'pktgen':>8} "
          f"{'veth kpps':>10} {'wire/veth':>9} {'pktgen/veth':>11} "
          f"{'lost':>5} {'pages/pkt':>9} {'db/pkt':>7}")
    runs = []
    for act in args.acts.split(","):
        for size in (int(s) for s in args.sizes.split(",")):
            got = {"wire": [], "cxen": [], "veth": []}
            for _ in range(args.reps):
                for dev in got:
                    if dev == "veth" and act == "redirect":
                        continue
                    r = measure(dev, targets[dev], act, size, args.count)
                    runs.append(r)
                    got[dev].append(r)
            med = {d: statistics.median(x["pps"] for x in rs) / 1e3 if rs else None
                   for d, rs in got.items()}
            pages = [x["page_alloc_per_pkt"] for x in got["wire"] if "page_alloc_per_pkt" in x]
            dbs = [x["doorbells_per_pkt"] for x in got["wire"] if "doorbells_per_pkt" in x]
            lost = sum(x["sent"] - x["seen"] for x in got["wire"])
            veth = f"{med['veth']:10.1f}" if med["veth"] else f"{'-':>10}"
            r1 = f"{med['wire'] / med['veth']:9.2f}" if med["veth"] else f"{'-':>9}"
            r2 = f"{med['cxen'] / med['veth']:11.2f}" if med["veth"] else f"{'-':>11}"
            print(f"{act:9} {size:5} {med['wire']:10.1f} {med['cxen']:8.1f} "
                  f"{veth} {r1} {r2} {lost:5} "
                  f"{statistics.median(pages) if pages else float('nan'):9.3f} "
                  f"{statistics.median(dbs) if dbs else float('nan'):7.3f}",
                  flush=True)
    print("# json " + json.dumps({"count": args.count, "reps": args.reps,
                                  "kernel": os.uname().release, "runs": runs}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
