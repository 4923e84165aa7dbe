/* SPDX-License-Identifier: GPL-2.0-or-later */
/* --dump: read each device with a probe and show what lvm2 would see there, and why. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/paths.h"
#include "base/strutil.h"
#include "cmd.h"
#include "config/settings.h"
#include "format/probe.h"
#include "format/segreport.h"
#include "io/reader.h"
#include "json.h"

/* Raw segment settings are nested at most a couple of levels; deeper text is summarised. */
#define RAW_DEPTH_MAX 8
/*
 * A string from the metadata as the text output shows it: escaped (pf_str_escape()), so that
 * a crafted PV cannot write escape sequences to the terminal; longer ones are cut.
 */
#define SHOWN_MAX 1024U
#define SHOWN(s) pf_str_escape((s), (char[SHOWN_MAX]){ 0 }, SHOWN_MAX)

struct dump_dev {
	const char *path;
	int open_status;
	/* < 0: the reads did not finish (no answer in time): left out, as by the scan */
	int read_status;
	struct pf_diag read_diag;
	struct pf_probe probe;
};

/* A VG seen on one or more devices, and the copy lvm2 would use. */
struct dump_vg {
	const struct pf_vg *vg; /* newest copy */
	unsigned dev;		/* device it came from */
	int mda;		/* mda index on that device */
};

static const char *const vg_status_str[] = { "EXPORTED", "RESIZEABLE", "PVMOVE", "READ",
					     "WRITE", "CLUSTERED", "SHARED", "PARTIAL" };
static const char *const vg_flag_str[] = { "WRITE_LOCKED", "NOAUTOACTIVATE" };
static const char *const pv_status_str[] = { "ALLOCATABLE", "EXPORTED", "MISSING" };
static const char *const lv_status_str[] = { "READ",   "WRITE",	    "FIXED_MINOR",
					     "VISIBLE", "PVMOVE",   "LOCKED",
					     "NOTSYNCED", "REBUILD", "WRITEMOSTLY" };
static const char *const lv_flag_str[] = { "WRITE_LOCKED", "ACTIVATION_SKIP", "NOAUTOACTIVATE",
					   "ERROR_WHEN_FULL", "CACHE_VOL" };

static void json_bits(struct pf_json *j, const char *key, uint32_t bits, unsigned shift,
		      const char *const *names, size_t n)
{
	pf_json_arr_begin(j, key);
	for (size_t i = 0; i < n; i++)
		if (bits & (1U << (shift + i)))
			pf_json_str(j, NULL, names[i]);
	pf_json_arr_end(j);
}

static void text_bits(uint32_t bits, unsigned shift, const char *const *names, size_t n)
{
	bool first = true;

	for (size_t i = 0; i < n; i++)
		if (bits & (1U << (shift + i))) {
			(void)printf("%s%s", first ? "" : ",", names[i]);
			first = false;
		}
	if (first)
		(void)printf("-");
}

static void json_values(struct pf_json *j, const char *key, const struct pf_cfg_value *v)
{
	pf_json_arr_begin(j, key);
	for (; v && v->type != PF_CFG_EMPTY_ARRAY; v = v->next) {
		switch (v->type) {
		case PF_CFG_INT:
			pf_json_i64(j, NULL, v->v.i);
			break;
		case PF_CFG_FLOAT:
			pf_json_double(j, NULL, v->v.f);
			break;
		case PF_CFG_STRING:
			pf_json_str(j, NULL, v->v.s);
			break;
		case PF_CFG_EMPTY_ARRAY:
			break;
		}
	}
	pf_json_arr_end(j);
}

/* Every setting of a section, for segment types pvscan-fast does not decode. */
static void json_raw(struct pf_json *j, const char *key, const struct pf_cfg_node *sec,
		     unsigned depth)
{
	pf_json_obj_begin(j, key);
	for (const struct pf_cfg_node *c = sec->child; c; c = c->next) {
		if (pf_cfg_is_section(c)) {
			if (depth < RAW_DEPTH_MAX)
				json_raw(j, c->key, c, depth + 1);
			else
				pf_json_str(j, c->key, "(nested too deep)");
		} else if (c->is_array) {
			json_values(j, c->key, c->value);
		} else if (c->value->type == PF_CFG_INT) {
			pf_json_i64(j, c->key, c->value->v.i);
		} else if (c->value->type == PF_CFG_FLOAT) {
			pf_json_double(j, c->key, c->value->v.f);
		} else {
			pf_json_str(j, c->key, c->value->v.s);
		}
	}
	pf_json_obj_end(j);
}

static void dashed(const char *raw, char *buf)
{
	pf_id_format_dashed(raw, buf);
}

