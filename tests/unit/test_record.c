/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The record format: headers, END, DONE and OPEN records read back as
 * written, and every header or payload that cannot be is refused.
 */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "base/span.h"
#include "io/record.h"
#include "unit.h"

START_TEST(test_header_round_trip)
{
	const struct pf_rec in[] = {
		{ .type = PF_REC_FEED, .dev = 2, .len = 4096, .off = 1ULL << 40 },
		{ .type = PF_REC_FEED, .dev = 0, .len = (uint32_t)PF_REC_FEED_MAX, .off = 0 },
		{ .type = PF_REC_FAIL, .dev = 1, .val = -EIO },
		{ .type = PF_REC_FAIL, .dev = 1, .val = -ERRNO_MAX },
		{ .type = PF_REC_END, .dev = 2, .len = PF_REC_END_FIXED, .val = -ETIMEDOUT },
		{ .type = PF_REC_END, .dev = 0, .len = PF_REC_END_MAX, .val = 0 },
		{ .type = PF_REC_TICK },
		{ .type = PF_REC_DONE, .len = PF_REC_DONE_LEN, .val = -ENOSYS },
		{ .type = PF_REC_DONE, .dev = 99, .len = PF_REC_DONE_LEN }, /* dev: unused */
		{ .type = PF_REC_OPEN, .dev = 2, .len = PF_REC_OPEN_LEN },
		{ .type = PF_REC_OPEN, .dev = 0, .len = PF_REC_OPEN_LEN, .val = -ENOENT },
	};
	uint8_t b[PF_REC_HDR];

	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		struct pf_rec out;

		memset(&out, 0xa5, sizeof(out));
		pf_rec_put(b, &in[i]);
		ck_assert_uint_eq(b[0], 'P'); /* "PFRD" */
		ck_assert_msg(pf_rec_get(pf_span_make(b, sizeof(b)), 3, &out) == 0, "record %zu",
			      i);
		ck_assert_uint_eq(out.type, in[i].type);
		ck_assert_uint_eq(out.dev, in[i].dev);
		ck_assert_uint_eq(out.len, in[i].len);
		ck_assert_int_eq(out.val, in[i].val);
		ck_assert_uint_eq(out.off, in[i].off);
	}
}
END_TEST

START_TEST(test_header_refused)
{
	const struct pf_rec bad[] = {
		{ .type = 0 },
		{ .type = PF_REC_OPEN + 1, .len = 0 },
		{ .type = PF_REC_OPEN, .dev = 3, .len = PF_REC_OPEN_LEN },
		{ .type = PF_REC_OPEN, .len = PF_REC_OPEN_LEN - 1 },
		{ .type = PF_REC_OPEN, .len = PF_REC_OPEN_LEN, .val = 5 },
		{ .type = PF_REC_FEED, .dev = 3 },
		{ .type = PF_REC_FAIL, .dev = 3, .val = -EIO },
		{ .type = PF_REC_END, .dev = 3, .len = PF_REC_END_FIXED },
		{ .type = PF_REC_FEED, .len = (uint32_t)PF_REC_FEED_MAX + 1 },
		{ .type = PF_REC_FAIL, .val = 0 },
		{ .type = PF_REC_FAIL, .val = -ERRNO_MAX - 1 },
		{ .type = PF_REC_FAIL, .len = 1, .val = -EIO },
		{ .type = PF_REC_END, .len = PF_REC_END_FIXED - 1 },
		{ .type = PF_REC_END, .len = PF_REC_END_MAX + 1 },
		{ .type = PF_REC_END, .len = PF_REC_END_FIXED, .val = 1 },
		{ .type = PF_REC_TICK, .len = 1 },
		{ .type = PF_REC_DONE, .len = PF_REC_DONE_LEN + 1 },
		{ .type = PF_REC_DONE, .len = PF_REC_DONE_LEN - 1 },
		{ .type = PF_REC_DONE, .len = PF_REC_DONE_LEN, .val = 3 },
	};
	uint8_t b[PF_REC_HDR];
	struct pf_rec out;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		pf_rec_put(b, &bad[i]);
		ck_assert_msg(pf_rec_get(pf_span_make(b, sizeof(b)), 3, &out) == -EBADMSG,
			      "record %zu accepted", i);
	}
	/* A short header, and one without the magic. */
	pf_rec_put(b, &(struct pf_rec){ .type = PF_REC_TICK });
	ck_assert_int_eq(pf_rec_get(pf_span_make(b, PF_REC_HDR - 1), 3, &out), -EBADMSG);
	b[3] ^= 1;
	ck_assert_int_eq(pf_rec_get(pf_span_make(b, PF_REC_HDR), 3, &out), -EBADMSG);
}
END_TEST

START_TEST(test_per_dev)
{
	ck_assert(pf_rec_per_dev(PF_REC_FEED));
	ck_assert(pf_rec_per_dev(PF_REC_FAIL));
	ck_assert(pf_rec_per_dev(PF_REC_END));
	ck_assert(pf_rec_per_dev(PF_REC_OPEN));
	ck_assert(!pf_rec_per_dev(PF_REC_TICK));
	ck_assert(!pf_rec_per_dev(PF_REC_DONE));
	ck_assert(!pf_rec_per_dev(0));
}
END_TEST

