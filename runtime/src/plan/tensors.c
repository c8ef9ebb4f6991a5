/* Tensor calls: the tensors checked against the signature, their spans and overlaps, and
 * the iteration plan's common steps (dimensions merged, 32-bit division constants); each
 * shape works out its own plan between them (shapes/); their evidence lines. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "plan.h"

#define I31 ((int64_t)INT32_MAX)

static int is_host(DLDeviceType t)
{
    return t == kDLCPU || t == kDLCUDAHost || t == kDLROCMHost;
}

DLDeviceType tkhi_device_type(const tkh_context *ctx)
{
    return strcmp(ctx->device.platform, "nvidia") == 0 ? kDLCUDA : kDLROCM;
}

/* The operand of array a. */
static const tkh_operand *operand_at(const tkhi_call *c, unsigned a)
{
    const tkh_kernel_info *k = c->kernel;
    return a >= k->arity ? &k->outputs[a - k->arity] : &k->inputs[a];
}

const tkh_operand *tkhi_operand_of(const tkhi_call *c, unsigned a, char *name, size_t size)
{
    const tkh_kernel_info *k = c->kernel;
    const int output = a >= k->arity;
    tkhi_array_name(k, output, output ? a - k->arity : a, name, size);
    return operand_at(c, a);
}

/* One tensor's own checks: rank, shape, dtype, pointer, alignment, device. */
static tkh_status check_tensor(const char *fn, const tkh_context *ctx, const tkhi_call *c,
    unsigned a, const tkh_operand *operand)
{
    const DLTensor *t = c->tensor[a];
    char buf[64], name[80];
#define NAME (tkhi_operand_of(c, a, name, sizeof name), name) /* formatted only for a message */
    if (t->ndim < 0 || t->ndim > TKH_MAX_DIMS)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has ndim %d: expected 0 to %d",
            fn, NAME, t->ndim, TKH_MAX_DIMS);
    if (t->ndim > 0 && t->shape == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: tensor %s has ndim %d and a NULL shape", fn, NAME, t->ndim);
    for (int d = 0; d < t->ndim; ++d)
        if (t->shape[d] < 0)
            return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has shape[%d] = %" PRId64
                ": expected a size of 0 or more", fn, NAME, d, t->shape[d]);
    const char *type = tkhi_dtype_type(t->dtype);
    if (type == NULL || strcmp(type, operand->type) != 0)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has dtype %s: expected %s (%s)", fn, NAME,
            tkhi_dtype_name(t->dtype, buf, sizeof buf), operand->type, c->kernel->signature);
    if (c->shapes_only) /* the rest is where the tensor lies, which its shape does not depend on */
        return TKH_OK;
    const DLDeviceType dev = t->device.device_type;
    const int host = is_host(dev);
    if (!host && dev != tkhi_device_type(ctx) && dev != kDLCUDAManaged)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s is on DLPack device type %d: expected "
            "the host (%d, %d, %d) or this %s build's device (%d, or %d managed)", fn, NAME, (int)dev,
            (int)kDLCPU, (int)kDLCUDAHost, (int)kDLROCMHost, ctx->device.platform, (int)tkhi_device_type(ctx),
            (int)kDLCUDAManaged);
    if (!host && t->device.device_id != ctx->device.selected)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s is on device %d: expected the context's "
            "device %d", fn, NAME, t->device.device_id, ctx->device.selected);
    if ((!host) != c->on_device)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s is on the %s, the first tensor on the "
            "%s: expected every tensor of a call on one side", fn, NAME, host ? "host" : "device",
            host ? "device" : "host");
    for (int d = 0; d < t->ndim; ++d)
        if (t->shape[d] == 0) /* no element to read or write: any data pointer (torch exports NULL) */
            return TKH_OK;
    if (t->data == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: tensor %s has NULL data and elements: expected NULL only for "
            "a tensor of zero elements", fn, NAME);
    if (((uintptr_t)t->data + t->byte_offset) % operand->size != 0)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s at %p + byte_offset %" PRIu64
            " is not aligned to its element size (%zu bytes)", fn, NAME, t->data, t->byte_offset,
            operand->size);
    return TKH_OK;
