#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest script: pvscan-fast's activation against lvm2's, fixture by fixture, on a real kernel.
#
#   tests/vm/vm-run.sh tests/vm/guest-activate.sh [FIXTURE...]
#
# For each fixture: activate its VGs with lvm2 (`vgchange -aay`) and record the dm tables,
# names, UUIDs and attributes, read-ahead and the /dev/VG and /dev/mapper links udev made;
# deactivate; then run pvscan-fast's udev form with --activate ay for every PV at once, as udev
# would, and record the same: it must be identical. lvm2 must then see the LVs active, and
# `vgchange -an` must remove them cleanly. --dry-run must print the tables lvm2 loaded. No
# System V semaphore may be left behind. Linear/striped VGs are activated natively; others
# (segtypes: thin, raid, mirror, cache, snapshot) are handed to lvm2 and must match too.
set -eu

. "${top_srcdir:-$(dirname "$0")/../..}/tests/vm/guest-lib.sh"
guest_init guest-activate.sh /tmp/activate-parity
fixdir=$top_srcdir/tests/fixtures
# FIXTURE+cfg: the same with lvm.conf's activation settings that change tables and flags.
[ $# -gt 0 ] || set -- single two-pv three-pv hyphens wrap bootloader labelsector two-mdas \
	no-mda ignored-mda segtypes two-pv+cfg three-pv+cfg

# Fixtures whose every LV is linear or striped: pvscan-fast must not need lvm2 for them.
NATIVE="single two-pv three-pv hyphens wrap bootloader labelsector two-mdas no-mda ignored-mda"
NATIVE="$NATIVE two-pv+cfg three-pv+cfg"
mask_lvm_rule guest-activate.sh
export LVM_SUPPRESS_FD_WARNINGS=1

# record DIR VGS: what device-mapper and udev show for the VGs' LVs.
record() {
	d=$1
	shift
	mkdir -p "$d"
	udevadm settle
	dmsetup table 2>&1 | sort >"$d/table"
	dmsetup info -c --noheadings -o name,uuid,attr 2>&1 | sort >"$d/info"
	dm_readahead | sort >"$d/readahead"
	dirs=/dev/mapper
	for vg in "$@"; do
		dirs="$dirs /dev/$vg"
	done
	# Each entry, what it is, and the dm device it leads to (dm-N numbers vary between runs).
	# shellcheck disable=SC2086
	find $dirs -mindepth 1 -maxdepth 1 ! -name control 2>/dev/null | sort |
		while read -r p; do
			t=$(readlink -f "$p")
			echo "$p $(stat -c %F "$p") $(cat "/sys/block/${t##*/}/dm/name" 2>/dev/null)"
		done >"$d/links"
}

for arg in "$@"; do
	fx=${arg%+cfg}
	src=$fixdir/$fx
	wd=$work/$fx
	echo "== $fx"
	rm -rf "$wd"
	mkdir -p "$wd/etc" "$wd/run"
	attach_fixture "$src" "$wd"
	devs=$fixture_devs
	activation=""
	if [ "$arg" != "$fx" ]; then
		activation='activation {
	readahead = "none"
	use_linear_target = 0
	read_only_volume_list = [ "vgtwo/lin", "vgthree/multi" ]
}'
		fx=$arg
	fi
	t_lvm_conf "$wd/etc" "$devs" "use_devicesfile = 0" "$activation"
	export LVM_SYSTEM_DIR="$wd/etc"
	vgs=$(lvm vgs --noheadings -o vg_name 2>/dev/null | tr -d ' ' | sort | tr '\n' ' ')

	# lvm2 first: the reference.
	set +e
	# shellcheck disable=SC2086 # VG names have no blanks
	lvm vgchange -aay $vgs >"$wd/lvm2.log" 2>&1
	rc_lvm2=$?
	set -e
	# shellcheck disable=SC2086
	record "$wd/lvm2" $vgs
	# shellcheck disable=SC2086
	lvm vgchange -an $vgs >/dev/null 2>&1 || true
	udevadm settle

	# --dry-run: the tables it would load are the ones lvm2 loaded (native VGs only).
	set +e
	# shellcheck disable=SC2086
	PVSCAN_FAST_RUN_DIR=$wd/run/dry "$PF" --cache -aay --dry-run $devs >"$wd/dry.out" 2>&1
	set -e
	if grep -q 'would be activated by lvm2' "$wd/dry.out"; then
		ok "$fx: dry run hands the VG to lvm2 ($(grep -o 'lvm2: .*' "$wd/dry.out" | head -1))"
	else
		grep '^    [0-9]' "$wd/dry.out" | sed 's/^    //' | sort >"$wd/dry.tables"
		sed 's/^[^:]*: //' "$wd/lvm2/table" | sort >"$wd/lvm2.tables"
		same "$fx: --dry-run prints the tables lvm2 loaded" "$wd/lvm2.tables" "$wd/dry.tables"
	fi

	# pvscan-fast: the udev form for every PV at once, as udev runs it. A VG it hands to
	# lvm2 goes through a logging wrapper, so the test knows which path each VG took.
	printf '#!/bin/sh\nfor a; do vg=$a; done\necho "$vg" >>%s/delegated\nexec lvm "$@"\n' \
		"$wd" >"$wd/lvm-log"
	chmod 0755 "$wd/lvm-log"
	: >"$wd/delegated"
	export PVSCAN_FAST_RUN_DIR="$wd/run/lvm" PVSCAN_FAST_LVM="$wd/lvm-log"
	pids=""
	for l in $devs; do
		mm=$(cat "/sys/block/${l#/dev/}/dev")
		"$PF" --cache -aay --autoactivation event --major "${mm%:*}" --minor "${mm#*:}" \
			>"$wd/pf.${l#/dev/}.out" 2>&1 &
		pids="$pids $!"
	done
	rc_pf=0
	for p in $pids; do
		wait "$p" || rc_pf=$?
	done
	unset PVSCAN_FAST_RUN_DIR PVSCAN_FAST_LVM
	# shellcheck disable=SC2086
	record "$wd/pf" $vgs
	case " $NATIVE " in
	*" $fx "*)
		if [ -s "$wd/delegated" ]; then
			not_ok "$fx: activated natively (handed to lvm2: $(cat "$wd/delegated"))"
		else
			ok "$fx: activated natively"
		fi ;;
	*) ok "$fx: handed to lvm2: $(tr '\n' ' ' <"$wd/delegated")" ;;
	esac
	if [ "$rc_pf" -eq "$rc_lvm2" ] || { [ "$rc_lvm2" -ne 0 ] && [ "$rc_pf" -ne 0 ]; }; then
		ok "$fx: exit status like lvm2's ($rc_lvm2, ours $rc_pf)"
	else
		not_ok "$fx: exit status: lvm2 $rc_lvm2, ours $rc_pf"
		cat "$wd"/pf.*.out | sed 's/^/#   /'
	fi
	same "$fx: dm tables" "$wd/lvm2/table" "$wd/pf/table"
	same "$fx: dm names, UUIDs, attributes" "$wd/lvm2/info" "$wd/pf/info"
	same "$fx: read-ahead" "$wd/lvm2/readahead" "$wd/pf/readahead"
	same "$fx: /dev/VG and /dev/mapper links" "$wd/lvm2/links" "$wd/pf/links"

	# lvm2 sees them active, and takes them down cleanly.
	# shellcheck disable=SC2086
	lvm lvs --noheadings -o lv_name,lv_active $vgs 2>/dev/null | sort >"$wd/pf/active"
	# shellcheck disable=SC2086
	if [ -n "$vgs" ] && lvm vgchange -an $vgs >"$wd/down.log" 2>&1; then
		udevadm settle
		left=$(dmsetup ls 2>/dev/null | grep -vx 'No devices found' || true)
		if [ -z "$left" ]; then
			ok "$fx: vgchange -an removes what we made"
		else
			not_ok "$fx: left after vgchange -an: $left"
		fi
	elif [ -n "$vgs" ]; then
		not_ok "$fx: vgchange -an failed"
		sed 's/^/#   /' "$wd/down.log"
	fi
	if [ -n "$(ipcs -s | awk '$1 ~ /^0x0d4d/')" ]; then
		not_ok "$fx: udev semaphores left: $(ipcs -s | awk '$1 ~ /^0x0d4d/ {print $1}')"
		dmsetup udevcomplete_all -y >/dev/null 2>&1 || true
	else
		ok "$fx: no semaphore left"
	fi
	dmsetup remove_all >/dev/null 2>&1 || true
	for l in $devs; do
		losetup -d "$l"
	done
	loops=""
	unset LVM_SYSTEM_DIR
	rm -rf "$wd"
done
echo "$passes passed, $fails failed"
[ "$fails" -eq 0 ]
