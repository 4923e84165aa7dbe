/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's filter regex: its parser and rewrites, run on its combined text, then a Thompson NFA. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "device/regex.h"

/*
 * lvm2 matches "^" and "$" as two bytes that no device name contains, fed before and after
 * the string; '.' and "[^...]" include them, so "a." matches a name ending in "a". Every
 * pattern ends in a zero byte: a state about to read it means that pattern has matched.
 */
#define HAT_CHAR    0x02
#define DOLLAR_CHAR 0x03
#define MARK_CHAR   0x00

/* What lvm2 wraps each pattern in; the mark byte goes between the two halves. */
#define WRAP_HEAD      "(.*("
#define WRAP_HEAD_LEN  4
#define WRAP_EXTRA_LEN 8 /* head, ")", mark, ")" and the '|' before the next pattern */

#define TOK_CHARSET 0
#define TOK_END	    (-1)

#define NONE (-1)

enum node_type { N_CAT, N_STAR, N_PLUS, N_OR, N_QUEST, N_CHARSET };

struct cset {
	uint64_t w[4];
};

struct node {
	uint8_t type;
	int32_t left, right;
	uint32_t cs; /* N_CHARSET: index into csets */
};

/* Growable array of int32_t, capped: used for term lists and the rewrite walks. */
struct ivec {
	int32_t *v;
	size_t n, alloc;
};

struct builder {
	const unsigned char *text;
	size_t len, pos; /* pos: where the next token starts */
	int type;	 /* current token: TOK_CHARSET, TOK_END or the operator character */
	struct cset cur; /* the current token's characters */
	struct node *nodes;
	size_t n_nodes, nodes_alloc;
	struct cset *csets;
	size_t n_csets, csets_alloc;
	struct ivec terms; /* items of the cat/or lists being built, innermost on top */
	struct ivec walk;  /* explicit stack of the rewrite pass and of the tree comparison */
	unsigned depth;
	unsigned long work;
	int err;	 /* first hard failure (-ENOMEM, -E2BIG, -EINVAL); stops everything */
	const char *why; /* first soft error lvm2 would log; it may still recover */
	size_t why_pos;
};

enum state_kind { S_CHAR, S_SPLIT };

struct nfa_state {
	uint8_t kind;
	int32_t out, out1; /* next states; out1 for S_SPLIT only; NONE: dead end */
	uint32_t cs;	   /* S_CHAR: index into pf_regex.csets */
	uint32_t final;	   /* S_CHAR: 1 + pattern index when this is a pattern's mark, else 0 */
};

struct pf_regex {
	size_t n_states;
	struct nfa_state *states;
	struct cset *csets;
	int32_t start;
	/* matching scratch */
	int32_t *clist, *nlist, *stack;
	uint32_t *mark;
	uint32_t gen;
};

static inline void cs_set(struct cset *c, unsigned b)
{
	c->w[b >> 6] |= (uint64_t)1 << (b & 63);
}

static inline void cs_clear(struct cset *c, unsigned b)
{
	c->w[b >> 6] &= ~((uint64_t)1 << (b & 63));
}

static inline bool cs_has(const struct cset *c, unsigned b)
{
	return c->w[b >> 6] >> (b & 63) & 1;
}

static void cs_fill(struct cset *c, bool all)
{
	memset(c->w, all ? 0xff : 0, sizeof(c->w));
}

static bool cs_equal(const struct cset *a, const struct cset *b)
{
	return memcmp(a->w, b->w, sizeof(a->w)) == 0;
}

static bool cs_is_mark(const struct cset *c)
{
	struct cset m;

	cs_fill(&m, false);
	cs_set(&m, MARK_CHAR);
	return cs_equal(c, &m);
}

static void fail(struct builder *b, int r)
{
	if (!b->err)
		b->err = r;
}

static void soft_error(struct builder *b, const char *why)
{
	if (!b->why) {
		b->why = why;
		b->why_pos = b->pos;
	}
}

