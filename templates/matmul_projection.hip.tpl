@ -- A matrix product's projected check on the device, after templates/matmul_mma.hip.tpl.
@ local L = matmul_locals(k) -- the names every part of a product's source shares (gen/tkh/shapes/matmul.lua)
@ local S, O, float, R, a, b, params, args, pass, out_index, mma, mfma = L.S, L.O, L.float, L.R, L.a, L.b, L.params, L.args, L.pass, L.out_index, L.mma, L.mfma
@ if k.projectable then
@   local X = k.extras[1]
@   local function real(t, e)
@     if float then return "(double)" .. load(t, e) end
@     return t.family == "signed" and ("(uint64_t)(int64_t)" .. e) or ("(uint64_t)" .. e)
@   end
@   local Y = float and "double" or "uint64_t"
@   -- _proj_ay's arithmetic: integers modulo 2^32 where the outputs' congruence is no wider
@   local W = (float or math.min(k.acc.bits, O.bits) > 32) and Y or "uint32_t"
@   -- _proj_ay on the double-precision matrix instruction where the target has it: not for f64
@   -- products, whose own bound is near the checker's (tkh_projection_bound)
@   local dmma = float and k.acc.bits < 64
@   -- and of 8-bit integers on the 8-bit one, exactly: y modulo 2^32 in bytes, the s32 sums wrapping
@   local imma = not float and a.type.bits == 8 and W == "uint32_t"
@   local mi = dmma or imma
/* The projected check on the device (tokitai_hip/codegen/projection.h, docs/matmul.md), in
 * kernels of its own that share no code with the product's: _proj_w works out the columns'
 * weights; _proj_b sums each row q of b over blocks of TKH_PROJECTION_BLOCK columns by them
 * (y$(float and ", and z of |b|" or ", modulo 2^64")), a thread or a warp a row and block; _proj_ay sums
 * a's rows against them, in tiles and chunks of k;
 * _proj_cmp sums each block of outputs$(X and " less the extra input" or "") by the same weights and compares. */
#include "tokitai_hip/codegen/thread_group.h"

static __device__ int64_t $(k.symbol)_proj_batch(const tkh_plan &p, int x, int64_t bi)
{
    int64_t off = 0;
    for (int d = 3; d < p.ndim; ++d) {
        off += bi % p.size[d] * p.stride[x][d];
        bi /= p.size[d];
    }
    return off;
}

/* The weights of the n columns (tkh_projection_weight), worked out once a call for the
 * kernels below, which read them. */
__global__ void __launch_bounds__(256) $(k.symbol)_proj_w(uint64_t seed, int64_t n, uint64_t *__restrict__ w)
{
    for (int64_t j = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; j < n; j += (int64_t)gridDim.x * blockDim.x)
        w[j] = tkh_projection_weight(seed, j);
}

/* One term of a block's weighted sums (of b's row, of an output row): its weight's sign
 * (integers: the odd weight) times v, and |v|. */
static __device__ __forceinline__ void $(k.symbol)_proj_term(uint64_t w, $(Y) v, $(Y) &sy, double &sz)
{
@   if float then
    sy += w & 1 ? v : -v;
    sz += fabs(v);
@   else
    (void)sz;
    sy += (w | 1) * v;
@   end
}

