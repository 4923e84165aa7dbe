/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's filter regex dialect against answers from lvm2's own matcher, and hostile patterns. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/regex.h"
#include "unit.h"

/*
 * Every pattern set below was compiled with libdevmapper 1.02.185's dm_regex_create() and
 * every name matched with dm_regex_match() (lvm2 2.03.16, Debian 12). The answer string
 * holds, per entry of names[], the index dm_regex_match() returned ('-' for -1); "E" means
 * dm_regex_create() refused the set.
 */
static const char *const names[] = {
	"/dev/sda", "/dev/sda1", "/dev/sdz12", "/dev/loop5", "/dev/loop12", "/dev/mapper/vg-lv",
	"/dev/disk/by-id/lvm-pv-uuid-abc", "/dev/nvme0n1", "/dev/nvme0n1p2", "/dev/md0", "/dev/vdb",
	"/dev/dm-3", "/dev/xvda1", "", "a", "x", "xa", "fa", "fb", "f", "xyz", "ab", "a)b", "$",
	"^", "{1,2}", "aa", "b", "c", "abbc", "sda", "a\nb", "a.b", "-", "]", "\\",
};

static const struct {
	const char *pats[5];
	const char *want;
} vectors[] = {
	{ { "^/dev/sd[a-z]$", NULL }, "0-----------------------------------" },
	{ { "^/dev/sd[a-z][0-9]*$", NULL }, "000---------------------------------" },
	{ { "/dev/loop[0-9]+", NULL }, "---00-------------------------------" },
	{ { "^/dev/loop[4-8]$", NULL }, "---0--------------------------------" },
	{ { ".*", NULL }, "000000000000000000000000000000000000" },
	{ { "^/dev/disk/by-id/lvm-pv-uuid-.*", NULL }, "------0-----------------------------" },
	{ { "/dev/mapper/.*", NULL }, "-----0------------------------------" },
	{ { "^/dev/(sd|vd|xvd)[a-z]+[0-9]*$", NULL }, "000-------0-0-----------------------" },
	{ { "loop", NULL }, "---00-------------------------------" },
	{ { "^/dev/nvme[0-9]+n[0-9]+(p[0-9]+)?$", NULL }, "-------00---------------------------" },
	{ { "^/dev/md[0-9]*$", NULL }, "---------0--------------------------" },
	{ { "sda$", NULL }, "0-----------------------------0-----" },
	{ { "^sda", NULL }, "------------------------------0-----" },
	{ { "a.", NULL }, "00---00-----0-0-00---00---0--00-0---" },
	{ { "x[^a]", NULL }, "------------0--0----0---------------" },
	{ { "[^/]$", NULL }, "0000000000000000000000000000000-0000" },
	{ { "^/dev/.*[^0-9]$", NULL }, "0----00---0-------------------------" },
	{ { "\\.", NULL }, "--------------------------------0---" },
	{ { "[a-c-e]", NULL }, "0000000000000-0-000--00---0000000---" },
	{ { "[z-a]", NULL }, "0000000000000-000000000---0000000---" },
	{ { "[-a]", NULL }, "00---00----00-0-00---00---0--00000--" },
	{ { "[]a]", NULL }, "------------------------------------" },
	{ { "\\n", NULL }, "-------------------------------0----" },
	{ { "a)b", NULL }, "------0--------------0-------0------" },
	{ { "(fa)*|fb", NULL }, "-----------------000----------------" },
	{ { "a|b|c", NULL }, "00---00---0-0-0-000--00---0000000---" },
	{ { "(a|b)*c", NULL }, "------0---------------------00------" },
	{ { "a+b?c*", NULL }, "00---00-----0-0-00---00---0--0000---" },
	{ { "^$", NULL }, "-------------0----------------------" },
	{ { "^", NULL }, "000000000000000000000000000000000000" },
	{ { "$", NULL }, "0000000000000000000000000000000-0000" },
	{ { "", NULL }, "E" },
	{ { "()", NULL }, "E" },
	{ { "a()b", NULL }, "E" },
	{ { "a[", NULL }, "E" },
	{ { "a|", NULL }, "E" },
	{ { "*a", NULL }, "E" },
	{ { "a**", NULL }, "000000000000000000000000000000000000" },
	{ { "(((a)))", NULL }, "00---00-----0-0-00---00---0--0000---" },
	{ { "[^]", NULL }, "000000000000000000000000000000000000" },
	{ { "[.]", NULL }, "--------------------------------0---" },
	{ { "\\$", NULL }, "-----------------------0------------" },
	{ { "\\^", NULL }, "------------------------0-----------" },
	{ { "a\\", NULL }, "E" },
	{ { "[\\]]", NULL }, "----------------------------------0-" },
	{ { "[a\\-z]", NULL }, "000--00----00-0-00--000---0--00000--" },
	{ { "{1,2}", NULL }, "-------------------------0----------" },
	{ { "a{2}", NULL }, "------------------------------------" },
	{ { "|a", NULL }, "000000000000000000000000000000000000" },
	{ { "a||b", NULL }, "000000000000000000000000000000000000" },
	{ { "(a|)", NULL }, "E" },
	{ { "(|a)", NULL }, "------------------------------------" },
	{ { "a)", NULL }, "00---00-----0-0-00---00---0--0000---" },
	{ { "(a", NULL }, "E" },
	{ { ")", NULL }, "000000000000000000000000000000000000" },
	{ { "a?", NULL }, "000000000000000000000000000000000000" },
	{ { "^a?$", NULL }, "-------------00---------------------" },
	{ { "^(a|b)+$", NULL }, "--------------0------0----00--------" },
	{ { "^.$", NULL }, "--------------00---0---00--00----000" },
	{ { "^..$", NULL }, "----------------000--0----0---------" },
	{ { "[\\t]", NULL }, "------------------------------------" },
	{ { "[^\\n]", NULL }, "000000000000000000000000000000000000" },
	{ { "^[^a-z/]", NULL }, "-------------0---------000-------000" },
	{ { "^/dev/sd[^a]", NULL }, "--0---------------------------------" },
	{ { "ab|ac|ad", NULL }, "------0--------------0-------0------" },
	{ { "(ab)+|ac", NULL }, "------0--------------0-------0------" },
	{ { "(ab)?|ac", NULL }, "00---00-----0-0-00---00---0--0000---" },
	{ { "b(a)*|ba", NULL }, "------0---0-------0--00----0-0--0---" },
	{ { "(x|y)a|(x|y)b", NULL }, "----------------0-------------------" },
	{ { "a(b|c)|a(b|d)", NULL }, "------0--------------0-------0------" },
	{ { "^/dev/sda$", "^/dev/sd", NULL }, "111---------------------------------" },
	{ { "(ab)*c", "ad", NULL }, "------0----------------------0------" },
	{ { "loop", ".*", NULL }, "111111111111111111111111111111111111" },
	{ { "^/dev/loop[4-8]$", ".*", NULL }, "111111111111111111111111111111111111" },
	{ { "a", "b", "c", NULL }, "00---02---1-0-0-001--11---0122001---" },
	{ { ".*", "a", NULL }, "110001100000101011000110001001111000" },
	{ { "a)b", "c", NULL }, "------0--------------0-------0------" },
	{ { "a", "b)c", NULL }, "00---01-----0-0-00---00---0--1000---" },
	{ { "x(a|)", "b", NULL }, "------1---1-0--00-1-011----1-1--1---" },
	{ { "sd", "sda", "sda1", NULL }, "120---------------------------1-----" },
	{ { "^/dev/mapper/", "dm-", "^/dev/sd", NULL }, "222--0-----1------------------------" },
	{ { "", "a", NULL }, "E" },
	{ { "a", "", NULL }, "E" },
	{ { "(fa)*|fb", "xyz", NULL }, "-----------------0001---------------" },
	{ { "f", "(fa)*", NULL }, "-----------------111----------------" },
};

