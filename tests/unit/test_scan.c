/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The scan pass's metadata memory budget: a full scan over a fake sysfs whose disks are
 * image files of built PVs, with a budget too small for all of them; one giant device first
 * costs only itself. The first leader's full scan under udev reads only what udev announced.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/paths.h"
#include "build.h"
#include "config/settings.h"
#include "fakesys.h"
#include "scan/scan.h"
#include "unit.h"

FAKESYS_FIXTURE

#define DEV_SIZE  (4U * 1024U * 1024U)
#define MDA_START 4096U
#define MDA_SIZE  (64U * 1024U)
#define N_DEVS	  4U

/* A PV of its own one-PV VG "vgN" with n_lvs LVs on disk sdX (minor 16 * n), in dev/. */
static void make_pv_lvs(unsigned n, unsigned n_lvs)
{
	struct pf_disk_locn da = { 1024 * 1024, 0 }, mda = { MDA_START, MDA_SIZE };
	char pvid[PF_ID_LEN + 1], uuid[64], kname[8];
	size_t size = 1024U + (size_t)n_lvs * 256U, at;
	char *text = malloc(size);
	struct pf_build_label spec = { .sector = 1, .device_size_bytes = DEV_SIZE,
				       .n_data_areas = 1, .data_areas = &da, .n_mdas = 1,
				       .mdas = &mda, .ext_version = 2,
				       .ext_flags = PF_PV_EXT_USED };
	uint8_t *img = calloc(1, DEV_SIZE);
	int len;

	ck_assert_ptr_nonnull(img);
	ck_assert_ptr_nonnull(text);
	memset(pvid, 'a' + (int)n, PF_ID_LEN);
	pvid[PF_ID_LEN] = '\0';
	(void)snprintf(uuid, sizeof(uuid), "%.6s-%.4s-%.4s-%.4s-%.4s-%.4s-%.6s", pvid, pvid, pvid,
		       pvid, pvid, pvid, pvid);
	len = snprintf(text, size,
		       "vg%u {\nid = \"SMXdl4-CC44-uuuT-0k1u-g51v-Ub5x-0I3wD%u\"\nseqno = 1\n"
		       "status = [\"READ\", \"WRITE\"]\nflags = []\nextent_size = 8192\n"
		       "max_lv = 0\nmax_pv = 0\nphysical_volumes {\npv0 { id = \"%s\" "
		       "status = [\"ALLOCATABLE\"] pe_start = 2048 pe_count = 10 }\n}\n",
		       n, n, uuid);
	ck_assert_int_gt(len, 0);
	at = (size_t)len;
	if (n_lvs)
		at += (size_t)snprintf(text + at, size - at, "logical_volumes {\n");
	for (unsigned k = 0; k < n_lvs; k++)
		at += (size_t)snprintf(
		    text + at, size - at,
		    "lv%u { id = \"LVLVLV-LVLV-LVLV-LVLV-LVLV-LVLV-%06u\" status = [\"READ\", "
		    "\"VISIBLE\"] segment_count = 1 segment1 { start_extent = 0 extent_count = 1 "
		    "type = \"striped\" stripe_count = 1 stripes = [\"pv0\", 0] } }\n",
		    k, k);
	at += (size_t)snprintf(text + at, size - at,
			       "%s}\ncontents = \"Text Format Volume Group\"\nversion = 1\n",
			       n_lvs ? "}\n" : "");
	ck_assert_uint_lt(at, size);
	len = (int)at;
	spec.pvid = pvid;
	ck_assert_int_eq(pf_build_label_head(&spec, img, PF_LABEL_SCAN_BYTES, NULL), 0);
	ck_assert_int_eq(pf_build_mda_area(img + MDA_START, MDA_SIZE, MDA_START, 512, text,
					   (size_t)len + 1),
			 0);
	(void)snprintf(kname, sizeof(kname), "sd%c", 'a' + (int)n);
	fakesys_disk(&fs, kname, 8, 16 * n, DEV_SIZE / 512U);
	{
		char rel[16];

		(void)snprintf(rel, sizeof(rel), "dev/%s", kname);
		fakesys_write_bytes(&fs, rel, img, DEV_SIZE);
	}
	free(img);
	free(text);
}

static void make_pv(unsigned n)
{
	make_pv_lvs(n, 0);
}

static void scan_all(uint64_t budget, struct pf_scan *ret)
{
	struct pf_settings st;
	struct pf_diag diag = { 0 };
	struct pf_scan_opts o = { .paths = &fs.paths, .settings = &st, .no_aio = false,
				  .mem_budget_bytes = budget, .devicesfile = "" };

	for (unsigned n = 0; n < N_DEVS; n++)
		make_pv(n);
	ck_assert_int_eq(pf_settings_load(fs.paths.etc, NULL, 0, &st, &diag), 0);
	o.timeout_ms = 10000;
	ck_assert_int_eq(pf_scan_run(&o, ret), 0);
	pf_settings_release(&st);
	ck_assert_uint_eq(ret->n, N_DEVS);
}

