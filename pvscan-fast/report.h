/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lines lvm2's pvscan prints (and the vgchange it runs), worded and routed as lvm2 does. */
#ifndef PF_CMD_REPORT_H
#define PF_CMD_REPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "activate/aapolicy.h"
#include "activate/vgactivate.h"
#include "cmd.h"
#include "config/settings.h"
#include "scan/pvcache.h"
#include "scan/scan.h"

/* lvm2's log_print: stdout, two leading spaces; silenced entirely by --udevoutput. */
void pf_report_print(const struct pf_opts *o, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/*
 * --udevoutput: the line udev imports from --listvg --checkcomplete, the only bytes it may
 * see on stdout: LVM_VG_NAME_COMPLETE='vg' or LVM_VG_NAME_INCOMPLETE='vg'.
 */
void pf_report_udev_vg(const char *vg, bool complete);

/* Why the command stops before it reads anything, as lvm2 says it. */
enum pf_report_skip {
	PF_REPORT_SKIP_ACTIVATE_DISABLED,      /* -aay while event_activation = 0 */
	PF_REPORT_SKIP_CHECKCOMPLETE_DISABLED, /* --checkcomplete while event_activation = 0 */
	PF_REPORT_SKIP_CACHE_DISABLED,	       /* --cache DEVICE while event_activation = 0 */
	PF_REPORT_SKIP_AUTOACTIVATION_VALUE,   /* --autoactivation other than "event" */
};
void pf_report_skip(const struct pf_opts *o, enum pf_report_skip why);

/* A device was named and a filter names symlinks: lvm2 maps all of /dev, and says so. */
void pf_report_finding_symlinks(const struct pf_opts *o);

/* A devices file decided: lvm2 asks, once, to remove the filters it no longer applies. */
void pf_report_filters_ignored(const struct pf_settings *st);

/* lvm2's warnings once its label scan chose among devices with the same PVID. */
void pf_report_duplicates(const struct pf_scan *scan);
/* lvm2's label-scan warnings about VGs sharing a name (vgs: pf_scan_vgs() of the scan). */
void pf_report_vgname_duplicates(const struct pf_vg *const *vgs,
				 const struct pf_aapolicy_vgnames *names);
/* lvm2 skips a VG whose name more than one VG carries: the two lines it says, once per VG. */
void pf_report_vgname_ambiguous(const char *vg);
/* lvm2's quick path giving up on a PV last written through an md device (pvid raw, 32 chars). */
void pf_report_md_hint_moved(const struct pf_opts *o, const char *vg, const char *pvid,
			     const char *online, const char *hint);

/*
 * A device the scan left out (or could not read), as lvm2's per-device form says it; all: the
 * device was not named, and lvm2's full scan says less about it.
 */
void pf_report_scan_dev(const struct pf_opts *o, const struct pf_scan_dev *d, bool all);

/* -v: what a device's probe found wrong, which lvm2 mostly keeps to itself. */
void pf_report_probe(const struct pf_scan_dev *d);

/* One thing the online phase did (pf_pvcache_device), as lvm2's pvscan prints it. */
void pf_report_event(const struct pf_opts *o, const struct pf_event *e);

/* Recording a device failed (r: -errno). */
void pf_report_dev_failed(const char *dev, int r);

/* The PVs a scan found labels on, by PVID, for lvm2's warnings about a VG's devices. */
struct pf_report_pv {
	const char *pvid;
	const char *dev;
	int unused; /* 1 for a duplicate lvm2 does not use */
};
struct pf_report_pvs {
	struct pf_report_pv *v;
	size_t n;
};

/*
 * Collect them, sorted by PVID; of a duplicated PV, the device used comes first. A full scan
 * (flags: its PF_PVCACHE_* flags) leaves out the md members lvm2 drops before pvscan sees
 * them. Points into scan. 0 or -ENOMEM; release with pf_report_pvs_release().
 */
int pf_report_pvs_collect(const struct pf_scan *scan, unsigned flags, struct pf_report_pvs *ret);
void pf_report_pvs_release(struct pf_report_pvs *pvs);

/*
 * What lvm2 says as it matches the PVs of the VG read from d to the devices it scanned:
 * its full scan (full) warns about each PV it did not find, unless the VG is foreign to a
 * host with an ID (host_system_id); any form warns about a PV flagged MISSING it found.
 */
void pf_report_vg_devices(const struct pf_scan_dev *d, const struct pf_report_pvs *pvs,
			  const char *host_system_id, bool full);

/* What becomes of a complete VG's autoactivation, in lvm2's pvscan words. */
enum pf_report_autoactivation {
	PF_REPORT_AA_SKIP,    /* claimed already: another pvscan activates it */
	PF_REPORT_AA_RUN,     /* claimed: activated now */
	PF_REPORT_AA_RECOVER, /* left unfinished by a leader that died: activated now */
	PF_REPORT_AA_FAILED,  /* an error */
};
void pf_report_autoactivation(const struct pf_opts *o, const char *vg,
			      enum pf_report_autoactivation what);

/*
 * A VG activated natively: its lines as lvm2's vgchange prints them, after its LVs (the
 * failure of the VG itself is pf_report_autoactivation()'s).
 */
void pf_report_vg_result(const struct pf_opts *o, const char *vg,
			 const struct pf_activate_result *res);

/* --dry-run: for each LV of vg, what would be loaded, or why not. */
void pf_report_plan(const struct pf_opts *o, const char *vg, const struct pf_activate_result *res);

/* --dry-run: vg is left to lvm2, which would decide. */
void pf_report_plan_lvm2(const struct pf_opts *o, const char *vg);

#endif /* PF_CMD_REPORT_H */
