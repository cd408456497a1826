#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Guest side of `make profile`: runs inside the VM (tests/vm/run --pair).

    bench/profile_guest.py --funcs FUNCS.json [--workloads tcp1,tcp16,rr1,udp64]
                           [--layouts default,...] [--duration S] [--reps N]

For each workload and RX layout it runs the traffic twice, in this order:

  plain   no tracer: the rate (frames and bytes through the cxen ports
          in a window of S seconds in the steady state) and /proc/stat;
  traced  the function_graph tracer on the functions FUNCS.json names
          (bench/profile_funcs.py), sched_switch events, and the same
          window marked in the trace (trace_marker) next to /proc/stat
          reads.

Then it walks the trace: per CPU, each stretch of time between two events
goes to the task running there, and within that task to the innermost
open traced function (a per-task stack of entries and returns), so every
nanosecond of the window is charged once: driver (cxen.ko, by source file
rx/tx/other), model (cxsim.ko), stack (net/), idle (the idle task with no
traced function open) or rest (any other task with nothing traced open:
the scheduler, system call entry, user space, the workqueue core...).
The idle time so found must match /proc/stat's (kept from the idle task's
own clock, not the tick); bench/profile_report.py checks it.

Why not a sampling profiler: under TCG on a loaded host the guest's timer
interrupts come late while the vCPUs are busy and on time while they halt,
so samples taken from a timer (perf's cpu-clock, and the tick that fills
/proc/stat's user/system/softirq columns) overweight idle (see
Documentation/testing.rst). The tracer's timestamps are clock reads, not
interrupts.

Each result is printed on stdout as "PROFILE-RESULT <json>", conditions
as "PROFILE-COND <json>", the end as "PROFILE-DONE <json>".
"""

import argparse
import json
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import guest  # noqa: E402  (bench/guest.py: set-up, servers, layouts)
import model_modes  # noqa: E402  (the model's datapath modes)

T = "/sys/kernel/tracing"
NCPU = os.cpu_count()
CLK_TCK = os.sysconf("SC_CLK_TCK")
WORKLOADS = ["tcp1", "tcp16", "rr1", "udp64"]
# Categories, in the order of the tables.
CATS = ["driver_rx", "driver_tx", "driver_other", "model", "stack", "rest", "idle"]


def log(msg):
    print(f"profile: {msg}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- tracefs

def tw(name, value, append=False):
    with open(os.path.join(T, name), "a" if append else "w") as f:
        f.write(value)


def tr(name):
    with open(os.path.join(T, name)) as f:
        return f.read()


def tracer_setup(funcs, buffer_kb):
    if not os.path.isdir(os.path.join(T, "per_cpu")):
        subprocess.run(["mount", "-t", "tracefs", "nodev", T], check=True)
    tw("tracing_on", "0")
    tw("current_tracer", "nop")
    tw("trace", "")
    tw("set_ftrace_filter", "")
    missing = []
    for name in funcs["driver_entries"] + funcs["model_entries"] + funcs["net"] + funcs["markers"]:
        try:
            tw("set_ftrace_filter", name + "\n", append=True)
        except OSError:
            missing.append(name)
    traced = tr("set_ftrace_filter").split("\n")
    traced = [x for x in traced if x and not x.startswith("#")]
    tw("set_event", "sched:sched_switch\n")
    # The tracer's own options are set while it is the current tracer;
    # they stay with it.
    switch_tracer("function_graph")
    for opt in ("funcgraph-proc", "funcgraph-abstime", "funcgraph-tail",
                "funcgraph-cpu", "funcgraph-duration", "funcgraph-irqs",
                "nofuncgraph-overhead"):
        tw("trace_options", opt)
    switch_tracer("nop")
    tw("buffer_size_kb", str(buffer_kb))
    return traced, missing


def _spin(cpu):
    os.sched_setaffinity(0, {cpu})
    while True:
        end = time.monotonic() + 0.05
        while time.monotonic() < end:
            pass
        # A voluntary switch now and then: the tracer's switch waits for
        # an RCU-tasks grace period, which a task spinning in user space
        # without one holds off for ever.
        time.sleep(0.0001)


def switch_tracer(name):
    """Set the current tracer while every vCPU spins in user space: the
    text patching then (almost) never meets a CPU in the idle path. Under
    TCG a CPU that the patching IPI woke into tick_nohz_idle_exit() while
    it was being patched once ran a stale int3 (an oops)."""
    kids = []
    try:
        for c in range(NCPU):
            pid = os.fork()
            if pid == 0:
                try:
                    _spin(c)
                finally:
                    os._exit(0)
            kids.append(pid)
        time.sleep(0.3)
        tw("current_tracer", name)
    finally:
        for pid in kids:
            os.kill(pid, 9)
            os.waitpid(pid, 0)


def trace_stats():
    out = {}
    for c in range(NCPU):
        s = tr(f"per_cpu/cpu{c}/stats")
        out[c] = {m.group(1).strip().replace(" ", "_"): float(m.group(2))
                  for m in re.finditer(r"^([\w ]+):\s+([\d.]+)", s, re.M)}
    return out


# ---------------------------------------------------------------- counters

def proc_stat():
    """Per field, all CPUs, in clock ticks; the idle columns come from the
    idle task's clock (NO_HZ), the busy ones from the tick."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:]]
    names = ["user", "nice", "system", "idle", "iowait", "irq", "softirq", "steal"]
    return dict(zip(names, v))


