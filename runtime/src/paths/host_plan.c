/* The host path of a strided plan: spans in, the kernel over the plan, dense results
 * out, the oracle walking the plan, results scattered into the caller's tensors. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paths.h"

/* The host path's pieces: runs of rows of the plan's outermost dimension (a kept one, for
 * reductions), so that each array that steps along it moves about the context's chunk
 * size at most per piece. Inputs that a piece barely shrinks (a broadcast along it, a
 * transposed view) go to the device once, whole. */
typedef struct pieces {
    int dim;                       /* the dimension cut, or -1: one piece */
    int64_t rows;                  /* of it per piece */
    int whole[TKH_MAX_INPUTS];
} pieces;

/* Array a's offsets over plan p, from its element at the plan's origin. */
static void plan_span(const tkh_plan *p, unsigned a, int64_t *lo, int64_t *hi)
{
    *lo = *hi = 0;
    for (int d = 0; d < p->ndim; ++d) {
        const int64_t reach = (p->size[d] - 1) * p->stride[a][d];
        *(reach < 0 ? lo : hi) += reach;
    }
}

static pieces plan_pieces(const tkhi_call *c, const tkh_plan *dev, size_t chunk_bytes)
{
    const tkh_kernel_info *k = c->kernel;
    const int d = dev->ndim - 1;
    pieces ps = { -1, dev->size[d], { 0 } };
    if (c->folds && d < dev->reduced)
        return ps;
    int64_t widest = 1; /* bytes per row of the array that moves the most */
    for (unsigned a = 0; a < c->arrays; ++a) {
        const int64_t step = dev->stride[a][d] < 0 ? -dev->stride[a][d] : dev->stride[a][d];
        widest = step * (int64_t)c->size[a] > widest ? step * (int64_t)c->size[a] : widest;
    }
    const int64_t rows = (int64_t)chunk_bytes / widest;
    if (rows >= dev->size[d])
        return ps;
    ps.dim = d;
    ps.rows = rows > 0 ? rows : 1;
    for (unsigned a = 0; a < k->arity; ++a) {
        const int64_t step = dev->stride[a][d] < 0 ? -dev->stride[a][d] : dev->stride[a][d];
        ps.whole[a] = step == 0 || 2 * ((ps.rows - 1) * step + (c->hi[a] - c->lo[a] + 1)
            - (dev->size[d] - 1) * step) > c->hi[a] - c->lo[a] + 1;
    }
    return ps;
}

/* The host path of a plan that the flat kernels do not cover, with the lock held: piece
 * by piece on one stream, the inputs' spans in, the kernel, dense outputs back into
 * 'dense'. */
