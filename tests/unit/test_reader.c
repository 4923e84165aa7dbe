/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reader process: its record stream replayed into fresh probes must give
 * exactly what the in-process async scan gives (every fake-engine scenario of
 * test_aio, recorded into a memfd, no fork), whatever the cuts in the stream;
 * malformed and truncated streams fail devices, never the caller; then the
 * forked reader with the fake engine (a read that never completes costs its
 * timeout, no child left to reap, nothing of the caller's held) and with
 * libaio on image files; devices read by path, as the scan and --dump read
 * them, end up as a plain pread of each gives.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/aio.h"
#include "build.h"
#include "fake_engine.h"
#include "io/ioengine.h"
#include "format/probe.h"
#include "pvimage.h"
#include "io/pvread.h"
#include "io/reader.h"
#include "unit.h"

#define FIRST (128U * KIB)
#define STREAM_MAX (64U * MIB)

/* ---- rigs: n fake devices, targets and probes ---- */

struct rig {
	struct pf_fake_engine *f;
	struct pf_aio_target *t;
	struct pf_probe *p;
	size_t n;
	struct pf_aio_opts opts;
	struct pf_aio_stats stats;
};

static void rig_init(struct rig *r, size_t n, unsigned depth, const uint8_t *img, uint64_t size)
{
	memset(r, 0, sizeof(*r));
	ck_assert_int_eq(pf_fake_engine_new(n, depth, &r->f), 0);
	r->t = calloc(n, sizeof(*r->t));
	r->p = calloc(n, sizeof(*r->p));
	ck_assert_ptr_nonnull(r->t);
	ck_assert_ptr_nonnull(r->p);
	r->n = n;
	for (size_t i = 0; i < n; i++) {
		r->f->devs[i].data = img;
		r->f->devs[i].size = size;
		r->f->devs[i].lbs = 512;
		r->f->devs[i].block = true;
		r->t[i] = (struct pf_aio_target){ .fd = PF_FAKE_FD_BASE + (int)i,
						  .size_bytes = size,
						  .lbs = 512,
						  .direct = true,
						  .probe = &r->p[i] };
		pf_probe_init(&r->p[i], size);
	}
	r->opts.engine = &r->f->e;
	r->opts.queue_depth = depth;
}

static void rig_free(struct rig *r)
{
	for (size_t i = 0; i < r->n; i++)
		pf_probe_release(&r->p[i]);
	pf_fake_engine_free(r->f);
	free(r->t);
	free(r->p);
}

/* ---- comparing outcomes ---- */

static void same_diag(const char *what, size_t i, const struct pf_diag *a, const struct pf_diag *b)
{
	ck_assert_msg(strcmp(a->msg, b->msg) == 0, "dev %zu %s: \"%s\" vs \"%s\"", i, what, a->msg,
		      b->msg);
	ck_assert_msg(a->has_offset == b->has_offset && a->offset == b->offset &&
			      a->line == b->line && a->col == b->col,
		      "dev %zu %s: diag position differs", i, what);
}

static void same_probe(size_t i, const struct pf_probe *a, const struct pf_probe *b)
{
	const struct pf_vg *va = pf_probe_vg(a), *vb = pf_probe_vg(b);

	ck_assert_msg(a->step == b->step && a->cur == b->cur, "dev %zu: step %d/%u vs %d/%u", i,
		      a->step, a->cur, b->step, b->cur);
	ck_assert_msg(a->label_status == b->label_status, "dev %zu: label %d vs %d", i,
		      a->label_status, b->label_status);
	same_diag("label", i, &a->label_diag, &b->label_diag);
	ck_assert_uint_eq(a->head_len, b->head_len);
	if (a->head_len)
		ck_assert_mem_eq(a->head, b->head, a->head_len);
	ck_assert_uint_eq(a->n_mdas, b->n_mdas);
	for (unsigned m = 0; m < PF_PROBE_MDAS; m++) {
		const struct pf_mda_probe *x = &a->mdas[m], *y = &b->mdas[m];

		ck_assert_msg(x->header_status == y->header_status &&
				      x->text_status == y->text_status &&
				      x->vg_status == y->vg_status,
			      "dev %zu mda%u: %d/%d/%d vs %d/%d/%d", i, m + 1, x->header_status,
			      x->text_status, x->vg_status, y->header_status, y->text_status,
			      y->vg_status);
		same_diag("header", i, &x->header_diag, &y->header_diag);
		same_diag("text", i, &x->text_diag, &y->text_diag);
		same_diag("vg", i, &x->vg_diag, &y->vg_diag);
	}
	ck_assert_int_eq(a->vg_index, b->vg_index);
	ck_assert_int_eq(a->size_status, b->size_status);
	same_diag("size", i, &a->size_diag, &b->size_diag);
	ck_assert_int_eq(va != NULL, vb != NULL);
	if (va) {
		ck_assert_str_eq(va->name, vb->name);
		ck_assert_uint_eq(va->seqno, vb->seqno);
	}
}

static void same_target(size_t i, const struct pf_aio_target *a, const struct pf_aio_target *b)
{
	ck_assert_msg(a->status == b->status, "dev %zu: status %d vs %d", i, a->status, b->status);
	same_diag("target", i, &a->diag, &b->diag);
	ck_assert_msg(a->bytes_read == b->bytes_read && a->n_reads == b->n_reads,
		      "dev %zu: %llu bytes in %u reads vs %llu in %u", i,
		      (unsigned long long)a->bytes_read, a->n_reads,
		      (unsigned long long)b->bytes_read, b->n_reads);
	same_probe(i, a->probe, b->probe);
}

/* The diag of a timeout names the timeout; wall time makes nothing else differ. */
static void same_stats(const struct pf_aio_stats *a, const struct pf_aio_stats *b)
{
	ck_assert_uint_eq(a->depth, b->depth);
	ck_assert_uint_eq(a->n_reads, b->n_reads);
	ck_assert_uint_eq(a->bytes_read, b->bytes_read);
	ck_assert_uint_eq(a->n_timeouts, b->n_timeouts);
}

/* ---- scenarios: every situation test_aio puts the async scan in ---- */

struct scenario {
	const char *name;
	const struct layout *l; /* NULL: blank devices of size */
	uint64_t size;
	size_t n;
	unsigned depth;
	void (*tweak)(struct rig *r);
};

static void tw_delays(struct rig *r)
{
	for (size_t i = 0; i < r->n; i++)
		r->f->devs[i].delay_ms = (unsigned)((i * 7) % 3);
}

static void tw_eio_label(struct rig *r)
{
	r->f->devs[1].eio_from = 512;
	r->f->devs[1].eio_to = 1024;
}

static void tw_eio_mda2(struct rig *r)
{
	r->f->devs[1].eio_from = 2 * MIB - 64 * KIB;
	r->f->devs[1].eio_to = 2 * MIB - 64 * KIB + 512;
}

static void tw_eio_text(struct rig *r)
{
	r->f->devs[0].eio_from = 4096 + 200 * KIB;
	r->f->devs[0].eio_to = 4096 + 201 * KIB;
}

static void tw_eio_wrap(struct rig *r)
{
	r->f->devs[1].eio_from = 4096 + 256 * KIB - 512;
	r->f->devs[1].eio_to = 4096 + 256 * KIB;
}

static void tw_short(struct rig *r)
{
	r->f->devs[0].short_at = 64 * KIB;
	r->f->devs[1].short_at = 1000;
	r->f->devs[2].short_at = 4096 + 200 * KIB + 256;
}

static void tw_hang_label(struct rig *r)
{
	r->f->devs[3].hang_from = 0;
	r->opts.timeout_ms = 60;
}

static void tw_hang_text(struct rig *r)
{
	r->f->devs[0].hang_from = FIRST;
	r->opts.timeout_ms = 40;
}

static void tw_hang_mda2(struct rig *r)
{
	r->f->devs[1].hang_from = 2 * MIB - 64 * KIB;
	r->opts.timeout_ms = 40;
}

static void tw_stuck_slots(struct rig *r)
{
	r->f->devs[0].hang_from = 0;
	r->f->devs[1].hang_from = 0;
	r->opts.timeout_ms = 20;
}

static void tw_mem_cap(struct rig *r)
{
	r->opts.mem_max_bytes = 3 * FIRST;
}

static void tw_mem_tiny(struct rig *r)
{
	r->opts.mem_max_bytes = 4096;
}

static void tw_churn(struct rig *r)
{
	r->f->eagain_every = 3;
	r->f->eintr_every = 4;
	r->f->submit_max = 5;
	r->f->max_per_wait = 2;
	tw_delays(r);
}

static void tw_refused(struct rig *r)
{
	r->f->devs[2].submit_err = -EBADF;
}

static void tw_tiny(struct rig *r)
{
	r->t[1].size_bytes = r->f->devs[1].size = 512;
	r->t[2].size_bytes = r->f->devs[2].size = 1000;
	r->t[2].lbs = r->f->devs[2].lbs = 4096;
	r->f->devs[2].block = false;
	for (size_t i = 0; i < r->n; i++)
		pf_probe_init(&r->p[i], r->t[i].size_bytes);
}

static void tw_tail(struct rig *r)
{
	for (size_t i = 0; i < r->n; i++)
		r->t[i].lbs = r->f->devs[i].lbs = 4096;
	r->f->devs[0].block = false;
}

static void tw_first_small(struct rig *r)
{
	r->opts.first_read_bytes = 4096;
}

static void tw_read_ignored(struct rig *r)
{
	for (size_t i = 0; i < r->n; i++)
		r->p[i].read_ignored = true;
}

static uint8_t random_img[2 * MIB];

static void tw_random(struct rig *r)
{
	unsigned x = 12345;

	for (size_t i = 0; i < sizeof(random_img); i++) {
		x = x * 1103515245U + 12345U;
		random_img[i] = (uint8_t)(x >> 16);
	}
	memcpy(random_img + 512, "LABELONE", 8); /* a label magic with a bad CRC */
	r->f->devs[1].data = random_img;
}

static const struct scenario scenarios[] = {
	{ "blank", NULL, 4 * MIB, 30, 8, tw_delays },
	{ "basic", &L_BASIC, 0, 40, 16, tw_delays },
	{ "beyond", &L_BEYOND, 0, 5, 4, NULL },
	{ "straddle", &L_STRADDLE, 0, 5, 4, NULL },
	{ "wrap", &L_WRAP, 0, 5, 4, NULL },
	{ "two-mdas", &L_TWO, 0, 5, 4, NULL },
	{ "tail", &L_TAIL, 0, 2, 2, tw_tail },
	{ "eio label", &L_BASIC, 0, 3, 3, tw_eio_label },
	{ "eio mda2", &L_TWO, 0, 3, 3, tw_eio_mda2 },
	{ "eio text", &L_BEYOND, 0, 3, 3, tw_eio_text },
	{ "eio wrap", &L_WRAP, 0, 3, 3, tw_eio_wrap },
	{ "short reads", &L_BEYOND, 0, 4, 4, tw_short },
	{ "hang label", &L_BASIC, 0, 9, 8, tw_hang_label },
	{ "hang text", &L_BEYOND, 0, 3, 3, tw_hang_text },
	{ "hang mda2", &L_TWO, 0, 3, 3, tw_hang_mda2 },
	{ "stuck slots", &L_BASIC, 0, 5, 2, tw_stuck_slots },
	{ "memory cap", &L_BEYOND, 0, 20, 16, tw_mem_cap },
	{ "memory tiny", &L_BEYOND, 0, 6, 16, tw_mem_tiny },
	{ "churn", &L_WRAP, 0, 30, 16, tw_churn },
	{ "refused", &L_TWO, 0, 4, 4, tw_refused },
	{ "tiny", NULL, 0, 3, 3, tw_tiny },
	{ "first read small", &L_BASIC, 0, 2, 2, tw_first_small },
	{ "read ignored", &L_TWO, 0, 2, 2, tw_read_ignored },
	{ "random", &L_BASIC, 0, 3, 3, tw_random },
};

struct images {
	uint8_t *img;
	uint64_t size;
};

static struct images scenario_image(const struct scenario *sc)
{
	struct images im = { NULL, sc->size };

	if (sc->l) {
		im.img = make_image(sc->l);
		im.size = sc->l->size;
	}
	return im;
}

static void scenario_rig(const struct scenario *sc, const struct images *im, struct rig *r)
{
	rig_init(r, sc->n, sc->depth, im->img, im->size);
	if (sc->tweak)
		sc->tweak(r);
}

/* Record into a memfd, in this process; returns the stream. */
static uint8_t *record(struct rig *r, size_t *ret_len)
{
	int fd = memfd_create("reader-test", MFD_CLOEXEC);
	struct stat st;
	uint8_t *buf;
	ssize_t got;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pf_reader_record(r->t, r->n, &r->opts, fd), 0);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_le(st.st_size, STREAM_MAX);
	buf = malloc((size_t)st.st_size + 1);
	ck_assert_ptr_nonnull(buf);
	got = pread(fd, buf, (size_t)st.st_size, 0);
	ck_assert_int_eq(got, st.st_size);
	(void)close(fd);
	*ret_len = (size_t)st.st_size;
	return buf;
}

