#!/bin/sh
# A /run/lvm with no room, or read-only, against lvm2 2.03.16's pvscan on the same devices.
# Each side runs in its own mount namespace: a tmpfs over /run and, over /run/lvm, a tmpfs
# that is full (no blocks: files can be created, not filled), has no inodes left, or a
# read-only pvs_online/. Both use the compiled-in /run/lvm, so their lines name the same paths
# and are compared as they are (norm in lvm2-side.sh: PIDs, lvm2's "Activation disabled").
#
# What lvm2 does, and we must: full, it keeps the empty online file, says "Cannot write online
# file ... error 28", counts the PV online, exits 0 and autoactivates; a multi-PV VG's lookup
# file stays empty with "Failed to write lookup entry" per PVID; a second scan of the same
# device meets its empty file (duplicate of 0:0, exit 5). No inode or read-only: "Failed to
# create online file ... error N", exit 5, nothing activated.
#
# Not compared, with the reason: the lines of the activation step itself. lvm2's pvscan reads
# the empty online files on its quick activation path ("No info in ...", "No device set up for
# online PV 0:0 ...", "not using quick activation"); ours hands the VG to `lvm vgchange`, which
# reads them too and says so in its own words ("PVs online not found for VG ..."). That the
# activation ran is checked instead: the "run autoactivation" line and vgchange's "now active".
# Also not compared: lvm2's "No info in ..." before its duplicate line (we do not tell an
# empty online file from an unreadable one there), our "cannot update hints state" warning
# (lvm2 ignores a failed newhints silently) and our queue's pvscan-fast/ directory. Our own
# "cannot save pvscan-fast/scanned" warning must name ENOSPC, not EIO.
#
# lvm2 is run for real every time (root, unshare and tmpfs are needed anyway); no line of
# its output is recorded here.
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz lvm unshare mount cmp diff find sed
. "$(dirname "$0")/../lib/lvm2-side.sh"

fx=$FIXTURES
s1=$(t_unpack "$fx/single/d1.img.xz" s1.img)
d1=$(t_unpack "$fx/two-pv/d1.img.xz" d1.img)
d2=$(t_unpack "$fx/two-pv/d2.img.xz" d2.img)
t_attach "$s1"
ls1=$T_DEV
t_attach "$d1"
l1=$T_DEV
t_attach "$d2"
l2=$T_DEV
t_lvm_conf "$ETC" "$ls1 $l1 $l2" "$T_CONF_NO_LISTS
	hints = \"none\"" "$(t_conf_events)"

# The namespace's setup and commands: MODE OUTDIR COMMAND...; each COMMAND's stdout, stderr
# and status go to OUTDIR/N.{out,err,rc}, the run dir's entries at the end to OUTDIR/state.
cat >"$T_DIR/ns-run" <<'EOF'
#!/bin/sh
mode=$1 out=$2
shift 2
mount -t tmpfs -o mode=0755,size=8m pf-test-run /run || exit 99
mkdir -p /run/lvm /run/lock/lvm
case $mode in
full)
	mount -t tmpfs -o size=4k,mode=0755 pf-test-full /run/lvm || exit 99
	dd if=/dev/zero of=/run/lvm/.fill bs=4k count=4 2>/dev/null
	;;
inodes)
	# the root, three state directories and two files: not one inode left
	mount -t tmpfs -o nr_inodes=6,mode=0755 pf-test-full /run/lvm || exit 99
	mkdir -m 0700 /run/lvm/pvs_online /run/lvm/vgs_online /run/lvm/pvs_lookup
	touch /run/lvm/.a /run/lvm/.b
	;;
ro)
	mkdir -m 0700 /run/lvm/pvs_online /run/lvm/vgs_online /run/lvm/pvs_lookup
	mount --bind /run/lvm/pvs_online /run/lvm/pvs_online &&
		mount -o remount,bind,ro /run/lvm/pvs_online || exit 99
	;;
esac
i=0
for c in "$@"; do
	i=$((i + 1))
	sh -c "$c" >"$out/$i.out" 2>"$out/$i.err"
	echo $? >"$out/$i.rc"
