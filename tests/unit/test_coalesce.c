/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Coalescing: queue entry names, the run tree, the leader lock and a leader's rounds. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <signal.h>
#include <string.h>
#include <sys/file.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#include "state/coalesce.h"
#include "unit.h"

/* Per test: <root>/run (missing until opened), <root>/lock (missing), <root>/sys/kernel. */
static char root[256];
static char run_dir[512];
static char lock_dir[512];
static char sys_dir[512];
static char fast_dir[PATH_MAX]; /* <run>/pvscan-fast */

static void setup(void)
{
	char kernel[PATH_MAX];

	(void)snprintf(root, sizeof(root), "%s/pf-coalesce-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(root));
	(void)snprintf(run_dir, sizeof(run_dir), "%s/run", root);
	(void)snprintf(lock_dir, sizeof(lock_dir), "%s/lock", root);
	(void)snprintf(sys_dir, sizeof(sys_dir), "%s/sys", root);
	(void)snprintf(fast_dir, sizeof(fast_dir), "%s/%s", run_dir, PF_COALESCE_DIR);
	(void)snprintf(kernel, sizeof(kernel), "%s/kernel", sys_dir);
	umask(022);
	ck_assert_int_eq(mkdir(sys_dir, 0755), 0);
	ck_assert_int_eq(mkdir(kernel, 0755), 0);
}

static void teardown(void)
{
	pf_unit_rm_rf(root);
}

/* A path under <run>/pvscan-fast; a few rotating buffers so two can be used at once. */
static const char *qp(const char *fmt, ...)
{
	static char bufs[4][PATH_MAX];
	static unsigned next;
	char *b = bufs[next++ % 4];
	size_t n;
	va_list ap;

	n = (size_t)snprintf(b, PATH_MAX, "%s/", fast_dir);
	va_start(ap, fmt);
	(void)vsnprintf(b + n, PATH_MAX - n, fmt, ap);
	va_end(ap);
	return b;
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	ck_assert_msg(f != NULL, "%s: %s", path, strerror(errno));
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

static size_t count_entries(const char *path)
{
	DIR *d = opendir(path);
	struct dirent *de;
	size_t n = 0;

	ck_assert_msg(d != NULL, "%s: %s", path, strerror(errno));
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

static void open_c(struct pf_coalesce *c)
{
	ck_assert_int_eq(pf_coalesce_open(run_dir, lock_dir, sys_dir, c), 0);
}

static void set_uevent_seqnum(const char *text)
{
	char path[PATH_MAX];

	(void)snprintf(path, sizeof(path), "%s/kernel/uevent_seqnum", sys_dir);
	put(path, text);
}

/* ---- a fake engine: what each round was given, which VGs were recovered ---- */

#define FAKE_ROUNDS 8U
#define FAKE_ITEMS 16U
#define FAKE_VGS 8U

struct fake_round {
	struct pf_pending items[FAKE_ITEMS];
	size_t n;
	bool full, first;
	bool scanned_existed; /* the scanned record was there when the round began */
};

struct fake;
typedef int fake_hook(struct fake *f, struct pf_coalesce *c, const struct pf_coalesce_round *r);

struct fake {
	struct fake_round rounds[FAKE_ROUNDS];
	unsigned n_rounds;
	char vgs[FAKE_VGS][64];
	unsigned vg_after_rounds[FAKE_VGS]; /* rounds done when the VG was recovered */
	unsigned n_vgs;
	fake_hook *hook; /* run inside every round; its result is the round's */
	int vg_result;
	void *arg;
	uint32_t cookies[FAKE_VGS]; /* udev cookies released */
	unsigned n_cookies;
};

static int fake_round(void *ctx, struct pf_coalesce *c, const struct pf_coalesce_round *r)
{
	struct fake *f = ctx;
	struct fake_round *fr;

	ck_assert_uint_lt(f->n_rounds, FAKE_ROUNDS);
	ck_assert_uint_le(r->n, FAKE_ITEMS);
	ck_assert_int_ge(c->lock_fd, 0);
	fr = &f->rounds[f->n_rounds++];
	memcpy(fr->items, r->items, r->n * sizeof(*r->items));
	fr->n = r->n;
	fr->full = r->full;
	fr->first = r->first;
	fr->scanned_existed = exists(qp("scanned"));
	for (size_t i = 1; i < r->n; i++)
		ck_assert(r->items[i - 1].major < r->items[i].major ||
			  (r->items[i - 1].major == r->items[i].major &&
			   r->items[i - 1].minor < r->items[i].minor));
	return f->hook ? f->hook(f, c, r) : 0;
}

static int fake_recover_vg(void *ctx, struct pf_coalesce *c, const char *vgname)
{
	struct fake *f = ctx;

	ck_assert_uint_lt(f->n_vgs, FAKE_VGS);
	(void)snprintf(f->vgs[f->n_vgs], sizeof(f->vgs[0]), "%s", vgname);
	f->vg_after_rounds[f->n_vgs++] = f->n_rounds;
	if (f->vg_result < 0)
		return f->vg_result;
	/* What the engine does once the VG is activated. */
	pf_coalesce_activation_end(c, vgname);
	return 0;
}

static void fake_release_cookie(void *ctx, uint32_t cookie)
{
	struct fake *f = ctx;

	ck_assert_uint_lt(f->n_cookies, FAKE_VGS);
	f->cookies[f->n_cookies++] = cookie;
}

static const struct pf_coalesce_ops fake_ops = { .round = fake_round,
						 .recover_vg = fake_recover_vg,
						 .release_cookie = fake_release_cookie };

static const struct pf_pending *find_item(const struct fake_round *fr, unsigned major,
					  unsigned minor)
{
	for (size_t i = 0; i < fr->n; i++)
		if (fr->items[i].major == major && fr->items[i].minor == minor)
			return &fr->items[i];
	return NULL;
}

static bool item_covered(const struct fake_round *fr, unsigned major, unsigned minor)
{
	const struct pf_pending *p = find_item(fr, major, minor);

	ck_assert_msg(p != NULL, "no item %u:%u", major, minor);
	return p ? p->covered : false;
}

/* Take the lock and lead, as the engine does after the command exec'ed it. */
static int lead(struct pf_coalesce *c, bool full_first, struct fake *f)
{
	ck_assert_int_eq(pf_coalesce_trylock(c), 0);
	return pf_coalesce_lead(c, full_first, &fake_ops, f);
}

static void lead_ok(struct pf_coalesce *c, bool full_first, struct fake *f)
{
	ck_assert_int_eq(lead(c, full_first, f), 0);
	ck_assert_int_lt(c->lock_fd, 0);
}

/* The first leader since boot, so that later leads are incremental. */
static void boot_scan(struct pf_coalesce *c)
{
	struct fake f = { 0 };

	lead_ok(c, false, &f);
	ck_assert(f.rounds[0].full);
	ck_assert(exists(qp("scanned")));
}

/* ---- entry names ---- */

START_TEST(test_entry_round_trip)
{
	static const struct {
		unsigned major, minor, flags;
		unsigned long long seqnum;
		const char *name;
	} t[] = {
		{ 0, 0, 0, 0, "0:0,-,0" },
		{ 8, 16, PF_PENDING_ACTIVATE, 4711, "8:16,a,4711" },
		{ 259, 3, 0, 1, "259:3,-,1" },
		{ UINT_MAX, UINT_MAX, PF_PENDING_ACTIVATE, ULLONG_MAX,
		  "4294967295:4294967295,a,18446744073709551615" },
		{ 7, 0, 0, ULLONG_MAX, "7:0,-,18446744073709551615" },
		{ 7, 10, PF_PENDING_ACTIVATE, 0, "7:10,a,0" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		char buf[64];
		unsigned maj = 1, min = 1, flags = 9;
		unsigned long long seq = 1;

		pf_coalesce_format_entry(buf, sizeof(buf), t[i].major, t[i].minor, t[i].flags,
					 t[i].seqnum);
		ck_assert_str_eq(buf, t[i].name);
		ck_assert_int_eq(pf_coalesce_parse_entry(buf, &maj, &min, &flags, &seq), 0);
		ck_assert_uint_eq(maj, t[i].major);
		ck_assert_uint_eq(min, t[i].minor);
		ck_assert_uint_eq(flags, t[i].flags);
		ck_assert(seq == t[i].seqnum);
	}
}
END_TEST

START_TEST(test_entry_unknown_flags)
{
	char buf[64];

	/* Only the activate bit has a letter; the rest is not written. */
	pf_coalesce_format_entry(buf, sizeof(buf), 8, 0, ~(unsigned)PF_PENDING_ACTIVATE, 5);
	ck_assert_str_eq(buf, "8:0,-,5");
	pf_coalesce_format_entry(buf, sizeof(buf), 8, 0, ~0U, 5);
	ck_assert_str_eq(buf, "8:0,a,5");
}
END_TEST

START_TEST(test_entry_malformed)
{
	static const char *const bad[] = {
		"",
		".",
		"..",
		":",
		"8",
		"8:",
		"8:0",
		"8:0,",
		"8:0,a",
		"8:0,a,",
		":0,a,1",
		"8:,a,1",
		"07:1,a,0",
		"8:01,a,0",
		"8:0,a,01",
		"8:0,a,00",
		"00:0,-,0",
		"8:0,b,1",
		"8:0,A,1",
		"8:0,aa,1",
		"8:0,,1",
		"8:0,a,1x",
		"8:0,a,1,",
		"8:0,a,1 ",
		"8:0,a,1\n",
		"8:0,a,1.tmp",
		"8:0,-,0,0",
		" 8:0,a,1",
		"8 :0,a,1",
		"8: 0,a,1",
		"8:0, a,1",
		"8:0,a, 1",
		"8:0;a;1",
		"8.0,a,1",
		"-1:0,a,0",
		"8:-1,a,0",
		"8:0,a,-1",
		"+8:0,a,0",
		"0x8:0,a,0",
		"4294967296:0,a,0",
		"0:4294967296,-,0",
		"99999999999999999999:0,-,0",
		"0:0,a,18446744073709551616",
		"0:0,a,99999999999999999999",
	};

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		unsigned maj = 11, min = 12, flags = 13;
		unsigned long long seq = 14;

		ck_assert_msg(pf_coalesce_parse_entry(bad[i], &maj, &min, &flags, &seq) == -EINVAL,
			      "accepted \"%s\"", bad[i]);
		/* outputs untouched on failure */
		ck_assert_uint_eq(maj, 11);
		ck_assert_uint_eq(min, 12);
		ck_assert_uint_eq(flags, 13);
		ck_assert(seq == 14);
	}
}
END_TEST

/* ---- the run tree ---- */

static void assert_dir_0700(const char *path)
{
	struct stat st;

	ck_assert_msg(lstat(path, &st) == 0, "%s: %s", path, strerror(errno));
	ck_assert_msg(S_ISDIR(st.st_mode), "%s is not a directory", path);
	ck_assert_msg((st.st_mode & 07777) == 0700, "%s has mode %o", path, st.st_mode & 07777);
}

START_TEST(test_open_creates_tree)
{
	struct pf_coalesce c, c2;

	ck_assert(!exists(run_dir));
	open_c(&c);
	assert_dir_0700(fast_dir);
	assert_dir_0700(qp("pending"));
	assert_dir_0700(qp("inflight"));
	assert_dir_0700(qp("activate"));
	assert_dir_0700(qp("cookies"));
	ck_assert(!exists(qp("scanned")));
	ck_assert_int_eq(c.lock_fd, -1);
	ck_assert_ptr_null(c.scanned);
	/* The follower path creates nothing under the lock dir. */
	ck_assert(!exists(lock_dir));

	/* Again on the existing tree, while the first is open. */
	ck_assert_int_eq(pf_coalesce_open(run_dir, lock_dir, NULL, &c2), 0);
	ck_assert_ptr_null(c2.sys_dir);
	ck_assert_int_eq(pf_coalesce_record(&c2, 8, 0, 0, 0), 0);
	ck_assert(exists(qp("pending/8:0,-,0")));
	pf_coalesce_close(&c2);
	pf_coalesce_close(&c);
	/* close leaves a struct that can be closed again */
	pf_coalesce_close(&c);
}
END_TEST

START_TEST(test_open_deep_missing)
{
	struct pf_coalesce c;

	(void)snprintf(run_dir, sizeof(run_dir), "%s/a/b/run", root);
	(void)snprintf(lock_dir, sizeof(lock_dir), "%s/c/d/lock", root);
	(void)snprintf(fast_dir, sizeof(fast_dir), "%s/%s", run_dir, PF_COALESCE_DIR);
	open_c(&c);
	assert_dir_0700(qp("pending"));
	ck_assert_int_eq(pf_coalesce_trylock(&c), 0);
	ck_assert(exists(lock_dir));
	pf_coalesce_close(&c);
}
END_TEST

START_TEST(test_open_queue_dirs_lost)
{
	struct pf_coalesce c;

	/* pvscan-fast/ exists but its queues do not (e.g. an interrupted first open). */
	ck_assert_int_eq(mkdir(run_dir, 0755), 0);
	ck_assert_int_eq(mkdir(fast_dir, 0700), 0);
	open_c(&c);
	ck_assert(!pf_coalesce_has_pending(&c));
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, 0, 0), 0);
	ck_assert(exists(qp("pending/8:0,-,0")));
	ck_assert_int_eq(pf_coalesce_activation_begin(&c, "vg"), 0);
	ck_assert(exists(qp("activate/vg")));
	pf_coalesce_close(&c);
}
END_TEST

START_TEST(test_open_file_in_place)
{
	struct pf_coalesce c, poison;
	int r;

	memset(&poison, 0xa5, sizeof(poison));
	memcpy(&c, &poison, sizeof(c));

	/* the run dir itself is a file */
	put(run_dir, "x");
	r = pf_coalesce_open(run_dir, lock_dir, sys_dir, &c);
	ck_assert_int_lt(r, 0);
	ck_assert_int_eq(memcmp(&c, &poison, sizeof(c)), 0);
	ck_assert_int_eq(unlink(run_dir), 0);

	/* <run>/pvscan-fast is a file */
	ck_assert_int_eq(mkdir(run_dir, 0755), 0);
	put(fast_dir, "x");
	r = pf_coalesce_open(run_dir, lock_dir, sys_dir, &c);
	ck_assert_int_eq(r, -ENOTDIR);
	ck_assert_int_eq(memcmp(&c, &poison, sizeof(c)), 0);

	/* ... or a symlink to a directory: not followed */
	ck_assert_int_eq(unlink(fast_dir), 0);
	ck_assert_int_eq(symlink(sys_dir, fast_dir), 0);
	ck_assert_int_lt(pf_coalesce_open(run_dir, lock_dir, sys_dir, &c), 0);
	ck_assert_int_eq(unlink(fast_dir), 0);

	/* pending/ is a file: open works, recording fails cleanly */
	open_c(&c);
	ck_assert_int_eq(rmdir(qp("pending")), 0);
	put(qp("pending"), "x");
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, 0, 0), -ENOTDIR);
	/* cannot tell: says yes, so the lock decides */
	ck_assert(pf_coalesce_has_pending(&c));
	pf_coalesce_close(&c);

	/* the lock dir is a file: locking fails cleanly */
	open_c(&c);
	put(lock_dir, "x");
	ck_assert_int_lt(pf_coalesce_trylock(&c), 0);
	ck_assert_int_eq(c.lock_fd, -1);
	ck_assert_int_eq(pf_coalesce_lock_fd_for_exec(&c), -EBADF);
	pf_coalesce_close(&c);
}
END_TEST

