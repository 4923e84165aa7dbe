/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A VG's LVs as lvm2 sees them: roles, references, visibility, holders, partial LVs. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "activate/lvgraph.h"
#include "format/cfg.h"
#include "format/vg.h"

/* Snapshot chains deeper than this are hostile; lvm2 would recurse without end. */
#define VISIBLE_DEPTH_MAX 16U

/* Segment types registered by Debian's lvm2 2.03.16 (`lvm segtypes`). */
static const char *const known_segtypes[] = {
	"linear",     "striped",    "zero",	  "error",	"snapshot",   "mirror",
	"raid0",      "raid0_meta", "raid1",	  "raid10",	"raid10_near", "raid4",
	"raid5",      "raid5_n",    "raid5_la",	  "raid5_ls",	"raid5_ra",   "raid5_rs",
	"raid6",      "raid6_n_6",  "raid6_nc",	  "raid6_nr",	"raid6_zr",   "raid6_ls_6",
	"raid6_rs_6", "raid6_la_6", "raid6_ra_6", "thin-pool",	"thin",	      "cache-pool",
	"cache",      "vdo",	    "vdo-pool",	  "writecache", "integrity",
};

/* The "+FLAG" suffixes lvm2 strips from a segment type; any other makes the type unknown. */
static const char *const known_segtype_flags[] = {
	"RESHAPE",	   "RESHAPE_DATA_OFFSET", "RESHAPE_DELTA_DISKS_PLUS",
	"RESHAPE_DELTA_DISKS_MINUS", "REMOVE_AFTER_RESHAPE", "METADATA_FORMAT",
	"CROP_METADATA",	   "CACHE_USES_CACHEVOL",
};

struct pf_lvgraph_name {
	const char *name;
	unsigned idx;
};

static int name_idx_cmp(const void *a, const void *b)
{
	const struct pf_lvgraph_name *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int find_idx(const struct pf_lvgraph_name *v, size_t n, const char *name)
{
	struct pf_lvgraph_name key = { .name = name };
	const struct pf_lvgraph_name *hit = bsearch(&key, v, n, sizeof(*v), name_idx_cmp);

	return hit ? (int)hit->idx : -1;
}

static int lv_index(const struct pf_lvgraph *g, const char *name)
{
	return find_idx(g->lv_names, g->n, name);
}

static int pv_index(const struct pf_lvgraph *g, const char *name)
{
	return find_idx(g->pv_names, g->vg->n_pvs, name);
}

static bool str_in(const char *const *v, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(v[i], s) == 0)
			return true;
	return false;
}

/* The segment type without its "+FLAG" suffixes, into buf; "" when too long to be known. */
static const char *seg_base(const struct pf_vg_seg *seg, char *buf, size_t size)
{
	const char *plus = strchr(seg->type, '+');
	size_t len = plus ? (size_t)(plus - seg->type) : strlen(seg->type);

	if (len >= size)
		len = 0;
	memcpy(buf, seg->type, len);
	buf[len] = '\0';
	return buf;
}

/* lvm2 keeps the whole string as the type name when any flag is unknown (compat). */
static bool seg_is_known(const struct pf_vg_seg *seg)
{
	char base[32], flag[64];
	const char *p = strchr(seg->type, '+');

	if (!str_in(known_segtypes, ARRAY_SIZE(known_segtypes), seg_base(seg, base, sizeof(base))))
		return false;
	while (p) {
		const char *next = strchr(p + 1, '+');
		size_t len = next ? (size_t)(next - p - 1) : strlen(p + 1);

		if (len >= sizeof(flag))
			return false;
		memcpy(flag, p + 1, len);
		flag[len] = '\0';
		if (!str_in(known_segtype_flags, ARRAY_SIZE(known_segtype_flags), flag))
			return false;
		p = next;
	}
	return true;
}

static bool is_raid_type(const char *base)
{
	return strncmp(base, "raid", 4) == 0 &&
	       str_in(known_segtypes, ARRAY_SIZE(known_segtypes), base);
}

static const char *seg_str(const struct pf_vg_seg *seg, const char *key)
{
	const char *s = NULL;

	return pf_cfg_get_str(seg->raw, key, &s) == 0 ? s : NULL;
}

/*
 * Keys whose LV is a component of the segment's LV (lvm2's lv_is_component), per type.
 * "raids" alternates metadata and image LVs; the rest name one component each.
 */