static void json_diag(struct pf_json *j, const char *key, const struct pf_diag *d)
{
	pf_json_obj_begin(j, key);
	pf_json_str(j, "reason", d->msg);
	if (d->has_offset)
		pf_json_u64(j, "offset", d->offset);
	if (d->line) {
		pf_json_u64(j, "line", d->line);
		pf_json_u64(j, "column", d->col);
	}
	pf_json_obj_end(j);
}

static void text_diag(const char *what, const struct pf_diag *d)
{
	(void)printf("%s: %s", what, d->msg);
	if (d->line)
		(void)printf(" [text line %u, column %u]", d->line, d->col);
	else if (d->has_offset)
		(void)printf(" [byte %" PRIu64 "]", d->offset);
	(void)printf("\n");
}

/* A device is clean when no check failed anywhere; empty and ignored mdas are not failures. */
static bool dev_is_clean(const struct dump_dev *d)
{
	const struct pf_probe *p = &d->probe;

	if (d->open_status < 0 || d->read_status < 0 || p->label_status != 0 ||
	    p->size_status < 0)
		return false;
	for (unsigned i = 0; i < p->n_mdas; i++) {
		const struct pf_mda_probe *m = &p->mdas[i];

		if (m->header_status < 0)
			return false;
		/* What an ignored mda's text holds does not matter to lvm2. */
		if (!m->ignored &&
		    ((m->text_status < 0 && m->text_status != -ENODATA) || m->vg_status < 0))
			return false;
	}
	return true;
}

static void json_locns(struct pf_json *j, const char *key, const struct pf_disk_locn *l,
		       unsigned n)
{
	pf_json_arr_begin(j, key);
	for (unsigned i = 0; i < n; i++) {
		pf_json_obj_begin(j, NULL);
		pf_json_u64(j, "offset", l[i].offset_bytes);
		pf_json_u64(j, "size", l[i].size_bytes);
		pf_json_obj_end(j);
	}
	pf_json_arr_end(j);
}

static void json_mda(struct pf_json *j, const struct pf_probe *p, unsigned i)
{
	const struct pf_mda_probe *m = &p->mdas[i];

	pf_json_obj_begin(j, NULL);
	pf_json_u64(j, "mda", i + 1);
	pf_json_u64(j, "offset", m->locn.offset_bytes);
	pf_json_u64(j, "size", m->locn.size_bytes);
	pf_json_bool(j, "header_ok", m->header_status == 0);
	if (m->header_status < 0) {
		json_diag(j, "header_error", &m->header_diag);
		pf_json_obj_end(j);
		return;
	}
	pf_json_u64(j, "header_checksum", m->header.checksum);
	pf_json_bool(j, "ignored", m->ignored);
	if (m->text_status == 0 || m->text_status == -EBADMSG || m->text_status == -EIO) {
		if (m->loc.total_bytes) {
			pf_json_u64(j, "text_offset", m->loc.offset1_bytes);
			pf_json_u64(j, "text_size", m->loc.total_bytes);
			pf_json_bool(j, "text_wrapped", m->loc.len2_bytes != 0);
			pf_json_u64(j, "text_checksum", m->loc.checksum);
		}
	}
	pf_json_bool(j, "text_ok", m->text_status == 0);
	if (m->text_status < 0)
		json_diag(j, m->text_status == -ENODATA ? "no_text" : "text_error", &m->text_diag);
	if (m->vg_status < 0)
		json_diag(j, "metadata_error", &m->vg_diag);
	if (m->vg) {
		pf_json_str(j, "vg_name", m->vg->name);
		pf_json_u64(j, "vg_seqno", m->vg->seqno);
	}
	pf_json_obj_end(j);
}

