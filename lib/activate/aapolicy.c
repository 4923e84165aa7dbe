/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which LVs lvm2 2.03.16's event autoactivation brings up: the VG gates, then each LV's. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "activate/aapolicy.h"
#include "base/keyorder.h"
#include "config/settings.h"
#include "format/cfg.h"
#include "format/vg.h"

/*
 * Each LV verdict: how far lvm2 gets (the gates below run in this order), whether it fails,
 * its own line and the --dry-run reason. Every line takes (vg, lv, vg, LV in the way).
 */
static const struct pf_aapolicy_lv_verdict_info lv_verdicts[] = {
	[PF_AAPOLICY_LV_ACTIVATE] = {
		.stage = PF_AAPOLICY_STAGE_VOLUME_LIST,
		.reason = "activated",
	},
	[PF_AAPOLICY_LV_NOT_REACHED] = {
		.reason = "the VG is not activated",
	},
	[PF_AAPOLICY_LV_HIDDEN] = {
		.reason = "not a top-level LV; comes up with the LV using it",
	},
	[PF_AAPOLICY_LV_SNAPSHOT] = {
		.reason = "a snapshot; comes up with its origin",
	},
	[PF_AAPOLICY_LV_MIRROR_PART] = {
		.reason = "a mirror image or log",
	},
	[PF_AAPOLICY_LV_VDO_POOL] = {
		.reason = "a VDO pool",
	},
	[PF_AAPOLICY_LV_ACTIVATION_SKIP] = {
		.stage = PF_AAPOLICY_STAGE_SKIP,
		.level = PF_AAMSG_VERBOSE,
		.line = "ACTIVATION_SKIP flag set for LV %.128s/%.128s, skipping activation.",
		.reason = "activation skip flag set",
	},
	[PF_AAPOLICY_LV_NOT_IN_AUTO_LIST] = {
		.stage = PF_AAPOLICY_STAGE_AUTO_LIST,
		.reason = "not in auto_activation_volume_list",
	},
	[PF_AAPOLICY_LV_NOAUTOACTIVATE] = {
		.stage = PF_AAPOLICY_STAGE_AUTO_LIST,
		.reason = "autoactivation disabled for the LV",
	},
	[PF_AAPOLICY_LV_CACHE_POOL] = {
		.stage = PF_AAPOLICY_STAGE_REQUEST,
		.level = PF_AAMSG_VERBOSE,
		.line = "Skipping activation of cache pool %.128s/%.128s.",
		.reason = "an unattached cache pool",
	},
	[PF_AAPOLICY_LV_DUPLICATE_PVS] = {
		.stage = PF_AAPOLICY_STAGE_REQUEST,
		.error = true,
		.level = PF_AAMSG_ERROR,
		.line = "Cannot activate LVs in VG %.128s while PVs appear on duplicate devices.",
		.reason = "its PVs have duplicates",
	},
	[PF_AAPOLICY_LV_INTEGRITY_RECALC] = {
		.stage = PF_AAPOLICY_STAGE_REQUEST,
		.error = true,
		.level = PF_AAMSG_ERROR,
		.line = "Cannot activate uninitialized integrity LV %.128s/%.128s from pvscan.",
		.reason = "integrity recalculation pending",
	},
	[PF_AAPOLICY_LV_COMPONENT_ACTIVE] = {
		.stage = PF_AAPOLICY_STAGE_ACTIVATE,
		.error = true,
		.level = PF_AAMSG_ERROR,
		.line = "Activation of logical volume %.128s/%.128s is prohibited while logical volume %.128s/%.128s is active.",
		.reason = "a component LV is active on its own",
	},
	[PF_AAPOLICY_LV_NOT_IN_VOLUME_LIST] = {
		.stage = PF_AAPOLICY_STAGE_VOLUME_LIST,
		.level = PF_AAMSG_VERBOSE,
		.line = "Not activating %.128s/%.128s since it does not pass activation filter.",
		.reason = "not in volume_list",
	},
	[PF_AAPOLICY_LV_PARTIAL] = {
		.stage = PF_AAPOLICY_STAGE_VOLUME_LIST,
		.error = true,
		.level = PF_AAMSG_ERROR,
		.line = "Refusing activation of partial LV %.128s/%.128s.  Use '--activationmode partial' to override.",
		.reason = "a PV it uses is missing",
	},
	[PF_AAPOLICY_LV_PARTIAL_RAID] = {
		.stage = PF_AAPOLICY_STAGE_VOLUME_LIST,
		.reason = "raid with a PV missing",
	},
	[PF_AAPOLICY_LV_UNKNOWN_SEGMENT] = {
		.stage = PF_AAPOLICY_STAGE_VOLUME_LIST,
		.error = true,
		.level = PF_AAMSG_ERROR,
		.line = "Refusing activation of LV %.128s/%.128s containing an unrecognised segment.",
		.reason = "a segment type lvm2 does not know",
	},
	[PF_AAPOLICY_LV_RAID_VISIBLE_SUBLVS] = {
		.stage = PF_AAPOLICY_STAGE_VOLUME_LIST,
		.error = true,
		.level = PF_AAMSG_ERROR,
		.line = "Refusing activation of RAID LV %.128s/%.128s with visible SubLVs.",
		.reason = "raid with visible sub-LVs",
	},
	[PF_AAPOLICY_LV_ALREADY_ACTIVE] = {
		.stage = PF_AAPOLICY_STAGE_VOLUME_LIST,
		.level = PF_AAMSG_DEBUG,
		.line = "LV %.128s/%.128s is already active.",
		.reason = "already active",
	},
};

