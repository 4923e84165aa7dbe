/* SPDX-License-Identifier: GPL-2.0-or-later */
/* struct pf_strv: geometric growth, a hard cap, sorting and lookup. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/grow.h"
#include "base/strv.h"

void pf_strv_release(struct pf_strv *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	s->v = NULL;
	s->n = s->cap = 0;
}

int pf_strv_push(struct pf_strv *s, size_t max, const char *str)
{
	char *copy;
	int r;

	if (s->n >= max)
		return -E2BIG;
	r = pf_grow(&s->v, &s->cap, s->n + 1, max);
	if (r < 0)
		return r;
	copy = strdup(str);
	if (!copy)
		return -ENOMEM;
	s->v[s->n++] = copy;
	return 0;
}

int pf_strv_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void pf_strv_sort_unique(struct pf_strv *s)
{
	size_t out = 0;

	if (s->n > 1)
		qsort(s->v, s->n, sizeof(*s->v), pf_strv_cmp);
	for (size_t i = 0; i < s->n; i++) {
		if (out && strcmp(s->v[out - 1], s->v[i]) == 0) {
			free(s->v[i]);
			continue;
		}
		s->v[out++] = s->v[i];
	}
	s->n = out;
}

bool pf_strv_contains(const struct pf_strv *s, const char *str)
{
	return s->n && bsearch(&str, s->v, s->n, sizeof(*s->v), pf_strv_cmp);
}

int pf_strv_read_dir(int fd, size_t cap, struct pf_strv *ret)
{
	struct pf_strv s = { 0 };
	struct dirent *de;
	DIR *dir;
	int r = 0;

	dir = fdopendir(fd);
	if (!dir) {
		r = -errno;
		(void)close(fd);
		return r;
	}
	for (;;) {
		errno = 0;
		de = readdir(dir);
		if (!de) {
			r = -errno;
			break;
		}
		if (de->d_name[0] == '.')
			continue;
		r = pf_strv_push(&s, cap, de->d_name);
		if (r < 0)
			break;
	}
	(void)closedir(dir);
	if (r < 0) {
		pf_strv_release(&s);
		return r;
	}
	if (s.n > 1)
		qsort(s.v, s.n, sizeof(*s.v), pf_strv_cmp);
	*ret = s;
	return 0;
}
