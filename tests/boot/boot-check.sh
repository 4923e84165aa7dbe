#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Runs in the booted real root (pf-boot-check.service, after multi-user.target), and writes its
# report to the second serial port, which the host reads (boot.sh):
#   PASS text / FAIL text   one check each
#   TIME name seconds       points of the boot, in seconds since the kernel started
#   DM name uuid            every device-mapper device, and TABLE name: its table, for the
#                           comparison of boots
#   LOG line                the journal's warnings, on failure
#   JOURNAL line            the whole journal, with pf-boot.journal on the kernel command line
#   RECORD line             with it, pvscan-fast's records (/run/lvm/pvscan-fast/records*)
#   @@BOOT-CHECK-DONE n@@   the end, with the number of failed checks
# With --emergency (emergency.service and rescue.service run it instead of a shell) it reports
# the failure with the journal and powers off: a boot that fails never waits for a console.
# /etc/pf-boot/ holds what the host expects: lvs (device-mapper names), mode (pvscan-fast or
# lvm2; pf-boot.mode=MODE on the kernel command line overrides it), and check.d/*.sh: a test's
# own checks, sourced last in a subshell (pass, fail and $mode are theirs to use; its FAIL
# lines are counted).
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
out=/dev/ttyS1
exec >"$out" 2>&1
fails=0

pass() {
	echo "PASS $*"
}
fail() {
	echo "FAIL $*"
	fails=$((fails + 1))
}
finish() {
	if [ "$fails" -gt 0 ]; then
		journalctl -b -p warning --no-pager -o short-monotonic 2>/dev/null | tail -n 80 |
			sed 's/^/LOG /'
	fi
	# pf-boot.bench: the benchmark's report (tests/bench/realboot-guest.sh) ends the boot.
	if grep -qw pf-boot.bench /proc/cmdline && [ -f /etc/pf-boot/bench.sh ]; then
		. /etc/pf-boot/bench.sh
	fi
	echo "@@BOOT-CHECK-DONE $fails@@"
	sync
	systemctl poweroff -ff 2>/dev/null || echo o >/proc/sysrq-trigger
	exit 0
}

if [ "${1:-}" = --emergency ]; then
	fail "the real root went into ${2:-emergency} mode"
	systemctl list-units --failed --no-legend --plain 2>/dev/null | sed 's/^/LOG failed: /'
	journalctl -b --no-pager -o short-monotonic 2>/dev/null | tail -n 150 | sed 's/^/LOG /'
	echo "@@BOOT-CHECK-DONE $((fails))@@"
	sync
	echo o >/proc/sysrq-trigger
	exit 0
fi

mode=$(cat /etc/pf-boot/mode 2>/dev/null || echo unknown)
for w in $(cat /proc/cmdline); do
	case $w in pf-boot.mode=*) mode=${w#pf-boot.mode=} ;; esac
done
up=$(cut -d' ' -f1 /proc/uptime)
echo "TIME check $up"

# The root, and systemd's targets.
src=$(findmnt -n -o SOURCE /)
case $src in
/dev/mapper/vgroot-root) pass "root mounted from $src" ;;
*) fail "root mounted from '$src', not /dev/mapper/vgroot-root" ;;
esac
if [ "$(systemctl is-active multi-user.target)" = active ]; then
	pass "multi-user.target reached"
else
	fail "multi-user.target is $(systemctl is-active multi-user.target)"
fi
systemctl list-units --failed --no-legend --plain >/tmp/failed 2>&1
if [ -s /tmp/failed ]; then
	fail "failed units: $(awk '{ printf "%s ", $1 }' /tmp/failed)"
else
	pass "no failed unit"
fi

