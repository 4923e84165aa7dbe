/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Activating one VG: its lvm2 lock first, which fails the VG but never hangs it; then the
 * metadata read again under the lock through the reader process with the scan's timeout, so
 * a PV that never answers costs its timeout, is named in a warning and counts as missing (the
 * VG is then incomplete), and the other PVs are still read.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "activate/vgactivate.h"
#include "build.h"
#include "confdir.h"
#include "format/probe.h"
#include "lockhold.h"
#include "unit.h"

#define MIB (1024U * 1024U)
#define PVID2 "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

/* Metadata of VG "vgre" with two PVs: the image's own, and PVID2 (elsewhere, or missing). */
static size_t vg_text(char *buf, size_t len)
{
	int n = snprintf(buf, len,
			 "vgre {\nid = \"SMXdl4-CC44-uuuT-0k1u-g51v-Ub5x-0I3wDh\"\nseqno = 3\n"
			 "status = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\nflags = []\n"
			 "extent_size = 8\nmax_lv = 0\nmax_pv = 0\n"
			 "physical_volumes {\n"
			 "pv0 {\nid = \"sJBIRv-tuEF-Ck1N-Kvbd-PtdU-y4nd-QtE4a1\"\n"
			 "status = [\"ALLOCATABLE\"]\ndev_size = 4096\npe_start = 8\n"
			 "pe_count = 1\n}\n"
			 "pv1 {\nid = \"AAAAAA-AAAA-AAAA-AAAA-AAAA-AAAA-AAAAAA\"\n"
			 "status = [\"ALLOCATABLE\"]\ndev_size = 4096\npe_start = 8\n"
			 "pe_count = 1\n}\n"
			 "}\n}\ncontents = \"Text Format Volume Group\"\nversion = 1\n");

	ck_assert_int_gt(n, 0);
	ck_assert_uint_lt((size_t)n, len);
	return (size_t)n + 1;
}

/* A 2 MiB PV image of pvid carrying vg_text(). */
static void write_pv(const char *path, const char *pvid)
{
	struct pf_disk_locn da = { MIB, 0 }, mda = { 4096, MIB - 4096 };
	struct pf_build_label spec = {
		.sector = 1,
		.pvid = pvid,
		.device_size_bytes = 2 * MIB,
		.n_data_areas = 1,
		.data_areas = &da,
		.n_mdas = 1,
		.mdas = &mda,
		.ext_version = 2,
		.ext_flags = PF_PV_EXT_USED,
	};
	uint8_t *img = calloc(1, 2 * MIB);
	char text[4096];
	size_t len = vg_text(text, sizeof(text));
	int fd;

	ck_assert_ptr_nonnull(img);
	ck_assert_int_eq(pf_build_label_head(&spec, img, PF_LABEL_SCAN_BYTES, NULL), 0);
	ck_assert_int_eq(pf_build_mda_area(img + mda.offset_bytes, (size_t)mda.size_bytes,
					   mda.offset_bytes, 512, text, len),
			 0);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, img, 2 * MIB), (ssize_t)(2 * MIB));
	(void)close(fd);
	free(img);
}

static char dir[64], pv_path[96], pv2_path[96], fifo_path[96], lock_dir[96];

