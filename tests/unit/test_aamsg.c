/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvm2's lines for autoactivation against lvm2 2.03.16: the VGs and runs described in
 * test_aapolicy.c; every quoted line is lvm2's own output, byte for byte.
 */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "aavg.h"
#include "activate/aamsg.h"
#include "activate/aapolicy.h"
#include "format/vg.h"
#include "unit.h"

#define WON PF_AAPOLICY_CLAIM_WON

static const char *const l_a[] = { "vga/a" };
static const char *const t_foo[] = { "foo" };

/* lvm2 -vvvv lines for single LVs, in the order lvm2 logs them. */
START_TEST(test_gate_messages)
{
	struct pf_vg *vg = aa_build(&aa_gate_vg);
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT };
	struct pf_aapolicy *p = aa_decide(vg, &in);
	const char *const a_unset[] = {
		"V:activation/auto_activation_volume_list configuration setting not defined: All "
		"logical volumes will be auto-activated.",
		"V:Activating logical volume vga/a.",
		"V:activation/volume_list configuration setting not defined: Checking only host "
		"tags for vga/a.",
		NULL,
	};
	const char *const b_skip[] = {
		"V:ACTIVATION_SKIP flag set for LV vga/b, skipping activation.",
		NULL,
	};
	const char *const c_noauto[] = {
		"V:activation/auto_activation_volume_list configuration setting not defined: All "
		"logical volumes will be auto-activated.",
		NULL,
	};
	const char *const none[] = { NULL };
	const char *const a_list[] = {
		"V:activation/auto_activation_volume_list configuration setting defined: Checking "
		"the list to match vga/a.",
		"V:No item supplied in activation/auto_activation_volume_list configuration "
		"setting matches vga/a.",
		NULL,
	};
	const char *const d_vl[] = {
		"V:activation/auto_activation_volume_list configuration setting not defined: All "
		"logical volumes will be auto-activated.",
		"V:Activating logical volume vga/d.",
		"V:activation/volume_list configuration setting defined: Checking the list to "
		"match vga/d.",
		"V:No item supplied in activation/volume_list configuration setting matches vga/d.",
		"V:Not activating vga/d since it does not pass activation filter.",
		NULL,
	};
	const char *const f_host[] = {
		"V:activation/auto_activation_volume_list configuration setting not defined: All "
		"logical volumes will be auto-activated.",
		"V:Activating logical volume vga/f.",
		"V:activation/volume_list configuration setting not defined: Checking only host "
		"tags for vga/f.",
		"V:No host tag matches vga/f",
		"V:Not activating vga/f since it does not pass activation filter.",
		NULL,
	};

	aa_check_lv_msgs(vg, &in, p, "a", a_unset);
	aa_check_lv_msgs(vg, &in, p, "b", b_skip);
	aa_check_lv_msgs(vg, &in, p, "c", c_noauto);
	aa_check_lv_msgs(vg, &in, p, "e", none);
	aa_check_vg_msgs(vg, &in, p, none);
	ck_assert_uint_eq(p->n_expected, 3);
	pf_aapolicy_free(p);

	in.auto_activation_volume_list = (struct pf_aapolicy_list)EMPTY_LIST;
	p = aa_decide(vg, &in);
	aa_check_lv_msgs(vg, &in, p, "a", a_list);
	ck_assert_uint_eq(p->n_expected, 0);
	pf_aapolicy_free(p);

	in.auto_activation_volume_list = (struct pf_aapolicy_list){ 0 };
	in.volume_list = (struct pf_aapolicy_list)LIST(l_a);
	p = aa_decide(vg, &in);
	aa_check_lv_msgs(vg, &in, p, "d", d_vl);
	/* lvm2 counts LVs the volume_list drops: "Activated 3 logical volumes" for a d f. */
	ck_assert_uint_eq(p->n_expected, 3);
	pf_aapolicy_free(p);

	in.volume_list = (struct pf_aapolicy_list){ 0 };
	in.host_tags = (struct pf_aapolicy_list)LIST(t_foo);
	p = aa_decide(vg, &in);
	aa_check_lv_msgs(vg, &in, p, "f", f_host);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* vg_read's seqno lines: the newest copy wins, each other seqno is named against the best so far. */
