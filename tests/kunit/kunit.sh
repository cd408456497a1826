#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The KUnit suites of tests/kunit/ and sim/, as a test of
# tests/integration/suite.sh in a debug kernel booted with
# kunit.enable=1: make check runs it first in the debug kernel's VM,
# `make kunit` (scripts/kunit) in a VM of its own.
#
# tests/vm/kunit-guest loads every *_kunit.ko beside the loaded cxsim and
# cxen and prints their suites' KTAP; the kernel's own
# tools/testing/kunit/kunit.py parse reads it. Fails on a failed case, on
# no case at all, or on a KTAP the parser rejects (the KTAP is then
# printed whole); a splat while it runs fails it in suite.sh.
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../../scripts/kunit"
fi

kunit_py=$CXEN_KDIR/source/tools/testing/kunit/kunit.py
ktap=/tmp/kunit.ktap
report=/tmp/kunit.txt
[ -f "$kunit_py" ] || { echo "kunit: $kunit_py missing (kernel tree incomplete?)"; exit 1; }

if ! "$CXEN_ROOT/tests/vm/kunit-guest" > "$ktap"; then
	echo "kunit: loading the KUnit modules failed"
	cat "$ktap"
	exit 1
fi
rc=0
python3 "$kunit_py" parse "$ktap" > "$report" 2>&1 || rc=$?
cat "$report"
cases=$(sed -n 's/.*Ran \([0-9]*\) tests.*/\1/p' "$report" | tail -1)
if [ "$rc" != 0 ] || [ -z "$cases" ] || [ "$cases" = 0 ]; then
	echo "kunit: the KTAP the suites printed:"
	cat "$ktap"
	if [ "$rc" != 0 ]; then
		echo "kunit: KUnit cases failed (kunit.py parse: status $rc)"
	else
		echo "kunit: no KUnit case ran"
	fi
	exit 1
fi
echo "kunit: $cases test cases passed"
