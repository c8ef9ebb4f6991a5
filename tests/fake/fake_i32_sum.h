/* An i32 sum for the fake runtime's tests (and the Python tests' fake library): the plan
 * walk, a flat kernel, a split-plan kernel as the generated ones take plans (a partial per
 * block in scratch, then their sum), and its check in parts as generated reductions have
 * it; sums wrap modulo 2^32, so every check is exact. */
#ifndef TOKITAI_HIP_FAKE_I32_SUM_H
#define TOKITAI_HIP_FAKE_I32_SUM_H

#include <stdio.h>
#include <string.h>

#include "tokitai_hip/kernel.h"

/* Element i of a plan's index space: each array's offset, decomposed plainly. */
static inline void plan_offsets(const tkh_plan *p, int from, int to, int64_t i, unsigned arrays, int64_t *off)
{
    for (int d = from; d < to; ++d) {
        const int64_t c = i % p->size[d];
        i /= p->size[d];
        for (unsigned a = 0; a < arrays; ++a)
            off[a] += c * p->stride[a][d];
    }
}

static inline int32_t wrap_add(int32_t a, int32_t b)
{
    return (int32_t)((uint32_t)a + (uint32_t)b);
}

static inline int host_sum(const void *const *in, void *const *out, const void *const *scalars, size_t n,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    int32_t s = 0;
    for (size_t i = 0; i < n; ++i)
        s = wrap_add(s, ((const int32_t *)in[0])[i]);
    *(int32_t *)out[0] = s;
    return 0;
}

/* Split plans as the generated kernels take them: a partial per block along each output's
 * elements in 'scratch', then their sum. */
static inline int host_sum_plan(const void *const *in, void *const *out, const void *const *scalars,
    const tkh_plan *p, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)stream;
    if (p->split < 1 || p->split > TKH_PLAN_MAX_SPLIT || (p->split > 1 && scratch == NULL)
        || (p->reduce_count > 0 && (int64_t)(p->split - 1) * p->chunk >= p->reduce_count)
        || (int64_t)p->split * p->chunk < p->reduce_count)
        return 1; /* hipErrorInvalidValue */
    int32_t *partial = scratch;
    for (int64_t o = 0; o < p->count; ++o) {
        int64_t at[2] = { 0, 0 };
        plan_offsets(p, p->reduced, p->ndim, o, 2, at);
        int32_t s = 0;
        for (int y = 0; y < p->split; ++y) {
            int32_t part = 0;
            for (int64_t r = y * p->chunk; r < p->reduce_count && r < (y + 1) * p->chunk; ++r) {
                int64_t off[1] = { at[0] };
                plan_offsets(p, 0, p->reduced, r, 1, off);
                part = wrap_add(part, ((const int32_t *)in[0])[off[0]]);
            }
            if (p->split > 1)
                partial[y * p->count + o] = part;
            else
                s = part;
        }
        for (int y = 0; y < p->split && p->split > 1; ++y)
            s = wrap_add(s, partial[y * p->count + o]);
        ((int32_t *)out[0])[at[1]] = s;
    }
    return 0;
}

static inline void fold_sum(const void *input, size_t first, size_t count, tkh_fold *state)
{
    (void)first;
    int32_t s;
    memcpy(&s, state->acc, sizeof s);
    for (size_t i = 0; i < count; ++i)
        s = wrap_add(s, ((const int32_t *)input)[i]);
    memcpy(state->acc, &s, sizeof s);
}

static inline int finish_sum(const tkh_fold *state, const void *const *outputs, size_t n, unsigned grid,
    unsigned block, tkh_check_note *note)
{
    (void)n, (void)grid, (void)block;
    if (memcmp(state->acc, outputs[0], 4) == 0)
        return 1;
    snprintf(note->detail, sizeof note->detail, "got %d", (int)*(const int32_t *)outputs[0]);
    return 0;
}

static inline size_t check_sum(const void *const *in, const void *const *out, const void *const *scalars,
    size_t n, unsigned grid, unsigned block, tkh_check_note *note)
{
    (void)scalars;
    tkh_fold state = { 0 };
    fold_sum(in[0], 0, n, &state);
    return finish_sum(&state, out, n, grid, block, note) ? n : 0;
}

static inline void merge_sum(tkh_fold *state, const tkh_fold *later)
{
    fold_sum(later->acc, 0, 1, state);
}

#endif
