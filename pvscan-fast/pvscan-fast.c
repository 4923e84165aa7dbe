/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvscan-fast: the command udev runs once per device. It parses the options and, for the
 * forms that coalesce, records the device and leaves when another invocation leads; only a
 * leader, and every other form, execs the engine, which links libaio, libdevmapper and
 * libsystemd. So a follower costs an exec of a small binary and a few file operations under
 * /run.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/child.h"
#include "base/log.h"
#include "base/paths.h"
#include "base/strutil.h"
#include "cmd.h"
#include "config/settings.h"
#include "state/coalesce.h"
#include "state/records.h"
#include "state/dgrecord.h"

#define ENGINE_NAME "pvscan-fast-engine"
/* --setenv=NAME=VALUE strings for systemd-run: pf_cmd_passed_env and ours. */
#define SETENV_MAX 9
/* systemd-run's own options in lead_as_service() */
#define ARGS_FIXED 11

/*
 * The engine: $PVSCAN_FAST_ENGINE, else beside this binary (a build tree), else where
 * `make install` put it.
 */
static _Noreturn void exec_engine(char **argv)
{
	const char *env = getenv("PVSCAN_FAST_ENGINE");
	char self[PATH_MAX], path[PATH_MAX + sizeof(ENGINE_NAME)];
	ssize_t n;

	if (env && *env)
		(void)execv(env, argv);
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n > 0) {
		char *slash;

		self[n] = '\0';
		slash = strrchr(self, '/');
		if (slash) {
			slash[1] = '\0';
			(void)snprintf(path, sizeof(path), "%s%s", self, ENGINE_NAME);
			if (access(path, X_OK) == 0)
				(void)execv(path, argv);
		}
	}
	(void)execv(PF_ENGINE_PATH, argv);
	pf_err("  Cannot run %s: %s.", PF_ENGINE_PATH, strerror(errno));
	exit(PF_EXIT_FAILED);
}

/*
 * udev gives the event's SEQNUM to the programs it runs. It tells the leader whether it
 * read the device after this event already; trusted only for an event about this device.
 */
static unsigned long long event_seqnum(const struct pf_opts *o, unsigned major, unsigned minor)
{
	const char *seq = getenv("SEQNUM"), *maj = getenv("MAJOR"), *min = getenv("MINOR");
	uint64_t v;

	if (o->n_devs != 1 || !getenv("ACTION") || !seq || !maj || !min)
		return 0;
	if (pf_parse_u64(maj, UINT_MAX, &v) < 0 || v != major ||
	    pf_parse_u64(min, UINT_MAX, &v) < 0 || v != minor)
		return 0;
	return pf_parse_u64(seq, UINT64_MAX, &v) < 0 ? 0 : v;
}

/* A device argument as a devno; -ENODEV when the engine must say what is wrong with it. */
static int devno_of(const struct pf_devarg *d, unsigned *ret_major, unsigned *ret_minor)
{
	struct stat st;

	if (d->has_devno) {
		*ret_major = d->major;
		*ret_minor = d->minor;
		return 0;
	}
	if (!d->path || stat(d->path, &st) < 0 || !S_ISBLK(st.st_mode))
		return -ENODEV;
	*ret_major = major(st.st_rdev);
	*ret_minor = minor(st.st_rdev);
	return 0;
}

/*
 * Record every device, then try to lead. Returns 1 as a follower (someone leads: done),
 * 0 when we hold the lock (*lock_fd set for the engine), or -errno to run the engine alone.
 * A detached leader records nothing and waits for the lock: its caller recorded the devices
 * and let go of the lock only once this process was sure to start.
 */
