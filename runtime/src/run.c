/* The oracle-checked host path (tkh_kernel_run): arguments, the lock, the kind of run
 * (pipeline.c, reduce.c), the oracle's verdict and the report. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host_path.h"
#include "platform.h"
#include "workspace.h"

/* The host path gets a helper thread per 2^18 elements (enough work to repay starting
 * it), up to the crew's default size. */
#define TKHI_ELEMENTS_PER_HELPER ((size_t)1 << 18)

double tkhi_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Inputs of a few MiB go through the pipeline too, in at least four chunks of at least
 * 1 MiB, so that their staging and checking overlap the transfers; the context's chunk
 * size caps it. Inputs up to one chunk are copied straight. */
static size_t call_chunk_bytes(const tkh_context *ctx, size_t in_bytes)
{
    const size_t quarter = in_bytes / 4 > ((size_t)1 << 20) ? in_bytes / 4 : (size_t)1 << 20;
    return quarter < ctx->chunk_bytes ? quarter : ctx->chunk_bytes;
}

static void begin_report(tkh_report *r, const tkh_context *ctx, const tkh_kernel_info *kernel,
    size_t n)
{
    if (r == NULL)
        return;
    memset(r, 0, sizeof *r);
    r->kernel = kernel;
    r->len = n;
    r->first_mismatch = n;
    if (ctx != NULL)
        r->device = ctx->device;
}

static tkh_status end_report(tkh_report *r, tkh_status st, double start)
{
    if (r != NULL) {
        r->status = st;
        r->seconds = tkhi_now_seconds() - start;
        tkhi_copy(r->message, sizeof r->message, st == TKH_OK ? "" : tkh_last_error());
    }
    return st;
}

/* The oracle's verdict as a status and evidence. */
static tkh_status verdict(run *r)
{
    const tkh_kernel_info *k = r->kernel;
    tkh_report *rep = r->report;
    const tkhi_oracle *o = &r->oracle;
    const size_t outputs = k->out_count ? k->out_count : r->n;
    if (rep != NULL) {
        rep->launch_grid = r->grid;
        rep->launch_block = r->block;
        rep->oracle_checked = o->policy.mode != TKH_ORACLE_OFF;
        rep->oracle_compared = o->compared;
        rep->oracle_matches = rep->oracle_checked && o->bad == SIZE_MAX;
        rep->first_mismatch = o->bad == SIZE_MAX ? r->n : o->bad;
        rep->max_ulp_error = o->note.worst;
        rep->max_ulp_error_index = o->note.worst > 0 ? o->note.worst_index : r->n;
    }
    if (o->policy.mode == TKH_ORACLE_OFF) {
        tkhi_evidence(rep, "oracle policy off: the %zu outputs were not compared with the CPU oracle", outputs);
        return TKH_OK;
    }
    if (o->bad != SIZE_MAX) {
        tkhi_evidence(rep, "compared outputs with the CPU oracle (%s): output %zu differs",
            tkh_oracle_mode_name(o->policy.mode), o->bad);
        return tkhi_fail(TKH_ERR_ORACLE_MISMATCH, "%s_%s: element %zu of %zu differs from the CPU oracle: %s",
            k->op, k->type, o->bad, outputs, o->note.detail);
    }
    if (o->policy.mode == TKH_ORACLE_SAMPLED && k->out_count == 0)
        tkhi_evidence(rep, "compared %zu sampled outputs (seed %llu) of %zu with the CPU oracle, %s rule: all agree",
            o->compared, o->policy.seed, outputs, k->compare_rule);
    else
        tkhi_evidence(rep, "compared all %zu outputs (from %zu inputs) with the CPU oracle, %s rule: all agree",
            outputs, r->n, k->compare_rule);
    if (strcmp(k->compare_rule, "ulp") == 0)
        tkhi_evidence(rep, "largest error %.3g ulps (output %zu), bound %.6g ulps", o->note.worst,
            o->note.worst > 0 ? o->note.worst_index : r->n, k->ulp_bound);
    return TKH_OK;
}

