#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Per-queue restart (netdev_queue_mgmt_ops, en_queue.c), TAP output.
#
#   tests/integration/qrestart.sh [tests/vm/run options]   on the host:
#       boots the VM (stock kernel unless --kernel debug) with --pair and
#       runs inside (the XDP point needs build/xdp/xdp_act.o: make -C
#       tests/xdp, which suite.sh does for it)
#
# Inside the VM, cxen1 with 4 queues receiving from cxen0:
#   - a restart of a queue the port does not run (index 7; the port down)
#     is refused with a message, the counter unchanged; so is one whose
#     new RQ the device refuses (CREATE_CQ, then CREATE_RQ failed by the
#     model's cmd_fail_opcode), after which a restart works;
#   - per RX layout (the default page_pool one, striding, legacy2012, and
#     the default with an XDP program): UDP flows over every queue, the
#     busiest queue restarted 4 times through
#     /sys/kernel/debug/cxen/<device>-port1/rx_queue_restart; every
#     restart done (rx_queue_restart +4), every other queue that carried
#     traffic received in every half second of it, the restarted queue
#     received again after it, no frame dropped by the device or the
#     driver (the queue's share waits in the new RQ, not dropped);
#   - adaptive-rx on over static values in no net_dim profile (7 us, 13
#     frames): queue 0 restarted, its new CQ takes net_dim's profile (not
#     7/13) and net_dim modifies it under UDP load;
#   - a TCP transfer with every queue restarted in turn under it: the
#     payload intact (SHA-256).
#
# CXEN_QRESTART_RATE: each UDP flow's rate (default 2M; 200K on the debug
# kernel, which receives a few hundred frames a second under TCG).
# CXEN_QRESTART_LAYOUTS: the layouts (default all four; on the debug
# kernel "striding xdp": the striding RQ's own ring and the XDP RQ with
# its channel's XDP SQ, each point ~1.5 min there; the page_pool and
# legacy2012 layouts run on stock). The transfer is 8 MiB, 2 MiB on debug.
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/integration/qrestart.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"

rate=${CXEN_QRESTART_RATE:-2M}
# net_dim's point: the higher of two rates it alternates with $rate.
dim_hi=20M
layouts=${CXEN_QRESTART_LAYOUTS:-default striding legacy2012 xdp}
# The transfer under restarts: long enough for every queue's restart
# (one each 0.1 s) while it runs; 8 MiB once took under a second on stock.
xfer_bytes=$((32 * 1024 * 1024))
if [ "$CXEN_KERNEL" = debug ]; then
	rate=${CXEN_QRESTART_RATE:-200K}
	dim_hi=2M
	layouts=${CXEN_QRESTART_LAYOUTS:-striding xdp}
	xfer_bytes=$((8 * 1024 * 1024))
fi
read -ra layouts <<< "$layouts"
nq=4
restarts=4
flows=8
xdp_obj=$CXEN_ROOT/build/xdp/xdp_act.o
drop_re='^(hw_rx_(oversize|no_rq|out_of_buffer|cq_overrun|queue_error|error_cqes)|rx_(alloc_fail|err_cqe|oversize|bad_cqe|flush_cqe|skb_alloc_fail|stride_bad_[a-z]+|stride_reused|hdr_bad_[a-z]+))$'

