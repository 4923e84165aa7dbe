#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: boot the VM harness once and run selftest.sh in it (skips without QEMU/kernel).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir

# vm-run.sh exits with the guest script's status: 0 pass, 77 skip (no QEMU or kernel),
# anything else fail. null_blk exercises --modules and the udev coldplug trigger.
exec /bin/sh "$top_srcdir/tests/vm/vm-run.sh" --modules null_blk --timeout "${VM_TIMEOUT:-600}" \
	"$top_srcdir/tests/vm/selftest.sh"
