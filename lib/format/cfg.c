/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2 config-text tokenizer and iterative parser into an arena-backed tree; path lookups. */
#include "config.h"

#include <errno.h>
#include <float.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/grow.h"
#include "format/cfg.h"

/*
 * Caps for text read from disks or /etc. lvm2's own writers nest four levels deep
 * (vg/logical_volumes/lv/segment); the largest single token is the description, which
 * embeds a whole command line and so is bounded by ARG_MAX-ish sizes and by the metadata
 * area, not by 64 KiB. A million nodes is ~25 MiB of real metadata text, far beyond what
 * lvm2 handles in practice.
 */
#define PF_CFG_DEPTH_MAX 64U
#define PF_CFG_TOKEN_MAX ((size_t)1 << 20)
#define PF_CFG_NODES_MAX ((size_t)1000000)
#define PF_CFG_SIZE_MAX	 ((size_t)64 << 20)

const struct pf_cfg_limits pf_cfg_default_limits = {
	.max_depth = PF_CFG_DEPTH_MAX,
	.max_token = PF_CFG_TOKEN_MAX,
	.max_nodes = PF_CFG_NODES_MAX,
	.max_size = PF_CFG_SIZE_MAX,
};

/*
 * compat: lvm2 releases before 2.02.169 could write an out-of-range creation_time on 32-bit
 * builds; lvm2 reads such a value as this date (2018-05-24) instead of refusing the VG.
 */
#define CREATION_TIME_FALLBACK 1527120000

/* ---- arena ---- */

/* the first chunk: 4 bytes a byte of text and 1 KiB, at most 16 KiB; each next one doubles */
#define ARENA_FIRST_PER_BYTE 4U
#define ARENA_FIRST_EXTRA ((size_t)1 << 10)
#define ARENA_FIRST_MAX ((size_t)16 << 10)
#define ARENA_CHUNK_MAX ((size_t)1 << 20)

struct arena_chunk {
	struct arena_chunk *prev;
	size_t size, used;
	max_align_t data[];
};

struct pf_cfg_tree {
	struct arena_chunk *chunks; /* head is the one being filled */
	size_t next_chunk;	    /* size of the next ordinary chunk; doubles up to the max */
	struct pf_cfg_node *root;
	size_t count;
};

static struct arena_chunk *chunk_new(size_t size)
{
	struct arena_chunk *c;

	if (size > SIZE_MAX - sizeof(*c))
		return NULL;
	c = malloc(sizeof(*c) + size);
	if (!c)
		return NULL;
	c->prev = NULL;
	c->size = size;
	c->used = 0;
	return c;
}

/*
 * n bytes aligned to align (a power of two, at most that of max_align_t), living until the
 * tree is freed. Strings ask for alignment 1 so that they pack tightly.
 */
static void *arena_alloc(struct pf_cfg_tree *t, size_t n, size_t align, bool zero)
{
	struct arena_chunk *c = t->chunks;
	size_t off = 0;
	void *p;

	if (c)
		off = (c->used + align - 1) & ~(align - 1);
	if (!c || off > c->size || c->size - off < n) {
		/*
		 * Big requests (long strings) get a chunk of their own, linked behind the
		 * current one, so the space left in the current chunk is not thrown away.
		 */
		if (c && n > t->next_chunk / 4) {
			struct arena_chunk *big = chunk_new(n);

			if (!big)
				return NULL;
			big->prev = c->prev;
			c->prev = big;
			big->used = n;
			if (zero)
				memset(big->data, 0, n);
			return big->data;
		}
		c = chunk_new(n > t->next_chunk ? n : t->next_chunk);
		if (!c)
			return NULL;
		if (t->next_chunk < ARENA_CHUNK_MAX)
			t->next_chunk *= 2;
		c->prev = t->chunks;
		t->chunks = c;
		off = 0;
	}
	p = (char *)c->data + off;
	c->used = off + n;
	if (zero)
		memset(p, 0, n);
	return p;
}

struct pf_cfg_tree *pf_cfg_free(struct pf_cfg_tree *tree)
{
	struct arena_chunk *c, *prev;

