/* The tensor entry points: a kernel by its info, or by op name and the tensors' dtypes. */
#include <stdio.h>

#include "paths/paths.h"

tkh_status tkh_tensor_call(tkh_context *ctx, const tkh_kernel_info *kernel, const tkh_tensor_args *args,
    tkh_report *report)
{
    const double start = tkhi_now_seconds();
    tkhi_clear_error();
    return tkhi_tensor_run("tkh_tensor_call", ctx, kernel, args, report, start);
}

tkh_status tkh_tensor_op(tkh_context *ctx, const tkh_registry *registry, const char *op,
    const tkh_tensor_args *args, tkh_report *report)
{
    const double start = tkhi_now_seconds();
    tkhi_clear_error();
    if (registry == NULL || op == NULL || args == NULL) {
        tkhi_report_begin(report, ctx != NULL ? &ctx->device : NULL, NULL, 0);
        return tkhi_report_end(report, tkhi_fail(TKH_ERR_NULL_POINTER, "tkh_tensor_op: %s is NULL",
            registry == NULL ? "registry" : op == NULL ? "op" : "args"), start);
    }
    const tkh_kernel_info *k = tkh_registry_match(registry, op, args);
    if (k != NULL)
        return tkhi_tensor_run("tkh_tensor_call", ctx, k, args, report, start);
    char dtypes[256] = "";
    size_t len = 0;
    for (unsigned a = 0; a < args->input_count + args->output_count && len < sizeof dtypes; ++a) {
        const DLTensor *t = a < args->input_count ? (args->inputs ? args->inputs[a] : NULL)
            : (args->outputs ? args->outputs[a - args->input_count] : NULL);
        char one[64];
        len += (size_t)snprintf(dtypes + len, sizeof dtypes - len, "%s%s", a ? ", " : "",
            t == NULL ? "NULL" : tkhi_dtype_name(t->dtype, one, sizeof one));
    }
    tkhi_report_begin(report, ctx != NULL ? &ctx->device : NULL, NULL, 0);
    return tkhi_report_end(report, tkhi_fail(TKH_ERR_NOT_FOUND, "tkh_tensor_op: registry '%s' has no kernel of "
        "op '%s' taking %u input and %u output tensors of dtypes %s", registry->name, op, args->input_count,
        args->output_count, dtypes), start);
}
