#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile device and memory pressure under load (TAP output).
#
#   tests/reliability/faults.sh [tests/vm/run options]   on the host:
#       boots the debug kernel (KASAN catches reads past buffers) with
#       --pair and runs itself inside.
#
# Hostile device: each fault knob of the model in turn, for 3 s under
# iperf3 both ways, and each checked at the driver: the counters of
# ethtool -S of the cxen ports (the driver's, never the model's hw_*)
# must move by exactly what the model injected:
#   drop_every            the wire loses frames: nothing in the driver
#                         sees it, so the ports' TX - RX over the window,
#                         less every drop a counter owns, must equal the
#                         frames dropped;
#   corrupt_csum_every    rx_csum_none (frames handed up unverified) grows
#                         by the frames corrupted, and the stack's
#                         TcpInCsumErrors by as much (each was caught);
#   cqe_bad_len_every     rx_oversize;
#   cqe_bad_index_every   rx_bad_cqe + tx_err_cqe;
#   cqe_error_every       rx_err_cqe;
#   cqe_stale_owner_every the driver has no counter for it and cannot
#                         have one: a CQE whose owner bit is stale is, to
#                         the driver, a CQE not written yet. It must take
#                         each one once, when it becomes valid: no error
#                         counter moves and no frame is lost (TX = RX);
#   delay_us              the same (a slow device is no fault).
# For every knob: frames are conserved (each port's TX is the peer's RX
# plus the drops counters own) and every driver counter that has nothing
# to do with the knob stays still. To compare counters of two ports the
# traffic is stopped at the window's ends and the counters read when
# still (iperf3 restarted for each window); after the knob goes off the
# same connections must flow again (RX on both ports within 5 s).
#
# A stalled SQ (stall_sqn) under a ping flood must be found (tx_hang, or
# tx_timeout if its queue stopped) and reset (tx_recover) exactly once:
# the reset (MODIFY_SQ to RST) ends the stall.
#
# Queue errors and failed resets, under iperf3 both ways, each on the
# queue the traffic runs on (the device's busiest SQ/RQ of the port):
#   sq_error     port 0's SQ fails a WQE and enters the error state: the
#                devlink "tx" reporter counts one error and one recovery,
#                tx_recover +1, and traffic flows again;
#   rq_error     port 1's RQ fails a frame's WQE and enters the error
#                state: "rx" reporter +1 error +1 recovery, rx_recover
#                +1; the frame lost counted once (rx_err_cqe), the
#                buffers flushed back (rx_flush_cqe) lose nothing;
#   reset_fail   an SQ error whose reset the device refuses once
#                (cmd_fail_opcode MODIFY_SQ): recover_fail +1, the
#                reporter stays in error with no recovery, the queue
#                stopped but nothing freed; `devlink health recover`
#                then resets it and traffic flows;
#   create_fail  CREATE_SQ refused during ethtool -L (the port keeps its
#                queues and its traffic) and during ip link set up (the
#                port stays down; the next up works).
# Each recovery's time (from the injection to the reporter's recovery)
# is printed.
#
# The device failing as a whole, under iperf3 both ways, with port 0's
# rings and coalescing set away from their defaults. Each must be found,
# reported once to the devlink "fw" reporter (grace period set to 0 for
# the test), recovered once by a device reset (cxsim's "resets" +1) with
# every port rebuilt with its configuration (MTU, channels, rings,
# coalescing read back equal), frames conserved (TX = RX + counted
# drops) and traffic flowing again:
#   dev_hang        the device stops without a word: found by its
#                   heartbeat (3 polls, 1 s apart);
#   dev_fatal       the device stops with syndrome 1 and raises the async
#                   FATAL event;
#   cmd_hang        DESTROY_RQ never completes during ethtool -L on port
#                   1 (the device still running): the command times out
#                   (5 s), and the old RQ is freed only after the reset;
#   destroy_fail    DESTROY_SQ refused (status INTERNAL) during ethtool -L
#                   on port 0: the device may still own the SQ, so it is
#                   lost and reset before the SQ's memory is freed;
#   dev_reset_fail  syndrome 2, and the device ignores the first reset:
#                   the reporter stays in error with no recovery, then
#                   `devlink health recover` resets it.
#   rebuild_fail    the device resets, but refuses every CREATE_SQ while
#                   the ports are rebuilt: each running port is brought
#                   down with a message (it has no queues left); an
#                   RX-only change (ethtool -G rx) is then taken for the
#                   next up, `devlink health recover` with the device
#                   accepting again heals the reporter, and ip link set
#                   up runs the ports, the new ring in force.
#   rq_leak         RQs the device cannot give back while a
#                   UDP socket of cx1 holds skbs of their pages: cxen1 on
#                   4 channels takes datagrams from 64 source ports on
#                   every queue (rx<q>_packets), then ethtool -L combined
#                   3 with DESTROY_RQ refused once and the reset that
#                   follows ignored (reset_fail): the device is dead, the
#                   4 old RQs are leaked (logged) with their channels and
#                   NAPI freed, the fw reporter stays in error (auto-
#                   recovery off for the phase). The socket is then closed:
#                   its skbs go back to the leaked pools, which must not
#                   read the freed NAPI (a KASAN use-after-free before the
#                   fix). `devlink health recover` then resets the device,
#                   frees the 4 parked channels (logged), keeps 3 channels,
#                   and ping and iperf3 flow.
#
# Memory pressure (the debug kernel's fault injection; the stack-trace
# filter is not built in, so the restriction is by target):
#   fail_function on page_pool_alloc_pages (only cxen uses page_pool in
#     the VM): 10% of calls fail; then all of them during an RX ring
#     change (ethtool -G, one RQ at a time), which must be refused with
#     the ring as it was and no splat;
#   failslab with cache-filter on skbuff_head_cache only, atomic
#     (ignore-gfp-wait): 20% fail (few reach the slab: NAPI caches skbs);
#   fail_page_alloc, atomic order-0 and up (ignore-gfp-wait): 10% fail,
#     system-wide.
# Each for 6 s: the kernel must have failed allocations (the attribute's
# times counts them down: a phase that injected nothing tested nothing),
# RX packets must grow on both ports every second (no stall),
# rx_alloc_fail must count (page_pool and slab phases), and after
# injection stops traffic must flow again. Over the three phases, from a
# still point before to one after: frames conserved in each direction
# (what one port sent is what the other received plus the drops counted
# on the way; rx_skb_alloc_fail is the driver's, rx_alloc_fail also
# counts refills, which lose no frame). Every window of the knobs and
# the queue and device phases checks each direction too when it expects
# no loss. At the end: ping both ways and iperf3 each way.
#
# Only TCP moves during the knob windows: the ports have no IPv6
# address (no router solicitation or MLD report) and the neighbours are
# static (no ARP), so a frame without a checksum the device verifies is a
# corrupted one.
#
# CXEN_FAULTS="cqe_error_every stall pp slab pagealloc" runs only those
# (knob names and phase names); default all, but only the phases from
# stall to rq_leak on a kernel without fault injection (the stock
# one). The TAP plan follows from it.
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../vm/run" --kernel debug --pair "$@" -- tests/reliability/faults.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"
. "$CXEN_ROOT/tests/reliability/lib.sh"
. "$CXEN_ROOT/tests/vm/splat.sh"

fault_dir=/sys/kernel/debug/cxsim/fault
dbg=/sys/kernel/debug

# knob value seconds, in the order they run.
knobs=(
	"drop_every 20 3"
	"corrupt_csum_every 20 3"
	"cqe_bad_len_every 50 3"
	"cqe_bad_index_every 50 3"
	"cqe_error_every 50 3"
	"cqe_stale_owner_every 20 3"
	"delay_us 100 3"
)
phases="stall sq_error rq_error reset_fail create_fail dev_hang dev_fatal cmd_hang destroy_fail dev_reset_fail rebuild_fail rq_leak pp slab pagealloc"

# The memory-pressure phases need the kernel's fault injection, which
# only the debug kernel has: on another kernel (the stock one) the default
# is the queue and device failures, the recovery paths, whose timing the
# kernel changes; the CQE knobs' counter checks and memory pressure are
# the debug kernel's run.
if [ -z "${CXEN_FAULTS:-}" ] && [ ! -d /sys/kernel/debug/fail_function ]; then
	CXEN_FAULTS="${phases% pp slab pagealloc}"
	echo "# no fault injection in this kernel: $CXEN_FAULTS"
fi

want() {
	[ -z "${CXEN_FAULTS:-}" ] && return 0
	case " $CXEN_FAULTS " in *" $1 "*) return 0 ;; esac
	return 1
}

# The plan: 1 (traffic) + 2 per knob and per phase (the check, then
# traffic after it) + 4 (ping and iperf3 each way at the end).
names=" $phases "
for k in "${knobs[@]}"; do names+="${k%% *} "; done
for n in ${CXEN_FAULTS:-}; do
	case "$names" in
	*" $n "*) ;;
	*)
		echo "Bail out! CXEN_FAULTS names '$n'; known:$names"
		exit 1
		;;
	esac
done
planned=5
for n in $names; do
	if want "$n"; then planned=$((planned + 2)); fi
done
# pp: and a ring change while page_pool allocations fail.
if want pp; then planned=$((planned + 1)); fi
# The memory pressure as a whole: frames conserved each way.
if want pp || want slab || want pagealloc; then planned=$((planned + 1)); fi