	if (!tree)
		return NULL;
	for (c = tree->chunks; c; c = prev) {
		prev = c->prev;
		free(c);
	}
	free(tree);
	return NULL;
}

/* ---- tokenizer ---- */

enum tok_type {
	TOK_EOF,
	TOK_LBRACE,
	TOK_RBRACE,
	TOK_LBRACKET,
	TOK_RBRACKET,
	TOK_COMMA,
	TOK_EQ,
	TOK_DQ,	  /* "..." with \" and \\ escapes */
	TOK_SQ,	  /* '...' verbatim */
	TOK_WORD, /* identifier, in key position */
	TOK_BARE, /* the same bytes in value position: an unquoted string */
	TOK_INT,
	TOK_FLOAT,
};

struct token {
	enum tok_type type;
	size_t start, end; /* raw bytes, quotes included */
	unsigned line, col;
};

/* What a '{' left behind: where parsing resumes when the matching '}' comes. */
struct frame {
	struct pf_cfg_node *cur, *tail;
	unsigned depth;
};

struct parser {
	const char *text;
	size_t len, pos;
	unsigned line;
	size_t line_start;
	const struct pf_cfg_limits *lim;
	struct pf_cfg_tree *tree;

	struct pf_cfg_node *cur;  /* innermost open section; NULL at top level */
	struct pf_cfg_node *tail; /* last child of cur (or last top-level node) */
	unsigned depth;		  /* sections enclosing the next item */
	struct frame *stack;
	size_t nstack, stack_alloc;

	struct pf_diag *diag;
};

/*
 * Byte classes, as a table because the lexer asks about every byte. SPACE is isspace() in
 * the C locale, which lvm2 runs with. WORD_END is where lvm2 ends identifiers and bare
 * words, which may therefore contain [ ] , " '. NUM_END adds those five: what may directly
 * follow a number.
 */
#define C_SPACE	   1U
#define C_WORD_END 2U
#define C_NUM_END  4U
#define C_DIGIT	   8U
#define C_BLANK	   (C_SPACE | C_WORD_END | C_NUM_END)
#define C_STOP	   (C_WORD_END | C_NUM_END)

static const uint8_t char_class[256] = {
	[' '] = C_BLANK, ['\t'] = C_BLANK, ['\n'] = C_BLANK, ['\r'] = C_BLANK, ['\v'] = C_BLANK,
	['\f'] = C_BLANK,
	['#'] = C_STOP, ['='] = C_STOP, ['{'] = C_STOP, ['}'] = C_STOP,
	['['] = C_NUM_END, [']'] = C_NUM_END, [','] = C_NUM_END, ['"'] = C_NUM_END,
	['\''] = C_NUM_END,
	['0'] = C_DIGIT, ['1'] = C_DIGIT, ['2'] = C_DIGIT, ['3'] = C_DIGIT, ['4'] = C_DIGIT,
	['5'] = C_DIGIT, ['6'] = C_DIGIT, ['7'] = C_DIGIT, ['8'] = C_DIGIT, ['9'] = C_DIGIT,
};

static bool char_is(char c, unsigned class)
{
	return char_class[(unsigned char)c] & class;
}

static bool is_space(char c)
{
	return char_is(c, C_SPACE);
}

static bool is_word_end(char c)
{
	return char_is(c, C_WORD_END);
}

static bool is_num_end(char c)
{
	return char_is(c, C_NUM_END);
}

static bool is_digit(char c)
{
	return char_is(c, C_DIGIT);
}

static unsigned col_at(const struct parser *ps, size_t off)
{
	size_t col = off - ps->line_start + 1;

	return col > UINT_MAX ? UINT_MAX : (unsigned)col;
}

static void newline_at(struct parser *ps, size_t off)
{
	if (ps->line < UINT_MAX)
		ps->line++;
	ps->line_start = off + 1;
}

/* Fill the diagnostic for an error at token t; returns r. */
static int fail_tok(struct parser *ps, int r, const struct token *t, const char *fmt, ...)
	_printf_(4, 5);
