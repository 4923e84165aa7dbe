/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Degraded activation after a deadline: the leader notes each incomplete VG's first sighting
 * and arranges a check at its deadline (a systemd timer, else a sleeping process); the check
 * decides with lib/activate/degraded.c and hands the VG to lvm2 through autoactivate.c.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "activate/aapolicy.h"
#include "activate/degraded.h"
#include "autoactivate.h"
#include "base/child.h"
#include "base/clock.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/stop.h"
#include "base/strv.h"
#include "degraded.h"
#include "format/probe.h"
#include "format/vg.h"
#include "scan/scan.h"
#include "state/coalesce.h"
#include "state/dgrecord.h"
#include "state/records.h"
#include "state/state.h"

/* Arguments of the check beyond what pf_cmd_passed_args() adds. */
#define CHECK_ARGS_FIXED 6U

/* The check's command line: this engine, the --cache -aay form, and the caller's config. */
static char **check_argv(const struct pf_opts *o, const char *self)
{
	char **v = calloc(CHECK_ARGS_FIXED + PF_CMD_PASSED_ARGS_MAX, sizeof(*v));
	size_t n = 0;

	if (!v)
		return NULL;
	v[n++] = (char *)self;
	v[n++] = (char *)"--cache";
	v[n++] = (char *)"--activate";
	v[n++] = (char *)"ay";
	v[n++] = (char *)"--degradedcheck";
	(void)pf_cmd_passed_args(o, v + n);
	return v;
}

/* A transient timer unit running argv in delay_s seconds: 0 once systemd-run queued it. */
static int arm_systemd(char *const *argv, unsigned delay_s, uint64_t deadline_ns)
{
	char on[48], unit[80], setenv_buf[8][PF_CMD_SETENV_LEN];
	const char *args[16 + 8 + CHECK_ARGS_FIXED + PF_CMD_PASSED_ARGS_MAX];
	const char *sdrun = getenv("PVSCAN_FAST_SYSTEMD_RUN");
	size_t n = 0;
	int r;

	/* tests name a stand-in, which stands for systemd as well */
	if (!sdrun || !*sdrun) {
		sdrun = PF_SYSTEMD_RUN_PATH;
		if (!pf_cmd_systemd_booted())
			return -ENOENT;
	}
	if (access(sdrun, X_OK) < 0)
		return -ENOENT;
	(void)snprintf(on, sizeof(on), "--on-active=%us", delay_s);
	/* a name of its own: a deadline armed twice fires twice, and the check does nothing twice */
	(void)snprintf(unit, sizeof(unit), "--unit=pvscan-fast-degraded-%llu-%ld",
		       (unsigned long long)(deadline_ns / NSEC_PER_SEC), (long)getpid());
	args[n++] = sdrun;
	args[n++] = "--quiet";
	args[n++] = "--collect";
	args[n++] = on;
	/* systemd's default accuracy is a minute */
	args[n++] = "--timer-property=AccuracySec=1s";
	/* at boot: not ordered after basic.target, as lvm2's own activation services */
	args[n++] = "--property=DefaultDependencies=no";
	args[n++] = unit;
	args[n++] = "--description=pvscan-fast: degraded activation of LVM2 VGs past their deadline";
	r = pf_cmd_setenv_args(setenv_buf, ARRAY_SIZE(setenv_buf), args + n);
	if (r < 0)
		return r;
	n += (size_t)r;
	args[n++] = "--";
	for (size_t i = 0; argv[i] && n + 1 < ARRAY_SIZE(args); i++)
		args[n++] = argv[i];
	args[n] = NULL;
	r = pf_run_bounded((char *const *)args, PF_CMD_SYSTEMD_RUN_TIMEOUT_MS);
	return r == 0 ? 0 : r < 0 ? r : -ECHILD;
}

/*
 * Without systemd: a process of its own (new session, no descriptor of ours but stdio) that
 * sleeps delay_s seconds and becomes the check. In an initramfs it may be lost at the switch
 * to the root; the initramfs's last step and the recovery unit run the check then.
 */
static int arm_sleeper(char *const *argv, unsigned delay_s)
{
	int r = pf_detach("/dev/kmsg");

	if (r != 0)
		return r > 0 ? 0 : r;
	(void)signal(SIGTERM, SIG_DFL);
	(void)signal(SIGINT, SIG_DFL);
	(void)signal(SIGHUP, SIG_DFL);
	/* the leader lock above all: the check must not hold it while it sleeps */
	pf_close_fds(STDERR_FILENO + 1, INT_MAX);
	pf_sleep_ms(delay_s * 1000U);
	(void)setenv(PF_DETACHED_ENV, "1", 1);
	(void)execv(argv[0], argv);
	_exit(127);
}

