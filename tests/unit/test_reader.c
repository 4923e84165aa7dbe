/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The reader process: forked with the fake backend it gives exactly what the
 * in-process async scan gives (every fake-backend scenario); a read that
 * never completes costs its timeout, no child is left to reap, nothing of the
 * caller's is held, and a reader that dies or goes silent fails only the
 * devices it did not finish; with libaio on image files too; devices read by
 * path, as the scan and --dump read them, end up as a plain pread of each
 * gives; an open that never returns costs its timeout and fails that device
 * alone; a reader stuck on one device holds no other device open; a reader
 * that cannot be started fails the scan, and nothing is read in the caller.
 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/macro.h"
#include "build.h"
#include "format/probe.h"
#include "io/aio.h"
#include "io/backend.h"
#include "io/pvread.h"
#include "io/reader.h"
#include "io/stuck.h"
#include "scanrig.h"
#include "unit.h"

START_TEST(test_scan_arguments)
{
	struct pf_aio_target t[2] = { { .fd = 1000, .size_bytes = 4096, .lbs = 512 },
				      { .fd = 1000, .size_bytes = 4096, .lbs = 512 } };

	ck_assert_int_eq(pf_reader_scan(t, 1, NULL, NULL), -EINVAL); /* no probe */
	ck_assert_int_eq(pf_reader_scan(NULL, 1, NULL, NULL), -EINVAL);
	ck_assert_int_eq(pf_reader_scan(t, PF_AIO_TARGETS_MAX + 1, NULL, NULL), -E2BIG);
	ck_assert_int_eq(pf_reader_scan(t, 0, NULL, NULL), 0);
}
END_TEST

/* Completions are told apart by descriptor: targets sharing one are refused, not read here. */
START_TEST(test_scan_shared_fd)
{
	uint8_t *img = make_image(&L_BASIC);
	struct rig r;

	rig_init(&r, 2, 2, img, L_BASIC.size);
	r.t[1].fd = r.t[0].fd;
	ck_assert_int_eq(pf_reader_scan(r.t, r.n, &r.opts, &r.stats), -EINVAL);
	ck_assert_uint_eq(r.f->n_submit_calls, 0);
	r.t[1].fd = r.t[0].fd + 1;
	rig_free(&r);
	free(img);
}
END_TEST

/* ---- the forked reader ---- */

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
	/* Every read was made in the reader: this backend saw none. */
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
	struct rig r;

	/* The outcome, not the time: the timeout fired for that device, the others finished. */
	rig_init(&r, 101, 128, img, L_BASIC.size);
	for (size_t i = 0; i < r.n; i++)
		r.f->devs[i].delay_ms = 1 + (unsigned)(i % 3);
	r.f->devs[50].hang_from = 0;
	r.opts.timeout_ms = 200;
	ck_assert_int_eq(pf_reader_scan(r.t, r.n, &r.opts, &r.stats), 0);
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
 * A backend around the fake one, for the reader's process: it can die, go
 * silent, or check what the reader holds, and says so through what it reads.
 */
struct probe_backend {
	struct pf_io_backend b;
	struct pf_fake_backend *f;
	pid_t caller;
	enum {
		PE_PLAIN,
		PE_DIE_AT_START,
		PE_DIE_AFTER_ONE,
		PE_SILENT,
		PE_CHECK_FDS,
		PE_CHECK_CLOSED,
	} mode;
	int secret_fd;	   /* PE_CHECK_FDS: must be closed in the reader */
	size_t n_devs, stuck; /* PE_CHECK_CLOSED: device stuck must be the only one open */
	const char *report; /* PE_CHECK_CLOSED: where the reader says "closed" when it is so */
	unsigned silent_ms; /* PE_SILENT: how long the first wait sleeps */
	unsigned n_waits;
};

static struct probe_backend *to_pe(struct pf_io_backend *b)
{
	return container_of(b, struct probe_backend, b);
}

static bool in_reader(const struct probe_backend *pe)
{
	return getpid() != pe->caller;
}

