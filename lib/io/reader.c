/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The reader process: forked, isolated, heard from through a pipe, never waited for. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/inject.h"
#include "base/log.h"
#include "base/span.h"
#include "base/strutil.h"
#include "format/probe.h"
#include "io/pvread.h"
#include "io/reader.h"
#include "io/record.h"
#include "io/replay.h"
#include "io/stuck.h"
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
 * In the reader: hold nothing of the caller's but keep[0..n) (the devices, the
 * pipe). stdin, stdout and stderr become /dev/null (unless one of keep has
 * that number); every other descriptor is closed, so no lock, state file or
 * output of the caller's stays open while this process may hang in exit.
 * Sorts keep.
 */
static void isolate(int *keep, size_t n)
{
	int null_fd, from = 3;

	qsort(keep, n, sizeof(*keep), cmp_int);
	null_fd = open("/dev/null", O_RDWR | O_CLOEXEC);
	for (int fd = 0; fd < 3; fd++) {
		if (bsearch(&fd, keep, n, sizeof(*keep), cmp_int))
			continue;
		if (null_fd < 0)
			(void)close(fd);
		else if (null_fd != fd)
			(void)dup2(null_fd, fd);
	}
	if (null_fd > 2)
		(void)close(null_fd);
	for (size_t i = 0; i < n; i++) {
		if (keep[i] < from)
			continue;
		pf_close_fds(from, keep[i] - 1);
		from = keep[i] + 1;
	}
	pf_close_fds(from, INT_MAX);
}

/* The reader of pf_reader_scan(): the caller's descriptors, inherited. */
static void __attribute__((noreturn))
reader_main(struct pf_aio_target *t, size_t n, const struct pf_aio_opts *opts, int out_fd)
{
	int *keep = malloc((n + 1) * sizeof(*keep));
	struct pf_aio_opts o = *opts;

	if (!keep)
		_exit(1);
	for (size_t i = 0; i < n; i++)
		keep[i] = t[i].fd;
	keep[n] = out_fd;
	isolate(keep, n + 1);
	free(keep);
	/* These are the reader's copies: each goes as soon as its device is done. */
	o.close_done = true;
	_exit(pf_tee_record(t, n, &o, out_fd) < 0 ? 1 : 0);
}

/* ---- opening devices in the reader ---- */

/*
 * Opens run on a few threads, each open with the read timeout as its deadline:
 * open() of a dying disk can block in the kernel where no signal reaches it,
 * and one such device must not hold up the opens of the others. A thread stuck
 * in open() is left there and replaced, up to OPEN_HUNG_MAX of them; past
 * that, the devices not yet opened are failed. The scan starts once every
 * device is opened or given up on.
 */
#define OPEN_THREADS 8U
#define OPEN_HUNG_MAX 64U
#define OPEN_THREAD_STACK (256U * 1024U)

enum open_state {
	OS_QUEUED,
	OS_OPENING,
	OS_DONE,     /* result in, not yet reported */
	OS_REPORTED, /* its OPEN record is written (or being written) */
};

struct open_slot {
	enum open_state st;
	uint64_t start_ns;
	int fd;
	struct pf_rec_open res;
};

/* Shared with the opening threads; never freed: a hung thread may wake up any time. */
struct opener {
	pthread_mutex_t mu;
	pthread_cond_t cv;
	const struct pf_reader_dev *devs;
	struct open_slot *s;
	size_t n, next, n_done;
};

