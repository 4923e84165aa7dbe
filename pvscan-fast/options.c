/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Option parsing with pvscan's command forms, shared by the command and its engine. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/log.h"
#include "base/strutil.h"
#include "cmd.h"
#include "state/coalesce.h"

/*
 * Every option pvscan's --cache forms accept, in lvm2's args.h order, so
 * validation reports the same option first as lvm2 does.
 */
enum opt {
	O_AUTOACTIVATION,
	O_CACHE,
	O_COMMANDPROFILE,
	O_CONFIG,
	O_DEVICES,
	O_DEVICESFILE,
	O_DRIVERLOADED,
	O_IGNORELOCKINGFAILURE,
	O_JOURNAL,
	O_LISTLVS,
	O_LISTVG,
	O_CHECKCOMPLETE,
	O_LOCKOPT,
	O_LONGHELP,
	O_MINOR,
	O_NOHINTS,
	O_NOLOCKING,
	O_NOUDEVSYNC,
	O_PROFILE,
	O_REPORTFORMAT,
	O_UDEVOUTPUT,
	O_VERSION,
	O_VGONLINE,
	O_ACTIVATE,
	O_BACKGROUND,
	O_DEBUG,
	O_HELP,
	O_MAJOR,
	O_QUIET,
	O_TEST,
	O_VERBOSE,
	O_YES,
	/* pvscan-fast's own */
	O_DUMP,
	O_JSON,
	O_TIMEOUT,
	O_NOCOALESCE,
	O_DRYRUN,
	O_RECOVER,
	O_STATUS,
	O_DEGRADEDCHECK,
	_O_MAX,
};

#define BIT(o) (1ULL << (o))

/* Accepted by every form, as in lvm2. */
#define COMMON                                                                                     \
	(BIT(O_COMMANDPROFILE) | BIT(O_CONFIG) | BIT(O_DEBUG) | BIT(O_DRIVERLOADED) |              \
	 BIT(O_HELP) | BIT(O_LONGHELP) | BIT(O_NOLOCKING) | BIT(O_LOCKOPT) | BIT(O_PROFILE) |      \
	 BIT(O_QUIET) | BIT(O_VERBOSE) | BIT(O_VERSION) | BIT(O_YES) | BIT(O_TEST) |               \
	 BIT(O_DEVICESFILE) | BIT(O_DEVICES) | BIT(O_NOHINTS) | BIT(O_JOURNAL) | BIT(O_TIMEOUT) | \
	 BIT(O_NOCOALESCE) | BIT(O_DRYRUN))

/* pvscan's --cache command definitions (lvm2 command-lines.in), in lvm2's order. */
static const struct form {
	uint64_t required;
	bool needs_pv; /* exactly one PV argument */
	uint64_t optional;
} forms[] = {
	{ BIT(O_CACHE), false,
	  BIT(O_IGNORELOCKINGFAILURE) | BIT(O_REPORTFORMAT) | BIT(O_MAJOR) | BIT(O_MINOR) |
		  BIT(O_NOUDEVSYNC) | BIT(O_BACKGROUND) },
	{ BIT(O_CACHE) | BIT(O_ACTIVATE), false,
	  BIT(O_IGNORELOCKINGFAILURE) | BIT(O_REPORTFORMAT) | BIT(O_MAJOR) | BIT(O_MINOR) |
		  BIT(O_NOUDEVSYNC) | BIT(O_AUTOACTIVATION) | BIT(O_BACKGROUND) | BIT(O_RECOVER) |
		  BIT(O_DEGRADEDCHECK) },
	{ BIT(O_CACHE) | BIT(O_LISTVG), true,
	  BIT(O_IGNORELOCKINGFAILURE) | BIT(O_CHECKCOMPLETE) | BIT(O_VGONLINE) | BIT(O_UDEVOUTPUT) |
		  BIT(O_AUTOACTIVATION) },
	{ BIT(O_CACHE) | BIT(O_LISTLVS), true,
	  BIT(O_IGNORELOCKINGFAILURE) | BIT(O_CHECKCOMPLETE) | BIT(O_VGONLINE) },
	{ BIT(O_LISTLVS), true, 0 },
	{ BIT(O_LISTVG), true, 0 },
	{ BIT(O_DUMP), false, BIT(O_JSON) },
	{ BIT(O_STATUS), false, BIT(O_JSON) },
};

