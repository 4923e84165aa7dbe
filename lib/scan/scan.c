/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The scan pipeline: candidates -> lvm2's filters -> one async read of all -> duplicates. */
#include "config.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/keyorder.h"
#include "base/strutil.h"
#include "config/settings.h"
#include "device/devicesfile.h"
#include "device/devnames.h"
#include "device/devtypes.h"
#include "device/filter.h"
#include "device/sysfs.h"
#include "device/udevdb.h"
#include "io/reader.h"
#include "io/stuck.h"
#include "scan/scan.h"
#include "state/lvmlock.h"

/* Names one device may be matched by: its path plus aliases (capped in devnames.h). */
#define NAMES_MAX (1U + PF_DEVNAMES_ALIASES_MAX)
/* Attribute reads done here are tiny numbers ("partition"). */
#define SMALL_ATTR_MAX 32U

struct filters {
	struct pf_devfilter *types;
	struct pf_filter *global, *filter;
	struct pf_devicesfile *devfile; /* NULL: no devices file in use */
	bool relaxed;		    /* devname entries: match by PVID after reading */
	struct pf_diag unlocked;    /* see pf_scan.devfile_unlocked */
};

static void filters_release(struct filters *f)
{
	f->types = pf_devtypes_filter_free(f->types);
	f->global = pf_filter_free(f->global);
	f->filter = pf_filter_free(f->filter);
	f->devfile = pf_devicesfile_free(f->devfile);
}

static void excluded(struct pf_scan_dev *d, const char *reason)
{
	d->outcome = PF_SCAN_EXCLUDED;
	(void)snprintf(d->reason, sizeof(d->reason), "%s", reason);
}

static int load_devfile(const struct pf_scan_opts *o, struct filters *f)
{
	const struct pf_settings *st = o->settings;
	struct pf_lvmlock dlock = { .fd = -1 };
	_cleanup_free_ char *path = NULL;
	struct pf_diag diag = { 0 };
	int r;

	if (o->devicesfile) {
		if (!o->devicesfile[0])
			return 0;
		/* A name, not a path: it lives in <etc>/devices/ as in lvm2. */
		if (strchr(o->devicesfile, '/'))
			return -EINVAL;
		if (asprintf(&path, "%s/devices/%s", o->paths->etc, o->devicesfile) < 0)
			return -ENOMEM;
	} else if (st->use_devicesfile && st->devicesfile_path) {
		path = strdup(st->devicesfile_path);
		if (!path)
			return -ENOMEM;
	} else {
		return 0;
	}
	/*
	 * lvm2 reads it under a shared flock of D_<name>, which lvmdevices takes to write it.
	 * Without the lock it is read anyway, as lvm2 does with a lock dir it cannot use:
	 * lvmdevices replaces the file by a rename, so a reader never sees half of it.
	 */
	r = pf_lvmlock_devices_file(o->paths->lock, strrchr(path, '/') + 1,
				    o->lock_timeout_ms ? o->lock_timeout_ms
						       : PF_LVMLOCK_TIMEOUT_MS_DEFAULT,
				    &dlock, &diag);
	if (r == -ETIMEDOUT || r == -EPERM)
		f->unlocked = diag;
	if (r < 0)
		dlock.fd = -1;
	r = pf_devicesfile_load(path, &f->devfile, NULL);
	pf_lvmlock_release(&dlock);
	if (r == -ENOENT) /* compat: a devices file that does not exist disables it */
		return 0;
	if (r < 0)
		return r;
	f->relaxed = pf_devicesfile_uses_devname(f->devfile);
	return 0;
}