done
(cd /run/lvm && find . -mindepth 1 -printf '%p %y %m %s\n') |
	grep -Ev '^\./(\.fill|\.a|\.b|pvscan-fast)[ /]' | LC_ALL=C sort >"$out/state"
EOF
chmod 0755 "$T_DIR/ns-run"

# side NAME MODE COMMAND...: run the commands in a fresh namespace, outputs in $T_DIR/NAME.
side() {
	_name=$1 _mode=$2
	shift 2
	rm -rf "${T_DIR:?}/$_name"
	mkdir -p "$T_DIR/$_name"
	env -u PVSCAN_FAST_RUN_DIR -u PVSCAN_FAST_LOCK_DIR -u PVSCAN_FAST_LVM \
		LVM_SYSTEM_DIR="$ETC" LVM_SUPPRESS_FD_WARNINGS=1 \
		unshare --mount --propagation private "$T_DIR/ns-run" "$_mode" "$T_DIR/$_name" \
		"$@"
}

# The lines left out of the comparison (see the head of this file).
ACT_OUT='not using quick activation\.$|^  PVs online not found for VG '
ACT_ERR='^  No info in /run/lvm/pvs_online/|^  No device name found from 0:0\.$|'
ACT_ERR="$ACT_ERR"'No device set up for online PV 0:0 |WARNING: cannot update hints state|'
ACT_ERR="$ACT_ERR"'WARNING: cannot save pvscan-fast/scanned: '

# run_pair TAG MODE: $T_DIR/lcmds and $T_DIR/ocmds hold one pvscan argument list a line, the
# same steps; lvm2 runs `lvm pvscan ARGS --driverloaded n` in one namespace, we run
# `pvscan-fast ARGS --driverloaded n` in another; each step is compared.
run_pair() {
	tag=$1 mode=$2
	set --
	while IFS= read -r args; do
		set -- "$@" "lvm pvscan $args --driverloaded n"
	done <"$T_DIR/lcmds"
	side l2 "$mode" "$@"
	set --
	while IFS= read -r args; do
		set -- "$@" "'$PVSCAN_FAST' $args --driverloaded n"
	done <"$T_DIR/ocmds"
	side pf "$mode" "$@"
	n=$(wc -l <"$T_DIR/lcmds")
	ok=1
	i=1
	while [ "$i" -le "$n" ]; do
		lrc=$(cat "$T_DIR/l2/$i.rc")
		orc=$(cat "$T_DIR/pf/$i.rc")
		if [ "$lrc" != "$orc" ]; then
			echo "# $tag: step $i: exit status lvm2 $lrc, ours $orc"
			ok=0
		fi
		for f in l2 pf; do
			grep -Ev "$ACT_OUT" "$T_DIR/$f/$i.out" >"$T_DIR/$f/$i.cmp.out"
			grep -Ev "$ACT_ERR" "$T_DIR/$f/$i.err" >"$T_DIR/$f/$i.cmp.err"
		done
		same_text "$tag: step $i" stdout "$T_DIR/l2/$i.cmp.out" "$T_DIR/pf/$i.cmp.out" || ok=0
		same_text "$tag: step $i" stderr "$T_DIR/l2/$i.cmp.err" "$T_DIR/pf/$i.cmp.err" || ok=0
		if [ -n "${PF_TEST_VERBOSE:-}" ]; then
			sed "s|^|# $tag $i lvm2 out: |" "$T_DIR/l2/$i.out"
			sed "s|^|# $tag $i lvm2 err: |" "$T_DIR/l2/$i.err"
			sed "s|^|# $tag $i ours out: |" "$T_DIR/pf/$i.out"
			sed "s|^|# $tag $i ours err: |" "$T_DIR/pf/$i.err"
		fi
		i=$((i + 1))
	done
	if ! diff -u "$T_DIR/l2/state" "$T_DIR/pf/state" >"$T_DIR/state.diff"; then
		echo "# $tag: /run/lvm differs (- lvm2, + ours):"
		sed 's/^/#   /' "$T_DIR/state.diff"
		ok=0
	fi
	if [ "$ok" -eq 1 ]; then
		t_pass "$tag: lines, exit status and /run/lvm as lvm2's"
	else
		t_fail "$tag: lines, exit status and /run/lvm as lvm2's"
	fi
}

