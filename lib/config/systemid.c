/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The host's system ID, resolved from lvm.conf's global/system_id_source as lvm2 2.03.16 does. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <systemd/sd-id128.h>
#include <unistd.h>

#include "base/fileio.h"
#include "base/paths.h"
#include "config/settings.h"
#include "config/systemid.h"
#include "format/names.h"

/* lvm2's NAME_LEN: a system ID keeps at most this many characters. */
#define SYSTEM_ID_MAX (PF_NAME_MAX + 1U)
/* A system ID file is read up to this many bytes; the first line that is not a comment wins. */
#define SYSTEM_ID_FILE_MAX ((size_t)1 << 20)
/* The application ID lvm2 hands to sd_id128_get_machine_app_specific(). */
#define LVM_APP_ID SD_ID128_MAKE(f6, 44, 06, 83, 2c, 21, 40, e8, ac, 54, 22, d1, 08, 9a, ae, 03)

static bool is_alnum(unsigned char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool is_space(unsigned char c)
{
	return c == ' ' || (c >= '\t' && c <= '\r');
}

char *pf_systemid_from_string(const char *str, const char **ret_why)
{
	const unsigned char *s = (const unsigned char *)str;
	size_t len = 0;
	char *d;

	*ret_why = NULL;
	if (!*s) {
		*ret_why = "empty system ID supplied";
		return strdup("");
	}
	d = malloc(SYSTEM_ID_MAX + 1);
	if (!d)
		return NULL;
	while (*s && !is_alnum(*s))
		s++;
	for (; *s && len < SYSTEM_ID_MAX; s++)
		if (pf_name_char_is_valid((char)*s))
			d[len++] = (char)*s;
	d[len] = '\0';
	if (!len) {
		*ret_why = "invalid system ID format";
		free(d);
		return NULL;
	}
	if (strncmp(d, "localhost", 9) == 0) {
		*ret_why = "system ID may not begin with the string \"localhost\"";
		free(d);
		return NULL;
	}
	return d;
}

/* The first SYSTEM_ID_FILE_MAX bytes of path, NUL-terminated; the rest is never looked at. */
static int read_head(const char *path, char **ret)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *buf = NULL;
	ssize_t n;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	buf = malloc(SYSTEM_ID_FILE_MAX + 1);
	if (!buf)
		return -ENOMEM;
	n = pf_read_full(fd, buf, SYSTEM_ID_FILE_MAX, -1);
	if (n < 0)
		return (int)n;
	buf[n] = '\0';
	*ret = TAKE_PTR(buf);
	return 0;
}

/* lvm2's _read_system_id_from_file(): the first line that is not blank or a comment. */
static int system_id_from_file(struct pf_settings_loader *ld, const char *file, char **ret)
{
	_cleanup_free_ char *text = NULL;
	const char *why;
	char *id = NULL;
	int r;

	*ret = NULL;
	if (!file || !file[0])
		return 0;
	r = read_head(file, &text);
	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return pf_settings_warn(ld, NULL, NULL, false, "%s: cannot open: %s", file,
					strerror(-r));
	for (char *line = text; line && *line;) {
		char *nl = strchr(line, '\n'), *start = line, *hash;

		if (nl)
			*nl = '\0';
		line = nl ? nl + 1 : NULL;
		while (*start && is_space((unsigned char)*start))
			start++;
		if (!*start || *start == '#')
			continue;
		if (id && *id) {
			r = pf_settings_warn(ld, NULL, NULL, false,
					     "ignoring extra line(s) in system ID file %s", file);
			break;
		}
		hash = strchr(start, '#');
		if (hash)
			*hash = '\0';
		free(id);
		id = pf_systemid_from_string(start, &why);
		if (!id && !why)
			return -ENOMEM;
		if (why)
			r = pf_settings_warn(ld, NULL, NULL, false, "%s: %s", file, why);
	}
	*ret = id;
	return r;
}

/*
 * systemd's HMAC of /etc/machine-id under lvm2's application ID, as lvm2 asks libsystemd
 * for it. When libsystemd fails (no machine-id, or not 32 hex digits and a newline, or all
 * zero), lvm2 goes on with an all-zero ID.
 */
