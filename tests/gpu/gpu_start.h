/* How every GPU test starts: skipped (exit 77) where there is no device; the seed
 * (TKH_TEST_SEED, else the test's fixed one: the same verdict on every run), printed with
 * the device it runs on; a context on the device the environment chooses
 * (TKH_DEVICE_FROM_ENV: ctest's resource group or TOKITAI_HIP_DEVICE). */
#ifndef TOKITAI_HIP_TEST_GPU_START_H
#define TOKITAI_HIP_TEST_GPU_START_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "tokitai_hip/tokitai_hip.h"

/* Returns -1 to go on with *seed and *ctx set, else the test's exit status. */
static inline int gpu_test_start(uint64_t fixed_seed, uint64_t *seed, tkh_context **ctx)
{
    setvbuf(stdout, NULL, _IOLBF, 0); /* the seed line survives an abort or a kill */
    tkh_device_report dev;
    if (tkh_device_query(TKH_DEVICE_FROM_ENV, &dev) == TKH_ERR_NO_DEVICE) {
        printf("SKIP: %s\n", dev.reason);
        return 77;
    }
    const char *env = getenv("TKH_TEST_SEED");
    *seed = env ? strtoull(env, NULL, 0) : fixed_seed;
    printf("device %d (PCI %s): %s (%s); seed %" PRIu64 " (replay with TKH_TEST_SEED=%" PRIu64 ")\n",
        dev.selected, dev.pci_bus_id, dev.name, dev.arch, *seed, *seed);
    const tkh_status st = tkh_context_create(ctx, TKH_DEVICE_FROM_ENV);
    if (st != TKH_OK) {
        printf("FAIL: %s: %s\n", tkh_status_name(st), tkh_last_error());
        return 1;
    }
    return -1;
}

#endif
