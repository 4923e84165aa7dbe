/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's devices file: reading it with lvm2's quirks, and matching devices to its entries. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "device/blockdev.h"
#include "device/devicesfile.h"
#include "unit.h"

static struct pf_devicesfile *parse(const char *text)
{
	struct pf_devicesfile *df = NULL;
	struct pf_diag d;

	ck_assert_int_eq(pf_devicesfile_parse(text, strlen(text), &df, &d), 0);
	return df;
}

/* Written by lvm2 2.03.16's "lvm lvmdevices --adddev" on this machine. */
static const char lvm2_file[] =
	"# LVM uses devices listed in this file.\n"
	"# Created by LVM command lvmdevices pid 21474 at Sun Nov 29 22:30:22 2026\n"
	"VERSION=1.1.2\n"
	"IDTYPE=loop_file IDNAME=/tmp/conf/lx/img/d1.img DEVNAME=/dev/loop212 "
	"PVID=1kzxF6KreS1kf180V2jhBTbVE3tvViQL\n"
	"IDTYPE=loop_file IDNAME=/tmp/conf/lx/img/d2.img DEVNAME=/dev/loop213 "
	"PVID=paqop523fP18IdkzpZSovhhpQ7xScdfM\n";

START_TEST(test_lvm2_written)
{
	struct pf_devicesfile *df = parse(lvm2_file);

	ck_assert_str_eq(df->version, "1.1.2");
	ck_assert_ptr_null(df->systemid);
	ck_assert_uint_eq(df->n_entries, 2);
	ck_assert_uint_eq(df->n_ignored, 0);
	ck_assert_int_eq(df->entries[0].idtype, PF_DEVICESFILE_ID_LOOP_FILE);
	ck_assert_str_eq(df->entries[0].idname, "/tmp/conf/lx/img/d1.img");
	ck_assert_str_eq(df->entries[0].devname, "/dev/loop212");
	ck_assert_str_eq(df->entries[0].pvid, "1kzxF6KreS1kf180V2jhBTbVE3tvViQL");
	ck_assert_int_eq(df->entries[0].part, 0);
	ck_assert_uint_eq(df->entries[0].line, 4);
	ck_assert_str_eq(df->entries[1].devname, "/dev/loop213");
	ck_assert(!pf_devicesfile_uses_devname(df));
	ck_assert_ptr_eq(pf_devicesfile_find_pvid(df, "paqop523fP18IdkzpZSovhhpQ7xScdfM"),
			 &df->entries[1]);
	pf_devicesfile_free(df);
}
END_TEST

