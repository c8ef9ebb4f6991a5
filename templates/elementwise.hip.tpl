/* $(do_not_edit) */
/* $(k.op.name) over $(k.type.name): one thread per element in a grid-stride loop, so any
 * n fits any grid. The launcher is the only symbol the host side sees. */
#include "tokitai_hip/hip_platform.h"
#include "$(oracle_header)"

@ local S = k.type.c
@ local binary = k.op.arity == 2
__global__ void $(k.symbol)(const $(S) *x, $(binary and ("const " .. S .. " *y, ") or "")$(S) *out, size_t n)
{
    const size_t stride = (size_t)gridDim.x * blockDim.x;
    for (size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        out[i] = $(k.oracle)(x[i]$(binary and ", y[i]" or ""));
}

/* Enqueues the kernel; returns the runtime's error code of the launch (0 on success). */
extern "C" TKH_HIDDEN int $(k.launch)(const void *const *inputs, void *out, size_t n,
    unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scratch;
    hipLaunchKernelGGL($(k.symbol), dim3(grid), dim3(block), 0, (hipStream_t)stream,
        (const $(S) *)inputs[0], $(binary and ("(const " .. S .. " *)inputs[1], ") or "")($(S) *)out, n);
    return (int)hipGetLastError();
}
