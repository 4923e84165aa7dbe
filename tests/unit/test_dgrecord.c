/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Degraded activation's records (lib/state/dgrecord.c): created once, replaced whole, read
 * back as written, listed in name order; files cut short or holding junk are refused and
 * left out of listings, never half trusted.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/dgrecord.h"
#include "unit.h"

static char tmp_root[256];
static char run_dir[300];

static void setup(void)
{
	snprintf(tmp_root, sizeof(tmp_root), "%s/pf-dgrecord-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmp_root));
	snprintf(run_dir, sizeof(run_dir), "%s/run", tmp_root);
	ck_assert_int_eq(mkdir(run_dir, 0700), 0);
}

static void teardown(void)
{
	pf_unit_rm_rf(tmp_root);
}

/* Write text as vg's record file directly, as a dying writer or another program might. */
static void put_raw(const char *vg, const char *text)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(path, sizeof(path), "%s/pvscan-fast", run_dir);
	(void)mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/pvscan-fast/degraded", run_dir);
	(void)mkdir(path, 0700);
	snprintf(path, sizeof(path), "%s/pvscan-fast/degraded/%s", run_dir, vg);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fputs(text, f);
	ck_assert_int_eq(fclose(f), 0);
}

START_TEST(test_begin_once)
{
	struct pf_dgrecord r;
	bool created = false;

	ck_assert(!pf_dgrecord_any(run_dir));
	ck_assert_int_eq(pf_dgrecord_read(run_dir, "vg0", &r), -ENOENT);
	ck_assert_int_eq(pf_dgrecord_begin(run_dir, "vg0", 5000000000ULL, 1700000000, 30, &created),
			 0);
	ck_assert(created);
	ck_assert(pf_dgrecord_any(run_dir));
	/* a later arrival keeps the first one's time, and arms no second timer */
	ck_assert_int_eq(pf_dgrecord_begin(run_dir, "vg0", 9000000000ULL, 1700000004, 30, &created),
			 0);
	ck_assert(!created);
	ck_assert_int_eq(pf_dgrecord_read(run_dir, "vg0", &r), 0);
	ck_assert_str_eq(r.vg, "vg0");
	ck_assert_int_eq(r.state, PF_DGRECORD_WAITING);
	ck_assert_uint_eq(r.first_seen_ns, 5000000000ULL);
	ck_assert_int_eq(r.first_seen_real, 1700000000);
	ck_assert_uint_eq(r.timeout_sec, 30);
	ck_assert_int_eq(r.decided_real, 0);
	ck_assert_int_eq(r.lvm_status, -1);
	ck_assert_str_eq(r.reason, "");
	ck_assert_int_eq(pf_dgrecord_begin(run_dir, "bad/name", 1, 1, 30, &created), -EINVAL);
	ck_assert_int_eq(pf_dgrecord_begin(run_dir, "..", 1, 1, 30, &created), -EINVAL);
}
END_TEST