# Every LV the disks carry, active, and the fleet's file systems mounted. The LUKS volume is
# the real root's to open (initramfs-tools), and its VG comes up after that, perhaps after
# multi-user.target: it gets until a deadline.
# The late disks (lvs.late) are hot-added from the real root's start on (pf-boot-hotplug.service
# and boot.sh), the last 30 s after the others: their LVs are waited for too.
late=/etc/pf-boot/lvs.late
[ -f "$late" ] || late=/dev/null
lvs_up() {
	dmsetup info -c --noheadings --separator ' ' -o name,uuid,attr 2>/dev/null |
		LC_ALL=C sort >/tmp/dm
	cat /etc/pf-boot/lvs "$late" | while read -r lv; do
		[ -z "$lv" ] || grep -q "^$lv LVM-[^ ]* L--" /tmp/dm || exit 1
	done
}
# not_up FILE: the LVs of FILE not active in /tmp/dm, each after a space
not_up() {
	while read -r lv; do
		[ -z "$lv" ] || grep -q "^$lv LVM-[^ ]* L--" /tmp/dm || printf ' %s' "$lv"
	done <"$1"
}
udevadm settle --timeout=60 2>/dev/null || true
# seconds, not rounds: one round of lvs_up takes seconds on a loaded TCG guest
wait=120
[ "$late" = /dev/null ] || wait=240
t0=$(cut -d. -f1 /proc/uptime)
until lvs_up || [ $(($(cut -d. -f1 /proc/uptime) - t0)) -ge "$wait" ]; do
	sleep 1
done
t=$(($(cut -d. -f1 /proc/uptime) - t0))
missing=$(not_up /etc/pf-boot/lvs)
if [ -z "$missing" ]; then
	pass "all $(grep -c . /etc/pf-boot/lvs) LVs active"
else
	fail "LVs not active:$missing"
fi
if [ "$late" != /dev/null ]; then
	missing=$(not_up "$late")
	if [ -z "$missing" ]; then
		pass "late disks: $(tr '\n' ' ' <"$late")active, $t s into the check"
	else
		fail "late disks: LVs not active:$missing"
	fi
	# a leader may still be ending the late disks' round
	udevadm settle --timeout=60 2>/dev/null || true
	[ "$mode" != pvscan-fast ] || flock -w 30 /run/lock/lvm/pvscan-fast.leader true 2>/dev/null || true
fi
awk '$2 == "/srv" || $2 ~ /^\/srv\// { print $2 }' /etc/fstab | while read -r mp; do
	if findmnt -n "$mp" >/dev/null; then
		echo "PASS fstab: $mp mounted"
	else
		echo "FAIL fstab: $mp not mounted"
	fi
done >/tmp/mounts
cat /tmp/mounts
fails=$((fails + $(grep -c '^FAIL' /tmp/mounts)))

# udev: no worker killed or timed out, in the initramfs (the kernel log) or after.
journalctl -b --no-pager -o short-monotonic >/tmp/journal 2>&1
grep -iE 'udevd.*(timeout|timed out|killed|killing|terminated by signal)' /tmp/journal >/tmp/udevbad
if [ -s /tmp/udevbad ]; then
	fail "udev workers killed or timed out: $(wc -l </tmp/udevbad) lines"
	sed 's/^/LOG /' /tmp/udevbad | head -20
else
	pass "no udev worker killed or timed out"
fi
# libdevmapper's udev cookies are SysV semaphores with keys 0x0d4dXXXX.
sems=$(ipcs -s 2>/dev/null | grep -ci '^0x0d4d' || true)
if [ "$sems" -eq 0 ]; then
	pass "no udev cookie semaphore left"
else
	fail "$sems udev cookie semaphores left"
fi

