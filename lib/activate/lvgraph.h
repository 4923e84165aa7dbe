/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A VG's LVs as lvm2 2.03.16 sees them: what each LV is (snapshot, COW, mirror image, pool,
 * raid ...), which LVs and PVs its segments name, which LVs are top-level, which bring up
 * which sub-LVs, and which are partial. Built from imported metadata and what the caller knows
 * about devices; the autoactivation gates (aapolicy.h) decide on it. Pure: no I/O.
 */
#ifndef PF_LVGRAPH_H
#define PF_LVGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"

struct pf_vg;

/*
 * Caps: LVs in one graph (as the VG model's), LV-to-LV references in one VG, and steps spent
 * looking for active sub-LVs over the graph's life (only taken when a hidden LV is active;
 * hostile sharing of one big sub-tree by many LVs would otherwise cost LVs x references).
 */
#define PF_LVGRAPH_LVS_MAX  1048576U
#define PF_LVGRAPH_REFS_MAX (16U << 20)
#define PF_LVGRAPH_WALK_MAX (64U << 20)

/* What an LV is to lvm2, derived from the segments that name it (lvm2 keeps these as status). */
enum pf_lvgraph_role {
	PF_LVGRAPH_SNAPSHOT = 1U << 0,	  /* has a "snapshot" segment (snapshotN) */
	PF_LVGRAPH_ORIGIN = 1U << 1,	  /* named as origin by a snapshot segment */
	PF_LVGRAPH_COW = 1U << 2,	  /* named as cow_store / merging_store */
	PF_LVGRAPH_MERGING_COW = 1U << 3, /* ... as merging_store */
	PF_LVGRAPH_MIRROR_IMAGE = 1U << 4,
	PF_LVGRAPH_MIRROR_LOG = 1U << 5,
	PF_LVGRAPH_VDO_POOL = 1U << 6,
	PF_LVGRAPH_CACHE_POOL = 1U << 7,
	PF_LVGRAPH_RAID = 1U << 8,
	PF_LVGRAPH_THIN = 1U << 9,
	PF_LVGRAPH_THIN_POOL = 1U << 10,
	PF_LVGRAPH_COMPONENT = 1U << 11,   /* data/metadata/image/origin of a stack */
	PF_LVGRAPH_UNKNOWN_SEG = 1U << 12, /* a segment type lvm2 does not know */
	PF_LVGRAPH_RAID_IMAGE = 1U << 13,
};

struct pf_lvgraph_name;

/* Per-LV arrays have vg->n_lvs entries, per-PV arrays vg->n_pvs; read them, do not write. */
struct pf_lvgraph {
	const struct pf_vg *vg;
	unsigned n;	 /* vg->n_lvs */
	uint32_t *role;	 /* per LV: PF_LVGRAPH_* */
	int *cow_origin; /* per LV: for a COW its origin; else -1 */
	/*
	 * Per LV: for a sub-LV, an LV that brings it up (a COW comes up with its origin, a sparse
	 * snapshot's virtual origin with its COW, snapshotN with its origin); -1 for top-level LVs
	 * except the COW of a visible origin, which -aay skips.
	 */
	int *holder;
	bool *visible;	   /* per LV: lvm2's lv_is_visible() (top-level: what -aay considers) */
	bool *active;	   /* per LV: as given, or all false */
	bool *pool_in_use; /* per LV: a thin pool that an active thin LV uses */
	bool *partial;	   /* per LV: maps onto a missing PV, directly or through LVs it uses */
	bool *pv_used;	   /* per PV: some segment has an area on it (lvm2's pe_alloc_count) */
	bool any_hidden_active;
	/* LV references, CSR: LV l names refs[ref_start[l] .. ref_start[l + 1]) */
	size_t *ref_start;
	unsigned *refs;
	bool *ref_sub; /* the reference is followed by lvm2's for_each_sub_lv() */
	size_t n_refs;
	/* the rest is the graph's own */
	struct pf_lvgraph_name *lv_names, *pv_names; /* sorted by name, for lookups */
	bool *pv_missing;  /* per PV: device absent or MISSING flag */
	bool *own_missing; /* per LV: its own areas are on a missing PV */
	unsigned *stamp;   /* per LV: the last component walk that visited it */
	unsigned *stack;
	unsigned walk;	   /* component walks so far */
	size_t walk_steps;
};

/*
 * Build the graph of vg, complete metadata as imported by pf_vg_import(). pv_present[i] for
 * vg->pvs[i]: its device was found (NULL: all were); a PV counts as missing for partial LVs
 * when absent or flagged MISSING. lv_active[i] for vg->lvs[i]: device-mapper has it (NULL:
 * none is). Returns 0 with *ret filled (release it with pf_lvgraph_release()), -E2BIG over a
 * cap, -ENOMEM; on failure *ret holds nothing.
 */
int pf_lvgraph_build(const struct pf_vg *vg, const bool *pv_present, const bool *lv_active,
		     struct pf_lvgraph *ret) _nonnull_(1, 4) _must_check_;
void pf_lvgraph_release(struct pf_lvgraph *g);

/* lvm2's lv_is_cow(): a COW store that is not also an origin or a thin LV. */
bool pf_lvgraph_is_cow(const struct pf_lvgraph *g, unsigned l) _nonnull_(1) _pure_;

/* An origin without VISIBLE: a sparse snapshot's virtual origin. */
bool pf_lvgraph_is_virtual_origin(const struct pf_lvgraph *g, int o) _nonnull_(1) _pure_;

/*
 * lvm2's lv_component_is_active() for LV t, which is not active: the first hidden component
 * below it that is active on its own. Active non-components, locked/pvmove LVs and pools in
 * use end the descent, as in lvm2. Returns 0 with *ret the LV or -1, -E2BIG once the graph
 * has spent PF_LVGRAPH_WALK_MAX steps on such walks.
 */
int pf_lvgraph_active_component(struct pf_lvgraph *g, unsigned t, int *ret) _nonnull_(1, 3)
	_must_check_;

/* The raid or integrity LV l would have its integrity recalculated (a metadata write). */
bool pf_lvgraph_integrity_recalc(const struct pf_lvgraph *g, unsigned l) _nonnull_(1) _pure_;

/* lvm2's lv_raid_has_visible_sublvs(): a writable image or any metadata LV left visible. */
bool pf_lvgraph_raid_visible_sublvs(const struct pf_lvgraph *g, unsigned l) _nonnull_(1) _pure_;

#endif /* PF_LVGRAPH_H */
