/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2 2.03.16's device types, its nodata and first-bytes device filters, md arrays in sysfs. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/span.h"
#include "base/strv.h"
#include "device/blockdev.h"
#include "device/devtypes.h"
#include "device/multipath.h"
#include "device/sysfs.h"
#include "format/headsig.h"
#include "format/mdsb.h"

/*
 * lvm2's built-in types (lib/device/device-types.h): a /proc/devices block
 * name prefix and how many minors one whole device spans (1: not
 * partitionable by minor arithmetic). Order matters: the first prefix
 * match wins ("md" also covers "mdp").
 */
static const struct {
	const char *name;
	int parts;
} builtin_types[] = {
	{ "sd", 16 },	     { "ide", 64 },	  { "md", 1 },		{ "loop", 1 },
	{ "ramdisk", 1 },    { "device-mapper", 1 }, { "mdp", 1 },	{ "dasd", 4 },
	{ "dac960", 8 },     { "nbd", 16 },	  { "ida", 16 },	{ "cciss", 16 },
	{ "ubd", 16 },	     { "ataraid", 16 },	  { "drbd", 16 },	{ "rbd", 16 },
	{ "emcpower", 16 },  { "power2", 16 },	  { "i2o_block", 16 },	{ "iseries/vd", 8 },
	{ "gnbd", 1 },	     { "aoe", 16 },	  { "xvd", 16 },	{ "vdisk", 8 },
	{ "ps3disk", 16 },   { "virtblk", 8 },	  { "mmc", 16 },	{ "blkext", 1 },
	{ "fio", 16 },	     { "mtip32xx", 16 },  { "vtms", 16 },	{ "skd", 16 },
	{ "scm", 8 },	     { "bcache", 1 },	  { "nvme", 64 },	{ "zvol", 16 },
	{ "VxDMP", 16 },
};

static const char *const reasons[_PF_DEVFILTER_MAX] = {
	[PF_DEVFILTER_TYPE_UNKNOWN] = "device type is unknown",
	[PF_DEVFILTER_TOO_SMALL] = "device is too small (pv_min_size)",
	[PF_DEVFILTER_UNUSABLE] = "device is not in a usable state",
	[PF_DEVFILTER_IS_LV] = "device is an LV",
	[PF_DEVFILTER_MPATH_COMPONENT] = "device is a multipath component",
	[PF_DEVFILTER_MD_COMPONENT] = "device is an md component",
	[PF_DEVFILTER_PARTITIONED] = "device is partitioned",
	[PF_DEVFILTER_SIGNATURE] = "device has a signature",
};

#define ATTR_SMALL_MAX 64

#define DM_UUID_LVM_PREFIX "LVM-"
#define DM_UUID_LVM_LEN	   68 /* "LVM-" + VG uuid + LV uuid; longer means a suffixed internal LV */
#define DM_NAME_LEN	   128


struct pf_devfilter {
	bool scan_lvs;
	bool mpath;
	bool md;
	bool ignore_suspended;
	uint64_t pv_min_size_bytes;
	char **types;
	int *parts;
	size_t n_types;
	struct pf_strv wwids; /* sorted, unique */
};

int pf_devtypes_filter_new(const struct pf_devfilter_cfg *cfg, struct pf_devfilter **ret)
{
	struct pf_devfilter *f;
	int r;

	if (cfg->n_extra_types > PF_DEVTYPES_EXTRA_MAX)
		return -E2BIG;
	if (cfg->n_extra_types && (!cfg->extra_types || !cfg->extra_type_parts))
		return -EINVAL;
	for (size_t i = 0; i < cfg->n_extra_types; i++) {
		if (!cfg->extra_types[i] || cfg->extra_type_parts[i] == 0)
			return -EINVAL;
		if (strlen(cfg->extra_types[i]) > PF_DEVTYPES_TYPE_NAME_MAX)
			return -E2BIG;
	}
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->scan_lvs = cfg->scan_lvs;
	f->mpath = cfg->multipath_component_detection;
	f->md = cfg->md_component_detection;
	f->ignore_suspended = cfg->ignore_suspended_devices;
	f->pv_min_size_bytes = cfg->pv_min_size_bytes < PF_DEVTYPES_PV_MIN_SIZE_FLOOR_BYTES ?
				       PF_DEVTYPES_PV_MIN_SIZE_FLOOR_BYTES :
				       cfg->pv_min_size_bytes;
	if (cfg->n_extra_types) {
		f->types = calloc(cfg->n_extra_types, sizeof(*f->types));
		f->parts = calloc(cfg->n_extra_types, sizeof(*f->parts));
		if (!f->types || !f->parts) {
			r = -ENOMEM;
			goto fail;
		}
		for (size_t i = 0; i < cfg->n_extra_types; i++) {
			f->types[i] = strdup(cfg->extra_types[i]);
			if (!f->types[i]) {
				r = -ENOMEM;
				goto fail;
			}
			f->parts[i] = cfg->extra_type_parts[i];
			f->n_types++;
		}
	}
	/* The wwid set only serves the multipath check: no need to read it otherwise. */
	if (f->mpath) {
		r = pf_multipath_load_wwids(cfg->multipath_wwids_file, cfg->multipath_conf_file,
					    cfg->multipath_conf_dir, &f->wwids);
		if (r < 0)
			goto fail;
	}
	*ret = f;
	return 0;
fail:
	pf_devtypes_filter_free(f);
	return r;
}

