/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's `lvs --segments` fields of one segment, and an LV's lv_attr, from the VG metadata alone. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/segreport.h"

/* Entries of a cache policy's settings list; lvm2 writes a handful. */
#define SETTINGS_MAX 256U

enum seg_kind {
	K_OTHER,
	K_STRIPED,
	K_ZERO,
	K_ERROR,
	K_MIRROR,
	K_RAID0,
	K_RAID0_META,
	K_RAID1,
	K_RAID4,
	K_RAID5,
	K_RAID6,
	K_RAID10,
	K_THIN_POOL,
	K_THIN,
	K_CACHE_POOL,
	K_CACHE,
	K_WRITECACHE,
	K_INTEGRITY,
	K_VDO,
	K_VDO_POOL,
	K_SNAPSHOT,
};

static const struct {
	const char *name;
	enum seg_kind kind;
} kinds[] = {
	{ "striped", K_STRIPED },	 { "zero", K_ZERO },
	{ "error", K_ERROR },		 { "mirror", K_MIRROR },
	{ "raid0", K_RAID0 },		 { "raid0_meta", K_RAID0_META },
	{ "raid1", K_RAID1 },		 { "raid4", K_RAID4 },
	{ "raid5", K_RAID5 },		 { "raid5_n", K_RAID5 },
	{ "raid5_la", K_RAID5 },	 { "raid5_ls", K_RAID5 },
	{ "raid5_ra", K_RAID5 },	 { "raid5_rs", K_RAID5 },
	{ "raid6", K_RAID6 },		 { "raid6_zr", K_RAID6 },
	{ "raid6_nr", K_RAID6 },	 { "raid6_nc", K_RAID6 },
	{ "raid6_n_6", K_RAID6 },	 { "raid6_ls_6", K_RAID6 },
	{ "raid6_rs_6", K_RAID6 },	 { "raid6_la_6", K_RAID6 },
	{ "raid6_ra_6", K_RAID6 },	 { "raid10", K_RAID10 },
	{ "raid10_near", K_RAID10 },	 { "thin-pool", K_THIN_POOL },
	{ "thin", K_THIN },		 { "cache-pool", K_CACHE_POOL },
	{ "cache", K_CACHE },		 { "writecache", K_WRITECACHE },
	{ "integrity", K_INTEGRITY },	 { "vdo", K_VDO },
	{ "vdo-pool", K_VDO_POOL },	 { "snapshot", K_SNAPSHOT },
};

static size_t type_len(const struct pf_vg_seg *seg)
{
	return strcspn(seg->type, "+");
}

static enum seg_kind kind_of(const struct pf_vg_seg *seg)
{
	size_t n = type_len(seg);

	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++)
		if (strlen(kinds[i].name) == n && memcmp(kinds[i].name, seg->type, n) == 0)
			return kinds[i].kind;
	return K_OTHER;
}

static bool is_raid(enum seg_kind k)
{
	return k >= K_RAID0 && k <= K_RAID10;
}

/* lvm2's parity_devs of the segment type. */
static uint32_t parity_devs(enum seg_kind k)
{
	return k == K_RAID6 ? 2 : (k == K_RAID4 || k == K_RAID5) ? 1 : 0;
}

static bool is_reshapable(enum seg_kind k)
{
	return k == K_RAID4 || k == K_RAID5 || k == K_RAID6 || k == K_RAID10;
}

/* Where a raid segment lists its images (each after its metadata LV, but raid0's). */
static const char *raid_list_key(enum seg_kind k)
{
	return k == K_RAID0 ? "raid0_lvs" : "raids";
}

/* A setting lvm2 reads as uint32: absent, negative or wider counts as absent. */
static bool get_u32(const struct pf_vg_seg *seg, const char *key, uint32_t *ret)
{
	int64_t v;

	if (pf_cfg_get_int(seg->raw, key, &v) < 0 || v < 0 || v > UINT32_MAX)
		return false;
	*ret = (uint32_t)v;
	return true;
}

static uint32_t u32_or(const struct pf_vg_seg *seg, const char *key, uint32_t dflt)
{
	uint32_t v = dflt;

	(void)get_u32(seg, key, &v);
	return v;
}

static const char *str_or(const struct pf_vg_seg *seg, const char *key, const char *dflt)
{
	const char *s;

	return pf_cfg_get_str(seg->raw, key, &s) == 0 ? s : dflt;
}

static const struct pf_vg_seg *first_seg_of(const struct pf_vg *vg, const char *name)
{
	const struct pf_vg_lv *lv = name ? pf_vg_find_lv(vg, name) : NULL;

	return lv && lv->n_segs ? &lv->segs[0] : NULL;
}