static void json_dev(struct pf_json *j, const struct dump_dev *d)
{
	const struct pf_probe *p = &d->probe;
	const struct pf_pv_label *l = &p->label;
	const struct pf_vg *vg = pf_probe_vg(p);
	char id[PF_ID_DASHED_LEN + 1];

	pf_json_obj_begin(j, NULL);
	pf_json_str(j, "pv_name", d->path);
	pf_json_bool(j, "ok", dev_is_clean(d));
	if (d->open_status < 0) {
		pf_json_str(j, "error", strerror(-d->open_status));
		pf_json_obj_end(j);
		return;
	}
	pf_json_u64(j, "dev_size", p->dev_size_bytes);
	if (d->read_status < 0) {
		json_diag(j, "read_error", &d->read_diag);
		pf_json_obj_end(j);
		return;
	}
	if (p->label_status != 0) {
		json_diag(j, "label_error", &p->label_diag);
		pf_json_obj_end(j);
		return;
	}
	dashed(l->pvid, id);
	pf_json_u64(j, "label_sector", l->sector);
	pf_json_u64(j, "label_crc", l->crc);
	pf_json_str(j, "pv_uuid", id);
	pf_json_str(j, "pvid", l->pvid);
	pf_json_u64(j, "pv_header_dev_size", l->device_size_bytes);
	if (p->size_status < 0)
		json_diag(j, "size_error", &p->size_diag);
	pf_json_u64(j, "pv_ext_version", l->ext_version);
	pf_json_u64(j, "pv_ext_flags", l->ext_flags);
	pf_json_bool(j, "pv_in_use", !pf_pv_label_is_unused(l));
	json_locns(j, "data_areas", l->data_areas, l->n_data_areas);
	/* What lvm2 reports for a PV in no VG; a VG's PV list has the metadata's own. */
	if (l->n_data_areas)
		pf_json_u64(j, "pe_start", l->data_areas[0].offset_bytes);
	json_locns(j, "bootloader_areas", l->bootloader_areas, l->n_bootloader_areas);
	pf_json_u64(j, "pv_mda_count", l->n_mdas);
	pf_json_arr_begin(j, "mdas");
	for (unsigned i = 0; i < p->n_mdas; i++)
		json_mda(j, p, i);
	pf_json_arr_end(j);
	if (vg) {
		dashed(vg->id, id);
		pf_json_str(j, "vg_name", vg->name);
		pf_json_str(j, "vg_uuid", id);
		pf_json_u64(j, "vg_seqno", vg->seqno);
		pf_json_u64(j, "vg_from_mda", (uint64_t)p->vg_index + 1);
	}
	pf_json_obj_end(j);
}

/* The device lvm2 names for a PV of the VG: where its label was found, else "[unknown]". */
static const char *pv_dev_name(const struct pf_vg *vg, int pv_index, const struct dump_dev *devs,
			       unsigned n_devs)
{
	for (unsigned d = 0; d < n_devs; d++)
		if (devs[d].open_status == 0 && devs[d].read_status == 0 &&
		    devs[d].probe.label_status == 0 &&
		    strcmp(devs[d].probe.label.pvid, vg->pvs[pv_index].id) == 0)
			return devs[d].path;
	return "[unknown]";
}

enum area_form { AREA_DEVICES, AREA_PE_RANGES, AREA_LE_RANGES };

/* lvm2's devices, seg_pe_ranges and seg_le_ranges strings for a list of areas. */
static void json_area_str(struct pf_json *j, const char *key, const struct pf_vg *vg,
			  const struct pf_segrep_area *a, unsigned n, enum area_form form,
			  const struct dump_dev *devs, unsigned n_devs)
{
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f) {
		pf_json_null(j, key);
		return;
	}
	for (unsigned i = 0; i < n; i++) {
		const char *name = a[i].pv_index >= 0 ? pv_dev_name(vg, a[i].pv_index, devs, n_devs) :
							a[i].name;
		bool brackets = form == AREA_LE_RANGES && a[i].pv_index < 0 && a[i].lv_hidden;

		if (i)
			(void)fputs(form == AREA_PE_RANGES ? " " : ",", f);
		(void)fprintf(f, "%s%s%s", brackets ? "[" : "", name, brackets ? "]" : "");
		if (form == AREA_DEVICES)
			(void)fprintf(f, "(%" PRIu32 ")", a[i].start);
		else
			(void)fprintf(f, ":%" PRIu32 "-%" PRIu32, a[i].start,
				      (uint32_t)(a[i].start + a[i].extents - 1U));
	}
	if (fclose(f) != 0) {
		pf_json_null(j, key);
		return;
	}
	pf_json_str(j, key, buf);
}

static void json_areas(struct pf_json *j, const char *key, const struct pf_vg *vg,
		       const struct pf_segrep_area *a, unsigned n)
{
	char id[PF_ID_DASHED_LEN + 1];

	pf_json_arr_begin(j, key);
	for (unsigned i = 0; i < n; i++) {
		pf_json_obj_begin(j, NULL);
		pf_json_str(j, a[i].pv_index >= 0 ? "pv" : "lv", a[i].name);
		if (a[i].pv_index >= 0) {
			dashed(vg->pvs[a[i].pv_index].id, id);
			pf_json_str(j, "pv_uuid", id);
		}
		pf_json_u64(j, "start_extent", a[i].start);
		pf_json_u64(j, "extent_count", a[i].extents);
		pf_json_obj_end(j);
	}
	pf_json_arr_end(j);
}

/* A number lvm2 may leave blank: null then. */
static void json_num(struct pf_json *j, const char *key, int64_t v)
{
	if (v == PF_SEGREP_UNDEF)
		pf_json_null(j, key);
	else
		pf_json_i64(j, key, v);
}

