/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The logger: levels filter, the prefix is applied, one line per message. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "unit.h"

START_TEST(test_levels_and_prefix)
{
	char buf[512] = { 0 };
	FILE *f = tmpfile();
	int saved = dup(2);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(saved, 0);
	(void)fflush(stderr);
	ck_assert_int_ge(dup2(fileno(f), 2), 0);

	pf_log_set_prefix("pf: ");
	ck_assert_int_eq(pf_log_get_level(), PF_LOG_NOTICE);
	pf_err("shown %d", 1);
	pf_info("hidden");
	pf_log_set_level(PF_LOG_DEBUG);
	pf_debug("debug %s", "on");
	pf_log_set_level(PF_LOG_ERR);
	pf_warn("hidden too");
	(void)fflush(stderr);

	ck_assert_int_ge(dup2(saved, 2), 0);
	rewind(f);
	ck_assert_uint_gt(fread(buf, 1, sizeof(buf) - 1, f), 0);
	ck_assert_str_eq(buf, "pf: shown 1\npf: debug on\n");
	(void)fclose(f);
	(void)close(saved);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("log");
	TCase *tc = pf_unit_tcase("log");

	tcase_add_test(tc, test_levels_and_prefix);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
