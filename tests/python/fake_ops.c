/* A library for the Python tests without a GPU: the runtime's own sources on the fake HIP
 * runtime (tests/fake), with two host kernels in a registry, "add" over f32 and "sum" over
 * i32 (reductions wrap, so every check is exact). It exports the runtime's API, so the
 * package opens it as TOKITAI_HIP_LIBRARY, and its registry twice: as tkh_registry_core
 * (the package's core catalog) and as pyfake_registry_pyfake (load()). */
#include <stdio.h>
#include <string.h>

#include "tokitai_hip/tensor.h"

static void offsets(const tkh_plan *p, int from, int to, int64_t i, unsigned arrays, int64_t *off)
{
    for (int d = from; d < to; ++d) {
        const int64_t c = i % p->size[d];
        i /= p->size[d];
        for (unsigned a = 0; a < arrays; ++a)
            off[a] += c * p->stride[a][d];
    }
}

static int add_flat(const void *const *in, void *const *out, const void *const *scalars, size_t n,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    for (size_t i = 0; i < n; ++i)
        ((float *)out[0])[i] = ((const float *)in[0])[i] + ((const float *)in[1])[i];
    return 0;
}

static int add_plan(const void *const *in, void *const *out, const void *const *scalars, const tkh_plan *p,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    for (int64_t i = 0; i < p->count; ++i) {
        int64_t off[3] = { 0, 0, 0 };
        offsets(p, 0, p->ndim, i, 3, off);
        ((float *)out[0])[off[2]] = ((const float *)in[0])[off[0]] + ((const float *)in[1])[off[1]];
    }
    return 0;
}

static size_t add_check(const void *const *in, const void *const *out, const void *const *scalars, size_t n,
    unsigned grid, unsigned block, tkh_check_note *note)
{
    (void)scalars, (void)grid, (void)block;
    const float *a = in[0], *b = in[1], *o = out[0];
    for (size_t i = 0; i < n; ++i)
        if (memcmp(&o[i], &(float){ a[i] + b[i] }, 4) != 0) {
            snprintf(note->detail, sizeof note->detail, "got %g, expected %g = add(%g, %g)", o[i], a[i] + b[i], a[i], b[i]);
            return i;
        }
    return n;
}

static int32_t wrap(int32_t a, int32_t b) { return (int32_t)((uint32_t)a + (uint32_t)b); }

static int sum_flat(const void *const *in, void *const *out, const void *const *scalars, size_t n,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    int32_t s = 0;
    for (size_t i = 0; i < n; ++i)
        s = wrap(s, ((const int32_t *)in[0])[i]);
    *(int32_t *)out[0] = s;
    return 0;
}

/* As the generated kernels take a split plan: a partial per block in 'scratch', then their sum. */
static int sum_plan(const void *const *in, void *const *out, const void *const *scalars, const tkh_plan *p,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)stream;
    int32_t *partial = scratch;
    for (int64_t o = 0; o < p->count; ++o) {
        int64_t at[2] = { 0, 0 };
        offsets(p, p->reduced, p->ndim, o, 2, at);
        int32_t s = 0;
        for (int y = 0; y < p->split; ++y) {
            int32_t part = 0;
            for (int64_t r = y * p->chunk; r < p->reduce_count && r < (y + 1) * p->chunk; ++r) {
                int64_t off[1] = { at[0] };
                offsets(p, 0, p->reduced, r, 1, off);
                part = wrap(part, ((const int32_t *)in[0])[off[0]]);
            }
            if (p->split > 1)
                partial[y * p->count + o] = part;
            else
                s = part;
        }
        for (int y = 0; y < p->split && p->split > 1; ++y)
            s = wrap(s, partial[y * p->count + o]);
        ((int32_t *)out[0])[at[1]] = s;
    }
    return 0;
}

