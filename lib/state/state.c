/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /run/lvm state files, byte-compatible with lvm2 2.03.16 (lib/device/online.c and
 * tools/pvscan.c), but published atomically: content goes to a temporary file that every lvm2
 * reader skips, and link() gives it its final name, failing with EEXIST exactly where lvm2's
 * open(O_CREAT|O_EXCL) would. A reader therefore never sees a partial file.
 */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/fileio.h"
#include "format/label.h"
#include "format/names.h"
#include "state/state.h"

#define PVS_ONLINE	  "pvs_online"
#define VGS_ONLINE	  "vgs_online"
#define PVS_LOOKUP	  "pvs_lookup"
#define NEWHINTS	  "newhints"
#define SEARCHED_DEVNAMES "searched_devnames"

#define DIR_MODE  0700 /* lvm2: mkdir 0755 under its default umask 077 */
#define FILE_MODE 0600 /* lvm2: S_IRUSR | S_IWUSR, and fopen 0666 under umask 077 */

/*
 * Temporary names start with '.', which every lvm2 directory walk skips, and contain '~', which
 * no VG name or PVID can, so they never collide with a real entry.
 */
#define TMP_PREFIX    ".pf~"
#define TMP_TRIES     64U
#define PUBLISH_TRIES 3U
#define TMP_STALE_SEC 10 /* a temp this old has no live writer */

/*
 * lvm2 copies a field into a NAME_LEN buffer and gives up at NAME_LEN - 1 characters, so the
 * longest value it accepts is one shorter than that.
 */
#define FIELD_MAX (PF_STATE_NAME_LEN - 2U)
/* lvm2 writes dev: only when 5 < strlen(devname) < NAME_LEN - 1. */
#define DEVNAME_MIN 6U
#define DEVNAME_MAX (PF_STATE_NAME_LEN - 2U)

/* "M:m\n" + "vg:" NAME "\n" + "dev:" NAME "\n": always below lvm2's 512-byte buffer. */
#define PV_FILE_TEXT_MAX (2U * 11U + 2U + 3U + PF_NAME_MAX + 1U + 4U + DEVNAME_MAX + 1U)

/* lvm2 reads pvs_lookup with fgets() into a 64-byte buffer: at most 63 bytes per piece. */
#define LOOKUP_CHUNK_MAX 63U

static const char *const state_dirs[] = {PVS_ONLINE, VGS_ONLINE, PVS_LOOKUP};

/* "run_dir[/sub][/name]" into buf; -ENAMETOOLONG rather than a truncated path. */
static int state_path(char *buf, size_t size, const char *run_dir, const char *sub,
		      const char *name)
{
	int n;

	n = snprintf(buf, size, "%s%s%s%s%s", run_dir, sub ? "/" : "", sub ? sub : "",
		     name ? "/" : "", name ? name : "");
	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return 0;
}

static bool pvid_is_valid(const char *pvid)
{
	return pf_id_is_valid(pvid, strnlen(pvid, PF_STATE_ID_LEN + 1));
}

static bool vgname_is_valid(const char *vgname)
{
	return pf_name_is_valid(vgname, strnlen(vgname, PF_NAME_MAX + 1));
}

/*
 * Open a state file for reading. O_NONBLOCK and the S_ISREG test keep a FIFO or device node
 * someone put there from blocking or feeding us; lvm2 would just read it.
 */
static int open_regular(const char *path, size_t max_bytes, int *ret_fd)
{
	_cleanup_close_ int fd = -1;
	struct stat st;

	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EBADMSG;
	if (max_bytes && (uint64_t)st.st_size > max_bytes)
		return -E2BIG;
	*ret_fd = TAKE_FD(fd);
	return 0;
}

/*
 * Write data into a fresh temporary file in dir and give it the name final with link(), which
 * fails with EEXIST if final exists: the same claim lvm2 makes with O_CREAT|O_EXCL, but the
 * name only ever points at complete content. No fsync: the state lives on tmpfs, is rebuilt
 * after every boot, and lvm2 does not sync it either.
 */
