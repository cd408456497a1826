#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Bad user input (issues 6, 8 and 17), TAP output.
#
#   tests/integration/invalid.sh [tests/vm/run options]   on the host: boots
#       the VM (stock kernel unless --kernel debug) with --pair, runs inside
#
# Inside the VM, a table of invalid inputs to cxen0 (ethtool, ip link,
# debugfs knobs of the model, the device's devlink parameters and
# reload, a devmem bind-rx). Each must be refused (non-zero exit) with a message matching
# the table (ethtool/ip/devlink output, extack, or a new dmesg line),
# leave the configuration of cxen0 exactly as it was (ethtool -g -l -c -x
# -k, priv flags, tunables, ip link, the model's fault knobs, the devlink
# parameters), and traffic must still flow (ping). Then the good path: a
# devlink reload with rx_layout onefrag2013 creates both ports with that
# layout, one with auto gives the default configuration back. The
# table of inputs and results is printed.
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	# ynl (tools/net/ynl) for the devmem bind
	"$(dirname "$0")/../reliability/prepare-tools" || exit 1
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/integration/invalid.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"

fault=/sys/kernel/debug/cxsim/fault
dl=$(cxen_devlink)

# The whole configuration the inputs could touch (they all aim at cxen0),
# with few processes: an exec costs ~0.1 s in a busy TCG guest and each
# point takes a snapshot. One shell in cx0's netns for ethtool and ip,
# the fault knobs read by bash, both devlink parameters in one call.
snapshot() {
	local f v l p d=
	while IFS= read -r l; do
		# A reload gives a new ifindex.
		[[ $l =~ ^[0-9]+:\ (cxen0:.*) ]] && l=${BASH_REMATCH[1]}
		printf '%s\n' "$l"
	done < <(nsexec cx0 sh -c "
		ethtool -g cxen0; ethtool -l cxen0; ethtool -c cxen0
		ethtool -x cxen0; ethtool -k cxen0; ethtool -a cxen0
		ethtool --show-priv-flags cxen0
		ethtool --get-tunable cxen0 rx-copybreak tx-copybreak
		ip -d link show dev cxen0" 2>&1)
	for f in "$fault"/*_every "$fault/stall_sqn" "$fault/delay_us"; do
		read -r v < "$f"
		printf '%s:%s\n' "$f" "$v"
	done
	# Every device's parameters (with a device, this devlink wants a
	# name): "platform/cxsim:", then per parameter "name rx_layout type
	# driver-specific", "values:" and a line "cmode driverinit value
	# auto" per configuration mode.
	devlink dev param show | while read -r f v l; do
		case $f in
		*/*:) d=${f%:} ;;
		name) p=$v ;;
		cmode) [ "$d" != "$dl" ] || echo "$p $v $l" ;;
		esac
	done
}

# The kernel log's lines, without their time stamps, into klog_lines.
klog_read() {
	local l
	klog_lines=()
	while IFS= read -r l; do
		klog_lines+=("${l#\[*\] }")
	done < <(dmesg)
}

ping_ok() {
	nsexec cx0 ping -c 1 -W 5 -q 192.0.2.2 >/dev/null 2>&1 ||
		nsexec cx0 ping -c 2 -W 5 -q 192.0.2.2 >/dev/null 2>&1
}

table=()

# Points: one per refused line (ethtool 34, ip link 8, debugfs knobs 8,
# devmem bind 1, devlink 7), the biggest ring per RX layout (5), then the reload with onefrag2013, the reload back to the
# defaults and the ping.
tap_plan $((34 + 8 + 8 + 1 + 5 + 7 + 3))

# The configuration after the last point: nothing runs between two
# points, so it is the next one's "before" (a change that lands late
# still shows, at the next point), and each point takes one snapshot of
# a dozen commands, not two.
last_snap=

