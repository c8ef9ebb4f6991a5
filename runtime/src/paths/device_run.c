/* The device path: a call enqueued on the caller's stream, the flat kernel where the call
 * is flat and the plan kernel otherwise, its scratch (partials, operand copies) from the
 * context's buffer for that stream; then, under the policy the entry point gives, waited
 * for and checked on the host, or (a projectable product under projected) by its
 * projection kernels on the device. */
#include <stdlib.h>
#include <string.h>

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

/* Array a's span copied back from the device into a new buffer (*copy; left NULL for an
 * array not given or of no elements) once the stream has run what it holds. */
static tkh_status copy_back(tkhi_call *c, tkh_context *ctx, tkh_stream stream, unsigned a, unsigned char **copy)
{
    const size_t bytes = tkhi_span_bytes(c, a);
    if (c->absent[a] || bytes == 0)
        return TKH_OK;
    if ((*copy = malloc(bytes)) == NULL)
        return tkhi_fail(TKH_ERR_HOST_ALLOC, "%s: allocating %zu bytes to check tensor %u failed", c->fn, bytes, a);
    int err = tkhi_copy_to_host(ctx, *copy, c->base[a] + c->lo[a] * (int64_t)c->size[a], bytes, stream);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_COPY, err, "%s: copying tensor %u back from device %d failed", c->fn, a,
            ctx->device.selected);
    if ((err = tkhi_stream_wait(ctx, stream)) != 0)
        return tkhi_fail_runtime(TKH_ERR_SYNC, err, "%s: waiting for the copy of tensor %u from device %d failed",
            c->fn, a, ctx->device.selected);
    return TKH_OK;
}

/* Whether input a is also an output (in place, the one overlap a plan admits). */
static int written(const tkhi_call *c, unsigned a)
{
    for (unsigned o = c->kernel->arity; o < c->arrays; ++o)
        if (tkhi_spans_overlap(c, a, o))
            return 1;
    return 0;
}

/* The device oracle: waits for the stream, copies every array's span back (but the inputs
 * an output overwrote, copied before the launch into 'before'), checks. */
static tkh_status check_on_host(tkhi_call *c, tkh_context *ctx, const tkh_oracle_policy *policy,
    const void *const *scalars, tkh_stream stream, unsigned char **before, tkh_report *report)
{
    const tkh_kernel_info *k = c->kernel;
    unsigned char *copy[TKH_MAX_ARRAYS] = { NULL }, *base[TKH_MAX_ARRAYS] = { NULL };
    int err = tkhi_stream_wait(ctx, stream);
    tkh_status st = err == 0 ? TKH_OK : tkhi_fail_runtime(TKH_ERR_SYNC, err, "%s: running %s on device %d failed",
        c->fn, k->symbol, ctx->device.selected);
    int earlier = 0;
    for (unsigned a = 0; a < c->arrays && st == TKH_OK; ++a) {
        unsigned char *held = a < k->arity ? before[a] : NULL;
        earlier |= held != NULL;
        if (held == NULL && (st = copy_back(c, ctx, stream, a, &copy[a])) == TKH_OK)
            held = copy[a];
        if (held != NULL)
            base[a] = held - c->lo[a] * (int64_t)c->size[a];
    }
    tkhi_oracle o = { .samples = NULL };
    if (st == TKH_OK)
        st = tkhi_check(c, policy, base, (const int64_t(*)[TKH_MAX_DIMS])c->plan.stride, scalars, &o);
    if (st == TKH_OK) {
        tkhi_evidence(report, "device oracle policy %s: waited for the stream, copied the tensors back%s",
            tkh_oracle_mode_name(policy->mode), earlier ? " (the inputs an output overwrites: before the launch)" : "");
        st = tkhi_verdict(c, &o, (size_t)tkhi_plan_outputs(c, &c->plan), report);
    }
    tkhi_oracle_end(&o);
    for (unsigned a = 0; a < c->arrays; ++a)
        free(copy[a]);
    return st;
}

/* Test hook (tkh_context_corrupt_next_output) on the device path: flips the planned bit of
 * output 0's element 'index' in the plan's order (the outputs' index space), once the
 * kernel has run on 'stream'. */
