#!/bin/sh
# `pvscan-fast --dump` next to devices that never answer (at the label, or only at the second
# metadata area): it reads as the scan does (lib/io/reader.h), so each dead one costs the scan's
# timeout (--timeout, else lvm.conf's pvscan_fast/scan_timeout), is named with the scan's
# reason, and is left out; every other device is dumped exactly as without it; the exit
# status is 5 (a device not read cleanly). The process must end, its output pipe closed,
# although the reads it gave up on are still stuck. The dead devices are loop devices over
# files of blockfs (t_blockfs_* in test-lib.sh), and one such file named directly.
# check() evals its condition, so the variables in it expand only then.
# shellcheck disable=SC2154,SC2016,SC2034 # and top_srcdir comes from test-lib.sh
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz python3

TIMEOUT=2
MNT="$T_DIR/mnt"
t_blockfs_build

good=$(t_unpack "$FIXTURES/single/d1.img.xz" good.img)
pair1=$(t_unpack "$FIXTURES/two-pv/d1.img.xz" pair1.img)
pair2=$(t_unpack "$FIXTURES/two-pv/d2.img.xz" pair2.img)
dead=$(t_unpack "$FIXTURES/wrap/d1.img.xz" dead.img)
two=$(t_unpack "$FIXTURES/two-mdas/d1.img.xz" two.img)
mda2=$("$PVSCAN_FAST" --dump --json "$two" | python3 -c \
	'import json,sys; print(json.load(sys.stdin)["devices"][0]["mdas"][1]["offset"])') ||
	{ echo "FAIL: no second mda on $two"; exit 1; }

# Dead devices of their own for each case: a loop device with a stuck read answers no more.
t_blockfs_start "$MNT" "hang-label1=$dead" "hang-mda2-1=$two@$mda2" "hang-label2=$dead" \
	"hang-mda2-2=$two@$mda2" "hang-file=$dead"
t_attach "$good"
G=$T_DEV
t_attach "$pair1"
P1=$T_DEV
t_attach "$pair2"
P2=$T_DEV
for k in 1 2; do
	t_attach "$MNT/hang-label$k"
	eval "HL$k=\$T_DEV"
	t_attach "$MNT/hang-mda2-$k"
	eval "HM$k=\$T_DEV"
done
echo "good $G, pair $P1 $P2, dead at the label $HL1 $HL2, dead at mda2 ($mda2) $HM1 $HM2"

# dump NAME ARGS...: run --dump with stdout through a pipe (if anything still held it, cat
# would not end); $T_DIR/NAME.out, .err, .rc, and the time taken in ms in $ms. A dump stuck
# in a dead read cannot be killed: a watchdog releases the reads so the test ends (failing).
dump() {
	name=$1
	shift
	: >"$T_DIR/dumping"
	(
		i=0
		while [ -e "$T_DIR/dumping" ] && [ $i -lt $((TIMEOUT * 100)) ]; do
			sleep 0.1
			i=$((i + 1))
		done
		if [ -e "$T_DIR/dumping" ]; then
			echo "watchdog: the dump did not end: releasing the reads"
			t_blockfs_release
		fi
	) &
	watchdog=$!
	t0=$(t_now_ms)
	{
		"$PVSCAN_FAST" --dump "$@" 2>"$T_DIR/$name.err"
		echo $? >"$T_DIR/$name.rc"
	} | cat >"$T_DIR/$name.out"
	ms=$(($(t_now_ms) - t0))
	rm -f "$T_DIR/dumping"
	wait "$watchdog"
	echo "--- $name: exit status $(cat "$T_DIR/$name.rc") after $ms ms; stderr:"
	cat "$T_DIR/$name.err"
}

# check COND WHAT: pass or fail WHAT.
check() {
	if eval "$1"; then
		t_pass "$2"
	else
		t_fail "$2"
	fi
}

# The healthy devices alone: what the dumps with the dead ones must still show of them.
dump ref-text "$G" "$P1" "$P2"
check '[ "$(cat "$T_DIR/ref-text.rc")" -eq 0 ]' "the healthy devices alone dump cleanly"
dump ref-json --json "$G" "$P1" "$P2"

# ---- text, --timeout ----

HL=$HL1 HM=$HM1
dump text --timeout "$TIMEOUT" "$G" "$HL" "$P1" "$HM" "$P2"
cat "$T_DIR/text.out"
check '[ "$(cat "$T_DIR/text.rc")" -eq 5 ]' "text: exit status 5"
# Lower bounds only: a slow machine cannot break them. The dump ending at all, while the dead
# reads never do, is the pipe in dump().
check '[ "$ms" -ge $((TIMEOUT * 1000 - 100)) ]' \
	"text: $ms ms for a timeout of $TIMEOUT s: the timeout was waited for"