static int filters_setup(const struct pf_scan_opts *o, struct filters *f)
{
	const struct pf_settings *st = o->settings;
	_cleanup_free_ const char **names = NULL;
	_cleanup_free_ int *parts = NULL;
	struct pf_devfilter_cfg cfg = {
		.scan_lvs = st->scan_lvs,
		.multipath_component_detection = st->multipath_component_detection,
		.md_component_detection = st->md_component_detection,
		.pv_min_size_bytes = (uint64_t)st->pv_min_size_kib * 1024U,
		.multipath_wwids_file = st->multipath_wwids_file,
	};
	int r;

	names = calloc(st->n_types + 1, sizeof(*names));
	parts = calloc(st->n_types + 1, sizeof(*parts));
	if (!names || !parts)
		return -ENOMEM;
	for (size_t i = 0; i < st->n_types; i++) {
		names[i] = st->types[i].name;
		parts[i] = (int)st->types[i].max_partitions;
	}
	cfg.extra_types = names;
	cfg.extra_type_parts = parts;
	cfg.n_extra_types = st->n_types;
	r = pf_devtypes_filter_new(&cfg, &f->types);
	if (r < 0)
		return r;
	r = load_devfile(o, f);
	if (r < 0)
		return r;
	/* compat: with a devices file in use lvm2 ignores filter and global_filter. */
	if (f->devfile)
		return 0;
	return pf_settings_compile_filters(st, &f->global, &f->filter, NULL);
}

/*
 * Whether the regex filters must see every /dev name of a device: always in a
 * full scan, where lvm2 has walked /dev and any name may match first; for named
 * devices only when an accepting entry names a symlink (lvm2 then walks /dev
 * for them, and says so).
 */
static bool filters_need_aliases(const struct filters *f, bool named)
{
	if (!named)
		return f->global || f->filter;
	return (f->global && pf_filter_uses_symlinks(f->global)) ||
	       (f->filter && pf_filter_uses_symlinks(f->filter));
}

/* The device-id match against the devices file; a partition is matched with its disk's ids. */
static int devfile_matches(const struct pf_scan_opts *o, const struct filters *f,
			   const struct pf_dev *d, bool *ret)
{
	struct pf_dev parent = { 0 };
	_cleanup_free_ char *part = NULL;
	int partition = 0, r;

	if (d->is_partition && d->parent_kname) {
		r = pf_sysfs_lookup_kname(o->paths, d->parent_kname, &parent);
		if (r < 0 && r != -ENOENT)
			return r;
		if (pf_sysfs_read_attr(o->paths, d->kname, "partition", SMALL_ATTR_MAX, &part) == 0)
			partition = pf_atoi(part);
	}
	*ret = pf_devicesfile_match_dev(f->devfile, d, parent.kname ? &parent : NULL, partition);
	pf_dev_release(&parent);
	return 0;
}

/* The filters lvm2 applies before reading: regex, device type and usability, devices file. */
static int filter_nodata(const struct pf_scan_opts *o, const struct filters *f,
			 struct pf_scan_dev *d)
{
	const char *reason = NULL;
	bool passes = true;
	int r;

	if (f->global || f->filter) {
		const char *names[NAMES_MAX], *order[NAMES_MAX];
		int n = pf_devnames_lvm_names(o->paths, &d->dev, order, NAMES_MAX);

		if (n < 0)
			return n;
		if (n > 0) {
			/* The filters see the names in lvm2's order, not in walk order. */
			struct pf_dev view = d->dev;

			view.path = (char *)order[0];
			view.aliases = (char **)&order[1];
			view.n_aliases = (size_t)n - 1;
			r = pf_filters_check_dev(f->global, f->filter, &view, names, (size_t)n,
						 &passes);
			if (r < 0)
				return r;
			/* An accept by another name makes it the one lvm2 prints and records. */
			if (passes && strcmp(names[0], d->name) != 0)
				d->name = names[0];
		}
		if (!passes) {
			excluded(d, "device is rejected by filter config");
			return 0;
		}
	}
	r = pf_devtypes_check_nodata(f->types, o->paths, &d->dev, &reason);
	if (r < 0)
		return r;
	if (r > 0) {
		excluded(d, reason);
		return 0;
	}
	if (f->devfile && !f->relaxed) {
		r = devfile_matches(o, f, &d->dev, &passes);
		if (r < 0)
			return r;
		if (!passes)
			excluded(d, "device is not in devices file");
	}
	return 0;
}

