/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's device types and device filters, over fake sysfs trees and built first sectors. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/span.h"
#include "device/blockdev.h"
#include "device/devtypes.h"
#include "device/multipath.h"
#include "device/sysfs.h"
#include "format/headsig.h"
#include "fakesys.h"
#include "heads.h"
#include "unit.h"

#define MIB_SECTORS 2048ull

FAKESYS_FIXTURE

static const struct pf_devfilter_cfg default_cfg = {
	.multipath_component_detection = true,
	.md_component_detection = true,
	.pv_min_size_bytes = PF_DEVTYPES_PV_MIN_SIZE_DEFAULT_BYTES,
};

START_TEST(test_reasons)
{
	/* lvm2 2.03.16's dev_filtered_reason() texts, as pvscan prints them after "excluded: " */
	ck_assert_str_eq(pf_devtypes_reason(PF_DEVFILTER_TYPE_UNKNOWN), "device type is unknown");
	ck_assert_str_eq(pf_devtypes_reason(PF_DEVFILTER_TOO_SMALL),
			 "device is too small (pv_min_size)");
	ck_assert_str_eq(pf_devtypes_reason(PF_DEVFILTER_UNUSABLE),
			 "device is not in a usable state");
	ck_assert_str_eq(pf_devtypes_reason(PF_DEVFILTER_IS_LV), "device is an LV");
	ck_assert_str_eq(pf_devtypes_reason(PF_DEVFILTER_MPATH_COMPONENT),
			 "device is a multipath component");
	ck_assert_str_eq(pf_devtypes_reason(PF_DEVFILTER_MD_COMPONENT), "device is an md component");
	ck_assert_str_eq(pf_devtypes_reason(PF_DEVFILTER_PARTITIONED), "device is partitioned");
	ck_assert_str_eq(pf_devtypes_reason(PF_DEVFILTER_SIGNATURE), "device has a signature");
	ck_assert_ptr_null(pf_devtypes_reason(PF_DEVFILTER_PASS));
	ck_assert_ptr_null(pf_devtypes_reason(_PF_DEVFILTER_MAX));
	ck_assert_ptr_null(pf_devtypes_reason((enum pf_devfilter_verdict)-1));
}
END_TEST

START_TEST(test_builtin_types)
{
	static const struct {
		const char *name;
		int parts;
	} cases[] = {
		{ "sd", 16 },	  { "sdxyz", 16 },	{ "ide0", 64 },	   { "ide1", 64 },
		{ "md", 1 },	  { "mdp", 1 },		{ "loop", 1 },	   { "device-mapper", 1 },
		{ "virtblk", 8 }, { "nvme", 64 },	{ "blkext", 1 },   { "dasd", 4 },
		{ "VxDMP", 16 },  { "iseries/vd", 8 },	{ "drbd", 16 },	   { "bcache", 1 },
		{ "zram", 0 },	  { "s", 0 },		{ "", 0 },	   { "vxdmp", 0 },
		{ "sr", 0 },	  { "device-mappe", 0 }, { "rbd", 16 },	   { "mmc", 16 },
	};
	struct pf_devfilter *f = NULL;

	ck_assert_int_eq(pf_devtypes_filter_new(&default_cfg, &f), 0);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		ck_assert_msg(pf_devtypes_max_partitions(f, cases[i].name) == cases[i].parts,
			      "%s", cases[i].name);
	ck_assert_int_eq(pf_devtypes_max_partitions(f, NULL), 0);
	ck_assert_ptr_null(pf_devtypes_filter_free(f));
	ck_assert_ptr_null(pf_devtypes_filter_free(NULL));
}
END_TEST

