#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# ethtool layer test, TAP output.
#
#   tests/integration/ethtool.sh [tests/vm/run options]   on the host: boots
#       the VM (stock kernel unless --kernel debug) with --pair, runs inside
#
# Inside the VM, each ethtool command is set and read back, with traffic
# after it: -i; link settings; -g/-G (maximums, power-of-two rounding);
# -k/-K for sg, tso, tx and rx checksumming, gro, rxhash, tx-vlan-offload
# and rx-vlan-offload, each with what shows the offload in use or not
# (driver and device counters; for the hash and the VLAN tags the skbs
# themselves, at the net/napi_gro_receive_entry and net_dev_start_xmit
# tracepoints); -l/-L (1..max, RSS spreads over the queues); -c/-C;
# -x/-X (key, table; a user table kept across -L when valid, refused
# otherwise); tunables; priv flags (each RX layout carries a checked
# transfer); -r; ethtool -S counters never go backwards across link
# down/up, -L and -G.
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/integration/ethtool.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"

# -L values (both ports) and RX layouts (priv flags) tried, in order.
chans=(2 16 4)
flags=(legacy2012 wholepage2012 onefrag2013 striding)

# Points: -i and link settings 2; -g/-G 5; -K 8 (8 toggles); -k as
# before 1; one per -L value; RSS
# spread 1; -C 1; -X table and key 2; tunables 1; priv flags listed 1 and
# one per layout; -A 1; flow control 1; -r 1; -S monotonic 1; counters 1.
tap_plan $((2 + 5 + 8 + 1 + ${#chans[@]} + 1 + 1 + 2 + 1 + 1 + ${#flags[@]} + 5))

ping4() { nsexec cx0 ping -c 2 -i 0.2 -W 5 -q 192.0.2.2 >/dev/null; }

# A small checked transfer cxen0 -> cxen1.
small_xfer() { xfer cx1 192.0.2.2 cx0 $((256 * 1024)) "$1" >/dev/null; }

# --- -i and link settings ----------------------------------------------

drvinfo() {
	local out
	out=$(e0 -i cxen0)
	echo "$out"
	grep -qx 'driver: cxen' <<< "$out" &&
		grep -Eqx 'version: [0-9]+\.[0-9]+.*' <<< "$out" &&
		grep -Eqx 'bus-info: .+' <<< "$out" || return 1
	grep -E '^(driver|version|bus-info):' <<< "$out" | tr '\n' ' '
}
point "ethtool -i: driver cxen, version, bus-info" drvinfo

linkset() {
	local out
	out=$(e0 cxen0)
	echo "$out"
	grep -q 'Speed: 100000Mb/s' <<< "$out" && grep -q 'Duplex: Full' <<< "$out" &&
		grep -q 'Link detected: yes' <<< "$out" || return 1
	echo "Speed: 100000Mb/s, Duplex: Full, Link detected: yes"
}
point "ethtool cxen0: Speed 100000Mb/s, Duplex Full, link detected" linkset

# --- -g / -G -----------------------------------------------------------

# rings DEV_NS DEV: "maxrx maxtx rx tx"
rings() {
	nsexec "$1" ethtool -g "$2" | awk '
		/^Pre-set/ { s = "max" } /^Current/ { s = "cur" }
		$1 == "RX:" { v[s "rx"] = $2 } $1 == "TX:" { v[s "tx"] = $2 }
		END { print v["maxrx"], v["maxtx"], v["currx"], v["curtx"] }'
}

ring_set() {
	local rx=$1 tx=$2 want="$3 $4" got
	e0 -G cxen0 rx "$rx" tx "$tx" || return 1
	got=$(rings cx0 cxen0)
	echo "-G rx $rx tx $tx -> ${got#* * }"
	[ "${got#* * }" = "$want" ] && ping4
}

ring_max() {
	local got
	got=$(rings cx0 cxen0)
	echo "maximums rx/tx: ${got% * *}"
	[ "${got% * *}" = "8192 8192" ]
}
point "ethtool -g: maximums 8192/8192" ring_max
point "ethtool -G rx 64 tx 64 (minimum) read back" ring_set 64 64 64 64
point "ethtool -G rx 1000 tx 300 rounds up to 1024/512" ring_set 1000 300 1024 512
point "ethtool -G rx 8192 tx 8192 (maximum) read back" ring_set 8192 8192 8192 8192
point "ethtool -G rx 1024 tx 1024 (default) read back" ring_set 1024 1024 1024 1024

# --- -k / -K -----------------------------------------------------------

# feat NS DEV NAME: "on" or "off" as ethtool -k shows NAME.
feat() {
	nsexec "$1" ethtool -k "$2" | awk -v n="$3:" '$1 == n { print $2 }'
}

# toggle NS DEV OPT NAME COUNTER_NS COUNTER_DEV COUNTER: -K OPT off, read
# back, a checked transfer (COUNTER of COUNTER_DEV must stay put), -K on,
# read back, a transfer (COUNTER must move).
toggle() {
	local ns=$1 dev=$2 opt=$3 name=$4 cns=$5 cdev=$6 ctr=$7 s0 s1 s2 d_off d_on
	nsexec "$ns" ethtool -K "$dev" "$opt" off || return 1
	[ "$(feat "$ns" "$dev" "$name")" = off ] || { echo "$name not off"; return 1; }
	s0=$(stats_snap "$cns" "$cdev")
	small_xfer "$opt-off" || { echo "transfer with $opt off failed"; return 1; }
	s1=$(stats_snap "$cns" "$cdev")
	nsexec "$ns" ethtool -K "$dev" "$opt" on || return 1
	[ "$(feat "$ns" "$dev" "$name")" = on ] || { echo "$name not on"; return 1; }
	small_xfer "$opt-on" || { echo "transfer with $opt on failed"; return 1; }
	s2=$(stats_snap "$cns" "$cdev")
	d_off=$(stat_delta "$s0" "$s1" "$ctr")
	d_on=$(stat_delta "$s1" "$s2" "$ctr")
	echo "$cdev $ctr +$d_off with $opt off, +$d_on with it on"
	[ "$d_off" = 0 ] && [ "$d_on" -gt 0 ]
}

# "-K tso on" sets every TSO bit ethtool groups under tso, including
# tx-tcp-mangleid-segmentation, which the core adds to hw_features for
# any TSO device but does not turn on: start from that state, so that
# "as before" compares like with like.
nsexec cx0 ethtool -K cxen0 tso on
features0=$(e0 -k cxen0)
features1=$(e1 -k cxen1)
point "-K sg off/on (tx_tso_packets)" toggle cx0 cxen0 sg scatter-gather cx0 cxen0 tx_tso_packets
point "-K tso off/on (tx_tso_packets)" toggle cx0 cxen0 tso tcp-segmentation-offload cx0 cxen0 tx_tso_packets
point "-K tx off/on (tx_csum_offload)" toggle cx0 cxen0 tx tx-checksumming cx0 cxen0 tx_csum_offload
point "-K rx off/on on the receiver (rx_csum_unnecessary)" toggle cx1 cxen1 rx rx-checksumming cx1 cxen1 rx_csum_unnecessary

# The skbs cxen hands the stack (net/napi_gro_receive_entry and, for the
# TCP frames it gives GRO as page frags, net/napi_gro_frags_entry, on
# cxen1) or gets from it (net/net_dev_start_xmit, on cxen0), from a trace
# instance of this test's own: each line has vlan_tagged, protocol and
# (RX) hash and l4_hash as the skb has them.
tr=/sys/kernel/tracing/instances/cxen_ethtool
rx_events="napi_gro_receive_entry napi_gro_frags_entry"
# skb_trace DEV EVENT...: trace each EVENT (net/) for DEV's skbs from now on.
skb_trace() {
	local dev=$1 ev
	shift
	[ -d /sys/kernel/tracing/instances ] || mount -t tracefs nodev /sys/kernel/tracing || return 1
	[ -d "$tr" ] || mkdir "$tr" || return 1
	echo 0 > "$tr/tracing_on"
	echo 0 > "$tr/events/enable"
	echo 1024 > "$tr/buffer_size_kb"
	for ev in "$@"; do
		echo "name == \"$dev\"" > "$tr/events/net/$ev/filter" &&
			echo 1 > "$tr/events/net/$ev/enable" || return 1
	done
	: > "$tr/trace"
	echo 1 > "$tr/tracing_on"
}

# skb_events: the events since skb_trace, tracing off.
skb_events() {
	echo 0 > "$tr/tracing_on"
	grep -v '^#' "$tr/trace"
}

# fx_toggle NS DEV OPT NAME FX: -K OPT off, read back, FX off (traffic, and
# a check of what it shows), -K OPT on, read back, FX on.
fx_toggle() {
	local ns=$1 dev=$2 opt=$3 name=$4 fx=$5 v out=
	for v in off on; do
		nsexec "$ns" ethtool -K "$dev" "$opt" "$v" || return 1
		[ "$(feat "$ns" "$dev" "$name")" = "$v" ] || { echo "$name not $v"; return 1; }
		out+=$("$fx" "$v") || { echo "$out"; echo "with $opt $v: not in effect"; return 1; }
		out+="; "
	done
	echo "${out%; }"
}

# gro_fx on|off: a transfer into cxen1; GRO merged segments into fewer
# packets (rx_gro_segs above rx_gro_packets) only when on.
gro_fx() {
	local s0 s1 segs pkts
	s0=$(stats_snap cx1 cxen1)
	xfer cx1 192.0.2.2 cx0 $((1024 * 1024)) "gro-$1" >/dev/null || { echo "transfer failed"; return 1; }
	s1=$(stats_snap cx1 cxen1)
	segs=$(stat_delta "$s0" "$s1" rx_gro_segs)
	pkts=$(stat_delta "$s0" "$s1" rx_gro_packets)
	echo "gro $1: rx_gro_segs +$segs in rx_gro_packets +$pkts"
	[ "$pkts" -gt 0 ] || return 1
	if [ "$1" = on ]; then [ "$segs" -gt "$pkts" ]; else [ "$segs" = "$pkts" ]; fi
}

# rxhash_fx on|off: a transfer into cxen1; its TCP frames reach the stack
# with the device's L4 hash (hash set, l4_hash=1) only when on; off, no
# skb has a hash from the driver.
rxhash_fx() {
	local ev n l4 nohash hashed
	skb_trace cxen1 $rx_events || { echo "no trace instance"; return 1; }
	small_xfer "rxhash-$1" || { skb_events > /dev/null; echo "transfer failed"; return 1; }
	ev=$(skb_events | grep 'protocol=0x0800 ')
	n=$(grep -c . <<< "$ev" || true)
	l4=$(grep -c 'l4_hash=1 ' <<< "$ev" || true)
	nohash=$(grep -c 'hash=0x00000000 l4_hash=0 ' <<< "$ev" || true)
	hashed=$((n - nohash))
	echo "rxhash $1: $n IPv4 skbs from cxen1, $hashed with a hash ($l4 L4)"
	[ "$n" -ge 100 ] || return 1
	if [ "$1" = on ]; then [ "$l4" = "$n" ]; else [ "$nohash" = "$n" ]; fi
}

# An 802.1Q sub-interface on each port (VLAN 100) for the two VLAN points.
vlan_up() {
	vlan_supported || { echo "no 802.1Q in kernel $(uname -r)"; return 1; }
	ip -n cx0 link show cxen0.100 >/dev/null 2>&1 && return 0
	nsexec cx0 ip link add link cxen0 name cxen0.100 type vlan id 100 &&
		nsexec cx1 ip link add link cxen1 name cxen1.100 type vlan id 100 &&
		nsexec cx0 ip addr add 198.51.100.1/24 dev cxen0.100 &&
		nsexec cx1 ip addr add 198.51.100.2/24 dev cxen1.100 &&
		nsexec cx0 ip link set cxen0.100 up && nsexec cx1 ip link set cxen1.100 up
}

vlan_down() {
	nsexec cx0 ip link del cxen0.100 2>/dev/null || true
	nsexec cx1 ip link del cxen1.100 2>/dev/null || true
}

vping() { nsexec cx0 ping -c 5 -i 0.2 -W 5 -q 198.51.100.2 >/dev/null; }

# txvlan_fx on|off: pings over VLAN 100 from cxen0: on, cxen0 gets the
# skbs with the tag beside them (vlan_tagged=1: the device inserts it);
# off, with the tag in the frame (protocol 0x8100: the stack inserted
# it). Either way the tag reaches the wire: cxen1's port strips it.
txvlan_fx() {
	local ev acc tagged inline s0 s1 st
	skb_trace cxen0 net_dev_start_xmit || { echo "no trace instance"; return 1; }
	s0=$(stat cx1 cxen1 hw_rx_vlan_stripped)
	vping || { skb_events > /dev/null; echo "no ping over VLAN 100"; return 1; }
	s1=$(stat cx1 cxen1 hw_rx_vlan_stripped)
	ev=$(skb_events)
	acc=$(grep -c 'vlan_tagged=1 vlan_proto=0x8100 vlan_tci=0x0064 ' <<< "$ev" || true)
	tagged=$(grep -c 'vlan_tagged=1 ' <<< "$ev" || true)
	inline=$(grep -c 'vlan_tagged=0 .*protocol=0x8100 ' <<< "$ev" || true)
	st=$((s1 - s0))
	echo "txvlan $1: cxen0 sent $acc skbs with the tag beside them, $inline with it in the frame; cxen1's port stripped $st"
	[ "$st" -ge 5 ] || return 1
	if [ "$1" = on ]; then
		[ "$acc" -ge 5 ] && [ "$inline" = 0 ]
	else
		[ "$inline" -ge 5 ] && [ "$tagged" = 0 ]
	fi
}

# rxvlan_fx on|off: pings over VLAN 100 into cxen1: on, its port strips
# the tag (hw_rx_vlan_stripped) and the skbs reach the stack with it
# beside them (vlan_tagged=1, TCI 100); off, nothing stripped, the tag
# in the frame (protocol 0x8100).
rxvlan_fx() {
	local ev acc tagged inline s0 s1 st
	skb_trace cxen1 $rx_events || { echo "no trace instance"; return 1; }
	s0=$(stat cx1 cxen1 hw_rx_vlan_stripped)
	vping || { skb_events > /dev/null; echo "no ping over VLAN 100"; return 1; }
	s1=$(stat cx1 cxen1 hw_rx_vlan_stripped)
	ev=$(skb_events)
	acc=$(grep -c 'vlan_tagged=1 vlan_proto=0x8100 vlan_tci=0x0064 ' <<< "$ev" || true)
	tagged=$(grep -c 'vlan_tagged=1 ' <<< "$ev" || true)
	inline=$(grep -c 'vlan_tagged=0 .*protocol=0x8100 ' <<< "$ev" || true)
	st=$((s1 - s0))
	echo "rxvlan $1: cxen1's port stripped $st, the stack got $acc skbs with the tag beside them, $inline with it in the frame"
	if [ "$1" = on ]; then
		[ "$st" -ge 5 ] && [ "$acc" -ge 5 ] && [ "$inline" = 0 ]
	else
		[ "$st" = 0 ] && [ "$inline" -ge 5 ] && [ "$tagged" = 0 ]
	fi
}

point "-K gro off/on (rx_gro_segs against rx_gro_packets)" fx_toggle cx1 cxen1 gro generic-receive-offload gro_fx
point "-K rxhash off/on (the skbs' hash)" fx_toggle cx1 cxen1 rxhash receive-hashing rxhash_fx
point "-K txvlan off/on (the skbs' tag, the peer strips it)" eval "vlan_up && fx_toggle cx0 cxen0 txvlan tx-vlan-offload txvlan_fx"
point "-K rxvlan off/on (hw_rx_vlan_stripped, the skbs' tag)" eval "vlan_up && fx_toggle cx1 cxen1 rxvlan rx-vlan-offload rxvlan_fx"
vlan_down
rmdir "$tr" 2>/dev/null || true
same_features() {
	local d
	d=$(diff <(echo "$features0") <(e0 -k cxen0); diff <(echo "$features1") <(e1 -k cxen1)) || true
	[ -z "$d" ] || { echo "$d"; return 1; }
}
point "ethtool -k after the toggles: as before" same_features

# --- -l / -L -----------------------------------------------------------

channels() {
	nsexec "$1" ethtool -l "$2" | awk '
		/^Pre-set/ { s = "max" } /^Current/ { s = "cur" }
		$1 == "Combined:" { v[s] = $2 } END { print v["max"], v["cur"] }'
}

chan_set() {
	local n=$1 got snap
	e0 -L cxen0 combined "$n" && e1 -L cxen1 combined "$n" || return 1
	got=$(channels cx0 cxen0)
	snap=$(stats_snap cx0 cxen0)
	stat_of "$snap" "rx$((n - 1))_packets" >/dev/null || { echo "no rx$((n - 1))_packets"; return 1; }
	! stat_of "$snap" "rx${n}_packets" >/dev/null || { echo "rx${n}_packets still listed"; return 1; }
	echo "max ${got% *}, combined ${got#* }"
	[ "$got" = "16 $n" ] && [ "$(channels cx1 cxen1)" = "16 $n" ] && ping4
}

for n in "${chans[@]}"; do
	point "ethtool -L combined $n on both ports, read back (max 16), per-queue counters" chan_set "$n"
done

# rss_spread: 8 TCP streams to cxen1 with 4 queues land on more than one.
# Each stream's source port is bound at random (bind to port 0), so the
# ports differ in most of their bits. iperf3 -P's streams would take
# ephemeral ports 2 apart, which differ in 4 bits: with a random RSS key
# they all land on one queue in about 3% of boots (in a Python model of
# the Toeplitz hash), and a CI run saw it (rx3 +192459, the rest 17).
rss_spread() {
	local s0 s1 i d used=0 line="" srv ports
	s0=$(stats_snap cx1 cxen1)
	nsexec cx1 python3 -c '
import selectors, socket, time
ls = socket.socket()
ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
ls.bind(("192.0.2.2", 5301))
ls.listen(16)
sel = selectors.DefaultSelector()
sel.register(ls, selectors.EVENT_READ)
accepted = open_ = 0
end = time.monotonic() + 30
while (accepted < 8 or open_) and time.monotonic() < end:
    for key, _ in sel.select(1):
        if key.fileobj is ls:
            c, _ = ls.accept()
            sel.register(c, selectors.EVENT_READ)
            accepted += 1
            open_ += 1
        elif not key.fileobj.recv(1 << 16):
            sel.unregister(key.fileobj)
            key.fileobj.close()
            open_ -= 1
' &
	srv=$!
	wait_for 5 sh -c "nsexec cx1 ss -Hltn 'sport = :5301' | grep -q ." || { kill "$srv"; return 1; }
	ports=$(nsexec cx0 python3 -c '
import socket, time
socks = []
for i in range(8):
    s = socket.socket()
    s.bind(("", 0))
    s.connect(("192.0.2.2", 5301))
    socks.append(s)
print(" ".join(str(s.getsockname()[1]) for s in socks))
buf = b"x" * 65536
end = time.monotonic() + 2
while time.monotonic() < end:
    for s in socks:
        s.sendall(buf)
for s in socks:
    s.close()
') || { kill "$srv"; return 1; }
	wait "$srv" || return 1
	s1=$(stats_snap cx1 cxen1)
	for i in 0 1 2 3; do
		d=$(stat_delta "$s0" "$s1" "rx${i}_packets")
		line+=" rx$i +$d"
		[ "$d" -le 100 ] || used=$((used + 1))
	done
	echo "8 streams (source ports $ports) over 4 queues:$line"
	[ "$used" -ge 2 ]
}
point "RSS: 8 streams spread over the 4 RX queues of cxen1" rss_spread

# --- -c / -C -----------------------------------------------------------

coal() {
	e0 -c cxen0 | awk '$1 ~ /^(rx|tx)-(usecs|frames):$/ { printf "%s %s ", $1, $2 }'
}

coal_set() {
	local before got
	before=$(coal)
	e0 -C cxen0 rx-usecs 20 rx-frames 40 tx-usecs 30 tx-frames 10 || return 1
	got=$(coal)
	echo "was: $before now: $got"
	[ "$got" = "rx-usecs: 20 rx-frames: 40 tx-usecs: 30 tx-frames: 10 " ] || return 1
	ping4 || return 1
	# shellcheck disable=SC2086 # the words are the -C arguments
	e0 -C cxen0 ${before//:/} && [ "$(coal)" = "$before" ]
}
point "ethtool -C rx-usecs 20 rx-frames 40 tx-usecs 30 tx-frames 10 read back, restored" coal_set

# --- -x / -X -----------------------------------------------------------

# indir NS DEV: the indirection table's entries, one line.
indir() {
	nsexec "$1" ethtool -x "$2" |
		awk '/^ *[0-9]+: / { for (i = 2; i <= NF; i++) printf "%s ", $i }'
}

hkey() {
	e0 -x cxen0 | awk '/^RSS hash key:/ { getline; print }'
}

rss_table() {
	local t t2 n entries
	e0 -L cxen0 combined 4 || return 1
	e0 -X cxen0 equal 2 || return 1
	t=$(indir cx0 cxen0)
	entries=$(tr ' ' '\n' <<< "$t" | sort -u | tr '\n' ' ')
	n=$(wc -w <<< "$t")
	echo "-X equal 2: $n entries, queues used: $entries"
	[ "$entries" = " 0 1 " ] || [ "$entries" = "0 1 " ] || return 1
	[ "$n" -gt 0 ] || return 1
	e0 -L cxen0 combined 3 || { echo "-L 3 refused with a valid user table"; return 1; }
	t2=$(indir cx0 cxen0)
	[ "$t2" = "$t" ] || { echo "table changed across -L 3"; return 1; }
	if e0 -L cxen0 combined 1; then
		echo "-L 1 accepted although the table uses queue 1"
		return 1
	fi
	[ "$(channels cx0 cxen0)" = "16 3" ] || { echo "channels changed"; return 1; }
	[ "$(indir cx0 cxen0)" = "$t" ] || { echo "table changed by the refused -L 1"; return 1; }
	ping4 || return 1
	e0 -X cxen0 default && e0 -L cxen0 combined 1 || return 1
	entries=$(indir cx0 cxen0 | tr ' ' '\n' | sort -u | tr '\n' ' ')
	echo "user table kept across -L 3, -L 1 refused, after -X default -L 1 queues used: $entries"
	[ "$entries" = " 0 " ] || [ "$entries" = "0 " ]
}
point "ethtool -X equal 2: kept across -L 3, -L 1 refused, default table follows -L" rss_table

rss_key() {
	local key old
	old=$(hkey)
	key=$(for i in $(seq 1 40); do printf '%02x:' $((i * 7 % 256)); done)
	key=${key%:}
	e0 -X cxen0 hkey "$key" || return 1
	[ "$(hkey)" = "$key" ] || { echo "key read back: $(hkey)"; return 1; }
	e0 -x cxen0 | grep -A1 '^RSS hash function:' | grep -q 'toeplitz: on' || return 1
	ping4 && e0 -X cxen0 hkey "$old" && [ "$(hkey)" = "$old" ] &&
		echo "40-byte key set and read back, toeplitz, old key restored"
}
point "ethtool -X hkey read back" rss_key

# --- tunables ----------------------------------------------------------

tunables() {
	local rx tx
	rx=$(e0 --get-tunable cxen0 rx-copybreak | awk '{ print $2 }')
	tx=$(e0 --get-tunable cxen0 tx-copybreak | awk '{ print $2 }')
	e0 --set-tunable cxen0 rx-copybreak 128 tx-copybreak 200 || return 1
	[ "$(e0 --get-tunable cxen0 rx-copybreak | awk '{ print $2 }')" = 128 ] &&
		[ "$(e0 --get-tunable cxen0 tx-copybreak | awk '{ print $2 }')" = 200 ] || return 1
	ping4 && e0 --set-tunable cxen0 rx-copybreak "$rx" tx-copybreak "$tx" &&
		echo "rx-copybreak 128, tx-copybreak 200 read back; restored $rx/$tx"
}
point "ethtool --set-tunable rx-copybreak/tx-copybreak read back" tunables

# --- priv flags --------------------------------------------------------

pflags() {
	nsexec "$1" ethtool --show-priv-flags "$2" |
		awk -F': *' 'NR > 1 && NF == 2 { sub(/ +$/, "", $1); printf "%s=%s ", $1, $2 }'
}

# A layout flag named wins over auto (on beside it, as ethtool passes
# every flag back); auto stays on.
priv_flag() {
	local f=$1 got
	e1 --set-priv-flags cxen1 "$f" on || return 1
	got=$(pflags cx1 cxen1)
	echo "$got; running: $(rx_layout cx1 cxen1)"
	case "$got" in *"$f=on"*) ;; *) return 1 ;; esac
	case "$got" in *"auto=on"*) ;; *) return 1 ;; esac
	[ "$(grep -o '=on' <<< "$got" | wc -l)" = 2 ] || return 1
	[ "$(rx_layout cx1 cxen1)" = "$f named" ] || return 1
	small_xfer "layout-$f" || { echo "transfer with $f failed"; return 1; }
	e1 --set-priv-flags cxen1 "$f" off || return 1
	[ "$(grep -c '=on' <<< "$(pflags cx1 cxen1)")" = 1 ] || return 1
	[ "$(rx_layout cx1 cxen1)" = "pagepool auto" ] || return 1
	echo "$f on (with auto), checked transfer into cxen1, off again: pagepool auto"
}

flags_listed() {
	local got
	got=$(pflags cx1 cxen1)
	echo "$got; running: $(rx_layout cx1 cxen1)"
	[ "$got" = "legacy2012=off wholepage2012=off onefrag2013=off striding=off auto=on " ] &&
		[ "$(rx_layout cx1 cxen1)" = "pagepool auto" ]
}
point "--show-priv-flags lists the comparison layouts and striding off, auto on; MTU 1500 runs pagepool" flags_listed
for f in "${flags[@]}"; do
	point "--set-priv-flags $f on/off" priv_flag "$f"
done

# --- -a / -A ----------------------------------------------------------

# pause NS DEV: "autoneg rx tx" of ethtool -a
pause() {
	nsexec "$1" ethtool -a "$2" | awk '
		$1 == "Autonegotiate:" { a = $2 } $1 == "RX:" { r = $2 }
		$1 == "TX:" { t = $2 } END { print a, r, t }'
}

# The model's view of port 1: "rx_pause tx_pause".
model_pause() {
	awk '$1 == "pause_rx" { r = $2 } $1 == "pause_tx" { t = $2 }
	     END { print r, t }' /sys/kernel/debug/cxsim/port1
}

pause_set() {
	local got
	got=$(pause cx1 cxen1)
	[ "$got" = "off on on" ] || { echo "default: $got, want off on on"; return 1; }
	[ "$(model_pause)" = "1 1" ] || { echo "model: $(model_pause)"; return 1; }
	e1 -A cxen1 rx off tx on || return 1
	got="$(pause cx1 cxen1) / model $(model_pause)"
	[ "$got" = "off off on / model 0 1" ] || { echo "after rx off: $got"; return 1; }
	e1 -A cxen1 rx on tx off || return 1
	got="$(pause cx1 cxen1) / model $(model_pause)"
	[ "$got" = "off on off / model 1 0" ] || { echo "after rx on tx off: $got"; return 1; }
	e1 -A cxen1 tx on && ping4 || return 1
	echo "default rx/tx on, each direction set and read back in ethtool and the model"
}
point "ethtool -a/-A: rx and tx pause set and read back" pause_set

# A receiver whose ring is too small for a burst: 64 RX entries and its
# interrupt held back 4 ms. With flow control, cxen1 sends PAUSE, cxen0
# holds its transmitter, and the device drops nothing; without it the
# device drops what does not fit. The burst: 3000 UDP datagrams of 1000
# bytes at once from one non-blocking socket (no transport to slow it
# down: far more than the ring holds, on any kernel), to a permanent
# neighbour entry; what the sender's qdisc cannot take it drops itself.
burst() {
	ip -n cx0 neigh replace 192.0.2.2 dev cxen0 nud permanent \
		lladdr "$(nsexec cx1 cat /sys/class/net/cxen1/address)"
	nsexec cx0 python3 -c '
import socket
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 32, 64 << 20)  # SO_SNDBUFFORCE
s.setblocking(False)
for i in range(3000):
    try:
        s.sendto(b"x" * 1000, ("192.0.2.2", 9))
    except OSError:
        pass
'
	nap 1		# what the device holds gets through
}

