#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Coalescing when devices trickle in, and what a follower costs.
#
# TRICKLE_N (default 300) single-PV VGs attached one at a time, each followed by one udev-style
# invocation (`--cache -aay --major M --minor m`, with udev's ACTION/SEQNUM/MAJOR/MINOR) run to
# completion: only the first leader since boot reads every device; every later one reads only
# its own. Device reads are counted independently of pvscan-fast, from field 1 of
# /sys/block/loopN/stat (reads completed; O_DIRECT reads reach the loop device's queue): in all
# at most 4 per device. Every PV must be online and every VG activated exactly once
# (PVSCAN_FAST_LVM is a script that logs the VG).
#
# Then the follower's path, with the leader lock held by the test itself: 20 invocations for
# newly attached devices make no device read at all, exit 0, print nothing and each leave its
# entry in pending/; under strace one opens nothing under /dev or /sys, execs no engine, sets up
# no async I/O and reads no loop device (skipped without strace; its syscall counts are
# printed). Once the lock is released, one more invocation leads and drains them all.
#
# The test builds (tests/inject/) are used, as by the other coalescing tests. Nothing under the
# real /run/lvm is touched, and lvm.conf accepts exactly the loop devices attached so far.
# shellcheck disable=SC2154 # top_builddir comes from test-lib.sh
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz lvm flock python3 diff find sort xargs awk

N=${TRICKLE_N:-300}
FOLLOWERS=20
t_require_inject

ETC="$T_DIR/etc"
RUN="$T_DIR/run"
LOCK="$RUN/lock/pvscan-fast.leader"
ACT="$T_DIR/act.log"
MAP="$T_DIR/map" # one line per device: DEV MAJ MIN SEQNUM VG PVID READS_AT_ATTACH
OUT="$T_DIR/out"
VGCHANGE='vgchange -aay --autoactivation event --driverloaded n' # what activations run
mkdir -p "$ETC" "$RUN" "$OUT"
: >"$ACT"
: >"$MAP"

cat >"$T_DIR/fake-lvm" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$ACT"
EOF
chmod 0755 "$T_DIR/fake-lvm"
export LVM_SUPPRESS_FD_WARNINGS=1 PVSCAN_FAST_LVM="$T_DIR/fake-lvm" LVM_SYSTEM_DIR="$ETC" \
	PVSCAN_FAST_RUN_DIR="$RUN/lvm" PVSCAN_FAST_LOCK_DIR="$RUN/lock"

# The trickled devices, the followers', the one run under strace and the final leader's.
python3 "$top_srcdir/tests/bench/clone-pvs.py" "$FIXTURES/single" $((N + FOLLOWERS + 2)) \
	"$T_DIR/img" tk >"$T_DIR/images" || { echo "FAIL: clone-pvs.py"; exit 1; }
t_python "$top_srcdir/tests/lib/lvmdisk.py" pvids "$T_DIR/images" >"$T_DIR/pvids" ||
	{ echo "FAIL: reading PVIDs"; exit 1; }

