#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The striding RQ through the driver, TAP output.
#
#   tests/integration/stride.sh [tests/vm/run options]   on the host: boots
#       the VM (stock kernel unless --kernel debug) with --pair, runs inside
#       (the XDP points need build/xdp/xdp_act.o: make -C tests/xdp, which
#       suite.sh does for it)
#
# Inside the VM, with the cxen pair set up:
#   - the private flag striding is listed and off, auto on (then turned
#     off); striding set on both ports, every
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
#     overrun frame is dropped and counted (hw_rx_frames = rx_packets +
#     refused, per port), a mid filler costs no frame, and a transfer
#     under the knob stays intact;
#   - header/data split (ethtool -G tcp-data-split, the newer ethtool):
#     refused without striding; at MTU 1500 and 9000 TCP frames split
#     (rx_hdr_split, the model's hdr_cons) and intact; cqe_hdr_len_every
#     as rx_hdr_bad_len, each frame dropped; on/off under iperf3 with no
#     drop; striding off refused while split is on;
#   - an RQ the model puts in error (rq_error_rqn) is reset in place
#     (rx_recover +1), still striding (and split), the transfer intact;
#   - the striding pools give back every page they took (page_pool's
#     tracepoints, tests/vm/pp-trace) once the ports are down;
#   - the private flag auto (on by default; off for the points above):
#     MTU 1500 runs the default layout, 9000 striding (debugfs rx_layout,
#     every RQ striding, a transfer intact); an xdp.frags program at 9000
#     the default layout, detached striding again; tcp-data-split on at
#     1500 striding, off the default layout.
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
split_mtus=(1500 9000)
# Debian 12's ethtool 6.1 has no tcp-data-split.
et_split=$(newer_ethtool)

