#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Edge cases of the data path (TAP output).
#
#   tests/integration/edges.sh [tests/vm/run options]   on the host: boots
#       the VM (stock kernel unless --kernel debug) with --pair, runs inside;
#       also meant for --append swiotlb=force (every DMA map bounces: a
#       missing dma_sync shows as corrupted payload)
#
# Inside the VM, with the pair set up (cxen0 in netns cx0, cxen1 in cx1):
#   - RX layouts: for the default layout and every comparison layout the
#     driver offers (its private flags, set on both ports), at MTU 1500 and
#     9000: full-MTU pings, each frame charging exactly the truesize that
#     en_frag.c's formulas give for that layout (so the flag really switched
#     the layout); then a random payload each way at once over TCP, SHA-256
#     and length compared on the receivers, with the buffer counters of the
#     layout (legacy2012 maps fragments, the 2012/2013 whole-page layouts
#     map each page once and recycle nothing, the default recycles through
#     page_pool) and no frame dropped;
#   - MTU edges, default layout: the build_skb boundary derived from
#     en_frag.c (the largest MTU whose frame, head- and tailroom fit one
#     4 KiB page: one build_skb fragment) and that MTU + 1 (one page frag
#     behind a copied header), the largest MTU whose untagged frame fills
#     exactly one page-sized fragment and that MTU + 1 (one byte in a second
#     fragment), the driver's max_mtu, then its min_mtu (IPv4 only: IPv6
#     needs 1280): DF pings whose payload fills the MTU, frames of exactly
#     MTU + 14 bytes charging the predicted truesize (build_skb or not,
#     fragments used), a payload each way intact (not at the minimum, where
#     only ping-sized frames go; there the copybreak and the build_skb path
#     are both taken);
#   - VLAN with offloads: 802.1Q sub-interfaces, a payload over them with
#     the device inserting (TX) and stripping (RX) the tag, then with both
#     in software: intact; TSO used (tx_tso_packets) with the tag inserted
#     by the device (its wire bytes exceed the driver's by 4 per frame) or
#     by the stack (no difference); RX checksum offload in effect
#     (rx_csum_unnecessary covers the data frames); GRO merges (segments
#     per GRO packet, bytes per packet on the VLAN device above the MTU);
#   - netpoll: cxen0 back in the init netns (netconsole binds there only),
#     a netconsole target on it (configfs): a unique /dev/kmsg line arrives
#     at cxen1's netns and cxen0's TX counters move; under a UDP flood that
#     fills a 64-entry TX ring (the device slowed by the model's delay_us,
#     completion interrupts held back), netpoll finds the queue stopped and
#     polls cxen0's NAPI with budget 0 (napi:napi_poll tracepoint), which
#     reaps TX completions but leaves the queue's wake (it takes the xmit
#     lock) to a NAPI poll of the driver's own: a kprobe on
#     netif_tx_wake_queue never sees netpoll on the stack, and every stop
#     of the queue is followed by a wake; a printk from hard interrupt
#     context (sysrq-l) first, so that lockdep checks the locks taken
#     there on the debug kernel; all 1000 burst lines arrive; then
#     everything is put back (target, module, knobs, cxen0 in cx0) and the
#     ports' counters still balance.
#
# CXEN_EDGES_GROUPS="layouts mtu vlan netpoll" runs only the groups named
# (default: all; the plan follows). CXEN_EDGES_BYTES sizes each transfer
# (default 4 MiB for the RX layouts and the VLAN runs, half that at the MTU
# edges; a quarter on the debug kernel).
set -euo pipefail

if [ -z "${CXEN_VM:-}" ]; then
	exec "$(dirname "$0")/../vm/run" --pair "$@" -- tests/integration/edges.sh
fi

. "$CXEN_ROOT/tests/integration/lib.sh"

t_start=$SECONDS
scale=1
[ "$CXEN_KERNEL" != debug ] || scale=4
big_bytes=${CXEN_EDGES_BYTES:-$((4 * 1024 * 1024 / scale))}
edge_bytes=$((big_bytes / 2))
xfer_py=$CXEN_ROOT/tests/integration/edges-xfer.py
ping_count=10


# --- what the run covers (before the plan) --------------------------------

# The RX layouts are private flags (en_ethtool.c), and so is auto (on by
# default: the driver picks by MTU, striding at 9000); the default layout
# is every flag off, which this script runs unless a point sets another.
mapfile -t priv_flags < <(n0 ethtool --show-priv-flags cxen0 | awk -F: 'NR > 1 { gsub(/[ \t]/, "", $1); print $1 }')
mapfile -t layout_flags < <(printf '%s\n' "${priv_flags[@]}" | grep -vx auto)
layouts=(default "${layout_flags[@]}")
# CXEN_EDGES_LAYOUTS="default striding" runs the layouts group on those
# only (make check's debug run: the comparison layouts run under swiotlb
# and the IOMMU on the stock kernel, and at random in the soak).
if [ -n "${CXEN_EDGES_LAYOUTS:-}" ]; then
	read -ra layouts <<< "$CXEN_EDGES_LAYOUTS"
fi
layout_mtus=(1500 9000)

