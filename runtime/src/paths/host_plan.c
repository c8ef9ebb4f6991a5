/* Tensor calls: the host path (spans in, the kernel over the plan, dense results out,
 * the oracle walking the plan, results scattered into the caller's tensors), the device
 * path (enqueued; checked under the device oracle policy), and dispatch by dtype. */
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host_path.h"
#include "platform.h"
#include "tensor.h"
#include "workspace.h"

#define TKHI_AXIS_BLOCKS_PER_UNIT 16u /* axis kernels: blocks per compute unit at most */
/* Reductions with fewer blocks than this per compute unit split each output's elements
 * (rows: blocks of 256 threads; columns: of 1024), each block folding at least so many. */
#define TKHI_SPLIT_ROWS_PER_UNIT 8
#define TKHI_SPLIT_COLUMNS_PER_UNIT 2
#define TKHI_SPLIT_ROWS_LEAST 4096
#define TKHI_SPLIT_COLUMNS_LEAST 256

/* The grid and block of the kernel over plan p (the call's, or the host path's copy with
 * dense outputs) whose input 0 lies at 'input'; for reductions also p's split and the
 * launch shape the oracle's sum bound assumes. */
static void plan_shape(const tkh_context *ctx, tkhi_tensor_call *c, tkh_plan *p, const void *input,
    unsigned *grid, unsigned *block)
{
    const tkh_kernel_info *k = c->kernel;
    *block = k->block;
    int64_t blocks;
    if (tkhi_is_normalization(k)) { /* a group of threads a row, or a thread a row (tkh_plan.h) */
        const tkh_norm_shape shape = tkh_norm_shape_of(p->reduce_count, c->size[0]);
        const int rows = p->mode == TKH_PLAN_ROWS;
        *block = rows ? shape.block : 256;
        const int64_t per_block = rows ? shape.block / shape.group : 256;
        blocks = (p->count + per_block - 1) / per_block;
    } else if (!tkhi_is_reduction(k)) {
        blocks = (p->count + k->block - 1) / k->block;
    } else {
        const int rows = p->mode == TKH_PLAN_ROWS;
        const int64_t units = ctx->device.compute_units > 0 ? ctx->device.compute_units : 1;
        const int64_t cap = units * TKHI_AXIS_BLOCKS_PER_UNIT * (rows ? 8 : 1);
        const unsigned v = k->vector_width > 0 ? k->vector_width : 1;
        const int64_t width = rows ? 1 : TKH_PLAN_COLUMN_WIDTH
            * (tkh_plan_column_vector(p, c->arrays, input, v) ? v : 1);
        blocks = (p->count + width - 1) / width;
        blocks = blocks < cap ? blocks : cap;
        const int64_t want = units * (rows ? TKHI_SPLIT_ROWS_PER_UNIT : TKHI_SPLIT_COLUMNS_PER_UNIT);
        int64_t split = blocks > 0 ? want / blocks : 1; /* rounded down: one wave of blocks, no tail */
        const int64_t most = p->reduce_count / (rows ? TKHI_SPLIT_ROWS_LEAST : TKHI_SPLIT_COLUMNS_LEAST);
        split = split < most ? split : most;
        split = split < TKH_PLAN_MAX_SPLIT ? split : TKH_PLAN_MAX_SPLIT;
        split = split > 1 ? split : 1;
        /* chunks of whole 16-element steps, so that each block's vectors stay aligned */
        p->chunk = split == 1 ? p->reduce_count : ((p->reduce_count + split - 1) / split + 15) / 16 * 16;
        p->split = p->chunk > 0 ? (int)((p->reduce_count + p->chunk - 1) / p->chunk) : 1; /* 0: no elements */
        *block = rows ? k->block : TKH_PLAN_COLUMN_WIDTH * TKH_PLAN_COLUMN_ROWS;
        c->fold_grid = (unsigned)p->split;
        c->fold_block = rows ? k->block : TKH_PLAN_COLUMN_ROWS;
    }
    *grid = (unsigned)(blocks < 1 ? 1 : blocks > TKHI_MAX_GRID ? TKHI_MAX_GRID : blocks);
}

/* A kernel over a plan: its launch, for tkhi_with_partials and the host path. */
typedef struct plan_launch {
    tkh_context *ctx;
    const tkhi_tensor_call *c;
    const void *const *in;
    void *const *out;
    const void *const *scalars;
    const tkh_plan *plan;
    unsigned grid, block;
    void *stream;
} plan_launch;

