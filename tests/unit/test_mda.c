/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Unit tests for lib/format/mda.c: mda_header checks, locating (wrapped) text, text verification. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "build.h"
#include "format/crc.h"
#include "format/mda.h"
#include "format/names.h"
#include "unit.h"

#define MDA_START 4096ULL
#define MDA_SIZE 1044480ULL
#define SLOT0 (MDA_START + 40)

/* First 0x50 bytes of loop5's mda header from the format reference, section 4.1 (rest zero). */
static const uint8_t loop5_mda_header[80] = {
	0x0f, 0xdd, 0x71, 0xd2, 0x20, 0x4c, 0x56, 0x4d,
	0x32, 0x20, 0x78, 0x5b, 0x35, 0x41, 0x25, 0x72,
	0x30, 0x4e, 0x2a, 0x3e, 0x01, 0x00, 0x00, 0x00,
	0x00, 0x10, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0xf0, 0x0f, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x94, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x78, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x05, 0x52, 0x09, 0xb4, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
};

static void assert_diag_at(const struct pf_diag *d, uint64_t offset)
{
	ck_assert_msg(d->msg[0] != '\0', "empty diag");
	ck_assert_msg(memchr(d->msg, '\0', sizeof(d->msg)) != NULL, "diag not terminated");
	ck_assert_msg(d->has_offset, "diag without offset: %s", d->msg);
	ck_assert_msg(d->offset == offset, "diag offset %llu, expected %llu: %s",
		      (unsigned long long)d->offset, (unsigned long long)offset, d->msg);
}

static void kat_header(uint8_t *buf)
{
	memset(buf, 0, PF_MDA_HEADER_SIZE);
	memcpy(buf, loop5_mda_header, sizeof(loop5_mda_header));
}

START_TEST(test_kat_loop5)
{
	uint8_t buf[PF_MDA_HEADER_SIZE];
	struct pf_mda_text_loc loc;
	struct pf_mda_header h;
	struct pf_diag d;

	kat_header(buf);
	ck_assert_int_eq(pf_mda_header_decode(pf_span_make(buf, sizeof(buf)), MDA_START,
					      &h, &d), 0);
	ck_assert_uint_eq(h.checksum, 0xd271dd0f);
	ck_assert_uint_eq(h.version, 1);
	ck_assert_uint_eq(h.start_bytes, MDA_START);
	ck_assert_uint_eq(h.size_bytes, MDA_SIZE);
	ck_assert_uint_eq(h.slots[0].offset_bytes, 37888);
	ck_assert_uint_eq(h.slots[0].size_bytes, 2168);
	ck_assert_uint_eq(h.slots[0].checksum, 0xb4095205);
	ck_assert_uint_eq(h.slots[0].flags, 0);
	ck_assert_uint_eq(h.slots[1].offset_bytes, 0);
	ck_assert(!pf_mda_is_ignored(&h));

	ck_assert_int_eq(pf_mda_text_locate(&h, &loc, &d), 0);
	ck_assert_uint_eq(loc.offset1_bytes, MDA_START + 37888);
	ck_assert_uint_eq(loc.len1_bytes, 2168);
	ck_assert_uint_eq(loc.offset2_bytes, 0);
	ck_assert_uint_eq(loc.len2_bytes, 0);
	ck_assert_uint_eq(loc.total_bytes, 2168);
	ck_assert_uint_eq(loc.checksum, 0xb4095205);
}
END_TEST

START_TEST(test_kat_builder_matches_lvm2)
{
	struct pf_build_mda spec = {
		.start_bytes = MDA_START,
		.size_bytes = MDA_SIZE,
		.n_slots = 1,
		.slots = { { .offset_bytes = 37888, .size_bytes = 2168, .checksum = 0xb4095205 } },
	};
	uint8_t built[PF_MDA_HEADER_SIZE], expect[PF_MDA_HEADER_SIZE];

	pf_build_mda_header(&spec, built);
	kat_header(expect);
	ck_assert_mem_eq(built, expect, sizeof(built));
}
END_TEST

