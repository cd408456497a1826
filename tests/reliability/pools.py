#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The page pools of the current network namespace, over netlink.

Run inside a namespace (ip netns exec NS ...), with the kernel's ynl
library (tools/net/ynl) and netdev.yaml spec:

  pools.py YNL_DIR SPEC live IFINDEX
      print how many pools of IFINDEX are live (not detached)
  pools.py YNL_DIR SPEC released SECONDS
      wait up to SECONDS for no pool to hold pages ("inflight" > 0);
      exit 1 and print the ones that still do

One process polls: starting python and loading the spec takes seconds on
the emulated debug kernel, too long to do once per poll.
"""

import sys
import time


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
    deadline = time.monotonic() + float(arg)
    while True:
        held = [p for p in ynl.dump('page-pool-get', {}) if p.get('inflight')]
        if not held:
            return 0
        if time.monotonic() > deadline:
            print(held)
            return 1
        time.sleep(0.2)


if __name__ == '__main__':
    sys.exit(main())