/* ---- recording ---- */

START_TEST(test_record)
{
	struct pf_coalesce c;
	struct stat st;

	open_c(&c);
	ck_assert(!pf_coalesce_has_pending(&c));
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 16, PF_PENDING_ACTIVATE, 4711), 0);
	ck_assert_int_eq(lstat(qp("pending/8:16,a,4711"), &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_int_eq(st.st_size, 0);
	ck_assert(pf_coalesce_has_pending(&c));
	/* twice is fine and still one entry */
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 16, PF_PENDING_ACTIVATE, 4711), 0);
	ck_assert_uint_eq(count_entries(qp("pending")), 1);
	/* another event for the same device is another entry */
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 16, 0, 4712), 0);
	ck_assert(exists(qp("pending/8:16,-,4712")));
	ck_assert_uint_eq(count_entries(qp("pending")), 2);
	/* the queue dir removed under us is made again */
	ck_assert_int_eq(unlink(qp("pending/8:16,a,4711")), 0);
	ck_assert_int_eq(unlink(qp("pending/8:16,-,4712")), 0);
	ck_assert_int_eq(rmdir(qp("pending")), 0);
	ck_assert_int_eq(pf_coalesce_record(&c, 9, 1, 0, 0), 0);
	ck_assert(exists(qp("pending/9:1,-,0")));
	pf_coalesce_close(&c);
}
END_TEST

