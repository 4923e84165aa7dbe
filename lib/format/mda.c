/* SPDX-License-Identifier: GPL-2.0-or-later */
/* mda_header and raw_locn decoding; locating and checking the committed metadata text. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "format/crc.h"
#include "format/mda.h"
#include "format/names.h"

/* mda_header field offsets. */
#define MH_CHECKSUM 0U
#define MH_MAGIC    4U
#define MH_VERSION  20U
#define MH_START    24U
#define MH_SIZE	    32U
#define MH_SLOTS    40U

/* raw_locn: offset, size, checksum, flags. */
#define RL_OFFSET     0U
#define RL_SIZE	      8U
#define RL_CHECKSUM   16U
#define RL_FLAGS      20U
#define RL_SIZE_BYTES 24U

/* Room for 32 bytes shown as \xNN each, plus the NUL: a magic, or the start of a bad name. */
#define SHOWN_MAX      32U
#define MAGIC_TEXT_MAX (SHOWN_MAX * 4U + 1U)

/*
 * Device offset of a field for a diag. The base comes from disk and may sit
 * near UINT64_MAX; saturate instead of wrapping to a misleading small offset.
 */
static uint64_t field_at(uint64_t base, uint64_t off)
{
	uint64_t r;

	return pf_add_overflow_u64(base, off, &r) ? UINT64_MAX : r;
}

int pf_mda_header_decode(struct pf_span hdr, uint64_t expected_start,
			 struct pf_mda_header *ret, struct pf_diag *reterr)
{
	struct pf_mda_header h = {0};
	uint8_t magic[PF_MDA_MAGIC_LEN];
	char shown[MAGIC_TEXT_MAX];
	uint32_t crc;

	if (hdr.len < PF_MDA_HEADER_SIZE) {
		pf_diag_at(reterr, expected_start, "mda header truncated: %zu of %u bytes", hdr.len,
			   PF_MDA_HEADER_SIZE);
		return -EBADMSG;
	}

	(void)pf_span_le32(hdr, MH_CHECKSUM, &h.checksum);
	crc = pf_crc(PF_CRC_INITIAL, hdr.p + MH_MAGIC, PF_MDA_HEADER_SIZE - MH_MAGIC);
	if (h.checksum != crc) {
		pf_diag_at(reterr, field_at(expected_start, MH_CHECKSUM),
			   "mda header checksum mismatch: stored 0x%08" PRIx32
			   ", computed 0x%08" PRIx32 " over bytes %u-%u",
			   h.checksum, crc, MH_MAGIC, PF_MDA_HEADER_SIZE - 1);
		return -EBADMSG;
	}

	(void)pf_span_copy(hdr, MH_MAGIC, sizeof(magic), magic);
	if (memcmp(magic, PF_MDA_MAGIC, sizeof(magic))) {
		pf_diag_format_bytes(magic, sizeof(magic), shown, sizeof(shown));
		pf_diag_at(reterr, field_at(expected_start, MH_MAGIC),
			   "mda header magic is \"%s\", expected \"%s\"", shown, PF_MDA_MAGIC);
		return -EBADMSG;
	}

	(void)pf_span_le32(hdr, MH_VERSION, &h.version);
	if (h.version != PF_MDA_VERSION) {
		pf_diag_at(reterr, field_at(expected_start, MH_VERSION),
			   "mda header version is %" PRIu32 ", expected %u", h.version,
			   PF_MDA_VERSION);
		return -EBADMSG;
	}

	(void)pf_span_le64(hdr, MH_START, &h.start_bytes);
	if (h.start_bytes != expected_start) {
		pf_diag_at(reterr, field_at(expected_start, MH_START),
			   "mda header start is %" PRIu64 ", expected %" PRIu64
			   " (the metadata area offset in the pv_header)",
			   h.start_bytes, expected_start);
		return -EBADMSG;
	}

	/*
	 * 2.03.16 has no size check but then fails to read the text with a
	 * nonsense length; later lvm2 rejects the header, and so do we.
	 */
	(void)pf_span_le64(hdr, MH_SIZE, &h.size_bytes);
	if (h.size_bytes < PF_MDA_HEADER_SIZE) {
		pf_diag_at(reterr, field_at(expected_start, MH_SIZE),
			   "mda header size is %" PRIu64 ", expected at least %u", h.size_bytes,
			   PF_MDA_HEADER_SIZE);
		return -EBADMSG;
	}