static bool ivec_push(struct builder *b, struct ivec *v, int32_t x)
{
	int r = pf_grow(&v->v, &v->alloc, v->n + 1, 2 * PF_REGEX_NODES_MAX);

	if (r < 0) {
		fail(b, r);
		return false;
	}
	v->v[v->n++] = x;
	return true;
}

/* Rewriting can be slow for hostile patterns; it is bounded, never cut short silently. */
static bool spend(struct builder *b, unsigned long units)
{
	b->work += units;
	if (b->work <= PF_REGEX_WORK_MAX)
		return true;
	fail(b, -E2BIG);
	return false;
}

static int32_t new_node(struct builder *b, enum node_type type, int32_t l, int32_t r)
{
	int e = pf_grow(&b->nodes, &b->nodes_alloc, b->n_nodes + 1, PF_REGEX_NODES_MAX);

	if (e < 0) {
		fail(b, e);
		return NONE;
	}
	b->nodes[b->n_nodes] = (struct node){ .type = (uint8_t)type, .left = l, .right = r };
	return (int32_t)b->n_nodes++;
}

static int32_t new_charset(struct builder *b, const struct cset *c)
{
	int32_t n;
	int e;

	e = pf_grow(&b->csets, &b->csets_alloc, b->n_csets + 1, PF_REGEX_NODES_MAX);
	if (e < 0) {
		fail(b, e);
		return NONE;
	}
	n = new_node(b, N_CHARSET, NONE, NONE);
	if (n == NONE)
		return NONE;
	b->csets[b->n_csets] = *c;
	b->nodes[n].cs = (uint32_t)b->n_csets++;
	return n;
}

/* lvm2 reads one byte past a class that runs to the end; its buffer holds a NUL there. */
static unsigned char at(const struct builder *b, size_t p)
{
	return p < b->len ? b->text[p] : 0;
}

static unsigned char unescape(unsigned char c)
{
	switch (c) {
	case 'n':
		return '\n';
	case 'r':
		return '\r';
	case 't':
		return '\t';
	default:
		return c;
	}
}

static void single_char(struct builder *b, unsigned c, size_t p)
{
	b->type = TOK_CHARSET;
	b->pos = p + 1;
	cs_fill(&b->cur, false);
	cs_set(&b->cur, c);
}

/*
 * "[...]": ranges may be reversed; '-' is literal first or right after "[^"; '\' escapes
 * (n, r, t, or the byte itself) but not a range's end; "[^" never includes the mark byte.
 * compat: lvm2 uses signed chars here, so bytes >= 0x80 and ranges ending at 0x7f are
 * undefined or hang there; this takes every byte as unsigned.
 */
static void lex_class(struct builder *b, size_t p)
{
	unsigned lc = 0, c;
	bool neg = false;

	p++;
	if (at(b, p) == '^') {
		cs_fill(&b->cur, true);
		cs_clear(&b->cur, MARK_CHAR);
		neg = true;
		p++;
	} else {
		cs_fill(&b->cur, false);
	}
	while (p < b->len && b->text[p] != ']') {
		bool range = false;

		if (b->text[p] == '\\') {
			p++;
			c = unescape(at(b, p));
		} else if (b->text[p] == '-' && lc) {
			range = true;
			p++;
			if (p == b->len) {
				/* lvm2 leaves its token state stale here and recurses forever. */
				soft_error(b, "incomplete range in '[...]'");
				fail(b, -EINVAL);
				b->type = TOK_END;
				return;
			}
			c = b->text[p];
		} else {
			c = b->text[p];
		}
		if (range) {
			unsigned lo = lc < c ? lc : c, hi = lc < c ? c : lc;

			for (unsigned x = lo; x <= hi; x++) {
				if (neg)
					cs_clear(&b->cur, x);
				else
					cs_set(&b->cur, x);
			}
			c = hi;
		} else if (neg) {
			cs_clear(&b->cur, c);
		} else {
			cs_set(&b->cur, c);
		}
		p++;
		lc = c;
	}
	if (p >= b->len) {
		/* As in lvm2, the position stays put: the parser treats this as the end. */
		soft_error(b, "unterminated '['");
		b->type = TOK_END;
		return;
	}
	b->type = TOK_CHARSET;
	b->pos = p + 1;
}

