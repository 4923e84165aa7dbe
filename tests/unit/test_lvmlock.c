/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's VG flock protocol: exclusion, unlink on release, bad names, deadlines, unsafe dirs. */
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

#include "lockhold.h"
#include "state/lvmlock.h"
#include "unit.h"

static char root[256];
static char lock_dir[512];

#define WAIT PF_LVMLOCK_TIMEOUT_MS_DEFAULT

static void setup(void)
{
	(void)snprintf(root, sizeof(root), "/tmp/pf-lvmlock.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
	/* the lock dir itself is made on first use, as lvm2 does */
	(void)snprintf(lock_dir, sizeof(lock_dir), "%s/lock", root);
}

static void teardown(void)
{
	pf_unit_rm_rf(root);
}

static bool exists(const char *name)
{
	char path[PATH_MAX];
	struct stat st;

	(void)snprintf(path, sizeof(path), "%s/%s", lock_dir, name);
	return stat(path, &st) == 0;
}

START_TEST(test_lock_and_release)
{
	struct pf_lvmlock l = { .fd = -1 };
	struct stat st;

	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg-one", true, WAIT, &l, NULL), 0);
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

	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", false, WAIT, &a, NULL), 0);
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", false, WAIT, &b, NULL), 0);
	pf_lvmlock_release(&a);
	ck_assert(exists("V_vg")); /* still held shared by b: not unlinked */
	pf_lvmlock_release(&b);
	ck_assert(!exists("V_vg"));
}
END_TEST

/*
 * A holder in another process (lvm2, say) makes us wait; it unlinks on release. The holder
 * says "released" on the pipe just before it releases: the waiter has the lock only once that
 * word is there, however slow the machine.
 */
START_TEST(test_waits_for_holder)
{
	struct pf_lvmlock l = { .fd = -1 };
	int ready[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(ready), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct pf_lvmlock h = { .fd = -1 };

		if (pf_lvmlock_vg(lock_dir, "vg", true, 0, &h, NULL) < 0)
			_exit(1);
		(void)write(ready[1], "x", 1);
		(void)usleep(300 * 1000);
		(void)write(ready[1], "r", 1);
		pf_lvmlock_release(&h); /* unlinks V_vg: the waiter must re-open, not trust its fd */
		_exit(0);
	}
	(void)close(ready[1]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	/* without waiting: someone holds it */
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", true, 0, &l, NULL), -EWOULDBLOCK);
	ck_assert_int_eq(l.fd, -1);
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", true, WAIT, &l, NULL), 0);
	ck_assert_int_eq(fcntl(ready[0], F_SETFL, O_NONBLOCK), 0);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	ck_assert_int_eq(c, 'r');
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
		ck_assert_int_eq(pf_lvmlock_vg(lock_dir, bad[i], true, 0, &l, NULL), -EINVAL);
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
	ck_assert_int_lt(pf_lvmlock_vg(lock_dir, "vg", true, 0, &l, NULL), 0);
}
END_TEST

/* The devices file's lock: shared, so readers share it and lvmdevices (exclusive) waits. */
START_TEST(test_devices_file_lock)
{
	struct pf_lvmlock a = { .fd = -1 }, b = { .fd = -1 };
	char path[PATH_MAX];
	int fd;

	ck_assert_int_eq(mkdir(lock_dir, 0700), 0);
	ck_assert_int_eq(pf_lvmlock_devices_file(lock_dir, "system.devices", 0, &a, NULL), 0);
	ck_assert_int_eq(pf_lvmlock_devices_file(lock_dir, "system.devices", 0, &b, NULL), 0);
	(void)snprintf(path, sizeof(path), "%s/D_system.devices", lock_dir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), -1);
	pf_lvmlock_release(&a);
	pf_lvmlock_release(&b);
	ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), 0);
	(void)close(fd);
	ck_assert(exists("D_system.devices")); /* lvm2 leaves it */
	ck_assert_int_eq(pf_lvmlock_devices_file(lock_dir, "a/b", 0, &a, NULL), -EINVAL);
	ck_assert_int_eq(pf_lvmlock_devices_file(lock_dir, "", 0, &a, NULL), -EINVAL);
}
END_TEST

/* A child holds name in lock_dir with op, as a hung lvm command would. */
static pid_t hold(const char *name, int op, int *ret_release)
{
	char path[PATH_MAX];

	(void)snprintf(path, sizeof(path), "%s/%s", lock_dir, name);
	(void)mkdir(lock_dir, 0700);
	return lock_hold(path, op, ret_release);
}

