/* SPDX-License-Identifier: GPL-2.0-or-later */
/* libdevmapper: the LV's state by UUID, CREATE + LOAD + RESUME with a shared udev cookie. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <libdevmapper.h>
#include <linux/fs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "activate/dm.h"
#include "base/clock.h"
#include "base/grow.h"
#include "base/stop.h"

#define WAIT_POLL_MS 5U
/* Undoing a half-made device is a failure path: it must not hold the leader long. */
#define REMOVE_UDEV_TIMEOUT_MS (10U * 1000U)

int pf_dm_lv_state(const struct pf_dm_table *t, enum pf_dm_lv_state *ret)
{
	struct dm_task *dmt;
	struct dm_info info;
	int r = 0;

	dmt = dm_task_create(DM_DEVICE_INFO);
	if (!dmt)
		return -ENOMEM;
	/* lvm2 finds LVs by UUID, never by name */
	if (!dm_task_set_uuid(dmt, t->uuid) || !dm_task_no_open_count(dmt) || !dm_task_run(dmt) ||
	    !dm_task_get_info(dmt, &info)) {
		r = -EIO;
		goto out;
	}
	if (!info.exists)
		*ret = PF_DM_LV_ABSENT;
	else if (!info.suspended && info.live_table && !info.read_only == !t->read_only)
		*ret = PF_DM_LV_ACTIVE;
	else
		*ret = PF_DM_LV_OTHER;
out:
	dm_task_destroy(dmt);
	return r;
}

bool pf_dm_targets_available(const struct pf_dm_table *t, const char *sys_dir)
{
	char path[512];
	struct stat st;

	for (size_t i = 0; i < t->n_targets; i++) {
		if (strcmp(t->targets[i].type, "zero") != 0)
			continue;
		(void)snprintf(path, sizeof(path), "%s/module/dm_zero", sys_dir);
		return stat(path, &st) == 0;
	}
	return true;
}

/*
 * Wait for udev to count cookie down, polled rather than dm_udev_wait(): a udevd that died and
 * left its control socket behind would make that wait for ever (lvm2 hangs there, deaf to
 * SIGTERM). On the deadline, or when told to stop, the rest is counted off here, so the
 * semaphore goes and none is left behind. 0 or -ETIMEDOUT or -EIO.
 */
static int wait_cookie(uint32_t cookie, unsigned timeout_ms)
{
	uint64_t deadline = pf_now_ns() + (uint64_t)timeout_ms * NSEC_PER_MSEC;
	int ready = 0;

	for (;;) {
		if (!dm_udev_wait_immediate(cookie, &ready))
			return -EIO;
		if (ready)
			return 0;
		/* udev makes the nodes without us; the VGs are reported as they are */
		if (pf_now_ns() >= deadline || pf_stop_requested())
			break;
		pf_sleep_ms(WAIT_POLL_MS);
	}
	while (!ready && dm_udev_complete(cookie) && dm_udev_wait_immediate(cookie, &ready))
		;
	return -ETIMEDOUT;
}

bool pf_dm_udev_disabled(void)
{
	return getenv("DM_DISABLE_UDEV") != NULL;
}

struct pf_dm_udev pf_dm_udev_policy(bool disable_udev, bool udev_rules, bool udev_sync,
				    bool verify_udev_operations)
{
	struct pf_dm_udev u = { 0 };

	if (disable_udev)
		udev_rules = udev_sync = false;
	u.no_rules = !udev_rules;
	u.no_sync = !udev_sync;
	u.nodes_ours = !udev_rules || verify_udev_operations;
	return u;
}

/*
 * lvm2's flags for a visible top-level LV. Unless the nodes are ours, the library must not make
 * them either: udev does, even when it is not running yet (lvm2 leaves them to it too).
 */
static uint16_t lv_udev_flags(const struct pf_dm_udev *u)
{
	uint16_t f = u->nodes_ours ? 0 : DM_UDEV_DISABLE_LIBRARY_FALLBACK;

	if (u->no_rules)
		f |= DM_UDEV_DISABLE_DM_RULES_FLAG | DM_UDEV_DISABLE_SUBSYSTEM_RULES_FLAG;
	/* libdevmapper's switch is global: lvm2 sets it from udev_sync once per command */
	if (u->no_sync)
		dm_udev_set_sync_support(0);
	return f;
}

