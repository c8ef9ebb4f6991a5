/* The host path's parts (run.c: the entry point and the oracle's verdict; pipeline.c:
 * elementwise runs, whole or in chunks; reduce.c: reductions). */
#ifndef TOKITAI_HIP_HOST_PATH_H
#define TOKITAI_HIP_HOST_PATH_H

#include "crew.h"
#include "entry.h"
#include "oracle.h"

/* One call of the host path. */
typedef struct run {
    tkh_context *ctx;
    const tkh_kernel_info *kernel;
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
