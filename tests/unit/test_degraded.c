/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Degraded activation's decision (lib/activate/degraded.c): VG state + time + setting ->
 * action. The raid rules are lvm2 2.03.16's partial_raid_lv_supports_degraded_activation()
 * and _lv_activate() (raid_manip.c, activate.c), read for what they decide; raid0 is the one
 * place this decision is stricter than lvm2 (see degraded.h).
 */
#include "config.h"

#include <string.h>

#include "activate/degraded.h"
#include "aavg.h"
#include "format/vg.h"
#include "unit.h"

#define SEC 1000000000ULL

/* A raid LV's segment: type, then its "raids" list of metadata/image pairs. */
#define RAID(type, list) "type = \"" type "\"\nregion_size = 1024\nraids = [" list "]"
#define PAIR(lv, i) "\"" lv "_rmeta_" #i "\", \"" lv "_rimage_" #i "\""

/* raid1 r1 over pv0/pv1, a linear LV on pv0, one spanning pv0 and pv2, one on pv3. */
static const struct tlv mixed_lvs[] = {
	{ "r1", "RWV", NULL, NULL, RAID("raid1", PAIR("r1", 0) ", " PAIR("r1", 1)) },
	{ "r1_rmeta_0", "RW", NULL, NULL, LIN("pv0", 0) },
	{ "r1_rimage_0", "RW", NULL, NULL, LIN("pv0", 1) },
	{ "r1_rmeta_1", "RW", NULL, NULL, LIN("pv1", 0) },
	{ "r1_rimage_1", "RW", NULL, NULL, LIN("pv1", 1) },
	{ "lin", "RWV", NULL, NULL, LIN("pv0", 2) },
	{ "span", "RWV", NULL, NULL,
	  "extent_count = 2\ntype = \"striped\"\nstripe_count = 2\nstripe_size = 128\n"
	  "stripes = [\"pv0\", 3, \"pv2\", 0]" },
	{ "far", "RWV", NULL, NULL, LIN("pv3", 0) },
};

static const struct tvg mixed_vg = {
	.name = "vgr", .n_pvs = 4, .lvs = mixed_lvs, .n_lvs = ARRAY_SIZE(mixed_lvs),
};

/* Decide with the deadline 30 s after 100 s, now at now_s, the setting on unless off. */
static struct pf_degraded decide_at(const struct pf_vg *vg, const bool *present, unsigned now_s,
				    bool claimed, bool on)
{
	struct pf_aapolicy_input pol = { .pv_present = present };
	struct pf_degraded_input in = { .vg = vg, .policy = &pol, .enabled = on,
					.timeout_sec = 30, .first_seen_ns = 100 * SEC,
					.now_ns = now_s * SEC, .claimed = claimed };
	struct pf_degraded d;

	ck_assert_int_eq(pf_degraded_decide(&in, &d), 0);
	return d;
}

static struct pf_degraded decide(const struct pf_vg *vg, const bool *present)
{
	return decide_at(vg, present, 131, false, true);
}

static enum pf_degraded_lv lv_of(const struct pf_vg *vg, const struct pf_degraded *d,
				 const char *name)
{
	ck_assert_ptr_nonnull(d->lvs);
	return d->lvs[aa_idx(vg, name)];
}