static bool key_is_component(const char *base, const char *key)
{
	if (!strcmp(base, "thin-pool"))
		return !strcmp(key, "pool") || !strcmp(key, "metadata");
	if (!strcmp(base, "cache-pool") || !strcmp(base, "vdo-pool"))
		return !strcmp(key, "data") || !strcmp(key, "metadata");
	if (!strcmp(base, "cache") || !strcmp(base, "writecache"))
		return !strcmp(key, "origin");
	if (!strcmp(base, "integrity"))
		return !strcmp(key, "origin") || !strcmp(key, "meta_dev");
	if (!strcmp(base, "mirror"))
		return !strcmp(key, "mirrors") || !strcmp(key, "mirror_log");
	if (is_raid_type(base))
		return !strcmp(key, "raids") || !strcmp(key, "raid0_lvs");
	return false;
}

/* lvm2 does not descend from a thin LV into its thin origin or merge target. */
static bool key_is_sub(const char *base, const char *key)
{
	if (!strcmp(base, "thin"))
		return strcmp(key, "origin") != 0 && strcmp(key, "merge") != 0;
	return strcmp(base, "snapshot") != 0;
}

/* Roles a snapshot segment gives: lvm2's init_snapshot_seg(). */
static void note_snapshot(struct pf_lvgraph *g, unsigned l, const struct pf_vg_seg *seg)
{
	const char *cow_name = seg_str(seg, "merging_store");
	bool merging = cow_name != NULL;
	const char *org_name = seg_str(seg, "origin");
	int o = org_name ? lv_index(g, org_name) : -1;
	int c;

	g->role[l] |= PF_LVGRAPH_SNAPSHOT;
	if (!cow_name)
		cow_name = seg_str(seg, "cow_store");
	c = cow_name ? lv_index(g, cow_name) : -1;
	if (o < 0 || c < 0)
		return; /* lvm2 refuses such metadata; nothing to derive */
	g->role[o] |= PF_LVGRAPH_ORIGIN;
	g->role[c] |= PF_LVGRAPH_COW;
	if (merging)
		g->role[c] |= PF_LVGRAPH_MERGING_COW;
	else
		g->role[c] &= ~PF_LVGRAPH_MERGING_COW;
	g->cow_origin[c] = o;
}

static void note_pv(struct pf_lvgraph *g, unsigned l, int pv)
{
	g->pv_used[pv] = true;
	if (g->pv_missing[pv])
		g->own_missing[l] = true;
}

/*
 * One pass over every LV reference in the segments. With fill false it only counts (and marks
 * PV use); with fill true it records references and roles. Striped areas naming LVs are
 * references too; for other types every string value naming an LV or PV of the VG counts.
 */
static void scan_refs(struct pf_lvgraph *g, bool fill)
{
	const struct pf_vg *vg = g->vg;
	size_t k = 0;

	for (unsigned l = 0; l < g->n; l++) {
		const struct pf_vg_lv *lv = &vg->lvs[l];

		if (fill)
			g->ref_start[l] = k;
		for (unsigned s = 0; s < lv->n_segs; s++) {
			const struct pf_vg_seg *seg = &lv->segs[s];
			char base[32];

			seg_base(seg, base, sizeof(base));
			if (seg->is_striped) {
				for (unsigned a = 0; a < seg->n_areas; a++) {
					int t;

					if (seg->areas[a].pv_index >= 0) {
						note_pv(g, l, seg->areas[a].pv_index);
						continue;
					}
					t = lv_index(g, seg->areas[a].name);
					if (t < 0)
						continue;
					if (fill) {
						g->refs[k] = (unsigned)t;
						g->ref_sub[k] = true;
					}
					k++;
				}
				continue;
			}
			for (const struct pf_cfg_node *c = seg->raw->child; c; c = c->next) {
				const struct pf_cfg_value *v = c->value;

				if (!strcmp(c->key, "type"))
					continue;
				for (unsigned pos = 0; v; v = v->next, pos++) {
					int t, p;

					if (v->type != PF_CFG_STRING)
						continue;
					t = lv_index(g, v->v.s);
					if (t < 0) {
						p = pv_index(g, v->v.s);
						if (p >= 0)
							note_pv(g, l, p);
						continue;
					}
					if (fill) {
						g->refs[k] = (unsigned)t;
						g->ref_sub[k] = key_is_sub(base, c->key);
						if (key_is_component(base, c->key))
							g->role[t] |= PF_LVGRAPH_COMPONENT;
						if (!strcmp(base, "mirror") &&
						    !strcmp(c->key, "mirror_log"))
							g->role[t] |= PF_LVGRAPH_MIRROR_LOG;
						else if (!strcmp(base, "mirror"))
							g->role[t] |= PF_LVGRAPH_MIRROR_IMAGE;
						if (is_raid_type(base) &&
						    ((!strcmp(c->key, "raids") && pos % 2) ||
						     !strcmp(c->key, "raid0_lvs")))
							g->role[t] |= PF_LVGRAPH_RAID_IMAGE;
						if (g->holder[t] < 0 && t != (int)l)
							g->holder[t] = (int)l;
					}
					k++;
				}
			}
		}
	}
	if (fill)
		g->ref_start[g->n] = k;
	g->n_refs = k;
}

