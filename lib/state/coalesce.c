/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The leader lock, the pending queue and the leader's rounds; see coalesce.h and docs/design.md. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/grow.h"
#include "base/inject.h"
#include "base/log.h"
#include "base/paths.h"
#include "base/stop.h"
#include "base/strutil.h"
#include "format/names.h"
#include "state/coalesce.h"

#define DIR_MODE 0700
#define FILE_MODE 0600
#define ENTRY_NAME_MAX 64U
#define SCANNED_FILE "scanned"
#define SCANNED_TMP "scanned.tmp"
#define SCANNED_LINE_MAX 64U

static const char *const queue_dirs[] = { "pending", "inflight", "activate", "cookies" };

/* mkdir that accepts an existing directory. */
static int mkdir_at(int dirfd, const char *path)
{
	if (mkdirat(dirfd, path, DIR_MODE) == 0 || errno == EEXIST)
		return 0;
	return -errno;
}


static int open_dir_at(int dirfd, const char *path)
{
	int fd = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);

	return fd < 0 ? -errno : fd;
}

static int create_queue_dirs(int dir_fd)
{
	for (size_t i = 0; i < ARRAY_SIZE(queue_dirs); i++) {
		int r = mkdir_at(dir_fd, queue_dirs[i]);

		if (r < 0)
			return r;
	}
	return 0;
}

int pf_coalesce_open(const char *run_dir, const char *lock_dir, const char *sys_dir,
		     struct pf_coalesce *ret)
{
	struct pf_coalesce c = { .dir_fd = -1, .pending_fd = -1, .inflight_fd = -1,
				 .activate_fd = -1, .cookies_fd = -1, .lock_fd = -1, .held_fd = -1 };
	_cleanup_close_ int run_fd = -1;
	int r;

	if (asprintf(&c.lock_path, "%s/%s", lock_dir, PF_COALESCE_LOCK) < 0) {
		c.lock_path = NULL;
		return -ENOMEM;
	}
	if (sys_dir) {
		c.sys_dir = strdup(sys_dir);
		if (!c.sys_dir) {
			r = -ENOMEM;
			goto out;
		}
	}
	/* The common case costs one openat; only the first invocation since boot creates. */
	r = open_dir_at(AT_FDCWD, run_dir);
	if (r == -ENOENT) {
		r = pf_paths_mkdir_p(run_dir, DIR_MODE);
		if (r == 0)
			r = open_dir_at(AT_FDCWD, run_dir);
	}
	if (r < 0)
		goto out;
	run_fd = r;
	r = open_dir_at(run_fd, PF_COALESCE_DIR);
	if (r == -ENOENT) {
		r = mkdir_at(run_fd, PF_COALESCE_DIR);
		if (r == 0)
			r = open_dir_at(run_fd, PF_COALESCE_DIR);
		if (r >= 0) {
			int q = create_queue_dirs(r);

			if (q < 0) {
				(void)close(r);
				r = q;
			}
		}
	}
	if (r < 0)
		goto out;
	c.dir_fd = r;
	*ret = c;
	return 0;
out:
	pf_coalesce_close(&c);
	return r;
}

void pf_coalesce_close(struct pf_coalesce *c)
{
	int *fds[] = { &c->dir_fd,  &c->pending_fd, &c->inflight_fd, &c->activate_fd,
		       &c->cookies_fd, &c->lock_fd,	 &c->held_fd };

	for (size_t i = 0; i < ARRAY_SIZE(fds); i++)
		if (*fds[i] >= 0)
			(void)close(*fds[i]);
	free(c->lock_path);
	free(c->sys_dir);
	free(c->scanned);
	free(c->taken);
	memset(c, 0, sizeof(*c));
	c->dir_fd = c->pending_fd = c->inflight_fd = c->activate_fd = c->cookies_fd = -1;
	c->lock_fd = -1;
	c->held_fd = -1;
}

void pf_coalesce_format_entry(char *buf, size_t size, unsigned major, unsigned minor,
			      unsigned flags, unsigned long long seqnum)
{
	(void)snprintf(buf, size, "%u:%u,%s,%llu", major, minor,
		       flags & PF_PENDING_ACTIVATE ? "a" : "-", seqnum);
}

