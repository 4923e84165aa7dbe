/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which LVs lvm2 2.03.16's event autoactivation brings up, gate by gate, and what it prints. */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activate/aapolicy.h"
#include "format/cfg.h"
#include "config/settings.h"
#include "format/vg.h"

/* What an LV is to lvm2, derived from the segments that name it (lvm2 keeps these as status). */
enum {
	ROLE_SNAPSHOT = 1U << 0,     /* has a "snapshot" segment (snapshotN) */
	ROLE_ORIGIN = 1U << 1,	     /* named as origin by a snapshot segment */
	ROLE_COW = 1U << 2,	     /* named as cow_store / merging_store */
	ROLE_MERGING_COW = 1U << 3,  /* ... as merging_store */
	ROLE_MIRROR_IMAGE = 1U << 4,
	ROLE_MIRROR_LOG = 1U << 5,
	ROLE_VDO_POOL = 1U << 6,
	ROLE_CACHE_POOL = 1U << 7,
	ROLE_RAID = 1U << 8,
	ROLE_THIN = 1U << 9,
	ROLE_THIN_POOL = 1U << 10,
	ROLE_COMPONENT = 1U << 11,   /* data/metadata/image/origin of a stack (lv_is_component) */
	ROLE_UNKNOWN_SEG = 1U << 12, /* a segment type lvm2 does not know */
	ROLE_INTEGRITY_RECALC = 1U << 13, /* first segment integrity with recalculate set */
	ROLE_RAID_IMAGE = 1U << 14,
};

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

struct name_idx {
	const char *name;
	unsigned idx;
};

/* The VG seen as a graph: roles, and which LVs and PVs each LV's segments name. */
struct graph {
	const struct pf_vg *vg;
	const struct pf_aapolicy_input *in;
	unsigned n;
	struct name_idx *lv_names, *pv_names;
	uint32_t *role;
	int *cow_origin;   /* for a COW: its origin; else -1 */
	int *holder;
	bool *visible;
	bool *active;	   /* in->lv_active, or all false */
	bool *pool_in_use; /* a thin LV using this pool is active */
	bool *pv_missing;  /* for partial LVs: device absent or MISSING flag */
	bool *own_missing; /* the LV's own areas are on a missing PV */
	bool *partial;
	bool *pv_used;	   /* some segment has an area on the PV (lvm2's pe_alloc_count) */
	bool any_hidden_active;
	size_t walk_steps;
	size_t *ref_start; /* LV references, CSR: refs[ref_start[i] .. ref_start[i + 1]) */
	unsigned *refs;
	bool *ref_sub;	   /* followed by lvm2's for_each_sub_lv() */
	size_t n_refs;
	unsigned *stamp;   /* component walk: last walk that visited the LV */
	unsigned *stack;
};