# The layout arithmetic of en_frag.c for this kernel (x86-64):
#   headroom  NET_SKB_PAD + NET_IP_ALIGN = max(32, L1_CACHE_BYTES) + 0 = 64
#   tailroom  SKB_DATA_ALIGN(sizeof(struct skb_shared_info)) = 320
#   SMP_CACHE_BYTES 64, pages of getconf PAGESIZE
#   frame_max = MTU + ETH_HLEN + 2 * VLAN_HLEN = MTU + 22
#   build_skb while ALIGN(headroom + frame_max, 64) + tailroom <= page
# so the largest build_skb MTU is ALIGN_DOWN(page - tailroom, 64) - 64 - 22
# (3690 on 4 KiB pages: need = 3776 + 320 = 4096, one frame per page).
page=$(getconf PAGESIZE)
cl=64
headroom=64
tailroom=320
build_max=$(((page - tailroom) / cl * cl - headroom - 22))
# The largest MTU whose untagged full-size frame (MTU + 14) fills no more
# than the first, page-sized fragment of a multi-fragment layout.
onepage_max=$((page - 14))
read -r min_mtu max_mtu < <(ip -d -n cx0 link show dev cxen0 |
	awk '{ for (i = 1; i < NF; i++) { if ($i == "minmtu") a = $(i + 1); if ($i == "maxmtu") b = $(i + 1) } }
	     END { print a, b }')
edge_mtus=("$build_max" "$((build_max + 1))" "$onepage_max" "$((onepage_max + 1))" "$max_mtu")

# What an skb costs besides its buffers: SKB_DATA_ALIGN(sizeof(struct
# sk_buff)) (the slab's object size); a multi-fragment frame's header skb
# is napi_alloc_skb(256), a 1 KiB page fragment on 4 KiB-page kernels
# (6.12's NAPI_HAS_SMALL_PAGE_FRAG).
skb_obj=$(cat /sys/kernel/slab/skbuff_head_cache/object_size 2>/dev/null ||
	  awk '$1 == "skbuff_head_cache" { print $4 }' /proc/slabinfo)
skb_ovh=$(((skb_obj + cl - 1) / cl * cl))
hdr_skb=$((1024 + skb_ovh))

# CXEN_EDGES_GROUPS="layouts mtu vlan netpoll" (the default: all) runs
# only the groups named, to iterate on one; the plan follows.
groups=" ${CXEN_EDGES_GROUPS:-layouts mtu vlan netpoll} "
want() { [[ $groups == *" $1 "* ]]; }
n_layouts=$((1 + ${#layout_mtus[@]} * (1 + ${#layouts[@]} * 2) + 1))
n_mtu=$((${#edge_mtus[@]} * 2 + 1 + 1))
n_vlan=10
n_netpoll=6
plan=0
! want layouts || plan=$((plan + n_layouts))
! want mtu || plan=$((plan + n_mtu))
! want vlan || plan=$((plan + n_vlan))
! want netpoll || plan=$((plan + n_netpoll))
tap_plan "$plan"
echo "# kernel $(uname -r)$(grep -o ' swiotlb=[^ ]*' /proc/cmdline || true); RX layouts: ${layouts[*]}; page $page, build_skb up to MTU $build_max," \
     "one page-sized fragment up to MTU $onepage_max, MTU range $min_mtu..$max_mtu;" \
     "sk_buff $skb_ovh B, header skb $hdr_skb B; transfers $big_bytes / $edge_bytes B"

# --- helpers ---------------------------------------------------------------

# The ports send no router solicitation of their own (an MTU change
# re-runs IPv6 autoconfiguration): a counted window must see only the
# test's frames. Set once; the ports' neighbour entries are pinned by
# quiet_neigh before the first window, and again when a window still saw
# a stray frame.
n0 sysctl -qw net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.cxen0.router_solicitations=0
n1 sysctl -qw net.ipv6.conf.default.router_solicitations=0 net.ipv6.conf.cxen1.router_solicitations=0

# quiet_neigh: each port's entries for its peer, IPv4 and IPv6,
# permanent: no ARP or ND probe inside a counted window (IPv6 may be off
# below MTU 1280: its entries are then skipped).
quiet_neigh() {
	local m0 m1
	m0=$(n0 cat /sys/class/net/cxen0/address) && m1=$(n1 cat /sys/class/net/cxen1/address) || return 1
	n0 ip neigh replace 192.0.2.2 lladdr "$m1" dev cxen0 nud permanent &&
		n1 ip neigh replace 192.0.2.1 lladdr "$m0" dev cxen1 nud permanent || return 1
	n0 ip -6 neigh replace fd00:c0::2 lladdr "$m1" dev cxen0 nud permanent 2>/dev/null
	n1 ip -6 neigh replace fd00:c0::1 lladdr "$m0" dev cxen1 nud permanent 2>/dev/null
	return 0
}

pow2_ceil() {
	local v=1
	while ((v < $1)); do v=$((v * 2)); done
	echo "$v"
}

# frame_truesize LAYOUT MTU LEN: the skb->truesize a frame of LEN bytes
# (over rx-copybreak) is charged on RX under LAYOUT at MTU, from en_frag.c:
# the strides of the fragments it fills (in order, each up to its size),
# plus the sk_buff for a build_skb fragment (napi_build_skb(va, stride))
# or the header skb for page frags. Prints "TRUESIZE how".
frame_truesize() {
	local lay=$1 mtu=$2 len=$3 fmax need n stride rem i cov sz sum used
	local -a size=() strd=() nominal=()
	fmax=$((mtu + 14 + 2 * 4))
	case "$lay" in
	default)
		need=$(((headroom + fmax + cl - 1) / cl * cl + tailroom))
		if ((need <= page)); then
			n=$((page / need))
			stride=$((page / n / cl * cl))
			echo "$((stride + skb_ovh)) build_skb, stride $stride ($n per page) + sk_buff $skb_ovh"
			return 0
		fi
		n=$(((fmax + page - 1) / page))
		for ((i = 0; i < n - 1; i++)); do
			size+=("$page")
			strd+=("$page")
		done
		rem=$((fmax - (n - 1) * page))
		stride=$(pow2_ceil "$rem")
		((stride >= cl)) || stride=$cl
		size+=("$rem")
		strd+=("$stride")
		;;
	striding)
		# en_rx_stride.c: the frame packed in 64-byte strides, its
		# headers copied into a header skb, the rest page frags.
		stride=$((cl > 64 ? cl : 64))
		n=$(((len + stride - 1) / stride))
		echo "$((n * stride + hdr_skb)) $n strides of $stride + header skb $hdr_skb"
		return 0
		;;
	legacy2012 | wholepage2012) nominal=(510 1024 4096 16384) ;;
	onefrag2013) nominal=(1534 4096 4096 16384) ;;
	*)
		echo "no truesize model for RX layout '$lay': teach edges.sh its en_frag.c formula"
		return 1
		;;
	esac
	if [ "${#nominal[@]}" -gt 0 ]; then
		cov=0
		for ((i = 0; cov < fmax; i++)); do
			sz=$((fmax - cov))
			((sz <= nominal[i])) || sz=${nominal[i]}
			size+=("$sz")
			strd+=("$(((nominal[i] + cl - 1) / cl * cl))")
			cov=$((cov + sz))
		done
	fi
	cov=0
	sum=0
	used=()
	for ((i = 0; i < ${#size[@]} && cov < len; i++)); do
		cov=$((cov + size[i]))
		sum=$((sum + strd[i]))
		used+=("${strd[i]}")
	done
	echo "$((sum + hdr_skb)) ${#used[@]} of ${#size[@]} fragments, strides ${used[*]} + header skb $hdr_skb"
}

# set_layout LAYOUT: the private flags on both ports (all off: default).
set_layout() {
	local lay=$1 args=() f
	for f in "${priv_flags[@]}"; do
		args+=("$f" "$([ "$f" = "$lay" ] && echo on || echo off)")
	done
	[ "${#args[@]}" = 0 ] && return 0
	n0 ethtool --set-priv-flags cxen0 "${args[@]}" && n1 ethtool --set-priv-flags cxen1 "${args[@]}"
}

# Counters without a fork per value (each exec costs most of a second in
# a busy TCG guest): snap NS DEV is ethtool -S as it prints; deltas BEFORE
# AFTER fills the associative array D with AFTER - BEFORE for every counter.
snap() {
	if [ "$1" = init ]; then
		ethtool -S "$2"
	else
		nsexec "$1" ethtool -S "$2"
	fi
}

# snap_both: both ports' ethtool -S at once (two processes side by side:
# on the debug kernel each costs most of a second) into $S0 and $S1.
snap_both() {
	local t=/tmp/edges-both.$BASHPID p rc=0
	snap cx0 cxen0 > "$t" &
	p=$!
	S1=$(snap cx1 cxen1) || rc=1
	wait "$p" || rc=1
	S0=$(< "$t")
	rm -f "$t"
	return $rc
}

declare -A D
deltas() {
	local n v
	local -A b=()
	D=()
	while read -r n v; do
		[[ $v =~ ^[0-9]+$ ]] && b[${n%:}]=$v
	done <<< "$1"
	while read -r n v; do
		[[ $v =~ ^[0-9]+$ ]] && D[${n%:}]=$((v - ${b[${n%:}]:-0}))
	done <<< "$2"
	[ -n "${D[rx_packets]:-}" ] || { echo "no rx_packets in ethtool -S"; return 1; }
}

# dropped: frames the device or the driver dropped, from D (0 expected:
# flow control is on, the MTUs match).
dropped() {
	local n d=0
	for n in hw_tx_oversize hw_tx_link_down hw_rx_oversize hw_rx_no_rq \
		 hw_rx_out_of_buffer hw_rx_cq_overrun hw_rx_queue_error \
		 hw_rx_error_cqes rx_err_cqe rx_oversize rx_bad_cqe rx_alloc_fail \
		 tx_dropped tx_err_cqe; do
		d=$((d + ${D[$n]:?no $n in ethtool -S}))
	done
	echo "$d"
}

# ping_frames LAYOUT MTU: ping_count DF pings cx0 -> cx1 whose IPv4 packet
# fills the MTU; each port must receive exactly ping_count frames of
# MTU + 14 bytes, each charged frame_truesize. Stray frames (IPv6
# housekeeping) in the window: measured again, three tries. The last
# snapshots stay in /tmp/edges-snap.0 and .1 for the next transfer.
ping_frames() {
	local lay=$1 mtu=$2 len=$(($2 + 14)) try exp how out a0 a1 b0 b1 dp0 dp1 db0 db1 dt0 dt1 first
	rm -f /tmp/edges-snap.0 /tmp/edges-snap.1
	out=$(frame_truesize "$lay" "$mtu" "$len") || { echo "$out"; return 1; }
	read -r exp how <<< "$out"
	snap_both
	b0=$S0 b1=$S1
	for try in 1 2 3; do
		a0=$b0
		a1=$b1
		if ! n0 ping -q -c "$ping_count" -i 0.05 -W 5 -M "do" -s $((mtu - 28)) 192.0.2.2 > /tmp/edges-ping.out 2>&1; then
			cat /tmp/edges-ping.out
			echo "DF ping of $len-byte frames at MTU $mtu failed"
			return 1
		fi
		snap_both
		b0=$S0 b1=$S1
		deltas "$a0" "$b0" || return 1
		dp0=${D[rx_packets]} db0=${D[rx_bytes]} dt0=${D[rx_truesize_bytes]}
		deltas "$a1" "$b1" || return 1
		dp1=${D[rx_packets]} db1=${D[rx_bytes]} dt1=${D[rx_truesize_bytes]}
		if [ "$dp0" = "$ping_count" ] && [ "$dp1" = "$ping_count" ] &&
		   [ "$db0" = $((ping_count * len)) ] && [ "$db1" = $((ping_count * len)) ]; then
			printf '%s\n' "$b0" > /tmp/edges-snap.0
			printf '%s\n' "$b1" > /tmp/edges-snap.1
			if [ "$dt0" = $((ping_count * exp)) ] && [ "$dt1" = $((ping_count * exp)) ]; then
				[ "$try" = 1 ] || how="$how (window $try; window 1: $first)"
				echo "$ping_count x $len-byte frames each way, truesize $exp each = $how"
				return 0
			fi
			echo "$len-byte frames at MTU $mtu ($lay): truesize per frame cxen1 $((dt1 / dp1)), cxen0 $((dt0 / dp0)); en_frag.c's layout gives $exp = $how"
			return 1
		fi
		[ "$try" != 1 ] || first="cxen1 $dp1 frames / $db1 B, cxen0 $dp0 / $db0 B"
		echo "try $try: cxen1 got $dp1 frames / $db1 B, cxen0 $dp0 / $db0 B, want $ping_count / $((ping_count * len)) B each: stray frames, again with pinned neighbours"
		quiet_neigh || return 1
		snap_both
		b0=$S0 b1=$S1
	done
	return 1
}

# snaps_before: the snapshots ping_frames left into $S0 and $S1, else
# new ones.
snaps_before() {
	if [ -s /tmp/edges-snap.0 ] && [ -s /tmp/edges-snap.1 ]; then
		S0=$(< /tmp/edges-snap.0)
		S1=$(< /tmp/edges-snap.1)
	else
		snap_both
	fi
	rm -f /tmp/edges-snap.0 /tmp/edges-snap.1
}

# xfer_each_way BYTES ADDR0 ADDR1: a payload cx0 -> cx1 and cx1 -> cx0 at
# the same time (edges-xfer.py), each checked by SHA-256 and length.
xfer_each_way() {
	python3 "$xfer_py" --bytes "$1" "cx0:cx1:$3" "cx1:cx0:$2"
}

# short SHA-256s of an edges-xfer.py output, for the point's line.
xfer_sums() {
	sed -n 's/^\(cx[01]\) -> \(cx[01]\) .*SHA-256 sent \([0-9a-f]\{12\}\).*received \([0-9a-f]\{12\}\).*: intact$/\1->\2 \3..=\4../p' <<< "$1" | paste -sd' '
}

# Every group starts on the default layout, auto off: the MTU edges are
# the default layout's, at every MTU.
set_layout default || { echo "Bail out! the private flags could not be set"; exit 1; }

# --- 1. payload integrity for every RX layout at MTU 1500 and 9000 --------

layout_names() {
	echo "private flags: ${priv_flags[*]:-none}"
	[ "${priv_flags[*]}" = "legacy2012 wholepage2012 onefrag2013 striding auto" ]
}
want layouts && point "RX layouts offered (Documentation/cxen.rst)" layout_names

# Permanent neighbours: no ARP, and no IPv6 NUD probe of an entry an
# earlier point's ping left stale, in the counted windows.
quiet_neigh

# layout_in_effect LAYOUT MTU: flags set on both ports, frames charged as
# the layout says (legacy2012 and wholepage2012 differ only in how they
# map: their payload point tells them apart).
layout_in_effect() {
	set_layout "$1" || return 1
	ping_frames "$1" "$2"
}

# layout_payload LAYOUT MTU: the payload each way, the buffer counters of
# the layout on both receivers, no drop. The page_pool's own page
# allocations are counted by its tracepoint (tests/vm/pp-trace): only the
# pools of the two ports allocate in the window.
layout_payload() {
	local lay=$1 mtu=$2 a0 a1 b0 b1 a b out rc=0 ns dp dcb dmap dalloc dstart dd sig=
	local pp hold rel start=0
	snaps_before
	a0=$S0 a1=$S1
	"$CXEN_ROOT/tests/vm/pp-trace" start || return 1
	out=$(xfer_each_way "$big_bytes" 192.0.2.1 192.0.2.2) || rc=1
	pp=$("$CXEN_ROOT/tests/vm/pp-trace" read) || return 1
	read -r hold rel <<< "$pp"
	snap_both
	b0=$S0 b1=$S1
	echo "$out"
	for ns in 0 1; do
		a=a$ns
		b=b$ns
		deltas "${!a}" "${!b}" || return 1
		dp=${D[rx_packets]} dcb=${D[rx_copybreak]} dmap=${D[rx_dma_map]}
		dalloc=${D[rx_page_alloc]} dstart=${D[rx_page_start]}
		start=$((start + dstart))
		dd=$(dropped) || { echo "$dd"; return 1; }
		echo "cxen$ns: rx_packets +$dp (copybreak +$dcb), rx_dma_map +$dmap, rx_page_alloc +$dalloc, rx_page_start +$dstart, dropped +$dd"
		[ "$dd" = 0 ] || { echo "cxen$ns dropped $dd frames"; rc=1; }
		case "$lay" in
		legacy2012)
			# Every fragment mapped on refill: more maps than
			# 16 KiB pages, at least one per frame that took buffers.
			[ "$dmap" -ge $((dp - dcb)) ] && [ "$dmap" -gt "$dalloc" ] ||
				{ echo "cxen$ns: legacy2012 should map every fragment"; rc=1; }
			;;
		wholepage2012 | onefrag2013)
			# Each 16 KiB page mapped once, never reused.
			[ "$dmap" -gt 0 ] && [ "$dmap" = "$dalloc" ] && [ "$dstart" = "$dalloc" ] ||
				{ echo "cxen$ns: $lay should map each page once and reuse none"; rc=1; }
			;;
		default | striding)
			# page_pool: the pool maps its pages itself.
			[ "$dmap" = 0 ] && [ "$dalloc" = 0 ] && [ "$dstart" -gt 0 ] ||
				{ echo "cxen$ns: the driver should take every page from its page_pool"; rc=1; }
			;;
		esac
		sig+=" cxen$ns $dmap/$dalloc/$dstart"
	done
	case "$lay" in
	default | striding)
		# Pages come back to the pools and are used again: the rings
		# started more pages than the pools took from the allocator.
		[ "$hold" -lt "$start" ] ||
			{ echo "page_pool: $hold pages from the page allocator for $start started: none reused"; rc=1; }
		;;
	*)
		# No page_pool.
		[ "$hold" = 0 ] || { echo "$lay: $hold page_pool allocations"; rc=1; }
		;;
	esac
	[ "$rc" = 0 ] || return 1
	echo "$big_bytes B each way intact ($(xfer_sums "$out")); RX maps/pages/started:$sig; page_pool pages from/to the allocator $hold/$rel; no drop"
}

