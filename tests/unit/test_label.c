/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lib/format/label.c: label scan over sectors 0-3, pv_header decoding, uuid helpers. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "build.h"
#include "format/label.h"
#include "unit.h"

#define HEAD_LEN PF_LABEL_SCAN_BYTES

/* Sector 1 (bytes 0x200-0x29f) of a fresh 64 MiB PV from the format reference, section 1.3. */
static const uint8_t fresh_pv_sector1[160] = {
	0x4c, 0x41, 0x42, 0x45, 0x4c, 0x4f, 0x4e, 0x45,
	0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0xbb, 0x1f, 0x83, 0x19, 0x20, 0x00, 0x00, 0x00,
	0x4c, 0x56, 0x4d, 0x32, 0x20, 0x30, 0x30, 0x31,
	0x73, 0x4a, 0x42, 0x49, 0x52, 0x76, 0x74, 0x75,
	0x45, 0x46, 0x43, 0x6b, 0x31, 0x4e, 0x4b, 0x76,
	0x62, 0x64, 0x50, 0x74, 0x64, 0x55, 0x79, 0x34,
	0x6e, 0x64, 0x51, 0x74, 0x45, 0x34, 0x61, 0x31,
	0x00, 0x00, 0x00, 0x04, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0xf0, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x02, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void fresh_pv_head(uint8_t *head)
{
	memset(head, 0, HEAD_LEN);
	memcpy(head + PF_SECTOR_SIZE, fresh_pv_sector1, sizeof(fresh_pv_sector1));
}

static void assert_diag_at(const struct pf_diag *d, uint64_t offset)
{
	ck_assert_msg(d->msg[0] != '\0', "empty diag");
	ck_assert_msg(memchr(d->msg, '\0', sizeof(d->msg)) != NULL, "diag not terminated");
	ck_assert_msg(d->has_offset, "diag without offset: %s", d->msg);
	ck_assert_msg(d->offset == offset, "diag offset %llu, expected %llu: %s",
		      (unsigned long long)d->offset, (unsigned long long)offset, d->msg);
}

/* A default valid label in `sector` of a zeroed head. */
static void default_head(uint8_t *head, unsigned sector, struct pf_build_label_layout *lay)
{
	struct pf_disk_locn da, mda;
	struct pf_build_label spec;

	pf_build_label_default(&spec, &da, &mda);
	spec.sector = sector;
	ck_assert_int_eq(pf_build_label_head(&spec, head, HEAD_LEN, lay), 0);
}

START_TEST(test_kat_fresh_pv)
{
	uint8_t head[HEAD_LEN];
	struct pf_pv_label l;
	struct pf_diag d;

	fresh_pv_head(head);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, &d), 0);
	ck_assert_uint_eq(l.sector, 1);
	ck_assert_uint_eq(l.crc, 0x19831fbb);
	ck_assert_uint_eq(l.offset, 32);
	ck_assert_str_eq(l.pvid, "sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a1");
	ck_assert_uint_eq(l.device_size_bytes, 0x4000000);
	ck_assert_uint_eq(l.n_data_areas, 1);
	ck_assert_uint_eq(l.data_areas[0].offset_bytes, 0x100000);
	ck_assert_uint_eq(l.data_areas[0].size_bytes, 0);
	ck_assert_uint_eq(l.n_mdas, 1);
	ck_assert_uint_eq(l.mdas[0].offset_bytes, 0x1000);
	ck_assert_uint_eq(l.mdas[0].size_bytes, 0xff000);
	ck_assert_uint_eq(l.ext_version, 2);
	ck_assert_uint_eq(l.ext_flags, 0);
	ck_assert_uint_eq(l.n_bootloader_areas, 0);
	ck_assert(pf_pv_label_is_unused(&l));
}
END_TEST

/* The builder must write byte for byte what lvm2 wrote for the same PV. */
START_TEST(test_kat_builder_matches_lvm2)
{
	uint8_t sec[PF_SECTOR_SIZE], expect[PF_SECTOR_SIZE] = { 0 };
	struct pf_build_label_layout lay;
	struct pf_disk_locn da, mda;
	struct pf_build_label spec;

	pf_build_label_default(&spec, &da, &mda);
	ck_assert_int_eq(pf_build_label_sector(&spec, sec, &lay), 0);
	memcpy(expect, fresh_pv_sector1, sizeof(fresh_pv_sector1));
	ck_assert_mem_eq(sec, expect, sizeof(sec));
	/* Device byte positions pvck reports for this PV, minus the sector-1 base. */
	ck_assert_uint_eq(lay.uuid, 544 - 512);
	ck_assert_uint_eq(lay.data_areas, 584 - 512);
	ck_assert_uint_eq(lay.data_areas_end, 600 - 512);
	ck_assert_uint_eq(lay.mdas, 616 - 512);
	ck_assert_uint_eq(lay.mdas_end, 632 - 512);
	ck_assert_uint_eq(lay.ext, 648 - 512);
	ck_assert_uint_eq(lay.bootloader_areas_end, 656 - 512);
	ck_assert_uint_eq(lay.end, 672 - 512);
}
END_TEST

