#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Send a known byte stream over TCP and hash it on both ends.

  xfer.py recv ADDR PORT          listen on ADDR:PORT, accept one
                                  connection, read to EOF; prints
                                  "BYTES SHA256" of what arrived
  xfer.py send ADDR PORT BYTES SEED [MSS]
                                  connect, send BYTES bytes of a pseudo-random
                                  stream seeded by SEED (misplaced, repeated
                                  or lost data changes the hash);
                                  MSS sets TCP_MAXSEG (small segments);
                                  prints "BYTES SHA256" of what was sent

The receiver prints its line only after EOF, so a truncated stream shows
as a byte count short of BYTES.
"""
import hashlib
import random
import socket
import sys

CHUNK = 64 * 1024


def family(addr):
    return socket.AF_INET6 if ':' in addr else socket.AF_INET


def pattern(seed, nbytes):
    """Yield chunks of a pseudo-random stream seeded by SEED."""
    rng = random.Random(seed)
    left = nbytes
    while left:
        buf = rng.randbytes(min(left, CHUNK))
        left -= len(buf)
        yield buf


def recv(addr, port):
    with socket.socket(family(addr), socket.SOCK_STREAM) as ls:
        ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        ls.bind((addr, port))
        ls.listen(1)
        ls.settimeout(60)
        conn, _ = ls.accept()
        conn.settimeout(60)
        h = hashlib.sha256()
        n = 0
        with conn:
            while True:
                data = conn.recv(CHUNK)
                if not data:
                    break
                h.update(data)
                n += len(data)
    print(n, h.hexdigest(), flush=True)


def send(addr, port, nbytes, seed, mss):
    h = hashlib.sha256()
    n = 0
    with socket.socket(family(addr), socket.SOCK_STREAM) as s:
        if mss:
            s.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, mss)
        s.settimeout(60)
        s.connect((addr, port))
        for buf in pattern(seed, nbytes):
            s.sendall(buf)
            h.update(buf)
            n += len(buf)
        s.shutdown(socket.SHUT_WR)
        # Wait for the receiver's close so every byte was read.
        while s.recv(CHUNK):
            pass
    print(n, h.hexdigest(), flush=True)


def main(argv):
    if len(argv) == 4 and argv[1] == 'recv':
        recv(argv[2], int(argv[3]))
    elif len(argv) in (6, 7) and argv[1] == 'send':
        mss = int(argv[6]) if len(argv) == 7 else 0
        send(argv[2], int(argv[3]), int(argv[4]), argv[5], mss)
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
