#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest script: issue 13's fault matrix. N single-PV VGs at coldplug through pvscan-fast's
# installed udev rule, each case with one fault; the VGs the fault does not touch must end up
# exactly as without it.
#
#   tests/vm/vm-run.sh --udev-children-max 8 --modules "null_blk scsi_debug" \
#       tests/vm/guest-faults.sh IMAGES.tar
#
# IMAGES.tar (made by vm-faults.sh with tests/bench/clone-pvs.py from fixtures/single) holds
# mvNNNNN-d1.img (the N unaffected VGs), fh00000-d1.img (the PV whose reads hang),
# fe00000-d1.img (the PV returning EIO), fg00000-d1.img (the PV that disappears) and
# dup-d1.img (a second VG named mv00000). The N PVs are on null_blk devices, which udev and
# lvm treat as disks (nullb_like_disk). A coldplug: the run state cleared (/run/lvm, as at
# boot), udev's queue stopped, `udevadm trigger --action=add` on the N devices, the queue
# started: the first leader since boot reads every device, the fault's included.
#   none  no fault: the reference time to all VGs up.
#   hang  fh's PV on a dm linear device over a null_blk, suspended before the coldplug: reads
#         queue for ever. pvscan_fast/scan_timeout is FAULTS_SCAN_TIMEOUT (3 s) here and in gone
#         (elsewhere its default, 30 s). Every other
#         VG must come up while it is still suspended, the device be named; then it is resumed.
#   eio   fe's PV on a dm device whose metadata area is an `error` target: the label reads,
#         the metadata returns EIO. The others come up, the device is named.
#   gone  fg's PV on a scsi_debug disk whose commands take FAULTS_GONE_DELAY jiffies (500,
#         2 s); deleted through /sys/block/sdX/device/delete while a read of it is in flight.
#   kill  for each STEP:ACTION of FAULTS_KILLS (crash = SIGKILL, term = SIGTERM): every
#         invocation under udev runs the test build (tests/inject) with
#         PVSCAN_FAST_INJECT=STEP:ACTION, so every leader dies at STEP. Once udev is idle,
#         no further uevent: `pvscan-fast --cache -aay --autoactivation event --recover` (what
#         pvscan-fast-recover.service and the initramfs's last step run) must finish the work.
#   garbage  files that are no queue entries (junk names, a directory, a FIFO, a symlink, a
#         journal entry of a VG that does not exist) in pending/, inflight/ and activate/
#         before the coldplug. A name that is no VG name may stay in activate/ (ignored).
#   runfull  /run/lvm a full 64 KiB tmpfs: lvm2 still activates; so must the leader.
#   sigchld  leaders killed at activation-begun, then --recover run by a caller that ignores
#         SIGCHLD.
#   capped  FAULTS_CAPPED (vm-faults.sh: 8) hostile PVs at the per-PV caps among the N at the
#         coldplug: dm devices sharing the bulk of a 64 MiB metadata text (the text cap) that
#         parses into a VG of 27167 LVs, each VG incomplete (tests/bench/capped-pvs.py).
#         Together they ask for more than the guest's memory: the devices past the scan's
#         memory budget are named, nothing is OOM-killed, every other VG comes up; then the
#         same for an admin's `pvscan-fast --cache -aay`.
#   dupname  after the coldplug, dup-d1.img on a late disk: a second VG named mv00000 (other
#         UUIDs). The first mv00000 stays as it is, the second is not activated; an admin's
#         full `--cache -aay` refuses the name as lvm2 does ("Multiple VGs found with the same
#         name: skipping mv00000"), exits 5 and activates neither.
# Checked in every case: every unaffected VG has its LV live in device-mapper with the table its
# metadata gives, /dev/VG/lv0 and /dev/mapper links; each LV resumed once (kernel change
# uevents naming it: nothing activated twice); the leader lock free (flock -n); pvscan-fast's
# pending/, inflight/, activate/ empty; no SysV semaphore left (ipcs -s); no pvscan-fast
# process left. One line "ROW|case|up/expected|seconds to all up|leftovers|semaphores|lock"
# per case for docs/faults.md.
#
# FAULTS_N (8, or fewer than the archive holds), FAULTS_CASES ("hang eio gone kill runfull capped";
# any of the above, in any order), FAULTS_KILLS (the kill case's STEP:ACTION
# pairs, "taken:crash activation-begun:term"), or FAULTS_STEPS ("all": every step of
# lib/base/inject.h) with FAULTS_ACTIONS ("crash term"): every step with every action;
# FAULTS_SCAN_TIMEOUT (3), FAULTS_GONE_DELAY (500), FAULTS_DEADLINE (300 s: how long a case may
# take before the test gives up on it; never a pass condition).
# Checks that fail by a known defect say XFAIL (known_defect below, docs/faults.md) and do not
# count, unless FAULTS_STRICT=1.
set -eu