/* A fresh orphan PV: lvm2 wrote checksum 0xdb8ed616 and empty slots. */
START_TEST(test_kat_fresh_pv)
{
	struct pf_build_mda spec = { .start_bytes = MDA_START, .size_bytes = MDA_SIZE };
	struct pf_mda_text_loc loc;
	uint8_t buf[PF_MDA_HEADER_SIZE];
	struct pf_mda_header h;
	struct pf_diag d;

	pf_build_mda_header(&spec, buf);
	ck_assert_int_eq(pf_mda_header_decode(pf_span_make(buf, sizeof(buf)), MDA_START,
					      &h, &d), 0);
	ck_assert_uint_eq(h.checksum, 0xdb8ed616);
	ck_assert_int_eq(pf_mda_text_locate(&h, &loc, &d), -ENODATA);
	assert_diag_at(&d, SLOT0);
}
END_TEST

/* The wrapped copy from the format reference, section 4.2: 32 KiB mda after 17 writes. */
START_TEST(test_kat_wrap)
{
	struct pf_mda_header h = {
		.version = 1,
		.start_bytes = 4096,
		.size_bytes = 32768,
		.slots = { { .offset_bytes = 29696, .size_bytes = 6402 } },
	};
	struct pf_mda_text_loc loc;

	ck_assert_int_eq(pf_mda_text_locate(&h, &loc, NULL), 0);
	ck_assert_uint_eq(loc.offset1_bytes, 33792);
	ck_assert_uint_eq(loc.len1_bytes, 3072);
	ck_assert_uint_eq(loc.offset2_bytes, 4608);
	ck_assert_uint_eq(loc.len2_bytes, 3330);
	ck_assert_uint_eq(loc.total_bytes, 6402);
}
END_TEST

/* Locate in a built area, then verify with the parts sliced out of it, as a caller would. */
static int locate_and_verify(const uint8_t *area, size_t area_len, uint64_t start,
			     struct pf_diag *d)
{
	struct pf_span part1 = { 0 }, part2 = { 0 }, all = pf_span_make(area, area_len);
	struct pf_mda_text_loc loc;
	struct pf_mda_header h;
	int r;

	r = pf_mda_header_decode(all, start, &h, d);
	if (r < 0)
		return r;
	r = pf_mda_text_locate(&h, &loc, d);
	if (r < 0)
		return r;
	ck_assert_int_eq(pf_span_sub(all, loc.offset1_bytes - start, loc.len1_bytes, &part1), 0);
	if (loc.len2_bytes)
		ck_assert_int_eq(
			pf_span_sub(all, loc.offset2_bytes - start, loc.len2_bytes, &part2), 0);
	return pf_mda_text_verify(&loc, part1, part2, d);
}

static const char vg_text[] =
	"vg_name_number_8 {\nid = \"6BcxGa-wAMv-Y6bF-emMT-iu\"\nseqno = 17\n}\n";

/* Text placed so that the wrap falls at every byte of it, including inside the VG name. */
START_TEST(test_wrap_everywhere)
{
	const size_t area_len = 4096, text_len = sizeof(vg_text); /* with its NUL */
	uint8_t *area = malloc(area_len);
	struct pf_diag d;

	ck_assert_ptr_nonnull(area);
	for (size_t split = 1; split <= text_len; split++) {
		uint64_t off = area_len - split;

		ck_assert_int_eq(pf_build_mda_area(area, area_len, 8192, off, vg_text, text_len),
				 0);
		ck_assert_msg(locate_and_verify(area, area_len, 8192, &d) == 0, "split %zu: %s",
			      split, d.msg);
	}
	free(area);
}
END_TEST

/* One malformed-header case: mutate a valid header, expect r with the diag at start + offset. */
struct bad_header {
	const char *name;
	size_t at;	/* byte to patch */
	unsigned width; /* 0: flip a bit at `at` without fixing the checksum; else 4 or 8 */
	uint64_t value;
	int expect;
	uint64_t offset;
};

