/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The per-device probe driven over in-memory images: every path from label to VG, and failures. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/span.h"
#include "build.h"
#include "format/mdsb.h"
#include "format/probe.h"
#include "unit.h"

#define DEV_SIZE (8U * 1024U * 1024U)
#define MDA1_START 4096U
#define MDA_SIZE (64U * 1024U)
#define MDA2_START (DEV_SIZE - MDA_SIZE)

static uint8_t *dev;

static void setup(void)
{
	dev = calloc(1, DEV_SIZE);
	ck_assert_ptr_nonnull(dev);
}

static void teardown(void)
{
	free(dev);
}

/* Minimal metadata lvm2 would accept, with the given seqno, for a 1-PV VG on this PVID. */
static size_t vg_text(char *buf, size_t len, unsigned seqno)
{
	int n = snprintf(buf, len,
			 "vgp {\nid = \"SMXdl4-CC44-uuuT-0k1u-g51v-Ub5x-0I3wDh\"\nseqno = %u\n"
			 "status = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\nflags = []\n"
			 "extent_size = 8192\nmax_lv = 0\nmax_pv = 0\n"
			 "physical_volumes {\npv0 {\nid = \"sJBIRv-tuEF-Ck1N-Kvbd-PtdU-y4nd-QtE4a1\"\n"
			 "status = [\"ALLOCATABLE\"]\ndev_size = %u\npe_start = 2048\npe_count = 1\n}\n}\n"
			 "}\ncontents = \"Text Format Volume Group\"\nversion = 1\n",
			 seqno, DEV_SIZE / 512);

	ck_assert_int_gt(n, 0);
	return (size_t)n + 1; /* lvm2 counts the trailing NUL */
}

/* Label with n_mdas areas (mda1 at 4 KiB, mda2 at the end) each holding the given seqno. */
static void make_pv(unsigned n_mdas, const unsigned *seqnos, uint64_t text_offset)
{
	struct pf_disk_locn da = { 1024 * 1024, 0 };
	struct pf_disk_locn mdas[2] = { { MDA1_START, MDA_SIZE }, { MDA2_START, MDA_SIZE } };
	struct pf_build_label spec = {
		.sector = 1,
		.device_size_bytes = DEV_SIZE,
		.n_data_areas = 1,
		.data_areas = &da,
		.n_mdas = n_mdas,
		.mdas = mdas,
		.ext_version = 2,
		.ext_flags = PF_PV_EXT_USED,
	};
	char text[2048];

	ck_assert_int_eq(pf_build_label_head(&spec, dev, PF_LABEL_SCAN_BYTES, NULL), 0);
	for (unsigned i = 0; i < n_mdas; i++) {
		size_t len = vg_text(text, sizeof(text), seqnos[i]);

		ck_assert_int_eq(pf_build_mda_area(dev + mdas[i].offset_bytes, MDA_SIZE,
						   mdas[i].offset_bytes, text_offset, text, len),
				 0);
	}
}

/* Drive the probe like pvread does, but from memory; device size may be cut short. */
static void run(struct pf_probe *p, uint64_t size)
{
	uint64_t off, len;
	unsigned steps = 0;

	pf_probe_init(p, size);
	while (pf_probe_next(p, &off, &len) == 1) {
		ck_assert_uint_lt(++steps, 16); /* the probe always terminates */
		if (off >= size)
			pf_probe_feed(p, dev, 0);
		else
			pf_probe_feed(p, dev + off, (size_t)(off + len <= size ? len : size - off));
	}
}

START_TEST(test_one_mda)
{
	struct pf_probe p;
	unsigned seq[] = { 3 };

	make_pv(1, seq, 512);
	run(&p, DEV_SIZE);
	ck_assert_int_eq(p.label_status, 0);
	ck_assert_uint_eq(p.n_mdas, 1);
	ck_assert_int_eq(p.mdas[0].header_status, 0);
	ck_assert_int_eq(p.mdas[0].text_status, 0);
	ck_assert_int_eq(p.mdas[0].vg_status, 0);
	ck_assert_ptr_nonnull(pf_probe_vg(&p));
	ck_assert_str_eq(pf_probe_vg(&p)->name, "vgp");
	ck_assert_int_eq(p.size_status, 0);
	pf_probe_release(&p);
}
END_TEST

