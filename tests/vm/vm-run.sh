#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Boot the distro kernel under QEMU (TCG) on the host's root filesystem and run one script there.
#
# The guest sees the host's / read-only over virtio-9p, so every host binary (lvm2, udevd,
# dmsetup, the build tree) is usable as is. It gets tmpfs on /run, /tmp and /var/tmp, a tmpfs
# overlay on /etc, its own devtmpfs, dm-mod and loop, and (unless --no-udev) systemd-udevd
# with the stock rules. A per-run directory in the build tree is shared read-write: it carries
# the command in and the script's output and exit status out. The host's /tmp, /run and
# /var/tmp are hidden in the guest, except what the run needs: the source and build trees and
# the script's directory are bind-mounted back at their own paths (read-only), and --rw
# directories are shared there, so a checkout in /tmp works. Other paths the script is given
# must be in one of those or outside /tmp, /run and /var/tmp.
#
# With --systemd the host's systemd is PID 1 of the guest instead of a shell: it starts
# journald, systemd-udevd (stock rules) and the coldplug, and a unit then runs the script and
# powers off, so rules that look for /run/systemd/system (systemd-run) take their systemd path.
#
# Exit status: the script's (77 = skip passes through); 77 when QEMU, a kernel image or a
# static busybox is missing; 1 when the guest times out or dies without reporting; 2 on
# usage errors.
set -eu

# Bump when the initramfs or the guest protocol changes: it keys the initramfs cache.
VM_HARNESS_VERSION=2
# Modules the guest needs before it can mount the host's root, plus those the issue asks
# for in every boot. Everything else is loaded later by the host's modprobe inside the guest.
VM_BASE_MODULES="virtio_pci 9pnet_virtio 9p overlay dm_mod loop"
VM_MSIZE=262144
share_opts=security_model=none,multidevs=remap

me=vm-run

usage() {
	cat <<EOF
usage: $0 [options] SCRIPT [ARGS...]
  --mem MB                 guest memory (default 1024)
  --cpus N                 virtual CPUs (default 2)
  --modules "m1 m2 ..."    load these modules (host modprobe, in the guest) before udev
  --no-udev                do not start systemd-udevd
  --systemd                boot systemd as PID 1; a unit runs SCRIPT (journald, udevd only)
  --udev-children-max N    systemd-udevd --children-max
  --udev-trigger-all       coldplug every device (default: block and misc only, ~6 s less)
  --timeout SEC            kill the VM after SEC seconds and fail (default: VM_TIMEOUT from
                           the environment, else 3600: only a hang, never a slow machine)
  --rw DIR                 share DIR read-write at the same path (repeatable)
  --env NAME=VALUE         set this in the script's environment (repeatable)
  --kernel VERSION         boot /boot/vmlinuz-VERSION (default: newest with modules)
  --verbose                print the guest console also on success
  --keep                   keep the run directory (console log, output) in the build tree
SCRIPT runs in the guest as root with top_srcdir, top_builddir and PF_VM=1 set.
EOF
}

say() {
	echo "$me: $*" >&2
}

die_usage() {
	say "$*"
	usage >&2
	exit 2
}

skip() {
	echo "SKIP: $me: $*"
	exit 77
}

# Single-quote a word for sh.
shquote() {
	printf "'%s'" "$(printf '%s' "$1" | sed "s/'/'\\\\''/g")"
}

is_uint() {
	case $1 in
	'' | *[!0-9]*) return 1 ;;
	esac
	return 0
}