struct pf_devfilter *pf_devtypes_filter_free(struct pf_devfilter *f)
{
	if (!f)
		return NULL;
	for (size_t i = 0; i < f->n_types; i++)
		free(f->types[i]);
	free(f->types);
	free(f->parts);
	pf_strv_release(&f->wwids);
	free(f);
	return NULL;
}

static bool has_prefix(const char *s, const char *prefix)
{
	return !strncmp(s, prefix, strlen(prefix));
}

int pf_devtypes_max_partitions(const struct pf_devfilter *f, const char *type_name)
{
	int parts = 0;

	if (!type_name)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(builtin_types); i++) {
		if (has_prefix(type_name, builtin_types[i].name)) {
			parts = builtin_types[i].parts;
			break;
		}
	}
	for (size_t i = 0; i < f->n_types; i++) {
		if (has_prefix(type_name, f->types[i])) {
			parts = f->parts[i];
			break;
		}
	}
	return parts;
}

const char *pf_devtypes_reason(enum pf_devfilter_verdict v)
{
	if ((unsigned)v >= _PF_DEVFILTER_MAX)
		return NULL;
	return reasons[v];
}

/*
 * lvm2's dm_split_lvm_name step: cut at the first '-' that is not part of
 * a "--" pair, un-doubling "--" in what comes before; returns the rest.
 */
static char *unquote(char *c)
{
	char *o = c, *rest;

	while (*c) {
		if (c[1] && *c == '-') {
			if (c[1] != '-')
				break;
			c++;
		}
		*o++ = *c++;
	}
	rest = *c ? c + 1 : c;
	*o = '\0';
	return rest;
}

/* lvm2's is_reserved_lvname: names of internal LVs. */
static bool is_reserved_lvname(const char *lv)
{
	static const char *const prefixes[] = { "pvmove", "snapshot" };
	static const char *const parts[] = {
		"_cdata", "_cmeta", "_corig",  "_cpool", "_cvol",  "_wcorig", "_mimage",   "_mlog",
		"_rimage", "_rmeta", "_tdata", "_tmeta", "_vdata", "_imeta",  "_iorig",    "_pmspare",
		"_vorigin",
	};

	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++)
		if (has_prefix(lv, prefixes[i]))
			return true;
	for (size_t i = 0; i < ARRAY_SIZE(parts); i++)
		if (strstr(lv, parts[i]))
			return true;
	return false;
}

/*
 * lvm2's usable filter for a dm device (device_is_usable, in the mode
 * commands use). It asks the dm driver; sysfs shows part of the same:
 * a device with no table has size 0; dm/suspended; the uuid and name.
 * Not visible here, so not checked: tables of only error/zero targets,
 * blocked mirrors, invalid snapshots, frozen raids, unusable thins.
 */
static int dm_usable(const struct pf_devfilter *f, const struct pf_paths *paths,
		     const struct pf_dev *d)
{
	const char *uuid = d->dm_uuid;

	if (!d->size_bytes)
		return PF_DEVFILTER_UNUSABLE;
	if (f->ignore_suspended) {
		_cleanup_free_ char *s = NULL;
		int r = pf_sysfs_read_opt_attr(paths, d->kname, "dm/suspended", ATTR_SMALL_MAX, &s);

		if (r < 0)
			return r;
		if (s && !strcmp(s, "1"))
			return PF_DEVFILTER_UNUSABLE;
	}
	if (!uuid)
		return 0;
	if (has_prefix(uuid, DM_UUID_LVM_PREFIX)) {
		/* compat: lvm2 compares against sizeof("LVM-") + 64, one more than the plain length */
		if (strlen(uuid) > DM_UUID_LVM_LEN + 1)
			return PF_DEVFILTER_UNUSABLE;
		if (d->dm_name) {
			_cleanup_free_ char *vg = NULL;
			char *lv, *layer;

			/* lvm2 copies the name into NAME_LEN bytes and gives up on longer ones */
			if (strlen(d->dm_name) >= DM_NAME_LEN)
				return PF_DEVFILTER_UNUSABLE;
			vg = strdup(d->dm_name);
			if (!vg)
				return -ENOMEM;
			lv = unquote(vg);
			layer = unquote(lv);
			(void)unquote(layer);
			if (is_reserved_lvname(lv) || *layer)
				return PF_DEVFILTER_UNUSABLE;
		}
		if (!f->scan_lvs)
			return PF_DEVFILTER_IS_LV;
	}
	if (has_prefix(uuid, "CRYPT-TEMP") || has_prefix(uuid, "CRYPT-SUBDEV") ||
	    has_prefix(uuid, "stratis-"))
		return PF_DEVFILTER_UNUSABLE;
	return 0;
}