. "${top_srcdir:-$(dirname "$0")/../..}/tests/vm/guest-lib.sh"
guest_init guest-faults.sh /tmp/faults
command -v python3 >/dev/null || { echo "SKIP: faults: no python3"; exit 77; }
[ -n "${1:-}" ] || { echo "usage: guest-faults.sh IMAGES.tar" >&2; exit 2; }
N=${FAULTS_N:-8}
# make check's share: the rest is make bench-faults's
CASES=${FAULTS_CASES:-hang eio gone kill runfull capped}
# kill: STEP:ACTION pairs; with FAULTS_STEPS, every step of it with every action.
KILLS=${FAULTS_KILLS:-taken:crash activation-begun:term}
if [ -n "${FAULTS_STEPS:-}" ]; then
	STEPS=$FAULTS_STEPS
	[ "$STEPS" != all ] || STEPS="recorded locked taken round-done round-finished drained
released activation-begun activation-ending"
	KILLS=""
	for a in ${FAULTS_ACTIONS:-crash term}; do
		for s in $STEPS; do
			KILLS="$KILLS $s:$a"
		done
	done
fi
TIMEOUT=${FAULTS_SCAN_TIMEOUT:-3}
DEADLINE=${FAULTS_DEADLINE:-300}
GONE_DELAY=${FAULTS_GONE_DELAY:-500}
NB_SECTORS=2097152
LOCK=/run/lock/lvm/pvscan-fast.leader
INJ=$top_builddir/tests/inject/pvscan-fast
monitor_pid=""
export LVM_SUPPRESS_FD_WARNINGS=1

# shellcheck disable=SC2317 # called from the traps
cleanup() {
	set +e
	[ -z "$monitor_pid" ] || kill "$monitor_pid" 2>/dev/null
	udevadm control --start-exec-queue 2>/dev/null
	mountpoint -q /run/lvm && umount -l /run/lvm
	for d in $(dmsetup info -c --noheadings -o name 2>/dev/null); do
		dmsetup resume "$d" >/dev/null 2>&1
	done
	dmsetup udevcomplete_all -y >/dev/null 2>&1
	dmsetup remove_all >/dev/null 2>&1
	for l in $cloops; do
		losetup -d "$l"
	done
	rm -rf "$work"
}
cloops=""
trap cleanup EXIT

mkdir -p "$work/real" "$work/inj" "$work/bin"
# Copies: a rebuild on the host must not change the binaries under udev.
cp "$PF" "$PF-engine" "$work/real/"
if [ -x "$INJ" ] && [ -x "$INJ-engine" ]; then
	cp "$INJ" "$INJ-engine" "$work/inj/"
else
	case " $CASES " in
	*" kill "*)
		echo "faults: $INJ{,-engine} not built (make tests/inject/pvscan-fast" \
			"tests/inject/pvscan-fast-engine)" >&2
		exit 1
		;;
	esac
fi
PF=$work/real/pvscan-fast
# What udev runs: the installed command, or the test build with the fault of $work/inject.
# udev gives its programs the device's properties as their environment, not ours.
cat >"$work/bin/pvscan-fast" <<EOF
#!/bin/sh
if [ -s "$work/inject" ]; then
	read -r PVSCAN_FAST_INJECT <"$work/inject"
	export PVSCAN_FAST_INJECT
	exec "$work/inj/pvscan-fast" "\$@"
fi
exec "$PF" "\$@"
EOF
chmod 0755 "$work/bin/pvscan-fast"

