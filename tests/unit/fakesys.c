/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Building fake sysfs, /dev and /proc trees for the device tests. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "fakesys.h"
#include "unit.h"

static const char default_proc_devices[] = "Character devices:\n"
					   "  1 mem\n"
					   "  4 tty\n"
					   " 10 misc\n"
					   "\n"
					   "Block devices:\n"
					   "  7 loop\n"
					   "  8 sd\n"
					   "  9 md\n"
					   " 65 sd\n"
					   "252 zram\n"
					   "253 device-mapper\n"
					   "254 mdp\n"
					   "259 blkext\n";

char *fakesys_path(struct fakesys *fs, const char *rel)
{
	char *p;

	ck_assert_int_ge(asprintf(&p, "%s/%s", fs->root, rel), 0);
	return p;
}

char *fakesys_devpath(struct fakesys *fs, const char *rel)
{
	char *p;

	ck_assert_int_ge(asprintf(&p, "%s/%s", fs->paths.dev, rel), 0);
	return p;
}

static void mkdir_p(const char *path)
{
	char *p = strdup(path);

	ck_assert_ptr_nonnull(p);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		ck_assert_msg(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %m", p);
		*s = '/';
	}
	ck_assert_msg(mkdir(p, 0755) == 0 || errno == EEXIST, "mkdir %s: %m", p);
	free(p);
}

static void mkdir_parent(const char *path)
{
	char *p = strdup(path), *slash;

	ck_assert_ptr_nonnull(p);
	slash = strrchr(p, '/');
	if (slash && slash != p) {
		*slash = '\0';
		mkdir_p(p);
	}
	free(p);
}

void fakesys_mkdir(struct fakesys *fs, const char *rel)
{
	char *p = fakesys_path(fs, rel);

	mkdir_p(p);
	free(p);
}