static const struct pf_aapolicy_lv_verdict_info lv_verdict_unknown = { .reason = "?" };

/* Each VG verdict's --dry-run reason; lvm2's lines depend on more than the verdict (aamsg.c). */
static const char *const vg_verdict_reasons[] = {
	[PF_AAPOLICY_VG_OK] = "",
	[PF_AAPOLICY_VG_SHARED] = "shared VG",
	[PF_AAPOLICY_VG_FOREIGN] = "foreign VG",
	[PF_AAPOLICY_VG_EXPORTED] = "exported VG",
	[PF_AAPOLICY_VG_INCOMPLETE] = "PVs missing",
	[PF_AAPOLICY_VG_CLAIMED] = "claimed by another pvscan",
	[PF_AAPOLICY_VG_CLUSTERED] = "clustered VG",
	[PF_AAPOLICY_VG_READ_ONLY] = "read-only VG",
	[PF_AAPOLICY_VG_MISSING_PVS] = "PVs flagged missing",
	[PF_AAPOLICY_VG_NOAUTOACTIVATE] = "autoactivation disabled for the VG",
};

_Static_assert(ARRAY_SIZE(lv_verdicts) == _PF_AAPOLICY_LV_VERDICT_MAX, "one row per LV verdict");
_Static_assert(ARRAY_SIZE(vg_verdict_reasons) == _PF_AAPOLICY_VG_VERDICT_MAX,
	       "one reason per VG verdict");

const struct pf_aapolicy_lv_verdict_info *pf_aapolicy_lv_verdict_info(enum pf_aapolicy_lv_verdict v)
{
	return (unsigned)v < ARRAY_SIZE(lv_verdicts) ? &lv_verdicts[v] : &lv_verdict_unknown;
}

bool pf_aapolicy_lv_is_error(enum pf_aapolicy_lv_verdict v)
{
	return pf_aapolicy_lv_verdict_info(v)->error;
}

const char *pf_aapolicy_vg_verdict_reason(enum pf_aapolicy_vg_verdict v)
{
	return (unsigned)v < ARRAY_SIZE(vg_verdict_reasons) ? vg_verdict_reasons[v] : "?";
}

static bool tag_in(const struct pf_cfg_value *tags, const char *tag)
{
	for (const struct pf_cfg_value *t = tags; t; t = t->next)
		if (t->type == PF_CFG_STRING && strcmp(t->v.s, tag) == 0)
			return true;
	return false;
}

