/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Building struct pf_vg from one copy of VG metadata text, with lvm2's import checks. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/strutil.h"
#include "format/names.h"
#include "format/vg.h"

#define TEXT_CONTENTS "Text Format Volume Group"

struct flag_name {
	const char *name;
	uint32_t bit;
};

static const struct flag_name vg_status_names[] = {
	{ "EXPORTED", PF_VG_EXPORTED }, { "RESIZEABLE", PF_VG_RESIZEABLE },
	{ "PVMOVE", PF_VG_PVMOVE },	{ "READ", PF_VG_READ },
	{ "WRITE", PF_VG_WRITE },	{ "CLUSTERED", PF_VG_CLUSTERED },
	{ "SHARED", PF_VG_SHARED },	{ NULL, 0 },
};
static const struct flag_name vg_flag_names[] = {
	{ "WRITE_LOCKED", PF_VG_WRITE_LOCKED },
	{ "NOAUTOACTIVATE", PF_VG_NOAUTOACTIVATE },
	{ NULL, 0 },
};
static const struct flag_name pv_status_names[] = {
	{ "ALLOCATABLE", PF_PV_ALLOCATABLE },
	{ "EXPORTED", PF_PV_EXPORTED },
	{ "MISSING", PF_PV_MISSING },
	{ NULL, 0 },
};
static const struct flag_name pv_flag_names[] = {
	{ "MISSING", PF_PV_MISSING },
	{ NULL, 0 },
};
static const struct flag_name lv_status_names[] = {
	{ "READ", PF_LV_READ },		  { "WRITE", PF_LV_WRITE },
	{ "FIXED_MINOR", PF_LV_FIXED_MINOR }, { "VISIBLE", PF_LV_VISIBLE },
	{ "PVMOVE", PF_LV_PVMOVE },	  { "LOCKED", PF_LV_LOCKED },
	{ "NOTSYNCED", PF_LV_NOTSYNCED },	  { "REBUILD", PF_LV_REBUILD },
	{ "WRITEMOSTLY", PF_LV_WRITEMOSTLY }, { NULL, 0 },
};
static const struct flag_name lv_flag_names[] = {
	{ "WRITE_LOCKED", PF_LV_WRITE_LOCKED },
	{ "ACTIVATION_SKIP", PF_LV_ACTIVATION_SKIP },
	{ "NOAUTOACTIVATE", PF_LV_NOAUTOACTIVATE },
	{ "ERROR_WHEN_FULL", PF_LV_ERROR_WHEN_FULL },
	{ "CACHE_VOL", PF_LV_CACHE_VOL },
	{ NULL, 0 },
};

/*
 * Report a problem at a node: its text position, and what was wrong. Both may quote the
 * metadata (keys, values), which must not reach a terminal raw.
 */
static int bad_at(struct pf_diag *diag, const struct pf_cfg_node *n, int r, const char *what,
		  const char *where)
{
	char raw[PF_DIAG_MSG_MAX], safe[PF_DIAG_MSG_MAX];

	(void)snprintf(raw, sizeof(raw), "%s: %s", where, what);
	(void)pf_str_escape(raw, safe, sizeof(safe));
	if (n)
		pf_diag_text(diag, 0, n->line, n->col, "%s", safe);
	else
		pf_diag_msg(diag, "%s", safe);
	if (diag)
		diag->has_offset = false;
	return r;
}

static uint32_t flag_lookup(const struct flag_name *table, const char *s)
{
	for (; table->name; table++)
		if (strcmp(table->name, s) == 0)
			return table->bit;
	return 0;
}

/*
 * status = [...] is required and every string must be known: lvm2 refuses
 * metadata with an unknown status so that old tools do not misread new VGs.
 * flags = [...] is optional and unknown strings are ignored.
 */
