/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The I/O backend the async scan reads through: start reads, harvest their
 * completions, give up on reads that never finish. libaio.c implements it
 * with libaio; tee.c wraps one to record what the scan's probes are fed; the
 * unit tests plug in a fake that injects errors, short reads, delays and
 * hangs, so the scan logic is tested without devices.
 */
#ifndef PF_BACKEND_H
#define PF_BACKEND_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

/* One read. The submitter owns it; the backend only borrows it while it is in flight. */
struct pf_io_req {
	int fd;
	uint64_t off;
	size_t len;
	uint8_t *buf; /* len bytes from posix_memalign, aligned for O_DIRECT */
	void *data;   /* the submitter's; the backend never touches it */
	unsigned slot; /* the backend's bookkeeping */
};

struct pf_io_event {
	struct pf_io_req *req;
	int64_t res; /* bytes read (possibly fewer than asked), or a negative errno */
};

struct pf_io_backend;

struct pf_io_backend_ops {
	/*
	 * Start reads[0..n). Returns how many were started (always a prefix,
	 * at least one), or a negative errno concerning reqs[0] when none was:
	 * -EAGAIN means out of resources (harvest, then retry). The caller
	 * never has more than depth - stuck reads of its own in flight.
	 */
	int (*submit)(struct pf_io_backend *b, struct pf_io_req *const *reqs, unsigned n);
	/*
	 * Wait until min_nr reads completed or timeout (relative; NULL: no
	 * limit) passed, and store up to max completions in ret. Returns how
	 * many were stored (0 on timeout) or a negative errno (-EINTR: retry).
	 * Abandoned reads are never reported.
	 */
	int (*wait)(struct pf_io_backend *b, unsigned min_nr, unsigned max,
		    const struct timespec *timeout, struct pf_io_event *ret);
	/*
	 * Give up on an in-flight read that does not complete. Takes ownership
	 * of req->buf, which the kernel may still write into until the read
	 * ends (possibly never); req itself is not referenced after the call.
	 * The read keeps its slot, counted in stuck, until it ends.
	 */
	void (*abandon)(struct pf_io_backend *b, struct pf_io_req *req);
	/* Free the backend. Only abandoned reads may still be in flight. */
	void (*destroy)(struct pf_io_backend *b);
};

struct pf_io_backend {
	const struct pf_io_backend_ops *ops;
	unsigned depth; /* most reads in flight at once */
	unsigned stuck; /* abandoned reads not known to have ended: slots not usable */
};

#endif /* PF_BACKEND_H */
