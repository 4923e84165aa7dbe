/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The pieces of a device read so far: what they cover, and a requested range out of them. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "io/extents.h"

static const struct pf_extent *holding(const struct pf_extents *e, uint64_t off)
{
	for (unsigned i = 0; i < e->n; i++)
		if (e->x[i].off <= off && off < e->x[i].off + e->x[i].len)
			return &e->x[i];
	return NULL;
}

uint64_t pf_extents_covered_until(const struct pf_extents *e, uint64_t off, uint64_t end)
{
	const struct pf_extent *x;

	while (off < end && (x = holding(e, off)))
		off = x->off + x->len;
	return off < end ? off : end;
}

uint64_t pf_extents_next(const struct pf_extents *e, uint64_t off)
{
	uint64_t next = UINT64_MAX;

	for (unsigned i = 0; i < e->n; i++)
		if (e->x[i].off > off && e->x[i].off < next)
			next = e->x[i].off;
	return next;
}

int pf_extents_view(const struct pf_extents *e, uint64_t off, uint64_t len, uint64_t max,
		    const uint8_t **ret, uint8_t **ret_tmp, size_t *ret_len)
{
	static const uint8_t empty;
	uint64_t pos = off, end = off + len;
	uint8_t *tmp;

	*ret_tmp = NULL;
	*ret_len = 0;
	if (len == 0) {
		*ret = &empty;
		return 0;
	}
	for (unsigned i = 0; i < e->n; i++) {
		const struct pf_extent *x = &e->x[i];

		if (x->off <= off && end <= x->off + x->len) {
			*ret = x->buf + (off - x->off);
			*ret_len = (size_t)len;
			return 0;
		}
	}
	/* Spread over several reads (text running past the first read): join the pieces. */
	if (len > max)
		return -E2BIG;
	tmp = malloc((size_t)len);
	if (!tmp)
		return -ENOMEM;
	while (pos < end) {
		const struct pf_extent *x = holding(e, pos);
		uint64_t stop;

		if (!x)
			break; /* cannot happen: the caller checked coverage */
		stop = x->off + x->len < end ? x->off + x->len : end;
		memcpy(tmp + (pos - off), x->buf + (pos - x->off), (size_t)(stop - pos));
		pos = stop;
	}
	*ret = *ret_tmp = tmp;
	*ret_len = (size_t)(pos - off);
	return 0;
}
