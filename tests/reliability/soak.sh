#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Soak: traffic both ways while a seeded random sequence of operations
# runs on the cxen pair.
#
#   tests/reliability/soak.sh [OPS [SEED]] [tests/vm/run options]
#       on the host (make soak OPS=N SEED=S): boots the VM (the debug
#       kernel unless --kernel stock) with --pair and runs itself inside.
#       OPS defaults to 1000, SEED to a random one (printed).
#
# Operation classes (each picked at random, with random valid arguments,
# on a random port unless it is per pair):
#   ring     ethtool -G rx/tx (256..4096)
#   chan     ethtool -L combined 1..4
#   coal     ethtool -C rx/tx-usecs, rx/tx-frames
#   feat     ethtool -K gro/tso/rx/tx on|off
#   lro      ethtool -K lro on|off (on: the automatic layout, which runs
#            it on the striding RQ; read back on)
#   pause    ethtool -A rx on|off tx on|off (link flow control)
#   mtu      1500/2500/9000 on both ports (read back)
#   link     ip link down, up, wait for carrier
#   layout   ethtool --set-priv-flags (the RX buffer layouts; LRO off
#            first when it is on: it runs on the striding RQ only)
#   fault    one of the model's data-path fault knobs on for 0.3-1 s
#            under traffic
#   stall    the model's stall_sqn on an SQ for 0.3-1 s
#   reload   rmmod cxen, insmod, pair set-up again (traffic restarted)
# The first operations visit every class once, in an order the seed
# shuffles, each in a form that must take effect, checked: a real MTU
# change, LRO running, the striding layout named and running, a fault
# knob at one frame in 7 for 1 s that injected (its model counter
# moved), the busiest SQ stalled for 1 s (stalled_runs moved); then the
# picks are random. A run shorter than the classes is made as long (a
# short soak covers every class whatever the seed), and the end checks
# that every class was covered. An operation on valid input must
# succeed: a refusal fails the soak.
#
# iperf3 runs in both directions all along (each client restarted when it
# ends or dies). After the last operation: every knob off, then rmmod
# cxen and no page_pool of it still holding pages within 60 s (page-pool-get over
# netlink in both netns), insmod again, ping both ways, iperf3 each way,
# and over that verification traffic each port's TX counters equal the
# other's RX counters. tests/vm/run then checks for splats and, on the
# debug kernel, kmemleak. The last line is "soak: N ops, seed S, ok" or
# "soak: N ops, seed S, FAILED: <what broke>".
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	ops=1000
	seed=$(( $(od -An -N2 -tu2 /dev/urandom) ))
	if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then ops=$1; shift; fi
	if [ $# -gt 0 ] && [[ $1 =~ ^[0-9]+$ ]]; then seed=$1; shift; fi
	echo "soak: $ops ops, seed $seed (replay: make soak OPS=$ops SEED=$seed)"
	"$(dirname "$0")/prepare-tools" || exit 1
	export CXEN_SOAK_OPS=$ops CXEN_SOAK_SEED=$seed
	# About 7.5 s per operation on the debug kernel under TCG (30 ops:
	# 294 s); twice that, plus boot and the final checks.
	exec "$(dirname "$0")/../vm/run" --kernel debug --pair --timeout $((900 + 15 * ops)) "$@" -- \
		tests/reliability/soak.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"
. "$CXEN_ROOT/tests/reliability/lib.sh"

ops=$CXEN_SOAK_OPS
seed=$CXEN_SOAK_SEED
RANDOM=$seed
fault_dir=/sys/kernel/debug/cxsim/fault
ynl_dir=$CXEN_ROOT/build/selftests/tools/net/ynl
pools=$CXEN_ROOT/tests/reliability/pools.py
netdev_spec=$CXEN_ROOT/build/selftests/Documentation/netlink/specs/netdev.yaml
export PYTHONDONTWRITEBYTECODE=1

declare -A count=() injected=()
n=0

oplog=/tmp/soak-ops.log
: > "$oplog"

# What each operation did, for the failure report.
log() {
	echo "$n $*" >> "$oplog"
}

broke() {
	echo "soak: op $n: $*" >&2
	echo "soak: the last operations (op number, what):" >&2
	tail -15 "$oplog" >&2
	traffic_stop
	ns_unpin
	echo "soak: $n ops, seed $seed, FAILED: $*"
	exit 1
}

# pick WORD...: one of the words at random, in $picked. Never $(pick ...):
# bash reseeds RANDOM in every subshell, and the seed would not replay.
pick() {
	local a=("$@")
	picked=${a[RANDOM % ${#a[@]}]}
}

# ---- operations ---------------------------------------------------------

port() {
	local i=$((RANDOM % 2))
	ns=cx$i
	dev=cxen$i
}

et() {
	local out
	log "ethtool $*"
	out=$(nsexec "$ns" ethtool "$@" 2>&1) || broke "ethtool $* on $dev refused: $out"
}

op_ring() {
	port
	local rx tx
	pick 256 512 1024 2048 4096; rx=$picked
	pick 256 512 1024 2048 4096; tx=$picked
	et -G "$dev" rx "$rx" tx "$tx"
}

op_chan() {
	port
	et -L "$dev" combined $((1 + RANDOM % 4))
}

op_coal() {
	port
	local ru rf tu tf
	pick 0 8 16 64 256; ru=$picked
	pick 1 16 44 128; rf=$picked
	pick 0 8 16 64 256; tu=$picked
	pick 1 16 32 128; tf=$picked
	et -C "$dev" rx-usecs "$ru" rx-frames "$rf" tx-usecs "$tu" tx-frames "$tf"
}

op_feat() {
	local f v txon
	port
	pick gro tso rx tx; f=$picked
	pick on off; v=$picked
	# TSO needs TX checksumming: asking for it without is refused.
	txon=$(nsexec "$ns" ethtool -k "$dev" | awk '$1 == "tx-checksumming:" { print $2 }')
	if [ "$f $v" = "tso on" ] && [ "$txon" != on ]; then
		et -K "$dev" tx on
	fi
	et -K "$dev" "$f" "$v"
}

# LRO on (always when covering) or off. On: it runs on the striding RQ,
# which the automatic layout picks; it must then read back on.
op_lro() {
	local v flags args=() got
	port
	pick on off; v=$picked
	[ -z "$cover" ] || v=on
	if [ "$v" = on ]; then
		flags=$(nsexec "$ns" ethtool --show-priv-flags "$dev" | awk -F: 'NR > 1 { print $1 }')
		for flag in $flags; do
			if [ "$flag" = auto ]; then args+=(auto on); else args+=("$flag" off); fi
		done
		et --set-priv-flags "$dev" "${args[@]}"
	fi
	et -K "$dev" lro "$v"
	got=$(nsexec "$ns" ethtool -k "$dev" | awk '$1 == "large-receive-offload:" { print $2 }')
	[ "$got" = "$v" ] || broke "ethtool -K $dev lro $v: large-receive-offload $got (layout: $(rx_layout "$ns" "$dev"))"
}

op_pause() {
	port
	local rx tx
	pick on off; rx=$picked
	pick on off; tx=$picked
	et -A "$dev" rx "$rx" tx "$tx"
}

# mtu_of I: cxen<I>'s MTU.
mtu_of() {
	nsexec "cx$1" cat "/sys/class/net/cxen$1/mtu"
}

# Both ports to one MTU (covering: another than cxen0's now), read back.
op_mtu() {
	local m i cur
	cur=$(mtu_of 0)
	if [ -n "$cover" ]; then
		case "$cur" in
		1500) pick 2500 9000 ;;
		2500) pick 1500 9000 ;;
		*) pick 1500 2500 ;;
		esac
	else
		pick 1500 2500 9000
	fi
	m=$picked
	log "mtu $cur -> $m"
	for i in 0 1; do
		ip -n "cx$i" link set dev "cxen$i" mtu "$m" || broke "MTU $m on cxen$i refused"
		[ "$(mtu_of "$i")" = "$m" ] || broke "MTU $m on cxen$i: it has $(mtu_of "$i")"
	done
}

op_link() {
	port
	log "link down/up $dev"
	ip -n "$ns" link set dev "$dev" down || broke "link down $dev"
	nap 0.$((RANDOM % 5))
	ip -n "$ns" link set dev "$dev" up || broke "link up $dev"
	cxen_pair_wait_carrier || broke "no carrier after link down/up of $dev"
}

op_layout() {
	local flags
	port
	# Another layout is refused while LRO runs (it needs the striding RQ).
	if nsexec "$ns" ethtool -k "$dev" | grep -q '^large-receive-offload: on'; then
		et -K "$dev" lro off
	fi
	flags=$(nsexec "$ns" ethtool --show-priv-flags "$dev" | awk -F: 'NR > 1 { print $1 }')
	# None set (the default page_pool layout) or one of them; covering,
	# striding, which must then run.
	# shellcheck disable=SC2086 # one word per flag
	set -- $flags
	local want=$((RANDOM % ($# + 1))) i=0 args=() got
	for f in "$@"; do
		i=$((i + 1))
		if [ -n "$cover" ] && [ "$f" = striding ]; then
			args+=("$f" on)
		elif [ -n "$cover" ]; then
			args+=("$f" off)
		elif [ "$i" = "$want" ]; then
			args+=("$f" on)
		else
			args+=("$f" off)
		fi
	done
	et --set-priv-flags "$dev" "${args[@]}"
	if [ -n "$cover" ]; then
		got=$(rx_layout "$ns" "$dev")
		[ "$got" = "striding named" ] || broke "private flag striding on $dev: it runs '$got'"
	fi
}

fault_counters() {
	cat "$fault_dir/counters"
}

# Adds the counters' increase since $1 (an earlier fault_counters) to
# injected[].
fault_account() {
	local name v
	declare -A before=()
	while read -r name v; do before[$name]=$v; done <<< "$1"
	while read -r name v; do
		injected[$name]=$(( ${injected[$name]:-0} + v - ${before[$name]:-0} ))
	done < <(fault_counters)
}

# The device's own error CQEs (a frame longer than its WQE, WQEs flushed
# when a queue is destroyed), both ports, from cxsim's port files: they
# count from cxsim's load and cxsim stays loaded. Prints "rx tx".
model_err_cqes() {
	awk '$1 == "rx_error_cqes" { rx += $2 }
	     $1 == "tx_error_cqes" { tx += $2 }
	     END { print rx + 0, tx + 0 }' \
		/sys/kernel/debug/cxsim/port0 /sys/kernel/debug/cxsim/port1
}

# The driver counted exactly the error and malformed CQEs the device
# wrote: its own error CQEs, and those the fault knobs turned into an
# error (error_cqes), gave a wrong length (bad_len_cqes) or a wrong WQE
# index (bad_index_cqes); only one knob is on at a time, so no CQE is
# two of them. Equality holds because every CQE written is read before
# its CQ goes: a reconfiguration, a close or an rmmod reaps the CQs
# (NAPI until quiet) before it destroys them, and drv_account reads a
# load's counters only once the traffic has stopped and they stay still
# (quiesce; before the rmmod of a reload), so no CQE is reaped after its
# load was accounted. What can still break it is the driver's: a drain
# it gives up on after a second ($drains times here) frees CQs with what
# they still hold (its TX side reaps 128 CQEs at most), and so does the
# rebuild of an SQ after a TX timeout or error (none here: a stall_sqn
# operation lasts 1 s at most, the watchdog needs 5).
check_cqe_counts() {
	local rx0 tx0 rx1 tx1 model_rx model_tx
	read -r rx0 tx0 <<< "$1"
	read -r rx1 tx1 <<< "$(model_err_cqes)"
	model_rx=$((rx1 - rx0))
	model_tx=$((tx1 - tx0))
	echo "# the device's own error CQEs (cxsim port counters): rx $model_rx, tx $model_tx"
	# The device's count includes the WQEs an RQ in error flushed: the
	# driver counts those apart (rx_flush_cqe), no frame being lost.
	[ $(( ${drv[rx_err_cqe]:-0} + ${drv[rx_flush_cqe]:-0} )) -eq $(( ${injected[error_cqes]:-0} + model_rx )) ] ||
		broke "the driver counted ${drv[rx_err_cqe]:-0} RX error CQEs and ${drv[rx_flush_cqe]:-0} flushes; the device wrote ${injected[error_cqes]:-0} + $model_rx ($drains drains given up)"
	# A striding RQ (layout striding) refuses a bad length as a stride
	# count that does not match it (a filler's as a bad filler), a bad
	# index as a WQE it does not have in use.
	local bad_len=$(( ${drv[rx_oversize]:-0} + ${drv[rx_stride_bad_count]:-0} + ${drv[rx_stride_bad_filler]:-0} ))
	local bad_idx=$(( ${drv[rx_bad_cqe]:-0} + ${drv[rx_stride_bad_wqe]:-0} ))
	[ "$bad_len" -eq "${injected[bad_len_cqes]:-0}" ] ||
		broke "the driver counted $bad_len oversized RX CQEs (rx_oversize ${drv[rx_oversize]:-0}, rx_stride_bad_count ${drv[rx_stride_bad_count]:-0}, rx_stride_bad_filler ${drv[rx_stride_bad_filler]:-0}); the device wrote ${injected[bad_len_cqes]:-0} ($drains drains given up)"
	[ $(( bad_idx + ${drv[tx_err_cqe]:-0} )) -eq $(( ${injected[bad_index_cqes]:-0} + model_tx )) ] ||
		broke "the driver counted $bad_idx bad RX CQEs (rx_stride_bad_wqe ${drv[rx_stride_bad_wqe]:-0} of them) and ${drv[tx_err_cqe]:-0} bad or error TX CQEs; the device wrote ${injected[bad_index_cqes]:-0} + $model_tx ($drains drains given up)"
	echo "# error CQEs: driver rx_err_cqe ${drv[rx_err_cqe]:-0} = ${injected[error_cqes]:-0} injected + $model_rx the device's own;" \
	     "rx_oversize + rx_stride_bad_count/_filler $bad_len = ${injected[bad_len_cqes]:-0} bad lengths;" \
	     "rx_bad_cqe + rx_stride_bad_wqe $bad_idx + tx_err_cqe ${drv[tx_err_cqe]:-0} = ${injected[bad_index_cqes]:-0} bad indexes + $model_tx the device's own TX error CQEs"
}

# fault_count NAME: one counter of the model's fault counters.
fault_count() {
	awk -v n="$1" '$1 == n { print $2 }' "$fault_dir/counters"
}

# The model's counter of each knob's injections.
declare -A knob_counter=([drop_every]=dropped [corrupt_csum_every]=corrupted_csum
	[cqe_bad_len_every]=bad_len_cqes [cqe_bad_index_every]=bad_index_cqes
	[cqe_error_every]=error_cqes [cqe_stale_owner_every]=stale_owner_cqes
	[delay_us]=delayed_wqes [stall_sqn]=stalled_runs)

# knob_window KNOB VAL: KNOB at VAL for 0.3-1 s (covering: 1 s, and the
# knob must have injected: its counter moved), then off.
knob_window() {
	local knob=$1 val=$2 c0 c1 off=0
	[ "$knob" != stall_sqn ] || off=-1
	c0=$(fault_count "${knob_counter[$knob]}")
	log "fault $knob $val"
	echo "$val" > "$fault_dir/$knob" || broke "cannot write $val to $knob"
	pick 0.3 0.5 1
	[ -z "$cover" ] || picked=1
	nap "$picked"
	echo "$off" > "$fault_dir/$knob"
	c1=$(fault_count "${knob_counter[$knob]}")
	count[fault_$knob]=$(( ${count[fault_$knob]:-0} + 1 ))
	if [ -n "$cover" ] && [ "$c1" -le "$c0" ]; then
		broke "$knob $val for 1 s injected nothing (${knob_counter[$knob]} $c0 -> $c1)"
	fi
}

# A data-path fault knob (covering: one frame, CQE or WQE in 7; delay_us
# 100 us).
op_fault() {
	local knob val
	pick drop_every corrupt_csum_every cqe_bad_len_every cqe_bad_index_every \
		    cqe_error_every cqe_stale_owner_every delay_us
	knob=$picked
	case "$knob" in
	delay_us) pick 10 100 1000; val=$picked; [ -z "$cover" ] || val=100 ;;
	*) pick 7 50 200 1000; val=$picked; [ -z "$cover" ] || val=7 ;;
	esac
	knob_window "$knob" "$val"
}

# busiest_sq: the SQ that sent the most frames over 0.5 s.
busiest_sq() {
	local a
	a=$(awk 'NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
		 { print $1, $c["frames"] }' /sys/kernel/debug/cxsim/sqs)
	nap 0.5
	awk 'NR == FNR { a[$1] = $2; next }
	     FNR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
	     ($1 in a) && $c["frames"] - a[$1] > best { best = $c["frames"] - a[$1]; sq = $1 }
	     END { if (sq == "") exit 1; print sq }' <(printf '%s\n' "$a") /sys/kernel/debug/cxsim/sqs
}

# stall_sqn on an SQ (covering: the busiest one, which must stall).
op_stall() {
	local sqns sqn
	if [ -n "$cover" ]; then
		sqn=$(busiest_sq) || broke "no SQ sent a frame in 0.5 s: $(cat /sys/kernel/debug/cxsim/sqs)"
	else
		mapfile -t sqns < <(awk 'NR > 1 { print $1 }' /sys/kernel/debug/cxsim/sqs)
		[ "${#sqns[@]}" -gt 0 ] || broke "no SQ in /sys/kernel/debug/cxsim/sqs"
		pick "${sqns[@]}"; sqn=$picked
	fi
	knob_window stall_sqn "$sqn"
}

# Driver counters are per load: sum them over the reloads. Called when
# the load's counters are final: the traffic stopped and still (quiesce).
declare -A drv=()
drv_names="rx_err_cqe rx_flush_cqe rx_bad_cqe rx_oversize rx_alloc_fail tx_err_cqe tx_timeout tx_recover tx_dropped"
drv_names+=" rx_stride_bad_wqe rx_stride_bad_count rx_stride_bad_filler"
drv_account() {
	local i name v
	for i in 0 1; do
		while read -r name v; do
			name=${name%:}
			case " $drv_names " in *" $name "*) ;; *) continue ;; esac
			drv[$name]=$(( ${drv[$name]:-0} + v ))
		done < <(nsexec "cx$i" ethtool -S "cxen$i")
	done
}

reload() {
	log reload
	traffic_stop
	still
	drv_account
	rmmod cxen || broke "rmmod cxen"
	insmod "$CXEN_MODDIR/cxen.ko" || broke "insmod cxen.ko"
	cxen_pair_setup || broke "pair set-up after reload"
	ns_pin > /dev/null || broke "cannot pin a process in the new netns"
}

op_reload() {
	reload
	traffic_start
}

# The driver gives up on old queues the device does not finish within a
# second of a reconfiguration and drops what they hold (a stalled SQ
# does that). Counted; the first three times, the model's view of its
# queues and ports goes to stderr for whoever reads the log.
drains=0
drain_re='did not complete in a second\|did not drain in a second'
drain_watch() {
	local now f
	now=$(dmesg | grep -c "$drain_re" || true)
	[ "$now" -gt "$drains" ] || return 0
	if [ "$drains" -lt 3 ]; then
		{
			echo "soak: op $n ($(tail -1 "$oplog")): the driver gave up draining queues:"
			dmesg | grep -A3 "$drain_re" | tail -12
			for f in port0 port1 sqs rqs cqs; do
				echo "== /sys/kernel/debug/cxsim/$f"
				cat "/sys/kernel/debug/cxsim/$f"
			done
		} >&2
	fi
	drains=$now
}

# ---- final checks -------------------------------------------------------

# With the traffic stopped: let its TCP connections end and the ports'
# counters come to rest (30 s at most; lib.sh's quiesce). A connection
# still closing (FIN sent, not yet acknowledged) keeps the frames it
# received out of order, so pages of cxen's pools, until it ends;
# orphaned by an rmmod it retries for minutes. And a CQE the driver has
# not reaped yet would be missing from drv_account.
still() {
	local out
	out=$(quiesce 30) || broke "TCP connections still open or counters moving 30 s after the traffic stopped: $out"
}

# No page_pool of cxen left holding pages after its netdevs are gone: they
# are listed under the netns' loopback with "inflight" > 0 until released.
# Polled for 60 s (the unload bound of testing.rst): an skb the stack still holds (a
# socket's queue, a reassembly queue) keeps its page until it is freed.
# Each poll sends a loopback datagram from every CPU (pools.py): a CPU
# that receives nothing more keeps the skbs other CPUs deferred to it
# (skb_attempt_defer_free()), and their pages with them. Without that,
# one CI-like run saw 3 pages held past 10 s, and a debug-kernel run of
# session 27 5 pages past 60 s (and the kernel's "stalled pool shutdown"),
# none on the rerun.
pools_released() {
	local ns out rel=()
	for ns in cx0 cx1; do
		out=$(nsexec "$ns" python3 "$pools" "$ynl_dir" "$netdev_spec" released 60 2>&1) || {
			echo "page pools of $ns still in flight 60 s after rmmod cxen: $out"
			echo "TCP sockets there:"
			nsexec "$ns" ss -tanmoi
			return 1
		}
		rel+=("$ns $out")
	done
	echo "page pools after rmmod: none in flight (${rel[0]}; ${rel[1]})"
}

# stats_snap: "t0p t0b r0p r0b d0 f0 g0 t1p t1b r1p r1b d1 f1 g1" of
# ethtool -S: d the frames the port's device dropped on the way in but
# by its RX filter, f those the filter refused (the stack's router
# solicitations and MLD reports to groups the peer never joined) and g
# their bytes (lib.sh's ethtool_stats).
stats_snap() {
	local a b
	a=$(ethtool_stats cx0 cxen0) && b=$(ethtool_stats cx1 cxen1) || return 1
	echo "$(cut -d' ' -f1-4,6,8,9 <<< "$a") $(cut -d' ' -f1-4,6,8,9 <<< "$b")"
}

# dir_exact SENT_P SENT_B RECV_P RECV_B DROPPED FILTERED FILTERED_B: what
# one port sent the other received, its device dropped or its RX filter
# refused, one for one; the bytes too, exactly, when nothing but the
# filter dropped (the device counts no bytes of the other drops: then
# they fall short).
dir_exact() {
	[ "$1" = $(($3 + $5 + $6)) ] || return 1
	if [ "$5" = 0 ]; then [ "$2" = $(($4 + $7)) ]; else [ "$2" -gt $(($4 + $7)) ]; fi
}

# ip -s link (stats64) and ethtool -S tell the same packet counts: the
# port may still send a late frame (ND, MLD, a TCP FIN) between two
# reads, so ethtool's count must lie between two ip -s link reads taken
# before and after it.
ip_pkts() {
	ip -n "cx$1" -j -s link show dev "cxen$1" |
		python3 -c 'import json,sys; s=json.load(sys.stdin)[0]["stats64"]; print(s["rx"]["packets"], s["tx"]["packets"])'
}

stats_agree() {
	local i er et r0 t0 r1 t1
	for i in 0 1; do
		read -r r0 t0 <<< "$(ip_pkts "$i")"
		read -r er et <<< "$(nsexec "cx$i" ethtool -S "cxen$i" |
			awk '$1 == "rx_packets:" { r = $2 } $1 == "tx_packets:" { t = $2 } END { print r, t }')"
		read -r r1 t1 <<< "$(ip_pkts "$i")"
		if [ "$er" -lt "$r0" ] || [ "$er" -gt "$r1" ] || [ "$et" -lt "$t0" ] || [ "$et" -gt "$t1" ]; then
			echo "cxen$i: ethtool -S rx/tx packets $er $et, ip -s link before $r0 $t0, after $r1 $t1"
			return 1
		fi
	done
}

