/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Autoactivation policy against lvm2 2.03.16. Cases marked "lvm2:" were run on loop devices
 * with Debian's lvm2 2.03.16 (metadata written with vgcfgrestore --force, same LV names and
 * order as here): `vgchange -aay --autoactivation event VG -vvvv` and `pvscan --cache -aay
 * DEV`, in a private mount namespace. "--driverloaded n" runs stop after "Activating logical
 * volume" (activation disabled); the gates after it (volume_list, host tags, partial, unknown
 * segment) were seen in "driver absent" runs without --driverloaded n on this kernel without
 * device-mapper, where lvm2 applies them before its first ioctl fails. Messages quoted are
 * lvm2's own output.
 */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aavg.h"
#include "activate/aapolicy.h"
#include "config/settings.h"
#include "format/vg.h"
#include "unit.h"

/* ---- the LV gates: lvm2's VG "vga" with eight LVs ---- */

static const char *const l_vga[] = { "vga" };
static const char *const l_a_foo[] = { "vga/a", "@foo" };
static const char *const l_vgtag[] = { "@vgtag" };
static const char *const l_star[] = { "@*" };
static const char *const l_odd[] = { "vga/", "vg", "vgaX", "vga/a/b", "@", "", "vga/h" };
static const char *const l_a[] = { "vga/a" };
static const char *const l_a_f[] = { "vga/a", "vga/f" };
static const char *const t_foo[] = { "foo" };

struct gate_row {
	const char *what;
	struct pf_aapolicy_list aal, vl, host_tags;
	const char *want;
};

static const struct gate_row gate_rows[] = {
	/* lvm2: b, g "ACTIVATION_SKIP flag set for LV vga/b, skipping activation."; c, h and the
	 * hidden e silently; the skip flag is tested before the list, NOAUTOACTIVATE after it. */
	{ "nothing configured", { 0 }, { 0 }, { 0 }, "AknAhAkn" },
	/* lvm2: "No item supplied in activation/auto_activation_volume_list configuration
	 * setting matches vga/a." for a c d f h; 0 activated, exit 0. */
	{ "auto list []", EMPTY_LIST, { 0 }, { 0 }, "lkllhlkl" },
	/* lvm2: the list does not override the skip flag or NOAUTOACTIVATE. */
	{ "auto list [vga]", LIST(l_vga), { 0 }, { 0 }, "AknAhAkn" },
	/* lvm2: "Activated 2 logical volumes" (a, d). */
	{ "auto list [vga/a, @foo]", LIST(l_a_foo), { 0 }, { 0 }, "AklAhlkl" },
	/* lvm2: a VG tag matches every LV of the VG. */
	{ "auto list [@vgtag]", LIST(l_vgtag), { 0 }, { 0 }, "AknAhAkn" },
	/* lvm2 (tags { foo {} } in lvm.conf): only d; with volume_list unset the host tag must
	 * also be on d or vga, which it is. */
	{ "auto list [@*], host tag foo", LIST(l_star), { 0 }, LIST(t_foo), "lklAhlkl" },
	/* lvm2: prefixes and extra path parts do not match; "vga/h" matches h, which is then
	 * dropped by NOAUTOACTIVATE without a message. */
	{ "auto list odd entries", LIST(l_odd), { 0 }, { 0 }, "lkllhlkn" },
	/* lvm2 (driver absent): "No host tag matches vga/a", "Not activating vga/a since it does
	 * not pass activation filter."; d (tag foo) goes on to be activated. */
	{ "host tag foo, lists unset", { 0 }, { 0 }, LIST(t_foo), "vknAhvkn" },
	/* lvm2 (driver absent): only a passes. */
	{ "volume_list [vga/a]", { 0 }, LIST(l_a), { 0 }, "Aknvhvkn" },
	/* lvm2 (driver absent): nothing passes, yet lvm2 says "Activated 3 logical volumes". */
	{ "volume_list []", { 0 }, EMPTY_LIST, { 0 }, "vknvhvkn" },
	/* lvm2 (driver absent): both lists must match: a and f. */
	{ "volume_list [@vgtag] + auto list [vga/a, vga/f]", LIST(l_a_f), LIST(l_vgtag), { 0 },
	  "AkllhAkl" },
	/* No host tags and volume_list unset: everything passes (lvm2 default). */
	{ "host tags present, volume_list matches", { 0 }, LIST(l_vga), LIST(t_foo), "AknAhAkn" },
};

START_TEST(test_gates)
{
	const struct gate_row *row = &gate_rows[_i];
	struct pf_vg *vg = aa_build(&aa_gate_vg);

	for (int mode = 0; mode < _PF_AAPOLICY_MODE_MAX; mode++) {
		struct pf_aapolicy_input in = {
			.mode = (enum pf_aapolicy_mode)mode,
			.auto_activation_volume_list = row->aal,
			.volume_list = row->vl,
			.host_tags = row->host_tags,
		};
		struct pf_aapolicy *p = aa_decide(vg, &in);

		ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_OK);
		ck_assert_msg(!strcmp(aa_letters(p), row->want), "%s: got %s, want %s", row->what,
			      aa_letters(p), row->want);
		ck_assert(!p->failed);
		pf_aapolicy_free(p);
	}
	pf_vg_free(vg);
}
END_TEST

/* ---- list matching ---- */

struct match_row {
	const char *entry;
	const char *lv;
	bool host_foo;
	bool want;
};

static const struct match_row match_rows[] = {
	{ "vga", "a", false, true },	   { "vga/a", "a", false, true },
	{ "vga/a", "d", false, false },	   { "vga/", "a", false, false },
	{ "vg", "a", false, false },	   { "vgaX", "a", false, false },
	{ "vga/a/b", "a", false, false },  { "vgb", "a", false, false },
	{ "@foo", "d", false, true },	   { "@foo", "a", false, false },
	{ "@vgtag", "a", false, true },	   { "@bar", "h", false, true },
	{ "@*", "d", true, true },	   { "@*", "a", true, false },
	{ "@*", "d", false, false },	   { "@", "a", false, false },
	{ "", "a", false, false },	   { "@FOO", "d", false, false },
	{ "VGA", "a", false, false },	   { "vga/A", "a", false, false },
};

START_TEST(test_list_matches)
{
	const struct match_row *row = &match_rows[_i];
	struct pf_vg *vg = aa_build(&aa_gate_vg);
	const char *const entry[] = { row->entry };
	const struct pf_aapolicy_list list = LIST(entry);
	const struct pf_aapolicy_list host = { .n = row->host_foo ? 1 : 0, .v = t_foo };

	ck_assert_msg(pf_aapolicy_list_matches(&list, &host, vg, pf_vg_find_lv(vg, row->lv)) ==
			      row->want,
		      "\"%s\" vs %s", row->entry, row->lv);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_empty_list_matches_nothing)
{
	struct pf_vg *vg = aa_build(&aa_gate_vg);
	const struct pf_aapolicy_list empty = EMPTY_LIST, none = { 0 };

	for (unsigned i = 0; i < vg->n_lvs; i++)
		ck_assert(!pf_aapolicy_list_matches(&empty, &none, vg, &vg->lvs[i]));
	pf_vg_free(vg);
}
END_TEST

/* ---- VG gates, both commands ---- */

static const struct tlv vgb_lvs[] = {
	{ "l1", "RWV", NULL, NULL, NULL },
	{ "l2", "RWV", NULL, NULL, NULL },
};

#define RO_STATUS    "\"RESIZEABLE\", \"READ\""
#define EXP_STATUS   "\"RESIZEABLE\", \"READ\", \"WRITE\", \"EXPORTED\""
#define CLUS_STATUS  "\"RESIZEABLE\", \"READ\", \"WRITE\", \"CLUSTERED\""
#define FOREIGN	     "system_id = \"otherhost\""
#define SANLOCK	     "lock_type = \"sanlock\"\nlock_args = \"1.0.0:lvmlock\""

struct vg_row {
	const char *what;
	const char *status, *flags, *extra;
	enum pf_aapolicy_mode mode;
	const char *host_id;
	bool host_id_unknown;
	bool extra_other; /* local/extra_system_ids = ["otherhost"] */
	enum pf_aapolicy_claim claim;
	bool l1_active;
	enum pf_aapolicy_vg_verdict want;
	bool failed;
	const char *msgs[6];
};

#define VGC PF_AAPOLICY_VGCHANGE_EVENT
#define PVS PF_AAPOLICY_PVSCAN
#define WON PF_AAPOLICY_CLAIM_WON

