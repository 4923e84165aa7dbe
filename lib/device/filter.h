/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvm.conf's devices/global_filter and devices/filter: compiling an "a|re|" / "r|re|" array
 * and deciding for one device, from all of its names, exactly as lvm2 2.03.16's regex
 * filter does. Pure: strings in, verdicts out.
 */
#ifndef PF_FILTER_H
#define PF_FILTER_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/macro.h"

struct pf_dev;

/* Entries beyond this are refused (-E2BIG); the combined regex has its own caps. */
#define PF_FILTER_ENTRIES_MAX 1024U

enum pf_filter_verdict {
	PF_FILTER_NO_MATCH, /* no entry matched any name: the device passes */
	PF_FILTER_ACCEPTED, /* an "a" entry was the first to match one of the names */
	PF_FILTER_REJECTED, /* no name accepted, and an "r" entry was first for some name */
};

struct pf_filter; /* opaque */

/*
 * Compile entries[0..n) (config order). Each is 'a' or 'r', a delimiter ('(' '[' '{' close
 * with ')' ']' '}', any other byte with itself), the regex, and the closing delimiter as
 * the last byte. Returns 0, -EINVAL for a bad entry or regex (reterr: "[i] \"entry\": why",
 * i counted from 0), -E2BIG over a cap, -ENOMEM.
 */
int pf_filter_compile(const char *const *entries, size_t n, struct pf_filter **ret,
		      struct pf_diag *reterr) _nonnull_(3) _must_check_;
struct pf_filter *pf_filter_free(struct pf_filter *f);

/*
 * Decide for one device known by names[0..n) in lvm2's alias order: per name the first
 * matching entry counts; an accept on any name accepts at once, else any reject rejects.
 * *ret_name (may be NULL) gets the index of the name that accepted, or of the first name
 * that was rejected; untouched on PF_FILTER_NO_MATCH.
 */
enum pf_filter_verdict pf_filter_check(struct pf_filter *f, const char *const *names, size_t n,
				       size_t *ret_name) _nonnull_(1);

static inline bool pf_filter_verdict_passes(enum pf_filter_verdict v)
{
	return v != PF_FILTER_REJECTED;
}

/*
 * Whether an accept entry names a symlink (/dev/disk/, /dev/mapper/, lvm-pv-uuid, dm-uuid,
 * wwn-): lvm2 2.03.16's event pvscan then scans all of /dev for aliases first.
 */
bool pf_filter_uses_symlinks(const struct pf_filter *f) _nonnull_(1) _pure_;

/*
 * global_filter, then filter (either may be NULL: not configured), on dev's path and
 * aliases. Returns whether the device passes both. names[0..n_names) must hold room for
 * 1 + dev->n_aliases pointers: it receives the names in the order lvm2 ends up with, since
 * an accept by a name other than the first makes that name lvm2's preferred one (names[0],
 * which lvm2 then prints and records). Returns -E2BIG if names is too small, else 0 with
 * *ret_passes set.
 */
int pf_filters_check_dev(struct pf_filter *global, struct pf_filter *filter,
			 const struct pf_dev *dev, const char **names, size_t n_names,
			 bool *ret_passes) _nonnull_(3, 4, 6) _must_check_;

#endif /* PF_FILTER_H */
