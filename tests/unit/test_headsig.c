/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The signatures lvm2's data filters look for in a labelled device's first bytes. */
#include "config.h"

#include <errno.h>
#include <stdint.h>

#include "format/headsig.h"
#include "heads.h"
#include "unit.h"

START_TEST(test_kinds)
{
	static const struct {
		enum head_kind head;
		bool part, old, md;
	} cases[] = {
		{ HEAD_ZERO, false, false, false },
		{ HEAD_MBR, true, false, false },
		{ HEAD_MBR_BOOT80, true, false, false },
		/* a boot flag other than 0 or 0x80 in any entry: not a table lvm2 knows */
		{ HEAD_MBR_BAD_BOOT, false, false, false },
		{ HEAD_MBR_EMPTY, false, false, false },
		/* a GPT's protective entry is a table */
		{ HEAD_GPT, true, false, false },
		{ HEAD_LVM1_V1, false, true, false },
		{ HEAD_LVM1_V2, false, true, false },
		{ HEAD_LVM1_V3, false, false, false },
		{ HEAD_POOL, false, true, false },
		{ HEAD_POOL_V5, false, false, false },
		{ HEAD_MD_0, false, false, true },
		{ HEAD_MD_4K, false, false, true },
		/* lvm2 compares in host order, swapped only on big-endian hosts */
		{ HEAD_MD_BE, false, false, __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__ },
	};
	uint8_t head[PF_HEADSIG_BYTES];

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct pf_headsig sig;

		heads_build(cases[i].head, head);
		ck_assert_int_eq(pf_headsig_read(pf_span_make(head, sizeof(head)), &sig), 0);
		ck_assert_msg(sig.partition_table == cases[i].part && sig.old_signature == cases[i].old &&
				      sig.md_at_start == cases[i].md,
			      "case %zu: %d %d %d", i, sig.partition_table, sig.old_signature,
			      sig.md_at_start);
	}
}
END_TEST

START_TEST(test_short_head)
{
	uint8_t head[PF_HEADSIG_BYTES] = { 0 };
	struct pf_headsig sig = { .partition_table = true };

	/* fewer bytes than the md 1.2 magic needs: no verdict on them, nothing changed */
	ck_assert_int_eq(pf_headsig_read(pf_span_make(head, sizeof(head) - 1), &sig), -EINVAL);
	ck_assert(sig.partition_table);
	ck_assert_int_eq(pf_headsig_read(pf_span_make(head, 0), &sig), -EINVAL);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("headsig");
	TCase *tc = pf_unit_tcase("headsig");

	tcase_add_test(tc, test_kinds);
	tcase_add_test(tc, test_short_head);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
