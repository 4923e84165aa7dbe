/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Decimal parsing, once: strict for our own formats, atoi-like where lvm2 uses atoi(). */
#include "config.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>

#include "base/strutil.h"

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

int pf_scan_u64(const char **s, uint64_t max, uint64_t *ret)
{
	const char *p = *s;
	uint64_t v = 0;

	if (!is_digit(*p))
		return -EBADMSG;
	for (; is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (v > (max - d) / 10)
			return -EBADMSG;
		v = v * 10 + d;
	}
	*s = p;
	*ret = v;
	return 0;
}

int pf_parse_u64(const char *s, uint64_t max, uint64_t *ret)
{
	uint64_t v;
	int r = pf_scan_u64(&s, max, &v);

	if (r < 0)
		return r;
	if (*s)
		return -EBADMSG;
	*ret = v;
	return 0;
}

int pf_atoi(const char *s)
{
	bool neg = false;
	long long v = 0;

	while (*s == ' ' || (*s >= '\t' && *s <= '\r'))
		s++;
	if (*s == '-' || *s == '+')
		neg = *s++ == '-';
	for (; is_digit(*s); s++) {
		v = v * 10 + (*s - '0');
		if (v > (long long)INT_MAX + 1)
			v = (long long)INT_MAX + 1;
	}
	if (neg)
		return (int)-v;
	return v > INT_MAX ? INT_MAX : (int)v;
}

static bool escaped(unsigned char c)
{
	return c < 0x20 || c == 0x7f || c == '\\';
}

char *pf_str_escape(const char *in, char *out, size_t size)
{
	size_t o = 0;

	if (size == 0)
		return out;
	for (; *in; in++) {
		unsigned char c = (unsigned char)*in;
		size_t need = !escaped(c) ? 1 : c == '\\' ? 2 : 4;

		if (o + need >= size)
			break;
		if (c == '\\') {
			out[o++] = '\\';
			out[o++] = '\\';
		} else if (need == 4) {
			(void)snprintf(out + o, 5, "\\x%02x", c);
			o += 4;
		} else {
			out[o++] = (char)c;
		}
	}
	out[o] = '\0';
	return out;
}
