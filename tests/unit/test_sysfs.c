/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Device discovery over fake sysfs and /proc trees, and once against a real loop device. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/paths.h"
#include "device/sysfs.h"
#include "fakesys.h"
#include "unit.h"

FAKESYS_FIXTURE

#define ck_assert_path(got, rel) ck_assert_devpath(&fs, got, rel)

/*
 * Enough devices for discovery to use its threads (where there are CPUs): every one is found
 * once, with its own attributes, in lvm2's order.
 */
START_TEST(test_enumerate_many)
{
	struct pf_dev_list l = { 0 };
	enum { N = 1300 };

	for (unsigned i = 0; i < N; i++) {
		char name[32];

		(void)snprintf(name, sizeof(name), "loop%u", i);
		/* every third one empty: those take the short way */
		fakesys_disk(&fs, name, 7, i, i % 3 ? 2048 + i : 0);
		if (i % 3)
			fakesys_attr(&fs, name, "loop/backing_file", "/tmp/img/x.img\n");
	}
	ck_assert_int_eq(pf_sysfs_enumerate(&fs.paths, &l), 0);
	ck_assert_uint_eq(l.n, N);
	for (size_t i = 0; i < l.n; i++) {
		const struct pf_dev *d = &l.devs[i];
		char want[32];

		(void)snprintf(want, sizeof(want), "loop%u", d->minor);
		ck_assert_str_eq(d->kname, want);
		ck_assert_uint_eq(d->size_bytes, d->minor % 3 ? (2048ull + d->minor) * 512 : 0);
		ck_assert(!!d->loop_backing_file == !!(d->minor % 3));
		if (i) /* lvm2's order: the low byte of the minor first */
			ck_assert_uint_lt((l.devs[i - 1].minor & 0xffu) * 4096 + (l.devs[i - 1].minor >> 8),
					  (d->minor & 0xffu) * 4096 + (d->minor >> 8));
	}
	pf_dev_list_release(&l);
}
END_TEST

START_TEST(test_enumerate)
{
	struct pf_dev_list l = { 0 };
	const struct pf_dev *d;
	/* lvm2's order: the 32-bit dev_t byte-swapped, so every minor 0 before any minor 1 */
	static const char *const order[] = { "nvme0n1", "loop0", "sda",	     "md0",   "zram0",
					     "dm-0",	"nvme0n1p1", "loop1", "sda1", "sda2" };

	fakesys_small_machine(&fs);
	ck_assert_int_eq(pf_sysfs_enumerate(&fs.paths, &l), 0);
	ck_assert_uint_eq(l.n, ARRAY_SIZE(order));
	for (size_t i = 0; i < l.n; i++)
		ck_assert_str_eq(l.devs[i].kname, order[i]);

	d = fakesys_find_dev(&l, "sda");
	ck_assert_uint_eq(d->major, 8);
	ck_assert_uint_eq(d->minor, 0);
	ck_assert_path(d->path, "sda");
	ck_assert_uint_eq(d->size_bytes, 2097152ull * 512);
	ck_assert(!d->is_partition);
	ck_assert_ptr_null(d->parent_kname);
	ck_assert_str_eq(d->type_name, "sd");
	ck_assert_str_eq(d->wwid, "naa.600140512345678");
	ck_assert_str_eq(d->serial, "SER123");
	ck_assert_ptr_null(d->dm_uuid);
	ck_assert_ptr_null(d->loop_backing_file);
	ck_assert_uint_eq(d->n_holders, 0);

	/* partitions: the parent's identity */
	d = fakesys_find_dev(&l, "sda2");
	ck_assert(d->is_partition);
	ck_assert_str_eq(d->parent_kname, "sda");
	ck_assert_uint_eq(d->size_bytes, 8192 * 512);
	ck_assert_str_eq(d->wwid, "naa.600140512345678");
	ck_assert_str_eq(d->serial, "SER123");
	ck_assert_path(d->path, "sda2");

	d = fakesys_find_dev(&l, "loop0");
	ck_assert_str_eq(d->type_name, "loop");
	ck_assert_str_eq(d->loop_backing_file, "/tmp/img/d1.img");
	ck_assert_uint_eq(d->n_holders, 1);
	ck_assert_str_eq(d->holders[0], "dm-0");

	d = fakesys_find_dev(&l, "loop1");
	ck_assert_ptr_null(d->loop_backing_file);
	ck_assert_uint_eq(d->size_bytes, 0);

	d = fakesys_find_dev(&l, "dm-0");
	ck_assert_str_eq(d->type_name, "device-mapper");
	ck_assert_str_eq(d->dm_name, "vg1-lin");
	ck_assert_str_eq(d->dm_uuid, FAKESYS_LV_UUID);
	ck_assert_path(d->path, "mapper/vg1-lin");

	d = fakesys_find_dev(&l, "md0");
	ck_assert_str_eq(d->type_name, "md");
	ck_assert_str_eq(d->md_uuid, "6b8b4567:327b23c6:643c9869:66334873");

	d = fakesys_find_dev(&l, "nvme0n1p1");
	ck_assert_str_eq(d->type_name, "blkext");
	ck_assert_str_eq(d->parent_kname, "nvme0n1");
	ck_assert_str_eq(d->wwid, "eui.0025388b71b0a1c2");
	ck_assert_ptr_null(d->serial);

	d = fakesys_find_dev(&l, "zram0");
	ck_assert_str_eq(d->type_name, "zram");
	pf_dev_list_release(&l);
	ck_assert_ptr_null(l.devs);
	ck_assert_uint_eq(l.n, 0);
}
END_TEST

