/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's printed lines for one VG's autoactivation, in its order and wording. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "activate/aamsg.h"
#include "activate/aapolicy.h"
#include "base/strutil.h"
#include "format/label.h"
#include "format/vg.h"

/* A string from the metadata as printed: the 128 bytes lvm2's lines show, each escaped. */
#define SHOWN_MAX (4U * 128U + 1U)

struct msgs {
	struct pf_aamsg *v;
	size_t cap, n;
	/* the VG's system ID and lock type as lines show them (pf_str_escape()) */
	char system_id[SHOWN_MAX], lock_type[SHOWN_MAX];
};

static void add(struct msgs *m, enum pf_aamsg_level level, bool prefix, const char *fmt, ...)
	_printf_(4, 5);

static void add(struct msgs *m, enum pf_aamsg_level level, bool prefix, const char *fmt, ...)
{
	va_list ap;

	if (m->n >= m->cap)
		return;
	m->v[m->n].level = level;
	m->v[m->n].pvscan_prefix = prefix;
	va_start(ap, fmt);
	(void)vsnprintf(m->v[m->n].text, sizeof(m->v[m->n].text), fmt, ap);
	va_end(ap);
	m->n++;
}

/*
 * After vg_read() failed with these FAILED_* bits: the quick path says it cannot read the VG;
 * process_each_vg (_ignore_vg) names the failure itself.
 */
static void read_failed(struct msgs *m, const struct pf_vg *vg, const struct pf_aapolicy_input *in,
			unsigned bits)
{
	if (!in->process_each) {
		add(m, PF_AAMSG_ERROR, true, "activation for VG %.128s cannot read (%x).",
		    vg->name, bits);
		return;
	}
	switch (bits) {
	case 0x400: /* FAILED_SYSTEMID: vg_read said it once already, _ignore_vg says it again */
		add(m, PF_AAMSG_ERROR, false,
		    "Cannot access VG %.128s with system ID %.128s with unknown local system ID.",
		    vg->name, m->system_id);
		break;
	case 0x40: /* FAILED_CLUSTERED */
		add(m, PF_AAMSG_ERROR, false, "Cannot access clustered VG %.128s.", vg->name);
		add(m, PF_AAMSG_ERROR, false,
		    "See lvmlockd(8) for changing a clvm/clustered VG to a shared VG.");
		break;
	default:
		add(m, PF_AAMSG_ERROR, false, "Cannot process volume group %.128s", vg->name);
		break;
	}
}

static void vg_messages_pvscan(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
			       const struct pf_aapolicy *p, struct msgs *m)
{
	switch (p->verdict) {
	case PF_AAPOLICY_VG_SHARED:
	case PF_AAPOLICY_VG_EXPORTED:
	case PF_AAPOLICY_VG_INCOMPLETE:
		return; /* printed per PV by the scan */
	case PF_AAPOLICY_VG_FOREIGN:
		if (!p->failed)
			return;
		break;
	case PF_AAPOLICY_VG_CLAIMED:
		add(m, PF_AAMSG_PRINT, true, "VG %.128s skip autoactivation.", vg->name);
		return;
	default:
		break;
	}
	if (in->claim == PF_AAPOLICY_CLAIM_WON)
		add(m, PF_AAMSG_PRINT, true, "VG %.128s run autoactivation.", vg->name);
	switch (p->verdict) {
	case PF_AAPOLICY_VG_FOREIGN:
		if (p->foreign_active)
			add(m, PF_AAMSG_WARN, false,
			    "WARNING: Found LVs active in VG %.128s with foreign system ID %.128s.  Possible data corruption.",
			    vg->name, m->system_id);
		else
			add(m, PF_AAMSG_ERROR, false,
			    "Cannot access VG %.128s with system ID %.128s with unknown local system ID.",
			    vg->name, m->system_id);
		read_failed(m, vg, in, 0x400);
		break;
	case PF_AAPOLICY_VG_CLUSTERED:
		add(m, PF_AAMSG_VERBOSE, false, "Skipping clustered VG %.128s.", vg->name);
		read_failed(m, vg, in, 0x40);
		break;
	case PF_AAPOLICY_VG_READ_ONLY:
		add(m, PF_AAMSG_ERROR, false, "Volume group %.128s is read-only.", vg->name);
		read_failed(m, vg, in, 0x8);
		break;
	case PF_AAPOLICY_VG_MISSING_PVS:
		add(m, PF_AAMSG_ERROR, false,
		    "Cannot change VG %.128s while PVs are missing.", vg->name);
		add(m, PF_AAMSG_ERROR, false,
		    "See vgreduce --removemissing and vgextend --restoremissing.");
		read_failed(m, vg, in, 0x1);
		break;
	case PF_AAPOLICY_VG_NOAUTOACTIVATE:
		add(m, PF_AAMSG_DEBUG, false, "Autoactivation is disabled for VG %.128s.",
		    vg->name);
		break;
	default:
		break;
	}
}

