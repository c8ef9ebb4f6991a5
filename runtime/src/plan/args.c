/* Argument checks, launch shapes, and the device path (tkh_kernel_launch). */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "entry.h"
#include "platform.h"
#include "tensor.h"
#include "workspace.h"

#define TKHI_BLOCKS_PER_UNIT 32u   /* reductions: partials per compute unit */

const char *tkhi_array_name(const tkh_kernel_info *kernel, int output, unsigned i, char *buf,
    size_t size)
{
    if (output && kernel->output_count == 1)
        snprintf(buf, size, "%s", kernel->outputs[0].name);
    else
        snprintf(buf, size, "%s %u (%s)", output ? "output" : "input", i,
            output ? kernel->outputs[i].name : kernel->inputs[i].name);
    return buf;
}

void tkhi_evidence(tkh_report *r, const char *fmt, ...)
{
    if (r == NULL || r->evidence_count >= TKH_REPORT_MAX_EVIDENCE)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(r->evidence[r->evidence_count++], sizeof r->evidence[0], fmt, ap);
    va_end(ap);
}

void tkhi_ulp_evidence(tkh_report *r, const tkh_kernel_info *k, double worst, const char *where)
{
    tkhi_evidence(r, "largest error %.3g ulps (output %s), bound %.6g ulps%s", worst, where, k->ulp_bound,
        k->abs_tolerance > 0 ? " (outputs within the absolute floor of the reference counted as 0)" : "");
}

/* [a, a+alen) and [b, b+blen) share bytes. */
static int overlap(const void *a, size_t alen, const void *b, size_t blen)
{
    uintptr_t x = (uintptr_t)a, y = (uintptr_t)b;
    return x < y + blen && y < x + alen;
}

