/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's name rules (validate_name) and the characters they allow. */
#include "config.h"

#include <string.h>

#include "format/names.h"
#include "unit.h"

static bool valid(const char *s)
{
	return pf_name_is_valid(s, strlen(s));
}

START_TEST(test_names)
{
	char longest[PF_NAME_MAX + 2];

	ck_assert(valid("vg0"));
	ck_assert(valid("my-vg"));
	ck_assert(valid("a--b"));
	ck_assert(valid("A.b_c+d"));
	ck_assert(valid("..."));
	ck_assert(!valid(""));
	ck_assert(!valid("."));
	ck_assert(!valid(".."));
	ck_assert(!valid("-vg"));
	ck_assert(!valid("vg 0"));
	ck_assert(!valid("vg/0"));
	ck_assert(!valid("vg\xc3\xa9"));
	ck_assert(!pf_name_is_valid(NULL, 3));
	ck_assert(!pf_name_is_valid("ab\0c", 4));
	memset(longest, 'x', sizeof(longest));
	ck_assert(pf_name_is_valid(longest, PF_NAME_MAX));
	ck_assert(!pf_name_is_valid(longest, PF_NAME_MAX + 1));
}
END_TEST

START_TEST(test_name_chars)
{
	static const char ok[] = "azAZ09+_.-";
	static const char bad[] = " /@:#*\"'\\\t\n\x7f\xc3";

	for (const char *c = ok; *c; c++)
		ck_assert_msg(pf_name_char_is_valid(*c), "'%c'", *c);
	for (const char *c = bad; *c; c++)
		ck_assert_msg(!pf_name_char_is_valid(*c), "0x%02x", (unsigned char)*c);
	ck_assert(!pf_name_char_is_valid('\0'));
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("names");
	TCase *tc = pf_unit_tcase("names");

	tcase_add_test(tc, test_names);
	tcase_add_test(tc, test_name_chars);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