DEVS=""
STATS=""
# attach_image IMAGE: attach it, note it in $MAP, and accept it in lvm.conf (written whole).
# event_activation is left to its default, as on most systems: a follower then need not parse
# lvm.conf (coalesce-storm.sh sets it, for the other path).
attach_image() {
	t_attach "$1"
	maj=$((0x$(stat -c %t "$T_DEV")))
	min=$((0x$(stat -c %T "$T_DEV")))
	seq=$(cat /sys/kernel/uevent_seqnum)
	stat="/sys/block/${T_DEV#/dev/}/stat"
	base=${1##*/}
	pvid=$(grep -F "$1 " "$T_DIR/pvids" | cut -d' ' -f2)
	echo "$T_DEV $maj $min $seq ${base%-d1.img} $pvid $(awk '{ print $1 }' "$stat")" >>"$MAP"
	STATS="$STATS $stat"
	DEVS="$DEVS $T_DEV"
	t_lvm_conf "$ETC" "$DEVS" "$T_CONF_NO_LISTS"
}

# reads: reads completed on every device attached here, since each was attached.
# shellcheck disable=SC2016 # an awk program
reads() {
	now=$(echo "$STATS" | xargs awk '{ n += $1 } END { print n + 0 }')
	echo $((now - $(awk '{ n += $7 } END { print n + 0 }' "$MAP")))
}

# invoke TAG DEV MAJ MIN SEQNUM: one invocation as udev runs it, status in $OUT/TAG.rc; with
# --driverloaded n, so that where device-mapper is at hand pvscan-fast does not activate the
# test's LVs itself but runs PVSCAN_FAST_LVM.
invoke() {
	ACTION=add SEQNUM=$5 MAJOR=$3 MINOR=$4 DEVNAME=$2 \
		"$PFI" --cache -aay --major "$3" --minor "$4" --driverloaded n \
		>"$OUT/$1.out" 2>"$OUT/$1.err" 8>&- </dev/null
	echo $? >"$OUT/$1.rc"
}

# last_dev: the fields DEV MAJ MIN SEQNUM of the device attached last.
last_dev() {
	tail -n 1 "$MAP" | cut -d' ' -f1-4
}

# check_online TAG: every device in $MAP online, every VG claimed and activated exactly once.
check_online() {
	while read -r dev maj min _seq vg pvid _r; do
		echo "$pvid $maj:$min $vg $dev"
	done <"$MAP" | LC_ALL=C sort >"$T_DIR/want"
	for f in "$RUN"/lvm/pvs_online/*; do
		[ -f "$f" ] || continue
		echo "${f##*/} $(sed -e 's/^vg://' -e 's/^dev://' "$f" | paste -sd' ' -)"
	done | LC_ALL=C sort >"$T_DIR/have"
	if diff -u "$T_DIR/want" "$T_DIR/have" >"$T_DIR/diff"; then
		t_pass "$1: all $(wc -l <"$MAP") PVs online, with devno, VG and device"
	else
		t_fail "$1: PVs online (- expected, + found):"
		head -10 "$T_DIR/diff" | sed 's/^/#   /'
	fi
	cut -d' ' -f5 "$MAP" | LC_ALL=C sort >"$T_DIR/want"
	find "$RUN/lvm/vgs_online" -mindepth 1 -printf '%f\n' | LC_ALL=C sort >"$T_DIR/have"
	if diff -u "$T_DIR/want" "$T_DIR/have" >"$T_DIR/diff"; then
		t_pass "$1: every VG claimed in vgs_online"
	else
		t_fail "$1: vgs_online (- expected, + found):"
		head -10 "$T_DIR/diff" | sed 's/^/#   /'
	fi
	sed 's/.* //' "$ACT" | LC_ALL=C sort >"$T_DIR/have"
	if diff -u "$T_DIR/want" "$T_DIR/have" >"$T_DIR/diff" &&
		! grep -qvE "^$VGCHANGE [^ ]+\$" "$ACT"; then
		t_pass "$1: every VG activated exactly once ($VGCHANGE VG)"
	else
		t_fail "$1: activations (- expected, + found):"
		head -10 "$T_DIR/diff" | sed 's/^/#   /'
	fi
}

# ---- the trickle ----

head -n "$N" "$T_DIR/images" >"$T_DIR/trickle"
i=0
maxd=0
prev=0
ms=0
while read -r img; do
	i=$((i + 1))
	attach_image "$img"
	# shellcheck disable=SC2046
	set -- $(last_dev)
	t0=$(t_now_ms)
	invoke "t$i" "$@"
	ms=$((ms + $(t_now_ms) - t0))
	r=$(reads)
	d=$((r - prev))
	prev=$r
	[ $i -eq 1 ] || [ $d -le $maxd ] || maxd=$d
	[ $i -ne 1 ] || echo "# the first invocation (a full scan of 1 device) made $d reads"
done <"$T_DIR/trickle"
total=$(reads)
echo "# $N invocations in $ms ms ($((ms / N)) ms each); $total device reads" \
	"($(awk -v r="$total" -v n="$N" 'BEGIN { printf "%.2f", r / n }') per device," \
	"at most $maxd for one invocation after the first)"
bad=$(cat "$OUT"/t*.rc | grep -cvx 0)
if [ "$bad" -eq 0 ]; then
	t_pass "trickle: all $N invocations exited 0"
else
	t_fail "trickle: $bad invocations exited non-zero"
fi
errs=$(find "$OUT" -name 't*.err' -size +0 | wc -l)
if [ "$errs" -eq 0 ]; then
	t_pass "trickle: nothing on stderr"
else
	t_fail "trickle: $errs invocations wrote to stderr, e.g.:"
	find "$OUT" -name 't*.err' -size +0 | head -3 | xargs cat | sed 's/^/#   /'
fi
if [ "$total" -le $((4 * N)) ]; then
	t_pass "trickle: $total device reads for $N devices (at most $((4 * N)))"
else
	t_fail "trickle: $total device reads for $N devices, more than $((4 * N))"
fi
check_online trickle
t_queue_drained trickle "$RUN/lvm" "$LOCK"

# ---- followers: the test holds the leader lock ----

tail -n +"$((N + 1))" "$T_DIR/images" >"$T_DIR/late"
while read -r img; do
	attach_image "$img"
done <"$T_DIR/late"
exec 8>"$LOCK"
flock -n 8 || { echo "FAIL: cannot take $LOCK"; exit 1; }
r0=$(reads)
t0=$(t_now_ms)
k=0
# The last two devices are for strace and the final leader.
head -n "$((N + FOLLOWERS))" "$MAP" | tail -n "$FOLLOWERS" >"$T_DIR/followers"
while read -r dev maj min seq _rest; do
	k=$((k + 1))
	invoke "f$k" "$dev" "$maj" "$min" "$seq"
done <"$T_DIR/followers"
ms=$(($(t_now_ms) - t0))
r1=$(reads)
echo "# $FOLLOWERS followers in $ms ms ($((ms * 1000 / FOLLOWERS)) us each)"
if [ "$r1" -eq "$r0" ]; then
	t_pass "followers: no device read ($FOLLOWERS invocations)"
