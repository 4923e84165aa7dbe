/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The boot's own VGs first: names from the kernel command line and fstab, and the reordering. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "activate/bootorder.h"
#include "base/fileio.h"
#include "format/names.h"

/* Larger files are not a kernel command line or an fstab worth reading at boot. */
#define TEXT_MAX (256U * 1024U)

/* Keep name[0..len) when it is a VG name lvm2 accepts; a full list ignores the rest. */
static int add(struct pf_strv *s, const char *name, size_t len)
{
	char vg[PF_NAME_MAX + 1];
	int r;

	if (len == 0 || len > PF_NAME_MAX || !pf_name_is_valid(name, len))
		return 0;
	memcpy(vg, name, len);
	vg[len] = '\0';
	r = pf_strv_push(s, PF_BOOTORDER_MAX, vg);
	return r == -E2BIG ? 0 : r;
}

/*
 * The VG of a dm name VG-LV: lvm2 doubles every '-' inside the VG and LV names, so the VG ends
 * at the first single '-'.
 */
static int add_dm_name(struct pf_strv *s, const char *dm, size_t len)
{
	char vg[PF_NAME_MAX + 1];
	size_t n = 0;

	for (size_t i = 0; i < len; i++) {
		if (dm[i] == '-') {
			if (i + 1 < len && dm[i + 1] == '-')
				i++;
			else
				return add(s, vg, n);
		}
		if (n == PF_NAME_MAX)
			return 0;
		vg[n++] = dm[i];
	}
	return 0; /* no LV part: not an LV */
}

/* A device path: /dev/mapper/VG-LV or /dev/VG/LV. */
static int add_device(struct pf_strv *s, const char *dev, size_t len)
{
	static const char mapper[] = "/dev/mapper/", devdir[] = "/dev/";
	const char *slash;

	if (len > sizeof(mapper) - 1 && strncmp(dev, mapper, sizeof(mapper) - 1) == 0)
		return add_dm_name(s, dev + sizeof(mapper) - 1, len - (sizeof(mapper) - 1));
	if (len <= sizeof(devdir) - 1 || strncmp(dev, devdir, sizeof(devdir) - 1) != 0)
		return 0;
	dev += sizeof(devdir) - 1;
	len -= sizeof(devdir) - 1;
	slash = memchr(dev, '/', len);
	/* /dev/VG/LV exactly: /dev/disk/by-id/... has more parts, and "disk" is no VG here */
	if (!slash || memchr(slash + 1, '/', len - (size_t)(slash + 1 - dev)))
		return 0;
	if (slash + 1 == dev + len)
		return 0;
	return add(s, dev, (size_t)(slash - dev));
}

/* One word of the kernel command line. */
static int add_word(struct pf_strv *s, const char *w, size_t len)
{
	static const char *const devkeys[] = { "root=", "resume=" };
	static const char vgkey[] = "rd.lvm.vg=", lvkey[] = "rd.lvm.lv=";
	const char *slash;

	for (size_t k = 0; k < sizeof(devkeys) / sizeof(devkeys[0]); k++) {
		size_t kl = strlen(devkeys[k]);

		if (len > kl && strncmp(w, devkeys[k], kl) == 0)
			return add_device(s, w + kl, len - kl);
	}
	if (len > sizeof(vgkey) - 1 && strncmp(w, vgkey, sizeof(vgkey) - 1) == 0)
		return add(s, w + sizeof(vgkey) - 1, len - (sizeof(vgkey) - 1));
	if (len > sizeof(lvkey) - 1 && strncmp(w, lvkey, sizeof(lvkey) - 1) == 0) {
		w += sizeof(lvkey) - 1;
		len -= sizeof(lvkey) - 1;
		slash = memchr(w, '/', len);
		return slash ? add(s, w, (size_t)(slash - w)) : 0;
	}
	return 0;
}

static bool is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* The next whitespace-separated field of [*p, end): its start and length, or NULL. */
static const char *field(const char **p, const char *end, size_t *len)
{
	const char *start;

	while (*p < end && is_space(**p))
		(*p)++;
	if (*p == end)
		return NULL;
	start = *p;
	while (*p < end && !is_space(**p))
		(*p)++;
	*len = (size_t)(*p - start);
	return start;
}

static int parse_cmdline(struct pf_strv *s, const char *text)
{
	const char *p = text, *end = text + strlen(text), *w;
	size_t len;
	int r;

	while ((w = field(&p, end, &len)))
		if ((r = add_word(s, w, len)) < 0)
			return r;
	return 0;
}

static int parse_fstab(struct pf_strv *s, const char *text)
{
	const char *line = text;

	while (*line) {
		const char *nl = strchr(line, '\n');
		const char *end = nl ? nl : line + strlen(line);
		const char *p = line, *spec, *mnt;
		size_t spec_len, mnt_len;
		int r;

		spec = field(&p, end, &spec_len);
		mnt = spec && *spec != '#' ? field(&p, end, &mnt_len) : NULL;
		if (mnt && ((mnt_len == 1 && *mnt == '/') ||
			    (mnt_len == 4 && strncmp(mnt, "/usr", 4) == 0)))
			if ((r = add_device(s, spec, spec_len)) < 0)
				return r;
		line = nl ? nl + 1 : end;
	}
	return 0;
}

int pf_bootorder_parse(const char *cmdline, const char *fstab, struct pf_strv *ret)
{
	struct pf_strv s = { 0 };
	int r = 0;

	if (cmdline)
		r = parse_cmdline(&s, cmdline);
	if (r == 0 && fstab)
		r = parse_fstab(&s, fstab);
	if (r < 0) {
		pf_strv_release(&s);
		return r;
	}
	pf_strv_sort_unique(&s);
	*ret = s;
	return 0;
}

int pf_bootorder_load(const char *cmdline_path, const char *fstab_path, struct pf_strv *ret)
{
	_cleanup_free_ char *cmdline = NULL, *fstab = NULL;
	size_t len;

	/* unreadable: no boot VG named there, as on a host whose root is no LV */
	if (pf_read_file_at(AT_FDCWD, cmdline_path, TEXT_MAX, &cmdline, &len) < 0)
		cmdline = NULL;
	if (pf_read_file_at(AT_FDCWD, fstab_path, TEXT_MAX, &fstab, &len) < 0)
		fstab = NULL;
	return pf_bootorder_parse(cmdline, fstab, ret);
}

static void swap_bytes(unsigned char *a, unsigned char *b, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		unsigned char t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

size_t pf_bootorder_front(void *base, size_t n, size_t size, const struct pf_strv *boot)
{
	unsigned char *e = base;
	size_t front = 0;

	if (boot->n == 0 || !base || size == 0)
		return 0;
	/* few boot VGs: each is carried forward past the others, keeping both orders */
	for (size_t i = 0; i < n; i++) {
		const char *name = (const char *)(e + i * size);

		if (!memchr(name, '\0', size) || !pf_strv_contains(boot, name))
			continue;
		for (size_t j = i; j > front; j--)
			swap_bytes(e + (j - 1) * size, e + j * size, size);
		front++;
	}
	return front;
}