# A path the guest must see at the same place. The guest has its own /proc, /sys and /dev;
# /tmp, /run and /var/tmp are its own tmpfs, where only what a run needs is shown again, never
# the whole directory. The run files cannot carry whitespace in paths.
check_path() {
	case $1 in
	/proc/* | /sys/* | /dev/*)
		die_usage "$1 is the guest's own (proc, sysfs, devtmpfs there); use another path"
		;;
	/ | /tmp | /run | /var/tmp)
		die_usage "$1 cannot be shared with the guest whole; use a directory below it"
		;;
	*[[:space:]]*)
		die_usage "paths with whitespace are not supported: '$1'"
		;;
	esac
}

# True when the guest's tmpfs covers PATH: the init must bind the host's copy back.
under_guest_tmpfs() {
	case $1 in
	/tmp/* | /run/* | /var/tmp/*) return 0 ;;
	esac
	return 1
}

mem=1024
cpus=2
modules=""
udev=1
systemd=0
children_max=""
trigger_all=0
# Under TCG on a loaded 2-core machine a VM test runs several times slower than alone
# (vm-activate.sh took over 1200 s at a load of 10): the limit only ends a hang.
timeout=${VM_TIMEOUT:-3600}
rw_dirs=""
envs=""
kver=""
verbose=0
keep=0

need_arg() {
	[ $# -ge 2 ] || die_usage "$1 needs an argument"
}

while [ $# -gt 0 ]; do
	case $1 in
	--mem) need_arg "$@"; mem=$2; shift 2 ;;
	--cpus) need_arg "$@"; cpus=$2; shift 2 ;;
	--modules) need_arg "$@"; modules="$modules $2"; shift 2 ;;
	--no-udev) udev=0; shift ;;
	--systemd) systemd=1; shift ;;
	--udev-children-max) need_arg "$@"; children_max=$2; shift 2 ;;
	--udev-trigger-all) trigger_all=1; shift ;;
	--timeout) need_arg "$@"; timeout=$2; shift 2 ;;
	--rw) need_arg "$@"; rw_dirs="$rw_dirs
$2"; shift 2 ;;
	--env) need_arg "$@"; envs="$envs
$2"; shift 2 ;;
	--kernel) need_arg "$@"; kver=$2; shift 2 ;;
	--verbose) verbose=1; shift ;;
	--keep) keep=1; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) die_usage "unknown option $1" ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || die_usage "no SCRIPT given"
if ! is_uint "$mem" || [ "$mem" -lt 128 ]; then
	die_usage "--mem: need a number of MB >= 128"
fi
if ! is_uint "$cpus" || [ "$cpus" -lt 1 ]; then
	die_usage "--cpus: need a positive number"
fi
if ! is_uint "$timeout" || [ "$timeout" -lt 1 ]; then
	die_usage "--timeout (or VM_TIMEOUT): need seconds"
fi
[ -z "$children_max" ] || is_uint "$children_max" ||
	die_usage "--udev-children-max: need a number"
for m in $modules; do
	case $m in
	*[!A-Za-z0-9_-]*) die_usage "bad module name '$m'" ;;
	esac
done

script=$(readlink -f "$1") || die_usage "cannot resolve $1"
shift
[ -f "$script" ] || die_usage "no such script: $script"
check_path "$script"

here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/vm-host.sh"
: "${top_srcdir:=$(cd "$here/../.." && pwd)}"
: "${top_builddir:=$top_srcdir}"
top_srcdir=$(readlink -f "$top_srcdir")
top_builddir=$(readlink -f "$top_builddir")
check_path "$top_srcdir"
check_path "$top_builddir"

# Prerequisites: a missing one is a skip, as the README's test command promises.
PATH=$PATH:/usr/sbin:/sbin
command -v qemu-system-x86_64 >/dev/null 2>&1 ||
	skip "qemu-system-x86_64 not installed (Debian: qemu-system-x86)"
for c in cpio modprobe timeout; do
	command -v "$c" >/dev/null 2>&1 || skip "$c not installed"
done
if [ "$systemd" -eq 1 ]; then
	[ -x /lib/systemd/systemd ] || skip "--systemd: no /lib/systemd/systemd (Debian: systemd)"
fi
busybox=/bin/busybox
if [ ! -x "$busybox" ] || ldd "$busybox" >/dev/null 2>&1; then
	skip "no static $busybox (Debian: busybox-static)"
fi

vm_kernel "$kver" || skip "$vm_why"

vmdir=$top_builddir/tests/vm
cache=$vmdir/cache
mkdir -p "$cache"

run=""
qpid=""
tpid=""
vm_tmpk=""
# Kill only the QEMU we started (through its timeout(1) wrapper, which forwards the
# signal), then drop the run directory.
# shellcheck disable=SC2317 # called from the traps
cleanup() {
	[ -z "$vm_tmpk" ] || rm -f "$vm_tmpk"
	[ -z "$qpid" ] || vm_stop "$qpid"
	qpid=""
	if [ -n "$tpid" ]; then
		kill "$tpid" 2>/dev/null || true
		wait "$tpid" 2>/dev/null || true
	fi
	tpid=""
	if [ -n "$run" ] && [ "$keep" -eq 0 ]; then
		rm -rf "$run"
	fi
	run=""
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP

# --- kernel ------------------------------------------------------------------------------

vm_boot_image "$cache"

# --- initramfs ---------------------------------------------------------------------------

# PID 1 until the host's root is ready: load the boot modules, mount the shares and the
# writable places, then switch_root into the host's root and run stage 2 from the run
# directory. After that the guest is no chroot: the kernel's module requests, udevd and
# systemd's chroot checks all see the host's / as the real root.
init_text() {
	cat <<'INIT'
#!/bin/busybox sh
/bin/busybox --install -s
export PATH=/sbin:/bin:/usr/sbin:/usr/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
exec </dev/console >/dev/console 2>&1

fatal() {
	echo "vm-init: FATAL: $*"
	echo "@@VM-RUN-EXIT setup-failed@@"
	sync
	poweroff -f
}

run=""
msize=8192
for w in $(cat /proc/cmdline); do
	case $w in
	vmrun=*) run=${w#vmrun=} ;;
	vmmsize=*) msize=${w#vmmsize=} ;;
	esac
done
[ -n "$run" ] || fatal "no vmrun= on the kernel command line"

while read -r m; do
	insmod "/modules/$m" || fatal "insmod $m"
done </modules/order

# virtio devices may probe asynchronously: retry the first mount for a while.
o=trans=virtio,version=9p2000.L,msize=$msize
i=0
until mount -t 9p -o "$o,ro,cache=loose" hostroot /host 2>/dev/null; do
	i=$((i + 1))
	[ $i -lt 50 ] || fatal "cannot mount the host's root (9p tag hostroot)"
	sleep 0.1
done
# The run directory is moved to its place last, over everything else.
mkdir -p /vmrun /hostro
mount -t 9p -o "$o" vmrun /vmrun || fatal "cannot mount the run directory $run"

mount --move /proc /host/proc || fatal "proc"
mount --move /sys /host/sys || fatal "sysfs"
mount --move /dev /host/dev || fatal "devtmpfs"
mkdir -p /host/dev/pts /host/dev/shm
mount -t devpts -o gid=5,mode=620,ptmxmode=000 devpts /host/dev/pts || fatal "devpts"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /host/dev/shm || fatal "/dev/shm"
mount -t tmpfs -o mode=0755,nosuid,nodev tmpfs /host/run || fatal "/run"
mkdir -p -m 1777 /host/run/lock
mkdir -p /host/run/vm-run/etc-upper /host/run/vm-run/etc-work
mount -t overlay -o \
	lowerdir=/host/etc,upperdir=/host/run/vm-run/etc-upper,workdir=/host/run/vm-run/etc-work \
	overlay /host/etc || fatal "overlay on /etc"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /host/tmp || fatal "/tmp"
mount -t tmpfs -o mode=1777,nosuid,nodev tmpfs /host/var/tmp || fatal "/var/tmp"

# What the run needs below those tmpfs (a checkout in /tmp): the host's copy at the same
# path, read-only. A plain bind of /host is the host's root without the mounts above.
mount --bind /host /hostro || fatal "bind of the host's root"
while read -r kind path; do
	[ -n "$kind" ] || continue
	case $kind in
	dir) mkdir -p "/host$path" ;;
	file) mkdir -p "/host${path%/*}" && : >>"/host$path" ;;
	esac || fatal "cannot make $path in the guest's tmpfs"
	mount --bind "/hostro$path" "/host$path" || fatal "cannot show $path in the guest"
done </vmrun/show
umount /hostro || fatal "umount /hostro"
while read -r tag dir; do
	[ -n "$tag" ] || continue
	[ -d "/host$dir" ] || mkdir -p "/host$dir" || fatal "cannot make $dir in the guest"
	mount -t 9p -o "$o" "$tag" "/host$dir" || fatal "cannot mount $dir read-write"
done </vmrun/rw
mount --move /vmrun "/host$run" || fatal "cannot move the run directory to $run"

exec switch_root /host /bin/sh "$run/stage2" "$run"
fatal "switch_root"
INIT
}

# Stage 2, PID 1 on the host's root (dash). Written into the run directory for each run.
stage2_text() {
	cat <<'STAGE2'
# generated by vm-run.sh: PID 1 of the guest after switch_root
export PATH=/usr/sbin:/usr/bin:/sbin:/bin
run=$1

fatal() {
	echo "vm-init: FATAL: $*"
	echo "@@VM-RUN-EXIT setup-failed@@"
	sync
	/bin/busybox poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 60
}
up() {
	cut -d' ' -f1 /proc/uptime
}

# run_script: the script, its status out through the run directory, then power off.
run_script() {
	t0=$(up)
	env -i PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
		LANG=C.UTF-8 SHELL=/bin/sh /bin/sh "$run/cmd.sh" </dev/null >"$run/output" 2>&1
	rc=$?
	t1=$(up)
	echo "$rc $t0 $t1" >"$run/status"
	echo "@@VM-RUN-EXIT $rc@@" >/dev/console
	sync
	/bin/busybox poweroff -f
	echo o >/proc/sysrq-trigger
	sleep 60
}

. "$run/config" || fatal "cannot read $run/config"
# --systemd: the unit vm-run.service comes back here for the script.
if [ "${2:-}" = --service ]; then
	echo "service $(up)" >>"$run/timing"
	if [ "$VM_UDEV" = 1 ]; then
		udevadm settle --timeout=120 || echo "vm-init: udevadm settle timed out" >/dev/console
		echo "settled $(up)" >>"$run/timing"
	fi
	run_script
fi
echo "stage2 $(up)" >"$run/timing"
for m in $VM_MODULES; do
	modprobe "$m" || fatal "modprobe $m"
done

if [ "$VM_SYSTEMD" = 1 ]; then
	# Only what vm-run.target pulls in starts: journald, udevd and its coldplug (block and
	# misc unless --udev-trigger-all), then the script. No getty, network or mounts from
	# fstab: they cost boot time and the host's fstab is not the guest's.
	u=/etc/systemd/system
	mkdir -p "$u/systemd-udev-trigger.service.d" /etc/systemd/journald.conf.d \
		/etc/systemd/system-generators || fatal "$u"
	# Generators (fstab, getty, lvm2's, ...) make units nothing here wants: masked, ~seconds.
	for g in /lib/systemd/system-generators/* /usr/lib/systemd/system-generators/*; do
		[ -e "$g" ] && ln -sf /dev/null "/etc/systemd/system-generators/${g##*/}"
	done
	deps=systemd-journald.service
	[ "$VM_UDEV" = 0 ] || deps="$deps systemd-udevd.service systemd-udev-trigger.service"
	cat >"$u/vm-run.target" <<EOF || fatal "$u/vm-run.target"
