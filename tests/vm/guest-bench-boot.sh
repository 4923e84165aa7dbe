#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest script of `make bench-boot`: coldplug N PVs on null_blk and time each way of activating.
#
#   tests/vm/vm-run.sh [--systemd] --rw OUT tests/vm/guest-bench-boot.sh DATA OUT
#
# DATA (made by tests/bench/run-bench-boot.sh) holds, per set of PVs: SET.pack (the non-zero
# blocks of every image, image k going to /dev/nullbk) and SET.lvs (VG/LV per line). For each
# set and N, null_blk is loaded with N devices, the images are written, and then for each run
# and approach: the rule set is switched, `udevadm trigger --action=add` on the nullb devices,
# and the time is taken until every LV is active (its /dev/VG/LV link, which udev makes only
# after the resume, then checked live with dmsetup) and until `udevadm settle` returns; CPU
# time and processes started come from /proc/stat, worker timeouts and kills from udevd's log.
# One line per run is appended to OUT/results.tsv.
#
# Approaches (BENCH_BOOT_APPROACHES; those that need systemd, or its absence, are skipped in
# the other kind of boot):
#   a  lvm2 2.03.16's stock 69-lvm.rules without systemd (vgchange inside udev's worker)
#   b  the same rule under systemd (systemd-run vgchange)
#   c  pre-2.03.14 style: `lvm pvscan --cache -aay --major M --minor m` per device, as a
#      transient service (systemd only)
#   d  activation rules masked; `lvm vgchange -aay` once udev has settled
#   e  the floor: rules masked; the same dm tables created in one dmsetup call under one udev
#      cookie right after the trigger (udev alone processing N new LVs)
#   f  pvscan-fast's rule (udev/69-pvscan-fast.rules.in) without systemd
#   g  the same under systemd
# Bash, not sh: its `read -t` on a FIFO sleeps without starting a process, which would count.
set -u

# shellcheck source=tests/vm/guest-lib.sh
. "${top_srcdir:?}/tests/vm/guest-lib.sh"
guest_init guest-bench-boot.sh /tmp/bench-boot
work=${work:?set by guest_init}
data=${1:?DATA directory}
out=${2:?OUT directory}
SETS=${BENCH_BOOT_SETS:-"single:100 single:300 single:1000:1"}
RUNS=${BENCH_BOOT_RUNS:-3}
APPROACHES=${BENCH_BOOT_APPROACHES:-"a b c d e f g"}
DEADLINE=${BENCH_BOOT_DEADLINE:-300}
# 100 us per I/O: a SATA/SAS SSD's 4 KiB random read, or a fast SAN LUN; lvm2 and pvscan-fast
# read a few KiB per PV, so this is what a scan costs per device beyond the CPU.
NSEC=${BENCH_BOOT_NULLB_NSEC:-100000}
export LVM_SUPPRESS_FD_WARNINGS=1
rules=/etc/udev/rules.d
udevd_pid=""
if [ -d /run/systemd/system ]; then
	boot=systemd
else
	boot=plain
fi

say() {
	echo "# $*"
}

# Centiseconds since boot, no process.
ucs() {
	local u
	read -r u _ </proc/uptime
	u=${u/./}
	echo $((10#$u))
}
# busy jiffies (everything but idle and iowait) and processes started, from /proc/stat
stat_now() {
	local k u n s i w q sq st rest
	# shellcheck disable=SC2034 # i(dle) and w(ait) are not busy time
	while read -r k u n s i w q sq st rest; do
		case $k in
		cpu) busy=$((u + n + s + q + sq + st)) ;;
		processes) procs=$u ;;
		esac
	done </proc/stat
}
mkdir -p "$work"
mkfifo "$work/nap" || exit 1
exec 9<>"$work/nap"
nap() {
	read -r -t "$1" -u 9 _ || true
}
secs() {
	printf '%d.%02d' $(($1 / 100)) $(($1 % 100))
}

