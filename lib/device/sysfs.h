/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Block device discovery from sysfs (paths->sys), /proc/devices and
 * /proc/partitions (paths->proc): fills struct pf_dev (blockdev.h) the way
 * lvm2 2.03.16's dev-cache sees devices, each under the name lvm2 derives
 * for it (its other /dev names: devnames.h). No device is opened here.
 */
#ifndef PF_SYSFS_H
#define PF_SYSFS_H

#include "base/macro.h"
#include "device/blockdev.h"

struct pf_paths;

/* Caps on what sysfs and /proc can make us allocate. */
#define PF_SYSFS_DEVICES_MAX   65536	  /* block devices in one enumeration */
#define PF_SYSFS_HOLDERS_MAX   4096	  /* entries in one holders/ directory */
#define PF_SYSFS_PROC_FILE_MAX (4u << 20) /* /proc/devices, /proc/partitions */

/*
 * Every block device in sysfs: whole disks and partitions, in the order lvm2
 * scans and reports them (its device tree's key: the 32-bit dev_t with its
 * bytes swapped, so the low byte of the minor counts first). Devices that vanish or have an unreadable "dev" while we look
 * are left out. Returns 0, -ENOENT (no class/block directory or no
 * /proc/devices), -E2BIG (more than PF_SYSFS_DEVICES_MAX) or -ENOMEM.
 */
int pf_sysfs_enumerate(const struct pf_paths *paths, struct pf_dev_list *ret)
	_nonnull_(1, 2) _must_check_;

/*
 * One device by number, via sys/dev/block/M:m, without looking at any other
 * device. ret->path is the name lvm2 derives from a devno (see sysfs.c);
 * -ENOENT when lvm2 would find no name for it, which it treats as "device
 * removed": no sysfs entry, or (compat) a non-SCSI, non-dm device missing
 * from /proc/partitions because its size is 0 (a detached loop device).
 * The /dev node is not checked: callers that open ret->path and get ENOENT
 * should treat that like lvm2's "Cannot access device" (removed) too.
 * Also -EBADMSG (unparsable "dev"), -ENOMEM.
 */
int pf_sysfs_lookup_devno(const struct pf_paths *paths, unsigned major, unsigned minor,
			  struct pf_dev *ret) _nonnull_(1, 4) _must_check_;

/*
 * The device a /dev path (or a symlink to one) refers to: stat() it, then
 * pf_sysfs_lookup_devno(). Like lvm2 for a device given by name, ret->path
 * is the given path itself, not the derived name. Returns -ENOENT (missing
 * path or device), -ENOTBLK (not a block device), or the lookup's errors.
 */
int pf_sysfs_lookup_path(const struct pf_paths *paths, const char *path, struct pf_dev *ret)
	_nonnull_(1, 2, 3) _must_check_;

/*
 * One device by kernel name (sys/class/block/<kname>), e.g. a holder or the
 * parent disk of a partition; ret->path is /dev/<kname> or /dev/mapper/<name>.
 * Returns 0, -ENOENT, -EINVAL (not a plain name), -EBADMSG or -ENOMEM.
 */
int pf_sysfs_lookup_kname(const struct pf_paths *paths, const char *kname, struct pf_dev *ret)
	_nonnull_(1, 2, 3) _must_check_;

/*
 * One attribute of a device by kernel name (sys/class/block/<kname>/<attr>,
 * attr may have '/': "dm/uuid", "../device/wwid"), bounded by cap bytes,
 * trailing newline dropped. Returns 0, -ENOENT, -E2BIG (longer than cap),
 * -EBADMSG (holds a NUL), -EINVAL (kname not a plain name) or -ENOMEM.
 */
int pf_sysfs_read_attr(const struct pf_paths *paths, const char *kname, const char *attr,
		       size_t cap, char **ret) _nonnull_(1, 2, 3, 5) _must_check_;

/*
 * pf_sysfs_read_attr() for an attribute that may be absent: *ret is NULL
 * when kname is NULL or not a plain name, or the attribute is missing,
 * empty, longer than cap or unreadable. Returns 0, or -ENOMEM.
 */
int pf_sysfs_read_opt_attr(const struct pf_paths *paths, const char *kname, const char *attr,
			   size_t cap, char **ret) _nonnull_(1, 3, 5) _must_check_;

/*
 * The holders/ entries of a device by kernel name, sorted; none (NULL, 0)
 * when the directory is missing or has more than PF_SYSFS_HOLDERS_MAX.
 * Returns 0, -EINVAL (kname not a plain name) or -ENOMEM.
 */
int pf_sysfs_list_holders(const struct pf_paths *paths, const char *kname, char ***ret,
			  size_t *ret_n) _nonnull_(1, 2, 3, 4) _must_check_;

/*
 * Does M:m (kernel name kname, may be NULL) carry a mounted file system? As libdevmapper's
 * dm_device_has_mounted_fs(), which lvm2 weighs between two devices of one PV: an entry of
 * that device number in PROC/self/mountinfo, or SYS/fs/TYPE/KNAME for any TYPE.
 */
bool pf_sysfs_has_mounted_fs(const struct pf_paths *paths, unsigned major, unsigned minor,
			     const char *kname) _nonnull_(1);

#endif /* PF_SYSFS_H */
