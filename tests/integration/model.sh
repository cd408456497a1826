#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The device model's features seen through the driver (TAP output).
#
#   tests/integration/model.sh [tests/vm/run options]   on the host
#
# Inside the VM, with the pair set up (cxen0 in netns cx0, cxen1 in cx1):
#   - link: speed 100000 reported, carrier on both ports
#   - RSS: UDP from 256 source ports spreads over all 4 RX queues of
#     cxen1, per-queue counters add up; an indirection table naming only
#     queue 2 (ethtool -X) sends everything there
#   - RX checksum: TCP arrives CHECKSUM_UNNECESSARY; with -K rx off, NONE;
#     IP fragments of UDP and a frame with a bad IPv4 header checksum
#     arrive NONE (the stack verifies, reassembles or drops)
#   - ip -s link (ndo_get_stats64): injected error and bad-length CQEs in
#     rx_errors and rx_length_errors, the device's out-of-buffer drops in
#     rx_missed_errors, none of them in rx_dropped
#   - VLAN: insert on TX, strip on RX (rx-vlan-offload on: counted by the
#     device; off: the stack parses the tag), traffic flows both ways
#   - oversize: a frame over the receiver's MTU is dropped and counted;
#     lowering the MTU under a jumbo stream drops the frames in flight at
#     the port, none becomes an error CQE
#   - loopback (-K loopback on): the port's frames come back to it, the
#     peer's carrier goes down; off: the cable is back
#   - moderation: ethtool -C changes the live CQ (MODIFY_CQ, same CQ
#     number, no rebuild); adaptive-rx makes net_dim modify it under load;
#     never more interrupts than arms on any CQ
#   - SQ engine: with db_inline on the doorbell writer runs an idle SQ, a
#     frame that must wait for an RX buffer is parked and the SQ's work
#     delivers it (a TCP transfer whole, nothing dropped, irq_direct on);
#     with both off (the defaults), the work runs every SQ
#   - standard stats: eth-mac and rmon counters follow known traffic
#   - RPS on the receiver during ethtool -L under 8 flows: no frame from
#     a queue the stack does not count (get_rps_cpu()'s warning)
#   - a stalled SQ: TX watchdog, the device's view of it logged, rebuilt
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/integration/model.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"

# A command in each port's netns.

# std_stat NS DEV NAME: one standard (--all-groups) counter
std_stat() {
	nsexec "$1" ethtool -S "$2" --all-groups |
		awk -v n="$3:" '$1 == n { print $2; f = 1 } END { exit !f }'
}

# udp_flows NS DST NFLOWS COUNT SIZE: COUNT datagrams of SIZE bytes to
# DST:9, from NFLOWS different source ports (Python on the shared root).
udp_flows() {
	nsexec "$1" python3 - "$2" "$3" "$4" "$5" <<'PY'
import socket, sys, time
dst, nflows, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
socks = []
# Ephemeral source ports, whose low 15 bits all vary. Consecutive ports vary
# the low 8 alone, and a random key whose few bits that meet them in the
# hash's low bits happen to be zero leaves a queue empty (0.6% of keys).
for i in range(nflows):
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("", 0))
    socks.append(s)
for i in range(count):
    socks[i % nflows].sendto(b"x" * size, (dst, 9))
    if i % 32 == 31:
        time.sleep(0.005)  # 256 sockets could overflow the qdisc
PY
}

# udp_burst NS DST COUNT SIZE: COUNT datagrams at once from one
# non-blocking socket whose send buffer holds them all (SO_SNDBUFFORCE).
udp_burst() {
	nsexec "$1" python3 - "$2" "$3" "$4" <<'PY'
import socket, sys
dst, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 32, 64 << 20)  # SO_SNDBUFFORCE
s.setblocking(False)
for i in range(count):
    try:
        s.sendto(b"x" * size, (dst, 9))
    except OSError:
        pass
PY
}

# full_snap NS DEV: ethtool -S (which also refreshes the driver's copy of
# the device's counters), then ndo_get_stats64 as s64_<field> (sysfs).
full_snap() {
	nsexec "$1" sh -c "ethtool -S $2 | awk 'NR > 1 { sub(\":\", \"\", \$1); print \$1, \$2 }'
		cd /sys/class/net/$2/statistics && grep . * | sed 's/^/s64_/; s/:/ /'"
}

# settled_full NS DEV: full_snap once rx_packets stops moving (10 s).
settled_full() { settled full_snap "$@"; }

# d NAME: NAME's growth from $s0 to $s1.
d() { echo $(($(stat_of "$s1" "$1") - $(stat_of "$s0" "$1"))); }

fault_dir=/sys/kernel/debug/cxsim/fault

