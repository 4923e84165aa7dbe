#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The disks of the boot tests, made on the host by real lvm2 (on loop devices, with
# --driverloaded n: nothing is activated here) as raw image files the VM sees as SCSI disks:
#   root.img   VG vgroot, LV root (the real root's file system goes there at each boot)
#   pvNNNN.img VG vgNNNN, one linear LV lv on the whole disk; the first MOUNTED carry ext4 and
#              an /etc/fstab line of the real root
# and, beside them:
#   disks      the image files, one a line, in the order they are attached
#   rootlv     "OFFSET SIZE" of LV root in root.img, in bytes
#   fstab      the real root's lines for the fleet's file systems
#   lvs        every LV the boot must bring up, as its device-mapper name, one a line
#
# usage: mkdisks.sh CACHEDIR N [MOUNTED]   (root)
# BOOT_CLONE=1 (the default above 50 disks; 0 never): only the MOUNTED disks and one more are
# made by lvm2 (three commands each); the rest are copies of that one with fresh ids
# (tests/bench/clone-pvs.py), VGs vgcNNNNN, checked once by lvm2.
# Prints CACHEDIR/disks-KEY; KEY covers this script, N, MOUNTED and lvm2's version, so the
# images are made once. The boots attach them with snapshot=on: they are never written.
set -eu

cache=$1
n=$2
mounted=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
. "$top_srcdir/tests/lib/test-lib.sh"

ROOT_MB=320
PV_MB=8

clone=${BOOT_CLONE:-}
[ -n "$clone" ] || { [ "$n" -gt 50 ] && clone=1 || clone=0; }
key=$({ cat "$0"; echo "$n $mounted $clone"; lvm version 2>/dev/null | head -1; } | cksum | cut -d' ' -f1)
out=$cache/disks-$key
if [ -f "$out/lvs" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$cache"
T_DIR=$(mktemp -d "$cache/disks.XXXXXX")
trap t_cleanup EXIT
trap 'exit 130' INT TERM HUP
d=$T_DIR/out
mkdir -p "$d"

# lvm2 as the tests run it, on exactly the devices given; nothing activated.
mklvm() {
	devs=$1
	shift
	t_lvm "$devs" "$@" --driverloaded n >>"$T_DIR/lvm.log" 2>&1 ||
		{ cat "$T_DIR/lvm.log" >&2; echo "mkdisks: lvm $* failed" >&2; exit 1; }
}

# lvextent DEV VG LV: "OFFSET SIZE" of the LV's one segment on DEV, in bytes.
lvextent() {
	t_lvm "$1" pvs --noheadings --nosuffix --units b -o pe_start,vg_extent_size "$1" \
		>"$T_DIR/pe" 2>>"$T_DIR/lvm.log"
	t_lvm "$1" lvs --noheadings --nosuffix --units b -o seg_pe_ranges,lv_size "$2/$3" \
		>"$T_DIR/seg" 2>>"$T_DIR/lvm.log"
	read -r pe_start ext <"$T_DIR/pe"
	read -r range size <"$T_DIR/seg"
	first=${range#*:}
	first=${first%-*}
	echo "$((pe_start + first * ext)) $size"
}

truncate -s "${ROOT_MB}M" "$d/root.img"
t_attach_rw "$d/root.img"
dev=$T_DEV
mklvm "$dev" pvcreate -q "$dev"
mklvm "$dev" vgcreate -q -s 4m vgroot "$dev"
mklvm "$dev" lvcreate -q -an -Zn -y -l 100%FREE -n root vgroot
lvextent "$dev" vgroot root >"$d/rootlv"
t_detach "$dev"
echo "$d/root.img" >"$T_DIR/disks"
echo vgroot-root >"$d/lvs"
: >"$d/fstab"

i=1
while [ "$i" -le "$n" ]; do
	vg=$(printf 'vg%04d' "$i")
	img=$d/pv${vg#vg}.img
	truncate -s "${PV_MB}M" "$img"
	t_attach_rw "$img"
	dev=$T_DEV
	mklvm "$dev" pvcreate -q "$dev"
	mklvm "$dev" vgcreate -q -s 1m "$vg" "$dev"
	mklvm "$dev" lvcreate -q -an -Zn -y -l 100%FREE -n lv "$vg"
	if [ "$i" -le "$mounted" ]; then
		read -r off size <<-EOT
		$(lvextent "$dev" "$vg" lv)
		EOT
		t_detach "$dev"
		mkfs.ext4 -q -F -E "offset=$off" -L "$vg" "$img" "$((size / 1024))k"
		echo "/dev/mapper/$vg-lv /srv/$vg ext4 defaults 0 0" >>"$d/fstab"
	else
		t_detach "$dev"
	fi
	echo "$img" >>"$T_DIR/disks"
	echo "$vg-lv" >>"$d/lvs"
	i=$((i + 1))
	[ "$clone" = 0 ] || [ "$i" -le $((mounted + 1)) ] || [ "$i" -gt "$n" ] || break
done
if [ "$clone" = 1 ] && [ "$i" -le "$n" ]; then
	# The last disk lvm2 made, without a file system, is the copies' template.
	mkdir -p "$T_DIR/tmpl"
	xz -0 -c "$img" >"$T_DIR/tmpl/pv.img.xz"
	python3 "$top_srcdir/tests/bench/clone-pvs.py" "$T_DIR/tmpl" $((n - i + 1)) "$d" vgc \
		>"$T_DIR/clones" || { echo "mkdisks: clone-pvs.py failed" >&2; exit 1; }
	t_attach_rw "$(head -n 1 "$T_DIR/clones")"
	t_lvm "$T_DEV" lvs --noheadings -o vg_name,lv_name >"$T_DIR/check" 2>>"$T_DIR/lvm.log"
	if [ "$(awk '{ print $1 "-" $2 }' "$T_DIR/check")" != vgc00000-lv ]; then
		cat "$T_DIR/lvm.log" >&2
		echo "mkdisks: lvm2 does not read the copies" >&2
		exit 1
	fi
	t_detach "$T_DEV"
	cat "$T_DIR/clones" >>"$T_DIR/disks"
	sed 's|.*/\(vgc[0-9]*\)-pv\.img$|\1-lv|' "$T_DIR/clones" >>"$d/lvs"
fi
# The paths the cached directory will have.
sed "s|^$d/|$out/|" "$T_DIR/disks" >"$d/disks"
rm -rf "$out"
mv "$d" "$out"
echo "$out"