START_TEST(test_extra_types)
{
	static const char *const names[] = { "zram", "sd", "s", "zr" };
	static const int parts[] = { 16, 1, 8, 4 };
	struct pf_devfilter_cfg cfg = default_cfg;
	struct pf_devfilter *f = NULL;

	cfg.extra_types = names;
	cfg.extra_type_parts = parts;
	cfg.n_extra_types = ARRAY_SIZE(names);
	ck_assert_int_eq(pf_devtypes_filter_new(&cfg, &f), 0);
	ck_assert_int_eq(pf_devtypes_max_partitions(f, "zram"), 16);
	/* devices/types overrides a built-in entry, first matching entry wins */
	ck_assert_int_eq(pf_devtypes_max_partitions(f, "sd"), 1);
	ck_assert_int_eq(pf_devtypes_max_partitions(f, "sr"), 8);
	ck_assert_int_eq(pf_devtypes_max_partitions(f, "loop"), 1);
	ck_assert_int_eq(pf_devtypes_max_partitions(f, "foo"), 0);
	pf_devtypes_filter_free(f);
}
END_TEST

START_TEST(test_bad_cfg)
{
	static const char *const names[] = { "a", NULL };
	static const int zero[] = { 0 }, one[] = { 1, 1 };
	static const char *long_name[1];
	char buf[PF_DEVTYPES_TYPE_NAME_MAX + 2];
	struct pf_devfilter_cfg cfg = default_cfg;
	static int marker;
	struct pf_devfilter *f = (void *)&marker; /* must stay untouched */

	cfg.extra_types = names;
	cfg.extra_type_parts = zero;
	cfg.n_extra_types = 1;
	ck_assert_int_eq(pf_devtypes_filter_new(&cfg, &f), -EINVAL);
	cfg.extra_type_parts = one;
	cfg.n_extra_types = 2;
	ck_assert_int_eq(pf_devtypes_filter_new(&cfg, &f), -EINVAL);
	cfg.extra_types = NULL;
	ck_assert_int_eq(pf_devtypes_filter_new(&cfg, &f), -EINVAL);
	cfg.extra_types = names;
	cfg.n_extra_types = PF_DEVTYPES_EXTRA_MAX + 1;
	ck_assert_int_eq(pf_devtypes_filter_new(&cfg, &f), -E2BIG);
	memset(buf, 'x', sizeof(buf) - 1);
	buf[sizeof(buf) - 1] = '\0';
	long_name[0] = buf;
	cfg.extra_types = long_name;
	cfg.n_extra_types = 1;
	ck_assert_int_eq(pf_devtypes_filter_new(&cfg, &f), -E2BIG);
	ck_assert_ptr_eq(f, (void *)&marker);
}
END_TEST