static int compile_set(const char *const *pats, struct pf_regex **re, struct pf_diag *d)
{
	size_t n = 0;

	while (pats[n])
		n++;
	return pf_regex_compile_set(pats, n, re, d);
}

START_TEST(test_dm_regex_vectors)
{
	const char *want = vectors[_i].want;
	struct pf_regex *re = NULL;
	struct pf_diag d = { 0 };
	int r = compile_set(vectors[_i].pats, &re, &d);

	if (!strcmp(want, "E")) {
		ck_assert_msg(r == -EINVAL, "set %d: compiled (r=%d), lvm2 refuses it", _i, r);
		ck_assert(d.msg[0]);
		return;
	}
	ck_assert_msg(r == 0, "set %d: %d %s", _i, r, d.msg);
	ck_assert_uint_eq(strlen(want), ARRAY_SIZE(names));
	for (size_t k = 0; k < ARRAY_SIZE(names); k++) {
		int exp = want[k] == '-' ? -1 : want[k] - '0';
		int got = pf_regex_match_which(re, names[k]);

		ck_assert_msg(got == exp, "set %d (\"%s\"...) on \"%s\": got %d, lvm2 says %d", _i,
			      vectors[_i].pats[0], names[k], got, exp);
	}
	pf_regex_free(re);
}
END_TEST