static const struct option long_options[] = {
	{ "autoactivation", required_argument, NULL, O_AUTOACTIVATION },
	{ "cache", no_argument, NULL, O_CACHE },
	{ "commandprofile", required_argument, NULL, O_COMMANDPROFILE },
	{ "config", required_argument, NULL, O_CONFIG },
	{ "devices", required_argument, NULL, O_DEVICES },
	{ "devicesfile", required_argument, NULL, O_DEVICESFILE },
	{ "driverloaded", required_argument, NULL, O_DRIVERLOADED },
	{ "ignorelockingfailure", no_argument, NULL, O_IGNORELOCKINGFAILURE },
	{ "journal", required_argument, NULL, O_JOURNAL },
	{ "listlvs", no_argument, NULL, O_LISTLVS },
	{ "listvg", no_argument, NULL, O_LISTVG },
	{ "checkcomplete", no_argument, NULL, O_CHECKCOMPLETE },
	{ "lockopt", required_argument, NULL, O_LOCKOPT },
	{ "longhelp", no_argument, NULL, O_LONGHELP },
	{ "minor", required_argument, NULL, O_MINOR },
	{ "nohints", no_argument, NULL, O_NOHINTS },
	{ "nolocking", no_argument, NULL, O_NOLOCKING },
	{ "noudevsync", no_argument, NULL, O_NOUDEVSYNC },
	{ "profile", required_argument, NULL, O_PROFILE },
	{ "reportformat", required_argument, NULL, O_REPORTFORMAT },
	{ "udevoutput", no_argument, NULL, O_UDEVOUTPUT },
	{ "version", no_argument, NULL, O_VERSION },
	{ "vgonline", no_argument, NULL, O_VGONLINE },
	{ "activate", required_argument, NULL, O_ACTIVATE },
	{ "background", no_argument, NULL, O_BACKGROUND },
	{ "debug", no_argument, NULL, O_DEBUG },
	{ "help", no_argument, NULL, O_HELP },
	{ "major", required_argument, NULL, O_MAJOR },
	{ "quiet", no_argument, NULL, O_QUIET },
	{ "test", no_argument, NULL, O_TEST },
	{ "verbose", no_argument, NULL, O_VERBOSE },
	{ "yes", no_argument, NULL, O_YES },
	{ "dump", no_argument, NULL, O_DUMP },
	{ "json", no_argument, NULL, O_JSON },
	{ "timeout", required_argument, NULL, O_TIMEOUT },
	{ "nocoalesce", no_argument, NULL, O_NOCOALESCE },
	{ "dryrun", no_argument, NULL, O_DRYRUN }, /* --dry-run: lvm2 drops the hyphens */
	{ "recover", no_argument, NULL, O_RECOVER },
	{ "status", no_argument, NULL, O_STATUS },
	{ "degradedcheck", no_argument, NULL, O_DEGRADEDCHECK },
	{ NULL, 0, NULL, 0 },
};

/* Caps on repeated arguments: a udev rule passes one device; admins a handful. */
#define CONFIG_ARGS_MAX 64U
_Static_assert(PF_CMD_PASSED_ARGS_MAX >= 2 * CONFIG_ARGS_MAX + 4, "room for what is passed");
#define MAJOR_ARGS_MAX 4096U

struct parse {
	uint64_t given;
	const char *value[_O_MAX]; /* last value given, for messages */
	long majors[MAJOR_ARGS_MAX], minors[MAJOR_ARGS_MAX];
	size_t n_majors, n_minors;
	bool quiet; /* getopt says nothing either */
};