START_TEST(test_write_read_list)
{
	struct pf_dgrecord r = { .vg = "vgb", .state = PF_DGRECORD_DEGRADED,
				 .first_seen_ns = 7, .first_seen_real = 8, .timeout_sec = 9,
				 .decided_real = 10, .lvm_status = 0,
				 .reason = "raid LV runs degraded:\nLV r1\x1b[31m" };
	struct pf_dgrecord *all = NULL, back;
	size_t n = 99;
	bool created;

	ck_assert_int_eq(pf_dgrecord_list(run_dir, &all, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(all);
	ck_assert_int_eq(pf_dgrecord_write(run_dir, &r), 0);
	ck_assert_int_eq(pf_dgrecord_read(run_dir, "vgb", &back), 0);
	ck_assert_int_eq(back.state, PF_DGRECORD_DEGRADED);
	ck_assert_uint_eq(back.first_seen_ns, 7);
	ck_assert_int_eq(back.decided_real, 10);
	ck_assert_int_eq(back.lvm_status, 0);
	/* control characters never reach whoever shows the reason */
	ck_assert_str_eq(back.reason, "raid LV runs degraded:?LV r1?[31m");
	/* replaced whole */
	r.state = PF_DGRECORD_FAILED;
	r.lvm_status = 137;
	ck_assert_int_eq(pf_dgrecord_write(run_dir, &r), 0);
	ck_assert_int_eq(pf_dgrecord_read(run_dir, "vgb", &back), 0);
	ck_assert_int_eq(back.state, PF_DGRECORD_FAILED);
	ck_assert_int_eq(back.lvm_status, 137);

	ck_assert_int_eq(pf_dgrecord_begin(run_dir, "vga", 1, 2, 3, &created), 0);
	put_raw("vgc", "state=wat\n");		     /* unknown state */
	put_raw("vgd", "state=refused\ntimeout=3"); /* cut short */
	put_raw("vge", "state=refused\nfuture=1\n"); /* a later version's field */
	ck_assert_int_eq(pf_dgrecord_list(run_dir, &all, &n), 0);
	ck_assert_uint_eq(n, 3);
	ck_assert_str_eq(all[0].vg, "vga");
	ck_assert_int_eq(all[0].state, PF_DGRECORD_WAITING);
	ck_assert_str_eq(all[1].vg, "vgb");
	ck_assert_str_eq(all[2].vg, "vge");
	ck_assert_int_eq(all[2].state, PF_DGRECORD_REFUSED);
	free(all);
}
END_TEST

START_TEST(test_parse_refusals)
{
	static const char *const bad[] = {
		"",
		"timeout=3\n",			      /* no state */
		"state=waiting\ntimeout=-3\n",	      /* negative */
		"state=waiting\ntimeout=99999999999\n", /* past unsigned */
		"state=waiting\nlvm_status=256\n",
		"state=waiting\nfirst_seen=x\n",
		"state=waiting\nnoequals\n",
		"state=waiting\n\n",
	};
	struct pf_dgrecord r;
	char buf[PF_DGRECORD_FILE_MAX];
	char text[] = "state=claimed\nreason=a\0b\n";

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		ck_assert_msg(pf_dgrecord_parse("vg", bad[i], strlen(bad[i]), &r) == -EBADMSG,
			      "accepted: %s", bad[i]);
	ck_assert_int_eq(pf_dgrecord_parse("vg", text, sizeof(text) - 1, &r), -EBADMSG);
	ck_assert_int_eq(pf_dgrecord_parse("a/b", "state=waiting\n", 14, &r), -EINVAL);
	ck_assert_int_eq(pf_dgrecord_parse("vg", "state=claimed\n", 14, &r), 0);
	ck_assert_int_eq(r.state, PF_DGRECORD_CLAIMED);
	ck_assert_int_eq(r.lvm_status, -1);
	r.state = PF_DGRECORD_COMPLETE;
	ck_assert_int_eq(pf_dgrecord_format(&r, buf, 8), -ENOSPC);
	ck_assert_int_gt(pf_dgrecord_format(&r, buf, sizeof(buf)), 0);
	ck_assert_ptr_nonnull(strstr(buf, "state=complete\n"));
	ck_assert_str_eq(pf_dgrecord_state_name(_PF_DGRECORD_STATE_MAX), "?");
}
END_TEST

/* Checks run one after the other: a second one waits for the first's lock, then takes it. */
START_TEST(test_lock)
{
	int a = -1, b = -1;

	ck_assert_int_eq(pf_dgrecord_lock(run_dir, 1000, &a), 0);
	ck_assert_int_ge(a, 0);
	ck_assert_int_eq(pf_dgrecord_lock(run_dir, 0, &b), -EWOULDBLOCK);
	ck_assert_int_eq(pf_dgrecord_lock(run_dir, 200, &b), -ETIMEDOUT);
	ck_assert_int_eq(b, -1);
	/* the lock file is no record */
	ck_assert(!pf_dgrecord_any(run_dir));
	ck_assert_int_eq(close(a), 0);
	ck_assert_int_eq(pf_dgrecord_lock(run_dir, 0, &b), 0);
	ck_assert_int_eq(close(b), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("dgrecord");
	TCase *tc = pf_unit_tcase("core");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_begin_once);
	tcase_add_test(tc, test_write_read_list);
	tcase_add_test(tc, test_parse_refusals);
	tcase_add_test(tc, test_lock);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
