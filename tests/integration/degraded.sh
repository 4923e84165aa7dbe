#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Degraded activation after a deadline, on this host (no device-mapper: lvm2 is a stand-in
# that logs what it is asked): pvscan_fast/degraded_activation and _timeout are read from
# lvm.conf; a leader that leaves a VG incomplete records it once and arranges the check (a
# systemd timer through a stand-in systemd-run, with its exact arguments; without one, a
# background process that runs the check at the deadline with no further invocation); the
# check hands a raid1 VG missing a PV to `vgchange -aay --activationmode degraded`, leaves a
# linear VG missing a PV down, leaves a VG whose PVs all arrived in time to the normal
# activation, and changes nothing when run again; --dry-run says what it would do and does
# nothing; with the setting off nothing is recorded or armed; --status shows the raid1 VG
# degraded with lvm2's exit status. The raid1 VG is written with
# vgcfgrestore, as lvcreate cannot make raid without device-mapper.
. "$(dirname "$0")/../lib/test-lib.sh"
t_require lvm unshare mount truncate losetup python3
. "$(dirname "$0")/../lib/lvm2-side.sh"

RUN="$PF/lvm"
LOCK="$PF/lock/lvm"
LOG="$T_DIR/lvm.log"
SDLOG="$T_DIR/systemd-run.log"

# The lvm2 stand-in: one line per call, its arguments.
cat >"$T_DIR/fake-lvm" <<EOF
#!/bin/sh
echo "\$*" >>"$LOG"
EOF
# systemd-run stand-ins: one queues nothing and says it did, the other fails.
cat >"$T_DIR/fake-sdrun" <<EOF
#!/bin/sh
echo "\$*" >>"$SDLOG"
EOF
cat >"$T_DIR/failing-sdrun" <<EOF
#!/bin/sh
echo "\$*" >>"$SDLOG"
exit 1
EOF
chmod 0755 "$T_DIR/fake-lvm" "$T_DIR/fake-sdrun" "$T_DIR/failing-sdrun"

# mkimg NAME: a 64 MiB scratch image on a loop device, in T_DEV.
mkimg() {
	truncate -s 64M "$T_DIR/$1.img"
	t_attach_rw "$T_DIR/$1.img"
}

# mkraid1 VG A B: a raid1 LV r1 (4 MiB) over A and B, written as lvm2 2.03.16 writes one.
mkraid1() {
	{
		lvm_tool pvcreate -q --devices "$2,$3" "$2" "$3" &&
			lvm_tool vgcreate -q -s 1m --devices "$2,$3" "$1" "$2" "$3" &&
			lvm_tool lvcreate -q --devices "$2,$3" -an -Zn -L 1M -n ph0 "$1" "$2" &&
			lvm_tool lvcreate -q --devices "$2,$3" -an -Zn -L 4M -n ph1 "$1" "$2" &&
			lvm_tool lvcreate -q --devices "$2,$3" -an -Zn -L 1M -n ph2 "$1" "$3" &&
			lvm_tool lvcreate -q --devices "$2,$3" -an -Zn -L 4M -n ph3 "$1" "$3" &&
			lvm_tool vgcfgbackup -q --devices "$2,$3" -f "$T_DIR/$1.orig" "$1" &&
			python3 - "$T_DIR/$1.orig" "$T_DIR/$1.new" <<'EOF' &&
import re, sys
text = open(sys.argv[1]).read()
names = {"ph0": "r1_rmeta_0", "ph1": "r1_rimage_0", "ph2": "r1_rmeta_1", "ph3": "r1_rimage_1"}
for old, new in names.items():
    start = text.index("\t\t" + old + " {")
    end = text.index("\n\t\t}\n", start)
    block = text[start:end].replace(old + " {", new + " {", 1).replace(', "VISIBLE"', "")
    text = text[:start] + block + text[end:]
raid = """\t\tr1 {
\t\t\tid = "aaaaaa-aaaa-aaaa-aaaa-aaaa-aaaa-r1r1r1"
\t\t\tstatus = ["READ", "WRITE", "VISIBLE"]
\t\t\tflags = []
\t\t\tsegment_count = 1
\t\t\tsegment1 {
\t\t\t\tstart_extent = 0
\t\t\t\textent_count = 4
\t\t\t\ttype = "raid1"
\t\t\t\tdevice_count = 2
\t\t\t\tregion_size = 1024
\t\t\t\traids = ["r1_rmeta_0", "r1_rimage_0", "r1_rmeta_1", "r1_rimage_1"]
\t\t\t}
\t\t}
"""
at = text.index("\t\tr1_rmeta_0 {")
open(sys.argv[2], "w").write(text[:at] + raid + text[at:])
EOF
			lvm_tool vgcfgrestore -q --force --devices "$2,$3" -f "$T_DIR/$1.new" "$1"
	} >"$T_DIR/mkvg.log" 2>&1 || {
		echo "FAIL: cannot make raid1 VG $1" >&2
		cat "$T_DIR/mkvg.log" >&2
		exit 1
	}
}

