/* SPDX-License-Identifier: GPL-2.0-or-later */
/* pread-driven device reading: simple, one range at a time (the reader's no_aio mode). */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/fs.h>
#include <stdlib.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "io/pvread.h"

int pf_pvread_open(const char *path, int *ret_fd, uint64_t *ret_size_bytes)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	uint64_t size;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOATIME);
	if (fd < 0 && errno == EPERM) /* O_NOATIME on a file we do not own */
		fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (S_ISBLK(st.st_mode)) {
		if (ioctl(fd, BLKGETSIZE64, &size) < 0)
			return -errno;
	} else if (S_ISREG(st.st_mode)) {
		size = (uint64_t)st.st_size;
	} else {
		return -ENOTBLK;
	}
	*ret_fd = TAKE_FD(fd);
	*ret_size_bytes = size;
	return 0;
}

int pf_pvread_probe(int fd, struct pf_probe *p)
{
	uint64_t off, len;

	while (pf_probe_next(p, &off, &len) == 1) {
		_cleanup_free_ uint8_t *buf = NULL;
		ssize_t n;

		/* The probe caps lengths (PF_MDA_TEXT_MAX), so this allocation is bounded. */
		buf = malloc(len ? len : 1);
		if (!buf)
			return -ENOMEM;
		n = pf_read_full(fd, buf, (size_t)len, (int64_t)off);
		if (n < 0)
			pf_probe_fail(p, (int)n);
		else
			pf_probe_feed(p, buf, (size_t)n);
	}
	return 0;
}
