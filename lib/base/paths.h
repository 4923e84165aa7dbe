/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Every system path pvscan-fast touches, in one place, so tests and admins
 * can move them: /sys, /dev, /proc (tests only), the lvm2 config directory,
 * and the run-time state and lock directories.
 */
#ifndef PF_PATHS_H
#define PF_PATHS_H

#include "base/diag.h"
#include "base/macro.h"

struct pf_paths {
	char *sys;  /* PVSCAN_FAST_SYS_DIR, default "/sys" (tests) */
	char *dev;  /* PVSCAN_FAST_DEV_DIR, default "/dev" (tests) */
	char *proc; /* PVSCAN_FAST_PROC_DIR, default "/proc" (tests) */
	char *etc;  /* LVM_SYSTEM_DIR, default "/etc/lvm" */
	char *run;  /* PVSCAN_FAST_RUN_DIR, default "/run/lvm" */
	char *lock; /* PVSCAN_FAST_LOCK_DIR, default "/run/lock/lvm" */
	char *fstab; /* PVSCAN_FAST_FSTAB, default "/etc/fstab" (tests) */
};

/* Fill from the environment (empty values count as unset). Returns 0 or -ENOMEM. */
int pf_paths_from_env(struct pf_paths *ret) _nonnull_(1) _must_check_;
void pf_paths_release(struct pf_paths *p);

/*
 * mkdir -p with mode for each directory made: the run and lock directories' parents (/run)
 * exist at boot, they themselves may not. An existing directory is fine. Returns 0 or -errno.
 */
int pf_paths_mkdir_p(const char *path, unsigned mode) _nonnull_(1) _must_check_;

/*
 * May we keep lock files in dir, and is the lock file we opened there (fd, or -1 to check only
 * dir) ours? Whoever owns the directory or may write in it can hold, replace or remove our
 * lock files, and with them the exclusion they give, or make us wait on them for ever. So:
 * dir a directory owned by root or by our euid, not writable by group or others; the file
 * owned by our euid. Returns 0, -EPERM with the path and the reason in reterr, or the -errno
 * of stat (reterr says which path).
 */
int pf_paths_check_lock(const char *dir, int fd, const char *file, struct pf_diag *reterr)
	_nonnull_(1, 3) _must_check_;

/* malloc'ed "dir/name" (NULL on ENOMEM). */
char *pf_path_join(const char *dir, const char *name) _nonnull_(1, 2);

#endif /* PF_PATHS_H */