# Points: the three refusals, one per layout, net_dim, the transfer.
tap_plan $((3 + ${#layouts[@]} + 2))


# cxen1's debugfs directory: its device's name and port number.
port=$(n1 cat /sys/class/net/cxen1/dev_port)
dev=$(basename "$(n1 readlink -f /sys/class/net/cxen1/device)")
ctl=/sys/kernel/debug/cxen/$dev-port$port/rx_queue_restart

# queue_pkts: "rx0 rx1 ... " packets of cxen1's queues, one ethtool run.
queue_pkts() {
	n1 ethtool -S cxen1 | awk -v n="$nq" '
		{ sub(":", "", $1); v[$1] = $2 }
		END { for (q = 0; q < n; q++) printf "%d ", v["rx" q "_packets"]; print "" }'
}

# restart_ctl INDEX: write INDEX to the control file; the write's status.
restart_ctl() {
	echo "$1" > "$ctl"
}

refused_point() {
	local what=$1 idx=$2 re=$3 c0 c1 n0_ msg
	c0=$(stat cx1 cxen1 rx_queue_restart)
	n0_=$(dmesg | wc -l)
	if restart_ctl "$idx" 2>/dev/null; then
		echo "restart of queue $idx ($what) accepted"
		return 1
	fi
	msg=$(dmesg | tail -n +$((n0_ + 1)) | grep -E -m1 "$re" || true)
	c1=$(stat cx1 cxen1 rx_queue_restart)
	echo "refused; message: ${msg:-(none)}; rx_queue_restart $c0 -> $c1"
	[ -n "$msg" ] && [ "$c0" = "$c1" ]
}

setup() {
	[ -w "$ctl" ] || { echo "no $ctl"; return 1; }
	n1 ethtool -L cxen1 combined "$nq"
}

if ! out=$(setup 2>&1); then
	tap_not_ok "setup: cxen1 with $nq queues, debugfs control"
	tap_diag <<< "$out"
	tap_done
	exit 1
fi

point "restart of a queue the port does not run refused" \
	refused_point "index 7 of $nq" 7 'no running RX queue 7'
down_refused() {
	local rc=0
	n1 ip link set dev cxen1 down
	refused_point "port down" 0 'no running RX queue 0' || rc=1
	n1 ip link set dev cxen1 up
	wait_for 10 n0 ping -c 1 -W 1 -q 192.0.2.2 || rc=1
	return $rc
}
point "restart refused while the port is down; up again" down_refused

# The device refuses the new RQ's CQ, then the new RQ itself: the restart
# fails with a message and the old RQ runs on. The new RQ was built beside
# the running one, so its unwind lets its page_pool go beside a live NAPI
# (page_pool_destroy() warns unless that NAPI is stopped) and gives its CQ
# and RQ number back; a restart after them works.
fault_dir=/sys/kernel/debug/cxsim/fault
dev_refused() {
	local op c0 c1 rc=0
	for op in 0x020 0x040; do	# CREATE_CQ, CREATE_RQ (cxen_hw.h)
		echo "$op" > "$fault_dir/cmd_fail_opcode"
		echo 1 > "$fault_dir/cmd_fail_count"
		refused_point "command $op refused" 0 'RX queue 0 not restarted' || rc=1
		[ "$(cat "$fault_dir/cmd_fail_count")" = 0 ] ||
			{ echo "command $op was never sent"; rc=1; }
		echo 0 > "$fault_dir/cmd_fail_count"
	done
	echo 0 > "$fault_dir/cmd_fail_opcode"
	c0=$(stat cx1 cxen1 rx_queue_restart)
	restart_ctl 0 || { echo "restart of queue 0 after them failed"; rc=1; }
	c1=$(stat cx1 cxen1 rx_queue_restart)
	echo "then a restart of queue 0: rx_queue_restart $c0 -> $c1"
	[ "$c1" = $((c0 + 1)) ] || rc=1
	wait_for 10 n0 ping -c 1 -W 1 -q 192.0.2.2 || rc=1
	return $rc
}
point "restart refused when the device refuses the new RQ's CQ or RQ; the queue runs on" dev_refused

# layout_set LAYOUT: cxen1's RX layout (and XDP program), from the default.
layout_set() {
	case "$1" in
	default) ;;
	striding | legacy2012) n1 ethtool --set-priv-flags cxen1 "$1" on ;;
	xdp)
		# Attached with the port down: the kernel rewrites its XDP
		# dispatcher then, a text poke TCG races with a running
		# program (Documentation/testing.rst, xdp.sh's port_quiet).
		[ -f "$xdp_obj" ] || { echo "no $xdp_obj: make -C tests/xdp on the host"; return 1; }
		n1 ip link set dev cxen1 down &&
			n1 ip link set dev cxen1 xdpdrv obj "$xdp_obj" sec xdp &&
			n1 ip link set dev cxen1 up && cxen_pair_wait_carrier
		;;
	esac
}

layout_reset() {
	case "$1" in
	default) ;;
	striding | legacy2012) n1 ethtool --set-priv-flags cxen1 "$1" off ;;
	xdp)
		n1 ip link set dev cxen1 down &&
			n1 ip link set dev cxen1 xdpdrv off &&
			n1 ip link set dev cxen1 up && cxen_pair_wait_carrier
		;;
	esac
}

