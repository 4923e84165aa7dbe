#!/bin/sh
# make bench: pvscan-fast --cache against lvm2's pvscan --cache and an I/O-only
# floor, side by side in one run on the same loop devices. Each N is a set of
# single-PV VGs cloned from an lvm2-made fixture (plus one mixed set of 3-PV
# VGs with striped LVs). Medians of RUNS runs, interleaved. Needs root.
#
#   BENCH_N="100 500 1000" BENCH_RUNS=5 BENCH_MIXED=300 tests/bench/run-bench.sh
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
PF="$top_builddir/pvscan-fast/pvscan-fast"
FLOOR="$top_builddir/tests/bench/floor"
LVM=${LVM:-lvm}
NS=${BENCH_N:-"100 500 1000"}
RUNS=${BENCH_RUNS:-5}
MIXED=${BENCH_MIXED:-300}
OUT=${BENCH_OUT:-$top_builddir/bench-results.md}
. "$top_srcdir/tests/lib/test-lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "bench: needs root (loop devices)"; exit 77; }
for c in "$PF" "$FLOOR"; do [ -x "$c" ] || { echo "bench: build $c first"; exit 1; }; done
command -v "$LVM" >/dev/null || { echo "bench: lvm2 not installed"; exit 77; }

work=$(mktemp -d /tmp/pvscan-fast-bench.XXXXXX)
loops=""
cleanup() {
	for l in $loops; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# median of the numbers on stdin
median() { sort -n | awk '{a[NR]=$1} END {if (NR%2) print a[(NR+1)/2]; else print (a[NR/2]+a[NR/2+1])/2}'; }

# measure TOOL: one run, appends "wall cpu rss_kib" to $work/TOOL.times. Wall is taken in
# milliseconds around GNU time (whose own %e has 10 ms steps, too coarse for 0.1 s runs), so
# it includes starting time itself, the same for every tool.
measure() {
	tool=$1
	shift
	t0=$(date +%s%N)
	/usr/bin/time -f "%U %S %M" -o "$work/t" "$@" >/dev/null 2>"$work/$tool.err" ||
		{ echo "bench: $tool failed:"; cat "$work/$tool.err"; }
	t1=$(date +%s%N)
	awk -v ns=$((t1 - t0)) '{printf "%.3f %.3f %s\n", ns / 1e9, $1 + $2, $3}' "$work/t" \
		>>"$work/$tool.times"
}

run_set() {
	label=$1 fixture=$2 copies=$3
	rm -rf "$work/img" "$work"/*.times
	python3 "$top_srcdir/tests/bench/clone-pvs.py" "$fixture" "$copies" "$work/img" b >"$work/imgs" ||
		exit 1
	set_loops=""
	while read -r img; do
		l=$(losetup -f --show -r "$img") || exit 1
		loops="$loops $l"
		set_loops="$set_loops $l"
	done <"$work/imgs"
	n=$(echo $set_loops | wc -w)
	alt=$(echo $set_loops | tr ' ' '\n' | sed 's|/dev/loop||' | paste -sd'|')
	t_lvm_conf "$work/etc" "/dev/loop($alt)"
	export LVM_SYSTEM_DIR="$work/etc" LVM_SUPPRESS_FD_WARNINGS=1
	unset PVSCAN_FAST_RUN_DIR PVSCAN_FAST_LOCK_DIR
	i=0
	while [ $i -lt "$RUNS" ]; do
		# Both write their state to /run/lvm on a fresh private tmpfs, as at
		# boot (lvm2 compiles the path in; pvscan-fast uses its default).
		measure pvscan-fast unshare --mount --propagation private sh -c \
			'mount -t tmpfs none /run && exec "$@"' x "$PF" --cache
		measure lvm2 unshare --mount --propagation private sh -c \
			'mount -t tmpfs none /run && exec "$@"' x "$LVM" pvscan --cache --driverloaded n
		# The floor under the same wrapper, so the namespace and mount cost
		# is on every side of the comparison.
		# shellcheck disable=SC2086
		measure floor unshare --mount --propagation private sh -c \
			'mount -t tmpfs none /run && exec "$@"' x "$FLOOR" $set_loops
		i=$((i + 1))
	done
	pf_wall=$(cut -d' ' -f1 "$work/pvscan-fast.times" | median)
	for tool in pvscan-fast lvm2 floor; do
		wall=$(cut -d' ' -f1 "$work/$tool.times" | median)
		cpu=$(cut -d' ' -f2 "$work/$tool.times" | median)
		rss=$(cut -d' ' -f3 "$work/$tool.times" | median)
		ratio=$(awk -v a="$wall" -v b="$pf_wall" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "-" }')
		printf '| %s | %s | %s | %s | %s | %s |\n' "$label ($n PVs)" "$tool" "$wall" "$cpu" \
			"$((rss / 1024))" "$ratio" | tee -a "$OUT"
	done
	for l in $set_loops; do losetup -d "$l"; done
	loops=""
}

{
	echo "pvscan-fast $("$PF" --version | cut -d' ' -f2) vs $("$LVM" version | sed -n 's/^ *LVM version: *//p'), $(nproc) CPUs, $(uname -r), $(date -u +%Y-%m-%d)"
	echo "medians of $RUNS runs; wall and CPU (user+sys) in seconds; ratio = wall / pvscan-fast's wall"
	echo
	echo "| set | tool | wall s | CPU s | peak RSS MiB | wall ratio |"
	echo "|---|---|---|---|---|---|"
} | tee "$OUT"
for n in $NS; do
	run_set "single-PV VGs" "$top_srcdir/tests/fixtures/single" "$n"
done
if [ "$MIXED" -gt 0 ]; then
	run_set "mixed: 3-PV VGs, striped LVs" "$top_srcdir/tests/fixtures/three-pv" $((MIXED / 3))
fi
echo
echo "table written to $OUT"
