#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A real boot through dracut with pvscan-fast, compared with lvm2's reference boot through
# initramfs-tools (boot_lvm2_reference) or, with BOOT_MODES="pvscan-fast lvm2" as make
# check-boot runs it, with the same boot through lvm2's stock dracut path: the disks and real roots of boot-initramfs-tools.sh, an initramfs made by dracut
# (systemd in it; private configuration and module base, --no-hostonly) with the 90pvscan-fast
# module and not dracut's lvm module, or with dracut's lvm module alone. Each real root's
# check (boot-check.sh) must pass as there, and both boots must have left the same dm devices.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib/boot-host.sh"

command -v dracut >/dev/null 2>&1 || t_skip "boot-dracut: needs dracut (dracut-core)"
boot_init dracut
for mode in $BOOT_MODES; do
	boot_root $mode
	boot_dracut $mode
	t_pass "dracut for $mode"
	if boot_run dracut-$mode $mode "$work/$mode/initrd-dracut.img" \
		"quiet panic=1 rd.shell=0 rd.emergency=poweroff"; then
		t_pass "boot through dracut with $mode: every check passed"
	else
		t_fail "boot through dracut with $mode"
	fi
done
case " $BOOT_MODES " in
*" pvscan-fast "*) boot_compare dracut-pvscan-fast dracut-lvm2 ;;
esac
t_done
