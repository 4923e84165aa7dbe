/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's multipath component check: wwids file, multipath.conf blacklist, dm holders. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/blockdev.h"
#include "device/multipath.h"
#include "device/sysfs.h"
#include "fakesys.h"
#include "unit.h"

#define MIB_SECTORS 2048ull

FAKESYS_FIXTURE

/* SCSI and NVMe disks (and their partitions) under a multipath map; nothing else. */
START_TEST(test_holders)
{
	static const struct {
		const char *kname;
		int want;
	} cases[] = {
		{ "sde", 1 },
		{ "sde1", 1 },
		{ "nvme0n1", 1 },
		{ "sdf", 0 },	/* held by an LV, not a multipath map */
		{ "loop3", 0 }, /* not SCSI or NVMe: lvm2 does not look */
		{ "sdg", 0 },	/* a wwid, but no wwids file here */
	};
	struct pf_strv none = { 0 };

	fakesys_disk(&fs, "dm-0", 253, 0, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "dm-0", "dm/uuid", "LVM-abc\n");
	fakesys_disk(&fs, "dm-5", 253, 5, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "dm-5", "dm/uuid", "mpath-3600140512345678\n");
	fakesys_mpath_disks(&fs);
	fakesys_disk(&fs, "sdg", 8, 96, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "sdg", "device/wwid", "naa.600a0b80001111\n");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct pf_dev d;

		ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, cases[i].kname, &d), 0);
		ck_assert_msg(pf_multipath_is_component(&none, &fs.paths, &d) == cases[i].want,
			      "%s", cases[i].kname);
		pf_dev_release(&d);
	}
}
END_TEST

/* The wwids file less multipath.conf's blacklist, plus conf.d's exceptions; sorted, unique. */
START_TEST(test_load_wwids)
{
	char *wwids = fakesys_path(&fs, "etc/multipath/wwids");
	char *conf = fakesys_path(&fs, "etc/multipath.conf");
	char *confd = fakesys_path(&fs, "etc/multipath/conf.d");
	struct pf_strv set = { 0 };

	fakesys_write(&fs, "etc/multipath/wwids", "# Multipath wwids, Version : 1.0\n"
						  "/3600a0b80003333/\n"
						  "/3600a0b80001111/\n"
						  "/3600a0b80002222/\n"
						  "/3600a0b80001111/\n");
	fakesys_write(&fs, "etc/multipath.conf", "blacklist {\n"
						 "\twwid \"3600a0b80002222\"\n"
						 "\twwid 3600a0b80003333\n"
						 "}\n");
	fakesys_write(&fs, "etc/multipath/conf.d/local.conf",
		      "blacklist_exceptions {\n\twwid \"3600a0b80003333\"\n}\n");
	ck_assert_int_eq(pf_multipath_load_wwids(wwids, conf, confd, &set), 0);
	ck_assert_uint_eq(set.n, 2);
	ck_assert_str_eq(set.v[0], "600a0b80001111");
	ck_assert_str_eq(set.v[1], "600a0b80003333");
	pf_strv_release(&set);
	ck_assert_int_eq(pf_multipath_load_wwids(wwids, NULL, NULL, &set), 0);
	ck_assert_uint_eq(set.n, 3);
	pf_strv_release(&set);
	free(wwids);
	free(conf);
	free(confd);
}
END_TEST

