/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What one device holds, decoded step by step: label, each metadata area's
 * header, its text, the VG it describes. The probe never reads: it says which
 * byte range it needs next and is fed those bytes, so the same logic serves a
 * plain pread loop and the async reader. Every outcome and its reason is kept
 * for reporting (--dump) and for the scan's decisions. When asked, a last
 * step reads the end of the device for an md superblock there (md 0.90 and
 * 1.0 members), so that read joins the others in the scan's window.
 */
#ifndef PF_PROBE_H
#define PF_PROBE_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "format/headsig.h"
#include "format/label.h"
#include "format/mda.h"
#include "format/mdsb.h"
#include "format/vg.h"

/* lvm2 reads only the first two metadata areas of a PV. */
#define PF_PROBE_MDAS 2U
/*
 * The first read covers the label sectors and an md superblock at 4 KiB, so
 * the filters that look at a device's first bytes need no read of their own.
 */
#define PF_PROBE_HEAD_BYTES 4608U

enum pf_probe_step {
	PF_PROBE_LABEL,
	PF_PROBE_MDA_HEADER,
	PF_PROBE_MDA_TEXT1,
	PF_PROBE_MDA_TEXT2,
	PF_PROBE_MD_END, /* the end of the device, for md superblocks (struct pf_probe_md) */
	PF_PROBE_DONE,
};

/* When to look for an md superblock at the end of the device. */
enum pf_probe_md_end {
	PF_PROBE_MD_END_NEVER = 0,
	/*
	 * pvscan's own check, made when the metadata suggests the PV was
	 * written through an md array: the PV is in its VG and its dev_size
	 * differs from the device's size (or is missing), or its device hint
	 * starts with /dev/md. Never for unused PVs.
	 */
	PF_PROBE_MD_END_HINTED,
	/* lvm2's full md check (its md filter): every device with a label. */
	PF_PROBE_MD_END_ALWAYS,
};

/* What made a HINTED probe look (md_end_why). */
enum pf_probe_md_why {
	PF_PROBE_MD_WHY_SIZE = 1U << 0,	   /* the PV's dev_size is not the device's size */
	PF_PROBE_MD_WHY_NO_SIZE = 1U << 1, /* the PV has no dev_size (lvm2 takes it as 0) */
	PF_PROBE_MD_WHY_HINT = 1U << 2,	   /* the PV's device hint starts with /dev/md */
};

/* How to look for md superblocks at the end; set after init, before the first pf_probe_next(). */
struct pf_probe_md {
	enum pf_probe_md_end when;
	unsigned lbs; /* the device's logical block size (IMSM's place depends on it); 0: 512 */
};

struct pf_mda_probe {
	struct pf_disk_locn locn; /* from the pv_header */
	int header_status;	  /* 0 ok; -EBADMSG bad header; -EIO unreadable; -ERANGE past device end */
	struct pf_diag header_diag;
	struct pf_mda_header header;
	bool ignored;	  /* raw_locn[0] flagged ignored: never used, as in lvm2 */
	int text_status;  /* 0 ok; -ENODATA empty slot (or ignored, unless read_ignored); -EBADMSG;
			     -EIO; -ERANGE; 1 not reached */
	struct pf_diag text_diag;
	struct pf_mda_text_loc loc;
	int vg_status;	  /* 0 ok; -EBADMSG / -E2BIG text not valid metadata; 1 not reached */
	struct pf_diag vg_diag;
	struct pf_vg *vg; /* owned */
};

/*
 * What the probes of one scan may hold of metadata at once, shared by them: text being read
 * and parsed VG copies are charged as they are made; a probe never gives back what its VG
 * copies hold, so probes fed the same bytes in the same order decide the same in any
 * process (the reader and its caller). used > limit never happens: what does not fit is
 * not read or not kept.
 */
struct pf_probe_budget {
	uint64_t limit, used;
};

struct pf_probe {
	uint64_t dev_size_bytes; /* actual device size */
	struct pf_probe_budget *budget; /* NULL: no limit; set after init, like md */
	bool over_budget; /* a metadata text or VG copy did not fit in the budget */
	/* Also read ignored mdas' text, for display (--dump); such a copy is never chosen. */
	bool read_ignored;
	enum pf_probe_step step;
	unsigned cur;		 /* mda being read */
	int label_status;	 /* 0 label found; -ENODATA none; -EBADMSG bad; -EIO unreadable */
	struct pf_diag label_diag;
	struct pf_pv_label label;
	/* a label was found: what the first bytes hold for the data filters (-EINVAL: too few) */
	int head_status;
	struct pf_headsig head;
	unsigned n_mdas; /* min(label.n_mdas, PF_PROBE_MDAS) */
	struct pf_mda_probe mdas[PF_PROBE_MDAS];
	uint8_t *text;	 /* text being assembled (wrapped texts arrive in two parts) */
	int vg_index;	 /* mda whose VG copy wins (newest seqno), -1 for none */
	/*
	 * -ERANGE when the device is smaller than the PV it carries (truncated or
	 * shrunk): smaller than the pv_header's size, or its extents run past the end.
	 */
	int size_status;
	struct pf_diag size_diag;
	struct pf_probe_md md;
	/*
	 * The end of the device: 1 not looked at (md.when, or no label); 0
	 * read (or a device lvm2 does not look at: under 128 KiB); < 0
	 * unreadable, which lvm2 takes for no superblock.
	 */
	int md_end_status;
	enum pf_mdsb_end_kind md_end_kind; /* what was found there, at md_end_offset */
	uint64_t md_end_offset;
	unsigned md_end_why; /* enum pf_probe_md_why flags, for HINTED */
	struct pf_diag md_end_diag;
};

/* Set read_ignored, md and budget after init, before the first pf_probe_next(). */
void pf_probe_init(struct pf_probe *p, uint64_t dev_size_bytes) _nonnull_(1);
void pf_probe_release(struct pf_probe *p);

/* Next byte range wanted: 1 with *ret_off and *ret_len set, 0 when the probe is done. */
int pf_probe_next(const struct pf_probe *p, uint64_t *ret_off, uint64_t *ret_len)
	_nonnull_(1, 2, 3);

/*
 * Feed the bytes of the range pf_probe_next asked for. A short buffer (end of
 * device, short read) is recorded as -EIO for that step; every outcome, out of
 * memory included, is recorded in the probe rather than returned.
 */
void pf_probe_feed(struct pf_probe *p, const uint8_t *buf, size_t len) _nonnull_(1);
/* The read for the current step failed with error err (negative errno). */
void pf_probe_fail(struct pf_probe *p, int err) _nonnull_(1);

/* Heap bytes the probe holds: the text being assembled, parsed VGs. */
size_t pf_probe_bytes(const struct pf_probe *p) _nonnull_(1) _pure_;

/* The VG copy lvm2 would use from this device, or NULL. */
const struct pf_vg *pf_probe_vg(const struct pf_probe *p) _nonnull_(1);

#endif /* PF_PROBE_H */
