/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2 2.03.16's multipath component check: the wwids file, multipath's blacklist, dm holders. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>

#include "base/fileio.h"
#include "base/paths.h"
#include "device/multipath.h"
#include "device/sysfs.h"

/* lvm2 reads the multipath files with fgets() into 512 bytes: longer lines come in pieces. */
#define MPATH_LINE_MAX 512
#define MPATH_WWID_MIN 8 /* shorter blacklist wwids are ignored */

#define ATTR_DM_UUID_MAX 256
#define ATTR_WWID_MAX	 4095 /* lvm2 reads device/wwid into PATH_MAX bytes */

#define MPATH_UUID_PREFIX "mpath-"

/* Hand fn each line the way fgets() with lvm2's 512-byte buffer would (an embedded NUL ends it). */
static int for_each_line(const char *text, size_t len, int (*fn)(char *line, void *arg), void *arg)
{
	char line[MPATH_LINE_MAX];
	size_t pos = 0;

	while (pos < len) {
		size_t n = 0;
		int r;

		while (pos + n < len && n < sizeof(line) - 1)
			if (text[pos + n++] == '\n')
				break;
		memcpy(line, text + pos, n);
		line[n] = '\0';
		pos += n;
		r = fn(line, arg);
		if (r < 0)
			return r;
	}
	return 0;
}

/*
 * A wwids file line as multipath writes it: "/3<wwid>/". lvm2 drops the
 * leading '/' and then one more character (the '3', taken on trust) and
 * cuts at the next '/'; "#" lines are comments.
 */
static int wwids_line(char *line, void *arg)
{
	struct pf_strv *set = arg;
	char *w = line, *slash;

	if (line[0] == '#')
		return 0;
	if (*w == '/')
		w++;
	if (!*w)
		return 0;
	w++;
	slash = strchr(w, '/');
	if (slash)
		*slash = '\0';
	/* an entry that kept its newline can never equal a sysfs wwid */
	if (strchr(w, '\n'))
		return 0;
	return pf_strv_push(set, PF_MULTIPATH_WWIDS_MAX, w);
}

struct blacklist {
	bool black, exceptions; /* inside "blacklist {" / "blacklist_exceptions {" */
	struct pf_strv ignored, excepted;
};

/*
 * One multipath.conf line, read as loosely as lvm2 reads it: any line with
 * '{' opens a section (only the two blacklist ones count), any line with
 * '}' closes both, and in a blacklist section a word containing "wwid"
 * yields the token four characters after the word's start, unquoted and
 * without its first '3'.
 */
static int blacklist_line(char *line, void *arg)
{
	struct blacklist *bl = arg;
	char wwid[MPATH_LINE_MAX] = { 0 };
	bool quote = false, three = false;
	const char *word = NULL;
	size_t i, j = 0, len = strlen(line);

	for (i = 0; i < len && line[i] != '\n'; i++) {
		if (isspace((unsigned char)line[i]))
			continue;
		word = line + i;
		break;
	}
	if (!word || word[0] == '#')
		return 0;
	if (strchr(word, '{')) {
		if (!strncmp(word, "blacklist_exceptions", 20))
			bl->exceptions = true;
		else if (!strncmp(word, "blacklist", 9))
			bl->black = true;
		return 0;
	}
	if (strchr(word, '}')) {
		bl->black = false;
		bl->exceptions = false;
		return 0;
	}
	if ((!bl->black && !bl->exceptions) || !strstr(word, "wwid"))
		return 0;
	for (i += 4; i < len; i++) {
		char c = line[i];

		if (c == '\n')
			break;
		if (isspace((unsigned char)c)) {
			if (!j)
				continue;
			break;
		}
		if (c == '"') {
			if (quote)
				break;
			quote = true;
			continue;
		}
		if (c == '3' && !three) {
			three = true;
			continue;
		}
		wwid[j++] = c;
	}
	if (j < MPATH_WWID_MIN)
		return 0;
	return pf_strv_push(bl->exceptions ? &bl->excepted : &bl->ignored, PF_MULTIPATH_WWIDS_MAX,
			    wwid);
}

static int blacklist_file(struct blacklist *bl, const char *path)
{
	_cleanup_free_ char *text = NULL;
	size_t len = 0;
	int r;

	r = pf_read_file_at(AT_FDCWD, path, PF_MULTIPATH_FILE_MAX, &text, &len);
	if (r == -ENOMEM || r == -E2BIG)
		return r;
	if (r < 0)
		return 0;
	bl->black = false;
	bl->exceptions = false;
	return for_each_line(text, len, blacklist_line, bl);
}

