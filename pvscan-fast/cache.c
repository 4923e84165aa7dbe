/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --cache, --listvg, --listlvs: run the scan and the online phase, print lvm2's lines. */
#include "config.h"

#include <errno.h>
#include <spawn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "log.h"
#include "paths.h"
#include "pvscan.h"
#include "scan.h"
#include "settings.h"
#include "state.h"

extern char **environ;

/* lvm2's log_print: stdout, two leading spaces; silenced entirely by --udevoutput. */
static void out(const struct pf_opts *o, const char *fmt, ...) _printf_(2, 3);
static void out(const struct pf_opts *o, const char *fmt, ...)
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
		pf_warn("  WARNING: Not using device %s for PV %s.", d->name, d->reason);
		break;
	case PF_SCAN_READ:
		break;
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

/*
 * Until native activation lands, complete VGs are activated by lvm2 itself, as
 * its udev rule does. PVSCAN_FAST_LVM names another lvm binary (or wrapper).
 * --config and --devicesfile go along: lvm2's pvscan activates under them.
 */
static int activate_vg(const struct pf_opts *o, const char *vgname)
{
	const char *lvm = getenv("PVSCAN_FAST_LVM");
	static const char *const head[] = { "vgchange", "-aay", "--autoactivation", "event" };
	_cleanup_free_ char **argv = NULL;
	size_t n = 0;
	pid_t pid;
	int st, r;

	/* o->n_config is capped by main.c's CONFIG_ARGS_MAX */
	argv = calloc(1 + ARRAY_SIZE(head) + 2 * o->n_config + 2 + 2, sizeof(*argv));
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
	argv[n++] = (char *)vgname;
	(void)fflush(stdout);
	r = posix_spawn(&pid, lvm, NULL, NULL, argv, environ);
	if (r != 0)
		return -r;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

/* Like lvm2: claim every complete VG and say so first, then activate the ones claimed. */
static int autoactivate(const struct pf_opts *o, const struct pf_paths *paths,
			const struct pf_pvscan *ps)
{
	_cleanup_free_ bool *claimed = NULL;
	int pid = (int)getpid(), status = PF_EXIT_OK;

	claimed = calloc(ps->n_complete ? ps->n_complete : 1, sizeof(*claimed));
	if (!claimed)
		return PF_EXIT_FAILED;
	for (size_t i = 0; i < ps->n_complete; i++) {
		const char *vg = ps->complete_vgs[i];

		if (pf_state_vg_online_claim(paths->run, vg) == -EEXIST) {
			out(o, PVSCAN "VG %s skip autoactivation.", pid, vg);
			continue;
		}
		out(o, PVSCAN "VG %s run autoactivation.", pid, vg);
		claimed[i] = true;
	}
	for (size_t i = 0; i < ps->n_complete; i++) {
		const char *vg = ps->complete_vgs[i];

		if (!claimed[i] || o->test)
			continue;
		if (activate_vg(o, vg) < 0) {
			pf_err("  " PVSCAN "%s: autoactivation failed.", pid, vg);
			status = PF_EXIT_FAILED;
		}
	}
	return status;
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

static int cmp_pvid(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* The PVIDs of the devices the scan found a label on (lvm2: what lvmcache knows), sorted. */
static int scanned_pvids(const struct pf_scan *scan, const char ***ret, size_t *ret_n)
{
	const char **ids = calloc(scan->n ? scan->n : 1, sizeof(*ids));
	size_t n = 0;

	if (!ids)
		return -ENOMEM;
	for (size_t i = 0; i < scan->n; i++) {
		const struct pf_scan_dev *d = &scan->devs[i];

		if ((d->outcome == PF_SCAN_READ || d->outcome == PF_SCAN_DUPLICATE) &&
		    d->probe.label_status == 0)
			ids[n++] = d->probe.label.pvid;
	}
	qsort(ids, n, sizeof(*ids), cmp_pvid);
	*ret = ids;
	*ret_n = n;
	return 0;
}

/*
 * lvm2's full scan, unlike the per-device form, does not expect PVs to be
 * missing: each time it reads a VG from a device it warns about every PV of
 * it no scanned device carries, unless the VG is foreign to a host with an ID.
 */
static void warn_missing_pvs(const struct pf_scan_dev *d, const char *const *pvids, size_t n,
			     const char *host_system_id)
{
	const struct pf_vg *vg = pf_probe_vg(&d->probe);
	char id[PF_ID_DASHED_LEN + 1];

	if (!vg || d->probe.label_status != 0 || pf_pv_label_is_unused(&d->probe.label))
		return;
	if (host_system_id && strcmp(vg->system_id ? vg->system_id : "", host_system_id) != 0)
		return;
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		const char *key = vg->pvs[i].id;

		if (bsearch(&key, pvids, n, sizeof(*pvids), cmp_pvid))
			continue;
		pf_id_format_dashed(key, id);
		pf_warn("  WARNING: Couldn't find device with uuid %s.", id);
	}
}

static unsigned pvscan_flags(const struct pf_opts *o)
{
	return (o->cache ? PF_PVSCAN_CACHE : 0) | (o->activate ? PF_PVSCAN_ACTIVATE : 0) |
	       (o->listvg ? PF_PVSCAN_LIST_VG : 0) | (o->listlvs ? PF_PVSCAN_LIST_LVS : 0) |
	       (o->checkcomplete ? PF_PVSCAN_CHECK_COMPLETE : 0) |
	       (o->vgonline ? PF_PVSCAN_VG_ONLINE : 0) | (o->n_devs == 0 ? PF_PVSCAN_ALL : 0);
}

static int run(const struct pf_opts *o, const struct pf_paths *paths, const struct pf_settings *st)
{
	_cleanup_free_ struct pf_scan_arg *args = NULL;
	struct pf_scan_opts so = { .paths = paths, .settings = st };
	struct pf_scan scan = { 0 };
	_cleanup_free_ const char **pvids = NULL;
	size_t n_pvids = 0;
	struct pf_pvscan ps;
	bool all = o->n_devs == 0;
	int pid = (int)getpid();
	int status = PF_EXIT_OK, r;

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
	r = pf_state_init(paths->run);
	if (r < 0) {
		pf_err("  Cannot set up %s: %s.", paths->run, strerror(-r));
		return PF_EXIT_FAILED;
	}
	if (!all) {
		if (!o->checkcomplete && !st->event_activation) {
			pf_info("  Ignoring pvscan --cache because event_activation is disabled.");
			return PF_EXIT_OK;
		}
		if (o->autoactivation && strcmp(o->autoactivation, "event") != 0) {
			out(o, PVSCAN "Skip pvscan for unknown autoactivation value.", pid);
			return PF_EXIT_OK;
		}
	}

	if (all && o->cache) {
		/* A full scan rebuilds the state from nothing, as lvm2's does. */
		r = pf_state_clear(paths->run);
		if (r == 0 && !o->devicesfile)
			r = pf_state_unlink_searched_devnames(paths->run);
		if (r < 0) {
			pf_err("  Cannot clear %s: %s.", paths->run, strerror(-r));
			return PF_EXIT_FAILED;
		}
	}

	args = calloc(o->n_devs ? o->n_devs : 1, sizeof(*args));
	if (!args)
		return PF_EXIT_FAILED;
	for (size_t i = 0; i < o->n_devs; i++) {
		if (!o->devs[i].path && !o->devs[i].has_devno)
			continue; /* an argument that did not parse; warned about already */
		args[so.n_args].path = o->devs[i].path;
		args[so.n_args].major = o->devs[i].major;
		args[so.n_args].minor = o->devs[i].minor;
		so.n_args++;
	}
	so.args = all ? NULL : args;
	so.timeout_ms = o->timeout_s * 1000U;
	so.devicesfile = o->devicesfile;
	r = pf_scan_run(&so, &scan);
	if (r < 0) {
		pf_err("  Scan failed: %s.", strerror(-r));
		return PF_EXIT_FAILED;
	}

	if (scan.named_symlinks)
		out(o, PVSCAN "finding all devices for filter symlinks.", pid);
	if (scan.devfile_used && any_device(&scan))
		warn_ignored_filters(st);
	if (all && scanned_pvids(&scan, &pvids, &n_pvids) < 0) {
		pf_scan_release(&scan);
		return PF_EXIT_FAILED;
	}
	pf_pvscan_init(&ps, paths->run, pvscan_flags(o), st->system_id);
	for (size_t i = 0; i < scan.n; i++) {
		struct pf_scan_dev *d = &scan.devs[i];
		size_t first = ps.n_events;

		/* A devno that no longer exists is a removal event: forget its PV. */
		if (d->outcome == PF_SCAN_NO_DEVICE && d->arg && !d->arg->path && o->cache) {
			r = pf_state_remove_devno(paths->run, d->arg->major, d->arg->minor);
			if (r < 0)
				pf_err("  Cannot update %s: %s.", paths->run, strerror(-r));
		}
		print_scan_dev(o, d, all);
		if (d->outcome == PF_SCAN_READ || d->outcome == PF_SCAN_NOT_LVM)
			print_probe(d);
		if (d->outcome != PF_SCAN_READ)
			continue;
		if (all)
			warn_missing_pvs(d, pvids, n_pvids, st->system_id);
		r = pf_pvscan_device(&ps, d->name, d->dev.major, d->dev.minor, &d->probe);
		for (size_t e = first; e < ps.n_events; e++)
			print_event(o, &ps.events[e]);
		if (r < 0) {
			pf_err("  " PVSCAN "%s: %s.", pid, d->name, strerror(-r));
			status = PF_EXIT_FAILED;
		}
	}
	if (ps.failed)
		status = PF_EXIT_FAILED;

	/*
	 * Like lvm2 (--listvg alone too): a PV appeared, so the hints lvm2 commands
	 * keep are stale, and so is the list of names searched for devices-file
	 * entries, which lvm2 keeps only for the default devices file.
	 */
	if (ps.pv_count &&
	    ((strcmp(st->hints, "none") != 0 && pf_state_touch_newhints(paths->run) < 0) ||
	     (!o->devicesfile && pf_state_unlink_searched_devnames(paths->run) < 0)))
		pf_warn("  WARNING: cannot update hints state in %s.", paths->run);
	if (o->activate && autoactivate(o, paths, &ps) != PF_EXIT_OK)
		status = PF_EXIT_FAILED;

	pf_pvscan_release(&ps);
	pf_scan_release(&scan);
	return status;
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
