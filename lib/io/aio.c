/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The async scan: a sliding window of reads feeding one probe per device, and its libaio engine. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <limits.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "io/aio.h"
#include "io/ioengine.h"
#include "format/mda.h"
#include "format/probe.h"

/* The probe asks for at most 7 ranges (label, 2 x header + 2 text parts); room to spare. */
#define PF_AIO_EXTENTS_MAX 8U
/* Buffers are page aligned: enough for any O_DIRECT memory alignment up to the block size. */
#define PF_AIO_MEM_ALIGN 4096U
/* Longest single read: metadata text, widened to blocks, or the first read. */
#define PF_AIO_READ_MAX ((uint64_t)PF_MDA_TEXT_MAX + PF_AIO_FIRST_READ_MAX + 2U * PF_AIO_LBS_MAX)
/* io_submit() says EAGAIN with nothing in flight to harvest: retry this often, 1 ms apart. */
#define PF_AIO_EAGAIN_RETRIES 1000U
#define PF_AIO_NUMBER_MAX 32U /* bytes of a /proc number */
#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MSEC 1000000ULL

#define container_of(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))

/* ---- the libaio engine ---- */

struct aio_slot {
	struct iocb cb;
	struct pf_io_req *req; /* NULL when the slot is free or abandoned */
	uint8_t *orphan;       /* abandoned: the buffer the kernel may still fill */
};

struct aio_engine {
	struct pf_io_engine e;
	io_context_t ctx;
	struct aio_slot *slots;
	unsigned *free_slots; /* stack of free slot indexes */
	unsigned n_free;
	unsigned n_orphans;
	struct iocb **cbs;    /* io_submit() argument, depth entries */
	struct io_event *evs; /* io_getevents() result, depth entries */
};

static struct aio_engine *to_aio(struct pf_io_engine *e)
{
	return container_of(e, struct aio_engine, e);
}

static void slot_put(struct aio_engine *a, struct aio_slot *slot)
{
	slot->req = NULL;
	slot->orphan = NULL;
	a->free_slots[a->n_free++] = (unsigned)(slot - a->slots);
}

static int aio_submit(struct pf_io_engine *e, struct pf_io_req *const *reqs, unsigned n)
{
	struct aio_engine *a = to_aio(e);
	unsigned i;
	int r;

	if (n > a->n_free)
		n = a->n_free;
	if (n == 0)
		return -EAGAIN;
	for (i = 0; i < n; i++) {
		struct aio_slot *slot = &a->slots[a->free_slots[--a->n_free]];

		io_prep_pread(&slot->cb, reqs[i]->fd, reqs[i]->buf, reqs[i]->len,
			      (long long)reqs[i]->off);
		slot->cb.data = slot;
		slot->req = reqs[i];
		reqs[i]->slot = (unsigned)(slot - a->slots);
		a->cbs[i] = &slot->cb;
	}
	r = io_submit(a->ctx, (long)n, a->cbs);
	/* What the kernel did not take goes back, last taken first, so the stack is as before. */
	for (i = n; i > (r > 0 ? (unsigned)r : 0U); i--)
		slot_put(a, &a->slots[reqs[i - 1]->slot]);
	if (r == 0)
		return -EAGAIN;
	return r;
}

static int aio_wait(struct pf_io_engine *e, unsigned min_nr, unsigned max,
		    const struct timespec *timeout, struct pf_io_event *ret)
{
	struct aio_engine *a = to_aio(e);
	struct timespec ts, *tsp = NULL;
	int r, n = 0;

	if (max > e->depth)
		max = e->depth;
	if (timeout) {
		ts = *timeout;
		tsp = &ts;
	}
	r = io_getevents(a->ctx, (long)min_nr, (long)max, a->evs, tsp);
	if (r < 0)
		return r;
	for (int i = 0; i < r; i++) {
		struct aio_slot *slot = a->evs[i].data;
		ptrdiff_t idx = slot - a->slots;

		if (idx < 0 || idx >= (ptrdiff_t)e->depth)
			continue; /* not ours: cannot happen with a private context */
		if (slot->orphan) {
			free(slot->orphan);
			a->n_orphans--;
			e->stuck--;
		} else {
			ret[n].req = slot->req;
			/* res is the kernel's long, carried in an unsigned field. */
			ret[n].res = (int64_t)(long)a->evs[i].res;
			n++;
		}
		slot_put(a, slot);
	}
	return n;
}

