#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest script (vm-run.sh --systemd): degraded activation after a deadline, on a real kernel.
#
#   tests/vm/vm-run.sh --systemd tests/vm/guest-degraded.sh
#
# lvm2 makes five VGs on loop devices, each over two disks: vgr (a raid1 LV), vgl (a linear LV
# spanning both disks), vgc (a raid1 LV), vgm (a mirror, segment type "mirror", core log), vgz
# (raid0); then each VG's second disk is taken away. pvscan-fast
# is run for each present disk as its udev rule runs it (lvm2's own rule masked), and:
#   * setting off: vgr stays down, as lvm2's event activation leaves it (lvm2's pvscan is run
#     on the same disk), with no record and no timer;
#   * setting on (3 s): the leader arranges a systemd timer, which with no further uevent runs
#     the check; vgr comes up degraded, its LVs (sub-LVs included) with the lv_attr lvm2 shows
#     after its own `vgchange -aay --activationmode degraded vgr`; vgl never comes up; vgm
#     stays down as lvm2's degraded vgchange leaves it; vgz stays down although lvm2's degraded
#     vgchange runs it (with an error target for the lost leg: partial data);
#   * setting on (600 s), vgc's second disk arriving before the deadline: vgc is activated
#     normally (the lv_attr of lvm2's `vgchange -aay vgc` with both disks), and the check, run
#     as its timer would run it, records it complete and activates nothing degraded.
# Every wait has a deadline; outcomes are read from the records and device-mapper, never from
# how long something took.
# shellcheck disable=SC2086 # device lists are split on purpose
set -eu

. "${top_srcdir:-$(dirname "$0")/../..}/tests/vm/guest-lib.sh"
# Under /run: with systemd as init, a work directory in /tmp vanished once lvm2 had activated
# raid (tmp.mount was active then); /run is not mounted again.
guest_init guest-degraded.sh /run/pf-degraded-test
[ -d /run/systemd/system ] || { echo "SKIP: degraded: systemd is not init here"; exit 77; }
DEADLINE=300
etc=$work/etc
run=/run/lvm
mkdir -p "$work/img" "$etc"
export LVM_SYSTEM_DIR=$etc LVM_SUPPRESS_FD_WARNINGS=1
mask_lvm_rule guest-degraded.sh

# conf [SECONDS]: lvm.conf for the loop devices, degraded activation on after SECONDS; no
# dmeventd (its service is not part of the harness).
conf() {
	_pf=""
	[ -z "${1:-}" ] || _pf="pvscan_fast {
	degraded_activation = 1
	degraded_activation_timeout = $1
}"
	t_lvm_conf "$etc" '/dev/loop[0-9]+' "use_devicesfile = 0" "global {
	event_activation = 1
}
backup {
	backup = 0
	archive = 0
}
activation {
	monitoring = 0
}
$_pf"
}
conf

attach() { # NAME: a 64 MiB image on a loop device, its name in dev
	[ -e "$work/img/$1" ] || truncate -s 64M "$work/img/$1"
	dev=$(losetup -f --show "$work/img/$1")
	loops="$loops $dev"
}
detach() { # DEV
	losetup -d "$1"
	loops=$(echo "$loops" | tr ' ' '\n' | grep -vx "$1" | tr '\n' ' ')
}
devno() {
	printf '%d %d' "0x$(stat -L -c %t "$1")" "0x$(stat -L -c %T "$1")"
}
event() { # DEV: what pvscan-fast's udev rule runs for DEV
	# shellcheck disable=SC2046 # two numbers
	set -- $(devno "$1")
	"$PF" --cache --activate ay --autoactivation event --major "$1" --minor "$2" \
		>>"$work/events.log" 2>&1
}
fresh() { # a boot's empty run directory, and no timer of an earlier scenario
	systemctl stop 'pvscan-fast-degraded-*.timer' >/dev/null 2>&1 || true
	rm -rf "$run/pvs_online" "$run/vgs_online" "$run/pvs_lookup" "$run/pvscan-fast"
}
attrs() { # VG: every LV's name and lv_attr, sub-LVs included
	lvm lvs -a --noheadings -o lv_name,lv_attr "$1" 2>/dev/null | sort
}
state_of() {
	sed -n 's/^state=//p' "$run/pvscan-fast/degraded/$1" 2>/dev/null
}
active() { # VG LV: device-mapper has it
	dmsetup info "$1-$2" >/dev/null 2>&1
}

