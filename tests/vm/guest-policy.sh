#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Guest script: which LVs pvscan-fast autoactivates, and what it says, against lvm2's pvscan.
#
#   tests/vm/vm-run.sh --timeout 1200 tests/vm/guest-policy.sh
#
# lvm2 builds VGs on loop devices that exercise every gate of event autoactivation: LV flags
# (activation skip, autoactivation off), VG autoactivation off, LV and VG tags, host tags,
# auto_activation_volume_list and volume_list, lvm_<tag>.conf, system IDs (foreign, lvmlocal,
# uname, extra_system_ids), an exported, a shared and a read-only VG, a VG with a PV missing,
# PVs flagged MISSING (present and absent, used and unused) and a PV on two devices.
#
# A scenario is a configuration and one or more `pvscan --cache -aay DEV...` invocations in a
# row, as udev or an admin would run them. With every LV inactive and a fresh run directory,
# lvm2 runs them, then pvscan-fast does. Then the LVs device-mapper has, the exit statuses,
# stdout and stderr (pvscan[PID] normalized) must be equal, and lvm2's LVs the ones this
# script expects, so a broken setup cannot pass unnoticed. lvm2 takes two paths: one device
# argument completing one VG reads just that VG ("quick"); several read every device and go
# through process_each_vg, whose messages differ. Both are covered. With "-v" the scenario
# runs both verbose, which shows the per-LV policy lines.
#
# pvscan-fast's run directory is seeded with the record of an earlier full scan: the first
# leader since boot reads every device by design (docs/design.md), which lvm2 does not; one
# scenario shows that. POLICY_PARITY_SHOW=1 prints every output.
#
# Device lists are split on purpose (loop device names have no blanks):
# shellcheck disable=SC2086
set -eu

. "${top_srcdir:-$(dirname "$0")/../..}/tests/vm/guest-lib.sh"
guest_init guest-policy.sh /tmp/policy-parity
SHOW=${POLICY_PARITY_SHOW:-0}
etc=$work/etc
out=$work/out

# Seconds since boot, without a process.
now() {
	read -r _up _ </proc/uptime
	echo "${_up%.*}"
}
t0=$(now)

# Only our explicit calls activate: udev's own event activation is masked.
mask_lvm_rule guest-policy.sh
export LVM_SUPPRESS_FD_WARNINGS=1
# hosttags = 1 and system_id_source = "uname" use the node name; the guest has none.
echo pfguest >/proc/sys/kernel/hostname

mkdir -p "$work/img" "$etc" "$out" "$work/run"
export LVM_SYSTEM_DIR=$etc
LOOPS='/dev/loop[0-9]+' # what every lvm.conf accepts
# conf [TEXT [DEVICES]]: lvm.conf is the filter, DEVICES settings and TEXT; lvmlocal.conf and
# lvm_ht.conf are emptied.
conf() {
	t_lvm_conf "$etc" "$LOOPS" "use_devicesfile = 0${2:+
	$2}" "${1:-}"
	: >"$etc/lvmlocal.conf"
	: >"$etc/lvm_ht.conf"
}

# ---- the VGs (one PV each unless said otherwise; 1 MiB extents, 1 MiB LVs) ----
# vga  LVs a_plain, a_lt (tag lt), a_skip (activation skip), a_noaa (autoactivation off),
#      a_host (tag pfguest, the host name), a_ht (tag ht)
# vgb  VG tag vt; b1, b2 (tag lt)
# vgn  VG autoactivation off; n1
# vgx  exported; x1
# vgs  shared (lock_type sanlock, written with vgcfgrestore); s1
# vgf  system ID "other"; f1          vgh  system ID "pfguest"; h1
# vgr  read-only (status without WRITE, written with vgcfgrestore); r1
# vgi  PVs i1 i2 (i2 detached); i1 on i1, i2 on i2
# vgm  PVs m1 m2, m2 flagged MISSING (written while hidden), holds nothing; m1 on m1
# vgk  PVs k1 k2, k2 flagged MISSING, holds k2; k1 on k1
# vgl  PVs l1 l2, l2 flagged MISSING and detached, holds l2; l1 on l1
# vgd  d1; its PV copied to a second device (d2), attached for the last scenarios only
names="a b n x s f h r i1 i2 m1 m2 k1 k2 l1 l2 d"
(cd "$work/img" && truncate -s 8M $names)
for n in $names; do
	l=$(losetup -f --show "$work/img/$n")
	loops="$loops $l"
	eval "dev_$n=\$l"
