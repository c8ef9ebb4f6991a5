/* Uses the downstream ops through their generated entry points and through the same
 * registry lookup as TokitaiHip's core kernels, runs an op under the ulp rule over 2^28
 * inputs, the project's own normalizations over host tensors (DLPack) along either axis and
 * its own matrix product, each result checked by the oracle. Exits 77 when there is no GPU. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "my_ops/my_ops_ops.h"
#include "tokitai_hip/codegen/scalar.h"
#include "tokitai_hip/tokitai_hip.h"

/* The normalizations: masked_softmax f32 over one row (the flat entry point), along the
 * strided axis 0 of a [300, 7] tensor, and rms_norm_offset f16 along axis 1 of a
 * [64, 1000] tensor (eps 1e-6), every row checked by the oracle within its bound. */
static tkh_status normalizations(tkh_context *ctx)
{
    const float x[8] = { 1, 2, 3, 100, -1, 0.5f, 4, -INFINITY }, keep[8] = { 1, 1, 1, 0, 1, 1, 1, 1 };
    float p[8];
    tkh_status st = my_ops_masked_softmax_f32(ctx, x, keep, p, 8, NULL);
    if (st != TKH_OK)
        return st;
    printf("masked_softmax:");
    for (int i = 0; i < 8; ++i) /* 100 is masked: 0 there, the rest as if it were absent */
        printf(" %.4g", p[i]);
    printf("\n");

    enum { R = 300, C = 7, ROWS = 64, COLS = 1000 };
    static float a[R * C], mask[R], b[R * C];
    static uint16_t h[ROWS * COLS], offset[COLS], g[ROWS * COLS];
    for (int i = 0; i < R * C; ++i)
        a[i] = (float)((i * 37) % 101) / 10.0f - 5.0f;
    for (int i = 0; i < R; ++i)
        mask[i] = i % 3 != 0;
    for (int i = 0; i < ROWS * COLS; ++i)
        h[i] = tkh_f32_to_f16((float)((i * 53) % 211) / 50.0f - 2.0f);
    for (int i = 0; i < COLS; ++i)
        offset[i] = tkh_f32_to_f16((float)(i % 17) / 16.0f - 0.5f);
    int64_t shape_a[2] = { R, C }, shape_m[1] = { R }, shape_h[2] = { ROWS, COLS }, shape_o[1] = { COLS };
    const DLDataType f32 = { kDLFloat, 32, 1 }, f16 = { kDLFloat, 16, 1 };
    const DLTensor ta = { a, { kDLCPU, 0 }, 2, f32, shape_a, NULL, 0 }, tm = { mask, { kDLCPU, 0 }, 1, f32, shape_m, NULL, 0 };
    const DLTensor tb = { b, { kDLCPU, 0 }, 2, f32, shape_a, NULL, 0 };
    const DLTensor th = { h, { kDLCPU, 0 }, 2, f16, shape_h, NULL, 0 }, to = { offset, { kDLCPU, 0 }, 1, f16, shape_o, NULL, 0 };
    const DLTensor tg = { g, { kDLCPU, 0 }, 2, f16, shape_h, NULL, 0 };
    tkh_report report;
    st = my_ops_masked_softmax_f32_tensor(ctx, &ta, &tm, &tb, 0, NULL, &report);
    if (st == TKH_OK)
        printf("masked_softmax f32 along axis 0 of [%d, %d]: oracle %s\n", R, C,
            report.oracle_matches ? "matches" : "differs");
    if (st == TKH_OK)
        st = my_ops_rms_norm_offset_f16_tensor(ctx, &th, &to, 1e-6f, &tg, 1, NULL, &report);
    if (st == TKH_OK)
        printf("rms_norm_offset f16 along axis 1 of [%d, %d]: oracle %s\n", ROWS, COLS,
            report.oracle_matches ? "matches" : "differs");
    return st;
}

/* The project's matrix product, alpha (a @ b) + beta c: flat in f32 with an addend of m x n,
 * then over f16 tensors with b a transposed view (b^T stored [n, k]) and c one row broadcast
 * over m; every output checked by the oracle within its bound. */
static tkh_status products(tkh_context *ctx)
{
    enum { M = 37, N = 53, K = 129 };
    static float a[M * K], b[K * N], c[M * N], out[M * N];
    static uint16_t ha[M * K], hbt[N * K], hc[N], hout[M * N];
    for (int i = 0; i < M * K; ++i) {
        a[i] = (float)((i * 29) % 61) / 30.0f - 1.0f;
        ha[i] = tkh_f32_to_f16(a[i]);
    }
    for (int i = 0; i < K * N; ++i) {
        b[i] = (float)((i * 17) % 43) / 21.0f - 1.0f;
        hbt[i % N * K + i / N] = tkh_f32_to_f16(b[i]);
    }
    for (int i = 0; i < M * N; ++i)
        c[i] = (float)(i % 7) - 3.0f;
    for (int j = 0; j < N; ++j)
        hc[j] = tkh_f32_to_f16((float)j / 8.0f);
    tkh_report report;
    tkh_status st = my_ops_gemm_f32(ctx, a, b, c, 0.5f, -2.0f, out, M, N, K, &report);
    if (st == TKH_OK)
        printf("gemm f32 [%d, %d] @ [%d, %d]: oracle %s, largest error %.3g of its bound\n", M, K, K, N,
            report.oracle_matches ? "matches" : "differs", report.max_ulp_error);
    int64_t sa[2] = { M, K }, sb[2] = { K, N }, b_t[2] = { 1, K }, sc[1] = { N }, so[2] = { M, N };
    const DLDataType f16 = { kDLFloat, 16, 1 };
    const DLTensor ta = { ha, { kDLCPU, 0 }, 2, f16, sa, NULL, 0 }, tb = { hbt, { kDLCPU, 0 }, 2, f16, sb, b_t, 0 };
    const DLTensor tc = { hc, { kDLCPU, 0 }, 1, f16, sc, NULL, 0 }, to = { hout, { kDLCPU, 0 }, 2, f16, so, NULL, 0 };
    if (st == TKH_OK)
        st = my_ops_gemm_f16_tensor(ctx, &ta, &tb, &tc, 1.0f, 0.25f, &to, NULL, &report);
    if (st == TKH_OK)
        printf("gemm f16, b a transposed view, c a row: oracle %s, largest error %.3g of its bound\n",
            report.oracle_matches ? "matches" : "differs", report.max_ulp_error);
    return st;
}