static int app_machine_id(struct pf_settings_loader *ld, char **ret)
{
	sd_id128_t id;
	char out[SD_ID128_STRING_MAX];
	int r;

	r = sd_id128_get_machine_app_specific(LVM_APP_ID, &id);
	if (r == -ENOMEM)
		return r;
	if (r < 0) {
		id = SD_ID128_NULL;
		r = pf_settings_warn(ld, NULL, NULL, false,
				     "/etc/machine-id: not a valid machine ID (%s); "
				     "lvm2 uses an all-zero one",
				     strerror(-r));
		if (r < 0)
			return r;
	}
	*ret = strdup(sd_id128_to_string(id, out));
	return *ret ? 0 : -ENOMEM;
}

static int system_id_from_source(struct pf_settings_loader *ld, const char *hostname,
				 const struct pf_settings *s, const char *source, char **ret)
{
	const char *str = NULL, *why;
	_cleanup_free_ char *file = NULL;
	char *id;
	int r;

	*ret = NULL;
	if (!strcasecmp(source, "uname")) {
		id = pf_systemid_from_string(hostname, &why);
	} else if (!strcasecmp(source, "lvmlocal")) {
		r = pf_settings_get_str(ld, "local", "system_id", NULL, false, &str);
		if (r < 0 || !str)
			return r;
		id = pf_systemid_from_string(str, &why);
	} else if (!strcasecmp(source, "appmachineid")) {
		return app_machine_id(ld, ret);
	} else if (!strcasecmp(source, "machineid") || !strcasecmp(source, "machine-id")) {
		file = pf_path_join(s->etc, "machine-id");
		if (!file)
			return -ENOMEM;
		return system_id_from_file(ld, file, ret);
	} else if (!strcasecmp(source, "file")) {
		return system_id_from_file(ld, s->system_id_file, ret);
	} else {
		return pf_settings_warn(ld, NULL, NULL, true,
					"unrecognised system_id_source \"%s\"", source);
	}
	if (!id && !why)
		return -ENOMEM;
	*ret = id;
	return why ? pf_settings_warn(ld, NULL, NULL, false, "%s", why) : 0;
}

int pf_systemid_resolve(struct pf_settings_loader *ld, const char *hostname, struct pf_settings *s)
{
	const char *local = NULL, *source = NULL;
	char *id = NULL;
	int r;

	r = pf_settings_get_str(ld, "local", "system_id", NULL, true, &local);
	if (r == 0)
		r = pf_settings_get_str(ld, "global", "system_id_source", "none", false, &source);
	if (r < 0)
		return r;
	s->local_system_id = local && local[0] ? strdup(local) : NULL;
	s->system_id_source = strdup(source);
	if ((local && local[0] && !s->local_system_id) || !s->system_id_source)
		return -ENOMEM;
	if (local && local[0] && strcmp(source, "lvmlocal") != 0) {
		r = pf_settings_warn(ld, "global", "system_id_source", true,
				     "local/system_id is set, so should global/system_id_source be "
				     "\"lvmlocal\" not \"%s\"?",
				     source);
		if (r < 0)
			return r;
	}
	/* compat: only this comparison is case-sensitive in lvm2; "NONE" is unrecognised. */
	if (!strcmp(source, "none"))
		return 0;
	r = system_id_from_source(ld, hostname, s, source, &id);
	if (r < 0) {
		free(id);
		return r;
	}
	if (id && id[0]) {
		s->system_id = id;
		return 0;
	}
	free(id);
	s->system_id_unknown = true;
	return pf_settings_warn(ld, NULL, NULL, false,
				"no system ID found from system_id_source %s", source);
}

int pf_settings_load(const char *etc, const char *const *config, size_t n_config,
		     struct pf_settings *ret, struct pf_diag *reterr)
{
	const struct pf_settings_opts opts = { .etc = etc,
					       .config = config,
					       .n_config = n_config,
					       .system_id = pf_systemid_resolve };

	return pf_settings_load_opts(&opts, ret, reterr);
}
