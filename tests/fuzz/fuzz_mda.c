/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the input is a metadata area at device offset 0, its 512-byte
 * header first; decode the header, locate the committed text, and verify it
 * when it lies inside the input. A second pass runs on a copy whose header
 * checksum and slot-0 text checksum are made right, so that the fuzzer gets
 * past both checksums to the slot bounds and the VG name check.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/crc.h"
#include "format/mda.h"
#include "fuzz.h"

static void check_diag(const struct pf_diag *d)
{
	if (!d->msg[0] || !memchr(d->msg, '\0', sizeof(d->msg)))
		abort();
}

/* The location must describe exactly the slot's bytes, inside the area. */
static void check_loc(const struct pf_mda_header *h, const struct pf_mda_text_loc *loc)
{
	const struct pf_raw_locn *rl = &h->slots[0];

	if (loc->len1_bytes == 0 || loc->len1_bytes + loc->len2_bytes != rl->size_bytes ||
	    loc->total_bytes != rl->size_bytes || loc->total_bytes > PF_MDA_TEXT_MAX ||
	    loc->checksum != rl->checksum)
		abort();
	if (loc->offset1_bytes != h->start_bytes + rl->offset_bytes ||
	    loc->len1_bytes > h->size_bytes - rl->offset_bytes)
		abort();
	if (loc->len2_bytes &&
	    (loc->offset2_bytes != h->start_bytes + PF_MDA_HEADER_SIZE ||
	     loc->len2_bytes > rl->offset_bytes - PF_MDA_HEADER_SIZE))
		abort();
	if (!loc->len2_bytes && loc->offset2_bytes)
		abort();
}

/* Returns 0 when the text was located inside the input, filling *ret_loc. */
static int run(const uint8_t *data, size_t size, struct pf_mda_text_loc *ret_loc)
{
	struct pf_span all = pf_span_make(data, size), part1, part2 = { 0 };
	struct pf_mda_text_loc loc;
	struct pf_mda_header h;
	struct pf_diag diag;
	int r;

	r = pf_mda_header_decode(all, 0, &h, &diag);
	if (r < 0) {
		if (r != -EBADMSG)
			abort();
		check_diag(&diag);
		return r;
	}
	(void)pf_mda_is_ignored(&h);

	r = pf_mda_text_locate(&h, &loc, &diag);
	if (r < 0) {
		if (r != -EBADMSG && r != -ENODATA)
			abort();
		check_diag(&diag);
		return r;
	}
	check_loc(&h, &loc);

	if (pf_span_sub(all, loc.offset1_bytes, loc.len1_bytes, &part1) < 0)
		return -ERANGE;
	if (loc.len2_bytes && pf_span_sub(all, loc.offset2_bytes, loc.len2_bytes, &part2) < 0)
		return -ERANGE;
	*ret_loc = loc;
	r = pf_mda_text_verify(&loc, part1, part2, &diag);
	if (r < 0) {
		if (r != -EBADMSG)
			abort();
		check_diag(&diag);
	}
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_mda_text_loc loc;
	uint8_t *copy;
	uint32_t crc;

	(void)run(data, size, &loc);
	if (size < PF_MDA_HEADER_SIZE)
		return 0;

	/* An exact-size heap copy keeps ASan's view of the end of the input. */
	copy = malloc(size);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	pf_put_le32(copy, pf_crc(PF_CRC_INITIAL, copy + 4, PF_MDA_HEADER_SIZE - 4));
	if (run(copy, size, &loc) == 0) {
		crc = pf_crc(PF_CRC_INITIAL, copy + loc.offset1_bytes, loc.len1_bytes);
		crc = pf_crc(crc, copy + loc.offset2_bytes, loc.len2_bytes);
		pf_put_le32(copy + 40 + 16, crc);
		pf_put_le32(copy, pf_crc(PF_CRC_INITIAL, copy + 4, PF_MDA_HEADER_SIZE - 4));
		(void)run(copy, size, &loc);
	}
	free(copy);
	return 0;
}
