# shellcheck shell=sh
# SPDX-License-Identifier: GPL-2.0-or-later
# What the guest test scripts share: the VM check, the pvscan-fast binary, results, a cleanup
# that removes every dm device and detaches the loop devices in $loops, fixtures on loop devices,
# and what udev and dm show. The helpers of tests/lib/test-lib.sh that need no scratch directory
# (t_lvm_conf, t_queue_left) are theirs too.
#   . "$top_srcdir/tests/vm/guest-lib.sh"; guest_init NAME WORKDIR

# shellcheck source=tests/lib/test-lib.sh
. "${top_srcdir:-$(dirname "$0")/../..}/tests/lib/test-lib.sh"

guest_init() {
	[ "${PF_VM:-}" = 1 ] || {
		echo "SKIP: $1 runs inside the VM (tests/vm/vm-run.sh)"
		exit 77
	}
	: "${top_srcdir:?set by vm-run.sh}"
	: "${top_builddir:?set by vm-run.sh}"
	PF=$top_builddir/pvscan-fast/pvscan-fast
	[ -x "$PF" ] || { echo "$1: $PF not built" >&2; exit 1; }
	work=$2
	loops=""
	passes=0
	fails=0
	xfails=0
	trap guest_cleanup EXIT
	trap 'exit 130' INT TERM
}

# shellcheck disable=SC2317 # called from the trap
guest_cleanup() {
	dmsetup remove_all >/dev/null 2>&1 || true
	for _l in $loops; do
		losetup -d "$_l" 2>/dev/null || true
	done
	loops=""
	rm -rf "$work"
}

ok() {
	passes=$((passes + 1))
	echo "ok - $*"
}

not_ok() {
	fails=$((fails + 1))
	echo "not ok - $*"
}

xfail() {
	xfails=$((xfails + 1))
	echo "not ok - $1 # XFAIL $2"
}

# Only the test's own calls activate: udev's event activation (Debian's 69-lvm.rules) masked.
mask_lvm_rule() {
	printf '# masked by %s\n' "$1" >/etc/udev/rules.d/69-lvm.rules
	udevadm control --reload
}

# same TAG FILE1 FILE2: ok when identical, else the diff.
same() {
	if cmp -s "$2" "$3"; then
		ok "$1"
	else
		not_ok "$1"
		diff -u "$2" "$3" | sed 's/^/#   /' | head -40
	fi
}

# attach_fixture FIXTURE_DIR WORKDIR: the fixture's dN.img.xz images unpacked into WORKDIR and
# attached read-write, in order, once udev has settled: fixture_devs lists the loop devices
# (which $loops holds too, for the cleanup), WORKDIR/loops has a line "IMAGE DEVICE" for each.
# No such fixture is a usage error: exit 2.
attach_fixture() {
	[ -f "$1/d1.img.xz" ] || { echo "${0##*/}: no fixture $1" >&2; exit 2; }
	fixture_devs=""
	: >"$2/loops"
	for _x in "$1"/d*.img.xz; do
		_img=$2/$(basename "$_x" .xz)
		xz -dc "$_x" | dd of="$_img" bs=64k conv=sparse status=none
		_l=$(losetup -f --show "$_img")
		loops="$loops $_l"
		fixture_devs="$fixture_devs $_l"
		echo "${_img##*/} $_l" >>"$2/loops"
	done
	udevadm settle
}