# Error CQEs and implausible lengths injected under UDP: rx_errors counts
# every bad frame, rx_length_errors the long ones, rx_dropped none of them.
stats64_errors() {
	local want
	s0=$(full_snap cx1 cxen1)
	echo 25 > "$fault_dir/cqe_error_every"
	echo 40 > "$fault_dir/cqe_bad_len_every"
	udp_flows cx0 192.0.2.2 1 800 1000
	echo 0 > "$fault_dir/cqe_error_every"
	echo 0 > "$fault_dir/cqe_bad_len_every"
	s1=$(settled_full cx1 cxen1) || return 1
	echo "rx_err_cqe +$(d rx_err_cqe), rx_oversize +$(d rx_oversize), rx_bad_cqe +$(d rx_bad_cqe), hw_rx_oversize +$(d hw_rx_oversize); stats64 rx_errors +$(d s64_rx_errors), rx_length_errors +$(d s64_rx_length_errors), rx_dropped +$(d s64_rx_dropped)"
	[ "$(d rx_err_cqe)" -gt 0 ] && [ "$(d rx_oversize)" -gt 0 ] || return 1
	want=$(($(d rx_err_cqe) + $(d rx_oversize) + $(d rx_bad_cqe) + $(d hw_rx_oversize)))
	[ "$(d s64_rx_errors)" = "$want" ] || return 1
	[ "$(d s64_rx_length_errors)" = $(($(d rx_oversize) + $(d hw_rx_oversize))) ] || return 1
	want=$(($(d rx_skb_alloc_fail) + $(d hw_rx_no_rq) + $(d hw_rx_queue_error)))
	[ "$(d s64_rx_dropped)" = "$want" ]
}

# napi_hold DEV on|off: DEV's NAPI polled from a 500 ms timer with its
# interrupts held off (napi_defer_hard_irqs, gro_flush_timeout), or back
# to interrupts. Held, a 64-entry RQ runs out of WQEs once more than 64
# frames arrive within one timer period: out-of-buffer drops without
# racing the host against the model. Off takes effect at the next poll.
napi_hold() {
	local irqs=0 timeout=0

	[ "$2" = on ] && { irqs=1000; timeout=500000000; }
	nsexec cx1 sh -c "echo $irqs > /sys/class/net/$1/napi_defer_hard_irqs &&
		echo $timeout > /sys/class/net/$1/gro_flush_timeout"
}

# With flow control off, a 64-entry ring and NAPI held (napi_hold), a
# UDP burst overruns cxen1's ring: the device's drops are
# rx_missed_errors, not rx_dropped. Up to three bursts, until the device
# dropped something (one should do).
stats64_missed() {
	local rc=0 i
	e1 -A cxen1 rx off tx off || return 1
	e1 -G cxen1 rx 64 || rc=1
	s0=$(full_snap cx1 cxen1)
	for i in 1 2 3; do
		napi_hold cxen1 on || rc=1
		udp_burst cx0 192.0.2.2 4000 1400
		napi_hold cxen1 off || rc=1
		s1=$(settled_full cx1 cxen1) || { rc=1; break; }
		[ "$(d hw_rx_out_of_buffer)" = 0 ] || break
	done
	e1 -G cxen1 rx 1024 || rc=1
	e1 -A cxen1 rx on tx on || rc=1
	[ "$rc" = 0 ] || return 1
	echo "$i burst(s): hw_rx_out_of_buffer +$(d hw_rx_out_of_buffer), hw_rx_cq_overrun +$(d hw_rx_cq_overrun); stats64 rx_missed_errors +$(d s64_rx_missed_errors), rx_dropped +$(d s64_rx_dropped)"
	[ "$(d hw_rx_out_of_buffer)" -gt 0 ] || return 1
	[ "$(d s64_rx_missed_errors)" = $(($(d hw_rx_out_of_buffer) + $(d hw_rx_cq_overrun))) ] || return 1
	[ "$(d s64_rx_dropped)" = $(($(d rx_skb_alloc_fail) + $(d hw_rx_no_rq) + $(d hw_rx_queue_error))) ]
}

# ip_in_hdr_errors NS: the netns's Ip InHdrErrors.
ip_in_hdr_errors() {
	nsexec "$1" awk '$1 == "Ip:" { if (!h) { for (i = 2; i <= NF; i++) c[$i] = i; h = 1 } else print $c["InHdrErrors"] }' /proc/net/snmp
}

# UDP datagrams of 3000 bytes over MTU 1500 come as IP fragments: the
# device verifies no L4 checksum on them (CHECKSUM_NONE for each), the
# stack reassembles and verifies; every datagram arrives.
csum_frags() {
	local got
	s0=$(full_snap cx1 cxen1)
	got=$(udp_echo_count 20 3000) || { echo "$got"; return 1; }
	s1=$(settled_full cx1 cxen1) || return 1
	echo "20 datagrams of 3000 bytes: $got received; cxen1 rx_packets +$(d rx_packets), rx_csum_none +$(d rx_csum_none), rx_csum_unnecessary +$(d rx_csum_unnecessary)"
	[ "$got" = 20 ] && [ "$(d rx_packets)" -ge 60 ] &&
		[ "$(d rx_csum_none)" = "$(d rx_packets)" ] && [ "$(d rx_csum_unnecessary)" = 0 ]
}