static bool host_tag_in(const struct pf_aapolicy_list *host, const struct pf_cfg_value *tags)
{
	for (size_t i = 0; i < host->n; i++)
		if (host->v[i] && tag_in(tags, host->v[i]))
			return true;
	return false;
}

bool pf_aapolicy_list_entry_skipped(const char *entry)
{
	return entry && (!*entry || !strcmp(entry, "@"));
}

/* lvm2's _lv_passes_volumes_filter: entries in order until one matches. */
size_t pf_aapolicy_list_first_match(const struct pf_aapolicy_list *list,
				    const struct pf_aapolicy_list *host_tags,
				    const struct pf_vg *vg, const struct pf_vg_lv *lv)
{
	size_t len = strlen(vg->name);

	for (size_t i = 0; i < list->n; i++) {
		const char *s = list->v[i];

		if (!s || pf_aapolicy_list_entry_skipped(s))
			continue;
		if (*s == '@') {
			s++;
			if (!strcmp(s, "*")) {
				if (host_tag_in(host_tags, lv->tags) ||
				    host_tag_in(host_tags, vg->tags))
					return i;
				continue;
			}
			if (tag_in(lv->tags, s) || tag_in(vg->tags, s))
				return i;
			continue;
		}
		/* compat: lvm2 compares the VG name as a prefix, then wants end or "/lv". */
		if (!strncmp(s, vg->name, len) &&
		    (!s[len] || (s[len] == '/' && !strcmp(s + len + 1, lv->name))))
			return i;
	}
	return list->n;
}

bool pf_aapolicy_list_matches(const struct pf_aapolicy_list *list,
			      const struct pf_aapolicy_list *host_tags, const struct pf_vg *vg,
			      const struct pf_vg_lv *lv)
{
	return pf_aapolicy_list_first_match(list, host_tags, vg, lv) < list->n;
}

/* activation/volume_list, or with it unset the host tags (lvm2's _passes_activation_filter). */
static bool passes_volume_list(const struct pf_aapolicy_input *in, const struct pf_vg *vg,
			       const struct pf_vg_lv *lv)
{
	if (in->volume_list.set)
		return pf_aapolicy_list_matches(&in->volume_list, &in->host_tags, vg, lv);
	if (!in->host_tags.n)
		return true;
	return host_tag_in(&in->host_tags, lv->tags) || host_tag_in(&in->host_tags, vg->tags);
}

static bool has_system_id(const char *s)
{
	return s && *s;
}

bool pf_aapolicy_system_id_allowed(const struct pf_aapolicy_input *in, const struct pf_vg *vg)
{
	if (!has_system_id(vg->system_id))
		return true;
	if (!in->system_id || in->system_id_unknown)
		return false;
	if (!strcmp(in->system_id, vg->system_id))
		return true;
	for (size_t i = 0; in->extra_system_ids.set && i < in->extra_system_ids.n; i++)
		if (!strcmp(in->extra_system_ids.v[i], vg->system_id))
			return true;
	return false;
}

static const char *vg_id_key(const void *ctx, size_t i)
{
	return ((const struct pf_vg *const *)ctx)[i]->id;
}

static const char *vg_name_key(const void *ctx, size_t i)
{
	return ((const struct pf_vg *const *)ctx)[i]->name;
}

static int cmp_str(const void *x, const void *y)
{
	return strcmp(*(const char *const *)x, *(const char *const *)y);
}