static void *open_worker(void *arg)
{
	struct opener *o = arg;

	(void)pthread_mutex_lock(&o->mu);
	while (o->next < o->n) {
		size_t i = o->next++;
		struct open_slot *s = &o->s[i];
		struct pf_rec_open res = { 0 };
		int fd = -1;

		s->st = OS_OPENING;
		s->start_ns = pf_now_ns();
		(void)pthread_mutex_unlock(&o->mu);
		res.err = pf_aio_open(o->devs[i].path, &fd, &res.direct, &res.lbs, &res.size_bytes);
		(void)pthread_mutex_lock(&o->mu);
		if (s->st != OS_OPENING) {
			/* given up on, and another thread took over: this one ends */
			if (res.err == 0)
				(void)close(fd);
			break;
		}
		s->fd = res.err == 0 ? fd : -1;
		s->res = res;
		s->st = OS_DONE;
		o->n_done++;
		(void)pthread_cond_signal(&o->cv);
	}
	(void)pthread_mutex_unlock(&o->mu);
	return NULL;
}

static bool start_worker(struct opener *o)
{
	pthread_attr_t attr;
	pthread_t tid;
	bool ok;

	if (pthread_attr_init(&attr) != 0)
		return false;
	(void)pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	(void)pthread_attr_setstacksize(&attr, OPEN_THREAD_STACK);
	ok = pthread_create(&tid, &attr, open_worker, o) == 0;
	(void)pthread_attr_destroy(&attr);
	return ok;
}

/*
 * Give up on opens past their deadline, and on the queue once too many threads
 * hang. Slots below lo are reported, those from o->next on not yet started.
 */
static void open_expire(struct opener *o, size_t lo, uint64_t timeout_ns, unsigned *n_hung)
{
	uint64_t now = pf_now_ns();

	for (size_t i = lo; i < o->next; i++) {
		struct open_slot *s = &o->s[i];

		if (s->st != OS_OPENING || now - s->start_ns < timeout_ns)
			continue;
		s->res = (struct pf_rec_open){ .err = -ETIMEDOUT, .hung = true };
		s->fd = -1;
		s->st = OS_DONE;
		o->n_done++;
		if (++*n_hung < OPEN_HUNG_MAX && o->next < o->n && start_worker(o))
			continue;
		for (; o->next < o->n; o->next++) {
			struct open_slot *q = &o->s[o->next];

			q->res = (struct pf_rec_open){ .err = -EBUSY, .not_tried = true };
			q->fd = -1;
			q->st = OS_DONE;
			o->n_done++;
		}
	}
}

/* The earliest deadline of an open in progress, or now plus a tick. */
static uint64_t open_next_wake(const struct opener *o, size_t lo, uint64_t timeout_ns)
{
	uint64_t wake = pf_now_ns() + PF_TEE_TICK_MS * NSEC_PER_MSEC;

	for (size_t i = lo; i < o->next; i++)
		if (o->s[i].st == OS_OPENING && o->s[i].start_ns + timeout_ns < wake)
			wake = o->s[i].start_ns + timeout_ns;
	return wake;
}

/*
 * Open every device, writing an OPEN record for each as its result comes (a
 * tick when there was nothing to say for PF_TEE_TICK_MS). Returns the opener
 * with every slot reported, or NULL when the caller stopped listening or
 * memory ran out.
 */
