/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Block device discovery from sysfs (paths->sys), /proc/devices and
 * /proc/partitions (paths->proc) and the /dev tree (paths->dev): fills
 * struct pf_dev (dev.h) the way lvm2 2.03.16's dev-cache names and sees
 * devices. No device is opened here.
 */
#ifndef PF_DEVICES_H
#define PF_DEVICES_H

#include "device/dev.h"
#include "base/macro.h"

struct pf_paths;

/* Caps on what sysfs, /proc and /dev can make us allocate. */
#define PF_DEVICES_MAX		  65536	  /* block devices in one enumeration */
#define PF_DEVICES_HOLDERS_MAX	  4096	  /* entries in one holders/ directory */
#define PF_DEVICES_ALIASES_MAX	  256	  /* /dev names kept per device */
#define PF_DEVICES_WALK_DEPTH_MAX 8	  /* directory levels below paths->dev */
#define PF_DEVICES_WALK_ENTRIES_MAX 1000000 /* directory entries looked at in one /dev walk */
#define PF_DEVICES_PROC_FILE_MAX  (4u << 20) /* /proc/devices, /proc/partitions */

/*
 * Every block device in sysfs: whole disks and partitions, in the order lvm2
 * scans and reports them (its device tree's key: the 32-bit dev_t with its
 * bytes swapped, so the low byte of the minor counts first). Devices that vanish or have an unreadable "dev" while we look
 * are left out. Returns 0, -ENOENT (no class/block directory or no
 * /proc/devices), -E2BIG (more than PF_DEVICES_MAX) or -ENOMEM.
 */
int pf_devices_enumerate(const struct pf_paths *paths, struct pf_dev_list *ret)
	_nonnull_(1, 2) _must_check_;

/*
 * One device by number, via sys/dev/block/M:m, without looking at any other
 * device. ret->path is the name lvm2 derives from a devno (see devices.c);
 * -ENOENT when lvm2 would find no name for it, which it treats as "device
 * removed": no sysfs entry, or (compat) a non-SCSI, non-dm device missing
 * from /proc/partitions because its size is 0 (a detached loop device).
 * The /dev node is not checked: callers that open ret->path and get ENOENT
 * should treat that like lvm2's "Cannot access device" (removed) too.
 * Also -EBADMSG (unparsable "dev"), -ENOMEM.
 */
int pf_devices_lookup_devno(const struct pf_paths *paths, unsigned major, unsigned minor,
			    struct pf_dev *ret) _nonnull_(1, 4) _must_check_;

/*
 * The device a /dev path (or a symlink to one) refers to: stat() it, then
 * pf_devices_lookup_devno(). Like lvm2 for a device given by name, ret->path
 * is the given path itself, not the derived name. Returns -ENOENT (missing
 * path or device), -ENOTBLK (not a block device), or the lookup's errors.
 */
int pf_devices_lookup_path(const struct pf_paths *paths, const char *path, struct pf_dev *ret)
	_nonnull_(1, 2, 3) _must_check_;

/*
 * One device by kernel name (sys/class/block/<kname>), e.g. a holder or the
 * parent disk of a partition; ret->path is /dev/<kname> or /dev/mapper/<name>.
 * Returns 0, -ENOENT, -EINVAL (not a plain name), -EBADMSG or -ENOMEM.
 */
int pf_devices_lookup_kname(const struct pf_paths *paths, const char *kname, struct pf_dev *ret)
	_nonnull_(1, 2, 3) _must_check_;

/*
 * One attribute of a device by kernel name (sys/class/block/<kname>/<attr>,
 * attr may have '/': "dm/uuid", "../device/wwid"), bounded by cap bytes,
 * trailing newline dropped. Returns 0, -ENOENT, -E2BIG (longer than cap),
 * -EBADMSG (holds a NUL), -EINVAL (kname not a plain name) or -ENOMEM.
 */
int pf_devices_read_attr(const struct pf_paths *paths, const char *kname, const char *attr,
			 size_t cap, char **ret) _nonnull_(1, 2, 3, 5) _must_check_;

/*
 * The holders/ entries of a device by kernel name, sorted; none (NULL, 0)
 * when the directory is missing or has more than PF_DEVICES_HOLDERS_MAX.
 * Returns 0, -EINVAL (kname not a plain name) or -ENOMEM.
 */
int pf_devices_list_holders(const struct pf_paths *paths, const char *kname, char ***ret,
			    size_t *ret_n) _nonnull_(1, 2, 3, 4) _must_check_;

/*
 * Fill the aliases of every device in the list: the block-device names
 * under paths->dev other than its path, in walk order. One walk, done the
 * way lvm2's dev-cache does it without udev: entries sorted by name, names
 * starting with '.' skipped, symlinks followed to devices but never to
 * directories, directories on another filesystem skipped, unresolvable
 * entries (dangling links, symlink loops) skipped. Bounded by
 * PF_DEVICES_WALK_DEPTH_MAX, PF_DEVICES_WALK_ENTRIES_MAX and
 * PF_DEVICES_ALIASES_MAX. Returns 0, -ENOENT (no paths->dev), -E2BIG (entry
 * cap hit) or -ENOMEM; on failure the list is untouched.
 */
int pf_devices_load_aliases(const struct pf_paths *paths, struct pf_dev_list *list)
	_nonnull_(1, 2) _must_check_;

/*
 * path and aliases in the order lvm2's dev-cache keeps them after a /dev
 * walk (names[0] first): each name, in walk order, goes in front if lvm2
 * prefers it to the current first name, else at the end. lvm2's
 * preferences: any other name over /dev/block/, /dev/dm-*, /dev/disk/ and
 * /dev/mapper/, in that order; then fewer slashes; then a symlink over a
 * plain entry at the first differing component; then byte order. names[0]
 * is the name lvm2 shows unless an accepting filter entry matches a later
 * name first (lvm2's regex filter then makes that one the first). A path
 * outside paths->dev (a name given by the user) counts as found last.
 * Uses lstat(). names needs room for 1 + d->n_aliases; returns how many
 * were written (0 when d has no path), or -E2BIG.
 */
int pf_devices_lvm_names(const struct pf_paths *paths, const struct pf_dev *d,
			 const char **names, size_t n_names) _nonnull_(1, 2, 3) _must_check_;

#endif /* PF_DEVICES_H */
