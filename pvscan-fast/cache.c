/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * --cache, --listvg, --listlvs: run the scan and the online phase, plain (one pass over the
 * arguments, as lvm2) or as the coalescing leader (a pass per round); report.c prints.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "activate/bootorder.h"
#include "activate/dm.h"
#include "autoactivate.h"
#include "base/grow.h"
#include "base/log.h"
#include "base/paths.h"
#include "base/stop.h"
#include "base/strutil.h"
#include "cmd.h"
#include "journal.h"
#include "config/settings.h"
#include "degraded.h"
#include "report.h"
#include "scan/pvcache.h"
#include "scan/scan.h"
#include "state/coalesce.h"
#include "state/records.h"
#include "state/state.h"
#include "story.h"

/* One invocation's work: plain (one pass over the arguments) or as the coalescing leader. */
struct cache_run {
	const struct pf_opts *o;
	const struct pf_paths *paths;
	const struct pf_settings *st;
	struct pf_coalesce *c; /* NULL when not coalescing */
	struct pf_records *rec; /* what --status tells; NULL for a dry run */
	bool full_cmd;	       /* the command names no device: every device, state rebuilt */
	/* --udevoutput: our own devices, and the VG line udev imports (printed once) */
	struct pf_scan_arg *own;
	size_t n_own;
	char own_vg[PF_NAME_MAX + 1];
	bool own_complete, udev_line_done; /* own_vg was found complete (by any device) */
	bool own_journaled; /* own_vg's activation is the udev rule's once our stdout is out */
	struct pf_scan_arg *again; /* devices queued again once, the reader lost on them */
	size_t n_again, cap_again;
	int status;
};

/* The devno of a device path, for matching the devices the scan found to ours. */
static bool path_devno(const char *path, unsigned *ret_major, unsigned *ret_minor)
{
	struct stat st;

	if (stat(path, &st) < 0 || !S_ISBLK(st.st_mode))
		return false;
	*ret_major = major(st.st_rdev);
	*ret_minor = minor(st.st_rdev);
	return true;
}

static bool is_own(const struct cache_run *j, unsigned major, unsigned minor)
{
	for (size_t i = 0; i < j->n_own; i++)
		if (j->own[i].major == major && j->own[i].minor == minor)
			return true;
	return false;
}

/*
 * Something failed. udev imports the --udevoutput form's stdout only when it exits 0, so
 * there, as with lvm2, whose form never touches other devices, only a failure with our own
 * device changes the exit status.
 */
static void run_failed(struct cache_run *j, bool own)
{
	if (own || !j->o->udevoutput)
		j->status = PF_EXIT_FAILED;
}

static bool in_args(const struct pf_scan_arg *args, size_t n, unsigned major, unsigned minor)
{
	for (size_t i = 0; i < n; i++)
		if (args[i].major == major && args[i].minor == minor)
			return true;
	return false;
}

/* The round's entry for a device, or NULL. */
static const struct pf_pending *find_item(const struct pf_pending *items, size_t n,
					  unsigned major, unsigned minor)
{
	for (size_t i = 0; items && i < n; i++)
		if (items[i].major == major && items[i].minor == minor)
			return &items[i];
	return NULL;
}

/* --udevoutput: tell udev our device's VG, once. */
static void say_own_vg(struct cache_run *j, bool complete)
{
	pf_report_udev_vg(j->own_vg, complete);
	j->udev_line_done = true;
}

/* What an event says about our own device's VG, for the --udevoutput line. */
static void note_own_vg(struct cache_run *j, const struct pf_scan_dev *d, const struct pf_event *e)
{
	if (!j->o->udevoutput || j->udev_line_done || j->own_vg[0] ||
	    !is_own(j, d->dev.major, d->dev.minor))
		return;
	if (e->kind != PF_EV_VG_COMPLETE && e->kind != PF_EV_VG_INCOMPLETE)
		return;
	(void)snprintf(j->own_vg, sizeof(j->own_vg), "%s", e->vg);
}

/* A device no longer there: forget its PV, as lvm2 does for a removal event. */
static void forget_devno(const struct cache_run *j, unsigned major, unsigned minor)
{
	int r = pf_state_remove_devno(j->paths->run, major, minor);

	if (r < 0)
		pf_err("  Cannot update %s: %s.", j->paths->run, strerror(-r));
	if (j->c)
		pf_coalesce_note_gone(j->c, major, minor);
}

/* PVs on two devices, from the scan or the online files: lvm2 activates none of their VG. */
static const char **dup_pvids(const struct pf_scan *scan, const struct pf_pvcache *ps,
			      size_t *ret_n)
{
	const char **dups = calloc(scan->n + ps->n_events + 1, sizeof(*dups));
	size_t n = 0;

	if (!dups)
		return NULL;
	for (size_t i = 0; i < scan->n; i++)
		if (scan->devs[i].outcome == PF_SCAN_DUPLICATE && scan->devs[i].probe.label_status == 0)
			dups[n++] = scan->devs[i].probe.label.pvid;
	for (size_t i = 0; i < ps->n_events; i++)
		if (ps->events[i].kind == PF_EV_DUPLICATE)
			dups[n++] = ps->events[i].pvid;
	*ret_n = n;
	return dups;
}

