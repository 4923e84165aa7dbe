#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make check: issue 13's fault matrix at small N (guest-faults.sh): a PV whose reads hang, one
# returning EIO, one deleted mid-scan, leaders killed or stopped at injected steps, each among
# single-PV VGs at coldplug, with the installed udev rule.
#
#   tests/vm/vm-faults.sh [VM-RUN OPTIONS...]
#
# FAULTS_N (10) and the other FAULTS_* of guest-faults.sh pass through to the guest; the full
# matrix is `make bench-faults` (tests/bench/run-bench-faults.sh).
# The PV images are cloned here, natively (python under TCG is slow), and handed over as a
# sparse tar in the build tree.
set -eu

. "$(dirname "$0")/../lib/vm-host.sh"
vm_host_init faults
single="$top_srcdir/tests/fixtures/single"
n=${FAULTS_N:-8}
python3 "$clone" "$single" "$n" "$dir/img" mv >/dev/null
for p in fh fe fg; do
	python3 "$clone" "$single" 1 "$dir/img" "$p" >/dev/null
done
# a second VG named mv00000 with other UUIDs (clone-pvs.py seeds by fixture name and prefix)
mkdir "$dir/single-dup"
cp "$single"/* "$dir/single-dup/"
python3 "$clone" "$dir/single-dup" 1 "$dir/dup" mv >/dev/null
rm -rf "$dir/single-dup"
mv "$dir/dup/mv00000-d1.img" "$dir/img/dup-d1.img"
# hostile PVs at the per-PV caps for the capped case: dm tables over three shared files
python3 "$top_srcdir/tests/bench/capped-pvs.py" "${FAULTS_CAPPED:-8}" "$dir/img/capped" ev >/dev/null
(cd "$dir/img" && tar -cSf "$dir/images.tar" -- *.img capped)
rm -rf "$dir/img" "$dir/dup"

# FAULTS_* to the guest: the script's own arguments go after vm-run.sh's options.
script="$top_srcdir/tests/vm/guest-faults.sh"
set -- --udev-children-max 8 "$@"
for v in FAULTS_N FAULTS_CASES FAULTS_STEPS FAULTS_ACTIONS FAULTS_SCAN_TIMEOUT FAULTS_DEADLINE \
	FAULTS_GONE_DELAY FAULTS_STRICT FAULTS_KILLS; do
	eval "val=\${$v:-}"
	[ -z "$val" ] || set -- "$@" --env "$v=$(printf '%s' "$val" | tr '\n' ' ')"
done
rc=0
/bin/sh "$top_srcdir/tests/vm/vm-run.sh" "$@" "$script" "$dir/images.tar" || rc=$?
exit "$rc"