/* ---- the lock ---- */

START_TEST(test_lock)
{
	struct pf_coalesce a, b;

	open_c(&a);
	open_c(&b);
	ck_assert_int_eq(pf_coalesce_trylock(&a), 0);
	ck_assert_int_ge(a.lock_fd, 0);
	ck_assert_int_eq(fcntl(a.lock_fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	/* taking it again while held is a no-op */
	ck_assert_int_eq(pf_coalesce_trylock(&a), 0);
	ck_assert_int_eq(pf_coalesce_trylock(&b), -EWOULDBLOCK);
	ck_assert_int_eq(b.lock_fd, -1);
	ck_assert_int_eq(pf_coalesce_lead(&b, false, &fake_ops, NULL), -ENOLCK);
	pf_coalesce_unlock(&a);
	ck_assert_int_eq(a.lock_fd, -1);
	pf_coalesce_unlock(&a);
	ck_assert_int_eq(pf_coalesce_trylock(&b), 0);
	ck_assert_int_eq(pf_coalesce_trylock(&a), -EWOULDBLOCK);
	/* closing releases it too */
	pf_coalesce_close(&b);
	ck_assert_int_eq(pf_coalesce_lock(&a, 100), 0);
	pf_coalesce_close(&a);
}
END_TEST

START_TEST(test_lock_deadline)
{
	struct pf_coalesce a, b;

	open_c(&a);
	open_c(&b);
	ck_assert_int_eq(pf_coalesce_trylock(&a), 0);
	/* a leader that never finishes: an admin's wait ends at its deadline */
	ck_assert_int_eq(pf_coalesce_lock(&b, 100), -ETIMEDOUT);
	ck_assert_int_eq(b.lock_fd, -1);
	pf_coalesce_unlock(&a);
	ck_assert_int_eq(pf_coalesce_lock(&b, 100), 0);
	pf_coalesce_close(&a);
	pf_coalesce_close(&b);
}
END_TEST

/* A lock directory or file another user could hold or swap is refused, never waited on. */
START_TEST(test_lock_unsafe)
{
	struct pf_coalesce c;
	char path[PATH_MAX];

	open_c(&c);
	ck_assert_int_eq(mkdir(lock_dir, 0700), 0);
	ck_assert_int_eq(chmod(lock_dir, 0777), 0);
	ck_assert_int_eq(pf_coalesce_trylock(&c), -EPERM);
	ck_assert_int_eq(pf_coalesce_lock(&c, 100), -EPERM);
	ck_assert_int_eq(c.lock_fd, -1);
	ck_assert_int_eq(chmod(lock_dir, 0700), 0);
	if (geteuid() == 0) { /* only root can give a file away; uid 12345 need not exist */
		(void)snprintf(path, sizeof(path), "%s/%s", lock_dir, PF_COALESCE_LOCK);
		put(path, "");
		ck_assert_int_eq(chown(path, 12345, 12345), 0);
		ck_assert_int_eq(pf_coalesce_trylock(&c), -EPERM);
		ck_assert_int_eq(chown(path, 0, 0), 0);
		ck_assert_int_eq(chown(lock_dir, 12345, 12345), 0);
		ck_assert_int_eq(pf_coalesce_lock(&c, 100), -EPERM);
		ck_assert_int_eq(chown(lock_dir, 0, 0), 0);
	}
	ck_assert_int_eq(pf_coalesce_trylock(&c), 0);
	pf_coalesce_close(&c);
}
END_TEST

START_TEST(test_adopt_lock)
{
	struct pf_coalesce parent, child, other;
	char other_path[PATH_MAX];
	int fd, stray;

	open_c(&parent);
	open_c(&child);
	open_c(&other);
	ck_assert_int_eq(pf_coalesce_lock_fd_for_exec(&parent), -EBADF);
	ck_assert_int_eq(pf_coalesce_trylock(&parent), 0);

	/* descriptors that are not the lock file */
	(void)snprintf(other_path, sizeof(other_path), "%s/other", root);
	put(other_path, "");
	fd = open(other_path, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(pf_coalesce_adopt_lock(&child, fd), -EBADF);
	ck_assert_int_eq(pf_coalesce_adopt_lock(&child, -1), -EBADF);
	ck_assert_int_eq(pf_coalesce_adopt_lock(&child, 999), -EBADF);
	ck_assert_int_eq(child.lock_fd, -1);
	close(fd);

	/* the lock file opened separately while someone holds it: no second leader */
	(void)snprintf(other_path, sizeof(other_path), "%s/%s", lock_dir, PF_COALESCE_LOCK);
	stray = open(other_path, O_RDWR | O_CLOEXEC);
	ck_assert_int_ge(stray, 0);
	ck_assert_int_eq(pf_coalesce_adopt_lock(&child, stray), -EWOULDBLOCK);
	ck_assert_int_eq(child.lock_fd, -1);
	close(stray);

	/* the hand-off: the parent's descriptor survives exec, the child adopts it */
	fd = pf_coalesce_lock_fd_for_exec(&parent);
	ck_assert_int_eq(fd, parent.lock_fd);
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, 0);
	parent.lock_fd = -1; /* exec replaced the parent's image; the descriptor lives on */
	ck_assert_int_eq(pf_coalesce_adopt_lock(&child, fd), 0);
	ck_assert_int_eq(child.lock_fd, fd);
	/* not passed on to whatever the leader runs */
	ck_assert_int_eq(fcntl(fd, F_GETFD) & FD_CLOEXEC, FD_CLOEXEC);
	ck_assert_int_eq(pf_coalesce_trylock(&other), -EWOULDBLOCK);
	pf_coalesce_unlock(&child);
	ck_assert_int_eq(pf_coalesce_trylock(&other), 0);

	pf_coalesce_close(&other);
	pf_coalesce_close(&child);
	pf_coalesce_close(&parent);
}
END_TEST

/* ---- leading ---- */

START_TEST(test_lead_first_since_boot)
{
	struct pf_coalesce c;
	struct fake f = { 0 }, g = { 0 }, h = { 0 };
	const struct pf_pending *p;

	open_c(&c);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, PF_PENDING_ACTIVATE, 10), 0);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 16, 0, 0), 0);
	lead_ok(&c, false, &f);
	ck_assert_uint_eq(f.n_rounds, 1);
	ck_assert(f.rounds[0].full);
	ck_assert(f.rounds[0].first);
	ck_assert(!f.rounds[0].scanned_existed);
	ck_assert_uint_eq(f.rounds[0].n, 2);
	p = find_item(&f.rounds[0], 8, 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->flags, PF_PENDING_ACTIVATE);
	ck_assert(p->seqnum == 10);
	ck_assert(!p->covered);
	p = find_item(&f.rounds[0], 8, 16);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->flags, 0);
	ck_assert(p->seqnum == 0);
	ck_assert(exists(qp("scanned")));
	ck_assert_uint_eq(count_entries(qp("pending")), 0);
	ck_assert_uint_eq(count_entries(qp("inflight")), 0);
	ck_assert(!pf_coalesce_has_pending(&c));

	/* the next leader: incremental, only the new entries */
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 32, PF_PENDING_ACTIVATE, 20), 0);
	lead_ok(&c, false, &g);
	ck_assert_uint_eq(g.n_rounds, 1);
	ck_assert(!g.rounds[0].full);
	ck_assert(g.rounds[0].first);
	ck_assert_uint_eq(g.rounds[0].n, 1);
	ck_assert_uint_eq(g.rounds[0].items[0].major, 8);
	ck_assert_uint_eq(g.rounds[0].items[0].minor, 32);
	pf_coalesce_close(&c);

	/* a fresh process sees the same record */
	open_c(&c);
	lead_ok(&c, false, &h);
	ck_assert_uint_eq(h.n_rounds, 1);
	ck_assert(!h.rounds[0].full);
	ck_assert(h.rounds[0].first);
	ck_assert_uint_eq(h.rounds[0].n, 0);
	pf_coalesce_close(&c);
}
END_TEST

