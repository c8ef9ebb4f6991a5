/* The host path of a flat call: where its results land, its host threads, the lock,
 * the kind of run (pipeline.c, reduce.c), the oracle's check and the verdict. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"

/* The host path gets a helper thread per 2^18 elements (enough work to repay starting
 * it), up to the crew's default size. */
#define TKHI_ELEMENTS_PER_HELPER ((size_t)1 << 18)

/* Inputs of a few MiB go through the pipeline too, in at least four chunks of at least
 * 1 MiB, so that their staging and checking overlap the transfers; the context's chunk
 * size caps it. Inputs up to one chunk are copied straight. */
static size_t call_chunk_bytes(const tkh_context *ctx, size_t in_bytes)
{
    const size_t quarter = in_bytes / 4 > ((size_t)1 << 20) ? in_bytes / 4 : (size_t)1 << 20;
    return quarter < ctx->chunk_bytes ? quarter : ctx->chunk_bytes;
}

/* Everything from the lock to the verdict; 'results' receive a small run's outputs. */
static tkh_status run_locked(run *r, void *const *results)
{
    tkh_context *ctx = r->ctx;
    pthread_mutex_lock(&ctx->lock);
    const tkh_oracle_policy policy = ctx->oracle;
    if (policy.mode == TKH_ORACLE_OFF)
        r->folds = NULL;
    r->corrupt_index = ctx->corrupt_index;
    r->corrupt_bit = ctx->corrupt_bit;
    ctx->corrupt_index = SIZE_MAX;
    const size_t chunk = r->chunk_bytes / r->bytes.widest;
    tkh_status st = tkhi_oracle_begin(&r->oracle, r->kernel, &policy, r->n, r->crew);
    if (r->report != NULL) {
        r->report->oracle_mode = policy.mode;
        r->report->oracle_seed = policy.mode == TKH_ORACLE_SAMPLED ? policy.seed : 0;
    }
    int err = st == TKH_OK ? tkhi_set_device(ctx) : 0;
    if (err != 0)
        st = tkhi_fail_runtime(TKH_ERR_RUNTIME, err, "selecting device %d failed", ctx->device.selected);
    if (st == TKH_OK)
        st = tkhi_host_streams(ctx);
    const int whole = r->kernel->out_count == 0 && r->n <= chunk;
    if (st == TKH_OK)
        st = r->kernel->out_count ? tkhi_run_reduction(r, results)
            : whole ? tkhi_run_whole(r, results) : tkhi_run_chunked(r, chunk);
    if (st != TKH_OK) /* nothing may still be copying into buffers the next call reuses */
        for (int s = 0; s < TKHI_SLOTS; ++s)
            if (ctx->slots[s].stream != NULL)
                tkhi_stream_drain(ctx->slots[s].stream);
    pthread_mutex_unlock(&ctx->lock);
    tkhi_arrays checked = r->arrays; /* the inputs, and the outputs where they landed */
    for (unsigned o = 0; o < r->kernel->output_count; ++o)
        checked.out[o] = results[o];
    if (st == TKH_OK && r->folds != NULL) /* set only for inputs staged in chunks */
        tkhi_oracle_folded(&r->oracle, r->folds, r->crew ? r->crew->size : 1, &checked, r->scalars, r->n,
            r->grid, r->block);
    else if (st == TKH_OK && r->kernel->out_count)
        tkhi_oracle_reduction(&r->oracle, &checked, r->scalars, r->n, r->grid, r->block);
    else if (st == TKH_OK && whole)
        tkhi_oracle_range(&r->oracle, &checked, r->scalars, 0, r->n);
    if (st == TKH_OK && r->report != NULL) {
        r->report->launch_grid = r->grid;
        r->report->launch_block = r->block;
    }
    if (st == TKH_OK)
        st = tkhi_verdict(r->call, &r->oracle, r->n, r->report);
    tkhi_oracle_end(&r->oracle);
    return st;
}

/* tkh_kernel_call, named 'fn' in messages. */
tkh_status tkhi_host_flat(tkh_context *ctx, tkhi_call *c, const tkhi_arrays *arrays, const tkhi_sizes *bytes,
    const void *const *scalars, tkh_report *report)
{
    const tkh_kernel_info *kernel = c->kernel;
    const size_t n = tkhi_flat_count(c);
    run r = { .ctx = ctx, .kernel = kernel, .call = c, .arrays = *arrays, .scalars = scalars, .n = n,
        .bytes = *bytes, .report = report };
    tkh_status st = TKH_OK;

    /* A small result lands in its output directly, unless that output is also an input
     * (the oracle needs the inputs afterwards): then it is staged. Chunked runs stage
     * anyway; a reduction's result is staged always. */
    r.chunk_bytes = call_chunk_bytes(ctx, n * r.bytes.widest);
    const int chunked = kernel->out_count == 0 && n > r.chunk_bytes / r.bytes.widest;
    unsigned char small[TKH_MAX_OUTPUTS][16];
    void *results[TKH_MAX_OUTPUTS] = { NULL };
    for (unsigned o = 0; o < kernel->output_count && st == TKH_OK; ++o) {
        int aliased = 0;
        for (unsigned i = 0; i < kernel->arity; ++i)
            aliased |= r.arrays.in[i] == r.arrays.out[o];
        results[o] = kernel->out_count && r.bytes.out[o] <= sizeof small[o] ? (void *)small[o] : r.arrays.out[o];
        if ((kernel->out_count && results[o] != small[o]) || (aliased && !chunked && !kernel->out_count))
            if ((results[o] = malloc(r.bytes.out[o])) == NULL)
                st = tkhi_fail(TKH_ERR_HOST_ALLOC, "%s: allocating %zu bytes to stage a result failed",
                    c->fn, r.bytes.out[o]);
    }

    tkhi_crew crew;
    const size_t helpers = n / TKHI_ELEMENTS_PER_HELPER;
    if (st == TKH_OK && helpers > 0) {
        const unsigned most = tkhi_crew_default_size();
        tkhi_crew_start(&crew, helpers + 1 < most ? (unsigned)helpers + 1 : most);
        r.crew = &crew;
    }
    /* A reduction's oracle folds the input while the crew stages it. */
    tkh_fold folds[TKHI_CREW_MAX];
    if (kernel->fold != NULL && r.bytes.in[0] > r.chunk_bytes) {
        memset(folds, 0, sizeof folds);
        r.folds = folds;
    }
    if (st == TKH_OK)
        st = run_locked(&r, results);
    if (r.crew)
        tkhi_crew_stop(&crew);
    for (unsigned o = 0; o < kernel->output_count; ++o) {
        if (results[o] == NULL || results[o] == r.arrays.out[o])
            continue;
        if (st == TKH_OK || st == TKH_ERR_ORACLE_MISMATCH)
            memcpy(r.arrays.out[o], results[o], r.bytes.out[o]);
        if (results[o] != small[o])
            free(results[o]);
    }
    return st;
}
