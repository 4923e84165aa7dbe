# shellcheck shell=sh
# For tests/vm/vm-*.sh, on the host: the tree's paths, the tools a VM test needs, and a scratch
# directory in the build tree, which the guest sees at the same path wherever the tree is (the
# guest's /tmp is its own tmpfs, with only the trees shown again).

# vm_host_init NAME: exports top_srcdir and top_builddir, sets clone (clone-pvs.py, which makes
# PV images natively: python under TCG is slow) and dir (a scratch directory NAME.XXXXXX,
# removed on exit); skips (77) without python3, tar or QEMU.
vm_host_init() {
	_here=$(cd "$(dirname "$0")" && pwd)
	: "${top_srcdir:=$(cd "$_here/../.." && pwd)}"
	: "${top_builddir:=$top_srcdir}"
	export top_srcdir top_builddir
	for _c in python3 tar qemu-system-x86_64; do
		command -v "$_c" >/dev/null 2>&1 || { echo "SKIP: $1: $_c not installed"; exit 77; }
	done
	mkdir -p "$top_builddir/tests/vm"
	dir=$(mktemp -d "$top_builddir/tests/vm/$1.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
	trap 'exit 130' INT TERM
	clone="$top_srcdir/tests/bench/clone-pvs.py"
}

# vm_kernel [VERSION]: sets kver and kernel (/boot/vmlinuz-VERSION) for the VM: the newest
# kernel in /boot with modules in /lib/modules when VERSION is empty. Returns 1 with the reason
# in vm_why when there is none.
vm_kernel() {
	kver=${1:-}
	if [ -z "$kver" ]; then
		kver=$(for _k in /boot/vmlinuz-*; do
			[ -e "$_k" ] || continue
			_v=${_k#/boot/vmlinuz-}
			[ -d "/lib/modules/$_v/kernel" ] && echo "$_v"
		done | sort -V | tail -n 1)
	fi
	vm_why="no kernel image with modules in /boot (Debian: linux-image-amd64)"
	[ -n "$kver" ] || return 1
	kernel=/boot/vmlinuz-$kver
	vm_why="cannot read $kernel"
	[ -r "$kernel" ] || return 1
	vm_why="no modules for $kernel in /lib/modules/$kver"
	[ -d "/lib/modules/$kver/kernel" ] || return 1
	return 0
}

# vm_extract_vmlinux BZIMAGE OUT: the kernel's ELF image, for a PVH-capable kernel of version
# $kver; 1 when there is none.
vm_extract_vmlinux() {
	grep -qx 'CONFIG_PVH=y' "/boot/config-$kver" 2>/dev/null || return 1
	for _fmt in 'xz:\xfd7zXZ\x00' 'zstd:\x28\xb5\x2f\xfd' 'gzip:\x1f\x8b\x08'; do
		_tool=${_fmt%%:*}
		command -v "$_tool" >/dev/null 2>&1 || continue
		for _off in $(LC_ALL=C grep -obUaP "${_fmt#*:}" "$1" 2>/dev/null | cut -d: -f1 |
			head -n 4); do
			case $_tool in
			xz) tail -c +$((_off + 1)) "$1" | xz -dc --single-stream >"$2" 2>/dev/null ;;
			*) tail -c +$((_off + 1)) "$1" | "$_tool" -dc >"$2" 2>/dev/null ;;
			esac
			[ "$(head -c 4 "$2" | od -An -tx1 | tr -d ' \n')" = 7f454c46 ] && return 0
		done
	done
	return 1
}

# vm_boot_image CACHEDIR: sets boot_image to what QEMU's -kernel boots for $kernel. TCG spends
# ~4 s in the bzImage's own xz decompression and real-mode setup; a PVH-capable kernel's ELF
# image boots straight into 64-bit code, so a decompressed copy is kept in CACHEDIR.
vm_boot_image() {
	boot_image=$1/vmlinux-$kver-$(stat -c %s-%Y "$kernel")
	if [ ! -f "$boot_image" ] && [ ! -f "$boot_image.none" ]; then
		vm_tmpk=$(mktemp "$1/vmlinux.XXXXXX")
		if vm_extract_vmlinux "$kernel" "$vm_tmpk"; then
			chmod 0644 "$vm_tmpk"
			mv -f "$vm_tmpk" "$boot_image"
		else
			echo "$kernel has no PVH entry or cannot be unpacked" >"$boot_image.none"
		fi
		rm -f "$vm_tmpk"
		vm_tmpk=""
	fi
	[ -f "$boot_image" ] || boot_image=$kernel
}

# vm_stop PID: stop a QEMU this script started (through its timeout(1) wrapper, which forwards
# the signal): TERM, then KILL after 5 s; reaped.
vm_stop() {
	if kill -0 "$1" 2>/dev/null; then
		kill -TERM "$1" 2>/dev/null || true
		_i=0
		while kill -0 "$1" 2>/dev/null && [ "$_i" -lt 50 ]; do
			sleep 0.1
			_i=$((_i + 1))
		done
		kill -KILL "$1" 2>/dev/null || true
	fi
	wait "$1" 2>/dev/null || true
}