static int blacklist_dir(struct blacklist *bl, const char *dirpath)
{
	struct dirent *de;
	DIR *dir;
	size_t n = 0;
	int r = 0;

	dir = opendir(dirpath);
	if (!dir)
		return errno == ENOMEM ? -ENOMEM : 0;
	while ((de = readdir(dir))) {
		_cleanup_free_ char *path = NULL;

		if (de->d_name[0] == '.')
			continue;
		if (++n > PF_MULTIPATH_CONFD_MAX) {
			r = -E2BIG;
			break;
		}
		path = pf_path_join(dirpath, de->d_name);
		if (!path) {
			r = -ENOMEM;
			break;
		}
		r = blacklist_file(bl, path);
		if (r < 0)
			break;
	}
	(void)closedir(dir);
	return r;
}

int pf_multipath_load_wwids(const char *wwids_file, const char *conf_file, const char *conf_dir,
			    struct pf_strv *ret)
{
	_cleanup_free_ char *text = NULL;
	struct blacklist bl = { 0 };
	struct pf_strv set = { 0 };
	size_t len = 0, out = 0;
	int r;

	/* lvm2: "" disables the file; a relative path is ignored ("Ignoring unknown ...") */
	if (!wwids_file || wwids_file[0] != '/')
		goto done;
	r = pf_read_file_at(AT_FDCWD, wwids_file, PF_MULTIPATH_FILE_MAX, &text,
			    &len);
	if (r == -ENOMEM || r == -E2BIG)
		return r;
	if (r < 0)
		goto done;
	r = for_each_line(text, len, wwids_line, &set);
	if (r < 0)
		goto out;
	pf_strv_sort_unique(&set);

	if (conf_file) {
		r = blacklist_file(&bl, conf_file);
		if (r < 0)
			goto out;
	}
	if (conf_dir) {
		r = blacklist_dir(&bl, conf_dir);
		if (r < 0)
			goto out;
	}
	pf_strv_sort_unique(&bl.excepted);
	pf_strv_sort_unique(&bl.ignored);
	for (size_t i = 0; i < set.n; i++) {
		if (pf_strv_contains(&bl.ignored, set.v[i]) &&
		    !pf_strv_contains(&bl.excepted, set.v[i])) {
			free(set.v[i]);
			continue;
		}
		set.v[out++] = set.v[i];
	}
	set.n = out;
done:
	*ret = set;
	set = (struct pf_strv){ 0 };
	r = 0;
out:
	pf_strv_release(&set);
	pf_strv_release(&bl.ignored);
	pf_strv_release(&bl.excepted);
	return r;
}

/* A holder that is a dm device with a multipath uuid. */
static int holder_is_mpath(const struct pf_paths *paths, const char *holder)
{
	_cleanup_free_ char *uuid = NULL;
	int r = pf_sysfs_read_opt_attr(paths, holder, "dm/uuid", ATTR_DM_UUID_MAX, &uuid);

	if (r < 0)
		return r;
	return uuid && !strncmp(uuid, MPATH_UUID_PREFIX, strlen(MPATH_UUID_PREFIX));
}

/*
 * lvm2's dev_is_mpath_component without udev: for SCSI and NVMe devices, a
 * holder of the whole disk is a multipath map; for any device, the part of
 * device/wwid after its "<type>." is in the wwid set. For a partition both
 * look at its disk. lvm2 also requires the holder's /dev node to have the
 * device-mapper major; a dm/ directory in sysfs says the same.
 */
int pf_multipath_is_component(const struct pf_strv *wwids, const struct pf_paths *paths,
			      const struct pf_dev *d)
{
	const char *disk = d->is_partition ? d->parent_kname : d->kname;
	_cleanup_free_ char *wwid = NULL;
	const char *dot;
	int r;

	if (disk && (pf_dev_is_type(d, "sd") || pf_dev_is_nvme(d))) {
		char **holders = d->holders;
		size_t n = d->n_holders;

		if (d->is_partition) {
			r = pf_sysfs_list_holders(paths, disk, &holders, &n);
			if (r == -ENOMEM)
				return r;
			if (r < 0)
				n = 0;
		}
		r = 0;
		for (size_t i = 0; i < n && !r; i++)
			r = holder_is_mpath(paths, holders[i]);
		if (d->is_partition) {
			for (size_t i = 0; i < n; i++)
				free(holders[i]);
			free(holders);
		}
		if (r)
			return r;
	}
	if (!wwids->n)
		return 0;
	r = pf_sysfs_read_opt_attr(paths, d->kname, "device/wwid", ATTR_WWID_MAX, &wwid);
	if (r == 0 && !wwid && d->is_partition)
		r = pf_sysfs_read_opt_attr(paths, d->parent_kname, "device/wwid", ATTR_WWID_MAX,
					   &wwid);
	if (r < 0)
		return r;
	if (!wwid)
		return 0;
	dot = strchr(wwid, '.');
	return dot && pf_strv_contains(wwids, dot + 1);
}
