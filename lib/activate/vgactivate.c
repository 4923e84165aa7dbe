/* SPDX-License-Identifier: GPL-2.0-or-later */
/* One VG's autoactivation: lock, read again, decide, build tables, load natively or hand back. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "activate/vgactivate.h"
#include "base/grow.h"
#include "config/settings.h"
#include "format/probe.h"
#include "format/vg.h"
#include "io/reader.h"
#include "io/stuck.h"

static void set_reason(char *buf, size_t size, const char *fmt, ...) _printf_(3, 4);
static void set_reason(char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(buf, size, fmt, ap);
	va_end(ap);
}

static int add_line(struct pf_activate_result *ret, enum pf_aamsg_level level, const char *fmt,
		    ...) _printf_(3, 4);

/* The metadata read again from each PV under the lock; the newest copy wins, as in lvm2. */
struct reread {
	size_t n;
	struct pf_probe *probes;
	bool *ok; /* probes[i] has a label for pvs[i]'s PVID */
	const struct pf_vg *vg;
};

static void reread_release(struct reread *rr)
{
	for (size_t i = 0; i < rr->n; i++)
		pf_probe_release(&rr->probes[i]);
	free(rr->probes);
	free(rr->ok);
	memset(rr, 0, sizeof(*rr));
}

/*
 * Read every PV again, as the scan does: in a reader process, each open and read with
 * timeout_ms as deadline, so that a PV that stopped answering (a dm device queueing I/O with
 * no path left) costs its timeout and not the leader, which holds the VG lock here. A PV
 * that does not answer in time is left out, as one that cannot be read: the VG is then
 * incomplete, as lvm2 finds it with that PV missing. ret gets a warning for each such PV.
 */
static int reread_vg(const char *vgname, const struct pf_activate_pv *pvs, size_t n,
		     unsigned timeout_ms, const char *run_dir, struct reread *rr,
		     struct pf_activate_result *ret)
{
	_cleanup_free_ char *stuck_dir = run_dir ? pf_stuck_dir(run_dir) : NULL;
	_cleanup_free_ const struct pf_vg **copies = NULL;
	_cleanup_free_ struct pf_reader_dev *rd = NULL;
	_cleanup_free_ size_t *which = NULL;
	struct pf_reader_opts ro = { .timeout_ms = timeout_ms };
	size_t m = 0;
	int best, r;

	rr->probes = calloc(n ? n : 1, sizeof(*rr->probes));
	rr->ok = calloc(n ? n : 1, sizeof(*rr->ok));
	copies = calloc(n ? n : 1, sizeof(*copies));
	rd = calloc(n ? n : 1, sizeof(*rd));
	which = calloc(n ? n : 1, sizeof(*which));
	if (!rr->probes || !rr->ok || !copies || !rd || !which)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		pf_probe_init(&rr->probes[i], 0);
		if (!pvs[i].path)
			continue;
		rd[m] = (struct pf_reader_dev){ .path = pvs[i].path, .probe = &rr->probes[i] };
		which[m++] = i;
	}
	rr->n = n;
	if (run_dir && !stuck_dir)
		return -ENOMEM;
	ro.stuck_dir = stuck_dir;
	r = pf_reader_scan_paths(rd, m, &ro, NULL);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		/* the reader's error is on every device: none is read, the VG is not complete */
		r = add_line(ret, PF_AAMSG_WARN, "WARNING: Cannot read VG %s again: %s.", vgname,
			     strerror(-r));
		if (r < 0)
			return r;
	}
	for (size_t k = 0; k < m; k++) {
		size_t i = which[k];
		struct pf_probe *p = &rr->probes[i];
		const struct pf_vg *vg;

		/* an open that failed is a missing PV, as ever; not so a PV that went silent */
		int st = rd[k].status;

		if (st == -ETIMEDOUT || st == -EPIPE || st == -EPROTO || (rd[k].opened && st < 0)) {
			r = add_line(ret, PF_AAMSG_WARN, "WARNING: Reading %s again for VG %s: %s",
				     pvs[i].path, vgname, rd[k].diag.msg);
			if (r < 0)
				return r;
		}
		if (rd[k].status < 0)
			continue;
		/* the device may have been reused since its pvs_online file was written */
		if (p->label_status != 0 || strcmp(p->label.pvid, pvs[i].pvid) != 0)
			continue;
		rr->ok[i] = true;
		vg = pf_probe_vg(p);
		if (vg && strcmp(vg->name, vgname) == 0)
			copies[i] = vg;
	}
	best = pf_vg_newest(copies, n);
	rr->vg = best < 0 ? NULL : copies[best];
	return 0;
}

