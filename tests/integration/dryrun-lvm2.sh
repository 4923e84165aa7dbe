#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --dry-run answers as the real run would: its exit status is lvm2's under --test (lvm2's own
# dry run) for a VG that activates, a VG whose PV appears on two devices, a foreign VG, and a
# VG changed while one of its PVs was missing (that PV flagged MISSING); without device-mapper (this host) it says so once, in one line,
# and no libdevmapper line about /dev/mapper/control appears. The lines themselves differ by
# design (the dry run prints the tables it would load), so only the status is compared.
. "$(dirname "$0")/../lib/test-lib.sh"
t_require lvm unshare mount truncate losetup
. "$(dirname "$0")/../lib/lvm2-side.sh"

conf() {
	t_lvm_conf "$ETC" "$1" "$T_CONF_NO_LISTS" "$(t_conf_events)"
}

# same_status TAG ARGS...: lvm2's pvscan ARGS --test against ours ARGS --dry-run.
same_status() {
	tag=$1
	shift
	fresh
	run_lvm2 "$@" --test --driverloaded n >"$T_DIR/l.out" 2>&1
	lrc=$?
	LVM_SYSTEM_DIR="$ETC" PVSCAN_FAST_RUN_DIR="$PF/lvm" PVSCAN_FAST_LOCK_DIR="$PF/lock/lvm" \
		"$PVSCAN_FAST" --nocoalesce "$@" --dry-run >"$T_DIR/o.out" 2>&1
	orc=$?
	if [ "$lrc" -eq "$orc" ]; then
		t_pass "$tag: exit status $orc, as lvm2's under --test"
	else
		t_fail "$tag: exit status $orc, lvm2's under --test $lrc"
		sed 's/^/#   ours: /' "$T_DIR/o.out"
		sed 's/^/#   lvm2: /' "$T_DIR/l.out"
	fi
	if grep -q "mapper/control" "$T_DIR/o.out" &&
		! grep -qx "  No device-mapper here (/dev/mapper/control): the dry run takes every LV for inactive." \
			"$T_DIR/o.out"; then
		t_fail "$tag: a device-mapper line other than ours"
		grep "mapper" "$T_DIR/o.out" | sed 's/^/#   /'
	elif [ "$(grep -c "mapper/control" "$T_DIR/o.out")" -gt 1 ]; then
		t_fail "$tag: more than one line about device-mapper"
	else
		t_pass "$tag: at most one line about device-mapper, ours"
	fi
}

conf ""
mkvg plain vgplain lv
PLAIN=$T_DEV
mkvg foreign vgforeign lv otherhost
FOREIGN=$T_DEV
DUP=$(losetup -f --show -r "$T_DIR/plain.img") || { echo "FAIL: losetup"; exit 1; }
T_LOOPS="$T_LOOPS $DUP"

# vgmiss over two PVs, changed (an LV removed) while the second was not there: lvm2 flags it
# MISSING in the new metadata and refuses the VG until vgextend --restoremissing.
truncate -s 16M "$T_DIR/m1.img" "$T_DIR/m2.img"
t_attach_rw "$T_DIR/m1.img"
M1=$T_DEV
t_attach_rw "$T_DIR/m2.img"
M2=$T_DEV
{
	lvm_tool pvcreate -q --devices "$M1,$M2" "$M1" "$M2" &&
		lvm_tool vgcreate -q --devices "$M1,$M2" vgmiss "$M1" "$M2" &&
		lvm_tool lvcreate -q --devices "$M1,$M2" -an -Zn -L 4M -n la vgmiss "$M1" &&
		lvm_tool lvcreate -q --devices "$M1,$M2" -an -Zn -L 4M -n lb vgmiss "$M2" &&
		lvm_tool lvcreate -q --devices "$M1,$M2" -an -Zn -L 4M -n lc vgmiss "$M1" &&
		lvm_tool lvremove -q -y --devices "$M1" vgmiss/la
} >"$T_DIR/mkvg.log" 2>&1 || {
	echo "FAIL: cannot make VG vgmiss"
	cat "$T_DIR/mkvg.log"
	exit 1
}

conf "$PLAIN"
same_status "a VG that activates" --cache -aay
if grep -q "No device-mapper here" "$T_DIR/o.out"; then
	t_pass "no device-mapper: said once"
elif [ -e /dev/mapper/control ]; then
	t_pass "device-mapper here: nothing to say"
else
	t_fail "no device-mapper, and the dry run did not say so"
fi
conf "$PLAIN $DUP"
same_status "a PV on two devices, full scan" --cache -aay
conf "$FOREIGN"
same_status "a foreign VG" --cache -aay
conf "$M1 $M2"
same_status "a VG changed while a PV was missing" --cache -aay
t_done
