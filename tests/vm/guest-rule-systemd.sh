#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest script (vm-run.sh --systemd): pvscan-fast's installed rule with systemd as init.
#
#   tests/vm/vm-run.sh --systemd --udev-children-max 8 tests/vm/guest-rule-systemd.sh [IMAGES.tar]
#
# N single-PV VGs (RULE_SYSTEMD_N, 50) on null_blk devices whose add events are held back until
# the PVs are written, then released at once. With /run/systemd/system present, the leader must
# leave udev's worker as a transient service (pvscan-fast-leader-PID.service, via systemd-run),
# not as a double-forked process that udev would kill once idle. Checks: every LV up with its
# links, at least one leader service ran and none failed, no udev worker warned, timed out or
# was killed (udevd's journal), the queue and journal empty, no udev semaphore left.
set -eu

. "${top_srcdir:-$(dirname "$0")/../..}/tests/vm/guest-lib.sh"
guest_init guest-rule-systemd.sh /tmp/rule-systemd
[ -d /run/systemd/system ] || { echo "SKIP: rule-systemd: systemd is not init here"; exit 77; }
command -v python3 >/dev/null || { echo "SKIP: rule-systemd: no python3"; exit 77; }
N=${RULE_SYSTEMD_N:-50}
DEADLINE=240

mkdir -p "$work/bin"
cp "$PF" "$PF-engine" "$work/bin/"
PF=$work/bin/pvscan-fast
guest_images "${1:-}" sd "$N"
set -- "$work"/img/*.img
N=$#

nullb_like_disk
install_pf_rule guest-rule-systemd.sh "$work/bin"
udevadm settle

udevadm control --stop-exec-queue
modprobe null_blk nr_devices="$N" gb=1 memory_backed=1
i=0
for img in "$@"; do
	dd if="$img" of="/dev/nullb$i" bs=4k conv=sparse,notrunc status=none
	i=$((i + 1))
done
sync
jmark=$(date '+%Y-%m-%d %H:%M:%S')
t0=$(up)
udevadm control --start-exec-queue

n_up() {
	n=0
	for img in "$@"; do
		vg=${img##*/}
		vg=${vg%-d1.img}
		[ -L "/dev/$vg/lv0" ] && [ -L "/dev/mapper/$vg-lv0" ] && n=$((n + 1))
	done
	echo "$n"
}
while [ "$(n_up "$@")" -lt "$N" ]; do
	awk -v e="$(since "$t0")" -v d="$DEADLINE" 'BEGIN { exit !(e > d) }' && break
	sleep 0.5
done
t_up=$(since "$t0")
udevadm settle --timeout=120 || true
echo "# $(n_up "$@") of $N VGs up at $t_up s; udev settled at $(since "$t0") s"
[ "$(n_up "$@")" -eq "$N" ] && ok "all $N VGs up with /dev/VG/LV and /dev/mapper links" ||
	not_ok "only $(n_up "$@") of $N VGs up after $DEADLINE s"

# the leader services: at least one ran; none failed
# (the harness runs systemd at log level warning: the leaders' own lines show they ran)
units=$(journalctl --since "$jmark" -o cat -u 'pvscan-fast-leader-*' 2>/dev/null |
	grep -c ' online, VG ' || true)
leaders=$(journalctl --since "$jmark" -o short -u 'pvscan-fast-leader-*' 2>/dev/null |
	sed -n 's/.* pvscan-fast\[\([0-9]*\)\]: .*/\1/p' | sort -u | wc -l)
echo "# $leaders leader service(s) for $N udev events"
failed=$(systemctl list-units --all --failed --plain --no-legend 'pvscan-fast-leader-*' |
	head -5)
if [ "$units" -ge "$N" ] && [ -z "$failed" ]; then
	ok "leaders ran as transient systemd services and put all $N PVs online; none failed"
else
	not_ok "leader services: $units PVs said online, failed: $failed"
	journalctl --since "$jmark" -o short-monotonic | grep -i pvscan | head -20 | sed 's/^/#   /'
fi
bad=$(journalctl --since "$jmark" -o cat -u systemd-udevd |
	grep -E 'killed|[Tt]imed out|taking a long time|taking longer|failed with exit code' |
	head -5 || true)
[ -z "$bad" ] && ok "no udev worker warned, timed out or was killed; every RUN exited 0" ||
	not_ok "udevd: $bad"
said=$(journalctl --since "$jmark" -o cat -u 'pvscan-fast-leader-*' |
	grep -iE 'warning|error|cannot|fail' | head -5 || true)
[ -z "$said" ] && ok "no warning or error from the leaders in the journal" ||
	not_ok "leaders said: $said"
left=$(t_queue_left /run/lvm | head -5)
[ -z "$left" ] && ok "pvscan-fast's queue and journal empty" || not_ok "left: $left"
no_udev_sems ""

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