# --- images and devices ------------------------------------------------------------------------
mkdir -p "$work/img"
tar -xSf "$1" -C "$work/img"
set -- "$work"/img/mv*-d1.img
[ -f "$1" ] || { echo "faults: no mv images in the archive" >&2; exit 1; }
if [ $# -gt "$N" ]; then
	printf '%s\n' "$@" | tail -n +$((N + 1)) | xargs rm -f
	set -- "$work"/img/mv*-d1.img
fi
N=$#
for f in fh00000 fe00000 fg00000 dup; do
	[ -f "$work/img/$f-d1.img" ] || { echo "faults: no $f-d1.img in the archive" >&2; exit 1; }
done
# null_blk devices: nullb0..N-1 the N PVs, then the backing devices of hang and eio, then the
# late disk of dupname (written only in that case).
NH=$N
NE=$((N + 1))
ND=$((N + 2))


mask_lvm_rule guest-faults.sh
nullb_like_disk
# lvm.conf for a case: the backing devices of the dm fault devices are not PVs of their own;
# pvscan_fast/scan_timeout $1 (s), or its default (30 s) without. A short one only where a
# device is to time out: under TCG on a loaded host, a reader can be silent for seconds.
# No "a|.*|" last: lvm2's filter decides on the first of a device's names that any pattern
# matches, which could be /dev/block/MAJ:MIN.
write_conf() {
	cat >/etc/lvm/lvm.conf <<EOF
devices {
	types = [ "nullb", 16 ]
	global_filter = [ "r|^/dev/nullb$NH\$|", "r|^/dev/nullb$NE\$|", "r|^/dev/loop|" ]
}
EOF
	[ -z "${1:-}" ] || printf 'pvscan_fast {\n\tscan_timeout = %s\n}\n' "$1" >>/etc/lvm/lvm.conf
}
write_conf
udevadm settle
t=$(up)
modprobe null_blk nr_devices=$((N + 3)) gb=1 memory_backed=1
i=0
pairs=""
for img in "$@"; do
	pairs="$pairs /dev/nullb$i $img"
	i=$((i + 1))
done
# shellcheck disable=SC2086 # device and image paths have no blanks
write_images $pairs /dev/nullb$NH "$work/img/fh00000-d1.img" /dev/nullb$NE \
	"$work/img/fe00000-d1.img" >"$work/devs.all"
head -n "$N" "$work/devs.all" >"$work/devs"
[ "$(wc -l <"$work/devs")" -eq "$N" ] || { echo "faults: devices not written" >&2; exit 1; }
udevadm settle
install_pf_rule guest-faults.sh "$work/bin"
# With systemd as init (vm-run.sh --systemd): leaders run as transient services, which get the
# fault through the manager's environment; pvscan-fast-recover.service is installed and enabled
# (naming the build's command) and started as the boot would, after coldplug.
SYSTEMD=0
if [ -d /run/systemd/system ]; then
	SYSTEMD=1
	sed "s|@sbindir@|$work/real|g" "$top_srcdir/systemd/pvscan-fast-recover.service.in" \
		>/etc/systemd/system/pvscan-fast-recover.service
	systemctl daemon-reload
	systemctl enable pvscan-fast-recover.service 2>/dev/null
fi
echo "# $N null_blk PVs written in $(since "$t") s; scan_timeout $TIMEOUT s in hang and gone;" \
	"systemd $SYSTEMD"

# logs: what pvscan-fast said since the case began: the kernel log (a detached leader's stderr)
# and, with systemd, the journal (the leader services').
jmark=$(date +%s)
logs() {
	dmesg
	[ "$SYSTEMD" = 0 ] || journalctl --since "@$jmark" -o short-monotonic --no-pager 2>/dev/null
}
DEVS=$(awk '{ printf "/dev/%s ", $1 }' "$work/devs")
VGS=$(awk '{ n = $3; sub(/.*\//, "", n); sub(/-d1\.img$/, "", n); printf "%s ", n }' "$work/devs")
expect_tables

# --- what every case checks ----------------------------------------------------------------------
# links_up: how many of the N VGs have /dev/VG/lv0 and /dev/mapper/VG-lv0.
links_up() {
	_n=0
	for _vg in $VGS; do
		[ -L "/dev/$_vg/lv0" ] && [ -L "/dev/mapper/$_vg-lv0" ] && [ -b "/dev/$_vg/lv0" ] &&
			_n=$((_n + 1))
	done
	echo "$_n"
}

# wait_up T0: poll until the N VGs are up, or nothing is at work any more (udev's queue empty,
# the leader lock free) for 3 s, or DEADLINE s have passed since T0; t_up: seconds since T0 when
# all were up, or "".
wait_up() {
	t_up=""
	_idle=0
	while :; do
		if [ "$(links_up)" -ge "$N" ]; then
			t_up=$(since "$1")
			return 0
		fi
		awk -v e="$(since "$1")" -v d="$DEADLINE" 'BEGIN { exit !(e > d) }' && return 1
		if udevadm settle --timeout=0 2>/dev/null && { [ ! -e "$LOCK" ] || flock -n "$LOCK" true; }; then
			_idle=$((_idle + 1))
			[ $_idle -lt 6 ] || return 1
		else
			_idle=0
		fi
		sleep 0.5
	done
}

# leader_idle: udev's queue drained and no leader at work (one that lets go looks at the queue
# once more: asked twice). 1 when the lock is still held after DEADLINE s.
leader_idle() {
	udevadm settle --timeout="$DEADLINE" || true
	if [ "$SYSTEMD" = 1 ]; then
		_i=0
		while [ -n "$(systemctl list-units --no-legend --plain \
			--state=active,activating,deactivating 'pvscan-fast-leader-*' 2>/dev/null)" ]; do
			_i=$((_i + 1))
			[ $_i -lt $((DEADLINE * 2)) ] || return 1
			sleep 0.5
		done
	fi
	flock -w "$DEADLINE" "$LOCK" true 2>/dev/null || [ ! -e "$LOCK" ] || return 1
	sleep 0.5
	flock -w "$DEADLINE" "$LOCK" true 2>/dev/null || [ ! -e "$LOCK" ] || return 1
}

# Kernel uevents of block devices while a case runs: a dm resume is a change event naming it.
monitor_start() {
	udevadm monitor --kernel --property --subsystem-match=block >"$work/uevents" 2>&1 &
	monitor_pid=$!
	sleep 0.5
}
monitor_stop() {
	[ -z "$monitor_pid" ] || kill "$monitor_pid" 2>/dev/null || true
	wait "$monitor_pid" 2>/dev/null || true
	monitor_pid=""
}
# resumes: "COUNT NAME" for every dm device resumed (a change event with DM_NAME).
resumes() {
	awk 'BEGIN { RS = "" } /ACTION=change/ && match($0, /DM_NAME=[^\n]*/) {
		print substr($0, RSTART + 8, RLENGTH - 8) }' "$work/uevents" | sort | uniq -c
}