static const struct vg_row vg_rows[] = {
	/* lvm2: both lines, exit 5 (vg_read prints it, then process_each_vg again). */
	{ "foreign, host without system ID", NULL, NULL, FOREIGN, VGC, NULL, false, false, 0,
	  false, PF_AAPOLICY_VG_FOREIGN, true,
	  { "E:Cannot access VG vg1 with system ID otherhost with unknown local system ID.",
	    "E:Cannot access VG vg1 with system ID otherhost with unknown local system ID." } },
	/* lvm2: pvscan claims the VG ("VG vgb run autoactivation.") before reading it. */
	{ "foreign, host without system ID", NULL, NULL, FOREIGN, PVS, NULL, false, false, WON,
	  false, PF_AAPOLICY_VG_FOREIGN, true,
	  { "P+VG vg1 run autoactivation.",
	    "E:Cannot access VG vg1 with system ID otherhost with unknown local system ID.",
	    "E+activation for VG vg1 cannot read (400)." } },
	{ "foreign, host system ID unknown", NULL, NULL, FOREIGN, VGC, "thishost", true, false, 0,
	  false, PF_AAPOLICY_VG_FOREIGN, true,
	  { "E:Cannot access VG vg1 with system ID otherhost with unknown local system ID.",
	    "E:Cannot access VG vg1 with system ID otherhost with unknown local system ID." } },
	/* lvm2 (system_id_source = "lvmlocal", local/system_id = "thishost"). */
	{ "foreign, other host", NULL, NULL, FOREIGN, VGC, "thishost", false, false, 0, false,
	  PF_AAPOLICY_VG_FOREIGN, true,
	  { "E:Cannot access VG vg1 with system ID otherhost with local system ID thishost." } },
	/* lvm2: "PV /dev/loop32 ignore foreign VG." per PV, exit 0. */
	{ "foreign, other host", NULL, NULL, FOREIGN, PVS, "thishost", false, false, WON, false,
	  PF_AAPOLICY_VG_FOREIGN, false, { NULL } },
	/* lvm2: extra_system_ids lets vg_read through, vgchange_activate still refuses. */
	{ "foreign, in extra_system_ids", NULL, NULL, FOREIGN, VGC, "thishost", false, true, 0,
	  false, PF_AAPOLICY_VG_FOREIGN, true, { "E:Cannot activate LVs in a foreign VG." } },
	/* lvm2: pvscan's scan ignores extra_system_ids: "ignore foreign VG.". */
	{ "foreign, in extra_system_ids", NULL, NULL, FOREIGN, PVS, "thishost", false, true, WON,
	  false, PF_AAPOLICY_VG_FOREIGN, false, { NULL } },
	{ "own system ID", NULL, NULL, "system_id = \"thishost\"", VGC, "thishost", false, false,
	  0, false, PF_AAPOLICY_VG_OK, false, { NULL } },
	/* Source: vgchange -a may read a foreign VG with active LVs; without a host system ID
	 * nothing stops the activation afterwards. */
	{ "foreign with active LVs, no host ID", NULL, NULL, FOREIGN, VGC, NULL, false, false, 0,
	  true, PF_AAPOLICY_VG_OK, false,
	  { "W:WARNING: Found LVs active in VG vg1 with foreign system ID otherhost.  Possible "
	    "data corruption.",
	    "V:1 logical volume(s) in volume group \"vg1\" already active" } },
	{ "foreign with active LVs, other host", NULL, NULL, FOREIGN, VGC, "thishost", false,
	  false, 0, true, PF_AAPOLICY_VG_FOREIGN, true,
	  { "W:WARNING: Found LVs active in VG vg1 with foreign system ID otherhost.  Possible "
	    "data corruption.",
	    "E:Cannot activate LVs in a foreign VG." } },
	{ "foreign with active LVs, no host ID", NULL, NULL, FOREIGN, PVS, NULL, false, false, WON,
	  true, PF_AAPOLICY_VG_FOREIGN, true,
	  { "P+VG vg1 run autoactivation.",
	    "W:WARNING: Found LVs active in VG vg1 with foreign system ID otherhost.  Possible "
	    "data corruption.",
	    "E+activation for VG vg1 cannot read (400)." } },
	/* lvm2. */
	{ "exported", EXP_STATUS, NULL, NULL, VGC, NULL, false, false, 0, false,
	  PF_AAPOLICY_VG_EXPORTED, true, { "E:Volume group vg1 is exported" } },
	/* lvm2: "PV /dev/loop32 ignore exported VG." */
	{ "exported", EXP_STATUS, NULL, NULL, PVS, NULL, false, false, WON, false,
	  PF_AAPOLICY_VG_EXPORTED, false, { NULL } },
	/* lvm2: vg_read tests the system ID before EXPORTED. */
	{ "exported and foreign", EXP_STATUS, NULL, FOREIGN, VGC, "thishost", false, false, 0,
	  false, PF_AAPOLICY_VG_FOREIGN, true,
	  { "E:Cannot access VG vg1 with system ID otherhost with local system ID thishost." } },
	/* lvm2: the scan tests the system ID only when the host has one: "ignore exported VG.". */
	{ "exported and foreign", EXP_STATUS, NULL, FOREIGN, PVS, NULL, false, false, WON, false,
	  PF_AAPOLICY_VG_EXPORTED, false, { NULL } },
	{ "exported and foreign", EXP_STATUS, NULL, FOREIGN, PVS, "thishost", false, false, WON,
	  false, PF_AAPOLICY_VG_FOREIGN, false, { NULL } },
	/* lvm2. */
	{ "sanlock", NULL, NULL, SANLOCK, VGC, NULL, false, false, 0, false, PF_AAPOLICY_VG_SHARED,
	  true, { "E:Cannot access VG vg1 with lock type sanlock that requires lvmlockd." } },
	/* lvm2: "PV /dev/loop32 ignore shared VG." */
	{ "sanlock", NULL, NULL, SANLOCK, PVS, NULL, false, false, WON, false,
	  PF_AAPOLICY_VG_SHARED, false, { NULL } },
	{ "dlm", NULL, NULL, "lock_type = \"dlm\"", VGC, NULL, false, false, 0, false,
	  PF_AAPOLICY_VG_SHARED, true,
	  { "E:Cannot access VG vg1 with lock type dlm that requires lvmlockd." } },
	{ "lock_type none", NULL, NULL, "lock_type = \"none\"", VGC, NULL, false, false, 0, false,
	  PF_AAPOLICY_VG_OK, false, { NULL } },
	/* lvm2 (the verbose line is from source). */
	{ "clustered", CLUS_STATUS, NULL, NULL, VGC, NULL, false, false, 0, false,
	  PF_AAPOLICY_VG_CLUSTERED, true,
	  { "V:Skipping clustered VG vg1.", "E:Cannot access clustered VG vg1.",
	    "E:See lvmlockd(8) for changing a clvm/clustered VG to a shared VG." } },
	/* lvm2: claimed, then "activation for VG vgb cannot read (40).", exit 5. */
	{ "clustered", CLUS_STATUS, NULL, NULL, PVS, NULL, false, false, WON, false,
	  PF_AAPOLICY_VG_CLUSTERED, true,
	  { "P+VG vg1 run autoactivation.", "V:Skipping clustered VG vg1.",
	    "E+activation for VG vg1 cannot read (40)." } },
	/* lvm2. */
	{ "read-only", RO_STATUS, NULL, NULL, VGC, NULL, false, false, 0, false,
	  PF_AAPOLICY_VG_READ_ONLY, true,
	  { "E:Volume group vg1 is read-only.", "E:Cannot process volume group vg1" } },
	/* lvm2. */
	{ "read-only", RO_STATUS, NULL, NULL, PVS, NULL, false, false, WON, false,
	  PF_AAPOLICY_VG_READ_ONLY, true,
	  { "P+VG vg1 run autoactivation.", "E:Volume group vg1 is read-only.",
	    "E+activation for VG vg1 cannot read (8)." } },
	/* lvm2: silent at -v, "Autoactivation is disabled for VG vgb." at -vvvv, exit 0. */
	{ "VG NOAUTOACTIVATE", NULL, "NOAUTOACTIVATE", NULL, VGC, NULL, false, false, 0, false,
	  PF_AAPOLICY_VG_NOAUTOACTIVATE, false, { "D:Autoactivation is disabled for VG vg1." } },
	{ "VG NOAUTOACTIVATE", NULL, "NOAUTOACTIVATE", NULL, PVS, NULL, false, false, WON, false,
	  PF_AAPOLICY_VG_NOAUTOACTIVATE, false,
	  { "P+VG vg1 run autoactivation.", "D:Autoactivation is disabled for VG vg1." } },
	/* lvm2: "VG vgb skip autoactivation." and nothing else, exit 0. */
	{ "claim lost", NULL, NULL, NULL, PVS, NULL, false, false, PF_AAPOLICY_CLAIM_LOST, false,
	  PF_AAPOLICY_VG_CLAIMED, false, { "P+VG vg1 skip autoactivation." } },
	{ "claim lost, NOAUTOACTIVATE", NULL, "NOAUTOACTIVATE", NULL, PVS, NULL, false, false,
	  PF_AAPOLICY_CLAIM_LOST, false, PF_AAPOLICY_VG_CLAIMED, false,
	  { "P+VG vg1 skip autoactivation." } },
	{ "claim not asked", NULL, NULL, NULL, PVS, NULL, false, false, PF_AAPOLICY_CLAIM_NONE,
	  false, PF_AAPOLICY_VG_OK, false, { NULL } },
	{ "claim won", NULL, NULL, NULL, PVS, NULL, false, false, WON, true, PF_AAPOLICY_VG_OK,
	  false,
	  { "P+VG vg1 run autoactivation.",
	    "V:1 logical volume(s) in volume group \"vg1\" already active" } },
	{ "claim is pvscan's", NULL, NULL, NULL, VGC, NULL, false, false, PF_AAPOLICY_CLAIM_LOST,
	  false, PF_AAPOLICY_VG_OK, false, { NULL } },
	/* Order: the read-only VG is refused before NOAUTOACTIVATE is looked at. */
	{ "read-only + NOAUTOACTIVATE", RO_STATUS, "NOAUTOACTIVATE", NULL, VGC, NULL, false, false,
	  0, false, PF_AAPOLICY_VG_READ_ONLY, true,
	  { "E:Volume group vg1 is read-only.", "E:Cannot process volume group vg1" } },
	{ "shared + exported + clustered", CLUS_STATUS ", \"EXPORTED\"", NULL, SANLOCK, VGC, NULL,
	  false, false, 0, false, PF_AAPOLICY_VG_SHARED, true,
	  { "E:Cannot access VG vg1 with lock type sanlock that requires lvmlockd." } },
	{ "clustered + exported", CLUS_STATUS ", \"EXPORTED\"", NULL, NULL, VGC, NULL, false,
	  false, 0, false, PF_AAPOLICY_VG_CLUSTERED, true,
	  { "V:Skipping clustered VG vg1.", "E:Cannot access clustered VG vg1.",
	    "E:See lvmlockd(8) for changing a clvm/clustered VG to a shared VG." } },
};

