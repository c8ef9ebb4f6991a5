/* The tensor entry points: a kernel by its info, or by op name and the tensors' dtypes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

tkh_status tkh_tensor_output_shapes(const tkh_kernel_info *kernel, const tkh_tensor_args *args,
    tkh_tensor_shape *shapes)
{
    static const char fn[] = "tkh_tensor_output_shapes";
    tkhi_clear_error();
    if (shapes == NULL)
        return tkhi_fail(TKH_ERR_NULL_POINTER, "%s: shapes is NULL", fn);
    tkhi_call *c = malloc(sizeof *c);
    if (c == NULL)
        return tkhi_fail(TKH_ERR_HOST_ALLOC, "%s: out of memory", fn);
    const tkh_status st = tkhi_prepare(fn, NULL, kernel, args, 1, c);
    for (unsigned o = 0; st == TKH_OK && o < kernel->output_count; ++o) {
        shapes[o].ndim = c->out_ndim;
        memcpy(shapes[o].shape, c->out_shape, sizeof c->out_shape);
    }
    free(c);
    return st;
}