START_TEST(test_setting_time_claim)
{
	struct pf_vg *vg = aa_build(&mixed_vg);
	const bool one_gone[] = { true, false, true, true }, all[] = { true, true, true, true };
	struct pf_degraded d;

	/* off: lvm2's behaviour whatever the time */
	d = decide_at(vg, one_gone, 10000, false, false);
	ck_assert_int_eq(d.action, PF_DEGRADED_OFF);
	ck_assert_ptr_null(d.lvs);
	/* complete: never degraded, before or after the deadline, claimed or not */
	d = decide_at(vg, all, 131, false, true);
	ck_assert_int_eq(d.action, PF_DEGRADED_COMPLETE);
	d = decide_at(vg, NULL, 10000, true, true);
	ck_assert_int_eq(d.action, PF_DEGRADED_COMPLETE);
	/* claimed by a normal activation (or a check that ran first): leave it */
	d = decide_at(vg, one_gone, 10000, true, true);
	ck_assert_int_eq(d.action, PF_DEGRADED_CLAIMED);
	/* the deadline: first seen at 100 s, 30 s timeout */
	d = decide_at(vg, one_gone, 100, false, true);
	ck_assert_int_eq(d.action, PF_DEGRADED_WAIT);
	ck_assert_uint_eq(d.deadline_ns, 130 * SEC);
	ck_assert_uint_eq(d.n_missing_pvs, 1);
	d = decide_at(vg, one_gone, 129, false, true);
	ck_assert_int_eq(d.action, PF_DEGRADED_WAIT);
	d = decide_at(vg, one_gone, 130, false, true);
	ck_assert_int_eq(d.action, PF_DEGRADED_ACTIVATE);
	pf_degraded_release(&d);
	/* a timer firing long after, or twice, decides the same */
	d = decide_at(vg, one_gone, 99999, false, true);
	ck_assert_int_eq(d.action, PF_DEGRADED_ACTIVATE);
	pf_degraded_release(&d);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_raid1_leg_lost)
{
	struct pf_vg *vg = aa_build(&mixed_vg);
	const bool pv1_gone[] = { true, false, true, true };
	struct pf_degraded d = decide(vg, pv1_gone);
	char why[256];

	ck_assert_int_eq(d.action, PF_DEGRADED_ACTIVATE);
	ck_assert_int_eq(lv_of(vg, &d, "r1"), PF_DEGRADED_LV_REDUNDANT);
	ck_assert_int_eq(lv_of(vg, &d, "lin"), PF_DEGRADED_LV_COMPLETE);
	ck_assert_int_eq(lv_of(vg, &d, "span"), PF_DEGRADED_LV_COMPLETE);
	ck_assert_int_eq(lv_of(vg, &d, "r1_rimage_1"), PF_DEGRADED_LV_NONE); /* hidden */
	ck_assert_uint_eq(d.n_redundant, 1);
	ck_assert_uint_eq(d.n_complete, 3);
	ck_assert_uint_eq(d.n_refused, 0);
	ck_assert_str_eq(pf_degraded_describe(&d, vg, why, sizeof(why)),
			 "raid LV runs degraded: LV r1 keeps enough legs (1 of 4 PVs missing; LVs: "
			 "3 complete, 1 degraded, 0 refused)");
	pf_degraded_release(&d);
	pf_degraded_release(&d); /* twice: nothing left */

	/* a linear LV that needs the missing PV is refused by lvm2; the raid still comes up */
	const bool pv1_pv2_gone[] = { true, false, false, true };

	d = decide(vg, pv1_pv2_gone);
	ck_assert_int_eq(d.action, PF_DEGRADED_ACTIVATE);
	ck_assert_int_eq(lv_of(vg, &d, "span"), PF_DEGRADED_LV_PARTIAL);
	ck_assert_uint_eq(d.n_refused, 1);
	pf_degraded_release(&d);

	/* the leg's metadata LV alone lost is the leg lost */
	const bool pv0_gone[] = { false, true, true, true };

	d = decide(vg, pv0_gone);
	ck_assert_int_eq(d.action, PF_DEGRADED_ACTIVATE);
	ck_assert_int_eq(lv_of(vg, &d, "r1"), PF_DEGRADED_LV_REDUNDANT);
	ck_assert_int_eq(lv_of(vg, &d, "lin"), PF_DEGRADED_LV_PARTIAL);
	pf_degraded_release(&d);

	/* both legs lost: nothing runs degraded; a missing PV with no raid on it: neither */
	const bool both_gone[] = { false, false, true, true }, pv3_gone[] = { true, true, true, false };

	d = decide(vg, both_gone);
	ck_assert_int_eq(d.action, PF_DEGRADED_REFUSE);
	ck_assert_int_eq(lv_of(vg, &d, "r1"), PF_DEGRADED_LV_LOST);
	ck_assert_str_eq(d.reason, "no LV can run degraded");
	pf_degraded_release(&d);
	d = decide(vg, pv3_gone);
	ck_assert_int_eq(d.action, PF_DEGRADED_REFUSE);
	ck_assert_int_eq(lv_of(vg, &d, "far"), PF_DEGRADED_LV_PARTIAL);
	pf_degraded_release(&d);
	pf_vg_free(vg);
}
END_TEST

static const struct tlv linear_lvs[] = {
	{ "data", "RWV", NULL, NULL,
	  "extent_count = 2\ntype = \"striped\"\nstripe_count = 1\nstripes = [\"pv0\", 0]\n" },
	{ "spans", "RWV", NULL, NULL,
	  "extent_count = 2\ntype = \"striped\"\nstripe_count = 2\nstripe_size = 128\n"
	  "stripes = [\"pv0\", 2, \"pv1\", 0]" },
};