/* Fresh probes like the rig's, for the replay. */
static void fresh_copy(const struct rig *r, struct pf_aio_target **ret_t, struct pf_probe **ret_p)
{
	struct pf_aio_target *t = calloc(r->n, sizeof(*t));
	struct pf_probe *p = calloc(r->n, sizeof(*p));

	ck_assert_ptr_nonnull(t);
	ck_assert_ptr_nonnull(p);
	for (size_t i = 0; i < r->n; i++) {
		t[i] = r->t[i];
		t[i].status = 99;
		t[i].probe = &p[i];
		pf_probe_init(&p[i], r->t[i].size_bytes);
		p[i].read_ignored = r->p[i].read_ignored;
	}
	*ret_t = t;
	*ret_p = p;
}

static void free_copy(size_t n, struct pf_aio_target *t, struct pf_probe *p)
{
	for (size_t i = 0; i < n; i++)
		pf_probe_release(&p[i]);
	free(t);
	free(p);
}

/* Replay stream into fresh probes, pushed in pieces of chunk bytes (0: all at once). */
static int replay(const struct rig *r, const uint8_t *s, size_t len, size_t chunk,
		  struct pf_aio_target **ret_t, struct pf_probe **ret_p,
		  struct pf_aio_stats *ret_stats)
{
	struct pf_reader_replay *rp = NULL;
	int res;

