/* Argument checks, launch shapes, and the device path (tkh_kernel_launch). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>

#include "entry.h"
#include "platform.h"
#include "workspace.h"

#define TKHI_BLOCKS_PER_UNIT 32u   /* reductions: partials per compute unit */
#define TKHI_MAX_GRID ((1u << 24) - 1) /* x 256 threads stays below HIP's 2^32 work-items */

const char *const tkhi_input_names[TKHI_MAX_INPUTS] = { "input 0 (lhs)", "input 1 (rhs)", "input 2" };

void tkhi_evidence(tkh_report *r, const char *fmt, ...)
{
    if (r == NULL || r->evidence_count >= TKH_REPORT_MAX_EVIDENCE)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->evidence[r->evidence_count++], sizeof r->evidence[0], fmt, ap);
    va_end(ap);
}

/* [a, a+alen) and [b, b+blen) share bytes but do not start at the same address. */
static int partial_overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x != y && x < y + blen && y < x + alen;
}

tkh_status tkhi_check_args(const char *fn, tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, unsigned input_count, const void *out, size_t n, tkhi_sizes *bytes)
{
    if (ctx == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: ctx is NULL", fn);
    if (kernel == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: kernel is NULL", fn);
    if (inputs == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: inputs is NULL", fn);
    if (input_count != kernel->arity || input_count > TKHI_MAX_INPUTS)
        return tkhi_fail(TKH_ERR_ARITY, "%s: %s_%s takes %u inputs, got %u", fn, kernel->op,
            kernel->type, kernel->arity, input_count);
    for (unsigned i = 0; i < input_count; ++i)
        if (inputs[i] == NULL)
            return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: %s is NULL", fn, tkhi_input_names[i]);
    if (out == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: out is NULL", fn);
    if (n == 0)
        return tkhi_fail(TKH_ERR_EMPTY, "%s: n is 0: expected at least one element", fn);
    if (n > SIZE_MAX / kernel->elem_size)
        return tkhi_fail(TKH_ERR_SIZE_OVERFLOW,
            "%s: n = %zu elements of %zu bytes overflows size_t (at most %zu elements)", fn, n,
            kernel->elem_size, SIZE_MAX / kernel->elem_size);
    bytes->in = n * kernel->elem_size;
    bytes->out = (kernel->out_count ? kernel->out_count : n) * kernel->elem_size;
    for (unsigned i = 0; i < input_count; ++i)
        if (partial_overlap(inputs[i], bytes->in, out, bytes->out))
            return tkhi_fail(TKH_ERR_OVERLAP,
                "%s: out [%p, +%zu bytes) partially overlaps %s at %p: expected the same "
                "address or disjoint buffers", fn, out, bytes->out, tkhi_input_names[i], inputs[i]);
    if (!ctx->device.available)
        return tkhi_fail(TKH_ERR_NO_DEVICE, "%s: the context has no usable device", fn);
    return tkh_kernel_admit(kernel, ctx->device.arch);
}

/* Elementwise kernels get a block per block-sized slice, as many as the hardware takes
 * (the grid-stride loop covers the rest); reductions a few blocks per compute unit, each
 * folding a long slice, so there are few partials. */
void tkhi_launch_shape(const tkh_context *ctx, const tkh_kernel_info *kernel, size_t n,
    unsigned *grid, unsigned *block)
{
    const size_t per_block = (size_t)kernel->block * (kernel->vector_width ? kernel->vector_width : 1);
    size_t blocks = (n + per_block - 1) / per_block;
    size_t cap = kernel->scratch_size == 0 ? TKHI_MAX_GRID
        : (size_t)(ctx->device.compute_units > 0 ? ctx->device.compute_units : 1) * TKHI_BLOCKS_PER_UNIT;
    *grid = (unsigned)(blocks < cap ? blocks : cap);
    *block = kernel->block;
}

tkh_status tkhi_enqueue(tkh_context *ctx, const tkh_kernel_info *kernel, const void *const *inputs,
    void *out, size_t n, unsigned grid, unsigned block, void *scratch, void *stream)
{
    int err = tkhi_launch(ctx, kernel, inputs, out, n, grid, block, scratch, stream);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_LAUNCH, err, "launching %s (grid %u, block %u, n %zu) failed",
            kernel->symbol, grid, block, n);
    return TKH_OK;
}

/* A reduction on the caller's stream: the partials the context keeps for that stream, or,
 * when every slot is taken, its own, waited for and freed. */
static tkh_status launch_reduction(tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, void *out, size_t n, unsigned grid, unsigned block, void *stream)
{
    const size_t bytes = (size_t)grid * kernel->scratch_size;
    void *scratch = NULL;
    pthread_mutex_lock(&ctx->lock);
    tkh_status st = tkhi_stream_partials(ctx, stream, bytes, &scratch);
    if (st == TKH_OK && scratch != NULL)
        st = tkhi_enqueue(ctx, kernel, inputs, out, n, grid, block, scratch, stream);
    pthread_mutex_unlock(&ctx->lock);
    if (st != TKH_OK || scratch != NULL)
        return st;
    int err = tkhi_device_alloc(ctx, &scratch, bytes);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_DEVICE_ALLOC, err,
            "allocating %zu bytes of partials on device %d failed", bytes, ctx->device.selected);
    st = tkhi_enqueue(ctx, kernel, inputs, out, n, grid, block, scratch, stream);
    err = st == TKH_OK ? tkhi_stream_wait(ctx, stream) : 0;
    if (st != TKH_OK)
        tkhi_stream_drain(stream);
    tkhi_device_free(scratch);
    if (err != 0)
        st = tkhi_fail_runtime(TKH_ERR_SYNC, err, "running %s on device %d failed",
            kernel->symbol, ctx->device.selected);
    return st;
}

tkh_status tkh_kernel_launch(tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, unsigned input_count, void *out, size_t n, tkh_stream stream)
{
    tkhi_clear_error();
    tkhi_sizes bytes;
    tkh_status st = tkhi_check_args("tkh_kernel_launch", ctx, kernel, inputs, input_count, out, n, &bytes);
    if (st != TKH_OK)
        return st;
    for (unsigned i = 0; i <= input_count; ++i) {
        const void *p = i < input_count ? inputs[i] : out;
        if ((uintptr_t)p % kernel->elem_size != 0)
            return tkhi_fail(TKH_ERR_INVALID_ARGUMENT,
                "tkh_kernel_launch: %s %p is not aligned to the element size (%zu bytes)",
                i < input_count ? tkhi_input_names[i] : "out", p, kernel->elem_size);
    }
    int err = tkhi_set_device(ctx);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_RUNTIME, err, "selecting device %d failed",
            ctx->device.selected);
    unsigned grid, block;
    tkhi_launch_shape(ctx, kernel, n, &grid, &block);
    if (kernel->scratch_size == 0)
        return tkhi_enqueue(ctx, kernel, inputs, out, n, grid, block, NULL, stream);
    return launch_reduction(ctx, kernel, inputs, out, n, grid, block, stream);
}
