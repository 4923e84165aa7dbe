/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The async scan: window, reuse of what was read, errors, short reads and
 * timeouts through the fake backend; then the libaio backend on image files and,
 * as root, on loop devices made from the fixtures (checked against
 * pvscan-fast --dump --json), with 512- and 4096-byte logical blocks.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "build.h"
#include "format/probe.h"
#include "io/aio.h"
#include "io/backend.h"
#include "io/pvread.h"
#include "pvimage.h"
#include "scanrig.h"
#include "unit.h"

#define FIRST (128U * KIB)
#define OUTPUT_MAX (1U << 20)

/* ---- fake-backend scans ---- */

static int rig_run(struct rig *r)
{
	for (size_t i = 0; i < r->n; i++)
		pf_probe_init(&r->p[i], r->t[i].size_bytes);
	return pf_aio_scan(r->t, r->n, &r->opts, &r->stats);
}

/* Nothing the scan owned is left with the backend, and no byte was read twice. */
static void rig_check_free(struct rig *r)
{
	ck_assert_uint_eq(r->f->n_over_depth, 0);
	for (size_t i = 0; i < r->n; i++) {
		ck_assert_uint_eq(r->f->devs[i].n_overlaps, 0);
		ck_assert_uint_eq(r->f->devs[i].n_misaligned, 0);
	}
	rig_free(r);
}

static void assert_vg(const struct pf_probe *p, unsigned seqno)
{
	const struct pf_vg *vg = pf_probe_vg(p);

	ck_assert_int_eq(p->label_status, 0);
	ck_assert_ptr_nonnull(vg);
	ck_assert_str_eq(vg->name, "vgaio");
	ck_assert_uint_eq(vg->seqno, seqno);
}

START_TEST(test_window_refills)
{
	struct rig r;

	/* Blank devices: one read each. One completion per wait exposes any barrier. */
	rig_init(&r, 100, 8, NULL, 4 * MIB);
	r.f->max_per_wait = 1;
	ck_assert_int_eq(rig_run(&r), 0);
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_int_eq(r.t[i].status, 0);
		ck_assert_int_eq(r.p[i].label_status, -ENODATA);
		ck_assert_uint_eq(r.t[i].n_reads, 1);
		ck_assert_uint_eq(r.t[i].bytes_read, FIRST);
		ck_assert_uint_eq(r.f->devs[i].reads[0].off, 0);
		ck_assert_uint_eq(r.f->devs[i].reads[0].len, FIRST);
	}
	ck_assert_uint_eq(r.stats.max_in_flight, 8);
	ck_assert_uint_eq(r.f->max_in_flight, 8);
	ck_assert_uint_eq(r.f->n_wait_calls, 100);
	/* The window is full at every wait but while the last 7 drain. */
	ck_assert_uint_le(r.f->n_waits_not_full, 7);
	ck_assert_uint_eq(r.stats.n_reads, 100);
	rig_check_free(&r);
}
END_TEST

START_TEST(test_many_pvs_out_of_order)
{
	uint8_t *img = make_image(&L_BASIC);
	struct rig r;

	rig_init(&r, 300, 32, img, L_BASIC.size);
	for (size_t i = 0; i < r.n; i++)
		r.f->devs[i].delay_ms = (unsigned)((i * 7) % 5);
	ck_assert_int_eq(rig_run(&r), 0);
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_int_eq(r.t[i].status, 0);
		assert_vg(&r.p[i], L_BASIC.seqno);
		ck_assert_uint_eq(r.t[i].n_reads, 1); /* label, header and text from one read */
	}
	ck_assert_uint_eq(r.stats.max_in_flight, 32);
	ck_assert_uint_le(r.f->n_waits_not_full, 31);
	rig_check_free(&r);
	free(img);
}
END_TEST

START_TEST(test_default_depth)
{
	uint8_t *img = make_image(&L_BASIC);
	struct rig r;

	ck_assert_uint_eq(pf_aio_depth(0), 1);
	ck_assert_uint_eq(pf_aio_depth(1), 1);
	ck_assert_uint_eq(pf_aio_depth(200), 200);
	ck_assert_uint_eq(pf_aio_depth(100000), PF_AIO_DEPTH_MAX);
	/* Every device at once when they fit; the backend's depth caps the window. */
	rig_init(&r, 40, 64, img, L_BASIC.size);
	r.opts.queue_depth = 0;
	ck_assert_int_eq(rig_run(&r), 0);
	ck_assert_uint_eq(r.stats.depth, 40);
	ck_assert_uint_eq(r.stats.max_in_flight, 40);
	rig_check_free(&r);
	rig_init(&r, 40, 16, img, L_BASIC.size);
	r.opts.queue_depth = 0;
	ck_assert_int_eq(rig_run(&r), 0);
	ck_assert_uint_eq(r.stats.depth, 16);
	ck_assert_uint_eq(r.stats.max_in_flight, 16);
	rig_check_free(&r);
	free(img);
}
END_TEST

