/* SPDX-License-Identifier: GPL-2.0-or-later */
/* struct pf_diag: bounded, NULL-tolerant, offsets rebased and messages prefixed correctly. */
#include "config.h"

#include <string.h>

#include "base/diag.h"
#include "unit.h"

START_TEST(test_diag)
{
	struct pf_diag d;
	char big[1000];

	pf_diag_at(NULL, 1, "ignored %d", 1); /* must not crash */
	pf_diag_prefix(NULL, "x");
	pf_diag_at(&d, 528, "bad crc 0x%x", 0x12);
	ck_assert(d.has_offset);
	ck_assert_uint_eq(d.offset, 528);
	ck_assert_str_eq(d.msg, "bad crc 0x12");
	pf_diag_rebase(&d, 4096);
	ck_assert_uint_eq(d.offset, 4624);
	pf_diag_prefix(&d, "mda%u: ", 1U);
	ck_assert_str_eq(d.msg, "mda1: bad crc 0x12");
	pf_diag_text(&d, 10, 3, 7, "unexpected '}'");
	ck_assert_uint_eq(d.line, 3);
	ck_assert_uint_eq(d.col, 7);
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	pf_diag_msg(&d, "%s", big);
	ck_assert(!d.has_offset);
	ck_assert_uint_eq(strlen(d.msg), PF_DIAG_MSG_MAX - 1);
	pf_diag_prefix(&d, "%s", big);
	ck_assert_uint_eq(strlen(d.msg), PF_DIAG_MSG_MAX - 1);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("diag");
	TCase *tc = pf_unit_tcase("diag");

	tcase_add_test(tc, test_diag);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