# udp_echo_count N SIZE: N datagrams of SIZE bytes from cx0 to a socket
# in cx1; prints how many arrived whole.
udp_echo_count() {
	local out
	nsexec cx1 python3 - "$1" "$2" > /tmp/model-udp.out <<'PY' &
import socket, sys
n, size = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("192.0.2.2", 9999))
s.settimeout(10)
got = 0
try:
    while got < n:
        d = s.recv(65535)
        if d == b"y" * size:
            got += 1
except socket.timeout:
    pass
print(got)
PY
	# The receiver's socket bound before the first datagram (else ICMP
	# port unreachable: a slow kernel takes seconds to start python).
	wait_for 30 n1 sh -c "ss -Hlun 'sport = :9999' | grep -q ." ||
		{ echo "receiver not listening after 30 s"; wait; return 1; }
	nsexec cx0 python3 - "$1" "$2" <<'PY'
import socket, sys, time
n, size = int(sys.argv[1]), int(sys.argv[2])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
for i in range(n):
    s.sendto(b"y" * size, ("192.0.2.2", 9999))
    time.sleep(0.01)
PY
	wait
	out=$(cat /tmp/model-udp.out)
	echo "$out"
}

# An IPv4/UDP frame with a bad IP header checksum, raw from cx0: the
# device does not vouch for it (CHECKSUM_NONE, hw_rx_csum_bad), the stack
# drops it (Ip InHdrErrors).
csum_bad_iphdr() {
	local h0 h1
	h0=$(ip_in_hdr_errors cx1)
	s0=$(full_snap cx1 cxen1)
	nsexec cx0 python3 - "$(n1 cat /sys/class/net/cxen1/address)" "$(n0 cat /sys/class/net/cxen0/address)" <<'PY' || return 1
import socket, struct, sys
dst, src = (bytes.fromhex(m.replace(":", "")) for m in sys.argv[1:3])
payload = b"z" * 64
udp = struct.pack("!HHHH", 9998, 9998, 8 + len(payload), 0) + payload
ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(udp), 1, 0, 64, 17, 0,
                 socket.inet_aton("192.0.2.1"), socket.inet_aton("192.0.2.2"))
s = sum(struct.unpack("!10H", ip))
s = (s & 0xffff) + (s >> 16)
s = (s & 0xffff) + (s >> 16)
good = ~s & 0xffff
ip = ip[:10] + struct.pack("!H", good ^ 0x0101) + ip[12:]
r = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
r.bind(("cxen0", 0))
for _ in range(5):
    r.send(dst + src + b"\x08\x00" + ip + udp)
PY
	s1=$(settled_full cx1 cxen1) || return 1
	h1=$(ip_in_hdr_errors cx1)
	echo "5 frames with a bad IP header checksum: cxen1 rx_packets +$(d rx_packets), rx_csum_none +$(d rx_csum_none), hw_rx_csum_bad +$(d hw_rx_csum_bad), Ip InHdrErrors +$((h1 - h0))"
	[ "$(d rx_csum_none)" -ge 5 ] && [ "$(d hw_rx_csum_bad)" = 5 ] &&
		[ "$(d rx_csum_unnecessary)" = 0 ] && [ $((h1 - h0)) = 5 ]
}

# CQ numbers, moderation and counters of the model's CQs
cqs() { cat /sys/kernel/debug/cxsim/cqs; }

link_test() {
	local s
	s=$(n0 ethtool cxen0) || return 1
	grep -q 'Speed: 100000Mb/s' <<< "$s" || { echo "$s"; return 1; }
	grep -q 'Link detected: yes' <<< "$s" || { echo "$s"; return 1; }
	[ "$(n1 cat /sys/class/net/cxen1/carrier)" = 1 ]
}

# settled SNAP NS DEV: wait (up to 10 s) until DEV's rx_packets stops
# moving, then print one snapshot by SNAP NS DEV. Under the debug kernel
# the last datagrams may still be in flight a second after the sender
# returned.
settled() {
	local s prev=-1 cur i
	for i in $(seq 20); do
		s=$("$1" "$2" "$3")
		cur=$(stat_of "$s" rx_packets) || return 1
		[ "$cur" = "$prev" ] && break
		prev=$cur
		nap 0.5
	done
	echo "$s"
}

# settle_snap NS DEV: one stats_snap once DEV's RX is still.
settle_snap() { settled stats_snap "$@"; }

