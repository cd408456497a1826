#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The striding RQ through the driver (issue 22), TAP output.
#
#   tests/integration/stride.sh [tests/vm/run options]   on the host: boots
#       the VM (stock kernel unless --kernel debug) with --pair, runs inside
#
# Inside the VM, with the cxen pair set up:
#   - the private flag striding is listed and off; set on both ports, every
#     RQ of the model has rq_flags STRIDING (debugfs rqs), and the RX
#     memory the ring posts is printed beside the default layout's;
#   - payload integrity (SHA-256 of a TCP transfer into cxen1, IPv4 and
#     IPv6) at MTU 1500 and 9000, every frame through strides
#     (rx_stride_wqe_retire moves, no CQE refused);
#   - bytes/truesize of a TCP transfer into cxen1, default layout and
#     striding, from rx_bytes, rx_truesize_bytes and rx_stride_truesize;
#   - XDP refused while striding (extack), the flag refused while XDP runs;
#   - switching cxen1 between striding and the default layout under a TCP
#     stream: every switch succeeds, no frame dropped anywhere;
#   - the model's fault knobs cqe_stride_overrun_every and
#     filler_mid_every: each injection is one of the driver's refusals
#     (rx_stride_bad_range, rx_stride_bad_filler, both ports summed), an
#     overrun frame is dropped (and counted: the peer's tx = rx + refused),
#     a transfer under the knob stays intact.
#
# CXEN_STRIDE_BYTES sizes the transfers (default 4 MiB; a quarter of that
# on the debug kernel).
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/integration/stride.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"

scale=1
[ "$CXEN_KERNEL" != debug ] || scale=4
bytes=${CXEN_STRIDE_BYTES:-$((4 * 1024 * 1024 / scale))}
fault=/sys/kernel/debug/cxsim/fault
mtus=(1500 9000)
addrs=(192.0.2.2 fd00:c0::2)
knobs=(cqe_stride_overrun_every filler_mid_every)

