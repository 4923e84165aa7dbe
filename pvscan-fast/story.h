/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The leader's steps as records (lib/state/records.h, vocabulary in lib/state/status.h), for
 * --status and the journal. Every function takes a NULL writer (a dry run records nothing).
 */
#ifndef PF_CMD_STORY_H
#define PF_CMD_STORY_H

#include <stdbool.h>
#include <stddef.h>

#include "activate/vgactivate.h"
#include "scan/pvcache.h"
#include "scan/scan.h"
#include "state/records.h"

/* A leader round began with n queued devices (full: every device is read). */
void pf_story_round(struct pf_records *w, size_t n, bool full);
/* What became of one device of a scan; act: it asked for autoactivation. */
void pf_story_dev(struct pf_records *w, const struct pf_scan *scan, const struct pf_scan_dev *d,
		  bool act);
/*
 * What pvscan decided for a PV of d (one event): VG complete or incomplete (with the PVs
 * still missing, from d's metadata and the online files in run_dir), PVs lvm2 does not count.
 */
void pf_story_event(struct pf_records *w, const char *run_dir, const struct pf_scan_dev *d,
		    const struct pf_event *ev);
/* vgs_online/VG: created by us (ours) or there already. */
void pf_story_claim(struct pf_records *w, const char *vg, bool ours);
/* Activation of vg began: how is "native", "lvm2", "recover", or another part's own word. */
void pf_story_activate(struct pf_records *w, const char *vg, const char *how);
/* A native activation's end: each LV's verdict, then the VG's. */
void pf_story_native(struct pf_records *w, const char *vg, const struct pf_activate_result *res);
/*
 * An lvm2 process's end: wstatus as waitpid() gave it (-1: never ran, or could not be
 * waited for); timed_out: killed at the activation timeout; left: stopped by our own
 * termination, so the next leader does it again.
 */
void pf_story_lvm2(struct pf_records *w, const char *vg, const char *how, int wstatus,
		   bool timed_out, bool left);
/* An activation that ended without running (res "failed", or "handed" to someone else). */
void pf_story_ended(struct pf_records *w, const char *vg, const char *how, const char *res,
		    const char *why);

#endif /* PF_CMD_STORY_H */
