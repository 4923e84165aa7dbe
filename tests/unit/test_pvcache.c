/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pvscan's online phase over in-memory PVs and a temporary run dir: lvm2's decisions and state. */
#include "config.h"

#include <ftw.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "build.h"
#include "scan/pvcache.h"
#include "state/state.h"
#include "unit.h"

#define DEV_SIZE (4U * 1024U * 1024U)
#define MDA_START 4096U
#define MDA_SIZE (64U * 1024U)

#define PVID_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define PVID_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define UUID_A "aaaaaa-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa"
#define UUID_B "bbbbbb-bbbb-bbbb-bbbb-bbbb-bbbb-bbbbbb"

static char run_dir[64];
static uint8_t *dev;

static void setup(void)
{
	(void)snprintf(run_dir, sizeof(run_dir), "/tmp/pvscan-fast-test-run.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(run_dir));
	ck_assert_int_eq(pf_state_init(run_dir), 0);
	dev = calloc(1, DEV_SIZE);
	ck_assert_ptr_nonnull(dev);
}

static void teardown(void)
{
	pf_unit_rm_rf(run_dir);
	free(dev);
}

/* VG text: `pvs` lists the PV sections; extra goes into the VG section (status etc.). */
static size_t vg_text(char *buf, size_t len, const char *vgstatus, const char *extra,
		      const char *pvs, const char *lvs)
{
	int n = snprintf(buf, len,
			 "vgt {\nid = \"SMXdl4-CC44-uuuT-0k1u-g51v-Ub5x-0I3wDh\"\nseqno = 3\n"
			 "status = [%s]\nflags = []\nextent_size = 8192\nmax_lv = 0\nmax_pv = 0\n%s"
			 "physical_volumes {\n%s}\nlogical_volumes {\n%s}\n}\n"
			 "contents = \"Text Format Volume Group\"\nversion = 1\n",
			 vgstatus, extra, pvs, lvs);

	ck_assert_int_gt(n, 0);
	ck_assert_int_lt(n, (int)len);
	return (size_t)n + 1;
}

static const char pv_a[] = "pv0 { id = \"" UUID_A "\" status = [\"ALLOCATABLE\"] "
			   "pe_start = 2048 pe_count = 10 }\n";
static const char pv_b[] = "pv1 { id = \"" UUID_B "\" status = [\"ALLOCATABLE\"] "
			   "pe_start = 2048 pe_count = 10 }\n";
static const char lvs[] =
	"a { id = \"1QamuK-I6cA-KdFB-trWa-23ct-vmeJ-DX4yoc\" status = [\"READ\", \"VISIBLE\"] "
	"segment_count = 1 segment1 { start_extent = 0 extent_count = 1 type = \"striped\" "
	"stripe_count = 1 stripes = [\"pv0\", 0] } }\n"
	"b { id = \"1QamuK-I6cA-KdFB-trWa-23ct-vmeJ-DX4yod\" status = [\"READ\", \"VISIBLE\"] "
	"segment_count = 1 segment1 { start_extent = 0 extent_count = 2 type = \"striped\" "
	"stripe_count = 2 stripe_size = 128 stripes = [\"pv0\", 1, \"pv1\", 0] } }\n"
	"hidden { id = \"1QamuK-I6cA-KdFB-trWa-23ct-vmeJ-DX4yoe\" status = [\"READ\"] "
	"segment_count = 1 segment1 { start_extent = 0 extent_count = 1 type = \"striped\" "
	"stripe_count = 1 stripes = [\"pv0\", 3] } }\n";

/* Build a PV image with this pvid and (text != NULL) one mda holding text; probe it. */
static void probe_pv(struct pf_probe *p, const char *pvid, uint32_t ext_flags, const char *text,
		     size_t text_len)
{
	struct pf_disk_locn da = { 1024 * 1024, 0 }, mda = { MDA_START, MDA_SIZE };
	struct pf_build_label spec = { .sector = 1, .pvid = pvid, .device_size_bytes = DEV_SIZE,
				       .n_data_areas = 1, .data_areas = &da,
				       .n_mdas = text ? 1 : 0, .mdas = &mda, .ext_version = 2,
				       .ext_flags = ext_flags };
	uint64_t off, len;

	memset(dev, 0, DEV_SIZE);
	ck_assert_int_eq(pf_build_label_head(&spec, dev, PF_LABEL_SCAN_BYTES, NULL), 0);
	if (text)
		ck_assert_int_eq(pf_build_mda_area(dev + MDA_START, MDA_SIZE, MDA_START, 512, text,
						   text_len),
				 0);
	pf_probe_init(p, DEV_SIZE);
	while (pf_probe_next(p, &off, &len) == 1)
		pf_probe_feed(p, dev + off, (size_t)len);
}

static void scan_one(struct pf_pvcache *ps, const char *name, unsigned minor, const char *pvid,
		     const char *text, size_t len)
{
	struct pf_probe p;

	probe_pv(&p, pvid, PF_PV_EXT_USED, text, len);
	ck_assert_int_eq(pf_pvcache_device(ps, name, 7, minor, &p), 0);
	pf_probe_release(&p);
}

static char *read_file(const char *sub)
{
	static char buf[1024];
	char path[512];
	FILE *f;
	size_t n;

	(void)snprintf(path, sizeof(path), "%s/%s", run_dir, sub);
	f = fopen(path, "r");
	if (!f)
		return NULL;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = '\0';
	(void)fclose(f);
	return buf;
}

START_TEST(test_two_pv_vg_completes)
{
	struct pf_pvcache ps;
	char text[4096], pvs[512];
	size_t len;

	(void)snprintf(pvs, sizeof(pvs), "%s%s", pv_a, pv_b);
	len = vg_text(text, sizeof(text), "\"READ\", \"WRITE\"", "", pvs, lvs);
	pf_pvcache_init(&ps, run_dir, PF_PVCACHE_CACHE | PF_PVCACHE_ACTIVATE, NULL);
	scan_one(&ps, "/dev/loop5", 5, PVID_A, text, len);
	ck_assert_uint_eq(ps.n_events, 1);
	ck_assert_int_eq(ps.events[0].kind, PF_EV_VG_INCOMPLETE);
	ck_assert_uint_eq(ps.events[0].need, 1);
	ck_assert_str_eq(ps.events[0].vg, "vgt");
	ck_assert_str_eq(read_file("pvs_online/" PVID_A), "7:5\nvg:vgt\ndev:/dev/loop5\n");
	ck_assert_str_eq(read_file("pvs_lookup/vgt"), PVID_A "\n" PVID_B "\n");

	scan_one(&ps, "/dev/loop6", 6, PVID_B, text, len);
	ck_assert_int_eq(ps.events[1].kind, PF_EV_VG_COMPLETE);
	ck_assert_uint_eq(ps.n_complete, 1);
	ck_assert_str_eq(ps.complete_vgs[0], "vgt");
	ck_assert_uint_eq(ps.pv_count, 2);
	ck_assert(!ps.failed);
	pf_pvcache_release(&ps);
}
END_TEST

START_TEST(test_plain_cache_and_no_metadata)
{
	struct pf_pvcache ps;
	char text[4096], pvs[512];
	size_t len;

	(void)snprintf(pvs, sizeof(pvs), "%s%s", pv_a, pv_b);
	len = vg_text(text, sizeof(text), "\"READ\", \"WRITE\"", "", pvs, "");
	/* B has no mda: first it cannot know its VG. */
	pf_pvcache_init(&ps, run_dir, PF_PVCACHE_CACHE | PF_PVCACHE_ACTIVATE, NULL);
	scan_one(&ps, "/dev/loop6", 6, PVID_B, NULL, 0);
	ck_assert_uint_eq(ps.n_events, 2);
	ck_assert_int_eq(ps.events[0].kind, PF_EV_NO_METADATA);
	ck_assert_int_eq(ps.events[1].kind, PF_EV_VG_UNKNOWN);
	ck_assert_str_eq(read_file("pvs_online/" PVID_B), "7:6\ndev:/dev/loop6\n");
	/* A's metadata completes the VG and writes the lookup file... */
	scan_one(&ps, "/dev/loop5", 5, PVID_A, text, len);
	ck_assert_int_eq(ps.events[2].kind, PF_EV_VG_COMPLETE);
	/* ...which a rescan of B then finds. */
	scan_one(&ps, "/dev/loop6", 6, PVID_B, NULL, 0);
	ck_assert_int_eq(ps.events[4].kind, PF_EV_VG_COMPLETE);
	ck_assert_str_eq(ps.events[4].vg, "vgt");
	pf_pvcache_release(&ps);

	pf_pvcache_init(&ps, run_dir, PF_PVCACHE_CACHE, NULL);
	scan_one(&ps, "/dev/loop5", 5, PVID_A, text, len);
	ck_assert_uint_eq(ps.n_events, 1);
	ck_assert_int_eq(ps.events[0].kind, PF_EV_ONLINE);
	pf_pvcache_release(&ps);
}
END_TEST

START_TEST(test_skips)
{
	struct pf_pvcache ps;
	struct pf_probe p;
	char text[4096];
	size_t len;

	pf_pvcache_init(&ps, run_dir, PF_PVCACHE_CACHE | PF_PVCACHE_ACTIVATE, "myhost");
	probe_pv(&p, PVID_A, 0, NULL, 0);
	ck_assert_int_eq(pf_pvcache_device(&ps, "/dev/loop1", 7, 1, &p), 0);
	pf_probe_release(&p);
	ck_assert_int_eq(ps.events[0].kind, PF_EV_NOT_USED);

	len = vg_text(text, sizeof(text), "\"EXPORTED\", \"READ\"", "", pv_a, "");
	scan_one(&ps, "/dev/loop2", 2, PVID_A, text, len);
	ck_assert_int_eq(ps.events[1].kind, PF_EV_EXPORTED);
	len = vg_text(text, sizeof(text), "\"READ\"", "lock_type = \"dlm\"\n", pv_a, "");
	scan_one(&ps, "/dev/loop3", 3, PVID_A, text, len);
	ck_assert_int_eq(ps.events[2].kind, PF_EV_SHARED);
	len = vg_text(text, sizeof(text), "\"READ\"", "system_id = \"otherhost\"\n", pv_a, "");
	scan_one(&ps, "/dev/loop4", 4, PVID_A, text, len);
	ck_assert_int_eq(ps.events[3].kind, PF_EV_FOREIGN);
	/* Not in its own VG's metadata. */
	len = vg_text(text, sizeof(text), "\"READ\"", "", pv_b, "");
	scan_one(&ps, "/dev/loop5", 5, PVID_A, text, len);
	ck_assert_int_eq(ps.events[4].kind, PF_EV_NOT_IN_VG);
	ck_assert(!read_file("pvs_online/" PVID_A));
	pf_pvcache_release(&ps);

	/* A host without a system ID does not treat the VG as foreign. */
	pf_pvcache_init(&ps, run_dir, PF_PVCACHE_CACHE | PF_PVCACHE_ACTIVATE, NULL);
	len = vg_text(text, sizeof(text), "\"READ\"", "system_id = \"otherhost\"\n", pv_a, "");
	scan_one(&ps, "/dev/loop4", 4, PVID_A, text, len);
	ck_assert_int_eq(ps.events[0].kind, PF_EV_VG_COMPLETE);
	pf_pvcache_release(&ps);
}
END_TEST

START_TEST(test_bad_label_and_duplicate)
{
	struct pf_pvcache ps;
	struct pf_probe p;
	char text[4096];
	size_t len;

	pf_pvcache_init(&ps, run_dir, PF_PVCACHE_CACHE, NULL);
	probe_pv(&p, PVID_A, PF_PV_EXT_USED, NULL, 0);
	p.label_status = -EBADMSG;
	ck_assert_int_eq(pf_pvcache_device(&ps, "/dev/loop1", 7, 1, &p), 0);
	pf_probe_release(&p);
	ck_assert_int_eq(ps.events[0].kind, PF_EV_NO_LVM_INFO);

	len = vg_text(text, sizeof(text), "\"READ\"", "", pv_a, "");
	scan_one(&ps, "/dev/loop8", 8, PVID_A, text, len);
	scan_one(&ps, "/dev/loop9", 9, PVID_A, text, len);
	ck_assert_int_eq(ps.events[2].kind, PF_EV_DUPLICATE);
	ck_assert_uint_eq(ps.events[2].other_minor, 8);
	ck_assert_str_eq(ps.events[2].other_dev, "/dev/loop8");
	ck_assert_int_eq(ps.events[3].kind, PF_EV_ONLINE_FAILED);
	ck_assert(ps.failed);
	ck_assert_str_eq(read_file("pvs_online/" PVID_A), "7:8\nvg:vgt\ndev:/dev/loop8\n");
	pf_pvcache_release(&ps);

	pf_pvcache_init(&ps, run_dir, PF_PVCACHE_CACHE | PF_PVCACHE_ALL, NULL);
	probe_pv(&p, PVID_A, PF_PV_EXT_USED, NULL, 0);
	p.label_status = -EBADMSG;
	ck_assert_int_eq(pf_pvcache_device(&ps, "/dev/loop1", 7, 1, &p), 0);
	pf_probe_release(&p);
	ck_assert_uint_eq(ps.n_events, 0); /* the full scan is silent about it */
	pf_pvcache_release(&ps);
}
END_TEST

/*
 * One device with file writes refused past 0 bytes (RLIMIT_FSIZE: EFBIG), as a full /run
 * refuses them with ENOSPC: files can be created, not filled. Nothing in between may call
 * Check, which writes its own records to a file.
 */
static int scan_one_no_room(struct pf_pvcache *ps, const char *name, unsigned minor,
			    const char *pvid, const char *text, size_t len)
{
	struct rlimit old, none = { 0, 0 };
	struct pf_probe p;
	int r;

	probe_pv(&p, pvid, PF_PV_EXT_USED, text, len);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	(void)signal(SIGXFSZ, SIG_IGN);
	none.rlim_max = old.rlim_max;
	ck_assert_int_eq(setrlimit(RLIMIT_FSIZE, &none), 0);
	r = pf_pvcache_device(ps, name, 7, minor, &p);
	(void)setrlimit(RLIMIT_FSIZE, &old);
	pf_probe_release(&p);
	return r;
}

static off_t file_size(const char *sub)
{
	char path[512];
	struct stat st;

	(void)snprintf(path, sizeof(path), "%s/%s", run_dir, sub);
	return stat(path, &st) == 0 ? st.st_size : -1;
}

/*
 * A full /run: lvm2 2.03.16 keeps the empty pvs_online and pvs_lookup files it could not
 * fill, names each failure with its errno, counts the PV online and finds the VG complete.
 * Scanned again, the device meets its own empty file: a duplicate of 0:0, as for lvm2.
 */
START_TEST(test_full_run_dir)
{
	struct pf_pvcache ps;
	char text[4096], pvs[512];
	size_t len;

	(void)snprintf(pvs, sizeof(pvs), "%s%s", pv_a, pv_b);
	len = vg_text(text, sizeof(text), "\"READ\", \"WRITE\"", "", pvs, lvs);
	pf_pvcache_init(&ps, run_dir, PF_PVCACHE_CACHE | PF_PVCACHE_ACTIVATE, NULL);
	ck_assert_int_eq(scan_one_no_room(&ps, "/dev/loop5", 5, PVID_A, text, len), 0);
	ck_assert_uint_eq(ps.n_events, 4);
	ck_assert_int_eq(ps.events[0].kind, PF_EV_ONLINE_WRITE_FAILED);
	ck_assert_int_eq(ps.events[0].err, -EFBIG);
	ck_assert_str_eq(ps.events[0].pvid, PVID_A);
	ck_assert_str_eq(ps.events[0].run_dir, run_dir);
	ck_assert_int_eq(ps.events[1].kind, PF_EV_LOOKUP_WRITE_FAILED);
	ck_assert_int_eq(ps.events[1].err, -EFBIG);
	ck_assert_str_eq(ps.events[1].vg, "vgt");
	ck_assert_str_eq(ps.events[1].pvid, PVID_A);
	ck_assert_int_eq(ps.events[2].kind, PF_EV_LOOKUP_WRITE_FAILED);
	ck_assert_str_eq(ps.events[2].pvid, PVID_B);
	ck_assert_int_eq(ps.events[3].kind, PF_EV_VG_INCOMPLETE);
	ck_assert_uint_eq(ps.events[3].need, 1);
	ck_assert_int_eq(file_size("pvs_online/" PVID_A), 0);
	ck_assert_int_eq(file_size("pvs_lookup/vgt"), 0);

	ck_assert_int_eq(scan_one_no_room(&ps, "/dev/loop6", 6, PVID_B, text, len), 0);
	ck_assert_uint_eq(ps.n_events, 6);
	ck_assert_int_eq(ps.events[4].kind, PF_EV_ONLINE_WRITE_FAILED);
	ck_assert_str_eq(ps.events[4].pvid, PVID_B);
	ck_assert_int_eq(ps.events[5].kind, PF_EV_VG_COMPLETE);
	ck_assert_uint_eq(ps.n_complete, 1);
	ck_assert_str_eq(ps.complete_vgs[0], "vgt");
	ck_assert(!ps.failed);

	/* room again: the empty file still names no devno */
	scan_one(&ps, "/dev/loop6", 6, PVID_B, text, len);
	ck_assert_int_eq(ps.events[6].kind, PF_EV_DUPLICATE);
	ck_assert_uint_eq(ps.events[6].other_major, 0);
	ck_assert_uint_eq(ps.events[6].other_minor, 0);
	ck_assert_int_eq(ps.events[7].kind, PF_EV_ONLINE_FAILED);
	ck_assert_int_eq(ps.events[7].err, 0); /* the duplicate line says why */
	ck_assert(ps.failed);
	pf_pvcache_release(&ps);
}
END_TEST

/* No room for even an empty file (no inodes, a read-only /run): the PV is not online. */
START_TEST(test_run_dir_unwritable)
{
	struct pf_pvcache ps;
	char text[4096], path[512];
	size_t len;

	len = vg_text(text, sizeof(text), "\"READ\"", "", pv_a, "");
	(void)snprintf(path, sizeof(path), "%s/pvs_online", run_dir);
	ck_assert_int_eq(rmdir(path), 0);
	pf_pvcache_init(&ps, run_dir, PF_PVCACHE_CACHE | PF_PVCACHE_ACTIVATE, NULL);
	scan_one(&ps, "/dev/loop5", 5, PVID_A, text, len);
	ck_assert_uint_eq(ps.n_events, 1);
	ck_assert_int_eq(ps.events[0].kind, PF_EV_ONLINE_FAILED);
	ck_assert_int_eq(ps.events[0].err, -ENOENT);
	ck_assert_str_eq(ps.events[0].pvid, PVID_A);
	ck_assert_uint_eq(ps.n_complete, 0);
	ck_assert(ps.failed);
	pf_pvcache_release(&ps);
	ck_assert_int_eq(mkdir(path, 0700), 0);
}
END_TEST

START_TEST(test_listvg_vgonline_and_listlvs)
{
	const unsigned flags = PF_PVCACHE_CACHE | PF_PVCACHE_LIST_VG | PF_PVCACHE_CHECK_COMPLETE |
			       PF_PVCACHE_VG_ONLINE;
	struct pf_pvcache ps;
	char text[4096], pvs[512];
	size_t len;

	(void)snprintf(pvs, sizeof(pvs), "%s%s", pv_a, pv_b);
	len = vg_text(text, sizeof(text), "\"READ\", \"WRITE\"", "", pvs, lvs);
	pf_pvcache_init(&ps, run_dir, flags, NULL);
	scan_one(&ps, "/dev/loop5", 5, PVID_A, text, len);
	ck_assert_int_eq(ps.events[ps.n_events - 1].kind, PF_EV_LIST_VG_INCOMPLETE);
	scan_one(&ps, "/dev/loop6", 6, PVID_B, text, len);
	ck_assert_int_eq(ps.events[ps.n_events - 1].kind, PF_EV_LIST_VG_COMPLETE);
	ck_assert_str_eq(read_file("vgs_online/vgt"), "");
	scan_one(&ps, "/dev/loop6", 6, PVID_B, text, len);
	ck_assert_int_eq(ps.events[ps.n_events - 1].kind, PF_EV_LIST_VG_FINISHED);
	pf_pvcache_release(&ps);

	/* --listlvs --checkcomplete on a fresh run dir: A alone completes LV a, not b. */
	teardown();
	setup();
	pf_pvcache_init(&ps, run_dir, PF_PVCACHE_CACHE | PF_PVCACHE_LIST_LVS | PF_PVCACHE_CHECK_COMPLETE,
		       NULL);
	scan_one(&ps, "/dev/loop5", 5, PVID_A, text, len);
	ck_assert_uint_eq(ps.n_events, 4);
	ck_assert_int_eq(ps.events[1].kind, PF_EV_LIST_VG_INCOMPLETE);
	ck_assert_int_eq(ps.events[2].kind, PF_EV_LIST_LV);
	ck_assert_str_eq(ps.events[2].lv, "a");
	ck_assert_int_eq(ps.events[2].lv_state, PF_LV_STATE_COMPLETE);
	ck_assert_str_eq(ps.events[3].lv, "b");
	ck_assert_int_eq(ps.events[3].lv_state, PF_LV_STATE_INCOMPLETE);
	pf_pvcache_release(&ps);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("pvscan");
	TCase *tc = pf_unit_tcase("pvscan");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_two_pv_vg_completes);
	tcase_add_test(tc, test_plain_cache_and_no_metadata);
	tcase_add_test(tc, test_skips);
	tcase_add_test(tc, test_bad_label_and_duplicate);
	tcase_add_test(tc, test_listvg_vgonline_and_listlvs);
	tcase_add_test(tc, test_full_run_dir);
	tcase_add_test(tc, test_run_dir_unwritable);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