int main(void)
{
    const float alpha = 2.0f, x[4] = { 1.0f, 2.0f, 4.0f, -1.0f };
    const float y[4] = { 0.25f, 0.0f, -1.0f, 3.0f };
    float out[4];

    /* Both registries answer the same lookup. */
    const tkh_kernel_info *axpy = tkh_registry_find(my_ops_registry_my_ops(), "axpy", "f32");
    const tkh_kernel_info *add = tkh_registry_find(tkh_registry_core(), "add", "f32");
    if (axpy == NULL || add == NULL) {
        fprintf(stderr, "my_app: a kernel is missing from its registry\n");
        return 1;
    }
    printf("axpy f32: %s\n", axpy->signature);
    tkh_context *ctx = NULL;
    tkh_status st = tkh_context_create(&ctx, TKH_DEVICE_FROM_ENV);
    if (st == TKH_ERR_NO_DEVICE) {
        printf("no GPU: %s\n", tkh_last_error());
        return 77;
    }
    /* A scalar by value, two arrays; then two outputs from one pass. */
    const int32_t num[4] = { 7, -7, INT32_MIN, 5 }, den[4] = { 2, 2, -1, 0 };
    int32_t q[4], r[4];
    if (st == TKH_OK)
        st = my_ops_axpy_f32(ctx, alpha, x, y, out, 4, NULL);
    if (st == TKH_OK)
        st = my_ops_divmod_i32(ctx, num, den, q, r, 4, NULL);
    if (st != TKH_OK) {
        fprintf(stderr, "my_app: %s: %s\n", tkh_status_name(st), tkh_last_error());
        tkh_context_destroy(ctx);
        return 1;
    }
    for (int i = 0; i < 4; ++i) /* 2.25 4 7 1, checked by the oracle already */
        printf("%g * %g + %g = %g\n", alpha, x[i], y[i], out[i]);
    for (int i = 0; i < 4; ++i) /* 3 1, -3 -1, MIN 0, 0 5 */
        printf("divmod(%d, %d) = %d, %d\n", num[i], den[i], q[i], r[i]);
    double mean_abs = 0; /* a reduction in four parts: (7 + 7 + 2^31 + 5) / 4 */
    st = my_ops_mean_abs_i32(ctx, num, &mean_abs, 4, NULL);
    if (st != TKH_OK) {
        fprintf(stderr, "my_app: mean_abs: %s: %s\n", tkh_status_name(st), tkh_last_error());
        tkh_context_destroy(ctx);
        return 1;
    }
    printf("mean |x| = %.17g\n", mean_abs);
    st = normalizations(ctx);
    if (st != TKH_OK) {
        fprintf(stderr, "my_app: normalizations: %s: %s\n", tkh_status_name(st), tkh_last_error());
        tkh_context_destroy(ctx);
        return 1;
    }
    st = products(ctx);
    if (st != TKH_OK) {
        fprintf(stderr, "my_app: products: %s: %s\n", tkh_status_name(st), tkh_last_error());
        tkh_context_destroy(ctx);
        return 1;
    }

    /* logistic over 2^28 float bit patterns (NaN, infinities and subnormals among them):
     * every result within the op's bound of its reference, and the report says how far
     * the farthest was. */
    const size_t n = (size_t)1 << 28;
    uint32_t *in = malloc(n * sizeof *in);
    float *result = malloc(n * sizeof *result);
    tkh_report report;
    st = in && result ? TKH_OK : TKH_ERR_HOST_ALLOC;
    for (size_t i = 0; st == TKH_OK && i < n; ++i)
        in[i] = (uint32_t)(i * 2654435761u); /* a multiplicative walk over all 2^32 patterns */
    if (st == TKH_OK)
        st = my_ops_logistic_f32(ctx, (const float *)in, result, n, &report);
    if (st == TKH_OK)
        printf("logistic over %zu inputs: largest error %.3g ulps (bound %g)\n", n,
            report.max_ulp_error, report.kernel->ulp_bound);
    else
        fprintf(stderr, "my_app: logistic: %s: %s\n", tkh_status_name(st), tkh_last_error());
    /* The textbook sigmoid over the same inputs: where e^-a overflows it gives 0 for a
     * true value below the smallest normal float, within its declared absolute floor. */
    if (st == TKH_OK)
        st = my_ops_sigmoid_f32(ctx, (const float *)in, result, n, &report);
    if (st == TKH_OK)
        printf("sigmoid over %zu inputs: largest error %.3g ulps (bound %g, or within %g)\n", n,
            report.max_ulp_error, report.kernel->ulp_bound, report.kernel->abs_tolerance);
    else
        fprintf(stderr, "my_app: sigmoid: %s: %s\n", tkh_status_name(st), tkh_last_error());
    free(in);
    free(result);
    tkh_context_destroy(ctx);
    return st == TKH_OK ? 0 : 1;
}