START_TEST(test_newest_mda_wins)
{
	struct pf_probe p;
	unsigned seq[] = { 4, 5 };

	make_pv(2, seq, 1024);
	run(&p, DEV_SIZE);
	ck_assert_int_eq(p.vg_index, 1);
	ck_assert_uint_eq(pf_probe_vg(&p)->seqno, 5);
	ck_assert_uint_eq(p.mdas[0].vg->seqno, 4);
	pf_probe_release(&p);
}
END_TEST

START_TEST(test_ignored_mda_skipped)
{
	struct pf_probe p;
	unsigned seq[] = { 9, 5 };

	make_pv(2, seq, 512);
	dev[MDA1_START + 40 + 20] |= PF_RAW_LOCN_IGNORED; /* raw_locn[0].flags */
	pf_build_mda_fix_checksum(dev + MDA1_START);
	run(&p, DEV_SIZE);
	ck_assert(p.mdas[0].ignored);
	ck_assert_int_eq(p.mdas[0].text_status, -ENODATA);
	ck_assert_ptr_null(p.mdas[0].vg);
	ck_assert_uint_eq(pf_probe_vg(&p)->seqno, 5); /* the stale-but-newer ignored copy is unused */
	pf_probe_release(&p);

	/* For display the ignored copy can be read too; it is still never chosen. */
	pf_probe_init(&p, DEV_SIZE);
	p.read_ignored = true;
	{
		uint64_t off, len;

		while (pf_probe_next(&p, &off, &len) == 1)
			pf_probe_feed(&p, dev + off, (size_t)len);
	}
	ck_assert(p.mdas[0].ignored);
	ck_assert_int_eq(p.mdas[0].text_status, 0);
	ck_assert_uint_eq(p.mdas[0].vg->seqno, 9);
	ck_assert_int_eq(p.vg_index, 1);
	pf_probe_release(&p);
}
END_TEST

START_TEST(test_wrapped_text)
{
	struct pf_probe p;
	unsigned seq[] = { 7 };

	make_pv(1, seq, MDA_SIZE - 100);
	run(&p, DEV_SIZE);
	ck_assert_uint_ne(p.mdas[0].loc.len2_bytes, 0);
	ck_assert_int_eq(p.mdas[0].vg_status, 0);
	ck_assert_uint_eq(pf_probe_vg(&p)->seqno, 7);
	pf_probe_release(&p);
}
END_TEST

START_TEST(test_bad_mda1_falls_back_to_mda2)
{
	struct pf_probe p;
	unsigned seq[] = { 5, 5 };

	make_pv(2, seq, 512);
	dev[MDA1_START + 100] ^= 0xff;
	run(&p, DEV_SIZE);
	ck_assert_int_eq(p.mdas[0].header_status, -EBADMSG);
	ck_assert(strstr(p.mdas[0].header_diag.msg, "mda1: ") == p.mdas[0].header_diag.msg);
	ck_assert_int_eq(p.vg_index, 1);
	pf_probe_release(&p);
}
END_TEST

START_TEST(test_bad_text_checksum)
{
	struct pf_probe p;
	unsigned seq[] = { 5 };

	make_pv(1, seq, 512);
	dev[MDA1_START + 512 + 10] ^= 0x01;
	run(&p, DEV_SIZE);
	ck_assert_int_eq(p.mdas[0].text_status, -EBADMSG);
	ck_assert_int_eq(p.mdas[0].vg_status, 1); /* never reached */
	ck_assert_ptr_null(pf_probe_vg(&p));
	pf_probe_release(&p);
}
END_TEST

START_TEST(test_bad_metadata_has_position)
{
	struct pf_probe p;
	struct pf_disk_locn da = { 1024 * 1024, 0 }, mda = { MDA1_START, MDA_SIZE };
	struct pf_build_label spec = { .sector = 1, .device_size_bytes = DEV_SIZE,
				       .n_data_areas = 1, .data_areas = &da, .n_mdas = 1,
				       .mdas = &mda, .ext_version = 2, .ext_flags = 1 };
	static const char text[] = "vgp {\nid = \n}\n";

	ck_assert_int_eq(pf_build_label_head(&spec, dev, PF_LABEL_SCAN_BYTES, NULL), 0);
	ck_assert_int_eq(pf_build_mda_area(dev + MDA1_START, MDA_SIZE, MDA1_START, 512, text,
					   sizeof(text)),
			 0);
	run(&p, DEV_SIZE);
	ck_assert_int_eq(p.mdas[0].text_status, 0);
	ck_assert_int_lt(p.mdas[0].vg_status, 0);
	ck_assert_uint_eq(p.mdas[0].vg_diag.line, 3); /* the "}" where a value belongs */
	pf_probe_release(&p);
}
END_TEST

