/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Shared scaffolding for the Check unit tests: one suite per lib/ module. */
#ifndef PF_TEST_UNIT_H
#define PF_TEST_UNIT_H

#include <check.h>
#include <stdlib.h>

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
