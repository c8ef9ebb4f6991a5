/* Reductions on the host path: the whole input on the device (staged through pinned
 * memory in chunks when it is large, the crew folding the oracle's state as it stages),
 * one launch, one output. */
#include <stdint.h>
#include <string.h>

#include "paths.h"

/* Stages elements [first, first + count) of a reduction's input into pinned memory, part
 * by part, and folds each piece of a part into that part's oracle state while it is in
 * cache. */
typedef struct stage_job {
    const tkh_kernel_info *kernel;
    const unsigned char *src;  /* at element first */
    unsigned char *dst;
    size_t first;              /* the chunk's first element in the whole input */
    size_t chunk, count;       /* elements per full chunk; in this one */
    tkh_fold *folds;           /* one per part, or NULL when the oracle is off */
} stage_job;

static void stage_part(void *arg, unsigned part, unsigned parts)
{
    const stage_job *s = arg;
    const size_t size = s->kernel->inputs[0].size;
    const size_t piece = TKHI_PIECE_BYTES / size;
    size_t lo, hi;
    tkhi_split(s->chunk, s->count, part, parts, &lo, &hi);
    for (size_t at = lo; at < hi; at += piece) {
        const size_t to = at + tkhi_chunk_length(hi, at, piece);
        memcpy(s->dst + at * size, s->src + at * size, (to - at) * size);
        if (s->folds != NULL)
            s->kernel->fold(s->src + at * size, s->first + at, to - at, &s->folds[part]);
    }
}

/* Copies the reduction's input to dev (whole), staged in chunks when it is large (and
 * folded into r->folds, when there are some, on the way). */
static tkh_status reduction_input(run *r, unsigned char *dev)
{
    tkhi_slot *slots = r->ctx->slots;
    const tkh_kernel_info *k = r->kernel;
    char name[80];
    tkhi_array_name(k, 0, 0, name, sizeof name);
    if (r->bytes.in[0] <= r->chunk_bytes) {
        int err = tkhi_copy_to_device(r->ctx, dev, r->arrays.in[0], r->bytes.in[0], slots[0].stream);
        return err == 0 ? TKH_OK : tkhi_run_copy_failed(r, err, name);
    }
    const size_t size = k->inputs[0].size, chunk = r->chunk_bytes / size;
    tkh_status st = TKH_OK;
    for (int s = 0; s < TKHI_SLOTS && st == TKH_OK; ++s)
        st = tkhi_pinned_buffer(r->ctx, &slots[s].pinned_in[0], chunk * size, "staging an input");
    if (st != TKH_OK)
        return st;
    for (size_t first = 0, c = 0; first < r->n; first += chunk, ++c) {
        tkhi_slot *slot = &slots[c % TKHI_SLOTS];
        int err = c >= TKHI_SLOTS ? tkhi_run_wait_event(r, slot->done) : 0;
        if (err != 0)
            return tkhi_run_sync_failed(r, err);
        stage_job job = { k, (const unsigned char *)r->arrays.in[0] + first * size,
            slot->pinned_in[0].ptr, first, chunk, tkhi_chunk_length(r->n, first, chunk), r->folds };
        tkhi_run_step(r, stage_part, &job);
        err = tkhi_copy_to_device(r->ctx, dev + first * size, job.dst, job.count * size, slot->stream);
        if (err != 0)
            return tkhi_run_copy_failed(r, err, name);
        err = tkhi_event_record(r->ctx, slot->done, slot->stream);
        if (err != 0)
            return tkhi_run_sync_failed(r, err);
    }
    /* The kernel runs on slot 0's stream: wait for the copies on the others. */
    const double wait_start = tkhi_now_seconds();
    for (int s = 1; s < TKHI_SLOTS; ++s) {
        int err = tkhi_stream_wait(r->ctx, slots[s].stream);
        if (err != 0)
            return tkhi_run_sync_failed(r, err);
    }
    r->wait_seconds += tkhi_now_seconds() - wait_start;
    tkhi_run_timing_evidence(r, r->folds ? "staging and folding" : "staging");
    return TKH_OK;
}

/* A reduction: the whole input on the device, one launch, out_count elements of each
 * output. */
tkh_status tkhi_run_reduction(run *r, void *const *results)
{
    tkh_context *ctx = r->ctx;
    const tkh_kernel_info *k = r->kernel;
    tkhi_slot *slot = &ctx->slots[0];
    tkhi_flat_geometry(ctx, k, r->n, &r->grid, &r->block);
    char name[80];
    tkh_status st = tkhi_device_buffer(ctx, &slot->dev_in[0], r->bytes.in[0], tkhi_array_name(k, 0, 0, name, sizeof name));
    for (unsigned o = 0; o < k->output_count && st == TKH_OK; ++o)
        st = tkhi_device_buffer(ctx, &slot->dev_out[o], r->bytes.out[o], tkhi_array_name(k, 1, o, name, sizeof name));
    if (st == TKH_OK)
        st = tkhi_device_buffer(ctx, &ctx->scratch, (size_t)r->grid * r->kernel->scratch_size, "partials");
    if (st != TKH_OK)
        return st;
    tkhi_evidence(r->report, "using a device buffer of %zu bytes for the input on device %d (%s)",
        r->bytes.in[0], ctx->device.selected, ctx->device.arch);
    st = reduction_input(r, slot->dev_in[0].ptr);
    tkhi_arrays d = { .in = { slot->dev_in[0].ptr } };
    for (unsigned o = 0; o < k->output_count; ++o)
        d.out[o] = slot->dev_out[o].ptr;
    tkhi_launch_spec l = { ctx, k, r->call, d.in, (void *const *)d.out, r->scalars, NULL, r->n, r->grid, r->block,
        slot->stream };
    if (st == TKH_OK)
        st = tkhi_launch_run(&l, ctx->scratch.ptr);
    if (st == TKH_OK)
        st = tkhi_run_corrupt(r, slot->dev_out[0].ptr, 0, k->out_count, slot->stream);
    for (unsigned o = 0; o < k->output_count && st == TKH_OK; ++o) {
        int err = tkhi_copy_to_host(ctx, results[o], slot->dev_out[o].ptr, r->bytes.out[o], slot->stream);
        if (err != 0)
            st = tkhi_run_copy_failed(r, err, tkhi_array_name(k, 1, o, name, sizeof name));
    }
    int err = st == TKH_OK ? tkhi_stream_wait(ctx, slot->stream) : 0;
    if (err != 0)
        st = tkhi_run_sync_failed(r, err);
    if (st == TKH_OK)
        tkhi_evidence(r->report, "copied the input in, ran %s with grid %u x block %u, copied the output back",
            r->kernel->symbol, r->grid, r->block);
    return st;
}
