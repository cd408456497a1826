#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make demo: build cxen and cxsim, boot Debian's stock 6.12 kernel in QEMU,
# put the two cxen ports in two network namespaces (tests/vm/run --pair),
# run iperf3 TCP for 10 s cxen0 -> cxen1, then the same over two veth
# pairs in the same VM for reference (veth-seg: TSO off, GRO on at both
# ends; veth: as created), print cxen's ratio to each and both ports'
# ethtool -S counters.
#
#   scripts/demo.sh [tests/vm/run options, e.g. --kernel debug]
#
# Under TCG absolute numbers mean little: compare the lines. veth-seg is
# the fair baseline: a NIC path segments and GROs every frame, and so does
# it; plain veth carries 64 KB GSO packets with no segmentation and no
# device, which no NIC path can match.
set -euo pipefail

secs=${CXEN_DEMO_SECONDS:-10}

if [ -z "${CXEN_VM:-}" ]; then
	here=$(cd "$(dirname "$0")" && pwd)
	echo "demo: building the modules and booting the VM (stock kernel unless told)..." >&2
	exec "$here/../tests/vm/run" --pair "$@" -- scripts/demo.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"

# veth_run NAME NS0 NS1 PREFIX: a veth pair veth0 (NS0, PREFIX.1) ->
# veth1 (NS1, PREFIX.2), iperf3 over it, the pair removed; sets vethres
# to the receiver's throughput (not printed: called outside a command
# substitution, so set -e still stops the demo at a failed step). NAME
# veth-seg turns TSO off and GRO on at both ends, exactly as
# bench/model_modes.py does, so the two agree.
veth_run() {
	local name=$1 n0=$2 n1=$3 prefix=$4 n dev host out want end
	ip netns add "$n0"
	ip netns add "$n1"
	ip -n "$n0" link add veth0 type veth peer name veth1 netns "$n1"
	for end in "$n0 veth0 1" "$n1 veth1 2"; do
		read -r n dev host <<< "$end"
		ip -n "$n" addr add "$prefix.$host/24" dev "$dev"
		ip -n "$n" link set "$dev" up
		ip -n "$n" link set lo up
		[ "$name" = veth-seg ] || continue
		# Without TSO the sender's stack segments each GSO packet into
		# MTU-sized frames; GRO on (veth's NAPI) merges them again on
		# the way in: the per-frame work every NIC path pays.
		ip netns exec "$n" ethtool -K "$dev" tso off gro on
		out=$(ip netns exec "$n" ethtool -k "$dev")
		for want in "tcp-segmentation-offload: off" \
			    "generic-receive-offload: on"; do
			if [[ $out != *"$want"* ]]; then
				echo "demo: $dev in $n: not $want" >&2
				return 1
			fi
		done
	done
	out=$(iperf3_run "$n1" "$prefix.2" "$n0" "$secs") || {
		printf '%s\n' "$out" >&2
		echo "demo: iperf3 over $name failed" >&2
		return 1
	}
	ip netns delete "$n0"
	ip netns delete "$n1"
	vethres=$out
}

# ratio A B: "xA/B" of two "N Mbits/sec" figures (A's share of B), "x?"
# if B is no figure.
ratio() {
	awk -v a="${1%% *}" -v b="${2%% *}" \
		'BEGIN { if (b + 0 > 0) printf "x%.2f", a / b; else printf "x?" }'
}

echo "== cxen demo: kernel $(uname -r) in QEMU, $(nproc) vCPUs"
echo "== iperf3 TCP ${secs} s, cxen0 (netns cx0) -> cxen1 (netns cx1)"
cxen=$(iperf3_run cx1 192.0.2.2 cx0 "$secs") || {
	printf '%s\n' "$cxen" >&2
	echo "demo: iperf3 over cxen failed" >&2
	exit 1
}
echo "cxen: $cxen"

echo "== iperf3 TCP ${secs} s, veth0 (netns sx0) -> veth1 (netns sx1), TSO off and GRO on at both ends, same VM"
veth_run veth-seg sx0 sx1 203.0.113
seg=$vethres
rseg=$(ratio "$cxen" "$seg")
echo "veth-seg: $seg (cxen/veth-seg $rseg)"

echo "== iperf3 TCP ${secs} s, veth0 (netns vx0) -> veth1 (netns vx1), as created, same VM"
veth_run veth vx0 vx1 198.51.100
veth=$vethres
rveth=$(ratio "$cxen" "$veth")
echo "veth: $veth (cxen/veth $rveth)"

for p in 0 1; do
	echo "== ethtool -S cxen$p (non-zero counters)"
	ip netns exec "cx$p" ethtool -S "cxen$p" | awk 'NR == 1 || $NF != 0'
done
echo
echo "veth-seg: a veth pair with TSO off, GRO on at both ends: the stack segments and GRO merges every frame, as on a NIC path; the fair baseline"
echo "veth: 64 KB GSO packets cross with no segmentation and no device: no NIC path can match it"
echo "throughput: cxen $cxen, veth-seg $seg (cxen $rseg), veth $veth (cxen $rveth) (iperf3 TCP ${secs} s, QEMU TCG)"
