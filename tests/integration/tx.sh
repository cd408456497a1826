#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# TX path test, TAP output.
#
#   tests/integration/tx.sh [tests/vm/run options]   on the host: boots the
#       VM (stock kernel unless --kernel debug) with --pair, runs inside
#
# Inside the VM, with the cxen pair set up:
#   - the ethtool -S names of issues 4 and 5 exist (totals and per queue);
#   - payload integrity: a known byte stream cxen0 -> cxen1 over TCP, SHA-256
#     and length compared on the receiver, for TSO'd traffic (tso on,
#     tx-copybreak 0) and inline traffic (tso off, tx-copybreak 256, MSS 88
#     so every segment fits inline), at MTU 1500 and 9000, IPv4 and IPv6;
#     tx_tso_packets resp. tx_inline of cxen0 moved by the expected amount;
#   - BQL: a TX queue's byte_queue_limits/limit changes under an iperf3 load;
#   - TX timeout: with the model's stall_sqn knob on cxen0's SQ and a UDP
#     burst, the watchdog fires, tx_timeout and tx_recover count, and once
#     the knob is cleared traffic flows again;
#   - TX hang: the same knob with a few pings that leave the queue running
#     (BQL limit_min raised): the driver's own check counts tx_hang, the
#     SQ is rebuilt (tx_recover), no tx_timeout, traffic flows again;
#   - doorbell batching: devlink dev param show lists tx_doorbell_batch
#     (true) and rx_layout (auto); with tx_doorbell_batch set false
#     (read back) pktgen's bursts of 16 (xmit_more) ring a doorbell per
#     packet, set true again at most one per two packets.
#
# CXEN_TX_BYTES / CXEN_TX_INLINE_BYTES size the transfers (default 4 MiB and
# 256 KiB; a quarter of that on the debug kernel).
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/integration/tx.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"


scale=1
[ "$CXEN_KERNEL" != debug ] || scale=4
tso_bytes=${CXEN_TX_BYTES:-$((4 * 1024 * 1024 / scale))}
inline_bytes=${CXEN_TX_INLINE_BYTES:-$((256 * 1024 / scale))}
inline_mss=88
fault=/sys/kernel/debug/cxsim/fault

# The payload integrity matrix: each MTU, each address, each mode.
mtus=(1500 9000)
addrs=(192.0.2.2 fd00:c0::2)
modes=(tso inline)