static int name_idx_cmp(const void *a, const void *b)
{
	const struct name_idx *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int find_idx(const struct name_idx *v, size_t n, const char *name)
{
	struct name_idx key = { .name = name };
	const struct name_idx *hit = bsearch(&key, v, n, sizeof(*v), name_idx_cmp);

	return hit ? (int)hit->idx : -1;
}

static int lv_index(const struct graph *g, const char *name)
{
	return find_idx(g->lv_names, g->n, name);
}

static int pv_index(const struct graph *g, const char *name)
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
static void note_snapshot(struct graph *g, unsigned l, const struct pf_vg_seg *seg)
{
	const char *cow_name = seg_str(seg, "merging_store");
	bool merging = cow_name != NULL;
	const char *org_name = seg_str(seg, "origin");
	int o = org_name ? lv_index(g, org_name) : -1;
	int c;

	g->role[l] |= ROLE_SNAPSHOT;
	if (!cow_name)
		cow_name = seg_str(seg, "cow_store");
	c = cow_name ? lv_index(g, cow_name) : -1;
	if (o < 0 || c < 0)
		return; /* lvm2 refuses such metadata; nothing to derive */
	g->role[o] |= ROLE_ORIGIN;
	g->role[c] |= ROLE_COW;
	if (merging)
		g->role[c] |= ROLE_MERGING_COW;
	else
		g->role[c] &= ~ROLE_MERGING_COW;
	g->cow_origin[c] = o;
}

static void note_pv(struct graph *g, unsigned l, int pv)
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
static void scan_refs(struct graph *g, bool fill)
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
							g->role[t] |= ROLE_COMPONENT;
						if (!strcmp(base, "mirror") &&
						    !strcmp(c->key, "mirror_log"))
							g->role[t] |= ROLE_MIRROR_LOG;
						else if (!strcmp(base, "mirror"))
							g->role[t] |= ROLE_MIRROR_IMAGE;
						if (is_raid_type(base) &&
						    ((!strcmp(c->key, "raids") && pos % 2) ||
						     !strcmp(c->key, "raid0_lvs")))
							g->role[t] |= ROLE_RAID_IMAGE;
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
static void note_own_roles(struct graph *g, unsigned l)
{
	const struct pf_vg_lv *lv = &g->vg->lvs[l];

	for (unsigned s = 0; s < lv->n_segs; s++) {
		const struct pf_vg_seg *seg = &lv->segs[s];
		char base[32];

		seg_base(seg, base, sizeof(base));
		if (!seg_is_known(seg))
			g->role[l] |= ROLE_UNKNOWN_SEG;
		if (!strcmp(base, "snapshot"))
			note_snapshot(g, l, seg);
		else if (!strcmp(base, "vdo-pool"))
			g->role[l] |= ROLE_VDO_POOL;
		else if (!strcmp(base, "cache-pool"))
			g->role[l] |= ROLE_CACHE_POOL;
		else if (!strcmp(base, "thin"))
			g->role[l] |= ROLE_THIN;
		else if (!strcmp(base, "thin-pool"))
			g->role[l] |= ROLE_THIN_POOL;
		else if (is_raid_type(base))
			g->role[l] |= ROLE_RAID;
	}
}

/* lvm2 activates the writable-by-default integrity images of a raid only after rewriting them. */
static bool integrity_recalc(const struct graph *g, unsigned l)
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

		if (!(g->role[g->refs[k]] & ROLE_RAID_IMAGE) || !img->n_segs)
			continue;
		seg_base(&img->segs[0], base, sizeof(base));
		if (!strcmp(base, "integrity") &&
		    pf_cfg_get_int(img->segs[0].raw, "recalculate", &v) == 0 && v != 0)
			return true;
	}
	return false;
}

/* lvm2's lv_is_cow(): a COW store that is not also an origin or a thin LV. */
static bool is_cow(const struct graph *g, unsigned l)
{
	return (g->role[l] & ROLE_COW) && !(g->role[l] & (ROLE_ORIGIN | ROLE_THIN)) &&
	       g->cow_origin[l] >= 0;
}

/* lvm2 marks an origin without VISIBLE virtual when it reads the snapshot (sparse snapshot). */
static bool is_virtual_origin(const struct graph *g, int o)
{
	return o >= 0 && (g->role[o] & ROLE_ORIGIN) && !(g->vg->lvs[o].status & PF_LV_VISIBLE);
}

