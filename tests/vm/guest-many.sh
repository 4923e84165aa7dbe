#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest script: many single-PV VGs brought up at coldplug by pvscan-fast's installed udev rule.
#
#   tests/vm/vm-run.sh --udev-children-max 8 tests/vm/guest-many.sh [IMAGES.tar [MORE.tar]]
#
# N VGs (100; clones of fixtures/single, from IMAGES.tar made by vm-many.sh with
# tests/bench/clone-pvs.py, else cloned here, which is slow under TCG) on null_blk devices, which
# udev sees like disks: their `add` events go through the rules. udev/69-pvscan-fast.rules from
# the build tree is installed in /etc/udev/rules.d (naming the build tree's command) and Debian's
# 69-lvm.rules masked. udevd's children_max is well below N (8), and there is no systemd: the
# leader goes on in its own session (--background), the other calls only record their device.
#   1. coldplug: all devices created and written while udev's queue is stopped, then the queue
#      started: N kernel add events at once; the first leader since boot reads every device;
#   2. after `vgchange -an`, `udevadm trigger --action=add` on every device: leaders now read
#      only the devices recorded as pending;
#   3. hotplug (configfs null_blk; MORE.tar holds hp-d1.img, one single-PV VG, and tp-d1.img,
#      tp-d2.img, one two-PV VG): the new VG comes up; the two-PV VG waits for its second PV;
#   4. both rules: lvm2's own rule (an instrumented copy) and ours on the same events: every VG
#      activated once, by one of them, and neither says a word on stderr.
# After 1 and 2: every LV active with the table its metadata gives, /dev/VG/LV and /dev/mapper
# links, udev's queue drained, no worker timed out, was killed or had a RUN fail, pvscan-fast's
# queue and journal empty, no udev semaphore left. After 1, lvm2's `vgchange -an` must remove
# everything cleanly. Times are printed as "# " lines.
#
# MANY_VGS_N (100, or fewer than the archive holds), MANY_VGS_CHILDREN_MAX (8),
# MANY_VGS_EVENT_TIMEOUT (udevd's --event-timeout; its default, 180 s, when unset),
# MANY_VGS_KEEP=DIR (a --rw directory: udevd's log and the tables are copied there).
# MANY_VGS_STORM2=0 skips storm 2; MANY_VGS_BOTH (10) is how many devices part 4 uses.
# MANY_VGS_LVM2=1 runs lvm2 2.03.16's own rule alone instead of storm 2, for comparison (it can
# deadlock: every worker in `vgchange -aay` waiting for udev to process its devices, which needs
# a free worker); that part only reports, within MANY_VGS_LVM2_DEADLINE seconds (150), and never
# fails the test.
set -eu

. "${top_srcdir:-$(dirname "$0")/../..}/tests/vm/guest-lib.sh"
guest_init guest-many.sh /tmp/many-vgs
command -v python3 >/dev/null || { echo "SKIP: many-vgs: no python3"; exit 77; }
N=${MANY_VGS_N:-100}
CM=${MANY_VGS_CHILDREN_MAX:-8}
LVM2_DEADLINE=${MANY_VGS_LVM2_DEADLINE:-150}
# How long a storm may take before the test gives up on it (udev's own event timeout is 180 s).
STORM_DEADLINE=240
udevd_pid=""
export LVM_SUPPRESS_FD_WARNINGS=1