static int read_flags(const struct pf_cfg_node *sec, const struct flag_name *status_names,
		      const struct flag_name *flag_names, bool is_lv, bool is_vg, uint32_t *ret,
		      const char *where, struct pf_diag *diag)
{
	const struct pf_cfg_value *v;
	uint32_t bits = 0;
	int r;

	r = pf_cfg_get_list(sec, "status", &v);
	if (r < 0)
		return bad_at(diag, sec, -EBADMSG, "missing or malformed 'status'", where);
	for (; v && v->type != PF_CFG_EMPTY_ARRAY; v = v->next) {
		uint32_t bit;

		if (v->type != PF_CFG_STRING)
			return bad_at(diag, sec, -EBADMSG, "status value is not a string", where);
		bit = flag_lookup(status_names, v->v.s);
		/* CACHE_VOL was briefly a status flag; lvm2 accepts it in either list. */
		if (!bit && is_lv && strcmp(v->v.s, "CACHE_VOL") == 0)
			bit = PF_LV_CACHE_VOL;
		if (!bit && is_vg && strcmp(v->v.s, "PARTIAL") == 0)
			bit = PF_VG_PARTIAL;
		if (!bit) {
			char msg[PF_DIAG_MSG_MAX / 2];

			(void)snprintf(msg, sizeof(msg), "unknown status flag '%.64s'", v->v.s);
			return bad_at(diag, sec, -EBADMSG, msg, where);
		}
		bits |= bit;
	}

	r = pf_cfg_get_list(sec, "flags", &v);
	if (r == 0) {
		for (; v && v->type != PF_CFG_EMPTY_ARRAY; v = v->next) {
			if (v->type != PF_CFG_STRING)
				return bad_at(diag, sec, -EBADMSG, "flags value is not a string", where);
			bits |= flag_lookup(flag_names, v->v.s);
		}
	} else if (r != -ENOENT) {
		return bad_at(diag, sec, -EBADMSG, "malformed 'flags'", where);
	}
	*ret = bits;
	return 0;
}

/*
 * A non-negative integer setting no larger than max. lvm2 reads many of these
 * as uint32 and silently truncates; out-of-range values are refused here.
 */
static int get_uint(const struct pf_cfg_node *sec, const char *key, bool required, uint64_t max,
		    uint64_t *ret, const char *where, struct pf_diag *diag)
{
	char msg[96];
	int64_t v;
	int r;

	r = pf_cfg_get_int(sec, key, &v);
	if (r == -ENOENT && !required)
		return -ENOENT;
	if (r < 0) {
		(void)snprintf(msg, sizeof(msg), "%s '%s'",
			       r == -ENOENT ? "missing" : "non-integer", key);
		return bad_at(diag, sec, -EBADMSG, msg, where);
	}
	if (v < 0 || (uint64_t)v > max) {
		(void)snprintf(msg, sizeof(msg), "'%s' = %lld out of range", key, (long long)v);
		return bad_at(diag, sec, -EBADMSG, msg, where);
	}
	*ret = (uint64_t)v;
	return 0;
}

static int get_u32(const struct pf_cfg_node *sec, const char *key, bool required, uint32_t *ret,
		   const char *where, struct pf_diag *diag)
{
	uint64_t v;
	int r = get_uint(sec, key, required, UINT32_MAX, &v, where, diag);

	if (r == 0)
		*ret = (uint32_t)v;
	return r;
}

static int get_u64(const struct pf_cfg_node *sec, const char *key, bool required, uint64_t *ret,
		   const char *where, struct pf_diag *diag)
{
	return get_uint(sec, key, required, INT64_MAX, ret, where, diag);
}

/* Optional string: absent leaves *ret NULL; present with another type is an error. */
static int get_opt_str(const struct pf_cfg_node *sec, const char *key, const char **ret,
		       const char *where, struct pf_diag *diag)
{
	char msg[96];
	int r;

	r = pf_cfg_get_str(sec, key, ret);
	if (r == -ENOENT) {
		*ret = NULL;
		return 0;
	}
	if (r < 0) {
		(void)snprintf(msg, sizeof(msg), "'%s' is not a string", key);
		return bad_at(diag, sec, -EBADMSG, msg, where);
	}
	return 0;
}

static int get_tags(const struct pf_cfg_node *sec, const struct pf_cfg_value **ret,
		    const char *where, struct pf_diag *diag)
{
	const struct pf_cfg_value *v;
	int r;

	*ret = NULL;
	r = pf_cfg_get_list(sec, "tags", &v);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return bad_at(diag, sec, -EBADMSG, "malformed 'tags'", where);
	if (v->type == PF_CFG_EMPTY_ARRAY)
		return 0;
	for (const struct pf_cfg_value *t = v; t; t = t->next)
		if (t->type != PF_CFG_STRING)
			return bad_at(diag, sec, -EBADMSG, "tag is not a string", where);
	*ret = v;
	return 0;
}