static int add_lv(struct pf_activate_result *ret, const char *lv, enum pf_activate_lv_kind kind,
		  struct pf_activate_lv **out)
{
	struct pf_activate_lv *n;
	int r = pf_grow(&ret->lvs, &ret->cap_lvs, ret->n_lvs + 1, PF_VG_LVS_MAX);

	if (r < 0)
		return r;
	n = &ret->lvs[ret->n_lvs++];
	memset(n, 0, sizeof(*n));
	(void)snprintf(n->lv, sizeof(n->lv), "%s", lv);
	n->kind = kind;
	*out = n;
	return 0;
}

static int add_msgs(struct pf_activate_result *ret, const struct pf_aamsg *m, int n)
{
	int r;

	if (n <= 0 || ret->n_msgs + (size_t)n > PF_ACTIVATE_MSGS_MAX)
		return 0;
	r = pf_grow(&ret->msgs, &ret->cap_msgs, ret->n_msgs + (size_t)n, PF_ACTIVATE_MSGS_MAX);
	if (r < 0)
		return r;
	memcpy(ret->msgs + ret->n_msgs, m, (size_t)n * sizeof(*m));
	ret->n_msgs += (size_t)n;
	return 0;
}

/* One of lvm2's lines that the policy does not know (device-mapper's, with -v). */
static int add_line(struct pf_activate_result *ret, enum pf_aamsg_level level, const char *fmt,
		    ...)
{
	struct pf_aamsg m = { .level = level };
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(m.text, sizeof(m.text), fmt, ap);
	va_end(ap);
	return add_msgs(ret, &m, 1);
}

/* Everything known about the VG once read again under the lock. */
struct vg_job {
	const struct pf_activate_opts *o;
	const struct pf_activate_pv *pvs;
	size_t n_pvs;
	struct reread rr;
	const struct pf_vg *vg;
	struct pf_dm_pvdev *pvdev; /* per vg->pvs[] */
	const char **pvpath;	   /* per vg->pvs[] */
	bool *present;		   /* per vg->pvs[] */
	bool *active;		   /* per vg->lvs[] */
	bool *in_the_way;	   /* per vg->lvs[]: device-mapper has it in another state */
	struct pf_aapolicy *policy;
	struct pf_dm_table *tables; /* per vg->lvs[], built for the targets */
};

static void vg_job_release(struct vg_job *j)
{
	if (j->tables)
		for (unsigned i = 0; j->vg && i < j->vg->n_lvs; i++)
			pf_dmtable_release(&j->tables[i]);
	free(j->tables);
	free(j->pvdev);
	free((void *)j->pvpath);
	free(j->present);
	free(j->active);
	free(j->in_the_way);
	pf_aapolicy_free(j->policy);
	reread_release(&j->rr);
}

/* Which PVs of the metadata have their device, and where. */
static int map_pvs(struct vg_job *j)
{
	const struct pf_vg *vg = j->vg;

	j->pvdev = calloc(vg->n_pvs ? vg->n_pvs : 1, sizeof(*j->pvdev));
	j->pvpath = calloc(vg->n_pvs ? vg->n_pvs : 1, sizeof(*j->pvpath));
	j->present = calloc(vg->n_pvs ? vg->n_pvs : 1, sizeof(*j->present));
	if (!j->pvdev || !j->pvpath || !j->present)
		return -ENOMEM;
	for (unsigned k = 0; k < vg->n_pvs; k++)
		for (size_t i = 0; i < j->n_pvs; i++) {
			if (!j->rr.ok[i] || strcmp(j->pvs[i].pvid, vg->pvs[k].id) != 0)
				continue;
			j->present[k] = true;
			j->pvdev[k] = (struct pf_dm_pvdev){ .present = true,
							    .major = j->pvs[i].major,
							    .minor = j->pvs[i].minor };
			j->pvpath[k] = j->pvs[i].path;
			break;
		}
	return 0;
}