/* What one device of these keeps, measured by scanning them with room for all. */
static uint64_t one_device_bytes(void)
{
	struct pf_scan s;
	uint64_t each;

	scan_all(0, &s);
	ck_assert_uint_eq(s.n_over_budget, 0);
	ck_assert_uint_gt(s.mem_used_bytes, 0);
	each = s.mem_used_bytes / N_DEVS;
	for (size_t i = 0; i < s.n; i++) {
		ck_assert_int_eq(s.devs[i].outcome, PF_SCAN_READ);
		ck_assert_ptr_nonnull(pf_probe_vg(&s.devs[i].probe));
		ck_assert_uint_eq(pf_probe_bytes(&s.devs[i].probe), each);
	}
	ck_assert_uint_eq(s.mem_budget_bytes, pf_scan_default_budget());
	pf_scan_release(&s);
	return each;
}

START_TEST(test_default_budget)
{
	uint64_t b = pf_scan_default_budget();

	ck_assert_uint_gt(b, 0);
	ck_assert_uint_le(b, PF_SCAN_BUDGET_MAX);
}
END_TEST

/* Room for two and a half devices: the first two are kept, the two after them dropped. */
START_TEST(test_budget_used_up)
{
	uint64_t each = one_device_bytes();
	uint64_t budget = 2U * each + each / 2U;
	char want[128];
	struct pf_scan s;

	fakesys_destroy(&fs);
	fakesys_init(&fs);
	scan_all(budget, &s);
	ck_assert_uint_eq(s.mem_budget_bytes, budget);
	ck_assert_uint_eq(s.mem_used_bytes, 2U * each);
	ck_assert_uint_eq(s.n_over_budget, 2);
	(void)snprintf(want, sizeof(want),
		       "metadata memory budget of %llu MiB for this scan is used up",
		       (unsigned long long)(budget >> 20));
	for (size_t i = 0; i < s.n; i++) {
		const struct pf_scan_dev *d = &s.devs[i];
		char vg[24];

		(void)snprintf(vg, sizeof(vg), "vg%zu", i);
		if (i < 2) {
			ck_assert_int_eq(d->outcome, PF_SCAN_READ);
			ck_assert(!d->over_budget);
			ck_assert_ptr_nonnull(pf_probe_vg(&d->probe));
			ck_assert_str_eq(pf_probe_vg(&d->probe)->name, vg);
			continue;
		}
		ck_assert_int_eq(d->outcome, PF_SCAN_FAILED);
		ck_assert_int_eq(d->status, -ENOMEM);
		ck_assert(d->over_budget);
		ck_assert_str_eq(d->diag.msg, want);
		ck_assert_ptr_null(pf_probe_vg(&d->probe));
		ck_assert_uint_eq(pf_probe_bytes(&d->probe), 0);
	}
	pf_scan_release(&s);
}
END_TEST

/*
 * A device whose metadata alone is past the budget is dropped and named, and the devices
 * after it that fit are still kept: one giant set of metadata costs its own device only.
 */
START_TEST(test_budget_giant_first)
{
	uint64_t each = one_device_bytes();
	uint64_t budget = 2U * each + each / 2U;
	struct pf_settings st;
	struct pf_diag diag = { 0 };
	struct pf_scan_opts o = { .paths = &fs.paths, .settings = &st, .timeout_ms = 10000,
				  .mem_budget_bytes = budget, .devicesfile = "" };
	struct pf_scan s;

	fakesys_destroy(&fs);
	fakesys_init(&fs);
	make_pv_lvs(0, 200);
	for (unsigned n = 1; n < N_DEVS; n++)
		make_pv(n);
	ck_assert_int_eq(pf_settings_load(fs.paths.etc, NULL, 0, &st, &diag), 0);
	ck_assert_int_eq(pf_scan_run(&o, &s), 0);
	pf_settings_release(&st);
	ck_assert_uint_eq(s.n, N_DEVS);
	ck_assert(s.devs[0].over_budget);
	ck_assert_int_eq(s.devs[0].outcome, PF_SCAN_FAILED);
	ck_assert_ptr_nonnull(strstr(s.devs[0].diag.msg, "metadata memory budget of"));
	for (size_t i = 1; i < 3; i++) {
		ck_assert_int_eq(s.devs[i].outcome, PF_SCAN_READ);
		ck_assert_ptr_nonnull(pf_probe_vg(&s.devs[i].probe));
	}
	ck_assert(s.devs[3].over_budget); /* half a device's room was left for it */
	ck_assert_uint_eq(s.n_over_budget, 2);
	ck_assert_uint_eq(s.mem_used_bytes, 2U * each);
	pf_scan_release(&s);
}
END_TEST

