/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where lvm2 2.03.16 looks for md RAID superblocks on a member device and how
 * it recognises them: the md magic of 1.1/1.2 at the start, and the 0.90,
 * 1.0, Intel IMSM and SNIA DDF superblocks at the end. Pure decoding of bytes
 * already read.
 */
#ifndef PF_MDSB_H
#define PF_MDSB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"
#include "base/span.h"

/* lvm2 skips the md checks on devices under twice md's 64 KiB reserved area. */
#define PF_MDSB_MIN_DEV_BYTES (128u * 1024)
/* Bytes from the start of the device pf_mdsb_at_start() needs: md 1.2 magic at 4096. */
#define PF_MDSB_START_BYTES 4100

/*
 * md 1.1 (at 0) or 1.2 (at 4 KiB) superblock magic in head, the device's
 * first bytes. compat: lvm2 compares the bytes in host order and, only on
 * big-endian hosts, also swapped; so a little-endian host recognises just the
 * little-endian magic. False when head is shorter than PF_MDSB_START_BYTES and
 * the magic is not in what it holds.
 */
bool pf_mdsb_at_start(struct pf_span head) _pure_;

/*
 * md superblocks that sit at the end of a member device, which lvm2 looks for
 * only in its "full" md check (lib/device/dev-md.c): 0.90 (64 KiB below the
 * end rounded down to 64 KiB), 1.0 (8 KiB below the end rounded down to 4
 * KiB), Intel IMSM (its signature 1 KiB below the end, 8 KiB on devices with
 * 4 KiB logical blocks) and SNIA DDF (a header in the last sector, else 257
 * sectors from the end, with a good CRC). lvm2 tries them in this order.
 */
enum pf_mdsb_end_kind {
	PF_MDSB_END_NONE = 0,
	PF_MDSB_END_0_90,
	PF_MDSB_END_1_0,
	PF_MDSB_END_IMSM,
	PF_MDSB_END_DDF,
	_PF_MDSB_END_MAX,
};

/* Most bytes pf_mdsb_end_range() asks for: the last 257 sectors. */
#define PF_MDSB_END_BYTES (257u * 512)

/*
 * The bytes [*ret_off, *ret_off + *ret_len) of a device of dev_size_bytes
 * that pf_mdsb_end_find() needs, for a device with logical blocks of lbs
 * bytes (0: unknown). They end at the device's last whole sector. Returns 0,
 * or -ERANGE for a device lvm2 does not look at (under PF_MDSB_MIN_DEV_BYTES).
 */
int pf_mdsb_end_range(uint64_t dev_size_bytes, unsigned lbs, uint64_t *ret_off, uint64_t *ret_len)
	_nonnull_(3, 4) _must_check_;

/*
 * Which end-of-device md superblock lvm2 would find, from the device's bytes
 * [buf_off, buf_off + len), which must hold the range above. Returns an enum
 * pf_mdsb_end_kind (> 0, with *ret_sb_off set to where it is),
 * PF_MDSB_END_NONE, or -EINVAL when buf does not hold the range (or lvm2
 * would not look).
 */
int pf_mdsb_end_find(const uint8_t *buf, size_t len, uint64_t buf_off, uint64_t dev_size_bytes,
		     unsigned lbs, uint64_t *ret_sb_off) _nonnull_(6) _must_check_;

/* The md metadata version name of a kind ("0.90", "imsm"); NULL for NONE or out of range. */
const char *pf_mdsb_end_name(enum pf_mdsb_end_kind k) _pure_;

#endif /* PF_MDSB_H */
