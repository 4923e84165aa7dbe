/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --cache, --listvg, --listlvs: run the scan and the online phase, print lvm2's lines. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "activation.h"
#include "cmd.h"
#include "state/coalesce.h"
#include "base/log.h"
#include "base/paths.h"
#include "scan/pvcache.h"
#include "scan/scan.h"
#include "config/settings.h"
#include "state/state.h"

extern char **environ;

#define out pf_cmd_out

void pf_cmd_out(const struct pf_opts *o, const char *fmt, ...)
{
	va_list ap;

	if (o->udevoutput)
		return;
	(void)fputs("  ", stdout);
	va_start(ap, fmt);
	(void)vfprintf(stdout, fmt, ap);
	va_end(ap);
	(void)fputc('\n', stdout);
}

#define PVSCAN "pvscan[%d] "

static void print_event(const struct pf_opts *o, const struct pf_event *e)
{
	int pid = (int)getpid();
	const char *state = e->lv_state == PF_LV_STATE_COMPLETE	  ? " complete"
			    : e->lv_state == PF_LV_STATE_INCOMPLETE ? " incomplete"
								    : "";

	switch (e->kind) {
	case PF_EV_NO_LVM_INFO:
		out(o, PVSCAN "ignore %s with no lvm info.", pid, e->dev);
		break;
	case PF_EV_NOT_USED:
		out(o, PVSCAN "PV %s not used.", pid, e->dev);
		break;
	case PF_EV_NO_METADATA:
		out(o, PVSCAN "PV %s has no VG metadata.", pid, e->dev);
		break;
	case PF_EV_NOT_IN_VG:
		out(o, PVSCAN "PV %s not found in VG %s.", pid, e->dev, e->vg);
		break;
	case PF_EV_MD_COMPONENT:
		out(o, PVSCAN "ignore md component %s.", pid, e->dev);
		break;
	case PF_EV_SHARED:
		out(o, PVSCAN "PV %s ignore shared VG.", pid, e->dev);
		break;
	case PF_EV_FOREIGN:
		out(o, PVSCAN "PV %s ignore foreign VG.", pid, e->dev);
		break;
	case PF_EV_EXPORTED:
		out(o, PVSCAN "PV %s ignore exported VG.", pid, e->dev);
		break;
	case PF_EV_DUPLICATE:
		pf_err("  " PVSCAN "PV %s %u:%u is duplicate for PVID %s on %u:%u %s.", pid, e->dev,
		       e->major, e->minor, e->pvid, e->other_major, e->other_minor, e->other_dev);
		break;
	case PF_EV_ONLINE_FAILED:
		pf_err("  " PVSCAN "PV %s failed to create online file.", pid, e->dev);
		break;
	case PF_EV_ONLINE:
		out(o, PVSCAN "PV %s online.", pid, e->dev);
		break;
	case PF_EV_COMPLETE_AFTER_RECHECK:
		out(o, PVSCAN "VG %s complete after recheck.", pid, e->vg);
		break;
	case PF_EV_VG_UNKNOWN:
		out(o, PVSCAN "PV %s online, VG unknown.", pid, e->dev);
		break;
	case PF_EV_VG_INCOMPLETE:
		out(o, PVSCAN "PV %s online, VG %s incomplete (need %u).", pid, e->dev, e->vg,
		    e->need);
		break;
	case PF_EV_VG_COMPLETE:
		out(o, PVSCAN "PV %s online, VG %s is complete.", pid, e->dev, e->vg);
		break;
	case PF_EV_LIST_VG_UNKNOWN:
		out(o, "VG unknown");
		break;
	case PF_EV_LIST_VG:
		out(o, "VG %s", e->vg);
		break;
	case PF_EV_LIST_VG_FINISHED:
		out(o, "VG %s finished", e->vg);
		break;
	case PF_EV_LIST_VG_COMPLETE:
		/* The only bytes udev's IMPORT{program} may see. */
		if (o->udevoutput)
			(void)printf("LVM_VG_NAME_COMPLETE='%s'\n", e->vg);
		else
			out(o, "VG %s complete", e->vg);
		break;
	case PF_EV_LIST_VG_INCOMPLETE:
		if (o->udevoutput)
			(void)printf("LVM_VG_NAME_INCOMPLETE='%s'\n", e->vg);
		else
			out(o, "VG %s incomplete", e->vg);
		break;
	case PF_EV_LIST_LVS_NO_METADATA:
		out(o, PVSCAN "Cannot list LVs from device without metadata.", pid);
		break;
	case PF_EV_LIST_LVS_NOT_FOUND:
		out(o, PVSCAN "Failed to find LVs using %s.", pid, e->dev);
		break;
	case PF_EV_LIST_LV:
		out(o, "LV %s/%s%s", e->vg, e->lv, state);
		break;
	}
}

