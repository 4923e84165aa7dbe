/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Degraded activation's per-VG records under <run>/pvscan-fast/degraded/. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/paths.h"
#include "base/strutil.h"
#include "base/strv.h"
#include "state/coalesce.h"
#include "state/dgrecord.h"

#define DIR_MODE  0700
#define FILE_MODE 0600
/* Temporary names start with a dot: listings skip them. */
#define TMP_TRIES 8U

static const char *const state_names[] = {
	[PF_DGRECORD_WAITING] = "waiting",   [PF_DGRECORD_ACTIVATING] = "activating",
	[PF_DGRECORD_DEGRADED] = "degraded", [PF_DGRECORD_FAILED] = "failed",
	[PF_DGRECORD_REFUSED] = "refused",   [PF_DGRECORD_COMPLETE] = "complete",
	[PF_DGRECORD_CLAIMED] = "claimed",
};

const char *pf_dgrecord_state_name(enum pf_dgrecord_state s)
{
	return (unsigned)s < _PF_DGRECORD_STATE_MAX ? state_names[s] : "?";
}

/* <run>/pvscan-fast/degraded, made when mk. */
static int record_dir(const char *run_dir, bool mk, char *buf, size_t size)
{
	int n = snprintf(buf, size, "%s/%s/%s", run_dir, PF_COALESCE_DIR, PF_DGRECORD_DIR);

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return mk ? pf_paths_mkdir_p(buf, DIR_MODE) : 0;
}

int pf_dgrecord_format(const struct pf_dgrecord *rec, char *buf, size_t size)
{
	char reason[PF_DGRECORD_REASON_MAX];
	size_t k = 0;
	int n;

	/* one line, whatever the reason quotes */
	for (const char *p = rec->reason; *p && k + 1 < sizeof(reason); p++)
		reason[k++] = (unsigned char)*p < 0x20 || *p == 0x7f ? '?' : *p;
	reason[k] = '\0';
	n = snprintf(buf, size,
		     "state=%s\nfirst_seen_ns=%llu\nfirst_seen=%lld\ntimeout=%u\ndecided=%lld\n"
		     "lvm_status=%d\nreason=%s\n",
		     pf_dgrecord_state_name(rec->state), (unsigned long long)rec->first_seen_ns,
		     (long long)rec->first_seen_real, rec->timeout_sec,
		     (long long)rec->decided_real, rec->lvm_status, reason);
	if (n < 0 || (size_t)n >= size)
		return -ENOSPC;
	return n;
}

static int parse_field(struct pf_dgrecord *r, const char *key, const char *val, bool *has_state)
{
	uint64_t v;

	if (!strcmp(key, "state")) {
		for (unsigned s = 0; s < _PF_DGRECORD_STATE_MAX; s++)
			if (!strcmp(val, state_names[s])) {
				r->state = (enum pf_dgrecord_state)s;
				*has_state = true;
				return 0;
			}
		return -EBADMSG;
	}
	if (!strcmp(key, "reason")) {
		(void)snprintf(r->reason, sizeof(r->reason), "%s", val);
		return 0;
	}
	if (!strcmp(key, "lvm_status")) {
		if (!strcmp(val, "-1")) {
			r->lvm_status = -1;
			return 0;
		}
		if (pf_parse_u64(val, 255, &v) < 0)
			return -EBADMSG;
		r->lvm_status = (int)v;
		return 0;
	}
	if (!strcmp(key, "first_seen_ns"))
		return pf_parse_u64(val, UINT64_MAX, &r->first_seen_ns) < 0 ? -EBADMSG : 0;
	if (!strcmp(key, "timeout")) {
		if (pf_parse_u64(val, UINT_MAX, &v) < 0)
			return -EBADMSG;
		r->timeout_sec = (unsigned)v;
		return 0;
	}
	if (!strcmp(key, "first_seen") || !strcmp(key, "decided")) {
		if (pf_parse_u64(val, INT64_MAX, &v) < 0)
			return -EBADMSG;
		*(key[0] == 'f' ? &r->first_seen_real : &r->decided_real) = (int64_t)v;
		return 0;
	}
	return 0; /* a later version's field */
}

int pf_dgrecord_parse(const char *vg, const char *text, size_t len, struct pf_dgrecord *ret)
{
	struct pf_dgrecord r = { .lvm_status = -1 };
	char line[PF_DGRECORD_FILE_MAX];
	bool has_state = false;
	size_t i = 0;

	if (!pf_name_is_valid(vg, strlen(vg)) || strlen(vg) >= sizeof(r.vg))
		return -EINVAL;
	memcpy(r.vg, vg, strlen(vg) + 1);
	while (i < len) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l;
		char *eq;

		/* an unfinished last line is a write that never completed */
		if (!nl)
			return -EBADMSG;
		l = (size_t)(nl - (text + i));
		if (l >= sizeof(line))
			return -EBADMSG;
		memcpy(line, text + i, l);
		line[l] = '\0';
		i += l + 1;
		if (memchr(line, '\0', l))
			return -EBADMSG;
		eq = strchr(line, '=');
		if (!eq)
			return -EBADMSG;
		*eq = '\0';
		if (parse_field(&r, line, eq + 1, &has_state) < 0)
			return -EBADMSG;
	}
	if (!has_state)
		return -EBADMSG;
	*ret = r;
	return 0;
}

