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


PP_TRACE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "tests/vm/pp-trace")


def pp_pages():
    """Pages every page_pool took from and gave back to the page allocator
    since the first call, from the pool's tracepoints (tests/vm/pp-trace):
    {"pp_page_alloc": n, "pp_page_release": n}. The driver cannot count
    them without reading the pool's internals, and the pool's statistics
    (CONFIG_PAGE_POOL_STATS) count bulk refills, not pages."""
    if not getattr(pp_pages, "started", False):
        sh(PP_TRACE, "start")
        pp_pages.started = True
    hold, rel = sh(PP_TRACE, "read").split()
    return {"pp_page_alloc": int(hold), "pp_page_release": int(rel)}


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
