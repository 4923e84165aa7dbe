/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvm2's config-text language (VG metadata, lvm.conf): a depth-capped,
 * size-capped parser into an arena-backed tree of sections and settings, with
 * lvm2's lexical quirks (optional commas, leading-0 octal, bare words, two
 * escapes only), and lookups by "a/b/c" path. Pure: text in, tree out.
 */
#ifndef PF_CFG_H
#define PF_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/macro.h"

enum pf_cfg_type {
	PF_CFG_INT,
	PF_CFG_FLOAT,
	PF_CFG_STRING,
	PF_CFG_EMPTY_ARRAY, /* "[]": an array with no elements */
};

/* One scalar; arrays are chains of values through next. */
struct pf_cfg_value {
	enum pf_cfg_type type;
	union {
		int64_t i;
		double f;
		const char *s; /* NUL-terminated, escapes undone, owned by the tree */
	} v;
	struct pf_cfg_value *next;
};

struct pf_cfg_node {
	const char *key;		  /* owned by the tree */
	struct pf_cfg_node *parent;	  /* NULL for top-level nodes */
	struct pf_cfg_node *next;	  /* next sibling, file order */
	struct pf_cfg_node *child;	  /* first child; sections only */
	struct pf_cfg_value *value;	  /* settings only; NULL for sections */
	bool is_array;			  /* value written in [ ] */
	unsigned line, col;		  /* where the key starts, 1-based */
};

struct pf_cfg_limits {
	unsigned max_depth;  /* section nesting */
	size_t max_token;    /* bytes in one token (string, identifier, number) */
	size_t max_nodes;    /* sections + settings + array values */
	size_t max_size;     /* input bytes */
};

/* Defaults sized for the largest metadata lvm2 writes, with a wide margin. */
extern const struct pf_cfg_limits pf_cfg_default_limits;

struct pf_cfg_tree; /* opaque: owns every node, value and string */

/*
 * Parse text[0..len); parsing stops at the first NUL, as lvm2 does for on-disk
 * text. limits may be NULL for the defaults. Returns 0 with *ret; -EBADMSG on a
 * syntax error, -E2BIG when a limit is exceeded, -ENOMEM; reterr then carries
 * the byte offset, line and column and what was wrong.
 */
int pf_cfg_parse(const char *text, size_t len, const struct pf_cfg_limits *limits,
		 struct pf_cfg_tree **ret, struct pf_diag *reterr) _nonnull_(4) _must_check_;
struct pf_cfg_tree *pf_cfg_free(struct pf_cfg_tree *tree);

/* First top-level node (NULL for an empty file). */
const struct pf_cfg_node *pf_cfg_root(const struct pf_cfg_tree *tree) _nonnull_(1);
/* Heap bytes the tree holds (its arena chunks), for memory budgets. */
size_t pf_cfg_tree_bytes(const struct pf_cfg_tree *tree) _nonnull_(1) _pure_;

/* Number of nodes + values created (what max_nodes counts). */
size_t pf_cfg_node_count(const struct pf_cfg_tree *tree) _nonnull_(1);

static inline bool pf_cfg_is_section(const struct pf_cfg_node *n)
{
	return !n->value;
}

/*
 * Find a node by '/'-separated path, starting among `first` and its siblings
 * and descending through sections; the first match at each level wins (as in
 * lvm2). Returns NULL when absent.
 */
const struct pf_cfg_node *pf_cfg_find(const struct pf_cfg_node *first, const char *path)
	_nonnull_(2);

/*
 * Typed getters on a path below section `sec` (its children are searched).
 * Return 0, -ENOENT when absent, -EINVAL when present with another type (or an
 * array where a scalar is wanted). Outputs untouched on failure.
 */
int pf_cfg_get_int(const struct pf_cfg_node *sec, const char *path, int64_t *ret) _nonnull_(2, 3);
int pf_cfg_get_str(const struct pf_cfg_node *sec, const char *path, const char **ret)
	_nonnull_(2, 3);
/* Array (or single scalar) value chain; for "[]" returns a value of type PF_CFG_EMPTY_ARRAY. */
int pf_cfg_get_list(const struct pf_cfg_node *sec, const char *path,
		    const struct pf_cfg_value **ret) _nonnull_(2, 3);

#endif /* PF_CFG_H */