/* An area naming a PV key (with its first PE) or an LV (shown from 0, whole). */
static void set_area(const struct pf_vg *vg, const char *name, uint32_t pe, uint32_t pv_len,
		     struct pf_segrep_area *a)
{
	const struct pf_vg_lv *lv;

	a->name = name;
	a->pv_index = pf_vg_find_pv_key(vg, name);
	if (a->pv_index >= 0) {
		a->start = pe;
		a->extents = pv_len;
		return;
	}
	lv = pf_vg_find_lv(vg, name);
	a->lv_hidden = lv && !(lv->status & PF_LV_VISIBLE);
	a->extents = lv ? (uint32_t)lv->extent_count : 0;
}

static int alloc_areas(struct pf_seg_report *r, unsigned n, bool meta)
{
	struct pf_segrep_area *a = calloc(n ? n : 1, sizeof(*a));

	if (!a)
		return -ENOMEM;
	if (meta)
		r->meta_areas = a;
	else
		r->areas = a;
	return 0;
}

/* "mirrors = [ name, extent, ... ]": pairs, each a PV key or an LV. */
static int mirror_areas(const struct pf_vg *vg, const struct pf_vg_seg *seg,
			struct pf_seg_report *r)
{
	const struct pf_cfg_value *v, *p;
	unsigned n = 0;

	if (pf_cfg_get_list(seg->raw, "mirrors", &v) < 0)
		return 0;
	for (p = v; p && p->next && p->type == PF_CFG_STRING; p = p->next->next)
		n++;
	if (alloc_areas(r, n, false) < 0)
		return -ENOMEM;
	for (p = v; r->n_areas < n; p = p->next->next) {
		int64_t pe = p->next->type == PF_CFG_INT ? p->next->v.i : 0;

		set_area(vg, p->v.s, pe < 0 || pe > UINT32_MAX ? 0 : (uint32_t)pe,
			 seg->extent_count, &r->areas[r->n_areas++]);
	}
	return 0;
}

/*
 * "raids" (or raid0's "raid0_lvs"): per image, an optional metadata LV (lvm2 knows it by
 * "_rmeta_" in its name) followed by the image LV.
 */
static int raid_areas(const struct pf_vg *vg, const struct pf_vg_seg *seg, enum seg_kind k,
		      struct pf_seg_report *r)
{
	const struct pf_cfg_value *v, *p;
	unsigned n = 0, n_meta = 0;

	if (pf_cfg_get_list(seg->raw, raid_list_key(k), &v) < 0)
		return 0;
	for (p = v; p; p = p->next)
		if (p->type == PF_CFG_STRING) {
			if (strstr(p->v.s, "_rmeta_"))
				n_meta++;
			else
				n++;
		}
	if (alloc_areas(r, n, false) < 0 || alloc_areas(r, n_meta, true) < 0)
		return -ENOMEM;
	for (p = v; p; p = p->next) {
		if (p->type != PF_CFG_STRING)
			continue;
		if (strstr(p->v.s, "_rmeta_"))
			set_area(vg, p->v.s, 0, 0, &r->meta_areas[r->n_meta_areas++]);
		else
			set_area(vg, p->v.s, 0, 0, &r->areas[r->n_areas++]);
	}
	return 0;
}

/* The segment types whose one area is the LV a setting names. */
static const char *single_area_key(enum seg_kind k)
{
	switch (k) {
	case K_THIN_POOL:
		return "pool";
	case K_CACHE_POOL:
	case K_VDO_POOL:
		return "data";
	case K_CACHE:
	case K_WRITECACHE:
	case K_INTEGRITY:
		return "origin";
	case K_VDO:
		return "vdo_pool";
	default:
		return NULL;
	}
}

static int fill_areas(const struct pf_vg *vg, const struct pf_vg_seg *seg, enum seg_kind k,
		      struct pf_seg_report *r)
{
	const char *key = single_area_key(k), *name;

	if (seg->is_striped) {
		if (alloc_areas(r, seg->n_areas, false) < 0)
			return -ENOMEM;
		for (unsigned a = 0; a < seg->n_areas; a++)
			set_area(vg, seg->areas[a].name, seg->areas[a].start_extent,
				 seg->extent_count / seg->stripe_count, &r->areas[r->n_areas++]);
		return 0;
	}
	if (k == K_MIRROR)
		return mirror_areas(vg, seg, r);
	if (is_raid(k))
		return raid_areas(vg, seg, k, r);
	if (!key || pf_cfg_get_str(seg->raw, key, &name) < 0)
		return 0;
	if (alloc_areas(r, 1, false) < 0)
		return -ENOMEM;
	set_area(vg, name, 0, 0, &r->areas[r->n_areas++]);
	return 0;
}

