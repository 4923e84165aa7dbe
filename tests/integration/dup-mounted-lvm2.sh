#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A PV on two devices, one of them with its file system mounted: lvm2 prefers the mounted one
# when nothing it weighs earlier (device ID, an LV on it, size, name) tells them apart, and
# says "because device has fs mounted". The PV has no metadata area, so that an ext4 file
# system can live on the same device (its superblock starts at byte 1024, after the label
# sector). Full scans and two devices named together, mounted one first and second, compared
# with lvm2's pvscan (see cache-lvm2.sh for how).
. "$(dirname "$0")/../lib/test-lib.sh"
t_require lvm unshare mount umount mkfs.ext4 truncate dd
. "$(dirname "$0")/../lib/lvm2-side.sh"

MNT="$T_DIR/mnt"
# shellcheck disable=SC2317 # the trap's
cleanup() {
	umount "$MNT" 2>/dev/null
	t_cleanup
}
trap cleanup EXIT

# the image: ext4, then the label sector of a PV made by lvm2 without metadata areas
truncate -s 64M "$T_DIR/pv.img" "$T_DIR/fs.img"
t_attach_rw "$T_DIR/pv.img"
lvm_tool pvcreate -q --metadatacopies 0 --devices "$T_DEV" "$T_DEV" >"$T_DIR/mk.log" 2>&1 || {
	echo "FAIL: pvcreate"
	cat "$T_DIR/mk.log"
	exit 1
}
t_detach "$T_DEV"
mkfs.ext4 -q -F "$T_DIR/fs.img" || { echo "FAIL: mkfs.ext4"; exit 1; }
dd if="$T_DIR/pv.img" of="$T_DIR/fs.img" bs=512 skip=1 seek=1 count=1 conv=notrunc 2>/dev/null
cp "$T_DIR/fs.img" "$T_DIR/fs2.img"
t_attach "$T_DIR/fs.img"
D1=$T_DEV
t_attach "$T_DIR/fs2.img"
D2=$T_DEV
t_lvm_conf "$ETC" "$D1 $D2" "$T_CONF_NO_LISTS" "$(t_conf_events)"
mkdir -p "$MNT"

for m in "$D2" "$D1"; do
	if ! mount -t ext4 -o ro "$m" "$MNT"; then
		t_skip "cannot mount ext4 from a loop device here"
	fi
	which="mounted $( [ "$m" = "$D2" ] && echo second || echo first)"
	fresh
	step "$which: full --cache" --state-except "$FULL_EXCEPT" --cache
	fresh
	step "$which: --cache both" --cache "$D1" "$D2"
	umount "$MNT"
done
t_done