static int fail_tok(struct parser *ps, int r, const struct token *t, const char *fmt, ...)
{
	char msg[PF_DIAG_MSG_MAX];
	va_list ap;

	va_start(ap, fmt);
	(void)vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	pf_diag_text(ps->diag, t->start, t->line, t->col, "%s", msg);
	return r;
}

/*
 * Quote user-controlled bytes for a message: printable ASCII only, cut short, so a hostile
 * key cannot fill the message or put control characters on a terminal.
 */
#define SHOW_MAX 40
struct shown {
	char s[SHOW_MAX + 4];
};

static struct shown show(const char *p, size_t n)
{
	struct shown out;
	size_t i, k = n > SHOW_MAX ? SHOW_MAX : n;

	for (i = 0; i < k; i++)
		out.s[i] = (p[i] >= 0x20 && p[i] < 0x7f) ? p[i] : '?';
	if (k < n) {
		memcpy(out.s + k, "...", 3);
		k += 3;
	}
	out.s[k] = '\0';
	return out;
}

static struct shown show_tok(const struct parser *ps, const struct token *t)
{
	if (t->type == TOK_EOF)
		return show("end of input", 12);
	return show(ps->text + t->start, t->end - t->start);
}

static void skip_space(struct parser *ps)
{
	while (ps->pos < ps->len) {
		char c = ps->text[ps->pos];

		if (c == '\n') {
			newline_at(ps, ps->pos);
			ps->pos++;
		} else if (is_space(c)) {
			ps->pos++;
		} else if (c == '#') {
			const char *nl = memchr(ps->text + ps->pos, '\n', ps->len - ps->pos);

			ps->pos = nl ? (size_t)(nl - ps->text) : ps->len;
		} else {
			break;
		}
	}
}

static int too_long(struct parser *ps, const struct token *t)
{
	return fail_tok(ps, -E2BIG, t, "token longer than %zu bytes", ps->lim->max_token);
}

/* One past the last byte a token starting at start may reach before it is too long. */
static size_t token_bound(const struct parser *ps, size_t start)
{
	return ps->len - start > ps->lim->max_token ? start + ps->lim->max_token + 1 : ps->len;
}

/*
 * lvm2 lets an unterminated string swallow the rest of the buffer (a NUL included, since the
 * text was cut there); refusing it is the only safe reading of a torn write.
 */
static int unterminated(struct parser *ps, const struct token *t)
{
	return fail_tok(ps, -EBADMSG, t, "unterminated string starting at line %u col %u", t->line,
			t->col);
}

static int lex_quoted(struct parser *ps, struct token *t, char quote)
{
	size_t bound = token_bound(ps, t->start), i = t->start + 1;

	while (i < bound) {
		char c = ps->text[i];

		if (c == quote) {
			t->end = i + 1;
			if (t->end - t->start > ps->lim->max_token)
				return too_long(ps, t);
			ps->pos = t->end;
			return 0;
		}
		if (c == '\n')
			newline_at(ps, i);
		if (c == '\\' && quote == '"') {
			/* compat: a backslash hides the next byte from the search for the end. */
			if (i + 1 >= ps->len)
				return unterminated(ps, t);
			if (ps->text[i + 1] == '\n')
				newline_at(ps, i + 1);
			i++;
		}
		i++;
	}
	/* No closing quote within the cap: too long even if one comes later. */
	if (bound < ps->len)
		return too_long(ps, t);
	return unterminated(ps, t);
}

static int lex_word(struct parser *ps, struct token *t, enum tok_type type)
{
	size_t bound = token_bound(ps, t->start), i = t->start;

	while (i < bound && !is_word_end(ps->text[i]))
		i++;
	t->type = type;
	t->end = i;
	if (t->end - t->start > ps->lim->max_token)
		return too_long(ps, t);
	ps->pos = i;
	return 0;
}

/*
 * compat: in value position lvm2 reads [+-.0-9] as the start of a number made of digits and
 * at most one '.'. The number ends at the first other byte, and lvm2 then lexes what follows
 * as a new key ("0x10" is 0 followed by a key "x10"). That never makes sense, so a number
 * running straight into a word is refused here.
 */
