# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the integration tests (sourced inside the VM, after
# tests/vm/run --pair): TAP output, traffic, counters.

. "$CXEN_ROOT/tests/vm/pair.sh"

# nap SECONDS: sleep without an exec (`sleep 0.1` takes 0.8 s in the debug
# kernel under TCG): a read with a timeout on a FIFO that no one writes to
# (opened read-write, so it never sees an end of file).
nap_fifo=$(mktemp -u /tmp/cxen-nap.XXXXXX)
mkfifo "$nap_fifo"
exec {nap_fd}<> "$nap_fifo"
rm -f "$nap_fifo"
nap() {
	read -r -t "$1" -u "$nap_fd" || true
}

tap_n=0
tap_failed=0
tap_planned=
tap_t=$SECONDS

# tap_took: sets took to " [N s]", the seconds since the previous point
# (or the script's start), appended to each point's line so a slow point
# shows in CI's log.
tap_took() {
	took=" [$((SECONDS - tap_t)) s]"
	tap_t=$SECONDS
}

# tap_plan N: declare, before the first point, how many points this run
# has (TAP's leading plan). tap_done fails a run that declared none or
# ran a different number: a point lost to a loop that ran short or a
# branch that skipped it silently is a failure, not a smaller pass.
tap_plan() {
	tap_planned=$1
	echo "1..$1"
}

tap_ok() {
	tap_n=$((tap_n + 1))
	tap_took
	echo "ok $tap_n - $*$took"
}

tap_not_ok() {
	tap_n=$((tap_n + 1))
	tap_failed=$((tap_failed + 1))
	tap_took
	echo "not ok $tap_n - $*$took"
}

# tap_skip DESCRIPTION REASON: a point this kernel cannot run (TAP SKIP,
# not a pass): say why.
tap_skip() {
	tap_n=$((tap_n + 1))
	echo "ok $tap_n - $1 # SKIP $2"
}

tap_diag() {
	sed 's/^/# /'
}

# tap_check DESCRIPTION COMMAND...: one test point; on failure COMMAND's
# output follows as diagnostics, on success its last line (what it
# measured, if it prints anything). CXEN_ONLY="cmd1 cmd2" (for debugging a
# test) runs only the points whose COMMAND is named.
tap_check() {
	local desc=$1 out rc=0
	shift
	if ! tap_selected "$1"; then
		tap_skip "$desc" "not in CXEN_ONLY"
		return 0
	fi
	out=$("$@" 2>&1) || rc=$?
	tap_result "$desc" "$rc" "$out"
}

# tap_selected COMMAND: COMMAND's points run (CXEN_ONLY unset or naming it).
tap_selected() {
	case " ${CXEN_ONLY:-$1} " in *" $1 "*) return 0 ;; esac
	return 1
}

# tap_result DESCRIPTION RC OUTPUT: the point of a command that ended
# with status RC and printed OUTPUT (tap_check's verdict and diagnostics).
tap_result() {
	if [ "$2" = 0 ]; then
		tap_ok "$1"
		[ -z "$3" ] || printf '%s\n' "$3" | tail -1 | tap_diag
	else
		tap_not_ok "$1"
		printf '%s\n' "$3" | tail -30 | tap_diag
	fi
}

# tap_check_both DESC1 DESC2 COMMAND1... -- COMMAND2...: two test points
# whose commands run at the same time (the same check each way: both
# directions' traffic at once takes half the time of one after the
# other), reported in order, each as tap_check reports it.
tap_check_both() {
	local d1=$1 d2=$2 c1=() f p rc1=0 rc2=0 out2
	shift 2
	while [ "$1" != -- ]; do
		c1+=("$1")
		shift
	done
	shift
	if ! tap_selected "${c1[0]}" || ! tap_selected "$1"; then
		tap_check "$d1" "${c1[@]}"
		tap_check "$d2" "$@"
		return 0
	fi
	f=$(mktemp /tmp/tap-both.XXXXXX)
	# errexit off, as for a command tap_check runs in $(...)
	(
		set +e
		"${c1[@]}"
	) > "$f" 2>&1 &
	p=$!
	out2=$("$@" 2>&1) || rc2=$?
	wait "$p" || rc1=$?
	tap_result "$d1" "$rc1" "$(cat "$f")"
	tap_result "$d2" "$rc2" "$out2"
	rm -f "$f"
}

