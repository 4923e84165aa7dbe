/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PVSCAN_FAST_INJECT, honoured only when built with PF_FAULT_INJECTION (tests). */
#include "config.h"

#include "base/inject.h"

#ifdef PF_FAULT_INJECTION
#include <signal.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/strutil.h"

/* A longer sleep is a typo, not a race to force. */
#define INJECT_MS_MAX 60000U

static uint64_t random_below(uint64_t max)
{
	struct timespec now;
	unsigned seed;

	(void)clock_gettime(CLOCK_MONOTONIC, &now);
	seed = (unsigned)getpid() * 2654435761U ^ (unsigned)now.tv_nsec;
	return max ? (uint64_t)rand_r(&seed) % (max + 1U) : 0;
}

static void act(const char *action, size_t len)
{
	char buf[32];
	uint64_t ms;

	if (len >= sizeof(buf))
		return;
	memcpy(buf, action, len);
	buf[len] = '\0';
	if (strcmp(buf, "crash") == 0) {
		(void)raise(SIGKILL);
		return;
	}
	if (strcmp(buf, "term") == 0) {
		(void)raise(SIGTERM);
		return;
	}
	if (strncmp(buf, "delay=", 6) == 0 || strncmp(buf, "rand=", 5) == 0) {
		bool rnd = buf[0] == 'r';

		if (pf_parse_u64(buf + (rnd ? 5 : 6), INJECT_MS_MAX, &ms) < 0)
			return;
		pf_sleep_ms((unsigned)(rnd ? random_below(ms) : ms));
	}
}

void pf_inject(const char *step)
{
	const char *spec = getenv("PVSCAN_FAST_INJECT");
	size_t steplen = strlen(step);

	while (spec && *spec) {
		const char *comma = strchr(spec, ',');
		const char *colon = memchr(spec, ':', comma ? (size_t)(comma - spec) : strlen(spec));
		size_t itemlen = comma ? (size_t)(comma - spec) : strlen(spec);

		if (colon) {
			size_t namelen = (size_t)(colon - spec);

			if ((namelen == 1 && spec[0] == '*') ||
			    (namelen == steplen && memcmp(spec, step, steplen) == 0))
				act(colon + 1, itemlen - namelen - 1);
		}
		spec = comma ? comma + 1 : NULL;
	}
}
#else
void pf_inject(const char *step _unused_)
{
}
#endif
