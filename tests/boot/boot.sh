#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# One boot of a real machine under QEMU (TCG): the distribution's kernel, an initramfs, and
# raw disk images as SCSI disks (virtio-scsi, scsi-hd LUNs spread over targets), the first
# carrying the root LV. The console (ttyS0) goes to RUNDIR/console.log; the real root's check
# (boot-check.sh) writes its report to ttyS1, RUNDIR/report.log.
#
# usage: boot.sh --initrd FILE --disks LIST --out RUNDIR [--append WORDS] [--deadline SEC]
#                [--mem MB] [--kernel VERSION] [--persist]
# LIST holds the image files, one a line, the root disk first. The images are attached with
# snapshot=on: nothing the guest writes reaches them. With --persist they are written (a cycle
# of boots on the same disks), and once the report is complete the guest's own power-off is
# waited for (up to 60 s) so that what it wrote last is in the images. A line "FILE mpath WWN"
# is one LUN seen through two paths: a copy of FILE in RUNDIR as one block node, attached as
# two scsi-hd devices with the same serial and WWN (share-rw=on), as a SAN's dual-pathed LUN
# arrives. A line "FILE late SECONDS" is a disk hot-added (device_add through QEMU's monitor)
# SECONDS after the one before it, the first once the real root's check unit says it runs
# (@@PF-BOOT-HOTPLUG@@ on the report), as a disk plugged in or a SAN's LUN appearing later.
#
# It returns once the report is complete (QEMU is stopped then): 0 when every check passed.
# A boot that fails (an initramfs shell or ALERT!, emergency mode, a kernel panic, QEMU gone
# without a report) or that passes the deadline (default 900 s: a hang, never a slow machine)
# is stopped at once and fails with the end of the console. Exit 77 without QEMU or a kernel.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/vm-host.sh"
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"

initrd="" list="" out="" append="" deadline=900 mem=1024 kv="" snapshot=on
while [ $# -gt 0 ]; do
	case $1 in
	--initrd) initrd=$2; shift 2 ;;
	--disks) list=$2; shift 2 ;;
	--out) out=$2; shift 2 ;;
	--append) append=$2; shift 2 ;;
	--deadline) deadline=$2; shift 2 ;;
	--mem) mem=$2; shift 2 ;;
	--kernel) kv=$2; shift 2 ;;
	--persist) snapshot=off; shift ;;
	*) echo "boot.sh: unknown option $1" >&2; exit 2 ;;
	esac
done
[ -n "$initrd" ] && [ -n "$list" ] && [ -n "$out" ] || { echo "boot.sh: usage" >&2; exit 2; }
command -v qemu-system-x86_64 >/dev/null 2>&1 || { echo "SKIP: no qemu-system-x86_64"; exit 77; }
vm_kernel "$kv" || { echo "SKIP: $vm_why"; exit 77; }
mkdir -p "$top_builddir/tests/vm/cache" "$out"
vm_boot_image "$top_builddir/tests/vm/cache"

# Disks: LUNs 0-7 on consecutive targets of one controller, as a SAN's LUNs arrive.
cfg=$out/qemu.cfg
rm -f "$out/late" "$out/mon.in" "$out/mon.out"
set --
{
	printf '[device "scsi0"]\n  driver = "virtio-scsi-pci"\n  num_queues = "2"\n'
	i=0
	while read -r img kind wwn; do
		[ -n "$img" ] || continue
		if [ "${kind:-}" = late ]; then
			echo "$img $wwn $i" >>"$out/late"
			i=$((i + 1))
			continue
		fi
		if [ "${kind:-}" = mpath ]; then
			# -drive's block backend takes one device; -blockdev's node takes several.
			cp --sparse=always "$img" "$out/mpath$i.img"
			n=$i
			set -- "$@" -blockdev "driver=raw,node-name=mp$n,cache.no-flush=on,file.driver=file,file.filename=$out/mpath$n.img,file.aio=threads"
			for p in 0 1; do
				set -- "$@" -device "scsi-hd,bus=scsi0.0,scsi-id=$((i / 8)),lun=$((i % 8)),drive=mp$n,share-rw=on,serial=pfmp$n,wwn=$wwn"
				i=$((i + 1))
			done
			continue
		fi
		printf '[drive "d%d"]\n  file = "%s"\n  format = "raw"\n  if = "none"\n' "$i" "$img"
		printf '  snapshot = "%s"\n  cache = "unsafe"\n  aio = "threads"\n' "$snapshot"
		printf '[device "s%d"]\n  driver = "scsi-hd"\n  bus = "scsi0.0"\n' "$i"
		printf '  scsi-id = "%d"\n  lun = "%d"\n  drive = "d%d"\n' $((i / 8)) $((i % 8)) "$i"
		printf '  serial = "pf%04d"\n' "$i"
		i=$((i + 1))
	done <"$list"
} >"$cfg"