	fresh_copy(r, ret_t, ret_p);
	ck_assert_int_eq(pf_reader_replay_new(*ret_t, r->n, &rp), 0);
	if (!chunk)
		chunk = len ? len : 1;
	for (size_t at = 0; at < len; at += chunk)
		ck_assert_int_eq(pf_reader_replay_push(rp, s + at, len - at < chunk ? len - at : chunk),
				 0);
	ck_assert_uint_eq(pf_reader_replay_bytes(rp), len);
	ck_assert(pf_reader_replay_complete(rp));
	res = pf_reader_replay_finish(rp, -EPIPE, "cut", ret_stats);
	pf_reader_replay_free(rp);
	return res;
}

START_TEST(test_record_replay_matches_scan)
{
	const struct scenario *sc = &scenarios[_i];
	struct images im = scenario_image(sc);
	static const size_t chunks[] = { 0, 1, 31, 4096 };
	struct rig ref, rec;
	uint8_t *s;
	size_t len;
	int ref_r;

	/* The async scan in this process: what the replay must reproduce. */
	scenario_rig(sc, &im, &ref);
	ref_r = pf_aio_scan(ref.t, ref.n, &ref.opts, &ref.stats);

	scenario_rig(sc, &im, &rec);
	s = record(&rec, &len);
	/* The recorder's own probes were fed by the scan: the same as in process. */
	for (size_t i = 0; i < ref.n; i++)
		same_target(i, &ref.t[i], &rec.t[i]);

	for (size_t c = 0; c < ARRAY_SIZE(chunks); c++) {
		struct pf_aio_target *t;
		struct pf_probe *p;
		struct pf_aio_stats stats;

		if (chunks[c] == 1 && len > 64 * KIB)
			continue; /* byte by byte: small streams are enough */
		ck_assert_int_eq(replay(&rec, s, len, chunks[c], &t, &p, &stats), ref_r);
		for (size_t i = 0; i < ref.n; i++)
			same_target(i, &ref.t[i], &t[i]);
		same_stats(&ref.stats, &stats);
		free_copy(rec.n, t, p);
	}
	free(s);
	rig_free(&ref);
	rig_free(&rec);
	free(im.img);
}
END_TEST

/* ---- malformed and truncated streams ---- */

struct hdr {
	uint32_t magic, type, dev, len;
	int64_t val;
	uint64_t off;
};

static size_t put_rec(uint8_t *b, const struct hdr *h, const void *payload)
{
	memcpy(b, &h->magic, 4);
	memcpy(b + 4, &h->type, 4);
	memcpy(b + 8, &h->dev, 4);
	memcpy(b + 12, &h->len, 4);
	memcpy(b + 16, &h->val, 8);
	memcpy(b + 24, &h->off, 8);
	if (payload && h->len)
		memcpy(b + 32, payload, h->len);
	return 32 + h->len;
}

#define MAGIC 0x44524650U
enum { T_FEED = 1, T_FAIL, T_END, T_TICK, T_DONE };

static const struct {
	const char *name;
	struct hdr h;
	size_t payload_len; /* bytes of payload actually given, when different */
} bad_records[] = {
	{ "magic", { 0x12345678U, T_TICK, 0, 0, 0, 0 }, 0 },
	{ "type 0", { MAGIC, 0, 0, 0, 0, 0 }, 0 },
	{ "type 9", { MAGIC, 9, 0, 0, 0, 0 }, 0 },
	{ "feed dev", { MAGIC, T_FEED, 2, 0, 0, 0 }, 0 },
	{ "fail dev", { MAGIC, T_FAIL, 7, 0, -EIO, 0 }, 0 },
	{ "end dev", { MAGIC, T_END, 2, 40, 0, 0 }, 40 },
	{ "feed too long", { MAGIC, T_FEED, 0, (uint32_t)PF_READER_FEED_MAX + 1, 0, 0 }, 0 },
	{ "fail zero", { MAGIC, T_FAIL, 0, 0, 0, 0 }, 0 },
	{ "fail no errno", { MAGIC, T_FAIL, 0, 0, -5000, 0 }, 0 },
	{ "fail payload", { MAGIC, T_FAIL, 0, 4, -EIO, 0 }, 4 },
	{ "end short", { MAGIC, T_END, 0, 39, 0, 0 }, 39 },
	{ "end long", { MAGIC, T_END, 0, 40 + PF_DIAG_MSG_MAX, 0, 0 }, 40 + PF_DIAG_MSG_MAX },
	{ "end positive", { MAGIC, T_END, 0, 40, 1, 0 }, 40 },
	{ "end msg_len", { MAGIC, T_END, 0, 45, 0, 0 }, 45 },
	{ "tick payload", { MAGIC, T_TICK, 0, 1, 0, 0 }, 1 },
	{ "done short", { MAGIC, T_DONE, 0, 55, 0, 0 }, 55 },
	{ "done positive", { MAGIC, T_DONE, 0, 56, 3, 0 }, 56 },
};

