/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Who makes the LVs' /dev entries and whether udev is waited for (dm.c's policy). */
#include "config.h"

#include "activate/dm.h"
#include "unit.h"

/* The lvm2 2.03.16 outcomes checked in the VM by guest-noudev.sh, one row per mode. */
START_TEST(test_udev_policy)
{
	static const struct {
		bool disable, rules, sync, verify;
		struct pf_dm_udev want;
	} t[] = {
		/* lvm2's default: udev makes everything and is waited for */
		{ false, true, true, false, { .nodes_ours = false, .no_rules = false, .no_sync = false } },
		/* DM_DISABLE_UDEV overrides lvm.conf whatever it says */
		{ true, true, true, false, { .nodes_ours = true, .no_rules = true, .no_sync = true } },
		{ true, true, true, true, { .nodes_ours = true, .no_rules = true, .no_sync = true } },
		/* udev_rules = 0: ours, udev's rules told to keep off, still synchronised */
		{ false, false, true, false, { .nodes_ours = true, .no_rules = true, .no_sync = false } },
		/* verify_udev_operations: ours as well as udev's */
		{ false, true, true, true, { .nodes_ours = true, .no_rules = false, .no_sync = false } },
		/* udev_sync = 0: udev still makes them, nobody waits */
		{ false, true, false, false, { .nodes_ours = false, .no_rules = false, .no_sync = true } },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct pf_dm_udev u = pf_dm_udev_policy(t[i].disable, t[i].rules, t[i].sync,
							t[i].verify);

		ck_assert_msg(u.nodes_ours == t[i].want.nodes_ours, "row %zu: nodes_ours", i);
		ck_assert_msg(u.no_rules == t[i].want.no_rules, "row %zu: no_rules", i);
		ck_assert_msg(u.no_sync == t[i].want.no_sync, "row %zu: no_sync", i);
	}
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("dm");
	TCase *tc = pf_unit_tcase("dm");

	tcase_add_test(tc, test_udev_policy);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