/* A number as we write it: no leading zero, so that a queue entry has one name only. */
static bool parse_uint(const char **s, uint64_t max, uint64_t *ret)
{
	if ((*s)[0] == '0' && (*s)[1] >= '0' && (*s)[1] <= '9')
		return false;
	return pf_scan_u64(s, max, ret) == 0;
}

int pf_coalesce_parse_entry(const char *name, unsigned *ret_major, unsigned *ret_minor,
			    unsigned *ret_flags, unsigned long long *ret_seqnum)
{
	uint64_t maj, min, seq;
	unsigned flags;
	const char *p = name;

	if (!parse_uint(&p, UINT_MAX, &maj) || *p++ != ':' || !parse_uint(&p, UINT_MAX, &min) ||
	    *p++ != ',')
		return -EINVAL;
	if (*p == 'a')
		flags = PF_PENDING_ACTIVATE;
	else if (*p == '-')
		flags = 0;
	else
		return -EINVAL;
	p++;
	if (*p++ != ',' || !parse_uint(&p, UINT64_MAX, &seq) || *p)
		return -EINVAL;
	*ret_major = (unsigned)maj;
	*ret_minor = (unsigned)min;
	*ret_flags = flags;
	*ret_seqnum = seq;
	return 0;
}

/* A queue subdirectory, opened once per process. */
static int queue_fd(struct pf_coalesce *c, int *fd, const char *name)
{
	int r;

	if (*fd >= 0)
		return *fd;
	r = open_dir_at(c->dir_fd, name);
	if (r == -ENOENT) {
		r = create_queue_dirs(c->dir_fd);
		if (r == 0)
			r = open_dir_at(c->dir_fd, name);
	}
	if (r >= 0)
		*fd = r;
	return r;
}

int pf_coalesce_record(struct pf_coalesce *c, unsigned major, unsigned minor, unsigned flags,
		       unsigned long long seqnum)
{
	char name[ENTRY_NAME_MAX], path[ENTRY_NAME_MAX + 16];

	pf_coalesce_format_entry(name, sizeof(name), major, minor, flags, seqnum);
	(void)snprintf(path, sizeof(path), "pending/%s", name);
	/* An empty file made in one call: it exists whole or not at all. */
	if (mknodat(c->dir_fd, path, S_IFREG | FILE_MODE, 0) == 0 || errno == EEXIST)
		goto recorded;
	if (errno != ENOENT)
		return -errno;
	if (create_queue_dirs(c->dir_fd) < 0 ||
	    (mknodat(c->dir_fd, path, S_IFREG | FILE_MODE, 0) < 0 && errno != EEXIST))
		return -errno;
recorded:
	pf_inject("recorded");
	return 0;
}

static int open_lock_file(struct pf_coalesce *c)
{
	int fd;

	fd = open(c->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, FILE_MODE);
	if (fd < 0 && errno == ENOENT) {
		char *slash = strrchr(c->lock_path, '/');
		int r;

		if (!slash || slash == c->lock_path)
			return -ENOENT;
		*slash = '\0';
		r = pf_paths_mkdir_p(c->lock_path, DIR_MODE);
		*slash = '/';
		if (r < 0)
			return r;
		fd = open(c->lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, FILE_MODE);
	}
	return fd < 0 ? -errno : fd;
}

static int lock_with(struct pf_coalesce *c, uint64_t deadline_ns)
{
	_cleanup_close_ int fd = -1;
	struct pf_diag why = { 0 };
	char *slash = strrchr(c->lock_path, '/');
	int r;

	if (c->lock_fd >= 0)
		return 0;
	fd = open_lock_file(c);
	if (fd < 0)
		return fd;
	/* A lock another user can hold or replace would let them stop every activation. */
	if (slash && slash != c->lock_path) {
		*slash = '\0';
		r = pf_paths_check_lock(c->lock_path, fd, slash + 1, &why);
		*slash = '/';
		if (r < 0) {
			pf_err("  Refusing the pvscan-fast leader lock %s: %s.", c->lock_path,
			       why.msg);
			return r;
		}
	}
	r = pf_flock_until(fd, LOCK_EX, deadline_ns);
	if (r < 0)
		return r;
	c->lock_fd = TAKE_FD(fd);
	pf_inject("locked");
	return 0;
}

