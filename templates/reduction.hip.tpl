/* $(do_not_edit) */
/* $(k.op.name) over $(k.type.name): a deterministic two-level reduction for a given n
 * and grid. Each thread maps and folds a grid-stride slice in order (16 bytes per load
 * when the input is 16-byte aligned, then a scalar tail), each block folds its threads in
 * a shared-memory tree into one partial (in the accumulator type), and one final block
 * folds the partials the same way, applies the post step and stores the result. Over a
 * plan (tensors, chosen axes), the axis kernel folds each output's elements in one block:
 * its threads along them (rows), or 32 outputs side by side and the block's 32 rows of
 * threads splitting their elements (columns, 1024 threads). When there are too few
 * outputs to fill the device, the plan splits each output's elements over the grid's y
 * (at most TKH_PLAN_MAX_SPLIT blocks): each block writes a partial and a finish kernel
 * folds them in a fixed pairwise order. */
#include "tokitai_hip/codegen/hip_platform.h"
#include "tokitai_hip/codegen/plan_walk.h"
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

@ local arrays = 1 + #k.outputs
@ local out_params = k.index and (S .. " *value, int64_t *index") or (k.out_type.c .. " *out")
@ local function write(acc, shift)
@   shift = shift or ""
@   if k.index then
            value[at[1]$(shift)] = $(store(k.type, acc .. ".value"));
            index[at[2]$(shift)] = $(acc).index;
@   else
            out[at[1]$(shift)] = $(store(k.out_type, k.post_fn .. "(" .. acc .. ", (" .. A .. ")m)"));
@   end
@ end
@ -- A block of a split plan writes its partial, the finish kernel the outputs.
@ local function finish(acc, o, shift)
            if (gridDim.y > 1)
                partials[(size_t)blockIdx.y * outputs + $(o)] = $(acc);
            else {
@ write(acc, shift)
            }