int pf_aapolicy_vgnames_find(const struct pf_aapolicy_input *in, const struct pf_vg *const *vgs,
			     size_t n, struct pf_aapolicy_vgnames *ret)
{
	struct pf_aapolicy_vgnames v = { .n = n };
	const struct pf_keyorder by_id = { vg_id_key, vgs }, by_name = { vg_name_key, vgs };
	_cleanup_free_ size_t *order = NULL;
	_cleanup_free_ bool *first = NULL;
	size_t m = 0;
	int r = -ENOMEM;

	order = calloc(n ? n : 1, sizeof(*order));
	first = calloc(n ? n : 1, sizeof(*first));
	v.taken_by = calloc(n ? n : 1, sizeof(*v.taken_by));
	v.ambiguous = calloc(n ? n : 1, sizeof(*v.ambiguous));
	if (!order || !first || !v.taken_by || !v.ambiguous)
		goto out;
	for (size_t i = 0; i < n; i++) {
		v.taken_by[i] = SIZE_MAX;
		if (vgs[i])
			order[m++] = i;
	}
	/* of the devices of one VG (one UUID), only the first in scan order is looked at */
	pf_keyorder_sort(&by_id, order, m);
	for (size_t g = 0; g < m; g = pf_keyorder_run_end(&by_id, order, m, g))
		first[order[g]] = true;
	/*
	 * Per name, in scan order: the first readable device (UUID A) is what any later VG with
	 * another UUID collides with first; a later device of UUID A collides first with the
	 * first readable one whose UUID is not A.
	 */
	pf_keyorder_sort(&by_name, order, m);
	for (size_t g = 0, e; g < m; g = e) {
		size_t a1 = SIZE_MAX, a2 = SIZE_MAX;
		bool any = false;

		e = pf_keyorder_run_end(&by_name, order, m, g);
		for (size_t x = g; x < e && a2 == SIZE_MAX; x++) {
			size_t k = order[x];

			if (!pf_aapolicy_system_id_allowed(in, vgs[k]))
				continue;
			if (a1 == SIZE_MAX)
				a1 = k;
			else if (strcmp(vgs[k]->id, vgs[a1]->id) != 0)
				a2 = k;
		}
		for (size_t x = g; x < e && a1 != SIZE_MAX; x++) {
			size_t i = order[x];
			size_t other = strcmp(vgs[i]->id, vgs[a1]->id) != 0 ? a1 : a2;

			if (!first[i] || other == SIZE_MAX || other >= i ||
			    !pf_aapolicy_system_id_allowed(in, vgs[i]))
				continue;
			v.taken_by[i] = other;
			any = true;
		}
		if (any)
			v.ambiguous[v.n_ambiguous++] = vgs[order[g]]->name;
	}
	/* sorted by name already, each name once */
	r = 0;
out:
	if (r < 0)
		pf_aapolicy_vgnames_release(&v);
	else
		*ret = v;
	return r;
}

void pf_aapolicy_vgnames_release(struct pf_aapolicy_vgnames *v)
{
	free(v->taken_by);
	free(v->ambiguous);
	*v = (struct pf_aapolicy_vgnames){ 0 };
}

bool pf_aapolicy_vgnames_taken(const struct pf_aapolicy_vgnames *v, size_t i, size_t *ret_other)
{
	if (i >= v->n || v->taken_by[i] == SIZE_MAX)
		return false;
	*ret_other = v->taken_by[i];
	return true;
}

bool pf_aapolicy_vgnames_ambiguous(const struct pf_aapolicy_vgnames *v, const char *name)
{
	return v->n_ambiguous &&
	       bsearch(&name, v->ambiguous, v->n_ambiguous, sizeof(*v->ambiguous), cmp_str);
}

static bool is_md_name(const char *name)
{
	return strncmp(name, "/dev/md", 7) == 0;
}

int pf_aapolicy_md_hint_moved(const struct pf_vg *vg, const char *const *online)
{
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		const char *hint = vg->pvs[i].device;

		if (hint && online[i] && online[i][0] && is_md_name(hint) && !is_md_name(online[i]))
			return (int)i;
	}
	return -1;
}

/* The check in vgchange_activate(): both IDs set and different, extra_system_ids or not. */
static bool foreign_for_activation(const struct pf_aapolicy_input *in, const struct pf_vg *vg)
{
	return has_system_id(vg->system_id) && has_system_id(in->system_id) &&
	       !in->system_id_unknown && strcmp(vg->system_id, in->system_id) != 0;
}

static bool is_shared(const struct pf_vg *vg)
{
	const char *t = vg->lock_type;

	return t && (!strcmp(t, "sanlock") || !strcmp(t, "dlm") || !strcmp(t, "idm"));
}