/* Which reads a layout costs, beyond the first [0, 128 KiB). */
static const struct {
	const char *name;
	const struct layout *l;
	unsigned n_reads;
	uint64_t off2, len2; /* the second read */
} read_cases[] = {
	{ "basic", &L_BASIC, 1, 0, 0 },
	/* Text at 4 KiB + 200 KiB, under 512 bytes: just its block. */
	{ "beyond", &L_BEYOND, 2, 4096 + 200 * KIB, 512 },
	/* Text from 127 KiB: the read starts where the first one ended. */
	{ "straddle", &L_STRADDLE, 2, FIRST, 1536 },
	/* Wrapped: part 1 is the ring's last 512 bytes; part 2 is in the first read. */
	{ "wrap", &L_WRAP, 2, 4096 + 256 * KIB - 512, 512 },
	/* mda2's header read brings its text along (widened to 128 KiB, cut at the end). */
	{ "two-mdas", &L_TWO, 2, 2 * MIB - 64 * KIB, 64 * KIB },
};

START_TEST(test_reads_per_layout)
{
	uint8_t *img = make_image(read_cases[_i].l);
	const struct layout *l = read_cases[_i].l;
	struct rig r;

	rig_init(&r, 3, 4, img, l->size);
	ck_assert_int_eq(rig_run(&r), 0);
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_msg(r.t[i].n_reads == read_cases[_i].n_reads, "%s: %u reads",
			      read_cases[_i].name, r.t[i].n_reads);
		assert_vg(&r.p[i], l->seqno);
		ck_assert_uint_eq(r.f->devs[i].reads[0].off, 0);
		ck_assert_uint_eq(r.f->devs[i].reads[0].len, FIRST);
		if (read_cases[_i].n_reads > 1) {
			ck_assert_uint_eq(r.f->devs[i].reads[1].off, read_cases[_i].off2);
			ck_assert_uint_eq(r.f->devs[i].reads[1].len, read_cases[_i].len2);
		}
	}
	if (l->n_mdas == 2)
		ck_assert_int_eq(r.p[0].mdas[1].text_status, 0);
	rig_check_free(&r);
	free(img);
}
END_TEST

START_TEST(test_first_read_option)
{
	uint8_t *img = make_image(&L_BASIC);
	struct rig r;

	/*
	 * Only 4 KiB at first: the probe's head (PF_PROBE_HEAD_BYTES) still comes
	 * whole, and holds the mda header; the text then needs one more read.
	 */
	rig_init(&r, 1, 1, img, L_BASIC.size);
	r.opts.first_read_bytes = 4096;
	ck_assert_int_eq(rig_run(&r), 0);
	assert_vg(&r.p[0], L_BASIC.seqno);
	ck_assert_uint_eq(r.t[0].n_reads, 2);
	ck_assert_uint_eq(r.f->devs[0].reads[0].len, PF_PROBE_HEAD_BYTES);
	ck_assert_uint_eq(r.f->devs[0].reads[1].off, PF_PROBE_HEAD_BYTES);
	rig_check_free(&r);
	free(img);
}
END_TEST

/* EIO at each probe step: the probe's statuses say which one. */
static const struct {
	const char *name;
	const struct layout *l;
	uint64_t eio_from, eio_to;
	int label, header1, text1, header2; /* expected statuses (1: not reached / n/a) */
	bool vg;
} eio_cases[] = {
	{ "label", &L_BASIC, 512, 1024, -EIO, 1, 1, 1, false },
	{ "first read elsewhere", &L_BASIC, 100 * KIB, 101 * KIB, -EIO, 1, 1, 1, false },
	{ "mda2 header", &L_TWO, 2 * MIB - 64 * KIB, 2 * MIB - 64 * KIB + 512, 0, 0, 0, -EIO,
	  true },
	{ "text beyond", &L_BEYOND, 4096 + 200 * KIB, 4096 + 201 * KIB, 0, 0, -EIO, 1, false },
	{ "wrapped part 1", &L_WRAP, 4096 + 256 * KIB - 512, 4096 + 256 * KIB, 0, 0, -EIO, 1,
	  false },
	{ "straddling text", &L_STRADDLE, FIRST, FIRST + 512, 0, 0, -EIO, 1, false },
};

START_TEST(test_eio_each_step)
{
	uint8_t *img = make_image(eio_cases[_i].l);
	struct rig r;

	rig_init(&r, 2, 2, img, eio_cases[_i].l->size);
	r.f->devs[1].eio_from = eio_cases[_i].eio_from;
	r.f->devs[1].eio_to = eio_cases[_i].eio_to;
	ck_assert_int_eq(rig_run(&r), 0);
	assert_vg(&r.p[0], eio_cases[_i].l->seqno); /* the healthy twin */
	ck_assert_int_eq(r.t[1].status, 0);
	ck_assert_msg(r.p[1].label_status == eio_cases[_i].label, "%s: label %d",
		      eio_cases[_i].name, r.p[1].label_status);
	ck_assert_int_eq(r.p[1].mdas[0].header_status, eio_cases[_i].header1);
	ck_assert_int_eq(r.p[1].mdas[0].text_status, eio_cases[_i].text1);
	ck_assert_int_eq(r.p[1].mdas[1].header_status, eio_cases[_i].header2);
	ck_assert_int_eq(pf_probe_vg(&r.p[1]) != NULL, eio_cases[_i].vg);
	if (eio_cases[_i].label == -EIO)
		ck_assert_ptr_nonnull(strstr(r.p[1].label_diag.msg, "cannot read"));
	rig_check_free(&r);
	free(img);
}
END_TEST

