/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The dm name, UUID, table, ro flag and read-ahead lvm2 2.03.16 uses for a simple LV. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "activate/dmtable.h"
#include "base/span.h"

#define UUID_PREFIX "LVM-"
#define DEFAULT_PAGE_SECTORS 8U

/* LV status bits of a plain device; the others mean pvmove, raid, mirror or a fixed minor. */
#define LV_STATUS_NATIVE (PF_LV_READ | PF_LV_WRITE | PF_LV_VISIBLE)

/* flags = [...] strings that change nothing in the device (the skip flags are -aay gates). */
static const char *const lv_flags_native[] = {
	"WRITE_LOCKED",
	"ACTIVATION_SKIP",
	"NOAUTOACTIVATE",
};

/* lvm2's reserved LV names (apply_lvname_restrictions): such an LV is some stack's part. */
static const char *const reserved_prefixes[] = { "pvmove", "snapshot" };
static const char *const reserved_strings[] = {
	"_cdata", "_cmeta", "_corig", "_cpool", "_cvol", "_wcorig", "_mimage", "_mlog", "_rimage",
	"_rmeta", "_tdata", "_tmeta", "_vdata", "_imeta", "_iorig", "_pmspare", "_vorigin",
};

enum seg_kind {
	SEG_OTHER,
	SEG_STRIPED,
	SEG_ERROR,
	SEG_ZERO,
};

static enum seg_kind seg_kind(const struct pf_vg_seg *seg)
{
	if (seg->is_striped)
		return SEG_STRIPED;
	if (strcmp(seg->type, "error") == 0)
		return SEG_ERROR;
	if (strcmp(seg->type, "zero") == 0)
		return SEG_ZERO;
	return SEG_OTHER;
}

static size_t quoted_len(const char *s)
{
	size_t n = 0;

	for (; *s; s++)
		n += *s == '-' ? 2 : 1;
	return n;
}

static char *quote_hyphens(char *out, const char *s)
{
	for (; *s; s++) {
		*out++ = *s;
		if (*s == '-')
			*out++ = '-';
	}
	return out;
}

int pf_dmtable_name(const char *vg_name, const char *lv_name, const char *layer, char *ret,
		    size_t size)
{
	size_t need = quoted_len(vg_name) + 1 + quoted_len(lv_name);
	char *p = ret;

	if (layer && !*layer)
		layer = NULL;
	/* compat: a layer starting with '_' is appended without the '-' (lvm2's legacy _mlog). */
	if (layer)
		need += (layer[0] != '_') + quoted_len(layer);
	if (need >= size)
		return -ENAMETOOLONG;
	p = quote_hyphens(p, vg_name);
	*p++ = '-';
	p = quote_hyphens(p, lv_name);
	if (layer) {
		if (layer[0] != '_')
			*p++ = '-';
		p = quote_hyphens(p, layer);
	}
	*p = '\0';
	return 0;
}

int pf_dmtable_uuid(const char *vg_id, const char *lv_id, const char *layer, char *ret,
		    size_t size)
{
	int n;

	if (layer && !*layer)
		layer = NULL;
	n = snprintf(NULL, 0, "%s%s%s%s%s", UUID_PREFIX, vg_id, lv_id, layer ? "-" : "",
		     layer ? layer : "");
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	(void)snprintf(ret, size, "%s%s%s%s%s", UUID_PREFIX, vg_id, lv_id, layer ? "-" : "",
		       layer ? layer : "");
	return 0;
}

static bool str_in(const char *s, const char *const *list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(s, list[i]) == 0)
			return true;
	return false;
}

static const char *reserved_name_part(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(reserved_prefixes); i++)
		if (strncmp(name, reserved_prefixes[i], strlen(reserved_prefixes[i])) == 0)
			return reserved_prefixes[i];
	for (size_t i = 0; i < ARRAY_SIZE(reserved_strings); i++)
		if (strstr(name, reserved_strings[i]))
			return reserved_strings[i];
	return NULL;
}

/*
 * A segment's tags as lvm2 reads them: absent or not a list means none; a
 * non-string element makes lvm2 refuse the VG. Returns false for that.
 */