# known_defect CASE CHECK: the defect (docs/faults.md) that makes CHECK fail in CASE, or "".
# FAULTS_STRICT=1 counts them as failures.
known_defect() {
	[ "${FAULTS_STRICT:-0}" != 1 ] || return 0
	# none known: D1 and D2 are fixed (docs/faults.md); add "CASE:CHECK) echo LABEL ;;"
	case "$1:$2" in
	*) ;;
	esac
}
check() { # CASE CHECK OK MESSAGE
	if [ "$3" = 0 ]; then
		ok "$1: $4"
	else
		_d=$(known_defect "$1" "$2")
		if [ -n "$_d" ]; then
			xfail "$1: $4" "$_d"
		else
			not_ok "$1: $4"
		fi
	fi
}

# verify CASE T0: the N VGs as without any fault; prints the ROW; t_up from wait_up.
verify() {
	_c=$1
	_up=$(links_up)
	check "$_c" up "$([ "$_up" -eq "$N" ]; echo $?)" \
		"$_up of $N unaffected VGs up with /dev/VG/lv0 and /dev/mapper links (${t_up:-never} s)"
	if [ "$_up" -lt "$N" ]; then
		_miss=""
		for _vg in $VGS; do
			[ -L "/dev/$_vg/lv0" ] || _miss="$_miss $_vg"
		done
		echo "#   down:$(echo "$_miss" | cut -d' ' -f1-12)"
		_re=$(echo "$_miss" | awk '{ for (i = 1; i <= NF && i <= 12; i++) printf "%s%s", (i > 1 ? "|" : ""), $i }')
		logs | grep -E "$_re" | head -10 | sed 's/^/#   said: /'
		echo "#   what pvscan-fast said, most frequent first:"
		logs | grep pvscan-fast | sed 's/^\[[ 0-9.]*\] //' | sed 's/[0-9][0-9]*/N/g' |
			sort | uniq -c | sort -rn | head -12 | sed 's/^/#   /'
		logs | grep -iE 'killed process|out of memory|segfault|oom|traps:' | head -5 |
			sed 's/^/#   kernel: /'
		ls -l /run/lvm/pvs_online 2>/dev/null | wc -l | sed 's/^/#   pvs_online entries: /'
		ls /run/lvm/vgs_online 2>/dev/null | wc -l | sed 's/^/#   vgs_online entries: /'
	fi
	dmsetup table 2>/dev/null | grep '^mv[0-9]*-lv0:' | sort >"$work/table" || true
	if cmp -s "$work/expect.table" "$work/table"; then
		check "$_c" tables 0 "every unaffected LV live with the table its metadata gives"
	else
		check "$_c" tables 1 "tables differ from the metadata's"
		diff "$work/expect.table" "$work/table" | head -5 | sed 's/^/#   /'
	fi
	_bad=$(dmsetup info -c --noheadings --separator ' ' -o name,attr 2>/dev/null |
		awk '$1 ~ /^mv[0-9]+-lv0$/ && $2 != "L--w"' | head -3)
	check "$_c" states "$([ -z "$_bad" ]; echo $?)" "every unaffected LV resumed and writable${_bad:+: $_bad}"
	resumes | awk '$2 ~ /^mv[0-9]+-lv0$/' >"$work/resumes"
	_twice=$(awk '$1 > 1 { printf "%s(%d) ", $2, $1 }' "$work/resumes")
	check "$_c" twice "$([ -z "$_twice" ]; echo $?)" \
		"no LV resumed twice (kernel change uevents)${_twice:+: $_twice}"
	if [ ! -e "$LOCK" ] || flock -n "$LOCK" true; then
		_lock=yes
	else
		_lock=no
	fi
	check "$_c" lock "$([ $_lock = yes ]; echo $?)" "the leader lock is free (flock -n)"
	_left=$(t_queue_left /run/lvm | grep -vxF "${queue_ignore:-/}" | tr '\n' ' ')
	check "$_c" queue "$([ -z "$_left" ]; echo $?)" \
		"pending/, inflight/, activate/ empty${_left:+: $_left}"
	_sems=$(ipcs -s | awk '$1 ~ /^0x/ { printf "%s ", $1 }')
	check "$_c" sems "$([ -z "$_sems" ]; echo $?)" "no SysV semaphore left${_sems:+: $_sems}"
	[ -z "$_sems" ] || dmsetup udevcomplete_all -y >/dev/null 2>&1 || true
	_procs=$(pf_procs)
	check "$_c" procs "$([ -z "$_procs" ]; echo $?)" "no pvscan-fast process left${_procs:+: $_procs}"
	echo "ROW|$_c|$_up/$N|${t_up:-never}|${_left:-none}|$(echo "$_sems" | wc -w)|$_lock|${row_note:-}"
	row_note=""
}

# pf_procs: the pvscan-fast processes left (ours run from $work), by one ls.
pf_procs() {
	ls -l /proc/[0-9]*/exe 2>/dev/null | awk -v w="$work/" 'index($NF, w) == 1 {
		split($(NF - 2), p, "/"); printf "%s ", p[3] }'
}