/* The checks that need the device's bytes (its first ones, its end), once a label is known. */
static int filter_data(const struct filters *f, struct pf_scan_dev *d)
{
	const struct pf_probe *p = &d->probe;
	const char *reason = NULL;
	int r;

	if (f->devfile && f->relaxed && !pf_devicesfile_find_pvid(f->devfile, p->label.pvid)) {
		d->outcome = PF_SCAN_EXCLUDED;
		d->pvid_check = true;
		(void)snprintf(d->reason, sizeof(d->reason), "by devices file (checking PVID)");
		return 0;
	}
	if (p->head_status == 0) {
		r = pf_devtypes_check_data(f->types, &d->dev, &p->head, &reason);
		if (r > 0)
			excluded(d, reason);
		if (r != 0)
			return r < 0 ? r : 0;
	}
	/* lvm2's full md check: its md filter also looks at the end, which the probe read. */
	if (p->md.when == PF_PROBE_MD_END_ALWAYS && p->md_end_kind != PF_MDSB_END_NONE)
		excluded(d, pf_devtypes_reason(PF_DEVFILTER_MD_COMPONENT));
	return 0;
}

/*
 * lvm2's use_full_md_check: md_component_checks=full, or auto when the devices
 * it knows of include an md array whose members keep their superblock at the
 * end (every device in a full scan; only the named ones otherwise).
 */
static int md_full_check(const struct pf_scan_opts *o, const struct pf_scan *s, bool *ret)
{
	const struct pf_settings *st = o->settings;
	const char *checks = st->md_component_checks ? st->md_component_checks : "auto";
	int r;

	*ret = strcmp(checks, "full") == 0;
	if (*ret || !st->md_component_detection || strcmp(checks, "auto") != 0)
		return 0;
	for (size_t i = 0; i < s->n; i++) {
		if (s->devs[i].outcome == PF_SCAN_NO_DEVICE)
			continue;
		r = pf_devtypes_md_end_array(o->paths, &s->devs[i].dev);
		if (r < 0)
			return r;
		if (r > 0) {
			*ret = true;
			break;
		}
	}
	return 0;
}

/*
 * When a device's probe looks for md superblocks at the end: always with the
 * full check (if md detection is on: the filter makes it); else where the
 * metadata hints at md, which pvscan itself checks whatever md detection says
 * (not on md arrays: lvm2 skips its own md major there).
 */
static enum pf_probe_md_end md_when(const struct pf_settings *st, bool md_full,
				    const struct pf_dev *dev)
{
	if (md_full)
		return st->md_component_detection ? PF_PROBE_MD_END_ALWAYS : PF_PROBE_MD_END_NEVER;
	if (dev->type_name && strcmp(dev->type_name, "md") == 0)
		return PF_PROBE_MD_END_NEVER;
	return PF_PROBE_MD_END_HINTED;
}

/* Move enumerated or looked-up devices into scan entries. */
static int take_devices(struct pf_scan *s, struct pf_dev_list *list)
{
	s->devs = calloc(list->n ? list->n : 1, sizeof(*s->devs));
	if (!s->devs)
		return -ENOMEM;
	for (size_t i = 0; i < list->n; i++) {
		s->devs[i].dev = list->devs[i];
		memset(&list->devs[i], 0, sizeof(list->devs[i]));
		s->devs[i].name = s->devs[i].dev.path;
		s->devs[i].outcome = PF_SCAN_READ;
	}
	s->n = list->n;
	return 0;
}

static int resolve_args(const struct pf_scan_opts *o, struct pf_scan *s)
{
	s->devs = calloc(o->n_args ? o->n_args : 1, sizeof(*s->devs));
	if (!s->devs)
		return -ENOMEM;
	for (size_t i = 0; i < o->n_args; i++) {
		const struct pf_scan_arg *a = &o->args[i];
		struct pf_scan_dev *d = &s->devs[s->n++];
		int r;

		d->arg = a;
		r = a->path ? pf_sysfs_lookup_path(o->paths, a->path, &d->dev)
			    : pf_sysfs_lookup_devno(o->paths, a->major, a->minor, &d->dev);
		if (r == -ENOENT || r == -ENOTBLK || r == -EBADMSG) {
			d->outcome = PF_SCAN_NO_DEVICE;
			d->status = r;
			d->name = a->path;
			continue;
		}
		if (r < 0)
			return r;
		d->outcome = PF_SCAN_READ;
		d->name = a->path ? a->path : d->dev.path;
	}
	return 0;
}

