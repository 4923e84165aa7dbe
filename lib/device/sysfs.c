/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Block devices from sysfs and /proc, named as lvm2 2.03.16's dev-cache first names them. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/paths.h"
#include "base/strutil.h"
#include "base/strv.h"
#include "device/sysfs.h"

/* Per-attribute caps, in bytes without the trailing newline; longer values are ignored. */
#define ATTR_NUM_MAX	      32
#define ATTR_DM_NAME_MAX      127  /* the kernel's DM_NAME_LEN, less its NUL */
#define ATTR_DM_UUID_MAX      128  /* DM_UUID_LEN, less its NUL */
#define ATTR_MD_UUID_MAX      64
#define ATTR_BACKING_FILE_MAX 4095 /* sysfs prints at most a page */
#define ATTR_WWID_MAX	      1024
#define ATTR_SERIAL_MAX	      256
#define PROC_NAME_MAX	      127  /* a /proc/devices or /proc/partitions name */

/* The kernel's dev_t: 12 bits of major, 20 of minor. lvm2 masks majors the same way. */
#define MAJOR_COUNT 4096u
#define MINOR_COUNT (1u << 20)

/*
 * Read a small text file relative to dfd: at most cap bytes of value plus
 * one trailing newline, which is dropped. -E2BIG when longer, -EBADMSG when
 * it holds a NUL byte.
 */
static int read_at(int dfd, const char *rel, size_t cap, char **ret)
{
	_cleanup_free_ char *buf = NULL;
	size_t len;
	int r;

	/* The value plus its newline. */
	r = pf_read_file_at(dfd, rel, cap + 1, &buf, &len);
	if (r < 0)
		return r;
	if (len && buf[len - 1] == '\n')
		len--;
	if (len > cap)
		return -E2BIG;
	if (memchr(buf, '\0', len))
		return -EBADMSG;
	buf[len] = '\0';
	*ret = TAKE_PTR(buf);
	return 0;
}

/* An optional string attribute: NULL if missing, empty, too long or garbled; only -ENOMEM fails. */
static int opt_attr(int dfd, const char *rel, size_t cap, char **ret)
{
	char *v = NULL;
	int r = read_at(dfd, rel, cap, &v);

	if (r == -ENOMEM)
		return r;
	if (r < 0 || !*v) {
		free(v);
		v = NULL;
	}
	*ret = v;
	return 0;
}

/* sysfs "dev": "MAJOR:MINOR". */
static int parse_devno(const char *s, unsigned *ret_major, unsigned *ret_minor)
{
	_cleanup_free_ char *copy = strdup(s);
	uint64_t ma, mi;
	char *colon;

	if (!copy)
		return -ENOMEM;
	colon = strchr(copy, ':');
	if (!colon)
		return -EBADMSG;
	*colon = '\0';
	if (pf_parse_u64(copy, MAJOR_COUNT - 1, &ma) < 0 || pf_parse_u64(colon + 1, MINOR_COUNT - 1, &mi) < 0)
		return -EBADMSG;
	*ret_major = (unsigned)ma;
	*ret_minor = (unsigned)mi;
	return 0;
}

/* A single path component the kernel could have made: not empty, ".", ".." or too long. */
static bool is_plain_name(const char *s, size_t len)
{
	if (len == 0 || len > NAME_MAX)
		return false;
	if (s[0] == '.' && (len == 1 || (len == 2 && s[1] == '.')))
		return false;
	return !memchr(s, '/', len);
}

/* A relative name that may have '/' (cciss/c0d0) but no empty, "." or ".." component. */
static bool is_safe_relname(const char *s)
{
	size_t len = strlen(s);

	if (len == 0 || len > PATH_MAX / 2)
		return false;
	while (*s) {
		const char *slash = strchr(s, '/');
		size_t n = slash ? (size_t)(slash - s) : strlen(s);

		if (!is_plain_name(s, n))
			return false;
		s += n;
		if (*s)
			s++;
		if (slash && !*s)
			return false;
	}
	return true;
}

