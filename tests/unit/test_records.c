/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The record log: lines read back as written, every malformed line refused, the file bounded. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/records.h"
#include "unit.h"

static int decode_str(const char *line, struct pf_records_entry *e)
{
	return pf_records_decode(pf_span_make(line, strlen(line)), e);
}

START_TEST(test_roundtrip)
{
	static const char *const kv[] = { "vg", "vg0", "name", "/dev/a b=c%d\ne",
					  "skip", NULL, "why", "" };
	struct pf_records_entry *e = calloc(1, sizeof(*e));
	char line[PF_RECORDS_LINE_MAX];
	int n = pf_records_encode(line, 123456, 42, "dev", kv, 4);

	ck_assert_int_gt(n, 0);
	ck_assert_str_eq(line, "pfr1 123456 42 dev vg=vg0 name=/dev/a%20b%3Dc%25d%0Ae why=\n");
	ck_assert_int_eq((int)strlen(line), n);
	line[n - 1] = '\0'; /* decode takes the line without its newline */
	ck_assert_int_eq(decode_str(line, e), 0);
	ck_assert_uint_eq(e->t_us, 123456);
	ck_assert_uint_eq(e->pid, 42);
	ck_assert_str_eq(e->kind, "dev");
	ck_assert_uint_eq(e->n_fields, 3);
	ck_assert_str_eq(pf_records_get(e, "vg"), "vg0");
	ck_assert_str_eq(pf_records_get(e, "name"), "/dev/a b=c%d\ne");
	ck_assert_str_eq(pf_records_get(e, "why"), "");
	ck_assert_ptr_null(pf_records_get(e, "skip"));
	/* a record without fields */
	ck_assert_int_gt(pf_records_encode(line, 1, 2, "rotated", NULL, 0), 0);
	ck_assert_str_eq(line, "pfr1 1 2 rotated\n");
	free(e);
}
END_TEST

