# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Shared helpers of the build and VM scripts (scripts/, tests/vm/,
# bench/): the kernels, the sources, the accelerator (sourced, not run).
#
# Kernels ("flavors"):
#   stock  Debian's generic image, the newest /boot/vmlinuz-6.12.*-amd64;
#          modules build against /usr/src/linux-headers-<same version>.
#   debug  tests/vm/build-debug-kernel's tree (built and cached on first
#          use); modules build against that tree.

cxen_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cxen_cache=${CXEN_CACHE:-/var/cache/cxen}

cxen_die() {
	echo "${cxen_prog:-cxen}: $*" >&2
	exit 1
}

# cxen_accel: the QEMU accelerator the VMs run with, tcg or kvm.
# CXEN_VM_ACCEL=auto|kvm|tcg (default auto: KVM when /dev/kvm is usable
# and the CPU has vmx or svm, else TCG). /dev/kvm alone is not enough:
# seen on a build machine whose CPU has no vmx/svm flag, where /dev/kvm
# opened and KVM_CREATE_VM succeeded but every guest hung right after
# SeaBIOS.
cxen_accel() {
	case "${CXEN_VM_ACCEL:-auto}" in
	auto)
		if [ -w /dev/kvm ] && [ -r /dev/kvm ] && grep -qwE 'vmx|svm' /proc/cpuinfo; then
			echo kvm
		else
			echo tcg
		fi
		;;
	kvm | tcg) echo "$CXEN_VM_ACCEL" ;;
	*) cxen_die "CXEN_VM_ACCEL is auto, kvm or tcg, not '$CXEN_VM_ACCEL'" ;;
	esac
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

# cxen_copy_sources DEST: the project's sources (not build/, .git, build
# products) into DEST, mtimes kept so kbuild rebuilds only what changed.
# Extra rsync options may follow DEST (e.g. --itemize-changes).
cxen_copy_sources() {
	local dest=$1
	shift
	mkdir -p "$dest"
	rsync -a --delete "$@" \
		--exclude=/build/ --exclude=/.git/ --exclude=/.ci/ \
		--exclude='*.o' --exclude='*.ko' --exclude='*.mod' --exclude='*.mod.c' \
		--exclude='*.a' --exclude='.*.cmd' --exclude='.*.d' --exclude='*.tmp' \
		--exclude=modules.order --exclude=Module.symvers --exclude='*.symvers' \
		--exclude='*.dwo' --exclude='.cache.mk' --exclude='.tmp_*' \
		"$cxen_root/" "$dest/"
}

# cxen_linux_source: prints the extracted linux-source tree that the debug
# kernel is built from (checkpatch.pl, coccinelle scripts, kunit.py).
# Extracts it when tests/vm/build-debug-kernel has not yet; waits while
# that script holds its lock without having extracted.
cxen_linux_source() {
	local tarball=/usr/src/linux-source-6.12.tar.xz srcver src i rc
	[ -f "$tarball" ] || cxen_die "$tarball missing: run 'make deps'"
	srcver=$(dpkg-query -W -f='${Version}' linux-source-6.12)
	src=$cxen_cache/linux-source-$srcver
	mkdir -p "$cxen_cache"
	for ((i = 0; i < 600; i++)); do
		if [ -f "$src/.extracted" ]; then
			echo "$src"
			return 0
		fi
		# 0: extracted (by us or just before), 1: lock busy, 2: failed.
		rc=0
		(
			flock -n 9 || exit 1
			[ -f "$src/.extracted" ] && exit 0
			echo "${cxen_prog:-cxen}: extracting linux-source $srcver" >&2
			rm -rf "$src" "$src.tmp" &&
			mkdir -p "$src.tmp" &&
			tar -C "$src.tmp" --strip-components=1 -xf "$tarball" &&
			mv "$src.tmp" "$src" &&
			touch "$src/.extracted" || exit 2
		) 9> "$cxen_cache/.debug-kernel.lock" || rc=$?
		case "$rc" in
		0) continue ;;
		1) sleep 1 ;;
		*) cxen_die "extracting $tarball failed" ;;
		esac
	done
	cxen_die "timed out waiting for $src to be extracted"
}