/* Load /dev aliases for the devices still in play, when a filter pattern names symlinks. */
static int load_aliases(const struct pf_scan_opts *o, struct pf_scan *s)
{
	struct pf_dev_list list;
	int r;

	list.devs = calloc(s->n ? s->n : 1, sizeof(*list.devs));
	if (!list.devs)
		return -ENOMEM;
	list.n = s->n;
	for (size_t i = 0; i < s->n; i++)
		list.devs[i] = s->devs[i].dev;
	r = pf_devnames_load_aliases(o->paths, &list);
	if (r == 0)
		for (size_t i = 0; i < s->n; i++)
			s->devs[i].dev = list.devs[i];
	free(list.devs); /* the entries are owned by s->devs */
	return r == -ENOENT ? 0 : r;
}

static void read_failed(struct pf_scan_dev *d, int status)
{
	d->outcome = PF_SCAN_FAILED;
	d->status = status;
}

/* Open every survivor and read them all at once; probes end up complete or failed. */
static int read_all(const struct pf_scan_opts *o, struct pf_scan *s, bool md_full)
{
	_cleanup_free_ struct pf_reader_dev *rd = NULL;
	_cleanup_free_ size_t *which = NULL;
	uint64_t budget = o->mem_budget_bytes ? o->mem_budget_bytes : pf_scan_default_budget();
	/*
	 * The probes stop at twice the pass's budget while they read, whatever the order the
	 * devices answer in, so that hostile metadata cannot take the leader's memory before
	 * apply_budget() below decides, in scan order, what the pass keeps.
	 */
	struct pf_probe_budget reading = { .limit = budget > UINT64_MAX / 2 ? UINT64_MAX
									   : 2 * budget };
	_cleanup_free_ char *stuck_dir = pf_stuck_dir(o->paths->run);
	struct pf_reader_opts ro = { .proc_dir = o->paths->proc, .no_aio = o->no_aio,
				     .budget = &reading, .stuck_dir = stuck_dir };
	size_t n = 0;
	int r;

	if (!stuck_dir)
		return -ENOMEM;

	rd = calloc(s->n ? s->n : 1, sizeof(*rd));
	which = calloc(s->n ? s->n : 1, sizeof(*which));
	if (!rd || !which)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++) {
		if (s->devs[i].outcome != PF_SCAN_READ)
			continue;
		rd[n].path = s->devs[i].dev.path;
		rd[n].probe = &s->devs[i].probe;
		rd[n].md_end = md_when(o->settings, md_full, &s->devs[i].dev);
		which[n++] = i;
	}
	s->n_candidates = n;
	if (n == 0)
		return 0;
	ro.timeout_ms = o->timeout_ms ? o->timeout_ms : o->settings->scan_timeout_sec * 1000U;
	r = pf_reader_scan_paths(rd, n, &ro, &s->nofile_limited);
	for (size_t k = 0; k < n; k++) {
		struct pf_scan_dev *d = &s->devs[which[k]];

		if (rd[k].status < 0) {
			read_failed(d, rd[k].status);
			d->diag = rd[k].diag;
			d->reader_lost = rd[k].reader_lost;
		}
		if (rd[k].opened)
			s->n_read++;
		s->bytes_read += rd[k].bytes_read;
		s->reads += rd[k].n_reads;
	}
	return r;
}