static bool seg_tags(const struct pf_vg_seg *seg, const struct pf_cfg_value **ret)
{
	const struct pf_cfg_value *v;

	*ret = NULL;
	if (pf_cfg_get_list(seg->raw, "tags", &v) < 0 || v->type == PF_CFG_EMPTY_ARRAY)
		return true;
	for (const struct pf_cfg_value *t = v; t; t = t->next)
		if (t->type != PF_CFG_STRING)
			return false;
	*ret = v;
	return true;
}

static bool tag_in(const struct pf_cfg_value *list, const char *tag)
{
	for (; list; list = list->next)
		if (strcmp(list->v.s, tag) == 0)
			return true;
	return false;
}

/* lvm2 keeps tags as sets (duplicates dropped on read) and merges only equal sets. */
static bool tags_equal(const struct pf_vg_seg *a, const struct pf_vg_seg *b)
{
	const struct pf_cfg_value *ta, *tb;

	if (!seg_tags(a, &ta) || !seg_tags(b, &tb))
		return false;
	for (const struct pf_cfg_value *t = ta; t; t = t->next)
		if (!tag_in(tb, t->v.s))
			return false;
	for (const struct pf_cfg_value *t = tb; t; t = t->next)
		if (!tag_in(ta, t->v.s))
			return false;
	return true;
}

/*
 * Whether a segment of another LV names lv: as a stripe, or in any setting
 * of a non-striped segment (origin, cow_store, pool, metadata, raids, ...).
 * Matching every string value errs towards delegating.
 */
static bool seg_refers_to(const struct pf_vg_seg *seg, const char *name)
{
	if (seg->is_striped) {
		for (unsigned a = 0; a < seg->n_areas; a++)
			if (seg->areas[a].pv_index < 0 && strcmp(seg->areas[a].name, name) == 0)
				return true;
		return false;
	}
	for (const struct pf_cfg_node *c = seg->raw->child; c; c = c->next) {
		if (strcmp(c->key, "type") == 0 || strcmp(c->key, "tags") == 0)
			continue;
		for (const struct pf_cfg_value *v = c->value; v; v = v->next)
			if (v->type == PF_CFG_STRING && strcmp(v->v.s, name) == 0)
				return true;
	}
	return false;
}

static bool flags_native(const struct pf_vg_lv *lv, struct pf_diag *why)
{
	const struct pf_cfg_value *v;

	if (pf_cfg_get_list(lv->raw, "flags", &v) < 0 || v->type == PF_CFG_EMPTY_ARRAY)
		return true;
	for (; v; v = v->next) {
		if (v->type != PF_CFG_STRING) {
			pf_diag_msg(why, "LV %s: non-string in flags", lv->name);
			return false;
		}
		if (!str_in(v->v.s, lv_flags_native, ARRAY_SIZE(lv_flags_native))) {
			pf_diag_msg(why, "LV %s: flag %.64s", lv->name, v->v.s);
			return false;
		}
	}
	return true;
}

static bool seg_native(const struct pf_vg *vg, const struct pf_vg_lv *lv,
		       const struct pf_vg_seg *seg, struct pf_diag *why)
{
	const struct pf_cfg_value *tags;
	uint64_t width;

	if (pf_vg_seg_has_type_flags(seg) || seg_kind(seg) == SEG_OTHER) {
		pf_diag_msg(why, "LV %s %s: segment type %.64s", lv->name, seg->key, seg->type);
		return false;
	}
	if (!seg_tags(seg, &tags)) {
		pf_diag_msg(why, "LV %s %s: non-string in tags", lv->name, seg->key);
		return false;
	}
	if (!seg->is_striped)
		return true;
	for (unsigned a = 0; a < seg->n_areas; a++) {
		const struct pf_vg_area *ar = &seg->areas[a];

		if (ar->pv_index < 0) {
			pf_diag_msg(why, "LV %s %s: stripe on LV %s", lv->name, seg->key, ar->name);
			return false;
		}
		if (vg->pvs[ar->pv_index].status & PF_PV_MISSING) {
			pf_diag_msg(why, "LV %s %s: PV %s is flagged MISSING", lv->name, seg->key,
				    ar->name);
			return false;
		}
	}
	/* The kernel's striped target wants each stripe a whole number of chunks. */
	width = (uint64_t)(seg->extent_count / seg->stripe_count) * vg->extent_size;
	if (seg->stripe_count > 1 && width % seg->stripe_size) {
		pf_diag_msg(why, "LV %s %s: stripe of %" PRIu64 " sectors is not a multiple of "
			    "stripe_size %" PRIu32, lv->name, seg->key, width, seg->stripe_size);
		return false;
	}
	return true;
}

