#!/bin/sh
# Hostile devices for `pvscan-fast --cache`: damaged PVs (bad label, mda header and text CRCs,
# truncated, random first MiB), a device that fails reads with EIO, one that fails only past
# its first metadata area, and one that never answers, next to good PVs, all at once. The
# scan must report each bad one by name with a reason, put the good ones online, and wait for
# the timeout on the one that never answers, then exit although that read is still stuck (the
# reads are made by a reader process, lib/io/reader.h), holding no output pipe meanwhile. Then
# 1000 PVs at once (HOSTILE_MANY to change the count; 0 skips). Durations are printed and
# bounded only below (the timeout was waited for): a slow machine may take longer.
#
# The failing and hanging devices are loop devices over files of tests/hostile/blockfs, a
# FUSE filesystem (t_blockfs_* in test-lib.sh: skipped without FUSE).
# shellcheck disable=SC2154 # top_srcdir comes from test-lib.sh, DEV_* and dev from eval
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz python3 dd truncate od

TIMEOUT=2
MANY=${HOSTILE_MANY:-1000}

MNT="$T_DIR/mnt"
ETC="$T_DIR/etc"
RUN="$T_DIR/run"

t_blockfs_build

# json IMAGE EXPR: a field of pvscan-fast's dump of an image file.
json() {
	"$PVSCAN_FAST" --dump --json "$1" 2>/dev/null |
		python3 -c 'import json,sys; d=json.load(sys.stdin)["devices"][0]; print(eval(sys.argv[1]))' "$2"
}

# write_conf DEV...: lvm.conf accepting exactly these devices.
write_conf() {
	t_lvm_conf "$ETC" "$*" "$T_CONF_NO_LISTS" "$(t_conf_events)"
}

# ---- images: distinct single-PV VGs (no duplicate PVIDs), then damaged copies ----

python3 "$top_srcdir/tests/bench/clone-pvs.py" "$FIXTURES/single" 11 "$T_DIR/img" hst >/dev/null ||
	{ echo "FAIL: clone-pvs.py"; exit 1; }
img() {
	printf '%s/img/hst%05d-d1.img\n' "$T_DIR" "$1"
}
# A PV with two metadata areas, the second at the end: its ids must differ from the others'.
python3 "$top_srcdir/tests/bench/clone-pvs.py" "$FIXTURES/two-mdas" 12 "$T_DIR/img" hsm \
	>/dev/null || { echo "FAIL: clone-pvs.py"; exit 1; }
used=""
for i in 0 1 2 3 4 5 6 7 8 9 10; do
	used="$used $(json "$(img $i)" 'd["pvid"] + " " + d["vg_uuid"]')"
done
two=""
for i in 11 10 9 8 7 6 5 4 3 2 1 0; do # copy k of any fixture has the ids of copy k of another
	f=$(printf '%s/img/hsm%05d-d1.img' "$T_DIR" "$i")
	ids=$(json "$f" 'd["pvid"] + " " + d["vg_uuid"]')
	case " $used " in
	*" ${ids% *} "* | *" ${ids#* } "*) continue ;;
	esac
	two=$f
	break
done
[ -n "$two" ] || { echo "FAIL: no two-mdas copy with ids of its own"; exit 1; }

text_off=$(json "$(img 0)" 'd["mdas"][0]["text_offset"]')
t_flip "$(img 3)" 600                          # label CRC
t_flip "$(img 4)" $((4096 + 200))              # mda header CRC
t_flip "$(img 5)" $((text_off + 100))          # metadata text CRC
truncate -s $((text_off + 512)) "$(img 6)"   # cut inside the text: below pv_min_size
truncate -s 4M "$(img 10)"                   # data area cut short
dd if=/dev/urandom of="$(img 7)" bs=1M count=1 conv=notrunc status=none
mda2=$(json "$two" 'd["mdas"][1]["offset"]')

t_blockfs_start "$MNT" "plain-g=$(img 2)" "eio-all=$(img 8)" "eio-mda2=$two@$mda2" \
	"hang-h=$(img 9)"

# role NAME FILE: attach read-only, remember which loop plays which role.
ALL=""
role() {
	t_attach "$2"
	eval "DEV_$1=$T_DEV"
	ALL="$ALL $T_DEV"
	echo "$1: $T_DEV"
}
role good0 "$(img 0)"
role good1 "$(img 1)"
role goodfuse "$MNT/plain-g"
role labelcrc "$(img 3)"
role headercrc "$(img 4)"
role textcrc "$(img 5)"
role trunctext "$(img 6)"
role truncdata "$(img 10)"
role random "$(img 7)"
role eio "$MNT/eio-all"
role eiomda2 "$MNT/eio-mda2"
role hang "$MNT/hang-h"
# shellcheck disable=SC2086
write_conf $ALL