static int get_id(const struct pf_cfg_node *sec, char *ret, const char *where,
		  struct pf_diag *diag)
{
	const char *s;

	if (pf_cfg_get_str(sec, "id", &s) < 0)
		return bad_at(diag, sec, -EBADMSG, "missing uuid 'id'", where);
	if (pf_id_parse(s, ret) < 0)
		return bad_at(diag, sec, -EBADMSG, "invalid uuid 'id'", where);
	return 0;
}

static size_t count_children(const struct pf_cfg_node *sec)
{
	size_t n = 0;

	for (const struct pf_cfg_node *c = sec ? sec->child : NULL; c; c = c->next)
		n++;
	return n;
}

static int import_pv(const struct pf_cfg_node *pvn, struct pf_vg_pv *pv, struct pf_diag *diag)
{
	char where[160];
	int r;

	(void)snprintf(where, sizeof(where), "physical_volumes/%.64s", pvn->key);
	if (!pf_cfg_is_section(pvn) || !pvn->child)
		return bad_at(diag, pvn, -EBADMSG, "empty pv section", where);
	pv->key = pvn->key;
	r = get_id(pvn, pv->id, where, diag);
	if (r < 0)
		return r;
	r = read_flags(pvn, pv_status_names, pv_flag_names, false, false, &pv->status, where, diag);
	if (r < 0)
		return r;
	r = get_u64(pvn, "dev_size", false, &pv->dev_size, where, diag);
	if (r == 0)
		pv->has_dev_size = true;
	else if (r != -ENOENT)
		return r;
	r = get_opt_str(pvn, "device", &pv->device, where, diag);
	if (r == 0)
		r = get_opt_str(pvn, "device_id", &pv->device_id, where, diag);
	if (r == 0)
		r = get_opt_str(pvn, "device_id_type", &pv->device_id_type, where, diag);
	if (r == 0)
		r = get_u64(pvn, "pe_start", true, &pv->pe_start, where, diag);
	if (r == 0)
		r = get_u32(pvn, "pe_count", true, &pv->pe_count, where, diag);
	if (r < 0)
		return r;
	if (get_u64(pvn, "ba_start", false, &pv->ba_start, where, diag) == -EBADMSG ||
	    get_u64(pvn, "ba_size", false, &pv->ba_size, where, diag) == -EBADMSG)
		return -EBADMSG;
	if (!pv->ba_start != !pv->ba_size)
		return bad_at(diag, pvn, -EBADMSG, "incomplete bootloader area (ba_start/ba_size)",
			      where);
	return get_tags(pvn, &pv->tags, where, diag);
}

static int import_pvs(const struct pf_cfg_node *vgn, struct pf_vg *vg, struct pf_diag *diag)
{
	const struct pf_cfg_node *sec = pf_cfg_find(vgn->child, "physical_volumes");
	size_t n;
	int r;

	if (!sec || !pf_cfg_is_section(sec))
		return bad_at(diag, vgn, -EBADMSG, "missing section 'physical_volumes'", vg->name);
	n = count_children(sec);
	if (n > PF_VG_PVS_MAX)
		return bad_at(diag, sec, -E2BIG, "too many physical volumes", vg->name);
	vg->pvs = calloc(n ? n : 1, sizeof(*vg->pvs));
	if (!vg->pvs)
		return -ENOMEM;
	for (const struct pf_cfg_node *c = sec->child; c; c = c->next) {
		r = import_pv(c, &vg->pvs[vg->n_pvs], diag);
		if (r < 0)
			return r;
		vg->n_pvs++;
	}
	return 0;
}

int pf_vg_find_pv_key(const struct pf_vg *vg, const char *key)
{
	for (unsigned i = 0; i < vg->n_pvs; i++)
		if (strcmp(vg->pvs[i].key, key) == 0)
			return (int)i;
	return -1;
}

/* stripes = [ "pvN" | "lv", start, ... ]: exactly one (name, extent) pair per stripe. */
static int import_stripes(const struct pf_vg *vg, const struct pf_cfg_node *sn,
			  struct pf_vg_seg *seg, const char *where, struct pf_diag *diag)
{
	const struct pf_cfg_value *v;
	unsigned i = 0;