bool pf_dmtable_lv_native(const struct pf_vg *vg, const struct pf_vg_lv *lv, struct pf_diag *why)
{
	const char *part;

	pf_diag_clear(why);
	if (!(lv->status & PF_LV_VISIBLE)) {
		pf_diag_msg(why, "LV %s is hidden (a component of another LV)", lv->name);
		return false;
	}
	if (lv->status & ~(uint32_t)(LV_STATUS_NATIVE | PF_LV_WRITE_LOCKED | PF_LV_ACTIVATION_SKIP |
				     PF_LV_NOAUTOACTIVATE)) {
		pf_diag_msg(why, "LV %s: status or flags beyond READ, WRITE, VISIBLE (0x%" PRIx32
			    ")", lv->name, lv->status);
		return false;
	}
	if (!flags_native(lv, why))
		return false;
	part = reserved_name_part(lv->name);
	if (part) {
		pf_diag_msg(why, "LV %s: name has lvm2's reserved \"%s\"", lv->name, part);
		return false;
	}
	for (unsigned s = 0; s < lv->n_segs; s++)
		if (!seg_native(vg, lv, &lv->segs[s], why))
			return false;
	for (unsigned l = 0; l < vg->n_lvs; l++) {
		const struct pf_vg_lv *other = &vg->lvs[l];

		if (other == lv)
			continue;
		for (unsigned s = 0; s < other->n_segs; s++)
			if (seg_refers_to(&other->segs[s], lv->name)) {
				pf_diag_msg(why, "LV %s is used by LV %s (%.64s)", lv->name,
					    other->name, other->segs[s].type);
				return false;
			}
	}
	return true;
}

/* One target: a run of segments lvm2 merges into one (lv_merge_segments). */
struct run {
	const struct pf_vg_seg *first; /* type, stripes and areas come from here */
	uint64_t start_extent;
	uint64_t extents;      /* over all stripes */
	uint64_t area_extents; /* per stripe */
};

/*
 * Whether lvm2 folds next into the run: same type; error and zero always;
 * striped with the same stripe count and size, every area on the same PV
 * continuing right after the run's, and equal segment tags.
 */
static bool run_takes(const struct run *r, const struct pf_vg_seg *next)
{
	const struct pf_vg_seg *first = r->first;

	if (seg_kind(first) != seg_kind(next))
		return false;
	if (!first->is_striped)
		return true;
	if (first->stripe_count != next->stripe_count || first->stripe_size != next->stripe_size)
		return false;
	for (unsigned a = 0; a < first->n_areas; a++)
		if (first->areas[a].pv_index != next->areas[a].pv_index ||
		    (uint64_t)first->areas[a].start_extent + r->area_extents !=
			    next->areas[a].start_extent)
			return false;
	return tags_equal(first, next);
}

/* The run starting at segment *i; advances *i past it. */
static void next_run(const struct pf_vg_lv *lv, unsigned *i, struct run *ret)
{
	const struct pf_vg_seg *seg = &lv->segs[*i];

	ret->first = seg;
	ret->start_extent = seg->start_extent;
	ret->extents = seg->extent_count;
	ret->area_extents = seg->is_striped ? seg->extent_count / seg->stripe_count : 0;
	for ((*i)++; *i < lv->n_segs && run_takes(ret, &lv->segs[*i]); (*i)++) {
		seg = &lv->segs[*i];
		ret->extents += seg->extent_count;
		if (seg->is_striped)
			ret->area_extents += seg->extent_count / seg->stripe_count;
	}
}