# Every knob and every memory fault injection off, the traffic and the
# pinned processes gone, also when the suite's timeout kills us (the
# next test of the VM must not inherit any of them).
cleanup() {
	local k
	for k in "${knobs[@]}"; do echo 0 > "$fault_dir/${k%% *}" 2>/dev/null || true; done
	echo -1 > "$fault_dir/stall_sqn" 2>/dev/null || true
	echo -1 > "$fault_dir/sq_error_sqn" 2>/dev/null || true
	echo -1 > "$fault_dir/rq_error_rqn" 2>/dev/null || true
	echo 0 > "$fault_dir/cmd_fail_count" 2>/dev/null || true
	echo 0 > "$fault_dir/cmd_hang_opcode" 2>/dev/null || true
	echo 0 > "$fault_dir/reset_fail" 2>/dev/null || true
	echo 0 > "$fault_dir/cmd_fail_count" 2>/dev/null || true
	for k in fail_function failslab fail_page_alloc; do
		[ ! -e "$dbg/$k/probability" ] || echo 0 > "$dbg/$k/probability" || true
	done
	[ ! -e "$dbg/fail_function/inject" ] || echo > "$dbg/fail_function/inject" || true
	[ ! -e /sys/kernel/slab/skbuff_head_cache/failslab ] ||
		echo 0 > /sys/kernel/slab/skbuff_head_cache/failslab || true
	if [ -s "${leak_pidf:-}" ]; then
		leak_rx_stop
		devlink health set platform/cxsim reporter fw auto_recover true 2>/dev/null || true
	fi
	traffic_stop
	ns_unpin
	rm -f "${msg:-}"
}
# A command that fails outside a check ends the script (set -e): say
# which, or the run ends with the plan short and nothing to go on.
trap 'rc=$?; [ "$rc" = 0 ] || echo "# faults.sh: exit $rc after: $BASH_COMMAND"; cleanup' EXIT
trap 'exit 1' TERM INT

# ---- counters -----------------------------------------------------------
# No $(...) and no external command in the loops: a fork costs ~60 ms and
# an exec ~1 s in the debug kernel under TCG (`sleep 0.1` takes 0.8 s);
# lib.sh's nap sleeps without one.

# Where the time goes (the CI budget is tight): lap NAME adds the time
# since the last lap to $laps; laps_out prints them as a diagnostic.
lap_t=$((${EPOCHREALTIME/./} / 1000))
laps=
lap() {
	local t=$((${EPOCHREALTIME/./} / 1000))
	laps+="${laps:+, }$1 $(((t - lap_t) / 1000)).$(((t - lap_t) / 100 % 10)) s"
	lap_t=$t
}
laps_out() {
	lap "${1:-rest}"
	echo "# time: $laps"
	laps=
}

# rx_moves SECONDS: RX packets grow on both ports within SECONDS.
rx_moves() {
	local a0 a1 i
	link_pkts
	a0=${pkts[0]}
	a1=${pkts[2]}
	for ((i = 0; i < $1 * 10; i++)); do
		nap 0.1
		link_pkts
		if [ "${pkts[0]}" -gt "$a0" ] && [ "${pkts[2]}" -gt "$a1" ]; then
			return 0
		fi
	done
	echo "no traffic for $1 s: rx_packets cxen0 $a0 -> ${pkts[0]}, cxen1 $a1 -> ${pkts[2]}"
	return 1
}

flowing() {
	rx_moves 5
}

# no_stall SECONDS: RX packets grow on both ports in every second.
no_stall() {
	local a0 a1 s
	link_pkts
	a0=${pkts[0]}
	a1=${pkts[2]}
	for ((s = 1; s <= $1; s++)); do
		nap 1
		link_pkts
		if [ "${pkts[0]}" -le "$a0" ] || [ "${pkts[2]}" -le "$a1" ]; then
			echo "second $s: rx_packets cxen0 $a0 -> ${pkts[0]}, cxen1 $a1 -> ${pkts[2]}"
			return 1
		fi
		a0=${pkts[0]}
		a1=${pkts[2]}
	done
}