/* Messages for devices the scan left out, as lvm2's per-device form prints them. */
static void print_scan_dev(const struct pf_opts *o, const struct pf_scan_dev *d, bool all)
{
	int pid = (int)getpid();

	switch (d->outcome) {
	case PF_SCAN_NO_DEVICE:
		if (d->arg && d->arg->path) {
			pf_err("  Cannot access device %s for 0:0.", d->arg->path);
			pf_err("  " PVSCAN "No device set up for arg %s 0:0", pid, d->arg->path);
		} else if (d->arg) {
			pf_err("  No device name found from %u:%u.", d->arg->major, d->arg->minor);
			pf_err("  " PVSCAN "No device set up for arg  %u:%u", pid, d->arg->major,
			       d->arg->minor);
		}
		break;
	case PF_SCAN_EXCLUDED:
		if (!all && d->pvid_check)
			out(o, PVSCAN "%s excluded by devices file (checking PVID).", pid, d->name);
		else if (!all)
			out(o, PVSCAN "%s excluded: %s.", pid, d->name, d->reason);
		else
			pf_info("  %s excluded: %s.", d->name, d->reason);
		break;
	case PF_SCAN_NOT_LVM:
		if (!all)
			out(o, PVSCAN "%s not an lvm device.", pid, d->name);
		break;
	case PF_SCAN_FAILED:
		/* lvm2 only says it cannot read; say why, so the admin can act. */
		if (!all)
			out(o, PVSCAN "%s cannot read label.", pid, d->name);
		pf_warn("  WARNING: %s: %s", d->name, d->diag.msg[0] ? d->diag.msg
							    : strerror(-d->status));
		break;
	case PF_SCAN_DUPLICATE:
		/* lvm2 keeps the first named; a full scan warns (print_duplicates) instead */
		if (!all)
			out(o, PVSCAN "ignore %s with no lvm info.", pid, d->name);
		break;
	case PF_SCAN_READ:
		break;
	}
}

/* lvm2's warnings once its label scan chose among devices with the same PVID. */
static void print_duplicates(const struct pf_scan *scan)
{
	for (size_t i = 0; i < scan->n; i++)
		if (scan->devs[i].outcome == PF_SCAN_DUPLICATE)
			pf_warn("  WARNING: Not using device %s for PV %s.", scan->devs[i].name,
				scan->devs[i].reason);
	for (size_t i = 0; i < scan->n; i++) {
		const struct pf_scan_dev *d = &scan->devs[i], *used;

		if (d->outcome != PF_SCAN_DUPLICATE)
			continue;
		used = &scan->devs[d->dup_of];
		pf_warn("  WARNING: PV %s prefers device %s because %s.", d->reason, used->name,
			used->prefer_reason ? used->prefer_reason : "device was seen first");
	}
}

/*
 * -v: what a device's probe found wrong. lvm2 mostly keeps this to itself (a
 * damaged label, text or size is silently not used, or used as it is), so the
 * admin can act on it.
 */