/*
 * lvm2's one-VG quick path (saved_vg in its pvscan.c) gives up on a PV last written through an
 * md device and online now elsewhere, says so, and reads the VG the several-VG way instead.
 */
static bool quick_path_gives_up(const struct cache_run *j, const struct pf_scan *scan,
				const struct pf_aa_vg *want)
{
	_cleanup_free_ struct pf_state_pv *st = NULL;
	_cleanup_free_ const char **online = NULL;
	const struct pf_vg *vg = pf_aa_find_vg(scan, want);
	int i;

	if (!vg || vg->n_pvs == 0)
		return false;
	st = calloc(vg->n_pvs, sizeof(*st));
	online = calloc(vg->n_pvs, sizeof(*online));
	if (!st || !online)
		return false;
	for (unsigned k = 0; k < vg->n_pvs; k++)
		if (pf_state_pv_online_read(j->paths->run, vg->pvs[k].id, &st[k]) == 0)
			online[k] = st[k].devname;
	i = pf_aapolicy_md_hint_moved(vg, online);
	if (i < 0)
		return false;
	pf_report_md_hint_moved(j->o, vg->name, vg->pvs[i].id, online[i], vg->pvs[i].device);
	return true;
}

/*
 * The VGs the boot waits for (root, /usr, resume: the kernel command line and fstab) go first,
 * in a batch of their own: behind hundreds of others the root would wait for all of them, and
 * the initramfs with it. Returns how many are in front.
 */
static size_t boot_vgs_first(const struct cache_run *j, struct pf_aa_vg *todo, size_t n)
{
	_cleanup_free_ char *cmdline = NULL;
	struct pf_strv boot = { 0 };
	size_t front;

	cmdline = pf_path_join(j->paths->proc, "cmdline");
	if (!cmdline || pf_bootorder_load(cmdline, j->paths->fstab, &boot) < 0)
		return 0;
	front = pf_bootorder_front(todo, n, sizeof(*todo), &boot);
	pf_strv_release(&boot);
	return front;
}

/*
 * Claim every complete VG and say so first, then activate the ones claimed, as lvm2 does.
 * Coalescing, each claim is journaled first, so a leader killed between claiming and
 * activating leaves the VG to the next leader instead of down for good. With
 * --udevoutput, our own device's VG is left to the udev rule that imports the line.
 */
static void claim_and_activate(struct cache_run *j, const struct pf_aa_vg *complete,
			       size_t n_complete, const struct pf_scan *scan,
			       const struct pf_pvcache *ps, bool all)
{
	const struct pf_opts *o = j->o;
	_cleanup_free_ struct pf_aa_vg *todo = NULL;
	_cleanup_free_ const char **dups = NULL;
	_cleanup_free_ const struct pf_vg **vgs = NULL;
	_cleanup_free_ const char **ambiguous = NULL;
	/* lvm2's quick path is for one named device only (saved_vg in its pvscan.c) */
	struct pf_autoactivate a = { .o = o, .paths = j->paths, .st = j->st, .c = j->c,
				     .rec = j->rec, .process_each = j->full_cmd || o->n_devs > 1 };
	struct pf_aapolicy_input in;
	struct pf_aapolicy_vgnames names = { 0 };
	size_t n = 0, n_ambiguous = 0;

	todo = calloc(n_complete ? n_complete : 1, sizeof(*todo));
	ambiguous = calloc(n_complete ? n_complete : 1, sizeof(*ambiguous));
	dups = dup_pvids(scan, ps, &a.n_dup_pvids);
	if (!todo || !ambiguous || !dups || pf_scan_vgs(scan, &vgs) < 0) {
		j->status = PF_EXIT_FAILED;
		return;
	}
	a.dup_pvids = dups;
	pf_aapolicy_input_from_settings(j->st, PF_AAPOLICY_PVSCAN, &in);
	if (pf_aapolicy_vgnames_find(&in, vgs, scan->n, &names) < 0) {
		j->status = PF_EXIT_FAILED;
		return;
	}
	for (size_t i = 0; i < n_complete; i++) {
		const char *vg = complete[i].name;
		int r;

		if (j->c && (r = pf_coalesce_activation_begin(j->c, vg)) < 0)
			pf_warn("  WARNING: cannot journal activation of VG %s: %s.", vg,
				strerror(-r));
		if (pf_state_vg_online_claim(j->paths->run, vg) == -EEXIST) {
			pf_story_claim(j->rec, vg, false);
			pf_report_autoactivation(o, vg, PF_REPORT_AA_SKIP);
			if (j->c)
				pf_coalesce_activation_end(j->c, vg);
			continue;
		}
		pf_story_claim(j->rec, vg, true);
		if (o->udevoutput && !j->udev_line_done && strcmp(vg, j->own_vg) == 0) {
			/* The journal entry stays until udev has the line: see run_coalesced(). */
			pf_story_ended(j->rec, vg, "udev", "handed",
				       "left to the udev rule's vgchange");
			say_own_vg(j, true);
			j->own_journaled = j->c && pf_coalesce_activation_hold(j->c, vg) == 0;
			continue;
		}
		pf_report_autoactivation(o, vg, PF_REPORT_AA_RUN);
		if (!a.process_each && !all && quick_path_gives_up(j, scan, &complete[i]))
			a.process_each = true;
		/*
		 * lvm2's several-VG path takes VGs by name: two VGs with this one, it takes
		 * none. A full round (the first since boot, --recover) sees every device, so it
		 * refuses too rather than let device order pick one (a stick named like root).
		 */
		if ((a.process_each || all) && pf_aapolicy_vgnames_ambiguous(&names, vg))
			ambiguous[n_ambiguous++] = vg;
		else
			todo[n++] = complete[i];
	}
	for (size_t i = 0; i < n_ambiguous; i++) {
		pf_report_vgname_ambiguous(ambiguous[i]);
		pf_story_ended(j->rec, ambiguous[i], "native", "failed",
			       "more than one VG carries this name");
		run_failed(j, false); /* our own VG is the udev rule's, never in the list */
		if (j->c)
			pf_coalesce_activation_end(j->c, ambiguous[i]);
	}
	/* lvm2's several-VG path scans labels again, and warns about duplicates there */
	if (n && a.process_each && !all)
		pf_report_duplicates(scan);
	if (n > 1)
		a.n_first = boot_vgs_first(j, todo, n);
	pf_autoactivate_run(&a, todo, n, scan);
	if (a.status != PF_EXIT_OK)
		run_failed(j, false);
	pf_aapolicy_vgnames_release(&names);
}