static void aio_abandon(struct pf_io_engine *e, struct pf_io_req *req)
{
	struct aio_engine *a = to_aio(e);
	struct aio_slot *slot = &a->slots[req->slot];
	struct io_event ev;

	/*
	 * Block and file reads cannot be cancelled on current kernels (-EINVAL),
	 * but old ones, or a driver with a cancel hook, may finish it here.
	 */
	if (io_cancel(a->ctx, &slot->cb, &ev) == 0) {
		free(req->buf);
		slot_put(a, slot);
		return;
	}
	slot->orphan = req->buf;
	slot->req = NULL;
	a->n_orphans++;
	e->stuck++;
}

static void aio_destroy(struct pf_io_engine *e)
{
	struct aio_engine *a = to_aio(e);

	if (a->n_orphans) {
		struct timespec zero = { 0, 0 };
		int r = io_getevents(a->ctx, 0, (long)e->depth, a->evs, &zero);

		for (int i = 0; i < r; i++) {
			struct aio_slot *slot = a->evs[i].data;

			if (slot->orphan) {
				free(slot->orphan);
				a->n_orphans--;
			}
		}
	}
	/*
	 * io_destroy() waits for every read in flight: with a read stuck, leave
	 * the context (the kernel waits for it at exit) and its buffers, which
	 * the kernel may still write; the iocbs themselves were copied at submit.
	 */
	if (a->n_orphans == 0)
		(void)io_destroy(a->ctx);
	free(a->slots);
	free(a->free_slots);
	free(a->cbs);
	free(a->evs);
	free(a);
}

static const struct pf_io_engine_ops aio_ops = {
	.submit = aio_submit,
	.wait = aio_wait,
	.abandon = aio_abandon,
	.destroy = aio_destroy,
};

/* A small number from a /proc file; -errno when it cannot be read. */
static int read_proc_number(const char *proc_dir, const char *name, uint64_t *ret)
{
	_cleanup_close_ int fd = -1;
	char path[PATH_MAX], buf[PF_AIO_NUMBER_MAX];
	unsigned long long v;
	ssize_t len;
	char *end;
	int n;

	n = snprintf(path, sizeof(path), "%s/%s", proc_dir, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	len = read(fd, buf, sizeof(buf) - 1);
	if (len < 0)
		return -errno;
	buf[len] = '\0';
	errno = 0;
	v = strtoull(buf, &end, 10);
	if (errno || end == buf)
		return -EBADMSG;
	*ret = v;
	return 0;
}

/* How many more aio events the system allows (fs/aio-max-nr minus fs/aio-nr), or UINT_MAX. */
static unsigned aio_room(const char *proc_dir)
{
	uint64_t max, used;

	if (read_proc_number(proc_dir, "sys/fs/aio-max-nr", &max) < 0 ||
	    read_proc_number(proc_dir, "sys/fs/aio-nr", &used) < 0)
		return UINT32_MAX;
	if (used >= max)
		return 0;
	return max - used > UINT32_MAX ? UINT32_MAX : (unsigned)(max - used);
}

int pf_aio_engine_new(unsigned depth, const char *proc_dir, struct pf_io_engine **ret)
{
	struct aio_engine *a = NULL;
	io_context_t ctx = 0;
	unsigned room;
	int r;

	if (depth == 0)
		depth = 1;
	if (depth > PF_AIO_DEPTH_LIMIT)
		depth = PF_AIO_DEPTH_LIMIT;
	room = aio_room(proc_dir ? proc_dir : "/proc");
	if (room < depth)
		depth = room ? room : 1;
	/* Others share the system-wide limit and may take room meanwhile: back off. */
	for (;;) {
		ctx = 0;
		r = io_setup((int)depth, &ctx);
		if (r == 0)
			break;
		if (r == -EINTR)
			continue;
		if (r != -EAGAIN || depth == 1)
			return r;
		depth /= 2;
	}
	a = calloc(1, sizeof(*a));
	if (!a)
		goto out_nomem;
	a->slots = calloc(depth, sizeof(*a->slots));
	a->free_slots = calloc(depth, sizeof(*a->free_slots));
	a->cbs = calloc(depth, sizeof(*a->cbs));
	a->evs = calloc(depth, sizeof(*a->evs));
	if (!a->slots || !a->free_slots || !a->cbs || !a->evs)
		goto out_nomem;
	a->e.ops = &aio_ops;
	a->e.depth = depth;
	a->ctx = ctx;
	for (unsigned i = depth; i > 0; i--)
		a->free_slots[a->n_free++] = i - 1;
	*ret = &a->e;
	return 0;

out_nomem:
	if (a) {
		free(a->slots);
		free(a->free_slots);
		free(a->cbs);
		free(a->evs);
		free(a);
	}
	(void)io_destroy(ctx);
	return -ENOMEM;
}

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

/* Bytes of a device already read: [off, off + len) in buf, which holds alloc bytes. */
struct extent {
	uint64_t off;
	size_t len;
	size_t alloc;
	uint8_t *buf;
};

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
	unsigned n_ext;
	struct extent ext[PF_AIO_EXTENTS_MAX];
};

