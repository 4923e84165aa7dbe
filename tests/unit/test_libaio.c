/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The libaio backend: how much of the system-wide aio limit it takes, and a
 * read abandoned in flight is never reported while its slot comes back.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/aio.h"
#include "io/backend.h"
#include "io/libaio.h"
#include "pvimage.h"
#include "unit.h"

#define DIR_TEMPLATE "/tmp/pvscan-fast-test-libaio.XXXXXX"
static char dir[sizeof(DIR_TEMPLATE)];

static void dir_setup(void)
{
	memcpy(dir, DIR_TEMPLATE, sizeof(DIR_TEMPLATE));
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void dir_teardown(void)
{
	char cmd[PATH_MAX + 16];

	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)system(cmd);
}

static void write_file(const char *path, const void *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, size), (ssize_t)size);
	(void)close(fd);
}

/* <dir>/sys/fs/aio-max-nr and aio-nr, as a fake /proc. */
static void proc_files(const char *max, const char *used)
{
	char path[PATH_MAX];

	(void)snprintf(path, sizeof(path), "%s/sys", dir);
	(void)mkdir(path, 0700);
	(void)snprintf(path, sizeof(path), "%s/sys/fs", dir);
	(void)mkdir(path, 0700);
	(void)snprintf(path, sizeof(path), "%s/sys/fs/aio-max-nr", dir);
	write_file(path, max, strlen(max));
	(void)snprintf(path, sizeof(path), "%s/sys/fs/aio-nr", dir);
	write_file(path, used, strlen(used));
}

START_TEST(test_backend_room)
{
	struct pf_io_backend *b;

	/* A fake /proc that leaves room for 4 more events: the backend takes no more. */
	proc_files("65536\n", "65532\n");
	ck_assert_int_eq(pf_libaio_backend_new(256, dir, &b), 0);
	ck_assert_uint_eq(b->depth, 4);
	b->ops->destroy(b);
	/* No room at all: one read at a time still. */
	proc_files("65536\n", "65536\n");
	ck_assert_int_eq(pf_libaio_backend_new(8, dir, &b), 0);
	ck_assert_uint_eq(b->depth, 1);
	b->ops->destroy(b);
	/* Numbers that are none: as without the files. */
	proc_files("lots\n", "0\n");
	ck_assert_int_eq(pf_libaio_backend_new(16, dir, &b), 0);
	ck_assert_uint_eq(b->depth, 16);
	b->ops->destroy(b);
	/* Without the files: what was asked for, up to the limit. */
	ck_assert_int_eq(pf_libaio_backend_new(300, "/nonexistent", &b), 0);
	ck_assert_uint_eq(b->depth, 300);
	b->ops->destroy(b);
	ck_assert_int_eq(pf_libaio_backend_new(PF_AIO_DEPTH_LIMIT + 1, "/nonexistent", &b), 0);
	ck_assert_uint_le(b->depth, PF_AIO_DEPTH_LIMIT);
	b->ops->destroy(b);
}
END_TEST

START_TEST(test_libaio_abandon)
{
	struct pf_io_req req[2], *reqs[2] = { &req[0], &req[1] };
	struct timespec second = { 1, 0 };
	struct pf_io_event ev[2];
	struct pf_io_backend *b;
	char path[PATH_MAX];
	uint8_t *img = make_image(&L_BASIC);
	unsigned got = 0;
	int fd, n = 0;

	/* Abandon one of two reads: only the other is reported, the slot comes back. */
	(void)snprintf(path, sizeof(path), "%s/img", dir);
	write_file(path, img, L_BASIC.size);
	free(img);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pf_libaio_backend_new(2, NULL, &b), 0);
	for (unsigned i = 0; i < 2; i++) {
		req[i] = (struct pf_io_req){ .fd = fd, .off = i * 4096U, .len = 4096 };
		ck_assert_int_eq(posix_memalign((void **)&req[i].buf, 4096, 4096), 0);
	}
	while (n < 2) {
		int r = b->ops->submit(b, reqs + n, 2U - (unsigned)n);

		ck_assert_int_gt(r, 0);
		n += r;
	}
	b->ops->abandon(b, &req[0]);
	while (got == 0 || b->stuck) {
		int r = b->ops->wait(b, 1, 2, &second, ev);

		ck_assert_int_ge(r, 0);
		for (int i = 0; i < r; i++) {
			ck_assert_ptr_eq(ev[i].req, &req[1]);
			ck_assert_int_eq(ev[i].res, 4096);
			got++;
		}
		if (r == 0)
			break;
	}
	ck_assert_uint_eq(got, 1);
	ck_assert_uint_eq(b->stuck, 0);
	free(req[1].buf);
	b->ops->destroy(b);
	(void)close(fd);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("libaio");
	TCase *tc = pf_unit_tcase("backend");

	tcase_add_checked_fixture(tc, dir_setup, dir_teardown);
	tcase_add_test(tc, test_backend_room);
	tcase_add_test(tc, test_libaio_abandon);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
