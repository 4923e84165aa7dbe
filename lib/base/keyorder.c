/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Orders of indices by a string key: sorted, walked in runs of equal keys, searched. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "base/keyorder.h"

static int cmp_key(const void *x, const void *y, void *ctx)
{
	const struct pf_keyorder *k = ctx;
	size_t a = *(const size_t *)x, b = *(const size_t *)y;
	int c = strcmp(k->key(k->ctx, a), k->key(k->ctx, b));

	if (c)
		return c;
	return (a > b) - (a < b);
}

void pf_keyorder_sort(const struct pf_keyorder *k, size_t *order, size_t m)
{
	if (m > 1)
		qsort_r(order, m, sizeof(*order), cmp_key, (void *)k);
}

size_t pf_keyorder_run_end(const struct pf_keyorder *k, const size_t *order, size_t m, size_t g)
{
	const char *key = k->key(k->ctx, order[g]);
	size_t e = g + 1;

	while (e < m && strcmp(key, k->key(k->ctx, order[e])) == 0)
		e++;
	return e;
}

size_t pf_keyorder_lower(const struct pf_keyorder *k, const size_t *order, size_t m,
			 const char *key)
{
	size_t lo = 0, hi = m;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (strcmp(k->key(k->ctx, order[mid]), key) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}
