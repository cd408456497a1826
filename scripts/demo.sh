#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build cxen and cxsim, boot Debian's stock 6.12 kernel in QEMU,
# put the two cxen ports in two network namespaces (tests/vm/run --pair),
# run iperf3 TCP for 10 s cxen0 -> cxen1, then the same over a veth pair
# in the same VM for reference, and print both ports' ethtool -S counters.
#
#   scripts/demo.sh [tests/vm/run options, e.g. --kernel debug]
#
# Under TCG absolute numbers mean little: compare the two lines.
set -euo pipefail

secs=${CXEN_DEMO_SECONDS:-10}

if [ -z "${CXEN_VM:-}" ]; then
	here=$(cd "$(dirname "$0")" && pwd)
	echo "demo: building the modules and booting the VM (stock kernel unless told)..." >&2
	exec "$here/../tests/vm/run" --pair "$@" -- scripts/demo.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"

echo "== cxen demo: kernel $(uname -r) in QEMU, $(nproc) vCPUs"
echo "== iperf3 TCP ${secs} s, cxen0 (netns cx0) -> cxen1 (netns cx1)"
cxen=$(iperf3_run cx1 192.0.2.2 cx0 "$secs") || {
	printf '%s\n' "$cxen" >&2
	echo "demo: iperf3 over cxen failed" >&2
	exit 1
}
echo "cxen: $cxen"

echo "== iperf3 TCP ${secs} s, veth0 (netns vx0) -> veth1 (netns vx1), same VM, for reference"
ip netns add vx0
ip netns add vx1
ip -n vx0 link add veth0 type veth peer name veth1 netns vx1
ip -n vx0 addr add 198.51.100.1/24 dev veth0
ip -n vx1 addr add 198.51.100.2/24 dev veth1
ip -n vx0 link set veth0 up
ip -n vx1 link set veth1 up
ip -n vx0 link set lo up
ip -n vx1 link set lo up
veth=$(iperf3_run vx1 198.51.100.2 vx0 "$secs") || {
	printf '%s\n' "$veth" >&2
	echo "demo: iperf3 over veth failed" >&2
	exit 1
}
echo "veth: $veth"
ip netns delete vx0
ip netns delete vx1

for p in 0 1; do
	echo "== ethtool -S cxen$p (non-zero counters)"
	ip netns exec "cx$p" ethtool -S "cxen$p" | awk 'NR == 1 || $NF != 0'
done
echo
echo "throughput: cxen $cxen, veth $veth (iperf3 TCP ${secs} s, QEMU TCG)"