/* pvcreate --labelsector N: a label is accepted in each of sectors 0-3. */
START_TEST(test_label_in_each_sector)
{
	uint8_t head[HEAD_LEN];
	struct pf_pv_label l;
	struct pf_diag d;
	unsigned s = (unsigned)_i;

	default_head(head, s, NULL);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, &d), 0);
	ck_assert_uint_eq(l.sector, s);
	ck_assert_str_eq(l.pvid, PF_BUILD_PVID);
	ck_assert_uint_eq(l.n_mdas, 1);
}
END_TEST

/* pvcreate --pvmetadatacopies 0, 1 and 2, with the layouts pvck reports. */
START_TEST(test_mda_count)
{
	const struct pf_disk_locn mdas[2] = { { 4096, 1044480 }, { 66060288, 1048576 } };
	const struct pf_disk_locn da = { 1048576, 0 };
	const size_t ext_at[3] = { 632 - 512, 648 - 512, 664 - 512 };
	struct pf_build_label spec = {
		.sector = 1, .device_size_bytes = 64ULL << 20, .n_data_areas = 1, .data_areas = &da,
		.n_mdas = (unsigned)_i, .mdas = mdas, .ext_version = 2,
	};
	struct pf_build_label_layout lay;
	uint8_t head[HEAD_LEN];
	struct pf_pv_label l;

	ck_assert_int_eq(pf_build_label_head(&spec, head, sizeof(head), &lay), 0);
	ck_assert_uint_eq(lay.ext, ext_at[_i]);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, NULL), 0);
	ck_assert_uint_eq(l.n_mdas, (unsigned)_i);
	for (unsigned i = 0; i < l.n_mdas; i++) {
		ck_assert_uint_eq(l.mdas[i].offset_bytes, mdas[i].offset_bytes);
		ck_assert_uint_eq(l.mdas[i].size_bytes, mdas[i].size_bytes);
	}
	ck_assert_uint_eq(l.ext_version, 2);
}
END_TEST

/* pvcreate --bootloaderareasize 1m on a 64 MiB device. */
START_TEST(test_bootloader_area)
{
	const struct pf_disk_locn da = { 2097152, 0 }, mda = { 4096, 1044480 };
	const struct pf_disk_locn ba = { 1048576, 1048576 };
	struct pf_build_label spec = {
		.sector = 1, .device_size_bytes = 64ULL << 20, .n_data_areas = 1, .data_areas = &da,
		.n_mdas = 1, .mdas = &mda, .ext_version = 2, .n_bootloader_areas = 1,
		.bootloader_areas = &ba,
	};
	struct pf_build_label_layout lay;
	uint8_t head[HEAD_LEN];
	struct pf_pv_label l;

	ck_assert_int_eq(pf_build_label_head(&spec, head, sizeof(head), &lay), 0);
	ck_assert_uint_eq(lay.bootloader_areas, 656 - 512);
	ck_assert_uint_eq(lay.bootloader_areas_end, 672 - 512);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, NULL), 0);
	ck_assert_uint_eq(l.n_bootloader_areas, 1);
	ck_assert_uint_eq(l.bootloader_areas[0].offset_bytes, 1048576);
	ck_assert_uint_eq(l.bootloader_areas[0].size_bytes, 1048576);
	ck_assert_uint_eq(l.data_areas[0].offset_bytes, 2097152);
}
END_TEST

/* Pre-extension PV: version 0, and whatever follows is neither flags nor a bootloader list. */
START_TEST(test_ext_version0)
{
	struct pf_build_label_layout lay;
	struct pf_disk_locn da, mda;
	struct pf_build_label spec;
	uint8_t head[HEAD_LEN];
	struct pf_pv_label l;
	uint8_t *sec = head + PF_SECTOR_SIZE;

	pf_build_label_default(&spec, &da, &mda);
	spec.ext_version = 0;
	ck_assert_int_eq(pf_build_label_head(&spec, head, sizeof(head), &lay), 0);
	ck_assert_uint_eq(lay.ext, 0);
	/* Garbage where flags and a bootloader list would be, with no terminator anywhere. */
	memset(sec + lay.end + 4, 0xee, PF_SECTOR_SIZE - lay.end - 4);
	pf_build_label_fix_crc(sec);

	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, NULL), 0);
	ck_assert_uint_eq(l.ext_version, 0);
	ck_assert_uint_eq(l.ext_flags, 0);
	ck_assert_uint_eq(l.n_bootloader_areas, 0);
	ck_assert(!pf_pv_label_is_unused(&l));
}
END_TEST