/* Arrange the check for deadline_ns (CLOCK_MONOTONIC), with no further uevent needed. */
static void arm(const struct pf_opts *o, uint64_t deadline_ns)
{
	char self[PATH_MAX];
	_cleanup_free_ char **argv = NULL;
	uint64_t now = pf_now_ns();
	unsigned delay_s = 1;
	ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	int r;

	if (deadline_ns > now)
		delay_s = (unsigned)((deadline_ns - now + NSEC_PER_SEC - 1) / NSEC_PER_SEC);
	if (len <= 0 || !(argv = check_argv(o, (self[len] = '\0', self)))) {
		pf_warn("  WARNING: cannot arrange the degraded activation check: %s.",
			len <= 0 ? strerror(errno) : "out of memory");
		return;
	}
	r = arm_systemd(argv, delay_s, deadline_ns);
	if (r == 0) {
		pf_info("  Degraded activation check in %u s (systemd timer).", delay_s);
		return;
	}
	if (r != -ENOENT)
		pf_warn("  WARNING: cannot start a timer with %s (%s); sleeping in the background "
			"instead.", PF_SYSTEMD_RUN_PATH, strerror(-r));
	r = arm_sleeper(argv, delay_s);
	if (r < 0)
		pf_warn("  WARNING: cannot arrange the degraded activation check: %s.",
			strerror(-r));
	else
		pf_info("  Degraded activation check in %u s (background process).", delay_s);
}

void pf_cmd_degraded_note(const struct pf_opts *o, const struct pf_paths *paths,
			  const struct pf_settings *st, char (*vgs)[PF_NAME_MAX + 1], size_t n)
{
	uint64_t now = pf_now_ns();
	bool any_new = false;

	for (size_t i = 0; i < n; i++) {
		bool created = false;
		int r;

		if (o->test) {
			pf_info("  VG %s is incomplete: degraded activation is considered %u s after "
				"its first PV arrived.", vgs[i], st->degraded_timeout_sec);
			continue;
		}
		r = pf_dgrecord_begin(paths->run, vgs[i], now, (int64_t)time(NULL),
				      st->degraded_timeout_sec, &created);
		if (r < 0)
			pf_warn("  WARNING: VG %s: cannot record it for degraded activation: %s.",
				vgs[i], strerror(-r));
		else if (created)
			pf_info("  VG %s is incomplete: degraded activation in %u s unless its PVs "
				"arrive.", vgs[i], st->degraded_timeout_sec);
		any_new |= created;
	}
	if (any_new)
		arm(o, now + (uint64_t)st->degraded_timeout_sec * NSEC_PER_SEC);
}

/* The devices pvs_online says hold PVs of vg, for reading its metadata again. */
static int online_devices(const char *run, const char *vg, struct pf_scan_arg **ret, size_t *ret_n)
{
	char dir[PATH_MAX];
	struct pf_strv names = { 0 };
	struct pf_scan_arg *args;
	size_t n = 0;
	int fd, r;

	if (snprintf(dir, sizeof(dir), "%s/pvs_online", run) >= (int)sizeof(dir))
		return -ENAMETOOLONG;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = pf_strv_read_dir(fd, PF_STATE_DIR_ENTRIES_MAX, &names);
	if (r < 0)
		return r;
	args = calloc(names.n ? names.n : 1, sizeof(*args));
	if (!args) {
		pf_strv_release(&names);
		return -ENOMEM;
	}
	for (size_t i = 0; i < names.n; i++) {
		struct pf_state_pv pv;

		if (pf_state_pv_online_read(run, names.v[i], &pv) == 0 && strcmp(pv.vgname, vg) == 0)
			args[n++] = (struct pf_scan_arg){ .major = pv.major, .minor = pv.minor };
	}
	pf_strv_release(&names);
	*ret = args;
	*ret_n = n;
	return 0;
}