static int publish_once(const char *dir, const char *final, const char *data, size_t len,
			int *ret_write_err)
{
	char tmp[PATH_MAX];
	int fd = -1;
	int r = -EEXIST;

	/* The tid makes the name ours; a stale file of a crashed namesake only costs a retry. */
	for (unsigned int i = 0; i < TMP_TRIES && fd < 0; i++) {
		int n = snprintf(tmp, sizeof(tmp), "%s/" TMP_PREFIX "%d~%u", dir, (int)gettid(), i);

		if (n < 0 || (size_t)n >= sizeof(tmp))
			return -ENAMETOOLONG;
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, FILE_MODE);
		if (fd < 0) {
			r = -errno;
			if (r != -EEXIST)
				return r;
		}
	}
	if (fd < 0)
		return r;

	r = pf_write_full(fd, data, len);
	if (r < 0)
		*ret_write_err = r;
	/* The mode must not depend on the caller's umask. */
	if (r == 0 && fchmod(fd, FILE_MODE) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = *ret_write_err = -errno; /* a write error the filesystem reports late */
	if (r == 0 && link(tmp, final) < 0)
		r = -errno;
	(void)unlink(tmp);
	return r;
}

/*
 * The same with an unnamed file (O_TMPFILE) linked in by its descriptor: one path walk and
 * one unlink fewer per file, which a full scan of thousands of PVs notices, and no name for
 * a concurrent clear to remove. -EOPNOTSUPP where the filesystem or the caller's privileges
 * do not allow it (linking a descriptor needs CAP_DAC_READ_SEARCH).
 */
static int publish_unnamed(const char *dir, const char *final, const char *data, size_t len,
			   int *ret_write_err)
{
	_cleanup_close_ int fd = open(dir, O_TMPFILE | O_WRONLY | O_CLOEXEC, FILE_MODE);
	int r;

	if (fd < 0)
		return errno == ENOENT || errno == ENOTDIR || errno == EACCES ? -errno : -EOPNOTSUPP;
	r = pf_write_full(fd, data, len);
	if (r < 0)
		*ret_write_err = r;
	/* The mode must not depend on the caller's umask. */
	if (r == 0 && fchmod(fd, FILE_MODE) < 0)
		r = -errno;
	if (r == 0 && linkat(fd, "", AT_FDCWD, final, AT_EMPTY_PATH) < 0)
		r = errno == ENOENT || errno == EPERM ? -EOPNOTSUPP : -errno;
	return r;
}

/*
 * Publish data as final. When the name could be had but not the content (a full /run), the
 * error is also left in *ret_write_err, for callers that then claim the name as lvm2 does.
 */
static int publish(const char *dir, const char *final, const char *data, size_t len,
		   int *ret_write_err)
{
	int r;

	*ret_write_err = 0;
	r = publish_unnamed(dir, final, data, len, ret_write_err);

	if (r != -EOPNOTSUPP)
		return r;
	r = -ENOENT;

	/*
	 * A concurrent full clear may remove our temporary file before link(): that clear then
	 * came first, so write again. A missing directory fails the same way every time.
	 */
	for (unsigned int i = 0; i < PUBLISH_TRIES && r == -ENOENT; i++)
		r = publish_once(dir, final, data, len, ret_write_err);
	return r;
}

/*
 * lvm2 creates a state file before it writes its content, so when the write fails (ENOSPC)
 * the empty file stays and still counts: the PV is online, the VG's lookup file is taken.
 * We claim the name the same way, with an empty file, which a full filesystem still allows.
 */