/* A holder that never lets go: the wait ends at the deadline, naming the lock file. */
START_TEST(test_deadline_fires)
{
	struct pf_lvmlock l = { .fd = -1 };
	struct pf_diag why = { 0 };
	int release;
	pid_t pid = hold("V_vg", LOCK_EX, &release);

	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", true, 100, &l, &why), -ETIMEDOUT);
	ck_assert_int_eq(l.fd, -1);
	ck_assert_ptr_nonnull(strstr(why.msg, "/V_vg not acquired within 100 ms"));
	/* a shared lock waits for the exclusive holder too */
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", false, 1000, &l, &why), -ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(why.msg, "/V_vg not acquired within 1 s"));
	/* tried once: busy, not timed out (callers holding other VG locks rely on it) */
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", true, 0, &l, &why), -EWOULDBLOCK);
	lock_let_go(pid, release);
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", true, 100, &l, NULL), 0);
	pf_lvmlock_release(&l);
}
END_TEST

/* A writer waiting (it holds V_<vg>:aux): a reader queues behind it, within its deadline. */
START_TEST(test_deadline_writer_priority)
{
	struct pf_lvmlock l = { .fd = -1 };
	struct pf_diag why = { 0 };
	int release;
	pid_t pid = hold("V_vg:aux", LOCK_EX, &release);

	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", false, 100, &l, &why), -ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(why.msg, "/V_vg:aux not acquired within"));
	lock_let_go(pid, release);
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", false, 100, &l, NULL), 0);
	pf_lvmlock_release(&l);
}
END_TEST

START_TEST(test_devices_file_deadline)
{
	struct pf_lvmlock l = { .fd = -1 };
	struct pf_diag why = { 0 };
	int release;
	pid_t pid = hold("D_system.devices", LOCK_EX, &release);

	ck_assert_int_eq(pf_lvmlock_devices_file(lock_dir, "system.devices", 100, &l, &why),
			 -ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(why.msg, "/D_system.devices not acquired within 100 ms"));
	ck_assert_int_eq(pf_lvmlock_devices_file(lock_dir, "system.devices", 0, &l, &why),
			 -EWOULDBLOCK);
	lock_let_go(pid, release);
	ck_assert_int_eq(pf_lvmlock_devices_file(lock_dir, "system.devices", 100, &l, NULL), 0);
	pf_lvmlock_release(&l);
}
END_TEST

/* Another user could hold or swap lock files in a directory they may write: refused. */
START_TEST(test_lock_dir_writable_by_others)
{
	struct pf_lvmlock l = { .fd = -1 };
	struct pf_diag why = { 0 };

	ck_assert_int_eq(mkdir(lock_dir, 0700), 0);
	ck_assert_int_eq(chmod(lock_dir, 0777), 0);
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", true, 100, &l, &why), -EPERM);
	ck_assert_ptr_nonnull(strstr(why.msg, "writable by group or others"));
	ck_assert_ptr_nonnull(strstr(why.msg, lock_dir));
	ck_assert(!exists("V_vg:aux")); /* nothing made in it */
	ck_assert_int_eq(pf_lvmlock_devices_file(lock_dir, "system.devices", 100, &l, &why),
			 -EPERM);
	ck_assert_int_eq(chmod(lock_dir, 0755), 0);
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", true, 100, &l, NULL), 0);
	pf_lvmlock_release(&l);
}
END_TEST

/* Owned by another uid (any number: no such user need exist); needs root to chown. */
START_TEST(test_lock_dir_and_file_of_another_user)
{
	struct pf_lvmlock l = { .fd = -1 };
	struct pf_diag why = { 0 };
	char path[PATH_MAX];
	int fd;

	if (geteuid() != 0)
		return; /* only root can give a file away */
	ck_assert_int_eq(mkdir(lock_dir, 0700), 0);
	ck_assert_int_eq(chown(lock_dir, 12345, 12345), 0);
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", true, 100, &l, &why), -EPERM);
	ck_assert_ptr_nonnull(strstr(why.msg, "owned by uid 12345"));
	ck_assert_int_eq(chown(lock_dir, 0, 0), 0);

	(void)snprintf(path, sizeof(path), "%s/V_vg", lock_dir);
	fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(fchown(fd, 12345, 12345), 0);
	(void)close(fd);
	ck_assert_int_eq(pf_lvmlock_vg(lock_dir, "vg", true, 100, &l, &why), -EPERM);
	ck_assert_ptr_nonnull(strstr(why.msg, "lock file"));
	ck_assert_ptr_nonnull(strstr(why.msg, "/V_vg is owned by uid 12345"));
	ck_assert_int_eq(l.fd, -1);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("lvmlock");
	TCase *tc = pf_unit_tcase("vg");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_lock_and_release);
	tcase_add_test(tc, test_shared_locks_share);
	tcase_add_test(tc, test_waits_for_holder);
	tcase_add_test(tc, test_bad_names);
	tcase_add_test(tc, test_lock_dir_is_a_file);
	tcase_add_test(tc, test_devices_file_lock);
	tcase_add_test(tc, test_deadline_fires);
	tcase_add_test(tc, test_deadline_writer_priority);
	tcase_add_test(tc, test_devices_file_deadline);
	tcase_add_test(tc, test_lock_dir_writable_by_others);
	tcase_add_test(tc, test_lock_dir_and_file_of_another_user);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
