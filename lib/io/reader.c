/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reader process: forked, isolated, heard from through a pipe, never waited for. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "format/probe.h"
#include "io/pvread.h"
#include "io/reader.h"
#include "io/replay.h"
#include "io/tee.h"

/* What the caller reads at once. */
#define IN_BUF_BYTES (256U * 1024U)

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

static bool fds_distinct(const struct pf_aio_target *t, size_t n)
{
	_cleanup_free_ int *fds = malloc(n * sizeof(*fds));

	if (!fds)
		return false;
	for (size_t i = 0; i < n; i++)
		fds[i] = t[i].fd;
	qsort(fds, n, sizeof(*fds), cmp_int);
	for (size_t i = 1; i < n; i++)
		if (fds[i] == fds[i - 1])
			return false;
	return true;
}

/*
 * In the reader: hold nothing of the caller's but the devices and the pipe.
 * stdin, stdout and stderr become /dev/null (unless a device took one of
 * those numbers); every other descriptor is closed, so no lock, state file or
 * output of the caller's stays open while this process may hang in exit.
 */
static int isolate(const struct pf_aio_target *t, size_t n, int out_fd)
{
	_cleanup_free_ int *keep = malloc((n + 1) * sizeof(*keep));
	int null_fd, from = 3;

	if (!keep)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		keep[i] = t[i].fd;
	keep[n] = out_fd;
	qsort(keep, n + 1, sizeof(*keep), cmp_int);
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd < 3; fd++) {
		if (bsearch(&fd, keep, n + 1, sizeof(*keep), cmp_int))
			continue;
		if (null_fd < 0)
			(void)close(fd);
		else if (null_fd != fd)
			(void)dup2(null_fd, fd);
	}
	if (null_fd > 2)
		(void)close(null_fd);
	for (size_t i = 0; i <= n; i++) {
		if (keep[i] < from)
			continue;
		pf_close_fds(from, keep[i] - 1);
		from = keep[i] + 1;
	}
	pf_close_fds(from, INT_MAX);
	return 0;
}

static void __attribute__((noreturn))
reader_main(struct pf_aio_target *t, size_t n, const struct pf_aio_opts *opts, int out_fd)
{
	/* With nothing written the caller reads the devices itself. */
	if (isolate(t, n, out_fd) < 0 || pf_tee_record(t, n, opts, out_fd) < 0)
		_exit(1);
	_exit(0);
}

/*
 * Fork the reader as a grandchild: the child exits at once and is reaped
 * here, so the reader belongs to init (or the nearest subreaper) and never
 * needs reaping by the caller. Closes out_fd here in any case.
 */
static int start_reader(struct pf_aio_target *t, size_t n, const struct pf_aio_opts *opts,
			int out_fd)
{
	int st, err;
	pid_t pid = fork();

	if (pid == 0) {
		pid_t g = fork();

		if (g != 0)
			_exit(g < 0 ? 1 : 0);
		reader_main(t, n, opts, out_fd);
	}
	err = errno;
	(void)close(out_fd);
	if (pid < 0)
		return -err;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno == ECHILD) /* SIGCHLD ignored: reaped by the kernel */
			return 0;
		if (errno != EINTR)
			return -errno;
	}
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -ECHILD;
}

enum recv_end {
	RECV_COMPLETE,
	RECV_SILENT,
	RECV_EOF,
	RECV_BAD,
	RECV_ERROR,
};

/* Take the reader's records until its end record, its end of file, or idle_ms of silence. */
static enum recv_end receive(struct pf_replay *rp, int fd, unsigned idle_ms, int *ret_err)
{
	_cleanup_free_ uint8_t *buf = malloc(IN_BUF_BYTES);
	uint64_t idle_ns = (uint64_t)idle_ms * NSEC_PER_MSEC, last = pf_now_ns();

	if (!buf) {
		*ret_err = -ENOMEM;
		return RECV_ERROR;
	}
	while (!pf_replay_complete(rp)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = pf_now_ns(), left;
		ssize_t got;
		int r;

		if (now - last >= idle_ns)
			return RECV_SILENT;
		left = last + idle_ns - now;
		r = poll(&pfd, 1, (int)((left + NSEC_PER_MSEC - 1) / NSEC_PER_MSEC));
		if (r < 0 && errno != EINTR) {
			*ret_err = -errno;
			return RECV_ERROR;
		}
		if (r <= 0)
			continue;
		got = read(fd, buf, IN_BUF_BYTES);
		if (got < 0) {
			if (errno == EINTR || errno == EAGAIN)
				continue;
			*ret_err = -errno;
			return RECV_ERROR;
		}
		if (got == 0)
			return RECV_EOF;
		last = pf_now_ns();
		r = pf_replay_push(rp, buf, (size_t)got);
		if (r == -ENOMEM) {
			*ret_err = r;
			return RECV_ERROR;
		}
		if (r < 0)
			return RECV_BAD;
	}
	return RECV_COMPLETE;
}

int pf_reader_scan(struct pf_aio_target *targets, size_t n, const struct pf_aio_opts *opts,
		   struct pf_aio_stats *ret_stats)
{
	static const struct pf_aio_opts defaults;
	struct pf_replay *rp = NULL;
	_cleanup_close_ int rd = -1;
	char why[PF_DIAG_MSG_MAX / 2];
	enum recv_end end;
	unsigned idle_ms;
	int fds[2], r, err = 0;

