/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Finding and decoding the LVM2 label (label_header + pv_header + extension) in sectors 0..3. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "format/crc.h"
#include "format/label.h"

/* label_header field offsets within the label sector. */
#define LH_ID	  0U
#define LH_SECTOR 8U
#define LH_CRC	  16U
#define LH_OFFSET 20U
#define LH_TYPE	  24U
#define LH_SIZE	  32U

/* pv_header: uuid, device size, then the first disk_locn list. */
#define PVH_UUID	0U
#define PVH_DEVICE_SIZE 32U
#define PVH_LISTS	40U
#define PVH_FIXED_SIZE	40U

#define DISK_LOCN_SIZE 16U
#define EXT_FIXED_SIZE 8U /* version + flags; bootloader list follows */

/* Room for 8 bytes shown as \xNN each, plus the NUL. */
#define MAGIC_TEXT_MAX (8U * 4U + 1U)

/*
 * The checks lvm2 makes before it commits to a sector (id, sector_xl, CRC,
 * type). A sector failing one of them is skipped in favour of a later one.
 */
static int label_select(struct pf_span sec, unsigned sector, struct pf_diag *reterr)
{
	uint64_t base = (uint64_t)sector * PF_SECTOR_SIZE;
	uint8_t id[8], type[8];
	char shown[MAGIC_TEXT_MAX];
	uint64_t sector_xl;
	uint32_t crc_xl, crc;

	if (pf_span_copy(sec, LH_ID, sizeof(id), id) < 0 || memcmp(id, PF_LABEL_ID, sizeof(id))) {
		pf_diag_at(reterr, base + LH_ID, "no %s id in sector %u", PF_LABEL_ID, sector);
		return -ENODATA;
	}
	/* Everything after the id needs the whole sector: the CRC covers all of it. */
	if (sec.len < PF_SECTOR_SIZE) {
		pf_diag_at(reterr, base, "label sector %u truncated: %zu of %u bytes", sector,
			   sec.len, PF_SECTOR_SIZE);
		return -EBADMSG;
	}

	(void)pf_span_le64(sec, LH_SECTOR, &sector_xl);
	if (sector_xl != sector) {
		pf_diag_at(reterr, base + LH_SECTOR,
			   "label sector_xl is %" PRIu64
			   ", expected %u (the sector it was found in)",
			   sector_xl, sector);
		return -EBADMSG;
	}

	(void)pf_span_le32(sec, LH_CRC, &crc_xl);
	crc = pf_crc(PF_CRC_INITIAL, sec.p + LH_OFFSET, PF_SECTOR_SIZE - LH_OFFSET);
	if (crc_xl != crc) {
		pf_diag_at(reterr, base + LH_CRC,
			   "label CRC mismatch: stored 0x%08" PRIx32 ", computed 0x%08" PRIx32
			   " over bytes %u-%u",
			   crc_xl, crc, LH_OFFSET, PF_SECTOR_SIZE - 1);
		return -EBADMSG;
	}

	(void)pf_span_copy(sec, LH_TYPE, sizeof(type), type);
	if (memcmp(type, PF_LABEL_TYPE, sizeof(type))) {
		pf_diag_format_bytes(type, sizeof(type), shown, sizeof(shown));
		pf_diag_at(reterr, base + LH_TYPE, "label type is \"%s\", expected \"%s\"", shown,
			   PF_LABEL_TYPE);
		return -EBADMSG;
	}
	return 0;
}

/*
 * Walk one disk_locn list starting at *pos, which must end with an entry whose
 * offset is 0 and that lies wholly inside the sector. On success *pos is just
 * past the terminator.
 */
static int walk_locn_list(struct pf_span sec, uint64_t base, const char *what, uint64_t *pos,
			  struct pf_disk_locn *areas, unsigned *ret_n, struct pf_diag *reterr)
{
	uint64_t p = *pos;
	unsigned n = 0;

	for (;;) {
		uint64_t offset, size;

		if (pf_span_le64(sec, p, &offset) < 0 || pf_span_le64(sec, p + 8, &size) < 0) {
			pf_diag_at(reterr, base + p,
				   "%s list has no terminator before the end of the label sector "
				   "(entry %u would be at byte %" PRIu64 " of %u)",
				   what, n, p, PF_SECTOR_SIZE);
			return -EBADMSG;
		}
		p += DISK_LOCN_SIZE;
		if (offset == 0)
			break;
		/* Unreachable with 512-byte sectors; keeps the array bound independent of that. */
		if (n >= PF_LABEL_LOCN_MAX) {
			pf_diag_at(reterr, base + p - DISK_LOCN_SIZE,
				   "%s list has more than %u entries", what, PF_LABEL_LOCN_MAX);
			return -EBADMSG;
		}
		areas[n].offset_bytes = offset;
		areas[n].size_bytes = size;
		n++;
	}
	*pos = p;
	*ret_n = n;
	return 0;
}

/* pv_header and extension of a sector that already passed label_select(). */
static int label_decode_body(struct pf_span sec, unsigned sector, struct pf_pv_label *ret,
			     struct pf_diag *reterr)
{
	uint64_t base = (uint64_t)sector * PF_SECTOR_SIZE;
	struct pf_pv_label l = {.sector = sector};
	uint64_t pvh, pos;
	int r;

	/* label_select() guaranteed a whole sector, so these fixed-offset reads cannot fail. */
	(void)pf_span_le32(sec, LH_CRC, &l.crc);
	(void)pf_span_le32(sec, LH_OFFSET, &l.offset);