static void setup(void)
{
	(void)snprintf(dir, sizeof(dir), "/tmp/pf-vgact-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(dir));
	(void)snprintf(pv_path, sizeof(pv_path), "%s/pv", dir);
	(void)snprintf(pv2_path, sizeof(pv2_path), "%s/pv2", dir);
	(void)snprintf(fifo_path, sizeof(fifo_path), "%s/hung", dir);
	(void)snprintf(lock_dir, sizeof(lock_dir), "%s/lock", dir);
	ck_assert_int_eq(mkdir(lock_dir, 0700), 0);
	write_pv(pv_path, PF_BUILD_PVID);
	write_pv(pv2_path, PVID2);
	/* opening a FIFO for reading blocks until a writer comes: a PV that never answers */
	ck_assert_int_eq(mkfifo(fifo_path, 0600), 0);
	conf_setup();
}

static void teardown(void)
{
	conf_teardown();
	pf_unit_rm_rf(dir);
}

static bool has_msg(const struct pf_activate_result *res, enum pf_aamsg_level level,
		    const char *text)
{
	for (size_t i = 0; i < res->n_msgs; i++)
		if (res->msgs[i].level == level && strstr(res->msgs[i].text, text))
			return true;
	return false;
}

/* Activate vgre from pvs[0..n), dry run, without device-mapper, with a 500 ms timeout. */
static void activate(const struct pf_activate_pv *pvs, size_t n, struct pf_activate_result *res)
{
	struct pf_settings st;
	struct pf_activate_opts o = { .settings = &st, .dry_run = true, .no_dm = true,
				      .timeout_ms = 500 };
	struct pf_dm_batch b = { 0 };

	conf_load_ok(NULL, NULL, &st);
	ck_assert_int_eq(pf_activate_vg(&o, "vgre", pvs, n, &b, res), 0);
	pf_settings_release(&st);
}

START_TEST(test_reread_all_read)
{
	struct pf_activate_pv pvs[2] = { { .pvid = PF_BUILD_PVID, .path = pv_path },
					 { .pvid = PVID2, .path = pv2_path } };
	struct pf_activate_result res;

	/* Both PVs read again through the reader: the VG is complete. */
	activate(pvs, 2, &res);
	ck_assert_str_ne(res.reason, pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_INCOMPLETE));
	ck_assert_str_ne(res.reason, "cannot read the metadata of VG vgre");
	ck_assert(!has_msg(&res, PF_AAMSG_WARN, "again"));
	pf_activate_result_release(&res);

	/* One not online: found, and incomplete. */
	pvs[1].path = NULL;
	activate(pvs, 2, &res);
	ck_assert_str_eq(res.reason, pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_INCOMPLETE));
	pf_activate_result_release(&res);
}
END_TEST

START_TEST(test_reread_hung_pv_missing)
{
	struct pf_activate_pv pvs[2] = { { .pvid = PF_BUILD_PVID, .path = pv_path },
					 { .pvid = PVID2, .path = fifo_path } };
	struct pf_activate_result res, ref;
	char want[1024];

	/* As if the hung PV were not there at all: the same verdict, plus a warning naming it. */
	activate(pvs, 2, &res);
	pvs[1].path = NULL;
	activate(pvs, 2, &ref);
	ck_assert_int_eq(res.outcome, ref.outcome);
	ck_assert_str_eq(res.reason, ref.reason);
	ck_assert_str_eq(res.reason, pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_INCOMPLETE));
	(void)snprintf(want, sizeof(want),
		       "WARNING: Reading %s again for VG vgre: cannot open %s: no answer within "
		       "500 ms: device left out",
		       fifo_path, fifo_path);
	ck_assert(has_msg(&res, PF_AAMSG_WARN, want));
	ck_assert_uint_eq(res.n_msgs, ref.n_msgs + 1);
	pf_activate_result_release(&res);
	pf_activate_result_release(&ref);
}
END_TEST

START_TEST(test_reread_only_pv_hung)
{
	struct pf_activate_pv pv = { .pvid = PF_BUILD_PVID, .path = fifo_path };
	struct pf_activate_result res;

	/* Nothing could be read again: no metadata, the VG is not activated. */
	activate(&pv, 1, &res);
	ck_assert_int_eq(res.outcome, PF_ACTIVATE_FAILED);
	ck_assert_str_eq(res.reason, "cannot read the metadata of VG vgre");
	ck_assert(has_msg(&res, PF_AAMSG_WARN, "no answer within 500 ms"));
	pf_activate_result_release(&res);
}
END_TEST

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
	TCase *lock = pf_unit_tcase("lock");
	TCase *tc = pf_unit_tcase("re-read");

	tcase_add_checked_fixture(lock, setup, teardown);
	tcase_add_test(lock, test_lock_timeout_fails_vg);
	tcase_add_test(lock, test_unsafe_lock_dir_fails_vg);
	suite_add_tcase(s, lock);

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_reread_all_read);
	tcase_add_test(tc, test_reread_hung_pv_missing);
	tcase_add_test(tc, test_reread_only_pv_hung);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