/* Devices for the nodata cases; sizes in sectors. */
static void build_machine(void)
{
	fakesys_disk(&fs, "sda", 8, 0, 8 * MIB_SECTORS);
	fakesys_disk(&fs, "sdb", 8, 16, MIB_SECTORS);
	fakesys_disk(&fs, "sdc", 8, 32, 2 * MIB_SECTORS);
	fakesys_disk(&fs, "sdd", 8, 48, 2 * MIB_SECTORS - 1);
	fakesys_part(&fs, "sda", "sda1", 8, 1, 4 * MIB_SECTORS, 1);
	fakesys_disk(&fs, "zram0", FAKESYS_ZRAM_MAJOR, 0, 8 * MIB_SECTORS);

	fakesys_disk(&fs, "loop0", 7, 0, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "loop0", "loop/backing_file", "/img/d0.img\n");
	fakesys_disk(&fs, "loop1", 7, 1, 0);
	fakesys_disk(&fs, "loop2", 7, 2, 8 * MIB_SECTORS); /* size but no backing file */

	/* an LV, an internal (suffixed) LV, reserved names, an empty map, crypt and mpath maps */
	fakesys_disk(&fs, "dm-0", 253, 0, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "dm-0", "dm/name", "vg1-lin\n");
	fakesys_attr(&fs, "dm-0", "dm/uuid", FAKESYS_LV_UUID "\n");
	fakesys_disk(&fs, "dm-1", 253, 1, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "dm-1", "dm/name", "vg1-pool-tpool\n");
	fakesys_attr(&fs, "dm-1", "dm/uuid", FAKESYS_LV_UUID "-tpool\n");
	fakesys_disk(&fs, "dm-2", 253, 2, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "dm-2", "dm/name", "vg1-pool_tmeta\n");
	fakesys_attr(&fs, "dm-2", "dm/uuid", FAKESYS_LV_UUID "\n");
	fakesys_disk(&fs, "dm-3", 253, 3, 0);
	fakesys_attr(&fs, "dm-3", "dm/name", "empty\n");
	fakesys_disk(&fs, "dm-4", 253, 4, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "dm-4", "dm/name", "luks-tmp\n");
	fakesys_attr(&fs, "dm-4", "dm/uuid", "CRYPT-TEMP-luks-tmp\n");
	fakesys_disk(&fs, "dm-5", 253, 5, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "dm-5", "dm/name", "mpatha\n");
	fakesys_attr(&fs, "dm-5", "dm/uuid", "mpath-3600140512345678\n");
	fakesys_attr(&fs, "dm-5", "dm/suspended", "1\n");
	fakesys_disk(&fs, "dm-6", 253, 6, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "dm-6", "dm/name", "my--vg-my--lv\n");
	fakesys_attr(&fs, "dm-6", "dm/uuid", FAKESYS_LV_UUID "\n");
	fakesys_disk(&fs, "dm-7", 253, 7, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "dm-7", "dm/name", "vg1-snapshot0\n");
	fakesys_attr(&fs, "dm-7", "dm/uuid", FAKESYS_LV_UUID "\n");
	fakesys_disk(&fs, "dm-8", 253, 8, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "dm-8", "dm/name", "luks-home\n");
	fakesys_attr(&fs, "dm-8", "dm/uuid", "CRYPT-LUKS2-abc-luks-home\n");
	fakesys_disk(&fs, "dm-10", 253, 10, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "dm-10", "dm/name", "vg1-odd\n");
	fakesys_attr(&fs, "dm-10", "dm/uuid", FAKESYS_LV_UUID "-\n"); /* 69: lvm2 still calls it an LV */
	fakesys_disk(&fs, "dm-11", 253, 11, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "dm-11", "dm/name", "vg1-odd2\n");
	fakesys_attr(&fs, "dm-11", "dm/uuid", FAKESYS_LV_UUID "-x\n");
	fakesys_disk(&fs, "dm-9", 253, 9, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "dm-9", "dm/name", "vg1-lv-real\n");
	fakesys_attr(&fs, "dm-9", "dm/uuid", FAKESYS_LV_UUID "\n");

	/* multipath: sde (and its partition) under mpatha; a PV in use under an LV */
	fakesys_mpath_disks(&fs); /* loop3: not SCSI or NVMe, lvm2 does not look */
	/* wwids: sdg listed, sdh listed but blacklisted, sdi blacklisted and excepted */
	fakesys_disk(&fs, "sdg", 8, 96, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "sdg", "device/wwid", "naa.600a0b80001111\n");
	fakesys_part(&fs, "sdg", "sdg1", 8, 97, 4 * MIB_SECTORS, 1);
	fakesys_disk(&fs, "sdh", 8, 112, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "sdh", "device/wwid", "naa.600a0b80002222\n");
	fakesys_disk(&fs, "sdi", 8, 128, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "sdi", "device/wwid", "naa.600a0b80003333\n");
	fakesys_disk(&fs, "sdj", 8, 144, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "sdj", "wwid", "naa.600a0b80001111\n"); /* lvm2 reads only device/wwid */
	fakesys_write(&fs, "etc/multipath/wwids", "# Multipath wwids, Version : 1.0\n"
						  "/3600a0b80001111/\n"
						  "/3600a0b80002222/\n"
						  "/3600a0b80003333/\n");
	fakesys_write(&fs, "etc/multipath.conf", "defaults {\n\tuser_friendly_names yes\n}\n"
						 "blacklist {\n"
						 "\twwid \"3600a0b80002222\"\n"
						 "\twwid 3600a0b80003333\n"
						 "}\n");
	fakesys_write(&fs, "etc/multipath/conf.d/local.conf",
		      "blacklist_exceptions {\n\twwid \"3600a0b80003333\"\n}\n");

	/* md: a member bound into md0, and md0 itself */
	fakesys_disk(&fs, "md0", 9, 0, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "md0", "md/array_state", "clean\n");
	fakesys_disk(&fs, "sdk", 8, 160, 8 * MIB_SECTORS);
	fakesys_holder(&fs, "sdk", "md0");
}

