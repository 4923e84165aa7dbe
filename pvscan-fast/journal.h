/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The engine's messages and records to systemd's journal (libsystemd), when systemd runs. */
#ifndef PF_CMD_JOURNAL_H
#define PF_CMD_JOURNAL_H

#include <stdbool.h>

#include "state/records.h"

/* "0": never to the journal; "1": always (tests); unset: when /run/systemd/system exists. */
#define PF_JOURNAL_ENV "PVSCAN_FAST_JOURNAL"

/*
 * Send the logger's messages (and, with w, every record added to w) to the journal, with
 * SYSLOG_IDENTIFIER=pvscan-fast and the VG=, DEVICE= and PVID= of the step at hand; stderr
 * keeps its copy unless it is the journal already. true when the journal is in use. Without
 * libsystemd's journal API at build time, nothing changes.
 */
bool pf_journal_setup(struct pf_records *w);

#endif /* PF_CMD_JOURNAL_H */