/* Roles that depend on the LV's own segments only. */
static void note_own_roles(struct pf_lvgraph *g, unsigned l)
{
	const struct pf_vg_lv *lv = &g->vg->lvs[l];

	for (unsigned s = 0; s < lv->n_segs; s++) {
		const struct pf_vg_seg *seg = &lv->segs[s];
		char base[32];

		seg_base(seg, base, sizeof(base));
		if (!seg_is_known(seg))
			g->role[l] |= PF_LVGRAPH_UNKNOWN_SEG;
		if (!strcmp(base, "snapshot"))
			note_snapshot(g, l, seg);
		else if (!strcmp(base, "vdo-pool"))
			g->role[l] |= PF_LVGRAPH_VDO_POOL;
		else if (!strcmp(base, "cache-pool"))
			g->role[l] |= PF_LVGRAPH_CACHE_POOL;
		else if (!strcmp(base, "thin"))
			g->role[l] |= PF_LVGRAPH_THIN;
		else if (!strcmp(base, "thin-pool"))
			g->role[l] |= PF_LVGRAPH_THIN_POOL;
		else if (is_raid_type(base))
			g->role[l] |= PF_LVGRAPH_RAID;
	}
}

/* lvm2 activates the writable-by-default integrity images of a raid only after rewriting them. */
bool pf_lvgraph_integrity_recalc(const struct pf_lvgraph *g, unsigned l)
{
	const struct pf_vg_lv *lv = &g->vg->lvs[l];
	char base[32];
	int64_t v;

	if (!lv->n_segs)
		return false;
	seg_base(&lv->segs[0], base, sizeof(base));
	if (!strcmp(base, "integrity"))
		return pf_cfg_get_int(lv->segs[0].raw, "recalculate", &v) == 0 && v != 0;
	if (!is_raid_type(base))
		return false;
	for (size_t k = g->ref_start[l]; k < g->ref_start[l + 1]; k++) {
		const struct pf_vg_lv *img = &g->vg->lvs[g->refs[k]];

		if (!(g->role[g->refs[k]] & PF_LVGRAPH_RAID_IMAGE) || !img->n_segs)
			continue;
		seg_base(&img->segs[0], base, sizeof(base));
		if (!strcmp(base, "integrity") &&
		    pf_cfg_get_int(img->segs[0].raw, "recalculate", &v) == 0 && v != 0)
			return true;
	}
	return false;
}

bool pf_lvgraph_is_cow(const struct pf_lvgraph *g, unsigned l)
{
	return (g->role[l] & PF_LVGRAPH_COW) &&
	       !(g->role[l] & (PF_LVGRAPH_ORIGIN | PF_LVGRAPH_THIN)) && g->cow_origin[l] >= 0;
}

/* lvm2 marks an origin without VISIBLE virtual when it reads the snapshot (sparse snapshot). */
bool pf_lvgraph_is_virtual_origin(const struct pf_lvgraph *g, int o)
{
	return o >= 0 && (g->role[o] & PF_LVGRAPH_ORIGIN) &&
	       !(g->vg->lvs[o].status & PF_LV_VISIBLE);
}

