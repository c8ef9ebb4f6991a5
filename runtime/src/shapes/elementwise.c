/* The elementwise shape: NumPy's broadcasting of the inputs, one output element per
 * element of the broadcast shape, checked by the generated check over gathered blocks. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "shapes.h"

/* Elementwise: the broadcast shape, the outputs against it, and each array's strides in
 * that shape's dimensions (0 where an input is broadcast). */
static tkh_status plan(const char *fn, tkhi_call *c, const tkh_tensor_args *args, int64_t (*stride)[TKH_MAX_DIMS])
{
    (void)args;
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
                tkhi_operand_of(c, i, name, sizeof name);
                return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s of shape %s does not broadcast "
                    "with the inputs before it (%s so far): dimension %d is %" PRId64 ", expected %" PRId64
                    " or 1", fn, name, tkhi_format_dims(s1, sizeof s1, t->ndim, t->shape),
                    tkhi_format_dims(s2, sizeof s2, c->ndim, c->shape), d, t->shape[d], *b);
            }
            if (t->shape[d] != 1)
                *b = t->shape[d];
        }
    }
    if (tkhi_outputs_shape(c, c->ndim, c->shape))
        return TKH_OK;
    const int unlike = tkhi_output_unlike(c, c->ndim, c->shape);
    if (unlike >= 0) {
        const DLTensor *t = c->tensor[unlike];
        tkhi_operand_of(c, (unsigned)unlike, name, sizeof name);
        return tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: tensor %s has shape %s: expected the inputs' "
            "broadcast shape %s", fn, name, tkhi_format_dims(s1, sizeof s1, t->ndim, t->shape),
            tkhi_format_dims(s2, sizeof s2, c->ndim, c->shape));
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
    p->ndim = tkhi_plan_merge(p, c->arrays, 0, p->ndim);
    int flat = p->ndim <= 1;
    for (unsigned a = 0; a < c->arrays && flat; ++a)
        flat = p->ndim == 0 || p->stride[a][0] == 1;
    c->flat = flat;
    return TKH_OK;
}


/* A block per block-sized slice, as many as the hardware takes (the grid-stride loop
 * covers the rest). */
static void geometry(const tkh_context *ctx, tkhi_call *c, tkh_plan *p, const void *input, unsigned *grid,
    unsigned *block)
{
    (void)ctx;
    (void)input;
    const int64_t blocks = (p->count + c->kernel->block - 1) / c->kernel->block;
    *block = c->kernel->block;
    *grid = (unsigned)(blocks < 1 ? 1 : blocks > TKHI_MAX_GRID ? TKHI_MAX_GRID : blocks);
}

/* The flat kernel moves vector_width elements a thread and step. */
static void flat_geometry(const tkh_context *ctx, const tkh_kernel_info *k, size_t n, unsigned *grid,
    unsigned *block)
{
    (void)ctx;
    const size_t per_block = (size_t)k->block * (k->vector_width ? k->vector_width : 1);
    const size_t blocks = (n + per_block - 1) / per_block;
    *grid = (unsigned)(blocks < TKHI_MAX_GRID ? blocks : TKHI_MAX_GRID);
    *block = k->block;
}

/* Adds one block's result (its index j of the block is 'index[j]', or first + j) to part. */
static void note_block(tkhi_oracle_part *part, size_t bad, size_t len, double before, int64_t first,
    const int64_t *index)
{
    if (part->note.worst > before) /* an index of the block: make it the call's */
        part->note.worst_index = (size_t)(index ? index[part->note.worst_index] : first + (int64_t)part->note.worst_index);
    part->compared += bad < len ? bad + 1 : len;
    if (bad < len)
        part->bad = (size_t)(index ? index[bad] : first + (int64_t)bad);
}

static tkh_status check(const tkhi_call *c, unsigned char *const *base, const int64_t (*stride)[TKH_MAX_DIMS],
    const void *const *scalars, int64_t first, int64_t count, const int64_t *samples, tkhi_oracle_part *part)
{
    const tkh_kernel_info *k = c->kernel;
    const tkh_plan *p = &c->plan;
    const void *in[TKH_MAX_INPUTS], *out[TKH_MAX_OUTPUTS];
    int compact = p->ndim == 1 && samples == NULL; /* a range of a flat call: compared in place */
    for (unsigned a = 0; a < c->arrays && compact; ++a)
        compact = stride[a][0] == 1;
    if (compact) {
        for (unsigned a = 0; a < c->arrays; ++a)
            *(a < k->arity ? &in[a] : &out[a - k->arity]) = base[a] + first * (int64_t)c->size[a];
        const double before = part->note.worst;
        note_block(part, k->check(in, out, scalars, (size_t)count, 0, 0, &part->note), (size_t)count, before,
            first, NULL);
        return TKH_OK;
    }
    const size_t most = (size_t)(count < TKHI_BATCH ? count : TKHI_BATCH);
    unsigned char *buf[TKH_MAX_ARRAYS] = { NULL };
    int64_t *off = malloc(most * sizeof *off);
    tkh_status st = off ? TKH_OK : TKH_ERR_HOST_ALLOC;
    for (unsigned a = 0; a < c->arrays && st == TKH_OK; ++a)
        if ((buf[a] = malloc(most * c->size[a])) == NULL)
            st = TKH_ERR_HOST_ALLOC;
    for (unsigned a = 0; a < c->arrays; ++a)
        *(a < k->arity ? &in[a] : &out[a - k->arity]) = buf[a];
    for (int64_t at = 0; st == TKH_OK && at < count && part->bad == SIZE_MAX; at += TKHI_BATCH) {
        const size_t len = (size_t)(count - at < TKHI_BATCH ? count - at : TKHI_BATCH);
        for (unsigned a = 0; a < c->arrays; ++a) {
            if (samples)
                for (size_t j = 0; j < len; ++j)
                    off[j] = tkhi_offset_at(p, 0, p->ndim, stride[a], samples[at + (int64_t)j]);
            else
                tkhi_walk(p, 0, p->ndim, stride[a], first + at, len, off);
            tkhi_gather(buf[a], base[a], off, len, c->size[a]);
        }
        const double before = part->note.worst;
        note_block(part, k->check(in, out, scalars, len, 0, 0, &part->note), len, before, first + at,
            samples ? samples + at : NULL);
    }
    for (unsigned a = 0; a < c->arrays; ++a)
        free(buf[a]);
    free(off);
    return st;
}

static void describe(const tkhi_call *c, tkh_report *report)
{
    char shape[160];
    tkhi_evidence(report, "broadcast shape %s: %" PRId64 " elements",
        tkhi_format_dims(shape, sizeof shape, c->ndim, c->shape), c->plan.count);
}

static const char *layout(const tkhi_call *c)
{
    (void)c;
    return "";
}

const tkhi_shape tkhi_elementwise_shape = { TKHI_FLAT_KERNEL, 0, NULL, plan, geometry, flat_geometry, check, describe, layout,
    NULL, NULL, NULL };
