/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Logger state and the stderr sink; messages are formatted only when they will be shown. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/log.h"

static struct {
	enum pf_log_level level;
	const char *prefix;
} logger = { .level = PF_LOG_NOTICE };

void pf_log_set_level(enum pf_log_level level)
{
	logger.level = level;
}

enum pf_log_level pf_log_get_level(void)
{
	return logger.level;
}

void pf_log_set_prefix(const char *prefix)
{
	logger.prefix = prefix;
}

void pf_log(enum pf_log_level level, const char *fmt, ...)
{
	va_list ap;

	if (level > logger.level)
		return;
	/* One fprintf for prefix + message keeps concurrent invocations' lines whole. */
	char line[2048];

	va_start(ap, fmt);
	(void)vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	(void)fprintf(stderr, "%s%s\n", logger.prefix ? logger.prefix : "", line);
}