static void get_token(struct builder *b)
{
	size_t p = b->pos;
	unsigned char c;

	if (p >= b->len) {
		b->type = TOK_END;
		return;
	}
	c = b->text[p];
	switch (c) {
	case '[':
		lex_class(b, p);
		break;
	case '(':
	case ')':
	case '*':
	case '+':
	case '?':
	case '|':
		b->type = c;
		b->pos = p + 1;
		break;
	case '^':
		single_char(b, HAT_CHAR, p);
		break;
	case '$':
		single_char(b, DOLLAR_CHAR, p);
		break;
	case '.':
		b->type = TOK_CHARSET;
		b->pos = p + 1;
		cs_fill(&b->cur, true);
		cs_clear(&b->cur, '\n');
		cs_clear(&b->cur, '\r');
		cs_clear(&b->cur, MARK_CHAR);
		break;
	case '\\':
		if (p + 1 >= b->len) {
			soft_error(b, "'\\' at the end");
			b->type = TOK_END;
			break;
		}
		single_char(b, unescape(b->text[p + 1]), p + 1);
		break;
	default:
		single_char(b, c, p);
		break;
	}
}

/*
 * The grammar and its error paths are lvm2's, including where it gives up silently: a term
 * that fails after the first one ends the concatenation (the tokens it consumed are lost),
 * and nothing checks that the whole text was used. Recursion is only per '(' level.
 */
static int32_t or_term(struct builder *b);

static int32_t term(struct builder *b)
{
	int32_t n;

	switch (b->type) {
	case TOK_CHARSET:
		n = new_charset(b, &b->cur);
		if (n == NONE)
			return NONE;
		get_token(b);
		return n;
	case '(':
		if (b->depth >= PF_REGEX_DEPTH_MAX) {
			soft_error(b, "'(' nested too deep");
			fail(b, -E2BIG);
			return NONE;
		}
		get_token(b);
		b->depth++;
		n = or_term(b);
		b->depth--;
		if (b->err)
			return NONE;
		if (b->type != ')') {
			soft_error(b, "missing ')'");
			return NONE;
		}
		get_token(b);
		return n; /* NONE for "()", with the ')' consumed */
	default:
		return NONE;
	}
}

static int32_t closure_term(struct builder *b)
{
	int32_t l = term(b);

	while (l != NONE) {
		enum node_type t;

		switch (b->type) {
		case '*':
			t = N_STAR;
			break;
		case '+':
			t = N_PLUS;
			break;
		case '?':
			t = N_QUEST;
			break;
		default:
			return l;
		}
		l = new_node(b, t, l, NONE);
		get_token(b);
	}
	return NONE;
}

/* Join terms.v[base..] right-deep with type, as lvm2's right recursion builds them. */
static int32_t join_terms(struct builder *b, size_t base, enum node_type type)
{
	int32_t r = b->terms.v[b->terms.n - 1];

	for (size_t i = b->terms.n - 1; i > base && r != NONE; i--)
		r = new_node(b, type, b->terms.v[i - 1], r);
	b->terms.n = base;
	return r;
}

static int32_t cat_term(struct builder *b)
{
	size_t base = b->terms.n;
	int32_t l = closure_term(b);

	if (l == NONE || !ivec_push(b, &b->terms, l))
		return NONE;
	while (b->type != '|') {
		l = closure_term(b);
		if (b->err)
			return NONE;
		if (l == NONE)
			break;
		if (!ivec_push(b, &b->terms, l))
			return NONE;
	}
	return join_terms(b, base, N_CAT);
}

static int32_t or_term(struct builder *b)
{
	size_t base = b->terms.n;
	int32_t l = cat_term(b);

	if (l == NONE || !ivec_push(b, &b->terms, l))
		return NONE;
	while (b->type == '|') {
		get_token(b);
		l = cat_term(b);
		if (l == NONE) {
			soft_error(b, "badly formed '|' expression");
			b->terms.n = base;
			return NONE;
		}
		if (!ivec_push(b, &b->terms, l))
			return NONE;
	}
	return join_terms(b, base, N_OR);
}