/* Does any segment of kind `user` name `name` in setting `key`? Counts them. */
static unsigned count_users(const struct pf_vg *vg, enum seg_kind user, const char *key,
			    const char *name)
{
	unsigned n = 0;

	for (unsigned l = 0; l < vg->n_lvs; l++)
		for (unsigned s = 0; s < vg->lvs[l].n_segs; s++) {
			const struct pf_vg_seg *o = &vg->lvs[l].segs[s];
			const char *v;

			if (!o->is_striped && kind_of(o) == user &&
			    pf_cfg_get_str(o->raw, key, &v) == 0 && strcmp(v, name) == 0)
				n++;
		}
	return n;
}

/* The snapshot segment whose COW is this LV, or NULL. */
static const struct pf_vg_seg *snapshot_of_cow(const struct pf_vg *vg, const char *name)
{
	for (unsigned l = 0; l < vg->n_lvs; l++)
		for (unsigned s = 0; s < vg->lvs[l].n_segs; s++) {
			const struct pf_vg_seg *o = &vg->lvs[l].segs[s];
			const char *v;

			if (o->is_striped || kind_of(o) != K_SNAPSHOT)
				continue;
			if ((pf_cfg_get_str(o->raw, "cow_store", &v) == 0 ||
			     pf_cfg_get_str(o->raw, "merging_store", &v) == 0) &&
			    strcmp(v, name) == 0)
				return o;
		}
	return NULL;
}

/* Is this LV an image of a raid segment (its data, not its metadata)? */
static bool is_raid_image(const struct pf_vg *vg, const char *name)
{
	for (unsigned l = 0; l < vg->n_lvs; l++)
		for (unsigned s = 0; s < vg->lvs[l].n_segs; s++) {
			const struct pf_vg_seg *o = &vg->lvs[l].segs[s];
			enum seg_kind k = o->is_striped ? K_STRIPED : kind_of(o);
			const struct pf_cfg_value *v;

			if (!is_raid(k) ||
			    pf_cfg_get_list(o->raw, raid_list_key(k), &v) < 0)
				continue;
			for (; v; v = v->next)
				if (v->type == PF_CFG_STRING && !strstr(v->v.s, "_rmeta_") &&
				    strcmp(v->v.s, name) == 0)
					return true;
		}
	return false;
}

/*
 * lvm2 shows reshape space for a reshapable raid segment, and for the first segment of one
 * of its images, which it finds by the image's name up to its first '_' (after "_dup_").
 */
static bool shows_reshape(const struct pf_vg *vg, const struct pf_vg_lv *lv,
			  const struct pf_vg_seg *seg, enum seg_kind k)
{
	const struct pf_vg_seg *top;
	const char *p;
	char owner[PF_NAME_MAX + 1];

	if (is_reshapable(k))
		return true;
	if (seg->start_extent != 0 || !is_raid_image(vg, lv->name))
		return false;
	p = strchr(lv->name, '_');
	if (p && strstr(p, "_dup_"))
		p = strchr(p + 5, '_');
	if (!p || (size_t)(p - lv->name) > PF_NAME_MAX)
		return false;
	memcpy(owner, lv->name, (size_t)(p - lv->name));
	owner[p - lv->name] = '\0';
	top = first_seg_of(vg, owner);
	return top && !top->is_striped && is_reshapable(kind_of(top));
}

static int64_t data_copies_of(const struct pf_vg_seg *seg, enum seg_kind k, uint32_t areas)
{
	uint32_t dc = u32_or(seg, "data_copies", 1);

	if (is_raid(k) && dc < 2) {
		if (k == K_RAID10)
			dc = 2;
		else if (k == K_RAID1)
			dc = areas;
		else
			dc = parity_devs(k) + 1;
	}
	return dc ? (int64_t)dc : PF_SEGREP_UNDEF;
}

/* The image count of a raid segment: its area count for lvm2. */
static uint32_t raid_images(const struct pf_vg_seg *seg, enum seg_kind k)
{
	const struct pf_cfg_value *v;
	uint32_t n = 0;

	if (!is_raid(k) || pf_cfg_get_list(seg->raw, raid_list_key(k), &v) < 0)
		return 0;
	for (; v; v = v->next)
		n += v->type == PF_CFG_STRING && !strstr(v->v.s, "_rmeta_");
	return n;
}