# The stacks: each stacked VG's LV on the device it must be on, never on what lies below it:
# a GPT partition (not the disk), the md array (not a member), the opened LUKS volume, the
# multipath map (not a path).
# lvdev LV: "MAJ:MIN" of the one device LV's table maps.
lvdev() {
	dmsetup table "$1" 2>/dev/null | awk '{ print $4; exit }'
}
# holders_lvm MAJ:MIN: every holder of the device is an LV; a PV that is a multipath path
# or an md member has the map or the array as its holder instead.
holders_lvm() {
	for h in /sys/dev/block/"$1"/holders/*; do
		[ -e "$h" ] || continue
		case $(cat "$h/dm/uuid" 2>/dev/null) in
		LVM-*) ;;
		*) return 1 ;;
		esac
	done
	return 0
}
stack() {
	d=$(lvdev "$1")
	s=/sys/dev/block/$d
	case $2 in
	partition) [ -e "$s/partition" ] ;;
	md) [ -d "$s/md" ] && [ "$(cat "$s/md/degraded" 2>/dev/null)" = 0 ] &&
		[ "$(ls "$s/slaves" | wc -l)" -eq 2 ] ;;
	crypt) case $(cat "$s/dm/uuid" 2>/dev/null) in CRYPT-LUKS2-*) true ;; *) false ;; esac ;;
	mpath) case $(cat "$s/dm/uuid" 2>/dev/null) in mpath-*) true ;; *) false ;; esac &&
		[ "$(ls "$s/slaves" | wc -l)" -eq 2 ] ;;
	esac
}
for st in vggpt-lv:partition vgmd-lv:md vgcrypt-lv:crypt vgmp-lv:mpath; do
	lv=${st%:*}
	grep -qx "$lv" /etc/pf-boot/lvs || continue
	if stack "$lv" "${st#*:}"; then
		pass "$lv on the ${st#*:} device $(lvdev "$lv")"
	else
		fail "$lv not on a ${st#*:} device: on '$(lvdev "$lv")'"
	fi
done
# The PVs as the event activation recorded them (lvm2 and pvscan-fast write pvs_online
# alike), and as lvm2's pvs sees them now: never a multipath path or an md member.
bad=""
for f in /run/lvm/pvs_online/*; do
	[ -f "$f" ] || continue
	d=$(head -n 1 "$f")
	holders_lvm "$d" || bad="$bad $(sed -n 's/^dev://p' "$f")($d)"
done
if [ -z "$bad" ]; then
	pass "pvs_online: $(ls /run/lvm/pvs_online | wc -l) PVs, none a multipath path or md member"
else
	fail "pvs_online names multipath paths or md members:$bad"
fi
pvs --noheadings -o pv_name,vg_name >/tmp/pvs 2>&1
bad=""
while read -r pv vg; do
	case $pv in
	/dev/*) d=$(stat -L -c '%t %T' "$pv" 2>/dev/null | awk '{ printf "%d:%d", "0x" $1, "0x" $2 }')
		holders_lvm "$d" || bad="$bad $pv" ;;
	*) bad="$bad [$pv $vg]" ;;
	esac
done </tmp/pvs
if [ -z "$bad" ]; then
	pass "lvm2's pvs: $(wc -l </tmp/pvs) PVs, none a multipath path or md member"
else
	fail "lvm2's pvs:$bad"
	sed 's/^/LOG pvs: /' /tmp/pvs
fi
# Duplicate PVs: lvm2's and pvscan-fast's words for them, in the journal (the kernel's log
# and, through dracut, the initramfs's) and in pvs.
grep -iE 'duplicate (pv|for pvid|devices)|not using device|prefers device' /tmp/journal /tmp/pvs \
	>/tmp/dups
if [ -s /tmp/dups ]; then
	fail "duplicate PVs reported: $(wc -l </tmp/dups) lines"
	sed 's/^/LOG /' /tmp/dups | head -20
else
	pass "no duplicate PV reported"
fi

if [ "$mode" = pvscan-fast ]; then
	q=/run/lvm/pvscan-fast
	left=$(find "$q/pending" "$q/inflight" "$q/activate" -mindepth 1 2>/dev/null | wc -l)
	if [ -d "$q/pending" ] && [ "$left" -eq 0 ]; then
		pass "pvscan-fast's queue and journal empty"
	else
		fail "pvscan-fast's queue: $left entries left (or no queue)"
	fi
	if flock -n /run/lock/lvm/pvscan-fast.leader true 2>/dev/null; then
		pass "leader lock free"
	else
		fail "leader lock held"
	fi
	if pgrep -f pvscan-fast-engine >/dev/null; then
		fail "a pvscan-fast engine is still running"
	else
		pass "no pvscan-fast engine left"
	fi
	r=$(systemctl show -P Result pvscan-fast-recover.service)
	if [ "$r" = success ]; then
		pass "pvscan-fast-recover.service: success"
	else
		fail "pvscan-fast-recover.service: $r"
	fi
	# What pvscan-fast's own records say of the devices it did not use.
	pvscan-fast --status --json >/tmp/status.json 2>&1
	n=$(grep -c '"result": *"duplicate"' /tmp/status.json || true)
	if [ "$n" -eq 0 ]; then
		pass "pvscan-fast --status: no device left out as a duplicate"
	else
		fail "pvscan-fast --status: $n devices left out as duplicates"
		pvscan-fast --status 2>&1 | sed 's/^/LOG status: /'
		journalctl -b -t pvscan-fast -o verbose --no-pager 2>/dev/null |
			grep -E '^ *(PVSCAN_FAST_RECORD|MESSAGE)=' | head -200 | sed 's/^ */LOG record: /'
	fi
	if grep -q 'pvscan-fast.*still running' /tmp/journal; then
		fail "the initramfs's wait for the leader timed out"
	fi
fi

# When: the root's mount (the first ext4 mount), the last LV seen by udev (USEC_INITIALIZED
# is on the monotonic clock, kept from the initramfs's udev), multi-user.target.
sed -n 's/^\[ *\([0-9.]*\)\].*EXT4-fs (dm-[0-9]*): mounted.*/TIME root-mounted \1/p' /tmp/journal |
	head -n 1
last=0
for n in $(awk '{ print $1 }' /tmp/dm); do
	u=$(udevadm info --query=property --property=USEC_INITIALIZED --value "/dev/mapper/$n" \
		2>/dev/null)
	[ -z "$u" ] || [ "$u" -le "$last" ] || last=$u
done
echo "TIME lvs-active $(awk -v u="$last" 'BEGIN { printf "%.2f", u / 1e6 }')"
u=$(udevadm info --query=property --property=USEC_INITIALIZED --value /dev/mapper/vgroot-root \
	2>/dev/null)
echo "TIME root-active $(awk -v u="${u:-0}" 'BEGIN { printf "%.2f", u / 1e6 }')"
echo "TIME multi-user $(systemctl show -P ActiveEnterTimestampMonotonic multi-user.target |
	awk '{ printf "%.2f", $1 / 1e6 }')"
