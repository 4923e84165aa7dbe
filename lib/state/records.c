/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The record log under <run>/pvscan-fast: the line format, appending, rotating, reading back. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "base/clock.h"
#include "base/fileio.h"
#include "base/strutil.h"
#include "state/coalesce.h"
#include "state/records.h"

#define FILE_MODE 0600
/* What a reader takes of one generation: a follower may overshoot the cap a little. */
#define READ_CAP ((size_t)2 * PF_RECORDS_FILE_MAX + PF_RECORDS_LINE_MAX)
#define CUT_MARK "..."

static bool name_char(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-';
}

static bool valid_name(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n > PF_RECORDS_KEY_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!name_char((unsigned char)s[i]))
			return false;
	return true;
}

static bool needs_escape(unsigned char c)
{
	return c <= ' ' || c == 0x7f || c == '%' || c == '=';
}

const char *pf_records_get(const struct pf_records_entry *e, const char *key)
{
	for (size_t i = 0; i < e->n_fields; i++)
		if (strcmp(e->fields[i].key, key) == 0)
			return e->fields[i].value;
	return NULL;
}

/* Append value escaped at buf[*len], up to limit; a longer one is cut and marked. */
static void put_value(char *buf, size_t *len, size_t limit, const char *value)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t n = 0;

	for (const unsigned char *p = (const unsigned char *)value; *p; p++) {
		size_t need = needs_escape(*p) ? 3 : 1;

		/* limit leaves room for the mark, cut between whole escapes */
		if (*len + need > limit || n + 1 > PF_RECORDS_VALUE_MAX - strlen(CUT_MARK)) {
			memcpy(buf + *len, CUT_MARK, strlen(CUT_MARK));
			*len += strlen(CUT_MARK);
			return;
		}
		if (need == 3) {
			buf[(*len)++] = '%';
			buf[(*len)++] = hex[*p >> 4];
			buf[(*len)++] = hex[*p & 15];
		} else {
			buf[(*len)++] = (char)*p;
		}
		n++;
	}
}

int pf_records_encode(char *buf, uint64_t t_us, uint32_t pid, const char *kind,
		      const char *const *kv, size_t n)
{
	/* room for the cut mark and the newline after the last value */
	const size_t limit = PF_RECORDS_LINE_MAX - 1 - strlen(CUT_MARK) - 1;
	size_t len, fields = 0;
	int k;

	if (!valid_name(kind))
		return -EINVAL;
	k = snprintf(buf, PF_RECORDS_LINE_MAX, "%s %llu %u %s", PF_RECORDS_MAGIC,
		     (unsigned long long)t_us, (unsigned)pid, kind);
	if (k < 0 || (size_t)k >= limit)
		return -EINVAL;
	len = (size_t)k;
	for (size_t i = 0; i < n; i++) {
		const char *key = kv[2 * i], *value = kv[2 * i + 1];

		if (!key || !valid_name(key))
			return -EINVAL;
		if (!value)
			continue;
		/* a field that does not fit is left out whole: a line never exceeds the max */
		if (fields == PF_RECORDS_FIELDS_MAX || len + 1 + strlen(key) + 1 > limit)
			break;
		buf[len++] = ' ';
		memcpy(buf + len, key, strlen(key));
		len += strlen(key);
		buf[len++] = '=';
		put_value(buf, &len, limit, value);
		fields++;
	}
	buf[len++] = '\n';
	buf[len] = '\0';
	return (int)len;
}