# shellcheck disable=SC2317 # called from the trap
cleanup() {
	set +e
	dmsetup udevcomplete_all -y >/dev/null 2>&1
	[ -z "$udevd_pid" ] || kill "$udevd_pid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT

# lvm2 accepts only the device types it knows (lib/device/device-types.h), and null_blk is not
# one: declare it as an admin would (pvscan-fast reads the same setting).
sed -i 's/^devices {$/devices {\n\ttypes = [ "nullb", 16 ]/' /etc/lvm/lvm.conf
grep -q '"nullb"' /etc/lvm/lvm.conf || {
	echo "bench-boot: cannot add nullb to lvm.conf" >&2
	exit 1
}

# systemd 252's 60-persistent-storage.rules runs blkid only for the disk kinds it lists, and
# nullb is not one: without ID_FS_TYPE=LVM2_member no activation rule looks at the device. Do
# for nullb what that file does for sd*, as the same rule for every approach.
cat >/etc/udev/rules.d/61-bench-nullb.rules <<'EOF'
# bench-boot: blkid for null_blk devices, as 60-persistent-storage.rules does for real disks
SUBSYSTEM=="block", KERNEL=="nullb[0-9]*", ACTION=="add|change", IMPORT{builtin}="blkid"
EOF
udevadm control --reload

# --- udevd's log ---------------------------------------------------------------------------
# Plain boot: the harness's udevd logs nowhere readable; ours logs to a file (info level, as a
# distribution runs it). systemd: the journal.
if [ "$boot" = plain ]; then
	stop_udevd
	SYSTEMD_LOG_TARGET=console SYSTEMD_LOG_COLOR=0 \
		/lib/systemd/systemd-udevd >"$work/udevd.log" 2>&1 &
	udevd_pid=$!
	until udevadm control --ping --timeout=1 >/dev/null 2>&1; do nap 0.1; done
fi
udev_log() {
	if [ "$boot" = plain ]; then
		cat "$work/udevd.log"
	else
		journalctl -q -o short-monotonic -u systemd-udevd.service 2>/dev/null
	fi
}

# --- rule sets -----------------------------------------------------------------------------
PFBIN=$work/bin
mkdir -p "$PFBIN"
have_pf=0
if [ -f "$top_srcdir/udev/69-pvscan-fast.rules.in" ] && [ -x "$PF-engine" ]; then
	# Copies: a rebuild on the host during the run must not change the binaries under udev.
	cp "$PF" "$PF-engine" "$PFBIN/"
	sed "s|@sbindir@|$PFBIN|g" "$top_srcdir/udev/69-pvscan-fast.rules.in" >"$work/pf.rules"
	have_pf=1
fi
cat >"$work/old.rules" <<'EOF'
# bench-boot (c): the pre-2.03.14 form, one pvscan -aay per device in its own service
SUBSYSTEM!="block", GOTO="bench_old_end"
ENV{DM_UDEV_DISABLE_OTHER_RULES_FLAG}=="1", GOTO="bench_old_end"
ENV{ID_FS_TYPE}!="LVM2_member", GOTO="bench_old_end"
ACTION!="add", GOTO="bench_old_end"
RUN+="/usr/bin/systemd-run --no-block --property DefaultDependencies=no \
	--unit lvm2-pvscan-$major-$minor \
	/sbin/lvm pvscan --cache --activate ay --major $major --minor $minor"
LABEL="bench_old_end"
EOF

# rules_for APPROACH: only that approach's activation rule active
rules_for() {
	rm -f "$rules/69-lvm.rules" "$rules/69-pvscan-fast.rules" "$rules/69-bench-old.rules"
	case $1 in
	a | b) ;;
	c) ln -s /dev/null "$rules/69-lvm.rules"; cp "$work/old.rules" "$rules/69-bench-old.rules" ;;
	f | g) ln -s /dev/null "$rules/69-lvm.rules"; cp "$work/pf.rules" "$rules/69-pvscan-fast.rules" ;;
	*) ln -s /dev/null "$rules/69-lvm.rules" ;;
	esac
	udevadm control --reload
}

# usable APPROACH: 0 when it runs in this boot
usable() {
	case $1 in
	a | f) [ "$boot" = plain ] ;;
	b | c | g) [ "$boot" = systemd ] ;;
	d | e) true ;;
	*) false ;;
	esac || return 1
	case $1 in
	f | g) [ "$have_pf" = 1 ] ;;
	e) [ -s "$work/concise" ] ;;
	esac
}

