#ifndef TOKITAI_HIP_TOOL_ACCURACY_H
#define TOKITAI_HIP_TOOL_ACCURACY_H

#include <stdint.h>

#include "tokitai_hip/tokitai_hip.h"

/* Measures one kernel under the ulp rule on the device (tools/accuracy.c): every input of
 * a unary f16, bf16 or f32 kernel, else 'samples' inputs drawn from 'seed' after every
 * tuple of edge values. Prints one JSON object (preceded by ",\n" unless first).
 * Returns 0 on success, 1 after printing why not to stderr. */
int tkh_accuracy_case(tkh_context *ctx, const tkh_kernel_info *k, uint64_t samples, uint64_t seed,
    int first);

#endif
