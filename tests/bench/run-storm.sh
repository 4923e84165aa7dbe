#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# make bench, the boot case: N single-PV VGs on read-only loop devices and N invocations
# started together (tests/bench/storm), as udev starts one per device, for pvscan-fast's two
# udev forms, lvm2's two, one full pvscan-fast --cache and a floor of N no-op processes;
# then a trickle: devices attached one at a time, one invocation after each. Medians of
# STORM_RUNS runs, interleaved. Needs root.
#
#   STORM_N="100 500 1000" STORM_RUNS=5 TRICKLE_N="100 300" [STORM_VARIANTS="a b e f"] \
#       tests/bench/run-storm.sh
#
# Every storm runs whole in a private mount and PID namespace with a fresh tmpfs on /run, so
# both tools start from empty state, as at boot (lvm2 compiles /run/lvm in), and the launcher
# counts every process created. pvscan-fast's state is checked after each of its storms.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
PF_BUILT="$top_builddir/pvscan-fast/pvscan-fast"
LVM=${LVM:-lvm}
NS=${STORM_N:-"100 500 1000"}
RUNS=${STORM_RUNS:-5}
TRICKLE=${TRICKLE_N:-"100 300"}
OUT=${STORM_OUT:-$top_builddir/bench-storm.md}
# STORM_VARIANTS: a subset (lvm2's c and d at 10000 devices need more memory than 2 CPUs' worth
# of machine has: one lvm2 process per device, all at once)
VARIANTS=${STORM_VARIANTS:-"a b c d e f g h"}
. "$top_srcdir/tests/lib/test-lib.sh"
. "$top_srcdir/tests/lib/storm-lib.sh"

[ "$(id -u)" -eq 0 ] || { echo "storm: needs root (loop devices)"; exit 77; }
if [ ! -x "$PF_BUILT" ] || [ ! -x "$PF_BUILT-engine" ]; then
	echo "storm: build $PF_BUILT and $PF_BUILT-engine first"
	exit 1
fi
LVM=$(command -v "$LVM") || { echo "storm: lvm2 not installed"; exit 77; }
for c in unshare flock losetup python3; do
	command -v $c >/dev/null || { echo "storm: $c not found"; exit 77; }
done

started=$(date +%s)
work=$(mktemp -d /tmp/pvscan-fast-storm.XXXXXX)
# Every loop device attached is listed in $work/loops at once (the trickle attaches from inside
# a namespace), so the trap detaches exactly those, by name.
st_init "$work" || exit 1
work=$ST_WORK
trap st_cleanup EXIT
trap 'exit 130' INT TERM HUP

st_copy_pf || exit 1
PF=$ST_PF
st_launcher || exit 1
STORM=$ST_STORM

ratio() {
	awk -v a="$1" -v b="$2" 'BEGIN {
		if (a != "-" && b > 0)
			printf "%.2f", a / b
		else
			print "-"
	}'
}
: >"$work/failures"
fail() {
	echo "storm: VERIFY FAILED: $*" >&2
	echo "- VERIFY FAILED: $*" >>"$work/failures"
}

st_clone single "$(st_largest "$NS" "$TRICKLE")" s || exit 1

variant_name() {
	case $1 in
	a) echo "a: pvscan-fast, udev form" ;;
	b) echo "b: pvscan-fast, -aay --major --minor" ;;
	c) echo "c: lvm2, udev form" ;;
	d) echo "d: lvm2, -aay --major --minor" ;;
	e) echo "e: one pvscan-fast --cache" ;;
	f) echo "f: floor, N x /bin/true" ;;
	g) echo "g: a, with udev's environment" ;;
	h) echo "h: b, with udev's environment" ;;
	esac
}

