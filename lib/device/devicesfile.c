/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's devices file: line-by-line reading with lvm2's quirks, and device id matching. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/strutil.h"
#include "device/blockdev.h"
#include "device/devicesfile.h"

/* lvm2's buffers: PATH_MAX for values, 256 for VERSION. */
#define VALUE_MAX   4096U
#define VERSION_MAX 256U

/* lvm2 compares a devices-file PVID with the device's over this many bytes. */
#define PVID_LEN 32U

static const char *const idtype_names[_PF_DEVFILE_ID_MAX] = {
	[PF_DEVICESFILE_ID_NONE] = "unknown",	   [PF_DEVICESFILE_ID_SYS_WWID] = "sys_wwid",
	[PF_DEVICESFILE_ID_SYS_SERIAL] = "sys_serial", [PF_DEVICESFILE_ID_DEVNAME] = "devname",
	[PF_DEVICESFILE_ID_MPATH_UUID] = "mpath_uuid", [PF_DEVICESFILE_ID_CRYPT_UUID] = "crypt_uuid",
	[PF_DEVICESFILE_ID_LVMLV_UUID] = "lvmlv_uuid", [PF_DEVICESFILE_ID_MD_UUID] = "md_uuid",
	[PF_DEVICESFILE_ID_LOOP_FILE] = "loop_file",
};

const char *pf_devicesfile_idtype_name(enum pf_devicesfile_idtype t)
{
	return (unsigned)t < _PF_DEVFILE_ID_MAX ? idtype_names[t] : "unknown";
}

enum pf_devicesfile_idtype pf_devicesfile_idtype_parse(const char *s)
{
	for (unsigned t = PF_DEVICESFILE_ID_NONE + 1; t < _PF_DEVFILE_ID_MAX; t++)
		if (strcmp(s, idtype_names[t]) == 0)
			return (enum pf_devicesfile_idtype)t;
	return PF_DEVICESFILE_ID_NONE;
}

/*
 * lvm2's _copy_idline_str(): the value is found after the first '=' from field onwards (in a
 * later field if this one has none), after any spaces, up to a space, newline or the end;
 * nothing past field + max - 1 is read. Returns a malloc'ed copy ("" for no '=').
 */
static char *field_value(const char *field, size_t max)
{
	const char *s = strchr(field, '='), *e, *lim = field + max - 1;

	if (!s)
		return strdup("");
	s++;
	while (*s == ' ' && s < lim)
		s++;
	for (e = s; *e && *e != ' ' && *e != '\n' && e < lim; e++)
		;
	return strndup(s, (size_t)(e - s));
}

/* NULL for lvm2's "no value": empty, or anything starting with '.'. */
static int optional_value(const char *field, char **ret)
{
	char *v;

	*ret = NULL;
	if (!field)
		return 0;
	v = field_value(field, VALUE_MAX);
	if (!v)
		return -ENOMEM;
	if (!v[0] || v[0] == '.')
		free(v);
	else
		*ret = v;
	return 0;
}

static void entry_release(struct pf_devicesfile_entry *e)
{
	free(e->idname);
	free(e->devname);
	free(e->pvid);
}

static int parse_entry(const char *line, unsigned lineno, struct pf_devicesfile *df)
{
	const char *idtype = strstr(line, "IDTYPE"), *idname = strstr(line, "IDNAME");
	struct pf_devicesfile_entry e = { .line = lineno };
	char *v = NULL;
	int r;

	if (!idtype || !idname) {
		df->n_ignored++;
		return 0;
	}
	if (df->n_entries >= PF_DEVICESFILE_ENTRIES_MAX)
		return -E2BIG;
	v = field_value(idtype, VALUE_MAX);
	if (!v)
		return -ENOMEM;
	e.idtype = v[0] ? pf_devicesfile_idtype_parse(v) : PF_DEVICESFILE_ID_NONE;
	free(v);
	r = optional_value(idname, &e.idname);
	if (r == 0)
		r = optional_value(strstr(line, "DEVNAME"), &e.devname);
	if (r == 0)
		r = optional_value(strstr(line, "PVID"), &e.pvid);
	if (r == 0)
		r = optional_value(strstr(line, "PART"), &v);
	if (r < 0)
		goto fail;
	if (v) {
		e.part = pf_atoi(v);
		free(v);
	}
	df->entries[df->n_entries++] = e;
	return 0;
fail:
	entry_release(&e);
	return r;
}