/*
 * lvm2 then rewrites "(f a)|(f b)" as "f (a|b)" (and the mirror image for common suffixes),
 * repeating until nothing changes. Its walk to the common prefix also passes through '*',
 * '+' and '?', so "(fa)*|fb" becomes "f(a*|b)": not the same language, but what lvm2
 * matches, so it is reproduced step for step. "Leftmost" walks left children, else right.
 */
static inline int32_t side_a(const struct builder *b, int32_t n, bool lm)
{
	return lm ? b->nodes[n].left : b->nodes[n].right;
}

static inline int32_t side_b(const struct builder *b, int32_t n, bool lm)
{
	return lm ? b->nodes[n].right : b->nodes[n].left;
}

static unsigned spine_depth(struct builder *b, int32_t r, bool lm)
{
	unsigned count = 1;

	while (b->nodes[r].type != N_CHARSET && side_a(b, r, lm) != NONE &&
	       (lm || b->nodes[r].type != N_OR)) {
		count++;
		r = side_a(b, r, lm);
		if (!spend(b, 1))
			break;
	}
	return count;
}

static bool nodes_equal(struct builder *b, int32_t l, int32_t r)
{
	size_t base = b->walk.n;

	if (!ivec_push(b, &b->walk, l) || !ivec_push(b, &b->walk, r))
		return false;
	while (b->walk.n > base) {
		const struct node *x, *y;

		r = b->walk.v[--b->walk.n];
		l = b->walk.v[--b->walk.n];
		x = &b->nodes[l];
		y = &b->nodes[r];
		if (!spend(b, 1) || x->type != y->type)
			goto differ;
		if (x->type == N_CHARSET) {
			/* Never merge a pattern's mark: it tells the patterns apart. */
			if (cs_has(&b->csets[x->cs], MARK_CHAR) ||
			    !cs_equal(&b->csets[x->cs], &b->csets[y->cs]))
				goto differ;
			continue;
		}
		if ((x->type == N_CAT || x->type == N_OR) &&
		    (!ivec_push(b, &b->walk, x->right) || !ivec_push(b, &b->walk, y->right)))
			goto differ;
		if (!ivec_push(b, &b->walk, x->left) || !ivec_push(b, &b->walk, y->left))
			goto differ;
	}
	return true;
differ:
	b->walk.n = base;
	return false;
}

static bool find_common(struct builder *b, int32_t or, int32_t *ret_l, int32_t *ret_r, bool lm)
{
	int32_t left = b->nodes[or].left, right = b->nodes[or].right;
	unsigned ld = spine_depth(b, left, lm), rd = spine_depth(b, right, lm);

	while (ld > rd && b->nodes[left].type != N_OR) {
		left = side_a(b, left, lm);
		ld--;
	}
	while (rd > ld && b->nodes[right].type != N_OR) {
		right = side_a(b, right, lm);
		rd--;
	}
	if (ld != rd)
		return false;
	while (ld && !b->err) {
		if (b->nodes[left].type == N_CAT && b->nodes[right].type == N_CAT &&
		    nodes_equal(b, side_a(b, left, lm), side_a(b, right, lm))) {
			*ret_l = left;
			*ret_r = right;
			return true;
		}
		if (b->nodes[left].type == N_OR || b->nodes[right].type == N_OR)
			break;
		left = side_a(b, left, lm);
		right = side_a(b, right, lm);
		ld--;
		if (!spend(b, 1))
			break;
	}
	return false;
}

static bool rotate_ors(struct builder *b, int32_t r, bool lm)
{
	int32_t old;

	if (b->nodes[r].type != N_OR || b->nodes[side_b(b, r, lm)].type != N_OR)
		return false;
	old = side_b(b, r, lm);
	if (lm) {
		b->nodes[r].right = b->nodes[old].right;
		b->nodes[old].right = b->nodes[old].left;
		b->nodes[old].left = b->nodes[r].left;
		b->nodes[r].left = old;
	} else {
		b->nodes[r].left = b->nodes[old].left;
		b->nodes[old].left = b->nodes[old].right;
		b->nodes[old].right = b->nodes[r].right;
		b->nodes[r].right = old;
	}
	return true;
}