enum cfg_tweak {
	CFG_DEFAULT,
	CFG_SCAN_LVS,
	CFG_NO_MPATH,
	CFG_NO_MD,
	CFG_IGNORE_SUSPENDED,
	CFG_ZRAM_TYPE,
	CFG_MIN_1M,
	CFG_MIN_TINY,
	CFG_WWIDS,
	CFG_WWIDS_NO_BLACKLIST,
};

static struct pf_devfilter *make_filter(enum cfg_tweak t, char **to_free)
{
	static const char *const zram[] = { "zram" };
	static const int sixteen[] = { 16 };
	struct pf_devfilter_cfg cfg = default_cfg;
	struct pf_devfilter *f = NULL;

	switch (t) {
	case CFG_DEFAULT:
		break;
	case CFG_SCAN_LVS:
		cfg.scan_lvs = true;
		break;
	case CFG_NO_MPATH:
		cfg.multipath_component_detection = false;
		break;
	case CFG_NO_MD:
		cfg.md_component_detection = false;
		break;
	case CFG_IGNORE_SUSPENDED:
		cfg.ignore_suspended_devices = true;
		break;
	case CFG_ZRAM_TYPE:
		cfg.extra_types = zram;
		cfg.extra_type_parts = sixteen;
		cfg.n_extra_types = 1;
		break;
	case CFG_MIN_1M:
		cfg.pv_min_size_bytes = 1024 * 1024;
		break;
	case CFG_MIN_TINY:
		cfg.pv_min_size_bytes = 100 * 1024; /* below lvm2's floor of 512 KiB */
		break;
	case CFG_WWIDS:
	case CFG_WWIDS_NO_BLACKLIST:
		to_free[0] = fakesys_path(&fs, "etc/multipath/wwids");
		cfg.multipath_wwids_file = to_free[0];
		if (t == CFG_WWIDS) {
			to_free[1] = fakesys_path(&fs, "etc/multipath.conf");
			to_free[2] = fakesys_path(&fs, "etc/multipath/conf.d");
			cfg.multipath_conf_file = to_free[1];
			cfg.multipath_conf_dir = to_free[2];
		}
		break;
	}
	ck_assert_int_eq(pf_devtypes_filter_new(&cfg, &f), 0);
	return f;
}

