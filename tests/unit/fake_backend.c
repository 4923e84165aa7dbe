/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scripted I/O backend of the scan tests: real time, in-memory devices, injected failures. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "base/macro.h"
#include "fake_backend.h"

struct pf_fake_io {
	struct pf_io_req *req;
	struct pf_fake_dev *dev;
	uint64_t ready_ns;
	bool hang;
	bool abandoned;
};

static struct pf_fake_backend *to_fake(struct pf_io_backend *b)
{
	return container_of(b, struct pf_fake_backend, b);
}

static struct pf_fake_dev *dev_of(struct pf_fake_backend *f, int fd)
{
	if (fd < PF_FAKE_FD_BASE || (size_t)(fd - PF_FAKE_FD_BASE) >= f->n_devs)
		return NULL;
	return &f->devs[fd - PF_FAKE_FD_BASE];
}

static int fake_submit(struct pf_io_backend *b, struct pf_io_req *const *reqs, unsigned n)
{
	struct pf_fake_backend *f = to_fake(b);
	unsigned i;

	f->n_submit_calls++;
	if (f->eagain_every && f->n_submit_calls % f->eagain_every == 0)
		return -EAGAIN;
	if (f->submit_max && n > f->submit_max)
		n = f->submit_max;
	for (i = 0; i < n; i++) {
		struct pf_fake_dev *dev = dev_of(f, reqs[i]->fd);
		struct pf_fake_io *io;
		int err = !dev ? -EBADF : dev->submit_err;

		if (f->in_flight >= b->depth) {
			f->n_over_depth++;
			err = -EAGAIN;
		}
		if (err)
			return i ? (int)i : err;
		io = &f->io[f->n_io++];
		*io = (struct pf_fake_io){
			.req = reqs[i],
			.dev = dev,
			.ready_ns = pf_now_ns() + dev->delay_ms * NSEC_PER_MSEC,
			.hang = reqs[i]->off + reqs[i]->len > dev->hang_from,
		};
		f->in_flight++;
		if (f->in_flight > f->max_in_flight)
			f->max_in_flight = f->in_flight;
	}
	return (int)i;
}

/* What the device answers to a read, as Linux would; data lands in the buffer. */
static int64_t do_read(struct pf_fake_dev *dev, struct pf_io_req *req)
{
	uint64_t off = req->off, end = req->off + req->len, avail;

	if (dev->lbs && (off % dev->lbs || req->len % dev->lbs ||
			 (uintptr_t)req->buf % dev->lbs)) {
		dev->n_misaligned++;
		return -EINVAL;
	}
	if (off >= dev->size)
		return 0;
	avail = end < dev->size ? req->len : dev->size - off;
	/* A block device cuts the read at its end, then finds it is not whole blocks. */
	if (dev->lbs && dev->block && avail % dev->lbs)
		return -EINVAL;
	if (dev->eio_from < end && off < dev->eio_to)
		return -EIO;
	if (dev->short_at < off + avail)
		avail = dev->short_at > off ? dev->short_at - off : 0;
	if (dev->data)
		memcpy(req->buf, dev->data + off, (size_t)avail);
	else
		memset(req->buf, 0, (size_t)avail);
	return (int64_t)avail;
}

static void record(struct pf_fake_dev *dev, struct pf_io_req *req, int64_t res)
{
	for (unsigned i = 0; i < dev->n_reads && i < PF_FAKE_READS_MAX; i++) {
		const struct pf_fake_read *r = &dev->reads[i];

		if (res > 0 && r->res > 0 && r->off < req->off + (uint64_t)res &&
		    req->off < r->off + (uint64_t)r->res)
			dev->n_overlaps++;
	}
	if (dev->n_reads < PF_FAKE_READS_MAX)
		dev->reads[dev->n_reads] = (struct pf_fake_read){ req->off, req->len, res };
	dev->n_reads++;
}

static void remove_io(struct pf_fake_backend *f, unsigned i)
{
	memmove(&f->io[i], &f->io[i + 1], (f->n_io - i - 1) * sizeof(*f->io));
	f->n_io--;
}