static void print_probe(const struct pf_scan_dev *d)
{
	const struct pf_probe *p = &d->probe;

	if (p->label_status < 0) {
		pf_info("  %s: %s", d->name, p->label_diag.msg);
		return;
	}
	if (p->size_status < 0)
		pf_info("  %s: %s", d->name, p->size_diag.msg);
	for (unsigned i = 0; i < p->n_mdas; i++) {
		const struct pf_mda_probe *m = &p->mdas[i];

		if (m->header_status < 0)
			pf_info("  %s: %s", d->name, m->header_diag.msg);
		else if (m->text_status < 0 && m->text_status != -ENODATA)
			pf_info("  %s: %s", d->name, m->text_diag.msg);
		else if (m->vg_status < 0)
			pf_info("  %s: %s", d->name, m->vg_diag.msg);
	}
}

static bool any_device(const struct pf_scan *scan)
{
	for (size_t i = 0; i < scan->n; i++)
		if (scan->devs[i].outcome != PF_SCAN_NO_DEVICE)
			return true;
	return false;
}

/* lvm2 says so, once, as soon as a device meets the filters it no longer applies. */
static void warn_ignored_filters(const struct pf_settings *st)
{
	if (st->global_filter.set)
		pf_warn("  Please remove the lvm.conf global_filter, it is ignored with the devices "
			"file.");
	if (st->filter.set)
		pf_warn("  Please remove the lvm.conf filter, it is ignored with the devices file.");
}

/* A PV the scan found a label on (lvm2: what lvmcache knows) and the device it is on. */
struct seen_pv {
	const char *pvid;
	const char *dev;
	int unused; /* 1 for a duplicate lvm2 does not use */
};

static int cmp_seen(const void *a, const void *b)
{
	const struct seen_pv *x = a, *y = b;
	int c = strcmp(x->pvid, y->pvid);

	return c ? c : x->unused - y->unused;
}

/*
 * What the scan found, sorted by PVID; of a duplicated PV, the device used comes first. A full
 * scan (flags: its pvscan flags) leaves out the md members lvm2 drops before pvscan sees them.
 */
static int scanned_pvids(const struct pf_scan *scan, unsigned flags, struct seen_pv **ret,
			 size_t *ret_n)
{
	struct seen_pv *v = calloc(scan->n ? scan->n : 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < scan->n; i++) {
		const struct pf_scan_dev *d = &scan->devs[i];

		if ((d->outcome == PF_SCAN_READ || d->outcome == PF_SCAN_DUPLICATE) &&
		    d->probe.label_status == 0 && !pf_pvcache_md_dropped(flags, &d->probe))
			v[n++] = (struct seen_pv){ d->probe.label.pvid, d->name,
						   d->outcome == PF_SCAN_DUPLICATE };
	}
	qsort(v, n, sizeof(*v), cmp_seen);
	*ret = v;
	*ret_n = n;
	return 0;
}

static const struct seen_pv *find_seen(const struct seen_pv *v, size_t n, const char *pvid)
{
	size_t lo = 0, hi = n;

	/* the first entry with this PVID: the device lvm2 uses */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(v[mid].pvid, pvid) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < n && strcmp(v[lo].pvid, pvid) == 0 ? &v[lo] : NULL;
}

/*
 * What lvm2 says as it matches the PVs of a VG read from a device to the devices it scanned
 * (set_pv_devices): its full scan, unlike the per-device form, does not expect PVs to be
 * missing and warns about each, unless the VG is foreign to a host with an ID; any form
 * warns about a PV flagged MISSING whose device it scanned.
 */
static void warn_vg_devices(const struct pf_scan_dev *d, const struct seen_pv *seen, size_t n,
			    const char *host_system_id, bool full)
{
	const struct pf_vg *vg = pf_probe_vg(&d->probe);
	char id[PF_ID_DASHED_LEN + 1];
	bool foreign;

	if (!vg || d->probe.label_status != 0 || pf_pv_label_is_unused(&d->probe.label))
		return;
	foreign = host_system_id && strcmp(vg->system_id ? vg->system_id : "", host_system_id) != 0;
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		const struct seen_pv *s = find_seen(seen, n, vg->pvs[i].id);

		if (!s && full && !foreign) {
			pf_id_format_dashed(vg->pvs[i].id, id);
			pf_warn("  WARNING: Couldn't find device with uuid %s.", id);
		}
		if (s && (vg->pvs[i].status & PF_PV_MISSING))
			pf_warn("  WARNING: VG %s was previously updated while PV %s was missing.",
				vg->name, s->dev);
	}
}

