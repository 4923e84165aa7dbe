#!/bin/sh
# Which devices pvscan-fast accepts and rejects, against lvm2's pvscan under the same lvm.conf:
# global_filter/filter (delimiters, symlink names), devices/types, pv_min_size, the devices
# file (loop_file and devname entries, --devicesfile), system IDs (lvmlocal, uname, file,
# machineid, appmachineid) against foreign VGs and the host's own, exported and shared VGs,
# partitioned devices. Per device and for full scans, the lines, exit status and /run/lvm must
# match (see cache-lvm2.sh for how).
#
# Everything runs in a private mount namespace. The symlinks the filters name live in an
# overlay mounted over /dev there, whose upper layer is in the scratch directory: the host's
# /dev is never written to. (A tmpfs over a /dev subdirectory would not do: lvm2, and
# pvscan-fast with it, skips directories on another filesystem when it walks /dev.) The VGs
# that need changing (system ID, export, lock type, tiny PV, partition table) are copies of
# fixture images in the scratch directory, changed there with lvm2; committed fixtures are
# only read.
if [ -z "${PF_FILTERS_NS:-}" ]; then
	[ "$(id -u)" -eq 0 ] || { echo "SKIP: needs root"; exit 77; }
	command -v unshare >/dev/null 2>&1 || { echo "SKIP: needs unshare"; exit 77; }
	PF_FILTERS_NS=1 exec unshare --mount --propagation private sh "$0" "$@"
fi
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz lvm unshare mount cmp diff find sed truncate dd
. "$(dirname "$0")/../lib/lvm2-side.sh"
BYID=/dev/disk/by-id
PLAIN=/dev/pvscan-fast-test

# conf [DEVICES_LINES [GLOBAL_LINES [FILTER]]]: lvm.conf; global_filter accepts only our devices
# (FILTER instead: the devices for t_lvm_conf) and the devices file is off unless DEVICES_LINES
# say otherwise.
conf() {
	df="use_devicesfile = 0
	"
	case "${1:-}" in *use_devicesfile*) df="" ;; esac
	t_lvm_conf "$ETC" "${3:-$ORDER}" "${df}obtain_device_list_from_udev = 0
	${1:-}" "$(t_conf_events "${2:-}")"
	rm -f "$ETC/lvmlocal.conf"
}

# use DEV: a device of ours (global_filter accepts it from the next conf on).
use() {
	ORDER="$ORDER $1"
}

# copy FIXTURE IMG NAME: a writable copy of a fixture image, attached; device in T_DEV.
copy() {
	t_attach_rw "$(t_unpack "$FIXTURES/$1/$2.img.xz" "$3.img")" "${4:-}"
}

# An msdos partition table with one partition (sectors 2048-43007) in sector 0, which LVM2
# leaves alone: lvm2 then calls the PV partitioned wherever the device is partitionable.
add_mbr() {
	printf '\000\000\000\000\216\000\000\000\000\010\000\000\000\240\000\000' |
		dd of="$1" bs=1 seek=446 conv=notrunc status=none
	printf '\125\252' | dd of="$1" bs=1 seek=510 conv=notrunc status=none
}

# --- the devices -------------------------------------------------------------------------

ORDER=""
for img in d1 d2; do
	t_attach "$(t_unpack "$FIXTURES/two-pv/$img.img.xz" "two-pv-$img.img")"
	use "$T_DEV"
