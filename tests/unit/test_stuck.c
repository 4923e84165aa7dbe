/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The devices a live reader is stuck on: keys, one scan's locked file, what later scans load. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "io/stuck.h"
#include "unit.h"

static char dir[] = "/tmp/pf-stuck-XXXXXX";
static char sub[sizeof(dir) + 16];

static void setup(void)
{
	ck_assert_ptr_nonnull(mkdtemp(dir));
	(void)snprintf(sub, sizeof(sub), "%s/readers", dir);
}

static void teardown(void)
{
	char cmd[sizeof(dir) + 16];

	(void)snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

static size_t count_files(void)
{
	char cmd[sizeof(sub) + 32];
	FILE *f;
	size_t n = 0;

	(void)snprintf(cmd, sizeof(cmd), "ls -A %s | wc -l", sub);
	f = popen(cmd, "r");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fscanf(f, "%zu", &n), 1);
	(void)pclose(f);
	return n;
}

static void touch(const char *name, const char *text)
{
	char path[sizeof(sub) + 64];
	FILE *f;

	(void)snprintf(path, sizeof(path), "%s/%s", sub, name);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	(void)fputs(text, f);
	(void)fclose(f);
}

START_TEST(test_key_of)
{
	char a[sizeof(dir) + 8], b[sizeof(dir) + 8], c[sizeof(dir) + 8];
	struct pf_stuck_key ka, kb, kc, kn;
	int fd;

	(void)snprintf(a, sizeof(a), "%s/a", dir);
	(void)snprintf(b, sizeof(b), "%s/b", dir);
	(void)snprintf(c, sizeof(c), "%s/c", dir);
	fd = open(a, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	(void)close(fd);
	ck_assert_int_eq(symlink(a, b), 0);
	fd = open(c, O_CREAT | O_WRONLY, 0600);
	ck_assert_int_ge(fd, 0);
	(void)close(fd);
	ck_assert_int_eq(pf_stuck_key_of(a, &ka), 0);
	ck_assert_int_eq(pf_stuck_key_of(b, &kb), 0);
	ck_assert_int_eq(pf_stuck_key_of(c, &kc), 0);
	ck_assert(!ka.blk);
	/* another name of the same thing is the same device */
	ck_assert_ptr_eq(pf_stuck_find(&ka, 1, &kb), &ka);
	ck_assert_ptr_null(pf_stuck_find(&ka, 1, &kc));
	ck_assert_ptr_null(pf_stuck_find(NULL, 0, &kc));
	ck_assert_int_eq(pf_stuck_key_of("/nonexistent/x", &kn), -ENOENT);
}
END_TEST

/* A scan whose reader gave up on nothing leaves no file behind. */
START_TEST(test_nothing_noted)
{
	struct pf_stuck_file f;
	struct pf_stuck_key *keys = NULL;
	size_t n = 1;

	ck_assert_int_eq(pf_stuck_load(sub, &keys, &n), 0); /* no directory yet */
	ck_assert_uint_eq(n, 0);
	ck_assert_int_eq(pf_stuck_begin(sub, &f), 0);
	ck_assert_int_ge(f.fd, 0);
	ck_assert_uint_eq(count_files(), 1);
	pf_stuck_end(&f);
	ck_assert_int_eq(f.fd, -1);
	ck_assert_uint_eq(count_files(), 0);
}
END_TEST

/*
 * The file's lock goes with whoever inherited it (the reader): while that one lives, later
 * loads see the devices noted; once it is gone, its file goes at the next load.
 */
START_TEST(test_held_by_reader)
{
	struct pf_stuck_key k1 = { .blk = true, .a = 8, .b = 16 };
	struct pf_stuck_key k2 = { .a = 42, .b = 4242 };
	struct pf_stuck_key *keys = NULL;
	struct pf_stuck_file f;
	size_t n = 0;
	int pipefd[2], st;
	char c;
	pid_t pid;
	time_t t0 = time(NULL);

	ck_assert_int_eq(pipe(pipefd), 0);
	ck_assert_int_eq(pf_stuck_begin(sub, &f), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		/* the reader: holds f.fd until told to go */
		(void)close(pipefd[1]);
		(void)read(pipefd[0], &c, 1);
		_exit(0);
	}
	(void)close(pipefd[0]);
	ck_assert_int_eq(pf_stuck_note(&f, &k1), 0);
	ck_assert_int_eq(pf_stuck_note(&f, &k2), 0);
	pf_stuck_end(&f);
	ck_assert_uint_eq(count_files(), 1);

	ck_assert_int_eq(pf_stuck_load(sub, &keys, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_ptr_nonnull(pf_stuck_find(keys, n, &k1));
	ck_assert_ptr_nonnull(pf_stuck_find(keys, n, &k2));
	ck_assert(pf_stuck_find(keys, n, &k1)->blk);
	ck_assert_int_ge(pf_stuck_find(keys, n, &k1)->since, t0);
	free(keys);
	keys = NULL;

	ck_assert_int_eq(write(pipefd[1], "x", 1), 1);
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	(void)close(pipefd[1]);
	ck_assert_int_eq(pf_stuck_load(sub, &keys, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_uint_eq(count_files(), 0);
	free(keys);
}
END_TEST

/* What else may lie in the directory costs nothing and hides nothing. */
START_TEST(test_crafted_dir)
{
	struct pf_stuck_key want = { .blk = true, .a = 253, .b = 7 };
	struct pf_stuck_key *keys = NULL;
	struct pf_stuck_file f;
	size_t n = 0;
	int holder;

	ck_assert_int_eq(mkdir(sub, 0700), 0);
	touch("r-unlocked", "b 8 0 1\n");	     /* nobody holds it: removed */
	touch("other", "b 8 1 1\n");		     /* not a reader's: ignored, kept */
	touch(".new-abcdef", "b 8 2 1\n");	     /* being made: ignored, kept */
	ck_assert_int_eq(pf_stuck_begin(sub, &f), 0);
	holder = dup(f.fd);
	ck_assert_int_eq(pf_stuck_note(&f, &want), 0);
	ck_assert_int_eq(write(f.fd, "x 1 2 3\nb 1\nb 1 2 3 4\nb 9 9 9", 30), 30);
	pf_stuck_end(&f); /* holder keeps the lock, as a reader would */
	ck_assert_int_eq(pf_stuck_load(sub, &keys, &n), 0);
	/* garbage lines and the unfinished last one are passed over */
	ck_assert_uint_eq(n, 1);
	ck_assert_ptr_nonnull(pf_stuck_find(keys, n, &want));
	ck_assert_uint_eq(count_files(), 3);
	free(keys);
	(void)close(holder);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("stuck");
	TCase *tc = pf_unit_tcase("stuck");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_key_of);
	tcase_add_test(tc, test_nothing_noted);
	tcase_add_test(tc, test_held_by_reader);
	tcase_add_test(tc, test_crafted_dir);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