back_default() { set_layout default && pair_mtu 1500; }
if want layouts; then
	t0=$SECONDS
	for mtu in "${layout_mtus[@]}"; do
		tap_check "MTU $mtu on both ports" pair_mtu "$mtu"
		for lay in "${layouts[@]}"; do
			point "RX layout $lay, MTU $mtu: set on both ports, full frames charge its truesize" \
				layout_in_effect "$lay" "$mtu"
			point "RX layout $lay, MTU $mtu: payload intact each way" layout_payload "$lay" "$mtu"
		done
	done
	point "back to the default layout and MTU 1500" back_default
	echo "# RX layouts: $((SECONDS - t0)) s"
fi

# --- 2. MTU edges -----------------------------------------------------------

# mtu_edge_ping MTU: MTU on both ports and in the device, DF pings
# filling it (counted: IPv4; and IPv6 from 1280 on).
mtu_edge_ping() {
	local mtu=$1 dm out
	pair_mtu "$mtu" || return 1
	dm=$(awk '$1 == "mtu" { print $2 }' /sys/kernel/debug/cxsim/port0 /sys/kernel/debug/cxsim/port1 | paste -sd' ')
	[ "$dm" = "$mtu $mtu" ] || { echo "device ports' MTU: $dm, want $mtu"; return 1; }
	out=$(ping_frames default "$mtu") || { echo "$out"; return 1; }
	if ((mtu >= 1280)); then
		n1 ping -6 -q -c 3 -i 0.2 -W 5 -M "do" -s $((mtu - 48)) fd00:c0::1 > /tmp/edges-ping.out 2>&1 ||
			{ cat /tmp/edges-ping.out; echo "IPv6 DF ping of $((mtu + 14))-byte frames failed"; return 1; }
	fi
	echo "$(tail -1 <<< "$out"); IPv6 too"
}

