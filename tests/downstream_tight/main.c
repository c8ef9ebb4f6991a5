/* exp_tight (a bound of 0.25 ulps) over 2^20 inputs in [-10, 10): the run must fail with
 * TKH_ERR_ORACLE_MISMATCH and a message that names the element, the input, the error in
 * ulps and the bound; the report must agree. Exits 77 when there is no GPU. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tight/tight_ops.h"
#include "tokitai_hip/tokitai_hip.h"

int main(void)
{
    tkh_context *ctx = NULL;
    tkh_status st = tkh_context_create(&ctx, TKH_DEVICE_FROM_ENV);
    if (st == TKH_ERR_NO_DEVICE) {
        printf("no GPU: %s\n", tkh_last_error());
        return 77;
    }
    const size_t n = (size_t)1 << 20;
    float *in = malloc(n * sizeof *in), *out = malloc(n * sizeof *out);
    int ok = st == TKH_OK && in && out;
    for (size_t i = 0; ok && i < n; ++i)
        in[i] = -10.0f + 20.0f * (float)i / (float)n;
    tkh_report report;
    if (ok)
        st = tight_exp_tight_f32(ctx, in, out, n, &report);
    const char *msg = tkh_last_error();
    printf("%s: %s\n", tkh_status_name(st), msg);
    ok = ok && st == TKH_ERR_ORACLE_MISMATCH && strstr(msg, "expected within 0.25 ulps of") != NULL
        && strstr(msg, " ulps") != NULL && strstr(msg, "= exp_tight(") != NULL
        && report.status == TKH_ERR_ORACLE_MISMATCH && report.first_mismatch < n;
    free(in);
    free(out);
    tkh_context_destroy(ctx);
    if (!ok)
        fprintf(stderr, "tight_run: expected TKH_ERR_ORACLE_MISMATCH naming the bound\n");
    return ok ? 0 : 1;
}
