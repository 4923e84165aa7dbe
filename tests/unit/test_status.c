/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --status's assembly: records folded into VGs and devices, the queue and lock, the verdicts. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "state/dgrecord.h"
#include "state/status.h"
#include "unit.h"

#define VGID0 "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define VGID1 "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define LVID0 "cccccccccccccccccccccccccccccccc"

/* A boot: vg0 arrives (follower, then the leader reads it), completes, lvm2 activates it;
   vgtwo lacks a PV; vgf is foreign; a device times out, one is a duplicate. */
static const char boot_log[] =
	"pfr1 100 10 arrive dev=8:16 seq=5 act=1\n"
	"pfr1 150 11 round items=1 full=1\n"
	"pfr1 200 11 dev dev=8:16 name=/dev/sdb res=read pvid=P0 vg=vg0 vgid=" VGID0 " act=1\n"
	"pfr1 210 11 vg vg=vg0 vgid=" VGID0 " state=complete\n"
	"pfr1 220 11 dev dev=8:32 name=/dev/sdc res=read pvid=P1 vg=vgtwo vgid=" VGID1 " act=1\n"
	"pfr1 230 11 vg vg=vgtwo vgid=" VGID1 " state=incomplete need=1\n"
	"pfr1 231 11 missing vg=vgtwo pvid=P2 hint=/dev/sdd size=131072\n"
	"pfr1 240 11 dev dev=8:48 name=/dev/sde res=read pvid=P3 vg=vgf act=1\n"
	"pfr1 241 11 pv vg=vgf pvid=P3 dev=8:48 state=foreign why=system%20ID%20other\n"
	"pfr1 250 11 dev dev=8:64 name=/dev/sdf res=timeout why=no%20answer\n"
	"pfr1 260 11 dev dev=8:80 name=/dev/sdg res=duplicate pvid=P0 chosen=/dev/sdb\n"
	"pfr1 270 11 dev dev=8:96 name=/dev/sdh res=not-lvm\n"
	"pfr1 300 11 claim vg=vg0 res=ours\n"
	"pfr1 310 11 activate vg=vg0 how=native\n"
	"pfr1 320 11 lv vg=vg0 lv=lv0 uuid=LVM-" VGID0 LVID0 " res=loaded\n"
	"pfr1 321 11 lv vg=vg0 lv=skipme res=skipped why=activation%20skip%20flag\n"
	"pfr1 330 11 activated vg=vg0 how=native res=ok active=1\n";

static void load(struct pf_status *s, const char *log)
{
	pf_status_init(s);
	ck_assert_int_eq(pf_status_add_log(s, pf_span_make(log, strlen(log))), 0);
}

static const struct pf_status_vg *vg(const struct pf_status *s, const char *name)
{
	for (size_t i = 0; i < s->n_vgs; i++)
		if (strcmp(s->vgs[i].name, name) == 0)
			return &s->vgs[i];
	ck_abort_msg("no VG %s", name);
	return NULL;
}