rss_spread() {
	local i s0 s1 total=0 n=0 d
	n1 ethtool -L cxen1 combined 4 || return 1
	# One snapshot per reading: a stray ARP/ND frame between separate
	# reads would count in one counter and not in another.
	s0=$(stats_snap cx1 cxen1)
	udp_flows cx0 192.0.2.2 256 1024 64 || return 1
	s1=$(settle_snap cx1 cxen1) || return 1
	for i in 0 1 2 3; do
		d=$(stat_delta "$s0" "$s1" "rx${i}_packets")
		echo "queue $i: $d packets"
		total=$((total + d))
		[ "$d" -gt 0 ] && n=$((n + 1))
	done
	d=$(stat_delta "$s0" "$s1" rx_packets)
	echo "rx_packets +$d, hw_rx_out_of_buffer +$(stat_delta "$s0" "$s1" hw_rx_out_of_buffer)"
	# 1024 datagrams, plus perhaps a few ARP/ND frames; the total and
	# the queues' sum are read apart, in one snapshot of a settled port
	d=$((d - total))
	[ "$n" = 4 ] && [ "$total" -ge 1000 ] && [ "${d#-}" -le 4 ]
}

rss_table() {
	local i s0 s1 d
	n1 ethtool -X cxen1 weight 0 0 1 0 || return 1
	n1 ethtool -x cxen1 | grep -q '^ *0: *2 *2 *2 *2 *2 *2 *2 *2' || { n1 ethtool -x cxen1; return 1; }
	s0=$(stats_snap cx1 cxen1)
	udp_flows cx0 192.0.2.2 64 512 64 || return 1
	s1=$(settle_snap cx1 cxen1) || return 1
	for i in 0 1 2 3; do
		d=$(stat_delta "$s0" "$s1" "rx${i}_packets")
		echo "queue $i: $d packets"
		if [ "$i" = 2 ]; then
			[ "$d" -ge 512 ] || return 1
		else
			[ "$d" -le 4 ] || return 1	# stray ARP/ND at most
		fi
	done
	n1 ethtool -X cxen1 default && n1 ethtool -L cxen1 combined 1
}

csum_test() {
	local s0 s1 u n p out

	# One snapshot per reading: a late frame (a FIN, a neighbour probe)
	# landing between separate reads would count in one and not the other.
	s0=$(stats_snap cx1 cxen1)
	out=$(iperf3_run cx1 192.0.2.2 cx0 2) || { echo "$out"; return 1; }
	s1=$(stats_snap cx1 cxen1)
	u=$(stat_delta "$s0" "$s1" rx_csum_unnecessary) &&
	n=$(stat_delta "$s0" "$s1" rx_csum_none) &&
	p=$(stat_delta "$s0" "$s1" rx_packets) || return 1
	echo "rx on: $p packets, $u unnecessary, $n none"
	# Everything but a few non-TCP/UDP frames (ARP, ND) is verified.
	[ "$u" -ge $((p - 10)) ] && [ "$p" -gt 100 ] && [ $((u + n)) = "$p" ] ||
		return 1

	n1 ethtool -K cxen1 rx off || return 1
	s0=$s1
	out=$(iperf3_run cx1 192.0.2.2 cx0 2) || { echo "$out"; return 1; }
	s1=$(stats_snap cx1 cxen1)
	n1 ethtool -K cxen1 rx on || return 1
	u=$(stat_delta "$s0" "$s1" rx_csum_unnecessary) &&
	n=$(stat_delta "$s0" "$s1" rx_csum_none) &&
	p=$(stat_delta "$s0" "$s1" rx_packets) || return 1
	echo "rx off: $p packets, $u unnecessary, $n none"
	[ "$u" = 0 ] && [ "$n" = "$p" ] && [ "$p" -gt 100 ]
}

vlan_setup() { vlan_pair 100; }

# vlan_ping STRIP: ping over VLAN 100 both ways with cxen1's
# rx-vlan-offload STRIP; the device counts stripped tags only when on.
vlan_ping() {
	local strip=$1 s0 s1
	n1 ethtool -K cxen1 rx-vlan-offload "$strip" || return 1
	s0=$(stat cx1 cxen1 hw_rx_vlan_stripped)
	n0 ping -c 5 -i 0.2 -W 5 198.51.100.2 || return 1
	n1 ping -c 5 -i 0.2 -W 5 198.51.100.1 || return 1
	s1=$(stat cx1 cxen1 hw_rx_vlan_stripped)
	echo "rx-vlan-offload $strip: $((s1 - s0)) tags stripped by cxen1's port"
	if [ "$strip" = on ]; then
		[ $((s1 - s0)) -ge 10 ]
	else
		[ "$s1" = "$s0" ]
	fi
}

