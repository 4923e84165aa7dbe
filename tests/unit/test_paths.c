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
				    "PVSCAN_FAST_RUN_DIR", "PVSCAN_FAST_LOCK_DIR",
				    "PVSCAN_FAST_FSTAB" };

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
	ck_assert_str_eq(p.fstab, "/etc/fstab");
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

/* Lock directories and files: whom they belong to, who may write in them. */
START_TEST(test_check_lock)
{
	const char *tmp = getenv("TMPDIR");
	char tmpl[256], file[300], cmd[300];
	struct pf_diag why = { 0 };
	const char *dir;
	int fd;

	(void)snprintf(tmpl, sizeof(tmpl), "%s/pf-paths.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	dir = mkdtemp(tmpl);
	ck_assert_ptr_nonnull(dir);
	(void)snprintf(file, sizeof(file), "%s/V_vg", dir);
	fd = open(file, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pf_paths_check_lock(dir, -1, file, &why), 0);
	ck_assert_int_eq(pf_paths_check_lock(dir, fd, file, &why), 0);
	ck_assert_int_eq(pf_paths_check_lock(file, -1, file, &why), -ENOTDIR);
	ck_assert_int_eq(chmod(dir, 0720), 0);
	ck_assert_int_eq(pf_paths_check_lock(dir, fd, file, &why), -EPERM);
	ck_assert_ptr_nonnull(strstr(why.msg, "writable by group or others (mode 0720)"));
	ck_assert_int_eq(chmod(dir, 0755), 0); /* readable is fine */
	ck_assert_int_eq(pf_paths_check_lock(dir, fd, file, NULL), 0);
	if (geteuid() == 0) { /* chown needs root; uid 12345 need not exist */
		ck_assert_int_eq(fchown(fd, 12345, 0), 0);
		ck_assert_int_eq(pf_paths_check_lock(dir, -1, file, &why), 0);
		ck_assert_int_eq(pf_paths_check_lock(dir, fd, file, &why), -EPERM);
		ck_assert_ptr_nonnull(strstr(why.msg, "lock file"));
		ck_assert_ptr_nonnull(strstr(why.msg, "owned by uid 12345"));
		ck_assert_int_eq(chown(dir, 12345, 0), 0);
		ck_assert_int_eq(pf_paths_check_lock(dir, -1, file, &why), -EPERM);
		ck_assert_ptr_nonnull(strstr(why.msg, "lock directory"));
		ck_assert_ptr_nonnull(strstr(why.msg, "owned by uid 12345"));
	}
	(void)close(fd);
	(void)snprintf(file, sizeof(file), "%s/missing", dir);
	ck_assert_int_eq(pf_paths_check_lock(file, -1, file, &why), -ENOENT);
	ck_assert_ptr_nonnull(strstr(why.msg, file));
	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("paths");
	TCase *tc = pf_unit_tcase("paths");

	tcase_add_test(tc, test_defaults);
	tcase_add_test(tc, test_overrides);
	tcase_add_test(tc, test_join);
	tcase_add_test(tc, test_mkdir_p);
	tcase_add_test(tc, test_check_lock);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
