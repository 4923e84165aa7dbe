/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The /run/lvm state files: lvm2 2.03.16's bytes, modes and reader rules, claims and races. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "state/state.h"
#include "unit.h"

/* PVIDs from the reference transcripts (VG vg1 = loop5 + loop6, loop4 without metadata). */
#define PVID5 "tz2guY5lhh9McqZXkk3u5VdPZIdXdoff"
#define PVID6 "czwocr2Pfkkjo01fIT6HMJPKcsllaGDd"
#define PVID7 "FBfbe8vAxU7finrhB1ij196erJ1RilF2"
#define PVID4 "sJBIRvtuEFCk1NKvbdPtdUy4ndQtE4a1"

/* Short enough that every path built below fits in PATH_MAX. */
static char tmp_root[256];
static char run_dir[PATH_MAX];

static void setup(void)
{
	snprintf(tmp_root, sizeof(tmp_root), "%s/pf-state-XXXXXX", getenv("TMPDIR") ?: "/tmp");
	ck_assert_ptr_nonnull(mkdtemp(tmp_root));
	snprintf(run_dir, sizeof(run_dir), "%s/run", tmp_root);
	umask(022);
	ck_assert_int_eq(pf_state_init(run_dir), 0);
}

static void teardown(void)
{
	pf_unit_rm_rf(tmp_root);
}

/* A path under the run dir; a few rotating buffers so two can be used at once. */
static const char *rp(const char *fmt, ...)
{
	static char bufs[4][PATH_MAX];
	static unsigned int next;
	char *b = bufs[next++ % 4];
	size_t n;
	va_list ap;

	n = (size_t)snprintf(b, PATH_MAX, "%s/", run_dir);
	va_start(ap, fmt);
	vsnprintf(b + n, PATH_MAX - n, fmt, ap);
	va_end(ap);
	return b;
}

static void put(const char *path, const void *data, size_t len)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
	close(fd);
}

/* Whole file into buf (NUL-terminated); returns its length, -1 if it does not exist. */
static ssize_t slurp(const char *path, char *buf, size_t size)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, size - 1);
	close(fd);
	ck_assert_int_ge(n, 0);
	buf[n] = '\0';
	return n;
}

static void assert_file(const char *path, const char *want, size_t want_len, mode_t mode)
{
	char buf[4096];
	struct stat st;

	ck_assert_int_eq(slurp(path, buf, sizeof(buf)), (ssize_t)want_len);
	ck_assert_mem_eq(buf, want, want_len);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 07777, mode);
}

/* Make a file look as if it was written long ago (a crashed writer's temporary file). */
static void age(const char *path)
{
	struct timespec old[2] = {{.tv_sec = 1000000000}, {.tv_sec = 1000000000}};

	ck_assert_int_eq(utimensat(AT_FDCWD, path, old, AT_SYMLINK_NOFOLLOW), 0);
}

static mode_t mode_of(const char *path)
{
	struct stat st;

	ck_assert_int_eq(lstat(path, &st), 0);
	return st.st_mode & 07777;
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* Entries of a directory other than . and .. */
static unsigned int n_entries(const char *path)
{
	unsigned int n = 0;
	struct dirent *de;
	DIR *d = opendir(path);

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d)))
		if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
			n++;
	closedir(d);
	return n;
}

START_TEST(test_init_modes)
{
	char dir[PATH_MAX];

	/* An unusual umask must not change lvm2's modes. */
	snprintf(dir, sizeof(dir), "%s/other", tmp_root);
	umask(0277);
	ck_assert_int_eq(pf_state_init(dir), 0);
	umask(022);
	ck_assert_uint_eq(mode_of(dir), 0700);
	ck_assert_uint_eq(mode_of(rp("pvs_online")), 0700);
	snprintf(dir, sizeof(dir), "%s/other/pvs_online", tmp_root);
	ck_assert_uint_eq(mode_of(dir), 0700);
	snprintf(dir, sizeof(dir), "%s/other/vgs_online", tmp_root);
	ck_assert_uint_eq(mode_of(dir), 0700);
	snprintf(dir, sizeof(dir), "%s/other/pvs_lookup", tmp_root);
	ck_assert_uint_eq(mode_of(dir), 0700);
	ck_assert_uint_eq(mode_of(run_dir), 0700);

	/* Existing directories keep their mode, like lvm2's stat-then-mkdir. */
	ck_assert_int_eq(chmod(rp("vgs_online"), 0755), 0);
	ck_assert_int_eq(pf_state_init(run_dir), 0);
	ck_assert_uint_eq(mode_of(rp("vgs_online")), 0755);

	/* Not recursive, and a non-directory in the way is an error. */
	snprintf(dir, sizeof(dir), "%s/no/such", tmp_root);
	ck_assert_int_eq(pf_state_init(dir), -ENOENT);
	ck_assert_int_eq(rmdir(rp("pvs_lookup")), 0);
	put(rp("pvs_lookup"), "", 0);
	ck_assert_int_eq(pf_state_init(run_dir), -ENOTDIR);
}
END_TEST

START_TEST(test_pv_online_bytes)
{
	/* The reference hexdumps (lvm2-format.md 6.2): 26 and 19 bytes, no NUL. */
	static const char with_vg[] = "7:5\nvg:vg1\ndev:/dev/loop5\n";
	static const char no_vg[] = "7:4\ndev:/dev/loop4\n";
	struct pf_state_pv ex = {0}, pv;

	umask(0277);
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID5, 7, 5, "vg1", "/dev/loop5", &ex, NULL), 0);
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID4, 7, 4, NULL, "/dev/loop4", &ex, NULL), 0);
	umask(022);
	assert_file(rp("pvs_online/" PVID5), with_vg, 26, 0600);
	assert_file(rp("pvs_online/" PVID4), no_vg, 19, 0600);
	ck_assert_uint_eq(n_entries(rp("pvs_online")), 2);

	ck_assert_int_eq(pf_state_pv_online_read(run_dir, PVID5, &pv), 0);
	ck_assert_uint_eq(pv.major, 7);
	ck_assert_uint_eq(pv.minor, 5);
	ck_assert_str_eq(pv.vgname, "vg1");
	ck_assert_str_eq(pv.devname, "/dev/loop5");
	ck_assert_int_eq(pf_state_pv_online_read(run_dir, PVID4, &pv), 0);
	ck_assert_str_eq(pv.vgname, "");
	ck_assert_str_eq(pv.devname, "/dev/loop4");

	/* Large devnos in decimal. */
	ck_assert_int_eq(pf_state_pv_online_write(run_dir, PVID6, 259, 1048575, "v",
						  "/dev/nvme0n1p9", &ex, NULL),
			 0);
	assert_file(rp("pvs_online/" PVID6), "259:1048575\nvg:v\ndev:/dev/nvme0n1p9\n", 36, 0600);
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID7, 1U << 31, 1, NULL, "/dev/x1", &ex, NULL),
	    -EINVAL);
}
END_TEST

