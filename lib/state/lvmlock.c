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

#include "base/paths.h"
#include "state/lvmlock.h"

/* lvm2 opens lock files with 0777 under its umask 077. */
#define LOCK_FILE_MODE 0700
#define LOCK_DIR_MODE 0700
#define VG_NAME_MAX 127U

static bool same_file(int fd, const char *path)
{
	struct stat a, b;

	return fstat(fd, &a) == 0 && stat(path, &b) == 0 && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

/*
 * Open and flock path. lvm2 unlinks a lock file when it releases it, so the file we waited on
 * may no longer be the one the path names: then the lock protects nothing, and we start over.
 */
static int lock_file(const char *path, int op)
{
	for (;;) {
		int fd = open(path, O_CREAT | O_APPEND | O_RDWR | O_CLOEXEC | O_NOFOLLOW,
			      LOCK_FILE_MODE);
		int r;

		if (fd < 0)
			return -errno;
		while ((r = flock(fd, op)) < 0 && errno == EINTR)
			;
		if (r < 0) {
			r = -errno;
			(void)close(fd);
			return r;
		}
		if (same_file(fd, path))
			return fd;
		(void)close(fd);
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

int pf_lvmlock_vg(const char *lock_dir, const char *vgname, bool exclusive, bool nowait,
		  struct pf_lvmlock *ret)
{
	int nb = nowait ? LOCK_NB : 0;
	_cleanup_free_ char *path = NULL, *aux = NULL;
	int aux_fd, fd, r;

	if (!vgname_lockable(vgname))
		return -EINVAL;
	if (asprintf(&path, "%s/V_%s", lock_dir, vgname) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	if (asprintf(&aux, "%s:aux", path) < 0) {
		aux = NULL;
		return -ENOMEM;
	}
	r = pf_paths_mkdir_p(lock_dir, LOCK_DIR_MODE); /* lvm2 too makes it, parents and all */
	if (r < 0)
		return r;

	/*
	 * Writer priority: a writer holds aux while it waits for the lock, so readers, who
	 * pass through aux first, queue behind it.
	 */
	aux_fd = lock_file(aux, LOCK_EX | nb);
	if (aux_fd < 0)
		return aux_fd == -EAGAIN ? -EWOULDBLOCK : aux_fd;
	if (exclusive) {
		fd = lock_file(path, LOCK_EX | nb);
		unlock_file(aux_fd, aux);
	} else {
		unlock_file(aux_fd, aux);
		fd = lock_file(path, LOCK_SH | nb);
	}
	if (fd < 0)
		return fd == -EAGAIN ? -EWOULDBLOCK : fd;
	ret->fd = fd;
	ret->path = TAKE_PTR(path);
	return 0;
}

int pf_lvmlock_devices_file(const char *lock_dir, const char *name, struct pf_lvmlock *ret)
{
	_cleanup_free_ char *path = NULL;
	int fd, r;

	if (!*name || strchr(name, '/'))
		return -EINVAL;
	if (asprintf(&path, "%s/D_%s", lock_dir, name) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	fd = open(path, O_CREAT | O_RDWR | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	while ((r = flock(fd, LOCK_SH)) < 0 && errno == EINTR)
		;
	if (r < 0) {
		r = -errno;
		(void)close(fd);
		return r;
	}
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
