/* Device code's pieces for a group of threads working on one row (the normalizations'
 * rows layout, tokitai_hip/codegen/plan.h): a vector of elements read or written in one access,
 * the exchange of a value with another lane of the same 32 lanes, and, for the launchers,
 * the dynamic shared memory a block may have. Groups are aligned slices of 32 lanes on
 * either platform (a 64-lane AMD wavefront holds two), so that the fold order, and with
 * it the oracle's bound, is the same everywhere. Included by generated kernels (HIP or
 * CUDA C++). */
#ifndef TOKITAI_HIP_THREAD_GROUP_H
#define TOKITAI_HIP_THREAD_GROUP_H

#include "tokitai_hip/codegen/hip_platform.h"

/* N elements of T side by side, aligned for one access of up to 16 bytes (wider ones,
 * N * sizeof(T) > 16, take several). */
template <typename T, int N> struct alignas(N * sizeof(T) < 16 ? N * sizeof(T) : 16) tkh_pack {
    T e[N];
};

/* N bf16 elements as the kernels hold them: for N even as the 32-bit words that carry two
 * (little-endian: element 2k in word k's low half), so that each element widens to f32
 * with one shift or one mask (held as 16-bit elements, each took an extraction first);
 * tkh_bf16_pack_at reads element e in f32. */
template <int N, bool Words = N % 2 == 0> struct tkh_bf16_pack_of {
    typedef tkh_pack<uint16_t, N> type;
};
template <int N> struct tkh_bf16_pack_of<N, true> {
    typedef tkh_pack<uint32_t, N / 2> type;
};
template <int N> using tkh_bf16_pack = typename tkh_bf16_pack_of<N>::type;

template <int N> __device__ __forceinline__ float tkh_bf16_pack_at(const tkh_pack<uint32_t, N> &p, int e)
{
    const uint32_t w = p.e[e >> 1];
    return tkh_f32_from_bits(e & 1 ? w & 0xFFFF0000u : w << 16);
}

template <int N> __device__ __forceinline__ float tkh_bf16_pack_at(const tkh_pack<uint16_t, N> &p, int e)
{
    return tkh_bf16_to_f32(p.e[e]);
}

/* The value of v in lane (this lane ^ mask) of this thread's 32 lanes; every lane of the
 * 32 must take part. */
template <typename T> __device__ __forceinline__ T tkh_lane_xor(T v, unsigned mask)
{
#if defined(TKH_PLATFORM_NVIDIA)
    return __shfl_xor_sync(0xffffffffu, v, (int)mask, 32);
#else
    return __shfl_xor(v, (int)mask, 32);
#endif
}

/* The value of v in lane 'src' of this thread's 32 lanes; every lane of the 32 must take part. */
template <typename T> __device__ __forceinline__ T tkh_lane_at(T v, unsigned src)
{
#if defined(TKH_PLATFORM_NVIDIA)
    return __shfl_sync(0xffffffffu, v, (int)src, 32);
#else
    return __shfl(v, (int)src, 32);
#endif
}

/* A normalization kernel's launch bounds for blocks of 'threads': on NVIDIA also enough
 * blocks a multiprocessor that each thread has at most 64 registers (a thread's cached row
 * and its arithmetic fit, and more rows are in flight); HIP's second argument means
 * something else on AMD, which gets the block size alone. */
#if defined(TKH_PLATFORM_NVIDIA)
#define TKH_NORM_BOUNDS(threads) __launch_bounds__((threads), 1024 / (threads))
#else
#define TKH_NORM_BOUNDS(threads) __launch_bounds__((threads))
#endif

/* How many units of 'unit' bytes of dynamic shared memory, at most 'most', a block of
 * 'kernel' can have on the current device beside its static shared memory, in *units;
 * asked for where the platform needs it (NVIDIA: past 48 KB a kernel opts in, up to the
 * device's opt-in limit; AMD: a block's limit, 64 KB on gfx9, as is). Fails with the
 * runtime's error (*units 0) where the device or the kernel cannot be asked. */
static inline hipError_t tkh_dynamic_shared(const void *kernel, size_t unit, unsigned most, unsigned *units)
{
#if defined(TKH_PLATFORM_NVIDIA)
    const hipDeviceAttribute_t limit_of = hipDeviceAttributeSharedMemPerBlockOptin;
#else
    const hipDeviceAttribute_t limit_of = hipDeviceAttributeMaxSharedMemoryPerBlock;
#endif
    int device = 0, limit = 0;
    hipFuncAttributes attributes;
    *units = 0;
    hipError_t e = hipGetDevice(&device);
    if (e == hipSuccess)
        e = hipDeviceGetAttribute(&limit, limit_of, device);
    if (e == hipSuccess)
        e = hipFuncGetAttributes(&attributes, kernel);
    if (e != hipSuccess)
        return e;
    const size_t fixed = attributes.sharedSizeBytes;
    const size_t fit = (size_t)limit > fixed ? ((size_t)limit - fixed) / unit : 0;
    *units = fit < most ? (unsigned)fit : most;
#if defined(TKH_PLATFORM_NVIDIA)
    if (*units * unit > 48 * 1024)
        e = hipFuncSetAttribute(kernel, hipFuncAttributeMaxDynamicSharedMemorySize, (int)(*units * unit));
    if (e != hipSuccess)
        *units = 0;
#endif
    return e;
}

#endif
