/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Synchronous reading of one device or image file through a probe (pread, no caching). */
#ifndef PF_PVREAD_H
#define PF_PVREAD_H

#include <stdint.h>

#include "base/macro.h"
#include "format/probe.h"

/*
 * Open a block device or a regular file (an image) read-only and find its
 * size. Returns 0 with *ret_fd and *ret_size_bytes, or a negative errno.
 */
int pf_pvread_open(const char *path, int *ret_fd, uint64_t *ret_size_bytes)
	_nonnull_(1, 2, 3) _must_check_;

/*
 * Run a probe to completion on fd with plain pread: each range it asks for is
 * read once. Read errors are recorded in the probe; returns 0 or -ENOMEM.
 */
int pf_pvread_probe(int fd, struct pf_probe *p) _nonnull_(2) _must_check_;

#endif /* PF_PVREAD_H */
