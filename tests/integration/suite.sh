#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Several integration tests in one VM (one boot: the debug kernel takes
# about a minute to boot and scan for leaks).
#
#   tests/integration/suite.sh [tests/vm/run options] [-- TEST...]
#
# TEST is the name of a script in tests/integration/ without .sh; the
# default is: tx ethtool invalid. reconf (100 changes under a stream,
# make check's reconf-stock step) is run by name. Before every test but the first
# the driver is reloaded and the pair set up again, so each starts from
# the defaults. Each test's TAP output follows a "### TEST" line; a
# "### PASS|FAIL TEST (N s)" line ends it. Exit status: 0 when all passed.
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
	exec "$(dirname "$0")/../vm/run" --pair "${vm_args[@]}" -- \
		tests/integration/suite.sh "$@"
fi

. "$CXEN_ROOT/tests/vm/pair.sh"

[ $# -gt 0 ] || set -- tx ethtool invalid

reload() {
	rmmod cxen && insmod "$CXEN_MODDIR/cxen.ko" && cxen_pair_setup
}

rc=0
first=1
results=()
for t in "$@"; do
	if [ "$first" = 0 ] && ! reload; then
		echo "### FAIL $t: cannot reload cxen and set up the pair"
		results+=("FAIL $t (reload)")
		rc=1
		continue
	fi
	first=0
	echo "### $t"
	t0=$SECONDS
	if "$CXEN_ROOT/tests/integration/$t.sh"; then
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
