#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Crash safety of coalescing: a leader or follower killed (SIGKILL) at any step of the protocol
# leaves no stuck lock and loses no entry; the next invocation finishes the work.
#
# Uses the test build (tests/inject/), whose PVSCAN_FAST_INJECT="STEP:crash" raises SIGKILL at
# that step. Five loop PVs in four VGs (vg0, vgmda2, my-vg single-PV; vgtwo on two PVs), a
# private run and lock directory, an lvm.conf accepting only these loops, and a PVSCAN_FAST_LVM
# that only logs which VG it was asked to activate. For every step, four scenarios:
#   boot   the crashing invocation (vgtwo's d2, -aay) is the first leader since boot (no run
#          directory at all), so its first round reads every device;
#   later  after a full `--cache -aay`, d2, my-vg's and vg0's PVs lose their pvs_online and
#          vgs_online files; my-vg's is queued by a follower, then d2's invocation crashes;
#   admin  an admin's full `--cache -aay` crashes (after a first one completed);
#   udev   as later, in lvm2's udev form (--udevoutput), whose own VG the udev rule activates.
# Checked after each crash: it was killed (or the step is not on its path), the lock is free,
# it left the state the protocol says; then one normal invocation for another device (vg0's),
# after which every PV is online, every VG claimed, each VG activated as often as the design
# says, and pending/, inflight/ and activate/ are empty.
# Also: a follower killed after recording, with the lock held elsewhere; a leader killed with
# five followers' entries queued; a lock file left by a process that was kill -9'ed; with no
# further uevent, --recover finishes what a leader killed (SIGKILL or SIGTERM) at any step
# left; and the activation command inherits neither the lock nor any other descriptor.
# Checks failing by a known bug (UDEV_KNOWN_BUG) say XFAIL and do not count, unless
# COALESCE_CRASH_STRICT=1; one that passes again fails as XPASS.
# shellcheck disable=SC2154 # top_srcdir, top_builddir come from test-lib.sh
. "$(dirname "$0")/../lib/test-lib.sh"
t_require_inject
PVSCAN_FAST=$PFI
ENGINE="$PFI-engine"
t_require xz flock

STEPS="recorded locked taken round-done round-finished drained released activation-begun
activation-ending"
HOLDER=""

# A lock holder of ours still running when the script ends: only that pid.
c_cleanup() {
	if [ -n "$HOLDER" ]; then
		kill -9 "$HOLDER" 2>/dev/null
		wait "$HOLDER" 2>/dev/null
		HOLDER=""
	fi
	t_cleanup
}
trap c_cleanup EXIT
# Output piped to a reader that left (| head) must not leave the loops attached either.
trap 'exit 129' HUP
trap 'exit 141' PIPE

# Devices: NAME FIXTURE IMAGE VG, the PVID from the fixture's devices file.
DEVS=""
attach_pv() {
	img=$(t_unpack "$FIXTURES/$2/$3.img.xz" "$1.img")
	t_attach "$img"
	pvid=$(awk -v f="$3.img" '$1 == f { print $2 }' "$FIXTURES/$2/devices")
	[ -n "$pvid" ] || { echo "FAIL: no PVID for $2/$3" >&2; exit 1; }
	devno=$(stat -L -c '%Hr:%Lr' "$T_DEV") || exit 1
	eval "DEV_$1=$T_DEV PVID_$1=$pvid DEVNO_$1=$devno VG_$1=$4"
	DEVS="$DEVS $1"
}
attach_pv s0 single d1 vg0
attach_pv m0 two-mdas d1 vgmda2
attach_pv h0 hyphens d1 my-vg
attach_pv t1 two-pv d1 vgtwo
attach_pv t2 two-pv d2 vgtwo
VGS="vg0 vgmda2 my-vg vgtwo"

mkdir -p "$T_DIR/run"
t_lvm_conf "$T_DIR/etc" "$(for d in $DEVS; do eval "echo \$DEV_$d"; done)" "$T_CONF_NO_LISTS" \
	"$(t_conf_events)"

