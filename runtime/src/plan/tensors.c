/* Tensor calls: the tensors checked against the signature, NumPy's broadcasting, and the
 * iteration plan (dimensions merged, 32-bit division constants) that the kernels and the
 * oracle walk. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "tensor.h"

#define I31 ((int64_t)INT32_MAX)

const char *tkhi_format_dims(char *buf, size_t size, int ndim, const int64_t *dims)
{
    size_t len = (size_t)snprintf(buf, size, "[");
    for (int d = 0; d < ndim && len < size; ++d)
        len += (size_t)snprintf(buf + len, size - len, "%s%" PRId64, d ? ", " : "", dims[d]);
    if (len < size)
        snprintf(buf + len, size - len, "]");
    return buf;
}

/* Our types as DLPack's dtypes. */
static const struct { const char *name; uint8_t code, bits; } dtypes[] = {
    { "i8", kDLInt, 8 }, { "i16", kDLInt, 16 }, { "i32", kDLInt, 32 }, { "i64", kDLInt, 64 },
    { "u8", kDLUInt, 8 }, { "u16", kDLUInt, 16 }, { "u32", kDLUInt, 32 }, { "u64", kDLUInt, 64 },
    { "f16", kDLFloat, 16 }, { "f32", kDLFloat, 32 }, { "f64", kDLFloat, 64 },
    { "bf16", kDLBfloat, 16 }, { "bool", TKH_DLPACK_BOOL, 8 },
};

tkh_status tkh_dlpack_dtype(const char *type, DLDataType *dtype)
{
    tkhi_clear_error();
    if (type == NULL || dtype == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "tkh_dlpack_dtype: %s is NULL", type == NULL ? "type" : "dtype");
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; ++i)
        if (strcmp(dtypes[i].name, type) == 0) {
            *dtype = (DLDataType){ dtypes[i].code, dtypes[i].bits, 1 };
            return TKH_OK;
        }
    return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "tkh_dlpack_dtype: '%s' is not a type of ours (i8..i64, u8..u64, "
        "f16, bf16, f32, f64, bool)", type);
}

const char *tkhi_dtype_type(DLDataType t)
{
    for (size_t i = 0; i < sizeof dtypes / sizeof dtypes[0]; ++i)
        if (t.lanes == 1 && t.code == dtypes[i].code && t.bits == dtypes[i].bits)
            return dtypes[i].name;
    return NULL;
}

const char *tkhi_dtype_name(DLDataType t, char *buf, size_t size)
{
    const char *type = tkhi_dtype_type(t);
    if (type != NULL)
        snprintf(buf, size, "%s", type);
    else
        snprintf(buf, size, "code %u, %u bits, %u lanes", (unsigned)t.code, (unsigned)t.bits, (unsigned)t.lanes);
    return buf;
}

static int is_host(DLDeviceType t)
{
    return t == kDLCPU || t == kDLCUDAHost || t == kDLROCMHost;
}

DLDeviceType tkhi_device_type(const tkh_context *ctx)
{
    return strcmp(ctx->device.platform, "nvidia") == 0 ? kDLCUDA : kDLROCM;
}

/* The operand of array a. */
static const tkh_operand *operand_at(const tkhi_tensor_call *c, unsigned a)
{
    const tkh_kernel_info *k = c->kernel;
    return a >= k->arity ? &k->outputs[a - k->arity] : &k->inputs[a];
}

/* The same, and its name in messages (formatted: for messages only). */
static const tkh_operand *operand_of(const tkhi_tensor_call *c, unsigned a, char *name, size_t size)
{
    const tkh_kernel_info *k = c->kernel;
    const int output = a >= k->arity;
    tkhi_array_name(k, output, output ? a - k->arity : a, name, size);
    return operand_at(c, a);
}