# Points: listed; per MTU, set striding + MTU and one transfer per address;
# truesize; XDP both ways; the switch under traffic; per knob one point;
# header split: refused without striding, one transfer per MTU, its knob,
# on/off under traffic, striding off refused while on; an RQ reset without
# and with split; pages back; the automatic choice by MTU, with XDP and
# with split; back to the default flags.
tap_plan $((1 + ${#mtus[@]} * (1 + ${#addrs[@]}) + 1 + 2 + 1 + ${#knobs[@]} +
	   1 + ${#split_mtus[@]} + 1 + 1 + 1 + 2 + 1 + 3 + 1))

# spoint DESCRIPTION FUNCTION [ARGS]: lib.sh's point, skipped when
# CXEN_STRIDE_ONLY, or else CXEN_ONLY (as tap_check), names other
# functions (make check's debug run names the fault knobs, header split,
# the RQ reset and the pages' return: the rest runs on stock).
spoint() {
	case " ${CXEN_STRIDE_ONLY:-${CXEN_ONLY:-$2}} " in
	*" $2 "*) point "$@" ;;
	*) tap_skip "$1" "not in CXEN_STRIDE_ONLY or CXEN_ONLY" ;;
	esac
}


# flag_of NS DEV FLAG: on or off.
flag_of() {
	nsexec "$1" ethtool --show-priv-flags "$2" |
		awk -F': *' -v f="$3" '{ gsub(/[ \t]+$/, "", $1) } $1 == f { print $2 }'
}

# The flags by default: striding off, auto on (MTU 1500: pagepool). The
# points up to the auto ones turn auto off, so that "striding off" is the
# default layout at every MTU.
listed() {
	local got auto
	got=$(flag_of cx1 cxen1 striding)
	auto=$(flag_of cx1 cxen1 auto)
	echo "cxen1 striding: '$got', auto: '$auto', running: $(rx_layout cx1 cxen1)"
	[ "$got" = off ] && [ "$auto" = on ] && [ "$(rx_layout cx1 cxen1)" = "pagepool auto" ] &&
		n0 ethtool --set-priv-flags cxen0 auto off && n1 ethtool --set-priv-flags cxen1 auto off &&
		[ "$(rx_layout cx1 cxen1)" = "pagepool default" ]
}
tap_check "--show-priv-flags lists striding off and auto on by default; auto off" listed

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
		printf "MTU %d: %d WQEs x %d pages = %d KiB of ring per RQ (the default layout at rx 1024: %d KiB)\n",
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
	spoint "MTU $mtu, striding on both ports: every RQ striding" striding_on "$mtu"
	for addr in "${addrs[@]}"; do
		spoint "striding, MTU $mtu, to $addr: payload intact" xfer_point "$mtu" "$addr"
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

# sock_view: what a receiving socket on cxen1 is charged (SO_MEMINFO's
# rmem_alloc, after GRO) for an unread 2 MiB TCP stream and 1000 unread
# 64-byte UDP datagrams, per layout (default, striding, striding with
# header split); report only, with CXEN_STRIDE_SOCK=1 (make bench's
# layouts platform measures it: bench/rx_layouts.py).
sock_view() {
	local l
	[ "${CXEN_STRIDE_SOCK:-0}" = 1 ] || return 0
	for l in default striding split; do
		n0 ethtool --set-priv-flags cxen0 striding "$([ "$l" = default ] && echo off || echo on)" &&
			n1 ethtool --set-priv-flags cxen1 striding "$([ "$l" = default ] && echo off || echo on)" || return 1
		if [ "$l" = split ]; then
			n1 "$et_split" -G cxen1 tcp-data-split on || return 1
		fi
		echo "socket view, $l: $(python3 "$CXEN_ROOT/tests/integration/sock_truesize.py" tcp cx1 192.0.2.2 cx0 2097152 2>&1 | tail -1)"
		echo "socket view, $l: $(python3 "$CXEN_ROOT/tests/integration/sock_truesize.py" udp cx1 192.0.2.2 cx0 64000 64 2>&1 | tail -1)"
		if [ "$l" = split ]; then
			n1 "$et_split" -G cxen1 tcp-data-split off || return 1
		fi
	done
	n0 ethtool --set-priv-flags cxen0 striding off && n1 ethtool --set-priv-flags cxen1 striding off
}

truesize() {
	local p b t st p2 b2 t2 st2
	ip -n cx0 link set dev cxen0 mtu 1500 && ip -n cx1 link set dev cxen1 mtu 1500 || return 1
	sock_view | tee /tmp/stride-sock-view
	[ "${PIPESTATUS[0]}" = 0 ] || return 1
	read -r p b t st <<< "$(ratio_run off)" || return 1
	read -r p2 b2 t2 st2 <<< "$(ratio_run on)" || return 1
	awk -v p="$p" -v b="$b" -v t="$t" -v p2="$p2" -v b2="$b2" -v t2="$t2" -v st2="$st2" 'BEGIN {
		printf "MTU 1500 TCP into cxen1: default %d frames %d B truesize %d (%.3f); striding %d frames %d B truesize %d (%.3f), strides alone %d (%.3f)\n",
		       p, b, t, b / t, p2, b2, t2, b2 / t2, st2, (st2 ? b2 / st2 : 0)
		exit !(t >= b && t2 >= b2 && st2 > 0)
	}'
}
spoint "bytes/truesize, default layout and striding" truesize
# The socket view, shown whether the point passed or not.
[ ! -s /tmp/stride-sock-view ] || tap_diag < /tmp/stride-sock-view

# --- XDP and striding ------------------------------------------------------

# Built on the host by suite.sh (make -C tests/xdp).
xdp_obj=$CXEN_ROOT/build/xdp/xdp_act.o
xdp_refused() {
	local out
	[ -f "$xdp_obj" ] || { echo "no $xdp_obj: make -C tests/xdp on the host"; return 1; }
	n1 ethtool --set-priv-flags cxen1 striding on || return 1
	if out=$(n1 ip link set dev cxen1 xdpdrv obj "$xdp_obj" sec xdp 2>&1); then
		n1 ip link set dev cxen1 xdpdrv off
		echo "XDP attached to a striding port"
		return 1
	fi
	echo "$out"
	grep -q 'XDP needs the pagepool RX layout: clear private flag striding' <<< "$out" &&
		[ "$(flag_of cx1 cxen1 striding)" = on ]
}
spoint "XDP refused on a striding port (extack)" xdp_refused

# A private flag has no extack: the refusal is ethtool's exit status and
# the driver's log line, looked for after a mark (an earlier point's line
# would do otherwise).
flag_refused_xdp() {
	local rc=0 mark
	[ -f "$xdp_obj" ] || { echo "no $xdp_obj: make -C tests/xdp on the host"; return 1; }
	n1 ethtool --set-priv-flags cxen1 striding off || return 1
	n1 ip link set dev cxen1 xdpdrv obj "$xdp_obj" sec xdp || return 1
	mark=$(dmesg_mark) || rc=1
	if n1 ethtool --set-priv-flags cxen1 striding on 2>&1; then
		echo "striding on accepted while XDP runs"
		rc=1
	fi
	[ "$(flag_of cx1 cxen1 striding)" = off ] || { echo "striding flag: $(flag_of cx1 cxen1 striding)"; rc=1; }
	dmesg_has "$mark" 'cxen1: XDP needs the pagepool RX layout, not striding$' || rc=1
	n1 ip link set dev cxen1 xdpdrv off || rc=1
	return $rc
}
spoint "striding refused while XDP runs, old layout kept" flag_refused_xdp

# --- switching under traffic ------------------------------------------------

drop_re='^(hw_rx_(oversize|no_rq|out_of_buffer|cq_overrun|queue_error|error_cqes)|rx_(alloc_fail|err_cqe|oversize|bad_cqe|stride_bad_[a-z]+|stride_reused|hdr_bad_[a-z]+))$'

# striding_switch I: cxen1's layout striding (even I) or the default.
striding_switch() {
	n1 ethtool --set-priv-flags cxen1 striding "$( (($1 % 2)) && echo off || echo on)"
}

switch_under_traffic() {
	local rc=0
	n0 ethtool --set-priv-flags cxen0 striding off || return 1
	n1 ethtool --set-priv-flags cxen1 striding off || return 1
	switch_under_iperf3 10 striding_switch || rc=1
	echo "$sw_summary; cxen1 rx_packets +$(stat_delta "$sw_a1" "$sw_b1" rx_packets), striding WQEs retired +$(stat_delta "$sw_a1" "$sw_b1" rx_stride_wqe_retire)"
	[ "$rc" = 0 ] && [ "$(flag_of cx1 cxen1 striding)" = off ]
}
spoint "striding on/off under a TCP stream: every switch, no drop" switch_under_traffic

# --- fault knobs -------------------------------------------------------------

# nonzero_deltas NAME BEFORE AFTER: the drop and error counters that moved.
nonzero_deltas() {
	awk -v p="$1" 'NR == FNR { a[$1] = $2; next }
		$1 ~ /drop|err|bad|oversize|fail|miss|out_of|overrun|filter|reused|queue_error|no_rq/ && $2 != a[$1] {
			printf "%s %s +%d; ", p, $1, $2 - a[$1] }
		END { print "" }' <(printf '%s\n' "$2") <(printf '%s\n' "$3")
}

fault_cnt() {
	awk -v n="$1" '$1 == n { print $2 }' "$fault/counters"
}

# knob_point KNOB INJECTED_NAME DRIVER_COUNTER DROPS: KNOB every 37 frames
# during a transfer into cxen1 with striding on both ports; the model's
# injections equal the driver's DRIVER_COUNTER summed over both ports;
# DROPS=1: each cost the frame (per port, the device's delivered frames =
# the driver's rx_packets + its refusals), DROPS=0: none did.
knob_point() {
	local knob=$1 inj=$2 ctr=$3 drops=$4 i0 i1 a0 a1 b0 b1 di dc out
	local h0 h1 p0 p1 c0 c1 i rc=0
	n0 ethtool --set-priv-flags cxen0 striding on &&
		n1 ethtool --set-priv-flags cxen1 striding on || return 1
	i0=$(fault_cnt "$inj")
	a0=$(stats_snap cx0 cxen0)
	a1=$(stats_snap cx1 cxen1)
	echo 37 > "$fault/$knob"
	out=$(xfer cx1 192.0.2.2 cx0 "$bytes" "knob-$knob") || rc=1
	echo 0 > "$fault/$knob"
	i1=$(fault_cnt "$inj")
	di=$((i1 - i0))
	echo "$out"
	# Per port: frames the device delivered (hw_rx_frames) = frames the
	# driver passed up (rx_packets) + the injected CQEs it refused when
	# each cost its frame. CQEs NAPI has not taken yet: a few tries.
	for ((i = 0; i < 20; i++)); do
		nap 0.25
		b0=$(stats_snap cx0 cxen0)
		b1=$(stats_snap cx1 cxen1)
		h0=$(stat_delta "$a0" "$b0" hw_rx_frames)
		h1=$(stat_delta "$a1" "$b1" hw_rx_frames)
		p0=$(stat_delta "$a0" "$b0" rx_packets)
		p1=$(stat_delta "$a1" "$b1" rx_packets)
		c0=$(stat_delta "$a0" "$b0" "$ctr")
		c1=$(stat_delta "$a1" "$b1" "$ctr")
		[ "$h0" = $((p0 + drops * c0)) ] && [ "$h1" = $((p1 + drops * c1)) ] && break
	done
	dc=$((c0 + c1))
	nonzero_deltas cxen0 "$a0" "$b0"
	nonzero_deltas cxen1 "$a1" "$b1"
	echo "$knob 37: model $inj +$di, driver $ctr +$dc (cxen0 $c0, cxen1 $c1); delivered by the device / passed up by the driver: cxen0 $h0 / $p0, cxen1 $h1 / $p1; strides dropped cxen1 +$(stat_delta "$a1" "$b1" rx_stride_drop)"
	[ "$rc" = 0 ] && [ "$di" -gt 0 ] && [ "$di" = "$dc" ] &&
		[ "$h0" = $((p0 + drops * c0)) ] && [ "$h1" = $((p1 + drops * c1)) ]
}
spoint "cqe_stride_overrun_every: each a refused CQE (rx_stride_bad_range), frame dropped, transfer intact" \
	knob_point cqe_stride_overrun_every stride_overrun_cqes rx_stride_bad_range 1
spoint "filler_mid_every: each a refused filler (rx_stride_bad_filler), no frame lost, transfer intact" \
	knob_point filler_mid_every mid_fillers rx_stride_bad_filler 0

# --- header/data split ---------------------------------------------------------

# split_of NS DEV: "on" or "off", ethtool -g's TCP data split.
split_of() {
	nsexec "$1" "$et_split" -g "$2" | awk '/^TCP data split:/ { print $NF }'
}

# split_set DEV_NS DEV on|off
split_set() {
	nsexec "$1" "$et_split" -G "$2" tcp-data-split "$3"
}

split_refused() {
	local out
	[ -x "$et_split" ] || { echo "no ethtool with tcp-data-split (scripts/newer-ethtool on the host)"; return 1; }
	n1 ethtool --set-priv-flags cxen1 striding off || return 1
	if out=$(split_set cx1 cxen1 on 2>&1); then
		echo "tcp-data-split on accepted without striding"
		return 1
	fi
	echo "$out"
	grep -q 'tcp-data-split needs the striding RX layout' <<< "$out" &&
		[ "$(split_of cx1 cxen1)" = off ]
}
spoint "tcp-data-split on refused without the striding layout (extack), stays off" split_refused

# split_xfer MTU: striding and header split on both ports; a transfer
# into cxen1 with its TCP frames split (rx_hdr_split, the model's rqs
# hdr_cons), intact, nothing refused.
split_xfer() {
	local mtu=$1 s0 s1 out hs bad rqs
	ip -n cx0 link set dev cxen0 mtu "$mtu" && ip -n cx1 link set dev cxen1 mtu "$mtu" || return 1
	n0 ethtool --set-priv-flags cxen0 striding on &&
		n1 ethtool --set-priv-flags cxen1 striding on || return 1
	split_set cx0 cxen0 on && split_set cx1 cxen1 on || return 1
	[ "$(split_of cx1 cxen1)" = on ] || { echo "ethtool -g: TCP data split '$(split_of cx1 cxen1)'"; return 1; }
	rqs=$(rq_summary)
	[ -z "$(awk '$2 != "0x3"' <<< "$rqs")" ] || { echo "RQs not striding + split: $rqs"; return 1; }
	s0=$(stats_snap cx1 cxen1)
	out=$(xfer cx1 192.0.2.2 cx0 "$bytes" "split-$mtu") || { echo "$out"; return 1; }
	s1=$(stats_snap cx1 cxen1)
	hs=$(stat_delta "$s0" "$s1" rx_hdr_split)
	bad=$(($(stat_delta "$s0" "$s1" rx_hdr_bad_len) + $(stat_delta "$s0" "$s1" rx_hdr_bad_index)))
	for n in bad_wqe bad_range reused bad_first bad_count bad_last bad_filler; do
		bad=$((bad + $(stat_delta "$s0" "$s1" "rx_stride_$n")))
	done
	echo "$out"
	echo "MTU $mtu: cxen1 rx_packets +$(stat_delta "$s0" "$s1" rx_packets), split +$hs, refused +$bad, strides charged $(stat_delta "$s0" "$s1" rx_stride_truesize) B for $(stat_delta "$s0" "$s1" rx_bytes) B; model RQ: $(awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		$c["port"] == 1 { print "hdr_pi", $c["hdr_pi"], "hdr_cons", $c["hdr_cons"] }' /sys/kernel/debug/cxsim/rqs)"
	[ "$hs" -gt 0 ] && [ "$bad" = 0 ]
}
for mtu in "${split_mtus[@]}"; do
	spoint "header split, MTU $mtu: TCP frames split, payload intact" split_xfer "$mtu"
done
ip -n cx0 link set dev cxen0 mtu 1500 && ip -n cx1 link set dev cxen1 mtu 1500

spoint "cqe_hdr_len_every: each a refused split CQE (rx_hdr_bad_len), frame dropped, transfer intact" \
	knob_point cqe_hdr_len_every bad_hdr_len_cqes rx_hdr_bad_len 1

# split_flip I: cxen1's header split off (even I) or on.
split_flip() {
	split_set cx1 cxen1 "$( (($1 % 2)) && echo on || echo off)"
}

# split_switch: cxen1's header split on and off under a TCP stream, striding on.
split_switch() {
	local rc=0
	n0 ethtool --set-priv-flags cxen0 striding on &&
		n1 ethtool --set-priv-flags cxen1 striding on || return 1
	switch_under_iperf3 10 split_flip || rc=1
	echo "$sw_summary (tcp-data-split); rx_hdr_split +$(stat_delta "$sw_a1" "$sw_b1" rx_hdr_split); now $(split_of cx1 cxen1)"
	[ "$rc" = 0 ] && [ "$(split_of cx1 cxen1)" = on ]
}
spoint "tcp-data-split on/off under a TCP stream: every switch, no drop" split_switch

striding_off_refused() {
	local rc=0 mark
	mark=$(dmesg_mark) || rc=1
	if n1 ethtool --set-priv-flags cxen1 striding off 2>&1; then
		echo "striding off accepted with tcp-data-split on"
		rc=1
	fi
	[ "$(flag_of cx1 cxen1 striding)" = on ] || { echo "striding flag: $(flag_of cx1 cxen1 striding)"; rc=1; }
	dmesg_has "$mark" 'cxen1: tcp-data-split is on: it needs the striding RX layout \(ethtool -G cxen1 tcp-data-split off first\)$' || rc=1
	split_set cx0 cxen0 off && split_set cx1 cxen1 off || rc=1
	[ "$(split_of cx1 cxen1)" = off ] || rc=1
	return $rc
}
spoint "striding off refused while tcp-data-split is on; split off again" striding_off_refused

recovered_since() {
	[ "$(stat cx1 cxen1 rx_recover)" -gt "$1" ]
}

# rq_reset: the model puts cxen1's RQ in the error state (rq_error_rqn):
# the driver resets it in place (rx_recover), retiring every striding WQE
# and posting new ones from WQE 0; the transfer under it stays intact.
rq_reset() {
	local split=$1 flags=0x1 rqn a1 b1 out rc=0 rec fail
	n0 ethtool --set-priv-flags cxen0 striding on &&
		n1 ethtool --set-priv-flags cxen1 striding on || return 1
	# The split as asked, whatever the points before left (a selection
	# of points, CXEN_STRIDE_ONLY, may skip the one that turns it off).
	[ "$split" = off ] || flags=0x3
	split_set cx0 cxen0 "$split" && split_set cx1 cxen1 "$split" || return 1
	rqn=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		   $c["port"] == 1 { print $c["rqn"] }' /sys/kernel/debug/cxsim/rqs)
	[ "$(wc -w <<< "$rqn")" = 1 ] || { echo "cxen1 RQs: '$rqn', want one"; return 1; }
	a1=$(stats_snap cx1 cxen1)
	echo "$rqn" > "$fault/rq_error_rqn"
	out=$(xfer cx1 192.0.2.2 cx0 "$bytes" "rq-reset") || rc=1
	wait_for 10 recovered_since "$(stat_of "$a1" rx_recover)" || rc=1
	b1=$(stats_snap cx1 cxen1)
	rec=$(stat_delta "$a1" "$b1" rx_recover)
	fail=$(stat_delta "$a1" "$b1" recover_fail)
	echo "$out"
	echo "RQ $rqn of cxen1 (split $split) put in error: rx_recover +$rec, recover_fail +$fail, rx_hdr_split +$(stat_delta "$a1" "$b1" rx_hdr_split), rx_err_cqe +$(stat_delta "$a1" "$b1" rx_err_cqe), rx_flush_cqe +$(stat_delta "$a1" "$b1" rx_flush_cqe), WQEs posted +$(stat_delta "$a1" "$b1" rx_stride_wqe_post) retired +$(stat_delta "$a1" "$b1" rx_stride_wqe_retire); RQ now: $(rq_summary | awk -v r="$rqn" '$1 == r')"
	[ "$rc" = 0 ] && [ "$rec" = 1 ] && [ "$fail" = 0 ] &&
		[ "$(rq_summary | awk -v r="$rqn" '$1 == r { print $2 }')" = "$flags" ] &&
		xfer cx1 192.0.2.2 cx0 $((256 * 1024)) "rq-reset-after-$split" >/dev/null || return 1
	[ "$split" = off ] || { split_set cx0 cxen0 off && split_set cx1 cxen1 off; }
}
spoint "RQ error on a striding RQ: reset in place, transfer intact" rq_reset off
spoint "RQ error on a striding RQ with header split: reset in place, transfer intact" rq_reset on

links() {
	ip -n cx0 link set dev cxen0 "$1" && ip -n cx1 link set dev cxen1 "$1"
}

carrier_up() {
	ip -n cx0 link show dev cxen0 | grep -q LOWER_UP &&
		ip -n cx1 link show dev cxen1 | grep -q LOWER_UP
}

# flush_defer: skbs a socket freed on another CPU wait on the CPU that
# received them (skb_attempt_defer_free()) until it next runs NET_RX, and
# their pages with them: a loopback ping on every CPU runs it there.
flush_defer() {
	local c
	ip link set dev lo up
	for ((c = 0; c < $(nproc); c++)); do
		taskset -c "$c" ping -c 2 -i 0.2 -W 1 127.0.0.1 >/dev/null 2>&1 || true
	done
}

# pages_back: the striding RQs' pools from their creation to their
# destruction (both ports up with striding, a transfer, both down): every
# page they took from the page allocator is given back once the skbs are
# freed (tests/vm/pp-trace: hold = release), no page kept by a reference
# the driver forgot to drop. Pages of pools destroyed before the window
# are back before it starts (flush_defer).
pages_back() {
	local hold rel rc=0 i
	links down || return 1
	n0 ethtool --set-priv-flags cxen0 striding on &&
		n1 ethtool --set-priv-flags cxen1 striding on || return 1
	flush_defer
	nap 0.5
	"$CXEN_ROOT/tests/vm/pp-trace" start || return 1
	links up && wait_for 10 carrier_up || return 1
	xfer cx1 192.0.2.2 cx0 "$bytes" "pages-back" >/dev/null || rc=1
	n0 ping -c 20 -i 0.05 -s 56 192.0.2.2 >/dev/null || rc=1
	links down || return 1
	for ((i = 0; i < 10; i++)); do
		flush_defer
		read -r hold rel <<< "$("$CXEN_ROOT/tests/vm/pp-trace" read)"
		[ "$hold" = "$rel" ] && break
		nap 0.5
	done
	"$CXEN_ROOT/tests/vm/pp-trace" stop || true
	links up && wait_for 10 carrier_up || rc=1
	echo "striding pools: $hold pages from the page allocator, $rel given back after the ports went down"
	[ "$rc" = 0 ] && [ "$hold" -gt 0 ] && [ "$hold" = "$rel" ]
}
spoint "striding pools give every page back when destroyed" pages_back

# --- the automatic choice (private flag auto) --------------------------------

# both_flags ARGS: ethtool --set-priv-flags ARGS on both ports.
both_flags() {
	n0 ethtool --set-priv-flags cxen0 "$@" && n1 ethtool --set-priv-flags cxen1 "$@"
}

both_mtu() {
	ip -n cx0 link set dev cxen0 mtu "$1" && ip -n cx1 link set dev cxen1 mtu "$1"
}

# layout_is WANT: cxen1's running layout (debugfs rx_layout) is WANT.
layout_is() {
	local got
	got=$(rx_layout cx1 cxen1)
	[ "$got" = "$1" ] || { echo "cxen1 runs '$got', want '$1'"; return 1; }
}

# auto_mtu: with auto on and no layout named, MTU 1500 runs the default
# layout, MTU 9000 (above the one the default layout builds in place)
# striding on every RQ, a transfer through its strides intact; auto off
# at 9000 is the default layout, on again striding.
auto_mtu() {
	both_mtu 1500 && both_flags striding off auto on || return 1
	layout_is "pagepool auto" || return 1
	both_mtu 9000 || return 1
	layout_is "striding auto" || return 1
	[ -z "$(rq_summary | awk '$2 != "0x1"')" ] || { rq_summary; echo "RQs not striding"; return 1; }
	xfer_point 9000 192.0.2.2 || return 1
	n1 ethtool --set-priv-flags cxen1 auto off && layout_is "pagepool default" || return 1
	n1 ethtool --set-priv-flags cxen1 auto on && layout_is "striding auto" || return 1
	echo "auto: MTU 1500 pagepool, MTU 9000 striding; auto off at 9000: pagepool"
}
spoint "auto: MTU 1500 runs the default layout, 9000 striding, transfer intact" auto_mtu

# auto_xdp: an xdp.frags program on cxen1 at MTU 9000 with auto on: the
# default layout while it runs, striding again once detached.
auto_xdp() {
	local obj=$CXEN_ROOT/build/xdp/xdp_act_frags.o fs=/run/cxen-stride-bpf rc=0
	[ -f "$obj" ] || { echo "no $obj: make -C tests/xdp on the host"; return 1; }
	layout_is "striding auto" || return 1
	# Loaded by bpftool, which keeps the section's frags support.
	mkdir -p "$fs"
	mountpoint -q "$fs" || mount -t bpf bpf "$fs" || return 1
	rm -f "$fs/frags"
	bpftool prog load "$obj" "$fs/frags" type xdp || return 1
	n1 ip link set dev cxen1 xdpdrv pinned "$fs/frags" || return 1
	layout_is "pagepool auto" || rc=1
	n0 ping -c 3 -W 5 192.0.2.2 >/dev/null || { echo "no ping with XDP"; rc=1; }
	n1 ip link set dev cxen1 xdpdrv off || return 1
	rm -f "$fs/frags"
	umount "$fs" || true
	layout_is "striding auto" || rc=1
	n0 ping -c 3 -W 5 192.0.2.2 >/dev/null || { echo "no ping after XDP"; rc=1; }
	echo "auto at MTU 9000: pagepool with XDP (xdp.frags), striding without"
	return $rc
}
spoint "auto: XDP at MTU 9000 runs the default layout, striding again without" auto_xdp

# auto_split: at MTU 1500 with auto on, tcp-data-split on picks the
# striding RQ (TCP frames split, transfer intact), off the default layout.
auto_split() {
	local a1 b1 out
	[ -x "$et_split" ] || { echo "no ethtool with tcp-data-split (scripts/newer-ethtool on the host)"; return 1; }
	both_mtu 1500 && layout_is "pagepool auto" || return 1
	split_set cx1 cxen1 on || return 1
	layout_is "striding auto" || return 1
	a1=$(stats_snap cx1 cxen1)
	out=$(xfer cx1 192.0.2.2 cx0 "$bytes" "auto-split") || { echo "$out"; return 1; }
	b1=$(stats_snap cx1 cxen1)
	echo "$out"
	[ "$(stat_delta "$a1" "$b1" rx_hdr_split)" -gt 0 ] || { echo "no frame split"; return 1; }
	split_set cx1 cxen1 off && layout_is "pagepool auto" || return 1
	echo "auto at MTU 1500: tcp-data-split on runs striding (rx_hdr_split +$(stat_delta "$a1" "$b1" rx_hdr_split)), off pagepool"
}
spoint "auto: tcp-data-split on at MTU 1500 runs striding, off the default layout" auto_split

back_default() {
	both_flags striding off auto on &&
		[ "$(flag_of cx1 cxen1 striding)" = off ] &&
		layout_is "pagepool auto" &&
		n0 ping -c 3 -W 5 192.0.2.2
}
spoint "back to the default flags (auto, MTU 1500: pagepool), traffic flows" back_default

tap_done