static unsigned pvscan_flags(const struct cache_run *j, bool activate)
{
	const struct pf_opts *o = j->o;
	const struct pf_settings *st = j->st;
	unsigned f = (o->cache ? PF_PVCACHE_CACHE : 0) | (activate ? PF_PVCACHE_ACTIVATE : 0) |
		     (o->checkcomplete ? PF_PVCACHE_CHECK_COMPLETE : 0) |
		     (j->full_cmd ? PF_PVCACHE_ALL : 0);

	if (st->md_component_detection) {
		f |= PF_PVCACHE_MD_DROP_HINT;
		if (!st->md_component_checks || strcmp(st->md_component_checks, "start") != 0)
			f |= PF_PVCACHE_MD_DROP_SIZE;
	}

	/* The leader claims VGs itself (journaled); the udev line is printed from its results. */
	if (!j->c)
		f |= (o->listvg ? PF_PVCACHE_LIST_VG : 0) | (o->listlvs ? PF_PVCACHE_LIST_LVS : 0) |
		     (o->vgonline ? PF_PVCACHE_VG_ONLINE : 0);
	return f;
}

static bool found_complete(const struct pf_pvcache *ps, const char *vg)
{
	for (size_t i = 0; i < ps->n_complete; i++)
		if (strcmp(ps->complete_vgs[i], vg) == 0)
			return true;
	return false;
}

/* One pass over the devices: what it read, what lvm2 would record, and what to activate. */
struct pass {
	struct cache_run *run;
	bool all;      /* every device was read; the args only said which were named */
	bool activate; /* what devices not in items ask for */
	const struct pf_pending *items; /* the coalesced round's entries, NULL when plain */
	size_t n_items;
	struct pf_scan scan;
	struct pf_report_pvs seen; /* the PVs the scan found, for lvm2's warnings */
	struct pf_pvcache ps;
	unsigned flags;		       /* the pvscan flags every device shares */
	struct pf_aa_vg *todo; /* complete VGs a device asked to activate, once each */
	size_t n_todo, cap_todo;
	char (*incomplete)[PF_NAME_MAX + 1]; /* VGs a device that asked to activate left short */
	size_t n_incomplete, cap_incomplete;
};

static bool any_device(const struct pf_scan *scan)
{
	for (size_t i = 0; i < scan->n; i++)
		if (scan->devs[i].outcome != PF_SCAN_NO_DEVICE)
			return true;
	return false;
}

/* What lvm2's label scan says of VGs sharing a name. */
static int report_vgname_duplicates(const struct cache_run *j, const struct pf_scan *scan)
{
	_cleanup_free_ const struct pf_vg **vgs = NULL;
	struct pf_aapolicy_vgnames names;
	struct pf_aapolicy_input in;
	int r = pf_scan_vgs(scan, &vgs);

	if (r < 0)
		return r;
	pf_aapolicy_input_from_settings(j->st, PF_AAPOLICY_PVSCAN, &in);
	r = pf_aapolicy_vgnames_find(&in, vgs, scan->n, &names);
	if (r < 0)
		return r;
	pf_report_vgname_duplicates(vgs, &names);
	pf_aapolicy_vgnames_release(&names);
	return 0;
}

