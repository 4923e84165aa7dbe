/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The per-PV decisions and state writes of `pvscan --cache`, in lvm2 2.03.16's order. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "scan/pvcache.h"
#include "state/state.h"

void pf_pvcache_init(struct pf_pvcache *ps, const char *run_dir, unsigned flags,
		    const char *host_system_id)
{
	memset(ps, 0, sizeof(*ps));
	ps->run_dir = run_dir;
	ps->flags = flags;
	ps->host_system_id = host_system_id;
}

void pf_pvcache_release(struct pf_pvcache *ps)
{
	if (!ps)
		return;
	free(ps->events);
	free(ps->complete_vgs);
	ps->events = NULL;
	ps->complete_vgs = NULL;
}

static void copy_name(char *dst, const char *src)
{
	size_t n = src ? strnlen(src, PF_NAME_MAX) : 0;

	memcpy(dst, src ? src : "", n);
	dst[n] = '\0';
}

/* Append an event; the caller fills the rest through the returned pointer. */
static struct pf_event *event_add(struct pf_pvcache *ps, enum pf_event_kind kind, const char *dev,
				  const char *vg)
{
	struct pf_event *e;

	if (pf_grow(&ps->events, &ps->cap_events, ps->n_events + 1, PF_PVCACHE_EVENTS_MAX) < 0)
		return NULL;
	e = &ps->events[ps->n_events++];
	memset(e, 0, sizeof(*e));
	e->kind = kind;
	e->dev = dev;
	copy_name(e->vg, vg);
	return e;
}

static int emit(struct pf_pvcache *ps, enum pf_event_kind kind, const char *dev, const char *vg)
{
	return event_add(ps, kind, dev, vg) ? 0 : -ENOMEM;
}

static int add_complete(struct pf_pvcache *ps, const char *vg)
{
	int r = pf_grow(&ps->complete_vgs, &ps->cap_complete, ps->n_complete + 1,
			PF_PVCACHE_EVENTS_MAX);

	if (r < 0)
		return r;
	copy_name(ps->complete_vgs[ps->n_complete++], vg);
	return 0;
}

/* lvm2's lockd types: a VG using one is activated by lvmlockd-aware services, not pvscan. */
static bool vg_is_shared(const struct pf_vg *vg)
{
	return vg->lock_type && (strcmp(vg->lock_type, "sanlock") == 0 ||
				 strcmp(vg->lock_type, "dlm") == 0 ||
				 strcmp(vg->lock_type, "idm") == 0);
}

/* Foreign only when both the VG and this host have a system ID and they differ. */
static bool vg_is_foreign(const struct pf_pvcache *ps, const struct pf_vg *vg)
{
	return vg->system_id && vg->system_id[0] && ps->host_system_id &&
	       ps->host_system_id[0] && strcmp(vg->system_id, ps->host_system_id) != 0;
}

/* PVIDs of a VG's PVs in metadata order, for state counting and the lookup file. */
static int vg_pvids(const struct pf_vg *vg, const char ***ret)
{
	const char **ids = calloc(vg->n_pvs ? vg->n_pvs : 1, sizeof(*ids));

	if (!ids)
		return -ENOMEM;
	for (unsigned i = 0; i < vg->n_pvs; i++)
		ids[i] = vg->pvs[i].id;
	*ret = ids;
	return 0;
}

struct completeness {
	const char *vgname; /* NULL: unknown */
	char lookup_vg[PF_NAME_MAX + 1];
	bool unknown;
	size_t offline;
};

/* Count online PVs of the VG; with > 1 PV, claim the lookup file and recheck if we made it. */
static int check_vg(struct pf_pvcache *ps, const char *dev, const struct pf_vg *vg,
		    struct completeness *c)
{
	_cleanup_free_ const char **ids = NULL;
	size_t online;
	int write_err, r;

