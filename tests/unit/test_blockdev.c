/* SPDX-License-Identifier: GPL-2.0-or-later */
/* struct pf_dev records: release, devno order, type and NVMe tests. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "device/blockdev.h"
#include "unit.h"

START_TEST(test_cmp_devno)
{
	struct pf_dev devs[] = {
		{ .major = 8, .minor = 16 }, { .major = 7, .minor = 1025 }, { .major = 8, .minor = 0 },
		{ .major = 7, .minor = 2 },  { .major = 259, .minor = 0 },
	};

	qsort(devs, ARRAY_SIZE(devs), sizeof(*devs), pf_dev_cmp_devno);
	ck_assert_uint_eq(devs[0].major, 7);
	ck_assert_uint_eq(devs[0].minor, 2);
	ck_assert_uint_eq(devs[1].minor, 1025);
	ck_assert_uint_eq(devs[2].major, 8);
	ck_assert_uint_eq(devs[2].minor, 0);
	ck_assert_uint_eq(devs[3].minor, 16);
	ck_assert_uint_eq(devs[4].major, 259);
	ck_assert_int_eq(pf_dev_cmp_devno(&devs[1], &devs[1]), 0);
}
END_TEST

START_TEST(test_is_type_nvme)
{
	struct pf_dev d = { .kname = (char *)"nvme0n1p1", .type_name = (char *)"blkext" };
	struct pf_dev none = { 0 };

	ck_assert(pf_dev_is_type(&d, "blkext"));
	ck_assert(!pf_dev_is_type(&d, "blk"));
	ck_assert(!pf_dev_is_type(&none, "blkext"));
	ck_assert(pf_dev_is_nvme(&d));
	d.kname = (char *)"sda";
	ck_assert(!pf_dev_is_nvme(&d));
	ck_assert(!pf_dev_is_nvme(&none));
}
END_TEST

/* Every owned field freed (the sanitizer twin checks), the record zeroed, NULL fine. */
START_TEST(test_release)
{
	struct pf_dev_list l = { 0 };
	struct pf_dev *d;

	l.devs = calloc(2, sizeof(*l.devs));
	ck_assert_ptr_nonnull(l.devs);
	l.n = 2;
	d = &l.devs[0];
	d->kname = strdup("sda1");
	d->path = strdup("/dev/sda1");
	d->aliases = calloc(1, sizeof(*d->aliases));
	ck_assert_ptr_nonnull(d->aliases);
	d->aliases[0] = strdup("/dev/disk/by-id/x");
	d->n_aliases = 1;
	d->parent_kname = strdup("sda");
	d->type_name = strdup("sd");
	d->wwid = strdup("naa.1");
	d->serial = strdup("S1");
	d->holders = calloc(1, sizeof(*d->holders));
	ck_assert_ptr_nonnull(d->holders);
	d->holders[0] = strdup("dm-0");
	d->n_holders = 1;
	d = &l.devs[1];
	d->dm_uuid = strdup("LVM-x");
	d->dm_name = strdup("vg-lv");
	d->loop_backing_file = strdup("/img");
	d->md_uuid = strdup("u");
	pf_dev_release(&l.devs[1]);
	ck_assert_ptr_null(l.devs[1].dm_uuid);
	pf_dev_list_release(&l);
	ck_assert_ptr_null(l.devs);
	ck_assert_uint_eq(l.n, 0);
	pf_dev_release(NULL);
	pf_dev_list_release(NULL);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("blockdev");
	TCase *tc = pf_unit_tcase("blockdev");

	tcase_add_test(tc, test_cmp_devno);
	tcase_add_test(tc, test_is_type_nvme);
	tcase_add_test(tc, test_release);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