/* Two blank 1 MiB devices. */
static void blank_rig(struct rig *r)
{
	rig_init(r, 2, 2, NULL, MIB);
}

START_TEST(test_bad_record)
{
	uint8_t payload[64 + PF_DIAG_MSG_MAX] = { 0 }, buf[128 + PF_DIAG_MSG_MAX];
	struct pf_reader_replay *rp = NULL;
	struct hdr h = bad_records[_i].h;
	struct rig r;
	size_t len;

	blank_rig(&r);
	ck_assert_int_eq(pf_reader_replay_new(r.t, r.n, &rp), 0);
	h.len = bad_records[_i].h.len;
	len = 32;
	memcpy(buf, &h.magic, 4);
	memcpy(buf + 4, &h.type, 4);
	memcpy(buf + 8, &h.dev, 4);
	memcpy(buf + 12, &h.len, 4);
	memcpy(buf + 16, &h.val, 8);
	memcpy(buf + 24, &h.off, 8);
	memcpy(buf + 32, payload, bad_records[_i].payload_len);
	len += bad_records[_i].payload_len;
	ck_assert_msg(pf_reader_replay_push(rp, buf, len) == -EBADMSG, "%s accepted",
		      bad_records[_i].name);
	/* Nothing more is taken; every device fails with the caller's reason. */
	ck_assert_int_eq(pf_reader_replay_push(rp, buf, 1), -EBADMSG);
	ck_assert(!pf_reader_replay_complete(rp));
	ck_assert_int_eq(pf_reader_replay_finish(rp, -EPROTO, "bad", NULL), 0);
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_int_eq(r.t[i].status, -EPROTO);
		ck_assert_str_eq(r.t[i].diag.msg, "bad, waiting for byte 0: device left out");
	}
	pf_reader_replay_free(rp);
	rig_free(&r);
}
END_TEST

START_TEST(test_stream_order)
{
	uint8_t end[40] = { 0 }, done[56] = { 0 }, buf[1024], zeros[8192] = { 0 };
	struct pf_reader_replay *rp = NULL;
	struct rig r;
	size_t len = 0;

	/* Device 0 ended, then a feed for it: the stream is not to be trusted. */
	blank_rig(&r);
	ck_assert_int_eq(pf_reader_replay_new(r.t, r.n, &rp), 0);
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_END, 0, 40, -EIO, 0 }, end);
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_FAIL, 0, 0, -EIO, 0 }, NULL);
	ck_assert_int_eq(pf_reader_replay_push(rp, buf, len), -EBADMSG);
	ck_assert_int_eq(r.t[0].status, -EIO);
	pf_reader_replay_free(rp);
	rig_free(&r);

	/* Anything after the end record. */
	blank_rig(&r);
	ck_assert_int_eq(pf_reader_replay_new(r.t, r.n, &rp), 0);
	len = put_rec(buf, &(struct hdr){ MAGIC, T_DONE, 0, 56, -ENOSYS, 0 }, done);
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_TICK, 0, 0, 0, 0 }, NULL);
	ck_assert_int_eq(pf_reader_replay_push(rp, buf, len), -EBADMSG);
	ck_assert(pf_reader_replay_complete(rp));
	ck_assert_int_eq(pf_reader_replay_finish(rp, -EPIPE, "gone", NULL), -ENOSYS);
	pf_reader_replay_free(rp);
	rig_free(&r);

	/*
	 * A feed at the wrong offset, then one longer than asked: those devices
	 * alone fail, their later records are ignored; the stream goes on.
	 */
	rig_init(&r, 3, 3, NULL, MIB);
	ck_assert_int_eq(pf_reader_replay_new(r.t, r.n, &rp), 0);
	ck_assert_int_eq(pf_reader_replay_push(rp, buf,
					       put_rec(buf, &(struct hdr){ MAGIC, T_FEED, 0, 16, 0,
									  512 },
						       zeros)),
			 0);
	{
		uint8_t *big = calloc(1, 32 + 4609);

		ck_assert_ptr_nonnull(big);
		len = put_rec(big, &(struct hdr){ MAGIC, T_FEED, 1, 4609, 0, 0 }, zeros);
		ck_assert_int_eq(pf_reader_replay_push(rp, big, len), 0);
		free(big);
	}
	len = put_rec(buf, &(struct hdr){ MAGIC, T_FAIL, 0, 0, -EIO, 0 }, NULL);
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_END, 0, 40, 0, 0 }, end);
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_FAIL, 2, 0, -EIO, 0 }, NULL);
	/* A fail for a probe that is done already does not fit either. */
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_FAIL, 2, 0, -EIO, 0 }, NULL);
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_DONE, 0, 56, 0, 0 }, done);
	ck_assert_int_eq(pf_reader_replay_push(rp, buf, len), 0);
	ck_assert_int_eq(pf_reader_replay_finish(rp, -EPIPE, "gone", NULL), 0);
	ck_assert_int_eq(r.t[0].status, -EPROTO);
	ck_assert_ptr_nonnull(strstr(r.t[0].diag.msg, "does not fit its probe at byte 512"));
	ck_assert_int_eq(r.t[1].status, -EPROTO);
	ck_assert_int_eq(r.t[2].status, -EPROTO);
	ck_assert_int_eq(r.p[2].label_status, -EIO);
	pf_reader_replay_free(rp);
	rig_free(&r);
}
END_TEST

START_TEST(test_truncated_stream)
{
	uint8_t *img = make_image(&L_BEYOND);
	struct rig rec;
	uint8_t *s;
	size_t len, step;

	/* Cut the stream anywhere: whoever has no end record is failed, the rest stands. */
	rig_init(&rec, 4, 4, img, L_BEYOND.size);
	rec.f->devs[2].eio_from = 4096 + 200 * KIB;
	rec.f->devs[2].eio_to = 4096 + 201 * KIB;
	s = record(&rec, &len);
	step = len / 97 ? len / 97 : 1;
	for (size_t cut = 0; cut < len; cut += step) {
		struct pf_reader_replay *rp = NULL;
		struct pf_aio_target *t;
		struct pf_probe *p;
		struct pf_aio_stats stats;

		fresh_copy(&rec, &t, &p);
		ck_assert_int_eq(pf_reader_replay_new(t, rec.n, &rp), 0);
		ck_assert_int_eq(pf_reader_replay_push(rp, s, cut), 0);
		ck_assert(!pf_reader_replay_complete(rp));
		ck_assert_int_eq(pf_reader_replay_finish(rp, -EPIPE, "it died", &stats), 0);
		ck_assert_uint_eq(stats.n_reads, 0);
		for (size_t i = 0; i < rec.n; i++) {
			if (t[i].status == -EPIPE) {
				ck_assert_ptr_nonnull(strstr(t[i].diag.msg, "it died"));
				ck_assert_ptr_nonnull(strstr(t[i].diag.msg, "device left out"));
				continue;
			}
			ck_assert_int_eq(t[i].status, 0);
			same_target(i, &rec.t[i], &t[i]);
		}
		pf_reader_replay_free(rp);
		free_copy(rec.n, t, p);
	}
	free(s);
	rig_free(&rec);
	free(img);
}
END_TEST