static const struct bad_header bad_headers[] = {
	{ "checksum", 0, 0, 0, -EBADMSG, 0 },
	{ "checksum covers magic", 4, 0, 0, -EBADMSG, 0 },
	{ "checksum covers last byte", 511, 0, 0, -EBADMSG, 0 },
	{ "magic first byte", 4, 4, 0x4d564c21, -EBADMSG, 4 },
	{ "magic last bytes", 16, 4, 0, -EBADMSG, 4 },
	{ "version 0", 20, 4, 0, -EBADMSG, 20 },
	{ "version 2", 20, 4, 2, -EBADMSG, 20 },
	{ "version max", 20, 4, UINT32_MAX, -EBADMSG, 20 },
	{ "start 0", 24, 8, 0, -EBADMSG, 24 },
	{ "start - 1", 24, 8, MDA_START - 1, -EBADMSG, 24 },
	{ "start + 1", 24, 8, MDA_START + 1, -EBADMSG, 24 },
	{ "start max", 24, 8, UINT64_MAX, -EBADMSG, 24 },
	{ "size 0", 32, 8, 0, -EBADMSG, 32 },
	{ "size 511", 32, 8, 511, -EBADMSG, 32 },
	/* lvm2 accepts any size from 512 up, whatever the pv_header says. */
	{ "size 512", 32, 8, 512, 0, 0 },
	{ "size 2048", 32, 8, 2048, 0, 0 },
	{ "size max", 32, 8, UINT64_MAX, 0, 0 },
	/* Beyond the two decoded slots nothing is looked at but the checksum. */
	{ "slot 2 garbage", 88, 8, UINT64_MAX, 0, 0 },
};

START_TEST(test_bad_header)
{
	const struct bad_header *t = &bad_headers[_i];
	struct pf_build_mda spec = {
		.start_bytes = MDA_START,
		.size_bytes = MDA_SIZE,
		.n_slots = 1,
		.slots = { { .offset_bytes = 512, .size_bytes = 100, .checksum = 1 } },
	};
	uint8_t buf[PF_MDA_HEADER_SIZE];
	struct pf_mda_header h, before;
	struct pf_diag d;
	int r;

	pf_build_mda_header(&spec, buf);
	if (t->width == 0) {
		buf[t->at] ^= 0x10;
	} else {
		if (t->width == 4)
			pf_put_le32(buf + t->at, (uint32_t)t->value);
		else
			pf_put_le64(buf + t->at, t->value);
		pf_build_mda_fix_checksum(buf);
	}
	memset(&h, 0xa5, sizeof(h));
	before = h;
	r = pf_mda_header_decode(pf_span_make(buf, sizeof(buf)), MDA_START, &h, &d);
	ck_assert_msg(r == t->expect, "%s: got %d, expected %d (%s)", t->name, r, t->expect,
		      r < 0 ? d.msg : "");
	if (r < 0) {
		assert_diag_at(&d, MDA_START + t->offset);
		ck_assert_msg(!memcmp(&h, &before, sizeof(h)), "%s: ret changed", t->name);
	}
}
END_TEST

START_TEST(test_header_diag_text)
{
	uint8_t buf[PF_MDA_HEADER_SIZE];
	struct pf_build_mda spec = { .start_bytes = MDA_START, .size_bytes = MDA_SIZE };
	struct pf_mda_header h;
	struct pf_diag d;
	char want[64];

	pf_build_mda_header(&spec, buf);
	buf[300] = 1;
	ck_assert_int_eq(pf_mda_header_decode(pf_span_make(buf, sizeof(buf)), MDA_START,
					      &h, &d), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(d.msg, "stored 0xdb8ed616"));
	(void)snprintf(want, sizeof(want), "computed 0x%08x",
		       (unsigned)pf_crc(PF_CRC_INITIAL, buf + 4, PF_MDA_HEADER_SIZE - 4));
	ck_assert_ptr_nonnull(strstr(d.msg, want));

	pf_build_mda_header(&spec, buf);
	pf_put_le64(buf + 24, 8192);
	pf_build_mda_fix_checksum(buf);
	ck_assert_int_eq(pf_mda_header_decode(pf_span_make(buf, sizeof(buf)), MDA_START,
					      &h, &d), -EBADMSG);
	ck_assert_ptr_nonnull(strstr(d.msg, "8192"));
	ck_assert_ptr_nonnull(strstr(d.msg, "4096"));
}
END_TEST

