#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo (scripts/demo.sh) at N=10: it exits 0 and prints its table (every row, both sides
# with 10 PVs online and 10 VGs claimed, the same state) and one line saying activation is
# skipped; nothing from lvm2 or libdevmapper (warnings, leaked descriptors, /dev/mapper/control)
# and nothing on stderr. Afterwards no loop device it attached is left, nor its scratch
# directory, nor a process. Stopped by SIGTERM while attaching and again in the middle of a
# storm, it still detaches every loop device it attached and leaves nothing running.
# shellcheck disable=SC2154 # top_srcdir comes from test-lib.sh
. "$(dirname "$0")/../lib/test-lib.sh"
t_require lvm unshare python3 flock

# The demo's scratch directory goes into ours (TMPDIR), so what it leaves is found by path.
DEMO_TMP="$T_DIR/demo-tmp"
mkdir -p "$DEMO_TMP"
DEMO_TMP=$(cd -P "$DEMO_TMP" && pwd)

DEMO="$top_srcdir/scripts/demo.sh"

# Loop devices whose backing file is under the demo's scratch area.
demo_loops() {
	grep -lF "$DEMO_TMP/" /sys/block/loop*/loop/backing_file 2>/dev/null |
		sed 's|^/sys/block/\([^/]*\)/.*|/dev/\1|'
}

# Processes whose command line names the demo's scratch area ("[d]": not grep itself).
demo_procs() {
	grep -lsE "${DEMO_TMP%/*}/[d]emo-tmp/" /proc/[0-9]*/cmdline |
		sed 's|^/proc/\([0-9]*\)/cmdline$|\1|'
}

left_nothing() {
	_loops=$(demo_loops)
	if [ -z "$_loops" ]; then
		t_pass "$1: no loop device of the demo left attached"
	else
		t_fail "$1: left attached: $_loops"
		for _l in $_loops; do losetup -d "$_l"; done
	fi
	if [ -z "$(ls -A "$DEMO_TMP")" ]; then
		t_pass "$1: its scratch directory is gone"
	else
		t_fail "$1: left $(ls -A "$DEMO_TMP")"
	fi
	# shellcheck disable=SC2046 # PIDs
	t_wait_gone $(demo_procs)
	if [ -z "$T_LEFT" ]; then
		t_pass "$1: no process of it left"
	else
		t_fail "$1: processes left:$T_LEFT"
	fi
}

# ---- a whole run ----
TMPDIR="$DEMO_TMP" N=10 RUNS=1 sh "$DEMO" >"$T_DIR/out" 2>"$T_DIR/err"
rc=$?
sed 's/^/#   /' "$T_DIR/out"
if [ "$rc" -eq 0 ]; then t_pass "the demo exits 0"; else t_fail "the demo exits $rc"; fi
if [ "$(grep -c '^Activation skipped: ' "$T_DIR/out")" -eq 1 ]; then
	t_pass "one line says activation is skipped, and why"
else
	t_fail "no single 'Activation skipped' line"
fi
for r in "until all work was done" "until the last call returned" "CPU, user.sys" \
	"processes started" "device reads"; do
	if grep -Eq "^  $r +[0-9.]+( s)? +[0-9.]+( s)? +[0-9.]+x\$" "$T_DIR/out"; then
		t_pass "table row: $r"
	else
		t_fail "table row missing or without figures: $r"
	fi
done
if grep -Eq '^  PVs online, VGs claimed +10, 10 +10, 10 +the same, file for file$' \
	"$T_DIR/out"; then
	t_pass "both sides: 10 PVs online, 10 VGs claimed, the same files"
else
	t_fail "state row: $(grep 'PVs online' "$T_DIR/out")"
fi
if grep -Ein 'warning|leaked|mapper/control|libdevmapper|device-mapper driver|stderr|failed' \
	"$T_DIR/out" "$T_DIR/err"; then
	t_fail "a warning from lvm2 or libdevmapper, or a failure, is printed"
else
	t_pass "no warning from lvm2 or libdevmapper"
fi
if [ -s "$T_DIR/err" ]; then
	t_fail "the demo wrote on stderr: $(head -n 3 "$T_DIR/err")"
else
	t_pass "nothing on stderr"
fi
left_nothing "after a run"

# ---- stopped ----
# stop_when LABEL TEST: start the demo, send it SIGTERM once the shell test TEST holds (it looks
# at the demo's scratch area; within 60 s), and see that it ends within 60 s leaving nothing.
stop_when() {
	# the demo's own process, so that the signal is its
	TMPDIR="$DEMO_TMP" N=10 RUNS=1 sh "$DEMO" >"$T_DIR/out.stop" 2>&1 &
	pid=$!
	i=0
	until eval "$2" || [ $i -ge 600 ] || ! kill -0 $pid 2>/dev/null; do
		sleep 0.1
		i=$((i + 1))
	done
	if ! kill -0 $pid 2>/dev/null; then
		t_fail "$1: the demo ended before it could be stopped"
		wait $pid
		return
	fi
	kill -TERM $pid
	i=0
	while kill -0 $pid 2>/dev/null && [ $i -lt 600 ]; do
		sleep 0.1
		i=$((i + 1))
	done
	if kill -0 $pid 2>/dev/null; then
		t_fail "$1: the demo did not end within 60 s of SIGTERM"
		kill -9 $pid
	fi
	wait $pid
	rc=$?
	if [ "$rc" -ne 0 ]; then
		t_pass "$1: stopped (exit $rc)"
	else
		t_fail "$1: exit 0 although stopped"
	fi
	left_nothing "$1"
}
stop_when "SIGTERM while attaching" '[ "$(demo_loops | wc -l)" -ge 3 ]'
stop_when "SIGTERM during a storm" 'ls -d "$DEMO_TMP"/*/run/pf.1/lvm >/dev/null 2>&1'

t_done