__global__ void __launch_bounds__(256) $(k.symbol)_proj_b(const $(b.type.c) *__restrict__ pb, const tkh_plan p,
    const tkh_projection_args pa, const uint64_t *__restrict__ wt, $(Y) *__restrict__ y, double *__restrict__ z,
    tkh_projection_result *res)
{
    const int64_t kk = p.size[0], n = p.size[1], rows = p.count / (n * p.size[2]) * kk, total = rows * pa.blocks;
    const int64_t b_n = p.stride[1][1];
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *res = tkh_projection_result{ 0, 0, ~0ull, 0, 0 };
    if (p.stride[1][0] == 1) { /* b's rows along k (K-major): a thread a row and block, neighbours on neighbouring rows */
        for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x) {
            const int64_t r = t % rows, blk = t / rows;
            const $(b.type.c) *row = pb + $(k.symbol)_proj_batch(p, 1, r / kk) + r % kk;
            const int64_t j1 = (blk + 1) * TKH_PROJECTION_BLOCK < n ? (blk + 1) * TKH_PROJECTION_BLOCK : n;
            $(Y) sy = 0;
            double sz = 0;
            for (int64_t j = blk * TKH_PROJECTION_BLOCK; j < j1; ++j)
                $(k.symbol)_proj_term(wt[j], $(real(b.type, "row[j * b_n]")), sy, sz);
            y[r * pa.blocks + blk] = sy;
            z[r * pa.blocks + blk] = sz;
        }
        return;
    }
    /* else 32 lanes a row's block, side by side along it, their sums added across the warp */
    const unsigned lane = threadIdx.x % 32;
    for (int64_t t = (blockIdx.x * (int64_t)blockDim.x + threadIdx.x) / 32; t < total;
         t += (int64_t)gridDim.x * blockDim.x / 32) {
        const int64_t r = t / pa.blocks, blk = t % pa.blocks, j0 = blk * TKH_PROJECTION_BLOCK;
        const $(b.type.c) *row = pb + $(k.symbol)_proj_batch(p, 1, r / kk) + r % kk * p.stride[1][0];
        $(Y) v[TKH_PROJECTION_BLOCK / 32];
        uint64_t w[TKH_PROJECTION_BLOCK / 32];
#pragma unroll
        for (int u = 0; u < TKH_PROJECTION_BLOCK / 32; ++u) { /* every load first */
            const int64_t j = j0 + lane + 32 * u;
            v[u] = j < n ? $(real(b.type, "row[j * b_n]")) : 0;
            w[u] = j < n ? wt[j] : 0;
        }
        $(Y) sy = 0;
        double sz = 0;
#pragma unroll
        for (int u = 0; u < TKH_PROJECTION_BLOCK / 32; ++u)
            $(k.symbol)_proj_term(w[u], v[u], sy, sz);
        for (unsigned d = 16; d > 0; d /= 2) {
            sy += tkh_lane_xor(sy, d);
            sz += tkh_lane_xor(sz, d);
        }
        if (lane == 0) {
            y[r * pa.blocks + blk] = sy;
            z[r * pa.blocks + blk] = sz;
        }
    }
}

/* Partial sums of a's rows against the block sums, chunk c of k (a plan's rows of k split
 * into pa.chunks, so that small m still fills the device): rhs[c][row][blk] = sum over q of
 * a[row, q] y[q, blk]$(float and ", and mag of |a| z" or ""). A block takes a tile of 128 rows by 32
 * column blocks (TKH_PROJECTION_TILE_*, projection.h) through shared memory, KC of k at a time;
 * thread (lane l, warp w) holds rows l + 32 i (i < 4) and blocks JB w + j (j < JB), so that
 * a's reads are one row each lane and the sums' are the same word for the whole warp: JB 8 in
 * blocks of 128 threads where no matrix instruction takes the sums (floats: 20 shared-memory
 * reads for 64 multiply-adds, where 4 gave 12 for 32), 4 in blocks of 256 where one may.
@   if dmma then
 * On NVIDIA sm_80 and later (TKH_HAS_MMA_SYNC), the same tiles on the double-precision matrix
 * instruction instead (tkh_mma_1688_f64, twice the rate of double fused multiply-adds on
 * Hopper): warp w takes rows 32 (w % 4) to 32 (w % 4) + 31 and blocks 16 (w / 4) to
 * 16 (w / 4) + 15 as 2 x 2 tiles of 16 x 8, a's tile in shared memory row by row and y's and
 * z's block by block, each row KC + 4 doubles long so that a fragment's 16 lanes of a
 * half-warp fall in different banks; the checker's bound counts its sums over k as a matrix
 * instruction's (tkh_projection_bound).
@   elseif imma then
 * On NVIDIA sm_80 and later (TKH_HAS_MMA_SYNC), the same tiles on the 8-bit matrix instruction
 * instead (m16n8k32, s32 sums wrapping modulo 2^32, the congruence the check works in): y's
 * words as four planes of bytes, a's rows against each (warp w: rows 32 (w % 4) to
 * 32 (w % 4) + 31, blocks 16 (w / 4) to 16 (w / 4) + 15 as 2 x 2 tiles of 16 x 8), the four
 * sums shifted into place; exact, as the loop of multiply-adds is. KB bytes of k a stage, each
 * row of the tiles KB / 4 + 4 words long so that a fragment's 32 lanes fall in 32 banks.
@   end
 */
