/* The oracle of a tensor call: the plan walked on the host, elements gathered into
 * blocks that the generated checks compare (elementwise), or each output's reduced
 * elements gathered and folded (reductions). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tensor.h"

enum { BATCH = 4096 }; /* elements gathered per check */

/* Offsets (elements) of 'count' consecutive linear indices from 'first' over plan
 * dimensions [from, to), row-major with 'from' the fastest. */
static void walk(const tkh_plan *p, int from, int to, const int64_t *stride, int64_t first,
    size_t count, int64_t *off)
{
    int64_t coord[TKH_MAX_DIMS], at = 0, rest = first;
    for (int d = from; d < to; ++d) {
        coord[d] = rest % p->size[d];
        rest /= p->size[d];
        at += coord[d] * stride[d];
    }
    for (size_t j = 0; j < count; ++j) {
        off[j] = at;
        for (int d = from; d < to; ++d) { /* the next index: carry */
            at += stride[d];
            if (++coord[d] < p->size[d])
                break;
            at -= coord[d] * stride[d];
            coord[d] = 0;
        }
    }
}

static int64_t offset_at(const tkh_plan *p, int from, int to, const int64_t *stride, int64_t linear)
{
    int64_t off;
    walk(p, from, to, stride, linear, 1, &off);
    return off;
}

static void gather(unsigned char *dst, const unsigned char *base, const int64_t *off, size_t count, size_t size)
{
    for (size_t j = 0; j < count; ++j)
        memcpy(dst + j * size, base + off[j] * (int64_t)size, size);
}

const char *tkhi_format_index(const tkhi_tensor_call *c, int64_t linear, char *buf, size_t size)
{
    const int reduction = tkhi_drops_axes(c->kernel);
    int64_t coord[TKH_MAX_DIMS];
    for (int d = c->ndim - 1; d >= 0; --d) {
        if (reduction && c->reduced_axis[d])
            continue;
        coord[d] = c->shape[d] ? linear % c->shape[d] : 0;
        linear = c->shape[d] ? linear / c->shape[d] : 0;
    }
    size_t len = (size_t)snprintf(buf, size, "[");
    for (int d = 0; d < c->ndim && len < size; ++d) {
        if (reduction && c->reduced_axis[d])
            len += (size_t)snprintf(buf + len, size - len, "%s:", d ? ", " : "");
        else
            len += (size_t)snprintf(buf + len, size - len, "%s%" PRId64, d ? ", " : "", coord[d]);
    }
    if (len < size)
        snprintf(buf + len, size - len, "]");
    return buf;
}

/* The indices to compare: all of [0, count), or the policy's samples (with replacement,
 * splitmix64 from the seed, as the flat host path draws them). */
static int64_t *draw_samples(const tkh_oracle_policy *policy, int64_t count)
{
    if (policy->mode != TKH_ORACLE_SAMPLED)
        return NULL;
    int64_t *s = malloc(policy->samples * sizeof *s);
    uint64_t state = policy->seed;
    for (size_t i = 0; s != NULL && i < policy->samples; ++i)
        s[i] = (int64_t)(tkhi_splitmix64(&state) % (uint64_t)count);
    return s;
}

