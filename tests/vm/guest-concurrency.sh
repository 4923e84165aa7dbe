#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest script: lvm2 commands on the same or another VG while pvscan-fast activates, real kernel.
#
#   tests/vm/vm-run.sh tests/vm/guest-concurrency.sh
#
# VGs cloned from fixtures/single (cs000NN, lv0 linear) and fixtures/two-pv (ct00000: linear,
# striped, two-segment LVs over 2 PVs) on loop devices; pvscan-fast always runs its udev form,
# `--cache -aay --autoactivation event --major M --minor m`, once per PV, as udev would.
#   (a) lvextend and pvscan-fast on one VG, both held off by a third process holding lvm2's VG
#       lock: pvscan-fast must wait for the lock; whichever gets it first, the table ends up the
#       one lvm2 loads from the final metadata (and pvscan-fast, second, must read the metadata
#       again under the lock rather than use what its scan saw);
#   (b) lvm2's `vgchange -an` racing pvscan-fast's activation of a two-PV VG, repeatedly, at
#       staggered delays: no error from either, and every time either all LVs are active with
#       lvm2's tables or none is, nothing suspended or half made;
#   (c) pvscan-fast activating many VGs while lvcreate adds an LV to another VG and to one of
#       them, whose lock is held: pvscan-fast holds no VG lock while it waits for a busy one (it
#       finishes its batch first), all end active with lvm2's tables.
# After each, pvscan-fast's queue and journal are empty and no udev semaphore (0x0d4d....) is
# left; at the end lvm2's vgchange -an leaves no dm device.
set -eu

. "${top_srcdir:-$(dirname "$0")/../..}/tests/vm/guest-lib.sh"
guest_init guest-concurrency.sh /tmp/concurrency
command -v python3 >/dev/null || { echo "SKIP: concurrency: no python3"; exit 77; }
command -v flock >/dev/null || { echo "SKIP: concurrency: no flock(1)"; exit 77; }
RACES=${CONCURRENCY_RACES:-8}
# Single-PV VGs for (c); A (cs00000) is (a)'s, C (cs00001) gets an LV from outside in (c).
NSINGLE=12
LOCKDIR=/run/lock/lvm
holder=""
export LVM_SUPPRESS_FD_WARNINGS=1

# shellcheck disable=SC2317 # called from the traps
cleanup() {
	if [ -n "$holder" ]; then
		touch "$work/release"
		wait "$holder" || true
	fi
	dmsetup udevcomplete_all -y >/dev/null 2>&1 || true
	guest_cleanup
}
trap cleanup EXIT


mask_lvm_rule guest-concurrency.sh
mkdir -p "$work/img" "$work/bin"
[ -d "$LOCKDIR" ] || mkdir -m 0700 "$LOCKDIR"
# Copies: a rebuild on the host during the run must not change the binaries (the command finds
# its engine beside itself).
cp "$PF" "$PF-engine" "$work/bin/"
PF=$work/bin/pvscan-fast

t=$(up)
python3 "$top_srcdir/tests/bench/clone-pvs.py" "$top_srcdir/tests/fixtures/single" "$NSINGLE" \
	"$work/img" cs >/dev/null
python3 "$top_srcdir/tests/bench/clone-pvs.py" "$top_srcdir/tests/fixtures/two-pv" 1 \
	"$work/img" ct >/dev/null
