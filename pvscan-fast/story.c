/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The leader's steps as records: devices, PVs, VGs, claims and activations, one line each. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

#include "format/vg.h"
#include "state/state.h"
#include "story.h"

/* Missing PVs are listed once a VG lacks at most this many: bounded, exact when it matters. */
#define MISSING_LISTED_MAX 32U

void pf_story_round(struct pf_records *w, size_t n, bool full)
{
	char items[24];

	if (!w)
		return;
	(void)snprintf(items, sizeof(items), "%zu", n);
	pf_records_add(w, "round", "items", items, "full", full ? "1" : "0", NULL);
}

static const char *dev_result(const struct pf_scan_dev *d)
{
	switch (d->outcome) {
	case PF_SCAN_READ: return "read";
	case PF_SCAN_NO_DEVICE: return "gone";
	case PF_SCAN_EXCLUDED: return "excluded";
	case PF_SCAN_NOT_LVM: return "not-lvm";
	case PF_SCAN_DUPLICATE: return "duplicate";
	case PF_SCAN_FAILED: return d->status == -ETIMEDOUT ? "timeout" : "failed";
	}
	return "failed";
}

void pf_story_dev(struct pf_records *w, const struct pf_scan *scan, const struct pf_scan_dev *d,
		  bool act)
{
	const struct pf_vg *vg = NULL;
	const char *pvid = NULL, *why = NULL, *chosen = NULL;
	char devno[24];

	if (!w)
		return;
	(void)snprintf(devno, sizeof(devno), "%u:%u", d->dev.major, d->dev.minor);
	if (d->outcome == PF_SCAN_NO_DEVICE && d->arg && !d->arg->path)
		(void)snprintf(devno, sizeof(devno), "%u:%u", d->arg->major, d->arg->minor);
	if ((d->outcome == PF_SCAN_READ || d->outcome == PF_SCAN_DUPLICATE) &&
	    d->probe.label_status == 0) {
		pvid = d->probe.label.pvid;
		vg = pf_probe_vg(&d->probe);
	}
	if (d->outcome == PF_SCAN_EXCLUDED || d->outcome == PF_SCAN_DUPLICATE)
		why = d->reason;
	else if (d->outcome == PF_SCAN_FAILED)
		why = d->diag.msg[0] ? d->diag.msg : strerror(-d->status);
	if (d->outcome == PF_SCAN_DUPLICATE && d->dup_of < scan->n)
		chosen = scan->devs[d->dup_of].name;
	pf_records_add(w, "dev", "dev", devno, "name", d->name, "res", dev_result(d), "why", why,
		       "pvid", pvid, "vg", vg ? vg->name : NULL, "vgid", vg ? vg->id : NULL,
		       "act", act ? "1" : "0", "chosen", chosen, NULL);
}

/* The PVs of vg with no online file, while few enough to list. */
static void missing(struct pf_records *w, const char *run_dir, const struct pf_vg *vg,
		    unsigned need)
{
	if (need > MISSING_LISTED_MAX)
		return;
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		const struct pf_vg_pv *pv = &vg->pvs[i];
		char size[24];

		if (pf_state_pv_online_exists(run_dir, pv->id))
			continue;
		(void)snprintf(size, sizeof(size), "%llu",
			       pv->has_dev_size ? (unsigned long long)pv->dev_size : 0ULL);
		pf_records_add(w, "missing", "vg", vg->name, "vgid", vg->id, "pvid", pv->id, "hint",
			       pv->device, "size", size, NULL);
	}
}

static const char *pv_state(enum pf_event_kind k)
{
	switch (k) {
	case PF_EV_FOREIGN: return "foreign";
	case PF_EV_EXPORTED: return "exported";
	case PF_EV_SHARED: return "shared";
	case PF_EV_NOT_USED: return "not-used";
	case PF_EV_NO_METADATA: return "no-metadata";
	case PF_EV_NOT_IN_VG: return "not-in-vg";
	case PF_EV_MD_COMPONENT: return "md-component";
	case PF_EV_DUPLICATE: return "duplicate";
	case PF_EV_ONLINE_FAILED: return "online-failed";
	case PF_EV_NO_LVM_INFO: return "bad-label";
	default: return NULL;
	}
}