/* What lvm2 refuses: an empty striped segment, an area past the end of its PV. */
static int check_segs(const struct pf_vg *vg, const struct pf_vg_lv *lv, struct pf_diag *reterr)
{
	if (!lv->n_segs) {
		pf_diag_msg(reterr, "LV %s has no segments", lv->name);
		return -EBADMSG;
	}
	if (lv->extent_count > UINT32_MAX) {
		pf_diag_msg(reterr, "LV %s: %" PRIu64 " extents overflow lvm2's 32-bit count",
			    lv->name, lv->extent_count);
		return -EOVERFLOW;
	}
	for (unsigned s = 0; s < lv->n_segs; s++) {
		const struct pf_vg_seg *seg = &lv->segs[s];
		uint64_t len;

		if (!seg->is_striped)
			continue;
		if (!seg->extent_count) {
			pf_diag_msg(reterr, "LV %s %s: no extents", lv->name, seg->key);
			return -EBADMSG;
		}
		len = seg->extent_count / seg->stripe_count;
		for (unsigned a = 0; a < seg->n_areas; a++) {
			const struct pf_vg_area *ar = &seg->areas[a];

			if (ar->start_extent + len > vg->pvs[ar->pv_index].pe_count) {
				pf_diag_msg(reterr, "LV %s %s: extents %" PRIu32 "+%" PRIu64
					    " past the end of %s (%" PRIu32 " extents)", lv->name,
					    seg->key, ar->start_extent, len, ar->name,
					    vg->pvs[ar->pv_index].pe_count);
				return -EBADMSG;
			}
		}
	}
	return 0;
}

/* lvm2 refuses a partial LV unless --activationmode partial, which -aay never uses. */
static int check_devices(const struct pf_vg_lv *lv, const struct pf_dm_pvmap *map,
			 struct pf_diag *reterr)
{
	for (unsigned s = 0; s < lv->n_segs; s++) {
		const struct pf_vg_seg *seg = &lv->segs[s];

		for (unsigned a = 0; seg->is_striped && a < seg->n_areas; a++) {
			unsigned pv = (unsigned)seg->areas[a].pv_index;

			if (pv >= map->n || !map->pvs[pv].present) {
				pf_diag_msg(reterr, "LV %s is partial: %s has no device", lv->name,
					    seg->areas[a].name);
				return -ENODEV;
			}
		}
	}
	return 0;
}

/* lvm2's _add_new_lv_to_dtree: metadata value, else activation/readahead; auto from stripes. */
static int read_ahead(const struct pf_vg_lv *lv, const struct pf_dmtable_opts *o,
		      struct pf_dm_read_ahead *ret, struct pf_diag *reterr)
{
	const struct pf_vg_seg *first = &lv->segs[0];
	uint64_t max = 0;
	bool is_auto;

	*ret = (struct pf_dm_read_ahead){ .kind = PF_DM_RA_SET, .pv_index = -1 };
	if (lv->has_read_ahead && lv->read_ahead > 0) {
		ret->sectors = (uint32_t)lv->read_ahead;
		return 0;
	}
	/* compat: in metadata 0 means auto and -1 none; absent means the configured default. */
	if (lv->has_read_ahead)
		is_auto = lv->read_ahead == 0;
	else
		is_auto = o->readahead == PF_DM_RA_CONFIG_AUTO;
	if (!is_auto)
		return 0;

	for (unsigned s = 0; s < lv->n_segs; s++) {
		const struct pf_vg_seg *seg = &lv->segs[s];
		uint64_t w = (uint64_t)seg->stripe_size * seg->n_areas;

		if (seg->is_striped && w > max)
			max = w;
	}
	/* Twice a full stripe, as md raid0 wants; lvm2 computes it in 32 bits. */
	if (max > UINT32_MAX / 2) {
		pf_diag_msg(reterr, "LV %s: read-ahead for %" PRIu64 "-sector stripes overflows",
			    lv->name, max);
		return -EOVERFLOW;
	}
	if (max) {
		ret->kind = PF_DM_RA_MINIMUM;
		ret->sectors = (uint32_t)(2 * max);
	} else if (first->is_striped) {
		ret->kind = PF_DM_RA_MINIMUM_PV;
		ret->pv_index = first->areas[0].pv_index;
	} else {
		/* A minimum of 0 never changes anything. */
		ret->kind = PF_DM_RA_LEAVE;
	}
	return 0;
}

/* printf into a growing string, capped so hostile stripe counts cannot run away. */
struct strbuf {
	char *p;
	size_t len, cap;
	size_t *budget; /* bytes left for the whole table */
};

static int sb_printf(struct strbuf *b, const char *fmt, ...) _printf_(2, 3);