/* lvm2 writes dev: only for 5 < strlen < 127. */
static const struct {
	size_t len;
	bool kept;
} devname_cases[] = {
    {0, false},	  {5, false},	{6, true},    {64, true},    {126, true},
    {127, false}, {128, false}, {200, false}, {4000, false},
};

START_TEST(test_pv_online_devname_len)
{
	const size_t len = devname_cases[_i].len;
	char name[4096 + 1], want[4300], buf[4300];
	struct pf_state_pv ex, pv;
	int n;

	memset(name, 'a', len);
	memcpy(name, "/dev/", len < 5 ? len : 5);
	name[len] = '\0';
	ck_assert_int_eq(pf_state_pv_online_write(run_dir, PVID5, 8, 16, "vg1", name, &ex, NULL),
			 0);
	if (devname_cases[_i].kept)
		n = snprintf(want, sizeof(want), "8:16\nvg:vg1\ndev:%s\n", name);
	else
		n = snprintf(want, sizeof(want), "8:16\nvg:vg1\n");
	ck_assert_int_eq(slurp(rp("pvs_online/" PVID5), buf, sizeof(buf)), n);
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(pf_state_pv_online_read(run_dir, PVID5, &pv), 0);
	ck_assert_str_eq(pv.devname, devname_cases[_i].kept ? name : "");
}
END_TEST

START_TEST(test_pv_online_names)
{
	char vg[200];
	struct pf_state_pv ex = {0}, pv;

	/* lvm2 writes a 127-character VG name but its reader gives up at 126. */
	memset(vg, 'v', 127);
	vg[127] = '\0';
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID5, 7, 5, vg, "/dev/loop5", &ex, NULL), 0);
	ck_assert_int_eq(pf_state_pv_online_read(run_dir, PVID5, &pv), 0);
	ck_assert_str_eq(pv.vgname, "");
	ck_assert_str_eq(pv.devname, "/dev/loop5");
	vg[126] = '\0';
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID6, 7, 6, vg, "/dev/loop6", &ex, NULL), 0);
	ck_assert_int_eq(pf_state_pv_online_read(run_dir, PVID6, &pv), 0);
	ck_assert_str_eq(pv.vgname, vg);

	/* A newline in the device name must not forge a vg: line. */
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID7, 7, 7, NULL, "/dev/x\nvg:evil", &ex, NULL), 0);
	assert_file(rp("pvs_online/" PVID7), "7:7\n", 4, 0600);
}
END_TEST

/* Names that must never become a path: everything refused, nothing created anywhere. */
static const char *const bad_vgnames[] = {
    "",	    ".",     "..",   "../x", "a/b",   "/abs", "-vg",
    "vg 1", "vg\n1", "vg:1", "~x",   "..\\x", NULL, /* 200 characters, filled in by the test */
};

static const char *const bad_pvids[] = {
    "",
    "short",
    "../../../../../../../../../../../",
    "tz2guY5lhh9McqZXkk3u5VdPZIdXdof/",
    "tz2guY5lhh9McqZXkk3u5VdPZIdXdoff0",
    ".z2guY5lhh9McqZXkk3u5VdPZIdXdoff",
    "tz2guY5lhh9McqZXkk3u5VdPZIdXdof\n",
    "tz2guY5-hh9McqZXkk3u5VdPZIdXdoff",
};

START_TEST(test_hostile_names)
{
	const char *ids[] = {PVID5, PVID6};
	struct pf_state_pv ex = {0}, pv;
	struct pf_state_lookup l = {0};
	char long_vg[201];

	memset(long_vg, 'v', 200);
	long_vg[200] = '\0';
	for (size_t i = 0; i < ARRAY_SIZE(bad_vgnames); i++) {
		const char *vg = bad_vgnames[i] ? bad_vgnames[i] : long_vg;

		ck_assert_int_eq(pf_state_vg_online_claim(run_dir, vg), -EINVAL);
		ck_assert_int_eq(pf_state_lookup_write(run_dir, vg, ids, 2, NULL), -EINVAL);
		ck_assert_int_eq(
		    pf_state_pv_online_write(run_dir, PVID5, 7, 5, vg, "/dev/loop5", &ex, NULL),
		    -EINVAL);
	}
	for (size_t i = 0; i < ARRAY_SIZE(bad_pvids); i++) {
		const char *bad[] = {PVID5, bad_pvids[i]};

		ck_assert_int_eq(pf_state_pv_online_write(run_dir, bad_pvids[i], 7, 5, "vg1",
							  "/dev/loop5", &ex, NULL),
				 -EINVAL);
		ck_assert_int_eq(pf_state_pv_online_read(run_dir, bad_pvids[i], &pv), -EINVAL);
		ck_assert(!pf_state_pv_online_exists(run_dir, bad_pvids[i]));
		ck_assert_int_eq(pf_state_lookup_write(run_dir, "vg1", bad, 2, NULL), -EINVAL);
		ck_assert_int_eq(pf_state_lookup_find(run_dir, bad_pvids[i], &l), -EINVAL);
	}
	ck_assert_uint_eq(n_entries(rp("pvs_online")), 0);
	ck_assert_uint_eq(n_entries(rp("vgs_online")), 0);
	ck_assert_uint_eq(n_entries(rp("pvs_lookup")), 0);
	ck_assert_uint_eq(n_entries(run_dir), 3);
	ck_assert_uint_eq(n_entries(tmp_root), 1);
}
END_TEST