START_TEST(test_record_arguments)
{
	struct pf_aio_target t[2] = { { .fd = 1000, .size_bytes = 4096, .lbs = 512 },
				      { .fd = 1000, .size_bytes = 4096, .lbs = 512 } };
	struct pf_probe p[2];
	int fd = memfd_create("reader-test", MFD_CLOEXEC);
	struct stat st;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pf_reader_record(t, 1, NULL, fd), -EINVAL); /* no probe */
	ck_assert_int_eq(pf_reader_scan(t, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(pf_reader_scan(NULL, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(pf_reader_scan(t, PF_AIO_TARGETS_MAX + 1, NULL, NULL), -E2BIG);
	pf_probe_init(&p[0], 4096);
	pf_probe_init(&p[1], 4096);
	t[0].probe = &p[0];
	t[1].probe = &p[1];
	/* Completions of two targets on one descriptor could not be told apart. */
	ck_assert_int_eq(pf_reader_record(t, 2, NULL, fd), -EINVAL);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	ck_assert_int_eq(pf_reader_scan(t, 0, NULL, NULL), 0);
	(void)close(fd);
	pf_probe_release(&p[0]);
	pf_probe_release(&p[1]);
}
END_TEST

/* ---- the forked reader ---- */

static uint64_t ms_since(const struct timespec *t0)
{
	struct timespec t1;

	(void)clock_gettime(CLOCK_MONOTONIC, &t1);
	return (uint64_t)(t1.tv_sec - t0->tv_sec) * 1000U +
	       (uint64_t)((t1.tv_nsec - t0->tv_nsec) / 1000000L);
}

static void assert_no_child(void)
{
	int st;

	/* The reader is nobody's child here: nothing to reap, now or later. */
	ck_assert_int_eq(waitpid(-1, &st, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
}

START_TEST(test_fork_matches_scan)
{
	const struct scenario *sc = &scenarios[_i];
	struct images im = scenario_image(sc);
	struct rig ref, fk;
	int ref_r;

	scenario_rig(sc, &im, &ref);
	ref_r = pf_aio_scan(ref.t, ref.n, &ref.opts, &ref.stats);
	scenario_rig(sc, &im, &fk);
	for (size_t i = 0; i < fk.n; i++)
		fk.t[i].status = 99;
	ck_assert_int_eq(pf_reader_scan(fk.t, fk.n, &fk.opts, &fk.stats), ref_r);
	for (size_t i = 0; i < ref.n; i++)
		same_target(i, &ref.t[i], &fk.t[i]);
	same_stats(&ref.stats, &fk.stats);
	/* Every read was made in the reader: this engine saw none. */
	ck_assert_uint_eq(fk.f->n_submit_calls, 0);
	assert_no_child();
	rig_free(&ref);
	rig_free(&fk);
	free(im.img);
}
END_TEST

START_TEST(test_fork_hang_costs_timeout)
{
	uint8_t *img = make_image(&L_BASIC);
	struct timespec t0;
	struct rig r;
	uint64_t ms;

	rig_init(&r, 101, 128, img, L_BASIC.size);
	for (size_t i = 0; i < r.n; i++)
		r.f->devs[i].delay_ms = 1 + (unsigned)(i % 3);
	r.f->devs[50].hang_from = 0;
	r.opts.timeout_ms = 200;
	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(pf_reader_scan(r.t, r.n, &r.opts, &r.stats), 0);
	ms = ms_since(&t0);
	ck_assert_uint_ge(ms, 190);
	ck_assert_uint_lt(ms, 700);
	for (size_t i = 0; i < r.n; i++) {
		if (i == 50)
			continue;
		ck_assert_int_eq(r.t[i].status, 0);
		ck_assert_uint_eq(pf_probe_vg(&r.p[i])->seqno, L_BASIC.seqno);
	}
	ck_assert_int_eq(r.t[50].status, -ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(r.t[50].diag.msg, "no answer within 200 ms"));
	ck_assert_int_eq(r.p[50].label_status, -ETIMEDOUT);
	ck_assert_uint_eq(r.stats.n_timeouts, 1);
	assert_no_child();
	rig_free(&r);
	free(img);
}
END_TEST

/*
 * An engine around the fake one, for the reader's process: it can die, go
 * silent, or check what the reader holds, and says so through what it reads.
 */
struct probe_engine {
	struct pf_io_engine e;
	struct pf_fake_engine *f;
	pid_t caller;
	enum { PE_PLAIN, PE_DIE_AT_START, PE_DIE_AFTER_ONE, PE_SILENT, PE_CHECK_FDS } mode;
	int secret_fd;	   /* PE_CHECK_FDS: must be closed in the reader */
	unsigned silent_ms; /* PE_SILENT: how long the first wait sleeps */
	unsigned n_waits;
};

static struct probe_engine *to_pe(struct pf_io_engine *e)
{
	return (struct probe_engine *)(void *)((char *)e - offsetof(struct probe_engine, e));
}

static bool in_reader(const struct probe_engine *pe)
{
	return getpid() != pe->caller;
}

/* In the reader: only the devices' descriptors (none here), the pipe, and /dev/null as 0-2. */
static bool reader_holds_nothing(const struct probe_engine *pe)
{
	struct stat st;

	if (fcntl(pe->secret_fd, F_GETFD) != -1 || errno != EBADF)
		return false;
	for (int fd = 0; fd < 3; fd++)
		if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3))
			return false;
	return true;
}

static int pe_submit(struct pf_io_engine *e, struct pf_io_req *const *reqs, unsigned n)
{
	struct probe_engine *pe = to_pe(e);

	if (pe->mode == PE_DIE_AT_START && in_reader(pe))
		_exit(7);
	return pe->f->e.ops->submit(&pe->f->e, reqs, n);
}

static int pe_wait(struct pf_io_engine *e, unsigned min_nr, unsigned max,
		   const struct timespec *timeout, struct pf_io_event *ret)
{
	struct probe_engine *pe = to_pe(e);
	int r;

	pe->n_waits++;
	if (in_reader(pe) && pe->mode == PE_DIE_AFTER_ONE && pe->n_waits == 3)
		_exit(7);
	if (in_reader(pe) && pe->mode == PE_SILENT && pe->n_waits == 1) {
		struct timespec ts = { (time_t)(pe->silent_ms / 1000U),
				       (long)(pe->silent_ms % 1000U) * 1000000L };

		(void)nanosleep(&ts, NULL);
	}
	r = pe->f->e.ops->wait(&pe->f->e, min_nr, max, timeout, ret);
	if (pe->mode == PE_CHECK_FDS && !reader_holds_nothing(pe))
		for (int k = 0; k < r; k++)
			ret[k].res = -EBADFD;
	e->stuck = pe->f->e.stuck;
	return r;
}

static void pe_abandon(struct pf_io_engine *e, struct pf_io_req *req)
{
	struct probe_engine *pe = to_pe(e);

	pe->f->e.ops->abandon(&pe->f->e, req);
	e->stuck = pe->f->e.stuck;
}

static void pe_destroy(struct pf_io_engine *e)
{
	(void)e;
}

static const struct pf_io_engine_ops pe_ops = { pe_submit, pe_wait, pe_abandon, pe_destroy };

static void pe_init(struct probe_engine *pe, struct rig *r, int mode)
{
	memset(pe, 0, sizeof(*pe));
	pe->e.ops = &pe_ops;
	pe->e.depth = r->f->e.depth;
	pe->f = r->f;
	pe->caller = getpid();
	pe->mode = mode;
	pe->secret_fd = -1;
	r->opts.engine = &pe->e;
}

START_TEST(test_fork_reader_dies_at_start)
{
	uint8_t *img = make_image(&L_BASIC);
	struct probe_engine pe;
	struct rig r;

	/* Nothing came: the devices are read here instead. */
	rig_init(&r, 4, 4, img, L_BASIC.size);
	pe_init(&pe, &r, PE_DIE_AT_START);
	ck_assert_int_eq(pf_reader_scan(r.t, r.n, &r.opts, &r.stats), 0);
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_int_eq(r.t[i].status, 0);
		ck_assert_uint_eq(pf_probe_vg(&r.p[i])->seqno, L_BASIC.seqno);
	}
	ck_assert_uint_gt(r.f->n_submit_calls, 0);
	assert_no_child();
	rig_free(&r);
	free(img);
}
END_TEST

START_TEST(test_fork_reader_dies_midway)
{
	uint8_t *img = make_image(&L_BASIC);
	struct probe_engine pe;
	unsigned n_ok = 0, n_dead = 0;
	struct rig r;

	/* One completion per wait: two devices are done when it dies in its third wait. */
	rig_init(&r, 6, 6, img, L_BASIC.size);
	r.f->max_per_wait = 1;
	pe_init(&pe, &r, PE_DIE_AFTER_ONE);
	ck_assert_int_eq(pf_reader_scan(r.t, r.n, &r.opts, &r.stats), 0);
	for (size_t i = 0; i < r.n; i++) {
		if (r.t[i].status == 0) {
			ck_assert_uint_eq(pf_probe_vg(&r.p[i])->seqno, L_BASIC.seqno);
			n_ok++;
			continue;
		}
		ck_assert_int_eq(r.t[i].status, -EPIPE);
		ck_assert_str_eq(r.t[i].diag.msg, "the reader process ended early, waiting for "
						  "byte 0: device left out");
		n_dead++;
	}
	ck_assert_uint_eq(n_ok, 2);
	ck_assert_uint_eq(n_dead, 4);
	ck_assert_uint_eq(r.stats.n_reads, 0); /* no end record: no statistics */
	assert_no_child();
	rig_free(&r);
	free(img);
}
END_TEST

START_TEST(test_fork_reader_silent)
{
	uint8_t *img = make_image(&L_BASIC);
	struct probe_engine pe;
	struct timespec t0;
	struct rig r;
	uint64_t ms;

	/*
	 * The reader blocks where no timeout reaches (as in a buffered
	 * io_submit()): given up after the timeout and the grace. It wakes
	 * later, finds nobody listening, and ends.
	 */
	rig_init(&r, 3, 3, img, L_BASIC.size);
	pe_init(&pe, &r, PE_SILENT);
	pe.silent_ms = 100 + PF_READER_GRACE_MS + 500;
	r.opts.timeout_ms = 100;
	(void)clock_gettime(CLOCK_MONOTONIC, &t0);
	ck_assert_int_eq(pf_reader_scan(r.t, r.n, &r.opts, &r.stats), 0);
	ms = ms_since(&t0);
	ck_assert_uint_ge(ms, 100 + PF_READER_GRACE_MS - 10);
	ck_assert_uint_lt(ms, 100 + PF_READER_GRACE_MS + 400);
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_int_eq(r.t[i].status, -ETIMEDOUT);
		ck_assert_str_eq(r.t[i].diag.msg, "no word from the reader process for 1100 ms, "
						  "waiting for byte 0: device left out");
	}
	assert_no_child();
	rig_free(&r);
	free(img);
}
END_TEST

START_TEST(test_fork_reader_holds_nothing)
{
	uint8_t *img = make_image(&L_BASIC);
	struct probe_engine pe;
	int p[2];
	struct rig r;

	/* A descriptor of the caller's (a lock, an output pipe) is not the reader's. */
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	rig_init(&r, 3, 3, img, L_BASIC.size);
	pe_init(&pe, &r, PE_CHECK_FDS);
	pe.secret_fd = p[1];
	ck_assert_int_eq(pf_reader_scan(r.t, r.n, &r.opts, &r.stats), 0);
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_int_eq(r.t[i].status, 0);
		ck_assert_int_eq(r.p[i].label_status, 0);
	}
	/* And the check itself works: here the descriptor is open. */
	ck_assert(!reader_holds_nothing(&pe));
	(void)close(p[0]);
	(void)close(p[1]);
	rig_free(&r);
	free(img);
}
END_TEST

