#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench-faults: issue 13's fault matrix at full size in the VM (tests/vm/guest-faults.sh):
# FAULTS_N (200) single-PV VGs, every case, every injected step, SIGKILL and SIGTERM, and
# FAULTS_CAPPED (1000) hostile PVs at the per-PV caps. Prints the
# guest's output and writes the table of docs/faults.md to tests/bench/bench-faults.md (the
# output to tests/bench/bench-faults.out). Under TCG this takes about an hour at N=200.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
export top_srcdir top_builddir
: "${FAULTS_N:=200}"
: "${FAULTS_CASES:=none hang eio gone garbage runfull sigchld dupname capped kill}"
# 1000 hostile PVs at the per-PV caps at once (issue 13)
: "${FAULTS_CAPPED:=1000}"
# every step with every action, unless FAULTS_KILLS names the STEP:ACTION pairs
[ -n "${FAULTS_KILLS:-}" ] || : "${FAULTS_STEPS:=all}"
: "${FAULTS_DEADLINE:=600}"
: "${VM_TIMEOUT:=14400}"
export FAULTS_N FAULTS_CASES FAULTS_CAPPED FAULTS_DEADLINE VM_TIMEOUT
[ -z "${FAULTS_STEPS:-}" ] || export FAULTS_STEPS
out=$top_builddir/tests/bench/bench-faults.out
md=$top_builddir/tests/bench/bench-faults.md
mkdir -p "$(dirname "$out")"
rc=0
/bin/sh "$top_srcdir/tests/vm/vm-faults.sh" --mem "${FAULTS_MEM:-2048}" "$@" 2>&1 |
	tee "$out" || rc=$?
{
	echo "| Fault | VGs up / expected | s to all unaffected VGs up | queue/journal left | semaphores left | lock free | notes |"
	echo "| --- | --- | --- | --- | --- | --- | --- |"
	sed -n 's/^ROW|//p' "$out" | awk -F'|' '{ printf "| %s | %s | %s | %s | %s | %s | %s |\n",
		$1, $2, $3, $4, $5, $6, $7 }'
} >"$md"
echo "run-bench-faults: table in $md, output in $out (FAULTS_N=$FAULTS_N)"
grep -E '^[0-9]+ passed' "$out" || true
exit "$rc"
