/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * In-memory PV images for the reader tests (test_aio, test_reader): one VG
 * "vgaio" whose metadata text sits where a layout says, so each test can put
 * the text inside, straddling or beyond the first read, wrapped, or in mda2.
 */
#ifndef PF_TEST_PVIMAGE_H
#define PF_TEST_PVIMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "format/label.h"

#define KIB 1024U
#define MIB (1024U * 1024U)
#define PVID_DASHED "sJBIRv-tuEF-Ck1N-Kvbd-PtdU-y4nd-QtE4a1"
#define TEXT_MAX 8192U
/* 1 MiB + 1536 bytes: with 4 KiB logical blocks the last block is partial. */
#define TAIL_SIZE (MIB + 1536U)

struct layout {
	uint64_t size;
	unsigned n_mdas;
	struct pf_disk_locn mdas[2];
	uint64_t text_offset; /* in each area */
	size_t pad;	      /* bytes of description, to make the text long */
	unsigned seqno;
};

/* Everything in the first 128 KiB. */
extern const struct layout L_BASIC;
/* Text at 204 KiB: one more read. */
extern const struct layout L_BEYOND;
/* Text from 127 KiB to past 128 KiB: only the part past the first read is read. */
extern const struct layout L_STRADDLE;
/* A 256 KiB ring whose text wraps: part 1 at its end (past 128 KiB), part 2 after the header. */
extern const struct layout L_WRAP;
/* Two mdas, the second in the last 64 KiB. */
extern const struct layout L_TWO;
/* TAIL_SIZE bytes; the text runs from 1 MiB - 1536 into the partial last block. */
extern const struct layout L_TAIL;

/* A calloc'ed image of l->size bytes; the caller frees it. */
uint8_t *make_image(const struct layout *l);

#endif /* PF_TEST_PVIMAGE_H */