# TcpInCsumErrors of cx0 and cx1, summed: TCP segments the stack dropped
# for a bad checksum. Prints "stack_tcp_csum_errors N".
tcp_csum_errors() {
	local i hdr=() l j sum=0
	for i in 0 1; do
		hdr=()
		while read -r -a l; do
			[ "${l[0]}" = Tcp: ] || continue
			if [ ${#hdr[@]} = 0 ]; then
				hdr=("${l[@]}")
				continue
			fi
			for j in "${!hdr[@]}"; do
				[ "${hdr[j]}" != InCsumErrors ] || sum=$((sum + l[j]))
			done
		done < "/proc/${ns_pids[i]}/net/snmp"
	done
	echo "stack_tcp_csum_errors $sum"
}

# snapshot: both ports' ethtool -S counters (summed), the model's fault
# counters (fault_*) and TcpInCsumErrors (stack_tcp_csum_errors), read
# while nothing moves: quiesce first, and the packet counters must be the
# same after the reads as before (else again). Sets $snapv.
snapshot() {
	local try before
	for ((try = 0; try < 3; try++)); do
		quiesce 30 || return 1
		lap quiesce
		before="${pkts[*]}"
		snapv=$(snap && tcp_csum_errors) || {
			echo "ethtool -S failed: $snapv"
			return 1
		}
		lap "ethtool -S"
		link_pkts
		[ "${pkts[*]}" != "$before" ] || return 0
	done
	echo "the packet counters moved while ethtool -S read them, 3 times"
	return 1
}

# load S0 S1: D, name -> how much the counter grew from snapshot S0 to S1.
declare -A D=()
load() {
	local k v
	declare -A a=()
	D=()
	while read -r k v; do a[$k]=$v; done <<< "$1"
	while read -r k v; do D[$k]=$((v - ${a[$k]:-0})); done <<< "$2"
}

# The counters that own a frame's loss: the sending device's (MTU, link
# down, the rest of a WQE that failed half sent), the receiving device's
# (dropped before any CQE: MTU, filter, no RQ, ring empty, CQ full, RQ in
# error) and the receiving driver's (error, oversized or bad CQE, no
# skb: rx_skb_alloc_fail; rx_alloc_fail also counts the refills that
# found no page, which lose no frame). A device's own error CQEs (a frame
# longer than its WQE) are counted by the driver as rx_err_cqe: not twice.
tx_drop_counters="hw_tx_oversize hw_tx_link_down hw_tx_discarded"
rx_drop_counters="hw_rx_oversize hw_rx_no_rq hw_rx_out_of_buffer
	hw_rx_cq_overrun hw_rx_queue_error hw_rx_filtered
	rx_err_cqe rx_oversize rx_bad_cqe rx_skb_alloc_fail"

# count_drops [SENDER RECEIVER]: $drops, the frames those counters own
# over D, both ports' summed, or those of one direction (SENDER's TX side,
# RECEIVER's RX side: cxen0 cxen1).
count_drops() {
	local n
	drops=0
	for n in $tx_drop_counters; do
		drops=$((drops + ${D[${1:+$1.}$n]:-0}))
	done
	for n in $rx_drop_counters; do
		drops=$((drops + ${D[${2:+$2.}$n]:-0}))
	done
}

# The driver's counters of faults; each knob names those it moves, the
# others must stay still.
fault_counters="rx_csum_none rx_err_cqe rx_oversize rx_bad_cqe rx_alloc_fail
	tx_err_cqe tx_dropped tx_dma_map_err tx_timeout tx_hang tx_recover
	rx_recover recover_fail"

# conserved LOSS: frames conserved over D: TX - RX = LOSS + the counted
# drops, summed over both ports, and, when no loss is expected, in each
# direction too (what cxen<A> sent is what cxen<B> received plus the
# drops counted on the way), so that a loss one way and an excess the
# other cannot cancel in the sum. Adds what is wrong to $fail; leaves the
# summed drops in $drops.
conserved() {
	local loss=$1 a b tx rx sum
	count_drops
	sum=$drops
	tx=${D[tx_packets]:-0}
	rx=${D[rx_packets]:-0}
	[ $((tx - rx)) = $((loss + drops)) ] ||
		fail+="${fail:+; }frames not conserved: TX +$tx - RX +$rx != $loss expected lost + $drops counted drops"
	[ "$loss" = 0 ] || return 0
	for a in 0 1; do
		b=$((1 - a))
		count_drops "cxen$a" "cxen$b"
		tx=${D[cxen$a.tx_packets]:-0}
		rx=${D[cxen$b.rx_packets]:-0}
		[ $((tx - rx)) = "$drops" ] ||
			fail+="${fail:+; }cxen$a -> cxen$b not conserved: TX +$tx - RX +$rx != $drops counted drops"
	done
	drops=$sum
}

# judge EXPECTED_LOSS MOVING...: frames conserved over D (conserved), and
# every fault counter not in MOVING still. Adds what is wrong to $fail.
judge() {
	local loss=$1 c
	shift
	conserved "$loss"
	for c in $fault_counters; do
		case " $* " in *" $c "*) continue ;; esac
		[ "${D[$c]:-0}" = 0 ] ||
			fail+="${fail:+; }$c +${D[$c]} (nothing injected moves it)"
	done
}

# ---- the traffic between two still points -------------------------------

# The functions below keep their state in this shell (the traffic's pids,
# the snapshots): never run them in $(...). What they print goes to $msg,
# read back as $why.
msg=$(mktemp /tmp/faults-msg.XXXXXX)
quietly() {
	"$@" > "$msg" 2>&1 && return 0
	why=$(tr '\n' ';' < "$msg")
	return 1
}

# The last snapshot taken with the traffic stopped and the counters still:
# the start of the next window. Empty when the last one failed.
s_prev=

# window_start: a still starting point (taken now if the last window did
# not leave one), then iperf3 both ways, flowing. Prints why not, and
# leaves no traffic and no starting point then.
window_start() {
	if [ -z "$s_prev" ]; then
		traffic_stop
		snapshot || return 1
		s_prev=$snapv
	fi
	traffic_start
	if ! rx_moves 30; then
		echo "iperf3 did not start"
		traffic_stop
		s_prev=
		return 1
	fi
	lap "iperf3 start"
}

# window_end: stop the traffic, wait until still, read the end point
# (also the next window's start).
window_end() {
	traffic_stop
	lap "iperf3 stop"
	if snapshot; then
		s_prev=$snapv
	else
		s_prev=
		return 1
	fi
}

# knob NAME VALUE SECONDS: one window with the knob on; two points.
knob() {
	local name=$1 val=$2 secs=$3 s0 flows
	want "$name" || return 0
	if ! quietly window_start; then
		tap_not_ok "$name=$val: $why"
		tap_not_ok "after $name: traffic flows again: the window did not run"
		return 0
	fi
	s0=$s_prev
	echo "$val" > "$fault_dir/$name"
	nap "$secs"
	echo 0 > "$fault_dir/$name"
	lap knob
	flows=$(flowing 2>&1) && flows=ok
	lap flowing
	if ! quietly window_end; then
		tap_not_ok "$name=$val: $why"
	else
		load "$s0" "$s_prev"
		knob_check "$name" "$val" "$secs"
	fi
	if [ "$flows" = ok ]; then
		tap_ok "after $name: traffic flows again (RX on both ports within 5 s)"
	else
		tap_not_ok "after $name: traffic flows again"
		tap_diag <<< "$flows"
	fi
	laps_out
}

# knob_check NAME VALUE SECONDS: the point of one knob's window, over
# A0 -> A1. Each says in a comment what it would print if the driver
# ignored the fault.
knob_check() {
	local name=$1 val=$2 secs=$3 inj c desc loss=0 moving=""
	local tx rx csum cse
	fail=""
	case "$name" in
	drop_every) inj=${D[fault_dropped]:-0} ;;
	corrupt_csum_every) inj=${D[fault_corrupted_csum]:-0} ;;
	cqe_bad_len_every) inj=${D[fault_bad_len_cqes]:-0} ;;
	cqe_bad_index_every) inj=${D[fault_bad_index_cqes]:-0} ;;
	cqe_error_every) inj=${D[fault_error_cqes]:-0} ;;
	cqe_stale_owner_every) inj=${D[fault_stale_owner_cqes]:-0} ;;
	delay_us) inj=${D[fault_delayed_wqes]:-0} ;;
	esac
	tx=${D[tx_packets]:-0}
	rx=${D[rx_packets]:-0}
	count_drops
	desc="$name=$val ${secs} s: injected $inj"
	[ "$inj" -gt 0 ] || fail="nothing injected"
	case "$name" in
	drop_every)
		# The device completes a frame it then loses on the wire: the
		# sender's driver counts it in tx_packets, the receiver never
		# sees it. Nothing in the driver can count the loss; it shows
		# exactly as TX - RX. (A driver that counted frames it never
		# sent or delivered would break this equality.)
		loss=$inj
		desc+=", driver: TX +$tx - RX +$rx - $drops counted drops = $((tx - rx - drops))"
		;;
	corrupt_csum_every)
		# The device does not mark a corrupted frame's checksum good:
		# the driver must hand it up as CHECKSUM_NONE (rx_csum_none)
		# and the stack drops it (TcpInCsumErrors). A driver that
		# ignored the CQE's flags would print "rx_csum_none +0" and
		# the stack would take corrupted data: TcpInCsumErrors +0.
		csum=${D[rx_csum_none]:-0}
		cse=${D[stack_tcp_csum_errors]:-0}
		moving=rx_csum_none
		desc+=", driver rx_csum_none +$csum, stack TcpInCsumErrors +$cse"
		if [ "$drops" = 0 ]; then
			[ "$csum" = "$inj" ] || fail+="${fail:+; }rx_csum_none +$csum, not +$inj"
		else
			# A frame lost after its corruption (counted) never
			# reaches the driver; which ones were lost is not
			# known: rx_csum_none within [inj - drops, inj].
			[ "$csum" -le "$inj" ] && [ "$csum" -ge $((inj - drops)) ] ||
				fail+="${fail:+; }rx_csum_none +$csum, not within $inj - $drops counted drops .. $inj"
		fi
		[ "$cse" = "$csum" ] || fail+="${fail:+; }the stack found $cse bad checksums, the driver handed up $csum unverified"
		;;
	cqe_bad_len_every)
		# byte_cnt + 64 KiB: no fragment layout holds it. Ignored, the
		# driver would build an skb past its buffers (KASAN) and
		# print "rx_oversize +0".
		c=${D[rx_oversize]:-0}
		moving=rx_oversize
		desc+=", driver rx_oversize +$c"
		[ "$c" = "$inj" ] || fail+="${fail:+; }rx_oversize +$c, not +$inj"
		;;
	cqe_bad_index_every)
		# wqe_index ^ 0x8000: an RX CQE for another WQE (rx_bad_cqe,
		# frame dropped), a TX CQE completing WQEs never posted
		# (tx_err_cqe, ignored; the next CQE completes them).
		# Ignored: "+0" and the rings' accounting corrupted.
		c=$(( ${D[rx_bad_cqe]:-0} + ${D[tx_err_cqe]:-0} ))
		moving="rx_bad_cqe tx_err_cqe"
		desc+=", driver rx_bad_cqe +${D[rx_bad_cqe]:-0} + tx_err_cqe +${D[tx_err_cqe]:-0}"
		[ "$c" = "$inj" ] || fail+="${fail:+; }the driver counted $c, not $inj"
		;;
	cqe_error_every)
		# An error CQE instead of a receive: the frame is lost. Taken
		# as a receive, "rx_err_cqe +0" and garbage handed up.
		c=${D[rx_err_cqe]:-0}
		moving=rx_err_cqe
		desc+=", driver rx_err_cqe +$c"
		[ "$c" = "$inj" ] || fail+="${fail:+; }rx_err_cqe +$c, not +$inj"
		;;
	cqe_stale_owner_every)
		# The driver reads a CQE only when its owner bit says so. Had
		# it read a stale one as new, or twice, its index would not
		# be the ring's (rx_bad_cqe, tx_err_cqe would move, a frame
		# would be lost); had it never come back for it once valid,
		# that CQ would stop (TX - RX off, no traffic after).
		desc+=", driver: no error counter moved, TX +$tx = RX +$rx + $drops counted drops"
		;;
	delay_us)
		# A slow device: nothing may be lost or counted as a fault
		# (tx_hang would be a false alarm).
		desc+=", driver: no fault counter moved, TX +$tx = RX +$rx + $drops counted drops"
		;;
	esac
	# shellcheck disable=SC2086 # a list of names
	judge "$loss" $moving
	if [ -z "$fail" ]; then
		tap_ok "$desc"
	else
		tap_not_ok "$desc: $fail"
	fi
}

