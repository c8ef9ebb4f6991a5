/* The device path: a call enqueued on the caller's stream, the flat kernel where the call
 * is flat and the plan kernel otherwise, a reduction's partials from the context's buffer
 * for that stream; then, under the policy the entry point gives, waited for and checked
 * on the host. */
#include <stdlib.h>

#include "paths.h"

tkh_status tkhi_with_partials(tkh_context *ctx, void *stream, size_t bytes, const char *symbol,
    tkhi_partials_user launch, void *arg)
{
    void *scratch = NULL;
    pthread_mutex_lock(&ctx->lock);
    tkh_status st = tkhi_stream_partials(ctx, stream, bytes, &scratch);
    if (st == TKH_OK && scratch != NULL)
        st = launch(arg, scratch);
    pthread_mutex_unlock(&ctx->lock);
    if (st != TKH_OK || scratch != NULL)
        return st;
    int err = tkhi_device_alloc(ctx, &scratch, bytes);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_DEVICE_ALLOC, err,
            "allocating %zu bytes of partials on device %d failed", bytes, ctx->device.selected);
    st = launch(arg, scratch);
    err = st == TKH_OK ? tkhi_stream_wait(ctx, stream) : 0;
    if (st != TKH_OK)
        tkhi_stream_drain(stream);
    tkhi_device_free(scratch);
    if (err != 0)
        st = tkhi_fail_runtime(TKH_ERR_SYNC, err, "running %s on device %d failed", symbol, ctx->device.selected);
    return st;
}

/* The device oracle: waits for the stream, copies every array's span back, checks. */
static tkh_status check_on_host(tkhi_call *c, tkh_context *ctx, const tkh_oracle_policy *policy,
    const void *const *scalars, tkh_stream stream, tkh_report *report)
{
    const tkh_kernel_info *k = c->kernel;
    unsigned char *copy[TKH_MAX_ARRAYS] = { NULL }, *base[TKH_MAX_ARRAYS];
    int err = tkhi_stream_wait(ctx, stream);
    tkh_status st = err == 0 ? TKH_OK : tkhi_fail_runtime(TKH_ERR_SYNC, err, "%s: running %s on device %d failed",
        c->fn, k->symbol, ctx->device.selected);
    for (unsigned a = 0; a < c->arrays && st == TKH_OK; ++a) {
        const size_t bytes = tkhi_span_bytes(c, a);
        base[a] = NULL;
        if (c->absent[a] || bytes == 0) /* not given, or no elements */
            continue;
        if ((copy[a] = malloc(bytes)) == NULL) {
            st = tkhi_fail(TKH_ERR_HOST_ALLOC, "%s: allocating %zu bytes to check tensor %u failed", c->fn, bytes, a);
            break;
        }
        if ((err = tkhi_copy_to_host(ctx, copy[a], c->base[a] + c->lo[a] * (int64_t)c->size[a], bytes, stream)) != 0)
            st = tkhi_fail_runtime(TKH_ERR_COPY, err, "%s: copying tensor %u back from device %d failed", c->fn, a,
                ctx->device.selected);
        else if ((err = tkhi_stream_wait(ctx, stream)) != 0)
            st = tkhi_fail_runtime(TKH_ERR_SYNC, err, "%s: waiting for the copy of tensor %u from device %d failed",
                c->fn, a, ctx->device.selected);
        base[a] = copy[a] - c->lo[a] * (int64_t)c->size[a];
    }
    tkhi_oracle o = { .samples = NULL };
    if (st == TKH_OK)
        st = tkhi_check(c, policy, base, (const int64_t(*)[TKH_MAX_DIMS])c->plan.stride, scalars, &o);
    if (st == TKH_OK) {
        tkhi_evidence(report, "device oracle policy %s: waited for the stream, copied the tensors back",
            tkh_oracle_mode_name(policy->mode));
        st = tkhi_verdict(c, &o, (size_t)tkhi_plan_outputs(c, &c->plan), report);
    }
    tkhi_oracle_end(&o);
    for (unsigned a = 0; a < c->arrays; ++a)
        free(copy[a]);
    return st;
}

/* Enqueues l on its stream, on the context's device: the flat kernel where 'plan' is NULL,
 * else the plan kernel over 'plan'; its grid and block from the shape, its partials (if
 * any) from tkhi_with_partials. */
static tkh_status enqueue(tkhi_launch_spec *l, tkh_plan *plan)
{
    int err = tkhi_set_device(l->ctx);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_RUNTIME, err, "selecting device %d failed", l->ctx->device.selected);
    tkhi_launch_choose(l, plan);
    const size_t scratch = tkhi_launch_scratch(l);
    return scratch == 0 ? tkhi_launch_run(l, NULL)
        : tkhi_with_partials(l->ctx, l->stream, scratch, l->kernel->symbol, tkhi_launch_run, l);
}

tkh_status tkhi_device_flat(tkh_context *ctx, const tkh_kernel_info *kernel, const tkhi_arrays *arrays,
    const void *const *scalars, size_t n, tkh_stream stream)
{
    tkhi_launch_spec l = { ctx, kernel, NULL, arrays->in, arrays->out, scalars, NULL, n, 0, 0, stream };
    return enqueue(&l, NULL);
}

tkh_status tkhi_device_run(tkh_context *ctx, tkhi_call *c, const void *const *scalars, tkh_stream stream,
    const tkh_oracle_policy *policy, tkh_report *report)
{
    const tkh_kernel_info *k = c->kernel;
    const void *in[TKH_MAX_INPUTS];
    void *out[TKH_MAX_OUTPUTS];
    for (unsigned a = 0; a < c->arrays; ++a)
        if (a < k->arity)
            in[a] = c->base[a];
        else
            out[a - k->arity] = c->base[a];
    tkhi_launch_spec l = { ctx, k, c, in, out, scalars, NULL, tkhi_flat_count(c), 0, 0, stream };
    tkh_status st = enqueue(&l, c->flat ? NULL : &c->plan);
    if (st != TKH_OK || (report == NULL && policy->mode == TKH_ORACLE_OFF)) /* nothing to say or check */
        return st;
    if (c->flat)
        tkhi_evidence(report, "enqueued the flat kernel %s on the stream", k->symbol);
    else
        tkhi_launch_evidence(&l, "enqueued", report);
    if (policy->mode == TKH_ORACLE_OFF) {
        tkhi_evidence(report, "device oracle policy off: the outputs were not compared with the CPU oracle");
        return TKH_OK;
    }
    if (c->flat) { /* the flat reduction's launch shape, for the sum bound */
        c->fold_grid = l.grid;
        c->fold_block = l.block;
    }
    return check_on_host(c, ctx, policy, scalars, stream, report);
}