static int lex_number(struct parser *ps, struct token *t)
{
	size_t bound = token_bound(ps, t->start), i = t->start;
	bool dot = ps->text[i] == '.';

	while (++i < bound) {
		char c = ps->text[i];

		if (c == '.' && !dot)
			dot = true;
		else if (!is_digit(c))
			break;
	}
	t->type = dot ? TOK_FLOAT : TOK_INT;
	t->end = i;
	if (t->end - t->start > ps->lim->max_token)
		return too_long(ps, t);
	if (i < ps->len && !is_num_end(ps->text[i])) {
		size_t e = i;

		while (e < ps->len && e - t->start < SHOW_MAX + 1 && !is_num_end(ps->text[e]))
			e++;
		return fail_tok(ps, -EBADMSG, t, "malformed number '%s'",
				show(ps->text + t->start, e - t->start).s);
	}
	ps->pos = i;
	return 0;
}

/* The single-byte tokens; TOK_EOF for any other byte. */
static enum tok_type punct_type(char c)
{
	switch (c) {
	case '{':
		return TOK_LBRACE;
	case '}':
		return TOK_RBRACE;
	case '[':
		return TOK_LBRACKET;
	case ']':
		return TOK_RBRACKET;
	case ',':
		return TOK_COMMA;
	case '=':
		return TOK_EQ;
	default:
		return TOK_EOF;
	}
}

/*
 * The next token. value_pos is lvm2's rule: right after '=', '[' or ',' a leading digit,
 * sign or dot starts a number and other text is a bare-word string; elsewhere it is a key.
 */
static int lex(struct parser *ps, bool value_pos, struct token *ret)
{
	struct token t = { .type = TOK_EOF };
	int r = 0;
	char c;

	skip_space(ps);
	t.start = t.end = ps->pos;
	t.line = ps->line;
	t.col = col_at(ps, ps->pos);
	if (ps->pos < ps->len) {
		c = ps->text[ps->pos];
		t.type = punct_type(c);
		if (t.type != TOK_EOF) {
			t.end = t.start + 1;
			ps->pos = t.end;
		} else if (c == '"' || c == '\'') {
			t.type = c == '"' ? TOK_DQ : TOK_SQ;
			r = lex_quoted(ps, &t, c);
		} else if (value_pos && (is_digit(c) || c == '+' || c == '-' || c == '.')) {
			r = lex_number(ps, &t);
		} else {
			r = lex_word(ps, &t, value_pos ? TOK_BARE : TOK_WORD);
		}
	}
	if (r < 0)
		return r;
	*ret = t;
	return 0;
}

/* ---- tree building ---- */

static int no_memory(struct parser *ps, const struct token *t)
{
	return fail_tok(ps, -ENOMEM, t, "out of memory");
}

static int count_one(struct parser *ps, const struct token *t)
{
	if (ps->tree->count >= ps->lim->max_nodes)
		return fail_tok(ps, -E2BIG, t, "more than %zu nodes", ps->lim->max_nodes);
	ps->tree->count++;
	return 0;
}

/* Token text as a NUL-terminated tree string: quotes stripped, "..." escapes undone. */
static int token_string(struct parser *ps, const struct token *t, char **ret)
{
	const char *p = ps->text + t->start;
	size_t n = t->end - t->start;
	char *s, *o;

	if (t->type == TOK_DQ || t->type == TOK_SQ) {
		p++;
		n -= 2;
	}
	s = arena_alloc(ps->tree, n + 1, 1, false);
	if (!s)
		return no_memory(ps, t);
	if (t->type != TOK_DQ) {
		memcpy(s, p, n);
		s[n] = '\0';
	} else {
		/* compat: only \" and \\ are escapes; any other backslash stays as written. */
		o = s;
		for (size_t i = 0; i < n; i++) {
			if (p[i] == '\\' && i + 1 < n && (p[i + 1] == '"' || p[i + 1] == '\\'))
				i++;
			*o++ = p[i];
		}
		*o = '\0';
	}
	*ret = s;
	return 0;
}

/*
 * strtoll(s, NULL, 0) restricted to what the lexer lets through (sign, digits): a leading 0
 * means octal. Returns -ERANGE on overflow, -EDOM for 8 or 9 in an octal number (strtoll
 * would silently stop there), -EINVAL for a bare sign.
 */