static void json_strv(struct pf_json *j, const char *key, const struct pf_strv *sv)
{
	pf_json_arr_begin(j, key);
	for (size_t i = 0; i < sv->n; i++)
		pf_json_str(j, NULL, sv->v[i]);
	pf_json_arr_end(j);
}

static void json_vdo(struct pf_json *j, const struct pf_seg_report *r)
{
	const struct pf_segrep_vdo *v = &r->vdo;

	if (!r->has_vdo)
		return;
	pf_json_bool(j, "vdo_compression", v->compression);
	pf_json_bool(j, "vdo_deduplication", v->deduplication);
	pf_json_bool(j, "vdo_use_metadata_hints", v->metadata_hints);
	pf_json_u64(j, "vdo_minimum_io_size", v->minimum_io_size);
	pf_json_u64(j, "vdo_block_map_cache_size", v->block_map_cache_size);
	pf_json_u64(j, "vdo_block_map_era_length", v->block_map_era_length);
	pf_json_bool(j, "vdo_use_sparse_index", v->sparse_index);
	pf_json_u64(j, "vdo_index_memory_size", v->index_memory_size);
	pf_json_u64(j, "vdo_slab_size", v->slab_size);
	pf_json_u64(j, "vdo_ack_threads", v->ack_threads);
	pf_json_u64(j, "vdo_bio_threads", v->bio_threads);
	pf_json_u64(j, "vdo_bio_rotation", v->bio_rotation);
	pf_json_u64(j, "vdo_cpu_threads", v->cpu_threads);
	pf_json_u64(j, "vdo_hash_zone_threads", v->hash_zone_threads);
	pf_json_u64(j, "vdo_logical_threads", v->logical_threads);
	pf_json_u64(j, "vdo_physical_threads", v->physical_threads);
	pf_json_u64(j, "vdo_max_discard", v->max_discard);
	pf_json_str(j, "vdo_write_policy", v->write_policy);
	pf_json_u64(j, "vdo_header_size", v->header_size);
}

static void json_seg(struct pf_json *j, const struct pf_vg *vg, const struct pf_vg_lv *lv,
		     const struct pf_vg_seg *s, const struct dump_dev *devs, unsigned n_devs)
{
	struct pf_seg_report r;

	pf_json_obj_begin(j, NULL);
	pf_json_u64(j, "seg_start_pe", s->start_extent);
	pf_json_u64(j, "seg_size_pe", s->extent_count);
	if (pf_seg_report(vg, lv, s, &r) < 0) {
		pf_json_str(j, "error", strerror(ENOMEM));
		pf_json_obj_end(j);
		return;
	}
	pf_json_strn(j, "segtype", r.segtype, r.segtype_len);
	if (pf_vg_seg_has_type_flags(s))
		pf_json_str(j, "segtype_with_flags", s->type);
	pf_json_u64(j, "seg_start", r.seg_start);
	pf_json_u64(j, "seg_size", r.seg_size);
	pf_json_u64(j, "stripes", r.stripes);
	json_num(j, "data_stripes", r.data_stripes);
	json_num(j, "reshape_len", r.reshape_len);
	json_num(j, "reshape_len_le", r.reshape_len_le);
	json_num(j, "data_copies", r.data_copies);
	json_num(j, "parity_chunks", r.parity_chunks);
	pf_json_u64(j, "stripe_size", r.stripe_size);
	pf_json_u64(j, "region_size", r.region_size);
	pf_json_u64(j, "chunk_size", r.chunk_size);
	json_num(j, "thin_count", r.thin_count);
	pf_json_str(j, "discards", r.discards);
	json_num(j, "cache_metadata_format", r.cache_metadata_format);
	pf_json_str(j, "cache_mode", r.cache_mode);
	if (r.zero == PF_SEGREP_UNDEF)
		pf_json_null(j, "zero");
	else
		pf_json_bool(j, "zero", r.zero);
	json_num(j, "transaction_id", r.transaction_id);
	json_num(j, "thin_id", r.thin_id);
	json_values(j, "seg_tags", r.seg_tags);
	json_area_str(j, "seg_pe_ranges", vg, r.areas, r.n_areas, AREA_PE_RANGES, devs, n_devs);
	json_area_str(j, "seg_le_ranges", vg, r.areas, r.n_areas, AREA_LE_RANGES, devs, n_devs);
	json_area_str(j, "seg_metadata_le_ranges", vg, r.meta_areas, r.n_meta_areas,
		      AREA_LE_RANGES, devs, n_devs);
	json_area_str(j, "devices", vg, r.areas, r.n_areas, AREA_DEVICES, devs, n_devs);
	json_area_str(j, "metadata_devices", vg, r.meta_areas, r.n_meta_areas, AREA_DEVICES,
		      devs, n_devs);
	pf_json_str(j, "cache_policy", r.cache_policy);
	json_strv(j, "cache_settings", &r.cache_settings);
	json_vdo(j, &r);
	json_areas(j, "areas", vg, r.areas, r.n_areas);
	json_areas(j, "metadata_areas", vg, r.meta_areas, r.n_meta_areas);
	if (!s->is_striped)
		json_raw(j, "settings", s->raw, 0);
	pf_seg_report_release(&r);
	pf_json_obj_end(j);
}