# run_one VARIANT N RUN: one storm in its own namespace; appends
# "wall cpu procs reads ok vgs wall_all" to $work/t.N.VARIANT
run_one() {
	v=$1 n=$2 run=$3
	count=$n
	env=""
	case $v in
	a | g) set -- "$PF" --cache --listvg --checkcomplete --vgonline --autoactivation event \
		--udevoutput '{dev}' ;;
	b | h) set -- "$PF" --cache -aay --major '{maj}' --minor '{min}' ;;
	c) set -- "$LVM" pvscan --cache --listvg --checkcomplete --vgonline --autoactivation event \
		--udevoutput '{dev}' --driverloaded n ;;
	d) set -- "$LVM" pvscan --cache -aay --major '{maj}' --minor '{min}' --driverloaded n ;;
	e) set -- "$PF" --cache
	   count=1 ;;
	f) set -- /bin/true '{dev}' ;;
	esac
	case $v in g | h) env=-u ;; esac
	r0=$(st_reads "$work/stats.$n")
	# shellcheck disable=SC2086
	st_start "$work/etc.$n" "" "$work/res" "$work/err" -p $env -n "$count" "$work/devs" "$@"
	st_wait
	r1=$(st_reads "$work/stats.$n")
	res=$(tr '\n' ' ' <"$work/res")
	wall=$(echo "$res" | st_field wall_s)
	bad=""
	if [ -z "$wall" ] || [ "$(echo "$res" | st_field rc)" != 0 ] ||
		[ "$(echo "$res" | st_field failed)" != 0 ]; then
		bad="storm: $res"
	else
		case $v in
		a | b | g | h)
			echo "$res" | grep -q "pvs=$n vgs=$n pending=0 inflight=0 activate=0" &&
				echo "$res" | grep -q "lock=free" ||
				bad="state after the storm: $res" ;;
		e)
			echo "$res" | grep -q "pvs=$n .* pending=0 inflight=0 activate=0" &&
				echo "$res" | grep -q "lock=free" ||
				bad="state after the scan: $res" ;;
		c | d)
			[ "$(echo "$res" | st_field pvs)" = "$n" ] || bad="lvm2's pvs_online: $res" ;;
		esac
	fi
	if [ -n "$bad" ]; then
		fail "N=$n variant $v run $run: $bad;" \
			"stderr: $(tail -n 5 "$work/err" | tr '\n' ' ')"
		echo "- - - $((r1 - r0)) 0 - -" >>"$work/t.$n.$v"
		return
	fi
	vgs=$(echo "$res" | st_field vgs)
	[ "$v" = f ] && vgs=-
	echo "$wall $(echo "$res" | st_field cpu_s) $(echo "$res" | st_field procs) $((r1 - r0)) 1" \
		"$vgs $(echo "$res" | st_field wall_all_s)" >>"$work/t.$n.$v"
}

lvm_version=$(LVM_SUPPRESS_FD_WARNINGS=1 "$LVM" version 2>/dev/null |
	sed -n 's/^ *LVM version: *//p')
{
	echo "pvscan-fast $("$PF" --version | cut -d' ' -f2) vs lvm2 $lvm_version, $(nproc) CPUs," \
		"$(uname -r), $(date -u +%Y-%m-%d); load average at the start:" \
		"$(cut -d' ' -f1-3 /proc/loadavg)"
	echo
	echo "    STORM_N=\"$NS\" STORM_RUNS=$RUNS TRICKLE_N=\"$TRICKLE\"" \
		"STORM_VARIANTS=\"$VARIANTS\" tests/bench/run-storm.sh"
	echo
	cat <<EOF
Storm: N single-PV VGs, N invocations released together (e: one process). Medians of
$RUNS runs, interleaved. wall: from the release to the last invocation's exit (what udev
waits for); all: to the last process's exit, including pvscan-fast's detached reader.
CPU (user+sys) and processes: every process the storm created. Device reads: sum of the
loop devices' reads completed, median [min-max]. PVSCAN_FAST_LVM=/bin/true: pvscan-fast's
activations count as processes only. lvm2's udev form activates nothing (its rule runs
vgchange afterwards). g, h: as udev runs them, with ACTION, SEQNUM, MAJOR, MINOR set
(SEQNUM: /sys/kernel/uevent_seqnum just after the device was attached).

| N | variant | wall s | all s | CPU s | processes | device reads | vgs_online |\
 wall / c | CPU / c | wall / e | verified |
