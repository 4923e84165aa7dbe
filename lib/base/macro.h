/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Compiler attributes and small helpers shared by every file; no pvscan-fast knowledge. */
#ifndef PF_MACRO_H
#define PF_MACRO_H

#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>

#define _nonnull_(...) __attribute__((nonnull(__VA_ARGS__)))
#define _must_check_ __attribute__((warn_unused_result))
#define _printf_(a, b) __attribute__((format(printf, a, b)))
#define _unused_ __attribute__((unused))
#define _pure_ __attribute__((pure))

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
/* The struct of type whose member is at ptr: an implementation found from its interface. */
#define container_of(ptr, type, member) ((type *)(void *)((char *)(ptr) - offsetof(type, member)))
/* Largest errno: a negative value returned with byte counts is an error only down to -ERRNO_MAX. */
#define ERRNO_MAX 4095

static inline void pf_freep(void *p)
{
	free(*(void **)p);
}

static inline void pf_closep(int *fd)
{
	if (*fd >= 0)
		(void)close(*fd);
}

/* Locals that must be released on every return; initialise them (= NULL / = -1). */
#define _cleanup_free_ __attribute__((cleanup(pf_freep)))
#define _cleanup_close_ __attribute__((cleanup(pf_closep)))

/* Hand a _cleanup_ local to someone else: the cleanup then sees NULL / -1. */
#define TAKE_PTR(p)                                                                                \
	({                                                                                         \
		__typeof__(p) _p_ = (p);                                                           \
		(p) = NULL;                                                                        \
		_p_;                                                                               \
	})
#define TAKE_FD(fd)                                                                                \
	({                                                                                         \
		int _fd_ = (fd);                                                                   \
		(fd) = -1;                                                                         \
		_fd_;                                                                              \
	})

#endif /* PF_MACRO_H */