/* Read the devices and print what lvm2 says of the scan as a whole. */
static int pass_read(struct pass *p, const struct pf_scan_arg *args, size_t n_args)
{
	const struct cache_run *j = p->run;
	struct pf_scan_opts so = { .paths = j->paths,
				   .settings = j->st,
				   .args = p->all ? NULL : args,
				   .n_args = p->all ? 0 : n_args,
				   .timeout_ms = j->o->timeout_s * 1000U,
				   .devicesfile = j->o->devicesfile,
				   .lock_timeout_ms = j->st->lock_timeout_sec * 1000U,
				   /* the first leader since boot, started by udev's rule */
				   .udev_announced_only = p->all && !j->full_cmd && j->o->autoactivation &&
							  strcmp(j->o->autoactivation, "event") == 0,
				   .announced = args,
				   .n_announced = n_args };
	int r = pf_scan_run(&so, &p->scan);

	if (r < 0) {
		pf_err("  Scan failed: %s.", strerror(-r));
		return r;
	}
	pf_debug("  scan: %zu devices, %zu read, %u reads, %llu of %llu MiB metadata budget kept",
		 p->scan.n, p->scan.n_read, p->scan.reads,
		 (unsigned long long)(p->scan.mem_used_bytes >> 20),
		 (unsigned long long)(p->scan.mem_budget_bytes >> 20));
	if (p->scan.devfile_unlocked.msg[0])
		pf_warn("  WARNING: %s: reading the devices file without it.",
			p->scan.devfile_unlocked.msg);
	if (p->scan.named_symlinks)
		pf_report_finding_symlinks(j->o);
	if (p->scan.devfile_used && any_device(&p->scan))
		pf_report_filters_ignored(j->st);
	p->flags = pvscan_flags(j, false);
	if (pf_report_pvs_collect(&p->scan, p->flags, &p->seen) < 0) {
		pf_scan_release(&p->scan);
		return -ENOMEM;
	}
	if (p->all)
		pf_report_duplicates(&p->scan);
	if (p->all && j->full_cmd && report_vgname_duplicates(j, &p->scan) < 0) {
		pf_report_pvs_release(&p->seen);
		pf_scan_release(&p->scan);
		return -ENOMEM;
	}
	pf_pvcache_init(&p->ps, j->paths->run, p->flags, j->st->system_id);
	return 0;
}

/*
 * Collect a VG found complete by a device that asked for activation, once: the VG on that
 * device, by UUID, since another VG may carry its name.
 */
static int add_todo(struct pass *p, const char *vg, const struct pf_scan_dev *d)
{
	const struct pf_vg *on_dev = pf_probe_vg(&d->probe);
	struct pf_aa_vg *t;
	int r;

	for (size_t i = 0; i < p->n_todo; i++)
		if (strcmp(p->todo[i].name, vg) == 0)
			return 0;
	r = pf_grow(&p->todo, &p->cap_todo, p->n_todo + 1, SIZE_MAX / sizeof(*p->todo));
	if (r < 0)
		return r;
	t = &p->todo[p->n_todo++];
	(void)snprintf(t->name, sizeof(t->name), "%s", vg);
	(void)snprintf(t->id, sizeof(t->id), "%s",
		       on_dev && strcmp(on_dev->name, vg) == 0 ? on_dev->id : "");
	return 0;
}

/* Collect a VG left incomplete, once, for degraded activation's deadline. */
static int add_incomplete(struct pass *p, const char *vg)
{
	int r;

	for (size_t i = 0; i < p->n_incomplete; i++)
		if (strcmp(p->incomplete[i], vg) == 0)
			return 0;
	r = pf_grow(&p->incomplete, &p->cap_incomplete, p->n_incomplete + 1,
		    SIZE_MAX / sizeof(*p->incomplete));
	if (r < 0)
		return r;
	(void)snprintf(p->incomplete[p->n_incomplete++], sizeof(p->incomplete[0]), "%s", vg);
	return 0;
}

/* Record a PV as lvm2 would and print its lines; act: the device asked for activation. */
static void pass_record(struct pass *p, struct pf_scan_dev *d, bool act, bool named)
{
	struct cache_run *j = p->run;
	size_t first = p->ps.n_events;
	int r;

	p->ps.flags = p->flags | (act ? PF_PVCACHE_ACTIVATE : 0) | (named ? 0 : PF_PVCACHE_ALL);
	/* an md member lvm2's full scan dropped: it never reads the VG there */
	if (!pf_pvcache_md_dropped(p->ps.flags, &d->probe))
		pf_report_vg_devices(d, &p->seen, j->st->system_id, j->full_cmd && p->all);
	r = pf_pvcache_device(&p->ps, d->name, d->dev.major, d->dev.minor, &d->probe);
	for (size_t e = first; e < p->ps.n_events; e++) {
		const struct pf_event *ev = &p->ps.events[e];

		note_own_vg(j, d, ev);
		pf_report_event(j->o, ev);
		pf_story_event(j->rec, j->paths->run, d, ev);
		if (act && ev->kind == PF_EV_VG_COMPLETE && r >= 0)
			r = add_todo(p, ev->vg, d);
		if (act && ev->kind == PF_EV_VG_INCOMPLETE && j->st->degraded_activation && r >= 0)
			r = add_incomplete(p, ev->vg);
	}
	if (r < 0) {
		pf_report_dev_failed(d->name, r);
		run_failed(j, is_own(j, d->dev.major, d->dev.minor));
	}
}