# The devices are left to vanish with the VM: removing hundreds one by one costs minutes
# under TCG. Our udevd goes, the harness's is not restarted: the guest powers off next.
# shellcheck disable=SC2317 # called from the traps
cleanup() {
	set +e
	udevadm control --start-exec-queue 2>/dev/null
	dmsetup udevcomplete_all -y >/dev/null 2>&1
	[ -z "$udevd_pid" ] || kill "$udevd_pid" 2>/dev/null
	[ -z "${MANY_VGS_KEEP:-}" ] || cp "$work"/*.log "$work"/*.table "$MANY_VGS_KEEP"/ 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT


mask_lvm_rule guest-many.sh
mkdir -p "$work/img" "$work/bin"
# Copies: a rebuild on the host during the run must not change the binaries under udev (the
# command finds its engine beside itself).
cp "$PF" "$PF-engine" "$work/bin/"
PF=$work/bin/pvscan-fast

# --- images ------------------------------------------------------------------------------------
t=$(up)
more=${2:-}
guest_images "${1:-}" mv "$N"
set -- "$work"/img/*.img
[ -f "$1" ] || { echo "many-vgs: no images" >&2; exit 1; }
# MANY_VGS_N below the archive's count: the first N only
if [ $# -gt "$N" ]; then
	printf '%s\n' "$@" | tail -n +$((N + 1)) | xargs rm -f
	set -- "$work"/img/*.img
fi
N=$#
echo "# $N PV images ready in $(since "$t") s"

# --- our own udevd, its log kept --------------------------------------------------------------
# The harness's udevd logs nowhere we can read. Ours runs in the foreground with the same
# children_max, writing to a file: warnings name workers that took too long or were killed.
stop_udevd
et=""
[ -z "${MANY_VGS_EVENT_TIMEOUT:-}" ] || et=--event-timeout=$MANY_VGS_EVENT_TIMEOUT
# shellcheck disable=SC2086 # $et is one word or none
SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_COLOR=0 SYSTEMD_LOG_TIME=1 \
	/lib/systemd/systemd-udevd --debug --children-max="$CM" $et >"$work/udevd.log" 2>&1 &
udevd_pid=$!
i=0
until udevadm control --ping --timeout=1 >/dev/null 2>&1; do
	i=$((i + 1))
	[ $i -lt 100 ] || { echo "many-vgs: our systemd-udevd does not answer" >&2; exit 1; }
	sleep 0.1
done
echo "# systemd-udevd $udevd_pid: children_max $CM, --debug${et:+ $et}, log $work/udevd.log"

nullb_like_disk
install_pf_rule guest-many.sh "$work/bin"

# udev_log: the lines of udevd's log since mark $1 (a line count).
udev_log_since() {
	tail -n +"$(($1 + 1))" "$work/udevd.log"
}
log_mark() {
	wc -l <"$work/udevd.log"
}

# links_count: how many VGs have /dev/VG/lv0 and /dev/mapper/VG-lv0 (no process per VG).
links_count() {
	n=0
	for vgdir in "$work"/img/*.img; do
		vg=${vgdir##*/}
		vg=${vg%-d1.img}
		[ -L "/dev/$vg/lv0" ] && [ -L "/dev/mapper/$vg-lv0" ] && n=$((n + 1))
	done
	echo "$n"
}
dm_count() {
	n=0
	for d in /sys/block/dm-*; do
		[ -e "$d" ] && n=$((n + 1))
	done
	echo "$n"
}

# wait_links T0 DEADLINE PAUSE [DM]: poll every PAUSE s until all N VGs have their links or
# DEADLINE s have passed since T0; t_links is when the links were all there (empty: never) and,
# with DM, t_dm when all N dm devices were.
wait_links() {
	t_dm=""
	t_links=""
	while :; do
		el=$(since "$1")
		[ -z "${4:-}" ] || [ -n "$t_dm" ] || [ "$(dm_count)" -lt "$N" ] || t_dm=$el
		if [ "$(links_count)" -ge "$N" ]; then
			t_links=$el
			break
		fi
		awk -v e="$el" -v d="$2" 'BEGIN { exit !(e > d) }' && break
		sleep "$3"
	done
}