/* The VG gates in the mode's order; PF_AAPOLICY_VG_OK when the LVs are to be decided. */
static enum pf_aapolicy_vg_verdict vg_gates(const struct pf_vg *vg,
					    const struct pf_aapolicy_input *in, struct pf_aapolicy *p)
{
	bool access = pf_aapolicy_system_id_allowed(in, vg);

	if (in->mode == PF_AAPOLICY_PVSCAN) {
		/* pvscan's per-PV scan: these are ignored quietly, not failures. */
		if (is_shared(vg))
			return PF_AAPOLICY_VG_SHARED;
		if (foreign_for_activation(in, vg))
			return PF_AAPOLICY_VG_FOREIGN;
		if (vg->status & PF_VG_EXPORTED)
			return PF_AAPOLICY_VG_EXPORTED;
		if (p->n_missing_pvs)
			return PF_AAPOLICY_VG_INCOMPLETE;
		if (in->claim == PF_AAPOLICY_CLAIM_LOST)
			return PF_AAPOLICY_VG_CLAIMED;
		/* vg_read() without include_active_foreign_vgs: active LVs only earn a warning. */
		p->failed = true;
		if (!access) {
			p->foreign_active = p->n_active > 0;
			return PF_AAPOLICY_VG_FOREIGN;
		}
		if (vg->status & PF_VG_CLUSTERED)
			return PF_AAPOLICY_VG_CLUSTERED;
		if (!(vg->status & PF_VG_WRITE))
			return PF_AAPOLICY_VG_READ_ONLY;
		/* pvscan does not handle missing PVs when it reads the VG (vgchange does). */
		if (p->n_reappeared_pvs)
			return PF_AAPOLICY_VG_MISSING_PVS;
		p->failed = false;
		if (vg->status & PF_VG_NOAUTOACTIVATE)
			return PF_AAPOLICY_VG_NOAUTOACTIVATE;
		return PF_AAPOLICY_VG_OK;
	}

	p->failed = true;
	if (is_shared(vg))
		return PF_AAPOLICY_VG_SHARED;
	if (!access) {
		/* vgchange -a reads a foreign VG whose LVs are active, to let them go. */
		if (!p->n_active)
			return PF_AAPOLICY_VG_FOREIGN;
		p->foreign_active = true;
	}
	if (vg->status & PF_VG_CLUSTERED)
		return PF_AAPOLICY_VG_CLUSTERED;
	if (vg->status & PF_VG_EXPORTED)
		return PF_AAPOLICY_VG_EXPORTED;
	if (!(vg->status & PF_VG_WRITE))
		return PF_AAPOLICY_VG_READ_ONLY;
	if (foreign_for_activation(in, vg))
		return PF_AAPOLICY_VG_FOREIGN;
	p->failed = false;
	if (vg->status & PF_VG_NOAUTOACTIVATE)
		return PF_AAPOLICY_VG_NOAUTOACTIVATE;
	if (p->n_missing_pvs && !in->missing_pvs_ok)
		return PF_AAPOLICY_VG_INCOMPLETE;
	return PF_AAPOLICY_VG_OK;
}

/*
 * The gates of vgchange's _activate_lvs_in_vg() and what activation does after them, in the
 * order of the verdicts' stages (lv_verdicts[]).
 */
static int decide_lv(struct pf_lvgraph *g, const struct pf_aapolicy_input *in,
		     struct pf_aapolicy *p, unsigned i)
{
	const struct pf_vg *vg = g->vg;
	struct pf_aapolicy_lv *d = &p->lvs[i];
	unsigned t = i;
	const struct pf_vg_lv *lv;

