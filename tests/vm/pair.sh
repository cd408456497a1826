#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Put the two cxen ports into two network namespaces, cabled back to back:
#
#   port 0 -> netns cx0 as cxen0: 192.0.2.1/24, fd00:c0::1/64 (nodad)
#   port 1 -> netns cx1 as cxen1: 192.0.2.2/24, fd00:c0::2/64 (nodad)
#
# both up, then wait (up to 5 s) for carrier on both. The cxen ports are
# the netdevs whose device/driver resolves to a driver named "cxen"
# (auxiliary-bus style "cxen.<name>" also matches); dev_port tells 0 from 1.
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

# Prints "<dev_port> <ifname>" for each cxen netdev in the current netns.
cxen_pair_ports() {
	local d drv port
	for d in /sys/class/net/*; do
		[ -e "$d/device/driver" ] || continue
		drv=$(readlink -f "$d/device/driver")
		case "${drv##*/}" in
		cxen | cxen.*)
			read -r port < "$d/dev_port"
			echo "$port ${d##*/}"
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
	local i ns dev
	for ns in cx0 cx1; do
		dev=cxen${ns#cx}
		for ((i = 0; ; i++)); do
			if ip -n "$ns" -o link show dev "$dev" | grep -q 'LOWER_UP'; then
				break
			fi
			if ((i >= 50)); then
				ip -n "$ns" link show dev "$dev" >&2
				cxen_pair_err "no carrier on $dev in netns $ns after 5 s"
				return 1
			fi
			sleep 0.1
		done
	done
}

cxen_pair_setup() {
	local ports n port dev i moves=
	ports=$(cxen_pair_ports | sort -n)
	n=0
	[ -z "$ports" ] || n=$(wc -l <<< "$ports")
	if [ "$n" != 2 ]; then
		ip -o link show >&2
		cxen_pair_err "expected 2 cxen netdevs (device/driver = cxen), found $n"
		return 1
	fi
	cxen_pair_teardown || return 1
	# Few ip(8) runs: fork/exec is slow in the VM.
	i=0
	while read -r port dev; do
		if [ "$port" != "$i" ]; then
			cxen_pair_err "cxen ports have dev_port $(echo $ports), want 0 and 1"
			return 1
		fi
		moves+="netns add cx$i"$'\n'"link set dev $dev netns cx$i"$'\n'
		i=$((i + 1))
	done <<< "$ports"
	ip -batch - <<< "$moves" || { cxen_pair_err "cannot move the ports to netns cx0/cx1"; return 1; }
	i=0
	while read -r port dev; do
		ip -n "cx$i" -batch - <<-EOF || { cxen_pair_err "cannot set up $dev (port $port) as cxen$i in netns cx$i"; return 1; }
		link set dev lo up
		link set dev $dev name cxen$i
		addr add 192.0.2.$((i + 1))/24 dev cxen$i
		addr add fd00:c0::$((i + 1))/64 dev cxen$i nodad
		link set dev cxen$i up
		EOF
		i=$((i + 1))
	done <<< "$ports"
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