# stall: port 0's SQ stalled under iperf3 and a ping flood until the
# driver rebuilds it (the rebuild destroys it, which ends the stall:
# stall_sqn reads -1 again), 30 s at most; two points.
stall() {
	local sqn s0 ping_pid t v flows det rec stalled desc
	want stall || return 0
	fail=""
	if ! quietly window_start; then
		tap_not_ok "stall_sqn: $why"
		tap_not_ok "after stall_sqn: traffic flows again: the window did not run"
		return 0
	fi
	s0=$s_prev
	sqn=$(awk 'NR > 1 && $2 == 0 { print $1; exit }' /sys/kernel/debug/cxsim/sqs)
	echo "$sqn" > "$fault_dir/stall_sqn"
	# iperf3 runs both ways; a ping flood keeps every TX queue of cxen0
	# busy. The queue need not stop: the driver's hang check (tx_hang,
	# each second: 5-6 s after the last completion) or the stack's
	# watchdog (tx_timeout, stopped queues, every 5 s: 5-10 s after the
	# queue stopped) must find it. Polled: the wait ends at the rebuild.
	nsexec cx0 ping -q -f -s 8000 -w 40 192.0.2.2 > /dev/null 2>&1 &
	ping_pid=$!
	t=$SECONDS
	while ((SECONDS - t < 30)); do
		read -r v < "$fault_dir/stall_sqn"
		[ "$v" != -1 ] || break
		nap 0.2
	done
	t=$((SECONDS - t))
	echo -1 > "$fault_dir/stall_sqn"
	kill "$ping_pid" 2>/dev/null || true
	wait "$ping_pid" 2>/dev/null || true
	lap stall
	flows=$(flowing 2>&1) && flows=ok
	lap flowing
	if ! quietly window_end; then
		tap_not_ok "stall_sqn=$sqn: $why"
	else
		load "$s0" "$s_prev"
		stalled=${D[fault_stalled_runs]:-0}
		det=$(( ${D[tx_hang]:-0} + ${D[tx_timeout]:-0} ))
		rec=${D[tx_recover]:-0}
		desc="stall_sqn=$sqn (port 0), rebuilt after ${t} s: stalled_runs +$stalled, driver tx_hang +${D[tx_hang]:-0}, tx_timeout +${D[tx_timeout]:-0}, tx_recover +$rec, tx_dropped +${D[tx_dropped]:-0}"
		[ "$stalled" -gt 0 ] || fail="the SQ never stalled"
		# One stall, found once and rebuilt once: the new SQ is not
		# stalled. A driver that missed it: "+0" (and the 30 s ran out).
		[ "$det" = 1 ] || fail+="${fail:+; }found $det times, not once"
		[ "$rec" = 1 ] || fail+="${fail:+; }rebuilt $rec times, not once"
		# The stalled SQ sent nothing it held: dropped at the rebuild
		# (tx_dropped), never in tx_packets. ICMP has no checksum the
		# device verifies (rx_csum_none).
		judge 0 tx_hang tx_timeout tx_recover tx_dropped rx_csum_none
		if [ -z "$fail" ]; then
			tap_ok "$desc"
		else
			tap_not_ok "$desc: $fail"
		fi
	fi
	if [ "$flows" = ok ]; then
		tap_ok "after stall_sqn: traffic flows again (RX on both ports within 5 s)"
	else
		tap_not_ok "after stall_sqn: traffic flows again"
		tap_diag <<< "$flows"
	fi
	laps_out
}

# isolate: no IPv6 address on the ports (no link-local address: no
# router solicitation, no MLD report) and static neighbours (no ARP):
# only the tests' own frames move. Again after a port went down.
isolate() {
	local i
	# Through the pinned process's own sysfs, else (nsexec has not
	# mounted it yet) through a new one. read, not $(< FILE): under
	# set -e bash exits when $(< FILE) cannot open FILE, even before ||.
	for i in 0 1; do
		{ read -r "mac[i]" < "/proc/${ns_pids[i]}/root/sys/class/net/cxen$i/address"; } 2>/dev/null ||
			mac[i]=$(nsexec "cx$i" cat "/sys/class/net/cxen$i/address")
	done
	# One ip per port ("to ::/0": IPv6 addresses only).
	for i in 0 1; do
		printf '%s\n' "link set cxen$i addrgenmode none" \
			"address flush dev cxen$i to ::/0" \
			"neigh replace 192.0.2.$((2 - i)) dev cxen$i lladdr ${mac[1 - i]} nud permanent" |
			ip -n "cx$i" -batch -
	done
}

# ---- queue errors and their recovery -----------------------------------

# reporter NAME: "ERRORS RECOVERIES STATE" of devlink health reporter NAME.
reporter() {
	local out
	out=$(devlink health show platform/cxsim reporter "$1" 2>&1) || {
		echo "devlink health show: $out"
		return 1
	}
	if [[ $out =~ state\ ([a-z]+)\ error\ ([0-9]+)\ recover\ ([0-9]+) ]]; then
		echo "${BASH_REMATCH[2]} ${BASH_REMATCH[3]} ${BASH_REMATCH[1]}"
		return 0
	fi
	echo "devlink health show: $out"
	return 1
}

# busiest sqs|rqs PORT: the number of the port's queue the device
# consumed most WQEs of (the one the traffic runs on).
busiest() {
	local q p c best=-1 n=""
	while read -r q p _ _ _ _ c _; do
		[ "$p" = "$2" ] && [ "$c" -gt "$best" ] || continue
		best=$c
		n=$q
	done < <(tail -n +2 "/sys/kernel/debug/cxsim/$1")
	echo "$n"
}

# wait_recovered REPORTER RECOVERIES SECONDS: until the reporter counted
# more than RECOVERIES; sets $took (s, one decimal). Fails on timeout.
wait_recovered() {
	local t0=${EPOCHREALTIME/./} e c st
	while :; do
		read -r e c st <<< "$(reporter "$1")"
		took=$(((${EPOCHREALTIME/./} - t0) / 100000))
		took="$((took / 10)).$((took % 10))"
		[ "${c:-0}" -le "$2" ] || return 0
		[ $((${EPOCHREALTIME/./} - t0)) -lt $(($3 * 1000000)) ] || return 1
		nap 0.2
	done
}

# qerror sq_error|rq_error|reset_fail: one queue error injected under
# traffic, its report, its recovery; two points.
qerror() {
	local name=$1 rep knob qt port qn s0 e0 c0 e1 c1 st1 flows desc v t
	local moving t_inj gap
	want "$name" || return 0
	fail=""
	case $name in
	sq_error | reset_fail) rep=tx knob=sq_error_sqn qt=sqs port=0 ;;
	rq_error) rep=rx knob=rq_error_rqn qt=rqs port=1 ;;
	esac
	if ! quietly window_start; then
		tap_not_ok "$name: $why"
		tap_not_ok "after $name: traffic flows again: the window did not run"
		return 0
	fi
	s0=$s_prev
	read -r e0 c0 _ <<< "$(reporter "$rep")"
	qn=$(busiest "$qt" "$port")
	if [ "$name" = reset_fail ]; then
		echo 0x033 > "$fault_dir/cmd_fail_opcode"	# MODIFY_SQ
		echo 1 > "$fault_dir/cmd_fail_count"
	fi
	t_inj=${EPOCHREALTIME/./}
	echo "$qn" > "$fault_dir/$knob"
	# Injected at the queue's next WQE (it carries the traffic).
	for ((t = 0; t < 100; t++)); do
		read -r v < "$fault_dir/$knob"
		[ "$v" != -1 ] || break
		nap 0.1
	done
	if [ "$name" = reset_fail ]; then
		# The reset is refused: wait for the report, then recover by hand.
		for ((t = 0; t < 100; t++)); do
			read -r v < "$fault_dir/cmd_fail_count"
			[ "$v" != 0 ] || break
			nap 0.1
		done
		read -r e1 c1 st1 <<< "$(reporter "$rep")"
		desc="$name: device refused the reset: reporter $rep error +$((e1 - e0)) recover +$((c1 - c0)) state $st1"
		[ "$st1" = error ] && [ "$c1" = "$c0" ] || fail="the reporter recovered a queue the device did not reset"
		devlink health recover platform/cxsim reporter "$rep" || fail+="${fail:+; }devlink health recover failed"
	fi
	if wait_recovered "$rep" "$c0" 30; then
		desc+="${desc:+; }recovered ${took} s after the injection"
	else
		fail+="${fail:+; }no recovery in 30 s"
	fi
	echo -1 > "$fault_dir/$knob"
	echo 0 > "$fault_dir/cmd_fail_count"
	lap "$name"
	flows=$(flowing 2>&1) && flows=ok
	gap=$(((${EPOCHREALTIME/./} - t_inj) / 100000))
	lap flowing
	read -r e1 c1 st1 <<< "$(reporter "$rep")"
	desc="$name on $qt $qn (port $port): reporter $rep error +$((e1 - e0)) recover +$((c1 - c0)) state $st1; $desc; traffic on both ports $((gap / 10)).$((gap % 10)) s after the injection"
	[ $((e1 - e0)) = 1 ] || fail+="${fail:+; }$((e1 - e0)) errors reported, not 1"
	[ $((c1 - c0)) = 1 ] || fail+="${fail:+; }$((c1 - c0)) recoveries, not 1"
	[ "$st1" = healthy ] || fail+="${fail:+; }reporter $st1"
	if ! quietly window_end; then
		tap_not_ok "$desc: $why"
	else
		load "$s0" "$s_prev"
		case $name in
		sq_error)
			v=$((${D[fault_sq_errors]:-0}))
			desc+=", injected $v, tx_recover +${D[tx_recover]:-0}, tx_err_cqe +${D[tx_err_cqe]:-0}, tx_dropped +${D[tx_dropped]:-0}"
			[ "${D[tx_recover]:-0}" = 1 ] || fail+="${fail:+; }tx_recover +${D[tx_recover]:-0}"
			moving="tx_err_cqe tx_dropped tx_recover"
			;;
		reset_fail)
			v=$((${D[fault_sq_errors]:-0}))
			desc+=", injected $v, failed_cmds +${D[fault_failed_cmds]:-0}, recover_fail +${D[recover_fail]:-0}, tx_recover +${D[tx_recover]:-0}"
			[ "${D[recover_fail]:-0}" = 1 ] || fail+="${fail:+; }recover_fail +${D[recover_fail]:-0}"
			[ "${D[tx_recover]:-0}" = 1 ] || fail+="${fail:+; }tx_recover +${D[tx_recover]:-0}"
			# A stopped queue: the stack's watchdog may fire meanwhile.
			moving="tx_err_cqe tx_dropped tx_recover recover_fail tx_timeout"
			;;
		rq_error)
			v=$((${D[fault_rq_errors]:-0}))
			desc+=", injected $v, rx_recover +${D[rx_recover]:-0}, rx_err_cqe +${D[rx_err_cqe]:-0}, rx_flush_cqe +${D[rx_flush_cqe]:-0}, hw_rx_queue_error +${D[hw_rx_queue_error]:-0}"
			[ "${D[rx_recover]:-0}" = 1 ] || fail+="${fail:+; }rx_recover +${D[rx_recover]:-0}"
			[ "${D[rx_err_cqe]:-0}" = 1 ] || fail+="${fail:+; }rx_err_cqe +${D[rx_err_cqe]:-0}, not 1 (the frame that failed)"
			moving="rx_err_cqe rx_recover"
			;;
		esac
		[ "$v" = 1 ] || fail+="${fail:+; }injected $v, not 1"
		# shellcheck disable=SC2086 # a list of names
		judge 0 $moving
		if [ -z "$fail" ]; then
			tap_ok "$desc"
		else
			tap_not_ok "$desc: $fail"
		fi
	fi
	if [ "$flows" = ok ]; then
		tap_ok "after $name: traffic flows again (RX on both ports within 5 s)"
	else
		tap_not_ok "after $name: traffic flows again"
		tap_diag <<< "$flows"
	fi
	laps_out
}