/* Parity chunks, one more when every area is itself resilient (raid on raid). */
static int64_t parity_chunks_of(const struct pf_vg *vg, const struct pf_seg_report *r,
				enum seg_kind k)
{
	int64_t p = parity_devs(k) ? (int64_t)parity_devs(k) : r->data_copies - 1;
	unsigned resilient = 0;

	if (r->data_copies == PF_SEGREP_UNDEF && !parity_devs(k))
		return PF_SEGREP_UNDEF;
	if (p <= 0)
		return PF_SEGREP_UNDEF;
	for (unsigned a = 0; a < r->n_areas; a++) {
		const struct pf_vg_seg *sub;
		enum seg_kind sk;

		if (r->areas[a].pv_index >= 0)
			continue;
		sub = first_seg_of(vg, r->areas[a].name);
		if (!sub)
			continue;
		sk = sub->is_striped ? K_STRIPED : kind_of(sub);
		if (parity_devs(sk) || data_copies_of(sub, sk, raid_images(sub, sk)) > 1)
			resilient++;
	}
	if (resilient && resilient == r->stripes)
		p++;
	return p;
}

static int push_setting(struct pf_strv *sv, const char *key, const struct pf_cfg_value *v)
{
	char buf[512];

	switch (v->type) {
	case PF_CFG_INT:
		(void)snprintf(buf, sizeof(buf), "%s=%" PRId64, key, v->v.i);
		break;
	case PF_CFG_FLOAT:
		(void)snprintf(buf, sizeof(buf), "%s=%g", key, v->v.f);
		break;
	case PF_CFG_STRING:
		(void)snprintf(buf, sizeof(buf), "%s=\"%s\"", key, v->v.s);
		break;
	default:
		return 0;
	}
	return pf_strv_push(sv, SETTINGS_MAX, buf);
}

/* writecache's settings, in the order lvm2 lists them, each only when written. */
static int writecache_settings(const struct pf_vg_seg *seg, struct pf_strv *sv)
{
	static const char *const keys[] = { "high_watermark", "low_watermark", "writeback_jobs",
					    "autocommit_blocks", "autocommit_time", "fua",
					    "nofua", "cleaner", "max_age" };
	const char *k, *v;
	char buf[512];
	int64_t i;
	int r = 0;

	for (size_t n = 0; n < ARRAY_SIZE(keys) && r == 0; n++) {
		if (pf_cfg_get_int(seg->raw, keys[n], &i) < 0 ||
		    (strcmp(keys[n], "cleaner") == 0 && i == 0))
			continue;
		(void)snprintf(buf, sizeof(buf), "%s=%" PRIu64, keys[n], (uint64_t)i);
		r = pf_strv_push(sv, SETTINGS_MAX, buf);
	}
	if (r == 0 && pf_cfg_get_str(seg->raw, "writecache_setting_key", &k) == 0 &&
	    pf_cfg_get_str(seg->raw, "writecache_setting_val", &v) == 0) {
		(void)snprintf(buf, sizeof(buf), "%s=%s", k, v);
		r = pf_strv_push(sv, SETTINGS_MAX, buf);
	}
	return r;
}

/*
 * The cache settings: a cache on a cachevol keeps them in its own segment, a cache pool in
 * its segment, a cache on a pool in the pool's. lvm2 fills in a pool's missing policy,
 * format and mode once a cache uses it.
 */
static int cache_fields(const struct pf_vg *vg, const struct pf_vg_lv *lv,
			const struct pf_vg_seg *seg, enum seg_kind k, struct pf_seg_report *r)
{
	const struct pf_vg_seg *set = NULL;
	const struct pf_cfg_node *ps;
	const struct pf_vg_lv *pool;
	const char *pool_name;
	bool in_use = false;
	uint32_t fmt;
	int rc = 0;

	if (k == K_WRITECACHE)
		return writecache_settings(seg, &r->cache_settings);
	if (k == K_CACHE_POOL) {
		set = seg;
		in_use = count_users(vg, K_CACHE, "cache_pool", lv->name) > 0;
	} else if (k == K_CACHE && pf_cfg_get_str(seg->raw, "cache_pool", &pool_name) == 0) {
		pool = pf_vg_find_lv(vg, pool_name);
		if (pool && (pool->status & PF_LV_CACHE_VOL)) {
			set = seg;
		} else if (pool && pool->n_segs) {
			set = &pool->segs[0];
			in_use = true;
		}
	}
	if (!set)
		return 0;
	r->cache_policy = str_or(set, "policy", in_use ? "mq" : "");
	r->cache_mode = str_or(set, "cache_mode", in_use ? "writethrough" : "");
	fmt = u32_or(set, "metadata_format", in_use ? 1 : 0);
	r->cache_metadata_format = (fmt == 1 || fmt == 2) ? (int64_t)fmt : PF_SEGREP_UNDEF;
	ps = pf_cfg_find(set->raw->child, "policy_settings");
	if (ps && pf_cfg_is_section(ps))
		for (const struct pf_cfg_node *c = ps->child; c && rc == 0; c = c->next)
			if (!pf_cfg_is_section(c))
				rc = push_setting(&r->cache_settings, c->key, c->value);
	return rc;
}

