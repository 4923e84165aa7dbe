/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The coalescing benchmark's launcher: start one process per device "together", as udev does
 * at boot, and say what the whole storm cost.
 *
 *   storm [-n COUNT] [-p] [-u] DEVFILE COMMAND [ARG...]
 *
 * DEVFILE has one device a line: "PATH MAJOR MINOR [SEQNUM]". For each of the first COUNT lines
 * (all by default, at most DEVICES_MAX) a child is forked; in the command and its arguments
 * {dev}, {maj} and {min} become that line's fields. With -u the child also gets the environment
 * udev gives the programs it runs for a device's event: ACTION=add, SUBSYSTEM=block, DEVNAME,
 * MAJOR, MINOR and, when the line has one, SEQNUM (the event's number). Every child prepares
 * its argv, says it is ready and blocks on a shared pipe; once all are ready the launcher
 * closes the pipe's write end, which wakes them all at once, and each execs its command
 * (stdout to /dev/null, stderr inherited). The launcher is a child subreaper, so it also reaps
 * whatever the children leave behind.
 *
 * Prints one line: count, wall seconds from the release to the last child's exit (what udev
 * sees) and to the last descendant's (a process a command detached and did not wait for), CPU
 * seconds (user, system and both) of everything reaped since the release, the number of
 * processes the storm created, and how many children failed (exit status not 0, or killed).
 * The process count comes from the PID namespace's last PID, so it is given ("-" otherwise)
 * only when the launcher is PID 1 of its own PID namespace, or with -p: the caller's word that
 * nothing else in this PID namespace forks meanwhile (a shell waiting for the launcher).
 * Exit status 0 all succeeded, 1 some failed, 2 usage or setup error.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define DEVICES_MAX 65536U
#define LINE_MAX_LEN 4096U
#define ARGS_MAX 256U
#define ARG_LEN_MAX 4096U
#define NS_LAST_PID "/proc/sys/kernel/ns_last_pid"

struct device {
	char *path, *maj, *min, *seq; /* seq NULL when the line has none */
};

struct storm {
	struct device *devs;
	size_t n_devs;
	pid_t *pids; /* sorted once all are forked */
	size_t n_pids;
};

static double secs_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

static double tv_secs(const struct timeval *tv)
{
	return (double)tv->tv_sec + (double)tv->tv_usec / 1e6;
}

