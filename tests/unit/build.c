/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test builders for label sectors and metadata areas, written the way lvm2 writes them. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "base/span.h"
#include "build.h"
#include "format/crc.h"

#define LABEL_CRC_FROM 20U
#define DISK_LOCN_SIZE 16U
#define RAW_LOCN_SIZE 24U
#define MDA_SLOTS_AT 40U

/* Append n entries plus the {0,0} terminator at *pos; -E2BIG when they do not fit. */
static int put_locn_list(uint8_t *buf, size_t *pos, const struct pf_disk_locn *areas, unsigned n,
			 size_t *ret_start, size_t *ret_end)
{
	size_t need = ((size_t)n + 1) * DISK_LOCN_SIZE;

	if (*pos > PF_SECTOR_SIZE || need > PF_SECTOR_SIZE - *pos)
		return -E2BIG;
	*ret_start = *pos;
	for (unsigned i = 0; i < n; i++) {
		pf_put_le64(buf + *pos, areas[i].offset_bytes);
		pf_put_le64(buf + *pos + 8, areas[i].size_bytes);
		*pos += DISK_LOCN_SIZE;
	}
	*ret_end = *pos;
	/* The terminator is already zero: the sector was cleared. */
	*pos += DISK_LOCN_SIZE;
	return 0;
}

int pf_build_label_sector(const struct pf_build_label *spec, uint8_t *buf,
			  struct pf_build_label_layout *ret_layout)
{
	struct pf_build_label_layout lay = { 0 };
	uint32_t offset_xl = spec->offset_xl ? spec->offset_xl : 32;
	const char *pvid = spec->pvid ? spec->pvid : PF_BUILD_PVID;
	size_t pos;
	int r;

	memset(buf, 0, PF_SECTOR_SIZE);
	if (offset_xl > PF_SECTOR_SIZE - 40)
		return -E2BIG;

	memcpy(buf, PF_LABEL_ID, 8);
	pf_put_le64(buf + 8, spec->sector);
	pf_put_le32(buf + 20, offset_xl);
	memcpy(buf + 24, PF_LABEL_TYPE, 8);

	lay.pv_header = offset_xl;
	lay.uuid = offset_xl;
	memcpy(buf + offset_xl, pvid, PF_ID_LEN);
	lay.device_size = offset_xl + PF_ID_LEN;
	pf_put_le64(buf + lay.device_size, spec->device_size_bytes);

	pos = lay.device_size + 8;
	r = put_locn_list(buf, &pos, spec->data_areas, spec->n_data_areas, &lay.data_areas,
			  &lay.data_areas_end);
	if (r < 0)
		return r;
	r = put_locn_list(buf, &pos, spec->mdas, spec->n_mdas, &lay.mdas, &lay.mdas_end);
	if (r < 0)
		return r;

	if (spec->ext_version > 0) {
		if (pos + 8 > PF_SECTOR_SIZE)
			return -E2BIG;
		lay.ext = pos;
		pf_put_le32(buf + pos, spec->ext_version);
		pf_put_le32(buf + pos + 4, spec->ext_flags);
		pos += 8;
		r = put_locn_list(buf, &pos, spec->bootloader_areas, spec->n_bootloader_areas,
				  &lay.bootloader_areas, &lay.bootloader_areas_end);
		if (r < 0)
			return r;
	}
	lay.end = pos;

	pf_build_label_fix_crc(buf);
	if (ret_layout)
		*ret_layout = lay;
	return 0;
}

int pf_build_label_head(const struct pf_build_label *spec, uint8_t *head, size_t len,
			struct pf_build_label_layout *ret_layout)
{
	size_t at = (size_t)spec->sector * PF_SECTOR_SIZE;

	if (len < PF_SECTOR_SIZE || at > len - PF_SECTOR_SIZE)
		return -EINVAL;
	memset(head, 0, len);
	return pf_build_label_sector(spec, head + at, ret_layout);
}

void pf_build_label_fix_crc(uint8_t *buf)
{
	pf_put_le32(buf + 16, pf_crc(PF_CRC_INITIAL, buf + LABEL_CRC_FROM,
				     PF_SECTOR_SIZE - LABEL_CRC_FROM));
}

void pf_build_label_default(struct pf_build_label *ret, struct pf_disk_locn *da,
			    struct pf_disk_locn *mda)
{
	*da = (struct pf_disk_locn){ .offset_bytes = 1048576, .size_bytes = 0 };
	*mda = (struct pf_disk_locn){ .offset_bytes = 4096, .size_bytes = 1044480 };
	*ret = (struct pf_build_label){
		.sector = 1,
		.device_size_bytes = 64ULL << 20,
		.n_data_areas = 1,
		.data_areas = da,
		.n_mdas = 1,
		.mdas = mda,
		.ext_version = 2,
	};
}

void pf_build_mda_header(const struct pf_build_mda *spec, uint8_t *buf)
{
	memset(buf, 0, PF_MDA_HEADER_SIZE);
	memcpy(buf + 4, PF_MDA_MAGIC, PF_MDA_MAGIC_LEN);
	pf_put_le32(buf + 20, PF_MDA_VERSION);
	pf_put_le64(buf + 24, spec->start_bytes);
	pf_put_le64(buf + 32, spec->size_bytes);
	for (unsigned i = 0; i < spec->n_slots && i < PF_MDA_SLOTS; i++) {
		uint8_t *s = buf + MDA_SLOTS_AT + (size_t)i * RAW_LOCN_SIZE;

		pf_put_le64(s, spec->slots[i].offset_bytes);
		pf_put_le64(s + 8, spec->slots[i].size_bytes);
		pf_put_le32(s + 16, spec->slots[i].checksum);
		pf_put_le32(s + 20, spec->slots[i].flags);
	}
	pf_build_mda_fix_checksum(buf);
}

void pf_build_mda_fix_checksum(uint8_t *buf)
{
	pf_put_le32(buf, pf_crc(PF_CRC_INITIAL, buf + 4, PF_MDA_HEADER_SIZE - 4));
}

int pf_build_mda_area(uint8_t *area, size_t area_len, uint64_t start_bytes, uint64_t text_offset,
		      const void *text, size_t text_len)
{
	struct pf_build_mda spec = { .start_bytes = start_bytes, .size_bytes = area_len };
	const uint8_t *t = text;
	size_t len1;

	if (area_len < PF_MDA_HEADER_SIZE || text_offset < PF_MDA_HEADER_SIZE ||
	    text_offset >= area_len || text_len > area_len - PF_MDA_HEADER_SIZE)
		return -EINVAL;

	memset(area, 0, area_len);
	len1 = area_len - (size_t)text_offset;
	if (len1 > text_len)
		len1 = text_len;
	memcpy(area + text_offset, t, len1);
	memcpy(area + PF_MDA_HEADER_SIZE, t + len1, text_len - len1);

	spec.n_slots = 1;
	spec.slots[0] = (struct pf_raw_locn){
		.offset_bytes = text_offset,
		.size_bytes = text_len,
		.checksum = pf_crc(PF_CRC_INITIAL, t, text_len),
	};
	pf_build_mda_header(&spec, area);
	return 0;
}