START_TEST(test_end_round_trip)
{
	uint8_t h[PF_REC_HDR], p[PF_REC_END_MAX];
	struct pf_diag d = { 0 };
	struct pf_rec hdr;
	struct pf_rec_end e;
	size_t len;

	pf_diag_at(&d, 4096, "no answer within %u ms", 30000U);
	d.line = 7;
	d.col = 9;
	len = pf_rec_put_end(h, p, 1, -ETIMEDOUT, 135168, 3, &d);
	ck_assert_uint_eq(len, PF_REC_END_FIXED + strlen(d.msg));
	ck_assert_int_eq(pf_rec_get(pf_span_make(h, sizeof(h)), 2, &hdr), 0);
	ck_assert_uint_eq(hdr.type, PF_REC_END);
	ck_assert_uint_eq(hdr.dev, 1);
	ck_assert_uint_eq(hdr.len, len);
	ck_assert_int_eq(pf_rec_get_end(&hdr, pf_span_make(p, len), &e), 0);
	ck_assert_int_eq(e.status, -ETIMEDOUT);
	ck_assert_uint_eq(e.bytes_read, 135168);
	ck_assert_uint_eq(e.n_reads, 3);
	ck_assert(e.diag.has_offset);
	ck_assert_uint_eq(e.diag.offset, 4096);
	ck_assert_uint_eq(e.diag.line, 7);
	ck_assert_uint_eq(e.diag.col, 9);
	ck_assert_str_eq(e.diag.msg, d.msg);

	/* Nothing to say. */
	len = pf_rec_put_end(h, p, 0, 0, 0, 0, NULL);
	ck_assert_uint_eq(len, PF_REC_END_FIXED);
	ck_assert_int_eq(pf_rec_get(pf_span_make(h, sizeof(h)), 2, &hdr), 0);
	ck_assert_int_eq(pf_rec_get_end(&hdr, pf_span_make(p, len), &e), 0);
	ck_assert_int_eq(e.status, 0);
	ck_assert(!e.diag.has_offset);
	ck_assert_str_eq(e.diag.msg, "");

	/* The longest message there is fits whole. */
	memset(d.msg, 'x', sizeof(d.msg) - 1);
	d.msg[sizeof(d.msg) - 1] = '\0';
	len = pf_rec_put_end(h, p, 0, -EIO, 1, 1, &d);
	ck_assert_uint_eq(len, PF_REC_END_MAX);
	ck_assert_int_eq(pf_rec_get(pf_span_make(h, sizeof(h)), 2, &hdr), 0);
	ck_assert_int_eq(pf_rec_get_end(&hdr, pf_span_make(p, len), &e), 0);
	ck_assert_str_eq(e.diag.msg, d.msg);
}
END_TEST

START_TEST(test_end_refused)
{
	uint8_t h[PF_REC_HDR], p[PF_REC_END_MAX];
	struct pf_diag d = { 0 };
	struct pf_rec hdr;
	struct pf_rec_end e;
	size_t len;

	pf_diag_msg(&d, "short");
	len = pf_rec_put_end(h, p, 0, -EIO, 0, 0, &d);
	ck_assert_int_eq(pf_rec_get(pf_span_make(h, sizeof(h)), 1, &hdr), 0);
	/* Not the length the header says. */
	ck_assert_int_eq(pf_rec_get_end(&hdr, pf_span_make(p, len - 1), &e), -EBADMSG);
	/* A message length inside that disagrees with it. */
	pf_put_le32(p + 32, 4);
	ck_assert_int_eq(pf_rec_get_end(&hdr, pf_span_make(p, len), &e), -EBADMSG);
}
END_TEST

START_TEST(test_done_round_trip)
{
	const struct pf_aio_stats in = {
		.depth = 256,
		.max_in_flight = 200,
		.n_reads = 1ULL << 33,
		.bytes_read = 1ULL << 45,
		.n_submit_calls = 17,
		.n_wait_calls = 19,
		.n_timeouts = 2,
		.mem_peak_bytes = 64ULL << 20,
	};
	uint8_t h[PF_REC_HDR], p[PF_REC_DONE_LEN];
	struct pf_aio_stats out;
	struct pf_rec hdr;

	pf_rec_put_done(h, p, -ENOSYS, &in);
	ck_assert_int_eq(pf_rec_get(pf_span_make(h, sizeof(h)), 0, &hdr), 0);
	ck_assert_uint_eq(hdr.type, PF_REC_DONE);
	ck_assert_int_eq(hdr.val, -ENOSYS);
	ck_assert_int_eq(pf_rec_get_done(pf_span_make(p, sizeof(p)), &out), 0);
	ck_assert_uint_eq(out.depth, in.depth);
	ck_assert_uint_eq(out.max_in_flight, in.max_in_flight);
	ck_assert_uint_eq(out.n_reads, in.n_reads);
	ck_assert_uint_eq(out.bytes_read, in.bytes_read);
	ck_assert_uint_eq(out.n_submit_calls, in.n_submit_calls);
	ck_assert_uint_eq(out.n_wait_calls, in.n_wait_calls);
	ck_assert_uint_eq(out.n_timeouts, in.n_timeouts);
	ck_assert_uint_eq(out.mem_peak_bytes, in.mem_peak_bytes);
	ck_assert_int_eq(pf_rec_get_done(pf_span_make(p, sizeof(p) - 1), &out), -EBADMSG);
}
END_TEST