npv=0
for img in "$work"/img/*.img; do
	l=$(losetup -f --show "$img")
	npv=$((npv + 1))
	loops="$loops $l"
	echo "$(basename "$img" .img) $l $(cat "/sys/block/${l#/dev/}/dev")" >>"$work/devs"
done
udevadm settle
echo "# $npv PVs ready in $(since "$t") s"
# The first leader since boot reads every device and activates every complete VG: have that
# done by a plain --cache (no activation), so each case's invocations read only their devices.
"$PF" --cache >/dev/null

# devno IMAGE-STEM: M:m of the loop holding that image (e.g. cs00003-d1).
devno() {
	awk -v s="$1" '$1 == s { print $3 }' "$work/devs"
}

# pf TAG DEVNO...: one udev-form invocation per device, all at once, in the background; their
# pids go to $pf_pids, output to $work/TAG.N.{out,err}.
pf_pids=""
# The test holds VG locks for as long as its checks take (minutes under TCG): pvscan-fast must
# wait them out here, not give up at its default lock deadline.
LOCK_WAIT="pvscan_fast/lock_timeout=1800"
pf() {
	tag=$1
	shift
	k=0
	for mm in "$@"; do
		"$PF" --cache -aay --autoactivation event --config "$LOCK_WAIT" \
			--major "${mm%:*}" --minor "${mm#*:}" >"$work/$tag.$k.out" 2>"$work/$tag.$k.err" &
		pf_pids="$pf_pids $!"
		k=$((k + 1))
	done
}
# pf_wait TAG NAME: wait for $pf_pids; ok when every one exited 0 and wrote nothing to stderr.
pf_wait() {
	rc=0
	for p in $pf_pids; do
		wait "$p" || rc=$?
	done
	pf_pids=""
	if [ "$rc" -eq 0 ] && ! cat "$work/$1".*.err | grep -q .; then
		ok "$2: pvscan-fast exit 0, no message on stderr"
	else
		not_ok "$2: pvscan-fast exit $rc"
		cat "$work/$1".*.err | sed 's/^/#   /' | head -20
	fi
}
# lvm_ok MSG RC ERRFILE: an lvm2 command succeeded without a warning or error.
lvm_ok() {
	if [ "$2" -eq 0 ] && ! [ -s "$3" ]; then
		ok "$1"
	else
		not_ok "$1 (exit $2)"
		sed 's/^/#   /' "$3" | head -20
	fi
}

# dm_state OUT VG...: tables, UUIDs and states of the VGs' devices (dm names start "VG-").
dm_state() {
	out=$1
	shift
	dmsetup table >"$work/t.all" 2>&1 || true
	dmsetup info -c --noheadings --separator ' ' -o name,uuid,attr >"$work/i.all" 2>&1 || true
	for vg; do
		grep "^$vg-" "$work/t.all" || true
		grep "^$vg-" "$work/i.all" | sed 's/^/info /' || true
	done | sort >"$out"
}

# lock_pids KIND FILE...: pids holding (KIND=held) or waiting for (KIND=waiting) a flock on
# any of FILEs, from /proc/locks.
lock_pids() {
	kind=$1
	shift
	inos=""
	for f; do
		i=$(stat -c %i "$f" 2>/dev/null) && inos="$inos $i"
	done
	[ -n "$inos" ] || return 0
	awk -v kind="$kind" -v inos="$inos" '
		BEGIN { n = split(inos, a, " "); for (k = 1; k <= n; k++) want[a[k]] = 1 }
		$2 == "->" { w = 1; pid = $6; dev = $7 }
		$2 != "->" { w = 0; pid = $5; dev = $6 }
		{ sub(/.*:/, "", dev) }
		(dev in want) && ((kind == "waiting") == w) { print pid }' /proc/locks
}
# wait_lock KIND PID SECONDS FILE...: true once PID holds / waits for one of FILEs.
wait_lock() {
	kind=$1
	pid=$2
	secs=$3
	shift 3
	t=$(up)
	while :; do
		lock_pids "$kind" "$@" | grep -qx "$pid" && return 0
		kill -0 "$pid" 2>/dev/null || return 1
		awk -v e="$(since "$t")" -v s="$secs" 'BEGIN { exit !(e > s) }' && return 1
		sleep 0.1
	done
}
# hold VG: a third process takes lvm2's lock of VG (as lvm2 does: flock on V_VG) until release.
hold() {
	rm -f "$work/release"
	flock "$LOCKDIR/V_$1" sh -c "until [ -e $work/release ]; do sleep 0.1; done" &
	holder=$!
	wait_lock held "$holder" 30 "$LOCKDIR/V_$1" ||
		{ echo "concurrency: cannot hold V_$1" >&2; exit 1; }
}
release() {
	touch "$work/release"
	wait "$holder" || true
	holder=""
}

# after_case NAME: pvscan-fast's queue and journal empty, no udev semaphore.
after_case() {
	left=$(t_queue_left /run/lvm | head -5)
	if [ -z "$left" ]; then
		ok "$1: pvscan-fast's queue and journal are empty"
	else
		not_ok "$1: left in pvscan-fast's queue: $left"
	fi
	no_udev_sems "$1: "
}

# oracle NAME VG...: what pvscan-fast left must be what lvm2 loads from the same metadata.
oracle() {
	name=$1
	shift
	udevadm settle
	dm_state "$work/pf.state" "$@"
	lvm vgchange -an "$@" >/dev/null 2>"$work/oracle.err" || true
	lvm vgchange -ay "$@" >/dev/null 2>>"$work/oracle.err" || true
	udevadm settle
	dm_state "$work/lvm2.state" "$@"
	same "$name: tables, UUIDs and states are lvm2's" "$work/lvm2.state" "$work/pf.state"
}

A=cs00000
C=cs00001
B=ct00000

# --- (a) lvextend and pvscan-fast on one VG ---------------------------------------------------
ts=$(up)
lvm vgchange -an >/dev/null 2>&1 || true
rm -f /run/lvm/vgs_online/*

# (a1) pvscan-fast queues for the lock first, lvextend behind it.
name="(a1) pvscan-fast first, lvextend waiting"
hold $A
pf a1 "$(devno $A-d1)"
pfpid=${pf_pids# }
if wait_lock waiting "$pfpid" 60 "$LOCKDIR/V_$A" "$LOCKDIR/V_$A:aux"; then
	ok "$name: pvscan-fast waits for lvm2's lock of $A held by another process"
else
	not_ok "$name: pvscan-fast does not wait for V_$A"
fi
lvm lvextend -L+4M "$A/lv0" >"$work/a1.lvm.out" 2>"$work/a1.lvm.err" &
lvpid=$!
wait_lock waiting "$lvpid" 60 "$LOCKDIR/V_$A" "$LOCKDIR/V_$A:aux" ||
	echo "# (a1): lvextend not seen waiting"
if dmsetup info "$A-lv0" >/dev/null 2>&1; then
	not_ok "$name: $A-lv0 exists while the lock is held elsewhere"
else
	ok "$name: nothing activated while the lock is held elsewhere"
fi
release
pf_wait a1 "$name"
rc=0
wait "$lvpid" || rc=$?
lvm_ok "$name: lvextend succeeded" "$rc" "$work/a1.lvm.err"
if grep -q "now active" "$work"/a1.*.out; then
	ok "$name: pvscan-fast says $A is active"
else
	not_ok "$name: pvscan-fast did not activate $A"
fi
oracle "$name" $A
after_case "$name"

# (a2) lvextend holds the queue, pvscan-fast's scan has seen the old metadata: it must read it
# again under the lock and load the extended LV.
name="(a2) lvextend first, pvscan-fast waiting"
lvm vgchange -an $A >/dev/null 2>&1
rm -f "/run/lvm/vgs_online/$A"
hold $A
lvm lvextend -L+4M "$A/lv0" >"$work/a2.lvm.out" 2>"$work/a2.lvm.err" &
lvpid=$!
wait_lock waiting "$lvpid" 60 "$LOCKDIR/V_$A" ||
	echo "# (a2): lvextend not seen waiting"
pf a2 "$(devno $A-d1)"
pfpid=${pf_pids# }
if wait_lock waiting "$pfpid" 60 "$LOCKDIR/V_$A" "$LOCKDIR/V_$A:aux"; then
	ok "$name: pvscan-fast queues behind lvextend"
else
	not_ok "$name: pvscan-fast not seen waiting for V_$A"
fi
release
rc=0
wait "$lvpid" || rc=$?
lvm_ok "$name: lvextend succeeded" "$rc" "$work/a2.lvm.err"
pf_wait a2 "$name"
size=$(dmsetup table "$A-lv0" 2>/dev/null | awk '{ s += $2 } END { print s + 0 }')
if [ "$size" -eq 32768 ]; then
	ok "$name: pvscan-fast loaded the extended LV (16 MiB), not what its scan saw"
else
	not_ok "$name: $A-lv0 has $size sectors, the metadata says 32768"
fi
oracle "$name" $A
after_case "$name"
lvm vgchange -an $A >/dev/null 2>&1 || true

echo "# (a) took $(since "$ts") s"

# --- (b) vgchange -an racing pvscan-fast, repeatedly --------------------------------------------
ts=$(up)
lvm vgchange -ay $B >/dev/null 2>&1
udevadm settle
dm_state "$work/b.expect" $B
lvm vgchange -an $B >/dev/null 2>&1
udevadm settle
rm -f "/run/lvm/vgs_online/$B"
nlv=$(grep -c '^info ' "$work/b.expect" || true)
echo "# (b): $B has $nlv LVs; $RACES races"
n_up=0
n_down=0
i=0
while [ "$i" -lt "$RACES" ]; do
	name="(b) race $i"
	# Even races: pvscan-fast first, lvm2 after a delay; odd: lvm2 first.
	delay=$(awk -v i="$i" 'BEGIN { printf "%.1f", int(i / 2) % 4 * 0.4 }')
	rc=0
	if [ $((i % 2)) -eq 0 ]; then
		first=pvscan-fast
		pf "b$i" "$(devno $B-d1)" "$(devno $B-d2)"
		sleep "$delay"
		lvm vgchange -an $B >"$work/b$i.lvm.out" 2>"$work/b$i.lvm.err" || rc=$?
	else
		first=lvm2
		lvm vgchange -an $B >"$work/b$i.lvm.out" 2>"$work/b$i.lvm.err" &
		lvpid=$!
		sleep "$delay"
		pf "b$i" "$(devno $B-d1)" "$(devno $B-d2)"
		wait "$lvpid" || rc=$?
	fi
	name="$name ($first first, other after $delay s)"
	pf_wait "b$i" "$name"
	lvm_ok "$name: vgchange -an succeeded" "$rc" "$work/b$i.lvm.err"
	udevadm settle
	dm_state "$work/b$i.state" $B
	if ! [ -s "$work/b$i.state" ]; then
		n_down=$((n_down + 1))
		ok "$name: end state: all down"
	elif cmp -s "$work/b.expect" "$work/b$i.state"; then
		n_up=$((n_up + 1))
		ok "$name: end state: all up, lvm2's tables"
	else
		not_ok "$name: end state is neither all up nor all down"
		diff -u "$work/b.expect" "$work/b$i.state" | sed 's/^/#   /' | head -20
	fi
	after_case "$name"
	if [ -s "$work/b$i.state" ]; then
		lvm vgchange -an $B >/dev/null 2>&1 || true
		udevadm settle
	fi
	rm -f "/run/lvm/vgs_online/$B"
	i=$((i + 1))
done
echo "# (b): $n_up races ended with $B active (pvscan-fast last), $n_down inactive (lvm2 last)"
dm_state "$work/b.final" $B
if ! [ -s "$work/b.final" ]; then
	ok "(b): nothing left after the races"
else
	not_ok "(b): left after the races: $(head -3 "$work/b.final")"
fi

echo "# (b) took $(since "$ts") s"

# --- (c) lvcreate in another VG and in a busy one while pvscan-fast activates many --------------
ts=$(up)
many=""
many_devs=""
k=2
while [ "$k" -lt "$NSINGLE" ]; do
	vg=$(printf 'cs%05d' "$k")
	many="$many $vg"
	many_devs="$many_devs $(devno "$vg-d1")"
	k=$((k + 1))
done
D=cs00006
# c1: one udev call per PV, lvcreate queued on D's lock first; c2: one call for all PVs (one
# batch: D comes up in the middle of it), lvcreate behind pvscan-fast.
for round in 1 2; do
	name="(c$round)"
	# shellcheck disable=SC2086 # VG names have no blanks
	lvm vgchange -an $many $C >/dev/null 2>&1 || true
	udevadm settle
	rm -f /run/lvm/vgs_online/*
	lvm vgchange -ay $C >/dev/null 2>&1
	hold $D
	rcC=0
	rcD=0
	if [ "$round" = 1 ]; then
		name="$name udev calls per PV, lvcreate first"
		lvm lvcreate -L 4M -n "new$round" $D >"$work/c$round.D.out" 2>"$work/c$round.D.err" &
		dpid=$!
		wait_lock waiting "$dpid" 60 "$LOCKDIR/V_$D" || echo "# $name: lvcreate not waiting"
		# shellcheck disable=SC2086
		pf "c$round" $many_devs
	else
		name="$name one call for all PVs, lvcreate after"
		args=""
		for mm in $many_devs; do
			args="$args --major ${mm%:*} --minor ${mm#*:}"
		done
		# shellcheck disable=SC2086
		"$PF" --cache -aay --autoactivation event --config "$LOCK_WAIT" $args \
			>"$work/c$round.0.out" 2>"$work/c$round.0.err" &
		pf_pids=$!
	fi
	lvm lvcreate -L 4M -n "new$round" $C >"$work/c$round.C.out" 2>"$work/c$round.C.err" &
	cpid=$!
	if [ "$round" = 2 ]; then
		lvm lvcreate -L 4M -n "new$round" $D >"$work/c$round.D.out" 2>"$work/c$round.D.err" &
		dpid=$!
	fi
	# The leader reaches D's lock, busy: it must not hold any other VG's lock while it waits.
	waiter=""
	t=$(up)
	while [ -z "$waiter" ]; do
		for p in $pf_pids; do
			if lock_pids waiting "$LOCKDIR/V_$D" "$LOCKDIR/V_$D:aux" | grep -qx "$p"; then
				waiter=$p
			fi
		done
		awk -v e="$(since "$t")" 'BEGIN { exit !(e > 90) }' && break
		[ -n "$waiter" ] || sleep 0.2
	done
	if [ -n "$waiter" ]; then
		vgl=""
		for f in "$LOCKDIR"/V_*; do
			[ -e "$f" ] || continue
			case $f in "$LOCKDIR/V_$D" | "$LOCKDIR/V_$D:aux") continue ;; esac
			lock_pids held "$f" | grep -qx "$waiter" && vgl="$vgl ${f##*/}"
		done
		if [ -z "$vgl" ]; then
			ok "$name: pvscan-fast waits for busy V_$D holding no other VG lock"
		else
			not_ok "$name: pvscan-fast waits for V_$D while holding$vgl"
		fi
		# What is up while it waits: the VGs it claimed before D must be, links and all.
		udevadm settle --timeout=30 || true
		for v in $many; do
			[ -L "/dev/$v/lv0" ] && echo "$v"
		done >"$work/c$round.upwhile"
		echo "# $name: $(wc -l <"$work/c$round.upwhile") VGs up while pvscan-fast waits for V_$D"
	else
		not_ok "$name: pvscan-fast not seen waiting for V_$D within 90 s"
		: >"$work/c$round.upwhile"
	fi
	release
	wait "$cpid" || rcC=$?
	wait "$dpid" || rcD=$?
	pf_wait "c$round" "$name"
	lvm_ok "$name: lvcreate in $C (not being activated) succeeded" "$rcC" "$work/c$round.C.err"
	lvm_ok "$name: lvcreate in $D (being activated, lock held) succeeded" "$rcD" \
		"$work/c$round.D.err"
	udevadm settle
	# shellcheck disable=SC2086 # VG names have no blanks
	dm_state "$work/c$round.pf" $many $C
	bad=$(grep -c '^info ' "$work/c$round.pf" || true)
	# lv0 of each, C's lv0 and new LVs (one per round so far), D's new LVs
	want=$((NSINGLE - 2 + 1 + round + round))
	if [ "$bad" -eq "$want" ]; then
		ok "$name: all $want LVs active"
	else
		not_ok "$name: $bad LVs active, want $want"
	fi
	# shellcheck disable=SC2086
	if [ "$round" = 2 ]; then
		# lvm2's order of "run autoactivation" lines is the claim order
		sed -n 's/.*VG \([^ ]*\) run autoactivation\.$/\1/p' "$work/c2.0.out" |
			sed "/^$D\$/q" | grep -vx "$D" | sort >"$work/c2.before" || true
		if cmp -s "$work/c2.before" "$work/c2.upwhile"; then
			ok "$name: the $(wc -l <"$work/c2.before") VGs claimed before $D were up" \
				"while it waited"
		else
			not_ok "$name: up while waiting for $D differs from those claimed before it"
			diff -u "$work/c2.before" "$work/c2.upwhile" | sed 's/^/#   /' | head
		fi
	fi
	# shellcheck disable=SC2086
	oracle "$name" $many $C
	after_case "$name"
done

echo "# (c) took $(since "$ts") s"

# --- the end: lvm2 takes everything down ------------------------------------------------------
if lvm vgchange -an >"$work/down.out" 2>"$work/down.err"; then
	udevadm settle
	left=$(dmsetup ls 2>&1 | grep -vx 'No devices found' | head -5 || true)
	if [ -z "$left" ]; then
		ok "vgchange -an leaves no dm device"
	else
		not_ok "left after vgchange -an: $left"
	fi
else
	not_ok "final vgchange -an failed"
	sed 's/^/#   /' "$work/down.err" | head -10
fi
after_case "end"
# lvm2's protocol unlinks a lock file on release when nobody else holds or waits on it.
stale=$(find "$LOCKDIR" -mindepth 1 -name 'V_*' 2>/dev/null | head -5)
if [ -z "$stale" ]; then
	ok "end: no VG lock file left in $LOCKDIR"
else
	not_ok "end: VG lock files left: $stale"
fi
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
