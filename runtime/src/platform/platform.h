/* Every GPU runtime call the entry points make goes through here, so that a test can make
 * any of them fail (tkh_context_inject_fault). Each returns the runtime's error code;
 * those that can fail count against the plan of their fault kind. */
#ifndef TOKITAI_HIP_PLATFORM_H
#define TOKITAI_HIP_PLATFORM_H

#include "internal.h"

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

/* Whether the last faultable call on this thread failed by injection; forgotten at the
 * start of each public call. */
TKH_HIDDEN int tkhi_fault_was_injected(void);
TKH_HIDDEN void tkhi_fault_forget(void);

#endif