	/* lvm2 only ever writes 32; anything below overlaps the label_header. */
	if (l.offset < LH_SIZE || l.offset > PF_SECTOR_SIZE - PVH_FIXED_SIZE) {
		pf_diag_at(reterr, base + LH_OFFSET,
			   "pv_header offset_xl is %" PRIu32 ", expected %u..%u", l.offset, LH_SIZE,
			   PF_SECTOR_SIZE - PVH_FIXED_SIZE);
		return -EBADMSG;
	}
	pvh = l.offset;

	(void)pf_span_copy(sec, pvh + PVH_UUID, PF_ID_LEN, l.pvid);
	l.pvid[PF_ID_LEN] = '\0';
	for (unsigned i = 0; i < PF_ID_LEN; i++) {
		if (!pf_id_char_is_valid(l.pvid[i])) {
			pf_diag_at(reterr, base + pvh + PVH_UUID + i,
				   "pv_uuid byte %u is 0x%02x, expected one of 0-9 a-z A-Z ! #", i,
				   (unsigned)(uint8_t)l.pvid[i]);
			return -EBADMSG;
		}
	}
	(void)pf_span_le64(sec, pvh + PVH_DEVICE_SIZE, &l.device_size_bytes);

	pos = pvh + PVH_LISTS;
	r = walk_locn_list(sec, base, "data area", &pos, l.data_areas, &l.n_data_areas, reterr);
	if (r < 0)
		return r;
	r = walk_locn_list(sec, base, "metadata area", &pos, l.mdas, &l.n_mdas, reterr);
	if (r < 0)
		return r;

	/*
	 * compat: upstream lvm2 (layout checks added after 2.03.39) treats an
	 * extension that does not fit after the lists as absent, i.e. version 0;
	 * 2.03.16 reads on into the next sector, normally zeros, to the same end.
	 */
	if (pf_span_has(sec, pos, EXT_FIXED_SIZE)) {
		(void)pf_span_le32(sec, pos, &l.ext_version);
		/* lvm2 does not look at the flags (or anything else) of a version-0 extension. */
		if (l.ext_version != 0)
			(void)pf_span_le32(sec, pos + 4, &l.ext_flags);
	}
	if (l.ext_version >= 1) {
		pos += EXT_FIXED_SIZE;
		r = walk_locn_list(sec, base, "bootloader area", &pos, l.bootloader_areas,
				   &l.n_bootloader_areas, reterr);
		if (r < 0)
			return r;
	}

	*ret = l;
	return 0;
}

int pf_label_decode_sector(struct pf_span sector_buf, unsigned sector, struct pf_pv_label *ret,
			   struct pf_diag *reterr)
{
	int r;

	r = label_select(sector_buf, sector, reterr);
	if (r < 0)
		return r;
	return label_decode_body(sector_buf, sector, ret, reterr);
}

int pf_label_find(struct pf_span head, struct pf_pv_label *ret, struct pf_diag *reterr)
{
	struct pf_diag first, cand;
	bool have_first = false;
	unsigned n_sectors;

	n_sectors =
	    (unsigned)(head.len / PF_SECTOR_SIZE < PF_LABEL_SCAN_SECTORS ? head.len / PF_SECTOR_SIZE
									 : PF_LABEL_SCAN_SECTORS);

	for (unsigned s = 0; s < n_sectors; s++) {
		struct pf_span sec;
		int r;

		(void)pf_span_sub(head, (uint64_t)s * PF_SECTOR_SIZE, PF_SECTOR_SIZE, &sec);
		r = label_select(sec, s, &cand);
		if (r == -ENODATA)
			continue;
		if (r < 0) {
			if (!have_first) {
				first = cand;
				have_first = true;
			}
			continue;
		}
		/*
		 * compat: lvm2 commits to the first sector passing id, sector, CRC
		 * and type; a broken pv_header there fails the device rather than
		 * falling back to a later sector.
		 */
		return label_decode_body(sec, s, ret, reterr);
	}

	if (have_first) {
		if (reterr)
			*reterr = first;
		return -EBADMSG;
	}
	if (n_sectors == 0)
		pf_diag_at(reterr, 0, "no LVM2 label: only %zu bytes to scan, a label needs %u",
			   head.len, PF_SECTOR_SIZE);
	else
		pf_diag_at(reterr, 0, "no LVM2 label in sectors 0-%u", n_sectors - 1);
	return -ENODATA;
}

bool pf_id_char_is_valid(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       c == '!' || c == '#';
}

bool pf_id_is_valid(const char *s, size_t len)
{
	if (!s || len != PF_ID_LEN)
		return false;
	for (size_t i = 0; i < len; i++)
		if (!pf_id_char_is_valid(s[i]))
			return false;
	return true;
}

void pf_id_format_dashed(const char *raw, char *ret)
{
	static const unsigned groups[] = {6, 4, 4, 4, 4, 4, 6};
	size_t in = 0, out = 0;

	for (size_t g = 0; g < ARRAY_SIZE(groups); g++) {
		if (g > 0)
			ret[out++] = '-';
		memcpy(ret + out, raw + in, groups[g]);
		in += groups[g];
		out += groups[g];
	}
	ret[out] = '\0';
}

int pf_id_parse(const char *text, char *ret)
{
	char id[PF_ID_LEN + 1];
	size_t n = 0;

	for (const char *p = text; *p; p++) {
		if (*p == '-')
			continue;
		if (n == PF_ID_LEN || !pf_id_char_is_valid(*p))
			return -EINVAL;
		id[n++] = *p;
	}
	if (n != PF_ID_LEN)
		return -EINVAL;
	id[n] = '\0';
	memcpy(ret, id, sizeof(id));
	return 0;
}

bool pf_pv_label_is_unused(const struct pf_pv_label *label)
{
	return label->ext_version >= 2 && !(label->ext_flags & PF_PV_EXT_USED);
}
