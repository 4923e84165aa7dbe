/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvscan-fast-engine: what the command execs to do the work (scan, state, activation, dump).
 * It takes the same options; a leader's lock arrives as an inherited descriptor.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "base/stop.h"
#include "cmd.h"

int main(int argc, char **argv)
{
	struct pf_opts o;
	int r;

	r = pf_cmd_parse(argc, argv, false, &o);
	if (r < 0) {
		int e = pf_stop_install();

		if (e < 0) {
			pf_err("  Cannot set up signal handling: %s.", strerror(-e));
			r = PF_EXIT_FAILED;
		}
	}
	if (getenv(PF_DETACHED_ENV))
		pf_log_set_prefix("pvscan-fast: ");
	if (r < 0)
		r = o.dump ? pf_cmd_dump(&o) : o.status ? pf_cmd_status(&o) : pf_cmd_cache(&o);
	pf_cmd_opts_release(&o);
	return r;
}