static void json_vg(struct pf_json *j, const struct dump_vg *dv, const struct dump_dev *devs,
		    unsigned n_devs)
{
	const struct pf_vg *vg = dv->vg;
	_cleanup_free_ bool *missing = NULL;
	char id[PF_ID_DASHED_LEN + 1];

	pf_json_obj_begin(j, NULL);
	dashed(vg->id, id);
	pf_json_str(j, "vg_name", vg->name);
	pf_json_str(j, "vg_uuid", id);
	pf_json_u64(j, "vg_seqno", vg->seqno);
	pf_json_u64(j, "vg_extent_size", (uint64_t)vg->extent_size * 512U);
	json_bits(j, "vg_status", vg->status, 0, vg_status_str, ARRAY_SIZE(vg_status_str));
	json_bits(j, "vg_flags", vg->status, 16, vg_flag_str, ARRAY_SIZE(vg_flag_str));
	json_values(j, "vg_tags", vg->tags);
	pf_json_str(j, "vg_systemid", vg->system_id);
	pf_json_str(j, "vg_lock_type", vg->lock_type);
	pf_json_u64(j, "max_lv", vg->max_lv);
	pf_json_u64(j, "max_pv", vg->max_pv);
	pf_json_i64(j, "vg_mda_copies", vg->metadata_copies);
	pf_json_u64(j, "pv_count", vg->n_pvs);
	pf_json_u64(j, "lv_count", vg->n_lvs);
	pf_json_str(j, "metadata_from", devs[dv->dev].path);
	pf_json_u64(j, "metadata_from_mda", (uint64_t)dv->mda + 1);

	/* Every other copy of this VG with a lower seqno: lvm2 ignores and later repairs it. */
	pf_json_arr_begin(j, "older_copies");
	for (unsigned d = 0; d < n_devs; d++)
		for (unsigned m = 0; m < devs[d].probe.n_mdas; m++) {
			const struct pf_vg *c = devs[d].probe.mdas[m].vg;

			if (!c || devs[d].probe.mdas[m].ignored || strcmp(c->id, vg->id) != 0 ||
			    c->seqno >= vg->seqno)
				continue;
			pf_json_obj_begin(j, NULL);
			pf_json_str(j, "pv_name", devs[d].path);
			pf_json_u64(j, "mda", m + 1);
			pf_json_u64(j, "vg_seqno", c->seqno);
			pf_json_obj_end(j);
		}
	pf_json_arr_end(j);

	pf_json_arr_begin(j, "pvs");
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		const struct pf_vg_pv *pv = &vg->pvs[i];

		pf_json_obj_begin(j, NULL);
		dashed(pv->id, id);
		pf_json_str(j, "pv_key", pv->key);
		pf_json_str(j, "pv_uuid", id);
		pf_json_str(j, "pv_device_hint", pv->device);
		if (pv->has_dev_size)
			pf_json_u64(j, "dev_size", pv->dev_size * 512U);
		pf_json_u64(j, "pe_start", pv->pe_start * 512U);
		pf_json_u64(j, "pv_pe_count", pv->pe_count);
		pf_json_u64(j, "pv_ba_start", pv->ba_start * 512U);
		pf_json_u64(j, "pv_ba_size", pv->ba_size * 512U);
		json_bits(j, "pv_status", pv->status, 0, pv_status_str, ARRAY_SIZE(pv_status_str));
		pf_json_bool(j, "pv_missing", pv->status & PF_PV_MISSING);
		json_values(j, "pv_tags", pv->tags);
		pf_json_str(j, "device_id_type", pv->device_id_type);
		pf_json_str(j, "device_id", pv->device_id);
		pf_json_obj_end(j);
	}
	pf_json_arr_end(j);

	missing = calloc(vg->n_pvs ? vg->n_pvs : 1, sizeof(*missing));
	for (unsigned i = 0; missing && i < vg->n_pvs; i++)
		missing[i] = strcmp(pv_dev_name(vg, (int)i, devs, n_devs), "[unknown]") == 0;
	pf_json_arr_begin(j, "lvs");
	for (unsigned i = 0; i < vg->n_lvs; i++) {
		const struct pf_vg_lv *lv = &vg->lvs[i];
		char attr[PF_LV_ATTR_LEN + 1];

		pf_json_obj_begin(j, NULL);
		dashed(lv->id, id);
		pf_json_str(j, "lv_name", lv->name);
		pf_json_str(j, "lv_uuid", id);
		if (missing && pf_lv_attr(vg, lv, missing, attr) == 0)
			pf_json_str(j, "lv_attr", attr);
		else
			pf_json_null(j, "lv_attr");
		json_bits(j, "lv_status", lv->status, 0, lv_status_str, ARRAY_SIZE(lv_status_str));
		json_bits(j, "lv_flags", lv->status, 16, lv_flag_str, ARRAY_SIZE(lv_flag_str));
		json_values(j, "lv_tags", lv->tags);
		pf_json_bool(j, "lv_visible", lv->status & PF_LV_VISIBLE);
		pf_json_str(j, "lv_permissions",
			    (lv->status & PF_LV_WRITE) ? "read/write" : "read-only");
		if (lv->has_read_ahead)
			pf_json_i64(j, "lv_read_ahead_sectors", lv->read_ahead);
		else
			pf_json_str(j, "lv_read_ahead_sectors", "auto");
		pf_json_u64(j, "lv_size", lv->extent_count * vg->extent_size * 512U);
		pf_json_u64(j, "seg_count", lv->n_segs);
		pf_json_arr_begin(j, "segments");
		for (unsigned s = 0; s < lv->n_segs; s++)
			json_seg(j, vg, lv, &lv->segs[s], devs, n_devs);
		pf_json_arr_end(j);
		pf_json_obj_end(j);
	}
	pf_json_arr_end(j);
	pf_json_obj_end(j);
}

