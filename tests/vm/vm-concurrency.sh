#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: lvm2 commands racing pvscan-fast's activation on a real kernel (concurrency.sh).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir

exec /bin/sh "$top_srcdir/tests/vm/vm-run.sh" --timeout "${VM_TIMEOUT:-900}" \
	"$top_srcdir/tests/vm/concurrency.sh"