static tkh_status check_elementwise(const tkhi_tensor_call *c, const tkh_oracle_policy *policy,
    unsigned char *const *base, const int64_t (*out_stride)[TKH_MAX_DIMS], const void *const *scalars,
    tkhi_oracle *o, const int64_t *samples)
{
    const tkh_kernel_info *k = c->kernel;
    const tkh_plan *p = &c->plan;
    unsigned char *buf[TKH_MAX_ARRAYS] = { NULL };
    int64_t *off = malloc(BATCH * sizeof *off);
    tkh_status st = off ? TKH_OK : TKH_ERR_HOST_ALLOC;
    for (unsigned a = 0; a < c->arrays && st == TKH_OK; ++a)
        if ((buf[a] = malloc(BATCH * c->size[a])) == NULL)
            st = TKH_ERR_HOST_ALLOC;
    if (st != TKH_OK)
        st = tkhi_fail(st, "%s: allocating the oracle's blocks failed", c->fn);
    const int64_t total = samples ? (int64_t)policy->samples : p->count;
    for (int64_t first = 0; st == TKH_OK && first < total && o->bad == SIZE_MAX; first += BATCH) {
        const size_t len = (size_t)(total - first < BATCH ? total - first : BATCH);
        for (unsigned a = 0; a < c->arrays; ++a) {
            const int64_t *stride = a < k->arity ? p->stride[a] : out_stride[a - k->arity];
            if (samples)
                for (size_t j = 0; j < len; ++j)
                    off[j] = offset_at(p, 0, p->ndim, stride, samples[first + (int64_t)j]);
            else
                walk(p, 0, p->ndim, stride, first, len, off);
            gather(buf[a], base[a], off, len, c->size[a]);
        }
        const void *in[TKH_MAX_INPUTS], *out[TKH_MAX_OUTPUTS];
        for (unsigned a = 0; a < c->arrays; ++a)
            *(a < k->arity ? &in[a] : &out[a - k->arity]) = buf[a];
        const double before = o->note.worst;
        const size_t bad = k->check(in, out, scalars, len, 0, 0, &o->note);
        if (o->note.worst > before) /* an index of the batch: make it the call's */
            o->note.worst_index = (size_t)(samples ? samples[first + (int64_t)o->note.worst_index]
                : first + (int64_t)o->note.worst_index);
        o->compared += bad < len ? bad + 1 : len;
        if (bad < len)
            o->bad = (size_t)(samples ? samples[first + (int64_t)bad] : first + (int64_t)bad);
    }
    for (unsigned a = 0; a < c->arrays; ++a)
        free(buf[a]);
    free(off);
    return st;
}

static tkh_status check_reduction(const tkhi_tensor_call *c, const tkh_oracle_policy *policy,
    unsigned char *const *base, const int64_t (*out_stride)[TKH_MAX_DIMS], tkhi_oracle *o,
    const int64_t *samples)
{
    const tkh_kernel_info *k = c->kernel;
    const tkh_plan *p = &c->plan;
    const size_t m = (size_t)p->reduce_count; /* 0: a reduction with an identity over no elements */
    unsigned char *buf = malloc((m > 0 ? m : 1) * c->size[0]);
    int64_t *off = malloc((m == 0 ? 1 : m < BATCH ? m : BATCH) * sizeof *off);
    if (buf == NULL || off == NULL) {
        free(buf);
        free(off);
        return tkhi_fail(TKH_ERR_HOST_ALLOC, "%s: allocating %zu bytes for the oracle's folds failed", c->fn,
            m * c->size[0]);
    }
    const int64_t total = samples ? (int64_t)policy->samples : p->count;
    for (int64_t s = 0; s < total && o->bad == SIZE_MAX; ++s) {
        const int64_t out = samples ? samples[s] : s;
        const int64_t at = offset_at(p, p->reduced, p->ndim, p->stride[0], out);
        for (size_t first = 0; first < m; first += BATCH) {
            const size_t len = m - first < BATCH ? m - first : BATCH;
            walk(p, 0, p->reduced, p->stride[0], (int64_t)first, len, off);
            for (size_t j = 0; j < len; ++j)
                off[j] += at;
            gather(buf + first * c->size[0], base[0], off, len, c->size[0]);
        }
        tkh_fold state;
        memset(&state, 0, sizeof state);
        k->fold(buf, 0, m, &state);
        const void *outs[TKH_MAX_OUTPUTS];
        for (unsigned j = 0; j < k->output_count; ++j)
            outs[j] = base[1 + j] + offset_at(p, p->reduced, p->ndim, out_stride[j], out) * (int64_t)c->size[1 + j];
        ++o->compared;
        if (!k->finish(&state, outs, m, c->fold_grid, c->fold_block, &o->note))
            o->bad = (size_t)out;
    }
    free(buf);
    free(off);
    return TKH_OK;
}

/* A normalization: each row (or each sampled row) gathered along the axis with the
 * columns, checked whole by the kernel's row check under the device's fold depth. A
 * mismatch's index is row-major in the output's index space. */
