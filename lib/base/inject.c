/* SPDX-License-Identifier: GPL-2.0-or-later */
/* PVSCAN_FAST_INJECT, honoured only when built with PF_FAULT_INJECTION (tests). */
#include "config.h"

#include "base/inject.h"

#ifdef PF_FAULT_INJECTION
#include <fcntl.h>
#include <limits.h>
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

/*
 * ACTION@PATH acts only in the first process (and the first time) to create PATH, so a test
 * can fault one reader of several, or one round of a leader's: shortens *len to the action.
 */
static bool armed(const char *a, size_t *len)
{
	const char *at = memchr(a, '@', *len);
	char path[PATH_MAX];
	size_t plen;
	int fd;

	if (!at)
		return true;
	plen = *len - (size_t)(at + 1 - a);
	*len = (size_t)(at - a);
	if (plen == 0 || plen >= sizeof(path))
		return false;
	memcpy(path, at + 1, plen);
	path[plen] = '\0';
	fd = open(path, O_CREAT | O_EXCL | O_WRONLY | O_CLOEXEC, 0600);
	if (fd < 0)
		return false;
	(void)close(fd);
	return true;
}

/* The first action for step in the spec from "from" on, or NULL; *ret_len its length. */
static const char *find_action(const char *step, const char *from, size_t *ret_len)
{
	size_t steplen = strlen(step);
	const char *spec = from;

	while (spec && *spec) {
		const char *comma = strchr(spec, ',');
		size_t itemlen = comma ? (size_t)(comma - spec) : strlen(spec);
		const char *colon = memchr(spec, ':', itemlen);

		if (colon) {
			size_t namelen = (size_t)(colon - spec);

			if ((namelen == 1 && spec[0] == '*') ||
			    (namelen == steplen && memcmp(spec, step, steplen) == 0)) {
				*ret_len = itemlen - namelen - 1;
				return colon + 1;
			}
		}
		spec = comma ? comma + 1 : NULL;
	}
	return NULL;
}

int pf_inject_fail(const char *step)
{
	const char *spec = getenv("PVSCAN_FAST_INJECT"), *a;
	size_t len = 0;
	char buf[16];
	uint64_t e;

	while ((a = find_action(step, spec, &len))) {
		spec = a + len;
		if (len <= 5 || strncmp(a, "fail=", 5) != 0 || !armed(a, &len) ||
		    len >= sizeof(buf))
			continue;
		memcpy(buf, a + 5, len - 5);
		buf[len - 5] = '\0';
		if (pf_parse_u64(buf, 4095, &e) == 0 && e > 0)
			return -(int)e;
	}
	return 0;
}

void pf_inject(const char *step)
{
	const char *spec = getenv("PVSCAN_FAST_INJECT"), *a;
	size_t len = 0;

	while ((a = find_action(step, spec, &len))) {
		spec = a + len;
		if ((len < 5 || strncmp(a, "fail=", 5) != 0) && armed(a, &len))
			act(a, len);
	}
}
#else
void pf_inject(const char *step _unused_)
{
}

int pf_inject_fail(const char *step _unused_)
{
	return 0;
}
#endif