/* Everything from the lock to the verdict; 'result' receives a small run's output. */
static tkh_status run_locked(run *r, void *result)
{
    tkh_context *ctx = r->ctx;
    pthread_mutex_lock(&ctx->lock);
    const tkh_oracle_policy policy = ctx->oracle;
    if (policy.mode == TKH_ORACLE_OFF)
        r->folds = NULL;
    r->corrupt_index = ctx->corrupt_index;
    r->corrupt_bit = ctx->corrupt_bit;
    ctx->corrupt_index = SIZE_MAX;
    const size_t chunk = r->chunk_bytes / r->kernel->elem_size;
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
        st = r->kernel->out_count ? tkhi_run_reduction(r, result)
            : whole ? tkhi_run_whole(r, result) : tkhi_run_chunked(r, chunk);
    if (st != TKH_OK) /* nothing may still be copying into buffers the next call reuses */
        for (int s = 0; s < TKHI_SLOTS; ++s)
            if (ctx->slots[s].stream != NULL)
                tkhi_stream_drain(ctx->slots[s].stream);
    pthread_mutex_unlock(&ctx->lock);
    if (st == TKH_OK && r->folds != NULL) /* set only for inputs staged in chunks */
        tkhi_oracle_folded(&r->oracle, r->folds, r->crew ? r->crew->size : 1, result, r->n, r->grid, r->block);
    else if (st == TKH_OK && r->kernel->out_count)
        tkhi_oracle_reduction(&r->oracle, r->inputs, result, r->n, r->grid, r->block);
    else if (st == TKH_OK && whole)
        tkhi_oracle_range(&r->oracle, r->inputs, result, 0, r->n);
    if (st == TKH_OK)
        st = verdict(r);
    tkhi_oracle_end(&r->oracle);
    return st;
}

tkh_status tkh_kernel_run(tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, unsigned input_count, void *out, size_t n, tkh_report *report)
{
    const double start = tkhi_now_seconds();
    tkhi_clear_error();
    begin_report(report, ctx, kernel, n);
    run r = { .ctx = ctx, .kernel = kernel, .inputs = inputs, .out = out, .n = n, .report = report };
    tkh_status st = tkhi_check_args("tkh_kernel_run", ctx, kernel, inputs, input_count, out, n, &r.bytes);
    if (st != TKH_OK)
        return end_report(report, st, start);
    tkhi_evidence(report, "admitted: %s_%s is built for %s", kernel->op, kernel->type, ctx->device.arch);

    /* A small result lands in out directly, unless out is also an input (the oracle
     * needs the inputs afterwards): then it is staged. Chunked runs stage anyway. */
    int aliased = 0;
    for (unsigned i = 0; i < input_count; ++i)
        aliased |= inputs[i] == out;
    r.chunk_bytes = call_chunk_bytes(ctx, r.bytes.in);
    const int chunked = kernel->out_count == 0 && r.bytes.in > r.chunk_bytes;
    unsigned char small[8];
    void *result = kernel->out_count ? (void *)small : out;
    if (aliased && !chunked && !kernel->out_count && (result = malloc(r.bytes.out)) == NULL)
        return end_report(report, tkhi_fail(TKH_ERR_HOST_ALLOC,
            "tkh_kernel_run: allocating %zu bytes to stage an in-place result failed", r.bytes.out), start);

    tkhi_crew crew;
    const size_t helpers = n / TKHI_ELEMENTS_PER_HELPER;
    if (helpers > 0) {
        const unsigned most = tkhi_crew_default_size();
        tkhi_crew_start(&crew, helpers + 1 < most ? (unsigned)helpers + 1 : most);
        r.crew = &crew;
    }
    /* A reduction's oracle folds the input while the crew stages it. */
    tkh_fold folds[TKHI_CREW_MAX];
    if (kernel->fold != NULL && r.bytes.in > r.chunk_bytes) {
        memset(folds, 0, sizeof folds);
        r.folds = folds;
    }
    st = run_locked(&r, result);
    if (r.crew)
        tkhi_crew_stop(&crew);
    if (result != out) {
        if (st == TKH_OK || st == TKH_ERR_ORACLE_MISMATCH)
            memcpy(out, result, r.bytes.out);
        if (result != small)
            free(result);
    }
    return end_report(report, st, start);
}
