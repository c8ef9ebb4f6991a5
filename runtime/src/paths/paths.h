/* The paths layer, its one door: a call, planned (shapes/), run on the device and
 * checked. The entry points (api/) come in through tkhi_flat_call and tkhi_tensor_run; a
 * call then takes the host path (host_run.c for flat calls: pipeline.c for elementwise
 * runs, whole or in chunks, reduce.c for reductions; host_plan.c for strided plans, in
 * pieces) or the device path (device_run.c), and one verdict (verdict.c). */
#ifndef TOKITAI_HIP_PATHS_H
#define TOKITAI_HIP_PATHS_H

#include "shapes/shapes.h"

/* A flat call (tkh_kernel_call, _run, _enqueue, _launch, named 'fn' in messages): n
 * elements of each array, on the host (checked under the context's oracle policy, into
 * 'report') or, with on_device, enqueued on 'stream' and not checked. A normalization's
 * n elements are one row (a column NULL: its default). Fails as those entry points do. */
TKH_HIDDEN tkh_status tkhi_flat_call(const char *fn, tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkh_args *args, size_t n, int on_device, tkh_stream stream, tkh_report *report, double start);

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

/* The host path of a strided plan: piece by piece through the device into dense outputs,
 * then the oracle walking the plan, then the outputs scattered into the caller's tensors. */
TKH_HIDDEN tkh_status tkhi_host_plan(tkhi_call *c, tkh_context *ctx, const void *const *scalars,
    tkh_report *report);

/* The host path of a flat call, from after its checks: the arrays and their sizes. */
TKH_HIDDEN tkh_status tkhi_host_flat(tkh_context *ctx, tkhi_call *c, const tkhi_arrays *arrays,
    const tkhi_sizes *bytes, const void *const *scalars, tkh_report *report);

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

/* One call of the host path. */
typedef struct run {
    tkh_context *ctx;
    const tkh_kernel_info *kernel;
    tkhi_call *call;
    tkhi_arrays arrays;     /* the caller's */
    const void *const *scalars;
    size_t n;
    tkhi_sizes bytes;
    size_t chunk_bytes;     /* of the widest array per chunk, for this call (call_chunk_bytes) */
    size_t corrupt_index;   /* the test hook, taken from the context for this call */
    unsigned corrupt_bit;
    unsigned grid, block;   /* of the first (or only) launch */
    tkhi_oracle oracle;
    tkhi_crew *crew;        /* NULL for small inputs */
    tkh_fold *folds;        /* reductions staged in chunks: the oracle's state per crew
                               part, folded while staging; NULL otherwise, or with the
                               oracle off */
    double crew_seconds;    /* runs staged in chunks: the crew's steps, and the waits for */
    double wait_seconds;    /* the device before them */
    tkh_report *report;
} run;

/* The crew checks, copies and folds a chunk's part in pieces of this many bytes of each
 * buffer, so that the second pass over a piece finds it in cache. Staging is written
 * with ordinary stores, so that a chunk can still be in the last-level cache when the
 * DMA engine and then the check read it; only the copies into the caller's output skip
 * the cache (tkhi_stream_copy). On the H200 builder's host, non-temporal stores into
 * staging took add i32 at 2^28 from 1.20 to 1.61 x the pinned-transfer time. */
#define TKHI_PIECE_BYTES ((size_t)64 * 1024)

/* A staged run's step: 'task' on the crew, or on this thread alone for a run without
 * one; its time goes to r->crew_seconds. */
TKH_HIDDEN void tkhi_run_step(run *r, tkhi_task task, void *arg);

/* Waits for 'event' (a slot's end); the time goes to r->wait_seconds. Returns the
 * runtime's error, or 0. */
TKH_HIDDEN int tkhi_run_wait_event(run *r, void *event);

/* Evidence of a run staged in chunks: where the host's time went ('work': what the crew
 * did with each chunk). */
TKH_HIDDEN void tkhi_run_timing_evidence(const run *r, const char *work);

/* Elements in the chunk of up to 'chunk' that starts at 'first' of n. */
static inline size_t tkhi_chunk_length(size_t n, size_t first, size_t chunk)
{
    return n - first < chunk ? n - first : chunk;
}

/* Failures of the device work, as statuses with the runtime's error. */
TKH_HIDDEN tkh_status tkhi_run_sync_failed(const run *r, int err);
TKH_HIDDEN tkh_status tkhi_run_copy_failed(const run *r, int err, const char *what);

/* Test hook: flips the planned bit of the planned element of output 0 when it lies in
 * [first, first + count) of d_out, once the kernel has run on 'stream'. */
TKH_HIDDEN tkh_status tkhi_run_corrupt(run *r, unsigned char *d_out, size_t first, size_t count, void *stream);

/* The device work of each kind of run, with the context's lock held; 'results' receive
 * the outputs of a run that is not chunked. */
TKH_HIDDEN tkh_status tkhi_run_whole(run *r, void *const *results);
TKH_HIDDEN tkh_status tkhi_run_chunked(run *r, size_t chunk);
TKH_HIDDEN tkh_status tkhi_run_reduction(run *r, void *const *results);

#endif