uint64_t pf_scan_default_budget(void)
{
	/*
	 * A pass holds metadata in three places at once: the reader's probes and their shadows
	 * (io/tee.h) and the caller's replay, each reading up to twice the budget. A 24th of
	 * memory each keeps all of them within a quarter, which leaves the rest of a boot (the
	 * initramfs's tmpfs, udev's workers, the activations) room, so the leader is not what
	 * the OOM killer takes when hostile devices show up; the cap keeps a big machine from
	 * granting one pass more than legitimate metadata needs. A parsed copy keeps about six
	 * times its text plus 20 KiB (a VG of 320 LVs: 91 KiB of text, 556 KiB kept): a hundred
	 * PVs of an ordinary VG keep a few MiB, a thousand PVs of a VG with 500 LVs, one copy
	 * each (pvcreate's default), about 1 GiB (the budget of a 24 GiB machine). A host past
	 * the budget gets every skipped device named, not a silent guess.
	 */
	long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
	uint64_t share;

	if (pages <= 0 || page <= 0)
		return PF_SCAN_BUDGET_MAX;
	share = (uint64_t)pages / 24U * (uint64_t)page;
	return share < PF_SCAN_BUDGET_MAX ? share : PF_SCAN_BUDGET_MAX;
}

/*
 * Charge what each device read keeps against the pass's budget, in scan order (lvm2's order
 * for a full scan, else the order named), so which devices are dropped does not depend on
 * how the reads happened to complete. A device that does not fit (or that the reads already
 * refused) is freed and left out, named; the devices after it that still fit are kept, so
 * one giant set of metadata costs its own device, not every device behind it.
 */
static void apply_budget(struct pf_scan *s, uint64_t budget)
{
	s->mem_budget_bytes = budget;
	for (size_t i = 0; i < s->n; i++) {
		struct pf_scan_dev *d = &s->devs[i];
		uint64_t need;

		if (d->outcome != PF_SCAN_READ)
			continue;
		need = pf_probe_bytes(&d->probe);
		if (need == 0 && !d->probe.over_budget)
			continue;
		if (!d->probe.over_budget && need <= budget - s->mem_used_bytes) {
			s->mem_used_bytes += need;
			continue;
		}
		pf_probe_release(&d->probe);
		read_failed(d, -ENOMEM);
		d->over_budget = true;
		pf_diag_msg(&d->diag, "metadata memory budget of %llu MiB for this scan is used up",
			    (unsigned long long)(budget >> 20));
		s->n_over_budget++;
	}
}

static void classify(const struct filters *f, struct pf_scan *s, int *err)
{
	for (size_t i = 0; i < s->n && !*err; i++) {
		struct pf_scan_dev *d = &s->devs[i];

		if (d->outcome != PF_SCAN_READ)
			continue;
		switch (d->probe.label_status) {
		case 0:
			*err = filter_data(f, d);
			break;
		case -ENODATA:
			d->outcome = PF_SCAN_NOT_LVM;
			break;
		case -EBADMSG: /* a damaged label: pvscan reports it ("no lvm info") */
			break;
		default:
			read_failed(d, d->probe.label_status < 0 ? d->probe.label_status : -EIO);
			d->diag = d->probe.label_diag;
		}
	}
}

/* lvm2's dev_is_used_by_active_lv(): an LV's dm device holds it. Asked of duplicates only. */
static bool used_by_lv(const struct pf_paths *paths, const struct pf_scan_dev *d)
{
	for (size_t i = 0; i < d->dev.n_holders; i++) {
		char *uuid = NULL;
		bool lv = pf_sysfs_read_attr(paths, d->dev.holders[i], "dm/uuid", 256, &uuid) == 0 &&
			  strncmp(uuid, "LVM-", 4) == 0;

		free(uuid);
		if (lv)
			return true;
	}
	return false;
}