# mtu_edge_payload MTU: the payload each way at this MTU, nothing dropped.
mtu_edge_payload() {
	local a0 a1 b0 b1 out rc=0 d0 d1
	snaps_before
	a0=$S0 a1=$S1
	out=$(xfer_each_way "$edge_bytes" 192.0.2.1 192.0.2.2) || rc=1
	snap_both
	b0=$S0 b1=$S1
	echo "$out"
	deltas "$a0" "$b0" && d0=$(dropped) && deltas "$a1" "$b1" && d1=$(dropped) || return 1
	[ "$d0" = 0 ] && [ "$d1" = 0 ] || { echo "dropped: cxen0 $d0, cxen1 $d1"; rc=1; }
	[ "$rc" = 0 ] || return 1
	echo "$edge_bytes B each way intact ($(xfer_sums "$out")), no drop"
}

edge_what=("largest build_skb MTU" "one page frag behind a header skb"
	   "full frame fills one page-sized fragment" "full frame spills 1 byte into a second fragment"
	   "max_mtu")

# min_mtu: IPv4 pings of exactly min_mtu bytes; with the default
# rx-copybreak (256) every frame is copied, with 0 it takes the build_skb
# path. The kernel drops the ports' IPv6 below 1280 (put back below).
mtu_min() {
	local mtu=$min_mtu len=$((min_mtu + 14)) a0 a1 cb0 cb1 out
	pair_mtu "$mtu" || return 1
	snap_both
	a0=$S0 a1=$S1
	n0 ping -q -c "$ping_count" -i 0.05 -W 5 -M "do" -s $((mtu - 28)) 192.0.2.2 ||
		{ echo "DF ping of $len-byte frames failed"; return 1; }
	snap_both
	deltas "$a0" "$S0" || return 1
	cb0=${D[rx_copybreak]}
	deltas "$a1" "$S1" || return 1
	cb1=${D[rx_copybreak]}
	echo "rx-copybreak 256: rx_copybreak +$cb1 (cxen1), +$cb0 (cxen0)"
	[ "$cb0" -ge "$ping_count" ] && [ "$cb1" -ge "$ping_count" ] || return 1
	n0 ethtool --set-tunable cxen0 rx-copybreak 0 && n1 ethtool --set-tunable cxen1 rx-copybreak 0 || return 1
	out=$(ping_frames default "$mtu") || { echo "$out"; return 1; }
	rm -f /tmp/edges-snap.0 /tmp/edges-snap.1
	n0 ethtool --set-tunable cxen0 rx-copybreak 256 && n1 ethtool --set-tunable cxen1 rx-copybreak 256 || return 1
	echo "copied with rx-copybreak 256; rx-copybreak 0: $(tail -1 <<< "$out")"
}