START_TEST(test_pv_online_same_devno)
{
	static const char want[] = "7:5\nvg:vg1\ndev:/dev/loop5\n";
	struct pf_state_pv ex = {.major = 99};
	struct stat st1, st2;

	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID5, 7, 5, "vg1", "/dev/loop5", &ex, NULL), 0);
	age(rp("pvs_online/" PVID5));
	ck_assert_int_eq(stat(rp("pvs_online/" PVID5), &st1), 0);

	/* Same devno: success and untouched, even with another VG name (lvm2 keeps the old one). */
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID5, 7, 5, "renamed", "/dev/other", &ex, NULL), 0);
	ck_assert_int_eq(stat(rp("pvs_online/" PVID5), &st2), 0);
	ck_assert_uint_eq(st1.st_ino, st2.st_ino);
	ck_assert_int_eq(st2.st_mtim.tv_sec, 1000000000);
	ck_assert_int_eq(st2.st_ctim.tv_sec, st1.st_ctim.tv_sec);
	ck_assert_int_eq(st2.st_ctim.tv_nsec, st1.st_ctim.tv_nsec);
	assert_file(rp("pvs_online/" PVID5), want, 26, 0600);
	ck_assert_uint_eq(ex.major, 99);
	ck_assert_uint_eq(n_entries(rp("pvs_online")), 1);
}
END_TEST

START_TEST(test_pv_online_duplicate)
{
	static const char want[] = "7:8\nvg:vg1\ndev:/dev/loop8\n";
	struct pf_state_pv ex = {0};

	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID5, 7, 8, "vg1", "/dev/loop8", &ex, NULL), 0);
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID5, 7, 9, "vg2", "/dev/loop9", &ex, NULL),
	    -EEXIST);
	ck_assert_uint_eq(ex.major, 7);
	ck_assert_uint_eq(ex.minor, 8);
	ck_assert_str_eq(ex.vgname, "vg1");
	ck_assert_str_eq(ex.devname, "/dev/loop8");
	assert_file(rp("pvs_online/" PVID5), want, 26, 0600);
	/* Same minor, other major is a duplicate too. */
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID5, 8, 8, "vg1", "/dev/sda", &ex, NULL), -EEXIST);
	/* No temporary file is left behind. */
	ck_assert_uint_eq(n_entries(rp("pvs_online")), 1);

	/* An unparsable existing file compares as 0:0, as in lvm2. */
	put(rp("pvs_online/" PVID6), "garbage", 7);
	memset(&ex, 0x55, sizeof(ex));
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID6, 7, 6, "vg1", "/dev/loop6", &ex, NULL),
	    -EEXIST);
	ck_assert_uint_eq(ex.major, 0);
	ck_assert_uint_eq(ex.minor, 0);
	ck_assert_str_eq(ex.vgname, "");
	ck_assert_str_eq(ex.devname, "");
	assert_file(rp("pvs_online/" PVID6), "garbage", 7, 0600);
}
END_TEST

START_TEST(test_pv_online_stale_temp)
{
	char tmp[64], buf[64];
	struct pf_state_pv ex;

	/* A crashed writer's temp with our own tid only costs a retry, and is left alone. */
	snprintf(tmp, sizeof(tmp), "pvs_online/.pf~%d~0", (int)gettid());
	put(rp("%s", tmp), "1:1\n", 4);
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID5, 7, 5, "vg1", "/dev/loop5", &ex, NULL), 0);
	ck_assert_int_eq(slurp(rp("%s", tmp), buf, sizeof(buf)), 4);
	ck_assert_uint_eq(n_entries(rp("pvs_online")), 2);
	/* Readers skip it: 1:1 is not removed by devno; clear removes it once it is old. */
	ck_assert_int_eq(pf_state_remove_devno(run_dir, 1, 1), 0);
	ck_assert(exists(rp("%s", tmp)));
	ck_assert_int_eq(pf_state_clear(run_dir), 0);
	ck_assert(exists(rp("%s", tmp)));
	age(rp("%s", tmp));
	ck_assert_int_eq(pf_state_clear(run_dir), 0);
	ck_assert_uint_eq(n_entries(rp("pvs_online")), 0);
}
END_TEST