	if (!opts)
		opts = &defaults;
	r = pf_aio_check_args(targets, n, opts);
	if (r < 0)
		return r;
	if (n == 0 || !fds_distinct(targets, n))
		return pf_aio_scan(targets, n, opts, ret_stats);
	r = pf_replay_new(targets, n, &rp);
	if (r < 0)
		return r;
	if (pipe2(fds, O_CLOEXEC) < 0)
		goto in_process;
	rd = fds[0];
	if (start_reader(targets, n, opts, fds[1]) < 0)
		goto in_process;
	idle_ms = (opts->timeout_ms ? opts->timeout_ms : PF_AIO_TIMEOUT_MS_DEFAULT) +
		  PF_READER_GRACE_MS;
	end = receive(rp, rd, idle_ms, &err);
	(void)close(TAKE_FD(rd)); /* a reader still writing gets EPIPE and stops */
	switch (end) {
	case RECV_COMPLETE:
		err = -EPROTO;
		(void)snprintf(why, sizeof(why), "the reader process did not report it");
		break;
	case RECV_SILENT:
		err = -ETIMEDOUT;
		(void)snprintf(why, sizeof(why), "no word from the reader process for %u ms",
			       idle_ms);
		break;
	case RECV_EOF:
		if (pf_replay_bytes(rp) == 0)
			goto in_process; /* it died before reading: read here */
		err = -EPIPE;
		(void)snprintf(why, sizeof(why), "the reader process ended early");
		break;
	case RECV_BAD:
		err = -EPROTO;
		(void)snprintf(why, sizeof(why), "the reader process sent a malformed record");
		break;
	case RECV_ERROR:
		(void)snprintf(why, sizeof(why), "cannot take the reader process's records: %s",
			       strerror(-err));
		break;
	}
	r = pf_replay_finish(rp, err, why, ret_stats);
	pf_replay_free(rp);
	return r;

in_process:
	pf_replay_free(rp);
	return pf_aio_scan(targets, n, opts, ret_stats);
}

int pf_reader_scan_paths(struct pf_reader_dev *devs, size_t n, const struct pf_reader_opts *opts,
			 bool *ret_nofile_limited)
{
	static const struct pf_reader_opts defaults;
	_cleanup_free_ struct pf_aio_target *t = NULL;
	_cleanup_free_ size_t *which = NULL;
	struct pf_aio_opts ao = { 0 };
	bool limited;
	size_t m = 0;
	int lbs, r = 0;

	if (!opts)
		opts = &defaults;
	if (n && !devs)
		return -EINVAL;
	if (n > PF_AIO_TARGETS_MAX)
		return -E2BIG;
	for (size_t i = 0; i < n; i++)
		if (!devs[i].path || !devs[i].probe)
			return -EINVAL;
	t = calloc(n ? n : 1, sizeof(*t));
	which = calloc(n ? n : 1, sizeof(*which));
	if (!t || !which)
		return -ENOMEM;
	/* Not fatal: past the limit the opens fail one by one, and each device says so. */
	limited = pf_aio_raise_nofile(n) < 0;
	for (size_t i = 0; i < n; i++) {
		struct pf_reader_dev *d = &devs[i];
		struct pf_aio_target *tt = &t[m];
		int err;

		/* pread takes any buffer, O_DIRECT only aligned ones: buffered for no_aio. */
		if (opts->no_aio)
			err = pf_pvread_open(d->path, &tt->fd, &tt->size_bytes);
		else
			err = pf_aio_open(d->path, &tt->fd, &tt->direct, &tt->lbs, &tt->size_bytes);
		pf_probe_init(d->probe, err < 0 ? 0 : tt->size_bytes);
		d->probe->read_ignored = opts->read_ignored;
		d->probe->md.when = d->md_end;
		d->probe->md.lbs = tt->lbs;
		/* where IMSM's signature is depends on it; lvm2 asks BLKSSZGET too */
		if (err == 0 && opts->no_aio && ioctl(tt->fd, BLKSSZGET, &lbs) == 0 && lbs > 0)
			d->probe->md.lbs = (unsigned)lbs;
		d->opened = err == 0;
		d->status = err;
		pf_diag_clear(&d->diag);
		d->bytes_read = 0;
		d->n_reads = 0;
		if (err < 0) {
			pf_diag_msg(&d->diag, "cannot open %s: %s", d->path, strerror(-err));
			continue;
		}
		tt->probe = d->probe;
		which[m++] = i;
	}
	if (opts->no_aio) {
		for (size_t k = 0; k < m && r == 0; k++)
			r = pf_pvread_probe(t[k].fd, t[k].probe);
	} else if (m) {
		ao.timeout_ms = opts->timeout_ms;
		ao.proc_dir = opts->proc_dir;
		/* In a reader process: a read that never ends must not hold our exit. */
		r = pf_reader_scan(t, m, &ao, NULL);
	}
	for (size_t k = 0; k < m; k++) {
		struct pf_reader_dev *d = &devs[which[k]];

		(void)close(t[k].fd);
		d->status = t[k].status;
		d->diag = t[k].diag;
		d->bytes_read = t[k].bytes_read;
		d->n_reads = t[k].n_reads;
	}
	if (r == 0 && ret_nofile_limited)
		*ret_nofile_limited = limited;
	return r;
}
