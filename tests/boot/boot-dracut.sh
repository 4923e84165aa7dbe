#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# A real boot through dracut with pvscan-fast: the disks and real root of
# boot-initramfs-tools.sh, an initramfs made by dracut (systemd in it) with the 90pvscan-fast
# module and not dracut's lvm module (private configuration and module base, --no-hostonly).
# The real root's check (boot-check.sh) must pass as there.
: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
. "$top_srcdir/tests/lib/boot-host.sh"

command -v dracut >/dev/null 2>&1 || t_skip "boot-dracut: needs dracut (dracut-core)"
boot_init dracut
boot_root pvscan-fast
boot_dracut pvscan-fast
t_pass "dracut with the 90pvscan-fast module"
if boot_run dracut-pvscan-fast pvscan-fast "$work/pvscan-fast/initrd-dracut.img" \
	"quiet panic=1 rd.shell=0 rd.emergency=poweroff"; then
	t_pass "boot through dracut with pvscan-fast: every check passed"
else
	t_fail "boot through dracut with pvscan-fast"
fi
t_done
