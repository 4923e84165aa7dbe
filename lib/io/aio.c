/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The async scan: a sliding window of reads through a backend, feeding one probe per device. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "format/probe.h"
#include "io/aio.h"
#include "io/backend.h"
#include "io/extents.h"
#include "io/libaio.h"

/* Buffers are page aligned: enough for any O_DIRECT memory alignment up to the block size. */
#define PF_AIO_MEM_ALIGN 4096U
/* io_submit() says EAGAIN with nothing in flight to harvest: retry this often, 1 ms apart. */
#define PF_AIO_EAGAIN_RETRIES 1000U

/* ---- opening devices ---- */

static bool lbs_is_valid(uint64_t lbs)
{
	return lbs >= 512 && lbs <= PF_AIO_LBS_MAX && (lbs & (lbs - 1)) == 0;
}

/* O_DIRECT alignment for a regular file: 0 when the filesystem cannot do direct I/O on it. */
static unsigned file_dio_align(int fd)
{
#ifdef STATX_DIOALIGN
	struct statx stx;

	if (statx(fd, "", AT_EMPTY_PATH, STATX_DIOALIGN, &stx) == 0 &&
	    (stx.stx_mask & STATX_DIOALIGN)) {
		if (stx.stx_dio_offset_align == 0)
			return 0;
		if (stx.stx_dio_offset_align <= 512)
			return 512;
		if (lbs_is_valid(stx.stx_dio_offset_align))
			return stx.stx_dio_offset_align;
	}
#else
	(void)fd;
#endif
	/* Unknown: a page satisfies every filesystem's direct I/O alignment. */
	return 4096;
}

int pf_aio_open(const char *path, int *ret_fd, bool *ret_direct, unsigned *ret_lbs,
		uint64_t *ret_size_bytes)
{
	_cleanup_close_ int fd = -1;
	int flags = O_RDONLY | O_CLOEXEC | O_DIRECT | O_NOATIME;
	unsigned lbs = 512;
	struct stat st;
	uint64_t size;

	for (;;) {
		fd = open(path, flags);
		if (fd >= 0)
			break;
		if (errno == EPERM && (flags & O_NOATIME)) /* O_NOATIME on a file we do not own */
			flags &= ~O_NOATIME;
		else if (errno == EINVAL && (flags & O_DIRECT)) /* e.g. a filesystem without it */
			flags &= ~O_DIRECT;
		else if (errno != EINTR)
			return -errno;
	}
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		int ss;

		if (ioctl(fd, BLKGETSIZE64, &size) < 0 || ioctl(fd, BLKSSZGET, &ss) < 0)
			return -errno;
		if (ss < 0 || !lbs_is_valid((uint64_t)ss))
			return -EINVAL;
		lbs = (unsigned)ss;
	} else if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
		if (flags & O_DIRECT) {
			lbs = file_dio_align(fd);
			if (lbs == 0) { /* opened, but the filesystem cannot do it on this file */
				int fl = fcntl(fd, F_GETFL);

				if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_DIRECT) < 0)
					return -errno;
				flags &= ~O_DIRECT;
				lbs = 512;
			}
		}
	} else {
		return -ENOTBLK;
	}
	*ret_fd = TAKE_FD(fd);
	*ret_direct = (flags & O_DIRECT) != 0;
	*ret_lbs = lbs;
	*ret_size_bytes = size;
	return 0;
}

int pf_aio_raise_nofile(size_t n_fds)
{
	struct rlimit rl;
	rlim_t need;

	if (n_fds > (size_t)RLIM_INFINITY - PF_AIO_NOFILE_SLACK - 1)
		return -EMFILE;
	need = (rlim_t)n_fds + PF_AIO_NOFILE_SLACK;
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0)
		return -errno;
	if (rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < need) {
		rlim_t want = need;

		if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max < need)
			want = rl.rlim_max;

		if (want > rl.rlim_cur) {
			rl.rlim_cur = want;
			if (setrlimit(RLIMIT_NOFILE, &rl) < 0)
				return -errno;
		}
		if (want < need)
			return -EMFILE;
	}
	return 0;
}

unsigned pf_aio_depth(size_t n_targets)
{
	if (n_targets == 0)
		return 1;
	return n_targets < PF_AIO_DEPTH_MAX ? (unsigned)n_targets : PF_AIO_DEPTH_MAX;
}

