#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module unload under traffic (TAP output).
#
#   tests/reliability/unload.sh [tests/vm/run options]   on the host:
#       prepares tools/net/ynl and the netlink specs in build/selftests/
#       (tests/reliability/prepare-tools), boots the VM (the stock kernel
#       unless --kernel debug) with --pair and runs itself inside.
#
# Two unloads, each while iperf3 TCP runs both ways between the pair
# (cx0 192.0.2.1 -> cx1 192.0.2.2 and cx1 -> cx0, 4 streams each way,
# 2 channels per port):
#   cxen    rmmod cxen: the driver goes, and its netdevs with it;
#   cxsim   rmmod cxsim: the model's platform device goes away under the
#           bound driver (cxen_remove() runs; cxen stays loaded).
# Each one checks:
#   - before it: every stream connected and data received both ways
#     (iperf3's own interval reports), and netlink page-pool-get lists
#     one live page_pool per RX ring of each port (the check below is
#     not vacuous);
#   - rmmod succeeds within 30 s (the time it took is printed) and both
#     netdevs are gone;
#   - the 4 iperf3 processes end by themselves, with an error, within
#     30 s of the rmmod: the clients when their data stays unacknowledged
#     for 5 s (--snd-timeout, TCP_USER_TIMEOUT), the servers when nothing
#     arrives for 5 s (--rcv-timeout); one still running then is killed
#     and fails the point;
#   - no page_pool is listed any more by page-pool-get (tools/net/ynl's
#     library with the netdev spec, one process polling netns cx0 and
#     cx1, where the pools of a removed netdev stay under the loopback
#     device until their last page comes back) within 60 s of the
#     rmmod's return (testing.rst's bound); how long they took is printed,
#     and a pool still listed then (id, ifindex, inflight, detach-time)
#     fails the point. page_pool's own "stalled pool shutdown" warning
#     (a splat to tests/vm/run) is only for pools no netns lists: these
#     would stay silent. While a pool is listed the poller sends a
#     datagram through cx0's loopback from each CPU in turn, every 0.2
#     s: a page can wait in an skb that the CPU which received it must
#     free (skb_attempt_defer_free(): the reader's CPU hands the skb
#     back to the allocating one), and a CPU frees those only in its
#     NET_RX softirq, which an idle VM's CPU may not run for minutes once
#     the ports are gone (a machine with any traffic runs it all the
#     time). Seen on the stock kernel: 11 pages of a pool held 60 s
#     after rmmod cxsim, no TCP socket holding any memory, all back 0.4
#     s after one such datagram per CPU. CXEN_UNLOAD_KICK=0 polls
#     without them and, on a pool left, says whether one datagram per
#     CPU then frees it;
#   - no kernel splat was logged since the traffic started, nor
#     "waiting for ... to become free" (a netdev reference never put);
#   - the pair works again: cxen: insmod cxen.ko; cxsim: rmmod cxen (no
#     device bound any more), insmod cxsim.ko (with the cxsim.* words of
#     the kernel command line) and cxen.ko; then the pair set up again
#     (tests/vm/pair.sh) and an IPv4 ping each way.
# Both modules stay loaded and the pair set up at the end (tests/vm/run
# unloads them and, on the debug kernel, scans kmemleak); also when the
# script stops early.
#
# CXEN_UNLOAD="cxen" (or "cxsim", or "cxsim cxen cxsim": the unloads
# named, in that order) runs only those; the TAP plan follows from it.
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	"$(dirname "$0")/prepare-tools" || exit 1
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/reliability/unload.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"
. "$CXEN_ROOT/tests/reliability/lib.sh"
. "$CXEN_ROOT/tests/vm/splat.sh"

ynl_dir=$CXEN_ROOT/build/selftests/tools/net/ynl
netdev_spec=$CXEN_ROOT/build/selftests/Documentation/netlink/specs/netdev.yaml
export PYTHONDONTWRITEBYTECODE=1

streams=4
channels=2
# iperf3's own timeouts (ms): how long a client's data may stay
# unacknowledged, how long a server waits for data. 5 s, as the soak's
# servers: shorter ones risk ending a run that is only slow (the debug
# kernel under TCG).
iperf_timeout_ms=5000
rmmod_limit=30
end_limit=30
pool_limit=60
per_unload=6

