#!/bin/sh
# Corrupted copies of an lvm2-made PV: --dump must name the failed check and
# where, exit 5, and never crash. Each copy is attached to a loop device.
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz python3 dd truncate

src="$FIXTURES/single"
clean=$(t_unpack "$src/d1.img.xz" clean.img)

# Where lvm2 put the live metadata text on this PV, from the clean dump.
"$PVSCAN_FAST" --dump --json "$clean" >"$T_DIR/clean.json" ||
	{ t_fail "clean fixture does not dump cleanly"; t_done; exit 1; }
text_off=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"][0]["mdas"][0]["text_offset"])' "$T_DIR/clean.json")

# expect NAME IMAGE PYTHON-CONDITION: dump the image via a loop device; it must
# exit 5 with valid JSON for which the condition (over `d`, the device) holds.
expect() {
	name=$1 img=$2 cond=$3
	t_attach "$img"
	"$PVSCAN_FAST" --dump --json "$T_DEV" >"$T_DIR/$name.json" 2>"$T_DIR/$name.err"
	rc=$?
	t_detach "$T_DEV"
	if [ "$rc" -ne 5 ]; then
		t_fail "$name: exit status $rc, want 5"
		cat "$T_DIR/$name.err"
		return
	fi
	if python3 - "$T_DIR/$name.json" "$cond" <<'PY'
import json, re, sys
d = json.load(open(sys.argv[1]))["devices"][0]
ok = eval(sys.argv[2], {"re": re, "d": d})
print(json.dumps(d)[:600])
sys.exit(0 if ok else 1)
PY
	then
		t_pass "$name"
	else
		t_fail "$name: wrong or missing reason"
	fi
}

cp "$clean" "$T_DIR/label-crc.img"
t_flip "$T_DIR/label-crc.img" 600
expect label-crc "$T_DIR/label-crc.img" \
	'"label_error" in d and re.search("crc|checksum", d["label_error"]["reason"], re.I) and d["label_error"]["offset"] in (512, 528)'

cp "$clean" "$T_DIR/label-magic.img"
t_flip "$T_DIR/label-magic.img" 513
expect label-magic "$T_DIR/label-magic.img" '"label_error" in d and not d["ok"]'

cp "$clean" "$T_DIR/header-crc.img"
t_flip "$T_DIR/header-crc.img" $((4096 + 200))
expect header-crc "$T_DIR/header-crc.img" \
	're.search("crc|checksum", d["mdas"][0]["header_error"]["reason"], re.I) and d["mdas"][0]["header_error"]["offset"] == 4096'

cp "$clean" "$T_DIR/header-magic.img"
t_flip "$T_DIR/header-magic.img" $((4096 + 6))
expect header-magic "$T_DIR/header-magic.img" '"header_error" in d["mdas"][0]'

cp "$clean" "$T_DIR/text-crc.img"
t_flip "$T_DIR/text-crc.img" $((text_off + 100))
expect text-crc "$T_DIR/text-crc.img" \
	're.search("crc|checksum", d["mdas"][0]["text_error"]["reason"], re.I) and "vg_name" not in d'

cp "$clean" "$T_DIR/truncated-text.img"
truncate -s $((text_off + 10)) "$T_DIR/truncated-text.img"
expect truncated-text "$T_DIR/truncated-text.img" \
	'not d["mdas"][0]["text_ok"] and "text_error" in d["mdas"][0]'

# Metadata intact but the data area cut short: the size check must say so.
cp "$clean" "$T_DIR/truncated-data.img"
truncate -s 2M "$T_DIR/truncated-data.img"
expect truncated-data "$T_DIR/truncated-data.img" \
	'd["mdas"][0]["text_ok"] and re.search("smaller than", d["size_error"]["reason"])'

cp "$clean" "$T_DIR/truncated-header.img"
truncate -s 4096 "$T_DIR/truncated-header.img"
expect truncated-header "$T_DIR/truncated-header.img" \
	're.search("end of the device", d["mdas"][0]["header_error"]["reason"])'

cp "$clean" "$T_DIR/truncated-label.img"
truncate -s 300 "$T_DIR/truncated-label.img"
expect truncated-label "$T_DIR/truncated-label.img" '"label_error" in d'

cp "$clean" "$T_DIR/random.img"
dd if=/dev/urandom of="$T_DIR/random.img" bs=1M count=1 conv=notrunc status=none
expect random-first-mib "$T_DIR/random.img" '"label_error" in d'

# Syntax error in the text with a valid checksum: the reason gives line and column.
cp "$clean" "$T_DIR/text-syntax.img"
t_python - "$T_DIR/text-syntax.img" <<'PY'
import sys
from lvmdisk import rewrite_text
def break_grammar(text):
    i = text.index(b"seqno = ")
    text[i + 5] = ord("{")           # "seqno { ..." breaks the grammar
rewrite_text(sys.argv[1], break_grammar)
PY
expect text-syntax "$T_DIR/text-syntax.img" \
	'd["mdas"][0]["text_ok"] and d["mdas"][0]["metadata_error"]["line"] > 0'

# Control characters in a device hint and a segment type (valid checksums): the text dump
# shows them escaped, never raw on the terminal.
cp "$clean" "$T_DIR/escapes.img"
t_python - "$T_DIR/escapes.img" <<'PY'
import sys
from lvmdisk import rewrite_text
def plant(text):
    for old, new in ((b'"/dev/loop0"', b'"/dev/\x1b]0;x"'), (b'"striped"', b'"strip\x07d"')):
        i = text.index(old)
        text[i:i + len(old)] = new
rewrite_text(sys.argv[1], plant)
PY
"$PVSCAN_FAST" --dump "$T_DIR/escapes.img" >"$T_DIR/escapes.out" 2>&1
if LC_ALL=C grep -q "$(printf '[\001-\010\016-\037\177]')" "$T_DIR/escapes.out"; then
	t_fail "escapes: a control character reached the output"
elif grep -qF '/dev/\x1b]0;x pe_start' "$T_DIR/escapes.out" &&
	grep -qF 'extents 0+2 strip\x07d' "$T_DIR/escapes.out"; then
	t_pass "escapes"
else
	t_fail "escapes: device hint or segment type not shown escaped"
	cat "$T_DIR/escapes.out"
fi

t_done
