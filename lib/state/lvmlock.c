/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's VG flock protocol: aux file for writer priority, inode re-check, unlink on release. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/paths.h"
#include "state/lvmlock.h"

/* lvm2 opens lock files with 0777 under its umask 077. */
#define LOCK_FILE_MODE 0700
#define LOCK_DIR_MODE 0700
#define DEVICES_LOCK_FILE_MODE 0600
#define VG_NAME_MAX 127U

/* One lock call's wait: its deadline (0: try once) and, to say so, the timeout it came from. */
struct lock_wait {
	uint64_t deadline_ns;
	unsigned timeout_ms;
};

static bool same_file(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

static void say_not_taken(const char *path, const struct lock_wait *w, int r,
			  struct pf_diag *reterr)
{
	if (r == -EWOULDBLOCK)
		pf_diag_msg(reterr, "lock %s is held", path);
	else if (r == -ETIMEDOUT && w->timeout_ms % 1000U == 0)
		pf_diag_msg(reterr, "lock %s not acquired within %u s", path,
			    w->timeout_ms / 1000U);
	else if (r == -ETIMEDOUT)
		pf_diag_msg(reterr, "lock %s not acquired within %u ms", path, w->timeout_ms);
	else
		pf_diag_msg(reterr, "cannot lock %s: %s", path, strerror(-r));
}

/*
 * Open and flock path in dir. lvm2 unlinks a lock file when it releases it, so the file we
 * waited on may no longer be the one the path names: then the lock protects nothing, and we
 * start over, within the same deadline.
 */
static int lock_file(const char *dir, const char *path, int op, unsigned mode,
		     const struct lock_wait *w, struct pf_diag *reterr)
{
	for (;;) {
		_cleanup_close_ int fd = -1;
		int r;

		r = pf_paths_check_lock(dir, -1, path, reterr);
		if (r < 0)
			return r;
		fd = open(path, O_CREAT | O_APPEND | O_RDWR | O_CLOEXEC | O_NOFOLLOW, (mode_t)mode);
		if (fd < 0) {
			r = -errno;
			pf_diag_msg(reterr, "cannot open lock file %s: %s", path, strerror(-r));
			return r;
		}
		r = pf_paths_check_lock(dir, fd, path, reterr);
		if (r < 0)
			return r;
		r = pf_flock_until(fd, op, w->deadline_ns);
		if (r < 0) {
			say_not_taken(path, w, r, reterr);
			return r;
		}
		if (same_file(fd, path))
			return TAKE_FD(fd);
	}
}

/* Drop a lock as lvm2 does: unlink the file if nobody else holds or waits on it. */
static void unlock_file(int fd, const char *path)
{
	if (flock(fd, LOCK_EX | LOCK_NB) == 0 && same_file(fd, path))
		(void)unlink(path);
	(void)close(fd);
}

static bool vgname_lockable(const char *vgname)
{
	size_t len = strlen(vgname);

	/* lvm2 never locks its orphan pseudo-VGs ("#orphans..."); a '/' would leave the dir. */
	return len > 0 && len <= VG_NAME_MAX && vgname[0] != '#' && !strchr(vgname, '/') &&
	       strcmp(vgname, ".") != 0 && strcmp(vgname, "..") != 0;
}

int pf_lvmlock_vg(const char *lock_dir, const char *vgname, bool exclusive, unsigned timeout_ms,
		  struct pf_lvmlock *ret, struct pf_diag *reterr)
{
	struct lock_wait w = { pf_deadline_after_ms(timeout_ms), timeout_ms };
	_cleanup_free_ char *path = NULL, *aux = NULL;
	int aux_fd, fd, r;

	if (!vgname_lockable(vgname)) {
		pf_diag_msg(reterr, "VG name %s is not one lvm2 locks", vgname);
		return -EINVAL;
	}
	if (asprintf(&path, "%s/V_%s", lock_dir, vgname) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	if (asprintf(&aux, "%s:aux", path) < 0) {
		aux = NULL;
		return -ENOMEM;
	}
	r = pf_paths_mkdir_p(lock_dir, LOCK_DIR_MODE); /* lvm2 too makes it, parents and all */
	if (r < 0) {
		pf_diag_msg(reterr, "cannot create lock directory %s: %s", lock_dir, strerror(-r));
		return r;
	}

	/*
	 * Writer priority: a writer holds aux while it waits for the lock, so readers, who
	 * pass through aux first, queue behind it.
	 */
	aux_fd = lock_file(lock_dir, aux, LOCK_EX, LOCK_FILE_MODE, &w, reterr);
	if (aux_fd < 0)
		return aux_fd;
	if (exclusive) {
		fd = lock_file(lock_dir, path, LOCK_EX, LOCK_FILE_MODE, &w, reterr);
		unlock_file(aux_fd, aux);
	} else {
		unlock_file(aux_fd, aux);
		fd = lock_file(lock_dir, path, LOCK_SH, LOCK_FILE_MODE, &w, reterr);
	}
	if (fd < 0)
		return fd;
	ret->fd = fd;
	ret->path = TAKE_PTR(path);
	return 0;
}

int pf_lvmlock_devices_file(const char *lock_dir, const char *name, unsigned timeout_ms,
			    struct pf_lvmlock *ret, struct pf_diag *reterr)
{
	struct lock_wait w = { pf_deadline_after_ms(timeout_ms), timeout_ms };
	_cleanup_free_ char *path = NULL;
	int fd;

	if (!*name || strchr(name, '/')) {
		pf_diag_msg(reterr, "devices file name %s is not one lvm2 locks", name);
		return -EINVAL;
	}
	if (asprintf(&path, "%s/D_%s", lock_dir, name) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	fd = lock_file(lock_dir, path, LOCK_SH, DEVICES_LOCK_FILE_MODE, &w, reterr);
	if (fd < 0)
		return fd;
	ret->fd = fd;
	ret->path = NULL; /* nothing to unlink */
	return 0;
}

void pf_lvmlock_release(struct pf_lvmlock *l)
{
	if (!l || l->fd < 0)
		return;
	(void)flock(l->fd, LOCK_UN | LOCK_NB);
	if (!l->path) {
		(void)close(l->fd);
		l->fd = -1;
		return;
	}
	unlock_file(l->fd, l->path);
	free(l->path);
	l->fd = -1;
	l->path = NULL;
}
