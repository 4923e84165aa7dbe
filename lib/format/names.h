/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's name rules: VG and LV names, tags, devices file names, system ID characters. */
#ifndef PF_NAMES_H
#define PF_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define PF_NAME_MAX 127U /* lvm2 NAME_LEN 128 including the NUL */

/* A character lvm2 allows in names: A-Z a-z 0-9 + _ . - (and keeps in a system ID). */
bool pf_name_char_is_valid(char c);

/*
 * lvm2's validate_name(), for VG and LV names, tags and devices file names alike:
 * pf_name_char_is_valid() characters, not starting with '-', not "." or "..", 1..127 bytes.
 */
bool pf_name_is_valid(const char *name, size_t len);

#endif /* PF_NAMES_H */