START_TEST(test_assemble)
{
	static const char *const uuids[] = { "LVM-" VGID0 LVID0, "LVM-" VGID0 "dddddddddddddddddddddddddddddddd" };
	static const char *const names[] = { "vg0-lv0", "vg0-by--lvm2" };
	struct pf_status s;
	const struct pf_status_vg *v;

	load(&s, boot_log);
	ck_assert_uint_eq(s.n_records, 17);
	ck_assert_uint_eq(s.n_bad, 0);
	ck_assert_uint_eq(s.n_vgs, 3);
	v = vg(&s, "vg0");
	ck_assert_int_eq(v->state, PF_STATUS_VG_COMPLETE);
	ck_assert_str_eq(v->id, VGID0);
	ck_assert_uint_eq(v->first_arrival_us, 100); /* the follower's arrival, not the read */
	ck_assert_uint_eq(v->complete_us, 210);
	ck_assert_uint_eq(v->claim_us, 300);
	ck_assert_uint_eq(v->claim_pid, 11);
	ck_assert_str_eq(v->how, "native");
	ck_assert_uint_eq(v->act_begin_us, 310);
	ck_assert_uint_eq(v->act_end_us, 330);
	ck_assert_str_eq(v->act_res, "ok");
	ck_assert_uint_eq(v->n_lvs, 2);
	v = vg(&s, "vgtwo");
	ck_assert_int_eq(v->state, PF_STATUS_VG_INCOMPLETE);
	ck_assert_uint_eq(v->need, 1);
	ck_assert_uint_eq(v->n_missing, 1);
	ck_assert_str_eq(v->missing[0].pvid, "P2");
	ck_assert_str_eq(v->missing[0].hint, "/dev/sdd");
	ck_assert_uint_eq(v->missing[0].size_sectors, 131072);
	ck_assert_uint_eq(v->first_arrival_us, 220); /* no arrival record: the read */
	v = vg(&s, "vgf");
	ck_assert_int_eq(v->state, PF_STATUS_VG_REFUSED);
	ck_assert_str_eq(v->refused, "foreign: system ID other");
	ck_assert_uint_eq(s.n_devs, 3);
	ck_assert_str_eq(s.devs[0].res, "timeout");
	ck_assert_str_eq(s.devs[0].why, "no answer");
	ck_assert_str_eq(s.devs[1].chosen, "/dev/sdb");
	ck_assert_str_eq(s.devs[2].res, "not-lvm");

	/* device-mapper: lv0 active, and an LV lvm2 activated that no record names */
	ck_assert_int_eq(pf_status_set_dm(&s, true, uuids, names, 2), 0);
	pf_status_judge(&s);
	ck_assert(!s.healthy); /* vgtwo */
	ck_assert_str_eq(s.vgs[0].name, "vgtwo"); /* the problem first */
	ck_assert(!s.vgs[0].ok);
	ck_assert_str_eq(s.vgs[0].problem, "incomplete: 1 PV missing");
	v = vg(&s, "vg0");
	ck_assert(v->ok);
	ck_assert_uint_eq(v->n_lvs, 3);
	ck_assert(v->lvs[0].active);
	ck_assert(!v->lvs[1].active);
	ck_assert_str_eq(v->lvs[2].name, "by-lvm2");
	ck_assert(v->lvs[2].active);
	ck_assert(vg(&s, "vgf")->ok); /* autoactivation leaves it down: as intended */
	pf_status_release(&s);
}
END_TEST

/* The verdict on vg0 after the boot log plus more. */
static void judged(const char *more, bool dm, const char *problem)
{
	static const char *const uuids[] = { "LVM-" VGID0 LVID0 };
	static const char *const names[] = { "vg0-lv0" };
	char log[8192];
	struct pf_status s;
	const struct pf_status_vg *v;

	(void)snprintf(log, sizeof(log), "%s%s", boot_log, more);
	load(&s, log);
	ck_assert_int_eq(pf_status_set_dm(&s, dm, uuids, names, dm ? 1 : 0), 0);
	pf_status_judge(&s);
	v = vg(&s, "vg0");
	if (!problem)
		ck_assert_msg(v->ok, "vg0: %s", v->problem);
	else
		ck_assert_str_eq(v->problem, problem);
	pf_status_release(&s);
}

START_TEST(test_verdicts)
{
	judged("", true, NULL);
	/* no device-mapper: nothing is active, and that is said once, not held against a VG */
	judged("", false, NULL);
	judged("pfr1 400 12 activate vg=vg0 how=lvm2\n"
	       "pfr1 410 12 activated vg=vg0 how=lvm2 res=failed status=5\n",
	       true, "activation by lvm2 failed (exit status 5)");
	judged("pfr1 400 12 activate vg=vg0 how=lvm2\n", true,
	       "activation (lvm2) began and did not end");
	judged("pfr1 400 12 activate vg=vg0 how=lvm2\n"
	       "pfr1 410 12 activated vg=vg0 how=lvm2 res=left why=stopped\n",
	       true, "activation (lvm2) left: stopped");
	/* a loaded LV gone from device-mapper since */
	judged("pfr1 400 12 activate vg=vg0 how=native\n"
	       "pfr1 401 12 lv vg=vg0 lv=gone uuid=LVM-" VGID0 "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee res=loaded\n"
	       "pfr1 410 12 activated vg=vg0 how=native res=ok\n",
	       true, "1 LV activated but not active now (gone)");
	/* complete again later, asking for activation, never claimed */
	judged("pfr1 500 13 dev dev=8:16 name=/dev/sdb res=read pvid=P0 vg=vgnew act=1\n"
	       "pfr1 510 13 vg vg=vgnew state=complete\n", true, NULL);
}
END_TEST

