/* $(do_not_edit) */
/* $(k.op.name) over $(k.type.name), in a grid-stride loop so any n fits any grid. When every
 * pointer is 16-byte aligned, each thread moves 16 bytes per load and store (the memory
 * system's widest), with a scalar tail; otherwise one element at a time. The launcher is
 * the only symbol the host side sees. */
#include "tokitai_hip/hip_platform.h"
#include "$(k.oracle_header)"

@ local S, arity = k.type.c, k.op.arity
@ local V = 16 // (k.type.bits // 8)
@ local params, elems, lanes, loads, casts, aligned = {}, {}, {}, {}, {}, {}
@ for i = 1, arity do
@   local x = "x" .. (i - 1)
@   params[i] = "const " .. S .. " *" .. x
@   elems[i] = x .. "[i]"
@   lanes[i] = "v" .. (i - 1) .. ".lane[j]"
@   loads[i] = "v" .. (i - 1) .. " = ((const " .. k.id .. "_vec *)" .. x .. ")[i]"
@   casts[i] = "(const " .. S .. " *)inputs[" .. (i - 1) .. "]"
@   aligned[i] = "(uintptr_t)inputs[" .. (i - 1) .. "]"
@ end
@ aligned[#aligned + 1] = "(uintptr_t)out"
/* $(V) elements, 16 bytes: loaded and stored as one. */
typedef struct __align__(16) { $(S) lane[$(V)]; } $(k.id)_vec;

__global__ void $(k.symbol)($(table.concat(params, ", ")), $(S) *out, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = $(k.oracle)($(table.concat(elems, ", ")));
}

__global__ void $(k.symbol)_vec16($(table.concat(params, ", ")), $(S) *out, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    const size_t first = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    const size_t vectors = n / $(V);
    for (size_t i = first; i < vectors; i += stride) {
        const $(k.id)_vec $(table.concat(loads, ", "));
        $(k.id)_vec r;
#pragma unroll
        for (int j = 0; j < $(V); ++j)
            r.lane[j] = $(k.oracle)($(table.concat(lanes, ", ")));
        (($(k.id)_vec *)out)[i] = r;
    }
    for (size_t i = vectors * $(V) + first; i < n; i += stride)
        out[i] = $(k.oracle)($(table.concat(elems, ", ")));
}

/* Enqueues the kernel; returns the runtime's error code of the launch (0 on success). */
extern "C" TKH_HIDDEN int $(k.launch)(const void *const *inputs, void *out, size_t n,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scratch;
    if ((($(table.concat(aligned, " | "))) & 15) == 0)
        hipLaunchKernelGGL($(k.symbol)_vec16, dim3(grid), dim3(block), 0, (hipStream_t)stream,
            $(table.concat(casts, ", ")), ($(S) *)out, n);
    else
        hipLaunchKernelGGL($(k.symbol), dim3(grid), dim3(block), 0, (hipStream_t)stream,
            $(table.concat(casts, ", ")), ($(S) *)out, n);
    return (int)hipGetLastError();
}
