/* The host path's pieces, TKHI_SLOTS in flight on their own streams: step s waits for the
 * slot's last piece, s - TKHI_SLOTS, and the crew checks that piece's outputs (the staged
 * inputs against the staged outputs: the bytes the device saw and wrote) and puts them
 * into the caller's tensors while it stages piece s into the same slot; then piece s is
 * enqueued; the projected check's block sums are made while the first pieces run (they
 * need the inputs alone). Also what the host path's steps share: failures, timed steps and
 * waits, the test hook. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "paths.h"

tkh_status tkhi_host_sync_failed(const host_run *r, int err)
{
    return tkhi_fail_runtime(TKH_ERR_SYNC, err, "running %s on device %d failed (copies and kernel)",
        r->c->kernel->symbol, r->ctx->device.selected);
}

tkh_status tkhi_host_copy_failed(const host_run *r, int err, const char *what)
{
    return tkhi_fail_runtime(TKH_ERR_COPY, err, "copying %s on device %d failed", what, r->ctx->device.selected);
}

void tkhi_host_step(host_run *r, tkhi_task task, void *arg)
{
    const double start = tkhi_now_seconds();
    if (r->crew)
        tkhi_crew_run(r->crew, task, arg);
    else
        task(arg, 0, 1);
    r->crew_seconds += tkhi_now_seconds() - start;
}

int tkhi_host_wait(host_run *r, void *event)
{
    const double start = tkhi_now_seconds();
    const int err = tkhi_event_wait(r->ctx, event);
    r->wait_seconds += tkhi_now_seconds() - start;
    return err;
}

/* Array a's offsets over plan p, from its element at the plan's origin. */
static void plan_span(const tkh_plan *p, unsigned a, int64_t *lo, int64_t *hi)
{
    *lo = *hi = 0;
    for (int d = 0; d < p->ndim; ++d) {
        const int64_t reach = (p->size[d] - 1) * p->stride[a][d];
        *(reach < 0 ? lo : hi) += reach;
    }
}

static int64_t magnitude(int64_t x)
{
    return x < 0 ? -x : x;
}

void tkhi_host_pieces(host_run *r)
{
    const tkhi_call *c = r->c;
    const tkh_kernel_info *k = c->kernel;
    const tkh_plan *p = &r->dev;
    const int d = p->ndim - 1;
    r->dim = -1;
    r->rows = r->step = 1;
    r->kept_per_row = p->count;
    r->outputs_per_kept = c->folds && !c->drops ? p->reduce_count : 1;
    for (unsigned o = 0; o < k->output_count; ++o)
        for (unsigned a = 0; a < k->arity; ++a)
            r->in_place |= c->base[a] == c->base[k->arity + o];
    for (unsigned a = 0; a < k->arity; ++a)
        r->whole[a] = 1;
    if (c->folds && d < p->reduced) /* everything folds into one output: one piece */
        return;
    int64_t widest = 1; /* bytes per row of the array that moves the most */
    for (unsigned a = 0; a < c->arrays; ++a)
        widest = magnitude(p->stride[a][d]) * (int64_t)c->size[a] > widest
            ? magnitude(p->stride[a][d]) * (int64_t)c->size[a] : widest;
    const int64_t rows = (int64_t)r->chunk_bytes / widest;
    if (rows >= p->size[d])
        return;
    r->dim = d;
    r->rows = p->size[d];
    r->step = rows > 0 ? rows : 1;
    r->kept_per_row = p->count / p->size[d];
    for (unsigned a = 0; a < k->arity; ++a) { /* whole: broadcast along d, or spans that barely shrink */
        const int64_t step = magnitude(p->stride[a][d]), span = c->hi[a] - c->lo[a] + 1;
        r->whole[a] = step == 0 || 2 * ((r->step - 1) * step + span - (p->size[d] - 1) * step) > span;
    }
}

/* Piece 'index': its rows of the cut dimension, its kept indices, its plan, and the span
 * of each input staged for it. */
typedef struct piece {
    int64_t first_row, first, count;  /* count kept indices from 'first' */
    tkh_plan plan;
    int64_t from[TKH_MAX_INPUTS];     /* staged inputs: the span's first element (of c->base) */
    size_t bytes[TKH_MAX_INPUTS];     /* and its bytes; 0: not staged */
} piece;

