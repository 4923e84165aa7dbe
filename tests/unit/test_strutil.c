/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Decimal parsing: strict whole strings, prefixes that advance, lvm2's atoi; array growth. */
#include "config.h"

#include <errno.h>
#include <limits.h>

#include "base/grow.h"
#include "base/strutil.h"
#include "unit.h"

START_TEST(test_parse)
{
	uint64_t v = 7;

	ck_assert_int_eq(pf_parse_u64("0", 10, &v), 0);
	ck_assert_uint_eq(v, 0);
	ck_assert_int_eq(pf_parse_u64("18446744073709551615", UINT64_MAX, &v), 0);
	ck_assert_uint_eq(v, UINT64_MAX);
	v = 7;
	ck_assert_int_eq(pf_parse_u64("18446744073709551616", UINT64_MAX, &v), -EBADMSG);
	ck_assert_int_eq(pf_parse_u64("11", 10, &v), -EBADMSG);
	ck_assert_int_eq(pf_parse_u64("", 10, &v), -EBADMSG);
	ck_assert_int_eq(pf_parse_u64("+1", 10, &v), -EBADMSG);
	ck_assert_int_eq(pf_parse_u64(" 1", 10, &v), -EBADMSG);
	ck_assert_int_eq(pf_parse_u64("1\n", 10, &v), -EBADMSG);
	ck_assert_uint_eq(v, 7);
	ck_assert_int_eq(pf_parse_u64("10", 10, &v), 0);
	ck_assert_uint_eq(v, 10);
}
END_TEST

START_TEST(test_scan)
{
	const char *s = "253:17,a", *start;
	uint64_t ma = 0, mi = 0;

	ck_assert_int_eq(pf_scan_u64(&s, UINT32_MAX, &ma), 0);
	ck_assert_int_eq(*s++, ':');
	ck_assert_int_eq(pf_scan_u64(&s, UINT32_MAX, &mi), 0);
	ck_assert_uint_eq(ma, 253);
	ck_assert_uint_eq(mi, 17);
	ck_assert_str_eq(s, ",a");
	start = s;
	ck_assert_int_eq(pf_scan_u64(&s, UINT32_MAX, &mi), -EBADMSG);
	ck_assert_ptr_eq(s, start);
	s = "4294967296x";
	start = s;
	ck_assert_int_eq(pf_scan_u64(&s, UINT32_MAX, &mi), -EBADMSG);
	ck_assert_ptr_eq(s, start);
	ck_assert_uint_eq(mi, 17);
}
END_TEST

START_TEST(test_atoi)
{
	ck_assert_int_eq(pf_atoi("12"), 12);
	ck_assert_int_eq(pf_atoi("  \t-3x"), -3);
	ck_assert_int_eq(pf_atoi("+7\n"), 7);
	ck_assert_int_eq(pf_atoi(""), 0);
	ck_assert_int_eq(pf_atoi("x1"), 0);
	ck_assert_int_eq(pf_atoi("99999999999999999999"), INT_MAX);
	ck_assert_int_eq(pf_atoi("-99999999999999999999"), INT_MIN);
}
END_TEST

START_TEST(test_grow)
{
	int *v = NULL;
	size_t cap = 0;

	ck_assert_int_eq(pf_grow(&v, &cap, 1, 20), 0);
	ck_assert_uint_eq(cap, 8);
	ck_assert_int_eq(pf_grow(&v, &cap, 8, 20), 0);
	ck_assert_uint_eq(cap, 8);
	ck_assert_int_eq(pf_grow(&v, &cap, 9, 20), 0);
	ck_assert_uint_eq(cap, 16);
	ck_assert_int_eq(pf_grow(&v, &cap, 17, 20), 0);
	ck_assert_uint_eq(cap, 20);
	v[19] = 1;
	ck_assert_int_eq(pf_grow(&v, &cap, 21, 20), -E2BIG);
	ck_assert_uint_eq(cap, 20);
	ck_assert_int_eq(pf_grow(&v, &cap, 100, 1000), 0);
	ck_assert_uint_eq(cap, 100);
	free(v);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("strutil");
	TCase *tc = tcase_create("strutil");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_scan);
	tcase_add_test(tc, test_atoi);
	tcase_add_test(tc, test_grow);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