START_TEST(test_open_round_trip)
{
	const struct pf_rec_open in[] = {
		{ .size_bytes = 1ULL << 40, .lbs = 4096, .direct = true },
		{ .size_bytes = 0, .lbs = 512 },
		{ .size_bytes = INT64_MAX, .lbs = PF_AIO_LBS_MAX, .direct = true },
		{ .err = -ENOENT },
		{ .err = -ETIMEDOUT, .hung = true },
		{ .err = -ETIMEDOUT },
		{ .err = -EBUSY, .not_tried = true },
	};
	uint8_t h[PF_REC_HDR], p[PF_REC_OPEN_LEN];

	for (size_t i = 0; i < ARRAY_SIZE(in); i++) {
		struct pf_rec hdr;
		struct pf_rec_open out;

		memset(&out, 0xa5, sizeof(out));
		pf_rec_put_open(h, p, 1, &in[i]);
		ck_assert_int_eq(pf_rec_get(pf_span_make(h, sizeof(h)), 2, &hdr), 0);
		ck_assert_uint_eq(hdr.type, PF_REC_OPEN);
		ck_assert_uint_eq(hdr.dev, 1);
		ck_assert_msg(pf_rec_get_open(&hdr, pf_span_make(p, sizeof(p)), &out) == 0,
			      "record %zu", i);
		ck_assert_int_eq(out.err, in[i].err);
		ck_assert(out.hung == in[i].hung);
		ck_assert(out.not_tried == in[i].not_tried);
		ck_assert(out.direct == in[i].direct);
		ck_assert_uint_eq(out.lbs, in[i].lbs);
		ck_assert_uint_eq(out.size_bytes, in[i].size_bytes);
	}
}
END_TEST

/* Patch one payload field of an OPEN record: offset, width, value. */
struct open_patch {
	int err;
	size_t off, width;
	uint64_t val;
};

START_TEST(test_open_refused)
{
	static const struct open_patch bad[] = {
		{ 0, 0, 8, (uint64_t)INT64_MAX + 1 }, /* size */
		{ 0, 8, 4, 0 },			      /* block size */
		{ 0, 8, 4, 256 },
		{ 0, 8, 4, 1000 },
		{ 0, 8, 4, 2 * PF_AIO_LBS_MAX },
		{ 0, 12, 4, 8 },		   /* unknown flag */
		{ -EIO, 12, 4, PF_REC_OPEN_NOT_TRIED },
		{ -EIO, 12, 4, PF_REC_OPEN_HUNG }, /* hung, but not a timeout */
		{ 0, 12, 4, PF_REC_OPEN_HUNG },
	};
	uint8_t h[PF_REC_HDR], p[PF_REC_OPEN_LEN];
	struct pf_rec hdr;
	struct pf_rec_open out;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		pf_rec_put_open(h, p, 0,
				&(struct pf_rec_open){ .err = bad[i].err, .size_bytes = 4096,
						       .lbs = 512 });
		ck_assert_int_eq(pf_rec_get(pf_span_make(h, sizeof(h)), 1, &hdr), 0);
		if (bad[i].width == 8)
			pf_put_le64(p + bad[i].off, bad[i].val);
		else
			pf_put_le32(p + bad[i].off, (uint32_t)bad[i].val);
		ck_assert_msg(pf_rec_get_open(&hdr, pf_span_make(p, sizeof(p)), &out) == -EBADMSG,
			      "record %zu accepted", i);
	}
	/* Not the length the header says. */
	pf_rec_put_open(h, p, 0, &(struct pf_rec_open){ .size_bytes = 4096, .lbs = 512 });
	ck_assert_int_eq(pf_rec_get(pf_span_make(h, sizeof(h)), 1, &hdr), 0);
	ck_assert_int_eq(pf_rec_get_open(&hdr, pf_span_make(p, sizeof(p) - 1), &out), -EBADMSG);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("record");
	TCase *tc = pf_unit_tcase("format");

	tcase_add_test(tc, test_header_round_trip);
	tcase_add_test(tc, test_header_refused);
	tcase_add_test(tc, test_per_dev);
	tcase_add_test(tc, test_end_round_trip);
	tcase_add_test(tc, test_end_refused);
	tcase_add_test(tc, test_done_round_trip);
	tcase_add_test(tc, test_open_round_trip);
	tcase_add_test(tc, test_open_refused);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