/* lvm2's lv_is_visible(). */
static bool compute_visible(const struct graph *g, unsigned l, unsigned depth)
{
	if (g->role[l] & ROLE_SNAPSHOT)
		return false;
	if (is_cow(g, l)) {
		int o = g->cow_origin[l];

		if (is_virtual_origin(g, o))
			return true;
		if (g->role[l] & ROLE_MERGING_COW)
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
static int compute_partial(struct graph *g)
{
	size_t n_edges = g->n_refs, e = 0, head = 0, tail = 0;
	_cleanup_free_ size_t *rstart = NULL;
	_cleanup_free_ unsigned *from = NULL, *rev = NULL, *queue = NULL;
	_cleanup_free_ unsigned *to = NULL;

	for (unsigned l = 0; l < g->n; l++)
		if (is_cow(g, l))
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
		if (is_cow(g, l)) {
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

/*
 * lvm2's lv_component_is_active() for a visible LV that is not active: the first hidden
 * component below it that is active on its own. Active non-components, locked/pvmove LVs and
 * pools in use end the descent, as in lvm2's callback.
 */
static int active_component(struct graph *g, unsigned t, unsigned walk)
{
	size_t sp = 0;

	if (!g->any_hidden_active)
		return -1; /* the usual case: no sub-LV can be in the way */

	if ((g->role[t] & ROLE_THIN_POOL) && g->pool_in_use[t])
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
		if (++g->walk_steps > PF_AAPOLICY_WALK_MAX)
			return -2;
		if (lv->status & (PF_LV_LOCKED | PF_LV_PVMOVE))
			continue;
		if ((g->role[x] & ROLE_THIN_POOL) && (g->active[x] || g->pool_in_use[x]))
			continue;
		if (g->active[x]) {
			bool component = (g->role[x] & ROLE_COMPONENT) ||
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

/* lvm2's lv_raid_has_visible_sublvs(): a writable image or any metadata LV left visible. */
static bool raid_visible_sublvs(const struct graph *g, unsigned l)
{
	const struct pf_vg_lv *lv = &g->vg->lvs[l];
	const struct pf_cfg_value *v;
	char base[32];
	unsigned pos = 0;
	bool pairs;

	if (!(g->role[l] & ROLE_RAID) || !lv->n_segs)
		return false;
	if (g->role[l] & ROLE_RAID_IMAGE)
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

/* msgs is defined with the messages below; a list walk may add lines to one. */
struct msgs;
static void ignoring(struct msgs *m, const char *setting, bool tag);

/*
 * lvm2's _lv_passes_volumes_filter: entries in order until one matches; an empty string or
 * a bare "@" is skipped, with a line on stdout (into m, when given) each time it is met.
 */
static bool list_walk(const struct pf_aapolicy_list *list, const struct pf_aapolicy_list *host_tags,
		      const struct pf_vg *vg, const struct pf_vg_lv *lv, struct msgs *m,
		      const char *setting)
{
	size_t len = strlen(vg->name);

	for (size_t i = 0; i < list->n; i++) {
		const char *s = list->v[i];

		if (!s)
			continue;
		if (!*s || !strcmp(s, "@")) {
			if (m)
				ignoring(m, setting, *s == '@');
			continue;
		}
		if (*s == '@') {
			s++;
			if (!strcmp(s, "*")) {
				if (host_tag_in(host_tags, lv->tags) ||
				    host_tag_in(host_tags, vg->tags))
					return true;
				continue;
			}
			if (tag_in(lv->tags, s) || tag_in(vg->tags, s))
				return true;
			continue;
		}
		/* compat: lvm2 compares the VG name as a prefix, then wants end or "/lv". */
		if (!strncmp(s, vg->name, len) &&
		    (!s[len] || (s[len] == '/' && !strcmp(s + len + 1, lv->name))))
			return true;
	}
	return false;
}

bool pf_aapolicy_list_matches(const struct pf_aapolicy_list *list,
			      const struct pf_aapolicy_list *host_tags, const struct pf_vg *vg,
			      const struct pf_vg_lv *lv)
{
	return list_walk(list, host_tags, vg, lv, NULL, NULL);
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

bool pf_aapolicy_lv_is_error(enum pf_aapolicy_lv_verdict v)
{
	switch (v) {
	case PF_AAPOLICY_LV_DUPLICATE_PVS:
	case PF_AAPOLICY_LV_INTEGRITY_RECALC:
	case PF_AAPOLICY_LV_COMPONENT_ACTIVE:
	case PF_AAPOLICY_LV_PARTIAL:
	case PF_AAPOLICY_LV_UNKNOWN_SEGMENT:
	case PF_AAPOLICY_LV_RAID_VISIBLE_SUBLVS:
		return true;
	default:
		return false;
	}
}

static bool has_system_id(const char *s)
{
	return s && *s;
}

/* lvm2's is_system_id_allowed(): may this host read the VG at all. */
static bool system_id_allowed(const struct pf_aapolicy_input *in, const struct pf_vg *vg)
{
	if (!has_system_id(vg->system_id))
		return true;
	if (!in->system_id || in->system_id_unknown)
		return false;
	if (!strcmp(in->system_id, vg->system_id))
		return true;
	return in->extra_system_ids.set &&
	       str_in(in->extra_system_ids.v, in->extra_system_ids.n, vg->system_id);
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
static enum pf_aapolicy_vg_verdict vg_gates(const struct graph *g, struct pf_aapolicy *p)
{
	const struct pf_aapolicy_input *in = g->in;
	const struct pf_vg *vg = g->vg;
	bool access = system_id_allowed(in, vg);

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
	if (p->n_missing_pvs)
		return PF_AAPOLICY_VG_INCOMPLETE;
	return PF_AAPOLICY_VG_OK;
}

/* The gates of vgchange's _activate_lvs_in_vg() and what activation does after them. */
static int decide_lv(struct graph *g, struct pf_aapolicy *p, unsigned i, unsigned *walk)
{
	const struct pf_aapolicy_input *in = g->in;
	const struct pf_vg *vg = g->vg;
	struct pf_aapolicy_lv *d = &p->lvs[i];
	unsigned t = i;
	const struct pf_vg_lv *lv;

	if (!g->visible[i]) {
		d->verdict = PF_AAPOLICY_LV_HIDDEN;
		return 0;
	}
	/* A sparse snapshot: its virtual origin is what gets activated. */
	if (is_cow(g, i) && is_virtual_origin(g, g->cow_origin[i]))
		t = (unsigned)g->cow_origin[i];
	lv = &vg->lvs[t];
	if ((g->role[t] & ROLE_SNAPSHOT) || is_cow(g, t)) {
		d->verdict = PF_AAPOLICY_LV_SNAPSHOT;
		return 0;
	}
	if (g->role[t] & (ROLE_MIRROR_IMAGE | ROLE_MIRROR_LOG)) {
		d->verdict = PF_AAPOLICY_LV_MIRROR_PART;
		return 0;
	}
	if (g->role[t] & ROLE_VDO_POOL) {
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
	p->n_expected++;
	/* lv_change_activate() */
	if (g->role[t] & ROLE_CACHE_POOL) {
		d->verdict = PF_AAPOLICY_LV_CACHE_POOL;
		return 0;
	}
	if (in->duplicate_pvs) {
		d->verdict = PF_AAPOLICY_LV_DUPLICATE_PVS;
		return 0;
	}
	if (in->mode == PF_AAPOLICY_PVSCAN && integrity_recalc(g, t)) {
		d->verdict = PF_AAPOLICY_LV_INTEGRITY_RECALC;
		return 0;
	}
	/* activate_lv(), then _lv_activate() */
	if (!g->active[t]) {
		int c = active_component(g, t, ++*walk);

		if (c == -2)
			return -E2BIG;
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
		bool raid = g->role[t] & (ROLE_RAID | ROLE_RAID_IMAGE);

		d->verdict = raid ? PF_AAPOLICY_LV_PARTIAL_RAID : PF_AAPOLICY_LV_PARTIAL;
		return 0;
	}
	if (g->role[t] & ROLE_UNKNOWN_SEG) {
		d->verdict = PF_AAPOLICY_LV_UNKNOWN_SEGMENT;
		return 0;
	}
	if (raid_visible_sublvs(g, t)) {
		d->verdict = PF_AAPOLICY_LV_RAID_VISIBLE_SUBLVS;
		return 0;
	}
	d->verdict = g->active[t] ? PF_AAPOLICY_LV_ALREADY_ACTIVE : PF_AAPOLICY_LV_ACTIVATE;
	return 0;
}

/*
 * Who brings a sub-LV up: the LV naming it (from scan_refs), except that a COW comes up with
 * its origin, a sparse snapshot's virtual origin with its COW, and snapshotN with its origin.
 * Also which thin pools have an active user.
 */
static void note_holders(struct graph *g, unsigned l)
{
	const struct pf_vg_lv *lv = &g->vg->lvs[l];

	if (is_cow(g, l)) {
		int o = g->cow_origin[l];

		g->holder[l] = o;
		if (is_virtual_origin(g, o))
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

static void graph_release(struct graph *g)
{
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
}

static int graph_build(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
		       struct graph *g, struct pf_aapolicy *p)
{
	size_t n = vg->n_lvs ? vg->n_lvs : 1, np = vg->n_pvs ? vg->n_pvs : 1;

	g->vg = vg;
	g->in = in;
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
		g->lv_names[l] = (struct name_idx){ vg->lvs[l].name, l };
		g->cow_origin[l] = -1;
		g->holder[l] = -1;
		g->active[l] = in->lv_active && in->lv_active[l];
	}
	qsort(g->lv_names, g->n, sizeof(*g->lv_names), name_idx_cmp);
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		bool present = !in->pv_present || in->pv_present[i];

		g->pv_names[i] = (struct name_idx){ vg->pvs[i].key, i };
		g->pv_missing[i] = !present || (vg->pvs[i].status & PF_PV_MISSING);
	}
	qsort(g->pv_names, vg->n_pvs, sizeof(*g->pv_names), name_idx_cmp);

	/* Count first (own_missing is recomputed identically by the second pass). */
	scan_refs(g, false);
	if (g->n_refs > PF_AAPOLICY_REFS_MAX)
		return -E2BIG;
	g->refs = calloc(g->n_refs ? g->n_refs : 1, sizeof(*g->refs));
	g->ref_sub = calloc(g->n_refs ? g->n_refs : 1, sizeof(*g->ref_sub));
	g->stack = calloc(g->n_refs ? g->n_refs : 1, sizeof(*g->stack));
	if (!g->refs || !g->ref_sub || !g->stack)
		return -ENOMEM;
	for (unsigned l = 0; l < g->n; l++)
		note_own_roles(g, l);
	scan_refs(g, true);

	/* A MISSING flag on a present PV counts only while extents on it are in use (compat). */
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

	for (unsigned l = 0; l < g->n; l++) {
		g->visible[l] = compute_visible(g, l, 0);
		if (g->visible[l] && g->active[l])
			p->n_active++;
		if (!g->visible[l] && g->active[l])
			g->any_hidden_active = true;
	}
	for (unsigned l = 0; l < g->n; l++)
		note_holders(g, l);
	/* Top-level LVs have no holder, except the COW of a visible origin, which -aay skips. */
	for (unsigned l = 0; l < g->n; l++)
		if (g->visible[l] && !(is_cow(g, l) && !is_virtual_origin(g, g->cow_origin[l])))
			g->holder[l] = -1;
	return compute_partial(g);
}

int pf_aapolicy_decide(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
		       struct pf_aapolicy **ret)
{
	struct graph g = { 0 };
	struct pf_aapolicy *p = NULL;
	unsigned walk = 0;
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
	r = p->lvs && p->pvs ? graph_build(vg, in, &g, p) : -ENOMEM;
	if (r < 0)
		goto out;

	for (unsigned i = 0; i < vg->n_lvs; i++) {
		p->lvs[i].verdict = PF_AAPOLICY_LV_NOT_REACHED;
		p->lvs[i].target = -1;
		p->lvs[i].component = -1;
		p->lvs[i].top_level = g.visible[i];
		p->lvs[i].holder = g.holder[i];
		p->lvs[i].partial = g.partial[i];
	}
	p->verdict = vg_gates(&g, p);
	if (p->verdict == PF_AAPOLICY_VG_OK) {
		for (unsigned i = 0; i < vg->n_lvs && r == 0; i++) {
			r = decide_lv(&g, p, i, &walk);
			if (pf_aapolicy_lv_is_error(p->lvs[i].verdict))
				p->failed = true;
		}
		if (r < 0)
			goto out;
	}
	*ret = TAKE_PTR(p);
	r = 0;
out:
	graph_release(&g);
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

/* ---- messages ---- */

struct msgs {
	struct pf_aapolicy_msg *v;
	size_t cap, n;
};

static void add(struct msgs *m, enum pf_aapolicy_level level, bool prefix, const char *fmt, ...)
	_printf_(4, 5);

static void add(struct msgs *m, enum pf_aapolicy_level level, bool prefix, const char *fmt, ...)
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
		add(m, PF_AAPOLICY_LOG_ERROR, true, "activation for VG %.128s cannot read (%x).",
		    vg->name, bits);
		return;
	}
	switch (bits) {
	case 0x400: /* FAILED_SYSTEMID: vg_read said it once already, _ignore_vg says it again */
		add(m, PF_AAPOLICY_LOG_ERROR, false,
		    "Cannot access VG %.128s with system ID %.128s with unknown local system ID.",
		    vg->name, vg->system_id);
		break;
	case 0x40: /* FAILED_CLUSTERED */
		add(m, PF_AAPOLICY_LOG_ERROR, false, "Cannot access clustered VG %.128s.", vg->name);
		add(m, PF_AAPOLICY_LOG_ERROR, false,
		    "See lvmlockd(8) for changing a clvm/clustered VG to a shared VG.");
		break;
	default:
		add(m, PF_AAPOLICY_LOG_ERROR, false, "Cannot process volume group %.128s", vg->name);
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
		add(m, PF_AAPOLICY_LOG_PRINT, true, "VG %.128s skip autoactivation.", vg->name);
		return;
	default:
		break;
	}
	if (in->claim == PF_AAPOLICY_CLAIM_WON)
		add(m, PF_AAPOLICY_LOG_PRINT, true, "VG %.128s run autoactivation.", vg->name);
	switch (p->verdict) {
	case PF_AAPOLICY_VG_FOREIGN:
		if (p->foreign_active)
			add(m, PF_AAPOLICY_LOG_WARN, false,
			    "WARNING: Found LVs active in VG %.128s with foreign system ID %.128s.  Possible data corruption.",
			    vg->name, vg->system_id);
		else
			add(m, PF_AAPOLICY_LOG_ERROR, false,
			    "Cannot access VG %.128s with system ID %.128s with unknown local system ID.",
			    vg->name, vg->system_id);
		read_failed(m, vg, in, 0x400);
		break;
	case PF_AAPOLICY_VG_CLUSTERED:
		add(m, PF_AAPOLICY_LOG_VERBOSE, false, "Skipping clustered VG %.128s.", vg->name);
		read_failed(m, vg, in, 0x40);
		break;
	case PF_AAPOLICY_VG_READ_ONLY:
		add(m, PF_AAPOLICY_LOG_ERROR, false, "Volume group %.128s is read-only.", vg->name);
		read_failed(m, vg, in, 0x8);
		break;
	case PF_AAPOLICY_VG_MISSING_PVS:
		add(m, PF_AAPOLICY_LOG_ERROR, false,
		    "Cannot change VG %.128s while PVs are missing.", vg->name);
		add(m, PF_AAPOLICY_LOG_ERROR, false,
		    "See vgreduce --removemissing and vgextend --restoremissing.");
		read_failed(m, vg, in, 0x1);
		break;
	case PF_AAPOLICY_VG_NOAUTOACTIVATE:
		add(m, PF_AAPOLICY_LOG_DEBUG, false, "Autoactivation is disabled for VG %.128s.",
		    vg->name);
		break;
	default:
		break;
	}
}

static void vg_messages_vgchange(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
				 const struct pf_aapolicy *p, struct msgs *m)
{
	bool unknown = !has_system_id(in->system_id) || in->system_id_unknown;

	if (p->foreign_active)
		add(m, PF_AAPOLICY_LOG_WARN, false,
		    "WARNING: Found LVs active in VG %.128s with foreign system ID %.128s.  Possible data corruption.",
		    vg->name, vg->system_id);
	switch (p->verdict) {
	case PF_AAPOLICY_VG_SHARED:
		add(m, PF_AAPOLICY_LOG_ERROR, false,
		    "Cannot access VG %.128s with lock type %.64s that requires lvmlockd.",
		    vg->name, vg->lock_type);
		break;
	case PF_AAPOLICY_VG_FOREIGN:
		if (p->foreign_active || system_id_allowed(in, vg)) {
			/* Read, but vgchange_activate() refuses. */
			add(m, PF_AAPOLICY_LOG_ERROR, false,
			    "Cannot activate LVs in a foreign VG.");
		} else if (unknown) {
			/* vg_read() prints this itself, then process_each_vg() again. */
			for (int k = 0; k < 2; k++)
				add(m, PF_AAPOLICY_LOG_ERROR, false,
				    "Cannot access VG %.128s with system ID %.128s with unknown local system ID.",
				    vg->name, vg->system_id);
		} else {
			add(m, PF_AAPOLICY_LOG_ERROR, false,
			    "Cannot access VG %.128s with system ID %.128s with local system ID %.128s.",
			    vg->name, vg->system_id, in->system_id);
		}
		break;
	case PF_AAPOLICY_VG_CLUSTERED:
		add(m, PF_AAPOLICY_LOG_VERBOSE, false, "Skipping clustered VG %.128s.", vg->name);
		add(m, PF_AAPOLICY_LOG_ERROR, false, "Cannot access clustered VG %.128s.",
		    vg->name);
		add(m, PF_AAPOLICY_LOG_ERROR, false,
		    "See lvmlockd(8) for changing a clvm/clustered VG to a shared VG.");
		break;
	case PF_AAPOLICY_VG_EXPORTED:
		add(m, PF_AAPOLICY_LOG_ERROR, false, "Volume group %.128s is exported", vg->name);
		break;
	case PF_AAPOLICY_VG_READ_ONLY:
		add(m, PF_AAPOLICY_LOG_ERROR, false, "Volume group %.128s is read-only.", vg->name);
		add(m, PF_AAPOLICY_LOG_ERROR, false, "Cannot process volume group %.128s",
		    vg->name);
		break;
	case PF_AAPOLICY_VG_NOAUTOACTIVATE:
		add(m, PF_AAPOLICY_LOG_DEBUG, false, "Autoactivation is disabled for VG %.128s.",
		    vg->name);
		break;
	case PF_AAPOLICY_VG_INCOMPLETE:
		add(m, PF_AAPOLICY_LOG_PRINT, false, "VG %.128s is incomplete.", vg->name);
		break;
	default:
		break;
	}
}

int pf_aapolicy_vg_messages(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
			    const struct pf_aapolicy *p, struct pf_aapolicy_msg *ret, size_t n)
{
	struct msgs m = { .v = ret, .cap = ret ? n : 0 };

	if (in->mode == PF_AAPOLICY_PVSCAN)
		vg_messages_pvscan(vg, in, p, &m);
	else
		vg_messages_vgchange(vg, in, p, &m);
	if (p->verdict == PF_AAPOLICY_VG_OK && p->n_active)
		add(&m, PF_AAPOLICY_LOG_VERBOSE, false,
		    "%u logical volume(s) in volume group \"%.128s\" already active", p->n_active,
		    vg->name);
	return (int)m.n;
}

int pf_aapolicy_read_messages(const struct pf_vg *vg, const struct pf_aapolicy *p,
			      const struct pf_aapolicy_copy *copies, size_t n_copies,
			      const char *const *pv_dev, struct pf_aapolicy_msg *ret, size_t n)
{
	struct msgs m = { .v = ret, .cap = ret ? n : 0 };
	const struct pf_aapolicy_copy *best = NULL;
	bool old = false;
	char id[PF_ID_DASHED_LEN + 1];

	/* The newest copy wins; every other seqno met on the way is named against it. */
	for (size_t i = 0; copies && i < n_copies; i++) {
		const struct pf_aapolicy_copy *c = &copies[i], *lost;

		if (!best || c->seqno == best->seqno) {
			best = best ? best : c;
			continue;
		}
		lost = c->seqno > best->seqno ? best : c;
		if (lost == best)
			best = c;
		add(&m, PF_AAPOLICY_LOG_WARN, false,
		    "WARNING: ignoring metadata seqno %u on %.200s for seqno %u on %.200s for VG %.128s.",
		    lost->seqno, lost->dev, best->seqno, best->dev, vg->name);
		old = true;
	}
	if (old) {
		add(&m, PF_AAPOLICY_LOG_WARN, false, "WARNING: Inconsistent metadata found for VG %.128s.",
		    vg->name);
		add(&m, PF_AAPOLICY_LOG_WARN, false, "See vgck --updatemetadata to correct inconsistency.");
	}
	/* set_pv_devices() first, then the check of every PV (lvm2's _vg_read order). */
	for (unsigned i = 0; i < vg->n_pvs; i++)
		if ((vg->pvs[i].status & PF_PV_MISSING) && pv_dev[i])
			add(&m, PF_AAPOLICY_LOG_WARN, false,
			    "WARNING: VG %.128s was previously updated while PV %.200s was missing.",
			    vg->name, pv_dev[i]);
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		if (!pv_dev[i] || (p->pvs[i] != PF_AAPOLICY_PV_REAPPEARED &&
				   p->pvs[i] != PF_AAPOLICY_PV_REAPPEARED_UNUSED))
			continue;
		pf_id_format_dashed(vg->pvs[i].id, id);
		add(&m, PF_AAPOLICY_LOG_WARN, false, "WARNING: VG %.128s %s PV %.200s %s.", vg->name,
		    p->pvs[i] == PF_AAPOLICY_PV_REAPPEARED ? "was missing" : "has unused reappeared",
		    pv_dev[i], id);
	}
	return (int)m.n;
}

static void ignoring(struct msgs *m, const char *setting, bool tag)
{
	/* lvm2's two lines differ in the final period */
	if (tag)
		add(m, PF_AAPOLICY_LOG_PRINT, false, "Ignoring empty tag in config file activation/%s",
		    setting);
	else
		add(m, PF_AAPOLICY_LOG_PRINT, false,
		    "Ignoring empty string in config file activation/%s.", setting);
}

/* The lines of lvm2's list check (_lv_passes_volumes_filter) for one LV. */
static void list_lines(struct msgs *m, const char *setting, const struct pf_aapolicy_list *list,
		       const struct pf_aapolicy_input *in, const struct pf_vg *vg,
		       const struct pf_vg_lv *lv)
{
	add(m, PF_AAPOLICY_LOG_VERBOSE, false,
	    "activation/%s configuration setting defined: Checking the list to match %.128s/%.128s.",
	    setting, vg->name, lv->name);
	if (!list_walk(list, &in->host_tags, vg, lv, m, setting))
		add(m, PF_AAPOLICY_LOG_VERBOSE, false,
		    "No item supplied in activation/%s configuration setting matches %.128s/%.128s.",
		    setting, vg->name, lv->name);
}

int pf_aapolicy_lv_messages(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
			    const struct pf_aapolicy *p, unsigned i, struct pf_aapolicy_msg *ret,
			    size_t n)
{
	struct msgs m = { .v = ret, .cap = ret ? n : 0 };
	const struct pf_aapolicy_lv *d;
	enum pf_aapolicy_lv_verdict v;
	const char *vgn = vg->name, *lvn;

	if (i >= p->n_lvs || i >= vg->n_lvs || p->lvs[i].target < 0 ||
	    (unsigned)p->lvs[i].target >= vg->n_lvs)
		return 0;
	d = &p->lvs[i];
	v = d->verdict;
	lvn = vg->lvs[d->target].name;
	if (v == PF_AAPOLICY_LV_ACTIVATION_SKIP) {
		add(&m, PF_AAPOLICY_LOG_VERBOSE, false,
		    "ACTIVATION_SKIP flag set for LV %.128s/%.128s, skipping activation.", vgn,
		    lvn);
		return (int)m.n;
	}
	if (in->auto_activation_volume_list.set)
		list_lines(&m, "auto_activation_volume_list", &in->auto_activation_volume_list, in,
			   vg, &vg->lvs[d->target]);
	else
		add(&m, PF_AAPOLICY_LOG_VERBOSE, false,
		    "activation/auto_activation_volume_list configuration setting not defined: All logical volumes will be auto-activated.");
	switch (v) {
	case PF_AAPOLICY_LV_NOT_IN_AUTO_LIST:
	case PF_AAPOLICY_LV_NOAUTOACTIVATE:
		return (int)m.n;
	case PF_AAPOLICY_LV_CACHE_POOL:
		add(&m, PF_AAPOLICY_LOG_VERBOSE, false,
		    "Skipping activation of cache pool %.128s/%.128s.", vgn, lvn);
		return (int)m.n;
	case PF_AAPOLICY_LV_DUPLICATE_PVS:
		add(&m, PF_AAPOLICY_LOG_ERROR, false,
		    "Cannot activate LVs in VG %.128s while PVs appear on duplicate devices.", vgn);
		return (int)m.n;
	case PF_AAPOLICY_LV_INTEGRITY_RECALC:
		add(&m, PF_AAPOLICY_LOG_ERROR, false,
		    "Cannot activate uninitialized integrity LV %.128s/%.128s from pvscan.", vgn,
		    lvn);
		return (int)m.n;
	default:
		break;
	}
	add(&m, PF_AAPOLICY_LOG_VERBOSE, false, "Activating logical volume %.128s/%.128s.", vgn,
	    lvn);
	if (v == PF_AAPOLICY_LV_COMPONENT_ACTIVE && d->component >= 0 &&
	    (unsigned)d->component < vg->n_lvs) {
		add(&m, PF_AAPOLICY_LOG_ERROR, false,
		    "Activation of logical volume %.128s/%.128s is prohibited while logical volume %.128s/%.128s is active.",
		    vgn, lvn, vgn, vg->lvs[d->component].name);
		return (int)m.n;
	}
	if (in->volume_list.set) {
		list_lines(&m, "volume_list", &in->volume_list, in, vg, &vg->lvs[d->target]);
	} else {
		add(&m, PF_AAPOLICY_LOG_VERBOSE, false,
		    "activation/volume_list configuration setting not defined: Checking only host tags for %.128s/%.128s.",
		    vgn, lvn);
		if (v == PF_AAPOLICY_LV_NOT_IN_VOLUME_LIST)
			add(&m, PF_AAPOLICY_LOG_VERBOSE, false, "No host tag matches %.128s/%.128s",
			    vgn, lvn);
	}
	switch (v) {
	case PF_AAPOLICY_LV_NOT_IN_VOLUME_LIST:
		add(&m, PF_AAPOLICY_LOG_VERBOSE, false,
		    "Not activating %.128s/%.128s since it does not pass activation filter.", vgn,
		    lvn);
		break;
	case PF_AAPOLICY_LV_PARTIAL:
		add(&m, PF_AAPOLICY_LOG_ERROR, false,
		    "Refusing activation of partial LV %.128s/%.128s.  Use '--activationmode partial' to override.",
		    vgn, lvn);
		break;
	case PF_AAPOLICY_LV_UNKNOWN_SEGMENT:
		add(&m, PF_AAPOLICY_LOG_ERROR, false,
		    "Refusing activation of LV %.128s/%.128s containing an unrecognised segment.",
		    vgn, lvn);
		break;
	case PF_AAPOLICY_LV_RAID_VISIBLE_SUBLVS:
		add(&m, PF_AAPOLICY_LOG_ERROR, false,
		    "Refusing activation of RAID LV %.128s/%.128s with visible SubLVs.", vgn, lvn);
		break;
	case PF_AAPOLICY_LV_ALREADY_ACTIVE:
		add(&m, PF_AAPOLICY_LOG_DEBUG, false, "LV %.128s/%.128s is already active.", vgn,
		    lvn);
		break;
	default:
		break;
	}
	return (int)m.n;
}