/* lvm2's reader on files it did not write. */
static const struct {
	const char *data;
	size_t len;
	int r;
	unsigned int major, minor;
	const char *vg, *dev;
} reads[] = {
#define S(s) s, sizeof(s) - 1
    {S("7:5\nvg:vg1\ndev:/dev/loop5\n"), 0, 7, 5, "vg1", "/dev/loop5"},
    {S("7:5"), 0, 7, 5, "", ""},
    {S("7:5\nvg:vg1"), 0, 7, 5, "vg1", ""},
    {S("7:5\ndev:/dev/loop5"), 0, 7, 5, "", "/dev/loop5"},
    {S("7:5\ndev:/dev/loop5\nvg:vg1\n"), 0, 7, 5, "vg1", "/dev/loop5"},
    {S(" 7: 5\n"), 0, 7, 5, "", ""},
    {S("+7:+5junk\n"), 0, 7, 5, "", ""},
    {S("-0:5\n"), 0, 0, 5, "", ""},
    {S("2147483647:0\n"), 0, 2147483647, 0, "", ""},
    {S(""), -ENODATA, 0, 0, NULL, NULL},
    {S("\n"), -EBADMSG, 0, 0, NULL, NULL},
    {S("7 :5\n"), -EBADMSG, 0, 0, NULL, NULL},
    {S("7:\n"), -EBADMSG, 0, 0, NULL, NULL},
    {S("7\n"), -EBADMSG, 0, 0, NULL, NULL},
    {S(":5\n"), -EBADMSG, 0, 0, NULL, NULL},
    {S("-1:5\n"), -EBADMSG, 0, 0, NULL, NULL},
    {S("7:-5\n"), -EBADMSG, 0, 0, NULL, NULL},
    {S("2147483648:0\n"), -EBADMSG, 0, 0, NULL, NULL},
    {S("99999999999999999999:1\n"), -EBADMSG, 0, 0, NULL, NULL},
    {S("vg:vg1\n7:5\n"), -EBADMSG, 0, 0, NULL, NULL},
    {S("\x00\x01\x02\xff\xfe"), -EBADMSG, 0, 0, NULL, NULL},
    {S("\x37\x3a\x35\n\xff\xfevg:\xff\n"), 0, 7, 5, "", ""},
    {S("7:5\nvg:\ndev:/dev/a1\n"), 0, 7, 5, "", "/dev/a1"},
    {S("7:5\nvg:bad/name\n"), 0, 7, 5, "", ""},
    {S("7:5\nvg:../../etc\n"), 0, 7, 5, "", ""},
    {S("7:5\nvg:-vg\n"), 0, 7, 5, "", ""},
    {S("7:5\nvg:..\n"), 0, 7, 5, "", ""},
    {S("7:5\nvg:a b\n"), 0, 7, 5, "", ""},
    {S("7:5\ndev:/tmp/x\n"), 0, 7, 5, "", ""},
    {S("7:5\ndev:dev/x\n"), 0, 7, 5, "", ""},
    {S("7:5\ndev:\n"), 0, 7, 5, "", ""},
    {S("7:5\ndev:/dev/\n"), 0, 7, 5, "", "/dev/"},
    /* compat: the text ends at a NUL, and vg: is found anywhere, even inside dev:. */
    {S("7:5\n\0vg:vg1\n"), 0, 7, 5, "", ""},
    {S("7:5\ndev:/dev/xvg:foo\n"), 0, 7, 5, "foo", "/dev/xvg:foo"},
    {S("7:5\nxvg:abc\n"), 0, 7, 5, "abc", ""},
    {S("7:5\nvg:vg1\r\n"), 0, 7, 5, "", ""},
#undef S
};

START_TEST(test_pv_online_read_garbage)
{
	struct pf_state_pv pv = {.major = 4242};

	put(rp("pvs_online/" PVID5), reads[_i].data, reads[_i].len);
	ck_assert_int_eq(pf_state_pv_online_read(run_dir, PVID5, &pv), reads[_i].r);
	if (reads[_i].r < 0) {
		ck_assert_uint_eq(pv.major, 4242);
		return;
	}
	ck_assert_uint_eq(pv.major, reads[_i].major);
	ck_assert_uint_eq(pv.minor, reads[_i].minor);
	ck_assert_str_eq(pv.vgname, reads[_i].vg);
	ck_assert_str_eq(pv.devname, reads[_i].dev);
}
END_TEST

START_TEST(test_pv_online_read_big)
{
	static char big[10240];
	struct pf_state_pv pv;
	size_t n;

	/* Only the first 511 bytes count: a field after them is not seen. */
	memset(big, 'x', sizeof(big));
	memcpy(big, "7:5\n", 4);
	memcpy(big + 600, "\nvg:late\n", 9);
	put(rp("pvs_online/" PVID5), big, sizeof(big));
	ck_assert_int_eq(pf_state_pv_online_read(run_dir, PVID5, &pv), 0);
	ck_assert_str_eq(pv.vgname, "");

	/* A field ending exactly at byte 511 is whole; one byte further it is cut. */
	for (unsigned int shift = 0; shift < 2; shift++) {
		memset(big, 'x', sizeof(big));
		n = 511 - strlen("vg:abc") + shift;
		memcpy(big, "7:5\n", 4);
		big[n - 1] = '\n';
		memcpy(big + n, "vg:abc", 6);
		put(rp("pvs_online/" PVID5), big, sizeof(big));
		ck_assert_int_eq(pf_state_pv_online_read(run_dir, PVID5, &pv), 0);
		ck_assert_str_eq(pv.vgname, shift ? "ab" : "abc");
	}

	/* A 200-character field is refused (lvm2's 126-character field limit). */
	memset(big, 'v', sizeof(big));
	memcpy(big, "7:5\nvg:", 7);
	big[207] = '\n';
	put(rp("pvs_online/" PVID5), big, 208);
	ck_assert_int_eq(pf_state_pv_online_read(run_dir, PVID5, &pv), 0);
	ck_assert_str_eq(pv.vgname, "");
}
END_TEST

START_TEST(test_pv_online_read_odd_files)
{
	struct pf_state_pv pv = {0};

	ck_assert_int_eq(pf_state_pv_online_read(run_dir, PVID5, &pv), -ENOENT);
	ck_assert_int_eq(mkdir(rp("pvs_online/" PVID5), 0700), 0);
	ck_assert_int_eq(pf_state_pv_online_read(run_dir, PVID5, &pv), -EBADMSG);
	ck_assert_int_eq(mkfifo(rp("pvs_online/" PVID6), 0600), 0);
	ck_assert_int_eq(pf_state_pv_online_read(run_dir, PVID6, &pv), -EBADMSG);
	put(rp("target"), "7:7\n", 4);
	ck_assert_int_eq(symlink(rp("target"), rp("pvs_online/" PVID7)), 0);
	ck_assert_int_eq(pf_state_pv_online_read(run_dir, PVID7, &pv), -ELOOP);
}
END_TEST