static int follow(const struct pf_opts *o, bool detached, int *lock_fd)
{
	struct pf_paths paths;
	struct pf_coalesce c;
	struct pf_records rec;
	bool event_activation;
	int r;

	r = pf_paths_from_env(&paths);
	if (r < 0)
		return r;
	/* event_activation=0 makes the udev forms do nothing, with lvm2's message: the engine's. */
	r = pf_settings_event_activation(paths.etc, o->config, o->n_config, &event_activation);
	if (r < 0 || !event_activation) {
		pf_paths_release(&paths);
		return r < 0 ? r : -ECANCELED;
	}
	r = pf_coalesce_open(paths.run, paths.lock, NULL, &c);
	if (r == 0 && !detached)
		pf_records_open(paths.run, false, &rec);
	pf_paths_release(&paths);
	if (r < 0)
		return r;
	for (size_t i = 0; i < o->n_devs && r == 0 && !detached; i++) {
		unsigned long long seqnum = 0;
		unsigned major, minor;
		char devno[24], seq[24];

		r = devno_of(&o->devs[i], &major, &minor);
		if (r == 0) {
			seqnum = event_seqnum(o, major, minor);
			r = pf_coalesce_record(&c, major, minor, pf_cmd_pending_flags(o), seqnum);
		}
		if (r == 0) {
			/* --status's arrival times: when each device's event reached us */
			(void)snprintf(devno, sizeof(devno), "%u:%u", major, minor);
			(void)snprintf(seq, sizeof(seq), "%llu", seqnum);
			pf_records_add(&rec, "arrive", "dev", devno, "seq", seq, "act",
				       pf_cmd_pending_flags(o) ? "1" : "0", NULL);
		}
	}
	if (!detached)
		pf_records_close(&rec);
	if (r == 0)
		r = detached ? pf_coalesce_lock(&c, PF_COALESCE_LOCK_TIMEOUT_MS_DEFAULT)
			     : pf_coalesce_trylock(&c);
	if (r == -ETIMEDOUT)
		pf_warn("  WARNING: pvscan-fast leader lock %s not acquired within %u s; going on "
			"without it.",
			c.lock_path, PF_COALESCE_LOCK_TIMEOUT_MS_DEFAULT / 1000U);
	if (r == -EWOULDBLOCK) {
		pf_coalesce_close(&c);
		return 1;
	}
	if (r == 0) {
		r = pf_coalesce_lock_fd_for_exec(&c);
		if (r >= 0) {
			*lock_fd = r;
			c.lock_fd = -1; /* stays open across exec */
			r = 0;
		}
	}
	pf_coalesce_close(&c);
	return r;
}

/*
 * Hand the lead to a transient systemd service: udev kills what a worker leaves behind once
 * it is idle, and a worker may not run longer than its event timeout. The lock is held until
 * systemd-run has queued the service, which then waits for it: an entry recorded while we
 * held it is the service's to read. 0 when queued.
 */
static int lead_as_service(int argc, char **argv)
{
	char self[PATH_MAX], unit[64], setenv_buf[SETENV_MAX][PF_CMD_SETENV_LEN];
	_cleanup_free_ const char **args = NULL;
	size_t n = 0, k = 0;
	ssize_t len;
	int r;

	if (access(PF_SYSTEMD_RUN_PATH, X_OK) < 0)
		return -errno;
	len = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (len <= 0)
		return -ENOENT;
	self[len] = '\0';
	/* systemd-run's own options below, ours, "--", the command and its arguments, NULL */
	args = calloc(ARGS_FIXED + SETENV_MAX + (size_t)argc + 1, sizeof(*args));
	if (!args)
		return -ENOMEM;
	(void)snprintf(unit, sizeof(unit), "--unit=pvscan-fast-leader-%ld", (long)getpid());
	args[n++] = PF_SYSTEMD_RUN_PATH;
	args[n++] = "--no-block";
	args[n++] = "--quiet";
	args[n++] = "--collect";
	/* at boot: not ordered after basic.target, as lvm2's own activation services */
	args[n++] = "--property=DefaultDependencies=no";
	/*
	 * The unit ends with the leader: a reader process stuck on a device that never answers
	 * (it cannot be killed in the kernel) must not keep the unit stopping until systemd's
	 * stop timeout; lvm2 children get SIGTERM from the leader, and die with it.
	 */
	args[n++] = "--property=KillMode=process";
	args[n++] = unit;
	args[n++] = "--description=pvscan-fast leader: scan and autoactivate LVM2 PVs";
	(void)snprintf(setenv_buf[k], sizeof(setenv_buf[k]), "--setenv=%s=1", PF_DETACHED_ENV);
	args[n++] = setenv_buf[k++];
	r = pf_cmd_setenv_args(setenv_buf + k, SETENV_MAX - k, args + n);
	if (r < 0)
		return r;
	n += (size_t)r;
	args[n++] = "--";
	args[n++] = self;
	for (int i = 1; i < argc; i++)
		args[n++] = argv[i];
	args[n] = NULL;
	/* stdout is udev's to read: systemd-run's chatter is not for it */
	r = pf_run_bounded((char *const *)args, PF_CMD_SYSTEMD_RUN_TIMEOUT_MS);
	return r == 0 ? 0 : r < 0 ? r : -ECHILD;
}

/*
 * Leave the caller (a udev worker) at once and go on leading in a new session: returns in
 * the grandchild, which keeps the lock, with stdio away from the caller's pipes (a reader
 * gone would kill us with SIGPIPE); errors go to the kernel log, all an initramfs has.
 */