def net_dev(pid):
    """{dev: (rx_bytes, rx_packets, tx_bytes, tx_packets)} in the netns of PID."""
    out = {}
    with open(f"/proc/{pid}/net/dev") as f:
        for line in f.readlines()[2:]:
            name, rest = line.split(":", 1)
            v = rest.split()
            out[name.strip()] = (int(v[0]), int(v[1]), int(v[8]), int(v[9]))
    return out


class Holder:
    """A sleeping process in each port's netns: its /proc/PID/net/dev reads
    the port counters without spawning anything during a window."""

    def __init__(self):
        self.p = {ns: subprocess.Popen(["ip", "netns", "exec", ns, "sleep", "1000000"])
                  for ns in ("cx0", "cx1")}
        time.sleep(0.5)

    def read(self):
        a = net_dev(self.p["cx0"].pid)["cxen0"]
        b = net_dev(self.p["cx1"].pid)["cxen1"]
        return {"cxen0": a, "cxen1": b}

    def stop(self):
        for p in self.p.values():
            p.terminate()
            p.wait()


def snap(holder, mark=None):
    """/proc/stat between two trace markers (MARK0, MARK1), then the port
    counters."""
    if mark:
        tw("trace_marker", mark + "0")
    s = {"t": time.monotonic(), "stat": proc_stat()}
    if mark:
        tw("trace_marker", mark + "1")
    s["dev"] = holder.read()
    return s


# ---------------------------------------------------------------- traffic

def client_argv(wl, secs):
    addr = guest.ENDS["cxen"]["addr"]
    if wl == "tcp1":
        return ["iperf3", "-c", addr, "-t", str(secs), "-P", "1", "-l", "64000"]
    if wl == "tcp16":
        return ["iperf3", "-c", addr, "-t", str(secs), "-P", "16", "-l", "64000"]
    if wl == "udp64":
        return ["iperf3", "-c", addr, "-u", "-b", "0", "-l", "64", "-t", str(secs)]
    if wl == "rr1":
        return [guest.RR, "-c", addr, "-p", "5301", "-l", "1", "-t", str(secs), "-w", "0.5"]
    raise ValueError(wl)


