/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The pieces of one device read so far, and serving a probe's request from
 * them: whole from one piece in place, or joined from several. The async scan
 * keeps its reads this way, and so does the tee's record of what it saw.
 */
#ifndef PF_EXTENTS_H
#define PF_EXTENTS_H

#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"

/* The probe asks for at most 7 ranges (label, 2 x header + 2 text parts); room to spare. */
#define PF_EXTENTS_MAX 8U

struct pf_extent {
	uint64_t off;
	size_t len;   /* bytes of the device at off, in buf */
	uint8_t *buf;
	size_t alloc; /* size of buf when the holder owns it; 0 when buf is borrowed */
};

/* Filled by the holder, who frees the buffers it owns; more pieces than fit: start over. */
struct pf_extents {
	unsigned n;
	struct pf_extent x[PF_EXTENTS_MAX];
};

/* First byte at or after off that no extent holds, or end. */
uint64_t pf_extents_covered_until(const struct pf_extents *e, uint64_t off, uint64_t end)
	_nonnull_(1) _pure_;

/* Start of the first extent beyond off, or UINT64_MAX. */
uint64_t pf_extents_next(const struct pf_extents *e, uint64_t off) _nonnull_(1) _pure_;

/*
 * The bytes [off, off + len), all of them held (pf_extents_covered_until() said so): *ret
 * points into the extent holding them whole, or, when they are spread over several, at a
 * fresh copy joined from the pieces, which *ret_tmp owns (else NULL). *ret_len is len.
 * Returns 0, -E2BIG when a copy would exceed max bytes, or -ENOMEM.
 */
int pf_extents_view(const struct pf_extents *e, uint64_t off, uint64_t len, uint64_t max,
		    const uint8_t **ret, uint8_t **ret_tmp, size_t *ret_len)
	_nonnull_(1, 5, 6, 7) _must_check_;

#endif /* PF_EXTENTS_H */
