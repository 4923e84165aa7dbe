/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Whether an incomplete VG goes to lvm2 in degraded mode once its deadline has passed. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activate/degraded.h"
#include "base/clock.h"
#include "format/cfg.h"
#include "format/vg.h"

/* The segment type without lvm2's "+FLAG" suffixes is name. */
static bool type_is(const struct pf_vg_seg *seg, const char *name)
{
	size_t n = strlen(name);

	return strncmp(seg->type, name, n) == 0 && (seg->type[n] == '\0' || seg->type[n] == '+');
}

static bool type_has_prefix(const struct pf_vg_seg *seg, const char *prefix)
{
	return strncmp(seg->type, prefix, strlen(prefix)) == 0;
}

/* A sub-LV lvm2 counts as failed: absent from the metadata, or on a missing PV. */
static bool sub_failed(const struct pf_vg *vg, const struct pf_aapolicy *p, const char *name,
		       bool *integrity)
{
	const struct pf_vg_lv *lv = pf_vg_find_lv(vg, name);

	if (!lv)
		return true;
	if (lv->n_segs && type_is(&lv->segs[0], "integrity"))
		*integrity = true;
	return p->lvs[lv - vg->lvs].partial;
}

/*
 * raid10 as lvm2 2.03.16 counts it (two copies): walking the images twice round, in groups of
 * two consecutive positions, a group whose both positions failed has lost data.
 */
static bool raid10_group_lost(const bool *failed, unsigned n)
{
	unsigned in_group = 0;

	for (unsigned i = 0; i < 2 * n; i++) {
		if (i % 2 == 0)
			in_group = 0;
		if (failed[i % n])
			in_group++;
		if (in_group >= 2)
			return true;
	}
	return false;
}

/*
 * A partial raid LV: lvm2's partial_raid_lv_supports_degraded_activation(). Each leg is a
 * metadata and image pair ("raids"), or an image alone (raid0's "raid0_lvs"); a leg failed
 * when either part did.
 */
static enum pf_degraded_lv classify_raid(const struct pf_vg *vg, const struct pf_aapolicy *p,
					 unsigned t)
{
	const struct pf_vg_lv *lv = &vg->lvs[t];
	const struct pf_vg_seg *seg = lv->n_segs ? &lv->segs[0] : NULL;
	const struct pf_cfg_value *v;
	_cleanup_free_ bool *failed = NULL;
	unsigned n = 0, n_failed = 0, parity = 0, pos = 0;
	bool pairs, integrity = false, leg_failed = false;

	if (!seg)
		return PF_DEGRADED_LV_PARTIAL;
	pairs = pf_cfg_get_list(seg->raw, "raids", &v) == 0;
	if (!pairs && pf_cfg_get_list(seg->raw, "raid0_lvs", &v) < 0)
		return PF_DEGRADED_LV_LOST;
	failed = calloc(PF_SEG_AREAS_MAX, sizeof(*failed));
	if (!failed)
		return PF_DEGRADED_LV_LOST; /* refusing is the safe answer */
	for (; v && n < PF_SEG_AREAS_MAX; v = v->next, pos++) {
		bool f = v->type != PF_CFG_STRING || sub_failed(vg, p, v->v.s, &integrity);

		leg_failed |= f;
		if (pairs && pos % 2 == 0)
			continue; /* the metadata half of the leg */
		failed[n] = leg_failed;
		n_failed += leg_failed;
		leg_failed = false;
		n++;
	}
	if (integrity)
		return PF_DEGRADED_LV_INTEGRITY;
	if (n == 0 || n_failed == n)
		return PF_DEGRADED_LV_LOST;
	if (type_is(seg, "raid10"))
		return raid10_group_lost(failed, n) ? PF_DEGRADED_LV_LOST : PF_DEGRADED_LV_REDUNDANT;
	if (type_has_prefix(seg, "raid0"))
		return n_failed ? PF_DEGRADED_LV_STRIPED : PF_DEGRADED_LV_REDUNDANT;
	if (type_has_prefix(seg, "raid4") || type_has_prefix(seg, "raid5"))
		parity = 1;
	else if (type_has_prefix(seg, "raid6"))
		parity = 2;
	if (parity && n_failed > parity)
		return PF_DEGRADED_LV_LOST;
	return PF_DEGRADED_LV_REDUNDANT;
}

static enum pf_degraded_lv classify(const struct pf_vg *vg, const struct pf_aapolicy *p, unsigned i)
{
	const struct pf_aapolicy_lv *d = &p->lvs[i];

	switch (d->verdict) {
	case PF_AAPOLICY_LV_ACTIVATE:
	case PF_AAPOLICY_LV_ALREADY_ACTIVE:
		return PF_DEGRADED_LV_COMPLETE;
	case PF_AAPOLICY_LV_PARTIAL:
		return PF_DEGRADED_LV_PARTIAL;
	case PF_AAPOLICY_LV_PARTIAL_RAID:
		return classify_raid(vg, p, (unsigned)d->target);
	default:
		return PF_DEGRADED_LV_NONE;
	}
}

