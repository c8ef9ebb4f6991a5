/* Where the entry points come in: a flat call made the one-dimensional call it is (a
 * matrix product's, the 2-D call it is), a tensor call planned, each sent down the host or
 * the device path. */
#include <stdint.h>
#include <stdlib.h>

#include "paths.h"

/* A flat call of a shape without flat kernels (a normalization): the n elements are one
 * row, passed as 1-D tensors (a column NULL: its default). */
static tkh_status one_row_call(const char *fn, tkh_context *ctx, const tkh_kernel_info *k,
    const tkh_args *args, size_t n, int on_device, tkh_stream stream, tkh_report *report, double start)
{
    tkh_status st = tkhi_check_call(fn, ctx, k, args);
    if (st == TKH_OK && (args->input_count != k->arity || args->output_count != 1 || args->scalar_count != k->scalar_count))
        st = tkhi_fail(TKH_ERR_ARITY, "%s: %s_%s (%s) takes %u inputs, 1 output and %u scalars, got %u, %u and %u",
            fn, k->op, k->type, k->signature, k->arity, k->scalar_count, args->input_count, args->output_count,
            args->scalar_count);
    else if (st == TKH_OK && (args->inputs == NULL || args->outputs == NULL))
        st = tkhi_fail(TKH_ERR_NULL_POINTER, "%s: %s is NULL", fn, args->inputs == NULL ? "inputs" : "outputs");
    else if (st == TKH_OK && n == 0)
        st = tkhi_fail(TKH_ERR_EMPTY, "%s: n is 0: expected a row of at least one element", fn);
    else if (st == TKH_OK && n > (size_t)INT64_MAX)
        st = tkhi_fail(TKH_ERR_SIZE_OVERFLOW, "%s: n = %zu does not fit a tensor's shape", fn, n);
    if (st != TKH_OK) {
        tkhi_report_begin(report, ctx != NULL ? &ctx->device : NULL, k, n);
        return tkhi_report_end(report, st, start);
    }
    const int64_t shape = (int64_t)n, axis = 0;
    const DLDevice dev = { on_device ? tkhi_device_type(ctx) : kDLCPU, on_device ? ctx->device.selected : 0 };
    DLTensor t[TKH_MAX_ARRAYS];
    const DLTensor *in[TKH_MAX_INPUTS], *out[1];
    for (unsigned a = 0; a <= k->arity; ++a) {
        const tkh_operand *o = a < k->arity ? &k->inputs[a] : &k->outputs[0];
        void *data = a < k->arity ? (void *)args->inputs[a] : args->outputs[0];
        t[a] = (DLTensor){ data, dev, a < k->arity || k->out_count == 0 ? 1 : 0, { 0, 0, 1 },
            (int64_t *)&shape, NULL, 0 };
        tkh_dlpack_dtype(o->type, &t[a].dtype);
        if (a < k->arity)
            in[a] = data == NULL && o->default_value != NULL ? NULL : &t[a]; /* not given: its default */
        else
            out[0] = &t[a];
    }
    const tkh_tensor_args ta = { in, k->arity, out, 1, args->scalars, args->scalar_count, &axis, 1, 0, stream };
    return tkhi_tensor_run("tkh_tensor_call", ctx, k, &ta, report, start); /* its messages, as before */
}

tkh_status tkhi_product_call(const char *fn, tkh_context *ctx, const tkh_kernel_info *k, const tkh_args *args,
    size_t m, size_t n, size_t kk, int on_device, tkh_stream stream, tkh_report *report, double start)
{
    tkh_status st = tkhi_check_call(fn, ctx, k, args);
    if (st == TKH_OK && (unsigned)k->shape_kind < TKH_SHAPE_KINDS && tkhi_shape_of(k)->flat != TKHI_FLAT_PRODUCT)
        st = tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: %s_%s is %s %s, not a matrix product: call tkh_kernel_call",
            fn, k->op, k->type, k->shape[0] == 'e' ? "an" : "a", k->shape);
    else if (st == TKH_OK && (args->input_count != k->arity || args->output_count != 1 || args->scalar_count != k->scalar_count))
        st = tkhi_fail(TKH_ERR_ARITY, "%s: %s_%s (%s) takes %u inputs, 1 output and %u scalars, got %u, %u and %u",
            fn, k->op, k->type, k->signature, k->arity, k->scalar_count, args->input_count, args->output_count,
            args->scalar_count);
    else if (st == TKH_OK && (args->inputs == NULL || args->outputs == NULL))
        st = tkhi_fail(TKH_ERR_NULL_POINTER, "%s: %s is NULL", fn, args->inputs == NULL ? "inputs" : "outputs");
    else if (st == TKH_OK && (m > (size_t)INT64_MAX || n > (size_t)INT64_MAX || kk > (size_t)INT64_MAX))
        st = tkhi_fail(TKH_ERR_SIZE_OVERFLOW, "%s: m = %zu, n = %zu, k = %zu: each must fit a tensor's shape", fn, m,
            n, kk);
    if (st != TKH_OK) {
        tkhi_report_begin(report, ctx != NULL ? &ctx->device : NULL, k, m * n);
        return tkhi_report_end(report, st, start);
    }
    /* a m x k, b k x n (n x k), out m x n, columns n, rows m, addends m x n: compact
     * row-major tensors */
    const int64_t a_shape[2] = { (int64_t)m, (int64_t)kk }, out_shape[2] = { (int64_t)m, (int64_t)n };
    const int64_t b_shape[2] = { k->b_nk ? (int64_t)n : (int64_t)kk, k->b_nk ? (int64_t)kk : (int64_t)n };
    const DLDevice dev = { on_device ? tkhi_device_type(ctx) : kDLCPU, on_device ? ctx->device.selected : 0 };
    DLTensor t[TKH_MAX_ARRAYS];
    const DLTensor *in[TKH_MAX_INPUTS], *out[1];
    for (unsigned a = 0; a <= k->arity; ++a) {
        const tkh_operand *o = a < k->arity ? &k->inputs[a] : &k->outputs[0];
        void *data = a < k->arity ? (void *)args->inputs[a] : args->outputs[0];
        const char *extent = a >= 2 && a < k->arity ? tkhi_extent_of(o) : "mn";
        const int64_t *shape = a == 0 ? a_shape : a == 1 ? b_shape : extent[0] == 'n' ? &out_shape[1] : out_shape;
        t[a] = (DLTensor){ data, dev, extent[1] == 'n' || a < 2 ? 2 : 1, { 0, 0, 1 }, (int64_t *)shape, NULL, 0 };
        tkh_dlpack_dtype(o->type, &t[a].dtype);
        if (a < k->arity)
            in[a] = data == NULL && o->default_value != NULL ? NULL : &t[a]; /* not given: its default */
        else
            out[0] = &t[a];
    }
    const tkh_tensor_args ta = { in, k->arity, out, 1, args->scalars, args->scalar_count, NULL, 0, 0, stream };
    return tkhi_tensor_run(fn, ctx, k, &ta, report, start);
}