/* A linear VG missing a PV never comes up, before or after its deadline. */
START_TEST(test_linear_never)
{
	const struct tvg t = { .name = "vgl", .lvs = linear_lvs, .n_lvs = ARRAY_SIZE(linear_lvs) };
	struct pf_vg *vg = aa_build(&t);
	const bool pv1_gone[] = { true, false };
	struct pf_degraded d = decide_at(vg, pv1_gone, 99999, false, true);

	ck_assert_int_eq(d.action, PF_DEGRADED_REFUSE);
	ck_assert_int_eq(lv_of(vg, &d, "spans"), PF_DEGRADED_LV_PARTIAL);
	ck_assert_int_eq(lv_of(vg, &d, "data"), PF_DEGRADED_LV_COMPLETE);
	ck_assert_uint_eq(d.n_redundant, 0);
	pf_degraded_release(&d);
	pf_vg_free(vg);
}
END_TEST

static const struct tlv levels_lvs[] = {
	{ "r5", "RWV", NULL, NULL,
	  RAID("raid5_ls", PAIR("r5", 0) ", " PAIR("r5", 1) ", " PAIR("r5", 2)) },
	{ "r5_rmeta_0", "RW", NULL, NULL, LIN("pv0", 0) },
	{ "r5_rimage_0", "RW", NULL, NULL, LIN("pv0", 1) },
	{ "r5_rmeta_1", "RW", NULL, NULL, LIN("pv1", 0) },
	{ "r5_rimage_1", "RW", NULL, NULL, LIN("pv1", 1) },
	{ "r5_rmeta_2", "RW", NULL, NULL, LIN("pv2", 0) },
	{ "r5_rimage_2", "RW", NULL, NULL, LIN("pv2", 1) },
	{ "r6", "RWV", NULL, NULL,
	  RAID("raid6_zr",
	       PAIR("r6", 0) ", " PAIR("r6", 1) ", " PAIR("r6", 2) ", " PAIR("r6", 3)) },
	{ "r6_rmeta_0", "RW", NULL, NULL, LIN("pv0", 2) },
	{ "r6_rimage_0", "RW", NULL, NULL, LIN("pv0", 3) },
	{ "r6_rmeta_1", "RW", NULL, NULL, LIN("pv1", 2) },
	{ "r6_rimage_1", "RW", NULL, NULL, LIN("pv1", 3) },
	{ "r6_rmeta_2", "RW", NULL, NULL, LIN("pv2", 2) },
	{ "r6_rimage_2", "RW", NULL, NULL, LIN("pv2", 3) },
	{ "r6_rmeta_3", "RW", NULL, NULL, LIN("pv3", 2) },
	{ "r6_rimage_3", "RW", NULL, NULL, LIN("pv3", 3) },
	{ "r10", "RWV", NULL, NULL,
	  RAID("raid10",
	       PAIR("r10", 0) ", " PAIR("r10", 1) ", " PAIR("r10", 2) ", " PAIR("r10", 3)) },
	{ "r10_rmeta_0", "RW", NULL, NULL, LIN("pv0", 4) },
	{ "r10_rimage_0", "RW", NULL, NULL, LIN("pv0", 5) },
	{ "r10_rmeta_1", "RW", NULL, NULL, LIN("pv1", 4) },
	{ "r10_rimage_1", "RW", NULL, NULL, LIN("pv1", 5) },
	{ "r10_rmeta_2", "RW", NULL, NULL, LIN("pv2", 4) },
	{ "r10_rimage_2", "RW", NULL, NULL, LIN("pv2", 5) },
	{ "r10_rmeta_3", "RW", NULL, NULL, LIN("pv3", 4) },
	{ "r10_rimage_3", "RW", NULL, NULL, LIN("pv3", 5) },
};

