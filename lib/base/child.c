/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helper programs run under a deadline, and the double fork into a session of our own. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/child.h"
#include "base/clock.h"
#include "base/fileio.h"
#include "base/stop.h"

/* how often a bounded wait looks at its child: a helper program takes milliseconds */
#define CHILD_POLL_MS 20U
/* the exit status of the middle process of pf_detach() when its step failed */
#define DETACH_FAILED 71

pid_t pf_fork_flushed(void)
{
	(void)fflush(stdout);
	(void)fflush(stderr);
	return fork();
}

void pf_child_stdio(const char *err_path)
{
	int null = open("/dev/null", O_RDWR | O_CLOEXEC);
	int efd = err_path ? open(err_path, O_WRONLY | O_CLOEXEC) : -1;

	if (null >= 0) {
		(void)dup2(null, STDIN_FILENO);
		(void)dup2(null, STDOUT_FILENO);
		if (err_path)
			(void)dup2(efd >= 0 ? efd : null, STDERR_FILENO);
	}
	/* O_CLOEXEC: an exec drops them; without one, the copies above are all that is left */
	if (efd >= 0)
		(void)close(efd);
	if (null >= 0)
		(void)close(null);
}

static int reap(pid_t pid, int *status)
{
	while (waitpid(pid, status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return 0;
}

int pf_run_bounded(char *const *argv, unsigned timeout_ms)
{
	uint64_t deadline = pf_deadline_after_ms(timeout_ms);
	pid_t parent = getpid(), pid;
	int st = 0, r;

	pid = pf_fork_flushed();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		if (pf_stop_child_setup(parent, SIGKILL) < 0)
			_exit(127);
		pf_child_stdio(NULL);
		pf_close_fds(STDERR_FILENO + 1, INT_MAX);
		(void)execv(argv[0], argv);
		_exit(127);
	}
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);

		if (w == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		if (w < 0 && errno != EINTR)
			return -errno;
		if (deadline && pf_now_ns() >= deadline) {
			(void)kill(pid, SIGKILL);
			r = reap(pid, &st);
			return r < 0 ? r : -ETIMEDOUT;
		}
		pf_sleep_ms(CHILD_POLL_MS);
	}
}

int pf_detach(const char *err_path)
{
	pid_t pid;
	int st = 0, r;

	pid = pf_fork_flushed();
	if (pid < 0)
		return -errno;
	if (pid > 0) {
		/* the middle process exits at once: this wait is as long as two fork()s */
		r = reap(pid, &st);
		if (r < 0)
			return r;
		return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 1 : -ECHILD;
	}
	if (setsid() < 0)
		_exit(DETACH_FAILED);
	/* not a session leader: opening a terminal later never makes it ours */
	pid = fork();
	if (pid != 0)
		_exit(pid < 0 ? DETACH_FAILED : 0);
	pf_child_stdio(err_path);
	return 0;
}
