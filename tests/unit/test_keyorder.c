/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Index orders by a string key: key then index, runs of equal keys, the lower bound. */
#include "config.h"

#include "base/keyorder.h"
#include "unit.h"

static const char *word(const void *ctx, size_t i)
{
	return ((const char *const *)ctx)[i];
}

/* Equal keys keep their indices' order whatever order they came in. */
START_TEST(test_sort_runs)
{
	static const char *const w[] = {"b", "a", "c", "a", "b", "a"};
	const struct pf_keyorder k = {word, w};
	size_t order[] = {5, 4, 3, 2, 1, 0};
	static const size_t want[] = {1, 3, 5, 0, 4, 2};
	size_t m = sizeof(order) / sizeof(order[0]);

	pf_keyorder_sort(&k, order, m);
	for (size_t i = 0; i < m; i++)
		ck_assert_uint_eq(order[i], want[i]);
	ck_assert_uint_eq(pf_keyorder_run_end(&k, order, m, 0), 3);
	ck_assert_uint_eq(pf_keyorder_run_end(&k, order, m, 3), 5);
	ck_assert_uint_eq(pf_keyorder_run_end(&k, order, m, 5), 6);
	ck_assert_uint_eq(pf_keyorder_run_end(&k, order, m, 4), 5);
}
END_TEST

START_TEST(test_lower)
{
	static const char *const w[] = {"b", "a", "c", "a", "b", "a"};
	const struct pf_keyorder k = {word, w};
	size_t order[] = {0, 1, 2, 3, 4, 5};

	pf_keyorder_sort(&k, order, 6);
	ck_assert_uint_eq(pf_keyorder_lower(&k, order, 6, ""), 0);
	ck_assert_uint_eq(pf_keyorder_lower(&k, order, 6, "a"), 0);
	ck_assert_uint_eq(pf_keyorder_lower(&k, order, 6, "aa"), 3);
	ck_assert_uint_eq(pf_keyorder_lower(&k, order, 6, "b"), 3);
	ck_assert_uint_eq(pf_keyorder_lower(&k, order, 6, "c"), 5);
	ck_assert_uint_eq(pf_keyorder_lower(&k, order, 6, "d"), 6);
	ck_assert_uint_eq(pf_keyorder_lower(&k, order, 0, "a"), 0);
	pf_keyorder_sort(&k, order, 0);
	pf_keyorder_sort(&k, order, 1);
	ck_assert_uint_eq(order[0], 1);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("keyorder");
	TCase *tc = pf_unit_tcase("keyorder");

	tcase_add_test(tc, test_sort_runs);
	tcase_add_test(tc, test_lower);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
