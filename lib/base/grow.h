/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Growing an array geometrically up to a hard cap: the one way lib/ makes room for more. */
#ifndef PF_GROW_H
#define PF_GROW_H

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#include "base/macro.h"

/* pf_grow()'s work, typeless: *ret is the (possibly moved) array; set only on success. */
static inline int _must_check_ pf_grow_to(void *p, size_t *cap, size_t need, size_t size,
					  size_t max, void **ret)
{
	size_t n;
	void *np;

	if (need <= *cap) {
		*ret = p;
		return 0;
	}
	if (need > max)
		return -E2BIG;
	n = *cap ? *cap * 2 : 8;
	if (n < need || n < *cap)
		n = need;
	if (n > max)
		n = max;
	np = reallocarray(p, n, size);
	if (!np)
		return -ENOMEM;
	*ret = np;
	*cap = n;
	return 0;
}

/*
 * Make the array *pp of *cap elements hold at least need, doubling from 8, never past max.
 * Returns 0, -E2BIG when need > max, or -ENOMEM; on failure *pp and *cap are unchanged.
 */
#define pf_grow(pp, cap, need, max)                                                                \
	({                                                                                         \
		void *_grown_;                                                                     \
		int _r_ = pf_grow_to(*(pp), (cap), (need), sizeof(**(pp)), (max), &_grown_);      \
		if (_r_ == 0)                                                                      \
			*(pp) = _grown_;                                                           \
		_r_;                                                                               \
	})

#endif /* PF_GROW_H */