static void piece_of(const host_run *r, int64_t index, piece *pc)
{
    const tkhi_call *c = r->c;
    pc->plan = r->dev;
    pc->first_row = index * r->step;
    pc->first = pc->first_row * r->kept_per_row;
    pc->count = r->dev.count;
    memset(pc->bytes, 0, sizeof pc->bytes);
    if (r->dim < 0)
        return;
    const int d = r->dim;
    tkh_plan *p = &pc->plan;
    p->size[d] = r->rows - pc->first_row < r->step ? r->rows - pc->first_row : r->step;
    p->count = r->kept_per_row * p->size[d];
    pc->count = p->count;
    tkh_plan_magic(p->wide ? 1 : (uint32_t)p->size[d], &p->magic[d], &p->shift[d]);
    for (unsigned a = 0; a < c->kernel->arity; ++a) {
        if (r->whole[a] || c->absent[a] || c->hi[a] < c->lo[a])
            continue;
        int64_t lo, hi;
        plan_span(p, a, &lo, &hi);
        pc->from[a] = pc->first_row * p->stride[a][d] + lo;
        pc->bytes[a] = (size_t)(hi - lo + 1) * c->size[a];
    }
}

/* Test hook: flips the planned bit of the planned element of output 0 when it lies in
 * [first, first + count) of d_out, once the kernel has run on 'stream'. */
static tkh_status corrupt(host_run *r, unsigned char *d_out, size_t first, size_t count, void *stream)
{
    if (r->corrupt_index < first || r->corrupt_index - first >= count)
        return TKH_OK;
    const size_t size = r->c->kernel->outputs[0].size, index = r->corrupt_index;
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
        return tkhi_host_copy_failed(r, err, "for the corruption test hook");
    tkhi_evidence(r->report, "test hook: flipped bit %u of output element %zu on the device", bit, index);
    return TKH_OK;
}

/* Enqueues piece pc on slot s: its staged inputs in, the kernel (the flat one where the
 * call is flat), its outputs back into staging (or, for a call of one piece, where they
 * land); the slot's event records the end. */
