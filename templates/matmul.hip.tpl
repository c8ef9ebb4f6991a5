/* $(do_not_edit) */
/* $(k.op.name) over $(k.label): out[..., m, n] = epilogue(sum over k of a[..., m, k] * b$(k.b_layout == "nk" and "[..., n, k]" or "[..., k, n]"))
 * over a plan (tokitai_hip/codegen/plan.h): dimension 0 is k (reduced), 1 is n, 2 is m, the
 * rest the batch, each array at its own strides (0 where it does not step). Kernels:
 * tiles of fused multiply-adds for any layout and target, where the type and the target
 * have them tiles of matrix instructions for operands in whole 16-byte chunks, and for at
 * most 16 rows the small-m kernel (the launcher picks; docs/matmul.md). The accumulation is a
 * chain of $(k.type.domain == "float" and "fused multiply-adds in " .. k.acc.name or "wrapping " .. k.acc.name .. " multiply-adds") along k per output,
 * then the epilogue ($(k.epilogue)) in $(k.acc.name), stored as $(k.out_type.name). docs/matmul.md. */
#include "tokitai_hip/codegen/hip_platform.h"
#include "tokitai_hip/codegen/matrix_core.h"
#include "tokitai_hip/codegen/plan.h"
#include "tokitai_hip/codegen/projection.h"
#include "tokitai_hip/codegen/small_m.h"
#include "$(k.oracle_header)"

@ local L = matmul_locals(k) -- the names every part of a product's source shares (gen/tkh/shapes/matmul.lua)
@ local S, O, float, R, a, b, params, args, pass, out_index, mma, mfma = L.S, L.O, L.float, L.R, L.a, L.b, L.params, L.args, L.pass, L.out_index, L.mma, L.mfma
/* The value stored for the output whose element in each array is at 'off': the epilogue of its
 * sum, in the output's type. */