flow_control() {
	local a b a0 b0 lost sent held coal
	coal=$(e1 -c cxen1 | awk '$1 ~ /^(rx|tx)-(usecs|frames):$/ { sub(":", "", $1); printf "%s %s ", $1, $2 }')
	e1 -G cxen1 rx 64 && e1 -C cxen1 rx-usecs 4095 rx-frames 4095 || return 1

	a=$(stats_snap cx1 cxen1)
	a0=$(stats_snap cx0 cxen0)
	burst || return 1
	b=$(stats_snap cx1 cxen1)
	b0=$(stats_snap cx0 cxen0)
	lost=$(stat_delta "$a" "$b" hw_rx_out_of_buffer)
	sent=$(stat_delta "$a" "$b" hw_tx_pause)
	held=$(stat_delta "$a0" "$b0" hw_rx_pause)
	echo "pause on: hw_rx_out_of_buffer +$lost, cxen1 hw_tx_pause +$sent, cxen0 hw_rx_pause +$held"
	[ "$lost" -eq 0 ] && [ "$sent" -gt 0 ] && [ "$held" -eq "$sent" ] || return 1
	# The standard pause statistics are the same counters.
	e1 -I -a cxen1 | grep -Eq "tx_pause_frames: $(stat_of "$b" hw_tx_pause)\$" || {
		e1 -I -a cxen1
		return 1
	}

	e0 -A cxen0 rx off tx off && e1 -A cxen1 rx off tx off || return 1
	a=$(stats_snap cx1 cxen1)
	burst || return 1
	b=$(stats_snap cx1 cxen1)
	lost=$(stat_delta "$a" "$b" hw_rx_out_of_buffer)
	echo "pause off: hw_rx_out_of_buffer +$lost, hw_tx_pause +$(stat_delta "$a" "$b" hw_tx_pause)"
	[ "$lost" -gt 0 ] && [ "$(stat_delta "$a" "$b" hw_tx_pause)" -eq 0 ] || return 1

	e0 -A cxen0 rx on tx on && e1 -A cxen1 rx on tx on || return 1
	# shellcheck disable=SC2086 # the words are the -C arguments
	e1 -G cxen1 rx 1024 && e1 -C cxen1 $coal || return 1
	ip -n cx0 neigh del 192.0.2.2 dev cxen0
	echo "pause on: no frame lost, $sent PAUSE sent = $held honoured; pause off: $lost frames dropped"
}
point "flow control: a burst into a 64-entry ring drops without pause, not with it" flow_control