START_TEST(test_lead_full_first)
{
	struct pf_coalesce c;
	struct fake f = { 0 };

	open_c(&c);
	boot_scan(&c);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, 0, 3), 0);
	/* an admin's full scan: the record is forgotten before the round */
	ck_assert_int_eq(pf_coalesce_lock(&c, 100), 0);
	ck_assert_int_eq(pf_coalesce_lead(&c, true, &fake_ops, &f), 0);
	ck_assert_uint_eq(f.n_rounds, 1);
	ck_assert(f.rounds[0].full);
	ck_assert(f.rounds[0].first);
	ck_assert(!f.rounds[0].scanned_existed);
	ck_assert_uint_eq(f.rounds[0].n, 1);
	ck_assert(exists(qp("scanned")));
	pf_coalesce_close(&c);
}
END_TEST

/* Followers arriving while the leader reads: each records and meets the lock. */
static int follow_in_round0(struct fake *f, struct pf_coalesce *c _unused_,
			    const struct pf_coalesce_round *r)
{
	struct pf_coalesce follower;

	if (f->n_rounds == 1) {
		ck_assert(r->first);
		open_c(&follower);
		ck_assert_int_eq(pf_coalesce_record(&follower, 8, 48, PF_PENDING_ACTIVATE, 30), 0);
		ck_assert_int_eq(pf_coalesce_trylock(&follower), -EWOULDBLOCK);
		ck_assert_int_eq(pf_coalesce_record(&follower, 8, 64, 0, 31), 0);
		ck_assert_int_eq(pf_coalesce_trylock(&follower), -EWOULDBLOCK);
		pf_coalesce_close(&follower);
	} else if (f->n_rounds == 2) {
		open_c(&follower);
		ck_assert_int_eq(pf_coalesce_record(&follower, 8, 80, 0, 32), 0);
		pf_coalesce_close(&follower);
	}
	return 0;
}

START_TEST(test_lead_followers_mid_scan)
{
	struct pf_coalesce c, other;
	struct fake f = { .hook = follow_in_round0 };

	open_c(&c);
	boot_scan(&c);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, PF_PENDING_ACTIVATE, 29), 0);
	lead_ok(&c, false, &f);
	ck_assert_uint_eq(f.n_rounds, 3);
	ck_assert_uint_eq(f.rounds[0].n, 1);
	ck_assert_ptr_nonnull(find_item(&f.rounds[0], 8, 0));
	ck_assert(f.rounds[0].first);
	ck_assert_uint_eq(f.rounds[1].n, 2);
	ck_assert(!f.rounds[1].first);
	ck_assert(!f.rounds[1].full);
	ck_assert_ptr_nonnull(find_item(&f.rounds[1], 8, 48));
	ck_assert_ptr_nonnull(find_item(&f.rounds[1], 8, 64));
	ck_assert_uint_eq(f.rounds[2].n, 1);
	ck_assert_ptr_nonnull(find_item(&f.rounds[2], 8, 80));
	ck_assert(!f.rounds[2].first);
	ck_assert_uint_eq(count_entries(qp("pending")), 0);
	ck_assert_uint_eq(count_entries(qp("inflight")), 0);
	open_c(&other);
	ck_assert_int_eq(pf_coalesce_trylock(&other), 0);
	pf_coalesce_close(&other);
	pf_coalesce_close(&c);
}
END_TEST