unloads=${CXEN_UNLOAD:-cxen cxsim}
for u in $unloads; do
	case "$u" in
	cxen | cxsim) ;;
	*)
		echo "Bail out! CXEN_UNLOAD names '$u'; known: cxen cxsim"
		exit 1
		;;
	esac
done
# shellcheck disable=SC2086 # one word per unload
set -- $unloads
tap_plan $(($# * per_unload))

if [ ! -f "$netdev_spec" ] || [ ! -d "$ynl_dir/lib" ]; then
	echo "Bail out! $ynl_dir or $netdev_spec missing: run tests/reliability/prepare-tools on the host"
	exit 1
fi

tmp=$(mktemp -d /tmp/cxen-unload.XXXXXX)

# ---- time ---------------------------------------------------------------
# No $(...) or exec where it is timed: a fork costs ~60 ms and an exec
# ~1 s on the debug kernel under TCG.

# now_us: microseconds since the epoch, in $now.
now_us() {
	now=${EPOCHREALTIME//[.,]/}
}

# fmt_secs US: US microseconds as seconds with two decimals, in $secs.
fmt_secs() {
	printf -v secs '%d.%02d' $(($1 / 1000000)) $(($1 % 1000000 / 10000))
}

# alive PID: PID exists and is not a zombie.
alive() {
	local st
	read -r _ _ st _ 2> /dev/null < "/proc/$1/stat" || return 1
	[ "$st" != Z ]
}

# ---- page pools over netlink ---------------------------------------------
# One python process (starting python and loading the spec takes seconds
# on the debug kernel): it opens a generic netlink socket in netns cx0 and
# one in cx1 (setns), prints every page_pool page-pool-get lists there as
# "pool NS id ID ifindex IFINDEX inflight N detach-time T" and "ready",
# then waits for a line on its stdin (the rmmod returned) and polls both
# every 0.2 s: "gone SECONDS" when none is listed any more, or after
# LIMIT seconds a "left ..." line per pool still listed.
pools_py='
import ctypes, os, socket, sys, time

ynl_dir, spec, limit, kick = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4] == "1"
sys.path.insert(0, ynl_dir)
sys.path.insert(0, os.environ["CXEN_ROOT"] + "/tests/reliability")
from lib import YnlFamily
# A datagram through the loopback device from each CPU in turn: each CPU
# runs its NET_RX softirq, which frees the skbs other CPUs handed it to
# free (skb_attempt_defer_free(), the CPU that allocated them).
from pools import kick_cpus
import yaml

# ynl parses the spec once per family object, two here: with libyaml
# when there is one (pure-python YAML takes seconds on the debug kernel).
if getattr(yaml, "__with_libyaml__", False):
    yaml.safe_load = lambda stream: yaml.load(stream, Loader=yaml.CSafeLoader)

libc = ctypes.CDLL(None, use_errno=True)


def enter(fd):
    if libc.setns(fd, 0x40000000) != 0:  # CLONE_NEWNET
        err = ctypes.get_errno()
        raise OSError(err, os.strerror(err))


home = os.open("/proc/self/ns/net", os.O_RDONLY)
fams = {}
for ns in ("cx0", "cx1"):
    fd = os.open("/run/netns/" + ns, os.O_RDONLY)
    enter(fd)
    os.close(fd)
    fams[ns] = YnlFamily(spec, "")
    if ns == "cx0":
        # Sends through the loopback device of cx0 (up, whatever becomes
        # of cxen0).
        lo = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
enter(home)
cpus = sorted(os.sched_getaffinity(0))




def listed():
    return [(ns, p) for ns, f in fams.items() for p in f.dump("page-pool-get", {})]


def show(ns, p):
    # A removed netdev leaves its pools on the netns loopback device,
    # whose ifindex (1) page-pool-get does not report.
    return "%s id %s ifindex %s inflight %s detach-time %s" % (
        ns, p.get("id"), p.get("ifindex", "lo"), p.get("inflight", 0),
        p.get("detach-time", "-"))


for ns, p in listed():
    print("pool", show(ns, p))
print("ready", flush=True)
sys.stdin.readline()
t0 = time.monotonic()
kicks = 0
while True:
    left = listed()
    t = time.monotonic() - t0
    if not left:
        print("gone %.2f s after the rmmod returned (%d loopback kicks)" % (t, kicks), flush=True)
        sys.exit(0)
    if t > limit:
        break
    if kick:
        kick_cpus(lo, cpus)
        kicks += 1
    time.sleep(0.2)
for ns, p in left:
    print("left", show(ns, p))
print("after %.2f s (%d loopback kicks)" % (t, kicks), flush=True)
if not kick:
    # Were the pages waiting on a CPU that had nothing to receive?
    kick_cpus(lo, cpus)
    t1 = time.monotonic()
    while listed() and time.monotonic() - t1 < 5:
        time.sleep(0.2)
    left = listed()
    print("after a loopback datagram from each CPU: %s" %
          ("%d pools still listed" % len(left) if left else
           "all gone in %.2f s" % (time.monotonic() - t1)), flush=True)
sys.exit(1)
'

poll_pid=
poll_fd=

# poll_start: the poller started (its python start overlaps the
# traffic's); poll_ready reads its pool list.
poll_start() {
	local fifo=$tmp/poll.fifo
	rm -f "$fifo" "$tmp/poll.out"
	mkfifo "$fifo"
	# Opened read-write: neither side blocks on the open, and the poller
	# sees no end of file before its line.
	exec {poll_fd}<> "$fifo"
	python3 -c "$pools_py" "$ynl_dir" "$netdev_spec" "$pool_limit" "${CXEN_UNLOAD_KICK:-1}" \
		< "$fifo" > "$tmp/poll.out" 2>&1 &
	poll_pid=$!
}

# poll_ready: the poller's list of pools (waited for up to 120 s) in
# $poll_list. Fails with its error output.
poll_ready() {
	local i
	for ((i = 0; i < 1200; i++)); do
		if has_line "$tmp/poll.out" '^ready$'; then
			poll_list=$(grep '^pool ' "$tmp/poll.out" || true)
			return 0
		fi
		alive "$poll_pid" || break
		nap 0.1
	done
	echo "the page-pool-get poller did not start:"
	cat "$tmp/poll.out"
	return 1
}

# poll_go: the rmmod returned; the poller's clock starts.
poll_go() {
	echo go >&"$poll_fd"
}

# poll_result: waits for the poller's verdict (it ends by itself within
# $pool_limit s of poll_go), in $poll_out; fails when a pool is left.
poll_result() {
	local rc=0 i
	for ((i = 0; i < (pool_limit + 60) * 10; i++)); do
		alive "$poll_pid" || break
		nap 0.1
	done
	if alive "$poll_pid"; then
		kill -9 "$poll_pid" 2> /dev/null || true
		echo "# the page-pool-get poller hung"
	fi
	wait "$poll_pid" || rc=$?
	poll_pid=
	exec {poll_fd}>&-
	poll_fd=
	poll_out=$(grep -v '^pool ' "$tmp/poll.out" || true)
	return $rc
}

poll_stop() {
	if [ -n "$poll_pid" ]; then
		kill -9 "$poll_pid" 2> /dev/null || true
		wait "$poll_pid" 2> /dev/null || true
		poll_pid=
	fi
	if [ -n "$poll_fd" ]; then
		exec {poll_fd}>&- || true
		poll_fd=
	fi
}

# ---- traffic ------------------------------------------------------------

iperf_pids=()
iperf_names=()

# iperf_start: a server in each netns (one test, then it exits), then a
# client in the other one, $streams streams, 600 s: until the rmmod.
iperf_start() {
	local i
	iperf_pids=()
	iperf_names=()
	for i in 0 1; do
		rm -f "$tmp/server$i.log" "$tmp/client$i.log"
	done
	# Server in cx1 (port 5201) for cx0's client, in cx0 (5202) for cx1's.
	nsexec cx1 iperf3 -s -1 -p 5201 --rcv-timeout "$iperf_timeout_ms" --forceflush \
		> "$tmp/server1.log" 2>&1 &
	iperf_pids+=($!)
	iperf_names+=(server1)
	nsexec cx0 iperf3 -s -1 -p 5202 --rcv-timeout "$iperf_timeout_ms" --forceflush \
		> "$tmp/server0.log" 2>&1 &
	iperf_pids+=($!)
	iperf_names+=(server0)
	for ((i = 0; i < 300; i++)); do
		has_line "$tmp/server0.log" 'Server listening' &&
			has_line "$tmp/server1.log" 'Server listening' && break
		nap 0.1
	done
	nsexec cx0 iperf3 -c 192.0.2.2 -p 5201 -P "$streams" -t 600 \
		--snd-timeout "$iperf_timeout_ms" --connect-timeout 10000 > "$tmp/client0.log" 2>&1 &
	iperf_pids+=($!)
	iperf_names+=(client0)
	nsexec cx1 iperf3 -c 192.0.2.1 -p 5202 -P "$streams" -t 600 \
		--snd-timeout "$iperf_timeout_ms" --connect-timeout 10000 > "$tmp/client1.log" 2>&1 &
	iperf_pids+=($!)
	iperf_names+=(client1)
}

iperf_kill() {
	local p
	for p in "${iperf_pids[@]}"; do
		kill -9 "$p" 2> /dev/null || true
	done
	for p in "${iperf_pids[@]}"; do
		wait "$p" 2> /dev/null || true
	done
	iperf_pids=()
	iperf_names=()
}

# sums LOG: how many "[SUM]" interval reports a server logged, in $n_sum,
# its streams in $n_streams and its last interval report in $last_sum.
# iperf_logs N: the last N lines of each iperf3's log, for a diagnosis.
iperf_logs() {
	local k
	for k in server1 client0 server0 client1; do
		echo "== $k"
		tail -"$1" "$tmp/$k.log"
	done
}

sums() {
	local line
	n_sum=0
	n_streams=0
	last_sum=
	while IFS= read -r line; do
		case "$line" in
		*" connected to "*) n_streams=$((n_streams + 1)) ;;
		"[SUM]"*" sec "*)
			n_sum=$((n_sum + 1))
			last_sum=$line
			;;
		esac
	done < "$1"
}