done
# shellcheck disable=SC2154 # dev_* are set by the eval above
all_devs="$dev_a $dev_b $dev_n $dev_x $dev_s $dev_f $dev_h $dev_r $dev_i1 $dev_i2 $dev_m1 $dev_m2"
# shellcheck disable=SC2154
all_devs="$all_devs $dev_k1 $dev_k2 $dev_l1 $dev_l2 $dev_d"
conf 'backup {
	backup = 0
	archive = 0
}'
hide() {
	printf " --config 'devices/global_filter=[ \"r|^%s\$|\", \"a|^%s\$|\", \"r|.*|\" ]'" \
		"$1" "$LOOPS"
}
sid() {
	printf " --config 'global/system_id_source=\"lvmlocal\" local/system_id=\"%s\"'" "$1"
}
# One lvm shell for all of it: every lvm2 process costs about a second under TCG.
mk="-an -Zn -L1m -n"
# shellcheck disable=SC2154
lvm >"$work/setup1.log" 2>&1 <<EOF
pvcreate -q $all_devs
vgcreate -q -s 1m vga $dev_a
lvcreate -q $mk a_plain vga
lvcreate -q $mk a_lt --addtag lt vga
lvcreate -q $mk a_skip --setactivationskip y vga
lvcreate -q $mk a_noaa --setautoactivation n vga
lvcreate -q $mk a_host --addtag pfguest vga
lvcreate -q $mk a_ht --addtag ht vga
vgcreate -q -s 1m --addtag vt vgb $dev_b
lvcreate -q $mk b1 vgb
lvcreate -q $mk b2 --addtag lt vgb
vgcreate -q -s 1m --setautoactivation n vgn $dev_n
lvcreate -q $mk n1 vgn
vgcreate -q -s 1m vgx $dev_x
lvcreate -q $mk x1 vgx
vgexport vgx
vgcreate -q -s 1m vgs $dev_s
lvcreate -q $mk s1 vgs
vgcfgbackup -f $work/vgs.vg vgs
vgcreate -q $(sid other) -s 1m vgf $dev_f
lvcreate -q $(sid other) $mk f1 vgf
vgcreate -q $(sid pfguest) -s 1m vgh $dev_h
lvcreate -q $(sid pfguest) $mk h1 vgh
vgcreate -q -s 1m vgr $dev_r
lvcreate -q $mk r1 vgr
vgcfgbackup -f $work/vgr.vg vgr
vgcreate -q -s 1m vgi $dev_i1 $dev_i2
lvcreate -q $mk i1 vgi $dev_i1
lvcreate -q $mk i2 vgi $dev_i2
vgcreate -q -s 1m vgm $dev_m1 $dev_m2
lvcreate -q $mk m1 vgm $dev_m1
lvchange -q $(hide "$dev_m2") --addtag written vgm/m1
vgcreate -q -s 1m vgk $dev_k1 $dev_k2
lvcreate -q $mk k1 vgk $dev_k1
lvcreate -q $mk k2 vgk $dev_k2
lvchange -q $(hide "$dev_k2") --addtag written vgk/k1
vgcreate -q -s 1m vgl $dev_l1 $dev_l2
lvcreate -q $mk l1 vgl $dev_l1
lvcreate -q $mk l2 vgl $dev_l2
lvchange -q $(hide "$dev_l2") --addtag written vgl/l1
vgcreate -q -s 1m vgd $dev_d
lvcreate -q $mk d1 vgd
EOF
# lvm2 makes neither a shared VG without lvmlockd nor a read-only one, but restores both.
sed -i 's/^\tformat = "lvm2".*/&\n\tlock_type = "sanlock"\n\tlock_args = "1.0.0:lvmlock"/' \
	"$work/vgs.vg"
