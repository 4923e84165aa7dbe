/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The /dev names of block devices as lvm2 2.03.16's dev-cache keeps them
 * without udev: every alias found by walking paths->dev, and the order in
 * which lvm2 prefers them, whose first is the name it shows.
 */
#ifndef PF_DEVNAMES_H
#define PF_DEVNAMES_H

#include <stddef.h>

#include "base/macro.h"
#include "device/blockdev.h"

struct pf_paths;

/* Caps on what the /dev tree can make us allocate. */
#define PF_DEVNAMES_ALIASES_MAX	      256     /* /dev names kept per device */
#define PF_DEVNAMES_WALK_DEPTH_MAX    8	      /* directory levels below paths->dev */
#define PF_DEVNAMES_WALK_ENTRIES_MAX 1000000 /* directory entries looked at in one /dev walk */

/*
 * Fill the aliases of every device in the list: the block-device names
 * under paths->dev other than its path, in walk order. One walk, done the
 * way lvm2's dev-cache does it without udev: entries sorted by name, names
 * starting with '.' skipped, symlinks followed to devices but never to
 * directories, directories on another filesystem skipped, unresolvable
 * entries (dangling links, symlink loops) skipped. Bounded by
 * PF_DEVNAMES_WALK_DEPTH_MAX, PF_DEVNAMES_WALK_ENTRIES_MAX and
 * PF_DEVNAMES_ALIASES_MAX. Returns 0, -ENOENT (no paths->dev), -E2BIG (entry
 * cap hit) or -ENOMEM; on failure the list is untouched.
 */
int pf_devnames_load_aliases(const struct pf_paths *paths, struct pf_dev_list *list)
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
int pf_devnames_lvm_names(const struct pf_paths *paths, const struct pf_dev *d,
			  const char **names, size_t n_names) _nonnull_(1, 2, 3) _must_check_;

#endif /* PF_DEVNAMES_H */
