/* Elementwise runs of the host path: one chunk straight from the caller's memory, or many
 * through pinned staging, TKHI_SLOTS in flight on their own streams, while the crew
 * copies the next chunk in and checks and copies out an earlier one. Also what both kinds
 * of run share: the failures, the timed steps and waits with their evidence, and the
 * test hook. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "paths.h"

tkh_status tkhi_run_sync_failed(const run *r, int err)
{
    return tkhi_fail_runtime(TKH_ERR_SYNC, err, "running %s on device %d failed (copies and kernel)",
        r->kernel->symbol, r->ctx->device.selected);
}

tkh_status tkhi_run_copy_failed(const run *r, int err, const char *what)
{
    return tkhi_fail_runtime(TKH_ERR_COPY, err, "copying %s on device %d failed", what,
        r->ctx->device.selected);
}

void tkhi_run_step(run *r, tkhi_task task, void *arg)
{
    const double start = tkhi_now_seconds();
    if (r->crew)
        tkhi_crew_run(r->crew, task, arg);
    else
        task(arg, 0, 1);
    r->crew_seconds += tkhi_now_seconds() - start;
}

int tkhi_run_wait_event(run *r, void *event)
{
    const double start = tkhi_now_seconds();
    const int err = tkhi_event_wait(r->ctx, event);
    r->wait_seconds += tkhi_now_seconds() - start;
    return err;
}

void tkhi_run_timing_evidence(const run *r, const char *work)
{
    tkhi_evidence(r->report, "host threads: %.6f s %s, %.6f s waiting for the device (the larger share bounds the run)",
        r->crew_seconds, work, r->wait_seconds);
}

/* Test hook: flip one bit of element 'index' of output 0, d_out (covering elements
 * [first, first + count)), once the kernel has run on 'stream'. */
tkh_status tkhi_run_corrupt(run *r, unsigned char *d_out, size_t first, size_t count, void *stream)
{
    if (r->corrupt_index < first || r->corrupt_index - first >= count)
        return TKH_OK;
    const size_t size = r->kernel->outputs[0].size, index = r->corrupt_index;
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
        return tkhi_run_copy_failed(r, err, "for the corruption test hook");
    tkhi_evidence(r->report, "test hook: flipped bit %u of output element %zu on the device", bit, index);
    return TKH_OK;
}

/* The slot's device buffers as arrays of one call. */
static void device_arrays(const run *r, const tkhi_slot *slot, tkhi_arrays *d)
{
    memset(d, 0, sizeof *d);
    for (unsigned a = 0; a < r->kernel->arity; ++a)
        d->in[a] = slot->dev_in[a].ptr;
    for (unsigned o = 0; o < r->kernel->output_count; ++o)
        d->out[o] = slot->dev_out[o].ptr;
}

/* Enqueues copies in, the kernel and the copies out of elements [first, first + count) on
 * a slot's stream; the slot's event records the end. 'src' are the inputs and 'dst' the
 * outputs, both at element 'first'. */
static tkh_status enqueue_chunk(run *r, tkhi_slot *slot, const tkhi_arrays *src, void *const *dst,
    size_t first, size_t count)
{
    const tkh_kernel_info *k = r->kernel;
    char name[80];
    for (unsigned a = 0; a < k->arity; ++a) {
        int err = tkhi_copy_to_device(r->ctx, slot->dev_in[a].ptr, src->in[a], count * k->inputs[a].size,
            slot->stream);
        if (err != 0)
            return tkhi_run_copy_failed(r, err, tkhi_array_name(k, 0, a, name, sizeof name));
    }
    tkhi_arrays d;
    device_arrays(r, slot, &d);
    tkhi_launch_spec l = { r->ctx, r->kernel, r->call, d.in, (void *const *)d.out, r->scalars, NULL, count, 0, 0,
        slot->stream };
    tkhi_launch_choose(&l, NULL);
    if (first == 0) {
        r->grid = l.grid;
        r->block = l.block;
    }
    tkh_status st = tkhi_launch_run(&l, NULL);
    if (st == TKH_OK)
        st = tkhi_run_corrupt(r, slot->dev_out[0].ptr, first, count, slot->stream);
    if (st != TKH_OK)
        return st;
    for (unsigned o = 0; o < k->output_count; ++o) {
        int err = tkhi_copy_to_host(r->ctx, dst[o], slot->dev_out[o].ptr, count * k->outputs[o].size,
            slot->stream);
        if (err != 0)
            return tkhi_run_copy_failed(r, err, tkhi_array_name(k, 1, o, name, sizeof name));
    }
    int err = tkhi_event_record(r->ctx, slot->done, slot->stream);
    return err == 0 ? TKH_OK : tkhi_run_sync_failed(r, err);
}

