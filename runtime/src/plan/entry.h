/* What the device path (launch.c) and the host path (run.c, oracle.c) share. */
#ifndef TOKITAI_HIP_ENTRY_H
#define TOKITAI_HIP_ENTRY_H

#include "internal.h"

/* The arrays of one call, as pointers that can be moved to an element (tkhi_arrays_at). */
typedef struct tkhi_arrays {
    const void *in[TKH_MAX_INPUTS];
    void *out[TKH_MAX_OUTPUTS];
} tkhi_arrays;

/* Byte sizes of one call's arrays. */
typedef struct tkhi_sizes {
    size_t in[TKH_MAX_INPUTS];   /* bytes of each input */
    size_t out[TKH_MAX_OUTPUTS]; /* bytes of each output */
    size_t widest;               /* bytes of the widest element of any array */
} tkhi_sizes;

/* The grid's most blocks: x 256 threads stays below HIP's 2^32 work-items. */
#define TKHI_MAX_GRID ((1u << 24) - 1)

/* The head of every entry point's checks: ctx, kernel and args not NULL, and a kernel
 * within this runtime's limits of arrays and scalars.
 * Fails with: TKH_ERR_NULL_POINTER, TKH_ERR_ARITY. */
TKH_HIDDEN tkh_status tkhi_check_call(const char *fn, const void *ctx, const tkh_kernel_info *kernel,
    const void *args);

/* The scalars of a call: the list, and each one, not NULL. Fails with: TKH_ERR_NULL_POINTER. */
TKH_HIDDEN tkh_status tkhi_check_scalars(const char *fn, const tkh_kernel_info *k, const void *const *scalars);

/* Checks shared by both paths, ending with admission; on success *arrays holds the
 * arrays and *bytes their sizes. */
TKH_HIDDEN tkh_status tkhi_check_args(const char *fn, tkh_context *ctx,
    const tkh_kernel_info *kernel, const tkh_args *args, size_t n, tkhi_arrays *arrays,
    tkhi_sizes *bytes);

/* 'base' with every array moved to element 'index'. */
TKH_HIDDEN void tkhi_arrays_at(const tkh_kernel_info *kernel, const tkhi_arrays *base, size_t index,
    tkhi_arrays *at);

/* The args of a one-output kernel without scalars (tkh_kernel_run, tkh_kernel_launch);
 * TKH_ERR_ARITY for any other kernel. */
TKH_HIDDEN tkh_status tkhi_single_output(const char *fn, const tkh_kernel_info *kernel,
    const void *const *inputs, unsigned input_count, void *const *out, tkh_args *args);

/* The grid and block the kernel runs with over n elements. */
TKH_HIDDEN void tkhi_launch_shape(const tkh_context *ctx, const tkh_kernel_info *kernel,
    size_t n, unsigned *grid, unsigned *block);

/* Enqueues the kernel through the platform layer; a failure is TKH_ERR_LAUNCH. */
TKH_HIDDEN tkh_status tkhi_enqueue(tkh_context *ctx, const tkh_kernel_info *kernel,
    const tkhi_arrays *arrays, const void *const *scalars, size_t n, unsigned grid,
    unsigned block, void *scratch, void *stream);

/* Runs launch(arg, scratch) with 'bytes' of device partials for work on 'stream': the
 * context's buffer for that stream (launched under the context's lock), or, when every
 * buffer belongs to another stream, its own, waited for ('symbol' names the kernel in
 * that message) and freed. Fails as 'launch' does, and with: TKH_ERR_DEVICE_ALLOC,
 * TKH_ERR_SYNC. */
typedef tkh_status (*tkhi_partials_user)(void *arg, void *scratch);
TKH_HIDDEN tkh_status tkhi_with_partials(tkh_context *ctx, void *stream, size_t bytes, const char *symbol,
    tkhi_partials_user launch, void *arg);

/* The name of input or output i in messages: "input 0 (lhs)", "output 1 (r)". */
TKH_HIDDEN const char *tkhi_array_name(const tkh_kernel_info *kernel, int output, unsigned i,
    char *buf, size_t size);

/* Appends a line to the report's evidence (dropped beyond TKH_REPORT_MAX_EVIDENCE). */
TKH_HIDDEN void tkhi_evidence(tkh_report *r, const char *fmt, ...) TKHI_PRINTF(2, 3);

/* The ulp rule's line of evidence: the largest error, at output 'where', against the bound
 * (and the absolute floor, where the kernel has one). */
TKH_HIDDEN void tkhi_ulp_evidence(tkh_report *r, const tkh_kernel_info *k, double worst, const char *where);

/* A report's start (zeroed, the kernel, n, the device) and end (status, time, message). */
TKH_HIDDEN void tkhi_report_begin(tkh_report *r, const tkh_context *ctx, const tkh_kernel_info *kernel,
    size_t n);
TKH_HIDDEN tkh_status tkhi_report_end(tkh_report *r, tkh_status st, double start);

/* "alpha = 2, beta = -0.5": the scalars' values, for the report. */
TKH_HIDDEN void tkhi_describe_scalars(const tkh_kernel_info *k, const void *const *scalars, char *buf,
    size_t size);

/* CLOCK_MONOTONIC, in seconds. */
TKH_HIDDEN double tkhi_now_seconds(void);

#endif