/* One tensor's own checks: rank, shape, dtype, pointer, alignment, device. */
static tkh_status check_tensor(const char *fn, const tkh_context *ctx, const tkhi_tensor_call *c,
    unsigned a, const tkh_operand *operand)
{
    const DLTensor *t = c->tensor[a];
    char buf[64], name[80];
#define NAME (operand_of(c, a, name, sizeof name), name) /* formatted only for a message */
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
static void own_strides(const DLTensor *t, int64_t *stride)
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
        if (n == 0) {
            *count = 0;
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

/* The ranges of bytes of arrays a and b share any. */
static int spans_overlap(const tkhi_tensor_call *c, unsigned a, unsigned b)
{
    if (c->hi[a] < c->lo[a] || c->hi[b] < c->lo[b])
        return 0;
    const uintptr_t x = (uintptr_t)(c->base[a] + c->lo[a] * (int64_t)c->size[a]);
    const uintptr_t y = (uintptr_t)(c->base[b] + c->lo[b] * (int64_t)c->size[b]);
    return x < y + tkhi_span_bytes(c, b) && y < x + tkhi_span_bytes(c, a);
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

/* Merges dimension d into d - 1 where every array steps over both as over one. Dimensions
 * [from, to) of the innermost-first plan; returns the new end. */
static int merge_dims(tkh_plan *p, unsigned arrays, int from, int to)
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
static void finish_plan(tkhi_tensor_call *c)
{
    tkh_plan *p = &c->plan;
    if (p->ndim == 0) { /* a single element */
        p->ndim = 1;
        p->size[0] = 1;
        for (unsigned a = 0; a < c->arrays; ++a)
            p->stride[a][0] = 0;
    }
    p->wide = p->count > I31 || p->reduce_count > I31;
    p->split = 1; /* the launch may split the reductions' elements (tensor_run.c) */
    p->chunk = p->reduce_count;
    for (unsigned a = 0; a < c->arrays; ++a)
        p->wide |= c->hi[a] > I31 || c->lo[a] < -I31;
    for (int d = 0; d < p->ndim; ++d)
        tkh_plan_magic(p->wide || p->size[d] == 0 ? 1 : (uint32_t)p->size[d], &p->magic[d], &p->shift[d]);
}

/* Elementwise: the broadcast shape, the outputs against it, and each array's strides in
 * that shape's dimensions (0 where an input is broadcast). */
static tkh_status plan_elementwise(const char *fn, tkhi_tensor_call *c, int64_t (*stride)[TKH_MAX_DIMS])
{
    const tkh_kernel_info *k = c->kernel;
    char name[80], s1[200], s2[200];
    c->ndim = 0;
    for (unsigned i = 0; i < k->arity; ++i)
        c->ndim = c->tensor[i]->ndim > c->ndim ? c->tensor[i]->ndim : c->ndim;
    for (int d = 0; d < c->ndim; ++d)
        c->shape[d] = 1;
    for (unsigned i = 0; i < k->arity; ++i) {
        const DLTensor *t = c->tensor[i];
        for (int d = 0; d < t->ndim; ++d) {
            int64_t *b = &c->shape[c->ndim - t->ndim + d];
            if (t->shape[d] != 1 && *b != 1 && *b != t->shape[d]) {
                operand_of(c, i, name, sizeof name);
                return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s of shape %s does not broadcast "
                    "with the inputs before it (%s so far): dimension %d is %" PRId64 ", expected %" PRId64
                    " or 1", fn, name, tkhi_format_dims(s1, sizeof s1, t->ndim, t->shape),
                    tkhi_format_dims(s2, sizeof s2, c->ndim, c->shape), d, t->shape[d], *b);
            }
            if (t->shape[d] != 1)
                *b = t->shape[d];
        }
    }
    for (unsigned o = 0; o < k->output_count; ++o) {
        const DLTensor *t = c->tensor[k->arity + o];
        int same = t->ndim == c->ndim;
        for (int d = 0; d < c->ndim && same; ++d)
            same = t->shape[d] == c->shape[d];
        if (!same) {
            operand_of(c, k->arity + o, name, sizeof name);
            return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has shape %s: expected the inputs' "
                "broadcast shape %s", fn, name, tkhi_format_dims(s1, sizeof s1, t->ndim, t->shape),
                tkhi_format_dims(s2, sizeof s2, c->ndim, c->shape));
        }
    }
    /* Plan: innermost first; an array's stride is 0 along a dimension it is broadcast over. */
    tkh_plan *p = &c->plan;
    p->ndim = c->ndim;
    p->count = 1;
    for (int d = 0; d < c->ndim; ++d) {
        const int axis = c->ndim - 1 - d;
        p->size[d] = c->shape[axis];
        p->count *= c->shape[axis];
        for (unsigned a = 0; a < c->arrays; ++a) {
            const DLTensor *t = c->tensor[a];
            const int own = axis - (c->ndim - t->ndim);
            p->stride[a][d] = own < 0 || t->shape[own] == 1 ? 0 : stride[a][own];
        }
    }
    p->ndim = merge_dims(p, c->arrays, 0, p->ndim);
    int flat = p->ndim <= 1;
    for (unsigned a = 0; a < c->arrays && flat; ++a)
        flat = p->ndim == 0 || p->stride[a][0] == 1;
    c->flat = flat;
    return TKH_OK;
}

/* A reduction: the axes, the outputs' shape, and the plan with the reduced dimensions
 * first (in the input's order, so that an index along them is NumPy's), then the kept. */
static tkh_status plan_reduction(const char *fn, tkhi_tensor_call *c, const tkh_tensor_args *args,
    int64_t (*stride)[TKH_MAX_DIMS])
{
    const tkh_kernel_info *k = c->kernel;
    const DLTensor *x = c->tensor[0];
    char name[80], s1[200], s2[200], s3[200];
    c->ndim = x->ndim;
    if (x->ndim > 0)
        memcpy(c->shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    if (args->axis_count > 0 && args->axes == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: axes is NULL and axis_count %u", fn, args->axis_count);
    for (int d = 0; d < x->ndim; ++d)
        c->reduced_axis[d] = args->axis_count == 0;
    for (unsigned j = 0; j < args->axis_count; ++j) {
        const int64_t axis = args->axes[j] < 0 ? args->axes[j] + x->ndim : args->axes[j];
        if (axis < 0 || axis >= x->ndim)
            return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: axis %" PRId64 " is out of range for tensor "
                "%s of %d dimensions: expected %d to %d", fn, args->axes[j], k->inputs[0].name, x->ndim,
                -x->ndim, x->ndim - 1);
        if (c->reduced_axis[axis])
            return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: axis %" PRId64 " is given twice", fn, args->axes[j]);
        c->reduced_axis[axis] = 1;
    }
    int64_t want[TKH_MAX_DIMS];
    int want_ndim = 0;
    for (int d = 0; d < x->ndim; ++d)
        if (!c->reduced_axis[d] || args->keepdims)
            want[want_ndim++] = c->reduced_axis[d] ? 1 : x->shape[d];
    for (unsigned o = 0; o < k->output_count; ++o) {
        const DLTensor *t = c->tensor[1 + o];
        int same = t->ndim == want_ndim;
        for (int d = 0; d < want_ndim && same; ++d)
            same = t->shape[d] == want[d];
        if (!same) {
            operand_of(c, 1 + o, name, sizeof name);
            return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has shape %s: expected %s (the input's "
                "shape %s reduced%s)", fn, name, tkhi_format_dims(s1, sizeof s1, t->ndim, t->shape),
                tkhi_format_dims(s2, sizeof s2, want_ndim, want), tkhi_format_dims(s3, sizeof s3,
                x->ndim, x->shape), args->keepdims ? " with keepdims" : "");
        }
    }
    tkh_plan *p = &c->plan;
    p->count = p->reduce_count = 1;
    int n = 0;
    for (int pass = 0; pass < 2; ++pass) { /* reduced dimensions, then kept ones */
        int out_axis = want_ndim;
        for (int axis = x->ndim - 1; axis >= 0; --axis) {
            const int reduced = c->reduced_axis[axis];
            if (!reduced || args->keepdims)
                --out_axis;
            if (reduced != (pass == 0))
                continue;
            p->size[n] = x->shape[axis];
            *(reduced ? &p->reduce_count : &p->count) *= x->shape[axis];
            p->stride[0][n] = stride[0][axis];
            for (unsigned o = 0; o < k->output_count; ++o)
                p->stride[1 + o][n] = reduced ? 0 : stride[1 + o][out_axis];
            ++n;
        }
        if (pass == 0) {
            p->reduced = merge_dims(p, c->arrays, 0, n);
            n = p->reduced;
        }
    }
    const int kept_from = p->reduced;
    int kept_end = merge_dims(p, c->arrays, kept_from, n);
    p->ndim = kept_end;
    if (p->reduce_count == 0 && p->count > 0) {
        int d = 0;
        while (!c->reduced_axis[d] || x->shape[d] != 0)
            ++d;
        if (!k->has_identity)
            return tkhi_fail(TKH_ERR_EMPTY, "%s: %s_%s reduces over zero elements (axis %d of tensor %s, "
                "shape %s, has size 0) and has no identity to give: expected at least one element (as NumPy "
                "and torch refuse it)", fn, k->op, k->type, d, k->inputs[0].name,
                tkhi_format_dims(s1, sizeof s1, x->ndim, x->shape));
        /* Each output is the identity's post step: the kernel over one reduced dimension of
         * size 0, which it folds nothing of. */
        const int kept = p->ndim - p->reduced;
        memmove(&p->size[1], &p->size[p->reduced], sizeof p->size[0] * (size_t)kept);
        for (unsigned a = 0; a < c->arrays; ++a) {
            memmove(&p->stride[a][1], &p->stride[a][p->reduced], sizeof p->stride[a][0] * (size_t)kept);
            p->stride[a][0] = 0;
        }
        p->size[0] = 0;
        p->reduced = 1;
        p->ndim = 1 + kept;
        p->mode = TKH_PLAN_ROWS;
        c->flat = 0;
        return TKH_OK;
    }
    /* Rows when the reduced elements lie together (or there is nothing else); columns
     * when the kept ones do. */
    p->mode = p->reduced > 0 && (p->stride[0][0] == 1 || p->ndim == p->reduced) ? TKH_PLAN_ROWS
        : p->ndim > p->reduced ? TKH_PLAN_COLUMNS : TKH_PLAN_ROWS;
    c->flat = p->ndim == p->reduced && p->reduced <= 1 && (p->reduced == 0 || p->stride[0][0] == 1);
    return TKH_OK;
}

/* A normalization: the axis, the columns (1-D along it, or absent), the output (the
 * input's shape for a map; the axis removed, or kept as 1, for a post step), and the plan
 * with the axis as dimension 0, the kept dimensions after it. */
static tkh_status plan_normalization(const char *fn, tkhi_tensor_call *c, const tkh_tensor_args *args,
    int64_t (*stride)[TKH_MAX_DIMS])
{
    const tkh_kernel_info *k = c->kernel;
    const DLTensor *x = c->tensor[0];
    const unsigned out = k->arity;
    const int map = k->out_count == 0;
    char name[80], s1[200], s2[200];
    if (args->axis_count != 1 || args->axes == NULL)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: %s_%s normalizes along one axis: expected axes of "
            "one element, got %u%s", fn, k->op, k->type, args->axis_count, args->axes ? "" : " (NULL)");
    if (x->ndim == 0)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has no dimensions: expected at least one, "
            "the axis", fn, k->inputs[0].name);
    const int64_t axis = args->axes[0] < 0 ? args->axes[0] + x->ndim : args->axes[0];
    if (axis < 0 || axis >= x->ndim)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: axis %" PRId64 " is out of range for tensor %s of %d "
            "dimensions: expected %d to %d", fn, args->axes[0], k->inputs[0].name, x->ndim, -x->ndim, x->ndim - 1);
    c->ndim = x->ndim;
    memcpy(c->shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    c->reduced_axis[axis] = 1;
    const int64_t n = x->shape[axis];
    for (unsigned a = 1; a < k->arity; ++a) {
        const DLTensor *t = c->tensor[a];
        if (c->absent[a] || (t->ndim == 1 && t->shape[0] == n))
            continue;
        operand_of(c, a, name, sizeof name);
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has shape %s: expected [%" PRId64 "], a column "
            "along axis %" PRId64 " of tensor %s (shape %s)", fn, name, tkhi_format_dims(s1, sizeof s1, t->ndim,
            t->shape), n, axis, k->inputs[0].name, tkhi_format_dims(s2, sizeof s2, x->ndim, x->shape));
    }
    int64_t want[TKH_MAX_DIMS];
    int want_ndim = 0;
    for (int d = 0; d < x->ndim; ++d)
        if (map || d != axis || args->keepdims)
            want[want_ndim++] = map || d != axis ? x->shape[d] : 1;
    const DLTensor *o = c->tensor[out];
    int same = o->ndim == want_ndim;
    for (int d = 0; d < want_ndim && same; ++d)
        same = o->shape[d] == want[d];
    if (!same) {
        operand_of(c, out, name, sizeof name);
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has shape %s: expected %s (%s)", fn, name,
            tkhi_format_dims(s1, sizeof s1, o->ndim, o->shape), tkhi_format_dims(s2, sizeof s2, want_ndim, want),
            map ? "the input's shape" : args->keepdims ? "the input's, the axis kept as 1" : "the input's, the axis removed");
    }
    tkh_plan *p = &c->plan;
    p->size[0] = n;
    p->reduce_count = n;
    p->stride[0][0] = stride[0][axis];
    for (unsigned a = 1; a < k->arity; ++a)
        p->stride[a][0] = c->absent[a] ? 0 : stride[a][0];
    p->stride[out][0] = map ? stride[out][axis] : 0;
    int nd = 1;
    p->count = 1;
    for (int d = x->ndim - 1; d >= 0; --d) {
        if (d == axis)
            continue;
        const int out_axis = map || args->keepdims || d < axis ? d : d - 1;
        p->size[nd] = x->shape[d];
        p->count *= x->shape[d];
        p->stride[0][nd] = stride[0][d];
        for (unsigned a = 1; a < k->arity; ++a)
            p->stride[a][nd] = 0;
        p->stride[out][nd] = stride[out][out_axis];
        ++nd;
    }
    p->reduced = 1;
    p->ndim = merge_dims(p, c->arrays, 1, nd);
    if (n == 0 && !map && p->count > 0)
        return tkhi_fail(TKH_ERR_EMPTY, "%s: %s_%s reduces rows of zero elements (axis %" PRId64 " of tensor %s, "
            "shape %s, has size 0): expected at least one", fn, k->op, k->type, axis, k->inputs[0].name,
            tkhi_format_dims(s1, sizeof s1, x->ndim, x->shape));
    p->mode = p->stride[0][0] == 1 || p->ndim == 1 ? TKH_PLAN_ROWS : TKH_PLAN_COLUMNS;
    c->flat = 0;
    return TKH_OK;
}

