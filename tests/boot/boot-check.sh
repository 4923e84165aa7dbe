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
#   @@BOOT-CHECK-DONE n@@   the end, with the number of failed checks
# With --emergency (emergency.service and rescue.service run it instead of a shell) it reports
# the failure with the journal and powers off: a boot that fails never waits for a console.
# /etc/pf-boot/ holds what the host expects: lvs (device-mapper names), mode (pvscan-fast or
# lvm2).
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

# Every LV the disks carry, active, and the fleet's file systems mounted.
dmsetup info -c --noheadings --separator ' ' -o name,uuid,attr 2>/dev/null | LC_ALL=C sort >/tmp/dm
missing=""
nlv=0
while read -r lv; do
	[ -n "$lv" ] || continue
	nlv=$((nlv + 1))
	grep -q "^$lv LVM-[^ ]* L--" /tmp/dm || missing="$missing $lv"
done </etc/pf-boot/lvs
if [ -z "$missing" ]; then
	pass "all $nlv LVs active"
else
	fail "LVs not active:$missing"
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
if grep -qw pf-boot.journal /proc/cmdline; then
	sed 's/^/JOURNAL /' /tmp/journal
fi

# For the comparison with another boot of the same disks: the tables name disks by device
# number, which depends on the order the SCSI scan found them; their address does not.
for b in /sys/block/sd*; do
	[ -e "$b/dev" ] && echo "DEV $(cat "$b/dev") $(basename "$(readlink -f "$b/device")")"
done
sed 's/^/DM /; s/ L--.*//' /tmp/dm
dmsetup table 2>/dev/null | LC_ALL=C sort | sed 's/^/TABLE /'
finish
