#ifndef TOKITAI_HIP_TOOL_BENCH_H
#define TOKITAI_HIP_TOOL_BENCH_H

#include "tensors.h"
#include "tokitai_hip/tokitai_hip.h"

/* Measures one kernel at n elements and prints one JSON object (preceded by ",\n" unless
 * first). Returns 0 on success, 1 after printing why not to stderr. */
int tkh_bench_case(tkh_context *ctx, const tkh_kernel_info *k, size_t n, int reps, int first);

/* Measures tkh_tensor_call of kernel k over device tensors of t's shapes and layouts
 * (inputs copied from t's host tensors), after one call checked under 'check' (skipped
 * when off), and prints one JSON object as tkh_bench_case does. Returns 0, or 1 after
 * printing why not to stderr. */
int tkh_bench_tensor_case(tkh_context *ctx, const tkh_kernel_info *k, const tool_tensors *t,
    const tkh_oracle_policy *check, int reps, int first);

#endif
