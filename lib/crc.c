/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's checksum over labels, mda headers and metadata text (table-driven CRC-32). */
#include "config.h"

#include "crc.h"

/*
 * The table is computed at compile time from the polynomial rather than pasted
 * in, so there is no 256-entry literal to get wrong.
 */
#define POLY 0xEDB88320U
#define B1(c) (((c) >> 1) ^ (((c) & 1U) ? POLY : 0U))
#define B8(c) B1(B1(B1(B1(B1(B1(B1(B1(c))))))))
#define R4(n) B8((uint32_t)(n)), B8((uint32_t)(n) + 1), B8((uint32_t)(n) + 2), B8((uint32_t)(n) + 3)
#define R16(n) R4(n), R4((n) + 4), R4((n) + 8), R4((n) + 12)
#define R64(n) R16(n), R16((n) + 16), R16((n) + 32), R16((n) + 48)

static const uint32_t crc_table[256] = { R64(0), R64(64), R64(128), R64(192) };

uint32_t pf_crc(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	while (len--)
		crc = (crc >> 8) ^ crc_table[(crc ^ *p++) & 0xffU];
	return crc;
}
