#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Native XDP on the cxen pair (TAP output; Documentation/xdp.rst).
#
#   tests/integration/xdp.sh [tests/vm/run options]   on the host: builds
#       the test programs (tests/xdp/, clang's BPF target, into
#       build/xdp/), prepares tools/net/ynl (tests/reliability/
#       prepare-tools), boots the VM (stock kernel unless --kernel debug)
#       with --pair and runs itself inside.
#
# The programs (tests/xdp/xdp_act.bpf.c) are loaded once with bpftool and
# pinned in a bpffs under /run; a verdict for the test's UDP frames is set
# in their cfg map, every other frame passes and is counted in their stats
# map, so each counter delta below is exact: the verdict's counter moves
# by the frames sent, rx_xdp_pass by the others the program saw. Payloads
# are checked datagram by datagram and as a SHA-256 of the whole
# (xdp-frames.py). On cxen1 (netns cx1), frames from cx0:
#
#   - xdp-tools' xdp-loader: load (libxdp's dispatcher), status, unload;
#   MTU 1500, xdp_act without frags support (one buffer per frame):
#   - attach on the running port under a 50 Hz ping: nothing lost;
#     xdp-features (netlink dev-get) gains ndo-xmit and ndo-xmit-sg;
#   - XDP_DROP: rx_xdp_drop +N, and not one page allocated (direct
#     recycling into the page_pool: no page_pool_state_hold event, and
#     rx_page_alloc +0); XDP_PASS:
#     all N intact; XDP_TX (addresses and ports swapped): all N back at
#     the sender intact, rx_xdp_tx +N, at most one doorbell per frame;
#     XDP_ABORTED: rx_xdp_aborted +N and N xdp:xdp_exception events;
#   - XDP_TX under a UDP flood while ethtool -G rx restarts both RX queues
#     6 times: every old RQ's page_pool (detached) gets all its pages back
#     within 20 s, XDP_TX WQEs posted before a restart included;
#   - the XDP SQ failing a WQE (the model's sq_error_sqn): reset in place
#     (tx_recover +1), then N XDP_TX frames all back intact;
#   - XDP_REDIRECT through a devmap to cxen0 (the frames' port rewritten,
#     so that they pass when they come back to cxen1 over the wire):
#     without a program on cxen0 each one fails (no ndo-xmit), rx_xdp_drop
#     +N; with one, rx_xdp_redirect +N on cxen1, tx_xdp_xmit +N on cxen0,
#     all N intact;
#   - from a veth: a program on a veth in cx0 (native veth XDP) redirects
#     frames sent into the veth pair to cxen0 (ndo_xdp_xmit): all intact
#     at cxen1, tx_xdp_xmit +N on cxen0;
#   - the skb as the program left it: the outer Ethernet header stripped
#     (bpf_xdp_adjust_head), 16 bytes cut (bpf_xdp_adjust_tail), 16 added
#     and written, 4 bytes of metadata (bpf_xdp_adjust_meta) seen at tc
#     ingress (tests/xdp/tc_meta.bpf.c, a tcx link);
#   - replace under a ping (another program, its verdict XDP_DROP): the
#     CQs not rebuilt, nothing lost, the new program's verdict in force;
#   - bad input: MTU 9000 refused while the program is attached, with a
#     message naming the limit, nothing changed; detach under a ping,
#     nothing lost, ndo-xmit gone; a detach of nothing accepted; at MTU
#     9000 the program refused with an extack naming the largest MTU;
#   MTU 9000 (both ports), xdp_act_frags (xdp.frags): the same verdicts
#   and edits on 8000-byte frames, three buffers each (the tail grown in
#   the last page), redirect and the veth at 9000 too (ndo-xmit-sg); a
#   replace by the program without frags support refused;
#   - ethtool -G, -L, MTU 1500 and back, link down and up with the
#     program attached: after each the program runs, every frame it
#     passes arrives;
#   - a program attached to the port while it is down: accepted, in force
#     when it comes up;
#   - 100 x (20 x on the debug kernel: CXEN_XDP_CYCLES) attach, replace,
#     detach under iperf3: iperf3 ends well, each
#     frame the programs saw counted once (their stats = the rx_xdp_*
#     deltas);
#   - RX metadata kfuncs (xdp_rxmeta, loaded bound to cxen1): the RSS
#     hash is the Toeplitz hash of the datagrams' 4-tuple under the
#     port's key, the stripped VLAN tag is the VLAN interface's,
#     -ENODATA with rxvlan or rxhash off (needs kernel BTF: stock only);
#   - rmmod cxen: no page_pool holds a page 60 s later (netlink
#     page-pool-get), the pair set up again.
#
# CXEN_XDP_N (default 100) and CXEN_XDP_NMB (32) set the frame counts.
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	here=$(cd "$(dirname "$0")" && pwd)
	make -s -C "$here/../xdp" || exit 1
	"$here/../reliability/prepare-tools" || exit 1
	exec "$here/../vm/run" --pair "$@" -- tests/integration/xdp.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"

export PYTHONDONTWRITEBYTECODE=1
obj=$CXEN_ROOT/build/xdp
frames=$CXEN_ROOT/tests/integration/xdp-frames.py
ynl_dir=$CXEN_ROOT/build/selftests/tools/net/ynl
netdev_spec=$CXEN_ROOT/build/selftests/Documentation/netlink/specs/netdev.yaml
bpffs=/run/cxen-bpf
tr=/sys/kernel/tracing/instances/cxen-xdp
N=${CXEN_XDP_N:-100}
# The attach/replace/detach rounds under iperf3: each rebuilds the RQs
# twice, which the debug kernel pays most: fewer rounds there.
CYCLES=${CXEN_XDP_CYCLES:-100}
[ "$CXEN_KERNEL" != debug ] || CYCLES=${CXEN_XDP_CYCLES:-20}
NMB=${CXEN_XDP_NMB:-32}
SZ=1000
SZMB=8000

# Verdicts (include/uapi/linux/bpf.h) and the test's ports.
XDP_ABORTED=0
XDP_DROP=1
XDP_PASS=2
XDP_TX=3
XDP_REDIRECT=4
PORT=9000
NEWPORT=9001
VPORT=9002
# stats[] slots (tests/xdp/xdp_test.h)
ST_TEST=0
ST_HEAD=1
ST_TAIL_SHRINK=2
ST_TAIL_GROW=3
ST_META=4
ST_OTHER=5

# Every program instance the test attaches, with its object.
insts="a:xdp_act.o a2:xdp_act.o f:xdp_act_frags.o f2:xdp_act_frags.o
       p0:xdp_act.o p0f:xdp_act_frags.o v:xdp_act.o vf:xdp_act_frags.o
       x:xdp_act.o y:xdp_act.o"


# The frames, counters and maps go through one xdp-frames.py process
# (serve): python's start costs seconds in a busy guest, as does each
# ethtool -S; xq CMD... sends it a command, the reply is in $reply.
srv_start() {
	local fin=/tmp/xdp-srv.in fout=/tmp/xdp-srv.out
	rm -f $fin $fout
	mkfifo $fin $fout || return 1
	python3 "$frames" serve $fin $fout "$ynl_dir" "$netdev_spec" $bpffs $tr &
	srv_pid=$!
	exec 7> $fin
	exec 8< $fout
}