late="no answer within $((TIMEOUT * 1000)) ms to a read of"
want="$HL: $late 131072 bytes at byte 0: device left out"
check 'grep -qxF -- "$want" "$T_DIR/text.out"' "text: $HL named with the scan's reason"
check 'grep -qxF -- "  WARNING: $want" "$T_DIR/text.err"' \
	"text: $HL warned about in the scan's words"
check 'grep -qxE -- "$HM: $late [0-9]+ bytes at byte $mda2: device left out" "$T_DIR/text.out"' \
	"text: $HM, dead only past its label, named with the scan's reason"
check 'grep -qxE -- "  WARNING: $HM: no answer within .*: device left out" "$T_DIR/text.err"' \
	"text: $HM warned about in the scan's words"
grep -vE -- "^($HL|$HM): " "$T_DIR/text.out" >"$T_DIR/text.rest"
if cmp -s "$T_DIR/ref-text.out" "$T_DIR/text.rest"; then
	t_pass "text: every other device (and their VGs) dumped exactly as without the dead ones"
else
	t_fail "text: the other devices' dump differs"
	diff "$T_DIR/ref-text.out" "$T_DIR/text.rest"
fi

# ---- json, timeout from lvm.conf ----

mkdir -p "$T_DIR/etc"
printf 'pvscan_fast {\n\tscan_timeout = 1\n}\n' >"$T_DIR/etc/lvm.conf"
LVM_SYSTEM_DIR="$T_DIR/etc"
export LVM_SYSTEM_DIR
HL=$HL2 HM=$HM2
dump json --json "$G" "$HL" "$P1" "$HM" "$P2"
unset LVM_SYSTEM_DIR
check '[ "$(cat "$T_DIR/json.rc")" -eq 5 ]' "json: exit status 5"
check '[ "$ms" -ge 900 ]' "json: $ms ms for lvm.conf's pvscan_fast/scan_timeout = 1"
check '! grep -v "device left out" "$T_DIR/json.err" | grep -q .' \
	"json: nothing else said (lvm.conf loaded without a word)"
if python3 - "$T_DIR/json.out" "$T_DIR/ref-json.out" "$HL" "$HM" "$mda2" <<'PY'; then
import json, re, sys
got, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
hl, hm = sys.argv[3], sys.argv[4]
devs = got["devices"]
bad = {d["pv_name"]: d for d in devs if d["pv_name"] in (hl, hm)}
print(json.dumps(bad, indent=1))
assert set(bad) == {hl, hm}
for d in bad.values():
    assert d["ok"] is False and d["dev_size"] > 0
    assert set(d) == {"pv_name", "ok", "dev_size", "read_error"}
    assert re.fullmatch(r"no answer within 1000 ms to a read of \d+ bytes at byte \d+: "
                        r"device left out", d["read_error"]["reason"])
assert bad[hl]["read_error"]["offset"] == 0
assert bad[hm]["read_error"]["offset"] == int(sys.argv[5])
rest = [d for d in devs if d["pv_name"] not in (hl, hm)]
assert rest == ref["devices"], "healthy devices differ"
assert got["vgs"] == ref["vgs"], "VGs differ"
PY
	t_pass "json: the dead devices carry read_error with the scan's reason; the rest as alone"
else
	t_fail "json: wrong output"
fi

# ---- a dead image file named directly, not through a loop device ----

dump file --timeout "$TIMEOUT" "$MNT/hang-file" "$G"
cat "$T_DIR/file.out"
check '[ "$(cat "$T_DIR/file.rc")" -eq 5 ]' "file: exit status 5"
silent="no word from the reader process for $((TIMEOUT * 1000 + 1000)) ms"
check 'grep -qE -- "^$MNT/hang-file: ($late|$silent).*: device left out\$" "$T_DIR/file.out"' \
	"file: named with the reason it was left out"
check 'grep -q "^$G: PV " "$T_DIR/file.out"' "file: the other device still dumped"

# ---- the stuck reads ----

# The readers that made them are still there (the kernel holds a process with a read in
# flight), nobody's child here, and they hold no output pipe (cat ended above).
readers=$(t_readers | tr '\n' ' ')
echo "readers still waiting: $readers"
check '[ -n "$(echo $readers)" ]' "the dumps exited while their readers wait for stuck reads"
t_blockfs_release
# shellcheck disable=SC2086
t_wait_gone $readers
check '[ -z "$T_LEFT" ]' "every reader ended once the reads were released"

t_done
