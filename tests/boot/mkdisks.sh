#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The disks of the boot tests, made on the host by real lvm2 (on loop devices, with
# --driverloaded n: nothing is activated here) as raw image files the VM sees as SCSI disks:
#   root.img   VG vgroot, LV root (the real root's file system goes there at each boot)
#   pvNNNN.img VG vgNNNN, one linear LV lv on the whole disk; the first MOUNTED carry ext4 and
#              an /etc/fstab line of the real root
# and the layered stacks, each VG with one linear LV lv:
#   gpt.img    a GPT (sgdisk) whose one partition is the PV of vggpt
#   mda.img, mdb.img  the members of an md RAID1 (metadata 1.0) holding the PV of vgmd
#   crypt.img  a LUKS2 volume (key file etc/pf-boot/luks.key) holding the PV of vgcrypt
#   mp.img     the PV of vgmp, attached twice as two paths of one multipath LUN (boot.sh)
#   late1.img, late2a.img, late2b.img  disks hot-added once the real root runs (boot.sh): VG
#              vglate1 on the first, vglate2 (one linear LV over both) on the other two, the
#              last 30 s after the others
# The md array and the LUKS volume need md and device-mapper, which the host may not have:
# guest-stacks.sh makes them in a VM (tests/vm/vm-run.sh) on the guest's loop devices.
# and, beside them:
#   disks      the image files, one a line, in the order they are attached ("FILE late SECONDS":
#              hot-added SECONDS after the disk before it, see boot.sh)
#   rootlv     "OFFSET SIZE" of LV root in root.img, in bytes
#   fstab      the real root's lines for the fleet's file systems
#   lvs        every LV the boot must bring up, as its device-mapper name, one a line
#   lvs.late   the LVs of the late disks
#   etc/       the stacks' configuration for the real root and the initramfs: crypttab,
#              mdadm/mdadm.conf, multipath.conf, multipath/wwids, pf-boot/luks.key
#
# usage: mkdisks.sh CACHEDIR N [MOUNTED]   (root)
# BOOT_CLONE=1 (the default above 50 disks; 0 never): only the MOUNTED disks and one more are
# made by lvm2 (three commands each); the rest are copies of that one with fresh ids
# (tests/bench/clone-pvs.py), VGs vgcNNNNN, checked once by lvm2. BOOT_STACKS=0 leaves the
# layered stacks out (the benchmark's boots).
# Prints CACHEDIR/disks-KEY; KEY covers this script and guest-stacks.sh, N, MOUNTED, the
# switches and the versions of lvm2, mdadm and cryptsetup, so the images are made once. The
# boots attach them with snapshot=on: they are never written.
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
stacks=${BOOT_STACKS:-1}
key=$({
	cat "$0" "$here/guest-stacks.sh"
	echo "$n $mounted $clone $stacks"
	lvm version 2>/dev/null | head -1
	dpkg-query -W mdadm cryptsetup-bin 2>/dev/null
} | cksum | cut -d' ' -f1)
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
mkdir -p "$d" "$d/etc"

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
if [ "$stacks" = 1 ]; then
# The stacks. Their configuration is fixed, so that the images and the etc/ files agree.
MP_WWN=0x5000c5000000aa01
LUKS_UUID=0b5c1e2a-7d3f-4c61-9a8e-2f4b6d8c0e11
# mkpv IMG MB VG [LOSETUP_OPTIONS]: IMG of MB MiB, a PV for VG with LV lv (at the offset given).
mkpv() {
	[ -f "$1" ] || truncate -s "${2}M" "$1"
	t_attach_rw "$1" "${4:-}"
	dev=$T_DEV
	mklvm "$dev" pvcreate -q "$dev"
	mklvm "$dev" vgcreate -q -s 1m "$3" "$dev"
	mklvm "$dev" lvcreate -q -an -Zn -y -l 100%FREE -n lv "$3"
	t_detach "$dev"
	echo "$3-lv" >>"$d/lvs"
}
truncate -s 16M "$d/gpt.img"
sgdisk -n 1:2048:0 -t 1:8e00 -c 1:pf-gpt "$d/gpt.img" >>"$T_DIR/lvm.log" 2>&1 ||
	{ echo "mkdisks: sgdisk failed" >&2; exit 1; }