	if (!g->visible[i]) {
		d->verdict = PF_AAPOLICY_LV_HIDDEN;
		return 0;
	}
	/* A sparse snapshot: its virtual origin is what gets activated. */
	if (pf_lvgraph_is_cow(g, i) && pf_lvgraph_is_virtual_origin(g, g->cow_origin[i]))
		t = (unsigned)g->cow_origin[i];
	lv = &vg->lvs[t];
	if ((g->role[t] & PF_LVGRAPH_SNAPSHOT) || pf_lvgraph_is_cow(g, t)) {
		d->verdict = PF_AAPOLICY_LV_SNAPSHOT;
		return 0;
	}
	if (g->role[t] & (PF_LVGRAPH_MIRROR_IMAGE | PF_LVGRAPH_MIRROR_LOG)) {
		d->verdict = PF_AAPOLICY_LV_MIRROR_PART;
		return 0;
	}
	if (g->role[t] & PF_LVGRAPH_VDO_POOL) {
		d->verdict = PF_AAPOLICY_LV_VDO_POOL;
		return 0;
	}
	d->target = (int)t;
	if (lv->status & PF_LV_ACTIVATION_SKIP) {
		d->verdict = PF_AAPOLICY_LV_ACTIVATION_SKIP;
		return 0;
	}
	if (in->auto_activation_volume_list.set &&
	    !pf_aapolicy_list_matches(&in->auto_activation_volume_list, &in->host_tags, vg, lv)) {
		d->verdict = PF_AAPOLICY_LV_NOT_IN_AUTO_LIST;
		return 0;
	}
	if (lv->status & PF_LV_NOAUTOACTIVATE) {
		d->verdict = PF_AAPOLICY_LV_NOAUTOACTIVATE;
		return 0;
	}
	/* lv_change_activate() */
	if (g->role[t] & PF_LVGRAPH_CACHE_POOL) {
		d->verdict = PF_AAPOLICY_LV_CACHE_POOL;
		return 0;
	}
	if (in->duplicate_pvs) {
		d->verdict = PF_AAPOLICY_LV_DUPLICATE_PVS;
		return 0;
	}
	if (in->mode == PF_AAPOLICY_PVSCAN && pf_lvgraph_integrity_recalc(g, t)) {
		d->verdict = PF_AAPOLICY_LV_INTEGRITY_RECALC;
		return 0;
	}
	/* activate_lv(), then _lv_activate() */
	if (!g->active[t]) {
		int c, r = pf_lvgraph_active_component(g, t, &c);

		if (r < 0)
			return r;
		if (c >= 0) {
			d->verdict = PF_AAPOLICY_LV_COMPONENT_ACTIVE;
			d->component = c;
			return 0;
		}
	}
	if (!passes_volume_list(in, vg, lv)) {
		d->verdict = PF_AAPOLICY_LV_NOT_IN_VOLUME_LIST;
		return 0;
	}
	d->partial = g->partial[t];
	if (d->partial && in->activation_mode != PF_AAPOLICY_MODE_PARTIAL) {
		bool raid = g->role[t] & (PF_LVGRAPH_RAID | PF_LVGRAPH_RAID_IMAGE);

		d->verdict = raid ? PF_AAPOLICY_LV_PARTIAL_RAID : PF_AAPOLICY_LV_PARTIAL;
		return 0;
	}
	if (g->role[t] & PF_LVGRAPH_UNKNOWN_SEG) {
		d->verdict = PF_AAPOLICY_LV_UNKNOWN_SEGMENT;
		return 0;
	}
	if (pf_lvgraph_raid_visible_sublvs(g, t)) {
		d->verdict = PF_AAPOLICY_LV_RAID_VISIBLE_SUBLVS;
		return 0;
	}
	d->verdict = g->active[t] ? PF_AAPOLICY_LV_ALREADY_ACTIVE : PF_AAPOLICY_LV_ACTIVATE;
	return 0;
}

/*
 * What vg_read makes of each PV: a MISSING flag on a present PV counts only while extents on
 * it are in use (compat). Also the top-level LVs already active.
 */