oversize() {
	local o0 o1
	n0 ip link set cxen0 mtu 3000 || return 1
	o0=$(stat cx1 cxen1 hw_rx_oversize)
	! n0 ping -c 3 -i 0.2 -W 1 -M do -s 2500 192.0.2.2 >/dev/null
	o1=$(stat cx1 cxen1 hw_rx_oversize)
	n0 ip link set cxen0 mtu 1500 || return 1
	echo "hw_rx_oversize +$((o1 - o0))"
	[ $((o1 - o0)) = 3 ]
}

# An MTU decrease under a jumbo stream: the frames in flight over the new
# MTU are dropped by the port (hw_rx_oversize), none reaches an RQ whose
# buffers are already sized for the new MTU (an error CQE). Three rounds:
# the window is short. The MTU goes down once the stream moves 1 MB; the
# stream runs until the counters are read (one ethtool -S takes seconds
# on the debug kernel). Started without the n0/n1 wrappers, so that $! is
# timeout itself (nsexec execs it) and kill stops iperf3; both
# are stopped on every path.
rx_moved() { [ "$(stat cx1 cxen1 rx_bytes)" -gt "$1" ]; }
mtu_down() {
	local r s0 s1 b0 e d o hw=0 drv=0 over=0 spid cpid
	for r in 1 2 3; do
		n0 ip link set cxen0 mtu 9000 && n1 ip link set cxen1 mtu 9000 || return 1
		nsexec cx1 timeout 200 iperf3 -s -1 -B 192.0.2.2 >/dev/null 2>&1 &
		spid=$!
		b0=$(stat cx1 cxen1 rx_bytes)
		if wait_for 10 n1 sh -c "ss -Hltn 'sport = :5201' | grep -q ."; then
			nsexec cx0 timeout 180 iperf3 -c 192.0.2.2 -t 150 --connect-timeout 5000 >/dev/null 2>&1 &
			cpid=$!
			if wait_for 30 rx_moved $((b0 + 1000000)); then
				s0=$(stats_snap cx1 cxen1)
				n1 ip link set cxen1 mtu 1500 && nap 0.5 &&
					s1=$(stats_snap cx1 cxen1)
			fi
			kill "$cpid" 2>/dev/null
		fi
		kill "$spid" 2>/dev/null
		wait
		[ -n "${s1:-}" ] || { echo "round $r: no stream, or the MTU change failed"; return 1; }
		e=$(stat_delta "$s0" "$s1" hw_rx_error_cqes) &&
			d=$(stat_delta "$s0" "$s1" rx_err_cqe) &&
			o=$(stat_delta "$s0" "$s1" hw_rx_oversize) || return 1
		echo "round $r: hw_rx_oversize +$o, hw_rx_error_cqes +$e, rx_err_cqe +$d"
		hw=$((hw + e))
		drv=$((drv + d))
		over=$((over + o))
		s1=
	done
	n0 ip link set cxen0 mtu 1500 || return 1
	echo "3 rounds: $over oversize drops, $hw error CQEs written, $drv counted"
	[ "$hw" = 0 ] && [ "$drv" = 0 ] && [ "$over" -gt 0 ]
}

loopback_on() {
	local mac s0 s1 r1 t1 p0 p1
	n0 ethtool -K cxen0 loopback on || return 1
	n0 ethtool -k cxen0 | grep -q '^loopback: on' || return 1
	nap 0.5
	[ "$(n0 cat /sys/class/net/cxen0/carrier)" = 1 ] || { echo "cxen0 carrier off"; return 1; }
	[ "$(n1 cat /sys/class/net/cxen1/carrier)" = 0 ] || { echo "cxen1 carrier still on"; return 1; }
	mac=$(n1 cat /sys/class/net/cxen1/address)
	n0 ip neigh replace 192.0.2.2 lladdr "$mac" dev cxen0 nud permanent || return 1
	# One snapshot per reading (the device's counters come from one
	# QUERY_COUNTERS): a frame of the stack's own (IPv6 after the carrier
	# change) sent and looped back between two separate reads would count
	# in one and not the other.
	s0=$(stats_snap cx0 cxen0)
	p0=$(stat cx1 cxen1 rx_packets)
	# The echo requests come back to cxen0 (addressed to cxen1's MAC,
	# the stack drops them), so no reply.
	! n0 ping -c 5 -i 0.2 -W 1 192.0.2.2 >/dev/null
	s1=$(stats_snap cx0 cxen0)
	p1=$(stat cx1 cxen1 rx_packets)
	t1=$(stat_delta "$s0" "$s1" hw_tx_frames) || return 1
	r1=$(stat_delta "$s0" "$s1" hw_rx_frames) || return 1
	echo "cxen0 sent $t1, received $r1; cxen1 received $((p1 - p0))"
	[ "$t1" -ge 5 ] && [ "$r1" = "$t1" ] && [ "$p1" = "$p0" ]
}

loopback_off() {
	n0 ethtool -K cxen0 loopback off || return 1
	n0 ip neigh del 192.0.2.2 dev cxen0 || return 1
	cxen_pair_wait_carrier || return 1
	n0 ping -c 3 -i 0.2 -W 5 192.0.2.2
}