/* Argument counts and pointers against the signature. */
static tkh_status check_pointers(const char *fn, const tkh_kernel_info *k, const tkh_args *args)
{
    char name[80];
    if (args->input_count != k->arity && args->output_count == k->output_count
        && args->scalar_count == k->scalar_count)
        return tkhi_fail(TKH_ERR_ARITY, "%s: %s_%s takes %u inputs, got %u", fn, k->op, k->type, k->arity,
            args->input_count);
    if (args->input_count != k->arity || args->output_count != k->output_count
        || args->scalar_count != k->scalar_count)
        return tkhi_fail(TKH_ERR_ARITY,
            "%s: %s_%s (%s) takes %u input arrays, %u outputs and %u scalars, got %u, %u and %u", fn,
            k->op, k->type, k->signature, k->arity, k->output_count, k->scalar_count,
            args->input_count, args->output_count, args->scalar_count);
    if (args->inputs == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: inputs is NULL", fn);
    if (args->outputs == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: outputs is NULL", fn);
    if (k->scalar_count > 0 && args->scalars == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: scalars is NULL", fn);
    for (unsigned i = 0; i < k->arity; ++i)
        if (args->inputs[i] == NULL)
            return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: %s is NULL", fn, tkhi_array_name(k, 0, i, name, sizeof name));
    for (unsigned o = 0; o < k->output_count; ++o)
        if (args->outputs[o] == NULL)
            return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: %s is NULL", fn, tkhi_array_name(k, 1, o, name, sizeof name));
    return tkhi_check_scalars(fn, k, args->scalars);
}

tkh_status tkhi_check_call(const char *fn, const void *ctx, const tkh_kernel_info *kernel, const void *args)
{
    if (ctx == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: ctx is NULL", fn);
    if (kernel == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: kernel is NULL", fn);
    if (args == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: args is NULL", fn);
    if (kernel->arity > TKH_MAX_INPUTS || kernel->output_count > TKH_MAX_OUTPUTS
        || kernel->scalar_count > TKH_MAX_SCALARS)
        return tkhi_fail(TKH_ERR_ARITY, "%s: %s_%s has more arrays or scalars than this runtime takes "
            "(%d inputs, %d outputs, %d scalars)", fn, kernel->op, kernel->type, TKH_MAX_INPUTS,
            TKH_MAX_OUTPUTS, TKH_MAX_SCALARS);
    return TKH_OK;
}

tkh_status tkhi_check_scalars(const char *fn, const tkh_kernel_info *k, const void *const *scalars)
{
    if (k->scalar_count > 0 && scalars == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: scalars is NULL", fn);
    for (unsigned j = 0; j < k->scalar_count; ++j)
        if (scalars[j] == NULL)
            return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: scalar %u (%s) is NULL", fn, j, k->scalars[j].name);
    return TKH_OK;
}

tkh_status tkhi_check_args(const char *fn, tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_args *args, size_t n, tkhi_arrays *arrays, tkhi_sizes *bytes)
{
    tkh_status st = tkhi_check_call(fn, ctx, kernel, args);
    if (st == TKH_OK)
        st = check_pointers(fn, kernel, args);
    if (st != TKH_OK)
        return st;
    if (n == 0)
        return tkhi_fail(TKH_ERR_EMPTY, "%s: n is 0: expected at least one element", fn);
    size_t widest = 1;
    for (unsigned i = 0; i < kernel->arity; ++i)
        widest = kernel->inputs[i].size > widest ? kernel->inputs[i].size : widest;
    for (unsigned o = 0; o < kernel->output_count; ++o)
        widest = kernel->outputs[o].size > widest ? kernel->outputs[o].size : widest;
    if (n > SIZE_MAX / widest)
        return tkhi_fail(TKH_ERR_SIZE_OVERFLOW,
            "%s: n = %zu elements of %zu bytes overflows size_t (at most %zu elements)", fn, n,
            widest, SIZE_MAX / widest);
    memset(arrays, 0, sizeof *arrays);
    bytes->widest = widest;
    const size_t outputs = kernel->out_count ? kernel->out_count : n;
    for (unsigned i = 0; i < kernel->arity; ++i) {
        arrays->in[i] = args->inputs[i];
        bytes->in[i] = n * kernel->inputs[i].size;
    }
    char a[80], b[80];
    for (unsigned o = 0; o < kernel->output_count; ++o) {
        arrays->out[o] = args->outputs[o];
        bytes->out[o] = outputs * kernel->outputs[o].size;
        for (unsigned i = 0; i < kernel->arity; ++i) {
            if (args->inputs[i] == args->outputs[o] && kernel->inputs[i].size != kernel->outputs[o].size)
                return tkhi_fail(TKH_ERR_OVERLAP,
                    "%s: %s at %p is %s, whose elements are of another size (%zu bytes, not %zu): "
                    "in place needs the same size; expected disjoint buffers", fn,
                    tkhi_array_name(kernel, 1, o, a, sizeof a), args->outputs[o],
                    tkhi_array_name(kernel, 0, i, b, sizeof b), kernel->inputs[i].size, kernel->outputs[o].size);
            if (args->inputs[i] != args->outputs[o]
                && overlap(args->inputs[i], bytes->in[i], args->outputs[o], bytes->out[o]))
                return tkhi_fail(TKH_ERR_OVERLAP,
                    "%s: %s [%p, +%zu bytes) partially overlaps %s at %p: expected the same "
                    "address or disjoint buffers", fn,
                    tkhi_array_name(kernel, 1, o, a, sizeof a), args->outputs[o], bytes->out[o],
                    tkhi_array_name(kernel, 0, i, b, sizeof b), args->inputs[i]);
        }
        for (unsigned p = 0; p < o; ++p)
            if (overlap(args->outputs[p], bytes->out[p], args->outputs[o], bytes->out[o]))
                return tkhi_fail(TKH_ERR_OVERLAP, "%s: %s at %p overlaps %s at %p: expected disjoint outputs",
                    fn, tkhi_array_name(kernel, 1, o, a, sizeof a), args->outputs[o],
                    tkhi_array_name(kernel, 1, p, b, sizeof b), args->outputs[p]);
    }
    if (!ctx->device.available)
        return tkhi_fail(TKH_ERR_NO_DEVICE, "%s: the context has no usable device", fn);
    return tkh_kernel_admit(kernel, ctx->device.arch);
}

void tkhi_arrays_at(const tkh_kernel_info *kernel, const tkhi_arrays *base, size_t index, tkhi_arrays *at)
{
    memset(at, 0, sizeof *at);
    for (unsigned i = 0; i < kernel->arity; ++i)
        at->in[i] = (const unsigned char *)base->in[i] + index * kernel->inputs[i].size;
    for (unsigned o = 0; o < kernel->output_count; ++o)
        at->out[o] = (unsigned char *)base->out[o] + index * kernel->outputs[o].size;
}

tkh_status tkhi_single_output(const char *fn, const tkh_kernel_info *kernel, const void *const *inputs,
    unsigned input_count, void *const *out, tkh_args *args)
{
    *args = (tkh_args){ inputs, input_count, out, 1, NULL, 0 };
    if (kernel != NULL && (kernel->output_count != 1 || kernel->scalar_count != 0))
        return tkhi_fail(TKH_ERR_ARITY, "%s: %s_%s (%s) has %u outputs and %u scalars: call it "
            "through tkh_kernel_%s, or its own entry point", fn, kernel->op, kernel->type,
            kernel->signature, kernel->output_count, kernel->scalar_count,
            strcmp(fn, "tkh_kernel_run") == 0 ? "call" : "enqueue");
    return TKH_OK;
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

tkh_status tkhi_enqueue(tkh_context *ctx, const tkh_kernel_info *kernel, const tkhi_arrays *arrays,
    const void *const *scalars, size_t n, unsigned grid, unsigned block, void *scratch, void *stream)
{
    int err = tkhi_launch(ctx, kernel, arrays->in, (void *const *)arrays->out, scalars, n, grid, block,
        scratch, stream);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_LAUNCH, err, "launching %s (grid %u, block %u, n %zu) failed",
            kernel->symbol, grid, block, n);
    return TKH_OK;
}

tkh_status tkhi_with_partials(tkh_context *ctx, void *stream, size_t bytes, const char *symbol,
    tkhi_partials_user launch, void *arg)
{
    void *scratch = NULL;
    pthread_mutex_lock(&ctx->lock);
    tkh_status st = tkhi_stream_partials(ctx, stream, bytes, &scratch);
    if (st == TKH_OK && scratch != NULL)
        st = launch(arg, scratch);
    pthread_mutex_unlock(&ctx->lock);
    if (st != TKH_OK || scratch != NULL)
        return st;
    int err = tkhi_device_alloc(ctx, &scratch, bytes);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_DEVICE_ALLOC, err,
            "allocating %zu bytes of partials on device %d failed", bytes, ctx->device.selected);
    st = launch(arg, scratch);
    err = st == TKH_OK ? tkhi_stream_wait(ctx, stream) : 0;
    if (st != TKH_OK)
        tkhi_stream_drain(stream);
    tkhi_device_free(scratch);
    if (err != 0)
        st = tkhi_fail_runtime(TKH_ERR_SYNC, err, "running %s on device %d failed", symbol, ctx->device.selected);
    return st;
}

/* A flat reduction's launch, for tkhi_with_partials. */
typedef struct flat_reduction {
    tkh_context *ctx;
    const tkh_kernel_info *kernel;
    const tkhi_arrays *arrays;
    const void *const *scalars;
    size_t n;
    unsigned grid, block;
    void *stream;
} flat_reduction;

static tkh_status launch_flat_reduction(void *arg, void *scratch)
{
    const flat_reduction *r = arg;
    return tkhi_enqueue(r->ctx, r->kernel, r->arrays, r->scalars, r->n, r->grid, r->block, scratch, r->stream);
}

/* tkh_kernel_enqueue, named 'fn' in messages. */
static tkh_status device_call(const char *fn, tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_args *args, size_t n, tkh_stream stream)
{
    tkhi_arrays arrays;
    tkhi_sizes bytes;
    tkh_status st = tkhi_check_args(fn, ctx, kernel, args, n, &arrays, &bytes);
    if (st != TKH_OK)
        return st;
    char name[80];
    for (unsigned i = 0; i < kernel->arity + kernel->output_count; ++i) {
        const int output = i >= kernel->arity;
        const unsigned j = output ? i - kernel->arity : i;
        const void *p = output ? arrays.out[j] : arrays.in[j];
        const size_t size = output ? kernel->outputs[j].size : kernel->inputs[j].size;
        if ((uintptr_t)p % size != 0)
            return tkhi_fail(TKH_ERR_INVALID_ARGUMENT,
                "%s: %s %p is not aligned to the element size (%zu bytes)", fn,
                tkhi_array_name(kernel, output, j, name, sizeof name), p, size);
    }
    int err = tkhi_set_device(ctx);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_RUNTIME, err, "selecting device %d failed",
            ctx->device.selected);
    unsigned grid, block;
    tkhi_launch_shape(ctx, kernel, n, &grid, &block);
    if (kernel->scratch_size == 0)
        return tkhi_enqueue(ctx, kernel, &arrays, args->scalars, n, grid, block, NULL, stream);
    flat_reduction r = { ctx, kernel, &arrays, args->scalars, n, grid, block, stream };
    return tkhi_with_partials(ctx, stream, (size_t)grid * kernel->scratch_size, kernel->symbol,
        launch_flat_reduction, &r);
}

tkh_status tkh_kernel_launch(tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, unsigned input_count, void *out, size_t n, tkh_stream stream)
{
    tkhi_clear_error();
    tkh_args args;
    void *outputs[1] = { out };
    tkh_status st = tkhi_single_output("tkh_kernel_launch", kernel, inputs, input_count, outputs, &args);
    return st != TKH_OK ? st : device_call("tkh_kernel_launch", ctx, kernel, &args, n, stream);
}

tkh_status tkh_kernel_enqueue(tkh_context *ctx, const tkh_kernel_info *kernel, const tkh_args *args,
    size_t n, tkh_stream stream)
{
    tkhi_clear_error();
    if (kernel != NULL && tkhi_is_normalization(kernel))
        return tkhi_normalization_flat("tkh_kernel_enqueue", ctx, kernel, args, n, 1, stream, NULL);
    return device_call("tkh_kernel_enqueue", ctx, kernel, args, n, stream);
}