struct dev_list {
	struct dev *head, *tail;
};

struct scan {
	struct pf_io_engine *e;
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
	struct pf_aio_stats stats;
};

static uint64_t now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

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
	for (unsigned i = 0; i < d->n_ext; i++)
		buf_put(s, d->ext[i].buf, d->ext[i].alloc);
	d->n_ext = 0;
}

static void finish(struct scan *s, struct dev *d)
{
	release_extents(s, d);
	d->phase = DEV_DONE;
	s->n_done++;
}

/* First byte at or after off that no extent holds, or end. */
static uint64_t covered_until(const struct dev *d, uint64_t off, uint64_t end)
{
	bool moved = true;

	while (off < end && moved) {
		moved = false;
		for (unsigned i = 0; i < d->n_ext; i++) {
			const struct extent *x = &d->ext[i];

			if (x->off <= off && off < x->off + x->len) {
				off = x->off + x->len;
				moved = true;
			}
		}
	}
	return off < end ? off : end;
}

/* Start of the first extent beyond off, or UINT64_MAX. */
static uint64_t next_extent(const struct dev *d, uint64_t off)
{
	uint64_t next = UINT64_MAX;

	for (unsigned i = 0; i < d->n_ext; i++)
		if (d->ext[i].off > off && d->ext[i].off < next)
			next = d->ext[i].off;
	return next;
}