START_TEST(test_exists_count)
{
	const char *ids[] = {PVID5, PVID6, PVID7, "not-a-pvid"};
	struct pf_state_pv ex;
	size_t online = 99;

	ck_assert(!pf_state_pv_online_exists(run_dir, PVID5));
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID5, 7, 5, "vg1", "/dev/loop5", &ex, NULL), 0);
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID7, 7, 7, "vg1", "/dev/loop7", &ex, NULL), 0);
	ck_assert(pf_state_pv_online_exists(run_dir, PVID5));
	ck_assert(!pf_state_pv_online_exists(run_dir, PVID6));
	ck_assert_int_eq(pf_state_count_online(run_dir, ids, 4, &online), 0);
	ck_assert_uint_eq(online, 2);
	ck_assert_int_eq(pf_state_count_online(run_dir, ids, 0, &online), 0);
	ck_assert_uint_eq(online, 0);
	ids[1] = NULL;
	online = 99;
	ck_assert_int_eq(pf_state_count_online(run_dir, ids, 4, &online), -EINVAL);
	ck_assert_uint_eq(online, 99);
}
END_TEST

START_TEST(test_vg_online_claim)
{
	umask(0277);
	ck_assert_int_eq(pf_state_vg_online_claim(run_dir, "vg1"), 0);
	umask(022);
	assert_file(rp("vgs_online/vg1"), "", 0, 0600);
	ck_assert_int_eq(pf_state_vg_online_claim(run_dir, "vg1"), -EEXIST);
	ck_assert_int_eq(pf_state_vg_online_claim(run_dir, "my-vg"), 0);
	ck_assert_uint_eq(n_entries(rp("vgs_online")), 2);
	ck_assert_int_eq(rmdir(rp("vgs_online")), -1);
}
END_TEST

START_TEST(test_lookup_write)
{
	/* The reference example (lvm2-format.md 6.4): 3 PVs, 99 bytes. */
	static const char want[] =
	    "tz2guY5lhh9McqZXkk3u5VdPZIdXdoff\nczwocr2Pfkkjo01fIT6HMJPKcsllaGDd\n"
	    "FBfbe8vAxU7finrhB1ij196erJ1RilF2\n";
	const char *ids[] = {PVID5, PVID6, PVID7};
	const char *other[] = {PVID4};

	umask(0277);
	ck_assert_int_eq(pf_state_lookup_write(run_dir, "vg1", ids, 3, NULL), 0);
	umask(022);
	assert_file(rp("pvs_lookup/vg1"), want, 99, 0600);
	/* Never rewritten. */
	ck_assert_int_eq(pf_state_lookup_write(run_dir, "vg1", other, 1, NULL), -EEXIST);
	assert_file(rp("pvs_lookup/vg1"), want, 99, 0600);
	ck_assert_int_eq(pf_state_lookup_write(run_dir, "vg2", ids, 0, NULL), -EINVAL);
	ck_assert_int_eq(
	    pf_state_lookup_write(run_dir, "vg2", ids, PF_STATE_LOOKUP_PVS_MAX + 1, NULL), -E2BIG);
	ck_assert_uint_eq(n_entries(rp("pvs_lookup")), 1);
}
END_TEST

START_TEST(test_lookup_find)
{
	const char *vg1[] = {PVID5, PVID6};
	const char *vg2[] = {PVID7, PVID4};
	struct pf_state_lookup l = {0};

	ck_assert_int_eq(pf_state_lookup_find(run_dir, PVID4, &l), -ENOENT);
	ck_assert_int_eq(pf_state_lookup_write(run_dir, "vg1", vg1, 2, NULL), 0);
	ck_assert_int_eq(pf_state_lookup_write(run_dir, "vg2", vg2, 2, NULL), 0);
	ck_assert_int_eq(pf_state_lookup_find(run_dir, PVID4, &l), 0);
	ck_assert_str_eq(l.vgname, "vg2");
	ck_assert_uint_eq(l.n_pvids, 2);
	ck_assert_str_eq(l.pvids[0], PVID7);
	ck_assert_str_eq(l.pvids[1], PVID4);
	pf_state_lookup_release(&l);
	ck_assert_ptr_null(l.pvids);
	ck_assert_int_eq(pf_state_lookup_find(run_dir, PVID5, &l), 0);
	ck_assert_str_eq(l.vgname, "vg1");
	pf_state_lookup_release(&l);
	ck_assert_int_eq(pf_state_lookup_find(run_dir, "zzzzzzzzzzzzzzzzzzzzzzzzzzzzzzzz", &l),
			 -ENOENT);
	pf_state_lookup_release(NULL);
}
END_TEST

START_TEST(test_lookup_find_garbage)
{
	static char text[600];
	struct pf_state_lookup l = {0};
	size_t n = 0;

	/*
	 * compat: lvm2 reads with fgets(line, 64): a long line is read in 63-byte pieces, each
	 * a candidate; pieces shorter than 32 bytes or with a NUL in the first 32 never count,
	 * longer ones count by their first 32 bytes.
	 */
	n += (size_t)sprintf(text + n, "short\n");
	n += (size_t)sprintf(text + n, "%.63s" PVID5 "tail\n",
			     "0123456789012345678901234567890123456789012345678901234567890123");
	n += (size_t)sprintf(text + n, PVID6 "extra\n");
	memcpy(text + n, "abc\0" PVID7 "\n", 37);
	n += 37;
	n += (size_t)sprintf(text + n, "%s", "\n\n" PVID4);
	put(rp("pvs_lookup/odd"), text, n);

	ck_assert_int_eq(pf_state_lookup_find(run_dir, PVID5, &l), 0);
	ck_assert_str_eq(l.vgname, "odd");
	ck_assert_uint_eq(l.n_pvids, 4);
	ck_assert_str_eq(l.pvids[0], "01234567890123456789012345678901");
	ck_assert_str_eq(l.pvids[1], PVID5);
	ck_assert_str_eq(l.pvids[2], PVID6);
	ck_assert_str_eq(l.pvids[3], PVID4);
	pf_state_lookup_release(&l);
	/* A NUL inside the first 32 bytes of the piece hides PVID7. */
	ck_assert_int_eq(pf_state_lookup_find(run_dir, PVID7, &l), -ENOENT);
	ck_assert_int_eq(pf_state_lookup_find(run_dir, PVID4, &l), 0);
	pf_state_lookup_release(&l);
}
END_TEST

