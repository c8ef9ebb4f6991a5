/* A context's cached buffers (workspace.c). The caller holds the context's lock. */
#ifndef TOKITAI_HIP_WORKSPACE_H
#define TOKITAI_HIP_WORKSPACE_H

#include "internal.h"

/* Makes 'b' hold at least 'bytes' of device (or pinned host) memory; its content is
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

#endif
