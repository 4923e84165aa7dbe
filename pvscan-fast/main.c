/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pvscan-fast: option parsing and dispatch; the work is done by lib/. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd.h"
#include "log.h"

enum {
	OPT_DUMP = 0x100,
	OPT_JSON,
};

static const struct option long_options[] = {
	{ "dump", no_argument, NULL, OPT_DUMP },
	{ "json", no_argument, NULL, OPT_JSON },
	{ "verbose", no_argument, NULL, 'v' },
	{ "quiet", no_argument, NULL, 'q' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static void usage(FILE *f)
{
	(void)fputs("Usage: pvscan-fast --dump [--json] DEVICE...\n"
		    "\n"
		    "Read LVM2 physical volumes exactly as lvm2 does.\n"
		    "\n"
		    "  --dump           show what is on each DEVICE (block device or image file):\n"
		    "                   label, PV header, metadata areas, and the VG they describe,\n"
		    "                   or exactly which check failed and at which byte offset\n"
		    "  --json           with --dump: machine-readable output using lvm2 report field names\n"
		    "  -v, --verbose    more detail (repeat for debug output)\n"
		    "  -q, --quiet      fewer messages\n"
		    "  -h, --help       show this help\n"
		    "  -V, --version    show the version\n"
		    "\n"
		    "Exit status: 0 every device read cleanly, 3 usage error,\n"
		    "5 a device is not a PV or failed a check.\n",
		    f);
}

int main(int argc, char **argv)
{
	struct pf_opts o = { 0 };
	int c;

	pf_log_set_prefix("pvscan-fast: ");
	while ((c = getopt_long(argc, argv, "vqhV", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_DUMP:
			o.dump = true;
			break;
		case OPT_JSON:
			o.json = true;
			break;
		case 'v':
			o.verbose++;
			break;
		case 'q':
			o.verbose--;
			break;
		case 'h':
			usage(stdout);
			return PF_EXIT_OK;
		case 'V':
			(void)printf("pvscan-fast %s\n", PACKAGE_VERSION);
			return PF_EXIT_OK;
		default:
			usage(stderr);
			return PF_EXIT_USAGE;
		}
	}
	if (o.verbose > 0)
		pf_log_set_level(o.verbose > 1 ? PF_LOG_DEBUG : PF_LOG_INFO);
	else if (o.verbose < 0)
		pf_log_set_level(o.verbose < -1 ? PF_LOG_ERR : PF_LOG_WARN);
	if (getenv("PVSCAN_FAST_DEBUG"))
		pf_log_set_level(PF_LOG_DEBUG);

	o.devices = argv + optind;
	o.n_devices = argc - optind;
	if (o.json && !o.dump) {
		pf_err("--json is only valid with --dump");
		return PF_EXIT_USAGE;
	}
	if (!o.dump) {
		pf_err("nothing to do: give --dump (other modes come with later releases)");
		usage(stderr);
		return PF_EXIT_USAGE;
	}
	if (o.n_devices == 0) {
		pf_err("--dump needs at least one DEVICE");
		return PF_EXIT_USAGE;
	}
	return pf_cmd_dump(&o);
}