# flowing: both servers have their $streams streams and 3 interval
# reports with data (3 s of traffic each way), within 60 s; their latest
# rates and the live pools are printed. Checks too that page-pool-get
# (the poller's list) shows one live pool per RX ring of each port.
flowing() {
	local i ok s rate0 rate1 live n want idx
	for ((i = 0; i < 600; i++)); do
		ok=1
		for s in 0 1; do
			sums "$tmp/server$s.log"
			if [ "$n_streams" -lt "$streams" ] || [ "$n_sum" -lt 3 ] ||
			   [[ $last_sum == *" 0.00 bits/sec"* ]]; then
				ok=0
			fi
		done
		[ "$ok" = 0 ] || break
		nap 0.1
	done
	sums "$tmp/server1.log"
	rate1=$(awk '{ print $(NF-1), $NF }' <<< "$last_sum")
	[ "$n_streams" = "$streams" ] || ok=0
	sums "$tmp/server0.log"
	rate0=$(awk '{ print $(NF-1), $NF }' <<< "$last_sum")
	[ "$n_streams" = "$streams" ] || ok=0
	if [ "$ok" = 0 ]; then
		echo "not $streams streams each way with data within 60 s:"
		iperf_logs 15
		return 1
	fi
	# One live pool (not detached) per RX ring of each port.
	poll_ready || return 1
	live=
	for i in 0 1; do
		idx=$(ip -n "cx$i" -o link show dev "cxen$i" | cut -d: -f1)
		n=$(awk -v ns="cx$i" -v idx="$idx" \
			'$2 == ns && $6 == idx && $10 == "-" { n++ } END { print n + 0 }' <<< "$poll_list")
		want=$(nsexec "cx$i" ethtool -l "cxen$i" |
			awk '/^Current/ { c = 1 } c && $1 == "Combined:" { print $2 }')
		if [ "$n" != "$want" ]; then
			echo "page-pool-get lists $n live pools of cxen$i (ifindex $idx) for its $want RX rings:"
			printf '%s\n' "$poll_list"
			return 1
		fi
		live+="${live:+, }cxen$i $n"
	done
	echo "$streams streams each way: cx0 -> cx1 $rate1, cx1 -> cx0 $rate0 (last second);" \
	     "live page pools: $live"
}