static void text_dev(const struct dump_dev *d)
{
	const struct pf_probe *p = &d->probe;
	const struct pf_pv_label *l = &p->label;
	char id[PF_ID_DASHED_LEN + 1];

	if (d->open_status < 0) {
		(void)printf("%s: cannot open: %s\n", d->path, strerror(-d->open_status));
		return;
	}
	if (d->read_status < 0) {
		(void)printf("%s: %s\n", d->path, d->read_diag.msg);
		return;
	}
	if (p->label_status != 0) {
		(void)printf("%s: ", d->path);
		text_diag("no usable LVM2 label", &p->label_diag);
		return;
	}
	dashed(l->pvid, id);
	(void)printf("%s: PV %s, label in sector %u (crc 0x%08x)\n", d->path, id, l->sector, l->crc);
	(void)printf("  device size %" PRIu64 " bytes, pv_header device size %" PRIu64 "\n",
		     p->dev_size_bytes, l->device_size_bytes);
	if (p->size_status < 0)
		text_diag("  size", &p->size_diag);
	(void)printf("  extension version %u, flags 0x%x%s\n", l->ext_version, l->ext_flags,
		     pf_pv_label_is_unused(l) ? " (not used: orphan PV)" : "");
	for (unsigned i = 0; i < l->n_data_areas; i++)
		(void)printf("  data area %u: offset %" PRIu64 ", size %" PRIu64 "\n", i + 1,
			     l->data_areas[i].offset_bytes, l->data_areas[i].size_bytes);
	for (unsigned i = 0; i < l->n_bootloader_areas; i++)
		(void)printf("  bootloader area %u: offset %" PRIu64 ", size %" PRIu64 "\n", i + 1,
			     l->bootloader_areas[i].offset_bytes,
			     l->bootloader_areas[i].size_bytes);
	if (l->n_mdas == 0)
		(void)printf("  no metadata areas\n");
	for (unsigned i = 0; i < p->n_mdas; i++) {
		const struct pf_mda_probe *m = &p->mdas[i];

		(void)printf("  mda%u: offset %" PRIu64 ", size %" PRIu64 "\n", i + 1,
			     m->locn.offset_bytes, m->locn.size_bytes);
		if (m->header_status < 0) {
			text_diag("    header bad", &m->header_diag);
			continue;
		}
		(void)printf("    header ok (checksum 0x%08x)%s\n", m->header.checksum,
			     m->ignored ? ", ignored" : "");
		if (m->loc.total_bytes)
			(void)printf("    text at %" PRIu64 ", %" PRIu64 " bytes%s, checksum 0x%08x\n",
				     m->loc.offset1_bytes, m->loc.total_bytes,
				     m->loc.len2_bytes ? " (wraps)" : "", m->loc.checksum);
		if (m->text_status < 0)
			text_diag(m->text_status == -ENODATA ? "    no text" : "    text bad",
				  &m->text_diag);
		if (m->vg_status < 0)
			text_diag("    metadata bad", &m->vg_diag);
		if (m->vg)
			(void)printf("    VG %s seqno %u%s\n", m->vg->name, m->vg->seqno,
				     m->ignored ? " (ignored: lvm2 does not use this copy)" : "");
	}
}

