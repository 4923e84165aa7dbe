/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A small streaming JSON writer: always-valid output, whatever bytes the strings hold. */
#ifndef PF_JSON_H
#define PF_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define PF_JSON_DEPTH_MAX 32

struct pf_json {
	FILE *f;
	unsigned depth;
	bool first[PF_JSON_DEPTH_MAX]; /* no member written yet at this level */
};

/* key is NULL inside arrays and for the top-level value. */
void pf_json_init(struct pf_json *j, FILE *f);
void pf_json_obj_begin(struct pf_json *j, const char *key);
void pf_json_obj_end(struct pf_json *j);
void pf_json_arr_begin(struct pf_json *j, const char *key);
void pf_json_arr_end(struct pf_json *j);
void pf_json_str(struct pf_json *j, const char *key, const char *s); /* NULL writes null */
void pf_json_strn(struct pf_json *j, const char *key, const char *s, size_t len);
void pf_json_u64(struct pf_json *j, const char *key, uint64_t v);
void pf_json_i64(struct pf_json *j, const char *key, int64_t v);
void pf_json_double(struct pf_json *j, const char *key, double v);
void pf_json_bool(struct pf_json *j, const char *key, bool v);
void pf_json_null(struct pf_json *j, const char *key);
/* Ends the document with a newline. */
void pf_json_finish(struct pf_json *j);

#endif /* PF_JSON_H */