static int hexval(uint8_t c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* The token [*pos, space or end) of line; *pos moves past it and one space. */
static struct pf_span token(struct pf_span line, size_t *pos)
{
	size_t start = *pos, end = start;

	while (end < line.len && line.p[end] != ' ')
		end++;
	*pos = end < line.len ? end + 1 : end;
	return pf_span_make(line.p + start, end - start);
}

static int take_name(struct pf_span t, char *out)
{
	if (t.len == 0 || t.len > PF_RECORDS_KEY_MAX)
		return -EBADMSG;
	for (size_t i = 0; i < t.len; i++)
		if (!name_char(t.p[i]))
			return -EBADMSG;
	memcpy(out, t.p, t.len);
	out[t.len] = '\0';
	return 0;
}

static int take_u64(struct pf_span t, uint64_t max, uint64_t *ret)
{
	char num[24];

	if (t.len == 0 || t.len >= sizeof(num))
		return -EBADMSG;
	memcpy(num, t.p, t.len);
	num[t.len] = '\0';
	return pf_parse_u64(num, max, ret);
}

static int take_value(struct pf_span t, char *out)
{
	size_t n = 0;

	for (size_t i = 0; i < t.len; i++) {
		uint8_t c = t.p[i];

		if (n == PF_RECORDS_VALUE_MAX)
			return -EBADMSG;
		if (c == '%') {
			int hi, lo;

			if (i + 2 >= t.len)
				return -EBADMSG;
			hi = hexval(t.p[i + 1]);
			lo = hexval(t.p[i + 2]);
			if (hi < 0 || lo < 0 || (hi == 0 && lo == 0))
				return -EBADMSG;
			out[n++] = (char)(hi << 4 | lo);
			i += 2;
			continue;
		}
		if (needs_escape(c))
			return -EBADMSG;
		out[n++] = (char)c;
	}
	out[n] = '\0';
	return 0;
}

int pf_records_decode(struct pf_span line, struct pf_records_entry *ret)
{
	struct pf_records_entry *e = ret;
	struct pf_span t;
	size_t pos = 0;
	uint64_t v;

	e->n_fields = 0;
	t = token(line, &pos);
	if (t.len != strlen(PF_RECORDS_MAGIC) || memcmp(t.p, PF_RECORDS_MAGIC, t.len) != 0)
		goto out;
	if (take_u64(token(line, &pos), UINT64_MAX, &e->t_us) < 0 ||
	    take_u64(token(line, &pos), UINT32_MAX, &v) < 0)
		goto out;
	e->pid = (uint32_t)v;
	if (take_name(token(line, &pos), e->kind) < 0)
		goto out;
	while (pos < line.len) {
		struct pf_records_field *f;
		size_t eq = 0;

		t = token(line, &pos);
		if (e->n_fields == PF_RECORDS_FIELDS_MAX)
			goto out;
		while (eq < t.len && t.p[eq] != '=')
			eq++;
		if (eq == t.len)
			goto out;
		f = &e->fields[e->n_fields];
		if (take_name(pf_span_make(t.p, eq), f->key) < 0 ||
		    take_value(pf_span_make(t.p + eq + 1, t.len - eq - 1), f->value) < 0)
			goto out;
		e->n_fields++;
	}
	/* a line ending in a space has an empty last token: not a line we write */
	if (line.len && line.p[line.len - 1] == ' ')
		goto out;
	return 0;
out:
	return -EBADMSG;
}

int pf_records_next(struct pf_span buf, size_t *off, struct pf_records_entry *ret)
{
	size_t start = *off, end;

	if (start >= buf.len)
		return -1;
	end = start;
	while (end < buf.len && buf.p[end] != '\n')
		end++;
	if (end == buf.len) {
		*off = buf.len; /* torn: the writer died before its newline */
		return 0;
	}
	*off = end + 1;
	return pf_records_decode(pf_span_make(buf.p + start, end - start), ret) == 0 ? 1 : 0;
}

void pf_records_open(const char *run_dir, bool may_rotate, struct pf_records *w)
{
	char path[4096];
	int fd;

	*w = (struct pf_records){ .dir_fd = -1, .fd = -1, .may_rotate = may_rotate };
	/* the queue's directory: made by pf_coalesce_open(), never here */
	if (snprintf(path, sizeof(path), "%s/%s", run_dir, PF_COALESCE_DIR) >= (int)sizeof(path))
		return;
	fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd >= 0)
		w->dir_fd = fd;
}

void pf_records_close(struct pf_records *w)
{
	if (w->fd >= 0)
		(void)close(w->fd);
	if (w->dir_fd >= 0)
		(void)close(w->dir_fd);
	w->fd = w->dir_fd = -1;
}

static int open_log(struct pf_records *w)
{
	struct stat st;

	w->fd = openat(w->dir_fd, PF_RECORDS_FILE,
		       O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, FILE_MODE);
	if (w->fd < 0)
		return -errno;
	w->size = fstat(w->fd, &st) == 0 ? (uint64_t)st.st_size : 0;
	return 0;
}

/* The leader's full file becomes records.old; the new one starts with the marker. */
static int rotate(struct pf_records *w)
{
	char line[PF_RECORDS_LINE_MAX];
	int n;

	(void)close(w->fd);
	w->fd = -1;
	if (renameat(w->dir_fd, PF_RECORDS_FILE, w->dir_fd, PF_RECORDS_OLD) < 0 && errno != ENOENT)
		return -errno;
	if (open_log(w) < 0)
		return -errno;
	n = pf_records_encode(line, pf_now_ns() / 1000U, (uint32_t)getpid(), "rotated", NULL, 0);
	if (n > 0 && pf_write_full(w->fd, line, (size_t)n) == 0)
		w->size += (uint64_t)n;
	return 0;
}

