/* The checks of a flat call's arguments: counts, pointers, sizes, overlaps, alignment. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"

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
    return tkhi_check_kernel(fn, kernel, args);
}

tkh_status tkhi_check_kernel(const char *fn, const tkh_kernel_info *kernel, const void *args)
{
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

/* p is not aligned to 'size' (every size of ours is a power of two: no division). */
static int misaligned(const void *p, size_t size)
{
    return ((size & (size - 1)) == 0 ? (uintptr_t)p & (size - 1) : (uintptr_t)p % size) != 0;
}

static tkh_status not_aligned(const char *fn, const tkh_kernel_info *kernel, int output, unsigned j,
    const void *p, size_t size)
{
    char name[80];
    return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: %s %p is not aligned to the element size (%zu bytes)", fn,
        tkhi_array_name(kernel, output, j, name, sizeof name), p, size);
}

/* The device path's check of a flat call's pointers: each aligned to its element size. */
static tkh_status check_alignment(const char *fn, const tkh_kernel_info *kernel, const tkhi_arrays *arrays)
{
    for (unsigned i = 0; i < kernel->arity; ++i)
        if (misaligned(arrays->in[i], kernel->inputs[i].size))
            return not_aligned(fn, kernel, 0, i, arrays->in[i], kernel->inputs[i].size);
    for (unsigned o = 0; o < kernel->output_count; ++o)
        if (misaligned(arrays->out[o], kernel->outputs[o].size))
            return not_aligned(fn, kernel, 1, o, arrays->out[o], kernel->outputs[o].size);
    return TKH_OK;
}

tkh_status tkhi_check_args(const char *fn, tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_args *args, size_t n, int on_device, tkhi_arrays *arrays, tkhi_sizes *bytes)
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
    st = tkhi_admit(ctx, kernel);
    return st == TKH_OK && on_device ? check_alignment(fn, kernel, arrays) : st;
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

void tkhi_call_flat(tkhi_call *c, const char *fn, const tkh_kernel_info *kernel, const tkhi_arrays *arrays,
    size_t n, int folds)
{
    /* The tensors are for messages of tensor calls only; a flat call names its arrays. */
    c->kernel = kernel;
    c->fn = fn;
    c->on_device = 0;
    c->arrays = kernel->arity + kernel->output_count;
    c->flat = 1;
    c->folds = c->drops = folds;
    c->ndim = 1;
    c->shape[0] = (int64_t)n;
    c->reduced_axis[0] = folds;
    tkh_plan *p = &c->plan;
    p->ndim = 1;
    p->reduced = folds;
    p->mode = TKH_PLAN_ROWS;
    p->size[0] = (int64_t)n;
    p->count = folds ? 1 : (int64_t)n;
    p->reduce_count = folds ? (int64_t)n : 0;
    p->split = 1;
    p->chunk = p->reduce_count;
    p->wide = n > (size_t)INT32_MAX;
    p->magic[0] = p->shift[0] = 0; /* no division: a flat call runs the flat kernel (tkhi_launch_choose) */
    for (unsigned a = 0; a < c->arrays; ++a) {
        const int input = a < kernel->arity, each = input || !folds; /* n elements, or one output */
        c->base[a] = input ? (unsigned char *)arrays->in[a] : arrays->out[a - kernel->arity];
        c->size[a] = input ? kernel->inputs[a].size : kernel->outputs[a - kernel->arity].size;
        c->absent[a] = 0;
        c->lo[a] = 0;
        c->hi[a] = (each ? (int64_t)n : 1) - 1;
        p->stride[a][0] = each;
    }
}