/* Undo a half-made device, with a cookie of its own so udev forgets it too. */
static void remove_device(const char *name, const struct pf_dm_udev *u)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_REMOVE);
	uint32_t cookie = 0;

	if (!dmt)
		return;
	if (dm_task_set_name(dmt, name) && dm_task_set_cookie(dmt, &cookie, lv_udev_flags(u)))
		(void)dm_task_run(dmt);
	if (cookie)
		(void)wait_cookie(cookie, REMOVE_UDEV_TIMEOUT_MS);
	else
		dm_task_update_nodes(); /* without udev the library removes the node itself */
	dm_task_destroy(dmt);
}

static int create_device(const struct pf_dm_table *t, struct dm_info *info, struct pf_diag *reterr)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_CREATE);
	int r = 0;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_name(dmt, t->name) || !dm_task_set_uuid(dmt, t->uuid) ||
	    (t->read_only && !dm_task_set_ro(dmt)) || !dm_task_no_open_count(dmt)) {
		r = -ENOMEM;
		goto out;
	}
	if (!dm_task_run(dmt) || !dm_task_get_info(dmt, info) || !info->exists) {
		/* a name or UUID in use: lvm2 fails the same way (EBUSY) */
		r = -EBUSY;
		pf_diag_msg(reterr, "cannot create %s (%s): in use, or the kernel refused", t->name,
			    t->uuid);
	}
out:
	dm_task_destroy(dmt);
	return r;
}

static int load_table(const struct pf_dm_table *t, const struct dm_info *info,
		      struct pf_diag *reterr)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_RELOAD);
	int r = 0;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_major(dmt, info->major) || !dm_task_set_minor(dmt, info->minor) ||
	    (t->read_only && !dm_task_set_ro(dmt)) || !dm_task_no_open_count(dmt)) {
		r = -ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < t->n_targets; i++) {
		const struct pf_dm_target *tg = &t->targets[i];

		if (!dm_task_add_target(dmt, tg->start_sectors, tg->len_sectors, tg->type,
					tg->params)) {
			r = -ENOMEM;
			goto out;
		}
	}
	if (!dm_task_run(dmt)) {
		r = -EINVAL;
		pf_diag_msg(reterr, "the kernel refused the table of %s", t->name);
	}
out:
	dm_task_destroy(dmt);
	return r;
}

static int resume(struct pf_dm_batch *b, const struct pf_dm_table *t, const struct dm_info *info,
		  uint32_t pv_read_ahead, struct pf_diag *reterr)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_RESUME);
	uint32_t ra = DM_READ_AHEAD_AUTO, ra_flags = 0;
	int r = 0;

	if (!dmt)
		return -ENOMEM;
	switch (t->read_ahead.kind) {
	case PF_DM_RA_LEAVE:
		break;
	case PF_DM_RA_SET:
		ra = t->read_ahead.sectors;
		break;
	case PF_DM_RA_MINIMUM:
		ra = t->read_ahead.sectors;
		ra_flags = DM_READ_AHEAD_MINIMUM_FLAG;
		break;
	case PF_DM_RA_MINIMUM_PV:
		ra = pv_read_ahead;
		ra_flags = DM_READ_AHEAD_MINIMUM_FLAG;
		break;
	}
	/*
	 * Always a cookie, even where nobody waits: without one libdevmapper thinks its caller
	 * knows nothing of udev, makes a real node in /dev/mapper and udev skips the LVM rules.
	 */
	if (!dm_task_set_name(dmt, t->name) || !dm_task_set_major(dmt, info->major) ||
	    !dm_task_set_minor(dmt, info->minor) || !dm_task_no_open_count(dmt) ||
	    (ra != DM_READ_AHEAD_AUTO && !dm_task_set_read_ahead(dmt, ra, ra_flags)) ||
	    !dm_task_set_cookie(dmt, &b->cookie, lv_udev_flags(&b->udev))) {
		r = -ENOMEM;
		goto out;
	}
	if (!dm_task_run(dmt)) {
		r = -EIO;
		pf_diag_msg(reterr, "cannot resume %s", t->name);
		goto out;
	}
	b->resumed++;
