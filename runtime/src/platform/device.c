/* Device discovery and the capability report. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sha2.h>

#include "platform.h"
#include "tokitai_hip/codegen/hip_platform.h"

#if defined(TKH_PLATFORM_NVIDIA)
#define TKHI_PLATFORM "nvidia"
#else
#define TKHI_PLATFORM "amd"
#endif

/* Parses a device index from the variable 'name' (value 'text', or after "id:" in a
 * CTest resource group's "id:1,slots:1"). */
static tkh_status parse_index(const char *name, const char *text, const char *value, int *index)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(text, &end, 10);
    if (errno != 0 || end == text || (*end != '\0' && *end != ',') || v < 0 || v > INT_MAX)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT,
            "%s='%s' is invalid: expected a device index (0, 1, ...)%s", name, value,
            text == value ? "" : " as id:N,slots:M");
    *index = (int)v;
    return TKH_OK;
}

/* TKH_DEVICE_FROM_ENV: TOKITAI_HIP_DEVICE when set; else, in a test ctest runs with a
 * resource spec, the GPU of its first resource group (CTEST_RESOURCE_GROUP_0_GPUS =
 * "id:1,slots:1"); else 0. */
static tkh_status resolve_index(int device, int *index)
{
    if (device >= 0) {
        *index = device;
        return TKH_OK;
    }
    if (device != TKH_DEVICE_FROM_ENV)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT,
            "device index %d is invalid: expected >= 0, or TKH_DEVICE_FROM_ENV (-1)", device);
    const char *env = getenv("TOKITAI_HIP_DEVICE");
    if (env != NULL && env[0] != '\0')
        return parse_index("TOKITAI_HIP_DEVICE", env, env, index);
    const char *group = getenv("CTEST_RESOURCE_GROUP_0_GPUS");
    if (group != NULL && group[0] != '\0') {
        if (strncmp(group, "id:", 3) != 0)
            return tkhi_fail(TKH_ERR_INVALID_ARGUMENT,
                "CTEST_RESOURCE_GROUP_0_GPUS='%s' is invalid: expected id:N,slots:M", group);
        return parse_index("CTEST_RESOURCE_GROUP_0_GPUS", group + 3, group, index);
    }
    *index = 0;
    return TKH_OK;
}

static tkh_status read_arch(int index, const hipDeviceProp_t *props, char *arch, size_t size)
{
#if defined(TKH_PLATFORM_NVIDIA)
    int major = 0, minor = 0;
    hipError_t err = hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, index);
    if (err == hipSuccess)
        err = hipDeviceGetAttribute(&minor, hipDeviceAttributeComputeCapabilityMinor, index);
    if (err != hipSuccess)
        return tkhi_fail_runtime(TKH_ERR_RUNTIME, (int)err,
            "reading the compute capability of device %d failed", index);
    snprintf(arch, size, "sm_%d%d", major, minor);
    (void)props;
#else
    (void)index;
    tkhi_copy(arch, size, props->gcnArchName);
#endif
    return TKH_OK;
}

static void fingerprint(tkh_device_report *r)
{
    char identity[512];
    char hex[SHA256_DIGEST_STRING_LENGTH];
    int len = snprintf(identity, sizeof identity,
        "platform=%s;name=%s;arch=%s;units=%d;memory=%zu;runtime=%d;driver=%d", r->platform,
        r->name, r->arch, r->compute_units, r->global_memory, r->runtime_version,
        r->driver_version);
    if (len < 0 || (size_t)len >= sizeof identity)
        len = (int)strlen(identity);
    SHA256Data((const uint8_t *)identity, (size_t)len, hex);
    snprintf(r->fingerprint, sizeof r->fingerprint, "sha256:%s", hex);
}

static tkh_status query(int device, tkh_device_report *out)
{
    int index = 0;
    tkh_status st = resolve_index(device, &index);
    if (st != TKH_OK)
        return st;
#if defined(TKH_NO_DEVICE_CODE)
    /* Before any HIP call: a host-only build registered no device code HIP could load. */
    out->device_count = 0;
    return tkhi_fail(TKH_ERR_NO_DEVICE, "no " TKHI_PLATFORM " GPU is usable: this build has no device "
        "code (TOKITAI_HIP_DEVICE_CODE=OFF, host code only)");
#endif
    hipError_t err = hipGetDeviceCount(&out->device_count);
    if (err != hipSuccess) {
        out->device_count = 0;
        return tkhi_fail_runtime(TKH_ERR_NO_DEVICE, (int)err,
            "no " TKHI_PLATFORM " GPU is usable: counting devices failed");
    }
    if (out->device_count == 0)
        return tkhi_fail(TKH_ERR_NO_DEVICE, "no " TKHI_PLATFORM " GPU is usable: the runtime found 0 devices");
    if (index >= out->device_count)
        return tkhi_fail(TKH_ERR_DEVICE_INDEX, "device %d requested, but %d present (valid: 0..%d)",
            index, out->device_count, out->device_count - 1);
    hipDeviceProp_t props;
    memset(&props, 0, sizeof props);
    err = hipGetDeviceProperties(&props, index);
    if (err != hipSuccess)
        return tkhi_fail_runtime(TKH_ERR_RUNTIME, (int)err,
            "reading the properties of device %d failed", index);
    out->selected = index;
    tkhi_copy(out->name, sizeof out->name, props.name);
    snprintf(out->pci_bus_id, sizeof out->pci_bus_id, "%04x:%02x:%02x.0", (unsigned)props.pciDomainID & 0xFFFFu,
        (unsigned)props.pciBusID & 0xFFu, (unsigned)props.pciDeviceID & 0xFFu);
    out->global_memory = props.totalGlobalMem;
    st = read_arch(index, &props, out->arch, sizeof out->arch);
    if (st != TKH_OK)
        return st;
    err = hipDeviceGetAttribute(&out->compute_units, hipDeviceAttributeMultiprocessorCount, index);
    if (err != hipSuccess)
        return tkhi_fail_runtime(TKH_ERR_RUNTIME, (int)err,
            "reading the compute unit count of device %d failed", index);
    hipRuntimeGetVersion(&out->runtime_version);
    hipDriverGetVersion(&out->driver_version);
    fingerprint(out);
    out->available = 1;
    return TKH_OK;
}

tkh_status tkh_device_query(int device, tkh_device_report *out)
{
    tkhi_clear_error();
    if (out == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "tkh_device_query: out is NULL");
    memset(out, 0, sizeof *out);
    out->selected = -1;
    tkhi_copy(out->platform, sizeof out->platform, TKHI_PLATFORM);
    tkh_status st = query(device, out);
    if (st != TKH_OK)
        tkhi_copy(out->reason, sizeof out->reason, tkh_last_error());
    return st;
}