# Points: listed; per MTU, set striding + MTU and one transfer per address;
# truesize; XDP both ways; the switch under traffic; per knob one point;
# back to the default layout.
tap_plan $((1 + ${#mtus[@]} * (1 + ${#addrs[@]}) + 1 + 2 + 1 + ${#knobs[@]} + 1))

n0() { ip netns exec cx0 "$@"; }
n1() { ip netns exec cx1 "$@"; }

# flag_of NS DEV FLAG: on or off.
flag_of() {
	ip netns exec "$1" ethtool --show-priv-flags "$2" |
		awk -F': *' -v f="$3" '{ gsub(/[ \t]+$/, "", $1) } $1 == f { print $2 }'
}

listed() {
	local got
	got=$(flag_of cx1 cxen1 striding)
	echo "cxen1 striding: '$got'"
	[ "$got" = off ]
}
tap_check "--show-priv-flags lists striding, off by default" listed

# rq_summary: "rqn rq_flags log_size log_stride" of every RQ in the model.
rq_summary() {
	awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	     { print $c["rqn"], $c["rq_flags"], $c["log_size"], $c["log_stride"] }' \
		/sys/kernel/debug/cxsim/rqs
}

# striding_on MTU: MTU and the striding flag on both ports; every RQ of
# the model striding; the bytes the ring posts.
striding_on() {
	local mtu=$1 rqs bad
	ip -n cx0 link set dev cxen0 mtu "$mtu" && ip -n cx1 link set dev cxen1 mtu "$mtu" || return 1
	n0 ethtool --set-priv-flags cxen0 striding on &&
		n1 ethtool --set-priv-flags cxen1 striding on || return 1
	[ "$(flag_of cx0 cxen0 striding)" = on ] && [ "$(flag_of cx1 cxen1 striding)" = on ] || {
		echo "flags not read back on"
		return 1
	}
	rqs=$(rq_summary)
	echo "$rqs"
	bad=$(awk '$2 != "0x1"' <<< "$rqs")
	[ -z "$bad" ] || { echo "RQs not striding: $bad"; return 1; }
	# log_stride - 4 = log2 pages per WQE.
	awk -v mtu="$mtu" -v pg="$(getconf PAGESIZE)" 'NR == 1 {
		w = 2 ^ $3; p = 2 ^ ($4 - 4)
		printf "MTU %d: %d WQEs x %d pages = %d KiB posted per RQ (the default layout at rx 1024: %d KiB)\n",
		       mtu, w, p, w * p * pg / 1024, (mtu <= 1500 ? 1024 * 2048 : 1024 * (2 * pg + 1024)) / 1024
	}' <<< "$rqs"
}

# xfer_point MTU ADDR: a transfer into cxen1 through strides.
xfer_point() {
	local mtu=$1 addr=$2 s0 s1 out ret ref
	s0=$(stats_snap cx1 cxen1)
	out=$(xfer cx1 "$addr" cx0 "$bytes" "stride-$mtu-$addr") || { echo "$out"; return 1; }
	s1=$(stats_snap cx1 cxen1)
	ret=$(stat_delta "$s0" "$s1" rx_stride_wqe_retire)
	ref=0
	for n in bad_wqe bad_range reused bad_first bad_count bad_last bad_filler; do
		ref=$((ref + $(stat_delta "$s0" "$s1" "rx_stride_$n")))
	done
	echo "$out"
	echo "cxen1: rx_packets +$(stat_delta "$s0" "$s1" rx_packets), WQEs retired +$ret, refused CQEs +$ref, strides dropped +$(stat_delta "$s0" "$s1" rx_stride_drop), fillers +$(stat_delta "$s0" "$s1" rx_stride_filler)"
	[ "$ret" -gt 0 ] && [ "$ref" = 0 ]
}

for mtu in "${mtus[@]}"; do
	point "MTU $mtu, striding on both ports: every RQ striding" striding_on "$mtu"
	for addr in "${addrs[@]}"; do
		point "striding, MTU $mtu, to $addr: payload intact" xfer_point "$mtu" "$addr"
	done
done

# ratio_run LAYOUT: a transfer into cxen1 at MTU 1500 with LAYOUT (on or
# off: the striding flag); prints rx bytes, truesize and stride truesize.
ratio_run() {
	local s0 s1 b t st p
	n0 ethtool --set-priv-flags cxen0 striding "$1" &&
		n1 ethtool --set-priv-flags cxen1 striding "$1" || return 1
	s0=$(stats_snap cx1 cxen1)
	xfer cx1 192.0.2.2 cx0 "$bytes" "ratio-$1" >/dev/null || return 1
	s1=$(stats_snap cx1 cxen1)
	p=$(stat_delta "$s0" "$s1" rx_packets)
	b=$(stat_delta "$s0" "$s1" rx_bytes)
	t=$(stat_delta "$s0" "$s1" rx_truesize_bytes)
	st=$(stat_delta "$s0" "$s1" rx_stride_truesize)
	echo "$p $b $t $st"
}

truesize() {
	local p b t st p2 b2 t2 st2
	ip -n cx0 link set dev cxen0 mtu 1500 && ip -n cx1 link set dev cxen1 mtu 1500 || return 1
	read -r p b t st <<< "$(ratio_run off)" || return 1
	read -r p2 b2 t2 st2 <<< "$(ratio_run on)" || return 1
	awk -v p="$p" -v b="$b" -v t="$t" -v p2="$p2" -v b2="$b2" -v t2="$t2" -v st2="$st2" 'BEGIN {
		printf "MTU 1500 TCP into cxen1: default %d frames %d B truesize %d (%.3f); striding %d frames %d B truesize %d (%.3f), strides alone %d (%.3f)\n",
		       p, b, t, b / t, p2, b2, t2, b2 / t2, st2, (st2 ? b2 / st2 : 0)
		exit !(t >= b && t2 >= b2 && st2 > 0)
	}'
}
point "bytes/truesize, default layout and striding" truesize

# --- XDP and striding ------------------------------------------------------

# Built on the host by suite.sh (make -C tests/xdp).
xdp_obj=$CXEN_ROOT/build/xdp/xdp_act.o
xdp_refused() {
	local out
	[ -f "$xdp_obj" ] || { echo "no $xdp_obj"; return 0; }
	n1 ethtool --set-priv-flags cxen1 striding on || return 1
	if out=$(n1 ip link set dev cxen1 xdpdrv obj "$xdp_obj" sec xdp 2>&1); then
		n1 ip link set dev cxen1 xdpdrv off
		echo "XDP attached to a striding port"
		return 1
	fi
	echo "$out" | grep -i 'striding\|pagepool' | tail -1
	grep -qi 'pagepool' <<< "$out"
}
point "XDP refused on a striding port (extack)" xdp_refused

flag_refused_xdp() {
	local rc=0
	[ -f "$xdp_obj" ] || { echo "no $xdp_obj"; return 0; }
	n1 ethtool --set-priv-flags cxen1 striding off || return 1
	n1 ip link set dev cxen1 xdpdrv obj "$xdp_obj" sec xdp || return 1
	if n1 ethtool --set-priv-flags cxen1 striding on 2>&1; then
		rc=1
	fi
	[ "$(flag_of cx1 cxen1 striding)" = off ] || rc=1
	n1 ip link set dev cxen1 xdpdrv off || rc=1
	dmesg | grep 'XDP needs the pagepool RX layout' | tail -1
	return $rc
}
point "striding refused while XDP runs, old layout kept" flag_refused_xdp

# --- switching under traffic ------------------------------------------------

drop_re='^(hw_rx_(oversize|no_rq|out_of_buffer|cq_overrun|queue_error|error_cqes)|rx_(alloc_fail|err_cqe|oversize|bad_cqe|stride_bad_[a-z]+|stride_reused))$'

# drop_sum SNAP: the sum of the drop counters in a snapshot.
drop_sum() {
	awk -v re="$drop_re" '$1 ~ re { s += $2 } END { print s + 0 }' <<< "$1"
}

switch_under_traffic() {
	local a0 a1 b0 b1 ipid i ok=0 n=10 d out
	n0 ethtool --set-priv-flags cxen0 striding off || return 1
	n1 ethtool --set-priv-flags cxen1 striding off || return 1
	a0=$(stats_snap cx0 cxen0)
	a1=$(stats_snap cx1 cxen1)
	out=$(mktemp)
	iperf3_run cx1 192.0.2.2 cx0 12 > "$out" 2>&1 &
	ipid=$!
	sleep 2
	for ((i = 0; i < n; i++)); do
		if n1 ethtool --set-priv-flags cxen1 striding "$( ((i % 2)) && echo off || echo on)"; then
			ok=$((ok + 1))
		fi
		sleep 0.5
	done
	wait "$ipid" || { cat "$out"; rm -f "$out"; echo "iperf3 failed"; return 1; }
	b0=$(stats_snap cx0 cxen0)
	b1=$(stats_snap cx1 cxen1)
	d=$(($(drop_sum "$b0") - $(drop_sum "$a0") + $(drop_sum "$b1") - $(drop_sum "$a1")))
	echo "$ok of $n switches of cxen1 under iperf3 ($(cat "$out")): cxen1 rx_packets +$(stat_delta "$a1" "$b1" rx_packets), striding WQEs retired +$(stat_delta "$a1" "$b1" rx_stride_wqe_retire), frames dropped (device and driver, both ports) $d"
	rm -f "$out"
	[ "$ok" = "$n" ] && [ "$d" = 0 ] && [ "$(flag_of cx1 cxen1 striding)" = off ]
}
point "striding on/off under a TCP stream: every switch, no drop" switch_under_traffic

# --- fault knobs -------------------------------------------------------------

fault_cnt() {
	awk -v n="$1" '$1 == n { print $2 }' "$fault/counters"
}

# knob_point KNOB INJECTED_NAME DRIVER_COUNTER DROPS: KNOB every 37 frames
# during a transfer into cxen1 with striding on both ports; the model's
# injections equal the driver's DRIVER_COUNTER summed over both ports;
# DROPS=1: each was a frame the driver dropped (peer's tx = rx + refused).
knob_point() {
	local knob=$1 inj=$2 ctr=$3 drops=$4 i0 i1 a0 a1 b0 b1 di dc out
	local t0 r1 t1 r0 rc=0
	n0 ethtool --set-priv-flags cxen0 striding on &&
		n1 ethtool --set-priv-flags cxen1 striding on || return 1
	# Permanent neighbours: no ARP/ND in the window.
	i0=$(fault_cnt "$inj")
	a0=$(stats_snap cx0 cxen0)
	a1=$(stats_snap cx1 cxen1)
	echo 37 > "$fault/$knob"
	out=$(xfer cx1 192.0.2.2 cx0 "$bytes" "knob-$knob") || rc=1
	echo 0 > "$fault/$knob"
	sleep 0.5
	i1=$(fault_cnt "$inj")
	b0=$(stats_snap cx0 cxen0)
	b1=$(stats_snap cx1 cxen1)
	di=$((i1 - i0))
	dc=$(($(stat_delta "$a0" "$b0" "$ctr") + $(stat_delta "$a1" "$b1" "$ctr")))
	t0=$(stat_delta "$a0" "$b0" tx_packets)
	r1=$(stat_delta "$a1" "$b1" rx_packets)
	t1=$(stat_delta "$a1" "$b1" tx_packets)
	r0=$(stat_delta "$a0" "$b0" rx_packets)
	echo "$out"
	echo "$knob 37: model $inj +$di, driver $ctr +$dc (cxen0 $(stat_delta "$a0" "$b0" "$ctr"), cxen1 $(stat_delta "$a1" "$b1" "$ctr")); cxen0 tx $t0 -> cxen1 rx $r1, cxen1 tx $t1 -> cxen0 rx $r0; strides dropped cxen1 +$(stat_delta "$a1" "$b1" rx_stride_drop)"
	[ "$rc" = 0 ] && [ "$di" -gt 0 ] && [ "$di" = "$dc" ] || return 1
	if [ "$drops" = 1 ]; then
		[ $((t0 + t1)) = $((r0 + r1 + dc)) ]
	else
		[ $((t0 + t1)) = $((r0 + r1)) ]
	fi
}
point "cqe_stride_overrun_every: each a refused CQE (rx_stride_bad_range), frame dropped, transfer intact" \
	knob_point cqe_stride_overrun_every stride_overrun_cqes rx_stride_bad_range 1
point "filler_mid_every: each a refused filler (rx_stride_bad_filler), no frame lost, transfer intact" \
	knob_point filler_mid_every mid_fillers rx_stride_bad_filler 0

back_default() {
	n0 ethtool --set-priv-flags cxen0 striding off &&
		n1 ethtool --set-priv-flags cxen1 striding off &&
		[ "$(flag_of cx1 cxen1 striding)" = off ] &&
		n0 ping -c 3 -W 5 192.0.2.2
}
point "back to the default layout, traffic flows" back_default

tap_done
