/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every line lvm2's pvscan prints, and the lines of the vgchange it runs for a VG activated
 * natively: worded as lvm2 words them and sent where lvm2 sends them (stdout through
 * pf_report_print, silenced by --udevoutput; warnings and errors through lib/base/log.h).
 */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/log.h"
#include "base/strutil.h"
#include "format/label.h"
#include "report.h"
#include "state/state.h"

#define PVSCAN "pvscan[%d] "
/* A reason or verdict escaped for a terminal (it may quote metadata: a segment type, a flag). */
#define SHOWN_MAX (4U * sizeof(((struct pf_activate_result *)0)->reason))

void pf_report_print(const struct pf_opts *o, const char *fmt, ...)
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

void pf_report_udev_vg(const char *vg, bool complete)
{
	(void)printf("LVM_VG_NAME_%s='%s'\n", complete ? "COMPLETE" : "INCOMPLETE", vg);
}

void pf_report_event(const struct pf_opts *o, const struct pf_event *e)
{
	int pid = (int)getpid();
	const char *state = e->lv_state == PF_LV_STATE_COMPLETE	  ? " complete"
			    : e->lv_state == PF_LV_STATE_INCOMPLETE ? " incomplete"
								    : "";

	switch (e->kind) {
	case PF_EV_NO_LVM_INFO:
		pf_report_print(o, PVSCAN "ignore %s with no lvm info.", pid, e->dev);
		break;
	case PF_EV_NOT_USED:
		pf_report_print(o, PVSCAN "PV %s not used.", pid, e->dev);
		break;
	case PF_EV_NO_METADATA:
		pf_report_print(o, PVSCAN "PV %s has no VG metadata.", pid, e->dev);
		break;
	case PF_EV_NOT_IN_VG:
		pf_report_print(o, PVSCAN "PV %s not found in VG %s.", pid, e->dev, e->vg);
		break;
	case PF_EV_MD_COMPONENT:
		pf_report_print(o, PVSCAN "ignore md component %s.", pid, e->dev);
		break;
	case PF_EV_SHARED:
		pf_report_print(o, PVSCAN "PV %s ignore shared VG.", pid, e->dev);
		break;
	case PF_EV_FOREIGN:
		pf_report_print(o, PVSCAN "PV %s ignore foreign VG.", pid, e->dev);
		break;
	case PF_EV_EXPORTED:
		pf_report_print(o, PVSCAN "PV %s ignore exported VG.", pid, e->dev);
		break;
	case PF_EV_DUPLICATE:
		pf_err("  " PVSCAN "PV %s %u:%u is duplicate for PVID %s on %u:%u %s.", pid, e->dev,
		       e->major, e->minor, e->pvid, e->other_major, e->other_minor, e->other_dev);
		break;
	case PF_EV_ONLINE_FAILED:
		if (e->err)
			pf_err("  " PVSCAN "Failed to create online file for %s path "
			       "%s/pvs_online/%s error %d",
			       pid, e->dev, e->run_dir, e->pvid, -e->err);
		pf_err("  " PVSCAN "PV %s failed to create online file.", pid, e->dev);
		break;
	case PF_EV_ONLINE_WRITE_FAILED:
		pf_warn("  Cannot write online file for %s to %s/pvs_online/%s error %d", e->dev,
			e->run_dir, e->pvid, -e->err);
		pf_info("  %s/pvs_online/%s: %s; left empty, as lvm2 leaves it.", e->run_dir,
			e->pvid, strerror(-e->err));
		break;
	case PF_EV_LOOKUP_WRITE_FAILED:
		/* compat: lvm2's line ends with the newline of the entry it failed to write. */
		pf_warn("  " PVSCAN "Failed to write lookup entry %s/pvs_lookup/%s %s", pid,
			e->run_dir, e->vg, e->pvid);
		pf_warn("%s", "");
		break;
	case PF_EV_ONLINE:
		pf_report_print(o, PVSCAN "PV %s online.", pid, e->dev);
		break;
	case PF_EV_COMPLETE_AFTER_RECHECK:
		pf_report_print(o, PVSCAN "VG %s complete after recheck.", pid, e->vg);
		break;
	case PF_EV_VG_UNKNOWN:
		pf_report_print(o, PVSCAN "PV %s online, VG unknown.", pid, e->dev);
		break;
	case PF_EV_VG_INCOMPLETE:
		pf_report_print(o, PVSCAN "PV %s online, VG %s incomplete (need %u).", pid, e->dev,
				e->vg, e->need);
		break;
	case PF_EV_VG_COMPLETE:
		pf_report_print(o, PVSCAN "PV %s online, VG %s is complete.", pid, e->dev, e->vg);
		break;
	case PF_EV_LIST_VG_UNKNOWN:
		pf_report_print(o, "VG unknown");
		break;
	case PF_EV_LIST_VG:
		pf_report_print(o, "VG %s", e->vg);
		break;
	case PF_EV_LIST_VG_FINISHED:
		pf_report_print(o, "VG %s finished", e->vg);
		break;
	case PF_EV_LIST_VG_COMPLETE:
		if (o->udevoutput)
			pf_report_udev_vg(e->vg, true);
		else
			pf_report_print(o, "VG %s complete", e->vg);
		break;
	case PF_EV_LIST_VG_INCOMPLETE:
		if (o->udevoutput)
			pf_report_udev_vg(e->vg, false);
		else
			pf_report_print(o, "VG %s incomplete", e->vg);
		break;
	case PF_EV_LIST_LVS_NO_METADATA:
		pf_report_print(o, PVSCAN "Cannot list LVs from device without metadata.", pid);
		break;
	case PF_EV_LIST_LVS_NOT_FOUND:
		pf_report_print(o, PVSCAN "Failed to find LVs using %s.", pid, e->dev);
		break;
	case PF_EV_LIST_LV:
		pf_report_print(o, "LV %s/%s%s", e->vg, e->lv, state);
		break;
	}
}

