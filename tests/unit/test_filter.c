/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's regex device filter: entry syntax, first-match order, devices with several names. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "device/blockdev.h"
#include "device/filter.h"
#include "unit.h"

static struct pf_filter *compile(const char *const *e, size_t n)
{
	struct pf_filter *f = NULL;
	struct pf_diag d;

	ck_assert_msg(pf_filter_compile(e, n, &f, &d) == 0, "%s", d.msg);
	return f;
}

#define COMPILE(...)                                                                               \
	({                                                                                         \
		static const char *const e_[] = { __VA_ARGS__ };                                   \
		compile(e_, ARRAY_SIZE(e_));                                                       \
	})

/* Every delimiter form lvm2 knows; the regex may contain the delimiter itself. */
START_TEST(test_entry_syntax)
{
	static const struct {
		const char *entry, *name;
		enum pf_filter_verdict v;
	} t[] = {
		{ "a|loop|", "/dev/loop1", PF_FILTER_ACCEPTED },
		{ "r/loop/", "/dev/loop1", PF_FILTER_REJECTED },
		{ "a(loop)", "/dev/loop1", PF_FILTER_ACCEPTED },
		{ "a[loop]", "/dev/loop1", PF_FILTER_ACCEPTED },
		{ "a{loop}", "/dev/loop1", PF_FILTER_ACCEPTED },
		{ "a#loop#", "/dev/loop1", PF_FILTER_ACCEPTED },
		{ "r|sda|sdb|", "/dev/sdb", PF_FILTER_REJECTED }, /* regex "sda|sdb" */
		{ "r(sd(a|b))", "/dev/sdb", PF_FILTER_REJECTED },
		{ "a|sda|", "/dev/sdb", PF_FILTER_NO_MATCH },
		{ "r|^/dev/sd[a-z]$|", "/dev/sda1", PF_FILTER_NO_MATCH },
		{ "r|a.|", "/dev/mapper/vga", PF_FILTER_REJECTED }, /* '.' matches the end */
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct pf_filter *f = compile(&t[i].entry, 1);

		ck_assert_msg(pf_filter_check(f, &t[i].name, 1, NULL) == t[i].v, "%s on %s",
			      t[i].entry, t[i].name);
		pf_filter_free(f);
	}
}
END_TEST

/* Bad entries are refused with their index; lvm2 refuses them too (or reads out of bounds). */
START_TEST(test_bad_entries)
{
	static const struct {
		const char *entries[3];
		size_t n;
		const char *msg;
	} t[] = {
		{ { "x|loop|" }, 1, "[0] \"x|loop|\": must begin with 'a' or 'r'" },
		{ { "A|loop|" }, 1, "must begin with 'a' or 'r'" },
		{ { "a" }, 1, "[0] \"a\": missing delimiter" },
		{ { "a|" }, 1, "does not end with its closing delimiter" },
		{ { "a|loop" }, 1, "does not end with its closing delimiter" },
		{ { "a(loop(" }, 1, "does not end with its closing delimiter" },
		{ { "a|.*|", "r|loop|", "a[x)" }, 3, "[2] \"a[x)\":" },
		{ { "a||" }, 1, "[0] \"a||\": bad regex" },
		{ { "a|ok|", "r|(|" }, 2, "[1] \"r|(|\": bad regex: missing ')'" },
		{ { "a|ok|", "a|[x|", "r|x]|" }, 3, "[1] \"a|[x|\": bad regex" },
		{ { "" }, 1, "must begin with 'a' or 'r'" },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct pf_filter *f = NULL;
		struct pf_diag d;

		ck_assert_int_eq(pf_filter_compile(t[i].entries, t[i].n, &f, &d), -EINVAL);
		ck_assert_ptr_null(f);
		ck_assert_msg(strstr(d.msg, t[i].msg), "case %zu: %s", i, d.msg);
	}
	{
		static const char *many[PF_FILTER_ENTRIES_MAX + 1];
		struct pf_filter *f = NULL;

		ck_assert_int_eq(pf_filter_compile(many, 0, &f, NULL), -EINVAL);
		for (size_t i = 0; i < ARRAY_SIZE(many); i++)
			many[i] = "a|x|";
		ck_assert_int_eq(pf_filter_compile(many, ARRAY_SIZE(many), &f, NULL), -E2BIG);
		ck_assert_int_eq(pf_filter_compile(many, PF_FILTER_ENTRIES_MAX, &f, NULL), 0);
		pf_filter_free(f);
	}
}
END_TEST