static int sb_printf(struct strbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0)
		return -EINVAL;
	if ((size_t)n > *b->budget)
		return -E2BIG;
	if (b->len + (size_t)n + 1 > b->cap) {
		size_t cap = b->cap ? b->cap : 64;
		char *p;

		while (cap < b->len + (size_t)n + 1)
			cap *= 2;
		p = realloc(b->p, cap);
		if (!p)
			return -ENOMEM;
		b->p = p;
		b->cap = cap;
	}
	va_start(ap, fmt);
	(void)vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
	*b->budget -= (size_t)n;
	return 0;
}

/* Sector offset of extent pe on the PV: pe_start + pe * extent_size. */
static int area_offset(const struct pf_vg *vg, const struct pf_vg_area *ar, uint64_t *ret)
{
	uint64_t off;

	if (pf_mul_overflow_u64(ar->start_extent, vg->extent_size, &off) ||
	    pf_add_overflow_u64(off, vg->pvs[ar->pv_index].pe_start, &off))
		return -EOVERFLOW;
	*ret = off;
	return 0;
}

static int emit_params(const struct pf_vg *vg, const struct pf_dm_pvmap *map, const struct run *r,
		       const struct pf_dmtable_opts *o, struct pf_dm_target *t, struct strbuf *b)
{
	const struct pf_vg_seg *seg = r->first;
	uint32_t page = o->page_sectors ? o->page_sectors : DEFAULT_PAGE_SECTORS;
	int rc = 0;

	if (seg_kind(seg) == SEG_ERROR || seg_kind(seg) == SEG_ZERO) {
		(void)snprintf(t->type, sizeof(t->type), "%s", seg->type);
		return sb_printf(b, "%s", "");
	}
	if (seg->stripe_count > 1) {
		(void)snprintf(t->type, sizeof(t->type), "striped");
		rc = sb_printf(b, "%" PRIu32 " %" PRIu32, seg->stripe_count, seg->stripe_size);
	} else if (o->striped_for_linear && vg->extent_size >= page) {
		/* use_linear_target = 0: one stripe of one extent, unless below a page. */
		(void)snprintf(t->type, sizeof(t->type), "striped");
		rc = sb_printf(b, "1 %" PRIu32, vg->extent_size);
	} else {
		(void)snprintf(t->type, sizeof(t->type), "linear");
	}
	for (unsigned a = 0; rc == 0 && a < seg->n_areas; a++) {
		const struct pf_dm_pvdev *dev = &map->pvs[seg->areas[a].pv_index];
		uint64_t off;

		rc = area_offset(vg, &seg->areas[a], &off);
		if (rc == 0)
			rc = sb_printf(b, "%s%" PRIu32 ":%" PRIu32 " %" PRIu64, b->len ? " " : "",
				       dev->major, dev->minor, off);
	}
	return rc;
}

static int build_targets(const struct pf_vg *vg, const struct pf_vg_lv *lv,
			 const struct pf_dm_pvmap *map, const struct pf_dmtable_opts *o,
			 struct pf_dm_table *t, struct pf_diag *reterr)
{
	size_t budget = PF_DMTABLE_PARAMS_MAX, n = 0;
	struct run r;
	unsigned i;
	int rc;

	for (i = 0; i < lv->n_segs; n++) {
		next_run(lv, &i, &r);
		/* An empty error or zero segment survives only when merged into a neighbour. */
		if (!r.extents) {
			pf_diag_msg(reterr, "LV %s %s: zero-length target", lv->name, r.first->key);
			return -EBADMSG;
		}
	}
	if (n > PF_DMTABLE_TARGETS_MAX) {
		pf_diag_msg(reterr, "LV %s: %zu targets, over the cap of %u", lv->name, n,
			    PF_DMTABLE_TARGETS_MAX);
		return -E2BIG;
	}
	t->targets = calloc(n, sizeof(*t->targets));
	if (!t->targets)
		return -ENOMEM;