/* The newest copy of vg's metadata among the devices scan read (the first VG's UUID). */
static const struct pf_vg *newest_vg(const struct pf_scan *scan, const char *name)
{
	const struct pf_vg *best = NULL;

	for (size_t i = 0; i < scan->n; i++) {
		const struct pf_vg *vg;

		if (scan->devs[i].outcome != PF_SCAN_READ)
			continue;
		vg = pf_probe_vg(&scan->devs[i].probe);
		if (!vg || strcmp(vg->name, name) != 0 || (best && strcmp(vg->id, best->id) != 0))
			continue;
		if (!best || vg->seqno > best->seqno)
			best = vg;
	}
	return best;
}

static bool claimed(const char *run, const char *vg)
{
	char path[PATH_MAX];

	return snprintf(path, sizeof(path), "%s/vgs_online/%s", run, vg) < (int)sizeof(path) &&
	       access(path, F_OK) == 0;
}

struct check {
	const struct pf_opts *o;
	const struct pf_paths *paths;
	const struct pf_settings *st;
	uint64_t now;
	uint64_t next_deadline; /* the earliest deadline still to come, or 0 */
	int status;
};

static void record(const struct check *k, struct pf_dgrecord *rec, enum pf_dgrecord_state s,
		   const char *why)
{
	int r;

	rec->state = s;
	rec->decided_real = (int64_t)time(NULL);
	(void)snprintf(rec->reason, sizeof(rec->reason), "%s", why);
	r = pf_dgrecord_write(k->paths->run, rec);
	if (r < 0)
		pf_warn("  WARNING: VG %s: cannot record the degraded activation check: %s.",
			rec->vg, strerror(-r));
}

/* Hand vg to lvm2 degraded; claimed first, as every activation is, so it happens once. */
static void activate(struct check *k, struct pf_dgrecord *rec, const char *why)
{
	struct pf_autoactivate a = { .o = k->o, .paths = k->paths, .st = k->st, .last_exit = -1 };
	struct pf_records log;
	int r = pf_state_vg_online_claim(k->paths->run, rec->vg);

	/* claimed by a check that died while lvm2 ran: run it again, it changes nothing twice */
	if (r < 0 && !(r == -EEXIST && rec->state == PF_DGRECORD_ACTIVATING)) {
		pf_warn("  VG %s: cannot claim it for degraded activation: %s.", rec->vg,
			strerror(-r));
		if (r == -EEXIST)
			record(k, rec, PF_DGRECORD_CLAIMED, "claimed by another activation");
		return;
	}
	pf_warn("  VG %s is still incomplete after %u s: activating it degraded: %s.", rec->vg,
		rec->timeout_sec, why);
	record(k, rec, PF_DGRECORD_ACTIVATING, why);
	/* --status's story: the activation's start and lvm2's exit status, how=degraded */
	pf_records_open(k->paths->run, false, &log);
	a.rec = &log;
	pf_autoactivate_degraded(&a, rec->vg);
	pf_records_close(&log);
	rec->lvm_status = a.last_exit;
	if (a.status != PF_EXIT_OK)
		k->status = PF_EXIT_FAILED;
	record(k, rec, a.status == PF_EXIT_OK ? PF_DGRECORD_DEGRADED : PF_DGRECORD_FAILED, why);
}

/* Read vg's metadata again from its online PVs and decide. */
static int decide_vg(struct check *k, const struct pf_dgrecord *rec, struct pf_scan *scan,
		     struct pf_degraded *d, const struct pf_vg **ret_vg)
{
	_cleanup_free_ struct pf_scan_arg *args = NULL;
	_cleanup_free_ bool *present = NULL;
	struct pf_scan_opts so = { .paths = k->paths, .settings = k->st,
				   .timeout_ms = k->o->timeout_s * 1000U,
				   .devicesfile = k->o->devicesfile,
				   .lock_timeout_ms = k->st->lock_timeout_sec * 1000U };
	struct pf_aapolicy_input pol;
	struct pf_degraded_input in;
	const struct pf_vg *vg;
	size_t n = 0;
	int r = online_devices(k->paths->run, rec->vg, &args, &n);

