/* The host's check of an f32 matrix product, timed on the fake HIP runtime: n x n times
 * n x n on host memory (the host path in pieces, the crew), the fake kernel summing along k
 * in f32 row by row; calls under each policy (off, full, projected), the median of 3 of the
 * host threads' time staging and checking (the report's evidence; under off, staging
 * alone), in seconds. Not a test: nothing asserts a time (docs/matmul.md quotes it).
 *   fake_check_cost [n ...]     (n >= 1024, so that the call goes in pieces; default: 1024 2048) */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fake_f32_product.h"
#include "tokitai_hip/tokitai_hip.h"

/* Plan dimension 0 is k, 1 n, 2 m; b and out contiguous along n (as this program's are). */
static int rows_plan(const void *const *in, void *const *out, const void *const *scalars, const tkh_plan *p,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars, (void)grid, (void)block, (void)scratch, (void)stream;
    const float *a = in[0], *b = in[1];
    for (int64_t i = 0; i < p->size[2]; ++i) {
        float *row = (float *)out[0] + i * p->stride[2][2];
        memset(row, 0, sizeof(float) * (size_t)p->size[1]);
        for (int64_t q = 0; q < p->size[0]; ++q) {
            const float x = a[i * p->stride[0][2] + q * p->stride[0][0]], *bq = b + q * p->stride[1][0];
            for (int64_t j = 0; j < p->size[1]; ++j)
                row[j] += x * bq[j];
        }
    }
    return 0;
}

static const tkh_kernel_info matmul_f32 = { FAKE_F32_PRODUCT(rows_plan) };

static int by_value(const void *a, const void *b)
{
    const double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int by_magnitude(const void *a, const void *b)
{
    const float x = fabsf(*(const float *)a), y = fabsf(*(const float *)b);
    return (x > y) - (x < y);
}

static int run(tkh_context *ctx, int64_t n, tkh_oracle_mode mode, const DLTensor *ta, const DLTensor *tb,
    const DLTensor *to, double *seconds, tkh_report *r)
{
    const tkh_oracle_policy policy = { mode, 0, 1 };
    const DLTensor *in[2] = { ta, tb }, *outs[1] = { to };
    const tkh_tensor_args args = { in, 2, outs, 1, NULL, 0, NULL, 0, 0, NULL };
    double t[3];
    for (int i = 0; i < 3; ++i)
        if (tkh_context_set_oracle(ctx, &policy) != TKH_OK || tkh_tensor_call(ctx, &matmul_f32, &args, r) != TKH_OK) {
            fprintf(stderr, "fake_check_cost: n = %lld: %s\n", (long long)n, tkh_last_error());
            return 1;
        } else {
            const char *line = NULL;
            for (size_t e = 0; e < r->evidence_count; ++e)
                line = strncmp(r->evidence[e], "host threads: ", 14) == 0 ? r->evidence[e] : line;
            if (line == NULL) {
                fprintf(stderr, "fake_check_cost: n = %lld went in one piece: no host threads' time\n", (long long)n);
                return 1;
            }
            t[i] = strtod(line + 14, NULL);
        }
    qsort(t, 3, sizeof t[0], by_value);
    *seconds = t[1];
    return 0;
}

int main(int argc, char **argv)
{
    int64_t sizes[16] = { 1024, 2048 };
    int count = argc > 1 ? argc - 1 : 2;
    for (int i = 1; i < argc && i <= 16; ++i)
        sizes[i - 1] = strtoll(argv[i], NULL, 10);
    count = count > 16 ? 16 : count;
    tkh_context *ctx = NULL;
    if (tkh_context_create(&ctx, 0) != TKH_OK) {
        fprintf(stderr, "fake_check_cost: %s\n", tkh_last_error());
        return 1;
    }
    printf("host threads' time staging and checking an f32 n x n x n product (fake runtime), median of 3 calls:\n");
    for (int s = 0; s < count; ++s) {
        const int64_t n = sizes[s];
        float *a = malloc(sizeof(float) * (size_t)(n * n)), *b = malloc(sizeof(float) * (size_t)(n * n));
        float *out = malloc(sizeof(float) * (size_t)(n * n));
        if (n <= 0 || a == NULL || b == NULL || out == NULL) {
            fprintf(stderr, "fake_check_cost: n = %lld: no memory for it\n", (long long)n);
            return 1;
        }
        uint64_t state = 1;
        for (int64_t i = 0; i < n * n; ++i) { /* uniform in [-1, 1): xorshift, fixed seed */
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            a[i] = (float)((double)(state >> 11) * 0x1p-52 - 1);
            state ^= state << 13, state ^= state >> 7, state ^= state << 17;
            b[i] = (float)((double)(state >> 11) * 0x1p-52 - 1);
        }
        int64_t shape[2] = { n, n };
        const DLDataType f32 = { kDLFloat, 32, 1 };
        const DLTensor ta = { a, { kDLCPU, 0 }, 2, f32, shape, NULL, 0 }, tb = { b, { kDLCPU, 0 }, 2, f32, shape, NULL, 0 };
        const DLTensor to = { out, { kDLCPU, 0 }, 2, f32, shape, NULL, 0 };
        tkh_report r;
        double off = 0, full = 0, projected = 0;
        if (run(ctx, n, TKH_ORACLE_OFF, &ta, &tb, &to, &off, &r) || run(ctx, n, TKH_ORACLE_FULL, &ta, &tb, &to, &full, &r)
            || run(ctx, n, TKH_ORACLE_PROJECTED, &ta, &tb, &to, &projected, &r))
            return 1;
        qsort(out, (size_t)(n * n), sizeof(float), by_magnitude);
        printf("  n = %5lld: staging alone %.4f s; with the full check %.4f s, with the projected check %.4f s "
               "(%zu of %zu outputs by projection, threshold %.3g, %.2f x the outputs' median magnitude)\n",
            (long long)n, off, full, projected, r.oracle_projected, r.oracle_compared, r.oracle_threshold,
            r.oracle_threshold / fabsf(out[n * n / 2]));
        free(a), free(b), free(out);
    }
    tkh_context_destroy(ctx);
    return 0;
}