/*
 * Majors of block devices by name, from /proc/devices, parsed the way lvm2's
 * create_dev_types does: numbered lines after a header starting with 'B',
 * majors masked to 12 bits, a later line for a major replacing an earlier one.
 */
struct majors {
	char *name[MAJOR_COUNT];
};

static void majors_free(struct majors *mt)
{
	if (!mt)
		return;
	for (size_t i = 0; i < MAJOR_COUNT; i++)
		free(mt->name[i]);
	free(mt);
}

static int read_proc(const struct pf_paths *paths, const char *name, char **ret)
{
	_cleanup_close_ int dfd = -1;

	dfd = open(paths->proc, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	return read_at(dfd, name, PF_SYSFS_PROC_FILE_MAX, ret);
}

static int majors_parse(const char *text, struct majors *mt)
{
	bool block = false;
	const char *line = text;

	while (*line) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		_cleanup_free_ char *l = strndup(line, len);
		const char *p, *n;
		unsigned major;

		if (!l)
			return -ENOMEM;
		line = end ? end + 1 : line + len;
		for (p = l; *p == ' '; p++)
			;
		/* lvm2 reads the major with atoi() and keeps only its low 12 bits */
		major = (unsigned)pf_atoi(p) & (MAJOR_COUNT - 1);
		if (!major) {
			block = *p == 'B';
			continue;
		}
		if (!block)
			continue;
		while (*p && *p != ' ')
			p++;
		while (*p == ' ')
			p++;
		n = p;
		while (*p && *p != ' ' && *p != '\t')
			p++;
		free(mt->name[major]);
		mt->name[major] = NULL;
		if (p > n && (size_t)(p - n) <= PROC_NAME_MAX) {
			mt->name[major] = strndup(n, (size_t)(p - n));
			if (!mt->name[major])
				return -ENOMEM;
		}
	}
	return 0;
}

/*
 * Without /proc/devices every type is unknown (and the type filter rejects
 * everything); not failing here keeps a missing /proc from looking like a
 * removed device to the devno lookup.
 */
static int majors_load(const struct pf_paths *paths, struct majors **ret)
{
	_cleanup_free_ char *text = NULL;
	struct majors *mt;
	int r;

	mt = calloc(1, sizeof(*mt));
	if (!mt)
		return -ENOMEM;
	r = read_proc(paths, "devices", &text);
	if (r == -ENOMEM) {
		free(mt);
		return r;
	}
	if (r == 0) {
		r = majors_parse(text, mt);
		if (r < 0) {
			majors_free(mt);
			return r;
		}
	}
	*ret = mt;
	return 0;
}

/*
 * The name of M:m in /proc/partitions ("major minor #blocks name" lines).
 * The kernel leaves out devices of size 0 there, which is what makes lvm2
 * see a detached loop device as gone. -ENOENT when not listed.
 */
static int proc_partitions_name(const struct pf_paths *paths, unsigned major, unsigned minor,
				char **ret)
{
	_cleanup_free_ char *text = NULL;
	const char *line;
	int r;

	r = read_proc(paths, "partitions", &text);
	if (r < 0)
		return r == -ENOMEM ? r : -ENOENT;
	for (line = text; *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char *tok[4] = { NULL };
		_cleanup_free_ char *l = strndup(line, len);
		char *save = NULL, *t;
		size_t n = 0;
		uint64_t ma, mi, blocks;

		if (!l)
			return -ENOMEM;
		line = end ? end + 1 : line + len;
		for (t = strtok_r(l, " \t", &save); t && n < 4; t = strtok_r(NULL, " \t", &save))
			tok[n++] = t;
		if (n != 4 || pf_parse_u64(tok[0], UINT32_MAX, &ma) < 0 ||
		    pf_parse_u64(tok[1], UINT32_MAX, &mi) < 0 || pf_parse_u64(tok[2], UINT64_MAX, &blocks) < 0)
			continue;
		if (ma != major || mi != minor)
			continue;
		if (strlen(tok[3]) > PROC_NAME_MAX || !is_safe_relname(tok[3]))
			return -ENOENT;
		*ret = strdup(tok[3]);
		return *ret ? 0 : -ENOMEM;
	}
	return -ENOENT;
}