echo "TIME switch-root $(systemctl show -P UserspaceTimestampMonotonic |
	awk '{ printf "%.2f", $1 / 1e6 }')"
# pf-boot.journal on the kernel command line: the whole journal, to see where a boot's time went.
# With pvscan-fast, also its records (the leaders' steps, seconds since boot).
if grep -qw pf-boot.journal /proc/cmdline; then
	sed 's/^/JOURNAL /' /tmp/journal
	for x in /run/lvm/pvscan-fast/records.old /run/lvm/pvscan-fast/records; do
		[ ! -f "$x" ] || sed 's/^/RECORD /' "$x"
	done
fi

# For the comparison with another boot of the same disks: the tables name disks by device
# number, which depends on the order the SCSI scan found them; their address does not.
# Likewise partitions, dm devices (by name) and md arrays (by UUID).
for b in /sys/block/sd*; do
	[ -e "$b/dev" ] || continue
	a=$(basename "$(readlink -f "$b/device")")
	echo "DEV $(cat "$b/dev") $a"
	for p in "$b"/"${b##*/}"*; do
		[ -e "$p/partition" ] && echo "DEV $(cat "$p/dev") $a-part$(cat "$p/partition")"
	done
done
for b in /sys/block/dm-*; do
	[ -e "$b/dev" ] && echo "DEV $(cat "$b/dev") dm:$(cat "$b/dm/name")"
done
for b in /sys/block/md*; do
	[ -e "$b/dev" ] && echo "DEV $(cat "$b/dev") md:$(udevadm info --query=property \
		--property=MD_UUID --value "/dev/${b##*/}" 2>/dev/null)"
done
sed 's/^/DM /; s/ L--.*//' /tmp/dm
dmsetup table 2>/dev/null | LC_ALL=C sort | sed 's/^/TABLE /'
# In a subshell: a test's script that dies still lets the report end.
for x in /etc/pf-boot/check.d/*.sh; do
	[ -f "$x" ] || continue
	# shellcheck disable=SC1090 # a test's own checks
	(. "$x") >/tmp/checkd.out 2>&1
	r=$?
	cat /tmp/checkd.out
	fails=$((fails + $(grep -c '^FAIL' /tmp/checkd.out)))
	[ "$r" -eq 0 ] || fail "$x ended with exit status $r"
done
finish