def measure(holder, wl, secs, warm, traced):
    """One run of WL: the client runs WARM + SECS + 2 s; the window is SECS
    from WARM on. With TRACED the tracer records from the client's start
    (so every task's stack of open functions is known at the window) to
    the window's end."""
    argv = ["ip", "netns", "exec", "cx0"] + client_argv(wl, int(warm + secs + 2))
    if traced:
        tw("tracing_on", "0")
        tw("trace", "")
        switch_tracer("function_graph")
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    t0 = time.monotonic()
    if traced:
        # Half a second before the window: enough for every task's open
        # functions to be seen, short enough to keep the trace small.
        time.sleep(max(0.0, warm - 0.5))
        tw("tracing_on", "1")
    time.sleep(max(0.0, t0 + warm - time.monotonic()))
    a = snap(holder, "cxprof-a" if traced else None)
    time.sleep(max(0.0, a["t"] + secs - time.monotonic()))
    b = snap(holder, "cxprof-b" if traced else None)
    if traced:
        tw("tracing_on", "0")
    out, err = p.communicate(timeout=warm + secs + 120)
    if p.returncode:
        raise RuntimeError(f"{' '.join(argv)}: exit {p.returncode}: {err.strip()} {out[-300:]}")
    w = b["t"] - a["t"]
    stat = {k: b["stat"][k] - a["stat"][k] for k in a["stat"]}
    dev = {d: [y - x for x, y in zip(a["dev"][d], b["dev"][d])] for d in a["dev"]}
    # cxen1 receives the stream, the datagrams and the requests.
    r = {"window_s": w, "stat_ticks": stat, "client_s": time.monotonic() - t0,
         "rx_packets": dev["cxen0"][1] + dev["cxen1"][1],
         "tx_packets": dev["cxen0"][3] + dev["cxen1"][3],
         "dev": dev,
         "rate_mbps": dev["cxen1"][0] * 8 / w / 1e6,
         "rate_pps": dev["cxen1"][1] / w}
    idle_s = (stat["idle"] + stat["iowait"]) / CLK_TCK
    r["stat_idle_s"] = idle_s
    r["stat_busy_s"] = NCPU * w - idle_s
    r["stat_tick_busy_s"] = sum(v for k, v in stat.items() if k not in ("idle", "iowait")) / CLK_TCK
    return r


# ---------------------------------------------------------------- the trace

LINE = re.compile(r"^\s*(\d+\.\d+) \|\s+(\d+)\)\s+(.*?)\s+\|\s+(?:[+!#*@$]\s*)?(?:(\d+\.\d+) us\s+)?\|(.*)$")
MARKS = ("cxprof-a0", "cxprof-a1", "cxprof-b0", "cxprof-b1")


def category(fn, funcs):
    """fn as the tracer prints it: "name" or "name [module]"."""
    if fn.endswith(" [cxen]"):
        return "driver_" + funcs["driver"].get(fn[:-7], "other")
    if fn.endswith(" [cxsim]"):
        return "model"
    if fn in funcs["markers"]:
        return "rest"
    return "stack"


class Walk:
    """Charges each stretch of CPU time between two trace events: see the
    module doc. The window runs from the middle of markers a0/a1 (around
    the first /proc/stat read) to the middle of b0/b1 (the second); the
    stretches charged while the middle is not yet known wait in pending."""

    def __init__(self, funcs):
        self.funcs = funcs
        self.cats = {c: 0.0 for c in CATS}
        self.selfs = {}
        self.catof = {}
        self.stacks = {}      # task key -> [fn, ...]
        self.cur = {}         # cpu -> task key
        self.last = {}        # cpu -> time of the last event (s)
        self.inidle = {}      # cpu -> between tick_nohz_idle_enter and _exit
        self.inirq = {}       # cpu -> between irq_enter_rcu and irq_exit_rcu's return
        self.marks = {}
        self.lo = self.hi = None
        self.pending = []

    def what(self, cpu):
        k = self.cur.get(cpu)
        st = self.stacks.get(k)
        if st:
            fn = st[-1]
            c = self.catof.get(fn)
            if c is None:
                c = self.catof[fn] = category(fn, self.funcs)
            return c, fn
        if isinstance(k, tuple):
            # The idle task: idle as /proc/stat counts it, or the idle
            # loop's own work and interrupts (busy there too).
            if self.inidle.get(cpu, True) and not self.inirq.get(cpu, False):
                return "idle", None
            return "rest", "(idle loop)"
        return "rest", None

    def add(self, c, fn, a, b):
        lo = a if self.lo is None else max(a, self.lo)
        hi = b if self.hi is None else min(b, self.hi)
        if hi > lo:
            self.cats[c] += hi - lo
            if fn:
                self.selfs[fn] = self.selfs.get(fn, 0.0) + hi - lo

    def charge(self, cpu, t):
        lt = self.last.get(cpu)
        if lt is None or t <= lt:
            self.last[cpu] = t if lt is None else lt
            return
        self.last[cpu] = t
        if "cxprof-a0" not in self.marks:
            return
        c, fn = self.what(cpu)
        if self.lo is None or ("cxprof-b0" in self.marks and self.hi is None):
            self.pending.append((c, fn, lt, t))
        else:
            self.add(c, fn, lt, t)

    def mark(self, name, t):
        self.marks[name] = t
        if name == "cxprof-a1":
            self.lo = (self.marks["cxprof-a0"] + t) / 2
        elif name == "cxprof-b1":
            self.hi = (self.marks["cxprof-b0"] + t) / 2
        else:
            return
        for c, fn, a, b in self.pending:
            self.add(c, fn, a, b)
        self.pending = []