START_TEST(test_enumerate_empty_and_missing)
{
	struct pf_dev_list l = { .n = 42 };
	char *p;

	ck_assert_int_eq(pf_sysfs_enumerate(&fs.paths, &l), 0);
	ck_assert_uint_eq(l.n, 0);
	pf_dev_list_release(&l);

	/* no class/block at all: an error, output untouched */
	p = fakesys_path(&fs, "sys/class/block");
	ck_assert_int_eq(rmdir(p), 0);
	free(p);
	l.n = 42;
	l.devs = NULL;
	ck_assert_int_eq(pf_sysfs_enumerate(&fs.paths, &l), -ENOENT);
	ck_assert_uint_eq(l.n, 42);
}
END_TEST

START_TEST(test_enumerate_without_proc_devices)
{
	struct pf_dev_list l = { 0 };

	fakesys_disk(&fs, "loop0", 7, 0, 8192);
	fakesys_unlink(&fs, "proc/devices");
	/* every type unknown (the filter then rejects all), but not an error */
	ck_assert_int_eq(pf_sysfs_enumerate(&fs.paths, &l), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_ptr_null(l.devs[0].type_name);
	pf_dev_list_release(&l);
}
END_TEST

START_TEST(test_enumerate_skips_broken)
{
	struct pf_dev_list l = { 0 };

	fakesys_disk(&fs, "loop0", 7, 0, 8192);
	fakesys_disk(&fs, "loop2", 7, 2, 8192);
	fakesys_attr(&fs, "loop2", "dev", "7:x\n");
	fakesys_disk(&fs, "loop3", 7, 3, 8192);
	fakesys_unlink(&fs, "sys/devices/virtual/block/loop3/dev");
	/* gone between readdir and open: a dangling class/block link */
	fakesys_symlink(&fs, "sys/class/block/loop4", "../../devices/virtual/block/loop4");
	/* not a directory */
	fakesys_write(&fs, "sys/class/block/junk", "x");
	ck_assert_int_eq(pf_sysfs_enumerate(&fs.paths, &l), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.devs[0].kname, "loop0");
	pf_dev_list_release(&l);
}
END_TEST

/* Attribute values from a misbehaving (or fake) sysfs: bounded, or left out. */
START_TEST(test_garbage_attributes)
{
	static const struct {
		const char *attr, *value;
		size_t len; /* 0: strlen(value) */
		uint64_t size_bytes;
		const char *dm_uuid; /* NULL: expected absent */
	} cases[] = {
		{ "size", "abc\n", 0, 0, NULL },
		{ "size", "-5\n", 0, 0, NULL },
		{ "size", "99999999999999999999999\n", 0, 0, NULL },
		{ "size", "36028797018963968\n", 0, 0, NULL }, /* 2^55 sectors: bytes overflow */
		{ "size", "12\n34\n", 0, 0, NULL },
		{ "size", "", 0, 0, NULL },
		{ "size", "8\n", 0, 4096, NULL },
		{ "size", "8", 0, 4096, NULL },
		{ "dm/uuid", "\n", 0, 1024, NULL },
		{ "dm/uuid", "a\0b\n", 4, 1024, NULL },
		{ "dm/uuid", "CRYPT-LUKS2-x\n", 0, 1024, "CRYPT-LUKS2-x" },
		{ "dm/uuid", "two\nlines\n", 0, 1024, "two\nlines" },
		/* 128 characters: the cap */
		{ "dm/uuid",
		  "LVM-0123456789012345678901234567890123456789012345678901234567890123456789"
		  "012345678901234567890123456789012345678901234567890123\n",
		  0, 1024,
		  "LVM-0123456789012345678901234567890123456789012345678901234567890123456789"
		  "012345678901234567890123456789012345678901234567890123" },
		/* 129: over it */
		{ "dm/uuid",
		  "LVM-0123456789012345678901234567890123456789012345678901234567890123456789"
		  "0123456789012345678901234567890123456789012345678901234\n",
		  0, 1024, NULL },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct pf_dev d;
		size_t len = cases[i].len ? cases[i].len : strlen(cases[i].value);
		char *rel;

		fakesys_destroy(&fs);
		fakesys_init(&fs);
		fakesys_disk(&fs, "dm-1", 253, 1, 2);
		ck_assert_int_ge(asprintf(&rel, "sys/devices/virtual/block/dm-1/%s", cases[i].attr),
				 0);
		fakesys_write_bytes(&fs, rel, cases[i].value, len);
		free(rel);
		ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "dm-1", &d), 0);
		ck_assert_msg(d.size_bytes == cases[i].size_bytes, "case %zu: size %llu", i,
			      (unsigned long long)d.size_bytes);
		if (cases[i].dm_uuid)
			ck_assert_str_eq(d.dm_uuid, cases[i].dm_uuid);
		else
			ck_assert_msg(!d.dm_uuid, "case %zu: uuid %s", i, d.dm_uuid);
		pf_dev_release(&d);
	}
}
END_TEST