	if (pf_cfg_get_list(sn, "stripes", &v) < 0 || v->type == PF_CFG_EMPTY_ARRAY)
		return bad_at(diag, sn, -EBADMSG, "missing or empty 'stripes'", where);
	seg->areas = calloc(seg->stripe_count, sizeof(*seg->areas));
	if (!seg->areas)
		return -ENOMEM;
	for (; v && i < seg->stripe_count; v = v->next->next, i++) {
		if (v->type != PF_CFG_STRING)
			return bad_at(diag, sn, -EBADMSG, "bad volume name in 'stripes'", where);
		if (!v->next)
			return bad_at(diag, sn, -EBADMSG, "missing offset in 'stripes'", where);
		if (v->next->type != PF_CFG_INT || v->next->v.i < 0 ||
		    v->next->v.i > UINT32_MAX)
			return bad_at(diag, sn, -EBADMSG, "bad offset in 'stripes'", where);
		seg->areas[i].name = v->v.s;
		seg->areas[i].pv_index = pf_vg_find_pv_key(vg, v->v.s);
		seg->areas[i].start_extent = (uint32_t)v->next->v.i;
	}
	if (v || i != seg->stripe_count)
		return bad_at(diag, sn, -EBADMSG, "number of 'stripes' pairs differs from stripe_count",
			      where);
	seg->n_areas = i;
	return 0;
}

static int import_seg(const struct pf_vg *vg, const struct pf_cfg_node *sn, struct pf_vg_seg *seg,
		      const char *lvname, struct pf_diag *diag)
{
	char where[320];
	int r;

	(void)snprintf(where, sizeof(where), "logical_volumes/%.128s/%.32s", lvname, sn->key);
	if (!pf_cfg_is_section(sn) || !sn->child)
		return bad_at(diag, sn, -EBADMSG, "empty segment section", where);
	seg->key = sn->key;
	seg->raw = sn;
	r = get_u32(sn, "start_extent", true, &seg->start_extent, where, diag);
	if (r == 0)
		r = get_u32(sn, "extent_count", true, &seg->extent_count, where, diag);
	if (r < 0)
		return r;
	if (pf_cfg_get_str(sn, "type", &seg->type) < 0)
		return bad_at(diag, sn, -EBADMSG, "segment type must be a string", where);
	if (strcmp(seg->type, "striped") != 0)
		return 0;

	seg->is_striped = true;
	r = get_u32(sn, "stripe_count", true, &seg->stripe_count, where, diag);
	if (r < 0)
		return r;
	if (seg->stripe_count == 0 || seg->stripe_count > PF_SEG_AREAS_MAX)
		return bad_at(diag, sn, -EBADMSG, "stripe_count out of range", where);
	if (seg->stripe_count > 1) {
		r = get_u32(sn, "stripe_size", true, &seg->stripe_size, where, diag);
		if (r < 0)
			return r;
		if (seg->stripe_size == 0)
			return bad_at(diag, sn, -EBADMSG, "stripe_size is 0", where);
	}
	if (seg->extent_count % seg->stripe_count)
		return bad_at(diag, sn, -EBADMSG, "extent_count is not a multiple of stripe_count",
			      where);
	return import_stripes(vg, sn, seg, where, diag);
}

static int seg_cmp(const void *a, const void *b)
{
	const struct pf_vg_seg *x = a, *y = b;

	return (x->start_extent > y->start_extent) - (x->start_extent < y->start_extent);
}

static int import_lv(const struct pf_vg *vg, const struct pf_cfg_node *lvn, struct pf_vg_lv *lv,
		     struct pf_diag *diag)
{
	char where[160], key[32];
	uint32_t seg_count = 0;
	int64_t i64;
	int r;