back_1500() {
	pair_mtu 1500 || return 1
	n0 ip addr replace fd00:c0::1/64 dev cxen0 nodad && n1 ip addr replace fd00:c0::2/64 dev cxen1 nodad || return 1
	n0 ping -q -c 2 -i 0.2 -W 5 fd00:c0::2 && n1 ping -q -c 2 -i 0.2 -W 5 192.0.2.1 || return 1
	echo "IPv6 addresses back, ping6 and ping"
}
if want mtu; then
	t0=$SECONDS
	for i in "${!edge_mtus[@]}"; do
		mtu=${edge_mtus[i]}
		point "MTU $mtu (${edge_what[i]}): DF pings fill it" mtu_edge_ping "$mtu"
		point "MTU $mtu: payload intact each way" mtu_edge_payload "$mtu"
	done
	point "MTU $min_mtu (min_mtu): DF IPv4 pings fill it" mtu_min
	point "back to MTU 1500" back_1500
	echo "# MTU edges: $((SECONDS - t0)) s"
fi

# --- 3. VLAN with offloads ----------------------------------------------------

vid=10
vlan_setup() {
	local feats
	vlan_pair "$vid" || return 1
	wait_for 10 n0 ping -c 1 -W 1 198.51.100.2 > /dev/null || return 1
	# The VLAN device inherits cxen0's vlan_features: TSO and checksums.
	feats=$(n0 ethtool -k cxen0.$vid | grep -E '^(tcp-segmentation-offload|tx-checksumming|rx-checksumming):' | paste -sd' ')
	echo "cxen0.$vid: $feats"
	grep -q 'tcp-segmentation-offload: on' <<< "$feats" && grep -q 'tx-checksumming: on' <<< "$feats"
}

# vlan_run MODE: MODE hw (cxen0 tx-vlan-offload on, cxen1 rx-vlan-offload
# on: the device inserts and strips) or sw (both off: the stack tags and
# parses), then big_bytes cx0 -> cx1 over the VLAN. Keeps the counters in
# /tmp/edges-vlan.MODE.*.
vlan_run() {
	local mode=$1 onoff f=/tmp/edges-vlan.$1 out rc=0 i
	onoff=$([ "$mode" = hw ] && echo on || echo off)
	n0 ethtool -K cxen0 tx-vlan-offload "$onoff" && n1 ethtool -K cxen1 rx-vlan-offload "$onoff" || return 1
	snap_both
	printf '%s\n' "$S0" > "$f.s0a"
	printf '%s\n' "$S1" > "$f.s1a"
	n1 cat /sys/class/net/cxen1.$vid/statistics/rx_packets /sys/class/net/cxen1.$vid/statistics/rx_bytes > "$f.va"
	out=$(python3 "$xfer_py" --bytes "$big_bytes" "cx0:cx1:198.51.100.2") || rc=1
	# Until the driver has completed every frame the port sent.
	for ((i = 0; i < 25; i++)); do
		snap cx0 cxen0 > "$f.s0b"
		deltas "$(< "$f.s0a")" "$(< "$f.s0b")" || return 1
		[ "${D[hw_tx_frames]}" != "${D[tx_packets]}" ] || break
		nap 0.2
	done
	snap cx1 cxen1 > "$f.s1b"
	n1 cat /sys/class/net/cxen1.$vid/statistics/rx_packets /sys/class/net/cxen1.$vid/statistics/rx_bytes > "$f.vb"
	echo "$out"
	[ "$rc" = 0 ] || return 1
	echo "tx-vlan-offload $onoff on cxen0, rx-vlan-offload $onoff on cxen1: $big_bytes B intact ($(xfer_sums "$out"))"
}

# vd MODE PORT: D = the counters' moves on PORT (0 or 1) during vlan_run MODE.
vd() {
	deltas "$(< "/tmp/edges-vlan.$1.s$2a")" "$(< "/tmp/edges-vlan.$1.s$2b")"
}

# Data frames the receiver must have got: the payload in segments of at
# most MTU - 40 - 12 (IPv4, TCP timestamps) bytes.
vlan_data_frames() { echo $(((big_bytes + 1447) / 1448)); }