static int claim_empty(const char *final)
{
	int fd = open(final, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, FILE_MODE);
	int r = 0;

	if (fd < 0)
		return -errno;
	if (fchmod(fd, FILE_MODE) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

/* publish(), then with ret_write_err the empty claim when only the content failed. */
static int publish_or_claim(const char *dir, const char *final, const char *data, size_t len,
			    int *ret_write_err)
{
	int write_err, r = publish(dir, final, data, len, &write_err);

	if (r < 0 && write_err < 0 && ret_write_err) {
		r = claim_empty(final);
		if (r == 0)
			*ret_write_err = write_err;
	}
	return r;
}

/* lvm2's "%d" for a devno half: optional white space and sign, then digits; negatives refused. */
static const char *parse_devno_half(const char *p, unsigned int *ret)
{
	bool neg = false;
	unsigned long v = 0;

	while (isspace((unsigned char)*p))
		p++;
	if (*p == '+' || *p == '-')
		neg = *p++ == '-';
	if (!isdigit((unsigned char)*p))
		return NULL;
	for (; isdigit((unsigned char)*p); p++) {
		v = v * 10U + (unsigned long)(*p - '0');
		if (v > INT_MAX)
			return NULL;
	}
	if (neg && v != 0)
		return NULL;
	*ret = (unsigned int)v;
	return p;
}

/*
 * lvm2's field rule: the value after the first occurrence of key anywhere in the text, up to
 * a newline or the end; empty or longer than FIELD_MAX counts as invalid (returns false).
 */
static bool copy_field(const char *text, const char *key, char *out)
{
	const char *p = strstr(text, key);
	size_t n;

	if (!p)
		return false;
	p += strlen(key);
	n = strcspn(p, "\n");
	if (n == 0 || n > FIELD_MAX)
		return false;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

/*
 * Parse a pvs_online file's text (NUL-terminated at most PF_STATE_PV_FILE_MAX bytes) the way
 * lvm2's online_pvid_file_read() does; compat: vg: and dev: are searched anywhere in the text.
 */
static int pv_text_parse(const char *text, struct pf_state_pv *ret)
{
	struct pf_state_pv pv = {0};
	const char *p;

	p = parse_devno_half(text, &pv.major);
	if (!p || *p != ':')
		return -EBADMSG;
	if (!parse_devno_half(p + 1, &pv.minor))
		return -EBADMSG;

	if (copy_field(text, "vg:", pv.vgname) && !vgname_is_valid(pv.vgname))
		pv.vgname[0] = '\0';
	if (!copy_field(text, "dev:", pv.devname) || strncmp(pv.devname, "/dev/", 5) != 0)
		pv.devname[0] = '\0';
	*ret = pv;
	return 0;
}

static int pv_file_read(const char *path, struct pf_state_pv *ret)
{
	char text[PF_STATE_PV_FILE_MAX + 1];
	_cleanup_close_ int fd = -1;
	ssize_t n;
	int r;

	r = open_regular(path, 0, &fd);
	if (r < 0)
		return r;
	/* compat: lvm2 reads 511 bytes and ignores the rest; text ends at the first NUL. */
	n = pf_read_full(fd, text, PF_STATE_PV_FILE_MAX, -1);
	if (n < 0)
		return (int)n;
	if (n == 0)
		return -ENODATA;
	text[n] = '\0';
	return pv_text_parse(text, ret);
}

int pf_state_init(const char *run_dir)
{
	char path[PATH_MAX];
	int first = 0;

	for (size_t i = 0; i <= ARRAY_SIZE(state_dirs); i++) {
		const char *sub = i == 0 ? NULL : state_dirs[i - 1];
		struct stat st;
		int r;

		r = state_path(path, sizeof(path), run_dir, sub, NULL);
		if (r == 0 && stat(path, &st) == 0) {
			if (!S_ISDIR(st.st_mode))
				r = -ENOTDIR;
		} else if (r == 0) {
			if (mkdir(path, DIR_MODE) == 0) {
				/* Only a directory we made gets its mode forced past the umask. */
				if (chmod(path, DIR_MODE) < 0)
					r = -errno;
			} else if (errno != EEXIST) {
				r = -errno;
			}
		}
		/* Like lvm2, try every directory; report the first failure. */
		if (r < 0 && first == 0)
			first = r;
	}
	return first;
}

int pf_state_pv_online_write(const char *run_dir, const char *pvid, unsigned int major,
			     unsigned int minor, const char *vgname, const char *devname,
			     struct pf_state_pv *ret_existing, int *ret_write_err)
{
	char dir[PATH_MAX], final[PATH_MAX];
	char text[PV_FILE_TEXT_MAX + 1];
	struct pf_state_pv old;
	size_t len, devlen;
	int n, r;

	if (!pvid_is_valid(pvid) || (vgname && !vgname_is_valid(vgname)) || major > INT_MAX ||
	    minor > INT_MAX)
		return -EINVAL;
	r = state_path(dir, sizeof(dir), run_dir, PVS_ONLINE, NULL);
	if (r < 0)
		return r;
	r = state_path(final, sizeof(final), run_dir, PVS_ONLINE, pvid);
	if (r < 0)
		return r;

	n = snprintf(text, sizeof(text), "%u:%u\n", major, minor);
	len = (size_t)n;
	if (vgname)
		len += (size_t)snprintf(text + len, sizeof(text) - len, "vg:%s\n", vgname);
	/* A newline in the name would forge fields: leave dev: out, it is only a hint. */
	devlen = strnlen(devname, DEVNAME_MAX + 1);
	if (devlen >= DEVNAME_MIN && devlen <= DEVNAME_MAX && !memchr(devname, '\n', devlen))
		len += (size_t)snprintf(text + len, sizeof(text) - len, "dev:%s\n", devname);

	if (ret_write_err)
		*ret_write_err = 0;
	for (unsigned int i = 0;; i++) {
		r = publish_or_claim(dir, final, text, len, ret_write_err);
		if (r != -EEXIST)
			return r;
		r = pv_file_read(final, &old);
		/* Removed (by a full clear or a removal) since link() saw it: claim it again. */
		if (r == -ENOENT && i + 1 < PUBLISH_TRIES)
			continue;
		break;
	}
	/* compat: lvm2 compares 0:0 when the existing file cannot be parsed. */
	if (r < 0)
		old = (struct pf_state_pv){0};
	if (old.major == major && old.minor == minor)
		return 0;
	*ret_existing = old;
	return -EEXIST;
}

int pf_state_pv_online_read(const char *run_dir, const char *pvid, struct pf_state_pv *ret)
{
	char path[PATH_MAX];
	int r;

	if (!pvid_is_valid(pvid))
		return -EINVAL;
	r = state_path(path, sizeof(path), run_dir, PVS_ONLINE, pvid);
	if (r < 0)
		return r;
	return pv_file_read(path, ret);
}

bool pf_state_pv_online_exists(const char *run_dir, const char *pvid)
{
	char path[PATH_MAX];
	struct stat st;

	if (!pvid_is_valid(pvid))
		return false;
	if (state_path(path, sizeof(path), run_dir, PVS_ONLINE, pvid) < 0)
		return false;
	return stat(path, &st) == 0;
}

int pf_state_count_online(const char *run_dir, const char *const *pvids, size_t n,
			  size_t *ret_online)
{
	size_t online = 0;

	if (n > 0 && !pvids)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		if (!pvids[i])
			return -EINVAL;
		if (pf_state_pv_online_exists(run_dir, pvids[i]))
			online++;
	}
	*ret_online = online;
	return 0;
}

int pf_state_vg_online_claim(const char *run_dir, const char *vgname)
{
	char path[PATH_MAX];
	int fd, r;

	if (!vgname_is_valid(vgname))
		return -EINVAL;
	r = state_path(path, sizeof(path), run_dir, VGS_ONLINE, vgname);
	if (r < 0)
		return r;
	/* An empty file is complete the moment it exists, so O_EXCL alone is atomic here. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, FILE_MODE);
	if (fd < 0)
		return -errno;
	r = 0;
	if (fchmod(fd, FILE_MODE) < 0)
		r = -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

int pf_state_lookup_write(const char *run_dir, const char *vgname, const char *const *pvids,
			  size_t n, int *ret_write_err)
{
	char dir[PATH_MAX], final[PATH_MAX];
	_cleanup_free_ char *text = NULL;
	int r;

	if (!vgname_is_valid(vgname) || n == 0)
		return -EINVAL;
	if (n > PF_STATE_LOOKUP_PVS_MAX)
		return -E2BIG;
	for (size_t i = 0; i < n; i++)
		if (!pvids[i] || !pvid_is_valid(pvids[i]))
			return -EINVAL;
	r = state_path(dir, sizeof(dir), run_dir, PVS_LOOKUP, NULL);
	if (r < 0)
		return r;
	r = state_path(final, sizeof(final), run_dir, PVS_LOOKUP, vgname);
	if (r < 0)
		return r;

	/* n is capped above, so this cannot overflow. */
	text = malloc(n * (PF_STATE_ID_LEN + 1U));
	if (!text)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		memcpy(text + i * (PF_STATE_ID_LEN + 1U), pvids[i], PF_STATE_ID_LEN);
		text[i * (PF_STATE_ID_LEN + 1U) + PF_STATE_ID_LEN] = '\n';
	}
	if (ret_write_err)
		*ret_write_err = 0;
	return publish_or_claim(dir, final, text, n * (PF_STATE_ID_LEN + 1U), ret_write_err);
}

/* The next piece lvm2's fgets(line, 64, fp) would return; false at the end of the text. */
static bool next_chunk(const char *text, size_t len, size_t *pos, const char **ret, size_t *ret_len)
{
	size_t start = *pos, n = 0;

	if (start >= len)
		return false;
	while (start + n < len && n < LOOKUP_CHUNK_MAX) {
		if (text[start + n++] == '\n')
			break;
	}
	*pos = start + n;
	*ret = text + start;
	*ret_len = n;
	return true;
}

/*
 * compat: lvm2 counts a piece as a PVID when its first 32 bytes hold no NUL (strlen of the
 * 32 copied bytes), and matches it when those bytes equal the PVID; shorter pieces never count.
 */
static bool chunk_is_pvid(const char *c, size_t len)
{
	return len >= PF_STATE_ID_LEN && !memchr(c, '\0', PF_STATE_ID_LEN);
}

static int lookup_file_read(const char *path, char **ret_text, size_t *ret_len)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *text = NULL;
	struct stat st;
	ssize_t n;
	int r;

	r = open_regular(path, PF_STATE_LOOKUP_FILE_MAX, &fd);
	if (r < 0)
		return r;
	if (fstat(fd, &st) < 0)
		return -errno;
	/* One byte beyond the size seen, to notice a file that grew past the cap meanwhile. */
	text = malloc((size_t)st.st_size + 1U);
	if (!text)
		return -ENOMEM;
	n = pf_read_full(fd, text, (size_t)st.st_size + 1U, -1);
	if (n < 0)
		return (int)n;
	if ((size_t)n > PF_STATE_LOOKUP_FILE_MAX)
		return -E2BIG;
	*ret_text = TAKE_PTR(text);
	*ret_len = (size_t)n;
	return 0;
}