# storm_wait NAME T0 MARK: wait for every LV and link, then for udev's queue; check everything.
storm_wait() {
	name=$1
	t0=$2
	mark=$3
	wait_links "$t0" "$STORM_DEADLINE" 0.5 dm
	if udevadm settle --timeout=$STORM_DEADLINE; then
		t_settle=$(since "$t0")
		ok "$name: udev's queue drained ($t_settle s)"
	else
		t_settle=""
		not_ok "$name: udev's queue still busy after $STORM_DEADLINE s more"
	fi
	echo "# $name: $N dm devices at ${t_dm:-never} s, all links at ${t_links:-never} s," \
		"udev queue empty at ${t_settle:-never} s"
	if [ -n "$t_links" ]; then
		ok "$name: /dev/VG/lv0 and /dev/mapper/VG-lv0 for all $N VGs"
	else
		not_ok "$name: links for only $(links_count) of $N VGs after $STORM_DEADLINE s"
	fi

	dmsetup table 2>&1 | sort >"$work/table"
	same "$name: every LV's table is the one its metadata gives" "$work/expect.table" \
		"$work/table"
	dmsetup info -c --noheadings --separator ' ' -o name,attr,uuid 2>&1 | sort >"$work/info"
	bad=$(awk '$2 != "L--w" || $3 !~ /^LVM-[A-Za-z0-9]+$/ || length($3) != 68' "$work/info" |
		head -5)
	if [ "$(wc -l <"$work/info")" -eq "$N" ] && [ -z "$bad" ]; then
		ok "$name: $N devices live, resumed, writable, with LVM UUIDs"
	else
		not_ok "$name: device states: $(wc -l <"$work/info") devices; $bad"
	fi
	udev_log_since "$mark" >"$work/storm.log"
	bad=$(grep -E 'killed|[Tt]imed out|terminated by signal|failed with exit code|did not accept' \
		"$work/storm.log" | head -5 || true)
	if [ -z "$bad" ]; then
		ok "$name: no udev worker timed out or was killed, no RUN failed"
	else
		not_ok "$name: udevd: $bad"
	fi
	# udevd warns at a third of its event timeout (180 s): the leader's worker waits for udev
	# to work through the whole storm before its devices' events.
	grep -E 'taking a long time|taking longer' "$work/storm.log" | sed 's/^/# udevd: /' || true
	runs=$(grep -c "Running command \"$PF" "$work/storm.log" || true)
	okruns=$(grep -c "Process '$PF .*' succeeded" "$work/storm.log" || true)
	if [ "$runs" -ge "$N" ] && [ "$okruns" -eq "$runs" ]; then
		ok "$name: udev ran pvscan-fast $runs times, every run exited 0"
	else
		not_ok "$name: udev ran pvscan-fast $runs times, $okruns exited 0 (want >= $N, all)"
	fi
	# What pvscan-fast said on stderr inside udev (udevd logs the RUN programs' output).
	grep -E "'$PF .*'\(err\)" "$work/storm.log" | sed 's/^/#   /' | head -10 || true
	left=$(t_queue_left /run/lvm | wc -l)
	online=$(find /run/lvm/vgs_online -mindepth 1 | wc -l)
	if [ "$left" -eq 0 ] && [ "$online" -eq "$N" ]; then
		ok "$name: pvscan-fast's queue and journal empty, $N VGs online"
	else
		not_ok "$name: pvscan-fast state: $online VGs claimed in vgs_online; $left left queued"
		t_queue_left /run/lvm | head -5 | sed 's/^/#   /'
	fi
	no_udev_sems "$name: "
}

# deactivate NAME: lvm2 takes every VG down again, cleanly.
deactivate() {
	t=$(up)
	if lvm vgchange -an >"$work/down.log" 2>&1; then
		udevadm settle --timeout=120 || true
		left=$(dmsetup ls 2>&1 | grep -vx 'No devices found' | head -5 || true)
		dirs=$(for d in /dev/mv[0-9]*; do [ -e "$d" ] && echo "$d"; done | head -5)
		if [ -z "$left" ] && [ -z "$dirs" ]; then
			ok "$1: vgchange -an removes all $N LVs and their links ($(since "$t") s)"
		else
			not_ok "$1: left after vgchange -an: $left $dirs"
		fi
	else
		not_ok "$1: vgchange -an failed"
		sed 's/^/#   /' "$work/down.log" | head -20
	fi
	if [ -n "$(ipcs -s | awk '$1 ~ /^0x0d4d/')" ]; then
		not_ok "$1: udev semaphores left after vgchange -an"
		dmsetup udevcomplete_all -y >/dev/null 2>&1 || true
	fi
}