static tkh_status enqueue(host_run *r, int s, const piece *pc)
{
    tkh_context *ctx = r->ctx;
    tkhi_call *c = r->c;
    const tkh_kernel_info *k = c->kernel;
    tkhi_slot *slot = &ctx->slots[s];
    const int d = r->dim >= 0 ? r->dim : 0;
    const void *in[TKH_MAX_INPUTS];
    void *out[TKH_MAX_OUTPUTS];
    unsigned char *host_out[TKH_MAX_OUTPUTS];
    char name[80];
    tkh_status st = TKH_OK;
    for (unsigned a = 0; a < k->arity && st == TKH_OK; ++a) {
        const int64_t origin = pc->first_row * r->dev.stride[a][d];
        const size_t size = c->size[a];
        r->at[s].base[a] = c->base[a]; /* the oracle reads whole inputs where they are */
        if (c->absent[a] || c->hi[a] < c->lo[a]) { /* not given (its default), or no elements to read */
            in[a] = NULL;
            continue;
        }
        if (r->whole[a]) {
            in[a] = r->whole_dev[a] + (origin - c->lo[a]) * (int64_t)size;
            continue;
        }
        tkhi_array_name(k, 0, a, name, sizeof name);
        if ((st = tkhi_device_buffer(ctx, &slot->dev_in[a], pc->bytes[a], name)) != TKH_OK)
            break;
        int err = tkhi_copy_to_device(ctx, slot->dev_in[a].ptr, slot->pinned_in[a].ptr, pc->bytes[a], slot->stream);
        if (err != 0)
            st = tkhi_host_copy_failed(r, err, name);
        in[a] = (const unsigned char *)slot->dev_in[a].ptr + (origin - pc->from[a]) * (int64_t)size;
        r->at[s].base[a] = (unsigned char *)slot->pinned_in[a].ptr - pc->from[a] * (int64_t)size;
    }
    const size_t outputs = (size_t)(pc->count * r->outputs_per_kept), first_out = (size_t)(pc->first * r->outputs_per_kept);
    for (unsigned o = 0; o < k->output_count && st == TKH_OK; ++o) {
        const size_t size = c->size[k->arity + o], bytes = outputs * size;
        tkhi_array_name(k, 1, o, name, sizeof name);
        st = tkhi_device_buffer(ctx, &slot->dev_out[o], bytes, name);
        if (st == TKH_OK && r->dim >= 0)
            st = tkhi_pinned_buffer(ctx, &slot->pinned_out[o], bytes, "staging an output");
        if (st != TKH_OK)
            break;
        out[o] = slot->dev_out[o].ptr;
        host_out[o] = r->dim >= 0 ? slot->pinned_out[o].ptr : r->landing[o];
        r->at[s].base[k->arity + o] = host_out[o] - (int64_t)(first_out * size);
    }
    if (st != TKH_OK)
        return st;
    tkhi_launch_spec l = { ctx, k, c, in, out, r->scalars, NULL, 0, 0, 0, slot->stream, 0 };
    if (c->flat) { /* the flat kernel; a reduction's launch shape is its sum bound's */
        l.n = (size_t)(c->folds ? c->plan.reduce_count : pc->count);
        tkhi_launch_choose(&l, NULL);
        c->fold_grid = l.grid;
        c->fold_block = l.block;
    } else
        tkhi_launch_choose(&l, (tkh_plan *)&pc->plan);
    r->at[s].first = pc->first;
    r->at[s].count = pc->count;
    r->at[s].fold_grid = c->fold_grid;
    r->at[s].fold_block = c->fold_block;
    r->at[s].nearest = c->nearest;
    r->nearest &= c->nearest;
    const size_t scratch = tkhi_launch_scratch(&l);
    if (scratch > 0)
        st = tkhi_device_buffer(ctx, &slot->scratch, scratch, "a launch's scratch (partials, operand copies)");
    if (st == TKH_OK)
        st = tkhi_launch_run(&l, scratch > 0 ? slot->scratch.ptr : NULL);
    if (st == TKH_OK && pc->first == 0) {
        r->grid = l.grid;
        r->block = l.block;
        if (c->flat)
            tkhi_evidence(r->report, "ran %s with grid %u x block %u", k->symbol, l.grid, l.block);
        else
            tkhi_launch_evidence(&l, "ran", r->report);
    }
    if (st == TKH_OK)
        st = corrupt(r, out[0], first_out, outputs, slot->stream);
    for (unsigned o = 0; o < k->output_count && st == TKH_OK; ++o) {
        int err = tkhi_copy_to_host(ctx, host_out[o], out[o], outputs * c->size[k->arity + o], slot->stream);
        if (err != 0)
            st = tkhi_host_copy_failed(r, err, tkhi_array_name(k, 1, o, name, sizeof name));
    }
    int err = st == TKH_OK ? tkhi_event_record(ctx, slot->done, slot->stream) : 0;
    return err == 0 ? st : tkhi_host_sync_failed(r, err);
}

/* One step on the crew: check and put in place the piece in slot 'post' (if any), then
 * stage piece 'pre' (if any) into slot 'pre_slot'. In one step only where both are split
 * alike (a flat call: whole is the elements of a full piece), so that the staging a thread
 * overwrites is what it checked; else in two. */
typedef struct step {
    host_run *r;
    int post, checks;         /* the slot checked, -1: none; whether the shape's check runs */
    const piece *pre;
    tkhi_slot *pre_slot;
    size_t whole;             /* elements split alike, or 0 */
    size_t sub;               /* kept indices per sub-piece */
    tkhi_oracle_part parts[TKHI_CREW_MAX];
} step;

static void post_part(step *s, unsigned part, unsigned parts)
{
    host_run *r = s->r;
    const tkhi_call *c = r->c;
    const tkh_kernel_info *k = c->kernel;
    const size_t count = (size_t)r->at[s->post].count, per = (size_t)r->outputs_per_kept;
    const int64_t first = r->at[s->post].first;
    /* whole grains (rows) where the check works by rows (a flat call's grain is 1) */
    const size_t grain = s->checks && r->oracle.grain > 1 ? r->oracle.grain : 1;
    const size_t sub = (s->sub + grain - 1) / grain * grain;
    size_t lo, hi;
    if (s->whole)
        tkhi_split(s->whole, count, part, parts, &lo, &hi);
    else
        tkhi_split_aligned(first, count, grain, part, parts, &lo, &hi);
    for (size_t at = lo; at < hi;) { /* each sub-piece is put in place while in cache */
        size_t to = hi - at < sub ? hi : at + sub;
        if (to < hi) /* back to a grain's end: past 'at', as sub is a multiple of grain */
            to -= (size_t)((first + (int64_t)to) % (int64_t)grain);
        if (s->checks)
            tkhi_check_range(&r->oracle, c, r->at[s->post].base, (const int64_t(*)[TKH_MAX_DIMS])r->dev.stride,
                r->scalars, first + (int64_t)at, (int64_t)(to - at), &s->parts[part]);
        for (unsigned o = 0; o < k->output_count && !r->landed; ++o) {
            const unsigned a = k->arity + o;
            const int64_t from = (first + (int64_t)at) * (int64_t)per;
            tkhi_tensor_scatter(c, o, r->at[s->post].base[a] + from * (int64_t)c->size[a], from,
                (int64_t)((to - at) * per));
        }
        at = to;
    }
}