void pf_records_addv(struct pf_records *w, const char *kind, const char *const *kv, size_t n)
{
	char line[PF_RECORDS_LINE_MAX];
	struct stat st;
	int len;

	if (w->dir_fd < 0 || (w->fd < 0 && open_log(w) < 0)) {
		w->dropped++;
		return;
	}
	len = pf_records_encode(line, pf_now_ns() / 1000U, (uint32_t)getpid(), kind, kv, n);
	if (len < 0) {
		w->dropped++;
		return;
	}
	if (w->hook)
		w->hook(kind, kv, n, line);
	if (w->size + (uint64_t)len > PF_RECORDS_FILE_MAX) {
		/* others append too: what we counted is a lower bound */
		if (fstat(w->fd, &st) == 0 && (uint64_t)st.st_size > w->size)
			w->size = (uint64_t)st.st_size;
	}
	if (w->size + (uint64_t)len > PF_RECORDS_FILE_MAX && w->may_rotate && rotate(w) < 0) {
		w->dropped++;
		return;
	}
	if (w->size + (uint64_t)len > 2ULL * PF_RECORDS_FILE_MAX) {
		w->dropped++;
		return;
	}
	/* one write: O_APPEND puts it whole after whatever others wrote */
	if (write(w->fd, line, (size_t)len) != len) {
		w->dropped++;
		return;
	}
	w->size += (uint64_t)len;
}

void pf_records_add(struct pf_records *w, const char *kind, ...)
{
	const char *kv[2 * PF_RECORDS_FIELDS_MAX];
	size_t n = 0;
	va_list ap;

	va_start(ap, kind);
	for (;;) {
		const char *key = va_arg(ap, const char *), *value;

		if (!key)
			break;
		value = va_arg(ap, const char *);
		if (n < PF_RECORDS_FIELDS_MAX) {
			kv[2 * n] = key;
			kv[2 * n + 1] = value;
			n++;
		}
	}
	va_end(ap);
	pf_records_addv(w, kind, kv, n);
}

/* One generation, at most READ_CAP bytes of its end, from a line's start. */
static int read_generation(int dir_fd, const char *name, char **buf, size_t *len)
{
	_cleanup_close_ int fd = -1;
	struct stat st;
	size_t want, skip = 0;
	off_t from;
	ssize_t k;
	char *b;

	fd = openat(dir_fd, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	if (!S_ISREG(st.st_mode))
		return -EBADMSG;
	want = (uint64_t)st.st_size > READ_CAP ? READ_CAP : (size_t)st.st_size;
	from = st.st_size - (off_t)want;
	b = realloc(*buf, *len + want + 4);
	if (!b)
		return -ENOMEM;
	*buf = b;
	k = pf_read_full(fd, b + *len, want, from);
	if (k < 0)
		return (int)k;
	/* a cut into the middle of the file starts at the next whole line */
	if (from > 0)
		while (skip < (size_t)k && b[*len + skip++] != '\n')
			;
	memmove(b + *len, b + *len + skip, (size_t)k - skip);
	*len += (size_t)k - skip;
	/*
	 * A torn last line must neither glue itself to the next generation's first nor pass for
	 * a whole record once ended: a field without '=' makes it undecodable.
	 */
	if (*len && b[*len - 1] != '\n') {
		memcpy(b + *len, " %\n", 3);
		*len += 3;
	}
	b[*len] = '\0';
	return 0;
}

int pf_records_read(const char *run_dir, char **ret, size_t *ret_len)
{
	_cleanup_free_ char *path = NULL, *buf = NULL;
	_cleanup_close_ int dir_fd = -1;
	size_t len = 0;
	int r;

	if (asprintf(&path, "%s/%s", run_dir, PF_COALESCE_DIR) < 0) {
		path = NULL;
		return -ENOMEM;
	}
	buf = calloc(1, 1);
	if (!buf)
		return -ENOMEM;
	dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd >= 0) {
		r = read_generation(dir_fd, PF_RECORDS_OLD, &buf, &len);
		if (r == 0)
			r = read_generation(dir_fd, PF_RECORDS_FILE, &buf, &len);
		if (r < 0)
			return r;
	} else if (errno != ENOENT) {
		return -errno;
	}
	*ret = TAKE_PTR(buf);
	*ret_len = len;
	return 0;
}
