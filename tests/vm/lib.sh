# SPDX-License-Identifier: GPL-2.0
#
# Shared helpers for the VM scripts (sourced, not run).
#
# Kernels ("flavors"):
#   stock  Debian's generic image, the newest /boot/vmlinuz-6.12.*-amd64;
#          modules build against /usr/src/linux-headers-<same version>.
#   debug  tests/vm/build-debug-kernel's tree (built and cached on first
#          use); modules build against that tree.

cxen_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
cxen_cache=${CXEN_CACHE:-/var/cache/cxen}

cxen_die() {
	echo "${cxen_prog:-cxen}: $*" >&2
	exit 1
}

# Newest Debian 6.12 image in /boot (the ABI make deps resolved).
cxen_stock_kver() {
	local k
	k=$(ls /boot/vmlinuz-6.12.*-amd64 2>/dev/null | sed 's|.*/vmlinuz-||' | sort -V | tail -1)
	[ -n "$k" ] || cxen_die "no /boot/vmlinuz-6.12.*-amd64: run 'make deps'"
	echo "$k"
}

# Sets kflavor, kver, kimage, kdir for flavor $1.
cxen_kernel() {
	kflavor=$1
	case "$kflavor" in
	stock)
		kver=$(cxen_stock_kver)
		kimage=/boot/vmlinuz-$kver
		kdir=/usr/src/linux-headers-$kver
		[ -d "$kdir" ] || cxen_die "$kdir missing: run 'make deps'"
		;;
	debug)
		kdir=$("$cxen_root/tests/vm/build-debug-kernel") ||
			cxen_die "debug kernel build failed (see above)"
		kimage=$kdir/arch/x86/boot/bzImage
		kver=$(cat "$kdir/include/config/kernel.release")
		;;
	*)
		cxen_die "unknown kernel '$kflavor' (stock or debug)"
		;;
	esac
	[ -r "$kimage" ] || cxen_die "kernel image $kimage not readable"
}
