/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The async scan (aio.h) run in a throwaway process, so that a read that never
 * completes cannot hold the caller.
 *
 * Why: the kernel cannot drop an aio read. At exit, exit_aio() waits for every
 * read still in flight, so a process that ever submitted a read to a device
 * that never answers cannot exit until that device answers; at boot that would
 * be a udev worker hung for good. Here the reads are made by a grandchild
 * ("the reader"): it runs pf_aio_scan() over its own copies of the probes,
 * records what it hands to each probe (every pf_probe_feed() with its bytes,
 * every pf_probe_fail(), then the device's outcome: tee.h, record.h) and
 * streams the records through a pipe. The caller replays them into its own
 * probes (replay.h), which are deterministic, so they end up exactly as the
 * reader's did, and goes on. The
 * reader then exits, and may hang in exit_aio() on a stuck read; nobody waits
 * for it: it was handed to init (double fork), so it never is a zombie of the
 * caller's, and before reading it closed every descriptor but the devices' and
 * the pipe (stdin, stdout and stderr go to /dev/null), so it holds no lock,
 * state file or output pipe of the caller's (udev reads a program's stdout up
 * to end of file). If the caller stops listening, its next write kills it.
 *
 * Before each wait for reads the reader writes what it has (a tick when it
 * wrote nothing for PF_TEE_TICK_MS), and a wait lasts at most the read
 * timeout. A reader silent for longer than the timeout plus
 * PF_READER_GRACE_MS is stuck elsewhere (buffered reads block inside
 * io_submit()); then, as when it dies, the devices it did not finish are
 * failed with a reason and the rest of the scan stands.
 *
 * Devices read by path (pf_reader_scan_paths) are opened in the reader too: an
 * open() that never returns (a dying disk) must not hold the caller either.
 * The reader opens them on a few threads, each open with the read timeout as
 * its deadline, and says how each went (an OPEN record) before the scan's
 * records. A hung open fails its device; its thread is left behind.
 *
 * The reader closes each device as soon as it is finished, so a device stuck
 * in a read (or in open()) does not keep the others open (EBUSY for dmsetup
 * remove, mdadm --stop, partition changes). A stuck reader holds only that
 * device, its aio context (one of fs/aio-max-nr, never destroyed while a read
 * is in it), the pipe's write end, and its memory. With a stuck_dir, a device
 * that a live reader is stuck on is left alone by later scans (io/stuck.h), so
 * at most one reader waits on each such device.
 *
 * A reader that cannot be started (pipe2() or fork() failed twice) fails the
 * scan; one that ends before saying anything fails every device with that
 * reason. The devices are never read in the caller instead.
 *
 * The caller must be single-threaded (the reader is a fork that allocates).
 */
#ifndef PF_READER_H
#define PF_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"
#include "format/probe.h"
#include "io/aio.h"

#define PF_READER_GRACE_MS 1000U

/* One device for pf_reader_scan_paths(). */
struct pf_reader_dev {
	/* In */
	const char *path;
	struct pf_probe *probe; /* storage: initialised there (size 0 when not opened) */
	enum pf_probe_md_end md_end; /* when the probe reads the end for md (probe.h) */
	/* Out */
	bool opened;
	/*
	 * 0: the probe ran to its end (read errors are in the probe's statuses).
	 * Else -errno and diag says why: the open failed (!opened), or the reads
	 * did not finish (-ETIMEDOUT: no answer in time, the device left out).
	 */
	int status;
	struct pf_diag diag;
	uint64_t bytes_read; /* by the async reads; 0 with no_aio */
	unsigned n_reads;
	bool reader_lost; /* failed because the reader process was lost (aio.h) */
};

struct pf_reader_opts {
	unsigned timeout_ms;  /* per read; 0: PF_AIO_TIMEOUT_MS_DEFAULT */
	const char *proc_dir; /* for fs/aio-max-nr; NULL: "/proc" */
	bool read_ignored;    /* the probes read ignored mdas' text too (--dump) */
	bool no_aio;	      /* pread here, no reader and no timeout: one device, no aio context */
	struct pf_probe_budget *budget; /* the probes' shared budget (format/probe.h), or NULL */
	/*
	 * Where readers note the devices they gave up on (io/stuck.h); NULL: not noted.
	 * A device a live reader is stuck on is not read again: -ETIMEDOUT, with why.
	 */
	const char *stuck_dir;
};

/*
 * pf_aio_scan() with the reads made in a reader process (see above); same
 * arguments, results and return codes. Targets whose reads the reader did not
 * finish get -ETIMEDOUT (it went silent) or -EPIPE (it died) and a diag
 * saying so. -EINVAL when two targets share a descriptor. When no reader can
 * be started, returns that error (-EAGAIN, -EMFILE, -ENOMEM...) and every
 * target carries it with a diag saying so; nothing is read here.
 */
int pf_reader_scan(struct pf_aio_target *targets, size_t n, const struct pf_aio_opts *opts,
		   struct pf_aio_stats *ret_stats) _must_check_;

/*
 * Read devices by path, as the scan and --dump do: in a reader process, open
 * each (pf_aio_open()) with the read timeout as deadline, read them all as
 * pf_reader_scan() does, close each once done; here, initialise each probe
 * for what the reader found and replay its records. A device whose open did
 * not return in time gets -ETIMEDOUT and "cannot open PATH: no answer within
 * N ms". With no_aio, each is opened buffered and read with pread here.
 * RLIMIT_NOFILE is raised for n descriptors first; *ret_nofile_limited (may
 * be NULL) says when it could not be, and the opens past the limit then fail
 * one by one. Returns 0; -EINVAL / -E2BIG for bad arguments, or -ENOMEM, with
 * devs untouched; or the scan's error, or the error starting the reader, the
 * devices then carrying their results (failed, with the reason).
 */
int pf_reader_scan_paths(struct pf_reader_dev *devs, size_t n, const struct pf_reader_opts *opts,
			 bool *ret_nofile_limited) _must_check_;

#endif /* PF_READER_H */