START_TEST(test_nodata)
{
	static const struct {
		const char *kname;
		enum cfg_tweak cfg;
		enum pf_devfilter_verdict want;
	} cases[] = {
		{ "sda", CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "sda1", CFG_DEFAULT, PF_DEVFILTER_PASS },
		/* size: below pv_min_size (default 2 MiB), at it, just under it */
		{ "sdb", CFG_DEFAULT, PF_DEVFILTER_TOO_SMALL },
		{ "sdc", CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "sdd", CFG_DEFAULT, PF_DEVFILTER_TOO_SMALL },
		{ "sdb", CFG_MIN_1M, PF_DEVFILTER_PASS },
		{ "sdb", CFG_MIN_TINY, PF_DEVFILTER_PASS },
		{ "loop1", CFG_MIN_TINY, PF_DEVFILTER_TOO_SMALL },
		/* types */
		{ "zram0", CFG_DEFAULT, PF_DEVFILTER_TYPE_UNKNOWN },
		{ "zram0", CFG_ZRAM_TYPE, PF_DEVFILTER_PASS },
		/* loop devices: attached, detached, no backing file */
		{ "loop0", CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "loop1", CFG_DEFAULT, PF_DEVFILTER_TOO_SMALL },
		{ "loop2", CFG_DEFAULT, PF_DEVFILTER_TOO_SMALL },
		/* dm */
		{ "dm-0", CFG_DEFAULT, PF_DEVFILTER_IS_LV },
		{ "dm-0", CFG_SCAN_LVS, PF_DEVFILTER_PASS },
		{ "dm-1", CFG_DEFAULT, PF_DEVFILTER_UNUSABLE },
		{ "dm-1", CFG_SCAN_LVS, PF_DEVFILTER_UNUSABLE },
		{ "dm-2", CFG_SCAN_LVS, PF_DEVFILTER_UNUSABLE },
		{ "dm-3", CFG_DEFAULT, PF_DEVFILTER_UNUSABLE },
		{ "dm-4", CFG_DEFAULT, PF_DEVFILTER_UNUSABLE },
		{ "dm-5", CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "dm-5", CFG_IGNORE_SUSPENDED, PF_DEVFILTER_UNUSABLE },
		{ "dm-6", CFG_DEFAULT, PF_DEVFILTER_IS_LV },
		{ "dm-6", CFG_SCAN_LVS, PF_DEVFILTER_PASS },
		{ "dm-7", CFG_SCAN_LVS, PF_DEVFILTER_UNUSABLE },
		{ "dm-8", CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "dm-9", CFG_SCAN_LVS, PF_DEVFILTER_UNUSABLE },
		{ "dm-10", CFG_DEFAULT, PF_DEVFILTER_IS_LV },
		{ "dm-11", CFG_DEFAULT, PF_DEVFILTER_UNUSABLE },
		/* multipath components by holder */
		{ "sde", CFG_DEFAULT, PF_DEVFILTER_MPATH_COMPONENT },
		{ "sde1", CFG_DEFAULT, PF_DEVFILTER_MPATH_COMPONENT },
		{ "sde", CFG_NO_MPATH, PF_DEVFILTER_PASS },
		{ "sdf", CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "nvme0n1", CFG_DEFAULT, PF_DEVFILTER_MPATH_COMPONENT },
		{ "loop3", CFG_DEFAULT, PF_DEVFILTER_PASS },
		/* ... and by wwid */
		{ "sdg", CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "sdg", CFG_WWIDS, PF_DEVFILTER_MPATH_COMPONENT },
		{ "sdg1", CFG_WWIDS, PF_DEVFILTER_MPATH_COMPONENT },
		{ "sdh", CFG_WWIDS, PF_DEVFILTER_PASS },
		{ "sdh", CFG_WWIDS_NO_BLACKLIST, PF_DEVFILTER_MPATH_COMPONENT },
		{ "sdi", CFG_WWIDS, PF_DEVFILTER_MPATH_COMPONENT },
		{ "sdj", CFG_WWIDS, PF_DEVFILTER_PASS },
		/* md */
		{ "sdk", CFG_DEFAULT, PF_DEVFILTER_MD_COMPONENT },
		{ "sdk", CFG_NO_MD, PF_DEVFILTER_PASS },
		{ "md0", CFG_DEFAULT, PF_DEVFILTER_PASS },
	};

	build_machine();
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *to_free[3] = { NULL };
		struct pf_devfilter *f = make_filter(cases[i].cfg, to_free);
		const char *why = "unset";
		struct pf_dev d;
		int v;

		ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, cases[i].kname, &d), 0);
		v = pf_devtypes_check_nodata(f, &fs.paths, &d, &why);
		ck_assert_msg(v == (int)cases[i].want, "case %zu (%s): %d %s", i, cases[i].kname, v,
			      why ? why : "");
		if (v)
			ck_assert_str_eq(why, pf_devtypes_reason(cases[i].want));
		else
			ck_assert_ptr_null(why);
		pf_dev_release(&d);
		pf_devtypes_filter_free(f);
		for (size_t j = 0; j < ARRAY_SIZE(to_free); j++)
			free(to_free[j]);
	}
}
END_TEST

