# SPDX-License-Identifier: GPL-2.0
"""Helpers for the bench probes that run on the cabled pair (rx_steady.py,
tx_batch.py): commands in the ports' netns, ethtool -S counters, and the
step from the host into the VM."""
import os
import subprocess
import sys


def sh(*argv, check=True):
    return subprocess.run(argv, check=check, capture_output=True, text=True).stdout


def ns(n, *argv, check=True):
    """Run a command in netns @n; its stdout."""
    return sh("ip", "netns", "exec", n, *argv, check=check)


def stats(n, dev, names):
    """The ethtool -S counters of @dev (in netns @n) named in @names."""
    out = {}
    for line in ns(n, "ethtool", "-S", dev).splitlines():
        k, _, v = line.strip().partition(": ")
        if k in names:
            out[k] = int(v)
    return out


def devlink_handle():
    """The devlink instance of the cxen ports' device: platform/<the bus
    device ethtool -i names>."""
    for line in ns("cx0", "ethtool", "-i", "cxen0").splitlines():
        if line.startswith("bus-info: "):
            return "platform/" + line.split(": ", 1)[1].strip()
    raise RuntimeError("ethtool -i cxen0: no bus-info")


def devlink_set(dl, name, value, cmode="runtime"):
    """Set devlink parameter @name of instance @dl."""
    sh("devlink", "dev", "param", "set", dl, "name", name, "value", value,
       "cmode", cmode)


def in_vm(script):
    """On the host, re-run @script (bench/NAME.py, with this process's
    arguments) in the stock-kernel VM with the cabled pair; in the VM,
    return."""
    if os.environ.get("CXEN_VM"):
        return
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    os.execv(os.path.join(root, "tests/vm/run"),
             ["tests/vm/run", "--pair", "--", script] + sys.argv[1:])
