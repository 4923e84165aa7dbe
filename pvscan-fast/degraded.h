/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Degraded activation for the command: a deadline per incomplete VG, and its check. */
#ifndef PF_CMD_DEGRADED_H
#define PF_CMD_DEGRADED_H

#include <stddef.h>

#include "base/paths.h"
#include "cmd.h"
#include "config/settings.h"
#include "format/names.h"

/*
 * A leader's pass left these VGs incomplete, with pvscan_fast/degraded_activation on: note
 * each VG's first sighting (lib/state/dgrecord.h), and when that is new, arrange for
 * `--degradedcheck` to run at its deadline with no further uevent: a transient systemd timer,
 * else a process of its own that sleeps until then. With --test only say so.
 */
void pf_cmd_degraded_note(const struct pf_opts *o, const struct pf_paths *paths,
			  const struct pf_settings *st, char (*vgs)[PF_NAME_MAX + 1], size_t n);

/*
 * --degradedcheck: for every VG still waiting, check again (still incomplete, deadline
 * passed, not claimed) and hand it to lvm2 degraded, or record why not; VGs whose deadline is
 * still to come get a timer again. Harmless when run late, early or twice. Exit status 5 when
 * an lvm2 it ran failed.
 */
int pf_cmd_degraded_check(const struct pf_opts *o, const struct pf_paths *paths,
			  const struct pf_settings *st);

#endif /* PF_CMD_DEGRADED_H */