static int32_t exchange(struct builder *b, int32_t r, int32_t lcat, int32_t rcat, bool lm)
{
	int32_t n, src;

	if (lm)
		n = new_node(b, N_CAT, b->nodes[lcat].left, r);
	else
		n = new_node(b, N_CAT, r, b->nodes[rcat].right);
	if (n == NONE)
		return NONE;
	/* Each cat node becomes its other child, as lvm2's memcpy does. */
	src = side_b(b, lcat, lm);
	b->nodes[lcat] = b->nodes[src];
	src = side_b(b, rcat, lm);
	b->nodes[rcat] = b->nodes[src];
	return n;
}

static int32_t rewrite_or(struct builder *b, int32_t r, bool *changed)
{
	int32_t l, rr;

	for (int k = 0; k < 2; k++) {
		bool lm = k == 0;

		if (find_common(b, r, &l, &rr, lm)) {
			*changed = true;
			if (!rotate_ors(b, r, lm))
				r = exchange(b, r, l, rr, lm);
			return r;
		}
		if (b->err)
			return NONE;
	}
	return r;
}

/*
 * One post-order pass (children first, left before right) with an explicit stack: frames
 * are (node, 2 * parent + side) pairs where side 0 is left and 1 right, and the state of a
 * frame is kept in the sign of its node slot (negative once its children are queued).
 */
static int32_t rewrite_pass(struct builder *b, int32_t root, bool *changed)
{
	size_t base = b->walk.n;
	int32_t res = NONE;

	if (!ivec_push(b, &b->walk, root) || !ivec_push(b, &b->walk, -1))
		return NONE;
	while (b->walk.n > base) {
		int32_t n = b->walk.v[b->walk.n - 2], link = b->walk.v[b->walk.n - 1];
		const struct node *x;

		if (!spend(b, 1))
			return NONE;
		if (n >= 0) {
			x = &b->nodes[n];
			b->walk.v[b->walk.n - 2] = -n - 1;
			/* Pushed right first so that the left subtree is rewritten first. */
			if (x->type == N_CAT || x->type == N_OR) {
				int32_t right = x->right;

				if (!ivec_push(b, &b->walk, right) ||
				    !ivec_push(b, &b->walk, 2 * n + 1))
					return NONE;
			}
			x = &b->nodes[n];
			if (x->type != N_CHARSET) {
				int32_t left = x->left;

				if (!ivec_push(b, &b->walk, left) || !ivec_push(b, &b->walk, 2 * n))
					return NONE;
			}
			continue;
		}
		n = -n - 1;
		b->walk.n -= 2;
		if (b->nodes[n].type == N_OR) {
			n = rewrite_or(b, n, changed);
			if (n == NONE)
				return NONE;
		}
		if (link < 0)
			res = n;
		else if (link & 1)
			b->nodes[link >> 1].right = n;
		else
			b->nodes[link >> 1].left = n;
	}
	return res;
}

static int32_t optimise(struct builder *b, int32_t root)
{
	bool changed;

	do {
		changed = false;
		root = rewrite_pass(b, root, &changed);
	} while (root != NONE && changed && !b->err);
	return b->err ? NONE : root;
}

/* ---- NFA ---- */

struct frag {
	int32_t start;
	uint32_t head, tail; /* dangling exits: slot = 2 * state + (0: out, 1: out1) */
};

#define NO_SLOT UINT32_MAX

struct nfa_builder {
	struct pf_regex *re;
	uint32_t *link; /* next dangling slot in the same list */
	struct frag *frags;
	size_t n_frags;
	uint32_t n_marks;
};

static void patch(struct nfa_builder *nb, const struct frag *f, int32_t target)
{
	for (uint32_t s = f->head; s != NO_SLOT; s = nb->link[s]) {
		struct nfa_state *st = &nb->re->states[s >> 1];

		if (s & 1)
			st->out1 = target;
		else
			st->out = target;
	}
}