/*
 * The next entry of a directory walk capped at PF_STATE_DIR_ENTRIES_MAX. NULL at the end,
 * with a read error or the cap recorded in *first unless it already holds an error.
 */
static struct dirent *walk_next(DIR *dir, unsigned int *seen, int *first)
{
	struct dirent *de;

	errno = 0;
	de = readdir(dir);
	if (!de) {
		if (errno && *first == 0)
			*first = -errno;
		return NULL;
	}
	if (++*seen > PF_STATE_DIR_ENTRIES_MAX) {
		if (*first == 0)
			*first = -E2BIG;
		return NULL;
	}
	return de;
}

/* Fill ret from a lookup file's text if it lists pvid; 1 if it does, 0 if not, or -errno. */
static int lookup_text_match(const char *text, size_t len, const char *pvid,
			     struct pf_state_lookup *ret)
{
	const char *c;
	size_t pos = 0, clen, count = 0, i = 0;
	bool found = false;

	while (next_chunk(text, len, &pos, &c, &clen)) {
		if (!chunk_is_pvid(c, clen))
			continue;
		count++;
		if (memcmp(c, pvid, PF_STATE_ID_LEN) == 0)
			found = true;
	}
	if (!found)
		return 0;
	if (count > PF_STATE_LOOKUP_PVS_MAX)
		return -E2BIG;