# ---- the unload ---------------------------------------------------------

# check DESCRIPTION FUNCTION [ARGS]: a test point, as lib.sh's point
# (FUNCTION's last line appended on success, its output as diagnostics
# on failure), but FUNCTION runs in this shell, not in $(...): it starts
# and reaps processes and sets what the next points read.
check() {
	local desc=$1 rc=0 last
	shift
	"$@" > "$tmp/point.out" 2>&1 || rc=$?
	if [ "$rc" = 0 ]; then
		last=$(tail -1 "$tmp/point.out")
		tap_ok "$desc${last:+: $last}"
	else
		tap_not_ok "$desc"
		tail -40 "$tmp/point.out" | tap_diag
	fi
}

# prepare: $channels channels on both ports, the pool poller started, the
# traffic flowing.
prepare() {
	local i
	for i in 0 1; do
		nsexec "cx$i" ethtool -L "cxen$i" combined "$channels" || return 1
	done
	poll_start
	iperf_start
	flowing
}

# rmmod_timed MOD: rmmod in the background, its time in $rm_secs, and the
# poller's clock started when it returns. Fails when rmmod does, takes
# longer than $rmmod_limit s, or a cxen netdev is left. Still running
# after 120 s: its stack and the blocked tasks go to the console and the
# run stops there (nothing after it can work).
rmmod_timed() {
	local mod=$1 pid t0 i rc=0 left
	now_us
	t0=$now
	rmmod "$mod" > "$tmp/rmmod.out" 2>&1 &
	pid=$!
	for ((i = 0; i < 1200; i++)); do
		alive "$pid" || break
		nap 0.1
	done
	if alive "$pid"; then
		hung=1
		{
			tap_not_ok "rmmod $mod under traffic: still running after 120 s"
			{
				echo "its stack:"
				cat "/proc/$pid/stack" 2> /dev/null || true
			} | tap_diag
			echo "Bail out! rmmod $mod hangs (the blocked tasks are on the console)"
		} >&"$out_fd"
		echo w > /proc/sysrq-trigger || true
		exit 1
	fi
	wait "$pid" || rc=$?
	now_us
	rm_end=$now
	[ -z "$poll_pid" ] || poll_go
	fmt_secs $((now - t0))
	rm_secs=$secs
	if [ "$rc" != 0 ]; then
		echo "rmmod $mod failed ($rc) after $rm_secs s:"
		cat "$tmp/rmmod.out"
		return 1
	fi
	left=$(ip -n cx0 -o link show; ip -n cx1 -o link show)
	if grep -q cxen <<< "$left"; then
		echo "rmmod $mod took $rm_secs s but left netdevs:"
		printf '%s\n' "$left"
		return 1
	fi
	if [ $((now - t0)) -gt $((rmmod_limit * 1000000)) ]; then
		echo "rmmod $mod took $rm_secs s (more than $rmmod_limit)"
		return 1
	fi
	echo "$rm_secs s"
}