# vlan_tso MODE: TSO packets on cxen0; the tag inserted by the device (hw:
# its wire bytes exceed the driver's by VLAN_HLEN per tagged frame, and
# cxen1's port strips them) or by the stack (sw: no difference, nothing
# stripped).
vlan_tso() {
	local mode=$1 tso tsob txp txb hwb hwf extra strip min
	min=$(vlan_data_frames)
	vd "$mode" 0 || return 1
	tso=${D[tx_tso_packets]} tsob=${D[tx_tso_bytes]} txp=${D[tx_packets]} txb=${D[tx_bytes]}
	hwf=${D[hw_tx_frames]} hwb=${D[hw_tx_bytes]}
	vd "$mode" 1 || return 1
	strip=${D[hw_rx_vlan_stripped]}
	extra=$((hwb - txb))
	echo "cxen0: tx_tso_packets +$tso (+$tsob payload B), tx_packets +$txp / +$txb B;" \
	     "port 0 put +$hwf frames / +$hwb B on the wire: $extra B more; cxen1's port stripped +$strip tags"
	[ "$tso" -gt 0 ] && [ "$tsob" -ge $((big_bytes / 2)) ] || { echo "TSO did not carry the payload"; return 1; }
	[ "$hwf" = "$txp" ] || { echo "port 0 sent $hwf frames, the driver completed $txp"; return 1; }
	if [ "$mode" = hw ]; then
		# 4 bytes per frame the device tagged: every data frame.
		[ $((extra % 4)) = 0 ] && [ $((extra / 4)) -ge "$min" ] && [ $((extra / 4)) -le "$txp" ] &&
			[ "$strip" -ge "$min" ] || { echo "want >= $min frames tagged by the device and stripped"; return 1; }
		echo "TSO +$tso packets, the device tagged $((extra / 4)) of $txp frames (+4 B each), cxen1's port stripped $strip"
	else
		[ "$extra" = 0 ] && [ "$strip" = 0 ] || { echo "software tagging: want no extra wire bytes and nothing stripped"; return 1; }
		echo "TSO +$tso packets of stack-tagged frames, wire bytes = driver bytes, nothing stripped"
	fi
}

# vlan_csum MODE: cxen1 marked the data frames CHECKSUM_UNNECESSARY.
vlan_csum() {
	local mode=$1 cu cn rp min
	min=$(vlan_data_frames)
	vd "$mode" 1 || return 1
	cu=${D[rx_csum_unnecessary]} cn=${D[rx_csum_none]} rp=${D[rx_packets]}
	echo "cxen1: rx_packets +$rp, rx_csum_unnecessary +$cu, rx_csum_none +$cn (>= $min data frames)"
	[ "$cu" -ge "$min" ]
}

# vlan_gro MODE: GRO merged the VLAN's TCP frames: more segments than GRO
# packets in the driver's counters and bytes per packet on the VLAN
# device above its MTU (no single frame carries more). How many merge is
# the sender's pace: on the debug kernel TCP's TSO autosizing sends two
# segments at a time and GRO merged 1.99 on average (2.0 was once asked).
vlan_gro() {
	local mode=$1 gp gs vp0 vb0 vp1 vb1 vp vb mtu
	vd "$mode" 1 || return 1
	gp=${D[rx_gro_packets]} gs=${D[rx_gro_segs]}
	{ read -r vp0; read -r vb0; } < "/tmp/edges-vlan.$mode.va"
	{ read -r vp1; read -r vb1; } < "/tmp/edges-vlan.$mode.vb"
	vp=$((vp1 - vp0))
	vb=$((vb1 - vb0))
	mtu=$(n1 cat /sys/class/net/cxen1.$vid/mtu)
	echo "cxen1: rx_gro_segs +$gs in rx_gro_packets +$gp; cxen1.$vid: rx_packets +$vp, rx_bytes +$vb"
	[ "$gp" -gt 0 ] && [ "$vp" -gt 0 ] || return 1
	echo "$((gs * 10 / gp / 10)).$((gs * 10 / gp % 10)) segments per GRO packet, $((vb / vp)) B per packet on cxen1.$vid (MTU $mtu)"
	[ "$gs" -gt "$gp" ] && [ $((vb / vp)) -gt "$mtu" ]
}

vlan_teardown() {
	n0 ethtool -K cxen0 tx-vlan-offload on && n1 ethtool -K cxen1 rx-vlan-offload on &&
	n0 ip link del cxen0.$vid && n1 ip link del cxen1.$vid || return 1
	rm -f /tmp/edges-vlan.*
	n0 ping -q -c 2 -i 0.2 -W 5 192.0.2.2 > /dev/null || { echo "no ping on the ports themselves"; return 1; }
	echo "tx-vlan-offload and rx-vlan-offload on, cxen0.$vid and cxen1.$vid deleted, ping"
}

t0=$SECONDS
if ! want vlan; then
	:
elif vlan_supported; then
	point "VLAN $vid: 802.1Q sub-interfaces up, TSO and checksums inherited" vlan_setup
	for mode in hw sw; do
		case $mode in
		hw) how="tag inserted and stripped by the device" ;;
		sw) how="tag inserted and parsed by the stack" ;;
		esac
		point "VLAN ($how): payload intact" vlan_run "$mode"
		point "VLAN ($how): TSO with the tag" vlan_tso "$mode"
		point "VLAN ($how): RX checksum offload in effect" vlan_csum "$mode"
		point "VLAN ($how): GRO aggregates" vlan_gro "$mode"
	done
	point "VLAN: offloads back on, sub-interfaces removed" vlan_teardown
else
	for ((i = 0; i < n_vlan; i++)); do
		tap_skip "VLAN point $((i + 1)) of $n_vlan" "kernel $(uname -r) has no 802.1Q (CONFIG_VLAN_8021Q)"
	done
fi
! want vlan || echo "# VLAN: $((SECONDS - t0)) s"

# --- 4. netpoll: netconsole through cxen0 -------------------------------------

nc_dir=/sys/kernel/config/netconsole
nc_target=$nc_dir/cxen-edges
tr=/sys/kernel/tracing
tr_inst=$tr/instances/cxen-edges
kp_wake=cxen_edges/wake
fault=/sys/kernel/debug/cxsim/fault
bql=/sys/class/net/cxen0/queues/tx-0/byte_queue_limits
mac1=$(n1 cat /sys/class/net/cxen1/address)

# nc_receiver OUT END: in netns cx1, every datagram to UDP 6666 appended
# to OUT until one contains END or 600 s pass (large receive buffer: a
# burst must not overflow it). Started in the background by the caller.
nc_receiver_py='
import socket, sys, time
out, end = sys.argv[1], sys.argv[2].encode()
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, 33, 16 << 20)  # SO_RCVBUFFORCE
s.bind(("0.0.0.0", 6666))
s.settimeout(1)
deadline = time.time() + 600  # killed when done; a bound, not a wait
with open(out, "wb", buffering=0) as f:
    while time.time() < deadline:
        try:
            d = s.recv(65536)
        except socket.timeout:
            continue
        f.write(d if d.endswith(b"\n") else d + b"\n")
        if end in d:
            break
'
nc_receiver_start() {
	: > "$1"
	nsexec cx1 python3 -c "$nc_receiver_py" "$1" "$2" < /dev/null > /dev/null 2>&1 &
	nc_rpid=$!
	wait_for 10 sh -c "nsexec cx1 ss -Hlun 'sport = :6666' | grep -q ."
}