	/* Like lvm2, the slot list ends at the first slot with offset 0; later slots stay zero. */
	for (unsigned i = 0; i < PF_MDA_SLOTS; i++) {
		uint64_t o = MH_SLOTS + (uint64_t)i * RL_SIZE_BYTES;
		struct pf_raw_locn rl;

		(void)pf_span_le64(hdr, o + RL_OFFSET, &rl.offset_bytes);
		if (rl.offset_bytes == 0)
			break;
		(void)pf_span_le64(hdr, o + RL_SIZE, &rl.size_bytes);
		(void)pf_span_le32(hdr, o + RL_CHECKSUM, &rl.checksum);
		(void)pf_span_le32(hdr, o + RL_FLAGS, &rl.flags);
		h.slots[i] = rl;
	}

	*ret = h;
	return 0;
}

bool pf_mda_is_ignored(const struct pf_mda_header *h)
{
	return h->slots[0].flags & PF_RAW_LOCN_IGNORED;
}

int pf_mda_text_locate(const struct pf_mda_header *h, struct pf_mda_text_loc *ret,
		       struct pf_diag *reterr)
{
	const struct pf_raw_locn *rl = &h->slots[0];
	uint64_t slot = field_at(h->start_bytes, MH_SLOTS);
	struct pf_mda_text_loc loc = {.checksum = rl->checksum, .total_bytes = rl->size_bytes};
	uint64_t end, len1, abs1, abs2, tmp;

	if (rl->offset_bytes == 0) {
		pf_diag_at(reterr, field_at(slot, RL_OFFSET),
			   "mda holds no metadata (slot 0 offset is 0)");
		return -ENODATA;
	}
	/* A header that did not come through pf_mda_header_decode() could still be this small. */
	if (h->size_bytes < PF_MDA_HEADER_SIZE) {
		pf_diag_at(reterr, field_at(h->start_bytes, MH_SIZE),
			   "mda size is %" PRIu64 ", expected at least %u", h->size_bytes,
			   PF_MDA_HEADER_SIZE);
		return -EBADMSG;
	}
	if (rl->offset_bytes < PF_MDA_HEADER_SIZE || rl->offset_bytes >= h->size_bytes) {
		pf_diag_at(reterr, field_at(slot, RL_OFFSET),
			   "metadata text offset is %" PRIu64 ", expected %u..%" PRIu64
			   " (inside the area, after its header)",
			   rl->offset_bytes, PF_MDA_HEADER_SIZE, h->size_bytes - 1);
		return -EBADMSG;
	}
	if (rl->size_bytes == 0 || rl->size_bytes > h->size_bytes - PF_MDA_HEADER_SIZE) {
		pf_diag_at(reterr, field_at(slot, RL_SIZE),
			   "metadata text size is %" PRIu64 ", expected 1..%" PRIu64
			   " (the area's buffer size)",
			   rl->size_bytes, h->size_bytes - PF_MDA_HEADER_SIZE);
		return -EBADMSG;
	}
	if (rl->size_bytes > PF_MDA_TEXT_MAX) {
		pf_diag_at(reterr, field_at(slot, RL_SIZE),
			   "metadata text size is %" PRIu64 ", larger than the %u bytes accepted",
			   rl->size_bytes, PF_MDA_TEXT_MAX);
		return -EBADMSG;
	}

	/* An offset + size past 2^64 certainly runs past the area end, so it wraps too. */
	if (pf_add_overflow_u64(rl->offset_bytes, rl->size_bytes, &end) || end > h->size_bytes)
		len1 = h->size_bytes - rl->offset_bytes;
	else
		len1 = rl->size_bytes;

	if (pf_add_overflow_u64(h->start_bytes, rl->offset_bytes, &abs1) ||
	    pf_add_overflow_u64(abs1, len1, &tmp)) {
		pf_diag_at(reterr, field_at(slot, RL_OFFSET),
			   "metadata text at mda start %" PRIu64 " + offset %" PRIu64
			   " lies beyond the largest device offset",
			   h->start_bytes, rl->offset_bytes);
		return -EBADMSG;
	}
	loc.offset1_bytes = abs1;
	loc.len1_bytes = len1;

