/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Fuzz target for lib/format/cfg.c: parse, check the tree's invariants, run every lookup on it. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/cfg.h"
#include "fuzz.h"

/* Invariants are checked in every build, not only with assert() enabled. */
#define CHECK(x)                                                                                   \
	do {                                                                                       \
		if (!(x))                                                                          \
			abort();                                                                   \
	} while (0)

static void check_diag(int r, const struct pf_diag *d, size_t size)
{
	CHECK(r == -EBADMSG || r == -E2BIG || r == -ENOMEM);
	CHECK(d->has_offset && d->offset <= size);
	CHECK(d->line >= 1 && d->col >= 1);
	CHECK(d->msg[0] != '\0' && memchr(d->msg, '\0', sizeof(d->msg)));
}

static void check_value(const struct pf_cfg_node *n)
{
	const struct pf_cfg_value *v = n->value;

	CHECK(v);
	CHECK(n->is_array || !v->next);
	for (; v; v = v->next) {
		if (v->type == PF_CFG_STRING)
			CHECK(v->v.s && strlen(v->v.s) < 16u << 20);
		if (v->type == PF_CFG_EMPTY_ARRAY)
			CHECK(n->is_array && v == n->value && !v->next);
	}
}

/* Recursion is bounded by the parser's depth cap (64), not by the input. */
static size_t walk(const struct pf_cfg_node *first, const struct pf_cfg_node *parent,
		   unsigned depth)
{
	size_t count = 0, nth = 0;

	CHECK(depth <= 64);
	for (const struct pf_cfg_node *n = first; n; n = n->next, nth++) {
		const struct pf_cfg_value *list = NULL;
		const struct pf_cfg_node *found;
		const char *s = NULL;
		int64_t i = 0;
		int r;

		count++;
		CHECK(n->key && n->parent == parent && n->line >= 1 && n->col >= 1);
		CHECK(!strchr(n->key, '/'));
		if (pf_cfg_is_section(n)) {
			CHECK(!n->is_array);
			count += walk(n->child, n, depth + 1);
		} else {
			CHECK(!n->child);
			check_value(n);
			for (const struct pf_cfg_value *v = n->value; v; v = v->next)
				count++;
		}
		/* Lookups are linear in the siblings: sample them to keep runs fast. */
		if (!parent || nth >= 64)
			continue;

		/* The first node with this key under parent is what every getter must see. */
		found = pf_cfg_find(parent->child, n->key);

		CHECK(found && strcmp(found->key, n->key) == 0);
		r = pf_cfg_get_int(parent, n->key, &i);
		CHECK(r == 0 || r == -EINVAL);
		CHECK(r != 0 || (found->value->type == PF_CFG_INT && i == found->value->v.i));
		r = pf_cfg_get_str(parent, n->key, &s);
		CHECK(r == 0 || r == -EINVAL);
		CHECK(r != 0 || s == found->value->v.s);
		r = pf_cfg_get_list(parent, n->key, &list);
		CHECK(r == (pf_cfg_is_section(found) ? -EINVAL : 0));
		CHECK(r != 0 || list == found->value);
	}
	return count;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Tight caps as well, so the limit paths get fuzzed and not just the defaults. */
	static const struct pf_cfg_limits tight = { .max_depth = 3, .max_token = 16,
						    .max_nodes = 20, .max_size = 256 };
	const struct pf_cfg_limits *limits[] = { NULL, &tight };

	for (size_t k = 0; k < sizeof(limits) / sizeof(limits[0]); k++) {
		struct pf_cfg_tree *tree = NULL;
		struct pf_diag d = { 0 };
		int r;

		r = pf_cfg_parse((const char *)data, size, limits[k], &tree, &d);
		if (r < 0) {
			CHECK(!tree);
			check_diag(r, &d, size);
			continue;
		}
		CHECK(walk(pf_cfg_root(tree), NULL, 0) == pf_cfg_node_count(tree));
		(void)pf_cfg_find(pf_cfg_root(tree), "a/b/c");
		(void)pf_cfg_find(pf_cfg_root(tree), "//");
		pf_cfg_free(tree);
	}
	return 0;
}