# ---- one scan of all of them ----

mkdir -p "$RUN"
t0=$(t_now_ms)
# stdout through a pipe: if anything still held it, cat would not end.
{
	LVM_SYSTEM_DIR="$ETC" PVSCAN_FAST_RUN_DIR="$RUN/lvm" PVSCAN_FAST_LOCK_DIR="$RUN/lock" \
		"$PVSCAN_FAST" --cache --timeout "$TIMEOUT" -v 2>"$T_DIR/err"
	echo $? >"$T_DIR/rc"
} | cat >"$T_DIR/out"
t1=$(t_now_ms)
rc=$(cat "$T_DIR/rc")
ms=$((t1 - t0))
echo "--- stdout"
cat "$T_DIR/out"
echo "--- stderr (but devices outside the filter)"
grep -v "excluded: device is rejected by filter config" "$T_DIR/err"
echo "--- exit status $rc after $ms ms (timeout ${TIMEOUT} s)"

case $rc in
0 | 5) t_pass "exit status $rc" ;;
*) t_fail "exit status $rc" ;;
esac
# The timeout fired (it is named below) and was waited for: a lower bound only, which a slow
# machine cannot break. That the process ends although the read never does is the pipe above.
if [ "$ms" -ge $((TIMEOUT * 1000 - 100)) ]; then
	t_pass "the scan waited for the timeout ($ms ms for $TIMEOUT s)"
else
	t_fail "the scan took $ms ms, less than its timeout of $TIMEOUT s"
fi

# The reader that made the stuck read is still there (the kernel waits for the read to end
# before the process is gone), it is nobody's child here, and it holds no pipe of ours.
readers=$(t_readers)
if [ -n "$readers" ]; then
	for p in $readers; do
		echo "reader $p: $(grep -E '^(State|PPid)' "/proc/$p/status" 2>/dev/null | tr '\n\t' '  ')"
	done
	t_pass "the process exited while its reader waits for the stuck read"
else
	t_fail "no reader process waiting for the stuck read"
fi