static int bool_setting(const struct pf_vg_seg *seg, const char *key)
{
	return u32_or(seg, key, 0) != 0;
}

static void vdo_fields(const struct pf_vg *vg, const struct pf_vg_seg *seg, enum seg_kind k,
		       struct pf_seg_report *r)
{
	struct pf_segrep_vdo *v = &r->vdo;
	const struct pf_vg_seg *p = seg;
	const char *name;

	if (k == K_VDO) {
		p = pf_cfg_get_str(seg->raw, "vdo_pool", &name) == 0 ? first_seg_of(vg, name) :
									  NULL;
		if (!p || p->is_striped || kind_of(p) != K_VDO_POOL)
			return;
	}
	r->has_vdo = true;
	v->compression = bool_setting(p, "use_compression");
	v->deduplication = bool_setting(p, "use_deduplication");
	v->metadata_hints = bool_setting(p, "use_metadata_hints");
	v->sparse_index = bool_setting(p, "use_sparse_index");
	/* lvm2 keeps the minimum I/O size in sectors; the metadata has it in bytes. */
	v->minimum_io_size = (uint64_t)(u32_or(p, "minimum_io_size", 0) >> 9) * 512U;
	v->block_map_cache_size = (uint64_t)u32_or(p, "block_map_cache_size_mb", 0) << 20;
	v->index_memory_size = (uint64_t)u32_or(p, "index_memory_size_mb", 0) << 20;
	v->slab_size = (uint64_t)u32_or(p, "slab_size_mb", 0) << 20;
	v->header_size = (uint64_t)u32_or(p, "header_size", 0) * 512U;
	v->block_map_era_length = u32_or(p, "block_map_era_length", 0);
	v->ack_threads = u32_or(p, "ack_threads", 0);
	v->bio_threads = u32_or(p, "bio_threads", 0);
	v->bio_rotation = u32_or(p, "bio_rotation", 0);
	v->cpu_threads = u32_or(p, "cpu_threads", 0);
	v->hash_zone_threads = u32_or(p, "hash_zone_threads", 0);
	v->logical_threads = u32_or(p, "logical_threads", 0);
	v->physical_threads = u32_or(p, "physical_threads", 0);
	v->max_discard = u32_or(p, "max_discard", 0);
	v->write_policy = str_or(p, "write_policy", "auto");
}

/* thin takes discards and zeroing from its pool; a pool counts the thin LVs on it. */
static void thin_fields(const struct pf_vg *vg, const struct pf_vg_lv *lv,
			const struct pf_vg_seg *seg, enum seg_kind k, struct pf_seg_report *r)
{
	const struct pf_vg_seg *pool = seg;
	const char *name;
	uint64_t tid;
	int64_t i;

	if (k == K_THIN) {
		r->thin_id = u32_or(seg, "device_id", 0);
		pool = pf_cfg_get_str(seg->raw, "thin_pool", &name) == 0 ? first_seg_of(vg, name) :
									   NULL;
		if (pool && (pool->is_striped || kind_of(pool) != K_THIN_POOL))
			pool = NULL;
	} else {
		r->thin_count = count_users(vg, K_THIN, "thin_pool", lv->name);
	}
	tid = pf_cfg_get_int(seg->raw, "transaction_id", &i) == 0 && i >= 0 ? (uint64_t)i : 0;
	r->transaction_id = (int64_t)tid;
	if (!pool)
		return;
	r->discards = str_or(pool, "discards", "ignore");
	r->zero = u32_or(pool, "zero_new_blocks", 0) != 0;
}

static uint64_t chunk_size_of(const struct pf_vg *vg, const struct pf_vg_lv *lv,
			      const struct pf_vg_seg *seg, enum seg_kind k)
{
	const struct pf_vg_seg *snap = snapshot_of_cow(vg, lv->name), *pool;
	const struct pf_vg_lv *plv;
	const char *name;

	if (snap)
		return (uint64_t)u32_or(snap, "chunk_size", 0) * 512U;
	if (k == K_THIN_POOL || k == K_CACHE_POOL)
		return (uint64_t)u32_or(seg, "chunk_size", 0) * 512U;
	if (k != K_CACHE || pf_cfg_get_str(seg->raw, "cache_pool", &name) < 0)
		return 0;
	plv = pf_vg_find_lv(vg, name);
	if (plv && (plv->status & PF_LV_CACHE_VOL))
		return (uint64_t)u32_or(seg, "chunk_size", 0) * 512U;
	pool = first_seg_of(vg, name);
	return pool ? (uint64_t)u32_or(pool, "chunk_size", 0) * 512U : 0;
}