START_TEST(test_bad_dev_attribute)
{
	static const char *const values[] = { "", "\n", "7", "7:", ":1", "7:1:2", "a:b",
					      "4096:0", "7:1048576", "-7:1", "7:1 ", "07:01x" };
	struct pf_dev d;

	for (size_t i = 0; i < ARRAY_SIZE(values); i++) {
		fakesys_destroy(&fs);
		fakesys_init(&fs);
		fakesys_disk(&fs, "loop1", 7, 1, 8192);
		fakesys_attr(&fs, "loop1", "dev", values[i]);
		ck_assert_msg(pf_sysfs_lookup_devno(&fs.paths, 7, 1, &d) == -EBADMSG, "'%s'",
			      values[i]);
		ck_assert_msg(pf_sysfs_lookup_kname(&fs.paths, "loop1", &d) == -EBADMSG, "'%s'",
			      values[i]);
	}
	/* a dev file that names another device */
	fakesys_attr(&fs, "loop1", "dev", "7:2\n");
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 7, 1, &d), -EBADMSG);
}
END_TEST

START_TEST(test_long_backing_file)
{
	char *v = malloc(4097 + 1);
	struct pf_dev d;

	ck_assert_ptr_nonnull(v);
	fakesys_disk(&fs, "loop0", 7, 0, 8192);
	memset(v, 'x', 4095);
	v[0] = '/';
	v[4095] = '\n';
	v[4096] = '\0';
	fakesys_attr(&fs, "loop0", "loop/backing_file", v);
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 7, 0, &d), 0);
	ck_assert_uint_eq(strlen(d.loop_backing_file), 4095);
	pf_dev_release(&d);
	v[4095] = 'x';
	v[4096] = '\n';
	v[4097] = '\0';
	fakesys_attr(&fs, "loop0", "loop/backing_file", v);
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 7, 0, &d), 0);
	ck_assert_ptr_null(d.loop_backing_file);
	pf_dev_release(&d);
	free(v);
}
END_TEST

