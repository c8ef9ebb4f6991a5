/* The oracle-checked host path (tkh_kernel_run). Inputs up to one chunk are copied
 * straight from the caller's memory; larger elementwise runs go through pinned staging in
 * chunks, two in flight on two streams, while the crew copies the next chunk in and checks
 * and copies out the one before. Reductions stage their input the same way, then run
 * once over all of it. The context's lock is held while its buffers are in use. */
#define _POSIX_C_SOURCE 200809L /* clock_gettime */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "entry.h"
#include "oracle.h"
#include "platform.h"
#include "workspace.h"

/* The host path gets a helper thread per 2^18 elements (enough work to repay starting
 * it), up to the crew's default size. */
#define TKHI_ELEMENTS_PER_HELPER ((size_t)1 << 18)

static double now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* One call of the host path. */
typedef struct run {
    tkh_context *ctx;
    const tkh_kernel_info *kernel;
    const void *const *inputs;
    void *out;
    size_t n;
    tkhi_sizes bytes;
    size_t chunk_bytes;     /* of each input per chunk, for this call (call_chunk_bytes) */
    size_t corrupt_index;   /* the test hook, taken from the context for this call */
    unsigned corrupt_bit;
    unsigned grid, block;   /* of the first (or only) launch */
    tkhi_oracle oracle;
    tkhi_crew *crew;        /* NULL for small inputs */
    tkh_fold *folds;        /* reductions: the oracle's state per crew part, or NULL */
    int folded;             /* the folds cover the whole input */
    tkh_report *report;
} run;

static tkh_status sync_failed(const run *r, int err)
{
    return tkhi_fail_runtime(TKH_ERR_SYNC, err, "running %s on device %d failed (copies and kernel)",
        r->kernel->symbol, r->ctx->device.selected);
}

static tkh_status copy_failed(const run *r, int err, const char *what)
{
    return tkhi_fail_runtime(TKH_ERR_COPY, err, "copying %s on device %d failed", what,
        r->ctx->device.selected);
}

/* Test hook: flip one bit of output element 'index' of d_out (covering outputs
 * [first, first + count)) once the kernel has run on 'stream'. */
static tkh_status corrupt_output(run *r, unsigned char *d_out, size_t first, size_t count, void *stream)
{
    if (r->corrupt_index < first || r->corrupt_index - first >= count)
        return TKH_OK;
    const size_t size = r->kernel->elem_size, index = r->corrupt_index;
    const unsigned bit = r->corrupt_bit % (unsigned)(size * 8);
    unsigned char element[8] = { 0 };
    unsigned char *d = d_out + (index - first) * size;
    r->corrupt_index = SIZE_MAX;
    int err = tkhi_copy_to_host(r->ctx, element, d, size, stream);
    if (err == 0)
        err = tkhi_stream_wait(r->ctx, stream);
    element[bit / 8] ^= (unsigned char)(1u << (bit % 8));
    if (err == 0)
        err = tkhi_copy_to_device(r->ctx, d, element, size, stream);
    if (err != 0)
        return copy_failed(r, err, "for the corruption test hook");
    tkhi_evidence(r->report, "test hook: flipped bit %u of output element %zu on the device", bit, index);
    return TKH_OK;
}

/* Enqueues copies in, the kernel and the copy out of outputs [first, first + count) on a
 * slot's stream; the slot's event records the end. 'src' are the inputs at 'first'. */
static tkh_status enqueue_chunk(run *r, tkhi_slot *slot, const void *const *src, void *dst,
    size_t first, size_t count)
{
    const tkh_kernel_info *k = r->kernel;
    const size_t bytes = count * k->elem_size;
    for (unsigned a = 0; a < k->arity; ++a) {
        int err = tkhi_copy_to_device(r->ctx, slot->dev_in[a].ptr, src[a], bytes, slot->stream);
        if (err != 0)
            return copy_failed(r, err, tkhi_input_names[a]);
    }
    unsigned grid, block;
    tkhi_launch_shape(r->ctx, k, count, &grid, &block);
    if (first == 0) {
        r->grid = grid;
        r->block = block;
    }
    const void *d_in[TKHI_MAX_INPUTS] = { slot->dev_in[0].ptr, slot->dev_in[1].ptr, slot->dev_in[2].ptr };
    tkh_status st = tkhi_enqueue(r->ctx, k, d_in, slot->dev_out.ptr, count, grid, block, NULL, slot->stream);
    if (st == TKH_OK)
        st = corrupt_output(r, slot->dev_out.ptr, first, count, slot->stream);
    if (st != TKH_OK)
        return st;
    int err = tkhi_copy_to_host(r->ctx, dst, slot->dev_out.ptr, bytes, slot->stream);
    if (err != 0)
        return copy_failed(r, err, "out");
    err = tkhi_event_record(r->ctx, slot->done, slot->stream);
    return err == 0 ? TKH_OK : sync_failed(r, err);
}

