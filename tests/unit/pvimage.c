/* SPDX-License-Identifier: GPL-2.0-or-later */
/* In-memory PV images for the reader tests; see pvimage.h. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "build.h"
#include "pvimage.h"
#include "unit.h"

/* Metadata lvm2 would accept: VG "vgaio" with this PV. */
static size_t vg_text(char *buf, size_t len, const struct layout *l)
{
	char pad[TEXT_MAX];
	int n;

	ck_assert_uint_lt(l->pad, sizeof(pad));
	memset(pad, 'x', l->pad);
	pad[l->pad] = '\0';
	n = snprintf(buf, len,
		     "vgaio {\nid = \"SMXdl4-CC44-uuuT-0k1u-g51v-Ub5x-0I3wDh\"\nseqno = %u\n"
		     "status = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\nflags = []\n"
		     "extent_size = 8\nmax_lv = 0\nmax_pv = 0\n"
		     "physical_volumes {\npv0 {\nid = \"" PVID_DASHED "\"\n"
		     "status = [\"ALLOCATABLE\"]\ndev_size = %llu\npe_start = 8\n"
		     "pe_count = 1\n}\n}\n"
		     "}\ncontents = \"Text Format Volume Group\"\nversion = 1\n"
		     "description = \"%s\"\n",
		     l->seqno, (unsigned long long)(l->size / 512), pad);
	ck_assert_int_gt(n, 0);
	ck_assert_uint_lt((size_t)n, len);
	return (size_t)n + 1; /* lvm2 counts the trailing NUL */
}

uint8_t *make_image(const struct layout *l)
{
	struct pf_disk_locn da = { MIB, 0 };
	struct pf_build_label spec = {
		.sector = 1,
		.device_size_bytes = l->size,
		.n_data_areas = 1,
		.data_areas = &da,
		.n_mdas = l->n_mdas,
		.mdas = l->mdas,
		.ext_version = 2,
		.ext_flags = PF_PV_EXT_USED,
	};
	uint8_t *img = calloc(1, l->size);
	char text[TEXT_MAX + 1024];
	size_t len = vg_text(text, sizeof(text), l);

	ck_assert_ptr_nonnull(img);
	ck_assert_int_eq(pf_build_label_head(&spec, img, PF_LABEL_SCAN_BYTES, NULL), 0);
	for (unsigned i = 0; i < l->n_mdas; i++) {
		const struct pf_disk_locn *m = &l->mdas[i];

		ck_assert_int_eq(pf_build_mda_area(img + m->offset_bytes, (size_t)m->size_bytes,
						   m->offset_bytes, l->text_offset, text, len),
				 0);
	}
	return img;
}

/* Everything in the first 128 KiB. */
const struct layout L_BASIC = {
	.size = 2 * MIB, .n_mdas = 1, .mdas = { { 4096, MIB - 4096 } }, .text_offset = 512,
	.seqno = 7,
};
/* Text at 204 KiB: one more read. */
const struct layout L_BEYOND = {
	.size = 2 * MIB, .n_mdas = 1, .mdas = { { 4096, MIB - 4096 } },
	.text_offset = 200 * KIB, .seqno = 8,
};
/* Text from 127 KiB to past 128 KiB: only the part past the first read is read. */
const struct layout L_STRADDLE = {
	.size = 2 * MIB, .n_mdas = 1, .mdas = { { 4096, MIB - 4096 } },
	.text_offset = 127 * KIB - 4096, .pad = 2000, .seqno = 9,
};
/* A 256 KiB ring whose text wraps: part 1 at its end (past 128 KiB), part 2 after the header. */
const struct layout L_WRAP = {
	.size = 2 * MIB, .n_mdas = 1, .mdas = { { 4096, 256 * KIB } },
	.text_offset = 256 * KIB - 512, .pad = 600, .seqno = 10,
};
/* Two mdas, the second in the last 64 KiB. */
const struct layout L_TWO = {
	.size = 2 * MIB, .n_mdas = 2,
	.mdas = { { 4096, 64 * KIB }, { 2 * MIB - 64 * KIB, 64 * KIB } },
	.text_offset = 512, .seqno = 11,
};
const struct layout L_TAIL = {
	.size = TAIL_SIZE, .n_mdas = 1, .mdas = { { 4096, TAIL_SIZE - 4096 } },
	.text_offset = TAIL_SIZE - 4096 - 3072, .pad = 2000, .seqno = 12,
};