static void pre_part(step *s, unsigned part, unsigned parts)
{
    const tkhi_call *c = s->r->c;
    for (unsigned a = 0; a < c->kernel->arity; ++a) { /* ordinary stores: see TKHI_PIECE_BYTES */
        const size_t size = c->size[a], count = s->pre->bytes[a] / size;
        if (count == 0) /* not staged: whole, not given, or no elements */
            continue;
        size_t lo, hi;
        tkhi_split(s->whole ? s->whole : count, count, part, parts, &lo, &hi);
        memcpy((unsigned char *)s->pre_slot->pinned_in[a].ptr + lo * size,
            c->base[a] + (s->pre->from[a] + (int64_t)lo) * (int64_t)size, (hi - lo) * size);
    }
}

static void step_part(void *arg, unsigned part, unsigned parts)
{
    step *s = arg;
    if (s->post >= 0) {
        tkhi_oracle_part_start(&s->parts[part]);
        post_part(s, part, parts);
    }
    if (s->pre != NULL)
        pre_part(s, part, parts);
}

/* The check of a flat reduction: its one output against the whole input, folded on the
 * crew (or while the input was staged). Returns 1 when it differs. */
static int check_flat_reduction(host_run *r)
{
    const tkhi_call *c = r->c;
    tkhi_arrays checked = { .in = { c->base[0] } };
    for (unsigned o = 0; o < c->kernel->output_count; ++o)
        checked.out[o] = r->landing[o];
    const size_t n = tkhi_flat_count(c);
    if (r->folds != NULL)
        return tkhi_oracle_folded(&r->oracle, r->folds, r->crew ? r->crew->size : 1, &checked, r->scalars, n,
            c->fold_grid, c->fold_block);
    return tkhi_oracle_reduction(&r->oracle, &checked, r->scalars, n, c->fold_grid, c->fold_block);
}

/* The first evidence line: how the call goes. */
static void pieces_evidence(const host_run *r, int64_t pieces)
{
    const tkh_context *ctx = r->ctx;
    if (r->dim < 0) {
        tkhi_evidence(r->report, "in one piece on device %d (%s): the inputs copied in whole, the outputs back",
            ctx->device.selected, ctx->device.arch);
        return;
    }
    char cut[64];
    if (r->c->flat)
        snprintf(cut, sizeof cut, "elements");
    else
        snprintf(cut, sizeof cut, "rows of plan dimension %d", r->dim);
    tkhi_evidence(r->report, "staging through pinned memory in %" PRId64 " pieces of %" PRId64 " %s (about %zu "
        "bytes of each array a piece), %u host threads, on device %d (%s)", pieces, r->step, cut, r->chunk_bytes,
        r->crew ? r->crew->size : 1u, ctx->device.selected, ctx->device.arch);
    char name[80];
    for (unsigned a = 0; a < r->c->kernel->arity; ++a)
        if (r->whole[a] && r->whole_dev[a] != NULL)
            tkhi_evidence(r->report, "%s went to the device whole (a piece barely shrinks its span)",
                tkhi_array_name(r->c->kernel, 0, a, name, sizeof name));
}

/* The oracle's results of a step's check, into r->oracle; *mismatch when one differs. */
static tkh_status after_post(host_run *r, const step *job, unsigned parts, int *mismatch)
{
    for (unsigned p = 0; p < parts; ++p)
        if (job->parts[p].failed != TKH_OK)
            return tkhi_fail(job->parts[p].failed, "%s: allocating the oracle's buffers failed", r->c->fn);
    if (job->checks)
        *mismatch = tkhi_oracle_merge(&r->oracle, job->parts, parts);
    else if (r->oracle.policy.mode != TKH_ORACLE_OFF)
        *mismatch = check_flat_reduction(r);
    return TKH_OK;
}