/* ---- libaio on image files ---- */

START_TEST(test_libaio_files)
{
	static const struct layout *layouts[] = { &L_BASIC, &L_BEYOND, &L_WRAP, &L_TWO };
	char dir[] = "/tmp/pf-reader-XXXXXX";
	struct pf_aio_target ref[ARRAY_SIZE(layouts)], fk[ARRAY_SIZE(layouts)];
	struct pf_probe pref[ARRAY_SIZE(layouts)], pfk[ARRAY_SIZE(layouts)];
	struct pf_aio_stats sref, sfk;
	char path[64];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (size_t i = 0; i < ARRAY_SIZE(layouts); i++) {
		uint8_t *img = make_image(layouts[i]);
		int fd;

		(void)snprintf(path, sizeof(path), "%s/d%zu", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, img, layouts[i]->size), (ssize_t)layouts[i]->size);
		(void)close(fd);
		free(img);
		memset(&ref[i], 0, sizeof(ref[i]));
		ck_assert_int_eq(pf_aio_open(path, &ref[i].fd, &ref[i].direct, &ref[i].lbs,
					     &ref[i].size_bytes),
				 0);
		fk[i] = ref[i];
		ck_assert_int_eq(pf_aio_open(path, &fk[i].fd, &fk[i].direct, &fk[i].lbs,
					     &fk[i].size_bytes),
				 0);
		pf_probe_init(&pref[i], ref[i].size_bytes);
		pf_probe_init(&pfk[i], fk[i].size_bytes);
		ref[i].probe = &pref[i];
		fk[i].probe = &pfk[i];
	}
	ck_assert_int_eq(pf_aio_scan(ref, ARRAY_SIZE(ref), NULL, &sref), 0);
	ck_assert_int_eq(pf_reader_scan(fk, ARRAY_SIZE(fk), NULL, &sfk), 0);
	for (size_t i = 0; i < ARRAY_SIZE(layouts); i++) {
		same_target(i, &ref[i], &fk[i]);
		ck_assert_uint_eq(pf_probe_vg(&pfk[i])->seqno, layouts[i]->seqno);
		(void)close(ref[i].fd);
		(void)close(fk[i].fd);
		pf_probe_release(&pref[i]);
		pf_probe_release(&pfk[i]);
		(void)snprintf(path, sizeof(path), "%s/d%zu", dir, i);
		(void)unlink(path);
	}
	same_stats(&sref, &sfk);
	assert_no_child();
	(void)rmdir(dir);
}
END_TEST