START_TEST(test_lookup_devno_names)
{
	struct pf_dev d;

	fakesys_small_machine(&fs);
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 7, 0, &d), 0);
	ck_assert_str_eq(d.kname, "loop0");
	ck_assert_path(d.path, "loop0");
	ck_assert_str_eq(d.loop_backing_file, "/tmp/img/d1.img");
	ck_assert_uint_eq(d.size_bytes, 131072 * 512);
	pf_dev_release(&d);

	/* SCSI disk: the name under device/block/ */
	fakesys_destroy(&fs);
	fakesys_init(&fs);
	fakesys_small_machine(&fs);
	fakesys_mkdir(&fs, "sys/devices/virtual/block/sda/device/block/sdq");
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 8, 0, &d), 0);
	ck_assert_path(d.path, "sda");
	pf_dev_release(&d);

	/* SCSI partition: no device/, so /proc/partitions */
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 8, 1, &d), 0);
	ck_assert_path(d.path, "sda1");
	pf_dev_release(&d);

	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 253, 0, &d), 0);
	ck_assert_path(d.path, "mapper/vg1-lin");
	pf_dev_release(&d);

	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 259, 1, &d), 0);
	ck_assert_path(d.path, "nvme0n1p1");
	ck_assert(d.is_partition);
	pf_dev_release(&d);
}
END_TEST

START_TEST(test_lookup_devno_removed)
{
	struct pf_dev d = { .major = 99 };
	char *p;

	fakesys_small_machine(&fs);
	/* never existed */
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 7, 99, &d), -ENOENT);
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 4096, 0, &d), -ENOENT);
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 7, 1u << 20, &d), -ENOENT);
	/* a detached loop device: in sysfs with size 0, not in /proc/partitions (lvm2: removed) */
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 7, 1, &d), -ENOENT);
	/* ... but found by name, as lvm2 finds it by name */
	ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "loop1", &d), 0);
	ck_assert_uint_eq(d.size_bytes, 0);
	pf_dev_release(&d);
	/* a SCSI disk whose device/block/ is empty */
	p = fakesys_path(&fs, "sys/devices/virtual/block/sda/device/block/sda");
	ck_assert_int_eq(rmdir(p), 0);
	free(p);
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 8, 0, &d), -ENOENT);
	/* a dm device without dm/name */
	fakesys_unlink(&fs, "sys/devices/virtual/block/dm-0/dm/name");
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 253, 0, &d), -ENOENT);
	/* no /proc/partitions: no name for a loop device either */
	fakesys_unlink(&fs, "proc/partitions");
	d.major = 99;
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 7, 0, &d), -ENOENT);
	ck_assert_uint_eq(d.major, 99); /* untouched */
	/* sysfs entry gone */
	fakesys_unlink(&fs, "sys/dev/block/259:0");
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 259, 0, &d), -ENOENT);
}
END_TEST