static struct frag join_lists(struct nfa_builder *nb, struct frag a, const struct frag *b)
{
	if (a.head == NO_SLOT)
		return (struct frag){ a.start, b->head, b->tail };
	if (b->head != NO_SLOT) {
		nb->link[a.tail] = b->head;
		a.tail = b->tail;
	}
	return a;
}

static int32_t add_state(struct nfa_builder *nb, enum state_kind kind, int32_t out)
{
	struct pf_regex *re = nb->re;
	int32_t s = (int32_t)re->n_states++;

	re->states[s] = (struct nfa_state){ .kind = (uint8_t)kind, .out = out, .out1 = NONE };
	nb->link[2 * s] = NO_SLOT;
	nb->link[2 * s + 1] = NO_SLOT;
	return s;
}

static struct frag one_exit(int32_t start, int32_t s, unsigned which)
{
	uint32_t slot = 2 * (uint32_t)s + which;

	return (struct frag){ start, slot, slot };
}

/* Thompson's construction over the rewritten tree, post-order with an explicit stack. */
static int build_nfa(struct builder *b, int32_t root, struct nfa_builder *nb)
{
	struct pf_regex *re = nb->re;

	b->walk.n = 0;
	if (!ivec_push(b, &b->walk, root))
		return b->err;
	while (b->walk.n) {
		int32_t n = b->walk.v[b->walk.n - 1], s;
		const struct node *x;
		struct frag e1, e2;

		if (n >= 0) {
			x = &b->nodes[n];
			b->walk.v[b->walk.n - 1] = -n - 1;
			if (x->type == N_CAT || x->type == N_OR) {
				int32_t right = x->right;

				if (!ivec_push(b, &b->walk, right))
					return b->err;
			}
			x = &b->nodes[n];
			if (x->type != N_CHARSET && !ivec_push(b, &b->walk, x->left))
				return b->err;
			continue;
		}
		n = -n - 1;
		b->walk.n--;
		x = &b->nodes[n];
		switch (x->type) {
		case N_CHARSET:
			s = add_state(nb, S_CHAR, NONE);
			re->states[s].cs = (uint32_t)s;
			re->csets[s] = b->csets[x->cs];
			if (cs_has(&b->csets[x->cs], MARK_CHAR)) {
				/* Only a mark alone tells which pattern ended; lvm2 misnumbers the
				 * rest. */
				if (!cs_is_mark(&b->csets[x->cs]))
					return -EINVAL;
				re->states[s].final = ++nb->n_marks;
			}
			nb->frags[nb->n_frags++] = one_exit(s, s, 0);
			break;
		case N_CAT:
			e2 = nb->frags[--nb->n_frags];
			e1 = nb->frags[--nb->n_frags];
			patch(nb, &e1, e2.start);
			nb->frags[nb->n_frags++] = (struct frag){ e1.start, e2.head, e2.tail };
			break;
		case N_OR:
			e2 = nb->frags[--nb->n_frags];
			e1 = nb->frags[--nb->n_frags];
			s = add_state(nb, S_SPLIT, e1.start);
			re->states[s].out1 = e2.start;
			e1.start = s;
			nb->frags[nb->n_frags++] = join_lists(nb, e1, &e2);
			break;
		case N_STAR:
		case N_PLUS:
			e1 = nb->frags[--nb->n_frags];
			s = add_state(nb, S_SPLIT, e1.start);
			patch(nb, &e1, s);
			nb->frags[nb->n_frags++] = one_exit(x->type == N_STAR ? s : e1.start, s, 1);
			break;
		default: /* N_QUEST */
			e1 = nb->frags[--nb->n_frags];
			s = add_state(nb, S_SPLIT, e1.start);
			e2 = one_exit(s, s, 1);
			e1.start = s;
			nb->frags[nb->n_frags++] = join_lists(nb, e1, &e2);
			break;
		}
	}
	re->start = nb->frags[0].start;
	return 0;
}