sed -i '0,/^\tstatus = .*/s//\tstatus = ["RESIZEABLE", "READ"]/' "$work/vgr.vg"
lvm >"$work/setup2.log" 2>&1 <<EOF
vgcfgrestore -q --force -f $work/vgs.vg vgs
vgcfgrestore -q -f $work/vgr.vg vgr
EOF
# shellcheck disable=SC2154
losetup -d "$dev_i2" "$dev_l2"
loops=$(echo "$loops" | sed "s|$dev_i2 ||; s|$dev_l2 ||")
if [ "$SHOW" = 1 ]; then
	echo "# setup:"
	sed 's/^/#   /' "$work/setup1.log" "$work/setup2.log"
fi
echo "# setup took $(($(now) - t0)) s"

# ---- comparing without a process per file ----

# Lines left out of a comparison (set per scenario): lvm2's -v device-mapper lines.
drop=""
dm_lines='*"  Creating "*|*"  Loading table for "*|*"  Resuming "*'
dm_lines=$dm_lines'|*"  Activated "*" logical volumes in volume group "*'
# pvscan-fast prints "VG x run autoactivation." twice (see the check at the end); slurp keeps
# the first when dedup=1 and counts the scenarios where a second one showed up.
dedup=0
doubled=""

# slurp VAR FILE: the file's lines, pvscan[<pid>] made pvscan[PID], drop lines left out.
slurp() {
	_s=""
	_seen=""
	while IFS= read -r _l || [ -n "$_l" ]; do
		case $_l in
		*'pvscan['[0-9]*) _l="${_l%%pvscan\[[0-9]*}pvscan[PID]${_l#*pvscan\[*\]}" ;;
		esac
		if [ -n "$drop" ]; then
			eval "case \$_l in $drop) continue ;; esac"
		fi
		if [ "$dedup" = 1 ]; then
			case $_l in
			*" run autoactivation.")
				case "$_seen" in
				*"|$_l|"*)
					case " $doubled " in
					*" $_name "*) ;;
					*) doubled="$doubled $_name" ;;
					esac
					continue ;;
				esac
				_seen="$_seen|$_l|" ;;
			esac
		fi
		_s="$_s$_l
"
	done <"$2"
	eval "$1=\$_s"
}

# dm_record FILE: name:uuid:ro:suspended of every dm device, from sysfs.
dm_record() {
	: >"$1"
	for _d in /sys/block/dm-*; do
		[ -e "$_d/dm/name" ] || continue
		read -r _dn <"$_d/dm/name"
		read -r _du <"$_d/dm/uuid"
		read -r _dr <"$_d/ro"
		read -r _ds <"$_d/dm/suspended"
		echo "$_dn:$_du:ro=$_dr:suspended=$_ds" >>"$1"
	done
}

# words FILE [SEP]: the file's lines as words; with SEP only what precedes it on each line.
words() {
	_a=""
	while IFS= read -r _l; do
		[ -z "${2:-}" ] || _l=${_l%%"$2"*}
		[ -z "$_l" ] || _a="$_a $_l"
	done <"$1"
	echo "${_a# }"
}

# same_set "A B" "B A": the same words.
same_set() {
	for _w in $1; do
		case " $2 " in *" $_w "*) ;; *) return 1 ;; esac
	done
	for _w in $2; do
		case " $1 " in *" $_w "*) ;; *) return 1 ;; esac
	done
}

show_diff() {
	printf '%s' "$2" >"$out/diff.a"
	printf '%s' "$3" >"$out/diff.b"
	echo "#   --- $1: lvm2 / +++ pvscan-fast"
	diff -u "$out/diff.a" "$out/diff.b" | sed -n '3,$s/^/#   /p'
}

# The lvm binary pvscan-fast runs for VGs it hands over: logs which, for the report.
# shellcheck disable=SC2016 # the wrapper's own variables
printf '#!/bin/sh\nfor a; do vg=$a; done\necho "$vg" >>%s/delegated\nexec lvm "$@"\n' "$work" \
	>"$work/lvm-log"
chmod 0755 "$work/lvm-log"