tap_done() {
	if [ -z "$tap_planned" ]; then
		echo "# no plan: the script never called tap_plan"
		return 1
	fi
	if [ "$tap_n" != "$tap_planned" ]; then
		echo "# planned $tap_planned points, ran $tap_n"
		return 1
	fi
	if [ "$tap_failed" -gt 0 ]; then
		echo "# $tap_failed of $tap_n failed"
		return 1
	fi
	echo "# all $tap_n passed"
}

# vlan_supported: whether the kernel has 802.1Q at all (any other error:
# let the test say).
vlan_supported() {
	local out
	if out=$(ip link add link lo name cxvlanprobe type vlan id 1 2>&1); then
		ip link del cxvlanprobe
		return 0
	fi
	! grep -q 'Unknown device type' <<< "$out"
}

# has_line FILE REGEX: FILE has a line matching REGEX (read in bash, no
# exec).
has_line() {
	local line
	[ -r "$1" ] || return 1
	while IFS= read -r line; do
		[[ $line =~ $2 ]] && return 0
	done < "$1"
	return 1
}

# dmesg_mark: write a unique line into the kernel log (/dev/kmsg) and
# print it, for dmesg_since: a step's log lines are those after its
# mark, not whatever an earlier step (or boot) left in the buffer.
dmesg_mark() {
	local m="cxen-test: mark $EPOCHREALTIME.$BASHPID.$RANDOM"

	echo "$m" > /dev/kmsg || return 1
	echo "$m"
}

# dmesg_since MARK: the kernel log lines after MARK (dmesg_mark's line);
# fails when MARK is not in the log (never written, or rotated out of
# the buffer: then what came after it is not all there either).
dmesg_since() {
	dmesg | awk -v m="$1" 'f { print } index($0, m) { f = 1 } END { exit !f }'
}

# dmesg_has MARK REGEX: a kernel log line after MARK matches REGEX
# (grep -E); prints the last such line.
dmesg_has() {
	local out

	out=$(dmesg_since "$1") || { echo "mark '$1' not in the kernel log"; return 1; }
	out=$(grep -E -- "$2" <<< "$out") || { echo "no kernel log line since the mark matches: $2"; return 1; }
	tail -1 <<< "$out"
}

# iperf3_run SERVER_NS SERVER_ADDR CLIENT_NS SECONDS: TCP stream from the
# client to the server; prints the receiver's throughput line.
iperf3_run() {
	local sns=$1 addr=$2 cns=$3 secs=$4 log i spid out
	log=$(mktemp /tmp/iperf3-server.XXXXXX)
	nsexec "$sns" iperf3 -s -1 -B "$addr" --forceflush > "$log" 2>&1 &
	spid=$!
	# iperf3 says it listens once it does (after listen()); read in
	# bash: polling ss cost two execs a round (~0.5 s on the debug kernel).
	for ((i = 0; i < 100; i++)); do
		has_line "$log" '^Server listening' && break
		nap 0.1
	done
	if ! out=$(timeout $((secs + 20)) nsexec "$cns" \
			iperf3 -c "$addr" -t "$secs" -f m --connect-timeout 5000 2>&1); then
		printf '%s\n' "$out"
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		cat "$log"
		rm -f "$log"
		return 1
	fi
	wait "$spid" 2>/dev/null
	rm -f "$log"
	printf '%s\n' "$out" | awk '/receiver/ { print $(NF-2), $(NF-1) }'
}

