#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Plot bench/rx_layouts.py's figures: the trade-offs of the RX layouts.

    bench/layouts_plot.py LAYOUTS.TXT OUT.PNG

Reads the "# json" line of rx_layouts.py's output and draws, per MTU and
layout (bars: median of the repetitions, whiskers: min-max):
  left   bytes / truesize: as the driver charges each frame (TCP stream;
         64-byte UDP datagrams, copybreak off), as the frames' strides pin
         (striding layouts: issue 22's definition) and as the socket is
         charged after GRO (TCP, 2 MiB)
  right  RX memory per queue, idle (what the ring posts) and under a TCP
         stream (ring + in flight), KiB
"""
import json
import os
import statistics
import subprocess
import sys
import tempfile

RATIOS = [("driver TCP", "bytes_per_truesize"), ("strides TCP", "bytes_per_strides"),
          ("socket TCP", "tcp_sock_ratio"), ("driver UDP 64 B", "udp64_bytes_per_truesize"),
          ("strides UDP 64 B", "udp64_bytes_per_strides")]
MEMORY = [("idle", "mem_kib_per_queue_idle"), ("under load", "mem_kib_per_queue_load")]


def load(path):
    with open(path) as fh:
        for line in fh:
            if line.startswith("# json "):
                return json.loads(line[len("# json "):])
    raise SystemExit(f"layouts_plot: no '# json' line in {path}")


def write_dat(path, rows, series):
    """One line per (MTU, layout): per series median, min, max."""
    keys = sorted({(r["mtu"], r["layout"]) for r in rows},
                  key=lambda k: (k[0], ["default", "striding", "striding+split"].index(k[1])))
    with open(path, "w") as fh:
        fh.write("# row " + " ".join(f"{n} min max" for n, _ in series) + "\n")
        for mtu, lay in keys:
            vals = []
            for _, key in series:
                v = [r[key] for r in rows if r["mtu"] == mtu and r["layout"] == lay
                     and r[key] is not None]
                vals += [statistics.median(v), min(v), max(v)] if v else [None] * 3
            fh.write(f'"{lay} {mtu}" ' + " ".join("NaN" if x is None else f"{x:.3f}"
                                                   for x in vals) + "\n")


def main():
    if len(sys.argv) != 3:
        raise SystemExit(__doc__)
    data = load(sys.argv[1])
    rows, out = data["rows"], sys.argv[2]
    with tempfile.TemporaryDirectory() as tmp:
        rat, mem = os.path.join(tmp, "ratio.dat"), os.path.join(tmp, "mem.dat")
        write_dat(rat, rows, RATIOS)
        write_dat(mem, rows, MEMORY)

        def plot(dat, series):
            return "plot " + ", ".join(
                f"'{dat}' using {2 + 3 * i}:{3 + 3 * i}:{4 + 3 * i}:xtic(1) title '{n}'"
                for i, (n, _) in enumerate(series)) + "\n"

        reps = data.get("reps", 1)
        gp = ("set terminal png size 1400,560\nset output '" + out + "'\n"
              "set multiplot layout 1,2\nset style data histograms\n"
              "set style histogram errorbars gap 1 lw 1\nset style fill solid 0.8 border -1\n"
              "set key top left\nset grid ytics\nset xtics rotate by -25\n"
              f"set title 'bytes / truesize per RX layout (median of {reps}, min-max)'\n"
              "set yrange [0:1.4]\nset key top left maxrows 3\n" + plot(rat, RATIOS) +
              f"set title 'RX memory per queue, {data['channels']} queues a port (KiB)'\n"
              "set yrange [0:*]\nset offsets 0, 0, graph 0.2, 0\n" + plot(mem, MEMORY) + "unset multiplot\n")
        gpf = os.path.join(tmp, "layouts.gp")
        with open(gpf, "w") as fh:
            fh.write(gp)
        try:
            rc = subprocess.run(["gnuplot", gpf]).returncode
        except FileNotFoundError:
            print("layouts_plot: no gnuplot (apt-get install gnuplot-nox)", file=sys.stderr)
            return 0
        return rc


if __name__ == "__main__":
    sys.exit(main())
