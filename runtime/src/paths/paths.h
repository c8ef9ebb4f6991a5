/* The paths layer, its one door: a call, planned (shapes/), run on the device and
 * checked. The entry points (api/) come in through tkhi_flat_call and tkhi_tensor_run; a
 * call then takes the host path (host_run.c: its whole inputs by upload.c, its pieces by
 * pipeline.c) or the device path (device_run.c), and one verdict (verdict.c). */
#ifndef TOKITAI_HIP_PATHS_H
#define TOKITAI_HIP_PATHS_H

#include "shapes/shapes.h"

/* A flat call (tkh_kernel_call, _run, _enqueue, _launch, named 'fn' in messages): n
 * elements of each array, on the host (checked under the context's oracle policy, into
 * 'report') or, with on_device, enqueued on 'stream' and not checked. A normalization's
 * n elements are one row (a column NULL: its default). Fails as those entry points do. */
TKH_HIDDEN tkh_status tkhi_flat_call(const char *fn, tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_args *args, size_t n, int on_device, tkh_stream stream, tkh_report *report, double start);

/* A matrix product's flat call (tkh_product_call, _enqueue): a m x k, b k x n (n x k where
 * the kernel's b_nk), out m x n, compact and row-major, columns n elements, rows m, addends
 * m x n (NULL: their default), as tensors on the host or the device. Fails as
 * tkh_product_call does. */
TKH_HIDDEN tkh_status tkhi_product_call(const char *fn, tkh_context *ctx, const tkh_kernel_info *k,
    const tkh_args *args, size_t m, size_t n, size_t kk, int on_device, tkh_stream stream, tkh_report *report,
    double start);

/* A tensor call (tkh_tensor_call), named 'fn' in messages. Fails as it does. */
TKH_HIDDEN tkh_status tkhi_tensor_run(const char *fn, tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_tensor_args *args, tkh_report *report, double start);

/* A flat call on the device (tkh_kernel_enqueue, _launch), from after its checks: the flat
 * kernel over n elements of 'arrays', enqueued on 'stream', not checked. */
TKH_HIDDEN tkh_status tkhi_device_flat(tkh_context *ctx, const tkh_kernel_info *kernel, const tkhi_arrays *arrays,
    const void *const *scalars, size_t n, tkh_stream stream);

/* The device path of a tensor call: the call enqueued on 'stream' (the flat kernel where the
 * call is flat, else the plan kernel), then, unless 'policy' is off, waited for and checked
 * on the host. */
TKH_HIDDEN tkh_status tkhi_device_run(tkh_context *ctx, tkhi_call *c, const void *const *scalars,
    tkh_stream stream, const tkh_oracle_policy *policy, tkh_report *report);

/* The host path, for every call on host memory (flat or tensor): the plan run in pieces
 * through the context's slots, each piece's outputs checked and put in place by the host
 * threads while later pieces run. Fails as tkh_kernel_call and tkh_tensor_call do after
 * their checks. */
TKH_HIDDEN tkh_status tkhi_host_run(tkh_context *ctx, tkhi_call *c, const void *const *scalars,
    tkh_report *report);

/* The oracle's verdict on a call, as a status, the report's fields and evidence: 'n' is
 * the count the report states (a flat call's inputs). Flat calls on the host name outputs
 * by their index, others by their multi-index in the call's shape. */
TKH_HIDDEN tkh_status tkhi_verdict(const tkhi_call *c, const tkhi_oracle *o, size_t n, tkh_report *report);

/* Runs launch(arg, scratch) with 'bytes' of device partials for work on 'stream': the
 * context's buffer for that stream (launched under the context's lock), or, when every
 * buffer belongs to another stream, its own, waited for ('symbol' names the kernel in
 * that message) and freed. Fails as 'launch' does, and with: TKH_ERR_DEVICE_ALLOC,
 * TKH_ERR_SYNC. */
typedef tkh_status (*tkhi_partials_user)(void *arg, void *scratch);
TKH_HIDDEN tkh_status tkhi_with_partials(tkh_context *ctx, void *stream, size_t bytes, const char *symbol,
    tkhi_partials_user launch, void *arg);

/* One call of the host path (host_run.c), with the lock held from the first device work.
 * The plan is cut into pieces (runs of rows of its outermost dimension, a kept one, so
 * that each array that steps along it moves about chunk_bytes a piece). An input that a
 * piece barely shrinks (broadcast along the cut, or transposed), and every input of a call
 * of one piece, goes to the device whole before the pieces (upload.c); the others are
 * staged piece by piece through the slots' pinned buffers (pipeline.c). */
