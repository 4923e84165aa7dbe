/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Autoactivation of the VGs claimed complete: activate each natively through
 * lib/activate/vgactivate.c, or hand it to lvm2 (`lvm vgchange -aay --autoactivation event
 * VG`), several at once; report.c prints lvm2's lines, or with --dry-run what would be loaded.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "activate/devlinks.h"
#include "activate/vgactivate.h"
#include "autoactivate.h"
#include "base/clock.h"
#include "base/fileio.h"
#include "base/log.h"
#include "base/stop.h"
#include "base/strutil.h"
#include "format/vg.h"
#include "report.h"
#include "state/state.h"
#include "story.h"

/* VGs whose devices are made before one udev wait (each holds its VG lock until then). */
#define NATIVE_BATCH_MAX 128U
/* lvm2 processes activating VGs at the same time. */
#define DELEGATE_PARALLEL 4U
/* After SIGTERM, an lvm2 process gets this long to end before SIGKILL. */
#define KILL_GRACE_MS (10U * 1000U)
/* How often running lvm2 processes are looked at (reaped, timed out). */
#define REAP_POLL_MS 20U

/*
 * lvm2 activates the VG: PVSCAN_FAST_LVM names another lvm binary (or wrapper). --config,
 * --devicesfile and --driverloaded go along, as lvm2's pvscan activates under them. The child
 * holds nothing of ours but its output files, and gets SIGTERM when we die.
 */
static int spawn_lvm(const struct pf_opts *o, bool degraded, const char *vgname, int out_fd,
		     int err_fd, pid_t *ret)
{
	const char *lvm = getenv("PVSCAN_FAST_LVM");
	static const char *const event[] = { "vgchange", "-aay", "--autoactivation", "event" };
	/* not an event activation: that refuses a VG with a PV missing */
	static const char *const deg[] = { "vgchange", "-aay", "--activationmode", "degraded" };
	const char *const *head = degraded ? deg : event;
	_cleanup_free_ char **argv = NULL;
	_Static_assert(ARRAY_SIZE(event) == ARRAY_SIZE(deg), "one length for both heads");
	pid_t parent = getpid(), pid;
	size_t n = 0;

	argv = calloc(1 + ARRAY_SIZE(event) + PF_CMD_PASSED_ARGS_MAX + 2, sizeof(*argv));
	if (!argv)
		return -ENOMEM;
	if (!lvm || !*lvm)
		lvm = PF_LVM_PATH;
	argv[n++] = (char *)lvm;
	for (size_t i = 0; i < ARRAY_SIZE(event); i++)
		argv[n++] = (char *)head[i];
	n += pf_cmd_passed_args(o, argv + n);
	argv[n++] = (char *)vgname;
	(void)fflush(stdout);
	(void)fflush(stderr);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* With --udevoutput our stdout is udev's IMPORT: lvm2's chatter goes to stderr. */
		if (pf_stop_child_setup(parent, SIGTERM) < 0 ||
		    dup2(o->udevoutput ? err_fd : out_fd, STDOUT_FILENO) < 0 ||
		    dup2(err_fd, STDERR_FILENO) < 0)
			_exit(127);
		/* lvm2 warns about every descriptor it inherits past stderr, and rightly so */
		pf_close_fds(STDERR_FILENO + 1, INT_MAX);
		(void)execv(lvm, argv);
		_exit(127);
	}
	*ret = pid;
	return 0;
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
	int out_fd, err_fd;	/* memfds */
	uint64_t deadline_ns;	/* SIGTERM then; SIGKILL KILL_GRACE_MS later */
	bool started, done, ok;
	bool timed_out, killed; /* sent SIGTERM at the deadline; sent SIGKILL */
	bool left;		/* not run, or stopped by our own termination: journaled */
	int wstatus;		/* as waitpid() gave it; -1 when it never ran or was lost */
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
	r = spawn_lvm(a->o, a->degraded, vg, c->out_fd, c->err_fd, &c->pid);
	if (r < 0)
		child_close(c);
	return r;
}

/* Reap c if it ended: true when it did (or can no longer be waited for). */
static bool reap(struct child *c)
{
	int st;
	pid_t pid = waitpid(c->pid, &st, WNOHANG);

	if (pid == 0 || (pid < 0 && errno == EINTR))
		return false;
	c->done = true;
	c->wstatus = pid > 0 ? st : -1;
	c->ok = pid > 0 && !c->timed_out && exited_ok(st);
	/* what our own SIGTERM cut short is done again by the next leader */
	c->left = pid > 0 && pf_stop_requested() && !c->ok && !c->timed_out;
	return true;
}