static struct opener *open_all(const struct pf_reader_dev *devs, size_t n, unsigned timeout_ms,
			       int out_fd)
{
	uint64_t timeout_ns = (uint64_t)timeout_ms * NSEC_PER_MSEC, last_write = pf_now_ns();
	uint8_t *buf = malloc(n * (PF_REC_HDR + PF_REC_OPEN_LEN) + PF_REC_HDR);
	struct opener *o = calloc(1, sizeof(*o));
	pthread_condattr_t ca;
	unsigned n_hung = 0, n_threads = 0;
	size_t lo = 0; /* every slot below is reported */

	if (!o || !buf || pthread_condattr_init(&ca) != 0)
		return NULL;
	o->s = calloc(n ? n : 1, sizeof(*o->s));
	if (!o->s || pthread_condattr_setclock(&ca, CLOCK_MONOTONIC) != 0 ||
	    pthread_cond_init(&o->cv, &ca) != 0 || pthread_mutex_init(&o->mu, NULL) != 0)
		return NULL;
	o->devs = devs;
	o->n = n;
	for (unsigned k = 0; k < OPEN_THREADS && k < n; k++)
		n_threads += start_worker(o);
	if (n_threads == 0)
		(void)open_worker(o); /* no thread to spare: one by one, with no deadline */
	(void)pthread_mutex_lock(&o->mu);
	while (lo < n) {
		struct timespec ts;
		size_t len = 0;

		open_expire(o, lo, timeout_ns, &n_hung);
		for (size_t i = lo; i < o->next; i++) {
			if (o->s[i].st != OS_DONE)
				continue;
			pf_rec_put_open(buf + len, buf + len + PF_REC_HDR, (uint32_t)i,
					&o->s[i].res);
			len += PF_REC_HDR + PF_REC_OPEN_LEN;
			o->s[i].st = OS_REPORTED;
		}
		while (lo < o->next && o->s[lo].st == OS_REPORTED)
			lo++;
		if (len == 0 && pf_now_ns() - last_write >= PF_TEE_TICK_MS * NSEC_PER_MSEC) {
			pf_rec_put(buf, &(struct pf_rec){ .type = PF_REC_TICK });
			len = PF_REC_HDR;
		}
		if (len) {
			int r;

			(void)pthread_mutex_unlock(&o->mu);
			r = pf_write_full(out_fd, buf, len);
			last_write = pf_now_ns();
			if (r < 0)
				return NULL;
			pf_inject("reader-opens-sent");
			(void)pthread_mutex_lock(&o->mu);
			continue;
		}
		ts = pf_timespec_from_ns(open_next_wake(o, lo, timeout_ns));
		(void)pthread_cond_timedwait(&o->cv, &o->mu, &ts);
	}
	(void)pthread_mutex_unlock(&o->mu);
	free(buf);
	return o;
}

/* A device's probe as the scan wants it: same in the reader and the caller. */
static void init_probe(const struct pf_reader_dev *d, const struct pf_reader_opts *opts,
		       uint64_t size_bytes, unsigned lbs)
{
	pf_probe_init(d->probe, size_bytes);
	d->probe->read_ignored = opts->read_ignored;
	d->probe->md.when = d->md_end;
	d->probe->md.lbs = lbs;
	d->probe->budget = opts->budget;
}

/* The reader of pf_reader_scan_paths(): opens the devices itself, then reads them. */
static void __attribute__((noreturn))
paths_reader_main(const struct pf_reader_dev *devs, size_t n, const struct pf_reader_opts *opts,
		  const struct pf_aio_opts *ao, int out_fd, int stuck_fd)
{
	struct pf_aio_target *t = calloc(n ? n : 1, sizeof(*t));
	struct pf_aio_opts o = *ao;
	struct opener *op;
	int keep[2] = { out_fd, stuck_fd }, rc;
	size_t m = 0;

	isolate(keep, stuck_fd < 0 ? 1 : 2);
	if (!t)
		_exit(1);
	op = open_all(devs, n, ao->timeout_ms ? ao->timeout_ms : PF_AIO_TIMEOUT_MS_DEFAULT,
		      out_fd);
	if (!op)
		_exit(1);
	for (size_t i = 0; i < n; i++) {
		const struct open_slot *s = &op->s[i];

		if (s->res.err < 0)
			continue;
		init_probe(&devs[i], opts, s->res.size_bytes, s->res.lbs);
		t[m++] = (struct pf_aio_target){ .fd = s->fd,
						 .size_bytes = s->res.size_bytes,
						 .lbs = s->res.lbs,
						 .direct = s->res.direct,
						 .probe = devs[i].probe };
	}
	o.close_done = true;
	pf_inject("reader-opened");
	rc = pf_tee_record(t, m, &o, out_fd) < 0 ? 1 : 0;
	pf_inject("reader-exit");
	_exit(rc);
}

