/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Child processes of the command that are not lvm2's: a helper program run to completion
 * under a deadline (systemd-run), and the step out of the caller into a session of our own
 * that a udev worker needs before long work.
 */
#ifndef PF_CHILD_H
#define PF_CHILD_H

#include <sys/types.h>

/* fork() with our buffered output written first, so that no child writes it again. */
pid_t pf_fork_flushed(void);

/*
 * In a child: stdin and stdout on /dev/null; stderr into err_path when it is given (or on
 * /dev/null when that will not open), else left where it was. Other descriptors stay.
 */
void pf_child_stdio(const char *err_path);

/*
 * Run argv[0] (a path) with stdin and stdout on /dev/null, our stderr, no other descriptor
 * of ours, and the default signal dispositions; it dies with us. Its exit status (128 + the
 * signal when killed), or -ETIMEDOUT once timeout_ms passed and it was killed, or -errno.
 */
int pf_run_bounded(char *const *argv, unsigned timeout_ms);

/*
 * Move into a new session, away from the caller: returns 0 in a grandchild whose stdio is
 * detached as pf_child_stdio(err_path) says and which keeps every other descriptor (a lock
 * among them); returns 1 in the calling process once the step succeeded, -errno when it did
 * not (nobody was left behind then).
 */
int pf_detach(const char *err_path);

#endif /* PF_CHILD_H */
