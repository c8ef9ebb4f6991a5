/* Uses the downstream ops through their generated entry points and through the same
 * registry lookup as TokitaiHip's core kernels. Exits 77 when there is no GPU. */
#include <stdio.h>

#include "my_ops/my_ops_ops.h"
#include "tokitai_hip/tokitai_hip.h"

int main(void)
{
    const float a[4] = { 2.0f, -1.0f, 0.5f, 3.0f }, x[4] = { 1.0f, 2.0f, 4.0f, -1.0f };
    const float y[4] = { 0.25f, 0.0f, -1.0f, 3.0f };
    float out[4];

    /* Both registries answer the same lookup. */
    const tkh_kernel_info *axpy = tkh_registry_find(my_ops_registry_my_ops(), "axpy", "f32");
    const tkh_kernel_info *add = tkh_registry_find(tkh_registry_core(), "add", "f32");
    if (axpy == NULL || add == NULL) {
        fprintf(stderr, "my_app: a kernel is missing from its registry\n");
        return 1;
    }
    tkh_context *ctx = NULL;
    tkh_status st = tkh_context_create(&ctx, TKH_DEVICE_FROM_ENV);
    if (st == TKH_ERR_NO_DEVICE) {
        printf("no GPU: %s\n", tkh_last_error());
        return 77;
    }
    if (st == TKH_OK)
        st = my_ops_axpy_f32(ctx, a, x, y, out, 4, NULL);
    if (st != TKH_OK) {
        fprintf(stderr, "my_app: %s: %s\n", tkh_status_name(st), tkh_last_error());
        tkh_context_destroy(ctx);
        return 1;
    }
    for (int i = 0; i < 4; ++i) /* 2.25 -2 1 0, checked by the oracle already */
        printf("%g * %g + %g = %g\n", a[i], x[i], y[i], out[i]);
    tkh_context_destroy(ctx);
    return 0;
}