START_TEST(test_lookup_devno_proc_partitions)
{
	static const char *const bad[] = {
		"   7        0      65536\n",
		"   7        0      x loop0\n",
		"   7        0      65536 ../etc\n",
		"   7        0      65536 a//b\n",
	};
	struct pf_dev d;

	fakesys_disk(&fs, "loop0", 7, 0, 131072);
	/* the /proc/partitions name is used as it is, '/' and all */
	fakesys_write(&fs, "proc/partitions", "major minor  #blocks  name\n\n"
					      "   7        0      65536 cciss/c0d0\n");
	ck_assert_int_eq(pf_sysfs_lookup_devno(&fs.paths, 7, 0, &d), 0);
	ck_assert_path(d.path, "cciss/c0d0");
	pf_dev_release(&d);
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		fakesys_write(&fs, "proc/partitions", bad[i]);
		ck_assert_msg(pf_sysfs_lookup_devno(&fs.paths, 7, 0, &d) == -ENOENT, "%s", bad[i]);
	}
}
END_TEST

START_TEST(test_kname_with_bang)
{
	struct pf_dev_list l = { 0 };

	/* sysfs spells the '/' of cciss/c0d0 as '!' */
	fakesys_write(&fs, "proc/devices", "Block devices:\n104 cciss0\n");
	fakesys_disk(&fs, "cciss!c0d0", 104, 0, 8192);
	ck_assert_int_eq(pf_sysfs_enumerate(&fs.paths, &l), 0);
	ck_assert_uint_eq(l.n, 1);
	ck_assert_str_eq(l.devs[0].kname, "cciss!c0d0");
	ck_assert_path(l.devs[0].path, "cciss/c0d0");
	ck_assert_str_eq(l.devs[0].type_name, "cciss0");
	pf_dev_list_release(&l);
}
END_TEST

START_TEST(test_proc_devices_parsing)
{
	static const struct {
		const char *text;
		const char *want; /* type of major 7, NULL for none */
	} cases[] = {
		{ "Block devices:\n  7 loop\n", "loop" },
		{ "Character devices:\n  7 vcs\n", NULL },
		{ "Character devices:\n  7 vcs\n\nBlock devices:\n  7 loop\n", "loop" },
		{ "Block devices:\n  7 loop\n  7 other\n", "other" },
		{ "Block devices:\n4103 loop\n", "loop" },      /* masked to 12 bits: 7 */
		{ "Block devices:\n\n  7 loop\n", NULL },	/* an empty line ends the section */
		{ "Block devices:\n  7\n", NULL },
		{ "Block devices:\n  7 loop extra\n", "loop" },
		{ "Block devices:\n  7 loop", "loop" },
		{ "Block devices:\n  7 "
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
		  "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\n",
		  NULL },
		{ "", NULL },
		{ "\0\0\0", NULL },
	};
	struct pf_dev d;

	fakesys_disk(&fs, "loop0", 7, 0, 8192);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		fakesys_write(&fs, "proc/devices", cases[i].text);
		ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "loop0", &d), 0);
		if (cases[i].want)
			ck_assert_str_eq(d.type_name, cases[i].want);
		else
			ck_assert_msg(!d.type_name, "case %zu: %s", i, d.type_name);
		pf_dev_release(&d);
	}
}
END_TEST

START_TEST(test_lookup_kname)
{
	struct pf_dev d;

	fakesys_small_machine(&fs);
	ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "sda1", &d), 0);
	ck_assert_str_eq(d.parent_kname, "sda");
	pf_dev_release(&d);
	ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "nope", &d), -ENOENT);
	ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "../block/sda", &d), -EINVAL);
	ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "..", &d), -EINVAL);
	ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "", &d), -EINVAL);
}
END_TEST