	for (i = 0; i < lv->n_segs;) {
		/* Counted first so that a failed target's params are freed too. */
		struct pf_dm_target *tg = &t->targets[t->n_targets++];
		struct strbuf b = { .budget = &budget };

		next_run(lv, &i, &r);
		/* Cannot overflow: the LV's total was checked against 64 bits by the caller. */
		tg->start_sectors = r.start_extent * vg->extent_size;
		tg->len_sectors = r.extents * vg->extent_size;
		rc = emit_params(vg, map, &r, o, tg, &b);
		tg->params = b.p;
		if (rc == -EOVERFLOW)
			pf_diag_msg(reterr, "LV %s %s: device offset overflows 64 bits", lv->name,
				    r.first->key);
		else if (rc == -E2BIG)
			pf_diag_msg(reterr, "LV %s: table parameters over the cap of %u bytes",
				    lv->name, PF_DMTABLE_PARAMS_MAX);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int pf_dmtable_build(const struct pf_vg *vg, const struct pf_vg_lv *lv,
		     const struct pf_dm_pvmap *map, const struct pf_dmtable_opts *o,
		     struct pf_dm_table *ret, struct pf_diag *reterr)
{
	static const struct pf_dmtable_opts defaults;
	struct pf_dm_table t = { 0 };
	uint64_t total;
	int r;

	if (!o)
		o = &defaults;
	pf_diag_clear(reterr);
	if (!pf_dmtable_lv_native(vg, lv, reterr))
		return -EOPNOTSUPP;
	r = check_segs(vg, lv, reterr);
	if (r < 0)
		return r;
	if (pf_mul_overflow_u64(lv->extent_count, vg->extent_size, &total)) {
		pf_diag_msg(reterr, "LV %s: size overflows 64 bits", lv->name);
		return -EOVERFLOW;
	}
	r = check_devices(lv, map, reterr);
	if (r < 0)
		return r;
	r = pf_dmtable_name(vg->name, lv->name, NULL, t.name, sizeof(t.name));
	if (r < 0) {
		pf_diag_msg(reterr, "LV %s/%s: dm name longer than %u bytes", vg->name, lv->name,
			    PF_DM_NAME_LEN - 1);
		return r;
	}
	r = pf_dmtable_uuid(vg->id, lv->id, NULL, t.uuid, sizeof(t.uuid));
	if (r < 0) {
		pf_diag_msg(reterr, "LV %s: dm uuid too long", lv->name);
		return r;
	}
	r = read_ahead(lv, o, &t.read_ahead, reterr);
	if (r < 0)
		return r;
	t.read_only = o->read_only || !(lv->status & PF_LV_WRITE);

	r = build_targets(vg, lv, map, o, &t, reterr);
	if (r < 0)
		goto out_release;
	*ret = t;
	return 0;

out_release:
	pf_dmtable_release(&t);
	return r;
}

void pf_dmtable_release(struct pf_dm_table *table)
{
	if (!table)
		return;
	for (size_t i = 0; table->targets && i < table->n_targets; i++)
		free(table->targets[i].params);
	free(table->targets);
	*table = (struct pf_dm_table){ 0 };
}

int pf_dmtable_format(const struct pf_dm_table *table, char **ret)
{
	/* Each line adds two 20-digit numbers, the type and four separators to its params. */
	size_t budget = PF_DMTABLE_PARAMS_MAX + (size_t)PF_DMTABLE_TARGETS_MAX * (2 * 20 + 4 + 16);
	struct strbuf b = { .budget = &budget };
	int r = 0;

	if (table->n_targets > PF_DMTABLE_TARGETS_MAX)
		return -E2BIG;
	/* compat: dmsetup prints "start len type " and then the params, even when empty. */
	for (size_t i = 0; r == 0 && i < table->n_targets; i++) {
		const struct pf_dm_target *t = &table->targets[i];

		r = sb_printf(&b, "%" PRIu64 " %" PRIu64 " %s %s\n", t->start_sectors,
			      t->len_sectors, t->type, t->params ? t->params : "");
	}
	if (r == 0 && !b.p)
		r = sb_printf(&b, "%s", "");
	if (r < 0) {
		free(b.p);
		return r;
	}
	*ret = b.p;
	return 0;
}

bool pf_dmtable_read_ahead_value(const struct pf_dm_read_ahead *ra, uint32_t current,
				 uint32_t pv_sectors, uint32_t *ret)
{
	uint32_t want;

	switch (ra->kind) {
	case PF_DM_RA_SET:
		*ret = ra->sectors;
		return true;
	case PF_DM_RA_MINIMUM:
		want = ra->sectors;
		break;
	case PF_DM_RA_MINIMUM_PV:
		want = pv_sectors;
		break;
	case PF_DM_RA_LEAVE:
	default:
		return false;
	}
	/* libdm's minimum flag: only ever raise the kernel's value. */
	if (current >= want)
		return false;
	*ret = want;
	return true;
}