/* Write text to a fresh temporary file in dir; its name in tmp. */
static int write_tmp(const char *dir, const char *text, size_t len, char *tmp, size_t size)
{
	int fd = -1, r = -EEXIST;

	for (unsigned i = 0; i < TMP_TRIES && fd < 0; i++) {
		int n = snprintf(tmp, size, "%s/.dg~%d~%u", dir, (int)getpid(), i);

		if (n < 0 || (size_t)n >= size)
			return -ENAMETOOLONG;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, FILE_MODE);
		if (fd < 0 && (r = -errno) != -EEXIST)
			return r;
	}
	if (fd < 0)
		return r;
	r = pf_write_full(fd, text, len);
	if (close(fd) < 0 && r == 0)
		r = -errno;
	if (r < 0)
		(void)unlink(tmp);
	return r;
}

/* Put rec in place: link() when it must not exist yet (-EEXIST then), else rename(). */
static int publish(const char *run_dir, const struct pf_dgrecord *rec, bool create)
{
	char dir[PATH_MAX], tmp[PATH_MAX], final[PATH_MAX], text[PF_DGRECORD_FILE_MAX];
	int len, r, n;

	if (!pf_name_is_valid(rec->vg, strlen(rec->vg)))
		return -EINVAL;
	len = pf_dgrecord_format(rec, text, sizeof(text));
	if (len < 0)
		return len;
	r = record_dir(run_dir, true, dir, sizeof(dir));
	if (r < 0)
		return r;
	n = snprintf(final, sizeof(final), "%s/%s", dir, rec->vg);
	if (n < 0 || (size_t)n >= sizeof(final))
		return -ENAMETOOLONG;
	r = write_tmp(dir, text, (size_t)len, tmp, sizeof(tmp));
	if (r < 0)
		return r;
	if (create) {
		r = link(tmp, final) < 0 ? -errno : 0;
		(void)unlink(tmp);
	} else if (rename(tmp, final) < 0) {
		r = -errno;
		(void)unlink(tmp);
	}
	return r;
}

int pf_dgrecord_begin(const char *run_dir, const char *vg, uint64_t first_seen_ns,
		      int64_t first_seen_real, unsigned timeout_sec, bool *ret_created)
{
	struct pf_dgrecord rec = { .state = PF_DGRECORD_WAITING,
				   .first_seen_ns = first_seen_ns,
				   .first_seen_real = first_seen_real,
				   .timeout_sec = timeout_sec,
				   .lvm_status = -1 };
	int r;

	if (strlen(vg) >= sizeof(rec.vg))
		return -EINVAL;
	memcpy(rec.vg, vg, strlen(vg) + 1);
	r = publish(run_dir, &rec, true);
	if (r == -EEXIST) {
		*ret_created = false;
		return 0;
	}
	if (r == 0)
		*ret_created = true;
	return r;
}

int pf_dgrecord_write(const char *run_dir, const struct pf_dgrecord *rec)
{
	return publish(run_dir, rec, false);
}

int pf_dgrecord_read(const char *run_dir, const char *vg, struct pf_dgrecord *ret)
{
	char dir[PATH_MAX];
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int dfd, r;

	if (!pf_name_is_valid(vg, strlen(vg)))
		return -EINVAL;
	r = record_dir(run_dir, false, dir, sizeof(dir));
	if (r < 0)
		return r;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	r = pf_read_file_at(dfd, vg, PF_DGRECORD_FILE_MAX, &text, &len);
	(void)close(dfd);
	if (r < 0)
		return r;
	return pf_dgrecord_parse(vg, text, len, ret);
}

static int list_names(const char *run_dir, struct pf_strv *names)
{
	char dir[PATH_MAX];
	int fd, r = record_dir(run_dir, false, dir, sizeof(dir));

	if (r < 0)
		return r;
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	return pf_strv_read_dir(fd, PF_DGRECORD_VGS_MAX, names);
}

int pf_dgrecord_list(const char *run_dir, struct pf_dgrecord **ret, size_t *ret_n)
{
	struct pf_strv names = { 0 };
	struct pf_dgrecord *recs = NULL;
	size_t n = 0;
	int r = list_names(run_dir, &names);

	if (r == -ENOENT) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	if (r < 0)
		return r;
	if (names.n) {
		recs = calloc(names.n, sizeof(*recs));
		if (!recs) {
			pf_strv_release(&names);
			return -ENOMEM;
		}
	}
	for (size_t i = 0; i < names.n; i++)
		if (pf_dgrecord_read(run_dir, names.v[i], &recs[n]) == 0)
			n++;
	pf_strv_release(&names);
	if (n == 0) {
		free(recs);
		recs = NULL;
	}
	*ret = recs;
	*ret_n = n;
	return 0;
}

int pf_dgrecord_lock(const char *run_dir, unsigned timeout_ms, int *ret_fd)
{
	char dir[PATH_MAX], path[PATH_MAX];
	int fd, r = record_dir(run_dir, true, dir, sizeof(dir));

	if (r < 0)
		return r;
	if (snprintf(path, sizeof(path), "%s/.lock", dir) >= (int)sizeof(path))
		return -ENAMETOOLONG;
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, FILE_MODE);
	if (fd < 0)
		return -errno;
	r = pf_flock_until(fd, LOCK_EX, pf_deadline_after_ms(timeout_ms));
	if (r < 0) {
		(void)close(fd);
		return r;
	}
	*ret_fd = fd;
	return 0;
}

bool pf_dgrecord_any(const char *run_dir)
{
	struct pf_strv names = { 0 };
	bool any = list_names(run_dir, &names) == 0 && names.n > 0;

	pf_strv_release(&names);
	return any;
}