final_checks() {
	local k out s0 s1 a b c i j rings ifindex live pid pids=() t
	for k in drop_every corrupt_csum_every cqe_bad_len_every cqe_bad_index_every \
		 cqe_error_every cqe_stale_owner_every delay_us; do
		echo 0 > "$fault_dir/$k"
	done
	echo -1 > "$fault_dir/stall_sqn"
	# Back to the default RX layout on both ports: the mlx4-era ones
	# (priv-flags) have no page_pool.
	for i in 0 1; do
		ns=cx$i
		dev=cxen$i
		# shellcheck disable=SC2046 # "flag off" word pairs
		et --set-priv-flags "$dev" $(nsexec "$ns" ethtool --show-priv-flags "$dev" |
					     awk -F: 'NR > 1 { print $1, "off" }')
	done
	# page-pool-get must list one live pool (not detached) per RX ring.
	rings=$(nsexec cx0 ethtool -l cxen0 | awk '/^Current/ { c = 1 } c && $1 == "Combined:" { print $2 }')
	ifindex=$(ip -n cx0 -j link show dev cxen0 | python3 -c 'import json, sys; print(json.load(sys.stdin)[0]["ifindex"])')
	live=$(nsexec cx0 python3 "$pools" "$ynl_dir" "$netdev_spec" live "$ifindex" 2>&1) ||
		broke "page-pool-get: $live"
	[ "$live" = "$rings" ] ||
		broke "page-pool-get lists $live live pools of cxen0 for its $rings RX rings"
	echo "# page pools of cxen0 while loaded: $live, one per RX ring"
	still
	drv_account
	rmmod cxen || broke "rmmod cxen (final)"
	out=$(pools_released) || broke "$out"
	echo "# $out"
	insmod "$CXEN_MODDIR/cxen.ko" || broke "insmod cxen.ko (final)"
	cxen_pair_setup || broke "pair set-up (final)"
	ns_pin > /dev/null || broke "cannot pin a process in the new netns"

	# The starting point: counters that no longer move (a frame sent
	# before it and received after it would count on one side only).
	s0=$(stats_snap) || broke "ethtool -S lacks packet counters"
	for ((i = 0; i < 10; i++)); do
		nap 0.5
		s1=$(stats_snap)
		[ "$s1" != "$s0" ] || break
		s0=$s1
	done
	# Both ways at once (the debug kernel starts a process in ~0.25 s:
	# one after the other, these took twice as long).
	t=$(mktemp -d /tmp/soak-final.XXXXXX)
	for a in "cx0 192.0.2.2" "cx1 192.0.2.1" "cx0 fd00:c0::2" "cx1 fd00:c0::1"; do
		nsexec "${a% *}" ping -c 3 -i 0.2 -W 5 "${a#* }" > "$t/ping.${a#* }" 2>&1 &
		pids+=($!)
	done
	i=0
	for a in "cx0 192.0.2.2" "cx1 192.0.2.1" "cx0 fd00:c0::2" "cx1 fd00:c0::1"; do
		wait "${pids[i]}" || broke "ping ${a% *} -> ${a#* }: $(cat "$t/ping.${a#* }")"
		i=$((i + 1))
	done
	(
		set +e
		iperf3_run cx0 192.0.2.1 cx1 3
	) > "$t/iperf3.back" 2>&1 &
	pid=$!
	out=$(iperf3_run cx1 192.0.2.2 cx0 3) || broke "iperf3 cx0 -> cx1 after the soak: $out"
	echo "# iperf3 cx0 -> cx1 after the soak (both ways at once): $out"
	wait "$pid" || broke "iperf3 cx1 -> cx0 after the soak: $(cat "$t/iperf3.back")"
	echo "# iperf3 cx1 -> cx0 after the soak: $(cat "$t/iperf3.back")"
	rm -rf "$t"
	# Over the verification traffic (no fault on): what one port sent the
	# other received, its device dropped or its RX filter refused,
	# exactly, bytes too (late frames: retry for 5 s).
	for ((i = 0; i < 20; i++)); do
		s1=$(stats_snap)
		read -r -a a <<< "$s0"
		read -r -a b <<< "$s1"
		for j in "${!b[@]}"; do c[j]=$((b[j] - a[j])); done
		# t0p t0b r0p r0b d0 f0 g0 t1p t1b r1p r1b d1 f1 g1
		if dir_exact "${c[0]}" "${c[1]}" "${c[9]}" "${c[10]}" "${c[11]}" "${c[12]}" "${c[13]}" &&
		   dir_exact "${c[7]}" "${c[8]}" "${c[2]}" "${c[3]}" "${c[4]}" "${c[5]}" "${c[6]}"; then
			break
		fi
		nap 0.25
	done
	[ "$i" -lt 20 ] || broke "counters: before $s0, after $s1 (t0p t0b r0p r0b d0 f0 g0 t1p t1b r1p r1b d1 f1 g1)"
	echo "# counters: cxen0 sent ${c[0]} pkts ${c[1]} B = cxen1 received ${c[9]} pkts ${c[10]} B" \
	     "+ ${c[12]} pkts ${c[13]} B refused by its RX filter + ${c[11]} other drops of its device;" \
	     "cxen1 sent ${c[7]} pkts ${c[8]} B = cxen0 received ${c[2]} pkts ${c[3]} B" \
	     "+ ${c[5]} pkts ${c[6]} B refused by its RX filter + ${c[4]} other drops of its device"
	out=$(stats_agree) || broke "$out"
}

# ---- main ---------------------------------------------------------------

kinds=(ring chan coal feat lro pause mtu link layout fault stall reload)
# Weights: reconfiguration and faults often, reloads seldom.
weights=(3 3 2 3 1 1 2 2 2 3 1 1)
table=()
for i in "${!kinds[@]}"; do
	for ((j = 0; j < weights[i]; j++)); do table+=("${kinds[i]}"); done
done
# The first operations: every class once, in an order the seed shuffles
# (Fisher-Yates on RANDOM, seeded above).
order=("${kinds[@]}")
for ((i = ${#order[@]} - 1; i > 0; i--)); do
	j=$((RANDOM % (i + 1)))
	k=${order[i]} order[i]=${order[j]} order[j]=$k
done
if [ "$ops" -lt "${#order[@]}" ]; then
	echo "# $ops ops asked for: $((ops = ${#order[@]})), one per class"
fi
declare -A covered=()
cover= cover_lines=0

echo "# soak: $ops ops, seed $seed, kernel $(uname -r) ($CXEN_KERNEL); classes first in the order: ${order[*]}"
[ -d "$fault_dir" ] || broke "$fault_dir missing"
f0=$(fault_counters)
e0=$(model_err_cqes)
t0=$(date +%s)
ns_pin > /dev/null || broke "cannot pin a process in netns cx0 and cx1"
trap ns_unpin EXIT
traffic_start
for ((n = 1; n <= ops; n++)); do
	if [ "$n" -le "${#order[@]}" ]; then
		kind=${order[n - 1]} cover=1
	else
		pick "${table[@]}"; kind=$picked
		cover=
	fi
	"op_$kind"
	[ -z "$cover" ] || covered[$kind]=$n
	[ "$n" != "${#order[@]}" ] || cover_lines=$(wc -l < "$oplog")
	count[$kind]=$(( ${count[$kind]:-0} + 1 ))
	drain_watch
	if ((n % 50 == 0)); then
		echo "# $n ops, $(($(date +%s) - t0)) s"
	fi
done
n=$ops
cover=
for k in "${kinds[@]}"; do
	[ -n "${covered[$k]:-}" ] || broke "class $k was never covered (run in the form that must take effect)"
done
traffic_stop
fault_account "$f0"
final_checks
# The last load's counters, over the verification traffic: when still.
still
drv_account
check_cqe_counts "$e0"

echo "# ops per class (the op that covered it):"
for k in "${kinds[@]}"; do echo "#   $k ${count[$k]:-0} (op ${covered[$k]})"; done
echo "# the covering ops (op number, what):"
head -n "$cover_lines" "$oplog" | sed 's/^/#   /'
echo "# fault knob operations:"
for k in "${!count[@]}"; do
	case "$k" in fault_*) echo "#   ${k#fault_} ${count[$k]}" ;; esac
done | sort
echo "# injected by the model (cxsim fault counters):"
for k in "${!injected[@]}"; do echo "#   $k ${injected[$k]}"; done | sort
echo "# driver counters, both ports, summed over the loads:"
for k in $drv_names; do echo "#   $k ${drv[$k]:-0}"; done
echo "# driver warnings of queues not drained in a second: $drains"
echo "# $(($(date +%s) - t0)) s"
echo "soak: $ops ops, seed $seed, ok"
