#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# LRO through the driver (ethtool -K lro; the device merges a flow's TCP
# segments on the striding RQ, Documentation/hw-interface.rst "Large
# receive offload"), TAP output.
#
#   tests/integration/lro.sh [tests/vm/run options]   on the host: boots
#       the VM (stock kernel unless --kernel debug) with --pair, runs
#       inside (the XDP point needs build/xdp/xdp_act.o and the split
#       point the newer ethtool: suite.sh prepares both)
#
# Inside the VM, with the cxen pair set up:
#   - large-receive-offload is off by default and not fixed;
#   - on at cxen1: the automatic layout runs striding, every RQ of port 1
#     in the model has rq_flags STRIDING | LRO;
#   - a TCP transfer into cxen1 over IPv4 and over IPv6, at MTU 1500 and
#     9000: payload intact (SHA-256), frames merged (rx_lro_packets, as
#     many as the model's RQs merged), more than 4 segments a merged
#     frame on average at MTU 1500 and 2 at 9000 (debug kernel: 2 and 1)
#     by the model's count (lro_segs over lro) and by the driver's bytes
#     (rx_lro_bytes over that many wire frames at the MTU), none refused
#     (rx_lro_bad), every wire frame counted
#     once (rx_packets moves as the port's hw_rx_frames, its unicast
#     frames as cxen0's, within the 2 frames of neighbour traffic that
#     may cross the two ports' snapshots);
#   - a sustained TCP stream into cxen1 with LRO on (10 s at MTU 1500,
#     no switch): frames merged above the same bar, none refused
#     (rx_lro_bad), no frame dropped anywhere;
#   - off again: the RQs without LRO, a transfer merges nothing;
#   - what LRO excludes, refused with a message that says what to do:
#     XDP while LRO is on (extack), LRO while XDP runs (stays off, the
#     log says why, and runs once XDP is gone), tcp-data-split while LRO
#     is on, LRO while split is on (the same), the default layout named
#     while LRO is on (the log; striding named keeps it);
#   - IPv4 forwarding turned on in cxen1's netns turns LRO off
#     (dev_disable_lro()), the RQs without it;
#   - LRO on/off at cxen1 under a TCP stream: every switch, no frame
#     dropped.
#
# CXEN_LRO_BYTES sizes the transfers (default 4 MiB; a quarter of that
# on the debug kernel).
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/integration/lro.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"

# The merge bar: segments a merged frame, on average, more than, by MTU
# (a 64 KB TSO burst is 44 segments at MTU 1500, 7 at 9000, and the
# model merges at most what one burst holds). About a third of what was
# measured (Documentation/testing.rst, lro.sh).
scale=1
declare -A min_segs=([1500]=4 [9000]=2)
[ "$CXEN_KERNEL" != debug ] || { scale=4; min_segs=([1500]=4 [9000]=2); }
bytes=${CXEN_LRO_BYTES:-$((4 * 1024 * 1024 / scale))}
stream_s=10
mtus=(1500 9000)
addrs=(192.0.2.2 fd00:c0::2)
xdp_obj=$CXEN_ROOT/build/xdp/xdp_act.o
# Debian 12's ethtool 6.1 has no tcp-data-split.
et_split=$(newer_ethtool)