# under_load LAYOUT: the busiest queue restarted under UDP flows.
under_load() {
	local layout=$1 samples a0 a1 b0 b1 ipid out srv q busy i ok=0 rc=0 d t0 took=
	local -a s0 s1 base
	layout_set "$layout" || return 1
	wait_for 10 n0 ping -c 1 -W 1 -q 192.0.2.2 || { layout_reset "$layout"; return 1; }
	out=$(mktemp)
	samples=$(mktemp)
	n1 iperf3 -s -1 -B 192.0.2.2 > /dev/null 2>&1 &
	srv=$!
	wait_for 10 n1 sh -c "ss -Hltn 'sport = :5201' | grep -q ." || true
	# Runs until the restarts are over, then stopped.
	n0 timeout 120 iperf3 -u -c 192.0.2.2 -b "$rate" -l 1000 -P "$flows" \
		-t 100 --connect-timeout 5000 > "$out" 2>&1 &
	ipid=$!
	nap 3
	a0=$(stats_snap cx0 cxen0)
	a1=$(stats_snap cx1 cxen1)
	# The baseline second: which queues carry flows, which carries most.
	read -ra s0 <<< "$(queue_pkts)"
	nap 1
	read -ra s1 <<< "$(queue_pkts)"
	busy=0
	for ((q = 0; q < nq; q++)); do
		base[q]=$((s1[q] - s0[q]))
		[ "${base[q]}" -le "${base[busy]}" ] || busy=$q
	done
	# Samples every half second while the restarts run.
	(while :; do queue_pkts; nap 0.5; done) > "$samples" 2>/dev/null &
	local spid=$!
	nap 1
	for ((i = 0; i < restarts; i++)); do
		t0=$EPOCHREALTIME
		restart_ctl "$busy" && ok=$((ok + 1))
		took+=" $(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }')"
		nap 1
	done
	nap 1.5
	kill "$spid" 2>/dev/null
	wait "$spid" 2>/dev/null || true
	# The client still sending: the samples' last interval had traffic.
	kill -0 "$ipid" 2>/dev/null || { echo "iperf3 ended early"; cat "$out"; rc=1; }
	pkill -f 'iperf3 -u -c 192.0.2.2' 2>/dev/null || true
	wait "$ipid" 2>/dev/null || true
	kill "$srv" 2>/dev/null
	wait "$srv" 2>/dev/null || true
	b0=$(stats_snap cx0 cxen0)
	b1=$(stats_snap cx1 cxen1)
	d=$(($(drop_sum "$b0") - $(drop_sum "$a0") + $(drop_sum "$b1") - $(drop_sum "$a1")))
	echo "baseline second, per queue: ${base[*]}; restarted queue $busy"
	echo "samples (rx packets per queue, every 0.5 s):"
	cat "$samples"
	# Every other queue with traffic moved in every interval; the
	# restarted one moved in the last one.
	awk -v n="$nq" -v busy="$busy" -v base="${base[*]}" '
		BEGIN { split(base, b, " ") }
		NF == n {
			if (prev != "") {
				split(prev, p, " ")
				for (q = 0; q < n; q++)
					if (q != busy && b[q + 1] > 0 && $(q + 1) <= p[q + 1]) {
						printf "queue %d did not move between samples %d and %d\n", q, k - 1, k
						bad = 1
					}
				last = $(busy + 1) - p[busy + 1]
			}
			prev = $0; k++
		}
		END {
			if (k < 4) { print "only " k " samples"; bad = 1 }
			if (b[busy + 1] > 0 && last <= 0) { print "restarted queue " busy " did not receive again"; bad = 1 }
			exit bad
		}' "$samples" || rc=1
	echo "restarts took (s):$took"
	echo "$ok of $restarts restarts of queue $busy ($layout; $flows UDP flows at $rate each), rx_queue_restart +$(stat_delta "$a1" "$b1" rx_queue_restart), frames dropped (device and driver, both ports) $d"
	[ "$ok" = "$restarts" ] || rc=1
	[ "$(stat_delta "$a1" "$b1" rx_queue_restart)" = "$restarts" ] || rc=1
	[ "$d" = 0 ] || rc=1
	if [ "$layout" = xdp ]; then
		echo "XDP_PASS +$(stat_delta "$a1" "$b1" rx_xdp_pass)"
		[ "$(stat_delta "$a1" "$b1" rx_xdp_pass)" -gt 0 ] || rc=1
	fi
	! grep -qi 'error' "$out" || { cat "$out"; rc=1; }
	rm -f "$out" "$samples"
	layout_reset "$layout" || rc=1
	return $rc
}
for l in "${layouts[@]}"; do
	point "restart RX queue under UDP load ($l): others never paused, no drop" under_load "$l"
done