	ret->pvids = calloc(count, sizeof(*ret->pvids));
	if (!ret->pvids)
		return -ENOMEM;
	pos = 0;
	while (next_chunk(text, len, &pos, &c, &clen)) {
		if (!chunk_is_pvid(c, clen))
			continue;
		memcpy(ret->pvids[i], c, PF_STATE_ID_LEN);
		ret->pvids[i++][PF_STATE_ID_LEN] = '\0';
	}
	ret->n_pvids = count;
	return 1;
}

int pf_state_lookup_find(const char *run_dir, const char *pvid, struct pf_state_lookup *ret)
{
	char dir_path[PATH_MAX], path[PATH_MAX];
	struct pf_state_lookup found = {0};
	struct dirent *de;
	DIR *dir;
	unsigned int seen = 0;
	int walk_err = 0;
	int r;

	if (!pvid_is_valid(pvid))
		return -EINVAL;
	r = state_path(dir_path, sizeof(dir_path), run_dir, PVS_LOOKUP, NULL);
	if (r < 0)
		return r;
	dir = opendir(dir_path);
	if (!dir)
		return -errno;

	r = -ENOENT;
	for (;;) {
		_cleanup_free_ char *text = NULL;
		size_t len = 0;
		int m;

		de = walk_next(dir, &seen, &walk_err);
		if (!de) {
			if (walk_err)
				r = walk_err;
			break;
		}
		/*
		 * lvm2 skips only dot names; we also skip names that are not VG names, because the
		 * caller will use this one as a VG name (vgs_online/<name>).
		 */
		if (de->d_name[0] == '.' || !vgname_is_valid(de->d_name))
			continue;
		if (state_path(path, sizeof(path), dir_path, NULL, de->d_name) < 0)
			continue;
		/* Like lvm2, a file that cannot be read is passed over. */
		if (lookup_file_read(path, &text, &len) < 0)
			continue;
		m = lookup_text_match(text, len, pvid, &found);
		if (m < 0) {
			r = m;
			break;
		}
		if (m > 0) {
			memcpy(found.vgname, de->d_name, strlen(de->d_name) + 1);
			*ret = found;
			r = 0;
			break;
		}
	}
	(void)closedir(dir);
	return r;
}