START_TEST(test_lookup_find_skips)
{
	static char big[PF_STATE_LOOKUP_FILE_MAX + 33];
	struct pf_state_lookup l = {0};

	/* Dot names (lvm2), names that are not VG names, non-files and oversize files. */
	put(rp("pvs_lookup/.hidden"), PVID5 "\n", 33);
	put(rp("pvs_lookup/.pf~1~0"), PVID5 "\n", 33);
	put(rp("pvs_lookup/bad name"), PVID5 "\n", 33);
	ck_assert_int_eq(mkdir(rp("pvs_lookup/dir"), 0700), 0);
	ck_assert_int_eq(mkfifo(rp("pvs_lookup/fifo"), 0600), 0);
	memset(big, '\n', sizeof(big));
	memcpy(big, PVID5, 32);
	put(rp("pvs_lookup/big"), big, sizeof(big));
	ck_assert_int_eq(symlink(rp("pvs_lookup/.hidden"), rp("pvs_lookup/link")), 0);
	ck_assert_int_eq(pf_state_lookup_find(run_dir, PVID5, &l), -ENOENT);
	put(rp("pvs_lookup/good"), PVID5 "\n", 33);
	ck_assert_int_eq(pf_state_lookup_find(run_dir, PVID5, &l), 0);
	ck_assert_str_eq(l.vgname, "good");
	pf_state_lookup_release(&l);
	ck_assert_int_eq(rmdir(rp("pvs_lookup/dir")), 0);
	ck_assert_int_eq(rmdir(rp("pvs_lookup")) == 0 ? 0 : errno, ENOTEMPTY);
}
END_TEST

START_TEST(test_remove_devno)
{
	const char *ids[] = {PVID5, PVID6};
	struct pf_state_pv ex;

	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID5, 7, 5, "vg1", "/dev/loop5", &ex, NULL), 0);
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID6, 7, 6, "vg1", "/dev/loop6", &ex, NULL), 0);
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID4, 7, 4, NULL, "/dev/loop4", &ex, NULL), 0);
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID7, 7, 7, "vg2", "/dev/loop7", &ex, NULL), 0);
	ck_assert_int_eq(pf_state_lookup_write(run_dir, "vg1", ids, 2, NULL), 0);
	ck_assert_int_eq(pf_state_vg_online_claim(run_dir, "vg1"), 0);
	ck_assert_int_eq(pf_state_vg_online_claim(run_dir, "vg2"), 0);
	/* lvm2 reads every non-dot name, whatever its length. */
	put(rp("pvs_online/short"), "7:6\n", 4);
	put(rp("pvs_online/.dot"), "7:6\n", 4);

	ck_assert_int_eq(pf_state_remove_devno(run_dir, 7, 6), 0);
	ck_assert(!exists(rp("pvs_online/" PVID6)));
	ck_assert(!exists(rp("pvs_online/short")));
	ck_assert(exists(rp("pvs_online/.dot")));
	ck_assert(!exists(rp("vgs_online/vg1")));
	ck_assert(!exists(rp("pvs_lookup/vg1")));
	ck_assert(exists(rp("pvs_online/" PVID5)));
	ck_assert(exists(rp("pvs_online/" PVID4)));
	ck_assert(exists(rp("vgs_online/vg2")));

	/* No VG line: only the PV file goes. Unknown devno: nothing happens. */
	ck_assert_int_eq(pf_state_remove_devno(run_dir, 7, 4), 0);
	ck_assert(!exists(rp("pvs_online/" PVID4)));
	ck_assert_int_eq(pf_state_remove_devno(run_dir, 8, 0), 0);
	ck_assert_uint_eq(n_entries(rp("pvs_online")), 3);
	ck_assert_int_eq(pf_state_remove_devno(run_dir, 0, 0), 0);
	ck_assert_uint_eq(n_entries(rp("pvs_online")), 3);

	/* A hostile vg: field never reaches unlink(). */
	put(rp("victim"), "x", 1);
	put(rp("pvs_online/" PVID6), "9:9\nvg:../victim\n", 17);
	ck_assert_int_eq(pf_state_remove_devno(run_dir, 9, 9), 0);
	ck_assert(!exists(rp("pvs_online/" PVID6)));
	ck_assert(exists(rp("victim")));

	/* No pvs_online directory: nothing to do. */
	ck_assert_int_eq(pf_state_clear(run_dir), 0);
	ck_assert_int_eq(unlink(rp("pvs_online/.dot")), 0);
	ck_assert_int_eq(rmdir(rp("pvs_online")), 0);
	ck_assert_int_eq(pf_state_remove_devno(run_dir, 7, 5), 0);
}
END_TEST

START_TEST(test_clear)
{
	const char *ids[] = {PVID5, PVID6};
	struct pf_state_pv ex;

	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID5, 7, 5, "vg1", "/dev/loop5", &ex, NULL), 0);
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID4, 7, 4, NULL, "/dev/loop4", &ex, NULL), 0);
	ck_assert_int_eq(pf_state_lookup_write(run_dir, "vg1", ids, 2, NULL), 0);
	ck_assert_int_eq(pf_state_vg_online_claim(run_dir, "vg1"), 0);
	put(rp("pvs_online/.pf~77~3"), "7:", 2);
	age(rp("pvs_online/.pf~77~3"));
	put(rp("vgs_online/.pf~1~0"), "", 0);
	age(rp("vgs_online/.pf~1~0"));
	put(rp("pvs_lookup/.pf~2~0"), "", 0); /* young: a writer may be about to link it */
	put(rp("pvs_lookup/.vgdot"), "", 0);  /* lvm2 leaves dot names */
	put(rp("newhints"), "", 0);
	ck_assert_int_eq(pf_state_clear(run_dir), 0);
	ck_assert_uint_eq(n_entries(rp("pvs_online")), 0);
	ck_assert_uint_eq(n_entries(rp("vgs_online")), 0);
	ck_assert_uint_eq(n_entries(rp("pvs_lookup")), 2);
	ck_assert(exists(rp("pvs_lookup/.vgdot")));
	ck_assert(exists(rp("pvs_lookup/.pf~2~0")));
	ck_assert(exists(rp("newhints")));
	ck_assert_uint_eq(mode_of(rp("pvs_online")), 0700);
	/* Again on empty directories, and with one missing. */
	ck_assert_int_eq(pf_state_clear(run_dir), 0);
	ck_assert_int_eq(rmdir(rp("vgs_online")), 0);
	ck_assert_int_eq(pf_state_clear(run_dir), 0);
	/* What cannot be removed is reported, the rest still goes. */
	ck_assert_int_eq(mkdir(rp("pvs_online/sub"), 0700), 0);
	put(rp("pvs_online/" PVID5), "7:5\n", 4);
	ck_assert_int_lt(pf_state_clear(run_dir), 0);
	ck_assert(!exists(rp("pvs_online/" PVID5)));
}
END_TEST