done
A1=${ORDER# }
A1=${A1%% *}
t_attach "$(t_unpack "$FIXTURES/orphan/d1.img.xz" orphan.img)"
O=$T_DEV
use "$O"
truncate -s 3M "$T_DIR/tiny.img"
t_attach_rw "$T_DIR/tiny.img"
TINY=$T_DEV
use "$TINY"
copy hyphens d1 foreign
FOREIGN=$T_DEV
use "$FOREIGN"
copy single d1 ours-id
OURS_ID=$T_DEV
use "$OURS_ID"
copy two-mdas d1 exported
EXPORTED=$T_DEV
use "$EXPORTED"
copy wrap d1 shared
SHARED=$T_DEV
use "$SHARED"
# no-mda's two PVs with a partition table each: M1 partitionable (partscan), M2 not.
for img in d1 d2; do
	f=$(t_unpack "$FIXTURES/no-mda/$img.img.xz" "no-mda-$img.img")
	add_mbr "$f"
	if [ "$img" = d1 ]; then
		t_attach_rw "$f" -P
		M1=$T_DEV
	else
		t_attach_rw "$f"
		M2=$T_DEV
	fi
	use "$T_DEV"
done

conf
fail_setup() {
	t_fail "setup: $*"
	t_done
	exit 1
}
lvm_tool pvcreate "$TINY" >/dev/null 2>&1 || fail_setup "pvcreate tiny"
lvm_tool vgcreate vgtiny "$TINY" >/dev/null 2>&1 || fail_setup "vgcreate vgtiny"
lvm_tool vgchange --yes --systemid hostB my-vg >/dev/null 2>&1 || fail_setup "systemid hostB"
lvm_tool vgchange --yes --systemid hostA vg0 >/dev/null 2>&1 || fail_setup "systemid hostA"
lvm_tool vgexport vgmda2 >/dev/null 2>&1 || fail_setup "vgexport"
lvm_tool vgcfgbackup -f "$T_DIR/shared.vg" vgwrap >/dev/null 2>&1 || fail_setup "vgcfgbackup"
sed -i 's/^\(\tseqno = .*\)$/\1\n\tlock_type = "sanlock"\n\tlock_args = "1.0.0:lvmlock"/' \
	"$T_DIR/shared.vg"
lvm_tool vgcfgrestore --force -f "$T_DIR/shared.vg" vgwrap >/dev/null 2>&1 ||
	fail_setup "vgcfgrestore with lock_type"

# Symlinks the filters can name, in the overlay (every loop device is attached by now):
# udev-style by-id names (lvm2 then maps all of /dev first) and plain ones.
mkdir "$T_DIR/dev-upper" "$T_DIR/dev-work"
mount -t overlay pvscan-fast-test \
	-o "lowerdir=/dev,upperdir=$T_DIR/dev-upper,workdir=$T_DIR/dev-work" /dev ||
	t_skip "cannot mount an overlay over /dev in a private namespace"
mkdir -p "$BYID" "$PLAIN"
for d in $ORDER; do
	ln -s "../../${d#/dev/}" "$BYID/lvm-pv-uuid-${d##*/}"
	ln -s "../${d#/dev/}" "$PLAIN/${d##*/}"
done

# --- the comparisons ---------------------------------------------------------------------

# vg0 and my-vg carry system IDs, so with no (or another) host ID they are complete but cannot
# be activated. lvm2's pvscan activates in-process and says "activation for VG X cannot read
# (400)."; pvscan-fast runs `vgchange -aay`, which says "Cannot access VG ..." once more and
# exits 5, and then pvscan-fast says "X: autoactivation failed.". Both exit 5 (compared).
# shellcheck disable=SC2034 # ERR_*: read by step()
ERR_IGNORE='pvscan\[PID\] activation for VG [^ ]* cannot read \(400\)\.$|'
ERR_IGNORE="$ERR_IGNORE"'pvscan\[PID\] [^ ]*: autoactivation failed\.$'
# shellcheck disable=SC2034
ERR_UNIQ=1
# lvm2's vgchange (pvscan-fast's activation) first reads the VG's online PVs by the names in
# pvs_online, one by one as pvscan's per-device form does; where that misses one (a PV taken
# by a symlink name the per-device filter does not map) it says so and reads all devices,
# which lvm2's in-process activation after a full scan never has to. The result is the same.
# shellcheck disable=SC2034
OURS_EXTRA='^  /dev/[^ ]* (excluded[: ].*|not an lvm device\.)$|'
OURS_EXTRA="$OURS_EXTRA"'^  PVs online (not found|incomplete) for VG [^ ]*, using all devicess?\.$'
# Each lvm process says this once; pvscan-fast's vgchange is another process.
# shellcheck disable=SC2034
ERR_ONCE='^  Please remove the lvm\.conf (global_)?filter, it is ignored with the devices file\.$'

# scenario NAME [--no-full] [ARGS...]: every device through `--cache -aay DEV ARGS`, then a full
# `--cache -aay ARGS` (not with --no-full: a scan of every device on this shared machine).
scenario() {
	name=$1
	shift
	full=1
	if [ "${1:-}" = --no-full ]; then
		full=0
		shift
	fi
	fresh
	for d in $ORDER; do
		step "$name: --cache -aay $d" --cache -aay "$d" "$@" --driverloaded n
	done
	# Devices named by a symlink: lvm2 takes the name given.
	fresh
	for d in "$A1" "$TINY"; do
		for l in "$BYID/lvm-pv-uuid-${d##*/}" "$PLAIN/${d##*/}"; do
			step "$name: --cache -aay $l" --cache -aay "$l" "$@" --driverloaded n
		done
	done
	[ "$full" -eq 1 ] || return 0
	fresh
	step "$name: full --cache -aay" --state-except "$FULL_EXCEPT" --cache -aay "$@" \
		--driverloaded n
}

conf
scenario "no filters beyond ours"

conf "filter = [ \"r|^$TINY\$|\", \"a|.*|\" ]" 
scenario "filter rejects one"

conf "" "" "!$O $ORDER"
scenario "global_filter rejects one"

# Delimiters lvm2 accepts: any character, and (), [], {} in pairs.
# shellcheck disable=SC2086
set -- $ORDER
conf "filter = [ \"r#^$1\$#\", \"a{^$2\$}\", \"r(^$TINY\$)\", \"r[^$M2\$]\", \"a/loop/\" ]"
scenario "filter delimiters"

# By-id names: lvm2 (and pvscan-fast) map /dev's symlinks first, and show the accepted name.
conf "global_filter = [ \"a|^$BYID/lvm-pv-uuid-|\", \"r|.*|\" ]"
scenario "global_filter by symlink"

# Plain symlink names: the per-device form does not look for them, only full scans do.
conf "global_filter = [ \"a|^$PLAIN/|\", \"r|.*|\" ]"
scenario "global_filter by plain symlink"

# Rejecting by symlink: only a full scan knows the name.
conf "filter = [ \"r|^$BYID/lvm-pv-uuid-${O##*/}\$|\", \"a|.*|\" ]"
scenario "filter rejects a symlink"

# devices/types overrides lvm2's partition count for loop: partitionable when it divides the
# minor, so M2's partition table now counts (for minors 0 and >= 2).
m2minor=$(devno "$M2")
m2minor=${m2minor#*:}
[ "$m2minor" -ge 2 ] || m2minor=16
conf "types = [ \"loop\", $m2minor ]"
scenario "types loop $m2minor"
# Malformed devices/types: both refuse to start (exit 4); pvscan-fast names file, line and
# column where lvm2 says "in config file", so stderr is not compared.
conf "types = [ \"loop\" ]"
fresh
step "types without a count" --any-stderr --cache -aay "$A1" --driverloaded n
conf "types = [ \"loop\", 0 ]"
step "types with count 0" --any-stderr --cache -aay "$A1" --driverloaded n
conf "types = [ \"fd\", 16, \"nosuchtype\", 4 ]"
scenario "types unknown names"

conf "pv_min_size = 4096"
scenario "pv_min_size 4096"

# The devices file, written by lvm2's lvmdevices: loop_file entries for two-pv's first PV, the
# tiny PV and the foreign one; lvm2 ignores global_filter then, so full scans read every
# device on the machine: only the per-device form is compared for devname entries.
rm -rf "$ETC/devices"
conf "use_devicesfile = 1"
for d in "$A1" "$TINY" "$FOREIGN"; do
	lvm_tool lvmdevices --yes --adddev "$d" >/dev/null 2>&1 || fail_setup "lvmdevices $d"
done
scenario "devices file (loop_file)"
scenario "--devicesfile \"\"" --no-full --devicesfile ""
cp "$ETC/devices/system.devices" "$ETC/devices/other.devices"
rm "$ETC/devices/system.devices"
scenario "--devicesfile other.devices" --devicesfile other.devices
scenario "no system.devices"
for d in "$A1" "$O" "$M1"; do
	lvm_tool lvmdevices --yes --adddev "$d" --deviceidtype devname >/dev/null 2>&1 ||
		fail_setup "lvmdevices devname $d"
done
scenario "devices file (devname)" --no-full
rm -rf "$ETC/devices"

# System IDs: my-vg has hostB, vg0 hostA.
conf "" "system_id_source = \"lvmlocal\""
printf 'local {\n\tsystem_id = "hostA"\n}\n' >"$ETC/lvmlocal.conf"
scenario "system ID from lvmlocal"
conf "" "system_id_source = \"uname\""
scenario "system ID from uname"
echo hostA >"$T_DIR/system-id"
conf "" "system_id_source = \"file\"
	system_id_file = \"$T_DIR/system-id\""
scenario "system ID from a file"
if [ -s /etc/machine-id ]; then
	conf "" "system_id_source = \"machineid\""
	scenario "system ID from machine-id"
fi

# The host's own ID from each source lvm2 derives it from (appmachineid through libsystemd):
# vg0 takes what `lvm systemid` prints, so it is ours, not foreign, only where pvscan-fast
# derives the same ID. A source lvm2 gets no ID from here is left out.
VG0_ID=hostA
for src in uname machineid appmachineid; do
	conf "" "system_id_source = \"$src\""
	id=$(lvm_tool systemid 2>/dev/null | sed -n 's/^ *system ID: *//p')
	[ -n "$id" ] || continue
	lvm_tool vgchange --yes --systemid "$id" --config "local/extra_system_ids=[\"$VG0_ID\"]" \
		vg0 >/dev/null 2>&1 || fail_setup "systemid $id ($src)"
	VG0_ID=$id
	scenario "own system ID from $src"
done

t_done