static __device__ __forceinline__ $(O.c) $(k.symbol)_value($(table.concat(params, ", ")), const int64_t *off, $(R) acc)
{
    (void)p_$(a.name);
    (void)p_$(b.name);
    (void)p_out;
@ local call = { "(" .. k.acc.compute .. ")acc" }
@ for _, c in ipairs(k.extras) do
    const $(k.acc.compute) c_$(c.name) = p_$(c.name) ? ($(k.acc.compute))$(load(c.type, "p_" .. c.name .. "[off[" .. c.index .. "]]")) : ($(k.acc.compute))($(c.default or "0"));
@   call[#call + 1] = "c_" .. c.name
@ end
@ for _, s in ipairs(k.scalars) do call[#call + 1] = "p_" .. s.name end
    return $(store(O, "(" .. O.compute .. ")" .. k.oracle .. "(" .. table.concat(call, ", ") .. ")"));
}

/* The output whose element in each array is at 'off', stored: its value, or with 'partials'
 * (TKH_PLAN_PARTIALS) its sum itself, in the accumulator's type (p_out is then the launcher's
 * partials). */
template <bool partials>
static __device__ __forceinline__ void $(k.symbol)_store($(table.concat(params, ", ")), const int64_t *off, $(R) acc)
{
    if (partials)
        (($(R) *)(void *)p_out)[off[$(out_index)]] = acc;
    else
        p_out[off[$(out_index)]] = $(k.symbol)_value($(pass), off, acc);
}

/* Output (m, n) of the tile whose arrays start at 'at', stored as the plan's mode says. */
static __device__ __forceinline__ void $(k.symbol)_finish($(table.concat(params, ", ")), const tkh_plan &tkhm_p,
    const int64_t *at, int64_t m, int64_t n, $(R) acc)
{
    int64_t off[$(#k.inputs + 1)];
#pragma unroll
    for (int x = 0; x < $(#k.inputs + 1); ++x)
        off[x] = at[x] + m * tkhm_p.stride[x][2] + n * tkhm_p.stride[x][1];
    if (tkhm_p.mode == TKH_PLAN_PARTIALS)
        $(k.symbol)_store<true>($(pass), off, acc);
    else
        $(k.symbol)_store<false>($(pass), off, acc);
}

/* Where batch 'batch' (an index over the plan's dimensions 3 on) starts in each array (at). */
static __device__ __forceinline__ void $(k.symbol)_batch(const tkh_plan &p, int64_t batch, int64_t *at)
{
    for (int x = 0; x < $(#k.inputs + 1); ++x)
        at[x] = 0;
    for (int d = 3; d < p.ndim; ++d) {
        const int64_t i = batch % p.size[d];
        batch /= p.size[d];
        for (int x = 0; x < $(#k.inputs + 1); ++x)
            at[x] += i * p.stride[x][d];
    }
}

/* Tile 'tile' of tiles of bm x bn outputs over the plan: the offsets of its batch in each
 * array (at), and its first output (m0, n0). The tiles of a plane go in groups of 8 along m,
 * so that neighbouring blocks share a's and b's tiles in L2. */
static __device__ __forceinline__ void $(k.symbol)_place(const tkh_plan &p, int64_t tile, int64_t bm, int64_t bn,
    int64_t *at, int64_t &m0, int64_t &n0)
{
    const int64_t tn = (p.size[1] + bn - 1) / bn, tm = (p.size[2] + bm - 1) / bm, plane = tn * tm;
    $(k.symbol)_batch(p, tile / plane, at);
    const int64_t in_plane = tile % plane, group = in_plane / (8 * tn);
    const int64_t rows = tm - group * 8 < 8 ? tm - group * 8 : 8, in_group = in_plane % (8 * tn);
    m0 = (group * 8 + in_group % rows) * bm;
    n0 = in_group / rows * bn;
}

/* Tiles of 128 x 128 outputs a block of 256 threads, each thread 8 x 8 of them (rows 4 ty
 * + i and 64 + 4 ty + i, columns likewise by tx, so that a warp's reads of a row of b's
 * tile are 16-byte vectors without bank conflicts); a's and b's tiles 8 along k at a time
 * through two shared buffers, the next tile's elements read from memory into registers
 * while the current one is multiplied. */
#define TKHM_BM 128
#define TKHM_BN 128
#define TKHM_BK 8
/* Rows of the shared tiles padded by 4 elements: where an operand is stored along k (its
 * contiguous dimension), the 32 lanes of a warp write 8 k of 4 rows, which in rows of 128
 * would share 4 banks (8 ways); in rows of 132 they take all 32. 16 bytes keep the reads'
 * vectors aligned. */
#define TKHM_PAD 4

__global__ void __launch_bounds__(256) $(k.symbol)_tiles($(table.concat(params, ", ")), const tkh_plan tkhm_p)
{
    __shared__ __align__(16) $(R) tkhm_as[2][TKHM_BK][TKHM_BM + TKHM_PAD];
    __shared__ __align__(16) $(R) tkhm_bs[2][TKHM_BK][TKHM_BN + TKHM_PAD];
    const int64_t tkhm_k = tkhm_p.size[0], tkhm_n = tkhm_p.size[1], tkhm_m = tkhm_p.size[2];
    const int64_t tkhm_tiles = (tkhm_n + TKHM_BN - 1) / TKHM_BN * ((tkhm_m + TKHM_BM - 1) / TKHM_BM)
        * (tkhm_p.count / (tkhm_n * tkhm_m));
    const int64_t a_k = tkhm_p.stride[0][0], a_m = tkhm_p.stride[0][2];
    const int64_t b_k = tkhm_p.stride[1][0], b_n = tkhm_p.stride[1][1];
    const unsigned tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    /* this thread's 4 elements of each k tile: along k where that is contiguous, else along m (n) */
    const bool a_along_k = a_k == 1, b_along_k = b_n != 1;
    for (int64_t tile = blockIdx.x; tile < tkhm_tiles; tile += gridDim.x) {
        int64_t at[$(#k.inputs + 1)], m0, n0;
        $(k.symbol)_place(tkhm_p, tile, TKHM_BM, TKHM_BN, at, m0, n0);
        $(R) acc[8][8], next_a[4], next_b[4];
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j)
                acc[i][j] = 0;
        auto fetch = [&](int64_t k0) {
#pragma unroll
            for (unsigned q = 0; q < 4; ++q) {
                const unsigned e = tid + 256 * q;
                const unsigned kk = a_along_k ? e % TKHM_BK : e / TKHM_BM, mm = a_along_k ? e / TKHM_BK : e % TKHM_BM;
                const int64_t m = m0 + mm, kq = k0 + kk;
                next_a[q] = m < tkhm_m && kq < tkhm_k
                    ? ($(R))$(load(a.type, "p_" .. a.name .. "[at[0] + m * a_m + kq * a_k]")) : ($(R))0;
                const unsigned kb = b_along_k ? e % TKHM_BK : e / TKHM_BN, nn = b_along_k ? e / TKHM_BK : e % TKHM_BN;
                const int64_t n = n0 + nn, kr = k0 + kb;
                next_b[q] = n < tkhm_n && kr < tkhm_k
                    ? ($(R))$(load(b.type, "p_" .. b.name .. "[at[1] + n * b_n + kr * b_k]")) : ($(R))0;
            }
        };
        auto keep = [&](int buf) {
#pragma unroll
            for (unsigned q = 0; q < 4; ++q) {
                const unsigned e = tid + 256 * q;
                tkhm_as[buf][a_along_k ? e % TKHM_BK : e / TKHM_BM][a_along_k ? e / TKHM_BK : e % TKHM_BM] = next_a[q];
                tkhm_bs[buf][b_along_k ? e % TKHM_BK : e / TKHM_BN][b_along_k ? e / TKHM_BK : e % TKHM_BN] = next_b[q];
            }
        };
        fetch(0);
        keep(0);
        __syncthreads();
        for (int64_t k0 = 0, buf = 0; k0 < tkhm_k; k0 += TKHM_BK, buf ^= 1) {
            const bool more = k0 + TKHM_BK < tkhm_k;
            if (more)
                fetch(k0 + TKHM_BK);
#pragma unroll
            for (int kk = 0; kk < TKHM_BK; ++kk) {
                $(R) ra[8], rb[8];
#pragma unroll
                for (int q = 0; q < 4; ++q) {
                    ra[q] = tkhm_as[buf][kk][4 * ty + q];
                    ra[4 + q] = tkhm_as[buf][kk][64 + 4 * ty + q];
                    rb[q] = tkhm_bs[buf][kk][4 * tx + q];
                    rb[4 + q] = tkhm_bs[buf][kk][64 + 4 * tx + q];
                }
#pragma unroll
                for (int i = 0; i < 8; ++i)
#pragma unroll
                    for (int j = 0; j < 8; ++j)
@ if float then
                        acc[i][j] = fma(ra[i], rb[j], acc[i][j]);
@ else
                        acc[i][j] += ra[i] * rb[j];
@ end
            }
            if (more)
                keep((int)buf ^ 1);
            __syncthreads(); /* the next buffer is whole, and this one free for the tile after */
        }
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j) {
                const int64_t m = m0 + (i & 4) * 16 + 4 * ty + (i & 3), n = n0 + (j & 4) * 16 + 4 * tx + (j & 3);
                if (m < tkhm_m && n < tkhm_n)
                    $(k.symbol)_finish($(pass), tkhm_p, at, m, n, acc[i][j]);
            }
    }
}