|---|---|---|---|---|---|---|---|---|---|---|---|
EOF
} >"$work/table"
cat "$work/table"

# --- the storm: attach once for the largest N, each N uses the first N devices ----------------
st_attach "$(st_largest "$NS")" || { echo "storm: cannot attach the loop devices"; exit 1; }
for n in $NS; do
	head -n "$n" "$work/slist" | st_conf "$work/etc.$n"
	st_stats "$n" "$work/stats.$n"
done

for n in $NS; do
	run=1
	while [ $run -le "$RUNS" ]; do
		for v in $VARIANTS; do
			run_one "$v" "$n" "$run"
		done
		run=$((run + 1))
	done
	# median of column $2 of variant $1 over its verified runs
	med() { awk -v c="$2" '$5 == 1 { print $c }' "$work/t.$n.$1" | st_median; }
	c_wall=$(med c 1) c_cpu=$(med c 2) e_wall=$(med e 1)
	for v in $VARIANTS; do
		wall=$(med "$v" 1) cpu=$(med "$v" 2)
		range=$(cut -d' ' -f4 "$work/t.$n.$v" | sort -n | sed -n '1p;$p' | paste -sd-)
		vgs=$(awk '$5 == 1 { print $6 }' "$work/t.$n.$v" | sort -u | paste -sd/)
		okc=$(awk '{ s += $5 } END { print s + 0 }' "$work/t.$n.$v")
		printf '| %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n' "$n" \
			"$(variant_name "$v")" "$wall" "$(med "$v" 7)" "$cpu" "$(med "$v" 3)" \
			"$(med "$v" 4) [$range]" \
			"${vgs:--}" "$(ratio "$wall" "$c_wall")" "$(ratio "$cpu" "$c_cpu")" \
			"$(ratio "$wall" "$e_wall")" "$okc/$RUNS" | tee -a "$work/table"
	done
done
st_detach

# --- the trickle: attach one at a time, one invocation of each tool after each attach --------
# Runs whole in one namespace: both tools keep their state across the attaches, pvscan-fast
# under /run/pf, lvm2 under /run/lvm, and the filter grows with every device attached.
cat >"$work/trickle.sh" <<'EOF'
work=$1 maxn=$2 checkpoints=$3 STORM=$4 PF=$5 LVM=$6 top_srcdir=$7
. "$top_srcdir/tests/lib/test-lib.sh"
. "$top_srcdir/tests/lib/storm-lib.sh"
mount -t tmpfs -o mode=0755 pvscan-fast-storm /run || exit 1
export PVSCAN_FAST_RUN_DIR=/run/pf/lvm PVSCAN_FAST_LOCK_DIR=/run/pf/lock
export LVM_SYSTEM_DIR="$work/etc.trickle" PVSCAN_FAST_LVM=/bin/true LVM_SUPPRESS_FD_WARNINGS=1
count() { if [ -d "$1" ]; then ls -A "$1" | wc -l; else echo 0; fi; }
reads() { st_reads "$work/stats.trickle"; }
: >"$work/stats.trickle"
: >"$work/tlist"
mkdir -p "$work/etc.trickle"
i=0
head -n "$maxn" "$work/imgs" | while read -r img; do
	i=$((i + 1))
	l=$(losetup -f --show -r "$img") || exit 1
	echo "$l" >>"$work/loops"
	k=${l#/dev/loop}
	mm=$(cat "/sys/block/loop$k/dev")
	echo "$l ${mm%:*} ${mm#*:}" >"$work/tdev"
	echo "/sys/block/loop$k/stat" >>"$work/stats.trickle"
	echo "$k" >>"$work/tlist"
	st_conf "$work/etc.trickle" <"$work/tlist"
	r0=$(reads)
	p=$("$STORM" -p "$work/tdev" "$PF" --cache -aay --major '{maj}' --minor '{min}' \
		2>>"$work/err.trickle")
	r1=$(reads)
	q=$("$STORM" -p "$work/tdev" "$LVM" pvscan --cache --listvg --checkcomplete --vgonline \
		--autoactivation event --udevoutput '{dev}' --driverloaded n 2>>"$work/err.trickle")
	r2=$(reads)
	echo "$i $((r1 - r0)) $(echo "$p" | st_field cpu_s) $(echo "$p" | st_field wall_s)" \
		"$(echo "$p" | st_field failed) $((r2 - r1)) $(echo "$q" | st_field cpu_s)" \
		"$(echo "$q" | st_field wall_s) $(echo "$q" | st_field failed)" >>"$work/trickle.steps"
	case " $checkpoints " in
	*" $i "*)
		d=/run/pf/lvm
		echo "n=$i pvs=$(count $d/pvs_online) vgs=$(count $d/vgs_online)" \
			"pending=$(count $d/pvscan-fast/pending)" \
			"inflight=$(count $d/pvscan-fast/inflight)" \
			"activate=$(count $d/pvscan-fast/activate)" \
			"lock=$(flock -n /run/pf/lock/pvscan-fast.leader true &&
				echo free || echo held)" \
			"lvm2_pvs=$(count /run/lvm/pvs_online)" ;;
	esac
