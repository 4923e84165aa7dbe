/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reader process's side of reader.h: the async scan, with a record
 * (record.h) of everything its probes were fed written to a descriptor.
 *
 * The scan feeds its probes itself, so what they were fed is recorded by a
 * second ("shadow") probe per device, fed from the same reads as the scan
 * sees them complete (a backend that tees every completion), by the scan's
 * rules: a range wholly read is fed, a read that failed fails the step, a
 * short read feeds what it brought to the next step. The scan's own steps
 * that fail without a completed read (timeout, no memory, refused submission)
 * are seen when the scan's probe has moved past the step the shadow waits at:
 * the shadow fails it with the status the scan's probe recorded.
 */
#ifndef PF_TEE_H
#define PF_TEE_H

#include <stddef.h>

#include "base/macro.h"
#include "io/aio.h"

/* A tick is written before a wait for reads when nothing was written for this long. */
#define PF_TEE_TICK_MS 250U

/*
 * Run pf_aio_scan() over targets (their probes are fed too) and write the
 * record stream to fd, ending with the scan's return code and statistics.
 * opts->backend, when set, is read through (not freed). Returns 0, -EINVAL
 * for targets sharing a descriptor (nothing written), -ENOMEM before the
 * scan, or the first write error (the scan stops early then).
 */
int pf_tee_record(struct pf_aio_target *targets, size_t n, const struct pf_aio_opts *opts, int fd)
	_must_check_;

#endif /* PF_TEE_H */
