/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which devices a reader process is still stuck on, remembered across scans. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/grow.h"
#include "base/paths.h"
#include "base/strutil.h"
#include "io/stuck.h"

/* Only a handful of devices ever hang at once: these bound what a crafted directory costs. */
#define FILES_MAX      256U
#define FILE_BYTES_MAX (64U * 1024U)
#define FILE_PREFIX    "r-"

char *pf_stuck_dir(const char *run_dir)
{
	return pf_path_join(run_dir, PF_STUCK_SUBDIR);
}

int pf_stuck_key_of(const char *path, struct pf_stuck_key *ret)
{
	struct stat st;

	if (stat(path, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode))
		*ret = (struct pf_stuck_key){
		    .blk = true, .a = major(st.st_rdev), .b = minor(st.st_rdev)};
	else
		*ret = (struct pf_stuck_key){.a = st.st_dev, .b = st.st_ino};
	return 0;
}

const struct pf_stuck_key *pf_stuck_find(const struct pf_stuck_key *keys, size_t n,
					 const struct pf_stuck_key *k)
{
	for (size_t i = 0; i < n; i++)
		if (keys[i].blk == k->blk && keys[i].a == k->a && keys[i].b == k->b)
			return &keys[i];
	return NULL;
}

/* One "b|i A B SINCE" line; false for anything else. */
static bool parse_line(const char *s, struct pf_stuck_key *ret)
{
	uint64_t since;

	if ((s[0] != 'b' && s[0] != 'i') || s[1] != ' ')
		return false;
	ret->blk = s[0] == 'b';
	s += 2;
	if (pf_scan_u64(&s, UINT64_MAX, &ret->a) < 0 || *s++ != ' ' ||
	    pf_scan_u64(&s, UINT64_MAX, &ret->b) < 0 || *s++ != ' ' ||
	    pf_scan_u64(&s, INT64_MAX, &since) < 0 || *s != '\0')
		return false;
	ret->since = (int64_t)since;
	return true;
}

/* The keys a live reader's file lists; nothing added when its reader is gone. */
static int load_file(int dirfd, const char *name, struct pf_stuck_key **keys, size_t *n,
		     size_t *cap)
{
	_cleanup_close_ int fd =
	    openat(dirfd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	_cleanup_free_ char *text = NULL;
	char *line, *end, *save = NULL;
	ssize_t len;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (flock(fd, LOCK_SH | LOCK_NB) == 0) {
		/* Nobody holds it: that reader is gone, and so is the hang it noted. */
		(void)unlinkat(dirfd, name, 0);
		return 0;
	}
	if (errno != EWOULDBLOCK)
		return -errno;
	text = malloc(FILE_BYTES_MAX + 1);
	if (!text)
		return -ENOMEM;
	len = pf_read_full(fd, text, FILE_BYTES_MAX, 0);
	if (len < 0)
		return (int)len;
	text[len] = '\0';
	/* A line still being written is not one yet. */
	end = strrchr(text, '\n');
	if (!end)
		return 0;
	end[1] = '\0';
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct pf_stuck_key k;

		if (!parse_line(line, &k) || pf_stuck_find(*keys, *n, &k))
			continue;
		if (pf_grow(keys, cap, *n + 1, SIZE_MAX) < 0)
			return -ENOMEM;
		(*keys)[(*n)++] = k;
	}
	return 0;
}

int pf_stuck_load(const char *dir, struct pf_stuck_key **ret, size_t *ret_n)
{
	_cleanup_free_ struct pf_stuck_key *keys = NULL;
	size_t n = 0, cap = 0;
	unsigned files = 0;
	struct dirent *e;
	DIR *d = opendir(dir);
	int r = 0;

	if (!d) {
		if (errno != ENOENT)
			return -errno;
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	while ((e = readdir(d)) && files < FILES_MAX) {
		if (strncmp(e->d_name, FILE_PREFIX, strlen(FILE_PREFIX)) != 0)
			continue;
		files++;
		r = load_file(dirfd(d), e->d_name, &keys, &n, &cap);
		if (r == -ENOMEM)
			break;
		r = 0; /* one unreadable file hides nothing else */
	}
	(void)closedir(d);
	if (r < 0)
		return r;
	*ret = TAKE_PTR(keys);
	*ret_n = n;
	return 0;
}

int pf_stuck_begin(const char *dir, struct pf_stuck_file *ret)
{
	_cleanup_free_ char *tmp = NULL, *path = NULL;
	_cleanup_close_ int fd = -1;
	int r;

	*ret = (struct pf_stuck_file){.fd = -1};
	r = pf_paths_mkdir_p(dir, 0700);
	if (r < 0)
		return r;
	if (asprintf(&tmp, "%s/.new-XXXXXX", dir) < 0) {
		tmp = NULL;
		return -ENOMEM;
	}
	fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* Locked under a name pf_stuck_load() passes over, so nobody takes it for a dead one. */
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		r = -errno;
		goto fail;
	}
	if (asprintf(&path, "%s/" FILE_PREFIX "%s", dir, strrchr(tmp, '-') + 1) < 0) {
		path = NULL;
		r = -ENOMEM;
		goto fail;
	}
	if (rename(tmp, path) < 0) {
		r = -errno;
		goto fail;
	}
	ret->fd = TAKE_FD(fd);
	ret->path = TAKE_PTR(path);
	return 0;
fail:
	(void)unlink(tmp);
	return r;
}

int pf_stuck_note(struct pf_stuck_file *f, const struct pf_stuck_key *k)
{
	char line[96];
	int len, r;

	if (f->fd < 0)
		return -EBADF;
	len = snprintf(line, sizeof(line), "%c %" PRIu64 " %" PRIu64 " %lld\n", k->blk ? 'b' : 'i',
		       k->a, k->b, (long long)time(NULL));
	r = pf_write_full(f->fd, line, (size_t)len);
	if (r == 0)
		f->n_noted++;
	return r;
}

void pf_stuck_end(struct pf_stuck_file *f)
{
	if (f->path && f->n_noted == 0)
		(void)unlink(f->path);
	if (f->fd >= 0)
		(void)close(f->fd);
	free(f->path);
	*f = (struct pf_stuck_file){.fd = -1};
}
