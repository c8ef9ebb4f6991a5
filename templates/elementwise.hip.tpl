/* $(do_not_edit) */
/* $(k.op.name) over $(k.label), in a grid-stride loop so any n fits any grid. When every
 * array is aligned to its vector, each thread moves V elements of each array per load and
 * store (16 bytes of the widest), with a scalar tail; otherwise one element at a time.
 * Scalars come by value. Arrays and scalars are p_<name>. The launcher is the only symbol the host side sees. */
#include "tokitai_hip/hip_platform.h"
#include "$(k.oracle_header)"

@ local V = k.vector_width
@ local params, elems, lanes, loads, casts, aligned, vecs = {}, {}, {}, {}, {}, {}, {}
@ for _, x in ipairs(k.args) do
@   if x.scalar then
@     params[#params + 1] = x.type.c .. " p_" .. x.name
@     elems[#elems + 1], lanes[#lanes + 1] = "p_" .. x.name, "p_" .. x.name
@     casts[#casts + 1] = "*(const " .. x.type.c .. " *)scalars[" .. x.index .. "]"
@   else
@     params[#params + 1] = "const " .. x.type.c .. " *p_" .. x.name
@     elems[#elems + 1] = "p_" .. x.name .. "[i]"
@     lanes[#lanes + 1] = "v_" .. x.name .. ".lane[j]"
@     loads[#loads + 1] = "const " .. k.id .. "_vec_" .. x.name .. " v_" .. x.name .. " = ((const "
@       .. k.id .. "_vec_" .. x.name .. " *)p_" .. x.name .. ")[i];"
@     casts[#casts + 1] = "(const " .. x.type.c .. " *)inputs[" .. x.index .. "]"
@     aligned[#aligned + 1] = "((uintptr_t)inputs[" .. x.index .. "] & " .. (V * x.type.bits // 8 - 1) .. ")"
@     vecs[#vecs + 1] = { x.name, x.type }
@   end
@ end
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