tkh_status tkhi_tensor_prepare(const char *fn, const tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_tensor_args *args, tkhi_tensor_call *c)
{
    memset(c, 0, sizeof *c);
    c->kernel = kernel;
    c->fn = fn;
    tkh_status st = tkhi_check_call(fn, ctx, kernel, args);
    if (st != TKH_OK)
        return st;
    if (kernel->launch_plan == NULL)
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: %s_%s was generated without a tensor kernel "
            "(a catalog of an older generator): regenerate it", fn, kernel->op, kernel->type);
    if (args->input_count != kernel->arity || args->output_count != kernel->output_count
        || args->scalar_count != kernel->scalar_count)
        return tkhi_fail(TKH_ERR_ARITY,
            "%s: %s_%s (%s) takes %u input tensors, %u outputs and %u scalars, got %u, %u and %u", fn,
            kernel->op, kernel->type, kernel->signature, kernel->arity, kernel->output_count,
            kernel->scalar_count, args->input_count, args->output_count, args->scalar_count);
    if (args->inputs == NULL || args->outputs == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: %s is NULL", fn, args->inputs == NULL ? "inputs" : "outputs");
    if ((st = tkhi_check_scalars(fn, kernel, args->scalars)) != TKH_OK)
        return st;
    c->arrays = kernel->arity + kernel->output_count;
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
            return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: tensor %s is NULL", fn, (operand_of(c, a, name, sizeof name), name));
        if (a == 0)
            c->on_device = !is_host(c->tensor[0]->device.device_type);
        st = check_tensor(fn, ctx, c, a, operand);
        if (st != TKH_OK)
            return st;
        c->base[a] = c->tensor[a]->data == NULL ? NULL /* no elements */
            : (unsigned char *)c->tensor[a]->data + c->tensor[a]->byte_offset;
        c->size[a] = operand->size;
    }
    int64_t stride[TKH_MAX_ARRAYS][TKH_MAX_DIMS];
    for (unsigned a = 0; a < c->arrays; ++a) {
        int64_t count;
        if (c->absent[a]) {
            c->lo[a] = 0;
            c->hi[a] = -1; /* an empty span */
            continue;
        }
        own_strides(c->tensor[a], stride[a]);
        if (span(c->tensor[a], stride[a], &c->lo[a], &c->hi[a], &count) != 0
            || (uint64_t)(c->hi[a] - c->lo[a] + 1) > SIZE_MAX / c->size[a])
            return tkhi_fail(TKH_ERR_SIZE_OVERFLOW, "%s: tensor %s: its elements or offsets overflow 64 bits",
                fn, (operand_of(c, a, name, sizeof name), name));
    }
    st = tkhi_is_reduction(kernel) ? plan_reduction(fn, c, args, stride)
        : tkhi_is_normalization(kernel) ? plan_normalization(fn, c, args, stride)
        : plan_elementwise(fn, c, stride);
    if (st != TKH_OK)
        return st;
    /* Overlaps: an output may be exactly an input (elementwise, same element size and the
     * same offsets at every index); nothing else may share memory with an output. */
    char other[80];
    for (unsigned o = kernel->arity; o < c->arrays; ++o) {
        if (may_overlap_itself(c->tensor[o], stride[o]))
            return tkhi_fail(TKH_ERR_OVERLAP, "%s: tensor %s (shape %s, strides %s) may write one element "
                "twice: expected strides that keep its elements apart", fn, (operand_of(c, o, name, sizeof name), name),
                tkhi_format_dims(other, sizeof other, c->tensor[o]->ndim, c->tensor[o]->shape),
                tkhi_format_dims((char[200]){ 0 }, 200, c->tensor[o]->ndim, stride[o]));
        for (unsigned a = 0; a < o; ++a) {
            if (!spans_overlap(c, a, o))
                continue;
            int exact = a < kernel->arity && c->base[a] == c->base[o] && c->size[a] == c->size[o]
                && strcmp(kernel->shape, "elementwise") == 0;
            for (int d = 0; d < c->plan.ndim && exact; ++d)
                exact = c->plan.stride[a][d] == c->plan.stride[o][d];
            if (!exact)
                return tkhi_fail(TKH_ERR_OVERLAP, "%s: tensor %s shares memory with tensor %s other than as "
                    "the same elements in place: expected disjoint memory, or in place with the same data, "
                    "dtype size, shape and strides", fn, (operand_of(c, o, name, sizeof name), name),
                    (operand_of(c, a, other, sizeof other), other));
        }
    }
    finish_plan(c);
    return TKH_OK;
}