/* Slot buffers for chunks of 'count' elements; staged ones get pinned twins. */
static tkh_status slot_buffers(run *r, tkhi_slot *slot, size_t count, int staged)
{
    const tkh_kernel_info *k = r->kernel;
    tkh_status st = TKH_OK;
    char name[80];
    for (unsigned a = 0; a < k->arity && st == TKH_OK; ++a) {
        const size_t bytes = count * k->inputs[a].size;
        st = tkhi_device_buffer(r->ctx, &slot->dev_in[a], bytes, tkhi_array_name(k, 0, a, name, sizeof name));
        if (st == TKH_OK && staged)
            st = tkhi_pinned_buffer(r->ctx, &slot->pinned_in[a], bytes, "staging an input");
    }
    for (unsigned o = 0; o < k->output_count && st == TKH_OK; ++o) {
        const size_t bytes = count * k->outputs[o].size;
        st = tkhi_device_buffer(r->ctx, &slot->dev_out[o], bytes, tkhi_array_name(k, 1, o, name, sizeof name));
        if (st == TKH_OK && staged)
            st = tkhi_pinned_buffer(r->ctx, &slot->pinned_out[o], bytes, "staging an output");
    }
    return st;
}

/* Bytes of the arrays of one call, in words: "4096 bytes per input and 4096 for the
 * output", or per array where they differ. */
static void describe_bytes(const run *r, char *buf, size_t size)
{
    const tkh_kernel_info *k = r->kernel;
    int same = 1;
    for (unsigned a = 0; a < k->arity; ++a)
        same &= r->bytes.in[a] == r->bytes.in[0];
    if (same && k->output_count == 1) {
        snprintf(buf, size, "%zu bytes per input and %zu for the output", r->bytes.in[0], r->bytes.out[0]);
        return;
    }
    size_t len = 0;
    buf[0] = '\0';
    for (unsigned i = 0; i < k->arity + k->output_count && len < size; ++i) {
        const int output = i >= k->arity;
        const unsigned j = output ? i - k->arity : i;
        const int w = snprintf(buf + len, size - len, "%s%zu for %s", i ? ", " : "",
            output ? r->bytes.out[j] : r->bytes.in[j], output ? k->outputs[j].name : k->inputs[j].name);
        len += w > 0 ? (size_t)w : 0;
    }
}

/* Elementwise, one chunk: straight from and to the caller's memory ('results' are the
 * outputs, or staging copies of those that are also inputs). */
tkh_status tkhi_run_whole(run *r, void *const *results)
{
    tkhi_slot *slot = &r->ctx->slots[0];
    tkh_status st = slot_buffers(r, slot, r->n, 0);
    if (st != TKH_OK)
        return st;
    char sizes[160];
    describe_bytes(r, sizes, sizeof sizes);
    tkhi_evidence(r->report, "using device buffers of %s on device %d (%s)", sizes, r->ctx->device.selected,
        r->ctx->device.arch);
    st = enqueue_chunk(r, slot, &r->arrays, results, 0, r->n);
    int err = st == TKH_OK ? tkhi_stream_wait(r->ctx, slot->stream) : 0;
    if (err != 0)
        return tkhi_run_sync_failed(r, err);
    if (st == TKH_OK)
        tkhi_evidence(r->report, "copied %u input%s in, ran %s with grid %u x block %u, copied the output%s back",
            r->kernel->arity, r->kernel->arity == 1 ? "" : "s", r->kernel->symbol, r->grid, r->block,
            r->kernel->output_count == 1 ? "" : "s");
    return st;
}

/* One step of the chunked pipeline on the crew: check and copy out chunk 'post' (if any),
 * then copy chunk 'pre' (if any) into the same slot's staging. Both chunks are split
 * alike, so no element is touched by two threads. */
typedef struct step {
    run *r;
    tkhi_slot *slot;
    tkhi_arrays staged;        /* the slot's pinned inputs and outputs */
    size_t chunk;              /* elements per full chunk */
    size_t post_first, post_count, pre_first, pre_count;
    tkhi_oracle_part parts[TKHI_CREW_MAX];
} step;