static tkh_status corrupt(tkhi_call *c, tkh_context *ctx, void *stream, size_t index, unsigned bit, tkh_report *report)
{
    const unsigned out = c->kernel->arity;
    const size_t size = c->size[out];
    bit %= (unsigned)(size * 8);
    if (index >= (size_t)tkhi_plan_outputs(c, &c->plan))
        return TKH_OK;
    unsigned char element[8] = { 0 };
    unsigned char *d = c->base[out]
        + tkhi_offset_at(&c->plan, c->folds && c->drops ? c->plan.reduced : 0, c->plan.ndim, c->plan.stride[out],
            (int64_t)index) * (int64_t)size;
    int err = tkhi_copy_to_host(ctx, element, d, size, stream);
    if (err == 0)
        err = tkhi_stream_wait(ctx, stream);
    element[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    if (err == 0)
        err = tkhi_copy_to_device(ctx, d, element, size, stream);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_COPY, err, "%s: the corruption test hook's copies on device %d failed", c->fn,
            ctx->device.selected);
    tkhi_evidence(report, "test hook: flipped bit %u of output element %zu on the device", bit, index);
    return TKH_OK;
}

/* The projected check on the device: the kernel's projection kernels, then their result
 * copied back after the block sums in the stream's scratch buffer. */
typedef struct projection_job {
    tkhi_call *c;
    tkh_context *ctx;
    void *stream;
    tkh_projection_args args;
    size_t sums;
    tkh_projection_result got;
    int err;
} projection_job;

static tkh_status project_launch(void *arg, void *scratch)
{
    projection_job *j = arg;
    const tkhi_call *c = j->c;
    const tkh_kernel_info *k = c->kernel;
    const void *in[3] = { c->base[0], c->base[1], j->args.extra ? c->base[2] : NULL };
    tkh_projection_result *res = (tkh_projection_result *)((unsigned char *)scratch + j->sums);
    if ((j->err = k->project_device(in, c->base[k->arity], &c->plan, &j->args, scratch, res, j->stream)) != 0)
        return tkhi_fail_runtime(TKH_ERR_LAUNCH, j->err, "%s: launching the projection kernels of %s_%s "
            "on device %d failed", c->fn, k->op, k->type, j->ctx->device.selected);
    if ((j->err = tkhi_copy_to_host(j->ctx, &j->got, res, sizeof j->got, j->stream)) != 0)
        return tkhi_fail_runtime(TKH_ERR_COPY, j->err, "%s: copying the projected check's result of %s_%s "
            "back from device %d failed", c->fn, k->op, k->type, j->ctx->device.selected);
    return TKH_OK;
}

/* The call checked by its projection kernels on the device, where its shape has them:
 * *settled 1 with the verdict's state in o (every block within its bound), else 0 (none, or
 * a block outside its bound, or fewer blocks compared than the call has): then checked on
 * the host, whose verdict stands. Fails as enqueueing and waiting do. */
static tkh_status project_on_device(tkhi_call *c, tkh_context *ctx, tkh_stream stream, tkhi_oracle *o,
    tkh_report *report, int *settled)
{
    const tkhi_shape *shape = tkhi_shape_of(c->kernel);
    projection_job j = { .c = c, .ctx = ctx, .stream = stream };
    *settled = 0;
    if (shape->project_device == NULL || (j.sums = shape->project_device(c, &o->policy, &j.args)) == 0)
        return TKH_OK;
    tkh_status st = tkhi_with_partials(ctx, stream, j.sums + sizeof j.got, c->kernel->symbol, project_launch, &j);
    if (st == TKH_OK && (j.err = tkhi_stream_wait(ctx, stream)) != 0)
        st = tkhi_fail_runtime(TKH_ERR_SYNC, j.err, "%s: running %s and its projection kernels on device %d failed",
            c->fn, c->kernel->symbol, ctx->device.selected);
    if (st != TKH_OK)
        return st;
    const int64_t n = c->plan.size[1], blocks = (long long)j.args.blocks * (c->plan.count / n);
    if (j.got.blocks != (unsigned long long)blocks || j.got.failed > 0) {
        tkhi_evidence(report, "device oracle policy projected: the projection kernels on the device found %llu of "
            "%lld blocks outside their bounds (compared %llu): checking on the host", j.got.failed, (long long)blocks,
            j.got.blocks);
        return TKH_OK;
    }
    tkhi_evidence(report, "device oracle policy projected: block sums by the projection kernels on the device "
        "(%s_proj_b, _proj_ay, _proj_cmp: no code of the product's), every block of every row", c->kernel->symbol);
    const uint32_t ratio_bits = (uint32_t)(j.got.worst >> 32);
    float ratio;
    double threshold;
    memcpy(&ratio, &ratio_bits, sizeof ratio);
    memcpy(&threshold, &j.got.threshold, sizeof threshold);
    const int64_t worst_block = (int64_t)(j.got.worst & 0xffffffffu);
    o->compared = o->projected = (size_t)c->plan.count;
    o->threshold = threshold;
    o->note.worst = ratio;
    o->note.worst_index = (size_t)(worst_block / j.args.blocks * n + worst_block % j.args.blocks * TKH_PROJECTION_BLOCK);
    *settled = 1;
    return TKH_OK;
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
    tkhi_launch_spec l = { ctx, kernel, NULL, arrays->in, arrays->out, scalars, NULL, n, 0, 0, stream, 0 };
    return enqueue(&l, NULL);
}