START_TEST(test_newhints_searched)
{
	umask(0277);
	ck_assert_int_eq(pf_state_touch_newhints(run_dir), 0);
	umask(022);
	assert_file(rp("newhints"), "", 0, 0600);
	ck_assert_int_eq(chmod(rp("newhints"), 0600), 0);
	put(rp("newhints"), "old", 3);
	ck_assert_int_eq(pf_state_touch_newhints(run_dir), 0);
	assert_file(rp("newhints"), "", 0, 0600);
	ck_assert_int_eq(unlink(rp("newhints")), 0);
	ck_assert_int_eq(pf_state_touch_newhints(run_dir), 0);
	assert_file(rp("newhints"), "", 0, 0600);

	ck_assert_int_eq(pf_state_unlink_searched_devnames(run_dir), 0);
	put(rp("searched_devnames"), "", 0);
	ck_assert_int_eq(pf_state_unlink_searched_devnames(run_dir), 0);
	ck_assert(!exists(rp("searched_devnames")));
}
END_TEST

/* Fork n children that block on a pipe until the parent closes it, then all run at once. */
#define RACERS 8
#define ROUNDS 40

static void spawn_racers(pid_t *kids, int (*fn)(unsigned int i))
{
	int gate[2];
	char c;

	ck_assert_int_eq(pipe(gate), 0);
	for (unsigned int i = 0; i < RACERS; i++) {
		kids[i] = fork();
		ck_assert_int_ge(kids[i], 0);
		if (kids[i] == 0) {
			close(gate[1]);
			(void)!read(gate[0], &c, 1);
			_exit(fn(i));
		}
	}
	close(gate[0]);
	close(gate[1]);
}

static int reap(pid_t kid)
{
	int status;

	ck_assert_int_eq(waitpid(kid, &status, 0), kid);
	ck_assert(WIFEXITED(status));
	return WEXITSTATUS(status);
}

/* 0: created; 10 + minor: lost, and was told the winner's devno; 3: anything else. */
static int race_pv(unsigned int i)
{
	struct pf_state_pv ex = {0};
	char dev[32];
	char want[32];
	int r;

	snprintf(dev, sizeof(dev), "/dev/loop%u", i + 1);
	r = pf_state_pv_online_write(run_dir, PVID5, 7, i + 1, "vg1", dev, &ex, NULL);
	if (r == 0)
		return 0;
	snprintf(want, sizeof(want), "/dev/loop%u", ex.minor);
	if (r == -EEXIST && ex.major == 7 && ex.minor != i + 1 && !strcmp(ex.vgname, "vg1") &&
	    !strcmp(ex.devname, want))
		return 10 + (int)ex.minor;
	return 3;
}

START_TEST(test_race_pv_online)
{
	for (unsigned int round = 0; round < ROUNDS; round++) {
		pid_t kids[RACERS];
		unsigned int winners = 0, winner = 0;
		int codes[RACERS];
		char want[64], buf[64];

		spawn_racers(kids, race_pv);
		for (unsigned int i = 0; i < RACERS; i++) {
			codes[i] = reap(kids[i]);
			if (codes[i] == 0) {
				winners++;
				winner = i + 1;
			}
		}
		ck_assert_uint_eq(winners, 1);
		for (unsigned int i = 0; i < RACERS; i++)
			if (codes[i] != 0)
				ck_assert_int_eq(codes[i], 10 + (int)winner);
		snprintf(want, sizeof(want), "7:%u\nvg:vg1\ndev:/dev/loop%u\n", winner, winner);
		ck_assert_int_eq(slurp(rp("pvs_online/" PVID5), buf, sizeof(buf)),
				 (ssize_t)strlen(want));
		ck_assert_str_eq(buf, want);
		ck_assert_uint_eq(n_entries(rp("pvs_online")), 1);
		ck_assert_int_eq(pf_state_clear(run_dir), 0);
	}
}
END_TEST

static int race_vg(unsigned int i)
{
	int r = pf_state_vg_online_claim(run_dir, "vg1");

	(void)i;
	return r == 0 ? 0 : r == -EEXIST ? 1 : 3;
}

static int race_lookup(unsigned int i)
{
	const char *a[] = {PVID5, PVID6, PVID7};
	const char *b[] = {PVID4, PVID7};
	int r = i % 2 ? pf_state_lookup_write(run_dir, "vg1", a, 3, NULL)
		      : pf_state_lookup_write(run_dir, "vg1", b, 2, NULL);

	return r == 0 ? 0 : r == -EEXIST ? 1 : 3;
}

START_TEST(test_race_claims)
{
	static const char a[] = PVID5 "\n" PVID6 "\n" PVID7 "\n";
	static const char b[] = PVID4 "\n" PVID7 "\n";

	for (unsigned int round = 0; round < ROUNDS; round++) {
		pid_t kids[RACERS];
		unsigned int won = 0;
		char buf[200];
		ssize_t n;

		spawn_racers(kids, _i == 0 ? race_vg : race_lookup);
		for (unsigned int i = 0; i < RACERS; i++) {
			int code = reap(kids[i]);

			ck_assert_int_le(code, 1);
			won += code == 0;
		}
		ck_assert_uint_eq(won, 1);
		if (_i == 0) {
			assert_file(rp("vgs_online/vg1"), "", 0, 0600);
		} else {
			n = slurp(rp("pvs_lookup/vg1"), buf, sizeof(buf));
			ck_assert((n == 99 && !strcmp(buf, a)) || (n == 66 && !strcmp(buf, b)));
			ck_assert_uint_eq(n_entries(rp("pvs_lookup")), 1);
		}
		ck_assert_int_eq(pf_state_clear(run_dir), 0);
	}
}
END_TEST

