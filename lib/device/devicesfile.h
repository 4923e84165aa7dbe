/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * lvm2's devices file (<etc>/devices/system.devices): reading it as lvm2 2.03.16 does, and
 * deciding whether a device is listed, by its device id or (relaxed mode) by its PVID.
 */
#ifndef PF_DEVICESFILE_H
#define PF_DEVICESFILE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/diag.h"
#include "base/macro.h"

struct pf_dev;

/* Caps (-E2BIG): file size and entries. */
#define PF_DEVICESFILE_SIZE_MAX    ((size_t)16 << 20)
#define PF_DEVICESFILE_ENTRIES_MAX 65536U
/* lvm2 reads with fgets(PATH_MAX): a longer line is read as several lines. */
#define PF_DEVICESFILE_CHUNK_MAX 4095U

enum pf_devicesfile_idtype {
	PF_DEVICESFILE_ID_NONE = 0, /* missing or unknown IDTYPE: the entry never matches a device */
	PF_DEVICESFILE_ID_SYS_WWID,
	PF_DEVICESFILE_ID_SYS_SERIAL,
	PF_DEVICESFILE_ID_DEVNAME,
	PF_DEVICESFILE_ID_MPATH_UUID,
	PF_DEVICESFILE_ID_CRYPT_UUID,
	PF_DEVICESFILE_ID_LVMLV_UUID,
	PF_DEVICESFILE_ID_MD_UUID,
	PF_DEVICESFILE_ID_LOOP_FILE,
	_PF_DEVFILE_ID_MAX,
};

struct pf_devicesfile_entry {
	enum pf_devicesfile_idtype idtype;
	char *idname;  /* NULL when empty or starting with '.' (lvm2's "none") */
	char *devname; /* likewise */
	char *pvid;    /* likewise; as written, not checked */
	int part;      /* PART=; 0 for whole devices */
	unsigned line; /* 1-based line (fgets chunk) it came from */
};

struct pf_devicesfile {
	char *version;	/* last VERSION= value, NULL if none */
	char *systemid; /* last SYSTEMID= value ("" if empty), NULL if none */
	struct pf_devicesfile_entry *entries;
	size_t n_entries;
	size_t n_ignored; /* non-comment lines without IDTYPE and IDNAME, skipped as lvm2 does */
};

/*
 * Parse text[0..len) as lvm2's device_ids_read(): '#' in column 1 starts a comment;
 * "SYSTEMID"/"VERSION" lines; any other line is an entry if "IDTYPE" and "IDNAME" occur in
 * it, each field's value being the word after the next '='. Nothing is an error but the
 * caps (-E2BIG) and -ENOMEM.
 */
int pf_devicesfile_parse(const char *text, size_t len, struct pf_devicesfile **ret, struct pf_diag *reterr)
	_nonnull_(1, 3) _must_check_;

/* Read and parse path; -ENOENT means no file: lvm2 then runs without a devices file. */
int pf_devicesfile_load(const char *path, struct pf_devicesfile **ret, struct pf_diag *reterr)
	_nonnull_(1, 2) _must_check_;

struct pf_devicesfile *pf_devicesfile_free(struct pf_devicesfile *df);

const char *pf_devicesfile_idtype_name(enum pf_devicesfile_idtype t);
/* The type an IDTYPE (or a PV's device_id_type) names; PF_DEVICESFILE_ID_NONE when unknown. */
enum pf_devicesfile_idtype pf_devicesfile_idtype_parse(const char *s) _nonnull_(1) _pure_;

/*
 * The id of type t lvm2 reads for dev: sysfs values (falling back to parent's, the whole
 * disk of a partition, when dev's own is empty), cleaned as lvm2 does (blanks and control
 * characters become '_'; a QEMU wwid or a deleted loop file counts as none). Returns 0 with
 * a malloc'ed *ret, -ENODATA when dev has no such id, -ENOMEM.
 */
int pf_devicesfile_dev_id(const struct pf_dev *dev, const struct pf_dev *parent,
		      enum pf_devicesfile_idtype t, char **ret) _nonnull_(1, 4) _must_check_;

/*
 * The entry dev matches by device id, as lvm2's device_ids_match_dev() finds it: the entry
 * whose DEVNAME is dev->path first, then every entry in file order. An entry matches when
 * its IDTYPE suits the device's kind (dm, md, loop by dev->type_name), PART equals
 * partition (the sysfs partition number, 0 for a whole device) and IDNAME equals the id.
 * parent: the whole disk when dev is a partition, else NULL. Returns NULL for no match:
 * lvm2's "device is not in devices file".
 */
const struct pf_devicesfile_entry *pf_devicesfile_match_dev(const struct pf_devicesfile *df,
						    const struct pf_dev *dev,
						    const struct pf_dev *parent, int partition)
	_nonnull_(1, 2);

/*
 * Relaxed mode: with any IDTYPE=devname entry, lvm2's event pvscan does not match device
 * ids at all; after reading the label it keeps the device only if its PVID is listed
 * (pf_devicesfile_find_pvid), else "excluded by devices file (checking PVID)".
 */
bool pf_devicesfile_uses_devname(const struct pf_devicesfile *df) _nonnull_(1) _pure_;

/* First entry whose PVID starts with the 32 characters of pvid (lvm2 compares 32 bytes). */
const struct pf_devicesfile_entry *pf_devicesfile_find_pvid(const struct pf_devicesfile *df, const char *pvid)
	_nonnull_(1, 2);

#endif /* PF_DEVICESFILE_H */