#undef NAME
}

/* Strides in elements over the tensor's own dimensions (compact row-major when NULL). */
void tkhi_own_strides(const DLTensor *t, int64_t *stride)
{
    int64_t compact = 1;
    for (int d = t->ndim - 1; d >= 0; --d) {
        stride[d] = t->strides ? t->strides[d] : compact;
        compact *= t->shape[d] > 0 ? t->shape[d] : 1;
    }
}

/* Offsets of the lowest and highest element; 0 and -1 for an empty tensor. Fails when an
 * offset or the element count leaves int64_t. */
static int span(const DLTensor *t, const int64_t *stride, int64_t *lo, int64_t *hi, int64_t *count)
{
    *lo = *hi = 0;
    *count = 1;
    for (int d = 0; d < t->ndim; ++d) {
        const int64_t n = t->shape[d];
        if (n == 0) { /* empty, whatever the dimensions before reached */
            *count = 0;
            *lo = 0;
            *hi = -1;
            return 0;
        }
        if (*count > INT64_MAX / n)
            return -1;
        *count *= n;
        const int64_t s = stride[d] < 0 ? -stride[d] : stride[d];
        if (stride[d] == INT64_MIN || (n > 1 && s > (INT64_MAX / 2) / (n - 1)))
            return -1;
        const int64_t reach = (n - 1) * stride[d];
        if (reach < 0)
            *lo += reach;
        else
            *hi += reach;
        if (*hi > INT64_MAX / 4 || *lo < -(INT64_MAX / 4))
            return -1;
    }
    return 0;
}

/* A sufficient test that no two elements of a tensor share memory: with the dimensions
 * in order of |stride|, each stride passes the reach of the ones below it. */
static int may_overlap_itself(const DLTensor *t, const int64_t *stride)
{
    int64_t s[TKH_MAX_DIMS], n[TKH_MAX_DIMS];
    int k = 0;
    for (int d = 0; d < t->ndim; ++d)
        if (t->shape[d] > 1) {
            s[k] = stride[d] < 0 ? -stride[d] : stride[d];
            n[k++] = t->shape[d];
        }
    for (int i = 1; i < k; ++i) /* insertion sort by |stride| */
        for (int j = i; j > 0 && s[j - 1] > s[j]; --j) {
            int64_t x = s[j]; s[j] = s[j - 1]; s[j - 1] = x;
            x = n[j]; n[j] = n[j - 1]; n[j - 1] = x;
        }
    int64_t reach = 0;
    for (int i = 0; i < k; ++i) {
        if (s[i] <= reach)
            return 1;
        reach += s[i] * (n[i] - 1);
    }
    return 0;
}

int tkhi_plan_merge(tkh_plan *p, unsigned arrays, int from, int to)
{
    int out = from;
    for (int d = from; d < to; ++d) {
        if (p->size[d] == 1)
            continue; /* no step at all */
        int joins = out > from;
        for (unsigned a = 0; a < arrays && joins; ++a)
            joins = p->stride[a][d] == p->stride[a][out - 1] * p->size[out - 1];
        if (joins) {
            p->size[out - 1] *= p->size[d];
            continue;
        }
        p->size[out] = p->size[d];
        for (unsigned a = 0; a < arrays; ++a)
            p->stride[a][out] = p->stride[a][d];
        ++out;
    }
    return out;
}

void tkhi_plan_dense_strides(const tkh_plan *p, int reduced, int64_t *stride)
{
    int64_t step = 1;
    for (int d = 0; d < p->ndim; ++d) {
        stride[d] = d < reduced ? 0 : step;
        step *= d < reduced ? 1 : p->size[d];
    }
}

/* The plan's last steps: wide or not, division constants, the reduction's mode. */
static void finish_plan(tkhi_call *c)
{
    tkh_plan *p = &c->plan;
    if (p->ndim == 0) { /* a single element */
        p->ndim = 1;
        p->size[0] = 1;
        for (unsigned a = 0; a < c->arrays; ++a)
            p->stride[a][0] = 0;
    }
    p->wide = p->count > I31 || p->reduce_count > I31;
    p->split = 1; /* the launch may split a reduction's elements (shapes/reduction.c) */
    p->chunk = p->reduce_count;
    for (unsigned a = 0; a < c->arrays; ++a)
        p->wide |= c->hi[a] > I31 || c->lo[a] < -I31;
    for (int d = 0; d < p->ndim; ++d)
        tkh_plan_magic(p->wide || p->size[d] == 0 ? 1 : (uint32_t)p->size[d], &p->magic[d], &p->shift[d]);
}