/* What a reader is to do: read targets (fd mode), or open and read devs (path mode). */
struct job {
	struct pf_aio_target *t;
	size_t n_t;
	const struct pf_aio_opts *ao;
	const struct pf_reader_dev *devs; /* path mode */
	size_t n_devs;
	const struct pf_reader_opts *ro;
	int stuck_fd; /* path mode: the reader holds it, and its lock, for as long as it lives */
};

/*
 * Fork the reader as a grandchild: the child exits at once and is reaped
 * here, so the reader belongs to init (or the nearest subreaper) and never
 * needs reaping by the caller. Closes out_fd here in any case.
 */
static int start_reader(const struct job *j, int out_fd)
{
	int st, err, inj = pf_inject_fail("reader-fork");
	pid_t pid = inj < 0 ? -1 : fork();

	if (pid == 0) {
		pid_t g = fork();

		if (g != 0) /* the exit status carries fork()'s errno */
			_exit(g < 0 ? (errno > 0 && errno < 256 ? errno : EAGAIN) : 0);
		/* A caller that stopped listening is told by EPIPE; the reader still ends its own way. */
		(void)signal(SIGPIPE, SIG_IGN);
		if (j->devs)
			paths_reader_main(j->devs, j->n_devs, j->ro, j->ao, out_fd, j->stuck_fd);
		reader_main(j->t, j->n_t, j->ao, out_fd);
	}
	err = inj < 0 ? -inj : errno;
	(void)close(out_fd);
	if (pid < 0)
		return -err;
	while (waitpid(pid, &st, 0) < 0) {
		if (errno == ECHILD) /* SIGCHLD ignored: reaped by the kernel */
			return 0;
		if (errno != EINTR)
			return -errno;
	}
	if (WIFEXITED(st) && WEXITSTATUS(st) == 0)
		return 0;
	return WIFEXITED(st) ? -WEXITSTATUS(st) : -ECHILD;
}

/*
 * A pipe and a reader on its far end; tried twice, as a failure here is
 * usually a passing shortage (processes, descriptors, memory). Never is
 * anything read in this process instead: that is what the reader is for.
 */
static int spawn(const struct job *j, int *ret_rd)
{
	int fds[2], r = 0;

	for (int attempt = 0; attempt < 2; attempt++) {
		r = pf_inject_fail("reader-pipe");
		if (r < 0)
			continue;
		if (pipe2(fds, O_CLOEXEC) < 0) {
			r = -errno;
			continue;
		}
		r = start_reader(j, fds[1]);
		if (r == 0) {
			*ret_rd = fds[0];
			return 0;
		}
		(void)close(fds[0]);
	}
	pf_err("cannot start the reader process: %s", strerror(-r));
	return r;
}

enum recv_end {
	RECV_COMPLETE,
	RECV_SILENT,
	RECV_EOF,
	RECV_BAD,
	RECV_ERROR,
};

/* ---- the caller's side of a scan by path: an OPEN per device, then the scan's records ---- */

struct paths {
	struct pf_reader_dev *devs;
	size_t n;
	const struct pf_reader_opts *opts;
	unsigned timeout_ms;
	bool *known; /* its OPEN came */
	size_t n_known;
	struct pf_aio_target *t; /* the devices opened, in order, as the reader numbers them */
	size_t *which;
	size_t m;
};

/* What the caller takes from the reader's pipe. */
struct intake {
	struct pf_replay *rp; /* path mode: NULL until every device's OPEN came */
	struct paths *ps;     /* NULL in fd mode */
	uint8_t rec[PF_REC_HDR + PF_REC_OPEN_LEN];
	size_t got;
	struct pf_rec h;
	uint64_t bytes;
};