# run TOOL NAME "DEVS" ...: the invocations in a row, each's output appended; then what
# device-mapper has, and all of it removed.
run() {
	_t=$1
	_n=$2
	shift 2
	_f=$out/$_n.$_t
	: >"$_f.out"
	: >"$_f.err"
	_rcs=""
	set +e
	if [ "$_t" = lvm2 ]; then
		rm -rf /run/lvm
		for _devs; do
			lvm pvscan --cache -aay $V $_devs >>"$_f.out" 2>>"$_f.err"
			_rcs="$_rcs $?"
		done
	else
		pfrun=$((pfrun + 1))
		if [ "$fresh" = 0 ]; then
			_r=$work/run/$pfrun/pvscan-fast
			[ -d "$_r" ] || mkdir -p "$_r"
			printf '%s' "$seed" >"$_r/scanned"
		fi
		for _devs; do
			PVSCAN_FAST_RUN_DIR=$work/run/$pfrun PVSCAN_FAST_LVM=$work/lvm-log \
				"$PF" --cache -aay $V $_devs >>"$_f.out" 2>>"$_f.err"
			_rcs="$_rcs $?"
		done
	fi
	set -e
	echo "${_rcs# }" >"$_f.rc"
	dm_record "$_f.dm"
	[ ! -s "$_f.dm" ] || dmsetup remove_all >/dev/null 2>&1
}

