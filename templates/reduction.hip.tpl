/* $(do_not_edit) */
/* $(k.op.name) over $(k.type.name): a deterministic two-level reduction for a given n
 * and grid. Each thread maps and folds a grid-stride slice in order (16 bytes per load
 * when the input is 16-byte aligned, then a scalar tail), each block folds its threads in
 * a shared-memory tree into one partial (in the accumulator type), and one final block
 * folds the partials the same way, applies the post step and stores the result. */
#include "tokitai_hip/hip_platform.h"
#include "$(k.oracle_header)"

@ local S, A = k.type.c, k.index and k.pick or k.acc.compute
@ local V = 16 // (k.type.bits // 8)
#define TKH_REDUCE_BLOCK $(reduce_block)

typedef struct __align__(16) { $(S) lane[$(V)]; } $(k.id)_vec;

/* Folds this block's threads' accumulators; thread 0 gets the result. */
__device__ static $(A) $(k.symbol)_block_fold($(A) acc)
{
    __shared__ $(A) tree[TKH_REDUCE_BLOCK];
    tree[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned width = TKH_REDUCE_BLOCK / 2; width > 0; width >>= 1) {
        if (threadIdx.x < width)
            tree[threadIdx.x] = $(k.oracle)(tree[threadIdx.x], tree[threadIdx.x + width]);
        __syncthreads();
    }
    return tree[0];
}

__global__ void $(k.symbol)_partial(const $(S) *x, $(A) *partials, size_t n, int vectors)
{
    const size_t stride = (size_t)gridDim.x * TKH_REDUCE_BLOCK;
    const size_t first = (size_t)blockIdx.x * TKH_REDUCE_BLOCK + threadIdx.x;
    const size_t scalar_from = vectors ? n / $(V) * $(V) : 0;
    $(A) acc = $(k.identity_fn)();
    for (size_t i = first; i < scalar_from / $(V); i += stride) {
        const $(k.id)_vec v = ((const $(k.id)_vec *)x)[i];
#pragma unroll
        for (int j = 0; j < $(V); ++j)
            acc = $(fold_element(k, "acc", load(k.type, "v.lane[j]"), "i * " .. V .. " + j"));
    }
    for (size_t i = scalar_from + first; i < n; i += stride)
        acc = $(fold_element(k, "acc", load(k.type, "x[i]"), "i"));
    acc = $(k.symbol)_block_fold(acc);
    if (threadIdx.x == 0)
        partials[blockIdx.x] = acc;
}

@ if k.index then
__global__ void $(k.symbol)(const $(A) *partials, unsigned count, $(S) *value, int64_t *index, size_t n)
{
    (void)n;
    $(A) acc = $(k.identity_fn)();
    for (unsigned i = threadIdx.x; i < count; i += TKH_REDUCE_BLOCK)
        acc = $(k.oracle)(acc, partials[i]);
    acc = $(k.symbol)_block_fold(acc);
    if (threadIdx.x == 0) {
        value[0] = $(store(k.type, "acc.value"));
        index[0] = acc.index;
    }
}
@ else
__global__ void $(k.symbol)(const $(A) *partials, unsigned count, $(k.out_type.c) *out, size_t n)
{
    $(A) acc = $(k.identity_fn)();
    for (unsigned i = threadIdx.x; i < count; i += TKH_REDUCE_BLOCK)
        acc = $(k.oracle)(acc, partials[i]);
    acc = $(k.symbol)_block_fold(acc);
    if (threadIdx.x == 0)
        out[0] = $(store(k.out_type, k.post_fn .. "(acc, (" .. A .. ")n)"));
}
@ end

/* Enqueues both kernels; 'scratch' holds one partial per block of the grid. */
extern "C" TKH_HIDDEN int $(k.launch)(const void *const *inputs, void *const *outputs,
    const void *const *scalars, size_t n, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars;
    if (block != TKH_REDUCE_BLOCK)
        return (int)hipErrorInvalidValue;
    const int vectors = ((uintptr_t)inputs[0] & 15) == 0;
    hipLaunchKernelGGL($(k.symbol)_partial, dim3(grid), dim3(TKH_REDUCE_BLOCK), 0,
        (hipStream_t)stream, (const $(S) *)inputs[0], ($(A) *)scratch, n, vectors);
    hipError_t err = hipGetLastError();
    if (err != hipSuccess)
        return (int)err;
    hipLaunchKernelGGL($(k.symbol), dim3(1), dim3(TKH_REDUCE_BLOCK), 0, (hipStream_t)stream,
        (const $(A) *)scratch, grid, ($(k.index and S or k.out_type.c) *)outputs[0],$(k.index and " (int64_t *)outputs[1]," or "") n);
    return (int)hipGetLastError();
}
