/* SPDX-License-Identifier: GPL-2.0-or-later */
/* String lists: growth, the cap, sort-unique and lookup. */
#include "config.h"

#include <errno.h>
#include <stdio.h>

#include "base/strv.h"
#include "unit.h"

START_TEST(test_strv)
{
	struct pf_strv s = { 0 };
	char buf[16];

	for (int i = 0; i < 100; i++) {
		(void)snprintf(buf, sizeof(buf), "n%02d", 99 - i);
		ck_assert_int_eq(pf_strv_push(&s, 150, buf), 0);
	}
	ck_assert_int_eq(pf_strv_push(&s, 150, "n05"), 0); /* a duplicate */
	ck_assert_uint_eq(s.n, 101);
	ck_assert_int_eq(pf_strv_push(&s, 101, "over"), -E2BIG);
	pf_strv_sort_unique(&s);
	ck_assert_uint_eq(s.n, 100);
	ck_assert_str_eq(s.v[0], "n00");
	ck_assert_str_eq(s.v[99], "n99");
	ck_assert(pf_strv_contains(&s, "n42"));
	ck_assert(!pf_strv_contains(&s, "n100"));
	pf_strv_release(&s);
	ck_assert_uint_eq(s.n, 0);
	ck_assert(!pf_strv_contains(&s, "n42"));
	pf_strv_sort_unique(&s);
	pf_strv_release(NULL);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("strv");
	TCase *tc = tcase_create("strv");

	tcase_add_test(tc, test_strv);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