	(void)snprintf(where, sizeof(where), "logical_volumes/%.128s", lvn->key);
	if (!pf_cfg_is_section(lvn) || !lvn->child)
		return bad_at(diag, lvn, -EBADMSG, "empty logical volume section", where);
	if (!pf_name_is_valid(lvn->key, strlen(lvn->key)))
		return bad_at(diag, lvn, -EBADMSG, "invalid LV name", where);
	lv->name = lvn->key;
	lv->raw = lvn;
	lv->major = lv->minor = -1;
	r = get_id(lvn, lv->id, where, diag);
	if (r == 0)
		r = read_flags(lvn, lv_status_names, lv_flag_names, true, false, &lv->status, where,
			       diag);
	if (r == 0)
		r = get_tags(lvn, &lv->tags, where, diag);
	if (r < 0)
		return r;
	if (lv->status & PF_LV_WRITE_LOCKED)
		lv->status |= PF_LV_WRITE;
	if (pf_cfg_get_int(lvn, "read_ahead", &i64) == 0) {
		if (i64 < -1 || i64 > INT32_MAX)
			return bad_at(diag, lvn, -EBADMSG, "read_ahead out of range", where);
		lv->has_read_ahead = true;
		lv->read_ahead = (int32_t)i64;
	}
	if ((lv->status & PF_LV_FIXED_MINOR) && pf_cfg_get_int(lvn, "minor", &i64) == 0 &&
	    i64 >= 0 && i64 <= INT32_MAX) {
		lv->minor = (int32_t)i64;
		if (pf_cfg_get_int(lvn, "major", &i64) == 0 && i64 >= 0 && i64 <= INT32_MAX)
			lv->major = (int32_t)i64;
	}

	r = get_u32(lvn, "segment_count", true, &seg_count, where, diag);
	if (r < 0)
		return r;
	if (seg_count == 0 || seg_count > PF_LV_SEGS_MAX)
		return bad_at(diag, lvn, -EBADMSG, "segment_count out of range", where);
	lv->segs = calloc(seg_count, sizeof(*lv->segs));
	if (!lv->segs)
		return -ENOMEM;
	for (uint32_t s = 0; s < seg_count; s++) {
		const struct pf_cfg_node *sn;

		(void)snprintf(key, sizeof(key), "segment%u", s + 1);
		sn = pf_cfg_find(lvn->child, key);
		if (!sn)
			return bad_at(diag, lvn, -EBADMSG,
				      "segment_count and the segmentN sections disagree", where);
		/* Counted before import so a half-built segment is still freed. */
		lv->n_segs++;
		r = import_seg(vg, sn, &lv->segs[s], lv->name, diag);
		if (r < 0)
			return r;
	}

	/* Segments must tile the LV from extent 0 without gaps or overlaps. */
	qsort(lv->segs, lv->n_segs, sizeof(*lv->segs), seg_cmp);
	for (unsigned s = 0; s < lv->n_segs; s++) {
		if (lv->segs[s].start_extent != lv->extent_count)
			return bad_at(diag, lv->segs[s].raw, -EBADMSG,
				      "segment does not start where the previous one ends", where);
		lv->extent_count += lv->segs[s].extent_count;
	}
	return 0;
}

static int import_lvs(const struct pf_cfg_node *vgn, struct pf_vg *vg, struct pf_diag *diag)
{
	const struct pf_cfg_node *sec = pf_cfg_find(vgn->child, "logical_volumes");
	size_t n;
	int r;

	/* A VG without LVs has no logical_volumes section at all. */
	if (!sec)
		return 0;
	if (!pf_cfg_is_section(sec))
		return bad_at(diag, sec, -EBADMSG, "'logical_volumes' is not a section", vg->name);
	n = count_children(sec);
	if (n > PF_VG_LVS_MAX)
		return bad_at(diag, sec, -E2BIG, "too many logical volumes", vg->name);
	vg->lvs = calloc(n ? n : 1, sizeof(*vg->lvs));
	if (!vg->lvs)
		return -ENOMEM;
	for (const struct pf_cfg_node *c = sec->child; c; c = c->next) {
		r = import_lv(vg, c, &vg->lvs[vg->n_lvs++], diag);
		if (r < 0)
			return r;
	}
	/* Areas naming an LV must name one of this VG: lvm2 refuses dangling references. */
	for (unsigned l = 0; l < vg->n_lvs; l++)
		for (unsigned s = 0; s < vg->lvs[l].n_segs; s++)
			for (unsigned a = 0; a < vg->lvs[l].segs[s].n_areas; a++) {
				const struct pf_vg_area *ar = &vg->lvs[l].segs[s].areas[a];

				if (ar->pv_index < 0 && !pf_vg_find_lv(vg, ar->name))
					return bad_at(diag, vg->lvs[l].segs[s].raw, -EBADMSG,
						      "stripe names an unknown PV or LV",
						      vg->lvs[l].name);
			}
	return 0;
}