START_TEST(test_ext_version1)
{
	const struct pf_disk_locn ba[2] = { { 1048576, 4096 }, { 8192, 512 } };
	struct pf_disk_locn da, mda;
	struct pf_build_label spec;
	uint8_t head[HEAD_LEN];
	struct pf_pv_label l;

	pf_build_label_default(&spec, &da, &mda);
	spec.ext_version = 1;
	spec.n_bootloader_areas = 2;
	spec.bootloader_areas = ba;
	ck_assert_int_eq(pf_build_label_head(&spec, head, sizeof(head), NULL), 0);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, NULL), 0);
	ck_assert_uint_eq(l.ext_version, 1);
	ck_assert_uint_eq(l.n_bootloader_areas, 2);
	ck_assert_uint_eq(l.bootloader_areas[1].offset_bytes, 8192);
	ck_assert_uint_eq(l.bootloader_areas[1].size_bytes, 512);
	/* Below version 2 the used flag is not trusted. */
	ck_assert(!pf_pv_label_is_unused(&l));
}
END_TEST

START_TEST(test_is_unused)
{
	static const struct {
		uint32_t version, flags;
		bool unused;
	} rows[] = {
		{ 0, 0, false }, { 1, 0, false }, { 2, 0, true },  { 2, PF_PV_EXT_USED, false },
		{ 2, 2, true },	 { 3, 0, true },  { 3, 3, false }, { UINT32_MAX, 0, true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		struct pf_pv_label l = { 0 };

		l.ext_version = rows[i].version;
		l.ext_flags = rows[i].flags;

		ck_assert_msg(pf_pv_label_is_unused(&l) == rows[i].unused, "row %zu", i);
	}
}
END_TEST

/* An extension that does not fit after the lists is absent, as in lvm2's layout check. */
START_TEST(test_ext_no_room_is_absent)
{
	struct pf_build_label spec = { .sector = 1, .offset_xl = 440 };
	struct pf_build_label_layout lay;
	uint8_t head[HEAD_LEN];
	struct pf_pv_label l;

	ck_assert_int_eq(pf_build_label_head(&spec, head, sizeof(head), &lay), 0);
	ck_assert_uint_eq(lay.end, PF_SECTOR_SIZE);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, NULL), 0);
	ck_assert_uint_eq(l.offset, 440);
	ck_assert_uint_eq(l.n_data_areas, 0);
	ck_assert_uint_eq(l.n_mdas, 0);
	ck_assert_uint_eq(l.ext_version, 0);
}
END_TEST

/* The extension fits in the last 8 bytes but its bootloader list has no room for a terminator. */
START_TEST(test_ext_bootloader_no_room)
{
	struct pf_build_label spec = { .sector = 1, .offset_xl = 432 };
	struct pf_build_label_layout lay;
	uint8_t head[HEAD_LEN];
	uint8_t *sec = head + PF_SECTOR_SIZE;
	struct pf_pv_label l;
	struct pf_diag d;

	ck_assert_int_eq(pf_build_label_head(&spec, head, sizeof(head), &lay), 0);
	ck_assert_uint_eq(lay.end, 504);
	pf_put_le32(sec + 504, 2);
	pf_build_label_fix_crc(sec);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, &d), -EBADMSG);
	assert_diag_at(&d, PF_SECTOR_SIZE + 512);
	ck_assert_ptr_nonnull(strstr(d.msg, "bootloader"));

	/* Version 0 there: no bootloader list to look for, so the label is fine. */
	pf_put_le32(sec + 504, 0);
	pf_build_label_fix_crc(sec);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, &d), 0);
}
END_TEST

/* The longest data area list that fits: 25 entries, both terminators, no extension. */
START_TEST(test_list_at_bound)
{
	struct pf_disk_locn da[26];
	struct pf_build_label spec = { .sector = 1, .n_data_areas = 25, .data_areas = da };
	struct pf_build_label_layout lay;
	uint8_t head[HEAD_LEN];
	uint8_t *sec = head + PF_SECTOR_SIZE;
	struct pf_pv_label l;
	struct pf_diag d;

	for (unsigned i = 0; i < ARRAY_SIZE(da); i++)
		da[i] = (struct pf_disk_locn){ .offset_bytes = 1048576 + i, .size_bytes = i };
	ck_assert_int_eq(pf_build_label_head(&spec, head, sizeof(head), &lay), 0);
	ck_assert_uint_eq(lay.data_areas_end, 472);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, &d), 0);
	ck_assert_uint_eq(l.n_data_areas, 25);
	ck_assert_uint_eq(l.data_areas[24].offset_bytes, 1048576 + 24);
	ck_assert_uint_eq(l.n_mdas, 0);

	/* The builder refuses one more entry: it cannot fit. */
	spec.n_data_areas = 26;
	ck_assert_int_eq(pf_build_label_head(&spec, head, sizeof(head), &lay), -E2BIG);

	/* One past the bound: the old data terminator becomes entry 25, the mda list runs off. */
	spec.n_data_areas = 25;
	ck_assert_int_eq(pf_build_label_head(&spec, head, sizeof(head), &lay), 0);
	pf_put_le64(sec + 472, 1);
	pf_build_label_fix_crc(sec);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, &d), -EBADMSG);
	assert_diag_at(&d, PF_SECTOR_SIZE + 504);
	ck_assert_ptr_nonnull(strstr(d.msg, "metadata area"));

	/* Two past: the data list itself has no terminator. */
	pf_put_le64(sec + 488, 1);
	pf_build_label_fix_crc(sec);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, &d), -EBADMSG);
	assert_diag_at(&d, PF_SECTOR_SIZE + 504);
	ck_assert_ptr_nonnull(strstr(d.msg, "data area"));
}
END_TEST

