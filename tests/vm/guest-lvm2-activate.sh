#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest script: activate each fixture's VGs with real lvm2 and record what dm and udev made.
#
# The baseline for activation parity tests. Runs inside the VM only:
#   tests/vm/vm-run.sh --rw OUTDIR tests/vm/guest-lvm2-activate.sh OUTDIR [FIXTURE...]
# (OUTDIR in the build tree, shared read-write so the host can read the results.)
# For every fixture set in tests/fixtures/*/ (or the ones named) it unpacks the dN.img.xz
# images into the guest's tmpfs, attaches them to loop devices, gives lvm a private
# LVM_SYSTEM_DIR whose global_filter accepts exactly those loops, runs
# `lvm vgchange -aay VG...` and writes into OUTDIR/FIXTURE/:
#   loops        image, loop device, maj:min
#   vgs          the VGs lvm found on the loops
#   vgchange.log, vgchange.rc     output and exit status of vgchange -aay
#   lvs          lvs -a: name, attr, active, read-ahead (metadata and kernel)
#   table        dmsetup table
#   info         dmsetup info -c --noheadings -o name,uuid,attr
#   readahead    blockdev --getra of every /dev/mapper node
#   ls           ls -l /dev/VG... /dev/mapper
#   links        every /dev/VG/* and /dev/mapper/* entry and where it points
#   udev         the udev database record of every dm device (udevadm info --export-db)
#   deactivate.log, deactivate.rc, leftovers     vgchange -an and what it left behind
# and one line per fixture to OUTDIR/summary.
#
# udev's own event activation (69-lvm.rules) is masked in the guest's /etc overlay, so only
# the explicit vgchange activates.
#
# Recorded with Debian lvm2 2.03.16 and kernel 6.1 (tests/vm/README.md has the details):
# every LV of single, two-pv, three-pv, two-mdas, no-mda, wrap, many-lvs (320), bootloader,
# labelsector (two VGs), hyphens and ignored-mda activates (vgchange exit 0). segtypes
# activates everything but the thin LV `th` (its pool's metadata area is zeroed, so the thin
# id is unknown: reload fails with ENODATA, vgchange exits 5); orphan has no VG.
set -eu

