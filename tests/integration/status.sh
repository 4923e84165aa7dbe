#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# --status tells the boot as the test set it up, from the records alone. Loop PVs made by
# lvm2: vg0 (single), a VG lvm2 made with another host's system ID (vgforeign), and vgtwo
# (two-pv) of which only d1 is attached at first. Each device is announced as udev would
# (`--cache -aay --major M --minor m`), activation is a fake lvm that logs the VG and exits 0
# (--driverloaded n: nothing reaches device-mapper). Checked with jq on --status --json:
#   all up     vg0 complete, activated by lvm2 with exit status 0; vgforeign refused as
#              foreign and not counted against health; exit 0; leader not running, queue empty;
#   missing    vgtwo incomplete with d2's PVID, its device hint and size from the metadata;
#              exit 5;
#   dead       d2 arrives and its leader is killed (SIGKILL) once vgtwo's activation was
#              journaled: the journal entry is shown as left by a dead leader, exit 5; then
#              --recover finishes it and --status is healthy again (vgtwo activated, recover);
#   torn       a last line cut in the middle and junk lines are counted as unreadable and
#              change nothing else; --status does no device I/O (a device's read is never
#              needed: the records, the queue directory and /proc/locks are all it reads).
# shellcheck disable=SC2154 # top_srcdir, top_builddir come from test-lib.sh
. "$(dirname "$0")/../lib/test-lib.sh"
t_require_inject
t_require xz jq flock

attach_fixture() { # NAME FIXTURE IMAGE
	img=$(t_unpack "$FIXTURES/$2/$3.img.xz" "$1.img")
	t_attach "$img"
	eval "DEV_$1=$T_DEV"
	eval "DEVNO_$1=$(stat -L -c '%Hr:%Lr' "$T_DEV")"
}

attach_fixture s0 single d1
attach_fixture t1 two-pv d1
# d2 is attached later; its PVID, hint and size are what vgtwo's metadata says of it
img_t2=$(t_unpack "$FIXTURES/two-pv/d2.img.xz" t2.img)
PVID_t2=$(awk '$1 == "d2.img" { print $2 }' "$FIXTURES/two-pv/devices")
HINT_t2=$(awk '$1 == "d2.img" { print $3 }' "$FIXTURES/two-pv/devices")
SIZE_t2=$(jq -r --arg d "$HINT_t2" '.report[0].pv[] | select(.pv_name == $d) | .dev_size' \
	"$FIXTURES/two-pv/pvs.json")
SIZE_t2=$((SIZE_t2 / 512))

# vgforeign: made by lvm2 as host "elsewhere"; this host is "here" (lvmlocal)
truncate -s 16m "$T_DIR/f0.img"
t_attach_rw "$T_DIR/f0.img"
DEV_f0=$T_DEV
DEVNO_f0=$(stat -L -c '%Hr:%Lr' "$T_DEV")
SID_CONF='global { system_id_source = "lvmlocal" } local { system_id = "elsewhere" }'
t_lvm "$DEV_f0" pvcreate -q "$DEV_f0" >/dev/null 2>&1 &&
	t_lvm "$DEV_f0" vgcreate -q --config "$SID_CONF" vgforeign "$DEV_f0" >/dev/null 2>&1 ||
	{
		echo "FAIL: lvm2 could not make vgforeign"
		exit 1
	}

RUN="$T_DIR/run/lvm"
LOCKDIR="$T_DIR/run/lock/lvm"
mkdir -p "$T_DIR/run"
# conf "DEV...": lvm.conf accepting exactly these devices, this host's system ID "here"
conf() {
	t_lvm_conf "$T_DIR/etc" "$1" "$T_CONF_NO_LISTS" \
		"$(t_conf_events 'system_id_source = "lvmlocal"')
local {
	system_id = \"here\"
}"
}
# the first leader reads every device the filter accepts: vgtwo's d1 is not there yet
conf "$DEV_s0 $DEV_f0"
ACTLOG="$T_DIR/activations"
cat >"$T_DIR/lvm" <<EOF
#!/bin/sh
for a; do vg=\$a; done
echo "\$vg" >>"$ACTLOG"
exit 0
EOF
chmod +x "$T_DIR/lvm"
: >"$ACTLOG"
export LVM_SYSTEM_DIR="$T_DIR/etc" PVSCAN_FAST_RUN_DIR="$RUN" PVSCAN_FAST_LOCK_DIR="$LOCKDIR"
export PVSCAN_FAST_LVM="$T_DIR/lvm" PVSCAN_FAST_ENGINE="$PFI-engine" LVM_SUPPRESS_FD_WARNINGS=1
export PVSCAN_FAST_JOURNAL=0
unset ACTION SEQNUM MAJOR MINOR DEVNAME PVSCAN_FAST_INJECT PVSCAN_FAST_DEBUG

# announce NAME [INJECT]: the udev call for a device; RC its exit status
announce() {
	eval "dn=\$DEVNO_$1"
	PVSCAN_FAST_INJECT="${2:-}" "$PFI" --cache -aay --driverloaded n \
		--major "${dn%:*}" --minor "${dn#*:}" >"$T_DIR/out" 2>"$T_DIR/err"
	RC=$?
}

# status TAG: --status --json into $T_DIR/status.json, its exit status in SRC
status() {
	"$PFI" --status --json --driverloaded n >"$T_DIR/status.json" 2>"$T_DIR/status.err"
	SRC=$?
	if jq -e . "$T_DIR/status.json" >/dev/null 2>&1; then
		t_pass "$1: --status --json is JSON"
	else
		t_fail "$1: --status --json is not JSON"
		sed 's/^/#   /' "$T_DIR/status.json" "$T_DIR/status.err" | head -20
	fi
}