START_TEST(test_nodata_no_proc_devices)
{
	struct pf_devfilter *f = NULL;
	const char *why = NULL;
	struct pf_dev d;

	fakesys_disk(&fs, "sda", 8, 0, 8 * MIB_SECTORS);
	fakesys_unlink(&fs, "proc/devices");
	ck_assert_int_eq(pf_devtypes_filter_new(&default_cfg, &f), 0);
	ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "sda", &d), 0);
	ck_assert_int_eq(pf_devtypes_check_nodata(f, &fs.paths, &d, &why),
			 PF_DEVFILTER_TYPE_UNKNOWN);
	pf_dev_release(&d);
	pf_devtypes_filter_free(f);
}
END_TEST

/* The wwids file is read only for the multipath check, and refused over its cap. */
START_TEST(test_wwids_only_for_mpath)
{
	struct pf_devfilter_cfg cfg = default_cfg;
	struct pf_devfilter *f = NULL;
	size_t n = PF_MULTIPATH_FILE_MAX + 1;
	char *big = malloc(n + 1), *path;

	ck_assert_ptr_nonnull(big);
	memset(big, '#', n);
	big[n] = '\0';
	fakesys_write(&fs, "etc/big", big);
	free(big);
	path = fakesys_path(&fs, "etc/big");
	cfg.multipath_wwids_file = path;
	ck_assert_int_eq(pf_devtypes_filter_new(&cfg, &f), -E2BIG);
	ck_assert_ptr_null(f);
	cfg.multipath_component_detection = false;
	ck_assert_int_eq(pf_devtypes_filter_new(&cfg, &f), 0);
	pf_devtypes_filter_free(f);
	free(path);
}
END_TEST

