#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Coalescing under a udev storm: N+3 invocations of the udev forms released at the same instant.
#
# STORM_N (default 200) single-PV VGs cloned from tests/fixtures/single and one 3-PV VG cloned
# from tests/fixtures/three-pv, on loop devices. Every scenario ends with the same checks:
# every invocation exited 0 and wrote nothing on stderr; every PV has its pvs_online file, with
# its devno, VG and device; every VG is claimed in vgs_online; every VG was activated exactly
# once (PVSCAN_FAST_LVM is a script that logs the VG; for the --udevoutput form the
# LVM_VG_NAME_COMPLETE lines the invocations printed count too, as udev's rule activates
# those); the queue (pending/, inflight/, activate/) is empty; nobody holds the leader lock;
# and pvs_online/, vgs_online/ and pvs_lookup/ are byte for byte what lvm2's own per-device
# `pvscan --cache -aay --major M --minor m`, run once per device in turn, leaves.
#
# Scenarios:
# - the -aay form (`--cache -aay --major M --minor m`), with udev's environment (ACTION,
#   SEQNUM, MAJOR, MINOR) and without it;
# - the form of lvm2's udev rule (69-lvm.rules: --cache --listvg --checkcomplete --vgonline
#   --autoactivation event --udevoutput --journal=output DEVNAME): stdout holds one
#   LVM_VG_NAME_COMPLETE/INCOMPLETE line, naming the VG of the invocation's own device, or
#   nothing; again with every activation of another VG failing (exit status 0 all the same);
# - STORM_ROUNDS (default 3) rounds with a random delay at every protocol step
#   (PVSCAN_FAST_INJECT='*:rand=20'), both forms in turn;
# - devices attached while the storm runs: half attached and released together, the other half
#   attached one by one meanwhile, each invoked for as it appears (-aay form; then the udev form
#   with random delays).
#
# Invocations start together: each one says it is ready, then blocks opening a FIFO for reading;
# the test opens it for writing once all are ready, which releases them all at once.
#
# The test builds (tests/inject/) are used, for PVSCAN_FAST_INJECT. Nothing under the real
# /run/lvm is touched: run and lock directories live in the scratch directory, and every
# lvm.conf accepts only the loop devices attached here (a full scan walks every block device).
# shellcheck disable=SC2154 # top_builddir comes from test-lib.sh
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz lvm flock python3 unshare mount mkfifo diff find sort xargs awk

N=${STORM_N:-200}
ROUNDS=${STORM_ROUNDS:-3}
t_require_inject

ETC="$T_DIR/etc"   # lvm.conf for exactly the devices in $MAP
VGCHANGE='vgchange -aay --autoactivation event --driverloaded n' # what activations run
L2="$T_DIR/l2"     # lvm2's /run
RUN="$T_DIR/run"   # ours: $RUN/lvm, $RUN/lock
ACT="$T_DIR/act.log"
MAP="$T_DIR/map"   # one line per device: DEV MAJ MIN SEQNUM VG PVID IMAGE
ETC_NONE="$T_DIR/etc-none"
ETC_LOOPS="$T_DIR/etc-loops"
GATE="$T_DIR/gate"
CONF="$ETC"        # the LVM_SYSTEM_DIR invocations get
INJ=""             # their PVSCAN_FAST_INJECT
USE_SEQ=1          # whether they get udev's event environment

# The activation stand-in: one line per VG activated, its arguments; optionally as slow as a
# real vgchange.
cat >"$T_DIR/fake-lvm" <<EOF
#!/bin/sh
printf '%s\n' "\$*" >>"$ACT"
[ -z "\${STORM_LVM_SLEEP:-}" ] || sleep "\$STORM_LVM_SLEEP"
exit "\${STORM_LVM_EXIT:-0}"
EOF
chmod 0755 "$T_DIR/fake-lvm"

# write_etc DIR "DEV...": an lvm.conf accepting only these devices (t_lvm_conf).
write_etc() {
	t_lvm_conf "$1" "$2" "$T_CONF_NO_LISTS" "$(t_conf_events)"
}

# exact_etc DIR: accept exactly the devices in $MAP.
exact_etc() {
	write_etc "$1" "$(cut -d' ' -f1 "$MAP")"
}

# ---- images: the 3-PV VG's PVs spread over the list, so halves split it ----

python3 "$top_srcdir/tests/bench/clone-pvs.py" "$FIXTURES/single" "$N" "$T_DIR/img" cs \
	>"$T_DIR/singles" || { echo "FAIL: clone-pvs.py"; exit 1; }