START_TEST(test_mounted_fs)
{
	fakesys_mkdir(&fs, "proc/self");
	fakesys_write(&fs, "proc/self/mountinfo",
		      "22 1 0:21 / /proc rw - proc proc rw\n"
		      "25 1 8:2 / / rw,relatime shared:1 - ext4 /dev/sda2 rw\n"
		      "26 25 8:17 / /srv rw - xfs /dev/sdb1 rw\n");
	ck_assert(pf_sysfs_has_mounted_fs(&fs.paths, 8, 2, "sda2"));
	ck_assert(pf_sysfs_has_mounted_fs(&fs.paths, 8, 17, NULL));
	ck_assert(!pf_sysfs_has_mounted_fs(&fs.paths, 8, 1, "sda1"));
	ck_assert(!pf_sysfs_has_mounted_fs(&fs.paths, 0, 2, "x")); /* 0:21 is not 0:2 */
	ck_assert(!pf_sysfs_has_mounted_fs(&fs.paths, 2, 25, "y")); /* a mount ID is not M:m */
	/* a file system mounted in another namespace still has its directory in sysfs */
	fakesys_mkdir(&fs, "sys/fs/ext4/sdc");
	ck_assert(pf_sysfs_has_mounted_fs(&fs.paths, 8, 32, "sdc"));
	ck_assert(!pf_sysfs_has_mounted_fs(&fs.paths, 8, 48, "sdd"));
	ck_assert(!pf_sysfs_has_mounted_fs(&fs.paths, 8, 48, "../ext4/sdc"));
	/* a truncated last line, garbage lines, no mountinfo at all */
	fakesys_write(&fs, "proc/self/mountinfo", "1\n2 3\n4 5 8:\n6 7 8:64");
	ck_assert(!pf_sysfs_has_mounted_fs(&fs.paths, 8, 64, "sde"));
	fakesys_unlink(&fs, "proc/self/mountinfo");
	ck_assert(!pf_sysfs_has_mounted_fs(&fs.paths, 8, 2, "sda2"));
}
END_TEST

START_TEST(test_read_attr_and_holders)
{
	char *v = NULL, **h = NULL;
	size_t n = 7;

	fakesys_small_machine(&fs);
	fakesys_disk(&fs, "dm-1", 253, 1, 8192);
	fakesys_holder(&fs, "loop0", "dm-1");
	ck_assert_int_eq(pf_sysfs_read_attr(&fs.paths, "dm-0", "dm/name", 64, &v), 0);
	ck_assert_str_eq(v, "vg1-lin");
	free(v);
	ck_assert_int_eq(pf_sysfs_read_attr(&fs.paths, "dm-0", "dm/name", 3, &v), -E2BIG);
	ck_assert_int_eq(pf_sysfs_read_attr(&fs.paths, "dm-0", "dm/nope", 64, &v), -ENOENT);
	ck_assert_int_eq(pf_sysfs_read_attr(&fs.paths, "nope", "dev", 64, &v), -ENOENT);
	ck_assert_int_eq(pf_sysfs_read_attr(&fs.paths, "a/b", "dev", 64, &v), -EINVAL);
	ck_assert_int_eq(pf_sysfs_list_holders(&fs.paths, "loop0", &h, &n), 0);
	ck_assert_uint_eq(n, 2);
	ck_assert_str_eq(h[0], "dm-0");
	ck_assert_str_eq(h[1], "dm-1");
	free(h[0]);
	free(h[1]);
	free(h);
	ck_assert_int_eq(pf_sysfs_list_holders(&fs.paths, "nope", &h, &n), 0);
	ck_assert_uint_eq(n, 0);
	ck_assert_ptr_null(h);
}
END_TEST

START_TEST(test_holders_cap)
{
	struct pf_dev d;
	char *rel;

	fakesys_disk(&fs, "sdb", 8, 16, 8192);
	for (unsigned i = 0; i <= PF_SYSFS_HOLDERS_MAX; i++) {
		ck_assert_int_ge(asprintf(&rel, "sys/devices/virtual/block/sdb/holders/dm-%u", i), 0);
		fakesys_write(&fs, rel, "");
		free(rel);
	}
	/* one too many: the set is unknown, so none is reported */
	ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "sdb", &d), 0);
	ck_assert_uint_eq(d.n_holders, 0);
	ck_assert_ptr_null(d.holders);
	pf_dev_release(&d);
	fakesys_unlink(&fs, "sys/devices/virtual/block/sdb/holders/dm-0");
	ck_assert_int_eq(pf_sysfs_lookup_kname(&fs.paths, "sdb", &d), 0);
	ck_assert_uint_eq(d.n_holders, PF_SYSFS_HOLDERS_MAX);
	ck_assert_str_eq(d.holders[0], "dm-1");
	pf_dev_release(&d);
}
END_TEST