START_TEST(test_short_reads)
{
	uint8_t *img = make_image(&L_BEYOND);
	struct rig r;

	rig_init(&r, 3, 3, img, L_BEYOND.size);
	/* The first read stops at 64 KiB: label and header are in it; the text read, nothing. */
	r.f->devs[0].short_at = 64 * KIB;
	/* Only 1000 bytes answer: the label sector is cut short. */
	r.f->devs[1].short_at = 1000;
	/* The text read stops halfway. */
	r.f->devs[2].short_at = 4096 + 200 * KIB + 256;
	ck_assert_int_eq(rig_run(&r), 0);

	ck_assert_int_eq(r.p[0].label_status, 0);
	ck_assert_int_eq(r.p[0].mdas[0].header_status, 0);
	ck_assert_int_eq(r.p[0].mdas[0].text_status, -EIO);
	ck_assert_uint_eq(r.t[0].n_reads, 2);
	ck_assert_uint_eq(r.t[0].bytes_read, 64 * KIB);

	ck_assert_int_lt(r.p[1].label_status, 0);
	ck_assert_uint_eq(r.t[1].n_reads, 1);

	ck_assert_int_eq(r.p[2].mdas[0].text_status, -EIO);
	ck_assert_uint_eq(r.t[2].n_reads, 2);
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_int_eq(r.t[i].status, 0);
		ck_assert_ptr_null(pf_probe_vg(&r.p[i]));
	}
	rig_check_free(&r);
	free(img);
}
END_TEST

START_TEST(test_timeout_others_finish)
{
	uint8_t *img = make_image(&L_BASIC);
	struct rig r;

	/* The outcome, not the time: the timeout fired for that device, the others finished. */
	rig_init(&r, 101, 128, img, L_BASIC.size);
	for (size_t i = 0; i < r.n; i++)
		r.f->devs[i].delay_ms = 1 + (unsigned)(i % 3);
	r.f->devs[50].hang_from = 0;
	r.opts.timeout_ms = 200;
	ck_assert_int_eq(rig_run(&r), 0);
	for (size_t i = 0; i < r.n; i++) {
		if (i == 50)
			continue;
		ck_assert_int_eq(r.t[i].status, 0);
		assert_vg(&r.p[i], L_BASIC.seqno);
	}
	ck_assert_int_eq(r.t[50].status, -ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(r.t[50].diag.msg, "no answer within 200 ms"));
	ck_assert_int_eq(r.p[50].label_status, -ETIMEDOUT);
	ck_assert_ptr_null(pf_probe_vg(&r.p[50]));
	ck_assert_uint_eq(r.stats.n_timeouts, 1);
	ck_assert_uint_eq(r.f->n_abandoned, 1);
	rig_check_free(&r);
	free(img);
}
END_TEST

START_TEST(test_late_harvest_not_timeout)
{
	uint8_t *img = make_image(&L_BASIC);
	struct rig r;

	/*
	 * The scan is held up past device 1's deadline right after taking device 0's read;
	 * device 1's read had ended long before: it is taken, not given up on.
	 */
	rig_init(&r, 2, 8, img, L_BASIC.size);
	r.f->devs[0].delay_ms = 1;
	r.f->devs[1].delay_ms = 20;
	r.f->max_per_wait = 1;
	r.f->stall_ms = 400;
	r.opts.timeout_ms = 200;
	ck_assert_int_eq(rig_run(&r), 0);
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_int_eq(r.t[i].status, 0);
		assert_vg(&r.p[i], L_BASIC.seqno);
	}
	ck_assert_uint_eq(r.stats.n_timeouts, 0);
	ck_assert_uint_eq(r.f->n_abandoned, 0);
	rig_check_free(&r);
	free(img);
}
END_TEST

START_TEST(test_timeout_text_step)
{
	uint8_t *img = make_image(&L_BEYOND);
	struct rig r;

	/* Only the text read hangs: the device is out, its probe says at which step. */
	rig_init(&r, 2, 2, img, L_BEYOND.size);
	r.f->devs[0].hang_from = FIRST;
	r.opts.timeout_ms = 50;
	ck_assert_int_eq(rig_run(&r), 0);
	ck_assert_int_eq(r.t[0].status, -ETIMEDOUT);
	ck_assert(r.t[0].diag.has_offset);
	ck_assert_uint_eq(r.t[0].diag.offset, 4096 + 200 * KIB);
	ck_assert_int_eq(r.p[0].label_status, 0);
	ck_assert_int_eq(r.p[0].mdas[0].header_status, 0);
	ck_assert_int_eq(r.p[0].mdas[0].text_status, -ETIMEDOUT);
	ck_assert_int_eq(r.t[1].status, 0);
	assert_vg(&r.p[1], L_BEYOND.seqno);
	rig_check_free(&r);
	free(img);
}
END_TEST