/* Hand the probe [off, off + len), all of it already read: in place when one extent holds it. */
static void feed(struct dev *d, uint64_t off, uint64_t len)
{
	struct pf_probe *p = d->t->probe;
	uint64_t pos = off, end = off + len;
	uint8_t empty = 0, *tmp;

	if (len == 0) {
		pf_probe_feed(p, &empty, 0);
		return;
	}
	for (unsigned i = 0; i < d->n_ext; i++) {
		const struct extent *x = &d->ext[i];

		if (x->off <= off && end <= x->off + x->len) {
			pf_probe_feed(p, x->buf + (off - x->off), (size_t)len);
			return;
		}
	}
	/* Spread over several reads (text running past the first read): join the pieces. */
	if (len > PF_AIO_READ_MAX) {
		pf_probe_fail(p, -E2BIG);
		return;
	}
	tmp = malloc((size_t)len);
	if (!tmp) {
		pf_probe_fail(p, -ENOMEM);
		return;
	}
	while (pos < end) {
		const struct extent *x = NULL;
		uint64_t stop;

		for (unsigned i = 0; i < d->n_ext && !x; i++)
			if (d->ext[i].off <= pos && pos < d->ext[i].off + d->ext[i].len)
				x = &d->ext[i];
		if (!x)
			break; /* cannot happen: the caller checked coverage */
		stop = x->off + x->len < end ? x->off + x->len : end;
		memcpy(tmp + (pos - off), x->buf + (pos - x->off), (size_t)(stop - pos));
		pos = stop;
	}
	pf_probe_feed(p, tmp, (size_t)(pos - off));
	free(tmp);
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
	uint64_t next = next_extent(d, g0);

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
		got = covered_until(d, off, end);
		if (got == end || d->short_read) {
			/* A short feed: the probe records the step as unreadable. */
			d->short_read = false;
			feed(d, off, got - off);
			continue;
		}
		next = next_extent(d, got);
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
	if (d->n_ext == PF_AIO_EXTENTS_MAX)
		release_extents(s, d);
	d->ext[d->n_ext++] = (struct extent){ .off = off, .len = len, .alloc = alloc, .buf = buf };
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
		pf_probe_fail(t->probe, res < -4095 ? -EIO : (int)res);
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

/* Stop waiting for a device's read: the engine keeps the buffer, the device is out. */
static void give_up(struct scan *s, struct dev *d, int err)
{
	struct pf_aio_target *t = d->t;

	list_remove(&s->in_flight, d);
	s->n_in_flight--;
	s->mem_held -= d->alloc;
	s->e->ops->abandon(s->e, &d->req);
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

static void expire(struct scan *s)
{
	uint64_t now = now_ns();

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
	if (d->n_ext == 0 && d->t->n_reads == 0)
		s->deferred_new = d;
	else
		list_push_front(&s->ready, d);
}

/* Reads of ours that may be in flight: the depth, less slots held by abandoned reads. */
static unsigned window(const struct scan *s)
{
	unsigned usable = s->e->depth > s->e->stuck ? s->e->depth - s->e->stuck : 0;

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
		int r = s->e->ops->submit(s->e, s->batch, s->n_batch);

		s->stats.n_submit_calls++;
		if (r > 0) {
			uint64_t deadline = now_ns() + s->timeout_ns;
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
				struct timespec ms = { 0, (long)NSEC_PER_MSEC };

				(void)nanosleep(&ms, NULL);
				continue;
			}
		}
		drop_batch_head(s, r < 0 ? r : -EIO);
	}
}

static int harvest(struct scan *s)
{
	uint64_t now = now_ns(), deadline = s->in_flight.head->deadline_ns;
	uint64_t rel = deadline > now ? deadline - now : 0;
	struct timespec ts = { .tv_sec = (time_t)(rel / NSEC_PER_SEC),
			       .tv_nsec = (long)(rel % NSEC_PER_SEC) };
	int r;

	r = s->e->ops->wait(s->e, 1, s->depth, &ts, s->events);
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
	expire(s);
	return 0;
}

/* The scan cannot go on (the engine failed, or every slot is stuck): everyone left gets err. */
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

static int check_target(const struct pf_aio_target *t)
{
	if (t->fd < 0 || !t->probe || !lbs_is_valid(t->lbs) || t->size_bytes > INT64_MAX)
		return -EINVAL;
	return 0;
}

int pf_aio_scan(struct pf_aio_target *targets, size_t n, const struct pf_aio_opts *opts,
		struct pf_aio_stats *ret_stats)
{
	static const struct pf_aio_opts defaults;
	struct pf_io_engine *own = NULL;
	struct scan s = { 0 };
	unsigned depth;
	int r;

	if (!opts)
		opts = &defaults;
	if (n && !targets)
		return -EINVAL;
	if (n > PF_AIO_TARGETS_MAX)
		return -E2BIG;
	if (opts->queue_depth > PF_AIO_DEPTH_LIMIT ||
	    opts->first_read_bytes > PF_AIO_FIRST_READ_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (check_target(&targets[i]) < 0)
			return -EINVAL;
	if (n == 0) {
		if (ret_stats)
			*ret_stats = s.stats;
		return 0;
	}

	depth = opts->queue_depth ? opts->queue_depth : pf_aio_depth(n);
	s.e = opts->engine;
	if (!s.e) {
		r = pf_aio_engine_new(depth, opts->proc_dir, &own);
		if (r < 0)
			return r;
		s.e = own;
	}
	if (s.e->depth < depth)
		depth = s.e->depth;
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
