#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A real boot through initramfs-tools with pvscan-fast: the root LV on a SCSI disk beside
# BOOT_N one-PV VGs on their own disks, an initramfs made by mkinitramfs with pvscan-fast's hook
# and local-bottom script (private configuration), root=/dev/mapper/vgroot-root, and systemd
# in the real root with pvscan-fast installed and switched on. The real root's check
# (boot-check.sh) must pass: multi-user reached, no failed unit, every LV active and the fstab
# LVs mounted, no udev worker killed or timed out, no cookie semaphore, pvscan-fast's queue,
# journal and lock free. A failing boot fails at once with the console's end.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib/boot-host.sh"

boot_init initramfs-tools
boot_root pvscan-fast
boot_initramfs_tools pvscan-fast
t_pass "mkinitramfs with pvscan-fast's hook"
if boot_run it-pvscan-fast pvscan-fast "$work/pvscan-fast/initrd-it.img" "quiet panic=1"; then
	t_pass "boot through initramfs-tools with pvscan-fast: every check passed"
else
	t_fail "boot through initramfs-tools with pvscan-fast"
fi
t_done
