#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Hostile device and memory pressure under load (TAP output).
#
#   tests/reliability/faults.sh [tests/vm/run options]   on the host:
#       boots the debug kernel (KASAN catches reads past buffers) with
#       --pair and runs itself inside.
#
# With iperf3 running both ways all along:
#
# Hostile device: each fault knob of the model in turn, for a few
# seconds; the model's own counter must count injections, the driver's
# counter for that fault must count exactly as many where one maps to it
# (bad length -> rx_oversize, error CQE -> rx_err_cqe, bad WQE index ->
# rx_bad_cqe + tx_err_cqe, corrupted checksum -> the receiving device's
# hw_rx_csum_bad), a stalled SQ held 10 s under a ping flood (past the
# 5 s watchdog period) must be found (tx_hang, or tx_timeout if its
# queue stopped) and rebuilt (tx_recover); then traffic must flow again
# (RX packets grow on both ports within 5 s).
#
# Memory pressure (the debug kernel's fault injection; the stack-trace
# filter is not built in, so the restriction is by target):
#   fail_function on page_pool_alloc_pages (only cxen uses page_pool in
#     the VM): 10% of calls fail;
#   failslab with cache-filter on skbuff_head_cache only, atomic
#     (ignore-gfp-wait): 10% fail;
#   fail_page_alloc, atomic order-0 and up (ignore-gfp-wait): 10% fail,
#     system-wide.
# Each for 6 s: RX packets must grow on both ports every second (no
# stall), rx_alloc_fail must count (page_pool and slab phases), and after
# injection stops traffic must flow again. At the end: ping both ways
# and iperf3 each way.
#
# CXEN_FAULTS="cqe_error_every stall pp slab pagealloc" runs only those
# (knob names, stall, pp, slab, pagealloc); default all.
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../vm/run" --kernel debug --pair "$@" -- tests/reliability/faults.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"
. "$CXEN_ROOT/tests/reliability/lib.sh"

fault_dir=/sys/kernel/debug/cxsim/fault
dbg=/sys/kernel/debug

want() {
	[ -z "${CXEN_FAULTS:-}" ] && return 0
	case " $CXEN_FAULTS " in *" $1 "*) return 0 ;; esac
	return 1
}

rx_both() {
	local a b
	a=$(ip netns exec cx0 ethtool -S cxen0 | awk '$1 == "rx_packets:" { print $2 }')
	b=$(ip netns exec cx1 ethtool -S cxen1 | awk '$1 == "rx_packets:" { print $2 }')
	echo "$a $b"
}

# flowing: RX packets grow on both ports within 5 s.
flowing() {
	local a0 a1 b0 b1 i
	read -r a0 a1 <<< "$(rx_both)"
	for ((i = 0; i < 25; i++)); do
		sleep 0.2
		read -r b0 b1 <<< "$(rx_both)"
		if [ "$b0" -gt "$a0" ] && [ "$b1" -gt "$a1" ]; then
			return 0
		fi
	done
	echo "no traffic for 5 s: rx_packets cxen0 $a0 -> $b0, cxen1 $a1 -> $b1"
	return 1
}

# no_stall SECONDS: RX packets grow on both ports in every second.
no_stall() {
	local a0 a1 b0 b1 s
	read -r a0 a1 <<< "$(rx_both)"
	for ((s = 1; s <= $1; s++)); do
		sleep 1
		read -r b0 b1 <<< "$(rx_both)"
		if [ "$b0" -le "$a0" ] || [ "$b1" -le "$a1" ]; then
			echo "second $s: rx_packets cxen0 $a0 -> $b0, cxen1 $a1 -> $b1"
			return 1
		fi
		a0=$b0
		a1=$b1
	done
}

