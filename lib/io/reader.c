/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The async scan in a reader process: record what its probes were fed, replay it in the caller. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/fs.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/ioengine.h"
#include "format/probe.h"
#include "io/pvread.h"
#include "io/reader.h"

#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL
/* Pieces of a device kept at once, as the async scan keeps them (it starts over beyond). */
#define EXTENTS_MAX 8U
/* What the reader batches into one write, and what the caller reads at once. */
#define OUT_BUF_BYTES (256U * 1024U)
#define IN_BUF_BYTES (256U * 1024U)
/* Largest errno a read may report; anything beyond is no errno. */
#define ERRNO_MAX 4095

#define container_of(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/*
 * ---- the record stream ----
 *
 * Records in the machine's byte order (both ends are the same program): a
 * 32-byte header { magic, type, device, payload length, value, offset } and
 * the payload. FEED: the bytes handed to the device's probe for the range
 * starting at offset. FAIL: the probe's current step failed with value.
 * END: the device's outcome (value: status; payload: counts and diag).
 * TICK: nothing, the reader is alive. DONE: the scan's return code (value)
 * and statistics; nothing follows.
 */
#define REC_MAGIC 0x44524650U /* "PFRD" */
#define REC_HDR 32U
#define REC_END_FIXED 40U
#define REC_DONE_LEN 56U

enum rec_type {
	REC_FEED = 1,
	REC_FAIL,
	REC_END,
	REC_TICK,
	REC_DONE,
};

static void put32(uint8_t *b, size_t at, uint32_t v)
{
	memcpy(b + at, &v, sizeof(v));
}

static void put64(uint8_t *b, size_t at, uint64_t v)
{
	memcpy(b + at, &v, sizeof(v));
}

static uint32_t get32(const uint8_t *b, size_t at)
{
	uint32_t v;

	memcpy(&v, b + at, sizeof(v));
	return v;
}

