#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""TCP payload integrity between network namespaces, in one process.

    edges-xfer.py [--bytes N] [--port P] [--mss M] [--timeout S]
                  SRC_NS:DST_NS:DST_ADDR ...

Each argument is one direction: a TCP connection from netns SRC_NS to
DST_ADDR, a listener in netns DST_NS. All directions run at the same time,
each with its own os.urandom() payload of N bytes (default 4 MiB). The
sockets are made in their namespace with setns(2) (a socket keeps the
namespace it was created in), so one Python start serves every direction:
each exec costs most of a second in a TCG guest (tests/integration/lib.sh's
xfer() forks a dozen).

Prints one line per direction: bytes sent and received, the SHA-256 of
both. Exits 0 when every receiver got exactly what its sender sent
(length and SHA-256), 1 otherwise, 2 on a usage or set-up error.
"""

import argparse
import hashlib
import os
import socket
import sys
import threading

from cxnetns import enter_netns

CHUNK = 1 << 16


class Direction:
    def __init__(self, spec, port, nbytes, mss, timeout):
        try:
            self.src, self.dst, self.addr = spec.split(":", 2)
        except ValueError:
            raise SystemExit(f"edges-xfer: bad direction '{spec}'"
                             " (want SRC_NS:DST_NS:DST_ADDR)") from None
        self.port = port
        self.nbytes = nbytes
        self.mss = mss
        self.timeout = timeout
        self.family = socket.AF_INET6 if ":" in self.addr else socket.AF_INET
        self.payload = os.urandom(nbytes)
        self.sent_hash = hashlib.sha256(self.payload).hexdigest()
        self.recv_hash = hashlib.sha256()
        self.received = 0
        self.sent = 0
        self.errors = []

    def connect(self):
        enter_netns(self.dst)
        lis = socket.socket(self.family, socket.SOCK_STREAM)
        lis.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        lis.bind((self.addr, self.port))
        lis.listen(1)
        lis.settimeout(self.timeout)
        enter_netns(self.src)
        cli = socket.socket(self.family, socket.SOCK_STREAM)
        if self.mss:
            cli.setsockopt(socket.IPPROTO_TCP, socket.TCP_MAXSEG, self.mss)
        cli.settimeout(self.timeout)
        cli.connect((self.addr, self.port))
        self.cli = cli
        self.srv, _ = lis.accept()
        self.srv.settimeout(self.timeout)
        lis.close()

    def send(self):
        try:
            view = memoryview(self.payload)
            for off in range(0, self.nbytes, CHUNK):
                self.cli.sendall(view[off:off + CHUNK])
                self.sent = min(off + CHUNK, self.nbytes)
            self.cli.shutdown(socket.SHUT_WR)
            # The receiver closes after EOF: wait for it.
            while self.cli.recv(CHUNK):
                pass
        except OSError as e:
            self.errors.append(f"sender: {e}")
        finally:
            self.cli.close()

    def receive(self):
        buf = bytearray(CHUNK)
        try:
            while True:
                n = self.srv.recv_into(buf)
                if not n:
                    break
                self.recv_hash.update(memoryview(buf)[:n])
                self.received += n
        except OSError as e:
            self.errors.append(f"receiver: {e}")
        finally:
            self.srv.close()

    def report(self):
        got = self.recv_hash.hexdigest()
        ok = (not self.errors and self.received == self.nbytes and
              got == self.sent_hash)
        print(f"{self.src} -> {self.dst} {self.addr}: sent {self.sent} B,"
              f" received {self.received} B; SHA-256 sent {self.sent_hash},"
              f" received {got}: {'intact' if ok else 'CORRUPTED OR SHORT'}"
              + "".join(f"; {e}" for e in self.errors))
        return ok


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--bytes", type=int, default=4 << 20)
    ap.add_argument("--port", type=int, default=5400)
    ap.add_argument("--mss", type=int, default=0)
    ap.add_argument("--timeout", type=float, default=60)
    ap.add_argument("directions", nargs="+")
    args = ap.parse_args()

    dirs = [Direction(spec, args.port + i, args.bytes, args.mss, args.timeout)
            for i, spec in enumerate(args.directions)]
    try:
        for d in dirs:
            d.connect()
    except OSError as e:
        print(f"edges-xfer: set-up failed: {e}")
        return 2
    threads = []
    for d in dirs:
        threads += [threading.Thread(target=d.receive),
                    threading.Thread(target=d.send)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    ok = True
    for d in dirs:
        ok = d.report() and ok
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