static void sum_fold(const void *input, size_t first, size_t count, tkh_fold *state)
{
    (void)first;
    int32_t s;
    memcpy(&s, state->acc, 4);
    for (size_t i = 0; i < count; ++i)
        s = wrap(s, ((const int32_t *)input)[i]);
    memcpy(state->acc, &s, 4);
}

static void sum_merge(tkh_fold *state, const tkh_fold *later)
{
    int32_t a, b;
    memcpy(&a, state->acc, 4);
    memcpy(&b, later->acc, 4);
    a = wrap(a, b);
    memcpy(state->acc, &a, 4);
}

static int sum_finish(const tkh_fold *state, const void *const *outputs, size_t n, unsigned grid, unsigned block,
    tkh_check_note *note)
{
    (void)n, (void)grid, (void)block;
    if (memcmp(state->acc, outputs[0], 4) == 0)
        return 1;
    snprintf(note->detail, sizeof note->detail, "got %d", (int)*(const int32_t *)outputs[0]);
    return 0;
}

static size_t sum_check(const void *const *in, const void *const *out, const void *const *scalars, size_t n,
    unsigned grid, unsigned block, tkh_check_note *note)
{
    (void)scalars;
    tkh_fold state = { 0 };
    sum_fold(in[0], 0, n, &state);
    return sum_finish(&state, out, n, grid, block, note) ? n : 0;
}

static const char *const targets[] = { "gfx90a", NULL };
static const char *const none[] = { NULL };
static const tkh_operand f32_in[] = { { "lhs", "f32", 4, NULL, 0, 0, NULL, NULL }, { "rhs", "f32", 4, NULL, 0, 0, NULL, NULL } };
static const tkh_operand f32_out[] = { { "out", "f32", 4, "exact", 0, 0, NULL, NULL } };
static const tkh_operand i32_in[] = { { "in", "i32", 4, NULL, 0, 0, NULL, NULL } };
static const tkh_operand i32_out[] = { { "out", "i32", 4, "exact", 0, 0, NULL, NULL } };

#define COMMON                                                                                       \
    .catalog = "pyfake", .block = 256, .vector_width = 1, .representation = "dense",                  \
    .compare_rule = "exact", .comparison = "exact: every element bit-equal to the oracle's",          \
    .platform = "amd", .targets = targets, .source_fingerprint = "", .compiler = "",                 \
    .compiler_fingerprint = "", .build_fingerprint = "", .build_command = "", .obligations = none,   \
    .required_evidence = none, .degradations = none, .non_claims = none, .output_count = 1

static const tkh_kernel_info add = { COMMON, .op = "add", .type = "f32", .symbol = "pyfake_add_f32",
    .signature = "f32 lhs, f32 rhs -> f32 out", .shape = "elementwise", .shape_kind = TKH_SHAPE_ELEMENTWISE,
    .arity = 2, .inputs = f32_in, .outputs = f32_out, .domain = "float", .semantics = "lhs + rhs, on the host",
    .launch = add_flat, .check = add_check, .launch_plan = add_plan };
static const tkh_kernel_info sum = { COMMON, .op = "sum", .type = "i32", .symbol = "pyfake_sum_i32",
    .signature = "i32 in -> i32 out", .shape = "reduction", .shape_kind = TKH_SHAPE_REDUCTION, .arity = 1,
    .inputs = i32_in, .outputs = i32_out, .out_count = 1, .has_identity = 1, .scratch_size = 4,
    .domain = "integer", .semantics = "the sum, modulo 2^32, on the host", .launch = sum_flat,
    .check = sum_check, .fold = sum_fold, .merge = sum_merge, .finish = sum_finish, .launch_plan = sum_plan };
static const tkh_kernel_info *const kernels[] = { &add, &sum };
static const tkh_registry registry = { "pyfake", kernels, 2 };

TKH_API const tkh_registry *tkh_registry_core(void);
TKH_API const tkh_registry *pyfake_registry_pyfake(void);
const tkh_registry *tkh_registry_core(void) { return &registry; }
const tkh_registry *pyfake_registry_pyfake(void) { return &registry; }