/* One invocation's work: plain (one pass over the arguments) or as the coalescing leader. */
struct job {
	const struct pf_opts *o;
	const struct pf_paths *paths;
	const struct pf_settings *st;
	struct pf_coalesce *c; /* NULL when not coalescing */
	bool full_cmd;	       /* the command names no device: every device, state rebuilt */
	/* --udevoutput: our own devices, and the VG line udev imports (printed once) */
	struct pf_scan_arg *own;
	size_t n_own;
	char own_vg[PF_NAME_MAX + 1];
	bool own_complete, udev_line_done; /* own_vg was found complete (by any device) */
	bool own_journaled; /* own_vg's activation is the udev rule's once our stdout is out */
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

static bool is_own(const struct job *j, unsigned major, unsigned minor)
{
	for (size_t i = 0; i < j->n_own; i++)
		if (j->own[i].major == major && j->own[i].minor == minor)
			return true;
	return false;
}

static bool in_args(const struct pf_scan_arg *args, size_t n, unsigned major, unsigned minor)
{
	for (size_t i = 0; i < n; i++)
		if (args[i].major == major && args[i].minor == minor)
			return true;
	return false;
}

static bool in_items(const struct pf_pending *items, size_t n, unsigned major, unsigned minor)
{
	for (size_t i = 0; i < n; i++)
		if (items[i].major == major && items[i].minor == minor)
			return true;
	return false;
}

/*
 * Claim every complete VG and say so first, then activate the ones claimed, as lvm2 does.
 * Coalescing, each claim is journaled first, so a leader killed between claiming and
 * activating leaves the VG to the next leader instead of down for good. With
 * --udevoutput, our own device's VG is left to the udev rule that imports the line.
 */
static void autoactivate(struct job *j, char (*complete)[PF_NAME_MAX + 1], size_t n_complete,
			 const struct pf_scan *scan, const struct pf_pvcache *ps, bool all)
{
	const struct pf_opts *o = j->o;
	_cleanup_free_ char(*todo)[PF_NAME_MAX + 1] = NULL;
	_cleanup_free_ const char **dups = NULL;
	/* lvm2's quick path is for one named device only (saved_vg in its pvscan.c) */
	struct pf_activation a = { .o = o, .paths = j->paths, .st = j->st, .c = j->c,
				   .process_each = j->full_cmd || o->n_devs > 1 };
	int pid = (int)getpid();
	size_t n = 0;

	todo = calloc(n_complete ? n_complete : 1, sizeof(*todo));
	/* PVs on two devices, from the scan or the online files: lvm2 activates none of their VG */
	dups = calloc(scan->n + ps->n_events + 1, sizeof(*dups));
	if (!todo || !dups) {
		j->status = PF_EXIT_FAILED;
		return;
	}
	for (size_t i = 0; i < scan->n; i++)
		if (scan->devs[i].outcome == PF_SCAN_DUPLICATE && scan->devs[i].probe.label_status == 0)
			dups[a.n_dup_pvids++] = scan->devs[i].probe.label.pvid;
	for (size_t i = 0; i < ps->n_events; i++)
		if (ps->events[i].kind == PF_EV_DUPLICATE)
			dups[a.n_dup_pvids++] = ps->events[i].pvid;
	a.dup_pvids = dups;
	for (size_t i = 0; i < n_complete; i++) {
		const char *vg = complete[i];
		int r;

		if (j->c && (r = pf_coalesce_activation_begin(j->c, vg)) < 0)
			pf_warn("  WARNING: cannot journal activation of VG %s: %s.", vg,
				strerror(-r));
		if (pf_state_vg_online_claim(j->paths->run, vg) == -EEXIST) {
			out(o, PVSCAN "VG %s skip autoactivation.", pid, vg);
			if (j->c)
				pf_coalesce_activation_end(j->c, vg);
			continue;
		}
		if (o->udevoutput && !j->udev_line_done && strcmp(vg, j->own_vg) == 0) {
			/* The journal entry stays until udev has the line: see run_coalesced(). */
			(void)printf("LVM_VG_NAME_COMPLETE='%s'\n", vg);
			j->udev_line_done = true;
			j->own_journaled = j->c && pf_coalesce_activation_hold(j->c, vg) == 0;
			continue;
		}
		out(o, PVSCAN "VG %s run autoactivation.", pid, vg);
		memcpy(todo[n++], vg, sizeof(todo[0]));
	}
	/* lvm2's several-VG path scans labels again, and warns about duplicates there */
	if (n && a.process_each && !all)
		print_duplicates(scan);
	pf_activation_run(&a, todo, n, scan);
	if (a.status != PF_EXIT_OK)
		j->status = a.status;
}

static unsigned pvscan_flags(const struct job *j, bool activate)
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

/* What an event says about our own device's VG, for the --udevoutput line. */
static void note_own_vg(struct job *j, const struct pf_scan_dev *d, const struct pf_event *e)
{
	if (!j->o->udevoutput || j->udev_line_done || j->own_vg[0] ||
	    !is_own(j, d->dev.major, d->dev.minor))
		return;
	if (e->kind != PF_EV_VG_COMPLETE && e->kind != PF_EV_VG_INCOMPLETE)
		return;
	(void)snprintf(j->own_vg, sizeof(j->own_vg), "%s", e->vg);
}

static bool found_complete(const struct pf_pvcache *ps, const char *vg)
{
	for (size_t i = 0; i < ps->n_complete; i++)
		if (strcmp(ps->complete_vgs[i], vg) == 0)
			return true;
	return false;
}

/* Whether this device's events asked for activation: its queue entries say, else the call. */
static bool wants_activation(const struct pf_scan_dev *d, const struct pf_pending *items,
			     size_t n_items, bool activate_default)
{
	for (size_t i = 0; items && i < n_items; i++)
		if (items[i].major == d->dev.major && items[i].minor == d->dev.minor)
			return (items[i].flags & PF_PENDING_ACTIVATE) != 0;
	return activate_default;
}

/* Collect a VG found complete by a device that asked for activation, once. */
static int add_todo(char (**todo)[PF_NAME_MAX + 1], size_t *n, const char *vg)
{
	char(*t)[PF_NAME_MAX + 1];

	for (size_t i = 0; i < *n; i++)
		if (strcmp((*todo)[i], vg) == 0)
			return 0;
	t = realloc(*todo, (*n + 1) * sizeof(**todo));
	if (!t)
		return -ENOMEM;
	(void)snprintf(t[*n], sizeof(t[0]), "%s", vg);
	*todo = t;
	(*n)++;
	return 0;
}

/*
 * A full round's named devno that the walk did not find and sysfs does not know is gone:
 * forget its PV, as the per-device form does for a removal event.
 */
static void forget_gone(struct job *j, const struct pf_scan *scan, const struct pf_pending *items,
			size_t n_items)
{
	char path[PATH_MAX];
	struct stat st;
	int r;

	for (size_t i = 0; i < n_items; i++) {
		unsigned maj = items[i].major, min = items[i].minor;
		bool found = false;

		for (size_t k = 0; k < scan->n && !found; k++)
			found = scan->devs[k].dev.major == maj && scan->devs[k].dev.minor == min;
		if (found)
			continue;
		(void)snprintf(path, sizeof(path), "%s/dev/block/%u:%u", j->paths->sys, maj, min);
		if (stat(path, &st) == 0 || errno != ENOENT)
			continue;
		r = pf_state_remove_devno(j->paths->run, maj, min);
		if (r < 0)
			pf_err("  Cannot update %s: %s.", j->paths->run, strerror(-r));
		pf_coalesce_note_gone(j->c, maj, min);
	}
}

/*
 * Read the devices (every one when all; args then only say which were named), record them
 * as lvm2 would, print lvm2's lines, activate what is complete. items: the coalesced round's
 * devices (NULL when plain), so a full round can tell named devices from the rest; each one
 * asks for activation or not (its entry's flag), the others as activate says.
 */
static int scan_pass(struct job *j, const struct pf_scan_arg *args, size_t n_args, bool all,
		     bool activate, const struct pf_pending *items, size_t n_items)
{
	_cleanup_free_ char(*todo)[PF_NAME_MAX + 1] = NULL;
	size_t n_todo = 0;
	bool own_todo = false;
	const struct pf_opts *o = j->o;
	const struct pf_paths *paths = j->paths;
	const struct pf_settings *st = j->st;
	struct pf_scan_opts so = { .paths = paths, .settings = st };
	struct pf_scan scan = { 0 };
	_cleanup_free_ struct seen_pv *seen = NULL;
	size_t n_seen = 0;
	struct pf_pvcache ps;
	unsigned base;
	int pid = (int)getpid();
	int r;

	so.args = all ? NULL : args;
	so.n_args = all ? 0 : n_args;
	so.timeout_ms = o->timeout_s * 1000U;
	so.devicesfile = o->devicesfile;
	r = pf_scan_run(&so, &scan);
	if (r < 0) {
		pf_err("  Scan failed: %s.", strerror(-r));
		return r;
	}
	pf_debug("  scan: %zu devices, %zu read, %u reads", scan.n, scan.n_read, scan.reads);

	if (scan.named_symlinks)
		out(o, PVSCAN "finding all devices for filter symlinks.", pid);
	if (scan.devfile_used && any_device(&scan))
		warn_ignored_filters(st);
	base = pvscan_flags(j, false);
	if (scanned_pvids(&scan, base, &seen, &n_seen) < 0) {
		pf_scan_release(&scan);
		return -ENOMEM;
	}
	if (all)
		print_duplicates(&scan);
	pf_pvcache_init(&ps, paths->run, base, st->system_id);
	for (size_t i = 0; i < scan.n; i++) {
		struct pf_scan_dev *d = &scan.devs[i];
		bool named = !all || (items && in_items(items, n_items, d->dev.major, d->dev.minor));
		bool act = wants_activation(d, items, n_items, activate);
		size_t first = ps.n_events;

		/* A devno that no longer exists is a removal event: forget its PV. */
		if (d->outcome == PF_SCAN_NO_DEVICE && d->arg && !d->arg->path && o->cache) {
			r = pf_state_remove_devno(paths->run, d->arg->major, d->arg->minor);
			if (r < 0)
				pf_err("  Cannot update %s: %s.", paths->run, strerror(-r));
			if (j->c)
				pf_coalesce_note_gone(j->c, d->arg->major, d->arg->minor);
		}
		if (j->c && (d->outcome == PF_SCAN_READ || d->outcome == PF_SCAN_NOT_LVM ||
			     d->outcome == PF_SCAN_DUPLICATE) &&
		    pf_coalesce_note_read(j->c, d->dev.major, d->dev.minor,
					  act ? PF_PENDING_ACTIVATE : 0) < 0)
			pf_warn("  WARNING: cannot note %s as read.", d->name);
		print_scan_dev(o, d, !named);
		if (d->outcome == PF_SCAN_READ || d->outcome == PF_SCAN_NOT_LVM)
			print_probe(d);
		if (d->outcome != PF_SCAN_READ)
			continue;
		ps.flags = base | (act ? PF_PVCACHE_ACTIVATE : 0) | (named ? 0 : PF_PVCACHE_ALL);
		/* an md member lvm2's full scan dropped: it never reads the VG there */
		if (!pf_pvcache_md_dropped(ps.flags, &d->probe))
			warn_vg_devices(d, seen, n_seen, st->system_id, j->full_cmd && all);
		r = pf_pvcache_device(&ps, d->name, d->dev.major, d->dev.minor, &d->probe);
		for (size_t e = first; e < ps.n_events; e++) {
			const struct pf_event *ev = &ps.events[e];

			note_own_vg(j, d, ev);
			print_event(o, ev);
			if (act && ev->kind == PF_EV_VG_COMPLETE && r >= 0)
				r = add_todo(&todo, &n_todo, ev->vg);
		}
		if (r < 0) {
			pf_err("  " PVSCAN "%s: %s.", pid, d->name, strerror(-r));
			j->status = PF_EXIT_FAILED;
		}
	}
	if (ps.failed)
		j->status = PF_EXIT_FAILED;
	if (all && items)
		forget_gone(j, &scan, items, n_items);

	/*
	 * Like lvm2 (--listvg alone too): a PV appeared, so the hints lvm2 commands
	 * keep are stale, and so is the list of names searched for devices-file
	 * entries, which lvm2 keeps only for the default devices file.
	 */
	if (ps.pv_count &&
	    ((strcmp(st->hints, "none") != 0 && pf_state_touch_newhints(paths->run) < 0) ||
	     (!o->devicesfile && pf_state_unlink_searched_devnames(paths->run) < 0)))
		pf_warn("  WARNING: cannot update hints state in %s.", paths->run);
	/* The udev line: our device's VG, completed by whichever device completed it. */
	if (o->udevoutput && j->own_vg[0] && found_complete(&ps, j->own_vg))
		j->own_complete = true;
	for (size_t i = 0; i < n_todo; i++)
		own_todo |= strcmp(todo[i], j->own_vg) == 0;
	if (n_todo)
		autoactivate(j, todo, n_todo, &scan, &ps, all);
	if (j->c && o->udevoutput && j->own_complete && !j->udev_line_done && !own_todo) {
		(void)printf("LVM_VG_NAME_COMPLETE='%s'\n", j->own_vg);
		j->udev_line_done = true;
	}

	pf_pvcache_release(&ps);
	pf_scan_release(&scan);
	return 0;
}

/* A full scan rebuilds the state from nothing, as lvm2's does. */
static int clear_state(const struct job *j)
{
	int r = pf_state_clear(j->paths->run);

	if (r == 0 && !j->o->devicesfile)
		r = pf_state_unlink_searched_devnames(j->paths->run);
	if (r < 0)
		pf_err("  Cannot clear %s: %s.", j->paths->run, strerror(-r));
	return r;
}

/* The checks lvm2 makes before reading anything. -1 to go on, else the exit status. */
static int precheck(const struct job *j)
{
	const struct pf_opts *o = j->o;
	const struct pf_settings *st = j->st;
	int pid = (int)getpid();
	int r;

	if (o->activate && !st->event_activation) {
		pf_info("  Ignoring pvscan --cache -aay because event_activation is disabled.");
		return PF_EXIT_OK;
	}
	if (o->checkcomplete && !st->event_activation) {
		if (o->udevoutput)
			(void)printf("LVM_EVENT_ACTIVATION=0\n");
		else
			out(o, PVSCAN "Ignoring pvscan with --checkcomplete because "
				      "event_activation is disabled.", pid);
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
			pf_info("  Ignoring pvscan --cache because event_activation is disabled.");
			return PF_EXIT_OK;
		}
		if (o->autoactivation && strcmp(o->autoactivation, "event") != 0) {
			out(o, PVSCAN "Skip pvscan for unknown autoactivation value.", pid);
			return PF_EXIT_OK;
		}
	}
	return -1;
}