/* ---- the scan ---- */

enum dev_phase {
	DEV_NEW,
	DEV_READY,     /* a read is planned, waiting for a slot */
	DEV_BATCHED,   /* buffer allocated, about to be submitted */
	DEV_IN_FLIGHT,
	DEV_DONE,
};

struct dev {
	struct pf_aio_target *t;
	enum dev_phase phase;
	bool started;	 /* its first read was planned */
	bool short_read; /* the last read brought less than planned: serve what there is */
	size_t valid;	 /* bytes of the planned read that lie on the device */
	size_t alloc;	 /* size of req.buf, which may be larger than req.len */
	uint64_t deadline_ns;
	struct pf_io_req req;
	struct dev *prev, *next; /* in the ready queue or the in-flight list */
	struct pf_extents ext; /* what was read, in pool or aligned buffers the scan owns */
};

struct dev_list {
	struct dev *head, *tail;
};

struct scan {
	struct pf_io_backend *b;
	struct dev *devs;
	size_t n, next_new, n_done;
	struct dev_list ready;	   /* started devices with a read planned, FIFO */
	struct dev_list in_flight; /* oldest submission (earliest deadline) first */
	struct dev *deferred_new;  /* a first read held back by the memory cap */
	unsigned depth, n_in_flight, n_batch, eagain_spins;
	struct pf_io_req **batch;  /* planned reads with buffers, not yet accepted */
	struct pf_io_event *events;
	/*
	 * Idle first-read buffers. Allocating and faulting in 128 KiB per device
	 * (above malloc's mmap threshold) costs more than the rest of the scan;
	 * reused buffers never outnumber those once in use together.
	 */
	uint8_t **pool;
	unsigned n_pool;
	size_t pool_bytes;
	uint64_t first_read, timeout_ns, mem_max, mem_held;
	unsigned timeout_ms;
	bool close_done;
	struct pf_aio_stats stats;
};

static uint64_t align_down(uint64_t x, unsigned a)
{
	return x & ~((uint64_t)a - 1);
}

/* Sizes are validated to be below INT64_MAX, so this cannot wrap. */
static uint64_t align_up(uint64_t x, unsigned a)
{
	return align_down(x + a - 1, a);
}

static void list_push_back(struct dev_list *l, struct dev *d)
{
	d->next = NULL;
	d->prev = l->tail;
	if (l->tail)
		l->tail->next = d;
	else
		l->head = d;
	l->tail = d;
}

static void list_push_front(struct dev_list *l, struct dev *d)
{
	d->prev = NULL;
	d->next = l->head;
	if (l->head)
		l->head->prev = d;
	else
		l->tail = d;
	l->head = d;
}

static void list_remove(struct dev_list *l, struct dev *d)
{
	if (d->prev)
		d->prev->next = d->next;
	else
		l->head = d->next;
	if (d->next)
		d->next->prev = d->prev;
	else
		l->tail = d->prev;
	d->prev = d->next = NULL;
}

static struct dev *list_pop_front(struct dev_list *l)
{
	struct dev *d = l->head;

	if (d)
		list_remove(l, d);
	return d;
}

static void mem_add(struct scan *s, size_t bytes)
{
	s->mem_held += bytes;
	if (s->mem_held > s->stats.mem_peak_bytes)
		s->stats.mem_peak_bytes = s->mem_held;
}

/* Size of the buffer a read of len bytes gets: pooled reads get a whole pool buffer. */
static size_t buf_size(const struct scan *s, size_t len, unsigned lbs)
{
	if (len > s->pool_bytes / 2 && len <= s->pool_bytes && lbs <= PF_AIO_MEM_ALIGN)
		return s->pool_bytes;
	return len;
}

static uint8_t *buf_get(struct scan *s, size_t size, unsigned lbs)
{
	void *buf;

	if (size == s->pool_bytes && s->n_pool && lbs <= PF_AIO_MEM_ALIGN)
		return s->pool[--s->n_pool];
	if (posix_memalign(&buf, lbs > PF_AIO_MEM_ALIGN ? lbs : PF_AIO_MEM_ALIGN, size) != 0)
		return NULL;
	return buf;
}

static void buf_put(struct scan *s, uint8_t *buf, size_t size)
{
	s->mem_held -= size;
	if (size == s->pool_bytes && s->n_pool < s->depth)
		s->pool[s->n_pool++] = buf;
	else
		free(buf);
}

