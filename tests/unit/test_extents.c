/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pieces of a device read so far: what they cover, where the next begins, ranges of them. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io/extents.h"
#include "unit.h"

static uint8_t dev[4096];

/* Pieces [0, 512), [512, 1024), [2048, 3072) of dev, borrowed. */
static void three_pieces(struct pf_extents *e)
{
	for (size_t i = 0; i < sizeof(dev); i++)
		dev[i] = (uint8_t)(i * 7 + i / 256);
	e->n = 3;
	e->x[0] = (struct pf_extent){ .off = 512, .len = 512, .buf = dev + 512 };
	e->x[1] = (struct pf_extent){ .off = 0, .len = 512, .buf = dev };
	e->x[2] = (struct pf_extent){ .off = 2048, .len = 1024, .buf = dev + 2048 };
}

START_TEST(test_covered_until)
{
	struct pf_extents e;

	three_pieces(&e);
	ck_assert_uint_eq(pf_extents_covered_until(&e, 0, 4096), 1024); /* across two pieces */
	ck_assert_uint_eq(pf_extents_covered_until(&e, 100, 600), 600);
	ck_assert_uint_eq(pf_extents_covered_until(&e, 1024, 4096), 1024); /* a gap at once */
	ck_assert_uint_eq(pf_extents_covered_until(&e, 1500, 1600), 1500);
	ck_assert_uint_eq(pf_extents_covered_until(&e, 2048, 4096), 3072);
	ck_assert_uint_eq(pf_extents_covered_until(&e, 3000, 3000), 3000);
	e.n = 0;
	ck_assert_uint_eq(pf_extents_covered_until(&e, 0, 10), 0);
}
END_TEST

START_TEST(test_next)
{
	struct pf_extents e;

	three_pieces(&e);
	ck_assert_uint_eq(pf_extents_next(&e, 0), 512);
	ck_assert_uint_eq(pf_extents_next(&e, 512), 2048);
	ck_assert_uint_eq(pf_extents_next(&e, 1024), 2048);
	ck_assert_uint_eq(pf_extents_next(&e, 2048), UINT64_MAX);
}
END_TEST

START_TEST(test_view)
{
	struct pf_extents e;
	const uint8_t *p;
	uint8_t *tmp;
	size_t n;

	three_pieces(&e);
	/* Inside one piece: in place. */
	ck_assert_int_eq(pf_extents_view(&e, 2100, 500, 4096, &p, &tmp, &n), 0);
	ck_assert_ptr_eq(p, dev + 2100);
	ck_assert_ptr_null(tmp);
	ck_assert_uint_eq(n, 500);
	/* Across two: a copy, the same bytes. */
	ck_assert_int_eq(pf_extents_view(&e, 300, 500, 4096, &p, &tmp, &n), 0);
	ck_assert_ptr_nonnull(tmp);
	ck_assert_ptr_eq(p, tmp);
	ck_assert_uint_eq(n, 500);
	ck_assert_mem_eq(p, dev + 300, 500);
	free(tmp);
	/* Nothing: a valid empty buffer. */
	ck_assert_int_eq(pf_extents_view(&e, 4096, 0, 4096, &p, &tmp, &n), 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_null(tmp);
	ck_assert_uint_eq(n, 0);
	/* A copy beyond max is refused; in place is never too long. */
	ck_assert_int_eq(pf_extents_view(&e, 0, 1024, 1000, &p, &tmp, &n), -E2BIG);
	ck_assert_ptr_null(tmp);
	ck_assert_int_eq(pf_extents_view(&e, 2048, 1024, 1000, &p, &tmp, &n), 0);
	ck_assert_ptr_null(tmp);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("extents");
	TCase *tc = pf_unit_tcase("extents");

	tcase_add_test(tc, test_covered_until);
	tcase_add_test(tc, test_next);
	tcase_add_test(tc, test_view);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
