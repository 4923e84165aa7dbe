/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvm2's file locks, taken the way lvm2 2.03.16 takes them, so that pvscan-fast and
 * concurrent lvm commands exclude each other: flock() of <lock_dir>/V_<vg> (a VG) after
 * briefly holding V_<vg>:aux (lvm2's writer priority), with the inode re-checked after every
 * wait because lvm2 unlinks lock files when it releases them. Every wait has a deadline: a hung
 * lvm command must not hold up the VGs it does not touch.
 */
#ifndef PF_LVMLOCK_H
#define PF_LVMLOCK_H

#include <stdbool.h>

#include "base/diag.h"
#include "base/macro.h"

/* How long a caller that may wait waits for an lvm2 lock when not told otherwise. */
#define PF_LVMLOCK_TIMEOUT_MS_DEFAULT 60000U

struct pf_lvmlock {
	int fd;	    /* -1 when not held */
	char *path; /* VG locks: unlinked on release when nobody else holds it, as lvm2 does */
};

/*
 * Take the lock of VG vgname, exclusive (activation, as lvm2's vgchange -aay) or shared,
 * waiting for it at most timeout_ms: -ETIMEDOUT when it is still held then. timeout_ms 0 tries
 * once: -EWOULDBLOCK when someone holds it (a caller that holds other VG locks must not wait:
 * that is how two lockers deadlock). Creates lock_dir (mode 0700) when missing; -EPERM when it
 * or the lock file is not safe to lock in (pf_paths_check_lock()). -EINVAL for a name lvm2
 * would never lock. reterr (may be NULL) names the lock file and why it was not taken.
 */
int pf_lvmlock_vg(const char *lock_dir, const char *vgname, bool exclusive, unsigned timeout_ms,
		  struct pf_lvmlock *ret, struct pf_diag *reterr) _nonnull_(1, 2, 5) _must_check_;
void pf_lvmlock_release(struct pf_lvmlock *l);

/*
 * Shared lock of the devices file name (lvm2's D_<name> in lock_dir, e.g. D_system.devices)
 * while it is read, so that lvmdevices never rewrites it under us; timeout_ms, the errors and
 * reterr as for pf_lvmlock_vg(). The file stays (lvm2 does not unlink it). Release with
 * pf_lvmlock_release().
 */
int pf_lvmlock_devices_file(const char *lock_dir, const char *name, unsigned timeout_ms,
			    struct pf_lvmlock *ret, struct pf_diag *reterr)
	_nonnull_(1, 2, 4) _must_check_;

#endif /* PF_LVMLOCK_H */
