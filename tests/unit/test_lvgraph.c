/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The LV graph: roles, top-level LVs, holders, partial LVs and active components of a VG as
 * lvm2 2.03.16 derives them from its metadata. The verdicts built on it are test_aapolicy.c's.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "activate/lvgraph.h"
#include "aavg.h"
#include "unit.h"
#include "format/vg.h"

static const struct tlv graph_lvs[] = {
	{ "lin", "RWV", NULL, NULL, LIN("pv0", 0) },
	{ "snap", "RW", NULL, NULL, LIN("pv1", 0) },
	{ "snapshot0", "RWV", NULL, NULL,
	  "type = \"snapshot\"\nchunk_size = 8\norigin = \"lin\"\ncow_store = \"snap\"" },
	{ "sp", "RW", NULL, NULL, LIN("pv0", 1) },
	{ "vorig", "RW", NULL, NULL, "type = \"zero\"" },
	{ "snapshot1", "RWV", NULL, NULL,
	  "type = \"snapshot\"\nchunk_size = 8\norigin = \"vorig\"\ncow_store = \"sp\"" },
	{ "tp", "RWV", NULL, NULL,
	  "type = \"thin-pool\"\nmetadata = \"tp_tmeta\"\npool = \"tp_tdata\"\n"
	  "transaction_id = 1\nchunk_size = 128" },
	{ "th", "RWV", NULL, NULL,
	  "type = \"thin\"\nthin_pool = \"tp\"\ntransaction_id = 0\ndevice_id = 1" },
	{ "tp_tdata", "RW", NULL, NULL, LIN("pv0", 2) },
	{ "tp_tmeta", "RW", NULL, NULL, LIN("pv0", 3) },
	{ "r1", "RWV", NULL, NULL,
	  "type = \"raid1\"\ndevice_count = 2\nregion_size = 4096\n"
	  "raids = [\"r1_rmeta_0\", \"r1_rimage_0\", \"r1_rmeta_1\", \"r1_rimage_1\"]" },
	{ "r1_rmeta_0", "RW", NULL, NULL, LIN("pv0", 4) },
	{ "r1_rimage_0", "RW", NULL, NULL, LIN("pv1", 1) },
	{ "r1_rmeta_1", "RW", NULL, NULL, LIN("pv0", 5) },
	{ "r1_rimage_1", "RW", NULL, NULL, LIN("pv0", 6) },
	{ "m1", "RWV", NULL, NULL,
	  "type = \"mirror\"\nmirror_count = 2\nregion_size = 1024\n"
	  "mirrors = [\"m1_mimage_0\", 0, \"m1_mimage_1\", 0]" },
	{ "m1_mimage_0", "RW", NULL, NULL, LIN("pv0", 7) },
	{ "m1_mimage_1", "RW", NULL, NULL, LIN("pv0", 8) },
	{ "u1", "RWV", NULL, NULL, "type = \"frobnicate\"\nwhatever = 1" },
	{ "vpool0", "RWV", NULL, NULL, "type = \"vdo-pool\"\ndata = \"vpool0_vdata\"" },
	{ "vpool0_vdata", "RW", NULL, NULL, LIN("pv0", 9) },
};

static const struct tvg graph_vg = {
	.name = "vgg", .lvs = graph_lvs, .n_lvs = ARRAY_SIZE(graph_lvs),
};

#define I(name) ((unsigned)aa_idx(vg, name))

static void build_graph(const struct pf_vg *vg, const bool *present, const bool *active,
			struct pf_lvgraph *g)
{
	ck_assert_int_eq(pf_lvgraph_build(vg, present, active, g), 0);
	ck_assert_uint_eq(g->n, vg->n_lvs);
}