[Unit]
Description=vm-run: the test script and what it needs
Wants=vm-run.service
EOF
	cat >"$u/vm-run.service" <<EOF || fatal "$u/vm-run.service"
[Unit]
Description=vm-run: the test script
DefaultDependencies=no
Wants=$deps
After=$deps
[Service]
Type=oneshot
ExecStart=/bin/sh $run/stage2 $run --service
StandardOutput=tty
StandardError=tty
TTYPath=/dev/console
TimeoutStartSec=infinity
EOF
	if [ "$VM_TRIGGER_ALL" = 0 ]; then
		cat >"$u/systemd-udev-trigger.service.d/vm-run.conf" <<EOF || fatal "trigger"
[Service]
ExecStart=
ExecStart=-udevadm trigger --type=subsystems --action=add
ExecStart=-udevadm trigger --type=devices --action=add --subsystem-match=block \
	--subsystem-match=misc
EOF
	fi
	# udevd's log (worker timeouts, kills) must stay readable: no persistent journal on the
	# read-only root, and no rate limit dropping the lines of a storm.
	printf '[Journal]\nStorage=volatile\nRateLimitBurst=0\n' \
		>/etc/systemd/journald.conf.d/vm-run.conf || fatal "journald.conf"
	if [ -n "$VM_CHILDREN_MAX" ]; then
		echo "children_max=$VM_CHILDREN_MAX" >>/etc/udev/udev.conf || fatal "udev.conf"
	fi
	echo "systemd $(up)" >>"$run/timing"
	exec /lib/systemd/systemd --unit=vm-run.target --show-status=0 --log-level=warning \
		--log-target=console
	fatal "exec /lib/systemd/systemd"
