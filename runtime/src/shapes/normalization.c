/* The normalization shape: reductions along one axis of each row, then a map of the row
 * (softmax) or a post step to one value (logsumexp); columns along the axis (a weight, a
 * bias) optional. Each row is checked whole by the generated row check
 * (docs/normalizations.md). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapes.h"

/* A normalization: the axis, the columns (1-D along it, or absent), the output (the
 * input's shape for a map; the axis removed, or kept as 1, for a post step), and the plan
 * with the axis as dimension 0, the kept dimensions after it. */
static tkh_status plan(const char *fn, tkhi_call *c, const tkh_tensor_args *args, int64_t (*stride)[TKH_MAX_DIMS])
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
        tkhi_operand_of(c, a, name, sizeof name);
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has shape %s: expected [%" PRId64 "], a column "
            "along axis %" PRId64 " of tensor %s (shape %s)", fn, name, tkhi_format_dims(s1, sizeof s1, t->ndim,
            t->shape), n, axis, k->inputs[0].name, tkhi_format_dims(s2, sizeof s2, x->ndim, x->shape));
    }
    tkh_plan *p = &c->plan;
    p->count = 1; /* rows */
    int64_t want[TKH_MAX_DIMS];
    int want_ndim = 0;
    for (int d = 0; d < x->ndim; ++d) {
        p->count *= d != axis ? x->shape[d] : 1;
        if (map || d != axis || args->keepdims)
            want[want_ndim++] = map || d != axis ? x->shape[d] : 1;
    }
    if (n == 0 && !map && p->count > 0)
        return tkhi_fail(TKH_ERR_EMPTY, "%s: %s_%s reduces rows of zero elements (axis %" PRId64 " of tensor %s, "
            "shape %s, has size 0): expected at least one", fn, k->op, k->type, axis, k->inputs[0].name,
            tkhi_format_dims(s1, sizeof s1, x->ndim, x->shape));
    if (tkhi_outputs_shape(c, want_ndim, want))
        return TKH_OK;
    if (tkhi_output_unlike(c, want_ndim, want) >= 0) {
        const DLTensor *o = c->tensor[out];
        tkhi_operand_of(c, out, name, sizeof name);
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has shape %s: expected %s (%s)", fn, name,
            tkhi_format_dims(s1, sizeof s1, o->ndim, o->shape), tkhi_format_dims(s2, sizeof s2, want_ndim, want),
            map ? "the input's shape" : args->keepdims ? "the input's, the axis kept as 1" : "the input's, the axis removed");
    }
    p->size[0] = n;
    p->reduce_count = n;
    p->stride[0][0] = stride[0][axis];
    for (unsigned a = 1; a < k->arity; ++a)
        p->stride[a][0] = c->absent[a] ? 0 : stride[a][0];
    p->stride[out][0] = map ? stride[out][axis] : 0;
    int nd = 1;
    for (int d = x->ndim - 1; d >= 0; --d) {
        if (d == axis)
            continue;
        const int out_axis = map || args->keepdims || d < axis ? d : d - 1;
        p->size[nd] = x->shape[d];
        p->stride[0][nd] = stride[0][d];
        for (unsigned a = 1; a < k->arity; ++a)
            p->stride[a][nd] = 0;
        p->stride[out][nd] = stride[out][out_axis];
        ++nd;
    }
    p->reduced = 1;
    p->ndim = tkhi_plan_merge(p, c->arrays, 1, nd);
    p->mode = p->stride[0][0] == 1 || p->ndim == 1 ? TKH_PLAN_ROWS : TKH_PLAN_COLUMNS;
    c->flat = 0;
    return TKH_OK;
}


/* A group of threads a row (rows along the contiguous axis), or a thread a row
 * (tkh_plan.h's tkh_norm_shape_of). */
static void geometry(const tkh_context *ctx, tkhi_call *c, tkh_plan *p, const void *input, unsigned *grid,
    unsigned *block)
{
    (void)ctx;
    (void)input;
    const tkh_norm_shape shape = tkh_norm_shape_of(p->reduce_count, c->size[0]);
    const int rows = p->mode == TKH_PLAN_ROWS;
    *block = rows ? shape.block : 256;
    const int64_t per_block = rows ? shape.block / shape.group : 256;
    const int64_t blocks = (p->count + per_block - 1) / per_block;
    *grid = (unsigned)(blocks < 1 ? 1 : blocks > TKHI_MAX_GRID ? TKHI_MAX_GRID : blocks);
}

