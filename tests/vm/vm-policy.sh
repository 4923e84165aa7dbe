#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: which LVs pvscan-fast autoactivates and what it says, against lvm2 (policy-parity.sh).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir

exec /bin/sh "$top_srcdir/tests/vm/vm-run.sh" --timeout "${VM_TIMEOUT:-1200}" \
	"$top_srcdir/tests/vm/policy-parity.sh"
