/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The record stream the reader process sends back (reader.h): how each record
 * is laid out, and the checks a record must pass before it is believed.
 *
 * A record is a 32-byte header { magic, type, device, payload length, value,
 * offset }, little-endian, then the payload. FEED: the bytes handed to the
 * device's probe for the range starting at offset. FAIL: the probe's current
 * step failed with value. END: the device's outcome (value: status; payload:
 * counts and diag). TICK: nothing, the reader is alive. DONE: the scan's
 * return code (value) and statistics; nothing follows. OPEN: for a scan by path (reader.h),
 * how opening the device went (value: 0 or -errno; payload: size, logical block size,
 * flags); every device has one before the scan's records (only ticks come between them),
 * and the scan's records number the devices opened, in order, from 0.
 */
#ifndef PF_RECORD_H
#define PF_RECORD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/macro.h"
#include "base/span.h"
#include "io/aio.h"

#define PF_REC_MAGIC 0x44524650U /* "PFRD" */
#define PF_REC_HDR 32U
/* An END payload: this much, then the diag's message without its NUL. */
#define PF_REC_END_FIXED 40U
#define PF_REC_END_MAX (PF_REC_END_FIXED + PF_DIAG_MSG_MAX - 1U)
#define PF_REC_DONE_LEN 56U
#define PF_REC_OPEN_LEN 16U
/* OPEN flags */
#define PF_REC_OPEN_DIRECT 1U    /* the descriptor is O_DIRECT */
#define PF_REC_OPEN_HUNG 2U      /* open() did not return within the timeout (value -ETIMEDOUT) */
#define PF_REC_OPEN_NOT_TRIED 4U /* too many opens hung to try this one (value -EBUSY) */
/* Largest FEED payload: what the async scan may hand a probe at once. */
#define PF_REC_FEED_MAX PF_AIO_READ_MAX

enum pf_rec_type {
	PF_REC_FEED = 1,
	PF_REC_FAIL,
	PF_REC_END,
	PF_REC_TICK,
	PF_REC_DONE,
	PF_REC_OPEN,
};

/* A record's header. */
struct pf_rec {
	uint32_t type; /* enum pf_rec_type */
	uint32_t dev;  /* index of the target; FEED, FAIL and END only */
	uint32_t len;  /* payload bytes */
	int64_t val;
	uint64_t off;
};

/* A device's outcome, as an END record carries it. */
struct pf_rec_end {
	int status;
	uint64_t bytes_read;
	unsigned n_reads;
	struct pf_diag diag;
};

/* How opening a device went, as an OPEN record carries it. */
struct pf_rec_open {
	int err; /* 0 or -errno */
	bool hung;
	bool not_tried;
	bool direct;
	unsigned lbs;
	uint64_t size_bytes;
};

/* FEED, FAIL, END and OPEN concern one device; the others the stream. */
bool pf_rec_per_dev(uint32_t type) _pure_;

/* Lay out h in b. */
void pf_rec_put(uint8_t b[PF_REC_HDR], const struct pf_rec *h) _nonnull_(1, 2);

/*
 * Read the header at the start of s, for a stream about n_devs devices. Returns 0, or
 * -EBADMSG when it is short, has no magic, or its type, device, length or value cannot be
 * (a device out of range, a FEED longer than PF_REC_FEED_MAX, a status that is no errno).
 */
int pf_rec_get(struct pf_span s, size_t n_devs, struct pf_rec *ret) _nonnull_(3) _must_check_;

/*
 * An END record for device dev: its header into hdr, its payload into payload. diag may be
 * NULL (nothing to say); a message is cut to PF_DIAG_MSG_MAX - 1 bytes. Returns the payload
 * length.
 */
size_t pf_rec_put_end(uint8_t hdr[PF_REC_HDR], uint8_t payload[PF_REC_END_MAX], uint32_t dev,
		      int status, uint64_t bytes_read, unsigned n_reads, const struct pf_diag *diag)
	_nonnull_(1, 2);

/*
 * The outcome in END record h's payload p. Returns 0, or -EBADMSG when p is not the length
 * the header says or the message length inside disagrees with it.
 */
int pf_rec_get_end(const struct pf_rec *h, struct pf_span p, struct pf_rec_end *ret)
	_nonnull_(1, 3) _must_check_;

/* A DONE record: the scan's return code r and statistics s. */
void pf_rec_put_done(uint8_t hdr[PF_REC_HDR], uint8_t payload[PF_REC_DONE_LEN], int r,
		     const struct pf_aio_stats *s) _nonnull_(1, 2, 4);

/* The statistics in a DONE payload; -EBADMSG when it is not PF_REC_DONE_LEN bytes. */
int pf_rec_get_done(struct pf_span p, struct pf_aio_stats *ret) _nonnull_(2) _must_check_;

/* An OPEN record for device dev; the payload is PF_REC_OPEN_LEN bytes. */
void pf_rec_put_open(uint8_t hdr[PF_REC_HDR], uint8_t payload[PF_REC_OPEN_LEN], uint32_t dev,
		     const struct pf_rec_open *o) _nonnull_(1, 2, 4);

/*
 * The result in OPEN record h's payload p. Returns 0, or -EBADMSG when p is not
 * PF_REC_OPEN_LEN bytes, has unknown flags, says hung with another error than -ETIMEDOUT or
 * not tried with another than -EBUSY, or says opened with a size over INT64_MAX or a block
 * size the scan cannot use.
 */
int pf_rec_get_open(const struct pf_rec *h, struct pf_span p, struct pf_rec_open *ret)
	_nonnull_(1, 3) _must_check_;

#endif /* PF_RECORD_H */
