/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Rigs for the tests of the async scan, the tee, the replay and the reader
 * process: n fake devices with their targets and probes, every situation
 * test_aio puts the async scan in (scenarios), recording a scan and replaying
 * the stream, and checking that two outcomes are the same.
 */
#ifndef PF_TEST_SCANRIG_H
#define PF_TEST_SCANRIG_H

#include <stddef.h>
#include <stdint.h>

#include "fake_backend.h"
#include "format/probe.h"
#include "io/aio.h"
#include "pvimage.h"

struct rig {
	struct pf_fake_backend *f;
	struct pf_aio_target *t;
	struct pf_probe *p;
	size_t n;
	struct pf_aio_opts opts;
	struct pf_aio_stats stats;
};

struct scenario {
	const char *name;
	const struct layout *l; /* NULL: blank devices of size */
	uint64_t size;
	size_t n;
	unsigned depth;
	void (*tweak)(struct rig *r);
};

struct images {
	uint8_t *img;
	uint64_t size;
};

extern const struct scenario scenarios[];
extern const size_t n_scenarios;

/* n devices holding img (may be NULL: zeros) of size bytes, direct with lbs 512, probes ready. */
void rig_init(struct rig *r, size_t n, unsigned depth, const uint8_t *img, uint64_t size);
void rig_free(struct rig *r);

/* The image a scenario reads (img owned by the caller), and a rig set up for it. */
struct images scenario_image(const struct scenario *sc);
void scenario_rig(const struct scenario *sc, const struct images *im, struct rig *r);

/* Record a scan of the rig into a memfd, in this process; returns the stream (malloc'ed). */
uint8_t *rig_record(struct rig *r, size_t *ret_len);
/* Fresh targets and probes like the rig's, for a replay; free with rig_free_copy(). */
void rig_fresh_copy(const struct rig *r, struct pf_aio_target **ret_t, struct pf_probe **ret_p);
void rig_free_copy(size_t n, struct pf_aio_target *t, struct pf_probe *p);
/*
 * Replay stream s into fresh probes, pushed in pieces of chunk bytes (0: all at once); it must
 * be whole. Returns the scan's return code from the stream.
 */
int rig_replay(const struct rig *r, const uint8_t *s, size_t len, size_t chunk,
	       struct pf_aio_target **ret_t, struct pf_probe **ret_p,
	       struct pf_aio_stats *ret_stats);

/* Assert two outcomes are the same (what differs names device i). */
void same_diag(const char *what, size_t i, const struct pf_diag *a, const struct pf_diag *b);
void same_probe(size_t i, const struct pf_probe *a, const struct pf_probe *b);
void same_target(size_t i, const struct pf_aio_target *a, const struct pf_aio_target *b);
/* The statistics wall time cannot change. */
void same_stats(const struct pf_aio_stats *a, const struct pf_aio_stats *b);

#endif /* PF_TEST_SCANRIG_H */