static int make_nfa(struct builder *b, int32_t root, struct pf_regex **ret)
{
	struct nfa_builder nb = { 0 };
	struct pf_regex *re;
	size_t n = b->n_nodes;
	int r = -ENOMEM;

	re = calloc(1, sizeof(*re));
	if (!re)
		return -ENOMEM;
	nb.re = re;
	re->states = calloc(n, sizeof(*re->states));
	re->csets = calloc(n, sizeof(*re->csets));
	re->clist = calloc(n, sizeof(*re->clist));
	re->nlist = calloc(n, sizeof(*re->nlist));
	re->stack = calloc(n, sizeof(*re->stack));
	re->mark = calloc(n, sizeof(*re->mark));
	nb.link = calloc(2 * n, sizeof(*nb.link));
	nb.frags = calloc(n, sizeof(*nb.frags));
	if (!re->states || !re->csets || !re->clist || !re->nlist || !re->stack || !re->mark ||
	    !nb.link || !nb.frags)
		goto out;
	r = build_nfa(b, root, &nb);
	if (r < 0)
		goto out;
	*ret = re;
	re = NULL;
out:
	free(nb.link);
	free(nb.frags);
	pf_regex_free(re);
	return r;
}

static void builder_release(struct builder *b)
{
	free(b->nodes);
	free(b->csets);
	free(b->terms.v);
	free(b->walk.v);
}

/* Which pattern of the combined text an offset falls in, for messages. */
static size_t pattern_at(const size_t *lens, size_t n, size_t off, size_t *ret_off)
{
	size_t start = 0;

	for (size_t i = 0; i < n; i++) {
		size_t end = start + lens[i] + WRAP_EXTRA_LEN;

		if (off < end || i + 1 == n) {
			size_t o = off > start + WRAP_HEAD_LEN ? off - start - WRAP_HEAD_LEN : 0;

			*ret_off = o < lens[i] ? o : lens[i];
			return i;
		}
		start = end;
	}
	*ret_off = 0;
	return 0;
}

static int compile_text(const char *const *pats, const size_t *lens, size_t n,
			struct pf_regex **ret, struct pf_diag *reterr)
{
	struct builder b = { 0 };
	size_t total = 0, o = 0, idx, poff;
	unsigned char *text = NULL;
	int32_t root;
	int r;

	if (n == 0) {
		pf_diag_msg(reterr, "no patterns");
		return -EINVAL;
	}
	for (size_t i = 0; i < n; i++) {
		if (lens[i] > PF_REGEX_TEXT_MAX ||
		    total + lens[i] + WRAP_EXTRA_LEN > PF_REGEX_TEXT_MAX) {
			pf_diag_msg(reterr, "patterns longer than %zu bytes in all",
				    PF_REGEX_TEXT_MAX);
			return -E2BIG;
		}
		total += lens[i] + WRAP_EXTRA_LEN;
	}
	text = malloc(total);
	if (!text)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		memcpy(text + o, WRAP_HEAD, WRAP_HEAD_LEN);
		o += WRAP_HEAD_LEN;
		memcpy(text + o, pats[i], lens[i]);
		o += lens[i];
		text[o++] = ')';
		text[o++] = MARK_CHAR;
		text[o++] = ')';
		if (i + 1 < n)
			text[o++] = '|';
	}
	b.text = text;
	b.len = o;
	get_token(&b);
	root = or_term(&b);
	if (root != NONE && !b.err)
		root = optimise(&b, root);
	if (b.err || root == NONE) {
		r = b.err ? b.err : -EINVAL;
		goto fail;
	}
	r = make_nfa(&b, root, ret);
	if (r == -EINVAL) {
		b.why = "a '[' class runs into the next pattern";
		b.why_pos = o;
		goto fail;
	}
	goto out;
fail:
	idx = pattern_at(lens, n, b.why ? b.why_pos : b.pos, &poff);
	if (r == -ENOMEM)
		pf_diag_clear(reterr);
	else if (r == -E2BIG && !b.why)
		pf_diag_msg(reterr, "pattern too complex to compile");
	else if (n == 1)
		pf_diag_at(reterr, poff, "%s", b.why ? b.why : "parse error");
	else
		pf_diag_at(reterr, poff, "pattern %zu: %s", idx, b.why ? b.why : "parse error");
