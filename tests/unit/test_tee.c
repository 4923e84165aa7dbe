/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The tee: what it records of a scan, replayed into fresh probes, gives
 * exactly what the in-process async scan gives (every fake-backend scenario,
 * recorded into a memfd, no fork), whatever the cuts in the stream; its
 * arguments are refused as the scan refuses them.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "io/aio.h"
#include "io/tee.h"
#include "scanrig.h"
#include "unit.h"

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
	s = rig_record(&rec, &len);
	/* The recorder's own probes were fed by the scan: the same as in process. */
	for (size_t i = 0; i < ref.n; i++)
		same_target(i, &ref.t[i], &rec.t[i]);

	for (size_t c = 0; c < ARRAY_SIZE(chunks); c++) {
		struct pf_aio_target *t;
		struct pf_probe *p;
		struct pf_aio_stats stats;

		if (chunks[c] == 1 && len > 64 * KIB)
			continue; /* byte by byte: small streams are enough */
		ck_assert_int_eq(rig_replay(&rec, s, len, chunks[c], &t, &p, &stats), ref_r);
		for (size_t i = 0; i < ref.n; i++)
			same_target(i, &ref.t[i], &t[i]);
		same_stats(&ref.stats, &stats);
		rig_free_copy(rec.n, t, p);
	}
	free(s);
	rig_free(&ref);
	rig_free(&rec);
	free(im.img);
}
END_TEST

START_TEST(test_record_arguments)
{
	struct pf_aio_target t[2] = { { .fd = 1000, .size_bytes = 4096, .lbs = 512 },
				      { .fd = 1000, .size_bytes = 4096, .lbs = 512 } };
	struct pf_probe p[2];
	int fd = memfd_create("tee-test", MFD_CLOEXEC);
	struct stat st;

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pf_tee_record(t, 1, NULL, fd), -EINVAL); /* no probe */
	ck_assert_int_eq(pf_tee_record(NULL, 1, NULL, fd), -EINVAL);
	ck_assert_int_eq(pf_tee_record(t, PF_AIO_TARGETS_MAX + 1, NULL, fd), -E2BIG);
	pf_probe_init(&p[0], 4096);
	pf_probe_init(&p[1], 4096);
	t[0].probe = &p[0];
	t[1].probe = &p[1];
	/* Completions of two targets on one descriptor could not be told apart. */
	ck_assert_int_eq(pf_tee_record(t, 2, NULL, fd), -EINVAL);
	ck_assert_int_eq(fstat(fd, &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	(void)close(fd);
	pf_probe_release(&p[0]);
	pf_probe_release(&p[1]);
}
END_TEST

/* Nobody listens: the write's error is the result. */
START_TEST(test_record_write_error)
{
	uint8_t *img = make_image(&L_BASIC);
	struct rig r;
	int p[2];

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	(void)close(p[0]);
	(void)signal(SIGPIPE, SIG_IGN);
	rig_init(&r, 3, 3, img, L_BASIC.size);
	ck_assert_int_eq(pf_tee_record(r.t, r.n, &r.opts, p[1]), -EPIPE);
	(void)close(p[1]);
	rig_free(&r);
	free(img);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("tee");
	TCase *tc = pf_unit_tcase("record");

	tcase_add_loop_test(tc, test_record_replay_matches_scan, 0, (int)n_scenarios);
	tcase_add_test(tc, test_record_arguments);
	tcase_add_test(tc, test_record_write_error);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