/* One malformed-label case: mutate the default sector-1 label, then expect r at a field offset. */
struct bad_label {
	const char *name;
	void (*mutate)(uint8_t *sec, const struct pf_build_label_layout *lay);
	bool fix_crc;
	int expect;
	size_t offset; /* within the sector; the diag must say 512 + this */
};

static void set_sector_xl_0(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	pf_put_le64(s + 8, 0);
}

static void set_sector_xl_2(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	pf_put_le64(s + 8, 2);
}

static void set_sector_xl_high(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	pf_put_le64(s + 8, (1ULL << 32) | 1);
}

static void set_sector_xl_max(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	pf_put_le64(s + 8, UINT64_MAX);
}

static void flip_crc(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	s[16] ^= 1;
}

static void flip_last_byte(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	s[511] ^= 0x80;
}

static void flip_first_crc_byte(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	s[20] ^= 1;
}

static void set_type_002(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	memcpy(s + 24, "LVM2 002", 8);
}

static void set_type_binary(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	memcpy(s + 24, "\0\xff\"\\LVM2", 8);
}

static void set_offset(uint8_t *s, uint32_t v)
{
	pf_put_le32(s + 20, v);
}

static void set_offset_0(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	set_offset(s, 0);
}

static void set_offset_31(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	set_offset(s, 31);
}

static void set_offset_33(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	set_offset(s, 33);
}

static void set_offset_472(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	set_offset(s, 472);
	memcpy(s + 472, PF_BUILD_PVID, PF_ID_LEN);
}

static void set_offset_473(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	set_offset(s, 473);
}

static void set_offset_512(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	set_offset(s, 512);
}

static void set_offset_max(uint8_t *s, const struct pf_build_label_layout *lay)
{
	(void)lay;
	set_offset(s, UINT32_MAX);
}

static void uuid_dash_first(uint8_t *s, const struct pf_build_label_layout *lay)
{
	s[lay->uuid] = '-';
}

static void uuid_nul_last(uint8_t *s, const struct pf_build_label_layout *lay)
{
	s[lay->uuid + 31] = '\0';
}

static void uuid_high_byte(uint8_t *s, const struct pf_build_label_layout *lay)
{
	s[lay->uuid + 5] = 0xff;
}

static void uuid_slash(uint8_t *s, const struct pf_build_label_layout *lay)
{
	s[lay->uuid + 10] = '/';
}

/* Nonzero offsets in every entry from `from` to the end of the sector: no terminator fits. */
static void fill_list(uint8_t *s, size_t from)
{
	for (size_t p = from; p + 16 <= PF_SECTOR_SIZE; p += 16) {
		pf_put_le64(s + p, 4096 + p);
		pf_put_le64(s + p + 8, p);
	}
}

static void data_list_unterminated(uint8_t *s, const struct pf_build_label_layout *lay)
{
	fill_list(s, lay->data_areas);
}

static void mda_list_unterminated(uint8_t *s, const struct pf_build_label_layout *lay)
{
	fill_list(s, lay->mdas);
}

static void ba_list_unterminated(uint8_t *s, const struct pf_build_label_layout *lay)
{
	fill_list(s, lay->bootloader_areas);
}

/* Values the label itself does not judge: they decode as they are. */
static void locn_max(uint8_t *s, const struct pf_build_label_layout *lay)
{
	pf_put_le64(s + lay->data_areas, UINT64_MAX);
	pf_put_le64(s + lay->data_areas + 8, UINT64_MAX);
	pf_put_le64(s + lay->mdas, UINT64_MAX);
	pf_put_le64(s + lay->mdas + 8, UINT64_MAX);
}

static void device_size_0(uint8_t *s, const struct pf_build_label_layout *lay)
{
	pf_put_le64(s + lay->device_size, 0);
}

static void device_size_max(uint8_t *s, const struct pf_build_label_layout *lay)
{
	pf_put_le64(s + lay->device_size, UINT64_MAX);
}

/* A data area with offset 0 ends the list there; what follows is read as the next lists. */
static void data_offset_0(uint8_t *s, const struct pf_build_label_layout *lay)
{
	pf_put_le64(s + lay->data_areas, 0);
	pf_put_le64(s + lay->data_areas + 8, 12345);
}

