/* $(do_not_edit) */
/* $(k.op.name) over $(k.label), in a grid-stride loop so any n fits any grid. When every
 * array is aligned to its vector, each thread moves V elements of each array per load and
 * store (16 bytes of the widest), with a scalar tail; otherwise one element at a time.
 * Scalars come by value. Arrays and scalars are p_<name>. Tensors that are not all dense
 * go through the plan kernel: an element per thread and step, each array at the offset
 * its strides give (tokitai_hip/codegen/plan_walk.h). The launchers are the only symbols the host
 * side sees. */
#include "tokitai_hip/codegen/hip_platform.h"
#include "tokitai_hip/codegen/plan_walk.h"
#include "$(k.oracle_header)"

@ local V = k.vector_width
@ local params, elems, lanes, loads, casts, aligned, vecs = {}, {}, {}, {}, {}, {}, {}
@ local strided, offsets = {}, {} -- the plan kernel's element of each array, its offset's name
@ for _, x in ipairs(k.args) do
@   if x.scalar then
@     params[#params + 1] = x.type.c .. " p_" .. x.name
@     elems[#elems + 1], lanes[#lanes + 1] = "p_" .. x.name, "p_" .. x.name
@     strided[#strided + 1] = "p_" .. x.name
@     casts[#casts + 1] = "*(const " .. x.type.c .. " *)scalars[" .. x.index .. "]"
@   else
@     params[#params + 1] = "const " .. x.type.c .. " *p_" .. x.name
@     elems[#elems + 1] = "p_" .. x.name .. "[i]"
@     strided[#strided + 1] = "p_" .. x.name .. "[off[" .. x.index .. "] + (O)j * (O)p.stride[" .. x.index .. "][0]]"
@     lanes[#lanes + 1] = "v_" .. x.name .. ".lane[j]"
@     loads[#loads + 1] = "const " .. k.id .. "_vec_" .. x.name .. " v_" .. x.name .. " = ((const "
@       .. k.id .. "_vec_" .. x.name .. " *)p_" .. x.name .. ")[i];"
@     casts[#casts + 1] = "(const " .. x.type.c .. " *)inputs[" .. x.index .. "]"
@     aligned[#aligned + 1] = "((uintptr_t)inputs[" .. x.index .. "] & " .. (V * x.type.bits // 8 - 1) .. ")"
@     vecs[#vecs + 1] = { x.name, x.type }
@   end
@ end
@ local arrays = #k.inputs + #k.outputs
@ for _, o in ipairs(k.outputs) do
@   params[#params + 1] = o.type.c .. " *p_" .. o.name
@   casts[#casts + 1] = "(" .. o.type.c .. " *)outputs[" .. o.index .. "]"
@   aligned[#aligned + 1] = "((uintptr_t)outputs[" .. o.index .. "] & " .. (V * o.type.bits // 8 - 1) .. ")"
@   vecs[#vecs + 1] = { o.name, o.type }
@ end
/* $(V) elements of each array, loaded and stored as one. */
@ for _, v in ipairs(vecs) do
typedef struct __align__($(V * v[2].bits // 8)) { $(v[2].c) lane[$(V)]; } $(k.id)_vec_$(v[1]);
@ end

__global__ void $(k.symbol)($(table.concat(params, ", ")), size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride) {
@ for _, o in ipairs(k.outputs) do
        p_$(o.name)[i] = $(o.fn)($(table.concat(elems, ", ")));
@ end
    }
}

__global__ void $(k.symbol)_vec($(table.concat(params, ", ")), size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t vectors = n / $(V);
    for (size_t i = first; i < vectors; i += stride) {
@ for _, l in ipairs(loads) do
        $(l)
@ end
@ for _, o in ipairs(k.outputs) do
        $(k.id)_vec_$(o.name) r_$(o.name);
@ end
#pragma unroll
        for (int j = 0; j < $(V); ++j) {
@ for _, o in ipairs(k.outputs) do
            r_$(o.name).lane[j] = $(o.fn)($(table.concat(lanes, ", ")));
@ end
        }
@ for _, o in ipairs(k.outputs) do
        (($(k.id)_vec_$(o.name) *)p_$(o.name))[i] = r_$(o.name);
@ end
    }
    for (size_t i = vectors * $(V) + first; i < n; i += stride) {
@ for _, o in ipairs(k.outputs) do
        p_$(o.name)[i] = $(o.fn)($(table.concat(elems, ", ")));
@ end
    }
}

/* Over a plan: each thread takes runs of $(V) consecutive elements along dimension 0, as
 * vectors where every array steps 0 (a broadcast value) or 1 along it, else one by one. */
template <bool Wide, int Dims>
__global__ void $(k.symbol)_plan($(table.concat(params, ", ")), const tkh_plan p, const tkh_plan_runs runs)
{
    typedef typename tkh_plan_index<Wide>::U U;
    typedef typename tkh_plan_index<Wide>::O O;
    const U total = (U)runs.total, step = (U)gridDim.x * blockDim.x, per_row = (U)runs.per_row;
    for (U run = (U)blockIdx.x * blockDim.x + threadIdx.x; run < total; run += step) {
        const U row = Wide ? run / per_row
            : (U)((__umulhi((uint32_t)run, runs.magic) + (uint32_t)run) >> runs.shift);
        const U first = (run - row * per_row) * $(V);
        O off[$(arrays)] = { 0 };
        tkh_plan_offsets<Wide, $(arrays), Dims>(p, 1, p.ndim, row, off);
#pragma unroll
        for (int a = 0; a < $(arrays); ++a)
            off[a] += (O)first * (O)p.stride[a][0];
        const U left = (U)p.size[0] - first;
        if (runs.vector && left >= $(V)) {
@ for _, x in ipairs(k.inputs) do
            $(k.id)_vec_$(x.name) v_$(x.name);
            if (p.stride[$(x.index)][0] != 0) {
                v_$(x.name) = *(const $(k.id)_vec_$(x.name) *)(p_$(x.name) + off[$(x.index)]);
            } else {
                const $(x.type.c) s = p_$(x.name)[off[$(x.index)]];
#pragma unroll
                for (int j = 0; j < $(V); ++j)
                    v_$(x.name).lane[j] = s;
            }
@ end
@ for _, o in ipairs(k.outputs) do
            $(k.id)_vec_$(o.name) r_$(o.name);
@ end
#pragma unroll
            for (int j = 0; j < $(V); ++j) {
@ for _, o in ipairs(k.outputs) do
                r_$(o.name).lane[j] = $(o.fn)($(table.concat(lanes, ", ")));
@ end
            }
@ for _, o in ipairs(k.outputs) do
            *($(k.id)_vec_$(o.name) *)(p_$(o.name) + off[$(#k.inputs + o.index)]) = r_$(o.name);
@ end
        } else {
            for (U j = 0; j < $(V) && j < left; ++j) {
@ for _, o in ipairs(k.outputs) do
                p_$(o.name)[off[$(#k.inputs + o.index)] + (O)j * (O)p.stride[$(#k.inputs + o.index)][0]] = $(o.fn)($(table.concat(strided, ", ")));
@ end
            }
        }
    }
}

@ -- Tiles of E x E elements, E = 32 H: H = 2 (16 elements per thread) where the tiles of
@ -- every input fit in 40 KB, else 32 (4 per thread) within 32 KB, else no tiles. Rows of a
@ -- tile are padded to an odd count of 4-byte words: no bank conflicts reading its columns.
@ local function pad(x) local b = x.type.bits // 8; return b >= 4 and 1 or 4 // b end
@ local function tile_bytes(E)
@   local bytes = 0
@   for _, x in ipairs(k.inputs) do bytes = bytes + E * (E + pad(x)) * (x.type.bits // 8) end
@   return bytes
@ end
@ local H = tile_bytes(64) <= 40960 and 2 or 1
@ local E, J = 32 * H, 4 * H
@ local tiles = tile_bytes(E) <= (H == 2 and 40960 or 32768)
@ if tiles then
/* Over a plan of two dimensions where an input steps 1 along dimension 1 and not along
 * dimension 0 (a transposed view): $(E) x $(E) tiles, such inputs read along their own
 * contiguous dimension into shared memory, everything else along dimension 0, so that
 * every global access is coalesced. 32 x 8 threads, $(H * J) elements each; every input's
 * loads are issued before the first wait, so that they are in flight together. */
template <bool Wide>
__global__ void __launch_bounds__(256) $(k.symbol)_tiled($(table.concat(params, ", ")), const tkh_plan p, unsigned transposed)
{
    typedef typename tkh_plan_index<Wide>::U U;
    typedef typename tkh_plan_index<Wide>::O O;
@   for _, x in ipairs(k.inputs) do
    __shared__ $(x.type.c) t_$(x.name)[$(E)][$(E + pad(x))];
@   end
    const U size0 = (U)p.size[0], size1 = (U)p.size[1];
    const U tiles0 = (size0 + $(E - 1)) / $(E), tiles = tiles0 * ((size1 + $(E - 1)) / $(E));
    const unsigned tx = threadIdx.x % 32, ty = threadIdx.x / 32;
    for (U tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const U first1 = tile / tiles0 * $(E), first0 = (tile % tiles0) * $(E);
@   for _, x in ipairs(k.inputs) do
        $(x.type.c) r_$(x.name)[$(H)][$(J)];
        {
            const int across = (transposed & $(1 << x.index)u) != 0; /* along dimension 1 */
#pragma unroll
            for (int h = 0; h < $(H); ++h)
#pragma unroll
                for (int j = 0; j < $(J); ++j) {
                    const U i0 = first0 + (across ? ty + 8 * j : tx + 32 * h);
                    const U i1 = first1 + (across ? tx + 32 * h : ty + 8 * j);
                    if (i0 < size0 && i1 < size1)
                        r_$(x.name)[h][j] = p_$(x.name)[(O)i0 * (O)p.stride[$(x.index)][0] + (O)i1 * (O)p.stride[$(x.index)][1]];
                }
        }
@   end
@   for _, x in ipairs(k.inputs) do
        if (transposed & $(1 << x.index)u) {
#pragma unroll
            for (int h = 0; h < $(H); ++h)
#pragma unroll
                for (int j = 0; j < $(J); ++j)
                    if (first0 + ty + 8 * j < size0 && first1 + tx + 32 * h < size1)
                        t_$(x.name)[ty + 8 * j][tx + 32 * h] = r_$(x.name)[h][j];
        }
@   end
        __syncthreads();
#pragma unroll
        for (int h = 0; h < $(H); ++h)
#pragma unroll
            for (int j = 0; j < $(J); ++j) {
                const U i0 = first0 + tx + 32 * h, i1 = first1 + ty + 8 * j;
                if (i0 < size0 && i1 < size1) {
@   local tiled_elems = {}
@   for _, x in ipairs(k.args) do
@     if x.scalar then
@       tiled_elems[#tiled_elems + 1] = "p_" .. x.name
@     else
@       tiled_elems[#tiled_elems + 1] = "e_" .. x.name
                    const $(x.type.c) e_$(x.name) = (transposed & $(1 << x.index)u) ? t_$(x.name)[tx + 32 * h][ty + 8 * j]
                        : r_$(x.name)[h][j];
@     end
@   end
@   for _, o in ipairs(k.outputs) do
                    p_$(o.name)[(O)i0 * (O)p.stride[$(#k.inputs + o.index)][0] + (O)i1 * (O)p.stride[$(#k.inputs + o.index)][1]] = $(o.fn)($(table.concat(tiled_elems, ", ")));
@   end
                }
            }
        __syncthreads(); /* the tiles are reused */
    }
}

@ end
/* Enqueues the kernel; returns the runtime's error code of the launch (0 on success). */
extern "C" TKH_HIDDEN int $(k.launch)(const void *const *inputs, void *const *outputs,
    const void *const *scalars, size_t n, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scratch;
    (void)scalars;
    if (($(table.concat(aligned, " | "))) == 0)
        hipLaunchKernelGGL($(k.symbol)_vec, dim3(grid), dim3(block), 0, (hipStream_t)stream,
            $(table.concat(casts, ", ")), n);
    else
        hipLaunchKernelGGL($(k.symbol), dim3(grid), dim3(block), 0, (hipStream_t)stream,
            $(table.concat(casts, ", ")), n);
    return (int)hipGetLastError();
}

extern "C" TKH_HIDDEN int $(k.launch)_plan(const void *const *inputs, void *const *outputs,
    const void *const *scalars, const tkh_plan *plan, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars;
    (void)scratch;
@ local bases, sizes = {}, {}
@ for _, x in ipairs(k.inputs) do bases[#bases + 1], sizes[#sizes + 1] = "inputs[" .. x.index .. "]", x.type.bits // 8 end
@ for _, o in ipairs(k.outputs) do bases[#bases + 1], sizes[#sizes + 1] = "outputs[" .. o.index .. "]", o.type.bits // 8 end
    const void *const base[$(arrays)] = { $(table.concat(bases, ", ")) };
    const unsigned size[$(arrays)] = { $(table.concat(sizes, ", ")) };
@ if tiles then
    unsigned transposed = 0; /* inputs read through the tiles */
    for (unsigned a = 0; a < $(#k.inputs) && plan->ndim == 2; ++a)
        if (plan->stride[a][0] != 0 && plan->stride[a][0] != 1 && plan->stride[a][1] == 1)
            transposed |= 1u << a;
    if (transposed != 0 && block == 256 && !plan->wide) {
        const int64_t tiles = (plan->size[0] + $(E - 1)) / $(E) * ((plan->size[1] + $(E - 1)) / $(E));
        grid = (unsigned)(tiles < (int64_t)grid ? tiles : (int64_t)grid);
        hipLaunchKernelGGL($(k.symbol)_tiled<false>, dim3(grid), dim3(block), 0, (hipStream_t)stream,
            $(table.concat(casts, ", ")), *plan, transposed);
        return (int)hipGetLastError();
    }
@ end
    const tkh_plan_runs runs = tkh_plan_runs_of(plan, $(arrays), base, size, $(V));
    const unsigned blocks = (unsigned)((runs.total + block - 1) / block);
    grid = blocks < grid ? blocks : grid;
    grid = grid > 0 ? grid : 1;
    if (plan->wide || plan->ndim > 3) /* rare: one general kernel */
        hipLaunchKernelGGL(($(k.symbol)_plan<true, TKH_MAX_DIMS>), dim3(grid), dim3(block), 0,
            (hipStream_t)stream, $(table.concat(casts, ", ")), *plan, runs);
    else
        hipLaunchKernelGGL(($(k.symbol)_plan<false, 3>), dim3(grid), dim3(block), 0,
            (hipStream_t)stream, $(table.concat(casts, ", ")), *plan, runs);
    return (int)hipGetLastError();
}
