/* SPDX-License-Identifier: GPL-2.0-or-later */
/* md superblock magic at the start of a device and lvm2's end-of-device md superblock layouts. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "format/crc.h"
#include "format/mdsb.h"

#define MD_SB_MAGIC	     0xa92b4efcu
#define MD_1_2_OFFSET	     4096u
#define MD_RESERVED_SECTORS  128u /* md's 64 KiB: 0.90 sits in the last such block */
#define MD_1_0_BACK_SECTORS  16u  /* 1.0: 8 KiB below the end ... */
#define MD_1_0_ALIGN_SECTORS 8u	  /* ... rounded down to 4 KiB */
#define IMSM_SIGNATURE	     "Intel Raid ISM Cfg Sig. "
#define IMSM_SIG_LEN	     (sizeof(IMSM_SIGNATURE) - 1)
#define IMSM_BACK_BYTES	     1024u
#define IMSM_BACK_BYTES_4K   8192u /* on devices with 4 KiB logical blocks */
#define IMSM_4K_LBS	     4096u
#define DDF_MAGIC	     0xde11de11u
#define DDF_MIN_SIZE_BYTES   0x30000u
#define DDF_HEADER_BYTES     512u
#define DDF_CRC_OFFSET	     4u
#define DDF_ALT_BACK_SECTORS 257u /* the second place lvm2 (after libblkid) looks */

static const char *const end_names[_PF_MDSB_END_MAX] = {
	[PF_MDSB_END_0_90] = "0.90",
	[PF_MDSB_END_1_0] = "1.0",
	[PF_MDSB_END_IMSM] = "imsm",
	[PF_MDSB_END_DDF] = "ddf",
};

/* The md magic at off, as lvm2 compares it (see pf_mdsb_at_start). */
static bool has_md_magic(struct pf_span s, uint64_t off)
{
	uint32_t native, le;

	if (pf_span_copy(s, off, sizeof(native), &native) < 0 || pf_span_le32(s, off, &le) < 0)
		return false;
	return native == MD_SB_MAGIC || le == MD_SB_MAGIC;
}

bool pf_mdsb_at_start(struct pf_span head)
{
	return has_md_magic(head, 0) || has_md_magic(head, MD_1_2_OFFSET);
}

/* Where lvm2 looks for each end-of-device superblock, as byte offsets. */
struct md_end_layout {
	uint64_t sb_0_90, sb_1_0, imsm, ddf_last, ddf_alt;
	bool ddf; /* lvm2 looks for DDF only on devices of 192 KiB or more */
	uint64_t start, end; /* what must be read: the lowest offset up to the last whole sector */
};

/* lvm2 works in whole sectors of the device's size; a partial last sector is never looked at. */
static int md_end_layout(uint64_t dev_size_bytes, unsigned lbs, struct md_end_layout *ret)
{
	uint64_t n = dev_size_bytes >> 9;
	struct md_end_layout l = { 0 };

	if (n < 2 * MD_RESERVED_SECTORS)
		return -ERANGE;
	l.end = n << 9;
	l.sb_0_90 = ((n & ~(uint64_t)(MD_RESERVED_SECTORS - 1)) - MD_RESERVED_SECTORS) << 9;
	l.sb_1_0 = ((n - MD_1_0_BACK_SECTORS) & ~(uint64_t)(MD_1_0_ALIGN_SECTORS - 1)) << 9;
	l.imsm = l.end - (lbs == IMSM_4K_LBS ? IMSM_BACK_BYTES_4K : IMSM_BACK_BYTES);
	l.ddf = l.end >= DDF_MIN_SIZE_BYTES;
	l.start = l.sb_0_90;
	if (l.ddf) {
		l.ddf_last = l.end - DDF_HEADER_BYTES;
		l.ddf_alt = (n - DDF_ALT_BACK_SECTORS) << 9;
		l.start = l.ddf_alt;
	}
	*ret = l;
	return 0;
}

int pf_mdsb_end_range(uint64_t dev_size_bytes, unsigned lbs, uint64_t *ret_off, uint64_t *ret_len)
{
	struct md_end_layout l;
	int r = md_end_layout(dev_size_bytes, lbs, &l);

	if (r < 0)
		return r;
	*ret_off = l.start;
	*ret_len = l.end - l.start;
	return 0;
}

/*
 * A DDF header at off: 1 with a good CRC, 0 with the magic but a bad CRC
 * (lvm2 then looks no further), -1 without the magic. lvm2 takes the magic
 * and the CRC in either byte order; the CRC is its own over the header with
 * the CRC field set to all ones, started from 0.
 */
static int ddf_header(struct pf_span s, uint64_t off)
{
	uint8_t hdr[DDF_HEADER_BYTES];
	uint32_t magic = 0, magic_be = 0, stored = 0, stored_be = 0, crc;
	struct pf_span h;

	if (pf_span_copy(s, off, sizeof(hdr), hdr) < 0)
		return -1;
	h = pf_span_make(hdr, sizeof(hdr));
	if (pf_span_le32(h, 0, &magic) < 0 || pf_span_be32(h, 0, &magic_be) < 0 ||
	    pf_span_le32(h, DDF_CRC_OFFSET, &stored) < 0 ||
	    pf_span_be32(h, DDF_CRC_OFFSET, &stored_be) < 0)
		return -1;
	if (magic != DDF_MAGIC && magic_be != DDF_MAGIC)
		return -1;
	memset(hdr + DDF_CRC_OFFSET, 0xff, 4);
	crc = pf_crc(0, hdr, sizeof(hdr));
	return crc == stored || crc == stored_be;
}

int pf_mdsb_end_find(const uint8_t *buf, size_t len, uint64_t buf_off, uint64_t dev_size_bytes,
		     unsigned lbs, uint64_t *ret_sb_off)
{
	struct pf_span s = pf_span_make(buf, len);
	struct md_end_layout l;
	uint64_t sb;
	int r;

	if (md_end_layout(dev_size_bytes, lbs, &l) < 0 || l.start < buf_off ||
	    !pf_span_has(s, l.start - buf_off, l.end - l.start))
		return -EINVAL;
	if (has_md_magic(s, l.sb_0_90 - buf_off)) {
		*ret_sb_off = l.sb_0_90;
		return PF_MDSB_END_0_90;
	}
	if (has_md_magic(s, l.sb_1_0 - buf_off)) {
		*ret_sb_off = l.sb_1_0;
		return PF_MDSB_END_1_0;
	}
	if (pf_span_has(s, l.imsm - buf_off, IMSM_SIG_LEN) &&
	    !memcmp(s.p + (l.imsm - buf_off), IMSM_SIGNATURE, IMSM_SIG_LEN)) {
		*ret_sb_off = l.imsm;
		return PF_MDSB_END_IMSM;
	}
	if (!l.ddf)
		return PF_MDSB_END_NONE;
	sb = l.ddf_last;
	r = ddf_header(s, sb - buf_off);
	if (r < 0) {
		sb = l.ddf_alt;
		r = ddf_header(s, sb - buf_off);
	}
	if (r <= 0)
		return PF_MDSB_END_NONE;
	*ret_sb_off = sb;
	return PF_MDSB_END_DDF;
}

const char *pf_mdsb_end_name(enum pf_mdsb_end_kind k)
{
	if ((unsigned)k >= _PF_MDSB_END_MAX)
		return NULL;
	return end_names[k];
}
