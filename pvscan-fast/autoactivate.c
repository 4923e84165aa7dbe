/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Autoactivation of the VGs claimed complete: activate each natively through
 * lib/activate/vgactivate.c, or hand it to lvm2 (`lvm vgchange -aay --autoactivation event
 * VG`), several at once; report.c prints lvm2's lines, or with --dry-run what would be loaded.
 */
#include "config.h"

#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "activate/vgactivate.h"
#include "autoactivate.h"
#include "base/log.h"
#include "format/vg.h"
#include "report.h"
#include "state/state.h"

extern char **environ;

/* VGs whose devices are made before one udev wait (each holds its VG lock until then). */
#define NATIVE_BATCH_MAX 128U
/* lvm2 processes activating VGs at the same time. */
#define DELEGATE_PARALLEL 4U

/*
 * lvm2 activates the VG: PVSCAN_FAST_LVM names another lvm binary (or wrapper). --config,
 * --devicesfile and --driverloaded go along, as lvm2's pvscan activates under them.
 */
static int spawn_lvm(const struct pf_opts *o, const char *vgname, int out_fd, int err_fd,
		     pid_t *ret)
{
	const char *lvm = getenv("PVSCAN_FAST_LVM");
	static const char *const head[] = { "vgchange", "-aay", "--autoactivation", "event" };
	_cleanup_free_ char **argv = NULL;
	posix_spawn_file_actions_t fa;
	size_t n = 0;
	int r;

	/* o->n_config is capped by options.c's CONFIG_ARGS_MAX */
	argv = calloc(1 + ARRAY_SIZE(head) + 2 * o->n_config + 2 + 2 + 2, sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	if (!lvm || !*lvm)
		lvm = PF_LVM_PATH;
	argv[n++] = (char *)lvm;
	for (size_t i = 0; i < ARRAY_SIZE(head); i++)
		argv[n++] = (char *)head[i];
	for (size_t i = 0; i < o->n_config; i++) {
		argv[n++] = (char *)"--config";
		argv[n++] = (char *)o->config[i];
	}
	if (o->devicesfile) {
		argv[n++] = (char *)"--devicesfile";
		argv[n++] = (char *)o->devicesfile;
	}
	if (o->driverloaded) {
		argv[n++] = (char *)"--driverloaded";
		argv[n++] = (char *)o->driverloaded;
	}
	argv[n++] = (char *)vgname;
	(void)fflush(stdout);
	/* With --udevoutput our stdout is udev's IMPORT: lvm2's chatter goes to stderr. */
	r = posix_spawn_file_actions_init(&fa);
	if (r == 0)
		r = posix_spawn_file_actions_adddup2(&fa, o->udevoutput ? err_fd : out_fd,
						     STDOUT_FILENO);
	if (r == 0)
		r = posix_spawn_file_actions_adddup2(&fa, err_fd, STDERR_FILENO);
	if (r == 0)
		r = posix_spawn(ret, lvm, &fa, NULL, argv, environ);
	(void)posix_spawn_file_actions_destroy(&fa);
	return -r;
}

static bool exited_ok(int st)
{
	return WIFEXITED(st) && WEXITSTATUS(st) == 0;
}

static void vg_failed(struct pf_autoactivate *a, const char *vg)
{
	pf_report_autoactivation(a->o, vg, PF_REPORT_AA_FAILED);
	a->status = PF_EXIT_FAILED;
}

static void journal_end(struct pf_autoactivate *a, const char *vg)
{
	if (a->c)
		pf_coalesce_activation_end(a->c, vg);
}

/* One lvm2 process: what it writes is kept until the ones before it were shown. */
struct child {
	pid_t pid;
	int out_fd, err_fd; /* memfds */
	bool done, ok;
};

static void child_close(struct child *c)
{
	if (c->out_fd >= 0)
		(void)close(c->out_fd);
	if (c->err_fd >= 0)
		(void)close(c->err_fd);
	c->out_fd = c->err_fd = -1;
}

static void copy_out(int from, FILE *to)
{
	char buf[8192];
	ssize_t k;

	if (from < 0 || lseek(from, 0, SEEK_SET) < 0)
		return;
	while ((k = read(from, buf, sizeof(buf))) > 0)
		(void)fwrite(buf, 1, (size_t)k, to);
	(void)fflush(to);
}

static int start_child(struct pf_autoactivate *a, const char *vg, struct child *c)
{
	int r;

	c->out_fd = memfd_create("lvm-stdout", MFD_CLOEXEC);
	c->err_fd = memfd_create("lvm-stderr", MFD_CLOEXEC);
	if (c->out_fd < 0 || c->err_fd < 0) {
		child_close(c);
		return -errno;
	}
	r = spawn_lvm(a->o, vg, c->out_fd, c->err_fd, &c->pid);
	if (r < 0)
		child_close(c);
	return r;
}

/*
 * Hand VGs to lvm2, at most DELEGATE_PARALLEL at a time. Their output is shown in the order
 * the VGs were claimed, as lvm2's own pvscan would print it, and each VG's journal entry
 * ends once its lvm2 is done.
 */
static void delegate(struct pf_autoactivate *a, char (*vgs)[PF_NAME_MAX + 1], size_t n)
{
	_cleanup_free_ struct child *ch = calloc(n ? n : 1, sizeof(*ch));
	size_t next = 0, shown = 0, running = 0;

	if (!ch) {
		a->status = PF_EXIT_FAILED;
		return;
	}
	for (size_t i = 0; i < n; i++)
		ch[i] = (struct child){ .pid = -1, .out_fd = -1, .err_fd = -1 };
	while (shown < n) {
		int st;
		pid_t pid;

		while (running < DELEGATE_PARALLEL && next < n) {
			if (start_child(a, vgs[next], &ch[next]) < 0) {
				pf_err("  Cannot run %s to activate VG %s.", PF_LVM_PATH, vgs[next]);
				ch[next].done = true;
			} else {
				running++;
			}
			next++;
		}
		while (shown < n && ch[shown].done) {
			copy_out(ch[shown].out_fd, stdout);
			copy_out(ch[shown].err_fd, stderr);
			child_close(&ch[shown]);
			if (!ch[shown].ok)
				vg_failed(a, vgs[shown]);
			journal_end(a, vgs[shown]);
			shown++;
		}
		if (running == 0)
			continue;
		pid = waitpid(-1, &st, 0);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		for (size_t i = shown; i < next; i++)
			if (ch[i].pid == pid && !ch[i].done) {
				ch[i].done = true;
				ch[i].ok = exited_ok(st);
				running--;
				break;
			}
	}
	for (size_t i = shown; i < n; i++)
		child_close(&ch[i]);
}

/* The VG's PVs and where they are, from its metadata and the pvs_online files. */
static int vg_pvs(const struct pf_autoactivate *a, const struct pf_vg *vg,
		  struct pf_activate_pv **ret, char (**ret_paths)[PF_STATE_NAME_LEN])
{
	struct pf_activate_pv *pvs = calloc(vg->n_pvs ? vg->n_pvs : 1, sizeof(*pvs));
	char (*paths)[PF_STATE_NAME_LEN] = calloc(vg->n_pvs ? vg->n_pvs : 1, sizeof(*paths));

	if (!pvs || !paths) {
		free(pvs);
		free(paths);
		return -ENOMEM;
	}
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		struct pf_state_pv st;

		memcpy(pvs[i].pvid, vg->pvs[i].id, sizeof(pvs[i].pvid));
		if (pf_state_pv_online_read(a->paths->run, vg->pvs[i].id, &st) < 0)
			continue;
		pvs[i].major = st.major;
		pvs[i].minor = st.minor;
		if (st.devname[0])
			(void)snprintf(paths[i], sizeof(paths[i]), "%s", st.devname);
		else
			(void)snprintf(paths[i], sizeof(paths[i]), "%s/block/%u:%u", a->paths->dev,
				       st.major, st.minor);
		pvs[i].path = paths[i];
	}
	*ret = pvs;
	*ret_paths = paths;
	return 0;
}

