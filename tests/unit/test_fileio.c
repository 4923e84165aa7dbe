/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bounded whole-file reads, exact range reads, flock with a deadline. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "unit.h"

static char path[] = "/tmp/pvscan-fast-test-fileio.XXXXXX";

static void write_file(const char *text, size_t len)
{
	int fd = open(path, O_WRONLY | O_TRUNC);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, len), (ssize_t)len);
	(void)close(fd);
}

static void setup(void)
{
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	(void)close(fd);
}

static void teardown(void)
{
	(void)unlink(path);
	memcpy(path + strlen(path) - 6, "XXXXXX", 6);
}

START_TEST(test_read_file_at)
{
	char *buf = NULL, big[1000];
	size_t len = 7;

	write_file("hello\n", 6);
	ck_assert_int_eq(pf_read_file_at(AT_FDCWD, path, 6, &buf, &len), 0);
	ck_assert_uint_eq(len, 6);
	ck_assert_str_eq(buf, "hello\n");
	free(buf);
	/* One byte over the cap is refused, output untouched. */
	buf = NULL;
	ck_assert_int_eq(pf_read_file_at(AT_FDCWD, path, 5, &buf, &len), -E2BIG);
	ck_assert_ptr_null(buf);
	/* Empty file, and a file that needs the buffer to grow. */
	write_file("", 0);
	ck_assert_int_eq(pf_read_file_at(AT_FDCWD, path, 0, &buf, &len), 0);
	ck_assert_uint_eq(len, 0);
	ck_assert_str_eq(buf, "");
	free(buf);
	memset(big, 'x', sizeof(big));
	write_file(big, sizeof(big));
	ck_assert_int_eq(pf_read_file_at(AT_FDCWD, path, 4096, &buf, &len), 0);
	ck_assert_uint_eq(len, sizeof(big));
	free(buf);
	ck_assert_int_eq(pf_read_file_at(AT_FDCWD, "/nonexistent/pvscan-fast", 10, &buf, &len),
			 -ENOENT);
}
END_TEST

START_TEST(test_read_full)
{
	char buf[16] = { 0 };
	int fd;

	write_file("0123456789", 10);
	fd = open(path, O_RDONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pf_read_full(fd, buf, 4, 3), 4);
	ck_assert_int_eq(memcmp(buf, "3456", 4), 0);
	ck_assert_int_eq(pf_read_full(fd, buf, 16, 8), 2); /* short only at end of file */
	ck_assert_int_eq(pf_read_full(fd, buf, 3, -1), 3); /* file position */
	ck_assert_int_eq(memcmp(buf, "012", 3), 0);
	(void)close(fd);
	ck_assert_int_eq(pf_read_full(-1, buf, 3, -1), -EBADF);
}
END_TEST

/* Through a pipe: the whole buffer arrives, and a bad descriptor is an errno. */
START_TEST(test_write_full)
{
	static const char msg[] = "pvs_online/0123456789 8:16\n";
	char got[sizeof(msg)] = { 0 };
	int p[2];

	ck_assert_int_eq(pipe(p), 0);
	ck_assert_int_eq(pf_write_full(p[1], msg, sizeof(msg) - 1), 0);
	ck_assert_int_eq(pf_write_full(p[1], msg, 0), 0);
	ck_assert_int_eq(close(p[1]), 0);
	ck_assert_int_eq(pf_read_full(p[0], got, sizeof(got), -1), (ssize_t)sizeof(msg) - 1);
	ck_assert_str_eq(got, msg);
	ck_assert_int_eq(close(p[0]), 0);
	ck_assert_int_eq(pf_write_full(p[1], msg, 1), -EBADF);
}
END_TEST

/* Another open file of the same path holds the lock: no second process needed for flock. */
START_TEST(test_flock_until)
{
	int holder = open(path, O_RDWR | O_CLOEXEC), fd = open(path, O_RDWR | O_CLOEXEC);

	ck_assert_int_ge(holder, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pf_deadline_after_ms(0), 0);
	ck_assert_int_eq(pf_flock_until(fd, LOCK_SH, 0), 0);
	ck_assert_int_eq(pf_flock_until(holder, LOCK_SH, 0), 0); /* shared with fd */
	ck_assert_int_eq(pf_flock_until(holder, LOCK_EX, 0), -EWOULDBLOCK);
	ck_assert_int_eq(pf_flock_until(holder, LOCK_EX, pf_deadline_after_ms(30)), -ETIMEDOUT);
	/* a deadline already past: one try, then the timeout */
	ck_assert_int_eq(pf_flock_until(holder, LOCK_EX, 1), -ETIMEDOUT);
	ck_assert_int_eq(flock(fd, LOCK_UN), 0);
	ck_assert_int_eq(pf_flock_until(holder, LOCK_EX, pf_deadline_after_ms(30)), 0);
	ck_assert_int_eq(pf_flock_until(fd, LOCK_SH, 0), -EWOULDBLOCK);
	ck_assert_int_eq(pf_flock_until(-1, LOCK_SH, 0), -EBADF);
	(void)close(fd);
	(void)close(holder);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("fileio");
	TCase *tc = pf_unit_tcase("fileio");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_read_file_at);
	tcase_add_test(tc, test_read_full);
	tcase_add_test(tc, test_write_full);
	tcase_add_test(tc, test_flock_until);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