START_TEST(test_data)
{
	static const struct {
		const char *kname;
		enum head_kind head;
		enum cfg_tweak cfg;
		enum pf_devfilter_verdict want;
	} cases[] = {
		{ "sda", HEAD_ZERO, CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "sda", HEAD_MBR, CFG_DEFAULT, PF_DEVFILTER_PARTITIONED },
		{ "sda", HEAD_MBR_BOOT80, CFG_DEFAULT, PF_DEVFILTER_PARTITIONED },
		{ "sda", HEAD_GPT, CFG_DEFAULT, PF_DEVFILTER_PARTITIONED },
		{ "sda", HEAD_MBR_BAD_BOOT, CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "sda", HEAD_MBR_EMPTY, CFG_DEFAULT, PF_DEVFILTER_PASS },
		/* only whole devices by minor: sda1 (minor 1) and sdx (minor 17) are not */
		{ "sda1", HEAD_MBR, CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "sdx", HEAD_MBR, CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "sdb", HEAD_MBR, CFG_DEFAULT, PF_DEVFILTER_PARTITIONED },
		/* loop only with partscan; dm and md always; nvme unless a partition */
		{ "loop0", HEAD_MBR, CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "loop4", HEAD_MBR, CFG_DEFAULT, PF_DEVFILTER_PARTITIONED },
		{ "dm-0", HEAD_MBR, CFG_DEFAULT, PF_DEVFILTER_PARTITIONED },
		{ "md0", HEAD_MBR, CFG_DEFAULT, PF_DEVFILTER_PARTITIONED },
		{ "nvme0n1", HEAD_MBR, CFG_DEFAULT, PF_DEVFILTER_PARTITIONED },
		{ "nvme0n1p1", HEAD_MBR, CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "zram0", HEAD_MBR, CFG_ZRAM_TYPE, PF_DEVFILTER_PARTITIONED },
		/* old signatures, on any device */
		{ "loop0", HEAD_LVM1_V1, CFG_DEFAULT, PF_DEVFILTER_SIGNATURE },
		{ "loop0", HEAD_LVM1_V2, CFG_DEFAULT, PF_DEVFILTER_SIGNATURE },
		{ "loop0", HEAD_LVM1_V3, CFG_DEFAULT, PF_DEVFILTER_PASS },
		{ "loop0", HEAD_POOL, CFG_DEFAULT, PF_DEVFILTER_SIGNATURE },
		{ "loop0", HEAD_POOL_V5, CFG_DEFAULT, PF_DEVFILTER_PASS },
		/* md superblocks at the start */
		{ "loop0", HEAD_MD_0, CFG_DEFAULT, PF_DEVFILTER_MD_COMPONENT },
		{ "loop0", HEAD_MD_4K, CFG_DEFAULT, PF_DEVFILTER_MD_COMPONENT },
		{ "loop0", HEAD_MD_0, CFG_NO_MD, PF_DEVFILTER_PASS },
		{ "loop5", HEAD_MD_0, CFG_DEFAULT, PF_DEVFILTER_PASS }, /* under 128 KiB */
		{ "loop6", HEAD_MD_0, CFG_DEFAULT, PF_DEVFILTER_MD_COMPONENT }, /* exactly 128 KiB */
		/* compat: lvm2 takes the magic in host byte order (and swapped only on big-endian) */
		{ "loop0", HEAD_MD_BE, CFG_DEFAULT,
		  __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__ ? PF_DEVFILTER_PASS :
							      PF_DEVFILTER_MD_COMPONENT },
	};
	uint8_t head[PF_HEADSIG_BYTES];

	fakesys_disk(&fs, "sda", 8, 0, 8 * MIB_SECTORS);
	fakesys_part(&fs, "sda", "sda1", 8, 1, 4 * MIB_SECTORS, 1);
	fakesys_disk(&fs, "sdx", 8, 17, 8 * MIB_SECTORS);
	fakesys_disk(&fs, "sdb", 8, 16, 8 * MIB_SECTORS);
	fakesys_disk(&fs, "loop0", 7, 0, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "loop0", "loop/partscan", "0\n");
	fakesys_disk(&fs, "loop4", 7, 4, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "loop4", "loop/partscan", "1\n");
	fakesys_attr(&fs, "loop4", "loop/backing_file", "/tmp/img/p.img\n");
	fakesys_disk(&fs, "loop5", 7, 5, 255);
	fakesys_disk(&fs, "loop6", 7, 6, 256);
	fakesys_disk(&fs, "dm-0", 253, 0, 8 * MIB_SECTORS);
	fakesys_disk(&fs, "md0", 9, 0, 8 * MIB_SECTORS);
	fakesys_disk(&fs, "nvme0n1", 259, 0, 8 * MIB_SECTORS);
	fakesys_part(&fs, "nvme0n1", "nvme0n1p1", 259, 1, 4 * MIB_SECTORS, 1);
	fakesys_disk(&fs, "zram0", FAKESYS_ZRAM_MAJOR, 0, 8 * MIB_SECTORS);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char *to_free[3] = { NULL };
		struct pf_devfilter *f = make_filter(cases[i].cfg, to_free);
		const char *why = "unset";
		struct pf_headsig sig;
		struct pf_dev d;
		int v;

		heads_build(cases[i].head, head);
		ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, cases[i].kname, &d), 0);
		ck_assert_int_eq(pf_headsig_read(pf_span_make(head, sizeof(head)), &sig), 0);
		v = pf_devtypes_check_data(f, &d, &sig, &why);
		ck_assert_msg(v == (int)cases[i].want, "case %zu (%s): %d", i, cases[i].kname, v);
		if (v)
			ck_assert_str_eq(why, pf_devtypes_reason(cases[i].want));
		else
			ck_assert_ptr_null(why);
		pf_dev_release(&d);
		pf_devtypes_filter_free(f);
	}
}
END_TEST

