/* SPDX-License-Identifier: GPL-2.0-or-later */
/* md superblocks where lvm2 looks for them: the magic at the start, each end-of-device layout. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "base/span.h"
#include "format/crc.h"
#include "format/mdsb.h"
#include "unit.h"

#define MD_MAGIC   0xa92b4efcu
#define DDF_MAGIC  0xde11de11u
#define IMSM_SIG   "Intel Raid ISM Cfg Sig. "
#define SECTOR	   512u
#define TAIL_BYTES (PF_MDSB_END_BYTES + 2 * SECTOR)

/* md 1.1 magic at 0 and 1.2 at 4 KiB; nowhere else, and never past the bytes given. */
START_TEST(test_at_start)
{
	static const bool le = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	static uint8_t head[PF_MDSB_START_BYTES];

	memset(head, 0, sizeof(head));
	ck_assert(!pf_mdsb_at_start(pf_span_make(head, sizeof(head))));
	pf_put_le32(head, MD_MAGIC);
	ck_assert(pf_mdsb_at_start(pf_span_make(head, sizeof(head))));
	ck_assert(pf_mdsb_at_start(pf_span_make(head, 4)));
	ck_assert(!pf_mdsb_at_start(pf_span_make(head, 3)));
	memset(head, 0, sizeof(head));
	pf_put_le32(head + 4096, MD_MAGIC);
	ck_assert(pf_mdsb_at_start(pf_span_make(head, sizeof(head))));
	ck_assert(!pf_mdsb_at_start(pf_span_make(head, sizeof(head) - 1)));
	memset(head, 0, sizeof(head));
	pf_put_le32(head + 512, MD_MAGIC);
	pf_put_le32(head + 4095, MD_MAGIC);
	ck_assert(!pf_mdsb_at_start(pf_span_make(head, sizeof(head))));
	/* compat: lvm2 takes the magic in host order (swapped only on big-endian hosts) */
	memset(head, 0, sizeof(head));
	pf_put_be32(head, MD_MAGIC);
	ck_assert(pf_mdsb_at_start(pf_span_make(head, sizeof(head))) == !le);
}
END_TEST

/*
 * The device's last TAIL_BYTES (or all of it, when smaller), as a buffer and the device
 * offset of its first byte.
 */
struct tail {
	uint8_t b[TAIL_BYTES];
	uint64_t off;
	uint64_t size;
};

static void tail_init(struct tail *t, uint64_t size)
{
	memset(t->b, 0, sizeof(t->b));
	t->size = size;
	t->off = size > TAIL_BYTES ? size - TAIL_BYTES : 0;
}

static uint8_t *at(struct tail *t, uint64_t dev_off)
{
	ck_assert_uint_ge(dev_off, t->off);
	ck_assert_uint_lt(dev_off - t->off, TAIL_BYTES);
	return t->b + (dev_off - t->off);
}

static int find(const struct tail *t, unsigned lbs, uint64_t *sb)
{
	return pf_mdsb_end_find(t->b, (size_t)(t->size - t->off), t->off, t->size, lbs, sb);
}

/* Where lvm2 puts each, in whole sectors of the size: computed here from md's own rules. */
static uint64_t off_0_90(uint64_t size)
{
	return ((size / SECTOR / 128 * 128) - 128) * SECTOR;
}

static uint64_t off_1_0(uint64_t size)
{
	return ((size / SECTOR - 16) / 8 * 8) * SECTOR;
}

static uint64_t off_last(uint64_t size)
{
	return (size / SECTOR - 1) * SECTOR;
}

static uint64_t off_alt(uint64_t size)
{
	return (size / SECTOR - 257) * SECTOR;
}

/* A DDF header: magic and CRC in big-endian (as DDF writes them) or little-endian order. */
static void put_ddf(uint8_t *p, bool be, bool bad_crc)
{
	uint32_t crc;

	memset(p, 0, SECTOR);
	if (be)
		pf_put_be32(p, DDF_MAGIC);
	else
		pf_put_le32(p, DDF_MAGIC);
	memset(p + 4, 0xff, 4);
	crc = pf_crc(0, p, SECTOR) ^ (bad_crc ? 1u : 0u);
	if (be)
		pf_put_be32(p + 4, crc);
	else
		pf_put_le32(p + 4, crc);
}

enum end_kind {
	END_NONE,
	END_0_90,
	END_0_90_BE,
	END_0_90_NEXT_SECTOR,
	END_1_0,
	END_1_0_NEXT_SECTOR,
	END_0_90_AND_1_0,
	END_IMSM_1K,
	END_IMSM_8K,
	END_IMSM_SHORT,
	END_DDF_LAST_BE,
	END_DDF_LAST_LE,
	END_DDF_ALT,
	END_DDF_LAST_BAD_ALT_GOOD,
	END_DDF_ALT_BAD,
};