/* Headers cut short: nothing past the span is read (the copy lives on the heap under ASan). */
START_TEST(test_header_short_span)
{
	static const size_t lens[] = { 0, 1, 4, 40, 511 };
	struct pf_build_mda spec = { .start_bytes = MDA_START, .size_bytes = MDA_SIZE };
	uint8_t full[PF_MDA_HEADER_SIZE];
	struct pf_mda_header h;
	struct pf_diag d;

	pf_build_mda_header(&spec, full);
	for (size_t i = 0; i < ARRAY_SIZE(lens); i++) {
		uint8_t *p = malloc(lens[i] ? lens[i] : 1);

		ck_assert_ptr_nonnull(p);
		memcpy(p, full, lens[i]);
		ck_assert_int_eq(pf_mda_header_decode(pf_span_make(p, lens[i]), MDA_START,
						      &h, &d), -EBADMSG);
		assert_diag_at(&d, MDA_START);
		free(p);
	}
	ck_assert_int_eq(pf_mda_header_decode(pf_span_make(NULL, 0), 0, &h, NULL), -EBADMSG);

	/* A longer span is fine: only the first 512 bytes are the header. */
	{
		uint8_t big[PF_MDA_HEADER_SIZE * 2];

		memset(big, 0xff, sizeof(big));
		memcpy(big, full, sizeof(full));
		ck_assert_int_eq(pf_mda_header_decode(pf_span_make(big, sizeof(big)), MDA_START, &h, &d), 0);
	}
}
END_TEST

/* Headers at the very ends of the offset range: no overflow, diags saturate. */
START_TEST(test_header_extreme_start)
{
	struct pf_build_mda spec = { .start_bytes = UINT64_MAX, .size_bytes = MDA_SIZE };
	uint8_t buf[PF_MDA_HEADER_SIZE];
	struct pf_span hs = pf_span_make(buf, sizeof(buf));
	struct pf_mda_header h;
	struct pf_diag d;

	pf_build_mda_header(&spec, buf);
	ck_assert_int_eq(pf_mda_header_decode(hs, UINT64_MAX, &h, &d), 0);
	ck_assert_uint_eq(h.start_bytes, UINT64_MAX);
	pf_put_le32(buf + 20, 7);
	pf_build_mda_fix_checksum(buf);
	ck_assert_int_eq(pf_mda_header_decode(hs, UINT64_MAX, &h, &d), -EBADMSG);
	assert_diag_at(&d, UINT64_MAX);

	spec.start_bytes = 0;
	pf_build_mda_header(&spec, buf);
	ck_assert_int_eq(pf_mda_header_decode(hs, 0, &h, &d), 0);
}
END_TEST

START_TEST(test_slots)
{
	struct pf_build_mda spec = {
		.start_bytes = MDA_START,
		.size_bytes = MDA_SIZE,
		.n_slots = 2,
		.slots = { { 0, 77, 5, 0 }, { 1024, 300, 0x12345678, PF_RAW_LOCN_IGNORED } },
	};
	uint8_t buf[PF_MDA_HEADER_SIZE];
	struct pf_mda_text_loc loc;
	struct pf_mda_header h;

	/* Slot 0 empty ends the list: slot 1 is not decoded even though it is set. */
	pf_build_mda_header(&spec, buf);
	ck_assert_int_eq(pf_mda_header_decode(pf_span_make(buf, sizeof(buf)), MDA_START,
					      &h, NULL), 0);
	ck_assert_uint_eq(h.slots[0].offset_bytes, 0);
	ck_assert_uint_eq(h.slots[0].size_bytes, 0);
	ck_assert_uint_eq(h.slots[1].offset_bytes, 0);
	ck_assert_uint_eq(h.slots[1].checksum, 0);
	ck_assert_int_eq(pf_mda_text_locate(&h, &loc, NULL), -ENODATA);

	/* Both set: both decoded (slot 1 is the precommitted copy). */
	spec.slots[0] = (struct pf_raw_locn){ 512, 200, 0xabcdef01, PF_RAW_LOCN_IGNORED };
	pf_build_mda_header(&spec, buf);
	ck_assert_int_eq(pf_mda_header_decode(pf_span_make(buf, sizeof(buf)), MDA_START,
					      &h, NULL), 0);
	ck_assert_uint_eq(h.slots[0].offset_bytes, 512);
	ck_assert_uint_eq(h.slots[0].size_bytes, 200);
	ck_assert_uint_eq(h.slots[0].checksum, 0xabcdef01);
	ck_assert_uint_eq(h.slots[1].offset_bytes, 1024);
	ck_assert_uint_eq(h.slots[1].size_bytes, 300);
	ck_assert_uint_eq(h.slots[1].checksum, 0x12345678);
	ck_assert_uint_eq(h.slots[1].flags, PF_RAW_LOCN_IGNORED);

	/* An ignored mda is still located: skipping it is the caller's decision. */
	ck_assert(pf_mda_is_ignored(&h));
	ck_assert_int_eq(pf_mda_text_locate(&h, &loc, NULL), 0);
	ck_assert_uint_eq(loc.offset1_bytes, MDA_START + 512);
	ck_assert_uint_eq(loc.checksum, 0xabcdef01);
}
END_TEST