tkh_status tkhi_host_pipeline(host_run *r)
{
    tkh_context *ctx = r->ctx;
    tkhi_call *c = r->c;
    const tkh_kernel_info *k = c->kernel;
    const int64_t pieces = r->dim < 0 ? 1 : (r->rows + r->step - 1) / r->step;
    const unsigned parts = r->crew ? r->crew->size : 1;
    size_t widest = 1;
    for (unsigned a = 0; a < c->arrays; ++a)
        widest = c->size[a] > widest ? c->size[a] : widest;
    const size_t per_kept = widest * (size_t)(c->plan.reduce_count > 1 ? c->plan.reduce_count : 1)
        * (size_t)r->outputs_per_kept;
    r->staged |= r->dim >= 0;
    pieces_evidence(r, pieces);
    tkh_status st = TKH_OK;
    int mismatch = 0;
    piece pcs[TKHI_SLOTS];
    step job;
    for (int64_t s = 0; s < pieces + TKHI_SLOTS && st == TKH_OK && !mismatch; ++s) {
        const int slot = (int)(s % TKHI_SLOTS);
        piece *pc = s < pieces ? &pcs[slot] : NULL;
        job = (step){ .r = r, .post = s >= TKHI_SLOTS ? slot : -1, .checks = !(c->flat && c->folds),
            .whole = c->flat ? (size_t)(r->step * r->kept_per_row) : 0,
            .sub = TKHI_PIECE_BYTES / per_kept > 0 ? TKHI_PIECE_BYTES / per_kept : 1,
            .pre_slot = &ctx->slots[slot] };
        if (s == TKHI_SLOTS) { /* the projected check's block sums, while the first pieces run */
            const double start = tkhi_now_seconds();
            st = tkhi_check_begin(&r->oracle, c, c->base, (const int64_t(*)[TKH_MAX_DIMS])r->dev.stride);
            r->crew_seconds += tkhi_now_seconds() - start;
            if (st != TKH_OK)
                break;
        }
        if (job.post >= 0) {
            int err = tkhi_host_wait(r, ctx->slots[slot].done);
            if (err != 0) {
                st = tkhi_host_sync_failed(r, err);
                break;
            }
            c->fold_grid = r->at[slot].fold_grid; /* the launch the piece's sum bound assumes */
            c->fold_block = r->at[slot].fold_block;
            c->nearest = r->at[slot].nearest;
        }
        if (job.post >= 0 && !job.whole) { /* not split alike: put in place first */
            tkhi_host_step(r, step_part, &job);
            st = after_post(r, &job, parts, &mismatch);
            job.post = -1;
        }
        if (pc != NULL) {
            piece_of(r, s, pc);
            for (unsigned a = 0; a < k->arity && st == TKH_OK; ++a)
                if (pc->bytes[a] > 0) {
                    job.pre = pc;
                    st = tkhi_pinned_buffer(ctx, &ctx->slots[slot].pinned_in[a], pc->bytes[a], "staging an input");
                }
        }
        if (st == TKH_OK && !mismatch && (job.post >= 0 || job.pre != NULL))
            tkhi_host_step(r, step_part, &job);
        if (st == TKH_OK && job.post >= 0)
            st = after_post(r, &job, parts, &mismatch);
        if (pc != NULL && !mismatch && st == TKH_OK)
            st = enqueue(r, slot, pc);
    }
    if (st == TKH_OK && !mismatch && r->dim >= 0)
        tkhi_evidence(r->report, "ran %s on each piece (first: grid %u x block %u), checked each piece's outputs "
            "and put them in place", k->symbol, r->grid, r->block);
    if (st == TKH_OK && r->staged)
        tkhi_evidence(r->report, "host threads: %.6f s %s, %.6f s waiting for the device (the larger share bounds "
            "the run)", r->crew_seconds, r->folds ? "staging and folding" : r->oracle.policy.mode == TKH_ORACLE_OFF
            ? "staging" : "staging and checking", r->wait_seconds);
    return st;
}