int pf_coalesce_trylock(struct pf_coalesce *c)
{
	return lock_with(c, 0);
}

int pf_coalesce_lock(struct pf_coalesce *c, unsigned timeout_ms)
{
	/* 0 would be "try once", which a caller of this form does not mean */
	return lock_with(c, pf_deadline_after_ms(timeout_ms ? timeout_ms
							    : PF_COALESCE_LOCK_TIMEOUT_MS_DEFAULT));
}

int pf_coalesce_adopt_lock(struct pf_coalesce *c, int fd)
{
	struct stat have, want;
	int flags;

	if (fd < 0 || fstat(fd, &have) < 0 || stat(c->lock_path, &want) < 0)
		return -EBADF;
	/* Only the lock file itself, so a stray descriptor cannot make us a second leader. */
	if (have.st_dev != want.st_dev || have.st_ino != want.st_ino)
		return -EBADF;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0)
		return -errno;
	flags = fcntl(fd, F_GETFD);
	if (flags < 0 || fcntl(fd, F_SETFD, flags | FD_CLOEXEC) < 0)
		return -errno;
	c->lock_fd = fd;
	return 0;
}

int pf_coalesce_lock_fd_for_exec(struct pf_coalesce *c)
{
	int flags;

	if (c->lock_fd < 0)
		return -EBADF;
	flags = fcntl(c->lock_fd, F_GETFD);
	if (flags < 0 || fcntl(c->lock_fd, F_SETFD, flags & ~FD_CLOEXEC) < 0)
		return -errno;
	return c->lock_fd;
}

void pf_coalesce_unlock(struct pf_coalesce *c)
{
	if (c->lock_fd < 0)
		return;
	(void)flock(c->lock_fd, LOCK_UN);
	(void)close(c->lock_fd);
	c->lock_fd = -1;
}

/*
 * Calls fn for every entry of a queue directory but . and ..; stops at the first error.
 * fn sees only names; entries that are not regular files are for entry_is_valid to drop.
 */