/* One pf_mda_text_locate() case on a hand-made header. */
struct locate_case {
	const char *name;
	uint64_t start, area, offset, size;
	int expect;
	uint64_t diag_offset; /* absolute */
	uint64_t off1, len1, off2, len2;
};

#define A MDA_SIZE
#define S MDA_START
#define BIG (256ULL << 20)

static const struct locate_case locate_cases[] = {
	{ "offset 0", S, A, 0, 100, -ENODATA, S + 40, 0, 0, 0, 0 },
	{ "offset 0 size 0", S, A, 0, 0, -ENODATA, S + 40, 0, 0, 0, 0 },
	{ "offset 1", S, A, 1, 100, -EBADMSG, S + 40, 0, 0, 0, 0 },
	{ "offset 511", S, A, 511, 100, -EBADMSG, S + 40, 0, 0, 0, 0 },
	{ "offset 512", S, A, 512, 100, 0, 0, S + 512, 100, 0, 0 },
	{ "offset area-1, fits", S, A, A - 1, 1, 0, 0, S + A - 1, 1, 0, 0 },
	{ "offset area-1, wraps", S, A, A - 1, 2, 0, 0, S + A - 1, 1, S + 512, 1 },
	{ "offset area", S, A, A, 1, -EBADMSG, S + 40, 0, 0, 0, 0 },
	{ "offset area+1", S, A, A + 1, 1, -EBADMSG, S + 40, 0, 0, 0, 0 },
	{ "offset max", S, A, UINT64_MAX, 1, -EBADMSG, S + 40, 0, 0, 0, 0 },
	{ "size 0", S, A, 512, 0, -EBADMSG, S + 48, 0, 0, 0, 0 },
	{ "size 1", S, A, 512, 1, 0, 0, S + 512, 1, 0, 0 },
	{ "size area-512", S, A, 512, A - 512, 0, 0, S + 512, A - 512, 0, 0 },
	{ "size area-512, wraps", S, A, 1024, A - 512, 0, 0, S + 1024, A - 1024, S + 512, 512 },
	{ "size area-511", S, A, 512, A - 511, -EBADMSG, S + 48, 0, 0, 0, 0 },
	{ "size max", S, A, 512, UINT64_MAX, -EBADMSG, S + 48, 0, 0, 0, 0 },
	{ "size text max", 0, BIG, 512, PF_MDA_TEXT_MAX, 0, 0, 512, PF_MDA_TEXT_MAX, 0, 0 },
	{ "size text max+1", 0, BIG, 512, PF_MDA_TEXT_MAX + 1ULL, -EBADMSG, 48, 0, 0, 0, 0 },
	{ "area 512", S, 512, 512, 1, -EBADMSG, S + 40, 0, 0, 0, 0 },
	{ "area 511", S, 511, 512, 1, -EBADMSG, S + 32, 0, 0, 0, 0 },
	{ "area 0", S, 0, 512, 1, -EBADMSG, S + 32, 0, 0, 0, 0 },
	/* The largest area there can be: wraps after one byte, nothing overflows. */
	{ "area max", 0, UINT64_MAX, UINT64_MAX - 1, PF_MDA_TEXT_MAX, 0, 0, UINT64_MAX - 1, 1, 512,
	  PF_MDA_TEXT_MAX - 1ULL },
	{ "start max", UINT64_MAX, A, 512, 100, -EBADMSG, UINT64_MAX, 0, 0, 0, 0 },
	{ "text ends at 2^64", UINT64_MAX - A + 1, A, 512, A - 512, -EBADMSG, UINT64_MAX - A + 41,
	  0, 0, 0, 0 },
	{ "text ends at 2^64-1", UINT64_MAX - A, A, 512, A - 512, 0, 0, UINT64_MAX - A + 512,
	  A - 512, 0, 0 },
	{ "wrap near 2^64", UINT64_MAX - A, A, A - 100, 200, 0, 0, UINT64_MAX - 100, 100,
	  UINT64_MAX - A + 512, 100 },
};

