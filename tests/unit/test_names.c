/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's VG/LV name rules. */
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

static Suite *make_suite(void)
{
	Suite *s = suite_create("names");
	TCase *tc = tcase_create("names");

	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