# --- -r ----------------------------------------------------------------

nway() {
	local c0 c1
	c0=$(nsexec cx0 cat /sys/class/net/cxen0/carrier_changes)
	e0 -r cxen0 || return 1
	wait_for 5 sh -c "ip -n cx0 -o link show dev cxen0 | grep -q LOWER_UP" || return 1
	c1=$(nsexec cx0 cat /sys/class/net/cxen0/carrier_changes)
	echo "carrier_changes $c0 -> $c1, link up again"
	[ "$c1" -gt "$c0" ] && ping4
}
point "ethtool -r: link goes down and up, traffic flows" nway

# --- ethtool -S monotonic ----------------------------------------------

# monotonic BEFORE AFTER: every counter in both is >= its old value.
monotonic() {
	awk 'NR == FNR { a[$1] = $2; next }
	     ($1 in a) && $2 < a[$1] { print "went back:", $1, a[$1], "->", $2; bad = 1 }
	     END { exit bad }' <(printf '%s\n' "$1") <(printf '%s\n' "$2")
}

stats_monotonic() {
	local a b c d
	a=$(stats_snap cx0 cxen0)
	small_xfer mono-1 || return 1
	ip -n cx0 link set dev cxen0 down && ip -n cx0 link set dev cxen0 up || return 1
	cxen_pair_wait_carrier || return 1
	b=$(stats_snap cx0 cxen0)
	monotonic "$a" "$b" || { echo "across link down/up"; return 1; }
	small_xfer mono-2 || return 1
	e0 -L cxen0 combined 4 && small_xfer mono-3 && e0 -L cxen0 combined 2 || return 1
	c=$(stats_snap cx0 cxen0)
	monotonic "$b" "$c" || { echo "across -L 4, -L 2"; return 1; }
	e0 -G cxen0 rx 2048 tx 512 && small_xfer mono-4 && e0 -G cxen0 rx 1024 tx 1024 &&
		e0 -L cxen0 combined 1 || return 1
	d=$(stats_snap cx0 cxen0)
	monotonic "$c" "$d" || { echo "across -G, -L 1"; return 1; }
	[ "$(stat_of "$d" tx_packets)" -gt "$(stat_of "$a" tx_packets)" ] || return 1
	echo "$(wc -l <<< "$d") counters, none went back; tx_packets $(stat_of "$a" tx_packets) -> $(stat_of "$d" tx_packets)"
}
point "ethtool -S counters monotonic across link down/up, -L, -G" stats_monotonic

tap_check "cxen0 TX counters = cxen1 RX counters and back" counters_match
tap_done