/* The device has the ID the PV's metadata records (device_id_type, device_id). */
static bool has_recorded_id(const struct pf_paths *paths, const struct pf_scan_dev *d,
			    const struct pf_vg_pv *pv)
{
	struct pf_dev parent = { 0 };
	bool have_parent = false, same = false;
	enum pf_devicesfile_idtype t;
	char *id = NULL;

	if (!pv->device_id_type || !pv->device_id)
		return false;
	t = pf_devicesfile_idtype_parse(pv->device_id_type);
	if (t == PF_DEVICESFILE_ID_NONE)
		return false;
	if (d->dev.parent_kname)
		have_parent = pf_sysfs_lookup_kname(paths, d->dev.parent_kname, &parent) == 0;
	if (pf_devicesfile_dev_id(&d->dev, have_parent ? &parent : NULL, t, &id) == 0)
		same = strcmp(id, pv->device_id) == 0;
	free(id);
	if (have_parent)
		pf_dev_release(&parent);
	return same;
}

/* What lvm2 weighs for a device of a duplicated PV, in its order (see compare_dups). */
enum { DUP_ID, DUP_LV, DUP_SIZE, DUP_NAME, DUP_FS, DUP_DM, DUP_SUBSYS, _DUP_FACTS };

static const char *const dup_why[_DUP_FACTS] = {
	[DUP_ID] = "device id",
	[DUP_LV] = "device is used by LV",
	[DUP_SIZE] = "device size is correct",
	[DUP_NAME] = "device name matches previous",
	[DUP_FS] = "device has fs mounted",
	[DUP_DM] = "device is in dm subsystem",
	[DUP_SUBSYS] = "device is in subsystem",
};

/* lvm2's dev_subsystem_part_major(): dm, md (or a partition of md), drbd, emcpower... */
static bool in_subsystem(const struct pf_dev *d)
{
	static const char *const types[] = { "device-mapper", "md", "drbd", "emcpower", "power2",
					     "vxdmp" };

	for (size_t i = 0; d->type_name && i < ARRAY_SIZE(types); i++)
		if (strcmp(d->type_name, types[i]) == 0)
			return true;
	return d->type_name && strcmp(d->type_name, "blkext") == 0 && d->parent_kname &&
	       strncmp(d->parent_kname, "md", 2) == 0;
}

static void dup_facts(const struct pf_paths *paths, const struct pf_scan_dev *d, bool summary,
		      bool ret[_DUP_FACTS])
{
	const struct pf_vg *vg = pf_probe_vg(&d->probe);
	int i = vg ? pf_vg_find_pv(vg, d->probe.label.pvid) : -1;
	const struct pf_vg_pv *pv = i >= 0 ? &vg->pvs[i] : NULL;

	memset(ret, 0, _DUP_FACTS * sizeof(*ret));
	if (summary && pv) {
		ret[DUP_ID] = has_recorded_id(paths, d, pv);
		ret[DUP_SIZE] = pv->has_dev_size && pv->dev_size * 512U == d->probe.dev_size_bytes;
		ret[DUP_NAME] = pv->device && strcmp(pv->device, d->name) == 0;
	}
	ret[DUP_LV] = used_by_lv(paths, d);
	ret[DUP_FS] = pf_sysfs_has_mounted_fs(paths, d->dev.major, d->dev.minor, d->dev.kname);
	ret[DUP_DM] = d->dev.dm_uuid != NULL;
	ret[DUP_SUBSYS] = in_subsystem(&d->dev);
}

/*
 * Of two devices carrying the same PVID, whether lvm2 would use b rather than a (already
 * preferred, or seen first), and why. lvm2's order (_choose_duplicates): a previous choice,
 * the device ID the metadata records, an active LV on it, the size the metadata gives, the
 * name the metadata last saw, a mounted fs, dm, another subsystem, else the first seen. Not
 * judged here: a previous choice (there is none within one scan). Devices named together (summary false) are told apart before lvm2 has read
 * the metadata summary, and the first named is kept.
 */
static const char *compare_dups(const struct pf_paths *paths, const struct pf_scan_dev *a,
				const struct pf_scan_dev *b, bool summary, bool *ret_b_wins)
{
	bool fa[_DUP_FACTS], fb[_DUP_FACTS];

	dup_facts(paths, a, summary, fa);
	dup_facts(paths, b, summary, fb);
	*ret_b_wins = false;
	for (size_t k = 0; k < _DUP_FACTS; k++) {
		if (fa[k] == fb[k])
			continue;
		if (!summary && fb[k])
			break; /* lvm2 keeps the first named whatever the other has */
		*ret_b_wins = fb[k];
		return dup_why[k];
	}
	return "device was seen first";
}