	if (r < 0 && r != -ENOENT)
		return r;
	if (n == 0)
		return -ENODEV;
	so.args = args;
	so.n_args = n;
	r = pf_scan_run(&so, scan);
	if (r < 0)
		return r;
	vg = newest_vg(scan, rec->vg);
	if (!vg)
		return -ENODEV;
	present = calloc(vg->n_pvs ? vg->n_pvs : 1, sizeof(*present));
	if (!present)
		return -ENOMEM;
	for (unsigned i = 0; i < vg->n_pvs; i++)
		present[i] = pf_state_pv_online_exists(k->paths->run, vg->pvs[i].id);
	pf_aapolicy_input_from_settings(k->st, PF_AAPOLICY_VGCHANGE_EVENT, &pol);
	pol.pv_present = present;
	in = (struct pf_degraded_input){
		.vg = vg, .policy = &pol, .enabled = k->st->degraded_activation,
		.timeout_sec = rec->timeout_sec, .first_seen_ns = rec->first_seen_ns,
		.now_ns = k->now,
		/* a check that died while lvm2 ran left its own claim */
		.claimed = rec->state != PF_DGRECORD_ACTIVATING && claimed(k->paths->run, rec->vg),
	};
	r = pf_degraded_decide(&in, d);
	if (r == 0)
		*ret_vg = vg;
	return r;
}

static void check_vg(struct check *k, struct pf_dgrecord *rec)
{
	struct pf_scan scan = { 0 };
	struct pf_degraded d = { 0 };
	const struct pf_vg *vg = NULL;
	char why[PF_DGRECORD_REASON_MAX];
	int r = decide_vg(k, rec, &scan, &d, &vg);

	if (r == -ENODEV) {
		pf_info("  VG %s: no PV of it is online any more.", rec->vg);
		if (!k->o->test)
			record(k, rec, PF_DGRECORD_REFUSED, "no PV of it is online any more");
		goto out;
	}
	if (r < 0) {
		pf_err("  VG %s: cannot check it for degraded activation: %s.", rec->vg,
		       strerror(-r));
		k->status = PF_EXIT_FAILED;
		goto out;
	}
	(void)pf_degraded_describe(&d, vg, why, sizeof(why));
	if (k->o->test) {
		(void)printf("  VG %s degraded activation: %s (%s).\n", rec->vg,
			     pf_degraded_action_name(d.action), why);
		goto out;
	}
	switch (d.action) {
	case PF_DEGRADED_OFF:
		pf_info("  VG %s: degraded activation is off.", rec->vg);
		break;
	case PF_DEGRADED_WAIT:
		if (!k->next_deadline || d.deadline_ns < k->next_deadline)
			k->next_deadline = d.deadline_ns;
		break;
	case PF_DEGRADED_COMPLETE:
		record(k, rec, PF_DGRECORD_COMPLETE, why);
		break;
	case PF_DEGRADED_CLAIMED:
		record(k, rec, PF_DGRECORD_CLAIMED, why);
		break;
	case PF_DEGRADED_REFUSE:
		pf_warn("  VG %s is still incomplete after %u s and stays down: %s.", rec->vg,
			rec->timeout_sec, why);
		record(k, rec, PF_DGRECORD_REFUSED, why);
		break;
	case PF_DEGRADED_ACTIVATE:
		activate(k, rec, why);
		break;
	default:
		break;
	}
out:
	pf_degraded_release(&d);
	pf_scan_release(&scan);
}

int pf_cmd_degraded_check(const struct pf_opts *o, const struct pf_paths *paths,
			  const struct pf_settings *st)
{
	struct check k = { .o = o, .paths = paths, .st = st };
	_cleanup_free_ struct pf_dgrecord *recs = NULL;
	_cleanup_close_ int lock = -1;
	size_t n = 0;
	int r = pf_dgrecord_lock(paths->run, PF_COALESCE_LOCK_TIMEOUT_MS_DEFAULT, &lock);

	if (r < 0) {
		pf_err("  Cannot take the degraded activation lock in %s: %s.", paths->run,
		       r == -ETIMEDOUT ? "another check holds it" : strerror(-r));
		return PF_EXIT_FAILED;
	}
	/* what a check before us decided is in the records: read them only now */
	k.now = pf_now_ns();
	r = pf_dgrecord_list(paths->run, &recs, &n);
	if (r < 0) {
		pf_err("  Cannot read the degraded activation records in %s: %s.", paths->run,
		       strerror(-r));
		return PF_EXIT_FAILED;
	}
	if (!st->event_activation) {
		pf_info("  Event activation is disabled: no degraded activation.");
		return PF_EXIT_OK;
	}
	for (size_t i = 0; i < n; i++) {
		if (recs[i].state != PF_DGRECORD_WAITING && recs[i].state != PF_DGRECORD_ACTIVATING)
			continue;
		if (pf_stop_requested())
			break;
		check_vg(&k, &recs[i]);
	}
	if (k.next_deadline && !o->test)
		arm(o, k.next_deadline);
	return k.status;
}