START_TEST(test_lead_merge)
{
	struct pf_coalesce c;
	struct fake f = { 0 };
	const struct fake_round *fr = &f.rounds[0];
	const struct pf_pending *p;

	open_c(&c);
	boot_scan(&c);
	/* one device, three events: flags or'ed, the newest seqnum */
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, 0, 5), 0);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, PF_PENDING_ACTIVATE, 7), 0);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, 0, 3), 0);
	/* one event without a seqnum: the merged one has none */
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 16, PF_PENDING_ACTIVATE, 5), 0);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 16, 0, 0), 0);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 16, 0, 9), 0);
	/* devno order is numeric, not the names' order */
	ck_assert_int_eq(pf_coalesce_record(&c, 10, 1, 0, 1), 0);
	ck_assert_int_eq(pf_coalesce_record(&c, 9, 2, 0, 1), 0);
	ck_assert_int_eq(pf_coalesce_record(&c, 9, 10, 0, 1), 0);
	ck_assert_int_eq(pf_coalesce_record(&c, 259, 0, 0, 1), 0);
	lead_ok(&c, false, &f);
	ck_assert_uint_eq(f.n_rounds, 1);
	ck_assert_uint_eq(fr->n, 6);
	p = &fr->items[0];
	ck_assert_uint_eq(p->major, 8);
	ck_assert_uint_eq(p->minor, 0);
	ck_assert_uint_eq(p->flags, PF_PENDING_ACTIVATE);
	ck_assert(p->seqnum == 7);
	p = &fr->items[1];
	ck_assert_uint_eq(p->minor, 16);
	ck_assert_uint_eq(p->flags, PF_PENDING_ACTIVATE);
	ck_assert(p->seqnum == 0);
	ck_assert_uint_eq(fr->items[2].major, 9);
	ck_assert_uint_eq(fr->items[2].minor, 2);
	ck_assert_uint_eq(fr->items[3].major, 9);
	ck_assert_uint_eq(fr->items[3].minor, 10);
	ck_assert_uint_eq(fr->items[4].major, 10);
	ck_assert_uint_eq(fr->items[5].major, 259);
	ck_assert_uint_eq(count_entries(qp("inflight")), 0);
	pf_coalesce_close(&c);
}
END_TEST

/* A full scan that reads 8:0 without and 8:16 with activation. */
static int read_two(struct fake *f _unused_, struct pf_coalesce *c,
		    const struct pf_coalesce_round *r)
{
	if (r->full) {
		ck_assert_int_eq(pf_coalesce_note_read(c, 8, 16, PF_PENDING_ACTIVATE), 0);
		ck_assert_int_eq(pf_coalesce_note_read(c, 8, 0, 0), 0);
	}
	return 0;
}

/* Lead once with one recorded event; was the device's item covered? */
static bool covered_after(struct pf_coalesce *c, unsigned minor, unsigned flags,
			  unsigned long long seqnum)
{
	struct fake f = { 0 };

	ck_assert_int_eq(pf_coalesce_record(c, 8, minor, flags, seqnum), 0);
	lead_ok(c, false, &f);
	ck_assert_uint_eq(f.n_rounds, 1);
	ck_assert_uint_eq(f.rounds[0].n, 1);
	return item_covered(&f.rounds[0], 8, minor);
}

START_TEST(test_lead_covered)
{
	struct pf_coalesce c;
	struct fake f = { .hook = read_two };

	open_c(&c);
	set_uevent_seqnum("100\n");
	lead_ok(&c, false, &f);
	ck_assert(f.rounds[0].full);
	set_uevent_seqnum("200\n");

	ck_assert(covered_after(&c, 0, 0, 90));
	ck_assert(covered_after(&c, 0, 0, 100));
	ck_assert(!covered_after(&c, 0, 0, 101));
	ck_assert(!covered_after(&c, 0, 0, 150));
	ck_assert(!covered_after(&c, 0, 0, 0));
	/* read without activation: an event asking for it is not covered */
	ck_assert(!covered_after(&c, 0, PF_PENDING_ACTIVATE, 90));
	/* read with activation covers events with or without */
	ck_assert(covered_after(&c, 16, PF_PENDING_ACTIVATE, 90));
	ck_assert(covered_after(&c, 16, 0, 90));
	/* never read */
	ck_assert(!covered_after(&c, 32, 0, 1));
	/* a fresh process loads the same record */
	pf_coalesce_close(&c);
	open_c(&c);
	ck_assert(covered_after(&c, 0, 0, 99));
	ck_assert(!covered_after(&c, 0, 0, 199));
	pf_coalesce_close(&c);
}
END_TEST

/* Note every item read with its own flags. */
static int read_items(struct fake *f _unused_, struct pf_coalesce *c,
		      const struct pf_coalesce_round *r)
{
	for (size_t i = 0; i < r->n; i++)
		ck_assert_int_eq(pf_coalesce_note_read(c, r->items[i].major, r->items[i].minor,
						       r->items[i].flags),
				 0);
	return 0;
}

START_TEST(test_lead_covered_later_round)
{
	struct pf_coalesce c;
	struct fake f = { .hook = read_items }, g = { .hook = read_items };

	open_c(&c);
	set_uevent_seqnum("100\n");
	boot_scan(&c);
	set_uevent_seqnum("300\n");
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, 0, 250), 0);
	lead_ok(&c, false, &f);
	ck_assert(!f.rounds[0].items[0].covered);
	/* read at 300 now: an older event is covered, a newer one is not */
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, 0, 280), 0);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 1, 0, 280), 0);
	lead_ok(&c, false, &g);
	ck_assert_uint_eq(g.rounds[0].n, 2);
	ck_assert(item_covered(&g.rounds[0], 8, 0));
	ck_assert(!item_covered(&g.rounds[0], 8, 1));
	pf_coalesce_close(&c);
}
END_TEST

START_TEST(test_lead_uevent_seqnum_unknown)
{
	static const char *const bad[] = { NULL, "", "abc\n", "100x\n", "-1\n", "0100\n",
					   "18446744073709551616\n" };

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct pf_coalesce c;
		struct fake f = { .hook = read_two };
		char path[PATH_MAX];

		(void)snprintf(path, sizeof(path), "%s/kernel/uevent_seqnum", sys_dir);
		(void)unlink(path);
		if (bad[i])
			set_uevent_seqnum(bad[i]);
		(void)unlink(qp("scanned"));
		if (i == 0)
			ck_assert_int_eq(pf_coalesce_open(run_dir, lock_dir, NULL, &c), 0);
		else
			open_c(&c);
		lead_ok(&c, false, &f);
		ck_assert(f.rounds[0].full);
		/* read at an unknown seqnum: nothing counts as covered */
		ck_assert_msg(!covered_after(&c, 0, 0, 1), "uevent_seqnum \"%s\"",
			      bad[i] ? bad[i] : "(no sys dir)");
		pf_coalesce_close(&c);
	}
}
END_TEST

START_TEST(test_lead_inflight_leftovers)
{
	struct pf_coalesce c;
	struct fake f = { 0 };
	const struct pf_pending *p;

	open_c(&c);
	boot_scan(&c);
	/* a leader killed mid-round left these */
	put(qp("inflight/8:0,a,40"), "");
	put(qp("inflight/8:32,-,0"), "");
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 16, 0, 41), 0);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, 0, 42), 0);
	lead_ok(&c, false, &f);
	ck_assert_uint_eq(f.n_rounds, 1);
	ck_assert(f.rounds[0].first);
	ck_assert_uint_eq(f.rounds[0].n, 3);
	p = find_item(&f.rounds[0], 8, 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->flags, PF_PENDING_ACTIVATE);
	ck_assert(p->seqnum == 42);
	ck_assert_ptr_nonnull(find_item(&f.rounds[0], 8, 16));
	ck_assert_ptr_nonnull(find_item(&f.rounds[0], 8, 32));
	ck_assert_uint_eq(count_entries(qp("inflight")), 0);
	ck_assert_uint_eq(count_entries(qp("pending")), 0);
	pf_coalesce_close(&c);
}
END_TEST