static void text_vg(const struct dump_vg *dv, const struct dump_dev *devs, unsigned n_devs)
{
	const struct pf_vg *vg = dv->vg;
	char id[PF_ID_DASHED_LEN + 1];

	dashed(vg->id, id);
	(void)printf("VG %s %s seqno %u (from %s mda%d)\n", vg->name, id, vg->seqno,
		     devs[dv->dev].path, dv->mda + 1);
	(void)printf("  extent size %" PRIu64 " bytes, status ", (uint64_t)vg->extent_size * 512U);
	text_bits(vg->status, 0, vg_status_str, ARRAY_SIZE(vg_status_str));
	(void)printf(", flags ");
	text_bits(vg->status, 16, vg_flag_str, ARRAY_SIZE(vg_flag_str));
	if (vg->system_id)
		(void)printf(", system ID %s", SHOWN(vg->system_id));
	if (vg->lock_type)
		(void)printf(", lock type %s", SHOWN(vg->lock_type));
	(void)printf("\n");
	for (unsigned d = 0; d < n_devs; d++)
		for (unsigned m = 0; m < devs[d].probe.n_mdas; m++) {
			const struct pf_vg *c = devs[d].probe.mdas[m].vg;

			if (c && !devs[d].probe.mdas[m].ignored && strcmp(c->id, vg->id) == 0 &&
			    c->seqno < vg->seqno)
				(void)printf("  ignoring older metadata seqno %u on %s mda%u\n",
					     c->seqno, devs[d].path, m + 1);
		}
	for (unsigned i = 0; i < vg->n_pvs; i++) {
		const struct pf_vg_pv *pv = &vg->pvs[i];

		dashed(pv->id, id);
		(void)printf("  %s %s %s pe_start %" PRIu64 " pe_count %u%s\n", SHOWN(pv->key), id,
			     pv->device ? SHOWN(pv->device) : "-", pv->pe_start * 512U,
			     pv->pe_count,
			     (pv->status & PF_PV_MISSING) ? " MISSING" : "");
	}
	for (unsigned i = 0; i < vg->n_lvs; i++) {
		const struct pf_vg_lv *lv = &vg->lvs[i];

		(void)printf("  LV %s %" PRIu64 " extents, status ", lv->name, lv->extent_count);
		text_bits(lv->status, 0, lv_status_str, ARRAY_SIZE(lv_status_str));
		(void)printf(", flags ");
		text_bits(lv->status, 16, lv_flag_str, ARRAY_SIZE(lv_flag_str));
		(void)printf("\n");
		for (unsigned s = 0; s < lv->n_segs; s++) {
			const struct pf_vg_seg *seg = &lv->segs[s];

			(void)printf("    %s: extents %u+%u %s", SHOWN(seg->key), seg->start_extent,
				     seg->extent_count, SHOWN(seg->type));
			if (seg->is_striped) {
				if (seg->stripe_count > 1)
					(void)printf(" stripes %u size %u", seg->stripe_count,
						     seg->stripe_size);
				for (unsigned a = 0; a < seg->n_areas; a++)
					(void)printf(" %s:%u", SHOWN(seg->areas[a].name),
						     seg->areas[a].start_extent);
			}
			(void)printf("\n");
		}
	}
}

/* Group the VG copies found by VG id and pick the one lvm2 would use for each. */
static unsigned collect_vgs(const struct dump_dev *devs, unsigned n_devs, struct dump_vg *out)
{
	unsigned n = 0;

	for (unsigned d = 0; d < n_devs; d++)
		for (unsigned m = 0; m < devs[d].probe.n_mdas; m++) {
			const struct pf_vg *c = devs[d].probe.mdas[m].vg;
			unsigned k;

			if (!c || devs[d].probe.mdas[m].ignored)
				continue;
			for (k = 0; k < n; k++)
				if (strcmp(out[k].vg->id, c->id) == 0)
					break;
			if (k == n) {
				out[n++] = (struct dump_vg){ .vg = c, .dev = d, .mda = (int)m };
				continue;
			}
			/* Same rule as pf_vg_newest: a strictly higher seqno replaces. */
			const struct pf_vg *pair[2] = { out[k].vg, c };

			if (pf_vg_newest(pair, 2) == 1)
				out[k] = (struct dump_vg){ .vg = c, .dev = d, .mda = (int)m };
		}
	return n;
}

