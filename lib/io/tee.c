/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The async scan with a record of what its probes were fed: shadow probes behind a tee backend. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "format/probe.h"
#include "io/backend.h"
#include "io/extents.h"
#include "io/libaio.h"
#include "io/record.h"
#include "io/tee.h"

/* What is batched into one write. */
#define OUT_BUF_BYTES (256U * 1024U)

/* ---- output: records, batched ---- */

struct out {
	int fd;
	int err; /* first write error: the caller stopped listening */
	size_t len;
	uint64_t last_ns; /* last write */
	uint8_t *buf;	  /* OUT_BUF_BYTES */
};

static void out_write(struct out *o, const uint8_t *p, size_t len)
{
	int r;

	if (o->err || len == 0)
		return;
	r = pf_write_full(o->fd, p, len);
	if (r < 0)
		o->err = r;
	o->last_ns = pf_now_ns();
}

static void out_flush(struct out *o)
{
	out_write(o, o->buf, o->len);
	o->len = 0;
}

static void out_put(struct out *o, const uint8_t *hdr, const uint8_t *payload, size_t len)
{
	if (o->len + PF_REC_HDR + len > OUT_BUF_BYTES)
		out_flush(o);
	memcpy(o->buf + o->len, hdr, PF_REC_HDR);
	o->len += PF_REC_HDR;
	if (len > OUT_BUF_BYTES - o->len) { /* a long text: straight from where it is */
		out_flush(o);
		out_write(o, payload, len);
		return;
	}
	if (len)
		memcpy(o->buf + o->len, payload, len);
	o->len += len;
}

static void out_rec(struct out *o, enum pf_rec_type type, size_t dev, int64_t val, uint64_t off,
		    const uint8_t *payload, size_t len)
{
	uint8_t h[PF_REC_HDR];

	pf_rec_put(h, &(struct pf_rec){ .type = type,
					.dev = (uint32_t)dev,
					.len = (uint32_t)len,
					.val = val,
					.off = off });
	out_put(o, h, payload, len);
}

/* ---- shadow probes ---- */

struct shadow {
	struct pf_probe probe;
	bool short_read;
	uint64_t bytes_read;
	unsigned n_reads;
	/*
	 * What was read, kept only while the shadow is not done, as the scan
	 * keeps its buffers: borrowed from the read while its completion is
	 * handled, copied before it goes back.
	 */
	struct pf_extents ext;
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
	/*
	 * The shadows' own budget, as large as the scan probes': charged in the order of the
	 * record, as the caller's probes are charged when it replays it, so both decide alike.
	 */
	struct pf_probe_budget budget;
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
	for (unsigned i = 0; i < s->ext.n; i++)
		if (s->ext.x[i].alloc)
			free(s->ext.x[i].buf);
	s->ext.n = 0;
}

static struct shadow *shadow_free(struct shadow *s)
{
	if (s) {
		ext_release(s);
		pf_probe_release(&s->probe);
		free(s);
	}
	return NULL;
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
	if (rc->t[i].probe->budget) {
		rc->budget.limit = rc->t[i].probe->budget->limit;
		s->probe.budget = &rc->budget;
	}
	rc->sh[i] = s;
	return s;
}

static void end_dev(struct rec *rc, size_t i, int status, const struct pf_diag *diag,
		    uint64_t bytes_read, unsigned n_reads)
{
	uint8_t h[PF_REC_HDR], b[PF_REC_END_MAX];
	size_t len = pf_rec_put_end(h, b, (uint32_t)i, status, bytes_read, n_reads, diag);

	out_put(&rc->out, h, b, len);
	rc->ended[i] = true;
	rc->sh[i] = shadow_free(rc->sh[i]);
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
	out_rec(&rc->out, PF_REC_FAIL, i, err, 0, NULL, 0);
	pf_probe_fail(&s->probe, err);
}

/* Feed [off, off + len), all of it read, and record it: in place when one piece holds it. */
static void shadow_feed(struct rec *rc, size_t i, struct shadow *s, uint64_t off, uint64_t len)
{
	_cleanup_free_ uint8_t *tmp = NULL;
	const uint8_t *p;
	size_t n;
	int r;

	r = pf_extents_view(&s->ext, off, len, PF_REC_FEED_MAX, &p, &tmp, &n);
	if (r < 0) {
		shadow_fail(rc, i, s, r);
		return;
	}
	out_rec(&rc->out, PF_REC_FEED, i, 0, off, p, n);
	pf_probe_feed(&s->probe, p, n);
}

