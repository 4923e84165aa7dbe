/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device-mapper device lvm2 2.03.16 creates for one linear, striped, error
 * or zero LV: its dm name and UUID, its table (after lvm2's merge of adjacent
 * segments), the read-only flag and the read-ahead request. Pure: VG model and
 * device numbers in, table out; no I/O and no libdevmapper.
 */
#ifndef PF_DMTABLE_H
#define PF_DMTABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/macro.h"
#include "format/vg.h"

#define PF_DM_NAME_LEN 128U /* kernel DM_NAME_LEN, NUL included */
#define PF_DM_UUID_LEN 129U /* kernel DM_UUID_LEN, NUL included */
#define PF_DM_TYPE_LEN 16U  /* kernel DM_MAX_TYPE_NAME */

/* Caps: far above any table lvm2 builds for a real LV. */
#define PF_DMTABLE_TARGETS_MAX 65536U		 /* lines in one table */
#define PF_DMTABLE_PARAMS_MAX (4U * 1024 * 1024) /* parameter bytes over the whole table */

/* The block device the scan found for one PV of the VG. */
struct pf_dm_pvdev {
	bool present;
	uint32_t major, minor;
};

/* pvs[i] is the device of vg->pvs[i]; PVs at or past n count as not present. */
struct pf_dm_pvmap {
	unsigned n;
	const struct pf_dm_pvdev *pvs;
};

/* activation/readahead. */
enum pf_dm_ra_config {
	PF_DM_RA_CONFIG_AUTO, /* "auto", the default */
	PF_DM_RA_CONFIG_NONE, /* "none" */
};

/* The lvm.conf settings that change the device; all-zero (or NULL) means lvm2's defaults. */
struct pf_dmtable_opts {
	enum pf_dm_ra_config readahead;
	bool striped_for_linear; /* activation/use_linear_target = 0 */
	uint32_t page_sectors;	 /* page size in sectors for that case; 0 means 8 (4 KiB) */
	bool read_only;		 /* the LV matched activation/read_only_volume_list */
};

enum pf_dm_ra_kind {
	PF_DM_RA_LEAVE,	     /* keep whatever the kernel chose */
	PF_DM_RA_SET,	     /* set exactly sectors (0 for "none"), even if lower */
	PF_DM_RA_MINIMUM,    /* raise the kernel's value to sectors if it is lower */
	PF_DM_RA_MINIMUM_PV, /* raise it to the read-ahead (BLKRAGET) of vg->pvs[pv_index] */
};

/* What libdevmapper is asked to do to the read-ahead after the resume. */
struct pf_dm_read_ahead {
	enum pf_dm_ra_kind kind;
	uint32_t sectors; /* SET, MINIMUM */
	int pv_index;	  /* MINIMUM_PV; -1 otherwise */
};

/* One table line: "start len type params". */
struct pf_dm_target {
	uint64_t start_sectors, len_sectors;
	char type[PF_DM_TYPE_LEN]; /* "linear", "striped", "error", "zero" */
	char *params;		   /* "" for error and zero */
};

struct pf_dm_table {
	char name[PF_DM_NAME_LEN];
	char uuid[PF_DM_UUID_LEN];
	bool read_only; /* load (and create) with DM_READONLY_FLAG */
	struct pf_dm_read_ahead read_ahead;
	size_t n_targets;
	struct pf_dm_target *targets;
};

/*
 * The dm name lvm2 gives VG/LV: each '-' in either doubled, joined by '-';
 * layer (NULL for none) is appended after a '-' unless it starts with '_'.
 * Returns -ENAMETOOLONG when the result does not fit size bytes (the kernel
 * takes at most PF_DM_NAME_LEN with the NUL).
 */
int pf_dmtable_name(const char *vg_name, const char *lv_name, const char *layer, char *ret,
		    size_t size) _nonnull_(1, 2, 4) _must_check_;

/* "LVM-" + VG id + LV id (raw, 32 characters each) [+ "-" + layer]; -ENAMETOOLONG as above. */
int pf_dmtable_uuid(const char *vg_id, const char *lv_id, const char *layer, char *ret,
		    size_t size) _nonnull_(1, 2, 4) _must_check_;

/*
 * Whether lvm2 would activate this LV as exactly one dm device with only
 * linear/striped/error/zero targets on PVs of the VG, so that pf_dmtable_build
 * can reproduce it: visible, no status or flag beyond READ, WRITE, VISIBLE,
 * WRITE_LOCKED, ACTIVATION_SKIP, NOAUTOACTIVATE; every segment "striped",
 * "error" or "zero" without +FLAGS; stripes on PVs not flagged MISSING, each
 * striped segment a whole number of stripe_size chunks per stripe; not used
 * by any other LV (snapshot origin or COW, pool, cache, mirror or raid
 * component, stripe of another LV). False with the reason in why otherwise.
 * The -aay gates (skip flags, volume lists, VG state) are the caller's.
 */
bool pf_dmtable_lv_native(const struct pf_vg *vg, const struct pf_vg_lv *lv, struct pf_diag *why)
	_nonnull_(1, 2);

/*
 * Build the device lvm2 creates for lv. o may be NULL for lvm2's defaults.
 * Returns 0 with *ret (free with pf_dmtable_release); -EOPNOTSUPP when
 * !pf_dmtable_lv_native; -ENODEV when a PV of the LV has no device in map
 * (lvm2 refuses a partial LV); -EBADMSG for metadata lvm2 refuses (an area
 * past the PV's last extent, an empty striped segment) or an empty error/zero
 * segment left on its own (a zero-length target); -EOVERFLOW when sizes or
 * offsets do not fit 64 bits (or the LV's extents 32, or read-ahead 32, as in
 * lvm2); -ENAMETOOLONG for a dm name over the kernel's limit; -E2BIG over a
 * cap; -ENOMEM. reterr says why.
 */
int pf_dmtable_build(const struct pf_vg *vg, const struct pf_vg_lv *lv,
		     const struct pf_dm_pvmap *map, const struct pf_dmtable_opts *o,
		     struct pf_dm_table *ret, struct pf_diag *reterr)
	_nonnull_(1, 2, 3, 5) _must_check_;

/* Free what pf_dmtable_build allocated and zero the table; NULL is allowed. */
void pf_dmtable_release(struct pf_dm_table *table);

/*
 * The table as `dmsetup table NAME` prints it: one "start len type params"
 * line per target, each ending in '\n'. dmsetup prints a space after the
 * type even when params are empty ("0 8192 error \n"). Returns 0 with *ret
 * (malloc'd, NUL-terminated); -E2BIG over PF_DMTABLE_PARAMS_MAX plus the line
 * overhead; -ENOMEM.
 */
int pf_dmtable_format(const struct pf_dm_table *table, char **ret) _nonnull_(1, 2) _must_check_;

/*
 * libdevmapper's step after the resume: given the device's read-ahead then
 * (current) and, for PF_DM_RA_MINIMUM_PV, the PV device's (pv_sectors; 0 if
 * it could not be read, as lvm2 does), true with *ret when read-ahead must be
 * written (sysfs bdi/read_ahead_kb = (*ret + 1) / 2), false to leave it.
 */
bool pf_dmtable_read_ahead_value(const struct pf_dm_read_ahead *ra, uint32_t current,
				 uint32_t pv_sectors, uint32_t *ret) _nonnull_(1, 4);

#endif /* PF_DMTABLE_H */