static void release_extents(struct scan *s, struct dev *d)
{
	for (unsigned i = 0; i < d->ext.n; i++)
		buf_put(s, d->ext.x[i].buf, d->ext.x[i].alloc);
	d->ext.n = 0;
}

static void finish(struct scan *s, struct dev *d)
{
	release_extents(s, d);
	d->phase = DEV_DONE;
	s->n_done++;
	if (s->close_done && d->t->fd >= 0) {
		(void)close(d->t->fd);
		d->t->fd = -1;
	}
}

/* Hand the probe [off, off + len), all of it already read: in place when one extent holds it. */
static void feed(struct dev *d, uint64_t off, uint64_t len)
{
	_cleanup_free_ uint8_t *tmp = NULL;
	const uint8_t *p;
	size_t n;
	int r;

	r = pf_extents_view(&d->ext, off, len, PF_AIO_READ_MAX, &p, &tmp, &n);
	if (r < 0)
		pf_probe_fail(d->t->probe, r);
	else
		pf_probe_feed(d->t->probe, p, n);
}

/*
 * Plan the read for the unread bytes [g0, g1), widened to logical blocks.
 * A device's first read, and a read for an mda header outside what was read
 * (the second mda, at the end of the device), are widened to first_read
 * bytes, so the area's text usually comes with its header, as with lvm2's
 * 128 KiB blocks; a read for text brings just the missing text.
 *
 * O_DIRECT cannot read across the end of a device whose size is not a
 * multiple of its logical block (a loop device with -b 4096 over a file of
 * such a size): the kernel rejects the whole read. So direct reads stop at
 * the last whole block, and bytes in the partial block are asked for with one
 * more whole-block read, which a regular file answers short at its end and a
 * block device refuses (buffered reads of it fail too; lvm2 cannot read
 * them either).
 */
static int plan_read(struct scan *s, struct dev *d, uint64_t g0, uint64_t g1, bool widen)
{
	const struct pf_aio_target *t = d->t;
	uint64_t x0 = align_down(g0, t->lbs), x1 = align_up(g1, t->lbs), valid_end, whole;
	uint64_t next = pf_extents_next(&d->ext, g0);

	if (widen) {
		uint64_t want = x0 + s->first_read < t->size_bytes ? x0 + s->first_read
								     : t->size_bytes;

		if (align_up(want, t->lbs) > x1)
			x1 = align_up(want, t->lbs);
	}
	if (x1 > next) /* extents start on block boundaries: never read a byte twice */
		x1 = next;
	valid_end = x1 < t->size_bytes ? x1 : t->size_bytes;
	if (t->direct) {
		whole = align_down(t->size_bytes, t->lbs);
		if (x0 >= whole) {
			x1 = x0 + t->lbs;
			valid_end = t->size_bytes;
		} else if (x1 > whole) {
			x1 = valid_end = whole;
		}
	} else {
		x1 = valid_end;
	}
	if (x1 - x0 > PF_AIO_READ_MAX)
		return -E2BIG;
	d->req.off = x0;
	d->req.len = (size_t)(x1 - x0);
	d->valid = (size_t)(valid_end - x0);
	d->started = true;
	return 0;
}

/*
 * Run the probe as far as the bytes already read allow. Returns true when it
 * needs a read (planned in d->req), false when it is done.
 */
static bool advance(struct scan *s, struct dev *d)
{
	struct pf_probe *p = d->t->probe;
	uint64_t size = d->t->size_bytes, off, len, end, got, next;
	bool widen;

	while (pf_probe_next(p, &off, &len) == 1) {
		/* The probe asks only for bytes on the device; clamp anyway. */
		if (off > size)
			off = size;
		end = len > size - off ? size : off + len;
		got = pf_extents_covered_until(&d->ext, off, end);
		if (got == end || d->short_read) {
			/* A short feed: the probe records the step as unreadable. */
			d->short_read = false;
			feed(d, off, got - off);
			continue;
		}
		next = pf_extents_next(&d->ext, got);
		widen = !d->started || p->step == PF_PROBE_MDA_HEADER;
		if (plan_read(s, d, got, next < end ? next : end, widen) < 0) {
			pf_probe_fail(p, -E2BIG);
			continue;
		}
		d->phase = DEV_READY;
		return true;
	}
	finish(s, d);
	return false;
}