start=$(sgdisk -i 1 "$d/gpt.img" | sed -n 's/^First sector: \([0-9]*\).*/\1/p')
end=$(sgdisk -i 1 "$d/gpt.img" | sed -n 's/^Last sector: \([0-9]*\).*/\1/p')
mkpv "$d/gpt.img" 16 vggpt "-o $((start * 512)) --sizelimit $(((end - start + 1) * 512))"
mkpv "$d/mp.img" 8 vgmp

truncate -s 16M "$d/mda.img" "$d/mdb.img"
truncate -s 32M "$d/crypt.img"
mkdir -p "$d/etc/pf-boot" "$d/etc/multipath"
head -c 64 /dev/urandom >"$d/etc/pf-boot/luks.key"
chmod 0400 "$d/etc/pf-boot/luks.key"
if ! sh "$top_srcdir/tests/vm/vm-run.sh" --no-udev --modules "md_mod raid1 dm_crypt" \
	--rw "$T_DIR" "$here/guest-stacks.sh" "$T_DIR" "$d/mda.img" "$d/mdb.img" \
	"$d/crypt.img" "$d/etc/pf-boot/luks.key" "$LUKS_UUID" >"$T_DIR/vm.log" 2>&1; then
	cat "$T_DIR/vm.log" >&2
	echo "mkdisks: the VM making the md and LUKS stacks failed" >&2
	exit 1
fi
mkdir -p "$d/etc/mdadm"
{
	printf 'HOMEHOST <system>\nMAILADDR root\n'
	cat "$T_DIR/mdadm.arrays"
} >"$d/etc/mdadm/mdadm.conf"
printf '%s\n' "$d/gpt.img" "$d/mda.img" "$d/mdb.img" "$d/crypt.img" >>"$T_DIR/disks"
printf '%s\n' vgmd-lv vgcrypt-lv >>"$d/lvs"
# boot.sh: one image, two paths with the WWN.
echo "$d/mp.img mpath $MP_WWN" >>"$T_DIR/disks"

# No root on it: initramfs-tools leaves the volume to the real root's systemd-cryptsetup;
# dracut's image carries this crypttab and opens it. No device timeout, as for the fstab
# lines: systemd's 90 s ran out on a loaded host (guest soft lockups) before the disk's
# udev event was processed; the test's deadline ends a hang.
echo "pfcrypt UUID=$LUKS_UUID /etc/pf-boot/luks.key luks,x-systemd.device-timeout=0" \
	>"$d/etc/crypttab"
# strict: only the WWIDs listed are multipath paths, from their first uevent on, so nothing
# ever sees a path as a disk of its own.
cat >"$d/etc/multipath.conf" <<-EOT
defaults {
	find_multipaths strict
	user_friendly_names no
}
multipaths {
	multipath {
		wwid 3${MP_WWN#0x}
		alias pfmpath
	}
}
EOT
printf '# Multipath wwids, Version : 1.0\n/3%s/\n' "${MP_WWN#0x}" >"$d/etc/multipath/wwids"

# Disks that arrive once the real root runs (boot.sh hot-adds them): vglate1 on one disk, and
# vglate2 over two, the second 30 s after the first. Their LVs in lvs.late.
mkpv "$d/late1.img" 8 vglate1
truncate -s 8M "$d/late2a.img" "$d/late2b.img"
t_attach_rw "$d/late2a.img"
la=$T_DEV
t_attach_rw "$d/late2b.img"
lb=$T_DEV
mklvm "$la $lb" pvcreate -q "$la" "$lb"
mklvm "$la $lb" vgcreate -q -s 1m vglate2 "$la" "$lb"
mklvm "$la $lb" lvcreate -q -an -Zn -y -l 100%FREE -n lv vglate2
t_detach "$la"
t_detach "$lb"
sed -i '/^vglate1-lv$/d' "$d/lvs"
printf '%s\n' vglate1-lv vglate2-lv >"$d/lvs.late"
printf '%s late 0\n' "$d/late1.img" "$d/late2a.img" >>"$T_DIR/disks"
echo "$d/late2b.img late 30" >>"$T_DIR/disks"
fi

# The paths the cached directory will have.
sed "s|^$d/|$out/|" "$T_DIR/disks" >"$d/disks"
rm -rf "$out"
mv "$d" "$out"
echo "$out"