static int set_header(char **slot, const char *line, size_t max)
{
	char *v = field_value(line, max);

	if (!v)
		return -ENOMEM;
	free(*slot);
	*slot = v;
	return 0;
}

static int parse_line(const char *line, unsigned lineno, struct pf_devicesfile *df)
{
	if (line[0] == '#')
		return 0;
	if (strncmp(line, "SYSTEMID", 8) == 0)
		return set_header(&df->systemid, line, VALUE_MAX);
	if (strncmp(line, "VERSION", 7) == 0)
		return set_header(&df->version, line, VERSION_MAX);
	return parse_entry(line, lineno, df);
}

int pf_devicesfile_parse(const char *text, size_t len, struct pf_devicesfile **ret, struct pf_diag *reterr)
{
	char chunk[PF_DEVICESFILE_CHUNK_MAX + 1];
	struct pf_devicesfile *df;
	size_t off = 0, lines = 0;
	unsigned lineno = 0;
	int r = -ENOMEM;

	if (len > PF_DEVICESFILE_SIZE_MAX) {
		pf_diag_msg(reterr, "devices file larger than %zu bytes", PF_DEVICESFILE_SIZE_MAX);
		return -E2BIG;
	}
	/* At most one entry per line read: per '\n', per chunk of a long line, and the last. */
	for (size_t i = 0; i < len; i++)
		lines += text[i] == '\n';
	lines += 1 + len / PF_DEVICESFILE_CHUNK_MAX;
	if (lines > PF_DEVICESFILE_ENTRIES_MAX)
		lines = PF_DEVICESFILE_ENTRIES_MAX;
	df = calloc(1, sizeof(*df));
	if (!df)
		return -ENOMEM;
	df->entries = calloc(lines, sizeof(*df->entries));
	if (!df->entries)
		goto fail;
	while (off < len) {
		size_t n = 0;

		/* fgets(): up to and including '\n', at most PF_DEVICESFILE_CHUNK_MAX bytes. */
		while (off + n < len && n < PF_DEVICESFILE_CHUNK_MAX && text[off + n] != '\n')
			n++;
		if (off + n < len && n < PF_DEVICESFILE_CHUNK_MAX)
			n++;
		memcpy(chunk, text + off, n);
		chunk[n] = '\0'; /* an embedded NUL ends the line early, as in lvm2 */
		off += n;
		lineno++;
		r = parse_line(chunk, lineno, df);
		if (r == -E2BIG)
			pf_diag_msg(reterr, "more than %u entries (line %u)",
				    PF_DEVICESFILE_ENTRIES_MAX, lineno);
		if (r < 0)
			goto fail;
	}
	*ret = df;
	return 0;
fail:
	pf_devicesfile_free(df);
	return r;
}

int pf_devicesfile_load(const char *path, struct pf_devicesfile **ret, struct pf_diag *reterr)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	size_t len = 0;
	struct stat st;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		int r = -errno;

		pf_diag_msg(reterr, "cannot open %s: %s", path, strerror(-r));
		return r;
	}
	if (fstat(fd, &st) < 0) {
		int r = -errno;

		pf_diag_msg(reterr, "cannot stat %s: %s", path, strerror(-r));
		return r;
	}
	if (S_ISDIR(st.st_mode)) {
		pf_diag_msg(reterr, "%s is a directory", path);
		return -EISDIR;
	}
	buf = malloc(PF_DEVICESFILE_SIZE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	/* Read one byte past the cap to tell a file at the cap from a longer one. */
	while (len <= PF_DEVICESFILE_SIZE_MAX) {
		ssize_t k = read(fd, buf + len, PF_DEVICESFILE_SIZE_MAX + 1 - len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k < 0) {
			int r = -errno;

			pf_diag_msg(reterr, "cannot read %s: %s", path, strerror(-r));
			return r;
		}
		if (k == 0)
			break;
		len += (size_t)k;
	}
	return pf_devicesfile_parse(buf, len, ret, reterr);
}