/* ---- reading by path ---- */

/* What is at each path; the probe of a pread of it is what the reader must give. */
enum path_kind {
	PK_IMAGE,   /* the layout's image */
	PK_IGNORED, /* the layout's image, mda1 flagged ignored */
	PK_ZEROS,   /* size bytes of zeros */
	PK_MISSING, /* nothing there */
	PK_DIR,	    /* a directory */
};

struct path_case {
	enum path_kind kind;
	const struct layout *l;
	uint64_t size;
	int open_err; /* what opening it fails with, 0 for none */
};

static const struct path_case path_cases[] = {
	{ PK_IMAGE, &L_BASIC, 0, 0 },	  { PK_IMAGE, &L_BEYOND, 0, 0 },
	{ PK_IMAGE, &L_STRADDLE, 0, 0 },  { PK_IMAGE, &L_WRAP, 0, 0 },
	{ PK_IMAGE, &L_TWO, 0, 0 },	  { PK_IMAGE, &L_TAIL, 0, 0 },
	{ PK_IGNORED, &L_BASIC, 0, 0 },	  { PK_ZEROS, NULL, 0, 0 },
	{ PK_ZEROS, NULL, 300, 0 },	  { PK_ZEROS, NULL, MIB, 0 },
	{ PK_MISSING, NULL, 0, -ENOENT }, { PK_DIR, NULL, 0, -ENOTBLK },
	{ PK_IMAGE, &L_BASIC, 0, 0 },
};

static void write_file(const char *path, const uint8_t *data, uint64_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	ck_assert_int_ge(fd, 0);
	if (data)
		ck_assert_int_eq(write(fd, data, size), (ssize_t)size);
	else
		ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	(void)close(fd);
}

/* Put case c at path (under a directory the caller removes with rm_cases()). */
static void make_case(const struct path_case *c, const char *path)
{
	uint8_t *img;

	switch (c->kind) {
	case PK_IMAGE:
	case PK_IGNORED:
		img = make_image(c->l);
		if (c->kind == PK_IGNORED) {
			/* raw_locn[0].flags: 40 bytes into the header, 20 into the slot */
			img[c->l->mdas[0].offset_bytes + 60] |= PF_RAW_LOCN_IGNORED;
			pf_build_mda_fix_checksum(img + c->l->mdas[0].offset_bytes);
		}
		write_file(path, img, c->l->size);
		free(img);
		break;
	case PK_ZEROS:
		write_file(path, NULL, c->size);
		break;
	case PK_MISSING:
		break;
	case PK_DIR:
		ck_assert_int_eq(mkdir(path, 0700), 0);
		break;
	}
}

static void rm_cases(const char *dir)
{
	char path[64];

	for (size_t i = 0; i < ARRAY_SIZE(path_cases); i++) {
		(void)snprintf(path, sizeof(path), "%s/p%zu", dir, i);
		if (path_cases[i].kind == PK_DIR)
			(void)rmdir(path);
		else
			(void)unlink(path);
	}
	(void)rmdir(dir);
}

/* The probe of a plain pread of path, or of nothing when it cannot be opened. */
static void pread_probe(const char *path, bool read_ignored, struct pf_probe *ret)
{
	uint64_t size = 0;
	int fd = -1;

	if (pf_pvread_open(path, &fd, &size) < 0) {
		pf_probe_init(ret, 0);
		return;
	}
	pf_probe_init(ret, size);
	ret->read_ignored = read_ignored;
	ck_assert_int_eq(pf_pvread_probe(fd, ret), 0);
	(void)close(fd);
}