static int for_each_entry(int dir_fd, int (*fn)(void *, const char *), void *arg)
{
	DIR *d;
	struct dirent *de;
	int fd, r = 0;

	fd = openat(dir_fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	d = fdopendir(fd);
	if (!d) {
		r = -errno;
		(void)close(fd);
		return r;
	}
	while (r == 0) {
		errno = 0;
		de = readdir(d);
		if (!de) {
			r = errno ? -errno : 0;
			break;
		}
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		r = fn(arg, de->d_name);
	}
	(void)closedir(d);
	return r; /* 1 when fn stopped the walk early */
}

/* A name we wrote, on a regular file: anything else is junk nobody of ours made. */
static bool entry_ok(int dir_fd, const char *name)
{
	unsigned a, b, f;
	unsigned long long s;
	struct stat st;

	return strlen(name) < ENTRY_NAME_MAX && pf_coalesce_parse_entry(name, &a, &b, &f, &s) == 0 &&
	       fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

static int found_one(void *arg, const char *name)
{
	const struct pf_coalesce *c = arg;

	return entry_ok(c->pending_fd, name) ? 1 : 0;
}

bool pf_coalesce_has_pending(struct pf_coalesce *c)
{
	int fd = queue_fd(c, &c->pending_fd, "pending");

	/* When it cannot tell, it says yes: the lock then decides who looks. */
	return fd < 0 || for_each_entry(fd, found_one, c) != 0;
}

/* An activate/ entry is named by its VG: lvm2's names are safe file names ("." and ".." not). */
static bool vgname_ok(const char *vgname)
{
	return pf_name_is_valid(vgname, strlen(vgname));
}

static int found_entry(void *arg, const char *name)
{
	const int *dir_fd = arg;

	return entry_ok(*dir_fd, name) ? 1 : 0;
}

static int cookie_parse(const char *name, uint32_t *ret)
{
	uint64_t v;

	if (pf_parse_u64(name, UINT32_MAX, &v) < 0 || v == 0)
		return -EINVAL;
	*ret = (uint32_t)v;
	return 0;
}

static int found_cookie(void *arg _unused_, const char *name)
{
	uint32_t cookie;

	return cookie_parse(name, &cookie) == 0;
}

static int found_vg(void *arg, const char *name)
{
	const int *dir_fd = arg;
	struct stat st;

	return vgname_ok(name) && fstatat(*dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
	       S_ISREG(st.st_mode);
}

int pf_coalesce_leftovers(const char *run_dir, bool *ret)
{
	static int (*const found[])(void *, const char *) = { found_entry, found_entry, found_vg,
							      found_cookie };
	_cleanup_close_ int run_fd = -1, dir_fd = -1;
	int r;

	*ret = false;
	run_fd = open_dir_at(AT_FDCWD, run_dir);
	if (run_fd == -ENOENT)
		return 0;
	if (run_fd < 0)
		return run_fd;
	dir_fd = open_dir_at(run_fd, PF_COALESCE_DIR);
	if (dir_fd == -ENOENT)
		return 0; /* nobody queued anything since boot */
	if (dir_fd < 0)
		return dir_fd;
	/* the first full scan since boot (or an admin's) began and never completed */
	if (faccessat(dir_fd, SCANNED_FILE, F_OK, AT_SYMLINK_NOFOLLOW) < 0) {
		*ret = true;
		return errno == ENOENT ? 0 : -errno;
	}
	/* A live owner of an activate/ entry ends it soon; the leader lock tells who looks. */
	for (size_t i = 0; i < ARRAY_SIZE(queue_dirs) && !*ret; i++) {
		_cleanup_close_ int fd = open_dir_at(dir_fd, queue_dirs[i]);

		if (fd == -ENOENT)
			continue;
		if (fd < 0)
			return fd;
		r = for_each_entry(fd, found[i], &fd);
		if (r < 0)
			return r;
		*ret = r > 0;
	}
	return 0;
}

static int add_taken(struct pf_coalesce *c, const char *name)
{
	int r;

	if (c->n_taken >= PF_COALESCE_TAKE_MAX)
		return 1;
	r = pf_grow(&c->taken, &c->cap_taken, c->n_taken + 1, PF_COALESCE_TAKE_MAX);
	if (r < 0)
		return r;
	(void)snprintf(c->taken[c->n_taken++], ENTRY_NAME_MAX, "%s", name);
	return 0;
}

/* Junk in a queue: say so and drop it (an empty directory too), so it cannot jam the queue. */
static bool entry_is_valid(int dir_fd, const char *dir, const char *name)
{
	if (entry_ok(dir_fd, name))
		return true;
	pf_warn("  WARNING: removing unexpected queue entry %s/%s.", dir, name);
	if (unlinkat(dir_fd, name, 0) < 0 && errno == EISDIR)
		(void)unlinkat(dir_fd, name, AT_REMOVEDIR);
	return false;
}

static int take_leftover(void *arg, const char *name)
{
	struct pf_coalesce *c = arg;

	if (!entry_is_valid(c->inflight_fd, "inflight", name))
		return 0;
	pf_debug("  taking over %s from a leader that died", name);
	return add_taken(c, name);
}

static int take_pending(void *arg, const char *name)
{
	struct pf_coalesce *c = arg;

	if (c->n_taken >= PF_COALESCE_TAKE_MAX)
		return 1; /* the rest wait for the next round */
	if (!entry_is_valid(c->pending_fd, "pending", name))
		return 0;
	/* Moved, not deleted: a leader killed from here on leaves it for the next one. */
	if (renameat(c->pending_fd, name, c->inflight_fd, name) < 0)
		return errno == ENOENT ? 0 : -errno;
	return add_taken(c, name);
}

static int cmp_pending(const void *a, const void *b)
{
	const struct pf_pending *x = a, *y = b;

	if (x->major != y->major)
		return x->major < y->major ? -1 : 1;
	if (x->minor != y->minor)
		return x->minor < y->minor ? -1 : 1;
	return 0;
}

static struct pf_scanned *scanned_find(struct pf_coalesce *c, unsigned major, unsigned minor)
{
	struct pf_pending key = { .major = major, .minor = minor };
	size_t lo = 0, hi = c->n_scanned;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		struct pf_pending m = { .major = c->scanned[mid].major, .minor = c->scanned[mid].minor };
		int d = cmp_pending(&key, &m);

		if (d == 0)
			return &c->scanned[mid];
		if (d < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

/* The round's items: taken entries merged by devno, in devno order, with coverage. */
static int build_items(struct pf_coalesce *c, struct pf_pending **ret, size_t *ret_n)
{
	struct pf_pending *items = calloc(c->n_taken ? c->n_taken : 1, sizeof(*items));
	size_t n = 0, w = 0;

	if (!items)
		return -ENOMEM;
	for (size_t i = 0; i < c->n_taken; i++) {
		struct pf_pending *p = &items[n];

		/* taken names were checked when taken */
		if (pf_coalesce_parse_entry(c->taken[i], &p->major, &p->minor, &p->flags,
					    &p->seqnum) == 0)
			n++;
	}
	qsort(items, n, sizeof(*items), cmp_pending);
	for (size_t i = 0; i < n; i++) {
		struct pf_pending *m = w > 0 ? &items[w - 1] : NULL;

		if (m && cmp_pending(m, &items[i]) == 0) {
			m->flags |= items[i].flags;
			/* 0 is "unknown" and stays so: such an event may be newer than any read */
			if (m->seqnum == 0 || items[i].seqnum == 0)
				m->seqnum = 0;
			else if (items[i].seqnum > m->seqnum)
				m->seqnum = items[i].seqnum;
			continue;
		}
		items[w++] = items[i];
	}
	n = w;
	for (size_t i = 0; i < n; i++) {
		struct pf_pending *p = &items[i];
		const struct pf_scanned *s = scanned_find(c, p->major, p->minor);

		/* Every event numbered by the kernel before we read the device, flags no wider. */
		p->covered = p->seqnum != 0 && s && p->seqnum <= s->seqnum &&
			     (p->flags & ~s->flags) == 0;
	}
	*ret = items;
	*ret_n = n;
	return 0;
}

static int take(struct pf_coalesce *c, struct pf_pending **ret, size_t *ret_n)
{
	int r;

	c->n_taken = 0;
	r = queue_fd(c, &c->pending_fd, "pending");
	if (r >= 0)
		r = queue_fd(c, &c->inflight_fd, "inflight");
	if (r < 0)
		return r;
	r = for_each_entry(c->inflight_fd, take_leftover, c);
	if (r >= 0)
		r = for_each_entry(c->pending_fd, take_pending, c);
	if (r < 0)
		return r;
	return build_items(c, ret, ret_n);
}

/* An entry that cannot be removed would be taken again for ever: that ends the lead. */
static int done(struct pf_coalesce *c)
{
	int r = 0;

	for (size_t i = 0; i < c->n_taken; i++)
		if (unlinkat(c->inflight_fd, c->taken[i], 0) < 0 && errno != ENOENT && r == 0)
			r = -errno;
	c->n_taken = 0;
	return r;
}

/* The kernel's count of uevents sent so far; 0 when unknown (then nothing counts as covered). */
static unsigned long long uevent_seqnum(const struct pf_coalesce *c)
{
	_cleanup_free_ char *path = NULL, *text = NULL;
	const char *p;
	uint64_t v;
	size_t len;

	if (!c->sys_dir || asprintf(&path, "%s/kernel/uevent_seqnum", c->sys_dir) < 0)
		return 0;
	if (pf_read_file_at(AT_FDCWD, path, 32, &text, &len) < 0)
		return 0;
	p = text;
	if (!parse_uint(&p, UINT64_MAX, &v) || (*p && *p != '\n'))
		return 0;
	return v;
}

static int scanned_load(struct pf_coalesce *c)
{
	_cleanup_free_ char *text = NULL;
	size_t len;
	int r;

	c->n_scanned = 0;
	c->have_scanned = false;
	r = pf_read_file_at(c->dir_fd, SCANNED_FILE, (size_t)PF_COALESCE_SCANNED_MAX * SCANNED_LINE_MAX,
			    &text, &len);
	if (r == -ENOENT)
		return 0;
	if (r < 0)
		return r;
	for (char *line = text, *nl; *line; line = nl + 1) {
		uint64_t maj, min, flags, seq;
		const char *p = line;
		struct pf_scanned *s;

		nl = strchr(line, '\n');
		if (!nl)
			break; /* a torn last line cannot happen (rename), but never trust it */
		*nl = '\0';
		if (!parse_uint(&p, UINT_MAX, &maj) || *p++ != ':' ||
		    !parse_uint(&p, UINT_MAX, &min) || *p++ != ' ' ||
		    !parse_uint(&p, UINT_MAX, &flags) || *p++ != ' ' ||
		    !parse_uint(&p, UINT64_MAX, &seq) || *p) {
			c->n_scanned = 0; /* damaged: as if absent, the next round is a full scan */
			return 0;
		}
		r = pf_coalesce_note_read(c, (unsigned)maj, (unsigned)min, (unsigned)flags);
		if (r < 0)
			return r;
		s = scanned_find(c, (unsigned)maj, (unsigned)min);
		if (s)
			s->seqnum = seq;
	}
	c->have_scanned = true;
	return 0;
}

/* Written whole to a temporary name and renamed: a reader sees the old record or the new. */
static int scanned_save(struct pf_coalesce *c)
{
	FILE *f;
	int fd, r = 0;

	fd = openat(c->dir_fd, SCANNED_TMP, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW,
		    FILE_MODE);
	if (fd < 0)
		return -errno;
	f = fdopen(fd, "w");
	if (!f) {
		r = -errno;
		(void)close(fd);
		return r;
	}
	errno = 0;
	for (size_t i = 0; i < c->n_scanned; i++) {
		const struct pf_scanned *s = &c->scanned[i];

		(void)fprintf(f, "%u:%u %u %llu\n", s->major, s->minor, s->flags, s->seqnum);
	}
	/* The failed write's own errno (ENOSPC on a full /run), which the warning names. */
	if (fflush(f) != 0 || ferror(f))
		r = errno > 0 ? -errno : -EIO;
	if (fclose(f) != 0 && r == 0)
		r = -errno;
	if (r == 0 && renameat(c->dir_fd, SCANNED_TMP, c->dir_fd, SCANNED_FILE) < 0)
		r = -errno;
	if (r < 0) {
		/*
		 * A full /run has room for an empty record, which still says a full scan was done:
		 * later leaders then read their own devices, not every device again.
		 */
		fd = openat(c->dir_fd, SCANNED_TMP, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
		if (fd < 0 || close(fd) < 0 ||
		    renameat(c->dir_fd, SCANNED_TMP, c->dir_fd, SCANNED_FILE) < 0)
			(void)unlinkat(c->dir_fd, SCANNED_TMP, 0);
	}
	return r;
}

int pf_coalesce_note_read(struct pf_coalesce *c, unsigned major, unsigned minor, unsigned flags)
{
	struct pf_scanned *s = scanned_find(c, major, minor);
	size_t at;
	int r;

	if (s) {
		s->flags = flags;
		s->seqnum = c->round_seqnum;
		return 0;
	}
	if (c->n_scanned >= PF_COALESCE_SCANNED_MAX)
		return 0; /* not noting it only costs a read later */
	r = pf_grow(&c->scanned, &c->cap_scanned, c->n_scanned + 1, PF_COALESCE_SCANNED_MAX);
	if (r < 0)
		return r;
	/* Kept in devno order for scanned_find(); a full scan notes them in lvm2's order. */
	at = c->n_scanned;
	while (at > 0 && (c->scanned[at - 1].major > major ||
			  (c->scanned[at - 1].major == major && c->scanned[at - 1].minor > minor)))
		at--;
	memmove(&c->scanned[at + 1], &c->scanned[at], (c->n_scanned - at) * sizeof(*c->scanned));
	c->scanned[at] = (struct pf_scanned){ .major = major, .minor = minor, .flags = flags,
					      .seqnum = c->round_seqnum };
	c->n_scanned++;
	return 0;
}

void pf_coalesce_note_gone(struct pf_coalesce *c, unsigned major, unsigned minor)
{
	struct pf_scanned *s = scanned_find(c, major, minor);
	size_t at;

	if (!s)
		return;
	at = (size_t)(s - c->scanned);
	memmove(s, s + 1, (c->n_scanned - at - 1) * sizeof(*s));
	c->n_scanned--;
}

int pf_coalesce_activation_begin(struct pf_coalesce *c, const char *vgname)
{
	int fd = queue_fd(c, &c->activate_fd, "activate");

	if (fd < 0)
		return fd;
	if (!vgname_ok(vgname))
		return -EINVAL;
	if (mknodat(fd, vgname, S_IFREG | FILE_MODE, 0) < 0 && errno != EEXIST)
		return -errno;
	pf_inject("activation-begun");
	return 0;
}

int pf_coalesce_activation_hold(struct pf_coalesce *c, const char *vgname)
{
	int fd;

	if (c->activate_fd < 0 || c->held_fd >= 0 || !vgname_ok(vgname))
		return -EINVAL;
	fd = openat(c->activate_fd, vgname, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int r = -errno;

		(void)close(fd);
		return r;
	}
	c->held_fd = fd;
	(void)snprintf(c->held_vg, sizeof(c->held_vg), "%s", vgname);
	return 0;
}

void pf_coalesce_activation_end(struct pf_coalesce *c, const char *vgname)
{
	if (c->activate_fd < 0 || !vgname_ok(vgname))
		return;
	pf_inject("activation-ending");
	if (unlinkat(c->activate_fd, vgname, 0) < 0 && errno != ENOENT)
		pf_warn("  WARNING: cannot remove activation journal entry %s: %s.", vgname,
			strerror(errno));
	if (c->held_fd >= 0 && strcmp(c->held_vg, vgname) == 0) {
		(void)close(c->held_fd);
		c->held_fd = -1;
	}
}

static void cookie_name(char buf[static 16], uint32_t cookie)
{
	(void)snprintf(buf, 16, "%" PRIu32, cookie);
}

int pf_coalesce_cookie_begin(struct pf_coalesce *c, uint32_t cookie)
{
	int fd = queue_fd(c, &c->cookies_fd, "cookies");
	char name[16];

	if (fd < 0)
		return fd;
	cookie_name(name, cookie);
	if (mknodat(fd, name, S_IFREG | FILE_MODE, 0) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

void pf_coalesce_cookie_end(struct pf_coalesce *c, uint32_t cookie)
{
	char name[16];

	if (c->cookies_fd < 0)
		return;
	cookie_name(name, cookie);
	if (unlinkat(c->cookies_fd, name, 0) < 0 && errno != ENOENT)
		pf_warn("  WARNING: cannot remove udev cookie entry %s: %s.", name,
			strerror(errno));
}

struct cookie_walk {
	struct pf_coalesce *c;
	const struct pf_coalesce_ops *ops;
	void *ctx;
};

static int release_cookie(void *arg, const char *name)
{
	struct cookie_walk *w = arg;
	uint32_t cookie;

	if (cookie_parse(name, &cookie) < 0) {
		(void)entry_is_valid(w->c->cookies_fd, "cookies", name); /* removes the junk */
		return 0;
	}
	pf_debug("  releasing udev cookie %s of a leader that died", name);
	if (w->ops->release_cookie)
		w->ops->release_cookie(w->ctx, cookie);
	if (unlinkat(w->c->cookies_fd, name, 0) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

/*
 * A dead leader's udev cookies: a batch's cookie lives only while its leader holds the lock,
 * so every entry found by the next leader is one nobody will ever wait for.
 */
static int recover_cookies(struct pf_coalesce *c, const struct pf_coalesce_ops *ops, void *ctx)
{
	struct cookie_walk w = { .c = c, .ops = ops, .ctx = ctx };
	int fd = queue_fd(c, &c->cookies_fd, "cookies");

	if (fd < 0)
		return fd;
	return for_each_entry(fd, release_cookie, &w);
}

/* An entry whose owner is alive (it holds the entry's flock) is not ours to finish. */
static int claim_journal_entry(struct pf_coalesce *c, const char *vgname)
{
	int fd = openat(c->activate_fd, vgname, O_RDWR | O_CLOEXEC | O_NOFOLLOW);

	if (fd < 0)
		return -errno;
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		(void)close(fd);
		return -EWOULDBLOCK;
	}
	return fd;
}

struct vg_names {
	char (*v)[PF_NAME_MAX + 1];
	size_t n, cap;
};

static int collect_vg_name(void *arg, const char *name)
{
	struct vg_names *names = arg;
	int r;

	if (!vgname_ok(name))
		return 0;
	if (names->n >= PF_COALESCE_TAKE_MAX)
		return 1;
	r = pf_grow(&names->v, &names->cap, names->n + 1, PF_COALESCE_TAKE_MAX);
	if (r < 0)
		return r;
	memcpy(names->v[names->n++], name, strlen(name) + 1); /* vgname_ok: fits */
	return 0;
}

/* A dead leader's journal: every VG it began activating is activated (again) now. */
static int recover_activations(struct pf_coalesce *c, const struct pf_coalesce_ops *ops,
			       void *ctx)
{
	struct vg_names names = { 0 };
	int fd = queue_fd(c, &c->activate_fd, "activate"), r;

	if (fd < 0)
		return fd;
	/* Collected first: recovery adds and removes entries in this directory. */
	r = for_each_entry(fd, collect_vg_name, &names);
	for (size_t i = 0; i < names.n && r >= 0; i++) {
		int entry_fd = claim_journal_entry(c, names.v[i]);

		if (entry_fd < 0)
			continue; /* gone, or its owner still waits for udev to take its line */
		pf_debug("  activating VG %s, left half done by a leader that died", names.v[i]);
		if (ops->recover_vg)
			r = ops->recover_vg(ctx, c, names.v[i]);
		(void)close(entry_fd);
	}
	free(names.v);
	return r < 0 ? r : 0;
}

int pf_coalesce_lead(struct pf_coalesce *c, bool full_first, const struct pf_coalesce_ops *ops,
		     void *ctx)
{
	struct pf_pending *items = NULL;
	size_t n = 0;
	bool first_pass = true;
	int r;

	if (c->lock_fd < 0)
		return -ENOLCK;
again:
	if (first_pass && full_first) {
		if (unlinkat(c->dir_fd, SCANNED_FILE, 0) < 0 && errno != ENOENT) {
			r = -errno;
			goto out_unlock;
		}
		c->n_scanned = 0;
		c->have_scanned = false;
	} else {
		r = scanned_load(c);
		if (r < 0)
			goto out_unlock;
	}
	r = recover_cookies(c, ops, ctx);
	if (r >= 0)
		r = recover_activations(c, ops, ctx);
	if (r < 0)
		goto out_unlock;
	for (unsigned round = 0;; round++) {
		struct pf_coalesce_round rd;

		free(items);
		items = NULL;
		if (pf_stop_requested()) {
			r = -EINTR; /* what is queued or in flight stays for the next leader */
			goto out_unlock;
		}
		r = take(c, &items, &n);
		if (r < 0)
			goto out_unlock;
		rd = (struct pf_coalesce_round){
			.items = items,
			.n = n,
			/* full_first is the invocation's own first round, not a relead's */
			.full = round == 0 && ((first_pass && full_first) || !c->have_scanned),
			.first = first_pass && round == 0,
		};
		if (n == 0 && !rd.full && !rd.first)
			break;
		c->round_seqnum = uevent_seqnum(c);
		pf_inject("taken");
		r = ops->round(ctx, c, &rd);
		if (r < 0)
			goto out_unlock;
		pf_inject("round-done");
		if (rd.full)
			c->have_scanned = true;
		if (c->have_scanned) {
			r = scanned_save(c);
			if (r < 0)
				pf_warn("  WARNING: cannot save %s/%s: %s.", PF_COALESCE_DIR,
					SCANNED_FILE, strerror(-r));
		}
		r = done(c);
		if (r < 0)
			goto out_unlock;
		pf_inject("round-finished");
	}
	pf_inject("drained");
	pf_coalesce_unlock(c);
	pf_inject("released");
	/* An entry recorded while its follower's trylock met our lock must not wait. */
	if (!pf_stop_requested() && pf_coalesce_has_pending(c) && pf_coalesce_trylock(c) == 0) {
		pf_debug("  an entry slipped in after the lock was released: leading again");
		first_pass = false;
		goto again;
	}
	free(items);
	return 0;
out_unlock:
	free(items);
	pf_coalesce_unlock(c);
	return r;
}
