/* SPDX-License-Identifier: GPL-2.0-or-later */
/* What the command's modes share: parsed options, lvm2's exit codes, and their entry points. */
#ifndef PF_CMD_H
#define PF_CMD_H

#include <stdbool.h>
#include <stddef.h>

/* lvm2's exit codes, so scripts and udev rules written for pvscan keep working. */
#define PF_EXIT_OK 0
#define PF_EXIT_USAGE 3	 /* EINVALID_CMD_LINE */
#define PF_EXIT_INIT 4	 /* EINIT_FAILED: lvm.conf cannot be loaded */
#define PF_EXIT_FAILED 5 /* ECMD_FAILED */

/* A device named on the command line: a path, "MAJ:MIN", or a --major/--minor pair. */
struct pf_devarg {
	const char *path;   /* NULL for a devno argument */
	bool has_devno;
	unsigned major, minor;
	const char *text;   /* as given, for messages */
};

struct pf_opts {
	/* modes */
	bool dump, json, status;
	bool cache, activate, listvg, listlvs, checkcomplete, vgonline, udevoutput;
	const char *autoactivation; /* --autoactivation value, NULL when absent */
	bool journal_output;	    /* --journal output */
	/* common */
	int verbose; /* -v count minus -q count */
	int debug;
	bool test;
	const char **config; /* --config strings, in order */
	size_t n_config;
	const char *devicesfile; /* --devicesfile, NULL when absent */
	unsigned timeout_s;	 /* --timeout, 0 = lvm.conf / default */
	bool no_coalesce;	 /* --nocoalesce: act alone, as lvm2's pvscan does */
	bool background;	 /* -b: a leader leaves its caller (see pvscan-fast.c) */
	bool recover;		 /* --recover: lead only when a dead leader left work */
	bool degraded_check;	 /* --degradedcheck: VGs past their degraded deadline */
	const char *driverloaded; /* --driverloaded value, passed on to lvm2 */
	bool driverloaded_no;	  /* --driverloaded n: no device-mapper calls (lvm2 activates) */
	/* devices */
	struct pf_devarg *devs;
	size_t n_devs;
};

/*
 * Set for a leader that --background moved out of its caller: it records nothing (its caller
 * did), waits for the lock (its caller held it until the leader was on its way), and names
 * itself in what it says (to the journal or the kernel log, not to a terminal).
 */
#define PF_DETACHED_ENV "PVSCAN_FAST_DETACHED"

/*
 * Parse argv into *o (argv is modified, as getopt does). Returns -1 to go on, else the exit
 * status: help, version and usage errors are dealt with here. Release *o in either case.
 * quiet: say nothing (the engine parses again and speaks), logging stays silenced.
 */
int pf_cmd_parse(int argc, char **argv, bool quiet, struct pf_opts *o);
void pf_cmd_opts_release(struct pf_opts *o);

/*
 * The forms whose invocations coalesce: --cache with devices, plain or -aay, and the udev
 * form --cache --listvg --checkcomplete --udevoutput. A follower records its devices and
 * leaves; see lib/state/coalesce.h.
 */
bool pf_cmd_coalesces(const struct pf_opts *o);
/* The PF_PENDING_* flags an invocation's entries carry. */
unsigned pf_cmd_pending_flags(const struct pf_opts *o);

/* The engine's modes (pvscan-fast-engine; the command execs it unless it is a follower). */
int pf_cmd_dump(const struct pf_opts *o);
int pf_cmd_cache(const struct pf_opts *o);
int pf_cmd_status(const struct pf_opts *o);

struct pf_paths;
struct pf_settings;
/*
 * The engine's start for the --cache forms: paths from the environment, lvm.conf loaded and
 * its warnings said. -1 to go on (release both), else the exit status (nothing to release).
 */
int pf_cmd_setup(const struct pf_opts *o, struct pf_paths *paths, struct pf_settings *st);

/*
 * What work started for later (a leader's transient service, a degraded deadline's timer)
 * must see of the caller's environment: where the state is, and the tests' overrides.
 * NULL-terminated.
 */
extern const char *const pf_cmd_passed_env[];

/*
 * What a command run on our behalf (lvm2, the degraded check) takes along of ours: --config,
 * --devicesfile and --driverloaded, as given. Appends them to argv (room for
 * PF_CMD_PASSED_ARGS_MAX) and returns how many.
 */
#define PF_CMD_PASSED_ARGS_MAX (2 * 64 + 4) /* options.c's CONFIG_ARGS_MAX --config pairs */
size_t pf_cmd_passed_args(const struct pf_opts *o, char **argv);

/*
 * systemd-run's --setenv=NAME=VALUE for each of pf_cmd_passed_env that is set: into bufs
 * (max of them), each appended to args. Returns how many, or -ENAMETOOLONG.
 */
#define PF_CMD_SETENV_LEN 4160
int pf_cmd_setenv_args(char (*bufs)[PF_CMD_SETENV_LEN], size_t max, const char **args);

/* Is systemd the init system? (sd_booted()'s test, without linking libsystemd.) */
bool pf_cmd_systemd_booted(void);
/*
 * How long systemd-run may take to queue a unit before it is killed and we do without: a
 * hung systemd or D-Bus must not hold a udev worker until udev's event timeout.
 */
#define PF_CMD_SYSTEMD_RUN_TIMEOUT_MS (30U * 1000U)

/* The descriptor of the leader lock the command passes to the engine across exec. */
#define PF_LEADER_FD_ENV "PVSCAN_FAST_LEADER_FD"

#endif /* PF_CMD_H */