START_TEST(test_vg_gates)
{
	const struct vg_row *row = &vg_rows[_i];
	const char *const other[] = { "otherhost" };
	const struct tvg t = { .status = row->status, .flags = row->flags, .extra = row->extra,
			       .n_pvs = 1, .lvs = vgb_lvs, .n_lvs = ARRAY_SIZE(vgb_lvs) };
	struct pf_vg *vg = aa_build(&t);
	const bool active[] = { row->l1_active, false };
	struct pf_aapolicy_input in = {
		.mode = row->mode,
		.claim = row->claim,
		.system_id = row->host_id,
		.system_id_unknown = row->host_id_unknown,
		.lv_active = active,
	};
	struct pf_aapolicy *p;

	if (row->extra_other)
		in.extra_system_ids = (struct pf_aapolicy_list)LIST(other);
	p = aa_decide(vg, &in);
	ck_assert_msg(p->verdict == row->want, "%s (mode %d): verdict %d, want %d", row->what,
		      row->mode, p->verdict, row->want);
	ck_assert_msg(p->failed == row->failed, "%s: failed %d", row->what, p->failed);
	aa_check_vg_msgs(vg, &in, p, row->msgs);
	if (row->want != PF_AAPOLICY_VG_OK)
		ck_assert_str_eq(aa_letters(p), "--");
	else
		ck_assert_str_eq(aa_letters(p), row->l1_active ? "aA" : "AA");
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* ---- missing and reappeared PVs ---- */

START_TEST(test_incomplete)
{
	struct pf_vg *vg = aa_build(&aa_two_pv_vg);
	const bool present[] = { true, false };
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT, .pv_present = present };
	struct pf_aapolicy *p = aa_decide(vg, &in);
	const char *const incomplete[] = { "P:VG vga is incomplete.", NULL };
	const char *const none[] = { NULL };

	/* lvm2 (loop31 filtered out): two WARNING lines from vg_read, then "VG vga is
	 * incomplete.", nothing activated, exit 0. */
	ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_INCOMPLETE);
	ck_assert(!p->failed);
	ck_assert_uint_eq(p->n_missing_pvs, 1);
	ck_assert_str_eq(aa_letters(p), "--------");
	/* Still described: f sits on the missing PV. */
	ck_assert(p->lvs[aa_idx(vg, "f")].partial);
	ck_assert(!p->lvs[aa_idx(vg, "a")].partial);
	aa_check_vg_msgs(vg, &in, p, incomplete);
	pf_aapolicy_free(p);

	/* pvscan never gets to activation: the scan said "incomplete (need 1)". */
	in.mode = PF_AAPOLICY_PVSCAN;
	in.claim = PF_AAPOLICY_CLAIM_WON;
	p = aa_decide(vg, &in);
	ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_INCOMPLETE);
	aa_check_vg_msgs(vg, &in, p, none);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_incomplete_noautoactivate)
{
	struct tvg t = aa_two_pv_vg;
	const bool present[] = { true, false };
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT, .pv_present = present };
	struct pf_vg *vg;
	struct pf_aapolicy *p;

	/* lvm2: the VG flag is tested first; only the vg_read warnings are printed. */
	t.flags = "NOAUTOACTIVATE";
	vg = aa_build(&t);
	p = aa_decide(vg, &in);
	ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_NOAUTOACTIVATE);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_md_hint_moved)
{
	struct tvg t = aa_two_pv_vg;
	struct pf_vg *vg = aa_build(&t);
	const char *online[2] = { "/dev/sdb", "/dev/sdc" };

	/* hints /dev/loop30, /dev/loop31: nothing moved from md */
	ck_assert_int_eq(pf_aapolicy_md_hint_moved(vg, online), -1);
	vg->pvs[1].device = "/dev/md127";
	ck_assert_int_eq(pf_aapolicy_md_hint_moved(vg, online), 1);
	vg->pvs[0].device = "/dev/md/root";
	ck_assert_int_eq(pf_aapolicy_md_hint_moved(vg, online), 0); /* lvm2 stops at the first */
	online[0] = "/dev/md126";				     /* still on an md device */
	ck_assert_int_eq(pf_aapolicy_md_hint_moved(vg, online), 1);
	online[1] = NULL; /* no online file to say where it is */
	ck_assert_int_eq(pf_aapolicy_md_hint_moved(vg, online), -1);
	online[1] = "";
	vg->pvs[0].device = NULL;
	ck_assert_int_eq(pf_aapolicy_md_hint_moved(vg, online), -1);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_reappeared_pv_in_use)
{
	struct tvg t = aa_two_pv_vg;
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT };
	struct pf_vg *vg;
	struct pf_aapolicy *p;
	const char *const f_partial[] = {
		"V:activation/auto_activation_volume_list configuration setting not defined: All "
		"logical volumes will be auto-activated.",
		"V:Activating logical volume vga/f.",
		"V:activation/volume_list configuration setting not defined: Checking only host "
		"tags for vga/f.",
		"E:Refusing activation of partial LV vga/f.  Use '--activationmode partial' to "
		"override.",
		NULL,
	};
	const char *const pvscan_msgs[] = {
		"P+VG vga run autoactivation.",
		"E:Cannot change VG vga while PVs are missing.",
		"E:See vgreduce --removemissing and vgextend --restoremissing.",
		"E+activation for VG vga cannot read (1).",
		NULL,
	};

	const char *const slow_msgs[] = {
		"P+VG vga run autoactivation.",
		"E:Cannot change VG vga while PVs are missing.",
		"E:See vgreduce --removemissing and vgextend --restoremissing.",
		"E:Cannot process volume group vga",
		NULL,
	};
	/* loop31 kept the copy from before the change; both are read, in this order */
	const struct pf_aamsg_copy reread[] = { { "/dev/loop30", 5 }, { "/dev/loop31", 4 } };
	const char *const devs[] = { "/dev/loop30", "/dev/loop31" };
	const char *const read_lines[] = {
		"W:WARNING: ignoring metadata seqno 4 on /dev/loop31 for seqno 5 on /dev/loop30 for "
		"VG vga.",
		"W:WARNING: Inconsistent metadata found for VG vga.",
		"W:See vgck --updatemetadata to correct inconsistency.",
		"W:WARNING: VG vga was previously updated while PV /dev/loop31 was missing.",
		"W:WARNING: VG vga was missing PV /dev/loop31 tz2guY-5lhh-9Mcq-ZXkk-3u5V-dPZI-dXdof1.",
		NULL,
	};

	/* lvm2: written by "vgchange --addtag" while loop31 was filtered out, then read with
	 * both devices: "WARNING: VG vga was missing PV /dev/loop31 ...". */
	t.pv_flags[1] = "MISSING";
	vg = aa_build(&t);
	p = aa_decide(vg, &in);
	ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_OK);
	ck_assert_uint_eq(p->n_reappeared_pvs, 1);
	ck_assert_uint_eq(p->n_missing_pvs, 0);
	/* lvm2 (driver absent): "Refusing activation of partial LV vga/f.  Use '--activationmode
	 * partial' to override."; "Activated 0 logical volumes", exit 5. */
	ck_assert_str_eq(aa_letters(p), "AknAhPkn");
	ck_assert(p->failed);
	aa_check_lv_msgs(vg, &in, p, "f", f_partial);
	pf_aapolicy_free(p);

	/* lvm2: pvscan reads the VG without handling missing PVs and gives up, exit 5. */
	in.mode = PF_AAPOLICY_PVSCAN;
	in.claim = PF_AAPOLICY_CLAIM_WON;
	p = aa_decide(vg, &in);
	ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_MISSING_PVS);
	ck_assert(p->failed);
	aa_check_vg_msgs(vg, &in, p, pvscan_msgs);
	aa_check_read_msgs(vg, p, reread, ARRAY_SIZE(reread), devs, read_lines);
	pf_aapolicy_free(p);

	/* lvm2, both devices in one pvscan: process_each_vg's _ignore_vg says it instead. */
	in.process_each = true;
	p = aa_decide(vg, &in);
	aa_check_vg_msgs(vg, &in, p, slow_msgs);
	in.process_each = false;
	pf_aapolicy_free(p);

	/* activation_mode = "partial" lets lvm2 load it (with missing_stripe_filler). */
	in.mode = PF_AAPOLICY_VGCHANGE_EVENT;
	in.activation_mode = PF_AAPOLICY_MODE_PARTIAL;
	p = aa_decide(vg, &in);
	ck_assert_str_eq(aa_letters(p), "AknAhAkn");
	ck_assert(p->lvs[aa_idx(vg, "f")].partial);
	ck_assert(!p->failed);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_reappeared_pv_unused)
{
	static const struct tlv lvs[] = {
		{ "a", "RWV", NULL, NULL, NULL },
		{ "f", "RWV", NULL, NULL, NULL },
	};
	struct tvg t = { .name = "vga", .lvs = lvs, .n_lvs = ARRAY_SIZE(lvs) };
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_PVSCAN, .claim = WON };
	struct pf_vg *vg;
	struct pf_aapolicy *p;

	const struct pf_aamsg_copy same[] = { { "/dev/loop30", 5 }, { "/dev/loop31", 5 } };
	const char *const devs[] = { "/dev/loop30", "/dev/loop31" };
	const char *const lines[] = {
		"W:WARNING: VG vga was previously updated while PV /dev/loop31 was missing.",
		"W:WARNING: VG vga has unused reappeared PV /dev/loop31 "
		"tz2guY-5lhh-9Mcq-ZXkk-3u5V-dPZI-dXdof1.",
		NULL,
	};

	/* lvm2: "WARNING: VG vga has unused reappeared PV /dev/loop31 ..."; the flag is
	 * dropped and both commands go on (a, f activated). */
	t.pv_flags[1] = "MISSING";
	vg = aa_build(&t);
	for (int mode = 0; mode < _PF_AAPOLICY_MODE_MAX; mode++) {
		in.mode = (enum pf_aapolicy_mode)mode;
		p = aa_decide(vg, &in);
		ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_OK);
		ck_assert_uint_eq(p->n_unused_reappeared, 1);
		ck_assert_uint_eq(p->n_reappeared_pvs, 0);
		ck_assert_str_eq(aa_letters(p), "AA");
		aa_check_read_msgs(vg, p, same, ARRAY_SIZE(same), devs, lines);
		pf_aapolicy_free(p);
	}
	pf_vg_free(vg);
}
END_TEST

