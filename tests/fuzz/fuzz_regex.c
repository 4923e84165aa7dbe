/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target for lib/device/regex.c and lib/device/filter.c. Input: pattern lines, a NUL byte, name
 * lines. The patterns are compiled one by one, as one set, and as filter entries; every
 * name is matched against each. Checks result codes, diagnostics and index ranges.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "device/filter.h"
#include "device/regex.h"
#include "fuzz.h"

#define CHECK(x)                                                                                   \
	do {                                                                                       \
		if (!(x))                                                                          \
			abort();                                                                   \
	} while (0)

/* Enough lines to exercise sets and filters; more only slows the fuzzer down. */
#define LINES_MAX 16U

static size_t split(char *text, char **ret)
{
	size_t n = 0;

	for (char *p = text; n < LINES_MAX;) {
		char *nl = strchr(p, '\n');

		ret[n++] = p;
		if (!nl)
			break;
		*nl = '\0';
		p = nl + 1;
	}
	return n;
}

static void check_error(int r, const struct pf_diag *d)
{
	CHECK(r == -EINVAL || r == -E2BIG || r == -ENOMEM);
	CHECK(r == -ENOMEM || d->msg[0] != '\0');
	CHECK(memchr(d->msg, '\0', sizeof(d->msg)));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = malloc(size + 2), *pats[LINES_MAX], *names[LINES_MAX];
	struct pf_regex *set = NULL;
	struct pf_filter *f = NULL;
	struct pf_diag d;
	size_t np, nn = 0;
	int r;

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	text[size + 1] = '\0';
	np = split(text, pats);
	/* Names start after the NUL that ends the patterns, if there is one. */
	if (strlen(text) < size)
		nn = split(text + strlen(text) + 1, names);

	for (size_t i = 0; i < np; i++) {
		struct pf_regex *one = NULL;

		memset(&d, 0, sizeof(d));
		r = pf_regex_compile(pats[i], strlen(pats[i]), &one, &d);
		if (r < 0) {
			CHECK(!one);
			check_error(r, &d);
			continue;
		}
		for (size_t k = 0; k < nn; k++) {
			int m = pf_regex_match_which(one, names[k]);

			CHECK(m == -1 || m == 0);
			CHECK(m == pf_regex_match_which(one, names[k]));
		}
		pf_regex_free(one);
	}

	memset(&d, 0, sizeof(d));
	r = pf_regex_compile_set((const char *const *)pats, np, &set, &d);
	if (r < 0) {
		CHECK(!set);
		check_error(r, &d);
	} else {
		for (size_t k = 0; k < nn; k++) {
			int m = pf_regex_match_which(set, names[k]);

			CHECK(m >= -1 && m < (int)np);
		}
		pf_regex_free(set);
	}

	memset(&d, 0, sizeof(d));
	r = pf_filter_compile((const char *const *)pats, np, &f, &d);
	if (r < 0) {
		CHECK(!f);
		check_error(r, &d);
	} else {
		size_t which = LINES_MAX;
		enum pf_filter_verdict v;

		v = pf_filter_check(f, (const char *const *)names, nn, &which);
		CHECK(v == PF_FILTER_NO_MATCH || which < nn);
		CHECK(v != PF_FILTER_NO_MATCH || which == LINES_MAX);
		pf_filter_free(f);
	}
	free(text);
	return 0;
}