[ "${PF_VM:-}" = 1 ] || {
	echo "SKIP: guest-lvm2-activate.sh runs inside the VM (tests/vm/vm-run.sh)"
	exit 77
}
[ $# -ge 1 ] || { echo "usage: guest-lvm2-activate.sh OUTDIR [FIXTURE...]" >&2; exit 2; }
out=$1
shift
: "${top_srcdir:?set by vm-run.sh}"
fixdir=$top_srcdir/tests/fixtures
# shellcheck source=tests/vm/guest-lib.sh
. "$top_srcdir/tests/vm/guest-lib.sh" # not guest_init: lvm2 alone, no pvscan-fast
mkdir -p "$out"
[ -w "$out" ] || { echo "lvm2-activate: $out is not writable (vm-run.sh --rw $out)" >&2; exit 2; }

if [ $# -eq 0 ]; then
	for d in "$fixdir"/*/; do
		[ -f "$d/d1.img.xz" ] && basename "$d"
	done >"$out/.fixtures"
	# shellcheck disable=SC2046 # fixture names have no blanks
	set -- $(cat "$out/.fixtures")
	rm -f "$out/.fixtures"
fi

work=/tmp/lvm2-activate
loops=""
bad=0
# shellcheck disable=SC2317 # called from the traps
cleanup() {
	for l in $loops; do
		losetup -d "$l" 2>/dev/null || true
	done
	loops=""
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

mask_lvm_rule guest-lvm2-activate.sh
export LVM_SUPPRESS_FD_WARNINGS=1

: >"$out/summary"
for fx in "$@"; do
	src=$fixdir/$fx
	res=$out/$fx
	wd=$work/$fx
	echo "== $fx"
	rm -rf "$res"
	mkdir -p "$res" "$wd/etc"

	attach_fixture "$src" "$wd"
	while read -r img l; do
		echo "$img $l $(cat "/sys/block/${l#/dev/}/dev")"
	done <"$wd/loops" >"$res/loops"
	t_lvm_conf "$wd/etc" "$fixture_devs" "use_devicesfile = 0"
	export LVM_SYSTEM_DIR="$wd/etc"

	lvm vgs --noheadings -o vg_name 2>"$res/vgs.err" | tr -d ' ' | sort >"$res/vgs"
	vgs=$(cat "$res/vgs")
	if [ -z "$vgs" ]; then
		echo "$fx vgs=- dm_devices=0 vgchange_rc=- deactivate_rc=-" >>"$out/summary"
		echo "no VG"
	else
		set +e
		# shellcheck disable=SC2086 # VG names have no blanks
		lvm vgchange -aay $vgs >"$res/vgchange.log" 2>&1
		echo $? >"$res/vgchange.rc"
		set -e
		udevadm settle
		# shellcheck disable=SC2086
		lvm lvs -a --noheadings $vgs \
			-o vg_name,lv_name,lv_attr,lv_active,lv_read_ahead,lv_kernel_read_ahead \
			>"$res/lvs" 2>&1 || true
		dmsetup table >"$res/table" 2>&1 || true
		dmsetup info -c --noheadings -o name,uuid,attr >"$res/info" 2>&1 || true
		# One process per step, not per device: process starts cost ~28x under TCG.
		dm_readahead | sed 's|^/dev/mapper/||' >"$res/readahead"
		# The udev database records of the dm devices, in /dev/mapper name order.
		soh=$(printf '\001')
		udevadm info --export-db | awk '
			function flush() {
				if (dm != "")
					print dm "\001== " dm "\002" rec
				dm = ""
				rec = ""
			}
			/^P: / { rec = $0; dm = ""; next }
			/^E: DM_NAME=/ { dm = substr($0, 12) }
			/^$/ { flush(); next }
			{ rec = rec "\002" $0 }
			END { flush() }' |
			LC_ALL=C sort -t "$soh" -k1,1 | cut -d "$soh" -f2- | tr '\002' '\n' \
			>"$res/udev"
		lsargs=""
		for vg in $vgs; do
			lsargs="$lsargs /dev/$vg"
		done
		# shellcheck disable=SC2086
		ls -l $lsargs /dev/mapper >"$res/ls" 2>&1 || true
		# shellcheck disable=SC2086
		find $lsargs /dev/mapper -mindepth 1 -maxdepth 1 -printf '%p %y %l\n' 2>/dev/null |
			sort >"$res/links"
		ndm=$(grep -c . "$res/info" || true)
		vgl=$(echo "$vgs" | tr '\n' ' ')
		echo "$(cat "$res/vgchange.rc") vgchange -aay $vgl: $ndm dm devices"

		set +e
		# shellcheck disable=SC2086
		lvm vgchange -an $vgs >"$res/deactivate.log" 2>&1
		echo $? >"$res/deactivate.rc"
		set -e
		udevadm settle
		{
			dmsetup ls 2>&1 | grep -vx 'No devices found' || true
			for vg in $vgs; do
				[ ! -e "/dev/$vg" ] || ls -l "/dev/$vg"
			done
			for e in /dev/mapper/*; do
				[ "$e" = /dev/mapper/control ] || echo "$e"
			done
		} >"$res/leftovers" 2>&1
		if [ -s "$res/leftovers" ]; then
			echo "lvm2-activate: $fx: left behind after vgchange -an:" >&2
			cat "$res/leftovers" >&2
			bad=1
			dmsetup remove_all >/dev/null 2>&1 || true
		fi
		echo "$fx vgs=$(echo "$vgs" | tr '\n' ',' | sed 's/,$//') dm_devices=$ndm" \
			"vgchange_rc=$(cat "$res/vgchange.rc")" \
			"deactivate_rc=$(cat "$res/deactivate.rc")" \
			>>"$out/summary"
	fi
	for l in $loops; do
		losetup -d "$l"
	done
	loops=""
	rm -rf "$wd"
done
cat "$out/summary"
exit $bad
