#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Raw frames to chosen destination addresses, and the device's buckets.

    filter-frames.py send SRC_NS SRC_DEV DST_NS DST_DEV COUNT MAC...
    filter-frames.py buckets MAC...

send: COUNT Ethernet frames (ethertype 0x88b5, IEEE local experimental:
the stack has no handler and drops them) from SRC_DEV in netns SRC_NS to
each MAC in turn, through an AF_PACKET socket; an AF_PACKET socket on
DST_DEV in netns DST_NS, made first, counts those that arrive (a nonce
in the payload tells this run's frames from any other). The socket does
not make the port promiscuous, as tcpdump would. Both sockets are made
in their namespace with setns(2), in one process. It waits until no
frame came for 2 s after the last one sent. Prints one line per MAC:
"MAC sent COUNT received K".

buckets: the device's multicast bucket (Documentation/hw-interface.rst,
SET_RX_FILTER: the low 6 bits of ether_crc_le(6, addr), i.e. of the
one's complement of zlib.crc32()) of each MAC, one per line:
"MAC BUCKET".
"""

import os
import socket
import struct
import sys
import time
import zlib

from cxnetns import enter_netns

ETH_P_EXP = 0x88B5
MAGIC = b"cxenfilt"
IDLE_S = 2.0


def mac_bytes(mac):
    b = bytes.fromhex(mac.replace(":", ""))
    if len(b) != 6:
        raise ValueError(f"not a MAC address: {mac}")
    return b


def bucket(mac):
    return (~zlib.crc32(mac_bytes(mac))) & 63


def send(src_ns, src_dev, dst_ns, dst_dev, count, macs):
    nonce = os.urandom(8)
    enter_netns(dst_ns)
    rx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                       socket.htons(ETH_P_EXP))
    rx.bind((dst_dev, ETH_P_EXP))
    rx.settimeout(0.2)
    enter_netns(src_ns)
    tx = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
    tx.bind((src_dev, 0))
    src = tx.getsockname()[4]

    got = [0] * len(macs)
    for i, mac in enumerate(macs):
        for seq in range(count):
            payload = MAGIC + nonce + struct.pack("!BH", i, seq)
            frame = mac_bytes(mac) + src + struct.pack("!H", ETH_P_EXP)
            tx.send((frame + payload).ljust(60, b"\0"))
    last = time.monotonic()
    while time.monotonic() - last < IDLE_S:
        try:
            data = rx.recv(2048)
        except socket.timeout:
            continue
        p = data[14:]
        if p[:8] != MAGIC or p[8:16] != nonce:
            continue
        i = p[16]
        if i < len(got):
            got[i] += 1
            last = time.monotonic()
    for mac, k in zip(macs, got):
        print(f"{mac} sent {count} received {k}")


def main(argv):
    if len(argv) >= 8 and argv[1] == "send":
        send(argv[2], argv[3], argv[4], argv[5], int(argv[6]), argv[7:])
    elif len(argv) >= 3 and argv[1] == "buckets":
        for mac in argv[2:]:
            print(mac, bucket(mac))
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