/* activation/read_only_volume_list: lvm2 loads matching LVs read-only. */
static bool read_only_by_config(const struct vg_job *j, const struct pf_vg_lv *lv)
{
	const struct pf_settings *st = j->o->settings;
	struct pf_aapolicy_list list = { .set = st->read_only_volume_list.set,
					 .n = st->read_only_volume_list.n,
					 .v = (const char *const *)st->read_only_volume_list.v };
	struct pf_aapolicy_list tags = { .set = st->host_tags.set,
					 .n = st->host_tags.n,
					 .v = (const char *const *)st->host_tags.v };

	return list.set && pf_aapolicy_list_matches(&list, &tags, j->vg, lv);
}

static bool lv_read_only(const struct vg_job *j, const struct pf_vg_lv *lv)
{
	return !(lv->status & PF_LV_WRITE) || read_only_by_config(j, lv);
}

/* What device-mapper has for each LV's UUID. Without device-mapper, a dry run sees nothing. */
static int query_dm(struct vg_job *j, struct pf_activate_result *ret)
{
	const struct pf_vg *vg = j->vg;

	j->active = calloc(vg->n_lvs ? vg->n_lvs : 1, sizeof(*j->active));
	j->in_the_way = calloc(vg->n_lvs ? vg->n_lvs : 1, sizeof(*j->in_the_way));
	if (!j->active || !j->in_the_way)
		return -ENOMEM;
	for (unsigned l = 0; l < vg->n_lvs; l++) {
		const struct pf_vg_lv *lv = &vg->lvs[l];
		struct pf_dm_table probe = { .read_only = lv_read_only(j, lv) };
		enum pf_dm_lv_state state;
		int r;

		if (pf_dmtable_uuid(vg->id, lv->id, NULL, probe.uuid, sizeof(probe.uuid)) < 0)
			continue;
		r = pf_dm_lv_state(&probe, &state);
		if (r < 0) {
			if (j->o->dry_run)
				return 0;
			set_reason(ret->reason, sizeof(ret->reason),
				   "cannot ask device-mapper about LV %s", lv->name);
			return -EIO;
		}
		j->active[l] = state == PF_DM_LV_ACTIVE;
		j->in_the_way[l] = state == PF_DM_LV_OTHER;
	}
	return 0;
}

/* vg_read's warnings about the copies read again and PVs flagged MISSING, before the gates. */
static int record_read(struct vg_job *j, struct pf_activate_result *ret)
{
	const struct pf_vg *vg = j->vg;
	_cleanup_free_ struct pf_aamsg_copy *copies = calloc(j->n_pvs ? j->n_pvs : 1,
								 sizeof(*copies));
	size_t n_copies = 0, cap = 2 * j->n_pvs + 2 * (size_t)vg->n_pvs + 2;
	_cleanup_free_ struct pf_aamsg *m = calloc(cap, sizeof(*m));

	if (!copies || !m)
		return -ENOMEM;
	for (size_t i = 0; i < j->rr.n; i++) {
		const struct pf_vg *c = j->rr.ok[i] ? pf_probe_vg(&j->rr.probes[i]) : NULL;

		if (c && strcmp(c->name, vg->name) == 0)
			copies[n_copies++] = (struct pf_aamsg_copy){ .dev = j->pvs[i].path,
									 .seqno = c->seqno };
	}
	return add_msgs(ret, m,
			pf_aamsg_read(vg, j->policy, copies, n_copies, j->pvpath, m, cap));
}