# sq_sum NAME: counter NAME (a column of the model's sqs file, by its
# header) summed over port 0's SQs.
sq_sum() {
	awk -v c="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == c) k = i; next }
		       k && $2 == 0 { s += $k } END { if (!k) exit 1; print s + 0 }' \
		/sys/kernel/debug/cxsim/sqs
}

# One TCP transfer (SHA-256 checked) cxen0 -> cxen1 into a 64-entry RX
# ring whose interrupt is held back 4 ms, flow control on: frames find
# the ring empty and wait for the driver, none is dropped. TSO is off on
# cxen0: a writer's run leaves LSO WQEs to the work. Prints "IN
# WORK PARKED DROPS", the deltas of the SQs' runs and parked frames and
# of cxen1's out-of-buffer drops, after the transfer's own line.
engine_xfer() {
	local i0 w0 k0 d0 out rc=0
	i0=$(sq_sum inline_runs) && w0=$(sq_sum work_runs) &&
		k0=$(sq_sum parked) || return 1
	d0=$(stat cx1 cxen1 hw_rx_out_of_buffer)
	out=$(xfer cx1 192.0.2.2 cx0 8000000 "engine-$1") || rc=1
	echo "$out" >&2
	echo "$(($(sq_sum inline_runs) - i0)) $(($(sq_sum work_runs) - w0))" \
	     "$(($(sq_sum parked) - k0))" \
	     "$(($(stat cx1 cxen1 hw_rx_out_of_buffer) - d0))"
	return $rc
}

# The SQ engine's two runners. With db_inline, an idle SQ runs in the
# doorbell writer's context, and a frame that must wait for an RX buffer
# there is parked and delivered by the SQ's work: the transfer is whole
# and nothing dropped (with irq_direct on: interrupts from the CQs'
# hrtimers). With both off (the defaults), every run is the work's.
engine_modes() {
	local p=/sys/module/cxsim/parameters coal r1 r2 rc=0
	local in1 wk1 pk1 dr1 in2 wk2 pk2 dr2
	[ "$(cat $p/db_inline) $(cat $p/irq_direct)" = "N N" ] || {
		echo "defaults: db_inline $(cat $p/db_inline), irq_direct $(cat $p/irq_direct)"
		return 1
	}
	coal=$(e1 -c cxen1 | awk '$1 ~ /^(rx|tx)-(usecs|frames):$/ { sub(":", "", $1); printf "%s %s ", $1, $2 }')
	e1 -G cxen1 rx 64 && e1 -C cxen1 rx-usecs 4095 rx-frames 4095 &&
		e0 -K cxen0 tso off || return 1
	echo Y > "$p/db_inline" && echo Y > "$p/irq_direct" || rc=1
	r1=$(engine_xfer inline) || rc=1
	echo N > "$p/db_inline" && echo N > "$p/irq_direct" || rc=1
	r2=$(engine_xfer work) || rc=1
	# shellcheck disable=SC2086 # the words are the -C arguments
	e1 -G cxen1 rx 1024 && e1 -C cxen1 $coal && e0 -K cxen0 tso on || rc=1
	read -r in1 wk1 pk1 dr1 <<< "$r1"
	read -r in2 wk2 pk2 dr2 <<< "$r2"
	echo "db_inline: runs $in1 inline, $wk1 in the work, $pk1 frames parked, $dr1 dropped;" \
	     "work only: runs $in2 inline, $wk2 in the work, $pk2 parked, $dr2 dropped"
	[ "$rc" = 0 ] && [ "$in1" -gt 0 ] && [ "$pk1" -gt 0 ] && [ "$dr1" = 0 ] &&
		[ "$in2" = 0 ] && [ "$wk2" -gt 0 ] && [ "$pk2" = 0 ] && [ "$dr2" = 0 ]
}

# The CQ numbers of the model, one line: a rebuild would change them.
cqns() { cqs | awk 'NR > 1 { printf "%s ", $1 }'; }

moder_static() {
	local before after
	before=$(cqns)
	n1 ethtool -C cxen1 rx-usecs 64 rx-frames 32 tx-usecs 8 tx-frames 8 || return 1
	after=$(cqns)
	n1 ethtool -c cxen1 | grep -q '^rx-usecs: *64' || return 1
	cqs
	[ "$before" = "$after" ] || { echo "CQs rebuilt: $before -> $after"; return 1; }
	# cxen1's RX CQ (and only cxen0's untouched): one with 64/32, one with 8/8
	cqs | awk 'NR > 1 && $7 == 64 && $8 == 32 { r++ } NR > 1 && $7 == 8 && $8 == 8 { t++ }
		   END { exit !(r == 1 && t == 1) }'
}

# MODIFY_CQ commands the model counted, all CQs.
cq_modified() { cqs | awk 'NR > 1 { m += $NF } END { print m }'; }

