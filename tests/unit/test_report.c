/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command's lvm2 lines: their bytes, and that --udevoutput leaves udev only its lines. */
#include "config.h"

#include <errno.h>
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

/* What fn logged on stderr. */
static void capture_err(void (*fn)(const struct pf_opts *), const struct pf_opts *o, char *buf,
			size_t size)
{
	FILE *f = tmpfile();
	int saved = dup(STDERR_FILENO);
	size_t n;

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(saved, 0);
	(void)fflush(stderr);
	ck_assert_int_ge(dup2(fileno(f), STDERR_FILENO), 0);
	fn(o);
	(void)fflush(stderr);
	ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
	(void)close(saved);
	rewind(f);
	n = fread(buf, 1, size - 1, f);
	buf[n] = '\0';
	(void)fclose(f);
}

#define PVID_A "rH4bgorVz1QXQ8qgTEPVBs7EV9rzkCkV"
#define PVID_B "YoOOuPeJaabBfPoZ1jfpfyMilfF8UpJU"

/* A full /run (ENOSPC after the files were created), then a read-only one (EROFS). */
static void state_write_events(const struct pf_opts *o)
{
	struct pf_event e = { .kind = PF_EV_ONLINE_WRITE_FAILED, .dev = "/dev/loop1",
			      .vg = "vgtwo", .pvid = PVID_A, .err = -ENOSPC,
			      .run_dir = "/run/lvm" };

	pf_report_event(o, &e);
	e.kind = PF_EV_LOOKUP_WRITE_FAILED;
	pf_report_event(o, &e);
	memcpy(e.pvid, PVID_B, sizeof(PVID_B));
	pf_report_event(o, &e);
	e.kind = PF_EV_ONLINE_FAILED;
	e.err = -EROFS;
	pf_report_event(o, &e);
	e.err = 0; /* a duplicate: its own line said why */
	pf_report_event(o, &e);
}

static void over_budget_dev(const struct pf_opts *o)
{
	struct pf_scan_dev d = { .name = "/dev/sdx", .outcome = PF_SCAN_FAILED,
				 .status = -ENOMEM, .over_budget = true };

	(void)snprintf(d.diag.msg, sizeof(d.diag.msg),
		       "metadata memory budget of 64 MiB for this scan is used up");
	pf_report_scan_dev(o, &d, true);
	pf_report_scan_dev(o, &d, false);
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

/* lvm2 2.03.16's lines on a full /run and a read-only one (tests/integration/full-run-lvm2.sh). */
START_TEST(test_state_write_failures)
{
	struct pf_opts o = { 0 };
	char buf[2048], want[2048];
	int pid = (int)getpid();

	capture_err(state_write_events, &o, buf, sizeof(buf));
	(void)snprintf(want, sizeof(want),
		       "  Cannot write online file for /dev/loop1 to /run/lvm/pvs_online/" PVID_A
		       " error 28\n"
		       "  pvscan[%d] Failed to write lookup entry /run/lvm/pvs_lookup/vgtwo " PVID_A
		       "\n\n"
		       "  pvscan[%d] Failed to write lookup entry /run/lvm/pvs_lookup/vgtwo " PVID_B
		       "\n\n"
		       "  pvscan[%d] Failed to create online file for /dev/loop1 path "
		       "/run/lvm/pvs_online/" PVID_B " error 30\n"
		       "  pvscan[%d] PV /dev/loop1 failed to create online file.\n"
		       "  pvscan[%d] PV /dev/loop1 failed to create online file.\n",
		       pid, pid, pid, pid, pid);
	ck_assert_str_eq(buf, want);
}
END_TEST

/* A device the pass's metadata budget left out: named once, whether named or found. */
START_TEST(test_over_budget)
{
	struct pf_opts o = { 0 };
	char buf[1024], out[256];

	capture_err(over_budget_dev, &o, buf, sizeof(buf));
	ck_assert_str_eq(buf, "  Skipping /dev/sdx: metadata memory budget of 64 MiB for this "
			      "scan is used up.\n"
			      "  Skipping /dev/sdx: metadata memory budget of 64 MiB for this "
			      "scan is used up.\n");
	capture(over_budget_dev, &o, out, sizeof(out));
	ck_assert_str_eq(out, "");
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("report");
	TCase *tc = pf_unit_tcase("report");

	tcase_add_test(tc, test_print);
	tcase_add_test(tc, test_udev_vg);
	tcase_add_test(tc, test_list_vg_events);
	tcase_add_test(tc, test_checkcomplete_disabled);
	tcase_add_test(tc, test_plan_escaped);
	tcase_add_test(tc, test_state_write_failures);
	tcase_add_test(tc, test_over_budget);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