/* Quirks spelled out, so that a change in any of them is named in the failure. */
START_TEST(test_quirks)
{
	static const struct {
		const char *pat, *str;
		bool match;
	} q[] = {
		{ "a.", "xa", true },		       /* '.' matches the end of the string */
		{ "x[^a]", "x", true },		       /* so does a negated class */
		{ ".", "", true },		       /* '.' matches the start: anything matches */
		{ "^/dev/sda$", "/dev/sda1", false },
		{ "sda", "/dev/sda1", true },	       /* unanchored: anywhere */
		{ "a)b", "ab", true },		       /* a stray ')' is dropped */
		{ "(fa)*|fb", "xyz", false },	       /* lvm2's rewrite: f(a*|b) */
		{ "(fa)*|fb", "f", true },
		{ "[z-a]", "m", true },		       /* reversed range */
		{ "[-a]", "-", true },		       /* leading '-' is literal */
		{ "[a-c-e]", "d", true },	       /* a range may start where one ended */
		{ "\\n", "n", false },		       /* \n is a newline */
		{ "{1,2}", "{1,2}", true },	       /* no counted repetition */
		{ "a\nb", "a\nb", true },
		{ "^.", "\n", false },		       /* '.' never matches a newline... */
		{ "^[^x]", "\n", true },	       /* ...a negated class does */
		{ "\\$", "$", true },
		{ "^$", "", true },
		/* Bytes >= 0x80 are plain bytes (lvm2 has undefined behaviour for some). */
		{ "\xc3\xa9$", "/dev/disk/by-label/caf\xc3\xa9", true },
		{ "^[\xc3\xa9]+$", "\xc3\xa9\xc3\xa9", true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(q); i++) {
		struct pf_regex *re = NULL;
		struct pf_diag d;

		ck_assert_msg(pf_regex_compile(q[i].pat, strlen(q[i].pat), &re, &d) == 0, "%s: %s",
			      q[i].pat, d.msg);
		ck_assert_msg(pf_regex_match(re, q[i].str) == q[i].match, "\"%s\" on \"%s\"",
			      q[i].pat, q[i].str);
		pf_regex_free(re);
	}
}
END_TEST

/* lvm2 2.03.16 also rewrites across patterns: "(ab)*c" next to "ad" loses its empty match. */
START_TEST(test_cross_pattern_rewrite)
{
	const char *pats[] = { "(ab)*c", "ad" };
	struct pf_regex *re = NULL;
	struct pf_diag d;

	ck_assert_int_eq(pf_regex_compile_set(pats, 2, &re, &d), 0);
	ck_assert_int_eq(pf_regex_match_which(re, "c"), -1);
	ck_assert_int_eq(pf_regex_match_which(re, "abc"), 0);
	ck_assert_int_eq(pf_regex_match_which(re, "ad"), 1);
	pf_regex_free(re);
	/* Alone, it is what it says. */
	ck_assert_int_eq(pf_regex_compile("(ab)*c", 6, &re, &d), 0);
	ck_assert(pf_regex_match(re, "c"));
	pf_regex_free(re);
}
END_TEST

/* The highest matching index wins, as dm_regex_match() reports it. */
START_TEST(test_highest_index)
{
	const char *pats[] = { "sd", "sda", "sda1", "nomatch" };
	struct pf_regex *re = NULL;
	struct pf_diag d;

	ck_assert_int_eq(pf_regex_compile_set(pats, 4, &re, &d), 0);
	ck_assert_int_eq(pf_regex_match_which(re, "/dev/sda1"), 2);
	ck_assert_int_eq(pf_regex_match_which(re, "/dev/sda"), 1);
	ck_assert_int_eq(pf_regex_match_which(re, "/dev/sdb"), 0);
	ck_assert_int_eq(pf_regex_match_which(re, "/dev/vda"), -1);
	pf_regex_free(re);
}
END_TEST

START_TEST(test_refusals)
{
	static const struct {
		const char *pat;
		const char *why;
	} bad[] = {
		{ "", "missing ')'" }, /* lvm2's words too: the pattern is wrapped in "(.*(...))" */
		{ "(a", "missing ')'" },
		{ "a|", "badly formed" },
		{ "a[bc", "unterminated '['" },
		{ "ab\\", "missing ')'" }, /* it escapes the wrapper's ')' */
		{ "*a", "missing ')'" },
		{ "a()b", "missing ')'" },
	};
	const char *pats[] = { "[a-", "b]" };
	struct pf_regex *re = NULL;
	struct pf_diag d;

	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		int r = pf_regex_compile(bad[i].pat, strlen(bad[i].pat), &re, &d);

		ck_assert_int_eq(r, -EINVAL);
		ck_assert_ptr_null(re);
		ck_assert_msg(strstr(d.msg, bad[i].why), "%s: %s", bad[i].pat, d.msg);
	}
	/* An embedded NUL would pose as lvm2's end-of-pattern mark. */
	ck_assert_int_eq(pf_regex_compile("a\0b", 3, &re, &d), -EINVAL);
	ck_assert(d.has_offset && d.offset == 1);
	ck_assert_int_eq(pf_regex_compile_set(pats, 0, &re, &d), -EINVAL);
	/*
	 * lvm2 accepts this pair, but the class swallows the end of one pattern and the start
	 * of the next, so lvm2 numbers its patterns wrongly (and its filter reads past its
	 * bitset). Refused here.
	 */
	ck_assert_int_eq(pf_regex_compile_set(pats, 2, &re, &d), -EINVAL);
	ck_assert(strstr(d.msg, "class runs into the next pattern"));
	ck_assert_ptr_null(pf_regex_free(NULL));
}
END_TEST

