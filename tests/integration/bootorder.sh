#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The leader activates the VGs the boot waits for first: the VG of root= (and resume=,
# rd.lvm.*) on the kernel command line and of / and /usr in fstab, whatever the device order;
# the others after them, in the order they had. Seen in the dry run's plan, which follows the
# order of activation: three VGs on loop devices, the root's on the last, one full scan each
# with another command line (a /proc whose cmdline is ours, PVSCAN_FAST_PROC_DIR) and fstab
# (PVSCAN_FAST_FSTAB).
. "$(dirname "$0")/../lib/test-lib.sh"
t_require lvm unshare mount truncate losetup
. "$(dirname "$0")/../lib/lvm2-side.sh"

mkvg a vga lv
A=$T_DEV
mkvg b vg-b lv
B=$T_DEV
mkvg r vgroot root
R=$T_DEV
t_lvm_conf "$ETC" "$A $B $R" "$T_CONF_NO_LISTS" "$(t_conf_events)"

# /proc as it is, but for cmdline
P=$T_DIR/proc
mkdir -p "$P"
for e in /proc/*; do
	[ "${e##*/}" = cmdline ] || ln -s "$e" "$P/${e##*/}"
done

# order CMDLINE FSTAB: the VGs in the order the dry run plans them, space-separated
order() {
	printf '%s\n' "$1" >"$P/cmdline"
	printf '%s' "$2" >"$T_DIR/fstab"
	fresh
	LVM_SYSTEM_DIR="$ETC" PVSCAN_FAST_RUN_DIR="$PF/lvm" PVSCAN_FAST_LOCK_DIR="$PF/lock/lvm" \
		PVSCAN_FAST_PROC_DIR="$P" PVSCAN_FAST_FSTAB="$T_DIR/fstab" \
		"$PVSCAN_FAST" --cache -aay --dry-run >"$T_DIR/out" 2>&1
	sed -n 's|^ *LV \([^/]*\)/[^ ]*: name .*|\1|p' "$T_DIR/out" |
		awk '!seen[$0]++' | tr '\n' ' ' | sed 's/ $//'
}

# expect TAG WANT CMDLINE FSTAB
expect() {
	got=$(order "$3" "$4")
	if [ "$got" = "$2" ]; then
		t_pass "$1: $got"
	else
		t_fail "$1: planned '$got', want '$2'"
		sed 's/^/#   /' "$T_DIR/out"
	fi
}

expect "no boot VG: device order" "vga vg-b vgroot" "console=ttyS0 root=/dev/sda1 ro" ""
expect "root= first" "vgroot vga vg-b" "BOOT_IMAGE=/vmlinuz root=/dev/mapper/vgroot-root ro" ""
expect "root= as /dev/VG/LV" "vgroot vga vg-b" "root=/dev/vgroot/root" ""
expect "fstab's /usr, a dm name with '-'" "vg-b vgroot vga" \
	"root=/dev/mapper/vgroot-root" "/dev/mapper/vg--b-lv /usr ext4 defaults 0 2
/dev/vga/lv /srv ext4 defaults 0 2
"
expect "resume= and rd.lvm.vg" "vga vg-b vgroot" "resume=/dev/vg-b/lv rd.lvm.vg=vga" ""
t_done
