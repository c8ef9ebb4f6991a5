#ifndef TOKITAI_HIP_TOOL_BENCH_H
#define TOKITAI_HIP_TOOL_BENCH_H

#include "tokitai_hip/tokitai_hip.h"

/* Measures one kernel at n elements and prints one JSON object (preceded by ",\n" unless
 * first). Returns 0 on success, 1 after printing why not to stderr. */
int tkh_bench_case(tkh_context *ctx, const tkh_kernel_info *k, size_t n, int reps, int first);

#endif
