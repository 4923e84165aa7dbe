/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * blockfs: a tiny FUSE filesystem of hostile disk images, for loop devices
 * that fail or never answer.
 *
 *   blockfs MOUNTPOINT NAME=IMAGE[@FROM] ...
 *
 * Serves one read-only file per argument with IMAGE's bytes. By NAME:
 *   hang-*  a read touching bytes FROM.. (default 0) blocks until released;
 *   eio-*   a read touching bytes FROM.. fails with EIO;
 *   other   a plain copy.
 * Reads bypass the page cache (direct_io), so every read of a loop device
 * over such a file reaches this process. A read touching FROM fails or
 * blocks whole: a short answer would reach a loop device's reader as zeros.
 *
 * Releasing: touching or writing the file "release" at the root wakes every
 * blocked read (it is then answered) and stops hanging for good. SIGTERM,
 * SIGINT or SIGHUP release too, fail the blocked reads with EIO, and unmount
 * (lazily, as root: a loop device may still hold a file; its reads then fail).
 * Runs in the foreground so that the caller owns its PID.
 *
 * Build: cc $(pkg-config --cflags fuse3) blockfs.c $(pkg-config --libs fuse3) -lpthread
 */
#define FUSE_USE_VERSION 31
#define _GNU_SOURCE 1

#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <fuse_lowlevel.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define FILES_MAX 256
#define RELEASE_NAME "release"
/* How often a blocked read looks whether the filesystem is going away. */
#define POLL_MS 100

enum kind { PLAIN, HANG, EIO_FILE };

struct file {
	char *name;
	int fd;
	off_t size;
	off_t from;
	enum kind kind;
};

/* A FUSE filesystem's state is process-wide by nature: the callbacks take no context. */
static struct file files[FILES_MAX];
static int n_files;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t cond = PTHREAD_COND_INITIALIZER;
static bool released;
static unsigned long n_blocked; /* reads that blocked, ever: for the log */

static struct file *lookup(const char *path)
{
	if (path[0] != '/')
		return NULL;
	for (int i = 0; i < n_files; i++)
		if (strcmp(path + 1, files[i].name) == 0)
			return &files[i];
	return NULL;
}

static bool is_release(const char *path)
{
	return strcmp(path, "/" RELEASE_NAME) == 0;
}

static void release_all(void)
{
	pthread_mutex_lock(&lock);
	if (!released)
		fprintf(stderr, "blockfs: released (%lu reads had blocked)\n", n_blocked);
	released = true;
	pthread_cond_broadcast(&cond);
	pthread_mutex_unlock(&lock);
}

static bool exiting(void)
{
	struct fuse_context *c = fuse_get_context();

	return c && c->fuse && fuse_session_exited(fuse_get_session(c->fuse));
}

/* Block until released (true) or until the filesystem goes away (false). */
static bool wait_released(void)
{
	bool ok;

	pthread_mutex_lock(&lock);
	n_blocked++;
	while (!released && !exiting()) {
		struct timespec ts;

		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += POLL_MS * 1000000L;
		if (ts.tv_nsec >= 1000000000L) {
			ts.tv_sec++;
			ts.tv_nsec -= 1000000000L;
		}
		pthread_cond_timedwait(&cond, &lock, &ts);
	}
	ok = released;
	pthread_mutex_unlock(&lock);
	return ok;
}

static int bfs_getattr(const char *path, struct stat *st, struct fuse_file_info *fi)
{
	const struct file *f = lookup(path);

	(void)fi;
	memset(st, 0, sizeof(*st));
	if (strcmp(path, "/") == 0) {
		st->st_mode = S_IFDIR | 0755;
		st->st_nlink = 2;
	} else if (is_release(path)) {
		st->st_mode = S_IFREG | 0644;
		st->st_nlink = 1;
	} else if (f) {
		st->st_mode = S_IFREG | 0444;
		st->st_nlink = 1;
		st->st_size = f->size;
		st->st_blocks = (f->size + 511) / 512;
	} else {
		return -ENOENT;
	}
	return 0;
}

static int bfs_readdir(const char *path, void *buf, fuse_fill_dir_t fill, off_t off,
		       struct fuse_file_info *fi, enum fuse_readdir_flags flags)
{
	(void)off;
	(void)fi;
	(void)flags;
	if (strcmp(path, "/") != 0)
		return -ENOENT;
	fill(buf, ".", NULL, 0, 0);
	fill(buf, "..", NULL, 0, 0);
	fill(buf, RELEASE_NAME, NULL, 0, 0);
	for (int i = 0; i < n_files; i++)
		fill(buf, files[i].name, NULL, 0, 0);
	return 0;
}

static int bfs_open(const char *path, struct fuse_file_info *fi)
{
	if (is_release(path)) {
		if ((fi->flags & O_ACCMODE) != O_RDONLY)
			release_all();
		fi->direct_io = 1;
		return 0;
	}
	if (!lookup(path))
		return -ENOENT;
	if ((fi->flags & O_ACCMODE) != O_RDONLY)
		return -EACCES;
	fi->direct_io = 1;
	fi->keep_cache = 0;
	return 0;
}

