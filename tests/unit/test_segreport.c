/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvm2's segment report fields from metadata: the expected values are what lvm2 2.03.16
 * reported for the same layouts in tests/fixtures/segtypes and segtypes-more.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "format/segreport.h"
#include "unit.h"

#define MIB 1048576U

/* A linear sub-LV "NAME" of N extents on pv0 at PE. */
#define SUB(name, n, pe)                                                                   \
	name " { id = \"aaaaaa-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\nstatus = [\"READ\", \"WRITE\"]\n" \
	     "segment_count = 1\nsegment1 { start_extent = 0\nextent_count = " #n "\n"          \
	     "type = \"striped\"\nstripe_count = 1\nstripes = [\"pv0\", " #pe "] } }\n"
#define TOP(name, n, body)                                                                  \
	name " { id = \"aaaaaa-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\n"                            \
	     "status = [\"READ\", \"WRITE\", \"VISIBLE\"]\nsegment_count = 1\n"                  \
	     "segment1 { start_extent = 0\nextent_count = " #n "\n" body " } }\n"

static const char lvs_text[] =
	TOP("lin", 2, "type = \"striped\"\nstripe_count = 1\nstripes = [\"pv0\", 0]")
	TOP("str", 4, "type = \"striped\"\nstripe_count = 2\nstripe_size = 64\n"
		      "stripes = [\"pv0\", 2, \"pv0\", 10]")
	SUB("r5_rmeta_0", 1, 20) SUB("r5_rimage_0", 2, 21) SUB("r5_rmeta_1", 1, 23)
	SUB("r5_rimage_1", 2, 24) SUB("r5_rmeta_2", 1, 26) SUB("r5_rimage_2", 2, 27)
	TOP("r5", 4, "type = \"raid5_ls\"\ndevice_count = 3\nregion_size = 4096\n"
		     "stripe_size = 128\nraids = [\"r5_rmeta_0\", \"r5_rimage_0\", \"r5_rmeta_1\", "
		     "\"r5_rimage_1\", \"r5_rmeta_2\", \"r5_rimage_2\"]")
	SUB("r6_rimage_0", 1, 30) SUB("r6_rimage_1", 1, 31) SUB("r6_rimage_2", 1, 32)
	SUB("r6_rimage_3", 1, 33) SUB("r6_rimage_4", 1, 34)
	TOP("r6", 3, "type = \"raid6_zr\"\ndevice_count = 5\nstripe_size = 128\nraids = ["
		     "\"r6_rimage_0\", \"r6_rimage_1\", \"r6_rimage_2\", \"r6_rimage_3\", "
		     "\"r6_rimage_4\"]")
	SUB("r10_rimage_0", 2, 40) SUB("r10_rimage_1", 2, 42) SUB("r10_rimage_2", 2, 44)
	SUB("r10_rimage_3", 2, 46)
	TOP("r10", 4, "type = \"raid10\"\ndevice_count = 4\ndata_copies = 2\nreshape_count = 1\n"
		      "raids = [\"r10_rimage_0\", \"r10_rimage_1\", \"r10_rimage_2\", "
		      "\"r10_rimage_3\"]")
	SUB("r1_rimage_0", 2, 50) SUB("r1_rimage_1", 2, 52) SUB("r1_rimage_2", 2, 54)
	TOP("r1", 2, "type = \"raid1\"\ndevice_count = 3\nregion_size = 2048\nraids = ["
		     "\"r1_rimage_0\", \"r1_rimage_1\", \"r1_rimage_2\"]")
	SUB("r0_rimage_0", 2, 56) SUB("r0_rimage_1", 2, 58)
	TOP("r0", 4, "type = \"raid0\"\nstripe_count = 2\nstripe_size = 128\n"
		     "raid0_lvs = [\"r0_rimage_0\", \"r0_rimage_1\"]")
	TOP("m", 3, "type = \"mirror\"\nmirror_count = 2\nregion_size = 1024\n"
		    "mirrors = [\"pv0\", 60, \"pv0\", 63]")
	SUB("tp_tmeta", 1, 66) SUB("tp_tdata", 4, 67)
	TOP("tp", 4, "type = \"thin-pool\"\nmetadata = \"tp_tmeta\"\npool = \"tp_tdata\"\n"
		     "transaction_id = 3\nchunk_size = 256\nzero_new_blocks = 1")
	TOP("t1", 8, "type = \"thin\"\nthin_pool = \"tp\"\ntransaction_id = 0\ndevice_id = 1")
	TOP("t2", 8, "type = \"thin\"\nthin_pool = \"tp\"\ntransaction_id = 1\ndevice_id = 2\n"
		     "origin = \"t1\"")
	SUB("cp_cmeta", 1, 71) SUB("cp_cdata", 4, 72) SUB("c_corig", 4, 76)
	"cp { id = \"aaaaaa-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"segment_count = 1\nsegment1 { start_extent = 0\nextent_count = 4\n"
	"type = \"cache-pool+METADATA_FORMAT\"\ndata = \"cp_cdata\"\nmetadata = \"cp_cmeta\"\n"
	"chunk_size = 128\npolicy_settings { migration_threshold = 2048 } } }\n"
	TOP("c", 4, "type = \"cache\"\ncache_pool = \"cp\"\norigin = \"c_corig\"")
	"fast_cvol { id = \"aaaaaa-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\n"
	"status = [\"READ\", \"WRITE\"]\nflags = [\"CACHE_VOL\"]\nsegment_count = 1\n"
	"segment1 { start_extent = 0\nextent_count = 2\ntype = \"striped\"\nstripe_count = 1\n"
	"stripes = [\"pv0\", 80] } }\n"
	SUB("wc_wcorig", 4, 82)
	TOP("wc", 4, "type = \"writecache\"\nwritecache = \"fast_cvol\"\norigin = \"wc_wcorig\"\n"
		     "writecache_block_size = 4096\nwriteback_jobs = 1024\ncleaner = 0\n"
		     "high_watermark = 50")
	SUB("vp_vdata", 6, 86)
	"vp { id = \"aaaaaa-aaaa-aaaa-aaaa-aaaa-aaaa-aaaaaa\"\nstatus = [\"READ\", \"WRITE\"]\n"
	"segment_count = 1\nsegment1 { start_extent = 0\nextent_count = 6\n"
	"type = \"vdo-pool\"\ndata = \"vp_vdata\"\nheader_size = 512\nvirtual_extents = 10\n"
	"use_compression = 1\nminimum_io_size = 4096\nblock_map_cache_size_mb = 128\n"
	"slab_size_mb = 2048\nbio_threads = 4 } }\n"
	TOP("v", 10, "type = \"vdo\"\nvdo_pool = \"vp\"\nvdo_offset = 0")
	SUB("snap", 2, 92)
	TOP("snapshot0", 2, "type = \"snapshot\"\nchunk_size = 8\norigin = \"lin\"\n"
			    "cow_store = \"snap\"")
	TOP("z", 8, "type = \"zero\"")
	/* not what lvm2 writes: lists of the wrong length and kind */
	TOP("odd_raid", 2, "type = \"raid5\"\ndevice_count = 1\nraids = [\"a_rmeta_0\", "
			   "\"a_rmeta_1\", 7, \"a_rmeta_2\"]")
	TOP("odd_mirror", 2, "type = \"mirror\"\nmirrors = [\"pv0\", 1, \"nosuch\"]")
	TOP("odd_thin", 2, "type = \"thin\"\nthin_pool = \"lin\"\ndevice_id = -1");

static struct pf_vg *vg;

static void setup(void)
{
	static char buf[16384];
	struct pf_diag d;

	(void)snprintf(buf, sizeof(buf),
		       "v {\nid = \"SMXdl4-CC44-uuuT-0k1u-g51v-Ub5x-0I3wDh\"\nseqno = 1\n"
		       "status = [\"READ\", \"WRITE\"]\nextent_size = 2048\nmax_lv = 0\nmax_pv = 0\n"
		       "physical_volumes { pv0 { id = \"tz2guY-5lhh-9Mcq-ZXkk-3u5V-dPZI-dXdoff\"\n"
		       "status = [\"ALLOCATABLE\"]\npe_start = 2048\npe_count = 100\n} }\n"
		       "logical_volumes {\n%s}\n}\n"
		       "contents = \"Text Format Volume Group\"\nversion = 1\n",
		       lvs_text);
	ck_assert_int_eq(pf_vg_import(buf, strlen(buf), &vg, &d), 0);
}

static void teardown(void)
{
	vg = pf_vg_free(vg);
}

static struct pf_seg_report rep;

static const struct pf_seg_report *report(const char *lv_name)
{
	const struct pf_vg_lv *lv = pf_vg_find_lv(vg, lv_name);

	ck_assert_ptr_nonnull(lv);
	pf_seg_report_release(&rep);
	ck_assert_int_eq(pf_seg_report(vg, lv, &lv->segs[0], &rep), 0);
	return &rep;
}

static void assert_type(const struct pf_seg_report *r, const char *t)
{
	ck_assert_uint_eq(r->segtype_len, strlen(t));
	ck_assert_int_eq(memcmp(r->segtype, t, r->segtype_len), 0);
}

START_TEST(test_linear_and_striped)
{
	const struct pf_seg_report *r = report("lin");

	assert_type(r, "linear");
	ck_assert_uint_eq(r->stripes, 1);
	ck_assert_int_eq(r->data_stripes, 1);
	ck_assert_int_eq(r->data_copies, 1);
	ck_assert_int_eq(r->parity_chunks, PF_SEGREP_UNDEF);
	ck_assert_int_eq(r->reshape_len, PF_SEGREP_UNDEF);
	ck_assert_int_eq(r->zero, PF_SEGREP_UNDEF);
	ck_assert_uint_eq(r->seg_size, 2 * MIB);
	/* lin is a snapshot origin, not a COW: no chunk size */
	ck_assert_uint_eq(r->chunk_size, 0);
	ck_assert_int_eq(r->areas[0].pv_index, 0);
	ck_assert_uint_eq(r->areas[0].extents, 2);

	r = report("str");
	assert_type(r, "striped");
	ck_assert_uint_eq(r->stripes, 2);
	ck_assert_uint_eq(r->stripe_size, 32768);
	ck_assert_uint_eq(r->areas[1].start, 10);
	ck_assert_uint_eq(r->areas[1].extents, 2);
}
END_TEST

START_TEST(test_raid_levels)
{
	const struct pf_seg_report *r = report("r5");

	ck_assert_uint_eq(r->stripes, 3);
	ck_assert_int_eq(r->data_stripes, 2);
	ck_assert_int_eq(r->data_copies, 2);
	ck_assert_int_eq(r->parity_chunks, 1);
	ck_assert_int_eq(r->reshape_len, 0);
	ck_assert_uint_eq(r->stripe_size, 65536);
	ck_assert_uint_eq(r->region_size, 2097152);
	ck_assert_uint_eq(r->n_meta_areas, 3);
	ck_assert_str_eq(r->meta_areas[2].name, "r5_rmeta_2");
	ck_assert(r->areas[0].lv_hidden);
	ck_assert_uint_eq(r->areas[0].start, 0);
	ck_assert_uint_eq(r->areas[0].extents, 2);

	r = report("r6");
	ck_assert_uint_eq(r->stripes, 5);
	ck_assert_int_eq(r->data_stripes, 3);
	ck_assert_int_eq(r->data_copies, 3);
	ck_assert_int_eq(r->parity_chunks, 2);
	ck_assert_uint_eq(r->n_meta_areas, 0);

	r = report("r10");
	ck_assert_int_eq(r->data_stripes, 2);
	ck_assert_int_eq(r->data_copies, 2);
	ck_assert_int_eq(r->parity_chunks, 1);
	ck_assert_int_eq(r->reshape_len_le, 4); /* reshape_count per image */
	ck_assert_int_eq(r->reshape_len, 4 * MIB);

	r = report("r1");
	ck_assert_int_eq(r->data_stripes, 3);
	ck_assert_int_eq(r->data_copies, 3);
	ck_assert_int_eq(r->parity_chunks, 2);
	ck_assert_int_eq(r->reshape_len, PF_SEGREP_UNDEF);
	ck_assert_uint_eq(r->stripe_size, 0);

	r = report("r0");
	ck_assert_uint_eq(r->stripes, 2);
	ck_assert_int_eq(r->data_copies, 1);
	ck_assert_int_eq(r->parity_chunks, PF_SEGREP_UNDEF);
	ck_assert_uint_eq(r->region_size, 0);
}
END_TEST

/* lvm2 shows reshape space on an image's segment when its owner (by name) is reshapable. */
START_TEST(test_raid_images)
{
	ck_assert_int_eq(report("r5_rimage_1")->reshape_len, 0);
	ck_assert_int_eq(report("r5_rmeta_1")->reshape_len, PF_SEGREP_UNDEF);
	ck_assert_int_eq(report("r1_rimage_0")->reshape_len, PF_SEGREP_UNDEF);
	ck_assert_int_eq(report("r0_rimage_0")->reshape_len, PF_SEGREP_UNDEF);
}
END_TEST

START_TEST(test_mirror)
{
	const struct pf_seg_report *r = report("m");

	ck_assert_uint_eq(r->stripes, 2);
	ck_assert_int_eq(r->data_copies, 1);
	ck_assert_int_eq(r->parity_chunks, PF_SEGREP_UNDEF);
	ck_assert_uint_eq(r->region_size, 524288);
	ck_assert_int_eq(r->areas[1].pv_index, 0);
	ck_assert_uint_eq(r->areas[1].start, 63);
	ck_assert_uint_eq(r->areas[1].extents, 3);
}
END_TEST

START_TEST(test_thin)
{
	const struct pf_seg_report *r = report("tp");

	ck_assert_uint_eq(r->stripes, 1);
	ck_assert_int_eq(r->thin_count, 2);
	ck_assert_uint_eq(r->chunk_size, 131072);
	ck_assert_str_eq(r->discards, "ignore");
	ck_assert_int_eq(r->zero, 1);
	ck_assert_int_eq(r->transaction_id, 3);
	ck_assert_int_eq(r->thin_id, PF_SEGREP_UNDEF);
	ck_assert_str_eq(r->areas[0].name, "tp_tdata");

	r = report("t2");
	ck_assert_uint_eq(r->stripes, 0);
	ck_assert_int_eq(r->data_stripes, 0);
	ck_assert_int_eq(r->thin_id, 2);
	ck_assert_int_eq(r->transaction_id, 1);
	ck_assert_int_eq(r->thin_count, PF_SEGREP_UNDEF);
	ck_assert_str_eq(r->discards, "ignore");
	ck_assert_int_eq(r->zero, 1);
	ck_assert_uint_eq(r->chunk_size, 0);
}
END_TEST

START_TEST(test_cache)
{
	const struct pf_seg_report *r = report("c");

	/* the pool's missing policy, mode and format, as lvm2 fills them in */
	ck_assert_str_eq(r->cache_policy, "mq");
	ck_assert_str_eq(r->cache_mode, "writethrough");
	ck_assert_int_eq(r->cache_metadata_format, 1);
	ck_assert_uint_eq(r->chunk_size, 65536);
	ck_assert_uint_eq(r->cache_settings.n, 1);
	ck_assert_str_eq(r->cache_settings.v[0], "migration_threshold=2048");

	r = report("cp");
	assert_type(r, "cache-pool");
	ck_assert_str_eq(r->cache_policy, "mq");
	ck_assert_str_eq(r->areas[0].name, "cp_cdata");

	r = report("wc");
	ck_assert_str_eq(r->cache_policy, "");
	ck_assert_int_eq(r->cache_metadata_format, PF_SEGREP_UNDEF);
	ck_assert_uint_eq(r->cache_settings.n, 2);
	ck_assert_str_eq(r->cache_settings.v[0], "high_watermark=50");
	ck_assert_str_eq(r->cache_settings.v[1], "writeback_jobs=1024");
	ck_assert_str_eq(r->areas[0].name, "wc_wcorig");
}
END_TEST

START_TEST(test_vdo_and_snapshot)
{
	const struct pf_seg_report *r = report("v");

	ck_assert(r->has_vdo);
	ck_assert_int_eq(r->vdo.compression, 1);
	ck_assert_int_eq(r->vdo.deduplication, 0);
	ck_assert_uint_eq(r->vdo.minimum_io_size, 4096);
	ck_assert_uint_eq(r->vdo.block_map_cache_size, 128U * MIB);
	ck_assert_uint_eq(r->vdo.slab_size, 2048ULL * MIB);
	ck_assert_uint_eq(r->vdo.header_size, 262144);
	ck_assert_uint_eq(r->vdo.bio_threads, 4);
	ck_assert_str_eq(r->vdo.write_policy, "auto");
	ck_assert_str_eq(r->areas[0].name, "vp");
	ck_assert_uint_eq(r->areas[0].extents, 6);

	r = report("snap");
	ck_assert_uint_eq(r->chunk_size, 4096);

	r = report("z");
	ck_assert_uint_eq(r->stripes, 0);
	ck_assert_int_eq(r->data_stripes, 0);
	ck_assert(!r->has_vdo);
}
END_TEST

START_TEST(test_odd_metadata)
{
	const struct pf_seg_report *r = report("odd_raid");

	ck_assert_uint_eq(r->n_areas, 0);
	ck_assert_uint_eq(r->n_meta_areas, 3);
	ck_assert_int_eq(r->data_stripes, 0);
	r = report("odd_mirror");
	ck_assert_uint_eq(r->n_areas, 1);
	r = report("odd_thin");
	ck_assert_int_eq(r->thin_id, 0);
	ck_assert_str_eq(r->discards, "");
	ck_assert_int_eq(r->zero, PF_SEGREP_UNDEF);
}
END_TEST

static const char *attr(const char *lv_name, const bool *missing)
{
	static char a[PF_LV_ATTR_LEN + 1];
	const struct pf_vg_lv *lv = pf_vg_find_lv(vg, lv_name);

	ck_assert_ptr_nonnull(lv);
	ck_assert_int_eq(pf_lv_attr(vg, lv, missing, a), 0);
	return a;
}

/* lv_attr as lvm2 2.03.16 showed it for these roles with --driverloaded n. */
START_TEST(test_lv_attr)
{
	bool missing[1] = { true };

	ck_assert_str_eq(attr("lin", NULL), "owi-XXs---");	/* snapshot origin */
	ck_assert_str_eq(attr("snap", NULL), "swi-XXs---");
	ck_assert_str_eq(attr("str", NULL), "-wi-XX----");
	ck_assert_str_eq(attr("r5", NULL), "rwi-XXr-X-");
	ck_assert_str_eq(attr("r5_rimage_0", NULL), "Iwi-XXr-X-");
	ck_assert_str_eq(attr("r5_rmeta_0", NULL), "ewi-XXr-X-");
	ck_assert_str_eq(attr("m", NULL), "mwi-XXm---");
	ck_assert_str_eq(attr("tp", NULL), "twi-XXtz--");
	ck_assert_str_eq(attr("tp_tmeta", NULL), "ewi-XX----");
	ck_assert_str_eq(attr("tp_tdata", NULL), "Twi-XX----");
	ck_assert_str_eq(attr("t2", NULL), "Vwi-XXtz--");
	ck_assert_str_eq(attr("c", NULL), "Cwi-XXC---");
	ck_assert_str_eq(attr("c_corig", NULL), "owi-XXC---");
	ck_assert_str_eq(attr("cp_cdata", NULL), "Cwi-XX----");
	ck_assert_str_eq(attr("fast_cvol", NULL), "Cwi-XXC---");
	ck_assert_str_eq(attr("wc_wcorig", NULL), "owi-XXC---");
	ck_assert_str_eq(attr("vp", NULL), "dwi-XX----");
	ck_assert_str_eq(attr("vp_vdata", NULL), "Dwi-XX----");
	ck_assert_str_eq(attr("v", NULL), "vwi-XXv---");
	ck_assert_str_eq(attr("z", NULL), "vwi-XXv---");
	/* on a PV that was not found: partial */
	ck_assert_str_eq(attr("str", missing), "-wi-XX--p-");
	ck_assert_str_eq(attr("t2", missing), "Vwi-XXtzp-");
	ck_assert_str_eq(attr("z", missing), "vwi-XXv---");
}
END_TEST

static void release_report(void)
{
	pf_seg_report_release(&rep);
	teardown();
}

static Suite *make_suite(void)
{
	Suite *s = suite_create("segreport");
	TCase *tc = pf_unit_tcase("segreport");

	tcase_add_checked_fixture(tc, setup, release_report);
	tcase_add_test(tc, test_linear_and_striped);
	tcase_add_test(tc, test_raid_levels);
	tcase_add_test(tc, test_raid_images);
	tcase_add_test(tc, test_mirror);
	tcase_add_test(tc, test_thin);
	tcase_add_test(tc, test_cache);
	tcase_add_test(tc, test_vdo_and_snapshot);
	tcase_add_test(tc, test_lv_attr);
	tcase_add_test(tc, test_odd_metadata);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
