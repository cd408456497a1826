#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The upstream driver selftests of linux-source-6.12
# (tools/testing/selftests/drivers/net/) against cxen0, the peer cxen1 in
# another netns (REMOTE_TYPE=netns). TAP output, one point per test file.
#
#   tests/reliability/selftests.sh [tests/vm/run options]   on the host:
#       copies the selftests, tools/net/ynl and the netlink specs into
#       build/selftests/ (the VM sees the host read-only), builds the csum
#       helper there, boots the VM (stock unless --kernel debug) with
#       --pair and runs itself inside.
#
# Inside the VM each test runs in netns cx0 (the local interface must be
# in the test's netns) with NETIF=cxen0, LOCAL_V4/V6, REMOTE_V4/V6,
# REMOTE_TYPE=netns, REMOTE_ARGS=cx1. A test passes when it exits 0 and
# every case it skipped (or marked XFAIL) is in expected_skips below, for
# this kernel and with the message listed there; any other skip fails it
# (a case that did not run is not a pass). The debug kernel runs all but
# hw/csum.py and hw/rss_ctx.py (see debug_tests below).
# CXEN_SELFTESTS="ping.py stats.py" runs the tests named, on either
# kernel. The port runs 4 channels (the default is 1; queues.py and
# rss_ctx.py need more than one); keep_addr_on_down is set so that the
# IPv6 addresses survive stats.py's link down.
#
# Thresholds: the stock kernel runs upstream's, but where
# selftests-6.12.patch says why and Documentation/testing.rst gives what
# was measured. The debug kernel (KASAN, lockdep, kmemleak under TCG:
# a few hundred frames a second) runs with KSFT_MACHINE_SLOW=yes, the
# kselftest convention for slow machines, which the patch reads:
# hw/pp_alloc_fail.py's 15000 received frames a second -> 100 (and 10 on
# each RX queue that carried traffic before the failures began), one
# page_pool allocation failed in 2 instead of 511; the traffic
# generator's 5 s for its iperf3 client to close its sockets -> 30 s.
# The patched tests print what they measured ("cxen-measured:" lines).
# hw/rss_ctx.py's hitless key change is judged by the device's queues
# (no RQ or CQ rebuilt: the model's debugfs), not by how long the
# ethtool process took.
#
# hw/rss_ctx.py calls `ethtool --json -c` and `ethtool --json -x DEV
# context N`, which Debian 12's ethtool 6.1 refuses: the tests run with
# Debian 13's ethtool first in PATH (scripts/newer-ethtool, cached).
set -euo pipefail

all_tests="ping.py stats.py queues.py hw/csum.py hw/pp_alloc_fail.py hw/rss_ctx.py"
# The debug kernel runs what it adds to: the stats, queue and page_pool
# paths under KASAN, lockdep and fail_function. hw/csum.py and
# hw/rss_ctx.py (two thirds of its time) run on the stock kernel; on the
# debug kernel the same driver paths run in model.sh (RSS spread, ethtool
# -X, RX checksum on and off) and faults.sh (corrupted checksums).
debug_tests="ping.py stats.py queues.py hw/pp_alloc_fail.py"

# The cases a test may skip (or mark XFAIL), one a line:
#   KERNELS|TEST FILE|CASE|the test's message begins so|why it is expected
# KERNELS: "stock debug", "stock" or "debug". Any other skip, or one with
# another message, fails its test.
expected_skips=(
	"stock debug|stats.py|stats.check_fec|FEC not supported by the device|cxen has no FEC settings (no get_fecparam)"
	"stock|hw/pp_alloc_fail.py|pp_alloc_fail.test_pp_alloc|Kernel built without function error injection|Debian's kernel has no CONFIG_FAIL_FUNCTION; the debug kernel has it and must run the case"
)
# hw/rss_ctx.py: cxen has one RSS context per port (no
# create_rxfh_context) and no ntuple filters, which its context cases
# need first.
for c in test_rss_context test_rss_context4 test_rss_context32 \
	 test_rss_context_queue_reconfigure test_rss_context_overlap \
	 test_rss_context_overlap2 test_rss_context_out_of_order \
	 test_rss_context4_create_with_cfg; do
	expected_skips+=("stock debug|hw/rss_ctx.py|rss_ctx.$c|Ntuple filters not enabled on the device|cxen has no ntuple filters (-K ntuple [fixed] off) nor extra RSS contexts")
done
expected_skips+=("stock debug|hw/rss_ctx.py|rss_ctx.test_rss_context_dump|Unable to add any contexts|cxen has no extra RSS contexts (ethtool -X context new is refused)")

