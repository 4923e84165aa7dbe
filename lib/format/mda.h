/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Metadata areas: the 512-byte mda_header with its raw_locn slots, where the
 * committed metadata text lies in the circular buffer (wrap-around included),
 * and the text's checksum. Pure: callers read the bytes, this file decides.
 */
#ifndef PF_MDA_H
#define PF_MDA_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/macro.h"
#include "base/span.h"

#define PF_MDA_HEADER_SIZE 512U
#define PF_MDA_MAGIC " LVM2 x[5A%r0N*>"
#define PF_MDA_MAGIC_LEN 16U
#define PF_MDA_VERSION 1U
#define PF_RAW_LOCN_IGNORED 0x1U
/* Slots decoded from the header: 0 committed, 1 precommitted (only ever read for display). */
#define PF_MDA_SLOTS 2U
/* Largest metadata text accepted: lvm2 caps one copy at half a (large) area; this bounds allocation. */
#define PF_MDA_TEXT_MAX (64U * 1024U * 1024U)

struct pf_raw_locn {
	uint64_t offset_bytes; /* relative to the mda start */
	uint64_t size_bytes;   /* text length including its trailing NUL */
	uint32_t checksum;
	uint32_t flags;
};

struct pf_mda_header {
	uint32_t checksum;
	uint32_t version;
	uint64_t start_bytes; /* absolute device offset of this header */
	uint64_t size_bytes;  /* whole area, header included */
	struct pf_raw_locn slots[PF_MDA_SLOTS];
};

/*
 * Where the committed text lies on the device: one extent, or two when it wraps
 * past the end of the area and continues right after the header.
 */
struct pf_mda_text_loc {
	uint64_t offset1_bytes; /* absolute device offsets */
	uint64_t len1_bytes;
	uint64_t offset2_bytes; /* 0 / 0 when not wrapped */
	uint64_t len2_bytes;
	uint64_t total_bytes; /* len1 + len2 = raw_locn size */
	uint32_t checksum;
};

/*
 * Decode and validate a 512-byte mda header expected at absolute offset
 * `expected_start` (from the pv_header): checksum, magic, version, start,
 * size >= 512. compat: lvm2 never compares the header's size with the
 * pv_header's (pvck only reports it), so neither does this. Returns 0, or
 * -EBADMSG with reterr naming the failed check and its device byte offset.
 */
int pf_mda_header_decode(struct pf_span hdr, uint64_t expected_start,
			 struct pf_mda_header *ret, struct pf_diag *reterr) _nonnull_(3) _must_check_;

/* raw_locn[0] is flagged ignored (pvchange --metadataignore y): the text may be stale. */
bool pf_mda_is_ignored(const struct pf_mda_header *h) _nonnull_(1);

/*
 * Locate the committed text. Returns 0; -ENODATA when the slot is empty
 * (offset 0: fresh PV or removed VG); -EBADMSG when the slot points outside the
 * area or the text is larger than PF_MDA_TEXT_MAX. Ignored mdas are located
 * like any other: deciding to skip them is the caller's policy.
 */
int pf_mda_text_locate(const struct pf_mda_header *h, struct pf_mda_text_loc *ret,
		       struct pf_diag *reterr) _nonnull_(1, 2) _must_check_;

/*
 * Verify the text read from the extents of `loc` (part2 empty when not
 * wrapped): the CRC over both parts, then that the text starts with a valid VG
 * name followed by whitespace or '{'. Returns 0 or -EBADMSG.
 */
int pf_mda_text_verify(const struct pf_mda_text_loc *loc, struct pf_span part1, struct pf_span part2,
		       struct pf_diag *reterr) _nonnull_(1) _must_check_;

#endif /* PF_MDA_H */