static int lead_detached(void)
{
	int r = pf_detach("/dev/kmsg");

	if (r > 0)
		_exit(PF_EXIT_OK);
	if (r < 0)
		return r;
	return setenv(PF_DETACHED_ENV, "1", 1) < 0 ? -errno : 0;
}

/* --background: the leader goes on outside its caller; 0 in the process that leads. */
static int background(int argc, char **argv, int lock_fd)
{
	if (pf_cmd_systemd_booted()) {
		int r = lead_as_service(argc, argv);

		if (r == 0) {
			(void)close(lock_fd);
			exit(PF_EXIT_OK);
		}
		pf_warn("  WARNING: pvscan-fast: cannot start a leader service with %s (%s); "
			"leading in the background instead.",
			PF_SYSTEMD_RUN_PATH, strerror(-r));
	}
	return lead_detached();
}

/*
 * --recover: lead only when a leader that died left work behind (see pf_coalesce_leftovers);
 * 1 when there is none, so that a unit run at every boot costs an exec and a few stats.
 */
static int nothing_to_recover(void)
{
	struct pf_paths paths;
	bool left = true;
	int r = pf_paths_from_env(&paths);

	if (r == 0) {
		r = pf_coalesce_leftovers(paths.run, &left);
		pf_paths_release(&paths);
	}
	/* When it cannot tell, the engine looks (and says what is wrong). */
	return r == 0 && !left;
}

/*
 * --degradedcheck: no VG was ever noted incomplete with degraded activation on, so the check
 * at every boot costs an exec and a directory look.
 */
static int nothing_degraded(void)
{
	struct pf_paths paths;
	bool any = true;

	if (pf_paths_from_env(&paths) == 0) {
		any = pf_dgrecord_any(paths.run);
		pf_paths_release(&paths);
	}
	return !any;
}

/*
 * The device could not be queued (/run full or read-only, say): it is read alone, as lvm2's
 * pvscan would, by a process that leaves udev's worker when --background asks for that.
 */
static char **alone_argv(int argc, char **argv)
{
	char **v = calloc((size_t)argc + 2, sizeof(*v));

	if (!v)
		return NULL;
	v[0] = argv[0];
	v[1] = (char *)"--nocoalesce";
	for (int i = 1; i < argc; i++)
		v[i + 1] = argv[i];
	return v;
}

int main(int argc, char **argv)
{
	struct pf_opts o;
	char fdbuf[16];
	int lock_fd = -1, r;

	/* a caller that ignores SIGCHLD would have our children reaped before we wait */
	(void)signal(SIGCHLD, SIG_DFL);

	/*
	 * Quietly: the engine parses again and says what is wrong, so every message is said
	 * once. Only --help and --version, which print to stdout, end here.
	 */
	r = pf_cmd_parse(argc, argv, true, &o);
	if (r == PF_EXIT_OK) {
		pf_cmd_opts_release(&o);
		return r;
	}
	if (r > 0) {
		pf_cmd_opts_release(&o);
		exec_engine(argv);
	}
	if (o.recover && nothing_to_recover()) {
		pf_cmd_opts_release(&o);
		return PF_EXIT_OK;
	}
	if (o.degraded_check && nothing_degraded()) {
		pf_cmd_opts_release(&o);
		return PF_EXIT_OK;
	}
	if (pf_cmd_coalesces(&o)) {
		bool detached = getenv(PF_DETACHED_ENV) != NULL;

		r = follow(&o, detached, &lock_fd);
		if (r == 1) {
			pf_cmd_opts_release(&o);
			return PF_EXIT_OK;
		}
		if (r < 0 && r != -ECANCELED && r != -ENODEV && o.background && !o.udevoutput &&
		    !detached) {
			char **alone = alone_argv(argc, argv);

			pf_log_set_level(PF_LOG_WARN);
			pf_warn("  WARNING: pvscan-fast: cannot queue the device: %s; reading it "
				"alone.", strerror(-r));
			if (!alone || background(argc + 1, alone, -1) < 0)
				return PF_EXIT_FAILED;
			pf_cmd_opts_release(&o);
			exec_engine(alone);
		}
		/* udev imports --udevoutput's stdout: that form stays in its worker */
		if (r == 0 && o.background && !o.udevoutput && !detached)
			r = background(argc, argv, lock_fd);
		if (r == 0) {
			(void)snprintf(fdbuf, sizeof(fdbuf), "%d", lock_fd);
			if (setenv(PF_LEADER_FD_ENV, fdbuf, 1) < 0)
				return PF_EXIT_FAILED;
		}
		/* Otherwise (no /run, a bad device name, ...) the engine alone decides. */
	}
	pf_cmd_opts_release(&o);
	exec_engine(argv);
}
