#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package's life on a real machine (issue 15): four boots on the same disks, the
# initramfs of each the one the guest itself made last (update-initramfs in the guest, on a
# plain ext4 /boot disk outside LVM the host reads between boots with debugfs, no loop device).
#   1  lvm2's stock path, pvscan-fast not installed: dpkg -i the .deb (lvm2's rule still in
#      charge), pvscan-fast-switch on
#   2  pvscan-fast's initramfs and rule in charge: pvscan-fast-switch off
#   3  lvm2's rule in charge: dpkg --purge pvscan-fast
#   4  lvm2's rule in charge, nothing of pvscan-fast's left (/etc, /usr, /var/lib, initramfs)
# Each boot: boot-check.sh's checks (every LV up, the fstab LVs mounted, no failed unit; with
# pvscan-fast its queue and lock free), and guest-package.sh's: lvm2's own per-device pvscan
# agrees with /run/lvm, pvs_online and vgs_online are pvs's PVs and VGs, and who was in charge.
# The real root: mkroot.sh --dpkg (dpkg, initramfs-tools and their database), no pvscan-fast.
# The .deb: `make deb` once, cached in tests/boot/cache keyed by the staged install and
# debian/; PVSCAN_FAST_DEB=FILE takes that one. SKIP (77) without dpkg-buildpackage, QEMU or
# a kernel.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
# A boot here also runs the guest's steps (dpkg, update-initramfs twice): 11 minutes were
# seen for boot 1 beside two other VMs on 2 cores. Only ends a hang.
: "${BOOT_DEADLINE:=2400}"
. "$top_srcdir/tests/lib/boot-host.sh"

for c in dpkg-deb debugfs lsinitramfs; do
	command -v "$c" >/dev/null 2>&1 || t_skip "boot-package: needs $c"
done
[ -n "${PVSCAN_FAST_DEB:-}" ] || command -v dpkg-buildpackage >/dev/null 2>&1 ||
	t_skip "boot-package: needs dpkg-buildpackage (or PVSCAN_FAST_DEB=FILE)"
BOOT_DPKG=1
boot_init package
[ -r "/boot/config-$kver" ] || t_skip "boot-package: no /boot/config-$kver for mkinitramfs"

# The .deb: built once per staged install and packaging.
deb=${PVSCAN_FAST_DEB:-}
if [ -z "$deb" ]; then
	key=$({
		(cd "$stage" && find . -type f -print | LC_ALL=C sort | xargs cksum)
		(cd "$top_srcdir" && find debian -type f -print | LC_ALL=C sort | xargs cksum)
	} | cksum | cut -d' ' -f1)
	deb=$(ls "$bcache/deb-$key"/pvscan-fast_*.deb 2>/dev/null | head -n 1)
	if [ -z "$deb" ]; then
		rm -rf "$bcache"/deb-*
		if ! make -C "$top_builddir" deb PF_DEB_DIR="$bcache/deb-$key.tmp" \
			>"$work/deb.log" 2>&1; then
			tail -30 "$work/deb.log"
			t_fail "make deb"
			t_done
			exit 1
		fi
		mv "$bcache/deb-$key.tmp" "$bcache/deb-$key"
		deb=$(ls "$bcache/deb-$key"/pvscan-fast_*.deb | head -n 1)
	fi
fi
[ -f "$deb" ] || { t_fail "no .deb: '$deb'"; t_done; exit 1; }
t_pass "the .deb: ${deb##*/}"

# lvm2's boots wait for udev's queue before init-bottom (see boot_lvm2_settle).
boot_lvm2_settle "$work/it-conf"
BOOT_IT_CONF=$work/it-conf

# The real root's additions: the .deb, this test's checks, initramfs-tools set up as the other
# boot tests make their images (the few drivers the machine needs, lz4, the wait above),
# /boot on its disk.
ov=$work/overlay
mkdir -p "$ov/etc/pf-boot/check.d" "$ov/etc/initramfs-tools" "$ov/root" "$ov/boot"
tar -C "$BOOT_IT_CONF" -cf - . | tar -C "$ov/etc/initramfs-tools" -xf -
cp "$top_srcdir/tests/boot/guest-package.sh" "$ov/etc/pf-boot/check.d/package.sh"
cp "$deb" "$ov/root/pvscan-fast.deb"
printf 'MODULES=list\nBUSYBOX=auto\nCOMPRESS=lz4\nCOMPRESSLEVEL=1\nRESUME=none\n' \
	>"$ov/etc/initramfs-tools/initramfs.conf"
# shellcheck disable=SC2086 # one a line
printf '%s\n' $BOOT_DRIVERS >"$ov/etc/initramfs-tools/modules"
echo "LABEL=pfboot /boot ext4 defaults,x-systemd.device-timeout=0 0 0" \
	>"$ov/etc/pf-boot/fstab.add"
boot_root lvm2 "$ov"
boot_initramfs_tools lvm2

# /boot: the kernel update-initramfs builds for (linux-version lists /boot/vmlinuz-*), its
# config, and the first initramfs. The PV disks are copied: this cycle writes them.
mkdir -p "$work/bootfs"
cp "$kernel" "$work/bootfs/vmlinuz-$kver"
cp "/boot/config-$kver" "$work/bootfs/config-$kver"
cp "$work/lvm2/initrd-it.img" "$work/bootfs/initrd.img-$kver"
truncate -s 160M "$work/boot.img"
mkfs.ext4 -q -F -L pfboot -d "$work/bootfs" "$work/boot.img" ||
	{ t_fail "mkfs.ext4 of /boot"; t_done; exit 1; }
# a line's other words (a multipath LUN, a late disk: boot.sh) stay with the copy
tail -n +2 "$work/lvm2/disks" | while read -r img more; do
	cp --sparse=always "$img" "$work/${img##*/}"
	echo "$work/${img##*/}${more:+ $more}"
done >"$work/pvdisks"
{
	head -n 1 "$work/lvm2/disks"
	cat "$work/pvdisks"
	echo "$work/boot.img"
} >"$work/lvm2/disks.new"
mv "$work/lvm2/disks.new" "$work/lvm2/disks"

# initrd_of N: the initramfs now on /boot, for boot N.
initrd_of() {
	debugfs -R "dump /initrd.img-$kver $work/initrd-$1.img" "$work/boot.img" \
		>"$work/debugfs.log" 2>&1 && [ -s "$work/initrd-$1.img" ] ||
		{ cat "$work/debugfs.log"; t_fail "boot $1: no /boot/initrd.img-$kver"; t_done; exit 1; }
}

BOOT_PERSIST=1
start=$(date +%s)
for n in 1 2 3 4; do
	mode=lvm2
	[ "$n" -ne 2 ] || mode=pvscan-fast
	initrd_of "$n"
	if [ "$n" -gt 1 ] && cmp -s "$work/initrd-$n.img" "$work/initrd-$((n - 1)).img"; then
		t_fail "boot $n: the guest did not rebuild its initramfs"
	fi
	# udev.children_max=64: lvm2's rule in an initramfs without systemd needs more workers
	# than PVs (boot-initramfs-tools.sh)
	if boot_run "boot$n-$mode" lvm2 "$work/initrd-$n.img" \
		"quiet panic=1 udev.children_max=64 pf-boot.mode=$mode pf-boot.step=$n"; then
		t_pass "boot $n ($mode in charge): every check passed"
	else
		t_fail "boot $n ($mode in charge)"
		t_done
		exit 1
	fi
done
echo "# the cycle's four boots: $(($(date +%s) - start)) s"
t_done
