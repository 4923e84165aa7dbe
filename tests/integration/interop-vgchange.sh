#!/bin/sh
# Interop: after pvscan-fast --cache, lvm2's own event activation
# (vgchange -aay --autoactivation event VG) takes its device list from the
# pvs_online files pvscan-fast wrote: its debug log names each of them, and it
# does not fall back to scanning all devices.
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz lvm unshare

fx="$FIXTURES/two-pv"
d1=$(t_unpack "$fx/d1.img.xz" d1.img)
d2=$(t_unpack "$fx/d2.img.xz" d2.img)
t_attach "$d1"; l1=$T_DEV
t_attach "$d2"; l2=$T_DEV

mkdir -p "$T_DIR/run"
t_lvm_conf "$T_DIR/etc" "$l1 $l2"
export LVM_SYSTEM_DIR="$T_DIR/etc" LVM_SUPPRESS_FD_WARNINGS=1
export PVSCAN_FAST_RUN_DIR="$T_DIR/run/lvm" PVSCAN_FAST_LOCK_DIR="$T_DIR/run/lock/lvm"
mkdir -p "$T_DIR/run/lock/lvm"

# The udev form for both PVs: the second completes the VG.
for l in "$l1" "$l2"; do
	"$PVSCAN_FAST" --cache --listvg --checkcomplete --vgonline --autoactivation event \
		--udevoutput "$l" >>"$T_DIR/udev.out"
done
if grep -qx "LVM_VG_NAME_COMPLETE='vgtwo'" "$T_DIR/udev.out"; then
	t_pass "pvscan-fast found vgtwo complete"
else
	t_fail "pvscan-fast did not report vgtwo complete"
	cat "$T_DIR/udev.out"
fi

# lvm2 with pvscan-fast's state as its /run/lvm, as after a boot.
unshare --mount --propagation private sh -c '
	mount -t tmpfs none /run && mkdir -p /run/lvm /run/lock/lvm &&
	mount --bind "$1/run/lvm" /run/lvm && shift && exec "$@"' x "$T_DIR" \
	lvm vgchange -aay --autoactivation event vgtwo --driverloaded n -vvvv \
	>"$T_DIR/vgchange.out" 2>"$T_DIR/vgchange.log"
for l in "$l1" "$l2"; do
	# lvm2 2.03.16 logs "Found PV online [lookup] /run/lvm/pvs_online/<PVID> for VG vgtwo on DEV".
	if grep -q "Found PV online.* /run/lvm/pvs_online/[A-Za-z0-9]* for VG vgtwo on $l\$" \
		"$T_DIR/vgchange.log"; then
		t_pass "vgchange took $l from pvscan-fast's pvs_online"
	else
		t_fail "vgchange did not use pvscan-fast's pvs_online for $l"
	fi
done
if grep -q "using all device" "$T_DIR/vgchange.out" "$T_DIR/vgchange.log"; then
	t_fail "vgchange fell back to scanning all devices"
else
	t_pass "vgchange did not fall back to scanning all devices"
fi
t_done