# adaptive-rx on applies net_dim's starting profile itself (a MODIFY_CQ
# from ethtool -C, before it returns): the count is read after it, so
# what moves it under the stream is net_dim's own choice (the driver
# sends MODIFY_CQ only for values that differ from the CQ's).
moder_adaptive() {
	local m0 m1 out
	n1 ethtool -C cxen1 adaptive-rx on || return 1
	n1 ethtool -c cxen1 | grep -q 'Adaptive RX: on' || return 1
	m0=$(cq_modified)
	out=$(iperf3_run cx1 192.0.2.2 cx0 3) || { echo "$out"; return 1; }
	m1=$(cq_modified)
	cqs
	echo "MODIFY_CQ under adaptive-rx, from its start: $((m1 - m0))"
	n1 ethtool -C cxen1 adaptive-rx off rx-usecs 16 rx-frames 44 || return 1
	[ "$m1" -gt "$m0" ] &&
		cqs | awk 'NR > 1 && $7 == 16 && $8 == 44 { n++ } END { exit !(n >= 1) }'
}

irqs_le_arms() {
	# columns: ... cqes overrun arms irqs modified
	cqs | awk 'NR > 1 { if ($(NF-1) > $(NF-2)) { print "CQ " $1 ": irqs " $(NF-1) " > arms " $(NF-2); bad = 1 } }
		   END { exit bad }'
}

std_stats() {
	local f0 f1 h0 h1 b0 b1 d
	f0=$(std_stat cx0 cxen0 eth-mac-FramesTransmittedOK)
	h0=$(std_stat cx0 cxen0 tx-rmon-etherStatsPkts1024to1518Octets)
	b0=$(std_stat cx1 cxen1 rx-rmon-etherStatsPkts1024to1518Octets)
	# 1000-byte ICMP payload: 1042-byte frame, 1046 with the FCS
	n0 ping -c 5 -i 0.2 -W 5 -s 1000 192.0.2.2 >/dev/null || return 1
	f1=$(std_stat cx0 cxen0 eth-mac-FramesTransmittedOK)
	h1=$(std_stat cx0 cxen0 tx-rmon-etherStatsPkts1024to1518Octets)
	b1=$(std_stat cx1 cxen1 rx-rmon-etherStatsPkts1024to1518Octets)
	echo "FramesTransmittedOK +$((f1 - f0)), tx 1024-1518 +$((h1 - h0)), peer rx 1024-1518 +$((b1 - b0))"
	# The same device counter through -S and the standard group, read by
	# two ethtool runs: a stray ND/ARP frame may fall between them.
	d=$(($(std_stat cx0 cxen0 eth-mac-FramesTransmittedOK) - $(stat cx0 cxen0 hw_tx_frames)))
	echo "eth-mac-FramesTransmittedOK - hw_tx_frames: $d"
	[ $((f1 - f0)) -ge 5 ] && [ $((h1 - h0)) = 5 ] && [ $((b1 - b0)) -ge 5 ] &&
		[ "$d" -le 0 ] && [ "$d" -ge -2 ]
}

# A stalled SQ (the model's stall_sqn knob): the watchdog fires, the
# driver logs the device's view of the SQ (QUERY_SQ), rebuilds it, and
# traffic flows again.
tx_stall() {
	local f=/sys/kernel/debug/cxsim/fault sqn t0 t1 i
	sqn=$(awk 'NR > 1 && $2 == 0 { print $1; exit }' /sys/kernel/debug/cxsim/sqs)
	t0=$(stat cx0 cxen0 tx_recover)
	echo "$sqn" > "$f/stall_sqn"
	# Enough to fill the ring (1024): the watchdog only looks at stopped
	# queues. Non-blocking, with a send buffer that holds it all: a
	# blocking sender would wait forever on completions that never come.
	udp_burst cx0 192.0.2.2 3000 1000 || true
	for ((i = 0; i < 60; i++)); do
		t1=$(stat cx0 cxen0 tx_recover)
		[ "$t1" -gt "$t0" ] && break
		nap 0.5
	done
	echo -1 > "$f/stall_sqn"
	echo "tx_recover +$((t1 - t0)), tx_timeout $(stat cx0 cxen0 tx_timeout)"
	dmesg | grep -E "cxen0: TX queue 0: (resetting|device SQ)" | tail -2
	[ "$t1" -gt "$t0" ] &&
		dmesg | grep -q "cxen0: TX queue 0: device SQ $sqn: ok, consumed" &&
		n0 ping -c 3 -i 0.2 -W 5 192.0.2.2 >/dev/null
}

# rx_queues: cxen1's RX queues as the stack counts them.
rx_queues() { n1 sh -c 'ls -d /sys/class/net/cxen1/queues/rx-* | wc -l'; }