void pf_state_lookup_release(struct pf_state_lookup *l)
{
	if (!l)
		return;
	free(l->pvids);
	*l = (struct pf_state_lookup){0};
}

/* unlink() where a missing file is fine. */
static int unlink_quiet(const char *path)
{
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

static int unlink_vg_files(const char *run_dir, const char *vgname)
{
	char path[PATH_MAX];
	int r, first = 0;

	r = state_path(path, sizeof(path), run_dir, VGS_ONLINE, vgname);
	if (r == 0)
		r = unlink_quiet(path);
	first = r;
	r = state_path(path, sizeof(path), run_dir, PVS_LOOKUP, vgname);
	if (r == 0)
		r = unlink_quiet(path);
	return first ? first : r;
}

int pf_state_remove_devno(const char *run_dir, unsigned int major, unsigned int minor)
{
	char dir_path[PATH_MAX], path[PATH_MAX];
	struct dirent *de;
	DIR *dir;
	unsigned int seen = 0;
	int r, first = 0;

	r = state_path(dir_path, sizeof(dir_path), run_dir, PVS_ONLINE, NULL);
	if (r < 0)
		return r;
	dir = opendir(dir_path);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;

	for (;;) {
		struct pf_state_pv pv;

		de = walk_next(dir, &seen, &first);
		if (!de)
			break;
		/* compat: lvm2 looks at every name not starting with '.', whatever its length. */
		if (de->d_name[0] == '.')
			continue;
		if (state_path(path, sizeof(path), dir_path, NULL, de->d_name) < 0)
			continue;
		if (pv_file_read(path, &pv) < 0 || pv.major != major || pv.minor != minor)
			continue;
		r = unlink_quiet(path);
		if (r == 0 && pv.vgname[0])
			r = unlink_vg_files(run_dir, pv.vgname);
		if (r < 0 && first == 0)
			first = r;
	}
	(void)closedir(dir);
	return first;
}

/*
 * One of our temporary files left by a writer that died. Young ones are in flight: removing
 * them would only make their writer start over, and over again while clears keep coming.
 */
static bool tmp_is_stale(int dfd, const char *name, time_t now)
{
	struct stat st;

	if (strncmp(name, TMP_PREFIX, strlen(TMP_PREFIX)))
		return false;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) < 0)
		return false;
	/* Far in the future means the clock went back since: stale too. */
	return now - st.st_mtime >= TMP_STALE_SEC || st.st_mtime - now > TMP_STALE_SEC;
}

