/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The /dev walk for aliases and lvm2's name preference, over fake sysfs and /dev trees. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "device/devnames.h"
#include "device/sysfs.h"
#include "fakesys.h"
#include "unit.h"

FAKESYS_FIXTURE

#define ck_assert_path(got, rel) ck_assert_devpath(&fs, got, rel)

/* lvm2's first name for the device. */
static const char *lvm_name(const struct pf_dev *d)
{
	const char *names[16];
	int n = pf_devnames_lvm_names(&fs.paths, d, names, ARRAY_SIZE(names));

	ck_assert_int_gt(n, 0);
	return names[0];
}

static void assert_aliases(const struct pf_dev *d, const char *const *want, size_t n)
{
	ck_assert_msg(d->n_aliases == n, "%s: %zu aliases", d->kname, d->n_aliases);
	for (size_t i = 0; i < n; i++)
		ck_assert_path(d->aliases[i], want[i]);
}

START_TEST(test_load_aliases)
{
	static const char *const loop0[] = { "block/7:0", "disk/by-id/lvm-pv-uuid-x", "zloop" };
	static const char *const dm0[] = { "dm-0", "vg1/lin" };
	static const char *const sr0[] = { "cdrom" };
	struct pf_dev_list l = { 0 };
	const struct pf_dev *d;

	fakesys_small_machine(&fs);
	fakesys_disk(&fs, "sr0", 11, 0, 8192);
	fakesys_write(&fs, "proc/devices", "Block devices:\n  7 loop\n 11 sr\n253 device-mapper\n");
	if (!fakesys_node(&fs, "loop0", 7, 0))
		return;
	ck_assert(fakesys_node(&fs, "dm-0", 253, 0));
	ck_assert(fakesys_node(&fs, "mapper/vg1-lin", 253, 0));
	ck_assert(fakesys_node(&fs, "sr0", 11, 0));
	ck_assert(fakesys_node(&fs, "zloop", 7, 0));
	/* a node for a device that is not in the list */
	ck_assert(fakesys_node(&fs, "loop7", 7, 7));
	fakesys_symlink(&fs, "dev/block/7:0", "../loop0");
	fakesys_symlink(&fs, "dev/disk/by-id/lvm-pv-uuid-x", "../../loop0");
	fakesys_symlink(&fs, "dev/vg1/lin", "../dm-0");
	fakesys_symlink(&fs, "dev/cdrom", "sr0");
	fakesys_symlink(&fs, "dev/.hidden", "loop0");
	fakesys_symlink(&fs, "dev/.udev/loop0", "../loop0");
	/* symlink loops, a dangling link, a link to a directory: none is followed */
	fakesys_symlink(&fs, "dev/x", "y");
	fakesys_symlink(&fs, "dev/y", "x");
	fakesys_symlink(&fs, "dev/dangling", "nothing");
	fakesys_symlink(&fs, "dev/dirlink", "disk");
	fakesys_symlink(&fs, "dev/selfdir", ".");
	fakesys_write(&fs, "dev/regular", "");
	/* deeper than the walk goes */
	fakesys_symlink(&fs, "dev/1/2/3/4/5/6/7/8/9/loop0", "../../../../../../../../../loop0");
	fakesys_symlink(&fs, "dev/1/2/3/4/5/6/7/8/loop0", "../../../../../../../../loop0");

	ck_assert_int_eq(pf_sysfs_enumerate(&fs.paths, &l), 0);
	ck_assert_int_eq(pf_devnames_load_aliases(&fs.paths, &l), 0);
	d = fakesys_find_dev(&l, "loop0");
	{
		static const char *const deep[] = { "1/2/3/4/5/6/7/8/loop0", "block/7:0",
						    "disk/by-id/lvm-pv-uuid-x", "zloop" };

		assert_aliases(d, deep, ARRAY_SIZE(deep));
	}
	ck_assert_path(lvm_name(d), "loop0");
	{
		/* lvm2's whole list: a preferred name goes first, any other name last */
		static const char *const want[] = { "loop0", "1/2/3/4/5/6/7/8/loop0", "block/7:0",
						    "disk/by-id/lvm-pv-uuid-x", "zloop" };
		const char *names[ARRAY_SIZE(want)];

		ck_assert_int_eq(pf_devnames_lvm_names(&fs.paths, d, names, ARRAY_SIZE(names) - 1),
				 -E2BIG);
		ck_assert_int_eq(pf_devnames_lvm_names(&fs.paths, d, names, ARRAY_SIZE(names)),
				 (int)ARRAY_SIZE(want));
		for (size_t i = 0; i < ARRAY_SIZE(want); i++)
			ck_assert_path(names[i], want[i]);
	}
	d = fakesys_find_dev(&l, "dm-0");
	assert_aliases(d, dm0, ARRAY_SIZE(dm0));
	/* lvm2 prefers any other name over /dev/mapper/, and that over /dev/dm-N */
	ck_assert_path(lvm_name(d), "vg1/lin");
	d = fakesys_find_dev(&l, "sr0");
	assert_aliases(d, sr0, ARRAY_SIZE(sr0));
	/* same depth: a symlink beats the plain node */
	ck_assert_path(lvm_name(d), "cdrom");
	d = fakesys_find_dev(&l, "sda");
	assert_aliases(d, NULL, 0);
	ck_assert_path(lvm_name(d), "sda");

	/* a second load replaces the first */
	fakesys_unlink(&fs, "dev/1/2/3/4/5/6/7/8/loop0");
	ck_assert_int_eq(pf_devnames_load_aliases(&fs.paths, &l), 0);
	assert_aliases(fakesys_find_dev(&l, "loop0"), loop0, ARRAY_SIZE(loop0));
	pf_dev_list_release(&l);
}
END_TEST