done
EOF
tmax=$(st_largest "$TRICKLE")
: >"$work/trickle.steps"
if [ "${tmax:-0}" -gt 0 ]; then
	unshare --mount --propagation private --pid --fork --mount-proc \
		sh "$work/trickle.sh" "$work" "$tmax" "$TRICKLE" "$STORM" "$PF" "$LVM" "$top_srcdir" \
		>"$work/trickle.out" 2>&1 || fail "trickle: $(tail -n 5 "$work/trickle.out")"
	cat <<EOF | tee -a "$work/table"

Trickle: devices attached one at a time into empty state, one invocation after each
attach (pvscan-fast: --cache -aay --major M --minor m; lvm2: the udev form, with
--driverloaded n), each run to completion. Totals over the N attaches; reads are the sum
of reads completed over every device attached so far; max = most reads by one call.

| N | tool | device reads | reads / device | max reads, one call | CPU s | CPU ms / device |\
 wall s |
|---|---|---|---|---|---|---|---|
EOF
	for n in $TRICKLE; do
		line=$(grep "^n=$n " "$work/trickle.out")
		if [ -z "$line" ]; then
			fail "trickle N=$n did not complete: $(tail -n 5 "$work/trickle.out")"
			continue
		fi
		echo "$line" | grep -q "pvs=$n vgs=$n pending=0 inflight=0 activate=0 lock=free" ||
			fail "trickle N=$n, pvscan-fast state: $line"
		echo "$line" | grep -q "lvm2_pvs=$n\$" || fail "trickle N=$n, lvm2 state: $line"
		head -n "$n" "$work/trickle.steps" | awk -v n="$n" '
		{
			pr += $2; pc += $3; pw += $4; pf += $5
			lr += $6; lc += $7; lw += $8; lf += $9
			if ($2 > pm)
				pm = $2
			if ($6 > lm)
				lm = $6
		}
		END {
			row = "| %d | %s | %d | %.2f | %d | %.3f | %.2f | %.3f |\n"
			printf row, n, "pvscan-fast", pr, pr / n, pm, pc, pc * 1000 / n, pw
			printf row, n, "lvm2", lr, lr / n, lm, lc, lc * 1000 / n, lw
			if (pf || lf)
				printf "- VERIFY FAILED: trickle N=%d: failed calls:" \
					" %d pvscan-fast, %d lvm2\n", n, pf, lf > "/dev/stderr"
		}' 2>>"$work/failures" | tee -a "$work/table"
	done
	st_detach
fi

{
	echo
	echo "Run took $(($(date +%s) - started)) s; load average at the end:" \
		"$(cut -d' ' -f1-3 /proc/loadavg)"
	if [ -s "$work/failures" ]; then
		echo
		echo "Verification failures:"
		echo
		cat "$work/failures"
	fi
} | tee -a "$work/table"
cp "$work/table" "$OUT"
echo
echo "table written to $OUT"
[ ! -s "$work/failures" ]
