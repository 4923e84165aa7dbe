/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the command's sub-modes share: parsed options and their entry points. */
#ifndef PF_CMD_H
#define PF_CMD_H

#include <stdbool.h>

/* lvm2's exit codes, so scripts written for pvscan keep working. */
#define PF_EXIT_OK 0
#define PF_EXIT_USAGE 3	 /* EINVALID_CMD_LINE */
#define PF_EXIT_FAILED 5 /* ECMD_FAILED */

struct pf_opts {
	bool dump;
	bool json;
	int verbose; /* -v count minus -q count */
	char **devices;
	int n_devices;
};

int pf_cmd_dump(const struct pf_opts *o);

#endif /* PF_CMD_H */