START_TEST(test_read_messages_seqnos)
{
	struct pf_vg *vg = aa_build(&aa_two_pv_vg);
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_PVSCAN };
	struct pf_aapolicy *p = aa_decide(vg, &in);
	const struct pf_aamsg_copy rising[] = { { "/dev/a", 3 }, { "/dev/b", 5 }, { "/dev/c", 4 },
						  { "/dev/d", 5 } };
	const char *const devs[] = { "/dev/a", "/dev/b" };
	const char *const rising_lines[] = {
		"W:WARNING: ignoring metadata seqno 3 on /dev/a for seqno 5 on /dev/b for VG vga.",
		"W:WARNING: ignoring metadata seqno 4 on /dev/c for seqno 5 on /dev/b for VG vga.",
		"W:WARNING: Inconsistent metadata found for VG vga.",
		"W:See vgck --updatemetadata to correct inconsistency.",
		NULL,
	};
	const char *const none[] = { NULL };

	aa_check_read_msgs(vg, p, rising, ARRAY_SIZE(rising), devs, rising_lines);
	aa_check_read_msgs(vg, p, rising, 1, devs, none);
	aa_check_read_msgs(vg, p, NULL, 0, devs, none);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* A crafted system ID reaches the lines escaped; an ordinary one stays as lvm2 prints it. */
START_TEST(test_system_id_escaped)
{
	struct tvg t = aa_two_pv_vg;
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_PVSCAN, .claim = WON,
					.process_each = true };
	struct pf_vg *vg;
	struct pf_aapolicy *p;
	const char *const lines[] = {
		"P+VG vga run autoactivation.",
		"E:Cannot access VG vga with system ID ev\\x1b[2Jil\\\\x with unknown local "
		"system ID.",
		"E:Cannot access VG vga with system ID ev\\x1b[2Jil\\\\x with unknown local "
		"system ID.",
		NULL,
	};

	t.extra = "system_id = \"ev\x1b[2Jil\\\\x\"";
	vg = aa_build(&t);
	ck_assert_str_eq(vg->system_id, "ev\x1b[2Jil\\x");
	p = aa_decide(vg, &in);
	ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_FOREIGN);
	aa_check_vg_msgs(vg, &in, p, lines);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* Several devices in one pvscan: lvm2's process_each_vg wording for a VG it cannot read. */
START_TEST(test_process_each_messages)
{
	struct tvg t = aa_two_pv_vg;
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_PVSCAN, .claim = WON,
					.process_each = true };
	struct pf_vg *vg;
	struct pf_aapolicy *p;
	/* lvm2: sysid-none and read-only in tests/vm/guest-policy.sh */
	const char *const foreign[] = {
		"P+VG vga run autoactivation.",
		"E:Cannot access VG vga with system ID other with unknown local system ID.",
		"E:Cannot access VG vga with system ID other with unknown local system ID.",
		NULL,
	};
	const char *const read_only[] = {
		"P+VG vga run autoactivation.",
		"E:Volume group vga is read-only.",
		"E:Cannot process volume group vga",
		NULL,
	};
	const char *const clustered[] = {
		"P+VG vga run autoactivation.",
		"V:Skipping clustered VG vga.",
		"E:Cannot access clustered VG vga.",
		"E:See lvmlockd(8) for changing a clvm/clustered VG to a shared VG.",
		NULL,
	};

	t.extra = "system_id = \"other\"";
	vg = aa_build(&t);
	p = aa_decide(vg, &in);
	ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_FOREIGN);
	aa_check_vg_msgs(vg, &in, p, foreign);
	pf_aapolicy_free(p);
	pf_vg_free(vg);

	t.extra = NULL;
	t.status = "\"RESIZEABLE\", \"READ\"";
	vg = aa_build(&t);
	p = aa_decide(vg, &in);
	ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_READ_ONLY);
	aa_check_vg_msgs(vg, &in, p, read_only);
	pf_aapolicy_free(p);
	pf_vg_free(vg);

	t.status = "\"RESIZEABLE\", \"READ\", \"WRITE\", \"CLUSTERED\"";
	vg = aa_build(&t);
	p = aa_decide(vg, &in);
	ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_CLUSTERED);
	aa_check_vg_msgs(vg, &in, p, clustered);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* lvm2: auto-list-odd in tests/vm/guest-policy.sh (stdout, each time an LV is checked). */
START_TEST(test_list_empty_entries)
{
	struct pf_vg *vg = aa_build(&aa_gate_vg);
	const char *const odd[] = { "", "@", "vga/d", "" };
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_PVSCAN, .auto_activation_volume_list = LIST(odd) };
	struct pf_aapolicy *p = aa_decide(vg, &in);
	const char *const a_lines[] = {
		"V:activation/auto_activation_volume_list configuration setting defined: Checking "
		"the list to match vga/a.",
		"P:Ignoring empty string in config file activation/auto_activation_volume_list.",
		"P:Ignoring empty tag in config file activation/auto_activation_volume_list",
		"P:Ignoring empty string in config file activation/auto_activation_volume_list.",
		"V:No item supplied in activation/auto_activation_volume_list configuration "
		"setting matches vga/a.",
		NULL,
	};
	const char *const d_first[] = {
		"V:activation/auto_activation_volume_list configuration setting defined: Checking "
		"the list to match vga/d.",
		"P:Ignoring empty string in config file activation/auto_activation_volume_list.",
		"P:Ignoring empty tag in config file activation/auto_activation_volume_list",
	};
	struct pf_aamsg m[PF_AAMSG_LINES_MAX];
	int n;

	aa_check_lv_msgs(vg, &in, p, "a", a_lines);
	/* d matches at the third entry: the fourth is never looked at */
	n = pf_aamsg_lv(vg, &in, p, (unsigned)aa_idx(vg, "d"), m, ARRAY_SIZE(m));
	ck_assert_int_ge(n, 3);
	for (int k = 0; k < 3; k++)
		ck_assert_str_eq(m[k].text, d_first[k] + 2);
	ck_assert_int_eq(p->lvs[aa_idx(vg, "d")].verdict, PF_AAPOLICY_LV_ACTIVATE);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* Long names are cut in messages, never overflowing the line. */