START_TEST(test_degraded)
{
	static const char log[] =
		"pfr1 1 1 dev dev=8:16 name=/dev/sdb res=read pvid=P0 vg=r1 act=1\n"
		"pfr1 2 1 vg vg=r1 state=incomplete need=1\n"
		"pfr1 3 1 missing vg=r1 pvid=P1 hint=/dev/sdc size=8\n"
		"pfr1 30 1 activate vg=r1 how=degraded\n"
		"pfr1 31 1 activated vg=r1 how=degraded res=ok status=0\n";
	struct pf_status s;

	load(&s, log);
	pf_status_judge(&s);
	ck_assert_int_eq(s.vgs[0].state, PF_STATUS_VG_DEGRADED);
	ck_assert_str_eq(s.vgs[0].problem, "degraded: 1 PV missing, activated without");
	ck_assert(!s.healthy);
	pf_status_release(&s);
	/* the missing PV came back: complete, and the degraded activation is history */
	load(&s, "pfr1 1 1 vg vg=r1 state=incomplete need=1\n"
		 "pfr1 31 1 activated vg=r1 how=degraded res=ok status=0\n"
		 "pfr1 40 1 vg vg=r1 state=complete\n");
	pf_status_judge(&s);
	ck_assert_int_eq(s.vgs[0].state, PF_STATUS_VG_COMPLETE);
	ck_assert(s.healthy);
	pf_status_release(&s);
}
END_TEST

