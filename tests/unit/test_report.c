/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command's lvm2 lines: their bytes, and that --udevoutput leaves udev only its lines. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "report.h"
#include "unit.h"

/* What fn printed on stdout. */
static void capture(void (*fn)(const struct pf_opts *), const struct pf_opts *o, char *buf,
		    size_t size)
{
	FILE *f = tmpfile();
	int saved = dup(STDOUT_FILENO);
	size_t n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(saved, 0);
	(void)fflush(stdout);
	ck_assert_int_ge(dup2(fileno(f), STDOUT_FILENO), 0);
	fn(o);
	(void)fflush(stdout);
	ck_assert_int_ge(dup2(saved, STDOUT_FILENO), 0);
	(void)close(saved);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	(void)fclose(f);
}

static void print_line(const struct pf_opts *o)
{
	pf_report_print(o, "VG %s", "vg0");
}

static void udev_lines(const struct pf_opts *o _unused_)
{
	pf_report_udev_vg("vg0", true);
	pf_report_udev_vg("vg.1", false);
}

static void list_vg_events(const struct pf_opts *o)
{
	struct pf_event e = { .kind = PF_EV_LIST_VG_COMPLETE, .vg = "vg0" };

	pf_report_event(o, &e);
	e.kind = PF_EV_LIST_VG_INCOMPLETE;
	pf_report_event(o, &e);
	e = (struct pf_event){ .kind = PF_EV_LIST_LV, .vg = "vg0", .lv = "lv0",
			       .lv_state = PF_LV_STATE_COMPLETE };
	pf_report_event(o, &e);
}

/* --test's lines for VGs whose reasons quote metadata (a segment type, a flag). */
static void plan_crafted(const struct pf_opts *o)
{
	struct pf_activate_lv lv = { .lv = "lv0", .kind = PF_ACTIVATE_LV_SKIPPED };
	struct pf_activate_result res = { .outcome = PF_ACTIVATE_DELEGATE };

	(void)snprintf(res.reason, sizeof(res.reason), "LV lv0 segment1: segment type r\x1b[2J");
	pf_report_plan(o, "vg0", &res);
	res = (struct pf_activate_result){ .outcome = PF_ACTIVATE_DONE, .lvs = &lv, .n_lvs = 1 };
	(void)snprintf(lv.reason, sizeof(lv.reason), "LV lv0: flag \x07\\");
	pf_report_plan(o, "vg0", &res);
}

static void checkcomplete_disabled(const struct pf_opts *o)
{
	pf_report_skip(o, PF_REPORT_SKIP_CHECKCOMPLETE_DISABLED);
}

START_TEST(test_print)
{
	struct pf_opts o = { 0 };
	char buf[256];

	capture(print_line, &o, buf, sizeof(buf));
	ck_assert_str_eq(buf, "  VG vg0\n");
	o.udevoutput = true;
	capture(print_line, &o, buf, sizeof(buf));
	ck_assert_str_eq(buf, "");
}
END_TEST

START_TEST(test_udev_vg)
{
	struct pf_opts o = { .udevoutput = true };
	char buf[256];

	capture(udev_lines, &o, buf, sizeof(buf));
	ck_assert_str_eq(buf, "LVM_VG_NAME_COMPLETE='vg0'\nLVM_VG_NAME_INCOMPLETE='vg.1'\n");
}
END_TEST

START_TEST(test_list_vg_events)
{
	struct pf_opts o = { 0 };
	char buf[256];

	capture(list_vg_events, &o, buf, sizeof(buf));
	ck_assert_str_eq(buf, "  VG vg0 complete\n  VG vg0 incomplete\n  LV vg0/lv0 complete\n");
	/* udev sees its two lines and nothing else */
	o.udevoutput = true;
	capture(list_vg_events, &o, buf, sizeof(buf));
	ck_assert_str_eq(buf, "LVM_VG_NAME_COMPLETE='vg0'\nLVM_VG_NAME_INCOMPLETE='vg0'\n");
}
END_TEST

START_TEST(test_checkcomplete_disabled)
{
	struct pf_opts o = { .udevoutput = true };
	char buf[256], want[128];

	capture(checkcomplete_disabled, &o, buf, sizeof(buf));
	ck_assert_str_eq(buf, "LVM_EVENT_ACTIVATION=0\n");
	o.udevoutput = false;
	capture(checkcomplete_disabled, &o, buf, sizeof(buf));
	(void)snprintf(want, sizeof(want),
		       "  pvscan[%d] Ignoring pvscan with --checkcomplete because event_activation "
		       "is disabled.\n",
		       (int)getpid());
	ck_assert_str_eq(buf, want);
}
END_TEST

START_TEST(test_plan_escaped)
{
	struct pf_opts o = { 0 };
	char buf[512];

	capture(plan_crafted, &o, buf, sizeof(buf));
	ck_assert_str_eq(buf, "  VG vg0: would be activated by lvm2: LV lv0 segment1: segment type "
			      "r\\x1b[2J.\n"
			      "  LV vg0/lv0: skipped: LV lv0: flag \\x07\\\\.\n");
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = tcase_create("report");

	tcase_add_test(tc, test_print);
	tcase_add_test(tc, test_udev_vg);
	tcase_add_test(tc, test_list_vg_events);
	tcase_add_test(tc, test_checkcomplete_disabled);
	tcase_add_test(tc, test_plan_escaped);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