/* How lvm2's line reader takes fields apart, quirk by quirk. */
START_TEST(test_field_quirks)
{
	static const struct {
		const char *line;
		enum pf_devicesfile_idtype type;
		const char *idname, *devname, *pvid;
		int part;
	} t[] = {
		/* order does not matter; PART= is read with atoi */
		{ "PVID=abc PART=2x DEVNAME=/dev/sdb2 IDNAME=W IDTYPE=sys_wwid\n",
		  PF_DEVICESFILE_ID_SYS_WWID, "W", "/dev/sdb2", "abc", 2 },
		/* spaces after '=' are skipped; a value ends at a space */
		{ "IDTYPE=  sys_serial   IDNAME=  S1 S2\n", PF_DEVICESFILE_ID_SYS_SERIAL, "S1", NULL,
		  NULL, 0 },
		/* a tab does not end a value: the type is "loop_file\tIDNAME=/x" */
		{ "IDTYPE=loop_file\tIDNAME=/x\n", PF_DEVICESFILE_ID_NONE, "/x", NULL, NULL, 0 },
		/* "." and anything starting with '.' mean none */
		{ "IDTYPE=devname IDNAME=.hidden DEVNAME=. PVID=.\n", PF_DEVICESFILE_ID_DEVNAME, NULL,
		  NULL, NULL, 0 },
		/* a field without '=' takes the value after the next '=' on the line */
		{ "IDTYPE loop_file IDNAME=/img\n", PF_DEVICESFILE_ID_NONE, "/img", NULL, NULL, 0 },
		/* types are case-sensitive */
		{ "IDTYPE=LOOP_FILE IDNAME=/img\n", PF_DEVICESFILE_ID_NONE, "/img", NULL, NULL, 0 },
		/* a carriage return stays in the value */
		{ "IDTYPE=md_uuid IDNAME=u1\r\n", PF_DEVICESFILE_ID_MD_UUID, "u1\r", NULL, NULL, 0 },
		/* field names are found anywhere, even inside another value */
		{ "IDTYPE=loop_file IDNAME=/PVID=x/img\n", PF_DEVICESFILE_ID_LOOP_FILE, "/PVID=x/img",
		  NULL, "x/img", 0 },
		/* the last line needs no newline */
		{ "IDTYPE=crypt_uuid IDNAME=CRYPT-LUKS2-abc", PF_DEVICESFILE_ID_CRYPT_UUID,
		  "CRYPT-LUKS2-abc", NULL, NULL, 0 },
		{ "IDTYPE=mpath_uuid IDNAME=mpath-3600 PART=1", PF_DEVICESFILE_ID_MPATH_UUID,
		  "mpath-3600", NULL, NULL, 1 },
	};

	for (size_t i = 0; i < ARRAY_SIZE(t); i++) {
		struct pf_devicesfile *df = parse(t[i].line);
		const struct pf_devicesfile_entry *e = &df->entries[0];

		ck_assert_msg(df->n_entries == 1, "case %zu", i);
		ck_assert_msg(e->idtype == t[i].type, "case %zu: type %d", i, e->idtype);
#define CHECK_STR(f)                                                                               \
	ck_assert_msg(t[i].f ? e->f && !strcmp(e->f, t[i].f) : !e->f, "case %zu: %s %s", i, #f,    \
		      e->f ? e->f : "(null)")
		CHECK_STR(idname);
		CHECK_STR(devname);
		CHECK_STR(pvid);
#undef CHECK_STR
		ck_assert_int_eq(e->part, t[i].part);
		pf_devicesfile_free(df);
	}
}
END_TEST

START_TEST(test_headers_and_skips)
{
	struct pf_devicesfile *df =
		parse("# comment IDTYPE=devname IDNAME=x\n"
		      " # not a comment, but no fields either\n"
		      "SYSTEMID=host1\n"
		      "VERSION=1.1.1\n"
		      "IDTYPE=devname\n"			/* no IDNAME: skipped */
		      "SYSTEMID=\n"				/* the last one counts */
		      "VERSION=1.1.9 junk\n"
		      " IDTYPE=devname IDNAME=/dev/sdx\n"	/* leading space is fine */
		      "\n");

	ck_assert_str_eq(df->systemid, "");
	ck_assert_str_eq(df->version, "1.1.9");
	ck_assert_uint_eq(df->n_entries, 1);
	ck_assert_uint_eq(df->n_ignored, 3);
	ck_assert_str_eq(df->entries[0].idname, "/dev/sdx");
	ck_assert(pf_devicesfile_uses_devname(df));
	pf_devicesfile_free(df);

	df = parse("");
	ck_assert_uint_eq(df->n_entries, 0);
	ck_assert_ptr_null(df->version);
	pf_devicesfile_free(df);
	ck_assert_ptr_null(pf_devicesfile_free(NULL));
}
END_TEST

/* fgets(PATH_MAX): a long line is read in pieces, and each piece is a line of its own. */
START_TEST(test_long_lines)
{
	static char text[PF_DEVICESFILE_CHUNK_MAX * 2 + 200];
	struct pf_devicesfile *df;
	size_t o;

	memset(text, 'x', PF_DEVICESFILE_CHUNK_MAX);
	o = PF_DEVICESFILE_CHUNK_MAX;
	o += (size_t)snprintf(text + o, sizeof(text) - o, "IDTYPE=devname IDNAME=/dev/tail\n");
	o += (size_t)snprintf(text + o, sizeof(text) - o, "IDTYPE=devname IDNAME=/dev/");
	memset(text + o, 'y', PF_DEVICESFILE_CHUNK_MAX);
	text[o + PF_DEVICESFILE_CHUNK_MAX] = '\0';
	df = parse(text);
	ck_assert_uint_eq(df->n_entries, 2);
	ck_assert_str_eq(df->entries[0].idname, "/dev/tail");
	ck_assert_uint_eq(df->entries[0].line, 2);
	/* The value is cut where the first piece ends. */
	ck_assert_uint_eq(strlen(df->entries[1].idname),
			  PF_DEVICESFILE_CHUNK_MAX - strlen("IDTYPE=devname IDNAME="));
	pf_devicesfile_free(df);

	/* An embedded NUL ends the line there, as for fgets() and strstr(). */
	{
		static const char nul[] = "IDTYPE=devname\0 IDNAME=/dev/a\n"
					  "IDTYPE=devname IDNAME=/b\n";
		struct pf_diag d;

		ck_assert_int_eq(pf_devicesfile_parse(nul, sizeof(nul) - 1, &df, &d), 0);
		ck_assert_uint_eq(df->n_entries, 1);
		ck_assert_str_eq(df->entries[0].idname, "/b");
		pf_devicesfile_free(df);
	}
}
END_TEST

