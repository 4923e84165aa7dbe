#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make demo: what pvscan-fast is for, measured here and now. N loop PVs (default 200), each a
# single-PV VG cloned from an lvm2-made fixture, are hit by N calls released together, as udev
# makes them at boot: once as pvscan-fast's rule runs it, once as lvm2's 69-lvm.rules runs
# lvm2's pvscan, each side in a private mount and PID namespace with a run directory of its
# own (tests/lib/storm-lib.sh). Then a table: wall time, CPU, processes, device reads, and
# whether both left the same state; with RUNS rounds (default 1: about a minute at N=200 on
# two loaded cores), the sides interleaved, the medians. It activates nothing, and says why in
# one line; its VGs are marked not to autoactivate, so that a host whose udev runs lvm2's rule
# does not activate them either. It detaches exactly the loop devices it attached, also when
# interrupted. Root.
#
#   make demo [N=200] [RUNS=1]      (or: N=... RUNS=... scripts/demo.sh)
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
. "$top_srcdir/tests/lib/test-lib.sh"
. "$top_srcdir/tests/lib/storm-lib.sh"
N=${N:-200}
RUNS=${RUNS:-1}

die() {
	echo "demo: $*" >&2
	exit 1
}
case $N in '' | *[!0-9]* | 0*) die "N must be a positive number, not '$N'" ;; esac
case $RUNS in '' | *[!0-9]* | 0*) die "RUNS must be a positive number, not '$RUNS'" ;; esac
[ "$(id -u)" -eq 0 ] || die "needs root, to attach loop devices"
for c in losetup lvm unshare python3 flock; do
	command -v $c >/dev/null 2>&1 || die "needs $c"
done
[ -x "$PVSCAN_FAST" ] && [ -x "$PVSCAN_FAST-engine" ] || die "build first (make)"

[ -t 1 ] && ST_PROGRESS=1
work=$(mktemp -d "${TMPDIR:-/tmp}/pvscan-fast-demo.XXXXXX") || die "no scratch directory"
st_init "$work" || exit 1
work=$ST_WORK
done_msg() {
	_n=$(sort -u "$work/loops" 2>/dev/null | wc -l)
	st_cleanup
	st_progress ""
	[ "$_n" -eq 0 ] || echo "(detached the $_n loop devices it attached)"
}
trap done_msg EXIT
trap 'exit 130' INT TERM HUP

lvm_version=$(LVM_SUPPRESS_FD_WARNINGS=1 lvm version 2>/dev/null |
	sed -n 's/^ *LVM version: *\([^ (]*\).*/\1/p')
medians=""
[ "$RUNS" -eq 1 ] || medians=" Medians of $RUNS rounds."
echo "pvscan-fast demo: $N loop PVs, one VG each, hit by $N calls at once as udev makes them" \
	"at boot: pvscan-fast against lvm2 ${lvm_version:-?}.$medians"
if grep -qw device-mapper /proc/misc 2>/dev/null; then
	why="the demo leaves this host's device-mapper alone"
else
	why="this kernel has no device-mapper"
fi
echo "Activation skipped: $why. Both sides only record the PVs and claim the complete VGs."
echo

st_launcher || exit 1
st_copy_pf || exit 1
st_progress "  making $N PV images (clones of tests/fixtures/single)"
st_clone single "$N" demo --noautoactivate || die "cannot make the PV images"
st_attach "$N" || die "cannot attach the loop devices"
# This host's udev, if it runs, has events of its own to process for them: not while measuring.
if [ -S /run/udev/control ] && command -v udevadm >/dev/null 2>&1; then
	st_progress "  waiting for this host's udev to process the new devices"
	udevadm settle --timeout=120 ||
		echo "demo: this host's udev is still busy after 120 s; measuring anyway" >&2
fi
st_conf "$work/etc" <"$work/slist"
st_stats "$N" "$work/stats"

# As each rule runs them: pvscan-fast's 69-pvscan-fast.rules, lvm2's 69-lvm.rules (the program
# it imports; for a complete VG that rule then runs vgchange, which is not run here). Both get
# udev's environment for the event (-u) and make no device-mapper call (--driverloaded n);
# a VG pvscan-fast's leader would hand to lvm2 goes to /bin/true (st_start).
PF_CMD="pvscan-fast --cache --activate ay --autoactivation event --background --major M --minor m"
LVM2_CMD="pvscan --cache --listvg --checkcomplete --vgonline --autoactivation event --udevoutput"
LVM2_CMD="$LVM2_CMD --journal=output DEV"
side_args() {
	case $1 in
	pf) echo "$ST_PF --cache --activate ay --autoactivation event --background" \
		"--major {maj} --minor {min} --driverloaded n" ;;
	lvm2) echo "lvm $LVM2_CMD --driverloaded n" | sed 's/ DEV / {dev} /' ;;
	esac
}
side_name() {
	case $1 in
	pf) echo "pvscan-fast" ;;
	lvm2) echo "lvm2" ;;
	esac
}

