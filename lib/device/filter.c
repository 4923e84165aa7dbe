/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's regex device filter: entry syntax, one combined regex, the per-device decision. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/blockdev.h"
#include "device/filter.h"
#include "device/regex.h"

struct pf_filter {
	struct pf_regex *re;
	size_t n;
	bool *accept; /* by config index */
	bool uses_symlinks;
};

/* Room for an entry quoted in a message: long entries are cut, the reason never is. */
#define QUOTE_MAX 48

static void quote_entry(const char *e, char *ret, size_t ret_size)
{
	size_t len = strlen(e);

	pf_diag_format_bytes((const uint8_t *)e, len < QUOTE_MAX ? len : QUOTE_MAX, ret, ret_size);
	if (len > QUOTE_MAX && strlen(ret) + 4 < ret_size)
		strcat(ret, "...");
}

static int bad_entry(struct pf_diag *reterr, size_t i, const char *e, const char *why)
{
	char q[4 * QUOTE_MAX + 8];

	quote_entry(e, q, sizeof(q));
	pf_diag_msg(reterr, "[%zu] \"%s\": %s", i, q, why);
	return -EINVAL;
}

/* lvm2 checks only the last byte: the regex may itself contain the delimiter. */
static int split_entry(const char *e, size_t i, bool *ret_accept, const char **ret_re,
		       size_t *ret_len, struct pf_diag *reterr)
{
	size_t len = strlen(e);
	char close;

	if (e[0] != 'a' && e[0] != 'r')
		return bad_entry(reterr, i, e, "must begin with 'a' or 'r'");
	/* compat: lvm2 reads past the end for "a" and before the start for "a|"; refused. */
	if (len < 2)
		return bad_entry(reterr, i, e, "missing delimiter");
	switch (e[1]) {
	case '(':
		close = ')';
		break;
	case '[':
		close = ']';
		break;
	case '{':
		close = '}';
		break;
	default:
		close = e[1];
		break;
	}
	if (len < 3 || e[len - 1] != close)
		return bad_entry(reterr, i, e, "does not end with its closing delimiter");
	*ret_accept = e[0] == 'a';
	*ret_re = e + 2;
	*ret_len = len - 3;
	return 0;
}

static bool entry_uses_symlinks(const char *e)
{
	static const char *const marks[] = { "/dev/disk/", "/dev/mapper/", "lvm-pv-uuid", "dm-uuid",
					     "wwn-" };

	if (e[0] != 'a')
		return false;
	for (size_t k = 0; k < ARRAY_SIZE(marks); k++)
		if (strstr(e, marks[k]))
			return true;
	return false;
}

/* The combined regex failed: blame the first entry that fails alone, if any does. */
static int blame(char *const *res, const char *const *entries, size_t n, int r,
		 struct pf_diag *reterr)
{
	for (size_t i = 0; i < n; i++) {
		struct pf_regex *one = NULL;
		struct pf_diag d;
		int k = pf_regex_compile(res[i], strlen(res[i]), &one, &d);

		pf_regex_free(one);
		if (k == -ENOMEM)
			return k;
		if (k < 0) {
			char why[PF_DIAG_MSG_MAX + 16];

			(void)snprintf(why, sizeof(why), "bad regex: %s", d.msg);
			(void)bad_entry(reterr, i, entries[i], why);
			return k;
		}
	}
	pf_diag_prefix(reterr, "the entries do not combine as lvm2 joins them: ");
	return r;
}

int pf_filter_compile(const char *const *entries, size_t n, struct pf_filter **ret,
		      struct pf_diag *reterr)
{
	struct pf_filter *f = NULL;
	char **res = NULL;
	const char **rev = NULL;
	int r;

	if (n == 0) {
		pf_diag_msg(reterr, "no entries");
		return -EINVAL;
	}
	if (n > PF_FILTER_ENTRIES_MAX) {
		pf_diag_msg(reterr, "more than %u entries", PF_FILTER_ENTRIES_MAX);
		return -E2BIG;
	}
	r = -ENOMEM;
	f = calloc(1, sizeof(*f));
	res = calloc(n, sizeof(*res));
	rev = calloc(n, sizeof(*rev));
	if (!f || !res || !rev)
		goto out;
	f->n = n;
	f->accept = calloc(n, sizeof(*f->accept));
	if (!f->accept)
		goto out;
	for (size_t i = 0; i < n; i++) {
		const char *re = NULL;
		size_t len = 0;

		r = split_entry(entries[i], i, &f->accept[i], &re, &len, reterr);
		if (r < 0)
			goto out;
		r = -ENOMEM;
		res[i] = strndup(re, len);
		if (!res[i])
			goto out;
		f->uses_symlinks |= entry_uses_symlinks(entries[i]);
	}
	/*
	 * lvm2 hands the regexes over last entry first, because its matcher reports the highest
	 * matching index: that makes "the first entry in config order" win.
	 */
	for (size_t i = 0; i < n; i++)
		rev[i] = res[n - 1 - i];
	r = pf_regex_compile_set(rev, n, &f->re, reterr);
	if (r == -EINVAL)
		r = blame(res, entries, n, r, reterr);
	if (r < 0)
		goto out;
	*ret = f;
	f = NULL;
out:
	if (res)
		for (size_t i = 0; i < n; i++)
			free(res[i]);
	free(res);
	free(rev);
	pf_filter_free(f);
	return r;
}

struct pf_filter *pf_filter_free(struct pf_filter *f)
{
	if (!f)
		return NULL;
	pf_regex_free(f->re);
	free(f->accept);
	free(f);
	return NULL;
}

bool pf_filter_uses_symlinks(const struct pf_filter *f)
{
	return f->uses_symlinks;
}

enum pf_filter_verdict pf_filter_check(struct pf_filter *f, const char *const *names, size_t n,
				       size_t *ret_name)
{
	bool rejected = false;
	size_t first_rejected = 0;

	for (size_t i = 0; i < n; i++) {
		int m = pf_regex_match_which(f->re, names[i]);
		size_t entry;

		if (m < 0)
			continue;
		entry = f->n - 1 - (size_t)m;
		if (f->accept[entry]) {
			if (ret_name)
				*ret_name = i;
			return PF_FILTER_ACCEPTED;
		}
		if (!rejected)
			first_rejected = i;
		rejected = true;
	}
	if (!rejected)
		return PF_FILTER_NO_MATCH;
	if (ret_name)
		*ret_name = first_rejected;
	return PF_FILTER_REJECTED;
}

/* lvm2 moves the accepting alias to the head of the list (dev_set_preferred_name()). */
static bool check_and_prefer(struct pf_filter *f, const char **names, size_t n)
{
	size_t which = 0;
	const char *keep;

	switch (pf_filter_check(f, names, n, &which)) {
	case PF_FILTER_REJECTED:
		return false;
	case PF_FILTER_ACCEPTED:
		keep = names[which];
		memmove(names + 1, names, which * sizeof(*names));
		names[0] = keep;
		return true;
	default:
		return true;
	}
}

int pf_filters_check_dev(struct pf_filter *global, struct pf_filter *filter,
			 const struct pf_dev *dev, const char **names, size_t n_names,
			 bool *ret_passes)
{
	size_t n = 1 + (dev->aliases ? dev->n_aliases : 0);
	bool passes;

	if (n > n_names)
		return -E2BIG;
	names[0] = dev->path;
	for (size_t i = 1; i < n; i++)
		names[i] = dev->aliases[i - 1];
	passes = (!global || check_and_prefer(global, names, n)) &&
		 (!filter || check_and_prefer(filter, names, n));
	*ret_passes = passes;
	return 0;
}
