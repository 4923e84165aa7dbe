/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2 2.03.16's dev-cache names without udev: the /dev walk for aliases and its preferred name. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/paths.h"
#include "base/strv.h"
#include "device/devnames.h"

struct walk {
	const struct pf_dev_list *list;
	size_t *order;	    /* indexes into list->devs, sorted by devno */
	struct pf_strv *found; /* per device, parallel to list->devs */
	dev_t root_dev;	    /* filesystem of paths->dev */
	size_t entries;
};

static struct pf_dev *walk_find(const struct walk *w, dev_t rdev)
{
	unsigned ma = major(rdev), mi = minor(rdev);
	size_t lo = 0, hi = w->list->n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct pf_dev *d = &w->list->devs[w->order[mid]];

		if (d->major == ma && d->minor == mi)
			return &w->list->devs[w->order[mid]];
		if (d->major < ma || (d->major == ma && d->minor < mi))
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

static int walk_dir(struct walk *w, const char *dirpath, unsigned depth)
{
	struct pf_strv names = { 0 };
	int fd, r;

	fd = open(dirpath, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return depth ? 0 : -errno; /* an unreadable subdirectory is just skipped */
	/* pf_strv_read_dir consumes its fd; this one stays open for the fstatat() calls */
	r = pf_strv_read_dir(fcntl(fd, F_DUPFD_CLOEXEC, 0),
			     PF_DEVNAMES_WALK_ENTRIES_MAX - w->entries, &names);
	if (r < 0)
		goto out;
	w->entries += names.n;
	for (size_t i = 0; i < names.n; i++) {
		_cleanup_free_ char *path = NULL;
		struct stat st, lst;
		struct pf_dev *d;

		/* stat follows symlinks: dangling ones and loops (ELOOP) just fail */
		if (fstatat(fd, names.v[i], &st, 0) < 0)
			continue;
		if (asprintf(&path, "%s%s%s", dirpath, depth || strcmp(dirpath, "/") ? "/" : "",
			     names.v[i]) < 0) {
			r = -ENOMEM;
			goto out;
		}
		if (S_ISDIR(st.st_mode)) {
			if (fstatat(fd, names.v[i], &lst, AT_SYMLINK_NOFOLLOW) < 0 ||
			    S_ISLNK(lst.st_mode) || st.st_dev != w->root_dev ||
			    depth + 1 > PF_DEVNAMES_WALK_DEPTH_MAX)
				continue;
			r = walk_dir(w, path, depth + 1);
			if (r < 0)
				goto out;
			continue;
		}
		if (!S_ISBLK(st.st_mode))
			continue;
		d = walk_find(w, st.st_rdev);
		if (!d || (d->path && !strcmp(d->path, path)))
			continue;
		r = pf_strv_push(&w->found[d - w->list->devs], PF_DEVNAMES_ALIASES_MAX, path);
		if (r == -ENOMEM)
			goto out;
	}
	r = 0;
out:
	pf_strv_release(&names);
	(void)close(fd);
	return r;
}

static int cmp_order(const void *a, const void *b, void *arg)
{
	const struct pf_dev *devs = arg;

	return pf_dev_cmp_devno(&devs[*(const size_t *)a], &devs[*(const size_t *)b]);
}

int pf_devnames_load_aliases(const struct pf_paths *paths, struct pf_dev_list *list)
{
	_cleanup_free_ char *root = NULL;
	struct walk w = { .list = list };
	struct stat st;
	size_t i;
	int r;

	root = strdup(paths->dev);
	if (!root)
		return -ENOMEM;
	for (i = strlen(root); i > 1 && root[i - 1] == '/'; i--)
		root[i - 1] = '\0';
	if (stat(root, &st) < 0)
		return -errno;
	if (!S_ISDIR(st.st_mode))
		return -ENOTDIR;
	w.root_dev = st.st_dev;
	w.order = calloc(list->n ? list->n : 1, sizeof(*w.order));
	w.found = calloc(list->n ? list->n : 1, sizeof(*w.found));
	if (!w.order || !w.found) {
		r = -ENOMEM;
		goto out;
	}
	for (i = 0; i < list->n; i++)
		w.order[i] = i;
	qsort_r(w.order, list->n, sizeof(*w.order), cmp_order, list->devs);
	r = walk_dir(&w, root, 0);
	if (r < 0)
		goto out;
	for (i = 0; i < list->n; i++) {
		struct pf_dev *d = &list->devs[i];

		for (size_t j = 0; j < d->n_aliases; j++)
			free(d->aliases[j]);
		free(d->aliases);
		d->aliases = w.found[i].v;
		d->n_aliases = w.found[i].n;
		w.found[i].v = NULL;
		w.found[i].n = 0;
	}
out:
	if (w.found)
		for (i = 0; i < list->n; i++)
			pf_strv_release(&w.found[i]);
	free(w.found);
	free(w.order);
	return r;
}

/*
 * lvm2's _builtin_preference: the path *without* sub (at skip) wins.
 * 0: p0 wins, 1: p1 wins, -1: both have it, -2: neither.
 */
static int builtin_pref(const char *p0, const char *p1, size_t skip, const char *sub)
{
	size_t n = strlen(sub);
	bool r0 = !strncmp(p0 + skip, sub, n), r1 = !strncmp(p1 + skip, sub, n);

	if (r0 != r1)
		return r0 ? 1 : 0;
	return r0 ? -1 : -2;
}

static size_t count_slashes(const char *p)
{
	size_t n = 0;

	for (; *p; p++)
		n += *p == '/';
	return n;
}

/* lvm2's _compare_paths: true when it prefers p1 over p0. */
static bool lvm_prefers_second(const char *dev_slash, const char *mapper, const char *p0,
			       const char *p1)
{
	static const char *const subs[] = { "block/", "dm-", "disk/" };
	size_t dl = strlen(dev_slash), n0, n1;
	char *b0 = NULL, *b1 = NULL, *s0, *s1;
	bool res;
	int r;

	if (!strncmp(p0, dev_slash, dl) && !strncmp(p1, dev_slash, dl)) {
		for (size_t i = 0; i < ARRAY_SIZE(subs); i++) {
			r = builtin_pref(p0, p1, dl, subs[i]);
			if (r >= 0)
				return r;
			if (r == -1)
				goto slashes;
		}
		r = builtin_pref(p0, p1, 0, mapper);
		if (r >= 0)
			return r;
	}
slashes:
	n0 = count_slashes(p0);
	n1 = count_slashes(p1);
	if (n0 != n1)
		return n1 < n0;

	/* equal depth: at the first differing component, a symlink beats a plain entry */
	b0 = strdup(p0);
	b1 = strdup(p1);
	if (!b0 || !b1)
		goto ascii;
	s0 = b0 + 1;
	s1 = b1 + 1;
	while (*s0 && *s0 == *s1)
		s0++, s1++;
	while (s0 && s1) {
		struct stat st0, st1;

		s0 = strchr(s0, '/');
		if (s0)
			*s0 = '\0';
		s1 = strchr(s1, '/');
		if (s1)
			*s1 = '\0';
		if (lstat(b0, &st0) < 0) {
			res = true;
			goto out;
		}
		if (lstat(b1, &st1) < 0) {
			res = false;
			goto out;
		}
		if (S_ISLNK(st0.st_mode) != S_ISLNK(st1.st_mode)) {
			res = !S_ISLNK(st0.st_mode);
			goto out;
		}
		if (s0)
			*s0++ = '/';
		if (s1)
			*s1++ = '/';
	}
ascii:
	res = strcmp(p0, p1) >= 0;
out:
	free(b0);
	free(b1);
	return res;
}

/* Walk order of two names below one root: directory by directory, each level sorted bytewise. */
static int cmp_walk(const char *a, const char *b)
{
	for (;;) {
		size_t la = strcspn(a, "/"), lb = strcspn(b, "/");
		int r = memcmp(a, b, la < lb ? la : lb);

		if (r)
			return r;
		if (la != lb)
			return la < lb ? -1 : 1;
		if (!a[la] || !b[lb])
			return a[la] ? 1 : b[lb] ? -1 : 0;
		a += la + 1;
		b += lb + 1;
	}
}

int pf_devnames_lvm_names(const struct pf_paths *paths, const struct pf_dev *d,
			  const char **names, size_t n_names)
{
	_cleanup_free_ char *dev_slash = NULL, *mapper = NULL;
	_cleanup_free_ const char **seq = NULL, **tmp = NULL;
	size_t n = 0, len, first, count;
	bool placed = false;

	if (!d->path)
		return 0;
	if (n_names < 1 + d->n_aliases)
		return -E2BIG;
	len = strlen(paths->dev);
	while (len > 1 && paths->dev[len - 1] == '/')
		len--;
	dev_slash = malloc(len + sizeof("/"));
	mapper = malloc(len + sizeof("/mapper"));
	if (!dev_slash || !mapper)
		return -ENOMEM;
	memcpy(dev_slash, paths->dev, len);
	strcpy(dev_slash + len, "/");
	memcpy(mapper, paths->dev, len);
	strcpy(mapper + len, "/mapper");
	seq = calloc(1 + d->n_aliases, sizeof(*seq));
	if (!seq)
		return -ENOMEM;
	/* the aliases are in walk order; path goes where the walk met it */
	if (strncmp(d->path, dev_slash, strlen(dev_slash)))
		placed = true;
	for (size_t i = 0; i < d->n_aliases; i++) {
		if (!placed && !strncmp(d->aliases[i], dev_slash, strlen(dev_slash)) &&
		    cmp_walk(d->path + strlen(dev_slash), d->aliases[i] + strlen(dev_slash)) < 0) {
			seq[n++] = d->path;
			placed = true;
		}
		seq[n++] = d->aliases[i];
	}
	if (n < 1 + d->n_aliases)
		seq[n++] = d->path;

	/* lvm2's list grows at both ends: tmp[first .. first + count) */
	tmp = calloc(2 * n, sizeof(*tmp));
	if (!tmp)
		return -ENOMEM;
	first = n;
	count = 0;
	for (size_t i = 0; i < n; i++, count++) {
		if (count && lvm_prefers_second(dev_slash, mapper, seq[i], tmp[first]))
			tmp[first + count] = seq[i];
		else
			tmp[--first] = seq[i];
	}
	memcpy(names, tmp + first, count * sizeof(*names));
	return (int)count;
}
