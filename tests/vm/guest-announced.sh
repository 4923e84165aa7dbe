#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest script: the first leader since boot, started by udev's rule, reads only what udev has
# announced (issue 16 item 5). lvm2 runs pvscan only for the devices its rule lets through, so
# it never uses a multipath path (DM_MULTIPATH_DEVICE_PATH=1, here set by a test rule on two
# loop devices over one PV image, as multipath's rule sets it on real paths) or a device udev
# has not processed yet (a loop device attached while udev's queue is stopped). The first
# leader's full scan must leave both out, print no duplicate-PV line for the paths, and bring
# the late device's VG up once its own event comes.
set -eu

. "${top_srcdir:-$(dirname "$0")/../..}/tests/vm/guest-lib.sh"
guest_init guest-announced.sh /tmp/announced
export LVM_SUPPRESS_FD_WARNINGS=1
mkdir -p "$work/etc" "$work/run"
mask_lvm_rule guest-announced.sh

for v in a b c; do
	truncate -s 16M "$work/$v.img"
done
# the PVs made by lvm2 on devices udev has seen, then let go of
for v in a b c; do
	_l=$(losetup -f --show "$work/$v.img")
	loops="$loops $_l"
	eval "dev_$v=$_l"
done
udevadm settle --timeout=60
t_lvm_conf "$work/etc" "$dev_a $dev_b $dev_c" "use_devicesfile = 0" ""
export LVM_SYSTEM_DIR="$work/etc"
for v in a b c; do
	eval "_d=\$dev_$v"
	lvm vgcreate -q "vg$v" "$_d" >/dev/null
	lvm lvcreate -q -an -Zn -l 1 -n lv0 "vg$v" >/dev/null
done
losetup -d "$dev_c"
loops=$(echo "$loops" | sed "s|$dev_c||")

# vgb's PV seen through two "paths", both marked as multipath's rule marks them
dev_b2=$(losetup -f --show "$work/b.img")
loops="$loops $dev_b2"
printf 'KERNEL=="%s|%s", ENV{DM_MULTIPATH_DEVICE_PATH}="1"\n' "${dev_b#/dev/}" "${dev_b2#/dev/}" \
	>/etc/udev/rules.d/61-test-mpath.rules
udevadm control --reload
udevadm trigger --action=change "$dev_b" "$dev_b2"
udevadm settle --timeout=60

# vgc's PV on a loop device udev has not processed: its add event waits in the stopped queue
udevadm control --stop-exec-queue
dev_c=/dev/loop$((200 + $$ % 50))
losetup "$dev_c" "$work/c.img"
loops="$loops $dev_c"
# nobody waits for udev's queue, stopped until the late event is due (activation/udev_sync)
t_lvm_conf "$work/etc" "$dev_a $dev_b $dev_b2 $dev_c" "use_devicesfile = 0" \
	"activation { udev_sync = 0 }"
# mm DEV: the udev form's --major/--minor for DEV; devno DEV: "MAJ:MIN"
devno() {
	# shellcheck disable=SC2046 # two hex numbers
	set -- $(stat -L -c '%t %T' "$1")
	echo "$((0x$1)):$((0x$2))"
}
mm() {
	_n=$(devno "$1")
	echo "--major ${_n%:*} --minor ${_n#*:}"
}
if [ -e "/run/udev/data/b$(devno "$dev_c")" ]; then
	not_ok "setup: udev processed $dev_c already"
fi

# the rule's call for vga's device, the first since boot (a fresh run directory)
# shellcheck disable=SC2046 # the numbers
PVSCAN_FAST_RUN_DIR=$work/run timeout 120 "$PF" --cache --activate ay --autoactivation event \
	$(mm "$dev_a") >"$work/first.out" 2>&1 || { not_ok "first leader failed"; sed 's/^/#   /' "$work/first.out"; }
up_vgs() { dmsetup ls 2>/dev/null | awk '$1 ~ /^vg[abc]-lv0$/ { sub(/-lv0$/, "", $1); print $1 }' | sort | tr '\n' ' '; }
[ "$(up_vgs)" = "vga " ] && ok "first leader: vga up, vgb (multipath paths) and vgc (not processed) down" ||
	not_ok "first leader: up: $(up_vgs)"
if grep -qi "duplicate" "$work/first.out"; then
	not_ok "first leader: a duplicate-PV line for the multipath paths"
	grep -i duplicate "$work/first.out" | sed 's/^/#   /'
else
	ok "first leader: no duplicate-PV line for the multipath paths"
fi
_n=$(ls "$work/run/pvs_online" 2>/dev/null | wc -l)
[ "$_n" -eq 1 ] && ok "first leader: one PV online (vga's)" || not_ok "first leader: $_n PVs online"

# vgc's event comes: its device is read and its VG comes up; the paths stay unused
udevadm control --start-exec-queue
udevadm settle --timeout=60
# shellcheck disable=SC2046
PVSCAN_FAST_RUN_DIR=$work/run timeout 120 "$PF" --cache --activate ay --autoactivation event \
	$(mm "$dev_c") >"$work/late.out" 2>&1 || { not_ok "late device's call failed"; sed 's/^/#   /' "$work/late.out"; }
[ "$(up_vgs)" = "vga vgc " ] && ok "late device's event: vgc up, vgb still down" ||
	not_ok "late device's event: up: $(up_vgs)"

rm -f /etc/udev/rules.d/61-test-mpath.rules
udevadm control --reload
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