static void ext_flags_used(uint8_t *s, const struct pf_build_label_layout *lay)
{
	pf_put_le32(s + lay->ext + 4, PF_PV_EXT_USED);
}

static const struct bad_label bad_labels[] = {
	{ "sector_xl 0", set_sector_xl_0, true, -EBADMSG, 8 },
	{ "sector_xl 2", set_sector_xl_2, true, -EBADMSG, 8 },
	{ "sector_xl high bits", set_sector_xl_high, true, -EBADMSG, 8 },
	{ "sector_xl max", set_sector_xl_max, true, -EBADMSG, 8 },
	{ "crc field", flip_crc, false, -EBADMSG, 16 },
	{ "crc over last byte", flip_last_byte, false, -EBADMSG, 16 },
	{ "crc over first byte", flip_first_crc_byte, false, -EBADMSG, 16 },
	{ "type LVM2 002", set_type_002, true, -EBADMSG, 24 },
	{ "type binary", set_type_binary, true, -EBADMSG, 24 },
	{ "offset_xl 0", set_offset_0, true, -EBADMSG, 20 },
	{ "offset_xl 31", set_offset_31, true, -EBADMSG, 20 },
	/* 33 is in range; the uuid then ends with the device size's low byte, 0. */
	{ "offset_xl 33", set_offset_33, true, -EBADMSG, 33 + 31 },
	/* 472 is the bound: the pv_header fits, its first list starts at the sector end. */
	{ "offset_xl 472", set_offset_472, true, -EBADMSG, 512 },
	{ "offset_xl 473", set_offset_473, true, -EBADMSG, 20 },
	{ "offset_xl 512", set_offset_512, true, -EBADMSG, 20 },
	{ "offset_xl max", set_offset_max, true, -EBADMSG, 20 },
	{ "uuid '-' at 0", uuid_dash_first, true, -EBADMSG, 32 },
	{ "uuid NUL at 31", uuid_nul_last, true, -EBADMSG, 32 + 31 },
	{ "uuid 0xff at 5", uuid_high_byte, true, -EBADMSG, 32 + 5 },
	{ "uuid '/' at 10", uuid_slash, true, -EBADMSG, 32 + 10 },
	{ "data list no terminator", data_list_unterminated, true, -EBADMSG, 504 },
	{ "mda list no terminator", mda_list_unterminated, true, -EBADMSG, 504 },
	{ "bootloader list no terminator", ba_list_unterminated, true, -EBADMSG, 512 },
	{ "locn offsets/sizes max", locn_max, true, 0, 0 },
	{ "device size 0", device_size_0, true, 0, 0 },
	{ "device size max", device_size_max, true, 0, 0 },
	{ "data offset 0", data_offset_0, true, 0, 0 },
	{ "ext flags used", ext_flags_used, true, 0, 0 },
};

START_TEST(test_bad_label)
{
	const struct bad_label *t = &bad_labels[_i];
	struct pf_build_label_layout lay;
	uint8_t head[HEAD_LEN];
	uint8_t *sec = head + PF_SECTOR_SIZE;
	struct pf_pv_label l, before;
	struct pf_diag d;
	int r;

	default_head(head, 1, &lay);
	t->mutate(sec, &lay);
	if (t->fix_crc)
		pf_build_label_fix_crc(sec);

	memset(&l, 0xa5, sizeof(l));
	before = l;
	r = pf_label_find(pf_span_make(head, sizeof(head)), &l, &d);
	ck_assert_msg(r == t->expect, "%s: got %d, expected %d (%s)", t->name, r, t->expect,
		      r < 0 ? d.msg : "");
	if (r < 0) {
		assert_diag_at(&d, PF_SECTOR_SIZE + t->offset);
		ck_assert_msg(!memcmp(&l, &before, sizeof(l)), "%s: ret changed", t->name);
	}
	/* The single-sector entry point agrees. */
	ck_assert_int_eq(pf_label_decode_sector(pf_span_make(sec, PF_SECTOR_SIZE), 1, &l, NULL),
			 t->expect);
}
END_TEST

START_TEST(test_decoded_values_kept)
{
	struct pf_build_label_layout lay;
	uint8_t head[HEAD_LEN];
	uint8_t *sec = head + PF_SECTOR_SIZE;
	struct pf_pv_label l;

	default_head(head, 1, &lay);
	locn_max(sec, &lay);
	device_size_max(sec, &lay);
	ext_flags_used(sec, &lay);
	pf_build_label_fix_crc(sec);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, NULL), 0);
	ck_assert_uint_eq(l.device_size_bytes, UINT64_MAX);
	ck_assert_uint_eq(l.data_areas[0].offset_bytes, UINT64_MAX);
	ck_assert_uint_eq(l.data_areas[0].size_bytes, UINT64_MAX);
	ck_assert_uint_eq(l.mdas[0].offset_bytes, UINT64_MAX);
	ck_assert_uint_eq(l.mdas[0].size_bytes, UINT64_MAX);
	ck_assert_uint_eq(l.ext_flags, PF_PV_EXT_USED);
	ck_assert(!pf_pv_label_is_unused(&l));

	/* A zero data area offset is a terminator, whatever its size says. */
	default_head(head, 1, &lay);
	data_offset_0(sec, &lay);
	pf_build_label_fix_crc(sec);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, NULL), 0);
	ck_assert_uint_eq(l.n_data_areas, 0);
	ck_assert_uint_eq(l.n_mdas, 0);
}
END_TEST

