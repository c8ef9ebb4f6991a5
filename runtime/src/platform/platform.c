/* The platform layer of the entry points, with the fault hook in front of each call. */
#include "platform.h"
#include "tokitai_hip/codegen/hip_platform.h"

/* 1 when this call is the one the plan for 'kind' makes fail. */
static int fault(tkh_context *ctx, tkh_fault kind)
{
    tkhi_fault_mark(0);
    unsigned left = atomic_load(&ctx->fault_countdown[kind]);
    while (left > 0) {
        if (atomic_compare_exchange_weak(&ctx->fault_countdown[kind], &left, left - 1)) {
            if (left > 1)
                return 0;
            atomic_store(&ctx->fault_fired[kind], 1);
            tkhi_fault_mark(1);
            return 1;
        }
    }
    return 0;
}

#define FAULT(kind, code)                 \
    do {                                  \
        if (fault(ctx, (kind)))           \
            return (int)(code);           \
    } while (0)

tkh_status tkh_context_inject_fault(tkh_context *ctx, tkh_fault kind, unsigned skip)
{
    tkhi_clear_error();
    if (ctx == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "tkh_context_inject_fault: ctx is NULL");
    if ((unsigned)kind >= TKH_FAULT_KINDS)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT,
            "tkh_context_inject_fault: kind %d is not a tkh_fault (0..%d)", (int)kind, TKH_FAULT_KINDS - 1);
    atomic_store(&ctx->fault_fired[kind], 0);
    atomic_store(&ctx->fault_countdown[kind], skip == TKH_FAULT_NEVER ? 0u : skip + 1);
    return TKH_OK;
}

int tkh_context_fault_fired(const tkh_context *ctx, tkh_fault kind)
{
    if (ctx == NULL || (unsigned)kind >= TKH_FAULT_KINDS)
        return -1;
    return atomic_load(&((tkh_context *)ctx)->fault_fired[kind]);
}

/* Only where the thread's current device is another: getting it reads the thread's state,
 * setting it (cudaSetDevice under HIP on NVIDIA) goes to the driver, once a call. PyTorch's
 * c10::cuda::SetDevice asks first too. */
int tkhi_set_device(tkh_context *ctx)
{
    int current = -1;
    if (hipGetDevice(&current) == hipSuccess && current == ctx->device.selected)
        return 0;
    return (int)hipSetDevice(ctx->device.selected);
}

int tkhi_device_alloc(tkh_context *ctx, void **ptr, size_t bytes)
{
    *ptr = NULL;
    FAULT(TKH_FAULT_ALLOC, hipErrorOutOfMemory);
    int err = (int)hipMalloc(ptr, bytes);
    if (err != 0)
        *ptr = NULL;
    return err;
}

void tkhi_device_free(void *ptr)
{
    if (ptr != NULL)
        hipFree(ptr);
}

int tkhi_pinned_alloc(tkh_context *ctx, void **ptr, size_t bytes)
{
    *ptr = NULL;
    FAULT(TKH_FAULT_ALLOC, hipErrorOutOfMemory);
    int err = (int)hipHostMalloc(ptr, bytes, hipHostMallocDefault);
    if (err != 0)
        *ptr = NULL;
    return err;
}

void tkhi_pinned_free(void *ptr)
{
    if (ptr != NULL)
        hipHostFree(ptr);
}

int tkhi_stream_create(tkh_context *ctx, void **stream)
{
    *stream = NULL;
    FAULT(TKH_FAULT_ALLOC, hipErrorOutOfMemory);
    hipStream_t s = NULL;
    int err = (int)hipStreamCreateWithFlags(&s, hipStreamNonBlocking);
    *stream = err == 0 ? (void *)s : NULL;
    return err;
}

void tkhi_stream_destroy(void *stream)
{
    if (stream != NULL)
        hipStreamDestroy((hipStream_t)stream);
}

int tkhi_event_create(tkh_context *ctx, void **event)
{
    *event = NULL;
    FAULT(TKH_FAULT_ALLOC, hipErrorOutOfMemory);
    hipEvent_t e = NULL;
    int err = (int)hipEventCreateWithFlags(&e, hipEventDisableTiming);
    *event = err == 0 ? (void *)e : NULL;
    return err;
}

void tkhi_event_destroy(void *event)
{
    if (event != NULL)
        hipEventDestroy((hipEvent_t)event);
}

int tkhi_copy_to_device(tkh_context *ctx, void *dst, const void *src, size_t bytes, void *stream)
{
    FAULT(TKH_FAULT_COPY, hipErrorInvalidValue);
    return (int)hipMemcpyAsync(dst, src, bytes, hipMemcpyHostToDevice, (hipStream_t)stream);
}

int tkhi_copy_to_host(tkh_context *ctx, void *dst, const void *src, size_t bytes, void *stream)
{
    FAULT(TKH_FAULT_COPY, hipErrorInvalidValue);
    return (int)hipMemcpyAsync(dst, src, bytes, hipMemcpyDeviceToHost, (hipStream_t)stream);
}

int tkhi_launch(tkh_context *ctx, const tkh_kernel_info *kernel, const void *const *inputs,
    void *const *outputs, const void *const *scalars, size_t n, unsigned grid, unsigned block,
    void *scratch, void *stream)
{
    FAULT(TKH_FAULT_LAUNCH, hipErrorInvalidValue);
    return kernel->launch(inputs, outputs, scalars, n, grid, block, scratch, stream);
}

int tkhi_launch_plan(tkh_context *ctx, const tkh_kernel_info *kernel, const void *const *inputs,
    void *const *outputs, const void *const *scalars, const tkh_plan *plan, unsigned grid, unsigned block,
    void *scratch, void *stream)
{
    FAULT(TKH_FAULT_LAUNCH, hipErrorInvalidValue);
    return kernel->launch_plan(inputs, outputs, scalars, plan, grid, block, scratch, stream);
}

int tkhi_event_record(tkh_context *ctx, void *event, void *stream)
{
    FAULT(TKH_FAULT_SYNC, hipErrorInvalidValue);
    return (int)hipEventRecord((hipEvent_t)event, (hipStream_t)stream);
}

int tkhi_event_wait(tkh_context *ctx, void *event)
{
    FAULT(TKH_FAULT_SYNC, hipErrorInvalidValue);
    return (int)hipEventSynchronize((hipEvent_t)event);
}

int tkhi_stream_wait(tkh_context *ctx, void *stream)
{
    FAULT(TKH_FAULT_SYNC, hipErrorInvalidValue);
    return (int)hipStreamSynchronize((hipStream_t)stream);
}

void tkhi_stream_drain(void *stream)
{
    (void)hipStreamSynchronize((hipStream_t)stream);
}
