#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Put the two cxen ports into two network namespaces, cabled back to back:
#
#   port 0 -> netns cx0 as cxen0: 192.0.2.1/24, fd00:c0::1/64 (nodad)
#   port 1 -> netns cx1 as cxen1: 192.0.2.2/24, fd00:c0::2/64 (nodad)
#
# both up, then wait (up to 5 s) for carrier on both. The cxen ports are
# the netdevs whose device is bound to a driver named "cxen" (DRIVER= in
# its uevent; auxiliary-bus style "cxen.<name>" also matches); dev_port
# tells 0 from 1.
#
# Run it (tests/vm/pair.sh [setup|teardown]) or source it and call
# cxen_pair_setup / cxen_pair_teardown. Used by tests/vm/run --pair and by
# the integration tests after they reload the driver. Runs inside the VM.

# cxen_module_params NAME: the NAME.PARAM=VALUE words of the kernel command
# line as PARAM=VALUE, one a line: what modprobe would pass to NAME, for
# an insmod (tests/vm/run --append 'cxsim.iommu=strict').
cxen_module_params() {
	local w
	for w in $(cat /proc/cmdline); do
		case "$w" in
		"$1".*=*) echo "${w#"$1".}" ;;
		esac
	done
}

cxen_pair_err() {
	echo "pair: $*" >&2
	return 1
}

# cxen_pair_find: CXEN_PAIR_DEVS[dev_port]=ifname for each cxen netdev
# of the current netns, and CXEN_PAIR_N their number. Read with the
# shell's own `read`, without a fork: on the debug kernel under TCG an
# exec costs 0.2-0.5 s, and every reload sets the pair up again (13
# processes and 5.9 s a set-up before, 5 and 3.4 s now).
cxen_pair_find() {
	local d line drv port
	CXEN_PAIR_DEVS=()
	CXEN_PAIR_N=0
	for d in /sys/class/net/*; do
		[ -r "$d/device/uevent" ] || continue
		drv=
		while read -r line; do
			case "$line" in
			DRIVER=*) drv=${line#DRIVER=} ;;
			esac
		done < "$d/device/uevent"
		case "$drv" in
		cxen | cxen.*)
			read -r port < "$d/dev_port"
			CXEN_PAIR_N=$((CXEN_PAIR_N + 1))
			# A dev_port seen twice keeps both names, to be refused.
			CXEN_PAIR_DEVS[port]+="${CXEN_PAIR_DEVS[port]:+ }${d##*/}"
			;;
		esac
	done
}

cxen_pair_teardown() {
	local ns
	for ns in cx0 cx1; do
		if [ -e "/run/netns/$ns" ]; then
			ip netns delete "$ns" || cxen_pair_err "cannot delete netns $ns" || return 1
		fi
	done
}

# cxen_pair_wait_carrier: both ports, up to 5 s.
cxen_pair_wait_carrier() {
	local i ns dev out
	for ns in cx0 cx1; do
		dev=cxen${ns#cx}
		for ((i = 0; ; i++)); do
			out=$(ip -n "$ns" -o link show dev "$dev")
			[[ $out != *LOWER_UP* ]] || break
			if ((i >= 50)); then
				printf '%s\n' "$out" >&2
				cxen_pair_err "no carrier on $dev in netns $ns after 5 s"
				return 1
			fi
			sleep 0.1
		done
	done
}

cxen_pair_setup() {
	local i ns cmds=
	cxen_pair_find
	if [ "$CXEN_PAIR_N" != 2 ]; then
		ip -o link show >&2
		cxen_pair_err "expected 2 cxen netdevs (DRIVER=cxen in device/uevent), found $CXEN_PAIR_N"
		return 1
	fi
	if [ "${CXEN_PAIR_DEVS[0]:-}" = "" ] || [ "${CXEN_PAIR_DEVS[1]:-}" = "" ]; then
		cxen_pair_err "cxen ports have dev_port $(echo "${!CXEN_PAIR_DEVS[@]}"), want 0 and 1"
		return 1
	fi
	# One ip(8) run for the old namespaces' removal, the new ones and
	# the moves, then one per namespace.
	for ns in cx0 cx1; do
		[ ! -e "/run/netns/$ns" ] || cmds+="netns delete $ns"$'\n'
	done
	for i in 0 1; do
		cmds+="netns add cx$i"$'\n'"link set dev ${CXEN_PAIR_DEVS[i]} netns cx$i"$'\n'
	done
	ip -batch - <<< "$cmds" || { cxen_pair_err "cannot move the ports to netns cx0/cx1"; return 1; }
	for i in 0 1; do
		ip -n "cx$i" -batch - <<-EOF || { cxen_pair_err "cannot set up ${CXEN_PAIR_DEVS[i]} (port $i) as cxen$i in netns cx$i"; return 1; }
		link set dev lo up
		link set dev ${CXEN_PAIR_DEVS[i]} name cxen$i
		addr add 192.0.2.$((i + 1))/24 dev cxen$i
		addr add fd00:c0::$((i + 1))/64 dev cxen$i nodad
		link set dev cxen$i up
		EOF
	done
	cxen_pair_wait_carrier
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	set -euo pipefail
	case "${1:-setup}" in
	setup) cxen_pair_setup ;;
	teardown) cxen_pair_teardown ;;
	*) echo "usage: $0 [setup|teardown]" >&2; exit 2 ;;
	esac
fi
