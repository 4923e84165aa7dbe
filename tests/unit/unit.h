/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared scaffolding for the Check unit tests: one suite per lib/ module. */
#ifndef PF_TEST_UNIT_H
#define PF_TEST_UNIT_H

#include <check.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>

/*
 * Every test case's time limit (Check's default is 4 s). It only catches a hang: the slowest
 * case takes a few seconds on a loaded 2-core machine under the sanitizers, and no test times
 * the code. CK_TIMEOUT_MULTIPLIER still scales it.
 */
#define PF_UNIT_TIMEOUT_S 120

/* tcase_create() with PF_UNIT_TIMEOUT_S: every test file makes its cases with this. */
static inline TCase *pf_unit_tcase(const char *name)
{
	TCase *tc = tcase_create(name);

	tcase_set_timeout(tc, PF_UNIT_TIMEOUT_S);
	return tc;
}

static inline int pf_unit_rm_one(const char *path, const struct stat *st, int flag,
				 struct FTW *ftw)
{
	(void)st;
	(void)flag;
	(void)ftw;
	return remove(path);
}

/* rm -rf dir, for a teardown: depth first, never following a symlink out of it. */
static inline void pf_unit_rm_rf(const char *dir)
{
	(void)nftw(dir, pf_unit_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/*
 * Each test file defines `static Suite *make_suite(void)` and ends with
 * PF_UNIT_MAIN(). Tests fork (CK_FORK default) so one crash is one failure.
 */
#define PF_UNIT_MAIN()                                                                             \
	int main(void)                                                                             \
	{                                                                                          \
		SRunner *sr = srunner_create(make_suite());                                        \
		int failed;                                                                        \
		srunner_run_all(sr, CK_NORMAL);                                                    \
		failed = srunner_ntests_failed(sr);                                                \
		srunner_free(sr);                                                                  \
		return failed ? EXIT_FAILURE : EXIT_SUCCESS;                                       \
	}

#endif /* PF_TEST_UNIT_H */