/* One pass over the command's own arguments, without the leader lock (lvm2's way). */
static int run_plain(struct job *j)
{
	const struct pf_opts *o = j->o;
	bool all = o->n_devs == 0;

	if (all && o->cache && clear_state(j) < 0)
		return PF_EXIT_FAILED;
	if (scan_pass(j, j->own, j->n_own, all, o->activate, NULL, 0) < 0)
		return PF_EXIT_FAILED;
	return j->status;
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
static int leader_round(void *ctx, struct pf_coalesce *c _unused_, const struct pf_coalesce_round *rd)
{
	struct job *j = ctx;
	_cleanup_free_ struct pf_scan_arg *args = NULL;
	/* devices not queued (a full round's) activate as this call asked; queued, as theirs */
	bool activate = (pf_cmd_pending_flags(j->o) & PF_PENDING_ACTIVATE) != 0;
	size_t n = 0;

	if (rd->full && j->full_cmd && j->o->cache && clear_state(j) < 0)
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
	return scan_pass(j, args, n, rd->full, activate, rd->items, rd->n);
}

/* A VG a dead leader began activating: claim it if nobody did, and activate it. */
static int leader_recover_vg(void *ctx, struct pf_coalesce *c, const char *vg)
{
	struct job *j = ctx;
	struct pf_activation a = { .o = j->o, .paths = j->paths, .st = j->st, .c = c };

	/* Claimed already, or not: either way this VG is ours to finish. */
	if (pf_state_vg_online_claim(j->paths->run, vg) < 0)
		pf_debug("  VG %s was claimed already", vg);
	out(j->o, PVSCAN "VG %s run autoactivation (left unfinished by a leader that died).",
	    (int)getpid(), vg);
	pf_activation_recover(&a, vg);
	if (a.status != PF_EXIT_OK)
		j->status = a.status;
	return 0;
}

/*
 * Coalesced: lead with the lock the command passed us, or (an admin's full scan) the one we
 * wait for. 1 when this invocation cannot coalesce (no queue: run plain), else the status.
 */
static int run_coalesced(struct job *j)
{
	static const struct pf_coalesce_ops ops = { .round = leader_round,
						    .recover_vg = leader_recover_vg };
	const char *fdenv = getenv(PF_LEADER_FD_ENV);
	struct pf_coalesce c;
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
		char *end;
		long fd = strtol(fdenv, &end, 10);

		(void)unsetenv(PF_LEADER_FD_ENV); /* not for lvm2 commands we run */
		r = *end || fd < 0 || fd > INT_MAX ? -EBADF : pf_coalesce_adopt_lock(&c, (int)fd);
	} else {
		r = pf_coalesce_lock(&c);
	}
	if (r < 0) {
		pf_err("  Cannot take the pvscan-fast leader lock %s: %s.", c.lock_path,
		       strerror(-r));
		pf_coalesce_close(&c);
		return PF_EXIT_FAILED;
	}
	j->c = &c;
	r = pf_coalesce_lead(&c, j->full_cmd, &ops, j);
	j->c = NULL;
	if (j->o->udevoutput && !j->udev_line_done && j->own_vg[0] && !j->own_complete)
		(void)printf("LVM_VG_NAME_INCOMPLETE='%s'\n", j->own_vg);
	/*
	 * The VG we told udev to activate stays journaled until the line has left us: killed
	 * before, we print nothing udev imports, and the next leader activates it instead.
	 */
	if (j->own_journaled && fflush(stdout) == 0)
		pf_coalesce_activation_end(&c, j->own_vg);
	pf_coalesce_close(&c);
	if (r < 0) {
		pf_err("  pvscan-fast leader: %s.", strerror(-r));
		return PF_EXIT_FAILED;
	}
	return j->status;
}