nc_to_init() {
	ip -n cx0 link set dev cxen0 netns 1 || return 1
	ip addr add 192.0.2.1/24 dev cxen0 && ip link set dev cxen0 up || return 1
	wait_for 10 sh -c 'ip -o link show dev cxen0 | grep -q LOWER_UP' || { echo "no carrier on cxen0"; return 1; }
	ping -q -c 2 -i 0.2 -W 5 192.0.2.2 > /dev/null || { echo "no ping from the init netns"; return 1; }
	echo "cxen0 in the init netns, carrier, ping 192.0.2.2"
}

nc_target_on() {
	if [ ! -d "$nc_dir" ]; then
		grep -qw configfs /proc/filesystems || modprobe configfs || return 1
		if ! mountpoint -q /sys/kernel/config; then
			mount -t configfs configfs /sys/kernel/config || return 1
			touch /tmp/edges-configfs-mounted
		fi
		[ -d "$nc_dir" ] || modprobe netconsole || return 1
	fi
	[ -d "$nc_dir" ] || { echo "no $nc_dir: netconsole without CONFIG_NETCONSOLE_DYNAMIC?"; return 1; }
	mkdir "$nc_target" || return 1
	echo cxen0 > "$nc_target/dev_name" &&
	echo 192.0.2.1 > "$nc_target/local_ip" &&
	echo 192.0.2.2 > "$nc_target/remote_ip" &&
	echo "$mac1" > "$nc_target/remote_mac" &&
	echo 6666 > "$nc_target/remote_port" &&
	echo 1 > "$nc_target/enabled" || return 1
	[ "$(cat "$nc_target/enabled")" = 1 ] || return 1
	echo "target on cxen0: 192.0.2.1:$(< "$nc_target/local_port") -> 192.0.2.2:6666 ($mac1), enabled;" \
	     "dmesg: $(dmesg | grep 'netconsole' | tail -1 | sed 's/^\[[^]]*\] //')"
}

nc_marker() {
	local out=/tmp/edges-nc-marker.out marker a dtx dhw rc=0 i
	marker="cxen-edges netconsole $(date +%s.%N) $$ $RANDOM"
	nc_receiver_start "$out" "$marker" || { echo "receiver did not bind"; return 1; }
	a=$(snap init cxen0)
	echo "<5>$marker" > /dev/kmsg
	wait_for 15 grep -qF "$marker" "$out" || { echo "'$marker' not received"; rc=1; }
	kill "$nc_rpid" 2>/dev/null
	wait "$nc_rpid" 2>/dev/null
	for ((i = 0; i < 25; i++)); do
		deltas "$a" "$(snap init cxen0)" || return 1
		dtx=${D[tx_packets]} dhw=${D[hw_tx_frames]}
		[ "$dtx" -lt 1 ] || break
		nap 0.2
	done
	echo "received: $(grep -F "$marker" "$out" | head -1)"
	[ "$rc" = 0 ] && [ "$dtx" -ge 1 ] && [ "$dhw" -ge 1 ] || { echo "cxen0 tx_packets +$dtx, hw_tx_frames +$dhw"; return 1; }
	echo "'$marker' received in cx1; cxen0 tx_packets +$dtx, hw_tx_frames +$dhw"
}

# nc_burst: a UDP flood from the init netns through cxen0 while 1000
# lines go to /dev/kmsg: netpoll finds the queue stopped and polls
# cxen0's NAPI with budget 0 (napi:napi_poll), which reaps TX completions
# but must leave the wake of the queue to a NAPI poll of the driver's own
# (netif_tx_wake_queue() never with netpoll_poll_dev() on the stack, a
# kprobe): the wake takes the xmit lock, which the stack holds with IRQs
# on, and netpoll runs with IRQs off from any printk, hard IRQs included
# (lockdep's report before en_tx.c deferred it). Every line must arrive,
# and every stop of the queue must have been followed by a wake.
nc_burst() {
	local out=/tmp/edges-nc-burst.out round k=0 i end fpid polls wakes=0 got a bql_min rc=0
	end="cxen-edges burst end $$ $RANDOM"
	[ -d "$tr/events/napi/napi_poll" ] || { echo "no napi:napi_poll tracepoint in $tr"; return 1; }
	# A small ring the flood fills (BQL's limit_min raised: the driver,
	# not BQL, stops the queue; the model's delay_us makes the device
	# slower than the flood, on the debug kernel too) and completion
	# interrupts held back (4 ms, 4095 frames; the flood goes to an
	# address cxen1's netns neither owns nor answers, so no RX wakes
	# NAPI either): while netpoll spins on the stopped queue, completions
	# come in and it is netpoll's budget-0 poll, not the interrupt's NAPI
	# run, that reaps them and wakes the queue.
	ethtool -G cxen0 tx 64 &&
	ethtool -C cxen0 tx-usecs 4095 tx-frames 4095 rx-usecs 4095 rx-frames 4095 &&
	ip neigh replace 192.0.2.99 lladdr "$mac1" dev cxen0 nud permanent || return 1
	bql_min=$(< "$bql/limit_min")
	echo 1000000 > "$bql/limit_min" && echo 200 > "$fault/delay_us" || return 1
	nc_receiver_start "$out" "$end" || { echo "receiver did not bind"; return 1; }
	# A trace instance of our own (the global buffer stays as it was):
	# budget-0 NAPI polls, and queue wakes with their stack.
	mkdir "$tr_inst" &&
	echo "p:$kp_wake netif_tx_wake_queue" >> "$tr/kprobe_events" &&
	echo 'budget == 0' > "$tr_inst/events/napi/napi_poll/filter" &&
	echo 1 > "$tr_inst/events/napi/napi_poll/enable" &&
	echo stacktrace > "$tr_inst/events/$kp_wake/trigger" &&
	echo 1 > "$tr_inst/events/$kp_wake/enable" || return 1
	# A printk from hard interrupt context with netconsole on: sysrq-l's
	# NMI backtraces, flushed to the consoles from the timer interrupt
	# (irq_work). Any interrupt handler's message does the same in real
	# life (TCG's "hrtimer: interrupt took" now and then); on a lockdep
	# kernel it marks the console and netconsole locks HARDIRQ-safe, so
	# that every lock netpoll takes under them is checked, whatever this
	# boot printed before. Its backtraces go out through netconsole too
	# and may stop the small ring: the counters are taken before them, so
	# that such a stop and its wake both fall in the window (taken after,
	# a stop just before the snapshot showed as a wake without a stop).
	a=$(snap init cxen0)
	echo l > /proc/sysrq-trigger || return 1
	# The flood on CPU 1 keeps the model's SQ work there (it requeues
	# itself on its CPU); the kmsg lines, and so netpoll, on CPU 0, which
	# netpoll keeps with interrupts off while it waits for the queue.
	taskset -pc 0 "$BASHPID" > /dev/null || return 1
	taskset -c 1 python3 - > /tmp/edges-flood.out 2>&1 <<-'PY' &
	import signal, socket, sys, time
	n = 0
	def stop(*_):
	    print(n)
	    sys.exit(0)
	signal.signal(signal.SIGTERM, stop)
	s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
	s.setblocking(False)
	end = time.time() + 120
	while time.time() < end:
	    try:
	        s.sendto(b"x" * 1400, ("192.0.2.99", 9))
	        n += 1
	    except OSError:
	        pass
	stop()
	PY
	fpid=$!
	nap 1
	for ((round = 1; round <= 10; round++)); do
		for ((i = 1; i <= 100; i++)); do
			k=$((k + 1))
			echo "<5>cxen-edges burst line $k" > /dev/kmsg
		done
	done
	wakes=$(grep -c 'netpoll_poll_dev' "$tr_inst/trace" || true)
	kill "$fpid" 2>/dev/null
	wait "$fpid" || rc=1
	echo 0 > "$fault/delay_us" && echo "$bql_min" > "$bql/limit_min" || rc=1
	echo "<5>$end" > /dev/kmsg
	wait_for 20 grep -qF "$end" "$out" || { echo "end line not received"; rc=1; }
	echo 0 > "$tr_inst/events/napi/napi_poll/enable"
	echo 0 > "$tr_inst/events/$kp_wake/enable"
	polls=$(grep -c 'for device cxen0 work 0 budget 0' "$tr_inst/trace" || true)
	echo '!stacktrace' > "$tr_inst/events/$kp_wake/trigger"
	rmdir "$tr_inst" && echo "-:$kp_wake" >> "$tr/kprobe_events" || rc=1
	kill "$nc_rpid" 2>/dev/null
	wait "$nc_rpid" 2>/dev/null
	deltas "$a" "$(snap init cxen0)" || return 1
	ethtool -G cxen0 tx 1024 && ethtool -C cxen0 tx-usecs 16 tx-frames 16 rx-usecs 16 rx-frames 44 &&
	ip neigh del 192.0.2.99 dev cxen0 || rc=1
	got=$(grep -o 'cxen-edges burst line [0-9]*$' "$out" | sort -u | wc -l)
	echo "flood: $(< /tmp/edges-flood.out) datagrams; cxen0 tx_packets +${D[tx_packets]}," \
	     "tx_queue_stop +${D[tx_queue_stop]}, tx_queue_wake +${D[tx_queue_wake]}, tx_dropped +${D[tx_dropped]}"
	[ "$rc" = 0 ] && [ "$polls" -ge 1 ] && [ "$wakes" = 0 ] && [ "$got" = "$k" ] &&
		[ "${D[tx_queue_stop]}" -ge 1 ] && [ "${D[tx_queue_wake]}" = "${D[tx_queue_stop]}" ] ||
		{ echo "$got of $k lines received, $polls budget-0 polls of cxen0, $wakes queue wakes from netpoll's poll (want 0)"; return 1; }
	echo "$got of $k lines received during the flood; $polls budget-0 NAPI polls of cxen0 by netpoll," \
	     "none woke the queue itself; the driver stopped it ${D[tx_queue_stop]} times and woke it as often"
}

