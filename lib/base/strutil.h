/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Decimal numbers in text we read (sysfs, /proc, our own file names, options, lvm2's files). */
#ifndef PF_STRUTIL_H
#define PF_STRUTIL_H

#include <stdint.h>

#include "base/macro.h"

/*
 * Take the decimal digits at *s (at least one; no sign, no space) as a number of at most max
 * and move *s past them. Returns 0, or -EBADMSG (no digit, or above max) with *s and *ret
 * untouched.
 */
int pf_scan_u64(const char **s, uint64_t max, uint64_t *ret) _nonnull_(1, 3) _must_check_;

/* The whole of s as a decimal number of at most max: digits only. 0 or -EBADMSG. */
int pf_parse_u64(const char *s, uint64_t max, uint64_t *ret) _nonnull_(1, 3) _must_check_;

/*
 * C's atoi() as lvm2 calls it on its own files and sysfs: leading space, a sign, then digits;
 * 0 when there are none. Unlike atoi(), a value beyond int saturates instead of being undefined.
 */
int pf_atoi(const char *s) _nonnull_(1) _pure_;

#endif /* PF_STRUTIL_H */
