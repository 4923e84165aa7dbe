/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Bounded whole-file and range reads, full writes, closing inherited descriptors, timed flock. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/time.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/stop.h"
#include "base/strutil.h"


ssize_t pf_read_full(int fd, void *buf, size_t len, int64_t off)
{
	uint8_t *p = buf;
	size_t done = 0;

	while (done < len) {
		ssize_t n = off < 0 ? read(fd, p + done, len - done)
				    : pread(fd, p + done, len - done, (off_t)(off + (int64_t)done));

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0)
			break;
		done += (size_t)n;
	}
	return (ssize_t)done;
}

int pf_read_file_at(int dirfd, const char *path, size_t cap, char **ret, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0, alloc = 0;

	fd = openat(dirfd, path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
	if (fd < 0)
		return -errno;
	/* Grow geometrically up to cap + 1, so one byte more than cap tells "too long". */
	for (;;) {
		ssize_t n;

		if (len == alloc) {
			size_t next = alloc ? alloc * 2 : 256;
			char *b;

			if (alloc > cap)
				return -E2BIG;
			if (next > cap + 1)
				next = cap + 1;
			b = realloc(buf, next + 1);
			if (!b)
				return -ENOMEM;
			buf = b;
			alloc = next;
		}
		n = pf_read_full(fd, buf + len, alloc - len, -1);
		if (n < 0)
			return (int)n;
		len += (size_t)n;
		if (len > cap)
			return -E2BIG;
		if (len < alloc)
			break;
	}
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}

int pf_write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len > 0) {
		ssize_t n = write(fd, p, len);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Close descriptors lo..hi, where close_range() is missing by listing /proc/self/fd. */
void pf_close_fds(int lo, int hi)
{
	DIR *dir;
	struct dirent *de;

	if (lo > hi)
		return;
#ifdef SYS_close_range
	if (syscall(SYS_close_range, (unsigned)lo, (unsigned)hi, 0U) == 0)
		return;
#endif
	dir = opendir("/proc/self/fd");
	if (!dir) {
		long max = sysconf(_SC_OPEN_MAX);

		for (long fd = lo; fd <= hi && fd < max; fd++)
			(void)close((int)fd);
		return;
	}
	while ((de = readdir(dir))) {
		uint64_t fd;

		if (pf_parse_u64(de->d_name, INT_MAX, &fd) < 0 || fd < (uint64_t)lo ||
		    fd > (uint64_t)hi || fd == (uint64_t)dirfd(dir))
			continue;
		(void)close((int)fd);
	}
	(void)closedir(dir);
}

uint64_t pf_deadline_after_ms(unsigned timeout_ms)
{
	return timeout_ms ? pf_now_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC : 0;
}

#define ALARM_REPEAT_US 100000

static void on_alarm(int sig _unused_)
{
}

int pf_flock_until(int fd, int op, uint64_t deadline_ns)
{
	struct sigaction sa = { .sa_handler = on_alarm }, old_sa;
	struct itimerval none = { 0 }, left;
	int r;

	if (flock(fd, op | LOCK_NB) == 0)
		return 0;
	if (errno != EWOULDBLOCK && errno != EINTR)
		return -errno;
	if (deadline_ns == 0)
		return -EWOULDBLOCK;
	/* no SA_RESTART: the alarm ends the wait with EINTR */
	(void)sigemptyset(&sa.sa_mask);
	if (sigaction(SIGALRM, &sa, &old_sa) < 0)
		return -errno;
	for (;;) {
		uint64_t now = pf_now_ns();

		if (pf_stop_requested()) {
			r = -EINTR;
			break;
		}
		if (now >= deadline_ns) {
			r = -ETIMEDOUT;
			break;
		}
		/* and again every ALARM_REPEAT_US: an alarm that comes just before flock() starts
		   to wait would otherwise be lost */
		left = (struct itimerval){
			.it_value = { .tv_sec = (time_t)((deadline_ns - now) / NSEC_PER_SEC),
				      .tv_usec = (suseconds_t)((deadline_ns - now) % NSEC_PER_SEC /
							       1000U) + 1 },
			.it_interval = { .tv_usec = ALARM_REPEAT_US },
		};
		(void)setitimer(ITIMER_REAL, &left, NULL);
		r = flock(fd, op);
		if (r < 0)
			r = -errno;
		(void)setitimer(ITIMER_REAL, &none, NULL);
		if (r != -EINTR)
			break;
	}
	(void)sigaction(SIGALRM, &old_sa, NULL);
	return r;
}