START_TEST(test_stuck_slots_exhausted)
{
	uint8_t *img = make_image(&L_BASIC);
	struct rig r;

	/* Depth 2, both first devices hang: nothing left to read with. */
	rig_init(&r, 5, 2, img, L_BASIC.size);
	r.f->devs[0].hang_from = 0;
	r.f->devs[1].hang_from = 0;
	r.opts.timeout_ms = 20;
	ck_assert_int_eq(rig_run(&r), 0);
	ck_assert_int_eq(r.t[0].status, -ETIMEDOUT);
	ck_assert_int_eq(r.t[1].status, -ETIMEDOUT);
	for (size_t i = 2; i < r.n; i++) {
		ck_assert_int_eq(r.t[i].status, -EBUSY);
		ck_assert_ptr_nonnull(strstr(r.t[i].diag.msg, "never completed"));
	}
	rig_check_free(&r);
	free(img);
}
END_TEST

START_TEST(test_backend_keeps_stuck_slots)
{
	uint8_t *img = make_image(&L_BASIC);
	struct rig r;

	/* A scan leaves a stuck read in a shared backend: the next scan has one slot less. */
	rig_init(&r, 6, 3, img, L_BASIC.size);
	r.f->devs[0].hang_from = 0;
	r.opts.timeout_ms = 20;
	r.n = 1;
	ck_assert_int_eq(rig_run(&r), 0);
	ck_assert_int_eq(r.t[0].status, -ETIMEDOUT);
	ck_assert_uint_eq(r.f->b.stuck, 1);
	pf_probe_release(&r.p[0]);
	r.t += 1;
	r.p += 1;
	r.n = 5;
	ck_assert_int_eq(rig_run(&r), 0);
	ck_assert_uint_eq(r.stats.max_in_flight, 2);
	for (size_t i = 0; i < r.n; i++)
		assert_vg(&r.p[i], L_BASIC.seqno);
	r.t -= 1;
	r.p -= 1;
	r.n = 6;
	pf_probe_init(&r.p[0], 0); /* released above; rig_free releases again */
	rig_check_free(&r);
	free(img);
}
END_TEST

START_TEST(test_memory_cap)
{
	uint8_t *img = make_image(&L_BEYOND);
	struct rig r;

	/*
	 * Room for three first reads: never more held than that, plus one
	 * text read let through when nothing is in flight. Everyone finishes.
	 */
	rig_init(&r, 40, 16, img, L_BEYOND.size);
	r.opts.mem_max_bytes = 3 * FIRST;
	ck_assert_int_eq(rig_run(&r), 0);
	ck_assert_uint_le(r.stats.mem_peak_bytes, 3 * FIRST + 512);
	ck_assert_uint_le(r.stats.max_in_flight, 3);
	for (size_t i = 0; i < r.n; i++)
		assert_vg(&r.p[i], L_BEYOND.seqno);
	rig_check_free(&r);

	/* A cap below one read: reads go one at a time, still all of them. */
	rig_init(&r, 10, 16, img, L_BEYOND.size);
	r.opts.mem_max_bytes = 4096;
	ck_assert_int_eq(rig_run(&r), 0);
	ck_assert_uint_eq(r.stats.max_in_flight, 1);
	for (size_t i = 0; i < r.n; i++)
		assert_vg(&r.p[i], L_BEYOND.seqno);
	rig_check_free(&r);
	free(img);
}
END_TEST

START_TEST(test_eagain_eintr_partial)
{
	uint8_t *img = make_image(&L_WRAP);
	struct rig r;

	rig_init(&r, 60, 16, img, L_WRAP.size);
	r.f->eagain_every = 3;
	r.f->eintr_every = 4;
	r.f->submit_max = 5;
	for (size_t i = 0; i < r.n; i++)
		r.f->devs[i].delay_ms = (unsigned)(i % 2);
	ck_assert_int_eq(rig_run(&r), 0);
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_int_eq(r.t[i].status, 0);
		assert_vg(&r.p[i], L_WRAP.seqno);
		ck_assert_uint_eq(r.t[i].n_reads, 2);
	}
	rig_check_free(&r);
	free(img);
}
END_TEST

START_TEST(test_submit_refused)
{
	uint8_t *img = make_image(&L_TWO);
	struct rig r;

	rig_init(&r, 4, 4, img, L_TWO.size);
	r.f->devs[2].submit_err = -EBADF;
	ck_assert_int_eq(rig_run(&r), 0);
	ck_assert_int_eq(r.t[2].status, 0);
	ck_assert_int_eq(r.p[2].label_status, -EBADF);
	ck_assert_uint_eq(r.t[2].n_reads, 0);
	for (size_t i = 0; i < r.n; i++)
		if (i != 2)
			assert_vg(&r.p[i], L_TWO.seqno);
	rig_check_free(&r);
	free(img);
}
END_TEST

START_TEST(test_tiny_devices)
{
	struct rig r;

	/* Empty, one sector, and a partial 4 KiB block on a file. */
	rig_init(&r, 3, 3, NULL, 0);
	r.t[1].size_bytes = r.f->devs[1].size = 512;
	r.t[2].size_bytes = r.f->devs[2].size = 1000;
	r.t[2].lbs = r.f->devs[2].lbs = 4096;
	r.f->devs[2].block = false;
	ck_assert_int_eq(rig_run(&r), 0);
	ck_assert_int_eq(r.p[0].label_status, -ENODATA);
	ck_assert_uint_eq(r.t[0].n_reads, 0);
	ck_assert_int_eq(r.p[1].label_status, -ENODATA);
	ck_assert_uint_eq(r.t[1].n_reads, 1);
	ck_assert_int_eq(r.p[2].label_status, -ENODATA);
	ck_assert_uint_eq(r.t[2].n_reads, 1);
	ck_assert_uint_eq(r.t[2].bytes_read, 1000);
	ck_assert_uint_eq(r.f->devs[2].reads[0].len, 4096);
	rig_check_free(&r);
}
END_TEST