static void add_extent(struct scan *s, struct dev *d, uint64_t off, size_t len, size_t alloc,
		       uint8_t *buf)
{
	/* More pieces than the probe ever asks for: start over rather than grow. */
	if (d->ext.n == PF_EXTENTS_MAX)
		release_extents(s, d);
	d->ext.x[d->ext.n++] =
		(struct pf_extent){ .off = off, .len = len, .buf = buf, .alloc = alloc };
}

/* A read ended: keep what it brought, or tell the probe its step failed. */
static void complete(struct scan *s, struct dev *d, int64_t res)
{
	struct pf_aio_target *t = d->t;
	uint8_t *buf = d->req.buf;
	size_t got;

	d->req.buf = NULL;
	t->n_reads++;
	s->stats.n_reads++;
	if (res < 0) {
		buf_put(s, buf, d->alloc);
		pf_probe_fail(t->probe, res < -ERRNO_MAX ? -EIO : (int)res);
		return;
	}
	got = (uint64_t)res < d->valid ? (size_t)res : d->valid;
	t->bytes_read += got;
	s->stats.bytes_read += got;
	if (got < d->valid)
		d->short_read = true;
	if (got == 0)
		buf_put(s, buf, d->alloc);
	else
		add_extent(s, d, d->req.off, got, d->alloc, buf);
}

/* Stop waiting for a device's read: the backend keeps the buffer, the device is out. */
static void give_up(struct scan *s, struct dev *d, int err)
{
	struct pf_aio_target *t = d->t;

	list_remove(&s->in_flight, d);
	s->n_in_flight--;
	s->mem_held -= d->alloc;
	s->b->ops->abandon(s->b, &d->req);
	d->req.buf = NULL;
	t->status = err;
	if (err == -ETIMEDOUT) {
		s->stats.n_timeouts++;
		pf_diag_at(&t->diag, d->req.off,
			   "no answer within %u ms to a read of %zu bytes at byte %llu: device left out",
			   s->timeout_ms, d->req.len, (unsigned long long)d->req.off);
	} else {
		pf_diag_at(&t->diag, d->req.off, "scan stopped while reading byte %llu: %s",
			   (unsigned long long)d->req.off, strerror(-err));
	}
	pf_probe_fail(t->probe, err);
	finish(s, d);
}

static void expire(struct scan *s, uint64_t now)
{
	while (s->in_flight.head && s->in_flight.head->deadline_ns <= now)
		give_up(s, s->in_flight.head, -ETIMEDOUT);
}

/* The next device with a planned read: started ones first, so their buffers go sooner. */
static struct dev *next_ready(struct scan *s)
{
	struct dev *d = list_pop_front(&s->ready);

	if (d)
		return d;
	if (s->deferred_new) {
		d = s->deferred_new;
		s->deferred_new = NULL;
		return d;
	}
	while (s->next_new < s->n) {
		d = &s->devs[s->next_new++];
		if (advance(s, d))
			return d;
	}
	return NULL;
}

/* Fail the read a device could not start, and let its probe go on. */
static void fail_read(struct scan *s, struct dev *d, int err)
{
	pf_probe_fail(d->t->probe, err);
	if (advance(s, d))
		list_push_back(&s->ready, d);
}

/*
 * Put back a read that cannot start yet. A device not yet started waits
 * behind the started ones: their reads free memory, a new device takes it.
 */
static void defer(struct scan *s, struct dev *d)
{
	if (d->ext.n == 0 && d->t->n_reads == 0)
		s->deferred_new = d;
	else
		list_push_front(&s->ready, d);
}

/* Reads of ours that may be in flight: the depth, less slots held by abandoned reads. */
static unsigned window(const struct scan *s)
{
	unsigned usable = s->b->depth > s->b->stuck ? s->b->depth - s->b->stuck : 0;

	return usable < s->depth ? usable : s->depth;
}

