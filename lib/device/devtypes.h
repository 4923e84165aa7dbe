/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which block devices lvm2 2.03.16 looks at: its built-in list of device
 * types (block majors by /proc/devices name) plus devices/types, and the
 * filters it applies before reading a device ("nodata": type, usable, size,
 * multipath and md components) and on its first bytes (partition table,
 * old signatures, md superblock at the start), and where it finds md
 * superblocks at the end of a device. Each rejection carries the
 * reason text lvm2 prints ("pvscan[PID] <dev> excluded: <reason>.").
 */
#ifndef PF_DEVTYPES_H
#define PF_DEVTYPES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"

struct pf_dev;
struct pf_paths;

#define PF_DEVTYPES_EXTRA_MAX	     64	       /* devices/types entries */
#define PF_DEVTYPES_TYPE_NAME_MAX    127       /* bytes in a devices/types name */
#define PF_DEVTYPES_WWIDS_MAX	     262144    /* wwids kept from the multipath files */
#define PF_DEVTYPES_MPATH_FILE_MAX   (4u << 20) /* wwids file, multipath.conf, one conf.d file */
#define PF_DEVTYPES_MPATH_CONFD_MAX  1024      /* files read from the multipath conf.d dir */
/* lvm2 refuses a smaller devices/pv_min_size and uses this instead (it warns). */
#define PF_DEVTYPES_PV_MIN_SIZE_FLOOR_BYTES   (512u * 1024)
#define PF_DEVTYPES_PV_MIN_SIZE_DEFAULT_BYTES (2048u * 1024)
/* Bytes from the start of the device pf_devtypes_check_data() needs: md 1.2 magic at 4096. */
#define PF_DEVTYPES_HEAD_BYTES 4100

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
 * Copy cfg and load the multipath wwid set (a missing or unreadable file is
 * an empty set, as in lvm2). Returns 0, -EINVAL (a devices/types entry with
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
 * The checks lvm2 makes on a device's first bytes once it passed the nodata
 * ones and has an LVM label: partitioned (msdos table on a partitionable
 * whole device), signature (lvm1, GFS pool), md component (superblock magic
 * at 0 or 4096). head holds the device's first head_len bytes. Returns 0, a
 * verdict > 0 with *ret_reason set, -EINVAL (head_len <
 * PF_DEVTYPES_HEAD_BYTES). Pure: d carries what sysfs said (loop/partscan).
 */
int pf_devtypes_check_data(const struct pf_devfilter *f, const struct pf_dev *d,
			   const uint8_t *head, size_t head_len, const char **ret_reason)
	_nonnull_(1, 2, 3, 5) _must_check_;

/* lvm2's text for a verdict ("device type is unknown"); NULL for PASS or out of range. */
const char *pf_devtypes_reason(enum pf_devfilter_verdict v) _pure_;

/*
 * md superblocks that sit at the end of a member device, which lvm2 looks for
 * only in its "full" md check (lib/device/dev-md.c): 0.90 (64 KiB below the
 * end rounded down to 64 KiB), 1.0 (8 KiB below the end rounded down to 4
 * KiB), Intel IMSM (its signature 1 KiB below the end, 8 KiB on devices with
 * 4 KiB logical blocks) and SNIA DDF (a header in the last sector, else 257
 * sectors from the end, with a good CRC). lvm2 tries them in this order.
 */
enum pf_md_end_kind {
	PF_MD_END_NONE = 0,
	PF_MD_END_0_90,
	PF_MD_END_1_0,
	PF_MD_END_IMSM,
	PF_MD_END_DDF,
	_PF_MD_END_MAX,
};

/* Most bytes pf_devtypes_md_end_range() asks for: the last 257 sectors. */
#define PF_DEVTYPES_MD_END_BYTES (257u * 512)

/*
 * The bytes [*ret_off, *ret_off + *ret_len) of a device of dev_size_bytes
 * that pf_devtypes_md_end_find() needs, for a device with logical blocks of
 * lbs bytes (0: unknown). They end at the device's last whole sector.
 * Returns 0, or -ERANGE for a device lvm2 does not look at (under 128 KiB).
 */
int pf_devtypes_md_end_range(uint64_t dev_size_bytes, unsigned lbs, uint64_t *ret_off,
			     uint64_t *ret_len) _nonnull_(3, 4) _must_check_;

/*
 * Which end-of-device md superblock lvm2 would find, from the device's bytes
 * [buf_off, buf_off + len), which must hold the range above. Returns an enum
 * pf_md_end_kind (> 0, with *ret_sb_off set to where it is), PF_MD_END_NONE,
 * or -EINVAL when buf does not hold the range (or lvm2 would not look).
 */
int pf_devtypes_md_end_find(const uint8_t *buf, size_t len, uint64_t buf_off,
			    uint64_t dev_size_bytes, unsigned lbs, uint64_t *ret_sb_off)
	_nonnull_(6) _must_check_;

/* The md metadata version name of a kind ("0.90", "imsm"); NULL for NONE or out of range. */
const char *pf_devtypes_md_end_name(enum pf_md_end_kind k) _pure_;

/*
 * An md array whose members carry their superblock at the end: metadata
 * 0.90 or 1.0 in md/metadata_version (for a partition of an array, the
 * array's). lvm2's md_component_checks=auto checks the end of every device
 * when the devices it knows include one. Returns 1, 0, or -ENOMEM.
 */
int pf_devtypes_md_end_array(const struct pf_paths *paths, const struct pf_dev *d)
	_nonnull_(1, 2) _must_check_;

#endif /* PF_DEVTYPES_H */