/* lvm2 skips a LABELONE sector with a bad CRC and takes a later valid one. */
START_TEST(test_first_valid_wins_bad_crc)
{
	uint8_t head[HEAD_LEN], other[HEAD_LEN];
	struct pf_pv_label l;
	struct pf_diag d;

	default_head(head, 3, NULL);
	default_head(other, 1, NULL);
	memcpy(head + 512, other + 512, 512);
	head[512 + 100] ^= 1;
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, &d), 0);
	ck_assert_uint_eq(l.sector, 3);
}
END_TEST

START_TEST(test_first_valid_wins_two_valid)
{
	struct pf_disk_locn da, mda;
	struct pf_build_label spec;
	uint8_t head[HEAD_LEN];
	struct pf_pv_label l;

	pf_build_label_default(&spec, &da, &mda);
	spec.sector = 2;
	spec.pvid = "22222222222222222222222222222222";
	ck_assert_int_eq(pf_build_label_head(&spec, head, sizeof(head), NULL), 0);
	spec.sector = 0;
	spec.pvid = "00000000000000000000000000000000";
	ck_assert_int_eq(pf_build_label_sector(&spec, head, NULL), 0);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, NULL), 0);
	ck_assert_uint_eq(l.sector, 0);
	ck_assert_str_eq(l.pvid, "00000000000000000000000000000000");
}
END_TEST

/* A copy of a sector-2 label in sector 0 names the wrong sector: skipped, sector 2 is used. */
START_TEST(test_first_valid_wins_sector_mismatch)
{
	uint8_t head[HEAD_LEN];
	struct pf_pv_label l;

	default_head(head, 2, NULL);
	memcpy(head, head + 1024, 512);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, NULL), 0);
	ck_assert_uint_eq(l.sector, 2);
}
END_TEST

START_TEST(test_first_valid_wins_bad_type)
{
	uint8_t head[HEAD_LEN], other[HEAD_LEN];
	struct pf_pv_label l;

	default_head(head, 3, NULL);
	default_head(other, 1, NULL);
	memcpy(head + 512, other + 512, 512);
	memcpy(head + 512 + 24, "LVM1 001", 8);
	pf_build_label_fix_crc(head + 512);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, NULL), 0);
	ck_assert_uint_eq(l.sector, 3);
}
END_TEST

/* No valid candidate: the diag is the first failing one's, not a later one's. */
START_TEST(test_no_valid_candidate)
{
	uint8_t head[HEAD_LEN], other[HEAD_LEN];
	struct pf_pv_label l;
	struct pf_diag d;

	default_head(head, 1, NULL);
	head[512 + 16] ^= 1;
	default_head(other, 3, NULL);
	memcpy(head + 1024, other + 1536, 512);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, &d), -EBADMSG);
	assert_diag_at(&d, 512 + 16);
	ck_assert_ptr_nonnull(strstr(d.msg, "CRC"));
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, NULL), -EBADMSG);
}
END_TEST

/*
 * Once a sector passes id, sector, CRC and type, lvm2 commits to it: a broken
 * pv_header there fails the device even with a good label in a later sector.
 */
START_TEST(test_selected_label_is_final)
{
	uint8_t head[HEAD_LEN], other[HEAD_LEN];
	struct pf_pv_label l;
	struct pf_diag d;

	default_head(head, 3, NULL);
	default_head(other, 1, NULL);
	memcpy(head + 512, other + 512, 512);
	pf_put_le32(head + 512 + 20, 8);
	pf_build_label_fix_crc(head + 512);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, &d), -EBADMSG);
	assert_diag_at(&d, 512 + 20);
}
END_TEST

START_TEST(test_no_label)
{
	uint8_t head[HEAD_LEN * 2] = { 0 };
	struct pf_pv_label l;
	struct pf_diag d;

	ck_assert_int_eq(pf_label_find(pf_span_make(head, HEAD_LEN), &l, &d), -ENODATA);
	assert_diag_at(&d, 0);
	ck_assert_ptr_nonnull(strstr(d.msg, "sectors 0-3"));

	/* "LVM2 001" without LABELONE: lvm2's format handler would take it, we do not. */
	default_head(head, 1, NULL);
	memset(head + 512, 0, 8);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, HEAD_LEN), &l, &d), -ENODATA);

	/* Only sectors 0-3 are looked at, however long the span. */
	memset(head, 0, sizeof(head));
	default_head(head + 2048, 0, NULL);
	pf_put_le64(head + 2048 + 8, 4);
	pf_build_label_fix_crc(head + 2048);
	ck_assert_int_eq(pf_label_find(pf_span_make(head, sizeof(head)), &l, &d), -ENODATA);
	ck_assert_int_eq(pf_label_find(pf_span_make(NULL, 0), &l, NULL), -ENODATA);
}
END_TEST