# refused DESCRIPTION REGEX COMMAND: COMMAND (a shell line) must fail with
# a message matching REGEX (extended, case-insensitive) in its output or
# in a new kernel log line; the configuration unchanged; ping works.
refused() {
	local desc=$1 re=$2 cmd=$3 before after out rc=0 klog n0 msg="" why="" l
	before=${last_snap:-$(snapshot)}
	[ -n "$last_snap" ] || klog_read
	n0=${#klog_lines[@]}
	out=$(bash -c "$cmd" 2>&1) || rc=$?
	klog_read
	klog=$(printf '%s\n' "${klog_lines[@]:n0}")
	after=$(snapshot)
	last_snap=$after
	# The first line of either matching RE, case-insensitive (grep -Ei).
	shopt -s nocasematch
	while IFS= read -r l; do
		[[ $l =~ $re ]] && { msg=$l; break; }
	done <<< "$out"$'\n'"$klog"
	shopt -u nocasematch
	[ "$rc" != 0 ] || why+=" accepted (exit 0);"
	[ -n "$msg" ] || why+=" no message matching /$re/;"
	[ "$after" = "$before" ] || why+=" configuration changed;"
	ping_ok || why+=" no ping afterwards;"
	table+=("$(printf '%-3s %-4s %-58s %s' "$rc" "$([ -z "$why" ] && echo ok || echo FAIL)" "$cmd" "${msg:-(none)}")")
	if [ -z "$why" ]; then
		tap_ok "refused: $desc (exit $rc: $msg)"
	else
		tap_not_ok "refused: $desc:$why"
		{
			echo "command: $cmd"
			echo "output: $out"
			echo "kernel: $klog"
			diff <(printf '%s\n' "$before") <(printf '%s\n' "$after") || true
		} | tail -30 | tap_diag
	fi
}

E="nsexec cx0 ethtool"
IPL="ip -n cx0 link set dev cxen0"

# --- ethtool -------------------------------------------------------------
refused "ring size 0 (rx)" 'at least 64' "$E -G cxen0 rx 0"
refused "ring size 0 (tx)" 'at least 64' "$E -G cxen0 tx 0"
refused "ring size under the minimum" 'at least 64' "$E -G cxen0 rx 63"
refused "ring size over the maximum (rx)" 'exceeds maximum' "$E -G cxen0 rx 8193"
refused "ring size over the maximum (tx)" 'exceeds maximum' "$E -G cxen0 tx 16384"
refused "rx-mini ring" 'exceeds maximum|only rx and tx' "$E -G cxen0 rx-mini 8"
refused "rx-jumbo ring" 'exceeds maximum|only rx and tx' "$E -G cxen0 rx-jumbo 8"
refused "0 channels" 'no RX or TX channel' "$E -L cxen0 combined 0"
refused "channels over the maximum" 'exceeds maximum' "$E -L cxen0 combined 17"
refused "separate rx channels" 'exceeds maximum' "$E -L cxen0 rx 1"
refused "other channels" 'exceeds maximum' "$E -L cxen0 other 1"
refused "indirection entry >= channels (equal 2 of 1)" 'Invalid argument|queue' "$E -X cxen0 equal 2"
refused "indirection weights beyond the channels" 'Invalid argument|queue' "$E -X cxen0 weight 1 1"
refused "RSS key too short" 'too short' "$E -X cxen0 hkey 01:02:03:04"
refused "RSS key too long" 'too long' "$E -X cxen0 hkey $(printf '%02x:' $(seq 1 41) | sed 's/:$//')"
refused "RSS hash function xor" 'Toeplitz only|not supported|Operation not supported' "$E -X cxen0 hfunc xor"
refused "rx-usecs over the device limit" 'rx-usecs and tx-usecs must be 0\.\.4095' "$E -C cxen0 rx-usecs 4096"
refused "tx-frames over the device limit" 'rx-frames and tx-frames must be 0\.\.4095' "$E -C cxen0 tx-frames 100000"
refused "stats-block-usecs (the counters' fixed period)" 'stats-block-usecs is fixed' "$E -C cxen0 stats-block-usecs 5"
refused "coalescing parameter the device lacks" 'unsupported parameter' "$E -C cxen0 rx-usecs-irq 5"
refused "rx-usecs-irq (unsupported)" 'unsupported parameter' "$E -C cxen0 rx-usecs-irq 5"
refused "ntuple filters" 'Could not change any device features' "$E -K cxen0 ntuple on"
refused "generic tx checksum (fixed off)" 'Could not change any device features' "$E -K cxen0 tx-checksum-ip-generic on"
refused "rx-fcs (fixed off)" 'Could not change any device features' "$E -K cxen0 rx-fcs on"
refused "two RX layouts at once" 'at most one RX buffer layout' "$E --set-priv-flags cxen0 legacy2012 on onefrag2013 on"
refused "three RX layouts at once" 'at most one RX buffer layout' "$E --set-priv-flags cxen0 legacy2012 on wholepage2012 on onefrag2013 on"
refused "unknown priv flag" 'bit name not found' "$E --set-priv-flags cxen0 nosuchflag on"
refused "pause autonegotiation" 'pause autonegotiation is not supported' "$E -A cxen0 autoneg on"
refused "RSS context (one RSS table per port)" 'not supported' "$E -X cxen0 context new"
refused "ntuple rule (no flow steering)" 'not supported' "$E -N cxen0 flow-type tcp4 dst-port 80 action 0"
refused "Wake-on-LAN" 'not supported' "$E -s cxen0 wol g"
refused "link speed (fixed)" 'not supported' "$E -s cxen0 speed 1000 duplex full autoneg off"
refused "rx-copybreak over the maximum" 'rx-copybreak 1025 over the maximum 1024' "$E --set-tunable cxen0 rx-copybreak 1025"
refused "tx-copybreak over the inline maximum" 'tx-copybreak .inline. 257 over the maximum 256' "$E --set-tunable cxen0 tx-copybreak 257"

# --- ip link -------------------------------------------------------------
refused "MTU over the maximum" 'greater than device maximum' "$IPL mtu 9601"
refused "MTU under the minimum" 'less than device minimum' "$IPL mtu 67"
refused "MTU 0" 'less than device minimum' "$IPL mtu 0"
refused "gso_max_size over the TSO maximum" 'too big gso_max_size|gso_max_size' "$IPL gso_max_size 65536"
refused "gso_max_segs over the TSO maximum" 'too big gso_max_segs|gso_max_segs' "$IPL gso_max_segs 65536"
# (A MAC change on a running port is accepted: the device's RX filter
# takes the new address first, filter.sh.)
refused "all-zero MAC address" 'cannot assign|invalid' "$IPL address 00:00:00:00:00:00"
refused "multicast MAC address" 'cannot assign|invalid' "$IPL address 01:00:5e:00:00:01"
refused "txqueuelen -1" 'out of range|invalid' "$IPL txqueuelen -1"

# --- the model's debugfs knobs ------------------------------------------
refused "fault knob: not a number" 'Invalid argument' "echo foo > $fault/drop_every"
refused "fault knob: negative" 'Invalid argument' "echo -1 > $fault/cqe_error_every"
refused "fault knob: over 32 bits" 'Invalid argument' "echo 4294967296 > $fault/drop_every"
refused "stall_sqn below -1" 'Invalid argument' "echo -2 > $fault/stall_sqn"
refused "stall_sqn past the last SQ" 'Invalid argument' "echo 99999 > $fault/stall_sqn"
refused "stall_sqn: not a number" 'Invalid argument' "echo x > $fault/stall_sqn"
refused "delay_us over 1 s" 'Invalid argument' "echo 1000001 > $fault/delay_us"
refused "delay_us negative" 'Invalid argument' "echo -5 > $fault/delay_us"

# --- device memory (netdev bind-rx) --------------------------------------
# A udmabuf bound to RX queue 0 (devmem TCP): not supported, so refused
# with the driver's message, the queue keeping its host pages (no restart:
# its configuration as before).
ynl=$CXEN_ROOT/build/selftests/tools/net/ynl
spec=$CXEN_ROOT/build/selftests/Documentation/netlink/specs/netdev.yaml
refused "devmem bind-rx of a udmabuf to queue 0" 'device memory \(devmem TCP\) is not supported' \
	"nsexec cx0 python3 $CXEN_ROOT/tests/integration/devmem-bind.py $ynl $spec cxen0 0"

# --- the biggest ring at the most channels, every RX layout ---------------
# A configuration the VM's memory cannot hold must be refused with the
# figure before anything is built (cxen_params_mem_check()), never reach
# the OOM killer; one it can hold is built (__GFP_NORETRY otherwise). For
# each layout, at MTU 9000 (the largest buffers): ethtool -L to the most
# channels, then -G rx to the most entries; each either applied with
# traffic flowing, or refused with the memory figures in the message and the
# ring as it was (the message, cut to the 80 bytes an extack holds,
# gives both figures). Not one process killed, no allocation failure warning;
# the defaults back after each. (16 channels x 8192 entries of 9000-byte
# frames is about 1.5 GiB of pages, in a 2 GiB VM.)
mem_layout() {
	local layout=$1 maxrx maxch out rc=0 ring mark
	mark=$(dmesg | wc -l)
	if [ "$layout" != default ]; then
		e0 --set-priv-flags cxen0 "$layout" on || { echo "$layout: priv flag refused"; return 1; }
	fi
	# A layout whose WQE cannot hold a 9000-byte frame refuses the MTU:
	# its largest buffers are then those of MTU 1500.
	nsexec cx0 ip link set dev cxen0 mtu 9000 2> /dev/null ||
		echo "$layout: MTU 9000 refused (the layout's limit): at MTU 1500"
	maxch=$(e0 -l cxen0 | awk '/^Combined/ { print $2; exit }')
	maxrx=$(e0 -g cxen0 | awk '/^RX:/ { print $2; exit }')
	e0 -L cxen0 combined "$maxch" || { echo "$layout: ethtool -L combined $maxch failed"; rc=1; }
	if out=$(e0 -G cxen0 rx "$maxrx" 2>&1); then
		ring=$(e0 -g cxen0 | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2; exit }')
		echo "$layout: $maxch channels x rx $maxrx applied (ring $ring)"
		[ "$ring" = "$maxrx" ] || rc=1
		ping_ok || { echo "$layout: no ping at rx $maxrx"; rc=1; }
	else
		ring=$(e0 -g cxen0 | awk '/^Current/ { c = 1 } c && /^RX:/ { print $2; exit }')
		echo "$layout: $maxch channels x rx $maxrx refused: $out (ring $ring)"
		grep -q 'RX buffers: [0-9]* MiB > 50% of [0-9]* MiB available; shrink -G or -L' <<< "$out" || rc=1
		[ "$ring" = 1024 ] || rc=1
	fi
	e0 -G cxen0 rx 1024 && e0 -L cxen0 combined 1 || rc=1
	nsexec cx0 ip link set dev cxen0 mtu 1500 || rc=1
	if [ "$layout" != default ]; then
		e0 --set-priv-flags cxen0 "$layout" off || rc=1
	fi
	if dmesg | tail -n +$((mark + 1)) | grep -E 'invoked oom-killer|Out of memory|page allocation failure'; then
		echo "$layout: the kernel ran out of memory"
		rc=1
	fi
	ping_ok || { echo "$layout: no ping after"; rc=1; }
	return $rc
}
# default: the automatic choice (pagepool at MTU 1500, striding above
# what one page holds).
for l in default striding legacy2012 wholepage2012 onefrag2013; do
	tap_check "$l at its largest MTU: the most channels and the biggest RX ring: built or refused with the figure, no OOM" mem_layout "$l"
done
last_snap=

# --- devlink parameters and reload --------------------------------------
DP="devlink dev param set $dl"
refused "rx_layout unknown" 'unknown RX layout: use auto, pagepool' "$DP name rx_layout value bogus cmode driverinit"
refused "rx_layout empty" 'unknown RX layout: use auto, pagepool' "$DP name rx_layout value '' cmode driverinit"
refused "rx_layout: a layout's prefix" 'unknown RX layout: use auto, pagepool' "$DP name rx_layout value onefrag cmode driverinit"
refused "rx_layout at run time (driverinit only)" 'Configuration mode not supported|Operation not supported' "$DP name rx_layout value onefrag2013 cmode runtime"
refused "tx_doorbell_batch: not a boolean" 'not a number or not within range|invalid' "$DP name tx_doorbell_batch value maybe cmode runtime"
refused "tx_doorbell_batch as driverinit (runtime only)" 'Configuration mode not supported|Operation not supported' "$DP name tx_doorbell_batch value false cmode driverinit"
refused "reload with a network namespace" 'reload with a network namespace is not supported' "devlink dev reload $dl netns cx1"

# The good path: rx_layout (driverinit) and a reload create both ports
# anew with that layout; back to auto, the configuration this test
# started with.
defaults=$(snapshot)

# reload_layout NAME: rx_layout NAME, read back, devlink dev reload, the
# pair set up again (the new netdevs are in the initial netns).
reload_layout() {
	local v
	$DP name rx_layout value "$1" cmode driverinit || return 1
	v=$(dl_param "$dl" rx_layout)
	[ "$v" = "$1" ] || { echo "rx_layout reads '$v' after setting $1"; return 1; }
	devlink dev reload "$dl" && cxen_pair_setup
}

reload_onefrag() {
	reload_layout onefrag2013 || return 1
	if ! e0 --show-priv-flags cxen0 | grep -Eq '^onefrag2013 *: on' ||
	   ! e1 --show-priv-flags cxen1 | grep -Eq '^onefrag2013 *: on'; then
		e0 --show-priv-flags cxen0
		echo "cxen0/cxen1 not created with onefrag2013"
		return 1
	fi
	ping_ok || { echo "no ping with onefrag2013"; return 1; }
}
tap_check "rx_layout onefrag2013 and devlink reload: both ports created with it" reload_onefrag

reload_default() {
	reload_layout auto || return 1
	[ "$(snapshot)" = "$defaults" ] || {
		diff <(printf '%s\n' "$defaults") <(snapshot)
		return 1
	}
}
tap_check "rx_layout auto and devlink reload: the default configuration again" reload_default
tap_check "ping both ways" sh -c 'nsexec cx0 ping -c 2 -W 5 192.0.2.2 && nsexec cx1 ping -6 -c 2 -W 5 fd00:c0::1'

echo "# exit verdict input                                                     message"
printf '%s\n' "${table[@]}" | tap_diag
echo "# ${#table[@]} invalid inputs tried"
tap_done
