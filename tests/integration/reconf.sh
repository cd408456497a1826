#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Reconfiguration under load (issue 6), TAP output.
#
#   tests/integration/reconf.sh [tests/vm/run options]   on the host: boots
#       the VM (stock kernel unless --kernel debug) with --pair, runs inside
#
# Inside the VM: an iperf3 TCP stream cxen0 -> cxen1 runs while
# CXEN_RECONF_OPS changes (default 100, 20 on the debug kernel) are made,
# in turn: -G rx on the receiver (1024..4096), -L on both ports (1..4), the
# MTU of both ports (1500 <-> 9000), -C on both, the receiver's RX layout
# (priv flags), and mixed (-G rx+tx on the sender with -L on the receiver).
# Then it prints the loss counts: the device's and the driver's drop
# counters and ip -s link drops of both ports, TCP retransmits (iperf3 and
# TcpRetransSegs), carrier changes. It asserts: every change succeeded, no
# carrier change, the stream lived throughout, every frame sent was
# received or counted as dropped, and no frame was dropped.
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/integration/reconf.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"


if [ "$CXEN_KERNEL" = debug ]; then
	ops=${CXEN_RECONF_OPS:-20}
else
	ops=${CXEN_RECONF_OPS:-100}
fi

drop_re='^(hw_tx_(oversize|link_down|error_cqes)|hw_rx_(oversize|no_rq|out_of_buffer|cq_overrun|queue_error|error_cqes|csum_bad)|rx_(alloc_fail|err_cqe|oversize|bad_cqe)|tx_(err_cqe|dropped|timeout|dma_map_err))$'

# drops SNAP: "name value" of the drop counters.
drops() {
	awk -v re="$drop_re" '$1 ~ re' <<< "$1"
}

# link_drops NS DEV: "rx_errors rx_dropped tx_errors tx_dropped" of ip -s link.
link_drops() {
	ip -n "$1" -s link show dev "$2" | awk '
		/^ *RX:/ { getline; re = $3; rd = $4 }
		/^ *TX:/ { getline; te = $3; td = $4 }
		END { print re, rd, te, td }'
}

carrier() {
	nsexec "$1" cat "/sys/class/net/$2/carrier_changes"
}

retrans() {
	nsexec cx0 nstat -asz TcpRetransSegs | awk '$1 == "TcpRetransSegs" { print $2 }'
}

mtu_both() {
	local m=$1 cur
	cur=$(ip -n cx0 -o link show dev cxen0 | sed -n 's/.* mtu \([0-9]*\) .*/\1/p')
	# Raise the receiver first, lower the sender first.
	if [ "$m" -gt "$cur" ]; then
		ip -n cx1 link set dev cxen1 mtu "$m" && ip -n cx0 link set dev cxen0 mtu "$m"
	else
		ip -n cx0 link set dev cxen0 mtu "$m" && ip -n cx1 link set dev cxen1 mtu "$m"
	fi
}

# "auto": no layout flag, the private flag auto on (the default): the
# default layout at MTU 1500, striding above 3690 (the MTU changes below
# switch between them too).
layouts=(auto legacy2012 wholepage2012 onefrag2013 striding)

layout() {
	local l=$1 f args=()
	for f in "${layouts[@]:1}"; do
		args+=("$f" "$([ "$f" = "$l" ] && echo on || echo off)")
	done
	e1 --set-priv-flags cxen1 "${args[@]}"
}