START_TEST(test_lead_recovers_activations)
{
	struct pf_coalesce c;
	struct fake f = { 0 }, g = { 0 };
	bool seen1 = false, seen2 = false, seen_dot = false;

	open_c(&c);
	boot_scan(&c);
	put(qp("activate/vg1"), "");
	put(qp("activate/vg_two"), "");
	put(qp("activate/.vg"), "");
	/* not a name lvm2 gives a VG: not an entry of ours */
	put(qp("activate/-junk"), "");
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, PF_PENDING_ACTIVATE, 1), 0);
	lead_ok(&c, false, &f);
	ck_assert_uint_eq(f.n_vgs, 3);
	for (unsigned i = 0; i < f.n_vgs; i++) {
		ck_assert_uint_eq(f.vg_after_rounds[i], 0);
		seen1 |= !strcmp(f.vgs[i], "vg1");
		seen2 |= !strcmp(f.vgs[i], "vg_two");
		seen_dot |= !strcmp(f.vgs[i], ".vg");
	}
	ck_assert(seen1 && seen2 && seen_dot);
	ck_assert(!exists(qp("activate/.vg")));
	ck_assert(exists(qp("activate/-junk")));
	ck_assert_uint_eq(f.n_rounds, 1);
	ck_assert(!exists(qp("activate/vg1")));
	ck_assert(!exists(qp("activate/vg_two")));

	/* a recovery that fails: the leader stops with its error, the journal stays */
	put(qp("activate/vg3"), "");
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 16, 0, 2), 0);
	g.vg_result = -EIO;
	ck_assert_int_eq(lead(&c, false, &g), -EIO);
	ck_assert_int_eq(c.lock_fd, -1);
	ck_assert_uint_eq(g.n_vgs, 1);
	ck_assert_uint_eq(g.n_rounds, 0);
	ck_assert(exists(qp("activate/vg3")));
	ck_assert(exists(qp("pending/8:16,-,2")));
	pf_coalesce_close(&c);
}
END_TEST

/* A batch's udev cookie is journaled until waited for; a dead leader's the next releases. */
START_TEST(test_lead_releases_cookies)
{
	struct pf_coalesce c, dead;
	struct fake f = { 0 };

	open_c(&c);
	boot_scan(&c);
	open_c(&dead);
	ck_assert_int_eq(pf_coalesce_cookie_begin(&dead, 0x0d4d1234), 0);
	ck_assert_int_eq(pf_coalesce_cookie_begin(&dead, 7), 0);
	ck_assert(exists(qp("cookies/223154740")));
	pf_coalesce_cookie_end(&dead, 7);
	ck_assert(!exists(qp("cookies/7")));
	pf_coalesce_close(&dead); /* killed before the wait: its entry stays */
	put(qp("cookies/0"), "");
	put(qp("cookies/junk"), "");
	lead_ok(&c, false, &f);
	ck_assert_uint_eq(f.n_cookies, 1);
	ck_assert_uint_eq(f.cookies[0], 0x0d4d1234);
	ck_assert(!exists(qp("cookies/223154740")));
	ck_assert(!exists(qp("cookies/0")));
	ck_assert(!exists(qp("cookies/junk")));
	pf_coalesce_close(&c);
}
END_TEST

/* What --recover looks at: nothing before the queue is used, then each kind of leftover. */
START_TEST(test_leftovers)
{
	static const char *const kinds[] = { "pending/8:0,a,0", "inflight/8:0,a,0",
					     "activate/vg0", "cookies/42" };
	struct pf_coalesce c;
	bool left = true;

	ck_assert_int_eq(pf_coalesce_leftovers(run_dir, &left), 0);
	ck_assert(!left);
	open_c(&c);
	/* the queue in use and no full scan completed since: a leader died in its first */
	ck_assert_int_eq(pf_coalesce_leftovers(run_dir, &left), 0);
	ck_assert(left);
	boot_scan(&c);
	ck_assert_int_eq(pf_coalesce_leftovers(run_dir, &left), 0);
	ck_assert(!left);
	/* junk is nobody's work */
	put(qp("pending/junk"), "");
	put(qp("activate/-x"), "");
	ck_assert_int_eq(pf_coalesce_leftovers(run_dir, &left), 0);
	ck_assert(!left);
	for (size_t i = 0; i < ARRAY_SIZE(kinds); i++) {
		put(qp(kinds[i]), "");
		ck_assert_int_eq(pf_coalesce_leftovers(run_dir, &left), 0);
		ck_assert_msg(left, "%s", kinds[i]);
		ck_assert_int_eq(unlink(qp(kinds[i])), 0);
	}
	pf_coalesce_close(&c);
}
END_TEST

START_TEST(test_lead_damaged_scanned)
{
	static const char *const damaged[] = {
		"garbage\n",
		"8:0 0 100\ngarbage\n",
		"8:0 0\n",
		"8:0 0 100 7\n",
		"08:0 0 100\n",
		"8:0 0 -1\n",
		"8:0 4294967296 100\n",
		"\n",
	};
	struct pf_coalesce c;
	struct fake f = { 0 };

	for (size_t i = 0; i < ARRAY_SIZE(damaged); i++) {
		memset(&f, 0, sizeof(f));
		open_c(&c);
		put(qp("scanned"), damaged[i]);
		lead_ok(&c, false, &f);
		ck_assert_msg(f.rounds[0].full, "scanned \"%s\" not taken as damaged", damaged[i]);
		ck_assert(exists(qp("scanned")));
		pf_coalesce_close(&c);
	}

	/* Lines before the damage are dropped too: 8:0 was not read by the full round. */
	memset(&f, 0, sizeof(f));
	open_c(&c);
	set_uevent_seqnum("1000\n");
	put(qp("scanned"), "8:0 0 1000\ngarbage\n");
	lead_ok(&c, false, &f);
	ck_assert(!covered_after(&c, 0, 0, 600));
	pf_coalesce_close(&c);
}
END_TEST

/* A well-formed record in another order still gives each device its own seqnum. */
START_TEST(test_lead_unsorted_scanned)
{
	struct pf_coalesce c;

	open_c(&c);
	put(qp("scanned"), "8:16 0 100\n8:0 0 200\n");
	ck_assert(!covered_after(&c, 16, 0, 150));
	pf_coalesce_close(&c);
}
END_TEST

/* A directory with an entry's name is junk, not an entry taken again in every round. */
START_TEST(test_dir_entry_not_taken)
{
	struct pf_coalesce c;
	struct fake f = { 0 };

	open_c(&c);
	boot_scan(&c);
	ck_assert_int_eq(mkdir(qp("pending/8:0,-,0"), 0700), 0);
	ck_assert(!pf_coalesce_has_pending(&c));
	lead_ok(&c, false, &f);
	ck_assert_uint_le(f.n_rounds, 1);
	ck_assert(!exists(qp("pending/8:0,-,0")));
	ck_assert_uint_eq(count_entries(qp("inflight")), 0);
	pf_coalesce_close(&c);
}
END_TEST

/* The round's last act: file writes past 0 bytes fail from here on (RLIMIT_FSIZE: EFBIG). */
static int no_room_after_round(struct fake *f _unused_, struct pf_coalesce *c,
			       const struct pf_coalesce_round *r _unused_)
{
	struct rlimit none = { 0, RLIM_INFINITY };

	if (pf_coalesce_note_read(c, 8, 0, 0) < 0)
		return -ENOMEM;

	(void)getrlimit(RLIMIT_FSIZE, &none);
	none.rlim_cur = 0;
	(void)signal(SIGXFSZ, SIG_IGN);
	return setrlimit(RLIMIT_FSIZE, &none) < 0 ? -errno : 0;
}

