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

/*
 * Who makes the LVs' /dev entries and whether udev is waited for. All false is lvm2's default:
 * udev makes /dev/mapper's nodes and the /dev/VG/LV links, and a batch waits for it.
 */
struct pf_dm_udev {
	bool nodes_ours; /* libdevmapper makes the nodes, pvscan-fast the links (devlinks.h) */
	bool no_rules;	 /* udev's dm and LVM rules are told to leave the devices alone */
	bool no_sync;	 /* nobody waits for udev */
};

/* A batch of activations sharing one udev cookie. */
struct pf_dm_batch {
	uint32_t cookie;      /* 0 until the first resume */
	unsigned resumed;     /* devices resumed since the last wait */
	struct pf_dm_udev udev; /* set before the first activation */
};

/*
 * lvm2 2.03.16's choice from DM_DISABLE_UDEV (set, as in an initramfs without udev: no rules,
 * no waiting, nodes and links ours) and lvm.conf's activation/udev_rules (0: the same without
 * the environment), udev_sync (0: no waiting) and verify_udev_operations (1: nodes and links
 * made by us as well as by udev, for a udev that may not make them).
 */
struct pf_dm_udev pf_dm_udev_policy(bool disable_udev, bool udev_rules, bool udev_sync,
				    bool verify_udev_operations);

/* DM_DISABLE_UDEV is set in the environment. */
bool pf_dm_udev_disabled(void);

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
 * libdevmapper (which complains on stderr) is touched.
 */
bool pf_dm_available(const char *dev_dir) _nonnull_(1);

/* A device-mapper device as DM_DEVICE_INFO shows it. */
struct pf_dm_dev {
	char name[PF_DM_NAME_LEN];
	char uuid[PF_DM_UUID_LEN];
	bool live; /* a live table and not suspended: in use as an LV would be */
};

/* Devices listed at most: far above any host, bounded all the same. */
#define PF_DM_LIST_MAX (1U << 20)

/*
 * Every device-mapper device with its UUID and state, for --status (no device is opened).
 * Returns 0 with *ret (free()) and *ret_n, -E2BIG past PF_DM_LIST_MAX, -ENOMEM or -EIO.
 */
int pf_dm_list(struct pf_dm_dev **ret, size_t *ret_n) _nonnull_(1, 2) _must_check_;

/* Free libdevmapper's caches; call when done with device-mapper. */
void pf_dm_release(void);

#endif /* PF_DM_H */
