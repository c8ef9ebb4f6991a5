/* What the device path (launch.c) and the host path (run.c, oracle.c) share. */
#ifndef TOKITAI_HIP_ENTRY_H
#define TOKITAI_HIP_ENTRY_H

#include "internal.h"

extern TKH_HIDDEN const char *const tkhi_input_names[TKHI_MAX_INPUTS];

typedef struct tkhi_sizes {
    size_t in;   /* bytes of each input */
    size_t out;  /* bytes of the output */
} tkhi_sizes;

/* Checks shared by both paths, ending with admission; on success *bytes holds the
 * buffer sizes. */
TKH_HIDDEN tkh_status tkhi_check_args(const char *fn, tkh_context *ctx,
    const tkh_kernel_info *kernel, const void *const *inputs, unsigned input_count,
    const void *out, size_t n, tkhi_sizes *bytes);

/* The grid and block the kernel runs with over n elements. */
TKH_HIDDEN void tkhi_launch_shape(const tkh_context *ctx, const tkh_kernel_info *kernel,
    size_t n, unsigned *grid, unsigned *block);

/* Enqueues the kernel through the platform layer; a failure is TKH_ERR_LAUNCH. */
TKH_HIDDEN tkh_status tkhi_enqueue(tkh_context *ctx, const tkh_kernel_info *kernel,
    const void *const *inputs, void *out, size_t n, unsigned grid, unsigned block,
    void *scratch, void *stream);

/* Appends a line to the report's evidence (dropped beyond TKH_REPORT_MAX_EVIDENCE). */
TKH_HIDDEN void tkhi_evidence(tkh_report *r, const char *fmt, ...) TKHI_PRINTF(2, 3);

#endif