def walk(path, funcs):
    """Charge every nanosecond between the markers (see the module doc)."""
    w = Walk(funcs)
    calls = {}
    unmatched = bad = switches = lines = 0
    with open(path) as f:
        for line in f:
            lines += 1
            m = LINE.match(line)
            if not m:
                continue
            t = float(m.group(1))
            cpu = int(m.group(2))
            task = m.group(3)
            pid = int(task.rsplit("-", 1)[1]) if "-" in task else -1
            body = m.group(5).strip()
            k = ("idle", cpu) if pid == 0 else pid
            w.charge(cpu, t)
            w.cur[cpu] = k
            if body.startswith("/*"):
                mk = next((x for x in MARKS if x in body), None)
                if mk:
                    w.mark(mk, t)
                    if mk == "cxprof-b1":
                        # Close every CPU at the end.
                        for c in list(w.last):
                            w.charge(c, t)
                        w.mark(mk, t)
                        break
                elif "sched_switch:" in body:
                    switches += 1
                    n = re.search(r"next_pid=(\d+)", body)
                    if n:
                        np = int(n.group(1))
                        w.cur[cpu] = ("idle", cpu) if np == 0 else np
                continue
            if body.endswith("() {"):
                fn = body[:-4]
                w.stacks.setdefault(k, []).append(fn)
                calls[fn] = calls.get(fn, 0) + 1
                if fn == "irq_enter_rcu":
                    w.inirq[cpu] = True
                elif fn == "tick_nohz_idle_exit":
                    w.inidle[cpu] = False
            elif body.endswith("();"):
                fn = body[:-3]
                calls[fn] = calls.get(fn, 0) + 1
                if m.group(4) is None:
                    bad += 1
                    continue
                if fn == "irq_enter_rcu":
                    w.inirq[cpu] = True
                elif fn == "tick_nohz_idle_exit":
                    w.inidle[cpu] = False
                w.stacks.setdefault(k, []).append(fn)
                w.charge(cpu, t + float(m.group(4)) * 1e-6)
                w.stacks[k].pop()
                if fn == "irq_exit_rcu":
                    w.inirq[cpu] = False
                elif fn == "tick_nohz_idle_enter":
                    w.inidle[cpu] = True
            elif body.startswith("}"):
                st = w.stacks.get(k)
                if st:
                    fn = st.pop()
                    if fn == "irq_exit_rcu":
                        w.inirq[cpu] = False
                    elif fn == "tick_nohz_idle_enter":
                        w.inidle[cpu] = True
                else:
                    # Entered before the trace began: charged as what
                    # was open around it. Counted; the report states it.
                    unmatched += 1
            else:
                bad += 1
    if w.lo is None or w.hi is None:
        raise RuntimeError(f"trace: markers missing ({sorted(w.marks)}, {lines} lines)")
    mk = w.marks
    return {"cats_s": w.cats, "trace_window_s": w.hi - w.lo,
            "stat_read_s": [mk["cxprof-a1"] - mk["cxprof-a0"], mk["cxprof-b1"] - mk["cxprof-b0"]],
            "self_s": dict(sorted(w.selfs.items(), key=lambda x: -x[1])[:40]),
            "calls": {k: calls[k] for k in sorted(calls, key=lambda x: -calls[x])[:60]},
            "unmatched_returns": unmatched, "unparsed": bad, "switches": switches,
            "lines": lines}


def profile(holder, funcs, wl, secs, warm):
    try:
        r = measure(holder, wl, secs, warm, traced=True)
        return read_trace(r, funcs)
    finally:
        # Switching the tracer clears the buffer: only after reading it.
        tw("tracing_on", "0")
        switch_tracer("nop")


