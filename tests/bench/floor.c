/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The benchmark's floor: open every device named, read the first 128 KiB of
 * each (O_DIRECT, whole logical blocks) through one libaio context with the
 * scan's sliding window (up to min(n, 256) in flight, a new read as soon as
 * any completes), and nothing else. It links only libc and libaio, so its
 * time is what the I/O pattern alone costs; pvscan-fast cannot beat it.
 *
 *   floor [-d DEPTH] [-b BYTES] DEVICE...
 *
 * Prints one line: devices, reads, bytes, depth, and milliseconds spent
 * opening, reading and in all. Exit status 0 all reads complete, 1 some
 * device failed, 2 usage.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <linux/fs.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FIRST_READ_DEFAULT (128U * 1024U)
#define FIRST_READ_MAX (16U * 1024U * 1024U)
#define DEPTH_DEFAULT_MAX 256U
#define DEPTH_MAX 4096U
#define DEVICES_MAX (1U << 20)
#define MEM_ALIGN 4096U
#define NOFILE_SLACK 64U

struct target {
	const char *path;
	int fd;
	uint64_t size;
	unsigned lbs;
	bool direct;
	size_t len; /* bytes to read from 0 */
	void *buf;
	struct iocb cb;
	int err;
};

static double ms_between(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) * 1e3 + (double)(b->tv_nsec - a->tv_nsec) / 1e6;
}

/* The scan's open: O_DIRECT and O_NOATIME where allowed. */
static int open_target(struct target *t, unsigned first_read)
{
	int flags = O_RDONLY | O_CLOEXEC | O_DIRECT | O_NOATIME;
	struct stat st;
	uint64_t want;
	int ss;

	for (;;) {
		t->fd = open(t->path, flags);
		if (t->fd >= 0)
			break;
		if (errno == EPERM && (flags & O_NOATIME))
			flags &= ~O_NOATIME;
		else if (errno == EINVAL && (flags & O_DIRECT))
			flags &= ~O_DIRECT;
		else if (errno != EINTR)
			return -errno;
	}
	t->direct = (flags & O_DIRECT) != 0;
	if (fstat(t->fd, &st) < 0)
		return -errno;
	t->lbs = 512;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(t->fd, BLKGETSIZE64, &t->size) < 0 || ioctl(t->fd, BLKSSZGET, &ss) < 0)
			return -errno;
		if (ss >= 512)
			t->lbs = (unsigned)ss;
	} else if (S_ISREG(st.st_mode)) {
		t->size = (uint64_t)st.st_size;
		if (t->direct)
			t->lbs = 4096;
	} else {
		return -ENOTBLK;
	}
	/* Same range as the scan's first read: whole blocks, never past the device's end. */
	want = t->size < first_read ? t->size : first_read;
	if (t->direct)
		want &= ~((uint64_t)t->lbs - 1);
	t->len = (size_t)want;
	return 0;
}

static void raise_nofile(size_t n)
{
	struct rlimit rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur >= n + NOFILE_SLACK)
		return;
	rl.rlim_cur = rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= n + NOFILE_SLACK
			      ? n + NOFILE_SLACK
			      : rl.rlim_max;
	(void)setrlimit(RLIMIT_NOFILE, &rl);
}

static int submit_one(io_context_t ctx, struct target *t)
{
	struct iocb *cbs[1] = { &t->cb };
	size_t align = t->lbs > MEM_ALIGN ? t->lbs : MEM_ALIGN;
	int r;

	if (posix_memalign(&t->buf, align, t->len) != 0)
		return -ENOMEM;
	io_prep_pread(&t->cb, t->fd, t->buf, t->len, 0);
	t->cb.data = t;
	do {
		r = io_submit(ctx, 1, cbs);
	} while (r == -EINTR);
	if (r == 1)
		return 0;
	free(t->buf);
	t->buf = NULL;
	return r < 0 ? r : -EAGAIN;
}