# create_fail: CREATE_SQ refused once during ethtool -L, once during ip
# link set up; two points.
create_fail_ethtool() {
	local out
	echo 0x030 > "$fault_dir/cmd_fail_opcode"	# CREATE_SQ
	echo 1 > "$fault_dir/cmd_fail_count"
	if out=$(nsexec cx0 ethtool -L cxen0 combined 2 2>&1); then
		echo "ethtool -L succeeded with CREATE_SQ refused"
		return 1
	fi
	echo "ethtool -L: $out"
	out=$(nsexec cx0 ethtool -l cxen0 | awk '/^Current/ { c = 1 } c && /^Combined/ { print $2 }')
	[ "$out" = 1 ] || { echo "combined $out after the refusal, not 1"; return 1; }
	flowing
}

create_fail_up() {
	local out st
	nsexec cx0 ip link set cxen0 down
	echo 0x030 > "$fault_dir/cmd_fail_opcode"
	echo 1 > "$fault_dir/cmd_fail_count"
	if out=$(nsexec cx0 ip link set cxen0 up 2>&1); then
		echo "ip link set up succeeded with CREATE_SQ refused"
		return 1
	fi
	echo "ip link set up: $out"
	st=$(cat /proc/"${ns_pids[0]}"/root/sys/class/net/cxen0/operstate 2>/dev/null ||
	     nsexec cx0 cat /sys/class/net/cxen0/operstate)
	[ "$st" = down ] || { echo "operstate $st after the refused up"; return 1; }
	nsexec cx0 ip link set cxen0 up || return 1
	isolate
	rx_moves 30
}

create_fail() {
	want create_fail || return 0
	if ! quietly window_start; then
		tap_not_ok "create_fail: $why"
		tap_not_ok "create_fail: the window did not run"
		return 0
	fi
	tap_check "CREATE_SQ refused during ethtool -L 2: refused, the port keeps 1 channel and its traffic" create_fail_ethtool
	tap_check "CREATE_SQ refused during ip link set up: the port stays down, the next up works" create_fail_up
	echo 0 > "$fault_dir/cmd_fail_count"
	traffic_stop
	s_prev=
	laps_out create_fail
}

# ---- the device failing as a whole ---------------------------------------

# up_flag NS DEV: "UP" if DEV is administratively up, else "down".
up_flag() {
	if ip -n "$1" -o link show dev "$2" | grep -q '<[^>]*[<,]UP[,>]'; then
		echo UP
	else
		echo down
	fi
}

# rebuild_fail_check: after a reset whose rebuild could create no SQ.
rebuild_fail_check() {
	local e0 c0 e1 c1 st mark i msgs ring rc=0 f0 f1
	read -r e0 c0 _ <<< "$(reporter fw)"
	mark=$(dmesg | wc -l)
	echo 0x030 > "$fault_dir/cmd_fail_opcode"	# CREATE_SQ
	echo 1000 > "$fault_dir/cmd_fail_count"
	echo 1 > "$fault_dir/dev_fatal"
	for ((i = 0; i < 300; i++)); do
		f0=$(up_flag cx0 cxen0)
		f1=$(up_flag cx1 cxen1)
		[ "$f0$f1" != downdown ] || break
		nap 0.1
	done
	echo 0 > "$fault_dir/cmd_fail_count"
	read -r e1 c1 st <<< "$(reporter fw)"
	msgs=$(dmesg | tail -n +$((mark + 1)) | grep -c "port not restored after the device reset .*: brought down, 'ip link set up' tries again" || true)
	echo "after the failed rebuild: cxen0 $f0, cxen1 $f1; reporter fw error +$((e1 - e0)) recover +$((c1 - c0)) state $st; $msgs ports said so"
	[ "$f0$f1" = downdown ] && [ "$msgs" = 2 ] && [ $((e1 - e0)) = 1 ] || rc=1
	# An RX-only change on a port that lost its queues: taken for the next up.
	nsexec cx0 ethtool -G cxen0 rx 512 || { echo "ethtool -G cxen0 rx 512 refused on the down port"; rc=1; }
	devlink health recover platform/cxsim reporter fw || { echo "devlink health recover failed"; rc=1; }
	read -r e1 c1 st <<< "$(reporter fw)"
	[ "$st" = healthy ] || { echo "reporter $st after devlink health recover"; rc=1; }
	nsexec cx0 ip link set cxen0 up && nsexec cx1 ip link set cxen1 up || rc=1
	cxen_pair_wait_carrier || rc=1
	isolate
	ring=$(nsexec cx0 ethtool -g cxen0 | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2; exit }')
	echo "up again: cxen0 RX ring $ring"
	[ "$ring" = 512 ] || rc=1
	nsexec cx0 ping -c 3 -i 0.2 -W 5 192.0.2.2 > /dev/null || { echo "no ping after the ports came up"; rc=1; }
	nsexec cx0 ethtool -G cxen0 rx 1024 || rc=1
	return $rc
}

rebuild_fail() {
	want rebuild_fail || return 0
	traffic_stop
	s_prev=
	devlink health set platform/cxsim reporter fw grace_period 0
	tap_check "device reset with every CREATE_SQ refused at the rebuild: the ports brought down, -G rx taken, up again works" rebuild_fail_check
	echo 0 > "$fault_dir/cmd_fail_count"
	tap_check "after rebuild_fail: iperf3 cx0 -> cx1 3 s" iperf3_run cx1 192.0.2.2 cx0 3
	laps_out rebuild_fail
}

# value_of FILE NAME: the value of FILE's "NAME VALUE" line, 0 if none
# (read in bash: an exec costs most of a second on the debug kernel).
value_of() {
	local k v
	while read -r k v; do
		[ "$k" != "$2" ] || { echo "$v"; return 0; }
	done < "$1"
	echo 0
}

# cxsim's device counter NAME.
dev_count() { value_of /sys/kernel/debug/cxsim/dev "$1"; }

# port_config: both ports' MTU, channels, rings and RX coalescing; one
# netns entry per port for its three ethtool reads, both ports at once,
# parsed in bash.
port_config() {
	local i mtu s c k v line t=/tmp/cxen-cfg.$BASHPID
	local -a p=()
	for i in 0 1; do
		nsexec "cx$i" sh -c 'ethtool -l "$1"; ethtool -g "$1"; ethtool -c "$1"' sh "cxen$i" \
			> "$t.$i" 2>&1 &
		p[i]=$!
	done
	for i in 0 1; do
		wait "${p[i]}"
		{ read -r mtu < "/proc/${ns_pids[i]}/root/sys/class/net/cxen$i/mtu"; } 2>/dev/null ||
			mtu=$(nsexec "cx$i" cat "/sys/class/net/cxen$i/mtu")
		echo "cxen$i mtu $mtu"
		s='' c='' line=''
		while read -r k v _; do
			case $k in
			Channel) s=l c='' ;;
			Ring) s=g c='' ;;
			Coalesce) s=c ;;
			Current) c=1 ;;
			Combined:) [ "$s$c" != l1 ] || line+="combined $v " ;;
			RX: | TX:) [ "$s$c" != g1 ] || line+="$k $v " ;;
			rx-usecs: | rx-frames:) [ "$s" != c ] || line+="$k $v " ;;
			esac
		done < "$t.$i"
		echo "$line"
	done
	rm -f "$t.0" "$t.1"
}

# channels_in CONFIG PORT: the port's channel count in a port_config output.
channels_in() {
	local -a l
	mapfile -t l <<< "$1"
	[[ ${l[$2 * 2 + 1]} =~ ^combined\ ([0-9]+)\  ]] && echo "${BASH_REMATCH[1]}"
}