# ethtool_stats NS DEV: "tx_packets tx_bytes rx_packets rx_bytes" of
# ethtool -S (one ethtool run: they are slow on the debug kernel).
# Prints: tx_packets tx_bytes rx_packets rx_bytes, then the frames the
# device dropped on the way out (MTU, link down, the rest of an LSO WQE
# whose payload it could not read) and on the way in (no
# buffer, CQ full, MTU, queue error; not the RX filter's, which follow),
# then the frames the driver dropped after the device delivered them
# (error CQEs, the device's own and injected ones, flushes excluded; bad
# lengths and CQEs; no skb: rx_skb_alloc_fail, not rx_alloc_fail, which
# also counts refills that lose no frame), then the frames the RX filter refused
# and their bytes (hw_rx_filtered, hw_rx_filtered_bytes: the stack's
# router solicitations and MLD reports to groups the peer never joined).
ethtool_stats() {
	nsexec "$1" ethtool -S "$2" | awk '
		$1 == "tx_packets:" { tp = $2 } $1 == "tx_bytes:" { tb = $2 }
		$1 == "rx_packets:" { rp = $2 } $1 == "rx_bytes:" { rb = $2 }
		$1 == "hw_rx_filtered:" { fp = $2 } $1 == "hw_rx_filtered_bytes:" { fb = $2 }
		$1 ~ /^hw_tx_(oversize|link_down|discarded):$/ { txd += $2 }
		$1 ~ /^hw_rx_(oversize|no_rq|out_of_buffer|cq_overrun|queue_error):$/ { rxd += $2 }
		$1 ~ /^rx_(err_cqe|oversize|bad_cqe|skb_alloc_fail):$/ { drvd += $2 }
		END {
			if (tp == "" || tb == "" || rp == "" || rb == "" || fp == "" || fb == "") exit 1
			print tp, tb, rp, rb, txd + 0, rxd + 0, drvd + 0, fp, fb
		}'
}

# dir_balanced TP TB TXD RP RB RXD DRVD FP FB: one direction balances
# when every frame the sender counted (TP, TB bytes) was received (RP,
# RB) or counted as dropped: by the sending device (TXD), the receiving
# device (RXD), its RX filter (FP frames of FB bytes) or the receiving
# driver (DRVD). The bytes too: exactly TB = RB + FB when no frame was
# dropped but by the filter; else the drops' bytes are not counted
# anywhere, and TB must exceed RB + FB (each dropped frame has bytes).
# Both sides count a VLAN tag alike when the sender's device inserts it
# and the receiver's strips it (FB too leaves out a tag the port would
# strip), or when neither does; a direction whose frames mix the two
# (tx-vlan-offload on one end, rx-vlan-offload off at the other) has 4
# bytes a frame of difference the counters cannot show. Sets bal_bytes
# to how the bytes were compared.
dir_balanced() {
	local tp=$1 tb=$2 txd=$3 rp=$4 rb=$5 rxd=$6 drvd=$7 fp=$8 fb=$9
	local drops=$((txd + rxd + drvd))

	if [ "$drops" = 0 ]; then
		bal_bytes="$tb B = $rb B + $fb B filtered"
	else
		bal_bytes="$tb B > $rb B + $fb B filtered (the $drops other drops' bytes are not counted: not compared exactly)"
	fi
	[ "$tp" -gt 0 ] && [ "$tp" -eq $((rp + drops + fp)) ] || return 1
	if [ "$drops" = 0 ]; then
		[ "$tb" -eq $((rb + fb)) ]
	else
		[ "$tb" -gt $((rb + fb)) ]
	fi
}

