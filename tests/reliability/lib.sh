# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the reliability tests (sourced inside the VM after
# tests/integration/lib.sh): background traffic both ways, counters.

traffic_pids=()

# traffic_loop NS PROG ARGS...: run PROG again whenever it ends, until
# SIGTERM (which ends the running one too).
traffic_loop() {
	local ns=$1 c=
	shift
	trap 'kill $c 2>/dev/null; exit 0' TERM
	while :; do
		ip netns exec "$ns" "$@" > /dev/null 2>&1 &
		c=$!
		wait "$c" || true
		sleep 0.2
	done
}

traffic_start() {
	traffic_loop cx1 iperf3 -s -p 5201 --rcv-timeout 5000 &
	traffic_pids+=($!)
	traffic_loop cx0 iperf3 -s -p 5202 --rcv-timeout 5000 &
	traffic_pids+=($!)
	sleep 0.5
	traffic_loop cx0 iperf3 -c 192.0.2.2 -p 5201 -t 600 --connect-timeout 2000 &
	traffic_pids+=($!)
	traffic_loop cx1 iperf3 -c 192.0.2.1 -p 5202 -t 600 --connect-timeout 2000 &
	traffic_pids+=($!)
}

traffic_stop() {
	local p
	for p in "${traffic_pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	for p in "${traffic_pids[@]}"; do
		wait "$p" 2>/dev/null || true
	done
	traffic_pids=()
}

# port_stats NS DEV: "name value" lines of ethtool -S.
port_stats() {
	ip netns exec "$1" ethtool -S "$2" | awk -F': *' 'NF == 2 { gsub(/^ +/, "", $1); print $1, $2 }'
}

# snap: every counter of both ports (summed) and of the model's fault
# injection, "name value" lines.
snap() {
	{ port_stats cx0 cxen0; port_stats cx1 cxen1; } |
		awk '{ s[$1] += $2 } END { for (k in s) print k, s[k] }'
	sed 's/^/fault_/' /sys/kernel/debug/cxsim/fault/counters
}

# delta BEFORE AFTER NAME: increase of NAME between two snaps.
delta() {
	local a b
	a=$(awk -v k="$3" '$1 == k { print $2 }' <<< "$1")
	b=$(awk -v k="$3" '$1 == k { print $2 }' <<< "$2")
	echo $(( ${b:-0} - ${a:-0} ))
}
