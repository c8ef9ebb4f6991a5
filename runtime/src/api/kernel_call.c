/* The flat entry points: arrays of n elements (a matrix product's: m x k and k x n), on the
 * host (checked) or on the device (enqueued); every generated flat entry point goes
 * through one of them. */
#include "paths/paths.h"

tkh_status tkh_kernel_call(tkh_context *ctx, const tkh_kernel_info *kernel, const tkh_args *args,
    size_t n, tkh_report *report)
{
    const double start = tkhi_now_seconds();
    tkhi_clear_error();
    return tkhi_flat_call("tkh_kernel_call", ctx, kernel, args, n, 0, NULL, report, start);
}

tkh_status tkh_kernel_run(tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, unsigned input_count, void *out, size_t n, tkh_report *report)
{
    const double start = tkhi_now_seconds();
    tkhi_clear_error();
    tkh_args args;
    void *outputs[1] = { out };
    tkh_status st = tkhi_single_output("tkh_kernel_run", kernel, inputs, input_count, outputs, &args);
    if (st == TKH_OK)
        return tkhi_flat_call("tkh_kernel_run", ctx, kernel, &args, n, 0, NULL, report, start);
    tkhi_report_begin(report, ctx != NULL ? &ctx->device : NULL, kernel, n);
    return tkhi_report_end(report, st, start);
}

tkh_status tkh_kernel_enqueue(tkh_context *ctx, const tkh_kernel_info *kernel, const tkh_args *args,
    size_t n, tkh_stream stream)
{
    tkhi_clear_error();
    return tkhi_flat_call("tkh_kernel_enqueue", ctx, kernel, args, n, 1, stream, NULL, 0);
}

tkh_status tkh_kernel_launch(tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, unsigned input_count, void *out, size_t n, tkh_stream stream)
{
    tkhi_clear_error();
    tkh_args args;
    void *outputs[1] = { out };
    tkh_status st = tkhi_single_output("tkh_kernel_launch", kernel, inputs, input_count, outputs, &args);
    return st != TKH_OK ? st : tkhi_flat_call("tkh_kernel_launch", ctx, kernel, &args, n, 1, stream, NULL, 0);
}

tkh_status tkh_product_call(tkh_context *ctx, const tkh_kernel_info *kernel, const tkh_args *args, size_t m,
    size_t n, size_t k, tkh_report *report)
{
    const double start = tkhi_now_seconds();
    tkhi_clear_error();
    return tkhi_product_call("tkh_product_call", ctx, kernel, args, m, n, k, 0, NULL, report, start);
}

tkh_status tkh_product_enqueue(tkh_context *ctx, const tkh_kernel_info *kernel, const tkh_args *args, size_t m,
    size_t n, size_t k, tkh_stream stream)
{
    tkhi_clear_error();
    return tkhi_product_call("tkh_product_enqueue", ctx, kernel, args, m, n, k, 1, stream, NULL, 0);
}