static bool is_number(const char *s)
{
	if (!*s)
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* Read "PATH MAJOR MINOR [SEQNUM]" lines, blank lines skipped. 0 or -errno (-EINVAL: bad line). */
static int read_devices(const char *file, size_t want, struct storm *s)
{
	char line[LINE_MAX_LEN];
	unsigned lineno = 0;
	FILE *f;
	int r = 0;

	f = fopen(file, "re");
	if (!f)
		return -errno;
	while (s->n_devs < want && fgets(line, sizeof(line), f)) {
		char *save = NULL, *path, *maj, *min, *seq;
		struct device *d;

		lineno++;
		if (!strchr(line, '\n') && !feof(f)) {
			fprintf(stderr, "storm: %s:%u: line too long\n", file, lineno);
			r = -EINVAL;
			goto out;
		}
		path = strtok_r(line, " \t\n", &save);
		if (!path)
			continue;
		maj = strtok_r(NULL, " \t\n", &save);
		min = strtok_r(NULL, " \t\n", &save);
		seq = min ? strtok_r(NULL, " \t\n", &save) : NULL;
		if (!maj || !min || !is_number(maj) || !is_number(min) ||
		    (seq && !is_number(seq)) || strtok_r(NULL, " \t\n", &save)) {
			fprintf(stderr, "storm: %s:%u: want PATH MAJOR MINOR [SEQNUM]\n", file,
				lineno);
			r = -EINVAL;
			goto out;
		}
		d = &s->devs[s->n_devs];
		d->path = strdup(path);
		d->maj = strdup(maj);
		d->min = strdup(min);
		d->seq = seq ? strdup(seq) : NULL;
		s->n_devs++;
		if (!d->path || !d->maj || !d->min || (seq && !d->seq)) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (ferror(f))
		r = -EIO;
out:
	(void)fclose(f);
	return r;
}

/* tmpl with {dev}, {maj} and {min} replaced by d's fields; NULL when too long or no memory. */
static char *expand(const char *tmpl, const struct device *d)
{
	static const char *const keys[] = { "{dev}", "{maj}", "{min}" };
	const char *vals[] = { d->path, d->maj, d->min };
	char *out = malloc(ARG_LEN_MAX);
	size_t len = 0;

	if (!out)
		return NULL;
	while (*tmpl) {
		const char *v = NULL;
		size_t vlen, klen = 1;

		for (size_t k = 0; k < sizeof(keys) / sizeof(keys[0]); k++) {
			if (strncmp(tmpl, keys[k], strlen(keys[k])) == 0) {
				v = vals[k];
				klen = strlen(keys[k]);
				break;
			}
		}
		vlen = v ? strlen(v) : 1;
		if (len + vlen >= ARG_LEN_MAX) {
			free(out);
			return NULL;
		}
		memcpy(out + len, v ? v : tmpl, vlen);
		len += vlen;
		tmpl += klen;
	}
	out[len] = '\0';
	return out;
}

/* What udev puts in the environment of a program it runs for a block device's add event. */
static int set_udev_env(const struct device *d)
{
	if (setenv("ACTION", "add", 1) < 0 || setenv("SUBSYSTEM", "block", 1) < 0 ||
	    setenv("DEVNAME", d->path, 1) < 0 || setenv("MAJOR", d->maj, 1) < 0 ||
	    setenv("MINOR", d->min, 1) < 0)
		return -errno;
	if (d->seq && setenv("SEQNUM", d->seq, 1) < 0)
		return -errno;
	return 0;
}

/*
 * The child: build the argv, report ready, wait for the release, exec. Never returns. Its
 * argv is built before it reports ready so that the release-to-exit time is the command's.
 */
static _Noreturn void child(char **tmpl, size_t n_tmpl, const struct device *d, bool udev_env,
			    int ready_fd, int release_fd, int null_fd)
{
	char *argv[ARGS_MAX + 1];
	char c = 'r';
	ssize_t n;

	for (size_t i = 0; i < n_tmpl; i++) {
		argv[i] = expand(tmpl[i], d);
		if (!argv[i]) {
			fprintf(stderr, "storm: argument %zu too long for %s\n", i, d->path);
			_exit(126);
		}
	}
	argv[n_tmpl] = NULL;
	if (udev_env && set_udev_env(d) < 0)
		_exit(126);
	if (dup2(null_fd, STDOUT_FILENO) < 0)
		_exit(126);
	do {
		n = write(ready_fd, &c, 1);
	} while (n < 0 && errno == EINTR);
	if (n != 1)
		_exit(126);
	(void)close(ready_fd);
	/* EOF once the launcher closes the last write end: every child sees it at once. */
	do {
		n = read(release_fd, &c, 1);
	} while (n < 0 && errno == EINTR);
	(void)execvp(argv[0], argv);
	fprintf(stderr, "storm: %s: %s\n", argv[0], strerror(errno));
	_exit(127);
}

static long ns_last_pid(void)
{
	char buf[32];
	ssize_t n;
	int fd;

	fd = open(NS_LAST_PID, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	(void)close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return strtol(buf, NULL, 10);
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

static void kill_all(const struct storm *s)
{
	for (size_t i = 0; i < s->n_pids; i++)
		(void)kill(s->pids[i], SIGKILL);
	while (wait(NULL) > 0 || errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	int release[2] = { -1, -1 }, ready[2] = { -1, -1 }, null_fd = -1;
	struct storm s = { 0 };
	struct timespec t0, t1, t_all;
	struct rusage ru0, ru1;
	size_t want = 0, n_ready = 0, n_exited = 0, failed = 0; /* want 0: every line */
	long pid0 = -1, pid1 = -1;
	double user, sys;
	char procs[32];
	int opt, ret = 2, first_status = 0;
	bool count_procs = false, udev_env = false;
	char c;

	while ((opt = getopt(argc, argv, "+n:pu")) != -1) {
		switch (opt) {
		case 'n':
			if (!is_number(optarg))
				goto usage;
			want = (size_t)strtoul(optarg, NULL, 10);
			if (want == 0 || want > DEVICES_MAX)
				goto usage;
			break;
		case 'p':
			count_procs = true;
			break;
		case 'u':
			udev_env = true;
			break;
		default:
			goto usage;
		}
	}
	if (argc - optind < 2 || (size_t)(argc - optind - 1) > ARGS_MAX)
		goto usage;

	s.devs = calloc(want ? want : DEVICES_MAX, sizeof(*s.devs));
	if (!s.devs) {
		fprintf(stderr, "storm: out of memory\n");
		goto out;
	}
	if (read_devices(argv[optind], want ? want : DEVICES_MAX, &s) < 0) {
		fprintf(stderr, "storm: cannot read %s\n", argv[optind]);
		goto out;
	}
	if (s.n_devs == 0 || s.n_devs < want) {
		fprintf(stderr, "storm: %s: only %zu devices\n", argv[optind], s.n_devs);
		goto out;
	}
	s.pids = calloc(s.n_devs, sizeof(*s.pids));
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (!s.pids || null_fd < 0 || pipe2(release, O_CLOEXEC) < 0 ||
	    pipe2(ready, O_CLOEXEC) < 0) {
		fprintf(stderr, "storm: setup: %s\n", strerror(errno));
		goto out;
	}
	/* Whatever a command leaves behind is reaped here, and counted in the CPU time. */
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0)
		fprintf(stderr, "storm: no subreaper: %s\n", strerror(errno));

	for (size_t i = 0; i < s.n_devs; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			fprintf(stderr, "storm: fork %zu: %s\n", i, strerror(errno));
			kill_all(&s);
			goto out;
		}
		if (pid == 0) {
			(void)close(release[1]);
			(void)close(ready[0]);
			child(argv + optind + 1, (size_t)(argc - optind - 1), &s.devs[i], udev_env,
			      ready[1], release[0], null_fd);
		}
		s.pids[s.n_pids++] = pid;
	}
	(void)close(ready[1]);
	ready[1] = -1;
	while (n_ready < s.n_pids) {
		ssize_t n = read(ready[0], &c, 1);

		if (n < 0 && errno == EINTR)
			continue;
		if (n != 1) {
			fprintf(stderr, "storm: %zu of %zu children ready\n", n_ready, s.n_pids);
			kill_all(&s);
			goto out;
		}
		n_ready++;
	}
	qsort(s.pids, s.n_pids, sizeof(*s.pids), cmp_pid);

	if (count_procs || getpid() == 1)
		pid0 = ns_last_pid();
	(void)getrusage(RUSAGE_CHILDREN, &ru0);
	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	t1 = t0;
	(void)close(release[1]);
	release[1] = -1;
	for (;;) {
		int st;
		pid_t pid = wait(&st);

		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break; /* ECHILD: every descendant is gone */
		}
		if (!bsearch(&pid, s.pids, s.n_pids, sizeof(*s.pids), cmp_pid))
			continue;
		if (++n_exited == s.n_pids)
			(void)clock_gettime(CLOCK_MONOTONIC, &t1);
		if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
			if (!failed)
				first_status = st;
			failed++;
		}
	}
	(void)clock_gettime(CLOCK_MONOTONIC, &t_all);
	(void)getrusage(RUSAGE_CHILDREN, &ru1);
	if (pid0 >= 0)
		pid1 = ns_last_pid();

	user = tv_secs(&ru1.ru_utime) - tv_secs(&ru0.ru_utime);
	sys = tv_secs(&ru1.ru_stime) - tv_secs(&ru0.ru_stime);
	if (pid0 >= 0 && pid1 >= pid0)
		(void)snprintf(procs, sizeof(procs), "%ld", pid1 - pid0 + (long)s.n_pids);
	else
		(void)snprintf(procs, sizeof(procs), "-");
	printf("n=%zu wall_s=%.4f wall_all_s=%.4f cpu_s=%.4f user_s=%.4f sys_s=%.4f procs=%s "
	       "failed=%zu\n",
	       s.n_pids, secs_between(&t0, &t1), secs_between(&t0, &t_all), user + sys, user, sys,
	       procs, failed);
	if (failed) {
		if (WIFEXITED(first_status))
			fprintf(stderr, "storm: %zu failed, first with exit status %d\n", failed,
				WEXITSTATUS(first_status));
		else
			fprintf(stderr, "storm: %zu failed, first killed by signal %d\n", failed,
				WTERMSIG(first_status));
	}
	ret = failed ? 1 : 0;
out:
	for (int i = 0; i < 2; i++) {
		if (release[i] >= 0)
			(void)close(release[i]);
		if (ready[i] >= 0)
			(void)close(ready[i]);
	}
	if (null_fd >= 0)
		(void)close(null_fd);
	for (size_t i = 0; i < s.n_devs; i++) {
		free(s.devs[i].path);
		free(s.devs[i].maj);
		free(s.devs[i].min);
		free(s.devs[i].seq);
	}
	free(s.devs);
	free(s.pids);
	return ret;

usage:
	fprintf(stderr, "usage: storm [-n COUNT] [-p] [-u] DEVFILE COMMAND [ARG...]\n");
	return 2;
}