# online GOOD...: each has its pvs_online file.
for r in good0 good1 goodfuse eiomda2; do
	eval "dev=\$DEV_$r"
	case $r in
	eiomda2) pvid=$(json "$two" 'd["pvid"]') ;;
	goodfuse) pvid=$(json "$(img 2)" 'd["pvid"]') ;;
	*) pvid=$(json "$(img "${r#good}")" 'd["pvid"]') ;;
	esac
	if grep -qx "dev:$dev" "$RUN/lvm/pvs_online/$pvid" 2>/dev/null; then
		t_pass "$r ($dev) online"
	else
		t_fail "$r ($dev): no $RUN/lvm/pvs_online/$pvid for it"
	fi
done

# reported ROLE REGEX: a line names the device and matches REGEX (extended, any case).
reported() {
	eval "dev=\$DEV_$1"
	if grep -h -- "$dev" "$T_DIR/out" "$T_DIR/err" | grep -qiE -- "$2"; then
		t_pass "$1 ($dev) reported: $(grep -h -- "$dev" "$T_DIR/out" "$T_DIR/err" |
			grep -iE -- "$2" | head -1 | sed 's/^ *//')"
	else
		t_fail "$1 ($dev): no line naming it matches /$2/"
	fi
}
reported labelcrc "label crc mismatch"
reported headercrc "mda1: mda header checksum mismatch"
reported textcrc "mda1: .*(checksum|crc)"
reported trunctext "too small"
reported truncdata "smaller than"
reported random "no lvm2 label"
reported eio "cannot read the label sectors: input/output error"
reported eiomda2 "mda2: cannot read the header: input/output error"
reported hang "no answer within $((TIMEOUT * 1000)) ms"
# As with lvm2: a PV whose label is good is online, whatever else is wrong with it.
for r in labelcrc trunctext random eio hang; do
	eval "dev=\$DEV_$r"
	if grep -qx "dev:$dev" "$RUN/lvm/pvs_online/"* 2>/dev/null; then
		t_fail "$r ($dev) is online"
	else
		t_pass "$r ($dev) is not online"
	fi
done

# The form udev runs for one device, on the one that never answers, its stdout read by udev:
# the full scan's reader is still stuck on it, so the device is left out at once instead of
# costing one more reader (lib/io/stuck.h); udev's pipe is closed, nothing to import
# (--udevoutput is silent).
t0=$(t_now_ms)
{
	LVM_SYSTEM_DIR="$ETC" PVSCAN_FAST_RUN_DIR="$RUN/lvm" PVSCAN_FAST_LOCK_DIR="$RUN/lock" \
		"$PVSCAN_FAST" --cache --listvg --checkcomplete --vgonline --autoactivation event \
		--udevoutput --timeout "$TIMEOUT" "$DEV_hang" 2>"$T_DIR/udev.err"
	echo $? >"$T_DIR/rc"
} | cat >"$T_DIR/udev.out"
t1=$(t_now_ms)
ms=$((t1 - t0))
echo "--- udev form on $DEV_hang: exit status $(cat "$T_DIR/rc") after $ms ms; stdout:"
cat "$T_DIR/udev.out"
echo "--- stderr"
cat "$T_DIR/udev.err"
if [ -s "$T_DIR/rc" ] && ! [ -s "$T_DIR/udev.out" ] &&
	grep -lqs . "$RUN/lvm/pvscan-fast/readers/"r-*; then
	t_pass "udev's form on the hanging device: over, left to the stuck reader noted" \
		"in readers/, nothing for udev to import"
else
	t_fail "udev's form on the hanging device: not over, no stuck reader noted, or output for udev"
fi

# The oracle: lvm2's pvscan --cache on the same devices but the one that hangs (it would hang
# too) puts the same PVs online, with the same state files.
if command -v lvm >/dev/null 2>&1 && command -v unshare >/dev/null 2>&1; then
	mkdir -p "$T_DIR/l2"
	# shellcheck disable=SC2046
	ETC="$T_DIR/etc2" write_conf $(echo "$ALL" | tr ' ' '\n' | grep -vx "$DEV_hang")
	# shellcheck disable=SC2016
	LVM_SYSTEM_DIR="$T_DIR/etc2" LVM_SUPPRESS_FD_WARNINGS=1 \
		unshare --mount --propagation private sh -c \
		'mount --bind "$0" /run && exec lvm pvscan --cache --driverloaded n' "$T_DIR/l2" \
		>"$T_DIR/l2.out" 2>"$T_DIR/l2.err"
	echo "--- lvm2's pvscan --cache: exit status $?"
	cat "$T_DIR/l2.out" "$T_DIR/l2.err"
	if diff -r "$T_DIR/l2/lvm/pvs_online" "$RUN/lvm/pvs_online"; then
		t_pass "the same PVs online as with lvm2, the same state files"
	else
		t_fail "not the PVs lvm2 puts online"
	fi
fi

# Release the stuck read: the reader then ends, and nothing of the test is left blocked.
readers=$(t_readers)
echo "readers waiting for $DEV_hang: $(echo "$readers" | tr "\n" " ")"
t_blockfs_release
# shellcheck disable=SC2086
t_wait_gone $readers
if [ -z "$T_LEFT" ]; then
	t_pass "the reader ended once the read was released"
else
	t_fail "reader$T_LEFT still there after the release"
fi
for d in $ALL; do
	t_detach "$d"
done

# ---- many devices at once ----

if [ "$MANY" -gt 0 ]; then
	t0=$(t_now_ms)
	python3 "$top_srcdir/tests/bench/clone-pvs.py" "$FIXTURES/single" "$MANY" "$T_DIR/many" \
		hmany >"$T_DIR/many.list" || { echo "FAIL: clone-pvs.py"; exit 1; }
	ALL=""
	while read -r f; do
		t_attach "$f"
		ALL="$ALL $T_DEV"
	done <"$T_DIR/many.list"
	t1=$(t_now_ms)
	echo "made and attached $MANY PVs in $((t1 - t0)) ms"
	# shellcheck disable=SC2086
	write_conf $ALL
	rm -rf "$RUN"
	mkdir -p "$RUN"
	t0=$(t_now_ms)
	LVM_SYSTEM_DIR="$ETC" PVSCAN_FAST_RUN_DIR="$RUN/lvm" PVSCAN_FAST_LOCK_DIR="$RUN/lock" \
		"$PVSCAN_FAST" --cache >"$T_DIR/many.out" 2>"$T_DIR/many.err"
	rc=$?
	t1=$(t_now_ms)
	ms=$((t1 - t0))
	online=$(find "$RUN/lvm/pvs_online" -type f | wc -l)
	echo "pvscan-fast --cache over $MANY PVs: exit status $rc, $online online, $ms ms"
	head -3 "$T_DIR/many.err"
	if [ "$rc" -eq 0 ] && [ "$online" -eq "$MANY" ]; then
		t_pass "$MANY PVs at once: all online"
	else
		t_fail "$MANY PVs at once: exit status $rc, $online online"
	fi
	for d in $ALL; do
		t_detach "$d"
	done
fi

t_done