/* ---- LV kinds: lvm2's "vgseg" (tests/fixtures/segtypes plus additions) ---- */

/*
 * lvm2 (-vvvv, --driverloaded n) printed "Activating logical volume" for lin z e r0 tp th r1
 * m1 c1 lvol0_vorigin lin3, in that order, and "Skipping activation of cache pool
 * vgseg/cp2."; "Activated 12 logical volumes" (cp2 counts). With u1 added it also printed
 * "Activating logical volume vgseg/u1.", and driver absent then "Refusing activation of LV
 * vgseg/u1 containing an unrecognised segment.". The VDO LVs were not part of that VG.
 */
static const char kind_want[] = "AAAAsAAAAAAcAUhhhhhhhhhhhhhhhhhhhhhhdAh";

START_TEST(test_kinds)
{
	struct pf_vg *vg = aa_build(&aa_kind_vg);
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT };
	struct pf_aapolicy *p = aa_decide(vg, &in);
	const struct pf_aapolicy_lv *sp = &p->lvs[aa_idx(vg, "sp")];
	const char *const u1[] = {
		"V:activation/auto_activation_volume_list configuration setting not defined: All "
		"logical volumes will be auto-activated.",
		"V:Activating logical volume vgseg/u1.",
		"V:activation/volume_list configuration setting not defined: Checking only host "
		"tags for vgseg/u1.",
		"E:Refusing activation of LV vgseg/u1 containing an unrecognised segment.",
		NULL,
	};
	const char *const cp2[] = {
		"V:activation/auto_activation_volume_list configuration setting not defined: All "
		"logical volumes will be auto-activated.",
		"V:Skipping activation of cache pool vgseg/cp2.",
		NULL,
	};
	const char *const sp_msgs[] = {
		"V:activation/auto_activation_volume_list configuration setting not defined: All "
		"logical volumes will be auto-activated.",
		"V:Activating logical volume vgseg/lvol0_vorigin.",
		"V:activation/volume_list configuration setting not defined: Checking only host "
		"tags for vgseg/lvol0_vorigin.",
		NULL,
	};

	ck_assert_str_eq(aa_letters(p), kind_want);
	ck_assert(p->failed); /* u1 */
	/* lvm2: the sparse snapshot's COW asks for its virtual origin. */
	ck_assert_int_eq(sp->target, aa_idx(vg, "lvol0_vorigin"));
	ck_assert(sp->top_level);
	ck_assert_int_eq(p->lvs[aa_idx(vg, "lin")].target, aa_idx(vg, "lin"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "snap")].target, -1);
	/* lvs -a lists the COWs of visible origins without brackets: they are top-level. */
	ck_assert(p->lvs[aa_idx(vg, "snap")].top_level);
	ck_assert(!p->lvs[aa_idx(vg, "snapm")].top_level); /* merging */
	ck_assert(!p->lvs[aa_idx(vg, "snapshot0")].top_level);
	ck_assert(!p->lvs[aa_idx(vg, "lvol0_vorigin")].top_level);
	ck_assert(!p->lvs[aa_idx(vg, "cp")].top_level);
	/* Who brings the sub-LVs up. */
	ck_assert_int_eq(p->lvs[aa_idx(vg, "tp_tdata")].holder, aa_idx(vg, "tp"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "tp_tmeta")].holder, aa_idx(vg, "tp"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "cp_cdata")].holder, aa_idx(vg, "cp"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "cp")].holder, aa_idx(vg, "c1"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "c1_corig")].holder, aa_idx(vg, "c1"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "r1_rimage_1")].holder, aa_idx(vg, "r1"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "m1_mimage_0")].holder, aa_idx(vg, "m1"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "snap")].holder, aa_idx(vg, "lin"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "snapshot0")].holder, aa_idx(vg, "lin"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "snapm")].holder, aa_idx(vg, "lin3"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "lvol0_vorigin")].holder, aa_idx(vg, "sp"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "vpool0_vdata")].holder, aa_idx(vg, "vpool0"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "lin")].holder, -1);
	ck_assert_int_eq(p->lvs[aa_idx(vg, "lvol0_pmspare")].holder, -1);
	aa_check_lv_msgs(vg, &in, p, "u1", u1);
	aa_check_lv_msgs(vg, &in, p, "cp2", cp2);
	aa_check_lv_msgs(vg, &in, p, "sp", sp_msgs);
	ck_assert_uint_eq(p->n_expected, 14);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* lvm2: the gates after the COW -> origin switch look at the origin, not at the COW. */
START_TEST(test_sparse_snapshot_list)
{
	const char *const l_sp[] = { "vgseg/sp" };
	const char *const l_vo[] = { "vgseg/lvol0_vorigin" };
	struct pf_vg *vg = aa_build(&aa_kind_vg);
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT,
					.auto_activation_volume_list = LIST(l_sp) };
	struct pf_aapolicy *p = aa_decide(vg, &in);
	const char *const sp_msgs[] = {
		"V:activation/auto_activation_volume_list configuration setting defined: Checking "
		"the list to match vgseg/lvol0_vorigin.",
		"V:No item supplied in activation/auto_activation_volume_list configuration "
		"setting matches vgseg/lvol0_vorigin.",
		NULL,
	};

	/* lvm2: "... Checking the list to match vgseg/lvol0_vorigin." then "No item supplied". */
	ck_assert_int_eq(p->lvs[aa_idx(vg, "sp")].verdict, PF_AAPOLICY_LV_NOT_IN_AUTO_LIST);
	aa_check_lv_msgs(vg, &in, p, "sp", sp_msgs);
	pf_aapolicy_free(p);
	/* lvm2: "Activating logical volume vgseg/lvol0_vorigin.", "Activated 1 logical volumes". */
	in.auto_activation_volume_list = (struct pf_aapolicy_list)LIST(l_vo);
	p = aa_decide(vg, &in);
	ck_assert_int_eq(p->lvs[aa_idx(vg, "sp")].verdict, PF_AAPOLICY_LV_ACTIVATE);
	ck_assert_uint_eq(p->n_expected, 1);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* Gates are tested on the LV whatever its kind: ACTIVATION_SKIP on a thin pool and so on. */
START_TEST(test_kind_flags)
{
	static const struct tlv lvs[] = {
		{ "tp", "RWV", "ACTIVATION_SKIP", NULL,
		  "type = \"thin-pool\"\nmetadata = \"tp_tmeta\"\npool = \"tp_tdata\"" },
		{ "th", "RWV", "NOAUTOACTIVATE", NULL, "type = \"thin\"\nthin_pool = \"tp\"" },
		{ "tp_tdata", "RW", NULL, NULL, NULL },
		{ "tp_tmeta", "RW", NULL, NULL, NULL },
		{ "vis_cow", "RWV", "ACTIVATION_SKIP", NULL, NULL },
		{ "o", "RWV", NULL, NULL, NULL },
		{ "s0", "RWV", NULL, NULL,
		  "type = \"snapshot\"\norigin = \"o\"\ncow_store = \"vis_cow\"" },
		{ "hid", "RW", "ACTIVATION_SKIP", NULL, NULL },
		{ "mimg", "RWV", NULL, NULL, NULL },
		{ "mir", "RWV", NULL, NULL,
		  "type = \"mirror\"\nmirrors = [\"mimg\", 0]\nmirror_log = \"mlog\"" },
		{ "mlog", "RWV", NULL, NULL, NULL },
	};
	const struct tvg t = { .lvs = lvs, .n_lvs = ARRAY_SIZE(lvs) };
	struct pf_vg *vg = aa_build(&t);
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT };
	struct pf_aapolicy *p = aa_decide(vg, &in);

	/* The snapshot test comes before the skip flag; hidden before everything; visible
	 * mirror legs and logs are never activated on their own. */
	ck_assert_str_eq(aa_letters(p), "knhhsAhhmAm");
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* ---- partial LVs through stacks ---- */