# counters_match: cxen0's TX equals cxen1's RX and the other way round,
# packets and bytes, every dropped frame accounted for by a device or
# driver counter (the RX filter's with their bytes). Late IPv6 ND/MLD
# frames may still be in flight: retry for up to 10 s.
counters_match() {
	local i s0 s1 t0p t0b r0p r0b t1p t1b r1p r1b x0 y0 d0 f0 g0 x1 y1 d1 f1 g1 b01 b10
	for ((i = 0; i < 40; i++)); do
		s0=$(ethtool_stats cx0 cxen0) && s1=$(ethtool_stats cx1 cxen1) || {
			echo "ethtool -S lacks tx_packets/tx_bytes/rx_packets/rx_bytes/hw_rx_filtered/hw_rx_filtered_bytes:"
			nsexec cx0 ethtool -S cxen0
			return 1
		}
		read -r t0p t0b r0p r0b x0 y0 d0 f0 g0 <<< "$s0"
		read -r t1p t1b r1p r1b x1 y1 d1 f1 g1 <<< "$s1"
		if dir_balanced "$t0p" "$t0b" "$x0" "$r1p" "$r1b" "$y1" "$d1" "$f1" "$g1" &&
		   b01=$bal_bytes &&
		   dir_balanced "$t1p" "$t1b" "$x1" "$r0p" "$r0b" "$y0" "$d0" "$f0" "$g0"; then
			b10=$bal_bytes
			echo "cxen0 tx $t0p pkts = cxen1 rx $r1p + $f1 filtered + $((x0 + y1 + d1)) other drops, bytes $b01;" \
			     "cxen1 tx $t1p pkts = cxen0 rx $r0p + $f0 filtered + $((x1 + y0 + d0)) other drops, bytes $b10"
			return 0
		fi
		nap 0.25
	done
	echo "cxen0 tx_packets $t0p tx_bytes $t0b, cxen1 rx_packets $r1p rx_bytes $r1b, filtered $f1 frames $g1 B, other drops $((x0 + y1 + d1))"
	echo "cxen1 tx_packets $t1p tx_bytes $t1b, cxen0 rx_packets $r0p rx_bytes $r0b, filtered $f0 frames $g0 B, other drops $((x1 + y0 + d0))"
	# Where did they go? Non-zero drop/error counters of both ports.
	for i in 0 1; do
		nsexec "cx$i" ethtool -S "cxen$i" |
			awk -v p="cxen$i" '$1 ~ /drop|miss|out_of_buf|err|oversize|fail|timeout/ && $2 != 0 { print p, $1, $2 }'
		ip -n "cx$i" -s link show dev "cxen$i" | sed -n '/RX:/,$p'
	done
	return 1
}

# stats_snap NS DEV: every ethtool -S counter as "name value" lines.
stats_snap() {
	nsexec "$1" ethtool -S "$2" |
		awk 'NR > 1 { sub(":", "", $1); print $1, $2 }'
}

# stat_of SNAPSHOT NAME: one counter of a stats_snap output; fails if absent.
# In bash alone: a test reads dozens of counters per point, and each awk
# started costs a tenth of a second on the debug kernel under TCG.
stat_of() {
	local re=$'(^|\n)'"${2//./\\.}"$' (-?[0-9]+)(\n|$)'

	[[ $1 =~ $re ]] || return 1
	echo "${BASH_REMATCH[2]}"
}

# stat_delta BEFORE AFTER NAME: AFTER's NAME minus BEFORE's.
stat_delta() {
	local a b
	a=$(stat_of "$1" "$3") && b=$(stat_of "$2" "$3") || return 1
	echo $((b - a))
}

# stat NS DEV NAME: one ethtool -S counter of DEV, read now.
stat() {
	nsexec "$1" ethtool -S "$2" | awk -v n="$3:" '$1 == n { print $2; f = 1 } END { exit !f }'
}

# ethtool in each port's netns.
e0() { nsexec cx0 ethtool "$@"; }
e1() { nsexec cx1 ethtool "$@"; }

# cxen_devlink: the devlink handle of the ports' device, bus/name of the
# bus device ethtool -i names (platform/cxsim). The instance stays in the
# initial netns when the ports move.
cxen_devlink() {
	echo "platform/$(e0 -i cxen0 | sed -n 's/^bus-info: //p')"
}

# rx_layout NS DEV: the RX layout DEV's RQs run and why, as its debugfs
# rx_layout says ("striding auto", "pagepool named", ...).
rx_layout() {
	local port dev
	port=$(nsexec "$1" cat "/sys/class/net/$2/dev_port")
	dev=$(basename "$(nsexec "$1" readlink -f "/sys/class/net/$2/device")")
	cat "/sys/kernel/debug/cxen/$dev-port$port/rx_layout"
}