/* In the reader: only the devices' descriptors (none here), the pipe, and /dev/null as 0-2. */
static bool reader_holds_nothing(const struct probe_backend *pe)
{
	struct stat st;

	if (fcntl(pe->secret_fd, F_GETFD) != -1 || errno != EBADF)
		return false;
	for (int fd = 0; fd < 3; fd++)
		if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode) || st.st_rdev != makedev(1, 3))
			return false;
	return true;
}

/* In the reader: every device's descriptor is closed but the stuck one's. */
static void report_if_closed(const struct probe_backend *pe)
{
	int fd;

	for (size_t i = 0; i < pe->n_devs; i++) {
		bool open = fcntl(PF_FAKE_FD_BASE + (int)i, F_GETFD) != -1;

		if (open != (i == pe->stuck))
			return;
	}
	fd = open(pe->report, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd >= 0) {
		(void)!write(fd, "closed", 6);
		(void)close(fd);
	}
}

static int pe_submit(struct pf_io_backend *b, struct pf_io_req *const *reqs, unsigned n)
{
	struct probe_backend *pe = to_pe(b);

	if (pe->mode == PE_DIE_AT_START && in_reader(pe))
		_exit(7);
	return pe->f->b.ops->submit(&pe->f->b, reqs, n);
}

static int pe_wait(struct pf_io_backend *b, unsigned min_nr, unsigned max,
		   const struct timespec *timeout, struct pf_io_event *ret)
{
	struct probe_backend *pe = to_pe(b);
	int r;

	pe->n_waits++;
	if (in_reader(pe) && pe->mode == PE_CHECK_CLOSED)
		report_if_closed(pe);
	if (in_reader(pe) && pe->mode == PE_DIE_AFTER_ONE && pe->n_waits == 3)
		_exit(7);
	if (in_reader(pe) && pe->mode == PE_SILENT && pe->n_waits == 1) {
		struct timespec ts = { (time_t)(pe->silent_ms / 1000U),
				       (long)(pe->silent_ms % 1000U) * 1000000L };

		(void)nanosleep(&ts, NULL);
	}
	r = pe->f->b.ops->wait(&pe->f->b, min_nr, max, timeout, ret);
	if (pe->mode == PE_CHECK_FDS && !reader_holds_nothing(pe))
		for (int k = 0; k < r; k++)
			ret[k].res = -EBADFD;
	b->stuck = pe->f->b.stuck;
	return r;
}

static void pe_abandon(struct pf_io_backend *b, struct pf_io_req *req)
{
	struct probe_backend *pe = to_pe(b);

	pe->f->b.ops->abandon(&pe->f->b, req);
	b->stuck = pe->f->b.stuck;
}

static void pe_destroy(struct pf_io_backend *b)
{
	(void)b;
}

static const struct pf_io_backend_ops pe_ops = { pe_submit, pe_wait, pe_abandon, pe_destroy };

static void pe_init(struct probe_backend *pe, struct rig *r, int mode)
{
	memset(pe, 0, sizeof(*pe));
	pe->b.ops = &pe_ops;
	pe->b.depth = r->f->b.depth;
	pe->f = r->f;
	pe->caller = getpid();
	pe->mode = mode;
	pe->secret_fd = -1;
	r->opts.backend = &pe->b;
}

START_TEST(test_fork_reader_dies_at_start)
{
	uint8_t *img = make_image(&L_BASIC);
	struct probe_backend pe;
	struct rig r;

	/* Nothing came: every device fails with the reason; none is read here instead. */
	rig_init(&r, 4, 4, img, L_BASIC.size);
	pe_init(&pe, &r, PE_DIE_AT_START);
	ck_assert_int_eq(pf_reader_scan(r.t, r.n, &r.opts, &r.stats), 0);
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_int_eq(r.t[i].status, -EPIPE);
		ck_assert_str_eq(r.t[i].diag.msg, "the reader process ended before reading "
						  "anything, waiting for byte 0: device left out");
		ck_assert_ptr_null(pf_probe_vg(&r.p[i]));
	}
	ck_assert_uint_eq(r.f->n_submit_calls, 0);
	assert_no_child();
	rig_free(&r);
	free(img);
}
END_TEST