START_TEST(test_caps)
{
	const size_t n = PF_DEVICESFILE_ENTRIES_MAX + 1;
	const size_t per = strlen("IDTYPE=devname IDNAME=/0000000\n");
	char *text = malloc(n * per + 1);
	struct pf_devicesfile *df = NULL;
	struct pf_diag d;
	size_t o = 0;

	ck_assert_ptr_nonnull(text);
	for (size_t i = 0; i < n; i++)
		o += (size_t)snprintf(text + o, per + 1, "IDTYPE=devname IDNAME=/%07zu\n", i);
	ck_assert_int_eq(pf_devicesfile_parse(text, o, &df, &d), -E2BIG);
	ck_assert_ptr_null(df);
	ck_assert(strstr(d.msg, "entries"));
	/* One fewer fits. */
	ck_assert_int_eq(pf_devicesfile_parse(text, o - per, &df, &d), 0);
	ck_assert_uint_eq(df->n_entries, PF_DEVICESFILE_ENTRIES_MAX);
	pf_devicesfile_free(df);
	/* The size is checked before anything is read. */
	ck_assert_int_eq(pf_devicesfile_parse(text, PF_DEVICESFILE_SIZE_MAX + 1, &df, &d), -E2BIG);
	free(text);
}
END_TEST

static char tmpdir[64];

