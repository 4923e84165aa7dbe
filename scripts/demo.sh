#!/bin/sh
# The main job, shown on loop devices: attach a few PVs made by lvm2 (from the
# committed fixtures), run `pvscan-fast --cache --activate ay` the way udev
# would (one call per device) and once as a full scan, with a private run dir,
# and show what it printed and the /run/lvm-style state it wrote. Detaches
# exactly the devices it attached. Needs root (loop devices).
set -u
top=$(cd "$(dirname "$0")/.." && pwd)
bin=${PVSCAN_FAST:-$top/pvscan-fast/pvscan-fast}
[ -x "$bin" ] || { echo "demo: build first (make)"; exit 1; }
top_srcdir=$top
# shellcheck source=tests/lib/test-lib.sh
. "$top/tests/lib/test-lib.sh" # t_lvm_conf
[ "$(id -u)" -eq 0 ] || { echo "demo: needs root to attach loop devices"; exit 1; }

work=$(mktemp -d /tmp/pvscan-fast-demo.XXXXXX)
loops=""
cleanup() {
	for l in $loops; do losetup -d "$l" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# attach FIXTURE_IMAGE NAME: the loop device is left in $dev (no subshell, so
# $loops, the list cleanup detaches, stays complete).
attach() {
	xz -dc "$1" | dd of="$work/$2" bs=64k conv=sparse status=none
	dev=$(losetup -f --show -r "$work/$2") || exit 1
	loops="$loops $dev"
}

echo "== Attaching PVs made by lvm2 2.03.16 (tests/fixtures)"
attach "$top/tests/fixtures/two-pv/d1.img.xz" two-pv-d1.img; d1=$dev
attach "$top/tests/fixtures/two-pv/d2.img.xz" two-pv-d2.img; d2=$dev
attach "$top/tests/fixtures/single/d1.img.xz" single-d1.img; d3=$dev
attach "$top/tests/fixtures/orphan/d1.img.xz" orphan-d1.img; d4=$dev
echo "   $d1 $d2: VG vgtwo (2 PVs)   $d3: VG vg0   $d4: orphan PV"

export PVSCAN_FAST_RUN_DIR="$work/run" PVSCAN_FAST_LOCK_DIR="$work/lock"
t_lvm_conf "$work/etc" "$loops"
export LVM_SYSTEM_DIR="$work/etc"

echo
echo "== udev-style, one call per device: pvscan-fast --cache --listvg --checkcomplete --vgonline --udevoutput DEV"
for l in $loops; do
	printf '   %s -> ' "$l"
	out=$("$bin" --cache --listvg --checkcomplete --vgonline --autoactivation event --udevoutput "$l")
	echo "${out:-(nothing)}  [exit $?]"
done

echo
echo "== Full scan: pvscan-fast --cache (clears and rebuilds the state)"
"$bin" --cache
echo "   exit $?"

echo
echo "== The state it wrote under \$PVSCAN_FAST_RUN_DIR (lvm2's /run/lvm layout)"
(cd "$work/run" && for f in pvs_online/* vgs_online/* pvs_lookup/*; do
	[ -e "$f" ] || continue
	printf '   %-46s %s  ' "$f" "$(stat -c %A "$f")"
	tr '\n' '|' <"$f"
	echo
done)

echo
echo "== Why a device is what it is: pvscan-fast --dump $d4"
"$bin" --dump "$d4" | sed 's/^/   /'
echo
echo "(detaching $loops)"
