/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: pf_label_find over the input as the first bytes of a device,
 * then again with the CRC of every LABELONE sector made right, so that the
 * fuzzer gets past the checksum to the pv_header and its lists.
 */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "format/crc.h"
#include "format/label.h"
#include "fuzz.h"

/* Beyond crashes, catch results that break the contract callers rely on. */
static void check_label(const struct pf_pv_label *l)
{
	char dashed[PF_ID_DASHED_LEN + 1], raw[PF_ID_LEN + 1];

	if (l->sector >= PF_LABEL_SCAN_SECTORS || l->offset < 32 || l->offset > PF_SECTOR_SIZE - 40)
		abort();
	if (l->n_data_areas > PF_LABEL_LOCN_MAX || l->n_mdas > PF_LABEL_LOCN_MAX ||
	    l->n_bootloader_areas > PF_LABEL_LOCN_MAX)
		abort();
	if (l->ext_version == 0 && (l->ext_flags || l->n_bootloader_areas))
		abort();
	if (!pf_id_is_valid(l->pvid, strlen(l->pvid)))
		abort();
	pf_id_format_dashed(l->pvid, dashed);
	if (pf_id_parse(dashed, raw) < 0 || strcmp(raw, l->pvid))
		abort();
	(void)pf_pv_label_is_unused(l);
}

static void run(const uint8_t *data, size_t size)
{
	struct pf_pv_label label;
	struct pf_diag diag;
	int r;

	r = pf_label_find(pf_span_make(data, size), &label, &diag);
	if (r == 0)
		check_label(&label);
	else if (r != -ENODATA && r != -EBADMSG)
		abort();
	else if (!diag.msg[0] || !memchr(diag.msg, '\0', sizeof(diag.msg)))
		abort();

	/* Every whole sector through the single-sector entry point too, at its own index. */
	for (size_t s = 0; s < PF_LABEL_SCAN_SECTORS && (s + 1) * PF_SECTOR_SIZE <= size; s++) {
		r = pf_label_decode_sector(pf_span_make(data + s * PF_SECTOR_SIZE, PF_SECTOR_SIZE),
					   (unsigned)s, &label, NULL);
		if (r == 0)
			check_label(&label);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *copy;

	run(data, size);

	/* An exact-size heap copy keeps ASan's view of the end of the input. */
	copy = malloc(size ? size : 1);
	if (!copy)
		return 0;
	memcpy(copy, data, size);
	for (size_t s = 0; s < PF_LABEL_SCAN_SECTORS && (s + 1) * PF_SECTOR_SIZE <= size; s++) {
		uint8_t *sec = copy + s * PF_SECTOR_SIZE;
		uint32_t crc;

		if (memcmp(sec, PF_LABEL_ID, 8))
			continue;
		crc = pf_crc(PF_CRC_INITIAL, sec + 20, PF_SECTOR_SIZE - 20);
		pf_put_le32(sec + 16, crc);
	}
	run(copy, size);
	free(copy);
	return 0;
}