/* The VG's metadata as the scan found it, from any device of it read in this pass. */
static const struct pf_vg *find_vg(const struct pf_scan *scan, const char *name)
{
	for (size_t i = 0; i < scan->n; i++) {
		const struct pf_vg *vg;

		if (scan->devs[i].outcome != PF_SCAN_READ)
			continue;
		vg = pf_probe_vg(&scan->devs[i].probe);
		if (vg && strcmp(vg->name, name) == 0)
			return vg;
	}
	return NULL;
}

/* After the batch's udev wait: lvm2's lines for one VG decided natively, in claim order. */
static void report(struct pf_autoactivate *a, const char *vg, const struct pf_activate_result *res)
{
	pf_report_vg_result(a->o, vg, res);
	if (res->outcome != PF_ACTIVATE_FAILED)
		return;
	if (res->vg_failed)
		a->status = PF_EXIT_FAILED; /* lvm2's own lines said it */
	else
		vg_failed(a, vg);
}

/*
 * The end of a native batch: wait for udev once, then say what each VG came to and unlock.
 * Every line waits for this, so that what one VG printed is together, as lvm2 prints it.
 */
static void finish_batch(struct pf_autoactivate *a, struct pf_dm_batch *b,
			 struct pf_activate_result *res, char (*names)[PF_NAME_MAX + 1], size_t n)
{
	int r = pf_dm_wait(b, PF_DM_UDEV_TIMEOUT_MS);

	if (r == -ETIMEDOUT)
		pf_warn("  WARNING: udev did not process the new devices within %u s; their links "
			"may be missing.", PF_DM_UDEV_TIMEOUT_MS / 1000U);
	for (size_t i = 0; i < n; i++) {
		report(a, names[i], &res[i]);
		pf_activate_result_release(&res[i]);
		journal_end(a, names[i]);
	}
}

