# shellcheck shell=sh
# Shared helpers for the shell integration tests: prerequisites (exit 77 = skip),
# a private scratch directory, loop devices that are always detached again, lvm.conf for
# exactly the test's devices, pvscan-fast's queue. The VM guest scripts, the benchmarks and
# the demo source it too, for the helpers that need no scratch directory.
#
# Loop devices are shared with other work on the machine: only devices attached
# here are ever detached, by name.

: "${top_srcdir:=$(cd "$(dirname "$0")/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
PVSCAN_FAST="$top_builddir/pvscan-fast/pvscan-fast"
FIXTURES="$top_srcdir/tests/fixtures"

T_LOOPS=""
T_DIR=""
T_BLOCKFS_PID=""
T_BLOCKFS_MNT=""
T_FAILS=0
T_PASSES=0

t_skip() {
	echo "SKIP: $*"
	exit 77
}

t_cleanup() {
	t_blockfs_stop
	for l in $T_LOOPS; do
		losetup -d "$l" 2>/dev/null || true
	done
	T_LOOPS=""
	[ -n "$T_DIR" ] && rm -rf "$T_DIR"
	T_DIR=""
}

# Prerequisites: root, loop devices, and the listed commands.
t_require() {
	[ "$(id -u)" -eq 0 ] || t_skip "needs root"
	command -v losetup >/dev/null 2>&1 || t_skip "needs losetup"
	[ -e /dev/loop-control ] || modprobe loop 2>/dev/null || true
	[ -e /dev/loop-control ] || t_skip "no loop device support"
	for c in "$@"; do
		command -v "$c" >/dev/null 2>&1 || t_skip "needs $c"
	done
	[ -x "$PVSCAN_FAST" ] || { echo "FAIL: $PVSCAN_FAST not built"; exit 1; }
	T_DIR=$(mktemp -d "${TMPDIR:-/tmp}/pvscan-fast-test.XXXXXX")
	trap t_cleanup EXIT
	trap 'exit 130' INT TERM HUP PIPE
}

# The test builds (tests/inject/), which honour PVSCAN_FAST_INJECT: the command in PFI, its
# engine beside it.
t_require_inject() {
	PFI="$top_builddir/tests/inject/pvscan-fast"
	for _b in "$PFI" "$PFI-engine"; do
		[ -x "$_b" ] || {
			echo "FAIL: $_b not built (make tests/inject/pvscan-fast{,-engine})"
			exit 1
		}
	done
}

# Attach an image file read-only; the loop device is left in T_DEV (no subshell,
# so the cleanup list stays complete).
t_attach() {
	T_DEV=$(losetup -f --show -r "$1") || { echo "FAIL: cannot attach $1" >&2; exit 1; }
	T_LOOPS="$T_LOOPS $T_DEV"
}

# t_attach_rw FILE [LOSETUP_OPTS]: a writable loop device for a scratch image, in T_DEV
# (detached by t_cleanup, as t_attach's).
t_attach_rw() {
	# shellcheck disable=SC2086
	T_DEV=$(losetup -f --show ${2:-} "$1") || { echo "FAIL: cannot attach $1" >&2; exit 1; }
	T_LOOPS="$T_LOOPS $T_DEV"
}

t_detach() {
	losetup -d "$1"
	T_LOOPS=$(echo "$T_LOOPS" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
}

# Unpack a fixture's image into the scratch directory, keeping it sparse.
t_unpack() {
	out="$T_DIR/$2"
	xz -dc "$1" | dd of="$out" bs=64k conv=sparse status=none
	echo "$out"
}

# t_make_var NAME: a make variable of the build tree's Makefile (install paths, as make knows
# them).
t_make_var() {
	# shellcheck disable=SC2016 # $(...) is make's, not the shell's
	# (make check -j hands its MAKEFLAGS down: they would add directory lines to the value)
	printf 'pf-print-var:\n\t@echo $(%s)\n' "$1" |
		env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -s --no-print-directory \
			-C "$top_builddir" -f Makefile -f - pf-print-var
}

t_pass() {
	T_PASSES=$((T_PASSES + 1))
	echo "ok - $*"
}

t_fail() {
	T_FAILS=$((T_FAILS + 1))
	echo "not ok - $*"
}

t_done() {
	echo "$T_PASSES passed, $T_FAILS failed"
	[ "$T_FAILS" -eq 0 ]
}

# t_lvm_conf DIR "DEV..." [DEVICES_LINES [SECTIONS]]: write DIR/lvm.conf (DIR made if need be;
# the file is replaced by a rename, so a reader never sees half of it). Its devices section has
# a global_filter accepting exactly the DEVs, in order, and rejecting everything else, then
# DEVICES_LINES; SECTIONS (whole sections) follow. A DEV may be an extended regex naming several
# devices (/dev/loop(3|7)); !DEV rejects DEV instead. DEVICES_LINES that set a global_filter of
# their own replace this one.
t_lvm_conf() {
	case $- in
	*f*) _glob=off ;;
	*)
		_glob=on
		set -f
		;;
	esac
	_filter="global_filter = [ "
	for _d in $2; do
		case $_d in
		!*) _filter="$_filter\"r|^${_d#!}\$|\", " ;;
		*) _filter="$_filter\"a|^$_d\$|\", " ;;
		esac
	done
	_filter="$_filter\"r|.*|\" ]"
	[ "$_glob" = off ] || set +f
	case ${3:-} in
	*global_filter*) _filter="" ;;
	esac
	mkdir -p "$1" &&
		{
			echo "devices {"
			[ -z "$_filter" ] || printf '\t%s\n' "$_filter"
			[ -z "${3:-}" ] || printf '\t%s\n' "$3"
			echo "}"
			[ -z "${4:-}" ] || printf '%s\n' "$4"
		} >"$1/lvm.conf.tmp" &&
		mv "$1/lvm.conf.tmp" "$1/lvm.conf"
}

