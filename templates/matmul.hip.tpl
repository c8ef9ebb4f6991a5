/* $(do_not_edit) */
/* $(k.op.name) over $(k.label): out[..., m, n] = epilogue(sum over k of a[..., m, k] * b$(k.b_layout == "nk" and "[..., n, k]" or "[..., k, n]"))
 * over a plan (tokitai_hip/codegen/plan.h): dimension 0 is k (reduced), 1 is n, 2 is m, the
 * rest the batch, each array at its own strides (0 where it does not step). Two kernels:
 * tiles of fused multiply-adds for any layout and target, and where the type and the
 * target have them, tiles of matrix instructions for operands in whole 16-byte chunks
 * (the launcher picks; docs/matmul.md). The accumulation is a
 * chain of $(k.type.domain == "float" and "fused multiply-adds in " .. k.acc.name or "wrapping " .. k.acc.name .. " multiply-adds") along k per output,
 * then the epilogue ($(k.epilogue)) in $(k.acc.name), stored as $(k.out_type.name). docs/matmul.md. */
#include "tokitai_hip/codegen/hip_platform.h"
#include "tokitai_hip/codegen/matrix_core.h"
#include "tokitai_hip/codegen/plan.h"
#include "$(k.oracle_header)"

@ local S, O = k.type.c, k.out_type
@ local float = k.type.domain == "float"
@ -- The accumulator as the kernel holds it: integers in their unsigned type, which wraps.
@ local R = float and k.acc.compute or k.acc.unsigned
@ local a, b = k.inputs[1], k.inputs[2]
@ local params, args = {}, {}
@ for i, x in ipairs(k.inputs) do
@   params[#params + 1] = "const " .. x.type.c .. " *__restrict__ p_" .. x.name
@   args[#args + 1] = "(const " .. x.type.c .. " *)inputs[" .. (i - 1) .. "]"
@ end
@ params[#params + 1] = O.c .. " *__restrict__ p_out"
@ args[#args + 1] = "(" .. O.c .. " *)outputs[0]"
@ for _, s in ipairs(k.scalars) do
@   params[#params + 1] = s.type.c .. " p_" .. s.name
@   args[#args + 1] = "*(const " .. s.type.c .. " *)scalars[" .. s.index .. "]"
@ end
@ local out_index = #k.inputs
@ local names = {}
@ for _, x in ipairs(k.inputs) do names[#names + 1] = "p_" .. x.name end
@ names[#names + 1] = "p_out"
@ for _, s in ipairs(k.scalars) do names[#names + 1] = "p_" .. s.name end
@ local pass = table.concat(names, ", ")
/* Output (m, n) of the tile whose arrays start at 'at': the epilogue of its sum, stored. */
static __device__ __forceinline__ void $(k.symbol)_finish($(table.concat(params, ", ")), const tkh_plan &tkhm_p,
    const int64_t *at, int64_t m, int64_t n, $(R) acc)
{
    (void)p_$(a.name);
    (void)p_$(b.name);
@ local call = { "(" .. k.acc.compute .. ")acc" }
@ for _, c in ipairs(k.extras) do
    const $(k.acc.compute) c_$(c.name) = p_$(c.name) ? ($(k.acc.compute))$(load(c.type, "p_" .. c.name .. "[at[" .. c.index .. "] + m * tkhm_p.stride[" .. c.index .. "][2] + n * tkhm_p.stride[" .. c.index .. "][1]]")) : ($(k.acc.compute))($(c.default or "0"));
@   call[#call + 1] = "c_" .. c.name
@ end
@ for _, s in ipairs(k.scalars) do call[#call + 1] = "p_" .. s.name end
    p_out[at[$(out_index)] + m * tkhm_p.stride[$(out_index)][2] + n * tkhm_p.stride[$(out_index)][1]] = $(store(O, "(" .. O.compute .. ")" .. k.oracle .. "(" .. table.concat(call, ", ") .. ")"));
}

/* Tiles of 128 x 128 outputs a block of 256 threads, each thread 8 x 8 of them (rows 4 ty
 * + i and 64 + 4 ty + i, columns likewise by tx, so that a warp's reads of a row of b's
 * tile are 16-byte vectors without bank conflicts); a's and b's tiles 8 along k at a time
 * through two shared buffers, the next tile's elements read from memory into registers
 * while the current one is multiplied. */
#define TKHM_BM 128
#define TKHM_BN 128
#define TKHM_BK 8

__global__ void __launch_bounds__(256) $(k.symbol)_tiles($(table.concat(params, ", ")), const tkh_plan tkhm_p)
{
    __shared__ __align__(16) $(R) tkhm_as[2][TKHM_BK][TKHM_BM];
    __shared__ __align__(16) $(R) tkhm_bs[2][TKHM_BK][TKHM_BN];
    const int64_t tkhm_k = tkhm_p.size[0], tkhm_n = tkhm_p.size[1], tkhm_m = tkhm_p.size[2];
    const int64_t tkhm_tn = (tkhm_n + TKHM_BN - 1) / TKHM_BN, tkhm_tm = (tkhm_m + TKHM_BM - 1) / TKHM_BM;
    const int64_t tkhm_tiles = tkhm_tn * tkhm_tm * (tkhm_p.count / (tkhm_n * tkhm_m));
    const int64_t a_k = tkhm_p.stride[0][0], a_m = tkhm_p.stride[0][2];
    const int64_t b_k = tkhm_p.stride[1][0], b_n = tkhm_p.stride[1][1];
    const unsigned tid = threadIdx.x, tx = tid % 16, ty = tid / 16;
    /* this thread's 4 elements of each k tile: along k where that is contiguous, else along m (n) */
    const bool a_along_k = a_k == 1, b_along_k = b_n != 1;
    for (int64_t tile = blockIdx.x; tile < tkhm_tiles; tile += gridDim.x) {
        /* the tile's batch, then its place in the m x n plane */
        int64_t rest = tile / (tkhm_tn * tkhm_tm), at[$(#k.inputs + 1)] = { 0 };
        for (int d = 3; d < tkhm_p.ndim; ++d) {
            const int64_t i = rest % tkhm_p.size[d];
            rest /= tkhm_p.size[d];
            for (int x = 0; x < $(#k.inputs + 1); ++x)
                at[x] += i * tkhm_p.stride[x][d];
        }
        const int64_t in_plane = tile % (tkhm_tn * tkhm_tm);
        const int64_t m0 = in_plane / tkhm_tn * TKHM_BM, n0 = in_plane % tkhm_tn * TKHM_BN;
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

@ if float and k.type.bits == 16 then
/* On NVIDIA sm_80 and later: tiles of 128 x 256 outputs a block of 8 warps (2 along m, 4
 * along n), each warp 64 x 64 of them as 4 x 8 mma.sync m16n8k16 tiles (f32 accumulators);
 * a's and b's tiles 32 along k at a time through dynamic shared memory in TKHM_STAGES
 * stages of asynchronous copies, each operand K-major (k contiguous) or MN-major (m or n
 * contiguous) as it lies (AK, BK), read by ldmatrix (transposed for MN-major). Shared rows
 * keep their 16-byte chunks rotated so that ldmatrix's 8 rows fall in 8 different bank
 * groups: K-major rows (4 chunks) by row / 2, MN-major rows by the row. The launcher takes
 * this kernel only where every chunk is whole and aligned (docs/matmul.md). */
#define TKHM_STAGES 4
#define TKHM_A_TILE (128 * 32) /* elements of a stage's a tile, then its b tile of 256 x 32 */
#define TKHM_STAGE (TKHM_A_TILE + 256 * 32)
#define TKHM_KMAJOR(row, chunk) ((((row) << 2) + ((chunk) ^ (((row) >> 1) & 3))) << 3)
#define TKHM_MNMAJOR(row, chunk, per_row) ((((row) * (per_row)) + ((chunk) ^ ((row) & 7))) << 3)

template <bool AK, bool BK>
__global__ void __launch_bounds__(256) $(k.symbol)_mma($(table.concat(params, ", ")), const tkh_plan tkhm_p)
{
#if defined(TKH_HAS_MMA_SYNC)
    extern __shared__ __align__(128) uint16_t tkhm_s[];
    const int64_t tkhm_k = tkhm_p.size[0], tkhm_n = tkhm_p.size[1], tkhm_m = tkhm_p.size[2];
    const int64_t tkhm_tn = (tkhm_n + 255) / 256, tkhm_tm = (tkhm_m + 127) / 128, plane = tkhm_tn * tkhm_tm;
    const int64_t tkhm_tiles = plane * (tkhm_p.count / (tkhm_n * tkhm_m)), ktiles = (tkhm_k + 31) / 32;
    const int64_t a_k = tkhm_p.stride[0][0], a_m = tkhm_p.stride[0][2];
    const int64_t b_k = tkhm_p.stride[1][0], b_n = tkhm_p.stride[1][1];
    const unsigned tid = threadIdx.x, lane = tid % 32, wm = tid / 128, wn = tid / 32 % 4;
    for (int64_t tile = blockIdx.x; tile < tkhm_tiles; tile += gridDim.x) {
        int64_t rest = tile / plane, at[$(#k.inputs + 1)] = { 0 };
        for (int d = 3; d < tkhm_p.ndim; ++d) {
            const int64_t i = rest % tkhm_p.size[d];
            rest /= tkhm_p.size[d];
            for (int x = 0; x < $(#k.inputs + 1); ++x)
                at[x] += i * tkhm_p.stride[x][d];
        }
        /* tiles in groups of 8 along m, so that neighbouring blocks share a's and b's tiles in L2 */
        const int64_t in_plane = tile % plane, group = in_plane / (8 * tkhm_tn);
        const int64_t rows = tkhm_tm - group * 8 < 8 ? tkhm_tm - group * 8 : 8, in_group = in_plane % (8 * tkhm_tn);
        const int64_t m0 = (group * 8 + in_group % rows) * 128, n0 = in_group / rows * 256;
        const uint16_t *ga = (const uint16_t *)p_$(a.name) + at[0], *gb = (const uint16_t *)p_$(b.name) + at[1];
        /* this thread's chunks of each k tile (2 of a's 512, 4 of b's 1024): where they lie
         * in shared memory, where the first tile's are in memory, whether they are within m
         * (n), and their offset along k; each fetch takes the next k tile into stage st */
        const uint16_t *a_src[2], *b_src[4];
        unsigned a_dst[2], b_dst[4], a_kq[2], b_kq[4];
        bool a_in[2], b_in[4];
        const int64_t a_step = AK ? 32 : 32 * a_k, b_step = BK ? 32 : 32 * b_k;
#pragma unroll
        for (unsigned i = 0; i < 2; ++i) {
            const unsigned e = tid + 256 * i, r = AK ? e >> 2 : e >> 4, c = AK ? e & 3 : e & 15;
            const int64_t m = m0 + (AK ? r : c * 8);
            a_kq[i] = AK ? c * 8 : r;
            a_in[i] = m < tkhm_m;
            a_dst[i] = AK ? TKHM_KMAJOR(r, c) : TKHM_MNMAJOR(r, c, 16);
            a_src[i] = ga + (a_in[i] ? (AK ? m * a_m + a_kq[i] : a_kq[i] * a_k + m) : 0);
        }
#pragma unroll
        for (unsigned i = 0; i < 4; ++i) {
            const unsigned e = tid + 256 * i, r = BK ? e >> 2 : e >> 5, c = BK ? e & 3 : e & 31;
            const int64_t n = n0 + (BK ? r : c * 8);
            b_kq[i] = BK ? c * 8 : r;
            b_in[i] = n < tkhm_n;
            b_dst[i] = BK ? TKHM_KMAJOR(r, c) : TKHM_MNMAJOR(r, c, 32);
            b_src[i] = gb + (b_in[i] ? (BK ? n * b_n + b_kq[i] : b_kq[i] * b_k + n) : 0);
        }
        int64_t k_next = 0;
        auto fetch = [&](int st) {
            uint16_t *sa = tkhm_s + st * TKHM_STAGE, *sb = sa + TKHM_A_TILE;
#pragma unroll
            for (unsigned i = 0; i < 2; ++i) {
                const bool ok = a_in[i] && k_next + a_kq[i] < tkhm_k;
                tkh_copy16_async(sa + a_dst[i], ok ? a_src[i] : ga, ok);
                a_src[i] += a_step;
            }
#pragma unroll
            for (unsigned i = 0; i < 4; ++i) {
                const bool ok = b_in[i] && k_next + b_kq[i] < tkhm_k;
                tkh_copy16_async(sb + b_dst[i], ok ? b_src[i] : gb, ok);
                b_src[i] += b_step;
            }
            k_next += 32;
        };
        float acc[4][8][4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    acc[i][j][e] = 0;
#pragma unroll
        for (int st = 0; st < TKHM_STAGES - 1; ++st) {
            if (st < ktiles)
                fetch(st);
            tkh_copy_commit();
        }
        for (int64_t kt = 0; kt < ktiles; ++kt) {
            tkh_copy_wait<TKHM_STAGES - 2>(); /* tile kt is in (its group and those before it) */
            __syncthreads(); /* and every warp is done with the stage the next fetch fills */
            if (kt + TKHM_STAGES - 1 < ktiles)
                fetch((int)((kt + TKHM_STAGES - 1) % TKHM_STAGES));
            tkh_copy_commit();
            const uint16_t *sa = tkhm_s + (kt % TKHM_STAGES) * TKHM_STAGE, *sb = sa + TKHM_A_TILE;
            /* both halves of the k tile's fragments first, then their 64 products: the second
             * half's loads complete under the first half's products */
            uint32_t fa[2][4][4], fb[2][8][2];
#pragma unroll
            for (unsigned h = 0; h < 2; ++h) {
                const unsigned kk = 16 * h;
#pragma unroll
                for (unsigned i = 0; i < 4; ++i) { /* a: 16 x 16 at rows wm * 64 + 16 i */
                    const unsigned base = wm * 64 + i * 16;
                    if (AK)
                        tkh_load_matrices(fa[h][i], sa + TKHM_KMAJOR(base + lane % 16, (kk + lane / 16 * 8) / 8), false);
                    else
                        tkh_load_matrices(fa[h][i], sa + TKHM_MNMAJOR(kk + lane % 8 + lane / 16 * 8,
                            (base + lane / 8 % 2 * 8) / 8, 16), true);
                }
#pragma unroll
                for (unsigned j = 0; j < 4; ++j) { /* b: 16 x 16 at columns wn * 64 + 16 j, two n8 tiles */
                    const unsigned base = wn * 64 + j * 16;
                    uint32_t r[4];
                    if (BK)
                        tkh_load_matrices(r, sb + TKHM_KMAJOR(base + lane % 8 + lane / 16 * 8, (kk + lane / 8 % 2 * 8) / 8),
                            false);
                    else
                        tkh_load_matrices(r, sb + TKHM_MNMAJOR(kk + lane % 8 + lane / 8 % 2 * 8, (base + lane / 16 * 8) / 8,
                            32), true);
                    fb[h][2 * j][0] = r[0];
                    fb[h][2 * j][1] = r[1];
                    fb[h][2 * j + 1][0] = r[2];
                    fb[h][2 * j + 1][1] = r[3];
                }
            }
#pragma unroll
            for (unsigned h = 0; h < 2; ++h)
#pragma unroll
                for (int i = 0; i < 4; ++i)
#pragma unroll
                    for (int j = 0; j < 8; ++j)
                        tkh_mma_16816<$(k.type.name == "bf16" and "true" or "false")>(acc[i][j], fa[h][i], fb[h][j]);
        }
        tkh_copy_wait<0>();
        __syncthreads(); /* before the next tile's fetches */
        /* accumulator e of tile (i, j): row lane / 4 (+ 8 for e >= 2), column 2 (lane % 4) + e % 2 */
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int64_t m = m0 + wm * 64 + i * 16 + lane / 4 + (e >= 2 ? 8 : 0);
                    const int64_t n = n0 + wn * 64 + j * 8 + 2 * (lane % 4) + e % 2;
                    if (m < tkhm_m && n < tkhm_n)
                        $(k.symbol)_finish($(pass), tkhm_p, at, m, n, acc[i][j][e]);
                }
    }
#endif
}

/* Whether the mma kernel takes this plan on this device, and how a and b lie: each K-major
 * or MN-major with its other strides (the batch's too) in whole 16-byte chunks, its base
 * aligned to 16 bytes, and the contiguous dimension's chunks whole (a multiple of 8). */
static int $(k.symbol)_mma_fits(const void *const *inputs, const tkh_plan *p, int *a_kmajor, int *b_kmajor)
{
#if defined(TKH_PLATFORM_NVIDIA)
    int device = 0, major = 0;
    if (hipGetDevice(&device) != hipSuccess
        || hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, device) != hipSuccess || major < 8)
        return 0;
    const int64_t k = p->size[0], n = p->size[1], m = p->size[2];
    const int64_t a_k = p->stride[0][0], a_m = p->stride[0][2], b_k = p->stride[1][0], b_n = p->stride[1][1];
    for (int d = 3; d < p->ndim; ++d)
        if (p->stride[0][d] % 8 != 0 || p->stride[1][d] % 8 != 0)
            return 0;
    if (((uintptr_t)inputs[0] | (uintptr_t)inputs[1]) % 16 != 0)
        return 0;
    *a_kmajor = a_k == 1 && a_m % 8 == 0 && k % 8 == 0;
    *b_kmajor = b_k == 1 && b_n % 8 == 0 && k % 8 == 0;
    return (*a_kmajor || (a_m == 1 && a_k % 8 == 0 && m % 8 == 0))
        && (*b_kmajor || (b_n == 1 && b_k % 8 == 0 && n % 8 == 0));
#else
    (void)inputs;
    (void)p;
    (void)a_kmajor;
    (void)b_kmajor;
    return 0;
#endif
}

/* The mma kernel for a's and b's layouts, with its shared memory (past 48 KB: opted in). */
static int $(k.symbol)_mma_launch(int a_kmajor, int b_kmajor, unsigned grid, void *stream, $(table.concat(params, ", ")),
    const tkh_plan *plan)
{
    void (*const kernels[4])($(table.concat(params, ", ")), const tkh_plan) = { $(k.symbol)_mma<false, false>,
        $(k.symbol)_mma<false, true>, $(k.symbol)_mma<true, false>, $(k.symbol)_mma<true, true> };
    void (*const kernel)($(table.concat(params, ", ")), const tkh_plan) = kernels[2 * a_kmajor + b_kmajor];
    const size_t bytes = TKHM_STAGES * TKHM_STAGE * sizeof(uint16_t);
    hipError_t e = hipFuncSetAttribute((const void *)kernel, hipFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e != hipSuccess)
        return (int)e;
    hipLaunchKernelGGL(kernel, dim3(grid), dim3(256), bytes, (hipStream_t)stream, $(pass), *plan);
    return (int)hipGetLastError();
}

#undef TKHM_STAGES
#undef TKHM_A_TILE
#undef TKHM_STAGE
#undef TKHM_KMAJOR
#undef TKHM_MNMAJOR
@ end
/* The launcher over a plan of three dimensions or more (k, n, m, then the batch), blocks
 * of 256 threads: the mma kernel where it fits, else the FMA tiles. */
extern "C" TKH_HIDDEN int $(k.launch)_plan(const void *const *inputs, void *const *outputs,
    const void *const *scalars, const tkh_plan *plan, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars;
    (void)scratch;
    if (plan->reduced != 1 || plan->ndim < 3 || grid == 0 || block != 256)
        return (int)hipErrorInvalidValue;
@ if float and k.type.bits == 16 then
    int a_kmajor = 0, b_kmajor = 0;
    if ($(k.symbol)_mma_fits(inputs, plan, &a_kmajor, &b_kmajor)) {
        const int64_t plane = (plan->size[1] + 255) / 256 * ((plan->size[2] + 127) / 128);
        const int64_t tiles = plane * (plan->count / (plan->size[1] * plan->size[2]));
        const unsigned blocks = tiles < (int64_t)grid ? (unsigned)(tiles > 0 ? tiles : 1) : grid;
        return $(k.symbol)_mma_launch(a_kmajor, b_kmajor, blocks, stream, $(table.concat(args, ", ")), plan);
    }
@ end
    hipLaunchKernelGGL($(k.symbol)_tiles, dim3(grid), dim3(block), 0, (hipStream_t)stream, $(table.concat(args, ", ")), *plan);
    return (int)hipGetLastError();
}

#undef TKHM_BM
#undef TKHM_BN
#undef TKHM_BK