static bool dup_candidate(const struct pf_scan_dev *d)
{
	return d->outcome == PF_SCAN_READ && d->probe.label_status == 0;
}

static const char *pvid_key(const void *ctx, size_t i)
{
	return ((const struct pf_scan_dev *)ctx)[i].probe.label.pvid;
}

/*
 * Every pair of devices with one PVID, in scan order, as lvm2 meets them; the pairs are found
 * by sorting, as thousands of PVs must not cost a comparison each with every other.
 */
static int settle_duplicates(const struct pf_paths *paths, struct pf_scan *s, bool summary)
{
	_cleanup_free_ size_t *order = calloc(s->n ? s->n : 1, sizeof(*order));
	const struct pf_keyorder by_pvid = { pvid_key, s->devs };
	size_t m = 0;

	if (!order)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		if (dup_candidate(&s->devs[i]))
			order[m++] = i;
	/* a PVID's devices are compared among themselves only, in scan order */
	pf_keyorder_sort(&by_pvid, order, m);
	for (size_t g = 0, e; g < m; g = e) {
		e = pf_keyorder_run_end(&by_pvid, order, m, g);
		for (size_t x = g; x + 1 < e; x++) {
			struct pf_scan_dev *a = &s->devs[order[x]];

			if (!dup_candidate(a))
				continue;
			for (size_t y = x + 1; y < e; y++) {
				struct pf_scan_dev *b = &s->devs[order[y]], *loser, *winner;
				char id[PF_ID_DASHED_LEN + 1];
				const char *why;
				bool b_wins;

				if (!dup_candidate(b) ||
				    (a->dev.major == b->dev.major && a->dev.minor == b->dev.minor))
					continue;
				why = compare_dups(paths, a, b, summary, &b_wins);
				winner = b_wins ? b : a;
				loser = b_wins ? a : b;
				loser->outcome = PF_SCAN_DUPLICATE;
				loser->dup_of = (size_t)(winner - s->devs);
				winner->prefer_reason = why;
				pf_id_format_dashed(loser->probe.label.pvid, id);
				(void)snprintf(loser->reason, sizeof(loser->reason), "%s", id);
				if (loser == a)
					break;
			}
		}
	}
	/*
	 * A device that lost to one that lost later points at the final winner. Each device
	 * loses once, to one still in play, so the chains end.
	 */
	for (size_t i = 0; i < s->n; i++)
		while (s->devs[i].outcome == PF_SCAN_DUPLICATE &&
		       s->devs[s->devs[i].dup_of].outcome == PF_SCAN_DUPLICATE)
			s->devs[i].dup_of = s->devs[s->devs[i].dup_of].dup_of;
	return 0;
}

static bool announced(const struct pf_scan_opts *o, const struct pf_dev *d)
{
	for (size_t i = 0; i < o->n_announced; i++)
		if (!o->announced[i].path && o->announced[i].major == d->major &&
		    o->announced[i].minor == d->minor)
			return true;
	return false;
}

/* udev's verdict on the devices of a full scan it started (pf_scan_opts.udev_announced_only). */
static int udev_gate(const struct pf_scan_opts *o, struct pf_scan *s)
{
	if (!o->udev_announced_only || !o->paths->udev || !pf_udevdb_running(o->paths->udev))
		return 0;
	for (size_t i = 0; i < s->n; i++) {
		struct pf_scan_dev *d = &s->devs[i];
		enum pf_udevdb_verdict v;
		int r;

		if (d->outcome != PF_SCAN_READ || announced(o, &d->dev))
			continue;
		r = pf_udevdb_verdict(o->paths->udev, d->dev.major, d->dev.minor, &v);
		if (r < 0)
			return r;
		if (v != PF_UDEVDB_USE)
			excluded(d, pf_udevdb_reason(v));
	}
	return 0;
}

