/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The VG model: what one copy of VG metadata text says — the VG, its PVs, its
 * LVs and their segments — decoded from a parsed config tree with the checks
 * lvm2's importer makes. Striped/linear segments are decoded fully; every other
 * segment type keeps its raw settings for activation to judge later.
 */
#ifndef PF_VG_H
#define PF_VG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/macro.h"
#include "format/cfg.h"
#include "format/label.h"

/* Status and flag strings lvm2 knows, per object kind (bit per string). */
enum {
	PF_VG_EXPORTED = 1U << 0,
	PF_VG_RESIZEABLE = 1U << 1,
	PF_VG_PVMOVE = 1U << 2,
	PF_VG_READ = 1U << 3,
	PF_VG_WRITE = 1U << 4,
	PF_VG_CLUSTERED = 1U << 5,
	PF_VG_SHARED = 1U << 6,
	PF_VG_PARTIAL = 1U << 7, /* accepted in old backups, never live */
	/* flags = [...] */
	PF_VG_WRITE_LOCKED = 1U << 16,
	PF_VG_NOAUTOACTIVATE = 1U << 17,
};

enum {
	PF_PV_ALLOCATABLE = 1U << 0,
	PF_PV_EXPORTED = 1U << 1,
	PF_PV_MISSING = 1U << 2, /* in status (old) or flags */
};

enum {
	PF_LV_READ = 1U << 0,
	PF_LV_WRITE = 1U << 1,
	PF_LV_FIXED_MINOR = 1U << 2,
	PF_LV_VISIBLE = 1U << 3,
	PF_LV_PVMOVE = 1U << 4,
	PF_LV_LOCKED = 1U << 5,
	PF_LV_NOTSYNCED = 1U << 6,
	PF_LV_REBUILD = 1U << 7,
	PF_LV_WRITEMOSTLY = 1U << 8,
	/* flags = [...] */
	PF_LV_WRITE_LOCKED = 1U << 16,
	PF_LV_ACTIVATION_SKIP = 1U << 17,
	PF_LV_NOAUTOACTIVATE = 1U << 18,
	PF_LV_ERROR_WHEN_FULL = 1U << 19,
	PF_LV_CACHE_VOL = 1U << 20,
};

/* Caps on counts taken from metadata; far above anything lvm2 writes. */
#define PF_VG_PVS_MAX 65536U
#define PF_VG_LVS_MAX 1048576U
#define PF_LV_SEGS_MAX 1048576U
#define PF_SEG_AREAS_MAX 65536U

/* One area of a segment: extents of a PV ("pvN", pe) or of another LV ("lv", le). */
struct pf_vg_area {
	const char *name;   /* "pv0" or an LV name, as in the text */
	int pv_index;	    /* index into vg->pvs, or -1 for an LV area */
	uint32_t start_extent;
};

struct pf_vg_seg {
	const char *key;	  /* "segment1" */
	uint32_t start_extent;	  /* first logical extent */
	uint32_t extent_count;
	const char *type;	  /* the full type string, "+FLAG" suffixes included */
	bool is_striped;	  /* "striped" without flags: decoded below */
	uint32_t stripe_count;	  /* striped only; 1 for linear */
	uint32_t stripe_size;	  /* sectors; 0 for linear */
	unsigned n_areas;	  /* striped: stripe_count */
	struct pf_vg_area *areas; /* striped: one per stripe */
	const struct pf_cfg_node *raw; /* the segment section: every setting, for other types */
};

struct pf_vg_lv {
	const char *name;
	char id[PF_ID_LEN + 1];
	uint32_t status; /* PF_LV_*: status and flags, WRITE_LOCKED also sets WRITE */
	const struct pf_cfg_value *tags; /* NULL when absent */
	bool has_read_ahead;
	int32_t read_ahead; /* sectors; -1 none; meaningful only with has_read_ahead */
	int32_t major, minor; /* -1 when not set */
	uint64_t extent_count; /* sum over segments */
	unsigned n_segs;
	struct pf_vg_seg *segs; /* sorted by start_extent, contiguous from 0 */
	const struct pf_cfg_node *raw;
};