tkh_status tkhi_call_begin(const char *fn, const tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_tensor_args *args, int shapes_only, tkhi_call *c, int64_t (*stride)[TKH_MAX_DIMS])
{
    memset(c, 0, sizeof *c);
    c->kernel = kernel;
    c->fn = fn;
    c->shapes_only = shapes_only;
    tkh_status st = shapes_only ? tkhi_check_kernel(fn, kernel, args) : tkhi_check_call(fn, ctx, kernel, args);
    if (st != TKH_OK)
        return st;
    if (kernel->launch_plan == NULL)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: %s_%s was generated without a tensor kernel "
            "(a catalog of an older generator): regenerate it", fn, kernel->op, kernel->type);
    if (shapes_only && (args->input_count != kernel->arity || args->output_count != 0))
        return tkhi_fail(TKH_ERR_ARITY, "%s: %s_%s (%s) takes %u input tensors and no outputs (it gives their "
            "shapes), got %u and %u", fn, kernel->op, kernel->type, kernel->signature, kernel->arity,
            args->input_count, args->output_count);
    if (!shapes_only && (args->input_count != kernel->arity || args->output_count != kernel->output_count
        || args->scalar_count != kernel->scalar_count))
        return tkhi_fail(TKH_ERR_ARITY,
            "%s: %s_%s (%s) takes %u input tensors, %u outputs and %u scalars, got %u, %u and %u", fn,
            kernel->op, kernel->type, kernel->signature, kernel->arity, kernel->output_count,
            kernel->scalar_count, args->input_count, args->output_count, args->scalar_count);
    if (args->inputs == NULL || (args->outputs == NULL && !shapes_only))
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: %s is NULL", fn, args->inputs == NULL ? "inputs" : "outputs");
    if (!shapes_only && (st = tkhi_check_scalars(fn, kernel, args->scalars)) != TKH_OK)
        return st;
    c->arrays = kernel->arity + (shapes_only ? 0 : kernel->output_count);
    char name[80];
    for (unsigned a = 0; a < c->arrays; ++a) {
        c->tensor[a] = a < kernel->arity ? args->inputs[a] : args->outputs[a - kernel->arity];
        const tkh_operand *operand = operand_at(c, a);
        if (c->tensor[a] == NULL && a < kernel->arity && operand->default_value != NULL) {
            c->absent[a] = 1; /* an optional input not given: its default */
            c->size[a] = operand->size;
            continue;
        }
        if (c->tensor[a] == NULL)
            return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: tensor %s is NULL", fn, (tkhi_operand_of(c, a, name, sizeof name), name));
        if (a == 0)
            c->on_device = !is_host(c->tensor[0]->device.device_type);
        st = check_tensor(fn, ctx, c, a, operand);
        if (st != TKH_OK)
            return st;
        c->base[a] = c->tensor[a]->data == NULL ? NULL /* no elements */
            : (unsigned char *)c->tensor[a]->data + c->tensor[a]->byte_offset;
        c->size[a] = operand->size;
    }
    for (unsigned a = 0; a < c->arrays; ++a) {
        int64_t count;
        if (c->absent[a]) {
            c->lo[a] = 0;
            c->hi[a] = -1; /* an empty span */
            continue;
        }
        tkhi_own_strides(c->tensor[a], stride[a]);
        if (span(c->tensor[a], stride[a], &c->lo[a], &c->hi[a], &count) != 0
            || (uint64_t)(c->hi[a] - c->lo[a] + 1) > SIZE_MAX / c->size[a])
            return tkhi_fail(TKH_ERR_SIZE_OVERFLOW, "%s: tensor %s: its elements or offsets overflow 64 bits",
                fn, (tkhi_operand_of(c, a, name, sizeof name), name));
    }
    return TKH_OK;
}