static void vg_messages_vgchange(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
				 const struct pf_aapolicy *p, struct msgs *m)
{
	bool unknown = !in->system_id || !*in->system_id || in->system_id_unknown;

	if (p->foreign_active)
		add(m, PF_AAMSG_WARN, false,
		    "WARNING: Found LVs active in VG %.128s with foreign system ID %.128s.  Possible data corruption.",
		    vg->name, m->system_id);
	switch (p->verdict) {
	case PF_AAPOLICY_VG_SHARED:
		add(m, PF_AAMSG_ERROR, false,
		    "Cannot access VG %.128s with lock type %.64s that requires lvmlockd.",
		    vg->name, m->lock_type);
		break;
	case PF_AAPOLICY_VG_FOREIGN:
		if (p->foreign_active || pf_aapolicy_system_id_allowed(in, vg)) {
			/* Read, but vgchange_activate() refuses. */
			add(m, PF_AAMSG_ERROR, false,
			    "Cannot activate LVs in a foreign VG.");
		} else if (unknown) {
			/* vg_read() prints this itself, then process_each_vg() again. */
			for (int k = 0; k < 2; k++)
				add(m, PF_AAMSG_ERROR, false,
				    "Cannot access VG %.128s with system ID %.128s with unknown local system ID.",
				    vg->name, m->system_id);
		} else {
			add(m, PF_AAMSG_ERROR, false,
			    "Cannot access VG %.128s with system ID %.128s with local system ID %.128s.",
			    vg->name, m->system_id, in->system_id);
		}
		break;
	case PF_AAPOLICY_VG_CLUSTERED:
		add(m, PF_AAMSG_VERBOSE, false, "Skipping clustered VG %.128s.", vg->name);
		add(m, PF_AAMSG_ERROR, false, "Cannot access clustered VG %.128s.",
		    vg->name);
		add(m, PF_AAMSG_ERROR, false,
		    "See lvmlockd(8) for changing a clvm/clustered VG to a shared VG.");
		break;
	case PF_AAPOLICY_VG_EXPORTED:
		add(m, PF_AAMSG_ERROR, false, "Volume group %.128s is exported", vg->name);
		break;
	case PF_AAPOLICY_VG_READ_ONLY:
		add(m, PF_AAMSG_ERROR, false, "Volume group %.128s is read-only.", vg->name);
		add(m, PF_AAMSG_ERROR, false, "Cannot process volume group %.128s",
		    vg->name);
		break;
	case PF_AAPOLICY_VG_NOAUTOACTIVATE:
		add(m, PF_AAMSG_DEBUG, false, "Autoactivation is disabled for VG %.128s.",
		    vg->name);
		break;
	case PF_AAPOLICY_VG_INCOMPLETE:
		add(m, PF_AAMSG_PRINT, false, "VG %.128s is incomplete.", vg->name);
		break;
	default:
		break;
	}
}

int pf_aamsg_vg(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
		const struct pf_aapolicy *p, struct pf_aamsg *ret, size_t n)
{
	struct msgs m = { .v = ret, .cap = ret ? n : 0 };

	/* lvm2 prints them raw; a crafted PV could then write escape sequences to a terminal */
	(void)pf_str_escape(vg->system_id ? vg->system_id : "", m.system_id, sizeof(m.system_id));
	(void)pf_str_escape(vg->lock_type ? vg->lock_type : "", m.lock_type, sizeof(m.lock_type));
	if (in->mode == PF_AAPOLICY_PVSCAN)
		vg_messages_pvscan(vg, in, p, &m);
	else
		vg_messages_vgchange(vg, in, p, &m);
	if (p->verdict == PF_AAPOLICY_VG_OK && p->n_active)
		add(&m, PF_AAMSG_VERBOSE, false,
		    "%u logical volume(s) in volume group \"%.128s\" already active", p->n_active,
		    vg->name);
	return (int)m.n;
}

int pf_aamsg_read(const struct pf_vg *vg, const struct pf_aapolicy *p,
		  const struct pf_aamsg_copy *copies, size_t n_copies, const char *const *pv_dev,
		  struct pf_aamsg *ret, size_t n)
{
	struct msgs m = { .v = ret, .cap = ret ? n : 0 };
	const struct pf_aamsg_copy *best = NULL;
	bool old = false;
	char id[PF_ID_DASHED_LEN + 1];

