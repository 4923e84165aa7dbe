/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A record stream, cut anywhere, replayed into the caller's probes. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "base/span.h"
#include "format/probe.h"
#include "io/record.h"
#include "io/replay.h"

enum dev_state {
	DEV_OPEN,
	DEV_DIVERGED, /* failed here; the reader's records for it are ignored */
	DEV_ENDED,
};

struct pf_replay {
	struct pf_aio_target *t;
	size_t n;
	uint8_t *state; /* enum dev_state per target */
	uint8_t hdr[PF_REC_HDR];
	size_t hdr_got;
	struct pf_rec rec; /* the record being taken */
	bool in_payload;
	uint8_t *payload;
	size_t payload_got, payload_alloc;
	bool complete, bad;
	int scan_r;
	struct pf_aio_stats stats;
	uint64_t bytes;
};

int pf_replay_new(struct pf_aio_target *targets, size_t n, struct pf_replay **ret)
{
	struct pf_replay *rp;

	if ((n && !targets) || n > PF_AIO_TARGETS_MAX)
		return -EINVAL;
	rp = calloc(1, sizeof(*rp));
	if (!rp)
		return -ENOMEM;
	rp->state = calloc(n ? n : 1, sizeof(*rp->state));
	if (!rp->state) {
		free(rp);
		return -ENOMEM;
	}
	rp->t = targets;
	rp->n = n;
	for (size_t i = 0; i < n; i++) {
		targets[i].status = 0;
		pf_diag_clear(&targets[i].diag);
		targets[i].bytes_read = 0;
		targets[i].reader_lost = false;
		targets[i].n_reads = 0;
	}
	*ret = rp;
	return 0;
}

struct pf_replay *pf_replay_free(struct pf_replay *rp)
{
	if (rp) {
		free(rp->state);
		free(rp->payload);
		free(rp);
	}
	return NULL;
}

bool pf_replay_complete(const struct pf_replay *rp)
{
	return rp->complete;
}

uint64_t pf_replay_bytes(const struct pf_replay *rp)
{
	return rp->bytes;
}

static void diverge(struct pf_replay *rp, uint64_t off)
{
	struct pf_aio_target *t = &rp->t[rp->rec.dev];

	t->status = -EPROTO;
	pf_diag_at(&t->diag, off,
		   "the reader process's record of this device does not fit its probe at byte "
		   "%llu: device left out",
		   (unsigned long long)off);
	rp->state[rp->rec.dev] = DEV_DIVERGED;
}

/* The range the probe asks for, cut at the device's end as the scan cuts it. */
static bool probe_wants(const struct pf_aio_target *t, uint64_t *ret_off, uint64_t *ret_len)
{
	uint64_t off, len, size = t->size_bytes;

	if (pf_probe_next(t->probe, &off, &len) != 1)
		return false;
	if (off > size)
		off = size;
	*ret_off = off;
	*ret_len = len > size - off ? size - off : len;
	return true;
}

static void replay_feed(struct pf_replay *rp, const uint8_t *p)
{
	struct pf_aio_target *t = &rp->t[rp->rec.dev];
	uint64_t off, len;
	uint8_t empty = 0;

	if (!probe_wants(t, &off, &len) || off != rp->rec.off || rp->rec.len > len) {
		diverge(rp, rp->rec.off);
		return;
	}
	pf_probe_feed(t->probe, rp->rec.len ? p : &empty, rp->rec.len);
}

static void replay_end(struct pf_replay *rp, const uint8_t *p)
{
	struct pf_aio_target *t = &rp->t[rp->rec.dev];
	struct pf_rec_end e;

	if (pf_rec_get_end(&rp->rec, pf_span_make(p, rp->rec.len), &e) < 0) {
		rp->bad = true;
		return;
	}
	if (rp->state[rp->rec.dev] == DEV_OPEN) {
		t->status = e.status;
		t->bytes_read = e.bytes_read;
		t->n_reads = e.n_reads;
		t->diag = e.diag;
	}
	rp->state[rp->rec.dev] = DEV_ENDED;
}