# mklinear VG A B: a linear LV that spans A and B.
mklinear() {
	{
		lvm_tool pvcreate -q --devices "$2,$3" "$2" "$3" &&
			lvm_tool vgcreate -q -s 1m --devices "$2,$3" "$1" "$2" "$3" &&
			lvm_tool lvcreate -q --devices "$2,$3" -an -Zn -L 80M -n lin "$1"
	} >"$T_DIR/mkvg.log" 2>&1 || {
		echo "FAIL: cannot make linear VG $1" >&2
		cat "$T_DIR/mkvg.log" >&2
		exit 1
	}
}

mkimg ra && RA=$T_DEV
mkimg rb && RB=$T_DEV
mkimg la && LA=$T_DEV
mkimg lb && LB=$T_DEV
mkimg ca && CA=$T_DEV
mkimg cb && CB=$T_DEV
t_lvm_conf "$ETC" "$RA $RB $LA $LB $CA $CB" "$T_CONF_NO_LISTS"
mkraid1 vgr "$RA" "$RB"
mklinear vgl "$LA" "$LB"
mkraid1 vgc "$CA" "$CB"
if lvm_tool lvs --noheadings -o lv_name,segtype --devices "$RA,$RB" vgr 2>/dev/null |
	grep -q "r1 *raid1"; then
	t_pass "lvm2 reads the hand-written raid1 VG"
else
	t_fail "lvm2 does not read the hand-written raid1 VG"
fi

# conf SECONDS|off DEVS: the test's lvm.conf with degraded activation on after SECONDS, or off;
# only DEVS are there (a first leader reads every device lvm2 would: the rest are absent).
conf() {
	case $1 in
	off) sect="" ;;
	*) sect="pvscan_fast {
	degraded_activation = 1
	degraded_activation_timeout = $1
}" ;;
	esac
	t_lvm_conf "$ETC" "$2" "$T_CONF_NO_LISTS" "$(t_conf_events)
$sect"
}
PRESENT="$RA $LA $CA"

fresh() {
	rm -rf "$PF" "$LOG" "$SDLOG"
	mkdir -p "$RUN" "$LOCK"
}

# pf ARGS...: pvscan-fast on this test's state, with the stand-ins (systemd-run: SDRUN).
SDRUN="$T_DIR/fake-sdrun"
pf() {
	LVM_SYSTEM_DIR="$ETC" PVSCAN_FAST_RUN_DIR="$RUN" PVSCAN_FAST_LOCK_DIR="$LOCK" \
		PVSCAN_FAST_LVM="$T_DIR/fake-lvm" PVSCAN_FAST_SYSTEMD_RUN="$SDRUN" \
		"$PVSCAN_FAST" "$@" --driverloaded n
}

# event DEV: what the udev rule runs for DEV.
event() {
	pf --cache --activate ay --autoactivation event \
		--major "$(printf '%d' "0x$(stat -L -c %t "$1")")" \
		--minor "$(printf '%d' "0x$(stat -L -c %T "$1")")"
}

