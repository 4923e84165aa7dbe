#!/bin/sh
# PVs of one VG that disagree: the newest seqno wins and the older copy is
# reported, exactly as lvm2 chooses (lvm2 itself is asked on the same devices).
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz python3 lvm unshare

fx="$FIXTURES/two-pv"
d1=$(t_unpack "$fx/d1.img.xz" d1.img)
d2=$(t_unpack "$fx/d2.img.xz" d2.img)

# Rewrite d2's committed text one seqno back, with valid checksums: a PV that
# missed the last VG update.
t_python - "$d2" <<'PY'
import re, sys
from lvmdisk import rewrite_text
def one_back(text):
    m = re.search(rb"seqno = (\d+)\n", text)
    new = str(int(m.group(1)) - 1).encode()
    assert len(new) == len(m.group(1))
    text[m.start(1):m.end(1)] = new
rewrite_text(sys.argv[1], one_back)
PY

t_attach "$d1"; l1=$T_DEV
t_attach "$d2"; l2=$T_DEV

"$PVSCAN_FAST" --dump --json "$l1" "$l2" >"$T_DIR/dump.json"
rc=$?
[ "$rc" -eq 0 ] && t_pass "stale copy is not an error (exit 0)" || t_fail "exit status $rc"

t_lvm "$l1 $l2" vgs --driverloaded n --reportformat json -o vg_name,vg_seqno \
	>"$T_DIR/vgs.json" 2>"$T_DIR/vgs.err"
lvm_seqno=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["report"][0]["vg"][0]["vg_seqno"])' "$T_DIR/vgs.json")

if python3 - "$T_DIR/dump.json" "$l1" "$l2" "$lvm_seqno" <<'PY'
import json, sys
dump, l1, l2, lvm_seqno = json.load(open(sys.argv[1])), sys.argv[2], sys.argv[3], int(sys.argv[4])
vg = dump["vgs"][0]
assert len(dump["vgs"]) == 1, dump["vgs"]
assert vg["vg_seqno"] == lvm_seqno, (vg["vg_seqno"], lvm_seqno)
assert vg["metadata_from"] == l1, vg["metadata_from"]
assert vg["older_copies"] == [{"pv_name": l2, "mda": 1, "vg_seqno": lvm_seqno - 1}], vg["older_copies"]
PY
then
	t_pass "newest seqno ($lvm_seqno) chosen as lvm2 does, older copy on $l2 reported"
else
	t_fail "seqno choice differs from lvm2"
fi

if grep -q "seqno $((lvm_seqno - 1))" "$T_DIR/vgs.err"; then
	t_pass "lvm2 also ignores the older copy"
else
	t_fail "lvm2 did not warn about the older copy:"
	cat "$T_DIR/vgs.err"
fi

"$PVSCAN_FAST" --dump "$l1" "$l2" | grep -q "ignoring older metadata seqno" &&
	t_pass "text output names the older copy" || t_fail "text output lacks the older copy"
t_done