ACTLOG="$T_DIR/activations"
RUN="$T_DIR/run/lvm"
LOCKDIR="$T_DIR/run/lock/lvm"
LOCK="$LOCKDIR/pvscan-fast.leader"
# The activation command logs the VG (its last argument), and whether it was given a descriptor
# of the leader lock: it would keep the lock held after a leader killed while it runs.
# With $T_DIR/lvm.hang present it never ends instead (its pid noted in lvm.pids).
cat >"$T_DIR/lvm" <<EOF
#!/bin/sh
for a; do vg=\$a; done
if [ -e "$T_DIR/lvm.hang" ]; then
	echo \$\$ >>"$T_DIR/lvm.pids"
	exec sleep 600
fi
echo "\$vg" >>"$ACTLOG"
# listed by one child writing to a file: no descriptor of the shell's own is open meanwhile
ls -l /proc/\$\$/fd >"$ACTLOG.fdlist"
awk -v vg="\$vg" '\$NF == "$LOCK" { print vg }' "$ACTLOG.fdlist" >>"$ACTLOG.lockfd"
# anything past stderr but the shell's own script is a descriptor we leaked
awk -v vg="\$vg" '\$(NF - 2) + 0 > 2 && \$NF != "$T_DIR/lvm" { print vg, \$NF }' \
	"$ACTLOG.fdlist" >>"$ACTLOG.fds"
exit 0
EOF
chmod +x "$T_DIR/lvm"
Q="$RUN/pvscan-fast"
export LVM_SYSTEM_DIR="$T_DIR/etc" PVSCAN_FAST_RUN_DIR="$RUN" PVSCAN_FAST_LOCK_DIR="$LOCKDIR"
export PVSCAN_FAST_LVM="$T_DIR/lvm" PVSCAN_FAST_ENGINE="$ENGINE" LVM_SUPPRESS_FD_WARNINGS=1
# Not a udev event: every entry has SEQNUM 0 and is read, never "covered".
unset ACTION SEQNUM MAJOR MINOR DEVNAME PVSCAN_FAST_INJECT PVSCAN_FAST_DEBUG

# pvsf [INJECT] ARGS...: run the test build, output kept for a failure report; sets RC.
pvsf() {
	inj=$1
	shift
	PVSCAN_FAST_INJECT="$inj" "$PVSCAN_FAST" "$@" >"$T_DIR/out" 2>"$T_DIR/err"
	RC=$?
}

# dev_args NAME: --major M --minor m of a device.
dev_args() {
	eval "dn=\$DEVNO_$1"
	echo "--major ${dn%:*} --minor ${dn#*:}"
}

show_output() {
	sed 's/^/#   out: /' "$T_DIR/out"
	sed 's/^/#   err: /' "$T_DIR/err"
}

# A clean slate: no run or lock directory, as at boot; no activations logged.
reset_all() {
	rm -rf "$RUN" "$T_DIR/run/lock"
	: >"$ACTLOG"
}

# forget NAME...: the device's PV and its VG are no longer online (as if never seen).
forget() {
	for d in "$@"; do
		eval "rm -f \"\$RUN/pvs_online/\$PVID_$d\" \"\$RUN/vgs_online/\$VG_$d\""
	done
}

activations() {
	grep -cx -- "$1" "$ACTLOG"
}

# No lock file (the lock directory is made by the first invocation that locks) is free too.
lock_free() {
	[ ! -e "$LOCK" ] || flock -n -E 75 "$LOCK" true
}

# count DIR: its entries (0 when it does not exist).
count() {
	find "$1" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l
}

# oneline CMD...: the command's output lines joined by spaces.
oneline() {
	"$@" | tr '\n' ' '
}

# Set while checks that fail by a known bug run: such a failure is reported as XFAIL, not
# counted; COALESCE_CRASH_STRICT=1 counts it. A check that then passes is an XPASS: a failure,
# so the known-bug list is kept current.
XFAIL=""
XFAILED=0
c_fail() {
	if [ -n "$XFAIL" ] && [ "${COALESCE_CRASH_STRICT:-0}" != 1 ]; then
		XFAILED=$((XFAILED + 1))
		echo "ok - $* # XFAIL $XFAIL"
	else
		t_fail "$@"
	fi
}

