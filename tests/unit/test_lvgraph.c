/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The LV graph: roles, top-level LVs, holders, partial LVs and active components of a VG as
 * lvm2 2.03.16 derives them from its metadata. The verdicts built on it are test_aapolicy.c's.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "aavg.h"
#include "activate/lvgraph.h"
#include "format/vg.h"
#include "unit.h"

#define I(name) ((unsigned)aa_idx(vg, name))

static void build_graph(const struct pf_vg *vg, const bool *present, const bool *active,
			struct pf_lvgraph *g)
{
	ck_assert_int_eq(pf_lvgraph_build(vg, present, active, g), 0);
	ck_assert_uint_eq(g->n, vg->n_lvs);
}

/* flags[] (one per LV) is set for exactly the LVs named. */
static void check_set(const struct pf_vg *vg, const bool *flags, const char *const *names,
		      size_t n)
{
	unsigned set = 0;

	for (size_t i = 0; i < n; i++)
		ck_assert_msg(flags[I(names[i])], "%s", names[i]);
	for (unsigned l = 0; l < vg->n_lvs; l++)
		set += flags[l];
	ck_assert_uint_eq(set, n);
}

START_TEST(test_roles)
{
	struct pf_vg *vg = aa_build(&aa_kind_vg);
	struct pf_lvgraph g;

	build_graph(vg, NULL, NULL, &g);
	ck_assert_uint_eq(g.role[I("snapshot0")], PF_LVGRAPH_SNAPSHOT);
	ck_assert_uint_eq(g.role[I("lin")], PF_LVGRAPH_ORIGIN);
	ck_assert_uint_eq(g.role[I("snap")], PF_LVGRAPH_COW);
	ck_assert_uint_eq(g.role[I("snapm")], PF_LVGRAPH_COW | PF_LVGRAPH_MERGING_COW);
	ck_assert_uint_eq(g.role[I("lvol0_vorigin")], PF_LVGRAPH_ORIGIN);
	ck_assert_uint_eq(g.role[I("tp")], PF_LVGRAPH_THIN_POOL);
	ck_assert_uint_eq(g.role[I("th")], PF_LVGRAPH_THIN);
	ck_assert_uint_eq(g.role[I("tp_tdata")], PF_LVGRAPH_COMPONENT);
	ck_assert_uint_eq(g.role[I("r1")], PF_LVGRAPH_RAID);
	ck_assert_uint_eq(g.role[I("r1_rmeta_0")], PF_LVGRAPH_COMPONENT);
	ck_assert_uint_eq(g.role[I("r1_rimage_0")], PF_LVGRAPH_COMPONENT | PF_LVGRAPH_RAID_IMAGE);
	ck_assert_uint_eq(g.role[I("r0_rimage_1")], PF_LVGRAPH_COMPONENT | PF_LVGRAPH_RAID_IMAGE);
	ck_assert_uint_eq(g.role[I("m1_mimage_1")],
			  PF_LVGRAPH_COMPONENT | PF_LVGRAPH_MIRROR_IMAGE);
	ck_assert_uint_eq(g.role[I("c1_corig")], PF_LVGRAPH_COMPONENT);
	ck_assert_uint_eq(g.role[I("cp2")], PF_LVGRAPH_CACHE_POOL);
	ck_assert_uint_eq(g.role[I("u1")], PF_LVGRAPH_UNKNOWN_SEG);
	ck_assert_uint_eq(g.role[I("vpool0")], PF_LVGRAPH_VDO_POOL);
	ck_assert_uint_eq(g.role[I("vpool0_vdata")], PF_LVGRAPH_COMPONENT);

	ck_assert(pf_lvgraph_is_cow(&g, I("snap")));
	ck_assert(pf_lvgraph_is_cow(&g, I("sp")));
	ck_assert(!pf_lvgraph_is_cow(&g, I("lin")));
	ck_assert_int_eq(g.cow_origin[I("snap")], (int)I("lin"));
	ck_assert_int_eq(g.cow_origin[I("lin")], -1);
	ck_assert(pf_lvgraph_is_virtual_origin(&g, (int)I("lvol0_vorigin")));
	ck_assert(!pf_lvgraph_is_virtual_origin(&g, (int)I("lin")));
	ck_assert(!pf_lvgraph_is_virtual_origin(&g, -1));
	/* th names its pool, which lvm2 follows; a snapshot's names it does not */
	ck_assert_uint_eq(g.ref_start[I("th") + 1] - g.ref_start[I("th")], 1);
	ck_assert(g.ref_sub[g.ref_start[I("th")]]);
	ck_assert(!g.ref_sub[g.ref_start[I("snapshot0")]]);
	pf_lvgraph_release(&g);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_visible_holders)
{
	static const char *const top[] = { "lin", "z",	 "e",	"r0",  "snap", "tp",
					   "th",  "r1",	 "m1",	"c1",  "sp",   "cp2",
					   "lin3", "u1", "vpool0", "vdo0" };
	struct pf_vg *vg = aa_build(&aa_kind_vg);
	struct pf_lvgraph g;

	build_graph(vg, NULL, NULL, &g);
	check_set(vg, g.visible, top, ARRAY_SIZE(top));
	/* the COW of a visible origin comes up with it; a sparse COW brings its origin */
	ck_assert_int_eq(g.holder[I("snap")], (int)I("lin"));
	ck_assert_int_eq(g.holder[I("snapshot0")], (int)I("lin"));
	ck_assert_int_eq(g.holder[I("lvol0_vorigin")], (int)I("sp"));
	ck_assert_int_eq(g.holder[I("snapshot1")], (int)I("lvol0_vorigin"));
	ck_assert_int_eq(g.holder[I("sp")], -1);
	ck_assert_int_eq(g.holder[I("tp_tmeta")], (int)I("tp"));
	ck_assert_int_eq(g.holder[I("cp")], (int)I("c1"));
	ck_assert_int_eq(g.holder[I("tp")], -1);
	ck_assert_int_eq(g.holder[I("lvol0_pmspare")], -1);
	pf_lvgraph_release(&g);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_partial)
{
	/* on pv1, then what uses them (an origin and its COW depend on each other) */
	static const char *const want[] = {
		"snap",	       "tp_tdata",     "r1_rimage_0", "r1_rimage_1", "m1_mimage_1",
		"r0_rimage_1", "lvol0_pmspare", "cp2_cdata",  "cp2_cmeta",   "vpool0_vdata",
		"lin",	       "snapshot0",    "tp",	      "th",	     "r1",
		"m1",	       "r0",	       "cp2",	      "vpool0",	     "vdo0",
	};
	struct tvg t = aa_kind_vg;
	const bool present[] = { true, false };
	struct pf_vg *vg = aa_build(&t);
	struct pf_lvgraph g;

	build_graph(vg, present, NULL, &g);
	check_set(vg, g.partial, want, ARRAY_SIZE(want));
	pf_lvgraph_release(&g);
	pf_vg_free(vg);

	/* a MISSING flag on a present PV counts the same */
	t.pv_flags[1] = "MISSING";
	vg = aa_build(&t);
	build_graph(vg, NULL, NULL, &g);
	check_set(vg, g.partial, want, ARRAY_SIZE(want));
	pf_lvgraph_release(&g);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_pv_used)
{
	const struct tvg one = { .lvs = aa_kind_vg.lvs, .n_lvs = 1 }; /* lin, on pv0 */
	struct pf_vg *vg = aa_build(&one);
	struct pf_lvgraph g;

	build_graph(vg, NULL, NULL, &g);
	ck_assert(g.pv_used[0]);
	ck_assert(!g.pv_used[1]);
	pf_lvgraph_release(&g);
	pf_vg_free(vg);
	vg = aa_build(&aa_kind_vg);
	build_graph(vg, NULL, NULL, &g);
	ck_assert(g.pv_used[0] && g.pv_used[1]);
	pf_lvgraph_release(&g);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_active_component)
{
	struct pf_vg *vg = aa_build(&aa_kind_vg);
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
	static const char *const sub[] = { "r1_rmeta_1", "r1_rimage_1", "r1_rimage_1" };
	static const char *const status[] = { "RV", "RWV", "RV" };
	_cleanup_free_ struct tlv *lvs = calloc(aa_kind_vg.n_lvs, sizeof(*lvs));
	struct tvg t = aa_kind_vg;
	struct pf_vg *vg = aa_build(&t);
	struct pf_lvgraph g;

	ck_assert_ptr_nonnull(lvs);
	build_graph(vg, NULL, NULL, &g);
	ck_assert(!pf_lvgraph_raid_visible_sublvs(&g, I("r1")));
	ck_assert(!pf_lvgraph_raid_visible_sublvs(&g, I("lin")));
	pf_lvgraph_release(&g);

	/* a visible metadata LV, or a visible writable image, is refused */
	memcpy(lvs, aa_kind_vg.lvs, aa_kind_vg.n_lvs * sizeof(*lvs));
	t.lvs = lvs;
	for (size_t k = 0; k < ARRAY_SIZE(sub); k++) {
		unsigned s = I(sub[k]);

		lvs[s].status = status[k];
		pf_vg_free(vg);
		vg = aa_build(&t);
		build_graph(vg, NULL, NULL, &g);
		ck_assert_int_eq(pf_lvgraph_raid_visible_sublvs(&g, I("r1")), k < 2);
		pf_lvgraph_release(&g);
		lvs[s] = aa_kind_vg.lvs[s];
	}
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_integrity_recalc)
{
	struct pf_vg *vg = aa_build(&aa_integrity_vg);
	struct pf_lvgraph g;

	build_graph(vg, NULL, NULL, &g);
	ck_assert(pf_lvgraph_integrity_recalc(&g, I("ig")));
	ck_assert(pf_lvgraph_integrity_recalc(&g, I("rv")));
	ck_assert(!pf_lvgraph_integrity_recalc(&g, I("a")));
	ck_assert(!pf_lvgraph_integrity_recalc(&g, I("ig_iorig")));
	ck_assert(!pf_lvgraph_integrity_recalc(&g, I("rv_rimage_0_iorig")));
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
	TCase *tc = pf_unit_tcase("core");

	tcase_add_test(tc, test_roles);
	tcase_add_test(tc, test_visible_holders);
	tcase_add_test(tc, test_partial);
	tcase_add_test(tc, test_pv_used);
	tcase_add_test(tc, test_active_component);
	tcase_add_test(tc, test_raid_visible_sublvs);
	tcase_add_test(tc, test_integrity_recalc);
	tcase_add_test(tc, test_empty_and_release);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
