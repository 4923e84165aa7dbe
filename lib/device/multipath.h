/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Whether lvm2 2.03.16 takes a device for a path of a multipath map
 * (multipath_component_detection): a dm multipath holder of its disk, or its
 * wwid in multipath's wwids file and not blacklisted by multipath's own
 * config.
 */
#ifndef PF_MULTIPATH_H
#define PF_MULTIPATH_H

#include "base/macro.h"
#include "base/strv.h"
#include "device/blockdev.h"

struct pf_paths;

#define PF_MULTIPATH_WWIDS_MAX 262144	  /* wwids kept from the multipath files */
#define PF_MULTIPATH_FILE_MAX  (4u << 20) /* wwids file, multipath.conf, one conf.d file */
#define PF_MULTIPATH_CONFD_MAX 1024	  /* files read from the multipath conf.d dir */

/*
 * The wwids lvm2 treats as multipath paths, sorted and unique: those in
 * wwids_file (read the way lvm2 reads it; NULL, "" or a relative path: none),
 * less those blacklisted and not excepted in conf_file and the files of
 * conf_dir (multipath.conf, multipath/conf.d; NULL: not read). Missing or
 * unreadable files count as empty, as in lvm2. Returns 0, -E2BIG (over a
 * cap) or -ENOMEM.
 */
int pf_multipath_load_wwids(const char *wwids_file, const char *conf_file, const char *conf_dir,
			    struct pf_strv *ret) _nonnull_(4) _must_check_;

/*
 * lvm2's multipath component check: for SCSI and NVMe devices, a dm holder of
 * the whole disk with an "mpath-" uuid; for any device, device/wwid (a
 * partition's: its disk's) after its "<type>." in wwids (from
 * pf_multipath_load_wwids()). Reads sysfs under paths->sys. Returns 1, 0 or
 * -ENOMEM.
 */
int pf_multipath_is_component(const struct pf_strv *wwids, const struct pf_paths *paths,
			      const struct pf_dev *d) _nonnull_(1, 2, 3) _must_check_;

#endif /* PF_MULTIPATH_H */