# check LABEL "VG:MIN:MAX ...": the work is finished: every PV online, every VG claimed, each VG
# activated MIN..MAX times since the log was last cleared, no queue entry left.
check() {
	label=$1
	bad=""
	for d in $DEVS; do
		eval "p=\$PVID_$d"
		[ -f "$RUN/pvs_online/$p" ] || bad="$bad $d"
	done
	if [ -z "$bad" ]; then
		t_pass "$label: every PV online"
	else
		t_fail "$label: PV not online:$bad"
	fi
	bad=""
	for vg in $VGS; do
		[ -e "$RUN/vgs_online/$vg" ] || bad="$bad $vg"
	done
	if [ -z "$bad" ]; then
		t_pass "$label: every VG claimed in vgs_online"
	else
		t_fail "$label: VG not claimed:$bad"
	fi
	bad=""
	for want in $2; do
		vg=${want%%:*}
		lo=${want#*:}
		hi=${lo#*:}
		lo=${lo%:*}
		n=$(activations "$vg")
		[ "$n" -ge "$lo" ] && [ "$n" -le "$hi" ] || bad="$bad $vg=$n (want $lo..$hi)"
	done
	if [ -z "$bad" ] && [ -n "$XFAIL" ]; then
		t_fail "$label: activation counts: XPASS: no longer $XFAIL, update UDEV_KNOWN_BUG"
	elif [ -z "$bad" ]; then
		t_pass "$label: activation counts"
	else
		c_fail "$label: activation counts:$bad"
	fi
	left=$(oneline t_queue_left "$RUN")
	if [ -z "$left" ]; then
		t_pass "$label: pending/ inflight/ activate/ empty"
	else
		t_fail "$label: entries left: $left"
	fi
}

# expect_killed LABEL: the last invocation died of SIGKILL (the shell says 128 + 9).
expect_killed() {
	if [ "$RC" -eq 137 ]; then
		t_pass "$1: killed"
	else
		t_fail "$1: exit status $RC, not killed"
		show_output
	fi
}

expect_ok() {
	if [ "$RC" -eq 0 ]; then
		t_pass "$1: exit status 0"
	else
		t_fail "$1: exit status $RC"
		show_output
	fi
}

expect_lock_free() {
	if lock_free; then
		t_pass "$1: lock free"
	else
		t_fail "$1: lock still held"
	fi
}

# hold_lock: a process of ours holds the leader lock until release_lock (or kill -9).
hold_lock() {
	mkdir -p "$LOCKDIR"
	# flock locks belong to the open file: sh's fd 9 keeps it after flock(1) exits, and
	# exec leaves one process holding it, so killing that pid drops the lock.
	sh -c 'exec 9>>"$1" && flock 9 && exec sleep 300' holder "$LOCK" &
	HOLDER=$!
	i=0
	while lock_free; do
		i=$((i + 1))
		[ $i -lt 3000 ] || { echo "FAIL: lock holder did not lock"; exit 1; }
		sleep 0.01
	done
}

release_lock() {
	kill -9 "$HOLDER"
	wait "$HOLDER" 2>/dev/null
	HOLDER=""
}

# What a crash left, so we know the next leader had that much to finish: the pending and
# in-flight entries, the number of journal entries, and in scenario later how many of d2 and
# my-vg's PV are online, how many of vgtwo and my-vg are claimed, and their activations.
left_by_crash() {
	t_queue_left "$RUN" | grep -v '^activate/' | LC_ALL=C sort | tr '\n' ' '
	printf 'journal=%s' "$(count "$Q/activate")"
	[ "$1" = later ] || return 0
	pv=0
	for p in "$PVID_t2" "$PVID_h0"; do
		[ -f "$RUN/pvs_online/$p" ] && pv=$((pv + 1))
	done
	cl=0
	for vg in vgtwo my-vg; do
		[ -e "$RUN/vgs_online/$vg" ] && cl=$((cl + 1))
	done
	printf ' pv=%s claimed=%s act=%s' $pv $cl $(($(activations vgtwo) + $(activations my-vg)))
}

# expect_left SCENARIO STEP: the state a crash at STEP leaves, by the protocol. The crashing
# invocation's entry is d2's; in scenario later, my-vg's PV was queued by a follower before.
expect_left() {
	alt=
	t="$DEVNO_t2,a,0"
	h="$DEVNO_h0,a,0"
	both=$(printf '%s\n' "$t" "$h" | LC_ALL=C sort | tr '\n' ' ')
	p=$(echo "$both" | sed 's|\([^ ]*\) |pending/\1 |g')
	i=$(echo "$both" | sed 's|\([^ ]*\) |inflight/\1 |g')
	case "$1/$2" in
	boot/recorded | boot/locked) want="pending/$t journal=0" ;;
	boot/taken | boot/round-done) want="inflight/$t journal=0" ;;
	# the first complete VG journaled; then all four claimed and journaled, one activated
	boot/activation-begun) want="inflight/$t journal=1" ;;
	boot/activation-ending) want="inflight/$t journal=4" ;;
	boot/*) want="journal=0" ;;
	later/recorded | later/locked) want="${p}journal=0 pv=0 claimed=0 act=0" ;;
	later/taken) want="${i}journal=0 pv=0 claimed=0 act=0" ;;
	later/round-done) want="${i}journal=0 pv=2 claimed=2 act=2" ;;
	later/activation-begun) want="${i}journal=1 pv=2 claimed=0 act=0" ;;
	# lvm2 activates up to four VGs at once: the other one may finish after the kill
	later/activation-ending) want="${i}journal=2 pv=2 claimed=2 act=1" \
		alt="${i}journal=2 pv=2 claimed=2 act=2" ;;
	later/*) want="journal=0 pv=2 claimed=2 act=2" ;;
	*) return 0 ;;
	esac
	got=$(left_by_crash "$1")
	if [ "$got" = "$want" ] || [ "$got" = "${alt:-}" ]; then
		t_pass "$1/$2: crash left '$got'"
	else
		t_fail "$1/$2: crash left '$got', expected '$want'"
	fi
}

# Activations expected after a crash at STEP: the one activation a dead leader may have done
# before its journal entry was removed (activation-ending) is done again by the next leader,
# by design: it cannot know whether vgchange got there, and activating an active VG changes
# nothing. Everything else is activated exactly once.
twice_at() {
	[ "$1" = activation-ending ] && echo 2 || echo 1
}

# crash_t2 SCENARIO STEP: the leader for vgtwo's d2, killed at STEP, leaves the lock free and
# what STEP leaves queued; the next invocation (for vg0's PV) finishes. Sets hi: how many times
# a VG may have been activated then.
crash_t2() {
	# shellcheck disable=SC2046
	pvsf "$2:crash" --cache -aay $(dev_args t2)
	expect_killed "$1/$2"
	expect_lock_free "$1/$2"
	expect_left "$1" "$2"
	# shellcheck disable=SC2046
	pvsf "" --cache -aay $(dev_args s0)
	expect_ok "$1/$2: next invocation"
	hi=$(twice_at "$2")
}

# Scenario boot: the crashing leader is the first since boot; its first round reads all.
for step in $STEPS; do
	reset_all
	crash_t2 boot "$step"
	check "boot/$step" "vg0:1:$hi vgmda2:1:$hi my-vg:1:$hi vgtwo:1:$hi"
done

# setup LABEL: everything read, online and activated once, by an admin's full scan; the
# activation log then cleared.
setup() {
	reset_all
	pvsf "" --cache -aay
	if [ "$RC" -ne 0 ] || [ "$(wc -l <"$ACTLOG")" -ne 4 ] || [ ! -f "$Q/scanned" ]; then
		t_fail "$1: setup: the full scan failed or did not activate 4 VGs"
		show_output
		return 1
	fi
	: >"$ACTLOG"
}

# Scenario later: after a full scan, vgtwo's d2, my-vg's and vg0's PVs come (again): only they
# are read. my-vg's is queued by a follower while the lock is held elsewhere, so the crashing
# leader has two VGs to complete, and at activation-ending one is claimed but not activated.
for step in $STEPS; do
	setup "later/$step" || continue
	forget t2 h0 s0
	hold_lock
	# shellcheck disable=SC2046
	pvsf "" --cache -aay $(dev_args h0)
	release_lock
	[ "$RC" -eq 0 ] || t_fail "later/$step: follower for my-vg's PV: exit status $RC"
	crash_t2 later "$step"
	check "later/$step" "vg0:1:1 vgmda2:0:0 my-vg:1:$hi vgtwo:1:$hi"
done

# Scenario admin: an admin's full `--cache -aay` (it waits for the lock, forgets the scanned
# record, clears the state and activates every VG again, as lvm2's does) is the one killed.
# It records no entry, so "recorded" is not reached: it must then simply succeed. Killed
# before it cleared anything (locked, taken), nothing is activated again; after, every VG
# once more (activation-ending: the first one twice, see twice_at).
for step in $STEPS; do
	setup "admin/$step" || continue
	pvsf "$step:crash" --cache -aay
	case $step in
	recorded)
		expect_ok "admin/$step: not reached"
		lo=1 hi=1
		;;
	locked | taken)
		expect_killed "admin/$step"
		lo=0 hi=0
		;;
	*)
		expect_killed "admin/$step"
		lo=1 hi=$(twice_at "$step")
		;;
	esac
	expect_lock_free "admin/$step"
	# shellcheck disable=SC2046
	pvsf "" --cache -aay $(dev_args s0)
	expect_ok "admin/$step: next invocation"
	check "admin/$step" "vg0:$lo:$hi vgmda2:$lo:$hi my-vg:$lo:$hi vgtwo:$lo:$hi"
done

# udev_event NAME [INJECT]: lvm2's udev rule for a device: the --udevoutput form, then, if it
# exited 0 naming a VG complete, the vgchange the rule runs for it (logged as ours are).
udev_event() {
	eval "dev=\$DEV_$1"
	pvsf "$2" --cache --listvg --checkcomplete --vgonline --autoactivation event --udevoutput \
		"$dev"
	[ "$RC" -eq 0 ] || return 0
	sed -n "s/^LVM_VG_NAME_COMPLETE='\(.*\)'\$/\1/p" "$T_DIR/out" >>"$ACTLOG"
}

# Scenario udev: as later, but the events come in lvm2's udev form, which claims its own VG
# and leaves activating it to the rule that imports its output. The output of a killed
# invocation is lost (udev imports nothing from a program that failed), so the leader must
# not leave its own VG claimed, unjournaled and down when it is killed afterwards.
# Known bug: killed after it removed the journal entry of its own VG (round-done and later),
# it leaves the VG claimed and never activated; no later invocation activates it.
UDEV_KNOWN_BUG=""
for step in $STEPS; do
	setup "udev/$step" || continue
	forget t2 s0
	udev_event t2 "$step:crash"
	expect_killed "udev/$step"
	expect_lock_free "udev/$step"
	udev_event s0
	expect_ok "udev/$step: next invocation"
	case " $UDEV_KNOWN_BUG " in
	*" $step "*) XFAIL="(known bug: udev-form leader killed after claiming its own VG)" ;;
	esac
	check "udev/$step" "vg0:1:1 vgmda2:0:0 my-vg:0:0 vgtwo:1:1"
	XFAIL=""
done

# A follower killed after recording its entry, while another process leads: the entry stays
# and the next leader reads its device.
follower_crash() {
	forget h0
	hold_lock
	# shellcheck disable=SC2046
	pvsf "recorded:crash" --cache -aay $(dev_args h0)
	expect_killed "follower/recorded"
	if [ -e "$Q/pending/$DEVNO_h0,a,0" ]; then
		t_pass "follower/recorded: its entry survived"
	else
		t_fail "follower/recorded: pending/$DEVNO_h0,a,0 missing: $(oneline t_queue_left "$RUN")"
	fi
	release_lock
	expect_lock_free "follower/recorded"
	# shellcheck disable=SC2046
	pvsf "" --cache -aay $(dev_args s0)
	expect_ok "follower/recorded: next invocation"
	check "follower/recorded" "vg0:0:0 vgmda2:0:0 my-vg:1:1 vgtwo:0:0"
}
setup follower && follower_crash

# Five followers queue while the lock is held; the leader after them dies once it took their
# entries; the next invocation must read all five.
reset_all
pvsf "" --cache
rm -f "$RUN"/pvs_online/*
: >"$ACTLOG"
hold_lock
n=0
for d in $DEVS; do
	# shellcheck disable=SC2046
	pvsf "" --cache -aay $(dev_args "$d")
	[ "$RC" -eq 0 ] && n=$((n + 1))
done
queued=$(count "$Q/pending")
if [ "$n" -eq 5 ] && [ "$queued" -eq 5 ]; then
	t_pass "followers: 5 exited 0 with 5 entries pending"
else
	t_fail "followers: $n exited 0, $queued entries pending"
fi
if [ "$(count "$RUN/pvs_online")" -eq 0 ] && [ ! -s "$ACTLOG" ]; then
	t_pass "followers: read nothing, activated nothing"
else
	t_fail "followers: some follower did a leader's work"
fi
release_lock
# shellcheck disable=SC2046
pvsf "taken:crash" --cache $(dev_args t1)
expect_killed "followers/taken"
expect_lock_free "followers/taken"
inflight=$(count "$Q/inflight")
if [ "$inflight" -eq 6 ] && [ "$(count "$Q/pending")" -eq 0 ]; then
	t_pass "followers/taken: all 6 entries in flight"
else
	t_fail "followers/taken: $inflight in flight, $(count "$Q/pending") pending"
fi
# shellcheck disable=SC2046
pvsf "" --cache -aay $(dev_args m0)
expect_ok "followers/taken: next invocation"
check "followers/taken" "vg0:1:1 vgmda2:1:1 my-vg:1:1 vgtwo:1:1"

# A lock file whose holder was killed: the kernel dropped the lock, the file stays; the next
# invocation must lead (a follower would read nothing).
reset_all
hold_lock
release_lock
if [ -e "$LOCK" ] && lock_free; then
	t_pass "stale lock: file left, lock free"
else
	t_fail "stale lock: file missing or still locked"
fi
# shellcheck disable=SC2046
pvsf "" --cache -aay $(dev_args s0)
expect_ok "stale lock: invocation"
check "stale lock" "vg0:1:1 vgmda2:1:1 my-vg:1:1 vgtwo:1:1"

# No further uevent: `--cache -aay --recover` (the boot-end unit, the initramfs's last step)
# finishes what a leader killed at any step left, and does nothing when nothing is left.
for step in $STEPS; do
	reset_all
	# shellcheck disable=SC2046
	pvsf "$step:crash" --cache -aay $(dev_args t2)
	pvsf "" --cache -aay --recover
	expect_ok "recover/$step"
	check "recover/$step" "vg0:1:$(twice_at "$step") vgmda2:1:$(twice_at "$step") \
my-vg:1:$(twice_at "$step") vgtwo:1:$(twice_at "$step")"
done
setup "recover/nothing" && {
	before=$(find "$RUN" | LC_ALL=C sort | md5sum)
	pvsf "" --cache -aay --recover
	expect_ok "recover/nothing"
	if [ ! -s "$ACTLOG" ] && [ ! -s "$T_DIR/out" ] &&
		[ "$(find "$RUN" | LC_ALL=C sort | md5sum)" = "$before" ]; then
		t_pass "recover/nothing: nothing read, activated or changed"
	else
		t_fail "recover/nothing: it did something: $(oneline cat "$ACTLOG" "$T_DIR/out")"
	fi
}

# SIGTERM (systemd stopping the leader's service, switch_root's isolate) at a leader's steps:
# it ends the step, exits non-zero saying what it left, frees the lock; what it had not
# finished stays queued or journaled, and --recover finishes it with nothing done twice but
# the VG whose journal entry was being removed (see twice_at).
for step in taken round-done activation-begun activation-ending; do
	reset_all
	# shellcheck disable=SC2046
	pvsf "$step:term" --cache -aay $(dev_args t2)
	if [ "$RC" -eq 5 ] && grep -q "stopped by signal 15" "$T_DIR/err"; then
		t_pass "term/$step: exit status 5, says it stopped"
	else
		t_fail "term/$step: exit status $RC"
		show_output
	fi
	expect_lock_free "term/$step"
	pvsf "" --cache -aay --recover
	expect_ok "term/$step: --recover"
	check "term/$step" "vg0:1:$(twice_at "$step") vgmda2:1:$(twice_at "$step") \
my-vg:1:$(twice_at "$step") vgtwo:1:$(twice_at "$step")"
done

# The reader process lost (here it stalls once, after its opens, past the leader's patience;
# a disk removed under it does the same): its devices are not failed but queued again, read in
# the leader's next round by a new reader, and everything activated once.
reset_all
# shellcheck disable=SC2046
pvsf "reader-opened:delay=8000@$T_DIR/stall-once" --cache -aay --timeout 1 $(dev_args t2)
expect_ok "reader lost"
n=$(grep -c "reading it again" "$T_DIR/err")
if [ "$n" -eq 5 ]; then
	t_pass "reader lost: its 5 devices queued again"
else
	t_fail "reader lost: $n devices queued again, not 5"
	show_output
fi
check "reader lost" "vg0:1:1 vgmda2:1:1 my-vg:1:1 vgtwo:1:1"

# alive: the fake lvm2's pids (lvm.pids) still running.
alive() {
	while read -r p; do
		kill -0 "$p" 2>/dev/null && echo "$p"
	done <"$T_DIR/lvm.pids"
}

# An lvm2 that never ends: killed at pvscan_fast/activation_timeout, its VG failed (exit
# status 5, named), its journal entry ended, every other VG activated, nothing left running.
reset_all
: >"$T_DIR/lvm.hang"
: >"$T_DIR/lvm.pids"
pvsf "" --cache -aay --config 'pvscan_fast/activation_timeout=1'
rm -f "$T_DIR/lvm.hang"
if [ "$RC" -eq 5 ] && [ "$(grep -c "did not finish activating VG" "$T_DIR/err")" -eq 4 ]; then
	t_pass "lvm2 hung: exit status 5, each VG named"
else
	t_fail "lvm2 hung: exit status $RC"
	show_output
fi
left=$(oneline alive)
if [ "$(wc -l <"$T_DIR/lvm.pids")" -eq 4 ] && [ -z "$left" ] &&
	[ "$(count "$Q/activate")" -eq 0 ]; then
	t_pass "lvm2 hung: all four killed, journal ended"
else
	t_fail "lvm2 hung: still running: '$left', journal $(count "$Q/activate")"
fi

# SIGTERM while lvm2 runs: passed on, the leader exits 5, the VGs stay journaled and
# --recover activates them.
reset_all
: >"$T_DIR/lvm.hang"
: >"$T_DIR/lvm.pids"
"$PVSCAN_FAST" --cache -aay >"$T_DIR/out" 2>"$T_DIR/err" &
leader=$!
i=0
while [ "$(wc -l <"$T_DIR/lvm.pids")" -lt 1 ] && [ $i -lt 3000 ]; do
	i=$((i + 1))
	sleep 0.01
done
kill -TERM "$leader"
wait "$leader"
RC=$?
rm -f "$T_DIR/lvm.hang"
i=0
while [ -n "$(alive)" ] && [ $i -lt 3000 ]; do
	i=$((i + 1))
	sleep 0.01
done
if [ "$RC" -eq 5 ] && [ -z "$(alive)" ] &&
	[ "$(count "$Q/activate")" -eq 4 ] && lock_free; then
	t_pass "SIGTERM during lvm2: passed on, exit 5, 4 VGs journaled, lock free"
else
	t_fail "SIGTERM during lvm2: exit $RC, journal $(count "$Q/activate")"
	show_output
fi
pvsf "" --cache -aay --recover
expect_ok "SIGTERM during lvm2: --recover"
check "SIGTERM during lvm2" "vg0:1:1 vgmda2:1:1 my-vg:1:1 vgtwo:1:1"

# A caller that ignores SIGCHLD (inherited across exec): lvm2's exit status still counts.
reset_all
PVSCAN_FAST_INJECT="" t_python -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$PVSCAN_FAST" --cache -aay >"$T_DIR/out" 2>"$T_DIR/err"
RC=$?
expect_ok "SIGCHLD ignored"
check "SIGCHLD ignored" "vg0:1:1 vgmda2:1:1 my-vg:1:1 vgtwo:1:1"

if [ -s "$ACTLOG.fds" ]; then
	t_fail "the activation command inherited descriptors: $(oneline sort -u "$ACTLOG.fds")"
else
	t_pass "the activation command inherited no descriptor past stderr"
fi
if [ -s "$ACTLOG.lockfd" ]; then
	t_fail "the activation command held the lock for: $(oneline sort -u "$ACTLOG.lockfd")"
else
	t_pass "the activation command never held the leader lock"
fi

[ "$XFAILED" -eq 0 ] || echo "# $XFAILED checks failed by a known bug (XFAIL, not counted)"
t_done
