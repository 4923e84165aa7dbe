/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the record log as --status reads it (root reads what a process that may have
 * died mid-write left): every line through pf_records_next(), each decoded record checked
 * against the format's promises and encoded again (it must decode to the same record unless a
 * value had to be cut), then the whole input folded into a status and judged.
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "state/records.h"
#include "state/status.h"

static void check_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > PF_RECORDS_KEY_MAX)
		abort();
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_' ||
		      s[i] == '-'))
			abort();
}

/* Encode e again and decode it: the same record, unless the line had to be cut. */
static void check_roundtrip(const struct pf_records_entry *e, struct pf_records_entry *again)
{
	const char *kv[2 * PF_RECORDS_FIELDS_MAX];
	char line[PF_RECORDS_LINE_MAX];
	bool cut = false;
	int n;

	for (size_t i = 0; i < e->n_fields; i++) {
		kv[2 * i] = e->fields[i].key;
		kv[2 * i + 1] = e->fields[i].value;
	}
	n = pf_records_encode(line, e->t_us, e->pid, e->kind, kv, e->n_fields);
	if (n <= 0 || (size_t)n >= PF_RECORDS_LINE_MAX || line[n - 1] != '\n')
		abort();
	line[n - 1] = '\0';
	if (pf_records_decode(pf_span_make(line, (size_t)n - 1), again) != 0)
		abort();
	if (again->t_us != e->t_us || again->pid != e->pid || strcmp(again->kind, e->kind) != 0 ||
	    again->n_fields > e->n_fields)
		abort();
	for (size_t i = 0; i < again->n_fields; i++) {
		if (strcmp(again->fields[i].key, e->fields[i].key) != 0)
			abort();
		if (strcmp(again->fields[i].value, e->fields[i].value) != 0)
			cut = true;
	}
	if (!cut && again->n_fields != e->n_fields && (size_t)n < PF_RECORDS_LINE_MAX - 600)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct pf_span s = pf_span_make(data, size);
	struct pf_records_entry *e = calloc(2, sizeof(*e));
	struct pf_status st;
	size_t off = 0, prev = 0;
	int r;

	if (!e)
		return 0;
	while ((r = pf_records_next(s, &off, e)) >= 0) {
		if (off <= prev || off > size)
			abort(); /* always moves on, never past the end */
		prev = off;
		if (r == 0)
			continue;
		check_name(e->kind);
		if (e->n_fields > PF_RECORDS_FIELDS_MAX)
			abort();
		for (size_t i = 0; i < e->n_fields; i++) {
			check_name(e->fields[i].key);
			if (strlen(e->fields[i].value) > PF_RECORDS_VALUE_MAX)
				abort();
		}
		check_roundtrip(&e[0], &e[1]);
	}
	pf_status_init(&st);
	if (pf_status_add_log(&st, s) == 0) {
		if (st.n_records + st.n_bad == 0 && size && memchr(data, '\n', size))
			abort();
		if (pf_status_set_dm(&st, false, NULL, NULL, 0) != 0)
			abort();
		pf_status_judge(&st);
	}
	pf_status_release(&st);
	free(e);
	return 0;
}
