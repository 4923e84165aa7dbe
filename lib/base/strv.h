/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A growable, capped list of owned strings: directory entries, aliases, wwids. */
#ifndef PF_STRV_H
#define PF_STRV_H

#include <stdbool.h>
#include <stddef.h>

#include "base/macro.h"

struct pf_strv {
	char **v;
	size_t n, cap;
};

void pf_strv_release(struct pf_strv *s);
/* Append a copy of str; -E2BIG once the list holds max entries, -ENOMEM. */
int pf_strv_push(struct pf_strv *s, size_t max, const char *str) _nonnull_(1, 3) _must_check_;
/* Bytewise order, duplicates dropped: ready for pf_strv_contains(). */
void pf_strv_sort_unique(struct pf_strv *s) _nonnull_(1);
/* Binary search; the list must be sorted. */
bool pf_strv_contains(const struct pf_strv *s, const char *str) _nonnull_(1, 2);
/* qsort()/bsearch() comparator for arrays of char *. */
int pf_strv_cmp(const void *a, const void *b);

/*
 * The names in an open directory, without those starting with '.', sorted
 * bytewise (as lvm2 sorts its /dev walk: alphasort in the C locale). Takes
 * ownership of fd, also on failure. Returns 0, -E2BIG beyond cap names,
 * -ENOMEM or another -errno from reading the directory.
 */
int pf_strv_read_dir(int fd, size_t cap, struct pf_strv *ret) _nonnull_(3) _must_check_;

#endif /* PF_STRV_H */