	r = vg_pvids(vg, &ids);
	if (r < 0)
		return r;
	r = pf_state_count_online(ps->run_dir, ids, vg->n_pvs, &online);
	if (r < 0)
		return r;
	c->offline = vg->n_pvs - online;
	c->vgname = vg->name;
	if (vg->n_pvs <= 1)
		return 0;
	r = pf_state_lookup_write(ps->run_dir, vg->name, ids, vg->n_pvs, &write_err);
	if (r == -EEXIST)
		return 0;
	if (r < 0)
		return r;
	/* compat: lvm2 names each PVID it could not write, and goes on with the empty file. */
	for (unsigned i = 0; write_err < 0 && i < vg->n_pvs; i++) {
		struct pf_event *e = event_add(ps, PF_EV_LOOKUP_WRITE_FAILED, dev, vg->name);

		if (!e)
			return -ENOMEM;
		memcpy(e->pvid, ids[i], PF_ID_LEN + 1);
		e->err = write_err;
		e->run_dir = ps->run_dir;
	}
	/*
	 * compat: lvm2 rechecks after creating the lookup file: a concurrent
	 * pvscan of a PV without metadata may have looked for it and missed.
	 */
	if (c->offline) {
		r = pf_state_count_online(ps->run_dir, ids, vg->n_pvs, &online);
		if (r < 0)
			return r;
		c->offline = vg->n_pvs - online;
		if (!c->offline)
			return emit(ps, PF_EV_COMPLETE_AFTER_RECHECK, dev, vg->name);
	}
	return 0;
}

/* A PV without metadata: the lookup file written by another PV of its VG names its peers. */
static int check_lookup(struct pf_pvcache *ps, const char *pvid, struct completeness *c)
{
	struct pf_state_lookup l;
	_cleanup_free_ const char **ids = NULL;
	size_t online;
	int r;

	r = pf_state_lookup_find(ps->run_dir, pvid, &l);
	if (r == -ENOENT) {
		c->unknown = true;
		return 0;
	}
	if (r < 0)
		return r;
	ids = calloc(l.n_pvids ? l.n_pvids : 1, sizeof(*ids));
	if (!ids) {
		pf_state_lookup_release(&l);
		return -ENOMEM;
	}
	for (size_t i = 0; i < l.n_pvids; i++)
		ids[i] = l.pvids[i];
	r = pf_state_count_online(ps->run_dir, ids, l.n_pvids, &online);
	if (r == 0) {
		c->offline = l.n_pvids - online;
		copy_name(c->lookup_vg, l.vgname);
		c->vgname = c->lookup_vg;
	}
	pf_state_lookup_release(&l);
	return r;
}

static bool seg_is_snapshot(const struct pf_vg_seg *seg)
{
	return seg->type && seg->raw && strcmp(seg->type, "snapshot") == 0;
}

static bool lv_is_snapshot(const struct pf_vg_lv *lv)
{
	for (unsigned s = 0; s < lv->n_segs; s++)
		if (seg_is_snapshot(&lv->segs[s]))
			return true;
	return false;
}

static bool vg_has_snapshots(const struct pf_vg *vg)
{
	for (unsigned l = 0; l < vg->n_lvs; l++)
		if (lv_is_snapshot(&vg->lvs[l]))
			return true;
	return false;
}

/* A snapshot segment's origin and COW store, NULL when it does not name both. */
static const struct pf_vg_lv *snapshot_parts(const struct pf_vg *vg, const struct pf_vg_seg *seg,
					     const struct pf_vg_lv **ret_cow, bool *ret_merging)
{
	const char *origin, *cow;
	bool merging = false;

	if (pf_cfg_get_str(seg->raw, "merging_store", &cow) == 0)
		merging = true;
	else if (pf_cfg_get_str(seg->raw, "cow_store", &cow) < 0)
		return NULL;
	if (pf_cfg_get_str(seg->raw, "origin", &origin) < 0)
		return NULL;
	*ret_cow = pf_vg_find_lv(vg, cow);
	*ret_merging = merging;
	return *ret_cow ? pf_vg_find_lv(vg, origin) : NULL;
}

/* The origin of the snapshot whose COW store lv is, or NULL. */
static const struct pf_vg_lv *cow_origin(const struct pf_vg *vg, const struct pf_vg_lv *lv,
					 bool *ret_merging)
{
	for (unsigned l = 0; l < vg->n_lvs; l++)
		for (unsigned s = 0; s < vg->lvs[l].n_segs; s++) {
			const struct pf_vg_seg *seg = &vg->lvs[l].segs[s];
			const struct pf_vg_lv *origin, *cow;

			if (!seg_is_snapshot(seg))
				continue;
			origin = snapshot_parts(vg, seg, &cow, ret_merging);
			if (origin && cow == lv)
				return origin;
		}
	return NULL;
}