tkh_status tkhi_call_finish(const char *fn, tkhi_call *c, int64_t (*stride)[TKH_MAX_DIMS])
{
    const tkh_kernel_info *kernel = c->kernel;
    char name[80];
    /* Overlaps: an output may be exactly an input (elementwise, same element size and the
     * same offsets at every index); nothing else may share memory with an output. */
    char other[80];
    for (unsigned o = kernel->arity; o < c->arrays; ++o) {
        if (may_overlap_itself(c->tensor[o], stride[o]))
            return tkhi_fail(TKH_ERR_OVERLAP, "%s: tensor %s (shape %s, strides %s) may write one element "
                "twice: expected strides that keep its elements apart", fn, (tkhi_operand_of(c, o, name, sizeof name), name),
                tkhi_format_dims(other, sizeof other, c->tensor[o]->ndim, c->tensor[o]->shape),
                tkhi_format_dims((char[200]){ 0 }, 200, c->tensor[o]->ndim, stride[o]));
        for (unsigned a = 0; a < o; ++a) {
            if (!tkhi_spans_overlap(c, a, o))
                continue;
            int exact = a < kernel->arity && c->base[a] == c->base[o] && c->size[a] == c->size[o]
                && !c->folds;
            for (int d = 0; d < c->plan.ndim && exact; ++d)
                exact = c->plan.stride[a][d] == c->plan.stride[o][d];
            if (!exact)
                return tkhi_fail(TKH_ERR_OVERLAP, "%s: tensor %s shares memory with tensor %s other than as "
                    "the same elements in place: expected disjoint memory, or in place with the same data, "
                    "dtype size, shape and strides", fn, (tkhi_operand_of(c, o, name, sizeof name), name),
                    (tkhi_operand_of(c, a, other, sizeof other), other));
        }
    }
    finish_plan(c);
    return TKH_OK;
}

void tkhi_tensor_evidence(const tkhi_call *c, tkh_report *report)
{
    const tkh_kernel_info *k = c->kernel;
    char name[80], shape[160], strides[160];
    for (unsigned a = 0; a < c->arrays; ++a) {
        const DLTensor *t = c->tensor[a];
        int64_t own[TKH_MAX_DIMS];
        tkhi_operand_of(c, a, name, sizeof name);
        if (c->absent[a]) {
            tkhi_evidence(report, "tensor %s: not given (its default)", name);
            continue;
        }
        tkhi_own_strides(t, own);
        tkhi_evidence(report, "tensor %s: %s %s, strides %s%s, on the %s", name,
            (a < k->arity ? k->inputs[a] : k->outputs[a - k->arity]).type,
            tkhi_format_dims(shape, sizeof shape, t->ndim, t->shape),
            tkhi_format_dims(strides, sizeof strides, t->ndim, own), t->strides ? "" : " (compact)",
            c->on_device ? "device" : "host");
    }
}

void tkhi_plan_line(const tkhi_call *c, const char *layout, tkh_report *report)
{
    const tkh_plan *p = &c->plan;
    char shape[160], strides[160];
    int64_t rev[TKH_MAX_DIMS];
    for (int d = 0; d < p->ndim; ++d)
        rev[d] = p->size[p->ndim - 1 - d];
    char line[192];
    size_t at = (size_t)tkhi_format(line, sizeof line, "plan: dimensions merged to %s, strides",
        tkhi_format_dims(shape, sizeof shape, p->ndim, rev));
    for (unsigned a = 0; a < c->arrays && at < sizeof line; ++a) {
        for (int d = 0; d < p->ndim; ++d)
            rev[d] = p->stride[a][p->ndim - 1 - d];
        at += (size_t)tkhi_format(line + at, sizeof line - at, " %s", tkhi_format_dims(strides, sizeof strides,
            p->ndim, rev));
    }
    if (at < sizeof line)
        tkhi_format(line + at, sizeof line - at, "; %s indices%s%s", p->wide ? "64-bit" : "32-bit", layout,
            c->flat ? "; the flat kernel" : "");
    tkhi_evidence(report, "%s", line);
}
