/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading every candidate device at once: one probe per device, driven by a
 * sliding window of asynchronous reads (libaio, or any I/O backend: backend.h),
 * with a per-read timeout so one dead device cannot hold up the others.
 *
 * Memory: a device's buffers live from its first read until its probe is
 * done; usually that is one read (PF_AIO_FIRST_READ_DEFAULT holds the label,
 * the mda header and the metadata text) and the device is finished the moment
 * it completes. New devices are started only while the buffers held stay
 * under opts.mem_max_bytes; a read that alone exceeds it is still made, once
 * nothing else is in flight.
 *
 * A read that never completes (dead path, queue_if_no_path, hung NBD): after
 * opts.timeout_ms the device is marked -ETIMEDOUT and the scan goes on. The
 * read's buffer is handed to the backend and never freed while the kernel may
 * still fill it. libaio offers no way to drop such a read: io_destroy() would
 * wait for it, so the libaio backend then leaves its context alone, and at
 * process exit the kernel (exit_aio) still waits for the read to end before
 * the process is fully gone. Finish all useful work (state files,
 * activation) before exiting; the hang is limited to the exit itself.
 *
 * Buffered fallback: when a file refuses O_DIRECT the reads are buffered,
 * and the kernel performs buffered libaio reads inside io_submit(), so the
 * timeout cannot help there. Block devices always accept O_DIRECT.
 */
#ifndef PF_AIO_H
#define PF_AIO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/macro.h"
#include "format/mda.h"

struct pf_io_backend;
struct pf_probe;

/* Label, default mda header and (usually) its whole text in one read, as lvm2's bcache block. */
#define PF_AIO_FIRST_READ_DEFAULT (128U * 1024U)
#define PF_AIO_FIRST_READ_MAX (16U * 1024U * 1024U)
#define PF_AIO_TIMEOUT_MS_DEFAULT 30000U
/*
 * Default window: one read per device, at most 256 at once (lvm2's MAX_IO):
 * 256 first reads are 32 MiB of buffers, and more in flight buys nothing
 * once every device queue is busy; the cost per read is then CPU.
 */
#define PF_AIO_DEPTH_MAX 256U
#define PF_AIO_DEPTH_LIMIT 4096U /* cap on opts.queue_depth */
#define PF_AIO_MEM_DEFAULT (64U * 1024U * 1024U)
#define PF_AIO_TARGETS_MAX (1U << 20)
#define PF_AIO_LBS_MAX 65536U
/* Longest single read, and most bytes handed to a probe at once: text widened to blocks. */
#define PF_AIO_READ_MAX ((uint64_t)PF_MDA_TEXT_MAX + PF_AIO_FIRST_READ_MAX + 2U * PF_AIO_LBS_MAX)
/* Most descriptors a process keeps besides the devices (stdio, logs, state files). */
#define PF_AIO_NOFILE_SLACK 64U

struct pf_aio_target {
	/* In: an fd from pf_aio_open() (or alike) and a probe initialised with pf_probe_init(). */
	int fd;
	uint64_t size_bytes;
	unsigned lbs; /* logical block size: O_DIRECT alignment, a power of two, 512..64 KiB */
	bool direct;  /* fd is O_DIRECT */
	struct pf_probe *probe; /* not owned */
	/*
	 * Out: status 0 means the probe ran to its end; read errors are in the
	 * probe's own statuses. Otherwise -ETIMEDOUT (a read never completed;
	 * the probe's current step says which), -EBUSY (every I/O slot held by
	 * such reads), or the backend's error when the scan had to stop.
	 */
	int status;
	struct pf_diag diag;
	uint64_t bytes_read;
	unsigned n_reads;
	/*
	 * With status < 0: the reader process (reader.h) went silent or died before this
	 * device was done, so its failure may be another device's doing (a disk removed under
	 * the reader blocks every read it submits): reading it again may well succeed.
	 */
	bool reader_lost;
};

struct pf_aio_opts {
	unsigned queue_depth;	   /* 0: pf_aio_depth(n) */
	uint64_t first_read_bytes; /* 0: PF_AIO_FIRST_READ_DEFAULT */
	unsigned timeout_ms;	   /* per read, from its submission; 0: PF_AIO_TIMEOUT_MS_DEFAULT */
	uint64_t mem_max_bytes;	   /* 0: PF_AIO_MEM_DEFAULT */
	const char *proc_dir;	   /* for fs/aio-max-nr; NULL: "/proc" */
	struct pf_io_backend *backend; /* NULL: a libaio backend made and freed by the scan */
	/*
	 * Close each target's fd (and set it to -1) as soon as its device is
	 * finished, so a device stuck in a read holds no other device open.
	 * A descriptor with an abandoned read in flight is closed too: the
	 * kernel keeps that one device open until the read ends.
	 */
	bool close_done;
};

struct pf_aio_stats {
	unsigned depth; /* window used */
	unsigned max_in_flight;
	uint64_t n_reads;
	uint64_t bytes_read;
	uint64_t n_submit_calls;
	uint64_t n_wait_calls;
	unsigned n_timeouts;
	uint64_t mem_peak_bytes;
};

/*
 * Open a block device or image file for the scan: read-only, O_DIRECT
 * (buffered where refused), O_NOATIME (dropped on EPERM), O_CLOEXEC. Returns 0
 * with the fd, whether it is O_DIRECT, the logical block size (BLKSSZGET; for
 * files the filesystem's direct I/O alignment, 4096 when unknown, 512 when
 * buffered) and the size; or a negative errno (-ENOTBLK: neither).
 */
int pf_aio_open(const char *path, int *ret_fd, bool *ret_direct, unsigned *ret_lbs,
		uint64_t *ret_size_bytes) _nonnull_(1, 2, 3, 4, 5) _must_check_;

/*
 * Raise RLIMIT_NOFILE's soft limit (up to the hard one) so that n_fds more
 * descriptors fit. Returns 0, -EMFILE when the hard limit is too low (the
 * soft one is raised to it anyway), or another negative errno.
 */
int pf_aio_raise_nofile(size_t n_fds) _must_check_;

/* The default window for n targets: min(n, PF_AIO_DEPTH_MAX), at least 1. */
unsigned pf_aio_depth(size_t n_targets) _pure_;

/*
 * pf_aio_scan()'s argument checks, for those who must refuse the same things
 * before doing any work of their own: 0, -EINVAL or -E2BIG.
 */
int pf_aio_check_args(const struct pf_aio_target *targets, size_t n, const struct pf_aio_opts *opts)
	_nonnull_(3) _must_check_;

/*
 * Run every target's probe to its end: first read [0, min(first_read_bytes,
 * size)), later probe requests served from what was read when they fall
 * inside it, only missing bytes read (each byte range at most once per scan);
 * a read for an mda header beyond what was read (mda2) is widened like the
 * first one. Up to depth reads in flight across all targets, one per target;
 * a new one is started as soon as any completes. Fills each target's results.
 * The targets' fds and probes are only borrowed. Returns 0, -EINVAL /
 * -E2BIG for bad arguments (targets untouched), -ENOMEM, the backend's error
 * when it cannot be made, or its error when waiting failed (the targets
 * then carry it). ret_stats may be NULL.
 */
int pf_aio_scan(struct pf_aio_target *targets, size_t n, const struct pf_aio_opts *opts,
		struct pf_aio_stats *ret_stats) _must_check_;

#endif /* PF_AIO_H */