# dl_param DEV NAME: the value of devlink parameter NAME of DEV (in its one
# configuration mode; for driverinit the value the next reload applies).
dl_param() {
	devlink dev param show "$1" name "$2" | sed -n 's/^ *cmode [a-z]* value //p'
}

# point DESCRIPTION FUNCTION [ARGS]: a test point; FUNCTION's output is the
# diagnostic on failure, its last line is appended to the description on
# success.
point() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		tap_ok "$desc${out:+: $(tail -1 <<< "$out")}"
	else
		tap_not_ok "$desc"
		tail -30 <<< "$out" | tap_diag
	fi
}

# wait_for SECONDS COMMAND...: poll COMMAND every 0.2 s until it succeeds.
wait_for() {
	local secs=$1 i
	shift
	for ((i = 0; i < secs * 5; i++)); do
		"$@" >/dev/null 2>&1 && return 0
		nap 0.2
	done
	"$@"
}

# xfer SRV_NS SRV_ADDR CLI_NS BYTES SEED [MSS]: send BYTES of random data
# (a file made once per SEED in /tmp) over TCP with socat from CLI_NS to
# SRV_ADDR in SRV_NS; MSS sets TCP_MAXSEG on the sender. Succeeds when the
# receiver got exactly that file (length and SHA-256); prints both.
xfer() {
	local sns=$1 addr=$2 cns=$3 bytes=$4 seed=$5 mss=${6:-} port=5300
	local src=/tmp/xfer-src.${seed//[^A-Za-z0-9.-]/_} dst=/tmp/xfer-dst.$$
	local spid sums lis con i h1 h2 slog=/tmp/xfer-srv.$BASHPID
	# Few execs: each costs most of a second in a busy TCG guest.
	[ -f "$src" ] || head -c "$bytes" /dev/urandom > "$src"
	rm -f "$dst" "$slog"
	if [[ $addr == *:* ]]; then
		lis="TCP6-LISTEN:$port,bind=[$addr],reuseaddr"
		con="TCP6:[$addr]:$port"
	else
		lis="TCP4-LISTEN:$port,bind=$addr,reuseaddr"
		con="TCP4:$addr:$port"
	fi
	# -d -d: socat notes "listening on" once it listens (read in bash, not
	# with ss: two execs a round).
	timeout 120 nsexec "$sns" socat -d -d -u "$lis" "CREATE:$dst" 2> "$slog" &
	spid=$!
	for ((i = 0; i < 200; i++)); do
		has_line "$slog" ' listening on ' && break
		nap 0.1
	done
	if ! timeout 120 nsexec "$cns" socat -u "OPEN:$src" "$con${mss:+,mss=$mss}"; then
		echo "sender failed"
		kill "$spid" 2>/dev/null
		wait "$spid" 2>/dev/null
		grep -v ' N ' "$slog" || true
		rm -f "$slog"
		return 1
	fi
	if ! wait "$spid"; then
		echo "receiver failed"
		grep -v ' N ' "$slog" || true
		rm -f "$slog"
		return 1
	fi
	rm -f "$slog"
	sums=$(sha256sum "$src" "$dst" | awk '{ printf "%s ", $1 }')
	echo "sent $(wc -c < "$src") B, received $(wc -c < "$dst") B; SHA-256 sent, received: $sums"
	rm -f "$dst"
	read -r h1 h2 <<< "$sums"
	[ "$h1" = "$h2" ] && [ "$(wc -c < "$src")" = "$bytes" ]
}

# drop_sum SNAP: the sum of the counters of a stats_snap output that the
# caller's $drop_re (an awk regex of counter names) calls drops.
# shellcheck disable=SC2154 # drop_re: the caller's
drop_sum() {
	awk -v re="$drop_re" '$1 ~ re { s += $2 } END { print s + 0 }' <<< "$1"
}

# drops_moved PORT S0 S1: " PORT name +N" for each $drop_re counter that
# grew from snapshot S0 to S1 (which ones a failed no-drop point saw).
# shellcheck disable=SC2154 # drop_re: the caller's
drops_moved() {
	awk -v re="$drop_re" -v port="$1" 'NR == FNR { if ($1 ~ re) a[$1] = $2; next }
		$1 ~ re && $2 != a[$1] { printf " %s %s +%d", port, $1, $2 - a[$1] }' \
		<(printf '%s\n' "$2") <(printf '%s\n' "$3")
}

# newer_ethtool: the path of an ethtool with tcp-data-split (Debian 12's
# 6.1 has none): the one suite.sh passes (CXEN_ETHTOOL_DIR), else what
# scripts/newer-ethtool unpacked into the cache.
newer_ethtool() {
	local et

	if [ -n "${CXEN_ETHTOOL_DIR:-}" ]; then
		echo "$CXEN_ETHTOOL_DIR/ethtool"
		return
	fi
	for et in "${CXEN_CACHE:-/var/cache/cxen}"/ethtool-*/usr/sbin/ethtool; do :; done
	echo "$et"
}

# switch_under_iperf3 N FN: an iperf3 stream from cx0 into cxen1 for 12 s
# and, from 2 s in, FN I for I = 0 .. N - 1, 0.5 s apart. Leaves "K of N
# switches of cxen1 under iperf3 (its summary), frames dropped (device and
# driver, both ports) D" and the drop counters that moved in sw_summary,
# cxen1's snapshots before and after in sw_a1 and sw_b1 for the caller's
# own counters. Succeeds when every FN did and nothing was dropped
# ($drop_re).
# shellcheck disable=SC2034 # sw_summary: the caller's
switch_under_iperf3() {
	local n=$1 fn=$2 a0 b0 ipid i ok=0 d out
	a0=$(stats_snap cx0 cxen0)
	sw_a1=$(stats_snap cx1 cxen1)
	out=$(mktemp)
	iperf3_run cx1 192.0.2.2 cx0 12 > "$out" 2>&1 &
	ipid=$!
	nap 2
	for ((i = 0; i < n; i++)); do
		if "$fn" "$i"; then
			ok=$((ok + 1))
		fi
		nap 0.5
	done
	wait "$ipid" || { cat "$out"; rm -f "$out"; echo "iperf3 failed"; return 1; }
	b0=$(stats_snap cx0 cxen0)
	sw_b1=$(stats_snap cx1 cxen1)
	d=$(($(drop_sum "$b0") - $(drop_sum "$a0") + $(drop_sum "$sw_b1") - $(drop_sum "$sw_a1")))
	sw_summary="$ok of $n switches of cxen1 under iperf3 ($(cat "$out")), frames dropped (device and driver, both ports) $d$(drops_moved cxen0 "$a0" "$b0")$(drops_moved cxen1 "$sw_a1" "$sw_b1")"
	rm -f "$out"
	[ "$ok" = "$n" ] && [ "$d" = 0 ]
}

# n0/n1 COMMAND...: COMMAND in cxen0's namespace (cx0) or cxen1's (cx1).
n0() { nsexec cx0 "$@"; }
n1() { nsexec cx1 "$@"; }

# pair_mtu MTU: both ports' MTU.
pair_mtu() {
	ip -n cx0 link set dev cxen0 mtu "$1" && ip -n cx1 link set dev cxen1 mtu "$1"
}

# vlan_pair VID: an 802.1Q device of VLAN VID on each port, cxen0.VID
# 198.51.100.1/24 and cxen1.VID 198.51.100.2/24, both up.
vlan_pair() {
	local vid=$1
	n0 ip link add link cxen0 name "cxen0.$vid" type vlan id "$vid" &&
	n1 ip link add link cxen1 name "cxen1.$vid" type vlan id "$vid" &&
	n0 ip addr add 198.51.100.1/24 dev "cxen0.$vid" &&
	n1 ip addr add 198.51.100.2/24 dev "cxen1.$vid" &&
	n0 ip link set "cxen0.$vid" up && n1 ip link set "cxen1.$vid" up
}
