/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The /dev/VG/LV links lvm2 makes itself when udev may not (dm.h's policy). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "activate/devlinks.h"

/* path as a symlink to target, atomically where a link (or anything) was there. */
static int put_link(const char *target, const char *path)
{
	char tmp[PATH_MAX];
	int n = snprintf(tmp, sizeof(tmp), "%s.pvscan-fast-%d", path, (int)getpid());

	if (n < 0 || (size_t)n >= sizeof(tmp))
		return -ENAMETOOLONG;
	(void)unlink(tmp);
	if (symlink(target, tmp) < 0)
		return -errno;
	if (rename(tmp, path) < 0) {
		int r = -errno;

		(void)unlink(tmp);
		return r;
	}
	return 0;
}

int pf_devlinks_add(const char *dev_dir, const char *vg, const struct pf_activate_result *res,
		    struct pf_diag *reterr)
{
	char dir[PATH_MAX], path[PATH_MAX], target[PATH_MAX];
	int first = 0, n, dir_r = 1; /* 1: not tried yet; made only for a VG with a link to put */

	n = snprintf(dir, sizeof(dir), "%s/%s", dev_dir, vg);
	if (n < 0 || (size_t)n >= sizeof(dir))
		return -ENAMETOOLONG;
	for (size_t i = 0; i < res->n_lvs; i++) {
		const struct pf_activate_lv *lv = &res->lvs[i];
		int r = 0;

		if (lv->kind != PF_ACTIVATE_LV_LOADED && lv->kind != PF_ACTIVATE_LV_ACTIVE)
			continue;
		if (dir_r == 1)
			dir_r = mkdir(dir, 0755) < 0 && errno != EEXIST ? -errno : 0;
		r = dir_r;
		if (r == 0 && ((size_t)snprintf(path, sizeof(path), "%s/%s", dir, lv->lv) >=
				       sizeof(path) ||
			       (size_t)snprintf(target, sizeof(target), "%s/mapper/%s", dev_dir,
						lv->dm_name) >= sizeof(target)))
			r = -ENAMETOOLONG;
		if (r == 0)
			r = put_link(target, path);
		if (r < 0 && first == 0) {
			first = r;
			pf_diag_msg(reterr, "cannot make the link %s/%s: %s", dir, lv->lv,
				    strerror(-r));
		}
	}
	return first;
}