static const struct tlv partial_lvs[] = {
	{ "x", "RWV", NULL, NULL, LIN("pv0", 0) },
	{ "tp", "RWV", NULL, NULL,
	  "type = \"thin-pool\"\nmetadata = \"tp_tmeta\"\npool = \"tp_tdata\"" },
	{ "th", "RWV", NULL, NULL, "type = \"thin\"\nthin_pool = \"tp\"" },
	{ "tp_tdata", "RW", NULL, NULL, LIN("pv1", 0) },
	{ "tp_tmeta", "RW", NULL, NULL, LIN("pv0", 1) },
	{ "r1", "RWV", NULL, NULL,
	  "type = \"raid1\"\nraids = [\"r1_rmeta_0\", \"r1_rimage_0\", \"r1_rmeta_1\", "
	  "\"r1_rimage_1\"]" },
	{ "r1_rmeta_0", "RW", NULL, NULL, LIN("pv0", 2) },
	{ "r1_rimage_0", "RW", NULL, NULL, LIN("pv0", 3) },
	{ "r1_rmeta_1", "RW", NULL, NULL, LIN("pv1", 1) },
	{ "r1_rimage_1", "RW", NULL, NULL, LIN("pv1", 2) },
	{ "cowp", "RW", NULL, NULL, LIN("pv1", 3) },
	{ "o", "RWV", NULL, NULL, LIN("pv0", 4) },
	{ "snapshot0", "RWV", NULL, NULL,
	  "type = \"snapshot\"\norigin = \"o\"\ncow_store = \"cowp\"" },
	{ "st", "RWV", NULL, NULL,
	  "extent_count = 2\ntype = \"striped\"\nstripe_count = 2\nstripe_size = 128\n"
	  "stripes = [\"pv0\", 5, \"pv1\", 4]" },
	{ "onlv", "RWV", NULL, NULL, "type = \"striped\"\nstripe_count = 1\nstripes = [\"x\", 0]" },
	{ "pvmove0", "RWL", NULL, NULL, "type = \"mirror\"\nmirrors = [\"pv0\", 9, \"pv1\", 9]" },
};

START_TEST(test_partial_stacks)
{
	const struct tvg t = { .pv_flags = { NULL, "MISSING" }, .lvs = partial_lvs,
			       .n_lvs = ARRAY_SIZE(partial_lvs) };
	struct pf_vg *vg = aa_build(&t);
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT };
	struct pf_aapolicy *p = aa_decide(vg, &in);

	/*
	 * pv1 is the reappeared PV. The thin pool and its thin LV, the raid (lvm2 then tries a
	 * degraded raid1), the origin whose COW is on pv1 (lvm2 makes an origin depend on its
	 * COWs), a stripe set across both PVs and the pvmove mirror are partial; an LV stacked
	 * on x is not. pvmove0 (LOCKED, hidden, PV areas in a mirror segment) is partial too.
	 */
	ck_assert_str_eq(aa_letters(p), "APPhhRhhhhsPhPAh");
	ck_assert(!p->lvs[aa_idx(vg, "x")].partial);
	ck_assert(p->lvs[aa_idx(vg, "pvmove0")].partial);
	ck_assert(!p->lvs[aa_idx(vg, "onlv")].partial);
	ck_assert(p->lvs[aa_idx(vg, "tp_tdata")].partial);
	ck_assert(!p->lvs[aa_idx(vg, "tp_tmeta")].partial);
	ck_assert(p->lvs[aa_idx(vg, "cowp")].partial);
	ck_assert(p->failed);
	pf_aapolicy_free(p);

	in.activation_mode = PF_AAPOLICY_MODE_COMPLETE;
	p = aa_decide(vg, &in);
	ck_assert_str_eq(aa_letters(p), "APPhhRhhhhsPhPAh");
	pf_aapolicy_free(p);

	in.activation_mode = PF_AAPOLICY_MODE_PARTIAL;
	p = aa_decide(vg, &in);
	ck_assert_str_eq(aa_letters(p), "AAAhhAhhhhsAhAAh");
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_partial_pv_missing_device)
{
	const struct tvg t = { .lvs = partial_lvs, .n_lvs = ARRAY_SIZE(partial_lvs) };
	struct pf_vg *vg = aa_build(&t);
	const bool present[] = { false, true };
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT, .pv_present = present };
	struct pf_aapolicy *p = aa_decide(vg, &in);

	ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_INCOMPLETE);
	ck_assert(p->lvs[aa_idx(vg, "x")].partial);
	ck_assert(p->lvs[aa_idx(vg, "onlv")].partial); /* through the LV it is stacked on */
	ck_assert(p->lvs[aa_idx(vg, "tp")].partial);   /* tmeta on pv0 */
	ck_assert(p->lvs[aa_idx(vg, "th")].partial);
	ck_assert(!p->lvs[aa_idx(vg, "tp_tdata")].partial);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* ---- device-mapper state ---- */

START_TEST(test_already_active)
{
	struct pf_vg *vg = aa_build(&aa_gate_vg);
	bool active[8] = { 0 };
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT, .lv_active = active };
	struct pf_aapolicy *p;
	const char *const vgm[] = { "V:2 logical volume(s) in volume group \"vga\" already active",
				    NULL };
	const char *const am[] = {
		"V:activation/auto_activation_volume_list configuration setting not defined: All "
		"logical volumes will be auto-activated.",
		"V:Activating logical volume vga/a.",
		"V:activation/volume_list configuration setting not defined: Checking only host "
		"tags for vga/a.",
		"D:LV vga/a is already active.",
		NULL,
	};

	active[aa_idx(vg, "a")] = true;
	active[aa_idx(vg, "b")] = true; /* skipped anyway */
	active[aa_idx(vg, "e")] = true; /* hidden: not counted */
	p = aa_decide(vg, &in);
	ck_assert_str_eq(aa_letters(p), "aknAhAkn");
	ck_assert_uint_eq(p->n_active, 2);
	aa_check_vg_msgs(vg, &in, p, vgm);
	aa_check_lv_msgs(vg, &in, p, "a", am);
	pf_aapolicy_free(p);

	/* The volume_list is tested before the active check. */
	in.volume_list = (struct pf_aapolicy_list)EMPTY_LIST;
	p = aa_decide(vg, &in);
	ck_assert_str_eq(aa_letters(p), "vknvhvkn");
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_component_active)
{
	static const struct tlv lvs[] = {
		{ "tp", "RWV", NULL, NULL,
		  "type = \"thin-pool\"\nmetadata = \"tp_tmeta\"\npool = \"tp_tdata\"" },
		{ "th", "RWV", NULL, NULL, "type = \"thin\"\nthin_pool = \"tp\"" },
		{ "tp_tdata", "RW", NULL, NULL, NULL },
		{ "tp_tmeta", "RW", NULL, NULL, NULL },
		{ "plain", "RWV", NULL, NULL, NULL },
		{ "r1", "RWV", NULL, NULL,
		  "type = \"raid1\"\nraids = [\"r1_rmeta_0\", \"r1_rimage_0\"]" },
		{ "r1_rmeta_0", "RW", NULL, NULL, NULL },
		{ "r1_rimage_0", "RW", NULL, NULL, NULL },
	};
	const struct tvg t = { .lvs = lvs, .n_lvs = ARRAY_SIZE(lvs) };
	struct pf_vg *vg = aa_build(&t);
	bool active[8] = { 0 };
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT, .lv_active = active };
	struct pf_aapolicy *p;
	const char *const tp_msgs[] = {
		"V:activation/auto_activation_volume_list configuration setting not defined: All "
		"logical volumes will be auto-activated.",
		"V:Activating logical volume vg1/tp.",
		"E:Activation of logical volume vg1/tp is prohibited while logical volume "
		"vg1/tp_tdata is active.",
		NULL,
	};

	/* From source (activate_lv): a component activated alone blocks its stack. */
	active[aa_idx(vg, "tp_tdata")] = true;
	active[aa_idx(vg, "r1_rimage_0")] = true;
	p = aa_decide(vg, &in);
	ck_assert_str_eq(aa_letters(p), "CChhAChh");
	ck_assert_int_eq(p->lvs[aa_idx(vg, "tp")].component, aa_idx(vg, "tp_tdata"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "th")].component, aa_idx(vg, "tp_tdata"));
	ck_assert_int_eq(p->lvs[aa_idx(vg, "plain")].component, -1);
	ck_assert(p->failed);
	aa_check_lv_msgs(vg, &in, p, "tp", tp_msgs);
	pf_aapolicy_free(p);

	/* An active thin LV means the pool is in use: lvm2 checks nothing for the pool. */
	active[aa_idx(vg, "th")] = true;
	p = aa_decide(vg, &in);
	ck_assert_int_eq(p->lvs[aa_idx(vg, "tp")].verdict, PF_AAPOLICY_LV_ACTIVATE);
	ck_assert_int_eq(p->lvs[aa_idx(vg, "th")].verdict, PF_AAPOLICY_LV_ALREADY_ACTIVE);
	pf_aapolicy_free(p);

	/* The active LV itself is never blocked by its components. */
	active[aa_idx(vg, "th")] = false;
	active[aa_idx(vg, "tp")] = true;
	p = aa_decide(vg, &in);
	ck_assert_int_eq(p->lvs[aa_idx(vg, "tp")].verdict, PF_AAPOLICY_LV_ALREADY_ACTIVE);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* lvm2 (a copy of vgb's PV on a second loop device): per LV, exit 5. */
START_TEST(test_duplicate_pvs)
{
	struct pf_vg *vg = aa_build(&aa_gate_vg);
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT, .duplicate_pvs = true };
	struct pf_aapolicy *p = aa_decide(vg, &in);
	const char *const am[] = {
		"V:activation/auto_activation_volume_list configuration setting not defined: All "
		"logical volumes will be auto-activated.",
		"E:Cannot activate LVs in VG vga while PVs appear on duplicate devices.",
		NULL,
	};

	ck_assert_str_eq(aa_letters(p), "DknDhDkn");
	ck_assert(p->failed);
	aa_check_lv_msgs(vg, &in, p, "a", am);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_integrity_recalculate)
{
	struct pf_vg *vg = aa_build(&aa_integrity_vg);
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_PVSCAN, .claim = WON };
	struct pf_aapolicy *p = aa_decide(vg, &in);
	const char *const ig[] = {
		"V:activation/auto_activation_volume_list configuration setting not defined: All "
		"logical volumes will be auto-activated.",
		"E:Cannot activate uninitialized integrity LV vga/ig from pvscan.",
		NULL,
	};

	/* lvm2: pvscan "Cannot activate uninitialized integrity LV vga/ig from pvscan.", then
	 * "pvscan[N] vga: autoactivation failed.", exit 5; vgchange activates it (and would
	 * rewrite the metadata afterwards). The raid over integrity images is from source. */
	ck_assert_str_eq(aa_letters(p), "AIhIhhh");
	ck_assert(p->failed);
	aa_check_lv_msgs(vg, &in, p, "ig", ig);
	pf_aapolicy_free(p);
	in.mode = PF_AAPOLICY_VGCHANGE_EVENT;
	p = aa_decide(vg, &in);
	ck_assert_str_eq(aa_letters(p), "AAhAhhh");
	ck_assert(!p->failed);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* lvm2 refuses to read a raid1 with a visible image ("LV segments corrupted"); pf_vg reads it. */