/*
 * Kernel name and, for a partition, the parent disk's name, from where the
 * sysfs entry points (class/block/X and dev/block/M:m are symlinks to
 * .../block/<disk>[/<partition>]); lvm2 reads the same link.
 */
static int sys_names(const char *sysdir, char **ret_kname, char **ret_parent)
{
	char buf[PATH_MAX];
	const char *path = sysdir, *last, *prev;
	ssize_t n;
	size_t len;
	_cleanup_free_ char *kname = NULL;

	n = readlink(sysdir, buf, sizeof(buf) - 1);
	if (n >= 0) {
		buf[n] = '\0';
		path = buf;
	} else if (errno != EINVAL) { /* EINVAL: a real directory (old-style /sys/block/<disk>) */
		return -errno;
	}
	len = strlen(path);
	while (len > 1 && path[len - 1] == '/')
		len--;
	last = path + len;
	while (last > path && last[-1] != '/')
		last--;
	if (!is_plain_name(last, (size_t)(path + len - last)))
		return -EBADMSG;
	kname = strndup(last, (size_t)(path + len - last));
	if (!kname)
		return -ENOMEM;
	*ret_parent = NULL;
	if (last > path) {
		const char *pend = last - 1;

		prev = pend;
		while (prev > path && prev[-1] != '/')
			prev--;
		if (is_plain_name(prev, (size_t)(pend - prev))) {
			*ret_parent = strndup(prev, (size_t)(pend - prev));
			if (!*ret_parent)
				return -ENOMEM;
		}
	}
	*ret_kname = TAKE_PTR(kname);
	return 0;
}

static int read_holders(int dfd, char ***ret, size_t *ret_n)
{
	struct pf_strv s = { 0 };
	int fd, r;

	fd = openat(dfd, "holders", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0) {
		/* Beyond the cap the set is unknown: report none rather than a part of it. */
		r = pf_strv_read_dir(fd, PF_SYSFS_HOLDERS_MAX, &s);
		if (r == -ENOMEM)
			return r;
	}
	*ret = s.v;
	*ret_n = s.n;
	return 0;
}

static char *join_dev(const struct pf_paths *paths, const char *sub, const char *name)
{
	char *s;
	size_t dl = strlen(paths->dev);

	while (dl > 1 && paths->dev[dl - 1] == '/')
		dl--;
	if (asprintf(&s, "%.*s/%s%s%s", (int)dl, paths->dev, sub ? sub : "", sub ? "/" : "",
		     name) < 0)
		return NULL;
	return s;
}

/*
 * The name lvm2 2.03.16 uses for a device it finds by number
 * (_get_devname_from_devno): device-mapper -> /dev/mapper/<dm/name>; SCSI
 * disk -> /dev/<first entry of device/block/>; anything else (and SCSI
 * partitions, which have no device/) -> /dev/<name in /proc/partitions>.
 * With by_devno false the /proc/partitions step is replaced by the kernel
 * name, which is the same name for every device listed there ('!' in sysfs
 * names stands for the '/' of names like cciss/c0d0).
 */
