/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udev's database entries: the verdict of each, an entry missing, udev running or not. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "device/udevdb.h"
#include "unit.h"

static char dir[] = "/tmp/pf-udevdb-XXXXXX";

static void put(const char *rel, const char *text)
{
	char path[256];
	FILE *f;

	(void)snprintf(path, sizeof(path), "%s/%s", dir, rel);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(text, f), 0);
	ck_assert_int_eq(fclose(f), 0);
}

static void setup(void)
{
	char data[sizeof(dir) + 8];

	ck_assert_ptr_nonnull(mkdtemp(dir));
	(void)snprintf(data, sizeof(data), "%s/data", dir);
	ck_assert_int_eq(mkdir(data, 0755), 0);
}

static void teardown(void)
{
	char cmd[sizeof(dir) + 16];

	(void)snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	ck_assert_int_eq(system(cmd), 0);
	memcpy(dir + strlen(dir) - 6, "XXXXXX", 6);
}

#define PARSE(s) pf_udevdb_parse(s, strlen(s))

START_TEST(test_parse)
{
	ck_assert_int_eq(PARSE(""), PF_UDEVDB_USE);
	ck_assert_int_eq(PARSE("S:disk/by-id/x\nI:123\nE:ID_FS_TYPE=LVM2_member\nG:systemd\n"),
			 PF_UDEVDB_USE);
	ck_assert_int_eq(PARSE("E:ID_FS_TYPE=LVM2_member\nE:DM_MULTIPATH_DEVICE_PATH=1\n"),
			 PF_UDEVDB_MPATH_PATH);
	/* the last line needs no newline */
	ck_assert_int_eq(PARSE("E:DM_MULTIPATH_DEVICE_PATH=1"), PF_UDEVDB_MPATH_PATH);
	ck_assert_int_eq(PARSE("E:DM_UDEV_DISABLE_OTHER_RULES_FLAG=1\n"), PF_UDEVDB_DM_PRIVATE);
	/* a multipath path outranks the flag, whatever the order */
	ck_assert_int_eq(PARSE("E:DM_UDEV_DISABLE_OTHER_RULES_FLAG=1\nE:DM_MULTIPATH_DEVICE_PATH=1"),
			 PF_UDEVDB_MPATH_PATH);
	/* only exactly "=1" counts, only as a property, never a prefix of another key */
	ck_assert_int_eq(PARSE("E:DM_MULTIPATH_DEVICE_PATH=0\n"), PF_UDEVDB_USE);
	ck_assert_int_eq(PARSE("E:DM_MULTIPATH_DEVICE_PATH=10\n"), PF_UDEVDB_USE);
	ck_assert_int_eq(PARSE("S:DM_MULTIPATH_DEVICE_PATH=1\n"), PF_UDEVDB_USE);
	ck_assert_int_eq(PARSE("E:DM_MULTIPATH_DEVICE_PATH_X=1\n"), PF_UDEVDB_USE);
	ck_assert_int_eq(PARSE("E:XDM_MULTIPATH_DEVICE_PATH=1\n"), PF_UDEVDB_USE);
	/* an embedded NUL or a torn line hides nothing that follows */
	ck_assert_int_eq(pf_udevdb_parse("E:A=1\0\nE:DM_MULTIPATH_DEVICE_PATH=1\n", 37),
			 PF_UDEVDB_MPATH_PATH);
	/* blkid's signature other than a PV's: an md member (its superblock at the end), LUKS */
	ck_assert_int_eq(PARSE("E:ID_FS_TYPE=linux_raid_member\nE:ID_FS_VERSION=1.0\n"),
			 PF_UDEVDB_NOT_PV);
	ck_assert_int_eq(PARSE("E:ID_FS_TYPE=crypto_LUKS"), PF_UDEVDB_NOT_PV);
	/* exactly LVM2_member is a PV's; no value, or no ID_FS_TYPE, is no verdict */
	ck_assert_int_eq(PARSE("E:ID_FS_TYPE=LVM2_member_x\n"), PF_UDEVDB_NOT_PV);
	ck_assert_int_eq(PARSE("E:ID_FS_TYPE=LVM2_membe\n"), PF_UDEVDB_NOT_PV);
	ck_assert_int_eq(PARSE("E:ID_FS_TYPE=\n"), PF_UDEVDB_USE);
	ck_assert_int_eq(PARSE("E:ID_FS_TYPEX=ext4\nE:ID_FS_UUID=x\n"), PF_UDEVDB_USE);
	/* multipath's rule sets mpath_member on its paths: the path verdict wins, in any order */
	ck_assert_int_eq(PARSE("E:ID_FS_TYPE=mpath_member\nE:DM_MULTIPATH_DEVICE_PATH=1\n"),
			 PF_UDEVDB_MPATH_PATH);
	ck_assert_int_eq(PARSE("E:ID_FS_TYPE=ext4\nE:DM_UDEV_DISABLE_OTHER_RULES_FLAG=1\n"),
			 PF_UDEVDB_DM_PRIVATE);
	ck_assert_str_eq(pf_udevdb_reason(PF_UDEVDB_NOT_PV),
			 "udev found another signature than a PV's on it");
}
END_TEST

START_TEST(test_entries)
{
	enum pf_udevdb_verdict v;

	ck_assert(!pf_udevdb_running(dir));
	put("control", "");
	ck_assert(pf_udevdb_running(dir));
	put("data/b8:16", "E:DM_MULTIPATH_DEVICE_PATH=1\n");
	put("data/b8:0", "E:ID_FS_TYPE=LVM2_member\n");
	ck_assert_int_eq(pf_udevdb_verdict(dir, 8, 16, &v), 0);
	ck_assert_int_eq(v, PF_UDEVDB_MPATH_PATH);
	ck_assert_int_eq(pf_udevdb_verdict(dir, 8, 0, &v), 0);
	ck_assert_int_eq(v, PF_UDEVDB_USE);
	ck_assert_int_eq(pf_udevdb_verdict(dir, 8, 32, &v), 0);
	ck_assert_int_eq(v, PF_UDEVDB_UNPROCESSED);
	ck_assert_str_ne(pf_udevdb_reason(PF_UDEVDB_UNPROCESSED), "");
	ck_assert_str_eq(pf_udevdb_reason(PF_UDEVDB_USE), "");
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("udevdb");
	TCase *tc = pf_unit_tcase("udevdb");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_parse);
	tcase_add_test(tc, test_entries);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