/*
 * A device the reader process was lost on is often not at fault (a disk removed under the
 * reader blocks every read it submits, a healthy device's too): the leader queues it for its
 * next round, once, instead of failing it. true when queued.
 */
static bool read_again(struct cache_run *j, const struct pf_scan_dev *d, bool act)
{
	if (!j->c || !d->reader_lost || in_args(j->again, j->n_again, d->dev.major, d->dev.minor))
		return false;
	if (pf_grow(&j->again, &j->cap_again, j->n_again + 1, PF_COALESCE_TAKE_MAX) < 0 ||
	    pf_coalesce_record(j->c, d->dev.major, d->dev.minor, act ? PF_PENDING_ACTIVATE : 0,
			       0) < 0)
		return false;
	j->again[j->n_again++] = (struct pf_scan_arg){ .major = d->dev.major,
						       .minor = d->dev.minor };
	pf_warn("  WARNING: %s was not read (the reader process was lost on another device); "
		"reading it again.", d->name);
	return true;
}

/*
 * One device of the pass. Named: the command or a queue entry asked for it (lvm2 says more
 * of it); a queue entry says whether it asks for activation, else the pass does.
 */
static void pass_device(struct pass *p, struct pf_scan_dev *d)
{
	struct cache_run *j = p->run;
	const struct pf_pending *it = find_item(p->items, p->n_items, d->dev.major, d->dev.minor);
	bool named = !p->all || it;
	bool act = it ? (it->flags & PF_PENDING_ACTIVATE) != 0 : p->activate;

	if (d->outcome == PF_SCAN_FAILED && read_again(j, d, act))
		return;
	pf_story_dev(j->rec, &p->scan, d, act);
	/* A devno that no longer exists is a removal event. */
	if (d->outcome == PF_SCAN_NO_DEVICE && d->arg && !d->arg->path && j->o->cache)
		forget_devno(j, d->arg->major, d->arg->minor);
	if (j->c && (d->outcome == PF_SCAN_READ || d->outcome == PF_SCAN_NOT_LVM ||
		     d->outcome == PF_SCAN_DUPLICATE) &&
	    pf_coalesce_note_read(j->c, d->dev.major, d->dev.minor,
				  act ? PF_PENDING_ACTIVATE : 0) < 0)
		pf_warn("  WARNING: cannot note %s as read.", d->name);
	pf_report_scan_dev(j->o, d, !named);
	if (d->over_budget)
		run_failed(j, is_own(j, d->dev.major, d->dev.minor));
	if (d->outcome == PF_SCAN_READ || d->outcome == PF_SCAN_NOT_LVM)
		pf_report_probe(d);
	if (d->outcome == PF_SCAN_READ)
		pass_record(p, d, act, named);
}

/*
 * A full round's named devno that the walk did not find and sysfs does not know is gone:
 * forget its PV, as the per-device form does for a removal event.
 */
static int cmp_u64(const void *x, const void *y)
{
	uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;

	return (a > b) - (a < b);
}

/* Whether the walk found devno key: looked up in seen (sorted), else walked. */
static bool walked(const struct pass *p, const uint64_t *seen, uint64_t key)
{
	if (seen)
		return bsearch(&key, seen, p->scan.n, sizeof(*seen), cmp_u64) != NULL;
	for (size_t k = 0; k < p->scan.n; k++)
		if (((uint64_t)p->scan.devs[k].dev.major << 32 | p->scan.devs[k].dev.minor) == key)
			return true;
	return false;
}

static void forget_gone(const struct pass *p)
{
	const struct cache_run *j = p->run;
	/* thousands of named devices: each looked up, not compared with every device walked */
	_cleanup_free_ uint64_t *seen = calloc(p->scan.n ? p->scan.n : 1, sizeof(*seen));
	char path[PATH_MAX];
	struct stat st;

	for (size_t k = 0; seen && k < p->scan.n; k++)
		seen[k] = (uint64_t)p->scan.devs[k].dev.major << 32 | p->scan.devs[k].dev.minor;
	if (seen)
		qsort(seen, p->scan.n, sizeof(*seen), cmp_u64);
	for (size_t i = 0; i < p->n_items; i++) {
		unsigned maj = p->items[i].major, min = p->items[i].minor;

		if (walked(p, seen, (uint64_t)maj << 32 | min))
			continue;
		(void)snprintf(path, sizeof(path), "%s/dev/block/%u:%u", j->paths->sys, maj, min);
		if (stat(path, &st) == 0 || errno != ENOENT)
			continue;
		forget_devno(j, maj, min);
	}
}