static int dev_name_for(const struct pf_paths *paths, int dfd, const struct pf_dev *d,
			bool by_devno, char **ret)
{
	_cleanup_free_ char *name = NULL;
	int r;

	if (pf_dev_is_type(d, "device-mapper")) {
		if (d->dm_name && is_plain_name(d->dm_name, strlen(d->dm_name))) {
			*ret = join_dev(paths, "mapper", d->dm_name);
			return *ret ? 0 : -ENOMEM;
		}
		if (by_devno)
			return -ENOENT;
	} else if (by_devno) {
		int fd = -1;

		if (pf_dev_is_type(d, "sd"))
			fd = openat(dfd, "device/block", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			struct pf_strv s = { 0 };

			r = pf_strv_read_dir(fd, PF_SYSFS_DEVICES_MAX, &s);
			if (r == -ENOMEM)
				return r;
			if (r < 0 || !s.n || !is_plain_name(s.v[0], strlen(s.v[0]))) {
				pf_strv_release(&s);
				return -ENOENT;
			}
			name = strdup(s.v[0]);
			pf_strv_release(&s);
			if (!name)
				return -ENOMEM;
		} else {
			r = proc_partitions_name(paths, d->major, d->minor, &name);
			if (r < 0)
				return r;
		}
		*ret = join_dev(paths, NULL, name);
		return *ret ? 0 : -ENOMEM;
	}
	name = strdup(d->kname);
	if (!name)
		return -ENOMEM;
	for (char *c = name; *c; c++)
		if (*c == '!')
			*c = '/';
	if (!is_safe_relname(name))
		return -EBADMSG;
	*ret = join_dev(paths, NULL, name);
	return *ret ? 0 : -ENOMEM;
}

enum {
	KIND_DM = 1U << 0,
	KIND_LOOP = 1U << 1,
	KIND_MD = 1U << 2,
	KIND_DISK = 1U << 3, /* anything with a wwid or serial: sd, nvme, virtblk, ... */
};

/* Which kind-specific attributes a block major's type can have; unknown: all of them. */
static unsigned device_kind(const char *type_name)
{
	if (!type_name)
		return KIND_DM | KIND_LOOP | KIND_MD | KIND_DISK;
	if (strcmp(type_name, "device-mapper") == 0)
		return KIND_DM;
	if (strcmp(type_name, "loop") == 0)
		return KIND_LOOP;
	if (strcmp(type_name, "md") == 0 || strcmp(type_name, "mdp") == 0)
		return KIND_MD;
	return KIND_DISK;
}

/*
 * Everything about one device from its sysfs directory. Identity
 * attributes lvm2 reads with a fallback to the whole disk for a partition
 * (read_sys_block: wwid, serial) get that fallback here too; the others
 * (dm, md, loop) describe the device itself.
 */
