/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pvscan-fast: the command udev runs once per device. It parses the options and, for the
 * forms that coalesce, records the device and leaves when another invocation leads; only a
 * leader, and every other form, execs the engine, which links libaio and libdevmapper. So a
 * follower costs an exec of a small binary and a few file operations under /run.
 */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "cmd.h"
#include "coalesce.h"
#include "log.h"
#include "paths.h"
#include "settings.h"

#define ENGINE_NAME "pvscan-fast-engine"

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
	char *end;
	unsigned long long v;

	if (o->n_devs != 1 || !getenv("ACTION") || !seq || !maj || !min)
		return 0;
	if (strtoul(maj, &end, 10) != major || *end || strtoul(min, &end, 10) != minor || *end)
		return 0;
	errno = 0;
	v = strtoull(seq, &end, 10);
	return errno || *end || seq[0] == '-' ? 0 : v;
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
 */
static int follow(const struct pf_opts *o, int *lock_fd)
{
	struct pf_paths paths;
	struct pf_coalesce c;
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
	pf_paths_release(&paths);
	if (r < 0)
		return r;
	for (size_t i = 0; i < o->n_devs && r == 0; i++) {
		unsigned major, minor;

		r = devno_of(&o->devs[i], &major, &minor);
		if (r == 0)
			r = pf_coalesce_record(&c, major, minor, pf_cmd_pending_flags(o),
					       event_seqnum(o, major, minor));
	}
	if (r == 0)
		r = pf_coalesce_trylock(&c);
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

int main(int argc, char **argv)
{
	struct pf_opts o;
	char fdbuf[16];
	int lock_fd = -1, r;

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
	if (pf_cmd_coalesces(&o)) {
		r = follow(&o, &lock_fd);
		if (r == 1) {
			pf_cmd_opts_release(&o);
			return PF_EXIT_OK;
		}
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