# reset: no LV, no pvscan-fast state (as at boot), no fault device, no kernel log.
reset() {
	leader_idle || true
	monitor_stop
	mountpoint -q /run/lvm && umount -l /run/lvm
	for _d in $(dmsetup info -c --noheadings -o name 2>/dev/null); do
		dmsetup resume "$_d" >/dev/null 2>&1 || true
	done
	dmsetup remove_all >/dev/null 2>&1 || true
	udevadm settle --timeout=120 || true
	# A leader of the previous case can outlive leader_idle when its lock was on a file system
	# since unmounted (runfull's tmpfs): it would bring VGs back after this teardown. Give it
	# the case deadline, then kill it, and tear down again.
	_i=0
	while [ -n "$(pf_procs)" ] && [ $_i -lt $((DEADLINE * 2)) ]; do
		_i=$((_i + 1))
		sleep 0.5
	done
	_left=$(pf_procs)
	if [ -n "$_left" ]; then
		echo "# reset: pvscan-fast processes still running after $DEADLINE s, killed: $_left"
		# shellcheck disable=SC2086 # pids
		kill -9 $_left 2>/dev/null || true
	fi
	dmsetup remove_all >/dev/null 2>&1 || true
	udevadm settle --timeout=120 || true
	# links a leader made itself (DM_DISABLE_UDEV) are not udev's to remove
	for _vg in $VGS; do
		[ ! -d "/dev/$_vg" ] || find "/dev/$_vg" -xtype l -delete 2>/dev/null || true
	done
	find /dev/mapper -xtype l -delete 2>/dev/null || true
	dmsetup udevcomplete_all -y >/dev/null 2>&1 || true
	rm -rf /run/lvm/pvs_online /run/lvm/vgs_online /run/lvm/pvs_lookup /run/lvm/pvscan-fast
	: >"$work/inject"
	write_conf
	dmesg -C
	if [ "$SYSTEMD" = 1 ]; then
		systemctl reset-failed 'pvscan-fast-leader-*' pvscan-fast-recover.service \
			2>/dev/null || true
		systemctl unset-environment PVSCAN_FAST_INJECT
		sleep 1 # the journal's --since has a one-second grain
	fi
	jmark=$(date +%s)
}

# unseen COMMAND...: run COMMAND (which makes dm devices) with pvscan-fast's rule out of the
# way: the devices' events would start a leader (a full scan) before the coldplug.
unseen() {
	mv /etc/udev/rules.d/69-pvscan-fast.rules "$work/rule"
	udevadm control --reload
	"$@"
	# every event of the new devices handled before the rule is back (1000 of them under TCG
	# take minutes): one handled after would start a leader before the coldplug
	udevadm settle --timeout=1800
	mv "$work/rule" /etc/udev/rules.d/69-pvscan-fast.rules
	udevadm control --reload
}

# fault_dev NAME TABLE: create dm device NAME with TABLE, unseen. fdev: its kernel name.
fault_dev() {
	unseen sh -c 'printf "%s\n" "$2" | dmsetup create "$1"' sh "$1" "$2"
	fdev=$(basename "$(readlink -f "/dev/mapper/$1")")
}

# coldplug [DEV...]: add events for the N PVs (and DEVs) released at once; t0 is when.
coldplug() {
	_pre=$(links_up)
	[ "$_pre" -eq 0 ] || not_ok "$N VGs already up before the coldplug: $_pre"
	udevadm control --stop-exec-queue
	# shellcheck disable=SC2086 # device names have no blanks
	udevadm trigger --action=add $DEVS "$@"
	t0=$(up)
	udevadm control --start-exec-queue
}

# said PATTERN: the kernel log's lines (where the detached leader's stderr goes) matching it.
said() {
	logs | grep -E "$1" | head -3 | sed 's/^/#   /'
}

# --- none: the same coldplug without a fault, for the times ---------------------------------
case_none() {
	reset
	monitor_start
	coldplug
	wait_up "$t0" || true
	leader_idle || true
	row_note="no fault: the reference time"
	verify none
	monitor_stop
}

# --- hang: a PV whose reads never return -----------------------------------------------------
case_hang() {
	reset
	write_conf "$TIMEOUT"
	fault_dev fault-hang "0 $NB_SECTORS linear /dev/nullb$NH 0"
	hdev=$fdev
	dmsetup suspend fault-hang
	dmsetup info fault-hang | grep -q SUSPENDED || not_ok "hang: fault-hang not suspended"
	monitor_start
	coldplug
	# the others must come up while it still hangs
	wait_up "$t0" || true
	leader_idle || true
	row_note="suspended $hdev: named in the log: $(logs | grep -c "$hdev\|fault-hang" || true) lines"
	if logs | grep -E "$hdev|fault-hang" | grep -qiE 'time|answer'; then
		ok "hang: the hung device ($hdev) is named with its timeout"
	else
		not_ok "hang: no timeout message naming $hdev"
		logs | grep -iE 'pvscan|warn|error|time' | head -5 | sed 's/^/#   /'
	fi
	said "$hdev|fault-hang"
	verify hang
	dmsetup resume fault-hang
	udevadm settle --timeout=60 || true
	monitor_stop
}

