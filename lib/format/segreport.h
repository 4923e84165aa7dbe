/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvm2's segment report fields (`lvs --segments`, lvm2 2.03.16), and an LV's lv_attr,
 * computed from one VG's metadata alone, for every segment type lvm2 writes: the values lvm2 derives from the
 * segment, the LVs it names and the LVs that name it. Fields lvm2 takes from the kernel
 * (seg_monitor, data_offset, new_data_offset) are not here.
 */
#ifndef PF_SEGREPORT_H
#define PF_SEGREPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"
#include "base/strv.h"
#include "format/names.h"
#include "format/vg.h"

/* A numeric field lvm2 leaves blank for this segment. */
#define PF_SEGREP_UNDEF (-1)

/* One area as lvm2's devices/seg_pe_ranges/seg_le_ranges show it. */
struct pf_segrep_area {
	const char *name;  /* an LV name, or the PV key ("pv0") when pv_index >= 0 */
	int pv_index;	   /* index into vg->pvs, or -1 for an LV (or an unknown name) */
	bool lv_hidden;	   /* an LV without VISIBLE: lvm2 brackets it in the LE ranges */
	uint32_t start;	   /* first PE on a PV; lvm2 shows 0 for an LV */
	uint32_t extents;  /* the area's length on a PV, the whole LV's length for an LV */
};

struct pf_segrep_vdo {
	int compression, deduplication, metadata_hints, sparse_index; /* 0/1 */
	uint64_t minimum_io_size, block_map_cache_size, index_memory_size, slab_size,
		header_size; /* bytes */
	uint32_t block_map_era_length, ack_threads, bio_threads, bio_rotation, cpu_threads,
		hash_zone_threads, logical_threads, physical_threads, max_discard;
	const char *write_policy;
};

struct pf_seg_report {
	const char *segtype; /* lvm2's name: "linear" for one stripe, no "+FLAG" suffix */
	size_t segtype_len;
	uint64_t seg_start, seg_size; /* bytes */
	uint32_t seg_start_pe, seg_size_pe;
	uint32_t stripes;	       /* lvm2's area count */
	int64_t data_stripes;	       /* the rest may be PF_SEGREP_UNDEF */
	int64_t reshape_len, reshape_len_le; /* bytes, extents */
	int64_t data_copies, parity_chunks;
	uint64_t stripe_size, region_size, chunk_size; /* bytes */
	int64_t thin_count, cache_metadata_format, transaction_id, thin_id;
	const char *discards, *cache_mode, *cache_policy; /* "" when lvm2 shows none */
	int zero;		 /* 0/1, PF_SEGREP_UNDEF: lvm2's "unknown" */
	const struct pf_cfg_value *seg_tags; /* NULL when none */
	struct pf_strv cache_settings;	     /* "key=value", in lvm2's order */
	bool has_vdo;
	struct pf_segrep_vdo vdo;
	unsigned n_areas, n_meta_areas;
	struct pf_segrep_area *areas, *meta_areas; /* devices, metadata_devices */
};

/*
 * The report fields of segment seg of LV lv of vg, as lvm2 shows them with `--units b`.
 * Returns 0 with *ret filled (release it with pf_seg_report_release), -ENOMEM.
 */
int pf_seg_report(const struct pf_vg *vg, const struct pf_vg_lv *lv, const struct pf_vg_seg *seg,
		  struct pf_seg_report *ret) _nonnull_(1, 2, 3, 4) _must_check_;
void pf_seg_report_release(struct pf_seg_report *r);

#define PF_LV_ATTR_LEN 10U

/*
 * lvm2's lv_attr of an LV. What only the kernel knows is shown as lvm2 shows it without
 * device-mapper: state and open count 'X', a raid LV's health 'X', images not in sync ('I').
 * pv_missing[i] (may be NULL) marks vg->pvs[i] as not found; an LV on one is partial ('p').
 * Returns 0, -ENOMEM.
 */
int pf_lv_attr(const struct pf_vg *vg, const struct pf_vg_lv *lv, const bool *pv_missing,
	       char ret[PF_LV_ATTR_LEN + 1]) _nonnull_(1, 2, 4) _must_check_;

#endif /* PF_SEGREPORT_H */