START_TEST(test_fork_reader_dies_midway)
{
	uint8_t *img = make_image(&L_BASIC);
	struct probe_backend pe;
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
	struct probe_backend pe;
	struct rig r;

	/*
	 * The reader blocks where no timeout reaches (as in a buffered
	 * io_submit()): given up after the timeout and the grace. It wakes
	 * much later, finds nobody listening, and ends.
	 */
	rig_init(&r, 3, 3, img, L_BASIC.size);
	pe_init(&pe, &r, PE_SILENT);
	pe.silent_ms = 100 + PF_READER_GRACE_MS + 20000;
	r.opts.timeout_ms = 100;
	ck_assert_int_eq(pf_reader_scan(r.t, r.n, &r.opts, &r.stats), 0);
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
	struct probe_backend pe;
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

START_TEST(test_fork_closes_done_devices)
{
	uint8_t *img = make_image(&L_BASIC);
	char report[] = "/tmp/pf-reader-closed-XXXXXX";
	struct probe_backend pe;
	char got[16] = "";
	struct rig r;
	int fd;

	/*
	 * While one device's read hangs, the reader holds none of the others:
	 * each is closed as soon as it is done (real descriptors at the fake
	 * backend's numbers, so that there is something to close).
	 */
	fd = mkstemp(report);
	ck_assert_int_ge(fd, 0);
	(void)close(fd);
	ck_assert_int_eq(unlink(report), 0);
	rig_init(&r, 5, 5, img, L_BASIC.size);
	for (size_t i = 0; i < r.n; i++) {
		int null_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);

		ck_assert_int_ge(null_fd, 0);
		ck_assert_int_eq(dup2(null_fd, PF_FAKE_FD_BASE + (int)i), PF_FAKE_FD_BASE + (int)i);
		(void)close(null_fd);
	}
	r.f->devs[2].hang_from = 0;
	r.opts.timeout_ms = 300;
	pe_init(&pe, &r, PE_CHECK_CLOSED);
	pe.n_devs = r.n;
	pe.stuck = 2;
	pe.report = report;
	ck_assert_int_eq(pf_reader_scan(r.t, r.n, &r.opts, &r.stats), 0);
	for (size_t i = 0; i < r.n; i++)
		ck_assert_int_eq(r.t[i].status, i == 2 ? -ETIMEDOUT : 0);
	fd = open(report, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(read(fd, got, sizeof(got) - 1), 6);
	ck_assert_str_eq(got, "closed");
	(void)close(fd);
	(void)unlink(report);
	/* Only the reader's copies were closed: the caller's are its own. */
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_int_ne(fcntl(PF_FAKE_FD_BASE + (int)i, F_GETFD), -1);
		(void)close(PF_FAKE_FD_BASE + (int)i);
	}
	assert_no_child();
	rig_free(&r);
	free(img);
}
END_TEST