else
	t_fail "followers: $((r1 - r0)) device reads by $FOLLOWERS followers"
fi
bad=$(cat "$OUT"/f*.rc | grep -cvx 0)
quiet=$(find "$OUT" -name 'f*.out' -size +0 -o -name 'f*.err' -size +0 | wc -l)
if [ "$bad" -eq 0 ] && [ "$quiet" -eq 0 ]; then
	t_pass "followers: all exited 0 and printed nothing"
else
	t_fail "followers: $bad exited non-zero, $quiet printed something"
fi
missing=0
while read -r dev maj min seq _rest; do
	[ -e "$RUN/lvm/pvscan-fast/pending/$maj:$min,a,$seq" ] || missing=$((missing + 1))
	[ ! -e "$RUN/lvm/pvs_online/$(grep "^$dev " "$MAP" | cut -d' ' -f6)" ] ||
		missing=$((missing + 1))
done <"$T_DIR/followers"
if [ $missing -eq 0 ] &&
	[ "$(find "$RUN/lvm/pvscan-fast/pending" -mindepth 1 | wc -l)" -eq $FOLLOWERS ]; then
	t_pass "followers: each left its entry in pending/ (M:m,a,SEQNUM), nothing online yet"
else
	t_fail "followers: $missing entries missing or PVs online already"
	find "$RUN/lvm/pvscan-fast/pending" -mindepth 1 | head -5 | sed 's/^/#   /'
fi

# ---- a follower under strace ----

# shellcheck disable=SC2046
set -- $(sed -n "$((N + FOLLOWERS + 1))p" "$MAP")
if command -v strace >/dev/null 2>&1; then
	LOG="$T_DIR/strace.log"
	r0=$(reads)
	(cd "$T_DIR" && ACTION=add SEQNUM=$4 MAJOR=$2 MINOR=$3 DEVNAME=$1 \
		strace -f -y -o "$LOG" -e trace=%file,%desc,io_setup,io_submit,io_uring_setup \
		"$PFI" --cache -aay --major "$2" --minor "$3" --driverloaded n \
		>"$OUT/s.out" 2>"$OUT/s.err" 8>&-)
	rc=$?
	r1=$(reads)
	if [ $rc -eq 0 ] && ! [ -s "$OUT/s.out" ] && ! [ -s "$OUT/s.err" ] &&
		[ -e "$RUN/lvm/pvscan-fast/pending/$2:$3,a,$4" ] && [ "$r1" -eq "$r0" ]; then
		t_pass "strace: the follower exited 0, silent, its entry recorded, no device read"
	else
		t_fail "strace: follower exit status $rc, $((r1 - r0)) reads"
		sed 's/^/#   /' "$OUT/s.err"
	fi
	echo "# strace: $(wc -l <"$LOG") traced calls:"
	sed 's/^[0-9]* */#   /' "$LOG"
	# strace_none WHAT REGEX: no traced line matches.
	strace_none() {
		if grep -Eq "$2" "$LOG"; then
			t_fail "strace: the follower $1:"
			grep -E "$2" "$LOG" | head -5 | sed 's/^/#   /'
		else
			t_pass "strace: the follower $1"
		fi
	}
	strace_none "opens nothing under /dev or /sys" \
		'open(at2?)?\(.*"/(dev|sys)/|= [0-9]+</(dev|sys)/'
	strace_none "does not exec the engine" 'execve\(.*pvscan-fast-engine'
	strace_none "sets up no async I/O" '(io_setup|io_submit|io_uring_setup)\('
	strace_none "reads no loop device" '/dev/loop'
	CLOG="$T_DIR/strace-c.log"
	(cd "$T_DIR" && ACTION=add SEQNUM=$4 MAJOR=$2 MINOR=$3 DEVNAME=$1 \
		strace -f -c -o "$CLOG" "$PFI" --cache -aay --major "$2" --minor "$3" \
		--driverloaded n >/dev/null 2>&1 8>&-)
	echo "# strace -c of a follower:"
	sed 's/^/#   /' "$CLOG"
else
	echo "# strace not installed: the syscall checks of a follower are skipped"
	invoke s "$1" "$2" "$3" "$4"
fi

# ---- the lock is released: one more invocation leads and drains them all ----

flock -u 8
exec 8>&-
# shellcheck disable=SC2046
set -- $(last_dev)
r0=$(reads)
invoke leader "$@"
rc=$(cat "$OUT/leader.rc")
r1=$(reads)
if [ "$rc" -eq 0 ] && ! [ -s "$OUT/leader.err" ] &&
	grep -q "PV $1 online, VG [^ ]* is complete" "$OUT/leader.out"; then
	t_pass "drain: the next invocation led (exit 0), reading $((r1 - r0)) times" \
		"for $((FOLLOWERS + 2)) devices"
else
	t_fail "drain: the next invocation: exit status $rc"
	head -5 "$OUT/leader.out" "$OUT/leader.err" | sed 's/^/#   /'
fi
check_online drain
t_queue_drained drain "$RUN/lvm" "$LOCK"

t_done