srv_stop() {
	exec 7>&- 8<&-
	wait "$srv_pid" 2>/dev/null || true
}

xq() {
	echo "$*" >&7
	if ! IFS= read -r -t 120 reply <&8; then
		echo "no reply from xdp-frames.py to: $*"
		return 1
	fi
	[[ $reply != error:* ]] || { echo "$reply"; return 1; }
}

# snapd ARRAY NS DEV: ethtool -S of DEV into the associative ARRAY.
snapd() {
	local -n _a=$1
	local kv
	xq stats "$2" "$3" || return 1
	_a=()
	for kv in $reply; do
		_a[${kv%%=*}]=${kv#*=}
	done
}

# psnap ARRAY INST: program instance INST's stats map into ARRAY.
psnap() {
	local -n _a=$1
	local kv
	xq pstats "$2" || return 1
	_a=()
	for kv in $reply; do
		_a[${kv%%=*}]=${kv#*=}
	done
}

declare -A b0 b1 s0 s1 bp sp bpo spi

# before / after: counters of both ports and of program instance $inst.
# The program's counters are read on both sides of the ports' (bpo, bp
# before; spi, sp after): a frame the test did not send (an IPv6 router
# solicitation after a link change, say) may arrive between two reads,
# so the frames the program passed untouched while the driver's counters
# were being read lie between dpi (inner) and dpo (outer).
before() {
	psnap bpo "$inst" && snapd b0 cx0 cxen0 && snapd b1 cx1 cxen1 &&
		psnap bp "$inst"
}
after() {
	psnap spi "$inst" && snapd s0 cx0 cxen0 && snapd s1 cx1 cxen1 &&
		psnap sp "$inst"
}
d0() { echo $((s0[$1] - b0[$1])); }
d1() { echo $((s1[$1] - b1[$1])); }
dp() { echo $((sp[$1] - bp[$1])); }
dpi() { echo $((spi[$1] - bp[$1])); }
dpo() { echo $((sp[$1] - bpo[$1])); }

# expect NAME WANT: cxen1's NAME moved by WANT ("NAME +D" in $report).
expect() {
	local d
	[ -n "${s1[$1]:-}" ] || { echo "no counter $1"; return 1; }
	d=$(d1 "$1")
	report+="$1 +$d "
	[ "$d" = "$2" ] || { echo "$1 +$d, want +$2"; return 1; }
}

# expect_passed N: cxen1's rx_xdp_pass moved by N plus the frames the
# program passed untouched meanwhile (between dpi and dpo of ST_OTHER).
expect_passed() {
	local d lo hi
	d=$(d1 rx_xdp_pass)
	lo=$(($1 + $(dpi $ST_OTHER)))
	hi=$(($1 + $(dpo $ST_OTHER)))
	report+="rx_xdp_pass +$d "
	[ "$d" -ge "$lo" ] && [ "$d" -le "$hi" ] ||
		{ echo "rx_xdp_pass +$d, want +$lo (+$hi with the others the program passed around the reads)"; return 1; }
}

# verdict_counts COUNTER N: COUNTER +N, rx_xdp_pass + the other frames
# the program passed, the other rx_xdp_* +0; the program saw N of its
# test frames.
verdict_counts() {
	local c want=0
	report=""
	[ "$1" = rx_xdp_pass ] && want=$2
	expect_passed "$want" || return 1
	for c in rx_xdp_drop rx_xdp_tx rx_xdp_redirect rx_xdp_aborted; do
		want=0
		[ "$c" = "$1" ] && want=$2
		expect "$c" "$want" || return 1
	done
	[ "$(dp $ST_TEST)" = "$2" ] || { echo "program saw $(dp $ST_TEST) test frames, want $2"; return 1; }
	report+="(the program passed $(dp $ST_OTHER) others)"
}

# cfg INST ACT [PORT [NEWPORT]]
cfg() { xq cfg "$1" "$2" "${3:-$PORT}" "${4:-$NEWPORT}"; }

# udp DST_IP PORT RECV_NS RECV_PORT COUNT SIZE [SRC_NS]: datagrams that
# cxen1's program takes; counts in $sent $got $intact, the reply in $out.
udp() {
	xq udp "${7:-cx0}" "$1" "$2" "$3" "$4" "$5" "$6" cx1 cxen1 || return 1
	out=$reply
	read -r _ sent _ got _ intact _ <<< "$out"
}

# all_intact: every datagram arrived intact and the SHA-256 sums agree.
all_intact() {
	local a b
	a=$(sed -n 's/.*sha256 sent \([0-9a-f]*\) received.*/\1/p' <<< "$out")
	b=$(sed -n 's/.*sha256 sent [0-9a-f]* received \([0-9a-f]*\).*/\1/p' <<< "$out")
	[ "$got" = "$sent" ] && [ "$intact" = "$sent" ] && [ -n "$a" ] && [ "$a" = "$b" ] ||
		{ echo "$out"; return 1; }
}

# attach NS DEV INST: attach (or replace) in native mode.
attach() {
	ip -n "$1" -force link set dev "$2" xdpdrv pinned "$bpffs/$3/prog"
}

detach() {
	ip -n "$1" link set dev "$2" xdpdrv off
}

# prog_id NS DEV: the id of DEV's XDP program, empty for none.
prog_id() {
	ip -n "$1" -d link show dev "$2" | sed -n 's/.*prog\/xdp id \([0-9]*\).*/\1/p' | head -1
}

# inst_id INST: the id of a pinned program.
inst_id() {
	bpftool -j prog show pinned "$bpffs/$1/prog" | sed -n 's/^{"id":\([0-9]*\).*/\1/p'
}

# ping_bg NS ADDR: a 50 Hz ping in the background (ping_pid, ping_log).
ping_bg() {
	ping_log=$(mktemp /tmp/xdp-ping.XXXXXX)
	nsexec "$1" ping -i 0.02 -W 2 "$2" > "$ping_log" 2>&1 &
	ping_pid=$!
	nap 0.5
}

# ping_end: after the operation, let it run on (echoes answered after
# the operation show the path works), stop it and fail on any echo lost:
# an unanswered one before the last answered one. Those after it were
# still on their way when ping stopped (a loaded emulated guest can take
# far more than the 20 ms between two).
ping_end() {
	local res rc mark
	mark=$(grep -c 'icmp_seq=' "$ping_log")
	nap 1.5
	kill -INT "$ping_pid" 2>/dev/null || true
	timeout 10 tail --pid="$ping_pid" -f /dev/null || kill -9 "$ping_pid"
	wait "$ping_pid" 2>/dev/null || true
	res=$(awk -v mark="$mark" '
		/icmp_seq=/ { sub(/.*icmp_seq=/, ""); s = $1 + 0; got[s] = 1; n++
			      if (s > last) last = s }
		/ packets transmitted/ { sent = $1 }
		END {
			for (i = 1; i < last; i++) if (!(i in got)) lost = lost " " i
			printf "ping: %d sent, %d answered (%d after the operation)%s",
			       sent, n, n - mark, lost ? ", lost:" lost : ""
			exit !(n - mark >= 3 && lost == "")
		}' "$ping_log")
	rc=$?
	rm -f "$ping_log"
	echo "$res"
	return $rc
}

# cqns: the model's CQ numbers: a rebuild would change them.
cqns() { awk 'NR > 1 { printf "%s ", $1 }' /sys/kernel/debug/cxsim/cqs; }

# ------------------------------------------------------------------ points

# load_all: every instance loaded and pinned with maps of its own
# ($bpffs/INST/), and tc_meta; one bpftool. bpftool 7.1's batch mode
# fails at the end of a batch of loads that all worked ("reading batch
# file failed: File exists", a stale errno): what was pinned is checked.
load_all() {
	local it
	{
		for it in $insts; do
			mkdir -p "$bpffs/${it%%:*}"
			echo "prog load $obj/${it#*:} $bpffs/${it%%:*}/prog type xdp pinmaps $bpffs/${it%%:*}"
		done
		echo "prog load $obj/tc_meta.o $bpffs/tcmeta type classifier"
	} | bpftool batch file - > /dev/null 2>&1
	for it in $insts; do
		[ -e "$bpffs/${it%%:*}/prog" ] && [ -e "$bpffs/${it%%:*}/cfg" ] ||
			{ echo "${it%%:*} not loaded"; return 1; }
	done
	[ -e "$bpffs/tcmeta" ] || { echo "tc_meta not loaded"; return 1; }
}

# dispatcher_hold: each instance also attached, for the whole test, to a
# veth end that stays down (netns cxen-xdp-hold). The kernel's XDP
# dispatcher (bpf_dispatcher_xdp_func) is rewritten, by a live text poke
# through int3, whenever the set of attached programs changes; QEMU 7.2's
# TCG lets a vCPU running the old code hit that int3 after the poke is
# done (the Oops tests/vm/guest-init avoids for netstamp_needed_key; seen
# here in the 100 cycles). With every program already in the set,
# attaching one to cxen changes nothing there: the driver's attach,
# replace and detach are the same.
# port_quiet, port_back: cxen1 down while a program new to the kernel's
# XDP dispatcher is attached or detached, then up again with its carrier
# and the neighbour answering. The core rewrites the dispatcher after the
# driver took the program, so a frame arriving on the running port would
# run the dispatcher under the text poke (the TCG hazard of
# dispatcher_hold); with the port down, no XDP program runs anywhere.
port_quiet() {
	n1 ip link set dev cxen1 down
}

port_back() {
	n1 ip link set dev cxen1 up && cxen_pair_wait_carrier &&
		wait_for 5 n0 ping -c 1 -W 1 192.0.2.2 > /dev/null
}

dispatcher_hold() {
	local i=0 it batch=""
	ip netns add cxen-xdp-hold || return 1
	for it in $insts; do
		if ((i % 2 == 0)); then
			batch+="link add h$i type veth peer name h$((i + 1))"$'\n'
		fi
		batch+="link set dev h$i xdpdrv pinned $bpffs/${it%%:*}/prog"$'\n'
		i=$((i + 1))
	done
	ip -n cxen-xdp-hold -batch - <<< "$batch"
}

# setup: the server (xdp-frames.py serve) runs already.
setup() {
	local it
	load_all || return 1
	# Static keys and the dispatcher flipped now, before any XDP traffic.
	dispatcher_hold || return 1
	echo 1 > $tr/events/xdp/xdp_exception/enable || return 1
	echo 1 > $tr/events/page_pool/page_pool_state_hold/enable || return 1
	xq tcx cx1 cxen1 "$bpffs/tcmeta" "$bpffs/tcmeta-link" || return 1
	for it in $insts; do
		cfg "${it%%:*}" $XDP_PASS 0 || return 1
	done
	# XDP_REDIRECT goes to cxen0 (slot 0 of the devmaps, as cx0 knows it).
	for it in a f v vf; do
		xq devmap $it cx0 cxen0 || return 1
	done
	# Static neighbours: no ARP through the programs mid-test.
	n0 ip neigh replace 192.0.2.2 lladdr "$(n1 cat /sys/class/net/cxen1/address)" dev cxen0 nud permanent
	n1 ip neigh replace 192.0.2.1 lladdr "$(n0 cat /sys/class/net/cxen0/address)" dev cxen1 nud permanent
	xq features cx1 cxen1 || return 1
	echo "xdp-features without a program: $reply"
	[ "$reply" = "basic redirect rx-sg" ]
}

# xdp_loader: xdp-tools' loader attaches tests/xdp/xdp_count.bpf.c
# (xdp.frags) natively, shows it in its status, detaches it. libxdp puts
# it in its dispatcher program where the kernel has BTF (the stock one),
# else attaches it alone (the debug kernel, built without debug info).
# Before any XDP traffic: a new program set pokes the kernel's XDP
# dispatcher (dispatcher_hold).
xdp_loader() {
	local st how
	# Programs new to the XDP dispatcher: changed with no XDP traffic
	# (port_quiet).
	port_quiet || return 1
	LIBXDP_BPFFS=$bpffs n1 xdp-loader load ${CXEN_XDP_LOADER_V:+-vv} -m native cxen1 "$obj/xdp_count.o" || return 1
	st=$(LIBXDP_BPFFS=$bpffs n1 xdp-loader status cxen1) || return 1
	LIBXDP_BPFFS=$bpffs n1 xdp-loader unload --all cxen1 || return 1
	port_back || return 1
	if grep -q 'cxen1 .*xdp_dispatcher *native' <<< "$st" && grep -q 'xdp_count ' <<< "$st"; then
		how="in libxdp's dispatcher"
	elif grep -q 'cxen1 .*xdp_count *native' <<< "$st"; then
		how="alone (no kernel BTF for libxdp's dispatcher)"
	else
		echo "$st"
		return 1
	fi
	[ -z "$(prog_id cx1 cxen1)" ] && echo "xdp_count native on cxen1, $how; unloaded"
}

attach_running() {
	ping_bg cx0 192.0.2.2
	attach cx1 cxen1 "$inst" || { ping_end; return 1; }
	ping_end || return 1
	[ "$(prog_id cx1 cxen1)" = "$(inst_id "$inst")" ] || { echo "prog id $(prog_id cx1 cxen1)"; return 1; }
	xq features cx1 cxen1 || return 1
	echo "attached (id $(prog_id cx1 cxen1)); xdp-features: $reply"
	[ "$reply" = "basic ndo-xmit ndo-xmit-sg redirect rx-sg" ]
}

# act_drop N SIZE: the dropped frames' pages go back to the ring's
# page_pool and refill it: no pool takes a page from the page allocator
# meanwhile (page_pool_state_hold, traced on both kernels: Debian's has
# no page_pool statistics), and the driver's own allocations (the
# comparison layouts') stay at +0.
act_drop() {
	local holds
	cfg "$inst" $XDP_DROP && xq trace . && before || return 1
	udp 192.0.2.2 $PORT cx1 $PORT "$1" "$2" && after || return 1
	xq trace page_pool_state_hold || return 1
	holds=$reply
	[ "$sent" = "$1" ] && [ "$got" = 0 ] || { echo "$out"; return 1; }
	verdict_counts rx_xdp_drop "$1" || return 1
	[ "$(d1 rx_page_alloc)" = 0 ] || { echo "rx_page_alloc +$(d1 rx_page_alloc), want +0"; return 1; }
	[ "$holds" = 0 ] || { echo "$report; page_pool_state_hold +$holds: pages taken from the page allocator, want none"; return 1; }
	echo "$report; rx_page_alloc +0, page_pool_state_hold +0"
}

act_pass() {
	cfg "$inst" $XDP_PASS && before || return 1
	udp 192.0.2.2 $PORT cx1 $PORT "$1" "$2" && after || return 1
	all_intact && verdict_counts rx_xdp_pass "$1" && echo "$out; $report"
}

act_tx() {
	local db
	cfg "$inst" $XDP_TX && before || return 1
	udp 192.0.2.2 $PORT echo 0 "$1" "$2" && after || return 1
	all_intact && verdict_counts rx_xdp_tx "$1" && report+="; " && expect tx_xdp_full 0 || return 1
	db=$(d1 xdp_tx_doorbell)
	[ "$db" -ge 1 ] && [ "$db" -le "$1" ] || { echo "xdp_tx_doorbell +$db for $1 frames"; return 1; }
	echo "$out; $report; $db doorbells for $1 XDP_TX frames"
}

# xdp_tx_restarts: XDP_TX under a UDP flood from cx0 while ethtool -G rx
# rebuilds cxen1's two RX queues one at a time (the per-queue restart), 6
# times. An XDP_TX WQE posted before a restart holds pages of the old
# RQ's page_pool, which the driver destroys right after the restart:
# every detached pool must get all its pages back within 20 s (a page
# recycled into a destroyed pool's cache never comes back), the frames
# went out (rx_xdp_tx, tx_xdp_* counters), and the restarts happened.
# The device takes 2 ms per WQE meanwhile (the model's delay_us), so that
# the XDP SQ holds WQEs that complete after the restart destroyed their
# pool, as a busy device's would.
xdp_tx_restarts() {
	local i fpid rc=0 ch ring t0 t1 t2
	ch=$(n1 ethtool -l cxen1 | awk '/^Combined/ { v = $2 } END { print v }')
	n1 ethtool -L cxen1 combined 2 && cfg "$inst" $XDP_TX && before || return 1
	# nsexec itself, not n0: $! is then the process that execs into
	# timeout, which passes the kill on to socat (killing n0's subshell
	# left socat flooding until its timeout, and the counters never
	# settled for after(): the point took 61 s, 5 of them its changes).
	nsexec cx0 timeout 60 socat -u -b $SZ /dev/zero "UDP4-SENDTO:192.0.2.2:$PORT" 2> /dev/null &
	fpid=$!
	nap 1
	echo 2000 > /sys/kernel/debug/cxsim/fault/delay_us
	t0=$(date +%s%N)
	for i in 1 2 3 4 5 6; do
		ring=$((i % 2 ? 512 : 1024))
		n1 ethtool -G cxen1 rx $ring || { echo "ethtool -G cxen1 rx $ring failed"; rc=1; }
		nap 0.3
	done
	t1=$(date +%s%N)
	echo 0 > /sys/kernel/debug/cxsim/fault/delay_us
	kill "$fpid" 2> /dev/null
	wait "$fpid" 2> /dev/null || true
	after || rc=1
	report="rx_xdp_tx +$(d1 rx_xdp_tx), rx_queue_restart +$(d1 rx_queue_restart), tx_xdp_full +$(d1 tx_xdp_full); the 6 changes took $(((t1 - t0) / 1000000)) ms"
	# Every queue rebuilt at every ring change; frames reflected all along.
	[ "$(d1 rx_queue_restart)" = 12 ] || rc=1
	[ "$(d1 rx_xdp_tx)" -gt 100 ] || rc=1
	t1=$(date +%s%N)
	if ! xq dpools cx1 20 || [ "$reply" != ok ]; then
		report+="; old pools still holding pages 20 s later: $reply"
		rc=1
	fi
	t2=$(date +%s%N)
	report+="; old pools empty after $(((t2 - t1) / 1000000)) ms"

	n1 ethtool -G cxen1 rx 1024 && n1 ethtool -L cxen1 combined "$ch" || rc=1
	echo "$report"
	return $rc
}

# tx_recovered P: cxen<P>'s counters read into s<P> every 0.2 s, for 10 s
# at most, until its tx_recover moved since before(). Fails only when a
# read does: the caller checks the counters.
tx_recovered() {
	local i
	for i in $(seq 50); do
		if [ "$1" = 0 ]; then
			snapd s0 cx0 cxen0 || return 1
			[ "$(d0 tx_recover)" -lt 1 ] || return 0
		else
			snapd s1 cx1 cxen1 || return 1
			[ "$(d1 tx_recover)" -lt 1 ] || return 0
		fi
		nap 0.2
	done
}

# xsq_recover: cxen1's XDP SQ fails a WQE (the model's sq_error_sqn, on
# one channel so that the test's flow meets it): the SQ is reset in
# place (tx_recover +1, recover_fail +0, within 10 s), and the next $N
# XDP_TX frames all come back intact. Frames that met the SQ while it
# waited for its reset are lost, counted in rx_xdp_drop.
xsq_recover() {
	local dbg=/sys/kernel/debug/cxsim sqn chans rc=0

	chans=$(n1 ethtool -l cxen1 | awk '/^Combined/ { v = $2 } END { print v }')
	n1 ethtool -L cxen1 combined 1 && cfg "$inst" $XDP_TX || return 1
	# The XDP SQ: 128-byte WQEs (log_stride 7), on port 1.
	sqn=$(awk 'NR > 1 && $2 == 1 && $5 == 7 { print $1 }' $dbg/sqs)
	if [ -z "$sqn" ] || [ "$(wc -w <<< "$sqn")" != 1 ]; then
		echo "XDP SQs of port 1: '$sqn', want one"
		rc=1
	fi
	[ "$rc" = 0 ] && before && echo "$sqn" > $dbg/fault/sq_error_sqn || rc=1
	[ "$rc" = 0 ] && udp 192.0.2.2 $PORT echo 0 "$N" $SZ || rc=1
	[ "$rc" = 0 ] && { tx_recovered 1 || rc=1; }
	report="XDP SQ $sqn failed: first $N: $out; tx_recover +$(d1 tx_recover), recover_fail +$(d1 recover_fail), tx_err_cqe +$(d1 tx_err_cqe); "
	[ "$rc" = 0 ] && [ "$(d1 tx_recover)" = 1 ] && [ "$(d1 recover_fail)" = 0 ] &&
		[ "$(d1 tx_err_cqe)" -ge 1 ] && [ "$(cat $dbg/fault/sq_error_sqn)" = -1 ] || rc=1
	if [ "$rc" = 0 ]; then
		local r1=$report
		before && udp 192.0.2.2 $PORT echo 0 "$N" $SZ && after &&
			all_intact && verdict_counts rx_xdp_tx "$N" || rc=1
		report="$r1 then: $out; $report"
	fi
	echo -1 > $dbg/fault/sq_error_sqn
	n1 ethtool -L cxen1 combined "$chans" || rc=1
	echo "$report"
	return $rc
}

act_aborted() {
	cfg "$inst" $XDP_ABORTED && xq trace . && before || return 1
	udp 192.0.2.2 $PORT cx1 $PORT "$1" "$2" && after || return 1
	[ "$got" = 0 ] && verdict_counts rx_xdp_aborted "$1" || return 1
	xq trace 'xdp_exception:.prog_id=[0-9]+.action=ABORTED' || return 1
	[ "$reply" = "$1" ] || { echo "$reply xdp_exception events, want $1"; return 1; }
	echo "$report; $reply xdp:xdp_exception events"
}

# redirect_fails N SIZE: cxen0 has no program, so no ndo-xmit: each
# redirect fails, is counted as a drop and traced.
redirect_fails() {
	cfg "$inst" $XDP_REDIRECT && xq trace . && before || return 1
	udp 192.0.2.2 $PORT cx1 $NEWPORT "$1" "$2" && after || return 1
	[ "$got" = 0 ] && verdict_counts rx_xdp_drop "$1" || return 1
	[ "$(d0 tx_xdp_xmit)" = 0 ] || { echo "cxen0 tx_xdp_xmit +$(d0 tx_xdp_xmit)"; return 1; }
	xq trace 'xdp_exception:.prog_id=[0-9]+.action=REDIRECT' || return 1
	[ "$reply" = "$1" ] || { echo "$reply xdp_exception events, want $1"; return 1; }
	echo "$report; cxen0 tx_xdp_xmit +0; $reply xdp:xdp_exception events"
}

# act_redirect N SIZE P0: to cxen0, which runs program P0 (passes all).
act_redirect() {
	cfg "$inst" $XDP_REDIRECT && attach cx0 cxen0 "$3" && before || return 1
	udp 192.0.2.2 $PORT cx1 $NEWPORT "$1" "$2" && after || return 1
	all_intact && verdict_counts rx_xdp_redirect "$1" || return 1
	[ "$(d0 tx_xdp_xmit)" = "$1" ] || { echo "cxen0 tx_xdp_xmit +$(d0 tx_xdp_xmit), want +$1"; return 1; }
	echo "$out; $report; cxen0 tx_xdp_xmit +$1"
}

# veth_setup: netns vx with vx0 (192.0.2.3) paired with vxb in cx0.
veth_setup() {
	ip netns add vx &&
		ip -n cx0 link add vxb type veth peer name vx0 netns vx &&
		ip -n vx addr add 192.0.2.3/24 dev vx0 &&
		ip -n vx link set vx0 up && ip -n cx0 link set vxb up &&
		ip -n vx neigh replace 192.0.2.2 lladdr "$(n1 cat /sys/class/net/cxen1/address)" dev vx0 nud permanent &&
		n1 ip neigh replace 192.0.2.3 lladdr "$(n0 cat /sys/class/net/cxen0/address)" dev cxen1 nud permanent
}

# ndo_xmit_recover: cxen0 on one channel, which only sends what a veth
# redirects into it (ndo_xdp_xmit, a UDP flood from vx), has its SQ
# reset (the model's sq_error_sqn, hit by one ping): the reset runs
# with NAPI off, and an XDP SQ completion that raises its interrupt then
# goes unanswered, its CQ disarmed. The reset must schedule NAPI, whose
# poll takes those completions and arms every CQ of the channel (issue
# 40, bug 5: the reset armed the SQ's and RQ's CQs only, and the XDP SQ
# filled, dropping every later redirect to cxen0 until other traffic
# reached the channel). After it, with the flood stopped and no other
# traffic, 2048 frames redirected into cxen0, more than the XDP SQ's
# ring holds, all arrive intact.
ndo_xmit_recover() {
	local dbg=/sys/kernel/debug/cxsim sqn chans fpid rpid rc=0 nx=2048
	chans=$(n0 ethtool -l cxen0 | awk '/^Combined/ { v = $2 } END { print v }')
	n0 ethtool -L cxen0 combined 1 || return 1
	cfg v $XDP_REDIRECT $VPORT $VPORT && attach cx0 vxb v || rc=1
	# cxen0's SQ: port 0, 64-byte WQEs (its XDP SQ's are 128: log_stride 7).
	sqn=$(awk 'NR > 1 && $2 == 0 && $5 != 7 { print $1 }' $dbg/sqs)
	if [ -z "$sqn" ] || [ "$(wc -w <<< "$sqn")" != 1 ]; then
		echo "SQs of port 0 but its XDP SQ: '$sqn', want one"
		rc=1
	fi
	# A socket in cx1 takes the flood (no ICMP back to cxen0).
	nsexec cx1 socat -u UDP4-RECV:$VPORT /dev/null &
	rpid=$!
	nsexec vx timeout 60 socat -u -b $SZ /dev/zero \
		"UDP4-SENDTO:192.0.2.2:$VPORT,sourceport=$VPORT" 2> /dev/null &
	fpid=$!
	nap 1
	[ "$rc" = 0 ] && before && echo "$sqn" > $dbg/fault/sq_error_sqn || rc=1
	[ "$rc" = 0 ] && { n0 ping -c 1 -W 1 -q 192.0.2.2 > /dev/null || true; }
	[ "$rc" = 0 ] && { tx_recovered 0 || rc=1; }
	# The flood goes on past the reset, then stops.
	nap 1
	kill "$fpid" 2> /dev/null
	wait "$fpid" 2> /dev/null || true
	kill "$rpid" 2> /dev/null
	wait "$rpid" 2> /dev/null || true
	echo -1 > $dbg/fault/sq_error_sqn
	report="cxen0 SQ $sqn reset under a veth flood into cxen0: tx_recover +$(d0 tx_recover), recover_fail +$(d0 recover_fail), tx_xdp_xmit +$(d0 tx_xdp_xmit); "
	[ "$rc" = 0 ] && [ "$(d0 tx_recover)" = 1 ] && [ "$(d0 recover_fail)" = 0 ] || rc=1
	nap 1
	if [ "$rc" = 0 ]; then
		local r1=$report
		before && udp 192.0.2.2 $VPORT cx1 $VPORT "$nx" 64 vx && after || rc=1
		report="$r1 then $nx x 64 B from the veth alone: $out; cxen0 tx_xdp_xmit +$(d0 tx_xdp_xmit)"
		[ "$rc" = 0 ] && all_intact && [ "$(d0 tx_xdp_xmit)" = "$nx" ] || rc=1
	fi
	detach cx0 vxb
	n0 ethtool -L cxen0 combined "$chans" || rc=1
	echo "$report"
	return $rc
}

# veth_redirect N SIZE INST: frames into the veth pair, redirected by the
# veth's program INST to cxen0 (ndo_xdp_xmit), received at cxen1.
veth_redirect() {
	cfg "$3" $XDP_REDIRECT $VPORT $VPORT && attach cx0 vxb "$3" && before || return 1
	udp 192.0.2.2 $VPORT cx1 $VPORT "$1" "$2" vx && after || return 1
	detach cx0 vxb
	all_intact || return 1
	[ "$(d0 tx_xdp_xmit)" = "$1" ] || { echo "cxen0 tx_xdp_xmit +$(d0 tx_xdp_xmit), want +$1"; return 1; }
	[ "$(d0 tx_xdp_full)" = 0 ] || { echo "cxen0 tx_xdp_full +$(d0 tx_xdp_full)"; return 1; }
	echo "$out; cxen0 tx_xdp_xmit +$1"
}

# edit KIND N SIZE SLOT: raw frames the program edits, then passes.
edit() {
	cfg "$inst" $XDP_PASS && before || return 1
	xq raw cx0 cxen0 cx1 cxen1 "$1" "$2" "$3" || return 1
	out=$reply
	after || return 1
	[ "$out" = "$1 sent $2 received $2 ok $2" ] ||
		{ echo "$out; program edited $(dp "$4"), rx_xdp_pass +$(d1 rx_xdp_pass), rx_xdp_aborted +$(d1 rx_xdp_aborted), rx_packets +$(d1 rx_packets)"; return 1; }
	[ "$(dp "$4")" = "$2" ] || { echo "program edited $(dp "$4")"; return 1; }
	report=""
	expect_passed $(($2 + $(dp $ST_TEST))) &&
		expect rx_xdp_aborted 0 && echo "$out; $report"
}

replace_rcu() {
	local c0 c1 old new
	cfg a2 $XDP_DROP || return 1
	old=$(prog_id cx1 cxen1)
	c0=$(cqns)
	ping_bg cx0 192.0.2.2
	attach cx1 cxen1 a2 || { ping_end; return 1; }
	ping_end || return 1
	c1=$(cqns)
	new=$(prog_id cx1 cxen1)
	[ "$c0" = "$c1" ] || { echo "CQs rebuilt: $c0 -> $c1"; return 1; }
	[ "$new" = "$(inst_id a2)" ] && [ "$new" != "$old" ] || { echo "prog id $old -> $new"; return 1; }
	inst=a2
	before && udp 192.0.2.2 $PORT cx1 $PORT "$N" $SZ && after || return 1
	[ "$got" = 0 ] && verdict_counts rx_xdp_drop "$N" || return 1
	echo "program $old -> $new, same CQs ($c1); $report"
}

mtu_refused() {
	local id out
	id=$(prog_id cx1 cxen1)
	if out=$(n1 ip link set dev cxen1 mtu 9000 2>&1); then
		echo "MTU 9000 accepted"
		return 1
	fi
	echo "$out"
	dmesg | tail -5 | grep 'cxen1: MTU 9000 is above 3498, the largest for the attached XDP program' || return 1
	[ "$(n1 cat /sys/class/net/cxen1/mtu)" = 1500 ] && [ "$(prog_id cx1 cxen1)" = "$id" ]
}

detach_running() {
	ping_bg cx0 192.0.2.2
	detach cx1 cxen1 || { ping_end; return 1; }
	ping_end || return 1
	[ -z "$(prog_id cx1 cxen1)" ] || return 1
	xq features cx1 cxen1 || return 1
	echo "detached; xdp-features: $reply"
	[ "$reply" = "basic redirect rx-sg" ]
}

detach_nothing() {
	detach cx1 cxen1 && [ -z "$(prog_id cx1 cxen1)" ] &&
		n0 ping -c 2 -i 0.2 -W 2 192.0.2.2 > /dev/null && echo "accepted, nothing attached"
}

nofrags_refused() {
	local out
	n1 ip link set dev cxen1 mtu 9000 || return 1
	if out=$(attach cx1 cxen1 a 2>&1); then
		echo "attached at MTU 9000"
		return 1
	fi
	echo "$out"
	grep -q 'MTU 9000 is above 3498, the largest for XDP without xdp.frags' <<< "$out" &&
		[ -z "$(prog_id cx1 cxen1)" ] &&
		[ "$(n1 cat /sys/class/net/cxen1/mtu)" = 9000 ]
}

jumbo_attach() {
	n0 ip link set dev cxen0 mtu 9000 && attach cx1 cxen1 f || return 1
	[ "$(prog_id cx1 cxen1)" = "$(inst_id f)" ] && echo "xdp.frags program attached at MTU 9000"
}

frags_replace_refused() {
	local out id
	id=$(prog_id cx1 cxen1)
	if out=$(attach cx1 cxen1 a 2>&1); then
		echo "replaced by a program without frags support at MTU 9000"
		return 1
	fi
	echo "$out"
	grep -q 'MTU 9000 is above 3498' <<< "$out" && [ "$(prog_id cx1 cxen1)" = "$id" ]
}

# reconf: each change, then 8 frames the program passes arrive (the
# largest the MTU takes).
reconf() {
	local step size
	cfg "$inst" $XDP_PASS || return 1
	for step in "ethtool -G cxen1 rx 512 tx 512" "ethtool -L cxen1 combined 2" \
		    "ip link set dev cxen1 mtu 1500" "ip link set dev cxen1 mtu 9000" \
		    "ip link set dev cxen1 down" "ip link set dev cxen1 up"; do
		n1 $step || { echo "$step failed"; return 1; }
		[ "$(prog_id cx1 cxen1)" = "$(inst_id "$inst")" ] || { echo "program gone after $step"; return 1; }
		[[ $step == *down ]] && continue
		wait_for 5 n0 ping -c 1 -W 1 192.0.2.2 > /dev/null || { echo "no ping after $step"; return 1; }
		size=$SZMB
		[ "$(n1 cat /sys/class/net/cxen1/mtu)" -ge 9000 ] || size=$SZ
		before && udp 192.0.2.2 $PORT cx1 $PORT 8 $size && after || return 1
		all_intact && verdict_counts rx_xdp_pass 8 ||
			{ echo "after $step: $out"; return 1; }
		echo "$step: 8 of 8 x $size B passed"
	done
	n1 ethtool -G cxen1 rx 1024 tx 1024 && n1 ethtool -L cxen1 combined 1
}

attach_down() {
	detach cx1 cxen1 && n1 ip link set dev cxen1 down && cfg f2 $XDP_DROP &&
		attach cx1 cxen1 f2 && n1 ip link set dev cxen1 up || return 1
	cxen_pair_wait_carrier || return 1
	wait_for 5 n0 ping -c 1 -W 1 192.0.2.2 > /dev/null || return 1
	before && udp 192.0.2.2 $PORT cx1 $PORT "$NMB" $SZMB && after || return 1
	[ "$got" = 0 ] && verdict_counts rx_xdp_drop "$NMB" || return 1
	echo "attached while down, in force once up: $report"
}

# cycles: 100 x attach x, replace by y, detach (ip -batch, one process)
# while iperf3 runs cx0 -> cx1, round after round until they are done;
# every round must succeed. Every frame the two programs saw must be in
# cxen1's rx_xdp_* counters, once. 64-entry rings: 200 rebuilds of the
# default 1024 take minutes on the debug kernel, and the ring's size is
# not what is tested here.
cycles() {
	local i bpid rc rounds=0 seen counted c batch blog res t0
	local -A bx by sx sy
	n1 ip link set dev cxen1 mtu 1500 && n0 ip link set dev cxen0 mtu 1500 &&
		detach cx1 cxen1 && n1 ethtool -G cxen1 rx 64 tx 64 &&
		cfg x $XDP_PASS && cfg y $XDP_PASS || return 1
	batch=$(mktemp /tmp/xdp-batch.XXXXXX)
	blog=$(mktemp /tmp/xdp-batch-log.XXXXXX)
	for ((i = 0; i < CYCLES; i++)); do
		echo "link set dev cxen1 xdpdrv pinned $bpffs/x/prog"
		echo "link set dev cxen1 xdpdrv pinned $bpffs/y/prog"
		echo "link set dev cxen1 xdpdrv off"
	done > "$batch"
	snapd b1 cx1 cxen1 && psnap bx x && psnap by y || return 1
	t0=$SECONDS
	ip -n cx1 -force -batch "$batch" > "$blog" 2>&1 &
	bpid=$!
	while kill -0 "$bpid" 2>/dev/null; do
		if ! res=$(iperf3_run cx1 192.0.2.2 cx0 3); then
			echo "iperf3 round $((rounds + 1)) failed: $res"
			wait "$bpid" || true
			return 1
		fi
		rounds=$((rounds + 1))
	done
	rc=0
	wait "$bpid" || rc=$?
	[ "$rc" = 0 ] || { echo "ip -batch failed ($rc):"; head "$blog"; return 1; }
	echo "300 changes in $((SECONDS - t0)) s under $rounds iperf3 rounds (the last: $res)"
	rm -f "$batch" "$blog"
	snapd s1 cx1 cxen1 && psnap sx x && psnap sy y || return 1
	seen=0
	for c in $ST_TEST $ST_HEAD $ST_TAIL_SHRINK $ST_TAIL_GROW $ST_META $ST_OTHER; do
		seen=$((seen + sx[$c] - bx[$c] + sy[$c] - by[$c]))
	done
	counted=0
	for c in rx_xdp_pass rx_xdp_drop rx_xdp_tx rx_xdp_redirect rx_xdp_aborted; do
		counted=$((counted + $(d1 "$c")))
	done
	echo "the programs saw $seen frames, cxen1 counted $counted in rx_xdp_*"
	[ "$seen" -gt 0 ] && [ "$seen" = "$counted" ] && [ -z "$(prog_id cx1 cxen1)" ] &&
		n1 ethtool -G cxen1 rx 1024 tx 1024
}

# rxm NAME: field NAME of the last xq rxmeta reply.
rxm() { sed -n "s/.*\b$1=\(-\?[0-9]*\).*/\1/p" <<< "$reply"; }

# rxm_send DST_IP LABEL: 5 datagrams from cx0's UDP port 4242 to DST_IP
# port $PORT, what xdp_rxmeta saw added to $report.
rxm_send() {
	xq rxmeta cx0 "$1" $PORT 4242 5 "$key" || return 1
	report+="$2: $reply; "
	[ "$(rxm seen)" = 5 ] || { echo "$report"; return 1; }
}

# rx_metadata: xdp_rxmeta, bound to cxen1 (BPF_F_XDP_DEV_BOUND_ONLY), asks
# the driver (xdp_metadata_ops) for each frame's RSS hash and stripped
# VLAN tag. The hash is the Toeplitz hash of the datagrams' 4-tuple under
# cxen1's RSS key, of type L4 IPv4 UDP (41), untagged and over VLAN 42;
# the tag is 0x8100/42 over VLAN 42 with rx-vlan-offload on, -ENODATA
# (-61) with it off and untagged; rxhash off: -ENODATA. The
# kfuncs are resolved through the kernel's BTF, which the debug kernel
# does not build: it skips. Attached and detached with cxen1 down
# (port_quiet): the program is new to the XDP dispatcher.
rx_metadata() {
	local key rc=0 want

	key=$(n1 ethtool -x cxen1 | sed -n '/RSS hash key/{n;p;q}')
	[ -n "$key" ] || { echo "no RSS key from ethtool -x"; return 1; }
	mkdir -p $bpffs/rxmeta &&
		n1 "$obj/xdp_rxmeta_load" "$obj/xdp_rxmeta.o" xdp_rxmeta cxen1 $bpffs/rxmeta &&
		bpftool map update pinned $bpffs/rxmeta/cfg key 0 0 0 0 \
			value $((PORT & 255)) $((PORT >> 8)) 0 0 &&
		n0 ip link add link cxen0 name cxen0.42 type vlan id 42 &&
		n1 ip link add link cxen1 name cxen1.42 type vlan id 42 &&
		n0 ip addr add 198.51.100.1/24 dev cxen0.42 &&
		n1 ip addr add 198.51.100.2/24 dev cxen1.42 &&
		n0 ip link set cxen0.42 up && n1 ip link set cxen1.42 up &&
		port_quiet && attach cx1 cxen1 rxmeta && port_back || return 1
	report=""
	# The neighbours resolved before anything is checked.
	wait_for 5 n0 ping -c 1 -W 1 198.51.100.2 > /dev/null || rc=1
	if [ "$rc" = 0 ] && rxm_send 192.0.2.2 plain; then
		want=$(rxm want)
		[ "$(rxm hash_err)" = 0 ] && [ "$(rxm hash)" = "$want" ] &&
			[ "$(rxm hash_type)" = 41 ] && [ "$(rxm vlan_err)" = -61 ] || rc=1
	else
		rc=1
	fi
	if [ "$rc" = 0 ] && rxm_send 198.51.100.2 vlan42; then
		[ "$(rxm hash_err)" = 0 ] && [ "$(rxm hash)" = "$(rxm want)" ] &&
			[ "$(rxm hash_type)" = 41 ] && [ "$(rxm vlan_err)" = 0 ] &&
			[ "$(rxm vlan_proto)" = 33024 ] && [ "$(rxm vlan_tci)" = 42 ] || rc=1
	else
		rc=1
	fi
	if [ "$rc" = 0 ] && n1 ethtool -K cxen1 rxvlan off &&
	   rxm_send 198.51.100.2 "vlan42 rxvlan-off"; then
		[ "$(rxm vlan_err)" = -61 ] || rc=1
	else
		rc=1
	fi
	n1 ethtool -K cxen1 rxvlan on || rc=1
	if [ "$rc" = 0 ] && n1 ethtool -K cxen1 rxhash off &&
	   rxm_send 192.0.2.2 "rxhash-off"; then
		[ "$(rxm hash_err)" = -61 ] || rc=1
	else
		rc=1
	fi
	n1 ethtool -K cxen1 rxhash on || rc=1
	{ port_quiet && detach cx1 cxen1 && port_back; } || rc=1
	n0 ip link del cxen0.42 || rc=1
	n1 ip link del cxen1.42 || rc=1
	echo "$report"
	return $rc
}

# rmmod cxen: no page_pool left holding pages within 60 s; then the
# driver back (whatever happened) for the rest of the VM's run.
unload_pools() {
	local ns rc=0
	rmmod cxen || return 1
	for ns in cx0 cx1 vx; do
		if ! xq pools "$ns" 60 || [ "$reply" != ok ]; then
			echo "netns $ns: $reply"
			rc=1
			break
		fi
	done
	xq forget && insmod "$CXEN_MODDIR/cxen.ko" && cxen_pair_setup || return 1
	[ "$rc" = 0 ] && echo "no page_pool holds a page"
}

[ -n "${CXEN_XDP_TRACE:-}" ] && set -x
tap_plan 42
echo "# kernel $(uname -r) ($CXEN_KERNEL), $N frames of $SZ B, $NMB of $SZMB B"
mkdir -p $bpffs $tr
mount -t bpf bpf $bpffs
srv_start
tap_check "load the programs; xdp-features without one: basic redirect rx-sg" setup
tap_check "xdp-loader (libxdp dispatcher) load, status, unload" xdp_loader
inst=a
tap_check "attach on the running port, a 50 Hz ping across: none lost; + ndo-xmit ndo-xmit-sg" attach_running
tap_check "XDP_DROP $N x $SZ B: rx_xdp_drop +$N, no page allocated" act_drop "$N" $SZ
tap_check "XDP_PASS $N x $SZ B: all intact" act_pass "$N" $SZ
tap_check "XDP_TX $N x $SZ B: all back at the sender intact" act_tx "$N" $SZ
tap_check "XDP_TX under a flood while ethtool -G rx restarts each queue 6 times: every old page_pool gets its pages back" xdp_tx_restarts
tap_check "XDP SQ in error: reset in place, the next $N XDP_TX frames all back intact" xsq_recover
tap_check "XDP_ABORTED $N x $SZ B: counted and traced" act_aborted "$N" $SZ
tap_check "XDP_REDIRECT to cxen0 without a program there: each fails, counted, traced" redirect_fails "$N" $SZ
tap_check "set up a veth pair into cx0 and the devmaps" veth_setup
tap_check "XDP_REDIRECT $N x $SZ B to cxen0 (devmap, ndo_xdp_xmit): all intact" act_redirect "$N" $SZ p0
tap_check "veth -> cxen0 (ndo_xdp_xmit) $N x $SZ B: all intact at cxen1" veth_redirect "$N" $SZ v
tap_check "cxen0's SQ reset while it sends only what a veth redirects: the XDP SQ goes on, 2048 more frames all intact" ndo_xmit_recover
tap_check "bpf_xdp_adjust_head(+14): the skb starts at the inner frame" edit head 20 200 $ST_HEAD
tap_check "bpf_xdp_adjust_tail(-16): the skb ends 16 bytes earlier" edit tail- 20 200 $ST_TAIL_SHRINK
tap_check "bpf_xdp_adjust_tail(+16): the skb has the 16 bytes written" edit tail+ 20 200 $ST_TAIL_GROW
tap_check "bpf_xdp_adjust_meta(-4): tc ingress sees the metadata" edit meta 20 200 $ST_META
tap_check "replace under a ping: no rebuild, none lost, the new program in force" replace_rcu
tap_check "MTU 9000 refused while a program without frags is attached" mtu_refused
tap_check "detach under a ping: none lost; ndo-xmit gone" detach_running
tap_check "detach of nothing: accepted" detach_nothing
tap_check "a program without frags at MTU 9000: refused, naming MTU 3498" nofrags_refused
detach cx0 cxen0
tap_check "xdp.frags program at MTU 9000: attached" jumbo_attach
inst=f
tap_check "multi-buffer XDP_DROP $NMB x $SZMB B: rx_xdp_drop +$NMB, no page allocated" act_drop "$NMB" $SZMB
tap_check "multi-buffer XDP_PASS $NMB x $SZMB B: all intact" act_pass "$NMB" $SZMB
tap_check "multi-buffer XDP_TX $NMB x $SZMB B: all back intact" act_tx "$NMB" $SZMB
tap_check "multi-buffer XDP_ABORTED $NMB x $SZMB B: counted and traced" act_aborted "$NMB" $SZMB
tap_check "multi-buffer XDP_REDIRECT $NMB x $SZMB B to cxen0: all intact" act_redirect "$NMB" $SZMB p0f
n0 ip link set dev vxb mtu 9000 && ip -n vx link set dev vx0 mtu 9000
tap_check "veth -> cxen0 $NMB x $SZMB B (ndo-xmit-sg): all intact" veth_redirect "$NMB" $SZMB vf
tap_check "multi-buffer bpf_xdp_adjust_head(+14)" edit head 16 $SZMB $ST_HEAD
tap_check "multi-buffer bpf_xdp_adjust_tail(-16)" edit tail- 16 $SZMB $ST_TAIL_SHRINK
tap_check "multi-buffer bpf_xdp_adjust_tail(+16), grown in the last page" edit tail+ 16 $SZMB $ST_TAIL_GROW
tap_check "multi-buffer bpf_xdp_adjust_meta(-4)" edit meta 16 $SZMB $ST_META
tap_check "replace by a program without frags at MTU 9000: refused" frags_replace_refused
tap_check "ethtool -G, -L, MTU, down/up with a program: it runs, all it passes arrives" reconf
inst=f2
tap_check "attach while the port is down: accepted, in force once up" attach_down
tap_check "$CYCLES x attach, replace, detach under iperf3: each frame counted once" cycles
inst=x
tap_check "after the cycles: XDP_PASS $N x $SZ B on a fresh attach" eval "attach cx1 cxen1 x && act_pass $N $SZ && detach cx1 cxen1"
if [ -e /sys/kernel/btf/vmlinux ]; then
	tap_check "RX metadata kfuncs: RSS hash (Toeplitz) and VLAN tag, -ENODATA when off" rx_metadata
else
	tap_skip "RX metadata kfuncs" "no kernel BTF (/sys/kernel/btf/vmlinux): the kfuncs cannot be resolved"
fi
tap_check "rmmod cxen: no page_pool holds a page within 60 s" unload_pools
tap_check "no program left attached to cxen, the pair works again" eval '[ -z "$(prog_id cx1 cxen1)" ] && [ -z "$(prog_id cx0 cxen0)" ] && n0 ping -c 2 -i 0.2 -W 2 192.0.2.2'
srv_stop
ip netns del vx 2>/dev/null || true
ip netns del cxen-xdp-hold 2>/dev/null || true
umount $bpffs 2>/dev/null || true
echo 0 > $tr/events/xdp/xdp_exception/enable 2>/dev/null || true
echo 0 > $tr/events/page_pool/page_pool_state_hold/enable 2>/dev/null || true
rmdir $tr 2>/dev/null || true
tap_done
