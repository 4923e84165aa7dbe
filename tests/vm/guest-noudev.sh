#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest script (vm-run.sh --no-udev): activation with no udev running, as in an initramfs
# without udev. lvm2 2.03.16 makes no /dev node then unless told so by DM_DISABLE_UDEV, under
# which it lets libdevmapper make /dev/mapper's nodes and makes the /dev/VG/LV links itself.
# lvm.conf's activation/udev_rules = 0 does the same without the environment, and
# verify_udev_operations = 1 makes lvm2 make them for a udev that may not.
# pvscan-fast's --cache -aay must leave the same nodes and links as lvm2's vgchange -aay,
# leading to the same device numbers, in each of these modes (names with hyphens too), and
# lvm2's vgchange -an must take them all away again where lvm2 made them.
set -eu

. "${top_srcdir:-$(dirname "$0")/../..}/tests/vm/guest-lib.sh"
guest_init guest-noudev.sh /tmp/noudev
export LVM_SUPPRESS_FD_WARNINGS=1
fixdir=$top_srcdir/tests/fixtures
if udevadm control --ping --timeout=1 >/dev/null 2>&1; then
	echo "guest-noudev.sh: udev is running (run with vm-run.sh --no-udev)" >&2
	exit 2
fi

# nodes VG...: each entry of /dev/mapper and /dev/VG: path, type, the device it leads to, and
# where a link points.
nodes() {
	for _d in /dev/mapper "$@"; do
		[ -d "$_d" ] || continue
		find "$_d" -mindepth 1 -maxdepth 1 ! -name control
	done | sort | while read -r _p; do
		echo "$_p $(stat -c %F "$_p" | tr ' ' _) $(stat -L -c %t:%T "$_p") $(readlink "$_p" || true)"
	done
}

mkdir -p "$work"
for mode in plain DM_DISABLE_UDEV udev_rules verify_udev_operations; do
	unset DM_DISABLE_UDEV
	activation=""
	case $mode in
	DM_DISABLE_UDEV) export DM_DISABLE_UDEV=1 ;;
	udev_rules) activation="activation { udev_rules = 0 }" ;;
	verify_udev_operations) activation="activation { verify_udev_operations = 1 }" ;;
	esac
	# no node by default: one fixture says it; hyphens test lvm2's name mangling
	fxs="single hyphens"
	[ "$mode" != plain ] || fxs=single
	for fx in $fxs; do
		wd=$work/$mode/$fx
		mkdir -p "$wd/run" "$wd/etc"
		attach_fixture "$fixdir/$fx" "$wd"
		t_lvm_conf "$wd/etc" "$fixture_devs" "use_devicesfile = 0" "$activation"
		export LVM_SYSTEM_DIR="$wd/etc"
		vgs=$(lvm vgs --noheadings -o vg_name 2>/dev/null | tr -d ' ' | sort | tr '\n' ' ')
		# shellcheck disable=SC2086 # VG names have no blanks
		links=$(printf '/dev/%s ' $vgs)
		# shellcheck disable=SC2086
		lvm vgchange -aay $vgs >"$wd/lvm2.out" 2>&1 ||
			{ not_ok "$mode $fx: lvm2's vgchange -aay"; sed 's/^/#   /' "$wd/lvm2.out"; }
		# shellcheck disable=SC2086
		nodes $links >"$wd/lvm2.nodes"
		dmsetup remove_all >/dev/null 2>&1 || true
		# shellcheck disable=SC2086
		rm -rf /dev/mapper/*-* $links

		# shellcheck disable=SC2086
		PVSCAN_FAST_RUN_DIR=$wd/run/lvm "$PF" --cache -aay $fixture_devs >"$wd/pf.out" 2>&1 || {
			not_ok "$mode $fx: pvscan-fast --cache -aay failed"
			sed 's/^/#   /' "$wd/pf.out"
		}
		# shellcheck disable=SC2086
		nodes $links >"$wd/pf.nodes"
		same "$mode $fx: the nodes and links lvm2 makes ($(wc -l <"$wd/lvm2.nodes"))" \
			"$wd/lvm2.nodes" "$wd/pf.nodes"
		if [ "$mode" != plain ]; then
			# shellcheck disable=SC2086
			lvm vgchange -an $vgs >/dev/null 2>&1 || true
			# shellcheck disable=SC2086
			nodes $links >"$wd/after.nodes"
			if [ -s "$wd/after.nodes" ]; then
				not_ok "$mode $fx: lvm2's vgchange -an left entries behind"
				sed 's/^/#   /' "$wd/after.nodes"
			else
				ok "$mode $fx: lvm2's vgchange -an takes them all away"
			fi
		fi
		unset LVM_SYSTEM_DIR
		dmsetup remove_all >/dev/null 2>&1 || true
		# shellcheck disable=SC2086
		rm -rf /dev/mapper/*-* $links
		for l in $fixture_devs; do
			losetup -d "$l"
		done
		loops=""
	done
done
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