typedef struct host_run {
    tkh_context *ctx;
    tkhi_call *c;
    const void *const *scalars;
    tkh_report *report;
    tkh_plan dev;             /* the call's plan with dense outputs: what the device writes,
                                 and the strides the oracle reads (inputs staged or in place) */
    size_t chunk_bytes;       /* of the array that moves the most, per piece */
    int dim;                  /* the dimension cut (the outermost), or -1: one piece */
    int64_t rows, step;       /* of dimension dim; per piece (1 and 1 for one piece) */
    int64_t kept_per_row;     /* kept indices (the oracle's unit) per row of dim */
    int64_t outputs_per_kept; /* output elements per kept index (a normalization's row) */
    int whole[TKH_MAX_INPUTS];
    int in_place;             /* an output is an input (the same elements) */
    unsigned char *landing[TKH_MAX_OUTPUTS]; /* one piece: where the device's outputs land (the
                                 caller's outputs where the call is flat and not in place, else
                                 dense buffers), NULL for pieces staged through the slots */
    int landed;               /* the outputs landed in the caller's tensors: no scatter */
    unsigned char *whole_dev[TKH_MAX_INPUTS]; /* whole inputs on the device, at c->lo[a] */
    struct {                  /* the piece in each slot */
        int64_t first, count; /* of the kept indices */
        unsigned char *base[TKH_MAX_ARRAYS]; /* the oracle's view of it on the host */
        unsigned fold_grid, fold_block;
        int nearest;
    } at[TKHI_SLOTS];
    int nearest;              /* every piece's sums rounded to nearest (tkhi_call.nearest) */
    size_t corrupt_index;     /* the test hook, taken from the context for this call */
    unsigned corrupt_bit;
    unsigned grid, block;     /* of the first (or only) launch */
    tkhi_oracle oracle;
    tkhi_crew *crew;          /* NULL for small calls */
    tkh_fold *folds;          /* a flat reduction's input staged in chunks: the oracle's state
                                 per crew part, folded while staging; NULL otherwise */
    double crew_seconds;      /* the crew's steps, and the waits for the device */
    double wait_seconds;      /* before them */
    int staged;               /* something went through the pinned buffers */
} host_run;

/* The crew checks, copies and folds a piece's part in sub-pieces of this many bytes of
 * each buffer, so that the second pass over one finds it in cache. Staging is written
 * with ordinary stores, so that a piece can still be in the last-level cache when the DMA
 * engine and then the check read it; only the copies into the caller's outputs skip the
 * cache (tkhi_stream_copy). On the H200 builder's host, non-temporal stores into staging
 * took add i32 at 2^28 from 1.20 to 1.61 x the pinned-transfer time. */
#define TKHI_PIECE_BYTES ((size_t)64 * 1024)

/* A step of the host path: 'task' on the crew, or on this thread alone for a run without
 * one; its time goes to r->crew_seconds. */
TKH_HIDDEN void tkhi_host_step(host_run *r, tkhi_task task, void *arg);

/* Waits for 'event' (a slot's end); the time goes to r->wait_seconds. Returns the
 * runtime's error, or 0. */
TKH_HIDDEN int tkhi_host_wait(host_run *r, void *event);

/* Failures of the device work, as statuses with the runtime's error. */
TKH_HIDDEN tkh_status tkhi_host_sync_failed(const host_run *r, int err);
TKH_HIDDEN tkh_status tkhi_host_copy_failed(const host_run *r, int err, const char *what);

/* Cuts the plan into pieces (r->dim, rows, step, kept_per_row, whole, in_place). */
TKH_HIDDEN void tkhi_host_pieces(host_run *r);

/* Puts every whole input on the device (r->whole_dev): straight when it fits a chunk,
 * else staged in chunks through the slots (a flat reduction's input folded into r->folds
 * on the way). Fails with: TKH_ERR_DEVICE_ALLOC, TKH_ERR_HOST_ALLOC, TKH_ERR_COPY,
 * TKH_ERR_SYNC. */
TKH_HIDDEN tkh_status tkhi_host_upload(host_run *r);

/* Runs the pieces: step s stages piece s into its slot and enqueues it, and checks and
 * puts in place piece s - TKHI_SLOTS, whose slot it reuses. Stops at the first difference
 * (r->oracle.bad). Fails with: TKH_ERR_DEVICE_ALLOC, TKH_ERR_HOST_ALLOC, TKH_ERR_COPY,
 * TKH_ERR_LAUNCH, TKH_ERR_SYNC. */
TKH_HIDDEN tkh_status tkhi_host_pipeline(host_run *r);

#endif
