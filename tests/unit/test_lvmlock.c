/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's VG flock protocol: exclusion with a concurrent holder, unlink on release, bad names. */
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
#include <time.h>
#include <unistd.h>

#include "state/lvmlock.h"
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
	(void)snprintf(root, sizeof(root), "/tmp/pf-lvmlock.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	/* the lock dir itself is made on first use, as lvm2 does */
	(void)snprintf(lock_dir, sizeof(lock_dir), "%s/lock", root);
}

static void teardown(void)
{
	(void)nftw(root, rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

static bool exists(const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	(void)snprintf(path, sizeof(path), "%s/%s", lock_dir, name);
	return stat(path, &st) == 0;
}

static double now_s(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(test_lock_and_release)
{
	struct pf_lvmlock l = { .fd = -1 };
	struct stat st;

	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg-one", true, false, &l), 0);
	ck_assert_int_ge(l.fd, 0);
	ck_assert(exists("V_vg-one"));
	ck_assert(!exists("V_vg-one:aux")); /* the writer-priority file is dropped at once */
	ck_assert_int_eq(stat(lock_dir, &st), 0);
	ck_assert_uint_eq(st.st_mode & 07777, 0700);
	/* another open file cannot take it while we hold it */
	{
		int fd = open(l.path, O_RDWR | O_CLOEXEC);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(flock(fd, LOCK_SH | LOCK_NB), -1);
		ck_assert_int_eq(errno, EWOULDBLOCK);
		(void)close(fd);
	}
	pf_lvmlock_release(&l);
	ck_assert_int_eq(l.fd, -1);
	/* lvm2 unlinks lock files on release: idle, none exist */
	ck_assert(!exists("V_vg-one"));
	pf_lvmlock_release(&l); /* twice is harmless */
}
END_TEST

START_TEST(test_shared_locks_share)
{
	struct pf_lvmlock a = { .fd = -1 }, b = { .fd = -1 };

	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", false, false, &a), 0);
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", false, false, &b), 0);
	pf_lvmlock_release(&a);
	ck_assert(exists("V_vg")); /* still held shared by b: not unlinked */
	pf_lvmlock_release(&b);
	ck_assert(!exists("V_vg"));
}
END_TEST

/* A holder in another process (lvm2, say) makes us wait; it unlinks on release. */
START_TEST(test_waits_for_holder)
{
	struct pf_lvmlock l = { .fd = -1 };
	int ready[2];
	pid_t pid;
	double t0;
	char c;

	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct pf_lvmlock h = { .fd = -1 };

		if (pf_lvmlock_vg(lock_dir, "vg", true, false, &h) < 0)
			_exit(1);
		(void)write(ready[1], "x", 1);
		(void)usleep(300 * 1000);
		pf_lvmlock_release(&h); /* unlinks V_vg: the waiter must re-open, not trust its fd */
		_exit(0);
	}
	(void)close(ready[1]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	/* without waiting: someone holds it */
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", true, true, &l), -EWOULDBLOCK);
	ck_assert_int_eq(l.fd, -1);
	t0 = now_s();
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", true, false, &l), 0);
	ck_assert(now_s() - t0 > 0.2);
	/* the file we hold is the one the path names now */
	{
		struct stat a, b;

		ck_assert_int_eq(fstat(l.fd, &a), 0);
		ck_assert_int_eq(stat(l.path, &b), 0);
		ck_assert(a.st_ino == b.st_ino && a.st_dev == b.st_dev);
	}
	pf_lvmlock_release(&l);
	{
		int st;

		ck_assert_int_eq(waitpid(pid, &st, 0), pid);
		ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	}
	(void)close(ready[0]);
}
END_TEST

START_TEST(test_bad_names)
{
	static const char *const bad[] = { "", "#orphans_lvm2", "a/b", ".", "..",
		"0123456789012345678901234567890123456789012345678901234567890123456789"
		"0123456789012345678901234567890123456789012345678901234567890" };
	struct pf_lvmlock l = { .fd = -7, .path = NULL };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_int_eq(pf_lvmlock_vg(lock_dir, bad[i], true, false, &l), -EINVAL);
		ck_assert_int_eq(l.fd, -7); /* untouched on failure */
	}
}
END_TEST

START_TEST(test_lock_dir_is_a_file)
{
	struct pf_lvmlock l = { .fd = -1 };
	int fd = open(lock_dir, O_CREAT | O_WRONLY | O_CLOEXEC, 0600);

	ck_assert_int_ge(fd, 0);
	(void)close(fd);
	ck_assert_int_lt(pf_lvmlock_vg(lock_dir, "vg", true, false, &l), 0);
}
END_TEST

/* The devices file's lock: shared, so readers share it and lvmdevices (exclusive) waits. */
START_TEST(test_devices_file_lock)
{
	struct pf_lvmlock a = { .fd = -1 }, b = { .fd = -1 };
	char path[PATH_MAX];
	int fd;

	ck_assert_int_eq(mkdir(lock_dir, 0700), 0);
	ck_assert_int_eq(pf_lvmlock_devices_file(lock_dir, "system.devices", &a), 0);
	ck_assert_int_eq(pf_lvmlock_devices_file(lock_dir, "system.devices", &b), 0);
	(void)snprintf(path, sizeof(path), "%s/D_system.devices", lock_dir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), -1);
	pf_lvmlock_release(&a);
	pf_lvmlock_release(&b);
	ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
	(void)close(fd);
	ck_assert(exists("D_system.devices")); /* lvm2 leaves it */
	ck_assert_int_eq(pf_lvmlock_devices_file(lock_dir, "a/b", &a), -EINVAL);
	ck_assert_int_eq(pf_lvmlock_devices_file(lock_dir, "", &a), -EINVAL);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("lvmlock");
	TCase *tc = tcase_create("vg");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_lock_and_release);
	tcase_add_test(tc, test_shared_locks_share);
	tcase_add_test(tc, test_waits_for_holder);
	tcase_add_test(tc, test_bad_names);
	tcase_add_test(tc, test_lock_dir_is_a_file);
	tcase_add_test(tc, test_devices_file_lock);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
