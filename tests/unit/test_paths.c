/* SPDX-License-Identifier: GPL-2.0-or-later */
/* System paths: defaults, environment overrides (empty means unset), join, mkdir -p. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"
#include "unit.h"

static const char *const vars[] = { "PVSCAN_FAST_SYS_DIR", "PVSCAN_FAST_DEV_DIR",
				    "PVSCAN_FAST_PROC_DIR", "LVM_SYSTEM_DIR",
				    "PVSCAN_FAST_RUN_DIR", "PVSCAN_FAST_LOCK_DIR" };

static void unset_all(void)
{
	for (size_t i = 0; i < sizeof(vars) / sizeof(vars[0]); i++)
		ck_assert_int_eq(unsetenv(vars[i]), 0);
}

START_TEST(test_defaults)
{
	struct pf_paths p;

	unset_all();
	ck_assert_int_eq(setenv("PVSCAN_FAST_RUN_DIR", "", 1), 0);
	ck_assert_int_eq(pf_paths_from_env(&p), 0);
	ck_assert_str_eq(p.sys, "/sys");
	ck_assert_str_eq(p.dev, "/dev");
	ck_assert_str_eq(p.proc, "/proc");
	ck_assert_str_eq(p.etc, "/etc/lvm");
	ck_assert_str_eq(p.run, "/run/lvm");
	ck_assert_str_eq(p.lock, "/run/lock/lvm");
	pf_paths_release(&p);
	ck_assert_ptr_null(p.sys);
	pf_paths_release(NULL);
}
END_TEST

START_TEST(test_overrides)
{
	struct pf_paths p;

	unset_all();
	ck_assert_int_eq(setenv("LVM_SYSTEM_DIR", "/x/etc", 1), 0);
	ck_assert_int_eq(setenv("PVSCAN_FAST_LOCK_DIR", "/x/lock", 1), 0);
	ck_assert_int_eq(pf_paths_from_env(&p), 0);
	ck_assert_str_eq(p.etc, "/x/etc");
	ck_assert_str_eq(p.lock, "/x/lock");
	ck_assert_str_eq(p.run, "/run/lvm");
	pf_paths_release(&p);
}
END_TEST

START_TEST(test_join)
{
	char *s = pf_path_join("/run/lvm", "pvs_online");

	ck_assert_str_eq(s, "/run/lvm/pvs_online");
	free(s);
}
END_TEST

START_TEST(test_mkdir_p)
{
	const char *tmp = getenv("TMPDIR");
	char tmpl[256], path[256], file[256];
	const char *dir;
	char *longpath;
	struct stat st;

	(void)snprintf(tmpl, sizeof(tmpl), "%s/pf-paths.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	dir = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(dir);
	(void)snprintf(path, sizeof(path), "%s/a/b/c", dir);
	ck_assert_int_eq(pf_paths_mkdir_p(path, 0700), 0);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777 & ~0700, 0);
	ck_assert_int_eq(pf_paths_mkdir_p(path, 0700), 0); /* already there */

	(void)snprintf(file, sizeof(file), "%s/f", dir);
	ck_assert_int_eq(close(creat(file, 0600)), 0);
	(void)snprintf(path, sizeof(path), "%s/f/sub", dir);
	ck_assert_int_eq(pf_paths_mkdir_p(path, 0700), -ENOTDIR);
	ck_assert_int_eq(pf_paths_mkdir_p("", 0700), -ENAMETOOLONG);
	longpath = malloc(8192);
	memset(longpath, 'x', 8191);
	longpath[0] = '/';
	longpath[8191] = '\0';
	ck_assert_int_eq(pf_paths_mkdir_p(longpath, 0700), -ENAMETOOLONG);
	free(longpath);

	(void)snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("paths");
	TCase *tc = tcase_create("paths");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_overrides);
	tcase_add_test(tc, test_join);
	tcase_add_test(tc, test_mkdir_p);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