/* What the pass changes beyond each PV's own state: PVs gone, lvm2's hints. */
static void pass_update_state(const struct pass *p)
{
	struct cache_run *j = p->run;
	const struct pf_settings *st = j->st;

	if (p->ps.failed)
		j->status = PF_EXIT_FAILED;
	if (p->all && p->items)
		forget_gone(p);
	/*
	 * Like lvm2 (--listvg alone too): a PV appeared, so the hints lvm2 commands
	 * keep are stale, and so is the list of names searched for devices-file
	 * entries, which lvm2 keeps only for the default devices file.
	 */
	if (p->ps.pv_count &&
	    ((strcmp(st->hints, "none") != 0 && pf_state_touch_newhints(j->paths->run) < 0) ||
	     (!j->o->devicesfile && pf_state_unlink_searched_devnames(j->paths->run) < 0)))
		pf_warn("  WARNING: cannot update hints state in %s.", j->paths->run);
}

/* Activate what the pass found complete; a leader tells udev of our VG once it is complete. */
static void pass_activate(struct pass *p)
{
	struct cache_run *j = p->run;
	bool own_todo = false;

	/* The udev line: our device's VG, completed by whichever device completed it. */
	if (j->o->udevoutput && j->own_vg[0] && found_complete(&p->ps, j->own_vg))
		j->own_complete = true;
	for (size_t i = 0; i < p->n_todo; i++)
		own_todo |= strcmp(p->todo[i].name, j->own_vg) == 0;
	if (p->n_todo)
		claim_and_activate(j, p->todo, p->n_todo, &p->scan, &p->ps, p->all);
	if (j->c && j->o->udevoutput && j->own_complete && !j->udev_line_done && !own_todo)
		say_own_vg(j, true);
}

/*
 * Read the devices (every one when all; args then only say which were named), record them
 * as lvm2 would, print lvm2's lines, activate what is complete. items: the coalesced round's
 * devices (NULL when plain), so a full round can tell named devices from the rest; each one
 * asks for activation or not (its entry's flag), the others as activate says.
 */
static int scan_pass(struct cache_run *j, const struct pf_scan_arg *args, size_t n_args, bool all,
		     bool activate, const struct pf_pending *items, size_t n_items)
{
	struct pass p = { .run = j, .all = all, .activate = activate, .items = items,
			  .n_items = n_items };
	int r = pass_read(&p, args, n_args);

	if (r < 0)
		return r;
	for (size_t i = 0; i < p.scan.n; i++)
		pass_device(&p, &p.scan.devs[i]);
	pass_update_state(&p);
	pass_activate(&p);
	if (p.n_incomplete)
		pf_cmd_degraded_note(j->o, j->paths, j->st, p.incomplete, p.n_incomplete);
	pf_pvcache_release(&p.ps);
	pf_scan_release(&p.scan);
	pf_report_pvs_release(&p.seen);
	free(p.todo);
	free(p.incomplete);
	return 0;
}

/* A full scan rebuilds the state from nothing, as lvm2's does. */
static int clear_state(const struct cache_run *j)
{
	int r = pf_state_clear(j->paths->run);

	if (r == 0 && !j->o->devicesfile)
		r = pf_state_unlink_searched_devnames(j->paths->run);
	if (r < 0)
		pf_err("  Cannot clear %s: %s.", j->paths->run, strerror(-r));
	return r;
}

/* The checks lvm2 makes before reading anything. -1 to go on, else the exit status. */
static int precheck(const struct cache_run *j)
{
	const struct pf_opts *o = j->o;
	const struct pf_settings *st = j->st;
	int r;

	if (o->activate && !st->event_activation) {
		pf_report_skip(o, PF_REPORT_SKIP_ACTIVATE_DISABLED);
		return PF_EXIT_OK;
	}
	if (o->checkcomplete && !st->event_activation) {
		pf_report_skip(o, PF_REPORT_SKIP_CHECKCOMPLETE_DISABLED);
		return PF_EXIT_OK;
	}
	/* lvm2 sets the run dir up for every form that gets this far, --listvg alone included. */
	r = pf_state_init(j->paths->run);
	if (r < 0) {
		pf_err("  Cannot set up %s: %s.", j->paths->run, strerror(-r));
		return PF_EXIT_FAILED;
	}
	if (!j->full_cmd) {
		if (!o->checkcomplete && !st->event_activation) {
			pf_report_skip(o, PF_REPORT_SKIP_CACHE_DISABLED);
			return PF_EXIT_OK;
		}
		if (o->autoactivation && strcmp(o->autoactivation, "event") != 0) {
			pf_report_skip(o, PF_REPORT_SKIP_AUTOACTIVATION_VALUE);
			return PF_EXIT_OK;
		}
	}
	return -1;
}