START_TEST(test_truncated_devices)
{
	struct pf_probe p;
	unsigned seq[] = { 5, 5 };

	make_pv(2, seq, 512);
	/* mda2 lies past the end: reported, mda1 still used. */
	run(&p, MDA2_START);
	ck_assert_int_eq(p.mdas[1].header_status, -ERANGE);
	ck_assert_int_eq(p.vg_index, 0);
	ck_assert_int_eq(p.size_status, -ERANGE); /* smaller than the pv_header says */
	pf_probe_release(&p);

	/* The text runs past the end. */
	run(&p, MDA1_START + 600);
	ck_assert_int_eq(p.mdas[0].text_status, -ERANGE);
	pf_probe_release(&p);

	/* Less than one sector. */
	run(&p, 100);
	ck_assert_int_eq(p.label_status, -ENODATA);
	pf_probe_release(&p);

	run(&p, 0);
	ck_assert_int_eq(p.label_status, -ENODATA);
	pf_probe_release(&p);
}
END_TEST

START_TEST(test_read_failures)
{
	struct pf_probe p;
	unsigned seq[] = { 5, 6 };
	uint64_t off, len;

	make_pv(2, seq, 512);
	pf_probe_init(&p, DEV_SIZE);
	ck_assert_int_eq(pf_probe_next(&p, &off, &len), 1);
	pf_probe_feed(&p, dev + off, (size_t)len); /* label */
	ck_assert_int_eq(pf_probe_next(&p, &off, &len), 1);
	ck_assert_uint_eq(off, MDA1_START);
	pf_probe_fail(&p, -EIO); /* mda1 header unreadable */
	ck_assert_int_eq(p.mdas[0].header_status, -EIO);
	ck_assert_int_eq(pf_probe_next(&p, &off, &len), 1);
	ck_assert_uint_eq(off, MDA2_START);
	pf_probe_feed(&p, dev + off, (size_t)len);
	ck_assert_int_eq(pf_probe_next(&p, &off, &len), 1);
	pf_probe_feed(&p, dev + off, (size_t)len - 1); /* short text read */
	ck_assert_int_eq(p.mdas[1].text_status, -EIO);
	ck_assert_int_eq(pf_probe_next(&p, &off, &len), 0);
	ck_assert_ptr_null(pf_probe_vg(&p));
	/* Feeding a finished probe is harmless. */
	pf_probe_feed(&p, dev, 512);
	pf_probe_fail(&p, -EIO);
	pf_probe_release(&p);

	pf_probe_init(&p, DEV_SIZE);
	pf_probe_fail(&p, -EIO);
	ck_assert_int_eq(p.label_status, -EIO);
	ck_assert_int_eq(pf_probe_next(&p, &off, &len), 0);
	pf_probe_release(&p);
}
END_TEST

START_TEST(test_no_label)
{
	struct pf_probe p;

	run(&p, DEV_SIZE);
	ck_assert_int_eq(p.label_status, -ENODATA);
	ck_assert_uint_eq(p.n_mdas, 0);
	pf_probe_release(&p);
	pf_probe_release(NULL);
}
END_TEST

/* --- md superblocks at the end ---------------------------------------------------------- */

#define PVID_DASHED "sJBIRv-tuEF-Ck1N-Kvbd-PtdU-y4nd-QtE4a1"
#define OTHER_PVID  "xJBIRv-tuEF-Ck1N-Kvbd-PtdU-y4nd-QtE4a1"
#define NO_DEV_SIZE UINT64_MAX

