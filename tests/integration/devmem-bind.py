#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Bind a udmabuf to one RX queue of a port (netdev bind-rx, devmem TCP).

  devmem-bind.py YNL_DIR SPEC DEV QUEUE

Run inside the port's network namespace, with the kernel's ynl library
(tools/net/ynl) and its netdev.yaml spec. A 1 MiB memfd becomes a
dma-buf through /dev/udmabuf, and bind-rx asks the core to give it to RX
queue QUEUE of DEV. Prints the kernel's answer (its extack message, or
"bound"); exits 0 when the bind succeeded, 1 when it was refused.
"""

import fcntl
import os
import socket
import struct
import sys

F_ADD_SEALS = 1033
F_SEAL_SHRINK = 0x0002
UDMABUF_FLAGS_CLOEXEC = 0x01
# _IOW('u', 0x42, struct udmabuf_create { u32 memfd, flags; u64 offset, size; })
UDMABUF_CREATE = 0x40187542
SIZE = 1 << 20


def udmabuf():
    """A dma-buf over SIZE bytes of a sealed memfd."""
    mfd = os.memfd_create("cxen-devmem", os.MFD_ALLOW_SEALING)
    os.ftruncate(mfd, SIZE)
    fcntl.fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK)
    dev = os.open("/dev/udmabuf", os.O_RDWR)
    arg = bytearray(struct.pack("=IIQQ", mfd, UDMABUF_FLAGS_CLOEXEC, 0, SIZE))
    fd = fcntl.ioctl(dev, UDMABUF_CREATE, arg, True)
    os.close(dev)
    os.close(mfd)
    return fd


def main():
    ynl_dir, spec, dev, queue = sys.argv[1:5]
    sys.path.insert(0, ynl_dir)
    # pylint: disable=import-outside-toplevel
    from lib import YnlFamily, NlError

    ynl = YnlFamily(spec, "")
    fd = udmabuf()
    try:
        ynl.do("bind-rx", {"ifindex": socket.if_nametoindex(dev), "fd": fd,
                           "queues": [{"id": int(queue), "type": "rx"}]})
    except NlError as e:
        print(f"bind-rx refused: {e}")
        return 1
    print("bound")
    return 0


if __name__ == "__main__":
    sys.exit(main())
