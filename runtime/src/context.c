/* Contexts: one device, chosen and checked once. */
#include <stdint.h>
#include <stdlib.h>

#include "internal.h"

tkh_status tkh_context_create(tkh_context **out, int device)
{
    tkhi_clear_error();
    if (out == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "tkh_context_create: out is NULL");
    *out = NULL;
    tkh_context *ctx = calloc(1, sizeof *ctx);
    if (ctx == NULL)
        return tkhi_fail(TKH_ERR_HOST_ALLOC, "tkh_context_create: allocating %zu bytes failed",
            sizeof *ctx);
    tkh_status st = tkh_device_query(device, &ctx->device);
    if (st != TKH_OK) {
        free(ctx);
        return st;
    }
    ctx->corrupt_index = SIZE_MAX;
    *out = ctx;
    return TKH_OK;
}

void tkh_context_destroy(tkh_context *ctx)
{
    free(ctx);
}

const tkh_device_report *tkh_context_device(const tkh_context *ctx)
{
    return ctx ? &ctx->device : NULL;
}

tkh_status tkh_context_corrupt_next_output(tkh_context *ctx, size_t index, unsigned bit)
{
    tkhi_clear_error();
    if (ctx == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "tkh_context_corrupt_next_output: ctx is NULL");
    if (bit > 63)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT,
            "tkh_context_corrupt_next_output: bit %u is out of range (0..63)", bit);
    ctx->corrupt_index = index;
    ctx->corrupt_bit = bit;
    return TKH_OK;
}