static int parse_int(const char *s, size_t n, int64_t *ret)
{
	uint64_t v = 0, lim = INT64_MAX;
	unsigned base = 10;
	bool neg = false;
	size_t i = 0;

	if (s[0] == '+' || s[0] == '-') {
		neg = s[0] == '-';
		lim = (uint64_t)INT64_MAX + 1;
		i++;
	}
	if (i == n)
		return -EINVAL;
	if (s[i] == '0' && n - i > 1)
		base = 8;
	for (; i < n; i++) {
		unsigned d = (unsigned)(s[i] - '0');

		if (d >= base)
			return -EDOM;
		if (v > (lim - d) / base)
			return -ERANGE;
		v = v * base + d;
	}
	if (!neg)
		*ret = (int64_t)v;
	else
		*ret = v == (uint64_t)INT64_MAX + 1 ? INT64_MIN : -(int64_t)v;
	return 0;
}

static int bad_number(struct parser *ps, const struct token *t, const char *what)
{
	return fail_tok(ps, -EBADMSG, t, "%s '%s'", what, show_tok(ps, t).s);
}

/* The creation_time fallback applies to the setting's own key, as in lvm2. */
static int number_value(struct parser *ps, const struct token *t, const char *key,
			struct pf_cfg_value *v)
{
	const char *p = ps->text + t->start;
	size_t n = t->end - t->start;
	bool digits = false;
	char *s, *end;
	double d;
	int r;

	if (t->type == TOK_INT) {
		v->type = PF_CFG_INT;
		r = parse_int(p, n, &v->v.i);
		if (r == -ERANGE && strcmp(key, "creation_time") == 0) {
			v->v.i = CREATION_TIME_FALLBACK;
			r = 0;
		}
		if (r == -ERANGE)
			return bad_number(ps, t, "integer out of range");
		if (r == -EDOM)
			return bad_number(ps, t, "invalid digit in octal number");
		if (r < 0)
			return bad_number(ps, t, "malformed number");
		return 0;
	}

	/* The digits must come from the token alone: strtod would read on past it. */
	for (size_t i = 0; i < n; i++)
		digits |= is_digit(p[i]);
	if (!digits)
		return bad_number(ps, t, "malformed number");
	r = token_string(ps, t, &s);
	if (r < 0)
		return r;
	errno = 0;
	d = strtod(s, &end);
	if (errno == ERANGE)
		return bad_number(ps, t, "floating-point number out of range");
	if (*end)
		return bad_number(ps, t, "malformed number");
	/*
	 * compat: lvm2 range-checks as a double but stores a float, so beyond FLT_MAX it holds
	 * infinity; keep the value it would see. (The cast itself is undefined out of range.)
	 */
	v->type = PF_CFG_FLOAT;
	if (d > FLT_MAX || d < -FLT_MAX)
		v->v.f = d < 0 ? -(double)INFINITY : (double)INFINITY;
	else
		v->v.f = (float)d;
	return 0;
}

static bool tok_is_scalar(enum tok_type type)
{
	return type == TOK_INT || type == TOK_FLOAT || type == TOK_DQ || type == TOK_SQ ||
	       type == TOK_BARE;
}

static int new_value(struct parser *ps, const struct token *t, const char *key,
		     struct pf_cfg_value **ret)
{
	struct pf_cfg_value *v;
	char *s;
	int r;

	r = count_one(ps, t);
	if (r < 0)
		return r;
	v = arena_alloc(ps->tree, sizeof(*v), _Alignof(struct pf_cfg_value), true);
	if (!v)
		return no_memory(ps, t);
	switch (t->type) {
	case TOK_INT:
	case TOK_FLOAT:
		r = number_value(ps, t, key, v);
		break;
	case TOK_DQ:
	case TOK_SQ:
	case TOK_BARE:
		r = token_string(ps, t, &s);
		v->type = PF_CFG_STRING;
		v->v.s = s;
		break;
	default: /* "[]" */
		v->type = PF_CFG_EMPTY_ARRAY;
		break;
	}
	if (r < 0)
		return r;
	*ret = v;
	return 0;
}