static int top_int(const struct pf_cfg_node *root, const char *key, int64_t *ret)
{
	const struct pf_cfg_node *n = pf_cfg_find(root, key);

	if (!n || !n->value || n->is_array || n->value->type != PF_CFG_INT)
		return -ENOENT;
	*ret = n->value->v.i;
	return 0;
}

static const char *top_str(const struct pf_cfg_node *root, const char *key)
{
	const struct pf_cfg_node *n = pf_cfg_find(root, key);

	if (!n || !n->value || n->is_array || n->value->type != PF_CFG_STRING)
		return NULL;
	return n->value->v.s;
}

/* lvm2 only accepts text that declares itself as VG metadata, version 1. */
static int check_header(const struct pf_cfg_node *root, struct pf_diag *diag)
{
	const char *s = top_str(root, "contents");
	const struct pf_cfg_node *n;

	if (!s || strcmp(s, TEXT_CONTENTS) != 0)
		return bad_at(diag, pf_cfg_find(root, "contents"), -EBADMSG,
			      "missing contents = \"" TEXT_CONTENTS "\"", "metadata");
	n = pf_cfg_find(root, "version");
	if (!n || !n->value || n->is_array || n->value->type != PF_CFG_INT || n->value->v.i != 1)
		return bad_at(diag, n, -EBADMSG, "missing or unsupported 'version' (want 1)",
			      "metadata");
	return 0;
}

static int import_vg(const struct pf_cfg_node *root, struct pf_vg *vg, struct pf_diag *diag)
{
	const struct pf_cfg_node *vgn = root;
	int r;

	/* The VG is the first top-level section; settings around it are the header. */
	while (vgn && !pf_cfg_is_section(vgn))
		vgn = vgn->next;
	if (!vgn)
		return bad_at(diag, NULL, -EBADMSG, "no volume group section", "metadata");
	if (!pf_name_is_valid(vgn->key, strlen(vgn->key)))
		return bad_at(diag, vgn, -EBADMSG, "invalid VG name", "metadata");
	vg->name = vgn->key;
	r = check_header(root, diag);
	if (r == 0)
		r = get_id(vgn, vg->id, vg->name, diag);
	if (r == 0)
		r = get_u32(vgn, "seqno", true, &vg->seqno, vg->name, diag);
	if (r == 0)
		r = read_flags(vgn, vg_status_names, vg_flag_names, false, true, &vg->status,
			       vg->name, diag);
	if (r == 0)
		r = get_opt_str(vgn, "system_id", &vg->system_id, vg->name, diag);
	if (r == 0)
		r = get_opt_str(vgn, "lock_type", &vg->lock_type, vg->name, diag);
	if (r == 0)
		r = get_opt_str(vgn, "lock_args", &vg->lock_args, vg->name, diag);
	if (r == 0)
		r = get_u32(vgn, "extent_size", true, &vg->extent_size, vg->name, diag);
	if (r == 0)
		r = get_u32(vgn, "max_lv", true, &vg->max_lv, vg->name, diag);
	if (r == 0)
		r = get_u32(vgn, "max_pv", true, &vg->max_pv, vg->name, diag);
	if (r == 0)
		r = get_tags(vgn, &vg->tags, vg->name, diag);
	if (r < 0)
		return r;
	if (vg->extent_size == 0)
		return bad_at(diag, vgn, -EBADMSG, "extent_size is 0", vg->name);
	if (vg->status & PF_VG_WRITE_LOCKED)
		vg->status |= PF_VG_WRITE;
	if (pf_cfg_get_int(vgn, "metadata_copies", &vg->metadata_copies) < 0)
		vg->metadata_copies = 0;
	vg->creation_host = top_str(root, "creation_host");
	if (top_int(root, "creation_time", &vg->creation_time) < 0)
		vg->creation_time = 0;

	r = import_pvs(vgn, vg, diag);
	if (r == 0)
		r = import_lvs(vgn, vg, diag);
	return r;
}

int pf_vg_import(const char *text, size_t len, struct pf_vg **ret, struct pf_diag *reterr)
{
	struct pf_vg *vg;
	int r;

	vg = calloc(1, sizeof(*vg));
	if (!vg)
		return -ENOMEM;
	r = pf_cfg_parse(text, len, NULL, &vg->tree, reterr);
	if (r < 0)
		goto out_free;
	r = import_vg(pf_cfg_root(vg->tree), vg, reterr);
	if (r < 0)
		goto out_free;
	*ret = vg;
	return 0;

out_free:
	pf_vg_free(vg);
	return r;
}