/* Spans shorter than the scan area: 0, 511, 2047 bytes (the copy lives on the heap under ASan). */
START_TEST(test_short_spans)
{
	static const size_t lens[] = { 0, 1, 8, 511, 512, 1023, 1024, 2047 };
	uint8_t full[HEAD_LEN];
	struct pf_pv_label l;
	struct pf_diag d;

	for (unsigned s = 0; s < PF_LABEL_SCAN_SECTORS; s++) {
		default_head(full, s, NULL);
		for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
			size_t len = lens[i];
			uint8_t *p = malloc(len ? len : 1);
			bool whole = len >= (s + 1) * PF_SECTOR_SIZE;
			int r;

			ck_assert_ptr_nonnull(p);
			memcpy(p, full, len);
			r = pf_label_find(pf_span_make(p, len), &l, &d);
			ck_assert_msg(r == (whole ? 0 : -ENODATA), "sector %u len %zu: %d", s, len,
				      r);
			if (r < 0)
				assert_diag_at(&d, 0);
			free(p);
		}
	}
}
END_TEST

START_TEST(test_decode_sector_direct)
{
	struct pf_build_label_layout lay;
	uint8_t sec[PF_SECTOR_SIZE];
	struct pf_span whole = pf_span_make(sec, sizeof(sec));
	struct pf_disk_locn da, mda;
	struct pf_build_label spec;
	struct pf_pv_label l;
	struct pf_diag d;
	uint8_t *p;

	pf_build_label_default(&spec, &da, &mda);
	spec.sector = UINT_MAX;
	ck_assert_int_eq(pf_build_label_sector(&spec, sec, &lay), 0);
	ck_assert_int_eq(pf_label_decode_sector(whole, UINT_MAX, &l, &d), 0);
	ck_assert_uint_eq(l.sector, UINT_MAX);

	ck_assert_int_eq(pf_label_decode_sector(whole, 7, &l, &d), -EBADMSG);
	assert_diag_at(&d, 7ULL * 512 + 8);

	/* A LABELONE sector cut short cannot be checked. */
	p = malloc(511);
	ck_assert_ptr_nonnull(p);
	memcpy(p, sec, 511);
	ck_assert_int_eq(pf_label_decode_sector(pf_span_make(p, 511), UINT_MAX, &l, &d), -EBADMSG);
	assert_diag_at(&d, (uint64_t)UINT_MAX * 512);
	ck_assert_int_eq(pf_label_decode_sector(pf_span_make(p, 7), 2, &l, &d), -ENODATA);
	assert_diag_at(&d, 1024);
	free(p);

	memset(sec, 0, sizeof(sec));
	ck_assert_int_eq(pf_label_decode_sector(whole, 3, &l, &d), -ENODATA);
	assert_diag_at(&d, 1536);
}
END_TEST

START_TEST(test_id_char)
{
	unsigned n = 0;

	for (int c = 0; c < 256; c++)
		n += pf_id_char_is_valid((char)c);
	ck_assert_uint_eq(n, 64);
	ck_assert(pf_id_char_is_valid('!'));
	ck_assert(pf_id_char_is_valid('#'));
	ck_assert(pf_id_char_is_valid('z'));
	ck_assert(pf_id_char_is_valid('Z'));
	ck_assert(pf_id_char_is_valid('0'));
	ck_assert(!pf_id_char_is_valid('-'));
	ck_assert(!pf_id_char_is_valid('_'));
	ck_assert(!pf_id_char_is_valid('\0'));
	ck_assert(!pf_id_char_is_valid((char)0xe9));
}
END_TEST

START_TEST(test_id_is_valid)
{
	ck_assert(pf_id_is_valid(PF_BUILD_PVID, 32));
	ck_assert(pf_id_is_valid("!#!#!#!#!#!#!#!#!#!#!#!#!#!#!#!#", 32));
	ck_assert(!pf_id_is_valid(PF_BUILD_PVID, 31));
	ck_assert(!pf_id_is_valid("sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a1x", 33));
	ck_assert(!pf_id_is_valid("sJBIRv-tuEFCk1NKvbdPtdUy4ndQtE4a", 32));
	ck_assert(!pf_id_is_valid(NULL, 32));
	ck_assert(!pf_id_is_valid("", 0));
}
END_TEST

START_TEST(test_id_format_dashed)
{
	char out[PF_ID_DASHED_LEN + 1];

	memset(out, 'x', sizeof(out));
	pf_id_format_dashed("sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a1", out);
	ck_assert_str_eq(out, "sJBIRv-tuEF-Ck1N-Kvbd-PtdU-y4nd-QtE4a1");
	ck_assert_uint_eq(strlen(out), PF_ID_DASHED_LEN);
}
END_TEST