/*
 * A reader polling while a writer creates and clears the files over and over must only ever
 * see no file or a whole one: the property lvm2's open(O_EXCL) + write() does not have.
 */
START_TEST(test_race_reader_sees_whole_files)
{
	static const char want_pv[] = "7:5\nvg:vg1\ndev:/dev/loop5\n";
	static const char want_lk[] = PVID5 "\n" PVID6 "\n" PVID7 "\n";
	const char *ids[] = {PVID5, PVID6, PVID7};
	int stop[2];
	pid_t reader;
	struct pf_state_pv ex;

	ck_assert_int_eq(pipe2(stop, O_NONBLOCK), 0);
	reader = fork();
	ck_assert_int_ge(reader, 0);
	if (reader == 0) {
		unsigned long seen = 0;
		char c, buf[256];

		close(stop[1]);
		while (read(stop[0], &c, 1) < 0 && errno == EAGAIN) {
			ssize_t n = slurp(rp("pvs_online/" PVID5), buf, sizeof(buf));

			if (n >= 0 && (n != 26 || memcmp(buf, want_pv, 26)))
				_exit(1);
			seen += n >= 0;
			n = slurp(rp("pvs_lookup/vg1"), buf, sizeof(buf));
			if (n >= 0 && (n != 99 || memcmp(buf, want_lk, 99)))
				_exit(2);
			seen += n >= 0;
		}
		_exit(seen ? 0 : 4);
	}
	close(stop[0]);
	for (unsigned int i = 0; i < 3000; i++) {
		ck_assert_int_eq(
		    pf_state_pv_online_write(run_dir, PVID5, 7, 5, "vg1", "/dev/loop5", &ex, NULL),
		    0);
		ck_assert_int_eq(pf_state_lookup_write(run_dir, "vg1", ids, 3, NULL), 0);
		ck_assert_int_eq(pf_state_clear(run_dir), 0);
	}
	/* Leave the files in place so the reader surely sees them whole at least once. */
	ck_assert_int_eq(
	    pf_state_pv_online_write(run_dir, PVID5, 7, 5, "vg1", "/dev/loop5", &ex, NULL), 0);
	ck_assert_int_eq(pf_state_lookup_write(run_dir, "vg1", ids, 3, NULL), 0);
	usleep(20000);
	close(stop[1]);
	ck_assert_int_eq(reap(reader), 0);
}
END_TEST

/* A writer must not fail when a concurrent full clear removes its temporary file. */
START_TEST(test_race_clear_vs_write)
{
	const char *ids[] = {PVID5, PVID6};
	pid_t writer;

	writer = fork();
	ck_assert_int_ge(writer, 0);
	if (writer == 0) {
		struct pf_state_pv ex;

		for (unsigned int i = 0; i < 3000; i++) {
			int r = pf_state_pv_online_write(run_dir, PVID5, 7, 5, "vg1", "/dev/loop5",
							 &ex, NULL);
			int l = pf_state_lookup_write(run_dir, "vg1", ids, 2, NULL);

			if (r != 0 || (l != 0 && l != -EEXIST))
				_exit(1);
		}
		_exit(0);
	}
	for (unsigned int i = 0; i < 3000; i++)
		ck_assert_int_eq(pf_state_clear(run_dir), 0);
	ck_assert_int_eq(reap(writer), 0);
	ck_assert_int_eq(pf_state_clear(run_dir), 0);
	ck_assert_uint_eq(n_entries(rp("pvs_online")), 0);
	ck_assert_uint_eq(n_entries(rp("pvs_lookup")), 0);
}
END_TEST

static Suite *make_suite(void)
{
	Suite *s = suite_create("state");
	TCase *tc = pf_unit_tcase("files");
	TCase *race = pf_unit_tcase("races");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_test(tc, test_init_modes);
	tcase_add_test(tc, test_pv_online_bytes);
	tcase_add_loop_test(tc, test_pv_online_devname_len, 0, (int)ARRAY_SIZE(devname_cases));
	tcase_add_test(tc, test_pv_online_names);
	tcase_add_test(tc, test_hostile_names);
	tcase_add_test(tc, test_pv_online_same_devno);
	tcase_add_test(tc, test_pv_online_duplicate);
	tcase_add_test(tc, test_pv_online_stale_temp);
	tcase_add_loop_test(tc, test_pv_online_read_garbage, 0, (int)ARRAY_SIZE(reads));
	tcase_add_test(tc, test_pv_online_read_big);
	tcase_add_test(tc, test_pv_online_read_odd_files);
	tcase_add_test(tc, test_exists_count);
	tcase_add_test(tc, test_vg_online_claim);
	tcase_add_test(tc, test_lookup_write);
	tcase_add_test(tc, test_lookup_find);
	tcase_add_test(tc, test_lookup_find_garbage);
	tcase_add_test(tc, test_lookup_find_skips);
	tcase_add_test(tc, test_remove_devno);
	tcase_add_test(tc, test_clear);
	tcase_add_test(tc, test_newhints_searched);
	suite_add_tcase(s, tc);

	tcase_add_checked_fixture(race, setup, teardown);
	tcase_add_test(race, test_race_pv_online);
	tcase_add_loop_test(race, test_race_claims, 0, 2);
	tcase_add_test(race, test_race_reader_sees_whole_files);
	tcase_add_test(race, test_race_clear_vs_write);
	suite_add_tcase(s, race);
	return s;
}

PF_UNIT_MAIN()