state_of() {
	sed -n 's/^state=//p' "$RUN/pvscan-fast/degraded/$1" 2>/dev/null
}

expect_state() {
	got=$(state_of "$2")
	if [ "$got" = "$3" ]; then
		t_pass "$1: VG $2 recorded $3"
	else
		t_fail "$1: VG $2 recorded '${got:-no record}', want $3"
		sed 's/^/#   /' "$RUN/pvscan-fast/degraded/$2" 2>/dev/null
	fi
}

calls() {
	if [ -e "$LOG" ]; then grep -c -- "$1" "$LOG" || true; else echo 0; fi
}

# ---- the setting off: lvm2's behaviour, nothing recorded or armed ----
fresh
conf off "$PRESENT"
event "$RA" >"$T_DIR/out" 2>&1
if [ ! -e "$RUN/pvscan-fast/degraded" ] && [ ! -e "$SDLOG" ] && [ ! -e "$LOG" ]; then
	t_pass "off: nothing recorded, armed or activated"
else
	t_fail "off: something was recorded, armed or activated"
fi
if pf --cache --activate ay --degradedcheck >"$T_DIR/out" 2>&1 && [ ! -e "$LOG" ]; then
	t_pass "off: the check does nothing"
else
	t_fail "off: the check did something"
fi

# ---- on, with a systemd-run stand-in: one timer with the check's exact command line ----
fresh
conf 2 "$PRESENT"
event "$RA" >"$T_DIR/out" 2>&1
expect_state "first PV of vgr" vgr waiting
event "$LA" >"$T_DIR/out" 2>&1
event "$CA" >"$T_DIR/out" 2>&1
expect_state "first PV of vgl" vgl waiting
if [ "$(wc -l <"$SDLOG")" -eq 1 ] &&
	grep -q -- "--on-active=2s --timer-property=AccuracySec=1s --property=DefaultDependencies=no --unit=pvscan-fast-degraded-[0-9]*-[0-9]* .* --setenv=PVSCAN_FAST_RUN_DIR=$RUN .*-- .*pvscan-fast-engine --cache --activate ay --degradedcheck" "$SDLOG"; then
	t_pass "one timer for the VGs a pass left incomplete, running the check at the deadline"
else
	t_fail "timers: $(cat "$SDLOG" 2>/dev/null)"
fi
# the second PV of vgc arrives before the deadline: normal activation, no new timer
: >"$SDLOG"
conf 2 "$PRESENT $CB"
event "$CB" >"$T_DIR/out" 2>&1
if [ "$(calls "vgchange -aay --autoactivation event.* vgc")" -eq 1 ] && [ ! -s "$SDLOG" ]; then
	t_pass "vgc complete in time: activated as an event, no timer"
else
	t_fail "vgc complete in time: $(cat "$LOG")"
fi
# a later PV of an incomplete VG keeps the first one's time
first=$(sed -n 's/^first_seen_ns=//p' "$RUN/pvscan-fast/degraded/vgr")
pf --cache --activate ay "$RA" >"$T_DIR/out" 2>&1
[ "$(sed -n 's/^first_seen_ns=//p' "$RUN/pvscan-fast/degraded/vgr")" = "$first" ] &&
	[ ! -s "$SDLOG" ] && t_pass "seen again: the first sighting's time kept, no timer" ||
	t_fail "seen again: the record or timers changed"

# the timer firing early changes nothing and asks again for the rest
pf --cache --activate ay --degradedcheck >"$T_DIR/out" 2>&1
expect_state "early check" vgr waiting
expect_state "early check, every PV there" vgc complete
[ "$(calls "degraded")" -eq 0 ] && t_pass "early check: nothing activated" ||
	t_fail "early check activated something"

