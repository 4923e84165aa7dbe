/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Test VGs for the autoactivation suites: build, decide, check lvm2's lines. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aavg.h"
#include "unit.h"

static const struct tlv gate_lvs[] = {
	{ "a", "RWV", NULL, NULL, NULL },
	{ "b", "RWV", "ACTIVATION_SKIP", NULL, NULL },
	{ "c", "RWV", "NOAUTOACTIVATE", NULL, NULL },
	{ "d", "RWV", NULL, "foo", NULL },
	{ "e", "RW", NULL, NULL, NULL },
	{ "f", "RWV", NULL, NULL, "type = \"striped\"\nstripe_count = 1\nstripes = [\"pv1\", 0]" },
	{ "g", "RWV", "ACTIVATION_SKIP,NOAUTOACTIVATE", "foo", NULL },
	{ "h", "RWV", "NOAUTOACTIVATE", "bar", NULL },
};

const struct tvg aa_gate_vg = {
	.name = "vga", .tags = "vgtag", .lvs = gate_lvs, .n_lvs = ARRAY_SIZE(gate_lvs),
};

const struct tvg aa_two_pv_vg = {
	.name = "vga", .lvs = gate_lvs, .n_lvs = ARRAY_SIZE(gate_lvs),
};

static const struct tlv kind_lvs[] = {
	{ "lin", "RWV", NULL, NULL, LIN("pv0", 0) },
	{ "z", "RWV", NULL, NULL, "type = \"zero\"" },
	{ "e", "RWV", NULL, NULL, "type = \"error\"" },
	{ "r0", "RWV", NULL, NULL,
	  "type = \"raid0\"\nstripe_count = 2\nstripe_size = 128\n"
	  "raid0_lvs = [\"r0_rimage_0\", \"r0_rimage_1\"]" },
	{ "snap", "RW", NULL, NULL, LIN("pv1", 13) },
	{ "tp", "RWV", NULL, NULL,
	  "type = \"thin-pool\"\nmetadata = \"tp_tmeta\"\npool = \"tp_tdata\"\n"
	  "transaction_id = 1\nchunk_size = 128\ndiscards = \"passdown\"\nzero_new_blocks = 1" },
	{ "th", "RWV", NULL, NULL,
	  "type = \"thin\"\nthin_pool = \"tp\"\ntransaction_id = 0\ndevice_id = 1" },
	{ "r1", "RWV", NULL, NULL,
	  "type = \"raid1\"\ndevice_count = 2\nregion_size = 4096\n"
	  "raids = [\"r1_rmeta_0\", \"r1_rimage_0\", \"r1_rmeta_1\", \"r1_rimage_1\"]" },
	{ "m1", "RWV", NULL, NULL,
	  "type = \"mirror\"\nmirror_count = 2\nregion_size = 1024\n"
	  "mirrors = [\"m1_mimage_0\", 0, \"m1_mimage_1\", 0]" },
	{ "c1", "RWV", NULL, NULL, "type = \"cache\"\ncache_pool = \"cp\"\norigin = \"c1_corig\"" },
	{ "sp", "RW", NULL, NULL, LIN("pv0", 50) },
	{ "cp2", "RWV", NULL, NULL,
	  "type = \"cache-pool+METADATA_FORMAT\"\ndata = \"cp2_cdata\"\n"
	  "metadata = \"cp2_cmeta\"\nmetadata_format = 2\nchunk_size = 128" },
	{ "lin3", "RWV", NULL, NULL, LIN("pv0", 56) },
	{ "u1", "RWV", NULL, NULL, "type = \"frobnicate\"\nwhatever = 1" },
	{ "cp", "RW", NULL, NULL,
	  "type = \"cache-pool+METADATA_FORMAT\"\ndata = \"cp_cdata\"\n"
	  "metadata = \"cp_cmeta\"\nmetadata_format = 2\nchunk_size = 128" },
	{ "tp_tdata", "RW", NULL, NULL, LIN("pv1", 4) },
	{ "tp_tmeta", "RW", NULL, NULL, LIN("pv0", 28) },
	{ "r1_rmeta_0", "RW", NULL, NULL, LIN("pv0", 29) },
	{ "r1_rimage_0", "RW", NULL, NULL, LIN("pv1", 5) },
	{ "r1_rmeta_1", "RW", NULL, NULL, LIN("pv0", 33) },
	{ "r1_rimage_1", "RW", NULL, NULL, LIN("pv1", 9) },
	{ "m1_mimage_0", "RW", NULL, NULL, LIN("pv0", 4) },
	{ "m1_mimage_1", "RW", NULL, NULL, LIN("pv1", 15) },
	{ "c1_corig", "RW", NULL, NULL, LIN("pv0", 6) },
	{ "r0_rimage_0", "RW", NULL, NULL, LIN("pv0", 11) },
	{ "r0_rimage_1", "RW", NULL, NULL, LIN("pv1", 0) },
	{ "lvol0_pmspare", "RW", NULL, NULL, LIN("pv1", 2) },
	{ "cp_cmeta", "RW", NULL, NULL, LIN("pv0", 16) },
	{ "cp_cdata", "RW", NULL, NULL, LIN("pv0", 20) },
	{ "snapshot0", "RWV", NULL, NULL,
	  "type = \"snapshot\"\nchunk_size = 8\norigin = \"lin\"\ncow_store = \"snap\"" },
	{ "lvol0_vorigin", "RW", NULL, NULL, "type = \"zero\"" },
	{ "snapshot1", "RWV", NULL, NULL,
	  "type = \"snapshot\"\nchunk_size = 8\norigin = \"lvol0_vorigin\"\ncow_store = \"sp\"" },
	{ "cp2_cdata", "RW", NULL, NULL, LIN("pv1", 50) },
	{ "cp2_cmeta", "RW", NULL, NULL, LIN("pv1", 51) },
	{ "snapm", "RW", NULL, NULL, LIN("pv0", 57) },
	{ "snapshot2", "RW", NULL, NULL,
	  "type = \"snapshot\"\nchunk_size = 8\norigin = \"lin3\"\nmerging_store = \"snapm\"" },
	/* Not run with lvm2 (needs VDO metadata): from source, the pool is skipped. */
	{ "vpool0", "RWV", NULL, NULL, "type = \"vdo-pool\"\ndata = \"vpool0_vdata\"" },
	{ "vdo0", "RWV", NULL, NULL, "type = \"vdo\"\nvdo_pool = \"vpool0\"\nvdo_offset = 0" },
	{ "vpool0_vdata", "RW", NULL, NULL, LIN("pv1", 60) },
};