/* A 1-PV VG whose PV records dev_size (sectors; NO_DEV_SIZE: none) and device (NULL: none). */
static void make_md_pv(const char *pvid, uint64_t dev_size, const char *device, uint32_t ext_flags)
{
	struct pf_disk_locn da = { 1024 * 1024, 0 }, mda = { MDA1_START, MDA_SIZE };
	struct pf_build_label spec = { .sector = 1, .device_size_bytes = DEV_SIZE,
				       .n_data_areas = 1, .data_areas = &da, .n_mdas = 1,
				       .mdas = &mda, .ext_version = 2, .ext_flags = ext_flags };
	char size_line[64] = "", device_line[128] = "", text[2048];
	int n;

	if (dev_size != NO_DEV_SIZE)
		(void)snprintf(size_line, sizeof(size_line), "dev_size = %llu\n",
			       (unsigned long long)dev_size);
	if (device)
		(void)snprintf(device_line, sizeof(device_line), "device = \"%s\"\n", device);
	n = snprintf(text, sizeof(text),
		     "vgmd {\nid = \"SMXdl4-CC44-uuuT-0k1u-g51v-Ub5x-0I3wDh\"\nseqno = 1\n"
		     "status = [\"RESIZEABLE\", \"READ\", \"WRITE\"]\nflags = []\n"
		     "extent_size = 8192\nmax_lv = 0\nmax_pv = 0\n"
		     "physical_volumes {\npv0 {\nid = \"%s\"\n%s"
		     "status = [\"ALLOCATABLE\"]\n%spe_start = 2048\npe_count = 1\n}\n}\n"
		     "}\ncontents = \"Text Format Volume Group\"\nversion = 1\n",
		     pvid, device_line, size_line);
	ck_assert_int_gt(n, 0);
	ck_assert_int_eq(pf_build_label_head(&spec, dev, PF_LABEL_SCAN_BYTES, NULL), 0);
	ck_assert_int_eq(pf_build_mda_area(dev + MDA1_START, MDA_SIZE, MDA1_START, 512, text,
					   (size_t)n + 1),
			 0);
}

/* Drive the probe with md settings; *ret_asked: it asked for the end-of-device range. */
static void run_md(struct pf_probe *p, uint64_t size, enum pf_probe_md_end when, unsigned lbs,
		   bool *ret_asked)
{
	uint64_t off, len, want_off = 0, want_len = 0;
	unsigned steps = 0;

	*ret_asked = false;
	pf_probe_init(p, size);
	p->md.when = when;
	p->md.lbs = lbs;
	if (pf_mdsb_end_range(size, lbs, &want_off, &want_len) < 0)
		want_len = 0;
	while (pf_probe_next(p, &off, &len) == 1) {
		ck_assert_uint_lt(++steps, 16);
		if (p->step == PF_PROBE_MD_END) {
			ck_assert_uint_eq(off, want_off);
			ck_assert_uint_eq(len, want_len);
			*ret_asked = true;
		}
		pf_probe_feed(p, dev + off, (size_t)len);
	}
	ck_assert_int_eq(p->step, PF_PROBE_DONE);
}

#define MD_MAGIC 0xa92b4efcu

enum md_place { MD_NONE, MD_0_90, MD_1_0 };