#undef A
#undef S
#undef BIG

START_TEST(test_locate)
{
	const struct locate_case *t = &locate_cases[_i];
	struct pf_mda_header h = {
		.version = 1,
		.start_bytes = t->start,
		.size_bytes = t->area,
		.slots = { { .offset_bytes = t->offset, .size_bytes = t->size, .checksum = 42 } },
	};
	struct pf_mda_text_loc loc, before;
	struct pf_diag d;
	int r;

	memset(&loc, 0xa5, sizeof(loc));
	before = loc;
	r = pf_mda_text_locate(&h, &loc, &d);
	ck_assert_msg(r == t->expect, "%s: got %d, expected %d (%s)", t->name, r, t->expect,
		      r < 0 ? d.msg : "");
	if (r < 0) {
		assert_diag_at(&d, t->diag_offset);
		ck_assert_msg(!memcmp(&loc, &before, sizeof(loc)), "%s: ret changed", t->name);
		return;
	}
	ck_assert_uint_eq(loc.offset1_bytes, t->off1);
	ck_assert_uint_eq(loc.len1_bytes, t->len1);
	ck_assert_uint_eq(loc.offset2_bytes, t->off2);
	ck_assert_uint_eq(loc.len2_bytes, t->len2);
	ck_assert_uint_eq(loc.total_bytes, t->size);
	ck_assert_uint_eq(loc.len1_bytes + loc.len2_bytes, t->size);
	ck_assert_uint_eq(loc.checksum, 42);
}
END_TEST

/* A text location for `text` in one piece at device offset 10000. */
static struct pf_mda_text_loc loc_for(const char *text, size_t len)
{
	return (struct pf_mda_text_loc){
		.offset1_bytes = 10000,
		.len1_bytes = len,
		.total_bytes = len,
		.checksum = pf_crc(PF_CRC_INITIAL, text, len),
	};
}

static int verify_one(const char *text, size_t len, struct pf_diag *d)
{
	struct pf_mda_text_loc loc = loc_for(text, len);

	return pf_mda_text_verify(&loc, pf_span_make(text, len), pf_span_make(NULL, 0), d);
}

START_TEST(test_verify_names)
{
	static const struct {
		const char *text;
		int expect;
		uint64_t diag_offset;
	} rows[] = {
		{ "vg0 {\n}\n", 0, 0 },
		{ "vg0{\n}\n", 0, 0 },
		{ "vg0\n{\n}\n", 0, 0 },
		{ "vg0\t{", 0, 0 },
		{ "vg0\r\n{", 0, 0 },
		{ "a.b+c_d-e {", 0, 0 },
		{ "-vg {", -EBADMSG, 10000 },
		{ ". {", -EBADMSG, 10000 },
		{ ".. {", -EBADMSG, 10000 },
		{ "... {", 0, 0 },
		{ "v/g {", -EBADMSG, 10000 },
		{ "v\"g {", -EBADMSG, 10000 },
		{ "{", -EBADMSG, 10000 },
		{ " vg {", -EBADMSG, 10000 },
		{ "vg", -EBADMSG, 10000 },
		{ "vg#comment\n{", -EBADMSG, 10000 },
		{ "", -EBADMSG, 10000 },
	};
	struct pf_diag d;

	for (size_t i = 0; i < ARRAY_SIZE(rows); i++) {
		/* Include the NUL as lvm2's size does, except for the empty text. */
		size_t len = strlen(rows[i].text) + (rows[i].text[0] ? 1 : 0);
		int r = verify_one(rows[i].text, len, &d);

		ck_assert_msg(r == rows[i].expect, "\"%s\": got %d (%s)", rows[i].text, r,
			      r ? d.msg : "");
		if (r < 0)
			assert_diag_at(&d, rows[i].diag_offset);
	}
}
END_TEST