/* How many legs each raid level survives: raid5 one, raid6 two, raid10 one per pair. */
START_TEST(test_raid_levels)
{
	const struct tvg t = { .name = "vgl", .n_pvs = 4, .lvs = levels_lvs,
			       .n_lvs = ARRAY_SIZE(levels_lvs) };
	struct pf_vg *vg = aa_build(&t);
	const bool pv0[] = { false, true, true, true }, pv01[] = { false, false, true, true },
		   pv02[] = { false, true, false, true }, pv012[] = { false, false, false, true };
	struct pf_degraded d = decide(vg, pv0);

	ck_assert_int_eq(d.action, PF_DEGRADED_ACTIVATE);
	ck_assert_int_eq(lv_of(vg, &d, "r5"), PF_DEGRADED_LV_REDUNDANT);
	ck_assert_int_eq(lv_of(vg, &d, "r6"), PF_DEGRADED_LV_REDUNDANT);
	ck_assert_int_eq(lv_of(vg, &d, "r10"), PF_DEGRADED_LV_REDUNDANT);
	pf_degraded_release(&d);

	/* two legs: raid5 lost; raid6 survives; raid10 lost both of a pair (0 and 1) */
	d = decide(vg, pv01);
	ck_assert_int_eq(d.action, PF_DEGRADED_ACTIVATE);
	ck_assert_int_eq(lv_of(vg, &d, "r5"), PF_DEGRADED_LV_LOST);
	ck_assert_int_eq(lv_of(vg, &d, "r6"), PF_DEGRADED_LV_REDUNDANT);
	ck_assert_int_eq(lv_of(vg, &d, "r10"), PF_DEGRADED_LV_LOST);
	pf_degraded_release(&d);

	/* legs 0 and 2 are in different pairs of raid10 */
	d = decide(vg, pv02);
	ck_assert_int_eq(lv_of(vg, &d, "r10"), PF_DEGRADED_LV_REDUNDANT);
	pf_degraded_release(&d);

	/* three legs: nothing survives */
	d = decide(vg, pv012);
	ck_assert_int_eq(d.action, PF_DEGRADED_REFUSE);
	ck_assert_int_eq(lv_of(vg, &d, "r5"), PF_DEGRADED_LV_LOST);
	ck_assert_int_eq(lv_of(vg, &d, "r6"), PF_DEGRADED_LV_LOST);
	ck_assert_int_eq(lv_of(vg, &d, "r10"), PF_DEGRADED_LV_LOST);
	pf_degraded_release(&d);
	pf_vg_free(vg);
}
END_TEST

static const struct tlv striped_lvs[] = {
	{ "r1", "RWV", NULL, NULL, RAID("raid1", PAIR("r1", 0) ", " PAIR("r1", 1)) },
	{ "r1_rmeta_0", "RW", NULL, NULL, LIN("pv0", 0) },
	{ "r1_rimage_0", "RW", NULL, NULL, LIN("pv0", 1) },
	{ "r1_rmeta_1", "RW", NULL, NULL, LIN("pv1", 0) },
	{ "r1_rimage_1", "RW", NULL, NULL, LIN("pv1", 1) },
	{ "r0", "RWV", NULL, NULL,
	  "type = \"raid0\"\nstripe_count = 2\nstripe_size = 128\n"
	  "raid0_lvs = [\"r0_rimage_0\", \"r0_rimage_1\"]" },
	{ "r0_rimage_0", "RW", NULL, NULL, LIN("pv0", 2) },
	{ "r0_rimage_1", "RW", NULL, NULL, LIN("pv1", 2) },
	{ "m", "RWV", NULL, NULL,
	  "type = \"mirror\"\nmirror_count = 2\nmirrors = [\"m_mimage_0\", 0, \"m_mimage_1\", 0]" },
	{ "m_mimage_0", "RW", NULL, NULL, LIN("pv0", 3) },
	{ "m_mimage_1", "RW", NULL, NULL, LIN("pv1", 3) },
};

/*
 * raid0 that lost a leg would run with holes (lvm2 2.03.16 lets it): the VG is refused even
 * with a raid1 that could run. A mirror (segment type "mirror") with a leg lost is partial:
 * lvm2 refuses it without --activationmode partial.
 */
START_TEST(test_raid0_and_mirror)
{
	const struct tvg t = { .name = "vgs", .lvs = striped_lvs, .n_lvs = ARRAY_SIZE(striped_lvs) };
	struct pf_vg *vg = aa_build(&t);
	const bool pv1_gone[] = { true, false };
	struct pf_degraded d = decide(vg, pv1_gone);
	char why[256];

	ck_assert_int_eq(d.action, PF_DEGRADED_REFUSE);
	ck_assert_int_eq(lv_of(vg, &d, "r1"), PF_DEGRADED_LV_REDUNDANT);
	ck_assert_int_eq(lv_of(vg, &d, "r0"), PF_DEGRADED_LV_STRIPED);
	ck_assert_int_eq(lv_of(vg, &d, "m"), PF_DEGRADED_LV_PARTIAL);
	ck_assert_ptr_nonnull(strstr(pf_degraded_describe(&d, vg, why, sizeof(why)),
				     "LV r0 is raid0 and lost a leg"));
	pf_degraded_release(&d);
	pf_vg_free(vg);
}
END_TEST