/*
 * lvm2's lv_is_visible(): the internal "snapshotN" LV never is, whatever its
 * flags say; the COW store it names is, though written without VISIBLE, unless
 * the snapshot is merging into a visible origin (an invisible origin is lvm2's
 * virtual origin of a sparse snapshot, whose COW stays visible). snaps: the VG
 * has snapshots at all, so the search for a COW's snapshot is worth doing.
 */
static bool lv_is_visible(const struct pf_vg *vg, const struct pf_vg_lv *lv, bool snaps)
{
	const struct pf_vg_lv *origin;
	bool merging;

	if (!snaps || (lv->status & PF_LV_VISIBLE))
		return (lv->status & PF_LV_VISIBLE) && !(snaps && lv_is_snapshot(lv));
	origin = cow_origin(vg, lv, &merging);
	return origin && (!merging || !(origin->status & PF_LV_VISIBLE));
}

/* All PVs the LV maps onto are online; used is scratch of vg->n_pvs. */
static bool own_complete(const struct pf_vg *vg, const struct pf_vg_lv *lv, const bool *online,
			 bool *used)
{
	memset(used, 0, vg->n_pvs * sizeof(*used));
	pf_vg_lv_mark_pvs(vg, lv, used);
	for (unsigned i = 0; i < vg->n_pvs; i++)
		if (used[i] && !online[i])
			return false;
	return true;
}

/*
 * Whether lvm2 leaves the LV unmarked partial. lvm2 marks LVs in one
 * depth-first walk over the VG's LVs in order, in which an origin also
 * depends on its snapshots' COW stores and a COW store on its origin. The walk
 * enters that cycle at the group's first LV in VG order: the first sees every
 * other member, the others, reached from it while it is still open, see only
 * their own PVs (and an origin reached from its first COW every other COW).
 */
static bool lv_complete(const struct pf_vg *vg, const struct pf_vg_lv *lv, const bool *online,
			bool *used, bool snaps)
{
	const struct pf_vg_lv *origin = NULL, *first;
	bool merging;

	if (!own_complete(vg, lv, online, used))
		return false;
	if (!snaps)
		return true;
	origin = cow_origin(vg, lv, &merging);
	if (!origin)
		origin = lv;
	first = origin;
	for (int pass = 0; pass < 2; pass++) {
		for (unsigned l = 0; l < vg->n_lvs; l++)
			for (unsigned s = 0; s < vg->lvs[l].n_segs; s++) {
				const struct pf_vg_seg *seg = &vg->lvs[l].segs[s];
				const struct pf_vg_lv *cow;

				if (!seg_is_snapshot(seg) ||
				    snapshot_parts(vg, seg, &cow, &merging) != origin)
					continue;
				if (pass == 0 && cow < first)
					first = cow;
				if (pass == 1 && cow != lv && cow != first &&
				    !own_complete(vg, cow, online, used))
					return false;
			}
		/* A COW the walk reaches from the group's first LV sees only itself. */
		if (pass == 0 && lv != origin && lv != first)
			return true;
	}
	/* The origin, or the first COW, which also sees the origin. */
	return lv == origin || own_complete(vg, origin, online, used);
}