# devfault dev_hang|dev_fatal|cmd_hang|destroy_fail|dev_reset_fail: the device lost
# under traffic, reset and rebuilt; two points.
devfault() {
	local name=$1 s0 e0 c0 e1 c1 st1 r0 r1 fr0 fr1 cfg0 cfg1 flows desc="" out
	local t want_cfg ch t_inj gap
	want "$name" || return 0
	fail=""
	if ! quietly window_start; then
		tap_not_ok "$name: $why"
		tap_not_ok "after $name: traffic flows again: the window did not run"
		return 0
	fi
	s0=$s_prev
	read -r e0 c0 _ <<< "$(reporter fw)"
	r0=$(dev_count resets)
	fr0=$(value_of "$fault_dir/counters" failed_resets)
	cfg0=$(port_config)
	want_cfg=$cfg0
	t_inj=${EPOCHREALTIME/./}
	case $name in
	dev_hang)
		echo 1 > "$fault_dir/dev_hang"
		;;
	dev_fatal)
		echo 1 > "$fault_dir/dev_fatal"
		;;
	cmd_hang)
		ch=$(channels_in "$cfg0" 1)
		echo 0x041 > "$fault_dir/cmd_hang_opcode"	# DESTROY_RQ
		if out=$(nsexec cx1 ethtool -L cxen1 combined $((ch + 1)) 2>&1); then
			want_cfg=$(sed "4s/^combined $ch /combined $((ch + 1)) /" <<< "$cfg0")
		fi
		desc="ethtool -L cxen1 combined $((ch + 1)) with DESTROY_RQ hung: ${out:-done}; "
		;;
	destroy_fail)
		ch=$(channels_in "$cfg0" 0)
		echo 0x031 > "$fault_dir/cmd_fail_opcode"	# DESTROY_SQ
		echo 1 > "$fault_dir/cmd_fail_count"
		if out=$(nsexec cx0 ethtool -L cxen0 combined $((ch + 1)) 2>&1); then
			want_cfg=$(sed "2s/^combined $ch /combined $((ch + 1)) /" <<< "$cfg0")
		fi
		desc="ethtool -L cxen0 combined $((ch + 1)) with DESTROY_SQ refused: ${out:-done}; "
		;;
	dev_reset_fail)
		echo 1 > "$fault_dir/reset_fail"
		echo 2 > "$fault_dir/dev_fatal"
		# The automatic recovery's reset times out (2 s): wait for it.
		for ((t = 0; t < 200; t++)); do
			[ "$(value_of "$fault_dir/counters" failed_resets)" = "$fr0" ] || break
			nap 0.1
		done
		nap 1
		read -r e1 c1 st1 <<< "$(reporter fw)"
		desc="reset ignored: reporter fw error +$((e1 - e0)) recover +$((c1 - c0)) state $st1; "
		[ "$st1" = error ] && [ "$c1" = "$c0" ] ||
			fail="the reporter recovered a device that did not reset"
		devlink health recover platform/cxsim reporter fw ||
			fail+="${fail:+; }devlink health recover failed"
		;;
	esac
	if wait_recovered fw "$c0" 60; then
		desc+="recovered ${took} s after the injection"
	else
		fail+="${fail:+; }no recovery in 60 s"
	fi
	lap "$name"
	isolate
	flows=$(rx_moves 30 2>&1) && flows=ok
	gap=$(((${EPOCHREALTIME/./} - t_inj) / 100000))
	lap flowing
	read -r e1 c1 st1 <<< "$(reporter fw)"
	r1=$(dev_count resets)
	fr1=$(value_of "$fault_dir/counters" failed_resets)
	cfg1=$(port_config)
	lap checks
	desc="$name: reporter fw error +$((e1 - e0)) recover +$((c1 - c0)) state $st1, device resets +$((r1 - r0)), failed +$((fr1 - fr0)); $desc; traffic on both ports $((gap / 10)).$((gap % 10)) s after the injection"
	[ $((e1 - e0)) = 1 ] || fail+="${fail:+; }$((e1 - e0)) errors reported, not 1"
	[ $((c1 - c0)) = 1 ] || fail+="${fail:+; }$((c1 - c0)) recoveries, not 1"
	[ "$st1" = healthy ] || fail+="${fail:+; }reporter $st1"
	[ $((r1 - r0)) = 1 ] || fail+="${fail:+; }$((r1 - r0)) device resets, not 1"
	if [ "$cfg1" != "$want_cfg" ]; then
		fail+="${fail:+; }configuration not restored: before [$(tr '\n' ';' <<< "$want_cfg")] after [$(tr '\n' ';' <<< "$cfg1")]"
	fi
	if ! quietly window_end; then
		tap_not_ok "$desc: $why"
	else
		load "$s0" "$s_prev"
		desc+=", tx_dropped +${D[tx_dropped]:-0}, tx_timeout +${D[tx_timeout]:-0}"
		judge 0 tx_dropped tx_timeout tx_hang
		if [ -z "$fail" ]; then
			tap_ok "$desc"
		else
			tap_not_ok "$desc: $fail"
		fi
	fi
	if [ "$flows" = ok ]; then
		tap_ok "after $name: traffic flows again (RX on both ports within 30 s)"
	else
		tap_not_ok "after $name: traffic flows again"
		tap_diag <<< "$flows"
	fi
	laps_out
}

# devfaults: port 0 away from its defaults, the fw reporter's grace
# period 0 (each phase recovers by itself), the phases, defaults back.
devfaults() {
	local n any=
	for n in dev_hang dev_fatal cmd_hang destroy_fail dev_reset_fail; do
		! want "$n" || any=1
	done
	[ -n "$any" ] || return 0
	traffic_stop
	s_prev=
	nsexec cx0 ethtool -G cxen0 rx 512 tx 512
	nsexec cx0 ethtool -C cxen0 adaptive-rx off rx-usecs 20 rx-frames 16
	devlink health set platform/cxsim reporter fw grace_period 0
	isolate
	for n in dev_hang dev_fatal cmd_hang destroy_fail dev_reset_fail; do
		devfault "$n"
	done
	traffic_stop
	s_prev=
	nsexec cx0 ethtool -G cxen0 rx 1024 tx 1024
	nsexec cx0 ethtool -C cxen0 rx-usecs 16 rx-frames 44
	nsexec cx1 ethtool -L cxen1 combined 1
	nsexec cx0 ethtool -L cxen0 combined 1
	isolate
}

# ---- an RQ the device cannot give back ----------------------------------

# The UDP port the held datagrams go to, in hex as /proc/net/udp shows it.
leak_port=7777
leak_port_hex=1E61
# The receiver's pid, for whoever must end it (rq_leak_check runs in
# tap_check's subshell; cleanup()).
leak_pidf=/tmp/cxen-leak-rx.pid

leak_rx_stop() {
	local p
	if [ -s "$leak_pidf" ] && read -r p < "$leak_pidf"; then
		kill -KILL "$p" 2>/dev/null || true
	fi
	rm -f "$leak_pidf" "$leak_pidf.log"
}

# queue_rx: cxen1's per-queue rx<q>_packets, "q n" lines (totals over the
# port's life, by queue index).
queue_rx() {
	local t=/tmp/cxen-qrx.$BASHPID k v
	nsexec cx1 ethtool -S cxen1 > "$t" || { rm -f "$t"; return 1; }
	while read -r k v; do
		[[ $k =~ ^rx([0-9]+)_packets:$ ]] && echo "${BASH_REMATCH[1]} $v"
	done < "$t"
	rm -f "$t"
}

# udp_held: "RX_QUEUE_BYTES DROPS" of the held socket in cx1's
# /proc/net/udp, nothing once it is gone.
udp_held() {
	local -a f
	while read -r -a f; do
		[[ ${f[1]} == *":$leak_port_hex" ]] || continue
		echo "$((16#${f[4]#*:})) ${f[12]}"
		return 0
	done < "/proc/${ns_pids[1]}/net/udp"
}

# rq_leak_hold: a UDP socket of cx1 that never reads (its process,
# pid in the caller's $leak_rx, only sleeps) takes 512 datagrams of 1200
# bytes (above rx_copybreak: each skb holds a page of its RQ's page_pool)
# from 64 source ports of cx0, which RSS spreads over cxen1's 4 queues.
# The caller's $held says what holds them; fails unless every queue
# received some and the socket holds them.
rq_leak_hold() {
	local log=$leak_pidf.log q n i ok=1 b0 bytes drops
	declare -A a=()
	nsexec cx1 python3 -c '
import signal, socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE
s.bind(("192.0.2.2", '"$leak_port"'))
print("bound", flush=True)
signal.pause()
' > "$log" 2>&1 &
	leak_rx=$!
	echo "$leak_rx" > "$leak_pidf"
	for ((i = 0; i < 300; i++)); do
		! grep -q bound "$log" 2>/dev/null || break
		nap 0.1
	done
	grep -q bound "$log" || { echo "the receiver did not bind in 30 s: $(cat "$log")"; return 1; }
	while read -r q n; do a[$q]=$n; done < <(queue_rx)
	nsexec cx0 python3 -c '
import socket
for p in range(64):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("192.0.2.1", 30000 + p))
    for i in range(8):
        s.sendto(b"x" * 1200, ("192.0.2.2", '"$leak_port"'))
    s.close()
' || { echo "the sender failed"; return 1; }
	# Until the socket's queue stops growing.
	b0=-1
	for ((i = 0; i < 50; i++)); do
		nap 0.5
		read -r bytes drops <<< "$(udp_held)"
		[ "${bytes:-0}" != "$b0" ] || break
		b0=${bytes:-0}
	done
	held="socket rx_queue ${bytes:-none} bytes, drops ${drops:-none}; rx packets per queue:"
	while read -r q n; do
		[ -n "${a[$q]+x}" ] || continue
		held+=" rx$q +$((n - a[q]))"
		[ $((n - a[q])) -gt 0 ] || ok=0
	done < <(queue_rx)
	[ "${bytes:-0}" -gt 0 ] || { echo "$held: the socket holds nothing"; return 1; }
	[ "$ok" = 1 ] || { echo "$held: a queue received nothing"; return 1; }
	[ "${#a[@]}" = 4 ] || { echo "$held: ${#a[@]} queues, not 4"; return 1; }
}