static void usage(FILE *f)
{
	(void)fputs(
		"Usage:\n"
		"  pvscan-fast --cache [--activate ay [--autoactivation event]]\n"
		"              [DEVICE|MAJ:MIN ...] [--major M --minor m ...]\n"
		"  pvscan-fast --cache --listvg [--checkcomplete [--vgonline]] [--udevoutput]\n"
		"              [--autoactivation event] DEVICE\n"
		"  pvscan-fast --cache --listlvs [--checkcomplete [--vgonline]] DEVICE\n"
		"  pvscan-fast --listvg DEVICE | --listlvs DEVICE\n"
		"  pvscan-fast --dump [--json] DEVICE...\n"
		"  pvscan-fast --status [--json]\n"
		"\n"
		"Record LVM2 physical volumes online in /run/lvm exactly as lvm2's\n"
		"'pvscan --cache' does, reading every device at once.\n"
		"\n"
		"  --cache             record PVs online (all devices without arguments)\n"
		"  -a, --activate ay   check VG completeness and autoactivate complete VGs\n"
		"  --autoactivation event  the call comes from a udev event\n"
		"  -j, --major M, --minor m  a device by number (repeatable pairs)\n"
		"  --listvg            print the VG of DEVICE\n"
		"  --listlvs           print the LVs using DEVICE\n"
		"  --checkcomplete     with --listvg/--listlvs: say whether the VG is complete\n"
		"  --vgonline          with --checkcomplete: claim the VG for activation once\n"
		"  --udevoutput        print only udev KEY='value' lines\n"
		"  --journal output    accepted for lvm2 compatibility\n"
		"  --config STRING     lvm.conf settings overriding the files\n"
		"  --devicesfile NAME  use this devices file (\"\" disables it)\n"
		"  --timeout SECONDS   give up on a device that does not answer (default 30)\n"
		"  --nocoalesce        act alone, as lvm2's pvscan: no queue, no leader lock\n"
		"  --recover           with --cache --activate ay: finish what a leader that died\n"
		"                      left undone, and nothing else (nothing left: exit at once)\n"
		"  --degradedcheck     with --cache --activate ay: activate in lvm2's degraded\n"
		"                      mode the VGs still incomplete at their deadline\n"
		"                      (pvscan_fast/degraded_activation in lvm.conf)\n"
		"  -b, --background    a leader goes on outside its caller (udev's worker):\n"
		"                      as a systemd service, or in its own session\n"
		"  --driverloaded n    no device-mapper calls: lvm2 activates every VG\n"
		"  --dump              show what is on each DEVICE and why (no state written)\n"
		"  --status            every VG seen since boot: complete, activated, active\n"
		"                      now, and why not; exit 0 only when all are (no device I/O)\n"
		"  --json              with --dump or --status: machine-readable output\n"
		"  -v, --verbose       more messages (repeat for debug output)\n"
		"  -q, --quiet         fewer messages\n"
		"  -d, --debug         debug messages\n"
		"  -t, --test, --dry-run  change nothing: print for each LV the device-mapper\n"
		"                      name, UUID and table it would load, or why not\n"
		"  -h, --help, --longhelp  show this help\n"
		"  --version           show the version\n"
		"\n"
		"\n"
		"Accepted and ignored for lvm2 compatibility: --commandprofile, --profile,\n"
		"--nolocking, --lockopt, --ignorelockingfailure, --noudevsync,\n"
		"--reportformat, --nohints, --devices, -y/--yes.\n"
		"\n"
		"Exit status: 0 success (including nothing to do), 3 usage error,\n"
		"4 configuration not loadable, 5 failure (a device could not be\n"
		"recorded, --dump found a problem, or --status found a VG that is not\n"
		"complete and active as autoactivation intends).\n",
		f);
}

static const char *opt_name(enum opt o)
{
	for (const struct option *l = long_options; l->name; l++)
		if (l->val == (int)o)
			return l->name;
	return "?";
}

/* lvm2's message for an option no matching command form accepts. */
static int reject_option(const struct pf_opts *o, const struct parse *ps, enum opt which)
{
	if (!o->udevoutput) {
		if (ps->value[which])
			pf_err("  Command does not accept option: --%s %s.", opt_name(which),
			       ps->value[which]);
		else
			pf_err("  Command does not accept option: --%s.", opt_name(which));
	}
	return PF_EXIT_USAGE;
}

/* Pick the command form lvm2 would match: all required options present, most of them wins. */
static int check_form(const struct pf_opts *o, const struct parse *ps, size_t n_pos,
		      char **pos)
{
	const struct form *best = NULL;
	unsigned best_req = 0;

	for (size_t i = 0; i < ARRAY_SIZE(forms); i++) {
		const struct form *f = &forms[i];
		unsigned req = (unsigned)__builtin_popcountll(f->required);

		if ((ps->given & f->required) != f->required || (f->needs_pv && n_pos == 0))
			continue;
		if ((f->required & BIT(O_ACTIVATE)) && !o->activate)
			continue;
		if (!best || req > best_req) {
			best = &forms[i];
			best_req = req;
		}
	}
	if (!best) {
		if (!o->udevoutput)
			pf_err("  pvscan-fast only implements pvscan's --cache, --listvg and --listlvs "
			       "forms, and --dump; see --help.");
		return PF_EXIT_USAGE;
	}
	for (unsigned i = 0; i < _O_MAX; i++)
		if ((ps->given & BIT(i)) && !(BIT(i) & (best->required | best->optional | COMMON)))
			return reject_option(o, ps, i);
	if (best->needs_pv && n_pos > 1) {
		if (!o->udevoutput)
			pf_err("  Command does not accept argument: %s.", pos[1]);
		return PF_EXIT_USAGE;
	}
	return 0;
}

