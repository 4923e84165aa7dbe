#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check's VM tests: boot the harness and run one guest script (vm-check.sh SCRIPT [OPTS]).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
script=$1
shift

# vm-run.sh exits with the guest script's status: 0 pass, 77 skip (no QEMU or kernel). Its
# time limit is VM_TIMEOUT's, else its own default.
exec /bin/sh "$top_srcdir/tests/vm/vm-run.sh" "$@" "$top_srcdir/tests/vm/$script"
