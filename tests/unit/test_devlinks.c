/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The /dev/VG/LV links made without udev: which LVs get one, what it points at, errors. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "activate/devlinks.h"
#include "unit.h"

static char dir[] = "/tmp/pf-devlinks-XXXXXX";

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void teardown(void)
{
	char cmd[sizeof(dir) + 16];

	(void)snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

static void add_lv(struct pf_activate_result *r, const char *lv, enum pf_activate_lv_kind kind)
{
	struct pf_activate_lv *l = &r->lvs[r->n_lvs++];

	*l = (struct pf_activate_lv){ .kind = kind };
	(void)snprintf(l->lv, sizeof(l->lv), "%s", lv);
	(void)snprintf(l->dm_name, sizeof(l->dm_name), "vg0-%s", lv);
}

/* What the link at dir/rel points at, or "" when there is none. */
static const char *link_of(const char *rel)
{
	static char target[PATH_MAX];
	char path[PATH_MAX];
	ssize_t n;

	(void)snprintf(path, sizeof(path), "%s/%s", dir, rel);
	n = readlink(path, target, sizeof(target) - 1);
	target[n < 0 ? 0 : n] = '\0';
	return target;
}

START_TEST(test_loaded_and_active_only)
{
	struct pf_activate_lv lvs[4];
	struct pf_activate_result r = { .lvs = lvs, .cap_lvs = 4 };
	struct pf_diag d = { 0 };
	char want[PATH_MAX];
	struct stat st;

	add_lv(&r, "lv0", PF_ACTIVATE_LV_LOADED);
	add_lv(&r, "lv1", PF_ACTIVATE_LV_ACTIVE);
	add_lv(&r, "lv2", PF_ACTIVATE_LV_SKIPPED);
	add_lv(&r, "lv3", PF_ACTIVATE_LV_FAILED);
	ck_assert_int_eq(pf_devlinks_add(dir, "vg0", &r, &d), 0);
	(void)snprintf(want, sizeof(want), "%s/mapper/vg0-lv0", dir);
	ck_assert_str_eq(link_of("vg0/lv0"), want);
	(void)snprintf(want, sizeof(want), "%s/mapper/vg0-lv1", dir);
	ck_assert_str_eq(link_of("vg0/lv1"), want);
	ck_assert_str_eq(link_of("vg0/lv2"), "");
	ck_assert_str_eq(link_of("vg0/lv3"), "");
	/* a second call replaces the links in place */
	ck_assert_int_eq(pf_devlinks_add(dir, "vg0", &r, &d), 0);
	(void)snprintf(want, sizeof(want), "%s/vg0", dir);
	ck_assert_int_eq(stat(want, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0755);
}
END_TEST

START_TEST(test_no_dir_without_links)
{
	struct pf_activate_lv lvs[1];
	struct pf_activate_result r = { .lvs = lvs, .cap_lvs = 1 };
	struct pf_diag d = { 0 };
	char path[PATH_MAX];

	add_lv(&r, "lv0", PF_ACTIVATE_LV_SKIPPED);
	ck_assert_int_eq(pf_devlinks_add(dir, "vg0", &r, &d), 0);
	(void)snprintf(path, sizeof(path), "%s/vg0", dir);
	ck_assert_int_eq(access(path, F_OK), -1);
}
END_TEST

START_TEST(test_dir_in_the_way)
{
	struct pf_activate_lv lvs[2];
	struct pf_activate_result r = { .lvs = lvs, .cap_lvs = 2 };
	struct pf_diag d = { 0 };
	char path[PATH_MAX];
	FILE *f;

	/* a file where the VG's directory goes: the first link names the error, once */
	(void)snprintf(path, sizeof(path), "%s/vg0", dir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	(void)fclose(f);
	add_lv(&r, "lv0", PF_ACTIVATE_LV_LOADED);
	add_lv(&r, "lv1", PF_ACTIVATE_LV_LOADED);
	ck_assert_int_eq(pf_devlinks_add(dir, "vg0", &r, &d), -ENOTDIR);
	ck_assert_ptr_nonnull(strstr(d.msg, "vg0/lv0"));
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("devlinks");
	TCase *tc = pf_unit_tcase("devlinks");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_loaded_and_active_only);
	tcase_add_test(tc, test_no_dir_without_links);
	tcase_add_test(tc, test_dir_in_the_way);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
