/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvscan's online phase: for each scanned PV, the decisions lvm2 2.03.16's
 * `pvscan --cache` makes (not used, no metadata, shared, foreign, exported,
 * online, VG complete or not, list VG/LVs) and the /run/lvm state it writes.
 * Decisions come back as events in lvm2's terms; the command prints them.
 */
#ifndef PF_PVCACHE_H
#define PF_PVCACHE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/macro.h"
#include "format/label.h"
#include "format/names.h"
#include "format/probe.h"

enum pf_pvcache_flags {
	PF_PVCACHE_CACHE = 1U << 0,	    /* --cache: write online files */
	PF_PVCACHE_ACTIVATE = 1U << 1,	    /* -aay */
	PF_PVCACHE_LIST_VG = 1U << 2,	    /* --listvg */
	PF_PVCACHE_LIST_LVS = 1U << 3,	    /* --listlvs */
	PF_PVCACHE_CHECK_COMPLETE = 1U << 4, /* --checkcomplete */
	PF_PVCACHE_VG_ONLINE = 1U << 5,	    /* --vgonline */
	PF_PVCACHE_ALL = 1U << 6,	    /* no device arguments: every device */
	/*
	 * lvm2's full scan (lvmcache's extra md checks) drops a PV found on an
	 * md member before pvscan sees it, silently, when its device hint is
	 * /dev/md* (DROP_HINT: md_component_detection), or when only its size
	 * differs (DROP_SIZE: also md_component_checks other than "start").
	 */
	PF_PVCACHE_MD_DROP_HINT = 1U << 7,
	PF_PVCACHE_MD_DROP_SIZE = 1U << 8,
};

enum pf_event_kind {
	PF_EV_NO_LVM_INFO,	     /* label found but failed its checks (device arguments only) */
	PF_EV_NOT_USED,		     /* orphan PV (extension >= 2, PV_EXT_USED clear) */
	PF_EV_NO_METADATA,	     /* no usable metadata on this PV */
	PF_EV_NOT_IN_VG,	     /* its metadata does not list it */
	PF_EV_MD_COMPONENT,	     /* "ignore md component X.": md superblock at the end */
	PF_EV_SHARED,		     /* lock_type sanlock/dlm/idm */
	PF_EV_FOREIGN,		     /* system_id differs from the host's */
	PF_EV_EXPORTED,		     /* VG exported */
	PF_EV_DUPLICATE,	     /* error: pvs_online/<pvid> names another devno */
	PF_EV_ONLINE_FAILED,	     /* error: could not create the online file (err: why) */
	PF_EV_ONLINE_WRITE_FAILED,   /* its content not written (err): online all the same */
	PF_EV_LOOKUP_WRITE_FAILED,   /* pvs_lookup/<vg> left empty (err): one per PVID listed */
	PF_EV_ONLINE,		     /* "PV X online." */
	PF_EV_COMPLETE_AFTER_RECHECK,
	PF_EV_VG_UNKNOWN,	     /* "PV X online, VG unknown." */
	PF_EV_VG_INCOMPLETE,	     /* "... incomplete (need N)." */
	PF_EV_VG_COMPLETE,	     /* "... is complete." */
	PF_EV_LIST_VG_UNKNOWN,	     /* "VG unknown" */
	PF_EV_LIST_VG,		     /* "VG name" */
	PF_EV_LIST_VG_FINISHED,	     /* "VG name finished" */
	PF_EV_LIST_VG_COMPLETE,	     /* "VG name complete" (udev: LVM_VG_NAME_COMPLETE) */
	PF_EV_LIST_VG_INCOMPLETE,    /* "VG name incomplete" (udev: LVM_VG_NAME_INCOMPLETE) */
	PF_EV_LIST_LVS_NO_METADATA,  /* "Cannot list LVs from device without metadata." */
	PF_EV_LIST_LVS_NOT_FOUND,    /* "Failed to find LVs using X.": no online file names it */
	PF_EV_LIST_LV,		     /* "LV vg/lv", lv_state says complete/incomplete/neither */
};

enum pf_lv_state {
	PF_LV_STATE_NONE,
	PF_LV_STATE_COMPLETE,
	PF_LV_STATE_INCOMPLETE,
};

struct pf_event {
	enum pf_event_kind kind;
	const char *dev; /* the device name as the caller gave it; borrowed */
	char vg[PF_NAME_MAX + 1];
	char lv[PF_NAME_MAX + 1];
	unsigned need; /* PVs still missing */
	enum pf_lv_state lv_state;
	/* PF_EV_DUPLICATE: this device and the one already online for the PVID */
	unsigned major, minor, other_major, other_minor;
	char other_dev[PF_NAME_MAX + 1];
	char pvid[PF_ID_LEN + 1];
	/* the *_FAILED kinds: the errno (negative) and the run dir holding the file; borrowed */
	int err;
	const char *run_dir;
};

/* Caps: events per invocation and VGs found complete, far above real hosts. */
#define PF_PVCACHE_EVENTS_MAX (1U << 20)

struct pf_pvcache {
	/* inputs */
	const char *run_dir;
	unsigned flags;
	const char *host_system_id; /* NULL or "" when the host has none */
	/* outputs */
	struct pf_event *events;
	size_t n_events, cap_events;
	char (*complete_vgs)[PF_NAME_MAX + 1]; /* VGs this run found complete, in order */
	size_t n_complete, cap_complete;
	unsigned pv_count; /* PVs seen (lvm2 invalidates hints when > 0) */
	bool failed;	   /* an online file could not be written: exit 5 */
};

void pf_pvcache_init(struct pf_pvcache *ps, const char *run_dir, unsigned flags,
		    const char *host_system_id) _nonnull_(1, 2);
void pf_pvcache_release(struct pf_pvcache *ps);

/*
 * One device with a label (probe->label_status is 0 or -EBADMSG): decide as
 * lvm2 does, write its state, append events. dev is the name lvm2 would print.
 * Returns 0, or -ENOMEM / an I/O error on the run dir.
 */
int pf_pvcache_device(struct pf_pvcache *ps, const char *dev, unsigned major, unsigned minor,
		     const struct pf_probe *probe) _nonnull_(1, 2, 5) _must_check_;

/*
 * Whether lvm2's full scan never gets to this device: an md member its extra
 * md checks drop (see PF_PVCACHE_MD_DROP_*, flags as for pf_pvcache_device with
 * PF_PVCACHE_ALL). Its PV is then unknown to lvm2, as if not scanned.
 */
bool pf_pvcache_md_dropped(unsigned flags, const struct pf_probe *probe) _nonnull_(2) _pure_;

#endif /* PF_PVCACHE_H */
