/* SPDX-License-Identifier: GPL-2.0-or-later */
/* JSON output for --dump --json: two-space indentation, every byte of a string escaped safely. */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

#include "json.h"

void pf_json_init(struct pf_json *j, FILE *f)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->first[0] = true;
}

static void indent(struct pf_json *j)
{
	(void)fputc('\n', j->f);
	for (unsigned i = 0; i < j->depth; i++)
		(void)fputs("  ", j->f);
}

static void put_string(FILE *f, const char *s, size_t len)
{
	(void)fputc('"', f);
	for (size_t i = 0; i < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (c == '"' || c == '\\')
			(void)fprintf(f, "\\%c", c);
		else if (c == '\n')
			(void)fputs("\\n", f);
		else if (c == '\t')
			(void)fputs("\\t", f);
		/* Bytes from a disk need not be UTF-8: map them to code points so output stays valid. */
		else if (c < 0x20 || c >= 0x7f)
			(void)fprintf(f, "\\u%04x", c);
		else
			(void)fputc(c, f);
	}
	(void)fputc('"', f);
}

/* Separator, indentation and key for the next member. */
static void member(struct pf_json *j, const char *key)
{
	if (j->depth > 0) {
		if (!j->first[j->depth])
			(void)fputc(',', j->f);
		indent(j);
	}
	j->first[j->depth] = false;
	if (key) {
		put_string(j->f, key, strlen(key));
		(void)fputs(": ", j->f);
	}
}

static void open_level(struct pf_json *j, const char *key, char c)
{
	member(j, key);
	(void)fputc(c, j->f);
	if (j->depth + 1 < PF_JSON_DEPTH_MAX)
		j->depth++;
	j->first[j->depth] = true;
}

static void close_level(struct pf_json *j, char c)
{
	bool empty = j->first[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (!empty)
		indent(j);
	(void)fputc(c, j->f);
}

void pf_json_obj_begin(struct pf_json *j, const char *key)
{
	open_level(j, key, '{');
}

void pf_json_obj_end(struct pf_json *j)
{
	close_level(j, '}');
}

void pf_json_arr_begin(struct pf_json *j, const char *key)
{
	open_level(j, key, '[');
}

void pf_json_arr_end(struct pf_json *j)
{
	close_level(j, ']');
}

void pf_json_strn(struct pf_json *j, const char *key, const char *s, size_t len)
{
	member(j, key);
	put_string(j->f, s, len);
}

void pf_json_str(struct pf_json *j, const char *key, const char *s)
{
	if (!s) {
		pf_json_null(j, key);
		return;
	}
	pf_json_strn(j, key, s, strlen(s));
}

void pf_json_u64(struct pf_json *j, const char *key, uint64_t v)
{
	member(j, key);
	(void)fprintf(j->f, "%" PRIu64, v);
}

void pf_json_i64(struct pf_json *j, const char *key, int64_t v)
{
	member(j, key);
	(void)fprintf(j->f, "%" PRId64, v);
}

void pf_json_double(struct pf_json *j, const char *key, double v)
{
	member(j, key);
	if (isfinite(v))
		(void)fprintf(j->f, "%.17g", v);
	else
		(void)fputs("null", j->f);
}

void pf_json_bool(struct pf_json *j, const char *key, bool v)
{
	member(j, key);
	(void)fputs(v ? "true" : "false", j->f);
}

void pf_json_null(struct pf_json *j, const char *key)
{
	member(j, key);
	(void)fputs("null", j->f);
}

void pf_json_finish(struct pf_json *j)
{
	(void)fputc('\n', j->f);
}