/*
 * A /run with no room left: the warning names the write's own errno, not EIO, and an empty
 * record still says a full scan was done, so the next leader reads only its own devices.
 */
START_TEST(test_lead_scanned_no_room)
{
	struct pf_coalesce c;
	struct fake f = { .hook = no_room_after_round }, g = { 0 };
	struct rlimit old;
	char text[512] = "";
	int pipefd[2], saved, r;
	ssize_t n;
	struct stat st;

	open_c(&c);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, 0, 1), 0);
	ck_assert_int_eq(getrlimit(RLIMIT_FSIZE, &old), 0);
	ck_assert_int_eq(pipe(pipefd), 0);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(dup2(pipefd[1], STDERR_FILENO), 0);
	ck_assert_int_eq(pf_coalesce_trylock(&c), 0);
	/* No Check call until the limit is lifted: Check writes its own records to a file. */
	r = pf_coalesce_lead(&c, false, &fake_ops, &f);
	(void)setrlimit(RLIMIT_FSIZE, &old);
	fflush(stderr);
	ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
	close(saved);
	close(pipefd[1]);
	n = read(pipefd[0], text, sizeof(text) - 1);
	close(pipefd[0]);
	ck_assert_int_eq(r, 0);
	ck_assert_int_gt(n, 0);
	ck_assert_msg(strstr(text, "cannot save pvscan-fast/scanned: File too large."),
		      "warning: %s", text);
	ck_assert(f.rounds[0].full);
	ck_assert_int_eq(stat(qp("scanned"), &st), 0);
	ck_assert_int_eq(st.st_size, 0);
	ck_assert(!exists(qp("scanned.tmp")));

	ck_assert_int_eq(pf_coalesce_record(&c, 8, 16, 0, 2), 0);
	lead_ok(&c, false, &g);
	ck_assert(!g.rounds[0].full);
	ck_assert_uint_eq(g.rounds[0].n, 1);
	ck_assert(!item_covered(&g.rounds[0], 8, 16));
	pf_coalesce_close(&c);
}
END_TEST

START_TEST(test_lead_valid_scanned)
{
	static const char *const valid[] = { "", "8:0 0 100\n",
					     "8:0 1 100\n8:16 0 18446744073709551615\n" };

	for (size_t i = 0; i < ARRAY_SIZE(valid); i++) {
		struct pf_coalesce c;
		struct fake f = { 0 };

		open_c(&c);
		put(qp("scanned"), valid[i]);
		lead_ok(&c, false, &f);
		ck_assert_msg(!f.rounds[0].full, "scanned \"%s\" refused", valid[i]);
		pf_coalesce_close(&c);
	}
}
END_TEST

static int fail_round(struct fake *f, struct pf_coalesce *c _unused_,
		      const struct pf_coalesce_round *r _unused_)
{
	return f->n_rounds == 1 ? -EIO : 0;
}

START_TEST(test_lead_round_error)
{
	struct pf_coalesce c, other;
	struct fake f = { .hook = fail_round }, g = { 0 };

	open_c(&c);
	boot_scan(&c);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, PF_PENDING_ACTIVATE, 7), 0);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 16, 0, 8), 0);
	ck_assert_int_eq(lead(&c, false, &f), -EIO);
	ck_assert_uint_eq(f.n_rounds, 1);
	ck_assert_int_eq(c.lock_fd, -1);
	open_c(&other);
	ck_assert_int_eq(pf_coalesce_trylock(&other), 0);
	pf_coalesce_close(&other);
	/* what was taken stays in flight for the next leader */
	ck_assert(exists(qp("inflight/8:0,a,7")));
	ck_assert(exists(qp("inflight/8:16,-,8")));
	ck_assert_uint_eq(count_entries(qp("pending")), 0);
	pf_coalesce_close(&c);

	open_c(&c);
	lead_ok(&c, false, &g);
	ck_assert_uint_eq(g.n_rounds, 1);
	ck_assert_uint_eq(g.rounds[0].n, 2);
	ck_assert_uint_eq(count_entries(qp("inflight")), 0);
	pf_coalesce_close(&c);
}
END_TEST

START_TEST(test_lead_first_round_error_keeps_full)
{
	struct pf_coalesce c;
	struct fake f = { .hook = fail_round }, g = { 0 };

	open_c(&c);
	ck_assert_int_eq(lead(&c, false, &f), -EIO);
	ck_assert(!exists(qp("scanned")));
	lead_ok(&c, false, &g);
	ck_assert(g.rounds[0].full);
	pf_coalesce_close(&c);
}
END_TEST

static int gone_8_0(struct fake *f _unused_, struct pf_coalesce *c,
		    const struct pf_coalesce_round *r _unused_)
{
	pf_coalesce_note_gone(c, 8, 0);
	pf_coalesce_note_gone(c, 8, 0);
	pf_coalesce_note_gone(c, 99, 99);
	return 0;
}

static int read_many(struct fake *f _unused_, struct pf_coalesce *c,
		     const struct pf_coalesce_round *r _unused_)
{
	/* out of order, to exercise the sorted insert */
	ck_assert_int_eq(pf_coalesce_note_read(c, 8, 32, 0), 0);
	ck_assert_int_eq(pf_coalesce_note_read(c, 8, 0, 0), 0);
	ck_assert_int_eq(pf_coalesce_note_read(c, 8, 16, 0), 0);
	ck_assert_int_eq(pf_coalesce_note_read(c, 7, 5, 0), 0);
	ck_assert_int_eq(pf_coalesce_note_read(c, 8, 16, 0), 0);
	return 0;
}

START_TEST(test_note_gone)
{
	struct pf_coalesce c;
	struct fake f = { .hook = read_many }, g = { .hook = gone_8_0 };

	open_c(&c);
	set_uevent_seqnum("100\n");
	lead_ok(&c, false, &f);
	ck_assert_uint_eq(c.n_scanned, 4);
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, 0, 0), 0);
	lead_ok(&c, false, &g);
	ck_assert_uint_eq(c.n_scanned, 3);
	ck_assert(!covered_after(&c, 0, 0, 90));
	ck_assert(covered_after(&c, 16, 0, 90));
	ck_assert(covered_after(&c, 32, 0, 90));
	ck_assert_int_eq(pf_coalesce_record(&c, 7, 5, 0, 90), 0);
	{
		struct fake h = { 0 };

		lead_ok(&c, false, &h);
		ck_assert(h.rounds[0].items[0].covered);
	}
	pf_coalesce_close(&c);
}
END_TEST

