/* The fake HIP runtime's test interface (fake_hip.c). */
#ifndef TKH_FAKE_HIP_H
#define TKH_FAKE_HIP_H

#include "tokitai_hip/codegen/hip_platform.h"

typedef enum fake_kind {
    FAKE_DEVICE_MEMORY, FAKE_PINNED_MEMORY, FAKE_STREAM, FAKE_EVENT, FAKE_KINDS
} fake_kind;

/* How many devices the fake runtime reports from now on (1 at the start); all of them
 * share host memory, device i on PCI bus 0x41 + i. */
void fake_hip_set_devices(int count);

/* How many of 'kind' are allocated and not yet freed. */
long fake_hip_live(fake_kind kind);

#endif
