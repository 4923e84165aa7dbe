/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which block devices lvm2 2.03.16 looks at: its built-in list of device
 * types (block majors by /proc/devices name) plus devices/types, and the
 * filters it applies before reading a device ("nodata": type, usable, size,
 * multipath and md components) and on its first bytes (partition table,
 * old signatures, md superblock at the start: format/mdsb.h), and which md
 * arrays keep their superblocks at the end. Each rejection carries the
 * reason text lvm2 prints ("pvscan[PID] <dev> excluded: <reason>.").
 */
#ifndef PF_DEVTYPES_H
#define PF_DEVTYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"
#include "format/mdsb.h"

struct pf_dev;
struct pf_headsig;
struct pf_paths;

#define PF_DEVTYPES_EXTRA_MAX	     64	       /* devices/types entries */
#define PF_DEVTYPES_TYPE_NAME_MAX    127       /* bytes in a devices/types name */
/* lvm2 refuses a smaller devices/pv_min_size and uses this instead (it warns). */
#define PF_DEVTYPES_PV_MIN_SIZE_FLOOR_BYTES   (512u * 1024)
#define PF_DEVTYPES_PV_MIN_SIZE_DEFAULT_BYTES (2048u * 1024)

struct pf_devfilter_cfg {
	bool scan_lvs;			    /* devices/scan_lvs (default 0) */
	bool multipath_component_detection; /* default 1 */
	bool md_component_detection;	    /* default 1 */
	bool ignore_suspended_devices;	    /* default 0: lvm2 scans suspended dm devices */
	uint64_t pv_min_size_bytes;	    /* devices/pv_min_size in bytes; see FLOOR/DEFAULT */
	const char *const *extra_types;	    /* devices/types names ... */
	const int *extra_type_parts;	    /* ... and their partition counts (not 0) */
	size_t n_extra_types;
	const char *multipath_wwids_file;   /* path; NULL or "" (lvm2: disabled) for none */
	/*
	 * multipath's own config, whose blacklist wwids lvm2 drops from the
	 * wwids file's set; lvm2 reads the fixed paths /etc/multipath.conf and
	 * /etc/multipath/conf.d. NULL: not read.
	 */
	const char *multipath_conf_file;
	const char *multipath_conf_dir;
};

/* Why lvm2 would not scan a device; 0 means it would. */
enum pf_devfilter_verdict {
	PF_DEVFILTER_PASS = 0,
	PF_DEVFILTER_TYPE_UNKNOWN,
	PF_DEVFILTER_TOO_SMALL,
	PF_DEVFILTER_UNUSABLE,
	PF_DEVFILTER_IS_LV,
	PF_DEVFILTER_MPATH_COMPONENT,
	PF_DEVFILTER_MD_COMPONENT,
	PF_DEVFILTER_PARTITIONED,
	PF_DEVFILTER_SIGNATURE,
	_PF_DEVFILTER_MAX,
};

struct pf_devfilter;

/*
 * Copy cfg and load the multipath wwid set (multipath.h; a missing or
 * unreadable file is an empty set, as in lvm2). Returns 0, -EINVAL (a devices/types entry with
 * no name or 0 partitions), -E2BIG (over a cap) or -ENOMEM.
 */
int pf_devtypes_filter_new(const struct pf_devfilter_cfg *cfg, struct pf_devfilter **ret)
	_nonnull_(1, 2) _must_check_;
struct pf_devfilter *pf_devtypes_filter_free(struct pf_devfilter *f);

/*
 * lvm2's partition granularity for a /proc/devices block name: the first
 * built-in type whose name is a prefix of it, then overridden by the first
 * devices/types entry that is. 0: an unknown type, which lvm2 never scans.
 */
int pf_devtypes_max_partitions(const struct pf_devfilter *f, const char *type_name)
	_nonnull_(1) _pure_;

/*
 * The checks lvm2 makes before reading a device, in its filter order:
 * type, usable (dm devices: empty, suspended, reserved/internal, LV), size,
 * multipath component; then md membership seen in sysfs (a holder that is
 * an md array), which lvm2 itself only finds from the superblock. Reads
 * sysfs under paths->sys for holders, dm/suspended and device/wwid.
 * Returns 0 (lvm2 would go on to read it), a verdict > 0 with *ret_reason
 * set, or -ENOMEM.
 */
int pf_devtypes_check_nodata(const struct pf_devfilter *f, const struct pf_paths *paths,
			     const struct pf_dev *d, const char **ret_reason)
	_nonnull_(1, 2, 3, 4) _must_check_;

/*
 * The checks lvm2 makes on a device's first bytes once it passed the nodata ones and has an
 * LVM label: partitioned (msdos table on a partitionable whole device), signature (lvm1, GFS
 * pool), md component (superblock magic at 0 or 4096), from what pf_headsig_read() found
 * there. Returns 0, or a verdict > 0 with *ret_reason set. Pure: d carries what sysfs said
 * (loop/partscan).
 */
int pf_devtypes_check_data(const struct pf_devfilter *f, const struct pf_dev *d,
			   const struct pf_headsig *sig, const char **ret_reason)
	_nonnull_(1, 2, 3, 4);

/* lvm2's text for a verdict ("device type is unknown"); NULL for PASS or out of range. */
const char *pf_devtypes_reason(enum pf_devfilter_verdict v) _pure_;

/*
 * An md array whose members carry their superblock at the end: metadata
 * 0.90 or 1.0 in md/metadata_version (for a partition of an array, the
 * array's). lvm2's md_component_checks=auto checks the end of every device
 * when the devices it knows include one. Returns 1, 0, or -ENOMEM.
 */
int pf_devtypes_md_end_array(const struct pf_paths *paths, const struct pf_dev *d)
	_nonnull_(1, 2) _must_check_;

#endif /* PF_DEVTYPES_H */