static void build_end(enum end_kind k, struct tail *t)
{
	uint64_t s = t->size;

	switch (k) {
	case END_NONE:
		break;
	case END_0_90:
		pf_put_le32(at(t, off_0_90(s)), MD_MAGIC);
		break;
	case END_0_90_BE:
		pf_put_be32(at(t, off_0_90(s)), MD_MAGIC);
		break;
	case END_0_90_NEXT_SECTOR:
		pf_put_le32(at(t, off_0_90(s) + SECTOR), MD_MAGIC);
		break;
	case END_1_0:
		pf_put_le32(at(t, off_1_0(s)), MD_MAGIC);
		break;
	case END_1_0_NEXT_SECTOR:
		pf_put_le32(at(t, off_1_0(s) + SECTOR), MD_MAGIC);
		break;
	case END_0_90_AND_1_0:
		pf_put_le32(at(t, off_0_90(s)), MD_MAGIC);
		pf_put_le32(at(t, off_1_0(s)), MD_MAGIC);
		break;
	case END_IMSM_1K:
		memcpy(at(t, s / SECTOR * SECTOR - 1024), IMSM_SIG, strlen(IMSM_SIG));
		break;
	case END_IMSM_8K:
		memcpy(at(t, s / SECTOR * SECTOR - 8192), IMSM_SIG, strlen(IMSM_SIG));
		break;
	case END_IMSM_SHORT:
		memcpy(at(t, s / SECTOR * SECTOR - 1024), IMSM_SIG, strlen(IMSM_SIG) - 1);
		break;
	case END_DDF_LAST_BE:
		put_ddf(at(t, off_last(s)), true, false);
		break;
	case END_DDF_LAST_LE:
		put_ddf(at(t, off_last(s)), false, false);
		break;
	case END_DDF_ALT:
		put_ddf(at(t, off_alt(s)), true, false);
		break;
	case END_DDF_LAST_BAD_ALT_GOOD:
		put_ddf(at(t, off_last(s)), true, true);
		put_ddf(at(t, off_alt(s)), true, false);
		break;
	case END_DDF_ALT_BAD:
		put_ddf(at(t, off_alt(s)), false, true);
		break;
	}
}

#define MIB (1024ull * 1024)

START_TEST(test_md_end_find)
{
	static const bool le = __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__;
	/* sizes: aligned to 64 KiB, not aligned, with a partial last sector, the DDF floor */
	static const uint64_t sizes[] = {
		64 * MIB, 64 * MIB + 100 * SECTOR + 300, 80 * MIB - 3 * SECTOR, 384 * SECTOR,
		1 * MIB + 7 * SECTOR,
	};
	static const struct {
		enum end_kind end;
		unsigned lbs;
		enum pf_mdsb_end_kind want;
	} cases[] = {
		{ END_NONE, 512, PF_MDSB_END_NONE },
		{ END_0_90, 512, PF_MDSB_END_0_90 },
		{ END_0_90, 4096, PF_MDSB_END_0_90 },
		/* compat: lvm2 takes the magic in host order (swapped only on big-endian hosts) */
		{ END_0_90_BE, 512, le ? PF_MDSB_END_NONE : PF_MDSB_END_0_90 },
		{ END_0_90_NEXT_SECTOR, 512, PF_MDSB_END_NONE },
		{ END_1_0, 512, PF_MDSB_END_1_0 },
		{ END_1_0_NEXT_SECTOR, 512, PF_MDSB_END_NONE },
		{ END_0_90_AND_1_0, 512, PF_MDSB_END_0_90 }, /* lvm2's order */
		{ END_IMSM_1K, 512, PF_MDSB_END_IMSM },
		{ END_IMSM_1K, 0, PF_MDSB_END_IMSM },	   /* block size unknown: as lvm2, 1 KiB */
		{ END_IMSM_1K, 4096, PF_MDSB_END_NONE },	   /* 4 KiB blocks: 8 KiB from the end */
		{ END_IMSM_8K, 4096, PF_MDSB_END_IMSM },
		{ END_IMSM_8K, 512, PF_MDSB_END_NONE },
		{ END_IMSM_SHORT, 512, PF_MDSB_END_NONE },
		{ END_DDF_LAST_BE, 512, PF_MDSB_END_DDF },
		{ END_DDF_LAST_LE, 512, PF_MDSB_END_DDF },
		{ END_DDF_ALT, 512, PF_MDSB_END_DDF },
		/* a bad header in the last sector ends lvm2's search */
		{ END_DDF_LAST_BAD_ALT_GOOD, 512, PF_MDSB_END_NONE },
		{ END_DDF_ALT_BAD, 512, PF_MDSB_END_NONE },
	};
	static struct tail t;

	for (size_t z = 0; z < ARRAY_SIZE(sizes); z++) {
		for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
			uint64_t sb = 12345;
			int r;

			tail_init(&t, sizes[z]);
			build_end(cases[i].end, &t);
			r = find(&t, cases[i].lbs, &sb);
			ck_assert_msg(r == (int)cases[i].want, "size %llu case %zu: %d",
				      (unsigned long long)sizes[z], i, r);
			if (r == PF_MDSB_END_NONE)
				ck_assert_uint_eq(sb, 12345);
		}
	}
}
END_TEST

