/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A lock held by another process for as long as a test wants: a hung lvm command's stand-in. */
#ifndef PF_TEST_LOCKHOLD_H
#define PF_TEST_LOCKHOLD_H

#include <sys/types.h>

/*
 * A child opens path (creating it) and flock()s it with op, then holds it until the returned
 * descriptor is given to lock_let_go(). Returns once the lock is held.
 */
pid_t lock_hold(const char *path, int op, int *ret_release);
/* The holder lets go and exits; checked to have held the lock all along. */
void lock_let_go(pid_t pid, int release);

#endif /* PF_TEST_LOCKHOLD_H */
