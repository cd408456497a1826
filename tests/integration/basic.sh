#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Basic integration test of the cxen pair (TAP output).
#
#   tests/integration/basic.sh [tests/vm/run options]   on the host: boots
#       the VM (stock kernel unless --kernel debug) with --pair and runs
#       itself inside
#
# Inside the VM, with cxen0 (netns cx0) and cxen1 (netns cx1) set up:
# IPv4 and IPv6 ping both ways, iperf3 TCP 5 s each way, cxen0's TX
# counters equal cxen1's RX counters and the other way round; then
# rmmod cxen, insmod cxen.ko, the same pair set-up and the same again.
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/integration/basic.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"

iperf_secs=${CXEN_IPERF_SECONDS:-5}

iperf() {
	local r=$1 sns=$2 addr=$3 cns=$4 out
	if out=$(iperf3_run "$sns" "$addr" "$cns" "$iperf_secs"); then
		tap_ok "round $r: iperf3 TCP ${iperf_secs} s $cns -> $sns: $out"
	else
		tap_not_ok "round $r: iperf3 TCP ${iperf_secs} s $cns -> $sns"
		printf '%s\n' "$out" | tail -20 | tap_diag
	fi
}

# round R: round_points points (4 pings, 2 iperf3 runs, the counters).
round_points=7
round() {
	local r=$1
	tap_check "round $r: IPv4 ping cx0 -> cx1" nsexec cx0 ping -c 3 -i 0.2 -W 5 192.0.2.2
	tap_check "round $r: IPv4 ping cx1 -> cx0" nsexec cx1 ping -c 3 -i 0.2 -W 5 192.0.2.1
	tap_check "round $r: IPv6 ping cx0 -> cx1" nsexec cx0 ping -6 -c 3 -i 0.2 -W 5 fd00:c0::2
	tap_check "round $r: IPv6 ping cx1 -> cx0" nsexec cx1 ping -6 -c 3 -i 0.2 -W 5 fd00:c0::1
	iperf "$r" cx1 192.0.2.2 cx0
	iperf "$r" cx0 192.0.2.1 cx1
	tap_check "round $r: cxen0 TX counters = cxen1 RX counters and back" counters_match
}

reload() {
	rmmod cxen || return 1
	insmod "$CXEN_MODDIR/cxen.ko" || return 1
	cxen_pair_setup
}

# Two rounds and the reload between them.
tap_plan $((2 * round_points + 1))
echo "# kernel $(uname -r) ($CXEN_KERNEL), modules from $CXEN_MODDIR"
round 1
tap_check "rmmod cxen, insmod cxen.ko, pair set-up again" reload
round 2
tap_done
