/* Contexts: one device, chosen and checked once, and what calls on it reuse. */
#include <stdint.h>
#include <stdlib.h>

#include "platform/platform.h"

/* TOKITAI_HIP_CHUNK_BYTES (at least 4096), else 16 MiB: large enough that a chunk's
 * transfers dwarf the per-chunk costs, small enough that staging stays modest. */
static size_t chunk_bytes(void)
{
    const char *env = getenv("TOKITAI_HIP_CHUNK_BYTES");
    if (env != NULL && *env != '\0') {
        char *end = NULL;
        unsigned long long v = strtoull(env, &end, 10);
        if (*end == '\0' && v >= 4096 && v <= SIZE_MAX)
            return (size_t)v;
    }
    return (size_t)16 << 20;
}

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
    int err = pthread_mutex_init(&ctx->lock, NULL);
    if (err != 0) {
        free(ctx);
        return tkhi_fail(TKH_ERR_RUNTIME, "tkh_context_create: making its lock failed (error %d)", err);
    }
    for (int k = 0; k < TKH_FAULT_KINDS; ++k) {
        atomic_init(&ctx->fault_countdown[k], 0);
        atomic_init(&ctx->fault_fired[k], 0);
    }
    ctx->oracle.mode = TKH_ORACLE_FULL;
    ctx->device_oracle.mode = TKH_ORACLE_OFF;
    ctx->chunk_bytes = chunk_bytes();
    ctx->corrupt_index = SIZE_MAX;
    *out = ctx;
    return TKH_OK;
}

void tkh_context_destroy(tkh_context *ctx)
{
    if (ctx == NULL)
        return;
    if (ctx->device.available && tkhi_set_device(ctx) == 0)
        tkhi_release_buffers(ctx);
    pthread_mutex_destroy(&ctx->lock);
    free(ctx);
}

tkh_status tkh_context_trim(tkh_context *ctx)
{
    tkhi_clear_error();
    if (ctx == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "tkh_context_trim: ctx is NULL");
    if (!ctx->device.available)
        return TKH_OK;
    pthread_mutex_lock(&ctx->lock);
    int err = tkhi_set_device(ctx);
    if (err == 0)
        tkhi_release_buffers(ctx);
    pthread_mutex_unlock(&ctx->lock);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_RUNTIME, err, "tkh_context_trim: selecting device %d failed",
            ctx->device.selected);
    return TKH_OK;
}

const tkh_device_report *tkh_context_device(const tkh_context *ctx)
{
    return ctx ? &ctx->device : NULL;
}

/* Both policies' setter, named 'fn' in messages. */
static tkh_status set_policy(const char *fn, tkh_context *ctx, const tkh_oracle_policy *policy,
    int device)
{
    tkhi_clear_error();
    if (ctx == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: ctx is NULL", fn);
    if (policy == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: policy is NULL", fn);
    if ((unsigned)policy->mode > TKH_ORACLE_PROJECTED)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT,
            "%s: mode %d is not a tkh_oracle_mode (0 full, 1 sampled, 2 off, 3 projected)", fn, (int)policy->mode);
    if (policy->mode == TKH_ORACLE_SAMPLED && policy->samples == 0)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: sampled with 0 samples: expected at least 1", fn);
    pthread_mutex_lock(&ctx->lock);
    *(device ? &ctx->device_oracle : &ctx->oracle) = *policy;
    pthread_mutex_unlock(&ctx->lock);
    return TKH_OK;
}

tkh_status tkh_context_set_oracle(tkh_context *ctx, const tkh_oracle_policy *policy)
{
    return set_policy("tkh_context_set_oracle", ctx, policy, 0);
}

tkh_status tkh_context_set_device_oracle(tkh_context *ctx, const tkh_oracle_policy *policy)
{
    return set_policy("tkh_context_set_device_oracle", ctx, policy, 1);
}

tkh_status tkh_context_corrupt_next_output(tkh_context *ctx, size_t index, unsigned bit)
{
    tkhi_clear_error();
    if (ctx == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "tkh_context_corrupt_next_output: ctx is NULL");
    if (bit > 63)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT,
            "tkh_context_corrupt_next_output: bit %u is out of range (0..63)", bit);
    pthread_mutex_lock(&ctx->lock);
    ctx->corrupt_index = index;
    ctx->corrupt_bit = bit;
    pthread_mutex_unlock(&ctx->lock);
    return TKH_OK;
}
