/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The libFuzzer entry point every tests/fuzz/fuzz_*.c target defines and replay.c drives. */
#ifndef PF_FUZZ_H
#define PF_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#endif /* PF_FUZZ_H */