# knob NAME VALUE SECONDS FAULT_COUNTER [DRIVER_COUNTER...]: the fault
# counter must grow; the driver counters' sum must grow by exactly as much.
knob() {
	local name=$1 val=$2 secs=$3 fc=$4 s0 s1 inj drv=0 c d desc off=0
	shift 4
	want "$name" || return 0
	[ "$name" = stall_sqn ] && off=-1
	s0=$(snap)
	echo "$val" > "$fault_dir/$name"
	sleep "$secs"
	echo "$off" > "$fault_dir/$name"
	sleep 1
	s1=$(snap)
	inj=$(delta "$s0" "$s1" "fault_$fc")
	desc="$name=$val ${secs} s: $fc +$inj"
	for c in "$@"; do
		d=$(delta "$s0" "$s1" "$c")
		drv=$((drv + d))
		desc+=", $c +$d"
	done
	if [ "$inj" -le 0 ]; then
		tap_not_ok "$desc: nothing injected"
	elif [ $# -gt 0 ] && [ "$drv" != "$inj" ]; then
		tap_not_ok "$desc: the driver counted $drv, not $inj"
	else
		tap_ok "$desc"
	fi
	tap_check "after $name: traffic flows again" flowing
}

stall() {
	local sqn s0 s1 to hang rec desc
	want stall || return 0
	sqn=$(awk 'NR > 1 && $2 == 0 { print $1; exit }' /sys/kernel/debug/cxsim/sqs)
	s0=$(snap)
	echo "$sqn" > "$fault_dir/stall_sqn"
	# iperf3 runs both ways; a ping flood keeps every TX queue of cxen0
	# busy. The queue need not stop: the driver's hang check (tx_hang)
	# or the stack's watchdog (tx_timeout, stopped queues) must find it.
	ip netns exec cx0 ping -q -f -s 8000 -w 10 192.0.2.2 > /dev/null 2>&1 || true
	echo -1 > "$fault_dir/stall_sqn"
	sleep 1
	s1=$(snap)
	to=$(delta "$s0" "$s1" tx_timeout)
	hang=$(delta "$s0" "$s1" tx_hang)
	rec=$(delta "$s0" "$s1" tx_recover)
	desc="stall_sqn=$sqn (port 0) 10 s: stalled_runs +$(delta "$s0" "$s1" fault_stalled_runs), tx_hang +$hang, tx_timeout +$to, tx_recover +$rec"
	if [ "$(delta "$s0" "$s1" fault_stalled_runs)" -gt 0 ] && [ $((to + hang)) -ge 1 ] && [ "$rec" -ge 1 ]; then
		tap_ok "$desc"
	else
		tap_not_ok "$desc: not detected or not recovered"
	fi
	tap_check "after stall_sqn: traffic flows again" flowing
}

fail_cfg() {
	local dir=$1
	echo 0 > "$dir/verbose"
	echo 1 > "$dir/interval"
	echo -1 > "$dir/times"
	echo "$2" > "$dir/probability"
}

# pressure NAME SECONDS MUST_COUNT: injection set up by the caller, off by
# the caller's $off command.
pressure() {
	local name=$1 secs=$2 must=$3 s0 s1 af out
	s0=$(snap)
	if out=$(no_stall "$secs"); then
		s1=$(snap)
		af=$(delta "$s0" "$s1" rx_alloc_fail)
		if [ "$must" = 1 ] && [ "$af" -le 0 ]; then
			tap_not_ok "$name 10% for ${secs} s: traffic every second, but rx_alloc_fail +0"
		else
			tap_ok "$name 10% for ${secs} s: RX on both ports every second, rx_alloc_fail +$af," \
				"rx_packets +$(delta "$s0" "$s1" rx_packets)"
		fi
	else
		tap_not_ok "$name 10% for ${secs} s: traffic stalled"
		printf '%s\n' "$out" | tap_diag
	fi
}

echo "# kernel $(uname -r) ($CXEN_KERNEL)"
traffic_start
tap_check "traffic flows both ways" flowing

# ---- hostile device -----------------------------------------------------
knob drop_every 20 3 dropped
knob corrupt_csum_every 20 3 corrupted_csum hw_rx_csum_bad
knob cqe_bad_len_every 50 3 bad_len_cqes rx_oversize
knob cqe_bad_index_every 50 3 bad_index_cqes rx_bad_cqe tx_err_cqe
knob cqe_error_every 50 3 error_cqes rx_err_cqe
knob cqe_stale_owner_every 20 3 stale_owner_cqes
knob delay_us 100 3 delayed_wqes
stall

# ---- memory pressure ----------------------------------------------------
if ! want pp; then
	:
elif [ -d "$dbg/fail_function" ]; then
	echo page_pool_alloc_pages > "$dbg/fail_function/inject"
	fail_cfg "$dbg/fail_function" 10
	pressure "fail_function page_pool_alloc_pages" 6 1
	fail_cfg "$dbg/fail_function" 0
	echo > "$dbg/fail_function/inject"
	tap_check "after fail_function: traffic flows again" flowing
else
	tap_not_ok "fail_function: $dbg/fail_function missing (CONFIG_FAIL_FUNCTION)"
fi

if ! want slab; then
	:
elif [ -d "$dbg/failslab" ] && [ -e /sys/kernel/slab/skbuff_head_cache/failslab ]; then
	echo 1 > /sys/kernel/slab/skbuff_head_cache/failslab
	echo Y > "$dbg/failslab/cache-filter"
	echo Y > "$dbg/failslab/ignore-gfp-wait"
	fail_cfg "$dbg/failslab" 10
	pressure "failslab skbuff_head_cache atomic" 6 1
	fail_cfg "$dbg/failslab" 0
	echo 0 > /sys/kernel/slab/skbuff_head_cache/failslab
	tap_check "after failslab: traffic flows again" flowing
else
	tap_not_ok "failslab: $dbg/failslab or /sys/kernel/slab/skbuff_head_cache/failslab missing"
fi

if ! want pagealloc; then
	:
elif [ -d "$dbg/fail_page_alloc" ]; then
	echo Y > "$dbg/fail_page_alloc/ignore-gfp-wait"
	echo N > "$dbg/fail_page_alloc/ignore-gfp-highmem"
	echo 0 > "$dbg/fail_page_alloc/min-order"
	fail_cfg "$dbg/fail_page_alloc" 10
	pressure "fail_page_alloc atomic" 6 0
	fail_cfg "$dbg/fail_page_alloc" 0
	tap_check "after fail_page_alloc: traffic flows again" flowing
else
	tap_not_ok "fail_page_alloc: $dbg/fail_page_alloc missing"
fi

traffic_stop
tap_check "IPv4 ping cx0 -> cx1" ip netns exec cx0 ping -c 3 -i 0.2 -W 5 192.0.2.2
tap_check "IPv4 ping cx1 -> cx0" ip netns exec cx1 ping -c 3 -i 0.2 -W 5 192.0.2.1
tap_check "iperf3 cx0 -> cx1 3 s" iperf3_run cx1 192.0.2.2 cx0 3
tap_check "iperf3 cx1 -> cx0 3 s" iperf3_run cx0 192.0.2.1 cx1 3
echo "# injected in all (cxsim fault counters):"
tap_diag < "$fault_dir/counters"
echo "# driver counters (both ports):"
snap | grep -E '^(rx_err_cqe|rx_bad_cqe|rx_oversize|rx_alloc_fail|tx_err_cqe|tx_timeout|tx_hang|tx_recover|tx_dropped|tx_queue_stop|hw_rx_csum_bad) ' | sort | tap_diag
tap_done
