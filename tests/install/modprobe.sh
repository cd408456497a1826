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
#   - bad parameter values are refused with a message naming what is
#     accepted; good ones load and show in /sys/module/cxen/parameters.
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
	if ! mp cxen "$@"; then
		fail "modprobe cxen${*:+ $*}"
		return 1
	fi
	ports=$(cxen_ports | sort)
	if [ "$(printf '%s\n' "$ports" | awk '{ print $1 }' | tr '\n' ' ')" = "0 1 " ]; then
		ok "modprobe cxen${*:+ $*}: bound, netdevs $(printf '%s\n' "$ports" | awk '{ print $2 "(port " $1 ")" }' | tr '\n' ' ')"
	else
		fail "modprobe cxen${*:+ $*}: cxen netdevs '$ports', expected dev_port 0 and 1"
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

# refused PARAM=VALUE MESSAGE: loading with it fails and dmesg says MESSAGE.
refused() {
	local arg=$1 msg=$2
	dmesg -C
	if mp cxen "$arg" 2>/dev/null; then
		fail "modprobe cxen $arg: loaded, should be refused"
		mp -r cxen || true
		return 0
	fi
	if loaded cxen; then
		fail "modprobe cxen $arg: failed but /sys/module/cxen exists"
	elif dmesg | grep -qF -- "$msg"; then
		ok "modprobe cxen $arg: refused; dmesg: $(dmesg | grep -F -- "$msg" | head -1 | sed 's/^\[[^]]*\] //')"
	else
		fail "modprobe cxen $arg: refused, but dmesg lacks '$msg':"
		dmesg | tail -5
	fi
}

# param NAME VALUE: /sys/module/cxen/parameters/NAME reads VALUE.
param() {
	local v
	v=$(cat "/sys/module/cxen/parameters/$1")
	if [ "$v" = "$2" ]; then
		ok "parameter $1 = $v"
	else
		fail "parameter $1 = '$v', expected '$2'"
	fi
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
	param rx_strategy pagepool
	param tx_doorbell_batch Y
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

# Parameters: bad values refused with a message, good ones accepted.
load_model || true
refused rx_strategy=bogus "rx_strategy 'bogus' unknown: use pagepool, legacy2012, wholepage2012 or onefrag2013"
refused tx_doorbell_batch=2 "tx_doorbell_batch '2' invalid: use 1/y/on or 0/n/off"
if load_driver rx_strategy=onefrag2013 tx_doorbell_batch=0; then
	param rx_strategy onefrag2013
	param tx_doorbell_batch N
fi
unload cxen || true
unload cxsim || true

if [ "$fails" != 0 ]; then
	echo "$fails check(s) failed"
	exit 1
fi
echo "all modprobe checks passed"
