/* The host path of every call on host memory, flat or tensor: where the outputs land, the
 * host threads, the lock, the pieces (pipeline.c) after the whole inputs (upload.c), the
 * verdict. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"

/* The host path gets a helper thread per 2^18 elements (enough work to repay starting
 * it), up to the crew's default size. */
#define TKHI_ELEMENTS_PER_HELPER ((size_t)1 << 18)

/* Inputs of a few MiB go in pieces too, at least four of at least 1 MiB, so that their
 * staging and checking overlap the transfers; the context's chunk size caps them. Calls
 * up to one chunk go in one piece, straight from the caller's memory. */
static size_t call_chunk_bytes(const tkh_context *ctx, size_t in_bytes)
{
    const size_t quarter = in_bytes / 4 > ((size_t)1 << 20) ? in_bytes / 4 : (size_t)1 << 20;
    return quarter < ctx->chunk_bytes ? quarter : ctx->chunk_bytes;
}

/* The device's outputs of a call of one piece land in the caller's outputs where the call
 * is flat and no output is an input (the oracle needs the inputs afterwards), else in
 * dense buffers that the check's step puts in place. Pieces land in the slots' staging. */
static tkh_status landing(host_run *r)
{
    const tkhi_call *c = r->c;
    const tkh_kernel_info *k = c->kernel;
    if (r->dim >= 0)
        return TKH_OK;
    r->landed = c->flat && !c->folds && !r->in_place;
    for (unsigned o = 0; o < k->output_count; ++o) {
        const unsigned a = k->arity + o;
        const size_t bytes = (size_t)tkhi_plan_outputs(c, &c->plan) * c->size[a];
        r->landing[o] = r->landed ? c->base[a] : malloc(bytes > 0 ? bytes : 1);
        if (r->landing[o] == NULL)
            return tkhi_fail(TKH_ERR_HOST_ALLOC, "%s: allocating %zu bytes for output %u failed", c->fn, bytes, o);
    }
    return TKH_OK;
}

/* Everything from the lock to the check of the last piece. */
static tkh_status run_locked(host_run *r)
{
    tkh_context *ctx = r->ctx;
    pthread_mutex_lock(&ctx->lock);
    const tkh_oracle_policy policy = ctx->oracle;
    if (policy.mode == TKH_ORACLE_OFF)
        r->folds = NULL;
    r->corrupt_index = ctx->corrupt_index;
    r->corrupt_bit = ctx->corrupt_bit;
    ctx->corrupt_index = SIZE_MAX;
    tkh_status st = tkhi_oracle_begin(&r->oracle, r->c->kernel, &policy, r->c->plan.count, r->crew);
    if (r->report != NULL) {
        r->report->oracle_mode = policy.mode;
        r->report->oracle_seed = tkhi_oracle_seed(&policy);
    }
    int err = st == TKH_OK ? tkhi_set_device(ctx) : 0;
    if (err != 0)
        st = tkhi_fail_runtime(TKH_ERR_RUNTIME, err, "selecting device %d failed", ctx->device.selected);
    if (st == TKH_OK)
        st = tkhi_host_streams(ctx);
    if (st == TKH_OK)
        st = tkhi_host_upload(r);
    if (st == TKH_OK)
        st = tkhi_host_pipeline(r);
    if (st != TKH_OK || r->oracle.bad != SIZE_MAX) /* nothing may still be copying into buffers
                                                      the next call reuses */
        for (int s = 0; s < TKHI_SLOTS; ++s)
            if (ctx->slots[s].stream != NULL)
                tkhi_stream_drain(ctx->slots[s].stream);
    pthread_mutex_unlock(&ctx->lock);
    return st;
}

tkh_status tkhi_host_run(tkh_context *ctx, tkhi_call *c, const void *const *scalars, tkh_report *report)
{
    const tkh_kernel_info *k = c->kernel;
    host_run *r = calloc(1, sizeof *r);
    if (r == NULL)
        return tkhi_fail(TKH_ERR_HOST_ALLOC, "%s: out of memory", c->fn);
    *r = (host_run){ .ctx = ctx, .c = c, .scalars = scalars, .report = report, .dev = c->plan, .nearest = 1 };
    /* The device writes dense outputs; the oracle reads them so. */
    for (unsigned o = 0; o < k->output_count; ++o)
        tkhi_plan_dense_strides(&c->plan, c->drops ? c->plan.reduced : 0, r->dev.stride[k->arity + o]);
    size_t widest = 0; /* bytes of the largest array */
    for (unsigned a = 0; a < c->arrays; ++a) {
        const size_t bytes = c->absent[a] || c->hi[a] < c->lo[a] ? 0 : tkhi_span_bytes(c, a);
        widest = bytes > widest ? bytes : widest;
    }
    r->chunk_bytes = call_chunk_bytes(ctx, widest);
    tkhi_host_pieces(r);
    tkh_status st = landing(r);

    const size_t elements = (size_t)(c->plan.count * (c->plan.reduce_count > 1 ? c->plan.reduce_count : 1));
    const size_t helpers = elements / TKHI_ELEMENTS_PER_HELPER;
    tkhi_crew crew;
    if (st == TKH_OK && helpers > 0) {
        const unsigned most = tkhi_crew_default_size();
        tkhi_crew_start(&crew, helpers + 1 < most ? (unsigned)helpers + 1 : most);
        r->crew = &crew;
    }
    /* A flat reduction's oracle folds the input while the crew stages it. */
    tkh_fold folds[TKHI_CREW_MAX];
    if (c->flat && c->folds && k->fold != NULL && tkhi_span_bytes(c, 0) > r->chunk_bytes) {
        memset(folds, 0, sizeof folds);
        r->folds = folds;
    }
    if (st == TKH_OK)
        st = run_locked(r);
    if (r->crew)
        tkhi_crew_stop(&crew);
    if (st == TKH_OK && report != NULL) {
        report->launch_grid = r->grid;
        report->launch_block = r->block;
    }
    const size_t outputs = (size_t)tkhi_plan_outputs(c, &c->plan);
    c->nearest = r->nearest; /* the verdict's words: what every piece's bound assumed */
    if (st == TKH_OK)
        st = tkhi_verdict(c, &r->oracle, c->flat ? tkhi_flat_count(c) : outputs, report);
    tkhi_oracle_end(&r->oracle);
    for (unsigned o = 0; o < k->output_count && !r->landed; ++o)
        free(r->landing[o]);
    free(r);
    return st;
}