/* Per name, the first entry that matches decides; later entries do not count. */
START_TEST(test_first_match)
{
	struct pf_filter *f = COMPILE("r|loop5|", "a|loop|", "r|.*|");
	const char *n5 = "/dev/loop5", *n6 = "/dev/loop6", *sda = "/dev/sda";

	ck_assert_int_eq(pf_filter_check(f, &n5, 1, NULL), PF_FILTER_REJECTED);
	ck_assert_int_eq(pf_filter_check(f, &n6, 1, NULL), PF_FILTER_ACCEPTED);
	ck_assert_int_eq(pf_filter_check(f, &sda, 1, NULL), PF_FILTER_REJECTED);
	pf_filter_free(f);
	f = COMPILE("a|loop|", "r|loop5|");
	ck_assert_int_eq(pf_filter_check(f, &n5, 1, NULL), PF_FILTER_ACCEPTED);
	ck_assert_int_eq(pf_filter_check(f, &sda, 1, NULL), PF_FILTER_NO_MATCH);
	ck_assert(pf_filter_verdict_passes(PF_FILTER_NO_MATCH));
	ck_assert(!pf_filter_verdict_passes(PF_FILTER_REJECTED));
	pf_filter_free(f);
}
END_TEST

/* An accept on any name accepts; a reject on one name only counts when none accepts. */
START_TEST(test_many_names)
{
	const char *names[] = { "/dev/sda", "/dev/disk/by-id/wwn-0x5000c5",
				"/dev/disk/by-path/pci-1" };
	struct pf_filter *f;
	size_t which = 99;

	f = COMPILE("a|wwn-|", "r|.*|");
	ck_assert_int_eq(pf_filter_check(f, names, 3, &which), PF_FILTER_ACCEPTED);
	ck_assert_uint_eq(which, 1);
	pf_filter_free(f);

	f = COMPILE("r|^/dev/sda$|");
	which = 99;
	ck_assert_int_eq(pf_filter_check(f, names, 3, &which), PF_FILTER_REJECTED);
	ck_assert_uint_eq(which, 0);
	pf_filter_free(f);

	f = COMPILE("r|by-path|", "a|sda|");
	ck_assert_int_eq(pf_filter_check(f, names, 3, &which), PF_FILTER_ACCEPTED);
	ck_assert_uint_eq(which, 0);
	pf_filter_free(f);

	f = COMPILE("r|by-path|", "r|wwn|");
	ck_assert_int_eq(pf_filter_check(f, names, 3, &which), PF_FILTER_REJECTED);
	ck_assert_uint_eq(which, 1);
	pf_filter_free(f);

	f = COMPILE("a|nvme|", "r|nvme|");
	which = 99;
	ck_assert_int_eq(pf_filter_check(f, names, 3, &which), PF_FILTER_NO_MATCH);
	ck_assert_uint_eq(which, 99);
	ck_assert_int_eq(pf_filter_check(f, names, 0, &which), PF_FILTER_NO_MATCH);
	pf_filter_free(f);
}
END_TEST

/*
 * global_filter then filter, and the name lvm2 ends up preferring. Each case was checked
 * with lvm2 2.03.16 (pvs -o pv_name) on loop devices with these symlinks in a private
 * devices/dir: lvm2 names an accepted device by the alias that was accepted.
 */