/* An embedded NUL ends the name: lvm2 would stop parsing there. */
START_TEST(test_verify_nul_in_name)
{
	static const char text[] = "vg\0 {";
	struct pf_diag d;

	ck_assert_int_eq(verify_one(text, sizeof(text), &d), -EBADMSG);
	assert_diag_at(&d, 10000);
}
END_TEST

START_TEST(test_verify_name_length)
{
	char text[PF_NAME_MAX + 8];
	struct pf_diag d;

	memset(text, 'n', sizeof(text));
	text[PF_NAME_MAX] = ' ';
	ck_assert_int_eq(verify_one(text, PF_NAME_MAX + 1, &d), 0);

	/* 128 name characters: the separator is missing where it must be at the latest. */
	text[PF_NAME_MAX] = 'n';
	text[PF_NAME_MAX + 1] = ' ';
	ck_assert_int_eq(verify_one(text, PF_NAME_MAX + 2, &d), -EBADMSG);
	assert_diag_at(&d, 10000 + PF_NAME_MAX);

	/* All name, no separator at all. */
	ck_assert_int_eq(verify_one(text, 20, &d), -EBADMSG);
	assert_diag_at(&d, 10000);
}
END_TEST

START_TEST(test_verify_crc)
{
	static const char text[] = "vg0 {\n}\n";
	struct pf_mda_text_loc loc = loc_for(text, sizeof(text));
	struct pf_diag d;
	char want[64];
	uint32_t good = loc.checksum;

	loc.checksum = good ^ 0x80000000U;
	ck_assert_int_eq(pf_mda_text_verify(&loc, pf_span_make(text, sizeof(text)),
					    pf_span_make(NULL, 0), &d),
			 -EBADMSG);
	assert_diag_at(&d, 10000);
	(void)snprintf(want, sizeof(want), "stored 0x%08x", good ^ 0x80000000U);
	ck_assert_ptr_nonnull(strstr(d.msg, want));
	(void)snprintf(want, sizeof(want), "computed 0x%08x", good);
	ck_assert_ptr_nonnull(strstr(d.msg, want));
	ck_assert_int_eq(pf_mda_text_verify(&loc, pf_span_make(text, sizeof(text)),
					    pf_span_make(NULL, 0), NULL),
			 -EBADMSG);
}
END_TEST

/* The CRC runs over part 1 then part 2; swapping them must fail. */
START_TEST(test_verify_two_parts)
{
	static const char text[] = "myvg {\nseqno = 3\n}\n";
	const size_t len = sizeof(text), cut = 2;
	struct pf_mda_text_loc loc = {
		.offset1_bytes = 60000,
		.len1_bytes = cut,
		.offset2_bytes = 4608,
		.len2_bytes = len - cut,
		.total_bytes = len,
		.checksum = pf_crc(PF_CRC_INITIAL, text, len),
	};
	struct pf_span p1 = pf_span_make(text, cut), p2 = pf_span_make(text + cut, len - cut);
	struct pf_diag d;

	ck_assert_int_eq(pf_mda_text_verify(&loc, p1, p2, &d), 0);

	/* Lengths must be the ones located. */
	ck_assert_int_eq(pf_mda_text_verify(&loc, pf_span_make(text, cut + 1), p2, &d), -EBADMSG);
	assert_diag_at(&d, 60000);
	ck_assert_int_eq(pf_mda_text_verify(&loc, p1, pf_span_make(text + cut, 3), &d), -EBADMSG);
	assert_diag_at(&d, 4608);
	ck_assert_int_eq(pf_mda_text_verify(&loc, p1, pf_span_make(NULL, 0), &d), -EBADMSG);

	/* A bad name byte found in part 2 is reported at part 1's start with the name shown. */
	{
		char bad[sizeof(text)];

		memcpy(bad, text, sizeof(text));
		bad[3] = '/';
		loc.checksum = pf_crc(PF_CRC_INITIAL, bad, len);
		ck_assert_int_eq(pf_mda_text_verify(&loc, pf_span_make(bad, cut),
						    pf_span_make(bad + cut, len - cut), &d),
				 -EBADMSG);
		assert_diag_at(&d, 60000);
		ck_assert_ptr_nonnull(strstr(d.msg, "myv/"));
	}

	/* No separator before the text runs out, across both parts. */
	{
		static const char name_only[] = "abcdef";
		struct pf_mda_text_loc l2 = {
			.offset1_bytes = 70000,
			.len1_bytes = 3,
			.offset2_bytes = 5000,
			.len2_bytes = 3,
			.total_bytes = 6,
			.checksum = pf_crc(PF_CRC_INITIAL, name_only, 6),
		};

		ck_assert_int_eq(pf_mda_text_verify(&l2, pf_span_make(name_only, 3),
						    pf_span_make(name_only + 3, 3), &d),
				 -EBADMSG);
		assert_diag_at(&d, 70000);
	}
}
END_TEST