#define TKHM_PROJ_KC 16
#define TKHM_PROJ_AY_THREADS $(mi and 256 or 128)
#define TKHM_PROJ_JB (TKH_PROJECTION_TILE_BLOCKS * 32 / TKHM_PROJ_AY_THREADS)
@   if mi then
#if defined(TKH_HAS_MMA_SYNC) /* two blocks a multiprocessor, one's loads under the other's products (128 registers) */
#define TKHM_PROJ_AY_BLOCKS 2
#else
#define TKHM_PROJ_AY_BLOCKS 1
#endif
@   else
#define TKHM_PROJ_AY_BLOCKS 1
@   end
__global__ void __launch_bounds__(TKHM_PROJ_AY_THREADS, TKHM_PROJ_AY_BLOCKS) $(k.symbol)_proj_ay(const $(a.type.c) *__restrict__ pa_, const tkh_plan p,
    const tkh_projection_args pa, const $(Y) *__restrict__ y, const double *__restrict__ z, $(Y) *__restrict__ rhs,
    double *__restrict__ mag)
{
@   if dmma then
#if defined(TKH_HAS_MMA_SYNC)
#define TKHM_PROJ_ROW (TKHM_PROJ_KC + 4)
    __shared__ double s_a[TKH_PROJECTION_TILE_ROWS][TKHM_PROJ_ROW];
    __shared__ double s_y[TKH_PROJECTION_TILE_BLOCKS][TKHM_PROJ_ROW];
    __shared__ double s_z[TKH_PROJECTION_TILE_BLOCKS][TKHM_PROJ_ROW];
#else
@   elseif imma then
#if defined(TKH_HAS_MMA_SYNC)
#define TKHM_PROJ_KB 64
#define TKHM_PROJ_ROW (TKHM_PROJ_KB / 4 + 4)
    __shared__ uint32_t s_a[TKH_PROJECTION_TILE_ROWS][TKHM_PROJ_ROW];
    __shared__ uint32_t s_y[4][TKH_PROJECTION_TILE_BLOCKS][TKHM_PROJ_ROW]; /* byte b of each word of y */
#else
@   end
    __shared__ $(W) s_a[TKHM_PROJ_KC][TKH_PROJECTION_TILE_ROWS + 1]; /* + 1: a's rows written along k go to other banks */
    __shared__ $(W) s_y[TKHM_PROJ_KC][TKH_PROJECTION_TILE_BLOCKS];
@   if float then
    __shared__ double s_z[TKHM_PROJ_KC][TKH_PROJECTION_TILE_BLOCKS];
@   end
@   if mi then
#endif
@   end
    const int64_t kk = p.size[0], n = p.size[1], m = p.size[2], batch = p.count / (n * m);
    const int64_t rtiles = (m + TKH_PROJECTION_TILE_ROWS - 1) / TKH_PROJECTION_TILE_ROWS;
    const int64_t btiles = (pa.blocks + TKH_PROJECTION_TILE_BLOCKS - 1) / TKH_PROJECTION_TILE_BLOCKS;
    const int64_t span = (kk + pa.chunks - 1) / pa.chunks, total = tkh_projection_tiles(batch, m, pa.blocks) * pa.chunks;
    const bool a_along_k = p.stride[0][0] == 1; /* neighbouring threads on neighbouring elements */
    const unsigned tid = threadIdx.x, l = tid % 32, w = tid / 32;
    for (int64_t task = blockIdx.x; task < total; task += gridDim.x) {
        const int64_t c = task % pa.chunks, bt = task / pa.chunks % btiles, rt = task / pa.chunks / btiles % rtiles;
        const int64_t bi = task / pa.chunks / btiles / rtiles;
        const int64_t r0 = rt * TKH_PROJECTION_TILE_ROWS, b0 = bt * TKH_PROJECTION_TILE_BLOCKS;
        const int64_t q0 = c * span, q1 = q0 + span < kk ? q0 + span : kk;
        const $(a.type.c) *const ga = pa_ + $(k.symbol)_proj_batch(p, 0, bi);
        const size_t yb = (size_t)(bi * kk) * (size_t)pa.blocks;
        const size_t out0 = ((size_t)(c * batch + bi) * (size_t)m) * (size_t)pa.blocks;
@   if dmma then
#if defined(TKH_HAS_MMA_SYNC)
        /* a lane's fragments (tkh_mma_1688_f64): rows (blocks) g + 8 r, k 8 h + t + 4 s */
        const unsigned g = l / 4, t = l % 4, wr = 32 * (w % 4), wb = 16 * (w / 4);
        const int live = (int)(m - r0 - wr <= 0 ? 0 : m - r0 - wr < 32 ? (m - r0 - wr + 15) / 16 : 2); /* the warp's row tiles */
        double ry[2][2][4] = {}, rz[2][2][4] = {};
        for (int64_t qs = q0; qs < q1; qs += TKHM_PROJ_KC) {
#pragma unroll
            for (int x = 0; x < TKH_PROJECTION_TILE_ROWS * TKHM_PROJ_KC / 256; ++x) {
                const unsigned e = tid + 256u * x;
                const unsigned r = a_along_k ? e / TKHM_PROJ_KC : e % TKH_PROJECTION_TILE_ROWS;
                const unsigned q = a_along_k ? e % TKHM_PROJ_KC : e / TKH_PROJECTION_TILE_ROWS;
                const bool in = r0 + r < m && qs + q < q1;
                s_a[r][q] = in ? $(real(a.type, "ga[(r0 + r) * p.stride[0][2] + (qs + q) * p.stride[0][0]]")) : 0;
            }
#pragma unroll
            for (int x = 0; x < TKH_PROJECTION_TILE_BLOCKS * TKHM_PROJ_KC / 256; ++x) {
                const unsigned e = tid + 256u * x, q = e / TKH_PROJECTION_TILE_BLOCKS, j = e % TKH_PROJECTION_TILE_BLOCKS;
                const bool in = b0 + j < pa.blocks && qs + q < q1;
                const size_t at = yb + (size_t)(qs + q) * (size_t)pa.blocks + (size_t)(b0 + j);
                s_y[j][q] = in ? y[at] : 0;
                s_z[j][q] = in ? z[at] : 0;
            }
            __syncthreads();
#pragma unroll
            for (unsigned h = 0; h < TKHM_PROJ_KC / 8; ++h) {
                double fy[2][2], fz[2][2];
#pragma unroll
                for (unsigned j = 0; j < 2; ++j)
#pragma unroll
                    for (unsigned s = 0; s < 2; ++s) {
                        fy[j][s] = s_y[wb + 8 * j + g][8 * h + t + 4 * s];
                        fz[j][s] = s_z[wb + 8 * j + g][8 * h + t + 4 * s];
                    }
#pragma unroll
                for (int i = 0; i < 2; ++i)
                    if (i < live) { /* the same for the warp */
                        double fa[4], fm[4];
#pragma unroll
                        for (unsigned v = 0; v < 4; ++v) {
                            fa[v] = s_a[wr + 16 * i + g + 8 * (v % 2)][8 * h + t + 4 * (v / 2)];
                            fm[v] = fabs(fa[v]);
                        }
#pragma unroll
                        for (int j = 0; j < 2; ++j) {
                            tkh_mma_1688_f64(ry[i][j], fa, fy[j]);
                            tkh_mma_1688_f64(rz[i][j], fm, fz[j]);
                        }
                    }
            }
            __syncthreads(); /* before the next stage's writes */
        }
        /* accumulator e of tile (i, j): row g (+ 8 for e >= 2), block 2 t + e % 2 */
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < 2; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int64_t row = r0 + wr + 16 * i + g + 8 * (e / 2), blk = b0 + wb + 8 * j + 2 * t + e % 2;
                    if (row < m && blk < pa.blocks) {
                        rhs[out0 + (size_t)row * (size_t)pa.blocks + (size_t)blk] = ry[i][j][e];
                        mag[out0 + (size_t)row * (size_t)pa.blocks + (size_t)blk] = rz[i][j][e];
                    }
                }
#else
@   elseif imma then
#if defined(TKH_HAS_MMA_SYNC)
        /* a lane's fragments (m16n8k32): rows (blocks) g + 8 r, bytes of k 32 h + 4 t + 16 s to + 3 */
        const unsigned g = l / 4, t = l % 4, wr = 32 * (w % 4), wb = 16 * (w / 4);
        const int live = (int)(m - r0 - wr <= 0 ? 0 : m - r0 - wr < 32 ? (m - r0 - wr + 15) / 16 : 2); /* the warp's row tiles */
        int ry[2][2][4][4] = {}; /* tile (i, j), byte plane of y, accumulator */
        for (int64_t qs = q0; qs < q1; qs += TKHM_PROJ_KB) {
#pragma unroll 8
            for (int x = 0; x < TKH_PROJECTION_TILE_ROWS * TKHM_PROJ_KB / 256; ++x) {
                const unsigned e = tid + 256u * x;
                const unsigned r = a_along_k ? e / TKHM_PROJ_KB : e % TKH_PROJECTION_TILE_ROWS;
                const unsigned q = a_along_k ? e % TKHM_PROJ_KB : e / TKH_PROJECTION_TILE_ROWS;
                const bool in = r0 + r < m && qs + q < q1;
                ((unsigned char *)s_a[r])[q] = in ? (unsigned char)ga[(r0 + r) * p.stride[0][2] + (qs + q) * p.stride[0][0]] : 0;
            }
#pragma unroll
            for (int x = 0; x < TKH_PROJECTION_TILE_BLOCKS * TKHM_PROJ_KB / 256; ++x) {
                const unsigned e = tid + 256u * x, q = e / TKH_PROJECTION_TILE_BLOCKS, j = e % TKH_PROJECTION_TILE_BLOCKS;
                const bool in = b0 + j < pa.blocks && qs + q < q1;
                const uint32_t v = in ? (uint32_t)y[yb + (size_t)(qs + q) * (size_t)pa.blocks + (size_t)(b0 + j)] : 0;
#pragma unroll
                for (int pl = 0; pl < 4; ++pl)
                    ((unsigned char *)s_y[pl][j])[q] = (unsigned char)(v >> 8 * pl);
            }
            __syncthreads();
#pragma unroll
            for (unsigned h = 0; h < TKHM_PROJ_KB / 32; ++h) {
                uint32_t fy[4][2][2];
#pragma unroll
                for (int pl = 0; pl < 4; ++pl)
#pragma unroll
                    for (unsigned j = 0; j < 2; ++j)
#pragma unroll
                        for (unsigned s = 0; s < 2; ++s)
                            fy[pl][j][s] = s_y[pl][wb + 8 * j + g][8 * h + t + 4 * s];
#pragma unroll
                for (int i = 0; i < 2; ++i)
                    if (i < live) { /* the same for the warp */
                        uint32_t fa[4];
#pragma unroll
                        for (unsigned v = 0; v < 4; ++v)
                            fa[v] = s_a[wr + 16 * i + g + 8 * (v % 2)][8 * h + t + 4 * (v / 2)];
#pragma unroll
                        for (int j = 0; j < 2; ++j)
#pragma unroll
                            for (int pl = 0; pl < 4; ++pl)
                                tkh_mma_16832_x8u8<$(a.type.family == "signed" and "true" or "false")>(ry[i][j][pl], fa, fy[pl][j]);
                    }
            }
            __syncthreads(); /* before the next stage's writes */
        }
        /* accumulator e of tile (i, j): row g (+ 8 for e >= 2), block 2 t + e % 2; y's bytes shifted into place */
#pragma unroll
        for (int i = 0; i < 2; ++i)
#pragma unroll
            for (int j = 0; j < 2; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int64_t row = r0 + wr + 16 * i + g + 8 * (e / 2), blk = b0 + wb + 8 * j + 2 * t + e % 2;
                    const uint32_t sum = (uint32_t)ry[i][j][0][e] + ((uint32_t)ry[i][j][1][e] << 8)
                        + ((uint32_t)ry[i][j][2][e] << 16) + ((uint32_t)ry[i][j][3][e] << 24);
                    if (row < m && blk < pa.blocks)
                        rhs[out0 + (size_t)row * (size_t)pa.blocks + (size_t)blk] = sum;
                }
#else
@   end
        const int live = (int)((m - r0 + 31) / 32 < 4 ? (m - r0 + 31) / 32 : 4); /* the same for the block */
        $(W) ry[4][TKHM_PROJ_JB] = {};
@   if float then
        double rz[4][TKHM_PROJ_JB] = {};
@   end
        for (int64_t qs = q0; qs < q1; qs += TKHM_PROJ_KC) {
#pragma unroll
            for (int x = 0; x < TKH_PROJECTION_TILE_ROWS * TKHM_PROJ_KC / TKHM_PROJ_AY_THREADS; ++x) {
                const unsigned e = tid + TKHM_PROJ_AY_THREADS * x;
                const unsigned r = a_along_k ? e / TKHM_PROJ_KC : e % TKH_PROJECTION_TILE_ROWS;
                const unsigned q = a_along_k ? e % TKHM_PROJ_KC : e / TKH_PROJECTION_TILE_ROWS;
                const bool in = r0 + r < m && qs + q < q1;
                s_a[q][r] = in ? ($(W))$(real(a.type, "ga[(r0 + r) * p.stride[0][2] + (qs + q) * p.stride[0][0]]")) : 0;
            }
#pragma unroll
            for (int x = 0; x < TKH_PROJECTION_TILE_BLOCKS * TKHM_PROJ_KC / TKHM_PROJ_AY_THREADS; ++x) {
                const unsigned e = tid + TKHM_PROJ_AY_THREADS * x, q = e / TKH_PROJECTION_TILE_BLOCKS, j = e % TKH_PROJECTION_TILE_BLOCKS;
                const bool in = b0 + j < pa.blocks && qs + q < q1;
                const size_t at = yb + (size_t)(qs + q) * (size_t)pa.blocks + (size_t)(b0 + j);
                s_y[q][j] = in ? ($(W))y[at] : 0;
@   if float then
                s_z[q][j] = in ? z[at] : 0;
@   end
            }
            __syncthreads();
#pragma unroll 4
            for (int q = 0; q < TKHM_PROJ_KC; ++q) {
                $(W) av[4], yv[TKHM_PROJ_JB];
@   if float then
                double zv[TKHM_PROJ_JB];
@   end
#pragma unroll
                for (int j = 0; j < TKHM_PROJ_JB; ++j) {
                    yv[j] = s_y[q][TKHM_PROJ_JB * w + j];
@   if float then
                    zv[j] = s_z[q][TKHM_PROJ_JB * w + j];
@   end
                }
#pragma unroll
                for (int i = 0; i < 4; ++i)
                    if (i < live) {
                        av[i] = s_a[q][l + 32 * i];
#pragma unroll
                        for (int j = 0; j < TKHM_PROJ_JB; ++j) {
@   if float then
                            ry[i][j] = fma(av[i], yv[j], ry[i][j]); /* one rounding: -fmad=false keeps two otherwise */
                            rz[i][j] = fma(fabs(av[i]), zv[j], rz[i][j]);
@   else
                            ry[i][j] += av[i] * yv[j];
@   end
                        }
                    }
            }
            __syncthreads(); /* before the next stage's writes */
        }
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < TKHM_PROJ_JB; ++j) {
                const int64_t row = r0 + l + 32 * i, blk = b0 + TKHM_PROJ_JB * w + j;
                if (i < live && row < m && blk < pa.blocks) {
                    rhs[out0 + (size_t)row * (size_t)pa.blocks + (size_t)blk] = ry[i][j];
@   if float then
                    mag[out0 + (size_t)row * (size_t)pa.blocks + (size_t)blk] = rz[i][j];
@   end
                }
            }