# --- storm 1: coldplug, kernel add events of N new null_blk devices, all queued at once ---------

udevadm settle
mark=$(log_mark)
udevadm control --stop-exec-queue
t=$(up)
# 1 GiB each, memory-backed: only the PV's label and metadata are ever written.
modprobe null_blk nr_devices="$N" gb=1 memory_backed=1
i=0
pairs=""
for img in "$@"; do
	pairs="$pairs /dev/nullb$i $img"
	i=$((i + 1))
done
# shellcheck disable=SC2086 # device and image paths have no blanks
write_images $pairs >"$work/devs"
if [ "$(wc -l <"$work/devs")" -ne "$N" ]; then
	udevadm control --start-exec-queue
	echo "many-vgs: wrote $(wc -l <"$work/devs") of $N devices" >&2
	exit 1
fi
echo "# $N null_blk devices made and written in $(since "$t") s with udev's queue stopped"
expect_tables
t0=$(up)
udevadm control --start-exec-queue
storm_wait "storm 1 (coldplug)" "$t0" "$mark"
deactivate "storm 1"
# lvm2 2.03.16's vgchange -an re-arms autoactivation (removes vgs_online/VG) only for the first
# VG it deactivates (toollib.c resets online_vg_file_removed per VG only for LV commands): re-arm
# the others as `vgchange -an VG` one by one would.
left=$(find /run/lvm/vgs_online -mindepth 1 | wc -l)
echo "# lvm2's vgchange -an left $left of $N VGs claimed in vgs_online; removed"
rm -f /run/lvm/vgs_online/*

# --- storm 2: udevadm trigger, pvscan-fast's state from storm 1 in place -----------------------
# Skipped with MANY_VGS_LVM2=1 (the VM's time goes to lvm2's rule instead) or MANY_VGS_STORM2=0.
if [ "${MANY_VGS_LVM2:-0}" != 1 ] && [ "${MANY_VGS_STORM2:-1}" != 0 ]; then
	mark=$(log_mark)
	t0=$(up)
	# shellcheck disable=SC2046 # device names have no blanks
	udevadm trigger --action=add $(awk '{ print "/dev/" $1 }' "$work/devs")
	storm_wait "storm 2 (udevadm trigger)" "$t0" "$mark"
fi

# leader_idle: udev's queue drained and no pvscan-fast leader at work (one that lets go looks at
# the queue once more, so ask twice).
leader_idle() {
	udevadm settle --timeout=120 || true
	flock /run/lock/lvm/pvscan-fast.leader true
	sleep 0.5
	flock /run/lock/lvm/pvscan-fast.leader true
}

# wait_vg VG SECONDS: 0 once /dev/VG has a link, 1 after SECONDS.
wait_vg() {
	_t=$(up)
	until [ -n "$(find "/dev/$1" -mindepth 1 -maxdepth 1 -type l 2>/dev/null)" ]; do
		awk -v e="$(since "$_t")" -v d="$2" 'BEGIN { exit !(e > d) }' && return 1
		sleep 0.5
	done
	return 0
}

# --- 3: hotplug ---------------------------------------------------------------------------------
# hotplug NAME IMAGE: a new memory-backed null_blk (configfs) holding IMAGE, its add event held
# back until the PV is written, as a disk's would be complete when it appears. NAME starts with
# nullb: kernels since 6.0 name the disk after its configfs directory.
hotplug() {
	cfg=/sys/kernel/config/nullb
	[ -d "$cfg" ] || mount -t configfs none /sys/kernel/config
	mkdir "$cfg/$1"
	echo 1 >"$cfg/$1/memory_backed"
	echo 1024 >"$cfg/$1/size"
	udevadm control --stop-exec-queue
	ls /sys/block >"$work/before"
	echo 1 >"$cfg/$1/power"
	# the kernel names it (nullbINDEX, or after the directory in newer kernels)
	_dev=$(ls /sys/block | grep -vxF -f "$work/before" | head -n 1)
	write_images "/dev/$_dev" "$2" >>"$work/hot"
	udevadm control --start-exec-queue
}

# hot_diag: what udev and pvscan-fast made of the last hotplugged device.
hot_diag() {
	_dev=$(tail -n 1 "$work/hot" | cut -d' ' -f1)
	udevadm info "/dev/$_dev" 2>&1 | grep -E 'ID_FS_TYPE|SYSTEMD_READY|DEVPATH' | sed 's/^/#   /'
	grep -F "$_dev" "$work/udevd.log" | grep -E 'RUN|Running|Process' | tail -n 5 |
		sed 's/^/#   /'
	find /run/lvm -newer "$work/before" | sed 's/^/#   /' | head -n 10
}

if [ -n "$more" ]; then
	mkdir -p "$work/more"
	tar -xSf "$more" -C "$work/more"
	hotplug nullbhp "$work/more/hp00000-d1.img"
	if wait_vg hp00000 60; then
		ok "hotplug: a new PV's VG comes up"
	else
		not_ok "hotplug: /dev/hp00000 not there 60 s after its PV appeared"
		hot_diag
	fi
	hotplug nullbtp1 "$work/more/tp00000-d1.img"
	leader_idle
	if [ -e /dev/tp00000 ] || [ -e /run/lvm/vgs_online/tp00000 ]; then
		not_ok "hotplug: a two-PV VG came up with one PV"
	else
		ok "hotplug: a two-PV VG waits for its second PV"
	fi
	hotplug nullbtp2 "$work/more/tp00000-d2.img"
	if wait_vg tp00000 60; then
		ok "hotplug: the second PV completes the VG and it comes up"
	else
		not_ok "hotplug: /dev/tp00000 not there 60 s after its second PV appeared"
		hot_diag
	fi
	leader_idle
fi

# --- 4: both rules --------------------------------------------------------------------------------
# A host that installed pvscan-fast but did not mask lvm2's rule. Debian's rule as shipped, but
# its lvm calls noted; children_max raised, since lvm2's rule runs vgchange inside the worker
# without systemd and would otherwise deadlock on its own (see MANY_VGS_LVM2).
B=${MANY_VGS_BOTH:-10}
[ "$B" -le "$N" ] || B=$N
if [ "$B" -gt 0 ]; then
	lvm vgchange -an >/dev/null 2>&1 || true
	leader_idle
	rm -rf /run/lvm/pvs_online /run/lvm/vgs_online /run/lvm/pvs_lookup /run/lvm/pvscan-fast
	cat >"$work/bin/lvm" <<EOF
#!/bin/sh
echo "\$*" >>"$work/lvm2-calls"
exec /sbin/lvm "\$@"
EOF
	chmod 0755 "$work/bin/lvm"
	: >"$work/lvm2-calls"
	sed "s|/sbin/lvm|$work/bin/lvm|g" /lib/udev/rules.d/69-lvm.rules \
		>/etc/udev/rules.d/69-lvm.rules
	udevadm control --reload --children-max=64
	head -n "$B" "$work/devs" | awk '{ print $3 }' | sed 's|.*/||; s|-d1.img$||' | sort \
		>"$work/both.want"
	dmesg -c >/dev/null 2>&1 || true
	mark=$(log_mark)
	# shellcheck disable=SC2046 # device names have no blanks
	udevadm trigger --action=add $(head -n "$B" "$work/devs" | awk '{ print "/dev/" $1 }')
	t0=$(up)
	for vg in $(cat "$work/both.want"); do
		wait_vg "$vg" 60 || break
	done
	leader_idle
	up_vgs=$(for vg in $(cat "$work/both.want"); do
		[ -L "/dev/$vg/lv0" ] && echo "$vg"; done)
	if [ "$(echo "$up_vgs" | grep -c .)" -eq "$B" ]; then
		ok "both rules: all $B VGs up ($(since "$t0") s)"
	else
		not_ok "both rules: $(echo "$up_vgs" | grep -c .) of $B VGs up"
	fi
	grep '^vgchange' "$work/lvm2-calls" | awk '{ print $NF }' | sort >"$work/both.lvm2"
	dups=$(uniq -d "$work/both.lvm2")
	by_lvm2=$(grep -c . "$work/both.lvm2" || true)
	if [ -z "$dups" ]; then
		ok "both rules: no VG activated twice (lvm2's rule $by_lvm2, pvscan-fast $((B - by_lvm2)))"
	else
		not_ok "both rules: lvm2's rule activated $dups more than once"
	fi
	# (the hotplugged VGs are claimed too: the state was cleared, so the first leader read all)
	claimed=$(for vg in $(cat "$work/both.want"); do
		[ -f "/run/lvm/vgs_online/$vg" ] && echo "$vg"; done | grep -c . || true)
	[ "$claimed" -eq "$B" ] && ok "both rules: $B VGs claimed in vgs_online" ||
		not_ok "both rules: $claimed of $B VGs claimed"
	udev_log_since "$mark" >"$work/both.log"
	said=$(grep -E "'($work/bin/lvm|$PF) .*'\(err\)|failed with exit code|killed|[Tt]imed out" \
		"$work/both.log" | head -5 || true)
	kmsg=$(dmesg 2>/dev/null | grep -i 'pvscan' | head -5 || true)
	if [ -z "$said$kmsg" ]; then
		ok "both rules: no errors or warnings from either, no RUN failed"
	else
		not_ok "both rules: $said $kmsg"
	fi
	mask_lvm_rule guest-many.sh
	udevadm control --children-max="$CM"
