/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A scripted I/O backend for the async scan's tests: in-memory devices that can
 * fail with EIO, read short, answer late or never, refuse submissions, and
 * insist on O_DIRECT alignment; it records what was read and how the window
 * was used (in flight at each wait, most in flight, overlapping reads).
 */
#ifndef PF_TEST_FAKE_BACKEND_H
#define PF_TEST_FAKE_BACKEND_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "io/backend.h"

/* Device i answers reads on fd PF_FAKE_FD_BASE + i. */
#define PF_FAKE_FD_BASE 1000
#define PF_FAKE_READS_MAX 16U
#define PF_FAKE_NONE UINT64_MAX

struct pf_fake_read {
	uint64_t off;
	uint64_t len; /* asked for */
	int64_t res;  /* answered */
};

struct pf_fake_dev {
	/* Behaviour, set by the test (pf_fake_backend_new sets "nothing special"). */
	const uint8_t *data; /* size bytes; NULL reads as zeros */
	uint64_t size;
	unsigned lbs;	     /* nonzero: O_DIRECT rules, misaligned reads fail -EINVAL */
	bool block;	     /* with lbs: a block device; a read ending in a partial block fails */
	unsigned delay_ms;
	uint64_t hang_from;  /* reads ending past this never complete */
	uint64_t eio_from, eio_to; /* reads touching [from, to) fail -EIO */
	uint64_t short_at;   /* reads stop here */
	int submit_err;	     /* io_submit refuses this device's reads with it */
	/* Recorded. */
	unsigned n_reads; /* completed, any result */
	struct pf_fake_read reads[PF_FAKE_READS_MAX];
	unsigned n_misaligned;
	unsigned n_overlaps; /* reads that returned bytes an earlier read had returned */
};

struct pf_fake_io;

struct pf_fake_backend {
	struct pf_io_backend b;
	struct pf_fake_dev *devs;
	size_t n_devs;
	/* Behaviour. */
	unsigned max_per_wait; /* 0: no limit */
	unsigned eagain_every; /* every Nth submit call fails -EAGAIN; 0: never */
	unsigned eintr_every;  /* every Nth wait call fails -EINTR; 0: never */
	unsigned submit_max;   /* most reads taken per submit call; 0: all */
	unsigned stall_ms;     /* the first wait that returns a read then sleeps this long */
	/* Recorded. */
	unsigned in_flight;    /* abandoned reads included: they keep their slot */
	unsigned max_in_flight;
	unsigned n_over_depth; /* submissions beyond depth (a scan bug) */
	unsigned n_submit_calls, n_wait_calls;
	unsigned n_waits_not_full; /* waits entered with fewer than depth reads in flight */
	unsigned n_abandoned;
	/* Private. */
	struct pf_fake_io *io;
	unsigned n_io;
	uint64_t seq;
};

int pf_fake_backend_new(size_t n_devs, unsigned depth, struct pf_fake_backend **ret);
void pf_fake_backend_free(struct pf_fake_backend *f);

#endif /* PF_TEST_FAKE_BACKEND_H */
