/* The buffers, stream and events a context keeps between calls. The caller holds the
 * context's lock. Growing frees the old buffer first (the runtime's free waits for the
 * device), so a context holds at most one buffer per role. */
#include "platform.h"

static tkh_status grow(tkh_context *ctx, tkhi_buffer *b, size_t bytes, const char *what,
    int pinned)
{
    if (b->bytes >= bytes)
        return TKH_OK;
    (pinned ? tkhi_pinned_free : tkhi_device_free)(b->ptr);
    b->ptr = NULL;
    b->bytes = 0;
    int err = pinned ? tkhi_pinned_alloc(ctx, &b->ptr, bytes) : tkhi_device_alloc(ctx, &b->ptr, bytes);
    if (err != 0)
        return tkhi_fail_runtime(pinned ? TKH_ERR_HOST_ALLOC : TKH_ERR_DEVICE_ALLOC, err,
            "allocating %zu bytes of %s memory for %s on device %d failed", bytes,
            pinned ? "pinned host" : "device", what, ctx->device.selected);
    b->bytes = bytes;
    return TKH_OK;
}

tkh_status tkhi_device_buffer(tkh_context *ctx, tkhi_buffer *b, size_t bytes, const char *what)
{
    return grow(ctx, b, bytes, what, 0);
}

tkh_status tkhi_pinned_buffer(tkh_context *ctx, tkhi_buffer *b, size_t bytes, const char *what)
{
    return grow(ctx, b, bytes, what, 1);
}

tkh_status tkhi_host_streams(tkh_context *ctx)
{
    int err = 0;
    for (int s = 0; s < TKHI_SLOTS && err == 0; ++s) {
        if (ctx->slots[s].stream == NULL)
            err = tkhi_stream_create(ctx, &ctx->slots[s].stream);
        if (err == 0 && ctx->slots[s].done == NULL)
            err = tkhi_event_create(ctx, &ctx->slots[s].done);
    }
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_RUNTIME, err,
            "making the host path's streams and events on device %d failed", ctx->device.selected);
    return TKH_OK;
}

tkh_status tkhi_stream_partials(tkh_context *ctx, void *stream, size_t bytes, void **out)
{
    *out = NULL;
    tkhi_partials *free_slot = NULL;
    for (int p = 0; p < TKHI_PARTIAL_STREAMS; ++p) {
        tkhi_partials *slot = &ctx->partials[p];
        if (slot->buffer.ptr != NULL && slot->stream == stream) {
            free_slot = slot;
            break;
        }
        if (slot->buffer.ptr == NULL && free_slot == NULL)
            free_slot = slot;
    }
    if (free_slot == NULL)
        return TKH_OK;
    if (free_slot->buffer.ptr != NULL && free_slot->buffer.bytes < bytes)
        tkhi_stream_drain(stream); /* a kernel enqueued earlier may still read the old one */
    tkh_status st = tkhi_device_buffer(ctx, &free_slot->buffer, bytes, "a launch's scratch (partials, operand copies)");
    if (st != TKH_OK)
        return st;
    free_slot->stream = stream;
    *out = free_slot->buffer.ptr;
    return TKH_OK;
}

static void release(tkhi_buffer *b, void (*free_fn)(void *))
{
    free_fn(b->ptr);
    b->ptr = NULL;
    b->bytes = 0;
}

void tkhi_release_buffers(tkh_context *ctx)
{
    for (int s = 0; s < TKHI_SLOTS; ++s) {
        tkhi_slot *slot = &ctx->slots[s];
        if (slot->stream != NULL)
            tkhi_stream_drain(slot->stream);
        tkhi_stream_destroy(slot->stream);
        slot->stream = NULL;
        for (int i = 0; i < TKH_MAX_INPUTS; ++i) {
            release(&slot->dev_in[i], tkhi_device_free);
            release(&slot->pinned_in[i], tkhi_pinned_free);
        }
        for (int o = 0; o < TKH_MAX_OUTPUTS; ++o) {
            release(&slot->dev_out[o], tkhi_device_free);
            release(&slot->pinned_out[o], tkhi_pinned_free);
        }
        release(&slot->scratch, tkhi_device_free);
        tkhi_event_destroy(slot->done);
        slot->done = NULL;
    }
    for (int p = 0; p < TKHI_PARTIAL_STREAMS; ++p) {
        release(&ctx->partials[p].buffer, tkhi_device_free);
        ctx->partials[p].stream = NULL;
    }
}
