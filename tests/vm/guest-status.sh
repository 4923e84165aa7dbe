#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest script: --status on a real kernel, with device-mapper. Loop PVs: vg0 (single), my-vg
# (hyphens: lvm2's '-' doubling in dm names), vgtwo (two-pv, d2 attached late), and a PV whose
# reads hang (labelsector's d1 under a suspended dm linear device). Each device is announced
# as udev's rule would; activation is native (dm) or lvm2's own. Checked with jq on
# --status --json, each time bounded by a deadline that only ends a hang:
#   boot     the first leader's full scan: vg0 and my-vg activated natively, every LV live in
#            device-mapper (my-vg's hyphenated names as the metadata has them), the hung device
#            named as timed out, vgtwo incomplete with d2's PVID: exit 5; --status answers
#            while the device still hangs (it reads no device);
#   running  an admin's full scan held once it has the leader lock: --status sees the leader
#            running with its pid, and its work is not a leftover;
#   killed   d2 arrives and its leader is killed (SIGKILL, test build) once vgtwo's activation
#            is journaled: a leftover, exit 5; --recover hands vgtwo to lvm2, exit status 0,
#            its LVs live (names from device-mapper): exit 0 with the hang still there;
#   removed  an LV removed behind pvscan-fast's back (dmsetup remove): exit 5, named.
set -eu

. "${top_srcdir:-$(dirname "$0")/../..}/tests/vm/guest-lib.sh"
guest_init guest-status.sh /tmp/status
PFI=$top_builddir/tests/inject/pvscan-fast
[ -x "$PFI" ] && [ -x "$PFI-engine" ] || {
	echo "guest-status.sh: $PFI not built (make tests/inject/pvscan-fast{,-engine})" >&2
	exit 1
}
export LVM_SUPPRESS_FD_WARNINGS=1 PVSCAN_FAST_ENGINE="$PFI-engine" PVSCAN_FAST_JOURNAL=0
unset PVSCAN_FAST_RUN_DIR PVSCAN_FAST_LOCK_DIR PVSCAN_FAST_LVM ACTION SEQNUM
fixdir=$top_srcdir/tests/fixtures
DEADLINE=600
mask_lvm_rule guest-status.sh
mkdir -p "$work/etc"

devno() { stat -L -c '%Hr:%Lr' "$1"; }
attach_one() { # FIXTURE IMAGE: the loop device in $dev
	xz -dc "$fixdir/$1/$2.img.xz" | dd of="$work/$1-$2.img" bs=64k conv=sparse status=none
	dev=$(losetup -f --show "$work/$1-$2.img")
	loops="$loops $dev"
}
attach_one single d1
S0=$dev
attach_one hyphens d1
H0=$dev
attach_one two-pv d1
T1=$dev
attach_one labelsector d1
printf '0 %s linear %s 0\n' "$(blockdev --getsz "$dev")" "$dev" | dmsetup create status-hang
HANG=$(readlink -f /dev/mapper/status-hang)
HANG_DEVNO=$(devno "$HANG")
dmsetup suspend status-hang
udevadm settle --timeout=60 || true
PVID_T2=$(awk '$1 == "d2.img" { print $2 }' "$fixdir/two-pv/devices")

# conf DEV...: lvm.conf accepting exactly these, the scan's timeout short (the hang costs it)
conf() {
	t_lvm_conf "$work/etc" "$*" "use_devicesfile = 0
	obtain_device_list_from_udev = 0" "$(t_conf_events)
pvscan_fast {
	scan_timeout = 3
}"
}
export LVM_SYSTEM_DIR="$work/etc"
conf "$S0" "$H0" "$T1" "$HANG"

# announce DEV [INJECT]: the udev call for a device
announce() {
	_d=$(devno "$1")
	PVSCAN_FAST_INJECT="${2:-}" timeout "$DEADLINE" "$PFI" --cache -aay \
		--major "${_d%:*}" --minor "${_d#*:}" >"$work/out" 2>"$work/err" || true
}

# status TAG: --status --json into $work/status.json; SRC its exit status
status() {
	SRC=0
	timeout "$DEADLINE" "$PFI" --status --json >"$work/status.json" 2>"$work/status.err" ||
		SRC=$?
	jq -e . "$work/status.json" >/dev/null 2>&1 || {
		not_ok "$1: --status --json is not JSON (exit $SRC)"
		sed 's/^/#   /' "$work/status.json" "$work/status.err" | head -20
	}
}