int pf_seg_report(const struct pf_vg *vg, const struct pf_vg_lv *lv, const struct pf_vg_seg *seg,
		  struct pf_seg_report *ret)
{
	enum seg_kind k = seg->is_striped ? K_STRIPED : kind_of(seg);
	uint64_t extent = (uint64_t)vg->extent_size * 512U;
	struct pf_seg_report r = {
		.segtype = seg->type,
		.segtype_len = type_len(seg),
		.seg_start_pe = seg->start_extent,
		.seg_size_pe = seg->extent_count,
		.seg_start = seg->start_extent * extent,
		.seg_size = seg->extent_count * extent,
		.reshape_len = PF_SEGREP_UNDEF,
		.reshape_len_le = PF_SEGREP_UNDEF,
		.thin_count = PF_SEGREP_UNDEF,
		.cache_metadata_format = PF_SEGREP_UNDEF,
		.transaction_id = PF_SEGREP_UNDEF,
		.thin_id = PF_SEGREP_UNDEF,
		.discards = "",
		.cache_mode = "",
		.cache_policy = "",
		.zero = PF_SEGREP_UNDEF,
	};
	int rc;

	if (seg->is_striped && seg->stripe_count == 1) {
		r.segtype = "linear";
		r.segtype_len = strlen(r.segtype);
	}
	(void)pf_cfg_get_list(seg->raw, "tags", &r.seg_tags);
	if (r.seg_tags && r.seg_tags->type == PF_CFG_EMPTY_ARRAY)
		r.seg_tags = NULL;
	rc = fill_areas(vg, seg, k, &r);
	if (rc == 0)
		rc = cache_fields(vg, lv, seg, k, &r);
	if (rc < 0) {
		pf_seg_report_release(&r);
		return rc;
	}
	r.stripes = r.n_areas;
	r.data_copies = data_copies_of(seg, k, r.stripes);
	/* Fewer images than parity is metadata lvm2 refuses: no data stripes. */
	r.data_stripes = r.stripes > parity_devs(k) ? r.stripes - parity_devs(k) : 0;
	if (k == K_RAID10 && r.data_copies > 0)
		r.data_stripes /= r.data_copies;
	r.parity_chunks = parity_chunks_of(vg, &r, k);
	if (shows_reshape(vg, lv, seg, k)) {
		uint64_t len = (uint64_t)u32_or(seg, "reshape_count", 0) * r.stripes;

		r.reshape_len_le = (int64_t)len;
		r.reshape_len = (int64_t)(len * extent);
	}
	if (seg->is_striped)
		r.stripe_size = (uint64_t)seg->stripe_size * 512U;
	else if (is_raid(k))
		r.stripe_size = (uint64_t)u32_or(seg, "stripe_size", 0) * 512U;
	if (is_raid(k) || k == K_MIRROR)
		r.region_size = (uint64_t)u32_or(seg, "region_size", 0) * 512U;
	r.chunk_size = chunk_size_of(vg, lv, seg, k);
	if (k == K_THIN || k == K_THIN_POOL)
		thin_fields(vg, lv, seg, k, &r);
	if (k == K_VDO || k == K_VDO_POOL)
		vdo_fields(vg, seg, k, &r);
	*ret = r;
	return 0;
}

void pf_seg_report_release(struct pf_seg_report *r)
{
	if (!r)
		return;
	free(r->areas);
	free(r->meta_areas);
	pf_strv_release(&r->cache_settings);
	r->areas = r->meta_areas = NULL;
}

/* The roles other segments give an LV (lvm2's status bits set while importing them). */
struct lv_roles {
	bool origin, merging_origin, external_origin, cow, merging_cow;
	bool pool_meta, thin_pool_data, cache_pool_data, vdo_pool_data, raid_meta, raid_image;
	bool integrity_meta, mirror_image, mirror_log, cache_origin, writecache_origin;
};

static bool names(const struct pf_vg_seg *o, const char *key, const char *name)
{
	const char *v;

	return pf_cfg_get_str(o->raw, key, &v) == 0 && strcmp(v, name) == 0;
}