# iperf_ended: every iperf3 process ends by itself within $end_limit s
# of the rmmod's return, with an error: a client exits non-zero and
# logs "iperf3: error", a server (-1: it exits 0 either way) logs it.
# Prints when each ended and its error.
iperf_ended() {
	local i k p st err n=${#iperf_pids[@]} done_n bad=0 msg=
	local -a t_end=()
	for ((i = 0; i < end_limit * 10; i++)); do
		done_n=0
		for ((k = 0; k < n; k++)); do
			if [ -z "${t_end[k]:-}" ] && ! alive "${iperf_pids[k]}"; then
				now_us
				fmt_secs $((now - rm_end))
				t_end[k]=$secs
			fi
			[ -z "${t_end[k]:-}" ] || done_n=$((done_n + 1))
		done
		[ "$done_n" != "$n" ] || break
		nap 0.1
	done
	for ((k = 0; k < n; k++)); do
		p=${iperf_pids[k]}
		if [ -z "${t_end[k]:-}" ]; then
			echo "${iperf_names[k]} still running $end_limit s after the rmmod: killed"
			ps -o pid,stat,wchan:32,args -p "$p" || true
			kill -9 "$p" 2> /dev/null || true
			wait "$p" 2> /dev/null || true
			bad=1
			continue
		fi
		st=0
		wait "$p" || st=$?
		err=$(grep -m1 'iperf3: error' "$tmp/${iperf_names[k]}.log" || true)
		case "${iperf_names[k]}" in
		client*) [ "$st" != 0 ] && [ -n "$err" ] || bad=1 ;;
		*) [ -n "$err" ] || bad=1 ;;
		esac
		msg+="${msg:+; }${iperf_names[k]} ${t_end[k]} s, status $st, ${err:-no error logged}"
	done
	iperf_pids=()
	iperf_names=()
	if [ "$bad" = 1 ]; then
		echo "after the rmmod: $msg"
		iperf_logs 6
		return 1
	fi
	echo "$msg"
}

