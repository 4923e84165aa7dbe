#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs in a VM (tests/vm/vm-run.sh --no-udev) for mkdisks.sh: the stacks the host cannot make
# without md and device-mapper. On the guest's own loop devices over the given image files:
#   MDA MDB  an md RAID1 (metadata 1.0: the superblock at the end, so each member also shows
#            the PV's label at its start, as a PV lvm2 must not use) holding VG vgmd, LV lv
#   CRYPT    a LUKS2 volume opened with KEY, holding VG vgcrypt, LV lv
# Real mdadm, cryptsetup and lvm2 (--driverloaded n, lvcreate -an -Zn); everything is stopped,
# closed and detached again before the VM ends. DIR/mdadm.arrays: the array's ARRAY line.
#
# usage: guest-stacks.sh DIR MDA MDB CRYPT KEY LUKSUUID
set -eu

dir=$1
: "${top_srcdir:?}"
. "$top_srcdir/tests/lib/test-lib.sh"
T_DIR=$dir/guest
mkdir -p "$T_DIR"
export DM_DISABLE_UDEV=1

t_attach_rw "$2"
a=$T_DEV
t_attach_rw "$3"
b=$T_DEV
t_attach_rw "$4"
c=$T_DEV

md=/dev/md0
mdadm --create "$md" --run --metadata=1.0 --level=1 --raid-devices=2 --assume-clean \
	--homehost=pf-boot --name=pfmd "$a" "$b"
# pbkdf2 at its floor: argon2's memory cost would not fit the boot VM, nor its time TCG.
cryptsetup luksFormat -q --type luks2 --uuid "$6" --pbkdf pbkdf2 \
	--pbkdf-force-iterations 1000 --key-file "$5" "$c"
cryptsetup open --key-file "$5" "$c" pfcrypt
cr=/dev/mapper/pfcrypt

for pv in "$md:vgmd" "$cr:vgcrypt"; do
	dev=${pv%:*}
	vg=${pv#*:}
	t_lvm "$dev" pvcreate -q "$dev" --driverloaded n
	t_lvm "$dev" vgcreate -q -s 1m "$vg" "$dev" --driverloaded n
	t_lvm "$dev" lvcreate -q -an -Zn -y -l 100%FREE -n lv "$vg" --driverloaded n
done

# For the real root's mdadm.conf, as Debian's mkconf writes it on an installed system.
mdadm --detail --brief "$md" | sed 's|^ARRAY /dev/md0 |ARRAY /dev/md/pfmd |' >"$dir/mdadm.arrays"
cryptsetup close pfcrypt
mdadm --stop "$md"
for d in "$a" "$b" "$c"; do
	t_detach "$d"
done
sync
echo "stacks made"