/* The deadline, or our own termination: ask c to end, then make it. */
static void chase(struct pf_autoactivate *a, const char *vg, struct child *c, uint64_t now)
{
	if (!c->timed_out && !c->left && (now >= c->deadline_ns || pf_stop_requested())) {
		if (now >= c->deadline_ns) {
			c->timed_out = true;
			pf_err("  %s did not finish activating VG %s within %u s: stopping it.",
			       PF_LVM_PATH, vg, a->st->activation_timeout_sec);
		}
		(void)kill(c->pid, SIGTERM);
		c->deadline_ns = now + (uint64_t)KILL_GRACE_MS * NSEC_PER_MSEC;
		c->left = !c->timed_out;
		return;
	}
	if ((c->timed_out || c->left) && !c->killed && now >= c->deadline_ns) {
		(void)kill(c->pid, SIGKILL);
		c->killed = true;
	}
}

/* What one lvm2 process came to, in claim order: its output, then the VG's journal entry. */
static void show(struct pf_autoactivate *a, const char *vg, const char *how, struct child *c)
{
	copy_out(c->out_fd, stdout);
	copy_out(c->err_fd, stderr);
	child_close(c);
	pf_story_lvm2(a->rec, vg, how, c->wstatus, c->timed_out, c->left);
	a->last_exit = c->wstatus < 0		 ? -1
		       : WIFEXITED(c->wstatus) ? WEXITSTATUS(c->wstatus)
					       : 128 + WTERMSIG(c->wstatus);
	if (c->left) {
		pf_warn("  VG %s is left for the next pvscan-fast run: stopped by signal %d.", vg,
			pf_stop_signal());
		a->status = PF_EXIT_FAILED;
		return;
	}
	if (!c->ok)
		vg_failed(a, vg);
	journal_end(a, vg);
}

/*
 * Hand VGs to lvm2, at most DELEGATE_PARALLEL at a time, each within the activation timeout.
 * Their output is shown in the order the VGs were claimed, as lvm2's own pvscan would print
 * it, and each VG's journal entry ends once its lvm2 is done. Told to stop, we start no more
 * and pass the signal on: what did not finish stays journaled for the next leader.
 */
static void delegate(struct pf_autoactivate *a, char (*vgs)[PF_NAME_MAX + 1], size_t n,
		     const char *how)
{
	_cleanup_free_ struct child *ch = calloc(n ? n : 1, sizeof(*ch));
	uint64_t timeout_ns = (uint64_t)a->st->activation_timeout_sec * NSEC_PER_SEC;
	size_t next = 0, shown = 0, running = 0;

	if (!ch) {
		a->status = PF_EXIT_FAILED;
		return;
	}
	for (size_t i = 0; i < n; i++)
		ch[i] = (struct child){ .pid = -1, .out_fd = -1, .err_fd = -1, .wstatus = -1 };
	while (shown < n) {
		bool reaped = false;
		uint64_t now;

		while (running < DELEGATE_PARALLEL && next < n) {
			struct child *c = &ch[next];

			if (pf_stop_requested()) {
				c->done = c->left = true;
			} else if (start_child(a, vgs[next], c) < 0) {
				pf_err("  Cannot run %s to activate VG %s.", PF_LVM_PATH, vgs[next]);
				c->done = true;
			} else {
				pf_story_activate(a->rec, vgs[next], how);
				c->started = true;
				c->deadline_ns = pf_now_ns() + timeout_ns;
				running++;
			}
			next++;
		}
		for (; shown < n && ch[shown].done; shown++)
			show(a, vgs[shown], how, &ch[shown]);
		if (running == 0)
			continue;
		now = pf_now_ns();
		for (size_t i = shown; i < next; i++) {
			if (!ch[i].started || ch[i].done)
				continue;
			if (reap(&ch[i])) {
				running--;
				reaped = true;
			} else {
				chase(a, vgs[i], &ch[i], now);
			}
		}
		if (!reaped)
			pf_sleep_ms(REAP_POLL_MS);
	}
}