/* Run the shadow as far as what was read allows: true when it waits for a read. */
static bool shadow_advance(struct rec *rc, size_t i, struct shadow *s)
{
	uint64_t size = rc->t[i].size_bytes, off, len, end, got;

	while (pf_probe_next(&s->probe, &off, &len) == 1) {
		if (off > size)
			off = size;
		end = len > size - off ? size : off + len;
		got = pf_extents_covered_until(&s->ext, off, end);
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
	for (unsigned k = 0; k < s->ext.n; k++) {
		struct pf_extent *x = &s->ext.x[k];
		uint8_t *own;

		if (x->alloc)
			continue;
		own = malloc(x->len);
		if (!own)
			return -ENOMEM;
		memcpy(own, x->buf, x->len);
		x->buf = own;
		x->alloc = x->len;
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
			if (s->ext.n == PF_EXTENTS_MAX)
				ext_release(s);
			s->ext.x[s->ext.n++] = (struct pf_extent){
				.off = req->off, .len = (size_t)got, .buf = req->buf
			};
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

static void rec_done(struct rec *rc, int r, const struct pf_aio_stats *stats)
{
	uint8_t h[PF_REC_HDR], b[PF_REC_DONE_LEN];

	pf_rec_put_done(h, b, r, stats);
	out_put(&rc->out, h, b, sizeof(b));
	out_flush(&rc->out);
}

static void rec_release(struct rec *rc)
{
	for (size_t i = 0; rc->sh && i < rc->n; i++)
		shadow_free(rc->sh[i]);
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
	rc->out.last_ns = pf_now_ns();
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

/* ---- the tee: a backend that lets the shadows see every completion ---- */

struct tee {
	struct pf_io_backend b;
	struct pf_io_backend *inner;
	struct rec *rc;
};

static struct tee *to_tee(struct pf_io_backend *b)
{
	return container_of(b, struct tee, b);
}

static int tee_submit(struct pf_io_backend *b, struct pf_io_req *const *reqs, unsigned n)
{
	struct tee *t = to_tee(b);
	int r = t->inner->ops->submit(t->inner, reqs, n);

	b->stuck = t->inner->stuck;
	return r;
}

static int tee_wait(struct pf_io_backend *b, unsigned min_nr, unsigned max,
		    const struct timespec *timeout, struct pf_io_event *ret)
{
	struct tee *t = to_tee(b);
	struct rec *rc = t->rc;
	int r;

	/* Before blocking, the caller hears from us: records, or at least that we live. */
	if (rc->out.len == 0 && pf_now_ns() - rc->out.last_ns >= PF_TEE_TICK_MS * NSEC_PER_MSEC)
		out_rec(&rc->out, PF_REC_TICK, 0, 0, 0, NULL, 0);
	out_flush(&rc->out);
	if (rc->out.err)
		return rc->out.err; /* nobody listens: the scan stops */
	r = t->inner->ops->wait(t->inner, min_nr, max, timeout, ret);
	b->stuck = t->inner->stuck;
	for (int k = 0; k < r; k++) {
		ssize_t i = rec_find(rc, ret[k].req->fd);

		if (i >= 0)
			on_read(rc, (size_t)i, ret[k].req, ret[k].res);
	}
	return r;
}

static void tee_abandon(struct pf_io_backend *b, struct pf_io_req *req)
{
	struct tee *t = to_tee(b);

	t->inner->ops->abandon(t->inner, req);
	b->stuck = t->inner->stuck;
}

static void tee_destroy(struct pf_io_backend *b)
{
	(void)b; /* the inner backend belongs to whoever made it */
}

static const struct pf_io_backend_ops tee_ops = {
	.submit = tee_submit,
	.wait = tee_wait,
	.abandon = tee_abandon,
	.destroy = tee_destroy,
};

int pf_tee_record(struct pf_aio_target *targets, size_t n, const struct pf_aio_opts *opts, int fd)
{
	static const struct pf_aio_opts defaults;
	struct pf_io_backend *own = NULL;
	struct pf_aio_stats stats = { 0 };
	struct pf_aio_opts o;
	struct rec rc = { 0 };
	struct tee tee = { 0 };
	int r, scan_r;

	if (!opts)
		opts = &defaults;
	r = pf_aio_check_args(targets, n, opts);
	if (r < 0)
		return r;
	r = rec_init(&rc, targets, n, fd);
	if (r < 0)
		goto out;
	scan_r = 0;
	tee.inner = opts->backend;
	if (!tee.inner && n) {
		unsigned depth = opts->queue_depth ? opts->queue_depth : pf_aio_depth(n);

		scan_r = pf_libaio_backend_new(depth, opts->proc_dir, &own);
		tee.inner = own;
	}
	if (scan_r == 0) {
		o = *opts;
		if (tee.inner) {
			tee.b.ops = &tee_ops;
			tee.b.depth = tee.inner->depth;
			tee.b.stuck = tee.inner->stuck;
			tee.rc = &rc;
			o.backend = &tee.b;
		}
		scan_r = pf_aio_scan(targets, n, &o, &stats);
	}
	rec_sweep(&rc);
	rec_done(&rc, scan_r, &stats);
	r = rc.out.err;
	if (own)
		own->ops->destroy(own);
out:
	rec_release(&rc);
	return r;
}