# skips_judged TEST LOG: the skipped and XFAIL cases of LOG (a test's
# KTAP output), each "expected: ..." or "unexpected: ..." on a line;
# fails when one is unexpected on this kernel ($CXEN_KERNEL).
skips_judged() {
	local t=$1 line name kind msg e ks ef ec em why ok rc=0
	while IFS= read -r line; do
		[[ $line =~ ^ok\ [0-9]+\ ([^ ]+)\ \#\ (SKIP|XFAIL)\ ?(.*)$ ]] || continue
		name=${BASH_REMATCH[1]} kind=${BASH_REMATCH[2]} msg=${BASH_REMATCH[3]}
		ok=
		for e in "${expected_skips[@]}"; do
			IFS='|' read -r ks ef ec em why <<< "$e"
			[ "$ef" = "$t" ] && [ "$ec" = "$name" ] && [[ $msg == "$em"* ]] || continue
			case " $ks " in *" $CXEN_KERNEL "*) ok=$why ;; esac
		done
		if [ -n "$ok" ]; then
			echo "expected: $name ($kind: $msg): $ok"
		else
			echo "unexpected: $name ($kind: $msg) on the $CXEN_KERNEL kernel"
			rc=1
		fi
	done < "$2"
	return $rc
}

if [ -z "${CXEN_VM:-}" ]; then
	"$(dirname "$0")/prepare-tools" || exit 1
	CXEN_ETHTOOL_DIR=$("$(dirname "$0")/../../scripts/newer-ethtool") || exit 1
	export CXEN_ETHTOOL_DIR
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/reliability/selftests.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"

base=$CXEN_ROOT/build/selftests/tools/testing/selftests/drivers/net
[ -d "$base" ] || { echo "Bail out! $base missing (run on the host)"; exit 1; }
export PYTHONDONTWRITEBYTECODE=1
[ -x "${CXEN_ETHTOOL_DIR:-}/ethtool" ] || { echo "Bail out! no newer ethtool (scripts/newer-ethtool)"; exit 1; }
export PATH=$CXEN_ETHTOOL_DIR:$PATH
echo "# kernel $(uname -r) ($CXEN_KERNEL), $(ethtool --version)"
for i in 0 1; do
	nsexec "cx$i" ethtool -L "cxen$i" combined 4
	# stats.py's check_down takes the link down: IPv6 addresses must
	# survive it for the tests after it.
	nsexec "cx$i" sysctl -qw "net.ipv6.conf.cxen$i.keep_addr_on_down=1"
done

slow=()
[ "$CXEN_KERNEL" != debug ] || slow=(KSFT_MACHINE_SLOW=yes)
echo "# accelerator ${CXEN_ACCEL:-tcg}, $CXEN_KERNEL kernel: ${slow[*]:-upstream thresholds or measured ones, as the patch says}"

# Per test: the debug kernel under TCG is several times slower.
tmo=300
[ "$CXEN_KERNEL" != debug ] || tmo=900
if [ "$CXEN_KERNEL" = debug ]; then
	read -ra tests <<< "${CXEN_SELFTESTS:-$debug_tests}"
else
	read -ra tests <<< "${CXEN_SELFTESTS:-$all_tests}"
fi
tap_plan "${#tests[@]}"
for t in "${tests[@]}"; do
	log=/tmp/selftest.${t//\//_}.log
	t0=$(date +%s)
	rc=0
	# nsexec gives the command its own mount namespace with a
	# fresh /sys: debugfs (fail_function for pp_alloc_fail.py) is
	# mounted again in it.
	nsexec cx0 sh -c 'mountpoint -q /sys/kernel/debug ||
		mount -t debugfs debugfs /sys/kernel/debug; exec "$@"' sh \
		env NETIF=cxen0 LOCAL_V4=192.0.2.1 LOCAL_V6=fd00:c0::1 \
		REMOTE_V4=192.0.2.2 REMOTE_V6=fd00:c0::2 \
		REMOTE_TYPE=netns REMOTE_ARGS=cx1 "${slow[@]}" \
		timeout "$tmo" python3 -u "$base/$t" > "$log" 2>&1 || rc=$?
	t1=$(($(date +%s) - t0))
	# The test's own summary; its skips judged against the list.
	summary=$(grep -E '^# Totals:' "$log" || true)
	skipped=$(skips_judged "$t" "$log") && sk=0 || sk=1
	if [ "$rc" != 0 ]; then
		tap_not_ok "$t (${t1} s): exit $rc ${summary#\# }"
	elif [ "$sk" != 0 ]; then
		tap_not_ok "$t (${t1} s): a case skipped that must run ${summary#\# }"
	else
		tap_ok "$t (${t1} s) ${summary#\# }"
	fi
	# Full output as diagnostics (short: a few dozen lines per test).
	tap_diag < "$log"
	[ -z "$skipped" ] || printf 'skip %s\n' "$skipped" | tap_diag
done
tap_done