fi

if [ "$VM_UDEV" = 1 ]; then
	cm=""
	[ -z "$VM_CHILDREN_MAX" ] || cm=--children-max=$VM_CHILDREN_MAX
	# shellcheck disable=SC2086
	/lib/systemd/systemd-udevd --daemon $cm || fatal "systemd-udevd"
	echo "udevd $(up)" >>"$run/timing"
	# A full coldplug costs ~6 s more under TCG (tty, acpi, ...); storage tests need only
	# block and misc (device-mapper control, loop-control).
	sm="--subsystem-match=block --subsystem-match=misc"
	[ "$VM_TRIGGER_ALL" = 0 ] || sm=""
	udevadm trigger --type=subsystems --action=add || fatal "udevadm trigger"
	# shellcheck disable=SC2086
	udevadm trigger --type=devices --action=add $sm || fatal "udevadm trigger"
	udevadm settle --timeout=120 || echo "vm-init: udevadm settle timed out"
	echo "settled $(up)" >>"$run/timing"
fi

run_script
STAGE2
}

# Module files of the base set in load order, each once.
module_list() {
	for m in $VM_BASE_MODULES; do
		modprobe -S "$kver" --show-depends "$m" || return 1
	done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }'
}

mods=$(module_list) || skip "modprobe -S $kver cannot resolve: $VM_BASE_MODULES"
key=$( (init_text; echo "$mods"; ls -l "$busybox") | cksum | cut -d' ' -f1)
initrd=$cache/initramfs-$kver-v$VM_HARNESS_VERSION-$key.cpio