struct pf_devicesfile *pf_devicesfile_free(struct pf_devicesfile *df)
{
	if (!df)
		return NULL;
	for (size_t i = 0; i < df->n_entries; i++)
		entry_release(&df->entries[i]);
	free(df->entries);
	free(df->version);
	free(df->systemid);
	free(df);
	return NULL;
}

/* ---- device ids ---- */

static bool dev_is(const struct pf_dev *dev, const char *type_name)
{
	return dev->type_name && strcmp(dev->type_name, type_name) == 0;
}

/* lvm2's read_sys_block(): a partition without the attribute gets its whole disk's. */
static const char *sys_value(const char *own, const char *parents)
{
	if (own && own[0])
		return own;
	return parents && parents[0] ? parents : NULL;
}

#define PARENT(field) (parent ? parent->field : NULL)

int pf_devicesfile_dev_id(const struct pf_dev *dev, const struct pf_dev *parent,
		      enum pf_devicesfile_idtype t, char **ret)
{
	const char *v = NULL;
	char *s;

	switch (t) {
	case PF_DEVICESFILE_ID_SYS_WWID:
		v = sys_value(dev->wwid, PARENT(wwid));
		/* compat: qemu's ATA wwid is not unique; lvm2 ignores it. */
		if (v && strstr(v, "QEMU HARDDISK"))
			v = NULL;
		break;
	case PF_DEVICESFILE_ID_SYS_SERIAL:
		v = sys_value(dev->serial, PARENT(serial));
		break;
	case PF_DEVICESFILE_ID_MPATH_UUID:
	case PF_DEVICESFILE_ID_CRYPT_UUID:
	case PF_DEVICESFILE_ID_LVMLV_UUID:
		/* Any dm uuid: lvm2 checks no prefix when comparing. */
		v = sys_value(dev->dm_uuid, PARENT(dm_uuid));
		break;
	case PF_DEVICESFILE_ID_MD_UUID:
		v = sys_value(dev->md_uuid, PARENT(md_uuid));
		break;
	case PF_DEVICESFILE_ID_LOOP_FILE:
		v = sys_value(dev->loop_backing_file, PARENT(loop_backing_file));
		if (v && strstr(v, "(deleted)"))
			v = NULL;
		break;
	case PF_DEVICESFILE_ID_DEVNAME:
		/* The name as is: lvm2 does not clean it. */
		if (!dev->path)
			return -ENODATA;
		s = strdup(dev->path);
		if (!s)
			return -ENOMEM;
		*ret = s;
		return 0;
	default:
		return -ENODATA;
	}
	if (!v)
		return -ENODATA;
	s = strndup(v, VALUE_MAX - 1);
	if (!s)
		return -ENOMEM;
	for (char *p = s; *p; p++) {
		unsigned char c = (unsigned char)*p;

		if (c < 0x20 || c == ' ' || c == 0x7f)
			*p = '_';
	}
	*ret = s;
	return 0;
}

static bool idtype_suits_dev(enum pf_devicesfile_idtype t, const struct pf_dev *dev)
{
	bool dm = dev_is(dev, "device-mapper"), md = dev_is(dev, "md"), loop = dev_is(dev, "loop");

	switch (t) {
	case PF_DEVICESFILE_ID_DEVNAME:
		return true;
	case PF_DEVICESFILE_ID_MPATH_UUID:
	case PF_DEVICESFILE_ID_CRYPT_UUID:
	case PF_DEVICESFILE_ID_LVMLV_UUID:
		return dm;
	case PF_DEVICESFILE_ID_MD_UUID:
		return md;
	case PF_DEVICESFILE_ID_LOOP_FILE:
		return loop;
	default:
		return !dm && !md && !loop;
	}
}

