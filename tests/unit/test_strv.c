/* SPDX-License-Identifier: GPL-2.0-or-later */
/* String lists: growth, the cap, sort-unique, lookup and directory listings. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

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

static int open_dir(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);

	ck_assert_int_ge(fd, 0);
	return fd;
}

/* Sorted bytewise, dot names left out, the cap a hard one. */
START_TEST(test_read_dir)
{
	static const char *const names[] = { "b", "B", "a1", "a", ".hidden", "..x" };
	char root[] = "/tmp/pf-strv.XXXXXX", path[64];
	struct pf_strv s = { 0 };

	ck_assert_ptr_nonnull(mkdtemp(root));
	ck_assert_int_eq(pf_strv_read_dir(open_dir(root), 10, &s), 0);
	ck_assert_uint_eq(s.n, 0);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		(void)snprintf(path, sizeof(path), "%s/%s", root, names[i]);
		ck_assert_int_eq(mkdir(path, 0700), 0);
	}
	ck_assert_int_eq(pf_strv_read_dir(open_dir(root), 4, &s), 0);
	ck_assert_uint_eq(s.n, 4);
	ck_assert_str_eq(s.v[0], "B");
	ck_assert_str_eq(s.v[1], "a");
	ck_assert_str_eq(s.v[2], "a1");
	ck_assert_str_eq(s.v[3], "b");
	pf_strv_release(&s);
	ck_assert_int_eq(pf_strv_read_dir(open_dir(root), 3, &s), -E2BIG);
	ck_assert_ptr_null(s.v);
	ck_assert_int_eq(pf_strv_read_dir(-1, 3, &s), -EBADF);
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		(void)snprintf(path, sizeof(path), "%s/%s", root, names[i]);
		ck_assert_int_eq(rmdir(path), 0);
	}
	ck_assert_int_eq(rmdir(root), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("strv");
	TCase *tc = pf_unit_tcase("strv");

	tcase_add_test(tc, test_strv);
	tcase_add_test(tc, test_read_dir);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