# --- devices -------------------------------------------------------------------------------
# load_set SET N: null_blk with N devices carrying the first N images of SET
load_set() {
	local t
	t=$(ucs)
	rules_for none
	dmsetup remove_all >/dev/null 2>&1
	udevadm settle --timeout=300
	rmmod null_blk 2>/dev/null
	modprobe null_blk nr_devices="$2" memory_backed=1 gb=1 irqmode=2 \
		completion_nsec="$NSEC" || return 1
	udevadm settle --timeout=600
	# Only the non-zero blocks: memory_backed allocates what is written. One process for all.
	python3 - "$data/$1.pack" "$2" <<'EOF' || return 1
import os, struct, sys
pack, n = sys.argv[1], int(sys.argv[2])
with open(pack, "rb") as f:
    while True:
        hdr = f.read(8)
        if len(hdr) < 8:
            break
        k, nblocks = struct.unpack("<II", hdr)
        fd = os.open("/dev/nullb%d" % k, os.O_WRONLY | os.O_CLOEXEC) if k < n else -1
        for _ in range(nblocks):
            off, ln = struct.unpack("<QI", f.read(12))
            buf = f.read(ln)
            if fd >= 0:
                os.pwrite(fd, buf, off)
        if fd >= 0:
            os.fsync(fd)
            os.close(fd)
EOF
	udevadm settle --timeout=600
	# SET.lvs: "K VG/LV", K the VG's last image: the VGs whose every PV is among the first N
	LVS=()
	local k vl
	while read -r k vl; do
		[ "$k" -ge "$2" ] || LVS+=("$vl")
	done <"$data/$1.lvs"
	nlvs=${#LVS[@]}
	rm -f "$work/concise"
	say "$1: $2 PVs on null_blk (completion_nsec=$NSEC), $nlvs LVs," \
		"set up in $(secs $(($(ucs) - t))) s"
}

# up_count: UPN = LVs whose /dev/VG/LV exists; the missing ones stay in PENDING
up_count() {
	local p rest=()
	for p in "${PENDING[@]}"; do
		[ -L "/dev/$p" ] || rest+=("$p")
	done
	PENDING=("${rest[@]}")
	UPN=$((nlvs - ${#PENDING[@]}))
}

# quiesce: nothing of the last run left running; every dm device gone; fresh state
quiesce() {
	local i=0
	rules_for none
	while [ $i -lt 600 ]; do
		if [ "$boot" = systemd ] && systemctl list-jobs --no-legend 2>/dev/null | grep -qv vm-run; then
			:
		elif pidof lvm pvscan-fast pvscan-fast-engine systemd-run >/dev/null 2>&1; then
			:
		else
			break
		fi
		nap 0.5
		i=$((i + 1))
	done
	dmsetup udevcomplete_all -y >/dev/null 2>&1
	udevadm settle --timeout=300 >/dev/null 2>&1
	dmsetup remove_all >/dev/null 2>&1
	udevadm settle --timeout=300 >/dev/null 2>&1
	dmsetup udevcomplete_all -y >/dev/null 2>&1
	[ "$boot" = plain ] || systemctl reset-failed >/dev/null 2>&1
	rm -rf /run/lvm/* /run/lock/lvm/*
	udevadm settle --timeout=300 >/dev/null 2>&1
}

# run_one SET N APPROACH RUN: one coldplug, one line in results.tsv
run_one() {
	local set=$1 n=$2 ap=$3 r=$4 t0 now t_up="" t_settle="" b0 p0 st="ok" live lines slow
	local kills failed=0 pid=""
	quiesce
	rules_for "$ap"
	udevadm settle --timeout=60 >/dev/null 2>&1
	lines=$(udev_log | wc -l)
	PENDING=("${LVS[@]}")
	stat_now
	b0=$busy
	p0=$procs
	t0=$(ucs)
	udevadm trigger --action=add --subsystem-match=block --sysname-match='nullb*'
	case $ap in
	d)
		# In the background: the deadline holds for it too.
		(
			udevadm settle --timeout="$DEADLINE" >/dev/null 2>&1
			lvm vgchange -aay || echo "bench-boot: vgchange -aay failed: $?"
		) >"$work/vgchange.log" 2>&1 &
		pid=$!
		;;
	e)
		(
			c=$(dmsetup udevcreatecookie) || exit 1
			DM_UDEV_COOKIE=$c dmsetup create --concise "$(cat "$work/concise")" &&
				dmsetup udevreleasecookie "$c"
		) >"$work/floor.log" 2>&1 &
		pid=$!
		;;
	esac
	while :; do
		now=$(ucs)
		up_count
		if [ "$UPN" -ge "$nlvs" ]; then
			t_up=$((now - t0))
			break
		fi
		[ $((now - t0)) -lt $((DEADLINE * 100)) ] || { st="deadline@${DEADLINE}s:$UPN/$nlvs"; break; }
		nap 0.2
	done
	# Past the deadline it is left running: quiesce waits for it.
	if [ -n "$pid" ] && [ -n "$t_up" ]; then
		wait "$pid"
	fi
	! grep -q 'vgchange -aay failed' "$work/vgchange.log" 2>/dev/null || st="$st,vgchange-failed"
	rm -f "$work/vgchange.log"
	left=$((DEADLINE * 100 - ($(ucs) - t0)))
	[ "$left" -gt 500 ] || left=500
	if udevadm settle --timeout=$((left / 100)) >/dev/null 2>&1; then
		t_settle=$(($(ucs) - t0))
	else
		st="$st,no-settle"
	fi
	stat_now
	live=$(dmsetup info -c --noheadings -o attr 2>/dev/null | grep -c '^L--w')
	[ "$live" -ge "$nlvs" ] || st="$st,live=$live"
	udev_log | tail -n +$((lines + 1)) >"$work/run.log"
	kills=$(grep -cE 'timed out|[Kk]illed|terminated by signal' "$work/run.log")
	slow=$(grep -cE 'taking a long time' "$work/run.log")
	if [ "$boot" = systemd ]; then
		failed=$(systemctl list-units --failed --no-legend --plain 2>/dev/null | wc -l)
	fi
	grep -E 'timed out|[Kk]illed|terminated by signal|taking a long' "$work/run.log" |
		head -3 | sed "s/^/# $ap udevd: /"
	[ "$ap" != e ] || { [ ! -s "$work/floor.log" ] || sed 's/^/# floor: /' "$work/floor.log"; }
	if [ "$st" = ok ] && [ "$ap" != e ] && [ ! -s "$work/concise" ]; then
		# The floor replays these tables, minus the minor numbers.
		dmsetup table --concise 2>/dev/null | tr ';' '\n' |
			awk -F, -v OFS=, '{ $3 = ""; print }' | paste -sd';' >"$work/concise"
	fi
	printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$boot" "$set" "$n" "$ap" "$r" \
		"$([ -n "$t_up" ] && secs "$t_up" || echo -)" \
		"$([ -n "$t_settle" ] && secs "$t_settle" || echo -)" \
		"$(secs $((busy - b0)))" $((procs - p0)) "$kills" "$slow" "$failed" "$st" |
		tee -a "$out/results.tsv"
}

say "boot $boot, $(nproc) CPUs, $(awk '/MemTotal/ { print int($2 / 1024) }' /proc/meminfo) MB;" \
	"approaches: $APPROACHES; runs: $RUNS; deadline $DEADLINE s"
[ "$have_pf" = 1 ] || say "no udev/69-pvscan-fast.rules.in or engine: f and g skipped"
for sn in $SETS; do
	# SET:N[:RUNS]
	set_name=${sn%%:*}
	n=${sn#*:}
	runs=$RUNS
	case $n in *:*) runs=${n#*:}; n=${n%%:*} ;; esac
	load_set "$set_name" "$n" || { say "cannot set up $sn"; continue; }
	for r in $(seq 1 "$runs"); do
		# e replays the tables of an activation: until one has succeeded, it waits.
		wait_e=0
		for ap in $APPROACHES; do
			if [ "$ap" = e ] && [ ! -s "$work/concise" ]; then
				wait_e=1
				continue
			fi
			usable "$ap" || continue
			run_one "$set_name" "$n" "$ap" "$r"
			if [ "$wait_e" = 1 ] && [ -s "$work/concise" ]; then
				wait_e=0
				run_one "$set_name" "$n" e "$r"
			fi
		done
	done
done
quiesce
echo "bench-boot: done"