/* Degraded activation's own records (state/dgrecord.h) joined to the VGs of the log. */
START_TEST(test_dgrecords)
{
	static const char log[] = "pfr1 1 1 vg vg=r1 state=incomplete need=1\n"
				  "pfr1 2 1 vg vg=r2 state=incomplete need=2\n";
	const char *tmp = getenv("TMPDIR");
	struct pf_dgrecord rec = { .state = PF_DGRECORD_DEGRADED, .first_seen_ns = 5000000,
				   .timeout_sec = 30, .lvm_status = 0 };
	char root[512], path[700];
	struct pf_status s;
	const struct pf_status_vg *v;

	(void)snprintf(root, sizeof(root), "%s/pf-status.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(root));
	(void)snprintf(path, sizeof(path), "%s/pvscan-fast", root);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	(void)snprintf(rec.vg, sizeof(rec.vg), "r1");
	ck_assert_int_eq(pf_dgrecord_write(root, &rec), 0);
	rec = (struct pf_dgrecord){ .state = PF_DGRECORD_WAITING, .first_seen_ns = 6000000,
				    .timeout_sec = 30, .lvm_status = -1 };
	(void)snprintf(rec.vg, sizeof(rec.vg), "r2");
	ck_assert_int_eq(pf_dgrecord_write(root, &rec), 0);

	load(&s, log);
	ck_assert_int_eq(pf_status_load_degraded(&s, root), 0);
	pf_status_judge(&s);
	v = vg(&s, "r1");
	ck_assert(v->dg);
	ck_assert_int_eq(v->state, PF_STATUS_VG_DEGRADED);
	ck_assert_uint_eq(v->dg_first_seen_us, 5000);
	ck_assert_int_eq(v->dg_lvm_status, 0);
	v = vg(&s, "r2");
	ck_assert_str_eq(v->dg_state, "waiting");
	ck_assert_str_eq(v->problem, "incomplete: 2 PVs missing; degraded activation waiting");
	ck_assert(!s.healthy);
	pf_status_release(&s);

	/* no degraded/ directory: nothing, and no error */
	(void)snprintf(path, sizeof(path), "rm -rf '%s/pvscan-fast/degraded'", root);
	ck_assert_int_eq(system(path), 0);
	load(&s, log);
	ck_assert_int_eq(pf_status_load_degraded(&s, root), 0);
	ck_assert(!vg(&s, "r1")->dg);
	pf_status_release(&s);
	(void)snprintf(path, sizeof(path), "rm -rf '%s'", root);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

START_TEST(test_unclaimed_and_junk)
{
	static const char log[] =
		"pfr1 1 1 dev dev=8:16 name=/dev/sdb res=read pvid=P0 vg=vga act=1\n"
		"pfr1 2 1 vg vg=vga state=complete\n"
		"pfr1 3 1 vg state=complete\n"		 /* no VG: refused, counted */
		"pfr1 4 1 dev dev=bad res=read\n"	 /* bad devno */
		"pfr1 5 1 vg vg=vga state=sideways\n" /* unknown state */
		"pfr1 6 1 future-kind a=b\n"		 /* a newer writer's: ignored */
		"pfr1 7 1 dev dev=8:16 name=/dev/sdb res=read pvid=P0 vg=vga act=1"; /* torn */
	struct pf_status s;

	load(&s, log);
	ck_assert_uint_eq(s.n_records, 6);
	ck_assert_uint_eq(s.n_bad, 4);
	pf_status_judge(&s);
	ck_assert(!s.healthy);
	ck_assert_str_eq(s.vgs[0].problem, "complete, not claimed for activation");
	pf_status_release(&s);
}
END_TEST

/* A scratch run and lock directory, and a proc dir whose locks file names the leader lock. */
START_TEST(test_queue)
{
	const char *tmp = getenv("TMPDIR");
	char root[512], path[700], locks[256];
	struct pf_status s;
	struct stat st;
	int fd;

	(void)snprintf(root, sizeof(root), "%s/pf-status.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(root));
	(void)snprintf(path, sizeof(path), "%s/pvscan-fast", root);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	(void)snprintf(path, sizeof(path), "%s/pvscan-fast/inflight", root);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	(void)snprintf(path, sizeof(path), "%s/pvscan-fast/inflight/8:16,a,5", root);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	(void)close(fd);
	(void)snprintf(path, sizeof(path), "%s/pvscan-fast.leader", root);
	fd = open(path, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	(void)close(fd);
	ck_assert_int_eq(stat(path, &st), 0);

	/* nobody holds the lock: the in-flight entry is a dead leader's */
	(void)snprintf(path, sizeof(path), "%s/locks", root);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	ck_assert_int_ge(fd, 0);
	(void)close(fd);
	pf_status_init(&s);
	ck_assert_int_eq(pf_status_load_queue(&s, root, root, root, 0), 0);
	ck_assert_uint_eq(s.leader_pid, 0);
	ck_assert_uint_eq(s.n_entries, 1);
	ck_assert_str_eq(s.entries[0].queue, "inflight");
	ck_assert_str_eq(s.entries[0].name, "8:16,a,5");
	pf_status_judge(&s);
	ck_assert(s.leftovers);
	ck_assert(!s.healthy);
	pf_status_release(&s);

	/* a leader holds it (a waiter's line does not count): its entries are its work */
	(void)snprintf(locks, sizeof(locks),
		       "1: -> FLOCK  ADVISORY  WRITE 999 %02x:%02x:%llu 0 EOF\n"
		       "2: FLOCK  ADVISORY  WRITE 4242 %02x:%02x:%llu 0 EOF\n",
		       major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino,
		       major(st.st_dev), minor(st.st_dev), (unsigned long long)st.st_ino);
	fd = open(path, O_WRONLY | O_TRUNC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, locks, strlen(locks)), (ssize_t)strlen(locks));
	(void)close(fd);
	pf_status_init(&s);
	ck_assert_int_eq(pf_status_load_queue(&s, root, root, root, 0), 0);
	ck_assert_uint_eq(s.leader_pid, 4242);
	pf_status_judge(&s);
	ck_assert(!s.leftovers);
	ck_assert(s.healthy);
	pf_status_release(&s);

	(void)snprintf(path, sizeof(path), "rm -rf '%s'", root);
	ck_assert_int_eq(system(path), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("status");
	TCase *tc = pf_unit_tcase("status");

	tcase_add_test(tc, test_assemble);
	tcase_add_test(tc, test_verdicts);
	tcase_add_test(tc, test_degraded);
	tcase_add_test(tc, test_dgrecords);
	tcase_add_test(tc, test_unclaimed_and_junk);
	tcase_add_test(tc, test_queue);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
