/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The signatures lvm2's data filters look for in a labelled device's first bytes. */
#include "config.h"

#include <errno.h>
#include <stdint.h>

#include "format/headsig.h"

#define MBR_TABLE_OFFSET     0x1be
#define MBR_MAGIC_OFFSET     0x1fe
#define MBR_MAGIC	     0xaa55
#define LVM1_VERSION_OFFSET  2
#define POOL_MAGIC	     UINT64_C(0x011670)
#define POOL_VERSION_OFFSET  272 /* pl_magic, pl_pool_id, 256-byte pl_pool_name */
#define POOL_VERSION_MAJMIN  0x0401u /* version 4.1.x: lvm2 ignores the low byte */

/*
 * An msdos partition table as lvm2 recognises one: the 0xaa55 magic, no
 * entry with a boot flag other than 0 or 0x80, at least one entry with
 * sectors. A GPT's protective entry counts, so GPT disks are caught too.
 */
static bool has_partition_table(struct pf_span head)
{
	uint16_t magic;
	bool found = false;

	if (pf_span_le16(head, MBR_MAGIC_OFFSET, &magic) < 0 || magic != MBR_MAGIC)
		return false;
	for (unsigned i = 0; i < 4; i++) {
		uint64_t e = MBR_TABLE_OFFSET + 16 * i;
		uint32_t sectors;
		uint8_t boot;

		if (pf_span_copy(head, e, 1, &boot) < 0 || pf_span_le32(head, e + 12, &sectors) < 0)
			return false;
		if (boot & 0x7f)
			return false;
		if (sectors)
			found = true;
	}
	return found;
}

/* lvm1's "HM" with version 1 or 2, or a GFS pool label (big-endian, version 4.1). */
static bool has_old_signature(struct pf_span head)
{
	uint16_t version;
	uint64_t magic;
	uint32_t pool_version;

	if (pf_span_le16(head, LVM1_VERSION_OFFSET, &version) == 0 && head.p[0] == 'H' &&
	    head.p[1] == 'M' && (version == 1 || version == 2))
		return true;
	return pf_span_be64(head, 0, &magic) == 0 && magic == POOL_MAGIC &&
	       pf_span_be32(head, POOL_VERSION_OFFSET, &pool_version) == 0 &&
	       (pool_version >> 8) == POOL_VERSION_MAJMIN;
}

int pf_headsig_read(struct pf_span head, struct pf_headsig *ret)
{
	if (head.len < PF_HEADSIG_BYTES)
		return -EINVAL;
	*ret = (struct pf_headsig){ .partition_table = has_partition_table(head),
				    .old_signature = has_old_signature(head),
				    .md_at_start = pf_mdsb_at_start(head) };
	return 0;
}