fi

# --- for comparison only: lvm2's own rule --------------------------------------------------------
if [ "${MANY_VGS_LVM2:-0}" = 1 ]; then
	rm -f /etc/udev/rules.d/69-lvm.rules /etc/udev/rules.d/69-pvscan-fast.rules
	udevadm control --reload
	rm -rf /run/lvm/pvs_online /run/lvm/vgs_online /run/lvm/pvs_lookup /run/lvm/pvscan-fast
	mark=$(log_mark)
	t0=$(up)
	# shellcheck disable=SC2046
	udevadm trigger --action=add $(awk '{ print "/dev/" $1 }' "$work/devs")
	wait_links "$t0" "$LVM2_DEADLINE" 1
	echo "# lvm2's rule: $(links_count) of $N VGs up after $(since "$t0") s" \
		"(all: ${t_links:-no}); semaphores now: $(ipcs -s | grep -c '^0x0d4d' || true)"
	udev_log_since "$mark" | grep -E 'taking a long time|killed|[Tt]imed out|taking longer' |
		head -5 | sed 's/^/#   lvm2 rule: /' || true
	# Unwedge: no more activation, count every cookie off, let the queue drain.
	mask_lvm_rule guest-many.sh
	i=0
	until udevadm settle --timeout=5 2>/dev/null; do
		dmsetup udevcomplete_all -y >/dev/null 2>&1 || true
		i=$((i + 1))
		[ $i -lt 60 ] || break
	done
	echo "# lvm2's rule: queue drained after $(since "$t0") s; $(dm_count) dm devices"
	lvm vgchange -an >/dev/null 2>&1 || true
	dmsetup udevcomplete_all -y >/dev/null 2>&1 || true
fi

echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
