/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The libaio backend: one kernel aio context, its slots, and reads abandoned while in flight. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libaio.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/fileio.h"
#include "base/macro.h"
#include "base/strutil.h"
#include "io/aio.h"
#include "io/backend.h"
#include "io/libaio.h"

#define AIO_NUMBER_MAX 31U /* bytes of a /proc number */

struct aio_slot {
	struct iocb cb;
	struct pf_io_req *req; /* NULL when the slot is free or abandoned */
	uint8_t *orphan;       /* abandoned: the buffer the kernel may still fill */
};

struct aio_backend {
	struct pf_io_backend b;
	io_context_t ctx;
	struct aio_slot *slots;
	unsigned *free_slots; /* stack of free slot indexes */
	unsigned n_free;
	unsigned n_orphans;
	struct iocb **cbs;    /* io_submit() argument, depth entries */
	struct io_event *evs; /* io_getevents() result, depth entries */
};

static struct aio_backend *to_aio(struct pf_io_backend *b)
{
	return container_of(b, struct aio_backend, b);
}

static void slot_put(struct aio_backend *a, struct aio_slot *slot)
{
	slot->req = NULL;
	slot->orphan = NULL;
	a->free_slots[a->n_free++] = (unsigned)(slot - a->slots);
}

static int aio_submit(struct pf_io_backend *b, struct pf_io_req *const *reqs, unsigned n)
{
	struct aio_backend *a = to_aio(b);
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

static int aio_wait(struct pf_io_backend *b, unsigned min_nr, unsigned max,
		    const struct timespec *timeout, struct pf_io_event *ret)
{
	struct aio_backend *a = to_aio(b);
	struct timespec ts, *tsp = NULL;
	int r, n = 0;

	if (max > b->depth)
		max = b->depth;
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

		if (idx < 0 || idx >= (ptrdiff_t)b->depth)
			continue; /* not ours: cannot happen with a private context */
		if (slot->orphan) {
			free(slot->orphan);
			a->n_orphans--;
			b->stuck--;
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

static void aio_abandon(struct pf_io_backend *b, struct pf_io_req *req)
{
	struct aio_backend *a = to_aio(b);
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
	b->stuck++;
}

static void aio_free(struct aio_backend *a)
{
	free(a->slots);
	free(a->free_slots);
	free(a->cbs);
	free(a->evs);
	free(a);
}

static void aio_destroy(struct pf_io_backend *b)
{
	struct aio_backend *a = to_aio(b);

	if (a->n_orphans) {
		struct timespec zero = { 0, 0 };
		int r = io_getevents(a->ctx, 0, (long)b->depth, a->evs, &zero);

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
	aio_free(a);
}

static const struct pf_io_backend_ops aio_ops = {
	.submit = aio_submit,
	.wait = aio_wait,
	.abandon = aio_abandon,
	.destroy = aio_destroy,
};

/* A small number from a /proc file; -errno when it cannot be read. */
static int read_proc_number(const char *proc_dir, const char *name, uint64_t *ret)
{
	_cleanup_free_ char *text = NULL;
	char path[PATH_MAX];
	const char *s;
	size_t len;
	int n, r;

	n = snprintf(path, sizeof(path), "%s/%s", proc_dir, name);
	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	r = pf_read_file_at(AT_FDCWD, path, AIO_NUMBER_MAX, &text, &len);
	if (r < 0)
		return r;
	s = text;
	return pf_scan_u64(&s, UINT64_MAX, ret);
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

int pf_libaio_backend_new(unsigned depth, const char *proc_dir, struct pf_io_backend **ret)
{
	struct aio_backend *a = NULL;
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
	a->b.ops = &aio_ops;
	a->b.depth = depth;
	a->ctx = ctx;
	for (unsigned i = depth; i > 0; i--)
		a->free_slots[a->n_free++] = i - 1;
	*ret = &a->b;
	return 0;

out_nomem:
	if (a)
		aio_free(a);
	(void)io_destroy(ctx);
	return -ENOMEM;
}