@ end
template <bool Wide>
__global__ void __launch_bounds__(TKH_PLAN_COLUMN_WIDTH * TKH_PLAN_COLUMN_ROWS) $(k.symbol)_axes(const $(S) *x, $(out_params), $(A) *partials, const tkh_plan p, int vector)
{
    typedef typename tkh_plan_index<Wide>::U U;
    typedef typename tkh_plan_index<Wide>::O O;
    const U outputs = (U)p.count, m = (U)p.reduce_count;
    /* This block's share of each output's elements: [lo, hi). */
    const U lo = (U)blockIdx.y * (U)p.chunk, hi = m - lo < (U)p.chunk ? m : lo + (U)p.chunk;
    if (p.mode == TKH_PLAN_ROWS) {
        for (U o = blockIdx.x; o < outputs; o += gridDim.x) {
            O at[$(arrays)] = { 0 };
            tkh_plan_offsets<Wide, $(arrays)>(p, p.reduced, p.ndim, o, at);
            $(A) acc = $(k.identity_fn)();
            if (p.reduced == 1) { /* one reduced dimension: no division */
                const O s0 = (O)p.stride[0][0];
                const $(S) *row = x + at[0];
                const U vectors = s0 == 1 && ((uintptr_t)(row + lo) & 15) == 0 ? (hi - lo) / $(V) : 0;
                const $(k.id)_vec *run = (const $(k.id)_vec *)(row + lo);
                for (U v = threadIdx.x; v < vectors; v += TKH_REDUCE_BLOCK) {
                    const $(k.id)_vec w = run[v];
#pragma unroll
                    for (int j = 0; j < $(V); ++j)
                        acc = $(fold_element(k, "acc", load(k.type, "w.lane[j]"), "lo + v * " .. V .. " + j"));
                }
                for (U r = lo + vectors * $(V) + threadIdx.x; r < hi; r += TKH_REDUCE_BLOCK)
                    acc = $(fold_element(k, "acc", load(k.type, "row[(O)r * s0]"), "r"));
            } else {
                for (U r = lo + threadIdx.x; r < hi; r += TKH_REDUCE_BLOCK) {
                    O off[1] = { at[0] };
                    tkh_plan_offsets<Wide, 1>(p, 0, p.reduced, r, off);
                    acc = $(fold_element(k, "acc", load(k.type, "x[off[0]]"), "r"));
                }
            }
            acc = $(k.symbol)_block_fold(acc);
            if (threadIdx.x == 0) {
@ finish("acc", "o")
            }
            __syncthreads(); /* the tree is reused */
        }
        return;
    }
    __shared__ $(A) column[TKH_PLAN_COLUMN_WIDTH * TKH_PLAN_COLUMN_ROWS];
    const unsigned lane = threadIdx.x % TKH_PLAN_COLUMN_WIDTH, row = threadIdx.x / TKH_PLAN_COLUMN_WIDTH;
    const unsigned rows = TKH_PLAN_COLUMN_ROWS;
    if (vector) { /* each lane $(V) outputs side by side, read as one vector per row */
        for (U first = (U)blockIdx.x * TKH_PLAN_COLUMN_WIDTH * $(V); first < outputs;
             first += (U)gridDim.x * TKH_PLAN_COLUMN_WIDTH * $(V)) {
            const U o = first + lane * $(V);
            O at[$(arrays)] = { 0 };
            $(A) acc[$(V)];
#pragma unroll
            for (int j = 0; j < $(V); ++j)
                acc[j] = $(k.identity_fn)();
            if (o < outputs) {
                tkh_plan_offsets<Wide, $(arrays)>(p, p.reduced, p.ndim, o, at);
                const O s0 = (O)p.stride[0][0];
#pragma unroll 4
                for (U r = lo + row; r < hi; r += rows) {
                    const $(k.id)_vec w = *(const $(k.id)_vec *)(x + at[0] + (O)r * s0);
#pragma unroll
                    for (int j = 0; j < $(V); ++j)
                        acc[j] = $(fold_element(k, "acc[j]", load(k.type, "w.lane[j]"), "r"));
                }
            }
            for (int j = 0; j < $(V); ++j) { /* the rows' tree, one output of the lane at a time */
                column[threadIdx.x] = acc[j];
                __syncthreads();
                for (unsigned width = rows / 2; width > 0; width >>= 1) {
                    if (row < width)
                        column[threadIdx.x] = $(k.oracle)(column[threadIdx.x], column[threadIdx.x + width * TKH_PLAN_COLUMN_WIDTH]);
                    __syncthreads();
                }
                if (row == 0 && o < outputs) {
@ finish("column[lane]", "o + j", " + j")
                }
                __syncthreads();
            }
        }
        return;
    }
    for (U first = (U)blockIdx.x * TKH_PLAN_COLUMN_WIDTH; first < outputs; first += (U)gridDim.x * TKH_PLAN_COLUMN_WIDTH) {
        const U o = first + lane;
        O at[$(arrays)] = { 0 };
        $(A) acc = $(k.identity_fn)();
        if (o < outputs) {
            tkh_plan_offsets<Wide, $(arrays)>(p, p.reduced, p.ndim, o, at);
            if (p.reduced == 1) {
                const O s0 = (O)p.stride[0][0];
#pragma unroll 4
                for (U r = lo + row; r < hi; r += rows)
                    acc = $(fold_element(k, "acc", load(k.type, "x[at[0] + (O)r * s0]"), "r"));
            } else {
                for (U r = lo + row; r < hi; r += rows) {
                    O off[1] = { at[0] };
                    tkh_plan_offsets<Wide, 1>(p, 0, p.reduced, r, off);
                    acc = $(fold_element(k, "acc", load(k.type, "x[off[0]]"), "r"));
                }
            }
        }
        column[threadIdx.x] = acc;
        __syncthreads();
        for (unsigned width = rows / 2; width > 0; width >>= 1) {
            if (row < width)
                column[threadIdx.x] = $(k.oracle)(column[threadIdx.x], column[threadIdx.x + width * TKH_PLAN_COLUMN_WIDTH]);
            __syncthreads();
        }
        if (row == 0 && o < outputs) {
@ finish("column[lane]", "o")
        }
        __syncthreads();
    }
}