# count_since MARK REGEX: kernel log lines after MARK matching REGEX.
count_since() {
	dmesg_since "$1" | grep -cE -- "$2" || true
}

# rq_leak_check: the point of the leak. cxen1 on 4 channels, a socket
# holding skbs of all 4 RQs' pools; ethtool -L combined 3 builds 3 new
# channels and frees the 4 old ones, with DESTROY_RQ refused once (the
# first old RQ) and the device reset that follows ignored: the device is
# dead, so none of the old queues can be given back and each is leaked
# (the log says so for each RQ), its channel and NAPI freed. The held
# skbs are then freed (the receiver killed: the socket's queue is purged
# from an RCU callback, in softirq): their pages go back to the leaked
# pools, which must no longer point at the freed NAPI (page_pool_napi_
# local() would read it: a KASAN use-after-free before the fix). The
# fw reporter stays in error (auto-recovery off for the phase).
rq_leak_check() {
	local mark e0 c0 e1 c1 st fc0 fc1 fr0 fr1 out ch nrq nsq i splats bytes
	local leak_rx held	# set by rq_leak_hold
	local klog=/tmp/cxen-leak-log.$BASHPID
	nsexec cx1 ethtool -L cxen1 combined 4 || { echo "ethtool -L cxen1 combined 4 failed"; return 1; }
	rq_leak_hold || return 1
	echo "held before the leak: $held"
	read -r e0 c0 _ <<< "$(reporter fw)"
	fc0=$(value_of "$fault_dir/counters" failed_cmds)
	fr0=$(value_of "$fault_dir/counters" failed_resets)
	mark=$(dmesg_mark)
	echo 0x041 > "$fault_dir/cmd_fail_opcode"	# DESTROY_RQ
	echo 1 > "$fault_dir/cmd_fail_count"
	echo 1 > "$fault_dir/reset_fail"
	out=$(nsexec cx1 ethtool -L cxen1 combined 3 2>&1) || { echo "ethtool -L cxen1 combined 3: $out"; return 1; }
	echo 0 > "$fault_dir/cmd_fail_count"
	echo 0 > "$fault_dir/reset_fail"
	ch=$(nsexec cx1 ethtool -l cxen1 | awk '/^Current/ { c = 1 } c && /^Combined/ { print $2 }')
	fc1=$(value_of "$fault_dir/counters" failed_cmds)
	fr1=$(value_of "$fault_dir/counters" failed_resets)
	nap 1
	read -r e1 c1 st <<< "$(reporter fw)"
	nrq=$(count_since "$mark" "cxen1: RQ [0-9]+: the device may still write into it")
	nsq=$(count_since "$mark" "cxen1: SQ [0-9]+: the device may still use it")
	echo "ethtool -L cxen1 combined 3 with DESTROY_RQ refused and the reset ignored: combined $ch, failed_cmds +$((fc1 - fc0)), failed_resets +$((fr1 - fr0)), reporter fw error +$((e1 - e0)) recover +$((c1 - c0)) state $st; $nrq RQs and $nsq SQs leaked"
	[ "$ch" = 3 ] || { echo "combined $ch, not 3"; return 1; }
	if [ $((fc1 - fc0)) != 1 ] || [ $((fr1 - fr0)) != 1 ]; then
		echo "the faults were not injected once each"
		return 1
	fi
	if [ $((e1 - e0)) != 1 ] || [ "$c1" != "$c0" ] || [ "$st" != error ]; then
		echo "the fw reporter did not stay in error with one report"
		return 1
	fi
	[ "$nrq" = 4 ] || { echo "$nrq RQs leaked, not the 4 old ones"; return 1; }
	read -r bytes _ <<< "$(udp_held)"
	[ "${bytes:-0}" -gt 0 ] || { echo "the socket no longer holds anything before it is closed"; return 1; }
	# Free the held skbs: the socket goes, its queue is purged after a
	# grace period (SOCK_RCU_FREE), from the RCU callback.
	kill -KILL "$leak_rx" 2>/dev/null || true
	wait "$leak_rx" 2>/dev/null || true
	rm -f "$leak_pidf" "$leak_pidf.log"
	for ((i = 0; i < 100; i++)); do
		[ -n "$(udp_held)" ] || break
		nap 0.1
	done
	[ -z "$(udp_held)" ] || { echo "the socket is still there 10 s after its process was killed"; return 1; }
	nap 3
	dmesg_since "$mark" > "$klog" || { echo "mark not in the kernel log"; rm -f "$klog"; return 1; }
	splats=$(cxen_splats "$klog")
	rm -f "$klog"
	if [ -n "$splats" ]; then
		echo "the held skbs were freed ($bytes bytes) with the splat:"
		echo "$splats" | head -5
		return 1
	fi
	echo "the held skbs freed ($bytes bytes) into the leaked pools: no splat"
}

# rq_leak_recover: `devlink health recover` resets the device: the 4
# parked channels' memory (pools, rings, buffers) is freed (the log says
# so for each), the reporter is healthy, the device reset once, cxen1
# keeps its 3 channels and traffic flows.
rq_leak_recover() {
	local mark e0 c0 e1 c1 st r0 r1 n ch
	read -r e0 c0 _ <<< "$(reporter fw)"
	r0=$(dev_count resets)
	mark=$(dmesg_mark)
	devlink health recover platform/cxsim reporter fw || { echo "devlink health recover failed"; return 1; }
	wait_recovered fw "$c0" 30 || { echo "no recovery in 30 s"; return 1; }
	read -r e1 c1 st <<< "$(reporter fw)"
	r1=$(dev_count resets)
	n=$(count_since "$mark" "cxen1: channel [0-9]+: the memory kept after the device failed is freed")
	cxen_pair_wait_carrier || return 1
	isolate
	ch=$(nsexec cx1 ethtool -l cxen1 | awk '/^Current/ { c = 1 } c && /^Combined/ { print $2 }')
	echo "recovered in $took s: reporter fw recover +$((c1 - c0)) state $st, device resets +$((r1 - r0)), $n parked channels freed, cxen1 combined $ch"
	[ "$st" = healthy ] && [ $((c1 - c0)) = 1 ] || return 1
	[ $((r1 - r0)) = 1 ] || return 1
	[ "$n" = 4 ] || { echo "$n parked channels freed, not 4"; return 1; }
	[ "$ch" = 3 ] || return 1
	nsexec cx0 ping -c 3 -i 0.2 -W 5 192.0.2.2 > /dev/null || { echo "no ping cx0 -> cx1"; return 1; }
	iperf3_run cx1 192.0.2.2 cx0 3
}

rq_leak() {
	want rq_leak || return 0
	traffic_stop
	s_prev=
	isolate
	devlink health set platform/cxsim reporter fw auto_recover false
	tap_check "RQs leaked under a socket holding their pages (DESTROY_RQ refused, reset ignored, ethtool -L cxen1 4 -> 3): leak logged, the held skbs freed with no splat" rq_leak_check
	leak_rx_stop
	echo 0 > "$fault_dir/cmd_fail_count"
	echo 0 > "$fault_dir/reset_fail"
	tap_check "after rq_leak: devlink health recover frees the parked channels, cxen1 keeps 3 channels, ping and iperf3 cx0 -> cx1" rq_leak_recover
	devlink health set platform/cxsim reporter fw auto_recover true
	nsexec cx1 ethtool -L cxen1 combined 1 || true
	isolate
	laps_out rq_leak
}

# fail_cfg DIR PERCENT: a fault-injection attribute set to fail PERCENT
# of its calls, at most fail_times of them: each failure counts $DIR/times
# down (fail_injected DIR reads how many failed).
fail_times=1000000
fail_cfg() {
	local dir=$1
	echo 0 > "$dir/verbose"
	echo 1 > "$dir/interval"
	echo "$fail_times" > "$dir/times"
	echo "$2" > "$dir/probability"
}

# fail_injected DIR: the failures DIR injected since fail_cfg.
fail_injected() {
	echo $((fail_times - $(cat "$1/times")))
}

# pressure NAME SECONDS MUST_COUNT DIR: injection through DIR (a
# fault-injection attribute, fail_cfg) set up by the caller, off by the
# caller after this. The traffic runs (from the stall's window on);
# $s_prev is the starting point, and the end point, read after injection
# stopped, is the next phase's (rx_alloc_fail cannot move without
# injection). Reads how many failures DIR injected.
pressure() {
	local name=$1 secs=$2 must=$3 dir=$4 s0 af out
	s0=$s_prev
	if out=$(no_stall "$secs"); then
		pressure_ok=1
		pressure_desc="$name for ${secs} s: RX on both ports every second"
	else
		pressure_ok=0
		pressure_desc="$name for ${secs} s: traffic stalled: $out"
	fi
	pressure_inj=$(fail_injected "$dir")
	pressure_must=$must
	pressure_s0=$s0
	lap pressure
}