/* The VG's LVs under `vgchange -aay --activationmode degraded`; 0 or the policy's error. */
static int decide_lvs(const struct pf_degraded_input *in, struct pf_degraded *d)
{
	const struct pf_vg *vg = in->vg;
	struct pf_aapolicy_input pin = *in->policy;
	struct pf_aapolicy *p = NULL;
	int r, striped = -1, refused = -1, redundant = -1;

	pin.mode = PF_AAPOLICY_VGCHANGE_EVENT;
	pin.claim = PF_AAPOLICY_CLAIM_NONE;
	pin.activation_mode = PF_AAPOLICY_MODE_DEGRADED;
	pin.missing_pvs_ok = true;
	pin.process_each = true;
	r = pf_aapolicy_decide(vg, &pin, &p);
	if (r < 0)
		return r;
	if (p->verdict != PF_AAPOLICY_VG_OK) {
		d->action = PF_DEGRADED_REFUSE;
		d->reason = pf_aapolicy_vg_verdict_reason(p->verdict);
		pf_aapolicy_free(p);
		return 0;
	}
	d->lvs = calloc(vg->n_lvs ? vg->n_lvs : 1, sizeof(*d->lvs));
	if (!d->lvs) {
		pf_aapolicy_free(p);
		return -ENOMEM;
	}
	d->n_lvs = vg->n_lvs;
	for (unsigned i = 0; i < vg->n_lvs; i++) {
		enum pf_degraded_lv c = classify(vg, p, i);

		d->lvs[i] = c;
		if (c == PF_DEGRADED_LV_COMPLETE) {
			d->n_complete++;
		} else if (c == PF_DEGRADED_LV_REDUNDANT) {
			d->n_redundant++;
			if (redundant < 0)
				redundant = (int)i;
		} else if (c != PF_DEGRADED_LV_NONE) {
			d->n_refused++;
			if (c == PF_DEGRADED_LV_STRIPED && striped < 0)
				striped = (int)i;
			if (refused < 0)
				refused = (int)i;
		}
	}
	pf_aapolicy_free(p);
	if (striped >= 0) {
		d->action = PF_DEGRADED_REFUSE;
		d->why_lv = striped;
		d->reason = "raid0 LV would run with legs missing";
	} else if (redundant < 0) {
		d->action = PF_DEGRADED_REFUSE;
		d->why_lv = refused;
		d->reason = refused >= 0 ? "no LV can run degraded" : "no LV needs the missing PVs";
	} else {
		d->action = PF_DEGRADED_ACTIVATE;
		d->why_lv = redundant;
		d->reason = "raid LV runs degraded";
	}
	return 0;
}

int pf_degraded_decide(const struct pf_degraded_input *in, struct pf_degraded *ret)
{
	struct pf_degraded d = { .why_lv = -1 };
	const struct pf_vg *vg = in->vg;
	int r;

	if (!in->policy || !vg)
		return -EINVAL;
	for (unsigned i = 0; i < vg->n_pvs; i++)
		if (in->policy->pv_present && !in->policy->pv_present[i])
			d.n_missing_pvs++;
	d.deadline_ns = in->first_seen_ns + (uint64_t)in->timeout_sec * NSEC_PER_SEC;
	if (!in->enabled) {
		d.action = PF_DEGRADED_OFF;
		d.reason = "degraded activation is off";
	} else if (d.n_missing_pvs == 0) {
		d.action = PF_DEGRADED_COMPLETE;
		d.reason = "every PV is present";
	} else if (in->claimed) {
		d.action = PF_DEGRADED_CLAIMED;
		d.reason = "already claimed for activation";
	} else if (in->now_ns < d.deadline_ns) {
		d.action = PF_DEGRADED_WAIT;
		d.reason = "deadline not reached";
	} else if ((r = decide_lvs(in, &d)) < 0) {
		pf_degraded_release(&d);
		return r;
	}
	*ret = d;
	return 0;
}

void pf_degraded_release(struct pf_degraded *d)
{
	if (!d)
		return;
	free(d->lvs);
	d->lvs = NULL;
	d->n_lvs = 0;
}

const char *pf_degraded_action_name(enum pf_degraded_action a)
{
	static const char *const names[] = {
		[PF_DEGRADED_OFF] = "off",	     [PF_DEGRADED_COMPLETE] = "complete",
		[PF_DEGRADED_CLAIMED] = "claimed",   [PF_DEGRADED_WAIT] = "wait",
		[PF_DEGRADED_REFUSE] = "refuse",     [PF_DEGRADED_ACTIVATE] = "activate",
	};

	return (unsigned)a < _PF_DEGRADED_ACTION_MAX ? names[a] : "?";
}

char *pf_degraded_describe(const struct pf_degraded *d, const struct pf_vg *vg, char *buf,
			   size_t size)
{
	static const char *const lv_words[] = {
		[PF_DEGRADED_LV_NONE] = "is not autoactivated",
		[PF_DEGRADED_LV_COMPLETE] = "uses no missing PV",
		[PF_DEGRADED_LV_REDUNDANT] = "keeps enough legs",
		[PF_DEGRADED_LV_LOST] = "lost more legs than its raid level survives",
		[PF_DEGRADED_LV_STRIPED] = "is raid0 and lost a leg",
		[PF_DEGRADED_LV_INTEGRITY] = "is raid over integrity images",
		[PF_DEGRADED_LV_PARTIAL] = "needs a missing PV",
	};
	const char *reason = d->reason ? d->reason : "";

	if (size == 0)
		return buf;
	if (d->why_lv >= 0 && (unsigned)d->why_lv < vg->n_lvs && d->lvs &&
	    (unsigned)d->why_lv < d->n_lvs)
		(void)snprintf(buf, size, "%s: LV %s %s (%u of %u PVs missing; LVs: %u complete, "
			       "%u degraded, %u refused)", reason, vg->lvs[d->why_lv].name,
			       lv_words[d->lvs[d->why_lv]], d->n_missing_pvs, vg->n_pvs,
			       d->n_complete, d->n_redundant, d->n_refused);
	else
		(void)snprintf(buf, size, "%s (%u of %u PVs missing)", reason, d->n_missing_pvs,
			       vg->n_pvs);
	return buf;
}