/* Give planned reads buffers while the window and the memory cap allow. */
static void fill(struct scan *s)
{
	unsigned max = window(s);

	while (s->n_in_flight + s->n_batch < max) {
		struct dev *d = next_ready(s);
		bool busy = s->n_in_flight + s->n_batch > 0;
		size_t size;

		if (!d)
			return;
		size = buf_size(s, d->req.len, d->t->lbs);
		/* Over the cap, wait for buffers to come back; alone, any read goes. */
		if (busy && s->mem_held + size > s->mem_max) {
			defer(s, d);
			return;
		}
		d->req.buf = buf_get(s, size, d->t->lbs);
		if (!d->req.buf) {
			if (busy) {
				defer(s, d);
				return;
			}
			fail_read(s, d, -ENOMEM);
			continue;
		}
		d->alloc = size;
		mem_add(s, size);
		d->phase = DEV_BATCHED;
		s->batch[s->n_batch++] = &d->req;
	}
}

static void drop_batch_head(struct scan *s, int err)
{
	struct dev *d = s->batch[0]->data;

	buf_put(s, d->req.buf, d->alloc);
	d->req.buf = NULL;
	memmove(s->batch, s->batch + 1, (s->n_batch - 1) * sizeof(*s->batch));
	s->n_batch--;
	fail_read(s, d, err);
}

static void submit(struct scan *s)
{
	while (s->n_batch) {
		int r = s->b->ops->submit(s->b, s->batch, s->n_batch);

		s->stats.n_submit_calls++;
		if (r > 0) {
			uint64_t deadline = pf_now_ns() + s->timeout_ns;
			unsigned k = (unsigned)r < s->n_batch ? (unsigned)r : s->n_batch;

			for (unsigned i = 0; i < k; i++) {
				struct dev *d = s->batch[i]->data;

				d->phase = DEV_IN_FLIGHT;
				d->deadline_ns = deadline;
				list_push_back(&s->in_flight, d);
			}
			s->n_in_flight += k;
			if (s->n_in_flight > s->stats.max_in_flight)
				s->stats.max_in_flight = s->n_in_flight;
			memmove(s->batch, s->batch + k, (s->n_batch - k) * sizeof(*s->batch));
			s->n_batch -= k;
			s->eagain_spins = 0;
			continue;
		}
		if (r == -EINTR)
			continue;
		if (r == -EAGAIN) {
			if (s->n_in_flight)
				return; /* harvest first, then retry */
			if (++s->eagain_spins <= PF_AIO_EAGAIN_RETRIES) {
				struct timespec ms = pf_timespec_from_ns(NSEC_PER_MSEC);

				(void)nanosleep(&ms, NULL);
				continue;
			}
		}
		drop_batch_head(s, r < 0 ? r : -EIO);
	}
}

/* Take up to depth completions, waiting as the backend's wait() does. */
static int reap(struct scan *s, unsigned min_nr, const struct timespec *ts)
{
	int r = s->b->ops->wait(s->b, min_nr, s->depth, ts, s->events);

	s->stats.n_wait_calls++;
	if (r == -EINTR)
		r = 0;
	if (r < 0)
		return r;
	for (int i = 0; i < r; i++) {
		struct dev *d = s->events[i].req->data;

		list_remove(&s->in_flight, d);
		s->n_in_flight--;
		complete(s, d, s->events[i].res);
		if (advance(s, d))
			list_push_back(&s->ready, d);
	}
	return 0;
}

static int harvest(struct scan *s)
{
	static const struct timespec now_only;
	uint64_t now = pf_now_ns(), deadline = s->in_flight.head->deadline_ns;
	uint64_t rel = deadline > now ? deadline - now : 0;
	struct timespec ts = pf_timespec_from_ns(rel);
	int r;

	r = reap(s, 1, &ts);
	if (r < 0)
		return r;
	/*
	 * A read that ended while this process was not running (a loaded host) is not late:
	 * what is done by the time the deadlines are judged is taken first, so only reads
	 * still outstanding then are given up on.
	 */
	now = pf_now_ns();
	if (s->in_flight.head && s->in_flight.head->deadline_ns <= now) {
		r = reap(s, 0, &now_only);
		if (r < 0)
			return r;
	}
	expire(s, now);
	return 0;
}

/* The scan cannot go on (the backend failed, or every slot is stuck): everyone left gets err. */
static void stop_all(struct scan *s, int err)
{
	while (s->n_batch)
		drop_batch_head(s, err);
	while (s->in_flight.head)
		give_up(s, s->in_flight.head, err);
	for (size_t i = 0; i < s->n; i++) {
		struct dev *d = &s->devs[i];

		if (d->phase == DEV_DONE)
			continue;
		d->t->status = err;
		if (err == -EBUSY)
			pf_diag_msg(&d->t->diag,
				    "not read: every I/O slot is held by a read that never completed");
		else
			pf_diag_msg(&d->t->diag, "not read: the scan stopped: %s", strerror(-err));
		finish(s, d);
	}
}