static void list_roles(const struct pf_vg_seg *o, const char *key, const char *name,
		       bool *data, bool *meta)
{
	const struct pf_cfg_value *v;

	if (pf_cfg_get_list(o->raw, key, &v) < 0)
		return;
	for (; v; v = v->next)
		if (v->type == PF_CFG_STRING && strcmp(v->v.s, name) == 0) {
			if (meta && strstr(name, "_rmeta_"))
				*meta = true;
			else
				*data = true;
		}
}

static void seg_roles(const struct pf_vg_seg *o, const char *name, struct lv_roles *r)
{
	switch (kind_of(o)) {
	case K_SNAPSHOT:
		if (names(o, "origin", name)) {
			r->origin = true;
			r->merging_origin |= pf_cfg_find(o->raw->child, "merging_store") != NULL;
		}
		r->cow |= names(o, "cow_store", name);
		if (names(o, "merging_store", name))
			r->cow = r->merging_cow = true;
		break;
	case K_THIN:
		r->external_origin |= names(o, "external_origin", name);
		break;
	case K_THIN_POOL:
		r->pool_meta |= names(o, "metadata", name);
		r->thin_pool_data |= names(o, "pool", name);
		break;
	case K_CACHE_POOL:
		r->pool_meta |= names(o, "metadata", name);
		r->cache_pool_data |= names(o, "data", name);
		break;
	case K_CACHE:
		r->cache_origin |= names(o, "origin", name);
		break;
	case K_WRITECACHE:
		r->writecache_origin |= names(o, "origin", name);
		break;
	case K_INTEGRITY:
		r->integrity_meta |= names(o, "meta_dev", name);
		break;
	case K_VDO_POOL:
		r->vdo_pool_data |= names(o, "data", name);
		break;
	case K_MIRROR:
		list_roles(o, "mirrors", name, &r->mirror_image, NULL);
		r->mirror_log |= names(o, "mirror_log", name);
		break;
	case K_RAID0:
	case K_RAID0_META:
	case K_RAID1:
	case K_RAID4:
	case K_RAID5:
	case K_RAID6:
	case K_RAID10:
		list_roles(o, raid_list_key(kind_of(o)), name, &r->raid_image, &r->raid_meta);
		break;
	default:
		break;
	}
}

/* What the LV's own segments make it. */
struct lv_kinds {
	bool raid, mirror, thin, thin_pool, cache, cache_pool, writecache, integrity, vdo_pool;
	bool is_virtual, unknown;
};

static void own_kinds(const struct pf_vg_lv *lv, struct lv_kinds *k)
{
	for (unsigned s = 0; s < lv->n_segs; s++) {
		enum seg_kind sk = lv->segs[s].is_striped ? K_STRIPED : kind_of(&lv->segs[s]);

		k->raid |= is_raid(sk);
		k->mirror |= sk == K_MIRROR;
		k->thin |= sk == K_THIN;
		k->thin_pool |= sk == K_THIN_POOL;
		k->cache |= sk == K_CACHE;
		k->cache_pool |= sk == K_CACHE_POOL;
		k->writecache |= sk == K_WRITECACHE;
		k->integrity |= sk == K_INTEGRITY;
		k->vdo_pool |= sk == K_VDO_POOL;
		k->is_virtual |= sk == K_ZERO || sk == K_ERROR || sk == K_VDO || sk == K_THIN;
		k->unknown |= sk == K_OTHER;
	}
}

static char type_char(const struct pf_vg_lv *lv, const struct lv_kinds *k,
		      const struct lv_roles *r)
{
	bool notsynced = lv->status & PF_LV_NOTSYNCED;

	if (lv->status & PF_LV_PVMOVE)
		return 'p';
	if (r->origin || r->external_origin)
		return r->merging_origin ? 'O' : 'o';
	if (r->pool_meta || r->raid_meta || r->integrity_meta ||
	    (!(lv->status & PF_LV_VISIBLE) && strstr(lv->name, "_pmspare")))
		return 'e';
	if (k->cache || k->cache_pool || (lv->status & PF_LV_CACHE_VOL) || r->cache_pool_data ||
	    k->writecache)
		return 'C';
	if (k->integrity)
		return 'g';
	if (k->raid)
		return notsynced ? 'R' : 'r';
	if (k->mirror)
		return notsynced ? 'M' : 'm';
	if (k->thin)
		return 'V';
	if (k->vdo_pool)
		return 'd';
	if (r->vdo_pool_data)
		return 'D';
	if (k->is_virtual)
		return 'v';
	if (k->thin_pool)
		return 't';
	if (r->thin_pool_data)
		return 'T';
	/* Image sync is the kernel's to tell: unknown, as lvm2 shows it without it. */
	if (r->mirror_image || r->raid_image)
		return 'I';
	if (r->mirror_log)
		return 'l';
	if (r->cow)
		return r->merging_cow ? 'S' : 's';
	if (r->cache_origin || r->writecache_origin)
		return 'o';
	return '-';
}