	/* The newest copy wins; every other seqno met on the way is named against it. */
	for (size_t i = 0; copies && i < n_copies; i++) {
		const struct pf_aamsg_copy *c = &copies[i], *lost;

		if (!best || c->seqno == best->seqno) {
			best = best ? best : c;
			continue;
		}
		lost = c->seqno > best->seqno ? best : c;
		if (lost == best)
			best = c;
		add(&m, PF_AAMSG_WARN, false,
		    "WARNING: ignoring metadata seqno %u on %.200s for seqno %u on %.200s for VG %.128s.",
		    lost->seqno, lost->dev, best->seqno, best->dev, vg->name);
		old = true;
	}
	if (old) {
		add(&m, PF_AAMSG_WARN, false, "WARNING: Inconsistent metadata found for VG %.128s.",
		    vg->name);
		add(&m, PF_AAMSG_WARN, false, "See vgck --updatemetadata to correct inconsistency.");
	}
	/* set_pv_devices() first, then the check of every PV (lvm2's _vg_read order). */
	for (unsigned i = 0; i < vg->n_pvs; i++)
		if ((vg->pvs[i].status & PF_PV_MISSING) && pv_dev[i])
			add(&m, PF_AAMSG_WARN, false,
			    "WARNING: VG %.128s was previously updated while PV %.200s was missing.",
			    vg->name, pv_dev[i]);
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		if (!pv_dev[i] || (p->pvs[i] != PF_AAPOLICY_PV_REAPPEARED &&
				   p->pvs[i] != PF_AAPOLICY_PV_REAPPEARED_UNUSED))
			continue;
		pf_id_format_dashed(vg->pvs[i].id, id);
		add(&m, PF_AAMSG_WARN, false, "WARNING: VG %.128s %s PV %.200s %s.", vg->name,
		    p->pvs[i] == PF_AAPOLICY_PV_REAPPEARED ? "was missing" : "has unused reappeared",
		    pv_dev[i], id);
	}
	return (int)m.n;
}

static void ignoring(struct msgs *m, const char *setting, bool tag)
{
	/* lvm2's two lines differ in the final period */
	if (tag)
		add(m, PF_AAMSG_PRINT, false, "Ignoring empty tag in config file activation/%s",
		    setting);
	else
		add(m, PF_AAMSG_PRINT, false,
		    "Ignoring empty string in config file activation/%s.", setting);
}

/* The lines of lvm2's list check (_lv_passes_volumes_filter) for one LV. */
static void list_lines(struct msgs *m, const char *setting, const struct pf_aapolicy_list *list,
		       const struct pf_aapolicy_input *in, const struct pf_vg *vg,
		       const struct pf_vg_lv *lv)
{
	size_t hit = pf_aapolicy_list_first_match(list, &in->host_tags, vg, lv);

	add(m, PF_AAMSG_VERBOSE, false,
	    "activation/%s configuration setting defined: Checking the list to match %.128s/%.128s.",
	    setting, vg->name, lv->name);
	for (size_t k = 0; k < hit; k++)
		if (pf_aapolicy_list_entry_skipped(list->v[k]))
			ignoring(m, setting, *list->v[k] == '@');
	if (hit == list->n)
		add(m, PF_AAMSG_VERBOSE, false,
		    "No item supplied in activation/%s configuration setting matches %.128s/%.128s.",
		    setting, vg->name, lv->name);
}

int pf_aamsg_lv(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
		const struct pf_aapolicy *p, unsigned i, struct pf_aamsg *ret, size_t n)
{
	struct msgs m = { .v = ret, .cap = ret ? n : 0 };
	const struct pf_aapolicy_lv_verdict_info *info;
	const struct pf_aapolicy_lv *d;
	const struct pf_vg_lv *lv;
	const char *vgn = vg->name, *in_the_way = "";

	if (i >= p->n_lvs || i >= vg->n_lvs || p->lvs[i].target < 0 ||
	    (unsigned)p->lvs[i].target >= vg->n_lvs)
		return 0;
	d = &p->lvs[i];
	lv = &vg->lvs[d->target];
	info = pf_aapolicy_lv_verdict_info(d->verdict);
	if (d->verdict == PF_AAPOLICY_LV_COMPONENT_ACTIVE) {
		if (d->component < 0 || (unsigned)d->component >= vg->n_lvs)
			return 0;
		in_the_way = vg->lvs[d->component].name;
	}
	if (info->stage >= PF_AAPOLICY_STAGE_AUTO_LIST) {
		if (in->auto_activation_volume_list.set)
			list_lines(&m, "auto_activation_volume_list",
				   &in->auto_activation_volume_list, in, vg, lv);
		else
			add(&m, PF_AAMSG_VERBOSE, false,
			    "activation/auto_activation_volume_list configuration setting not defined: All logical volumes will be auto-activated.");
	}
	if (info->stage >= PF_AAPOLICY_STAGE_ACTIVATE)
		add(&m, PF_AAMSG_VERBOSE, false, "Activating logical volume %.128s/%.128s.", vgn,
		    lv->name);
	if (info->stage >= PF_AAPOLICY_STAGE_VOLUME_LIST) {
		if (in->volume_list.set) {
			list_lines(&m, "volume_list", &in->volume_list, in, vg, lv);
		} else {
			add(&m, PF_AAMSG_VERBOSE, false,
			    "activation/volume_list configuration setting not defined: Checking only host tags for %.128s/%.128s.",
			    vgn, lv->name);
			if (d->verdict == PF_AAPOLICY_LV_NOT_IN_VOLUME_LIST)
				add(&m, PF_AAMSG_VERBOSE, false, "No host tag matches %.128s/%.128s",
				    vgn, lv->name);
		}
	}
	if (info->line)
		add(&m, info->level, false, info->line, vgn, lv->name, vgn, in_the_way);
	return (int)m.n;
}
