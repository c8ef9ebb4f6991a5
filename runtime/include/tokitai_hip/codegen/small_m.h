/* The small-m kernels' maps (templates/matmul_small_m.hip.tpl), host and device code, so
 * that tests/unit/test_small_m.cc runs them over one block on the CPU (the runtime's C
 * takes the constants and plain functions).
 *
 * A block is 256 threads in 8 groups of 32 lanes (an AMD wave of 64 holds two groups, so
 * the lanes exchanged and the sums' order are the same on both platforms). Each thread
 * sums P values (its columns times the rows of the block) over its share of k; the
 * threads of a group then sum them across the lanes that hold other k by a
 * reduce-scatter (at each step a lane sends half of its values to its partner and adds
 * the other half from it, so that a lane does P - 1 exchanges for the whole tree, not P
 * times log2 32), and the 8 groups' sums meet in shared memory. */
#ifndef TOKITAI_HIP_CODEGEN_SMALL_M_H
#define TOKITAI_HIP_CODEGEN_SMALL_M_H

#include <stdint.h>

#if defined(__HIPCC__) || defined(__CUDACC__)
#define TKH_SMALL_FN __host__ __device__ __forceinline__
#else
#include <stdbool.h>
#define TKH_SMALL_FN static inline
#endif

/* The launcher takes the small-m kernel for products of at most this many rows (their
 * batches' rows folded together where b is the same for every batch). */
#define TKH_SMALL_M_ROWS 16

/* Threads a block, groups of 32 lanes. */
#define TKH_SMALL_THREADS 256
#define TKH_SMALL_GROUPS 8

/* The kernels' launch bounds: on NVIDIA one block a multiprocessor at least, which lets
 * ptxas take the registers the sums and loads in flight need (without it, it held some
 * kernels to 64 and spilled); HIP's second argument means something else on AMD. */
#if defined(TKH_PLATFORM_NVIDIA)
#define TKH_SMALL_BOUNDS __launch_bounds__(TKH_SMALL_THREADS, 1)
#else
#define TKH_SMALL_BOUNDS __launch_bounds__(TKH_SMALL_THREADS)
#endif

/* MN-major b: thread t reads columns chunk t % 8 of the tile (8 chunks side by side, so that
 * a group's 8 lanes of one k take a whole run of the row) at k = t / 8 + 32 i. */
TKH_SMALL_FN unsigned tkh_small_mn_chunk(unsigned tid)
{
    return tid % 8;
}

TKH_SMALL_FN unsigned tkh_small_mn_slice(unsigned tid)
{
    return tid / 8;
}

/* The small-m kernel on NVIDIA's mma.sync m16n8k16 (f16 and bf16 with b K-major and a's rows
 * k-contiguous, in whole 16-byte chunks; sm_80 and later): a block's 8 warps take one group of
 * 16 rows and 8 NT columns, each warp its chunks of 32 along k (U of them a step: chunk
 * (w + 8 j) U + u of warp w at step j). Lane l (g = l / 4, t = l % 4) reads 16 bytes, 8
 * elements, at k = 32 c + 8 t (tkh_small_mma_k) of a's rows g and g + 8 and of b's column g
 * of each group of 8 columns, as 4 words of two elements. The instruction's 16 k are a
 * permutation of the chunk's: its lane l holds A[g + 8 (i % 2)][2 t + 8 (i / 2) + e] in
 * a[i] and B[2 t + 8 i + e][g] in b[i] (PTX ISA, "Matrix Fragments for mma.m16n8k16"), so
 * that half h of the chunk (words 2 h and 2 h + 1 of each lane's pieces) makes one
 * instruction whose k 2 t, 2 t + 1, 2 t + 8, 2 t + 9 are the lane's own elements 4 h to 4 h
 * + 3, the same for a and b: the two instructions sum the chunk. */
TKH_SMALL_FN unsigned tkh_small_mma_k(unsigned lane)
{
    return 8 * (lane % 4);
}

TKH_SMALL_FN int64_t tkh_small_mma_chunk(unsigned warp, int64_t step, int u, int U)
{
    return ((int64_t)warp + 8 * step) * U + u;
}

