/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A fake sysfs, /dev and /proc under a temporary directory (on tmpfs when
 * there is one: TMPDIR if it is tmpfs, else /dev/shm), laid out like
 * the kernel's (device directories under sys/devices, class/block,
 * dev/block and block symlinks to them, proc/devices, proc/partitions), for
 * the device discovery and device filter tests. Setup failures abort the
 * test through ck_assert.
 */
#ifndef PF_TEST_FAKESYS_H
#define PF_TEST_FAKESYS_H

#include <stdbool.h>
#include <stdint.h>

#include "base/paths.h"
#include "device/blockdev.h"

struct fakesys {
	char *root;
	struct pf_paths paths; /* sys, dev, proc, etc, run, lock below root */
};

/*
 * Block majors in the default proc/devices: the usual ones plus "zram",
 * which lvm2 does not know.
 */
#define FAKESYS_LOOP_MAJOR  7
#define FAKESYS_SD_MAJOR    8
#define FAKESYS_MD_MAJOR    9
#define FAKESYS_ZRAM_MAJOR  252
#define FAKESYS_DM_MAJOR    253
#define FAKESYS_BLKEXT_MAJOR 259

/* A dm uuid lvm2 takes for an LV's. */
#define FAKESYS_LV_UUID "LVM-SMXdl4CC44uuuT0k1ug51vUb5x0I3wDh1QamuKI6cAKdFBtrWa23ctvmeJDX4yoc"

void fakesys_init(struct fakesys *fs);
/* Remove the whole tree. */
void fakesys_destroy(struct fakesys *fs);

/* A suite's fixture: a fresh tree in the file's static fs for every test (setup, teardown). */
#define FAKESYS_FIXTURE                                                                            \
	static struct fakesys fs;                                                                  \
	static void setup(void)                                                                    \
	{                                                                                          \
		fakesys_init(&fs);                                                                 \
	}                                                                                          \
	static void teardown(void)                                                                 \
	{                                                                                          \
		fakesys_destroy(&fs);                                                              \
	}

/* Write a file below root (creating directories); content is written as given. */
void fakesys_write(struct fakesys *fs, const char *rel, const char *content);
void fakesys_write_bytes(struct fakesys *fs, const char *rel, const void *content, size_t len);
void fakesys_mkdir(struct fakesys *fs, const char *rel);
void fakesys_symlink(struct fakesys *fs, const char *rel, const char *target);
void fakesys_unlink(struct fakesys *fs, const char *rel);

/*
 * A whole disk: sys/devices/virtual/block/<kname> with dev, size (512-byte
 * sectors), queue/logical_block_size 512 and an empty holders/, plus the
 * class/block, dev/block and block links, and a proc/partitions line when
 * the size is not 0 (the kernel leaves empty devices out).
 */
void fakesys_disk(struct fakesys *fs, const char *kname, unsigned major, unsigned minor,
		  uint64_t sectors);
/* A partition of disk, in the disk's directory, with its "partition" number file. */
void fakesys_part(struct fakesys *fs, const char *disk, const char *kname, unsigned major,
		  unsigned minor, uint64_t sectors, unsigned partno);
/* Write an attribute (attr may be "dm/uuid", "device/wwid") in a device's directory. */
void fakesys_attr(struct fakesys *fs, const char *kname, const char *attr, const char *value);
/* Add holder to kname's holders/ (a symlink to the holder's directory, as in sysfs). */
void fakesys_holder(struct fakesys *fs, const char *kname, const char *holder);
/*
 * Disks around a multipath map dm-5 and an LV dm-0 (both made by the caller): sde and its
 * partition sde1 and nvme0n1 under dm-5, sdf under dm-0, and loop3 under dm-5.
 */
void fakesys_mpath_disks(struct fakesys *fs);

/*
 * A block device node below dev/ (rel like "loop0" or "mapper/vg-lv").
 * Needs CAP_MKNOD: returns false (and makes nothing) when not permitted.
 */
bool fakesys_node(struct fakesys *fs, const char *rel, unsigned major, unsigned minor);

/* root + "/" + rel, malloc'ed. */
char *fakesys_path(struct fakesys *fs, const char *rel);
/* paths.dev + "/" + rel, malloc'ed. */
char *fakesys_devpath(struct fakesys *fs, const char *rel);
/* got is paths.dev + "/" + rel. */
#define ck_assert_devpath(fs, got, rel)                                                            \
	do {                                                                                       \
		char *_want = fakesys_devpath((fs), (rel));                                        \
		ck_assert_str_eq((got), _want);                                                    \
		free(_want);                                                                       \
	} while (0)

/*
 * A small machine: a SCSI disk with two partitions (wwid, serial), an
 * attached and a detached loop, a dm LV held by the attached loop, md, NVMe
 * with a partition, zram.
 */
void fakesys_small_machine(struct fakesys *fs);
/* The device of list l with kernel name kname; aborts the test when there is none. */
const struct pf_dev *fakesys_find_dev(const struct pf_dev_list *l, const char *kname);

#endif /* PF_TEST_FAKESYS_H */
