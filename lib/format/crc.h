/* SPDX-License-Identifier: GPL-2.0-or-later */
/* lvm2's CRC-32 variant: reflected 0xEDB88320, initial 0xf597a6cf, no final xor. */
#ifndef PF_CRC_H
#define PF_CRC_H

#include <stddef.h>
#include <stdint.h>

#include "base/macro.h"

#define PF_CRC_INITIAL 0xf597a6cfU

/* Chainable: pf_crc(pf_crc(PF_CRC_INITIAL, a), b) equals the CRC of a||b (wrapped metadata). */
uint32_t pf_crc(uint32_t crc, const void *buf, size_t len) _pure_;

#endif /* PF_CRC_H */
