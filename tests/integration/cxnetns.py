# SPDX-License-Identifier: GPL-2.0
"""Enter a network namespace from Python (the test helpers that move data
between the ports' namespaces in one process)."""
import ctypes
import os

CLONE_NEWNET = 0x40000000

_libc = ctypes.CDLL(None, use_errno=True)


def enter_netns(ns):
    """Move the calling thread into netns NS (/run/netns/NS, ip-netns(8))."""
    fd = os.open(f"/run/netns/{ns}", os.O_RDONLY)
    try:
        if _libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns {ns}: {os.strerror(err)}")
    finally:
        os.close(fd)
