/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pread-driven reading of an image file: open rules, sizes, and a full probe. */
#include "config.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build.h"
#include "io/pvread.h"
#include "unit.h"

static char path[] = "/tmp/pvscan-fast-test-pvread.XXXXXX";

static void setup(void)
{
	int fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	(void)close(fd);
}

static void teardown(void)
{
	(void)unlink(path);
}

START_TEST(test_image_file)
{
	struct pf_disk_locn da = { 1024 * 1024, 0 }, mda = { 4096, 8192 };
	struct pf_build_label spec = { .sector = 1, .device_size_bytes = 2 * 1024 * 1024,
				       .n_data_areas = 1, .data_areas = &da, .n_mdas = 1,
				       .mdas = &mda, .ext_version = 2 };
	uint8_t head[PF_LABEL_SCAN_BYTES], area[8192];
	static const char text[] = "notavg {\n}\n";
	struct pf_probe p;
	uint64_t size;
	int fd;

	ck_assert_int_eq(pf_build_label_head(&spec, head, sizeof(head), NULL), 0);
	ck_assert_int_eq(pf_build_mda_area(area, sizeof(area), 4096, 512, text, sizeof(text)), 0);
	fd = open(path, O_WRONLY);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pwrite(fd, head, sizeof(head), 0), (ssize_t)sizeof(head));
	ck_assert_int_eq(pwrite(fd, area, sizeof(area), 4096), (ssize_t)sizeof(area));
	ck_assert_int_eq(ftruncate(fd, 2 * 1024 * 1024), 0);
	(void)close(fd);

	ck_assert_int_eq(pf_pvread_open(path, &fd, &size), 0);
	ck_assert_uint_eq(size, 2 * 1024 * 1024);
	pf_probe_init(&p, size);
	ck_assert_int_eq(pf_pvread_probe(fd, &p), 0);
	(void)close(fd);
	ck_assert_int_eq(p.label_status, 0);
	ck_assert(pf_pv_label_is_unused(&p.label));
	ck_assert_int_eq(p.mdas[0].text_status, 0);
	ck_assert_int_eq(p.mdas[0].vg_status, -EBADMSG); /* no header settings: not metadata */
	pf_probe_release(&p);
}
END_TEST

START_TEST(test_short_file)
{
	struct pf_probe p;
	uint64_t size;
	int fd;

	fd = open(path, O_WRONLY);
	ck_assert_int_eq(write(fd, "LABELONE", 8), 8);
	(void)close(fd);
	ck_assert_int_eq(pf_pvread_open(path, &fd, &size), 0);
	ck_assert_uint_eq(size, 8);
	pf_probe_init(&p, size);
	ck_assert_int_eq(pf_pvread_probe(fd, &p), 0);
	(void)close(fd);
	ck_assert_int_eq(p.label_status, -ENODATA);
	pf_probe_release(&p);
}
END_TEST

START_TEST(test_open_errors)
{
	uint64_t size = 42;
	int fd = -7;

	ck_assert_int_eq(pf_pvread_open("/nonexistent/pvscan-fast", &fd, &size), -ENOENT);
	ck_assert_int_eq(pf_pvread_open("/", &fd, &size), -ENOTBLK);
	ck_assert_int_eq(pf_pvread_open("/dev/null", &fd, &size), -ENOTBLK);
	ck_assert_int_eq(fd, -7); /* untouched on failure */
	ck_assert_uint_eq(size, 42);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("pvread");
	TCase *tc = pf_unit_tcase("pvread");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_image_file);
	tcase_add_test(tc, test_short_file);
	tcase_add_test(tc, test_open_errors);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