START_TEST(test_partial_last_block)
{
	uint8_t *img = make_image(&L_TAIL);
	struct rig r;

	/* 4 KiB blocks; the text crosses into the partial last block. */
	rig_init(&r, 2, 2, img, L_TAIL.size);
	for (size_t i = 0; i < r.n; i++)
		r.t[i].lbs = r.f->devs[i].lbs = 4096;
	r.f->devs[0].block = false; /* an image file: a whole-block read ends short at EOF */
	ck_assert_int_eq(rig_run(&r), 0);

	/* First read, the text's whole blocks, then the last block. */
	assert_vg(&r.p[0], L_TAIL.seqno);
	ck_assert_uint_eq(r.t[0].n_reads, 3);
	ck_assert_uint_eq(r.f->devs[0].reads[1].off, MIB - 4096);
	ck_assert_uint_eq(r.f->devs[0].reads[1].len, 4096);
	ck_assert_uint_eq(r.f->devs[0].reads[2].off, MIB);
	ck_assert_uint_eq(r.f->devs[0].reads[2].len, 4096);
	ck_assert_int_eq(r.f->devs[0].reads[2].res, 1536);

	/* A block device cannot read a partial block: that step fails, nothing else. */
	ck_assert_int_eq(r.t[1].status, 0);
	ck_assert_int_eq(r.p[1].label_status, 0);
	ck_assert_int_eq(r.p[1].mdas[0].text_status, -EINVAL);
	ck_assert_uint_eq(r.t[1].n_reads, 3);
	rig_check_free(&r);
	free(img);
}
END_TEST

START_TEST(test_bad_arguments)
{
	struct pf_aio_target t = { .fd = 3, .size_bytes = 4096, .lbs = 512 }, copy;
	struct pf_aio_opts o = { 0 };
	struct pf_probe p;

	ck_assert_int_eq(pf_aio_scan(NULL, 0, NULL, NULL), 0);
	ck_assert_int_eq(pf_aio_scan(NULL, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(pf_aio_scan(&t, 1, NULL, NULL), -EINVAL); /* no probe */
	pf_probe_init(&p, 4096);
	t.probe = &p;
	t.status = 99;
	t.lbs = 1000;
	copy = t;
	ck_assert_int_eq(pf_aio_scan(&t, 1, NULL, NULL), -EINVAL);
	ck_assert_mem_eq(&t, &copy, sizeof(t)); /* untouched */
	t.lbs = 512;
	t.fd = -1;
	ck_assert_int_eq(pf_aio_scan(&t, 1, NULL, NULL), -EINVAL);
	t.fd = 3;
	o.queue_depth = PF_AIO_DEPTH_LIMIT + 1;
	ck_assert_int_eq(pf_aio_scan(&t, 1, &o, NULL), -EINVAL);
	o.queue_depth = 0;
	o.first_read_bytes = PF_AIO_FIRST_READ_MAX + 1;
	ck_assert_int_eq(pf_aio_scan(&t, 1, &o, NULL), -EINVAL);
	ck_assert_int_eq(pf_aio_scan(&t, PF_AIO_TARGETS_MAX + 1, NULL, NULL), -E2BIG);
	ck_assert_int_eq(t.status, 99);
	pf_probe_release(&p);
}
END_TEST

START_TEST(test_raise_nofile)
{
	struct rlimit rl;

	ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
	ck_assert_int_eq(pf_aio_raise_nofile(10), 0);
	if (rl.rlim_max != RLIM_INFINITY && rl.rlim_max > PF_AIO_NOFILE_SLACK + 10) {
		size_t n = (size_t)rl.rlim_max - PF_AIO_NOFILE_SLACK;
		struct rlimit now;

		ck_assert_int_eq(pf_aio_raise_nofile(n), 0);
		ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &now), 0);
		ck_assert_uint_ge(now.rlim_cur, rl.rlim_max);
		ck_assert_int_eq(pf_aio_raise_nofile((size_t)rl.rlim_max * 2), -EMFILE);
		ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &now), 0);
		ck_assert_uint_eq(now.rlim_cur, rl.rlim_max);
	}
}
END_TEST

/* ---- the libaio backend on files ---- */

#define DIR_TEMPLATE "/tmp/pvscan-fast-test-aio.XXXXXX"
static char dir[sizeof(DIR_TEMPLATE)];

static void dir_setup(void)
{
	memcpy(dir, DIR_TEMPLATE, sizeof(DIR_TEMPLATE)); /* also when tests do not fork */
	ck_assert_ptr_nonnull(mkdtemp(dir));
}

static void dir_teardown(void)
{
	char cmd[PATH_MAX + 16];

	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)system(cmd);
}

