/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Activating a VG: its lvm2 lock first, which fails the VG, never hangs it. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "activate/vgactivate.h"
#include "lockhold.h"
#include "unit.h"

static char root[256];
static char lock_dir[512];

static int rm_one(const char *path, const struct stat *st _unused_, int flag _unused_,
		  struct FTW *ftw _unused_)
{
	return remove(path);
}

static void setup(void)
{
	(void)snprintf(root, sizeof(root), "/tmp/pf-vgactivate.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	(void)snprintf(lock_dir, sizeof(lock_dir), "%s/lock", root);
	ck_assert_int_eq(mkdir(lock_dir, 0700), 0);
}

static void teardown(void)
{
	(void)nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A child holds V_<vg> (a hung lvm command) until lock_let_go(). */
static pid_t hold_vg(const char *vg, int *ret_release)
{
	char path[PATH_MAX];

	(void)snprintf(path, sizeof(path), "%s/V_%s", lock_dir, vg);
	return lock_hold(path, LOCK_EX, ret_release);
}

/* The lock is held for ever: the VG fails with the lock file named, nothing else is tried. */
START_TEST(test_lock_timeout_fails_vg)
{
	struct pf_activate_opts o = { .lock_dir = lock_dir, .lock_timeout_ms = 100 };
	struct pf_activate_result res;
	struct pf_dm_batch b = { 0 };
	char want[PATH_MAX + 64];
	int release;
	pid_t pid = hold_vg("vg0", &release);

	ck_assert_int_eq(pf_activate_vg(&o, "vg0", NULL, 0, &b, &res), 0);
	ck_assert_int_eq(res.outcome, PF_ACTIVATE_FAILED);
	ck_assert(!res.vg_failed); /* no lvm2 line says it: the caller does */
	ck_assert_int_eq(res.lock.fd, -1);
	(void)snprintf(want, sizeof(want),
		       "lock %s/V_vg0 not acquired within 100 ms: skipping autoactivation",
		       lock_dir);
	ck_assert_str_eq(res.reason, want);
	pf_activate_result_release(&res);

	/* a caller holding other VG locks tries once and is told so */
	o.lock_nowait = true;
	ck_assert_int_eq(pf_activate_vg(&o, "vg0", NULL, 0, &b, &res), -EWOULDBLOCK);

	lock_let_go(pid, release);
}
END_TEST

START_TEST(test_unsafe_lock_dir_fails_vg)
{
	struct pf_activate_opts o = { .lock_dir = lock_dir, .lock_timeout_ms = 100 };
	struct pf_activate_result res;
	struct pf_dm_batch b = { 0 };

	ck_assert_int_eq(chmod(lock_dir, 0757), 0);
	ck_assert_int_eq(pf_activate_vg(&o, "vg0", NULL, 0, &b, &res), 0);
	ck_assert_int_eq(res.outcome, PF_ACTIVATE_FAILED);
	ck_assert_ptr_nonnull(strstr(res.reason, "writable by group or others"));
	ck_assert_ptr_nonnull(strstr(res.reason, ": skipping autoactivation"));
	pf_activate_result_release(&res);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("vgactivate");
	TCase *tc = tcase_create("lock");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_lock_timeout_fails_vg);
	tcase_add_test(tc, test_unsafe_lock_dir_fails_vg);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