if [ ! -f "$initrd" ]; then
	stage=$(mktemp -d "$cache/stage.XXXXXX")
	run=$stage # removed by cleanup if anything fails
	mkdir -p "$stage/root/bin" "$stage/root/sbin" "$stage/root/usr/bin" "$stage/root/usr/sbin" \
		"$stage/root/proc" "$stage/root/sys" "$stage/root/dev" "$stage/root/host" \
		"$stage/root/modules"
	cp "$busybox" "$stage/root/bin/busybox"
	init_text >"$stage/root/init"
	chmod 0755 "$stage/root/init"
	: >"$stage/root/modules/order"
	for f in $mods; do
		b=$(basename "$f")
		case $f in
		*.ko) cp "$f" "$stage/root/modules/$b" ;;
		*.ko.xz) b=${b%.xz}; xz -dc "$f" >"$stage/root/modules/$b" ;;
		*.ko.gz) b=${b%.gz}; gzip -dc "$f" >"$stage/root/modules/$b" ;;
		*.ko.zst) b=${b%.zst}; zstd -dc "$f" >"$stage/root/modules/$b" ;;
		*) say "unknown module file type: $f"; exit 1 ;;
		esac
		echo "$b" >>"$stage/root/modules/order"
	done
	(cd "$stage/root" && find . | LC_ALL=C sort | cpio -o -H newc -R 0:0 --quiet) \
		>"$stage/initramfs.cpio"
	mv -f "$stage/initramfs.cpio" "$initrd"
	rm -rf "$stage"
	run=""
fi

# --- the run -----------------------------------------------------------------------------

run=$(mktemp -d "$vmdir/run.XXXXXX")
check_path "$run"

stage2_text >"$run/stage2"
{
	echo "VM_UDEV=$udev"
	echo "VM_SYSTEMD=$systemd"
	echo "VM_CHILDREN_MAX=$children_max"
	echo "VM_TRIGGER_ALL=$trigger_all"
	# shellcheck disable=SC2086 # word splitting normalises the list
	echo "VM_MODULES='$(printf '%s ' $modules)'"
} >"$run/config"

n=0
rw_args=""
: >"$run/rw"
old_ifs=$IFS
IFS='
'
for d in $rw_dirs; do
	[ -n "$d" ] || continue
	[ -d "$d" ] || die_usage "--rw: no such directory: $d"
	d=$(readlink -f "$d")
	check_path "$d"
	case $d in
	*,*) die_usage "--rw: commas in paths are not supported: $d" ;;
	esac
	echo "rw$n $d" >>"$run/rw"
	rw_args="$rw_args
-virtfs
local,path=$d,mount_tag=rw$n,$share_opts"
	n=$((n + 1))
done
IFS=$old_ifs