# --- capped: hostile PVs at the per-PV caps ----------------------------------------------------
# capped_devs: the dm devices of tests/bench/capped-pvs.py's tables over loop devices of its
# three files (read-only); cdevs their kernel names, cloops the loop devices.
capped_loops() {
	for _f in heads bulk tails; do
		_l=$(losetup -f --show -r "$work/img/capped/$_f.img")
		cloops="$cloops $_l"
		eval "_l_$_f=$_l"
	done
}
capped_devs() {
	cloops=""
	# unseen: the heads file starts with PV labels, and its loop device's events would start a
	# first leader since the reset, whose full scan brings every VG up before the coldplug
	unseen capped_loops
	# shellcheck disable=SC2154 # _l_* set by the eval above
	sed -e "s|@HEADS@|$_l_heads|g" -e "s|@BULK@|$_l_bulk|g" -e "s|@TAILS@|$_l_tails|g" \
		"$work/img/capped/tables" >"$work/capped.tables"
	# shellcheck disable=SC2016
	unseen sh -c 'while IFS="|" read -r n t; do
		printf "%s\n" "$t" | tr "|" "\n" | dmsetup create "$n" || exit 1
	done <"$1"' sh "$work/capped.tables"
	cdevs=""
	while IFS='|' read -r _n _t; do
		cdevs="$cdevs $(basename "$(readlink -f "/dev/mapper/$_n")")"
	done <"$work/capped.tables"
}

case_capped() {
	reset
	capped_devs
	_nc=$(echo $cdevs | wc -w)
	monitor_start
	# shellcheck disable=SC2086 # kernel names have no blanks
	coldplug $(printf '/dev/%s ' $cdevs)
	wait_up "$t0" || true
	leader_idle || true
	_named=$(logs | grep -E "metadata memory budget of [0-9]+ MiB for this scan is used up" |
		grep -cE "ev[0-9]{5}|dm-[0-9]+" || true)
	row_note="$_nc PVs with 64 MiB of metadata each: $_named named over the budget"
	check capped budget "$([ "$_named" -gt 0 ]; echo $?)" \
		"the devices past the scan's memory budget are named ($_named lines)"
	said "memory budget"
	_oom=$(logs | grep -iE 'out of memory|killed process|oom-kill' | head -3)
	check capped oom "$([ -z "$_oom" ]; echo $?)" "no OOM kill${_oom:+: $_oom}"
	verify capped
	# An admin's full scan of the same devices: the same budget, the same VGs up, said once.
	"$PF" --cache -aay >"$work/capped.out" 2>"$work/capped.err" && _rc=0 || _rc=$?
	_said=$(grep -cE "ev[0-9]{5}|dm-[0-9]+" "$work/capped.err" || true)
	echo "# capped: an admin's pvscan-fast --cache -aay: exit status $_rc, $_said lines naming" \
		"the capped devices"
	grep -m 3 "budget" "$work/capped.err" | sed 's/^/#   /'
	check capped admin "$(grep -q "metadata memory budget" "$work/capped.err"; echo $?)" \
		"an admin's full scan names the devices past the budget"
	_up=$(links_up)
	check capped admin-up "$([ "$_up" -eq "$N" ]; echo $?)" \
		"every unaffected VG still up after it ($_up of $N)"
	_oom=$(logs | grep -iE 'out of memory|killed process|oom-kill' | head -3)
	check capped oom2 "$([ -z "$_oom" ]; echo $?)" "no OOM kill in the full scan${_oom:+: $_oom}"
	monitor_stop
	reset
	for _l in $cloops; do
		losetup -d "$_l" || true
	done
	cloops=""
}

# --- eio: a PV whose metadata area returns EIO ------------------------------------------------
case_eio() {
	reset
	# the label (first 4 KiB) reads; the metadata area up to pe_start is an error target
	fault_dev fault-eio "$(printf '0 8 linear /dev/nullb%s 0\n8 %s error\n%s %s linear /dev/nullb%s %s' \
		"$NE" $((PE_START - 8)) "$PE_START" $((NB_SECTORS - PE_START)) "$NE" "$PE_START")"
	edev=$fdev
	monitor_start
	coldplug
	wait_up "$t0" || true
	leader_idle || true
	if logs | grep -E "$edev|fault-eio" | grep -qiE 'error|EIO|read'; then
		ok "eio: the failing device ($edev) is named"
	else
		not_ok "eio: no message naming $edev"
		logs | grep -iE 'pvscan|warn|error' | head -5 | sed 's/^/#   /'
	fi
	said "$edev|fault-eio"
	if [ -e /dev/fe00000 ] || [ -e /run/lvm/vgs_online/fe00000 ]; then
		not_ok "eio: fe00000 came up from a PV whose metadata cannot be read"
	else
		ok "eio: fe00000 stays down"
	fi
	row_note="metadata area EIO on $edev"
	verify eio
	monitor_stop
}

