/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bounded whole-file and byte-range reads, whole writes, flock with a deadline; EINTR handled. */
#ifndef PF_FILEIO_H
#define PF_FILEIO_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base/macro.h"

/*
 * Read len bytes, fewer only at end of file: from the file position when off
 * is negative, else at off (pread). Returns the count or -errno.
 */
ssize_t pf_read_full(int fd, void *buf, size_t len, int64_t off) _nonnull_(2);

/* Write all of buf at fd's offset, through EINTR and short writes. Returns 0 or -errno. */
int pf_write_full(int fd, const void *buf, size_t len) _nonnull_(2) _must_check_;

/*
 * The whole file at dirfd/path (AT_FDCWD for plain paths), at most cap bytes,
 * NUL-terminated. Returns 0 with *ret and *ret_len, -E2BIG when the file is
 * longer than cap, or -errno (-ENOENT for a missing file is the caller's to judge).
 */
int pf_read_file_at(int dirfd, const char *path, size_t cap, char **ret, size_t *ret_len)
	_nonnull_(2, 4, 5) _must_check_;

/*
 * Close descriptors lo..hi (INT_MAX: all from lo): what a child must do before it execs
 * another program or runs on alone, so that it holds no lock, pipe or device of ours.
 */
void pf_close_fds(int lo, int hi);

/*
 * flock(fd, op) (LOCK_SH or LOCK_EX) by deadline_ns on the monotonic clock (base/clock.h), or
 * with deadline_ns 0 tried once. The wait is the kernel's own (queued as lvm2's waiters are,
 * and seen waiting in /proc/locks), ended by SIGALRM at the deadline (the handler and the
 * real-time interval timer are ours meanwhile) or by a termination request. Returns 0,
 * -EWOULDBLOCK (tried once and held), -ETIMEDOUT (still held at the deadline), -EINTR (a
 * termination was asked for, base/stop.h) or -errno.
 */
int pf_flock_until(int fd, int op, uint64_t deadline_ns) _must_check_;

/* The deadline timeout_ms from now for pf_flock_until(); 0 (try once) for 0. */
uint64_t pf_deadline_after_ms(unsigned timeout_ms);

#endif /* PF_FILEIO_H */
