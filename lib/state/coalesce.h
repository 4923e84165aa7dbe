/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Coalescing: N concurrent invocations cost about one scan. Owns the leader lock, the pending
 * queue every invocation records its devices in, the in-flight set a leader works on, the
 * journal of VG activations under way, and the record of what was read when. The protocol
 * and the argument why no device is lost are in docs/design.md.
 *
 * Files, under <run>/pvscan-fast/ (mode 0700) and <lock>/:
 *   pending/M:m,F,S    a device to read: F "a" (activation wanted) or "-", S the udev
 *                      event's SEQNUM or 0; empty files, so an entry exists whole or not at all
 *   inflight/M:m,F,S   entries a leader took; a dead leader's are taken again by the next
 *   activate/VG        a VG being activated; a dead leader's are activated by the next (one
 *                      whose owner lives holds its flock)
 *   cookies/N          a udev cookie (a SysV semaphore) a batch of activations waits on; a
 *                      dead leader's are released by the next, so none is left behind
 *   scanned            what was read and at which uevent seqnum; absent until the first full
 *                      scan since boot (or after an admin's full scan started) completed
 *   <lock>/pvscan-fast.leader   flock()ed by the leader; the kernel drops it when it dies
 *
 * The follower path (pf_coalesce_open, _record, _trylock) touches only these files: no
 * device, no sysfs, no configuration, so the command can run it before loading anything else.
 */
#ifndef PF_COALESCE_H
#define PF_COALESCE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"

#define PF_COALESCE_DIR "pvscan-fast"
#define PF_COALESCE_LOCK "pvscan-fast.leader"
/* Entries taken in one round; more wait for the next. Devices noted in the scanned record. */
#define PF_COALESCE_TAKE_MAX 65536U
#define PF_COALESCE_SCANNED_MAX 1048576U
/* How long a caller waits for the leader lock: past any real leader's work, yet not for ever. */
#define PF_COALESCE_LOCK_TIMEOUT_MS_DEFAULT (10U * 60U * 1000U)

enum pf_pending_flags {
	PF_PENDING_ACTIVATE = 1U << 0, /* the event asked for autoactivation (-aay, --vgonline) */
};

/* One device to read, merged from every entry for its devno. */
struct pf_pending {
	unsigned major, minor;
	unsigned flags;		   /* PF_PENDING_* of every entry, or'ed */
	unsigned long long seqnum; /* the newest entry's SEQNUM; 0 if any had none */
	bool covered; /* read after every entry's event, with these flags: no need to again */
};

struct pf_scanned {
	unsigned major, minor;
	unsigned flags;		   /* PF_PENDING_* the read was made with */
	unsigned long long seqnum; /* /sys/kernel/uevent_seqnum before the read */
};

struct pf_coalesce {
	int dir_fd, pending_fd, inflight_fd, activate_fd, cookies_fd; /* -1 until opened */
	int lock_fd;					   /* -1 unless we hold the lock */
	int held_fd; /* flock on the activate/ entry we keep past the leader lock, or -1 */
	char held_vg[128];
	char *lock_path;
	char *sys_dir; /* for /sys/kernel/uevent_seqnum */
	/* leader only */
	struct pf_scanned *scanned;
	size_t n_scanned, cap_scanned;
	bool have_scanned; /* the scanned record exists: a full scan completed since boot */
	unsigned long long round_seqnum;
	char (*taken)[64]; /* inflight entry names of this round */
	size_t n_taken, cap_taken;
};

/*
 * Open (creating where missing) <run>/pvscan-fast and its queues; remember the lock path.
 * sys_dir may be NULL on the follower path.
 */
int pf_coalesce_open(const char *run_dir, const char *lock_dir, const char *sys_dir,
		     struct pf_coalesce *ret) _nonnull_(1, 2, 4) _must_check_;
void pf_coalesce_close(struct pf_coalesce *c);

/* Record a device in the pending queue (idempotent for the same name). */
int pf_coalesce_record(struct pf_coalesce *c, unsigned major, unsigned minor, unsigned flags,
		       unsigned long long seqnum) _nonnull_(1) _must_check_;

/* Take the leader lock without waiting: 0, -EWOULDBLOCK when someone leads, or -errno. */
int pf_coalesce_trylock(struct pf_coalesce *c) _nonnull_(1) _must_check_;
/*
 * Wait at most timeout_ms for the leader lock (an admin's full scan, a detached leader):
 * -ETIMEDOUT when it is still held then (0: PF_COALESCE_LOCK_TIMEOUT_MS_DEFAULT). Both forms
 * refuse (-EPERM, said on stderr) a lock directory or file another user could hold or replace
 * (pf_paths_check_lock()).
 */
int pf_coalesce_lock(struct pf_coalesce *c, unsigned timeout_ms) _nonnull_(1) _must_check_;
/*
 * Adopt the lock a parent took and passed across exec as descriptor fd: it must be open on
 * the lock file and lockable by us (flock locks belong to the open file, which we share).
 */
int pf_coalesce_adopt_lock(struct pf_coalesce *c, int fd) _nonnull_(1) _must_check_;
/* The descriptor to pass to an exec'ed leader: the lock without FD_CLOEXEC. */
int pf_coalesce_lock_fd_for_exec(struct pf_coalesce *c) _nonnull_(1) _must_check_;
void pf_coalesce_unlock(struct pf_coalesce *c) _nonnull_(1);

/* Any pending entry? (after unlocking: one that slipped in must not wait for the next event) */
bool pf_coalesce_has_pending(struct pf_coalesce *c) _nonnull_(1);

/*
 * Did a leader that died leave work behind in run_dir? Queued or in-flight entries, a
 * journaled activation, or no completed full scan since the queue was first used. Creates
 * nothing and takes no lock: *ret false when the queue was never used.
 */
int pf_coalesce_leftovers(const char *run_dir, bool *ret) _nonnull_(1, 2) _must_check_;

/* What a leader round is given and reports back. */
struct pf_coalesce_round {
	const struct pf_pending *items; /* devno order */
	size_t n;
	bool full; /* read every device: the first leader since boot, or an admin's full scan */
	bool first; /* the leader's first round (the one with its own devices) */
};

struct pf_coalesce_ops {
	/*
	 * Read the round's devices (all of them when full), write their state, activate: for
	 * each device read call pf_coalesce_note_read(), for each gone pf_coalesce_note_gone().
	 * A negative return ends the leader's work with that error after releasing the lock;
	 * what was taken stays in flight for the next leader.
	 */
	int (*round)(void *ctx, struct pf_coalesce *c, const struct pf_coalesce_round *r);
	/* Activate a VG a dead leader left journaled (it was found complete then). */
	int (*recover_vg)(void *ctx, struct pf_coalesce *c, const char *vgname);
	/* Count off and remove a udev cookie a dead leader left (libdevmapper's semaphore). */
	void (*release_cookie)(void *ctx, uint32_t cookie);
};

/*
 * The leader's work, the lock held (taken, adopted or waited for): recover a dead leader's
 * activations, then rounds until the queue is empty, the first one full when full_first or
 * no full scan completed since boot; release; look once more, and lead again if an entry
 * slipped in and nobody else took the lock. full_first also forgets the scanned record before
 * anything else, so a leader killed in the middle leaves the next one a full scan to do.
 */
int pf_coalesce_lead(struct pf_coalesce *c, bool full_first, const struct pf_coalesce_ops *ops,
		     void *ctx) _nonnull_(1, 3) _must_check_;

/* From a round: the device was read, with these PF_PENDING_* flags. */
int pf_coalesce_note_read(struct pf_coalesce *c, unsigned major, unsigned minor, unsigned flags)
	_nonnull_(1) _must_check_;
/* From a round: the device no longer exists. */
void pf_coalesce_note_gone(struct pf_coalesce *c, unsigned major, unsigned minor) _nonnull_(1);

/* The activation journal: begin before claiming vgs_online/VG, end once activated. */
int pf_coalesce_activation_begin(struct pf_coalesce *c, const char *vgname) _nonnull_(1, 2)
	_must_check_;
void pf_coalesce_activation_end(struct pf_coalesce *c, const char *vgname) _nonnull_(1, 2);
/*
 * Keep a begun entry past the leader lock (one at a time): its flock tells a later leader's
 * recovery that we are alive and will end it (the udev form leaves its own VG to the rule,
 * which sees our line only once we exit). If we die first, the kernel drops the flock and
 * the next leader activates the VG.
 */
int pf_coalesce_activation_hold(struct pf_coalesce *c, const char *vgname) _nonnull_(1, 2)
	_must_check_;

/*
 * Journal a batch's udev cookie once libdevmapper made it, and end the entry once it was
 * waited for: a leader killed between the two leaves it to the next (pf_coalesce_ops).
 */
int pf_coalesce_cookie_begin(struct pf_coalesce *c, uint32_t cookie) _nonnull_(1) _must_check_;
void pf_coalesce_cookie_end(struct pf_coalesce *c, uint32_t cookie) _nonnull_(1);

/* Pure, for tests: parse a queue entry name. 0 or -EINVAL. */
int pf_coalesce_parse_entry(const char *name, unsigned *ret_major, unsigned *ret_minor,
			    unsigned *ret_flags, unsigned long long *ret_seqnum)
	_nonnull_(1, 2, 3, 4, 5) _must_check_;
/* Pure, for tests: the entry name for a device (buf of at least 64 bytes). */
void pf_coalesce_format_entry(char *buf, size_t size, unsigned major, unsigned minor,
			      unsigned flags, unsigned long long seqnum) _nonnull_(1);

#endif /* PF_COALESCE_H */