/* The call enqueued and checked under 'policy' (device_run's hooks); 'before' holds the
 * inputs an output overwrites, copied back before the launch for the oracle. */
static tkh_status run_and_check(tkh_context *ctx, tkhi_call *c, const void *const *scalars, tkh_stream stream,
    const tkh_oracle_policy *policy, unsigned char **before, tkh_report *report)
{
    const tkh_kernel_info *k = c->kernel;
    const void *in[TKH_MAX_INPUTS];
    void *out[TKH_MAX_OUTPUTS];
    for (unsigned a = 0; a < c->arrays; ++a)
        if (a < k->arity)
            in[a] = c->base[a];
        else
            out[a - k->arity] = c->base[a];
    tkhi_launch_spec l = { ctx, k, c, in, out, scalars, NULL, tkhi_flat_count(c), 0, 0, stream, 0 };
    tkh_status st = enqueue(&l, c->flat ? NULL : &c->plan);
    pthread_mutex_lock(&ctx->lock);
    const size_t corrupt_index = ctx->corrupt_index;
    const unsigned corrupt_bit = ctx->corrupt_bit;
    ctx->corrupt_index = SIZE_MAX;
    pthread_mutex_unlock(&ctx->lock);
    if (st == TKH_OK && corrupt_index != SIZE_MAX)
        st = corrupt(c, ctx, stream, corrupt_index, corrupt_bit, report);
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
    if (policy->mode == TKH_ORACLE_PROJECTED) {
        tkhi_oracle o = { .kernel = k, .policy = *policy, .bad = SIZE_MAX };
        int settled = 0;
        st = project_on_device(c, ctx, stream, &o, report, &settled);
        if (st != TKH_OK || settled) {
            o.projection = settled ? &o : NULL; /* the verdict's wording: checked by projection */
            return st != TKH_OK ? st : tkhi_verdict(c, &o, (size_t)tkhi_plan_outputs(c, &c->plan), report);
        }
    }
    return check_on_host(c, ctx, policy, scalars, stream, before, report);
}

tkh_status tkhi_device_run(tkh_context *ctx, tkhi_call *c, const void *const *scalars, tkh_stream stream,
    const tkh_oracle_policy *policy, tkh_report *report)
{
    unsigned char *before[TKH_MAX_INPUTS] = { NULL };
    tkh_status st = TKH_OK;
    if (policy->mode != TKH_ORACLE_OFF) /* inputs an output overwrites, as they are before the kernel */
        for (unsigned a = 0; a < c->kernel->arity && st == TKH_OK; ++a)
            if (written(c, a)) {
                const int err = tkhi_set_device(ctx);
                st = err != 0 ? tkhi_fail_runtime(TKH_ERR_RUNTIME, err, "selecting device %d failed",
                    ctx->device.selected) : copy_back(c, ctx, stream, a, &before[a]);
            }
    if (st == TKH_OK)
        st = run_and_check(ctx, c, scalars, stream, policy, before, report);
    for (unsigned a = 0; a < TKH_MAX_INPUTS; ++a)
        free(before[a]);
    return st;
}