static int fill(const struct pf_paths *paths, const struct majors *mt, const char *sysdir,
		bool by_devno, const dev_t *expect, struct pf_dev *ret)
{
	_cleanup_close_ int dfd = -1;
	_cleanup_free_ char *s = NULL;
	struct pf_dev d = { 0 };
	unsigned kind;
	uint64_t v;
	int r;

	dfd = open(sysdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOTDIR ? -ENOENT : -errno;
	r = read_at(dfd, "dev", ATTR_NUM_MAX, &s);
	if (r == -ENOMEM || r == -ENOENT)
		return r;
	if (r < 0)
		return -EBADMSG;
	r = parse_devno(s, &d.major, &d.minor);
	if (r < 0)
		return r;
	if (expect && makedev(d.major, d.minor) != *expect)
		return -EBADMSG;

	free(s);
	s = NULL;
	r = opt_attr(dfd, "size", ATTR_NUM_MAX, &s);
	if (r < 0)
		goto out;
	if (s && pf_parse_u64(s, UINT64_MAX / 512, &v) == 0)
		d.size_bytes = v * 512;

	if (mt->name[d.major]) {
		d.type_name = strdup(mt->name[d.major]);
		if (!d.type_name) {
			r = -ENOMEM;
			goto out;
		}
	}
	kind = device_kind(d.type_name);
	/*
	 * Empty (a detached loop device, a drive without medium): lvm2 finds it too small
	 * whatever else it is, so nothing more is read; hosts keep hundreds of unused loop
	 * devices. Its kernel name is its class/block entry's (expect is only given for a
	 * /sys/dev/block/M:m path). A dm device goes on: lvm2 judges its usability first.
	 */
	if (d.size_bytes == 0 && !(kind & KIND_DM) && !by_devno && !expect) {
		const char *base = strrchr(sysdir, '/');

		base = base ? base + 1 : sysdir;
		if (!is_plain_name(base, strlen(base))) {
			r = -EBADMSG;
			goto out;
		}
		d.kname = strdup(base);
		r = d.kname ? dev_name_for(paths, dfd, &d, by_devno, &d.path) : -ENOMEM;
		if (r < 0)
			goto out;
		*ret = d;
		return 0;
	}

	r = sys_names(sysdir, &d.kname, &d.parent_kname);
	if (r < 0)
		goto out;
	d.is_partition = faccessat(dfd, "partition", F_OK, 0) == 0;
	if (!d.is_partition) {
		free(d.parent_kname);
		d.parent_kname = NULL;
	}

	/*
	 * Each open of a sysfs attribute costs a path walk; on a host with
	 * thousands of devices they dominate the scan. Read the kind-specific
	 * attributes only for devices of that kind (all of them when the type
	 * is unknown).
	 */
	r = 0;
	if (kind & KIND_DM) {
		r = opt_attr(dfd, "dm/uuid", ATTR_DM_UUID_MAX, &d.dm_uuid);
		if (r >= 0)
			r = opt_attr(dfd, "dm/name", ATTR_DM_NAME_MAX, &d.dm_name);
	}
	if (r >= 0 && (kind & KIND_LOOP))
		r = opt_attr(dfd, "loop/backing_file", ATTR_BACKING_FILE_MAX, &d.loop_backing_file);
	if (r >= 0 && (kind & KIND_LOOP) && d.loop_backing_file) {
		free(s);
		s = NULL;
		r = opt_attr(dfd, "loop/partscan", ATTR_NUM_MAX, &s);
		/* sscanf("%d") as lvm2 reads it: blanks, an optional sign, digits */
		d.loop_partscan = r >= 0 && s && pf_atoi(s) != 0;
	}
	if (r >= 0 && (kind & KIND_MD))
		r = opt_attr(dfd, "md/uuid", ATTR_MD_UUID_MAX, &d.md_uuid);
	if (r >= 0 && (kind & KIND_DISK))
		r = opt_attr(dfd, "device/wwid", ATTR_WWID_MAX, &d.wwid);
	if (r >= 0 && (kind & KIND_DISK) && !d.wwid)
		r = opt_attr(dfd, "wwid", ATTR_WWID_MAX, &d.wwid);
	if (r >= 0 && (kind & KIND_DISK) && !d.wwid && d.is_partition)
		r = opt_attr(dfd, "../device/wwid", ATTR_WWID_MAX, &d.wwid);
	if (r >= 0 && (kind & KIND_DISK) && !d.wwid && d.is_partition)
		r = opt_attr(dfd, "../wwid", ATTR_WWID_MAX, &d.wwid);
	if (r >= 0 && (kind & KIND_DISK))
		r = opt_attr(dfd, "device/serial", ATTR_SERIAL_MAX, &d.serial);
	if (r >= 0 && (kind & KIND_DISK) && !d.serial && d.is_partition)
		r = opt_attr(dfd, "../device/serial", ATTR_SERIAL_MAX, &d.serial);
	if (r >= 0)
		r = read_holders(dfd, &d.holders, &d.n_holders);
	if (r >= 0)
		r = dev_name_for(paths, dfd, &d, by_devno, &d.path);
	if (r < 0)
		goto out;
	*ret = d;
	return 0;
out:
	pf_dev_release(&d);
	return r;
}

static int lookup_devno(const struct pf_paths *paths, unsigned major, unsigned minor,
			bool by_devno, struct pf_dev *ret)
{
	_cleanup_free_ char *sysdir = NULL;
	struct majors *mt = NULL;
	dev_t want = makedev(major, minor);
	int r;

	if (major >= MAJOR_COUNT || minor >= MINOR_COUNT)
		return -ENOENT;
	if (asprintf(&sysdir, "%s/dev/block/%u:%u", paths->sys, major, minor) < 0)
		return -ENOMEM;
	r = majors_load(paths, &mt);
	if (r < 0)
		return r;
	r = fill(paths, mt, sysdir, by_devno, &want, ret);
	majors_free(mt);
	return r;
}

int pf_sysfs_lookup_devno(const struct pf_paths *paths, unsigned major, unsigned minor,
			  struct pf_dev *ret)
{
	return lookup_devno(paths, major, minor, true, ret);
}

int pf_sysfs_lookup_path(const struct pf_paths *paths, const char *path, struct pf_dev *ret)
{
	struct stat st;
	struct pf_dev d;
	char *p;
	int r;

	if (stat(path, &st) < 0)
		return errno == ENOTDIR ? -ENOENT : -errno;
	if (!S_ISBLK(st.st_mode))
		return -ENOTBLK;
	/* lvm2 takes a named device as it is: no /proc/partitions check, and the name given */
	r = lookup_devno(paths, major(st.st_rdev), minor(st.st_rdev), false, &d);
	if (r < 0)
		return r;
	p = strdup(path);
	if (!p) {
		pf_dev_release(&d);
		return -ENOMEM;
	}
	free(d.path);
	d.path = p;
	*ret = d;
	return 0;
}

int pf_sysfs_lookup_kname(const struct pf_paths *paths, const char *kname, struct pf_dev *ret)
{
	_cleanup_free_ char *sysdir = NULL;
	struct majors *mt = NULL;
	int r;

	if (!is_plain_name(kname, strlen(kname)))
		return -EINVAL;
	if (asprintf(&sysdir, "%s/class/block/%s", paths->sys, kname) < 0)
		return -ENOMEM;
	r = majors_load(paths, &mt);
	if (r < 0)
		return r;
	r = fill(paths, mt, sysdir, false, NULL, ret);
	majors_free(mt);
	return r;
}

static int open_kname(const struct pf_paths *paths, const char *kname)
{
	_cleanup_free_ char *sysdir = NULL;
	int fd;

	if (!is_plain_name(kname, strlen(kname)))
		return -EINVAL;
	if (asprintf(&sysdir, "%s/class/block/%s", paths->sys, kname) < 0)
		return -ENOMEM;
	fd = open(sysdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return fd < 0 ? -errno : fd;
}

int pf_sysfs_read_attr(const struct pf_paths *paths, const char *kname, const char *attr,
		       size_t cap, char **ret)
{
	_cleanup_close_ int dfd = -1;

	dfd = open_kname(paths, kname);
	if (dfd < 0)
		return dfd == -ENOTDIR ? -ENOENT : dfd;
	return read_at(dfd, attr, cap, ret);
}

int pf_sysfs_read_opt_attr(const struct pf_paths *paths, const char *kname, const char *attr,
			   size_t cap, char **ret)
{
	_cleanup_close_ int dfd = -1;

	*ret = NULL;
	if (!kname)
		return 0;
	dfd = open_kname(paths, kname);
	if (dfd < 0)
		return dfd == -ENOMEM ? dfd : 0;
	return opt_attr(dfd, attr, cap, ret);
}

int pf_sysfs_list_holders(const struct pf_paths *paths, const char *kname, char ***ret,
			  size_t *ret_n)
{
	_cleanup_close_ int dfd = -1;

	dfd = open_kname(paths, kname);
	if (dfd == -EINVAL || dfd == -ENOMEM)
		return dfd;
	if (dfd < 0) {
		*ret = NULL;
		*ret_n = 0;
		return 0;
	}
	return read_holders(dfd, ret, ret_n);
}

/*
 * The order lvm2 keeps its devices in, and so scans and reports them: a btree
 * keyed by the dev_t (glibc's encoding) with its four bytes swapped, so the
 * low byte of the minor counts first (loop1025 comes before loop1012).
 */
static uint32_t lvm2_order_key(const struct pf_dev *d)
{
	uint32_t k = (d->minor & 0xffu) | (d->major & 0xfffu) << 8 | (d->minor & ~0xffu) << 12;

	return __builtin_bswap32(k);
}

static int cmp_lvm2_order(const void *a, const void *b)
{
	uint32_t x = lvm2_order_key(a), y = lvm2_order_key(b);

	if (x != y)
		return x < y ? -1 : 1;
	return pf_dev_cmp_devno(a, b);
}

/*
 * class/block rather than /sys/block: one flat directory holding disks and
 * partitions alike (a partition is told apart by its "partition" file, the
 * test lvm2 uses too), so no disk directory has to be searched for
 * partition subdirectories among its other entries.
 */
/*
 * Discovery is a few syscalls on sysfs per device and nothing else, thousands of times on a
 * big host, before the first read can start: spread it over a few threads. Small hosts (and
 * single CPUs) stay on the caller's thread.
 */
#define FILL_THREADS_MAX     4U
#define FILL_PER_THREAD_MIN 256U

struct fill_job {
	const struct pf_paths *paths;
	const struct majors *mt;
	const char *classdir;
	const struct pf_strv *names;
	size_t begin, end;
	struct pf_dev *devs; /* one slot per name */
	bool *ok;	     /* the slot holds a device */
	int r;		     /* -ENOMEM stops the job */
};

static void *fill_range(void *arg)
{
	struct fill_job *j = arg;

	for (size_t i = j->begin; i < j->end; i++) {
		_cleanup_free_ char *sysdir = NULL;
		int r;

		if (asprintf(&sysdir, "%s/%s", j->classdir, j->names->v[i]) < 0) {
			j->r = -ENOMEM;
			break;
		}
		r = fill(j->paths, j->mt, sysdir, false, NULL, &j->devs[i]);
		if (r == -ENOMEM) {
			j->r = r;
			break;
		}
		/* gone since readdir, or not a device we can make sense of */
		j->ok[i] = r == 0;
	}
	return NULL;
}

static unsigned fill_threads(size_t n)
{
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	size_t t = n / FILL_PER_THREAD_MIN;

	if (cpus < 1)
		cpus = 1;
	if (t > (size_t)cpus)
		t = (size_t)cpus;
	if (t > FILL_THREADS_MAX)
		t = FILL_THREADS_MAX;
	return t ? (unsigned)t : 1U;
}

/* Fill every name's slot; threads that cannot be started leave their share to this one. */
static int fill_all(const struct pf_paths *paths, const struct majors *mt, const char *classdir,
		    const struct pf_strv *names, struct pf_dev *devs, bool *ok)
{
	struct fill_job jobs[FILL_THREADS_MAX];
	pthread_t tid[FILL_THREADS_MAX];
	bool started[FILL_THREADS_MAX] = { false };
	unsigned nt = fill_threads(names->n);
	int r = 0;

	for (unsigned t = 0; t < nt; t++)
		jobs[t] = (struct fill_job){ .paths = paths, .mt = mt, .classdir = classdir,
					     .names = names, .begin = names->n * t / nt,
					     .end = names->n * (t + 1) / nt, .devs = devs, .ok = ok };
	for (unsigned t = 1; t < nt; t++)
		started[t] = pthread_create(&tid[t], NULL, fill_range, &jobs[t]) == 0;
	(void)fill_range(&jobs[0]);
	for (unsigned t = 1; t < nt; t++) {
		if (started[t])
			(void)pthread_join(tid[t], NULL);
		else
			(void)fill_range(&jobs[t]);
	}
	for (unsigned t = 0; t < nt; t++)
		if (jobs[t].r < 0)
			r = jobs[t].r;
	return r;
}

int pf_sysfs_enumerate(const struct pf_paths *paths, struct pf_dev_list *ret)
{
	_cleanup_free_ char *classdir = NULL;
	_cleanup_free_ bool *ok = NULL;
	struct pf_strv names = { 0 };
	struct majors *mt = NULL;
	struct pf_dev *devs = NULL;
	size_t n = 0, i;
	int fd, r;

	if (asprintf(&classdir, "%s/class/block", paths->sys) < 0)
		return -ENOMEM;
	fd = open(classdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = pf_strv_read_dir(fd, PF_SYSFS_DEVICES_MAX, &names);
	if (r < 0)
		return r;
	r = majors_load(paths, &mt);
	if (r < 0)
		goto out;
	devs = calloc(names.n ? names.n : 1, sizeof(*devs));
	ok = calloc(names.n ? names.n : 1, sizeof(*ok));
	if (!devs || !ok) {
		r = -ENOMEM;
		goto out;
	}
	r = fill_all(paths, mt, classdir, &names, devs, ok);
	/* keep the filled slots, in place */
	for (i = 0; i < names.n; i++) {
		if (!ok[i])
			continue;
		if (i != n)
			devs[n] = devs[i];
		n++;
	}
	if (r < 0)
		goto out;
	if (n > 1)
		qsort(devs, n, sizeof(*devs), cmp_lvm2_order);
	/* one entry per devno, should sysfs ever list one twice */
	for (i = 1; i < n;) {
		if (pf_dev_cmp_devno(&devs[i - 1], &devs[i])) {
			i++;
			continue;
		}
		pf_dev_release(&devs[i]);
		memmove(&devs[i], &devs[i + 1], (n - i - 1) * sizeof(*devs));
		n--;
	}
	ret->devs = TAKE_PTR(devs);
	ret->n = n;
	r = 0;
out:
	if (devs) {
		for (i = 0; i < n; i++)
			pf_dev_release(&devs[i]);
		free(devs);
	}
	majors_free(mt);
	pf_strv_release(&names);
	return r;
}

/* A /proc/self/mountinfo line's third field, "MAJOR:MINOR", is maj:min. */
static bool mountinfo_line_is(const char *line, unsigned maj, unsigned min)
{
	uint64_t a, b;

	for (int field = 0; field < 2; field++) {
		line = strchr(line, ' ');
		if (!line)
			return false;
		line++;
	}
	return pf_scan_u64(&line, UINT_MAX, &a) == 0 && *line++ == ':' &&
	       pf_scan_u64(&line, UINT_MAX, &b) == 0 && *line == ' ' && a == maj && b == min;
}

bool pf_sysfs_has_mounted_fs(const struct pf_paths *paths, unsigned major, unsigned minor,
			     const char *kname)
{
	_cleanup_free_ char *text = NULL;
	char dir[PATH_MAX];
	bool found = false;
	struct dirent *e;
	DIR *d;

	if (read_proc(paths, "self/mountinfo", &text) == 0)
		for (const char *line = text; line; line = strchr(line, '\n')) {
			line += *line == '\n';
			if (mountinfo_line_is(line, major, minor))
				return true;
		}
	/* file systems that keep a directory per device they are mounted from: ext4, xfs... */
	if (!kname || !is_plain_name(kname, strlen(kname)) ||
	    (size_t)snprintf(dir, sizeof(dir), "%s/fs", paths->sys) >= sizeof(dir))
		return false;
	d = opendir(dir);
	if (!d)
		return false;
	while (!found && (e = readdir(d))) {
		char sub[2 * NAME_MAX + 2];
		struct stat st;

		if (e->d_name[0] != '.' &&
		    (size_t)snprintf(sub, sizeof(sub), "%s/%s", e->d_name, kname) < sizeof(sub))
			found = fstatat(dirfd(d), sub, &st, 0) == 0;
	}
	(void)closedir(d);
	return found;
}
