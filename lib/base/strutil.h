/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Decimal numbers in text we read (sysfs, /proc, our own file names, options, lvm2's files), and
 * strings from disk made safe for a terminal.
 */
#ifndef PF_STRUTIL_H
#define PF_STRUTIL_H

#include <stddef.h>
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

/*
 * in for a terminal: a crafted PV's strings (system ID, lock type, names) must not send escape
 * sequences to an admin's screen. Bytes below 0x20 and 0x7f become \xNN, a backslash \\ (so
 * that what is shown can be told apart); every other byte, UTF-8 included, is kept, so that
 * ordinary strings print exactly as lvm2 prints them. Writes at most size bytes, NUL-terminated,
 * truncated between escapes; 4 * strlen(in) + 1 always fits. Returns out.
 */
char *pf_str_escape(const char *in, char *out, size_t size) _nonnull_(1, 2);

#endif /* PF_STRUTIL_H */