static void tmpdir_setup(void)
{
	strcpy(tmpdir, "/tmp/pf-devfile-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void tmpdir_teardown(void)
{
	char cmd[128];

	(void)snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
	ck_assert_int_eq(system(cmd), 0);
}

START_TEST(test_load)
{
	char path[128];
	struct pf_devicesfile *df = NULL;
	struct pf_diag d;
	FILE *f;
	int fd;

	(void)snprintf(path, sizeof(path), "%s/system.devices", tmpdir);
	/* No file: lvm2 runs without a devices file. */
	ck_assert_int_eq(pf_devicesfile_load(path, &df, &d), -ENOENT);
	ck_assert_ptr_null(df);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq((int)fwrite(lvm2_file, 1, sizeof(lvm2_file) - 1, f),
			 (int)sizeof(lvm2_file) - 1);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_int_eq(pf_devicesfile_load(path, &df, &d), 0);
	ck_assert_uint_eq(df->n_entries, 2);
	pf_devicesfile_free(df);
	/* An empty file is a devices file listing nothing: every device is excluded. */
	ck_assert_int_eq(truncate(path, 0), 0);
	ck_assert_int_eq(pf_devicesfile_load(path, &df, &d), 0);
	ck_assert_uint_eq(df->n_entries, 0);
	pf_devicesfile_free(df);
	/* Too large (sparse, so cheap). */
	fd = open(path, O_WRONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(ftruncate(fd, (off_t)PF_DEVICESFILE_SIZE_MAX + 1), 0);
	ck_assert_int_eq(close(fd), 0);
	ck_assert_int_eq(pf_devicesfile_load(path, &df, &d), -E2BIG);
	ck_assert_int_eq(pf_devicesfile_load(tmpdir, &df, &d), -EISDIR);
}
END_TEST

/*
 * Decisions of lvm2 2.03.16's "pvscan --cache <dev>" with devices/use_devicesfile=1, on
 * three loop devices backed by d1.img, d2.img and d3.img, for each devices file below:
 * 'P' the device was used, '-' "excluded: device is not in devices file" (or, with devname
 * entries, "excluded by devices file (checking PVID)").
 */
#define I "/tmp/conf/lx/img/"
#define P1 "1kzxF6KreS1kf180V2jhBTbVE3tvViQL"
#define P2 "paqop523fP18IdkzpZSovhhpQ7xScdfM"
#define P3 "dvyi1HOY0kO8sXyVYECgqGEfMNBrKpj0"

static const struct {
	const char *name, *text, *want;
} lvm2_decisions[] = {
	{ "base",
	  "VERSION=1.1.2\nIDTYPE=loop_file IDNAME=" I "d1.img DEVNAME=/dev/loop212 PVID=" P1
	  "\nIDTYPE=loop_file IDNAME=" I "d2.img DEVNAME=/dev/loop213 PVID=" P2 "\n",
	  "PP-" },
	{ "wrong-devname", "IDTYPE=loop_file IDNAME=" I "d3.img DEVNAME=/dev/loop212 PVID=x\n",
	  "--P" },
	{ "tab-sep", "IDTYPE=loop_file\tIDNAME=" I "d1.img DEVNAME=/dev/loop212\n", "---" },
	{ "lead-space", "  IDTYPE=loop_file   IDNAME=  " I "d2.img\n", "-P-" },
	{ "dot-idname", "IDTYPE=loop_file IDNAME=." I "d1.img\n", "---" },
	{ "part1", "IDTYPE=loop_file IDNAME=" I "d1.img PART=1\nIDTYPE=loop_file IDNAME=" I
		   "d2.img PART=0\n",
	  "-P-" },
	{ "sys_wwid", "IDTYPE=sys_wwid IDNAME=" I "d1.img\nIDTYPE=devname_x IDNAME=/dev/loop213\n",
	  "---" },
	{ "devname-type",
	  "IDTYPE=devname IDNAME=/dev/loop214 DEVNAME=/dev/loop214 PVID=.\n"
	  "IDTYPE=loop_file IDNAME=/nope PVID=" P1 "\n",
	  "P--" },
	{ "devname-pvid-long",
	  "IDTYPE=devname IDNAME=x PVID=" P2 "EXTRA\nIDTYPE=devname IDNAME=y "
	  "PVID=dvyi1HOY0kO8sXyVYECgqGEfMNBrKp\n",
	  "-P-" },
	{ "comment-not-col1", " #IDTYPE=loop_file IDNAME=" I "d1.img\n#IDTYPE=loop_file IDNAME=" I
			      "d2.img\n",
	  "P--" },
	{ "noeq", "IDTYPE loop_file IDNAME=" I "d1.img\n", "---" },
	{ "case", "IDTYPE=LOOP_FILE IDNAME=" I "d1.img\nIDTYPE=loop_file IDNAME=" I "D2.img\n",
	  "---" },
	{ "crlf", "IDTYPE=loop_file IDNAME=" I "d1.img\r\nIDTYPE=loop_file IDNAME=" I
		  "d2.img DEVNAME=x\r\n",
	  "-P-" },
	{ "empty", "", "---" },
};

/* The decision pvscan makes for one device, as lvm2's _pvscan_cache_args() does. */
static bool pvscan_uses(const struct pf_devicesfile *df, const struct pf_dev *dev, const char *pvid)
{
	if (pf_devicesfile_uses_devname(df))
		return pf_devicesfile_find_pvid(df, pvid);
	return pf_devicesfile_match_dev(df, dev, NULL, 0);
}

START_TEST(test_lvm2_decisions)
{
	static char n0[] = "/dev/loop212", n1[] = "/dev/loop213", n2[] = "/dev/loop214";
	static char b0[] = I "d1.img", b1[] = I "d2.img", b2[] = I "d3.img", loop[] = "loop";
	const struct pf_dev devs[3] = {
		{ .major = 7, .minor = 212, .path = n0, .type_name = loop,
		  .loop_backing_file = b0 },
		{ .major = 7, .minor = 213, .path = n1, .type_name = loop,
		  .loop_backing_file = b1 },
		{ .major = 7, .minor = 214, .path = n2, .type_name = loop,
		  .loop_backing_file = b2 },
	};
	const char *pvids[3] = { P1, P2, P3 };
	struct pf_devicesfile *df = parse(lvm2_decisions[_i].text);

	for (size_t k = 0; k < 3; k++) {
		bool want = lvm2_decisions[_i].want[k] == 'P';

		ck_assert_msg(pvscan_uses(df, &devs[k], pvids[k]) == want, "%s: device %zu",
			      lvm2_decisions[_i].name, k);
	}
	pf_devicesfile_free(df);
}
END_TEST

/* Which sysfs value each IDTYPE compares, cleaned as lvm2 cleans it. */
START_TEST(test_dev_ids)
{
	static char sd[] = "sd", dm[] = "device-mapper", md[] = "md", loop[] = "loop";
	static char wwid[] = "t10.ATA  Disk\tX\x7f", qemu[] = "t10.ATA     QEMU HARDDISK  QM0001";
	static char serial[] = "S3Z9NB0K", dmu[] = "mpath-3600a0b80", mdu[] = "a1b2:c3d4";
	static char del[] = "/img/d1.img (deleted)", path[] = "/dev/sdb";
	struct pf_dev disk = { .path = path, .type_name = sd, .wwid = wwid, .serial = serial };
	struct pf_dev part = { .path = path, .type_name = sd, .is_partition = true };
	struct pf_dev q = { .type_name = sd, .wwid = qemu };
	struct pf_dev mapper = { .type_name = dm, .dm_uuid = dmu };
	struct pf_dev array = { .type_name = md, .md_uuid = mdu };
	struct pf_dev gone = { .type_name = loop, .loop_backing_file = del };
	char *v = NULL;

	ck_assert_int_eq(pf_devicesfile_dev_id(&disk, NULL, PF_DEVICESFILE_ID_SYS_WWID, &v), 0);
	ck_assert_str_eq(v, "t10.ATA__Disk_X_");
	free(v);
	/* A partition without its own value gets its disk's. */
	ck_assert_int_eq(pf_devicesfile_dev_id(&part, &disk, PF_DEVICESFILE_ID_SYS_SERIAL, &v), 0);
	ck_assert_str_eq(v, "S3Z9NB0K");
	free(v);
	ck_assert_int_eq(pf_devicesfile_dev_id(&part, NULL, PF_DEVICESFILE_ID_SYS_SERIAL, &v), -ENODATA);
	ck_assert_int_eq(pf_devicesfile_dev_id(&q, NULL, PF_DEVICESFILE_ID_SYS_WWID, &v), -ENODATA);
	ck_assert_int_eq(pf_devicesfile_dev_id(&mapper, NULL, PF_DEVICESFILE_ID_CRYPT_UUID, &v), 0);
	ck_assert_str_eq(v, "mpath-3600a0b80"); /* no prefix check when reading */
	free(v);
	ck_assert_int_eq(pf_devicesfile_dev_id(&array, NULL, PF_DEVICESFILE_ID_MD_UUID, &v), 0);
	ck_assert_str_eq(v, "a1b2:c3d4");
	free(v);
	ck_assert_int_eq(pf_devicesfile_dev_id(&gone, NULL, PF_DEVICESFILE_ID_LOOP_FILE, &v), -ENODATA);
	ck_assert_int_eq(pf_devicesfile_dev_id(&disk, NULL, PF_DEVICESFILE_ID_DEVNAME, &v), 0);
	ck_assert_str_eq(v, "/dev/sdb");
	free(v);
	ck_assert_int_eq(pf_devicesfile_dev_id(&disk, NULL, PF_DEVICESFILE_ID_NONE, &v), -ENODATA);
	ck_assert_str_eq(pf_devicesfile_idtype_name(PF_DEVICESFILE_ID_SYS_WWID), "sys_wwid");
	ck_assert_str_eq(pf_devicesfile_idtype_name(_PF_DEVFILE_ID_MAX), "unknown");
}
END_TEST

/* IDTYPEs tied to a kind of device, PART=, and the devname-first order. */
START_TEST(test_match_rules)
{
	static char sd[] = "sd", dm[] = "device-mapper", md[] = "md", wwid[] = "naa.5000c5",
		    dmu[] = "mpath-3600a0b80", mdu[] = "a1b2", p_sdb[] = "/dev/sdb",
		    p_sdb1[] = "/dev/sdb1", p_dm[] = "/dev/mapper/mpatha", p_md[] = "/dev/md0";
	struct pf_dev disk = { .path = p_sdb, .type_name = sd, .wwid = wwid };
	struct pf_dev part = { .path = p_sdb1, .type_name = sd, .is_partition = true };
	struct pf_dev mpath = { .path = p_dm, .type_name = dm, .dm_uuid = dmu, .wwid = wwid };
	struct pf_dev array = { .path = p_md, .type_name = md, .md_uuid = mdu };
	struct pf_devicesfile *df = parse("IDTYPE=sys_wwid IDNAME=naa.5000c5 DEVNAME=/dev/sdb PVID=A\n"
				      "IDTYPE=sys_wwid IDNAME=naa.5000c5 PART=1 PVID=B\n"
				      "IDTYPE=lvmlv_uuid IDNAME=mpath-3600a0b80 PVID=C\n"
				      "IDTYPE=md_uuid IDNAME=a1b2 PVID=D\n"
				      "IDTYPE=devname IDNAME=/dev/md0 DEVNAME=/dev/md0 PVID=E\n");
	const struct pf_devicesfile_entry *e;

	e = pf_devicesfile_match_dev(df, &disk, NULL, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->pvid, "A");
	/* The partition matches by its disk's wwid and its PART=. */
	e = pf_devicesfile_match_dev(df, &part, &disk, 1);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->pvid, "B");
	ck_assert_ptr_null(pf_devicesfile_match_dev(df, &part, &disk, 2));
	/* A dm device never matches sys_wwid; any dm uuid type compares dm/uuid. */
	e = pf_devicesfile_match_dev(df, &mpath, NULL, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->pvid, "C");
	/* The entry whose DEVNAME is the device's name is tried first. */
	e = pf_devicesfile_match_dev(df, &array, NULL, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->pvid, "E");
	array.path = NULL;
	e = pf_devicesfile_match_dev(df, &array, NULL, 0);
	ck_assert_ptr_nonnull(e);
	ck_assert_str_eq(e->pvid, "D");
	pf_devicesfile_free(df);
}
END_TEST

START_TEST(test_find_pvid)
{
	struct pf_devicesfile *df = parse("IDTYPE=devname IDNAME=/a PVID=" P1 "\n"
				      "IDTYPE=devname IDNAME=/b PVID=" P2 "tail\n"
				      "IDTYPE=devname IDNAME=/c "
				      "PVID=dvyi1HOY0kO8sXyVYECgqGEfMNBrKp\n");

	ck_assert_ptr_eq(pf_devicesfile_find_pvid(df, P1), &df->entries[0]);
	/* lvm2 compares 32 bytes: a longer PVID in the file still matches... */
	ck_assert_ptr_eq(pf_devicesfile_find_pvid(df, P2), &df->entries[1]);
	/* ...a shorter one never does. */
	ck_assert_ptr_null(pf_devicesfile_find_pvid(df, P3));
	ck_assert_ptr_null(pf_devicesfile_find_pvid(df, "short"));
	pf_devicesfile_free(df);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("devfile");
	TCase *tc = pf_unit_tcase("devfile");
	TCase *io = pf_unit_tcase("load");

	tcase_add_test(tc, test_lvm2_written);
	tcase_add_test(tc, test_field_quirks);
	tcase_add_test(tc, test_headers_and_skips);
	tcase_add_test(tc, test_long_lines);
	tcase_add_test(tc, test_caps);
	tcase_add_loop_test(tc, test_lvm2_decisions, 0, (int)ARRAY_SIZE(lvm2_decisions));
	tcase_add_test(tc, test_dev_ids);
	tcase_add_test(tc, test_match_rules);
	tcase_add_test(tc, test_find_pvid);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(io, tmpdir_setup, tmpdir_teardown);
	tcase_add_test(io, test_load);
	suite_add_tcase(s, io);
	return s;
}

PF_UNIT_MAIN()
