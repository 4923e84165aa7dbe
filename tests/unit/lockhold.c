/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The lock holder process shared by the lock and activation suites. */
#include "config.h"

#include <check.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include "lockhold.h"

pid_t lock_hold(const char *path, int op, int *ret_release)
{
	int ready[2], release[2];
	pid_t pid;
	char c;

	ck_assert_int_eq(pipe(ready), 0);
	ck_assert_int_eq(pipe(release), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC, 0600);

		if (fd < 0 || flock(fd, op) < 0)
			_exit(1);
		(void)close(release[1]);
		(void)write(ready[1], "x", 1);
		(void)read(release[0], &c, 1); /* until the parent closes its end */
		_exit(0);
	}
	(void)close(ready[1]);
	(void)close(release[0]);
	ck_assert_int_eq(read(ready[0], &c, 1), 1);
	(void)close(ready[0]);
	*ret_release = release[1];
	return pid;
}

void lock_let_go(pid_t pid, int release)
{
	int st;

	(void)close(release);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}
