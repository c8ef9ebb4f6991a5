/* The platform layer, its one door: a context's state, and every GPU runtime call the
 * entry points make, each through here so that a test can make any of them fail
 * (tkh_context_inject_fault); each returns the runtime's error code, and those that can
 * fail count against the plan of their fault kind. Also the context's cached buffers
 * (workspace.c) and the device query (device.c). */
#ifndef TOKITAI_HIP_PLATFORM_H
#define TOKITAI_HIP_PLATFORM_H

#include <pthread.h>
#include <stdatomic.h>

#include "base/base.h"

/* Host path: chunks in flight. With three instead of two, the H200 builder's host path at
 * 2^28 took 0.92 x the time on average over 15 cases (docs/performance.md). */
#define TKHI_SLOTS 3
#define TKHI_PARTIAL_STREAMS 8 /* device path: streams with cached reduction partials */

/* Buffers reused from call to call. Each grows when a call needs more; none shrinks
 * before tkh_context_trim or the context's end. */
typedef struct tkhi_buffer {
    void *ptr;
    size_t bytes;
} tkhi_buffer;

/* One piece in flight on the host path: its stream, device buffers (and a reduction's
 * partials), the pinned staging copies of its inputs and outputs, and the event that says
 * its copy back has finished. Slots on their own streams let one piece's copy in overlap
 * another's copy out. */
typedef struct tkhi_slot {
    void *stream;  /* hipStream_t */
    void *done;    /* hipEvent_t */
    tkhi_buffer dev_in[TKH_MAX_INPUTS], dev_out[TKH_MAX_OUTPUTS], scratch;
    tkhi_buffer pinned_in[TKH_MAX_INPUTS], pinned_out[TKH_MAX_OUTPUTS];
} tkhi_slot;

/* A reduction's partials on the device path, one buffer per stream: work on one stream
 * runs in order, so a buffer is never used by two kernels at once. */
typedef struct tkhi_partials {
    void *stream;
    tkhi_buffer buffer;
} tkhi_partials;

struct tkh_context {
    tkh_device_report device;

    /* Guards everything below except the fault plan (atomics). */
    pthread_mutex_t lock;
    tkh_oracle_policy oracle;
    tkh_oracle_policy device_oracle; /* tensor calls over device tensors */
    size_t corrupt_index;    /* test hook: element to corrupt on the next run, or SIZE_MAX */
    unsigned corrupt_bit;
    size_t chunk_bytes;      /* host path: bytes of each input per chunk */
    tkhi_slot slots[TKHI_SLOTS];
    tkhi_partials partials[TKHI_PARTIAL_STREAMS];

    /* The kernel admitted last on this context's device (tkhi_admit). */
    _Atomic(const tkh_kernel_info *) admitted;

    /* Test hook: per fault kind, calls left before the injected failure (0: none planned),
     * and whether the last plan fired. */
    atomic_uint fault_countdown[TKH_FAULT_KINDS];
    atomic_int fault_fired[TKH_FAULT_KINDS];
};

TKH_HIDDEN int tkhi_set_device(tkh_context *ctx);
TKH_HIDDEN int tkhi_device_alloc(tkh_context *ctx, void **ptr, size_t bytes);
TKH_HIDDEN void tkhi_device_free(void *ptr);
TKH_HIDDEN int tkhi_pinned_alloc(tkh_context *ctx, void **ptr, size_t bytes);
TKH_HIDDEN void tkhi_pinned_free(void *ptr);
TKH_HIDDEN int tkhi_stream_create(tkh_context *ctx, void **stream);
TKH_HIDDEN void tkhi_stream_destroy(void *stream);
TKH_HIDDEN int tkhi_event_create(tkh_context *ctx, void **event);
TKH_HIDDEN void tkhi_event_destroy(void *event);

/* Enqueued on 'stream'; a pageable host buffer makes the copy synchronous. */
TKH_HIDDEN int tkhi_copy_to_device(tkh_context *ctx, void *dst, const void *src, size_t bytes, void *stream);
TKH_HIDDEN int tkhi_copy_to_host(tkh_context *ctx, void *dst, const void *src, size_t bytes, void *stream);
TKH_HIDDEN int tkhi_launch(tkh_context *ctx, const tkh_kernel_info *kernel, const void *const *inputs,
    void *const *outputs, const void *const *scalars, size_t n, unsigned grid, unsigned block,
    void *scratch, void *stream);
TKH_HIDDEN int tkhi_launch_plan(tkh_context *ctx, const tkh_kernel_info *kernel, const void *const *inputs,
    void *const *outputs, const void *const *scalars, const tkh_plan *plan, unsigned grid, unsigned block,
    void *scratch, void *stream);
TKH_HIDDEN int tkhi_event_record(tkh_context *ctx, void *event, void *stream);
TKH_HIDDEN int tkhi_event_wait(tkh_context *ctx, void *event);
TKH_HIDDEN int tkhi_stream_wait(tkh_context *ctx, void *stream);

/* Waits for 'stream' (not faulted; errors ignored): cleanup after a failure. */
TKH_HIDDEN void tkhi_stream_drain(void *stream);

/* The context's cached buffers (workspace.c); the caller holds the context's lock.
 * Makes 'b' hold at least 'bytes' of device (or pinned host) memory; its content is
 * undefined after growing. On failure 'b' is empty and the status names 'what'.
 * Fails with: TKH_ERR_DEVICE_ALLOC (TKH_ERR_HOST_ALLOC for pinned memory). */
TKH_HIDDEN tkh_status tkhi_device_buffer(tkh_context *ctx, tkhi_buffer *b, size_t bytes, const char *what);
TKH_HIDDEN tkh_status tkhi_pinned_buffer(tkh_context *ctx, tkhi_buffer *b, size_t bytes, const char *what);

/* Makes the slots' streams and events. Fails with: TKH_ERR_RUNTIME. */
TKH_HIDDEN tkh_status tkhi_host_streams(tkh_context *ctx);

/* The partials buffer of 'stream', at least 'bytes'; *out is NULL (and the status
 * TKH_OK) when every slot belongs to another stream.
 * Fails with: TKH_ERR_DEVICE_ALLOC. */
TKH_HIDDEN tkh_status tkhi_stream_partials(tkh_context *ctx, void *stream, size_t bytes, void **out);


/* Frees everything the context cached; the caller holds the lock. */
TKH_HIDDEN void tkhi_release_buffers(tkh_context *ctx);

#endif