static int run(struct scan *s)
{
	while (s->n_done < s->n) {
		int r;

		fill(s);
		submit(s);
		if (s->n_in_flight == 0) {
			/* fill() may finish the last devices itself (nothing to read: size 0) */
			if (s->n_done == s->n)
				break;
			if (window(s) == 0) {
				stop_all(s, -EBUSY);
				return 0;
			}
			/* A failed submit re-planned a read: go on. Nothing planned: cannot be. */
			if (!s->ready.head && !s->deferred_new && s->next_new == s->n) {
				stop_all(s, -EIO);
				return -EIO;
			}
			continue;
		}
		r = harvest(s);
		if (r < 0) {
			stop_all(s, r);
			return r;
		}
	}
	return 0;
}

int pf_aio_check_args(const struct pf_aio_target *targets, size_t n, const struct pf_aio_opts *opts)
{
	if (n && !targets)
		return -EINVAL;
	if (n > PF_AIO_TARGETS_MAX)
		return -E2BIG;
	if (opts->queue_depth > PF_AIO_DEPTH_LIMIT ||
	    opts->first_read_bytes > PF_AIO_FIRST_READ_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		const struct pf_aio_target *t = &targets[i];

		if (t->fd < 0 || !t->probe || !lbs_is_valid(t->lbs) || t->size_bytes > INT64_MAX)
			return -EINVAL;
	}
	return 0;
}

int pf_aio_scan(struct pf_aio_target *targets, size_t n, const struct pf_aio_opts *opts,
		struct pf_aio_stats *ret_stats)
{
	static const struct pf_aio_opts defaults;
	struct pf_io_backend *own = NULL;
	struct scan s = { 0 };
	unsigned depth;
	int r;

	if (!opts)
		opts = &defaults;
	r = pf_aio_check_args(targets, n, opts);
	if (r < 0)
		return r;
	if (n == 0) {
		if (ret_stats)
			*ret_stats = s.stats;
		return 0;
	}

	depth = opts->queue_depth ? opts->queue_depth : pf_aio_depth(n);
	s.b = opts->backend;
	if (!s.b) {
		r = pf_libaio_backend_new(depth, opts->proc_dir, &own);
		if (r < 0)
			return r;
		s.b = own;
	}
	if (s.b->depth < depth)
		depth = s.b->depth;
	if (depth == 0) {
		r = -EINVAL;
		goto out;
	}
	s.depth = s.stats.depth = depth;
	s.n = n;
	s.first_read = opts->first_read_bytes ? opts->first_read_bytes : PF_AIO_FIRST_READ_DEFAULT;
	s.timeout_ms = opts->timeout_ms ? opts->timeout_ms : PF_AIO_TIMEOUT_MS_DEFAULT;
	s.timeout_ns = (uint64_t)s.timeout_ms * NSEC_PER_MSEC;
	s.mem_max = opts->mem_max_bytes ? opts->mem_max_bytes : PF_AIO_MEM_DEFAULT;
	s.close_done = opts->close_done;
	s.pool_bytes = (size_t)align_up(s.first_read, PF_AIO_MEM_ALIGN);
	s.devs = calloc(n, sizeof(*s.devs));
	s.batch = calloc(depth, sizeof(*s.batch));
	s.events = calloc(depth, sizeof(*s.events));
	s.pool = calloc(depth, sizeof(*s.pool));
	if (!s.devs || !s.batch || !s.events || !s.pool) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		struct pf_aio_target *t = &targets[i];

		t->status = 0;
		pf_diag_clear(&t->diag);
		t->bytes_read = 0;
		t->n_reads = 0;
		t->reader_lost = false;
		s.devs[i].t = t;
		s.devs[i].phase = DEV_NEW;
		s.devs[i].req.fd = t->fd;
		s.devs[i].req.data = &s.devs[i];
	}
	r = run(&s);
	if (ret_stats)
		*ret_stats = s.stats;

out:
	for (unsigned i = 0; i < s.n_pool; i++)
		free(s.pool[i]);
	free(s.pool);
	free(s.devs);
	free(s.batch);
	free(s.events);
	if (own)
		own->ops->destroy(own);
	return r;
}