void fakesys_write_bytes(struct fakesys *fs, const char *rel, const void *content, size_t len)
{
	char *p = fakesys_path(fs, rel);
	int fd;

	mkdir_parent(p);
	fd = open(p, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	ck_assert_msg(fd >= 0, "open %s: %m", p);
	ck_assert_int_eq(write(fd, content, len), (ssize_t)len);
	ck_assert_int_eq(close(fd), 0);
	free(p);
}

void fakesys_write(struct fakesys *fs, const char *rel, const char *content)
{
	fakesys_write_bytes(fs, rel, content, strlen(content));
}

void fakesys_symlink(struct fakesys *fs, const char *rel, const char *target)
{
	char *p = fakesys_path(fs, rel);

	mkdir_parent(p);
	ck_assert_msg(symlink(target, p) == 0, "symlink %s: %m", p);
	free(p);
}

void fakesys_unlink(struct fakesys *fs, const char *rel)
{
	char *p = fakesys_path(fs, rel);

	ck_assert_msg(unlink(p) == 0, "unlink %s: %m", p);
	free(p);
}

static void append(struct fakesys *fs, const char *rel, const char *line)
{
	char *p = fakesys_path(fs, rel);
	FILE *f = fopen(p, "ae");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_ge(fputs(line, f), 0);
	ck_assert_int_eq(fclose(f), 0);
	free(p);
}

static bool is_tmpfs(const char *dir)
{
	struct statfs sf;

	return dir && *dir && statfs(dir, &sf) == 0 && sf.f_type == TMPFS_MAGIC;
}

/*
 * A new directory for a tree, on tmpfs where there is one to write to: a tree of a thousand
 * devices costs seconds of file-system time on ext4 and a fraction of that on tmpfs. Else
 * TMPDIR or /tmp.
 */
static char *make_root(void)
{
	const char *tmp = getenv("TMPDIR");
	const char *tries[3];
	size_t n = 0;
	char *root = NULL;

	if (is_tmpfs(tmp))
		tries[n++] = tmp;
	if (is_tmpfs("/dev/shm"))
		tries[n++] = "/dev/shm";
	tries[n++] = tmp && *tmp ? tmp : "/tmp";
	for (size_t i = 0; i < n; i++) {
		ck_assert_int_ge(asprintf(&root, "%s/pf-fakesys.XXXXXX", tries[i]), 0);
		if (mkdtemp(root))
			return root;
		free(root);
		root = NULL;
	}
	ck_abort_msg("cannot make a directory for a fake sysfs in %s", tries[n - 1]);
	return NULL;
}

void fakesys_init(struct fakesys *fs)
{
	memset(fs, 0, sizeof(*fs));
	fs->root = make_root();
	fs->paths.sys = fakesys_path(fs, "sys");
	fs->paths.dev = fakesys_path(fs, "dev");
	fs->paths.proc = fakesys_path(fs, "proc");
	fs->paths.etc = fakesys_path(fs, "etc");
	fs->paths.run = fakesys_path(fs, "run");
	fs->paths.lock = fakesys_path(fs, "lock");
	fakesys_mkdir(fs, "sys/class/block");
	fakesys_mkdir(fs, "sys/dev/block");
	fakesys_mkdir(fs, "sys/block");
	fakesys_mkdir(fs, "sys/devices/virtual/block");
	fakesys_mkdir(fs, "dev");
	fakesys_mkdir(fs, "etc");
	fakesys_write(fs, "proc/devices", default_proc_devices);
	fakesys_write(fs, "proc/partitions", "major minor  #blocks  name\n\n");
}

void fakesys_destroy(struct fakesys *fs)
{
	if (fs->root)
		pf_unit_rm_rf(fs->root);
	pf_paths_release(&fs->paths);
	free(fs->root);
	fs->root = NULL;
}

static void add_common(struct fakesys *fs, const char *dir, unsigned major, unsigned minor,
		       uint64_t sectors, const char *kname)
{
	char *rel, *line;

	ck_assert_int_ge(asprintf(&rel, "%s/dev", dir), 0);
	ck_assert_int_ge(asprintf(&line, "%u:%u\n", major, minor), 0);
	fakesys_write(fs, rel, line);
	free(rel);
	free(line);
	ck_assert_int_ge(asprintf(&rel, "%s/size", dir), 0);
	ck_assert_int_ge(asprintf(&line, "%llu\n", (unsigned long long)sectors), 0);
	fakesys_write(fs, rel, line);
	free(rel);
	free(line);
	ck_assert_int_ge(asprintf(&rel, "%s/holders", dir), 0);
	fakesys_mkdir(fs, rel);
	free(rel);
	if (sectors) {
		ck_assert_int_ge(asprintf(&line, "%4u  %7u %10llu %s\n", major, minor,
					  (unsigned long long)sectors / 2, kname),
				 0);
		append(fs, "proc/partitions", line);
		free(line);
	}
}

static void add_links(struct fakesys *fs, const char *kname, unsigned major, unsigned minor,
		      const char *devrel, bool disk)
{
	char *rel, *target;

	ck_assert_int_ge(asprintf(&rel, "sys/class/block/%s", kname), 0);
	ck_assert_int_ge(asprintf(&target, "../../devices/%s", devrel), 0);
	fakesys_symlink(fs, rel, target);
	free(rel);
	ck_assert_int_ge(asprintf(&rel, "sys/dev/block/%u:%u", major, minor), 0);
	fakesys_symlink(fs, rel, target);
	free(rel);
	free(target);
	if (disk) {
		ck_assert_int_ge(asprintf(&rel, "sys/block/%s", kname), 0);
		ck_assert_int_ge(asprintf(&target, "../devices/%s", devrel), 0);
		fakesys_symlink(fs, rel, target);
		free(rel);
		free(target);
	}
}

void fakesys_disk(struct fakesys *fs, const char *kname, unsigned major, unsigned minor,
		  uint64_t sectors)
{
	char *dir, *rel, *devrel;

	ck_assert_int_ge(asprintf(&devrel, "virtual/block/%s", kname), 0);
	ck_assert_int_ge(asprintf(&dir, "sys/devices/%s", devrel), 0);
	add_common(fs, dir, major, minor, sectors, kname);
	ck_assert_int_ge(asprintf(&rel, "%s/queue/logical_block_size", dir), 0);
	fakesys_write(fs, rel, "512\n");
	free(rel);
	add_links(fs, kname, major, minor, devrel, true);
	free(dir);
	free(devrel);
}

void fakesys_part(struct fakesys *fs, const char *disk, const char *kname, unsigned major,
		  unsigned minor, uint64_t sectors, unsigned partno)
{
	char *dir, *rel, *devrel, *num;

	ck_assert_int_ge(asprintf(&devrel, "virtual/block/%s/%s", disk, kname), 0);
	ck_assert_int_ge(asprintf(&dir, "sys/devices/%s", devrel), 0);
	add_common(fs, dir, major, minor, sectors, kname);
	ck_assert_int_ge(asprintf(&rel, "%s/partition", dir), 0);
	ck_assert_int_ge(asprintf(&num, "%u\n", partno), 0);
	fakesys_write(fs, rel, num);
	free(num);
	free(rel);
	add_links(fs, kname, major, minor, devrel, false);
	free(dir);
	free(devrel);
}

/* The device's own directory, found the way the code under test finds it. */
static char *devdir(struct fakesys *fs, const char *kname)
{
	char *link, *real;

	ck_assert_int_ge(asprintf(&link, "%s/sys/class/block/%s", fs->root, kname), 0);
	real = realpath(link, NULL);
	ck_assert_msg(real != NULL, "no device %s", kname);
	free(link);
	return real;
}

void fakesys_attr(struct fakesys *fs, const char *kname, const char *attr, const char *value)
{
	char *dir = devdir(fs, kname);
	char *rel;

	/* fakesys_write wants a path below root */
	ck_assert_int_ge(asprintf(&rel, "%s/%s", dir + strlen(fs->root) + 1, attr), 0);
	fakesys_write(fs, rel, value);
	free(rel);
	free(dir);
}

void fakesys_holder(struct fakesys *fs, const char *kname, const char *holder)
{
	char *dir = devdir(fs, kname), *hdir = devdir(fs, holder);
	char *link;

	ck_assert_int_ge(asprintf(&link, "%s/holders/%s", dir, holder), 0);
	ck_assert_msg(symlink(hdir, link) == 0, "symlink %s: %m", link);
	free(link);
	free(dir);
	free(hdir);
}

void fakesys_mpath_disks(struct fakesys *fs)
{
	const unsigned long long size = 8 * 2048ull;

	fakesys_disk(fs, "sde", 8, 64, size);
	fakesys_part(fs, "sde", "sde1", 8, 65, size / 2, 1);
	fakesys_holder(fs, "sde", "dm-5");
	fakesys_disk(fs, "sdf", 8, 80, size);
	fakesys_holder(fs, "sdf", "dm-0");
	fakesys_disk(fs, "nvme0n1", 259, 0, size);
	fakesys_holder(fs, "nvme0n1", "dm-5");
	fakesys_disk(fs, "loop3", 7, 3, size);
	fakesys_attr(fs, "loop3", "loop/backing_file", "/img/d3.img\n");
	fakesys_holder(fs, "loop3", "dm-5");
}

bool fakesys_node(struct fakesys *fs, const char *rel, unsigned major, unsigned minor)
{
	char *p, *devrel;
	int r;

	ck_assert_int_ge(asprintf(&devrel, "dev/%s", rel), 0);
	p = fakesys_path(fs, devrel);
	free(devrel);
	mkdir_parent(p);
	r = mknod(p, S_IFBLK | 0600, makedev(major, minor));
	ck_assert_msg(r == 0 || errno == EPERM, "mknod %s: %m", p);
	free(p);
	return r == 0;
}

void fakesys_small_machine(struct fakesys *fs)
{
	fakesys_disk(fs, "sda", 8, 0, 2097152);
	fakesys_attr(fs, "sda", "device/wwid", "naa.600140512345678\n");
	fakesys_attr(fs, "sda", "device/serial", "SER123\n");
	fakesys_mkdir(fs, "sys/devices/virtual/block/sda/device/block/sda");
	fakesys_part(fs, "sda", "sda1", 8, 1, 4096, 1);
	fakesys_part(fs, "sda", "sda2", 8, 2, 8192, 2);
	fakesys_disk(fs, "loop0", 7, 0, 131072);
	fakesys_attr(fs, "loop0", "loop/backing_file", "/tmp/img/d1.img\n");
	fakesys_disk(fs, "loop1", 7, 1, 0);
	fakesys_disk(fs, "dm-0", 253, 0, 16384);
	fakesys_attr(fs, "dm-0", "dm/name", "vg1-lin\n");
	fakesys_attr(fs, "dm-0", "dm/uuid", FAKESYS_LV_UUID "\n");
	fakesys_holder(fs, "loop0", "dm-0");
	fakesys_disk(fs, "md0", 9, 0, 65536);
	fakesys_attr(fs, "md0", "md/uuid", "6b8b4567:327b23c6:643c9869:66334873\n");
	fakesys_disk(fs, "nvme0n1", 259, 0, 4194304);
	fakesys_attr(fs, "nvme0n1", "wwid", "eui.0025388b71b0a1c2\n");
	fakesys_part(fs, "nvme0n1", "nvme0n1p1", 259, 1, 2048, 1);
	fakesys_disk(fs, "zram0", 252, 0, 8192);
}

const struct pf_dev *fakesys_find_dev(const struct pf_dev_list *l, const char *kname)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->devs[i].kname, kname))
			return &l->devs[i];
	ck_abort_msg("no %s", kname);
	return NULL;
}