static void paths_opened(struct paths *ps, size_t i, const struct pf_rec_open *o)
{
	struct pf_reader_dev *d = &ps->devs[i];

	pf_probe_release(d->probe);
	init_probe(d, ps->opts, o->size_bytes, o->lbs);
	d->opened = o->err == 0;
	d->status = o->err;
	if (o->hung)
		pf_diag_msg(&d->diag, "cannot open %s: no answer within %u ms: device left out",
			    d->path, ps->timeout_ms);
	else if (o->not_tried)
		pf_diag_msg(&d->diag,
			    "cannot open %s: not tried, too many opens of other devices never "
			    "returned: device left out",
			    d->path);
	else if (o->err < 0)
		pf_diag_msg(&d->diag, "cannot open %s: %s", d->path, strerror(-o->err));
}

/*
 * The replay of the devices opened, in order, as the reader numbers them in
 * the scan's records: once every device's OPEN is in, or when the stream
 * ended before (then it only fails them).
 */
static int paths_start_replay(struct intake *in)
{
	struct paths *ps = in->ps;

	for (size_t i = 0; i < ps->n; i++) {
		const struct pf_probe *p = ps->devs[i].probe;

		if (!ps->devs[i].opened)
			continue;
		ps->t[ps->m] = (struct pf_aio_target){ .fd = -1,
						       .size_bytes = p->dev_size_bytes,
						       .lbs = p->md.lbs,
						       .probe = ps->devs[i].probe };
		ps->which[ps->m++] = i;
	}
	return pf_replay_new(ps->t, ps->m, &in->rp);
}

