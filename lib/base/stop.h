/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Termination requests: SIGTERM, SIGINT and SIGHUP set one flag that the long loops look at
 * between steps, so a leader that is told to stop ends its current step, leaves the rest
 * journaled for the next leader and exits, instead of dying in the middle of a device-mapper
 * operation. The flag is the one global a signal handler needs.
 */
#ifndef PF_STOP_H
#define PF_STOP_H

#include <stdbool.h>
#include <sys/types.h>

/*
 * Install the handlers; SIGPIPE is ignored (a reader of our output gone is an EPIPE on the
 * write, not our end) and SIGCHLD set back to the default, as a caller that ignored it would
 * have the kernel reap our children before we learn how they ended.
 */
int pf_stop_install(void);
/* A termination was asked for, and by which signal (0 when none). */
bool pf_stop_requested(void);
int pf_stop_signal(void);
/*
 * In a freshly forked child about to exec another program: the default disposition of every
 * signal pf_stop_install() touched, no blocked signal, and the signal the child gets when
 * the process that forked it dies (Linux's parent-death signal), so no child outlives us.
 * parent is the pid of the process that forked it (getpid() before fork()). -errno or 0.
 */
int pf_stop_child_setup(pid_t parent, int death_signal);

#endif /* PF_STOP_H */
