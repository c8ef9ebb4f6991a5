/* $(do_not_edit) */
/* $(k.op.name) over $(k.type.name): one thread per element in a grid-stride loop, so any
 * n fits any grid. The launcher is the only symbol the host side sees. */
#include "tokitai_hip/hip_platform.h"
#include "$(oracle_header)"

@ local T = k.type.c
@ if k.op.arity == 2 then
__global__ void $(k.symbol)(const $(T) *lhs, const $(T) *rhs, $(T) *out, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = $(k.oracle)(lhs[i], rhs[i]);
}
@ else
__global__ void $(k.symbol)(const $(T) *in, $(T) *out, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = $(k.oracle)(in[i]);
}
@ end

/* Enqueues the kernel; returns the runtime's error code of the launch (0 on success). */
extern "C" TKH_HIDDEN int $(k.launch)(const void *const *inputs, void *out, size_t n,
    unsigned grid, unsigned block, void *stream)
{
@ if k.op.arity == 2 then
    hipLaunchKernelGGL($(k.symbol), dim3(grid), dim3(block), 0, (hipStream_t)stream,
        (const $(T) *)inputs[0], (const $(T) *)inputs[1], ($(T) *)out, n);
@ else
    hipLaunchKernelGGL($(k.symbol), dim3(grid), dim3(block), 0, (hipStream_t)stream,
        (const $(T) *)inputs[0], ($(T) *)out, n);
@ end
    return (int)hipGetLastError();
}