# activated TAG N VG...: step N of ours ran the activation of each VG (lvm2's did too).
activated() {
	tag=$1 i=$2
	shift 2
	for vg in "$@"; do
		if grep -q "VG $vg run autoactivation\.$" "$T_DIR/pf/$i.out" &&
			grep -q "volume group \"$vg\" now active" "$T_DIR/pf/$i.out" &&
			grep -q "VG $vg run autoactivation\.$" "$T_DIR/l2/$i.out"; then
			t_pass "$tag: VG $vg autoactivated"
		else
			t_fail "$tag: VG $vg autoactivated"
		fi
	done
}

# steps LVM2_ARGS...: the same argument lists for both, ours with --nocoalesce (each step
# compares one invocation with lvm2's, as cache-lvm2.sh does).
steps() {
	: >"$T_DIR/lcmds"
	: >"$T_DIR/ocmds"
	for a in "$@"; do
		echo "$a" >>"$T_DIR/lcmds"
		echo "--nocoalesce $a" >>"$T_DIR/ocmds"
	done
}

# A full /run: one PV, the two PVs of a VG one at a time, then the first again.
steps "--cache -aay $ls1" "--cache -aay $l1" "--cache -aay $l2" "--cache -aay $l1"
run_pair "full /run, per device" full
activated "full /run, per device" 1 vg0
activated "full /run, per device" 3 vgtwo
for i in 1 3; do
	if grep -q 'Cannot write online file for .* error 28$' "$T_DIR/pf/$i.err" &&
		[ "$(cat "$T_DIR/pf/$i.rc")" = 0 ]; then
		t_pass "full /run, per device: step $i warns with error 28 and exits 0"
	else
		t_fail "full /run, per device: step $i warns with error 28 and exits 0"
	fi
done

# A full /run, every device at once: ours coalesced, as an admin's full scan runs by default.
echo "--cache -aay" >"$T_DIR/lcmds"
echo "--cache -aay" >"$T_DIR/ocmds"
run_pair "full /run, full scan" full
activated "full /run, full scan" 1 vg0 vgtwo
if grep -q 'WARNING: cannot save pvscan-fast/scanned: No space left on device\.$' \
	"$T_DIR/pf/1.err"; then
	t_pass "full /run, full scan: the scanned record's warning names ENOSPC"
else
	t_fail "full /run, full scan: the scanned record's warning names ENOSPC"
	sed 's/^/#   /' "$T_DIR/pf/1.err"
fi

# The leader after that full scan, on a full /run (coalescing: a udev-like call that names a
# device): it reads its own device only, as lvm2 does, because an empty scanned record still
# says the full scan was done; a rescan of every device would meet every empty online file.
echo "--cache -aay" >"$T_DIR/lcmds"
echo "--cache -aay $l2" >>"$T_DIR/lcmds"
echo "--cache -aay" >"$T_DIR/ocmds"
echo "--cache -aay $l2" >>"$T_DIR/ocmds"
run_pair "full /run, a leader after the full scan" full

# No inode left: not even an empty file; lvm2 fails the PV (exit 5).
steps "--cache -aay $ls1" "--cache -aay $l1"
run_pair "no inode left in /run" inodes

# A read-only pvs_online/: lvm2 fails the PV (exit 5) and activates nothing.
steps "--cache -aay $ls1" "--cache -aay $l1" "--cache -aay $l2"
run_pair "read-only pvs_online" ro
if ! grep -q 'run autoactivation' "$T_DIR/pf/1.out" "$T_DIR/pf/3.out"; then
	t_pass "read-only pvs_online: nothing activated"
else
	t_fail "read-only pvs_online: nothing activated"
fi

t_done
