#!/bin/sh
# pvscan-fast's --cache forms side by side with lvm2's pvscan on the lvm2-made fixtures: same
# stdout, stderr, exit status and /run/lvm after every step, in several device orders.
#
# How the two are made comparable:
# - lvm2 has /run/lvm compiled in, so it runs in a private mount namespace with a directory of
#   ours bind-mounted over /run ($L2); pvscan-fast gets PVSCAN_FAST_RUN_DIR=$PF/lvm. Only the
#   lvm/ subdirectories are compared (lvm2 also creates lock/lvm there; pvscan-fast takes no
#   file locks).
# - Both get the same argv, --driverloaded n included (this kernel has no device-mapper), and
#   the same LVM_SYSTEM_DIR, whose global_filter accepts only the loop devices attached here.
# - pvscan-fast activates complete VGs by running PVSCAN_FAST_LVM, here a wrapper that runs
#   `lvm vgchange -aay --autoactivation event VG --driverloaded n` with /run bound to $PF, so it
#   sees pvscan-fast's pvs_online files as lvm2's in-process activation sees its own. Both then
#   print "0 logical volume(s) in volume group ... now active" and exit 0.
# - stdout: identical but for the PID in "pvscan[PID]".
# - stderr: identical but for the PID, after dropping lvm2's "WARNING: Activation disabled. No
#   device-mapper interaction will be attempted.": --driverloaded n makes every lvm process
#   print it once, lvm2's pvscan once in all, pvscan-fast once per VG it activates (one
#   vgchange each). It is the only device-mapper line lvm2 prints in these runs. The program's
#   own name is the other deliberate difference: "Run `pvscan-fast --help'", and getopt's
#   "pvscan-fast: unrecognized option" where lvm2 says "pvscan".
# - state: names, types, modes, sizes and bytes of every entry under lvm/. After a full
#   `pvscan --cache` lvm2 writes its device hints (hints) and drops newhints; that is the
#   hints module's business, which pvscan-fast leaves to the next lvm command, so those two
#   names are not compared for full scans (they are for every per-device step).
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz lvm unshare mount cmp diff find sed
. "$(dirname "$0")/../lib/lvm2-side.sh"

# write_conf "DEV...": lvm.conf for exactly these devices; hints stay lvm2's default.
write_conf() {
	t_lvm_conf "$ETC" "$1" "$T_CONF_NO_LISTS" "$(t_conf_events)"
}

UDEV="--cache --listvg --checkcomplete --vgonline --autoactivation event --udevoutput"
UDEV="$UDEV --journal=output"

reverse() {
	for d in "$@"; do
		echo "$d"
	done | tac | tr '\n' ' '
}