# Points: the counter names; per MTU, setting it and one transfer per
# address and mode; back to MTU 1500; BQL; TX timeout; TX hang; the
# devlink parameters' defaults, doorbell batching off and on; iperf3; the
# counters.
tap_plan $((1 + ${#mtus[@]} * (1 + ${#addrs[@]} * ${#modes[@]}) + 1 + 3 + 2 + 2))

# --- counter names ------------------------------------------------------

counter_names() {
	local snap n missing=
	snap=$(stats_snap cx0 cxen0)
	for n in tx_packets tx_bytes tx_doorbell tx_tso_packets tx_inline \
		 tx_linearize tx_queue_stop tx_queue_wake tx_timeout tx_hang \
		 tx0_packets tx0_bytes \
		 rx_packets rx_bytes rx_dma_map rx_page_alloc rx_page_recycle \
		 rx_alloc_fail rx_gro_packets rx_gro_segs rx_truesize_bytes \
		 rx_copybreak rx_err_cqe rx0_packets rx0_bytes; do
		stat_of "$snap" "$n" >/dev/null || missing+=" $n"
	done
	if [ -n "$missing" ]; then
		echo "missing from ethtool -S:$missing"
		return 1
	fi
}

tap_check "ethtool -S has the counter names of issues 4 and 5" counter_names

# --- payload integrity ----------------------------------------------------

# integrity MODE MTU ADDR: one transfer cxen0 -> cxen1 in MODE tso|inline.
integrity() {
	local mode=$1 mtu=$2 addr=$3 bytes mss="" s0 s1 dtso dinl out
	if [ "$mode" = tso ]; then
		e0 -K cxen0 tso on && e0 --set-tunable cxen0 tx-copybreak 0 || return 1
		bytes=$tso_bytes
	else
		e0 -K cxen0 tso off && e0 --set-tunable cxen0 tx-copybreak 256 || return 1
		bytes=$inline_bytes
		mss=$inline_mss
	fi
	s0=$(stats_snap cx0 cxen0)
	out=$(xfer cx1 "$addr" cx0 "$bytes" "$mode-$mtu-$addr" $mss) || {
		echo "$out"
		return 1
	}
	s1=$(stats_snap cx0 cxen0)
	dtso=$(stat_delta "$s0" "$s1" tx_tso_packets)
	dinl=$(stat_delta "$s0" "$s1" tx_inline)
	echo "$out"
	echo "cxen0: tx_tso_packets +$dtso, tx_inline +$dinl"
	if [ "$mode" = tso ]; then
		[ "$dtso" -gt 0 ] && [ "$dinl" = 0 ]
	else
		# Every data segment (at most MSS bytes) went inline.
		[ "$dtso" = 0 ] && [ "$dinl" -ge $((bytes / mss)) ]
	fi
}

integrity_point() {
	local mode=$1 mtu=$2 addr=$3 out t0=$SECONDS
	if out=$(integrity "$@" 2>&1); then
		tap_ok "$mode MTU $mtu to $addr: payload intact ($(tail -1 <<< "$out"); $((SECONDS - t0)) s)"
	else
		tap_not_ok "$mode MTU $mtu to $addr: payload intact"
		tap_diag <<< "$out"
	fi
}

for mtu in "${mtus[@]}"; do
	tap_check "MTU $mtu on both ports" pair_mtu "$mtu"
	for addr in "${addrs[@]}"; do
		for mode in "${modes[@]}"; do
			integrity_point "$mode" "$mtu" "$addr"
		done
	done
done
tap_check "back to MTU 1500, tso on, tx-copybreak 0" \
	sh -c 'ip -n cx0 link set dev cxen0 mtu 1500 && ip -n cx1 link set dev cxen1 mtu 1500 &&
	       nsexec cx0 ethtool -K cxen0 tso on &&
	       nsexec cx0 ethtool --set-tunable cxen0 tx-copybreak 0'

# --- BQL -------------------------------------------------------------------

# bql: every TX queue's limit and inflight, read before an iperf3 load
# and every 0.05 s during it (one shell in the netns: exec is slow in the
# VM). XPS may put all four streams on one queue: the limit of some queue
# must move; bytes in flight are reported only (a busy host may sample
# none).
bql() {
	local d=/sys/class/net/cxen0/queues ipid before samples
	# "queue limit inflight" lines for every TX queue.
	local rd="for q in $d/tx-*; do echo \${q##*/} \$(cat \$q/byte_queue_limits/limit \$q/byte_queue_limits/inflight); done"
	before=$(nsexec cx0 sh -c "$rd")
	nsexec cx1 iperf3 -s -1 -B 192.0.2.2 >/dev/null 2>&1 &
	wait_for 5 sh -c "nsexec cx1 ss -Hltn 'sport = :5201' | grep -q ."
	nsexec cx0 iperf3 -c 192.0.2.2 -t 4 -P 4 >/dev/null 2>&1 &
	ipid=$!
	samples=$(nsexec cx0 sh -c "sleep 0.5; i=0; while [ \$i -lt 40 ]; do
		$rd; sleep 0.05; i=\$((i + 1)); done")
	wait "$ipid" || { echo "iperf3 failed"; return 1; }
	wait
	awk '
		NR == FNR { b[$1] = $2; next }
		{ n++; if ($2 != b[$1]) { moved++; mq[$1] = 1 }
		  if ($3 > 0) busy++
		  if (!(($1, $2) in seen)) { seen[$1, $2] = 1; vals[$1] = vals[$1] " " $2 }
		  if ($3 > maxin) maxin = $3 }
		END {
			for (q in b) lim = lim " " q ":" b[q] " ->" vals[q] ";"
			printf "%d queue samples, %d with another limit, %d with bytes in" \
			       " flight (max %d B); limits before -> seen:%s\n",
			       n, moved, busy, maxin, lim
			exit !(moved > 0)
		}' <(printf '%s\n' "$before") <(printf '%s\n' "$samples")
}

if out=$(bql 2>&1); then
	tap_ok "BQL limit of a TX queue moves under load: $out"
else
	tap_not_ok "BQL limit of a TX queue moves under load"
	tap_diag <<< "$out"
fi

# --- TX timeout and recovery ----------------------------------------------

# port0_sqn: the SQ of cxen0's only channel, from the model's sqs table.
port0_sqn() {
	awk 'NR > 1 && $2 == 0 { print $1 }' /sys/kernel/debug/cxsim/sqs
}

# timeout_of NAME: tx_timeout or tx_recover of cxen0.
timeout_of() {
	stat_of "$(stats_snap cx0 cxen0)" "$1"
}

counter_above() {
	[ "$(timeout_of "$1")" -gt "$2" ]
}

tx_timeout() {
	local sqn sqn2 t0 r0 t1 r1 rc=0
	# One channel and the smallest ring: a UDP burst fills it, and only
	# a stopped queue can time out.
	e0 -L cxen0 combined 1 && e0 -G cxen0 tx 64 || return 1
	sqn=$(port0_sqn)
	[ "$(wc -w <<< "$sqn")" = 1 ] || { echo "cxen0 SQs: '$sqn', want one"; return 1; }
	t0=$(timeout_of tx_timeout)
	r0=$(timeout_of tx_recover)
	echo "stalling SQ $sqn (tx_timeout $t0, tx_recover $r0)"
	echo "$sqn" > "$fault/stall_sqn"
	# 3 MB of UDP at once: more than the ring and BQL hold (a 200-ping
	# preload did not stop the queue here). A permanent neighbour entry:
	# no ARP needs to get through the stalled queue first.
	ip -n cx0 neigh replace 192.0.2.2 lladdr "$(nsexec cx1 cat /sys/class/net/cxen1/address)" \
		dev cxen0 nud permanent
	nsexec cx0 python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 32, 64 << 20)  # SO_SNDBUFFORCE
s.setblocking(False)  # never wait on completions of a stalled queue
for i in range(3000):
    try:
        s.sendto(b"x" * 1000, ("192.0.2.2", 9))
    except OSError:
        pass
' || true
	if ! wait_for 20 counter_above tx_timeout "$t0"; then
		echo "no tx_timeout within 20 s"
		rc=1
	fi
	wait_for 10 counter_above tx_recover "$r0" || { echo "no tx_recover"; rc=1; }
	sqn2=$(port0_sqn)
	echo -1 > "$fault/stall_sqn"
	t1=$(timeout_of tx_timeout)
	r1=$(timeout_of tx_recover)
	echo "after: tx_timeout $t1, tx_recover $r1, cxen0 SQ now $sqn2; stalled runs" \
	     "$(awk '$1 == "stalled_runs" { print $2 }' "$fault/counters")"
	ip -n cx0 neigh del 192.0.2.2 dev cxen0 || rc=1
	nsexec cx0 ping -c 3 -i 0.2 -W 5 -q 192.0.2.2 || { echo "no traffic after the stall"; rc=1; }
	e0 -G cxen0 tx 1024 || rc=1
	[ "$t1" -gt "$t0" ] && [ "$r1" -gt "$r0" ] || rc=1
	return $rc
}

if out=$(tx_timeout 2>&1); then
	tap_ok "TX timeout detected and recovered, traffic flows: $(grep '^after' <<< "$out")"
else
	tap_not_ok "TX timeout detected and recovered, traffic flows"
	tap_diag <<< "$out"
fi
dmesg | { grep -E 'cxen.*(timeout|resetting SQ)|NETDEV WATCHDOG' || true; } | tail -4 | tap_diag

# A stalled SQ whose queue never stops: BQL's limit_min raised so that a
# few pings stay under it, the ring far from full. The stack's watchdog
# cannot see it; the driver's hang check must (tx_hang, then tx_recover).
tx_hang() {
	local sqn bql lmin t0 h0 r0 t1 h1 r1 rc=0
	sqn=$(port0_sqn)
	[ "$(wc -w <<< "$sqn")" = 1 ] || { echo "cxen0 SQs: '$sqn', want one"; return 1; }
	bql=/sys/class/net/cxen0/queues/tx-0/byte_queue_limits
	lmin=$(nsexec cx0 cat "$bql/limit_min")
	nsexec cx0 sh -c "echo 1000000 > $bql/limit_min" || return 1
	t0=$(timeout_of tx_timeout)
	h0=$(timeout_of tx_hang)
	r0=$(timeout_of tx_recover)
	echo "$sqn" > "$fault/stall_sqn"
	# 8 pings over 8 s: WQEs outstanding, no completion, queue awake.
	nsexec cx0 ping -c 8 -i 1 -W 1 -q 192.0.2.2 > /dev/null 2>&1 || true
	wait_for 10 counter_above tx_recover "$r0" || { echo "no tx_recover"; rc=1; }
	echo -1 > "$fault/stall_sqn"
	t1=$(timeout_of tx_timeout)
	h1=$(timeout_of tx_hang)
	r1=$(timeout_of tx_recover)
	nsexec cx0 sh -c "echo $lmin > $bql/limit_min" || rc=1
	echo "after: tx_hang +$((h1 - h0)), tx_timeout +$((t1 - t0)), tx_recover +$((r1 - r0)), cxen0 SQ now $(port0_sqn)"
	nsexec cx0 ping -c 3 -i 0.2 -W 5 -q 192.0.2.2 || { echo "no traffic after the hang"; rc=1; }
	[ $((h1 - h0)) -ge 1 ] && [ "$t1" = "$t0" ] && [ $((r1 - r0)) -ge 1 ] || rc=1
	return $rc
}

if out=$(tx_hang 2>&1); then
	tap_ok "TX hang on a running queue detected and recovered: $(grep '^after' <<< "$out")"
else
	tap_not_ok "TX hang on a running queue detected and recovered"
	tap_diag <<< "$out"
fi
dmesg | { grep -E 'cxen.*(no completion for|resetting SQ)' || true; } | tail -3 | tap_diag

# --- TX doorbell batching (devlink tx_doorbell_batch) ----------------------

dl=$(cxen_devlink)

# devlink dev param show (every instance: iproute2 6.1 wants a name with a
# handle) lists both parameters of cxen's with their defaults.
dl_defaults() {
	local out
	out=$(devlink dev param show | sed -n "\|^$dl:|,/^[^ ]/p")
	printf '%s\n' "$out"
	grep -A2 'name tx_doorbell_batch type driver-specific' <<< "$out" |
		grep -q 'cmode runtime value true' || { echo "no tx_doorbell_batch true (runtime)"; return 1; }
	grep -A2 'name rx_layout type driver-specific' <<< "$out" |
		grep -q 'cmode driverinit value auto' || { echo "no rx_layout auto (driverinit)"; return 1; }
	echo "$dl: tx_doorbell_batch true (runtime), rx_layout auto (driverinit)"
}
point "devlink dev param show: the parameters with their defaults" dl_defaults

pkts=4096
# pktgen_bursts: $pkts 60-byte UDP frames from cxen0 in bursts of 16, with
# xmit_more on all but the last of each burst (what a backlogged queue
# hands a driver).
pktgen_bursts() {
	local th=/proc/net/pktgen/kpktgend_0 pg=/proc/net/pktgen/cxen0 mac
	mac=$(nsexec cx1 cat /sys/class/net/cxen1/address)
	nsexec cx0 sh -ec "
		echo rem_device_all > $th
		echo add_device cxen0 > $th
		for c in 'count $pkts' 'pkt_size 60' 'burst 16' 'delay 0' \
			 'dst 192.0.2.2' 'dst_mac $mac' 'udp_dst_min 9' 'udp_dst_max 9'; do
			echo \"\$c\" > $pg
		done
		echo start > /proc/net/pktgen/pgctrl
		echo rem_device_all > $th"
}

tx_packets_past() {
	[ "$(stat cx0 cxen0 tx_packets)" -ge "$1" ]
}

# doorbells true|false: set tx_doorbell_batch, read it back, send the
# bursts; prints "<tx_packets> <tx_doorbell>" of cxen0 over them, once
# every frame completed.
doorbells() {
	local a b p0 v
	devlink dev param set "$dl" name tx_doorbell_batch value "$1" cmode runtime || return 1
	v=$(dl_param "$dl" tx_doorbell_batch)
	[ "$v" = "$1" ] || { echo "tx_doorbell_batch reads '$v' after setting $1"; return 1; }
	a=$(stats_snap cx0 cxen0)
	p0=$(stat_of "$a" tx_packets)
	pktgen_bursts || return 1
	wait_for 10 tx_packets_past $((p0 + pkts)) ||
		{ echo "pktgen's frames did not all complete"; return 1; }
	b=$(stats_snap cx0 cxen0)
	echo "$(stat_delta "$a" "$b" tx_packets) $(stat_delta "$a" "$b" tx_doorbell)"
}

doorbell_batching() {
	local off on op od np nd
	modprobe pktgen || return 1
	off=$(doorbells false) || { echo "$off"; return 1; }
	on=$(doorbells true) || { echo "$on"; return 1; }
	read -r op od <<< "$off"
	read -r np nd <<< "$on"
	echo "tx_doorbell_batch false: $od doorbells for $op packets; true: $nd for $np"
	# Off: every packet rings (a late completion may still lag behind).
	[ "$od" -ge "$pkts" ] && [ $((od * 100)) -ge $((op * 99)) ] || return 1
	# On: a doorbell per burst of 16, or per BQL stop; never one per packet.
	[ $((nd * 2)) -le "$np" ]
}
point "devlink tx_doorbell_batch: false rings per packet, true batches (pktgen, xmit_more)" doorbell_batching

iperf_both() {
	iperf3_run cx1 192.0.2.2 cx0 2 && iperf3_run cx0 192.0.2.1 cx1 2
}

tap_check "iperf3 both ways after the timeout" iperf_both
tap_check "cxen0 TX counters = cxen1 RX counters and back" counters_match
tap_done