/* Slot buffers for chunks of 'count' elements; staged ones get pinned twins. */
static tkh_status slot_buffers(run *r, tkhi_slot *slot, size_t count, int staged)
{
    const tkh_kernel_info *k = r->kernel;
    const size_t bytes = count * k->elem_size;
    tkh_status st = TKH_OK;
    for (unsigned a = 0; a < k->arity && st == TKH_OK; ++a) {
        st = tkhi_device_buffer(r->ctx, &slot->dev_in[a], bytes, tkhi_input_names[a]);
        if (st == TKH_OK && staged)
            st = tkhi_pinned_buffer(r->ctx, &slot->pinned_in[a], bytes, "staging an input");
    }
    if (st == TKH_OK)
        st = tkhi_device_buffer(r->ctx, &slot->dev_out, bytes, "out");
    if (st == TKH_OK && staged)
        st = tkhi_pinned_buffer(r->ctx, &slot->pinned_out, bytes, "staging the output");
    return st;
}

/* Elementwise, one chunk: straight from and to the caller's memory ('result' is out, or a
 * staging copy when out is also an input). */
static tkh_status run_whole(run *r, void *result)
{
    tkhi_slot *slot = &r->ctx->slots[0];
    tkh_status st = slot_buffers(r, slot, r->n, 0);
    if (st != TKH_OK)
        return st;
    tkhi_evidence(r->report, "using device buffers of %zu bytes per input and %zu for the output on device %d (%s)",
        r->bytes.in, r->bytes.out, r->ctx->device.selected, r->ctx->device.arch);
    st = enqueue_chunk(r, slot, r->inputs, result, 0, r->n);
    int err = st == TKH_OK ? tkhi_stream_wait(r->ctx, slot->stream) : 0;
    if (err != 0)
        return sync_failed(r, err);
    if (st == TKH_OK)
        tkhi_evidence(r->report, "copied %u input%s in, ran %s with grid %u x block %u, copied the output back",
            r->kernel->arity, r->kernel->arity == 1 ? "" : "s", r->kernel->symbol, r->grid, r->block);
    return st;
}

/* One step of the chunked pipeline on the crew: check and copy out chunk 'post' (if any),
 * then copy chunk 'pre' (if any) into the same slot's staging. Both chunks are split
 * alike, so no element is touched by two threads. */
typedef struct step {
    run *r;
    tkhi_slot *slot;
    size_t chunk;              /* elements per full chunk */
    size_t post_first, post_count, pre_first, pre_count;
    tkhi_oracle_part parts[TKHI_CREW_MAX];
} step;

static void step_part(void *arg, unsigned part, unsigned parts)
{
    step *s = arg;
    run *r = s->r;
    const tkh_kernel_info *k = r->kernel;
    const size_t size = k->elem_size;
    size_t lo, hi;
    tkhi_split(s->chunk, s->post_count, part, parts, &lo, &hi);
    const void *staged[TKHI_MAX_INPUTS] = { s->slot->pinned_in[0].ptr, s->slot->pinned_in[1].ptr,
        s->slot->pinned_in[2].ptr };
    tkhi_oracle_part_run(&r->oracle, staged, s->slot->pinned_out.ptr, s->post_first, lo, hi, &s->parts[part]);
    memcpy((unsigned char *)r->out + (s->post_first + lo) * size,
        (const unsigned char *)s->slot->pinned_out.ptr + lo * size, (hi - lo) * size);
    tkhi_split(s->chunk, s->pre_count, part, parts, &lo, &hi);
    for (unsigned a = 0; a < k->arity; ++a)
        memcpy((unsigned char *)s->slot->pinned_in[a].ptr + lo * size,
            (const unsigned char *)r->inputs[a] + (s->pre_first + lo) * size, (hi - lo) * size);
}

/* Elementwise over many chunks. Step c: wait for chunk c - 2's copy out, check and copy
 * it out while staging chunk c in the same slot, then enqueue chunk c; chunk c - 1 runs
 * on the device meanwhile. The oracle checks the staged inputs against the staged output
 * (the bytes the device saw and wrote), before the output reaches 'out', so out may be an
 * input. */
