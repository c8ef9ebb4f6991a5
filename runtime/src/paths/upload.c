/* The host path's whole inputs: each on the device before the pieces run, straight from
 * the caller's memory when it fits a chunk, else staged in chunks through the slots'
 * pinned buffers by the crew (a flat reduction's oracle folding the input on the way). */
#include <stdint.h>
#include <string.h>

#include "paths.h"

/* Stages elements [first, first + count) of an input into pinned memory, part by part,
 * and folds each sub-piece of a part into that part's oracle state while it is in cache. */
typedef struct stage_job {
    const tkh_kernel_info *kernel;
    size_t size;               /* bytes per element */
    const unsigned char *src;  /* at element first */
    unsigned char *dst;
    size_t first;              /* the chunk's first element in the whole input */
    size_t chunk, count;       /* elements per full chunk; in this one */
    tkh_fold *folds;           /* one per part, or NULL */
} stage_job;

static void stage_part(void *arg, unsigned part, unsigned parts)
{
    const stage_job *s = arg;
    const size_t size = s->size, sub = TKHI_PIECE_BYTES / size;
    size_t lo, hi;
    tkhi_split(s->chunk, s->count, part, parts, &lo, &hi);
    for (size_t at = lo; at < hi; at += sub) {
        const size_t to = hi - at < sub ? hi : at + sub;
        memcpy(s->dst + at * size, s->src + at * size, (to - at) * size);
        if (s->folds != NULL)
            s->kernel->fold(s->src + at * size, s->first + at, to - at, &s->folds[part]);
    }
}

/* Input a's span (of n elements from src) to dev through the slots, in chunks. */
static tkh_status staged(host_run *r, unsigned a, const unsigned char *src, size_t n, unsigned char *dev,
    const char *name)
{
    tkhi_slot *slots = r->ctx->slots;
    const size_t size = r->c->size[a], chunk = r->chunk_bytes / size;
    tkh_status st = TKH_OK;
    for (int s = 0; s < TKHI_SLOTS && st == TKH_OK; ++s)
        st = tkhi_pinned_buffer(r->ctx, &slots[s].pinned_in[a], chunk * size, "staging an input");
    for (size_t first = 0, c = 0; first < n && st == TKH_OK; first += chunk, ++c) {
        tkhi_slot *slot = &slots[c % TKHI_SLOTS];
        int err = c >= TKHI_SLOTS ? tkhi_host_wait(r, slot->done) : 0;
        if (err != 0)
            return tkhi_host_sync_failed(r, err);
        stage_job job = { r->c->kernel, size, src + first * size, slot->pinned_in[a].ptr, first, chunk,
            n - first < chunk ? n - first : chunk, a == 0 ? r->folds : NULL };
        tkhi_host_step(r, stage_part, &job);
        err = tkhi_copy_to_device(r->ctx, dev + first * size, job.dst, job.count * size, slot->stream);
        if (err != 0)
            return tkhi_host_copy_failed(r, err, name);
        err = tkhi_event_record(r->ctx, slot->done, slot->stream);
        if (err != 0)
            return tkhi_host_sync_failed(r, err);
    }
    return st;
}

tkh_status tkhi_host_upload(host_run *r)
{
    tkh_context *ctx = r->ctx;
    const tkhi_call *c = r->c;
    const tkh_kernel_info *k = c->kernel;
    tkh_status st = TKH_OK;
    int any = 0, staged_any = 0;
    char name[80];
    for (unsigned a = 0; a < k->arity && st == TKH_OK; ++a) {
        r->whole_dev[a] = NULL;
        if (!r->whole[a] || c->absent[a] || c->hi[a] < c->lo[a])
            continue;
        const size_t bytes = tkhi_span_bytes(c, a);
        const unsigned char *src = c->base[a] + c->lo[a] * (int64_t)c->size[a];
        tkhi_array_name(k, 0, a, name, sizeof name);
        if ((st = tkhi_device_buffer(ctx, &ctx->slots[0].dev_in[a], bytes, name)) != TKH_OK)
            break;
        r->whole_dev[a] = ctx->slots[0].dev_in[a].ptr;
        any = 1;
        if (bytes > r->chunk_bytes) {
            staged_any = 1;
            tkhi_evidence(r->report, "staged %s through pinned memory in chunks of up to %zu bytes", name,
                r->chunk_bytes / c->size[a] * c->size[a]);
            st = staged(r, a, src, bytes / c->size[a], r->whole_dev[a], name);
        } else {
            int err = tkhi_copy_to_device(ctx, r->whole_dev[a], src, bytes, ctx->slots[0].stream);
            if (err != 0)
                st = tkhi_host_copy_failed(r, err, name);
        }
    }
    /* The pieces run on every slot's stream (one piece: slot 0's, after its own copies). */
    const double start = tkhi_now_seconds();
    for (int s = r->dim >= 0 ? 0 : 1; s < TKHI_SLOTS && st == TKH_OK && (staged_any || (any && r->dim >= 0)); ++s) {
        int err = tkhi_stream_wait(ctx, ctx->slots[s].stream);
        if (err != 0)
            st = tkhi_host_sync_failed(r, err);
    }
    r->wait_seconds += tkhi_now_seconds() - start;
    r->staged |= staged_any;
    return st;
}