void pf_report_scan_dev(const struct pf_opts *o, const struct pf_scan_dev *d, bool all)
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
			pf_report_print(o, PVSCAN "%s excluded by devices file (checking PVID).",
					pid, d->name);
		else if (!all)
			pf_report_print(o, PVSCAN "%s excluded: %s.", pid, d->name, d->reason);
		else
			pf_info("  %s excluded: %s.", d->name, d->reason);
		break;
	case PF_SCAN_NOT_LVM:
		if (!all)
			pf_report_print(o, PVSCAN "%s not an lvm device.", pid, d->name);
		break;
	case PF_SCAN_FAILED:
		if (d->over_budget) {
			pf_err("  Skipping %s: %s.", d->name, d->diag.msg);
			break;
		}
		/* lvm2 only says it cannot read; say why, so the admin can act. */
		if (!all)
			pf_report_print(o, PVSCAN "%s cannot read label.", pid, d->name);
		pf_warn("  WARNING: %s: %s", d->name, d->diag.msg[0] ? d->diag.msg
							    : strerror(-d->status));
		break;
	case PF_SCAN_DUPLICATE:
		/* lvm2 keeps the first named; a full scan warns (print_duplicates) instead */
		if (!all)
			pf_report_print(o, PVSCAN "ignore %s with no lvm info.", pid, d->name);
		break;
	case PF_SCAN_READ:
		break;
	}
}

void pf_report_duplicates(const struct pf_scan *scan)
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

void pf_report_vgname_duplicates(const struct pf_vg *const *vgs,
				 const struct pf_aapolicy_vgnames *names)
{
	for (size_t i = 0; i < names->n; i++) {
		char id[PF_ID_DASHED_LEN + 1], other_id[PF_ID_DASHED_LEN + 1];
		size_t other;

		if (!pf_aapolicy_vgnames_taken(names, i, &other))
			continue;
		pf_id_format_dashed(vgs[i]->id, id);
		pf_id_format_dashed(vgs[other]->id, other_id);
		pf_warn("  WARNING: VG name %s is used by VGs %s and %s.", vgs[i]->name, id,
			other_id);
		pf_warn("  Fix duplicate VG names with vgrename uuid, a device filter, or system "
			"IDs.");
	}
}

void pf_report_vgname_ambiguous(const char *vg)
{
	pf_err("  Multiple VGs found with the same name: skipping %s", vg);
	pf_err("  Use --select vg_uuid=<uuid> in place of the VG name.");
}

void pf_report_md_hint_moved(const struct pf_opts *o, const char *vg, const char *pvid,
			     const char *online, const char *hint)
{
	char id[PF_ID_DASHED_LEN + 1], shown[4 * PF_STATE_NAME_LEN];

	pf_id_format_dashed(pvid, id);
	pf_report_print(o, PVSCAN "PVID %s read from %s last written to %s.", (int)getpid(), id,
			online, pf_str_escape(hint, shown, sizeof(shown)));
	pf_report_print(o, PVSCAN "VG %s not using quick activation.", (int)getpid(), vg);
}

/*
 * lvm2 silently does not use a damaged label, text or size (or uses it as it is); -v says
 * what, so the admin can act on it.
 */
void pf_report_probe(const struct pf_scan_dev *d)
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

