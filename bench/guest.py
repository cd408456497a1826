#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of `make bench`: runs inside the VM (tests/vm/run --pair).

    bench/guest.py --platform NAME [--quick] [--suites stream,rr,udp]

Measures every row for every variant (the four cxen RX layouts and two
veth pairs in the same VM: "veth" as created, TSO on, so a TCP stream
crosses it as 64 KB GSO packets; "veth-seg", TSO off and GRO on at both
ends, so the stack segments before it and GRO merges after it, per frame
as a NIC's path, set up as bench/model_modes.py sets up its own),
interleaved: for each row, for each repetition, each variant in turn.
Around each measurement it takes the deltas of ethtool -S of both cxen
ports, the netdev counters, /proc/stat and the cxsim lines of
/proc/interrupts, over a window that starts after the warm-up.

Each measurement is printed on stdout as one line "BENCH-RESULT <json>";
the conditions as "BENCH-COND <json>". Progress goes to stderr. The host
side (bench/run) collects the lines; the VM cannot write to the host.
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

ROOT = os.environ.get("CXEN_ROOT", os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RR = os.environ.get("CXEN_BENCH_RR", os.path.join(ROOT, "build", "bench", "rr"))
CLK_TCK = os.sysconf("SC_CLK_TCK")

LAYOUTS = ["default", "legacy2012", "wholepage2012", "onefrag2013"]
# veth: as created (TSO on: 64 KB GSO packets cross the pair); veth-seg:
# TSO off and GRO on at both ends (the per-frame stack work every NIC path
# pays), as bench/model_modes.py's veth-seg.
VETHS = ["veth-seg", "veth"]
VARIANTS = LAYOUTS + VETHS
# Every private flag: striding too, so that a layout of LAYOUTS sets it
# off and reads it back off, and auto, off for the same reason ("default"
# is the default layout at every MTU; auto would run striding at 9000).
FLAGS = ["legacy2012", "wholepage2012", "onefrag2013", "striding", "auto"]

# Sender (client) and receiver (server) of each variant.
ENDS = {
    "cxen": {"cns": "cx0", "cdev": "cxen0", "sns": "cx1", "sdev": "cxen1",
             "addr": "192.0.2.2"},
    "veth": {"cns": "vx0", "cdev": "veth0", "sns": "vx1", "sdev": "veth1",
             "addr": "198.51.100.2"},
    "veth-seg": {"cns": "sx0", "cdev": "veth0", "sns": "sx1", "sdev": "veth1",
                 "addr": "203.0.113.2"},
}


def log(msg):
    print(f"bench: {msg}", file=sys.stderr, flush=True)


def run(*args, check=True):
    r = subprocess.run(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True)
    if check and r.returncode:
        raise RuntimeError(f"{' '.join(args)}: exit {r.returncode}: {r.stderr.strip()}")
    return r.stdout


def nsrun(ns, *args, check=True):
    return run("ip", "netns", "exec", ns, *args, check=check)


def ends(variant):
    return ENDS[variant if variant in VETHS else "cxen"]


# ---------------------------------------------------------------- set-up

def veth_setup():
    """Both veth pairs, each in a netns pair of its own. veth-seg as
    bench/model_modes.py's veth_setup() makes it: ethtool -K tso off gro on
    at both ends (GSO left on, as created: the stack segments each GSO
    packet into MTU-sized frames before the pair), read back."""
    for v in VETHS:
        e = ENDS[v]
        prefix = e["addr"].rsplit(".", 1)[0]
        for ns in (e["cns"], e["sns"]):
            run("ip", "netns", "add", ns)
            run("ip", "-n", ns, "link", "set", "lo", "up")
        run("ip", "-n", e["cns"], "link", "add", e["cdev"], "type", "veth", "peer",
            "name", e["sdev"], "netns", e["sns"])
        for ns, dev, addr in ((e["cns"], e["cdev"], f"{prefix}.1/24"),
                              (e["sns"], e["sdev"], f"{prefix}.2/24")):
            run("ip", "-n", ns, "addr", "add", addr, "dev", dev)
            run("ip", "-n", ns, "link", "set", dev, "up")
            if v != "veth-seg":
                continue
            nsrun(ns, "ethtool", "-K", dev, "tso", "off", "gro", "on")
            feat = nsrun(ns, "ethtool", "-k", dev)
            for want in ("tcp-segmentation-offload: off",
                         "generic-receive-offload: on"):
                if want not in feat:
                    raise RuntimeError(f"{dev} in {ns}: not {want}")


def veth_teardown():
    for v in VETHS:
        for ns in (ENDS[v]["cns"], ENDS[v]["sns"]):
            run("ip", "netns", "delete", ns, check=False)


def wait_carrier(ns, dev, secs=5.0):
    end = time.monotonic() + secs
    while True:
        if "LOWER_UP" in run("ip", "-n", ns, "-o", "link", "show", "dev", dev):
            return
        if time.monotonic() > end:
            raise RuntimeError(f"no carrier on {dev} in {ns}")
        time.sleep(0.05)


def wait_ping(ns, addr, secs=5.0):
    end = time.monotonic() + secs
    while subprocess.run(["ip", "netns", "exec", ns, "ping", "-q", "-c", "1",
                          "-W", "1", addr], stdout=subprocess.DEVNULL,
                         stderr=subprocess.DEVNULL).returncode:
        if time.monotonic() > end:
            raise RuntimeError(f"{addr} does not answer from {ns}")


def get_flags(ns, dev):
    out = nsrun(ns, "ethtool", "--show-priv-flags", dev)
    return {m.group(1): m.group(2) == "on"
            for m in re.finditer(r"^(\w+)\s*:\s*(on|off)$", out, re.M)}


_current = {"layout": None}


def set_layout(layout):
    """Both cxen ports to LAYOUT (all flags off = the default layout)."""
    if _current["layout"] == layout:
        return
    want = {f: f == layout for f in FLAGS}
    for ns, dev in (("cx0", "cxen0"), ("cx1", "cxen1")):
        # The layouts are exclusive: the whole mask in one call.
        nsrun(ns, "ethtool", "--set-priv-flags", dev,
              *sum([[f, "on" if want[f] else "off"] for f in FLAGS], []))
        got = get_flags(ns, dev)
        if got != want:
            raise RuntimeError(f"{dev}: priv flags {got}, wanted {want}")
    _current["layout"] = layout


def set_mtu(mtu):
    ports = [("cx0", "cxen0"), ("cx1", "cxen1")]
    for v in VETHS:
        ports += [(ENDS[v]["cns"], ENDS[v]["cdev"]), (ENDS[v]["sns"], ENDS[v]["sdev"])]
    for ns, dev in ports:
        run("ip", "-n", ns, "link", "set", "dev", dev, "mtu", str(mtu))
    for ns, dev in (("cx0", "cxen0"), ("cx1", "cxen1")):
        wait_carrier(ns, dev)
    wait_ping("cx0", "192.0.2.2")
    for v in VETHS:
        wait_ping(ENDS[v]["cns"], ENDS[v]["addr"])


def prepare(variant):
    if variant not in VETHS:
        set_layout(variant)


# ---------------------------------------------------------------- counters

def ethtool_stats(ns, dev):
    out = nsrun(ns, "ethtool", "-S", dev)
    return {m.group(1): int(m.group(2))
            for m in re.finditer(r"^\s+(\w+):\s+(\d+)$", out, re.M)}


def link_stats(ns, dev):
    j = json.loads(run("ip", "-n", ns, "-j", "-s", "link", "show", "dev", dev))
    s = j[0]["stats64"]
    return {"rx_packets": s["rx"]["packets"], "rx_bytes": s["rx"]["bytes"],
            "rx_dropped": s["rx"]["dropped"],
            "tx_packets": s["tx"]["packets"], "tx_bytes": s["tx"]["bytes"]}


def cpu_times():
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    total = sum(v[:8])          # user nice system idle iowait irq softirq steal
    idle = v[3] + v[4]
    return {"total": total, "busy": total - idle}


def cxen_irqs():
    """Interrupts per cxen port ("cxen0-ch0" ... lines of the cxsim domain)."""
    ncpu = os.cpu_count()
    per = {}
    with open("/proc/interrupts") as f:
        for line in f:
            parts = line.split()
            if "cxsim" not in parts:
                continue
            m = re.match(r"(cxen\d+)-", parts[-1])
            if not m:
                continue
            per[m.group(1)] = per.get(m.group(1), 0) + \
                sum(int(x) for x in parts[1:1 + ncpu])
    return per


IOMMU_FILE = "/sys/kernel/debug/cxsim/iommu"
IOMMU_MODES = ["strict", "lazy", "off"]
# strict with the invalidation in device time (--calib-host-ns): its cost
# times the VM's slowdown on a frame's path (bench/calib.py)
IOMMU_DT = "strict-dt"
CALIB = os.path.join(ROOT, "bench", "calib.py")


def iommu_counters():
    """The model's IOMMU counters (all 0 without one)."""
    out = {}
    try:
        with open(IOMMU_FILE) as fh:
            for line in fh:
                k, _, v = line.partition(" ")
                if v.strip().lstrip("-").isdigit():
                    out[k] = int(v)
    except OSError:
        pass
    return out


def iommu_mode():
    try:
        with open(IOMMU_FILE) as fh:
            for line in fh:
                if line.startswith("mode "):
                    return line.split()[1]
    except OSError:
        pass
    return "off"


def cxsim_cmdline_params(*but):
    """cxsim.PARAM=VALUE of the kernel command line as PARAM=VALUE, but
    for the parameters BUT."""
    with open("/proc/cmdline") as fh:
        words = fh.read().split()
    return [w[len("cxsim."):] for w in words
            if w.startswith("cxsim.") and w[len("cxsim."):].split("=")[0] not in but]


def device_time(host_ns, base_ns):
    """The IOTLB invalidation in device time: BASE_NS times the guest's CPU
    per frame through veth over the host's (HOST_NS, bench/calib.py run
    natively by bench/run). Returns (ns, the calibration's record)."""
    out = run(sys.executable, CALIB, "--json")
    guest = json.loads(out.split("# json ", 1)[1])
    scale = guest["ns_per_frame"] / host_ns
    return round(base_ns * scale), {"host_ns_per_frame": host_ns,
                                    "guest_ns_per_frame": guest["ns_per_frame"],
                                    "scale": round(scale, 2), "base_inval_ns": base_ns,
                                    "guest_runs": guest["runs"]}


def reload_model(cxsim_params):
    """Both modules loaded again, cxsim with CXSIM_PARAMS, the pair set up
    again (new netns: servers must be restarted)."""
    moddir = os.environ["CXEN_MODDIR"]
    run("bash", "-c",
        f'. "$CXEN_ROOT/tests/vm/pair.sh" && rmmod cxen && rmmod cxsim && '
        f'insmod "{moddir}/sim/cxsim.ko" {" ".join(cxsim_params)} && '
        f'insmod "{moddir}/cxen.ko" && cxen_pair_setup')
    _current["layout"] = None


def pp_pages():
    """Pages every page_pool took from / gave back to the page allocator
    since the first call: the pool's tracepoints (tests/vm/pp-trace). The
    driver counts only the pages it takes and maps itself (comparison
    layouts): the pool's own, without reading its internals, only its
    tracepoints count exactly (its statistics count bulk refills)."""
    tool = os.path.join(ROOT, "tests", "vm", "pp-trace")
    if not getattr(pp_pages, "started", False):
        run(tool, "start")
        pp_pages.started = True
    hold, rel = run(tool, "read").split()
    return {"alloc": int(hold), "release": int(rel)}


def snapshot(variant):
    e = ends(variant)
    s = {"t": time.monotonic()}
    if variant in VETHS:
        s["link"] = {e["sdev"]: link_stats(e["sns"], e["sdev"])}
    else:
        s["ethtool"] = {"cxen0": ethtool_stats("cx0", "cxen0"),
                        "cxen1": ethtool_stats("cx1", "cxen1")}
        s["link"] = {"cxen1": {k: s["ethtool"]["cxen1"][k] for k in
                               ("rx_packets", "rx_bytes")}}
        s["link"]["cxen1"]["rx_dropped"] = 0
        s["irq"] = cxen_irqs()
        s["iommu"] = iommu_counters()
        s["pp"] = pp_pages()
    return s


def delta(a, b):
    if isinstance(a, dict):
        return {k: delta(a[k], b[k]) for k in a if k in b}
    return b - a


def div(a, b):
    return a / b if b else None


def derive(variant, kind, d, payload_bytes, transactions=None):
    """Per-packet ratios from the deltas D of one window."""
    e = ends(variant)
    cpu_us = d["cpu"]["busy"] * 1e6 / CLK_TCK
    out = {"cpu_window_s": round(d["cpu_t"], 3), "counter_window_s": round(d["t"], 3),
           "cpu_util_pct": 100.0 * div(d["cpu"]["busy"], d["cpu"]["total"] or 1),
           "cpu_us": cpu_us}
    if payload_bytes:
        out["sd_us_per_kb"] = div(cpu_us, payload_bytes / 1024.0)
    if transactions:
        out["sd_us_per_trans"] = div(cpu_us, transactions)
    rx = d["link"][e["sdev"]]
    out["rx_frames"] = rx["rx_packets"]
    out["rx_dropped"] = rx["rx_dropped"]
    if variant in VETHS:
        return out
    et = d["ethtool"]
    # Stream/UDP: the receiving port's RX, the sending port's TX. RR: both.
    rxp = ["cxen0", "cxen1"] if kind == "rr" else ["cxen1"]
    txp = ["cxen0", "cxen1"] if kind == "rr" else ["cxen0"]

    def rsum(k, ports):
        return sum(et[p].get(k, 0) for p in ports)
    pk = rsum("rx_packets", rxp)
    out.update({
        "rx_packets": pk,
        # The driver's own maps and pages (comparison layouts) and the
        # page_pools' (default layout: each page mapped once, when the
        # pool takes it), both ports' pools: the receiving port's and,
        # for a stream, the sender's, which receives the ACKs.
        "maps_per_pkt": div(rsum("rx_dma_map", rxp) + d["pp"]["alloc"], pk),
        "page_allocs_per_pkt": div(rsum("rx_page_alloc", rxp) + d["pp"]["alloc"], pk),
        "pages_recycled_per_pkt": div(max(rsum("rx_page_start", rxp) - rsum("rx_page_alloc", rxp)
                                          - d["pp"]["alloc"], 0), pk),
        "segs_per_gro": div(rsum("rx_gro_segs", rxp), rsum("rx_gro_packets", rxp)),
        "bytes_per_truesize": div(rsum("rx_bytes", rxp), rsum("rx_truesize_bytes", rxp)),
        "copybreak_per_pkt": div(rsum("rx_copybreak", rxp), pk),
        "tx_packets": rsum("tx_packets", txp),
        "doorbells_per_pkt": div(rsum("tx_doorbell", txp), rsum("tx_packets", txp)),
        "tso_per_pkt": div(rsum("tx_tso_packets", txp), rsum("tx_packets", txp)),
        "irqs_per_pkt": div(sum(d["irq"].get(p, 0) for p in rxp), pk),
        "hw_rx_out_of_buffer": rsum("hw_rx_out_of_buffer", rxp),
        "rx_alloc_fail": rsum("rx_alloc_fail", rxp),
    })
    io = d.get("iommu", {})
    if io.get("maps") or io.get("unmaps"):
        # The model's IOMMU, device-wide (both ports, RX and TX maps):
        # map calls, IOTLB invalidations and faults per received frame.
        out.update({
            "iommu_maps_per_pkt": div(io.get("maps", 0), pk),
            "iommu_unmaps_per_pkt": div(io.get("unmaps", 0), pk),
            "iommu_invalidations_per_pkt": div(io.get("invalidations", 0), pk),
            "iommu_faults": io.get("faults", 0) + io.get("perm_faults", 0),
        })
    out["counters"] = {p: {k: v for k, v in et[p].items() if v and not re.match(r"[rt]x\d", k)}
                       for p in ("cxen0", "cxen1")}
    if "irq" in d:
        out["counters"]["irqs"] = d["irq"]
    return out


# ---------------------------------------------------------------- tools

def wait_listen(ns, port, udp=False):
    end = time.monotonic() + 10
    flag = "-Hlun" if udp else "-Hltn"
    while not nsrun(ns, "ss", flag, f"sport = :{port}").strip():
        if time.monotonic() > end:
            raise RuntimeError(f"nothing listens on {port} in {ns}")
        time.sleep(0.05)


def windowed(variant, client_argv, warm, timeout):
    """Run the client between two counter snapshots (taken while the link
    is idle: under load a process spawn in the VM takes seconds). The CPU
    window is read in-process, from WARM seconds after the start (the
    client's own warm-up, which its figures leave out) to its exit."""
    e = ends(variant)
    a = snapshot(variant)
    t0 = time.monotonic()
    p = subprocess.Popen(["ip", "netns", "exec", e["cns"]] + client_argv,
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(max(0.0, warm - (time.monotonic() - t0)))
    c0 = (time.monotonic(), cpu_times())
    try:
        out, err = p.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
        raise RuntimeError(f"{client_argv[0]} timed out: {err.strip()}")
    c1 = (time.monotonic(), cpu_times())
    b = snapshot(variant)
    if p.returncode:
        raise RuntimeError(f"{' '.join(client_argv)}: exit {p.returncode}: {err.strip()} {out[-500:]}")
    d = delta(a, b)
    d["cpu"] = delta(c0[1], c1[1])
    d["cpu_t"] = c1[0] - c0[0]
    return out, d


def iperf3(variant, argv, warm, secs):
    e = ends(variant)
    out, d = windowed(variant, ["iperf3", "-c", e["addr"], "-J",
                                "--connect-timeout", "5000"] + argv,
                      warm, secs + 60)
    j = json.loads(out)
    if "error" in j:
        raise RuntimeError(f"iperf3: {j['error']}")
    return j["end"], d


def m_stream(variant, p, dur):
    # -O 1: the first second (slow start, the socket queues growing) is
    # left out of iperf3's figures and of the CPU window.
    end, d = iperf3(variant, ["-t", str(dur), "-O", "1", "-P", str(p["flows"]),
                              "-l", "64000"], 1.0, dur)
    rcv, snt = end["sum_received"], end["sum_sent"]
    cpu = end["cpu_utilization_percent"]
    kb = rcv["bytes"] / 1024.0
    r = {"mbps": rcv["bits_per_second"] / 1e6,
         "retransmits": snt.get("retransmits", 0),
         "send_cpu_pct": cpu["host_total"], "recv_cpu_pct": cpu["remote_total"],
         "send_sd_us_per_kb": cpu["host_total"] / 100 * rcv["seconds"] * 1e6 / kb,
         "recv_sd_us_per_kb": cpu["remote_total"] / 100 * rcv["seconds"] * 1e6 / kb}
    r.update(derive(variant, "stream", d, rcv["bytes"]))
    return r


def udp_snmp(ns):
    lines = [ln.split() for ln in nsrun(ns, "cat", "/proc/net/snmp").splitlines()
             if ln.startswith("Udp:")]
    return dict(zip(lines[0][1:], (int(x) for x in lines[1][1:])))


def m_udp(variant, p, dur):
    # Sent and received datagrams from the UDP MIB of each netns (exact;
    # iperf3's own UDP totals are not), around the whole client run.
    e = ends(variant)
    size = p["size"]
    s0, r0 = udp_snmp(e["cns"]), udp_snmp(e["sns"])
    end, d = iperf3(variant, ["-u", "-b", "0", "-l", str(size), "-t", str(dur)],
                    0.0, dur)
    s1, r1 = udp_snmp(e["cns"]), udp_snmp(e["sns"])
    sent = s1["OutDatagrams"] - s0["OutDatagrams"]
    got = r1["InDatagrams"] - r0["InDatagrams"]
    secs = end["sum_sent"]["seconds"] or dur
    r = {"sent_pps": sent / secs, "recv_pps": got / secs,
         "recv_pct": 100.0 * got / sent if sent else None,
         "recv_mbps": got * size * 8 / 1e6 / secs,
         "rcvbuf_errors": r1["RcvbufErrors"] - r0["RcvbufErrors"],
         "send_cpu_pct": end["cpu_utilization_percent"]["host_total"],
         "recv_cpu_pct": end["cpu_utilization_percent"]["remote_total"]}
    r.update(derive(variant, "udp", d, got * size))
    return r


_servers = []


def servers():
    """iperf3 and rr servers, one of each per receiving end, for the run."""
    for v in ["cxen"] + VETHS:
        e = ENDS[v]
        _servers.append(subprocess.Popen(["ip", "netns", "exec", e["sns"], "iperf3",
                                          "-s", "-B", e["addr"]],
                                         stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL))
        wait_listen(e["sns"], 5201)
        for proto in ("tcp", "udp"):
            argv = ["ip", "netns", "exec", e["sns"], RR, "-s", "-b", e["addr"],
                    "-p", "5301"] + (["-u"] if proto == "udp" else [])
            _servers.append(subprocess.Popen(argv, stdout=subprocess.DEVNULL))
        wait_listen(e["sns"], 5301)
        wait_listen(e["sns"], 5301, udp=True)


def servers_stop():
    for p in _servers:
        p.terminate()
        p.wait()
    _servers.clear()


def m_rr(variant, p, dur):
    e = ends(variant)
    warm = 0.5
    argv = [RR, "-c", e["addr"], "-p", "5301", "-l", str(p["size"]),
            "-t", str(dur), "-w", str(warm)] + (["-u"] if p["proto"] == "udp" else [])
    out, d = windowed(variant, argv, warm, dur + 60)
    j = json.loads(out)
    # The tool counts its transactions and reads /proc/stat at both ends of
    # the window it counted them in: CPU per transaction is the CPU time of
    # that window over that count, nothing estimated. (windowed()'s own CPU
    # window, from WARM seconds after the spawn to the client's exit, holds
    # the connect, part of the warm-up and the teardown.)
    if j["clk_tck"] != CLK_TCK:
        raise RuntimeError(f"rr: clk_tck {j['clk_tck']}, guest {CLK_TCK}")
    d["cpu"] = {"busy": j["cpu_busy_ticks"], "total": j["cpu_total_ticks"]}
    d["cpu_t"] = j["seconds"]
    r = {"tps": j["tps"], "p50_us": j["p50_us"], "p90_us": j["p90_us"],
         "p99_us": j["p99_us"], "timeouts": j["timeouts"],
         "transactions": j["transactions"], "rr_seconds": j["seconds"]}
    r.update(derive(variant, "rr", d, 0, j["transactions"]))
    return r


# ---------------------------------------------------------------- plan

def rows(platform, quick, suites):
    out = []
    if "stream" in suites and platform == "iommu":
        # Seed 000's rows: MTU 1500, 16 flows as uperf's 16 threads.
        for flows in ([16] if quick else [1, 16]):
            out.append(("stream", {"mtu": 1500, "flows": flows}))
        return out
    if "stream" in suites:
        for mtu in ([1500] if quick else [1500, 9000]):
            for flows in [1, 16]:
                if quick and flows > 1:
                    continue
                out.append(("stream", {"mtu": mtu, "flows": flows}))
    if platform == "default":
        if "rr" in suites:
            for proto in ("tcp", "udp"):
                if quick and proto == "udp":
                    continue
                # Seed 002's shape: TCP at 1..512 bytes, UDP at 1 byte.
                sizes = [1, 8, 32, 128, 512] if proto == "tcp" and not quick else [1]
                for size in sizes:
                    out.append(("rr", {"mtu": 1500, "proto": proto, "size": size}))
        if "udp" in suites:
            for size in ([64] if quick else [64, 128, 1024, 1472]):
                out.append(("udp", {"mtu": 1500, "size": size}))
    return out


def conditions(platform, mode=None, dt=None):
    with open("/proc/cmdline") as f:
        cmdline = f.read().strip()
    io = iommu_counters()
    with open("/proc/loadavg") as f:
        load = f.read().split()[:3]
    # The device's devlink parameters (cxen has no module parameters):
    # {"tx_doorbell_batch": true, "rx_layout": "pagepool"}.
    bus = re.search(r"^bus-info: (\S+)", nsrun("cx0", "ethtool", "-i", "cxen0"), re.M)
    params = {}
    if bus:
        dl = "platform/" + bus.group(1)
        # iproute2 6.1 wants a parameter name with a handle: show all.
        out = json.loads(run("devlink", "-j", "dev", "param", "show"))
        for p in out.get("param", {}).get(dl, []):
            params[p["name"]] = p["values"][0]["value"]
    pause = {}
    for ns, dev in (("cx0", "cxen0"), ("cx1", "cxen1")):
        # "Autonegotiate: off" / "RX: on" / "TX: on"
        out = nsrun(ns, "ethtool", "-a", dev, check=False)
        pause[dev] = {m.group(1).lower(): m.group(2)
                      for m in re.finditer(r"^(Autonegotiate|RX|TX):\s*(\w+)", out, re.M)}
    return {"platform": platform, "kernel": os.uname().release,
            # tests/vm/run's choice: tcg or kvm (None: an older tests/vm/run)
            "accel": os.environ.get("CXEN_ACCEL"), "pause": pause,
            "cmdline": cmdline, "vcpus": os.cpu_count(),
            # The model's IOMMU (cxsim.iommu): mode and invalidation cost.
            "iommu": (IOMMU_MODES[0] if mode == IOMMU_DT else mode) or iommu_mode(),
            "iommu_inval_ns": dt["inval_ns"] if mode == IOMMU_DT else io.get("inval_ns"),
            "device_time": dt["calib"] if mode == IOMMU_DT else None,
            "guest_loadavg": load, "devlink_params": params,
            "channels": nsrun("cx0", "ethtool", "-l", "cxen0").split()[-1],
            # The variants of every row, and what each veth pair is.
            "variants": VARIANTS,
            "veth_pairs": {"veth": "as created (TSO on: 64 KB GSO packets)",
                           "veth-seg": "ethtool -K tso off gro on at both ends "
                                       "(GSO as created), as bench/model_modes.py"},
            "iperf3": run("iperf3", "--version").splitlines()[0]}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--platform", default="default")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--suites", default="stream,rr,udp")
    ap.add_argument("--reps", type=int)
    ap.add_argument("--calib-host-ns", type=float,
                    help="iommu platform: the host's CPU ns per frame (bench/calib.py): "
                    "adds strict with the invalidation in device time")
    ap.add_argument("--inval-ns", type=int,
                    help="the invalidation cost strict-dt scales (default cxsim's)")
    a = ap.parse_args()
    suites = a.suites.split(",")
    reps = a.reps or (1 if a.quick else 3)
    durs = ({"stream": 1, "rr": 2, "udp": 1} if a.quick else
            {"stream": 5, "rr": 2, "udp": 3})
    meas = {"stream": m_stream, "rr": m_rr, "udp": m_udp}

    if not os.access(RR, os.X_OK):
        raise SystemExit(f"bench: {RR} missing: bench/run builds it on the host")
    # The iommu platform measures each IOMMU mode of the model side by
    # side: per row and repetition, cxsim is loaded again with each mode
    # in turn; its results are platforms iommu-strict, -lazy and -off.
    # With the host's calibration, strict once more in device time.
    modes = IOMMU_MODES if a.platform == "iommu" else [None]
    dt = None
    if a.platform == "iommu" and a.calib_host_ns:
        base = a.inval_ns or iommu_counters().get("inval_ns")
        if not base:
            raise SystemExit("bench: no IOTLB invalidation cost to scale "
                             f"({IOMMU_FILE} has no inval_ns)")
        ns_dt, calib = device_time(a.calib_host_ns, base)
        dt = {"inval_ns": ns_dt, "calib": calib}
        log(f"device time: x{calib['scale']} (guest {calib['guest_ns_per_frame']:.0f} ns "
            f"per frame, host {a.calib_host_ns:.0f}): strict-dt {ns_dt} ns per invalidation")
        modes = [IOMMU_MODES[0], IOMMU_DT] + IOMMU_MODES[1:]

    def plat(mode):
        return f"iommu-{mode}" if mode else a.platform
    for mode in modes:
        print("BENCH-COND " + json.dumps(dict(conditions(plat(mode), mode, dt), reps=reps,
                                              durations_s=durs)), flush=True)
    veth_setup()
    plan = rows(a.platform, a.quick, suites)
    t_start = time.monotonic()
    mtu = None
    failures = 0
    try:
        servers()
        for i, (kind, p) in enumerate(plan):
            if p["mtu"] != mtu:
                set_mtu(p["mtu"])
                mtu = p["mtu"]
            for rep, mode in ((r, m) for r in range(reps) for m in modes):
                if mode:
                    servers_stop()
                    want, extra = mode, []
                    if mode == IOMMU_DT:
                        want, extra = IOMMU_MODES[0], [f"iommu_inval_ns={dt['inval_ns']}"]
                    elif a.inval_ns:
                        extra = [f"iommu_inval_ns={a.inval_ns}"]
                    reload_model(cxsim_cmdline_params("iommu", "iommu_inval_ns")
                                 + [f"iommu={want}"] + extra)
                    if iommu_mode() != want:
                        raise SystemExit(f"bench: cxsim loaded with iommu={want} reports {iommu_mode()}")
                    servers()
                    set_mtu(p["mtu"])
                for v in VARIANTS:
                    t0 = time.monotonic()
                    rec = {"platform": plat(mode), "kind": kind, "params": p,
                           "variant": v, "rep": rep, "duration_s": durs[kind]}
                    try:
                        prepare(v)
                        r = meas[kind](v, p, durs[kind])
                    except (RuntimeError, ValueError, KeyError) as err:
                        # One failed measurement (a client timing out on a
                        # loaded host) is recorded, not the end of the run.
                        failures += 1
                        rec["error"] = str(err)
                        rec["elapsed_s"] = round(time.monotonic() - t0, 2)
                        print("BENCH-ERROR " + json.dumps(rec), flush=True)
                        log(f"[{i + 1}/{len(plan)}] {kind} {p} {v}: FAILED: {err}")
                        continue
                    rec["elapsed_s"] = round(time.monotonic() - t0, 2)
                    rec["result"] = r
                    print("BENCH-RESULT " + json.dumps(rec), flush=True)
                    main_fig = r.get("mbps") or r.get("tps") or r.get("recv_pps") or 0
                    log(f"[{i + 1}/{len(plan)}] {kind} {p} rep {rep + 1}/{reps} "
                        f"{plat(mode)} {v}: {main_fig:.1f} "
                        f"maps/pkt {r.get('maps_per_pkt')} "
                        f"IOMMU maps/pkt {r.get('iommu_maps_per_pkt')}")
    finally:
        servers_stop()
        veth_teardown()
        if _current["layout"] not in (None, "default"):
            set_layout("default")
    for mode in modes:
        print("BENCH-DONE " + json.dumps({"platform": plat(mode), "failures": failures,
                                          "seconds": round(time.monotonic() - t_start, 1)}),
              flush=True)
    if failures:
        raise SystemExit(f"bench: {failures} measurement(s) failed (BENCH-ERROR lines)")


if __name__ == "__main__":
    main()