const struct tvg aa_kind_vg = {
	.name = "vgseg", .lvs = kind_lvs, .n_lvs = ARRAY_SIZE(kind_lvs),
};

static const struct tlv integrity_lvs[] = {
	{ "a", "RWV", NULL, NULL, NULL },
	{ "ig", "RWV", NULL, NULL,
	  "type = \"integrity\"\norigin = \"ig_iorig\"\ndata_sectors = 8192\nmode = \"J\"\n"
	  "tag_size = 4\nblock_size = 512\ninternal_hash = \"crc32c\"\nrecalculate = 1" },
	{ "ig_iorig", "RW", NULL, NULL, NULL },
	{ "rv", "RWV", NULL, NULL,
	  "type = \"raid1\"\nraids = [\"rv_rmeta_0\", \"rv_rimage_0\"]" },
	{ "rv_rmeta_0", "RW", NULL, NULL, NULL },
	{ "rv_rimage_0", "RW", NULL, NULL,
	  "type = \"integrity\"\norigin = \"rv_rimage_0_iorig\"\nrecalculate = 1" },
	{ "rv_rimage_0_iorig", "RW", NULL, NULL, NULL },
};

const struct tvg aa_integrity_vg = {
	.name = "vga", .lvs = integrity_lvs, .n_lvs = ARRAY_SIZE(integrity_lvs),
};

static void put_list(FILE *f, const char *key, const char *csv)
{
	const char *p = csv;

	fprintf(f, "%s = [", key);
	while (p && *p) {
		const char *e = strchr(p, ',');
		int len = e ? (int)(e - p) : (int)strlen(p);

		fprintf(f, "%s\"%.*s\"", p == csv ? "" : ", ", len, p);
		p = e ? e + 1 : NULL;
	}
	fputs("]\n", f);
}