void pf_report_filters_ignored(const struct pf_settings *st)
{
	if (st->global_filter.set)
		pf_warn("  Please remove the lvm.conf global_filter, it is ignored with the devices "
			"file.");
	if (st->filter.set)
		pf_warn("  Please remove the lvm.conf filter, it is ignored with the devices file.");
}

static int cmp_pv(const void *a, const void *b)
{
	const struct pf_report_pv *x = a, *y = b;
	int c = strcmp(x->pvid, y->pvid);

	return c ? c : x->unused - y->unused;
}

int pf_report_pvs_collect(const struct pf_scan *scan, unsigned flags, struct pf_report_pvs *ret)
{
	struct pf_report_pv *v = calloc(scan->n ? scan->n : 1, sizeof(*v));
	size_t n = 0;

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < scan->n; i++) {
		const struct pf_scan_dev *d = &scan->devs[i];

		if ((d->outcome == PF_SCAN_READ || d->outcome == PF_SCAN_DUPLICATE) &&
		    d->probe.label_status == 0 && !pf_pvcache_md_dropped(flags, &d->probe))
			v[n++] = (struct pf_report_pv){ d->probe.label.pvid, d->name,
							d->outcome == PF_SCAN_DUPLICATE };
	}
	qsort(v, n, sizeof(*v), cmp_pv);
	*ret = (struct pf_report_pvs){ .v = v, .n = n };
	return 0;
}

void pf_report_pvs_release(struct pf_report_pvs *pvs)
{
	free(pvs->v);
	*pvs = (struct pf_report_pvs){ 0 };
}

static const struct pf_report_pv *find_pv(const struct pf_report_pvs *pvs, const char *pvid)
{
	size_t lo = 0, hi = pvs->n;

	/* the first entry with this PVID: the device lvm2 uses */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(pvs->v[mid].pvid, pvid) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < pvs->n && strcmp(pvs->v[lo].pvid, pvid) == 0 ? &pvs->v[lo] : NULL;
}

/*
 * lvm2's set_pv_devices: its full scan, unlike the per-device form, does not expect PVs to be
 * missing.
 */
void pf_report_vg_devices(const struct pf_scan_dev *d, const struct pf_report_pvs *pvs,
			  const char *host_system_id, bool full)
{
	const struct pf_vg *vg = pf_probe_vg(&d->probe);
	char id[PF_ID_DASHED_LEN + 1];
	bool foreign;

	if (!vg || d->probe.label_status != 0 || pf_pv_label_is_unused(&d->probe.label))
		return;
	foreign = host_system_id && strcmp(vg->system_id ? vg->system_id : "", host_system_id) != 0;
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		const struct pf_report_pv *s = find_pv(pvs, vg->pvs[i].id);

		if (!s && full && !foreign) {
			pf_id_format_dashed(vg->pvs[i].id, id);
			pf_warn("  WARNING: Couldn't find device with uuid %s.", id);
		}
		if (s && (vg->pvs[i].status & PF_PV_MISSING))
			pf_warn("  WARNING: VG %s was previously updated while PV %s was missing.",
				vg->name, s->dev);
	}
}

void pf_report_dev_failed(const char *dev, int r)
{
	pf_err("  " PVSCAN "%s: %s.", (int)getpid(), dev, strerror(-r));
}

void pf_report_finding_symlinks(const struct pf_opts *o)
{
	pf_report_print(o, PVSCAN "finding all devices for filter symlinks.", (int)getpid());
}

void pf_report_skip(const struct pf_opts *o, enum pf_report_skip why)
{
	int pid = (int)getpid();

	switch (why) {
	case PF_REPORT_SKIP_ACTIVATE_DISABLED:
		pf_info("  Ignoring pvscan --cache -aay because event_activation is disabled.");
		break;
	case PF_REPORT_SKIP_CHECKCOMPLETE_DISABLED:
		if (o->udevoutput)
			(void)printf("LVM_EVENT_ACTIVATION=0\n");
		else
			pf_report_print(o,
					PVSCAN "Ignoring pvscan with --checkcomplete because "
					       "event_activation is disabled.",
					pid);
		break;
	case PF_REPORT_SKIP_CACHE_DISABLED:
		pf_info("  Ignoring pvscan --cache because event_activation is disabled.");
		break;
	case PF_REPORT_SKIP_AUTOACTIVATION_VALUE:
		pf_report_print(o, PVSCAN "Skip pvscan for unknown autoactivation value.", pid);
		break;
	}
}

void pf_report_autoactivation(const struct pf_opts *o, const char *vg,
			      enum pf_report_autoactivation what)
{
	int pid = (int)getpid();

