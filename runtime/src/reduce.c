/* Reductions on the host path: the whole input on the device (staged through pinned
 * memory in chunks when it is large, the crew folding the oracle's state as it stages),
 * one launch, one output. */
#include <stdint.h>
#include <string.h>

#include "host_path.h"
#include "platform.h"
#include "workspace.h"

/* Stages elements [first, first + count) of a reduction's input into pinned memory, part
 * by part, and folds each piece of a part into that part's oracle state while it is in
 * cache. */
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
    const size_t piece = TKHI_PIECE_BYTES / size;
    size_t lo, hi;
    tkhi_split(s->chunk, s->count, part, parts, &lo, &hi);
    for (size_t at = lo; at < hi; at += piece) {
        const size_t to = at + tkhi_chunk_length(hi, at, piece);
        memcpy(s->dst + at * size, s->src + at * size, (to - at) * size);
        if (s->folds != NULL)
            s->kernel->fold(s->src + at * size, to - at, &s->folds[part]);
    }
}

/* Copies the reduction's input to dev (whole), staged in chunks when it is large (and
 * folded into r->folds, when there are some, on the way). */
static tkh_status reduction_input(run *r, unsigned char *dev)
{
    tkhi_slot *slots = r->ctx->slots;
    const tkh_kernel_info *k = r->kernel;
    if (r->bytes.in <= r->chunk_bytes) {
        int err = tkhi_copy_to_device(r->ctx, dev, r->inputs[0], r->bytes.in, slots[0].stream);
        return err == 0 ? TKH_OK : tkhi_run_copy_failed(r, err, tkhi_input_names[0]);
    }
    const size_t chunk = r->chunk_bytes / k->elem_size;
    tkh_status st = TKH_OK;
    for (int s = 0; s < TKHI_SLOTS && st == TKH_OK; ++s)
        st = tkhi_pinned_buffer(r->ctx, &slots[s].pinned_in[0], chunk * k->elem_size, "staging an input");
    if (st != TKH_OK)
        return st;
    for (size_t first = 0, c = 0; first < r->n; first += chunk, ++c) {
        tkhi_slot *slot = &slots[c % TKHI_SLOTS];
        int err = c >= TKHI_SLOTS ? tkhi_run_wait_event(r, slot->done) : 0;
        if (err != 0)
            return tkhi_run_sync_failed(r, err);
        stage_job job = { k, (const unsigned char *)r->inputs[0] + first * k->elem_size,
            slot->pinned_in[0].ptr, chunk, tkhi_chunk_length(r->n, first, chunk), r->folds };
        tkhi_run_step(r, stage_part, &job);
        err = tkhi_copy_to_device(r->ctx, dev + first * k->elem_size, job.dst, job.count * k->elem_size,
            slot->stream);
        if (err != 0)
            return tkhi_run_copy_failed(r, err, tkhi_input_names[0]);
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

/* A reduction: the whole input on the device, one launch, one output element. */
tkh_status tkhi_run_reduction(run *r, void *result)
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
    st = reduction_input(r, slot->dev_in[0].ptr);
    const void *d_in[1] = { slot->dev_in[0].ptr };
    if (st == TKH_OK)
        st = tkhi_enqueue(ctx, r->kernel, d_in, slot->dev_out.ptr, r->n, r->grid, r->block,
            ctx->scratch.ptr, slot->stream);
    if (st == TKH_OK)
        st = tkhi_run_corrupt(r, slot->dev_out.ptr, 0, 1, slot->stream);
    int err = st == TKH_OK ? tkhi_copy_to_host(ctx, result, slot->dev_out.ptr, r->bytes.out, slot->stream) : 0;
    if (err != 0)
        st = tkhi_run_copy_failed(r, err, "out");
    err = st == TKH_OK ? tkhi_stream_wait(ctx, slot->stream) : 0;
    if (err != 0)
        st = tkhi_run_sync_failed(r, err);
    if (st == TKH_OK)
        tkhi_evidence(r->report, "copied the input in, ran %s with grid %u x block %u, copied the output back",
            r->kernel->symbol, r->grid, r->block);
    return st;
}
