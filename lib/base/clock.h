/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The monotonic clock in nanoseconds, the unit constants for converting to it, short sleeps. */
#ifndef PF_CLOCK_H
#define PF_CLOCK_H

#include <errno.h>
#include <stdint.h>
#include <time.h>

#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MSEC 1000000ULL

/* CLOCK_MONOTONIC now: for deadlines and timeouts, never for dates. */
static inline uint64_t pf_now_ns(void)
{
	struct timespec ts;

	(void)clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* ns nanoseconds as a struct timespec (a timeout, or a time on the monotonic clock). */
static inline struct timespec pf_timespec_from_ns(uint64_t ns)
{
	return (struct timespec){ .tv_sec = (time_t)(ns / NSEC_PER_SEC),
				  .tv_nsec = (long)(ns % NSEC_PER_SEC) };
}

/* Sleep ms milliseconds (a poll interval): a signal does not cut it short. */
static inline void pf_sleep_ms(unsigned ms)
{
	struct timespec ts = { .tv_sec = (time_t)(ms / 1000U), .tv_nsec = (long)(ms % 1000U) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

#endif /* PF_CLOCK_H */