START_TEST(test_raid_visible_sublvs)
{
	static const struct tlv lvs[] = {
		{ "rv", "RWV", NULL, NULL,
		  "type = \"raid1\"\nraids = [\"rv_rmeta_0\", \"rv_rimage_0\", \"rv_rmeta_1\", "
		  "\"rv_rimage_1\"]" },
		{ "rv_rmeta_0", "RW", NULL, NULL, NULL },
		{ "rv_rimage_0", "RWV", NULL, NULL, NULL },
		{ "rv_rmeta_1", "RW", NULL, NULL, NULL },
		{ "rv_rimage_1", "RW", NULL, NULL, NULL },
		{ "rs", "RWV", NULL, NULL,
		  "type = \"raid1\"\nraids = [\"rs_rmeta_0\", \"rs_rimage_0\"]" },
		{ "rs_rmeta_0", "RW", NULL, NULL, NULL },
		/* split off with --trackchanges: visible, read-only */
		{ "rs_rimage_0", "RV", NULL, NULL, NULL },
		{ "rm", "RWV", NULL, NULL,
		  "type = \"raid1\"\nraids = [\"rm_rmeta_0\", \"rm_rimage_0\"]" },
		{ "rm_rmeta_0", "RV", NULL, NULL, NULL },
		{ "rm_rimage_0", "RW", NULL, NULL, NULL },
	};
	const struct tvg t = { .lvs = lvs, .n_lvs = ARRAY_SIZE(lvs) };
	struct pf_vg *vg = aa_build(&t);
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT };
	struct pf_aapolicy *p = aa_decide(vg, &in);
	const char *const rv[] = {
		"V:activation/auto_activation_volume_list configuration setting not defined: All "
		"logical volumes will be auto-activated.",
		"V:Activating logical volume vg1/rv.",
		"V:activation/volume_list configuration setting not defined: Checking only host "
		"tags for vg1/rv.",
		"E:Refusing activation of RAID LV vg1/rv with visible SubLVs.",
		NULL,
	};

	/* The visible images are top-level LVs for -aay too (lvm2 would try them). */
	ck_assert_str_eq(aa_letters(p), "ShAhhAhASAh");
	aa_check_lv_msgs(vg, &in, p, "rv", rv);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_unknown_segment_flags)
{
	static const struct tlv lvs[] = {
		{ "known", "RWV", NULL, NULL, "type = \"raid5+RESHAPE+REMOVE_AFTER_RESHAPE\"" },
		{ "badflag", "RWV", NULL, NULL, "type = \"raid5+FOO\"" },
		{ "trail", "RWV", NULL, NULL, "type = \"zero+\"" },
		{ "raid", "RWV", NULL, NULL, "type = \"raid\"" },
		{ "lin", "RWV", NULL, NULL, "type = \"linear\"" },
		{ "long", "RWV", NULL, NULL,
		  "type = \"a-segment-type-name-much-longer-than-any-real-one\"" },
		{ "cv", "RWV", NULL, NULL, "type = \"cache+CACHE_USES_CACHEVOL\"" },
	};
	const struct tvg t = { .lvs = lvs, .n_lvs = ARRAY_SIZE(lvs) };
	struct pf_vg *vg = aa_build(&t);
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT };
	struct pf_aapolicy *p = aa_decide(vg, &in);

	/* From lvm2's read_segtype_and_flags(): an unknown flag keeps the whole string. */
	ck_assert_str_eq(aa_letters(p), "AUUUAUA");
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* ---- order of the LV gates, one pair at a time ---- */

struct order_row {
	const char *flags, *tags;
	bool in_auto_list, cache_pool, dup, unknown;
	bool in_volume_list;
	char want;
};

static const struct order_row order_rows[] = {
	/* skip flag, then auto list, then NOAUTOACTIVATE (lvm2: g, h, C3 row above). */
	{ "ACTIVATION_SKIP", NULL, false, false, false, false, true, 'k' },
	{ "NOAUTOACTIVATE", NULL, false, false, false, false, true, 'l' },
	{ "NOAUTOACTIVATE", NULL, true, true, true, true, false, 'n' },
	/* then lv_change_activate: cache pool before duplicates (both count/fail) */
	{ NULL, NULL, true, true, true, true, false, 'c' },
	{ NULL, NULL, true, false, true, true, false, 'D' },
	/* then the activation filter, before the unknown segment */
	{ NULL, NULL, true, false, false, true, false, 'v' },
	{ NULL, NULL, true, false, false, true, true, 'U' },
	{ NULL, NULL, true, false, false, false, true, 'A' },
};