static const struct tlv gated_lvs[] = {
	{ "r1", "RWV", "NOAUTOACTIVATE", NULL, RAID("raid1", PAIR("r1", 0) ", " PAIR("r1", 1)) },
	{ "r1_rmeta_0", "RW", NULL, NULL, LIN("pv0", 0) },
	{ "r1_rimage_0", "RW", NULL, NULL, LIN("pv0", 1) },
	{ "r1_rmeta_1", "RW", NULL, NULL, LIN("pv1", 0) },
	{ "r1_rimage_1", "RW", NULL, NULL,
	  "type = \"integrity\"\norigin = \"r1_rimage_1_iorig\"" },
	{ "r1_rimage_1_iorig", "RW", NULL, NULL, LIN("pv1", 1) },
};

/* What -aay leaves alone stays alone; raid over integrity images is never degraded. */
START_TEST(test_gates)
{
	const struct tvg t = { .name = "vgg", .lvs = gated_lvs, .n_lvs = ARRAY_SIZE(gated_lvs) };
	const struct tvg tvgflag = { .name = "vgg", .flags = "NOAUTOACTIVATE",
				     .lvs = &gated_lvs[1], .n_lvs = 1 };
	const struct tlv noflag = { "r1", "RWV", NULL, NULL,
				    RAID("raid1", PAIR("r1", 0) ", " PAIR("r1", 1)) };
	struct tlv lvs[ARRAY_SIZE(gated_lvs)];
	const bool pv1_gone[] = { true, false };
	struct pf_vg *vg = aa_build(&t);
	struct pf_degraded d = decide(vg, pv1_gone);

	ck_assert_int_eq(d.action, PF_DEGRADED_REFUSE);
	ck_assert_int_eq(lv_of(vg, &d, "r1"), PF_DEGRADED_LV_NONE);
	ck_assert_str_eq(d.reason, "no LV needs the missing PVs");
	pf_degraded_release(&d);
	pf_vg_free(vg);

	memcpy(lvs, gated_lvs, sizeof(lvs));
	lvs[0] = noflag;
	const struct tvg tint = { .name = "vgg", .lvs = lvs, .n_lvs = ARRAY_SIZE(lvs) };

	vg = aa_build(&tint);
	d = decide(vg, pv1_gone);
	ck_assert_int_eq(d.action, PF_DEGRADED_REFUSE);
	ck_assert_int_eq(lv_of(vg, &d, "r1"), PF_DEGRADED_LV_INTEGRITY);
	pf_degraded_release(&d);
	pf_vg_free(vg);

	vg = aa_build(&tvgflag);
	d = decide(vg, pv1_gone);
	ck_assert_int_eq(d.action, PF_DEGRADED_REFUSE);
	ck_assert_ptr_null(d.lvs);
	ck_assert_str_eq(d.reason, pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_NOAUTOACTIVATE));
	pf_degraded_release(&d);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_names_and_errors)
{
	struct pf_degraded_input in = { 0 };
	struct pf_degraded d;

	ck_assert_int_eq(pf_degraded_decide(&in, &d), -EINVAL);
	ck_assert_str_eq(pf_degraded_action_name(PF_DEGRADED_ACTIVATE), "activate");
	ck_assert_str_eq(pf_degraded_action_name(PF_DEGRADED_WAIT), "wait");
	ck_assert_str_eq(pf_degraded_action_name(_PF_DEGRADED_ACTION_MAX), "?");
	pf_degraded_release(NULL);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("degraded");
	TCase *tc = pf_unit_tcase("core");

	tcase_add_test(tc, test_setting_time_claim);
	tcase_add_test(tc, test_raid1_leg_lost);
	tcase_add_test(tc, test_linear_never);
	tcase_add_test(tc, test_raid_levels);
	tcase_add_test(tc, test_raid0_and_mirror);
	tcase_add_test(tc, test_gates);
	tcase_add_test(tc, test_names_and_errors);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
