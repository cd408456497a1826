#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# RX filtering (TAP output): the device's filter by destination address
# (SET_RX_FILTER) as the driver programs it.
#
#   tests/integration/filter.sh [tests/vm/run options]   on the host
#
# Inside the VM, with the pair set up (cxen0 in netns cx0, cxen1 in cx1).
# Raw frames (ethertype 0x88b5) go from cxen0 to chosen addresses
# (filter-frames.py); a packet socket on cxen1 (not promiscuous) counts
# those that arrive, and cxen1's device counters must move by exactly
# the frames delivered (hw_rx_frames) and refused (hw_rx_filtered), from
# one ethtool -S snapshot on each side of the window:
#   - the filter after probe: port 1's MAC alone in the table, no flag,
#     the hash of exactly the groups cxen1 joined (model's debugfs)
#   - frames to cxen1's MAC arrive; to another unicast MAC, and to groups
#     cxen1 did not join, are dropped by the device and counted
#   - promisc on: the other MAC's frames arrive; off: dropped again
#   - ip maddr add of a group (a bucket no other group of cxen1 uses):
#     its frames arrive; ip maddr del: dropped again
#   - allmulticast on: a group never joined arrives; off: dropped
#   - a MAC change on the running port takes effect at once (frames to
#     the new MAC arrive, to the old one are dropped, right after ip link
#     returns); one the device refuses (cmd_fail_opcode SET_RX_FILTER)
#     fails with the kernel log saying so and changes nothing
#   - a macvlan on cxen1 in its own netns: its MAC in the device's table
#     (no promiscuous flag), ping through it; 15 more: unicast
#     promiscuous, logged once; removed: the table again
#   - a bridge with cxen1 as a port and its own MAC: cxen1 promiscuous
#     (and allmulticast), ping to the bridge; removed: neither, ping to
#     cxen1
#   - every frame each port sent was received or counted as dropped
#     (lib.sh's counters_match: hw_rx_filtered is one of the drops)
#   - a device reset (dev_fatal): the rebuild programs the filter again
#     (same table and hash), foreign frames dropped, ping both ways
#
# A stray frame of cxen0's stack in a window (its IPv6 housekeeping is
# quieted: no router solicitations, no DAD) shows as one more frame in a
# device counter: the window is measured again, three tries.
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/integration/filter.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"


frames_py=$CXEN_ROOT/tests/integration/filter-frames.py
dbg=/sys/kernel/debug/cxsim
fault=$dbg/fault
# Frames per address and window.
N=20

PROMISC=1
ALLMULTI=2
UC_PROMISC=4

# filter_get NAME: a line of port 1's debugfs file, without its name
# (rx_filter_flags, rx_filter_mc_hash, rx_filter_uc).
filter_get() {
	awk -v k="$1" '$1 == k { $1 = ""; sub(/^ /, ""); print; f = 1 } END { exit !f }' "$dbg/port1"
}

# flags_are WANT: port 1's filter flags equal WANT.
flags_are() {
	[ $(($(filter_get rx_filter_flags))) = "$1" ]
}

# flags_have BITS: port 1's filter flags have BITS set.
flags_have() {
	[ $(($(filter_get rx_filter_flags) & $1)) = "$1" ]
}

# within SECONDS COMMAND...: run COMMAND until it succeeds, for at most
# SECONDS (wait_for's count of tries is for quick commands, not pings).
within() {
	local end=$((SECONDS + $1))
	shift
	until "$@"; do
		[ "$SECONDS" -lt "$end" ] || return 1
		nap 0.2
	done
}

# uc_has MAC: the MAC is in port 1's unicast table (case-insensitive).
uc_has() {
	grep -qiw -- "$1" <<< "$(filter_get rx_filter_uc)"
}

# hash_bit B: bit B of port 1's multicast hash (0 or 1).
hash_bit() {
	echo $((($(filter_get rx_filter_mc_hash) >> $1) & 1))
}