static tkh_status check_normalization(const tkhi_tensor_call *c, const tkh_oracle_policy *policy,
    unsigned char *const *base, const int64_t (*out_stride)[TKH_MAX_DIMS], const void *const *scalars,
    tkhi_oracle *o, const int64_t *samples)
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
    if (st != TKH_OK)
        st = tkhi_fail(st, "%s: allocating the oracle's rows failed", c->fn);
    const void *in[TKH_MAX_INPUTS];
    for (unsigned a = 0; a < k->arity; ++a)
        in[a] = buf[a];
    for (unsigned a = 1; a < k->arity && st == TKH_OK; ++a) /* the columns: the same for every row */
        if (!c->absent[a]) {
            walk(p, 0, 1, p->stride[a], 0, n, off);
            gather(buf[a], base[a], off, n, c->size[a]);
        }
    int axis = 0;
    while (!c->reduced_axis[axis])
        ++axis;
    const int64_t depth = tkh_norm_depth(p->mode, (int64_t)n, c->size[0]);
    const int64_t total = samples ? (int64_t)policy->samples : p->count;
    for (int64_t s = 0; st == TKH_OK && s < total && o->bad == SIZE_MAX; ++s) {
        const int64_t row = samples ? samples[s] : s;
        const int64_t at = offset_at(p, 1, p->ndim, p->stride[0], row);
        walk(p, 0, 1, p->stride[0], 0, n, off);
        for (size_t j = 0; j < n; ++j)
            off[j] += at;
        gather(buf[0], base[0], off, n, c->size[0]);
        const unsigned out = k->arity;
        const int64_t out_at = offset_at(p, 1, p->ndim, out_stride[0], row);
        walk(p, 0, 1, out_stride[0], 0, outs, off);
        for (size_t j = 0; j < outs; ++j)
            off[j] += out_at;
        gather(buf[out], base[out], off, outs, c->size[out]);
        const double before = o->note.worst;
        const size_t bad = k->check_row(in, buf[out], scalars, n, depth, &o->note);
        o->compared += bad < outs ? bad + 1 : outs;
        /* the row-major index of element j of this row: the kept coordinates from 'row' */
        const size_t j = bad < outs ? bad : o->note.worst_index;
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
        if (o->note.worst > before)
            o->note.worst_index = (size_t)lin;
        if (bad < outs)
            o->bad = (size_t)lin;
    }
    for (unsigned a = 0; a < c->arrays; ++a)
        free(buf[a]);
    free(off);
    return st;
}

tkh_status tkhi_tensor_check(const tkhi_tensor_call *c, const tkh_oracle_policy *policy,
    unsigned char *const *base, const int64_t (*out_stride)[TKH_MAX_DIMS], const void *const *scalars,
    tkhi_oracle *o)
{
    memset(o, 0, sizeof *o);
    o->kernel = c->kernel;
    o->policy = *policy;
    o->bad = SIZE_MAX;
    if (policy->mode == TKH_ORACLE_OFF || c->plan.count == 0)
        return TKH_OK;
    int64_t *samples = draw_samples(policy, c->plan.count);
    if (policy->mode == TKH_ORACLE_SAMPLED && samples == NULL)
        return tkhi_fail(TKH_ERR_HOST_ALLOC, "%s: allocating %zu sample indices failed", c->fn, policy->samples);
    const tkh_status st = tkhi_is_reduction(c->kernel) ? check_reduction(c, policy, base, out_stride, o, samples)
        : tkhi_is_normalization(c->kernel) ? check_normalization(c, policy, base, out_stride, scalars, o, samples)
        : check_elementwise(c, policy, base, out_stride, scalars, o, samples);
    free(samples);
    return st;
}

void tkhi_tensor_scatter(const tkhi_tensor_call *c, unsigned output, const void *dense)
{
    const tkh_plan *p = &c->plan;
    const unsigned a = c->kernel->arity + output;
    const int from = tkhi_drops_axes(c->kernel) ? p->reduced : 0;
    const int64_t count = tkhi_plan_outputs(c->kernel, p);
    int64_t off[BATCH];
    for (int64_t first = 0; first < count; first += BATCH) {
        const size_t len = (size_t)(count - first < BATCH ? count - first : BATCH);
        walk(p, from, p->ndim, p->stride[a], first, len, off);
        for (size_t j = 0; j < len; ++j)
            memcpy(c->base[a] + off[j] * (int64_t)c->size[a],
                (const unsigned char *)dense + (size_t)(first + (int64_t)j) * c->size[a], c->size[a]);
    }
}