	if (len1 < rl->size_bytes) {
		uint64_t len2 = rl->size_bytes - len1;

		if (pf_add_overflow_u64(h->start_bytes, PF_MDA_HEADER_SIZE, &abs2) ||
		    pf_add_overflow_u64(abs2, len2, &tmp)) {
			pf_diag_at(reterr, field_at(slot, RL_SIZE),
				   "wrapped metadata text at mda start %" PRIu64
				   " lies beyond the largest device offset",
				   h->start_bytes);
			return -EBADMSG;
		}
		loc.offset2_bytes = abs2;
		loc.len2_bytes = len2;
	}

	*ret = loc;
	return 0;
}

static bool text_char_is_space(uint8_t c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/* Byte i of the text seen as part1 || part2; i must be below the total length. */
static uint8_t text_byte(struct pf_span part1, struct pf_span part2, uint64_t i)
{
	return i < part1.len ? part1.p[i] : part2.p[i - part1.len];
}

static uint64_t text_offset(const struct pf_mda_text_loc *loc, uint64_t i)
{
	return i < loc->len1_bytes ? field_at(loc->offset1_bytes, i)
				   : field_at(loc->offset2_bytes, i - loc->len1_bytes);
}

int pf_mda_text_verify(const struct pf_mda_text_loc *loc, struct pf_span part1,
		       struct pf_span part2, struct pf_diag *reterr)
{
	char name[PF_NAME_MAX + 1], shown[MAGIC_TEXT_MAX];
	uint64_t total, n;
	uint32_t crc;

	if (part1.len != loc->len1_bytes) {
		pf_diag_at(reterr, loc->offset1_bytes,
			   "metadata text part 1 is %zu bytes, expected %" PRIu64, part1.len,
			   loc->len1_bytes);
		return -EBADMSG;
	}
	if (part2.len != loc->len2_bytes) {
		pf_diag_at(reterr, loc->offset2_bytes,
			   "metadata text part 2 is %zu bytes, expected %" PRIu64, part2.len,
			   loc->len2_bytes);
		return -EBADMSG;
	}

	crc = pf_crc(pf_crc(PF_CRC_INITIAL, part1.p, part1.len), part2.p, part2.len);
	if (crc != loc->checksum) {
		pf_diag_at(reterr, loc->offset1_bytes,
			   "metadata text checksum mismatch: stored 0x%08" PRIx32
			   ", computed 0x%08" PRIx32 " over %" PRIu64 " bytes",
			   loc->checksum, crc, loc->total_bytes);
		return -EBADMSG;
	}

	/*
	 * The VG name may straddle the wrap point, so read it byte by byte from
	 * both parts. Stop one byte past the longest valid name: that byte must
	 * already be the separator.
	 */
	total = (uint64_t)part1.len + part2.len;
	for (n = 0; n < total && n <= PF_NAME_MAX; n++) {
		uint8_t c = text_byte(part1, part2, n);

		if (c == '{' || text_char_is_space(c))
			break;
		if (n < PF_NAME_MAX)
			name[n] = (char)c;
	}
	if (n == total || n > PF_NAME_MAX) {
		/* Point at where the separator had to be, or at the start when the text ran out. */
		uint64_t where = n == total ? loc->offset1_bytes : text_offset(loc, PF_NAME_MAX);

		pf_diag_at(
		    reterr, where,
		    "metadata text does not start with a VG name followed by whitespace or '{'");
		return -EBADMSG;
	}
	if (!pf_name_is_valid(name, (size_t)n)) {
		pf_diag_format_bytes((const uint8_t *)name, n < SHOWN_MAX ? (size_t)n : SHOWN_MAX, shown,
			     sizeof(shown));
		pf_diag_at(reterr, loc->offset1_bytes,
			   "metadata text starts with \"%s\"%s, which is not a valid VG name",
			   shown, n > SHOWN_MAX ? "..." : "");
		return -EBADMSG;
	}
	return 0;
}
