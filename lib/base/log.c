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
	pf_log_sink_fn sink;
	bool sink_only;
} logger = { .level = PF_LOG_NOTICE };

void pf_log_set_sink(pf_log_sink_fn sink, bool stderr_too)
{
	logger.sink = sink;
	logger.sink_only = sink && !stderr_too;
}

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
	bool to_sink = logger.sink && level >= PF_LOG_ERR &&
		       (level <= PF_LOG_NOTICE || (logger.sink_only && level <= logger.level));
	bool to_stderr = level <= logger.level && !logger.sink_only;
	va_list ap;

	if (!to_sink && !to_stderr)
		return;
	/* One fprintf for prefix + message keeps concurrent invocations' lines whole. */
	char line[2048];

	va_start(ap, fmt);
	(void)vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (to_sink)
		logger.sink(level, line);
	if (to_stderr)
		(void)fprintf(stderr, "%s%s\n", logger.prefix ? logger.prefix : "", line);
}
