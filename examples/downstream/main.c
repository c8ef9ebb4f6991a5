/* Uses the downstream ops through their generated entry points and through the same
 * registry lookup as TokitaiHip's core kernels, and runs an op under the ulp rule over
 * 2^28 inputs. Exits 77 when there is no GPU. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "my_ops/my_ops_ops.h"
#include "tokitai_hip/tokitai_hip.h"

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
    free(in);
    free(result);
    tkh_context_destroy(ctx);
    return st == TKH_OK ? 0 : 1;
}
