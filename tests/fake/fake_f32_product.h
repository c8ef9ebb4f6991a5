/* An f32 matrix product for the fake runtime's tests and timings: its full check, exact
 * sums in double against the roundings of a sum of k products in f32 (tkh_sum_steps: k to
 * nearest, what the fake's kernels do, or as matrix instructions), and its kernel
 * description around a plan kernel of the caller's (dimension 0 k, 1 n, 2 m). */
#ifndef TOKITAI_HIP_FAKE_F32_PRODUCT_H
#define TOKITAI_HIP_FAKE_F32_PRODUCT_H

#include <math.h>
#include <stdio.h>

#include "tokitai_hip/kernel.h"

static inline size_t f32_check(const void *a, int64_t a_k, const void *b, int64_t b_k, int64_t b_n,
    const void *const *columns, const int64_t *column_n, const void *out, int64_t out_n,
    const void *const *scalars, size_t k, int nearest, size_t count, tkh_check_note *note)
{
    (void)columns, (void)column_n, (void)scalars;
    double unit;
    const double g = tkh_sum_steps((int64_t)k, nearest, &unit) * unit * 0x1p-24;
    for (size_t j = 0; j < count; ++j) {
        double s = 0, mag = 0;
        for (size_t q = 0; q < k; ++q) {
            const double x = (double)((const float *)a)[(int64_t)q * a_k] * ((const float *)b)[(int64_t)q * b_k
                + (int64_t)j * b_n];
            s += x;
            mag += fabs(x);
        }
        const float got = ((const float *)out)[(int64_t)j * out_n];
        if (!(fabs(got - s) <= g / (1 - g) * mag)) {
            snprintf(note->detail, sizeof note->detail, "got %.9g, expected %.9g", got, s);
            return j;
        }
    }
    return count;
}

static const char *const fake_f32_targets[] = { "gfx90a", NULL };
static const char *const fake_f32_none[] = { NULL };
static const tkh_operand fake_ab_f32[] = { { "a", "f32", 4, NULL, 0, 0, NULL }, { "b", "f32", 4, NULL, 0, 0, NULL } };
static const tkh_operand fake_out_f32[] = { { "out", "f32", 4, "bound", 0, 0, NULL } };

#define FAKE_F32_PRODUCT(plan_)                                                                       \
    .catalog = "fake", .op = "matmul", .type = "f32", .symbol = "fake_matmul", .shape = "matmul",      \
    .shape_kind = TKH_SHAPE_MATMUL, .signature = "matmul", .arity = 2, .inputs = fake_ab_f32,         \
    .output_count = 1, .outputs = fake_out_f32, .block = 256, .vector_width = 1, .domain = "float",   \
    .representation = "dense", .semantics = "matmul", .compare_rule = "bound", .comparison = "bound", \
    .platform = "amd", .targets = fake_f32_targets, .source_fingerprint = "", .compiler = "",         \
    .compiler_fingerprint = "", .build_fingerprint = "", .build_command = "",                        \
    .obligations = fake_f32_none, .required_evidence = fake_f32_none, .degradations = fake_f32_none,  \
    .non_claims = fake_f32_none, .launch_plan = plan_, .check_product = f32_check, .projectable = 1,  \
    .accumulator = "f32"

#endif
