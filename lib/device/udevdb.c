/* SPDX-License-Identifier: GPL-2.0-or-later */
/* udev's database entry of a block device, and what it says about reading the device now. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/fileio.h"
#include "device/udevdb.h"

/* An entry holds properties, links and tags: a few KiB; more is not udev's. */
#define UDEVDB_ENTRY_MAX (256U * 1024U)

bool pf_udevdb_running(const char *udev_dir)
{
	char path[4096];
	int n = snprintf(path, sizeof(path), "%s/control", udev_dir);

	return n > 0 && (size_t)n < sizeof(path) && access(path, F_OK) == 0;
}

/* line (len bytes) is exactly "E:KEY=1" */
static bool property_is_one(const char *line, size_t len, const char *key)
{
	size_t k = strlen(key);

	return len == k + 4 && memcmp(line, "E:", 2) == 0 && memcmp(line + 2, key, k) == 0 &&
	       memcmp(line + 2 + k, "=1", 2) == 0;
}

/*
 * line (len bytes) is "E:ID_FS_TYPE=" with a value other than LVM2_member. lvm2's rule runs
 * pvscan only on LVM2_member; an md member with its superblock at the end still shows the PV's
 * label at its start, and is no PV.
 */
static bool fs_type_not_pv(const char *line, size_t len)
{
	static const char key[] = "E:ID_FS_TYPE=", pv[] = "LVM2_member";
	size_t k = sizeof(key) - 1;

	if (len <= k || memcmp(line, key, k) != 0)
		return false;
	return len - k != sizeof(pv) - 1 || memcmp(line + k, pv, sizeof(pv) - 1) != 0;
}

enum pf_udevdb_verdict pf_udevdb_parse(const char *text, size_t len)
{
	enum pf_udevdb_verdict v = PF_UDEVDB_USE;
	size_t pos = 0;

	while (pos < len) {
		const char *nl = memchr(text + pos, '\n', len - pos);
		size_t n = nl ? (size_t)(nl - (text + pos)) : len - pos;

		if (property_is_one(text + pos, n, "DM_MULTIPATH_DEVICE_PATH"))
			return PF_UDEVDB_MPATH_PATH;
		if (property_is_one(text + pos, n, "DM_UDEV_DISABLE_OTHER_RULES_FLAG"))
			v = PF_UDEVDB_DM_PRIVATE;
		else if (v == PF_UDEVDB_USE && fs_type_not_pv(text + pos, n))
			v = PF_UDEVDB_NOT_PV;
		pos += n + 1;
	}
	return v;
}

int pf_udevdb_verdict(const char *udev_dir, unsigned major, unsigned minor,
		      enum pf_udevdb_verdict *ret)
{
	char path[4096];
	char *text = NULL;
	size_t len = 0;
	int n = snprintf(path, sizeof(path), "%s/data/b%u:%u", udev_dir, major, minor);
	int r;

	if (n < 0 || (size_t)n >= sizeof(path))
		return -ENAMETOOLONG;
	r = pf_read_file_at(AT_FDCWD, path, UDEVDB_ENTRY_MAX, &text, &len);
	if (r == -ENOENT) {
		*ret = PF_UDEVDB_UNPROCESSED;
		return 0;
	}
	if (r < 0)
		return r;
	*ret = pf_udevdb_parse(text, len);
	free(text);
	return 0;
}

const char *pf_udevdb_reason(enum pf_udevdb_verdict v)
{
	switch (v) {
	case PF_UDEVDB_UNPROCESSED:
		return "device not processed by udev yet: read when its event comes";
	case PF_UDEVDB_MPATH_PATH:
		return "device is a multipath path (udev)";
	case PF_UDEVDB_DM_PRIVATE:
		return "device-mapper device not ready (udev)";
	case PF_UDEVDB_NOT_PV:
		return "udev found another signature than a PV's on it";
	case PF_UDEVDB_USE:
		break;
	}
	return "";
}