/* _i: bit 0 read_ignored, bit 1 no_aio. */
START_TEST(test_paths_match_pread)
{
	const size_t n = ARRAY_SIZE(path_cases);
	char dir[] = "/tmp/pf-reader-XXXXXX";
	char paths[ARRAY_SIZE(path_cases)][64];
	struct pf_reader_dev rd[ARRAY_SIZE(path_cases)];
	struct pf_probe p[ARRAY_SIZE(path_cases)], ref;
	struct pf_reader_opts ro = { .read_ignored = _i & 1, .no_aio = (_i & 2) != 0 };
	bool limited = true;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	memset(rd, 0, sizeof(rd));
	for (size_t i = 0; i < n; i++) {
		(void)snprintf(paths[i], sizeof(paths[i]), "%s/p%zu", dir, i);
		make_case(&path_cases[i], paths[i]);
		rd[i] = (struct pf_reader_dev){ .path = paths[i], .probe = &p[i], .status = 99 };
		/* Whatever was there before is overwritten, not released: the probe is storage. */
		memset(&p[i], 0xa5, sizeof(p[i]));
	}
	ck_assert_int_eq(pf_reader_scan_paths(rd, n, &ro, &limited), 0);
	ck_assert(!limited);
	for (size_t i = 0; i < n; i++) {
		const struct path_case *c = &path_cases[i];

		ck_assert_msg(rd[i].status == c->open_err, "path %zu: status %d", i, rd[i].status);
		ck_assert(rd[i].opened == (c->open_err == 0));
		ck_assert(p[i].read_ignored == ro.read_ignored);
		pread_probe(paths[i], ro.read_ignored, &ref);
		same_probe(i, &ref, &p[i]);
		ck_assert_uint_eq(p[i].dev_size_bytes, ref.dev_size_bytes);
		pf_probe_release(&ref);
		if (c->open_err) {
			char want[128];

			(void)snprintf(want, sizeof(want), "cannot open %s: %s", paths[i],
				       strerror(-c->open_err));
			ck_assert_str_eq(rd[i].diag.msg, want);
			ck_assert_uint_eq(p[i].dev_size_bytes, 0);
		} else {
			ck_assert_str_eq(rd[i].diag.msg, "");
		}
		/* Read counts come from the async reads. */
		if (!ro.no_aio && c->open_err == 0 && (c->l || c->size))
			ck_assert(rd[i].n_reads > 0 && rd[i].bytes_read > 0);
		if (c->kind == PK_IMAGE)
			ck_assert_uint_eq(pf_probe_vg(&p[i])->seqno, c->l->seqno);
		if (c->kind == PK_IGNORED) {
			/* The flag reaches the reader's probes too; the copy is never used. */
			ck_assert(p[i].mdas[0].ignored);
			ck_assert_int_eq(p[i].mdas[0].text_status, ro.read_ignored ? 0 : -ENODATA);
			ck_assert(!ro.read_ignored || p[i].mdas[0].vg);
			ck_assert_ptr_null(pf_probe_vg(&p[i]));
		}
		pf_probe_release(&p[i]);
	}
	assert_no_child();
	rm_cases(dir);
}
END_TEST

START_TEST(test_paths_many)
{
	enum { N = 300 };
	char dir[] = "/tmp/pf-reader-XXXXXX";
	char path[64];
	struct pf_reader_dev *rd = calloc(N, sizeof(*rd));
	struct pf_probe *p = calloc(N, sizeof(*p));
	uint8_t *img = make_image(&L_BEYOND);
	struct pf_reader_opts ro = { .timeout_ms = 5000 };

	ck_assert_ptr_nonnull(rd);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	(void)snprintf(path, sizeof(path), "%s/img", dir);
	write_file(path, img, L_BEYOND.size);
	/* One image, N descriptors: each device is its own target. */
	for (size_t i = 0; i < N; i++)
		rd[i] = (struct pf_reader_dev){ .path = path, .probe = &p[i] };
	ck_assert_int_eq(pf_reader_scan_paths(rd, N, &ro, NULL), 0);
	for (size_t i = 0; i < N; i++) {
		ck_assert_int_eq(rd[i].status, 0);
		ck_assert_uint_eq(pf_probe_vg(&p[i])->seqno, L_BEYOND.seqno);
		ck_assert_uint_eq(rd[i].n_reads, rd[0].n_reads);
		pf_probe_release(&p[i]);
	}
	assert_no_child();
	(void)unlink(path);
	(void)rmdir(dir);
	free(img);
	free(rd);
	free(p);
}
END_TEST

/* Bad arguments: refused before anything is opened or touched. */
START_TEST(test_paths_bad_args)
{
	struct pf_probe p[2];
	struct pf_reader_dev rd[2], before[2];
	bool limited = true;

	memset(rd, 0, sizeof(rd));
	rd[0] = (struct pf_reader_dev){ .path = "/", .probe = &p[0], .status = 99 };
	rd[1] = (struct pf_reader_dev){ .path = "/", .probe = &p[1], .status = 99 };
	switch (_i) {
	case 0:
		rd[1].path = NULL;
		break;
	case 1:
		rd[0].probe = NULL;
		break;
	default:
		break;
	}
	memcpy(before, rd, sizeof(rd));
	if (_i == 2)
		ck_assert_int_eq(pf_reader_scan_paths(NULL, 1, NULL, &limited), -EINVAL);
	else if (_i == 3)
		ck_assert_int_eq(pf_reader_scan_paths(rd, PF_AIO_TARGETS_MAX + 1, NULL, &limited),
				 -E2BIG);
	else
		ck_assert_int_eq(pf_reader_scan_paths(rd, 2, NULL, &limited), -EINVAL);
	ck_assert_mem_eq(rd, before, sizeof(rd));
	ck_assert(limited);
	/* Nothing to read is no error. */
	ck_assert_int_eq(pf_reader_scan_paths(NULL, 0, NULL, &limited), 0);
	ck_assert(!limited);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("reader");
	TCase *tc = tcase_create("record and replay");
	TCase *tf = tcase_create("forked reader");
	TCase *tp = tcase_create("by path");

	tcase_set_timeout(tc, 60);
	tcase_add_loop_test(tc, test_record_replay_matches_scan, 0, (int)ARRAY_SIZE(scenarios));
	tcase_add_loop_test(tc, test_bad_record, 0, (int)ARRAY_SIZE(bad_records));
	tcase_add_test(tc, test_stream_order);
	tcase_add_test(tc, test_truncated_stream);
	tcase_add_test(tc, test_record_arguments);
	suite_add_tcase(s, tc);

	tcase_set_timeout(tf, 60);
	tcase_add_loop_test(tf, test_fork_matches_scan, 0, (int)ARRAY_SIZE(scenarios));
	tcase_add_test(tf, test_fork_hang_costs_timeout);
	tcase_add_test(tf, test_fork_reader_dies_at_start);
	tcase_add_test(tf, test_fork_reader_dies_midway);
	tcase_add_test(tf, test_fork_reader_silent);
	tcase_add_test(tf, test_fork_reader_holds_nothing);
	tcase_add_test(tf, test_libaio_files);
	suite_add_tcase(s, tf);

	tcase_set_timeout(tp, 60);
	tcase_add_loop_test(tp, test_paths_match_pread, 0, 4);
	tcase_add_test(tp, test_paths_many);
	tcase_add_loop_test(tp, test_paths_bad_args, 0, 4);
	suite_add_tcase(s, tp);
	return s;
}

PF_UNIT_MAIN()