static tkh_status run_chunked(run *r, size_t chunk)
{
    const size_t chunks = (r->n + chunk - 1) / chunk;
    tkh_status st = TKH_OK;
    for (int s = 0; s < TKHI_SLOTS && st == TKH_OK; ++s)
        st = slot_buffers(r, &r->ctx->slots[s], chunk, 1);
    if (st != TKH_OK)
        return st;
    tkhi_evidence(r->report, "staging through pinned memory in %zu chunks of up to %zu elements, %u host threads, on device %d (%s)",
        chunks, chunk, r->crew ? r->crew->size : 1u, r->ctx->device.selected, r->ctx->device.arch);
    step *job = malloc(sizeof *job);
    if (job == NULL)
        return tkhi_fail(TKH_ERR_HOST_ALLOC, "allocating %zu bytes for the pipeline failed", sizeof *job);
    int mismatch = 0;
    for (size_t c = 0; c < chunks + TKHI_SLOTS && st == TKH_OK && !mismatch; ++c) {
        tkhi_slot *slot = &r->ctx->slots[c % TKHI_SLOTS];
        *job = (step){ .r = r, .slot = slot, .chunk = chunk };
        if (c >= TKHI_SLOTS) {
            int err = tkhi_event_wait(r->ctx, slot->done);
            if (err != 0) {
                st = sync_failed(r, err);
                break;
            }
            job->post_first = (c - TKHI_SLOTS) * chunk;
            job->post_count = r->n - job->post_first < chunk ? r->n - job->post_first : chunk;
        }
        if (c < chunks) {
            job->pre_first = c * chunk;
            job->pre_count = r->n - job->pre_first < chunk ? r->n - job->pre_first : chunk;
        }
        const unsigned parts = r->crew ? r->crew->size : 1;
        if (r->crew)
            tkhi_crew_run(r->crew, step_part, job);
        else
            step_part(job, 0, 1);
        if (job->post_count)
            mismatch = tkhi_oracle_merge(&r->oracle, job->post_first, job->parts, parts);
        if (c < chunks && !mismatch) {
            const void *staged[TKHI_MAX_INPUTS] = { slot->pinned_in[0].ptr, slot->pinned_in[1].ptr,
                slot->pinned_in[2].ptr };
            st = enqueue_chunk(r, slot, staged, slot->pinned_out.ptr, job->pre_first, job->pre_count);
        }
    }
    free(job);
    if (mismatch)
        for (int s = 0; s < TKHI_SLOTS; ++s)
            tkhi_stream_drain(r->ctx->slots[s].stream);
    if (st == TKH_OK)
        tkhi_evidence(r->report, "ran %s on each chunk (first: grid %u x block %u) and copied every chunk back",
            r->kernel->symbol, r->grid, r->block);
    return st;
}

/* Stages elements [first, first + count) of a reduction's input into pinned memory, part
 * by part, and folds each part into that part's oracle state while it is in cache. */
typedef struct stage_job {
    const tkh_kernel_info *kernel;
    const unsigned char *src;  /* at element first */
    unsigned char *dst;
    size_t chunk, count;       /* elements per full chunk; in this one */
    tkh_fold *folds;           /* one per part, or NULL when the oracle is off */
} stage_job;

static void stage_part(void *arg, unsigned part, unsigned parts)
{
    const stage_job *s = arg;
    const size_t size = s->kernel->elem_size;
    size_t lo, hi;
    tkhi_split(s->chunk, s->count, part, parts, &lo, &hi);
    memcpy(s->dst + lo * size, s->src + lo * size, (hi - lo) * size);
    if (s->folds != NULL && hi > lo)
        s->kernel->fold(s->src + lo * size, hi - lo, &s->folds[part]);
}

/* Copies the reduction's input to dev (whole), staged in chunks when it is large; then
 * *folded says whether the oracle's folds (r->folds) cover the input. */
static tkh_status reduction_input(run *r, unsigned char *dev, size_t chunk_bytes, int *folded)
{
    tkhi_slot *slots = r->ctx->slots;
    const tkh_kernel_info *k = r->kernel;
    *folded = 0;
    if (r->bytes.in <= chunk_bytes) {
        int err = tkhi_copy_to_device(r->ctx, dev, r->inputs[0], r->bytes.in, slots[0].stream);
        return err == 0 ? TKH_OK : copy_failed(r, err, tkhi_input_names[0]);
    }
    const size_t chunk = chunk_bytes / k->elem_size;
    tkh_status st = TKH_OK;
    for (int s = 0; s < TKHI_SLOTS && st == TKH_OK; ++s)
        st = tkhi_pinned_buffer(r->ctx, &slots[s].pinned_in[0], chunk * k->elem_size, "staging an input");
    for (size_t first = 0, c = 0; first < r->n && st == TKH_OK; first += chunk, ++c) {
        tkhi_slot *slot = &slots[c % TKHI_SLOTS];
        int err = c >= TKHI_SLOTS ? tkhi_event_wait(r->ctx, slot->done) : 0;
        if (err != 0)
            return sync_failed(r, err);
        stage_job job = { k, (const unsigned char *)r->inputs[0] + first * k->elem_size,
            slot->pinned_in[0].ptr, chunk, r->n - first < chunk ? r->n - first : chunk, r->folds };
        if (r->crew)
            tkhi_crew_run(r->crew, stage_part, &job);
        else
            stage_part(&job, 0, 1);
        err = tkhi_copy_to_device(r->ctx, dev + first * k->elem_size, job.dst, job.count * k->elem_size,
            slot->stream);
        if (err != 0)
            return copy_failed(r, err, tkhi_input_names[0]);
        err = tkhi_event_record(r->ctx, slot->done, slot->stream);
        if (err != 0)
            return sync_failed(r, err);
    }
    *folded = r->folds != NULL;
    /* The kernel runs on slot 0's stream: wait for the copies on the other one. */
    int err = st == TKH_OK ? tkhi_stream_wait(r->ctx, slots[1].stream) : 0;
    return err == 0 ? st : sync_failed(r, err);
}