static int record_policy(struct vg_job *j, struct pf_activate_result *ret,
			 const struct pf_aapolicy_input *in)
{
	struct pf_aamsg m[PF_AAMSG_LINES_MAX];
	int r;

	r = record_read(j, ret);
	if (r == 0)
		r = add_msgs(ret, m, pf_aamsg_vg(j->vg, in, j->policy, m, ARRAY_SIZE(m)));
	for (unsigned l = 0; l < j->vg->n_lvs && r == 0; l++)
		r = add_msgs(ret, m,
			     pf_aamsg_lv(j->vg, in, j->policy, l, m, ARRAY_SIZE(m)));
	return r;
}

bool pf_activate_dup_pvs(const struct pf_activate_opts *o, const struct pf_vg *vg)
{
	if (o->settings->allow_changes_with_duplicate_pvs)
		return false;
	for (size_t d = 0; d < o->n_dup_pvids; d++)
		for (unsigned k = 0; k < vg->n_pvs; k++)
			if (strcmp(o->dup_pvids[d], vg->pvs[k].id) == 0)
				return true;
	return false;
}

/* Build every target's table; anything not native, or not loadable now, goes to lvm2. */
static int plan(struct vg_job *j, struct pf_activate_result *ret)
{
	const struct pf_vg *vg = j->vg;
	struct pf_dm_pvmap map = { .n = vg->n_pvs, .pvs = j->pvdev };

	j->tables = calloc(vg->n_lvs ? vg->n_lvs : 1, sizeof(*j->tables));
	if (!j->tables)
		return -ENOMEM;
	for (unsigned l = 0; l < vg->n_lvs; l++) {
		const struct pf_aapolicy_lv *pl = &j->policy->lvs[l];
		const struct pf_vg_lv *lv;
		struct pf_diag why = { 0 };
		int r;

		if (pl->verdict != PF_AAPOLICY_LV_ACTIVATE || pl->target < 0)
			continue;
		lv = &vg->lvs[pl->target];
		if (j->in_the_way && j->in_the_way[pl->target]) {
			ret->outcome = PF_ACTIVATE_DELEGATE;
			set_reason(ret->reason, sizeof(ret->reason),
				   "LV %s exists in device-mapper in another state", lv->name);
			return 0;
		}
		if (!pf_dmtable_lv_native(vg, lv, &why)) {
			ret->outcome = PF_ACTIVATE_DELEGATE;
			set_reason(ret->reason, sizeof(ret->reason), "LV %s: %s", lv->name,
				   why.msg);
			return 0;
		}
		if (j->tables[pl->target].n_targets)
			continue; /* the same target for two entries (a sparse snapshot's origin) */
		struct pf_dmtable_opts topts = {
			.readahead = j->o->settings->readahead_none ? PF_DM_RA_CONFIG_NONE
								    : PF_DM_RA_CONFIG_AUTO,
			.striped_for_linear = !j->o->settings->use_linear_target,
			.read_only = read_only_by_config(j, lv),
		};

		r = pf_dmtable_build(vg, lv, &map, &topts, &j->tables[pl->target], &why);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			ret->outcome = PF_ACTIVATE_DELEGATE;
			set_reason(ret->reason, sizeof(ret->reason), "LV %s: %s", lv->name,
				   why.msg);
			return 0;
		}
		if (!pf_dm_targets_available(&j->tables[pl->target], j->o->sys_dir)) {
			ret->outcome = PF_ACTIVATE_DELEGATE;
			set_reason(ret->reason, sizeof(ret->reason),
				   "LV %s needs a target module that is not loaded", lv->name);
			return 0;
		}
	}
	return 0;
}

