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
# REMOTE_TYPE=netns, REMOTE_ARGS=cx1. A test passes when it exits 0
# (every case passed or was skipped by the test itself: the skips are
# listed) and fails otherwise; hw/pp_alloc_fail.py must not skip on the
# debug kernel, which has fail_function. The debug kernel runs all but
# hw/csum.py and hw/rss_ctx.py (see debug_tests below).
# CXEN_SELFTESTS="ping.py stats.py" runs the tests named, on either kernel. The port runs 4 channels (the default is 1; queues.py and
# rss_ctx.py need more than one); keep_addr_on_down is set so that the
# IPv6 addresses survive stats.py's link down. Under TCG (CXEN_ACCEL=tcg,
# from tests/vm/run) KSFT_MACHINE_SLOW=yes, the kselftest convention for
# emulated machines, relaxes the timings and rates of real hardware that
# selftests-6.12.patch names (hw/pp_alloc_fail.py's 15000 received frames
# a second -> 100, and one page_pool allocation failed in 2 instead of
# 511; hw/rss_ctx.py's 5000 frames per queue -> 1000, 3500 on the third
# queue -> 1000 on the third and fourth together, 0.2 s for an RSS key
# change -> 3 s; the traffic generator's 5 s for its iperf3 client to
# close its sockets -> 30 s). Under KVM the
# upstream values apply. The patched tests print what they measured
# ("cxen-measured:" lines); Documentation/testing.rst keeps each relaxed
# threshold next to the rates measured here.
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
[ "${CXEN_ACCEL:-tcg}" = kvm ] || slow=(KSFT_MACHINE_SLOW=yes)
echo "# accelerator ${CXEN_ACCEL:-tcg}: ${slow[*]:-upstream thresholds}"

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
	# The test's own summary and its skips (with reasons).
	summary=$(grep -E '^# Totals:' "$log" || true)
	skips=$(grep -E '^ok [0-9]+ .*# SKIP' "$log" || true)
	if [ "$rc" = 0 ] && [ "$t" = hw/pp_alloc_fail.py ] && [ "$CXEN_KERNEL" = debug ] &&
	   [ -n "$skips" ]; then
		# The debug kernel has FAIL_FUNCTION: this one must run.
		tap_not_ok "$t (${t1} s): skipped on a kernel with fail_function"
	elif [ "$rc" = 0 ]; then
		tap_ok "$t (${t1} s) ${summary#\# }"
	else
		tap_not_ok "$t (${t1} s): exit $rc ${summary#\# }"
	fi
	# Full output as diagnostics (short: a few dozen lines per test).
	tap_diag < "$log"
	[ -z "$skips" ] || printf 'skipped by the test: %s\n' "$skips" | tap_diag
done
tap_done