# ---- the VGs, made by lvm2 with both disks there ----
attach ra && RA=$dev
attach rb && RB=$dev
attach la && LA=$dev
attach lb && LB=$dev
attach ca && CA=$dev
attach cb && CB=$dev
attach ma && MA=$dev
attach mb && MB=$dev
attach za && ZA=$dev
attach zb && ZB=$dev
{
	lvm pvcreate -q $RA $RB $LA $LB $CA $CB $MA $MB $ZA $ZB &&
		lvm vgcreate -q vgr $RA $RB && lvm vgcreate -q vgl $LA $LB &&
		lvm vgcreate -q vgc $CA $CB && lvm vgcreate -q vgm $MA $MB &&
		lvm vgcreate -q vgz $ZA $ZB &&
		lvm lvcreate -q -y --type mirror -m1 --mirrorlog core -L 8M -n m1 vgm &&
		lvm lvcreate -q -y --type raid0 -i2 -L 8M -n r0 vgz &&
		lvm lvcreate -q -y --type raid1 -m1 -L 8M -n r1 vgr &&
		lvm lvcreate -q -y --type raid1 -m1 -L 8M -n r1 vgc &&
		lvm lvcreate -q -y -L 80M -n lin vgl
} >"$work/mk.log" 2>&1 || {
	not_ok "lvm2 cannot make the VGs"
	sed 's/^/#   /' "$work/mk.log"
	exit 1
}
t0=$(up)
until lvm lvs --noheadings -o sync_percent vgr/r1 vgc/r1 2>/dev/null |
	awk '$1 != "100.00" { bad = 1 } END { exit bad }'; do
	[ "$(since "$t0" | cut -d. -f1)" -lt "$DEADLINE" ] || break
	sleep 0.5
done
lvm vgchange -q -ay vgc >/dev/null 2>&1
attrs vgc >"$work/vgc.lvm2"
lvm vgchange -q -an vgr vgl vgc vgm vgz >/dev/null 2>&1
for d in "$RB" "$LB" "$CB" "$MB" "$ZB"; do
	detach "$d"
done
udevadm settle

# ---- lvm2, for reference: event activation leaves vgr down; degraded mode brings it up ----
fresh
lvm pvscan --cache -aay $RA >"$work/lvm2-pvscan.log" 2>&1 || true
if ! active vgr r1; then
	ok "lvm2's event activation leaves vgr down with a disk missing"
else
	not_ok "lvm2's event activation activated vgr"
fi
lvm vgchange -aay --activationmode degraded vgr >"$work/lvm2-degraded.log" 2>&1 || true
attrs vgr >"$work/vgr.lvm2"
if active vgr r1; then
	ok "lvm2's vgchange --activationmode degraded brings vgr up"
else
	not_ok "lvm2's degraded vgchange did not bring vgr up"
	sed 's/^/#   /' "$work/lvm2-degraded.log"
fi
lvm vgchange -q -an vgr >/dev/null 2>&1
lvm vgchange -aay --activationmode degraded vgm vgz >"$work/lvm2-mz.log" 2>&1 || true
if ! active vgm m1; then
	ok "lvm2's degraded vgchange leaves a mirror (type mirror) with a leg lost down"
else
	not_ok "lvm2's degraded vgchange activates a mirror with a leg lost"
fi
if active vgz r0; then
	ok "lvm2's degraded vgchange runs a raid0 with a leg lost"
else
	not_ok "lvm2's degraded vgchange leaves a raid0 with a leg lost down"
	sed 's/^/#   /' "$work/lvm2-mz.log"
fi
lvm vgchange -q -an vgm vgz >/dev/null 2>&1
echo "# lvm2's degraded vgr:"
sed 's/^/#   /' "$work/vgr.lvm2"

