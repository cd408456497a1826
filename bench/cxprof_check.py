#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The driver's cost guard: instructions per frame against the baseline.

    bench/cxprof_check.py [--baseline FILE] [--limit PCT] RUNDIR
    bench/cxprof_check.py --write FILE RUNDIR [RUNDIR...]

RUNDIR is a `make profile` result (bench/cxprof_report.py's
results.json). For every workload the baseline names (default layout),
the driver's instructions per frame must not exceed the baseline's by
more than PCT percent (default 10): driver RX per frame received, driver
TX per frame sent, and the driver as a whole (RX + TX + other) per frame
received. Exit 1 when one does, or when a baselined workload is missing.
A figure more than PCT percent below the baseline passes, with a line
asking for the baseline to be renewed (--write).

--write FILE takes the median over the RUNDIRs' runs of each workload and
writes the baseline (bench/results/cxprof-baseline.json).
"""

import argparse
import json
import os
import statistics
import sys

METRICS = {
    "driver_rx_per_rx": ("driver RX / frame received", lambda a: a["insns_per_pkt"]["driver_rx"]),
    "driver_tx_per_tx": ("driver TX / frame sent", lambda a: a["insns_per_pkt"]["driver_tx"]),
    "driver_per_rx": ("driver (all) / frame received", lambda a: a["driver_insns_per_pkt"]),
}


def rows_of(d):
    with open(os.path.join(d, "results.json")) as f:
        r = json.load(f)
    return r, [a for a in r["rows"] if a["layout"] == "default"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--baseline", default=os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "results", "cxprof-baseline.json"))
    ap.add_argument("--limit", type=float, default=10.0)
    ap.add_argument("--write")
    ap.add_argument("dirs", nargs="+")
    a = ap.parse_args()
    if a.write:
        per = {}
        src = []
        for d in a.dirs:
            r, rows = rows_of(d)
            src.append({"dir": os.path.relpath(d), "commit": r["host"].get("git_commit"),
                        "dirty": r["host"].get("git_dirty"), "icount": r["host"].get("icount"),
                        "date_utc": r["host"].get("date_utc")})
            for row in rows:
                for m, (_, get) in METRICS.items():
                    per.setdefault(row["workload"], {}).setdefault(m, []).append(get(row))
        out = {"what": "driver instructions per frame, default layout, stock kernel, "
                       "cxprof (make profile); median of the runs; bench/cxprof_check.py",
               "sources": src,
               "workloads": {w: {m: round(statistics.median(v), 1) for m, v in ms.items()}
                             for w, ms in per.items()},
               "runs": {w: {m: [round(x, 1) for x in v] for m, v in ms.items()}
                        for w, ms in per.items()}}
        with open(a.write, "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
        print(f"cxprof_check: baseline written to {a.write}")
        return 0
    with open(a.baseline) as f:
        base = json.load(f)
    if len(a.dirs) != 1:
        raise SystemExit("cxprof_check: one RUNDIR to check")
    _, rows = rows_of(a.dirs[0])
    fail = False
    print(f"{'workload':8} {'metric':32} {'baseline':>9} {'now':>9} {'change':>8}")
    for w, ms in base["workloads"].items():
        got = [r for r in rows if r["workload"] == w]
        if not got:
            print(f"{w:8} missing from {a.dirs[0]}: FAIL")
            fail = True
            continue
        for m, b in ms.items():
            label, get = METRICS[m]
            v = statistics.median(get(r) for r in got)
            ch = 100.0 * (v - b) / b if b else 0.0
            verdict = ""
            if ch > a.limit:
                verdict = f"FAIL (more than +{a.limit:g}%)"
                fail = True
            elif ch < -a.limit:
                verdict = "cheaper: renew the baseline (bench/cxprof_check.py --write)"
            print(f"{w:8} {label:32} {b:9.1f} {v:9.1f} {ch:+7.1f}% {verdict}")
    print("cost guard: " + ("FAILED" if fail else f"every figure within +{a.limit:g}% of "
                            f"{os.path.relpath(a.baseline)}"))
    return 1 if fail else 0


if __name__ == "__main__":
    sys.exit(main())