/* --listlvs: the visible LVs using this PV, and whether all their PVs are online. */
static int list_lvs(struct pf_pvcache *ps, const char *dev, unsigned major, unsigned minor,
		    const struct pf_vg *vg, int pv_index, bool vg_complete)
{
	_cleanup_free_ bool *used = NULL;
	_cleanup_free_ bool *online = NULL;
	bool snaps = vg_has_snapshots(vg), here = false;

	used = calloc(vg->n_pvs, sizeof(*used));
	online = calloc(vg->n_pvs, sizeof(*online));
	if (!used || !online)
		return -ENOMEM;
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		struct pf_state_pv st;

		online[i] = pf_state_pv_online_read(ps->run_dir, vg->pvs[i].id, &st) == 0;
		here |= online[i] && st.major == major && st.minor == minor;
	}
	/* lvm2 places the VG's PVs where their online files say; none is on this device */
	if (!here)
		return emit(ps, PF_EV_LIST_LVS_NOT_FOUND, dev, NULL);

	for (unsigned l = 0; l < vg->n_lvs; l++) {
		const struct pf_vg_lv *lv = &vg->lvs[l];
		struct pf_event *e;

		if (!lv_is_visible(vg, lv, snaps))
			continue;
		memset(used, 0, vg->n_pvs * sizeof(*used));
		pf_vg_lv_mark_pvs(vg, lv, used);
		if (!used[pv_index])
			continue;
		e = event_add(ps, PF_EV_LIST_LV, dev, vg->name);
		if (!e)
			return -ENOMEM;
		copy_name(e->lv, lv->name);
		if (!(ps->flags & PF_PVCACHE_CHECK_COMPLETE))
			continue;
		/* lvm2's shortcut: a complete VG has every LV complete */
		e->lv_state = vg_complete || lv_complete(vg, lv, online, used, snaps)
				      ? PF_LV_STATE_COMPLETE
				      : PF_LV_STATE_INCOMPLETE;
	}
	return 0;
}

static int list_vg(struct pf_pvcache *ps, const char *dev, const char *vgname, bool complete)
{
	int r;

	if (!vgname)
		return emit(ps, PF_EV_LIST_VG_UNKNOWN, dev, NULL);
	if (!(ps->flags & PF_PVCACHE_CHECK_COMPLETE))
		return emit(ps, PF_EV_LIST_VG, dev, vgname);
	if (!complete)
		return emit(ps, PF_EV_LIST_VG_INCOMPLETE, dev, vgname);
	if (ps->flags & PF_PVCACHE_VG_ONLINE) {
		r = pf_state_vg_online_claim(ps->run_dir, vgname);
		if (r == -EEXIST)
			return emit(ps, PF_EV_LIST_VG_FINISHED, dev, vgname);
		/* lvm2 reports complete when the claim fails for any other reason too. */
	}
	return emit(ps, PF_EV_LIST_VG_COMPLETE, dev, vgname);
}

/* Write pvs_online/<pvid>; a different devno already there is a duplicate PV. */
static int record_online(struct pf_pvcache *ps, const char *dev, unsigned major, unsigned minor,
			 const char *pvid, const char *vgname)
{
	struct pf_state_pv existing;
	struct pf_event *e;
	int write_err, r;

	r = pf_state_pv_online_write(ps->run_dir, pvid, major, minor, vgname, dev, &existing,
				     &write_err);
	if (r == 0 && write_err < 0) {
		/* compat: lvm2 keeps the empty file, warns, and counts the PV online (exit 0). */
		e = event_add(ps, PF_EV_ONLINE_WRITE_FAILED, dev, vgname);
		if (!e)
			return -ENOMEM;
		memcpy(e->pvid, pvid, PF_ID_LEN + 1);
		e->err = write_err;
		e->run_dir = ps->run_dir;
	}
	if (r == 0)
		return 0;
	ps->failed = true;
	if (r == -EEXIST) {
		e = event_add(ps, PF_EV_DUPLICATE, dev, vgname);
		if (!e)
			return -ENOMEM;
		e->major = major;
		e->minor = minor;
		e->other_major = existing.major;
		e->other_minor = existing.minor;
		copy_name(e->other_dev, existing.devname);
		memcpy(e->pvid, pvid, PF_ID_LEN + 1);
	}
	e = event_add(ps, PF_EV_ONLINE_FAILED, dev, vgname);
	if (!e)
		return -ENOMEM;
	memcpy(e->pvid, pvid, PF_ID_LEN + 1);
	e->err = r == -EEXIST ? 0 : r; /* a duplicate was said above */
	e->run_dir = ps->run_dir;
	return 1; /* recorded as a failure; go on with the next device */
}