/* md arrays whose members keep the superblock at the end, from md/metadata_version. */
START_TEST(test_md_end_array)
{
	static const struct {
		const char *kname;
		int want;
	} cases[] = {
		{ "md0", 1 },	 /* 1.0 */
		{ "md1", 1 },	 /* 0.90 */
		{ "md2", 0 },	 /* 1.2: at the start */
		{ "md3", 0 },	 /* external (IMSM container) */
		{ "md4", 0 },	 /* no metadata_version (array being torn down) */
		{ "md5", 1 },	 /* blanks around the word, as sscanf("%s") reads it */
		{ "md6", 0 },	 /* "1.00": not lvm2's string */
		{ "md7", 0 },	 /* empty */
		{ "md0p1", 1 },	 /* a partition of md0 (blkext): md0's */
		{ "md2p1", 0 },
		{ "sda", 0 },	 /* not md, even with the attribute */
		{ "sda1", 0 },	 /* a partition, but not of an md array */
	};

	fakesys_disk(&fs, "md0", FAKESYS_MD_MAJOR, 0, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "md0", "md/metadata_version", "1.0\n");
	fakesys_part(&fs, "md0", "md0p1", FAKESYS_BLKEXT_MAJOR, 0, 4 * MIB_SECTORS, 1);
	fakesys_disk(&fs, "md1", FAKESYS_MD_MAJOR, 1, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "md1", "md/metadata_version", "0.90\n");
	fakesys_disk(&fs, "md2", FAKESYS_MD_MAJOR, 2, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "md2", "md/metadata_version", "1.2\n");
	fakesys_part(&fs, "md2", "md2p1", FAKESYS_BLKEXT_MAJOR, 1, 4 * MIB_SECTORS, 1);
	fakesys_disk(&fs, "md3", FAKESYS_MD_MAJOR, 3, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "md3", "md/metadata_version", "external:imsm\n");
	fakesys_disk(&fs, "md4", FAKESYS_MD_MAJOR, 4, 8 * MIB_SECTORS);
	fakesys_disk(&fs, "md5", FAKESYS_MD_MAJOR, 5, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "md5", "md/metadata_version", "  0.90 x\n");
	fakesys_disk(&fs, "md6", FAKESYS_MD_MAJOR, 6, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "md6", "md/metadata_version", "1.00\n");
	fakesys_disk(&fs, "md7", FAKESYS_MD_MAJOR, 7, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "md7", "md/metadata_version", "\n");
	fakesys_disk(&fs, "sda", 8, 0, 8 * MIB_SECTORS);
	fakesys_attr(&fs, "sda", "md/metadata_version", "1.0\n");
	fakesys_part(&fs, "sda", "sda1", 8, 1, 4 * MIB_SECTORS, 1);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct pf_dev d;

		ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, cases[i].kname, &d), 0);
		ck_assert_msg(pf_devtypes_md_end_array(&fs.paths, &d) == cases[i].want, "%s",
			      cases[i].kname);
		pf_dev_release(&d);
	}
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("devtypes");
	TCase *tc = pf_unit_tcase("devtypes");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_reasons);
	tcase_add_test(tc, test_builtin_types);
	tcase_add_test(tc, test_extra_types);
	tcase_add_test(tc, test_bad_cfg);
	tcase_add_test(tc, test_nodata);
	tcase_add_test(tc, test_nodata_no_proc_devices);
	tcase_add_test(tc, test_wwids_only_for_mpath);
	tcase_add_test(tc, test_data);
	tcase_add_test(tc, test_md_end_array);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
