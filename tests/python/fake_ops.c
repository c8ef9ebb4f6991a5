/* A library for the Python tests without a GPU: the runtime's own sources on the fake HIP
 * runtime (tests/fake), with two host kernels in a registry, "add" over f32 and "sum" over
 * i32 (reductions wrap, so every check is exact). It exports the runtime's API, so the
 * package opens it as TOKITAI_HIP_LIBRARY, and its registry twice: as tkh_registry_core
 * (the package's core catalog) and as pyfake_registry_pyfake (load()). */
#include <stdio.h>
#include <string.h>

#include "fake_i32_sum.h" /* the i32 sum kernel, its plan walk and checks */
#include "tokitai_hip/tensor.h"

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
        plan_offsets(p, 0, p->ndim, i, 3, off);
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
    .domain = "integer", .semantics = "the sum, modulo 2^32, on the host", .launch = host_sum,
    .check = check_sum, .fold = fold_sum, .merge = merge_sum, .finish = finish_sum, .launch_plan = host_sum_plan };
static const tkh_kernel_info *const kernels[] = { &add, &sum };
static const tkh_registry registry = { "pyfake", kernels, 2 };

TKH_API const tkh_registry *tkh_registry_core(void);
TKH_API const tkh_registry *pyfake_registry_pyfake(void);
const tkh_registry *tkh_registry_core(void) { return &registry; }
const tkh_registry *pyfake_registry_pyfake(void) { return &registry; }
