/* The oracle-checked host path (tkh_kernel_call): arguments, the lock, the kind of run
 * (pipeline.c, reduce.c), the oracle's verdict and the report. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <inttypes.h>
#include <stdio.h>

#include "host_path.h"
#include "platform.h"
#include "tensor.h"
#include "tokitai_hip/codegen/scalar.h"
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

void tkhi_report_begin(tkh_report *r, const tkh_context *ctx, const tkh_kernel_info *kernel,
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

tkh_status tkhi_report_end(tkh_report *r, tkh_status st, double start)
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
    const size_t outputs = k->out_count ? k->out_count : r->n; /* elements of each output */
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
    if (strstr(k->compare_rule, "ulp") != NULL) {
        char where[32];
        snprintf(where, sizeof where, "%zu", o->note.worst > 0 ? o->note.worst_index : r->n);
        tkhi_ulp_evidence(rep, k, o->note.worst, where);
    }
    return TKH_OK;
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
    if (st == TKH_OK)
        st = verdict(r);
    tkhi_oracle_end(&r->oracle);
    return st;
}

/* "alpha = 2, beta = -0.5": the scalars' values, for the report. */
void tkhi_describe_scalars(const tkh_kernel_info *k, const void *const *scalars, char *buf, size_t size)
{
    size_t len = 0;
    buf[0] = '\0';
    for (unsigned j = 0; j < k->scalar_count && len < size; ++j) {
        const char *t = k->scalars[j].type;
        const void *v = scalars[j];
        char one[64];
        if (strcmp(t, "f16") == 0 || strcmp(t, "bf16") == 0) {
            uint16_t bits;
            memcpy(&bits, v, 2);
            snprintf(one, sizeof one, "%.9g (0x%04x)", (double)(t[0] == 'f' ? tkh_f16_to_f32(bits)
                : tkh_bf16_to_f32(bits)), bits);
        } else if (strcmp(t, "f32") == 0) {
            float f;
            memcpy(&f, v, 4);
            snprintf(one, sizeof one, "%.9g", (double)f);
        } else if (strcmp(t, "f64") == 0) {
            double d;
            memcpy(&d, v, 8);
            snprintf(one, sizeof one, "%.17g", d);
        } else { /* integers and bool: widened by their size and signedness */
            const size_t bytes = k->scalars[j].size;
            uint64_t u = 0;
            memcpy(&u, v, bytes); /* little-endian: the low bytes */
            if (t[0] == 'i' && bytes < 8 && (u >> (bytes * 8 - 1)) != 0)
                u |= ~(uint64_t)0 << (bytes * 8);
            if (t[0] == 'i')
                snprintf(one, sizeof one, "%" PRId64, (int64_t)u);
            else
                snprintf(one, sizeof one, "%" PRIu64, u);
        }
        const int w = snprintf(buf + len, size - len, "%s%s = %s", j ? ", " : "", k->scalars[j].name, one);
        len += w > 0 ? (size_t)w : 0;
    }
}

/* tkh_kernel_call, named 'fn' in messages. */
static tkh_status host_call(const char *fn, tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_args *args, size_t n, tkh_report *report, double start)
{
    tkhi_report_begin(report, ctx, kernel, n);
    run r = { .ctx = ctx, .kernel = kernel, .n = n, .report = report };
    tkh_status st = tkhi_check_args(fn, ctx, kernel, args, n, &r.arrays, &r.bytes);
    if (st != TKH_OK)
        return tkhi_report_end(report, st, start);
    r.scalars = args->scalars;
    if (report != NULL)
        tkhi_describe_scalars(kernel, args->scalars, report->scalars, sizeof report->scalars);
    tkhi_evidence(report, "admitted: %s_%s is built for %s", kernel->op, kernel->type, ctx->device.arch);

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
                    fn, r.bytes.out[o]);
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
    return tkhi_report_end(report, st, start);
}

tkh_status tkh_kernel_call(tkh_context *ctx, const tkh_kernel_info *kernel, const tkh_args *args,
    size_t n, tkh_report *report)
{
    const double start = tkhi_now_seconds();
    tkhi_clear_error();
    if (kernel != NULL && tkhi_is_normalization(kernel))
        return tkhi_normalization_flat("tkh_kernel_call", ctx, kernel, args, n, 0, NULL, report);
    return host_call("tkh_kernel_call", ctx, kernel, args, n, report, start);
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
        return host_call("tkh_kernel_run", ctx, kernel, &args, n, report, start);
    tkhi_report_begin(report, ctx, kernel, n);
    return tkhi_report_end(report, st, start);
}