/*
 * A budget below the first device: every device is dropped, none is kept in part, and no
 * text was even read into memory: the probes stop at the budget while they read.
 */
START_TEST(test_budget_tiny)
{
	struct pf_scan s;

	scan_all(1, &s);
	ck_assert_uint_eq(s.mem_used_bytes, 0);
	ck_assert_uint_eq(s.n_over_budget, N_DEVS);
	for (size_t i = 0; i < s.n; i++) {
		ck_assert(s.devs[i].over_budget);
		ck_assert(s.devs[i].probe.over_budget);
		ck_assert_int_eq(s.devs[i].probe.mdas[0].text_status, -ENOMEM);
		ck_assert_ptr_nonnull(strstr(s.devs[i].probe.mdas[0].text_diag.msg,
					     "do not fit in the scan's metadata memory budget"));
		ck_assert_str_eq(s.devs[i].diag.msg,
				 "metadata memory budget of 0 MiB for this scan is used up");
	}
	pf_scan_release(&s);
}
END_TEST

/* sd<c>'s outcome in s */
static const struct pf_scan_dev *dev_of(const struct pf_scan *s, unsigned minor)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->devs[i].dev.minor == minor)
			return &s->devs[i];
	ck_abort_msg("no device 8:%u", minor);
	return NULL;
}

/*
 * Started by udev: sda processed, sdb a multipath path by udev's verdict, sdc not processed
 * yet but named by an event, sdd not processed, then an md member: sdb and sdd are left out,
 * until udev stops.
 */
START_TEST(test_udev_gate)
{
	static const struct pf_scan_arg named = { .major = 8, .minor = 32 };
	struct pf_settings st;
	struct pf_diag diag = { 0 };
	struct pf_scan_opts o = { .paths = &fs.paths, .settings = &st, .timeout_ms = 10000,
				  .devicesfile = "", .udev_announced_only = true,
				  .announced = &named, .n_announced = 1 };
	struct pf_scan s;

	for (unsigned n = 0; n < N_DEVS; n++)
		make_pv(n);
	fs.paths.udev = pf_path_join(fs.root, "udev");
	ck_assert_ptr_nonnull(fs.paths.udev);
	fakesys_write(&fs, "udev/control", "");
	fakesys_write(&fs, "udev/data/b8:0", "I:1\nE:ID_FS_TYPE=LVM2_member\n");
	fakesys_write(&fs, "udev/data/b8:16", "E:ID_FS_TYPE=LVM2_member\nE:DM_MULTIPATH_DEVICE_PATH=1\n");
	ck_assert_int_eq(pf_settings_load(fs.paths.etc, NULL, 0, &st, &diag), 0);
	ck_assert_int_eq(pf_scan_run(&o, &s), 0);
	ck_assert_int_eq(dev_of(&s, 0)->outcome, PF_SCAN_READ);
	ck_assert_int_eq(dev_of(&s, 16)->outcome, PF_SCAN_EXCLUDED);
	ck_assert_str_eq(dev_of(&s, 16)->reason, "device is a multipath path (udev)");
	ck_assert_int_eq(dev_of(&s, 32)->outcome, PF_SCAN_READ);
	ck_assert_int_eq(dev_of(&s, 48)->outcome, PF_SCAN_EXCLUDED);
	ck_assert_ptr_nonnull(strstr(dev_of(&s, 48)->reason, "not processed by udev yet"));
	pf_scan_release(&s);
	/*
	 * sdd processed as an md member (metadata 1.0 leaves the PV's label readable at its start):
	 * lvm2's rule never reads it, nor does this scan; an event naming it still has it read.
	 */
	fakesys_write(&fs, "udev/data/b8:48", "E:ID_FS_TYPE=linux_raid_member\n");
	ck_assert_int_eq(pf_scan_run(&o, &s), 0);
	ck_assert_int_eq(dev_of(&s, 48)->outcome, PF_SCAN_EXCLUDED);
	ck_assert_str_eq(dev_of(&s, 48)->reason, "udev found another signature than a PV's on it");
	ck_assert_int_eq(dev_of(&s, 0)->outcome, PF_SCAN_READ);
	pf_scan_release(&s);
	/* udev not running (an initramfs without it): every device is read */
	fakesys_unlink(&fs, "udev/control");
	ck_assert_int_eq(pf_scan_run(&o, &s), 0);
	for (size_t i = 0; i < s.n; i++)
		ck_assert_int_eq(s.devs[i].outcome, PF_SCAN_READ);
	pf_scan_release(&s);
	pf_settings_release(&st);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("scan");
	TCase *tc = pf_unit_tcase("budget");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_default_budget);
	tcase_add_test(tc, test_budget_used_up);
	tcase_add_test(tc, test_budget_giant_first);
	tcase_add_test(tc, test_budget_tiny);
	tcase_add_test(tc, test_udev_gate);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