/* Bound into an md array: the array is one of its holders. */
static int is_md_member(const struct pf_paths *paths, const struct pf_dev *d)
{
	for (size_t i = 0; i < d->n_holders; i++) {
		_cleanup_free_ char *state = NULL;
		int r = pf_sysfs_read_opt_attr(paths, d->holders[i], "md/array_state",
					       ATTR_SMALL_MAX, &state);

		if (r < 0)
			return r;
		if (state)
			return 1;
	}
	return 0;
}

int pf_devtypes_check_nodata(const struct pf_devfilter *f, const struct pf_paths *paths,
			     const struct pf_dev *d, const char **ret_reason)
{
	int v = 0;

	if (!pf_devtypes_max_partitions(f, d->type_name))
		v = PF_DEVFILTER_TYPE_UNKNOWN;
	if (!v && pf_dev_is_type(d, "device-mapper"))
		v = dm_usable(f, paths, d);
	/*
	 * A loop device with no backing file is detached; lvm2 sees its size
	 * as 0 and says it is too small.
	 */
	if (!v && (d->size_bytes < f->pv_min_size_bytes ||
		   (pf_dev_is_type(d, "loop") && !d->loop_backing_file)))
		v = PF_DEVFILTER_TOO_SMALL;
	if (!v && f->mpath) {
		v = pf_multipath_is_component(&f->wwids, paths, d);
		if (v > 0)
			v = PF_DEVFILTER_MPATH_COMPONENT;
	}
	if (!v && f->md) {
		v = is_md_member(paths, d);
		if (v > 0)
			v = PF_DEVFILTER_MD_COMPONENT;
	}
	if (v < 0)
		return v;
	*ret_reason = v ? reasons[v] : NULL;
	return v;
}

/* lvm2's _is_partitionable: may this device carry a partition table of its own? */
static bool is_partitionable(const struct pf_devfilter *f, const struct pf_dev *d)
{
	int parts = pf_devtypes_max_partitions(f, d->type_name);

	if (pf_dev_is_type(d, "device-mapper") || pf_dev_is_type(d, "md"))
		return 1;
	if (pf_dev_is_type(d, "loop") && d->loop_partscan)
		return 1;
	if (pf_dev_is_nvme(d))
		return !d->is_partition;
	return parts > 1 && d->minor % (unsigned)parts == 0;
}

int pf_devtypes_check_data(const struct pf_devfilter *f, const struct pf_dev *d,
			   const struct pf_headsig *sig, const char **ret_reason)
{
	int v = 0;

	if (is_partitionable(f, d) && sig->partition_table)
		v = PF_DEVFILTER_PARTITIONED;
	if (!v && sig->old_signature)
		v = PF_DEVFILTER_SIGNATURE;
	if (!v && f->md && d->size_bytes >= PF_MDSB_MIN_DEV_BYTES && sig->md_at_start)
		v = PF_DEVFILTER_MD_COMPONENT;
	*ret_reason = v ? reasons[v] : NULL;
	return v;
}

int pf_devtypes_md_end_array(const struct pf_paths *paths, const struct pf_dev *d)
{
	_cleanup_free_ char *v = NULL;
	const char *kname = NULL, *word;
	size_t n;
	int r;

	/* lvm2 asks an array itself, and for a partition of one (blkext), its array. */
	if (pf_dev_is_type(d, "md"))
		kname = d->kname;
	else if (pf_dev_is_type(d, "blkext") && d->is_partition)
		kname = d->parent_kname;
	if (!kname)
		return 0;
	r = pf_sysfs_read_opt_attr(paths, kname, "md/metadata_version", ATTR_SMALL_MAX, &v);
	if (r < 0 || !v)
		return r;
	/* the first word, as lvm2's sscanf("%s") takes it */
	word = v + strspn(v, " \t\n");
	n = strcspn(word, " \t\n");
	return (n == 3 && !strncmp(word, "1.0", n)) || (n == 4 && !strncmp(word, "0.90", n));
}