	switch (what) {
	case PF_REPORT_AA_SKIP:
		pf_report_print(o, PVSCAN "VG %s skip autoactivation.", pid, vg);
		break;
	case PF_REPORT_AA_RUN:
		pf_report_print(o, PVSCAN "VG %s run autoactivation.", pid, vg);
		break;
	case PF_REPORT_AA_RECOVER:
		pf_report_print(o,
				PVSCAN "VG %s run autoactivation (left unfinished by a leader "
				       "that died).",
				pid, vg);
		break;
	case PF_REPORT_AA_FAILED:
		pf_err("  " PVSCAN "%s: autoactivation failed.", pid, vg);
		break;
	}
}

/* lvm2's own lines for the VG, as its autoactivation policy logged them. */
static void print_msgs(const struct pf_opts *o, const struct pf_activate_result *res)
{
	int pid = (int)getpid();

	for (size_t i = 0; i < res->n_msgs; i++) {
		const struct pf_aamsg *m = &res->msgs[i];
		const char *pre = m->pvscan_prefix ? "pvscan[" : "";

		switch (m->level) {
		case PF_AAMSG_DEBUG:
			pf_debug("  %s%.0d%s%s", pre, m->pvscan_prefix ? pid : 0,
				 m->pvscan_prefix ? "] " : "", m->text);
			break;
		case PF_AAMSG_VERBOSE:
			pf_info("  %s%.0d%s%s", pre, m->pvscan_prefix ? pid : 0,
				m->pvscan_prefix ? "] " : "", m->text);
			break;
		case PF_AAMSG_PRINT:
			if (m->pvscan_prefix)
				pf_report_print(o, PVSCAN "%s", pid, m->text);
			else
				pf_report_print(o, "%s", m->text);
			break;
		case PF_AAMSG_WARN:
		case PF_AAMSG_ERROR:
			if (m->pvscan_prefix)
				pf_err("  " PVSCAN "%s", pid, m->text);
			else
				pf_err("  %s", m->text);
			break;
		case _PF_AAMSG_LEVEL_MAX:
			break;
		}
	}
}

void pf_report_vg_result(const struct pf_opts *o, const char *vg,
			 const struct pf_activate_result *res)
{
	bool failed = res->outcome == PF_ACTIVATE_FAILED;
	char why[SHOWN_MAX];

	print_msgs(o, res);
	/* lvm2's own lines said it where the VG failed its gates, or an LV was refused */
	if (failed && res->vg_failed)
		return;
	if (failed && res->reason[0])
		pf_err("  VG %s: %s.", vg, pf_str_escape(res->reason, why, sizeof(why)));
	/* vgchange says it after its LVs, whatever became of them */
	if (res->say_now_active)
		pf_report_print(o, "%u logical volume(s) in volume group \"%s\" now active",
				res->n_now_active, vg);
}

void pf_report_plan(const struct pf_opts *o, const char *vg, const struct pf_activate_result *res)
{
	char why[SHOWN_MAX];

	if (res->outcome == PF_ACTIVATE_DELEGATE) {
		pf_report_print(o, "VG %s: would be activated by lvm2: %s.", vg,
				pf_str_escape(res->reason, why, sizeof(why)));
		return;
	}
	if (res->outcome == PF_ACTIVATE_FAILED || (res->reason[0] && res->n_lvs == 0)) {
		pf_report_print(o, "VG %s: not activated: %s.", vg,
				pf_str_escape(res->reason, why, sizeof(why)));
		return;
	}
	for (size_t i = 0; i < res->n_lvs; i++) {
		const struct pf_activate_lv *lv = &res->lvs[i];

		if (lv->kind != PF_ACTIVATE_LV_LOADED) {
			pf_report_print(o, "LV %s/%s: skipped: %s.", vg, lv->lv,
					pf_str_escape(lv->reason, why, sizeof(why)));
			continue;
		}
		pf_report_print(o, "LV %s/%s: name %s uuid %s%s", vg, lv->lv, lv->dm_name,
				lv->dm_uuid, lv->read_only ? " read-only" : "");
		if (!o->udevoutput)
			for (const char *p = lv->table; p && *p;) {
				const char *nl = strchr(p, '\n');
				int len = nl ? (int)(nl - p) : (int)strlen(p);

				(void)printf("    %.*s\n", len, p);
				p = nl ? nl + 1 : p + len;
			}
	}
}

void pf_report_plan_lvm2(const struct pf_opts *o, const char *vg)
{
	pf_report_print(o, "VG %s: would be activated by lvm2.", vg);
}
