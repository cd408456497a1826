# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the reliability tests (sourced inside the VM after
# tests/integration/lib.sh): background traffic both ways, counters.

traffic_pids=()

# traffic_loop NS PROG ARGS...: run PROG again whenever it ends, until
# SIGTERM, which kills the running one (SIGKILL: on SIGTERM iperf3 would
# send its results first, waiting out TCP's backoff after an outage;
# its output goes nowhere anyway).
traffic_loop() {
	local ns=$1 c=
	shift
	trap 'kill -KILL $c 2>/dev/null; exit 0' TERM
	while :; do
		nsexec "$ns" "$@" > /dev/null 2>&1 &
		c=$!
		wait "$c" || true
		nap 0.2
	done
}

traffic_start() {
	traffic_loop cx1 iperf3 -s -p 5201 --rcv-timeout 5000 &
	traffic_pids+=($!)
	traffic_loop cx0 iperf3 -s -p 5202 --rcv-timeout 5000 &
	traffic_pids+=($!)
	nap 0.5
	traffic_loop cx0 iperf3 -c 192.0.2.2 -p 5201 -t 600 --connect-timeout 2000 &
	traffic_pids+=($!)
	traffic_loop cx1 iperf3 -c 192.0.2.1 -p 5202 -t 600 --connect-timeout 2000 &
	traffic_pids+=($!)
}

traffic_stop() {
	local p t alive
	for p in "${traffic_pids[@]}"; do
		kill "$p" 2>/dev/null || true
	done
	# Each loop kills its iperf3 and ends: 3 s at most, then SIGKILL.
	for ((t = 0; t < 30; t++)); do
		alive=
		for p in "${traffic_pids[@]}"; do
			! kill -0 "$p" 2>/dev/null || alive=1
		done
		[ -n "$alive" ] || break
		nap 0.1
	done
	for p in "${traffic_pids[@]}"; do
		kill -KILL "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	traffic_pids=()
}

# snap: every ethtool -S counter of both ports, summed, and each port's
# own as cxen0.NAME and cxen1.NAME (the two ports read at once: an
# ethtool -S takes seconds on the debug kernel), and the model's fault
# injection counters (fault_*): "name value" lines. Fails if an ethtool
# -S does.
snap() {
	local t=/tmp/cxen-snap.$BASHPID p rc=0 i k v
	declare -A s=()
	nsexec cx0 ethtool -S cxen0 > "$t.0" &
	p=$!
	nsexec cx1 ethtool -S cxen1 > "$t.1" || rc=1
	wait "$p" || rc=1
	for i in 0 1; do
		# "     name: value"; the header line has no colon at its first word's end.
		while read -r k v; do
			[[ $k == *: ]] || continue
			s[${k%:}]=$((${s[${k%:}]:-0} + v))
			s[cxen$i.${k%:}]=$v
		done < "$t.$i"
	done
	rm -f "$t.0" "$t.1"
	while read -r k v; do s[fault_$k]=$v; done < /sys/kernel/debug/cxsim/fault/counters
	for k in "${!s[@]}"; do echo "$k ${s[$k]}"; done
	return $rc
}

# ---- counters and sockets without an exec ------------------------------
# Each exec costs up to seconds in a busy TCG guest (`nsexec ...
# ethtool -S` 1-5 s on the debug kernel). /proc/PID/net/ shows the
# network namespace of PID: with one sleeping process pinned in each of
# cx0 and cx1, the ports' packet counters (/proc/PID/net/dev: the driver's ndo_get_stats64,
# the same counters as ethtool -S rx_packets/tx_packets) and the TCP
# sockets of each namespace are read from this shell, as often as wanted.

ns_pids=()

# ns_pin: pin a process in cx0 and in cx1 (again after a reload: the pair
# set-up makes new namespaces). Fails if one does not show its port.
ns_pin() {
	local i j
	ns_unpin
	for i in 0 1; do
		nsexec "cx$i" sleep 100000 &
		ns_pids[i]=$!
	done
	# nsexec enters the namespace, then execs sleep in place.
	for ((j = 0; j < 100; j++)); do
		link_pkts 2>/dev/null || true
		[ ${#pkts[@]} != 4 ] || return 0
		nap 0.1
	done
	echo "ns_pin: cxen0 and cxen1 not seen from netns cx0 and cx1 in 10 s"
	return 1
}

ns_unpin() {
	local p
	for p in "${ns_pids[@]}"; do
		kill "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	ns_pids=()
}

# link_pkts: pkts=(cxen0 rx, cxen0 tx, cxen1 rx, cxen1 tx) packets.
link_pkts() {
	local i line f
	pkts=()
	for i in 0 1; do
		while IFS= read -r line; do
			[[ $line == *"cxen$i:"* ]] || continue
			read -r -a f <<< "${line#*:}"
			pkts+=("${f[1]}" "${f[9]}")
		done < "/proc/${ns_pids[i]}/net/dev"
	done
}

# tcp_open: succeeds while a TCP socket of cx0 or cx1 is in a state that
# may still send (anything but TIME_WAIT, LISTEN, CLOSE); prints them.
tcp_open() {
	local i f loc rem st found=1
	for i in 0 1; do
		for f in tcp tcp6; do
			while read -r _ loc rem st _; do
				case $st in
				st | 06 | 0A | 07) ;;
				*)
					echo "cx$i $f $loc -> $rem state 0x$st"
					found=0
					;;
				esac
			done < "/proc/${ns_pids[i]}/net/$f"
		done
	done
	return $found
}

# quiesce [SECONDS]: with the traffic stopped, wait (30 s at most) until
# no TCP connection of cx0/cx1 may still send and both ports' packet
# counters have not moved for 0.5 s: every frame sent has been received
# or counted as lost, and nothing more comes. Leaves the counters in
# $pkts; on a timeout prints what still moves.
quiesce() {
	local secs=${1:-30} t=$SECONDS i prev
	while :; do
		if ! tcp_open > /dev/null; then
			link_pkts
			prev="${pkts[*]}"
			for ((i = 0; i < 5; i++)); do
				nap 0.1
				link_pkts
				[ "${pkts[*]}" = "$prev" ] || break
			done
			[ "$i" != 5 ] || return 0
		fi
		if ((SECONDS - t >= secs)); then
			echo "not quiet after $secs s: packets (rx0 tx0 rx1 tx1) ${pkts[*]:-?}"
			tcp_open || true
			return 1
		fi
		nap 0.1
	done
}
