/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which devices a reader process is still stuck on, remembered across scans. */
#ifndef PF_STUCK_H
#define PF_STUCK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"

/*
 * A read that never returns leaves its reader process behind (reader.h), holding
 * the device, an aio context (a share of fs/aio-max-nr) and its memory until the
 * kernel lets the read go. A scan that read the device again would leave one more
 * such process each time, so each scan's reader holds a locked file here (under
 * the run directory) listing the devices it gave up on; the lock goes with the
 * reader, and while it is held later scans leave those devices alone.
 */
#define PF_STUCK_SUBDIR "pvscan-fast/readers"

/* malloc'ed: the directory for run_dir (NULL on ENOMEM). */
char *pf_stuck_dir(const char *run_dir) _nonnull_(1);

/* A device: block devices by number (any of their names), anything else by inode. */
struct pf_stuck_key {
	bool blk;
	uint64_t a, b; /* major, minor; or st_dev, st_ino */
	int64_t since; /* when a reader gave up on it (seconds, CLOCK_REALTIME); 0 unknown */
};

/* The key of what path names (stat(2), following links). */
int pf_stuck_key_of(const char *path, struct pf_stuck_key *ret) _nonnull_(1, 2) _must_check_;

/*
 * The devices live readers are stuck on, from the files in dir; the files of
 * readers that are gone are removed. A missing dir is no device. Free *ret.
 */
int pf_stuck_load(const char *dir, struct pf_stuck_key **ret, size_t *ret_n)
    _nonnull_(1, 2, 3) _must_check_;

/* The entry of keys that names the same device as k, or NULL. */
const struct pf_stuck_key *pf_stuck_find(const struct pf_stuck_key *keys, size_t n,
					 const struct pf_stuck_key *k) _nonnull_(3);

/* One scan's file: made and locked before its reader starts, which inherits fd. */
struct pf_stuck_file {
	int fd;
	char *path;
	size_t n_noted;
};

/* Makes dir (and its parents) as needed. */
int pf_stuck_begin(const char *dir, struct pf_stuck_file *ret) _nonnull_(1, 2) _must_check_;
int pf_stuck_note(struct pf_stuck_file *f, const struct pf_stuck_key *k)
    _nonnull_(1, 2) _must_check_;
/* Lets this process's copy go; the file goes too when nothing was noted. */
void pf_stuck_end(struct pf_stuck_file *f);

#endif /* PF_STUCK_H */