static void replay_done(struct pf_replay *rp, const uint8_t *p)
{
	if (pf_rec_get_done(pf_span_make(p, rp->rec.len), &rp->stats) < 0) {
		rp->bad = true;
		return;
	}
	rp->scan_r = (int)rp->rec.val;
	rp->complete = true;
}

/* The record in rp->rec is whole, its payload at p. */
static void dispatch(struct pf_replay *rp, const uint8_t *p)
{
	const struct pf_rec *h = &rp->rec;
	uint64_t off, len;

	if (pf_rec_per_dev(h->type) && rp->state[h->dev] == DEV_ENDED) {
		rp->bad = true; /* nothing follows a device's end */
		return;
	}
	switch (h->type) {
	case PF_REC_FEED:
		if (rp->state[h->dev] == DEV_OPEN)
			replay_feed(rp, p);
		break;
	case PF_REC_FAIL:
		if (rp->state[h->dev] != DEV_OPEN)
			break;
		if (!probe_wants(&rp->t[h->dev], &off, &len))
			diverge(rp, 0);
		else
			pf_probe_fail(rp->t[h->dev].probe, (int)h->val);
		break;
	case PF_REC_END:
		replay_end(rp, p);
		break;
	case PF_REC_DONE:
		replay_done(rp, p);
		break;
	case PF_REC_OPEN: /* only before the scan's records, taken by reader.c */
		rp->bad = true;
		break;
	default: /* PF_REC_TICK */
		break;
	}
}

int pf_replay_push(struct pf_replay *rp, const uint8_t *data, size_t len)
{
	if (rp->bad)
		return -EBADMSG;
	rp->bytes += len;
	while (len && !rp->bad) {
		size_t take;

		if (rp->in_payload) {
			take = rp->rec.len - rp->payload_got < len ? rp->rec.len - rp->payload_got
								   : len;
			memcpy(rp->payload + rp->payload_got, data, take);
			rp->payload_got += take;
			data += take;
			len -= take;
			if (rp->payload_got == rp->rec.len) {
				rp->in_payload = false;
				dispatch(rp, rp->payload);
			}
			continue;
		}
		take = PF_REC_HDR - rp->hdr_got < len ? PF_REC_HDR - rp->hdr_got : len;
		memcpy(rp->hdr + rp->hdr_got, data, take);
		rp->hdr_got += take;
		data += take;
		len -= take;
		if (rp->hdr_got < PF_REC_HDR)
			break;
		rp->hdr_got = 0;
		/* Nothing may follow the end record. */
		if (rp->complete ||
		    pf_rec_get(pf_span_make(rp->hdr, PF_REC_HDR), rp->n, &rp->rec) < 0) {
			rp->bad = true;
			break;
		}
		if (rp->rec.len <= len) { /* the whole payload is here: no copy */
			dispatch(rp, data);
			data += rp->rec.len;
			len -= rp->rec.len;
			continue;
		}
		/* rec.len <= PF_REC_FEED_MAX: checked with the header */
		if (pf_grow(&rp->payload, &rp->payload_alloc, rp->rec.len, PF_REC_FEED_MAX) < 0)
			return -ENOMEM;
		rp->in_payload = true;
		rp->payload_got = 0;
	}
	return rp->bad ? -EBADMSG : 0;
}

int pf_replay_finish(struct pf_replay *rp, int err, const char *why, struct pf_aio_stats *ret_stats)
{
	for (size_t i = 0; i < rp->n; i++) {
		struct pf_aio_target *t = &rp->t[i];
		uint64_t off, len;

		if (rp->state[i] != DEV_OPEN)
			continue;
		t->status = err;
		t->reader_lost = true;
		if (probe_wants(t, &off, &len))
			pf_diag_at(&t->diag, off, "%s, waiting for byte %llu: device left out", why,
				   (unsigned long long)off);
		else
			pf_diag_msg(&t->diag, "%s: device left out", why);
		rp->state[i] = DEV_ENDED;
	}
	if (ret_stats) {
		if (rp->complete)
			*ret_stats = rp->stats;
		else
			memset(ret_stats, 0, sizeof(*ret_stats));
	}
	return rp->complete ? rp->scan_r : 0;
}