static void write_file(const char *path, const uint8_t *img, uint64_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	size_t head = size < MIB ? (size_t)size : MIB;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)size), 0);
	/* Only the first MiB and the end hold anything: keep the file sparse. */
	ck_assert_int_eq(pwrite(fd, img, head, 0), (ssize_t)head);
	if (size > MIB)
		ck_assert_int_eq(pwrite(fd, img + MIB, size - MIB, MIB), (ssize_t)(size - MIB));
	(void)close(fd);
}

/* The same device read with pread: the async scan must decode exactly the same. */
static void assert_same_as_pread(const char *path, const struct pf_probe *a)
{
	struct pf_probe b;
	uint64_t size;
	int fd;

	ck_assert_int_eq(pf_pvread_open(path, &fd, &size), 0);
	pf_probe_init(&b, size);
	ck_assert_int_eq(pf_pvread_probe(fd, &b), 0);
	(void)close(fd);
	ck_assert_int_eq(a->label_status, b.label_status);
	ck_assert_uint_eq(a->n_mdas, b.n_mdas);
	for (unsigned i = 0; i < PF_PROBE_MDAS; i++) {
		ck_assert_int_eq(a->mdas[i].header_status, b.mdas[i].header_status);
		ck_assert_int_eq(a->mdas[i].text_status, b.mdas[i].text_status);
		ck_assert_int_eq(a->mdas[i].vg_status, b.mdas[i].vg_status);
	}
	ck_assert_int_eq(a->vg_index, b.vg_index);
	if (pf_probe_vg(a)) {
		ck_assert_str_eq(pf_probe_vg(a)->name, pf_probe_vg(&b)->name);
		ck_assert_uint_eq(pf_probe_vg(a)->seqno, pf_probe_vg(&b)->seqno);
	}
	pf_probe_release(&b);
}

static const struct layout *const file_layouts[] = {
	&L_BASIC, &L_BEYOND, &L_STRADDLE, &L_WRAP, &L_TWO, &L_TAIL,
};

START_TEST(test_libaio_files)
{
	enum { N = ARRAY_SIZE(file_layouts), COPIES = 8 };
	struct pf_aio_target t[N * COPIES];
	struct pf_probe p[N * COPIES];
	char path[N * COPIES][PATH_MAX];
	struct pf_aio_stats st;
	struct pf_aio_opts o = { .queue_depth = 5 };

	for (size_t i = 0; i < N * COPIES; i++) {
		const struct layout *l = file_layouts[i % N];
		uint8_t *img = make_image(l);

		(void)snprintf(path[i], sizeof(path[i]), "%s/img%zu", dir, i);
		write_file(path[i], img, l->size);
		free(img);
		ck_assert_int_eq(pf_aio_open(path[i], &t[i].fd, &t[i].direct, &t[i].lbs,
					     &t[i].size_bytes),
				 0);
		ck_assert_uint_eq(t[i].size_bytes, l->size);
		t[i].probe = &p[i];
		pf_probe_init(&p[i], t[i].size_bytes);
	}
	ck_assert_int_eq(pf_aio_scan(t, N * COPIES, &o, &st), 0);
	ck_assert_uint_le(st.max_in_flight, 5);
	for (size_t i = 0; i < N * COPIES; i++) {
		ck_assert_int_eq(t[i].status, 0);
		assert_vg(&p[i], file_layouts[i % N]->seqno);
		assert_same_as_pread(path[i], &p[i]);
		pf_probe_release(&p[i]);
		(void)close(t[i].fd);
	}
}
END_TEST