static int run(const struct pf_opts *o, const struct pf_paths *paths, const struct pf_settings *st)
{
	_cleanup_free_ struct pf_scan_arg *own = NULL;
	struct job j = { .o = o, .paths = paths, .st = st, .full_cmd = o->n_devs == 0 };
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
		if (r != 1)
			return r;
	}
	return run_plain(&j);
}

int pf_cmd_cache(const struct pf_opts *o)
{
	struct pf_paths paths = { 0 };
	struct pf_settings st;
	struct pf_diag diag = { 0 };
	int r, status;

	r = pf_paths_from_env(&paths);
	if (r < 0) {
		pf_err("  Out of memory.");
		return PF_EXIT_FAILED;
	}
	r = pf_settings_load(paths.etc, o->config, o->n_config, &st, &diag);
	if (r < 0) {
		if (diag.line)
			pf_err("  %s (line %u, column %u)", diag.msg, diag.line, diag.col);
		else
			pf_err("  Failed to load config: %s", diag.msg[0] ? diag.msg : strerror(-r));
		pf_paths_release(&paths);
		return PF_EXIT_INIT;
	}
	for (size_t i = 0; i < st.n_warnings; i++)
		pf_warn("  WARNING: %s", st.warnings[i].msg);
	status = run(o, &paths, &st);
	pf_settings_release(&st);
	pf_paths_release(&paths);
	if (fflush(stdout) != 0)
		status = PF_EXIT_FAILED;
	return status;
}
