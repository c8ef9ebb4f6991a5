/* A fake HIP runtime for the tests that run the runtime's host path without a GPU: one
 * "gfx90a" device (or as many as fake_hip_set_devices says, each on a bus of its own) whose
 * memory is host memory, streams that run every copy at once, and
 * counts of everything live so a test can prove nothing leaks. Only the calls the
 * runtime's own sources make (runtime/src) are here; kernels are the test's own host
 * functions. */
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "fake_hip.h"

static atomic_long live[FAKE_KINDS];

long fake_hip_live(fake_kind kind)
{
    return atomic_load(&live[kind]);
}

static hipError_t track(void **ptr, size_t size, fake_kind kind)
{
    *ptr = malloc(size ? size : 1);
    if (*ptr == NULL)
        return hipErrorOutOfMemory;
    atomic_fetch_add(&live[kind], 1);
    return hipSuccess;
}

static hipError_t untrack(void *ptr, fake_kind kind)
{
    if (ptr != NULL) {
        free(ptr);
        atomic_fetch_sub(&live[kind], 1);
    }
    return hipSuccess;
}

static atomic_int devices = 1;

void fake_hip_set_devices(int count)
{
    atomic_store(&devices, count);
}

hipError_t hipGetDeviceCount(int *count) { *count = atomic_load(&devices); return hipSuccess; }
static _Thread_local int current; /* the calling thread's device, as HIP keeps it */

hipError_t hipSetDevice(int device)
{
    if (device < 0 || device >= atomic_load(&devices))
        return hipErrorInvalidDevice;
    current = device;
    return hipSuccess;
}
hipError_t hipGetDevice(int *device) { *device = current; return hipSuccess; }
hipError_t hipRuntimeGetVersion(int *v) { *v = 1; return hipSuccess; }
hipError_t hipDriverGetVersion(int *v) { *v = 1; return hipSuccess; }

hipError_t hipGetDeviceProperties(hipDeviceProp_t *p, int device)
{
    if (device < 0 || device >= atomic_load(&devices))
        return hipErrorInvalidDevice;
    memset(p, 0, sizeof *p);
    strcpy(p->name, "fake device (host memory)");
    p->pciBusID = 0x41 + device; /* one card a bus, as on a machine of several GPUs */
    strcpy(p->gcnArchName, "gfx90a:sramecc+:xnack-");
    p->totalGlobalMem = (size_t)1 << 30;
    p->multiProcessorCount = 4;
    return hipSuccess;
}

hipError_t hipDeviceGetAttribute(int *value, hipDeviceAttribute_t attr, int device)
{
    (void)attr;
    (void)device;
    *value = 4;
    return hipSuccess;
}

hipError_t hipMalloc(void **ptr, size_t size) { return track(ptr, size, FAKE_DEVICE_MEMORY); }
hipError_t hipFree(void *ptr) { return untrack(ptr, FAKE_DEVICE_MEMORY); }
hipError_t hipHostMalloc(void **ptr, size_t size, unsigned int flags)
{
    (void)flags;
    return track(ptr, size, FAKE_PINNED_MEMORY);
}
hipError_t hipHostFree(void *ptr) { return untrack(ptr, FAKE_PINNED_MEMORY); }

hipError_t hipMemcpyAsync(void *dst, const void *src, size_t bytes, hipMemcpyKind kind, hipStream_t stream)
{
    (void)kind;
    (void)stream;
    memmove(dst, src, bytes);
    return hipSuccess;
}

hipError_t hipStreamCreateWithFlags(hipStream_t *stream, unsigned int flags)
{
    (void)flags;
    return track((void **)stream, 1, FAKE_STREAM);
}
hipError_t hipStreamDestroy(hipStream_t stream) { return untrack(stream, FAKE_STREAM); }
hipError_t hipStreamSynchronize(hipStream_t stream) { (void)stream; return hipSuccess; }

hipError_t hipEventCreateWithFlags(hipEvent_t *event, unsigned flags)
{
    (void)flags;
    return track((void **)event, 1, FAKE_EVENT);
}
hipError_t hipEventDestroy(hipEvent_t event) { return untrack(event, FAKE_EVENT); }
hipError_t hipEventRecord(hipEvent_t event, hipStream_t stream) { (void)event; (void)stream; return hipSuccess; }
hipError_t hipEventSynchronize(hipEvent_t event) { (void)event; return hipSuccess; }

const char *hipGetErrorName(hipError_t err)
{
    return err == hipErrorOutOfMemory ? "hipErrorOutOfMemory"
        : err == hipErrorInvalidValue ? "hipErrorInvalidValue" : "hipErrorFake";
}

const char *hipGetErrorString(hipError_t err)
{
    return err == hipErrorOutOfMemory ? "out of memory" : "fake runtime error";
}