static void put_status(FILE *f, const char *letters)
{
	static const struct {
		char c;
		const char *s;
	} map[] = { { 'R', "READ" }, { 'W', "WRITE" }, { 'V', "VISIBLE" },
		    { 'L', "LOCKED" }, { 'P', "PVMOVE" } };
	bool first = true;

	fputs("status = [", f);
	for (const char *c = letters; *c; c++)
		for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
			if (map[i].c == *c) {
				fprintf(f, "%s\"%s\"", first ? "" : ", ", map[i].s);
				first = false;
			}
	fputs("]\n", f);
}

struct pf_vg *aa_build(const struct tvg *t)
{
	unsigned n_pvs = t->n_pvs ? t->n_pvs : 2, pe = 0;
	struct pf_vg *vg = NULL;
	struct pf_diag d = { 0 };
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_le(n_pvs, sizeof(t->pv_flags) / sizeof(t->pv_flags[0]));
	fprintf(f, "%s {\nid = \"SMXdl4-CC44-uuuT-0k1u-g51v-Ub5x-0I3wDh\"\nseqno = 5\n",
		t->name ? t->name : "vg1");
	fprintf(f, "status = [%s]\n",
		t->status ? t->status : "\"RESIZEABLE\", \"READ\", \"WRITE\"");
	put_list(f, "flags", t->flags);
	if (t->tags)
		put_list(f, "tags", t->tags);
	fprintf(f, "extent_size = 8192\nmax_lv = 0\nmax_pv = 0\nmetadata_copies = 0\n%s\n",
		t->extra ? t->extra : "");
	fputs("physical_volumes {\n", f);
	for (unsigned i = 0; i < n_pvs; i++) {
		fprintf(f, "pv%u {\nid = \"tz2guY-5lhh-9Mcq-ZXkk-3u5V-dPZI-dXdof%u\"\n", i, i);
		fprintf(f, "device = \"/dev/loop%u\"\nstatus = [\"ALLOCATABLE\"]\n", 30 + i);
		put_list(f, "flags", t->pv_flags[i]);
		fputs("dev_size = 131072\npe_start = 2048\npe_count = 200\n}\n", f);
	}
	fputs("}\nlogical_volumes {\n", f);
	for (size_t l = 0; l < t->n_lvs; l++) {
		const struct tlv *lv = &t->lvs[l];

		fprintf(f, "%s {\nid = \"aaaaaa-aaaa-aaaa-aaaa-aaaa-aaaa-%06zu\"\n", lv->name, l);
		put_status(f, lv->status);
		put_list(f, "flags", lv->flags);
		if (lv->tags)
			put_list(f, "tags", lv->tags);
		fputs("segment_count = 1\nsegment1 {\nstart_extent = 0\n", f);
		if (!lv->seg || !strstr(lv->seg, "extent_count"))
			fputs("extent_count = 1\n", f);
		if (lv->seg)
			fprintf(f, "%s\n", lv->seg);
		else
			fprintf(f, "type = \"striped\"\nstripe_count = 1\n"
				"stripes = [\"pv0\", %u]\n", pe++);
		fputs("}\n}\n", f);
	}
	fputs("}\n}\ncontents = \"Text Format Volume Group\"\nversion = 1\n", f);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_msg(pf_vg_import(text, len, &vg, &d) == 0, "import: %s (line %u)", d.msg, d.line);
	free(text);
	return vg;
}

struct pf_aapolicy *aa_decide(const struct pf_vg *vg, const struct pf_aapolicy_input *in)
{
	struct pf_aapolicy *p = NULL;

	ck_assert_int_eq(pf_aapolicy_decide(vg, in, &p), 0);
	ck_assert_ptr_nonnull(p);
	ck_assert_uint_eq(p->n_lvs, vg->n_lvs);
	return p;
}