# Known differences: "NAME:CHECK<tab>reason" lines; such a check is reported as XFAIL.
known=""
know() {
	known="$known
$1	$2"
}
# know_all "NAME..." CHECK REASON
know_all() {
	for _k in $1; do
		know "$_k:$2" "$3"
	done
}
check() {
	_what=$1
	shift
	case "$known" in
	*"
$_name:$_what	"*)
		_why=${known#*"
$_name:$_what	"}
		_why=${_why%%"
"*}
		if "$@"; then
			ok "$_name: $_what (the known difference did not show: $_why)"
		else
			xfail "$_name: $_what" "$_why"
		fi
		return 0 ;;
	esac
	if "$@"; then
		ok "$_name: $_what"
	else
		not_ok "$_name: $_what"
	fi
}

eq_text() {
	slurp _x "$out/$_name.lvm2.$1"
	dedup=1
	slurp _y "$out/$_name.pf.$1"
	dedup=0
	[ "$_x" = "$_y" ] && return 0
	show_diff "$1" "$_x" "$_y"
	return 1
}

# Only the lines the main comparison leaves out.
eq_dropped() {
	_keep=$drop
	drop=""
	slurp _x "$out/$_name.lvm2.$1"
	slurp _y "$out/$_name.pf.$1"
	drop=$_keep
	_re='  (Creating|Loading table for|Resuming|Activated) '
	_x=$(printf '%s' "$_x" | grep -E "$_re" || true)
	_y=$(printf '%s' "$_y" | grep -E "$_re" || true)
	[ "$_x" = "$_y" ] && return 0
	show_diff "$1" "$_x" "$_y"
	return 1
}

eq_rc() {
	read -r _x <"$out/$_name.lvm2.rc"
	read -r _y <"$out/$_name.pf.rc"
	[ "$_x" = "$_y" ] && return 0
	echo "#   exit statuses: lvm2 $_x, pvscan-fast $_y"
	return 1
}

eq_dm() {
	_x=$(words "$out/$_name.lvm2.dm")
	_y=$(words "$out/$_name.pf.dm")
	same_set "$_x" "$_y" && return 0
	show_diff dm "$(sort "$out/$_name.lvm2.dm")
" "$(sort "$out/$_name.pf.dm")
"
	return 1
}

lvm2_expected() {
	_got=$(words "$out/$_name.lvm2.dm" :)
	same_set "$_expect" "$_got" && return 0
	echo "#   lvm2 activated: ${_got:-nothing}; this script expected: ${_expect:-nothing}"
	return 1
}

# scenario NAME "EXPECTED DM NAMES" "DEVS" ...: with the configuration conf wrote last, V
# ("" or -v), drop, fresh (1: pvscan-fast's run directory starts empty, else it has seed as
# its record of a full scan). Run directories are numbered, pfrun the last one used.
V=""
fresh=0
seed=""
pfrun=0
scenario() {
	_name=$1
	_expect=$2
	shift 2
	_s0=$(now)
	: >"$work/delegated"
	run lvm2 "$_name" "$@"
	run pf "$_name" "$@"
	echo "# $_name ($(($(now) - _s0)) s):$(printf ' [%s]' "$@")${V:+ $V}"
	if [ "$SHOW" = 1 ]; then
		for _f in lvm2.rc lvm2.out lvm2.err lvm2.dm pf.rc pf.out pf.err pf.dm; do
			echo "#  $_f:"
			sed 's/^/#    /' "$out/$_name.$_f"
		done
	fi
	check "lvm2 activates ${_expect:-nothing}" lvm2_expected
	check "same LVs active" eq_dm
	check "same exit status" eq_rc
	check "same stdout" eq_text out
	check "same stderr" eq_text err
	if [ -s "$work/delegated" ]; then
		echo "#   pvscan-fast handed to lvm2: $(tr '\n' ' ' <"$work/delegated")"
	fi
}

# ---- scenarios ----

# A: flags, tags and lists over several devices at once (lvm2's process_each_vg path). Only
# VGs that never fail, so the exit status is the configuration's doing.
# shellcheck disable=SC2154
A="$dev_a $dev_b $dev_n $dev_x $dev_s $dev_i1 $dev_l1"
ALL_A="vga-a_plain vga-a_lt vga-a_host vga-a_ht vgb-b1 vgb-b2"

# The first leader since boot reads every device, lvm2 only the named ones. No LV may come up
# here (volume_list = [ ]): what shows is what pvscan-fast reads and says. Its record of the
# scan seeds the later runs, and the directories they use are made in one go.
conf 'activation {
	volume_list = [ ]
}'
fresh=1
know_all first-since-boot "same exit status" "by design: it reads and activates every device"
know_all first-since-boot "same stdout" "by design: lines for every device"
know_all first-since-boot "same stderr" "by design: errors of VGs of devices not named"
scenario first-since-boot "" "$dev_x"
fresh=0
while IFS= read -r _l; do
	seed="$seed$_l
"
done <"$work/run/$pfrun/pvscan-fast/scanned"
_dirs=""
_i=$pfrun
while [ $_i -lt $((pfrun + 30)) ]; do
	_i=$((_i + 1))
	_dirs="$_dirs $work/run/$_i/pvscan-fast"
done
mkdir -p $_dirs

conf
scenario defaults "$ALL_A" "$A"
V=-v
drop=$dm_lines
conf 'activation {
	auto_activation_volume_list = [ ]
}'
scenario auto-list-empty "" "$A"
# One entry of each kind, each matching an LV no other entry matches; the list admits
# neither a skipped LV nor one with autoactivation off.
conf 'activation {
	auto_activation_volume_list = [ "vgb", "vga/a_plain", "@lt",
		"vga/a_skip", "vga/a_noaa", "vgn/n1" ]
}'
# lvm2 -v: "Creating x", "Loading table for x (M:m).", "Resuming x (M:m).", "Activated N
# logical volumes in volume group VG.", compared on their own.
scenario auto-list "vga-a_plain vga-a_lt vgb-b1 vgb-b2" "$A"
check "lvm2's device-mapper lines (-v)" eq_dropped err
conf 'activation {
	auto_activation_volume_list = [ "", "@", "vga/", "vg", "vgb/b1" ]
}'
# lvm2 prints "Ignoring empty string in config file activation/auto_activation_volume_list."
# and "Ignoring empty tag in config file activation/auto_activation_volume_list" on stdout
# each time it meets such an entry while checking an LV against the list.
scenario auto-list-odd "vgb-b1" "$A"
conf 'activation {
	volume_list = [ ]
}'
scenario volume-list-empty "" "$A"
conf 'activation {
	volume_list = [ "@vt", "vga/a_plain", "vga/a_skip" ]
}'
scenario volume-list-mixed "vga-a_plain vgb-b1 vgb-b2" "$A"
conf 'activation {
	auto_activation_volume_list = [ "vga" ]
	volume_list = [ "@lt" ]
}'
scenario both-lists "vga-a_lt" "$A"
conf 'tags {
	hosttags = 1
}'
scenario hosttags "vga-a_host" "$A"
conf 'tags {
	ht {
	}
}
activation {
	auto_activation_volume_list = [ "@*" ]
	volume_list = [ "vga", "vgb" ]
}'
scenario auto-list-host-tags "vga-a_ht" "$A"
conf 'tags {
	ht {
	}
}'
printf 'activation {\n\tvolume_list = [ "vgb/b1", "@ht" ]\n}\n' >"$etc/lvm_ht.conf"
scenario tag-conf-file "vga-a_ht vgb-b1" "$A"
conf 'global {
	event_activation = 0
}'
scenario event-activation-off "" "$A"
V=""
drop=""