START_TEST(test_open)
{
	char path[PATH_MAX];
	uint64_t size;
	unsigned lbs;
	bool direct;
	int fd;

	ck_assert_int_eq(pf_aio_open("/nonexistent/x", &fd, &direct, &lbs, &size), -ENOENT);
	ck_assert_int_eq(pf_aio_open("/dev/null", &fd, &direct, &lbs, &size), -ENOTBLK);
	ck_assert_int_eq(pf_aio_open(dir, &fd, &direct, &lbs, &size), -ENOTBLK);
	(void)snprintf(path, sizeof(path), "%s/small", dir);
	write_file(path, (const uint8_t *)"0123456789", 10);
	ck_assert_int_eq(pf_aio_open(path, &fd, &direct, &lbs, &size), 0);
	ck_assert_uint_eq(size, 10);
	ck_assert_uint_ge(lbs, 512);
	ck_assert_uint_eq(lbs & (lbs - 1), 0);
	ck_assert_int_ne(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	ck_assert_int_eq((fcntl(fd, F_GETFL) & O_DIRECT) != 0, direct);
	(void)close(fd);
	/* tmpfs refused O_DIRECT before Linux 6.6: then the file is read buffered. */
	if (access("/dev/shm", W_OK) == 0) {
		(void)snprintf(path, sizeof(path), "/dev/shm/pvscan-fast-test-aio.%d",
			       (int)getpid());
		write_file(path, (const uint8_t *)"0123456789", 10);
		ck_assert_int_eq(pf_aio_open(path, &fd, &direct, &lbs, &size), 0);
		ck_assert_int_eq((fcntl(fd, F_GETFL) & O_DIRECT) != 0, direct);
		ck_assert_uint_eq(size, 10);
		(void)close(fd);
		(void)unlink(path);
	}
}
END_TEST

/* ---- the libaio backend on loop devices (root) ---- */

struct loop {
	const char *fixture; /* tests/fixtures/<fixture> image, or NULL for L_TAIL */
	unsigned lbs;
	const char *vg;	     /* expected VG, NULL for none */
	char img[PATH_MAX];
	char dev[64];
};

static struct loop loops[] = {
	{ .fixture = "two-pv/d1", .lbs = 512, .vg = "vgtwo" },
	{ .fixture = "two-pv/d2", .lbs = 512, .vg = "vgtwo" },
	{ .fixture = "wrap/d1", .lbs = 512, .vg = "vgwrap" },
	{ .fixture = "many-lvs/d1", .lbs = 512, .vg = "vgmany" },
	{ .fixture = "two-mdas/d1", .lbs = 512, .vg = "vgmda2" },
	{ .fixture = "labelsector/d1", .lbs = 512, .vg = "vglabel0" },
	{ .fixture = "labelsector/d2", .lbs = 512, .vg = "vglabel3" },
	{ .fixture = "ignored-mda/d2", .lbs = 512, .vg = NULL }, /* its only mda is ignored */
	{ .fixture = "orphan/d1", .lbs = 512, .vg = NULL },
	{ .fixture = "bootloader/d3", .lbs = 512, .vg = "vgboot" },
	{ .fixture = "two-pv/d1", .lbs = 4096, .vg = "vgtwo" },
	{ .fixture = "wrap/d1", .lbs = 4096, .vg = "vgwrap" },
	{ .fixture = "many-lvs/d1", .lbs = 4096, .vg = "vgmany" },
	{ .fixture = "two-mdas/d1", .lbs = 4096, .vg = "vgmda2" },
	{ .fixture = NULL, .lbs = 4096, .vg = "vgaio" },
};
static char loop_dir[] = "/tmp/pvscan-fast-test-aio-loop.XXXXXX";
static bool have_loop_dir, have_loops;

static const char *env_or(const char *name, const char *def)
{
	const char *v = getenv(name);

	return v && *v ? v : def;
}

/* Run cmd and keep the first line of its output in ret (empty on failure). */
static void first_line(const char *cmd, char *ret, size_t len)
{
	FILE *f = popen(cmd, "re");

	ret[0] = '\0';
	if (!f)
		return;
	if (!fgets(ret, (int)len, f))
		ret[0] = '\0';
	ret[strcspn(ret, "\n")] = '\0';
	(void)pclose(f);
}

/* Runs in the parent, once: attach read-only loop devices over sparse copies of the fixtures. */
static void loops_setup(void)
{
	const char *src = env_or("top_srcdir", ".");
	char cmd[3 * PATH_MAX];

	if (geteuid() != 0 || system("command -v losetup >/dev/null && command -v xz >/dev/null"))
		return;
	if (!mkdtemp(loop_dir))
		return;
	have_loop_dir = true;
	for (size_t i = 0; i < ARRAY_SIZE(loops); i++) {
		struct loop *l = &loops[i];

		(void)snprintf(l->img, sizeof(l->img), "%s/%zu.img", loop_dir, i);
		if (l->fixture) {
			(void)snprintf(cmd, sizeof(cmd),
				       "xz -dc '%s/tests/fixtures/%s.img.xz' | "
				       "dd of='%s' bs=64k conv=sparse status=none",
				       src, l->fixture, l->img);
			if (system(cmd) != 0)
				continue;
		} else {
			uint8_t *img = make_image(&L_TAIL);

			write_file(l->img, img, L_TAIL.size);
			free(img);
		}
		(void)snprintf(cmd, sizeof(cmd), "losetup -f --show -r -b %u '%s' 2>/dev/null",
			       l->lbs, l->img);
		first_line(cmd, l->dev, sizeof(l->dev));
		if (l->dev[0])
			have_loops = true;
	}
}

static void loops_teardown(void)
{
	char cmd[PATH_MAX + 64];

	for (size_t i = 0; i < ARRAY_SIZE(loops); i++) {
		if (!loops[i].dev[0])
			continue;
		(void)snprintf(cmd, sizeof(cmd), "losetup -d '%s'", loops[i].dev);
		(void)system(cmd);
	}
	if (have_loop_dir) {
		(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", loop_dir);
		(void)system(cmd);
	}
}

/* pvscan-fast --dump --json of dev, into a malloc'ed string (NULL when it cannot run). */
static char *dump_json(const char *dev)
{
	const char *build = env_or("top_builddir", ".");
	char cmd[2 * PATH_MAX], bin[PATH_MAX];
	char *out = malloc(OUTPUT_MAX);
	size_t len = 0, n;
	FILE *f;

	ck_assert_ptr_nonnull(out);
	(void)snprintf(bin, sizeof(bin), "%s/pvscan-fast/pvscan-fast", build);
	if (access(bin, X_OK) != 0) {
		free(out);
		return NULL;
	}
	(void)snprintf(cmd, sizeof(cmd), "'%s' --dump --json '%s' 2>/dev/null", bin, dev);
	f = popen(cmd, "re");
	ck_assert_ptr_nonnull(f);
	while ((n = fread(out + len, 1, OUTPUT_MAX - 1 - len, f)) > 0)
		len += n;
	out[len] = '\0';
	(void)pclose(f);
	return out;
}

START_TEST(test_loop_devices)
{
	enum { N = ARRAY_SIZE(loops) };
	struct pf_aio_target t[N];
	struct pf_probe p[N];
	struct pf_aio_stats st;
	size_t n = 0, idx[N];
	char want[256];

	if (!have_loops) {
		fprintf(stderr, "SKIP test_loop_devices: needs root, losetup and xz\n");
		return;
	}
	for (size_t i = 0; i < N; i++) {
		if (!loops[i].dev[0])
			continue;
		ck_assert_int_eq(pf_aio_open(loops[i].dev, &t[n].fd, &t[n].direct, &t[n].lbs,
					     &t[n].size_bytes),
				 0);
		ck_assert(t[n].direct);
		ck_assert_uint_eq(t[n].lbs, loops[i].lbs);
		t[n].probe = &p[n];
		pf_probe_init(&p[n], t[n].size_bytes);
		idx[n++] = i;
	}
	/* All at once, through a real libaio context. */
	ck_assert_int_eq(pf_aio_scan(t, n, NULL, &st), 0);
	ck_assert_uint_eq(st.depth, n);
	for (size_t k = 0; k < n; k++) {
		const struct loop *l = &loops[idx[k]];
		const struct pf_vg *vg = pf_probe_vg(&p[k]);
		char *json;

		ck_assert_int_eq(t[k].status, 0);
		ck_assert_uint_ge(t[k].n_reads, 1);
		if (!l->fixture) {
			/* Its text runs into the partial last 4 KiB block: unreadable. */
			ck_assert_int_eq(p[k].label_status, 0);
			ck_assert_int_lt(p[k].mdas[0].text_status, 0);
			ck_assert_ptr_null(vg);
			continue;
		}
		ck_assert_msg(p[k].label_status == 0, "%s: label %d", l->fixture,
			      p[k].label_status);
		if (!l->vg) {
			ck_assert_ptr_null(vg);
		} else {
			ck_assert_msg(vg, "%s (%u): no VG; label %d mda1 %d/%d/%d", l->fixture,
				      l->lbs, p[k].label_status, p[k].mdas[0].header_status,
				      p[k].mdas[0].text_status, p[k].mdas[0].vg_status);
			ck_assert_str_eq(vg->name, l->vg);
		}
		assert_same_as_pread(l->dev, &p[k]);
		json = dump_json(l->dev);
		if (!json)
			continue;
		(void)snprintf(want, sizeof(want), "\"pvid\": \"%s\"", p[k].label.pvid);
		ck_assert_msg(strstr(json, want), "%s: no %s", l->dev, want);
		if (vg) {
			(void)snprintf(want, sizeof(want), "\"vg_name\": \"%s\"", vg->name);
			ck_assert_msg(strstr(json, want), "%s: no %s", l->dev, want);
			(void)snprintf(want, sizeof(want), "\"vg_seqno\": %u,", vg->seqno);
			ck_assert_msg(strstr(json, want), "%s: no %s", l->dev, want);
		}
		free(json);
	}
	for (size_t k = 0; k < n; k++) {
		pf_probe_release(&p[k]);
		(void)close(t[k].fd);
	}
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("aio");
	TCase *tc = pf_unit_tcase("scan");
	TCase *tf = pf_unit_tcase("libaio files");
	TCase *tl = pf_unit_tcase("libaio loop devices");

	tcase_add_test(tc, test_window_refills);
	tcase_add_test(tc, test_many_pvs_out_of_order);
	tcase_add_test(tc, test_default_depth);
	tcase_add_loop_test(tc, test_reads_per_layout, 0, ARRAY_SIZE(read_cases));
	tcase_add_test(tc, test_first_read_option);
	tcase_add_loop_test(tc, test_eio_each_step, 0, ARRAY_SIZE(eio_cases));
	tcase_add_test(tc, test_short_reads);
	tcase_add_test(tc, test_timeout_others_finish);
	tcase_add_test(tc, test_late_harvest_not_timeout);
	tcase_add_test(tc, test_timeout_text_step);
	tcase_add_test(tc, test_stuck_slots_exhausted);
	tcase_add_test(tc, test_backend_keeps_stuck_slots);
	tcase_add_test(tc, test_memory_cap);
	tcase_add_test(tc, test_eagain_eintr_partial);
	tcase_add_test(tc, test_submit_refused);
	tcase_add_test(tc, test_tiny_devices);
	tcase_add_test(tc, test_partial_last_block);
	tcase_add_test(tc, test_bad_arguments);
	tcase_add_test(tc, test_raise_nofile);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(tf, dir_setup, dir_teardown);
	tcase_add_test(tf, test_libaio_files);
	tcase_add_test(tf, test_open);
	suite_add_tcase(s, tf);

	tcase_add_unchecked_fixture(tl, loops_setup, loops_teardown);
	tcase_add_test(tl, test_loop_devices);
	suite_add_tcase(s, tl);
	return s;
}

PF_UNIT_MAIN()