START_TEST(test_roles)
{
	struct pf_vg *vg = aa_build(&graph_vg);
	struct pf_lvgraph g;

	build_graph(vg, NULL, NULL, &g);
	ck_assert_uint_eq(g.role[I("snapshot0")], PF_LVGRAPH_SNAPSHOT);
	ck_assert_uint_eq(g.role[I("lin")], PF_LVGRAPH_ORIGIN);
	ck_assert_uint_eq(g.role[I("snap")], PF_LVGRAPH_COW);
	ck_assert_uint_eq(g.role[I("vorig")], PF_LVGRAPH_ORIGIN);
	ck_assert_uint_eq(g.role[I("tp")], PF_LVGRAPH_THIN_POOL);
	ck_assert_uint_eq(g.role[I("th")], PF_LVGRAPH_THIN);
	ck_assert_uint_eq(g.role[I("tp_tdata")], PF_LVGRAPH_COMPONENT);
	ck_assert_uint_eq(g.role[I("r1")], PF_LVGRAPH_RAID);
	ck_assert_uint_eq(g.role[I("r1_rmeta_0")], PF_LVGRAPH_COMPONENT);
	ck_assert_uint_eq(g.role[I("r1_rimage_0")], PF_LVGRAPH_COMPONENT | PF_LVGRAPH_RAID_IMAGE);
	ck_assert_uint_eq(g.role[I("m1_mimage_1")],
			  PF_LVGRAPH_COMPONENT | PF_LVGRAPH_MIRROR_IMAGE);
	ck_assert_uint_eq(g.role[I("u1")], PF_LVGRAPH_UNKNOWN_SEG);
	ck_assert_uint_eq(g.role[I("vpool0")], PF_LVGRAPH_VDO_POOL);
	ck_assert_uint_eq(g.role[I("vpool0_vdata")], PF_LVGRAPH_COMPONENT);

	ck_assert(pf_lvgraph_is_cow(&g, I("snap")));
	ck_assert(pf_lvgraph_is_cow(&g, I("sp")));
	ck_assert(!pf_lvgraph_is_cow(&g, I("lin")));
	ck_assert_int_eq(g.cow_origin[I("snap")], (int)I("lin"));
	ck_assert_int_eq(g.cow_origin[I("lin")], -1);
	ck_assert(pf_lvgraph_is_virtual_origin(&g, (int)I("vorig")));
	ck_assert(!pf_lvgraph_is_virtual_origin(&g, (int)I("lin")));
	ck_assert(!pf_lvgraph_is_virtual_origin(&g, -1));
	/* th names its pool, which lvm2 does not descend into from the thin LV */
	ck_assert_uint_eq(g.ref_start[I("th") + 1] - g.ref_start[I("th")], 1);
	ck_assert(g.ref_sub[g.ref_start[I("th")]]);
	ck_assert(!g.ref_sub[g.ref_start[I("snapshot0")]]);
	pf_lvgraph_release(&g);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_visible_holders)
{
	static const char *const top[] = { "lin", "snap", "sp", "tp", "th", "r1", "m1", "u1",
					   "vpool0" };
	struct pf_vg *vg = aa_build(&graph_vg);
	struct pf_lvgraph g;
	unsigned n_top = 0;

	build_graph(vg, NULL, NULL, &g);
	for (size_t i = 0; i < ARRAY_SIZE(top); i++)
		ck_assert_msg(g.visible[I(top[i])], "%s", top[i]);
	for (unsigned l = 0; l < g.n; l++)
		n_top += g.visible[l];
	ck_assert_uint_eq(n_top, ARRAY_SIZE(top));
	/* the COW of a visible origin comes up with it; a sparse COW brings its origin */
	ck_assert_int_eq(g.holder[I("snap")], (int)I("lin"));
	ck_assert_int_eq(g.holder[I("snapshot0")], (int)I("lin"));
	ck_assert_int_eq(g.holder[I("vorig")], (int)I("sp"));
	ck_assert_int_eq(g.holder[I("snapshot1")], (int)I("vorig"));
	ck_assert_int_eq(g.holder[I("sp")], -1);
	ck_assert_int_eq(g.holder[I("tp_tmeta")], (int)I("tp"));
	ck_assert_int_eq(g.holder[I("r1_rimage_1")], (int)I("r1"));
	ck_assert_int_eq(g.holder[I("vpool0_vdata")], (int)I("vpool0"));
	ck_assert_int_eq(g.holder[I("tp")], -1);
	ck_assert_int_eq(g.holder[I("lin")], -1);
	pf_lvgraph_release(&g);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_partial)
{
	static const char *const want[] = { "lin", "snap", "snapshot0", "r1", "r1_rimage_0" };
	struct tvg t = graph_vg;
	const bool present[] = { true, false };
	struct pf_vg *vg = aa_build(&t);
	struct pf_lvgraph g;
	unsigned n = 0;

	build_graph(vg, present, NULL, &g);
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		ck_assert_msg(g.partial[I(want[i])], "%s", want[i]);
	for (unsigned l = 0; l < g.n; l++)
		n += g.partial[l];
	ck_assert_uint_eq(n, ARRAY_SIZE(want));
	ck_assert(g.pv_used[0] && g.pv_used[1]);
	pf_lvgraph_release(&g);
	pf_vg_free(vg);

	/* a MISSING flag on a present PV counts the same */
	t.pv_flags[1] = "MISSING";
	vg = aa_build(&t);
	build_graph(vg, NULL, NULL, &g);
	ck_assert(g.partial[I("r1")] && g.partial[I("lin")] && !g.partial[I("th")]);
	pf_lvgraph_release(&g);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_pv_unused)
{
	const struct tvg t = { .lvs = graph_lvs, .n_lvs = 1 }; /* lin, on pv0 */
	struct pf_vg *vg = aa_build(&t);
	struct pf_lvgraph g;

	build_graph(vg, NULL, NULL, &g);
	ck_assert(g.pv_used[0]);
	ck_assert(!g.pv_used[1]);
	ck_assert(!g.partial[0]);
	pf_lvgraph_release(&g);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_active_component)
{
	struct pf_vg *vg = aa_build(&graph_vg);
	_cleanup_free_ bool *active = calloc(vg->n_lvs, sizeof(*active));
	struct pf_lvgraph g;
	int c;

	ck_assert_ptr_nonnull(active);
	/* nothing hidden is active: no walk at all */
	active[I("lin")] = true;
	build_graph(vg, NULL, active, &g);
	ck_assert(!g.any_hidden_active);
	ck_assert_int_eq(pf_lvgraph_active_component(&g, I("r1"), &c), 0);
	ck_assert_int_eq(c, -1);
	ck_assert_uint_eq(g.walk, 0);
	pf_lvgraph_release(&g);

	/* a raid image active on its own is in the raid's way; not in the mirror's */
	active[I("r1_rimage_1")] = true;
	build_graph(vg, NULL, active, &g);
	ck_assert(g.any_hidden_active);
	ck_assert_int_eq(pf_lvgraph_active_component(&g, I("r1"), &c), 0);
	ck_assert_int_eq(c, (int)I("r1_rimage_1"));
	ck_assert_int_eq(pf_lvgraph_active_component(&g, I("m1"), &c), 0);
	ck_assert_int_eq(c, -1);
	ck_assert_uint_eq(g.walk, 2);
	pf_lvgraph_release(&g);

	/* a thin pool whose thin LV is active is in use: lvm2 checks nothing below it */
	active[I("r1_rimage_1")] = false;
	active[I("tp_tdata")] = true;
	active[I("th")] = true;
	build_graph(vg, NULL, active, &g);
	ck_assert(g.pool_in_use[I("tp")]);
	ck_assert_int_eq(pf_lvgraph_active_component(&g, I("tp"), &c), 0);
	ck_assert_int_eq(c, -1);
	pf_lvgraph_release(&g);
	active[I("th")] = false;
	build_graph(vg, NULL, active, &g);
	ck_assert(!g.pool_in_use[I("tp")]);
	ck_assert_int_eq(pf_lvgraph_active_component(&g, I("tp"), &c), 0);
	ck_assert_int_eq(c, (int)I("tp_tdata"));
	pf_lvgraph_release(&g);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_raid_visible_sublvs)
{
	struct tlv lvs[ARRAY_SIZE(graph_lvs)];
	struct tvg t = graph_vg;
	struct pf_vg *vg = aa_build(&t);
	struct pf_lvgraph g;

	build_graph(vg, NULL, NULL, &g);
	ck_assert(!pf_lvgraph_raid_visible_sublvs(&g, I("r1")));
	ck_assert(!pf_lvgraph_raid_visible_sublvs(&g, I("lin")));
	pf_lvgraph_release(&g);
	pf_vg_free(vg);

	/* a visible metadata LV, or a visible writable image, is refused */
	memcpy(lvs, graph_lvs, sizeof(lvs));
	t.lvs = lvs;
	for (int k = 0; k < 3; k++) {
		static const char *const sub[] = { "r1_rmeta_1", "r1_rimage_1", "r1_rimage_1" };
		static const char *const status[] = { "RV", "RWV", "RV" };
		unsigned s = 0;

		while (strcmp(graph_lvs[s].name, sub[k]) != 0)
			s++;
		lvs[s].status = status[k];
		vg = aa_build(&t);
		build_graph(vg, NULL, NULL, &g);
		ck_assert_int_eq(pf_lvgraph_raid_visible_sublvs(&g, I("r1")), k < 2);
		pf_lvgraph_release(&g);
		pf_vg_free(vg);
		lvs[s] = graph_lvs[s];
	}
}
END_TEST