/* Positional arguments: a path if it starts with '/', otherwise MAJ:MIN as lvm2 parses it. */
static void add_positional(struct pf_opts *o, const char *arg)
{
	struct pf_devarg *d = &o->devs[o->n_devs];
	int maj, min;
	char tail;

	d->text = arg;
	if (arg[0] == '/' || o->dump) {
		d->path = arg;
		o->n_devs++;
		return;
	}
	if (sscanf(arg, "%d:%d%c", &maj, &min, &tail) != 2 || maj < 0 || min < 0) {
		if (!o->udevoutput)
			pf_warn("  WARNING: Failed to parse major:minor from %s, skipping.", arg);
		/* Kept as neither path nor devno: naming only it is not a full scan, as in lvm2. */
		o->n_devs++;
		return;
	}
	d->has_devno = true;
	d->major = (unsigned)maj;
	d->minor = (unsigned)min;
	o->n_devs++;
}

/*
 * lvm2 drops every '-' inside a long option's name, up to any '=', so that
 * --check-complete is --checkcomplete; arguments after "--" are left alone.
 */
static void strip_option_hyphens(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		char *r = argv[i], *w;

		if (r[0] != '-' || r[1] != '-')
			continue;
		if (!r[2])
			break;
		r += 2;
		w = r;
		for (; *r && *r != '='; r++)
			if (*r != '-')
				*w++ = *r;
		memmove(w, r, strlen(r) + 1);
	}
}

static int parse_args(int argc, char **argv, struct pf_opts *o, struct parse *ps)
{
	uint64_t v;
	int c;

	/* getopt names the program by argv[0]; lvm2's say "pvscan" however it was run. */
	argv[0] = (char *)"pvscan-fast";
	opterr = !o->udevoutput && !ps->quiet;
	/* No leading '+': like lvm2, options may follow the devices (getopt permutes). */
	while ((c = getopt_long(argc, argv, "a:bdhj:qtvy", long_options, NULL)) != -1) {
		enum opt id;

		switch (c) {
		case 'a': id = O_ACTIVATE; break;
		case 'b': id = O_BACKGROUND; break;
		case 'd': id = O_DEBUG; break;
		case 'h': id = O_HELP; break;
		case 'j': id = O_MAJOR; break;
		case 'q': id = O_QUIET; break;
		case 't': id = O_TEST; break;
		case 'v': id = O_VERBOSE; break;
		case 'y': id = O_YES; break;
		case '?':
			/* getopt has said what is wrong, in its words, as lvm2 lets it. */
			pf_err("  Error during parsing of command line.");
			return PF_EXIT_USAGE;
		default:
			if (c < 0 || c >= _O_MAX)
				return PF_EXIT_USAGE;
			id = (enum opt)c;
		}
		ps->given |= BIT(id);
		ps->value[id] = optarg;
		switch (id) {
		case O_VERBOSE: o->verbose++; break;
		case O_QUIET: o->verbose--; break;
		case O_DEBUG: o->debug++; break;
		case O_TEST:
		case O_DRYRUN: o->test = true; break;
		case O_CACHE: o->cache = true; break;
		case O_LISTVG: o->listvg = true; break;
		case O_LISTLVS: o->listlvs = true; break;
		case O_CHECKCOMPLETE: o->checkcomplete = true; break;
		case O_VGONLINE: o->vgonline = true; break;
		case O_UDEVOUTPUT: o->udevoutput = true; break;
		case O_DUMP: o->dump = true; break;
		case O_JSON: o->json = true; break;
		case O_NOCOALESCE: o->no_coalesce = true; break;
		case O_RECOVER: o->recover = true; break;
		case O_STATUS: o->status = true; break;
		case O_DEGRADEDCHECK: o->degraded_check = true; break;
		case O_BACKGROUND: o->background = true; break;
		case O_AUTOACTIVATION: o->autoactivation = optarg; break;
		case O_DEVICESFILE: o->devicesfile = optarg; break;
		case O_DRIVERLOADED:
			o->driverloaded = optarg;
			/* lvm2's boolean words: do not touch device-mapper */
			o->driverloaded_no = strcmp(optarg, "n") == 0 || strcmp(optarg, "no") == 0 ||
					     strcmp(optarg, "0") == 0;
			break;
		case O_JOURNAL:
			o->journal_output = strcmp(optarg, "output") == 0;
			break;
		case O_ACTIVATE:
			/* Only "ay" names a --cache form; any other value fails form matching. */
			o->activate = strcmp(optarg, "ay") == 0;
			break;
		case O_CONFIG:
			if (o->n_config >= CONFIG_ARGS_MAX) {
				pf_err("  Too many --config options (at most %u).", CONFIG_ARGS_MAX);
				return PF_EXIT_USAGE;
			}
			o->config[o->n_config++] = optarg;
			break;
		case O_TIMEOUT:
			if (pf_parse_u64(optarg, 86400, &v) < 0 || v == 0) {
				pf_err("  Invalid --timeout %s: give seconds, 1 to 86400.", optarg);
				return PF_EXIT_USAGE;
			}
			o->timeout_s = (unsigned)v;
			break;
		case O_MAJOR:
		case O_MINOR:
			if (pf_parse_u64(optarg, INT_MAX, &v) < 0) {
				pf_err("  Invalid argument for --%s: %s", opt_name(id), optarg);
				return PF_EXIT_USAGE;
			}
			if (ps->n_majors >= MAJOR_ARGS_MAX || ps->n_minors >= MAJOR_ARGS_MAX) {
				pf_err("  Too many --major/--minor arguments.");
				return PF_EXIT_USAGE;
			}
			if (id == O_MAJOR)
				ps->majors[ps->n_majors++] = (long)v;
			else
				ps->minors[ps->n_minors++] = (long)v;
			break;
		default:
			break;
		}
	}
	return 0;
}

