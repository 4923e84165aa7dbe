#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Hostile PVs at pvscan-fast's per-PV caps, cheaply: COUNT PVs, each a VG of its own whose
metadata text is just under the 64 MiB text cap and close to the parser's node cap, built to
be assembled as device-mapper devices that share the bulk of that text.

Each VG names a second PV that does not exist, so none is ever complete: what is tested is
the cost of reading them, not of activating tens of thousands of LVs.

Usage: capped-pvs.py COUNT OUTDIR [PREFIX]

Writes to OUTDIR:
  heads.img  COUNT x 10 sectors: sector 1 the label and pv_header, sector 8 the mda header,
             sector 9 the text's first sector ("PREFIXnnnnn {" padded with blanks)
  bulk.img   the text's middle, the same for every PV: a logical_volumes section of many
             LVs with long strings, padded with blanks to whole sectors
  tails.img  COUNT x TAIL sectors: the rest of each VG (its own VG id, its one PV) and the
             trailer lvm2 writes, NUL-terminated
  tables     one line per PV: "NAME START LEN SEGMENT..." templates for dmsetup with
             @HEADS@, @BULK@ and @TAILS@ standing for the block devices of the three files
Each text differs (name and ids), so every PV costs its own read and parse; the checksums
are lvm2's over the whole text, computed once for the shared middle (crc32_combine).
"""
import os
import random
import struct
import sys
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.dont_write_bytecode = True
from lvmdisk import lvm_crc  # noqa: E402

SECTOR = 512
HEAD_SECTORS = 10
MDA_START = 4096
TEXT_MAX = 64 << 20  # pvscan-fast's PF_MDA_TEXT_MAX
EXTENT_SECTORS = 8192
MAGIC = b" LVM2 x[5A%r0N*>"
ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def gf2_times(mat, vec):
    s = 0
    i = 0
    while vec:
        if vec & 1:
            s ^= mat[i]
        vec >>= 1
        i += 1
    return s


def gf2_square(mat):
    return [gf2_times(mat, mat[n]) for n in range(32)]


def crc32_combine(crc1, crc2, len2):
    """zlib's crc32_combine: the CRC of A||B from crc32(A), crc32(B) and len(B), by applying
    to crc1 the operator that appends len2 zero bytes, built by squaring."""
    op = [0xEDB88320] + [1 << n for n in range(31)]  # one zero bit
    for _ in range(3):
        op = gf2_square(op)  # one zero byte
    while len2 > 0:
        if len2 & 1:
            crc1 = gf2_times(op, crc1)
        len2 >>= 1
        if len2:
            op = gf2_square(op)
    return crc1 ^ crc2


def new_id(rng):
    raw = "".join(rng.choice(ID_CHARS) for _ in range(32))
    cuts, out, i = [6, 4, 4, 4, 4, 4, 6], [], 0
    for c in cuts:
        out.append(raw[i:i + c])
        i += c
    return raw, "-".join(out)


def padded(text, multiple, fill=b" "):
    """text padded with blanks (a newline last) to a whole number of multiple bytes."""
    room = -(len(text) + 1) % multiple
    return text + fill * room + b"\n"


def bulk_text(rng, budget):
    """A logical_volumes section filling about budget bytes: LVs of one extent, each with a
    long string so that the text reaches its cap near the parser's node cap."""
    pad = "x" * 2200
    parts = [b"logical_volumes {\n"]
    size = len(parts[0])
    n = 0
    while True:
        _, lvid = new_id(rng)
        lv = ('lv%06d {\nid = "%s"\nstatus = ["READ", "WRITE", "VISIBLE"]\nflags = []\n'
              'creation_host = "%s"\ncreation_time = 1\nsegment_count = 1\n\n'
              'segment1 {\nstart_extent = 0\nextent_count = 1\n\ntype = "striped"\n'
              'stripe_count = 1\n\nstripes = [\n"pv0", 0\n]\n}\n}\n' % (n, lvid, pad)).encode()
        if size + len(lv) + 2 > budget:
            break
        parts.append(lv)
        size += len(lv)
        n += 1
    parts.append(b"}\n")
    return padded(b"".join(parts), SECTOR), n


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    count, out = int(sys.argv[1]), sys.argv[2]
    prefix = sys.argv[3] if len(sys.argv) == 4 else "ev"
    rng = random.Random("capped-pvs:" + prefix)
    os.makedirs(out, exist_ok=True)

    tail_room = 4096
    bulk, n_lvs = bulk_text(rng, TEXT_MAX - SECTOR - tail_room)
    bulk_crc0 = zlib.crc32(bulk, 0)
    with open(os.path.join(out, "bulk.img"), "wb") as f:
        f.write(bulk)
    tail_sectors = tail_room // SECTOR
    # the mda holds header, text; the data area (one extent) starts at the next MiB
    mda_size = SECTOR + SECTOR + len(bulk) + tail_room
    pe_start = (MDA_START + mda_size + (1 << 20) - 1) // (1 << 20) * (1 << 20)
    dev_bytes = pe_start + EXTENT_SECTORS * SECTOR
    dev_sectors = dev_bytes // SECTOR
    text_sectors = 1 + len(bulk) // SECTOR
    lines = []
    with open(os.path.join(out, "heads.img"), "wb") as heads, \
            open(os.path.join(out, "tails.img"), "wb") as tails:
        for i in range(count):
            name = "%s%05d" % (prefix, i)
            pv_raw, pv_id = new_id(rng)
            _, vg_id = new_id(rng)
            _, missing_id = new_id(rng)  # a second PV never seen: the VG is never complete
            first = padded(("%s {\n" % name).encode(), SECTOR)
            tail = ('id = "%s"\nseqno = 1\nformat = "lvm2"\n'
                    'status = ["RESIZEABLE", "READ", "WRITE"]\nflags = []\n'
                    'extent_size = %d\nmax_lv = 0\nmax_pv = 0\nmetadata_copies = 0\n\n'
                    'physical_volumes {\n\npv0 {\nid = "%s"\ndevice = "/dev/mapper/%s"\n\n'
                    'status = ["ALLOCATABLE"]\nflags = []\ndev_size = %d\npe_start = %d\n'
                    'pe_count = 1\n}\n\npv1 {\nid = "%s"\ndevice = "/dev/missing"\n\n'
                    'status = ["ALLOCATABLE"]\nflags = []\ndev_size = %d\npe_start = %d\n'
                    'pe_count = 1\n}\n}\n\n}\n# Generated by LVM2\n\n'
                    'contents = "Text Format Volume Group"\nversion = 1\n\ndescription = ""\n\n'
                    'creation_host = "capped"\ncreation_time = 1\n\n' %
                    (vg_id, EXTENT_SECTORS, pv_id, name, dev_sectors, pe_start // SECTOR,
                     missing_id, dev_sectors, pe_start // SECTOR)).encode() + b"\0"
            assert len(tail) <= tail_room
            text_len = len(first) + len(bulk) + len(tail)
            assert text_len <= TEXT_MAX
            # lvm2's sum: CRC-32 from its seed, no final xor; through zlib's conventions
            s = zlib.crc32(first, 0xF597A6CF ^ 0xFFFFFFFF)
            s = crc32_combine(s, bulk_crc0, len(bulk))
            text_crc = zlib.crc32(tail, s) ^ 0xFFFFFFFF

            head = bytearray(HEAD_SECTORS * SECTOR)
            lab = bytearray(SECTOR)
            lab[0:8] = b"LABELONE"
            struct.pack_into("<QII", lab, 8, 1, 0, 32)
            lab[24:32] = b"LVM2 001"
            pvh = bytearray(pv_raw.encode())
            pvh += struct.pack("<Q", dev_bytes)
            pvh += struct.pack("<QQQQ", pe_start, 0, 0, 0)
            pvh += struct.pack("<QQQQ", MDA_START, mda_size, 0, 0)
            pvh += struct.pack("<II", 2, 1)  # extension v2, PV_EXT_USED
            pvh += struct.pack("<QQ", 0, 0)
            lab[32:32 + len(pvh)] = pvh
            struct.pack_into("<I", lab, 16, lvm_crc(bytes(lab[20:])))
            head[SECTOR:2 * SECTOR] = lab
            mdah = bytearray(SECTOR)
            mdah[4:20] = MAGIC
            struct.pack_into("<IQQ", mdah, 20, 1, MDA_START, mda_size)
            struct.pack_into("<QQII", mdah, 40, SECTOR, text_len, text_crc, 0)
            struct.pack_into("<I", mdah, 0, lvm_crc(bytes(mdah[4:])))
            head[MDA_START:MDA_START + SECTOR] = mdah
            head[MDA_START + SECTOR:] = first
            heads.write(head)
            tails.write(tail + b"\0" * (tail_room - len(tail)))

            at = 0
            segs = []
            for dev, off, n in (("@HEADS@", i * HEAD_SECTORS, HEAD_SECTORS),
                                ("@BULK@", 0, text_sectors - 1),
                                ("@TAILS@", i * tail_sectors, tail_sectors)):
                segs.append("%d %d linear %s %d" % (at, n, dev, off))
                at += n
            segs.append("%d %d zero" % (at, dev_sectors - at))
            lines.append(name + "|" + "|".join(segs))
    with open(os.path.join(out, "tables"), "w") as f:
        f.write("\n".join(lines) + "\n")
    print("%d PVs: text %d bytes each (%d LVs), device %d sectors" %
          (count, len(first) + len(bulk) + len(tail), n_lvs, dev_sectors))


if __name__ == "__main__":
    main()
