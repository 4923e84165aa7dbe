/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The device-mapper calls of native activation, as lvm2 2.03.16 makes them: is the LV active
 * already (by UUID), then CREATE, LOAD and RESUME with a udev cookie, one cookie shared by a
 * whole batch of LVs and waited for once. The only file that includes libdevmapper.h.
 */
#ifndef PF_DM_H
#define PF_DM_H

#include <stdbool.h>
#include <stdint.h>

#include "activate/dmtable.h"
#include "base/diag.h"
#include "base/macro.h"

/* How long a batch waits for udev before giving up on it (a udevd that died, say). */
#define PF_DM_UDEV_TIMEOUT_MS (300U * 1000U)

enum pf_dm_lv_state {
	PF_DM_LV_ABSENT,  /* no device with the LV's UUID */
	PF_DM_LV_ACTIVE,  /* exists, live table, not suspended, read-only as wanted: leave it */
	PF_DM_LV_OTHER,	  /* any other state: lvm2 renames or reloads; leave it to lvm2 */
};

/* A batch of activations sharing one udev cookie. */
struct pf_dm_batch {
	uint32_t cookie;  /* 0 until the first resume */
	unsigned resumed; /* devices resumed since the last wait */
};

/* The state of the device for t's UUID, in lvm2's terms (§"already active"). */
int pf_dm_lv_state(const struct pf_dm_table *t, enum pf_dm_lv_state *ret) _nonnull_(1, 2)
	_must_check_;

/*
 * Whether the kernel can load every target of t now: linear, striped and error are part of
 * dm-mod; zero needs dm-zero loaded (lvm2 would modprobe it: the caller delegates instead).
 * sys_dir is /sys (or a test root).
 */
bool pf_dm_targets_available(const struct pf_dm_table *t, const char *sys_dir) _nonnull_(1, 2);

/*
 * Create the device, load t, resume it with the batch's cookie and lvm2's udev flags.
 * pv_read_ahead: the first PV's read-ahead for PF_DM_RA_MINIMUM_PV (see pf_dm_bdev_read_ahead).
 * On a failed load or resume the half-made device is removed again. reterr says why; on
 * success *ret_major and *ret_minor are the new device's number (lvm2 prints it with -v).
 */
int pf_dm_activate(struct pf_dm_batch *b, const struct pf_dm_table *t, uint32_t pv_read_ahead,
		   struct pf_diag *reterr, unsigned *ret_major, unsigned *ret_minor)
	_nonnull_(1, 2, 4, 5, 6) _must_check_;

/*
 * Count off and remove a udev cookie nobody waits for any more (a leader that died in a
 * batch): its semaphore would otherwise stay until reboot. 0, or -EIO when there is no such
 * cookie.
 */
int pf_dm_cookie_release(uint32_t cookie);

/*
 * Wait until udev has processed every device the batch resumed (or timeout_ms passed: then
 * the semaphore is released anyway, so none is left behind), and let libdevmapper apply the
 * read-ahead. -ETIMEDOUT when udev did not answer in time.
 */
int pf_dm_wait(struct pf_dm_batch *b, unsigned timeout_ms) _nonnull_(1) _must_check_;

/* The read-ahead of a block device, in sectors (BLKRAGET), as lvm2 reads it. */
int pf_dm_bdev_read_ahead(const char *path, uint32_t *ret) _nonnull_(1, 2) _must_check_;

/*
 * Whether the kernel has device-mapper: <dev_dir>/mapper/control opens. Asked quietly, before
 * libdevmapper (which complains on stderr) is touched. A missing node is made first, as
 * libdevmapper makes it: in an initramfs without systemd nothing makes it before dm-mod is
 * loaded, and opening it has the kernel load dm-mod. A node (and directory) made here that
 * does not open is removed again.
 */
bool pf_dm_available(const char *dev_dir) _nonnull_(1);

/*
 * DM_DISABLE_UDEV is set, as in an initramfs without udev: libdevmapper makes /dev/mapper's
 * nodes itself, and the /dev/VG/LV links are ours (devlinks.h), as lvm2 makes them then.
 * Otherwise udev makes both, even when it is not running yet (lvm2 leaves them to it too).
 */
bool pf_dm_nodes_ours(void);

/* Free libdevmapper's caches; call when done with device-mapper. */
void pf_dm_release(void);

#endif /* PF_DM_H */
