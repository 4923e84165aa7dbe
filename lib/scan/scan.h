/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One scan: find the candidate devices (all of them, or those named), apply
 * lvm2's filters, read every survivor at once through the async reader, and
 * settle duplicate PVIDs (as lvm2's full scan does; of devices named together, the first
 * named is used). What was found and why anything was left out is
 * kept per device; nothing is printed and no /run/lvm state is written here.
 */
#ifndef PF_SCAN_H
#define PF_SCAN_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/macro.h"
#include "base/paths.h"
#include "device/blockdev.h"
#include "format/probe.h"

struct pf_settings;

enum pf_scan_outcome {
	PF_SCAN_READ,	     /* read; see probe */
	PF_SCAN_NO_DEVICE,   /* a named path or devno that does not exist (devno: removal) */
	PF_SCAN_EXCLUDED,    /* a filter left it out; reason says which, in lvm2's words */
	PF_SCAN_NOT_LVM,     /* read, no LVM2 label */
	PF_SCAN_FAILED,	     /* open or read failed, or timed out; diag says why */
	PF_SCAN_DUPLICATE,   /* same PVID as a device that was preferred; never used */
};

/* A device named on the command line. */
struct pf_scan_arg {
	const char *path; /* NULL for a devno */
	unsigned major, minor;
};

struct pf_scan_dev {
	struct pf_dev dev;
	const char *name; /* what messages call it: the path given, else lvm2's primary name */
	enum pf_scan_outcome outcome;
	char reason[160]; /* PF_SCAN_EXCLUDED / PF_SCAN_DUPLICATE: why, lvm2's wording */
	bool pvid_check;  /* excluded because its PVID is not in a devname devices file */
	int status;	  /* PF_SCAN_FAILED: -errno (-ETIMEDOUT for a device that never answered) */
	bool over_budget; /* PF_SCAN_FAILED (-ENOMEM): read, then dropped: the pass's budget */
	bool reader_lost; /* PF_SCAN_FAILED: the reader process was lost first (io/aio.h) */
	struct pf_diag diag;
	struct pf_probe probe;
	const struct pf_scan_arg *arg; /* the argument that named it, or NULL */
	/* PF_SCAN_DUPLICATE: devs[] index of the device used instead */
	size_t dup_of;
	/* preferred over a duplicate: why, in lvm2's words ("device was seen first") */
	const char *prefer_reason;
};

struct pf_scan {
	struct pf_scan_dev *devs; /* lvm2's order for a full scan (sysfs.h), else argument order */
	size_t n;
	/* statistics, for -v and the benchmark */
	size_t n_candidates, n_read;
	unsigned long long bytes_read;
	unsigned reads;
	bool nofile_limited; /* RLIMIT_NOFILE could not be raised for every device */
	bool named_symlinks; /* devices were named and a filter names symlinks: all of /dev was
				mapped to find their other names (lvm2 says so) */
	bool devfile_used;   /* a devices file decided, so filter and global_filter did not */
	/* msg set: the devices file was read without its lock (held too long, unsafe lock dir) */
	struct pf_diag devfile_unlocked;
	/* Metadata memory: the pass's budget, what the devices kept use of it, and how many
	   devices were dropped because it ran out (over_budget). */
	uint64_t mem_budget_bytes, mem_used_bytes;
	size_t n_over_budget;
	/* devs[] indices of the devices read with a VG, by VG name, then in scan order */
	size_t *by_vgname;
	size_t n_by_vgname;
};

struct pf_scan_opts {
	const struct pf_paths *paths;
	const struct pf_settings *settings;
	const struct pf_scan_arg *args; /* NULL / 0: every device */
	size_t n_args;
	unsigned timeout_ms;		/* per device; 0: settings (default 30 s) */
	unsigned lock_timeout_ms;	/* devices file lock; 0: PF_LVMLOCK_TIMEOUT_MS_DEFAULT */
	const char *devicesfile;	/* --devicesfile: NULL settings, "" none, else a name */
	bool no_aio;			/* read with pread (one device: no aio context to tear down) */
	/* What the devices of the pass may keep of their metadata; 0: pf_scan_default_budget() */
	uint64_t mem_budget_bytes;
	/*
	 * A full scan started by udev events (lvm2 reads only the devices its rule ran for): while
	 * udev runs, leave out the devices it has not processed yet (their own events come later)
	 * and those it marked for lvm2's rule to skip (udevdb.h), but never one of announced,
	 * which events named.
	 */
	bool udev_announced_only;
	const struct pf_scan_arg *announced;
	size_t n_announced;
};

/*
 * The metadata kept across one pass (each device's first sectors, parsed VG copies) is
 * capped, so that many devices at their per-PV caps cannot take the leader's memory: past
 * the budget, devices in scan order are dropped as PF_SCAN_FAILED with over_budget set.
 */
#define PF_SCAN_BUDGET_MAX ((uint64_t)4 << 30)
uint64_t pf_scan_default_budget(void);

int pf_scan_run(const struct pf_scan_opts *o, struct pf_scan *ret) _nonnull_(1, 2) _must_check_;
void pf_scan_release(struct pf_scan *s);
/*
 * The VG each device of s carries, in scan order: (*ret)[i] for s->devs[i], NULL where the
 * device was not read as a PV with metadata. Borrowed from s; free() the array.
 */
int pf_scan_vgs(const struct pf_scan *s, const struct pf_vg ***ret) _nonnull_(1, 2) _must_check_;
/*
 * The VG named name (and with UUID id, unless id is "") on the first device in scan order
 * that still carries it as read, or NULL.
 */
const struct pf_vg *pf_scan_find_vg(const struct pf_scan *s, const char *name, const char *id)
	_nonnull_(1, 2, 3);

#endif /* PF_SCAN_H */
