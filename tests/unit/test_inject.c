/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PVSCAN_FAST_INJECT in a test build: steps matched, crash, delay, fail, once, what is ignored. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/inject.h"
#include "unit.h"

static long long elapsed_ms(const char *spec, const char *step)
{
	struct timespec a, b;

	ck_assert_int_eq(setenv("PVSCAN_FAST_INJECT", spec, 1), 0);
	(void)clock_gettime(CLOCK_MONOTONIC, &a);
	pf_inject(step);
	(void)clock_gettime(CLOCK_MONOTONIC, &b);
	return (b.tv_sec - a.tv_sec) * 1000LL + (b.tv_nsec - a.tv_nsec) / 1000000LL;
}

/* The status a child ends with after pf_inject(step) under spec. */
static int child_status(const char *spec, const char *step)
{
	int status = 0;
	pid_t pid = fork();

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		(void)setenv("PVSCAN_FAST_INJECT", spec, 1);
		pf_inject(step);
		_exit(0);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	return status;
}

START_TEST(test_crash)
{
	int st = child_status("other:delay=1,claim:crash", "claim");

	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	st = child_status("*:crash", "anything");
	ck_assert(WIFSIGNALED(st) && WTERMSIG(st) == SIGKILL);
	st = child_status("claim:crash", "claimed");
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	st = child_status("claim", "claim");
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
END_TEST

/* Only lower bounds: a loaded machine may sleep longer, never shorter. */
START_TEST(test_delay)
{
	ck_assert_int_ge(elapsed_ms("step:delay=30", "step"), 30);
	ck_assert_int_ge(elapsed_ms("a:delay=1,step:delay=20", "step"), 20);
	(void)elapsed_ms("step:rand=5", "step");
}
END_TEST

/* Malformed or oversized actions are ignored, so these return at once instead of sleeping. */
START_TEST(test_ignored)
{
	ck_assert_int_lt(elapsed_ms("step:delay=600001", "step"), 60000);
	ck_assert_int_lt(elapsed_ms("step:delay=-5", "step"), 60000);
	ck_assert_int_lt(elapsed_ms("step:delay=1x", "step"), 60000);
	ck_assert_int_lt(elapsed_ms("step:delay=1000000000000000000000000000000000", "step"), 60000);
	ck_assert_int_lt(elapsed_ms(",,:,step:nap=9", "step"), 60000);
	ck_assert_int_eq(unsetenv("PVSCAN_FAST_INJECT"), 0);
	pf_inject("step");
}
END_TEST

START_TEST(test_fail)
{
	ck_assert_int_eq(setenv("PVSCAN_FAST_INJECT", "a:delay=1,pipe:fail=24", 1), 0);
	ck_assert_int_eq(pf_inject_fail("pipe"), -24);
	ck_assert_int_eq(pf_inject_fail("a"), 0);
	ck_assert_int_eq(pf_inject_fail("fork"), 0);
	pf_inject("pipe"); /* not pf_inject()'s business: returns at once */
	ck_assert_int_eq(setenv("PVSCAN_FAST_INJECT", "*:fail=11", 1), 0);
	ck_assert_int_eq(pf_inject_fail("anything"), -11);
	/* the first fail action for the step counts; malformed ones are skipped */
	ck_assert_int_eq(setenv("PVSCAN_FAST_INJECT", "s:fail=0,s:fail=x,s:fail=4096,s:fail=5", 1),
			 0);
	ck_assert_int_eq(pf_inject_fail("s"), -5);
	ck_assert_int_eq(setenv("PVSCAN_FAST_INJECT", "s:fail=,s:fail", 1), 0);
	ck_assert_int_eq(pf_inject_fail("s"), 0);
	ck_assert_int_eq(unsetenv("PVSCAN_FAST_INJECT"), 0);
	ck_assert_int_eq(pf_inject_fail("s"), 0);
}
END_TEST

/* ACTION@PATH: only where PATH could be created, so once across processes and calls. */
START_TEST(test_once)
{
	char dir[] = "/tmp/pf-inject.XXXXXX", spec[128], marker[64];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	(void)snprintf(marker, sizeof(marker), "%s/once", dir);
	(void)snprintf(spec, sizeof(spec), "s:fail=7@%s", marker);
	ck_assert_int_eq(setenv("PVSCAN_FAST_INJECT", spec, 1), 0);
	pf_inject("s"); /* a fail action is not pf_inject()'s: the marker stays unmade */
	ck_assert_int_eq(access(marker, F_OK), -1);
	ck_assert_int_eq(pf_inject_fail("s"), -7);
	ck_assert_int_eq(access(marker, F_OK), 0);
	ck_assert_int_eq(pf_inject_fail("s"), 0);
	ck_assert_int_eq(child_status(spec, "s"), 0);
	ck_assert_int_eq(unlink(marker), 0);
	(void)snprintf(spec, sizeof(spec), "s:crash@%s", marker);
	ck_assert(WIFSIGNALED(child_status(spec, "s")));
	ck_assert_int_eq(child_status(spec, "s"), 0); /* the second process: not armed */
	(void)snprintf(spec, sizeof(spec), "s:fail=7@");
	ck_assert_int_eq(setenv("PVSCAN_FAST_INJECT", spec, 1), 0);
	ck_assert_int_eq(pf_inject_fail("s"), 0); /* no path: never armed */
	ck_assert_int_eq(unsetenv("PVSCAN_FAST_INJECT"), 0);
	ck_assert_int_eq(unlink(marker), 0);
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("inject");
	TCase *tc = pf_unit_tcase("inject");

	tcase_add_test(tc, test_crash);
	tcase_add_test(tc, test_delay);
	tcase_add_test(tc, test_ignored);
	tcase_add_test(tc, test_fail);
	tcase_add_test(tc, test_once);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
