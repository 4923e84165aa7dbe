#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A real boot through initramfs-tools with pvscan-fast, and the same boot with lvm2's stock path
# to compare with (the cached reference, boot_lvm2_reference; this test's own with
# BOOT_MODES="pvscan-fast lvm2", as make check-boot runs it). The disks:
# the root LV on a SCSI disk beside BOOT_N one-PV VGs on their own disks. pvscan-fast's boot:
# an initramfs made by mkinitramfs with pvscan-fast's hook and local-bottom script (private
# configuration), systemd in the real root with pvscan-fast installed and switched on. lvm2's:
# the same generator with Debian's lvm2 hook alone (and a wait for udev's queue before udev is
# stopped: boot_lvm2_settle) and a real root without pvscan-fast, with more udev workers than
# PVs (see below: with udevd's default it never finds the root). Kernel command line
# root=/dev/mapper/vgroot-root. Each real root's check (boot-check.sh) must pass: multi-user
# reached, no failed unit, every LV active and the fstab LVs mounted, no udev worker killed or
# timed out, no cookie semaphore; for pvscan-fast also its queue, journal and lock free. Then
# both boots must have left the same dm devices: names, UUIDs, tables. A failing boot fails at
# once with the console's end.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib/boot-host.sh"

boot_init initramfs-tools
for mode in $BOOT_MODES; do
	boot_root $mode
	BOOT_IT_CONF=""
	if [ $mode = lvm2 ]; then
		boot_lvm2_settle "$work/lvm2-settle"
		BOOT_IT_CONF=$work/lvm2-settle
	fi
	boot_initramfs_tools $mode
	t_pass "mkinitramfs for $mode"
	# Without systemd lvm2's rule runs vgchange in the udev worker, which waits for the dm
	# events only another worker can process: with as many PVs as workers (udevd's default
	# is 10 at 1 GiB) none is left and the root never appears. More workers let it boot.
	words="quiet panic=1"
	[ $mode = pvscan-fast ] || words="$words udev.children_max=64"
	if boot_run it-$mode $mode "$work/$mode/initrd-it.img" "$words"; then
		t_pass "boot through initramfs-tools with $mode: every check passed"
	else
		t_fail "boot through initramfs-tools with $mode"
	fi
done
case " $BOOT_MODES " in
*" pvscan-fast "*) boot_compare it-pvscan-fast it-lvm2 ;;
esac
t_done