# dm_readahead: "NODE SECTORS", the read-ahead of every /dev/mapper node; one blockdev for all
# of them, as process starts cost ~28x under TCG.
dm_readahead() {
	_nodes=""
	for _n in /dev/mapper/*; do
		[ "$_n" = /dev/mapper/control ] || [ ! -e "$_n" ] || _nodes="$_nodes $_n"
	done
	[ -n "$_nodes" ] || return 0
	# shellcheck disable=SC2086 # dm names have no blanks
	blockdev --getra $_nodes | awk -v nodes="$_nodes" 'BEGIN { split(nodes, n, " ") }
		{ print n[NR] " " $0 }'
}

# stop_udevd: ask the running udevd to exit, and wait (up to ~10 s) until it no longer answers.
stop_udevd() {
	udevadm control --exit 2>/dev/null || true
	_i=0
	while udevadm control --ping --timeout=1 >/dev/null 2>&1 && [ $_i -lt 100 ]; do
		sleep 0.1
		_i=$((_i + 1))
	done
}

# Seconds since boot, and since such a mark, without starting a process for the first.
up() {
	read -r _up _ </proc/uptime
	echo "$_up"
}
since() {
	awk -v a="$1" -v b="$(up)" 'BEGIN { printf "%.1f", b - a }'
}

# nullb_like_disk: let udev and lvm2 treat null_blk devices as the disks they stand for.
# 60-persistent-storage.rules probes only the disk kinds it knows, and lvm2 knows no "nullb"
# device type (lib/device/device-types.h): without both, lvm2 and pvscan-fast alike pass them
# by. lvm.conf is written whole: the guest's /etc is a tmpfs overlay.
nullb_like_disk() {
	echo 'SUBSYSTEM=="block", KERNEL=="nullb*", ACTION!="remove", IMPORT{builtin}="blkid"' \
		>/etc/udev/rules.d/61-nullb-blkid.rules
	printf 'devices {\n\ttypes = [ "nullb", 16 ]\n}\n' >/etc/lvm/lvm.conf
}

# install_pf_rule NAME BINDIR: pvscan-fast's rule as `make install` puts it, naming the command
# in BINDIR, with Debian's 69-lvm.rules masked, as docs/pvscan-fast.8 tells admins to.
install_pf_rule() {
	mask_lvm_rule "$1"
	sed "s|@sbindir@|$2|g" "$top_srcdir/udev/69-pvscan-fast.rules.in" \
		>/etc/udev/rules.d/69-pvscan-fast.rules
	udevadm control --reload
}

# guest_images TAR PREFIX N: TAR's PV images (else N clones of fixtures/single named PREFIX...)
# into $work/img.
guest_images() {
	mkdir -p "$work/img"
	if [ -n "$1" ]; then
		tar -xSf "$1" -C "$work/img"
	else
		python3 "$top_srcdir/tests/bench/clone-pvs.py" "$top_srcdir/tests/fixtures/single" \
			"$3" "$work/img" "$2" >/dev/null
	fi
}

# no_udev_sems PREFIX: ok when no udev cookie semaphore (0x0d4d....) is left; else not_ok, and
# count them off so that later checks start clean. PREFIX ("name: " or "") heads the message.
no_udev_sems() {
	_sems=$(ipcs -s | awk '$1 ~ /^0x0d4d/ { print $1 }')
	if [ -z "$_sems" ]; then
		ok "${1}no udev semaphore left"
	else
		not_ok "${1}udev semaphores left: $_sems"
		dmsetup udevcomplete_all -y >/dev/null 2>&1 || true
	fi
}

# write_images DEV IMAGE...: each image's non-zero 4 KiB blocks onto its device (memory-backed
# null_blk keeps what is written), by one python process; prints "NAME MAJ:MIN IMAGE".
write_images() {
	python3 - "$@" <<'EOF'
import os, sys
args = sys.argv[1:]
for dev, img in zip(args[0::2], args[1::2]):
    with open(img, "rb") as src:
        fd = os.open(dev, os.O_WRONLY | os.O_CLOEXEC)
        off = 0
        while True:
            blk = src.read(4096)
            if not blk:
                break
            if blk.count(0) != len(blk):
                os.pwrite(fd, blk, off)
            off += len(blk)
        os.fsync(fd)
        rdev = os.fstat(fd).st_rdev
        os.close(fd)
    print("%s %d:%d %s" % (os.path.basename(dev), os.major(rdev), os.minor(rdev), img),
          flush=True)
EOF
}

# fixtures/single: lv0 is 8 MiB, linear, at pe_start 1 MiB
LV_SECTORS=16384
PE_START=2048

# expect_tables: $work/expect.table, every VG's lv0 on its device as the clones of
# fixtures/single carry it, from $work/devs (write_images' "NAME MAJ:MIN IMAGE" lines).
expect_tables() {
	while read -r _ devno img; do
		vg=$(basename "$img" -d1.img)
		echo "$vg-lv0: 0 $LV_SECTORS linear $devno $PE_START"
	done <"$work/devs" | sort >"$work/expect.table"
}
