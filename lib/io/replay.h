/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The caller's side of reader.h: a record stream (record.h) replayed into the
 * caller's own probes, which are deterministic, so they end up exactly as the
 * reader's did. A stream that cannot be trusted stops being taken; a device
 * whose records do not fit its probe is failed alone.
 */
#ifndef PF_REPLAY_H
#define PF_REPLAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"
#include "io/aio.h"

struct pf_replay;

/*
 * Replay a record stream into targets' probes (freshly initialised, as given
 * to the reader) and set their results. Resets each target's status, diag and
 * counts. Returns 0, -EINVAL (targets NULL or too many) or -ENOMEM.
 */
int pf_replay_new(struct pf_aio_target *targets, size_t n, struct pf_replay **ret)
	_nonnull_(3) _must_check_;
/*
 * The next len bytes of the stream, cut anywhere. Returns 0, -ENOMEM, or
 * -EBADMSG for a stream that cannot be trusted (a record out of range, or
 * data after the end record); nothing more is taken then. A device whose
 * records do not fit its probe's requests is failed alone (-EPROTO).
 */
int pf_replay_push(struct pf_replay *rp, const uint8_t *data, size_t len) _nonnull_(1) _must_check_;
/* The end record arrived: every target has its results. */
bool pf_replay_complete(const struct pf_replay *rp) _nonnull_(1) _pure_;
/* Bytes of the stream taken so far. */
uint64_t pf_replay_bytes(const struct pf_replay *rp) _nonnull_(1) _pure_;
/*
 * No more records: each target without results gets status err (negative)
 * and a diag made of why and the byte its probe was waiting for. Returns the
 * scan's return code from the end record, or 0 when there was none. ret_stats
 * (may be NULL) gets the reader's statistics, or zeros.
 */
int pf_replay_finish(struct pf_replay *rp, int err, const char *why, struct pf_aio_stats *ret_stats)
	_nonnull_(1, 3);
struct pf_replay *pf_replay_free(struct pf_replay *rp);

#endif /* PF_REPLAY_H */
