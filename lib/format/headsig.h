/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What lvm2's data filters look for in the first bytes of a device that carries an LVM label:
 * an msdos partition table (a GPT's protective one included), an lvm1 or GFS pool signature,
 * an md 1.1/1.2 superblock. Found once, as the bytes arrive, so that thousands of devices do
 * not each keep their first sectors until the filters run. Pure decoding.
 */
#ifndef PF_HEADSIG_H
#define PF_HEADSIG_H

#include <stdbool.h>

#include "base/macro.h"
#include "base/span.h"
#include "format/mdsb.h"

/* Bytes from the start of the device the checks need: md 1.2 magic at 4096. */
#define PF_HEADSIG_BYTES PF_MDSB_START_BYTES

struct pf_headsig {
	bool partition_table; /* lvm2 skips it where the device is partitionable */
	bool old_signature;   /* lvm1's "HM" (version 1 or 2), or a GFS pool label */
	bool md_at_start;     /* lvm2 skips it when md detection is on and it is >= 128 KiB */
};

/* The signatures in head, the device's first bytes: 0, or -EINVAL when it holds fewer than
 * PF_HEADSIG_BYTES (*ret untouched). */
int pf_headsig_read(struct pf_span head, struct pf_headsig *ret) _nonnull_(2);

#endif /* PF_HEADSIG_H */