START_TEST(test_gate_order)
{
	const struct order_row *row = &order_rows[_i];
	const char *seg = row->cache_pool ? "type = \"cache-pool\"\ndata = \"x\"" :
			  row->unknown	  ? "type = \"frobnicate\"" :
					    NULL;
	const struct tlv lvs[] = { { "t", "RWV", row->flags, row->tags, seg },
				   { "x", "RW", NULL, NULL, NULL } };
	const struct tvg tv = { .lvs = lvs, .n_lvs = ARRAY_SIZE(lvs) };
	struct pf_vg *vg = aa_build(&tv);
	const char *const yes[] = { "vg1/t" }, *const no[] = { "vg1/x" };
	struct pf_aapolicy_input in = {
		.mode = PF_AAPOLICY_VGCHANGE_EVENT,
		.duplicate_pvs = row->dup,
	};
	struct pf_aapolicy *p;

	in.auto_activation_volume_list =
		row->in_auto_list ? (struct pf_aapolicy_list)LIST(yes) :
				    (struct pf_aapolicy_list)LIST(no);
	in.volume_list = row->in_volume_list ? (struct pf_aapolicy_list)LIST(yes) :
					       (struct pf_aapolicy_list)LIST(no);
	p = aa_decide(vg, &in);
	ck_assert_msg(aa_letters(p)[0] == row->want, "row %d: %c, want %c", _i, aa_letters(p)[0],
		      row->want);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

/* ---- hostile metadata and bad input ---- */

START_TEST(test_snapshot_cycle)
{
	static const struct tlv lvs[] = {
		{ "a", "RW", NULL, NULL, NULL },
		{ "b", "RW", NULL, NULL, NULL },
		{ "s1", "RWV", NULL, NULL,
		  "type = \"snapshot\"\norigin = \"a\"\ncow_store = \"b\"" },
		{ "s2", "RWV", NULL, NULL,
		  "type = \"snapshot\"\norigin = \"b\"\ncow_store = \"a\"" },
		{ "s3", "RWV", NULL, NULL,
		  "type = \"snapshot\"\norigin = \"s3\"\ncow_store = \"s3\"" },
		{ "s4", "RWV", NULL, NULL,
		  "type = \"snapshot\"\norigin = \"nope\"\ncow_store = \"a\"" },
		{ "loop1", "RWV", NULL, NULL, "type = \"thin\"\nthin_pool = \"loop2\"" },
		{ "loop2", "RW", NULL, NULL, "type = \"thin-pool\"\npool = \"loop1\"" },
	};
	const struct tvg t = { .pv_flags = { "MISSING", NULL }, .lvs = lvs,
			       .n_lvs = ARRAY_SIZE(lvs) };
	struct pf_vg *vg = aa_build(&t);
	bool active[8] = { false, false, false, false, false, false, false, true };
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT, .lv_active = active };
	struct pf_aapolicy *p = aa_decide(vg, &in);

	/* Nothing sensible to expect beyond terminating with every LV decided. */
	for (unsigned i = 0; i < p->n_lvs; i++)
		ck_assert_int_ne(p->lvs[i].verdict, PF_AAPOLICY_LV_NOT_REACHED);
	ck_assert(p->lvs[aa_idx(vg, "a")].partial);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_bad_input)
{
	struct pf_vg *vg = aa_build(&aa_gate_vg);
	static struct pf_aapolicy sentinel;
	struct pf_aapolicy *p = &sentinel; /* must stay untouched */
	struct pf_aapolicy_input in = { .mode = _PF_AAPOLICY_MODE_MAX };

	ck_assert_int_eq(pf_aapolicy_decide(vg, &in, &p), -EINVAL);
	in.mode = PF_AAPOLICY_PVSCAN;
	in.claim = _PF_AAPOLICY_CLAIM_MAX;
	ck_assert_int_eq(pf_aapolicy_decide(vg, &in, &p), -EINVAL);
	in.claim = PF_AAPOLICY_CLAIM_NONE;
	in.activation_mode = _PF_AAPOLICY_ACTIVATION_MODE_MAX;
	ck_assert_int_eq(pf_aapolicy_decide(vg, &in, &p), -EINVAL);
	ck_assert_ptr_eq(p, &sentinel);
	ck_assert_ptr_null(pf_aapolicy_free(NULL));
	/* Out-of-range LV indexes give no message lines. */
	in.activation_mode = PF_AAPOLICY_MODE_DEGRADED;
	p = aa_decide(vg, &in);
	ck_assert_int_eq(pf_aamsg_lv(vg, &in, p, 99, NULL, 0), 0);
	ck_assert_int_eq(pf_aamsg_lv(vg, &in, p, 0, NULL, 0), 0);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_empty_vg)
{
	const struct tvg t = { .n_pvs = 1 };
	struct pf_vg *vg = aa_build(&t);
	struct pf_aapolicy_input in = { .mode = PF_AAPOLICY_VGCHANGE_EVENT };
	struct pf_aapolicy *p = aa_decide(vg, &in);

	ck_assert_int_eq(p->verdict, PF_AAPOLICY_VG_OK);
	ck_assert_uint_eq(p->n_lvs, 0);
	ck_assert_uint_eq(p->n_expected, 0);
	pf_aapolicy_free(p);
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_input_from_settings)
{
	char *aal[] = { (char[]){ "vga" } }, *tags[] = { (char[]){ "foo" } };
	struct pf_settings s = { 0 };
	struct pf_aapolicy_input in;

	s.auto_activation_volume_list = (struct pf_settings_strv){ .set = true, .n = 1, .v = aal };
	s.volume_list = (struct pf_settings_strv){ .set = true, .n = 0 };
	s.host_tags = (struct pf_settings_strv){ .set = true, .n = 1, .v = tags };
	s.system_id = (char[]){ "thishost" };
	s.system_id_unknown = false;
	memset(&in, 0xff, sizeof(in));
	pf_aapolicy_input_from_settings(&s, PF_AAPOLICY_PVSCAN, &in);
	ck_assert_int_eq(in.mode, PF_AAPOLICY_PVSCAN);
	ck_assert_int_eq(in.claim, PF_AAPOLICY_CLAIM_NONE);
	ck_assert(in.auto_activation_volume_list.set);
	ck_assert_uint_eq(in.auto_activation_volume_list.n, 1);
	ck_assert_str_eq(in.auto_activation_volume_list.v[0], "vga");
	ck_assert(in.volume_list.set);
	ck_assert_uint_eq(in.volume_list.n, 0);
	ck_assert_str_eq(in.host_tags.v[0], "foo");
	ck_assert_str_eq(in.system_id, "thishost");
	ck_assert(!in.extra_system_ids.set);
	ck_assert_int_eq(in.activation_mode, PF_AAPOLICY_MODE_DEGRADED);
	ck_assert_ptr_null(in.pv_present);
	ck_assert_ptr_null(in.lv_active);
	ck_assert(!in.duplicate_pvs);
}
END_TEST

START_TEST(test_error_verdicts)
{
	for (int v = 0; v < _PF_AAPOLICY_LV_VERDICT_MAX; v++) {
		bool want = v == PF_AAPOLICY_LV_DUPLICATE_PVS ||
			    v == PF_AAPOLICY_LV_INTEGRITY_RECALC ||
			    v == PF_AAPOLICY_LV_COMPONENT_ACTIVE || v == PF_AAPOLICY_LV_PARTIAL ||
			    v == PF_AAPOLICY_LV_UNKNOWN_SEGMENT ||
			    v == PF_AAPOLICY_LV_RAID_VISIBLE_SUBLVS;

		ck_assert_int_eq(pf_aapolicy_lv_is_error((enum pf_aapolicy_lv_verdict)v), want);
	}
}
END_TEST

/* The --dry-run reasons pvscan-fast prints, one per verdict. */
static const char *const lv_reasons[] = {
	[PF_AAPOLICY_LV_ACTIVATE] = "activated",
	[PF_AAPOLICY_LV_NOT_REACHED] = "the VG is not activated",
	[PF_AAPOLICY_LV_HIDDEN] = "not a top-level LV; comes up with the LV using it",
	[PF_AAPOLICY_LV_SNAPSHOT] = "a snapshot; comes up with its origin",
	[PF_AAPOLICY_LV_MIRROR_PART] = "a mirror image or log",
	[PF_AAPOLICY_LV_VDO_POOL] = "a VDO pool",
	[PF_AAPOLICY_LV_ACTIVATION_SKIP] = "activation skip flag set",
	[PF_AAPOLICY_LV_NOT_IN_AUTO_LIST] = "not in auto_activation_volume_list",
	[PF_AAPOLICY_LV_NOAUTOACTIVATE] = "autoactivation disabled for the LV",
	[PF_AAPOLICY_LV_CACHE_POOL] = "an unattached cache pool",
	[PF_AAPOLICY_LV_DUPLICATE_PVS] = "its PVs have duplicates",
	[PF_AAPOLICY_LV_INTEGRITY_RECALC] = "integrity recalculation pending",
	[PF_AAPOLICY_LV_COMPONENT_ACTIVE] = "a component LV is active on its own",
	[PF_AAPOLICY_LV_NOT_IN_VOLUME_LIST] = "not in volume_list",
	[PF_AAPOLICY_LV_PARTIAL] = "a PV it uses is missing",
	[PF_AAPOLICY_LV_PARTIAL_RAID] = "raid with a PV missing",
	[PF_AAPOLICY_LV_UNKNOWN_SEGMENT] = "a segment type lvm2 does not know",
	[PF_AAPOLICY_LV_RAID_VISIBLE_SUBLVS] = "raid with visible sub-LVs",
	[PF_AAPOLICY_LV_ALREADY_ACTIVE] = "already active",
};

START_TEST(test_lv_verdict_table)
{
	enum pf_aapolicy_lv_stage last = PF_AAPOLICY_STAGE_SKIP;

	ck_assert_uint_eq(ARRAY_SIZE(lv_reasons), _PF_AAPOLICY_LV_VERDICT_MAX);
	for (int v = 0; v < _PF_AAPOLICY_LV_VERDICT_MAX; v++) {
		const struct pf_aapolicy_lv_verdict_info *i =
			pf_aapolicy_lv_verdict_info((enum pf_aapolicy_lv_verdict)v);
		unsigned conv = 0;

		ck_assert_str_eq(i->reason, lv_reasons[v]);
		/* the gates run in the verdicts' order: from ACTIVATION_SKIP on, stages only grow */
		if (v >= PF_AAPOLICY_LV_ACTIVATION_SKIP) {
			ck_assert_int_ge(i->stage, last);
			last = i->stage;
		}
		ck_assert_int_eq(i->stage == PF_AAPOLICY_STAGE_NONE,
				 v >= PF_AAPOLICY_LV_NOT_REACHED && v <= PF_AAPOLICY_LV_VDO_POOL);
		/* only an LV lvm2 asked to activate can fail it */
		if (i->error)
			ck_assert_int_ge(i->stage, PF_AAPOLICY_STAGE_REQUEST);
		ck_assert_int_lt(i->level, _PF_AAMSG_LEVEL_MAX);
		/* every line takes names only, at most (vg, lv, vg, LV in the way) */
		for (const char *c = i->line; c && (c = strchr(c, '%')); c += 6) {
			ck_assert_msg(!strncmp(c, "%.128s", 6), "%s", i->line);
			conv++;
		}
		ck_assert_uint_le(conv, v == PF_AAPOLICY_LV_COMPONENT_ACTIVE ? 4 : 2);
	}
	ck_assert_str_eq(pf_aapolicy_lv_verdict_info(_PF_AAPOLICY_LV_VERDICT_MAX)->reason, "?");
	ck_assert_ptr_null(pf_aapolicy_lv_verdict_info(_PF_AAPOLICY_LV_VERDICT_MAX)->line);
}
END_TEST

