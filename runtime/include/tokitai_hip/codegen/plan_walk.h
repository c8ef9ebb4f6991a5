/* Device code's walk of a plan (tokitai_hip/codegen/plan.h): a linear index to each array's
 * offset, the dimensions unrolled up to TKH_MAX_DIMS so that the plan stays in the
 * kernel's parameters. 32-bit indices divide by multiplying (the plan's magic numbers);
 * 64-bit ones divide. Included by generated kernels (HIP or CUDA C++). */
#ifndef TOKITAI_HIP_PLAN_WALK_H
#define TOKITAI_HIP_PLAN_WALK_H

#include "tokitai_hip/codegen/plan.h"

template <bool Wide> struct tkh_plan_index {
    typedef uint32_t U; /* linear indices */
    typedef int32_t O;  /* offsets */
};
template <> struct tkh_plan_index<true> {
    typedef uint64_t U;
    typedef int64_t O;
};

template <bool Wide>
__device__ __forceinline__ typename tkh_plan_index<Wide>::U tkh_plan_quotient(const tkh_plan &p, int d,
    typename tkh_plan_index<Wide>::U i)
{
    if (Wide)
        return i / (uint64_t)p.size[d];
    return (uint32_t)((__umulhi((uint32_t)i, p.magic[d]) + (uint32_t)i) >> p.shift[d]);
}

/* Adds to off[a], for arrays [0, Arrays) of the plan, the offset of linear index i over
 * dimensions [from, to) (from the fastest), for plans of at most Dims dimensions (fewer
 * unrolled steps and registers for the common plans of up to 3). */
template <bool Wide, int Arrays, int Dims = TKH_MAX_DIMS>
__device__ __forceinline__ void tkh_plan_offsets(const tkh_plan &p, int from, int to,
    typename tkh_plan_index<Wide>::U i, typename tkh_plan_index<Wide>::O *off)
{
    typedef typename tkh_plan_index<Wide>::U U;
    typedef typename tkh_plan_index<Wide>::O O;
    constexpr int unrolled = Dims <= 3 ? Dims : 1; /* the general walk: a loop, less code */
#pragma unroll unrolled
    for (int d = 0; d < Dims; ++d) { /* no break: a loop with one is not unrolled */
        if (d >= from && d < to) {
            const U q = d + 1 < to ? tkh_plan_quotient<Wide>(p, d, i) : 0;
            const O c = (O)(i - q * (U)p.size[d]);
#pragma unroll
            for (int a = 0; a < Arrays; ++a)
                off[a] += c * (O)p.stride[a][d];
            i = q;
        }
    }
}

#endif
