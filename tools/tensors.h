/* The tool's host tensors: shapes from the command line (--shape, --transpose, --axes,
 * --keepdims), random contents, the outputs' shape worked out as the library expects it. */
#ifndef TOKITAI_HIP_TOOL_TENSORS_H
#define TOKITAI_HIP_TOOL_TENSORS_H

#include <stdint.h>

#include "tokitai_hip/tokitai_hip.h"

typedef struct tool_tensors {
    DLTensor t[TKH_MAX_ARRAYS];            /* inputs, then outputs */
    int64_t shape[TKH_MAX_ARRAYS][TKH_MAX_DIMS], strides[TKH_MAX_ARRAYS][TKH_MAX_DIMS];
    size_t bytes[TKH_MAX_ARRAYS];          /* each array's buffer: its own elements, no gaps */
    const DLTensor *in[TKH_MAX_INPUTS], *out[TKH_MAX_OUTPUTS];
    int64_t axes[TKH_MAX_DIMS];            /* reductions: as given (none: every axis, passed as NULL) */
    unsigned axis_count, arrays, transposed;
    int keepdims;
} tool_tensors;

/* The tensors tool_tensors_make would make, without their memory (data NULL), so that the
 * command line's values are checked before any device is needed. Returns 0, or 2 after a
 * message on stderr naming the value and what was expected (a shape that does not parse,
 * is too large or does not broadcast; an axis out of range or given twice; a --transpose
 * past the inputs). */
int tool_tensors_shape(tool_tensors *t, const tkh_kernel_info *k, const char *const *shapes,
    unsigned shape_count, unsigned transposed, const char *axes, int keepdims);

/* "[4096, 4096]", as the library writes shapes (its own function is not exported). */
const char *tool_format_dims(char *buf, size_t size, int ndim, const int64_t *dims);

/* Host tensors for kernel k: input i of shapes[i] (one shape: every input), stored
 * transposed (dimensions reversed in memory) where bit i of 'transposed' is set, filled
 * with random bits from *state (bool: 0 or 1); compact outputs of the broadcast shape, or
 * of the input's shape reduced over 'axes' ("0,-1"; NULL: every axis). Returns 0, or 2
 * after a message on stderr (tool_tensors_shape's, no memory). */
int tool_tensors_make(tool_tensors *t, const tkh_kernel_info *k, const char *const *shapes,
    unsigned shape_count, unsigned transposed, const char *axes, int keepdims, uint64_t *state);

void tool_tensors_free(tool_tensors *t);

#endif
