/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Activating one complete VG as lvm2's event autoactivation would: under lvm2's VG lock, with
 * its metadata read again from its PVs (a concurrent lvextend may have changed it since the
 * scan), the LVs the policy (aapolicy.h) picks, natively (dmtable.h, dm.h) when every one of
 * them is linear, striped, error or zero and device-mapper holds nothing in the way; else the
 * VG is handed back for lvm2 to activate. What was done and why is kept for the command to
 * print; nothing is printed here.
 */
#ifndef PF_VGACTIVATE_H
#define PF_VGACTIVATE_H

#include <stdbool.h>
#include <stddef.h>

#include "activate/aamsg.h"
#include "activate/aapolicy.h"
#include "activate/dm.h"
#include "activate/dmtable.h"
#include "base/macro.h"
#include "state/lvmlock.h"

struct pf_settings;
struct pf_vg;

/* Where a PV of the VG is, from its pvs_online file; path NULL when unknown. */
struct pf_activate_pv {
	char pvid[33];
	const char *path;
	unsigned major, minor;
};

struct pf_activate_opts {
	const char *lock_dir;
	/* PVIDs seen on more than one device in this scan (lvm2 refuses to activate their VGs) */
	const char *const *dup_pvids;
	size_t n_dup_pvids;
	const char *sys_dir;
	const char *run_dir; /* for io/stuck.h; NULL: devices a reader is stuck on not tracked */
	const struct pf_settings *settings;
	bool dry_run; /* decide and build the tables, take no lock, change nothing */
	bool no_dm;   /* device-mapper is not there or not to be asked: nothing is active */
	bool process_each; /* lvm2 would read the VG through process_each_vg (aapolicy.h) */
	bool lock_nowait; /* the caller holds other VG locks: -EWOULDBLOCK rather than wait */
	/* else how long to wait for the VG lock; 0: PF_LVMLOCK_TIMEOUT_MS_DEFAULT */
	unsigned lock_timeout_ms;
	/* per PV, for reading the metadata again; 0: settings->scan_timeout_sec */
	unsigned timeout_ms;
};

enum pf_activate_outcome {
	PF_ACTIVATE_DONE,     /* natively, or nothing to do: the policy's messages say why */
	PF_ACTIVATE_DELEGATE, /* for lvm2: reason says why (not linear/striped, device in use...) */
	PF_ACTIVATE_FAILED,   /* as lvm2 fails: reason, and the policy's or dm's messages */
};

enum pf_activate_lv_kind {
	PF_ACTIVATE_LV_LOADED,	/* created, loaded, resumed (or, dry run, would be) */
	PF_ACTIVATE_LV_ACTIVE,	/* already active exactly so: left alone */
	PF_ACTIVATE_LV_SKIPPED, /* the policy left it out; reason says why */
	PF_ACTIVATE_LV_FAILED,
};

struct pf_activate_lv {
	char lv[128];
	enum pf_activate_lv_kind kind;
	char dm_name[PF_DM_NAME_LEN];
	char dm_uuid[PF_DM_UUID_LEN];
	char *table; /* LOADED: as `dmsetup table` prints it */
	bool read_only;
	char reason[256];
};

/* lvm2's lines kept for one VG: a few per LV; far above any real VG. */
#define PF_ACTIVATE_MSGS_MAX (1U << 20)

struct pf_activate_result {
	enum pf_activate_outcome outcome;
	char reason[256];
	unsigned n_now_active; /* top-level LVs active afterwards ("N logical volume(s) ...") */
	bool say_now_active;   /* lvm2 prints that line for this outcome */
	size_t n_lvs, cap_lvs;
	struct pf_activate_lv *lvs; /* every LV with a verdict worth telling, in VG order */
	bool vg_failed;	       /* FAILED at the VG's gates: lvm2's lines say all there is */
	size_t n_msgs, cap_msgs;
	struct pf_aamsg *msgs; /* lvm2's lines for the VG, in order */
	struct pf_lvmlock lock; /* held after DONE until the caller's batch waited for udev */
};

/*
 * Activate VG vgname, whose PVs are pvs[0..n_pvs) (PVIDs as in its metadata, any order).
 * Devices are created in batch b; the caller waits for it (pf_dm_wait) before releasing
 * ret->lock. Returns 0 with *ret filled (its outcome says what happened; release it with
 * pf_activate_result_release), -EWOULDBLOCK (lock_nowait and the VG lock is held: nothing
 * done), or -ENOMEM. A VG lock not taken within the timeout, or in an unsafe lock directory,
 * fails the VG (outcome FAILED, the reason names the lock file).
 */
int pf_activate_vg(const struct pf_activate_opts *o, const char *vgname,
		   const struct pf_activate_pv *pvs, size_t n_pvs, struct pf_dm_batch *b,
		   struct pf_activate_result *ret) _nonnull_(1, 2, 5, 6) _must_check_;
void pf_activate_result_release(struct pf_activate_result *r);

/* A PV of vg is on two devices (o->dup_pvids) and lvm2 would refuse every LV of it. */
bool pf_activate_dup_pvs(const struct pf_activate_opts *o, const struct pf_vg *vg)
	_nonnull_(1, 2) _pure_;

#endif /* PF_VGACTIVATE_H */
