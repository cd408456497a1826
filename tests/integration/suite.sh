#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Several tests in one VM: one boot instead of one per test (the debug
# kernel takes about a minute to boot, load and scan for leaks).
#
#   tests/integration/suite.sh [tests/vm/run options] [-- TEST...]
#
# TEST names a script: tests/integration/TEST.sh (basic, model, tx,
# ethtool, invalid, reconf, edges, filter, xdp, stride, lro),
# tests/reliability/TEST.sh (selftests, faults, soak, unload; the soak
# reads CXEN_SOAK_OPS and CXEN_SOAK_SEED) or tests/kunit/TEST.sh (kunit:
# the debug kernel booted with --append kunit.enable=1). The default is: tx ethtool invalid. On the host the
# tools the named tests need are prepared first (the upstream selftests'
# copy, the newer ethtool), then the VM boots with --pair and runs this
# script inside.
#
# Before every test but the first both modules are reloaded (rmmod cxen
# and cxsim, insmod cxsim and cxen: the model's fault knobs and state
# start fresh too) and the pair set up again, so each test starts from
# the defaults. A test that does not end within CXEN_SUITE_TEST_TIMEOUT
# seconds (default 2400) is killed and fails. Each test's output follows
# a "### TEST" line; a "### PASS|FAIL TEST (N s)" line ends it. A kernel
# splat logged while a test ran (from its reload to its end; the kernel
# log is read all along, so nothing is lost to the ring buffer) fails
# that test and is printed after it; tests/vm/run still judges the whole
# console, the unload and kmemleak for the VM as a whole. A test that
# never ran (the VM died before it) has no line: scripts/check counts it
# as failed. Exit status: 0 when all passed.
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	vm_args=()
	while [ $# -gt 0 ]; do
		if [ "$1" = -- ]; then
			shift
			break
		fi
		vm_args+=("$1")
		shift
	done
	here=$(cd "$(dirname "$0")" && pwd)
	# The BPF test programs (build/xdp/), built under a lock: two suites
	# started at once (a stock and a debug one) share build/xdp/.
	xdp_progs() {
		mkdir -p "$here/../../build"
		flock "$here/../../build/xdp.lock" make -s -C "$here/../xdp"
	}
	for t in "$@"; do
		case "$t" in
		selftests | soak | unload | invalid) "$here/../reliability/prepare-tools" || exit 1 ;;
		xdp)
			"$here/../reliability/prepare-tools" || exit 1
			xdp_progs || exit 1
			;;
		stride | qrestart | lro) xdp_progs || exit 1 ;;
		esac
		# stride, lro: tcp-data-split needs an ethtool newer than Debian 12's.
		if { [ "$t" = selftests ] || [ "$t" = stride ] || [ "$t" = lro ]; } &&
		   [ -z "${CXEN_ETHTOOL_DIR:-}" ]; then
			CXEN_ETHTOOL_DIR=$("$here/../../scripts/newer-ethtool") || exit 1
			export CXEN_ETHTOOL_DIR
		fi
	done
	exec "$here/../vm/run" --pair "${vm_args[@]}" -- tests/integration/suite.sh "$@"
fi

. "$CXEN_ROOT/tests/vm/pair.sh"
. "$CXEN_ROOT/tests/vm/splat.sh"

[ $# -gt 0 ] || set -- tx ethtool invalid

script_of() {
	local d
	for d in integration reliability kunit; do
		if [ -x "$CXEN_ROOT/tests/$d/$1.sh" ]; then
			echo "$CXEN_ROOT/tests/$d/$1.sh"
			return 0
		fi
	done
	return 1
}

reload() {
	rmmod cxen && rmmod cxsim &&
		insmod "$CXEN_MODDIR/sim/cxsim.ko" $(cxen_module_params cxsim) &&
		insmod "$CXEN_MODDIR/cxen.ko" &&
		cxen_pair_setup
}

# The kernel log, read from boot on and all along.
klog=/tmp/suite-kmsg.log
cat /dev/kmsg > "$klog" &
klog_pid=$!
trap 'kill $klog_pid 2>/dev/null || true' EXIT

mark() {
	echo "cxen-suite: $*" > /dev/kmsg
}

# splats_of TEST: the splat lines logged from TEST's begin mark to its
# end mark (waits up to 5 s for the end mark to be read).
splats_of() {
	local i part
	for ((i = 0; i < 50; i++)); do
		grep -q "cxen-suite: end $1\$" "$klog" && break
		sleep 0.1
	done
	part=$(mktemp /tmp/suite-part.XXXXXX)
	sed -n "/cxen-suite: begin $1\$/,/cxen-suite: end $1\$/p" "$klog" > "$part"
	cxen_splats "$part"
	rm -f "$part"
}

# Under the model's IOMMU (--append cxsim.iommu=strict|lazy): what faulted
# or was misused since cxsim was loaded (tests/integration/iommu.sh tells
# what each counter means); nothing without an IOMMU.
iommu_errors() {
	local f=/sys/kernel/debug/cxsim/iommu
	[ -r "$f" ] || return 0
	awk '$1 ~ /^(faults|perm_faults|bad_unmaps|bad_syncs|map_failed)$/ && $2 != 0 {
		printf "IOMMU %s %s\n", $1, $2 }' "$f"
}

rc=0
first=1
results=()
for t in "$@"; do
	echo "### $t"
	mark "begin $t"
	t0=$SECONDS
	ok=1
	if ! script=$(script_of "$t"); then
		echo "no test script named $t"
		ok=0
	elif [ "$first" = 0 ] && ! reload; then
		echo "cannot reload the modules and set up the pair"
		ok=0
	elif ! timeout -k 30 "${CXEN_SUITE_TEST_TIMEOUT:-2400}" "$script"; then
		ok=0
	fi
	first=0
	iommu=$(iommu_errors)
	if [ -n "$iommu" ]; then
		echo "under the model's IOMMU while $t ran (a device access the driver did not map, or a mapping misused):"
		printf '%s\n' "$iommu"
		ok=0
	fi
	mark "end $t"
	splats=$(splats_of "$t")
	if [ -n "$splats" ]; then
		echo "kernel splat while $t ran:"
		printf '%s\n' "$splats" | head -20
		ok=0
	fi
	if [ "$ok" = 1 ]; then
		results+=("PASS $t ($((SECONDS - t0)) s)")
	else
		results+=("FAIL $t ($((SECONDS - t0)) s)")
		rc=1
	fi
	echo "### ${results[-1]}"
done
echo "### summary ($CXEN_KERNEL kernel)"
printf '### %s\n' "${results[@]}"
exit $rc