static void step_part(void *arg, unsigned part, unsigned parts)
{
    step *s = arg;
    run *r = s->r;
    const tkh_kernel_info *k = r->kernel;
    const size_t piece = TKHI_PIECE_BYTES / r->bytes.widest;
    size_t lo, hi;
    tkhi_split(s->chunk, s->post_count, part, parts, &lo, &hi);
    tkhi_oracle_part_start(&s->parts[part]);
    for (size_t at = lo; at < hi; at += piece) { /* each piece is copied out while in cache */
        const size_t to = at + tkhi_chunk_length(hi, at, piece);
        tkhi_oracle_part_run(&r->oracle, &s->staged, r->scalars, s->post_first, at, to, &s->parts[part]);
        for (unsigned o = 0; o < k->output_count; ++o) {
            const size_t size = k->outputs[o].size;
            tkhi_stream_copy((unsigned char *)r->arrays.out[o] + (s->post_first + at) * size,
                (const unsigned char *)s->staged.out[o] + at * size, (to - at) * size);
        }
    }
    tkhi_split(s->chunk, s->pre_count, part, parts, &lo, &hi);
    for (unsigned a = 0; a < k->arity; ++a) { /* ordinary stores: see TKHI_PIECE_BYTES */
        const size_t size = k->inputs[a].size;
        memcpy((unsigned char *)s->slot->pinned_in[a].ptr + lo * size,
            (const unsigned char *)r->arrays.in[a] + (s->pre_first + lo) * size, (hi - lo) * size);
    }
}

/* Elementwise over many chunks. Step c: wait for chunk c - TKHI_SLOTS's copy out, check
 * and copy it out while staging chunk c in the same slot, then enqueue chunk c; the chunks
 * between run on the device meanwhile. The oracle checks the staged inputs against the
 * staged outputs (the bytes the device saw and wrote), before the outputs reach the
 * caller's, so an output may be an input. */
tkh_status tkhi_run_chunked(run *r, size_t chunk)
{
    const size_t chunks = (r->n + chunk - 1) / chunk;
    tkh_status st = TKH_OK;
    for (int s = 0; s < TKHI_SLOTS && st == TKH_OK; ++s)
        st = slot_buffers(r, &r->ctx->slots[s], chunk, 1);
    if (st != TKH_OK)
        return st;
    tkhi_evidence(r->report, "staging through pinned memory in %zu chunks of up to %zu elements, %u host threads, on device %d (%s)",
        chunks, chunk, r->crew ? r->crew->size : 1u, r->ctx->device.selected, r->ctx->device.arch);
    step job;
    int mismatch = 0;
    for (size_t c = 0; c < chunks + TKHI_SLOTS && st == TKH_OK && !mismatch; ++c) {
        tkhi_slot *slot = &r->ctx->slots[c % TKHI_SLOTS];
        job = (step){ .r = r, .slot = slot, .chunk = chunk };
        for (unsigned a = 0; a < r->kernel->arity; ++a)
            job.staged.in[a] = slot->pinned_in[a].ptr;
        for (unsigned o = 0; o < r->kernel->output_count; ++o)
            job.staged.out[o] = slot->pinned_out[o].ptr;
        if (c >= TKHI_SLOTS) {
            int err = tkhi_run_wait_event(r, slot->done);
            if (err != 0) {
                st = tkhi_run_sync_failed(r, err);
                break;
            }
            job.post_first = (c - TKHI_SLOTS) * chunk;
            job.post_count = tkhi_chunk_length(r->n, job.post_first, chunk);
        }
        if (c < chunks) {
            job.pre_first = c * chunk;
            job.pre_count = tkhi_chunk_length(r->n, job.pre_first, chunk);
        }
        const unsigned parts = r->crew ? r->crew->size : 1;
        tkhi_run_step(r, step_part, &job);
        if (job.post_count)
            mismatch = tkhi_oracle_merge(&r->oracle, job.post_first, job.parts, parts);
        if (c < chunks && !mismatch)
            st = enqueue_chunk(r, slot, &job.staged, job.staged.out, job.pre_first, job.pre_count);
    }
    if (mismatch)
        for (int s = 0; s < TKHI_SLOTS; ++s)
            tkhi_stream_drain(r->ctx->slots[s].stream);
    if (st == TKH_OK) {
        tkhi_evidence(r->report, "ran %s on each chunk (first: grid %u x block %u) and copied every chunk back",
            r->kernel->symbol, r->grid, r->block);
        tkhi_run_timing_evidence(r, r->oracle.policy.mode == TKH_ORACLE_OFF ? "staging" : "staging and checking");
    }
    return st;
}
