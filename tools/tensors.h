/* The tool's host tensors: shapes from the command line (--shape, --transpose, --axes,
 * --keepdims), random contents, the outputs' shape worked out as the library expects it. */
#ifndef TOKITAI_HIP_TOOL_TENSORS_H
#define TOKITAI_HIP_TOOL_TENSORS_H

#include <stdint.h>

#include "tokitai_hip/tokitai_hip.h"

typedef struct tool_tensors {
    DLTensor t[TKH_MAX_ARRAYS];            /* inputs, then outputs */
    int64_t shape[TKH_MAX_ARRAYS][TKH_MAX_DIMS], strides[TKH_MAX_ARRAYS][TKH_MAX_DIMS];
    const DLTensor *in[TKH_MAX_INPUTS], *out[TKH_MAX_OUTPUTS];
    int64_t axes[TKH_MAX_DIMS];
    unsigned axis_count, arrays;
} tool_tensors;

/* Host tensors for kernel k: input i of shapes[i] (one shape: every input), stored
 * transposed (dimensions reversed in memory) where bit i of 'transposed' is set, filled
 * with random bits from *state (bool: 0 or 1); compact outputs of the broadcast shape, or
 * of the input's shape reduced over 'axes' ("0,-1"; NULL: every axis). Returns 0, or 2
 * after a message on stderr (a shape that does not parse or broadcast, no memory). */
int tool_tensors_make(tool_tensors *t, const tkh_kernel_info *k, const char *const *shapes,
    unsigned shape_count, unsigned transposed, const char *axes, int keepdims, uint64_t *state);

void tool_tensors_free(tool_tensors *t);

#endif
