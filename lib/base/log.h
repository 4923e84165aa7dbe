/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The process-wide logger: verbosity and where messages go. The only global in lib/. */
#ifndef PF_LOG_H
#define PF_LOG_H

#include <stdbool.h>

#include "base/macro.h"

enum pf_log_level {
	PF_LOG_SILENT = -1, /* nothing at all: udev imports stdout and wants only KEY='value' */
	PF_LOG_ERR = 0,	    /* always shown unless silenced */
	PF_LOG_WARN,
	PF_LOG_NOTICE, /* lvm2's default-visible lines */
	PF_LOG_INFO,   /* -v */
	PF_LOG_DEBUG,  /* -vv or PVSCAN_FAST_DEBUG */
};

void pf_log_set_level(enum pf_log_level level);
enum pf_log_level pf_log_get_level(void);
/* Prefix every line (e.g. "pvscan-fast: "); NULL for none. The string must outlive logging. */
void pf_log_set_prefix(const char *prefix);
void pf_log(enum pf_log_level level, const char *fmt, ...) _printf_(2, 3);
/*
 * Another destination for messages (the engine's journal): sink gets every message at
 * PF_LOG_NOTICE or more urgent, whatever the level shown on stderr, without the prefix.
 * stderr_too false: stderr is the same destination, so nothing is printed there. NULL: none.
 */
typedef void (*pf_log_sink_fn)(enum pf_log_level level, const char *msg);
void pf_log_set_sink(pf_log_sink_fn sink, bool stderr_too);

#define pf_err(...) pf_log(PF_LOG_ERR, __VA_ARGS__)
#define pf_warn(...) pf_log(PF_LOG_WARN, __VA_ARGS__)
#define pf_info(...) pf_log(PF_LOG_INFO, __VA_ARGS__)
#define pf_debug(...) pf_log(PF_LOG_DEBUG, __VA_ARGS__)

#endif /* PF_LOG_H */