static int fake_wait(struct pf_io_backend *b, unsigned min_nr, unsigned max,
		     const struct timespec *timeout, struct pf_io_event *ret)
{
	struct pf_fake_backend *f = to_fake(b);
	uint64_t deadline = UINT64_MAX;
	unsigned n = 0;

	f->n_wait_calls++;
	if (f->in_flight < b->depth)
		f->n_waits_not_full++;
	if (f->eintr_every && f->n_wait_calls % f->eintr_every == 0)
		return -EINTR;
	if (f->max_per_wait && max > f->max_per_wait)
		max = f->max_per_wait;
	if (timeout)
		deadline = pf_now_ns() + (uint64_t)timeout->tv_sec * NSEC_PER_SEC +
			   (uint64_t)timeout->tv_nsec;
	for (;;) {
		uint64_t now = pf_now_ns(), wake = UINT64_MAX;
		struct timespec ts;

		for (unsigned i = 0; i < f->n_io && n < max;) {
			struct pf_fake_io *io = &f->io[i];

			if (io->abandoned || io->hang || io->ready_ns > now) {
				i++;
				continue;
			}
			ret[n].req = io->req;
			ret[n].res = do_read(io->dev, io->req);
			record(io->dev, io->req, ret[n].res);
			n++;
			f->in_flight--;
			remove_io(f, i);
		}
		if ((n >= min_nr || now >= deadline) && n && f->stall_ms) {
			/* as if the scanning process lost the CPU just after the wait */
			struct timespec st = pf_timespec_from_ns((uint64_t)f->stall_ms * NSEC_PER_MSEC);

			f->stall_ms = 0;
			(void)nanosleep(&st, NULL);
		}
		if (n >= min_nr || now >= deadline)
			return (int)n;
		for (unsigned i = 0; i < f->n_io; i++)
			if (!f->io[i].abandoned && !f->io[i].hang && f->io[i].ready_ns < wake)
				wake = f->io[i].ready_ns;
		if (wake > deadline)
			wake = deadline;
		if (wake == UINT64_MAX)
			return -EDEADLK; /* would wait forever: a test bug */
		ts = pf_timespec_from_ns(wake);
		(void)clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

static void fake_abandon(struct pf_io_backend *b, struct pf_io_req *req)
{
	struct pf_fake_backend *f = to_fake(b);

	for (unsigned i = 0; i < f->n_io; i++) {
		if (f->io[i].req == req && !f->io[i].abandoned) {
			/* Nothing will ever write into it here; a real backend must keep it. */
			free(req->buf);
			f->io[i].abandoned = true;
			f->io[i].req = NULL;
			f->n_abandoned++;
			b->stuck++;
			return;
		}
	}
}

static void fake_destroy(struct pf_io_backend *b)
{
	struct pf_fake_backend *f = to_fake(b);

	free(f->io);
	free(f->devs);
	free(f);
}

static const struct pf_io_backend_ops fake_ops = {
	.submit = fake_submit,
	.wait = fake_wait,
	.abandon = fake_abandon,
	.destroy = fake_destroy,
};

int pf_fake_backend_new(size_t n_devs, unsigned depth, struct pf_fake_backend **ret)
{
	struct pf_fake_backend *f = calloc(1, sizeof(*f));

	if (!f)
		return -ENOMEM;
	f->b.ops = &fake_ops;
	f->b.depth = depth;
	f->n_devs = n_devs;
	f->devs = calloc(n_devs ? n_devs : 1, sizeof(*f->devs));
	/* Room for every read ever in flight: abandoned ones stay listed. */
	f->io = calloc(depth ? depth : 1, sizeof(*f->io));
	if (!f->devs || !f->io) {
		fake_destroy(&f->b);
		return -ENOMEM;
	}
	for (size_t i = 0; i < n_devs; i++) {
		f->devs[i].hang_from = PF_FAKE_NONE;
		f->devs[i].short_at = PF_FAKE_NONE;
	}
	*ret = f;
	return 0;
}

void pf_fake_backend_free(struct pf_fake_backend *f)
{
	if (f)
		fake_destroy(&f->b);
}
