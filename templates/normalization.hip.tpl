/* $(do_not_edit) */
/* $(k.op.name) over $(k.label) along one axis of a plan (tokitai_hip/plan.h: dimension 0
 * is the axis, the rest are kept). Reduction stages in order, each folded over the row,
 * then $(k.map and "the map of each element to the output" or "the post step to the row's one output").
 * Rows layout (the axis is contiguous in the input): a block a row, its threads along the
 * row, each stage's block tree giving every thread the reduced value; a row of at most
 * TKH_NORM_CACHE elements a thread is read from memory once and kept in registers.
 * Columns layout: a thread a row, consecutive rows on consecutive threads, each stage a
 * sequential fold. docs/normalizations.md. */
#include "tokitai_hip/hip_platform.h"
#include "tokitai_hip/plan_walk.h"
#include "$(k.oracle_header)"

@ local S, A, O = k.type.c, k.acc.compute, k.out_type
@ local x = k.inputs[1]
@ local arrays = #k.inputs + 1
@ local out_index = #k.inputs
@ local params, args = {}, {}
@ for i, a in ipairs(k.inputs) do
@   params[#params + 1] = "const " .. a.type.c .. " *p_" .. a.name
@   args[#args + 1] = "(const " .. a.type.c .. " *)inputs[" .. (i - 1) .. "]"
@ end
@ params[#params + 1] = O.c .. " *p_out"
@ args[#args + 1] = "(" .. O.c .. " *)outputs[0]"
@ for _, s in ipairs(k.scalars) do
@   params[#params + 1] = s.type.c .. " p_" .. s.name
@   args[#args + 1] = "*(const " .. s.type.c .. " *)scalars[" .. s.index .. "]"
@ end
@ -- Declares the element at index r of the row: the input and the columns (a column not
@ -- given is its default), in the compute type. The kernels' own names start with tkhn_
@ -- (an op file's names may not: gen/tkh/ops.lua).
@ local function element(indent, r, cached)
@   if cached then
$(indent)const $(A) $(x.name) = $(cached);
@   else
$(indent)const $(A) $(x.name) = ($(A))$(load(x.type, "p_" .. x.name .. "[tkhn_at[0] + (O)(" .. r .. ") * tkhn_s[0]]"));
@   end
@   for i, c in ipairs(k.columns) do
@     local idx = c.index
$(indent)const $(A) $(c.name) = p_$(c.name) ? ($(A))$(load(c.type, "p_" .. c.name .. "[tkhn_at[" .. idx .. "] + (O)(" .. r .. ") * tkhn_s[" .. idx .. "]]")) : ($(A))($(c.default or "0"));
@   end
@ end
@ -- A stage's fold of one element, then the map's store.
@ local function fold(indent, st, i)
$(indent)tkhn_acc$(i) = $(k.symbol)_combine$(i)(tkhn_acc$(i), ($(A))($(st.map)));
@ end
@ local function store_out(indent, r)
$(indent)p_out[tkhn_at[$(out_index)] + (O)($(r)) * tkhn_s[$(out_index)]] = $(store(O, "(" .. O.compute .. ")(" .. k.map .. ")"));
@ end
#define TKH_NORM_CACHE 16

$(macros(k))

@ for i, st in ipairs(k.stages) do
__device__ static inline $(A) $(k.symbol)_combine$(i)($(A) a, $(A) b)
{
    return ($(A))($(st.combine));
}

@ end
/* Folds each thread's accumulator over the block (a power of two of threads); every thread
 * gets the result. */
template <typename F>
__device__ static inline $(A) $(k.symbol)_block_fold($(A) acc, $(A) *tree, F combine)
{
    tree[threadIdx.x] = acc;
    __syncthreads();
    for (unsigned width = blockDim.x / 2; width > 0; width >>= 1) {
        if (threadIdx.x < width)
            tree[threadIdx.x] = combine(tree[threadIdx.x], tree[threadIdx.x + width]);
        __syncthreads();
    }
    acc = tree[0];
    __syncthreads(); /* the tree is reused */
    return acc;
}

@ local function scalars_and_strides()
    const $(A) n = ($(A))tkhn_count;
@   for _, sc in ipairs(k.scalars) do
    const $(sc.type.compute) $(sc.name) = $(load(sc.type, "p_" .. sc.name));
@   end
    O tkhn_s[$(arrays)];
#pragma unroll
    for (int tkhn_a = 0; tkhn_a < $(arrays); ++tkhn_a)
        tkhn_s[tkhn_a] = (O)tkhn_p.stride[tkhn_a][0];
@ end
@ local function post_of(i, st)
        const $(A) $(st.name) = [&]() { const $(A) a = tkhn_acc$(i); (void)a; return ($(A))($(st.post)); }();
@ end
template <bool Wide>
__global__ void __launch_bounds__(1024) $(k.symbol)_rows($(table.concat(params, ", ")), const tkh_plan tkhn_p)
{
    typedef typename tkh_plan_index<Wide>::U U;
    typedef typename tkh_plan_index<Wide>::O O;
    __shared__ $(A) tkhn_tree[1024];
    const U tkhn_rows = (U)tkhn_p.count, tkhn_count = (U)tkhn_p.reduce_count;
@ scalars_and_strides()
    const bool tkhn_cached = tkhn_count <= (U)blockDim.x * TKH_NORM_CACHE;
    for (U tkhn_row = blockIdx.x; tkhn_row < tkhn_rows; tkhn_row += gridDim.x) {
        O tkhn_at[$(arrays)] = { 0 };
        tkh_plan_offsets<Wide, $(arrays)>(tkhn_p, 1, tkhn_p.ndim, tkhn_row, tkhn_at);
        $(A) tkhn_v[TKH_NORM_CACHE];
@ for i, st in ipairs(k.stages) do
        $(A) tkhn_acc$(i) = ($(A))($(st.identity));
        if (tkhn_cached) {
#pragma unroll
            for (int tkhn_j = 0; tkhn_j < TKH_NORM_CACHE; ++tkhn_j) {
                const U tkhn_r = threadIdx.x + (U)tkhn_j * blockDim.x;
                if (tkhn_r < tkhn_count) {
@   if i == 1 then
                    tkhn_v[tkhn_j] = ($(A))$(load(x.type, "p_" .. x.name .. "[tkhn_at[0] + (O)tkhn_r * tkhn_s[0]]"));
@   end
@   element("                    ", "tkhn_r", "tkhn_v[tkhn_j]")
@   fold("                    ", st, i)
                }
            }
        } else {
            for (U tkhn_r = threadIdx.x; tkhn_r < tkhn_count; tkhn_r += blockDim.x) {
@   element("                ", "tkhn_r")
@   fold("                ", st, i)
            }
        }
        tkhn_acc$(i) = $(k.symbol)_block_fold(tkhn_acc$(i), tkhn_tree, $(k.symbol)_combine$(i));
@   post_of(i, st)
@ end
@ if k.map then
        if (tkhn_cached) {
#pragma unroll
            for (int tkhn_j = 0; tkhn_j < TKH_NORM_CACHE; ++tkhn_j) {
                const U tkhn_r = threadIdx.x + (U)tkhn_j * blockDim.x;
                if (tkhn_r < tkhn_count) {
@   element("                    ", "tkhn_r", "tkhn_v[tkhn_j]")
@   store_out("                    ", "tkhn_r")
                }
            }
        } else {
            for (U tkhn_r = threadIdx.x; tkhn_r < tkhn_count; tkhn_r += blockDim.x) {
@   element("                ", "tkhn_r")
@   store_out("                ", "tkhn_r")
            }
        }
@ else
        if (threadIdx.x == 0)
            p_out[tkhn_at[$(out_index)]] = $(store(O, "(" .. O.compute .. ")(" .. k.post .. ")"));
@ end
    }
}

template <bool Wide>
__global__ void __launch_bounds__(256) $(k.symbol)_columns($(table.concat(params, ", ")), const tkh_plan tkhn_p)
{
    typedef typename tkh_plan_index<Wide>::U U;
    typedef typename tkh_plan_index<Wide>::O O;
    const U tkhn_rows = (U)tkhn_p.count, tkhn_count = (U)tkhn_p.reduce_count;
@ scalars_and_strides()
    for (U tkhn_row = (U)blockIdx.x * blockDim.x + threadIdx.x; tkhn_row < tkhn_rows;
         tkhn_row += (U)gridDim.x * blockDim.x) {
        O tkhn_at[$(arrays)] = { 0 };
        tkh_plan_offsets<Wide, $(arrays)>(tkhn_p, 1, tkhn_p.ndim, tkhn_row, tkhn_at);
@ for i, st in ipairs(k.stages) do
        $(A) tkhn_acc$(i) = ($(A))($(st.identity));
        for (U tkhn_r = 0; tkhn_r < tkhn_count; ++tkhn_r) {
@   element("            ", "tkhn_r")
@   fold("            ", st, i)
        }
@   post_of(i, st)
@ end
@ if k.map then
        for (U tkhn_r = 0; tkhn_r < tkhn_count; ++tkhn_r) {
@   element("            ", "tkhn_r")
@   store_out("            ", "tkhn_r")
        }
@ else
        p_out[tkhn_at[$(out_index)]] = $(store(O, "(" .. O.compute .. ")(" .. k.post .. ")"));
@ end
    }
}

$(unmacros(k))

/* The launchers: over a plan (the layout's kernel, the block the runtime chose), and over
 * n contiguous elements as one row. */
extern "C" TKH_HIDDEN int $(k.launch)_plan(const void *const *inputs, void *const *outputs,
    const void *const *scalars, const tkh_plan *plan, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars;
    (void)scratch;
    if (plan->reduced != 1 || block == 0 || block > 1024 || (block & (block - 1)) != 0)
        return (int)hipErrorInvalidValue;
    if (plan->mode == TKH_PLAN_ROWS) {
        if (plan->wide)
            hipLaunchKernelGGL($(k.symbol)_rows<true>, dim3(grid), dim3(block), 0, (hipStream_t)stream, $(table.concat(args, ", ")), *plan);
        else
            hipLaunchKernelGGL($(k.symbol)_rows<false>, dim3(grid), dim3(block), 0, (hipStream_t)stream, $(table.concat(args, ", ")), *plan);
    } else if (plan->wide) {
        hipLaunchKernelGGL($(k.symbol)_columns<true>, dim3(grid), dim3(block), 0, (hipStream_t)stream, $(table.concat(args, ", ")), *plan);
    } else {
        hipLaunchKernelGGL($(k.symbol)_columns<false>, dim3(grid), dim3(block), 0, (hipStream_t)stream, $(table.concat(args, ", ")), *plan);
    }
    return (int)hipGetLastError();
}

extern "C" TKH_HIDDEN int $(k.launch)(const void *const *inputs, void *const *outputs,
    const void *const *scalars, size_t n, unsigned grid, unsigned block, void *scratch, void *stream)
{
    tkh_plan plan;
    tkh_norm_row_plan(&plan, n, $(arrays), $(k.map and 1 or 0));
    (void)grid;
    return $(k.launch)_plan(inputs, outputs, scalars, &plan, 1, block, scratch, stream);
}
