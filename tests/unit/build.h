/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Test builders for on-disk structures: a label sector and an mda header (or a
 * whole metadata area with text in its ring buffer), written the way lvm2
 * writes them, with correct checksums. Tests then mutate single fields and call
 * the *_fix_* helpers so that only the intended check fails.
 */
#ifndef PF_TEST_BUILD_H
#define PF_TEST_BUILD_H

#include <stddef.h>
#include <stdint.h>

#include "format/label.h"
#include "format/mda.h"

/* The pvid of the fresh PV in the format reference; any spec may use it. */
#define PF_BUILD_PVID "sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a1"

/* What to put in a label sector. Zero-initialise, then set what matters. */
struct pf_build_label {
	unsigned sector;    /* written to sector_xl; also where pf_build_label_head() puts it */
	uint32_t offset_xl; /* pv_header offset in the sector; 0 means lvm2's 32 */
	const char *pvid;   /* 32 characters, copied verbatim; NULL means PF_BUILD_PVID */
	uint64_t device_size_bytes;
	unsigned n_data_areas;
	const struct pf_disk_locn *data_areas;
	unsigned n_mdas;
	const struct pf_disk_locn *mdas;
	/* 0: no extension at all (pre-extension PV); >= 1: flags and a bootloader list follow. */
	uint32_t ext_version;
	uint32_t ext_flags;
	unsigned n_bootloader_areas;
	const struct pf_disk_locn *bootloader_areas;
};

/*
 * Sector-relative byte offsets of what pf_build_label_sector() wrote, so tests
 * can mutate a field by name. List offsets point at entry 0; *_end at the
 * terminator. ext and bootloader_* are 0 when no extension was written.
 */
struct pf_build_label_layout {
	size_t pv_header;
	size_t uuid;
	size_t device_size;
	size_t data_areas, data_areas_end;
	size_t mdas, mdas_end;
	size_t ext;
	size_t bootloader_areas, bootloader_areas_end;
	size_t end; /* first byte after everything written */
};

/*
 * Write a complete label sector (PF_SECTOR_SIZE bytes at buf, zero-filled
 * first) with a correct CRC. Returns 0, or -E2BIG when the spec does not fit
 * in one sector (nothing useful is left in buf then). ret_layout may be NULL.
 */
int pf_build_label_sector(const struct pf_build_label *spec, uint8_t *buf,
			  struct pf_build_label_layout *ret_layout);

/*
 * Same, into a device head of len bytes (len >= (spec->sector + 1) * 512):
 * the head is zero-filled and the label goes into sector spec->sector.
 */
int pf_build_label_head(const struct pf_build_label *spec, uint8_t *head, size_t len,
			struct pf_build_label_layout *ret_layout);

/* Recompute crc_xl of the label sector at buf after a mutation. */
void pf_build_label_fix_crc(uint8_t *buf);

/* A common valid spec: one data area at 1 MiB, one 1020 KiB mda at 4 KiB, extension 2. */
void pf_build_label_default(struct pf_build_label *ret, struct pf_disk_locn *da,
			    struct pf_disk_locn *mda);

/* What to put in an mda header. Slots past n_slots are written as zero. */
struct pf_build_mda {
	uint64_t start_bytes;
	uint64_t size_bytes;
	unsigned n_slots; /* 0..PF_MDA_SLOTS */
	struct pf_raw_locn slots[PF_MDA_SLOTS];
};

/* Write a 512-byte mda header at buf (zero-filled first) with a correct checksum. */
void pf_build_mda_header(const struct pf_build_mda *spec, uint8_t *buf);

/* Recompute checksum_xl of the 512-byte mda header at buf after a mutation. */
void pf_build_mda_fix_checksum(uint8_t *buf);

/*
 * Build a whole metadata area in area[0 .. area_len): zero it, write text_len
 * bytes of text into the ring starting at text_offset (wrapping to offset 512
 * past area_len, as lvm2 does), and a header for an area of area_len bytes at
 * device offset start_bytes whose slot 0 points at the text with its CRC.
 * Returns 0, or -EINVAL when the text cannot be placed (offset outside
 * 512..area_len-1, or longer than area_len - 512).
 */
int pf_build_mda_area(uint8_t *area, size_t area_len, uint64_t start_bytes, uint64_t text_offset,
		      const void *text, size_t text_len);

#endif /* PF_TEST_BUILD_H */
