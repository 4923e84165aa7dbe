#!/bin/sh
# Every lvm2-made fixture, attached to loop devices: `pvscan-fast --dump --json`
# must agree with lvm2's reports captured when the fixture was made, and the fixtures
# captured with every segment field (every segment type lvm2 writes) also with the segment
# report lvm2 on this host gives now for the same devices.
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz python3

for fx in "$FIXTURES"/*/; do
	name=$(basename "$fx")
	[ -f "$fx/devices" ] || continue
	devs=""
	while read -r img _pvid _old; do
		file=$(t_unpack "$fx/$img.xz" "$name-$img")
		t_attach "$file"
		devs="$devs $T_DEV"
	done <"$fx/devices"
	# shellcheck disable=SC2086
	"$PVSCAN_FAST" --dump --json $devs >"$T_DIR/$name.json"
	rc=$?
	if [ "$rc" -ne 0 ]; then
		t_fail "$name: exit status $rc for a fixture lvm2 reads cleanly"
	elif python3 "$top_srcdir/tests/integration/compare-lvm2.py" "$fx" "$T_DIR/$name.json"; then
		t_pass "$name: matches lvm2"
	else
		t_fail "$name: differs from lvm2"
	fi
	if [ "$rc" -eq 0 ] && grep -q '"seg_size"' "$fx/segs.json"; then
		# shellcheck disable=SC2086
		if ! t_lvm "$devs" lvs --driverloaded n -a --segments --reportformat json \
			--units b --nosuffix -o lv_name,lv_uuid,vg_name,lv_attr,seg_all >"$T_DIR/$name.live.json" \
			2>"$T_DIR/$name.live.err"; then
			t_fail "$name: lvm2's segment report failed"
			sed 's/^/#   /' "$T_DIR/$name.live.err"
		elif python3 "$top_srcdir/tests/integration/compare-lvm2.py" "$fx" \
			"$T_DIR/$name.json" "$T_DIR/$name.live.json"; then
			t_pass "$name: every segment field matches lvm2's report now"
		else
			t_fail "$name: segment fields differ from lvm2's report now"
		fi
	fi
	for d in $devs; do
		t_detach "$d"
	done
done
# segtypes with its second PV gone: LVs on it are partial, its areas "[unknown]", as lvm2 says.
file=$(t_unpack "$FIXTURES/segtypes/d1.img.xz" segtypes-d1-alone)
t_attach "$file"
"$PVSCAN_FAST" --dump --json "$T_DEV" >"$T_DIR/alone.json"
if ! t_lvm "$T_DEV" lvs --driverloaded n -a --segments --reportformat json --units b \
	--nosuffix -o lv_name,lv_uuid,vg_name,lv_attr,seg_all >"$T_DIR/alone.live.json" \
	2>"$T_DIR/alone.live.err"; then
	t_fail "segtypes without d2: lvm2's segment report failed"
	sed 's/^/#   /' "$T_DIR/alone.live.err"
elif python3 "$top_srcdir/tests/integration/compare-lvm2.py" "$FIXTURES/segtypes" \
	"$T_DIR/alone.json" "$T_DIR/alone.live.json" --segments-only; then
	t_pass "segtypes without d2: every segment field matches lvm2's report now"
else
	t_fail "segtypes without d2: segment fields differ from lvm2's report now"
fi
t_detach "$T_DEV"
t_done