# --- gone: a SCSI disk deleted while the reader reads it --------------------------------------
# in_flight DEV: a read of DEV is in flight. Only the scan reads it after the coldplug (udev saw
# it before), and this costs no process: polling /proc for open descriptors ten times a second
# starved the guest's CPU under TCG and slowed the case it measured.
in_flight() {
	read -r _r _w <"/sys/block/$1/inflight" 2>/dev/null && [ "${_r:-0}" -gt 0 ]
}

case_gone() {
	reset
	if ! modprobe scsi_debug dev_size_mb=64 num_tgts=1 max_luns=1 delay=0 2>/dev/null; then
		echo "# gone: no scsi_debug module: skipped"
		return 0
	fi
	udevadm settle
	sdev=""
	for b in /sys/bus/pseudo/drivers/scsi_debug/adapter*/host*/target*/*/block/*; do
		[ -e "$b" ] && sdev=${b##*/}
	done
	[ -n "$sdev" ] || { not_ok "gone: scsi_debug made no disk"; return 0; }
	write_images "/dev/$sdev" "$work/img/fg00000-d1.img" >/dev/null
	udevadm settle
	# every command now takes GONE_DELAY jiffies: the read is in flight when the disk goes
	write_conf "$TIMEOUT"
	echo "$GONE_DELAY" >/sys/bus/pseudo/drivers/scsi_debug/delay
	monitor_start
	coldplug
	# delete it while the scan's read is in flight; under load that can take minutes, and a
	# disk gone before anyone read it is a fault worth running all the same
	end=$(($(date +%s) + DEADLINE))
	opened=0
	until [ "$(date +%s)" -ge "$end" ]; do
		if in_flight "$sdev"; then
			opened=1
			break
		fi
		sleep 0.1
	done
	if [ $opened -eq 1 ]; then
		ok "gone: a read of $sdev in flight at $(since "$t0") s: deleted"
	else
		echo "# gone: no read of $sdev within $DEADLINE s; deleted anyway"
	fi
	echo 1 >"/sys/block/$sdev/device/delete" &
	del_pid=$!
	wait_up "$t0" || true
	wait "$del_pid" || true
	leader_idle || true
	if [ ! -e "/sys/block/$sdev" ]; then
		ok "gone: $sdev deleted"
	else
		not_ok "gone: $sdev still there"
	fi
	said "pvscan-fast.*$sdev"
	row_note="$sdev deleted while read; fg00000 $([ -L /dev/fg00000/lv0 ] && echo up || echo down)"
	verify gone
	dmsetup remove fg00000-lv0 >/dev/null 2>&1 || true
	rmmod scsi_debug 2>/dev/null || true
	monitor_stop
}

# --- kill: a leader killed (SIGKILL) or stopped (SIGTERM) at a step, then --recover ------------
case_kill() { # STEP ACTION
	reset
	echo "$1:$2" >"$work/inject"
	[ "$SYSTEMD" = 0 ] || systemctl set-environment "PVSCAN_FAST_INJECT=$1:$2"
	monitor_start
	coldplug
	leader_idle || true
	t_idle=$(since "$t0")
	: >"$work/inject"
	[ "$SYSTEMD" = 0 ] || systemctl unset-environment PVSCAN_FAST_INJECT
	before=$(links_up)
	left=$(t_queue_left /run/lvm | sed 's|/.*||' | sort | uniq -c | awk '{ printf "%s=%s ", $2, $1 }')
	sems=$(ipcs -s | awk '$1 ~ /^0x/' | wc -l)
	echo "# kill/$1:$2: after the coldplug ($t_idle s): $before of $N up; left: ${left:-nothing};" \
		"$sems semaphore(s); log: $(logs | grep -ciE 'pvscan.*(stop|signal)' || true)" \
		"stop lines"
	tr=$(up)
	rc=0
	if [ "$SYSTEMD" = 1 ]; then
		systemctl start pvscan-fast-recover.service >"$work/rec.out" 2>&1 || rc=$?
		journalctl -u pvscan-fast-recover.service --since "@$jmark" -o cat --no-pager \
			>"$work/rec.err" 2>&1 || true
		how="systemctl start pvscan-fast-recover.service"
	else
		"$PF" --cache --activate ay --autoactivation event --recover >"$work/rec.out" \
			2>"$work/rec.err" || rc=$?
		how="--recover"
	fi
	check "kill/$1:$2" recover "$rc" "$how: exit status $rc ($(since "$tr") s)"
	[ "$rc" = 0 ] || sed 's/^/#   err: /' "$work/rec.err" | head -5
	udevadm settle --timeout=120 || true
	wait_up "$t0" || true
	row_note="before recovery: $before/$N up, left ${left:-nothing}, $sems sem(s); $how rc $rc"
	verify "kill/$1:$2$([ "$SYSTEMD" = 0 ] || echo " (systemd)")"
	monitor_stop
}