def read_trace(r, funcs):
    st = trace_stats()
    r["trace_stats"] = st
    lost = sum(v.get("overrun", 0) + v.get("dropped_events", 0) for v in st.values())
    if lost:
        raise RuntimeError(f"trace lost {lost} events: raise --buffer-kb")
    t0 = time.monotonic()
    # The kernel formats the buffer as it is read (tracing is off).
    r.update(walk(os.path.join(T, "trace"), funcs))
    r["walk_s"] = time.monotonic() - t0
    tw("trace", "")
    return r


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--funcs", required=True)
    ap.add_argument("--workloads", default=",".join(WORKLOADS))
    ap.add_argument("--layouts", default="default")
    ap.add_argument("--duration", type=float, default=3.0)
    ap.add_argument("--warm", type=float, default=2.0)
    ap.add_argument("--reps", type=int, default=1)
    ap.add_argument("--buffer-kb", type=int, default=49152)
    ap.add_argument("--model", choices=sorted(list(model_modes.MODES) +
                                              [m + model_modes.LRO_SUFFIX
                                               for m in model_modes.MODES]),
                    help="the model's datapath and the ports' moderation "
                    "(bench/model_modes.py's modes; default: as loaded)")
    a = ap.parse_args()
    with open(a.funcs) as f:
        funcs = json.load(f)
    wls = a.workloads.split(",")
    for w in wls:
        if w not in WORKLOADS:
            raise SystemExit(f"profile: unknown workload {w} (known: {', '.join(WORKLOADS)})")
    layouts = a.layouts.split(",")
    # bench/run's layouts, and the striding RQ (a private flag too).
    known = guest.LAYOUTS + ["striding"]
    for lay in layouts:
        if lay not in known:
            raise SystemExit(f"profile: unknown layout {lay} (known: {', '.join(known)})")
    traced, missing = tracer_setup(funcs, a.buffer_kb)
    print("PROFILE-COND " + json.dumps({
        "kernel": os.uname().release, "accel": os.environ.get("CXEN_ACCEL"),
        "vcpus": NCPU, "clk_tck": CLK_TCK, "duration_s": a.duration, "warm_s": a.warm,
        "reps": a.reps, "model": a.model,
        "traced_functions": len(traced), "not_traceable": missing,
        "trace_clock": re.search(r"\[(\w+)\]", tr("trace_clock")).group(1),
        "guest_loadavg": open("/proc/loadavg").read().split()[:3]}), flush=True)
    start_coal = None
    if a.model:
        start_coal = model_modes.coalescing()
        model_modes.set_mode(a.model, start_coal)
    guest.veth_setup()
    guest.servers()
    holder = Holder()
    failures = 0
    t_all = time.monotonic()
    try:
        for wl in wls:
            for lay in layouts:
                guest.set_layout(lay)
                for rep in range(a.reps):
                    rec = {"workload": wl, "layout": lay, "rep": rep}
                    try:
                        rec["plain"] = measure(holder, wl, a.duration, a.warm, traced=False)
                        rec["traced"] = profile(holder, funcs, wl, a.duration, a.warm)
                    except (RuntimeError, OSError, subprocess.TimeoutExpired) as err:
                        failures += 1
                        rec["error"] = str(err)
                        print("PROFILE-ERROR " + json.dumps(rec), flush=True)
                        log(f"{wl} {lay}: FAILED: {err}")
                        continue
                    print("PROFILE-RESULT " + json.dumps(rec), flush=True)
                    p, t = rec["plain"], rec["traced"]
                    log(f"{wl} {lay} rep {rep + 1}: {p['rate_pps']:.0f} pps plain, "
                        f"{t['rate_pps']:.0f} traced; trace {t['lines']} lines "
                        f"read and walked in {t['walk_s']:.1f} s")
    finally:
        holder.stop()
        guest.servers_stop()
        guest.veth_teardown()
        # The mode first: a layout change is refused while LRO is on.
        if a.model:
            model_modes.set_mode("work", start_coal)
        if guest._current["layout"] not in (None, "default"):
            guest.set_layout("default")
        switch_tracer("nop")
        tw("set_event", "")
        tw("set_ftrace_filter", "")
        tw("buffer_size_kb", "1408")
    print("PROFILE-DONE " + json.dumps({"failures": failures,
                                        "seconds": round(time.monotonic() - t_all, 1)}),
          flush=True)
    if failures:
        raise SystemExit(f"profile: {failures} measurement(s) failed")


if __name__ == "__main__":
    main()