check() { # TAG JQ
	if jq -e "$2" "$work/status.json" >/dev/null 2>&1; then
		ok "$1"
	else
		not_ok "$1 ($2)"
		jq -c '.vgs[] | {name, state, ok, problem, activation, lvs}' "$work/status.json" \
			2>/dev/null | sed 's/^/#   /' | head -10
	fi
}

rc_is() { # TAG WANT
	if [ "$SRC" = "$2" ]; then ok "$1: exit status $2"; else not_ok "$1: exit status $SRC, want $2"; fi
}

vg() { echo ".vgs[] | select(.name == \"$1\")"; }

# --- boot: the first leader reads every accepted device, the hung one included
announce "$S0"
status boot
rc_is boot 5
check "boot: device-mapper asked" '.device_mapper == "available"'
check "boot: vg0 activated natively, lv0 live" \
	"$(vg vg0) | .ok and .activation.how == \"native\" and .activation.result == \"ok\" and .lvs == [{\"name\": \"lv0\", \"uuid\": .lvs[0].uuid, \"result\": \"loaded\", \"why\": null, \"active\": true}]"
check "boot: my-vg's hyphenated LVs live" \
	"$(vg my-vg) | .ok and ([.lvs[] | select(.active) | .name] | sort) == [\"a--b\", \"root-lv\", \"trailing-\", \"x+y.z_w\"]"
check "boot: the hung device timed out" \
	"[.devices[] | select(.dev == \"$HANG_DEVNO\" and .result == \"timeout\")] | length == 1"
check "boot: vgtwo incomplete, d2 missing" \
	"$(vg vgtwo) | .state == \"incomplete\" and .missing[0].pvid == \"$PVID_T2\" and (.ok | not)"
check "boot: no leftovers" '.leftovers == false and .leader.running == false'

# --- running: an admin's full scan, held for a while once it has the lock (the test build)
PVSCAN_FAST_INJECT=locked:delay=30000 "$PFI" --cache -aay >"$work/admin.out" 2>&1 &
admin=$!
i=0
while :; do
	status running
	jq -e '.leader.running' "$work/status.json" >/dev/null 2>&1 && break
	i=$((i + 1))
	[ $i -lt 600 ] && kill -0 "$admin" 2>/dev/null || break
	sleep 0.1
done
check "running: the leader is seen running, with its pid" ".leader.running and .leader.pid == $admin"
check "running: its in-flight work is not a leftover" '.leftovers == false'
wait "$admin" || true

# --- killed: d2 arrives, its leader dies with vgtwo's activation journaled
attach_one two-pv d2
T2=$dev
udevadm settle --timeout=60 || true
# lvm2 (which --recover hands vgtwo to) is not to meet the hung device
conf "$S0" "$H0" "$T1" "$T2"
announce "$T2" activation-begun:crash
status killed
rc_is killed 5
check "killed: vgtwo's journal entry left by a dead leader" \
	'.leftovers and ([.queue[] | select(.queue == "activate" and .entry == "vgtwo")] | length) == 1'
timeout "$DEADLINE" "$PFI" --cache -aay --recover >"$work/out" 2>"$work/err" || true
status recovered
rc_is recovered 0
check "recovered: vgtwo handed to lvm2, exit status 0, its LVs live" \
	"$(vg vgtwo) | .ok and .activation.how == \"recover\" and .activation.lvm2_status == 0 and (.lvs | length) > 0 and all(.lvs[]; .active)"
# a later scan may leave the device out while a reader is still stuck on it: failed, not timeout
check "recovered: healthy with the device still hanging" \
	".healthy and ([.devices[] | select(.dev == \"$HANG_DEVNO\" and (.result == \"timeout\" or .result == \"failed\"))] | length) == 1"

# --- removed: an LV taken down behind pvscan-fast's back
dmsetup remove vg0-lv0
status removed
rc_is removed 5
check "removed: vg0 says lv0 is not active now" \
	"$(vg vg0) | (.ok | not) and (.problem | test(\"lv0\"))"
timeout "$DEADLINE" "$PFI" --status >"$work/status.txt" 2>&1 || true
if grep -q "VG vg0: complete - 1 LV activated but not active now (lv0)" "$work/status.txt"; then
	ok "removed: the table says so"
else
	not_ok "removed: the table"
	sed 's/^/#   /' "$work/status.txt" | head -20
fi

dmsetup resume status-hang || true
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
