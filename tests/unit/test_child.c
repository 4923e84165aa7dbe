/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helper programs under a deadline and the step into a session of our own. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/child.h"
#include "unit.h"

/* a deadline no machine reaches while the programs below run normally */
#define LONG_MS (60U * 1000U)

static int sh(const char *script, unsigned timeout_ms)
{
	char *argv[] = { (char *)"/bin/sh", (char *)"-c", (char *)script, NULL };

	return pf_run_bounded(argv, timeout_ms);
}

START_TEST(test_run_status)
{
	char *missing[] = { (char *)"/nonexistent/pvscan-fast-helper", NULL };

	ck_assert_int_eq(sh("exit 0", LONG_MS), 0);
	ck_assert_int_eq(sh("exit 3", LONG_MS), 3);
	ck_assert_int_eq(sh("kill -TERM $$", LONG_MS), 128 + 15);
	ck_assert_int_eq(pf_run_bounded(missing, LONG_MS), 127);
}
END_TEST

START_TEST(test_run_deadline)
{
	/* sleeps far past its deadline: killed, and the wait ends */
	ck_assert_int_eq(sh("sleep 600", 100), -ETIMEDOUT);
}
END_TEST

START_TEST(test_run_stdio)
{
	char script[256];
	int fd = open("/dev/null", O_RDONLY); /* no O_CLOEXEC: only pf_run_bounded closes it */

	ck_assert_int_gt(fd, 2);
	/* stdin and stdout on /dev/null, stderr ours, nothing else of ours */
	(void)snprintf(script, sizeof(script),
		       "[ \"$(readlink /proc/$$/fd/0)\" = /dev/null ] && "
		       "[ \"$(readlink /proc/$$/fd/1)\" = /dev/null ] && "
		       "[ \"$(readlink /proc/$$/fd/2)\" = \"%s\" ] && [ ! -e /proc/$$/fd/%d ]",
		       "$(readlink /proc/$PPID/fd/2)", fd);
	ck_assert_int_eq(sh(script, LONG_MS), 0);
	(void)close(fd);
}
END_TEST

START_TEST(test_detach)
{
	char err[] = "/tmp/pvscan-fast-test-child.XXXXXX", line[128] = "";
	struct pollfd p;
	int pipefd[2], efd, r;
	pid_t me = getpid();
	ssize_t n;

	efd = mkstemp(err);
	ck_assert_int_ge(efd, 0);
	ck_assert_int_eq(pipe(pipefd), 0);
	r = pf_detach(err);
	if (r == 0) {
		/* the grandchild: a session of its own, not ours, stderr into the file */
		(void)dprintf(pipefd[1], "%d %d %d\n", getsid(0) == getpid(), getsid(0) != getsid(me),
			      getpid() != me);
		(void)fprintf(stderr, "detached\n");
		_exit(0);
	}
	ck_assert_int_eq(r, 1);
	(void)close(pipefd[1]);
	p = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	ck_assert_int_eq(poll(&p, 1, (int)LONG_MS), 1);
	n = read(pipefd[0], line, sizeof(line) - 1);
	ck_assert_int_gt(n, 0);
	/* not the session leader itself: a second fork left that to the middle process */
	ck_assert_str_eq(line, "0 1 1\n");
	/* the pipe closes when the grandchild exits; its line is in the file by then */
	while (read(pipefd[0], line, sizeof(line)) > 0)
		;
	n = pread(efd, line, sizeof(line) - 1, 0);
	ck_assert_int_eq(n, 9);
	line[n] = '\0';
	ck_assert_str_eq(line, "detached\n");
	(void)close(pipefd[0]);
	(void)close(efd);
	(void)unlink(err);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("child");
	TCase *tc = pf_unit_tcase("child");

	tcase_add_test(tc, test_run_status);
	tcase_add_test(tc, test_run_deadline);
	tcase_add_test(tc, test_run_stdio);
	tcase_add_test(tc, test_detach);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
