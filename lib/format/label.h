/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The LVM2 label: label_header + pv_header + pv_header_extension in one of
 * sectors 0..3. Pure decoding of the first 2048 bytes of a device, with every
 * check lvm2 makes (id, sector_xl, CRC, type) plus the list bounds lvm2 only
 * started checking after 2.03.39.
 */
#ifndef PF_LABEL_H
#define PF_LABEL_H

#include <stdbool.h>
#include <stdint.h>

#include "base/diag.h"
#include "base/macro.h"
#include "base/span.h"

#define PF_SECTOR_SIZE 512U
#define PF_LABEL_SCAN_SECTORS 4U
#define PF_LABEL_SCAN_BYTES (PF_LABEL_SCAN_SECTORS * PF_SECTOR_SIZE)
#define PF_LABEL_ID "LABELONE"
#define PF_LABEL_TYPE "LVM2 001"
#define PF_ID_LEN 32U		 /* raw uuid characters, no dashes */
#define PF_ID_DASHED_LEN 38U /* 6-4-4-4-4-4-6 with dashes */
/* Every disk_locn list lives in one 512-byte sector: 27 entries is more than fit. */
#define PF_LABEL_LOCN_MAX 28U
#define PF_PV_EXT_USED 0x1U /* pv_header_extension.flags: PV belongs to a VG */

struct pf_disk_locn {
	uint64_t offset_bytes;
	uint64_t size_bytes; /* 0 for the data area means "to the end of the device" */
};

struct pf_pv_label {
	unsigned sector;	/* sector index the label was found in (0..3) */
	uint32_t crc;		/* crc_xl as stored (and verified) */
	uint32_t offset;	/* offset_xl: pv_header offset within the label sector */
	char pvid[PF_ID_LEN + 1]; /* raw 32 chars + NUL */
	uint64_t device_size_bytes;
	unsigned n_data_areas;
	struct pf_disk_locn data_areas[PF_LABEL_LOCN_MAX];
	unsigned n_mdas;
	struct pf_disk_locn mdas[PF_LABEL_LOCN_MAX];
	uint32_t ext_version; /* 0: no extension (old PV) */
	uint32_t ext_flags;
	unsigned n_bootloader_areas;
	struct pf_disk_locn bootloader_areas[PF_LABEL_LOCN_MAX];
};

/*
 * Find and decode the label in the first PF_LABEL_SCAN_BYTES of a device
 * (a shorter span is scanned as far as it goes). As in lvm2, the first sector
 * whose id, sector_xl, CRC and type check out is the label; if its pv_header
 * is then malformed the device fails (lvm2 does not fall back to a later sector).
 * Returns 0 with *ret filled; -ENODATA when no sector carries LABELONE;
 * -EBADMSG when a LABELONE sector fails a check (reterr says which check and
 * the device byte offset of the offending field). *ret untouched on failure.
 */
int pf_label_find(struct pf_span head, struct pf_pv_label *ret, struct pf_diag *reterr)
	_nonnull_(2) _must_check_;

/* Decode the label in one 512-byte sector found at index `sector`. Same returns as above. */
int pf_label_decode_sector(struct pf_span sector_buf, unsigned sector, struct pf_pv_label *ret,
			   struct pf_diag *reterr) _nonnull_(3) _must_check_;

/* True for uuid characters lvm2 accepts: 0-9 a-z A-Z ! # */
bool pf_id_char_is_valid(char c);
/* True if s is exactly 32 valid uuid characters. */
bool pf_id_is_valid(const char *s, size_t len);
/* 32 raw chars -> 38-char dashed form + NUL (buffer of PF_ID_DASHED_LEN + 1). */
void pf_id_format_dashed(const char *raw, char *ret);
/* Dashed (or raw) text -> 32 raw chars + NUL: every '-' dropped, exactly 32 valid chars left. */
int pf_id_parse(const char *text, char *ret) _nonnull_(1, 2) _must_check_;

/* True when the PV is an orphan lvm2 calls "not used" (extension >= 2 and PV_EXT_USED clear). */
bool pf_pv_label_is_unused(const struct pf_pv_label *label) _nonnull_(1);

#endif /* PF_LABEL_H */