START_TEST(test_md_end_when)
{
	static const uint64_t secs = DEV_SIZE / 512;
	static const struct {
		const char *pvid;
		uint64_t dev_size;
		const char *device;
		uint32_t ext_flags;
		enum pf_probe_md_end when;
		enum md_place place;
		bool asked;
		unsigned why;
		enum pf_mdsb_end_kind want;
	} cases[] = {
		/* the metadata agrees with the device: pvscan does not look */
		{ PVID_DASHED, secs, NULL, 1, PF_PROBE_MD_END_HINTED, MD_1_0, false, 0, 0 },
		{ PVID_DASHED, secs, "/dev/sdb", 1, PF_PROBE_MD_END_HINTED, MD_1_0, false, 0, 0 },
		/* size differs (either way), is missing or 0, or the hint is md's */
		{ PVID_DASHED, secs - 128, NULL, 1, PF_PROBE_MD_END_HINTED, MD_1_0, true,
		  PF_PROBE_MD_WHY_SIZE, PF_MDSB_END_1_0 },
		{ PVID_DASHED, secs + 1, NULL, 1, PF_PROBE_MD_END_HINTED, MD_0_90, true,
		  PF_PROBE_MD_WHY_SIZE, PF_MDSB_END_0_90 },
		{ PVID_DASHED, NO_DEV_SIZE, NULL, 1, PF_PROBE_MD_END_HINTED, MD_1_0, true,
		  PF_PROBE_MD_WHY_NO_SIZE, PF_MDSB_END_1_0 },
		{ PVID_DASHED, 0, NULL, 1, PF_PROBE_MD_END_HINTED, MD_1_0, true,
		  PF_PROBE_MD_WHY_NO_SIZE, PF_MDSB_END_1_0 },
		{ PVID_DASHED, secs, "/dev/md127", 1, PF_PROBE_MD_END_HINTED, MD_0_90, true,
		  PF_PROBE_MD_WHY_HINT, PF_MDSB_END_0_90 },
		{ PVID_DASHED, secs, "/dev/md", 1, PF_PROBE_MD_END_HINTED, MD_0_90, true,
		  PF_PROBE_MD_WHY_HINT, PF_MDSB_END_0_90 },
		{ PVID_DASHED, secs - 8, "/dev/md/root", 1, PF_PROBE_MD_END_HINTED, MD_NONE, true,
		  PF_PROBE_MD_WHY_SIZE | PF_PROBE_MD_WHY_HINT, PF_MDSB_END_NONE },
		{ PVID_DASHED, secs, "/dev/mapper/md0", 1, PF_PROBE_MD_END_HINTED, MD_1_0, false, 0,
		  0 },
		{ PVID_DASHED, secs, "/dev/m", 1, PF_PROBE_MD_END_HINTED, MD_1_0, false, 0, 0 },
		/* pvscan says "not used" or "not found in VG" before its md check */
		{ PVID_DASHED, secs - 8, NULL, 0, PF_PROBE_MD_END_HINTED, MD_1_0, false, 0, 0 },
		{ OTHER_PVID, secs - 8, NULL, 1, PF_PROBE_MD_END_HINTED, MD_1_0, false, 0, 0 },
		/* never / always, whatever the metadata says */
		{ PVID_DASHED, secs - 8, "/dev/md0", 1, PF_PROBE_MD_END_NEVER, MD_1_0, false, 0,
		  0 },
		{ PVID_DASHED, secs, NULL, 1, PF_PROBE_MD_END_ALWAYS, MD_1_0, true, 0,
		  PF_MDSB_END_1_0 },
		{ OTHER_PVID, secs, NULL, 0, PF_PROBE_MD_END_ALWAYS, MD_0_90, true, 0,
		  PF_MDSB_END_0_90 },
		{ PVID_DASHED, secs, NULL, 1, PF_PROBE_MD_END_ALWAYS, MD_NONE, true, 0,
		  PF_MDSB_END_NONE },
	};

	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		uint64_t off = 0, len = 0, sb = 0;
		struct pf_probe p;
		bool asked;

		memset(dev, 0, DEV_SIZE);
		make_md_pv(cases[i].pvid, cases[i].dev_size, cases[i].device, cases[i].ext_flags);
		ck_assert_int_eq(pf_mdsb_end_range(DEV_SIZE, 512, &off, &len), 0);
		if (cases[i].place == MD_0_90)
			sb = DEV_SIZE - 64 * 1024;
		else if (cases[i].place == MD_1_0)
			sb = DEV_SIZE - 8 * 1024;
		if (sb)
			pf_put_le32(dev + sb, MD_MAGIC);
		run_md(&p, DEV_SIZE, cases[i].when, 512, &asked);
		ck_assert_msg(asked == cases[i].asked, "case %zu", i);
		ck_assert_msg(p.md_end_why == cases[i].why, "case %zu: why %u", i, p.md_end_why);
		ck_assert_msg(p.md_end_kind == cases[i].want, "case %zu: kind %d", i,
			      p.md_end_kind);
		ck_assert_int_eq(p.md_end_status, asked ? 0 : 1);
		if (cases[i].want != PF_MDSB_END_NONE) {
			ck_assert_uint_eq(p.md_end_offset, sb);
			ck_assert(strstr(p.md_end_diag.msg, "md ") == p.md_end_diag.msg);
		}
		/* the VG is decoded as without the extra step */
		ck_assert_int_eq(p.label_status, 0);
		ck_assert_ptr_nonnull(pf_probe_vg(&p));
		ck_assert_str_eq(pf_probe_vg(&p)->name, "vgmd");
		pf_probe_release(&p);
	}
}
END_TEST

