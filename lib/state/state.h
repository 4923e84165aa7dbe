/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run-time state `pvscan --cache` keeps under /run/lvm (pvs_online/, vgs_online/,
 * pvs_lookup/, newhints, searched_devnames), byte-compatible with lvm2 2.03.16 and written
 * atomically. Every function takes the run directory (PVSCAN_FAST_RUN_DIR, default /run/lvm).
 */
#ifndef PF_STATE_H
#define PF_STATE_H

#include <stdbool.h>
#include <stddef.h>

#include "base/macro.h"

/* Names and field sizes as lvm2 has them. */
#define PF_STATE_ID_LEN	     32U  /* PVID characters, the pvs_online file name */
#define PF_STATE_NAME_LEN    128U /* lvm2 NAME_LEN: field buffers, NUL included */
#define PF_STATE_PV_FILE_MAX 511U /* bytes of a pvs_online file lvm2 reads */

/* Caps on what we read back. */
#define PF_STATE_LOOKUP_PVS_MAX	 65536U	    /* PVIDs in one pvs_lookup file */
#define PF_STATE_LOOKUP_FILE_MAX (2U << 20) /* bytes of a pvs_lookup file */
#define PF_STATE_DIR_ENTRIES_MAX 65536U	    /* entries visited in one directory walk */

/* One pvs_online file as lvm2's reader sees it; empty strings for absent or rejected fields. */
struct pf_state_pv {
	unsigned int major;
	unsigned int minor;
	char vgname[PF_STATE_NAME_LEN];
	char devname[PF_STATE_NAME_LEN];
};

/* The pvs_lookup file that lists a PVID: the VG it names and every PVID line it holds. */
struct pf_state_lookup {
	char vgname[PF_STATE_NAME_LEN];
	size_t n_pvids;
	char (*pvids)[PF_STATE_ID_LEN + 1]; /* n_pvids NUL-terminated lines, file order */
};

/*
 * Create run_dir and its pvs_online/, vgs_online/ and pvs_lookup/ (mode 0700) where missing;
 * existing ones are left as they are. Not recursive: run_dir's parent must exist.
 */
int pf_state_init(const char *run_dir) _nonnull_(1) _must_check_;

/*
 * Record a PV online: pvs_online/<pvid> = "M:m\n[vg:NAME\n][dev:NAME\n]", mode 0600. The file
 * appears whole or not at all. If it already exists with the same M:m it is left untouched and
 * 0 is returned; with another M:m (or unreadable) -EEXIST is returned and, as the only output
 * written on failure, *ret_existing holds what the file says (0:0 and empty names when it
 * cannot be parsed) for the duplicate-PV message. vgname may be NULL (PV without metadata); a
 * devname of 5 or fewer, or 127 or more, characters, or holding a newline, is left out.
 *
 * When the file could be created but its content not written (ENOSPC on a full /run), lvm2
 * keeps the empty file and counts the PV online. With ret_write_err non-NULL we do the same:
 * 0 is returned, the empty file claims the name and *ret_write_err holds the write's error
 * (else 0). With NULL, that error is returned and nothing is left behind.
 */
int pf_state_pv_online_write(const char *run_dir, const char *pvid, unsigned int major,
			     unsigned int minor, const char *vgname, const char *devname,
			     struct pf_state_pv *ret_existing, int *ret_write_err)
	_nonnull_(1, 2, 6, 7) _must_check_;

/*
 * Read pvs_online/<pvid> by lvm2's rules: the first 511 bytes, "M:m" at the start (-EBADMSG
 * without it, or for a negative number or a non-regular file), vg: only if a valid VG name,
 * dev: only if under /dev/. -ENOENT if absent, -ENODATA if empty.
 */
int pf_state_pv_online_read(const char *run_dir, const char *pvid, struct pf_state_pv *ret)
	_nonnull_(1, 2, 3) _must_check_;

/* True when pvs_online/<pvid> exists (lvm2's stat test); false for an invalid pvid. */
bool pf_state_pv_online_exists(const char *run_dir, const char *pvid) _nonnull_(1, 2);

/* How many of pvids[0..n) have a pvs_online file. */
int pf_state_count_online(const char *run_dir, const char *const *pvids, size_t n,
			  size_t *ret_online) _nonnull_(1, 4) _must_check_;

/* Claim autoactivation of a VG: create the empty vgs_online/<vgname>; -EEXIST if claimed. */
int pf_state_vg_online_claim(const char *run_dir, const char *vgname) _nonnull_(1, 2) _must_check_;

/*
 * Write pvs_lookup/<vgname>: each PVID + "\n", in the order given (metadata order), mode
 * 0600, whole or not at all. -EEXIST if the file exists already: lvm2 never rewrites it.
 * ret_write_err as for pf_state_pv_online_write(): an empty file, as lvm2 leaves it.
 */
int pf_state_lookup_write(const char *run_dir, const char *vgname, const char *const *pvids,
			  size_t n, int *ret_write_err) _nonnull_(1, 2, 3) _must_check_;

/*
 * Find the first pvs_lookup file (directory order, as lvm2) with a line starting with pvid,
 * for a PV without metadata. -ENOENT when none lists it. Release *ret with
 * pf_state_lookup_release().
 */
int pf_state_lookup_find(const char *run_dir, const char *pvid, struct pf_state_lookup *ret)
	_nonnull_(1, 2, 3) _must_check_;
void pf_state_lookup_release(struct pf_state_lookup *l);

/*
 * A device M:m went away: unlink every pvs_online file whose devno is M:m and, for each that
 * names a VG, vgs_online/<VG> and pvs_lookup/<VG>. A missing pvs_online/ is not an error.
 */
int pf_state_remove_devno(const char *run_dir, unsigned int major, unsigned int minor)
	_nonnull_(1) _must_check_;

/* Full `pvscan --cache`: empty pvs_online/, vgs_online/ and pvs_lookup/ (and our stale temps). */
int pf_state_clear(const char *run_dir) _nonnull_(1) _must_check_;

/* Create or truncate the empty run_dir/newhints (mode 0600). */
int pf_state_touch_newhints(const char *run_dir) _nonnull_(1) _must_check_;

/* Unlink run_dir/searched_devnames; a missing file is not an error. */
int pf_state_unlink_searched_devnames(const char *run_dir) _nonnull_(1) _must_check_;

#endif /* PF_STATE_H */