/* A split plan's outputs: each thread folds one output's partials in a pairwise tree, in
 * the order of their elements. */
template <bool Wide>
__global__ void $(k.symbol)_axes_finish(const $(A) *partials, $(out_params), const tkh_plan p)
{
    typedef typename tkh_plan_index<Wide>::U U;
    typedef typename tkh_plan_index<Wide>::O O;
    const U outputs = (U)p.count, m = (U)p.reduce_count;
    for (U o = (U)blockIdx.x * blockDim.x + threadIdx.x; o < outputs; o += (U)gridDim.x * blockDim.x) {
        $(A) part[TKH_PLAN_MAX_SPLIT];
        for (int y = 0; y < p.split; ++y)
            part[y] = partials[(size_t)y * outputs + o];
        for (int width = 1; width < p.split; width *= 2)
            for (int y = 0; y + width < p.split; y += 2 * width)
                part[y] = $(k.oracle)(part[y], part[y + width]);
        O at[$(arrays)] = { 0 };
        tkh_plan_offsets<Wide, $(arrays)>(p, p.reduced, p.ndim, o, at);
@ write("part[0]")
    }
}

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

extern "C" TKH_HIDDEN int $(k.launch)_plan(const void *const *inputs, void *const *outputs,
    const void *const *scalars, const tkh_plan *plan, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars;
    if (block != (plan->mode == TKH_PLAN_ROWS ? TKH_REDUCE_BLOCK : TKH_PLAN_COLUMN_WIDTH * TKH_PLAN_COLUMN_ROWS)
        || plan->split < 1 || plan->split > TKH_PLAN_MAX_SPLIT || (plan->split > 1 && scratch == NULL))
        return (int)hipErrorInvalidValue;
@ local outs = k.index and ("(" .. S .. " *)outputs[0], (int64_t *)outputs[1]") or ("(" .. k.out_type.c .. " *)outputs[0]")
@ local args = "(const " .. S .. " *)inputs[0], " .. outs .. ", (" .. A .. " *)scratch, *plan, vector"
@ local finish_args = "(const " .. A .. " *)scratch, " .. outs .. ", *plan"
    const int vector = tkh_plan_column_vector(plan, $(arrays), inputs[0], $(V));
    if (vector) {
        const int64_t blocks = (plan->count + TKH_PLAN_COLUMN_WIDTH * $(V) - 1) / (TKH_PLAN_COLUMN_WIDTH * $(V));
        grid = (unsigned)(blocks < (int64_t)grid ? blocks : (int64_t)grid);
    }
    const dim3 blocks(grid, (unsigned)plan->split);
    if (plan->wide)
        hipLaunchKernelGGL($(k.symbol)_axes<true>, blocks, dim3(block), 0, (hipStream_t)stream, $(args));
    else
        hipLaunchKernelGGL($(k.symbol)_axes<false>, blocks, dim3(block), 0, (hipStream_t)stream, $(args));
    hipError_t err = hipGetLastError();
    if (err != hipSuccess || plan->split == 1)
        return (int)err;
    const int64_t finish = (plan->count + TKH_REDUCE_BLOCK - 1) / TKH_REDUCE_BLOCK;
    const unsigned finish_grid = (unsigned)(finish < 65535 ? finish : 65535);
    if (plan->wide)
        hipLaunchKernelGGL($(k.symbol)_axes_finish<true>, dim3(finish_grid), dim3(TKH_REDUCE_BLOCK), 0, (hipStream_t)stream, $(finish_args));
    else
        hipLaunchKernelGGL($(k.symbol)_axes_finish<false>, dim3(finish_grid), dim3(TKH_REDUCE_BLOCK), 0, (hipStream_t)stream, $(finish_args));
    return (int)hipGetLastError();
}
