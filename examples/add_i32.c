/* The smallest use of TokitaiHip: add two i32 vectors on the GPU, checked against the CPU
 * oracle, and print the evidence. Exits 77 when there is no GPU (ctest shows a skip). */
#include <stdio.h>

#include "tokitai_hip/tokitai_hip.h"

int main(void)
{
    int32_t lhs[6] = { 1, 2, 3, INT32_MAX, INT32_MIN, -1 };
    int32_t rhs[6] = { 10, 20, 30, 1, -1, 1 };
    int32_t out[6];

    tkh_context *ctx = NULL;
    tkh_status st = tkh_context_create(&ctx, TKH_DEVICE_FROM_ENV);
    if (st == TKH_ERR_NO_DEVICE) {
        printf("no GPU: %s\n", tkh_last_error());
        return 77;
    }
    if (st != TKH_OK) {
        fprintf(stderr, "add_i32: %s: %s\n", tkh_status_name(st), tkh_last_error());
        return 1;
    }
    tkh_report report;
    st = tkh_add_i32(ctx, lhs, rhs, out, 6, &report);
    char text[8192];
    if (tkh_report_to_markdown(&report, text, sizeof text, NULL) == TKH_OK)
        fputs(text, stdout);
    if (st == TKH_OK)
        for (int i = 0; i < 6; ++i)
            printf("%d + %d = %d\n", lhs[i], rhs[i], out[i]);
    else
        fprintf(stderr, "add_i32: %s: %s\n", tkh_status_name(st), tkh_last_error());
    tkh_context_destroy(ctx);
    return st == TKH_OK ? 0 : 1;
}