# RPS on the receiver while ethtool -L changes its queue count under 8
# TCP flows: frames from every RQ that may deliver must find the stack's
# RX queue count covering them (get_rps_cpu() WARNs "received packet on
# queue N, but number of RX queues is M" otherwise): it grows before RX
# is steered to new RQs and shrinks after the old ones drained.
rps_channels() {
	local spid cpid n m0 m1 rc=0 seq="2 8 2 8 3 8 2 1" q
	n1 sh -c 'echo 1 > /sys/class/net/cxen1/queues/rx-0/rps_cpus' || return 1
	m0=$(dmesg | grep -c "received packet on queue" || true)
	nsexec cx1 timeout 120 iperf3 -s -1 -B 192.0.2.2 >/dev/null 2>&1 &
	spid=$!
	if wait_for 10 n1 sh -c "ss -Hltn 'sport = :5201' | grep -q ."; then
		nsexec cx0 timeout 100 iperf3 -c 192.0.2.2 -P 8 -t 60 --connect-timeout 5000 >/dev/null 2>&1 &
		cpid=$!
		nap 2
		for n in $seq; do
			e1 -L cxen1 combined "$n" || { echo "-L combined $n failed"; rc=1; break; }
			q=$(rx_queues)
			[ "$q" = "$n" ] || { echo "-L combined $n: the stack has $q RX queues"; rc=1; }
			nap 1
		done
		kill "$cpid" 2>/dev/null
	else
		echo "iperf3 server did not listen"
		rc=1
	fi
	kill "$spid" 2>/dev/null
	wait
	e1 -L cxen1 combined 1 || rc=1
	n1 sh -c 'echo 0 > /sys/class/net/cxen1/queues/rx-0/rps_cpus' || rc=1
	m1=$(dmesg | grep -c "received packet on queue" || true)
	echo "-L combined $seq under 8 flows with RPS on: $((m1 - m0)) 'received packet on queue' warnings"
	[ "$rc" = 0 ] && [ "$m1" = "$m0" ]
}

# 4 points before VLAN, 3 VLAN points (run, or skipped without 802.1Q:
# both branches below have 3), 16 after.
tap_plan $((4 + 3 + 16))
echo "# kernel $(uname -r) ($CXEN_KERNEL)"
tap_check "link: 100000 Mb/s, carrier on" link_test
tap_check "RSS: 256 UDP flows reach all 4 RX queues" rss_spread
tap_check "RSS: ethtool -X weight 0 0 1 0 steers everything to queue 2" rss_table
tap_check "RX checksum: verified by the device, NONE with -K rx off" csum_test
# Both kernels have CONFIG_VLAN_8021Q (tests/vm/debug.config): a kernel
# without it skips the VLAN points, and says so.
if vlan_supported; then
	tap_check "VLAN: 802.1Q sub-interfaces set up" vlan_setup
	tap_check "VLAN: insert on TX, strip on RX, ping both ways" vlan_ping on
	tap_check "VLAN: rx-vlan-offload off, ping both ways, nothing stripped" vlan_ping off
else
	for p in "802.1Q sub-interfaces set up" "insert on TX, strip on RX" "rx-vlan-offload off"; do
		tap_skip "VLAN: $p" "kernel $(uname -r) has no 802.1Q (CONFIG_VLAN_8021Q)"
	done
fi
tap_check "oversize: frames over the receiver's MTU dropped and counted" oversize
tap_check "ip -s link: error and bad-length CQEs in rx_errors (length: rx_length_errors), not rx_dropped" stats64_errors
tap_check "ip -s link: the device's out-of-buffer drops in rx_missed_errors, not rx_dropped" stats64_missed
tap_check "RX checksum: IP fragments of UDP datagrams left to the stack, every datagram whole" csum_frags
tap_check "RX checksum: a bad IPv4 header checksum left to the stack, which drops the frame" csum_bad_iphdr
tap_check "MTU 9000 -> 1500 under a stream: port oversize drops, no error CQE" mtu_down
tap_check "ethtool -L under 8 flows with RPS on: the stack's RX queues cover every RQ" rps_channels
tap_check "ethtool -C: moderation changed on the live CQs" moder_static
tap_check "adaptive-rx: net_dim modifies the CQ under load" moder_adaptive
tap_check "SQ engine: doorbell writer's runs, parked frames delivered by the work; work-only mode" engine_modes
tap_check "at most one interrupt per arm on every CQ" irqs_le_arms
tap_check "eth-mac and rmon standard stats follow traffic" std_stats
# Before loopback: its frames come back to the sender.
tap_check "cxen0 TX counters = cxen1 RX counters and back" counters_match
tap_check "loopback on: frames come back, peer carrier down" loopback_on
tap_check "loopback off: cable back, ping" loopback_off
tap_check "stalled SQ: watchdog, QUERY_SQ dump, rebuild, traffic again" tx_stall
tap_done