START_TEST(test_md_end_failures)
{
	uint64_t off, len;
	struct pf_probe p;
	bool asked;

	make_md_pv(PVID_DASHED, 1, NULL, 1);
	/* the read of the end fails: lvm2 takes that for no superblock */
	pf_probe_init(&p, DEV_SIZE);
	p.md.when = PF_PROBE_MD_END_HINTED;
	while (pf_probe_next(&p, &off, &len) == 1 && p.step != PF_PROBE_MD_END)
		pf_probe_feed(&p, dev + off, (size_t)len);
	ck_assert_int_eq(p.step, PF_PROBE_MD_END);
	pf_probe_fail(&p, -EIO);
	ck_assert_int_eq(p.md_end_status, -EIO);
	ck_assert_int_eq(p.md_end_kind, PF_MDSB_END_NONE);
	ck_assert(strstr(p.md_end_diag.msg, "md") != NULL);
	ck_assert_int_eq(pf_probe_next(&p, &off, &len), 0);
	ck_assert_ptr_nonnull(pf_probe_vg(&p));
	pf_probe_release(&p);

	/* a short read of it: the same */
	pf_probe_init(&p, DEV_SIZE);
	p.md.when = PF_PROBE_MD_END_ALWAYS;
	while (pf_probe_next(&p, &off, &len) == 1) {
		if (p.step == PF_PROBE_MD_END) {
			pf_put_le32(dev + DEV_SIZE - 8192, MD_MAGIC);
			pf_probe_feed(&p, dev + off, (size_t)len - 1);
		} else {
			pf_probe_feed(&p, dev + off, (size_t)len);
		}
	}
	ck_assert_int_eq(p.md_end_status, -EIO);
	ck_assert_int_eq(p.md_end_kind, PF_MDSB_END_NONE);
	pf_probe_release(&p);

	/* under 128 KiB lvm2 does not look: no read, nothing found */
	memset(dev, 0, DEV_SIZE);
	make_md_pv(PVID_DASHED, 1, NULL, 1);
	run_md(&p, 120 * 1024, PF_PROBE_MD_END_ALWAYS, 512, &asked);
	ck_assert(!asked);
	ck_assert_int_eq(p.md_end_status, 0);
	ck_assert_int_eq(p.md_end_kind, PF_MDSB_END_NONE);
	pf_probe_release(&p);

	/* no label, no look */
	memset(dev, 0, DEV_SIZE);
	pf_put_le32(dev + DEV_SIZE - 8192, MD_MAGIC);
	run_md(&p, DEV_SIZE, PF_PROBE_MD_END_ALWAYS, 512, &asked);
	ck_assert(!asked);
	ck_assert_int_eq(p.label_status, -ENODATA);
	ck_assert_int_eq(p.md_end_status, 1);
	pf_probe_release(&p);

	/* 4 KiB blocks move IMSM's signature: the probe passes lbs on */
	memset(dev, 0, DEV_SIZE);
	make_md_pv(PVID_DASHED, 1, NULL, 1);
	memcpy(dev + DEV_SIZE - 8192, "Intel Raid ISM Cfg Sig. ", 24);
	run_md(&p, DEV_SIZE, PF_PROBE_MD_END_HINTED, 4096, &asked);
	ck_assert(asked);
	ck_assert_int_eq(p.md_end_kind, PF_MDSB_END_IMSM);
	pf_probe_release(&p);
	run_md(&p, DEV_SIZE, PF_PROBE_MD_END_HINTED, 512, &asked);
	ck_assert(asked);
	ck_assert_int_eq(p.md_end_kind, PF_MDSB_END_NONE);
	pf_probe_release(&p);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("probe");
	TCase *tc = pf_unit_tcase("probe");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_one_mda);
	tcase_add_test(tc, test_newest_mda_wins);
	tcase_add_test(tc, test_ignored_mda_skipped);
	tcase_add_test(tc, test_wrapped_text);
	tcase_add_test(tc, test_bad_mda1_falls_back_to_mda2);
	tcase_add_test(tc, test_bad_text_checksum);
	tcase_add_test(tc, test_bad_metadata_has_position);
	tcase_add_test(tc, test_truncated_devices);
	tcase_add_test(tc, test_read_failures);
	tcase_add_test(tc, test_no_label);
	tcase_add_test(tc, test_md_end_when);
	tcase_add_test(tc, test_md_end_failures);
	suite_add_tcase(s, tc);
	return s;
}

PF_UNIT_MAIN()