int main(int argc, char **argv)
{
	unsigned depth = 0, first_read = FIRST_READ_DEFAULT, in_flight = 0, failed = 0;
	struct timespec t0, t1, t2;
	struct io_event *evs = NULL;
	struct target *t = NULL;
	io_context_t ctx = 0;
	uint64_t bytes = 0, reads = 0;
	size_t n, next = 0, done = 0;
	int opt, r, ret = 2;

	while ((opt = getopt(argc, argv, "d:b:")) != -1) {
		switch (opt) {
		case 'd':
			depth = (unsigned)strtoul(optarg, NULL, 0);
			break;
		case 'b':
			first_read = (unsigned)strtoul(optarg, NULL, 0);
			break;
		default:
			goto usage;
		}
	}
	n = (size_t)(argc - optind);
	if (n == 0 || n > DEVICES_MAX || depth > DEPTH_MAX || first_read == 0 ||
	    first_read > FIRST_READ_MAX)
		goto usage;
	if (depth == 0)
		depth = n < DEPTH_DEFAULT_MAX ? (unsigned)n : DEPTH_DEFAULT_MAX;
	t = calloc(n, sizeof(*t));
	evs = calloc(depth, sizeof(*evs));
	if (!t || !evs) {
		fprintf(stderr, "floor: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < n; i++)
		t[i].fd = -1;
	raise_nofile(n);

	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	for (size_t i = 0; i < n; i++) {
		t[i].path = argv[optind + (int)i];
		r = open_target(&t[i], first_read);
		if (r < 0) {
			fprintf(stderr, "floor: %s: %s\n", t[i].path, strerror(-r));
			goto out;
		}
	}
	(void)clock_gettime(CLOCK_MONOTONIC, &t1);

	r = io_setup((int)depth, &ctx);
	if (r < 0) {
		fprintf(stderr, "floor: io_setup(%u): %s\n", depth, strerror(-r));
		goto out;
	}
	while (done < n) {
		while (in_flight < depth && next < n) {
			struct target *x = &t[next++];

			if (x->len == 0) {
				done++;
				continue;
			}
			r = submit_one(ctx, x);
			if (r == -EAGAIN && in_flight) {
				next--;
				break;
			}
			if (r < 0) {
				x->err = r;
				done++;
				continue;
			}
			in_flight++;
		}
		if (!in_flight)
			continue;
		r = io_getevents(ctx, 1, (long)depth, evs, NULL);
		if (r == -EINTR)
			continue;
		if (r < 0) {
			fprintf(stderr, "floor: io_getevents: %s\n", strerror(-r));
			goto out;
		}
		for (int i = 0; i < r; i++) {
			struct target *x = evs[i].data;
			long res = (long)evs[i].res;

			if (res < 0)
				x->err = (int)res;
			else if ((size_t)res < x->len)
				x->err = -EIO;
			else
				bytes += (uint64_t)res;
			free(x->buf);
			x->buf = NULL;
			reads++;
			in_flight--;
			done++;
		}
	}
	(void)clock_gettime(CLOCK_MONOTONIC, &t2);

	for (size_t i = 0; i < n; i++) {
		if (!t[i].err)
			continue;
		fprintf(stderr, "floor: %s: %s\n", t[i].path, strerror(-t[i].err));
		failed++;
	}
	printf("devices=%zu reads=%llu bytes=%llu depth=%u open_ms=%.3f io_ms=%.3f total_ms=%.3f\n",
	       n, (unsigned long long)reads, (unsigned long long)bytes, depth, ms_between(&t0, &t1),
	       ms_between(&t1, &t2), ms_between(&t0, &t2));
	ret = failed ? 1 : 0;

out:
	if (ctx)
		(void)io_destroy(ctx);
	for (size_t i = 0; t && i < n; i++)
		if (t[i].fd >= 0)
			(void)close(t[i].fd);
	free(t);
	free(evs);
	return ret;

usage:
	fprintf(stderr, "usage: floor [-d DEPTH] [-b BYTES] DEVICE...\n");
	return 2;
}