# Points: default; on; per MTU and address a transfer; the sustained
# stream; off; the five refusals; forwarding; the switch under traffic.
tap_plan $((1 + 1 + ${#mtus[@]} * ${#addrs[@]} + 1 + 1 + 5 + 1 + 1))


# The sender's TSO bursts of 16 segments at least: TCP sizes a burst by
# its rate (tcp_tso_autosize(), 1 ms of it, 2 segments at least), and at
# the debug kernel's few Mbit/s every burst was 2 segments, all the
# model could merge (2.00 a merged frame at both MTUs), so no bar could
# tell merging from merging well. The stock kernel's bursts are larger
# anyway.
n0 sysctl -qw net.ipv4.tcp_min_tso_segs=16

# lro_of NS DEV: on or off (ethtool -k), "[fixed]" kept.
lro_of() {
	nsexec "$1" ethtool -k "$2" | sed -n 's/^large-receive-offload: //p'
}

# lro_set DEV_NS DEV on|off; succeeds when ethtool -k reads it back.
lro_set() {
	nsexec "$1" ethtool -K "$2" lro "$3" 2>&1 || true
	[ "$(lro_of "$1" "$2")" = "$3" ]
}

# rq_flags PORT: the rq_flags of every RQ of PORT in the model, one a line.
rq_flags() {
	awk -v p="$1" 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	     $c["port"] == p { print $c["rq_flags"] }' /sys/kernel/debug/cxsim/rqs
}

# all_flags PORT FLAGS: every RQ of PORT has rq_flags FLAGS.
all_flags() {
	local f
	f=$(rq_flags "$1" | sort -u)
	echo "port $1 RQs: rq_flags ${f//$'\n'/ }"
	[ "$f" = "$2" ]
}

by_default() {
	local k
	k=$(lro_of cx1 cxen1)
	echo "cxen1 large-receive-offload: $k, layout $(rx_layout cx1 cxen1)"
	[ "$k" = off ] && [ "$(lro_of cx0 cxen0)" = off ]
}
point "LRO off by default, not fixed" by_default

lro_on() {
	lro_set cx1 cxen1 on || { echo "not on: $(lro_of cx1 cxen1)"; return 1; }
	[ "$(rx_layout cx1 cxen1)" = "striding auto" ] || {
		echo "layout: $(rx_layout cx1 cxen1)"
		return 1
	}
	all_flags 1 0x5
}
point "LRO on at cxen1: striding (auto), every RQ STRIDING | LRO" lro_on

# ucast SNAP DIR: DIR (rx or tx) unicast frames of a port's snapshot:
# hw_DIR_frames less its multicast and broadcast ones; for rx, the frames
# its RX filter turned away (multicast it did not join) added back, as
# hw_rx_multicast counts them and hw_rx_frames does not.
ucast() {
	local f m b x=0
	f=$(stat_of "$1" "hw_$2_frames") && m=$(stat_of "$1" "hw_$2_multicast") &&
		b=$(stat_of "$1" "hw_$2_broadcast") || return 1
	[ "$2" = tx ] || x=$(stat_of "$1" hw_rx_filtered) || return 1
	echo $((f + x - m - b))
}

# model_lro: "merged segments" of port 1's RQs in the model (debugfs
# rqs: lro and lro_segs, each RQ's since its creation).
model_lro() {
	awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	     $c["port"] == 1 { m += $c["lro"]; s += $c["lro_segs"] }
	     END { print m + 0, s + 0 }' /sys/kernel/debug/cxsim/rqs
}

# merged_ok LP LB MLP MSEGS MTU: the merge bar. LP merged frames of LB
# bytes in the driver, MLP of MSEGS segments in the model (the same
# frames: as many), more than ${min_segs[MTU]} segments each on average
# by the model's count, and more bytes than that many full frames at
# MTU each by the driver's (a merged frame of k segments is k MSS of
# payload and one set of headers: shorter than k wire frames).
merged_ok() {
	local lp=$1 lb=$2 mlp=$3 msegs=$4 mtu=$5 bar=${min_segs[$5]}
	echo "merged frames: driver $lp of $((lp ? lb / lp : 0)) B on average (bar: more than $bar x $((mtu + 14)) B), model $mlp of $((mlp ? msegs * 100 / mlp : 0))/100 segments on average (bar: more than $bar)"
	[ "$lp" -gt 0 ] && [ "$lp" = "$mlp" ] && [ "$msegs" -gt $((mlp * bar)) ] &&
		[ "$lb" -gt $((lp * bar * (mtu + 14))) ]
}

# xfer_lro MTU ADDR SEED: a transfer into cxen1 at MTU; prints the merge
# counters; succeeds when intact, merged above the bar (merged_ok),
# nothing refused, every wire frame counted once: cxen1's rx_packets
# exactly as its hw_rx_frames (one snapshot), and the unicast frames
# cxen1 saw as the ones cxen0 sent, within 2: the two ports' snapshots
# are not taken at once, and IPv6 neighbour traffic (unicast probes too)
# may cross between them; a segment counted twice or not at all by the
# model's burst would miss by far more.
xfer_lro() {
	local mtu=$1 s0 s1 t0 t1 m0 ms0 m1 ms1 out mo lp lb bad rp hw tx rx rc=0
	ip -n cx0 link set dev cxen0 mtu "$mtu" && ip -n cx1 link set dev cxen1 mtu "$mtu" || return 1
	s0=$(stats_snap cx1 cxen1)
	t0=$(stats_snap cx0 cxen0)
	read -r m0 ms0 <<< "$(model_lro)"
	out=$(xfer cx1 "$2" cx0 "$bytes" "$3") || { echo "$out"; return 1; }
	# The connection's last ACK may still be on its way: let it land.
	nap 1
	read -r m1 ms1 <<< "$(model_lro)"
	t1=$(stats_snap cx0 cxen0)
	s1=$(stats_snap cx1 cxen1)
	tx=$(($(ucast "$t1" tx) - $(ucast "$t0" tx)))
	rx=$(($(ucast "$s1" rx) - $(ucast "$s0" rx)))
	lp=$(stat_delta "$s0" "$s1" rx_lro_packets)
	lb=$(stat_delta "$s0" "$s1" rx_lro_bytes)
	bad=$(stat_delta "$s0" "$s1" rx_lro_bad)
	rp=$(stat_delta "$s0" "$s1" rx_packets)
	hw=$(stat_delta "$s0" "$s1" hw_rx_frames)
	mo=$(merged_ok "$lp" "$lb" "$((m1 - m0))" "$((ms1 - ms0))" "$mtu") || rc=1
	echo "$out"
	echo "cxen1: rx_packets +$rp (hw_rx_frames +$hw), unicast frames +$rx (cxen0 sent +$tx), refused +$bad; $mo"
	[ "$rc" = 0 ] && [ "$bad" = 0 ] &&
		[ "$rp" = "$hw" ] && [ "$((rx - tx))" -le 2 ] && [ "$((tx - rx))" -le 2 ]
}

for mtu in "${mtus[@]}"; do
	for addr in "${addrs[@]}"; do
		point "LRO, MTU $mtu, to $addr: payload intact, segments merged" \
			xfer_lro "$mtu" "$addr" "lro-$mtu-$addr"
	done
done
ip -n cx0 link set dev cxen0 mtu 1500
ip -n cx1 link set dev cxen1 mtu 1500

drop_re='^(hw_rx_(oversize|no_rq|out_of_buffer|cq_overrun|queue_error|error_cqes)|rx_(alloc_fail|err_cqe|oversize|bad_cqe|lro_bad|stride_bad_[a-z]+|stride_reused))$'

# A stream long enough for what short transfers miss: a striding frame
# that starts at a page's end has its headers split between the skb's
# head and its first frag (3464655 refused such merged frames:
# rx_lro_bad, found by a benchmark, not by the transfers above). LRO on
# all along, MTU 1500; every merged frame taken, none dropped anywhere.
lro_stream() {
	local a0 a1 b0 b1 m0 ms0 m1 ms1 out mo lp lb bad d rc=0
	[ "$(lro_of cx1 cxen1)" = on ] || { echo "LRO not on"; return 1; }
	a0=$(stats_snap cx0 cxen0)
	a1=$(stats_snap cx1 cxen1)
	read -r m0 ms0 <<< "$(model_lro)"
	out=$(iperf3_run cx1 192.0.2.2 cx0 "$stream_s") || { echo "$out"; return 1; }
	nap 1
	read -r m1 ms1 <<< "$(model_lro)"
	b0=$(stats_snap cx0 cxen0)
	b1=$(stats_snap cx1 cxen1)
	lp=$(stat_delta "$a1" "$b1" rx_lro_packets)
	lb=$(stat_delta "$a1" "$b1" rx_lro_bytes)
	bad=$(stat_delta "$a1" "$b1" rx_lro_bad)
	d=$(($(drop_sum "$b0") - $(drop_sum "$a0") + $(drop_sum "$b1") - $(drop_sum "$a1")))
	mo=$(merged_ok "$lp" "$lb" "$((m1 - m0))" "$((ms1 - ms0))" 1500) || rc=1
	echo "$stream_s s at $out; $mo; refused (rx_lro_bad) +$bad; frames dropped (device and driver, both ports) $d$(drops_moved cxen0 "$a0" "$b0")$(drops_moved cxen1 "$a1" "$b1")"
	[ "$rc" = 0 ] && [ "$bad" = 0 ] && [ "$d" = 0 ]
}
point "LRO on under a $stream_s s TCP stream: merged, none refused, nothing dropped" lro_stream

lro_off() {
	local s0 s1 out lp
	lro_set cx1 cxen1 off || return 1
	all_flags 1 0x0 || return 1
	s0=$(stats_snap cx1 cxen1)
	out=$(xfer cx1 192.0.2.2 cx0 "$bytes" lro-off) || { echo "$out"; return 1; }
	s1=$(stats_snap cx1 cxen1)
	lp=$(stat_delta "$s0" "$s1" rx_lro_packets)
	echo "LRO off: layout $(rx_layout cx1 cxen1), a transfer merged $lp frames"
	[ "$lp" = 0 ]
}
point "LRO off: RQs without it, nothing merged" lro_off

# --- what LRO excludes ---------------------------------------------------------

xdp_refused() {
	local out rc=0
	[ -f "$xdp_obj" ] || { echo "no $xdp_obj: make -C tests/xdp on the host"; return 1; }
	lro_set cx1 cxen1 on || return 1
	if out=$(n1 ip link set dev cxen1 xdpdrv obj "$xdp_obj" sec xdp 2>&1); then
		n1 ip link set dev cxen1 xdpdrv off
		echo "XDP attached with LRO on"
		return 1
	fi
	echo "$out"
	grep -q 'XDP and LRO exclude each other: ethtool -K <dev> lro off first' <<< "$out" || rc=1
	lro_set cx1 cxen1 off || rc=1
	return $rc
}
point "XDP refused while LRO is on (extack)" xdp_refused

# stays_off LOG_TEXT ON_CMD OFF_CMD: with ON_CMD's setting (a word list,
# run in cx1) LRO asked for stays off and the log says LOG_TEXT (after a
# mark: an earlier point's line would do otherwise); OFF_CMD undoes the
# setting and LRO, still wanted, runs; then off again.
stays_off() {
	local text=$1 rc=0 mark
	read -ra on <<< "$2"
	read -ra off <<< "$3"
	n1 "${on[@]}" || return 1
	mark=$(dmesg_mark) || rc=1
	if lro_set cx1 cxen1 on >/dev/null; then
		echo "LRO on with: $2"
		rc=1
	fi
	n1 "${off[@]}" || rc=1
	dmesg_has "$mark" "cxen1: LRO stays off: $text" || rc=1
	[ "$(lro_of cx1 cxen1)" = on ] || { echo "LRO not on after: $3"; rc=1; }
	lro_set cx1 cxen1 off || rc=1
	return $rc
}

lro_refused_xdp() {
	[ -f "$xdp_obj" ] || { echo "no $xdp_obj: make -C tests/xdp on the host"; return 1; }
	stays_off 'XDP' "ip link set dev cxen1 xdpdrv obj $xdp_obj sec xdp" \
		"ip link set dev cxen1 xdpdrv off"
}
point "LRO stays off while XDP runs (the log says why), on once it goes" lro_refused_xdp

split_refused() {
	local out rc=0
	[ -x "$et_split" ] || { echo "no ethtool with tcp-data-split (scripts/newer-ethtool on the host)"; return 1; }
	lro_set cx1 cxen1 on || return 1
	if out=$(n1 "$et_split" -G cxen1 tcp-data-split on 2>&1); then
		echo "tcp-data-split on accepted with LRO on"
		rc=1
	fi
	echo "$out"
	grep -q 'LRO and tcp-data-split exclude each other: turn one off' <<< "$out" || rc=1
	lro_set cx1 cxen1 off || rc=1
	return $rc
}
point "tcp-data-split refused while LRO is on (extack)" split_refused

lro_refused_split() {
	[ -x "$et_split" ] || { echo "no ethtool with tcp-data-split (scripts/newer-ethtool on the host)"; return 1; }
	stays_off 'LRO and tcp-data-split' "$et_split -G cxen1 tcp-data-split on" \
		"$et_split -G cxen1 tcp-data-split off"
}
point "LRO stays off while tcp-data-split is on, on once it goes" lro_refused_split

# A private flag has no extack: the refusal's reason is in the log.
layout_refused() {
	local rc=0 mark
	lro_set cx1 cxen1 on || return 1
	mark=$(dmesg_mark) || rc=1
	if n1 ethtool --set-priv-flags cxen1 auto off 2>&1; then
		echo "auto off (the default layout) accepted with LRO on"
		rc=1
	fi
	dmesg_has "$mark" 'cxen1: LRO is on: LRO needs the striding RX layout: private flag striding, or auto$' || rc=1
	[ "$(rx_layout cx1 cxen1)" = "striding auto" ] || rc=1
	# Named striding, LRO keeps running; then auto back, striding off.
	n1 ethtool --set-priv-flags cxen1 striding on auto off || rc=1
	all_flags 1 0x5 || rc=1
	n1 ethtool --set-priv-flags cxen1 auto on striding off || rc=1
	lro_set cx1 cxen1 off || rc=1
	return $rc
}
point "the default layout refused while LRO is on; striding named keeps it" layout_refused

# --- forwarding ----------------------------------------------------------------

# Turning forwarding on disables LRO on every device of the netns
# (dev_disable_lro(): the wanted feature cleared); the user may turn it on
# again, as on any device.
forwarding() {
	local rc=0 f
	lro_set cx1 cxen1 on || return 1
	n1 sysctl -qw net.ipv4.conf.all.forwarding=1 || return 1
	f=$(lro_of cx1 cxen1)
	[ "$f" = off ] || { echo "LRO still $f with forwarding on"; rc=1; }
	all_flags 1 0x0 || rc=1
	n1 sysctl -qw net.ipv4.conf.all.forwarding=0 || rc=1
	[ "$(lro_of cx1 cxen1)" = off ] || rc=1
	echo "forwarding on in cx1: LRO $f, RQs without it; off again: LRO stays $(lro_of cx1 cxen1)"
	return $rc
}
point "IPv4 forwarding turns LRO off (dev_disable_lro)" forwarding

# --- switching under traffic ------------------------------------------------

# lro_switch I: LRO on at cxen1 (even I) or off.
lro_switch() {
	lro_set cx1 cxen1 "$( (($1 % 2)) && echo off || echo on)" >/dev/null
}

switch_under_traffic() {
	local rc=0
	switch_under_iperf3 10 lro_switch || rc=1
	echo "$sw_summary (LRO); merged frames +$(stat_delta "$sw_a1" "$sw_b1" rx_lro_packets), LRO now $(lro_of cx1 cxen1)"
	[ "$rc" = 0 ] && [ "$(lro_of cx1 cxen1)" = off ]
}
point "LRO on/off under a TCP stream: every switch, no drop" switch_under_traffic

tap_done