/* Where each is found, and that a device under 192 KiB is never taken for DDF. */
START_TEST(test_md_end_offsets)
{
	static struct tail t;
	uint64_t s = 64 * MIB + 100 * SECTOR + 300, sb = 0;

	tail_init(&t, s);
	build_end(END_0_90, &t);
	ck_assert_int_eq(find(&t, 512, &sb), PF_MDSB_END_0_90);
	/* 64 KiB below the end rounded down to 64 KiB */
	ck_assert_uint_eq(sb, 64 * MIB - 64 * 1024);
	tail_init(&t, s);
	build_end(END_1_0, &t);
	ck_assert_int_eq(find(&t, 512, &sb), PF_MDSB_END_1_0);
	ck_assert_uint_eq(sb, 64 * MIB + 80 * SECTOR);
	tail_init(&t, s);
	build_end(END_IMSM_8K, &t);
	ck_assert_int_eq(find(&t, 4096, &sb), PF_MDSB_END_IMSM);
	ck_assert_uint_eq(sb, 64 * MIB + 100 * SECTOR - 8192);
	tail_init(&t, s);
	build_end(END_DDF_LAST_BE, &t);
	ck_assert_int_eq(find(&t, 512, &sb), PF_MDSB_END_DDF);
	ck_assert_uint_eq(sb, 64 * MIB + 99 * SECTOR);
	tail_init(&t, s);
	build_end(END_DDF_ALT, &t);
	ck_assert_int_eq(find(&t, 512, &sb), PF_MDSB_END_DDF);
	ck_assert_uint_eq(sb, 64 * MIB + 100 * SECTOR - 257 * SECTOR);

	/* the CRC lvm2 accepts for a header of nothing but the magic, worked out apart */
	tail_init(&t, s);
	pf_put_be32(at(&t, off_last(s)), DDF_MAGIC);
	pf_put_be32(at(&t, off_last(s)) + 4, 0xffb4f4d9);
	ck_assert_int_eq(find(&t, 512, &sb), PF_MDSB_END_DDF);

	/* 383 sectors: under DDF's 192 KiB floor, its headers are not looked for */
	tail_init(&t, 383 * SECTOR);
	build_end(END_DDF_LAST_BE, &t);
	ck_assert_int_eq(find(&t, 512, &sb), PF_MDSB_END_NONE);
	tail_init(&t, 383 * SECTOR);
	build_end(END_1_0, &t);
	ck_assert_int_eq(find(&t, 512, &sb), PF_MDSB_END_1_0);
}
END_TEST

/* A superblock anywhere but where lvm2 looks is not one: every position in the range. */
START_TEST(test_md_end_sweep)
{
	static struct tail t;
	uint64_t s = 64 * MIB + 100 * SECTOR, off = 0, len = 0, sb = 0;
	unsigned found = 0;

	ck_assert_int_eq(pf_mdsb_end_range(s, 512, &off, &len), 0);
	for (uint64_t p = off; p + 4 <= off + len; p += 4) {
		tail_init(&t, s);
		pf_put_le32(at(&t, p), MD_MAGIC);
		if (find(&t, 512, &sb) != PF_MDSB_END_NONE) {
			ck_assert(p == off_0_90(s) || p == off_1_0(s));
			ck_assert_uint_eq(sb, p);
			found++;
		}
	}
	ck_assert_uint_eq(found, 2);
	found = 0;
	for (uint64_t p = off; p + SECTOR <= off + len; p += SECTOR) {
		tail_init(&t, s);
		put_ddf(at(&t, p), true, false);
		if (find(&t, 512, &sb) != PF_MDSB_END_NONE) {
			ck_assert(p == off_last(s) || p == off_alt(s));
			found++;
		}
	}
	ck_assert_uint_eq(found, 2);
	found = 0;
	for (uint64_t p = off; p + strlen(IMSM_SIG) <= off + len; p += 8) {
		tail_init(&t, s);
		memcpy(at(&t, p), IMSM_SIG, strlen(IMSM_SIG));
		if (find(&t, 512, &sb) != PF_MDSB_END_NONE)
			found++;
	}
	ck_assert_uint_eq(found, 1);
}
END_TEST

