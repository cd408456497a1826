#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Inside the VM (tests/vm/run --no-modules): the installed modules load
# and unload the way users load them, with modprobe.
#
#   tests/install/modprobe.sh ROOT VERSION
#
# ROOT is a staged install root (ROOT/lib/modules/$(uname -r)/ with
# cxen.ko and cxsim.ko somewhere below and depmod's files), used as
# `modprobe -d ROOT`. Checks, each one a line "ok ..." or a failure:
#   - modprobe cxsim: the model's platform device and its two ports;
#   - modprobe cxen: it binds and creates two netdevs (dev_port 0 and 1),
#     ethtool -i reports driver cxen and VERSION;
#   - modprobe -r cxen then cxsim, and (after loading again) cxsim then
#     cxen: each removal takes its netdevs and /sys/module entry away;
#   - the device knobs are devlink parameters, no module parameters: the
#     defaults, a bad rx_layout refused with a message naming what is
#     accepted, good values read back, and a devlink reload creating the
#     ports with the rx_layout set.
set -euo pipefail

root=${1:?usage: $0 ROOT VERSION}
version=${2:?usage: $0 ROOT VERSION}
dbg=/sys/kernel/debug/cxsim
fails=0

ok() { echo "ok   $*"; }
fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}
mp() { modprobe -d "$root" "$@"; }

# The cxen netdevs: "<dev_port> <ifname>" lines.
cxen_ports() {
	local d drv port
	for d in /sys/class/net/*; do
		[ -e "$d/device/driver" ] || continue
		drv=$(readlink -f "$d/device/driver")
		[ "${drv##*/}" = cxen ] || continue
		read -r port < "$d/dev_port"
		echo "$port ${d##*/}"
	done
}

loaded() { [ -d "/sys/module/$1" ]; }

load_model() {
	local n
	if ! mp cxsim; then
		fail "modprobe cxsim"
		return 1
	fi
	loaded cxsim || { fail "modprobe cxsim: no /sys/module/cxsim"; return 1; }
	[ -e /sys/bus/platform/devices/cxsim ] ||
		fail "modprobe cxsim: no platform device cxsim"
	n=$(grep -l '^link_up' "$dbg"/port* 2>/dev/null | wc -l)
	if [ "$n" = 2 ]; then
		ok "modprobe cxsim: platform device cxsim, 2 ports (${dbg}/port0, port1)"
	else
		fail "modprobe cxsim: $n ports in $dbg, expected 2"
	fi
}

load_driver() {
	local ports dev drv ver
	if ! mp cxen; then
		fail "modprobe cxen"
		return 1
	fi
	ports=$(cxen_ports | sort)
	if [ "$(printf '%s\n' "$ports" | awk '{ print $1 }' | tr '\n' ' ')" = "0 1 " ]; then
		ok "modprobe cxen: bound, netdevs $(printf '%s\n' "$ports" | awk '{ print $2 "(port " $1 ")" }' | tr '\n' ' ')"
	else
		fail "modprobe cxen: cxen netdevs '$ports', expected dev_port 0 and 1"
		return 1
	fi
	dev=$(printf '%s\n' "$ports" | awk 'NR == 1 { print $2 }')
	drv=$(ethtool -i "$dev" | sed -n 's/^driver: //p')
	ver=$(ethtool -i "$dev" | sed -n 's/^version: //p')
	if [ "$drv" = cxen ] && [ "$ver" = "$version" ]; then
		ok "ethtool -i $dev: driver $drv, version $ver"
	else
		fail "ethtool -i $dev: driver '$drv' version '$ver', expected cxen $version"
	fi
}

# unload MODULE: modprobe -r, then the module and (whichever went first)
# every cxen netdev must be gone.
unload() {
	local m=$1
	if ! mp -r "$m"; then
		fail "modprobe -r $m"
		lsmod | grep -E '^(cxen|cxsim) ' || true
		return 1
	fi
	if loaded "$m"; then
		fail "modprobe -r $m: /sys/module/$m still there"
	elif [ -n "$(cxen_ports)" ]; then
		fail "modprobe -r $m: cxen netdevs left: $(cxen_ports | tr '\n' ' ')"
	else
		ok "modprobe -r $m: unloaded, no cxen netdev left"
	fi
}