/* lvm2's lv_is_visible(). */
static bool compute_visible(const struct pf_lvgraph *g, unsigned l, unsigned depth)
{
	if (g->role[l] & PF_LVGRAPH_SNAPSHOT)
		return false;
	if (pf_lvgraph_is_cow(g, l)) {
		int o = g->cow_origin[l];

		if (pf_lvgraph_is_virtual_origin(g, o))
			return true;
		if (g->role[l] & PF_LVGRAPH_MERGING_COW)
			return false;
		if (depth >= VISIBLE_DEPTH_MAX)
			return false;
		return compute_visible(g, (unsigned)o, depth + 1);
	}
	return g->vg->lvs[l].status & PF_LV_VISIBLE;
}

/*
 * Partial LVs (lvm2's vg_mark_partial_lvs()): an LV on a missing PV, and every LV depending on
 * one, where an origin and its COW depend on each other. lvm2 walks this graph depth first in
 * metadata order, so for a COW listed before its origin it may miss the origin; following every
 * edge is the safe superset (the activation would fail on the missing device anyway).
 */
static int compute_partial(struct pf_lvgraph *g)
{
	size_t n_edges = g->n_refs, e = 0, head = 0, tail = 0;
	_cleanup_free_ size_t *rstart = NULL;
	_cleanup_free_ unsigned *from = NULL, *rev = NULL, *queue = NULL;
	_cleanup_free_ unsigned *to = NULL;

	for (unsigned l = 0; l < g->n; l++)
		if (pf_lvgraph_is_cow(g, l))
			n_edges += 2;
	from = calloc(n_edges ? n_edges : 1, sizeof(*from));
	to = calloc(n_edges ? n_edges : 1, sizeof(*to));
	rev = calloc(n_edges ? n_edges : 1, sizeof(*rev));
	rstart = calloc((size_t)g->n + 1, sizeof(*rstart));
	queue = calloc(g->n ? g->n : 1, sizeof(*queue));
	if (!from || !to || !rev || !rstart || !queue)
		return -ENOMEM;
	/* Edge from -> to: "from" is partial when "to" is. */
	for (unsigned l = 0; l < g->n; l++) {
		for (size_t k = g->ref_start[l]; k < g->ref_start[l + 1]; k++) {
			from[e] = l;
			to[e++] = g->refs[k];
		}
		if (pf_lvgraph_is_cow(g, l)) {
			from[e] = l;
			to[e++] = (unsigned)g->cow_origin[l];
			from[e] = (unsigned)g->cow_origin[l];
			to[e++] = l;
		}
	}
	/* Reverse adjacency by "to", so partiality flows from a missing PV upwards. */
	for (size_t i = 0; i < e; i++)
		rstart[to[i] + 1]++;
	for (unsigned l = 0; l < g->n; l++)
		rstart[l + 1] += rstart[l];
	for (size_t i = 0; i < e; i++) {
		size_t *slot = &rstart[to[i]];

		rev[(*slot)++] = from[i];
	}
	/* rstart[l] now marks the end of l's slice; the start is the previous LV's end. */
	for (unsigned l = 0; l < g->n; l++) {
		if (g->own_missing[l]) {
			g->partial[l] = true;
			queue[tail++] = l;
		}
	}
	while (head < tail) {
		unsigned t = queue[head++];
		size_t lo = t ? rstart[t - 1] : 0;

		for (size_t i = lo; i < rstart[t]; i++) {
			if (g->partial[rev[i]])
				continue;
			g->partial[rev[i]] = true;
			queue[tail++] = rev[i];
		}
	}
	return 0;
}

/* The walk of lvm2's callback; -1 when no component is in the way, -2 over the cap. */
static int component_walk(struct pf_lvgraph *g, unsigned t, unsigned walk)
{
	size_t sp = 0;

	if ((g->role[t] & PF_LVGRAPH_THIN_POOL) && g->pool_in_use[t])
		return -1; /* the lock holder is active: lvm2 checks nothing */
	g->stamp[t] = walk;
	for (size_t k = g->ref_start[t]; k < g->ref_start[t + 1]; k++)
		if (g->ref_sub[k])
			g->stack[sp++] = g->refs[k];
	while (sp) {
		unsigned x = g->stack[--sp];
		const struct pf_vg_lv *lv = &g->vg->lvs[x];

		if (g->stamp[x] == walk)
			continue;
		g->stamp[x] = walk;
		if (++g->walk_steps > PF_LVGRAPH_WALK_MAX)
			return -2;
		if (lv->status & (PF_LV_LOCKED | PF_LV_PVMOVE))
			continue;
		if ((g->role[x] & PF_LVGRAPH_THIN_POOL) && (g->active[x] || g->pool_in_use[x]))
			continue;
		if (g->active[x]) {
			bool component = (g->role[x] & PF_LVGRAPH_COMPONENT) ||
					 (lv->status & PF_LV_CACHE_VOL);

			if (component && !g->visible[x])
				return (int)x;
			continue;
		}
		for (size_t k = g->ref_start[x]; k < g->ref_start[x + 1]; k++)
			if (g->ref_sub[k] && g->stamp[g->refs[k]] != walk)
				g->stack[sp++] = g->refs[k];
	}
	return -1;
}

