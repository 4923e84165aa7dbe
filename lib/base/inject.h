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
 */
#ifndef PF_INJECT_H
#define PF_INJECT_H

#include "base/macro.h"

void pf_inject(const char *step) _nonnull_(1);

#endif /* PF_INJECT_H */