/* The scan's read timeout: --timeout, else lvm.conf's pvscan_fast/scan_timeout. */
static unsigned read_timeout_ms(const struct pf_opts *o, const struct pf_paths *paths)
{
	struct pf_diag diag = { 0 };
	struct pf_settings st;
	unsigned sec;
	int r;

	if (o->timeout_s)
		return o->timeout_s * 1000U;
	r = pf_settings_load(paths->etc, o->config, o->n_config, &st, &diag);
	if (r < 0) {
		/* Not fatal, unlike for the scan: what is on the devices is worth seeing anyway. */
		if (diag.line)
			pf_warn("  WARNING: %s (line %u, column %u)", diag.msg, diag.line,
				diag.col);
		else
			pf_warn("  WARNING: Failed to load config: %s",
				diag.msg[0] ? diag.msg : strerror(-r));
		pf_warn("  WARNING: reading with a timeout of %u s.",
			PF_SETTINGS_SCAN_TIMEOUT_DEFAULT);
		return PF_SETTINGS_SCAN_TIMEOUT_DEFAULT * 1000U;
	}
	for (size_t i = 0; i < st.n_warnings; i++)
		pf_warn("  WARNING: %s", st.warnings[i].msg);
	sec = st.scan_timeout_sec;
	pf_settings_release(&st);
	return sec * 1000U;
}

/* Read every device as the scan does (lib/io/reader.h): one that never answers costs the timeout. */
static int read_devs(const struct pf_opts *o, struct dump_dev *devs, unsigned n)
{
	_cleanup_free_ struct pf_reader_dev *rd = NULL;
	struct pf_reader_opts ro = { .read_ignored = true };
	struct pf_paths paths = { 0 };
	int r;

	rd = calloc(n, sizeof(*rd));
	if (!rd || pf_paths_from_env(&paths) < 0)
		return -ENOMEM;
	for (unsigned i = 0; i < n; i++) {
		rd[i].path = devs[i].path;
		rd[i].probe = &devs[i].probe;
	}
	ro.timeout_ms = read_timeout_ms(o, &paths);
	ro.proc_dir = paths.proc;
	r = pf_reader_scan_paths(rd, n, &ro, NULL);
	pf_paths_release(&paths);
	if (r < 0)
		return r;
	for (unsigned i = 0; i < n; i++) {
		struct dump_dev *d = &devs[i];

		if (!rd[i].opened) {
			d->open_status = rd[i].status;
			pf_err("%s: cannot open: %s", d->path, strerror(-d->open_status));
		} else if (rd[i].status < 0) {
			/* What was read before is dropped: the device is out, as in the scan. */
			d->read_status = rd[i].status;
			d->read_diag = rd[i].diag;
			pf_probe_release(&d->probe);
			pf_probe_init(&d->probe, rd[i].probe->dev_size_bytes);
			pf_warn("  WARNING: %s: %s", d->path, d->read_diag.msg);
		}
	}
	return 0;
}

int pf_cmd_dump(const struct pf_opts *o)
{
	_cleanup_free_ struct dump_dev *devs = NULL;
	_cleanup_free_ struct dump_vg *vgs = NULL;
	unsigned n = (unsigned)o->n_devs, n_vgs;
	int status = PF_EXIT_OK, r;
	struct pf_json j;

	devs = calloc(n, sizeof(*devs));
	vgs = calloc(n * PF_PROBE_MDAS, sizeof(*vgs));
	if (!devs || !vgs) {
		pf_err("out of memory");
		return PF_EXIT_FAILED;
	}
	for (unsigned i = 0; i < n; i++)
		devs[i].path = o->devs[i].path;
	r = read_devs(o, devs, n);
	if (r < 0) {
		pf_err("  Scan failed: %s.", strerror(-r));
		for (unsigned i = 0; i < n; i++)
			pf_probe_release(&devs[i].probe);
		return PF_EXIT_FAILED;
	}
	n_vgs = collect_vgs(devs, n, vgs);

	if (o->json) {
		pf_json_init(&j, stdout);
		pf_json_obj_begin(&j, NULL);
		pf_json_arr_begin(&j, "devices");
		for (unsigned i = 0; i < n; i++)
			json_dev(&j, &devs[i]);
		pf_json_arr_end(&j);
		pf_json_arr_begin(&j, "vgs");
		for (unsigned i = 0; i < n_vgs; i++)
			json_vg(&j, &vgs[i], devs, n);
		pf_json_arr_end(&j);
		pf_json_obj_end(&j);
		pf_json_finish(&j);
	} else {
		for (unsigned i = 0; i < n; i++)
			text_dev(&devs[i]);
		for (unsigned i = 0; i < n_vgs; i++)
			text_vg(&vgs[i], devs, n);
	}

	for (unsigned i = 0; i < n; i++) {
		if (!dev_is_clean(&devs[i]))
			status = PF_EXIT_FAILED;
		pf_probe_release(&devs[i].probe);
	}
	if (fflush(stdout) != 0) {
		pf_err("writing output failed");
		status = PF_EXIT_FAILED;
	}
	return status;
}
