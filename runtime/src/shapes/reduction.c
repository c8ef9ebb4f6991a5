/* The reduction shape: the input folded over a set of axes (NumPy's axes and keepdims),
 * one output element per kept index, each checked by the oracle folding the same elements
 * under the launch's sum bound. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shapes.h"

#define TKHI_BLOCKS_PER_UNIT 32u      /* flat kernels: partials per compute unit */
#define TKHI_AXIS_BLOCKS_PER_UNIT 16u /* axis kernels: blocks per compute unit at most */
/* Reductions with fewer blocks than this per compute unit split each output's elements
 * (rows: blocks of 256 threads; columns: of 1024), each block folding at least so many. */
#define TKHI_SPLIT_ROWS_PER_UNIT 8
#define TKHI_SPLIT_COLUMNS_PER_UNIT 2
#define TKHI_SPLIT_ROWS_LEAST 4096
#define TKHI_SPLIT_COLUMNS_LEAST 256

/* A reduction: the axes, the outputs' shape, and the plan with the reduced dimensions
 * first (in the input's order, so that an index along them is NumPy's), then the kept. */
static tkh_status plan(const char *fn, tkhi_call *c, const tkh_tensor_args *args, int64_t (*stride)[TKH_MAX_DIMS])
{
    const tkh_kernel_info *k = c->kernel;
    const DLTensor *x = c->tensor[0];
    char name[80], s1[200], s2[200], s3[200];
    c->ndim = x->ndim;
    if (x->ndim > 0)
        memcpy(c->shape, x->shape, sizeof(int64_t) * (size_t)x->ndim);
    if (args->axis_count > 0 && args->axes == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: axes is NULL and axis_count %u", fn, args->axis_count);
    for (int d = 0; d < x->ndim; ++d) /* NULL: every axis; an empty list: none (NumPy's axis=()) */
        c->reduced_axis[d] = args->axis_count == 0 && args->axes == NULL;
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
    tkh_plan *p = &c->plan;
    p->count = p->reduce_count = 1;
    int64_t want[TKH_MAX_DIMS];
    int want_ndim = 0;
    for (int d = 0; d < x->ndim; ++d) {
        *(c->reduced_axis[d] ? &p->reduce_count : &p->count) *= x->shape[d];
        if (!c->reduced_axis[d] || args->keepdims)
            want[want_ndim++] = c->reduced_axis[d] ? 1 : x->shape[d];
    }
    if (p->reduce_count == 0 && p->count > 0 && !k->has_identity) {
        int d = 0;
        while (!c->reduced_axis[d] || x->shape[d] != 0)
            ++d;
        return tkhi_fail(TKH_ERR_EMPTY, "%s: %s_%s reduces over zero elements (axis %d of tensor %s, "
            "shape %s, has size 0) and has no identity to give: expected at least one element (as NumPy "
            "and torch refuse it)", fn, k->op, k->type, d, k->inputs[0].name,
            tkhi_format_dims(s1, sizeof s1, x->ndim, x->shape));
    }
    if (tkhi_outputs_shape(c, want_ndim, want))
        return TKH_OK;
    const int unlike = tkhi_output_unlike(c, want_ndim, want);
    if (unlike >= 0) {
        const DLTensor *t = c->tensor[unlike];
        tkhi_operand_of(c, (unsigned)unlike, name, sizeof name);
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has shape %s: expected %s (the input's "
            "shape %s reduced%s)", fn, name, tkhi_format_dims(s1, sizeof s1, t->ndim, t->shape),
            tkhi_format_dims(s2, sizeof s2, want_ndim, want), tkhi_format_dims(s3, sizeof s3,
            x->ndim, x->shape), args->keepdims ? " with keepdims" : "");
    }
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
            p->stride[0][n] = stride[0][axis];
            for (unsigned o = 0; o < k->output_count; ++o)
                p->stride[1 + o][n] = reduced ? 0 : stride[1 + o][out_axis];
            ++n;
        }
        if (pass == 0) {
            p->reduced = tkhi_plan_merge(p, c->arrays, 0, n);
            n = p->reduced;
        }
    }
    const int kept_from = p->reduced;
    int kept_end = tkhi_plan_merge(p, c->arrays, kept_from, n);
    p->ndim = kept_end;
    if (p->reduce_count == 0 && p->count > 0) {
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


/* Rows: a block per output (8 x as many as columns allow); columns: a thread column per
 * output, 32 outputs a block. Where that leaves the device short of blocks, each output's
 * elements are split over blocks whose partials a second kernel folds. */
static void geometry(const tkh_context *ctx, tkhi_call *c, tkh_plan *p, const void *input, unsigned *grid,
    unsigned *block)
{
    const tkh_kernel_info *k = c->kernel;
    const int rows = p->mode == TKH_PLAN_ROWS;
    const int64_t units = ctx->device.compute_units > 0 ? ctx->device.compute_units : 1;
    const int64_t cap = units * TKHI_AXIS_BLOCKS_PER_UNIT * (rows ? 8 : 1);
    const unsigned v = k->vector_width > 0 ? k->vector_width : 1;
    const int64_t width = rows ? 1 : TKH_PLAN_COLUMN_WIDTH
        * (tkh_plan_column_vector(p, c->arrays, input, v) ? v : 1);
    int64_t blocks = (p->count + width - 1) / width;
    blocks = blocks < cap ? blocks : cap;
    const int64_t want = units * (rows ? TKHI_SPLIT_ROWS_PER_UNIT : TKHI_SPLIT_COLUMNS_PER_UNIT);
    int64_t split = blocks > 0 ? want / blocks : 1; /* rounded down: one wave of blocks, no tail */
    const int64_t most = p->reduce_count / (rows ? TKHI_SPLIT_ROWS_LEAST : TKHI_SPLIT_COLUMNS_LEAST);
    split = split < most ? split : most;
    split = split < TKH_PLAN_MAX_SPLIT ? split : TKH_PLAN_MAX_SPLIT;
    split = split > 1 ? split : 1;
    /* chunks of whole 16-element steps, so that each block's vectors stay aligned */
    p->chunk = split == 1 ? p->reduce_count : ((p->reduce_count + split - 1) / split + 15) / 16 * 16;
    p->split = p->chunk > 0 ? (int)((p->reduce_count + p->chunk - 1) / p->chunk) : 1; /* 0: no elements */
    *block = rows ? k->block : TKH_PLAN_COLUMN_WIDTH * TKH_PLAN_COLUMN_ROWS;
    *grid = (unsigned)(blocks < 1 ? 1 : blocks > TKHI_MAX_GRID ? TKHI_MAX_GRID : blocks);
    c->fold_grid = (unsigned)p->split;
    c->fold_block = rows ? k->block : TKH_PLAN_COLUMN_ROWS;
}

/* The flat kernel: a few blocks per compute unit, each folding a long slice, so that
 * there are few partials. */
static void flat_geometry(const tkh_context *ctx, const tkh_kernel_info *k, size_t n, unsigned *grid,
    unsigned *block)
{
    const size_t per_block = (size_t)k->block * (k->vector_width ? k->vector_width : 1);
    const size_t blocks = (n + per_block - 1) / per_block;
    const size_t cap = (size_t)(ctx->device.compute_units > 0 ? ctx->device.compute_units : 1) * TKHI_BLOCKS_PER_UNIT;
    *grid = (unsigned)(blocks < cap ? blocks : cap);
    *block = k->block;
}

static tkh_status check(const tkhi_call *c, unsigned char *const *base, const int64_t (*stride)[TKH_MAX_DIMS],
    const void *const *scalars, int64_t first, int64_t count, const int64_t *samples, tkhi_oracle_part *part)
{
    (void)scalars;
    const tkh_kernel_info *k = c->kernel;
    const tkh_plan *p = &c->plan;
    const size_t m = (size_t)p->reduce_count; /* 0: a reduction with an identity over no elements */
    /* Folded in place where the reduced elements lie compact, else gathered first. */
    const int compact = p->reduced == 1 && stride[0][0] == 1;
    unsigned char *buf = compact ? NULL : malloc((m > 0 ? m : 1) * c->size[0]);
    int64_t *off = compact ? NULL : malloc((m == 0 ? 1 : m < TKHI_BATCH ? m : TKHI_BATCH) * sizeof *off);
    if (!compact && (buf == NULL || off == NULL)) {
        free(buf);
        free(off);
        return TKH_ERR_HOST_ALLOC;
    }
    for (int64_t s = 0; s < count && part->bad == SIZE_MAX; ++s) {
        const int64_t out = samples ? samples[s] : first + s;
        const int64_t at = tkhi_offset_at(p, p->reduced, p->ndim, stride[0], out);
        const unsigned char *elements = base[0] + at * (int64_t)c->size[0];
        for (size_t from = 0; !compact && from < m; from += TKHI_BATCH) {
            const size_t len = m - from < TKHI_BATCH ? m - from : TKHI_BATCH;
            tkhi_walk(p, 0, p->reduced, stride[0], (int64_t)from, len, off);
            for (size_t j = 0; j < len; ++j)
                off[j] += at;
            tkhi_gather(buf + from * c->size[0], base[0], off, len, c->size[0]);
        }
        tkh_fold state;
        memset(&state, 0, sizeof state);
        k->fold(compact ? elements : buf, 0, m, &state);
        const void *outs[TKH_MAX_OUTPUTS];
        for (unsigned j = 0; j < k->output_count; ++j)
            outs[j] = base[1 + j] + tkhi_offset_at(p, p->reduced, p->ndim, stride[1 + j], out) * (int64_t)c->size[1 + j];
        ++part->compared;
        if (!k->finish(&state, outs, m, c->fold_grid, c->fold_block, &part->note))
            part->bad = (size_t)out;
    }
    free(buf);
    free(off);
    return TKH_OK;
}


static void describe(const tkhi_call *c, tkh_report *report)
{
    char shape[160], axes_text[160];
    int64_t axes[TKH_MAX_DIMS];
    int n = 0;
    for (int d = 0; d < c->ndim; ++d)
        if (c->reduced_axis[d])
            axes[n++] = d;
    tkhi_evidence(report, "reduced axes %s of %s: %" PRId64 " outputs of %" PRId64 " elements each",
        tkhi_format_dims(axes_text, sizeof axes_text, n, axes),
        tkhi_format_dims(shape, sizeof shape, c->ndim, c->shape), c->plan.count, c->plan.reduce_count);
}

static const char *layout(const tkhi_call *c)
{
    return c->plan.mode == TKH_PLAN_ROWS ? ", a block per output" : ", a thread column per output";
}

/* A reduction's outputs drop the reduced dimensions (keepdims only reshapes them). */
static int drops(const tkh_kernel_info *k)
{
    (void)k;
    return 1;
}

const tkhi_shape tkhi_reduction_shape = { TKHI_FLAT_KERNEL, 1, drops, plan, geometry, flat_geometry, check, describe, layout,
    NULL, NULL, NULL };