# ---- off: exactly lvm2's event activation ----
fresh
event "$RA"
if ! active vgr r1 && [ ! -e "$run/pvscan-fast/degraded" ] &&
	[ -z "$(systemctl list-units --all --plain --no-legend 'pvscan-fast-degraded-*')" ]; then
	ok "off: vgr stays down, as with lvm2; no record, no timer"
else
	not_ok "off: something was activated, recorded or armed"
fi

# ---- on, 3 s: the timer fires with no further uevent ----
fresh
conf 3
event "$RA"
event "$LA"
if [ "$(state_of vgr)" = waiting ] && [ "$(state_of vgl)" = waiting ] &&
	systemctl list-timers --all --plain --no-legend 'pvscan-fast-degraded-*' |
	grep -q pvscan-fast-degraded-; then
	ok "on: vgr and vgl recorded waiting, a systemd timer armed"
else
	not_ok "on: records $(state_of vgr)/$(state_of vgl), timers:" \
		"$(systemctl list-timers --all --plain --no-legend 'pvscan-fast-degraded-*')"
fi
t0=$(up)
# (the first leader since boot reads every disk: vgc, a disk short too, goes the same way)
while grep -qsE '^state=(waiting|activating)$' "$run"/pvscan-fast/degraded/*; do
	[ "$(since "$t0" | cut -d. -f1)" -lt "$DEADLINE" ] || break
	sleep 0.5
done
if [ "$(state_of vgr)" = degraded ] && active vgr r1; then
	ok "on: the timer brought vgr up degraded ($(sed -n 's/^reason=//p' \
		"$run/pvscan-fast/degraded/vgr"))"
else
	not_ok "on: vgr is '$(state_of vgr)'"
	dmsetup info vgr-r1 2>&1 | sed 's/^/#   /'
	dmsetup ls 2>&1 | sed 's/^/#   /'
	sed 's/^/#   /' "$run/pvscan-fast/degraded/vgr"
	journalctl -o short-monotonic -u 'pvscan-fast-degraded-*' --no-pager 2>/dev/null |
		tail -40 | sed 's/^/#   /'
	sed 's/^/#   events: /' "$work/events.log"
fi
attrs vgr >"$work/vgr.ours"
same "on: vgr's lv_attr as after lvm2's own degraded vgchange" "$work/vgr.lvm2" "$work/vgr.ours"
if [ "$(state_of vgl)" = refused ] && ! active vgl lin; then
	ok "on: linear vgl missing a PV never comes up ($(sed -n 's/^reason=//p' \
		"$run/pvscan-fast/degraded/vgl"))"
else
	not_ok "on: vgl is '$(state_of vgl)', active: $(dmsetup ls | grep -c vgl- || true)"
fi
if [ "$(state_of vgm)" = refused ] && ! active vgm m1 && [ "$(state_of vgz)" = refused ] &&
	! active vgz r0; then
	ok "on: the mirror and the raid0 with a leg lost stay down ($(sed -n 's/^reason=//p' \
		"$run/pvscan-fast/degraded/vgz"))"
else
	not_ok "on: vgm is '$(state_of vgm)', vgz '$(state_of vgz)'"
fi
lvm vgchange -q -an vgr vgc >/dev/null 2>&1

# ---- on, 600 s: vgc's second disk arrives in time ----
fresh
conf 600
event "$CA"
attach cb && CB=$dev
udevadm settle
event "$CB"
"$PF" --cache --activate ay --degradedcheck >"$work/check.log" 2>&1 || true
attrs vgc >"$work/vgc.ours"
if [ "$(state_of vgc)" = complete ] && active vgc r1 &&
	! grep -q "activating it degraded" "$work/check.log"; then
	ok "in time: vgc activated normally, recorded complete, nothing degraded"
else
	not_ok "in time: vgc is '$(state_of vgc)'"
	sed 's/^/#   /' "$work/check.log"
fi
same "in time: vgc's lv_attr as after lvm2's vgchange -aay with both disks" \
	"$work/vgc.lvm2" "$work/vgc.ours"
fresh
lvm vgchange -q -an vgc >/dev/null 2>&1

echo "# $passes passed, $fails failed"
[ "$fails" -eq 0 ]