static uint64_t get64(const uint8_t *b, size_t at)
{
	uint64_t v;

	memcpy(&v, b + at, sizeof(v));
	return v;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

static bool lbs_is_valid(uint64_t lbs)
{
	return lbs >= 512 && lbs <= PF_AIO_LBS_MAX && (lbs & (lbs - 1)) == 0;
}

/* pf_aio_scan()'s argument checks, so both ends refuse the same things before any work. */
static int check_args(const struct pf_aio_target *t, size_t n, const struct pf_aio_opts *o)
{
	if (n && !t)
		return -EINVAL;
	if (n > PF_AIO_TARGETS_MAX)
		return -E2BIG;
	if (o->queue_depth > PF_AIO_DEPTH_LIMIT || o->first_read_bytes > PF_AIO_FIRST_READ_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (t[i].fd < 0 || !t[i].probe || !lbs_is_valid(t[i].lbs) ||
		    t[i].size_bytes > INT64_MAX)
			return -EINVAL;
	return 0;
}

/* ---- the reader's side: output ---- */

struct out {
	int fd;
	int err; /* first write error: the caller stopped listening */
	size_t len;
	uint64_t last_ns; /* last write */
	uint8_t *buf;	  /* OUT_BUF_BYTES */
};

static int write_all(int fd, const uint8_t *p, size_t len)
{
	while (len) {
		ssize_t w = write(fd, p, len);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		p += w;
		len -= (size_t)w;
	}
	return 0;
}

static void out_write(struct out *o, const uint8_t *p, size_t len)
{
	int r;

	if (o->err || len == 0)
		return;
	r = write_all(o->fd, p, len);
	if (r < 0)
		o->err = r;
	o->last_ns = now_ns();
}

static void out_flush(struct out *o)
{
	out_write(o, o->buf, o->len);
	o->len = 0;
}

static void out_put(struct out *o, const uint8_t *hdr, const uint8_t *payload, size_t len)
{
	if (o->len + REC_HDR + len > OUT_BUF_BYTES)
		out_flush(o);
	memcpy(o->buf + o->len, hdr, REC_HDR);
	o->len += REC_HDR;
	if (len > OUT_BUF_BYTES - o->len) { /* a long text: straight from where it is */
		out_flush(o);
		out_write(o, payload, len);
		return;
	}
	if (len)
		memcpy(o->buf + o->len, payload, len);
	o->len += len;
}

static void rec_put(struct out *o, enum rec_type type, size_t dev, int64_t val, uint64_t off,
		    const uint8_t *payload, size_t len)
{
	uint8_t h[REC_HDR];

	put32(h, 0, REC_MAGIC);
	put32(h, 4, type);
	put32(h, 8, (uint32_t)dev);
	put32(h, 12, (uint32_t)len);
	put64(h, 16, (uint64_t)val);
	put64(h, 24, off);
	out_put(o, h, payload, len);
}

static void rec_put_end(struct out *o, size_t dev, int status, const struct pf_diag *diag,
			uint64_t bytes_read, unsigned n_reads)
{
	uint8_t b[REC_END_FIXED + PF_DIAG_MSG_MAX];
	size_t msg_len = diag ? strnlen(diag->msg, PF_DIAG_MSG_MAX - 1) : 0;

	memset(b, 0, REC_END_FIXED);
	put64(b, 0, bytes_read);
	put32(b, 8, n_reads);
	if (diag) {
		put32(b, 12, diag->has_offset);
		put64(b, 16, diag->offset);
		put32(b, 24, diag->line);
		put32(b, 28, diag->col);
		memcpy(b + REC_END_FIXED, diag->msg, msg_len);
	}
	put32(b, 32, (uint32_t)msg_len);
	rec_put(o, REC_END, dev, status, 0, b, REC_END_FIXED + msg_len);
}

static void rec_put_done(struct out *o, int r, const struct pf_aio_stats *s)
{
	uint8_t b[REC_DONE_LEN] = { 0 };

	put32(b, 0, s->depth);
	put32(b, 4, s->max_in_flight);
	put64(b, 8, s->n_reads);
	put64(b, 16, s->bytes_read);
	put64(b, 24, s->n_submit_calls);
	put64(b, 32, s->n_wait_calls);
	put32(b, 40, s->n_timeouts);
	put64(b, 48, s->mem_peak_bytes);
	rec_put(o, REC_DONE, 0, r, 0, b, sizeof(b));
}

/*
 * ---- the reader's side: shadow probes ----
 *
 * The async scan feeds its probes itself, so what they were fed is recorded
 * by a second ("shadow") probe per device, fed from the same reads as the
 * scan sees them complete (the engine below is a tee), by the scan's rules:
 * a range wholly read is fed, a read that failed fails the step, a short read
 * feeds what it brought to the next step. The scan's own steps that fail
 * without a completed read (timeout, no memory, refused submission) are seen
 * when the scan's probe has moved past the step the shadow waits at: the
 * shadow fails it with the status the scan's probe recorded. The shadow keeps
 * copies of what was read only while it is not done, as the scan keeps its
 * buffers.
 */

struct extent {
	uint64_t off;
	size_t len;
	const uint8_t *p; /* own, or the read's buffer while its completion is handled */
	uint8_t *own;
};

struct shadow {
	struct pf_probe probe;
	bool short_read;
	uint64_t bytes_read;
	unsigned n_reads;
	unsigned n_ext;
	struct extent ext[EXTENTS_MAX];
};

struct fd_index {
	int fd;
	uint32_t i;
};

struct rec {
	struct pf_aio_target *t;
	size_t n;
	struct fd_index *map; /* sorted by fd */
	struct shadow **sh;   /* NULL before a device's first read and after its end */
	bool *ended;
	struct out out;
};

static int cmp_fd_index(const void *a, const void *b)
{
	const struct fd_index *x = a, *y = b;

	return (x->fd > y->fd) - (x->fd < y->fd);
}

static ssize_t rec_find(const struct rec *rc, int fd)
{
	struct fd_index key = { .fd = fd }, *hit;

	hit = bsearch(&key, rc->map, rc->n, sizeof(*rc->map), cmp_fd_index);
	return hit ? (ssize_t)hit->i : -1;
}

static void ext_release(struct shadow *s)
{
	for (unsigned i = 0; i < s->n_ext; i++)
		free(s->ext[i].own);
	s->n_ext = 0;
}

/* Where the probe is in its sequence of steps: a shadow never passes the scan's probe. */
static unsigned probe_pos(const struct pf_probe *p)
{
	switch (p->step) {
	case PF_PROBE_LABEL:
		return 0;
	case PF_PROBE_MDA_HEADER:
		return 1 + 3 * p->cur;
	case PF_PROBE_MDA_TEXT1:
		return 2 + 3 * p->cur;
	case PF_PROBE_MDA_TEXT2:
		return 3 + 3 * p->cur;
	case PF_PROBE_MD_END:
		return 1 + 3 * PF_PROBE_MDAS;
	case PF_PROBE_DONE:
		break;
	}
	return UINT_MAX;
}

/* The error the scan's probe p recorded for the step the shadow probe at is on. */
static int step_status(const struct pf_probe *p, const struct pf_probe *at)
{
	unsigned c = at->cur < PF_PROBE_MDAS ? at->cur : 0;
	int st = -EIO;

	switch (at->step) {
	case PF_PROBE_LABEL:
		st = p->label_status;
		break;
	case PF_PROBE_MDA_HEADER:
		st = p->mdas[c].header_status;
		break;
	case PF_PROBE_MDA_TEXT1:
	case PF_PROBE_MDA_TEXT2:
		st = p->mdas[c].text_status;
		break;
	case PF_PROBE_MD_END:
		st = p->md_end_status;
		break;
	case PF_PROBE_DONE:
		break;
	}
	return st < 0 ? st : -EIO;
}

static struct shadow *shadow_get(struct rec *rc, size_t i)
{
	struct shadow *s = rc->sh[i];

	if (s)
		return s;
	s = calloc(1, sizeof(*s));
	if (!s)
		return NULL;
	pf_probe_init(&s->probe, rc->t[i].size_bytes);
	s->probe.read_ignored = rc->t[i].probe->read_ignored;
	s->probe.md = rc->t[i].probe->md;
	rc->sh[i] = s;
	return s;
}

static void end_dev(struct rec *rc, size_t i, int status, const struct pf_diag *diag,
		    uint64_t bytes_read, unsigned n_reads)
{
	struct shadow *s = rc->sh[i];

	rec_put_end(&rc->out, i, status, diag, bytes_read, n_reads);
	rc->ended[i] = true;
	if (s) {
		ext_release(s);
		pf_probe_release(&s->probe);
		free(s);
		rc->sh[i] = NULL;
	}
}

/* The reader cannot record this device any further: the caller fails it. */
static void end_nomem(struct rec *rc, size_t i)
{
	struct pf_diag d = { 0 };
	struct shadow *s = rc->sh[i];

	pf_diag_msg(&d, "reader process out of memory: device left out");
	end_dev(rc, i, -ENOMEM, &d, s ? s->bytes_read : 0, s ? s->n_reads : 0);
}

static void shadow_fail(struct rec *rc, size_t i, struct shadow *s, int err)
{
	rec_put(&rc->out, REC_FAIL, i, err, 0, NULL, 0);
	pf_probe_fail(&s->probe, err);
}

static uint64_t covered_until(const struct shadow *s, uint64_t off, uint64_t end)
{
	bool moved = true;

	while (off < end && moved) {
		moved = false;
		for (unsigned i = 0; i < s->n_ext; i++) {
			const struct extent *x = &s->ext[i];

			if (x->off <= off && off < x->off + x->len) {
				off = x->off + x->len;
				moved = true;
			}
		}
	}
	return off < end ? off : end;
}

/* Feed [off, off + len), all of it read, and record it: in place when one piece holds it. */
static void shadow_feed(struct rec *rc, size_t i, struct shadow *s, uint64_t off, uint64_t len)
{
	_cleanup_free_ uint8_t *tmp = NULL;
	const uint8_t *p = NULL;
	uint64_t pos = off, end = off + len;
	uint8_t empty = 0;

	for (unsigned k = 0; k < s->n_ext && !p; k++)
		if (s->ext[k].off <= off && end <= s->ext[k].off + s->ext[k].len)
			p = s->ext[k].p + (off - s->ext[k].off);
	if (len == 0) {
		p = &empty;
	} else if (!p) {
		if (len > PF_READER_FEED_MAX) {
			shadow_fail(rc, i, s, -E2BIG);
			return;
		}
		tmp = malloc((size_t)len);
		if (!tmp) {
			shadow_fail(rc, i, s, -ENOMEM);
			return;
		}
		while (pos < end) {
			const struct extent *x = NULL;
			uint64_t stop;

			for (unsigned k = 0; k < s->n_ext && !x; k++)
				if (s->ext[k].off <= pos && pos < s->ext[k].off + s->ext[k].len)
					x = &s->ext[k];
			if (!x)
				break; /* cannot happen: the caller checked coverage */
			stop = x->off + x->len < end ? x->off + x->len : end;
			memcpy(tmp + (pos - off), x->p + (pos - x->off), (size_t)(stop - pos));
			pos = stop;
		}
		p = tmp;
	}
	rec_put(&rc->out, REC_FEED, i, 0, off, p, (size_t)len);
	pf_probe_feed(&s->probe, p, (size_t)len);
}

/* Run the shadow as far as what was read allows: true when it waits for a read. */
static bool shadow_advance(struct rec *rc, size_t i, struct shadow *s)
{
	uint64_t size = rc->t[i].size_bytes, off, len, end, got;

	while (pf_probe_next(&s->probe, &off, &len) == 1) {
		if (off > size)
			off = size;
		end = len > size - off ? size : off + len;
		got = covered_until(s, off, end);
		if (got != end && !s->short_read)
			return true;
		s->short_read = false;
		shadow_feed(rc, i, s, off, got - off);
	}
	return false;
}

/* Fail the steps the scan's probe failed without a read, then go on. */
static bool shadow_catch_up(struct rec *rc, size_t i, struct shadow *s)
{
	const struct pf_probe *p = rc->t[i].probe;
	bool waits = shadow_advance(rc, i, s);

	while (waits && probe_pos(&s->probe) < probe_pos(p)) {
		shadow_fail(rc, i, s, step_status(p, &s->probe));
		waits = shadow_advance(rc, i, s);
	}
	return waits;
}

/* Copy what a shadow borrowed from the scan's buffers: they go back once this returns. */
static int shadow_keep(struct shadow *s)
{
	for (unsigned k = 0; k < s->n_ext; k++) {
		struct extent *x = &s->ext[k];

		if (x->own)
			continue;
		x->own = malloc(x->len);
		if (!x->own)
			return -ENOMEM;
		memcpy(x->own, x->p, x->len);
		x->p = x->own;
	}
	return 0;
}

/* A read of device i completed with res: the scan is about to see it too. */
static void on_read(struct rec *rc, size_t i, const struct pf_io_req *req, int64_t res)
{
	uint64_t size = rc->t[i].size_bytes, valid, got;
	struct shadow *s;

	if (rc->ended[i])
		return;
	s = shadow_get(rc, i);
	if (!s) {
		end_nomem(rc, i);
		return;
	}
	(void)shadow_catch_up(rc, i, s);
	s->n_reads++;
	if (res < 0) {
		shadow_fail(rc, i, s, res < -ERRNO_MAX ? -EIO : (int)res);
	} else {
		valid = req->off >= size ? 0 : size - req->off;
		if (valid > req->len)
			valid = req->len;
		got = (uint64_t)res < valid ? (uint64_t)res : valid;
		s->bytes_read += got;
		if (got < valid)
			s->short_read = true;
		if (got) {
			if (s->n_ext == EXTENTS_MAX)
				ext_release(s);
			s->ext[s->n_ext++] = (struct extent){ .off = req->off, .len = (size_t)got,
							      .p = req->buf };
		}
	}
	if (!shadow_advance(rc, i, s))
		end_dev(rc, i, 0, NULL, s->bytes_read, s->n_reads);
	else if (shadow_keep(s) < 0)
		end_nomem(rc, i);
}

/* After the scan: settle every device not ended yet with the scan's outcome for it. */
static void rec_sweep(struct rec *rc)
{
	for (size_t i = 0; i < rc->n; i++) {
		const struct pf_aio_target *t = &rc->t[i];
		struct shadow *s;

		if (rc->ended[i])
			continue;
		s = shadow_get(rc, i);
		if (!s) {
			end_nomem(rc, i);
			continue;
		}
		(void)shadow_catch_up(rc, i, s);
		end_dev(rc, i, t->status, &t->diag, t->bytes_read, t->n_reads);
	}
}

static void rec_release(struct rec *rc)
{
	for (size_t i = 0; rc->sh && i < rc->n; i++) {
		if (!rc->sh[i])
			continue;
		ext_release(rc->sh[i]);
		pf_probe_release(&rc->sh[i]->probe);
		free(rc->sh[i]);
	}
	free(rc->sh);
	free(rc->map);
	free(rc->ended);
	free(rc->out.buf);
}

static int rec_init(struct rec *rc, struct pf_aio_target *t, size_t n, int fd)
{
	rc->t = t;
	rc->n = n;
	rc->out.fd = fd;
	rc->out.last_ns = now_ns();
	rc->map = calloc(n ? n : 1, sizeof(*rc->map));
	rc->sh = calloc(n ? n : 1, sizeof(*rc->sh));
	rc->ended = calloc(n ? n : 1, sizeof(*rc->ended));
	rc->out.buf = malloc(OUT_BUF_BYTES);
	if (!rc->map || !rc->sh || !rc->ended || !rc->out.buf)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		rc->map[i] = (struct fd_index){ .fd = t[i].fd, .i = (uint32_t)i };
	qsort(rc->map, n, sizeof(*rc->map), cmp_fd_index);
	for (size_t i = 1; i < n; i++)
		if (rc->map[i].fd == rc->map[i - 1].fd)
			return -EINVAL; /* completions could not be told apart */
	return 0;
}

/* ---- the reader's side: the engine that lets the shadows see every completion ---- */

struct tee {
	struct pf_io_engine e;
	struct pf_io_engine *inner;
	struct rec *rc;
};

static struct tee *to_tee(struct pf_io_engine *e)
{
	return container_of(e, struct tee, e);
}

static int tee_submit(struct pf_io_engine *e, struct pf_io_req *const *reqs, unsigned n)
{
	struct tee *t = to_tee(e);
	int r = t->inner->ops->submit(t->inner, reqs, n);

	e->stuck = t->inner->stuck;
	return r;
}

static int tee_wait(struct pf_io_engine *e, unsigned min_nr, unsigned max,
		    const struct timespec *timeout, struct pf_io_event *ret)
{
	struct tee *t = to_tee(e);
	struct rec *rc = t->rc;
	int r;

	/* Before blocking, the caller hears from us: records, or at least that we live. */
	if (rc->out.len == 0 && now_ns() - rc->out.last_ns >= PF_READER_TICK_MS * NSEC_PER_MSEC)
		rec_put(&rc->out, REC_TICK, 0, 0, 0, NULL, 0);
	out_flush(&rc->out);
	if (rc->out.err)
		return rc->out.err; /* nobody listens: the scan stops */
	r = t->inner->ops->wait(t->inner, min_nr, max, timeout, ret);
	e->stuck = t->inner->stuck;
	for (int k = 0; k < r; k++) {
		ssize_t i = rec_find(rc, ret[k].req->fd);

		if (i >= 0)
			on_read(rc, (size_t)i, ret[k].req, ret[k].res);
	}
	return r;
}

static void tee_abandon(struct pf_io_engine *e, struct pf_io_req *req)
{
	struct tee *t = to_tee(e);

	t->inner->ops->abandon(t->inner, req);
	e->stuck = t->inner->stuck;
}

static void tee_destroy(struct pf_io_engine *e)
{
	(void)e; /* the inner engine belongs to whoever made it */
}

static const struct pf_io_engine_ops tee_ops = {
	.submit = tee_submit,
	.wait = tee_wait,
	.abandon = tee_abandon,
	.destroy = tee_destroy,
};

int pf_reader_record(struct pf_aio_target *targets, size_t n, const struct pf_aio_opts *opts,
		     int fd)
{
	static const struct pf_aio_opts defaults;
	struct pf_io_engine *own = NULL;
	struct pf_aio_stats stats = { 0 };
	struct pf_aio_opts o;
	struct rec rc = { 0 };
	struct tee tee = { 0 };
	int r, scan_r;

	if (!opts)
		opts = &defaults;
	r = check_args(targets, n, opts);
	if (r < 0)
		return r;
	r = rec_init(&rc, targets, n, fd);
	if (r < 0)
		goto out;
	scan_r = 0;
	tee.inner = opts->engine;
	if (!tee.inner && n) {
		unsigned depth = opts->queue_depth ? opts->queue_depth : pf_aio_depth(n);

		scan_r = pf_aio_engine_new(depth, opts->proc_dir, &own);
		tee.inner = own;
	}
	if (scan_r == 0) {
		o = *opts;
		if (tee.inner) {
			tee.e.ops = &tee_ops;
			tee.e.depth = tee.inner->depth;
			tee.e.stuck = tee.inner->stuck;
			tee.rc = &rc;
			o.engine = &tee.e;
		}
		scan_r = pf_aio_scan(targets, n, &o, &stats);
	}
	rec_sweep(&rc);
	rec_put_done(&rc.out, scan_r, &stats);
	out_flush(&rc.out);
	r = rc.out.err;
	if (own)
		own->ops->destroy(own);
out:
	rec_release(&rc);
	return r;
}

/* ---- the caller's side: replay ---- */

enum dev_state {
	DEV_OPEN,
	DEV_DIVERGED, /* failed here; the reader's records for it are ignored */
	DEV_ENDED,
};

struct pf_reader_replay {
	struct pf_aio_target *t;
	size_t n;
	uint8_t *state; /* enum dev_state per target */
	uint8_t hdr[REC_HDR];
	size_t hdr_got;
	/* the record being taken */
	uint32_t type, dev, len;
	int64_t val;
	uint64_t off;
	bool in_payload;
	uint8_t *payload;
	size_t payload_got, payload_alloc;
	bool complete, bad;
	int scan_r;
	struct pf_aio_stats stats;
	uint64_t bytes;
};

int pf_reader_replay_new(struct pf_aio_target *targets, size_t n, struct pf_reader_replay **ret)
{
	struct pf_reader_replay *rp;

	if ((n && !targets) || n > PF_AIO_TARGETS_MAX)
		return -EINVAL;
	rp = calloc(1, sizeof(*rp));
	if (!rp)
		return -ENOMEM;
	rp->state = calloc(n ? n : 1, sizeof(*rp->state));
	if (!rp->state) {
		free(rp);
		return -ENOMEM;
	}
	rp->t = targets;
	rp->n = n;
	for (size_t i = 0; i < n; i++) {
		targets[i].status = 0;
		pf_diag_clear(&targets[i].diag);
		targets[i].bytes_read = 0;
		targets[i].n_reads = 0;
	}
	*ret = rp;
	return 0;
}

struct pf_reader_replay *pf_reader_replay_free(struct pf_reader_replay *rp)
{
	if (rp) {
		free(rp->state);
		free(rp->payload);
		free(rp);
	}
	return NULL;
}

bool pf_reader_replay_complete(const struct pf_reader_replay *rp)
{
	return rp->complete;
}

uint64_t pf_reader_replay_bytes(const struct pf_reader_replay *rp)
{
	return rp->bytes;
}

static int parse_header(struct pf_reader_replay *rp)
{
	const uint8_t *h = rp->hdr;
	bool per_dev;

	rp->type = get32(h, 4);
	rp->dev = get32(h, 8);
	rp->len = get32(h, 12);
	rp->val = (int64_t)get64(h, 16);
	rp->off = get64(h, 24);
	if (get32(h, 0) != REC_MAGIC || rp->complete)
		return -EBADMSG;
	per_dev = rp->type == REC_FEED || rp->type == REC_FAIL || rp->type == REC_END;
	if (per_dev && rp->dev >= rp->n)
		return -EBADMSG;
	switch (rp->type) {
	case REC_FEED:
		return rp->len <= PF_READER_FEED_MAX ? 0 : -EBADMSG;
	case REC_FAIL:
		return rp->len == 0 && rp->val < 0 && rp->val >= -ERRNO_MAX ? 0 : -EBADMSG;
	case REC_END:
		if (rp->len < REC_END_FIXED || rp->len >= REC_END_FIXED + PF_DIAG_MSG_MAX)
			return -EBADMSG;
		return rp->val <= 0 && rp->val >= -ERRNO_MAX ? 0 : -EBADMSG;
	case REC_TICK:
		return rp->len == 0 ? 0 : -EBADMSG;
	case REC_DONE:
		if (rp->len != REC_DONE_LEN)
			return -EBADMSG;
		return rp->val <= 0 && rp->val >= -ERRNO_MAX ? 0 : -EBADMSG;
	default:
		return -EBADMSG;
	}
}

static void diverge(struct pf_reader_replay *rp, uint64_t off)
{
	struct pf_aio_target *t = &rp->t[rp->dev];

	t->status = -EPROTO;
	pf_diag_at(&t->diag, off,
		   "the reader process's record of this device does not fit its probe at byte "
		   "%llu: device left out",
		   (unsigned long long)off);
	rp->state[rp->dev] = DEV_DIVERGED;
}

/* The range the probe asks for, cut at the device's end as the scan cuts it. */
static bool probe_wants(const struct pf_aio_target *t, uint64_t *ret_off, uint64_t *ret_len)
{
	uint64_t off, len, size = t->size_bytes;

	if (pf_probe_next(t->probe, &off, &len) != 1)
		return false;
	if (off > size)
		off = size;
	*ret_off = off;
	*ret_len = len > size - off ? size - off : len;
	return true;
}

static void replay_feed(struct pf_reader_replay *rp, const uint8_t *p)
{
	struct pf_aio_target *t = &rp->t[rp->dev];
	uint64_t off, len;
	uint8_t empty = 0;

	if (!probe_wants(t, &off, &len) || off != rp->off || rp->len > len) {
		diverge(rp, rp->off);
		return;
	}
	pf_probe_feed(t->probe, rp->len ? p : &empty, rp->len);
}

static void replay_end(struct pf_reader_replay *rp, const uint8_t *p)
{
	struct pf_aio_target *t = &rp->t[rp->dev];
	uint32_t msg_len = get32(p, 32);

	if (msg_len != rp->len - REC_END_FIXED) {
		rp->bad = true;
		return;
	}
	if (rp->state[rp->dev] == DEV_OPEN) {
		t->status = (int)rp->val;
		t->bytes_read = get64(p, 0);
		t->n_reads = get32(p, 8);
		t->diag.has_offset = get32(p, 12) != 0;
		t->diag.offset = get64(p, 16);
		t->diag.line = get32(p, 24);
		t->diag.col = get32(p, 28);
		memcpy(t->diag.msg, p + REC_END_FIXED, msg_len);
		t->diag.msg[msg_len] = '\0';
	}
	rp->state[rp->dev] = DEV_ENDED;
}

static void replay_done(struct pf_reader_replay *rp, const uint8_t *p)
{
	struct pf_aio_stats *s = &rp->stats;

	s->depth = get32(p, 0);
	s->max_in_flight = get32(p, 4);
	s->n_reads = get64(p, 8);
	s->bytes_read = get64(p, 16);
	s->n_submit_calls = get64(p, 24);
	s->n_wait_calls = get64(p, 32);
	s->n_timeouts = get32(p, 40);
	s->mem_peak_bytes = get64(p, 48);
	rp->scan_r = (int)rp->val;
	rp->complete = true;
}

/* The record in rp's header is whole, its payload at p. */
static void dispatch(struct pf_reader_replay *rp, const uint8_t *p)
{
	bool per_dev = rp->type == REC_FEED || rp->type == REC_FAIL || rp->type == REC_END;
	uint64_t off, len;

	if (per_dev && rp->state[rp->dev] == DEV_ENDED) {
		rp->bad = true; /* nothing follows a device's end */
		return;
	}
	switch (rp->type) {
	case REC_FEED:
		if (rp->state[rp->dev] == DEV_OPEN)
			replay_feed(rp, p);
		break;
	case REC_FAIL:
		if (rp->state[rp->dev] != DEV_OPEN)
			break;
		if (!probe_wants(&rp->t[rp->dev], &off, &len))
			diverge(rp, 0);
		else
			pf_probe_fail(rp->t[rp->dev].probe, (int)rp->val);
		break;
	case REC_END:
		replay_end(rp, p);
		break;
	case REC_DONE:
		replay_done(rp, p);
		break;
	default: /* REC_TICK */
		break;
	}
}

static int payload_room(struct pf_reader_replay *rp, size_t len)
{
	uint8_t *p;

	if (len <= rp->payload_alloc)
		return 0;
	p = realloc(rp->payload, len); /* len <= PF_READER_FEED_MAX: checked with the header */
	if (!p)
		return -ENOMEM;
	rp->payload = p;
	rp->payload_alloc = len;
	return 0;
}

int pf_reader_replay_push(struct pf_reader_replay *rp, const uint8_t *data, size_t len)
{
	if (rp->bad)
		return -EBADMSG;
	rp->bytes += len;
	while (len && !rp->bad) {
		size_t take;

		if (rp->in_payload) {
			take = rp->len - rp->payload_got < len ? rp->len - rp->payload_got : len;
			memcpy(rp->payload + rp->payload_got, data, take);
			rp->payload_got += take;
			data += take;
			len -= take;
			if (rp->payload_got == rp->len) {
				rp->in_payload = false;
				dispatch(rp, rp->payload);
			}
			continue;
		}
		take = REC_HDR - rp->hdr_got < len ? REC_HDR - rp->hdr_got : len;
		memcpy(rp->hdr + rp->hdr_got, data, take);
		rp->hdr_got += take;
		data += take;
		len -= take;
		if (rp->hdr_got < REC_HDR)
			break;
		rp->hdr_got = 0;
		if (parse_header(rp) < 0) {
			rp->bad = true;
			break;
		}
		if (rp->len <= len) { /* the whole payload is here: no copy */
			dispatch(rp, data);
			data += rp->len;
			len -= rp->len;
			continue;
		}
		if (payload_room(rp, rp->len) < 0)
			return -ENOMEM;
		rp->in_payload = true;
		rp->payload_got = 0;
	}
	return rp->bad ? -EBADMSG : 0;
}

int pf_reader_replay_finish(struct pf_reader_replay *rp, int err, const char *why,
			    struct pf_aio_stats *ret_stats)
{
	for (size_t i = 0; i < rp->n; i++) {
		struct pf_aio_target *t = &rp->t[i];
		uint64_t off, len;

		if (rp->state[i] != DEV_OPEN)
			continue;
		t->status = err;
		if (probe_wants(t, &off, &len))
			pf_diag_at(&t->diag, off, "%s, waiting for byte %llu: device left out", why,
				   (unsigned long long)off);
		else
			pf_diag_msg(&t->diag, "%s: device left out", why);
		rp->state[i] = DEV_ENDED;
	}
	if (ret_stats) {
		if (rp->complete)
			*ret_stats = rp->stats;
		else
			memset(ret_stats, 0, sizeof(*ret_stats));
	}
	return rp->complete ? rp->scan_r : 0;
}

/* ---- the caller's side: the reader process ---- */

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

/* Close descriptors lo..hi, where close_range() is missing by listing /proc/self/fd. */
static void close_fds(int lo, int hi)
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
		char *end;
		long fd = strtol(de->d_name, &end, 10);

		if (*end || end == de->d_name || fd < lo || fd > hi || fd == dirfd(dir))
			continue;
		(void)close((int)fd);
	}
	(void)closedir(dir);
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
		close_fds(from, keep[i] - 1);
		from = keep[i] + 1;
	}
	close_fds(from, INT_MAX);
	return 0;
}