# count DIR: how many entries DIR has (no process: this runs while a storm is measured)
count() {
	set -- "$1"/*
	if [ -e "$1" ]; then echo $#; else echo 0; fi
}

: >"$work/failures"
# run_side SIDE ROUND: one storm; appends "wall_all wall cpu procs reads" to $work/t.SIDE
run_side() {
	_side=$1 _round=$2
	_run="$work/run/$_side.$_round"
	mkdir -p "$_run"
	_r0=$(st_reads "$work/stats")
	# shellcheck disable=SC2046 # the arguments are words without blanks
	st_start "$work/etc" "$_run" "$work/res" "$work/err.$_side.$_round" -p -u "$work/devs" \
		$(side_args "$_side")
	_t0=$(t_now_ms)
	if [ "$ST_PROGRESS" = 1 ]; then
		while kill -0 "$ST_PID" 2>/dev/null; do
			_ms=$(($(t_now_ms) - _t0))
			st_progress "  round $_round/$RUNS, $(side_name "$_side"): $(count \
				"$_run/lvm/pvs_online")/$N PVs online, $((_ms / 1000)).$((_ms % 1000 / 100)) s"
			sleep 0.2
		done
	fi
	st_wait
	_r1=$(st_reads "$work/stats")
	_res=" $(tr '\n' ' ' <"$work/res")"
	_want="rc=0 failed=0 pvs=$N vgs=$N"
	[ "$_side" = pf ] && _want="$_want pending=0 inflight=0 activate=0 lock=free"
	_bad=""
	for _w in $_want; do
		case $_res in *" $_w "*) ;; *) _bad=1 ;; esac
	done
	if [ -n "$_bad" ]; then
		echo "round $_round, $(side_name "$_side"): $_res" >>"$work/failures"
		sed 's/^/    /' "$work/err.$_side.$_round" | head -n 5 >>"$work/failures"
		return
	fi
	echo "$(echo "$_res" | st_field wall_all_s) $(echo "$_res" | st_field wall_s)" \
		"$(echo "$_res" | st_field cpu_s) $(echo "$_res" | st_field procs) $((_r1 - _r0))" \
		>>"$work/t.$_side"
}

: >"$work/t.pf"
: >"$work/t.lvm2"
round=1
while [ "$round" -le "$RUNS" ]; do
	for side in pf lvm2; do
		run_side "$side" "$round"
	done
	round=$((round + 1))
done
st_progress ""

# med SIDE COLUMN: the median of a column over the side's verified rounds
med() { cut -d' ' -f"$2" "$work/t.$1" | st_median; }
# row LABEL COLUMN UNIT FORMAT: pvscan-fast's median, lvm2's, and how many times pvscan-fast's
row() {
	_a=$(med pf "$2") _b=$(med lvm2 "$2")
	awk -v l="$1" -v a="$_a" -v b="$_b" -v u="$3" -v f="$4" 'BEGIN {
		r = (a != "-" && b != "-" && a > 0) ? sprintf("%.1fx", b / a) : "-"
		if (a != "-") a = sprintf(f, a) u
		if (b != "-") b = sprintf(f, b) u
		printf "  %-32s %12s %14s %20s\n", l, a, b, r
	}'
}
printf '  %-32s %12s %14s %20s\n' "" "pvscan-fast" "lvm2 ${lvm_version:-}" \
	"lvm2 / pvscan-fast"
row "until all work was done" 1 " s" "%.2f"
row "until the last call returned" 2 " s" "%.2f"
row "CPU, user+sys" 3 " s" "%.2f"
row "processes started" 4 "" "%d"
row "device reads" 5 "" "%d"
same="differ"
if diff -r "$work/run/pf.1/lvm/pvs_online" "$work/run/lvm2.1/lvm/pvs_online" >/dev/null 2>&1 &&
	diff -r "$work/run/pf.1/lvm/vgs_online" "$work/run/lvm2.1/lvm/vgs_online" >/dev/null 2>&1
then
	same="the same, file for file"
fi
printf '  %-32s %12s %14s   %s\n' "PVs online, VGs claimed" \
	"$(count "$work/run/pf.1/lvm/pvs_online"), $(count "$work/run/pf.1/lvm/vgs_online")" \
	"$(count "$work/run/lvm2.1/lvm/pvs_online"), $(count "$work/run/lvm2.1/lvm/vgs_online")" \
	"$same"
cat <<EOF

  pvscan-fast: $PF_CMD
  lvm2:        lvm $LVM2_CMD
  Each call with udev's environment for its device and --driverloaded n. All work done: until
  the last process ended (pvscan-fast's leader goes on after its call returned: --background).
  CPU and processes: everything the calls started. pvscan-fast's leader hands each complete
  VG to lvm2 (here /bin/true, as --driverloaded n asks): $N of its processes and part of its
  time. lvm2's rule starts a vgchange per complete VG after its pvscan: not run, not counted.
  Device reads: reads completed on the $N loop devices. The VGs are marked not to autoactivate
  (vgchange --setautoactivation n), so that this host's own udev rules activate none of them.
EOF
if [ -s "$work/failures" ]; then
	echo
	echo "Failed rounds (left out of the medians):"
	cat "$work/failures"
	exit 1
fi
for f in "$work"/err.*; do
	[ -s "$f" ] || continue
	echo
	echo "What the calls printed on stderr:"
	cat "$work"/err.* | sort | uniq -c | sort -rn | head -n 10
	break
done
exit 0
