/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What udev has said of a block device: whether it has processed it yet, and whether its rules
 * marked it as one lvm2's rule skips (a multipath path, a device-mapper device not ready, a
 * device whose signature blkid found is another than a PV's: an md member, a LUKS volume).
 * Read from udev's database files, <udev_dir>/data/b<major>:<minor>, lines "E:KEY=VALUE".
 */
#ifndef PF_UDEVDB_H
#define PF_UDEVDB_H

#include <stdbool.h>
#include <stddef.h>

#include "base/macro.h"

enum pf_udevdb_verdict {
	PF_UDEVDB_USE,	       /* processed, nothing against reading it */
	PF_UDEVDB_UNPROCESSED, /* no database entry: its event is still to come */
	PF_UDEVDB_MPATH_PATH,  /* DM_MULTIPATH_DEVICE_PATH=1: multipath owns it */
	PF_UDEVDB_DM_PRIVATE,  /* DM_UDEV_DISABLE_OTHER_RULES_FLAG=1: not ready, or not for us */
	PF_UDEVDB_NOT_PV,      /* ID_FS_TYPE set, and not LVM2_member */
};

/* udev is running: <udev_dir>/control exists (the socket udevadm talks to). */
bool pf_udevdb_running(const char *udev_dir) _nonnull_(1);

/* The verdict of one database entry's text (len bytes, NUL not needed). */
enum pf_udevdb_verdict pf_udevdb_parse(const char *text, size_t len) _nonnull_(1);

/*
 * The verdict for block device major:minor. Returns 0 with *ret (PF_UDEVDB_UNPROCESSED when it
 * has no entry), or -errno when the entry exists but cannot be read.
 */
int pf_udevdb_verdict(const char *udev_dir, unsigned major, unsigned minor,
		      enum pf_udevdb_verdict *ret) _nonnull_(1, 4) _must_check_;

/* The words lvm2-style messages use for a verdict other than PF_UDEVDB_USE. */
const char *pf_udevdb_reason(enum pf_udevdb_verdict v);

#endif /* PF_UDEVDB_H */
