/* SPDX-License-Identifier: GPL-2.0-or-later */
/* struct pf_paths: defaults and their environment overrides. */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/paths.h"

static char *env_or(const char *var, const char *def)
{
	const char *v = getenv(var);

	return strdup(v && *v ? v : def);
}

int pf_paths_from_env(struct pf_paths *ret)
{
	struct pf_paths p = {
		.sys = env_or("PVSCAN_FAST_SYS_DIR", "/sys"),
		.dev = env_or("PVSCAN_FAST_DEV_DIR", "/dev"),
		.proc = env_or("PVSCAN_FAST_PROC_DIR", "/proc"),
		.etc = env_or("LVM_SYSTEM_DIR", "/etc/lvm"),
		.run = env_or("PVSCAN_FAST_RUN_DIR", "/run/lvm"),
		.lock = env_or("PVSCAN_FAST_LOCK_DIR", "/run/lock/lvm"),
		.fstab = env_or("PVSCAN_FAST_FSTAB", "/etc/fstab"),
	};

	if (!p.sys || !p.dev || !p.proc || !p.etc || !p.run || !p.lock || !p.fstab) {
		pf_paths_release(&p);
		return -ENOMEM;
	}
	*ret = p;
	return 0;
}

void pf_paths_release(struct pf_paths *p)
{
	if (!p)
		return;
	free(p->sys);
	free(p->dev);
	free(p->proc);
	free(p->etc);
	free(p->run);
	free(p->lock);
	free(p->fstab);
	memset(p, 0, sizeof(*p));
}

char *pf_path_join(const char *dir, const char *name)
{
	char *s;

	if (asprintf(&s, "%s/%s", dir, name) < 0)
		return NULL;
	return s;
}

int pf_paths_mkdir_p(const char *path, unsigned mode)
{
	char buf[PATH_MAX];
	size_t len = strlen(path);

	if (len == 0 || len >= sizeof(buf))
		return -ENAMETOOLONG;
	memcpy(buf, path, len + 1);
	for (char *p = buf + 1;; p++) {
		char c = *p;

		if (c != '/' && c != '\0')
			continue;
		*p = '\0';
		if (mkdir(buf, (mode_t)mode) < 0 && errno != EEXIST)
			return -errno;
		*p = c;
		if (c == '\0')
			return 0;
	}
}

int pf_paths_check_lock(const char *dir, int fd, const char *file, struct pf_diag *reterr)
{
	uid_t me = geteuid();
	struct stat st;

	if (stat(dir, &st) < 0) {
		int r = -errno;

		pf_diag_msg(reterr, "cannot check lock directory %s: %s", dir, strerror(-r));
		return r;
	}
	if (!S_ISDIR(st.st_mode)) {
		pf_diag_msg(reterr, "lock directory %s is not a directory", dir);
		return -ENOTDIR;
	}
	if (st.st_uid != 0 && st.st_uid != me) {
		pf_diag_msg(reterr, "lock directory %s is owned by uid %u, neither root nor us",
			    dir, (unsigned)st.st_uid);
		return -EPERM;
	}
	if (st.st_mode & (S_IWGRP | S_IWOTH)) {
		pf_diag_msg(reterr, "lock directory %s is writable by group or others (mode %04o)",
			    dir, (unsigned)(st.st_mode & 07777));
		return -EPERM;
	}
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) < 0) {
		int r = -errno;

		pf_diag_msg(reterr, "cannot check lock file %s: %s", file, strerror(-r));
		return r;
	}
	if (st.st_uid != me) {
		pf_diag_msg(reterr, "lock file %s is owned by uid %u, not by uid %u", file,
			    (unsigned)st.st_uid, (unsigned)me);
		return -EPERM;
	}
	return 0;
}
