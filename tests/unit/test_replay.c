/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The replay: malformed records and records out of order stop the stream or
 * fail their device alone, and a stream cut anywhere fails the devices
 * without an end record, never the caller.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/span.h"
#include "io/record.h"
#include "io/replay.h"
#include "scanrig.h"
#include "unit.h"

struct hdr {
	uint32_t magic, type, dev, len;
	int64_t val;
	uint64_t off;
};

/* Any header, even one the format would refuse: the layout spelt out, not record.c's. */
static void put_hdr(uint8_t *b, const struct hdr *h)
{
	pf_put_le32(b, h->magic);
	pf_put_le32(b + 4, h->type);
	pf_put_le32(b + 8, h->dev);
	pf_put_le32(b + 12, h->len);
	pf_put_le64(b + 16, (uint64_t)h->val);
	pf_put_le64(b + 24, h->off);
}

static size_t put_rec(uint8_t *b, const struct hdr *h, const void *payload)
{
	put_hdr(b, h);
	if (payload && h->len)
		memcpy(b + 32, payload, h->len);
	return 32 + h->len;
}

#define MAGIC 0x44524650U
enum { T_FEED = 1, T_FAIL, T_END, T_TICK, T_DONE, T_OPEN };

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
	{ "feed too long", { MAGIC, T_FEED, 0, (uint32_t)PF_REC_FEED_MAX + 1, 0, 0 }, 0 },
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
	/* opens come before the scan's records and are taken by the reader, never here */
	{ "open", { MAGIC, T_OPEN, 0, 16, 0, 0 }, 16 },
};

/* Two blank 1 MiB devices. */
static void blank_rig(struct rig *r)
{
	rig_init(r, 2, 2, NULL, MIB);
}

START_TEST(test_bad_record)
{
	uint8_t payload[64 + PF_DIAG_MSG_MAX] = { 0 }, buf[128 + PF_DIAG_MSG_MAX];
	struct pf_replay *rp = NULL;
	struct rig r;
	size_t len;

	blank_rig(&r);
	ck_assert_int_eq(pf_replay_new(r.t, r.n, &rp), 0);
	len = 32;
	put_hdr(buf, &bad_records[_i].h);
	memcpy(buf + 32, payload, bad_records[_i].payload_len);
	len += bad_records[_i].payload_len;
	ck_assert_msg(pf_replay_push(rp, buf, len) == -EBADMSG, "%s accepted",
		      bad_records[_i].name);
	/* Nothing more is taken; every device fails with the caller's reason. */
	ck_assert_int_eq(pf_replay_push(rp, buf, 1), -EBADMSG);
	ck_assert(!pf_replay_complete(rp));
	ck_assert_int_eq(pf_replay_finish(rp, -EPROTO, "bad", NULL), 0);
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_int_eq(r.t[i].status, -EPROTO);
		ck_assert_str_eq(r.t[i].diag.msg, "bad, waiting for byte 0: device left out");
	}
	pf_replay_free(rp);
	rig_free(&r);
}
END_TEST

START_TEST(test_stream_order)
{
	uint8_t end[40] = { 0 }, done[56] = { 0 }, buf[1024], zeros[8192] = { 0 };
	struct pf_replay *rp = NULL;
	struct rig r;
	size_t len = 0;

	/* Device 0 ended, then a feed for it: the stream is not to be trusted. */
	blank_rig(&r);
	ck_assert_int_eq(pf_replay_new(r.t, r.n, &rp), 0);
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_END, 0, 40, -EIO, 0 }, end);
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_FAIL, 0, 0, -EIO, 0 }, NULL);
	ck_assert_int_eq(pf_replay_push(rp, buf, len), -EBADMSG);
	ck_assert_int_eq(r.t[0].status, -EIO);
	pf_replay_free(rp);
	rig_free(&r);

	/* Anything after the end record. */
	blank_rig(&r);
	ck_assert_int_eq(pf_replay_new(r.t, r.n, &rp), 0);
	len = put_rec(buf, &(struct hdr){ MAGIC, T_DONE, 0, 56, -ENOSYS, 0 }, done);
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_TICK, 0, 0, 0, 0 }, NULL);
	ck_assert_int_eq(pf_replay_push(rp, buf, len), -EBADMSG);
	ck_assert(pf_replay_complete(rp));
	ck_assert_int_eq(pf_replay_finish(rp, -EPIPE, "gone", NULL), -ENOSYS);
	pf_replay_free(rp);
	rig_free(&r);

	/*
	 * A feed at the wrong offset, then one longer than asked: those devices
	 * alone fail, their later records are ignored; the stream goes on.
	 */
	rig_init(&r, 3, 3, NULL, MIB);
	ck_assert_int_eq(pf_replay_new(r.t, r.n, &rp), 0);
	ck_assert_int_eq(pf_replay_push(rp, buf,
					       put_rec(buf, &(struct hdr){ MAGIC, T_FEED, 0, 16, 0,
									  512 },
						       zeros)),
			 0);
	{
		uint8_t *big = calloc(1, 32 + 4609);

		ck_assert_ptr_nonnull(big);
		len = put_rec(big, &(struct hdr){ MAGIC, T_FEED, 1, 4609, 0, 0 }, zeros);
		ck_assert_int_eq(pf_replay_push(rp, big, len), 0);
		free(big);
	}
	len = put_rec(buf, &(struct hdr){ MAGIC, T_FAIL, 0, 0, -EIO, 0 }, NULL);
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_END, 0, 40, 0, 0 }, end);
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_FAIL, 2, 0, -EIO, 0 }, NULL);
	/* A fail for a probe that is done already does not fit either. */
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_FAIL, 2, 0, -EIO, 0 }, NULL);
	len += put_rec(buf + len, &(struct hdr){ MAGIC, T_DONE, 0, 56, 0, 0 }, done);
	ck_assert_int_eq(pf_replay_push(rp, buf, len), 0);
	ck_assert_int_eq(pf_replay_finish(rp, -EPIPE, "gone", NULL), 0);
	ck_assert_int_eq(r.t[0].status, -EPROTO);
	ck_assert_ptr_nonnull(strstr(r.t[0].diag.msg, "does not fit its probe at byte 512"));
	ck_assert_int_eq(r.t[1].status, -EPROTO);
	ck_assert_int_eq(r.t[2].status, -EPROTO);
	ck_assert_int_eq(r.p[2].label_status, -EIO);
	pf_replay_free(rp);
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
	s = rig_record(&rec, &len);
	step = len / 97 ? len / 97 : 1;
	for (size_t cut = 0; cut < len; cut += step) {
		struct pf_replay *rp = NULL;
		struct pf_aio_target *t;
		struct pf_probe *p;
		struct pf_aio_stats stats;

		rig_fresh_copy(&rec, &t, &p);
		ck_assert_int_eq(pf_replay_new(t, rec.n, &rp), 0);
		ck_assert_int_eq(pf_replay_push(rp, s, cut), 0);
		ck_assert(!pf_replay_complete(rp));
		ck_assert_int_eq(pf_replay_finish(rp, -EPIPE, "it died", &stats), 0);
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
		pf_replay_free(rp);
		rig_free_copy(rec.n, t, p);
	}
	free(s);
	rig_free(&rec);
	free(img);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("replay");
	TCase *tc = pf_unit_tcase("streams");

	tcase_add_loop_test(tc, test_bad_record, 0, (int)ARRAY_SIZE(bad_records));
	tcase_add_test(tc, test_stream_order);
	tcase_add_test(tc, test_truncated_stream);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
