#!/bin/sh
# md members whose superblock sits at the end of the device (md 0.90 and 1.0, Intel IMSM, DDF),
# against lvm2's pvscan under md_component_checks auto, start and full, and with
# md_component_detection off: per device and full scans, the lines, exit status and /run/lvm
# must match (see cache-lvm2.sh for how the two are compared).
#
# No kernel md is needed: the PVs are clones of the single and two-pv fixtures
# (tests/bench/clone-pvs.py), and a small script writes the superblocks' magic where lvm2
# looks for them, from the device's size, and edits the metadata where a case needs another
# device hint or an exported VG. What lvm2 decides with them (lvm2 2.03.16):
# - full: its md filter reads the end of every device: "DEV excluded: device is an md
#   component." per device, nothing in a full scan.
# - auto and start: pvscan reads the end only where the metadata hints at md: the PV's
#   dev_size is not the device's size, or its device hint starts with /dev/md. Then "ignore md
#   component DEV." and no online file, before the exported check. A full scan with auto drops
#   such a device silently beforehand (with start only on the hint), and then warns about its
#   PV where another PV's VG lists it.
# - md_component_detection=0: no filter, but pvscan still makes its own check (auto, start);
#   with full, nothing looks.
# - Magic in the other byte order (0.90), an IMSM signature where the logical block size does
#   not put it, and a DDF header with a bad CRC in the last sector (even with a good one 257
#   sectors from the end) are not md.
. "$(dirname "$0")/../lib/test-lib.sh"
t_require xz lvm unshare mount cmp diff find sed truncate python3
. "$(dirname "$0")/../lib/lvm2-side.sh"

IMG="$T_DIR/img"

fail_setup() {
	t_fail "setup: $*"
	t_done
	exit 1
}

# mdimg.py IMG OP: end-of-device superblocks where lvm2 looks for them (from the image's
# size; LBS for IMSM), a device hint starting with /dev/md, an exported VG.
cat >"$T_DIR/mdimg.py" <<'PY'
import os
import re
import struct
import sys

from lvmdisk import lvm_crc


def put(img, off, data):
    with open(img, "r+b") as f:
        f.seek(off)
        f.write(data)


def ddf(big_endian, bad_crc):
    order = ">" if big_endian else "<"
    hdr = bytearray(512)
    hdr[0:4] = struct.pack(order + "I", 0xDE11DE11)
    hdr[4:8] = b"\xff" * 4
    crc = lvm_crc(bytes(hdr), 0) ^ (1 if bad_crc else 0)
    hdr[4:8] = struct.pack(order + "I", crc)
    return bytes(hdr)


def edit_text(img, fn):
    with open(img, "r+b") as f:
        f.seek(512)
        label = f.read(512)
        off = 32 + 40
        while struct.unpack_from("<Q", label, off)[0]:  # data areas
            off += 16
        off += 16
        while struct.unpack_from("<Q", label, off)[0]:  # metadata areas
            start, size = struct.unpack_from("<QQ", label, off)
            off += 16
            f.seek(start)
            hdr = bytearray(f.read(512))
            roff, rsize = struct.unpack_from("<QQ", hdr, 40)
            f.seek(start + roff)
            text = f.read(rsize).rstrip(b"\0")
            data = fn(text) + b"\0"
            if roff + len(data) > size:
                sys.exit("metadata text does not fit")
            f.seek(start + roff)
            f.write(data)
            struct.pack_into("<QQI", hdr, 40, roff, len(data), lvm_crc(data))
            struct.pack_into("<I", hdr, 0, lvm_crc(bytes(hdr[4:512])))
            f.seek(start)
            f.write(hdr)


def md_hint(text):
    return re.sub(rb'device = "[^"]*"', b'device = "/dev/md127"', text)


def exported(text):
    return re.sub(rb"\bstatus = \[", b'status = ["EXPORTED", ', text, count=1)


img, op = sys.argv[1], sys.argv[2]
n = os.path.getsize(img) >> 9
end = n * 512
magic = struct.pack("<I", 0xA92B4EFC)
if op == "0.90":
    put(img, ((n & ~127) - 128) * 512, magic)
elif op == "0.90-be":
    put(img, ((n & ~127) - 128) * 512, struct.pack(">I", 0xA92B4EFC))
elif op == "1.0":
    put(img, ((n - 16) & ~7) * 512, magic)
elif op in ("imsm", "imsm-4k"):
    put(img, end - (8192 if op == "imsm-4k" else 1024), b"Intel Raid ISM Cfg Sig. ")
elif op == "ddf":
    put(img, end - 512, ddf(True, False))
elif op == "ddf-alt":
    put(img, end - 257 * 512, ddf(False, False))
elif op == "ddf-bad":
    put(img, end - 512, ddf(True, True))
    put(img, end - 257 * 512, ddf(True, False))
elif op == "md-hint":
    edit_text(img, md_hint)
elif op == "exported":
    edit_text(img, exported)
else:
    sys.exit("unknown op " + op)
PY

mdimg() {
	t_python "$T_DIR/mdimg.py" "$@" || fail_setup "mdimg $*"
}

# --- the devices -------------------------------------------------------------------------

