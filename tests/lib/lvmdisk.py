# SPDX-License-Identifier: GPL-2.0-or-later
"""What the test scripts need of lvm2's on-disk format: its checksum, a metadata text rewrite
with valid checksums, the PVID of a label.

As a program: lvmdisk.py pvids LIST prints "IMAGE PVID" for each image path in the file LIST."""
import struct
import sys
import zlib


def lvm_crc(data, init=0xF597A6CF):
    """CRC-32 (reflected, polynomial 0xEDB88320) from INIT, with no final xor, as lvm2 sums
    labels, mda headers and metadata text."""
    return zlib.crc32(data, init ^ 0xFFFFFFFF) ^ 0xFFFFFFFF


def rewrite_text(path, edit, mda=4096):
    """Pass the committed metadata text of the mda header at byte MDA of the image at PATH
    through EDIT (which changes a bytearray in place, keeping its length) and write it back
    with the text and header checksums lvm2 expects."""
    with open(path, "r+b") as f:
        f.seek(mda)
        hdr = bytearray(f.read(512))
        off, size = struct.unpack_from("<QQ", hdr, 40)
        f.seek(mda + off)
        text = bytearray(f.read(size))
        edit(text)
        f.seek(mda + off)
        f.write(text)
        struct.pack_into("<I", hdr, 56, lvm_crc(bytes(text)))
        struct.pack_into("<I", hdr, 0, lvm_crc(bytes(hdr[4:])))
        f.seek(mda)
        f.write(hdr)


def pvid(path):
    """The PVID of the image at PATH: LABELONE in one of the first four sectors, the PVID
    32 bytes into it."""
    with open(path, "rb") as f:
        head = f.read(2048)
    sec = next(s for s in range(4) if head[s * 512:s * 512 + 8] == b"LABELONE")
    return head[sec * 512 + 32:sec * 512 + 64].decode()


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "pvids":
        for image in open(sys.argv[2]).read().split():
            print(image, pvid(image))
    elif len(sys.argv) == 3 and sys.argv[1] == "crc":
        with open(sys.argv[2], "rb") as f:
            print("0x%08x" % lvm_crc(f.read()))
    else:
        sys.exit("usage: lvmdisk.py pvids LIST | lvmdisk.py crc FILE")
