/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Degraded activation after a deadline: whether a VG still incomplete once
 * pvscan_fast/degraded_activation_timeout has passed since its first PV arrived is handed to
 * lvm2 as `vgchange -aay --activationmode degraded VG`, decided by lvm2 2.03.16's rules for
 * that command (the autoactivation gates of aapolicy.h, then _lv_activate()'s test of each
 * partial LV). Pure: no I/O, no clock; the caller passes the times.
 */
#ifndef PF_DEGRADED_H
#define PF_DEGRADED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "activate/aapolicy.h"
#include "base/macro.h"

struct pf_vg;

/* What to do with the VG now. */
enum pf_degraded_action {
	PF_DEGRADED_OFF,      /* the setting is off: lvm2's behaviour, the VG waits for its PVs */
	PF_DEGRADED_COMPLETE, /* every PV is there: activated as usual, never degraded */
	PF_DEGRADED_CLAIMED,  /* vgs_online/<vg> exists: it was or is being activated */
	PF_DEGRADED_WAIT,     /* incomplete, the deadline has not passed */
	PF_DEGRADED_REFUSE,   /* past the deadline, but nothing may run degraded: stays down */
	PF_DEGRADED_ACTIVATE, /* hand it to lvm2 with --activationmode degraded */
	_PF_DEGRADED_ACTION_MAX,
};

/* Per LV, what lvm2's degraded mode makes of it. */
enum pf_degraded_lv {
	PF_DEGRADED_LV_NONE,	  /* -aay leaves it alone anyway (hidden, flags, lists, ...) */
	PF_DEGRADED_LV_COMPLETE,  /* uses no missing PV: comes up as usual */
	PF_DEGRADED_LV_REDUNDANT, /* raid that lost legs but keeps every block: comes up degraded */
	PF_DEGRADED_LV_LOST,	  /* raid that lost more legs than its level survives: refused */
	/*
	 * raid0 with a leg lost: lvm2 2.03.16 counts only parity devices, so it would run it
	 * with error targets for the lost legs. That is partial data: refused here, VG and all.
	 */
	PF_DEGRADED_LV_STRIPED,
	PF_DEGRADED_LV_INTEGRITY, /* raid over integrity images: lvm2 refuses degraded */
	PF_DEGRADED_LV_PARTIAL,	  /* anything else on a missing PV (linear, mirror, ...): refused */
	_PF_DEGRADED_LV_MAX,
};

struct pf_degraded_input {
	const struct pf_vg *vg;
	/* lists, tags, system ID and pv_present as for autoactivation; mode and the rest set here */
	const struct pf_aapolicy_input *policy;
	bool enabled;		/* pvscan_fast/degraded_activation */
	unsigned timeout_sec;	/* pvscan_fast/degraded_activation_timeout */
	uint64_t first_seen_ns; /* when the VG's first PV arrived (CLOCK_BOOTTIME) */
	uint64_t now_ns;
	bool claimed; /* vgs_online/<vg> exists */
};

struct pf_degraded {
	enum pf_degraded_action action;
	uint64_t deadline_ns;	/* first_seen_ns + the timeout */
	unsigned n_missing_pvs; /* PVs whose device is absent */
	unsigned n_complete, n_redundant, n_refused; /* LVs -aay would activate, by outcome */
	int why_lv;		/* the LV the reason is about, or -1 */
	const char *reason;	/* why, in a few words (static) */
	unsigned n_lvs;
	enum pf_degraded_lv *lvs; /* NULL unless the LVs were decided; one per vg->lvs[] */
};

/*
 * Decide. Checks in this order, so that a timer firing late or twice is harmless: the
 * setting, completeness (in->policy->pv_present; NULL: all present), the claim, the deadline,
 * then lvm2's gates for `vgchange -aay` and each LV. ACTIVATE needs at least one raid LV that
 * comes up degraded and none that would come up with blocks missing. Returns 0 with *ret
 * (release it with pf_degraded_release()), -EINVAL without a policy, or the policy's errors.
 */
int pf_degraded_decide(const struct pf_degraded_input *in, struct pf_degraded *ret)
	_nonnull_(1, 2) _must_check_;
void pf_degraded_release(struct pf_degraded *d);

/* The action's name as records and messages show it ("activate", "wait", ...). */
const char *pf_degraded_action_name(enum pf_degraded_action a) _pure_;

/*
 * One line saying why, naming the LV concerned ("LV r1 runs degraded (1 of 2 legs lost)").
 * Truncated to size; returns buf.
 */
char *pf_degraded_describe(const struct pf_degraded *d, const struct pf_vg *vg, char *buf,
			   size_t size) _nonnull_(1, 2, 3);

#endif /* PF_DEGRADED_H */