int pf_cmd_parse(int argc, char **argv, bool quiet, struct pf_opts *o)
{
	_cleanup_free_ struct parse *ps = NULL;
	struct pf_devarg *devs;
	size_t n_pos;
	int r;

	memset(o, 0, sizeof(*o));
	pf_log_set_prefix(NULL);
	if (quiet)
		pf_log_set_level(PF_LOG_SILENT);
	ps = calloc(1, sizeof(*ps));
	o->config = calloc(CONFIG_ARGS_MAX, sizeof(*o->config));
	if (!ps || !o->config) {
		pf_err("  Out of memory.");
		return PF_EXIT_FAILED;
	}
	ps->quiet = quiet;
	strip_option_hyphens(argc, argv);
	/* lvm2 suppresses every message, usage errors included, with --udevoutput. */
	for (int i = 1; i < argc; i++)
		if (strcmp(argv[i], "--udevoutput") == 0)
			o->udevoutput = true;
	if (o->udevoutput)
		pf_log_set_level(PF_LOG_SILENT);

	r = parse_args(argc, argv, o, ps);
	if (r)
		return r;
	if (ps->given & BIT(O_HELP) || ps->given & BIT(O_LONGHELP)) {
		usage(stdout);
		return PF_EXIT_OK;
	}
	if (ps->given & BIT(O_VERSION)) {
		(void)printf("pvscan-fast %s (reads and writes LVM2 2.03.16 formats)\n",
			     PACKAGE_VERSION);
		return PF_EXIT_OK;
	}

	n_pos = (size_t)(argc - optind);
	r = check_form(o, ps, n_pos, argv + optind);
	if (r)
		return r;
	if (ps->n_majors != ps->n_minors) {
		if (!o->udevoutput) {
			pf_err("  Both --major and --minor required to identify devices.");
			pf_err("  Run `pvscan-fast --help' for more information.");
		}
		return PF_EXIT_USAGE;
	}

	devs = calloc(n_pos + ps->n_majors + 1, sizeof(*devs));
	if (!devs) {
		pf_err("  Out of memory.");
		return PF_EXIT_FAILED;
	}
	o->devs = devs;
	for (size_t i = 0; i < n_pos; i++)
		add_positional(o, argv[optind + (int)i]);
	for (size_t i = 0; i < ps->n_majors; i++) {
		struct pf_devarg *d = &devs[o->n_devs++];

		d->has_devno = true;
		d->major = (unsigned)ps->majors[i];
		d->minor = (unsigned)ps->minors[i];
	}

	if (o->udevoutput || quiet)
		pf_log_set_level(PF_LOG_SILENT);
	else if (o->verbose > 0 || o->debug)
		pf_log_set_level(o->verbose > 1 || o->debug ? PF_LOG_DEBUG : PF_LOG_INFO);
	else if (o->verbose < 0)
		pf_log_set_level(o->verbose < -1 ? PF_LOG_ERR : PF_LOG_WARN);
	if (getenv("PVSCAN_FAST_DEBUG") && !o->udevoutput)
		pf_log_set_level(PF_LOG_DEBUG);

	if (o->status && o->n_devs) {
		pf_err("  --status takes no DEVICE.");
		return PF_EXIT_USAGE;
	}
	if (o->dump && o->n_devs == 0) {
		pf_err("  --dump needs at least one DEVICE.");
		return PF_EXIT_USAGE;
	}
	if (o->recover && (o->n_devs || o->no_coalesce || o->test)) {
		pf_err("  --recover takes no DEVICE, --nocoalesce or --test.");
		return PF_EXIT_USAGE;
	}
	if (o->degraded_check && (o->n_devs || o->recover || o->background)) {
		pf_err("  --degradedcheck takes no DEVICE, --recover or --background.");
		return PF_EXIT_USAGE;
	}
	return -1;
}

