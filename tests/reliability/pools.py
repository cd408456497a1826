#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The page pools of the current network namespace, over netlink.

Run inside a namespace (ip netns exec NS ...), with the kernel's ynl
library (tools/net/ynl) and netdev.yaml spec:

  pools.py YNL_DIR SPEC live IFINDEX
      print how many pools of IFINDEX are live (not detached)
  pools.py YNL_DIR SPEC released SECONDS
      wait up to SECONDS for no pool to hold pages ("inflight" > 0),
      sending a datagram through the namespace's loopback from each CPU
      at every poll; print how long it took, or exit 1 and print the
      ones that still do

An skb is freed on the CPU that allocated it (skb_attempt_defer_free():
a TCP receiver on another CPU hands it back), in that CPU's next NET_RX
softirq. A CPU with nothing more to receive keeps the skbs, and their
pages stay in flight for as long: the loopback datagram gives each CPU
a softirq, as tests/reliability/unload.sh does. A page a pool never gets
back after that is held by a socket or leaked.

One process polls: starting python and loading the spec takes seconds on
the emulated debug kernel, too long to do once per poll.
"""

import os
import socket
import sys
import time


def kick_cpus(sock, cpus):
    """A datagram through the loopback device from each CPU in turn."""
    for cpu in cpus:
        os.sched_setaffinity(0, {cpu})
        sock.sendto(b'x', ('127.0.0.1', 9))
    os.sched_setaffinity(0, cpus)


def main():
    ynl_dir, spec, what, arg = sys.argv[1:5]
    sys.path.insert(0, ynl_dir)
    from lib import YnlFamily  # pylint: disable=import-outside-toplevel

    ynl = YnlFamily(spec, '')
    if what == 'live':
        pools = ynl.dump('page-pool-get', {})
        print(sum(1 for p in pools
                  if p.get('ifindex') == int(arg) and 'detach-time' not in p))
        return 0
    cpus = sorted(os.sched_getaffinity(0))
    lo = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    t0 = time.monotonic()
    kicks = 0
    while True:
        held = [p for p in ynl.dump('page-pool-get', {}) if p.get('inflight')]
        t = time.monotonic() - t0
        if not held:
            print('released after %.2f s, %d loopback kicks' % (t, kicks))
            return 0
        if t > float(arg):
            print(held)
            return 1
        kick_cpus(lo, cpus)
        kicks += 1
        time.sleep(0.2)


if __name__ == '__main__':
    sys.exit(main())
