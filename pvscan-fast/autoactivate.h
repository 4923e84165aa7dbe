/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Autoactivation of claimed VGs for the command: native through lib/, or by lvm2. */
#ifndef PF_CMD_AUTOACTIVATE_H
#define PF_CMD_AUTOACTIVATE_H

#include <stddef.h>

#include "base/paths.h"
#include "cmd.h"
#include "config/settings.h"
#include "format/names.h"
#include "scan/scan.h"
#include "state/coalesce.h"
#include "state/records.h"

/* A VG to activate: its name, and the UUID of the metadata found complete ("": by name). */
struct pf_aa_vg {
	char name[PF_NAME_MAX + 1];
	char id[PF_ID_LEN + 1];
};

/* The metadata of want as a device of scan holds it (by UUID where want has one), or NULL. */
const struct pf_vg *pf_aa_find_vg(const struct pf_scan *scan, const struct pf_aa_vg *want)
	_nonnull_(1, 2);

struct pf_autoactivate {
	const struct pf_opts *o;
	const struct pf_paths *paths;
	const struct pf_settings *st;
	struct pf_coalesce *c; /* the leader's journal, or NULL: each VG's entry ends with it */
	struct pf_records *rec; /* what --status tells, or NULL */
	const char *const *dup_pvids; /* PVIDs this scan found on two devices */
	size_t n_dup_pvids;
	bool process_each; /* lvm2 would take its several-VG path (aapolicy.h) */
	size_t n_first;	   /* the boot's VGs at the head of the list: a batch of their own */
	int status;	       /* PF_EXIT_FAILED once a VG failed */
	uint32_t journaled_cookie; /* the batch cookie last journaled in c */
	bool degraded;		   /* lvm2 runs with --activationmode degraded, not as an event */
	int last_exit;		   /* the last lvm2's exit status (128 + N: signal N), -1 */
};

/*
 * Activate the claimed VGs vgs[0..n), in that order, whose metadata (by UUID: two VGs may
 * share a name) some device of scan carries: natively where lib/activate/vgactivate.c can,
 * the rest by lvm2, at most a few at a time. With --test, print what would be done instead.
 */
void pf_autoactivate_run(struct pf_autoactivate *a, const struct pf_aa_vg *vgs, size_t n,
			 const struct pf_scan *scan);

/* A VG a dead leader left journaled: activate it (lvm2 finds its devices). */
void pf_autoactivate_recover(struct pf_autoactivate *a, const char *vg);

/*
 * An incomplete VG past its degraded deadline: `lvm vgchange -aay --activationmode degraded
 * VG`, within the activation timeout; a->last_exit says how it ended.
 */
void pf_autoactivate_degraded(struct pf_autoactivate *a, const char *vg);

#endif /* PF_CMD_AUTOACTIVATE_H */