void pf_cmd_opts_release(struct pf_opts *o)
{
	free((void *)o->config);
	free(o->devs);
	memset(o, 0, sizeof(*o));
}

const char *const pf_cmd_passed_env[] = {
	"PVSCAN_FAST_RUN_DIR", "PVSCAN_FAST_LOCK_DIR", "PVSCAN_FAST_ENGINE", "PVSCAN_FAST_DEBUG",
	"PVSCAN_FAST_LVM", "PVSCAN_FAST_JOURNAL", "LVM_SYSTEM_DIR", NULL,
};

size_t pf_cmd_passed_args(const struct pf_opts *o, char **argv)
{
	size_t n = 0;

	for (size_t i = 0; i < o->n_config && i < CONFIG_ARGS_MAX; i++) {
		argv[n++] = (char *)"--config";
		argv[n++] = (char *)o->config[i];
	}
	if (o->devicesfile) {
		argv[n++] = (char *)"--devicesfile";
		argv[n++] = (char *)o->devicesfile;
	}
	if (o->driverloaded) {
		argv[n++] = (char *)"--driverloaded";
		argv[n++] = (char *)o->driverloaded;
	}
	return n;
}

int pf_cmd_setenv_args(char (*bufs)[PF_CMD_SETENV_LEN], size_t max, const char **args)
{
	size_t k = 0;

	for (size_t i = 0; pf_cmd_passed_env[i] && k < max; i++) {
		const char *v = getenv(pf_cmd_passed_env[i]);

		if (!v)
			continue;
		if (snprintf(bufs[k], sizeof(bufs[k]), "--setenv=%s=%s", pf_cmd_passed_env[i], v) >=
		    (int)sizeof(bufs[k]))
			return -ENAMETOOLONG;
		args[k] = bufs[k];
		k++;
	}
	return (int)k;
}

bool pf_cmd_systemd_booted(void)
{
	struct stat st;

	return lstat("/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);
}

bool pf_cmd_coalesces(const struct pf_opts *o)
{
	/* a dry run must not leave its devices to a leader that changes things */
	if (!o->cache || o->n_devs == 0 || o->dump || o->listlvs || o->no_coalesce || o->test)
		return false;
	if (o->listvg && !(o->checkcomplete && o->udevoutput))
		return false;
	if (o->autoactivation && strcmp(o->autoactivation, "event") != 0)
		return false;
	for (size_t i = 0; i < o->n_devs; i++)
		if (!o->devs[i].path && !o->devs[i].has_devno)
			return false; /* an argument that did not parse: lvm2's warning path */
	return true;
}

unsigned pf_cmd_pending_flags(const struct pf_opts *o)
{
	return o->activate || o->vgonline ? PF_PENDING_ACTIVATE : 0;
}