struct pf_vg_pv {
	const char *key; /* "pv0" */
	char id[PF_ID_LEN + 1];
	const char *device; /* hint; NULL when absent */
	const char *device_id_type, *device_id;
	uint32_t status; /* PF_PV_* */
	const struct pf_cfg_value *tags;
	bool has_dev_size;
	uint64_t dev_size;   /* sectors */
	uint64_t pe_start;   /* sectors */
	uint32_t pe_count;
	uint64_t ba_start, ba_size; /* sectors; 0/0 when absent */
};

struct pf_vg {
	const char *name;
	char id[PF_ID_LEN + 1];
	uint32_t seqno;
	uint32_t status; /* PF_VG_*: status and flags, WRITE_LOCKED also sets WRITE */
	const struct pf_cfg_value *tags;
	uint32_t extent_size; /* sectors */
	uint32_t max_lv, max_pv;
	int64_t metadata_copies; /* 0 when absent */
	const char *system_id;	 /* NULL when absent */
	const char *lock_type;	 /* NULL when absent */
	const char *lock_args;
	const char *creation_host; /* top-level header, may be NULL */
	int64_t creation_time;
	unsigned n_pvs;
	struct pf_vg_pv *pvs;
	unsigned n_lvs;
	struct pf_vg_lv *lvs;
	struct pf_cfg_tree *tree; /* owns every string above */
};

/*
 * Decode metadata text (as read from an mda: the trailing NUL may be included)
 * into a VG. Returns 0 with *ret; -EBADMSG with reterr naming the section,
 * key and text position for anything lvm2's importer would refuse; -E2BIG
 * over a cap; -ENOMEM.
 */
int pf_vg_import(const char *text, size_t len, struct pf_vg **ret, struct pf_diag *reterr)
	_nonnull_(3) _must_check_;
struct pf_vg *pf_vg_free(struct pf_vg *vg);

/* Heap bytes the VG holds (its arrays and its parsed text), for memory budgets. */
size_t pf_vg_bytes(const struct pf_vg *vg) _nonnull_(1) _pure_;

/* Index of the PV with this raw PVID, or -1. */
int pf_vg_find_pv(const struct pf_vg *vg, const char *pvid) _nonnull_(1, 2);
/* Index of the PV with this key in the metadata ("pv0"), or -1. */
int pf_vg_find_pv_key(const struct pf_vg *vg, const char *key) _nonnull_(1, 2);
/* The LV of that name, or NULL. */
const struct pf_vg_lv *pf_vg_find_lv(const struct pf_vg *vg, const char *name) _nonnull_(1, 2);

/*
 * Mark in used[0..vg->n_pvs) every PV the LV maps onto, directly or through
 * other LVs (stripes naming LVs, and for other segment types any setting that
 * names an LV or PV of this VG: thin pools, raid images, mirror legs, origins).
 * Nesting is followed to a fixed depth, so hostile metadata cannot loop.
 */
void pf_vg_lv_mark_pvs(const struct pf_vg *vg, const struct pf_vg_lv *lv, bool *used)
	_nonnull_(1, 2, 3);

/* lvm2's SEGTYPE suffix flags ("raid5+RESHAPE"): true if the type string carries any. */
bool pf_vg_seg_has_type_flags(const struct pf_vg_seg *seg) _nonnull_(1);

/*
 * Of n copies of one VG's metadata (same VG id), the index of the one lvm2
 * uses: the highest seqno, the first of equals. copies[i] may be NULL (no
 * usable copy); returns -1 when all are.
 */
int pf_vg_newest(const struct pf_vg *const *copies, size_t n);

#endif /* PF_VG_H */
