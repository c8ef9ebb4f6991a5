/* Device code's pieces for a group of threads working on one row (the normalizations'
 * rows layout, tokitai_hip/plan.h): a vector of elements read or written in one access,
 * and the exchange of a value with another lane of the same 32 lanes. Groups are aligned
 * slices of 32 lanes on either platform (a 64-lane AMD wavefront holds two), so that the
 * fold order, and with it the oracle's bound, is the same everywhere. Included by
 * generated kernels (HIP or CUDA C++). */
#ifndef TOKITAI_HIP_THREAD_GROUP_H
#define TOKITAI_HIP_THREAD_GROUP_H

/* N elements of T side by side, aligned for one access of up to 16 bytes (wider ones,
 * N * sizeof(T) > 16, take several). */
template <typename T, int N> struct alignas(N * sizeof(T) < 16 ? N * sizeof(T) : 16) tkh_pack {
    T e[N];
};

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

/* A normalization kernel's launch bounds for blocks of 'threads': on NVIDIA also enough
 * blocks a multiprocessor that each thread has at most 64 registers (a thread's cached row
 * and its arithmetic fit, and more rows are in flight); HIP's second argument means
 * something else on AMD, which gets the block size alone. */
#if defined(TKH_PLATFORM_NVIDIA)
#define TKH_NORM_BOUNDS(threads) __launch_bounds__((threads), 1024 / (threads))
#else
#define TKH_NORM_BOUNDS(threads) __launch_bounds__((threads))
#endif

#endif