: >"$out/console.log"
: >"$out/report.log"
# Late disks: hot-added through the monitor (a pair of FIFOs) once the real root says it runs.
if [ -f "$out/late" ]; then
	mkfifo "$out/mon.in" "$out/mon.out"
	set -- "$@" -chardev "pipe,id=mon0,path=$out/mon" -mon chardev=mon0,mode=readline
fi
qpid="" hpid=""
cleanup() {
	[ -z "$hpid" ] || kill "$hpid" 2>/dev/null || true
	[ -z "$qpid" ] || vm_stop "$qpid"
	qpid="" hpid=""
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

start=$(date +%s)
timeout -k 10 "$deadline" qemu-system-x86_64 -accel tcg -nodefaults -no-user-config \
	-display none -no-reboot -monitor none -nic none -m "$mem" -smp 2 \
	-kernel "$boot_image" -initrd "$initrd" \
	-append "console=ttyS0 $append" \
	-serial "file:$out/console.log" -serial "file:$out/report.log" \
	-readconfig "$cfg" "$@" </dev/null >"$out/qemu.log" 2>&1 &
qpid=$!
# the monitor echoes every key: only what went wrong is kept
[ ! -f "$out/late" ] || { grep -aiE 'error|fail|invalid' "$out/mon.out" >"$out/monitor.log" & }

# hotplug: each late disk, its delay after the one before, as a SAN's LUN appears.
hotplug() {
	while read -r _img _delay _n; do
		sleep "$_delay"
		echo "HOTPLUG $(date +%s) $_img" >>"$out/hotplug.log"
		printf 'drive_add 0 if=none,id=late%d,file=%s,format=raw,snapshot=%s,cache=unsafe,aio=threads\n' \
			"$_n" "$_img" "$snapshot" >"$out/mon.in"
		printf 'device_add scsi-hd,bus=scsi0.0,scsi-id=%d,lun=%d,drive=late%d,serial=pf%04d\n' \
			$((_n / 8)) $((_n % 8)) "$_n" "$_n" >"$out/mon.in"
	done <"$out/late"
}

# What ends a boot that failed: the initramfs's shell and its alerts, dracut's, systemd's
# emergency mode (reported by the check too), a panic.
bad='ALERT!|Dropping to a shell|emergency mode|Emergency shell|Refusing to continue'
bad="$bad|Kernel panic|Gave up waiting|Could not boot|You are in rescue mode"
why=""
while :; do
	if grep -q '@@BOOT-CHECK-DONE' "$out/report.log"; then
		break
	fi
	if [ -f "$out/late" ] && [ -z "$hpid" ] && grep -q '@@PF-BOOT-HOTPLUG@@' "$out/report.log"; then
		hotplug &
		hpid=$!
	fi
	if ! kill -0 "$qpid" 2>/dev/null; then
		why="QEMU ended without a complete report"
		break
	fi
	if grep -Eq "$bad" "$out/console.log"; then
		# the check reports emergency mode itself: give it a moment
		sleep 5
		grep -q '@@BOOT-CHECK-DONE' "$out/report.log" && break
		why="the boot failed: $(grep -Eo "$bad" "$out/console.log" | head -1)"
		break
	fi
	if [ $(($(date +%s) - start)) -ge "$deadline" ]; then
		why="no report after the deadline of $deadline s"
		break
	fi
	sleep 1
done
end=$(date +%s)
if [ -z "$why" ] && [ "$snapshot" = off ]; then
	_i=0
	while kill -0 "$qpid" 2>/dev/null && [ "$_i" -lt 600 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
	kill -0 "$qpid" 2>/dev/null && why="the guest did not power off within 60 s of its report"
fi
cleanup
echo "WALL $((end - start))" >>"$out/report.log"

failed=$(sed -n 's/^@@BOOT-CHECK-DONE \([0-9]*\)@@.*/\1/p' "$out/report.log")
if [ -z "$why" ] && [ "${failed:-1}" -ne 0 ]; then
	why="$failed checks failed in the real root"
fi
if [ -n "$why" ]; then
	echo "boot.sh: FAIL: $why (wall $((end - start)) s)"
	grep -E '^(FAIL|LOG)' "$out/report.log" | head -n 120 || true
	echo "---- end of the console ($out/console.log) ----"
	sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' "$out/console.log" | tail -n 60
	echo "---- end of console ----"
	exit 1
fi
echo "boot.sh: booted, every check passed (wall $((end - start)) s)"
exit 0