int pf_lvgraph_active_component(struct pf_lvgraph *g, unsigned t, int *ret)
{
	int c;

	*ret = -1;
	if (!g->any_hidden_active || t >= g->n)
		return 0; /* the usual case: no sub-LV can be in the way */
	c = component_walk(g, t, ++g->walk);
	if (c == -2)
		return -E2BIG;
	*ret = c;
	return 0;
}

bool pf_lvgraph_raid_visible_sublvs(const struct pf_lvgraph *g, unsigned l)
{
	const struct pf_vg_lv *lv = &g->vg->lvs[l];
	const struct pf_cfg_value *v;
	char base[32];
	unsigned pos = 0;
	bool pairs;

	if (!(g->role[l] & PF_LVGRAPH_RAID) || !lv->n_segs)
		return false;
	if (g->role[l] & PF_LVGRAPH_RAID_IMAGE)
		return false;
	seg_base(&lv->segs[0], base, sizeof(base));
	if (!is_raid_type(base))
		return false;
	/* "raids" pairs metadata and image LVs; raid0's "raid0_lvs" lists images only. */
	pairs = pf_cfg_get_list(lv->segs[0].raw, "raids", &v) == 0;
	if (!pairs && pf_cfg_get_list(lv->segs[0].raw, "raid0_lvs", &v) < 0)
		return false;
	for (; v; v = v->next, pos++) {
		int t;

		if (v->type != PF_CFG_STRING)
			continue;
		t = lv_index(g, v->v.s);
		if (t < 0 || !g->visible[t])
			continue;
		if (pairs && pos % 2 == 0)
			return true; /* metadata LV */
		if (g->vg->lvs[t].status & PF_LV_WRITE)
			return true;
	}
	return false;
}

/*
 * Who brings a sub-LV up: the LV naming it (from scan_refs), except that a COW comes up with
 * its origin, a sparse snapshot's virtual origin with its COW, and snapshotN with its origin.
 * Also which thin pools have an active user.
 */
static void note_holders(struct pf_lvgraph *g, unsigned l)
{
	const struct pf_vg_lv *lv = &g->vg->lvs[l];

	if (pf_lvgraph_is_cow(g, l)) {
		int o = g->cow_origin[l];

		g->holder[l] = o;
		if (pf_lvgraph_is_virtual_origin(g, o))
			g->holder[o] = (int)l;
	}
	for (unsigned s = 0; s < lv->n_segs; s++) {
		const struct pf_vg_seg *seg = &lv->segs[s];
		char base[32];
		const char *name;
		int t;

		seg_base(seg, base, sizeof(base));
		if (!strcmp(base, "snapshot") && (name = seg_str(seg, "origin")) &&
		    (t = lv_index(g, name)) >= 0)
			g->holder[l] = t;
		if (g->active[l] && !strcmp(base, "thin") && (name = seg_str(seg, "thin_pool")) &&
		    (t = lv_index(g, name)) >= 0)
			g->pool_in_use[t] = true;
	}
}

void pf_lvgraph_release(struct pf_lvgraph *g)
{
	if (!g)
		return;
	free(g->lv_names);
	free(g->pv_names);
	free(g->role);
	free(g->cow_origin);
	free(g->holder);
	free(g->visible);
	free(g->active);
	free(g->pool_in_use);
	free(g->pv_missing);
	free(g->own_missing);
	free(g->partial);
	free(g->pv_used);
	free(g->ref_start);
	free(g->refs);
	free(g->ref_sub);
	free(g->stamp);
	free(g->stack);
	memset(g, 0, sizeof(*g));
}