/* Corrupting any byte of the stored text is caught, wrapped or not. */
START_TEST(test_area_corruption)
{
	const size_t area_len = 2048, text_len = sizeof(vg_text);
	uint8_t *area = malloc(area_len);
	struct pf_diag d;

	ck_assert_ptr_nonnull(area);
	for (int wrapped = 0; wrapped < 2; wrapped++) {
		uint64_t off = wrapped ? area_len - 10 : 1024;

		ck_assert_int_eq(pf_build_mda_area(area, area_len, 0, off, vg_text, text_len), 0);
		ck_assert_int_eq(locate_and_verify(area, area_len, 0, &d), 0);
		area[wrapped ? 512 + 5 : 1024 + 5] ^= 0x20;
		ck_assert_int_eq(locate_and_verify(area, area_len, 0, &d), -EBADMSG);
		assert_diag_at(&d, off);
		ck_assert_ptr_nonnull(strstr(d.msg, "checksum"));
	}

	/* The builder refuses text it cannot place. */
	ck_assert_int_eq(pf_build_mda_area(area, area_len, 0, 100, vg_text, text_len), -EINVAL);
	ck_assert_int_eq(pf_build_mda_area(area, area_len, 0, area_len, vg_text, text_len),
			 -EINVAL);
	ck_assert_int_eq(pf_build_mda_area(area, area_len, 0, 512, vg_text, area_len), -EINVAL);
	free(area);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("mda");
	TCase *tc;

	tc = pf_unit_tcase("known-answer");
	tcase_add_test(tc, test_kat_loop5);
	tcase_add_test(tc, test_kat_builder_matches_lvm2);
	tcase_add_test(tc, test_kat_fresh_pv);
	tcase_add_test(tc, test_kat_wrap);
	tcase_add_test(tc, test_wrap_everywhere);
	suite_add_tcase(s, tc);

	tc = pf_unit_tcase("header");
	tcase_add_loop_test(tc, test_bad_header, 0, (int)ARRAY_SIZE(bad_headers));
	tcase_add_test(tc, test_header_diag_text);
	tcase_add_test(tc, test_header_short_span);
	tcase_add_test(tc, test_header_extreme_start);
	tcase_add_test(tc, test_slots);
	suite_add_tcase(s, tc);

	tc = pf_unit_tcase("locate");
	tcase_add_loop_test(tc, test_locate, 0, (int)ARRAY_SIZE(locate_cases));
	suite_add_tcase(s, tc);

	tc = pf_unit_tcase("verify");
	tcase_add_test(tc, test_verify_names);
	tcase_add_test(tc, test_verify_nul_in_name);
	tcase_add_test(tc, test_verify_name_length);
	tcase_add_test(tc, test_verify_crc);
	tcase_add_test(tc, test_verify_two_parts);
	tcase_add_test(tc, test_area_corruption);
	suite_add_tcase(s, tc);

	return s;
}

PF_UNIT_MAIN()