/*
 * Where this pass read the PV pvid, when its pvs_online file says nothing: a full /run keeps
 * the file empty (as lvm2 does), and lvm2 still activates the VG.
 */
static const struct pf_scan_dev *scanned_pv(const struct pf_scan *scan, const char *pvid)
{
	for (size_t i = 0; i < scan->n; i++) {
		const struct pf_scan_dev *d = &scan->devs[i];

		if (d->outcome == PF_SCAN_READ && d->probe.label_status == 0 &&
		    strcmp(d->probe.label.pvid, pvid) == 0)
			return d;
	}
	return NULL;
}

/* The VG's PVs and where they are, from its metadata and the pvs_online files. */
static int vg_pvs(const struct pf_autoactivate *a, const struct pf_scan *scan,
		  const struct pf_vg *vg, struct pf_activate_pv **ret,
		  char (**ret_paths)[PF_STATE_NAME_LEN])
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
		if (pf_state_pv_online_read(a->paths->run, vg->pvs[i].id, &st) < 0) {
			const struct pf_scan_dev *d = scanned_pv(scan, vg->pvs[i].id);

			if (!d)
				continue;
			pvs[i].major = d->dev.major;
			pvs[i].minor = d->dev.minor;
			(void)snprintf(paths[i], sizeof(paths[i]), "%s", d->dev.path);
			pvs[i].path = paths[i];
			continue;
		}
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

/*
 * The VG's metadata as the scan found it, from any device of it read in this pass: the one
 * with its UUID, as another VG may carry the same name (a disk from another host).
 */