# Q: one device per invocation, as udev's per-device pvscan runs them: each completed VG is
# read alone (lvm2's quick path).
conf
# shellcheck disable=SC2154
scenario quick "vga-a_plain vga-a_lt vga-a_host vga-a_ht vgm-m1" "$dev_a" "$dev_n" "$dev_x" \
	"$dev_s" "$dev_i1" "$dev_l1" "$dev_r" "$dev_m1" "$dev_m2" "$dev_k1" "$dev_k2"
scenario quick-sysid-none "" "$dev_f" "$dev_h"
conf 'global {
	system_id_source = "lvmlocal"
}'
printf 'local {\n\tsystem_id = "pfguest"\n}\n' >"$etc/lvmlocal.conf"
scenario quick-sysid-lvmlocal "vgh-h1" "$dev_f" "$dev_h"

# B: system IDs, both VGs at once.
B="$dev_f $dev_h"
# Several devices at once: lvm2 reads the VGs through process_each_vg, whose errors differ
# from the one-device path's (pvscan-fast follows: lib/activate/aamsg.c read_failed()).
conf
scenario sysid-none "" "$B"
conf 'global {
	system_id_source = "uname"
}'
scenario sysid-uname "vgh-h1" "$B"
conf 'global {
	system_id_source = "lvmlocal"
}'
printf 'local {\n\tsystem_id = "pfguest"\n\textra_system_ids = [ "other" ]\n}\n' \
	>"$etc/lvmlocal.conf"
scenario sysid-extra "vgh-h1" "$B"

# C: VGs lvm2 refuses, their devices at once (out of order for read-only).
# Devices are reported in argument order; vg_read's warnings about stale copies and PVs
# flagged MISSING come before the VG's errors.
conf
scenario read-only "" "$dev_r $dev_x"
scenario missing-flag-unused "vgm-m1" "$dev_m1 $dev_m2"
scenario missing-flag-used "" "$dev_k1 $dev_k2"

# D: a PV on two devices. lvm2 reading every device warns about it whatever it activates.
cp --sparse=always "$work/img/d" "$work/img/d2"
dev_d2=$(losetup -f --show "$work/img/d2")
loops="$loops $dev_d2"
udevadm settle
# Named together, the first named device of a PV is used and the other ignored ("ignore DEV
# with no lvm info."); lvm2 refuses vgd ("Cannot activate LVs in VG vgd while PVs appear on
# duplicate devices.") unless allow_changes_with_duplicate_pvs is set.
# lvm2's process_each_vg path scans every device's label again and so warns about vgd's
# duplicate PV; pvscan-fast reads only the devices named (by design: no second full scan).
know "duplicate-elsewhere:same stderr" "by design: no warnings about a duplicate PV of another VG"
# shellcheck disable=SC2154
scenario duplicate-pv "" "$dev_d $dev_d2"
scenario duplicate-pv-quick "vgd-d1" "$dev_d" "$dev_d2"
scenario duplicate-elsewhere "vgb-b1 vgb-b2" "$dev_b $dev_n"
conf '' 'allow_changes_with_duplicate_pvs = 1'
scenario duplicate-pv-allowed "vgd-d1" "$dev_d $dev_d2"

# Not per scenario: one line for a doubled "run autoactivation" (slurp keeps the first).
_name=all
no_doubles() {
	[ -z "$doubled" ] && return 0
	echo "#   printed twice in:$doubled"
	return 1
}
check "each VG's \"run autoactivation\" line once" no_doubles

echo "# $(($(now) - t0)) s in all"
echo "$passes passed, $fails failed, $xfails known differences (XFAIL)"
[ "$fails" -eq 0 ]