# The devlink instance of the model's device (bus/name).
dl=platform/cxsim

# param NAME VALUE: devlink parameter NAME reads VALUE (its one cmode).
param() {
	local v
	v=$(devlink dev param show "$dl" name "$1" | sed -n 's/^ *cmode [a-z]* value //p')
	if [ "$v" = "$2" ]; then
		ok "devlink $dl parameter $1 = $v"
	else
		fail "devlink $dl parameter $1 = '$v', expected '$2'"
	fi
}

# refused NAME VALUE CMODE MESSAGE: devlink refuses the value with MESSAGE.
refused() {
	local out
	if out=$(devlink dev param set "$dl" name "$1" value "$2" cmode "$3" 2>&1); then
		fail "devlink parameter $1 = '$2': accepted, should be refused"
	elif grep -qF -- "$4" <<< "$out"; then
		ok "devlink parameter $1 = '$2': refused: $(grep -F -- "$4" <<< "$out" | head -1)"
	else
		fail "devlink parameter $1 = '$2': refused, but the message lacks '$4': $out"
	fi
}

# set_param NAME VALUE CMODE: devlink accepts it.
set_param() {
	devlink dev param set "$dl" name "$1" value "$2" cmode "$3" ||
		fail "devlink parameter $1 = $2 ($3) refused"
}

# layout_of: the RX layout flag on for every cxen netdev ("auto", the
# default, or a layout; "pagepool" if none is), one line per port.
layout_of() {
	local dev f
	for dev in $(cxen_ports | awk '{ print $2 }'); do
		f=$(ethtool --show-priv-flags "$dev" | awk -F': *' '$2 == "on" { print $1 }' | tr -d ' ')
		echo "${f:-pagepool}"
	done
}

[ -f "$root/lib/modules/$(uname -r)/modules.dep" ] || {
	echo "FAIL no $root/lib/modules/$(uname -r)/modules.dep"
	exit 1
}
if loaded cxen || loaded cxsim; then
	echo "FAIL cxen/cxsim loaded before the test"
	exit 1
fi

# Each check records its failure (fails); "|| true" only keeps set -e
# from ending the run at the first one.

# Order 1: model, driver; remove the driver first.
if load_model && load_driver; then
	param tx_doorbell_batch true
	param rx_layout auto
	if [ -e /sys/module/cxen/parameters ]; then
		fail "cxen has module parameters: $(cd /sys/module/cxen/parameters && echo *)"
	else
		ok "no module parameters: the device knobs are devlink parameters"
	fi
fi
unload cxen || true
unload cxsim || true

# Order 2: remove the model first: the driver unbinds, stays loaded.
if load_model; then
	load_driver || true
fi
unload cxsim || true
if loaded cxen; then
	unload cxen || true
else
	fail "cxen gone with cxsim"
fi

# devlink parameters: a bad value refused with a message, good ones read
# back; the reload creates the ports with the RX layout set.
if load_model && load_driver; then
	refused rx_layout bogus driverinit \
		"unknown RX layout: use auto, pagepool or striding"
	# The shipped module has no comparison layouts (make bench's do).
	refused rx_layout onefrag2013 driverinit \
		"unknown RX layout: use auto, pagepool or striding"
	param rx_layout auto
	set_param tx_doorbell_batch false runtime
	param tx_doorbell_batch false
	set_param rx_layout striding driverinit
	param rx_layout striding
	if devlink dev reload "$dl"; then
		layouts=$(layout_of | sort -u | tr '\n' ' ')
		if [ "$(cxen_ports | wc -l)" = 2 ] && [ "$layouts" = "striding " ]; then
			ok "devlink dev reload $dl: 2 ports again, RX layout $layouts"
		else
			fail "devlink dev reload $dl: ports '$(cxen_ports | tr '\n' ' ')', layouts '$layouts'"
		fi
		param tx_doorbell_batch false
	else
		fail "devlink dev reload $dl"
	fi
fi
unload cxen || true
unload cxsim || true

if [ "$fails" != 0 ]; then
	echo "$fails check(s) failed"
	exit 1
fi
echo "all modprobe checks passed"
