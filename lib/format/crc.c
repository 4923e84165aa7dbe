/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's checksum over labels, mda headers and metadata text (table-driven CRC-32). */
#include "config.h"

#include "format/crc-tables.h"
#include "format/crc.h"

/*
 * Slice-by-8: eight bytes per step through eight tables (crc-tables.h, generated), four times
 * fewer steps than a byte at a time over the metadata texts of thousands of PVs.
 */
/* Four message bytes as the CRC register sees them (it is reflected: first byte lowest). */
static inline uint32_t bytes4(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

uint32_t pf_crc(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	for (; len >= 8; len -= 8, p += 8) {
		uint32_t lo = crc ^ bytes4(p), hi = bytes4(p + 4);

		crc = crc_tables[7][lo & 0xffU] ^ crc_tables[6][(lo >> 8) & 0xffU] ^
		      crc_tables[5][(lo >> 16) & 0xffU] ^ crc_tables[4][lo >> 24] ^
		      crc_tables[3][hi & 0xffU] ^ crc_tables[2][(hi >> 8) & 0xffU] ^
		      crc_tables[1][(hi >> 16) & 0xffU] ^ crc_tables[0][hi >> 24];
	}
	while (len--)
		crc = (crc >> 8) ^ crc_tables[0][(crc ^ *p++) & 0xffU];
	return crc;
}