static const char verdict_letters[] = {
	[PF_AAPOLICY_LV_ACTIVATE] = 'A',
	[PF_AAPOLICY_LV_NOT_REACHED] = '-',
	[PF_AAPOLICY_LV_HIDDEN] = 'h',
	[PF_AAPOLICY_LV_SNAPSHOT] = 's',
	[PF_AAPOLICY_LV_MIRROR_PART] = 'm',
	[PF_AAPOLICY_LV_VDO_POOL] = 'd',
	[PF_AAPOLICY_LV_ACTIVATION_SKIP] = 'k',
	[PF_AAPOLICY_LV_NOT_IN_AUTO_LIST] = 'l',
	[PF_AAPOLICY_LV_NOAUTOACTIVATE] = 'n',
	[PF_AAPOLICY_LV_CACHE_POOL] = 'c',
	[PF_AAPOLICY_LV_DUPLICATE_PVS] = 'D',
	[PF_AAPOLICY_LV_INTEGRITY_RECALC] = 'I',
	[PF_AAPOLICY_LV_COMPONENT_ACTIVE] = 'C',
	[PF_AAPOLICY_LV_NOT_IN_VOLUME_LIST] = 'v',
	[PF_AAPOLICY_LV_PARTIAL] = 'P',
	[PF_AAPOLICY_LV_PARTIAL_RAID] = 'R',
	[PF_AAPOLICY_LV_UNKNOWN_SEGMENT] = 'U',
	[PF_AAPOLICY_LV_RAID_VISIBLE_SUBLVS] = 'S',
	[PF_AAPOLICY_LV_ALREADY_ACTIVE] = 'a',
};

const char *aa_letters(const struct pf_aapolicy *p)
{
	static char buf[128];
	unsigned i;

	for (i = 0; i < p->n_lvs && i + 1 < sizeof(buf); i++)
		buf[i] = verdict_letters[p->lvs[i].verdict];
	buf[i] = '\0';
	return buf;
}

void aa_check_msgs(const struct pf_aamsg *m, int n, const char *const *want)
{
	static const char level[] = { [PF_AAMSG_DEBUG] = 'D',
				      [PF_AAMSG_VERBOSE] = 'V',
				      [PF_AAMSG_PRINT] = 'P',
				      [PF_AAMSG_WARN] = 'W',
				      [PF_AAMSG_ERROR] = 'E' };
	int k;

	for (k = 0; k < n && want[k]; k++) {
		ck_assert_msg(level[m[k].level] == want[k][0], "line %d level %c, want %s", k,
			      level[m[k].level], want[k]);
		ck_assert_int_eq(m[k].pvscan_prefix, want[k][1] == '+');
		ck_assert_str_eq(m[k].text, want[k] + 2);
	}
	ck_assert_msg(k == n && !want[k], "got %d lines, line %d wanted: %s", n, k,
		      want[k] ? want[k] : "(none)");
}

void aa_check_lv_msgs(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
		      const struct pf_aapolicy *p, const char *lv, const char *const *want)
{
	struct pf_aamsg m[PF_AAMSG_LINES_MAX];
	const struct pf_vg_lv *l = pf_vg_find_lv(vg, lv);

	ck_assert_ptr_nonnull(l);
	aa_check_msgs(m, pf_aamsg_lv(vg, in, p, (unsigned)(l - vg->lvs), m, ARRAY_SIZE(m)),
		   want);
}

void aa_check_vg_msgs(const struct pf_vg *vg, const struct pf_aapolicy_input *in,
		      const struct pf_aapolicy *p, const char *const *want)
{
	struct pf_aamsg m[PF_AAMSG_LINES_MAX];

	aa_check_msgs(m, pf_aamsg_vg(vg, in, p, m, ARRAY_SIZE(m)), want);
}

void aa_check_read_msgs(const struct pf_vg *vg, const struct pf_aapolicy *p,
			const struct pf_aamsg_copy *copies, size_t n, const char *const *devs,
			const char *const *want)
{
	struct pf_aamsg m[16];

	aa_check_msgs(m, pf_aamsg_read(vg, p, copies, n, devs, m, ARRAY_SIZE(m)), want);
}

int aa_idx(const struct pf_vg *vg, const char *name)
{
	const struct pf_vg_lv *l = pf_vg_find_lv(vg, name);

	ck_assert_ptr_nonnull(l);
	return (int)(l - vg->lvs);
}