/* _i: 0 pipe2() fails, 1 fork() fails (lib/base/inject.h), each time it is tried. */
START_TEST(test_fork_cannot_start)
{
	static const char *const spec[] = { "reader-pipe:fail=24", "reader-fork:fail=11" };
	static const int err[] = { -EMFILE, -EAGAIN };
	uint8_t *img = make_image(&L_BASIC);
	char want[PF_DIAG_MSG_MAX];
	struct rig r;

	ck_assert_int_eq(setenv("PVSCAN_FAST_INJECT", spec[_i], 1), 0);
	rig_init(&r, 3, 3, img, L_BASIC.size);
	ck_assert_int_eq(pf_reader_scan(r.t, r.n, &r.opts, &r.stats), err[_i]);
	(void)snprintf(want, sizeof(want),
		       "cannot start the reader process: %s, waiting for byte 0: device left out",
		       strerror(-err[_i]));
	for (size_t i = 0; i < r.n; i++) {
		ck_assert_int_eq(r.t[i].status, err[_i]);
		ck_assert_str_eq(r.t[i].diag.msg, want);
		ck_assert_ptr_null(pf_probe_vg(&r.p[i]));
	}
	/* Never read here instead. */
	ck_assert_uint_eq(r.f->n_submit_calls, 0);
	assert_no_child();
	ck_assert_int_eq(unsetenv("PVSCAN_FAST_INJECT"), 0);
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
	struct pf_reader_opts ro = { 0 }; /* the default timeout: a loaded machine is no hang */

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

/*
 * n devices in dir: images of L_BASIC, but device hung a FIFO, whose open() blocks until a
 * writer comes: an open that never returns.
 */
static void fifo_among_images(const char *dir, char (*paths)[64], struct pf_reader_dev *rd,
			      struct pf_probe *p, size_t n, size_t hung, const uint8_t *img)
{
	for (size_t i = 0; i < n; i++) {
		(void)snprintf(paths[i], 64, "%s/p%zu", dir, i);
		if (i == hung)
			ck_assert_int_eq(mkfifo(paths[i], 0600), 0);
		else
			write_file(paths[i], img, L_BASIC.size);
		rd[i] = (struct pf_reader_dev){ .path = paths[i], .probe = &p[i] };
	}
}

/* An open that never returns fails that device alone. */
START_TEST(test_paths_open_hangs)
{
	enum { N = 4, HUNG = 1 };
	char dir[] = "/tmp/pf-reader-XXXXXX";
	char paths[N][64], want[PF_DIAG_MSG_MAX];
	struct pf_reader_dev rd[N];
	struct pf_probe p[N];
	uint8_t *img = make_image(&L_BASIC);
	struct pf_reader_opts ro = { .timeout_ms = 2000 };

	ck_assert_ptr_nonnull(mkdtemp(dir));
	fifo_among_images(dir, paths, rd, p, N, HUNG, img);
	ck_assert_int_eq(pf_reader_scan_paths(rd, N, &ro, NULL), 0);
	for (size_t i = 0; i < N; i++) {
		if (i == HUNG)
			continue;
		ck_assert_int_eq(rd[i].status, 0);
		ck_assert(rd[i].opened);
		ck_assert_uint_eq(pf_probe_vg(&p[i])->seqno, L_BASIC.seqno);
	}
	(void)snprintf(want, sizeof(want),
		       "cannot open %s: no answer within 2000 ms: device left out", paths[HUNG]);
	ck_assert_int_eq(rd[HUNG].status, -ETIMEDOUT);
	ck_assert(!rd[HUNG].opened);
	ck_assert_str_eq(rd[HUNG].diag.msg, want);
	ck_assert_uint_eq(p[HUNG].dev_size_bytes, 0);
	ck_assert_uint_eq(rd[HUNG].bytes_read, 0);
	for (size_t i = 0; i < N; i++) {
		pf_probe_release(&p[i]);
		(void)unlink(paths[i]);
	}
	assert_no_child();
	(void)rmdir(dir);
	free(img);
}
END_TEST

/*
 * A process other than this one with path open, from /proc/PID/fd; 0 if none. (/proc/locks
 * names the process that took an flock, and this one took it for the reader.)
 */
static pid_t other_holder(const char *path)
{
	DIR *procs = opendir("/proc");
	struct dirent *e;
	pid_t who = 0;

	ck_assert_ptr_nonnull(procs);
	while (!who && (e = readdir(procs))) {
		char fds[64], link[PATH_MAX + 64], target[PATH_MAX];
		struct dirent *f;
		DIR *d;
		int pid = atoi(e->d_name);

		if (pid <= 0 || pid == getpid())
			continue;
		(void)snprintf(fds, sizeof(fds), "/proc/%d/fd", pid);
		d = opendir(fds);
		if (!d)
			continue;
		while (!who && (f = readdir(d))) {
			ssize_t len;

			(void)snprintf(link, sizeof(link), "%s/%s", fds, f->d_name);
			len = readlink(link, target, sizeof(target) - 1);
			if (len <= 0)
				continue;
			target[len] = '\0';
			if (strcmp(target, path) == 0)
				who = pid;
		}
		(void)closedir(d);
	}
	(void)closedir(procs);
	return who;
}

/* The one reader's file in sd ("r-..."): its path in ret. */
static void reader_file(const char *sd, char *ret, size_t size)
{
	DIR *d = opendir(sd);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		if (strncmp(e->d_name, "r-", 2) == 0 && n++ == 0)
			(void)snprintf(ret, size, "%s/%s", sd, e->d_name);
	(void)closedir(d);
	ck_assert_int_eq(n, 1);
}

/*
 * A device a reader is left waiting on is not waited on by a second one: the next scan
 * leaves it out, saying why, and reads the rest; once that reader is gone, the device is
 * tried again. The wait is the FIFO's open, and "reader-exit:delay" keeps the reader alive
 * after it gave up, as a read stuck in the kernel keeps it.
 */
START_TEST(test_paths_stuck_not_joined)
{
	enum { N = 3, HUNG = 1 };
	char dir[] = "/tmp/pf-reader-XXXXXX";
	char paths[N][64], sd[64], file[512], want[PF_DIAG_MSG_MAX];
	struct pf_reader_dev rd[N];
	struct pf_probe p[N];
	struct pf_stuck_key *keys = NULL;
	size_t n_keys = 0;
	uint8_t *img = make_image(&L_BASIC);
	struct pf_reader_opts ro = { .timeout_ms = 1000, .stuck_dir = sd };
	uint64_t deadline;
	pid_t reader;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	(void)snprintf(sd, sizeof(sd), "%s/readers", dir);
	fifo_among_images(dir, paths, rd, p, N, HUNG, img);

	ck_assert_int_eq(setenv("PVSCAN_FAST_INJECT", "reader-exit:delay=60000", 1), 0);
	ck_assert_int_eq(pf_reader_scan_paths(rd, N, &ro, NULL), 0);
	ck_assert_int_eq(unsetenv("PVSCAN_FAST_INJECT"), 0);
	ck_assert_int_eq(rd[HUNG].status, -ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(rd[HUNG].diag.msg, "no answer within 1000 ms"));
	reader_file(sd, file, sizeof(file));
	reader = other_holder(file);
	ck_assert_int_gt(reader, 0);

	for (size_t i = 0; i < N; i++)
		pf_probe_release(&p[i]);
	ck_assert_int_eq(pf_reader_scan_paths(rd, N, &ro, NULL), 0);
	ck_assert_int_eq(rd[HUNG].status, -ETIMEDOUT);
	ck_assert(!rd[HUNG].opened);
	(void)snprintf(want, sizeof(want), "%s not read: a read of it ", paths[HUNG]);
	ck_assert_ptr_eq(strstr(rd[HUNG].diag.msg, want), rd[HUNG].diag.msg);
	ck_assert_ptr_nonnull(strstr(rd[HUNG].diag.msg, "has not returned yet: device left out"));
	for (size_t i = 0; i < N; i++) {
		if (i == HUNG)
			continue;
		ck_assert_int_eq(rd[i].status, 0);
		ck_assert_uint_eq(pf_probe_vg(&p[i])->seqno, L_BASIC.seqno);
	}
	/* the second scan gave up on nothing: only the first reader's file is there */
	reader_file(sd, file, sizeof(file));

	ck_assert_int_eq(kill(reader, SIGKILL), 0);
	deadline = pf_now_ns() + 60ULL * 1000000000ULL;
	do {
		free(keys);
		keys = NULL;
		ck_assert_int_eq(pf_stuck_load(sd, &keys, &n_keys), 0);
		if (n_keys)
			pf_sleep_ms(10);
	} while (n_keys && pf_now_ns() < deadline);
	ck_assert_uint_eq(n_keys, 0);

	for (size_t i = 0; i < N; i++)
		pf_probe_release(&p[i]);
	ck_assert_int_eq(pf_reader_scan_paths(rd, N, &ro, NULL), 0);
	ck_assert_int_eq(rd[HUNG].status, -ETIMEDOUT);
	ck_assert_ptr_nonnull(strstr(rd[HUNG].diag.msg, "no answer within 1000 ms"));

	for (size_t i = 0; i < N; i++) {
		pf_probe_release(&p[i]);
		(void)unlink(paths[i]);
	}
	free(keys);
	(void)snprintf(want, sizeof(want), "rm -rf %s", dir);
	ck_assert_int_eq(system(want), 0);
	free(img);
}
END_TEST

/*
 * The reader dies once it has said how some opens went (the FIFO's never
 * returns): the devices it opened were not read either, and say why.
 */
START_TEST(test_paths_reader_dies_among_opens)
{
	enum { N = 4, HUNG = 2 };
	char dir[] = "/tmp/pf-reader-XXXXXX";
	char paths[N][64];
	struct pf_reader_dev rd[N];
	struct pf_probe p[N];
	uint8_t *img = make_image(&L_BASIC);

	ck_assert_ptr_nonnull(mkdtemp(dir));
	fifo_among_images(dir, paths, rd, p, N, HUNG, img);
	ck_assert_int_eq(setenv("PVSCAN_FAST_INJECT", "reader-opens-sent:crash", 1), 0);
	ck_assert_int_eq(pf_reader_scan_paths(rd, N, NULL, NULL), 0);
	ck_assert_int_eq(unsetenv("PVSCAN_FAST_INJECT"), 0);
	for (size_t i = 0; i < N; i++) {
		ck_assert_int_eq(rd[i].status, -EPIPE);
		ck_assert_uint_eq(rd[i].bytes_read, 0);
		ck_assert_ptr_null(pf_probe_vg(&p[i]));
		if (rd[i].opened)
			ck_assert_str_eq(rd[i].diag.msg, "the reader process ended early, waiting "
							  "for byte 0: device left out");
		else
			ck_assert_ptr_nonnull(strstr(rd[i].diag.msg, " not read: the reader "
								     "process ended early"));
		pf_probe_release(&p[i]);
		(void)unlink(paths[i]);
	}
	ck_assert(!rd[HUNG].opened);
	assert_no_child();
	(void)rmdir(dir);
	free(img);
}
END_TEST

/*
 * More opens hang than the reader leaves threads behind for: past that bound
 * the devices not yet tried are failed, saying why, and the scan still ends.
 */
START_TEST(test_paths_opens_hang_bound)
{
	enum { N_FIFOS = 80 };
	char dir[] = "/tmp/pf-reader-XXXXXX";
	char (*paths)[64] = calloc(N_FIFOS + 1, sizeof(*paths));
	struct pf_reader_dev *rd = calloc(N_FIFOS + 1, sizeof(*rd));
	struct pf_probe *p = calloc(N_FIFOS + 1, sizeof(*p));
	uint8_t *img = make_image(&L_BASIC);
	struct pf_reader_opts ro = { .timeout_ms = 200 };
	unsigned n_hung = 0;

	ck_assert_ptr_nonnull(paths);
	ck_assert_ptr_nonnull(rd);
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(mkdtemp(dir));
	for (size_t i = 0; i <= N_FIFOS; i++) {
		(void)snprintf(paths[i], sizeof(paths[i]), "%s/p%zu", dir, i);
		if (i < N_FIFOS)
			ck_assert_int_eq(mkfifo(paths[i], 0600), 0);
		else
			write_file(paths[i], img, L_BASIC.size);
		rd[i] = (struct pf_reader_dev){ .path = paths[i], .probe = &p[i] };
	}
	ck_assert_int_eq(pf_reader_scan_paths(rd, N_FIFOS + 1, &ro, NULL), 0);
	for (size_t i = 0; i <= N_FIFOS; i++) {
		ck_assert(!rd[i].opened);
		if (rd[i].status == -ETIMEDOUT) {
			ck_assert_ptr_nonnull(strstr(rd[i].diag.msg, "no answer within 200 ms"));
			n_hung++;
		} else {
			ck_assert_int_eq(rd[i].status, -EBUSY);
			ck_assert_ptr_nonnull(strstr(rd[i].diag.msg, "not tried"));
		}
		pf_probe_release(&p[i]);
		(void)unlink(paths[i]);
	}
	/* The last device, a good one, was never tried: too many opens before it hung. */
	ck_assert_int_eq(rd[N_FIFOS].status, -EBUSY);
	ck_assert_uint_ge(n_hung, 64);
	assert_no_child();
	(void)rmdir(dir);
	free(img);
	free(paths);
	free(rd);
	free(p);
}
END_TEST

/* A reader that cannot be started: the scan fails with the reason, every device says it. */
START_TEST(test_paths_cannot_start)
{
	char dir[] = "/tmp/pf-reader-XXXXXX";
	char path[64], want[PF_DIAG_MSG_MAX];
	struct pf_reader_dev rd;
	struct pf_probe p;
	uint8_t *img = make_image(&L_BASIC);

	ck_assert_ptr_nonnull(mkdtemp(dir));
	(void)snprintf(path, sizeof(path), "%s/img", dir);
	write_file(path, img, L_BASIC.size);
	rd = (struct pf_reader_dev){ .path = path, .probe = &p };
	ck_assert_int_eq(setenv("PVSCAN_FAST_INJECT", "reader-fork:fail=12", 1), 0);
	ck_assert_int_eq(pf_reader_scan_paths(&rd, 1, NULL, NULL), -ENOMEM);
	ck_assert_int_eq(unsetenv("PVSCAN_FAST_INJECT"), 0);
	(void)snprintf(want, sizeof(want),
		       "%s not read: cannot start the reader process: %s: device left out", path,
		       strerror(ENOMEM));
	ck_assert_int_eq(rd.status, -ENOMEM);
	ck_assert(!rd.opened);
	ck_assert_str_eq(rd.diag.msg, want);
	ck_assert_uint_eq(rd.bytes_read, 0);
	ck_assert_ptr_null(pf_probe_vg(&p)); /* nothing was read */
	ck_assert_uint_eq(p.dev_size_bytes, 0);
	pf_probe_release(&p);
	(void)unlink(path);
	(void)rmdir(dir);
	free(img);
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
	TCase *tf = pf_unit_tcase("forked reader");
	TCase *tp = pf_unit_tcase("by path");

	tcase_add_test(tf, test_scan_arguments);
	tcase_add_test(tf, test_scan_shared_fd);
	tcase_add_loop_test(tf, test_fork_matches_scan, 0, (int)n_scenarios);
	tcase_add_test(tf, test_fork_hang_costs_timeout);
	tcase_add_test(tf, test_fork_reader_dies_at_start);
	tcase_add_test(tf, test_fork_reader_dies_midway);
	tcase_add_test(tf, test_fork_reader_silent);
	tcase_add_test(tf, test_fork_reader_holds_nothing);
	tcase_add_test(tf, test_fork_closes_done_devices);
	tcase_add_loop_test(tf, test_fork_cannot_start, 0, 2);
	tcase_add_test(tf, test_libaio_files);
	suite_add_tcase(s, tf);

	tcase_add_loop_test(tp, test_paths_match_pread, 0, 4);
	tcase_add_test(tp, test_paths_many);
	tcase_add_test(tp, test_paths_open_hangs);
	tcase_add_test(tp, test_paths_stuck_not_joined);
	tcase_add_test(tp, test_paths_opens_hang_bound);
	tcase_add_test(tp, test_paths_reader_dies_among_opens);
	tcase_add_test(tp, test_paths_cannot_start);
	tcase_add_loop_test(tp, test_paths_bad_args, 0, 4);
	suite_add_tcase(s, tp);
	return s;
}

PF_UNIT_MAIN()