# What the init binds back below the guest's tmpfs: the trees and the script's directory (the
# script alone when that directory is /tmp itself), each once, parents before what they hold.
show() {
	# $1 = dir or file, $2 = path
	! under_guest_tmpfs "$2" || echo "$2 $1"
}
case ${script%/*} in
/tmp | /run | /var/tmp) script_share="file $script" ;;
*) script_share="dir ${script%/*}" ;;
esac
# shellcheck disable=SC2086 # script_share is two words
{
	show dir "$top_srcdir"
	show dir "$top_builddir"
	show $script_share
} | LC_ALL=C sort -u | awk '
	{ for (i = 1; i <= n; i++) if (index($1 "/", d[i] "/") == 1) next }
	$2 == "dir" { d[++n] = $1 }
	{ print $2, $1 }' >"$run/show"

cwd=$(pwd)
{
	echo "# generated by vm-run.sh"
	echo "cd $(shquote "$cwd") 2>/dev/null || cd /"
	echo "top_srcdir=$(shquote "$top_srcdir")"
	echo "top_builddir=$(shquote "$top_builddir")"
	echo "PF_VM=1"
	echo "export top_srcdir top_builddir PF_VM"
	IFS='
'
	for e in $envs; do
		[ -n "$e" ] || continue
		name=${e%%=*}
		case $name in
		'' | [0-9]* | *[!A-Za-z0-9_]*) die_usage "--env: bad name in '$e'" ;;
		esac
		[ "$name" != "$e" ] || die_usage "--env: need NAME=VALUE, got '$e'"
		echo "$name=$(shquote "${e#*=}"); export $name"
	done
	IFS=$old_ifs
	if [ -x "$script" ]; then
		printf 'exec %s' "$(shquote "$script")"
	else
		printf 'exec /bin/sh %s' "$(shquote "$script")"
	fi
	for a in "$@"; do
		printf ' %s' "$(shquote "$a")"
	done
	echo
} >"$run/cmd.sh"

case $run in
*,*) die_usage "commas in the build tree path are not supported: $run" ;;
esac

say "kernel $kver, ${mem} MB, $cpus CPUs, script $script"
: >"$run/output"
start=$(date +%s.%N)
# shellcheck disable=SC2086 # rw_args is split on newlines only
(
	IFS='
'
	exec timeout -k 10 "$timeout" qemu-system-x86_64 -accel tcg -nographic -no-reboot \
		-nodefaults -no-user-config -serial stdio -monitor none -nic none \
		-m "$mem" -smp "$cpus" -kernel "$boot_image" -initrd "$initrd" \
		-append "console=ttyS0 panic=-1 quiet loglevel=4 vmrun=$run vmmsize=$VM_MSIZE" \
		-virtfs "local,path=/,mount_tag=hostroot,$share_opts,readonly=on" \
		-virtfs "local,path=$run,mount_tag=vmrun,$share_opts" \
		$rw_args
) </dev/null >"$run/console.log" 2>&1 &
qpid=$!
# Stream the script's output while it runs; tail stops once QEMU is reaped.
tail -n +1 -s 0.2 -f --pid="$qpid" "$run/output" &
tpid=$!
set +e
wait "$qpid"
qrc=$?
wait "$tpid"
set -e
qpid=""
tpid=""
end=$(date +%s.%N)

status=""
[ -f "$run/status" ] && read -r status t0 t1 <"$run/status"

fail=""
if [ "$qrc" -eq 124 ] || [ "$qrc" -eq 137 ]; then
	fail="timed out after $timeout s; QEMU killed"
elif ! is_uint "$status"; then
	fail="the guest did not report an exit status (QEMU exit $qrc)"
fi
if [ -n "$fail" ] || [ "$verbose" -eq 1 ]; then
	echo "---- guest console ----"
	# Drop the firmware's terminal escapes.
	sed 's/\x1b\[[0-9;?]*[A-Za-z]//g; s/\x1bc//g' "$run/console.log"
	echo "---- end of guest console ----"
	[ ! -f "$run/timing" ] || { echo "guest uptime at each stage:"; cat "$run/timing"; }
fi
[ "$keep" -eq 0 ] || say "run directory kept: $run"
if [ -n "$fail" ]; then
	say "FAIL: $fail"
	exit 1
fi
say "$(awk -v s="$start" -v e="$end" -v a="$t0" -v b="$t1" 'BEGIN {
	printf "boot to script start %.1f s, script %.1f s, wall %.1f s", a, b - a, e - s }')"
say "script exit status $status"
exit "$status"