# DEVICES_LINES for t_lvm_conf: which devices lvm2 sees is the filter's business alone, not a
# devices file's or udev's.
T_CONF_NO_LISTS='use_devicesfile = 0
	obtain_device_list_from_udev = 0'

# t_conf_events [GLOBAL_LINES]: SECTIONS for t_lvm_conf: event activation on (as udev's
# pvscan calls expect), GLOBAL_LINES, and no metadata backups written into LVM_SYSTEM_DIR.
# shellcheck disable=SC2120 # GLOBAL_LINES come from the test scripts
t_conf_events() {
	printf 'global {\n\tevent_activation = 1\n'
	[ -z "${1:-}" ] || printf '\t%s\n' "$1"
	printf '}\nbackup {\n\tbackup = 0\n\tarchive = 0\n}\n'
}

# t_lvm "DEV DEV..." ARGS...: run real lvm2 as the oracle on exactly these
# devices, in a private mount namespace with a tmpfs over /run and a private
# LVM_SYSTEM_DIR, so the host's /run/lvm, locks and /etc/lvm are never touched.
t_lvm() {
	t_lvm_conf "$T_DIR/lvmetc" "$1" "$T_CONF_NO_LISTS
	hints = \"none\"" "$(t_conf_events)"
	shift
	LVM_SYSTEM_DIR="$T_DIR/lvmetc" LVM_SUPPRESS_FD_WARNINGS=1 \
		unshare --mount --propagation private sh -c \
		'mount -t tmpfs -o mode=0755,size=8m pvscan-fast-test /run && exec "$@"' t_lvm \
		lvm "$@"
}

# t_queue_left LVM_RUN_DIR: the entries left in pvscan-fast's queue under LVM_RUN_DIR (its
# pending/, inflight/ and activate/), as SUBDIR/NAME, one a line.
t_queue_left() {
	for _sub in pending inflight activate; do
		[ ! -d "$1/pvscan-fast/$_sub" ] ||
			find "$1/pvscan-fast/$_sub" -mindepth 1 -maxdepth 1 -printf "$_sub/%f\n"
	done
}

# t_queue_drained TAG LVM_RUN_DIR LOCK: the queue exists and is empty, and nobody holds the
# leader lock LOCK: every invocation's work is done.
t_queue_drained() {
	t_queue_left "$2" >"$T_DIR/queue.left"
	if [ -d "$2/pvscan-fast/pending" ] && [ ! -s "$T_DIR/queue.left" ]; then
		t_pass "$1: pending/, inflight/ and activate/ empty"
	else
		t_fail "$1: $(wc -l <"$T_DIR/queue.left") entries left in the queue"
		head -5 "$T_DIR/queue.left" | sed 's/^/#   /'
	fi
	if flock -n "$3" true; then
		t_pass "$1: the leader lock is free"
	else
		t_fail "$1: the leader lock is still held"
	fi
}

# ---- blockfs: files that fail or never answer, for loop devices (tests/hostile/blockfs.c) ----
#
# A FUSE filesystem built here ($CC, pkg-config fuse3; the test is skipped without them). Its
# hanging reads are released (t_blockfs_release), always, before the loops are detached and
# it is unmounted (t_cleanup does all that); the daemon is tracked by PID.

# Build it into the scratch directory, or skip the test.
t_blockfs_build() {
	for c in fusermount3 pkg-config mountpoint; do
		command -v "$c" >/dev/null 2>&1 || t_skip "needs $c"
	done
	[ -e /dev/fuse ] || t_skip "needs /dev/fuse"
	pkg-config --exists fuse3 2>/dev/null || t_skip "needs libfuse3 (pkg-config fuse3)"
	# shellcheck disable=SC2046
	"${CC:-cc}" -O2 -Wall $(pkg-config --cflags fuse3) -o "$T_DIR/blockfs" \
		"$top_srcdir/tests/hostile/blockfs.c" $(pkg-config --libs fuse3) -lpthread ||
		{ echo "FAIL: cannot build blockfs"; exit 1; }
}

