# shellcheck shell=sh
# Shared helpers for the shell integration tests: prerequisites (exit 77 = skip),
# a private scratch directory, and loop devices that are always detached again.
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

# Attach an image file read-only; the loop device is left in T_DEV (no subshell,
# so the cleanup list stays complete).
t_attach() {
	T_DEV=$(losetup -f --show -r "$1") || { echo "FAIL: cannot attach $1" >&2; exit 1; }
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

# t_lvm "DEV DEV..." ARGS...: run real lvm2 as the oracle on exactly these
# devices, in a private mount namespace with a tmpfs over /run and a private
# LVM_SYSTEM_DIR, so the host's /run/lvm, locks and /etc/lvm are never touched.
t_lvm() {
	filt=""
	for d in $1; do
		filt="$filt\"a|^$d\$|\", "
	done
	shift
	mkdir -p "$T_DIR/lvmetc"
	cat >"$T_DIR/lvmetc/lvm.conf" <<CONF
devices {
	global_filter = [ $filt"r|.*|" ]
	use_devicesfile = 0
	obtain_device_list_from_udev = 0
	hints = "none"
}
global {
	event_activation = 1
}
backup {
	backup = 0
	archive = 0
}
CONF
	LVM_SYSTEM_DIR="$T_DIR/lvmetc" LVM_SUPPRESS_FD_WARNINGS=1 \
		unshare --mount --propagation private sh -c \
		'mount -t tmpfs -o mode=0755,size=8m pvscan-fast-test /run && exec "$@"' t_lvm \
		lvm "$@"
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

t_now_ms() {
	date +%s%3N
}
