#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Bytes over truesize as a receiving socket is charged for them.

    sock_truesize.py tcp|udp RX_NS ADDR TX_NS BYTES [PAYLOAD]

A receiver in netns RX_NS binds ADDR with a receive buffer far larger
than BYTES and does not read; a sender in TX_NS sends BYTES (TCP: one
stream; UDP: datagrams of PAYLOAD bytes, default 64). When the queue has
stopped growing for a second, the receiver reads its socket's charge,
SO_MEMINFO's SK_MEMINFO_RMEM_ALLOC (the truesize of every skb queued,
after GRO merged them), beside the payload bytes queued, then drains the
queue and checks it got every byte. Prints one line:

    tcp bytes 2097152 rmem_alloc 2301952 ratio 0.911 drops 0 (...)

That is what the driver's RX buffers cost a socket, heads and GRO
included: the rx_truesize_bytes counter charges every frame before GRO
and overstates a head GRO frees. The receive buffer is set with
SO_RCVBUFFORCE (root) so that the stack never collapses the queue
(tcp_collapse() rewrites skbs once rmem_alloc passes sk_rcvbuf) and no
datagram is dropped; each side runs in its namespace through
"ip netns exec" with this file as the program.
"""
import os
import socket
import struct
import subprocess
import sys
import time

SO_MEMINFO = 55
SO_RCVBUFFORCE = 33
SIOCINQ = 0x541B
PORT = 5311


def meminfo(s):
    raw = s.getsockopt(socket.SOL_SOCKET, SO_MEMINFO, 9 * 4)
    return struct.unpack("9I", raw)


def inq(s):
    import fcntl
    return struct.unpack("i", fcntl.ioctl(s.fileno(), SIOCINQ, b"\0" * 4))[0]


def family(addr):
    return socket.AF_INET6 if ":" in addr else socket.AF_INET


def settle(get, secs=1.0, limit=60.0):
    """Wait until get() is not 0 and has not changed for secs; return it."""
    t0 = time.monotonic()
    while not get() and time.monotonic() - t0 < limit:
        time.sleep(0.05)
    last, since = get(), time.monotonic()
    while time.monotonic() - t0 < limit:
        time.sleep(0.1)
        now = get()
        if now != last:
            last, since = now, time.monotonic()
        elif time.monotonic() - since >= secs:
            break
    return last


def receiver(proto, addr, nbytes, payload):
    kind = socket.SOCK_STREAM if proto == "tcp" else socket.SOCK_DGRAM
    s = socket.socket(family(addr), kind)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 64 * nbytes + (1 << 22))
    s.bind((addr, PORT))
    if proto == "tcp":
        s.listen(1)
        print("ready", flush=True)
        c, _ = s.accept()
        # Queued bytes: SIOCINQ counts the stream's unread bytes.
        # The sender may stall on a window the unread queue closed: what
        # is queued then is the sample.
        settle(lambda: inq(c))
        queued, rmem = inq(c), meminfo(c)[0]
        drops = meminfo(c)[8]
        c.settimeout(60)
        got = 0
        while True:
            d = c.recv(1 << 20)
            if not d:
                break
            got += len(d)
        print(f"{proto} bytes {queued} rmem_alloc {rmem} "
              f"ratio {queued / rmem if rmem else 0:.3f} drops {drops} "
              f"(of {got} received)", flush=True)
        return 0 if got == nbytes and queued else 1
    else:
        print("ready", flush=True)
        # SIOCINQ gives one datagram's size: count them by rmem growth.
        rmem = settle(lambda: meminfo(s)[0])
        s.setblocking(False)
        got, skbs = 0, 0
        try:
            while True:
                got += len(s.recv(65536))
                skbs += 1
        except BlockingIOError:
            pass
        drops = meminfo(s)[8]
        print(f"{proto} bytes {got} rmem_alloc {rmem} "
              f"ratio {got / rmem if rmem else 0:.3f} drops {drops} "
              f"({skbs} datagrams)", flush=True)
        return 0 if got == nbytes and not drops else 1


def sender(proto, addr, nbytes, payload):
    data = os.urandom(min(nbytes, 1 << 20))
    if proto == "tcp":
        s = socket.create_connection((addr, PORT), timeout=30)
        left = nbytes
        while left:
            n = s.send(data[:min(left, len(data))])
            left -= n
        s.shutdown(socket.SHUT_WR)
        time.sleep(0.5)
        s.close()
    else:
        s = socket.socket(family(addr), socket.SOCK_DGRAM)
        s.connect((addr, PORT))
        for _ in range(nbytes // payload):
            s.send(data[:payload])
            # Paced: a burst larger than a ring would be dropped by the
            # device, which is not what this measures.
            time.sleep(0.0002)
    return 0


def main():
    if len(sys.argv) >= 2 and sys.argv[1] in ("--rx", "--tx"):
        role, proto, addr, nbytes, payload = sys.argv[1:6]
        fn = receiver if role == "--rx" else sender
        return fn(proto, addr, int(nbytes), int(payload))
    proto, rx_ns, addr, tx_ns, nbytes = sys.argv[1:6]
    payload = sys.argv[6] if len(sys.argv) > 6 else "64"
    if proto == "udp" and int(nbytes) % int(payload):
        sys.exit("BYTES must be a multiple of PAYLOAD")
    me = os.path.abspath(__file__)
    rx = subprocess.Popen(["ip", "netns", "exec", rx_ns, sys.executable, me,
                           "--rx", proto, addr, nbytes, payload],
                          stdout=subprocess.PIPE, text=True)
    if rx.stdout.readline().strip() != "ready":
        sys.exit("receiver did not start")
    tx = subprocess.run(["ip", "netns", "exec", tx_ns, sys.executable, me,
                         "--tx", proto, addr, nbytes, payload], timeout=300)
    out, _ = rx.communicate(timeout=300)
    sys.stdout.write(out)
    return tx.returncode or rx.returncode


if __name__ == "__main__":
    sys.exit(main())