/* Load what was planned (or, dry run, say what would be), and note every LV's fate. */
static int carry_out(struct vg_job *j, struct pf_dm_batch *b, struct pf_activate_result *ret)
{
	const struct pf_vg *vg = j->vg;
	unsigned loaded = 0;

	for (unsigned l = 0; l < vg->n_lvs; l++) {
		const struct pf_aapolicy_lv *pl = &j->policy->lvs[l];
		struct pf_activate_lv *out;
		struct pf_dm_table *t;
		struct pf_diag why = { 0 };
		uint32_t pv_ra = 0;
		unsigned major = 0, minor = 0;
		int r;

		if (!pl->top_level)
			continue;
		if (pl->verdict != PF_AAPOLICY_LV_ACTIVATE) {
			r = add_lv(ret, vg->lvs[l].name,
				   pl->verdict == PF_AAPOLICY_LV_ALREADY_ACTIVE ? PF_ACTIVATE_LV_ACTIVE
										: PF_ACTIVATE_LV_SKIPPED,
				   &out);
			if (r < 0)
				return r;
			(void)snprintf(out->reason, sizeof(out->reason), "%s",
				       pf_aapolicy_lv_verdict_info(pl->verdict)->reason);
			continue;
		}
		t = &j->tables[pl->target];
		r = add_lv(ret, vg->lvs[pl->target].name, PF_ACTIVATE_LV_LOADED, &out);
		if (r < 0)
			return r;
		(void)snprintf(out->dm_name, sizeof(out->dm_name), "%s", t->name);
		(void)snprintf(out->dm_uuid, sizeof(out->dm_uuid), "%s", t->uuid);
		out->read_only = t->read_only;
		r = pf_dmtable_format(t, &out->table);
		if (r < 0)
			return r;
		if (j->o->dry_run)
			continue;
		if (t->read_ahead.kind == PF_DM_RA_MINIMUM_PV && t->read_ahead.pv_index >= 0 &&
		    j->pvpath[t->read_ahead.pv_index] &&
		    pf_dm_bdev_read_ahead(j->pvpath[t->read_ahead.pv_index], &pv_ra) < 0)
			pv_ra = 0; /* lvm2 too goes on without it */
		r = pf_dm_activate(b, t, pv_ra, &why, &major, &minor);
		if (r == 0)
			r = add_line(ret, PF_AAMSG_VERBOSE, "Creating %s", t->name);
		if (r == 0)
			r = add_line(ret, PF_AAMSG_VERBOSE, "Loading table for %s (%u:%u).",
				     t->name, major, minor);
		if (r == 0)
			r = add_line(ret, PF_AAMSG_VERBOSE, "Resuming %s (%u:%u).", t->name,
				     major, minor);
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			out->kind = PF_ACTIVATE_LV_FAILED;
			(void)snprintf(out->reason, sizeof(out->reason), "%s", why.msg);
			ret->outcome = PF_ACTIVATE_FAILED;
			set_reason(ret->reason, sizeof(ret->reason), "LV %s: %s", out->lv, why.msg);
			return 0;
		}
		loaded++;
	}
	ret->n_now_active = j->policy->n_active + loaded;
	if (j->policy->n_expected && !j->o->dry_run)
		return add_line(ret, PF_AAMSG_VERBOSE,
				"Activated %u logical volumes in volume group %s.",
				j->policy->n_expected, vg->name);
	return 0;
}

int pf_activate_vg(const struct pf_activate_opts *o, const char *vgname,
		   const struct pf_activate_pv *pvs, size_t n_pvs, struct pf_dm_batch *b,
		   struct pf_activate_result *ret)
{
	struct vg_job j = { .o = o, .pvs = pvs, .n_pvs = n_pvs };
	struct pf_aapolicy_input in;
	int r;

