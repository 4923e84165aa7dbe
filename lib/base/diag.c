/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Filling struct pf_diag: bounded formatting, never fails. */
#include "config.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/diag.h"

void pf_diag_clear(struct pf_diag *diag)
{
	if (diag)
		memset(diag, 0, sizeof(*diag));
}

static void diag_vset(struct pf_diag *diag, bool has_offset, uint64_t offset, unsigned line,
		      unsigned col, const char *fmt, va_list ap)
{
	pf_diag_clear(diag);
	diag->has_offset = has_offset;
	diag->offset = offset;
	diag->line = line;
	diag->col = col;
	(void)vsnprintf(diag->msg, sizeof(diag->msg), fmt, ap);
}

void pf_diag_at(struct pf_diag *diag, uint64_t offset, const char *fmt, ...)
{
	va_list ap;

	if (!diag)
		return;
	va_start(ap, fmt);
	diag_vset(diag, true, offset, 0, 0, fmt, ap);
	va_end(ap);
}

void pf_diag_msg(struct pf_diag *diag, const char *fmt, ...)
{
	va_list ap;

	if (!diag)
		return;
	va_start(ap, fmt);
	diag_vset(diag, false, 0, 0, 0, fmt, ap);
	va_end(ap);
}

void pf_diag_text(struct pf_diag *diag, uint64_t offset, unsigned line, unsigned col,
		  const char *fmt, ...)
{
	va_list ap;

	if (!diag)
		return;
	va_start(ap, fmt);
	diag_vset(diag, true, offset, line, col, fmt, ap);
	va_end(ap);
}

void pf_diag_rebase(struct pf_diag *diag, uint64_t base)
{
	if (diag && diag->has_offset)
		diag->offset += base;
}

void pf_diag_format_bytes(const uint8_t *b, size_t n, char *ret, size_t ret_size)
{
	size_t o = 0;

	if (ret_size == 0)
		return;
	/* Each byte needs at most 4 characters ("\\xNN"), plus room for the NUL. */
	for (size_t i = 0; i < n && o + 5 <= ret_size; i++) {
		if (b[i] >= 0x20 && b[i] < 0x7f && b[i] != '\\' && b[i] != '"')
			ret[o++] = (char)b[i];
		else
			o += (size_t)snprintf(ret + o, ret_size - o, "\\x%02x", b[i]);
	}
	ret[o] = '\0';
}

void pf_diag_prefix(struct pf_diag *diag, const char *fmt, ...)
{
	char head[PF_DIAG_MSG_MAX], old[PF_DIAG_MSG_MAX];
	size_t hl, ol;
	va_list ap;

	if (!diag)
		return;
	va_start(ap, fmt);
	(void)vsnprintf(head, sizeof(head), fmt, ap);
	va_end(ap);
	memcpy(old, diag->msg, sizeof(old));
	old[sizeof(old) - 1] = '\0';
	/* Truncate the old message, never the context, when both do not fit. */
	hl = strlen(head);
	ol = strlen(old);
	if (ol > sizeof(diag->msg) - 1 - hl)
		ol = sizeof(diag->msg) - 1 - hl;
	memcpy(diag->msg, head, hl);
	memcpy(diag->msg + hl, old, ol);
	diag->msg[hl + ol] = '\0';
}
