/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A device's first bytes with the signatures lvm2's data filters look for, for the unit tests. */
#ifndef PF_TEST_HEADS_H
#define PF_TEST_HEADS_H

#include <stdint.h>
#include <string.h>

#include "format/headsig.h"
#include "base/span.h"

enum head_kind {
	HEAD_ZERO,
	HEAD_MBR,	   /* one partition with sectors */
	HEAD_MBR_BAD_BOOT, /* a partition, and another with boot flag 0x12 */
	HEAD_MBR_EMPTY,	   /* magic but no partition has sectors */
	HEAD_MBR_BOOT80,   /* boot flag 0x80 is fine */
	HEAD_GPT,	   /* protective entry (type 0xee) in slot 4 */
	HEAD_LVM1_V1,
	HEAD_LVM1_V2,
	HEAD_LVM1_V3,
	HEAD_POOL,
	HEAD_POOL_V5,
	HEAD_MD_0,
	HEAD_MD_4K,
	HEAD_MD_BE,
};

static inline void heads_put_part(uint8_t *b, unsigned slot, uint8_t boot, uint8_t type, uint32_t sectors)
{
	uint8_t *e = b + 0x1be + 16 * slot;

	e[0] = boot;
	e[4] = type;
	pf_put_le32(e + 8, 2048);
	pf_put_le32(e + 12, sectors);
	b[0x1fe] = 0x55;
	b[0x1ff] = 0xaa;
}

static inline void heads_build(enum head_kind k, uint8_t *b)
{
	memset(b, 0, PF_HEADSIG_BYTES);
	switch (k) {
	case HEAD_ZERO:
		break;
	case HEAD_MBR:
		heads_put_part(b, 0, 0, 0x83, 4096);
		break;
	case HEAD_MBR_BAD_BOOT:
		heads_put_part(b, 0, 0, 0x83, 4096);
		heads_put_part(b, 1, 0x12, 0x83, 4096);
		break;
	case HEAD_MBR_EMPTY:
		heads_put_part(b, 0, 0x80, 0x83, 0);
		break;
	case HEAD_MBR_BOOT80:
		heads_put_part(b, 0, 0x80, 0x83, 4096);
		break;
	case HEAD_GPT:
		heads_put_part(b, 3, 0, 0xee, 4096);
		break;
	case HEAD_LVM1_V1:
	case HEAD_LVM1_V2:
	case HEAD_LVM1_V3:
		b[0] = 'H';
		b[1] = 'M';
		b[2] = k == HEAD_LVM1_V1 ? 1 : k == HEAD_LVM1_V2 ? 2 : 3;
		break;
	case HEAD_POOL:
	case HEAD_POOL_V5:
		pf_put_be64(b, 0x011670);
		pf_put_be32(b + 272, k == HEAD_POOL ? 0x040103 : 0x050103);
		break;
	case HEAD_MD_0:
		pf_put_le32(b, 0xa92b4efc);
		break;
	case HEAD_MD_4K:
		pf_put_le32(b + 4096, 0xa92b4efc);
		break;
	case HEAD_MD_BE:
		pf_put_be32(b, 0xa92b4efc);
		break;
	}
}

#endif /* PF_TEST_HEADS_H */
