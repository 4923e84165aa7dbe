/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's validate_name(): VG/LV names read from metadata, tags, devices file names. */
#include "config.h"

#include "format/names.h"

bool pf_name_char_is_valid(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '+' || c == '_' || c == '.' || c == '-';
}

bool pf_name_is_valid(const char *name, size_t len)
{
	if (!name || len == 0 || len > PF_NAME_MAX || name[0] == '-')
		return false;
	if ((len == 1 && name[0] == '.') || (len == 2 && name[0] == '.' && name[1] == '.'))
		return false;
	for (size_t i = 0; i < len; i++)
		if (!pf_name_char_is_valid(name[i]))
			return false;
	return true;
}