static tkh_status launch_plan(void *arg, void *scratch)
{
    const plan_launch *l = arg;
    const tkh_kernel_info *k = l->c->kernel;
    int err = tkhi_launch_plan(l->ctx, k, l->in, l->out, l->scalars, l->plan, l->grid, l->block, scratch, l->stream);
    if (err != 0)
        return tkhi_fail_runtime(TKH_ERR_LAUNCH, err, "%s: launching %s over a plan of %d dimensions (grid %u x %d, "
            "block %u) failed", l->c->fn, k->symbol, l->plan->ndim, l->grid, l->plan->split, l->block);
    return TKH_OK;
}

/* The launch's lines in the report. */
static void launch_evidence(const plan_launch *l, const char *what, tkh_report *report)
{
    if (report != NULL) {
        report->launch_grid = l->grid;
        report->launch_block = l->block;
    }
    if (l->plan->split > 1)
        tkhi_evidence(report, "%s %s over the plan, grid %u x %d (each output's elements in %d blocks of up "
            "to %" PRId64 ", their partials folded by a second kernel) x block %u", what, l->c->kernel->symbol,
            l->grid, l->plan->split, l->plan->split, l->plan->chunk, l->block);
    else
        tkhi_evidence(report, "%s %s over the plan, grid %u x block %u", what, l->c->kernel->symbol, l->grid,
            l->block);
}

/* The oracle's verdict on a tensor call, as a status and evidence. */
static tkh_status tensor_verdict(const tkhi_tensor_call *c, const tkhi_oracle *o, tkh_report *rep)
{
    const tkh_kernel_info *k = c->kernel;
    const size_t outputs = (size_t)tkhi_plan_outputs(k, &c->plan);
    char at[200], shape[200];
    if (rep != NULL) {
        rep->oracle_mode = o->policy.mode;
        rep->oracle_seed = o->policy.mode == TKH_ORACLE_SAMPLED ? o->policy.seed : 0;
        rep->oracle_checked = o->policy.mode != TKH_ORACLE_OFF;
        rep->oracle_compared = o->compared;
        rep->oracle_matches = rep->oracle_checked && o->bad == SIZE_MAX;
        rep->first_mismatch = o->bad == SIZE_MAX ? outputs : o->bad;
        rep->max_ulp_error = o->note.worst;
        rep->max_ulp_error_index = o->note.worst > 0 ? o->note.worst_index : outputs;
    }
    if (o->policy.mode == TKH_ORACLE_OFF) {
        tkhi_evidence(rep, "oracle policy off: the %zu outputs were not compared with the CPU oracle", outputs);
        return TKH_OK;
    }
    if (o->bad != SIZE_MAX)
        return tkhi_fail(TKH_ERR_ORACLE_MISMATCH, "%s_%s: element %s of %s differs from the CPU oracle: %s",
            k->op, k->type, tkhi_format_index(c, (int64_t)o->bad, at, sizeof at),
            tkhi_drops_axes(k) ? "the reduction" : tkhi_format_dims(shape, sizeof shape, c->ndim, c->shape),
            o->note.detail);
    tkhi_evidence(rep, "compared %s%zu outputs with the CPU oracle walking the plan (%s), %s rule: all agree",
        o->policy.mode == TKH_ORACLE_SAMPLED ? "sampled " : "all ", o->compared,
        tkh_oracle_mode_name(o->policy.mode), k->compare_rule);
    if (strcmp(k->compare_rule, "bound") == 0)
        tkhi_evidence(rep, "largest error %.3g of its bound (element %s)", o->note.worst,
            tkhi_format_index(c, (int64_t)o->note.worst_index, at, sizeof at));
    if (strstr(k->compare_rule, "ulp") != NULL)
        tkhi_ulp_evidence(rep, k, o->note.worst, tkhi_format_index(c, (int64_t)o->note.worst_index, at, sizeof at));
    return TKH_OK;
}

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