out:
	builder_release(&b);
	free(text);
	return r;
}

int pf_regex_compile_set(const char *const *patterns, size_t n, struct pf_regex **ret,
			 struct pf_diag *reterr)
{
	_cleanup_free_ size_t *lens = NULL;

	if (n > PF_REGEX_TEXT_MAX / WRAP_EXTRA_LEN) {
		pf_diag_msg(reterr, "more than %zu patterns", PF_REGEX_TEXT_MAX / WRAP_EXTRA_LEN);
		return -E2BIG;
	}
	lens = calloc(n ? n : 1, sizeof(*lens));
	if (!lens)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		lens[i] = strnlen(patterns[i], PF_REGEX_TEXT_MAX + 1);
	return compile_text(patterns, lens, n, ret, reterr);
}

int pf_regex_compile(const char *pattern, size_t len, struct pf_regex **ret, struct pf_diag *reterr)
{
	const char *p = memchr(pattern, '\0', len);

	if (p) {
		pf_diag_at(reterr, (uint64_t)(p - pattern), "NUL byte in pattern");
		return -EINVAL;
	}
	return compile_text(&pattern, &len, 1, ret, reterr);
}

struct pf_regex *pf_regex_free(struct pf_regex *re)
{
	if (!re)
		return NULL;
	free(re->states);
	free(re->csets);
	free(re->clist);
	free(re->nlist);
	free(re->stack);
	free(re->mark);
	free(re);
	return NULL;
}

size_t pf_regex_state_count(const struct pf_regex *re)
{
	return re->n_states;
}

/* ---- matching ---- */

static void next_gen(struct pf_regex *re)
{
	if (++re->gen == 0) {
		memset(re->mark, 0, re->n_states * sizeof(*re->mark));
		re->gen = 1;
	}
}

/* Add s and everything reachable from it without reading a byte; marks stop repeats. */
static void add_closure(struct pf_regex *re, int32_t *list, size_t *n, int32_t s)
{
	size_t top = 0;

	if (s == NONE || re->mark[s] == re->gen)
		return;
	re->mark[s] = re->gen;
	re->stack[top++] = s;
	while (top) {
		const struct nfa_state *st = &re->states[re->stack[--top]];

		if (st->kind == S_CHAR) {
			list[(*n)++] = (int32_t)(st - re->states);
			continue;
		}
		/* Pushed in reverse so the first branch is expanded first. */
		if (st->out1 != NONE && re->mark[st->out1] != re->gen) {
			re->mark[st->out1] = re->gen;
			re->stack[top++] = st->out1;
		}
		if (st->out != NONE && re->mark[st->out] != re->gen) {
			re->mark[st->out] = re->gen;
			re->stack[top++] = st->out;
		}
	}
}

/* Read byte c from every live state; returns the new count; best gets any mark reached. */
static size_t step(struct pf_regex *re, size_t n, unsigned char c, uint32_t *best)
{
	size_t m = 0;

	next_gen(re);
	for (size_t i = 0; i < n; i++) {
		const struct nfa_state *st = &re->states[re->clist[i]];

		if (cs_has(&re->csets[st->cs], c))
			add_closure(re, re->nlist, &m, st->out);
	}
	for (size_t i = 0; i < m; i++) {
		uint32_t f = re->states[re->nlist[i]].final;

		if (f > *best)
			*best = f;
	}
	/* Swap lists: the new live set becomes the current one. */
	{
		int32_t *t = re->clist;

		re->clist = re->nlist;
		re->nlist = t;
	}
	return m;
}

int pf_regex_match_which(struct pf_regex *re, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	uint32_t best = 0;
	size_t n = 0;

	next_gen(re);
	add_closure(re, re->clist, &n, re->start);
	n = step(re, n, HAT_CHAR, &best);
	for (; n && *s; s++)
		n = step(re, n, *s, &best);
	if (n)
		(void)step(re, n, DOLLAR_CHAR, &best);
	return (int)best - 1;
}