/* head, n copies of unit, tail, into buf. */
static size_t repeat(char *buf, size_t cap, const char *head, const char *unit, size_t n,
		     const char *tail)
{
	size_t o = (size_t)snprintf(buf, cap, "%s", head);

	for (size_t i = 0; i < n && o < cap; i++)
		o += (size_t)snprintf(buf + o, cap - o, "%s", unit);
	o += (size_t)snprintf(buf + o, cap - o, "%s", tail);
	ck_assert_uint_lt(o, cap);
	return o;
}

/*
 * Hostile patterns: each compiles and matches a long name, or is refused with -E2BIG; never a
 * crash (make check runs this under ASan and UBSan). One that blew up exponentially would hit
 * the case's time limit: no wall-clock bound here, a loaded machine is slow.
 */
START_TEST(test_hostile)
{
	static char pat[PF_REGEX_TEXT_MAX * 2], str[1024];
	static const struct {
		const char *head, *unit, *tail;
		size_t n;
		int r;
	} h[] = {
		{ "", "(", "a", 10000, -E2BIG },		   /* deep nesting */
		{ "", "(", "a", PF_REGEX_DEPTH_MAX - 3, -EINVAL }, /* deep but unbalanced */
		{ "", "a|", "a", 10000, 0 },			   /* 10k alternatives */
		{ "", "ab|", "ab", 5000, 0 },			   /* all rewritten into one */
		{ "", "(ab)*c|", "x", 3000, 0 },		   /* lvm2's faulty rewrite */
		{ "", "a?", "", 20000, 0 },			   /* many optional states */
		{ "", "(a*)*", "", 6000, 0 },			   /* empty loops */
		{ "", "[^b]*", "", 12000, 0 },
		{ "", "a", "", PF_REGEX_TEXT_MAX, -E2BIG },	   /* too long */
		{ "[", "a-z0-9", "]", 5000, 0 },		   /* huge class */
		{ "", "(x|y)a|(x|y)b|", "c", 2000, 0 },
	};

	memset(str, 'a', sizeof(str) - 1);
	for (size_t i = 0; i < ARRAY_SIZE(h); i++) {
		size_t len = repeat(pat, sizeof(pat), h[i].head, h[i].unit, h[i].n, h[i].tail);
		struct pf_regex *re = NULL;
		struct pf_diag d;
		int r = pf_regex_compile(pat, len, &re, &d);

		ck_assert_msg(r == h[i].r, "case %zu: r=%d (%s)", i, r, d.msg);
		if (re) {
			(void)pf_regex_match_which(re, str);
			(void)pf_regex_match_which(re, "/dev/disk/by-id/wwn-0x5000c500a1b2c3d4");
			pf_regex_free(re);
		}
	}
}
END_TEST

/*
 * No backtracking: a pattern that is exponential for backtracking matchers compiles to a few
 * states, and matching 4 KiB against it ends (a backtracking matcher would not, in any time
 * limit).
 */
START_TEST(test_no_backtracking)
{
	static char str[4096];
	const char *pat = "^(a|aa)*(a|aa)*(a|aa)*b$";
	struct pf_regex *re = NULL;
	struct pf_diag d;

	memset(str, 'a', sizeof(str) - 1);
	ck_assert_int_eq(pf_regex_compile(pat, strlen(pat), &re, &d), 0);
	ck_assert_uint_lt(pf_regex_state_count(re), 64);
	ck_assert(!pf_regex_match(re, str));
	str[sizeof(str) - 2] = 'b';
	ck_assert(pf_regex_match(re, str));
	pf_regex_free(re);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("regex");
	TCase *tc = pf_unit_tcase("regex");

	tcase_add_loop_test(tc, test_dm_regex_vectors, 0, (int)ARRAY_SIZE(vectors));
	tcase_add_test(tc, test_quirks);
	tcase_add_test(tc, test_cross_pattern_rewrite);
	tcase_add_test(tc, test_highest_index);
	tcase_add_test(tc, test_refusals);
	tcase_add_test(tc, test_hostile);
	tcase_add_test(tc, test_no_backtracking);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