void pf_story_event(struct pf_records *w, const char *run_dir, const struct pf_scan_dev *d,
		    const struct pf_event *ev)
{
	const struct pf_vg *vg = pf_probe_vg(&d->probe);
	const char *vgid = vg && strcmp(vg->name, ev->vg) == 0 ? vg->id : NULL;
	const char *state = pv_state(ev->kind);
	char num[24], devno[24], why[256] = "";

	if (!w)
		return;
	if (ev->kind == PF_EV_VG_COMPLETE || ev->kind == PF_EV_VG_INCOMPLETE) {
		bool complete = ev->kind == PF_EV_VG_COMPLETE;

		(void)snprintf(num, sizeof(num), "%u", ev->need);
		pf_records_add(w, "vg", "vg", ev->vg, "vgid", vgid, "state",
			       complete ? "complete" : "incomplete", "need", complete ? NULL : num,
			       NULL);
		if (!complete && vgid)
			missing(w, run_dir, vg, ev->need);
		return;
	}
	if (!state)
		return;
	(void)snprintf(devno, sizeof(devno), "%u:%u", d->dev.major, d->dev.minor);
	if (ev->kind == PF_EV_FOREIGN && vg && vg->system_id)
		(void)snprintf(why, sizeof(why), "system ID %s", vg->system_id);
	else if (ev->kind == PF_EV_SHARED && vg && vg->lock_type)
		(void)snprintf(why, sizeof(why), "lock type %s", vg->lock_type);
	else if (ev->kind == PF_EV_DUPLICATE)
		(void)snprintf(why, sizeof(why), "online on %u:%u already", ev->other_major,
			       ev->other_minor);
	else if (ev->err)
		(void)snprintf(why, sizeof(why), "%s", strerror(-ev->err));
	pf_records_add(w, "pv", "vg", ev->vg[0] ? ev->vg : NULL, "vgid", vgid, "pvid",
		       ev->pvid[0] ? ev->pvid : d->probe.label.pvid, "dev", devno, "name", d->name,
		       "state", state, "why", why[0] ? why : NULL, NULL);
}

void pf_story_claim(struct pf_records *w, const char *vg, bool ours)
{
	if (w)
		pf_records_add(w, "claim", "vg", vg, "res", ours ? "ours" : "taken", NULL);
}

void pf_story_activate(struct pf_records *w, const char *vg, const char *how)
{
	if (w)
		pf_records_add(w, "activate", "vg", vg, "how", how, NULL);
}

static const char *lv_result(enum pf_activate_lv_kind k)
{
	switch (k) {
	case PF_ACTIVATE_LV_LOADED: return "loaded";
	case PF_ACTIVATE_LV_ACTIVE: return "active";
	case PF_ACTIVATE_LV_SKIPPED: return "skipped";
	case PF_ACTIVATE_LV_FAILED: return "failed";
	}
	return "failed";
}

void pf_story_native(struct pf_records *w, const char *vg, const struct pf_activate_result *res)
{
	char active[24];

	if (!w)
		return;
	for (size_t i = 0; i < res->n_lvs; i++) {
		const struct pf_activate_lv *lv = &res->lvs[i];

		pf_records_add(w, "lv", "vg", vg, "lv", lv->lv, "uuid",
			       lv->dm_uuid[0] ? lv->dm_uuid : NULL, "res", lv_result(lv->kind),
			       "why", lv->reason[0] ? lv->reason : NULL, NULL);
	}
	(void)snprintf(active, sizeof(active), "%u", res->n_now_active);
	pf_records_add(w, "activated", "vg", vg, "how", "native", "res",
		       res->outcome == PF_ACTIVATE_FAILED ? "failed" : "ok", "why",
		       res->reason[0] ? res->reason : NULL, "active", active, NULL);
}

void pf_story_lvm2(struct pf_records *w, const char *vg, const char *how, int wstatus,
		   bool timed_out, bool left)
{
	char status[24] = "", why[64] = "";
	const char *res = "failed";

	if (!w)
		return;
	if (left) {
		res = "left";
		(void)snprintf(why, sizeof(why), "stopped by a termination request");
	} else if (timed_out) {
		(void)snprintf(why, sizeof(why), "killed at the activation timeout");
	} else if (wstatus == -1) {
		(void)snprintf(why, sizeof(why), "lvm2 could not be run");
	} else if (WIFEXITED(wstatus)) {
		(void)snprintf(status, sizeof(status), "%d", WEXITSTATUS(wstatus));
		if (WEXITSTATUS(wstatus) == 0)
			res = "ok";
	} else if (WIFSIGNALED(wstatus)) {
		(void)snprintf(why, sizeof(why), "killed by signal %d", WTERMSIG(wstatus));
	}
	pf_records_add(w, "activated", "vg", vg, "how", how, "res", res, "status",
		       status[0] ? status : NULL, "why", why[0] ? why : NULL, NULL);
}

void pf_story_ended(struct pf_records *w, const char *vg, const char *how, const char *res,
		    const char *why)
{
	if (w)
		pf_records_add(w, "activated", "vg", vg, "how", how, "res", res, "why", why, NULL);
}