/* Half h's operands from the lane's words of a's rows g (lo) and g + 8 (hi), and of b. */
TKH_SMALL_FN void tkh_small_mma_a(const uint32_t lo[4], const uint32_t hi[4], int h, uint32_t a[4])
{
    a[0] = lo[2 * h], a[1] = hi[2 * h], a[2] = lo[2 * h + 1], a[3] = hi[2 * h + 1];
}

TKH_SMALL_FN void tkh_small_mma_b(const uint32_t y[4], int h, uint32_t b[2])
{
    b[0] = y[2 * h], b[1] = y[2 * h + 1];
}

/* Where accumulator i of a lane lies in its 16 x 8 outputs: row g + 8 (i / 2), column 2 t + i % 2. */
TKH_SMALL_FN unsigned tkh_small_mma_row(unsigned lane, int i)
{
    return lane / 4 + 8 * (unsigned)(i / 2);
}

TKH_SMALL_FN unsigned tkh_small_mma_col(unsigned lane, int i)
{
    return 2 * (lane % 4) + (unsigned)(i % 2);
}

/* Values a lane holds before step s of the reduce-scatter of p (a power of two). */
TKH_SMALL_FN int tkh_small_count(int p, int s)
{
    return p >> s > 1 ? p >> s : 1;
}

/* The partner of step s: lane ^ (16 >> s); the steps go over the top 'bits' lane bits. */
TKH_SMALL_FN unsigned tkh_small_mask(int s)
{
    return 16u >> s;
}

#if defined(__cplusplus)
/* Step s with c > 1 values held: value j (j < c / 2) that the lane sends, and the value it
 * keeps in v[j] once it has 'got' its partner's: the lane whose mask bit is set keeps the
 * upper half. With c == 1 both lanes keep the one value and add the other's. */
template <typename R, int P> TKH_SMALL_FN R tkh_small_out(const R (&v)[P], int j, int c, bool up)
{
    const R lo = v[j], hi = v[j + c / 2]; /* values, then the choice: not a choice of addresses */
    return up ? lo : hi;
}

template <typename R, int P> TKH_SMALL_FN void tkh_small_in(R (&v)[P], int j, int c, bool up, R got)
{
    const R lo = v[j], hi = v[c > 1 ? j + c / 2 : j];
    v[j] = (up ? hi : lo) + got;
}
#endif

/* After the 'bits' steps: the index of the first value the lane holds (it holds
 * tkh_small_count(p, bits) of them, in order), and whether it is the one lane of its
 * partners that writes them (where the halving ran out, several lanes hold the same sums). */
TKH_SMALL_FN unsigned tkh_small_first(int p, int bits, unsigned lane)
{
    unsigned first = 0;
    for (int s = 0; s < bits; ++s) {
        const int c = tkh_small_count(p, s);
        if (c > 1 && (lane & tkh_small_mask(s)))
            first += (unsigned)c / 2;
    }
    return first;
}

TKH_SMALL_FN bool tkh_small_owner(int p, int bits, unsigned lane)
{
    for (int s = 0; s < bits; ++s)
        if (tkh_small_count(p, s) == 1 && (lane & tkh_small_mask(s)))
            return false;
    return true;
}

/* The reduce-scatter itself over lane bits 16 >> s for s in [S, BITS) (device code): a
 * template a step, so that every index into v is a constant and v stays in registers. */
#if defined(__HIPCC__) || defined(__CUDACC__)
#include "tokitai_hip/codegen/thread_group.h"

template <int S, int BITS, typename R, int P> __device__ __forceinline__ void tkh_small_reduce(R (&v)[P], unsigned lane)
{
    if constexpr (S < BITS) {
        constexpr int c = P >> S > 1 ? P >> S : 1;
        const bool up = (lane & tkh_small_mask(S)) != 0;
#pragma unroll
        for (int j = 0; j < (c > 1 ? c / 2 : 1); ++j)
            tkh_small_in(v, j, c, up, tkh_lane_xor(c > 1 ? tkh_small_out(v, j, c, up) : v[j], tkh_small_mask(S)));
        tkh_small_reduce<S + 1, BITS>(v, lane);
    }
}
#endif

#endif