@   if mi then
#endif
@   end
    }
}

/* sum plus the chunks' partial sums of block t, added in their order: lane c holds chunk
 * c0 + c's, 32 chunks at a time (the first 32 read by the caller into 'held'). */
template <typename T> static __device__ T $(k.symbol)_proj_in_order(T sum, T held, const T *__restrict__ sums, size_t part,
    int64_t t, int64_t chunks, unsigned lane)
{
    for (int64_t c0 = 0; c0 < chunks; c0 += 32) {
        if (c0 > 0)
            held = c0 + lane < chunks ? sums[(size_t)(c0 + lane) * part + (size_t)t] : 0;
        const int most = chunks - c0 < 32 ? (int)(chunks - c0) : 32;
        for (int c = 0; c < most; ++c)
            sum += tkh_lane_at(held, (unsigned)c);
    }
    return sum;
}

/* The comparison: 32 lanes a block of one output row, reading its outputs side by side
 * (every load issued before the sums), the chunks' partial sums added in their order, the
 * bound, and the verdict folded into the result (a block of threads' sums, then one
 * thread's atomics). */
__global__ void __launch_bounds__(256) $(k.symbol)_proj_cmp($(X and ("const " .. X.type.c .. " *__restrict__ px, ") or "")const $(O.c) *__restrict__ po,
    const tkh_plan p, const tkh_projection_args pa, const uint64_t *__restrict__ wt, const $(Y) *__restrict__ rhs,
    const double *__restrict__ mag, tkh_projection_result *res)
{
    __shared__ unsigned long long s_sum[8], s_first[8], s_worst[8], s_threshold[8];
    const int64_t n = p.size[1], m = p.size[2], rows = p.count / n, total = rows * pa.blocks;
    const size_t part = (size_t)rows * (size_t)pa.blocks; /* one chunk's partial sums */
    const unsigned tid = threadIdx.x, lane = tid % 32, group = tid / 32;
    unsigned long long count = 0, fail = 0, first = ~0ull, worst = 0, threshold = 0;
    for (int64_t t = (blockIdx.x * (int64_t)blockDim.x + tid) / 32; t < total; t += (int64_t)gridDim.x * blockDim.x / 32) {
        const int64_t blk = t % pa.blocks, row = t / pa.blocks, bi = row / m, i = row % m;
        const int64_t j0 = blk * TKH_PROJECTION_BLOCK, j1 = j0 + TKH_PROJECTION_BLOCK < n ? j0 + TKH_PROJECTION_BLOCK : n;
        const $(O.c) *orow = po + $(k.symbol)_proj_batch(p, $(#k.inputs), bi) + i * p.stride[$(#k.inputs)][2];
@   if float then
        /* every load first: the chunks' partial sums (lane c holds chunk c's), then the outputs */
        const double r_held = lane < pa.chunks ? rhs[(size_t)lane * part + (size_t)t] : 0;
        const double g_held = lane < pa.chunks ? mag[(size_t)lane * part + (size_t)t] : 0;
@     if X then
        const $(X.type.c) *xrow = px + $(k.symbol)_proj_batch(p, 2, bi) + i * p.stride[2][2];
@     end
        double v[TKH_PROJECTION_BLOCK / 32], x[TKH_PROJECTION_BLOCK / 32];
        uint64_t w[TKH_PROJECTION_BLOCK / 32];
#pragma unroll
        for (int u = 0; u < TKH_PROJECTION_BLOCK / 32; ++u) {
            const int64_t j = j0 + lane + 32 * u;
            v[u] = j < j1 ? $(real(O, "orow[j * p.stride[" .. #k.inputs .. "][1]]")) : 0;
            w[u] = j < j1 ? wt[j] : 0;
@     if X then
            x[u] = pa.extra && j < j1 ? $(real(X.type, "xrow[j * p.stride[2][1]]")) : 0;
@     else
            x[u] = 0;
@     end
        }
        double lhs = 0, sabs = 0, xs = 0, cabs = 0;
#pragma unroll
        for (int u = 0; u < TKH_PROJECTION_BLOCK / 32; ++u) {
            $(k.symbol)_proj_term(w[u], v[u], lhs, sabs);
            $(k.symbol)_proj_term(w[u], x[u], xs, cabs);
        }
        for (unsigned d = 16; d > 0; d /= 2) {
            lhs += tkh_lane_xor(lhs, d);
            sabs += tkh_lane_xor(sabs, d);
            xs += tkh_lane_xor(xs, d);
            cabs += tkh_lane_xor(cabs, d);
        }
        const double r = $(k.symbol)_proj_in_order(xs, r_held, rhs, part, t, pa.chunks, lane);
        const double g = $(k.symbol)_proj_in_order(0.0, g_held, mag, part, t, pa.chunks, lane);
        const double bound = tkh_projection_bound(p.size[0], pa.nearest, j1 - j0, pa.u_acc, pa.tiny_acc, pa.u_out, pa.tiny_out, lhs, r, g,
            sabs, cabs);
        const double diff = fabs(lhs - r);
        const bool bad = !(bound >= 0 && diff <= bound);
        const unsigned long long ratio = bound > 0 && !bad
            ? (unsigned long long)__float_as_uint((float)(diff / bound)) << 32
                | (t < 0xffffffffll ? (unsigned long long)t : 0xffffffffull) : 0;
        const unsigned long long twice = bound > 0 ? (unsigned long long)__double_as_longlong(2 * bound) : 0;
        worst = ratio > worst ? ratio : worst;
        threshold = twice > threshold ? twice : threshold;
@   else
        const $(Y) r_held = lane < pa.chunks ? rhs[(size_t)lane * part + (size_t)t] : 0;
        $(Y) v[TKH_PROJECTION_BLOCK / 32];
        uint64_t w[TKH_PROJECTION_BLOCK / 32];
#pragma unroll
        for (int u = 0; u < TKH_PROJECTION_BLOCK / 32; ++u) {
            const int64_t j = j0 + lane + 32 * u;
            v[u] = j < j1 ? $(real(O, "orow[j * p.stride[" .. #k.inputs .. "][1]]")) : 0;
            w[u] = j < j1 ? wt[j] : 0;
        }
        $(Y) lhs = 0;
        double none = 0; /* integers sum no magnitudes */
#pragma unroll
        for (int u = 0; u < TKH_PROJECTION_BLOCK / 32; ++u)
            $(k.symbol)_proj_term(w[u], v[u], lhs, none);
        for (unsigned d = 16; d > 0; d /= 2)
            lhs += tkh_lane_xor(lhs, d);
        const $(Y) r = $(k.symbol)_proj_in_order(($(Y))0, r_held, rhs, part, t, pa.chunks, lane);
        const bool bad = ((lhs - r) & pa.mask) != 0;
@   end
        ++count;
        fail += bad;
        if (bad && first == ~0ull)
            first = (unsigned long long)(row * n + j0);
    }
    /* every lane of a group holds its group's values: the groups' folded, then the atomics */
    if (lane == 0) {
        s_sum[group] = count | fail << 32;
        s_first[group] = first;
        s_worst[group] = worst;
        s_threshold[group] = threshold;
    }
    __syncthreads();
    if (tid == 0) {
        for (unsigned g = 1; g < blockDim.x / 32; ++g) {
            s_sum[0] += s_sum[g];
            s_first[0] = s_first[g] < s_first[0] ? s_first[g] : s_first[0];
            s_worst[0] = s_worst[g] > s_worst[0] ? s_worst[g] : s_worst[0];
            s_threshold[0] = s_threshold[g] > s_threshold[0] ? s_threshold[g] : s_threshold[0];
        }
        atomicAdd(&res->blocks, s_sum[0] & 0xffffffffull);
        atomicAdd(&res->failed, s_sum[0] >> 32);
        atomicMin(&res->first, s_first[0]);
        atomicMax(&res->worst, s_worst[0]);
        atomicMax(&res->threshold, s_threshold[0]);
    }
}

extern "C" TKH_HIDDEN int $(k.launch)_project(const void *const *inputs, const void *output, const tkh_plan *plan,
    const tkh_projection_args *args, void *sums, tkh_projection_result *result, void *stream)
{
    const int64_t n = plan->size[1], m = plan->size[2], batch = plan->count / (n * m), rows_b = batch * plan->size[0];
    $(Y) *y = ($(Y) *)sums;
    double *z = (double *)(y + rows_b * args->blocks);
    $(Y) *rhs = ($(Y) *)(z + rows_b * args->blocks);
    double *mag = (double *)(rhs + args->chunks * batch * m * args->blocks);
    uint64_t *w = (uint64_t *)(mag + args->chunks * batch * m * args->blocks); /* n weights */
    const int64_t b_threads = rows_b * args->blocks, c_groups = batch * m * args->blocks;
    const int64_t tiles = tkh_projection_tiles(batch, m, args->blocks) * args->chunks;
    const int64_t b_blocks = b_threads / (plan->stride[1][0] == 1 ? 256 : 8) + 1; /* a thread a sum, or 32 lanes (MN-major b) */
    const unsigned b_grid = (unsigned)(b_blocks < 65536 ? b_blocks : 65536);
    const unsigned a_grid = (unsigned)(tiles < 65536 ? tiles : 65536);
    const unsigned c_grid = (unsigned)(c_groups / 8 + 1 < 2048 ? c_groups / 8 + 1 : 2048); /* at most 2048 blocks' atomics */
    const unsigned w_grid = (unsigned)(n / 256 + 1 < 1024 ? n / 256 + 1 : 1024);
    hipLaunchKernelGGL($(k.symbol)_proj_w, dim3(w_grid), dim3(256), 0, (hipStream_t)stream, args->seed, n, w);
    hipLaunchKernelGGL($(k.symbol)_proj_b, dim3(b_grid), dim3(256), 0, (hipStream_t)stream,
        (const $(b.type.c) *)inputs[1], *plan, *args, w, y, z, result);
    hipLaunchKernelGGL($(k.symbol)_proj_ay, dim3(a_grid), dim3(TKHM_PROJ_AY_THREADS), 0, (hipStream_t)stream,
        (const $(a.type.c) *)inputs[0], *plan, *args, y, z, rhs, mag);
    hipLaunchKernelGGL($(k.symbol)_proj_cmp, dim3(c_grid), dim3(256), 0, (hipStream_t)stream,
        $(X and ("(const " .. X.type.c .. " *)inputs[2], ") or "")(const $(O.c) *)output, *plan, *args, w, rhs, mag, result);
    return (int)hipGetLastError();
}

#undef TKHM_PROJ_KC
#undef TKHM_PROJ_ROW
#undef TKHM_PROJ_KB
#undef TKHM_PROJ_AY_BLOCKS
#undef TKHM_PROJ_AY_THREADS
#undef TKHM_PROJ_JB
@ end