START_TEST(test_lookup_path)
{
	struct pf_dev d;
	char *p;

	fakesys_small_machine(&fs);
	if (!fakesys_node(&fs, "loop0", 7, 0))
		return; /* no CAP_MKNOD: nothing to stat */
	ck_assert(fakesys_node(&fs, "loop1", 7, 1));
	ck_assert(fakesys_node(&fs, "zz9", 7, 9));
	fakesys_symlink(&fs, "dev/disk/by-id/loop-x", "../../loop0");
	fakesys_symlink(&fs, "dev/a", "b");
	fakesys_symlink(&fs, "dev/b", "a");
	fakesys_write(&fs, "dev/file", "x");

	p = fakesys_devpath(&fs, "loop0");
	ck_assert_int_eq(pf_sysfs_lookup_path(&fs.paths, p, &d), 0);
	ck_assert_str_eq(d.path, p);
	ck_assert_str_eq(d.kname, "loop0");
	pf_dev_release(&d);
	free(p);

	/* a symlink keeps its own name, as lvm2 keeps the argument's */
	p = fakesys_devpath(&fs, "disk/by-id/loop-x");
	ck_assert_int_eq(pf_sysfs_lookup_path(&fs.paths, p, &d), 0);
	ck_assert_str_eq(d.path, p);
	ck_assert_uint_eq(d.minor, 0);
	pf_dev_release(&d);
	free(p);

	/* by name a detached loop is there (lvm2 then calls it too small) */
	p = fakesys_devpath(&fs, "loop1");
	ck_assert_int_eq(pf_sysfs_lookup_path(&fs.paths, p, &d), 0);
	ck_assert_uint_eq(d.size_bytes, 0);
	pf_dev_release(&d);
	free(p);

	p = fakesys_devpath(&fs, "zz9"); /* a node with no device behind it */
	ck_assert_int_eq(pf_sysfs_lookup_path(&fs.paths, p, &d), -ENOENT);
	free(p);
	p = fakesys_devpath(&fs, "file");
	ck_assert_int_eq(pf_sysfs_lookup_path(&fs.paths, p, &d), -ENOTBLK);
	free(p);
	p = fakesys_devpath(&fs, "disk");
	ck_assert_int_eq(pf_sysfs_lookup_path(&fs.paths, p, &d), -ENOTBLK);
	free(p);
	p = fakesys_devpath(&fs, "missing");
	ck_assert_int_eq(pf_sysfs_lookup_path(&fs.paths, p, &d), -ENOENT);
	free(p);
	p = fakesys_devpath(&fs, "file/below");
	ck_assert_int_eq(pf_sysfs_lookup_path(&fs.paths, p, &d), -ENOENT);
	free(p);
	p = fakesys_devpath(&fs, "a");
	ck_assert_int_eq(pf_sysfs_lookup_path(&fs.paths, p, &d), -ELOOP);
	free(p);
}
END_TEST

/* Run a shell command, return its first output line (malloc'ed) or NULL. */
static char *run(const char *cmd)
{
	FILE *f = popen(cmd, "re");
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f)
		return NULL;
	n = getline(&line, &cap, f);
	if (pclose(f) != 0 || n <= 0) {
		free(line);
		return NULL;
	}
	if (line[n - 1] == '\n')
		line[n - 1] = '\0';
	return line;
}

/*
 * The real thing: a loop device over a sparse file. Needs root and losetup;
 * skipped otherwise. The loop device is detached (by name) before any check
 * can abort the test.
 */