void pf_autoactivate_run(struct pf_autoactivate *a, char (*vgs)[PF_NAME_MAX + 1], size_t n,
			 const struct pf_scan *scan)
{
	const struct pf_opts *o = a->o;
	struct pf_activate_opts ao = { .lock_dir = a->paths->lock, .sys_dir = a->paths->sys,
				       .settings = a->st, .dry_run = o->test,
				       .dup_pvids = a->dup_pvids, .n_dup_pvids = a->n_dup_pvids,
				       .process_each = a->process_each,
				       .timeout_ms = o->timeout_s * 1000U };
	_cleanup_free_ struct pf_activate_result *held = NULL;
	_cleanup_free_ char(*held_names)[PF_NAME_MAX + 1] = NULL;
	_cleanup_free_ char(*lvm2_vgs)[PF_NAME_MAX + 1] = NULL;
	struct pf_dm_batch batch = { 0 };
	size_t n_held = 0, n_lvm2 = 0;
	/* Without device-mapper (or told not to use it) lvm2 says what can be done. */
	bool native = !o->driverloaded_no && (o->test || pf_dm_available(a->paths->dev));

	ao.no_dm = !native;

	held = calloc(NATIVE_BATCH_MAX, sizeof(*held));
	held_names = calloc(NATIVE_BATCH_MAX, sizeof(*held_names));
	lvm2_vgs = calloc(n ? n : 1, sizeof(*lvm2_vgs));
	if (!held || !held_names || !lvm2_vgs) {
		a->status = PF_EXIT_FAILED;
		return;
	}
	/* In claim order, as lvm2 prints; see below for how several VG locks are held. */
	for (size_t i = 0; i < n; i++) {
		_cleanup_free_ struct pf_activate_pv *pvs = NULL;
		_cleanup_free_ char(*paths)[PF_STATE_NAME_LEN] = NULL;
		const struct pf_vg *vg = find_vg(scan, vgs[i]);
		struct pf_activate_result res;
		int r = -ENOENT;

		/*
		 * lvm2 refuses a VG with a PV on two devices itself; the vgchange it would be
		 * handed to reads only the online devices and would not see it.
		 */
		if (vg && !native && !pf_activate_dup_pvs(&ao, vg))
			vg = NULL;

		/*
		 * Holding the locks of VGs whose devices wait for udev, we must not wait for
		 * another: whoever holds it may be waiting for one of ours. So the lock is
		 * tried; when it is busy the batch is finished first and the lock waited for.
		 */
		if (vg && vg_pvs(a, vg, &pvs, &paths) == 0) {
			ao.lock_nowait = n_held > 0;
			r = pf_activate_vg(&ao, vgs[i], pvs, vg->n_pvs, &batch, &res);
			if (r == -EWOULDBLOCK) {
				finish_batch(a, &batch, held, held_names, n_held);
				n_held = 0;
				ao.lock_nowait = false;
				r = pf_activate_vg(&ao, vgs[i], pvs, vg->n_pvs, &batch, &res);
			}
		}
		/* --driverloaded n, no metadata at hand, out of memory: lvm2 decides */
		if (r < 0) {
			memcpy(lvm2_vgs[n_lvm2++], vgs[i], sizeof(vgs[i]));
			continue;
		}
		if (res.outcome == PF_ACTIVATE_DELEGATE) {
			/* lvm2 prints its own lines for it */
			pf_info("  VG %s is activated by lvm2: %s.", vgs[i], res.reason);
			if (o->test)
				pf_report_plan(o, vgs[i], &res);
			pf_activate_result_release(&res);
			if (o->test)
				journal_end(a, vgs[i]);
			else
				memcpy(lvm2_vgs[n_lvm2++], vgs[i], sizeof(vgs[i]));
			continue;
		}
		if (o->test) {
			pf_report_plan(o, vgs[i], &res);
			pf_activate_result_release(&res);
			journal_end(a, vgs[i]);
			continue;
		}
		held[n_held] = res;
		memcpy(held_names[n_held++], vgs[i], sizeof(vgs[i]));
		if (n_held == NATIVE_BATCH_MAX) {
			finish_batch(a, &batch, held, held_names, n_held);
			n_held = 0;
		}
	}
	finish_batch(a, &batch, held, held_names, n_held);
	pf_dm_release();
	if (o->test) {
		for (size_t i = 0; i < n_lvm2; i++) {
			pf_report_plan_lvm2(o, lvm2_vgs[i]);
			journal_end(a, lvm2_vgs[i]);
		}
		return;
	}
	delegate(a, lvm2_vgs, n_lvm2);
}

void pf_autoactivate_recover(struct pf_autoactivate *a, const char *vg)
{
	char one[1][PF_NAME_MAX + 1];

	/* lvm2 finds the VG's devices itself; a dead leader's VG is rare enough not to care. */
	(void)snprintf(one[0], sizeof(one[0]), "%s", vg);
	if (a->o->test) {
		journal_end(a, vg);
		return;
	}
	delegate(a, one, 1);
}