# op I: change number I; prints what it did.
op() {
	local i=$1 k r n
	k=$((i % 6))
	r=$((i / 6))
	case $k in
	0)
		n=$((1024 << (r % 3)))
		echo "-G cxen1 rx $n"
		e1 -G cxen1 rx "$n"
		;;
	1)
		n=$((1 + (r + 1) % 4))
		echo "-L combined $n on both"
		e1 -L cxen1 combined "$n" && e0 -L cxen0 combined "$n"
		;;
	2)
		n=$((r % 2 ? 1500 : 9000))
		echo "mtu $n on both"
		mtu_both "$n"
		;;
	3)
		n=$((8 + r % 24))
		echo "-C rx-usecs $n tx-usecs $((n * 2)) on both"
		e1 -C cxen1 rx-usecs "$n" tx-usecs $((n * 2)) &&
			e0 -C cxen0 rx-usecs "$n" tx-usecs $((n * 2))
		;;
	4)
		n=${layouts[$(((r + 1) % ${#layouts[@]}))]}
		echo "cxen1 RX layout $n"
		layout "$n"
		;;
	5)
		n=$((1 + r % 3))
		echo "-G cxen0 rx $((1024 << (r % 2))) tx $((512 << (r % 3))), -L cxen1 combined $n"
		e0 -G cxen0 rx $((1024 << (r % 2))) tx $((512 << (r % 3))) &&
			e1 -L cxen1 combined "$n"
		;;
	esac
}

declare -A snap
# snapshot WHEN: counters of both ports into snap[WHEN,...].
snapshot() {
	local p
	for p in 0 1; do
		snap[$1,s$p]=$(stats_snap "cx$p" "cxen$p")
		snap[$1,l$p]=$(link_drops "cx$p" "cxen$p")
		snap[$1,c$p]=$(carrier "cx$p" "cxen$p")
	done
	snap[$1,rt]=$(retrans)
}

# Points, all at the end: changes accepted, stream alive, no carrier
# change, counters balance, nothing dropped, RX-only changes per queue.
tap_plan 6

snapshot before

json=$(mktemp /tmp/reconf-iperf.XXXXXX)
nsexec cx1 iperf3 -s -1 -B 192.0.2.2 >/dev/null 2>&1 &
srv=$!
wait_for 5 sh -c "nsexec cx1 ss -Hltn 'sport = :5201' | grep -q ."
nsexec cx0 iperf3 -c 192.0.2.2 -t 3600 -J > "$json" 2>&1 &
cli=$!
nap 2

t0=$SECONDS
failed_ops=0
for ((i = 0; i < ops; i++)); do
	if ! out=$(op "$i" 2>&1); then
		failed_ops=$((failed_ops + 1))
		echo "# change $i failed: $out"
	fi
	kill -0 "$cli" 2>/dev/null || { echo "# iperf3 client gone after change $i"; break; }
	nap 0.2
done
secs=$((SECONDS - t0))
nap 2
# iperf3 -t 3600 is still streaming; SIGINT makes it print its JSON (and
# exit 1, so its status says nothing).
alive=0
kill -0 "$cli" 2>/dev/null || alive=1
kill -INT "$cli" 2>/dev/null || true
wait "$cli" || true
wait "$srv" 2>/dev/null || true

# Back to the defaults, so the counters settle on a known configuration.
if ! { mtu_both 1500 && layout auto && e0 -L cxen0 combined 1 &&
       e1 -L cxen1 combined 1; }; then
	echo "# could not go back to the defaults"
fi

read -r bps iperf_rt < <(/usr/bin/python3 - "$json" <<'EOF' || echo "0 -1"
import json, sys
d = json.load(open(sys.argv[1]))
e = d["end"]
print(int(e["sum_sent"]["bits_per_second"]), e["sum_sent"].get("retransmits", -1))
EOF
)
rm -f "$json"

snapshot after

lost=0
report=""
for p in 0 1; do
	while read -r name v; do
		d=$((v - $(stat_of "${snap[before,s$p]}" "$name")))
		[ "$d" = 0 ] || report+="cxen$p $name +$d; "
		lost=$((lost + d))
	done < <(drops "${snap[after,s$p]}")
	read -r x1 x2 x3 x4 <<< "${snap[before,l$p]}"
	read -r y1 y2 y3 y4 <<< "${snap[after,l$p]}"
	d=$((y1 - x1 + y2 - x2 + y3 - x3 + y4 - x4))
	[ "$d" = 0 ] || report+="cxen$p ip-link errors+drops +$d; "
	lost=$((lost + d))
done
tx=$(stat_delta "${snap[before,s0]}" "${snap[after,s0]}" tx_packets)
c0_0=${snap[before,c0]} c0_1=${snap[after,c0]}
c1_0=${snap[before,c1]} c1_1=${snap[after,c1]}

echo "# $ops changes in $secs s under iperf3 TCP cxen0 -> cxen1 ($((bps / 1000000)) Mbit/s average sent)"
echo "# cxen0 tx_packets +$tx; frames dropped (device, driver, ip -s link; both ports): $lost${report:+ ($report)}"
echo "# TCP retransmits: iperf3 $iperf_rt, TcpRetransSegs +$((snap[after,rt] - snap[before,rt]))"
echo "# carrier_changes: cxen0 $c0_0 -> $c0_1, cxen1 $c1_0 -> $c1_1"

# verdict RC DESCRIPTION: a test point passed when RC is 0.
verdict() {
	if [ "$1" = 0 ]; then tap_ok "$2"; else tap_not_ok "$2"; fi
}

verdict "$failed_ops" "$ops changes, all accepted ($failed_ops failed)"
ok=0
[ "$alive" = 0 ] && [ "$bps" -gt 0 ] || ok=1
verdict "$ok" "iperf3 stream lived through the changes ($((bps / 1000000)) Mbit/s sent)"
ok=0
[ "$c0_1" = "$c0_0" ] && [ "$c1_1" = "$c1_0" ] || ok=1
verdict "$ok" "no carrier change (cxen0 $c0_0 -> $c0_1, cxen1 $c1_0 -> $c1_1)"
tap_check "every frame sent was received or counted as dropped" counters_match
verdict "$lost" "no frame dropped on either port ($lost${report:+: $report})"
# Changes 0 and 4 of every 6 (cxen1's RX ring, its layout) touch only its
# RQs; a restart per queue each, when the value changed.
rx_only=$(((ops + 5) / 6 + (ops + 1) / 6))
restarts=$(stat_delta "${snap[before,s1]}" "${snap[after,s1]}" rx_queue_restart)
ok=0
[ "$restarts" -gt 0 ] || ok=1
verdict "$ok" "cxen1's RX-only changes ($rx_only) went one queue at a time: rx_queue_restart +$restarts"
tap_done