START_TEST(test_real_loop)
{
	struct pf_paths paths = { 0 };
	struct pf_dev_list l = { 0 };
	struct pf_dev byno = { 0 }, bypath = { 0 };
	char img[] = "/tmp/pf-devices-real.XXXXXX";
	char *loop = NULL, *cmd = NULL, *kname;
	int fd, r_enum, r_no = -1, r_path = -1;
	unsigned ma = 0, mi = 0;
	struct stat st;
	const struct pf_dev *found = NULL;

	if (geteuid() != 0 || access("/dev/loop-control", F_OK) != 0 ||
	    system("command -v losetup >/dev/null 2>&1") != 0)
		return;
	fd = mkstemp(img);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, 8 << 20), 0);
	ck_assert_int_eq(close(fd), 0);
	ck_assert_int_ge(asprintf(&cmd, "losetup -f --show %s", img), 0);
	loop = run(cmd);
	free(cmd);
	if (!loop) {
		(void)unlink(img);
		return; /* no free loop device: nothing to test */
	}

	kname = strrchr(loop, '/') + 1;
	if (stat(loop, &st) == 0) {
		ma = major(st.st_rdev);
		mi = minor(st.st_rdev);
	}
	ck_assert_int_eq(pf_paths_from_env(&paths), 0);
	r_enum = pf_sysfs_enumerate(&paths, &l);
	for (size_t i = 0; r_enum == 0 && i < l.n; i++)
		if (!strcmp(l.devs[i].kname, kname))
			found = &l.devs[i];
	if (ma) {
		r_no = pf_sysfs_lookup_devno(&paths, ma, mi, &byno);
		r_path = pf_sysfs_lookup_path(&paths, loop, &bypath);
	}

	ck_assert_int_ge(asprintf(&cmd, "losetup -d %s", loop), 0);
	ck_assert_int_eq(system(cmd), 0);
	free(cmd);
	(void)unlink(img);

	ck_assert_uint_ne(ma, 0);
	ck_assert_int_eq(r_enum, 0);
	ck_assert_ptr_nonnull(found);
	ck_assert_str_eq(found->path, loop);
	ck_assert_str_eq(found->type_name, "loop");
	ck_assert_uint_eq(found->size_bytes, 8 << 20);
	ck_assert_str_eq(found->loop_backing_file, img);
	ck_assert(!found->is_partition);
	ck_assert_int_eq(r_no, 0);
	ck_assert_str_eq(byno.path, loop);
	ck_assert_str_eq(byno.kname, kname);
	ck_assert_uint_eq(byno.size_bytes, 8 << 20);
	ck_assert_str_eq(byno.loop_backing_file, img);
	ck_assert_int_eq(r_path, 0);
	ck_assert_str_eq(bypath.path, loop);
	ck_assert_uint_eq(bypath.minor, mi);
	ck_assert_str_eq(bypath.loop_backing_file, img);
	pf_dev_release(&byno);
	pf_dev_release(&bypath);
	pf_dev_list_release(&l);
	pf_paths_release(&paths);
	free(loop);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("sysfs");
	TCase *tc = pf_unit_tcase("fake");
	TCase *real = pf_unit_tcase("real");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_enumerate);
	tcase_add_test(tc, test_enumerate_many);
	tcase_add_test(tc, test_enumerate_empty_and_missing);
	tcase_add_test(tc, test_enumerate_without_proc_devices);
	tcase_add_test(tc, test_enumerate_skips_broken);
	tcase_add_test(tc, test_garbage_attributes);
	tcase_add_test(tc, test_bad_dev_attribute);
	tcase_add_test(tc, test_long_backing_file);
	tcase_add_test(tc, test_lookup_devno_names);
	tcase_add_test(tc, test_lookup_devno_removed);
	tcase_add_test(tc, test_lookup_devno_proc_partitions);
	tcase_add_test(tc, test_kname_with_bang);
	tcase_add_test(tc, test_proc_devices_parsing);
	tcase_add_test(tc, test_lookup_kname);
	tcase_add_test(tc, test_mounted_fs);
	tcase_add_test(tc, test_read_attr_and_holders);
	tcase_add_test(tc, test_holders_cap);
	tcase_add_test(tc, test_lookup_path);
	suite_add_tcase(s, tc);
	tcase_add_test(real, test_real_loop);
	suite_add_tcase(s, real);
	return s;
}

PF_UNIT_MAIN()