/* Everything but the release on failure: pf_lvgraph_build() does that once. */
static int build(const struct pf_vg *vg, const bool *pv_present, const bool *lv_active,
		 struct pf_lvgraph *g)
{
	size_t n = vg->n_lvs ? vg->n_lvs : 1, np = vg->n_pvs ? vg->n_pvs : 1;

	if (vg->n_lvs > PF_LVGRAPH_LVS_MAX)
		return -E2BIG;
	g->vg = vg;
	g->n = vg->n_lvs;
	g->lv_names = calloc(n, sizeof(*g->lv_names));
	g->pv_names = calloc(np, sizeof(*g->pv_names));
	g->role = calloc(n, sizeof(*g->role));
	g->cow_origin = calloc(n, sizeof(*g->cow_origin));
	g->holder = calloc(n, sizeof(*g->holder));
	g->visible = calloc(n, sizeof(*g->visible));
	g->active = calloc(n, sizeof(*g->active));
	g->pool_in_use = calloc(n, sizeof(*g->pool_in_use));
	g->pv_missing = calloc(np, sizeof(*g->pv_missing));
	g->own_missing = calloc(n, sizeof(*g->own_missing));
	g->partial = calloc(n, sizeof(*g->partial));
	g->pv_used = calloc(np, sizeof(*g->pv_used));
	g->ref_start = calloc(n + 1, sizeof(*g->ref_start));
	g->stamp = calloc(n, sizeof(*g->stamp));
	if (!g->lv_names || !g->pv_names || !g->role || !g->cow_origin || !g->holder ||
	    !g->visible || !g->active || !g->pool_in_use || !g->pv_missing || !g->own_missing ||
	    !g->partial || !g->pv_used || !g->ref_start || !g->stamp)
		return -ENOMEM;

	for (unsigned l = 0; l < g->n; l++) {
		g->lv_names[l] = (struct pf_lvgraph_name){ vg->lvs[l].name, l };
		g->cow_origin[l] = -1;
		g->holder[l] = -1;
		g->active[l] = lv_active && lv_active[l];
	}
	qsort(g->lv_names, g->n, sizeof(*g->lv_names), name_idx_cmp);
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		bool present = !pv_present || pv_present[i];

		g->pv_names[i] = (struct pf_lvgraph_name){ vg->pvs[i].key, i };
		g->pv_missing[i] = !present || (vg->pvs[i].status & PF_PV_MISSING);
	}
	qsort(g->pv_names, vg->n_pvs, sizeof(*g->pv_names), name_idx_cmp);

	/* Count first (own_missing is recomputed identically by the second pass). */
	scan_refs(g, false);
	if (g->n_refs > PF_LVGRAPH_REFS_MAX)
		return -E2BIG;
	g->refs = calloc(g->n_refs ? g->n_refs : 1, sizeof(*g->refs));
	g->ref_sub = calloc(g->n_refs ? g->n_refs : 1, sizeof(*g->ref_sub));
	g->stack = calloc(g->n_refs ? g->n_refs : 1, sizeof(*g->stack));
	if (!g->refs || !g->ref_sub || !g->stack)
		return -ENOMEM;
	for (unsigned l = 0; l < g->n; l++)
		note_own_roles(g, l);
	scan_refs(g, true);

	for (unsigned l = 0; l < g->n; l++) {
		g->visible[l] = compute_visible(g, l, 0);
		if (!g->visible[l] && g->active[l])
			g->any_hidden_active = true;
	}
	for (unsigned l = 0; l < g->n; l++)
		note_holders(g, l);
	/* Top-level LVs have no holder, except the COW of a visible origin, which -aay skips. */
	for (unsigned l = 0; l < g->n; l++)
		if (g->visible[l] && !(pf_lvgraph_is_cow(g, l) &&
				       !pf_lvgraph_is_virtual_origin(g, g->cow_origin[l])))
			g->holder[l] = -1;
	return compute_partial(g);
}

int pf_lvgraph_build(const struct pf_vg *vg, const bool *pv_present, const bool *lv_active,
		     struct pf_lvgraph *ret)
{
	int r;

	memset(ret, 0, sizeof(*ret));
	r = build(vg, pv_present, lv_active, ret);
	if (r < 0)
		pf_lvgraph_release(ret);
	return r;
}
