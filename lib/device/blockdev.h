/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One block device as the scan sees it: the facts sysfs and /dev give about
 * it (filled by sysfs.c and devnames.c), shared by the filters, the devices
 * file and the scan. Plain data; no I/O here.
 */
#ifndef PF_BLOCKDEV_H
#define PF_BLOCKDEV_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"

struct pf_dev {
	unsigned major, minor;
	char *kname;	     /* kernel name: "sdb", "sdb1", "loop5", "dm-3", "md0" */
	char *path;	     /* the name lvm2 uses for it: "/dev/sdb", "/dev/mapper/<dm name>" */
	char **aliases;	     /* other /dev names (symlinks), filled on demand; may be NULL */
	size_t n_aliases;
	uint64_t size_bytes; /* from sysfs "size" (512-byte units) */
	bool is_partition;
	char *parent_kname;  /* whole disk of a partition, else NULL */
	char *type_name;     /* block major's name in /proc/devices: "sd", "loop", "device-mapper" */
	char *dm_uuid;	     /* dm/uuid, dm devices only */
	char *dm_name;	     /* dm/name, dm devices only */
	char *loop_backing_file; /* loop/backing_file, loop devices only (NULL: not set up) */
	bool loop_partscan;	     /* loop/partscan set (read only for a bound loop device) */
	char *md_uuid;	     /* md/uuid, md arrays only */
	char *wwid;	     /* device/wwid or wwid, when the device has one */
	char *serial;	     /* device/serial, when the device has one */
	char **holders;	     /* kernel names in holders/ (dm-N of a multipath map, mdN, ...) */
	size_t n_holders;
};

struct pf_dev_list {
	struct pf_dev *devs;
	size_t n;
};

void pf_dev_release(struct pf_dev *d);
void pf_dev_list_release(struct pf_dev_list *l);

/* qsort() comparator for struct pf_dev: by major, then minor. */
int pf_dev_cmp_devno(const void *a, const void *b) _nonnull_(1, 2) _pure_;

/* The block major's name in /proc/devices is name ("sd", "loop", "device-mapper"). */
bool pf_dev_is_type(const struct pf_dev *d, const char *name) _nonnull_(1, 2) _pure_;

/*
 * An NVMe namespace or one of its partitions: lvm2 tells by the /dev/nvme*
 * name; the kernel name says the same.
 */
bool pf_dev_is_nvme(const struct pf_dev *d) _nonnull_(1) _pure_;

#endif /* PF_BLOCKDEV_H */
