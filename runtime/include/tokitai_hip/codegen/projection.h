/* The projected check of matrix products (TKH_ORACLE_PROJECTED, docs/matmul.md), what
 * its host and device sides share: the columns' weights, the bound a block's two sums
 * must agree within, and what the device's projection kernels are given and give back.
 * Plain C, so that the runtime and the generated kernels include it alike; the product's
 * own kernels do not. */
#ifndef TOKITAI_HIP_PROJECTION_H
#define TOKITAI_HIP_PROJECTION_H

#include <math.h>
#include <stdint.h>

#if defined(__HIPCC__) || defined(__CUDACC__)
#define TKH_HD __host__ __device__ /* as scalar.h has it, whose tgmath.h the runtime's C does without */
#else
#define TKH_HD
#endif

/* Outputs of a row summed together: the threshold grows with it, the cost shrinks. */
#define TKH_PROJECTION_BLOCK 128

/* The tiles of the device's kernel that sums a's rows against b's block sums (_proj_ay):
 * rows by blocks of columns, for each batch. The host splits k where they are few; the
 * launcher runs them all. */
#define TKH_PROJECTION_TILE_ROWS 128
#define TKH_PROJECTION_TILE_BLOCKS 32

TKH_HD static inline int64_t tkh_projection_tiles(int64_t batch, int64_t m, int64_t blocks)
{
    return batch * ((m + TKH_PROJECTION_TILE_ROWS - 1) / TKH_PROJECTION_TILE_ROWS)
        * ((blocks + TKH_PROJECTION_TILE_BLOCKS - 1) / TKH_PROJECTION_TILE_BLOCKS);
}

/* Column j's weight: splitmix64's output j from 'seed' (the stream's, without its state).
 * Floats weigh by its low bit as +1 or -1; integers by the output made odd. */
TKH_HD static inline uint64_t tkh_projection_weight(uint64_t seed, int64_t j)
{
    uint64_t z = seed + (uint64_t)(j + 1) * 0x9E3779B97F4A7C15ull;
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

/* The roundings of a sum of k products in the accumulator, and their unit as a multiple of
 * its unit roundoff: k at 1 where every operation rounds to nearest (any order: no product
 * passes through more than k of them), else 2k + 2 at 2 (matrix instructions: the tensor
 * cores' truncation, docs/matmul.md). */
TKH_HD static inline double tkh_sum_steps(int64_t k, int nearest, double *unit)
{
    *unit = nearest ? 1 : 2;
    return nearest ? (double)k : 2 * (double)k + 2;
}

/* The bound within which a block of w outputs' weighted sum (lhs) and the same sum from
 * the inputs (rhs: over q of a[i, q] y[q], plus the extra input's) agree, when every
 * output is within the full check's bound: the roundings of k products' sum in the
 * accumulator (tkh_sum_steps; unit roundoff u_acc, subnormal spacing tiny_acc), the extra input's addition and the
 * output's rounding (u_out, tiny_out), summed over the block, in mag (sum over q of
 * |a[i, q]| z[q], z the block's sums of |b|), sabs (the sum of |outputs|) and xabs (of
 * |extra input|); then the checker's own sums in double (y and z: a block's terms; the
 * row's: k and a block's), with room. Below f64's accumulators the device may sum a's rows on
 * the double-precision matrix instruction (templates/matmul_projection.hip.tpl), so the k
 * terms count there as a matrix instruction's 2k + 2 at twice double's unit roundoff, on the
 * host too (the two paths state one threshold): some 2^-28 of the product's own bound. Negative
 * where the bound is of no use (a special value among the sums, or k past what the
 * accumulator can bound): the block is then recomputed in full. */
TKH_HD static inline double tkh_projection_bound(int64_t k, int nearest, int64_t w, double u_acc, double tiny_acc,
    double u_out, double tiny_out, double lhs, double rhs, double mag, double sabs, double xabs)
{
    double unit;
    const double steps = tkh_sum_steps(k, nearest, &unit), g = steps * unit * u_acc;
    const double sums = u_acc > 0x1p-40 ? 4 * (double)k + 4 : (double)k; /* the checker's over k */
    const double host = (sums + 2 * TKH_PROJECTION_BLOCK + 8) * 0x1p-53;
    if (!isfinite(lhs) || !isfinite(rhs) || !isfinite(mag) || g >= 0.5 || host >= 0x1p-10)
        return -1;
    const double mag_up = mag * (1 + 2 * host);
    return g / (1 - g) * mag_up + (double)w * steps * tiny_acc + sabs * (u_out + 2 * u_acc) * 1.01
        + (double)w * tiny_out + host * 1.01 * (mag_up + sabs + xabs)
        + (sums + 2 * TKH_PROJECTION_BLOCK) * 0x1p-1074;
}

/* What the device's check of one call is given (by value) besides the tensors and plan. */
typedef struct tkh_projection_args {
    uint64_t seed;               /* the weights' (tkh_projection_weight) */
    uint64_t mask;               /* integers: the outputs' congruence, 2^bits - 1 */
    double u_acc, tiny_acc, u_out, tiny_out; /* floats: as tkh_projection_bound takes them */
    int64_t blocks;              /* blocks of a row: ceil(n / TKH_PROJECTION_BLOCK) */
    int64_t chunks;              /* the sums over k taken in this many pieces (their partial sums
                                    added in order): small m still fills the device */
    int extra;                   /* 1: input 2 is given and is added to the sum */
    int nearest;                 /* the product's sums rounded to nearest (tkh_sum_steps) */
} tkh_projection_args;

/* What it gives back (device memory, filled by the kernels; the host reads it when they
 * are done). The ratios are non-negative doubles as bits, which order as integers. */
typedef struct tkh_projection_result {
    unsigned long long blocks;   /* blocks compared: every block of every row, or the kernels failed */
    unsigned long long failed;   /* blocks outside their bound, or whose bound is of no use */
    unsigned long long first;    /* the first output of the first of those (ULLONG_MAX: none) */
    unsigned long long worst;    /* (float bits of the largest |lhs - rhs| / bound) << 32 | its block's
                                    index among all blocks (row-major) */
    unsigned long long threshold; /* double bits of the largest 2 bound: one output wrong by more
                                     than that makes its block differ by more than its bound */
} tkh_projection_result;

#endif