/* One pass over the command's own arguments, without the leader lock (lvm2's way). */
static int run_plain(struct cache_run *j)
{
	const struct pf_opts *o = j->o;
	bool all = o->n_devs == 0;
	struct pf_records rec;
	int r;

	if (all && o->cache && clear_state(j) < 0)
		return PF_EXIT_FAILED;
	pf_records_open(j->paths->run, false, &rec);
	j->rec = o->test ? NULL : &rec;
	r = scan_pass(j, j->own, j->n_own, all, o->activate, NULL, 0);
	j->rec = NULL;
	pf_records_close(&rec);
	return r < 0 ? PF_EXIT_FAILED : j->status;
}

/* A round's device to read, once, unless a read since its event covers it already. */
static void take_item(const struct pf_pending *it, struct pf_scan_arg *args, size_t *n)
{
	if (it->covered) {
		pf_debug("  %u:%u: read after its event already", it->major, it->minor);
		return;
	}
	if (in_args(args, *n, it->major, it->minor))
		return;
	args[*n].major = it->major;
	args[*n].minor = it->minor;
	(*n)++;
}

/* The leader's round: the devices taken from the queue, or every device. */
static int leader_round(void *ctx, struct pf_coalesce *c _unused_,
			const struct pf_coalesce_round *rd)
{
	struct cache_run *j = ctx;
	_cleanup_free_ struct pf_scan_arg *args = NULL;
	/* devices not queued (a full round's) activate as this call asked; queued, as theirs */
	bool activate = (pf_cmd_pending_flags(j->o) & PF_PENDING_ACTIVATE) != 0;
	size_t n = 0;
	int r;

	/* --recover picks up where a dead leader was, over state it may have half written */
	if (rd->full && j->full_cmd && j->o->cache && !j->o->recover && clear_state(j) < 0)
		return -EIO;
	args = calloc(rd->n ? rd->n : 1, sizeof(*args));
	if (!args)
		return -ENOMEM;
	/*
	 * Our own devices first, in the order named (lvm2 reads and reports them so, and
	 * uses the first named of a duplicated PV); then the others' in devno order.
	 */
	for (size_t k = 0; k < j->n_own; k++)
		for (size_t i = 0; i < rd->n; i++)
			if (rd->items[i].major == j->own[k].major &&
			    rd->items[i].minor == j->own[k].minor)
				take_item(&rd->items[i], args, &n);
	for (size_t i = 0; i < rd->n; i++)
		if (!is_own(j, rd->items[i].major, rd->items[i].minor))
			take_item(&rd->items[i], args, &n);
	if (!rd->full && n == 0)
		return 0;
	pf_story_round(j->rec, n, rd->full);
	r = scan_pass(j, args, n, rd->full, activate, rd->items, rd->n);
	/* the round's entries stay in flight and its VGs journaled: the next leader's work */
	return r == 0 && pf_stop_requested() ? -EINTR : r;
}

/* A VG a dead leader began activating: claim it if nobody did, and activate it. */
static int leader_recover_vg(void *ctx, struct pf_coalesce *c, const char *vg)
{
	struct cache_run *j = ctx;
	struct pf_autoactivate a = { .o = j->o, .paths = j->paths, .st = j->st, .c = c,
				     .rec = j->rec };

	/* Claimed already, or not: either way this VG is ours to finish. */
	if (pf_state_vg_online_claim(j->paths->run, vg) < 0)
		pf_debug("  VG %s was claimed already", vg);
	else
		pf_story_claim(j->rec, vg, true);
	pf_report_autoactivation(j->o, vg, PF_REPORT_AA_RECOVER);
	pf_autoactivate_recover(&a, vg);
	if (a.status != PF_EXIT_OK)
		run_failed(j, false);
	return 0;
}

/* A udev cookie a dead leader left: without device-mapper there is none to release. */
static void leader_release_cookie(void *ctx _unused_, uint32_t cookie)
{
	int r = pf_dm_cookie_release(cookie);

	if (r < 0)
		pf_debug("  udev cookie %u: %s", (unsigned)cookie, strerror(-r));
}

/*
 * Coalesced: lead with the lock the command passed us, or (an admin's full scan) the one we
 * wait for. 1 when this invocation cannot coalesce (no queue: run plain), else the status.
 */
