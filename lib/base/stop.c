/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The termination flag and the signal dispositions of the engine and of its children. */
#include "config.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <unistd.h>

#include "base/stop.h"

static volatile sig_atomic_t stop_signal;

static const int stop_signals[] = { SIGTERM, SIGINT, SIGHUP };

static void on_stop(int sig)
{
	stop_signal = sig;
}

int pf_stop_install(void)
{
	struct sigaction sa = { .sa_handler = on_stop };
	sigset_t unblock;

	/* no SA_RESTART: a blocking call returns EINTR and its loop looks at the flag */
	(void)sigemptyset(&sa.sa_mask);
	(void)sigemptyset(&unblock);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++) {
		if (sigaction(stop_signals[i], &sa, NULL) < 0)
			return -errno;
		(void)sigaddset(&unblock, stop_signals[i]);
	}
	sa.sa_handler = SIG_IGN;
	if (sigaction(SIGPIPE, &sa, NULL) < 0)
		return -errno;
	sa.sa_handler = SIG_DFL;
	if (sigaction(SIGCHLD, &sa, NULL) < 0)
		return -errno;
	(void)sigaddset(&unblock, SIGCHLD);
	return sigprocmask(SIG_UNBLOCK, &unblock, NULL) < 0 ? -errno : 0;
}

bool pf_stop_requested(void)
{
	return stop_signal != 0;
}

int pf_stop_signal(void)
{
	return stop_signal;
}

int pf_stop_child_setup(pid_t parent, int death_signal)
{
	struct sigaction sa = { .sa_handler = SIG_DFL };
	sigset_t none;

	(void)sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(stop_signals) / sizeof(stop_signals[0]); i++)
		if (sigaction(stop_signals[i], &sa, NULL) < 0)
			return -errno;
	if (sigaction(SIGPIPE, &sa, NULL) < 0 || sigaction(SIGCHLD, &sa, NULL) < 0)
		return -errno;
	(void)sigemptyset(&none);
	if (sigprocmask(SIG_SETMASK, &none, NULL) < 0)
		return -errno;
	if (prctl(PR_SET_PDEATHSIG, death_signal) < 0)
		return -errno;
	/* the parent may have died before the line above: then nobody sends the signal */
	return getppid() == parent ? 0 : -ESRCH;
}
