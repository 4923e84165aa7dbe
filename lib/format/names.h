/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's rules for VG and LV names, and dm-name mangling of them. */
#ifndef PF_NAMES_H
#define PF_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#define PF_NAME_MAX 127U /* lvm2 NAME_LEN 128 including the NUL */

/* A-Z a-z 0-9 + _ . -, not starting with '-', not "." or "..", 1..127 bytes. */
bool pf_name_is_valid(const char *name, size_t len);

#endif /* PF_NAMES_H */