static pieces plan_pieces(const tkhi_tensor_call *c, const tkh_plan *dev, size_t chunk_bytes)
{
    const tkh_kernel_info *k = c->kernel;
    const int d = dev->ndim - 1;
    pieces ps = { -1, dev->size[d], { 0 } };
    if (tkhi_folds_axes(k) && d < dev->reduced)
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
static tkh_status host_device_work(tkhi_tensor_call *c, tkh_context *ctx, const void *const *scalars,
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
    const int64_t out_per_row = ps.dim >= 0 ? tkhi_plan_outputs(k, dev) / rows : 0; /* and outputs */
    const void *in[TKH_MAX_INPUTS];
    void *out[TKH_MAX_OUTPUTS];
    unsigned fold_grid = UINT_MAX;
    plan_launch l = { ctx, c, in, out, scalars, NULL, 0, 0, slot->stream };
    run hook = { .ctx = ctx, .kernel = k, .corrupt_index = ctx->corrupt_index,
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
            st = tkhi_device_buffer(ctx, &slot->dev_out[o], (size_t)tkhi_plan_outputs(k, &piece) * c->size[k->arity + o],
                "a tensor output");
            out[o] = slot->dev_out[o].ptr;
        }
        if (st != TKH_OK)
            break;
        l.plan = &piece;
        plan_shape(ctx, c, &piece, in[0], &l.grid, &l.block);
        fold_grid = c->fold_grid < fold_grid ? c->fold_grid : fold_grid;
        if (piece.split > 1)
            st = tkhi_device_buffer(ctx, &ctx->scratch, (size_t)piece.split * (size_t)piece.count * k->scratch_size,
                "a reduction's partials");
        if (st == TKH_OK)
            st = launch_plan(&l, piece.split > 1 ? ctx->scratch.ptr : NULL);
        if (st == TKH_OK && first == 0) {
            tkhi_evidence(report, "copied the inputs' spans in");
            launch_evidence(&l, "ran", report);
        }
        const size_t first_out = (size_t)(first * out_per_row);
        if (st == TKH_OK)
            st = tkhi_run_corrupt(&hook, out[0], first_out, (size_t)tkhi_plan_outputs(k, &piece), slot->stream);
        for (unsigned o = 0; o < k->output_count && st == TKH_OK; ++o) {
            const size_t size = c->size[k->arity + o];
            if ((err = tkhi_copy_to_host(ctx, dense[o] + first_out * size, out[o], (size_t)tkhi_plan_outputs(k, &piece) * size,
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
    if (tkhi_is_reduction(k) && fold_grid != UINT_MAX)
        c->fold_grid = fold_grid; /* the sum bound holds for every piece's split */
    if (st == TKH_OK && ps.dim >= 0)
        tkhi_evidence(report, "in %" PRId64 " pieces of %" PRId64 " rows of plan dimension %d (about %zu bytes "
            "of each array a piece)", (rows + step - 1) / step, step, d, ctx->chunk_bytes);
    if (st == TKH_OK)
        tkhi_evidence(report, "copied dense outputs back");
    return st;
}

static tkh_status host_tensor(tkhi_tensor_call *c, tkh_context *ctx, const void *const *scalars,
    tkh_report *report)
{
    const tkh_kernel_info *k = c->kernel;
    /* The device writes dense outputs; the caller's tensors get them after the check, so
     * that an output in place of an input leaves the oracle its inputs. */
    tkh_plan dev = c->plan;
    int64_t dense_stride[TKH_MAX_OUTPUTS][TKH_MAX_DIMS];
    unsigned char *dense[TKH_MAX_OUTPUTS] = { NULL }, *base[TKH_MAX_ARRAYS];
    tkh_status st = TKH_OK;
    for (unsigned o = 0; o < k->output_count; ++o) {
        tkhi_plan_dense_strides(&c->plan, tkhi_drops_axes(k) ? c->plan.reduced : 0, dense_stride[o]);
        memcpy(dev.stride[k->arity + o], dense_stride[o], sizeof dense_stride[o]);
        const size_t bytes = (size_t)tkhi_plan_outputs(k, &c->plan) * c->size[k->arity + o];
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
        st = tkhi_tensor_check(c, &policy, base, (const int64_t(*)[TKH_MAX_DIMS])dense_stride, scalars, &o);
    if (st == TKH_OK)
        st = tensor_verdict(c, &o, report);
    if (st == TKH_OK || st == TKH_ERR_ORACLE_MISMATCH)
        for (unsigned j = 0; j < k->output_count; ++j)
            tkhi_tensor_scatter(c, j, dense[j]);
    for (unsigned j = 0; j < k->output_count; ++j)
        free(dense[j]);
    return st;
}

/* The device oracle: waits for the stream, copies every array's span back, checks. */
static tkh_status check_on_host(tkhi_tensor_call *c, tkh_context *ctx, const tkh_oracle_policy *policy,
    const void *const *scalars, tkh_stream stream, tkh_report *report)
{
    const tkh_kernel_info *k = c->kernel;
    unsigned char *copy[TKH_MAX_ARRAYS] = { NULL }, *base[TKH_MAX_ARRAYS];
    int err = tkhi_stream_wait(ctx, stream);
    tkh_status st = err == 0 ? TKH_OK : tkhi_fail_runtime(TKH_ERR_SYNC, err, "%s: running %s on device %d failed",
        c->fn, k->symbol, ctx->device.selected);
    for (unsigned a = 0; a < c->arrays && st == TKH_OK; ++a) {
        const size_t bytes = tkhi_span_bytes(c, a);
        base[a] = NULL;
        if (c->absent[a] || bytes == 0) /* not given, or no elements */
            continue;
        if ((copy[a] = malloc(bytes)) == NULL) {
            st = tkhi_fail(TKH_ERR_HOST_ALLOC, "%s: allocating %zu bytes to check tensor %u failed", c->fn, bytes, a);
            break;
        }
        if ((err = tkhi_copy_to_host(ctx, copy[a], c->base[a] + c->lo[a] * (int64_t)c->size[a], bytes, stream)) != 0)
            st = tkhi_fail_runtime(TKH_ERR_COPY, err, "%s: copying tensor %u back from device %d failed", c->fn, a,
                ctx->device.selected);
        else if ((err = tkhi_stream_wait(ctx, stream)) != 0)
            st = tkhi_fail_runtime(TKH_ERR_SYNC, err, "%s: waiting for the copy of tensor %u from device %d failed",
                c->fn, a, ctx->device.selected);
        base[a] = copy[a] - c->lo[a] * (int64_t)c->size[a];
    }
    tkhi_oracle o;
    if (st == TKH_OK)
        st = tkhi_tensor_check(c, policy, base, (const int64_t(*)[TKH_MAX_DIMS])c->plan.stride[k->arity],
            scalars, &o);
    if (st == TKH_OK) {
        tkhi_evidence(report, "device oracle policy %s: waited for the stream, copied the tensors back",
            tkh_oracle_mode_name(policy->mode));
        st = tensor_verdict(c, &o, report);
    }
    for (unsigned a = 0; a < c->arrays; ++a)
        free(copy[a]);
    return st;
}

/* The flat kernels' arguments: each tensor's element at offset 0 (all compact). */
static void flat_args(const tkhi_tensor_call *c, const tkh_tensor_args *args, tkh_args *flat,
    const void **in, void **out)
{
    const tkh_kernel_info *k = c->kernel;
    for (unsigned a = 0; a < c->arrays; ++a)
        if (a < k->arity)
            in[a] = c->base[a];
        else
            out[a - k->arity] = c->base[a];
    *flat = (tkh_args){ in, k->arity, out, k->output_count, args->scalars, k->scalar_count };
}

static tkh_status device_tensor(tkhi_tensor_call *c, tkh_context *ctx, const tkh_tensor_args *args,
    tkh_report *report)
{
    const tkh_kernel_info *k = c->kernel;
    const void *in[TKH_MAX_INPUTS];
    void *out[TKH_MAX_OUTPUTS];
    tkh_args flat;
    flat_args(c, args, &flat, in, out);
    tkh_status st;
    if (c->flat) {
        st = tkh_kernel_enqueue(ctx, k, &flat, (size_t)(tkhi_is_reduction(k) ? c->plan.reduce_count : c->plan.count),
            args->stream);
        if (st == TKH_OK)
            tkhi_evidence(report, "enqueued the flat kernel %s on the stream", k->symbol);
    } else {
        int err = tkhi_set_device(ctx);
        if (err != 0)
            return tkhi_fail_runtime(TKH_ERR_RUNTIME, err, "selecting device %d failed", ctx->device.selected);
        plan_launch l = { ctx, c, in, out, args->scalars, &c->plan, 0, 0, args->stream };
        plan_shape(ctx, c, &c->plan, in[0], &l.grid, &l.block);
        st = c->plan.split == 1 ? launch_plan(&l, NULL) : tkhi_with_partials(ctx, args->stream,
            (size_t)c->plan.split * (size_t)c->plan.count * k->scratch_size, k->symbol, launch_plan, &l);
        if (st == TKH_OK)
            launch_evidence(&l, "enqueued", report);
    }
    pthread_mutex_lock(&ctx->lock);
    const tkh_oracle_policy policy = ctx->device_oracle;
    pthread_mutex_unlock(&ctx->lock);
    if (st != TKH_OK || policy.mode == TKH_ORACLE_OFF) {
        if (st == TKH_OK)
            tkhi_evidence(report, "device oracle policy off: the outputs were not compared with the CPU oracle");
        return st;
    }
    if (c->flat) /* the flat reduction's launch shape */
        tkhi_launch_shape(ctx, k, (size_t)c->plan.reduce_count, &c->fold_grid, &c->fold_block);
    return check_on_host(c, ctx, &policy, args->scalars, args->stream, report);
}

tkh_status tkh_tensor_call(tkh_context *ctx, const tkh_kernel_info *kernel, const tkh_tensor_args *args,
    tkh_report *report)
{
    const double start = tkhi_now_seconds();
    tkhi_clear_error();
    tkhi_tensor_call *c = malloc(sizeof *c);
    if (c == NULL) {
        tkhi_report_begin(report, ctx, kernel, 0);
        return tkhi_report_end(report, tkhi_fail(TKH_ERR_HOST_ALLOC, "tkh_tensor_call: out of memory"), start);
    }
    tkh_status st = tkhi_tensor_prepare("tkh_tensor_call", ctx, kernel, args, c);
    const int flat_host = st == TKH_OK && c->flat && !c->on_device && c->plan.count > 0;
    if (flat_host) { /* tkh_kernel_call fills the report; the plan's lines come after */
        const void *in[TKH_MAX_INPUTS];
        void *out[TKH_MAX_OUTPUTS];
        tkh_args flat;
        flat_args(c, args, &flat, in, out);
        st = tkh_kernel_call(ctx, kernel, &flat, (size_t)(tkhi_is_reduction(kernel) ? c->plan.reduce_count
            : c->plan.count), report);
        tkhi_plan_evidence(c, report);
        if (report != NULL)
            report->len = (size_t)c->plan.count;
        free(c);
        return st;
    }
    tkhi_report_begin(report, ctx, kernel, st == TKH_OK ? (size_t)tkhi_plan_outputs(kernel, &c->plan) : 0);
    if (st == TKH_OK && report != NULL)
        tkhi_describe_scalars(kernel, args->scalars, report->scalars, sizeof report->scalars);
    if (st == TKH_OK)
        tkhi_plan_evidence(c, report);
    if (st == TKH_OK && !ctx->device.available)
        st = tkhi_fail(TKH_ERR_NO_DEVICE, "tkh_tensor_call: the context has no usable device");
    if (st == TKH_OK)
        st = tkh_kernel_admit(kernel, ctx->device.arch);
    if (st == TKH_OK && tkhi_plan_outputs(kernel, &c->plan) == 0) /* also rows of no elements */
        tkhi_evidence(report, "no elements: nothing to run");
    else if (st == TKH_OK)
        st = c->on_device ? device_tensor(c, ctx, args, report) : host_tensor(c, ctx, args->scalars, report);
    free(c);
    return tkhi_report_end(report, st, start);
}

tkh_status tkhi_normalization_flat(const char *fn, tkh_context *ctx, const tkh_kernel_info *k,
    const tkh_args *args, size_t n, int on_device, tkh_stream stream, tkh_report *report)
{
    tkh_status st = tkhi_check_call(fn, ctx, k, args);
    if (st == TKH_OK && (args->input_count != k->arity || args->output_count != 1 || args->scalar_count != k->scalar_count))
        st = tkhi_fail(TKH_ERR_ARITY, "%s: %s_%s (%s) takes %u inputs, 1 output and %u scalars, got %u, %u and %u",
            fn, k->op, k->type, k->signature, k->arity, k->scalar_count, args->input_count, args->output_count,
            args->scalar_count);
    else if (st == TKH_OK && (args->inputs == NULL || args->outputs == NULL))
        st = tkhi_fail(TKH_ERR_NULL_POINTER, "%s: %s is NULL", fn, args->inputs == NULL ? "inputs" : "outputs");
    else if (st == TKH_OK && n == 0)
        st = tkhi_fail(TKH_ERR_EMPTY, "%s: n is 0: expected a row of at least one element", fn);
    else if (st == TKH_OK && n > (size_t)INT64_MAX)
        st = tkhi_fail(TKH_ERR_SIZE_OVERFLOW, "%s: n = %zu does not fit a tensor's shape", fn, n);
    if (st != TKH_OK) {
        tkhi_report_begin(report, ctx, k, n);
        return tkhi_report_end(report, st, tkhi_now_seconds());
    }
    const int64_t shape = (int64_t)n, axis = 0;
    const DLDevice dev = { on_device ? tkhi_device_type(ctx) : kDLCPU, on_device ? ctx->device.selected : 0 };
    DLTensor t[TKH_MAX_ARRAYS];
    const DLTensor *in[TKH_MAX_INPUTS], *out[1];
    for (unsigned a = 0; a <= k->arity; ++a) {
        const tkh_operand *o = a < k->arity ? &k->inputs[a] : &k->outputs[0];
        void *data = a < k->arity ? (void *)args->inputs[a] : args->outputs[0];
        t[a] = (DLTensor){ data, dev, a < k->arity || k->out_count == 0 ? 1 : 0, { 0, 0, 1 },
            (int64_t *)&shape, NULL, 0 };
        tkh_dlpack_dtype(o->type, &t[a].dtype);
        if (a < k->arity)
            in[a] = data == NULL && o->default_value != NULL ? NULL : &t[a]; /* not given: its default */
        else
            out[0] = &t[a];
    }
    const tkh_tensor_args ta = { in, k->arity, out, 1, args->scalars, args->scalar_count, &axis, 1, 0, stream };
    return tkh_tensor_call(ctx, k, &ta, report);
}

/* Tensor t's dtype is our type 'type'. */
static int dtype_is(const DLTensor *t, const char *type)
{
    const char *ours = tkhi_dtype_type(t->dtype);
    return ours != NULL && strcmp(ours, type) == 0;
}

const tkh_kernel_info *tkh_registry_match(const tkh_registry *registry, const char *op,
    const tkh_tensor_args *args)
{
    if (registry == NULL || op == NULL || args == NULL || args->inputs == NULL || args->outputs == NULL)
        return NULL;
    for (size_t i = 0; i < registry->count; ++i) {
        const tkh_kernel_info *k = registry->kernels[i];
        if (strcmp(k->op, op) != 0 || k->arity != args->input_count || k->output_count != args->output_count)
            continue;
        int fits = 1;
        for (unsigned a = 0; a < k->arity && fits; ++a) /* an absent optional input fits any type */
            fits = args->inputs[a] != NULL ? dtype_is(args->inputs[a], k->inputs[a].type)
                : k->inputs[a].default_value != NULL;
        for (unsigned o = 0; o < k->output_count && fits; ++o)
            fits = args->outputs[o] != NULL && dtype_is(args->outputs[o], k->outputs[o].type);
        if (fits)
            return k;
    }
    return NULL;
}

tkh_status tkh_tensor_op(tkh_context *ctx, const tkh_registry *registry, const char *op,
    const tkh_tensor_args *args, tkh_report *report)
{
    tkhi_clear_error();
    if (registry == NULL || op == NULL || args == NULL) {
        tkhi_report_begin(report, ctx, NULL, 0);
        return tkhi_report_end(report, tkhi_fail(TKH_ERR_NULL_POINTER, "tkh_tensor_op: %s is NULL",
            registry == NULL ? "registry" : op == NULL ? "op" : "args"), tkhi_now_seconds());
    }
    const tkh_kernel_info *k = tkh_registry_match(registry, op, args);
    if (k != NULL)
        return tkh_tensor_call(ctx, k, args, report);
    char dtypes[256] = "";
    size_t len = 0;
    for (unsigned a = 0; a < args->input_count + args->output_count && len < sizeof dtypes; ++a) {
        const DLTensor *t = a < args->input_count ? (args->inputs ? args->inputs[a] : NULL)
            : (args->outputs ? args->outputs[a - args->input_count] : NULL);
        char one[64];
        len += (size_t)snprintf(dtypes + len, sizeof dtypes - len, "%s%s", a ? ", " : "",
            t == NULL ? "NULL" : tkhi_dtype_name(t->dtype, one, sizeof one));
    }
    tkhi_report_begin(report, ctx, NULL, 0);
    return tkhi_report_end(report, tkhi_fail(TKH_ERR_NOT_FOUND, "tkh_tensor_op: registry '%s' has no kernel of "
        "op '%s' taking %u input and %u output tensors of dtypes %s", registry->name, op, args->input_count,
        args->output_count, dtypes), tkhi_now_seconds());
}