# mc_hash_want: the hash of the groups on cxen1's list, as the device
# computes buckets (filter-frames.py buckets), in rx_filter_mc_hash's
# format.
mc_hash_want() {
	local macs b h=0
	macs=$(n1 ip maddr show dev cxen1 | awk '$1 == "link" { print $2 }')
	[ -n "$macs" ] || { echo "no link-layer group on cxen1"; return 1; }
	for b in $(python3 "$frames_py" buckets $macs | awk '{ print $2 }'); do
		h=$((h | (1 << b)))
	done
	printf '0x%016x\n' "$h"
}

# window FILTERED MAC=RECEIVED...: N frames from cxen0 to each MAC; the
# packet socket on cxen1 must count RECEIVED of each, and cxen1's device
# counters move by exactly their sum (hw_rx_frames) and FILTERED
# (hw_rx_filtered). Counters above that (a stray frame): three tries.
window() {
	local filt=$1 spec try out s0 s1 df dr got want_rx=0 macs=() wants=() sum
	shift
	for spec; do
		macs+=("${spec%=*}")
		wants+=("${spec#*=}")
		want_rx=$((want_rx + ${spec#*=}))
	done
	for try in 1 2 3; do
		s0=$(stats_snap cx1 cxen1)
		out=$(python3 "$frames_py" send cx0 cxen0 cx1 cxen1 "$N" "${macs[@]}") ||
			{ echo "$out"; return 1; }
		s1=$(stats_snap cx1 cxen1)
		df=$(stat_delta "$s0" "$s1" hw_rx_filtered) &&
			dr=$(stat_delta "$s0" "$s1" hw_rx_frames) || return 1
		got=$(awk '{ print $NF }' <<< "$out" | xargs)
		sum="$(awk '{ printf "%s%s %s/%s", (NR > 1 ? ", " : ""), $1, $NF, $3 }' <<< "$out"); hw_rx_frames +$dr, hw_rx_filtered +$df"
		if [ "$got" = "${wants[*]}" ] && [ "$dr" = "$want_rx" ] && [ "$df" = "$filt" ]; then
			echo "received $sum"
			return 0
		fi
		echo "try $try: received $sum; want ${wants[*]}, hw_rx_frames +$want_rx, hw_rx_filtered +$filt"
		# Fewer than wanted, or the socket's count wrong: no stray.
		[ "$got" = "${wants[*]}" ] && [ "$dr" -ge "$want_rx" ] && [ "$df" -ge "$filt" ] ||
			return 1
	done
	return 1
}

mac1=$(n1 cat /sys/class/net/cxen1/address)
foreign=02:cf:00:00:be:ef
new_mac=02:cf:00:00:00:11
mv_mac=02:cf:00:00:10:01
br_mac=02:cf:00:00:0b:01

# Two groups in buckets no group of cxen1 uses, and not each other's:
# joining G1 sets a bit of its own, and G2 passes only with allmulti.
# One Python start for every bucket (each costs a second under TCG).
pick_groups() {
	local groups cands c out
	groups=$(n1 ip maddr show dev cxen1 | awk '$1 == "link" { print $2 }')
	cands=$(for c in $(seq 16 79); do printf '33:33:00:00:ca:%02x\n' "$c"; done)
	out=$(python3 "$frames_py" buckets $groups $cands) || return 1
	read -r g1 g1_bucket g2 g2_bucket < <(awk -v ng="$(wc -w <<< "$groups")" '
		NR <= ng { used[$2] = 1; next }
		!($2 in used) { printf "%s %s ", $1, $2; used[$2] = 1; if (++n == 2) exit }
		END { print "" }' <<< "$out")
	[ -n "${g2_bucket:-}" ]
}

# Quiet cxen0's IPv6 housekeeping: its router solicitations and DAD
# probes go to groups cxen1 never joined, a frame in some window.
quiet() {
	local ns
	for ns in cx0 cx1; do
		nsexec "$ns" sysctl -qw net.ipv6.conf.all.router_solicitations=0 \
			net.ipv6.conf.default.router_solicitations=0 \
			"net.ipv6.conf.cxen${ns#cx}.router_solicitations=0" \
			net.ipv6.conf.default.dad_transmits=0 \
			"net.ipv6.conf.cxen${ns#cx}.dad_transmits=0" || return 1
	done
}

# --- the filter after probe ----------------------------------------------

after_probe() {
	local want uc
	want=$(mc_hash_want) || return 1
	wait_for 10 eval '[ "$(filter_get rx_filter_mc_hash)" = "$want" ]' || {
		echo "model: $(filter_get rx_filter_mc_hash), cxen1's groups: $want"
		return 1
	}
	uc=$(filter_get rx_filter_uc)
	echo "table [$uc], flags $(filter_get rx_filter_flags), hash $want ($(n1 ip maddr show dev cxen1 | grep -c link) groups)"
	[ "$uc" = "$mac1" ] && flags_are 0
}

# --- unicast, promiscuous -------------------------------------------------

# link_flag FLAG on|off BIT: ip link set cxen1 FLAG on|off, then wait for
# the device's filter flags to be BIT or 0.
link_flag() {
	local want=0
	[ "$2" = off ] || want=$3
	n1 ip link set cxen1 "$1" "$2" || return 1
	wait_for 10 flags_are "$want" || {
		echo "flags $(filter_get rx_filter_flags)"
		return 1
	}
}

promisc() { link_flag promisc "$1" "$PROMISC"; }

promisc_on() {
	promisc on && window 0 "$foreign=$N"
}

promisc_off() {
	promisc off && window "$N" "$foreign=0" "$mac1=$N"
}

# --- multicast -------------------------------------------------------------

mc_join() {
	n1 ip maddr add "$g1" dev cxen1 || return 1
	wait_for 10 eval '[ "$(hash_bit $g1_bucket)" = 1 ]' || { echo "bucket $g1_bucket not set"; return 1; }
	window 0 "$g1=$N"
}

mc_leave() {
	n1 ip maddr del "$g1" dev cxen1 || return 1
	wait_for 10 eval '[ "$(hash_bit $g1_bucket)" = 0 ]' || { echo "bucket $g1_bucket still set"; return 1; }
	window "$N" "$g1=0"
}

allmulti() { link_flag allmulticast "$1" "$ALLMULTI"; }

allmulti_on() {
	allmulti on && window 0 "$g2=$N"
}

allmulti_off() {
	allmulti off && window "$N" "$g2=0"
}

# --- MAC address ------------------------------------------------------------

mac_change() {
	# No wait: the change is in the device when ip link returns.
	n1 ip link set cxen1 address "$new_mac" || return 1
	window "$N" "$new_mac=$N" "$mac1=0" || return 1
	uc_has "$new_mac" && ! uc_has "$mac1"
}

mac_refused() {
	local after out l0 l1
	l0=$(dmesg | grep -c 'cxen1: device refused MAC address' || true)
	# The one SET_RX_FILTER to fail must be ip link's, not a late
	# ndo_set_rx_mode work's: let those run first.
	nap 1
	echo 0x012 > "$fault/cmd_fail_opcode" && echo 1 > "$fault/cmd_fail_count" || return 1
	if out=$(n1 ip link set cxen1 address "$foreign" 2>&1); then
		echo "ip link set address: accepted although the device refused it"
		return 1
	fi
	echo 0 > "$fault/cmd_fail_opcode"
	after=$(n1 cat /sys/class/net/cxen1/address)
	l1=$(dmesg | grep -c 'cxen1: device refused MAC address' || true)
	echo "ip: $out; kernel: $(dmesg | grep 'cxen1: device refused MAC address' | tail -1 | sed 's/^\[[^]]*\] //'); address $after"
	[ "$after" = "$new_mac" ] && [ $((l1 - l0)) = 1 ] && uc_has "$new_mac" && ! uc_has "$foreign"
}

mac_back() {
	n1 ip link set cxen1 address "$mac1" || return 1
	window "$N" "$mac1=$N" "$new_mac=0" || return 1
	n0 ping -c 2 -i 0.2 -W 5 192.0.2.2 >/dev/null || { echo "ping 192.0.2.2 failed"; return 1; }
}

# --- macvlan, bridge ------------------------------------------------------

macvlan() {
	ip netns add cx2 &&
	n1 ip link add mv1 link cxen1 address "$mv_mac" type macvlan mode bridge &&
	n1 ip link set mv1 netns cx2 &&
	ip -n cx2 addr add 192.0.2.12/24 dev mv1 &&
	ip -n cx2 link set mv1 up || return 1
	wait_for 10 uc_has "$mv_mac" || { echo "table [$(filter_get rx_filter_uc)]"; return 1; }
	flags_are 0 || { echo "flags $(filter_get rx_filter_flags)"; return 1; }
	n0 ping -c 3 -i 0.2 -W 5 192.0.2.12 >/dev/null || { echo "ping 192.0.2.12 (mv1) failed"; return 1; }
	echo "table [$(filter_get rx_filter_uc)], flags 0; ping to mv1 ok"
}

uc_overflow() {
	local i cmds="" l0 l1
	l0=$(dmesg | grep -c 'cxen1: .*unicast promiscuous' || true)
	for i in $(seq 2 16); do
		cmds+="link add mv$i link cxen1 address 02:cf:00:00:10:$(printf '%02x' "$i") type macvlan mode bridge"$'\n'
		cmds+="link set mv$i up"$'\n'
	done
	n1 ip -batch - <<< "$cmds" || return 1
	wait_for 10 flags_are $UC_PROMISC || { echo "flags $(filter_get rx_filter_flags) with 17 addresses"; return 1; }
	# The works of the last ups are done when the flags stay.
	nap 1
	l1=$(dmesg | grep -c 'cxen1: .*unicast promiscuous' || true)
	echo "17 addresses: flags $(filter_get rx_filter_flags), logged $((l1 - l0)) time(s): $(dmesg | grep 'cxen1: .*unicast promiscuous' | tail -1 | sed 's/^\[[^]]*\] //')"
	[ $((l1 - l0)) = 1 ] || return 1
	cmds=
	for i in $(seq 2 16); do
		cmds+="link del mv$i"$'\n'
	done
	n1 ip -batch - <<< "$cmds" || return 1
	wait_for 10 flags_are 0 || { echo "flags $(filter_get rx_filter_flags) after the macvlans went"; return 1; }
	uc_has "$mv_mac" && uc_has "$mac1" || { echo "table [$(filter_get rx_filter_uc)]"; return 1; }
	ip netns del cx2
	wait_for 10 eval '! uc_has $mv_mac' || { echo "mv1's MAC still in the table"; return 1; }
	echo "17 addresses: unicast promiscuous, logged once; back to [$(filter_get rx_filter_uc)]"
}

# The bridge's address in a subnet of its own (198.51.100.0/24): cx1
# then routes its replies through br1, not through cxen1, the port. A
# bridge port is promiscuous (and, in 6.12, allmulticast too).
bridge_run() {
	n1 ip link add br1 address "$br_mac" type bridge forward_delay 0 &&
	n1 ip link set cxen1 master br1 &&
	n1 ip addr add 198.51.100.2/24 dev br1 &&
	n1 ip link set br1 up &&
	n0 ip addr add 198.51.100.1/24 dev cxen0 || return 1
	wait_for 10 flags_have $PROMISC || { echo "flags $(filter_get rx_filter_flags) with cxen1 in a bridge"; return 1; }
	uc_has "$br_mac" && { echo "the bridge's MAC in the table: promiscuous mode not tested"; return 1; }
	within 10 n0 ping -c 1 -W 1 198.51.100.2 >/dev/null &&
	n0 ping -c 3 -i 0.2 -W 5 198.51.100.2 >/dev/null || { echo "ping 198.51.100.2 (br1) failed"; return 1; }
	echo "in br1: flags $(filter_get rx_filter_flags), ping to br1 ($br_mac) ok"
}

bridge() {
	local out rc=0
	out=$(bridge_run) || rc=1
	echo "$out"
	n0 ip addr del 198.51.100.1/24 dev cxen0 2>/dev/null
	n1 ip link del br1 2>/dev/null || { echo "cannot delete br1"; return 1; }
	wait_for 10 flags_are 0 || { echo "flags $(filter_get rx_filter_flags) after the bridge went"; return 1; }
	within 10 n0 ping -c 1 -W 1 192.0.2.2 >/dev/null || { echo "ping 192.0.2.2 after the bridge failed"; return 1; }
	echo "$(tail -1 <<< "$out"); out: flags 0, ping to cxen1 ok"
	return "$rc"
}

# --- device reset ----------------------------------------------------------

dev_count() {
	awk -v k="$1" '$1 == k { print $2 }' "$dbg/dev"
}

reset_rebuild() {
	local r0 uc0 h0
	uc0=$(filter_get rx_filter_uc)
	h0=$(filter_get rx_filter_mc_hash)
	r0=$(dev_count resets)
	echo 1 > "$fault/dev_fatal" || return 1
	wait_for 60 eval '[ "$(dev_count resets)" != "$r0" ]' || { echo "no device reset in 60 s"; return 1; }
	wait_for 30 eval '[ "$(filter_get rx_filter_uc)" = "$uc0" ] && [ "$(filter_get rx_filter_mc_hash)" = "$h0" ]' || {
		echo "after the reset: table [$(filter_get rx_filter_uc)] hash $(filter_get rx_filter_mc_hash), before [$uc0] $h0"
		return 1
	}
	cxen_pair_wait_carrier || return 1
	within 20 n0 ping -c 1 -W 1 192.0.2.2 >/dev/null || { echo "no ping after the reset"; return 1; }
	n1 ping -c 2 -i 0.2 -W 5 192.0.2.1 >/dev/null || { echo "no ping cx1 -> cx0 after the reset"; return 1; }
	window "$N" "$foreign=0" "$mac1=$N" || return 1
	echo "reset $(dev_count resets); table [$uc0], hash $h0 again"
}

tap_plan 16
quiet || echo "# could not quiet IPv6 housekeeping" >&2
if pick_groups; then
	echo "# groups: $g1 (bucket $g1_bucket), $g2 (bucket $g2_bucket)"
else
	echo "# no two free buckets among the candidate groups" >&2
	g1=33:33:00:00:ca:10 g2=33:33:00:00:ca:11 g1_bucket=0 g2_bucket=0
fi
point "after probe: cxen1's MAC alone in the table, no flag, the hash of its groups" after_probe
point "frames to cxen1's MAC arrive; to $foreign, $g1 and $g2 (not joined) dropped, counted in hw_rx_filtered" \
	window $((3 * N)) "$mac1=$N" "$foreign=0" "$g1=0" "$g2=0"
point "promisc on: frames to $foreign arrive" promisc_on
point "promisc off: frames to $foreign dropped again" promisc_off
point "ip maddr add $g1: its frames arrive" mc_join
point "ip maddr del $g1: its frames dropped again" mc_leave
point "allmulticast on: $g2 (never joined) arrives" allmulti_on
point "allmulticast off: $g2 dropped again" allmulti_off
point "MAC change to $new_mac on the running port: at once, the new MAC's frames arrive, the old one's are dropped" mac_change
point "a MAC change the device refuses fails, logged, nothing changed" mac_refused
point "MAC back to $mac1: its frames arrive, ping" mac_back
point "macvlan on cxen1: its MAC in the device's table (not promiscuous), ping through it" macvlan
point "17 unicast addresses: unicast promiscuous, logged once; 2: the table again" uc_overflow
point "bridge with cxen1 as a port: promiscuous, ping to the bridge's own MAC; removed: filtered again" bridge
point "every frame cxen0 sent was received or counted as dropped (hw_rx_filtered among them), and back" counters_match
point "device reset: the rebuild programs the filter again, foreign frames dropped, ping both ways" reset_rebuild
ip netns del cx2 2>/dev/null || true
tap_done