# --- garbage: files that are no queue entries ---------------------------------------------
case_garbage() {
	reset
	q=/run/lvm/pvscan-fast
	mkdir -p "$q/pending" "$q/inflight" "$q/activate"
	echo junk >"$q/pending/garbage"
	: >"$q/pending/1:2:3,x,y"
	mkdir "$q/pending/a-directory"
	mkfifo "$q/inflight/a-fifo"
	ln -s /dev/zero "$q/inflight/9999:9999,a,0"
	: >"$q/activate/nosuchvg"
	: >"$q/activate/bad name with blanks"
	monitor_start
	coldplug
	wait_up "$t0" || true
	leader_idle || true
	said "garbage|1:2:3|a-directory|a-fifo|9999|nosuchvg|bad name"
	# not a VG name: --recover does not count it as work left (pf_coalesce_leftovers)
	queue_ignore="activate/bad name with blanks"
	row_note="garbage left: $(t_queue_left /run/lvm | tr '\n' ' ')"
	verify garbage
	queue_ignore=""
	monitor_stop
}

# --- runfull: /run/lvm a full tmpfs ---------------------------------------------------------
case_runfull() {
	reset
	mkdir -p /run/lvm
	mount -t tmpfs -o size=64k,mode=0700 tmpfs /run/lvm
	dd if=/dev/zero of=/run/lvm/fill bs=4k 2>/dev/null || true
	monitor_start
	coldplug
	wait_up "$t0" || true
	leader_idle || true
	logs | grep pvscan-fast | sort -k3 | uniq -c -f2 | sort -rn | head -8 | sed 's/^/#   /'
	t_queue_left /run/lvm >/dev/null
	row_note="/run/lvm a full 64 KiB tmpfs"
	verify runfull
	umount -l /run/lvm
	monitor_stop
}

# --- sigchld: the recovery run by a caller that ignores SIGCHLD ------------------------------
case_sigchld() {
	reset
	echo "activation-begun:crash" >"$work/inject"
	monitor_start
	coldplug
	leader_idle || true
	: >"$work/inject"
	left=$(t_queue_left /run/lvm | wc -l)
	rc=0
	python3 -c 'import os, signal, sys
signal.signal(signal.SIGCHLD, signal.SIG_IGN)
os.execv(sys.argv[1], sys.argv[1:])' "$PF" --cache --activate ay --autoactivation event \
		--recover >"$work/rec.out" 2>"$work/rec.err" || rc=$?
	check sigchld recover "$rc" "--recover with SIGCHLD ignored: exit status $rc"
	[ "$rc" = 0 ] || sed 's/^/#   err: /' "$work/rec.err" | head -5
	wait_up "$t0" || true
	row_note="crash at activation-begun left $left entries; --recover with SIGCHLD ignored: rc $rc"
	verify sigchld
	monitor_stop
}

# --- dupname: a second VG named mv00000 on a late disk ---------------------------------------
case_dupname() {
	reset
	monitor_start
	coldplug
	wait_up "$t0" || true
	leader_idle || true
	dmsetup table mv00000-lv0 >"$work/dup.before" 2>&1 || true
	dmesg -C
	dline=$(write_images "/dev/nullb$ND" "$work/img/dup-d1.img")
	ddev=${dline%% *}
	udevadm settle
	udevadm trigger --action=add "/dev/$ddev"
	leader_idle || true
	dmsetup table mv00000-lv0 >"$work/dup.after" 2>&1 || true
	if cmp -s "$work/dup.before" "$work/dup.after"; then
		ok "dupname: the late disk's mv00000 leaves the first mv00000's table as it was"
	else
		not_ok "dupname: mv00000-lv0 changed: $(cat "$work/dup.after")"
	fi
	said "mv00000"
	rc=0
	"$PF" --cache --activate ay >"$work/adm.out" 2>"$work/adm.err" || rc=$?
	if [ "$rc" = 5 ] &&
		grep -q "Multiple VGs found with the same name: skipping mv00000" "$work/adm.err"; then
		ok "dupname: a full --cache -aay refuses mv00000 as lvm2 does, exit status 5"
	else
		not_ok "dupname: a full --cache -aay: exit status $rc"
		sed 's/^/#   err: /' "$work/adm.err" | head -5
	fi
	dmsetup table mv00000-lv0 >"$work/dup.after" 2>&1 || true
	if cmp -s "$work/dup.before" "$work/dup.after" &&
		[ "$(dmsetup ls | grep -c '^mv00000')" -eq 1 ]; then
		ok "dupname: neither mv00000 activated by the full scan (one LV, table unchanged)"
	else
		not_ok "dupname: after the full scan: $(dmsetup ls | grep '^mv00000' | tr '\n' ' ')"
	fi
	row_note="late duplicate of mv00000 on $ddev; admin --cache -aay rc $rc"
	udevadm settle --timeout=60 || true
	verify dupname
	monitor_stop
	# the late disk blank again for the next case
	dd if=/dev/zero of="/dev/$ddev" bs=1M count=2 conv=fsync status=none
	udevadm settle --timeout=60 || true
}

for c in $CASES; do
	case $c in
	none | hang | eio | gone | garbage | runfull | sigchld | dupname | capped) "case_$c" ;;
	kill)
		for k in $KILLS; do
			case_kill "${k%:*}" "${k#*:}"
		done
		;;
	*) echo "faults: unknown case $c" >&2 ;;
	esac
done
reset

echo "$passes passed, $fails failed, $xfails known defects"
[ "$fails" -eq 0 ]
