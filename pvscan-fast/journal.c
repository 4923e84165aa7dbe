/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The engine's messages and records to systemd's journal, with VG=, DEVICE= and PVID= fields. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <syslog.h>
#include <unistd.h>

#ifdef HAVE_SYSTEMD_SD_JOURNAL_H
#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>
#endif

#include "base/log.h"
#include "journal.h"

#ifdef HAVE_SYSTEMD_SD_JOURNAL_H

#define IDENT "SYSLOG_IDENTIFIER=pvscan-fast"
#define FIELD_MAX 600U

/* The fields of the step the engine is at: messages logged meanwhile are about it. */
static struct {
	char vg[FIELD_MAX], device[FIELD_MAX], pvid[FIELD_MAX];
} context;

static void set_iov(struct iovec *v, const char *s)
{
	v->iov_base = (void *)s;
	v->iov_len = strlen(s);
}

/* Send MESSAGE with PRIORITY and the context fields; the journal takes any bytes in values. */
static void send(int priority, const char *msg, const char *record)
{
	char prio[16], message[2200], rec[64];
	struct iovec iov[7];
	int n = 0;

	(void)snprintf(prio, sizeof(prio), "PRIORITY=%d", priority);
	(void)snprintf(message, sizeof(message), "MESSAGE=%s", msg);
	set_iov(&iov[n++], message);
	set_iov(&iov[n++], prio);
	set_iov(&iov[n++], IDENT);
	if (context.vg[0])
		set_iov(&iov[n++], context.vg);
	if (context.device[0])
		set_iov(&iov[n++], context.device);
	if (context.pvid[0])
		set_iov(&iov[n++], context.pvid);
	if (record) {
		(void)snprintf(rec, sizeof(rec), "PVSCAN_FAST_RECORD=%s", record);
		set_iov(&iov[n++], rec);
	}
	(void)sd_journal_sendv(iov, n);
}

static void log_sink(enum pf_log_level level, const char *msg)
{
	static const int prio[] = { [PF_LOG_ERR] = LOG_ERR, [PF_LOG_WARN] = LOG_WARNING,
				    [PF_LOG_NOTICE] = LOG_NOTICE, [PF_LOG_INFO] = LOG_INFO,
				    [PF_LOG_DEBUG] = LOG_DEBUG };

	while (*msg == ' ')
		msg++; /* lvm2's indentation means nothing in the journal */
	send(level >= PF_LOG_ERR && level <= PF_LOG_DEBUG ? prio[level] : LOG_INFO, msg, NULL);
}

static const char *kv_get(const char *const *kv, size_t n, const char *key)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(kv[2 * i], key) == 0)
			return kv[2 * i + 1];
	return NULL;
}

/* Records that tell of something going wrong are warnings. */
static int record_priority(const char *kind, const char *const *kv, size_t n)
{
	const char *res = kv_get(kv, n, "res"), *state = kv_get(kv, n, "state");

	if ((strcmp(kind, "activated") == 0 && res && strcmp(res, "ok") != 0) ||
	    (strcmp(kind, "dev") == 0 && res &&
	     (strcmp(res, "failed") == 0 || strcmp(res, "timeout") == 0)) ||
	    (strcmp(kind, "vg") == 0 && state && strcmp(state, "incomplete") == 0))
		return LOG_WARNING;
	return LOG_INFO;
}

static void set_field(char *dst, const char *name, const char *value)
{
	if (value && *value)
		(void)snprintf(dst, FIELD_MAX, "%s=%s", name, value);
	else
		dst[0] = '\0';
}

static void record_hook(const char *kind, const char *const *kv, size_t n, const char *line)
{
	const char *msg = line, *device = kv_get(kv, n, "name");
	char text[PF_RECORDS_LINE_MAX];
	size_t len;

	/* the line without its time and pid (the journal has both) and without the newline */
	for (int spaces = 0; *msg && spaces < 3; msg++)
		spaces += *msg == ' ';
	len = strcspn(msg, "\n");
	(void)snprintf(text, sizeof(text), "%.*s", (int)len, msg);
	set_field(context.vg, "VG", kv_get(kv, n, "vg"));
	set_field(context.device, "DEVICE", device ? device : kv_get(kv, n, "dev"));
	set_field(context.pvid, "PVID", kv_get(kv, n, "pvid"));
	send(record_priority(kind, kv, n), text, kind);
}

/* stderr is the journal already (a systemd service's): $JOURNAL_STREAM names its dev:inode. */
static bool stderr_is_journal(void)
{
	const char *e = getenv("JOURNAL_STREAM");
	unsigned long long dev, ino;
	struct stat st;

	return e && sscanf(e, "%llu:%llu", &dev, &ino) == 2 && fstat(STDERR_FILENO, &st) == 0 &&
	       (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

bool pf_journal_setup(struct pf_records *w)
{
	const char *e = getenv(PF_JOURNAL_ENV);
	struct stat st;
	bool on;

	if (e && *e)
		on = strcmp(e, "0") != 0;
	else
		on = stat("/run/systemd/system", &st) == 0 && S_ISDIR(st.st_mode);
	if (!on)
		return false;
	pf_log_set_sink(log_sink, !stderr_is_journal());
	if (w)
		w->hook = record_hook;
	return true;
}

#else

bool pf_journal_setup(struct pf_records *w _unused_)
{
	return false;
}

#endif