START_TEST(test_id_parse)
{
	static const char *const good[] = {
		"sJBIRv-tuEF-Ck1N-Kvbd-PtdU-y4nd-QtE4a1",
		"sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a1",
		"-sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a1-",
		"s-J-B-I-R-v-t-u-E-F-C-k-1-N-K-v-b-d-P-t-d-U-y-4-n-d-Q-t-E-4-a-1",
		"---sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a1",
		"sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a1---",
		"sJBIRvtuEF----Ck1NKvbdPtdUy4ndQtE4a1",
	};
	char out[PF_ID_LEN + 1];

	for (size_t i = 0; i < ARRAY_SIZE(good); i++) {
		memset(out, 'x', sizeof(out));
		ck_assert_msg(pf_id_parse(good[i], out) == 0, "%s", good[i]);
		ck_assert_str_eq(out, PF_BUILD_PVID);
	}
}
END_TEST

START_TEST(test_id_parse_bad)
{
	static const char *const bad[] = {
		"",
		"-",
		"--------------------------------------",
		"sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a",	  /* 31 */
		"sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a1a",	  /* 33 */
		"sJBIRv-tuEF-Ck1N-Kvbd-PtdU-y4nd-QtE4a1-x", /* 33 after the dashes go */
		"sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a_",
		"sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a ",
		" sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a1",
		"sJBIRvtuEFCk1NKv/dPtdUy4ndQtE4a1",
		"sJBIRvtuEFCk1NKv\xc3\xa9PtdUy4ndQtE4a",
	};
	char out[PF_ID_LEN + 1];

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		memset(out, 'x', sizeof(out));
		ck_assert_msg(pf_id_parse(bad[i], out) == -EINVAL, "\"%s\"", bad[i]);
		for (size_t j = 0; j < sizeof(out); j++)
			ck_assert_msg(out[j] == 'x', "ret changed on failure for \"%s\"", bad[i]);
	}
}
END_TEST

START_TEST(test_id_roundtrip)
{
	char dashed[PF_ID_DASHED_LEN + 1], raw[PF_ID_LEN + 1];
	const char *id = "0123456789abcdefghijABCDEFGHIJ!#";

	pf_id_format_dashed(id, dashed);
	ck_assert_str_eq(dashed, "012345-6789-abcd-efgh-ijAB-CDEF-GHIJ!#");
	ck_assert_int_eq(pf_id_parse(dashed, raw), 0);
	ck_assert_str_eq(raw, id);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("label");
	TCase *tc;

	tc = pf_unit_tcase("known-answer");
	tcase_add_test(tc, test_kat_fresh_pv);
	tcase_add_test(tc, test_kat_builder_matches_lvm2);
	tcase_add_loop_test(tc, test_label_in_each_sector, 0, (int)PF_LABEL_SCAN_SECTORS);
	tcase_add_loop_test(tc, test_mda_count, 0, 3);
	tcase_add_test(tc, test_bootloader_area);
	tcase_add_test(tc, test_ext_version0);
	tcase_add_test(tc, test_ext_version1);
	tcase_add_test(tc, test_is_unused);
	suite_add_tcase(s, tc);

	tc = pf_unit_tcase("layout-bounds");
	tcase_add_test(tc, test_ext_no_room_is_absent);
	tcase_add_test(tc, test_ext_bootloader_no_room);
	tcase_add_test(tc, test_list_at_bound);
	tcase_add_loop_test(tc, test_bad_label, 0, (int)ARRAY_SIZE(bad_labels));
	tcase_add_test(tc, test_decoded_values_kept);
	suite_add_tcase(s, tc);

	tc = pf_unit_tcase("scan");
	tcase_add_test(tc, test_first_valid_wins_bad_crc);
	tcase_add_test(tc, test_first_valid_wins_two_valid);
	tcase_add_test(tc, test_first_valid_wins_sector_mismatch);
	tcase_add_test(tc, test_first_valid_wins_bad_type);
	tcase_add_test(tc, test_no_valid_candidate);
	tcase_add_test(tc, test_selected_label_is_final);
	tcase_add_test(tc, test_no_label);
	tcase_add_test(tc, test_short_spans);
	tcase_add_test(tc, test_decode_sector_direct);
	suite_add_tcase(s, tc);

	tc = pf_unit_tcase("id");
	tcase_add_test(tc, test_id_char);
	tcase_add_test(tc, test_id_is_valid);
	tcase_add_test(tc, test_id_format_dashed);
	tcase_add_test(tc, test_id_parse);
	tcase_add_test(tc, test_id_parse_bad);
	tcase_add_test(tc, test_id_roundtrip);
	suite_add_tcase(s, tc);

	return s;
}

PF_UNIT_MAIN()