# every_form NAME DEV...: the whole sequence on one set of attached devices.
every_form() {
	name=$1
	shift
	write_conf "$*"
	rev=$(reverse "$@")

	orders="forward reverse"
	[ $# -gt 1 ] || orders=forward
	for order in $orders; do
		fresh
		list="$*"
		[ "$order" = forward ] || list=$rev
		last=""
		for d in $list; do
			step "$name: $order --cache -aay $d" --cache -aay "$d" --driverloaded n
			last=$d
		done
		step "$name: $order repeat --cache -aay $last" --cache -aay "$last" --driverloaded n
	done

	# On the complete state: the listing forms.
	for d in "$@"; do
		# shellcheck disable=SC2086
		step "$name: udev form $d (state complete)" $UDEV "$d" --driverloaded n
		step "$name: --listlvs --checkcomplete $d (state complete)" \
			--cache --listlvs --checkcomplete "$d" --driverloaded n
		step "$name: --listvg $d" --listvg "$d" --driverloaded n
		step "$name: --listlvs $d" --listlvs "$d" --driverloaded n
	done

	# From nothing: the plain form, then the listing forms as PVs appear one by one.
	fresh
	step "$name: --listvg $1 (no state)" --listvg "$1" --driverloaded n
	fresh
	for d in "$@"; do
		step "$name: --cache $d" --cache "$d" --driverloaded n
	done
	fresh
	for d in "$@"; do
		# shellcheck disable=SC2086
		step "$name: udev form $d" $UDEV "$d" --driverloaded n
	done
	# shellcheck disable=SC2086
	step "$name: udev form $1 again" $UDEV "$1" --driverloaded n
	fresh
	for d in "$@"; do
		step "$name: --listvg --checkcomplete --vgonline $d" \
			--cache --listvg --checkcomplete --vgonline "$d" --driverloaded n
	done
	fresh
	for d in "$@"; do
		step "$name: --listlvs --checkcomplete $d" \
			--cache --listlvs --checkcomplete "$d" --driverloaded n
	done

	# Devices by number: MAJ:MIN, then --major/--minor, then all at once.
	fresh
	for d in "$@"; do
		n=$(devno "$d")
		step "$name: --cache -aay $n" --cache -aay "$n" --driverloaded n
	done
	fresh
	for d in "$@"; do
		n=$(devno "$d")
		step "$name: --cache -aay --major ${n%:*} --minor ${n#*:}" \
			--cache -aay --major "${n%:*}" --minor "${n#*:}" --driverloaded n
	done
	fresh
	step "$name: --cache -aay with every device" --cache -aay "$@" --driverloaded n

	# Full scans: from nothing, over a complete state, and with activation.
	fresh
	step "$name: full --cache" --state-except "$FULL_EXCEPT" --cache --driverloaded n
	step "$name: full --cache again" --state-except "$FULL_EXCEPT" --cache --driverloaded n
	step "$name: full --cache -aay" --state-except "$FULL_EXCEPT" --cache -aay --driverloaded n
	step "$name: full --cache -aay again" --state-except "$FULL_EXCEPT" \
		--cache -aay --driverloaded n

	# event_activation=0 and an unknown --autoactivation value change nothing (the same for
	# any fixture: checked on the first set and on the mix).
	[ "$name" = two-pv ] || [ "$name" = mix ] || return 0
	fresh
	step "$name: event_activation=0 -aay" --config global/event_activation=0 \
		--cache -aay "$1" --driverloaded n
	step "$name: event_activation=0 --cache" --config global/event_activation=0 \
		--cache "$1" --driverloaded n
	# shellcheck disable=SC2086
	step "$name: event_activation=0 udev form" --config global/event_activation=0 \
		$UDEV "$1" --driverloaded n
	step "$name: event_activation=0 --listlvs" --config global/event_activation=0 \
		--cache --listlvs --checkcomplete "$1" --driverloaded n
	step "$name: event_activation=0 full --cache" --state-except "$FULL_EXCEPT" \
		--config global/event_activation=0 --cache --driverloaded n
	fresh
	step "$name: --autoactivation foo" --cache -aay --autoactivation foo "$1" --driverloaded n
	step "$name: --listvg --autoactivation foo" \
		--cache --listvg --autoactivation foo "$1" --driverloaded n
}

# attach FIXTURE...: every image of these fixtures; devices in DEVS, in fixture order.
attach() {
	DEVS=""
	for name in "$@"; do
		while read -r img _pvid _old; do
			f="$T_DIR/$name-$img"
			[ -f "$f" ] || t_unpack "$FIXTURES/$name/$img.xz" "$name-$img" >/dev/null
			t_attach "$f"
			DEVS="$DEVS $T_DEV"
		done <"$FIXTURES/$name/devices"
	done
}

detach_all() {
	for d in $DEVS; do
		t_detach "$d"
	done
	DEVS=""
}

# removal NAME DEV...: the last device goes away; `pvscan --cache M:m` forgets it.
removal() {
	name=$1
	shift
	fresh
	for d in "$@"; do
		run_lvm2 --cache -aay "$d" --driverloaded n >/dev/null 2>&1
		run_ours --cache -aay "$d" --driverloaded n >/dev/null 2>&1
	done
	same_state "$name: before removal" || t_fail "$name: state before removal"
	for gone in "$@"; do :; done
	n=$(devno "$gone")
	t_detach "$gone"
	DEVS=$(echo "$DEVS" | tr ' ' '\n' | grep -vx "$gone" | tr '\n' ' ')
	# The node stays; a new binding (someone else's attach) would make the devno resolve.
	if [ -e "/sys/dev/block/$n/loop/backing_file" ]; then
		echo "# $name: $n was reused by someone else; removal not compared"
		return
	fi
	removal_step "$n" "$name: removal --cache $n" --cache "$n" --driverloaded n
	removal_step "$n" "$name: removal --cache $n again" --cache "$n" --driverloaded n
	removal_step "$n" "$name: removal --cache --major/--minor of $n" \
		--cache --major "${n%:*}" --minor "${n#*:}" --driverloaded n
	removal_step "$n" "$name: removal --cache -aay $n" --cache -aay "$n" --driverloaded n
	step "$name: removed $gone by name" --cache -aay "$gone" --driverloaded n
}

# removal_step DEVNO STEP...: a step on a devno that is gone. Loop devices are shared with other
# work: if someone binds the devno while lvm2 and we run, the two saw different devices, and
# the step says so instead of failing.
removal_step() {
	_n=$1
	shift
	_before=$T_FAILS
	step "$@"
	# Bound now, or bound while one side ran and gone again: that side says it found no
	# device only when the devno was free for it.
	if [ "$T_FAILS" -gt "$_before" ] && { [ -e "/sys/dev/block/$_n/loop/backing_file" ] ||
		! grep -q "No device" "$T_DIR/l.err" || ! grep -q "No device" "$T_DIR/o.err"; }; then
		T_FAILS=$_before
		echo "# $1: $_n was bound by someone else during the step; not compared"
	fi
}

# labelsector: labels in sectors 0 and 3. lvm2's full scans find them and are compared as usual.
# Its per-device form looks at sector 1 only (label_read_pvid) and says "not an lvm device";
# pvscan-fast, on purpose, accepts a label wherever lvm2's full scan does, in every form. So per
# device lvm2 must say exactly that and pvscan-fast must record the PV: its state after the
# per-device -aay calls must equal lvm2's after a full `pvscan --cache -aay`.
labelsector() {
	write_conf "$*"
	fresh
	for d in "$@"; do
		run_lvm2 --cache -aay "$d" --driverloaded n >"$T_DIR/l.out" 2>"$T_DIR/l.err"
		lrc=$?
		run_ours --cache -aay "$d" --driverloaded n >"$T_DIR/o.out" 2>"$T_DIR/o.err"
		orc=$?
		if [ "$lrc" -eq 0 ] && [ "$orc" -eq 0 ] &&
			[ "$(norm "$T_DIR/l.out")" = "  pvscan[PID] $d not an lvm device." ] &&
			grep -q "^  pvscan\[[0-9]*\] PV $d online, VG vglabel[03] is complete\.$" \
				"$T_DIR/o.out"; then
			t_pass "labelsector: --cache -aay $d: lvm2 skips it, pvscan-fast records it"
		else
			t_fail "labelsector: --cache -aay $d (lvm2 $lrc, ours $orc)"
			cat "$T_DIR/l.out" "$T_DIR/o.out"
		fi
	done
	rm -rf "$L2"
	mkdir -m 0755 "$L2"
	run_lvm2 --cache -aay --driverloaded n >/dev/null 2>&1
	if same_state "labelsector" "$FULL_EXCEPT"; then
		t_pass "labelsector: per-device state = lvm2's full-scan state"
	else
		t_fail "labelsector: per-device state = lvm2's full-scan state"
	fi
	fresh
	step "labelsector: full --cache" --state-except "$FULL_EXCEPT" --cache --driverloaded n
	# pvscan-fast activates through `vgchange -aay --autoactivation event VG`, and lvm2's
	# vgchange, reading the online PVs per device as pvscan does, misses these labels too and
	# says so before it falls back to a full scan; lvm2's pvscan activates in-process.
	# shellcheck disable=SC2034 # read by step()
	OURS_EXTRA='^  /dev/loop[0-9]+ not an lvm device\.$|'
	OURS_EXTRA="$OURS_EXTRA"'^  PVs online not found for VG vglabel[03], using all devices\.$'
	step "labelsector: full --cache -aay" --state-except "$FULL_EXCEPT" \
		--cache -aay --driverloaded n
	# shellcheck disable=SC2034
	OURS_EXTRA=""
}

for name in two-pv three-pv no-mda single orphan ignored-mda two-mdas hyphens many-lvs wrap \
	bootloader segtypes; do
	attach "$name"
	# shellcheck disable=SC2086
	every_form "$name" $DEVS
	# shellcheck disable=SC2086
	removal "$name" $DEVS
	detach_all
done
attach labelsector
# shellcheck disable=SC2086
labelsector $DEVS
detach_all

# Several fixtures at once, in an order that interleaves VGs.
attach no-mda single orphan two-pv ignored-mda hyphens
# shellcheck disable=SC2086
set -- $DEVS
MIX="$1 $5 $3 $7 $2 $4 $9 $6 $8"
# shellcheck disable=SC2086
every_form mix $MIX
# shellcheck disable=SC2086
removal mix $MIX
detach_all

# A PV on two devices: an exact copy (the same size: the device seen first is used), then the
# copy on a bigger device (the size the metadata records decides in a full scan), each in
# both orders. Named together, lvm2 uses the first named and ignores the other.
attach single
cp --sparse=always "$T_DIR/single-d1.img" "$T_DIR/dup-same.img"
t_attach "$T_DIR/dup-same.img"
DEVS="$DEVS $T_DEV"
# shellcheck disable=SC2086
every_form duplicate $DEVS
t_detach "$T_DEV"
DEVS=$(echo "$DEVS" | tr ' ' '\n' | grep -vx "$T_DEV" | tr '\n' ' ')
cp --sparse=always "$T_DIR/single-d1.img" "$T_DIR/dup-big.img"
truncate -s +4M "$T_DIR/dup-big.img"
t_attach "$T_DIR/dup-big.img"
# shellcheck disable=SC2086
every_form duplicate-bigger $T_DEV $DEVS
DEVS="$DEVS $T_DEV"
detach_all

# Command-line errors and odd forms, on one device.
attach single
D=${DEVS# }
write_conf "$D"
fresh
step "options after the device" --cache "$D" -aay --driverloaded n
fresh
step "-ay" --cache -ay "$D" --driverloaded n
step "-a n" --cache -an "$D" --driverloaded n
step "--major without --minor" --cache --major 7 --driverloaded n
step "--minor without --major" --cache --minor 0 --driverloaded n
step "--listvg with two devices" --cache --listvg "$D" "$D" --driverloaded n
step "--listvg without a device" --cache --listvg --driverloaded n
step "--listlvs with two devices" --listlvs "$D" "$D" --driverloaded n
step "--vgonline without --listvg" --cache --vgonline "$D" --driverloaded n
step "--checkcomplete without --listvg" --cache --checkcomplete "$D" --driverloaded n
step "--udevoutput without --listvg" --cache --udevoutput "$D" --driverloaded n
step "--listvg --activate ay" --cache --listvg -aay "$D" --driverloaded n
step "bad MAJ:MIN" --cache 7:x --driverloaded n
step "nonexistent path" --cache /dev/pvscan-fast-no-such-dev --driverloaded n
step "unknown option" --cache --no-such-option "$D" --driverloaded n
step "ambiguous option" --cache --list "$D" --driverloaded n
step "option with a stray argument" --cache=yes "$D" --driverloaded n
step "missing option argument" --cache "$D" --driverloaded
step "hyphens in option names" --cache --list-vg --check-complete --udev-output "$D" \
	--driver-loaded n
# pvscan-fast knows only the options of pvscan's --cache forms: lvm2 matches -e to its display
# form and says "Command does not accept option: --cache.", getopt here says "invalid option".
step "an option of pvscan's other forms" --any-stderr --cache -e "$D" --driverloaded n
detach_all

t_done
