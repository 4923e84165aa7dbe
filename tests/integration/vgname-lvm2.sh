#!/bin/sh
# SPDX-License-Identifier: GPL-2.0-or-later
# Two VGs with one name, as when a disk from another host carries a VG named like this host's:
# against lvm2's pvscan under the same lvm.conf (see cache-lvm2.sh for how the two are
# compared), a full scan warns at label scan and refuses the ambiguous name ("Multiple VGs found
# with the same name: skipping vgsys", exit 5) while the other VGs activate; the per-device form
# activates the VG of the first device and skips the other name; the first coalescing leader
# since boot, which reads every device, refuses the name as a full scan does; a foreign VG with
# the name is no ambiguity (it is not this host's).
#
# The VGs are made here with lvm2, on scratch images (lvm2 refuses a second VG with a name it
# can see, so each is made with only its own device visible).
. "$(dirname "$0")/../lib/test-lib.sh"
t_require lvm unshare mount truncate losetup cmp diff find sed
. "$(dirname "$0")/../lib/lvm2-side.sh"

conf() {
	t_lvm_conf "$ETC" "$1" "$T_CONF_NO_LISTS" "$(t_conf_events)"
}

conf ""
mkvg sys vgsys root
SYS=$T_DEV
mkvg usb vgsys usb
USB=$T_DEV
mkvg other vgother lv
OTHER=$T_DEV
mkvg foreign vgsys lv otherhost
FOREIGN=$T_DEV

# Both local VGs named vgsys seen: lvm2's label scan warns (naming the later device's VG
# first), and its activation skips the name.
conf "$SYS $USB $OTHER"
fresh
step "full -aay, two VGs named vgsys" --state-except "$FULL_EXCEPT" --cache -aay \
	--driverloaded n
fresh
step "full --cache, two VGs named vgsys" --state-except "$FULL_EXCEPT" --cache

# One device at a time, as udev calls: the first VG claims the name, the other is skipped.
fresh
step "per device: the late disk's vgsys first" --cache -aay "$USB" --driverloaded n
step "per device: then the host's vgsys" --cache -aay "$SYS" --driverloaded n
step "per device: then vgother" --cache -aay "$OTHER" --driverloaded n

# The first coalescing leader since boot reads every device: it refuses the name as a full
# scan does, whichever device's event came first, and activates the rest.
fresh
cat >"$T_DIR/lvm-log" <<EOF
#!/bin/sh
for a; do vg=\$a; done
echo "\$vg" >>"$T_DIR/activated"
EOF
chmod +x "$T_DIR/lvm-log"
: >"$T_DIR/activated"
LVM_SYSTEM_DIR="$ETC" PVSCAN_FAST_RUN_DIR="$PF/lvm" PVSCAN_FAST_LOCK_DIR="$PF/lock/lvm" \
	PVSCAN_FAST_LVM="$T_DIR/lvm-log" "$PVSCAN_FAST" --cache -aay "$USB" --driverloaded n \
	>"$T_DIR/o.out" 2>"$T_DIR/o.err"
rc=$?
if [ "$rc" -eq 5 ] && grep -qx "  Multiple VGs found with the same name: skipping vgsys" \
	"$T_DIR/o.err" && [ "$(cat "$T_DIR/activated")" = vgother ]; then
	t_pass "first leader since boot: vgsys refused, vgother activated"
else
	t_fail "first leader since boot: status $rc, activated '$(cat "$T_DIR/activated")'"
	sed 's/^/#   /' "$T_DIR/o.out" "$T_DIR/o.err"
fi

# A VG with another host's system ID is not this host's: no ambiguity, no warning.
conf "$SYS $OTHER $FOREIGN"
fresh
step "full -aay, vgsys and a foreign vgsys" --state-except "$FULL_EXCEPT" --cache -aay \
	--driverloaded n

t_done