# check TAG JQ-EXPR: the expression is true of the last status
check() {
	if jq -e "$2" "$T_DIR/status.json" >/dev/null 2>&1; then
		t_pass "$1"
	else
		t_fail "$1 ($2)"
		jq -c '.vgs[] | {name, state, ok, problem, activation, missing}' \
			"$T_DIR/status.json" 2>/dev/null | sed 's/^/#   /'
	fi
}

expect_rc() { # TAG WANT GOT
	if [ "$2" = "$3" ]; then t_pass "$1: exit status $3"; else t_fail "$1: exit status $3, want $2"; fi
}

vg() { echo ".vgs[] | select(.name == \"$1\")"; }

# --- all up: vg0 and vgforeign
announce s0
announce f0
status "all up"
expect_rc "all up" 0 "$SRC"
check "all up: healthy" '.healthy == true and .version == 1'
check "all up: vg0 complete, ok" "$(vg vg0) | .state == \"complete\" and .ok"
check "all up: vg0 handed to lvm2, exit status 0" \
	"$(vg vg0) | .activation.how == \"lvm2\" and .activation.result == \"ok\" and .activation.lvm2_status == 0"
check "all up: vg0 claimed by a leader" "$(vg vg0) | .claim.taken == false and .claim.pid > 0"
check "all up: vg0 arrival before completion before activation" \
	"$(vg vg0) | .first_arrival_us <= .complete_us and .complete_us <= .claim.us and .claim.us <= .activation.begin_us and .activation.begin_us <= .activation.end_us"
check "all up: vgforeign refused for its system ID, ok" \
	"$(vg vgforeign) | .state == \"refused\" and (.refused | test(\"foreign.*elsewhere\")) and .ok and .activation == null"
check "all up: no leader, queue empty, no leftovers" \
	'.leader.running == false and (.queue | length) == 0 and .leftovers == false'
check "all up: device-mapper not asked (--driverloaded n)" '.device_mapper == "unavailable"'
check "all up: no unreadable record" '.records.unreadable == 0 and .records.read > 0'
if [ "$(grep -cx vg0 "$ACTLOG")" = 1 ] && ! grep -qx vgforeign "$ACTLOG"; then
	t_pass "all up: lvm2 asked for vg0 once, never for vgforeign"
else
	t_fail "all up: activations: $(tr '\n' ' ' <"$ACTLOG")"
fi
"$PFI" --status --driverloaded n >"$T_DIR/status.txt" 2>&1
if grep -q '^pvscan-fast status: healthy' "$T_DIR/status.txt" &&
	grep -Eq '^vg0 +complete +1 .* lvm2 ok ' "$T_DIR/status.txt" &&
	! grep -q "$(printf '\033')" "$T_DIR/status.txt"; then
	t_pass "all up: the table says healthy, names vg0, no colour into a file"
else
	t_fail "all up: the table"
	sed 's/^/#   /' "$T_DIR/status.txt" | head -20
fi

# --- missing: vgtwo's d1 alone
conf "$DEV_s0 $DEV_t1 $DEV_f0"
announce t1
status "missing"
expect_rc "missing" 5 "$SRC"
check "missing: not healthy" '.healthy == false'
check "missing: vgtwo incomplete, 1 PV missing, first among the VGs" \
	".vgs[0].name == \"vgtwo\" and .vgs[0].state == \"incomplete\" and .vgs[0].need == 1 and .vgs[0].ok == false"
check "missing: d2 by PVID, its device hint and size" \
	"$(vg vgtwo) | .missing == [{\"pvid\": \"$PVID_t2\", \"hint\": \"$HINT_t2\", \"size_sectors\": $SIZE_t2}]"
check "missing: vgtwo not activated" "$(vg vgtwo) | .activation == null and .claim == null"
check "missing: vg0 still ok" "$(vg vg0) | .ok"

# --- dead leader: d2 arrives, its leader dies once vgtwo's activation is journaled
t_attach "$img_t2"
DEV_t2=$T_DEV
DEVNO_t2=$(stat -L -c '%Hr:%Lr' "$T_DEV")
conf "$DEV_s0 $DEV_t1 $DEV_f0 $DEV_t2"
announce t2 activation-begun:crash
status "dead"
expect_rc "dead" 5 "$SRC"
check "dead: the leader is gone and its journal entry is a leftover" \
	'.leader.running == false and .leftovers == true and ([.queue[] | select(.queue == "activate" and .entry == "vgtwo" and .held == false)] | length) == 1'
check "dead: vgtwo complete now, not activated" \
	"$(vg vgtwo) | .state == \"complete\" and .missing == [] and .ok == false"
"$PFI" --cache -aay --recover --driverloaded n >"$T_DIR/out" 2>"$T_DIR/err"
status "recovered"
expect_rc "recovered" 0 "$SRC"
check "recovered: vgtwo activated by the next leader" \
	"$(vg vgtwo) | .ok and .activation.result == \"ok\" and (.activation.how == \"recover\" or .activation.how == \"lvm2\")"
check "recovered: queue empty" '.leftovers == false and (.queue | length) == 0'

# --- torn and junk lines
printf 'pfr1 1 2 junk k=%%zz\nnot a record\npfr1 99 1 vg vg=vgtwo state=incomp' \
	>>"$RUN/pvscan-fast/records"
status "torn"
expect_rc "torn" 0 "$SRC"
check "torn: three unreadable lines, vgtwo still complete" \
	".records.unreadable == 3 and ($(vg vgtwo) | .state == \"complete\")"

t_done