START_TEST(test_junk_entries)
{
	static const char *const junk[] = { "junk", "07:1,a,0", "8:0,x,0", "8:0,a,1.tmp",
					    "8:0,a,1 " };
	struct pf_coalesce c;
	struct fake f = { 0 };
	char log_path[PATH_MAX], *text;
	size_t len;
	FILE *lf;
	int saved, fd;

	open_c(&c);
	boot_scan(&c);
	for (size_t i = 0; i < ARRAY_SIZE(junk); i++)
		put(qp("pending/%s", junk[i]), "");
	put(qp("inflight/stale"), "");
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 1, 0, 0), 0);

	(void)snprintf(log_path, sizeof(log_path), "%s/stderr", root);
	fflush(stderr);
	saved = dup(STDERR_FILENO);
	fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(saved, 0);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
	close(fd);
	lead_ok(&c, false, &f);
	fflush(stderr);
	ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
	close(saved);

	ck_assert_uint_eq(f.n_rounds, 1);
	ck_assert_uint_eq(f.rounds[0].n, 1);
	ck_assert_uint_eq(f.rounds[0].items[0].minor, 1);
	ck_assert_uint_eq(count_entries(qp("pending")), 0);
	ck_assert_uint_eq(count_entries(qp("inflight")), 0);

	lf = fopen(log_path, "r");
	ck_assert_ptr_nonnull(lf);
	text = calloc(1, 8192);
	ck_assert_ptr_nonnull(text);
	len = fread(text, 1, 8191, lf);
	fclose(lf);
	ck_assert_uint_gt(len, 0);
	for (size_t i = 0; i < ARRAY_SIZE(junk); i++) {
		char want[128];

		(void)snprintf(want, sizeof(want), "removing unexpected queue entry pending/%s.",
			       junk[i]);
		ck_assert_msg(strstr(text, want), "no warning for %s in:\n%s", junk[i], text);
	}
	ck_assert(strstr(text, "removing unexpected queue entry inflight/stale."));
	free(text);
	pf_coalesce_close(&c);
}
END_TEST

/* ---- the activation journal ---- */

START_TEST(test_activation_journal)
{
	static const char *const bad[] = { "", ".", "..", "-vg", "a/b", "/", "vg/", "v g" };
	struct pf_coalesce c;
	char longname[129];

	open_c(&c);
	ck_assert_int_eq(pf_coalesce_activation_begin(&c, "vg1"), 0);
	ck_assert(exists(qp("activate/vg1")));
	ck_assert_int_eq(pf_coalesce_activation_begin(&c, "vg1"), 0);
	ck_assert_int_eq(pf_coalesce_activation_begin(&c, "vg-2_x.y+z"), 0);
	ck_assert_uint_eq(count_entries(qp("activate")), 2);
	pf_coalesce_activation_end(&c, "vg1");
	ck_assert(!exists(qp("activate/vg1")));
	pf_coalesce_activation_end(&c, "vg1");
	pf_coalesce_activation_end(&c, "vg-2_x.y+z");
	ck_assert_uint_eq(count_entries(qp("activate")), 0);

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		ck_assert_msg(pf_coalesce_activation_begin(&c, bad[i]) == -EINVAL,
			      "accepted \"%s\"", bad[i]);
		pf_coalesce_activation_end(&c, bad[i]);
	}
	/* lvm2's VG names are at most 127 bytes */
	memset(longname, 'v', sizeof(longname) - 1);
	longname[127] = '\0';
	ck_assert_int_eq(pf_coalesce_activation_begin(&c, longname), 0);
	pf_coalesce_activation_end(&c, longname);
	longname[127] = 'v';
	longname[128] = '\0';
	ck_assert_int_eq(pf_coalesce_activation_begin(&c, longname), -EINVAL);
	ck_assert_uint_eq(count_entries(qp("activate")), 0);
	pf_coalesce_close(&c);

	/* end without a begin in this process: nothing happens */
	open_c(&c);
	pf_coalesce_activation_end(&c, "vg1");
	pf_coalesce_close(&c);
}
END_TEST

/* lvm2 lets a VG name start with '.': its activation is journaled like any other. */
START_TEST(test_activation_journal_leading_dot)
{
	struct pf_coalesce c;

	open_c(&c);
	ck_assert_int_eq(pf_coalesce_activation_begin(&c, ".vg"), 0);
	ck_assert(exists(qp("activate/.vg")));
	ck_assert_int_eq(pf_coalesce_activation_hold(&c, ".vg"), 0);
	ck_assert_int_ge(c.held_fd, 0);
	pf_coalesce_activation_end(&c, ".vg");
	ck_assert(!exists(qp("activate/.vg")));
	ck_assert_int_lt(c.held_fd, 0);
	ck_assert_int_eq(pf_coalesce_activation_begin(&c, ".."), -EINVAL);
	pf_coalesce_close(&c);
}
END_TEST

START_TEST(test_has_pending)
{
	struct pf_coalesce c;
	struct fake f = { 0 };

	open_c(&c);
	ck_assert(!pf_coalesce_has_pending(&c));
	put(qp("inflight/8:0,-,0"), "");
	ck_assert(!pf_coalesce_has_pending(&c));
	ck_assert_int_eq(pf_coalesce_record(&c, 8, 0, 0, 0), 0);
	ck_assert(pf_coalesce_has_pending(&c));
	ck_assert(pf_coalesce_has_pending(&c));
	lead_ok(&c, false, &f);
	ck_assert(!pf_coalesce_has_pending(&c));
	pf_coalesce_close(&c);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("coalesce");
	TCase *names = pf_unit_tcase("names");
	TCase *files = pf_unit_tcase("files");
	TCase *lead_tc = pf_unit_tcase("lead");

	tcase_add_test(names, test_entry_round_trip);
	tcase_add_test(names, test_entry_unknown_flags);
	tcase_add_test(names, test_entry_malformed);
	suite_add_tcase(s, names);

	tcase_add_checked_fixture(files, setup, teardown);
	tcase_add_test(files, test_open_creates_tree);
	tcase_add_test(files, test_open_deep_missing);
	tcase_add_test(files, test_open_queue_dirs_lost);
	tcase_add_test(files, test_open_file_in_place);
	tcase_add_test(files, test_record);
	tcase_add_test(files, test_lock);
	tcase_add_test(files, test_lock_deadline);
	tcase_add_test(files, test_lock_unsafe);
	tcase_add_test(files, test_adopt_lock);
	tcase_add_test(files, test_activation_journal);
	tcase_add_test(files, test_activation_journal_leading_dot);
	tcase_add_test(files, test_has_pending);
	suite_add_tcase(s, files);

	tcase_add_checked_fixture(lead_tc, setup, teardown);
	tcase_add_test(lead_tc, test_lead_first_since_boot);
	tcase_add_test(lead_tc, test_lead_full_first);
	tcase_add_test(lead_tc, test_lead_followers_mid_scan);
	tcase_add_test(lead_tc, test_lead_merge);
	tcase_add_test(lead_tc, test_lead_covered);
	tcase_add_test(lead_tc, test_lead_covered_later_round);
	tcase_add_test(lead_tc, test_lead_uevent_seqnum_unknown);
	tcase_add_test(lead_tc, test_lead_inflight_leftovers);
	tcase_add_test(lead_tc, test_lead_unsorted_scanned);
	tcase_add_test(lead_tc, test_dir_entry_not_taken);
	tcase_add_test(lead_tc, test_lead_recovers_activations);
	tcase_add_test(lead_tc, test_lead_damaged_scanned);
	tcase_add_test(lead_tc, test_lead_releases_cookies);
	tcase_add_test(lead_tc, test_leftovers);
	tcase_add_test(lead_tc, test_lead_valid_scanned);
	tcase_add_test(lead_tc, test_lead_scanned_no_room);
	tcase_add_test(lead_tc, test_lead_round_error);
	tcase_add_test(lead_tc, test_lead_first_round_error_keeps_full);
	tcase_add_test(lead_tc, test_note_gone);
	tcase_add_test(lead_tc, test_junk_entries);
	suite_add_tcase(s, lead_tc);
	return s;
}

PF_UNIT_MAIN()