/* wwids file lines and what a device wwid must be to match them. */
START_TEST(test_wwids_file)
{
	static const struct {
		const char *file;
		const char *dev_wwid; /* device/wwid */
		bool match;
	} cases[] = {
		{ "/3600a0b80001111/\n", "naa.600a0b80001111", true },
		{ "/3600a0b80001111/\n", "naa.600a0b8000111", false },
		{ "/3600a0b80001111/\n", "600a0b80001111", false }, /* no "<type>." */
		{ "/3600a0b80001111/", "t10.600a0b80001111", true },
		{ "3600a0b80001111/\n", "naa.600a0b80001111", true },	    /* no leading '/' */
		{ "/x600a0b80001111/\n", "naa.600a0b80001111", true },     /* any first char */
		{ "/3600a0b80001111\n", "naa.600a0b80001111", false },     /* newline kept */
		{ "#/3600a0b80001111/\n", "naa.600a0b80001111", false },
		{ " /3600a0b80001111/\n", "naa.600a0b80001111", false },
		{ "/3abc/def/\n/3600a0b80001111/\n", "eui.abc", true },
		{ "/3/\n", "naa.", true }, /* lvm2 keeps an empty entry */
		{ "", "naa.600a0b80001111", false },
		{ "/", "naa.", false },
	};

	fakesys_disk(&fs, "sda", 8, 0, 8 * MIB_SECTORS);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *wwids = fakesys_path(&fs, "etc/wwids"), *val;
		struct pf_strv set = { 0 };
		struct pf_dev d;
		int v;

		fakesys_write(&fs, "etc/wwids", cases[i].file);
		ck_assert_int_ge(asprintf(&val, "%s\n", cases[i].dev_wwid), 0);
		fakesys_attr(&fs, "sda", "device/wwid", val);
		free(val);
		ck_assert_int_eq(pf_multipath_load_wwids(wwids, NULL, NULL, &set), 0);
		ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "sda", &d), 0);
		v = pf_multipath_is_component(&set, &fs.paths, &d);
		ck_assert_msg(v == cases[i].match, "case %zu: %d", i, v);
		pf_dev_release(&d);
		pf_strv_release(&set);
		free(wwids);
	}
}
END_TEST

/* A wwids line longer than lvm2's 511-byte fgets() buffer arrives in pieces; each is an entry. */
START_TEST(test_wwids_long_line)
{
	char *line = malloc(1200);
	struct pf_strv set = { 0 };
	struct pf_dev d;
	char *wwids = fakesys_path(&fs, "etc/wwids");

	ck_assert_ptr_nonnull(line);
	memset(line, 'a', 1199);
	/* the second piece starts at byte 511: "/" + "3" + wanted wwid + "/" */
	memcpy(line + 511, "/3600a0b8000ffff/\n", 18);
	line[529] = '\0';
	fakesys_write(&fs, "etc/wwids", line);
	free(line);
	fakesys_disk(&fs, "sda", 8, 0, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "sda", "device/wwid", "naa.600a0b8000ffff\n");
	ck_assert_int_eq(pf_multipath_load_wwids(wwids, NULL, NULL, &set), 0);
	ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "sda", &d), 0);
	ck_assert_int_eq(pf_multipath_is_component(&set, &fs.paths, &d), 1);
	pf_dev_release(&d);
	pf_strv_release(&set);
	free(wwids);
}
END_TEST

START_TEST(test_wwids_file_unusable)
{
	struct pf_strv set = { 0 };
	char *big, *path = fakesys_path(&fs, "etc/wwids");
	size_t n = PF_MULTIPATH_FILE_MAX + 1;

	fakesys_write(&fs, "etc/rel", "/3600a0b80001111/\n");
	/* missing, relative (lvm2 ignores it), disabled, none: all an empty set */
	ck_assert_int_eq(pf_multipath_load_wwids(path, NULL, NULL, &set), 0);
	ck_assert_uint_eq(set.n, 0);
	ck_assert_int_eq(pf_multipath_load_wwids("etc/rel", NULL, NULL, &set), 0);
	ck_assert_uint_eq(set.n, 0);
	ck_assert_int_eq(pf_multipath_load_wwids("", NULL, NULL, &set), 0);
	ck_assert_uint_eq(set.n, 0);
	ck_assert_int_eq(pf_multipath_load_wwids(NULL, NULL, NULL, &set), 0);
	ck_assert_uint_eq(set.n, 0);
	/* a directory reads as nothing */
	fakesys_mkdir(&fs, "etc/wwids");
	ck_assert_int_eq(pf_multipath_load_wwids(path, NULL, NULL, &set), 0);
	ck_assert_uint_eq(set.n, 0);
	/* over the cap: refused */
	big = malloc(n + 1);
	ck_assert_ptr_nonnull(big);
	memset(big, '#', n);
	big[n] = '\0';
	fakesys_write(&fs, "etc/big", big);
	free(big);
	free(path);
	path = fakesys_path(&fs, "etc/big");
	ck_assert_int_eq(pf_multipath_load_wwids(path, NULL, NULL, &set), -E2BIG);
	ck_assert_ptr_null(set.v);
	free(path);
}
END_TEST

