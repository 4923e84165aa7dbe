/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The /dev/VG/LV links lvm2 makes itself when udev may not (dm.h's policy). */
#ifndef PF_DEVLINKS_H
#define PF_DEVLINKS_H

#include "activate/vgactivate.h"
#include "base/diag.h"
#include "base/macro.h"

/*
 * For each LV of res that is loaded or was active already, dev_dir/VG/LV as a symlink to
 * dev_dir/mapper/DM_NAME (the node libdevmapper made), replacing what was there; the
 * directory is made (0755) as needed. For when udev, which makes these links otherwise, is
 * not to be relied on (pf_dm_udev_policy). Returns 0, or the first error with reterr naming
 * the link; the other links are still made.
 */
int pf_devlinks_add(const char *dev_dir, const char *vg, const struct pf_activate_result *res,
		    struct pf_diag *reterr) _nonnull_(1, 2, 3, 4) _must_check_;

#endif /* PF_DEVLINKS_H */