static const char *vgname_key(const void *ctx, size_t i)
{
	return pf_probe_vg(&((const struct pf_scan_dev *)ctx)[i].probe)->name;
}

/* Activation looks VGs up by name, one at a time: thousands must not each cost a walk. */
static int index_vgnames(struct pf_scan *s)
{
	const struct pf_keyorder by_name = { vgname_key, s->devs };

	s->by_vgname = calloc(s->n ? s->n : 1, sizeof(*s->by_vgname));
	if (!s->by_vgname)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		if (s->devs[i].outcome == PF_SCAN_READ && pf_probe_vg(&s->devs[i].probe))
			s->by_vgname[s->n_by_vgname++] = i;
	pf_keyorder_sort(&by_name, s->by_vgname, s->n_by_vgname);
	return 0;
}

int pf_scan_run(const struct pf_scan_opts *o, struct pf_scan *ret)
{
	struct pf_scan s = { 0 };
	struct filters f = { 0 };
	struct pf_dev_list list = { 0 };
	bool md_full = false;
	int r;

	r = filters_setup(o, &f);
	if (r < 0)
		goto out;
	s.devfile_used = f.devfile != NULL;
	s.devfile_unlocked = f.unlocked;
	if (o->args) {
		r = resolve_args(o, &s);
	} else {
		r = pf_sysfs_enumerate(o->paths, &list);
		if (r == 0)
			r = take_devices(&s, &list);
		pf_dev_list_release(&list);
		if (r == 0)
			r = udev_gate(o, &s);
	}
	if (r == 0 && filters_need_aliases(&f, o->args != NULL)) {
		r = load_aliases(o, &s);
		s.named_symlinks = o->args != NULL;
	}
	for (size_t i = 0; r == 0 && i < s.n; i++)
		if (s.devs[i].outcome == PF_SCAN_READ)
			r = filter_nodata(o, &f, &s.devs[i]);
	/* lvm2 decides before any filter, from every device it knows of */
	if (r == 0)
		r = md_full_check(o, &s, &md_full);
	if (r == 0)
		r = read_all(o, &s, md_full);
	if (r == 0)
		classify(&f, &s, &r);
	if (r == 0)
		apply_budget(&s, o->mem_budget_bytes ? o->mem_budget_bytes
						     : pf_scan_default_budget());
	if (r == 0 && (!o->args || o->n_args > 1))
		r = settle_duplicates(o->paths, &s, !o->args);
	if (r == 0)
		r = index_vgnames(&s);
out:
	filters_release(&f);
	if (r < 0) {
		pf_scan_release(&s);
		return r;
	}
	*ret = s;
	return 0;
}

int pf_scan_vgs(const struct pf_scan *s, const struct pf_vg ***ret)
{
	const struct pf_vg **v = calloc(s->n ? s->n : 1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < s->n; i++)
		if (s->devs[i].outcome == PF_SCAN_READ)
			v[i] = pf_probe_vg(&s->devs[i].probe);
	*ret = v;
	return 0;
}

const struct pf_vg *pf_scan_find_vg(const struct pf_scan *s, const char *name, const char *id)
{
	const struct pf_keyorder by_name = { vgname_key, s->devs };
	size_t m = s->n_by_vgname;

	/* the first device of the name, then its other devices in scan order */
	for (size_t x = pf_keyorder_lower(&by_name, s->by_vgname, m, name);
	     x < m && strcmp(vgname_key(s->devs, s->by_vgname[x]), name) == 0; x++) {
		const struct pf_scan_dev *d = &s->devs[s->by_vgname[x]];
		const struct pf_vg *vg = pf_probe_vg(&d->probe);

		if (d->outcome == PF_SCAN_READ && (!id[0] || strcmp(vg->id, id) == 0))
			return vg;
	}
	return NULL;
}

void pf_scan_release(struct pf_scan *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->n; i++) {
		pf_probe_release(&s->devs[i].probe);
		pf_dev_release(&s->devs[i].dev);
	}
	free(s->devs);
	free(s->by_vgname);
	memset(s, 0, sizeof(*s));
}