START_TEST(test_load_aliases_failure_untouched)
{
	struct pf_dev_list l = { 0 };
	char *p;

	fakesys_small_machine(&fs);
	ck_assert_int_eq(pf_sysfs_enumerate(&fs.paths, &l), 0);
	p = fakesys_path(&fs, "dev");
	ck_assert_int_eq(rmdir(p), 0);
	free(p);
	ck_assert_int_eq(pf_devnames_load_aliases(&fs.paths, &l), -ENOENT);
	for (size_t i = 0; i < l.n; i++)
		ck_assert_ptr_null(l.devs[i].aliases);
	fakesys_write(&fs, "dev", "");
	ck_assert_int_eq(pf_devnames_load_aliases(&fs.paths, &l), -ENOTDIR);
	pf_dev_list_release(&l);

	/* an empty list is fine */
	fakesys_unlink(&fs, "dev");
	fakesys_mkdir(&fs, "dev");
	ck_assert_int_eq(pf_devnames_load_aliases(&fs.paths, &l), 0);
}
END_TEST

START_TEST(test_lvm_name_rules)
{
	static const struct {
		const char *path;
		const char *alias;
		const char *want;
	} cases[] = {
		{ "mapper/mpatha", "dm-3", "mapper/mpatha" },
		{ "mapper/mpatha", "disk/by-id/dm-name-mpatha", "mapper/mpatha" },
		{ "dm-3", "block/253:3", "dm-3" },
		{ "md0", "md/home", "md0" },	     /* fewer slashes */
		{ "sdb", "sda", "sda" },	     /* byte order, both plain */
		{ "mapper/vg-lv", "vg/lv", "vg/lv" }, /* "anything else" over mapper */
	};
	struct pf_dev d = { 0 };
	const char *two[2];
	char *path, *alias;

	/* the symlink rule lstat()s the names: plain files will do for plain nodes */
	fakesys_write(&fs, "dev/sda", "");
	fakesys_write(&fs, "dev/sdb", "");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		path = fakesys_devpath(&fs, cases[i].path);
		alias = fakesys_devpath(&fs, cases[i].alias);
		d.path = path;
		d.aliases = &alias;
		d.n_aliases = 1;
		ck_assert_path(lvm_name(&d), cases[i].want);
		free(path);
		free(alias);
	}
	/* a name given from outside the tree is met last, and fewer slashes win */
	alias = fakesys_devpath(&fs, "sub/loop9");
	d.path = (char *)"/elsewhere";
	d.aliases = &alias;
	d.n_aliases = 1;
	ck_assert_int_eq(pf_devnames_lvm_names(&fs.paths, &d, two, 2), 2);
	ck_assert_str_eq(two[0], "/elsewhere");
	ck_assert_str_eq(two[1], alias);
	d.path = (char *)"/else/where/deep/deeper/still/x";
	ck_assert_int_eq(pf_devnames_lvm_names(&fs.paths, &d, two, 2), 2);
	ck_assert_str_eq(two[0], alias);
	free(alias);
	d.path = NULL;
	d.n_aliases = 0;
	ck_assert_int_eq(pf_devnames_lvm_names(&fs.paths, &d, two, 1), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("devnames");
	TCase *tc = pf_unit_tcase("devnames");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_load_aliases);
	tcase_add_test(tc, test_load_aliases_failure_untouched);
	tcase_add_test(tc, test_lvm_name_rules);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
