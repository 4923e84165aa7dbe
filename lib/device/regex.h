/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvm2's device-filter regex dialect (libdm's dm_regex), quirks included: the same parse of
 * the same combined text, the same rewrites, the same answers. Matching simulates an NFA, so
 * it takes O(pattern size * string length) whatever the pattern. Pure: no I/O, no globals.
 */
#ifndef PF_REGEX_H
#define PF_REGEX_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/macro.h"

/*
 * Caps, all reported as -E2BIG: bytes of the combined text (each pattern costs its length
 * plus 8), nesting of '(' in it, tree nodes, and the steps lvm2's rewriting pass may take.
 */
#define PF_REGEX_TEXT_MAX  ((size_t)64 << 10)
#define PF_REGEX_DEPTH_MAX 256U
#define PF_REGEX_NODES_MAX ((size_t)1 << 19)
#define PF_REGEX_WORK_MAX  ((unsigned long)40000000)

struct pf_regex; /* opaque */

/*
 * Compile patterns[0..n) as lvm2's dm_regex_create() does: one combined expression in which
 * pattern i is "(.*(P)<mark i>)". Returns 0 with *ret; -EINVAL when lvm2 refuses the text
 * (or would match with undefined behaviour: a class that swallows another pattern's end);
 * -E2BIG over a cap; -ENOMEM. reterr says why, with the offset in the combined text.
 */
int pf_regex_compile_set(const char *const *patterns, size_t n, struct pf_regex **ret,
			 struct pf_diag *reterr) _nonnull_(1, 3) _must_check_;

/* One pattern of len bytes (no NUL inside: -EINVAL); reterr offsets are into the pattern. */
int pf_regex_compile(const char *pattern, size_t len, struct pf_regex **ret, struct pf_diag *reterr)
	_nonnull_(1, 3) _must_check_;

struct pf_regex *pf_regex_free(struct pf_regex *re);

/*
 * Match str against every pattern, as dm_regex_match() does: a pattern matches when it
 * matches some substring of str, where '^' and '$' are the string's two ends. Returns the
 * highest index of the patterns that match, or -1. Uses scratch space inside re, so one
 * regex must not be matched from two threads at once.
 */
int pf_regex_match_which(struct pf_regex *re, const char *str) _nonnull_(1, 2);

static inline bool pf_regex_match(struct pf_regex *re, const char *str)
{
	return pf_regex_match_which(re, str) >= 0;
}

/* Number of NFA states (what a match step walks), for tests. */
size_t pf_regex_state_count(const struct pf_regex *re) _nonnull_(1);

#endif /* PF_REGEX_H */
