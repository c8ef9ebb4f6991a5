/* The iteration plan of a tensor call: what the strided and axis kernels and the CPU
 * oracle walk. The host works it out from the tensors' shapes and strides (tensor.h);
 * kernels get it by value. Plain C, so that HIP and CUDA kernels include it too. */
#ifndef TOKITAI_HIP_PLAN_H
#define TOKITAI_HIP_PLAN_H

#include <stdint.h>

/* The most arrays and scalars of each kind a kernel takes (the generator enforces them). */
#define TKH_MAX_INPUTS 8
#define TKH_MAX_OUTPUTS 4
#define TKH_MAX_SCALARS 8
/* The most dimensions a tensor of a call may have. */
#define TKH_MAX_DIMS 16
/* Arrays of a call: inputs first, then outputs. */
#define TKH_MAX_ARRAYS (TKH_MAX_INPUTS + TKH_MAX_OUTPUTS)

/* How an axis kernel lays out its threads: one block per output, its threads along the
 * reduced elements (the reduced dimensions include the input's contiguous one), or one
 * thread column per output, consecutive outputs on consecutive threads, the block's rows
 * splitting the reduced elements. */
enum { TKH_PLAN_ROWS = 0, TKH_PLAN_COLUMNS = 1 };
#define TKH_PLAN_COLUMN_WIDTH 32 /* outputs per block of the columns layout */

typedef struct tkh_plan {
    int ndim;                 /* dimensions after merging, [0] the innermost */
    int wide;                 /* 1: some index or offset needs 64 bits; 0: all fit 31 bits */
    int reduced;              /* reductions: dimensions [0, reduced) are reduced, the rest kept */
    int mode;                 /* reductions: TKH_PLAN_ROWS or TKH_PLAN_COLUMNS */
    int64_t count;            /* elementwise: elements; reductions: outputs (kept elements) */
    int64_t reduce_count;     /* reductions: elements folded into each output */
    int64_t size[TKH_MAX_DIMS];
    int64_t stride[TKH_MAX_ARRAYS][TKH_MAX_DIMS]; /* in elements, per array and dimension */
    /* Division by size[d] without a divide, where !wide: q = (umulhi(i, magic) + i) >> shift
     * for i < 2^31 (Granlund and Montgomery's method, as in PyTorch's IntDivider). */
    uint32_t magic[TKH_MAX_DIMS];
    uint32_t shift[TKH_MAX_DIMS];
} tkh_plan;

/* Enqueues a kernel over a plan; returns the runtime's error code (0 on success). The
 * pointers are each array's element at offset 0 (offsets may be negative). */
typedef int (*tkh_launch_plan_fn)(const void *const *inputs, void *const *outputs,
    const void *const *scalars, const tkh_plan *plan, unsigned grid, unsigned block, void *stream);

#endif