START_TEST(test_md_end_range)
{
	static const struct {
		uint64_t size;
		int r;
		uint64_t off, len;
	} cases[] = {
		{ 0, -ERANGE, 0, 0 },
		{ 255 * SECTOR + 511, -ERANGE, 0, 0 }, /* whole sectors count: under 128 KiB */
		{ 256 * SECTOR, 0, 128 * SECTOR, 128 * SECTOR },
		{ 383 * SECTOR, 0, 128 * SECTOR, 255 * SECTOR }, /* no DDF yet */
		{ 384 * SECTOR, 0, 127 * SECTOR, 257 * SECTOR },
		{ 64 * MIB, 0, 64 * MIB - 257 * SECTOR, 257 * SECTOR },
		{ 64 * MIB + 300, 0, 64 * MIB - 257 * SECTOR, 257 * SECTOR },
		{ UINT64_MAX, 0, (UINT64_MAX / SECTOR - 257) * SECTOR, 257 * SECTOR },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t off = 7, len = 7;

		ck_assert_int_eq(pf_mdsb_end_range(cases[i].size, 512, &off, &len), cases[i].r);
		ck_assert_uint_eq(off, cases[i].r ? 7 : cases[i].off);
		ck_assert_uint_eq(len, cases[i].r ? 7 : cases[i].len);
		ck_assert_uint_le(len, PF_MDSB_END_BYTES);
	}
}
END_TEST

/* Buffers that do not hold the range are refused, the output left alone. */
START_TEST(test_md_end_bad_input)
{
	static struct tail t;
	uint64_t s = 64 * MIB, off = 0, len = 0, sb = 99;

	tail_init(&t, s);
	build_end(END_0_90, &t);
	ck_assert_int_eq(pf_mdsb_end_range(s, 512, &off, &len), 0);
	/* exactly the range: enough */
	ck_assert_int_eq(pf_mdsb_end_find(at(&t, off), (size_t)len, off, s, 512, &sb),
			 PF_MDSB_END_0_90);
	sb = 99;
	/* one byte short at either end */
	ck_assert_int_eq(pf_mdsb_end_find(at(&t, off), (size_t)len - 1, off, s, 512, &sb),
			 -EINVAL);
	ck_assert_int_eq(pf_mdsb_end_find(at(&t, off + 1), (size_t)len - 1, off + 1, s, 512, &sb),
			 -EINVAL);
	/* the buffer said to start past the range, or past the device */
	ck_assert_int_eq(pf_mdsb_end_find(t.b, sizeof(t.b), s, s, 512, &sb), -EINVAL);
	ck_assert_int_eq(pf_mdsb_end_find(NULL, 0, off, s, 512, &sb), -EINVAL);
	/* too small a device for lvm2 to look */
	ck_assert_int_eq(pf_mdsb_end_find(t.b, sizeof(t.b), 0, 255 * SECTOR, 512, &sb),
			 -EINVAL);
	ck_assert_uint_eq(sb, 99);
}
END_TEST

START_TEST(test_md_end_name)
{
	ck_assert_str_eq(pf_mdsb_end_name(PF_MDSB_END_0_90), "0.90");
	ck_assert_str_eq(pf_mdsb_end_name(PF_MDSB_END_1_0), "1.0");
	ck_assert_str_eq(pf_mdsb_end_name(PF_MDSB_END_IMSM), "imsm");
	ck_assert_str_eq(pf_mdsb_end_name(PF_MDSB_END_DDF), "ddf");
	ck_assert_ptr_null(pf_mdsb_end_name(PF_MDSB_END_NONE));
	ck_assert_ptr_null(pf_mdsb_end_name(_PF_MDSB_END_MAX));
	ck_assert_ptr_null(pf_mdsb_end_name((enum pf_mdsb_end_kind)-1));
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("mdsb");
	TCase *tc = pf_unit_tcase("mdsb");

	tcase_add_test(tc, test_at_start);
	tcase_add_test(tc, test_md_end_find);
	tcase_add_test(tc, test_md_end_offsets);
	tcase_add_test(tc, test_md_end_sweep);
	tcase_add_test(tc, test_md_end_range);
	tcase_add_test(tc, test_md_end_bad_input);
	tcase_add_test(tc, test_md_end_name);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