START_TEST(test_encode_limits)
{
	struct pf_records_entry *e = calloc(1, sizeof(*e));
	char line[PF_RECORDS_LINE_MAX], big[4000];
	const char *kv[2 * (PF_RECORDS_FIELDS_MAX + 4)];
	int n;

	/* bad names are refused */
	ck_assert_int_eq(pf_records_encode(line, 1, 1, "Bad", NULL, 0), -EINVAL);
	ck_assert_int_eq(pf_records_encode(line, 1, 1, "", NULL, 0), -EINVAL);
	ck_assert_int_eq(pf_records_encode(line, 1, 1, "a-very-long-kind-name", NULL, 0), -EINVAL);
	kv[0] = "k y";
	kv[1] = "v";
	ck_assert_int_eq(pf_records_encode(line, 1, 1, "x", kv, 1), -EINVAL);
	/* a value past the cap is cut and marked; the line stays within its max and decodes */
	memset(big, '%', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	kv[0] = "why";
	kv[1] = big;
	n = pf_records_encode(line, 1, 1, "x", kv, 1);
	ck_assert_int_gt(n, 0);
	ck_assert_int_le(n, (int)PF_RECORDS_LINE_MAX - 1);
	line[n - 1] = '\0';
	ck_assert_int_eq(decode_str(line, e), 0);
	ck_assert_int_le((int)strlen(pf_records_get(e, "why")), (int)PF_RECORDS_VALUE_MAX);
	ck_assert(strstr(pf_records_get(e, "why"), "...") != NULL);
	/* too many fields: the ones past the max are left out */
	for (unsigned i = 0; i < PF_RECORDS_FIELDS_MAX + 4; i++) {
		kv[2 * i] = "k";
		kv[2 * i + 1] = "v";
	}
	n = pf_records_encode(line, 1, 1, "x", kv, PF_RECORDS_FIELDS_MAX + 4);
	ck_assert_int_gt(n, 0);
	line[n - 1] = '\0';
	ck_assert_int_eq(decode_str(line, e), 0);
	ck_assert_uint_eq(e->n_fields, PF_RECORDS_FIELDS_MAX);
	free(e);
}
END_TEST

START_TEST(test_decode_refused)
{
	static const char *const bad[] = {
		"",
		"pfr2 1 2 x",		       /* another version */
		"pfr1 1 2",		       /* no kind */
		"pfr1 x 2 k",		       /* time */
		"pfr1 1 4294967296 k",	       /* pid past 32 bits */
		"pfr1 1 2 K",		       /* kind */
		"pfr1 1 2 k a",		       /* field without = */
		"pfr1 1 2 k =v",	       /* empty key */
		"pfr1 1 2 k a=%4",	       /* cut escape */
		"pfr1 1 2 k a=%zz",	       /* bad escape */
		"pfr1 1 2 k a=%00",	       /* NUL */
		"pfr1 1 2 k a=\x01",	       /* control byte unescaped */
		"pfr1 1 2 k a=b ",	       /* trailing space */
		"pfr1  1 2 k",		       /* double space */
		"pfr1 1 2 k a=b=c",	       /* unescaped = */
	};
	struct pf_records_entry *e = calloc(1, sizeof(*e));

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		ck_assert_msg(decode_str(bad[i], e) == -EBADMSG, "accepted: %s", bad[i]);
	ck_assert_int_eq(decode_str("pfr1 1 2 k a=", e), 0);
	free(e);
}
END_TEST

START_TEST(test_next_torn)
{
	const char buf[] = "pfr1 1 1 a\njunk\n\npfr1 2 1 b x=1\npfr1 3 1 c y=tor";
	struct pf_span s = pf_span_make(buf, sizeof(buf) - 1);
	struct pf_records_entry *e = calloc(1, sizeof(*e));
	size_t off = 0;

	ck_assert_int_eq(pf_records_next(s, &off, e), 1);
	ck_assert_str_eq(e->kind, "a");
	ck_assert_int_eq(pf_records_next(s, &off, e), 0); /* junk */
	ck_assert_int_eq(pf_records_next(s, &off, e), 0); /* empty line */
	ck_assert_int_eq(pf_records_next(s, &off, e), 1);
	ck_assert_str_eq(pf_records_get(e, "x"), "1");
	ck_assert_int_eq(pf_records_next(s, &off, e), 0); /* torn: no newline */
	ck_assert_int_eq(pf_records_next(s, &off, e), -1);
	ck_assert_uint_eq(off, s.len);
	free(e);
}
END_TEST

static char *scratch_run(void)
{
	const char *tmp = getenv("TMPDIR");
	char tmpl[512], path[600];
	char *dir;

	(void)snprintf(tmpl, sizeof(tmpl), "%s/pf-records.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	dir = strdup(mkdtemp(tmpl));

	(void)snprintf(path, sizeof(path), "%s/pvscan-fast", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	return dir;
}

static void remove_run(char *dir)
{
	char cmd[700];

	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	ck_assert_int_eq(system(cmd), 0);
	free(dir);
}

static size_t count_good(const char *run, size_t *bad, const char *kind, size_t *n_kind)
{
	struct pf_records_entry *e = calloc(1, sizeof(*e));
	char *buf = NULL;
	size_t len, off = 0, good = 0;
	int r;

	ck_assert_int_eq(pf_records_read(run, &buf, &len), 0);
	*bad = 0;
	*n_kind = 0;
	while ((r = pf_records_next(pf_span_make(buf, len), &off, e)) >= 0) {
		if (r == 0) {
			(*bad)++;
			continue;
		}
		good++;
		*n_kind += strcmp(e->kind, kind) == 0;
	}
	free(buf);
	free(e);
	return good;
}

START_TEST(test_append_read)
{
	char *run = scratch_run();
	struct pf_records w, f;
	size_t bad, n;
	char path[512];
	int fd;

	pf_records_open(run, true, &w);
	pf_records_add(&w, "one", "vg", "vg0", NULL);
	pf_records_open(run, false, &f); /* a follower appends to the same file */
	pf_records_add(&f, "two", "dev", "8:16", NULL);
	pf_records_close(&f);
	pf_records_add(&w, "three", "skip", NULL, "b", "x", NULL);
	ck_assert_uint_eq(w.dropped, 0);
	pf_records_close(&w);
	ck_assert_uint_eq(count_good(run, &bad, "two", &n), 3);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_eq(n, 1);
	/* a writer that died mid-line: its torn line is skipped, the next writer's kept */
	(void)snprintf(path, sizeof(path), "%s/pvscan-fast/records", run);
	fd = open(path, O_WRONLY | O_APPEND);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "pfr1 9 9 vg vg=v", 16), 16);
	(void)close(fd);
	ck_assert_uint_eq(count_good(run, &bad, "two", &n), 3);
	ck_assert_uint_eq(bad, 1);
	remove_run(run);
	/* no queue directory: nothing written, nothing fails */
	pf_records_open("/nonexistent/run", true, &w);
	pf_records_add(&w, "x", NULL);
	ck_assert_uint_eq(w.dropped, 1);
	pf_records_close(&w);
}
END_TEST

START_TEST(test_rotate_and_cap)
{
	char *run = scratch_run();
	struct pf_records w, f;
	char value[400];
	size_t bad, n, good, lines = 3 * PF_RECORDS_FILE_MAX / 400;
	struct stat st;
	char path[512];

	memset(value, 'v', sizeof(value) - 1);
	value[sizeof(value) - 1] = '\0';
	/* a follower alone stops at twice the cap */
	pf_records_open(run, false, &f);
	for (size_t i = 0; i < lines; i++)
		pf_records_add(&f, "fill", "v", value, NULL);
	ck_assert_uint_gt(f.dropped, 0);
	pf_records_close(&f);
	(void)snprintf(path, sizeof(path), "%s/pvscan-fast/records", run);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_le(st.st_size, 2 * PF_RECORDS_FILE_MAX);
	/* the leader rotates: two generations at most, the newest starting with the marker */
	pf_records_open(run, true, &w);
	for (size_t i = 0; i < lines; i++)
		pf_records_add(&w, "fill", "v", value, NULL);
	pf_records_add(&w, "last", NULL);
	ck_assert_uint_eq(w.dropped, 0);
	pf_records_close(&w);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_le(st.st_size, PF_RECORDS_FILE_MAX);
	good = count_good(run, &bad, "rotated", &n);
	ck_assert_uint_eq(bad, 0);
	ck_assert_uint_ge(n, 1);
	ck_assert_uint_gt(good, 0);
	ck_assert_uint_eq(count_good(run, &bad, "last", &n), good);
	ck_assert_uint_eq(n, 1);
	remove_run(run);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("records");
	TCase *tc = pf_unit_tcase("records");

	tcase_add_test(tc, test_roundtrip);
	tcase_add_test(tc, test_encode_limits);
	tcase_add_test(tc, test_decode_refused);
	tcase_add_test(tc, test_next_torn);
	tcase_add_test(tc, test_append_read);
	tcase_add_test(tc, test_rotate_and_cap);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
