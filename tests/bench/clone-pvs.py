#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""Make N copies of an lvm2-made fixture, each a distinct VG with its own ids.

Usage: clone-pvs.py [--noautoactivate] FIXTURE_DIR COUNT OUTDIR [PREFIX]

Every PV UUID, the VG UUID and every LV UUID are replaced by fresh ones
(consistently across the PVs of one copy), the VG gets the name PREFIXnnnnn, and
the label CRC, the metadata text checksum and the mda header checksums are
recomputed, so lvm2 and pvscan-fast both accept the copies as real PVs. Images
are written sparse. Prints one image path per line, grouped by copy.

--noautoactivate marks each VG as `vgchange --setautoactivation n` does (flag
NOAUTOACTIVATE): a host's own udev rules and lvm2 commands doing autoactivation
then leave the copies alone.
"""
import lzma
import os
import random
import re
import struct
import sys

# lvm2's checksum is shared with the tests (tests/lib); no bytecode is left in the source tree.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.dont_write_bytecode = True
from lvmdisk import lvm_crc  # noqa: E402

ID_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
BLOCK = 65536  # the unit of sparseness of the copies


def dashed(raw):
    cuts = [6, 4, 4, 4, 4, 4, 6]
    out, i = [], 0
    for c in cuts:
        out.append(raw[i:i + c])
        i += c
    return "-".join(out)


class Copy:
    """A template image with a few ranges changed: only the blocks changed are copied, so a
    copy costs what it changes, not the image's size. Sliced as a bytearray is (step 1)."""

    def __init__(self, tmpl):
        self.tmpl, self.blocks = tmpl, {}

    def _block(self, b):
        return self.blocks.get(b) or self.tmpl[b * BLOCK:(b + 1) * BLOCK]

    def __getitem__(self, sl):
        out = bytearray()
        for b in range(sl.start // BLOCK, (sl.stop - 1) // BLOCK + 1):
            out += self._block(b)[max(sl.start - b * BLOCK, 0):sl.stop - b * BLOCK]
        return out

    def __setitem__(self, sl, data):
        assert sl.stop - sl.start == len(data)
        for b in range(sl.start // BLOCK, (sl.stop - 1) // BLOCK + 1):
            blk = self.blocks.setdefault(b, bytearray(self._block(b)))
            lo = max(sl.start, b * BLOCK)
            hi = min(sl.stop, (b + 1) * BLOCK)
            blk[lo - b * BLOCK:hi - b * BLOCK] = data[lo - sl.start:hi - sl.start]

    def write(self, f, nonzero):
        """Write the copy to f, sparse: the template's non-zero blocks and the changed ones."""
        f.truncate(len(self.tmpl))
        for b in sorted(nonzero | self.blocks.keys()):
            f.seek(b * BLOCK)
            f.write(self._block(b))


def put(img, fmt, off, *values):
    img[off:off + struct.calcsize(fmt)] = struct.pack(fmt, *values)


def label_sector(img):
    for s in range(4):
        if img[s * 512:s * 512 + 8] == b"LABELONE":
            return s
    raise SystemExit("no label")


def mdas(img, sec):
    base = sec * 512
    off = base + struct.unpack_from("<I", img, base + 20)[0] + 40
    while struct.unpack_from("<Q", img, off)[0]:  # data areas
        off += 16
    off += 16
    res = []
    while struct.unpack_from("<Q", img, off)[0]:
        res.append(struct.unpack_from("<QQ", img, off))
        off += 16
    return res


def main():
    args = [a for a in sys.argv[1:] if a != "--noautoactivate"]
    noautoactivate = len(args) < len(sys.argv) - 1
    fixture, count, outdir = args[0], int(args[1]), args[2]
    prefix = args[3] if len(args) > 3 else "bench"
    # Deterministic, but distinct per fixture and prefix: copies of two
    # fixtures attached together must not share PVIDs.
    rng = random.Random("%s/%s" % (os.path.basename(os.path.normpath(fixture)), prefix))
    names = sorted(n for n in os.listdir(fixture) if n.endswith(".img.xz"))
    templates = [lzma.open(os.path.join(fixture, n)).read() for n in names]
    nonzero = [set(b for b in range((len(t) + BLOCK - 1) // BLOCK)
                   if t[b * BLOCK:(b + 1) * BLOCK].strip(b"\0")) for t in templates]
    os.makedirs(outdir, exist_ok=True)
    for k in range(count):
        ids = {}

        def fresh_raw(raw):
            if raw not in ids:
                ids[raw] = "".join(rng.choice(ID_CHARS) for _ in range(32))
            return ids[raw]

        def fresh(m):
            return dashed(fresh_raw(m.group(0).replace("-", "")))

        vgname = "%s%05d" % (prefix, k)
        for name, tmpl, blocks in zip(names, templates, nonzero):
            img = Copy(tmpl)
            sec = label_sector(tmpl)
            pvid_off = sec * 512 + 32
            img[pvid_off:pvid_off + 32] = fresh_raw(img[pvid_off:pvid_off + 32].decode()).encode()
            put(img, "<I", sec * 512 + 16, lvm_crc(bytes(img[sec * 512 + 20:sec * 512 + 512])))
            for start, size in mdas(tmpl, sec):
                hdr = img[start:start + 512]
                roff, rsize = struct.unpack_from("<QQ", hdr, 40)
                if not roff:
                    continue
                text = bytes(img[start + roff:start + roff + rsize]).rstrip(b"\0").decode()
                text = re.sub(r"\b[A-Za-z0-9]{6}(-[A-Za-z0-9]{4}){5}-[A-Za-z0-9]{6}\b", fresh, text)
                text = re.sub(r"^[A-Za-z0-9+_.-]+ \{", vgname + " {", text, count=1)
                if noautoactivate:
                    # the VG's own flags come first, before any PV's or LV's
                    text = re.sub(r"^flags = \[(.*?)\]$",
                                  lambda m: 'flags = [%s"NOAUTOACTIVATE"]'
                                  % (m.group(1) + ", " if m.group(1) else ""),
                                  text, count=1, flags=re.M)
                data = text.encode() + b"\0"
                if roff + len(data) > size:
                    roff = 512
                img[start + roff:start + roff + len(data)] = data
                put(img, "<QQI", start + 40, roff, len(data), lvm_crc(data))
                put(img, "<I", start, lvm_crc(bytes(img[start + 4:start + 512])))
            path = os.path.join(outdir, "%s%05d-%s" % (prefix, k, name[:-3]))
            with open(path, "wb") as f:
                img.write(f, blocks)
            print(path)


if __name__ == "__main__":
    main()