/* value := scalar | '[' ( scalar ','? )* ']' -- with lvm2's lexing, see lex(). */
static int parse_value(struct parser *ps, struct pf_cfg_node *n)
{
	struct pf_cfg_value *v, *last = NULL;
	struct token t, open;
	int r;

	r = lex(ps, true, &t);
	if (r < 0)
		return r;
	if (tok_is_scalar(t.type))
		return new_value(ps, &t, n->key, &n->value);
	if (t.type != TOK_LBRACKET)
		return fail_tok(ps, -EBADMSG, &t, "expected a value for key '%s', found %s%s%s",
				show(n->key, strlen(n->key)).s, t.type == TOK_EOF ? "" : "'",
				show_tok(ps, &t).s, t.type == TOK_EOF ? "" : "'");

	n->is_array = true;
	open = t;
	r = lex(ps, true, &t);
	while (r == 0 && t.type != TOK_RBRACKET) {
		if (t.type == TOK_EOF)
			return fail_tok(ps, -EBADMSG, &t,
					"unterminated array for key '%s' starting at line %u col %u",
					show(n->key, strlen(n->key)).s, open.line, open.col);
		/*
		 * compat: commas are optional only where the lexer does not care about position:
		 * after an element without one, a number or bare word reads as a key, and lvm2
		 * refuses it; quoted strings still work.
		 */
		if (t.type == TOK_WORD)
			return fail_tok(ps, -EBADMSG, &t, "missing ',' before '%s' in array '%s'",
					show_tok(ps, &t).s, show(n->key, strlen(n->key)).s);
		if (!tok_is_scalar(t.type))
			return fail_tok(ps, -EBADMSG, &t, "unexpected '%s' in array '%s'",
					show_tok(ps, &t).s, show(n->key, strlen(n->key)).s);
		r = new_value(ps, &t, n->key, &v);
		if (r < 0)
			return r;
		if (last)
			last->next = v;
		else
			n->value = v;
		last = v;
		r = lex(ps, false, &t);
		if (r == 0 && t.type == TOK_COMMA)
			r = lex(ps, true, &t);
	}
	if (r < 0)
		return r;
	if (!n->value)
		return new_value(ps, &t, n->key, &n->value);
	return 0;
}

static int push(struct parser *ps, struct pf_cfg_node *top)
{
	/* Depth is capped where sections open; this bound is memory only. */
	int r = pf_grow(&ps->stack, &ps->stack_alloc, ps->nstack + 1, SIZE_MAX / sizeof(*ps->stack));

	if (r < 0)
		return r;
	ps->stack[ps->nstack++] = (struct frame){ .cur = ps->cur, .tail = top, .depth = ps->depth };
	return 0;
}

static int too_deep(struct parser *ps, const struct token *t)
{
	return fail_tok(ps, -E2BIG, t, "sections nested deeper than %u", ps->lim->max_depth);
}

/*
 * compat: lvm2 treats a key as a path, so "devices/filter = ..." makes a section "devices"
 * holding "filter" (empty segments skipped, a trailing '/' leaving an empty last key). The
 * key string is split in place. Returns the last node and its nesting depth (counted as for
 * a section); the first node is appended to the current section and becomes ps->tail.
 */
static int add_key_nodes(struct parser *ps, const struct token *kt, char *key, bool section,
			 struct pf_cfg_node **ret, unsigned *ret_depth)
{
	struct pf_cfg_node *parent = ps->cur, *n = NULL;
	unsigned depth = ps->depth;
	char *p = key;
	int r;