static int bfs_read(const char *path, char *buf, size_t size, off_t off,
		    struct fuse_file_info *fi)
{
	const struct file *f = lookup(path);
	size_t done = 0;

	(void)fi;
	if (is_release(path))
		return 0;
	if (!f)
		return -ENOENT;
	if (off >= f->size || size == 0)
		return 0;
	if ((off_t)size > f->size - off)
		size = (size_t)(f->size - off);
	if (off + (off_t)size > f->from) {
		if (f->kind == EIO_FILE)
			return -EIO;
		if (f->kind == HANG && !wait_released())
			return -EIO;
	}
	while (done < size) {
		ssize_t r = pread(f->fd, buf + done, size - done, off + (off_t)done);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			break;
		done += (size_t)r;
	}
	return (int)done;
}

static int bfs_write(const char *path, const char *buf, size_t size, off_t off,
		     struct fuse_file_info *fi)
{
	(void)buf;
	(void)off;
	(void)fi;
	if (!is_release(path))
		return -EACCES;
	release_all();
	return (int)size;
}

static int bfs_truncate(const char *path, off_t size, struct fuse_file_info *fi)
{
	(void)size;
	(void)fi;
	if (!is_release(path))
		return -EACCES;
	release_all();
	return 0;
}

static int bfs_utimens(const char *path, const struct timespec tv[2], struct fuse_file_info *fi)
{
	(void)tv;
	(void)fi;
	if (!is_release(path))
		return lookup(path) ? -EACCES : -ENOENT;
	release_all();
	return 0;
}

static void *bfs_init(struct fuse_conn_info *conn, struct fuse_config *cfg)
{
	(void)conn;
	/* Attributes never change: no need to ask again, and no page cache for the data. */
	cfg->direct_io = 1;
	cfg->kernel_cache = 0;
	return NULL;
}

static void bfs_destroy(void *data)
{
	(void)data;
	release_all();
}

static const struct fuse_operations ops = {
	.getattr = bfs_getattr,
	.readdir = bfs_readdir,
	.open = bfs_open,
	.read = bfs_read,
	.write = bfs_write,
	.truncate = bfs_truncate,
	.utimens = bfs_utimens,
	.init = bfs_init,
	.destroy = bfs_destroy,
};

static int add_file(const char *spec)
{
	const char *eq = strchr(spec, '='), *at;
	struct file *f = &files[n_files];
	struct stat st;
	char *path;

	if (!eq || eq == spec || n_files == FILES_MAX || memchr(spec, '/', (size_t)(eq - spec))) {
		fprintf(stderr, "blockfs: bad file spec '%s' (NAME=IMAGE[@FROM])\n", spec);
		return -1;
	}
	f->name = strndup(spec, (size_t)(eq - spec));
	at = strrchr(eq + 1, '@');
	path = at ? strndup(eq + 1, (size_t)(at - eq - 1)) : strdup(eq + 1);
	if (!f->name || !path)
		return -1;
	if (strcmp(f->name, RELEASE_NAME) == 0) {
		fprintf(stderr, "blockfs: '%s' is the control file's name\n", RELEASE_NAME);
		return -1;
	}
	f->from = at ? strtoll(at + 1, NULL, 0) : 0;
	f->kind = strncmp(f->name, "hang-", 5) == 0  ? HANG
		  : strncmp(f->name, "eio-", 4) == 0 ? EIO_FILE
						     : PLAIN;
	f->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (f->fd < 0 || fstat(f->fd, &st) < 0) {
		fprintf(stderr, "blockfs: %s: %s\n", path, strerror(errno));
		free(path);
		return -1;
	}
	free(path);
	f->size = st.st_size;
	n_files++;
	return 0;
}

int main(int argc, char **argv)
{
	char *fargv[8];
	int fargc = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s MOUNTPOINT NAME=IMAGE[@FROM] ...\n", argv[0]);
		return 2;
	}
	for (int i = 2; i < argc; i++)
		if (add_file(argv[i]) < 0)
			return 2;
	fargv[fargc++] = argv[0];
	fargv[fargc++] = (char *)"-f";
	fargv[fargc++] = (char *)"-o";
#if FUSE_VERSION >= FUSE_MAKE_VERSION(3, 12)
	/* Blocked reads each hold a worker thread: keep some for the release and the rest. */
	fargv[fargc++] = (char *)"fsname=blockfs,subtype=blockfs,max_threads=64";
#else
	fargv[fargc++] = (char *)"fsname=blockfs,subtype=blockfs";
#endif
	fargv[fargc++] = argv[1];
	fargv[fargc] = NULL;
	return fuse_main(fargc, fargv, &ops, NULL);
}