static char target_char(const struct pf_vg_lv *lv, const struct lv_kinds *k,
			const struct lv_roles *r)
{
	if (k->thin_pool || k->thin)
		return 't';
	if (k->cache_pool || (lv->status & PF_LV_CACHE_VOL) || k->cache || r->cache_origin ||
	    k->writecache || r->writecache_origin)
		return 'C';
	if (k->raid || r->raid_image || r->raid_meta)
		return 'r';
	if (k->mirror || r->mirror_log || r->mirror_image || (lv->status & PF_LV_PVMOVE))
		return 'm';
	if (r->cow || r->origin)
		return 's';
	if (k->unknown)
		return 'u';
	if (k->is_virtual)
		return 'v';
	return '-';
}

static char alloc_char(const struct pf_vg_lv *lv)
{
	static const struct {
		const char *name;
		char c;
	} policies[] = { { "contiguous", 'c' }, { "cling", 'l' }, { "cling_by_tags", 't' },
			 { "normal", 'n' },	{ "anywhere", 'a' }, { "inherit", 'i' } };
	const char *s;

	if (pf_cfg_get_str(lv->raw, "allocation_policy", &s) == 0)
		for (size_t i = 0; i < ARRAY_SIZE(policies); i++)
			if (strcmp(policies[i].name, s) == 0)
				return policies[i].c;
	return 'i';
}

static bool thin_zeroes(const struct pf_vg *vg, const struct pf_vg_lv *lv,
			const struct lv_kinds *k)
{
	const struct pf_vg_seg *pool = lv->n_segs ? &lv->segs[0] : NULL;
	const char *name;

	if (k->thin && pool)
		pool = pf_cfg_get_str(pool->raw, "thin_pool", &name) == 0 ? first_seg_of(vg, name) :
									    NULL;
	else if (!k->thin_pool)
		return false;
	return pool && !pool->is_striped && kind_of(pool) == K_THIN_POOL &&
	       u32_or(pool, "zero_new_blocks", 0) != 0;
}

int pf_lv_attr(const struct pf_vg *vg, const struct pf_vg_lv *lv, const bool *pv_missing,
	       char ret[PF_LV_ATTR_LEN + 1])
{
	_cleanup_free_ bool *used = calloc(vg->n_pvs ? vg->n_pvs : 1, sizeof(*used));
	struct lv_roles r = { 0 };
	struct lv_kinds k = { 0 };
	bool partial = false;

	if (!used)
		return -ENOMEM;
	for (unsigned l = 0; l < vg->n_lvs; l++)
		for (unsigned s = 0; s < vg->lvs[l].n_segs; s++)
			if (!vg->lvs[l].segs[s].is_striped)
				seg_roles(&vg->lvs[l].segs[s], lv->name, &r);
	own_kinds(lv, &k);
	pf_vg_lv_mark_pvs(vg, lv, used);
	for (unsigned i = 0; i < vg->n_pvs; i++)
		partial |= used[i] && ((vg->pvs[i].status & PF_PV_MISSING) ||
				       (pv_missing && pv_missing[i]));

	ret[0] = type_char(lv, &k, &r);
	ret[1] = (lv->status & PF_LV_PVMOVE) ? '-' :
		 (lv->status & PF_LV_WRITE)  ? 'w' :
		 (lv->status & PF_LV_READ)   ? 'r' :
					       '-';
	ret[2] = alloc_char(lv);
	if (lv->status & PF_LV_LOCKED)
		ret[2] = (char)(ret[2] - 'a' + 'A');
	ret[3] = (lv->status & PF_LV_FIXED_MINOR) ? 'm' : '-';
	/* State and open count are the kernel's: unknown, as lvm2 shows them without it. */
	ret[4] = 'X';
	ret[5] = 'X';
	ret[6] = target_char(lv, &k, &r);
	ret[7] = thin_zeroes(vg, lv, &k) ? 'z' : '-';
	ret[8] = partial ? 'p' : (k.raid || r.raid_image || r.raid_meta) ? 'X' : '-';
	ret[9] = (lv->status & PF_LV_ACTIVATION_SKIP) ? 'k' : '-';
	ret[PF_LV_ATTR_LEN] = '\0';
	return 0;
}