static void __attribute__((noreturn))
reader_main(struct pf_aio_target *t, size_t n, const struct pf_aio_opts *opts, int out_fd)
{
	/* With nothing written the caller reads the devices itself. */
	if (isolate(t, n, out_fd) < 0 || pf_reader_record(t, n, opts, out_fd) < 0)
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
static enum recv_end receive(struct pf_reader_replay *rp, int fd, unsigned idle_ms, int *ret_err)
{
	_cleanup_free_ uint8_t *buf = malloc(IN_BUF_BYTES);
	uint64_t idle_ns = (uint64_t)idle_ms * NSEC_PER_MSEC, last = now_ns();

	if (!buf) {
		*ret_err = -ENOMEM;
		return RECV_ERROR;
	}
	while (!pf_reader_replay_complete(rp)) {
		struct pollfd pfd = { .fd = fd, .events = POLLIN };
		uint64_t now = now_ns(), left;
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
		last = now_ns();
		r = pf_reader_replay_push(rp, buf, (size_t)got);
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
	struct pf_reader_replay *rp = NULL;
	_cleanup_close_ int rd = -1;
	char why[PF_DIAG_MSG_MAX / 2];
	enum recv_end end;
	unsigned idle_ms;
	int fds[2], r, err = 0;

	if (!opts)
		opts = &defaults;
	r = check_args(targets, n, opts);
	if (r < 0)
		return r;
	if (n == 0 || !fds_distinct(targets, n))
		return pf_aio_scan(targets, n, opts, ret_stats);
	r = pf_reader_replay_new(targets, n, &rp);
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
		if (pf_reader_replay_bytes(rp) == 0)
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
	r = pf_reader_replay_finish(rp, err, why, ret_stats);
	pf_reader_replay_free(rp);
	return r;

in_process:
	pf_reader_replay_free(rp);
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
