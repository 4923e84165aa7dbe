/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The I/O backend (backend.h) over the kernel's native aio, through libaio. */
#ifndef PF_LIBAIO_H
#define PF_LIBAIO_H

#include "base/macro.h"

struct pf_io_backend;

/*
 * A libaio backend for up to depth reads in flight (at most PF_AIO_DEPTH_LIMIT,
 * capped by the room left under <proc_dir>/sys/fs/aio-max-nr, halved while
 * io_setup() says EAGAIN;
 * ret->depth says what was granted). Returns 0, or a negative errno (-ENOSYS
 * when the kernel has no aio: read synchronously instead). Tearing a context
 * down (destroy, or process exit) waits for RCU grace periods: about 30 ms
 * on the machine this was written on, whatever the number of devices, so
 * for one or two devices a plain pread (pvread.h) finishes sooner.
 */
int pf_libaio_backend_new(unsigned depth, const char *proc_dir, struct pf_io_backend **ret)
	_nonnull_(3) _must_check_;

#endif /* PF_LIBAIO_H */