tkh_status tkhi_flat_call(const char *fn, tkh_context *ctx, const tkh_kernel_info *kernel, const tkh_args *args,
    size_t n, int on_device, tkh_stream stream, tkh_report *report, double start)
{
    const tkhi_shape *shape = kernel != NULL && (unsigned)kernel->shape_kind < TKH_SHAPE_KINDS
        ? tkhi_shape_of(kernel) : NULL;
    if (shape != NULL && shape->flat == TKHI_FLAT_ROW)
        return one_row_call(fn, ctx, kernel, args, n, on_device, stream, report, start);
    if (shape != NULL && shape->flat == TKHI_FLAT_PRODUCT) {
        tkhi_report_begin(report, ctx != NULL ? &ctx->device : NULL, kernel, n);
        return tkhi_report_end(report, tkhi_fail(TKH_ERR_INVALID_ARGUMENT, "%s: %s_%s is a matrix product, whose "
            "flat call has three sizes: call tkh_product_call (or %s_%s's own entry point) with m, n and k, or "
            "tkh_tensor_call", fn, kernel->op, kernel->type, kernel->op, kernel->type), start);
    }
    tkhi_report_begin(report, ctx != NULL ? &ctx->device : NULL, kernel, n);
    tkhi_arrays arrays;
    tkhi_sizes bytes;
    tkh_status st = tkhi_check_args(fn, ctx, kernel, args, n, on_device, &arrays, &bytes);
    if (st == TKH_OK && shape == NULL)
        st = tkhi_shape_known(fn, kernel);
    if (st != TKH_OK)
        return tkhi_report_end(report, st, start);
    if (on_device) /* the flat device entry points check nothing but their arguments */
        return tkhi_device_flat(ctx, kernel, &arrays, args->scalars, n, stream);
    tkhi_call c;
    tkhi_call_flat(&c, fn, kernel, &arrays, n, shape->folds);
    if (report != NULL)
        tkhi_describe_scalars(kernel, args->scalars, report->scalars, sizeof report->scalars);
    tkhi_evidence(report, "admitted: %s_%s is built for %s", kernel->op, kernel->type, ctx->device.arch);
    return tkhi_report_end(report, tkhi_host_run(ctx, &c, args->scalars, report), start);
}

tkh_status tkhi_tensor_run(const char *fn, tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_tensor_args *args, tkh_report *report, double start)
{
    tkhi_call *c = malloc(sizeof *c);
    if (c == NULL) {
        tkhi_report_begin(report, ctx != NULL ? &ctx->device : NULL, kernel, 0);
        return tkhi_report_end(report, tkhi_fail(TKH_ERR_HOST_ALLOC, "%s: out of memory", fn), start);
    }
    tkh_status st = tkhi_prepare(fn, ctx, kernel, args, 0, c);
    const size_t outputs = st == TKH_OK ? (size_t)tkhi_plan_outputs(c, &c->plan) : 0;
    /* A compact call on the host runs the flat kernels; its verdict counts inputs. */
    const size_t n = st == TKH_OK && c->flat && !c->on_device && outputs > 0 ? tkhi_flat_count(c) : outputs;
    tkhi_report_begin(report, ctx != NULL ? &ctx->device : NULL, kernel, n);
    if (st == TKH_OK && !ctx->device.available)
        st = tkhi_fail(TKH_ERR_NO_DEVICE, "%s: the context has no usable device", fn);
    if (st == TKH_OK)
        st = tkhi_admit(ctx, kernel);
    if (st == TKH_OK && report != NULL)
        tkhi_describe_scalars(kernel, args->scalars, report->scalars, sizeof report->scalars);
    if (st == TKH_OK) {
        tkhi_plan_evidence(c, report);
        if (outputs == 0) /* also rows of no elements */
            tkhi_evidence(report, "no elements: nothing to run");
        else if (c->on_device) {
            pthread_mutex_lock(&ctx->lock);
            const tkh_oracle_policy policy = ctx->device_oracle;
            pthread_mutex_unlock(&ctx->lock);
            st = tkhi_device_run(ctx, c, args->scalars, args->stream, &policy, report);
        } else
            st = tkhi_host_run(ctx, c, args->scalars, report);
        if (report != NULL)
            report->len = outputs;
    }
    free(c);
    return tkhi_report_end(report, st, start);
}