static int clear_dir(const char *dir_path)
{
	struct dirent *de;
	DIR *dir;
	unsigned int seen = 0;
	time_t now = time(NULL);
	int first = 0;

	dir = opendir(dir_path);
	if (!dir)
		return errno == ENOENT ? 0 : -errno;
	for (;;) {
		de = walk_next(dir, &seen, &first);
		if (!de)
			break;
		/* lvm2 leaves dot names alone; of those we remove only our own stale temps. */
		if (de->d_name[0] == '.' && !tmp_is_stale(dirfd(dir), de->d_name, now))
			continue;
		if (unlinkat(dirfd(dir), de->d_name, 0) < 0 && errno != ENOENT && first == 0)
			first = -errno;
	}
	(void)closedir(dir);
	return first;
}

int pf_state_clear(const char *run_dir)
{
	char path[PATH_MAX];
	int first = 0;

	for (size_t i = 0; i < ARRAY_SIZE(state_dirs); i++) {
		int r = state_path(path, sizeof(path), run_dir, state_dirs[i], NULL);

		if (r == 0)
			r = clear_dir(path);
		if (r < 0 && first == 0)
			first = r;
	}
	return first;
}

int pf_state_touch_newhints(const char *run_dir)
{
	char path[PATH_MAX];
	int fd, r;

	r = state_path(path, sizeof(path), run_dir, NULL, NEWHINTS);
	if (r < 0)
		return r;
	/* Try O_EXCL first so that only a file we create gets its mode forced past the umask. */
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, FILE_MODE);
	if (fd >= 0) {
		if (fchmod(fd, FILE_MODE) < 0)
			r = -errno;
	} else if (errno == EEXIST) {
		fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC | O_NOFOLLOW);
	}
	if (fd < 0)
		return -errno;
	if (close(fd) < 0 && r == 0)
		r = -errno;
	return r;
}

int pf_state_unlink_searched_devnames(const char *run_dir)
{
	char path[PATH_MAX];
	int r;

	r = state_path(path, sizeof(path), run_dir, NULL, SEARCHED_DEVNAMES);
	if (r < 0)
		return r;
	return unlink_quiet(path);
}
