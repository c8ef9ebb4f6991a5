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
    const void *const *inputs;
    void *out;
    size_t n;
    tkhi_sizes bytes;
    size_t chunk_bytes;     /* of each input per chunk, for this call (call_chunk_bytes) */
    size_t corrupt_index;   /* the test hook, taken from the context for this call */
    unsigned corrupt_bit;
    unsigned grid, block;   /* of the first (or only) launch */
    tkhi_oracle oracle;
    tkhi_crew *crew;        /* NULL for small inputs */
    tkh_fold *folds;        /* reductions: the oracle's state per crew part, or NULL */
    int folded;             /* the folds cover the whole input */
    tkh_report *report;
} run;

/* Elements in the chunk of up to 'chunk' that starts at 'first' of n. */
static inline size_t tkhi_chunk_length(size_t n, size_t first, size_t chunk)
{
    return n - first < chunk ? n - first : chunk;
}

/* Failures of the device work, as statuses with the runtime's error. */
TKH_HIDDEN tkh_status tkhi_run_sync_failed(const run *r, int err);
TKH_HIDDEN tkh_status tkhi_run_copy_failed(const run *r, int err, const char *what);

/* Test hook: flips the planned bit of the planned output element when it lies in
 * [first, first + count) of d_out, once the kernel has run on 'stream'. */
TKH_HIDDEN tkh_status tkhi_run_corrupt(run *r, unsigned char *d_out, size_t first, size_t count, void *stream);

/* The device work of each kind of run, with the context's lock held; 'result' receives
 * the output of a run that is not chunked. */
TKH_HIDDEN tkh_status tkhi_run_whole(run *r, void *result);
TKH_HIDDEN tkh_status tkhi_run_chunked(run *r, size_t chunk);
TKH_HIDDEN tkh_status tkhi_run_reduction(run *r, void *result);

#endif