# NAME: SIZE CHANGE (+/- KiB, or -), then what is written, and the loop's logical block size.
CASES="plain:-::512
same-0.90:-:0.90:512
grow-0.90:+16384:0.90:512
grow-1.0:+16385:1.0:512
shrink-1.0:-4096:1.0:512
grow-imsm:+16384:imsm:512
grow-imsm-4k:+16384:imsm-4k:4096
imsm-1k-on-4k:+16384:imsm:4096
grow-ddf:+16384:ddf:512
grow-ddf-alt:+16384:ddf-alt:512
grow-ddf-bad:+16384:ddf-bad:512
grow-0.90-be:+16384:0.90-be:512
hint-1.0:-:md-hint 1.0:512
hint-plain:-:md-hint:512
exported-1.0:+16384:exported 1.0:512"
n_cases=$(echo "$CASES" | wc -l)
python3 "$top_srcdir/tests/bench/clone-pvs.py" "$FIXTURES/single" "$n_cases" "$IMG" mdend \
	>"$T_DIR/singles" || fail_setup "clone single"
python3 "$top_srcdir/tests/bench/clone-pvs.py" "$FIXTURES/two-pv" 1 "$IMG" mdtwo \
	>"$T_DIR/twos" || fail_setup "clone two-pv"

OURS="" # the devices lvm.conf accepts
ORDER=""
NAMES="" # "DEV=NAME ...", for the step names
PLAIN=""
GROW_1_0=""
HINT_1_0=""
HINT_PLAIN=""
use() {
	OURS="$OURS $1"
	ORDER="$ORDER $1"
}

# name DEV: the case a device stands for.
name() {
	for nd in $NAMES; do
		[ "${nd%%=*}" = "$1" ] && echo "${nd#*=}" && return
	done
	echo "$1"
}

# attach IMG LBS: read-only, with that logical block size; the device in T_DEV.
attach() {
	T_DEV=$(losetup -f --show -r -b "$2" "$1") || fail_setup "cannot attach $1"
	T_LOOPS="$T_LOOPS $T_DEV"
}

i=0
while IFS=: read -r name resize ops lbs; do
	i=$((i + 1))
	img=$(sed -n "${i}p" "$T_DIR/singles")
	[ -n "$img" ] || fail_setup "no image for $name"
	case $resize in
	-) ;;
	*) truncate -s "${resize}K" "$img" ;;
	esac
	for op in $ops; do
		mdimg "$img" "$op"
	done
	attach "$img" "$lbs"
	NAMES="$NAMES $T_DEV=$name"
	case $name in
	plain) PLAIN=$T_DEV ;;
	grow-1.0) GROW_1_0=$T_DEV ;;
	hint-1.0) HINT_1_0=$T_DEV ;;
	hint-plain) HINT_PLAIN=$T_DEV ;;
	esac
	if [ "$name" = hint-plain ]; then
		OURS="$OURS $T_DEV"
	else
		use "$T_DEV"
	fi
done <<EOF
$CASES
EOF

# Two PVs of one VG, the first an md member: lvm2's full scan (auto) no longer knows its PV.
TWO1=$(sed -n 1p "$T_DIR/twos")
TWO2=$(sed -n 2p "$T_DIR/twos")
truncate -s +16M "$TWO1"
mdimg "$TWO1" 1.0
attach "$TWO1" 512
NAMES="$NAMES $T_DEV=two-pv-d1-1.0"
use "$T_DEV"
attach "$TWO2" 512
NAMES="$NAMES $T_DEV=two-pv-d2"
use "$T_DEV"

# Not a PV at all: its md superblock does not matter.
truncate -s 32M "$T_DIR/nolabel.img"
mdimg "$T_DIR/nolabel.img" 1.0
attach "$T_DIR/nolabel.img" 512
NAMES="$NAMES $T_DEV=no-label-1.0"
use "$T_DEV"
for nd in $NAMES; do
	echo "# ${nd#*=}: ${nd%%=*}"
done

# conf [DEVICES_LINES]: lvm.conf accepting exactly our devices.
conf() {
	t_lvm_conf "$ETC" "$OURS" "$T_CONF_NO_LISTS
	${1:-}" "$(t_conf_events)"
}

UDEV="--cache --listvg --checkcomplete --vgonline --autoactivation event --udevoutput"

# scenario NAME [DEVICES_LINES [NO_AAY]]: every device through `--cache -aay DEV` (those in
# NO_AAY through `--cache DEV`), some through the udev rule's form, then a full `--cache -aay`.
# The one whose hint alone says md goes last: where it is not found to be an md member,
# lvm2's per-device activation ("quick") refuses a PV last written through /dev/md*, says so
# ("PVID ... read from DEV last written to /dev/md127.", "VG ... not using quick
# activation.") and activates the slow way.
scenario() {
	conf "${2:-}"
	fresh
	for d in $ORDER; do
		case " ${3:-} " in
		*" $d "*) step "$1: --cache $(name "$d")" --cache "$d" --driverloaded n ;;
		*) step "$1: --cache -aay $(name "$d")" --cache -aay "$d" --driverloaded n ;;
		esac
	done
	step "$1: --cache -aay $(name "$HINT_PLAIN")" --cache -aay "$HINT_PLAIN" --driverloaded n
	fresh
	for d in "$GROW_1_0" "$HINT_1_0" "$PLAIN"; do
		# shellcheck disable=SC2086 # UDEV: several arguments
		step "$1: udev form $(name "$d")" $UDEV "$d" --driverloaded n
	done
	fresh
	step "$1: full --cache -aay" --state-except "$FULL_EXCEPT" --cache -aay --driverloaded n
}

scenario "auto"
scenario "start" 'md_component_checks = "start"'
scenario "full" 'md_component_checks = "full"'
scenario "no detection" 'md_component_detection = 0'
scenario "no detection, start" 'md_component_detection = 0
	md_component_checks = "start"'
scenario "no detection, full" 'md_component_detection = 0
	md_component_checks = "full"' "$HINT_1_0"

t_done