const struct pf_vg *pf_aa_find_vg(const struct pf_scan *scan, const struct pf_aa_vg *want)
{
	return pf_scan_find_vg(scan, want->name, want->id);
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

/* The batch's udev cookie, once made: journaled, so that a leader killed before the wait
   leaves it to the next one to remove. */
static void journal_cookie(struct pf_autoactivate *a, const struct pf_dm_batch *b)
{
	int r;

	if (!a->c || !b->cookie || b->cookie == a->journaled_cookie)
		return;
	r = pf_coalesce_cookie_begin(a->c, b->cookie);
	if (r < 0)
		pf_warn("  WARNING: cannot journal udev cookie %u: %s.", (unsigned)b->cookie,
			strerror(-r));
	a->journaled_cookie = b->cookie;
}

/*
 * The end of a native batch: wait for udev once, then say what each VG came to and unlock.
 * Every line waits for this, so that what one VG printed is together, as lvm2 prints it.
 */
static void finish_batch(struct pf_autoactivate *a, struct pf_dm_batch *b,
			 struct pf_activate_result *res, char (*names)[PF_NAME_MAX + 1], size_t n)
{
	uint32_t cookie = b->cookie;
	int r = pf_dm_wait(b, PF_DM_UDEV_TIMEOUT_MS);

	if (cookie && a->c)
		pf_coalesce_cookie_end(a->c, cookie);

	if (r == -ETIMEDOUT)
		pf_warn("  WARNING: udev did not process the new devices within %u s; their links "
			"may be missing.", PF_DM_UDEV_TIMEOUT_MS / 1000U);
	for (size_t i = 0; i < n; i++) {
		struct pf_diag why = { 0 };

		/* lvm2 makes the links itself when udev may not (dm.h's policy) */
		if (b->udev.nodes_ours && res[i].outcome == PF_ACTIVATE_DONE &&
		    pf_devlinks_add(a->paths->dev, names[i], &res[i], &why) < 0)
			pf_warn("  WARNING: %s.", why.msg);
		report(a, names[i], &res[i]);
		pf_story_native(a->rec, names[i], &res[i]);
		pf_activate_result_release(&res[i]);
		journal_end(a, names[i]);
	}
}

void pf_autoactivate_run(struct pf_autoactivate *a, const struct pf_aa_vg *vgs, size_t n,
			 const struct pf_scan *scan)
{
	const struct pf_opts *o = a->o;
	struct pf_activate_opts ao = { .lock_dir = a->paths->lock, .sys_dir = a->paths->sys,
				       .run_dir = a->paths->run,
				       .settings = a->st, .dry_run = o->test,
				       .dup_pvids = a->dup_pvids, .n_dup_pvids = a->n_dup_pvids,
				       .process_each = a->process_each,
				       .lock_timeout_ms = a->st->lock_timeout_sec * 1000U,
				       .timeout_ms = o->timeout_s * 1000U };
	_cleanup_free_ struct pf_activate_result *held = NULL;
	_cleanup_free_ char(*held_names)[PF_NAME_MAX + 1] = NULL;
	_cleanup_free_ char(*lvm2_vgs)[PF_NAME_MAX + 1] = NULL;
	struct pf_dm_batch batch = {
		.udev = pf_dm_udev_policy(pf_dm_udev_disabled(), a->st->udev_rules,
					  a->st->udev_sync, a->st->verify_udev_operations),
	};
	size_t n_held = 0, n_lvm2 = 0;
	/* Without device-mapper (or told not to use it) lvm2 says what can be done. */
	bool dm = !o->driverloaded_no && pf_dm_available(a->paths->dev);
	bool native = dm || (o->test && !o->driverloaded_no);

	/* A dry run decides natively all the same, taking every LV for inactive. */
	ao.no_dm = !dm;
	if (o->test && native && !dm && n)
		pf_warn("  No device-mapper here (%s/mapper/control): the dry run takes every LV "
			"for inactive.", a->paths->dev);

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
		const struct pf_vg *vg;
		struct pf_activate_result res;
		int r = -ENOENT;

		if (pf_stop_requested()) {
			/* journaled: the next leader activates them */
			for (size_t k = i; k < n; k++)
				pf_warn("  VG %s is left for the next pvscan-fast run: stopped by "
					"signal %d.", vgs[k].name, pf_stop_signal());
			a->status = PF_EXIT_FAILED;
			break;
		}
		vg = pf_aa_find_vg(scan, &vgs[i]);

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
		if (vg && vg_pvs(a, scan, vg, &pvs, &paths) == 0) {
			if (!o->test)
				pf_story_activate(a->rec, vgs[i].name, "native");
			ao.lock_nowait = n_held > 0;
			r = pf_activate_vg(&ao, vgs[i].name, pvs, vg->n_pvs, &batch, &res);
			if (r == -EWOULDBLOCK) {
				finish_batch(a, &batch, held, held_names, n_held);
				n_held = 0;
				ao.lock_nowait = false;
				r = pf_activate_vg(&ao, vgs[i].name, pvs, vg->n_pvs, &batch, &res);
			}
			journal_cookie(a, &batch);
		}
		/* --driverloaded n, no metadata at hand, out of memory: lvm2 decides */
		if (r < 0) {
			memcpy(lvm2_vgs[n_lvm2++], vgs[i].name, sizeof(lvm2_vgs[0]));
			continue;
		}
		if (res.outcome == PF_ACTIVATE_DELEGATE) {
			/* lvm2 prints its own lines for it; the reason may quote a segment type */
			char why[4 * sizeof(res.reason)];

			pf_info("  VG %s is activated by lvm2: %s.", vgs[i].name,
				pf_str_escape(res.reason, why, sizeof(why)));
			if (o->test)
				pf_report_plan(o, vgs[i].name, &res);
			pf_activate_result_release(&res);
			if (o->test)
				journal_end(a, vgs[i].name);
			else
				memcpy(lvm2_vgs[n_lvm2++], vgs[i].name, sizeof(lvm2_vgs[0]));
			continue;
		}
		if (o->test) {
			pf_report_plan(o, vgs[i].name, &res);
			if (res.outcome == PF_ACTIVATE_FAILED)
				a->status = PF_EXIT_FAILED; /* as the real run would end */
			pf_activate_result_release(&res);
			journal_end(a, vgs[i].name);
			continue;
		}
		held[n_held] = res;
		memcpy(held_names[n_held++], vgs[i].name, sizeof(held_names[0]));
		/* the boot's VGs are up (udev done with them) before the next VG is loaded */
		if (n_held == NATIVE_BATCH_MAX || i + 1 == a->n_first) {
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
	delegate(a, lvm2_vgs, n_lvm2, "lvm2");
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
	delegate(a, one, 1, "recover");
}

void pf_autoactivate_degraded(struct pf_autoactivate *a, const char *vg)
{
	char one[1][PF_NAME_MAX + 1];

	(void)snprintf(one[0], sizeof(one[0]), "%s", vg);
	a->degraded = true;
	a->last_exit = -1;
	delegate(a, one, 1, "degraded");
	a->degraded = false;
}