	for (;;) {
		char *seg;
		bool last;

		while (*p == '/')
			p++;
		seg = p;
		while (*p && *p != '/')
			p++;
		last = !*p;
		if (!last)
			*p++ = '\0';
		if (!last || section) {
			if (depth >= ps->lim->max_depth)
				return too_deep(ps, kt);
			depth++;
		}

		r = count_one(ps, kt);
		if (r < 0)
			return r;
		n = arena_alloc(ps->tree, sizeof(*n), _Alignof(struct pf_cfg_node), true);
		if (!n)
			return no_memory(ps, kt);
		n->key = seg;
		n->parent = parent;
		n->line = kt->line;
		n->col = kt->col;
		if (parent != ps->cur)
			parent->child = n;
		else if (ps->tail)
			ps->tail->next = n;
		else if (ps->cur)
			ps->cur->child = n;
		else
			ps->tree->root = n;
		if (parent == ps->cur)
			ps->tail = n;
		if (last)
			break;
		parent = n;
	}
	*ret = n;
	*ret_depth = depth;
	return 0;
}

static int parse_item(struct parser *ps, const struct token *kt)
{
	struct pf_cfg_node *n = NULL;
	unsigned depth = 0;
	struct token t;
	char *key;
	int r;

	r = token_string(ps, kt, &key);
	if (r < 0)
		return r;
	if (!*key)
		return fail_tok(ps, -EBADMSG, kt, "empty key");

	r = lex(ps, false, &t);
	if (r < 0)
		return r;
	if (t.type != TOK_LBRACE && t.type != TOK_EQ)
		return fail_tok(ps, -EBADMSG, &t, "expected '=' or '{' after key '%s'",
				show(key, strlen(key)).s);

	r = add_key_nodes(ps, kt, key, t.type == TOK_LBRACE, &n, &depth);
	if (r < 0)
		return r;
	if (t.type == TOK_EQ)
		return parse_value(ps, n);

	r = push(ps, ps->tail);
	if (r < 0)
		return no_memory(ps, &t);
	ps->cur = n;
	ps->tail = NULL;
	ps->depth = depth;
	return 0;
}

/* file := item*; item := key '{' item* '}' | key '=' value. Iterative: '{' pushes a frame. */
static int parse_file(struct parser *ps)
{
	struct token t;
	int r;

	for (;;) {
		r = lex(ps, false, &t);
		if (r < 0)
			return r;
		switch (t.type) {
		case TOK_EOF:
			if (ps->cur)
				return fail_tok(ps, -EBADMSG, &t,
						"section '%s' opened at line %u col %u is not closed",
						show(ps->cur->key, strlen(ps->cur->key)).s,
						ps->cur->line, ps->cur->col);
			return 0;
		case TOK_RBRACE:
			if (!ps->nstack)
				return fail_tok(ps, -EBADMSG, &t, "unexpected '}'");
			ps->nstack--;
			ps->cur = ps->stack[ps->nstack].cur;
			ps->tail = ps->stack[ps->nstack].tail;
			ps->depth = ps->stack[ps->nstack].depth;
			break;
		case TOK_WORD:
		case TOK_DQ:
		case TOK_SQ:
			r = parse_item(ps, &t);
			if (r < 0)
				return r;
			break;
		default:
			return fail_tok(ps, -EBADMSG, &t, "unexpected '%s', expected a key",
					show_tok(ps, &t).s);
		}
	}
}

/* Line and column of byte off, for errors found before tokenizing. */
static void text_pos(const char *text, size_t off, unsigned *line, unsigned *col)
{
	size_t l = 1, start = 0;
	const char *p = text, *nl;

	while ((nl = memchr(p, '\n', off - (size_t)(p - text)))) {
		l++;
		p = nl + 1;
		start = (size_t)(p - text);
	}
	*line = l > UINT_MAX ? UINT_MAX : (unsigned)l;
	*col = off - start + 1 > UINT_MAX ? UINT_MAX : (unsigned)(off - start + 1);
}

int pf_cfg_parse(const char *text, size_t len, const struct pf_cfg_limits *limits,
		 struct pf_cfg_tree **ret, struct pf_diag *reterr)
{
	struct parser ps = { .line = 1, .diag = reterr };
	struct pf_cfg_tree *tree;
	const char *nul;
	size_t scan;
	int r;

	if (!text && len) {
		pf_diag_msg(reterr, "no text");
		return -EINVAL;
	}
	ps.lim = limits ? limits : &pf_cfg_default_limits;