START_TEST(test_integrity_recalc)
{
	static const struct tlv lvs[] = {
		{ "ig", "RWV", NULL, NULL,
		  "type = \"integrity\"\norigin = \"ig_iorig\"\nrecalculate = 1" },
		{ "ig_iorig", "RW", NULL, NULL, NULL },
		{ "ok", "RWV", NULL, NULL,
		  "type = \"integrity\"\norigin = \"ok_iorig\"\nrecalculate = 0" },
		{ "ok_iorig", "RW", NULL, NULL, NULL },
		{ "rv", "RWV", NULL, NULL,
		  "type = \"raid1\"\nraids = [\"rv_rmeta_0\", \"rv_rimage_0\"]" },
		{ "rv_rmeta_0", "RW", NULL, NULL, NULL },
		{ "rv_rimage_0", "RW", NULL, NULL,
		  "type = \"integrity\"\norigin = \"rv_rimage_0_iorig\"\nrecalculate = 1" },
		{ "rv_rimage_0_iorig", "RW", NULL, NULL, NULL },
	};
	const struct tvg t = { .lvs = lvs, .n_lvs = ARRAY_SIZE(lvs) };
	struct pf_vg *vg = aa_build(&t);
	struct pf_lvgraph g;

	build_graph(vg, NULL, NULL, &g);
	ck_assert(pf_lvgraph_integrity_recalc(&g, I("ig")));
	ck_assert(!pf_lvgraph_integrity_recalc(&g, I("ok")));
	ck_assert(pf_lvgraph_integrity_recalc(&g, I("rv")));
	ck_assert(!pf_lvgraph_integrity_recalc(&g, I("ig_iorig")));
	pf_lvgraph_release(&g);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_empty_and_release)
{
	const struct tvg t = { .n_pvs = 1 };
	struct pf_vg *vg = aa_build(&t);
	struct pf_lvgraph g;

	build_graph(vg, NULL, NULL, &g);
	ck_assert_uint_eq(g.n_refs, 0);
	ck_assert(!g.pv_used[0]);
	pf_lvgraph_release(&g);
	pf_lvgraph_release(&g); /* released twice: nothing left to free */
	pf_lvgraph_release(NULL);
	pf_vg_free(vg);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("lvgraph");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_roles);
	tcase_add_test(tc, test_visible_holders);
	tcase_add_test(tc, test_partial);
	tcase_add_test(tc, test_pv_unused);
	tcase_add_test(tc, test_active_component);
	tcase_add_test(tc, test_raid_visible_sublvs);
	tcase_add_test(tc, test_integrity_recalc);
	tcase_add_test(tc, test_empty_and_release);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