python3 "$top_srcdir/tests/bench/clone-pvs.py" "$FIXTURES/three-pv" 1 "$T_DIR/img" ct \
	>"$T_DIR/three" || { echo "FAIL: clone-pvs.py"; exit 1; }
half=$((N / 2))
{
	sed -n 1p "$T_DIR/three"
	head -n "$half" "$T_DIR/singles"
	sed -n 2p "$T_DIR/three"
	tail -n +"$((half + 1))" "$T_DIR/singles"
	sed -n 3p "$T_DIR/three"
} >"$T_DIR/images"
TOTAL=$(wc -l <"$T_DIR/images")
FIRST=$(((TOTAL + 1) / 2)) # attached before the storm in the attach-while-running scenario

# Each image's PVID, from its label.
t_python "$top_srcdir/tests/lib/lvmdisk.py" pvids "$T_DIR/images" >"$T_DIR/pvids" ||
	{ echo "FAIL: reading PVIDs"; exit 1; }

# attach_image IMAGE: attach it (t_attach: no subshell) and append its line to $MAP.
attach_image() {
	t_attach "$1"
	maj=$((0x$(stat -c %t "$T_DEV")))
	min=$((0x$(stat -c %T "$T_DEV")))
	# udev's SEQNUM for the attach is at most the kernel's count now: never too small.
	seq=$(cat /sys/kernel/uevent_seqnum)
	base=${1##*/}
	pvid=$(grep -F "$1 " "$T_DIR/pvids" | cut -d' ' -f2)
	echo "$T_DEV $maj $min $seq ${base%-d[0-9].img} $pvid $1" >>"$MAP"
}

: >"$MAP"
t0=$(t_now_ms)
while read -r img; do
	attach_image "$img"
done <"$T_DIR/images"
echo "# cloned and attached $TOTAL PVs ($N single-PV VGs, one 3-PV VG)" \
	"in $(($(t_now_ms) - t0)) ms"
mkdir -p "$ETC"
write_etc "$ETC_NONE" ""
write_etc "$ETC_LOOPS" '/dev/loop[0-9]+'

# ---- invocations ----

export LVM_SUPPRESS_FD_WARNINGS=1 PVSCAN_FAST_LVM="$T_DIR/fake-lvm"

# invoke FORM DEV MAJ MIN SEQNUM: one udev-style invocation of ours, as udev would run it, but
# with --driverloaded n: where device-mapper is at hand, pvscan-fast would otherwise activate
# the test's LVs itself instead of running PVSCAN_FAST_LVM (which it then tells the same).
invoke() {
	if [ "$1" = udev ]; then
		set -- "$2" "$3" "$4" "$5" --cache --listvg --checkcomplete --vgonline \
			--autoactivation event --udevoutput --journal=output "$2" --driverloaded n
	else
		set -- "$2" "$3" "$4" "$5" --cache -aay --major "$3" --minor "$4" --driverloaded n
	fi
	dev=$1 maj=$2 min=$3 seq=$4
	shift 4
	if [ "$USE_SEQ" = 1 ]; then
		ACTION=add SEQNUM=$seq MAJOR=$maj MINOR=$min DEVNAME=$dev \
			LVM_SYSTEM_DIR="$CONF" PVSCAN_FAST_RUN_DIR="$RUN/lvm" \
			PVSCAN_FAST_LOCK_DIR="$RUN/lock" PVSCAN_FAST_INJECT="$INJ" "$PFI" "$@"
	else
		LVM_SYSTEM_DIR="$CONF" PVSCAN_FAST_RUN_DIR="$RUN/lvm" \
			PVSCAN_FAST_LOCK_DIR="$RUN/lock" PVSCAN_FAST_INJECT="$INJ" "$PFI" "$@"
	fi
}

# new_storm TAG: a fresh run directory, activation log and output directory ($S).
new_storm() {
	S="$T_DIR/storm-$(echo "$1" | tr -c 'a-zA-Z0-9\n' '-')"
	rm -rf "$RUN" "$S" "$GATE"
	mkdir -p "$RUN" "$S/ready"
	: >"$ACT"
	mkfifo "$GATE"
	NJOBS=0
}

# spawn I FORM DEV MAJ MIN SEQNUM: one invocation, waiting at the gate (or not: GATED=0).
spawn() {
	i=$1
	shift
	(
		: >"$S/ready/$i"
		[ "${GATED:-1}" = 0 ] || : <"$GATE"
		invoke "$@" >"$S/$i.out" 2>"$S/$i.err" 9>&-
		echo $? >"$S/$i.rc"
	) </dev/null &
	NJOBS=$((NJOBS + 1))
}

# release: once every spawned invocation is at the gate, let them all go at once. The write
# end stays open until finish, so a child that was slow to reach the gate is not shut out.
release() {
	t=0
	while [ "$(find "$S/ready" -type f | wc -l)" -lt "$NJOBS" ]; do
		t=$((t + 1))
		[ $t -lt 3000 ] || { echo "FAIL: invocations never reached the gate"; exit 1; }
		sleep 0.02
	done
	exec 9>"$GATE"
	T_RELEASED=$(t_now_ms)
}

finish() {
	wait
	T_FINISHED=$(t_now_ms)
	exec 9>&-
	rm -f "$GATE"
}

# reads: reads completed on the devices in $MAP, as the kernel counts them (O_DIRECT reads
# reach the loop device's queue).
# shellcheck disable=SC2016 # an awk program
reads() {
	while read -r dev _rest; do
		echo "/sys/block/${dev#/dev/}/stat"
	done <"$MAP" | xargs awk '{ n += $1 } END { print n + 0 }'
}

# storm TAG FORM: every device in $MAP at once.
storm() {
	new_storm "$1"
	i=0
	while read -r dev maj min seq _rest; do
		i=$((i + 1))
		spawn "$i" "$2" "$dev" "$maj" "$min" "$seq"
	done <"$MAP"
	r0=$(reads)
	release
	finish
	r1=$(reads)
	echo "# $1: $((r1 - r0)) device reads for $TOTAL devices"
}

# ---- checks ----

# sorted_eq TAG WHAT EXPECTED_FILE ACTUAL_FILE
sorted_eq() {
	LC_ALL=C sort "$3" >"$T_DIR/want"
	LC_ALL=C sort "$4" >"$T_DIR/have"
	if diff -u "$T_DIR/want" "$T_DIR/have" >"$T_DIR/eq.diff"; then
		t_pass "$1: $2"
	else
		t_fail "$1: $2 (- expected, + found):"
		head -20 "$T_DIR/eq.diff" | sed 's/^/#   /'
	fi
}

# check TAG FORM: the end state every scenario must reach.
check() {
	tag=$1
	lvm="$RUN/lvm"
	jobs=$(find "$S" -maxdepth 1 -name '*.rc' | wc -l)
	bad=$(cat "$S"/*.rc 2>/dev/null | grep -cvx 0)
	if [ "$jobs" -eq "$NJOBS" ] && [ "$bad" -eq 0 ]; then
		t_pass "$tag: all $NJOBS invocations exited 0" \
			"(storm over in $((T_FINISHED - T_RELEASED)) ms)"
	else
		t_fail "$tag: $jobs of $NJOBS invocations finished, $bad with a non-zero status"
	fi
	errs=$(find "$S" -maxdepth 1 -name '*.err' -size +0 | wc -l)
	if [ "$errs" -eq 0 ]; then
		t_pass "$tag: nothing on stderr"
	else
		t_fail "$tag: $errs invocations wrote to stderr, e.g.:"
		find "$S" -maxdepth 1 -name '*.err' -size +0 | head -3 | xargs cat |
			sed 's/^/#   /'
	fi

	# pvs_online/PVID holds "MAJ:MIN", "vg:VG", "dev:DEV", one a line.
	while read -r dev maj min _seq vg pvid _img; do
		echo "$pvid $maj:$min $vg $dev"
	done <"$MAP" >"$T_DIR/exp.online"
	for f in "$lvm"/pvs_online/*; do
		[ -f "$f" ] || continue
		echo "${f##*/} $(sed -e 's/^vg://' -e 's/^dev://' "$f" | paste -sd' ' -)"
	done >"$T_DIR/got.online"
	sorted_eq "$tag" "every PV online, with its devno, VG and device" \
		"$T_DIR/exp.online" "$T_DIR/got.online"
	cut -d' ' -f5 "$MAP" | LC_ALL=C sort -u >"$T_DIR/exp.vgs"
	find "$lvm/vgs_online" -mindepth 1 -printf '%f\n' 2>/dev/null >"$T_DIR/got.vgs"
	sorted_eq "$tag" "every VG claimed in vgs_online" "$T_DIR/exp.vgs" "$T_DIR/got.vgs"

	# Activations: the log, plus the lines udev's rule would act on.
	bad=$(grep -cvE "^$VGCHANGE [^ ]+\$" "$ACT")
	[ "$bad" -eq 0 ] ||
		t_fail "$tag: $bad activations not run as vgchange -aay --autoactivation event VG"
	sed 's/.* //' "$ACT" >"$T_DIR/got.act"
	if [ "$2" = udev ]; then
		odd=0
		for f in "$S"/*.out; do
			if [ "$(wc -l <"$f")" -gt 1 ] ||
				grep -qvE "^LVM_VG_NAME_(COMPLETE|INCOMPLETE)='[^']+'\$" "$f"; then
				odd=$((odd + 1))
				[ $odd -gt 3 ] || sed "s|^|#   ${f##*/}: |" "$f"
			fi
		done
		if [ $odd -eq 0 ]; then
			t_pass "$tag: stdout holds one LVM_VG_NAME_(IN)COMPLETE line or nothing"
		else
			t_fail "$tag: $odd invocations printed something else"
		fi
		# Invocation I ran for the device on line I of $MAP; its line names that VG.
		odd=0
		for f in "$S"/*.out; do
			[ -s "$f" ] || continue
			i=${f##*/}
			vg=$(sed -n "${i%.out}p" "$MAP" | cut -d' ' -f5)
			if ! grep -qE "^LVM_VG_NAME_(COMPLETE|INCOMPLETE)='$vg'\$" "$f"; then
				odd=$((odd + 1))
				echo "#   ${f##*/} (a device of $vg): $(cat "$f")"
			fi
		done
		if [ $odd -eq 0 ]; then
			t_pass "$tag: each line names the VG of the invocation's own device"
		else
			t_fail "$tag: $odd invocations named another VG than their device's"
		fi
		cat "$S"/*.out | sed -n "s/^LVM_VG_NAME_COMPLETE='\(.*\)'\$/\1/p" >"$T_DIR/udev.vgs"
		echo "# $tag: $(wc -l <"$T_DIR/udev.vgs") VGs left to udev's rule," \
			"$(wc -l <"$T_DIR/got.act") activated by leaders," \
			"$(find "$S" -maxdepth 1 -name '*.out' -size +0 | wc -l) printed"
		cat "$T_DIR/udev.vgs" >>"$T_DIR/got.act"
	else
		echo "# $tag: $(find "$S" -maxdepth 1 -name '*.out' -size +0 | wc -l) leaders" \
			"(invocations that printed)"
	fi
	sorted_eq "$tag" "every VG activated exactly once" "$T_DIR/exp.vgs" "$T_DIR/got.act"

	t_queue_drained "$tag" "$lvm" "$RUN/lock/pvscan-fast.leader"
}

# ---- lvm2's end state: its per-device form, once per device in turn ----

# lvm2_run: lvm2's state for the devices in $MAP, in $L2/lvm. One private namespace for all
# the runs (as run_lvm2 in lvm2-side.sh, but without a namespace per device).
# shellcheck disable=SC2016
lvm2_run() {
	rm -rf "$L2"
	mkdir -m 0755 "$L2"
	t0=$(t_now_ms)
	LVM_SYSTEM_DIR="$ETC" unshare --mount --propagation private sh -c '
		mount --bind "$0" /run || exit 1
		bad=0
		while read -r _dev maj min _rest; do
			lvm pvscan --cache -aay --major "$maj" --minor "$min" --driverloaded n \
				</dev/null || bad=$((bad + 1))
		done
		echo "$bad" >"$1"' "$L2" "$T_DIR/lvm2.bad" \
		<"$MAP" >"$T_DIR/lvm2.out" 2>"$T_DIR/lvm2.err"
	echo "# lvm2: $(wc -l <"$MAP") per-device pvscans in $(($(t_now_ms) - t0)) ms," \
		"$(cat "$T_DIR/lvm2.bad" 2>/dev/null || echo all) failed"
}

# same_as_lvm2 TAG: pvs_online/, vgs_online/, pvs_lookup/ identical (names and bytes).
same_as_lvm2() {
	ok=1
	for d in pvs_online vgs_online pvs_lookup; do
		if [ ! -d "$L2/lvm/$d" ] && [ ! -d "$RUN/lvm/$d" ]; then
			continue
		fi
		if ! diff -r "$L2/lvm/$d" "$RUN/lvm/$d" >"$T_DIR/lvm2.diff" 2>&1; then
			ok=0
			echo "# $1: $d differs (lvm2 <, ours >):"
			head -10 "$T_DIR/lvm2.diff" | sed 's/^/#   /'
		fi
	done
	if [ $ok -eq 1 ]; then
		t_pass "$1: pvs_online/, vgs_online/, pvs_lookup/ as lvm2 leaves them"
	else
		t_fail "$1: state differs from lvm2's"
	fi
}

exact_etc "$ETC"
lvm2_run

# ---- the storms ----

CONF="$ETC"
storm aay-udevenv aay
check "-aay, udev environment" aay
same_as_lvm2 "-aay, udev environment"

USE_SEQ=0
storm aay-plain aay
check "-aay, no SEQNUM" aay
same_as_lvm2 "-aay, no SEQNUM"
USE_SEQ=1

storm udev udev
check "udev form" udev
same_as_lvm2 "udev form"

# The udev form answers for its own device only, as lvm2's (which never touches another
# device): with every activation a leader runs for other VGs failing, each invocation still
# exits 0 (udev drops the whole output of a program that fails, LVM_VG_NAME_COMPLETE
# included) and prints its own VG's line.
export STORM_LVM_EXIT=5
storm udev-others-fail udev
unset STORM_LVM_EXIT
check "udev form, the leaders' activations of other VGs failing" udev

r=1
while [ $r -le "$ROUNDS" ]; do
	INJ='*:rand=20'
	form=aay
	[ $((r % 2)) -eq 1 ] || form=udev
	storm "rand-$r" "$form"
	INJ=""
	check "random delays, round $r ($form)" "$form"
	same_as_lvm2 "random delays, round $r ($form)"
	r=$((r + 1))
done

# ---- devices attached while the storm runs ----
#
# The second half is detached and attached again one by one after the release, so its loop
# names are not known when lvm.conf is written. The filter then accepts every /dev/loopN, which
# is safe only if no full scan happens: a full scan would read other people's loop devices. So
# the run directory is first seeded by a full scan that accepts no device (it leaves the scanned
# record, so later leaders read only the devices named, all of them ours). Activations take
# 10 ms here, as a real vgchange would, so the leaders are still at work when devices arrive.

# attach_storm TAG FORM: the first half released together, the second attached meanwhile.
attach_storm() {
	tag=$1
	head -n "$FIRST" "$MAP" >"$T_DIR/map.first"
	tail -n +"$((FIRST + 1))" "$MAP" >"$T_DIR/map.second"
	while read -r dev _rest; do
		t_detach "$dev"
	done <"$T_DIR/map.second"
	cp "$T_DIR/map.first" "$MAP"

	new_storm "$tag"
	LVM_SYSTEM_DIR="$ETC_NONE" PVSCAN_FAST_RUN_DIR="$RUN/lvm" \
		PVSCAN_FAST_LOCK_DIR="$RUN/lock" "$PFI" --cache \
		>"$T_DIR/seed.out" 2>"$T_DIR/seed.err"
	rc=$?
	if [ $rc -eq 0 ] && [ -f "$RUN/lvm/pvscan-fast/scanned" ] &&
		! [ -s "$T_DIR/seed.err" ]; then
		t_pass "$tag: seeded by a full scan of no device"
	else
		t_fail "$tag: seeding full scan: exit status $rc"
		sed 's/^/#   /' "$T_DIR/seed.err"
	fi
	CONF="$ETC_LOOPS"
	export STORM_LVM_SLEEP=0.01
	i=0
	while read -r dev maj min seq _rest; do
		i=$((i + 1))
		spawn "$i" "$2" "$dev" "$maj" "$min" "$seq"
	done <"$MAP"
	release
	late=0
	GATED=0
	while read -r _dev _maj _min _seq _vg _pvid img; do
		attach_image "$img"
		i=$((i + 1))
		late=$((late + 1))
		# shellcheck disable=SC2046 # the fields of the line just added
		spawn "$i" "$2" $(tail -n 1 "$MAP" | cut -d' ' -f1-4)
	done <"$T_DIR/map.second"
	T_ATTACHED=$(t_now_ms)
	GATED=1
	finish
	unset STORM_LVM_SLEEP
	CONF="$ETC"
	echo "# $tag: $late devices attached, the last" \
		"$((T_ATTACHED - T_RELEASED)) ms into the storm"
	# A follower prints nothing; a leader reads its own device and prints about it.
	followers=0
	j=$((i - late + 1))
	while [ $j -le "$i" ]; do
		[ -s "$S/$j.out" ] || followers=$((followers + 1))
		j=$((j + 1))
	done
	if [ $followers -gt 0 ]; then
		t_pass "$tag: $followers of the $late late invocations found a leader at work"
	else
		t_fail "$tag: no late invocation found a leader at work: the test did not overlap"
	fi
	check "$tag" "$2"
	exact_etc "$ETC"
	lvm2_run
	same_as_lvm2 "$tag"
}

attach_storm "attach while running (-aay)" aay
INJ='*:rand=20'
attach_storm "attach while running (udev form, random delays)" udev
INJ=""

t_done