void tkhi_plan_evidence(const tkhi_tensor_call *c, tkh_report *report)
{
    if (report == NULL) /* the device path's calls without a report: no formatting */
        return;
    const tkh_kernel_info *k = c->kernel;
    const tkh_plan *p = &c->plan;
    char name[80], shape[160], strides[160];
    for (unsigned a = 0; a < c->arrays; ++a) {
        const DLTensor *t = c->tensor[a];
        int64_t own[TKH_MAX_DIMS];
        operand_of(c, a, name, sizeof name);
        if (c->absent[a]) {
            tkhi_evidence(report, "tensor %s: not given (its default)", name);
            continue;
        }
        own_strides(t, own);
        tkhi_evidence(report, "tensor %s: %s %s, strides %s%s, on the %s", name,
            (a < k->arity ? k->inputs[a] : k->outputs[a - k->arity]).type,
            tkhi_format_dims(shape, sizeof shape, t->ndim, t->shape),
            tkhi_format_dims(strides, sizeof strides, t->ndim, own), t->strides ? "" : " (compact)",
            c->on_device ? "device" : "host");
    }
    if (tkhi_is_normalization(k)) {
        int axis = 0;
        while (axis + 1 < c->ndim && !c->reduced_axis[axis])
            ++axis;
        tkhi_evidence(report, "normalized along axis %d of %s: %" PRId64 " rows of %" PRId64 " elements", axis,
            tkhi_format_dims(shape, sizeof shape, c->ndim, c->shape), p->count, p->reduce_count);
    } else if (strcmp(k->shape, "reduction") == 0) {
        int64_t axes[TKH_MAX_DIMS];
        int n = 0;
        for (int d = 0; d < c->ndim; ++d)
            if (c->reduced_axis[d])
                axes[n++] = d;
        tkhi_evidence(report, "reduced axes %s of %s: %" PRId64 " outputs of %" PRId64 " elements each",
            tkhi_format_dims(strides, sizeof strides, n, axes),
            tkhi_format_dims(shape, sizeof shape, c->ndim, c->shape), p->count, p->reduce_count);
    } else {
        tkhi_evidence(report, "broadcast shape %s: %" PRId64 " elements",
            tkhi_format_dims(shape, sizeof shape, c->ndim, c->shape), p->count);
    }
    int64_t rev[TKH_MAX_DIMS];
    for (int d = 0; d < p->ndim; ++d)
        rev[d] = p->size[p->ndim - 1 - d];
    char line[192];
    size_t at = (size_t)snprintf(line, sizeof line, "plan: dimensions merged to %s, strides",
        tkhi_format_dims(shape, sizeof shape, p->ndim, rev));
    for (unsigned a = 0; a < c->arrays && at < sizeof line; ++a) {
        for (int d = 0; d < p->ndim; ++d)
            rev[d] = p->stride[a][p->ndim - 1 - d];
        at += (size_t)snprintf(line + at, sizeof line - at, " %s", tkhi_format_dims(strides, sizeof strides,
            p->ndim, rev));
    }
    if (at < sizeof line)
        snprintf(line + at, sizeof line - at, "; %s indices%s%s", p->wide ? "64-bit" : "32-bit",
            !tkhi_folds_axes(k) ? "" : p->mode == TKH_PLAN_ROWS ? (tkhi_is_normalization(k) ? ", a block per row"
            : ", a block per output") : tkhi_is_normalization(k) ? ", a thread per row" : ", a thread column per output",
            c->flat ? "; the flat kernel" : "");
    tkhi_evidence(report, "%s", line);
}