# pools_gone: the poller's verdict; what is left on failure, with the TCP
# sockets of each netns (a socket's queues hold pages of a pool until it
# is freed).
pools_gone() {
	local i
	if [ -z "$poll_pid" ]; then
		echo "no poller running"
		return 1
	fi
	if ! poll_result; then
		echo "page pools still listed $pool_limit s after the rmmod (id, ifindex, inflight, detach-time):"
		printf '%s\n' "$poll_out"
		for i in 0 1; do
			echo "TCP sockets of cx$i:"
			nsexec "cx$i" ss -tanmoi || true
		done
		return 1
	fi
	echo "every pool ${poll_out}"
}

# no_splat MARK: no splat (tests/vm/splat.sh) nor unregister_netdevice's
# "waiting for DEV to become free" in the kernel log since MARK.
no_splat() {
	local part=$tmp/dmesg found
	dmesg | sed -n "/cxen-unload: $1\$/,\$p" > "$part"
	if ! grep -q "cxen-unload: $1\$" "$part"; then
		echo "mark 'cxen-unload: $1' not in dmesg (ring buffer overrun?)"
		return 1
	fi
	found=$(cxen_splats "$part"; grep -a 'to become free' "$part" || true)
	if [ -n "$found" ]; then
		printf '%s\n' "$found" | head -30
		return 1
	fi
	echo "$(($(wc -l < "$part") - 1)) kernel log lines since the traffic started, none a splat"
}

# pair_back MOD: the modules loaded again as the unload of MOD requires,
# the pair set up, an IPv4 ping each way.
pair_back() {
	if [ "$1" = cxsim ]; then
		rmmod cxen || { echo "rmmod cxen (no device bound) failed"; return 1; }
		# shellcheck disable=SC2046 # one word per parameter
		insmod "$CXEN_MODDIR/sim/cxsim.ko" $(cxen_module_params cxsim) || return 1
	fi
	insmod "$CXEN_MODDIR/cxen.ko" || return 1
	cxen_pair_setup || return 1
	nsexec cx0 ping -c 3 -i 0.2 -W 5 192.0.2.2 || return 1
	nsexec cx1 ping -c 3 -i 0.2 -W 5 192.0.2.1 || return 1
	echo "ping both ways"
}

# What is left running goes, and both modules are loaded with the pair
# set up, also when the script stops early: a suite's next test reloads
# them (rmmod cxen && rmmod cxsim), and tests/vm/run unloads them.
hung=0
cleanup() {
	iperf_kill
	poll_stop
	if [ "$hung" = 0 ] && { [ ! -d /sys/module/cxsim ] || [ ! -d /sys/module/cxen ]; }; then
		if [ ! -d /sys/module/cxsim ]; then
			# shellcheck disable=SC2046 # one word per parameter
			insmod "$CXEN_MODDIR/sim/cxsim.ko" $(cxen_module_params cxsim) || true
		fi
		[ -d /sys/module/cxen ] || insmod "$CXEN_MODDIR/cxen.ko" || true
		cxen_pair_setup || true
	fi
	rm -rf "$tmp"
}
trap cleanup EXIT
trap 'exit 1' TERM INT
exec {out_fd}>&1

# unload MOD: the $per_unload points of rmmod MOD under traffic.
unload_n=0
unload() {
	local mod=$1 back=cxen mark
	[ "$mod" = cxen ] || back="cxen unbound and unloaded, cxsim and cxen"
	unload_n=$((unload_n + 1))
	mark="$unload_n $mod"
	echo "# rmmod $mod under iperf3 both ways, kernel $(uname -r) ($CXEN_KERNEL)"
	echo "cxen-unload: $mark" > /dev/kmsg
	check "$mod: $streams iperf3 streams each way, a live page_pool per RX ring" prepare
	check "rmmod $mod under traffic" rmmod_timed "$mod"
	check "$mod: every iperf3 process ended by itself with an error" iperf_ended
	check "$mod: no page_pool left within $pool_limit s" pools_gone
	check "$mod: no kernel splat" no_splat "$mark"
	check "$mod: $back loaded again, pair set up" pair_back "$mod"
}

for u in "$@"; do
	unload "$u"
done
tap_done