# Everything back, whatever state the points above left.
nc_cleanup() {
	local rc=0
	if [ -d "$nc_target" ]; then
		echo 0 > "$nc_target/enabled" || rc=1
		rmdir "$nc_target" || rc=1
	fi
	if [ -e /sys/module/netconsole/initstate ]; then
		modprobe -r netconsole || rc=1
	fi
	if [ -e /tmp/edges-configfs-mounted ]; then
		umount /sys/kernel/config || rc=1
		rm -f /tmp/edges-configfs-mounted
		[ ! -e /sys/module/configfs/initstate ] || modprobe -r configfs || true
	fi
	if [ -d "$tr_inst" ]; then
		echo 0 > "$tr_inst/events/napi/napi_poll/enable"
		[ ! -d "$tr_inst/events/$kp_wake" ] || {
			echo 0 > "$tr_inst/events/$kp_wake/enable"
			echo '!stacktrace' > "$tr_inst/events/$kp_wake/trigger"
		}
		rmdir "$tr_inst" || rc=1
	fi
	! grep -q "$kp_wake" "$tr/kprobe_events" || echo "-:$kp_wake" >> "$tr/kprobe_events" || rc=1
	echo 0 > "$fault/delay_us" || rc=1
	if ip link show dev cxen0 > /dev/null 2>&1; then
		echo 0 > "$bql/limit_min" || rc=1
		ethtool -G cxen0 tx 1024 && ethtool -C cxen0 tx-usecs 16 tx-frames 16 rx-usecs 16 rx-frames 44 || rc=1
		ip link set dev cxen0 netns cx0 || rc=1
		n0 ip addr add 192.0.2.1/24 dev cxen0 || rc=1
		n0 ip addr add fd00:c0::1/64 dev cxen0 nodad || rc=1
		n0 ip link set dev cxen0 up || rc=1
	fi
	return $rc
}

nc_restore() {
	nc_cleanup || return 1
	[ ! -d "$nc_target" ] && [ ! -e /sys/module/netconsole/initstate ] || { echo "netconsole still there"; return 1; }
	cxen_pair_wait_carrier || return 1
	n0 ping -q -c 2 -i 0.2 -W 5 192.0.2.2 > /dev/null && n1 ping -q -c 2 -i 0.2 -W 5 fd00:c0::1 > /dev/null ||
		{ echo "no ping between the netns"; return 1; }
	echo "netconsole target removed$([ -e /sys/module/netconsole ] && echo ' (built in)' || echo ', module unloaded');" \
	     "cxen0 back in cx0, ping and ping6"
}

if want netpoll; then
	t0=$SECONDS
	trap 'nc_cleanup > /dev/null 2>&1 || true' EXIT
	point "netpoll: cxen0 moved to the init netns (netconsole binds there only)" nc_to_init
	point "netconsole target on cxen0 (configfs)" nc_target_on
	point "netconsole: a unique kmsg line reaches cxen1's netns, cxen0 TX counters move" nc_marker
	point "netpoll under a TX flood: budget-0 NAPI polls of cxen0 leave the queue wake to NAPI, every line arrives, every stop woken" nc_burst
	point "netconsole removed, cxen0 back in cx0" nc_restore
	tap_check "cxen0 TX counters = cxen1 RX counters and back" counters_match
	trap - EXIT
	echo "# netpoll: $((SECONDS - t0)) s"
fi
echo "# total $((SECONDS - t_start)) s"
tap_done