/* A normalization: each row (or each sampled row) gathered along the axis with the
 * columns, checked whole by the kernel's row check under the device's fold depth. A
 * mismatch's index is row-major in the output's index space. */
static tkh_status check(const tkhi_call *c, unsigned char *const *base, const int64_t (*stride)[TKH_MAX_DIMS],
    const void *const *scalars, int64_t first, int64_t count, const int64_t *samples, tkhi_oracle_part *part)
{
    const tkh_kernel_info *k = c->kernel;
    const tkh_plan *p = &c->plan;
    const size_t n = (size_t)p->reduce_count, outs = k->out_count ? 1 : n;
    unsigned char *buf[TKH_MAX_ARRAYS] = { NULL };
    int64_t *off = malloc((n > 0 ? n : 1) * sizeof *off);
    tkh_status st = off ? TKH_OK : TKH_ERR_HOST_ALLOC;
    for (unsigned a = 0; a < c->arrays && st == TKH_OK; ++a)
        if (!c->absent[a] && (buf[a] = malloc((a < k->arity ? (n > 0 ? n : 1) : outs) * c->size[a])) == NULL)
            st = TKH_ERR_HOST_ALLOC;
    const void *in[TKH_MAX_INPUTS];
    for (unsigned a = 0; a < k->arity; ++a)
        in[a] = buf[a];
    for (unsigned a = 1; a < k->arity && st == TKH_OK; ++a) /* the columns: the same for every row */
        if (!c->absent[a]) {
            tkhi_walk(p, 0, 1, stride[a], 0, n, off);
            tkhi_gather(buf[a], base[a], off, n, c->size[a]);
        }
    int axis = 0;
    while (!c->reduced_axis[axis])
        ++axis;
    const int64_t depth = tkh_norm_depth(p->mode, (int64_t)n, c->size[0]);
    for (int64_t s = 0; st == TKH_OK && s < count && part->bad == SIZE_MAX; ++s) {
        const int64_t row = samples ? samples[s] : first + s;
        const int64_t at = tkhi_offset_at(p, 1, p->ndim, stride[0], row);
        tkhi_walk(p, 0, 1, stride[0], 0, n, off);
        for (size_t j = 0; j < n; ++j)
            off[j] += at;
        tkhi_gather(buf[0], base[0], off, n, c->size[0]);
        const unsigned out = k->arity;
        const int64_t out_at = tkhi_offset_at(p, 1, p->ndim, stride[out], row);
        tkhi_walk(p, 0, 1, stride[out], 0, outs, off);
        for (size_t j = 0; j < outs; ++j)
            off[j] += out_at;
        tkhi_gather(buf[out], base[out], off, outs, c->size[out]);
        const double before = part->note.worst;
        const size_t bad = k->check_row(in, buf[out], scalars, n, depth, &part->note);
        part->compared += bad < outs ? bad + 1 : outs;
        /* the row-major index of element j of this row: the kept coordinates from 'row' */
        const size_t j = bad < outs ? bad : part->note.worst_index;
        int64_t rest = row, lin = 0, mult = 1;
        for (int d = c->ndim - 1; d >= 0; --d) {
            if (d == axis && outs == 1)
                continue;
            const int64_t coord = d == axis ? (int64_t)j : rest % c->shape[d];
            if (d != axis)
                rest /= c->shape[d];
            lin += coord * mult;
            mult *= c->shape[d];
        }
        if (part->note.worst > before)
            part->note.worst_index = (size_t)lin;
        if (bad < outs)
            part->bad = (size_t)lin;
    }
    for (unsigned a = 0; a < c->arrays; ++a)
        free(buf[a]);
    free(off);
    return st;
}


static void describe(const tkhi_call *c, tkh_report *report)
{
    char shape[160];
    int axis = 0;
    while (axis + 1 < c->ndim && !c->reduced_axis[axis])
        ++axis;
    tkhi_evidence(report, "normalized along axis %d of %s: %" PRId64 " rows of %" PRId64 " elements", axis,
        tkhi_format_dims(shape, sizeof shape, c->ndim, c->shape), c->plan.count, c->plan.reduce_count);
}

static const char *layout(const tkhi_call *c)
{
    return c->plan.mode == TKH_PLAN_ROWS ? ", a block per row" : ", a thread per row";
}

/* A map keeps the axis; a post step drops it. */
static int drops(const tkh_kernel_info *k)
{
    return k->out_count == 1;
}

const tkhi_shape tkhi_normalization_shape = { TKHI_FLAT_ROW, 1, drops, plan, geometry, NULL, check, describe, layout,
    NULL, NULL, NULL };
