#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest script proving the VM harness: device-mapper, loop, udevd, udev-made dm nodes.
#
# Runs inside the VM only (vm-run.sh sets PF_VM=1); run it with vm-run.sh guest-selftest.sh.
# shellcheck disable=SC2016 # sh -c bodies expand in the inner shell
set -eu

if [ "${PF_VM:-}" != 1 ]; then
	echo "SKIP: guest-selftest.sh runs inside the VM (tests/vm/vm-run.sh)"
	exit 77
fi

# shellcheck source=tests/vm/guest-lib.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/vm/guest-lib.sh" # ok, not_ok; the harness alone
passes=0
fails=0
check() {
	msg=$1
	shift
	if "$@"; then
		ok "$msg"
	else
		not_ok "$msg"
	fi
}

loop=""
dm=""
work=/tmp/vm-selftest
cleanup() {
	[ -z "$dm" ] || dmsetup remove "$dm" 2>/dev/null || true
	[ -z "$loop" ] || losetup -d "$loop" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# The host's root is read-only; /etc is a writable overlay; /tmp is the guest's tmpfs.
check "/ is the host's root, read-only" sh -c '! touch /vm-selftest-probe 2>/dev/null'
check "/etc is writable" sh -c 'touch /etc/vm-selftest-probe && rm /etc/vm-selftest-probe'
check "/tmp is tmpfs" sh -c '[ "$(stat -f -c %T /tmp)" = tmpfs ]'
# The trees are where the host has them, /tmp included, read-only; the rest of the host's /tmp
# stays hidden (vm-selftest.sh leaves a file there and names it in VM_HOST_TMP_FILE).
: "${top_srcdir:?set by vm-run.sh}" "${top_builddir:?set by vm-run.sh}"
check "the build tree is at its host path ($top_builddir)" \
	test -x "$top_builddir/pvscan-fast/pvscan-fast"
check "the source tree is at its host path ($top_srcdir)" \
	test -f "$top_srcdir/tests/vm/guest-lib.sh"
check "the build tree is read-only" sh -c "! touch '$top_builddir/.vm-selftest-probe' 2>/dev/null"
if [ -n "${VM_HOST_TMP_FILE:-}" ]; then
	check "the host's $VM_HOST_TMP_FILE is hidden" test ! -e "$VM_HOST_TMP_FILE"
fi

check "/dev/mapper/control is a character device" test -c /dev/mapper/control
if v=$(dmsetup version 2>&1) && echo "$v" | grep -q '^Driver version: *4\.'; then
	ok "dmsetup version: $(echo "$v" | grep '^Driver version')"
else
	not_ok "dmsetup version shows no kernel driver: $v"
fi

# loop: attach a file, write through the device, read it back from the file.
mkdir -p "$work"
truncate -s 8M "$work/img"
if loop=$(losetup -f --show "$work/img"); then
	ok "losetup attached $loop"
	printf 'vm-selftest-pattern' | dd of="$loop" bs=512 seek=3 conv=notrunc,fsync status=none
	check "loop writes reach the backing file" sh -c \
		"dd if='$work/img' bs=512 skip=3 count=1 status=none | grep -q vm-selftest-pattern"
	check "loop size is 8 MiB" sh -c "[ \"\$(blockdev --getsize64 '$loop')\" = 8388608 ]"
	if losetup -d "$loop"; then
		ok "losetup -d $loop"
		loop=""
	else
		not_ok "losetup -d $loop"
	fi
else
	not_ok "losetup -f --show"
fi

check "systemd-udevd is running" sh -c "pgrep -x systemd-udevd >/dev/null"
check "udevadm control --ping" udevadm control --ping --timeout=10

# Coldplug worked: a device that existed before udevd started has a udev database entry.
if [ -d /sys/module/null_blk ]; then
	check "null_blk (--modules) gave /dev/nullb0" test -b /dev/nullb0
	check "udev database has /dev/nullb0 (coldplug trigger)" sh -c \
		'udevadm info --query=property /dev/nullb0 | grep -q "^DEVNAME=/dev/nullb0$"'
fi

# A dm device through the normal cookie path: udev must create the /dev/mapper link and
# remove it again. The zero target is a module the kernel loads on demand (dm-zero).
dm=vm-selftest-$$
if dmsetup create "$dm" --table '0 8 zero'; then
	ok "dmsetup create $dm (zero target)"
	if [ -L "/dev/mapper/$dm" ]; then
		ok "/dev/mapper/$dm is a udev symlink -> $(readlink "/dev/mapper/$dm")"
	else
		not_ok "/dev/mapper/$dm is no udev symlink: $(ls -l "/dev/mapper/$dm" 2>&1)"
	fi
	check "udev database has DM_NAME=$dm" sh -c \
		"udevadm info --query=property '/dev/mapper/$dm' | grep -qx 'DM_NAME=$dm'"
	check "/dev/mapper/$dm reads 4 KiB of zeros" cmp -s -n 4096 "/dev/mapper/$dm" /dev/zero
	if dmsetup remove "$dm"; then
		ok "dmsetup remove $dm"
		dm_was=$dm
		dm=""
		check "/dev/mapper/$dm_was is gone" sh -c "[ ! -e '/dev/mapper/$dm_was' ]"
	else
		not_ok "dmsetup remove $dm"
	fi
else
	not_ok "dmsetup create $dm --table '0 8 zero'"
	dm=""
fi
check "no dm devices left" sh -c '[ "$(dmsetup ls 2>&1)" = "No devices found" ]'
check "no udev cookies left" sh -c '[ -z "$(dmsetup udevcookies | tail -n +2)" ]'

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
