/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Why a decoder refused its input: a human-readable reason plus where it was
 * found (device byte offset, or line/column in text). Decoders fill it; the
 * command decides whether and how to print it.
 */
#ifndef PF_DIAG_H
#define PF_DIAG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"

#define PF_DIAG_MSG_MAX 256

struct pf_diag {
	bool has_offset;
	uint64_t offset; /* byte offset on the device (or in the buffer) of the bad field */
	unsigned line;	 /* 1-based text position; 0 when not text */
	unsigned col;
	char msg[PF_DIAG_MSG_MAX];
};

/* All setters accept diag == NULL, so callers that only want the error code pass NULL. */
void pf_diag_clear(struct pf_diag *diag);
void pf_diag_at(struct pf_diag *diag, uint64_t offset, const char *fmt, ...) _printf_(3, 4);
void pf_diag_msg(struct pf_diag *diag, const char *fmt, ...) _printf_(2, 3);
void pf_diag_text(struct pf_diag *diag, uint64_t offset, unsigned line, unsigned col,
		  const char *fmt, ...) _printf_(5, 6);
/* Shift a buffer-relative offset to a device offset once the caller knows where the buffer was. */
void pf_diag_rebase(struct pf_diag *diag, uint64_t base);
/*
 * On-disk ids and magics are not NUL-terminated and may hold anything: render
 * n bytes printable (\xNN for the rest) into ret for use in a message.
 */
void pf_diag_format_bytes(const uint8_t *b, size_t n, char *ret, size_t ret_size);
/* Prefix the message with context ("mda1: "), keeping offset and position. */
void pf_diag_prefix(struct pf_diag *diag, const char *fmt, ...) _printf_(2, 3);

#endif /* PF_DIAG_H */
