/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `pvscan-fast --status`: the boot's story assembled from the record log (records.h), the
 * coalescing queue and the kernel's lock table, and judged: is every VG seen complete and
 * active as autoactivation intends? Device-mapper's answer comes from the caller (the one file
 * that includes libdevmapper is in lib/activate). No device is opened.
 *
 * The records it understands (version 1; every time is the record's):
 *   arrive    dev=M:m seq=N act=0|1          an invocation queued a device
 *   round     items=N full=0|1               a leader round began
 *   dev       dev=M:m name= res= why= pvid= vg= vgid= act=0|1 chosen=
 *             res: read, not-lvm, excluded, failed, timeout, duplicate, gone
 *   pv        vg= pvid= dev=M:m state= why=  a PV lvm2 would not count: foreign, exported,
 *                                            shared, not-used, no-metadata, md-component,
 *                                            duplicate, online-failed
 *   vg        vg= vgid= state=complete|incomplete need=N pvs=N
 *   missing   vg= pvid= hint= size=SECTORS   after an incomplete vg record, one per PV
 *   claim     vg= res=ours|taken              vgs_online/VG created, or there already
 *   activate  vg= how=native|lvm2|recover|degraded|udev   activation began
 *   lv        vg= lv= uuid= res=loaded|active|skipped|failed why=
 *   activated vg= how= res=ok|failed status=N why= active=N
 *   rotated                                   the generation before is records.old
 */
#ifndef PF_STATUS_H
#define PF_STATUS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"
#include "base/span.h"
#include "state/records.h"

/* Caps on what one status holds: far above real hosts, bounded against a junk log. */
#define PF_STATUS_VGS_MAX 65536U
#define PF_STATUS_DEVS_MAX 65536U
#define PF_STATUS_ITEMS_MAX 65536U /* PVs, missing PVs, LVs per VG; queue entries */

enum pf_status_vg_state {
	PF_STATUS_VG_INCOMPLETE,
	PF_STATUS_VG_COMPLETE,
	PF_STATUS_VG_REFUSED, /* lvm2 would not autoactivate it at all: refused says why */
	PF_STATUS_VG_DEGRADED, /* incomplete, and activated so (how "degraded") all the same */
};

struct pf_status_missing {
	char pvid[33];
	char hint[128];		/* the metadata's device hint, "" when it has none */
	uint64_t size_sectors;	/* the metadata's dev_size, 0 when unknown */
};

struct pf_status_lv {
	char name[128];
	char uuid[160];
	char res[16]; /* as recorded: loaded, active, skipped, failed; "" when only seen in dm */
	char why[256];
	bool active; /* device-mapper has it now */
};

struct pf_status_pv {
	char pvid[33];
	unsigned major, minor;
	uint64_t arrived_us;
};

struct pf_status_vg {
	char name[128];
	char id[33];
	enum pf_status_vg_state state;
	char refused[256];
	unsigned need; /* PVs missing at the last incomplete record */
	struct pf_status_pv *pvs;
	size_t n_pvs, cap_pvs;
	struct pf_status_missing *missing;
	size_t n_missing, cap_missing;
	bool act_wanted; /* a device of it asked for autoactivation */
	uint64_t first_arrival_us, last_arrival_us, complete_us;
	uint64_t claim_us;
	uint32_t claim_pid;
	bool claim_taken; /* vgs_online/VG was there already (lvm2, an earlier run) */
	char how[16];	  /* native, lvm2, recover; "" when not begun */
	uint64_t act_begin_us, act_end_us;
	char act_res[16]; /* ok, failed; "" while under way or never */
	int act_status;	  /* lvm2's exit status, -1 when not lvm2's */
	char act_why[256];
	struct pf_status_lv *lvs;
	size_t n_lvs, cap_lvs;
	uint64_t last_us; /* the newest record about it */
	/* degraded activation's own record of it (state/dgrecord.h), when it keeps one */
	bool dg;
	char dg_state[16];
	uint64_t dg_first_seen_us;
	unsigned dg_timeout_sec;
	int dg_lvm_status; /* -1: lvm2 not run */
	char dg_reason[256];
	bool ok;
	char problem[256];
};

struct pf_status_dev {
	unsigned major, minor;
	char name[128];
	char res[16];
	char why[256];
	char pvid[33];
	char chosen[128]; /* duplicate: the device used instead */
	uint64_t t_us;
};

struct pf_status_entry {
	char queue[12]; /* pending, inflight, activate, cookies */
	char name[128];
	uint64_t age_us;
	bool held; /* flock()ed by a live process (a leader keeping its own VG for udev) */
};

struct pf_status {
	struct pf_status_vg *vgs;
	size_t n_vgs, cap_vgs;
	struct pf_status_dev *devs; /* devices read but not used, latest outcome per device */
	size_t n_devs, cap_devs;
	struct pf_status_pv *arrivals; /* arrive records: devno and time, latest per device */
	size_t n_arrivals, cap_arrivals;
	struct pf_status_entry *entries;
	size_t n_entries, cap_entries;
	size_t n_records, n_bad; /* lines read, lines that could not be (torn, junk, newer) */
	bool rotated;		 /* the oldest records are gone */
	uint64_t first_us, last_us;
	uint32_t leader_pid; /* 0: no leader holds the lock */
	bool leftovers;	     /* queue or journal entries nobody is working on */
	bool dm_known, dm_available;
	bool healthy;
};

void pf_status_init(struct pf_status *s) _nonnull_(1);
void pf_status_release(struct pf_status *s);

/* Pure: fold one record in. -ENOMEM, or -E2BIG past a cap (the record is dropped). */
int pf_status_add(struct pf_status *s, const struct pf_records_entry *e) _nonnull_(1, 2);
/* Pure: every line of buf (pf_records_read's), good or not. 0 or -ENOMEM. */
int pf_status_add_log(struct pf_status *s, struct pf_span buf) _nonnull_(1) _must_check_;

/*
 * The queue and journal as they are now: entries and their ages (mtime against now_realtime_us),
 * the leader lock's holder from proc_dir/locks. Reads directory entries and /proc only.
 */
int pf_status_load_queue(struct pf_status *s, const char *run_dir, const char *lock_dir,
			 const char *proc_dir, uint64_t now_realtime_us) _nonnull_(1, 2, 3, 4)
	_must_check_;

/*
 * Degraded activation's records of run_dir (state/dgrecord.h): each VG's deadline, what was
 * decided and lvm2's exit status, joined to the VG of that name. Reads directory entries only.
 */
int pf_status_load_degraded(struct pf_status *s, const char *run_dir) _nonnull_(1, 2)
	_must_check_;

/*
 * What device-mapper has now: the UUIDs and names of its devices (n 0 and available false:
 * no device-mapper, nothing is active). Marks recorded LVs active and adds the LVs of a seen
 * VG that only device-mapper knows (activated by lvm2).
 */
int pf_status_set_dm(struct pf_status *s, bool available, const char *const *uuids,
		     const char *const *names, size_t n) _nonnull_(1) _must_check_;

/* Pure: judge each VG (ok, problem) and the whole (healthy); order VGs newest problem first. */
void pf_status_judge(struct pf_status *s) _nonnull_(1);

#endif /* PF_STATUS_H */