START_TEST(test_filters_check_dev)
{
	static char p212[] = "/d/loop212", p213[] = "/d/loop213", p214[] = "/d/loop214";
	static char a212[] = "/d/disk/by-id/wwn-0xaaa", a213[] = "/d/disk/by-id/lvm-pv-uuid-bbb",
		    a214[] = "/d/mapper/fake";
	static char *al212[] = { a212 }, *al213[] = { a213 }, *al214[] = { a214 };
	const struct pf_dev devs[] = {
		{ .path = p212, .aliases = al212, .n_aliases = 1 },
		{ .path = p213, .aliases = al213, .n_aliases = 1 },
		{ .path = p214, .aliases = al214, .n_aliases = 1 },
	};
	static const struct {
		const char *g[3], *f[3];
		const char *want[3]; /* preferred name of each device, NULL: filtered */
	} t[] = {
		{ { NULL }, { "a|wwn-|", "r|.*|" }, { "/d/disk/by-id/wwn-0xaaa", NULL, NULL } },
		{ { NULL }, { "r|loop212|", "a|.*|" },
		  { "/d/disk/by-id/wwn-0xaaa", "/d/loop213", "/d/loop214" } },
		{ { NULL }, { "r|loop21[23]|", "a|lvm-pv-uuid|" },
		  { NULL, "/d/disk/by-id/lvm-pv-uuid-bbb", "/d/loop214" } },
		{ { "a|mapper|", "r|.*|" }, { NULL }, { NULL, NULL, "/d/mapper/fake" } },
		{ { "a|by-id|", "r|.*|" },
		  { "a|loop21[34]|", "r|.*|" },
		  { NULL, "/d/loop213", NULL } },
		{ { "a|loop|" }, { "r|wwn|" }, { NULL, "/d/loop213", "/d/loop214" } },
		/* global accepts by the alias, then filter accepts by the path: the path wins */
		{ { "a|bbb|", "r|.|" }, { "a|loop213|", "r|.*|" }, { NULL, "/d/loop213", NULL } },
		{ { NULL }, { "a|wwn|", "a|bbb|", "r|.|" },
		  { "/d/disk/by-id/wwn-0xaaa", "/d/disk/by-id/lvm-pv-uuid-bbb", NULL } },
		{ { NULL }, { "r|a.|" }, { NULL, "/d/loop213", NULL } },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct pf_filter *g = NULL, *f = NULL;
		size_t ng = 0, nf = 0;

		while (ng < 3 && t[i].g[ng])
			ng++;
		while (nf < 3 && t[i].f[nf])
			nf++;
		if (ng)
			g = compile(t[i].g, ng);
		if (nf)
			f = compile(t[i].f, nf);
		for (size_t k = 0; k < ARRAY_SIZE(devs); k++) {
			const char *names[2];
			bool pass;

			ck_assert_int_eq(pf_filters_check_dev(g, f, &devs[k], names, 2, &pass), 0);
			ck_assert_msg(pass == !!t[i].want[k], "case %zu dev %zu", i, k);
			if (pass)
				ck_assert_str_eq(names[0], t[i].want[k]);
		}
		pf_filter_free(g);
		pf_filter_free(f);
	}
}
END_TEST

START_TEST(test_check_dev_edges)
{
	static char sdb[] = "/dev/sdb", sdc[] = "/dev/sdc", a[] = "/dev/disk/by-id/a",
		    b[] = "/dev/disk/by-id/b", c[] = "/dev/disk/by-id/c";
	static char *al[] = { a, b, c };
	struct pf_dev plain = { .path = sdb };
	struct pf_dev three = { .path = sdc, .aliases = al, .n_aliases = 3 };
	struct pf_filter *f = COMPILE("a|by-id/c|", "r|.*|");
	const char *names[4];
	bool pass = false;

	/* No aliases at all, and no filters: everything passes. */
	ck_assert_int_eq(pf_filters_check_dev(NULL, NULL, &plain, names, 1, &pass), 0);
	ck_assert(pass);
	ck_assert_str_eq(names[0], "/dev/sdb");
	ck_assert_int_eq(pf_filters_check_dev(NULL, f, &three, names, 3, &pass), -E2BIG);
	ck_assert_int_eq(pf_filters_check_dev(NULL, f, &three, names, 4, &pass), 0);
	ck_assert(pass);
	/* lvm2 moves the accepted alias to the front and keeps the others in order. */
	ck_assert_str_eq(names[0], "/dev/disk/by-id/c");
	ck_assert_str_eq(names[1], "/dev/sdc");
	ck_assert_str_eq(names[2], "/dev/disk/by-id/a");
	ck_assert_str_eq(names[3], "/dev/disk/by-id/b");
	pf_filter_free(f);
}
END_TEST

/* lvm2 2.03.16's event pvscan scans /dev for aliases only for these accept entries. */
START_TEST(test_uses_symlinks)
{
	static const struct {
		const char *entry;
		bool uses;
	} t[] = {
		{ "a|/dev/disk/by-id/.*|", true },  { "a|^/dev/mapper/vg-|", true },
		{ "a|lvm-pv-uuid-.*|", true },	    { "a|dm-uuid-|", true },
		{ "a|wwn-0x5000|", true },	    { "r|/dev/disk/by-id/.*|", false },
		{ "a|^/dev/sd[a-z]$|", false },	    { "a|/dev/disk|", false },
		{ "a(/dev/disk/)", true },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct pf_filter *f = compile(&t[i].entry, 1);

		ck_assert_msg(pf_filter_uses_symlinks(f) == t[i].uses, "%s", t[i].entry);
		pf_filter_free(f);
	}
	ck_assert_ptr_null(pf_filter_free(NULL));
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("filter");
	TCase *tc = pf_unit_tcase("filter");

	tcase_add_test(tc, test_entry_syntax);
	tcase_add_test(tc, test_bad_entries);
	tcase_add_test(tc, test_first_match);
	tcase_add_test(tc, test_many_names);
	tcase_add_test(tc, test_filters_check_dev);
	tcase_add_test(tc, test_check_dev_edges);
	tcase_add_test(tc, test_uses_symlinks);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