out:
	dm_task_destroy(dmt);
	return r;
}

int pf_dm_activate(struct pf_dm_batch *b, const struct pf_dm_table *t, uint32_t pv_read_ahead,
		   struct pf_diag *reterr, unsigned *ret_major, unsigned *ret_minor)
{
	struct dm_info info;
	int r;

	r = create_device(t, &info, reterr);
	if (r < 0)
		return r;
	r = load_table(t, &info, reterr);
	if (r == 0)
		r = resume(b, t, &info, pv_read_ahead, reterr);
	if (r < 0) {
		remove_device(t->name, &b->udev);
		return r;
	}
	*ret_major = info.major;
	*ret_minor = info.minor;
	return 0;
}

int pf_dm_cookie_release(uint32_t cookie)
{
	int r = wait_cookie(cookie, 0);

	return r == -ETIMEDOUT ? 0 : r;
}

int pf_dm_wait(struct pf_dm_batch *b, unsigned timeout_ms)
{
	int r = 0;

	if (!b->cookie)
		(void)dm_udev_wait(0); /* nothing to wait for; still applies stacked read-ahead */
	else
		r = wait_cookie(b->cookie, timeout_ms);
	b->cookie = 0;
	b->resumed = 0;
	return r;
}

int pf_dm_bdev_read_ahead(const char *path, uint32_t *ret)
{
	long ra = 0;
	int fd, r = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (ioctl(fd, BLKRAGET, &ra) < 0)
		r = -errno;
	else if (ra < 0 || (unsigned long)ra > UINT32_MAX)
		r = -ERANGE;
	(void)close(fd);
	if (r == 0)
		*ret = (uint32_t)ra;
	return r;
}

bool pf_dm_available(const char *dev_dir)
{
	char path[512];
	int fd;

	(void)snprintf(path, sizeof(path), "%s/mapper/control", dev_dir);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return false;
	(void)close(fd);
	return true;
}

void pf_dm_release(void)
{
	dm_lib_release();
}

/* One device's UUID and state, by name; a device gone since the list is left out (1). */
static int dev_info(const char *name, struct pf_dm_dev *ret)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_INFO);
	struct dm_info info;
	const char *uuid;
	int r = 0;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_set_name(dmt, name) || !dm_task_no_open_count(dmt) || !dm_task_run(dmt) ||
	    !dm_task_get_info(dmt, &info)) {
		r = -EIO;
		goto out;
	}
	if (!info.exists) {
		r = 1;
		goto out;
	}
	uuid = dm_task_get_uuid(dmt);
	(void)snprintf(ret->name, sizeof(ret->name), "%s", name);
	(void)snprintf(ret->uuid, sizeof(ret->uuid), "%s", uuid ? uuid : "");
	ret->live = info.live_table && !info.suspended;
out:
	dm_task_destroy(dmt);
	return r;
}

int pf_dm_list(struct pf_dm_dev **ret, size_t *ret_n)
{
	struct dm_task *dmt = dm_task_create(DM_DEVICE_LIST);
	struct pf_dm_dev *devs = NULL;
	size_t n = 0, cap = 0;
	struct dm_names *names;
	int r = 0;

	if (!dmt)
		return -ENOMEM;
	if (!dm_task_run(dmt) || !(names = dm_task_get_names(dmt))) {
		r = -EIO;
		goto out;
	}
	/* an empty list is one entry with dev 0 */
	for (unsigned next = names->dev ? 1 : 0; next && r == 0;) {
		int k;

		r = pf_grow(&devs, &cap, n + 1, PF_DM_LIST_MAX);
		if (r < 0)
			break;
		k = dev_info(names->name, &devs[n]);
		if (k < 0)
			r = k;
		else if (k == 0)
			n++;
		next = names->next;
		names = (struct dm_names *)(void *)((char *)names + next);
	}
out:
	dm_task_destroy(dmt);
	if (r < 0) {
		free(devs);
		return r;
	}
	*ret = devs;
	*ret_n = n;
	return 0;
}