static tkh_status host_device_work(tkhi_call *c, tkh_context *ctx, const void *const *scalars,
    unsigned char *const *dense, const tkh_plan *dev, tkh_report *report)
{
    const tkh_kernel_info *k = c->kernel;
    tkhi_slot *slot = &ctx->slots[0];
    int err = tkhi_set_device(ctx);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_RUNTIME, err, "selecting device %d failed", ctx->device.selected);
    tkh_status st = tkhi_host_streams(ctx);
    const pieces ps = plan_pieces(c, dev, ctx->chunk_bytes);
    const int d = ps.dim >= 0 ? ps.dim : dev->ndim - 1;
    /* Rows of dimension d: pieces of ps.rows, or one piece of all (of none, for a reduced
     * dimension of size 0). */
    const int64_t rows = ps.dim >= 0 ? dev->size[d] : 1, step = ps.dim >= 0 ? ps.rows : 1;
    const int64_t per_row = ps.dim >= 0 ? dev->count / rows : dev->count; /* kept elements a row */
    const int64_t out_per_row = ps.dim >= 0 ? tkhi_plan_outputs(c, dev) / rows : 0; /* and outputs */
    const void *in[TKH_MAX_INPUTS];
    void *out[TKH_MAX_OUTPUTS];
    unsigned fold_grid = UINT_MAX;
    tkhi_launch_spec l = { ctx, k, c, in, out, scalars, NULL, 0, 0, 0, slot->stream };
    run hook = { .ctx = ctx, .kernel = k, .call = c, .corrupt_index = ctx->corrupt_index,
        .corrupt_bit = ctx->corrupt_bit, .report = report };
    ctx->corrupt_index = SIZE_MAX;
    for (int64_t first = 0; first < rows && st == TKH_OK; first += step) {
        tkh_plan piece = *dev;
        if (ps.dim >= 0) {
            piece.size[d] = dev->size[d] - first < ps.rows ? dev->size[d] - first : ps.rows;
            piece.count = per_row * piece.size[d];
            tkh_plan_magic(piece.wide ? 1 : (uint32_t)piece.size[d], &piece.magic[d], &piece.shift[d]);
        }
        for (unsigned a = 0; a < k->arity && st == TKH_OK; ++a) {
            if (c->absent[a] || c->hi[a] < c->lo[a]) { /* not given (its default), or no elements to read */
                in[a] = NULL;
                continue;
            }
            const int64_t origin = first * dev->stride[a][d];
            int64_t lo = c->lo[a], hi = c->hi[a];
            if (!ps.whole[a])
                plan_span(&piece, a, &lo, &hi);
            else if (first > 0) { /* on the device since the first piece */
                in[a] = (const unsigned char *)slot->dev_in[a].ptr + (origin - lo) * (int64_t)c->size[a];
                continue;
            }
            const size_t bytes = (size_t)(hi - lo + 1) * c->size[a];
            if ((st = tkhi_device_buffer(ctx, &slot->dev_in[a], bytes, "a tensor input's span")) != TKH_OK)
                break;
            const int64_t from = ps.whole[a] ? lo : origin + lo; /* of the caller's tensor */
            in[a] = (const unsigned char *)slot->dev_in[a].ptr + (origin - from) * (int64_t)c->size[a];
            if ((err = tkhi_copy_to_device(ctx, slot->dev_in[a].ptr, c->base[a] + from * (int64_t)c->size[a],
                     bytes, slot->stream)) != 0)
                st = tkhi_fail_runtime(TKH_ERR_COPY, err, "copying %zu bytes of input %u to device %d failed",
                    bytes, a, ctx->device.selected);
        }
        for (unsigned o = 0; o < k->output_count && st == TKH_OK; ++o) {
            st = tkhi_device_buffer(ctx, &slot->dev_out[o], (size_t)tkhi_plan_outputs(c, &piece) * c->size[k->arity + o],
                "a tensor output");
            out[o] = slot->dev_out[o].ptr;
        }
        if (st != TKH_OK)
            break;
        tkhi_launch_choose(&l, &piece);
        fold_grid = c->fold_grid < fold_grid ? c->fold_grid : fold_grid;
        const size_t scratch = tkhi_launch_scratch(&l);
        if (scratch > 0)
            st = tkhi_device_buffer(ctx, &ctx->scratch, scratch, "a reduction's partials");
        if (st == TKH_OK)
            st = tkhi_launch_run(&l, scratch > 0 ? ctx->scratch.ptr : NULL);
        if (st == TKH_OK && first == 0) {
            tkhi_evidence(report, "copied the inputs' spans in");
            tkhi_launch_evidence(&l, "ran", report);
        }
        const size_t first_out = (size_t)(first * out_per_row);
        if (st == TKH_OK)
            st = tkhi_run_corrupt(&hook, out[0], first_out, (size_t)tkhi_plan_outputs(c, &piece), slot->stream);
        for (unsigned o = 0; o < k->output_count && st == TKH_OK; ++o) {
            const size_t size = c->size[k->arity + o];
            if ((err = tkhi_copy_to_host(ctx, dense[o] + first_out * size, out[o], (size_t)tkhi_plan_outputs(c, &piece) * size,
                     slot->stream)) != 0)
                st = tkhi_fail_runtime(TKH_ERR_COPY, err, "copying output %u back from device %d failed", o,
                    ctx->device.selected);
        }
    }
    err = st == TKH_OK ? tkhi_stream_wait(ctx, slot->stream) : 0;
    if (err != 0)
        st = tkhi_fail_runtime(TKH_ERR_SYNC, err, "running %s on device %d failed", k->symbol,
            ctx->device.selected);
    if (st != TKH_OK && slot->stream != NULL)
        tkhi_stream_drain(slot->stream);
    if (fold_grid != UINT_MAX)
        c->fold_grid = fold_grid; /* the sum bound holds for every piece's split */
    if (st == TKH_OK && ps.dim >= 0)
        tkhi_evidence(report, "in %" PRId64 " pieces of %" PRId64 " rows of plan dimension %d (about %zu bytes "
            "of each array a piece)", (rows + step - 1) / step, step, d, ctx->chunk_bytes);
    if (st == TKH_OK)
        tkhi_evidence(report, "copied dense outputs back");
    return st;
}

tkh_status tkhi_host_plan(tkhi_call *c, tkh_context *ctx, const void *const *scalars, tkh_report *report)
{
    const tkh_kernel_info *k = c->kernel;
    /* The device writes dense outputs; the caller's tensors get them after the check, so
     * that an output in place of an input leaves the oracle its inputs. */
    tkh_plan dev = c->plan;
    int64_t dense_stride[TKH_MAX_OUTPUTS][TKH_MAX_DIMS];
    unsigned char *dense[TKH_MAX_OUTPUTS] = { NULL }, *base[TKH_MAX_ARRAYS];
    tkh_status st = TKH_OK;
    for (unsigned o = 0; o < k->output_count; ++o) {
        tkhi_plan_dense_strides(&c->plan, c->drops ? c->plan.reduced : 0, dense_stride[o]);
        memcpy(dev.stride[k->arity + o], dense_stride[o], sizeof dense_stride[o]);
        const size_t bytes = (size_t)tkhi_plan_outputs(c, &c->plan) * c->size[k->arity + o];
        if (st == TKH_OK && (dense[o] = malloc(bytes)) == NULL)
            st = tkhi_fail(TKH_ERR_HOST_ALLOC, "%s: allocating %zu bytes for output %u failed", c->fn, bytes, o);
        base[k->arity + o] = dense[o];
    }
    for (unsigned i = 0; i < k->arity; ++i)
        base[i] = c->base[i];
    pthread_mutex_lock(&ctx->lock);
    const tkh_oracle_policy policy = ctx->oracle;
    if (st == TKH_OK)
        st = host_device_work(c, ctx, scalars, dense, &dev, report);
    pthread_mutex_unlock(&ctx->lock);
    tkhi_oracle o;
    if (st == TKH_OK)
        st = tkhi_check(c, &policy, base, (const int64_t(*)[TKH_MAX_DIMS])dense_stride, scalars, &o);
    if (st == TKH_OK)
        st = tkhi_verdict(c, &o, (size_t)tkhi_plan_outputs(c, &c->plan), report);
    if (st == TKH_OK || st == TKH_ERR_ORACLE_MISMATCH)
        for (unsigned j = 0; j < k->output_count; ++j)
            tkhi_tensor_scatter(c, j, dense[j]);
    for (unsigned j = 0; j < k->output_count; ++j)
        free(dense[j]);
    return st;
}
