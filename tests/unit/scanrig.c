/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Rigs of fake devices for the tee, replay and reader tests, and comparing their outcomes. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/replay.h"
#include "io/tee.h"
#include "scanrig.h"
#include "unit.h"

#define FIRST (128U * KIB)
#define STREAM_MAX (64U * MIB)

/* ---- rigs: n fake devices, targets and probes ---- */

void rig_init(struct rig *r, size_t n, unsigned depth, const uint8_t *img, uint64_t size)
{
	memset(r, 0, sizeof(*r));
	ck_assert_int_eq(pf_fake_backend_new(n, depth, &r->f), 0);
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
	r->opts.backend = &r->f->b;
	r->opts.queue_depth = depth;
}

void rig_free(struct rig *r)
{
	for (size_t i = 0; i < r->n; i++)
		pf_probe_release(&r->p[i]);
	pf_fake_backend_free(r->f);
	free(r->t);
	free(r->p);
}

/* ---- comparing outcomes ---- */

void same_diag(const char *what, size_t i, const struct pf_diag *a, const struct pf_diag *b)
{
	ck_assert_msg(strcmp(a->msg, b->msg) == 0, "dev %zu %s: \"%s\" vs \"%s\"", i, what, a->msg,
		      b->msg);
	ck_assert_msg(a->has_offset == b->has_offset && a->offset == b->offset &&
			      a->line == b->line && a->col == b->col,
		      "dev %zu %s: diag position differs", i, what);
}

void same_probe(size_t i, const struct pf_probe *a, const struct pf_probe *b)
{
	const struct pf_vg *va = pf_probe_vg(a), *vb = pf_probe_vg(b);

	ck_assert_msg(a->step == b->step && a->cur == b->cur, "dev %zu: step %d/%u vs %d/%u", i,
		      a->step, a->cur, b->step, b->cur);
	ck_assert_msg(a->label_status == b->label_status, "dev %zu: label %d vs %d", i,
		      a->label_status, b->label_status);
	same_diag("label", i, &a->label_diag, &b->label_diag);
	ck_assert_int_eq(a->head_status, b->head_status);
	ck_assert(a->head.partition_table == b->head.partition_table &&
		  a->head.old_signature == b->head.old_signature &&
		  a->head.md_at_start == b->head.md_at_start);
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

void same_target(size_t i, const struct pf_aio_target *a, const struct pf_aio_target *b)
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
void same_stats(const struct pf_aio_stats *a, const struct pf_aio_stats *b)
{
	ck_assert_uint_eq(a->depth, b->depth);
	ck_assert_uint_eq(a->n_reads, b->n_reads);
	ck_assert_uint_eq(a->bytes_read, b->bytes_read);
	ck_assert_uint_eq(a->n_timeouts, b->n_timeouts);
}

/* ---- scenarios: every situation test_aio puts the async scan in ---- */

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

const struct scenario scenarios[] = {
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

const size_t n_scenarios = ARRAY_SIZE(scenarios);

struct images scenario_image(const struct scenario *sc)
{
	struct images im = { NULL, sc->size };

	if (sc->l) {
		im.img = make_image(sc->l);
		im.size = sc->l->size;
	}
	return im;
}

void scenario_rig(const struct scenario *sc, const struct images *im, struct rig *r)
{
	rig_init(r, sc->n, sc->depth, im->img, im->size);
	if (sc->tweak)
		sc->tweak(r);
}

/* Record into a memfd, in this process; returns the stream. */
uint8_t *rig_record(struct rig *r, size_t *ret_len)
{
	int fd = memfd_create("scanrig", MFD_CLOEXEC);
	struct stat st;
	uint8_t *buf;
	ssize_t got;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pf_tee_record(r->t, r->n, &r->opts, fd), 0);
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
void rig_fresh_copy(const struct rig *r, struct pf_aio_target **ret_t, struct pf_probe **ret_p)
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

void rig_free_copy(size_t n, struct pf_aio_target *t, struct pf_probe *p)
{
	for (size_t i = 0; i < n; i++)
		pf_probe_release(&p[i]);
	free(t);
	free(p);
}

/* Replay stream into fresh probes, pushed in pieces of chunk bytes (0: all at once). */
int rig_replay(const struct rig *r, const uint8_t *s, size_t len, size_t chunk,
	       struct pf_aio_target **ret_t, struct pf_probe **ret_p,
	       struct pf_aio_stats *ret_stats)
{
	struct pf_replay *rp = NULL;
	int res;

	rig_fresh_copy(r, ret_t, ret_p);
	ck_assert_int_eq(pf_replay_new(*ret_t, r->n, &rp), 0);
	if (!chunk)
		chunk = len ? len : 1;
	for (size_t at = 0; at < len; at += chunk)
		ck_assert_int_eq(pf_replay_push(rp, s + at, len - at < chunk ? len - at : chunk),
				 0);
	ck_assert_uint_eq(pf_replay_bytes(rp), len);
	ck_assert(pf_replay_complete(rp));
	res = pf_replay_finish(rp, -EPIPE, "cut", ret_stats);
	pf_replay_free(rp);
	return res;
}