# dim_restart: adaptive-rx on, over static values (7 us, 13 frames) that
# are in no net_dim profile. Queue 0 restarted: its new RQ's CQ takes
# net_dim's current profile at once, not the static values, and net_dim
# goes on changing it under a load whose rate changes (MODIFY_CQ on that
# CQ): a restart that
# cancels net_dim's work must not leave it waiting for that work.
dim_restart() {
	local dbg=/sys/kernel/debug/cxsim old cq usecs frames m0 m1 out rc=0
	local u0 f0 srv b rounds=""
	read -r u0 f0 <<< "$(n1 ethtool -c cxen1 | awk '$1 == "rx-usecs:" { u = $2 } $1 == "rx-frames:" { f = $2 } END { print u, f }')"
	n1 ethtool -C cxen1 adaptive-rx off rx-usecs 7 rx-frames 13 &&
		n1 ethtool -C cxen1 adaptive-rx on || return 1
	old=$(awk 'NR > 1 && $2 == '"$port"' { printf " %s ", $1 }' $dbg/rqs)
	restart_ctl 0 || { echo "restart of queue 0 failed"; rc=1; }
	cq=$(awk -v old="$old" 'NR > 1 && $2 == '"$port"' && index(old, " " $1 " ") == 0 { print $3 }' $dbg/rqs)
	if [ -z "$cq" ] || [ "$(wc -w <<< "$cq")" != 1 ]; then
		echo "the new RQ's CQ: '$cq' (RQs before:$old)"
		rc=1
	else
		read -r usecs frames m0 <<< "$(awk -v c="$cq" 'NR > 1 && $1 == c { print $7, $8, $NF }' $dbg/cqs)"
		echo "queue 0's new CQ $cq: $usecs us, $frames frames after the restart (static 7, 13)"
		[ "$usecs $frames" != "7 13" ] || rc=1
		# All of cxen1's traffic to queue 0, at rates that change every
		# 2 s (net_dim moves when the rate does; a steady one may keep
		# its profile), until net_dim has modified the CQ, 4 rounds at
		# most.
		n1 ethtool -X cxen1 equal 1 || rc=1
		# nsexec, not n1: $! is then iperf3 itself, which the kill
		# below stops (n1's subshell would leave it listening).
		nsexec cx1 iperf3 -s -B 192.0.2.2 > /dev/null 2>&1 &
		srv=$!
		wait_for 10 n1 sh -c "ss -Hltn 'sport = :5201' | grep -q ." || true
		m1=$m0
		for b in "$dim_hi" "$rate" "$dim_hi" "$rate"; do
			out=$(n0 iperf3 -u -c 192.0.2.2 -b "$b" -l 1000 -P "$flows" -t 2 \
				--connect-timeout 5000 2>&1) || { echo "$out"; rc=1; break; }
			rounds+=" $b"
			m1=$(awk -v c="$cq" 'NR > 1 && $1 == c { print $NF }' $dbg/cqs)
			[ "$((m1 - m0))" = 0 ] || break
		done
		kill "$srv" 2> /dev/null
		wait "$srv" 2> /dev/null || true
		n1 ethtool -X cxen1 default || rc=1
		echo "MODIFY_CQ on it under UDP load at${rounds} per flow, 2 s each: $((m1 - m0))"
		[ "$((m1 - m0))" -gt 0 ] || rc=1
	fi
	n1 ethtool -C cxen1 adaptive-rx off rx-usecs "$u0" rx-frames "$f0" || rc=1
	return $rc
}

# Every queue restarted in turn under a TCP transfer; the payload intact.
xfer_restarts() {
	local out xpid q n=0 rc=0
	out=$(mktemp)
	xfer cx1 192.0.2.2 cx0 "$xfer_bytes" qrestart > "$out" 2>&1 &
	xpid=$!
	# From the start and as long as it runs (a wait of 1 s before the
	# first restart once outlasted the whole transfer): every queue at
	# least once.
	while kill -0 "$xpid" 2>/dev/null; do
		q=$((n % nq))
		restart_ctl "$q" || { echo "restart of queue $q failed"; rc=1; }
		n=$((n + 1))
		nap 0.1
	done
	wait "$xpid" || rc=1
	cat "$out"
	rm -f "$out"
	echo "$n restarts during the transfer (want $nq or more)"
	[ "$n" -ge "$nq" ] || rc=1
	return $rc
}
point "adaptive-rx: a restarted queue's CQ takes net_dim's profile, which goes on adapting" dim_restart
point "restarts of every queue in turn under a TCP transfer: payload intact" xfer_restarts

tap_done
