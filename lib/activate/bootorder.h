/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which VGs a boot waits for (root, /usr, resume), so that they are activated before the rest. */
#ifndef PF_BOOTORDER_H
#define PF_BOOTORDER_H

#include <stddef.h>

#include "base/macro.h"
#include "base/strv.h"

/* At most this many boot VGs are taken from a command line and an fstab; more are ignored. */
#define PF_BOOTORDER_MAX 16U

/*
 * The VG names the kernel command line (root=, resume=, rd.lvm.vg=VG, rd.lvm.lv=VG/LV) and
 * fstab (the devices of / and /usr) name, sorted, each once: a device as /dev/mapper/VG-LV
 * (lvm2's dm name, '-' doubled inside names) or /dev/VG/LV. Devices named any other way
 * (UUID=, LABEL=, a partition) name no VG; neither does a name lvm2 would refuse. Either
 * text may be NULL. Returns 0 or -ENOMEM.
 */
int pf_bootorder_parse(const char *cmdline, const char *fstab, struct pf_strv *ret)
	_nonnull_(3) _must_check_;

/*
 * pf_bootorder_parse() of the files cmdline_path (/proc/cmdline) and fstab_path; a file that
 * is missing or unreadable counts as empty (an initramfs has no fstab). Returns 0 or -ENOMEM.
 */
int pf_bootorder_load(const char *cmdline_path, const char *fstab_path, struct pf_strv *ret)
	_nonnull_(1, 2, 3) _must_check_;

/*
 * Move the elements of base[0..n) whose VG is in boot (sorted, as the functions above leave
 * it) to the front, keeping the order within both parts. Each element is size bytes and
 * starts with its VG name, NUL-terminated. Returns how many are in front.
 */
size_t pf_bootorder_front(void *base, size_t n, size_t size, const struct pf_strv *boot)
	_nonnull_(4);

#endif /* PF_BOOTORDER_H */