START_TEST(test_message_truncation)
{
	char name[128], extra[512];
	struct tlv lvs[1] = { { name, "RWV", NULL, NULL, NULL } };
	struct tvg t = { .extra = extra, .lvs = lvs, .n_lvs = 1 };
	struct pf_aamsg m[PF_AAMSG_LINES_MAX];
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT };
	struct pf_vg *vg;
	struct pf_aapolicy *p;
	int n;

	memset(name, 'x', 127);
	name[127] = '\0';
	(void)snprintf(extra, sizeof(extra), "system_id = \"%0250d\"", 7);
	vg = aa_build(&t);
	p = aa_decide(vg, &in);
	ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_FOREIGN);
	n = pf_aamsg_vg(vg, &in, p, m, 1); /* only room for one */
	ck_assert_int_eq(n, 1);
	ck_assert_uint_lt(strlen(m[0].text), PF_AAMSG_TEXT_MAX);
	pf_aapolicy_free(p);
	in.system_id = extra + 13; /* the same ID: the VG is ours */
	extra[13 + 250] = '\0';
	p = aa_decide(vg, &in);
	ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_OK);
	n = pf_aamsg_lv(vg, &in, p, 0, m, ARRAY_SIZE(m));
	ck_assert_int_eq(n, 3);
	ck_assert_ptr_nonnull(strstr(m[1].text, name));
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* Each verdict gets the lines of every step lvm2 reaches, then its own line, last. */
START_TEST(test_lv_lines_by_stage)
{
	static const unsigned before[] = {
		[PF_AAPOLICY_STAGE_NONE] = 0,	     [PF_AAPOLICY_STAGE_SKIP] = 0,
		[PF_AAPOLICY_STAGE_AUTO_LIST] = 1,   [PF_AAPOLICY_STAGE_REQUEST] = 1,
		[PF_AAPOLICY_STAGE_ACTIVATE] = 2,    [PF_AAPOLICY_STAGE_VOLUME_LIST] = 3,
	};
	struct pf_vg *vg = aa_build(&aa_gate_vg);
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT };
	struct pf_aapolicy *p = aa_decide(vg, &in);
	struct pf_aamsg m[PF_AAMSG_LINES_MAX];
	char want[PF_AAMSG_TEXT_MAX];

	for (int v = 0; v < _PF_AAPOLICY_LV_VERDICT_MAX; v++) {
		const struct pf_aapolicy_lv_verdict_info *info =
			pf_aapolicy_lv_verdict_info((enum pf_aapolicy_lv_verdict)v);
		unsigned n = before[info->stage] + (info->line != NULL) +
			     (v == PF_AAPOLICY_LV_NOT_IN_VOLUME_LIST);
		int got;

		p->lvs[0].verdict = (enum pf_aapolicy_lv_verdict)v;
		p->lvs[0].target = 0;
		p->lvs[0].component = aa_idx(vg, "e");
		got = pf_aamsg_lv(vg, &in, p, 0, m, ARRAY_SIZE(m));
		ck_assert_msg(got == (int)n, "verdict %d: %d lines, want %u", v, got, n);
		if (!info->line)
			continue;
		(void)snprintf(want, sizeof(want), info->line, "vga", "a", "vga", "e");
		ck_assert_int_eq(m[got - 1].level, info->level);
		ck_assert_str_eq(m[got - 1].text, want);
	}
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("aamsg");
	TCase *tc = pf_unit_tcase("core");

	tcase_add_test(tc, test_gate_messages);
	tcase_add_test(tc, test_read_messages_seqnos);
	tcase_add_test(tc, test_process_each_messages);
	tcase_add_test(tc, test_system_id_escaped);
	tcase_add_test(tc, test_list_empty_entries);
	tcase_add_test(tc, test_message_truncation);
	tcase_add_test(tc, test_lv_lines_by_stage);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