START_TEST(test_vg_verdict_reasons)
{
	ck_assert_str_eq(pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_OK), "");
	ck_assert_str_eq(pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_SHARED), "shared VG");
	ck_assert_str_eq(pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_FOREIGN), "foreign VG");
	ck_assert_str_eq(pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_EXPORTED), "exported VG");
	ck_assert_str_eq(pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_INCOMPLETE), "PVs missing");
	ck_assert_str_eq(pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_CLAIMED),
			 "claimed by another pvscan");
	ck_assert_str_eq(pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_CLUSTERED), "clustered VG");
	ck_assert_str_eq(pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_READ_ONLY), "read-only VG");
	ck_assert_str_eq(pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_MISSING_PVS),
			 "PVs flagged missing");
	ck_assert_str_eq(pf_aapolicy_vg_verdict_reason(PF_AAPOLICY_VG_NOAUTOACTIVATE),
			 "autoactivation disabled for the VG");
	ck_assert_str_eq(pf_aapolicy_vg_verdict_reason(_PF_AAPOLICY_VG_VERDICT_MAX), "?");
}
END_TEST

START_TEST(test_list_first_match)
{
	struct pf_vg *vg = aa_build(&aa_gate_vg);
	const char *const entries[] = { "", "@", NULL, "vga/d", "@foo", "vga" };
	const struct pf_aapolicy_list list = LIST(entries), none = { 0 };
	const struct pf_vg_lv *a = pf_vg_find_lv(vg, "a"), *d = pf_vg_find_lv(vg, "d");

	/* d: its own entry, before its tag; a: only the whole VG */
	ck_assert_uint_eq(pf_aapolicy_list_first_match(&list, &none, vg, d), 3);
	ck_assert_uint_eq(pf_aapolicy_list_first_match(&list, &none, vg, a), 5);
	ck_assert(pf_aapolicy_list_entry_skipped(""));
	ck_assert(pf_aapolicy_list_entry_skipped("@"));
	ck_assert(!pf_aapolicy_list_entry_skipped("@x"));
	ck_assert(!pf_aapolicy_list_entry_skipped(NULL));
	ck_assert(!pf_aapolicy_list_entry_skipped("vga"));
	pf_vg_free(vg);
}
END_TEST

START_TEST(test_system_id_allowed)
{
	const struct tvg t = { .extra = "system_id = \"other\"", .n_pvs = 1 };
	const char *const extra[] = { "other" };
	struct pf_vg *vg = aa_build(&t);
	struct pf_aapolicy_input in = { .system_id = "mine" };

	ck_assert(!pf_aapolicy_system_id_allowed(&in, vg));
	in.system_id = "other";
	ck_assert(pf_aapolicy_system_id_allowed(&in, vg));
	in.system_id_unknown = true;
	ck_assert(!pf_aapolicy_system_id_allowed(&in, vg));
	in.system_id_unknown = false;
	in.system_id = "mine";
	in.extra_system_ids = (struct pf_aapolicy_list)LIST(extra);
	ck_assert(pf_aapolicy_system_id_allowed(&in, vg));
	in.system_id = NULL;
	ck_assert(!pf_aapolicy_system_id_allowed(&in, vg));
	pf_vg_free(vg);
	vg = aa_build(&aa_gate_vg); /* no system ID: any host */
	ck_assert(pf_aapolicy_system_id_allowed(&in, vg));
	pf_vg_free(vg);
}
END_TEST

/* A VG as the name checks see it: name, UUID, system ID. */
static struct pf_vg named_vg(const char *name, const char *id, const char *system_id)
{
	struct pf_vg vg = { .name = name, .system_id = system_id };

	(void)snprintf(vg.id, sizeof(vg.id), "%s", id);
	return vg;
}

/*
 * lvm2's duplicate VG names over a scan: of one VG's devices only the first counts; a later
 * VG collides with the first readable one of another UUID; foreign VGs take no part.
 */
START_TEST(test_vgnames)
{
	struct pf_vg a1 = named_vg("vgA", "id1", NULL), a1b = named_vg("vgA", "id1", NULL),
		     a3 = named_vg("vgA", "id3", NULL), b2 = named_vg("vgB", "id2", NULL),
		     b2b = named_vg("vgB", "id2", NULL), c4f = named_vg("vgC", "id4", "otherhost"),
		     c5 = named_vg("vgC", "id5", NULL), c4b = named_vg("vgC", "id4", "otherhost"),
		     c6 = named_vg("vgC", "id6", NULL);
	const struct pf_vg *vgs[] = { &a1, &b2, &a3, NULL, &a1b, &b2b, &c4f, &c5, &c4b, &c6 };
	struct pf_aapolicy_input in = { .system_id = "thishost" };
	struct pf_aapolicy_vgnames v;
	size_t other = 99;

	ck_assert_int_eq(pf_aapolicy_vgnames_find(&in, vgs, ARRAY_SIZE(vgs), &v), 0);
	/* vgA id3 (device 2) collides with vgA id1 on device 0; id1's second device does not */
	ck_assert(pf_aapolicy_vgnames_taken(&v, 2, &other));
	ck_assert_uint_eq(other, 0);
	ck_assert(!pf_aapolicy_vgnames_taken(&v, 4, &other));
	ck_assert(!pf_aapolicy_vgnames_taken(&v, 0, &other));
	/* vgB: one UUID on two devices */
	ck_assert(!pf_aapolicy_vgnames_taken(&v, 1, &other));
	ck_assert(!pf_aapolicy_vgnames_taken(&v, 5, &other));
	ck_assert(!pf_aapolicy_vgnames_taken(&v, 3, &other));
	/* vgC: the foreign id4 is passed over; id6 collides with id5, the first readable */
	ck_assert(!pf_aapolicy_vgnames_taken(&v, 6, &other));
	ck_assert(!pf_aapolicy_vgnames_taken(&v, 7, &other));
	ck_assert(!pf_aapolicy_vgnames_taken(&v, 8, &other));
	ck_assert(pf_aapolicy_vgnames_taken(&v, 9, &other));
	ck_assert_uint_eq(other, 7);
	ck_assert(!pf_aapolicy_vgnames_taken(&v, ARRAY_SIZE(vgs), &other));
	ck_assert(pf_aapolicy_vgnames_ambiguous(&v, "vgA"));
	ck_assert(!pf_aapolicy_vgnames_ambiguous(&v, "vgB"));
	ck_assert(pf_aapolicy_vgnames_ambiguous(&v, "vgC"));
	ck_assert(!pf_aapolicy_vgnames_ambiguous(&v, "vgD"));
	pf_aapolicy_vgnames_release(&v);

	/* the first device's VG again later, after another UUID: that one collides with it */
	{
		struct pf_vg x1 = named_vg("vgX", "id1", NULL), x2 = named_vg("vgX", "id2", NULL),
			     x1b = named_vg("vgX", "id1", NULL);
		const struct pf_vg *w[] = { &x1, &x2, &x1b };

		ck_assert_int_eq(pf_aapolicy_vgnames_find(&in, w, ARRAY_SIZE(w), &v), 0);
		ck_assert(!pf_aapolicy_vgnames_taken(&v, 0, &other));
		ck_assert(pf_aapolicy_vgnames_taken(&v, 1, &other));
		ck_assert_uint_eq(other, 0);
		ck_assert(!pf_aapolicy_vgnames_taken(&v, 2, &other));
		pf_aapolicy_vgnames_release(&v);
	}
	/* none at all */
	ck_assert_int_eq(pf_aapolicy_vgnames_find(&in, vgs, 0, &v), 0);
	ck_assert(!pf_aapolicy_vgnames_ambiguous(&v, "vgA"));
	pf_aapolicy_vgnames_release(&v);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("aapolicy");
	TCase *tc = pf_unit_tcase("aapolicy");

	tcase_add_loop_test(tc, test_gates, 0, (int)ARRAY_SIZE(gate_rows));
	tcase_add_loop_test(tc, test_list_matches, 0, (int)ARRAY_SIZE(match_rows));
	tcase_add_test(tc, test_empty_list_matches_nothing);
	tcase_add_loop_test(tc, test_vg_gates, 0, (int)ARRAY_SIZE(vg_rows));
	tcase_add_test(tc, test_incomplete);
	tcase_add_test(tc, test_incomplete_noautoactivate);
	tcase_add_test(tc, test_md_hint_moved);
	tcase_add_test(tc, test_reappeared_pv_in_use);
	tcase_add_test(tc, test_reappeared_pv_unused);
	tcase_add_test(tc, test_kinds);
	tcase_add_test(tc, test_sparse_snapshot_list);
	tcase_add_test(tc, test_kind_flags);
	tcase_add_test(tc, test_partial_stacks);
	tcase_add_test(tc, test_partial_pv_missing_device);
	tcase_add_test(tc, test_already_active);
	tcase_add_test(tc, test_component_active);
	tcase_add_test(tc, test_duplicate_pvs);
	tcase_add_test(tc, test_integrity_recalculate);
	tcase_add_test(tc, test_raid_visible_sublvs);
	tcase_add_test(tc, test_unknown_segment_flags);
	tcase_add_loop_test(tc, test_gate_order, 0, (int)ARRAY_SIZE(order_rows));
	tcase_add_test(tc, test_snapshot_cycle);
	tcase_add_test(tc, test_bad_input);
	tcase_add_test(tc, test_empty_vg);
	tcase_add_test(tc, test_input_from_settings);
	tcase_add_test(tc, test_error_verdicts);
	tcase_add_test(tc, test_lv_verdict_table);
	tcase_add_test(tc, test_vg_verdict_reasons);
	tcase_add_test(tc, test_list_first_match);
	tcase_add_test(tc, test_system_id_allowed);
	tcase_add_test(tc, test_vgnames);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