bool pf_pvcache_md_dropped(unsigned flags, const struct pf_probe *probe)
{
	unsigned why = probe->md_end_why;

	if (!(flags & PF_PVCACHE_ALL) || probe->md.when != PF_PROBE_MD_END_HINTED ||
	    probe->md_end_kind == PF_MDSB_END_NONE)
		return false;
	return ((why & PF_PROBE_MD_WHY_HINT) && (flags & PF_PVCACHE_MD_DROP_HINT)) ||
	       ((why & PF_PROBE_MD_WHY_SIZE) && (flags & PF_PVCACHE_MD_DROP_SIZE));
}

int pf_pvcache_device(struct pf_pvcache *ps, const char *dev, unsigned major, unsigned minor,
		     const struct pf_probe *probe)
{
	const struct pf_pv_label *label = &probe->label;
	const struct pf_vg *vg = pf_probe_vg(probe);
	struct completeness c = { 0 };
	bool want_complete = ps->flags & (PF_PVCACHE_ACTIVATE | PF_PVCACHE_CHECK_COMPLETE);
	bool listing = ps->flags & (PF_PVCACHE_LIST_VG | PF_PVCACHE_LIST_LVS);
	bool complete = false;
	int pv_index = -1;
	int r;

	if (probe->label_status != 0) {
		/* lvm2's full scan passes over such devices silently. */
		if (ps->flags & PF_PVCACHE_ALL)
			return 0;
		return emit(ps, PF_EV_NO_LVM_INFO, dev, NULL);
	}
	if (pf_pv_label_is_unused(label)) {
		ps->pv_count++;
		return emit(ps, PF_EV_NOT_USED, dev, NULL);
	}
	if (!vg) {
		r = emit(ps, PF_EV_NO_METADATA, dev, NULL);
		if (r < 0)
			return r;
	} else {
		pv_index = pf_vg_find_pv(vg, label->pvid);
		if (pv_index < 0)
			return emit(ps, PF_EV_NOT_IN_VG, dev, vg->name);
		/* The probe looked at the end only where pvscan's md check would. */
		if (probe->md.when == PF_PROBE_MD_END_HINTED &&
		    probe->md_end_kind != PF_MDSB_END_NONE) {
			if (pf_pvcache_md_dropped(ps->flags, probe))
				return 0;
			return emit(ps, PF_EV_MD_COMPONENT, dev, vg->name);
		}
		if (vg_is_shared(vg))
			return emit(ps, PF_EV_SHARED, dev, vg->name);
		if (vg_is_foreign(ps, vg))
			return emit(ps, PF_EV_FOREIGN, dev, vg->name);
		if (vg->status & PF_VG_EXPORTED)
			return emit(ps, PF_EV_EXPORTED, dev, vg->name);
	}

	ps->pv_count++;
	if (ps->flags & PF_PVCACHE_CACHE) {
		r = record_online(ps, dev, major, minor, label->pvid, vg ? vg->name : NULL);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	if (!want_complete && !listing)
		return emit(ps, PF_EV_ONLINE, dev, NULL);

	if (want_complete) {
		r = vg ? check_vg(ps, dev, vg, &c) : check_lookup(ps, label->pvid, &c);
		if (r < 0)
			return r;
		if (c.unknown) {
			r = emit(ps, PF_EV_VG_UNKNOWN, dev, NULL);
		} else if (c.offline) {
			struct pf_event *e = event_add(ps, PF_EV_VG_INCOMPLETE, dev, c.vgname);

			r = e ? 0 : -ENOMEM;
			if (e)
				e->need = (unsigned)c.offline;
		} else {
			complete = true;
			r = emit(ps, PF_EV_VG_COMPLETE, dev, c.vgname);
			if (r == 0)
				r = add_complete(ps, c.vgname);
		}
		if (r < 0)
			return r;
	}
	if (!c.vgname && vg)
		c.vgname = vg->name;

	if (listing) {
		r = list_vg(ps, dev, c.unknown ? NULL : c.vgname, complete);
		if (r < 0)
			return r;
	}
	if (ps->flags & PF_PVCACHE_LIST_LVS) {
		if (!vg)
			return emit(ps, PF_EV_LIST_LVS_NO_METADATA, dev, NULL);
		return list_lvs(ps, dev, major, minor, vg, pv_index, complete);
	}
	return 0;
}