/* Take OPEN records (and ticks) from the front of the stream until every device has one. */
static int take_opens(struct intake *in, const uint8_t **p, size_t *len)
{
	struct paths *ps = in->ps;

	while (*len && !in->rp) {
		size_t need = in->got < PF_REC_HDR ? PF_REC_HDR : PF_REC_HDR + in->h.len;
		size_t take = need - in->got < *len ? need - in->got : *len;
		struct pf_rec_open o;

		memcpy(in->rec + in->got, *p, take);
		in->got += take;
		*p += take;
		*len -= take;
		if (in->got < need)
			break;
		if (need == PF_REC_HDR) {
			if (pf_rec_get(pf_span_make(in->rec, PF_REC_HDR), ps->n, &in->h) < 0 ||
			    (in->h.type != PF_REC_OPEN && in->h.type != PF_REC_TICK))
				return -EBADMSG;
			if (in->h.len) /* an OPEN's payload: PF_REC_OPEN_LEN, checked */
				continue;
		}
		in->got = 0;
		if (in->h.type == PF_REC_TICK)
			continue;
		if (ps->known[in->h.dev] ||
		    pf_rec_get_open(&in->h, pf_span_make(in->rec + PF_REC_HDR, in->h.len), &o) < 0)
			return -EBADMSG;
		ps->known[in->h.dev] = true;
		paths_opened(ps, in->h.dev, &o);
		if (++ps->n_known == ps->n) {
			int r = paths_start_replay(in);

			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int intake_push(struct intake *in, const uint8_t *p, size_t len)
{
	int r;

	in->bytes += len;
	if (in->ps && !in->rp) {
		r = take_opens(in, &p, &len);
		if (r < 0)
			return r;
	}
	return len ? pf_replay_push(in->rp, p, len) : 0;
}

static bool intake_complete(const struct intake *in)
{
	return in->rp && pf_replay_complete(in->rp);
}

/* Take the reader's records until its end record, its end of file, or idle_ms of silence. */
static enum recv_end receive(struct intake *in, int fd, unsigned idle_ms, int *ret_err)
{
	_cleanup_free_ uint8_t *buf = malloc(IN_BUF_BYTES);
	uint64_t idle_ns = (uint64_t)idle_ms * NSEC_PER_MSEC, last = pf_now_ns();

	if (!buf) {
		*ret_err = -ENOMEM;
		return RECV_ERROR;
	}
	while (!intake_complete(in)) {
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
		r = intake_push(in, buf, (size_t)got);
		if (r == -ENOMEM) {
			*ret_err = r;
			return RECV_ERROR;
		}
		if (r < 0)
			return RECV_BAD;
	}
	return RECV_COMPLETE;
}

/*
 * Run a job through a reader and take what it says. On return every device
 * of the job has its results: the reader's, or err and why when it could
 * not give them. Returns the scan's return code, or spawn()'s error.
 */
static int run_job(const struct job *j, struct intake *in, unsigned timeout_ms, int *ret_err,
		   char *why, size_t why_size)
{
	_cleanup_close_ int rd = -1;
	unsigned idle_ms = timeout_ms + PF_READER_GRACE_MS;
	enum recv_end end;
	int r, err = 0;

	r = spawn(j, &rd);
	if (r < 0)
		return r;
	end = receive(in, rd, idle_ms, &err);
	(void)close(TAKE_FD(rd)); /* a reader still writing gets EPIPE and stops */
	switch (end) {
	case RECV_COMPLETE:
		err = -EPROTO;
		(void)snprintf(why, why_size, "the reader process did not report it");
		break;
	case RECV_SILENT:
		err = -ETIMEDOUT;
		(void)snprintf(why, why_size, "no word from the reader process for %u ms", idle_ms);
		break;
	case RECV_EOF:
		err = -EPIPE;
		(void)snprintf(why, why_size, "%s",
			       in->bytes == 0 ? "the reader process ended before reading anything"
					      : "the reader process ended early");
		break;
	case RECV_BAD:
		err = -EPROTO;
		(void)snprintf(why, why_size, "the reader process sent a malformed record");
		break;
	case RECV_ERROR:
		(void)snprintf(why, why_size, "cannot take the reader process's records: %s",
			       strerror(-err));
		break;
	}
	*ret_err = err;
	return 0;
}

int pf_reader_scan(struct pf_aio_target *targets, size_t n, const struct pf_aio_opts *opts,
		   struct pf_aio_stats *ret_stats)
{
	static const struct pf_aio_opts defaults;
	struct intake in = { 0 };
	char why[PF_DIAG_MSG_MAX / 2];
	struct job j = { .t = targets, .n_t = n, .stuck_fd = -1 };
	int r, err = 0;

	if (!opts)
		opts = &defaults;
	j.ao = opts;
	r = pf_aio_check_args(targets, n, opts);
	if (r < 0)
		return r;
	if (n == 0)
		return pf_aio_scan(targets, n, opts, ret_stats);
	/* The reader's completions are told apart by descriptor. */
	if (!fds_distinct(targets, n))
		return -EINVAL;
	r = pf_replay_new(targets, n, &in.rp);
	if (r < 0)
		return r;
	r = run_job(&j, &in, opts->timeout_ms ? opts->timeout_ms : PF_AIO_TIMEOUT_MS_DEFAULT, &err,
		    why, sizeof(why));
	if (r < 0) {
		(void)snprintf(why, sizeof(why), "cannot start the reader process: %s",
			       strerror(-r));
		(void)pf_replay_finish(in.rp, r, why, ret_stats);
	} else {
		r = pf_replay_finish(in.rp, err, why, ret_stats);
	}
	pf_replay_free(in.rp);
	return r;
}

/* pread in this process, as asked (no_aio): no reader and no timeout. */
static int scan_paths_pread(struct pf_reader_dev *devs, size_t n, const struct pf_reader_opts *opts)
{
	int r = 0;

	for (size_t i = 0; i < n; i++) {
		struct pf_reader_dev *d = &devs[i];
		_cleanup_close_ int fd = -1;
		uint64_t size = 0;
		int lbs, err;

		/* pread takes any buffer, O_DIRECT only aligned ones: buffered. */
		err = pf_pvread_open(d->path, &fd, &size);
		init_probe(d, opts, err < 0 ? 0 : size, 0);
		/* where IMSM's signature is depends on it; lvm2 asks BLKSSZGET too */
		if (err == 0 && ioctl(fd, BLKSSZGET, &lbs) == 0 && lbs > 0)
			d->probe->md.lbs = (unsigned)lbs;
		d->opened = err == 0;
		d->status = err;
		if (err < 0) {
			pf_diag_msg(&d->diag, "cannot open %s: %s", d->path, strerror(-err));
			continue;
		}
		if (r == 0)
			r = pf_pvread_probe(fd, d->probe);
	}
	return r;
}

/* The devices the reader never said anything about: failed with why. */
static void paths_unknown(struct paths *ps, int err, const char *why)
{
	for (size_t i = 0; i < ps->n; i++) {
		struct pf_reader_dev *d = &ps->devs[i];

		if (ps->known[i])
			continue;
		d->status = err;
		d->reader_lost = true;
		pf_diag_msg(&d->diag, "%s not read: %s: device left out", d->path, why);
	}
}

/* A device as it stands before the reader says anything: not opened, nothing read. */
static void reset_dev(struct pf_reader_dev *d, const struct pf_reader_opts *opts)
{
	init_probe(d, opts, 0, 0);
	d->opened = false;
	d->status = 0;
	pf_diag_clear(&d->diag);
	d->bytes_read = 0;
	d->n_reads = 0;
	d->reader_lost = false;
}

static int scan_paths(struct pf_reader_dev *devs, size_t n, const struct pf_reader_opts *opts,
		      int stuck_fd, bool *ret_nofile_limited)
{
	_cleanup_free_ struct pf_aio_target *t = NULL;
	_cleanup_free_ size_t *which = NULL;
	_cleanup_free_ bool *known = NULL;
	struct pf_aio_opts ao = { 0 };
	struct paths ps = { 0 };
	struct intake in = { .ps = &ps };
	struct job j = { .ao = &ao, .stuck_fd = stuck_fd };
	char why[PF_DIAG_MSG_MAX / 2];
	bool limited;
	int r, r2, err = 0;

	t = calloc(n ? n : 1, sizeof(*t));
	which = calloc(n ? n : 1, sizeof(*which));
	known = calloc(n ? n : 1, sizeof(*known));
	if (!t || !which || !known)
		return -ENOMEM;
	/*
	 * Not fatal: past the limit the opens fail one by one, and each device says so.
	 * Raised here, the reader inherits it.
	 */
	limited = pf_aio_raise_nofile(n) < 0;
	/* Until the reader says otherwise, nothing is opened. */
	for (size_t i = 0; i < n; i++)
		reset_dev(&devs[i], opts);
	if (opts->no_aio) {
		r = scan_paths_pread(devs, n, opts);
		goto out;
	}
	if (n == 0) {
		r = 0;
		goto out;
	}
	ao.timeout_ms = opts->timeout_ms ? opts->timeout_ms : PF_AIO_TIMEOUT_MS_DEFAULT;
	ao.proc_dir = opts->proc_dir;
	j.devs = devs;
	j.n_devs = n;
	j.ro = opts;
	ps = (struct paths){ .devs = devs, .n = n, .opts = opts, .timeout_ms = ao.timeout_ms,
			     .known = known, .t = t, .which = which };
	/* In a reader process: neither an open nor a read that never ends may hold us. */
	r = run_job(&j, &in, ao.timeout_ms, &err, why, sizeof(why));
	if (r < 0) {
		(void)snprintf(why, sizeof(why), "cannot start the reader process: %s",
			       strerror(-r));
		err = r;
	}
	paths_unknown(&ps, err, why);
	/* The stream ended among the opens: the devices opened so far were not read either. */
	if (!in.rp && paths_start_replay(&in) < 0) {
		pf_replay_free(in.rp);
		return -ENOMEM;
	}
	r2 = pf_replay_finish(in.rp, err, why, NULL);
	if (r == 0)
		r = r2;
	for (size_t k = 0; k < ps.m; k++) {
		struct pf_reader_dev *d = &devs[which[k]];

		d->status = t[k].status;
		d->diag = t[k].diag;
		d->bytes_read = t[k].bytes_read;
		d->n_reads = t[k].n_reads;
		d->reader_lost = t[k].status < 0 && t[k].reader_lost;
	}
	pf_replay_free(in.rp);
out:
	if (r == 0 && ret_nofile_limited)
		*ret_nofile_limited = limited;
	return r;
}

/* A device a live reader is still stuck on: failed unread, with how long it has been. */
static void fail_stuck(struct pf_reader_dev *d, const struct pf_reader_opts *opts,
		       const struct pf_stuck_key *hung)
{
	long long ago = hung->since > 0 ? (long long)time(NULL) - hung->since : -1;

	reset_dev(d, opts);
	d->status = -ETIMEDOUT;
	if (ago >= 0)
		pf_diag_msg(&d->diag,
			    "%s not read: a read of it %lld s ago has not returned yet: device "
			    "left out",
			    d->path, ago);
	else
		pf_diag_msg(&d->diag,
			    "%s not read: an earlier read of it has not returned yet: device "
			    "left out",
			    d->path);
}

int pf_reader_scan_paths(struct pf_reader_dev *devs, size_t n, const struct pf_reader_opts *opts,
			 bool *ret_nofile_limited)
{
	static const struct pf_reader_opts defaults;
	_cleanup_free_ struct pf_stuck_key *stuck = NULL, *keys = NULL;
	_cleanup_free_ struct pf_reader_dev *sub = NULL;
	_cleanup_free_ size_t *which = NULL;
	_cleanup_free_ bool *have_key = NULL;
	struct pf_stuck_file f = { .fd = -1 };
	size_t n_stuck = 0, m = 0;
	int r;

	if (!opts)
		opts = &defaults;
	if (n && !devs)
		return -EINVAL;
	if (n > PF_AIO_TARGETS_MAX)
		return -E2BIG;
	for (size_t i = 0; i < n; i++)
		if (!devs[i].path || !devs[i].probe)
			return -EINVAL;
	if (!opts->stuck_dir || opts->no_aio || n == 0)
		return scan_paths(devs, n, opts, -1, ret_nofile_limited);
	keys = calloc(n, sizeof(*keys));
	have_key = calloc(n, sizeof(*have_key));
	sub = calloc(n, sizeof(*sub));
	which = calloc(n, sizeof(*which));
	if (!keys || !have_key || !sub || !which)
		return -ENOMEM;
	r = pf_stuck_load(opts->stuck_dir, &stuck, &n_stuck);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		pf_debug("cannot read %s: %s", opts->stuck_dir, strerror(-r));
	for (size_t i = 0; i < n; i++) {
		const struct pf_stuck_key *hung = NULL;

		/* A stat per device only while some reader is stuck: the usual scan has none. */
		if (n_stuck)
			have_key[i] = pf_stuck_key_of(devs[i].path, &keys[i]) == 0;
		if (have_key[i])
			hung = pf_stuck_find(stuck, n_stuck, &keys[i]);
		if (hung) {
			fail_stuck(&devs[i], opts, hung);
			continue;
		}
		sub[m] = devs[i];
		which[m++] = i;
	}
	/* Without the file the scan still runs: only a later scan's restraint is lost. */
	r = pf_stuck_begin(opts->stuck_dir, &f);
	if (r < 0)
		pf_debug("cannot make a reader's file in %s: %s", opts->stuck_dir, strerror(-r));
	r = scan_paths(sub, m, opts, f.fd, ret_nofile_limited);
	for (size_t k = 0; k < m; k++) {
		size_t i = which[k];

		devs[i] = sub[k];
		if (devs[i].status != -ETIMEDOUT || devs[i].reader_lost || f.fd < 0)
			continue;
		if (!have_key[i])
			have_key[i] = pf_stuck_key_of(devs[i].path, &keys[i]) == 0;
		if (!have_key[i] || pf_stuck_note(&f, &keys[i]) < 0)
			pf_debug("cannot note %s in %s", devs[i].path, f.path);
	}
	pf_stuck_end(&f);
	return r;
}