	memset(ret, 0, sizeof(*ret));
	ret->lock.fd = -1;
	ret->outcome = PF_ACTIVATE_FAILED;
	/* lvm2 holds the VG lock from reading the metadata until udev has made the nodes. */
	if (!o->dry_run) {
		struct pf_diag why = { 0 };
		unsigned timeout = o->lock_nowait	 ? 0
				   : o->lock_timeout_ms ? o->lock_timeout_ms
							: PF_LVMLOCK_TIMEOUT_MS_DEFAULT;

		r = pf_lvmlock_vg(o->lock_dir, vgname, true, timeout, &ret->lock, &why);
		if (r == -EWOULDBLOCK && o->lock_nowait)
			return r;
		if (r == -ENOMEM)
			return r;
		if (r < 0) {
			/* the VG fails, the caller goes on with the others */
			set_reason(ret->reason, sizeof(ret->reason), "%s: skipping autoactivation",
				   why.msg);
			return 0;
		}
	}
	r = reread_vg(vgname, pvs, n_pvs,
		      o->timeout_ms ? o->timeout_ms : o->settings->scan_timeout_sec * 1000U,
		      o->run_dir, &j.rr,
		      ret);
	if (r < 0)
		goto out;
	j.vg = j.rr.vg;
	if (!j.vg) {
		set_reason(ret->reason, sizeof(ret->reason), "cannot read the metadata of VG %s",
			   vgname);
		goto out;
	}
	r = map_pvs(&j);
	if (r == 0 && !o->no_dm)
		r = query_dm(&j, ret);
	if (r == -EIO) {
		r = 0;
		goto out;
	}
	if (r < 0)
		goto out;

	pf_aapolicy_input_from_settings(o->settings, PF_AAPOLICY_PVSCAN, &in);
	/* the caller claimed vgs_online/<vg> and said so: no second "run autoactivation" */
	in.claim = PF_AAPOLICY_CLAIM_NONE;
	in.pv_present = j.present;
	in.lv_active = j.active;
	in.duplicate_pvs = pf_activate_dup_pvs(o, j.vg);
	in.process_each = o->process_each;
	r = pf_aapolicy_decide(j.vg, &in, &j.policy);
	if (r == 0)
		r = record_policy(&j, ret, &in);
	if (r < 0)
		goto out;
	if (j.policy->verdict != PF_AAPOLICY_VG_OK) {
		ret->outcome = j.policy->failed ? PF_ACTIVATE_FAILED : PF_ACTIVATE_DONE;
		ret->vg_failed = j.policy->failed;
		set_reason(ret->reason, sizeof(ret->reason), "%s",
			   pf_aapolicy_vg_verdict_reason(j.policy->verdict));
		goto out;
	}
	ret->say_now_active = true;
	if (in.duplicate_pvs) {
		/* lvm2 refuses every LV of it, whatever its kind: the policy's lines say so */
		ret->outcome = PF_ACTIVATE_FAILED;
		ret->n_now_active = j.policy->n_active;
		if (o->dry_run) /* else the policy's lines are all lvm2 says */
			set_reason(ret->reason, sizeof(ret->reason), "%s",
				   "PVs of it appear on duplicate devices");
		goto out;
	}
	ret->outcome = PF_ACTIVATE_DONE;
	r = plan(&j, ret);
	if (r == 0 && ret->outcome == PF_ACTIVATE_DONE)
		r = carry_out(&j, b, ret);
	if (r == 0 && ret->outcome == PF_ACTIVATE_DONE && j.policy->failed)
		ret->outcome = PF_ACTIVATE_FAILED; /* an LV lvm2 refuses: it fails the VG too */
out:
	vg_job_release(&j);
	/* Only a VG whose devices we made keeps its lock, until the batch's udev wait. */
	if (ret->outcome != PF_ACTIVATE_DONE || r < 0)
		pf_lvmlock_release(&ret->lock);
	if (ret->outcome == PF_ACTIVATE_DELEGATE)
		ret->say_now_active = false;
	if (r < 0)
		pf_activate_result_release(ret);
	return r < 0 ? r : 0;
}

void pf_activate_result_release(struct pf_activate_result *r)
{
	if (!r)
		return;
	for (size_t i = 0; i < r->n_lvs; i++)
		free(r->lvs[i].table);
	free(r->lvs);
	free(r->msgs);
	r->msgs = NULL;
	r->n_msgs = 0;
	r->cap_msgs = 0;
	pf_lvmlock_release(&r->lock);
	r->lvs = NULL;
	r->n_lvs = 0;
	r->cap_lvs = 0;
}