/*
 * lvm2 caches each id it reads on the device; the second and later devname comparisons of
 * a dm device go through the cache, which also accepts another name of the same dm device.
 */
struct id_cache {
	bool read[_PF_DEVFILE_ID_MAX];
	char *value[_PF_DEVFILE_ID_MAX];
};

static bool other_dm_name(const struct pf_devicesfile_entry *e, const struct pf_dev *dev)
{
	struct stat st;

	if (strncmp(e->idname, "/dev/dm-", 8) != 0 && strncmp(e->idname, "/dev/mapper/", 12) != 0)
		return false;
	if (stat(e->idname, &st) < 0)
		return false;
	return major(st.st_rdev) == dev->major && minor(st.st_rdev) == dev->minor;
}

static int match_entry(const struct pf_devicesfile_entry *e, const struct pf_dev *dev,
		       const struct pf_dev *parent, int partition, struct id_cache *c)
{
	bool cached;
	int r;

	if (!e->idname || e->idtype == PF_DEVICESFILE_ID_NONE || !idtype_suits_dev(e->idtype, dev) ||
	    e->part != partition)
		return 0;
	cached = c->read[e->idtype];
	if (!cached) {
		r = pf_devicesfile_dev_id(dev, parent, e->idtype, &c->value[e->idtype]);
		if (r == -ENOMEM)
			return r;
		c->read[e->idtype] = true;
	}
	if (cached && e->idtype == PF_DEVICESFILE_ID_DEVNAME && dev_is(dev, "device-mapper") &&
	    ((dev->path && strcmp(e->idname, dev->path) == 0) || other_dm_name(e, dev)))
		return 1;
	return c->value[e->idtype] && strcmp(c->value[e->idtype], e->idname) == 0;
}

const struct pf_devicesfile_entry *pf_devicesfile_match_dev(const struct pf_devicesfile *df,
						    const struct pf_dev *dev,
						    const struct pf_dev *parent, int partition)
{
	const struct pf_devicesfile_entry *found = NULL;
	struct id_cache c = { 0 };
	int r = 0;

	/* The entry last seen with this name is most likely right: try it first. */
	for (size_t i = 0; dev->path && i < df->n_entries; i++) {
		const struct pf_devicesfile_entry *e = &df->entries[i];

		if (e->devname && strcmp(e->devname, dev->path) == 0) {
			r = match_entry(e, dev, parent, partition, &c);
			if (r > 0)
				found = e;
			break;
		}
	}
	for (size_t i = 0; !found && r >= 0 && i < df->n_entries; i++) {
		r = match_entry(&df->entries[i], dev, parent, partition, &c);
		if (r > 0)
			found = &df->entries[i];
	}
	for (unsigned t = 0; t < _PF_DEVFILE_ID_MAX; t++)
		free(c.value[t]);
	/* Out of memory cannot be told from "not listed" here; lvm2 also treats it so. */
	return found;
}

bool pf_devicesfile_uses_devname(const struct pf_devicesfile *df)
{
	for (size_t i = 0; i < df->n_entries; i++)
		if (df->entries[i].idtype == PF_DEVICESFILE_ID_DEVNAME)
			return true;
	return false;
}

const struct pf_devicesfile_entry *pf_devicesfile_find_pvid(const struct pf_devicesfile *df, const char *pvid)
{
	if (strnlen(pvid, PVID_LEN) < PVID_LEN)
		return NULL;
	for (size_t i = 0; i < df->n_entries; i++) {
		const char *p = df->entries[i].pvid;

		if (p && strnlen(p, PVID_LEN) == PVID_LEN && memcmp(p, pvid, PVID_LEN) == 0)
			return &df->entries[i];
	}
	return NULL;
}
