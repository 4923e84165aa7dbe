/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Orders of indices by a string key: sorted, walked in runs of equal keys, searched. */
#ifndef PF_KEYORDER_H
#define PF_KEYORDER_H

#include <stddef.h>

#include "base/macro.h"

/*
 * Thousands of devices must not each be compared with every other: what needs "the others
 * with my key" sorts their indices once by the key, then by index, so that a run of equal
 * keys keeps the callers' order (scan order).
 */
struct pf_keyorder {
	/* the key of index i; never NULL */
	const char *(*key)(const void *ctx, size_t i);
	const void *ctx;
};

/* Sorts order[0, m) by key, then by index. */
void pf_keyorder_sort(const struct pf_keyorder *k, size_t *order, size_t m) _nonnull_(1);
/* The end of the run of keys equal to order[g]'s in a sorted order: (g, m]. */
size_t pf_keyorder_run_end(const struct pf_keyorder *k, const size_t *order, size_t m, size_t g)
    _nonnull_(1, 2);
/* The first position in a sorted order whose key is not below key: [0, m]. */
size_t pf_keyorder_lower(const struct pf_keyorder *k, const size_t *order, size_t m,
			 const char *key) _nonnull_(1, 4);

#endif