/* multipath.conf blacklist lines, read as loosely as lvm2 reads them. */
START_TEST(test_blacklist_parsing)
{
	static const struct {
		const char *conf;
		bool blacklisted;
	} cases[] = {
		{ "blacklist {\n wwid \"3600a0b80001111\"\n}\n", true },
		{ "blacklist {\nwwid 3600a0b80001111\n}\n", true },
		{ "blacklist{\n\twwid\t\"3600a0b80001111\"\n}\n", true },
		{ "blacklist {\n wwid \"600a0b80001111\"\n}\n", true }, /* no '3' to drop */
		{ "blacklist {\n wwid \"600a0b80031111\"\n}\n", false }, /* drops a later '3' */
		{ "blacklist {\n wwid \"3600a0b8\"\n}\n", false },	   /* 7 chars left: too short */
		{ "blacklist {\n wwid \"36600a0b80001111\"\n}\n", false },
		{ "blacklist {\n# wwid \"3600a0b80001111\"\n}\n", false },
		{ "blacklist {\n}\n wwid \"3600a0b80001111\"\n", false },
		{ "devices {\n wwid \"3600a0b80001111\"\n}\n", false },
		/* a nested section keeps the blacklist open; its '}' closes it */
		{ "blacklist {\n device {\n vendor x\n }\n wwid \"3600a0b80001111\"\n}\n", false },
		{ "blacklist {\n device {\n wwid \"3600a0b80001111\"\n }\n}\n", true },
		/* an exception wins over the blacklist */
		{ "blacklist {\n wwid 3600a0b80001111\n}\nblacklist_exceptions {\n"
		  " wwid \"3600a0b80001111\"\n}\n",
		  false },
		{ "blacklist_exceptions {\n wwid \"3600a0b80001111\"\n}\n", false },
		{ "blacklist {\n  wwid \"3600a0b80001111\" # comment\n}\n", true },
		{ "blacklist {\n wwid\n}\n", false },
		{ "", false },
	};

	fakesys_disk(&fs, "sda", 8, 0, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "sda", "device/wwid", "naa.600a0b80001111\n");
	fakesys_write(&fs, "etc/wwids", "/3600a0b80001111/\n");
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *wwids = fakesys_path(&fs, "etc/wwids");
		char *conf = fakesys_path(&fs, "etc/multipath.conf");
		char *confd = fakesys_path(&fs, "etc/none.d");
		struct pf_strv set = { 0 };
		struct pf_dev d;
		int v;

		fakesys_write(&fs, "etc/multipath.conf", cases[i].conf);
		ck_assert_int_eq(pf_multipath_load_wwids(wwids, conf, confd, &set), 0);
		ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "sda", &d), 0);
		v = pf_multipath_is_component(&set, &fs.paths, &d);
		ck_assert_msg(v == !cases[i].blacklisted, "case %zu: %d", i, v);
		pf_dev_release(&d);
		pf_strv_release(&set);
		free(wwids);
		free(conf);
		free(confd);
	}
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("multipath");
	TCase *tc = pf_unit_tcase("multipath");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_holders);
	tcase_add_test(tc, test_load_wwids);
	tcase_add_test(tc, test_wwids_file);
	tcase_add_test(tc, test_wwids_long_line);
	tcase_add_test(tc, test_wwids_file_unusable);
	tcase_add_test(tc, test_blacklist_parsing);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
