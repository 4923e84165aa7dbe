/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The bounds-checked readers every decoder relies on: in range, at the edge, past it, wrapping. */
#include "config.h"

#include "base/span.h"
#include "unit.h"

static const uint8_t bytes[16] = { 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
				   0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10 };

START_TEST(test_le_values)
{
	struct pf_span s = pf_span_make(bytes, sizeof(bytes));
	uint16_t v16;
	uint32_t v32;
	uint64_t v64;

	ck_assert_int_eq(pf_span_le16(s, 0, &v16), 0);
	ck_assert_uint_eq(v16, 0x0201);
	ck_assert_int_eq(pf_span_le32(s, 1, &v32), 0);
	ck_assert_uint_eq(v32, 0x05040302);
	ck_assert_int_eq(pf_span_le64(s, 8, &v64), 0);
	ck_assert_uint_eq(v64, 0x100f0e0d0c0b0a09ULL);
}
END_TEST

START_TEST(test_be_values)
{
	struct pf_span s = pf_span_make(bytes, sizeof(bytes));
	uint32_t v32 = 42;
	uint64_t v64 = 42;

	ck_assert_int_eq(pf_span_be32(s, 1, &v32), 0);
	ck_assert_uint_eq(v32, 0x02030405);
	ck_assert_int_eq(pf_span_be64(s, 8, &v64), 0);
	ck_assert_uint_eq(v64, 0x090a0b0c0d0e0f10ULL);
	ck_assert_int_eq(pf_span_be32(s, 12, &v32), 0); /* exactly at the end */
	ck_assert_uint_eq(v32, 0x0d0e0f10);
	v32 = 42;
	v64 = 42;
	ck_assert_int_eq(pf_span_be32(s, 13, &v32), -EBADMSG);
	ck_assert_int_eq(pf_span_be64(s, 9, &v64), -EBADMSG);
	ck_assert_int_eq(pf_span_be32(s, UINT64_MAX - 2, &v32), -EBADMSG);
	ck_assert_int_eq(pf_span_be64(s, UINT64_MAX, &v64), -EBADMSG);
	ck_assert_uint_eq(v32, 42); /* untouched on failure */
	ck_assert_uint_eq(v64, 42);
}
END_TEST

START_TEST(test_bounds)
{
	struct pf_span s = pf_span_make(bytes, sizeof(bytes)), sub;
	uint64_t v64 = 42;
	uint32_t v32 = 42;

	ck_assert_int_eq(pf_span_le64(s, 9, &v64), -EBADMSG); /* one past the end */
	ck_assert_uint_eq(v64, 42);			      /* untouched on failure */
	ck_assert_int_eq(pf_span_le32(s, 12, &v32), 0);	      /* exactly at the end */
	ck_assert_int_eq(pf_span_le32(s, 13, &v32), -EBADMSG);
	ck_assert_int_eq(pf_span_le32(s, UINT64_MAX, &v32), -EBADMSG);
	ck_assert_int_eq(pf_span_le32(s, UINT64_MAX - 2, &v32), -EBADMSG);
	ck_assert_int_eq(pf_span_sub(s, 16, 0, &sub), 0);
	ck_assert_uint_eq(sub.len, 0);
	ck_assert_int_eq(pf_span_sub(s, 17, 0, &sub), -EBADMSG);
	ck_assert_int_eq(pf_span_sub(s, 1, UINT64_MAX, &sub), -EBADMSG);
	ck_assert_int_eq(pf_span_sub(s, UINT64_MAX, 1, &sub), -EBADMSG);
	ck_assert(!pf_span_has(pf_span_make(NULL, 10), 0, 1));
}
END_TEST

START_TEST(test_overflow_helpers)
{
	uint64_t r;

	ck_assert(!pf_add_overflow_u64(1, 2, &r));
	ck_assert_uint_eq(r, 3);
	ck_assert(pf_add_overflow_u64(UINT64_MAX, 1, &r));
	ck_assert(pf_mul_overflow_u64(UINT64_MAX / 2 + 1, 2, &r));
	ck_assert(!pf_mul_overflow_u64(1ULL << 31, 1ULL << 31, &r));
}
END_TEST

START_TEST(test_writers_round_trip)
{
	uint8_t b[8];
	uint64_t v;

	pf_put_le64(b, 0x1122334455667788ULL);
	ck_assert_int_eq(pf_span_le64(pf_span_make(b, 8), 0, &v), 0);
	ck_assert_uint_eq(v, 0x1122334455667788ULL);
	pf_put_le32(b, 0xdeadbeef);
	ck_assert_uint_eq(b[0], 0xef);
	ck_assert_uint_eq(b[3], 0xde);
	pf_put_be64(b, 0x1122334455667788ULL);
	ck_assert_int_eq(pf_span_be64(pf_span_make(b, 8), 0, &v), 0);
	ck_assert_uint_eq(v, 0x1122334455667788ULL);
	ck_assert_uint_eq(b[0], 0x11);
	pf_put_be32(b, 0xdeadbeef);
	ck_assert_uint_eq(b[0], 0xde);
	ck_assert_uint_eq(b[3], 0xef);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("span");
	TCase *tc = pf_unit_tcase("span");

	tcase_add_test(tc, test_le_values);
	tcase_add_test(tc, test_be_values);
	tcase_add_test(tc, test_bounds);
	tcase_add_test(tc, test_overflow_helpers);
	tcase_add_test(tc, test_writers_round_trip);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
