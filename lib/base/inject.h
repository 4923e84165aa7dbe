/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fault injection at the named steps of the coalescing protocol, so tests can force races
 * and crashes. Only test builds (compiled with PF_FAULT_INJECTION) honour
 * PVSCAN_FAST_INJECT; in the installed binaries pf_inject() does nothing.
 *
 * PVSCAN_FAST_INJECT="STEP:ACTION[,STEP:ACTION...]", STEP a step name or "*" for all:
 *   crash        SIGKILL this process at the step (what kill -9 would do there)
 *   term         SIGTERM this process at the step (what systemd or an admin would send)
 *   delay=MS     sleep MS milliseconds
 *   rand=MS      sleep a random 0..MS milliseconds (seeded by pid and time)
 *   fail=ERRNO   pf_inject_fail() at the step returns -ERRNO (1..4095); pf_inject() ignores it
 * ACTION@PATH acts only where PATH could be created (O_EXCL): once, in one process of many.
 */
#ifndef PF_INJECT_H
#define PF_INJECT_H

#include "base/macro.h"

void pf_inject(const char *step) _nonnull_(1);
/* A system call's failure to force at step: -ERRNO from a fail action, else 0. */
int pf_inject_fail(const char *step) _nonnull_(1) _must_check_;

#endif /* PF_INJECT_H */