# pressure_end: after injection stopped, the point of the phase: traffic
# never stalled, the kernel failed allocations ($pressure_inj > 0: a
# phase that injected nothing tested nothing) and, with MUST_COUNT, the
# driver counted some (rx_alloc_fail). Frames are conserved over all the
# phases together, from still points (mem_conserved).
pressure_end() {
	local af
	s_prev=$(snap)
	lap "ethtool -S"
	load "$pressure_s0" "$s_prev"
	af=${D[rx_alloc_fail]:-0}
	pressure_desc+=", $pressure_inj allocations failed, rx_alloc_fail +$af, rx_packets +${D[rx_packets]:-0}"
	if [ "$pressure_ok" = 1 ] && [ "$pressure_inj" -gt 0 ] &&
	   { [ "$pressure_must" = 0 ] || [ "$af" -gt 0 ]; }; then
		tap_ok "$pressure_desc"
	elif [ "$pressure_ok" = 1 ] && [ "$pressure_inj" = 0 ]; then
		tap_not_ok "$pressure_desc: nothing injected"
	elif [ "$pressure_ok" = 1 ]; then
		tap_not_ok "$pressure_desc: the driver counted none"
	else
		tap_not_ok "$pressure_desc"
	fi
}

# pp_ring_refused: an RX ring change while every page_pool allocation
# fails (fail_function armed on page_pool_alloc_pages). The new RQ is
# built beside the running one (per-queue restart) and cannot be filled:
# the change is refused, the ring size stays, the pool was let go with
# the live NAPI stopped (page_pool_destroy() would WARN otherwise), and
# the port receives on.
pp_ring_refused() {
	local before after want out rc=0
	before=$(nsexec cx1 ethtool -g cxen1 | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2; exit }')
	want=$((before == 512 ? 1024 : 512))
	fail_cfg "$dbg/fail_function" 100
	if out=$(nsexec cx1 ethtool -G cxen1 rx "$want" 2>&1); then
		echo "ethtool -G cxen1 rx $want accepted with no page to fill it"
		rc=1
	fi
	fail_cfg "$dbg/fail_function" 0
	after=$(nsexec cx1 ethtool -g cxen1 | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2; exit }')
	[ "$after" = "$before" ] || { echo "RX ring $before -> $after"; rc=1; }
	desc="RX ring change with every page_pool allocation failing: refused ($(tr '\n' ' ' <<< "$out" | cut -c1-120)), ring $after as before"
	if [ "$rc" = 0 ] && ! flowing > /dev/null; then
		echo "no traffic after it"
		rc=1
	fi
	if [ "$rc" = 0 ]; then tap_ok "$desc, traffic flows"; else tap_not_ok "$desc"; fi
}

# The memory pressure phases run under the traffic as it is; start it if
# the last window did not leave it running.
pressure_start() {
	if [ -z "$s_prev" ] || [ ${#traffic_pids[@]} = 0 ]; then
		if [ -z "$s_prev" ]; then
			s_prev=$(snap)
		fi
		traffic_start
		rx_moves 30 > /dev/null || true
		lap "iperf3 start"
	fi
}

# ---- main -----------------------------------------------------------------

echo "# kernel $(uname -r) ($CXEN_KERNEL)"
tap_plan "$planned"
ns_pin
isolate
lap setup
if quietly window_start; then
	tap_ok "traffic flows both ways"
else
	tap_not_ok "traffic flows both ways: $why"
fi
laps_out

# ---- hostile device -----------------------------------------------------
for k in "${knobs[@]}"; do
	# shellcheck disable=SC2086 # name value seconds
	knob $k
	# The next window starts from the end point just read.
done
stall
qerror sq_error
qerror rq_error
qerror reset_fail
create_fail
devfaults
rebuild_fail
rq_leak

# ---- memory pressure ----------------------------------------------------
pressure_phase() {
	local name=$1
	want "$name" || return 0
	pressure_start
	case "$name" in
	pp)
		if [ ! -d "$dbg/fail_function" ]; then
			tap_not_ok "fail_function: $dbg/fail_function missing (CONFIG_FAIL_FUNCTION)"
			tap_not_ok "after fail_function: not run"
			return 0
		fi
		echo page_pool_alloc_pages > "$dbg/fail_function/inject"
		fail_cfg "$dbg/fail_function" 10
		pressure "fail_function page_pool_alloc_pages 10%" 6 1 "$dbg/fail_function"
		fail_cfg "$dbg/fail_function" 0
		pressure_end
		tap_check "after fail_function: traffic flows again" flowing
		pp_ring_refused
		echo > "$dbg/fail_function/inject"
		;;
	slab)
		if [ ! -d "$dbg/failslab" ] || [ ! -e /sys/kernel/slab/skbuff_head_cache/failslab ]; then
			tap_not_ok "failslab: $dbg/failslab or /sys/kernel/slab/skbuff_head_cache/failslab missing"
			tap_not_ok "after failslab: not run"
			return 0
		fi
		echo 1 > /sys/kernel/slab/skbuff_head_cache/failslab
		echo Y > "$dbg/failslab/cache-filter"
		echo Y > "$dbg/failslab/ignore-gfp-wait"
		# 20%: NAPI's per-CPU skb cache refills in bulk and is fed by
		# recycled skbs, so few allocations reach the slab (+7 in
		# 3873 frames at 10%; +0 once on a loaded host).
		fail_cfg "$dbg/failslab" 20
		pressure "failslab skbuff_head_cache atomic 20%" 6 1 "$dbg/failslab"
		fail_cfg "$dbg/failslab" 0
		echo 0 > /sys/kernel/slab/skbuff_head_cache/failslab
		pressure_end
		tap_check "after failslab: traffic flows again" flowing
		;;
	pagealloc)
		if [ ! -d "$dbg/fail_page_alloc" ]; then
			tap_not_ok "fail_page_alloc: $dbg/fail_page_alloc missing"
			tap_not_ok "after fail_page_alloc: not run"
			return 0
		fi
		echo Y > "$dbg/fail_page_alloc/ignore-gfp-wait"
		echo N > "$dbg/fail_page_alloc/ignore-gfp-highmem"
		echo 0 > "$dbg/fail_page_alloc/min-order"
		fail_cfg "$dbg/fail_page_alloc" 10
		pressure "fail_page_alloc atomic 10%" 6 0 "$dbg/fail_page_alloc"
		fail_cfg "$dbg/fail_page_alloc" 0
		pressure_end
		tap_check "after fail_page_alloc: traffic flows again" flowing
		;;
	esac
}
# mem_conserved S0: from the still point S0 before the memory pressure to
# one now, traffic stopped: every frame sent was received or counted as
# dropped, in each direction.
mem_conserved() {
	fail=""
	traffic_stop
	if ! snapshot; then
		s_prev=
		tap_not_ok "memory pressure: frames conserved in each direction: no still point after it"
		return 0
	fi
	s_prev=$snapv
	load "$1" "$s_prev"
	conserved 0
	if [ -z "$fail" ]; then
		tap_ok "memory pressure: frames conserved in each direction: cxen0 TX +${D[cxen0.tx_packets]:-0}, cxen1 TX +${D[cxen1.tx_packets]:-0}, RX +${D[rx_packets]:-0}, $drops counted drops (rx_skb_alloc_fail +${D[rx_skb_alloc_fail]:-0}, hw_rx_out_of_buffer +${D[hw_rx_out_of_buffer]:-0}; rx_alloc_fail +${D[rx_alloc_fail]:-0})"
	else
		tap_not_ok "memory pressure: frames conserved in each direction: $fail (rx_skb_alloc_fail +${D[rx_skb_alloc_fail]:-0}, hw_rx_out_of_buffer +${D[hw_rx_out_of_buffer]:-0}, rx_alloc_fail +${D[rx_alloc_fail]:-0})"
	fi
}

mem_s0=
if want pp || want slab || want pagealloc; then
	# A still starting point for mem_conserved.
	traffic_stop
	if snapshot; then s_prev=$snapv; mem_s0=$snapv; else s_prev=; fi
fi
for p in pp slab pagealloc; do
	want "$p" || continue
	pressure_phase "$p"
	laps_out
done
if want pp || want slab || want pagealloc; then
	if [ -n "$mem_s0" ]; then
		mem_conserved "$mem_s0"
	else
		tap_not_ok "memory pressure: frames conserved in each direction: no still point before it"
	fi
fi

traffic_stop
tap_check_both "IPv4 ping cx0 -> cx1" "IPv4 ping cx1 -> cx0" \
	nsexec cx0 ping -c 3 -i 0.2 -W 5 192.0.2.2 -- nsexec cx1 ping -c 3 -i 0.2 -W 5 192.0.2.1
tap_check_both "iperf3 cx0 -> cx1 3 s" "iperf3 cx1 -> cx0 3 s (both at once)" \
	iperf3_run cx1 192.0.2.2 cx0 3 -- iperf3_run cx0 192.0.2.1 cx1 3
laps_out "ping, iperf3"
echo "# injected in all (cxsim fault counters):"
tap_diag < "$fault_dir/counters"
if [ -n "$s_prev" ]; then
	echo "# driver counters (both ports) after the last phase:"
	grep -E '^(rx_csum_none|rx_err_cqe|rx_bad_cqe|rx_oversize|rx_alloc_fail|tx_err_cqe|tx_timeout|tx_hang|tx_recover|tx_dropped|tx_queue_stop) ' <<< "$s_prev" | sort | tap_diag
fi
tap_done
