/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Decimal parsing: strict whole strings, prefixes that advance, lvm2's atoi; escaping; growth. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <string.h>

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

START_TEST(test_escape)
{
	char out[64], small[8];

	/* what lvm2 prints stays as it is, UTF-8 included */
	ck_assert_str_eq(pf_str_escape("host-1.ex_2+x", out, sizeof(out)), "host-1.ex_2+x");
	ck_assert_str_eq(pf_str_escape("h\xc3\xa9te \"q\"", out, sizeof(out)), "h\xc3\xa9te \"q\"");
	/* a terminal's escape sequence, newline, DEL, and backslash itself */
	ck_assert_str_eq(pf_str_escape("a\x1b[2Jb", out, sizeof(out)), "a\\x1b[2Jb");
	ck_assert_str_eq(pf_str_escape("\n\t\x7f\x01", out, sizeof(out)), "\\x0a\\x09\\x7f\\x01");
	ck_assert_str_eq(pf_str_escape("a\\x1b", out, sizeof(out)), "a\\\\x1b");
	ck_assert_str_eq(pf_str_escape("", out, sizeof(out)), "");
	/* truncated between escapes, always terminated */
	ck_assert_str_eq(pf_str_escape("abcd\x1b", small, sizeof(small)), "abcd");
	ck_assert_str_eq(pf_str_escape("abcdefghij", small, sizeof(small)), "abcdefg");
	ck_assert_str_eq(pf_str_escape("ab\\\\", small, 5), "ab\\\\");
	ck_assert_str_eq(pf_str_escape("ab\\\\", small, 4), "ab");
	ck_assert_str_eq(pf_str_escape("\x1b", small, 5), "\\x1b");
	ck_assert_str_eq(pf_str_escape("\x1b", small, 4), "");
	ck_assert_ptr_eq(pf_str_escape("x", small, 0), small);
	/* the documented worst case fits */
	memset(small, 0x1b, 7);
	small[7] = '\0';
	ck_assert_uint_eq(strlen(pf_str_escape(small, out, 4 * 7 + 1)), 28);
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
	TCase *tc = pf_unit_tcase("strutil");

	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_scan);
	tcase_add_test(tc, test_atoi);
	tcase_add_test(tc, test_escape);
	tcase_add_test(tc, test_grow);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