# --dry-run at the deadline: what it would do, nothing done
sleep 3
pf --cache --activate ay --degradedcheck --dry-run >"$T_DIR/dry" 2>&1
if grep -q "VG vgr degraded activation: activate (raid LV runs degraded: LV r1 keeps enough legs" "$T_DIR/dry" &&
	grep -q "VG vgl degraded activation: refuse (no LV can run degraded: LV lin needs a missing PV" "$T_DIR/dry" &&
	[ "$(calls "degraded")" -eq 0 ] && [ "$(state_of vgr)" = waiting ]; then
	t_pass "--dry-run: the decisions said, nothing done"
else
	t_fail "--dry-run: $(cat "$T_DIR/dry")"
fi

# the timer fires: vgr degraded, vgl stays down, vgc was activated normally
pf --cache --activate ay --degradedcheck >"$T_DIR/out" 2>&1
rc=$?
expect_state "deadline" vgr degraded
expect_state "deadline" vgl refused
expect_state "deadline" vgc complete
if [ "$(calls "vgchange -aay --activationmode degraded .*vgr$")" -eq 1 ] &&
	[ "$(calls "degraded.* vgl")" -eq 0 ] && [ "$(calls "degraded.* vgc")" -eq 0 ] &&
	[ $rc -eq 0 ]; then
	t_pass "deadline: vgr handed to lvm2 degraded, nothing else"
else
	t_fail "deadline: exit $rc, lvm2 calls: $(cat "$LOG")"
fi
[ -e "$RUN/vgs_online/vgr" ] && [ ! -e "$RUN/vgs_online/vgl" ] &&
	t_pass "vgr claimed in vgs_online, vgl not" || t_fail "vgs_online claims"
grep -q "^lvm_status=0$" "$RUN/pvscan-fast/degraded/vgr" &&
	t_pass "lvm2's exit status recorded" || t_fail "lvm2's exit status not recorded"
# --status tells it: vgr up degraded (so not healthy), by lvm2 with exit status 0
if command -v jq >/dev/null 2>&1; then
	pf --status --json >"$T_DIR/status.json" 2>/dev/null
	if jq -e '.healthy == false and (.vgs[] | select(.name == "vgr") |
		.state == "degraded" and .degraded.state == "degraded" and
		.degraded.lvm2_status == 0 and .activation.how == "degraded" and
		.activation.lvm2_status == 0)' "$T_DIR/status.json" >/dev/null; then
		t_pass "--status: vgr degraded, lvm2's exit status 0"
	else
		t_fail "--status: $(jq -c '.vgs[] | select(.name == "vgr")' "$T_DIR/status.json")"
	fi
fi

# the timer firing twice, or late: nothing more
pf --cache --activate ay --degradedcheck >"$T_DIR/out" 2>&1
[ "$(calls "degraded")" -eq 1 ] && t_pass "second check: nothing more" ||
	t_fail "second check ran lvm2 again"
# the missing PV arrives after all: vgr was claimed, nothing is activated twice
conf 2 "$PRESENT $CB $RB"
event "$RB" >"$T_DIR/out" 2>&1
[ "$(calls "vgr")" -eq 1 ] && t_pass "late PV: vgr not activated again" ||
	t_fail "late PV: $(cat "$LOG")"

# ---- no systemd: a background process runs the check at the deadline by itself ----
fresh
conf 1 "$PRESENT"
SDRUN="$T_DIR/failing-sdrun"
event "$RA" >"$T_DIR/out" 2>&1
expect_state "no systemd, first PV" vgr waiting
grep -q "sleeping in the background instead" "$T_DIR/out" &&
	t_pass "a failing systemd-run is said, and the fallback used" ||
	t_fail "no word of the failing systemd-run: $(cat "$T_DIR/out")"
i=0
while [ "$(state_of vgr)" != degraded ] && [ $i -lt 600 ]; do
	sleep 0.1
	i=$((i + 1))
done
expect_state "no systemd, no further invocation" vgr degraded
[ "$(calls "vgchange -aay --activationmode degraded .*vgr$")" -eq 1 ] &&
	t_pass "no systemd: lvm2 ran once, degraded" || t_fail "no systemd: $(cat "$LOG")"

t_done