/* A reduction: the whole input on the device, one launch, one output element. */
static tkh_status run_reduction(run *r, void *result)
{
    tkh_context *ctx = r->ctx;
    tkhi_slot *slot = &ctx->slots[0];
    tkhi_launch_shape(ctx, r->kernel, r->n, &r->grid, &r->block);
    tkh_status st = tkhi_device_buffer(ctx, &slot->dev_in[0], r->bytes.in, tkhi_input_names[0]);
    if (st == TKH_OK)
        st = tkhi_device_buffer(ctx, &slot->dev_out, r->bytes.out, "out");
    if (st == TKH_OK)
        st = tkhi_device_buffer(ctx, &ctx->scratch, (size_t)r->grid * r->kernel->scratch_size, "partials");
    if (st != TKH_OK)
        return st;
    tkhi_evidence(r->report, "using a device buffer of %zu bytes for the input on device %d (%s)",
        r->bytes.in, ctx->device.selected, ctx->device.arch);
    st = reduction_input(r, slot->dev_in[0].ptr, r->chunk_bytes, &r->folded);
    const void *d_in[1] = { slot->dev_in[0].ptr };
    if (st == TKH_OK)
        st = tkhi_enqueue(ctx, r->kernel, d_in, slot->dev_out.ptr, r->n, r->grid, r->block,
            ctx->scratch.ptr, slot->stream);
    if (st == TKH_OK)
        st = corrupt_output(r, slot->dev_out.ptr, 0, 1, slot->stream);
    int err = st == TKH_OK ? tkhi_copy_to_host(ctx, result, slot->dev_out.ptr, r->bytes.out, slot->stream) : 0;
    if (err != 0)
        st = copy_failed(r, err, "out");
    err = st == TKH_OK ? tkhi_stream_wait(ctx, slot->stream) : 0;
    if (err != 0)
        st = sync_failed(r, err);
    if (st == TKH_OK)
        tkhi_evidence(r->report, "copied the input in, ran %s with grid %u x block %u, copied the output back",
            r->kernel->symbol, r->grid, r->block);
    return st;
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
        r->seconds = now_seconds() - start;
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
    }
    if (o->policy.mode == TKH_ORACLE_OFF) {
        tkhi_evidence(rep, "oracle policy off: the %zu outputs were not compared with the CPU oracle", outputs);
        return TKH_OK;
    }
    if (o->bad != SIZE_MAX) {
        tkhi_evidence(rep, "compared outputs with the CPU oracle (%s): output %zu differs",
            tkh_oracle_mode_name(o->policy.mode), o->bad);
        return tkhi_fail(TKH_ERR_ORACLE_MISMATCH, "%s_%s: element %zu of %zu differs from the CPU oracle: %s",
            k->op, k->type, o->bad, outputs, o->detail);
    }
    if (o->policy.mode == TKH_ORACLE_SAMPLED && k->out_count == 0)
        tkhi_evidence(rep, "compared %zu sampled outputs (seed %llu) of %zu with the CPU oracle, %s: all agree",
            o->compared, o->policy.seed, outputs, k->comparison);
    else
        tkhi_evidence(rep, "compared all %zu outputs (from %zu inputs) with the CPU oracle, %s: all agree",
            outputs, r->n, k->comparison);
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
        st = r->kernel->out_count ? run_reduction(r, result)
            : whole ? run_whole(r, result) : run_chunked(r, chunk);
    if (st != TKH_OK) /* nothing may still be copying into buffers the next call reuses */
        for (int s = 0; s < TKHI_SLOTS; ++s)
            if (ctx->slots[s].stream != NULL)
                tkhi_stream_drain(ctx->slots[s].stream);
    pthread_mutex_unlock(&ctx->lock);
    if (st == TKH_OK && r->folded)
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
    const double start = now_seconds();
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