	/* compat: the text ends at the first NUL, as lvm2 reads on-disk metadata. */
	scan = len > ps.lim->max_size ? ps.lim->max_size + 1 : len;
	nul = scan ? memchr(text, '\0', scan) : NULL;
	ps.len = nul ? (size_t)(nul - text) : scan;
	if (ps.len > ps.lim->max_size) {
		unsigned line, col;

		text_pos(text, ps.lim->max_size, &line, &col);
		pf_diag_text(reterr, ps.lim->max_size, line, col, "text larger than %zu bytes",
			     ps.lim->max_size);
		return -E2BIG;
	}
	ps.text = text;

	tree = calloc(1, sizeof(*tree));
	if (!tree) {
		pf_diag_msg(reterr, "out of memory");
		return -ENOMEM;
	}
	/*
	 * The first chunk sized to the text: the trees of thousands of small VGs stay in memory
	 * together, each in one chunk that fits it.
	 */
	tree->next_chunk = len < (ARENA_FIRST_MAX - ARENA_FIRST_EXTRA) / ARENA_FIRST_PER_BYTE
				   ? len * ARENA_FIRST_PER_BYTE + ARENA_FIRST_EXTRA
				   : ARENA_FIRST_MAX;
	ps.tree = tree;

	r = parse_file(&ps);
	if (r < 0)
		goto out;
	*ret = TAKE_PTR(tree);
out:
	free(ps.stack);
	pf_cfg_free(tree);
	return r;
}

const struct pf_cfg_node *pf_cfg_root(const struct pf_cfg_tree *tree)
{
	return tree->root;
}

size_t pf_cfg_tree_bytes(const struct pf_cfg_tree *tree)
{
	size_t n = sizeof(*tree);

	for (const struct arena_chunk *c = tree->chunks; c; c = c->prev)
		n += sizeof(*c) + c->size;
	return n;
}

size_t pf_cfg_node_count(const struct pf_cfg_tree *tree)
{
	return tree->count;
}

/* ---- lookups ---- */

const struct pf_cfg_node *pf_cfg_find(const struct pf_cfg_node *first, const char *path)
{
	const struct pf_cfg_node *n = first;
	const char *p = path;

	/* lvm2's path rules: leading and repeated '/' are skipped, keys compare exactly. */
	for (;;) {
		const struct pf_cfg_node *found = NULL;
		const char *e;
		size_t seg;

		while (*p == '/')
			p++;
		for (e = p; *e && *e != '/'; e++)
			;
		seg = (size_t)(e - p);
		for (; n; n = n->next) {
			if (strncmp(n->key, p, seg) == 0 && n->key[seg] == '\0') {
				found = n;
				break;
			}
		}
		if (!found || !*e)
			return found;
		n = found->child;
		p = e;
	}
}

static int find_setting(const struct pf_cfg_node *sec, const char *path,
			const struct pf_cfg_node **ret)
{
	const struct pf_cfg_node *n;

	if (!sec)
		return -ENOENT;
	n = pf_cfg_find(sec->child, path);
	if (!n)
		return -ENOENT;
	if (pf_cfg_is_section(n))
		return -EINVAL;
	*ret = n;
	return 0;
}

int pf_cfg_get_int(const struct pf_cfg_node *sec, const char *path, int64_t *ret)
{
	const struct pf_cfg_node *n;
	int r;

	r = find_setting(sec, path, &n);
	if (r < 0)
		return r;
	if (n->is_array || n->value->type != PF_CFG_INT)
		return -EINVAL;
	*ret = n->value->v.i;
	return 0;
}

int pf_cfg_get_str(const struct pf_cfg_node *sec, const char *path, const char **ret)
{
	const struct pf_cfg_node *n;
	int r;

	r = find_setting(sec, path, &n);
	if (r < 0)
		return r;
	if (n->is_array || n->value->type != PF_CFG_STRING)
		return -EINVAL;
	*ret = n->value->v.s;
	return 0;
}

int pf_cfg_get_list(const struct pf_cfg_node *sec, const char *path,
		    const struct pf_cfg_value **ret)
{
	const struct pf_cfg_node *n;
	int r;

	r = find_setting(sec, path, &n);
	if (r < 0)
		return r;
	*ret = n->value;
	return 0;
}