static int run_coalesced(struct cache_run *j)
{
	static const struct pf_coalesce_ops ops = { .round = leader_round,
						    .recover_vg = leader_recover_vg,
						    .release_cookie = leader_release_cookie };
	const char *fdenv = getenv(PF_LEADER_FD_ENV);
	struct pf_coalesce c;
	struct pf_records rec;
	int r;

	if (!j->full_cmd && !fdenv)
		return 1;
	r = pf_coalesce_open(j->paths->run, j->paths->lock, j->paths->sys, &c);
	if (r < 0) {
		pf_warn("  WARNING: cannot use the pvscan-fast queue in %s: %s.", j->paths->run,
			strerror(-r));
		return 1;
	}
	if (fdenv) {
		uint64_t fd;
		bool ok = pf_parse_u64(fdenv, INT_MAX, &fd) == 0;

		(void)unsetenv(PF_LEADER_FD_ENV); /* not for lvm2 commands we run */
		r = ok ? pf_coalesce_adopt_lock(&c, (int)fd) : -EBADF;
	} else {
		r = pf_coalesce_lock(&c, PF_COALESCE_LOCK_TIMEOUT_MS_DEFAULT);
	}
	if (r == -ETIMEDOUT)
		pf_err("  Cannot take the pvscan-fast leader lock %s: not acquired within %u s.",
		       c.lock_path, PF_COALESCE_LOCK_TIMEOUT_MS_DEFAULT / 1000U);
	else if (r < 0)
		pf_err("  Cannot take the pvscan-fast leader lock %s: %s.", c.lock_path,
		       strerror(-r));
	if (r < 0) {
		pf_coalesce_close(&c);
		return PF_EXIT_FAILED;
	}
	j->c = &c;
	/* the lock is ours: this log is ours to rotate */
	pf_records_open(j->paths->run, true, &rec);
	(void)pf_journal_setup(&rec);
	j->rec = j->o->test ? NULL : &rec;
	r = pf_coalesce_lead(&c, j->full_cmd && !j->o->recover, &ops, j);
	j->c = NULL;
	j->rec = NULL;
	pf_records_close(&rec);
	if (j->o->udevoutput && !j->udev_line_done && j->own_vg[0] && !j->own_complete)
		say_own_vg(j, false);
	/*
	 * The VG we told udev to activate stays journaled until the line has left us: killed
	 * before, we print nothing udev imports, and the next leader activates it instead.
	 */
	if (j->own_journaled && fflush(stdout) == 0)
		pf_coalesce_activation_end(&c, j->own_vg);
	pf_coalesce_close(&c);
	if (r == -EINTR && pf_stop_requested()) {
		pf_err("  pvscan-fast leader stopped by signal %d: what it had not done is left "
		       "in %s/%s for the next run.", pf_stop_signal(), j->paths->run, PF_COALESCE_DIR);
		return PF_EXIT_FAILED;
	}
	if (r < 0) {
		pf_err("  pvscan-fast leader: %s.", strerror(-r));
		return PF_EXIT_FAILED;
	}
	return j->status;
}

static int run(const struct pf_opts *o, const struct pf_paths *paths, const struct pf_settings *st)
{
	_cleanup_free_ struct pf_scan_arg *own = NULL;
	struct cache_run j = { .o = o, .paths = paths, .st = st, .full_cmd = o->n_devs == 0 };
	int r;

	r = precheck(&j);
	if (r >= 0)
		return r;
	own = calloc(o->n_devs ? o->n_devs : 1, sizeof(*own));
	if (!own)
		return PF_EXIT_FAILED;
	for (size_t i = 0; i < o->n_devs; i++) {
		const struct pf_devarg *a = &o->devs[i];

		if (!a->path && !a->has_devno)
			continue; /* an argument that did not parse; warned about already */
		own[j.n_own].path = a->path;
		own[j.n_own].major = a->major;
		own[j.n_own].minor = a->minor;
		j.n_own++;
	}
	j.own = own;
	if (pf_cmd_coalesces(o) || (j.full_cmd && o->cache && !o->no_coalesce)) {
		/* For matching found devices to ours, paths become devnos. */
		for (size_t i = 0; i < j.n_own; i++)
			if (own[i].path)
				(void)path_devno(own[i].path, &own[i].major, &own[i].minor);
		r = run_coalesced(&j);
		free(j.again);
		if (r != 1)
			return r;
	}
	return run_plain(&j);
}

int pf_cmd_setup(const struct pf_opts *o, struct pf_paths *paths, struct pf_settings *st)
{
	struct pf_diag diag = { 0 };
	int r;

	*paths = (struct pf_paths){ 0 };
	r = pf_paths_from_env(paths);
	if (r < 0) {
		pf_err("  Out of memory.");
		return PF_EXIT_FAILED;
	}
	r = pf_settings_load(paths->etc, o->config, o->n_config, st, &diag);
	if (r < 0) {
		if (diag.line)
			pf_err("  %s (line %u, column %u)", diag.msg, diag.line, diag.col);
		else
			pf_err("  Failed to load config: %s", diag.msg[0] ? diag.msg : strerror(-r));
		pf_paths_release(paths);
		return PF_EXIT_INIT;
	}
	for (size_t i = 0; i < st->n_warnings; i++)
		pf_warn("  WARNING: %s", st->warnings[i].msg);
	return -1;
}

int pf_cmd_cache(const struct pf_opts *o)
{
	struct pf_paths paths;
	struct pf_settings st;
	int status = pf_cmd_setup(o, &paths, &st);

	if (status >= 0)
		return status;
	if (o->degraded_check)
		status = pf_cmd_degraded_check(o, &paths, &st);
	else
		status = run(o, &paths, &st);
	pf_settings_release(&st);
	pf_paths_release(&paths);
	if (fflush(stdout) != 0)
		status = PF_EXIT_FAILED;
	return status;
}
