# shellcheck shell=sh disable=SC2154 # top_srcdir, top_builddir, FIXTURES: test-lib.sh
# Storms: N invocations released together on N loop PVs, as udev starts one per device, each
# storm whole in a private mount and PID namespace (storm-ns.sh) and counted by the launcher
# (tests/bench/storm.c): wall time, CPU, processes. For the storm benchmark
# (tests/bench/run-storm.sh) and `make demo` (scripts/demo.sh). Sourced after test-lib.sh.
#
# st_init WORK first; st_cleanup (from the caller's EXIT trap) then stops a storm still running
# and detaches exactly the loop devices st_attach attached, by name, and removes WORK. Loop
# devices are shared with other work on the machine: no other device is ever detached.

ST_WORK=""
ST_PID=""
ST_PROGRESS=""

# st_init WORK: WORK is the caller's scratch directory (a path without symbolic links, as the
# kernel names loop devices' backing files); st_cleanup removes it.
st_init() {
	ST_WORK=$(cd -P "$1" && pwd) || return 1
	: >"$ST_WORK/loops"
	: >"$ST_WORK/devs"
	: >"$ST_WORK/slist"
}

st_cleanup() {
	if [ -n "$ST_PID" ]; then
		# unshare --kill-child: its namespace goes with it
		kill "$ST_PID" 2>/dev/null
		wait "$ST_PID" 2>/dev/null
		ST_PID=""
	fi
	[ -n "$ST_WORK" ] || return 0
	st_detach
	rm -rf "$ST_WORK"
	ST_WORK=""
}

# st_detach: detach every loop device attached so far: those listed, and any whose backing file
# is in WORK (one attached by a losetup that was interrupted before it was listed).
st_detach() {
	[ -f "$ST_WORK/loops" ] || return 0
	for _f in $(grep -lF "$ST_WORK/" /sys/block/loop*/loop/backing_file 2>/dev/null); do
		_f=${_f%/loop/backing_file}
		echo "/dev/${_f##*/}"
	done >>"$ST_WORK/loops"
	sort -u "$ST_WORK/loops" | while read -r _l; do
		losetup -d "$_l" 2>/dev/null
	done
	: >"$ST_WORK/loops"
}

# st_progress TEXT: the progress line, rewritten in place on a terminal (ST_PROGRESS=1).
st_progress() {
	[ "$ST_PROGRESS" = 1 ] && printf '\r%s\033[K' "$1"
	return 0
}

# st_launcher: ST_STORM, the launcher: $STORM, else the built one, else built here (one file,
# libc only).
st_launcher() {
	ST_STORM=${STORM:-$top_builddir/tests/bench/storm}
	[ -x "$ST_STORM" ] && return 0
	printf '#define _GNU_SOURCE 1\n' >"$ST_WORK/config.h"
	${CC:-cc} -O2 -I"$ST_WORK" -o "$ST_WORK/storm" "$top_srcdir/tests/bench/storm.c" ||
		{ echo "cannot build the storm launcher" >&2; return 1; }
	ST_STORM="$ST_WORK/storm"
}

# st_copy_pf: ST_PF, a copy of the built command and its engine beside it: a rebuild during
# the run must not change what is measured or make an exec fail.
st_copy_pf() {
	mkdir -p "$ST_WORK/bin" &&
		cp "$PVSCAN_FAST" "$PVSCAN_FAST-engine" "$ST_WORK/bin/" || return 1
	# shellcheck disable=SC2034 # for the callers
	ST_PF="$ST_WORK/bin/pvscan-fast"
}

# st_clone FIXTURE COUNT PREFIX [OPTION]: COUNT copies of a fixture's VG
# (tests/bench/clone-pvs.py, with its OPTION), listed in WORK/imgs, one image a line, the PVs
# of one copy together.
st_clone() {
	python3 "$top_srcdir/tests/bench/clone-pvs.py" ${4:+"$4"} "$FIXTURES/$1" "$2" \
		"$ST_WORK/img" "$3" >"$ST_WORK/imgs"
}

# st_attach COUNT: attach the first COUNT images of WORK/imgs read-only; each device is listed
# in WORK/loops as soon as it is attached, in WORK/devs as "PATH MAJOR MINOR SEQNUM" (the
# storm's device file; SEQNUM: /sys/kernel/uevent_seqnum just after the attach, as udev would
# give the event) and its number in WORK/slist.
st_attach() {
	_i=0
	head -n "$1" "$ST_WORK/imgs" | while read -r _img; do
		_l=$(losetup -f --show -r "$_img") || exit 1
		echo "$_l" >>"$ST_WORK/loops"
		_k=${_l#/dev/loop}
		_mm=$(cat "/sys/block/loop$_k/dev")
		echo "$_l ${_mm%:*} ${_mm#*:} $(cat /sys/kernel/uevent_seqnum)" >>"$ST_WORK/devs"
		echo "$_k" >>"$ST_WORK/slist"
		_i=$((_i + 1))
		st_progress "  attaching loop devices: $_i/$1"
	done
}

# st_conf DIR: lvm.conf accepting exactly the loop devices whose numbers are on stdin.
st_conf() {
	t_lvm_conf "$1" "/dev/loop($(python3 "$top_srcdir/tests/lib/loop-ranges.py"))"
}

# st_stats COUNT FILE: the sysfs stat files of the first COUNT devices attached, into FILE.
st_stats() {
	head -n "$1" "$ST_WORK/slist" | sed 's|.*|/sys/block/loop&/stat|' >"$2"
}

# st_reads FILE: the sum of "reads completed" over the stat files listed in FILE.
st_reads() {
	# shellcheck disable=SC2046
	awk '{ s += $1 } END { print s + 0 }' $(cat "$1")
}

# st_start ETC RUN_FROM OUT ERR LAUNCHER_ARGS...: start one storm in the background (ST_PID;
# st_wait waits for it) under lvm.conf in ETC, /run as storm-ns.sh makes it from RUN_FROM.
# Its stdout (the launcher's line, then what was left under /run) goes to OUT, the
# invocations' stderr to ERR. pvscan-fast's state is /run/lvm there, and a VG it would hand
# to lvm2 goes to /bin/true.
st_start() {
	_etc=$1 _from=$2 _out=$3 _err=$4
	shift 4
	LVM_SYSTEM_DIR="$_etc" LVM_SUPPRESS_FD_WARNINGS=1 PVSCAN_FAST_LVM=/bin/true \
		PVSCAN_FAST_RUN_DIR=/run/lvm PVSCAN_FAST_LOCK_DIR=/run/lock/lvm \
		unshare --mount --propagation private --pid --fork --kill-child --mount-proc \
		sh "$top_srcdir/tests/lib/storm-ns.sh" "$_from" "$ST_STORM" "$@" \
		>"$_out" 2>"$_err" &
	ST_PID=$!
}

# st_wait: wait for the storm st_start started.
st_wait() {
	wait "$ST_PID"
	ST_PID=""
}

# st_field KEY: the value of KEY in "key=value ..." text on stdin.
st_field() { tr ' \n' '\n\n' | sed -n "s/^$1=//p" | head -n 1; }

# st_median: the median of the numbers on stdin, "-" when none.
st_median() {
	sort -g | awk '{a[NR]=$1} END {if (!NR) print "-"; else if (NR%2) print a[(NR+1)/2];
		else print (a[NR/2]+a[NR/2+1])/2}'
}

# st_largest N...: the largest of the numbers.
st_largest() { echo "$@" | tr ' ' '\n' | sort -n | tail -n 1; }