struct pf_vg *pf_vg_free(struct pf_vg *vg)
{
	if (!vg)
		return NULL;
	/* Counts include a half-imported last entry, so this also frees a failed import. */
	for (unsigned l = 0; l < vg->n_lvs; l++) {
		for (unsigned s = 0; s < vg->lvs[l].n_segs; s++)
			free(vg->lvs[l].segs[s].areas);
		free(vg->lvs[l].segs);
	}
	free(vg->lvs);
	free(vg->pvs);
	pf_cfg_free(vg->tree);
	free(vg);
	return NULL;
}

size_t pf_vg_bytes(const struct pf_vg *vg)
{
	size_t n = sizeof(*vg) + vg->n_pvs * sizeof(*vg->pvs) + vg->n_lvs * sizeof(*vg->lvs);

	for (unsigned l = 0; l < vg->n_lvs; l++) {
		n += vg->lvs[l].n_segs * sizeof(*vg->lvs[l].segs);
		for (unsigned s = 0; s < vg->lvs[l].n_segs; s++)
			n += vg->lvs[l].segs[s].n_areas * sizeof(*vg->lvs[l].segs[s].areas);
	}
	return n + (vg->tree ? pf_cfg_tree_bytes(vg->tree) : 0);
}

int pf_vg_find_pv(const struct pf_vg *vg, const char *pvid)
{
	for (unsigned i = 0; i < vg->n_pvs; i++)
		if (strcmp(vg->pvs[i].id, pvid) == 0)
			return (int)i;
	return -1;
}

const struct pf_vg_lv *pf_vg_find_lv(const struct pf_vg *vg, const char *name)
{
	for (unsigned i = 0; i < vg->n_lvs; i++)
		if (strcmp(vg->lvs[i].name, name) == 0)
			return &vg->lvs[i];
	return NULL;
}

/* References deeper than this are not followed: real stacks are 3-4 levels (thin on cache on raid). */
#define LV_REF_DEPTH_MAX 16U

static void mark_name(const struct pf_vg *vg, const char *name, bool *used, unsigned depth);

static void mark_lv(const struct pf_vg *vg, const struct pf_vg_lv *lv, bool *used, unsigned depth)
{
	if (depth >= LV_REF_DEPTH_MAX)
		return;
	for (unsigned s = 0; s < lv->n_segs; s++) {
		const struct pf_vg_seg *seg = &lv->segs[s];

		if (seg->is_striped) {
			for (unsigned a = 0; a < seg->n_areas; a++) {
				if (seg->areas[a].pv_index >= 0)
					used[seg->areas[a].pv_index] = true;
				else
					mark_name(vg, seg->areas[a].name, used, depth + 1);
			}
			continue;
		}
		for (const struct pf_cfg_node *c = seg->raw->child; c; c = c->next)
			for (const struct pf_cfg_value *v = c->value; v; v = v->next)
				if (v->type == PF_CFG_STRING && strcmp(c->key, "type") != 0)
					mark_name(vg, v->v.s, used, depth + 1);
	}
}

static void mark_name(const struct pf_vg *vg, const char *name, bool *used, unsigned depth)
{
	const struct pf_vg_lv *lv;
	int pv = pf_vg_find_pv_key(vg, name);

	if (pv >= 0) {
		used[pv] = true;
		return;
	}
	lv = pf_vg_find_lv(vg, name);
	if (lv)
		mark_lv(vg, lv, used, depth);
}

void pf_vg_lv_mark_pvs(const struct pf_vg *vg, const struct pf_vg_lv *lv, bool *used)
{
	mark_lv(vg, lv, used, 0);
}

bool pf_vg_seg_has_type_flags(const struct pf_vg_seg *seg)
{
	return seg->type && strchr(seg->type, '+');
}

int pf_vg_newest(const struct pf_vg *const *copies, size_t n)
{
	int best = -1;

	for (size_t i = 0; i < n; i++)
		if (copies[i] && (best < 0 || copies[i]->seqno > copies[best]->seqno))
			best = (int)i;
	return best;
}
