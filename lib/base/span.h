/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Bounds-checked, read-only view of bytes read from a device, and the only way
 * decoders read on-disk integers: every access names an offset and width and
 * fails with -EBADMSG instead of reading past the end. Header-only.
 */
#ifndef PF_SPAN_H
#define PF_SPAN_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct pf_span {
	const uint8_t *p;
	size_t len;
};

static inline struct pf_span pf_span_make(const void *p, size_t len)
{
	return (struct pf_span){ .p = p, .len = p ? len : 0 };
}

static inline bool pf_add_overflow_u64(uint64_t a, uint64_t b, uint64_t *ret)
{
	return __builtin_add_overflow(a, b, ret);
}

static inline bool pf_mul_overflow_u64(uint64_t a, uint64_t b, uint64_t *ret)
{
	return __builtin_mul_overflow(a, b, ret);
}

/* True when [off, off + n) lies inside the span; overflow-safe. */
static inline bool pf_span_has(struct pf_span s, uint64_t off, uint64_t n)
{
	return off <= s.len && n <= s.len - off;
}

/* Sub-span [off, off + n); *ret untouched on failure. */
static inline int pf_span_sub(struct pf_span s, uint64_t off, uint64_t n, struct pf_span *ret)
{
	if (!pf_span_has(s, off, n))
		return -EBADMSG;
	*ret = pf_span_make(s.p + off, (size_t)n);
	return 0;
}

/* Copy n raw bytes (a magic, an id) out of the span. */
static inline int pf_span_copy(struct pf_span s, uint64_t off, size_t n, void *ret)
{
	if (!pf_span_has(s, off, n))
		return -EBADMSG;
	memcpy(ret, s.p + off, n);
	return 0;
}

static inline int pf_span_le16(struct pf_span s, uint64_t off, uint16_t *ret)
{
	if (!pf_span_has(s, off, 2))
		return -EBADMSG;
	*ret = (uint16_t)(s.p[off] | (uint16_t)s.p[off + 1] << 8);
	return 0;
}

static inline int pf_span_le32(struct pf_span s, uint64_t off, uint32_t *ret)
{
	const uint8_t *b;

	if (!pf_span_has(s, off, 4))
		return -EBADMSG;
	b = s.p + off;
	*ret = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	return 0;
}

static inline int pf_span_le64(struct pf_span s, uint64_t off, uint64_t *ret)
{
	uint64_t v = 0;

	if (!pf_span_has(s, off, 8))
		return -EBADMSG;
	for (int i = 7; i >= 0; i--)
		v = v << 8 | s.p[off + (uint64_t)i];
	*ret = v;
	return 0;
}

/* Big-endian readers, for the few formats that store integers that way (md DDF, GFS pool). */
static inline int pf_span_be32(struct pf_span s, uint64_t off, uint32_t *ret)
{
	const uint8_t *b;

	if (!pf_span_has(s, off, 4))
		return -EBADMSG;
	b = s.p + off;
	*ret = (uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | (uint32_t)b[3];
	return 0;
}

static inline int pf_span_be64(struct pf_span s, uint64_t off, uint64_t *ret)
{
	uint64_t v = 0;

	if (!pf_span_has(s, off, 8))
		return -EBADMSG;
	for (int i = 0; i < 8; i++)
		v = v << 8 | s.p[off + (uint64_t)i];
	*ret = v;
	return 0;
}

/* Writers, for tests and tools that build on-disk structures. */
static inline void pf_put_le32(uint8_t *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static inline void pf_put_le64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * i));
}

static inline void pf_put_be32(uint8_t *b, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		b[i] = (uint8_t)(v >> (8 * (3 - i)));
}

static inline void pf_put_be64(uint8_t *b, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		b[i] = (uint8_t)(v >> (8 * (7 - i)));
}

#endif /* PF_SPAN_H */
