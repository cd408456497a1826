#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The device model's IOMMU (cxsim.iommu=off|strict|lazy) through the
# driver (TAP output).
#
#   tests/integration/iommu.sh [tests/vm/run options]   on the host: boots
#       the VM (stock kernel unless --kernel debug) with --pair and runs
#       itself inside
#
# For each of strict, lazy and off: both modules reloaded with
# cxsim.iommu=MODE, then ping and iperf3 TCP both ways. Under an IOMMU the
# counters of <debugfs>/cxsim/iommu must show: maps and unmaps made,
# no fault (a device access to an IOVA that is not mapped, or without the
# permission), no unmap or sync of an IOVA that is not mapped, no map
# refused; strict: one IOTLB invalidation per unmap; lazy: invalidations
# batched (at least 4 unmaps each). A device read of IOVA 0x1000 (never
# handed out while the space lasts) through the debugfs "probe" file is
# refused and counted as one fault, logged as a DMAR fault with its
# address (one line since the probe: the kernel log is read from a mark);
# without an IOMMU the same read goes through (physical page 1: what the
# IOMMU protects). After rmmod cxen no IOVA page
# is left mapped: every mapping the driver made it unmapped. At the end
# the modules are loaded as the VM booted them (the kernel command line's
# cxsim.* parameters).
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/integration/iommu.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"

f=/sys/kernel/debug/cxsim/iommu

# iommu_cnt NAME: a line of the IOMMU's debugfs file.
iommu_cnt() {
	awk -v k="$1" '$1 == k { print $2 }' "$f"
}

load() {
	rmmod cxen 2>/dev/null || true
	rmmod cxsim 2>/dev/null || true
	insmod "$CXEN_MODDIR/sim/cxsim.ko" "$@" &&
		insmod "$CXEN_MODDIR/cxen.ko" && cxen_pair_setup
}

mode_is() {
	local got
	got=$(iommu_cnt mode)
	[ "$got" = "$1" ] || { echo "debugfs says mode $got"; return 1; }
	echo "mode $got, $(iommu_cnt inval_ns) ns per invalidation"
}

traffic() {
	nsexec cx0 ping -c 2 -i 0.2 -W 5 192.0.2.2 >/dev/null &&
		nsexec cx1 ping -6 -c 2 -i 0.2 -W 5 fd00:c0::1 >/dev/null &&
		iperf3_run cx1 192.0.2.2 cx0 2 && iperf3_run cx0 192.0.2.1 cx1 2
}

counters_clean() {
	local c v bad=0
	for c in faults perm_faults bad_unmaps bad_syncs map_failed; do
		v=$(iommu_cnt $c)
		[ "$v" = 0 ] || { echo "$c $v"; bad=1; }
	done
	[ "$(iommu_cnt maps)" -gt 0 ] && [ "$(iommu_cnt unmaps)" -gt 0 ] ||
		{ echo "no maps or unmaps counted"; bad=1; }
	echo "maps $(iommu_cnt maps), unmaps $(iommu_cnt unmaps), invalidations $(iommu_cnt invalidations), mapped now $(iommu_cnt mapped_pages)"
	return $bad
}

# Both counters from one read of the file: the ports stay up, and a
# frame received between two reads (a neighbour solicitation) is one
# unmap more. In strict mode an unmap and its invalidation are counted
# one after the other, so a snapshot may still fall between the two: up
# to 5 snapshots 0.2 s apart, one of which must show them equal. A
# missing invalidation never catches up.
invalidations() {
	local inv unmaps k v i
	for ((i = 0; i < 5; i++)); do
		while read -r k v _; do
			case "$k" in
			invalidations) inv=$v ;;
			unmaps) unmaps=$v ;;
			esac
		done < "$f"
		echo "$inv invalidations for $unmaps unmaps"
		case "$1" in
		strict) [ "$inv" = "$unmaps" ] && return 0 ;;
		lazy) [ "$inv" -gt 0 ] && [ $((inv * 4)) -le "$unmaps" ]; return ;;
		esac
		nap 0.2
	done
	return 1
}

# The fault's log line is looked for after a mark: the strict round's
# line is still in the buffer when the lazy round probes.
probe_faults() {
	local before after mark lines n
	before=$(iommu_cnt faults)
	mark=$(dmesg_mark) || return 1
	if echo 0x1000 > /sys/kernel/debug/cxsim/probe 2>/dev/null; then
		echo "the device read IOVA 0x1000"
		return 1
	fi
	after=$(iommu_cnt faults)
	[ "$after" = $((before + 1)) ] || { echo "faults $before -> $after"; return 1; }
	lines=$(dmesg_since "$mark") || { echo "mark not in the kernel log"; return 1; }
	n=$(grep -c 'DMAR: \[DMA Read\] fault addr 0x1000' <<< "$lines" || true)
	[ "$n" = 1 ] || {
		echo "$n DMAR fault lines with the address since the probe, want 1:"
		echo "$lines"
		return 1
	}
	echo "refused, faults $before -> $after, logged once since the probe"
}

probe_reads() {
	echo 0x1000 > /sys/kernel/debug/cxsim/probe
}

no_leak() {
	local left
	rmmod cxen || return 1
	left=$(iommu_cnt mapped_pages)
	echo "$left IOVA pages mapped after rmmod cxen"
	[ "$left" = 0 ]
}

tap_plan 21
echo "# kernel $(uname -r) ($CXEN_KERNEL), modules from $CXEN_MODDIR"
for mode in strict lazy; do
	tap_check "$mode: cxsim iommu=$mode, cxen, pair set-up" load iommu=$mode
	tap_check "$mode: debugfs mode" mode_is $mode
	tap_check "$mode: ping and iperf3 TCP both ways" traffic
	tap_check "$mode: maps and unmaps, no fault, no misuse" counters_clean
	tap_check "$mode: IOTLB invalidations" invalidations $mode
	tap_check "$mode: a device read of an unmapped IOVA is a fault" probe_faults
	tap_check "$mode: no mapping left after rmmod cxen" no_leak
done
tap_check "off: cxsim iommu=off, cxen, pair set-up" load iommu=off
tap_check "off: debugfs mode" mode_is off
tap_check "off: ping and iperf3 TCP both ways" traffic
tap_check "off: a device read of bus address 0x1000 goes through (nothing stands in the way)" probe_reads
tap_check "off: a bad mode is refused" bash -c "rmmod cxen; rmmod cxsim; ! insmod $CXEN_MODDIR/sim/cxsim.ko iommu=bogus 2>/dev/null"
# shellcheck disable=SC2046 # one word per parameter
tap_check "the modules as the VM booted them" load $(cxen_module_params cxsim)
tap_check "no fault since" bash -c "! grep -qE '^(faults|perm_faults) [1-9]' $f"
tap_done