static void note_pvs_and_active(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
				const struct pf_lvgraph *g, struct pf_aapolicy *p)
{
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		bool present = !in->pv_present || in->pv_present[i];

		if (!present) {
			p->n_missing_pvs++;
			p->pvs[i] = PF_AAPOLICY_PV_ABSENT;
		} else if ((vg->pvs[i].status & PF_PV_MISSING) && g->pv_used[i]) {
			p->n_reappeared_pvs++;
			p->pvs[i] = PF_AAPOLICY_PV_REAPPEARED;
		} else if (vg->pvs[i].status & PF_PV_MISSING) {
			p->n_unused_reappeared++;
			p->pvs[i] = PF_AAPOLICY_PV_REAPPEARED_UNUSED;
		}
	}
	for (unsigned l = 0; l < vg->n_lvs; l++)
		if (g->visible[l] && g->active[l])
			p->n_active++;
}

int pf_aapolicy_decide(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
		       struct pf_aapolicy **ret)
{
	struct pf_lvgraph g = { 0 };
	struct pf_aapolicy *p = NULL;
	int r;

	if ((unsigned)in->mode >= _PF_AAPOLICY_MODE_MAX ||
	    (unsigned)in->claim >= _PF_AAPOLICY_CLAIM_MAX ||
	    (unsigned)in->activation_mode >= _PF_AAPOLICY_ACTIVATION_MODE_MAX)
		return -EINVAL;
	if (vg->n_lvs > PF_AAPOLICY_LVS_MAX)
		return -E2BIG;
	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->n_lvs = vg->n_lvs;
	p->lvs = calloc(vg->n_lvs ? vg->n_lvs : 1, sizeof(*p->lvs));
	p->pvs = calloc(vg->n_pvs ? vg->n_pvs : 1, sizeof(*p->pvs));
	r = p->lvs && p->pvs ? pf_lvgraph_build(vg, in->pv_present, in->lv_active, &g) : -ENOMEM;
	if (r < 0)
		goto out;

	note_pvs_and_active(vg, in, &g, p);
	for (unsigned i = 0; i < vg->n_lvs; i++) {
		p->lvs[i].verdict = PF_AAPOLICY_LV_NOT_REACHED;
		p->lvs[i].target = -1;
		p->lvs[i].component = -1;
		p->lvs[i].top_level = g.visible[i];
		p->lvs[i].holder = g.holder[i];
		p->lvs[i].partial = g.partial[i];
	}
	p->verdict = vg_gates(vg, in, p);
	for (unsigned i = 0; p->verdict == PF_AAPOLICY_VG_OK && i < vg->n_lvs; i++) {
		const struct pf_aapolicy_lv_verdict_info *v;

		r = decide_lv(&g, in, p, i);
		if (r < 0)
			goto out;
		v = pf_aapolicy_lv_verdict_info(p->lvs[i].verdict);
		if (v->stage >= PF_AAPOLICY_STAGE_REQUEST)
			p->n_expected++;
		if (v->error)
			p->failed = true;
	}
	*ret = TAKE_PTR(p);
	r = 0;
out:
	pf_lvgraph_release(&g);
	pf_aapolicy_free(p);
	return r;
}

struct pf_aapolicy *pf_aapolicy_free(struct pf_aapolicy *p)
{
	if (!p)
		return NULL;
	free(p->lvs);
	free(p->pvs);
	free(p);
	return NULL;
}

void pf_aapolicy_input_from_settings(const struct pf_settings *s, enum pf_aapolicy_mode mode,
				     struct pf_aapolicy_input *ret)
{
	/* The lists only gain const here; struct pf_settings still owns the strings. */
	*ret = (struct pf_aapolicy_input){
		.mode = mode,
		.auto_activation_volume_list = {
			.set = s->auto_activation_volume_list.set,
			.n = s->auto_activation_volume_list.n,
			.v = (const char *const *)s->auto_activation_volume_list.v,
		},
		.volume_list = {
			.set = s->volume_list.set,
			.n = s->volume_list.n,
			.v = (const char *const *)s->volume_list.v,
		},
		.host_tags = {
			.set = s->host_tags.set,
			.n = s->host_tags.n,
			.v = (const char *const *)s->host_tags.v,
		},
		.system_id = s->system_id,
		.system_id_unknown = s->system_id_unknown,
	};
}
