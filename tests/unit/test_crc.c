/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Known-answer tests for lvm2's CRC, including values lvm2 wrote to disk. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "format/crc.h"
#include "unit.h"

static uint32_t crc_str(const char *s)
{
	return pf_crc(PF_CRC_INITIAL, s, strlen(s));
}

/* The definition, a bit at a time: what the generated tables must reproduce. */
static uint32_t crc_bitwise(uint32_t crc, const uint8_t *p, size_t len)
{
	while (len--) {
		crc ^= *p++;
		for (int k = 0; k < 8; k++)
			crc = (crc >> 1) ^ ((crc & 1U) ? 0xEDB88320U : 0U);
	}
	return crc;
}

/* Every length 0..64 at every alignment 0..7, and a long buffer: table and tail paths agree. */
START_TEST(test_tables_match_definition)
{
	uint8_t buf[4096 + 8];
	uint32_t x = 12345;

	for (size_t i = 0; i < sizeof(buf); i++) {
		x = x * 1103515245U + 12345U;
		buf[i] = (uint8_t)(x >> 16);
	}
	for (size_t off = 0; off < 8; off++)
		for (size_t len = 0; len <= 64; len++)
			ck_assert_uint_eq(pf_crc(PF_CRC_INITIAL, buf + off, len),
					  crc_bitwise(PF_CRC_INITIAL, buf + off, len));
	ck_assert_uint_eq(pf_crc(0, buf, 4096), crc_bitwise(0, buf, 4096));
	ck_assert_uint_eq(pf_crc(0xFFFFFFFFU, buf + 3, 4093), crc_bitwise(0xFFFFFFFFU, buf + 3, 4093));
}
END_TEST

START_TEST(test_known_answers)
{
	static const uint8_t zeros[512];

	ck_assert_uint_eq(pf_crc(PF_CRC_INITIAL, NULL, 0), 0xF597A6CFU);
	ck_assert_uint_eq(crc_str("a"), 0x319B1949U);
	ck_assert_uint_eq(crc_str("123456789"), 0x4991CF02U);
	ck_assert_uint_eq(crc_str("LVM2"), 0x34FF1083U);
	ck_assert_uint_eq(pf_crc(PF_CRC_INITIAL, zeros, sizeof(zeros)), 0x6790AECBU);
	ck_assert_uint_eq(crc_str("/dev/loop4/dev/loop5/dev/loop6/dev/loop7"), 2943897425U);
	/* With the standard seed this is the un-inverted CRC-32 check value. */
	ck_assert_uint_eq(pf_crc(0xFFFFFFFFU, "123456789", 9), 0x340BC6D9U);
}
END_TEST

/* Bytes 20..511 of a label sector written by lvm2 2.03.16 (crc_xl 0x19831fbb on disk). */
START_TEST(test_label_sector_from_lvm2)
{
	uint8_t sector[512] = { 0 };
	static const uint8_t head[] = {
		0x4c, 0x41, 0x42, 0x45, 0x4c, 0x4f, 0x4e, 0x45, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00,
		0x00, 0x00, 0xbb, 0x1f, 0x83, 0x19, 0x20, 0x00, 0x00, 0x00, 0x4c, 0x56, 0x4d, 0x32,
		0x20, 0x30, 0x30, 0x31,
	};
	static const char uuid[] = "sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a1";

	memcpy(sector, head, sizeof(head));
	memcpy(sector + 32, uuid, 32);
	sector[64 + 3] = 0x04;	   /* device_size 0x4000000 */
	sector[72 + 2] = 0x10;	   /* da[0].offset 0x100000 */
	sector[104 + 1] = 0x10;	   /* mda[0].offset 0x1000 */
	sector[112 + 1] = 0xf0;	   /* mda[0].size 0xff000 */
	sector[112 + 2] = 0x0f;
	sector[136] = 0x02;	   /* extension version 2 */
	ck_assert_uint_eq(pf_crc(PF_CRC_INITIAL, sector + 20, 512 - 20), 0x19831FBBU);
}
END_TEST

START_TEST(test_chaining)
{
	const char *a = "vg1 {\nid = \"x\"", *b = "\n}\n";
	char both[64];

	(void)snprintf(both, sizeof(both), "%s%s", a, b);
	ck_assert_uint_eq(pf_crc(pf_crc(PF_CRC_INITIAL, a, strlen(a)), b, strlen(b)), crc_str(both));
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("crc");
	TCase *tc = pf_unit_tcase("crc");

	tcase_add_test(tc, test_known_answers);
	tcase_add_test(tc, test_tables_match_definition);
	tcase_add_test(tc, test_label_sector_from_lvm2);
	tcase_add_test(tc, test_chaining);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
