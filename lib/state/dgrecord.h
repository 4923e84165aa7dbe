/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Degraded activation's records: one small file per VG under
 * <run>/pvscan-fast/degraded/<vg>, saying when the VG's first PV arrived, what its deadline
 * check decided and why, and what lvm2 returned. Written whole or not at all (a temporary
 * file linked or renamed into place); read by the deadline check and by whoever reports on
 * the boot. Every field is bounded; a file that does not parse is skipped, never trusted.
 */
#ifndef PF_DGRECORD_H
#define PF_DGRECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"
#include "format/names.h"

#define PF_DGRECORD_DIR	     "degraded" /* under <run>/pvscan-fast */
#define PF_DGRECORD_FILE_MAX 4096U	/* bytes of one record */
#define PF_DGRECORD_VGS_MAX  65536U	/* records listed */
#define PF_DGRECORD_REASON_MAX 256U	/* bytes of the reason, NUL included */

enum pf_dgrecord_state {
	PF_DGRECORD_WAITING,	/* incomplete, its deadline check is to come */
	PF_DGRECORD_ACTIVATING, /* handed to lvm2 degraded; left so by a checker that died */
	PF_DGRECORD_DEGRADED,	/* lvm2 activated it with --activationmode degraded */
	PF_DGRECORD_FAILED,	/* that lvm2 failed or timed out (lvm_status says how) */
	PF_DGRECORD_REFUSED,	/* past the deadline, nothing could run degraded: left down */
	PF_DGRECORD_COMPLETE,	/* every PV arrived in time: activated as usual */
	PF_DGRECORD_CLAIMED,	/* someone else claimed it (vgs_online) before the deadline */
	_PF_DGRECORD_STATE_MAX,
};

struct pf_dgrecord {
	char vg[PF_NAME_MAX + 1];
	enum pf_dgrecord_state state;
	uint64_t first_seen_ns;	 /* CLOCK_MONOTONIC when its first PV was seen online */
	int64_t first_seen_real; /* the same, seconds since the epoch, for people */
	unsigned timeout_sec;	 /* the deadline it was given: first_seen + timeout */
	int64_t decided_real;	 /* when the check decided (0: not yet) */
	int lvm_status;		 /* lvm2's exit status, -1: not run, 128+N: killed by signal N */
	char reason[PF_DGRECORD_REASON_MAX];
};

/*
 * Note a VG seen incomplete: create its record (WAITING) unless one exists. *ret_created
 * says whether this call created it, i.e. whether its deadline still needs a timer. -EINVAL
 * for a name that is not a valid VG name.
 */
int pf_dgrecord_begin(const char *run_dir, const char *vg, uint64_t first_seen_ns,
		      int64_t first_seen_real, unsigned timeout_sec, bool *ret_created)
	_nonnull_(1, 2, 6) _must_check_;

/* Read vg's record: -ENOENT when there is none, -EBADMSG when it does not parse. */
int pf_dgrecord_read(const char *run_dir, const char *vg, struct pf_dgrecord *ret)
	_nonnull_(1, 2, 3) _must_check_;

/* Replace rec->vg's record with rec, whole. */
int pf_dgrecord_write(const char *run_dir, const struct pf_dgrecord *rec) _nonnull_(1, 2)
	_must_check_;

/*
 * Every record, sorted by VG name; the ones that do not parse are left out. *ret is NULL
 * with *ret_n 0 when there is none (no directory included); free(*ret) when done.
 * This is what a report on the boot shows for degraded VGs.
 */
int pf_dgrecord_list(const char *run_dir, struct pf_dgrecord **ret, size_t *ret_n)
	_nonnull_(1, 2, 3) _must_check_;

/*
 * Take the checks' lock (<run>/pvscan-fast/degraded/.lock, exclusive), so that checks started
 * together (a timer firing twice, the recovery unit beside a timer) run one after the other
 * and each sees what the one before decided. Waits until timeout_ms; returns 0 with *ret_fd
 * (close it to let go), -ETIMEDOUT, -EINTR (termination asked for) or -errno.
 */
int pf_dgrecord_lock(const char *run_dir, unsigned timeout_ms, int *ret_fd) _nonnull_(1, 3)
	_must_check_;

/* Whether any record exists at all (one directory look, nothing parsed). */
bool pf_dgrecord_any(const char *run_dir) _nonnull_(1);

/* The state's name as records and reports spell it ("waiting", "degraded", ...). */
const char *pf_dgrecord_state_name(enum pf_dgrecord_state s) _pure_;

/* Format rec as the file's text into buf; returns the length, or -ENOSPC. Parse it back. */
int pf_dgrecord_format(const struct pf_dgrecord *rec, char *buf, size_t size) _nonnull_(1, 2);
int pf_dgrecord_parse(const char *vg, const char *text, size_t len, struct pf_dgrecord *ret)
	_nonnull_(1, 2, 4) _must_check_;

#endif /* PF_DGRECORD_H */