# t_blockfs_start MNT NAME=IMAGE[@FROM]...: serve these files at MNT (see blockfs.c for what
# each NAME does) until t_cleanup; its log is $T_DIR/blockfs.log.
t_blockfs_start() {
	[ -x "$T_DIR/blockfs" ] || t_blockfs_build
	T_BLOCKFS_MNT=$1
	shift
	mkdir -p "$T_BLOCKFS_MNT"
	"$T_DIR/blockfs" "$T_BLOCKFS_MNT" "$@" 2>"$T_DIR/blockfs.log" &
	T_BLOCKFS_PID=$!
	i=0
	until [ -e "$T_BLOCKFS_MNT/release" ] || [ $i -ge 100 ]; do
		sleep 0.05
		i=$((i + 1))
	done
	[ -e "$T_BLOCKFS_MNT/release" ] ||
		{ echo "FAIL: blockfs did not mount"; cat "$T_DIR/blockfs.log"; exit 1; }
}

# Wake every blocked read (they are answered) and stop hanging for good.
t_blockfs_release() {
	mountpoint -q "$T_BLOCKFS_MNT" && touch "$T_BLOCKFS_MNT/release" 2>/dev/null
}

# Release blocked reads first, so the loops can go; then the filesystem.
t_blockfs_stop() {
	if [ -n "$T_BLOCKFS_PID" ]; then
		t_blockfs_release
		for l in $T_LOOPS; do
			losetup -d "$l" 2>/dev/null || true
		done
		T_LOOPS=""
		kill "$T_BLOCKFS_PID" 2>/dev/null
		i=0
		while kill -0 "$T_BLOCKFS_PID" 2>/dev/null && [ $i -lt 50 ]; do
			sleep 0.1
			i=$((i + 1))
		done
		kill -9 "$T_BLOCKFS_PID" 2>/dev/null
		wait "$T_BLOCKFS_PID" 2>/dev/null
		T_BLOCKFS_PID=""
	fi
	if [ -n "$T_BLOCKFS_MNT" ] && mountpoint -q "$T_BLOCKFS_MNT" 2>/dev/null; then
		fusermount3 -u "$T_BLOCKFS_MNT" 2>/dev/null || umount -l "$T_BLOCKFS_MNT"
	fi
	T_BLOCKFS_MNT=""
}

# t_holders PATH: PIDs of the processes that have PATH open.
t_holders() {
	for p in /proc/[0-9]*; do
		for f in "$p"/fd/*; do
			if [ "$(readlink "$f" 2>/dev/null)" = "$1" ]; then
				echo "${p#/proc/}"
				break
			fi
		done
	done
}

# t_readers: PIDs of the pvscan-fast processes of this test's process group: the reader
# processes (lib/io/reader.h) left behind by commands that have exited. They hold no device
# (each is closed once done or given up on), and one waiting in exit for a stuck read has no
# command line left to read, so they are found by their name and process group.
t_readers() {
	_g=$(sed 's/.*) //' "/proc/$$/stat" | cut -d' ' -f3)
	for _p in /proc/[0-9]*; do
		case "$(cat "$_p/comm" 2>/dev/null)" in
		pvscan-fast*)
			[ "$(sed 's/.*) //' "$_p/stat" 2>/dev/null | cut -d' ' -f3)" = "$_g" ] &&
				echo "${_p#/proc/}"
			;;
		esac
	done
}

# t_wait_gone PID...: wait up to 5 s for these processes to end; T_LEFT names those that did not.
t_wait_gone() {
	_i=0
	while [ $_i -lt 100 ]; do
		T_LEFT=""
		for _p in "$@"; do
			[ -d "/proc/$_p" ] && T_LEFT="$T_LEFT $_p"
		done
		[ -z "$T_LEFT" ] && return 0
		sleep 0.05
		_i=$((_i + 1))
	done
}

# t_flip FILE OFFSET: invert one byte in place.
t_flip() {
	_b=$(dd if="$1" bs=1 skip="$2" count=1 status=none | od -An -tu1 | tr -d ' ')
	# shellcheck disable=SC2059
	printf "$(printf '\\%03o' $((_b ^ 255)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

# t_python ARGS...: python3 that can import tests/lib's modules (lvmdisk), and leaves no
# bytecode in the source tree.
t_python() {
	PYTHONPATH="$top_srcdir/tests/lib" PYTHONDONTWRITEBYTECODE=1 python3 "$@"
}

# t_now_ms: the wall clock in milliseconds.
t_now_ms() {
	date +%s%3N
}
