/* Devices: what the runtime sees of each GPU, and which one a context will use. */
#ifndef TOKITAI_HIP_DEVICE_H
#define TOKITAI_HIP_DEVICE_H

#include <stddef.h>

#include "tokitai_hip/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Select the device from the environment: TOKITAI_HIP_DEVICE (an index) when set; else,
 * in a test that ctest runs with a resource spec file, the GPU ctest gave its first
 * resource group (CTEST_RESOURCE_GROUP_0_GPUS = "id:N,slots:M", the id being a device
 * index: scripts/gpu-resource-spec.sh writes such a file); else device 0. */
#define TKH_DEVICE_FROM_ENV (-1)

/* What the runtime sees of one device, and whether it can be used. */
typedef struct tkh_device_report {
    int available;            /* 1 when the selected device can run kernels */
    char reason[256];         /* why not, when available == 0 */
    char platform[16];        /* "amd" or "nvidia": the platform this library was built for */
    int device_count;
    int selected;             /* device index, -1 when none */
    char name[128];
    char arch[64];            /* "gfx90a:sramecc+:xnack-" on amd, "sm_90" on nvidia */
    int compute_units;        /* CUs on amd, SMs on nvidia */
    size_t global_memory;     /* bytes */
    int runtime_version;
    int driver_version;
    char fingerprint[72];     /* "sha256:" + SHA-256 of the fields above that identify it */
    char pci_bus_id[16];      /* "dddd:bb:dd.0" (domain, bus, device): which card, beside the index */
} tkh_device_report;

/* Fills 'out' for device 'device' (or TKH_DEVICE_FROM_ENV). Always fills 'out', also on
 * failure, with available = 0 and the reason.
 * Fails with: TKH_ERR_NULL_POINTER (out), TKH_ERR_INVALID_ARGUMENT (device < -1, or a
 * TOKITAI_HIP_DEVICE that is not a non-negative integer), TKH_ERR_NO_DEVICE (the runtime
 * finds none, or reports an error while counting; or the library was built without device
 * code, TOKITAI_HIP_DEVICE_CODE=OFF), TKH_ERR_DEVICE_INDEX (no such index),
 * TKH_ERR_RUNTIME (a property query failed). */
TKH_API tkh_status tkh_device_query(int device, tkh_device_report *out);

#ifdef __cplusplus
}
#endif

#endif
