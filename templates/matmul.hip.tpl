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
#include "tokitai_hip/codegen/projection.h"
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

/* Tile 'tile' of tiles of bm x bn outputs over the plan: the offsets of its batch in each
 * array (at), and its first output (m0, n0). The tiles of a plane go in groups of 8 along m,
 * so that neighbouring blocks share a's and b's tiles in L2. */
static __device__ __forceinline__ void $(k.symbol)_place(const tkh_plan &p, int64_t tile, int64_t bm, int64_t bn,
    int64_t *at, int64_t &m0, int64_t &n0)
{
    const int64_t tn = (p.size[1] + bn - 1) / bn, tm = (p.size[2] + bm - 1) / bm, plane = tn * tm;
    int64_t rest = tile / plane;
    for (int x = 0; x < $(#k.inputs + 1); ++x)
        at[x] = 0;
    for (int d = 3; d < p.ndim; ++d) {
        const int64_t i = rest % p.size[d];
        rest /= p.size[d];
        for (int x = 0; x < $(#k.inputs + 1); ++x)
            at[x] += i * p.stride[x][d];
    }
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

__global__ void __launch_bounds__(256) $(k.symbol)_tiles($(table.concat(params, ", ")), const tkh_plan tkhm_p)
{
    __shared__ __align__(16) $(R) tkhm_as[2][TKHM_BK][TKHM_BM];
    __shared__ __align__(16) $(R) tkhm_bs[2][TKHM_BK][TKHM_BN];
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

@ -- The matrix-instruction kernel of this type, if any (NVIDIA sm_80 and later): 16-bit floats
@ -- and i8 on warp tiles of mma.sync (chunks of 8 or 16 elements), f64 on m16n8k8 tiles.
@ local mma = (float and k.type.bits == 16 and k.acc.name == "f32" and { epc = 8, e = "uint16_t", bm = 128, bn = 256 })
@   or (k.type.name == "i8" and k.acc.name == "i32" and { epc = 16, e = "int8_t", bm = 128, bn = 256 })
@   or (k.type.name == "f64" and k.acc.name == "f64" and { epc = 2, e = "double", bm = 128, bn = 128 })
@ if mma then
/* Where a and b lie in shared memory: a stage holds a's tile and b's tile (rows of 64 bytes
 * along k when an operand is K-major, k contiguous; rows along m (n), one per k, when it is
 * MN-major), filled by asynchronous copies of 16-byte chunks of TKHM_EPC elements, each
 * chunk of a row moved by the row's swizzle so that the 8 (or 16) rows a warp reads at
 * once fall in different banks. */
#define TKHM_EPC $(mma.epc)
@ if mma.epc == 2 then
#define TKHM_KT 16 /* k of a stage: rows of 8 chunks when K-major */
#define TKHM_STAGES 4
/* rows padded by 2 chunks, so that the 16 lanes of a load (4 rows, 2 chunks each) fall in 8
 * chunks of different banks, at places affine in the row and chunk */
#define TKHM_SPLACE(row, chunk, per_row) (((row) * ((per_row) + 2) + (chunk)) * TKHM_EPC)
#define TKHM_KMAJOR(row, chunk) TKHM_SPLACE(row, chunk, 8)
#define TKHM_MNMAJOR TKHM_SPLACE
@ else
#define TKHM_KT (4 * TKHM_EPC) /* k of a stage: rows of 4 chunks when K-major */
#define TKHM_STAGES 4
#define TKHM_KMAJOR(row, chunk) ((((row) << 2) + ((chunk) ^ (((row) >> 1) & 3))) * TKHM_EPC)
@   if mma.epc == 8 then
#define TKHM_SWIZZLE(row) ((row) & 7) /* ldmatrix's 8 rows: 8 successive k */
@   else
#define TKHM_SWIZZLE(row) (((row) & 1) | (((row) >> 1) & 6)) /* ldmatrix's 8 rows: k 4q + {0, 1} (or {2, 3}) */
@   end
#define TKHM_MNMAJOR(row, chunk, per_row) (((row) * (per_row) + ((chunk) ^ TKHM_SWIZZLE(row))) * TKHM_EPC)
@ end
#define TKHM_MT $(mma.bm)
#define TKHM_NT $(mma.bn)
@ if mma.epc == 2 then
#define TKHM_A_TILE (128 * 10 * TKHM_EPC) /* a stage's a tile (K-major 128 rows of 10 chunks, MN-major 16 of 66), then b's */
#define TKHM_STAGE (2 * TKHM_A_TILE)
@ else
#define TKHM_A_TILE (TKHM_MT * TKHM_KT) /* elements of a stage's a tile, then its b tile */
#define TKHM_STAGE (TKHM_A_TILE + TKHM_NT * TKHM_KT)
@ end

@ if mma.epc == 2 then
/* Tiles of 128 x 128 outputs a block of 8 warps (2 along m, 4 along n), each warp 64 x 32
 * of them as 4 x 4 tiles of m16n8k8 in f64 (tkh_mma_1688_f64); a's and b's tiles 16 along
 * k through TKHM_STAGES stages of asynchronous copies, read an element a lane a load. */
@ else
/* Tiles of 128 x 256 outputs a block of 8 warps (2 along m, 4 along n), each warp 64 x 64
 * of them as 4 x 8 mma.sync $(mma.epc == 8 and "m16n8k16 tiles (f32 accumulators)" or "m16n8k32 tiles (s32 accumulators)");
 * a's and b's tiles TKHM_KT along k through TKHM_STAGES stages of asynchronous copies, read by
 * ldmatrix (transposed for MN-major operands). The launcher takes this kernel only where
 * every chunk is whole and aligned (docs/matmul.md). */
@ end
template <bool AK, bool BK>
__global__ void __launch_bounds__(256) $(k.symbol)_mma($(table.concat(params, ", ")), const tkh_plan tkhm_p)
{
#if defined(TKH_HAS_MMA_SYNC)
    extern __shared__ __align__(128) unsigned char tkhm_smem[]; /* one name for every kernel of a unit */
    $(mma.e) *const tkhm_s = ($(mma.e) *)tkhm_smem;
    const int64_t tkhm_k = tkhm_p.size[0], tkhm_n = tkhm_p.size[1], tkhm_m = tkhm_p.size[2];
    const int64_t tkhm_tiles = (tkhm_n + TKHM_NT - 1) / TKHM_NT * ((tkhm_m + TKHM_MT - 1) / TKHM_MT)
        * (tkhm_p.count / (tkhm_n * tkhm_m));
    const int64_t ktiles = (tkhm_k + TKHM_KT - 1) / TKHM_KT;
    const int64_t a_k = tkhm_p.stride[0][0], a_m = tkhm_p.stride[0][2];
    const int64_t b_k = tkhm_p.stride[1][0], b_n = tkhm_p.stride[1][1];
    const unsigned tid = threadIdx.x, lane = tid % 32, wm = tid / 128, wn = tid / 32 % 4;
    /* chunks of a stage: each operand's rows (K-major: TKHM_KT / TKHM_EPC chunks; MN-major:
     * a row of the tile along m or n), a thread's share of each */
    constexpr unsigned a_row = AK ? TKHM_KT / TKHM_EPC : TKHM_MT / TKHM_EPC, b_row = BK ? TKHM_KT / TKHM_EPC : TKHM_NT / TKHM_EPC;
    constexpr unsigned a_chunks = TKHM_MT * TKHM_KT / TKHM_EPC / 256, b_chunks = TKHM_NT * TKHM_KT / TKHM_EPC / 256;
    for (int64_t tile = blockIdx.x; tile < tkhm_tiles; tile += gridDim.x) {
        int64_t at[$(#k.inputs + 1)], m0, n0;
        $(k.symbol)_place(tkhm_p, tile, TKHM_MT, TKHM_NT, at, m0, n0);
        const $(mma.e) *ga = (const $(mma.e) *)p_$(a.name) + at[0], *gb = (const $(mma.e) *)p_$(b.name) + at[1];
        /* this thread's chunks of each k tile: where they lie in shared memory, where the first
         * tile's are in memory, whether they are within m (n), and their offset along k; each
         * fetch takes the next k tile into stage st */
        const $(mma.e) *a_src[a_chunks], *b_src[b_chunks];
        unsigned a_dst[a_chunks], b_dst[b_chunks], a_kq[a_chunks], b_kq[b_chunks];
        bool a_in[a_chunks], b_in[b_chunks];
        const int64_t a_step = AK ? TKHM_KT : TKHM_KT * a_k, b_step = BK ? TKHM_KT : TKHM_KT * b_k;
#pragma unroll
        for (unsigned i = 0; i < a_chunks; ++i) {
            const unsigned e = tid + 256 * i, r = e / a_row, c = e % a_row;
            const int64_t m = m0 + (AK ? r : c * TKHM_EPC);
            a_kq[i] = AK ? c * TKHM_EPC : r;
            a_in[i] = m < tkhm_m;
            a_dst[i] = AK ? TKHM_KMAJOR(r, c) : TKHM_MNMAJOR(r, c, a_row);
            a_src[i] = ga + (a_in[i] ? (AK ? m * a_m + a_kq[i] : a_kq[i] * a_k + m) : 0);
        }
#pragma unroll
        for (unsigned i = 0; i < b_chunks; ++i) {
            const unsigned e = tid + 256 * i, r = e / b_row, c = e % b_row;
            const int64_t n = n0 + (BK ? r : c * TKHM_EPC);
            b_kq[i] = BK ? c * TKHM_EPC : r;
            b_in[i] = n < tkhm_n;
            b_dst[i] = BK ? TKHM_KMAJOR(r, c) : TKHM_MNMAJOR(r, c, b_row);
            b_src[i] = gb + (b_in[i] ? (BK ? n * b_n + b_kq[i] : b_kq[i] * b_k + n) : 0);
        }
        int64_t k_next = 0;
        auto fetch = [&](int st) {
            $(mma.e) *sa = tkhm_s + st * TKHM_STAGE, *sb = sa + TKHM_A_TILE;
#pragma unroll
            for (unsigned i = 0; i < a_chunks; ++i) {
                const bool ok = a_in[i] && k_next + a_kq[i] < tkhm_k;
                tkh_copy16_async(sa + a_dst[i], ok ? a_src[i] : ga, ok);
                a_src[i] += a_step;
            }
#pragma unroll
            for (unsigned i = 0; i < b_chunks; ++i) {
                const bool ok = b_in[i] && k_next + b_kq[i] < tkhm_k;
                tkh_copy16_async(sb + b_dst[i], ok ? b_src[i] : gb, ok);
                b_src[i] += b_step;
            }
            k_next += TKHM_KT;
        };
        $(mma.epc == 2 and "double" or mma.epc == 8 and "float" or "int") acc[4][$(mma.epc == 2 and 4 or 8)][4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < $(mma.epc == 2 and 4 or 8); ++j)
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
            const $(mma.e) *sa = tkhm_s + (kt % TKHM_STAGES) * TKHM_STAGE, *sb = sa + TKHM_A_TILE;
@ if mma.epc == 2 then
            /* the stage's k in two halves; a lane's elements of the fragments
             * (tkh_mma_1688_f64): rows (columns) g + 8 r, k 8 h + t + 4 s */
            const unsigned g = lane / 4, t = lane % 4;
#pragma unroll
            for (unsigned h = 0; h < 2; ++h) {
                double fb[4][2];
#pragma unroll
                for (unsigned j = 0; j < 4; ++j)
#pragma unroll
                    for (unsigned s = 0; s < 2; ++s) {
                        const unsigned n = wn * 32 + 8 * j + g, kq = 8 * h + t + 4 * s;
                        fb[j][s] = sb[BK ? TKHM_KMAJOR(n, kq / 2) + kq % 2 : TKHM_MNMAJOR(kq, n / 2, b_row) + n % 2];
                    }
#pragma unroll
                for (unsigned i = 0; i < 4; ++i) {
                    double fa[4];
#pragma unroll
                    for (unsigned v = 0; v < 4; ++v) {
                        const unsigned m = wm * 64 + 16 * i + g + 8 * (v % 2), kq = 8 * h + t + 4 * (v / 2);
                        fa[v] = sa[AK ? TKHM_KMAJOR(m, kq / 2) + kq % 2 : TKHM_MNMAJOR(kq, m / 2, a_row) + m % 2];
                    }
#pragma unroll
                    for (unsigned j = 0; j < 4; ++j)
                        tkh_mma_1688_f64(acc[i][j], fa, fb[j]);
                }
            }
        }
        tkh_copy_wait<0>();
        __syncthreads(); /* before the next tile's fetches */
        /* accumulator e of tile (i, j): row lane / 4 (+ 8 for e >= 2), column 2 (lane % 4) + e % 2 */
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const int64_t m = m0 + wm * 64 + i * 16 + lane / 4 + (e >= 2 ? 8 : 0);
                    const int64_t n = n0 + wn * 32 + j * 8 + 2 * (lane % 4) + e % 2;
                    if (m < tkhm_m && n < tkhm_n)
                        $(k.symbol)_finish($(pass), tkhm_p, at, m, n, acc[i][j][e]);
                }
@ else
            /* both 32-byte halves of the k tile's fragments first, then their 64 products: the
             * second half's loads complete under the first half's products */
            uint32_t fa[2][4][4], fb[2][8][2];
#pragma unroll
            for (unsigned h = 0; h < 2; ++h) {
@   if mma.epc == 16 then
                /* MN-major i8: ldmatrix.trans of rows k = 4q + {0, 1} and 4q + {2, 3} gives a lane
                 * the 2 x 2 bytes (k 4t + {0, 1} or + {2, 3}, columns 2g, 2g + 1); bytes picked
                 * from both make k 4t..4t + 3 of column 2g, and of 2g + 1: a fragment's row (or
                 * column) g is then the tile's 2g, and its row g + 8 (or next tile) the 2g + 1 */
                const unsigned q = lane / 8, r = lane % 8;
                const unsigned k_row = 32 * h + 16 * (q / 2) + 4 * (r / 2) + 2 * (q % 2) + r % 2;
@   end
#pragma unroll
                for (unsigned i = 0; i < 4; ++i) { /* a: 16 rows at wm * 64 + 16 i */
                    const unsigned base = wm * 64 + i * 16;
                    if (AK)
                        tkh_load_matrices(fa[h][i], sa + TKHM_KMAJOR(base + lane % 16, 2 * h + lane / 16), false);
                    else {
@   if mma.epc == 8 then
                        tkh_load_matrices(fa[h][i], sa + TKHM_MNMAJOR(16 * h + lane % 8 + lane / 16 * 8,
                            base / 8 + lane / 8 % 2, a_row), true);
@   else
                        uint32_t x[4];
                        tkh_load_matrices(x, sa + TKHM_MNMAJOR(k_row, base / 16, a_row), true);
                        fa[h][i][0] = tkh_bytes(x[0], x[1], 0x6420);
                        fa[h][i][1] = tkh_bytes(x[0], x[1], 0x7531);
                        fa[h][i][2] = tkh_bytes(x[2], x[3], 0x6420);
                        fa[h][i][3] = tkh_bytes(x[2], x[3], 0x7531);
@   end
                    }
                }
#pragma unroll
                for (unsigned j = 0; j < 4; ++j) { /* b: 16 columns at wn * 64 + 16 j, two n8 tiles */
                    const unsigned base = wn * 64 + j * 16;
                    uint32_t x[4];
                    if (BK) {
                        tkh_load_matrices(x, sb + TKHM_KMAJOR(base + lane % 8 + lane / 16 * 8, 2 * h + lane / 8 % 2), false);
                        fb[h][2 * j][0] = x[0];
                        fb[h][2 * j][1] = x[1];
                        fb[h][2 * j + 1][0] = x[2];
                        fb[h][2 * j + 1][1] = x[3];
                    } else {
@   if mma.epc == 8 then
                        tkh_load_matrices(x, sb + TKHM_MNMAJOR(16 * h + lane % 8 + lane / 8 % 2 * 8, base / 8 + lane / 16,
                            b_row), true);
                        fb[h][2 * j][0] = x[0];
                        fb[h][2 * j][1] = x[1];
                        fb[h][2 * j + 1][0] = x[2];
                        fb[h][2 * j + 1][1] = x[3];
@   else
                        tkh_load_matrices(x, sb + TKHM_MNMAJOR(k_row, base / 16, b_row), true);
                        fb[h][2 * j][0] = tkh_bytes(x[0], x[1], 0x6420);
                        fb[h][2 * j][1] = tkh_bytes(x[2], x[3], 0x6420);
                        fb[h][2 * j + 1][0] = tkh_bytes(x[0], x[1], 0x7531);
                        fb[h][2 * j + 1][1] = tkh_bytes(x[2], x[3], 0x7531);
@   end
                    }
                }
            }
#pragma unroll
            for (unsigned h = 0; h < 2; ++h)
#pragma unroll
                for (int i = 0; i < 4; ++i)
#pragma unroll
                    for (int j = 0; j < 8; ++j)
@   if mma.epc == 8 then
                        tkh_mma_16816<$(k.type.name == "bf16" and "true" or "false")>(acc[i][j], fa[h][i], fb[h][j]);
@   else
                        tkh_mma_16832_s8(acc[i][j], fa[h][i], fb[h][j]);
@   end
        }
        tkh_copy_wait<0>();
        __syncthreads(); /* before the next tile's fetches */
        /* accumulator e of tile (i, j): row lane / 4 (+ 8 for e >= 2), column 2 (lane % 4) + e % 2
         * of the fragments' order (an MN-major i8 operand's rows or columns interleaved, above) */
        constexpr bool a_paired = !AK && TKHM_EPC == 16, b_paired = !BK && TKHM_EPC == 16;
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    const unsigned row = a_paired ? 2 * (lane / 4) + (e >= 2) : lane / 4 + (e >= 2 ? 8 : 0);
                    const unsigned col = b_paired ? j / 2 * 16 + 4 * (lane % 4) + 2 * (e % 2) + j % 2
                                                  : j * 8 + 2 * (lane % 4) + e % 2;
                    const int64_t m = m0 + wm * 64 + i * 16 + row, n = n0 + wn * 64 + col;
                    if (m < tkhm_m && n < tkhm_n)
                        $(k.symbol)_finish($(pass), tkhm_p, at, m, n, ($(R))acc[i][j][e]);
                }
@ end
    }
#endif
}

/* Whether the mma kernel takes this plan on this device, and how a and b lie: each K-major
 * or MN-major with its other strides (the batch's too) in whole 16-byte chunks, its base
 * aligned to 16 bytes, and the contiguous dimension's chunks whole (a multiple of
 * TKHM_EPC elements). */
static int $(k.symbol)_mma_fits(const void *const *inputs, const tkh_plan *p, int *a_kmajor, int *b_kmajor)
{
#if defined(TKH_PLATFORM_NVIDIA)
    int device = 0, major = 0;
    if (hipGetDevice(&device) != hipSuccess
        || hipDeviceGetAttribute(&major, hipDeviceAttributeComputeCapabilityMajor, device) != hipSuccess || major < 8)
        return 0;
    const int64_t k = p->size[0], n = p->size[1], m = p->size[2], c = TKHM_EPC;
    const int64_t a_k = p->stride[0][0], a_m = p->stride[0][2], b_k = p->stride[1][0], b_n = p->stride[1][1];
    for (int d = 3; d < p->ndim; ++d)
        if (p->stride[0][d] % c != 0 || p->stride[1][d] % c != 0)
            return 0;
    if (((uintptr_t)inputs[0] | (uintptr_t)inputs[1]) % 16 != 0)
        return 0;
    *a_kmajor = a_k == 1 && a_m % c == 0 && k % c == 0;
    *b_kmajor = b_k == 1 && b_n % c == 0 && k % c == 0;
    return (*a_kmajor || (a_m == 1 && a_k % c == 0 && m % c == 0))
        && (*b_kmajor || (b_n == 1 && b_k % c == 0 && n % c == 0));
#else
    (void)inputs;
    (void)p;
    (void)a_kmajor;
    (void)b_kmajor;
    return 0;
#endif
}

/* The mma kernel for a's and b's layouts, with its shared memory (past 48 KB: opted in),
 * over at most 'grid' blocks. */
static int $(k.symbol)_mma_launch(int a_kmajor, int b_kmajor, unsigned grid, void *stream, $(table.concat(params, ", ")),
    const tkh_plan *plan)
{
    void (*const kernels[4])($(table.concat(params, ", ")), const tkh_plan) = { $(k.symbol)_mma<false, false>,
        $(k.symbol)_mma<false, true>, $(k.symbol)_mma<true, false>, $(k.symbol)_mma<true, true> };
    void (*const kernel)($(table.concat(params, ", ")), const tkh_plan) = kernels[2 * a_kmajor + b_kmajor];
    const size_t bytes = TKHM_STAGES * TKHM_STAGE * sizeof($(mma.e));
    hipError_t e = hipFuncSetAttribute((const void *)kernel, hipFuncAttributeMaxDynamicSharedMemorySize, (int)bytes);
    if (e != hipSuccess)
        return (int)e;
    const int64_t tiles = (plan->size[1] + TKHM_NT - 1) / TKHM_NT * ((plan->size[2] + TKHM_MT - 1) / TKHM_MT)
        * (plan->count / (plan->size[1] * plan->size[2]));
    const unsigned blocks = tiles < (int64_t)grid ? (unsigned)(tiles > 0 ? tiles : 1) : grid;
    hipLaunchKernelGGL(kernel, dim3(blocks), dim3(256), bytes, (hipStream_t)stream, $(pass), *plan);
    return (int)hipGetLastError();
}

#undef TKHM_EPC
#undef TKHM_KT
#undef TKHM_STAGES
#undef TKHM_MT
#undef TKHM_NT
#undef TKHM_A_TILE
#undef TKHM_STAGE
#undef TKHM_KMAJOR
#undef TKHM_MNMAJOR
#undef TKHM_SWIZZLE
#undef TKHM_SPLACE
@ end
@ if k.projectable then
@   local X = k.extras[1]
@   local function real(t, e)
@     if float then return "(double)" .. load(t, e) end
@     return t.family == "signed" and ("(uint64_t)(int64_t)" .. e) or ("(uint64_t)" .. e)
@   end
@   local Y = float and "double" or "uint64_t"
/* The projected check on the device (tokitai_hip/codegen/projection.h, docs/matmul.md), in
 * kernels of its own that share no code with the product's: the first sums each row q of
 * b over blocks of TKH_PROJECTION_BLOCK columns by their weights (y$(float and ", and z of |b|" or ", modulo 2^64")),
 * a thread a row and block; the second, a thread TKHM_PROJ_ROWS output rows and a block,
 * sums a's rows against them, the block's outputs$(X and " less the extra input" or "") by the same weights, and compares. */
#define TKHM_PROJ_ROWS 8 /* output rows a thread of the second kernel, which read b's sums once for them */

static __device__ int64_t $(k.symbol)_proj_batch(const tkh_plan &p, int x, int64_t bi)
{
    int64_t off = 0;
    for (int d = 3; d < p.ndim; ++d) {
        off += bi % p.size[d] * p.stride[x][d];
        bi /= p.size[d];
    }
    return off;
}

__global__ void __launch_bounds__(256) $(k.symbol)_proj_b(const $(b.type.c) *__restrict__ pb, const tkh_plan p,
    const tkh_projection_args pa, $(Y) *__restrict__ y, double *__restrict__ z, tkh_projection_result *res)
{
    const int64_t kk = p.size[0], n = p.size[1], rows = p.count / (n * p.size[2]) * kk, total = rows * pa.blocks;
    const bool along_k = p.stride[1][0] == 1; /* neighbouring threads on neighbouring elements */
    if (blockIdx.x == 0 && threadIdx.x == 0)
        *res = tkh_projection_result{ 0, 0, ~0ull, 0, 0 };
    for (int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x; t < total; t += (int64_t)gridDim.x * blockDim.x) {
        const int64_t r = along_k ? t % rows : t / pa.blocks, blk = along_k ? t / rows : t % pa.blocks;
        const $(b.type.c) *row = pb + $(k.symbol)_proj_batch(p, 1, r / kk) + r % kk * p.stride[1][0];
        const int64_t j1 = (blk + 1) * TKH_PROJECTION_BLOCK < n ? (blk + 1) * TKH_PROJECTION_BLOCK : n;
        $(Y) sy = 0;
        double sz = 0;
        for (int64_t j = blk * TKH_PROJECTION_BLOCK; j < j1; ++j) {
            const uint64_t w = tkh_projection_weight(pa.seed, j);
@   if float then
            const double v = $(real(b.type, "row[j * p.stride[1][1]]"));
            sy += w & 1 ? v : -v;
            sz += fabs(v);
@   else
            sy += (w | 1) * $(real(b.type, "row[j * p.stride[1][1]]"));
@   end
        }
        y[r * pa.blocks + blk] = sy;
        z[r * pa.blocks + blk] = sz;
    }
}

__global__ void __launch_bounds__(256) $(k.symbol)_proj_rows(const $(a.type.c) *__restrict__ pa_, $(X and ("const " .. X.type.c .. " *__restrict__ px, ") or "")const $(O.c) *__restrict__ po,
    const tkh_plan p, const tkh_projection_args pa, const $(Y) *__restrict__ y, const double *__restrict__ z,
    tkh_projection_result *res)
{
    __shared__ unsigned long long s_sum[256], s_first[256], s_worst[256], s_threshold[256];
    const int64_t kk = p.size[0], n = p.size[1], m = p.size[2], groups = (m + TKHM_PROJ_ROWS - 1) / TKHM_PROJ_ROWS;
    const int64_t total = p.count / (n * m) * groups * pa.blocks;
    const unsigned tid = threadIdx.x;
    for (int64_t t0 = blockIdx.x * (int64_t)blockDim.x; t0 < total; t0 += (int64_t)gridDim.x * blockDim.x) {
        const int64_t t = t0 + tid, blk = t % pa.blocks, bi = t / pa.blocks / groups;
        const int64_t i0 = t / pa.blocks % groups * TKHM_PROJ_ROWS, rows = m - i0 < TKHM_PROJ_ROWS ? m - i0 : TKHM_PROJ_ROWS;
        unsigned long long fail = 0, first = ~0ull, worst = 0, threshold = 0;
        if (t < total) {
            const int64_t j0 = blk * TKH_PROJECTION_BLOCK, j1 = j0 + TKH_PROJECTION_BLOCK < n ? j0 + TKH_PROJECTION_BLOCK : n;
            const $(a.type.c) *ar = pa_ + $(k.symbol)_proj_batch(p, 0, bi) + i0 * p.stride[0][2];
            const $(O.c) *orow = po + $(k.symbol)_proj_batch(p, $(#k.inputs), bi) + i0 * p.stride[$(#k.inputs)][2];
            const size_t e0 = (size_t)(bi * kk) * (size_t)pa.blocks + (size_t)blk;
@   if float then
            double rhs[TKHM_PROJ_ROWS] = { 0 }, mag[TKHM_PROJ_ROWS] = { 0 };
            for (int64_t q = 0; q < kk; ++q) {
                const double yq = y[e0 + (size_t)q * (size_t)pa.blocks], zq = z[e0 + (size_t)q * (size_t)pa.blocks];
#pragma unroll
                for (int r = 0; r < TKHM_PROJ_ROWS; ++r)
                    if (r < rows) {
                        const double v = $(real(a.type, "ar[r * p.stride[0][2] + q * p.stride[0][0]]"));
                        rhs[r] += v * yq;
                        mag[r] += fabs(v) * zq;
                    }
            }
#pragma unroll /* rhs and mag stay in registers */
            for (int r = 0; r < TKHM_PROJ_ROWS; ++r) {
                if (r >= rows)
                    break;
                double lhs = 0, sabs = 0, cabs = 0;
                for (int64_t j = j0; j < j1; ++j) {
                    const bool plus = tkh_projection_weight(pa.seed, j) & 1;
                    const double v = $(real(O, "orow[r * p.stride[" .. #k.inputs .. "][2] + j * p.stride[" .. #k.inputs .. "][1]]"));
                    lhs += plus ? v : -v;
                    sabs += fabs(v);
@     if X then
                    if (pa.extra) {
                        const double c = $(real(X.type, "px[" .. k.symbol .. "_proj_batch(p, 2, bi) + (i0 + r) * p.stride[2][2] + j * p.stride[2][1]]"));
                        rhs[r] += plus ? c : -c;
                        cabs += fabs(c);
                    }
@     end
                }
                const double bound = tkh_projection_bound(kk, j1 - j0, pa.u_acc, pa.tiny_acc, pa.u_out, pa.tiny_out, lhs,
                    rhs[r], mag[r], sabs, cabs);
                const double diff = fabs(lhs - rhs[r]);
                const bool bad = !(bound >= 0 && diff <= bound);
                /* this block's index among all of them (row-major), for the report's worst */
                const int64_t at = (bi * m + i0 + r) * pa.blocks + blk;
                const unsigned long long ratio = bound > 0 && !bad
                    ? (unsigned long long)__float_as_uint((float)(diff / bound)) << 32
                        | (at < 0xffffffffll ? (unsigned long long)at : 0xffffffffull) : 0;
                const unsigned long long twice = bound > 0 ? (unsigned long long)__double_as_longlong(2 * bound) : 0;
                worst = ratio > worst ? ratio : worst;
                threshold = twice > threshold ? twice : threshold;
                fail += bad;
                if (bad && first == ~0ull)
                    first = (unsigned long long)((bi * m + i0 + r) * n + j0);
            }
@   else
            uint64_t rhs[TKHM_PROJ_ROWS] = { 0 };
            for (int64_t q = 0; q < kk; ++q) {
                const uint64_t yq = y[e0 + (size_t)q * (size_t)pa.blocks];
#pragma unroll
                for (int r = 0; r < TKHM_PROJ_ROWS; ++r)
                    if (r < rows)
                        rhs[r] += $(real(a.type, "ar[r * p.stride[0][2] + q * p.stride[0][0]]")) * yq;
            }
#pragma unroll /* rhs and mag stay in registers */
            for (int r = 0; r < TKHM_PROJ_ROWS; ++r) {
                if (r >= rows)
                    break;
                uint64_t lhs = 0;
                for (int64_t j = j0; j < j1; ++j)
                    lhs += (tkh_projection_weight(pa.seed, j) | 1) * $(real(O, "orow[r * p.stride[" .. #k.inputs .. "][2] + j * p.stride[" .. #k.inputs .. "][1]]"));
                const bool bad = ((lhs - rhs[r]) & pa.mask) != 0;
                fail += bad;
                if (bad && first == ~0ull)
                    first = (unsigned long long)((bi * m + i0 + r) * n + j0);
            }
@   end
        }
        /* the block's sums, smallest first failure and largest ratio and bound, then one
         * thread's atomics */
        s_sum[tid] = (unsigned long long)(t < total ? rows : 0) | fail << 32;
        s_first[tid] = first;
        s_worst[tid] = worst;
        s_threshold[tid] = threshold;
        __syncthreads();
        for (unsigned half = blockDim.x / 2; half > 0; half /= 2) {
            if (tid < half) {
                s_sum[tid] += s_sum[tid + half];
                s_first[tid] = s_first[tid + half] < s_first[tid] ? s_first[tid + half] : s_first[tid];
                s_worst[tid] = s_worst[tid + half] > s_worst[tid] ? s_worst[tid + half] : s_worst[tid];
                s_threshold[tid] = s_threshold[tid + half] > s_threshold[tid] ? s_threshold[tid + half] : s_threshold[tid];
            }
            __syncthreads();
        }
        if (tid == 0) {
            atomicAdd(&res->blocks, s_sum[0] & 0xffffffffull);
            atomicAdd(&res->failed, s_sum[0] >> 32);
            atomicMin(&res->first, s_first[0]);
            atomicMax(&res->worst, s_worst[0]);
            atomicMax(&res->threshold, s_threshold[0]);
        }
        __syncthreads(); /* before the next round's writes */
    }
}

extern "C" TKH_HIDDEN int $(k.launch)_project(const void *const *inputs, const void *output, const tkh_plan *plan,
    const tkh_projection_args *args, void *sums, tkh_projection_result *result, void *stream)
{
    const int64_t rows = plan->count / (plan->size[1] * plan->size[2]) * plan->size[0];
    $(Y) *y = ($(Y) *)sums;
    double *z = (double *)(y + rows * args->blocks);
    const int64_t groups = (plan->size[2] + TKHM_PROJ_ROWS - 1) / TKHM_PROJ_ROWS;
    const int64_t b_threads = rows * args->blocks, o_threads = plan->count / (plan->size[1] * plan->size[2]) * groups * args->blocks;
    const unsigned b_grid = (unsigned)(b_threads / 256 + 1 < 65536 ? b_threads / 256 + 1 : 65536);
    const unsigned o_grid = (unsigned)(o_threads / 256 + 1 < 65536 ? o_threads / 256 + 1 : 65536);
    hipLaunchKernelGGL($(k.symbol)_proj_b, dim3(b_grid), dim3(256), 0, (hipStream_t)stream,
        (const $(b.type.c) *)inputs[1], *plan, *args, y, z, result);
    hipError_t err = hipGetLastError();
    if (err != hipSuccess)
        return (int)err;
    hipLaunchKernelGGL($(k.symbol)_proj_rows, dim3(o_grid), dim3(256), 0, (hipStream_t)stream,
        (const $(a.type.c) *)inputs[0], $(X and ("(const " .. X.type.c .. " *)inputs[2], ") or "")(const $(O.c) *)output, *plan, *args, y, z, result);
    return (int)hipGetLastError();
}

#undef TKHM_PROJ_ROWS
@ end
@ -- The MFMA kernel of this type, if any (AMD gfx90a): f16, bf16 and i8 on 16 x 16 x 16
@ -- instructions, f32 and f64 on 16 x 16 x 4 ones. e: the element as the kernel moves it; f: a
@ -- lane's operand of one instruction; acc: its accumulators; op: the instruction's function
@ -- (tokitai_hip/codegen/matrix_core.h), with _tiny and _wide for 16-bit floats.
@ local mfma = (float and k.type.bits == 16 and k.acc.name == "f32" and { e = "uint16_t", f = "uint64_t", acc = "tkh_f32x4", op = "tkh_mfma_" .. k.type.name, wide = true })
@   or (k.type.name == "i8" and k.acc.name == "i32" and { e = "int8_t", f = "uint32_t", acc = "tkh_i32x4", op = "tkh_mfma_i8" })
@   or (k.type.name == "f32" and k.acc.name == "f32" and { e = "float", f = "float", acc = "tkh_f32x4", op = "tkh_mfma_f32" })
@   or (k.type.name == "f64" and k.acc.name == "f64" and { e = "double", f = "double", acc = "tkh_f64x4", op = "tkh_mfma_f64" })
@ if mfma then
@ -- The loop over the tile's stages from k0 (buffer buf, its operands in fa and fb): the
@ -- products by the instruction's function 'op'; with 'check', left where the next stage's
@ -- operands hold, in a lane of the wave, a value that op would flush (tiny).
@ local function stages(op, check)
        while (k0 < tkhm_k$(check and " && !tiny" or "")) {
            const bool more = k0 + T::kt < tkhm_k;
            if (more)
                fetch(k0 + T::kt);
#pragma unroll
            for (unsigned s = 0; s < T::steps; ++s)
#pragma unroll
                for (unsigned i = 0; i < 4; ++i)
#pragma unroll
                    for (unsigned j = 0; j < 4; ++j)
                        $(op)(acc[i][j], fa[s][i], fb[s][j]);
            if (more)
                keep(buf ^ 1);
            __syncthreads(); /* the next buffer is whole, and this one free for the tile after */
            k0 += T::kt;
            buf ^= 1;
@   if check then
            if (more) {
                operands(buf);
                tiny = tiny_in();
            }
@   else
            if (more)
                operands(buf);
@   end
        }
@ end
#if !defined(TKH_PLATFORM_NVIDIA)
/* Tiles of 128 x 128 outputs a block of 4 waves (AMD gfx90a), each wave 64 x 64 of them as 4 x 4
 * MFMA instructions of 16 x 16 (tokitai_hip/codegen/matrix_core.h: the tiles, the lanes' places);
 * a's and b's tiles 64 bytes along k at a time through two LDS buffers, each thread's two
 * 16-byte chunks of the next one read from memory into registers while the current one is
 * multiplied, as the FMA tiles do. The launcher takes this kernel only where every chunk is
 * whole and aligned (docs/matmul.md). */
template <bool AK, bool BK>
__global__ void __launch_bounds__(256) $(k.symbol)_mfma($(table.concat(params, ", ")), const tkh_plan tkhm_p)
{
#if defined(TKH_HAS_MFMA)
    enum { S = sizeof($(mfma.e)) };
    typedef tkh_mfma_tile<S> T;
    typedef tkh_mfma_chunk<$(mfma.e)> chunk;
    __shared__ __align__(16) $(mfma.e) tkhm_ls[2][2][T::tile]; /* [buffer][a, b] */
    const int64_t tkhm_k = tkhm_p.size[0], tkhm_n = tkhm_p.size[1], tkhm_m = tkhm_p.size[2];
    const int64_t tkhm_tiles = (tkhm_n + T::rows - 1) / T::rows * ((tkhm_m + T::rows - 1) / T::rows)
        * (tkhm_p.count / (tkhm_n * tkhm_m));
    const int64_t a_k = tkhm_p.stride[0][0], a_m = tkhm_p.stride[0][2];
    const int64_t b_k = tkhm_p.stride[1][0], b_n = tkhm_p.stride[1][1];
    const unsigned tid = threadIdx.x, lane = tid % 64;
    unsigned a_row[2], a_kq[2], b_row[2], b_kq[2]; /* where this thread's chunks of a stage start */
#pragma unroll
    for (unsigned q = 0; q < 2; ++q) {
        tkh_mfma_chunk_at<S>(tid + 256 * q, AK, &a_row[q], &a_kq[q]);
        tkh_mfma_chunk_at<S>(tid + 256 * q, BK, &b_row[q], &b_kq[q]);
    }
    for (int64_t tile = blockIdx.x; tile < tkhm_tiles; tile += gridDim.x) {
        int64_t at[$(#k.inputs + 1)], m0, n0;
        $(k.symbol)_place(tkhm_p, tile, T::rows, T::rows, at, m0, n0);
        const $(mfma.e) *ga = (const $(mfma.e) *)p_$(a.name) + at[0], *gb = (const $(mfma.e) *)p_$(b.name) + at[1];
        chunk next_a[2], next_b[2];
        auto fetch = [&](int64_t k0) {
#pragma unroll
            for (unsigned q = 0; q < 2; ++q) {
                const int64_t m = m0 + a_row[q], ka = k0 + a_kq[q], n = n0 + b_row[q], kb = k0 + b_kq[q];
                next_a[q] = m < tkhm_m && ka < tkhm_k ? *(const chunk *)(ga + m * a_m + ka * a_k) : chunk();
                next_b[q] = n < tkhm_n && kb < tkhm_k ? *(const chunk *)(gb + n * b_n + kb * b_k) : chunk();
            }
        };
        auto keep = [&](int buf) {
#pragma unroll
            for (unsigned q = 0; q < 2; ++q) {
                tkh_mfma_keep<S>(tkhm_ls[buf][0], AK, a_row[q], a_kq[q], next_a[q].e);
                tkh_mfma_keep<S>(tkhm_ls[buf][1], BK, b_row[q], b_kq[q], next_b[q].e);
            }
        };
        $(mfma.acc) acc[4][4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < 4; ++j)
                acc[i][j] = 0;
        $(mfma.f) fa[T::steps][4], fb[T::steps][4]; /* a stage's operands, read before its products */
        auto operands = [&](int buf) {
#pragma unroll
            for (unsigned s = 0; s < T::steps; ++s)
#pragma unroll
                for (unsigned i = 0; i < 4; ++i) {
                    fa[s][i] = tkh_mfma_frag<S, $(mfma.f)>(tkhm_ls[buf][0], tkh_mfma_tile_row(tid, i) + tkh_mfma_frag_row(lane),
                        tkh_mfma_frag_k<S>(lane, s));
                    fb[s][i] = tkh_mfma_frag<S, $(mfma.f)>(tkhm_ls[buf][1], tkh_mfma_tile_col(tid, i) + tkh_mfma_frag_row(lane),
                        tkh_mfma_frag_k<S>(lane, s));
                }
        };
@ if mfma.wide then
        auto tiny_in = [&]() { /* whether a lane of this wave holds one the 16-bit instruction would flush */
            tkh_u16x2 least = 0xFFFF;
#pragma unroll
            for (unsigned s = 0; s < T::steps; ++s)
#pragma unroll
                for (unsigned i = 0; i < 4; ++i)
                    least = tkh_mfma_least(tkh_mfma_least(least, fa[s][i]), fb[s][i]);
            return __any($(mfma.op)_tiny(least)) != 0;
        };
@ end
        fetch(0);
        keep(0);
        __syncthreads();
        int64_t k0 = 0;
        int buf = 0;
        operands(buf);
@ if mfma.wide then
        /* the 16-bit instruction until this wave meets a value it would flush, then f32
         * instructions on the values widened, for the rest of the tile */
        bool tiny = tiny_in();
@   stages(mfma.op, true)
@   stages(mfma.op .. "_wide", false)
@ else
@   stages(mfma.op, false)
@ end
#pragma unroll
        for (unsigned i = 0; i < 4; ++i)
#pragma unroll
            for (unsigned j = 0; j < 4; ++j)
#pragma unroll
                for (unsigned e = 0; e < 4; ++e) {
                    const int64_t m = m0 + tkh_mfma_tile_row(tid, i) + tkh_mfma_acc_row<S>(lane, e);
                    const int64_t n = n0 + tkh_mfma_tile_col(tid, j) + tkh_mfma_acc_col(lane);
                    if (m < tkhm_m && n < tkhm_n)
                        $(k.symbol)_finish($(pass), tkhm_p, at, m, n, ($(R))acc[i][j][e]);
                }
    }
#endif
}

/* The MFMA kernel's layouts for this plan on this device (2 a_kmajor + b_kmajor), or -1: on
 * a gfx90a only, each operand K-major or MN-major in whole aligned 16-byte chunks, as for
 * the mma kernel on NVIDIA. */
static int $(k.symbol)_mfma_layout(const void *const *inputs, const tkh_plan *p)
{
    if (!tkh_mfma_device())
        return -1;
    const int64_t k = p->size[0], n = p->size[1], m = p->size[2], c = 16 / sizeof($(mfma.e));
    const int64_t a_k = p->stride[0][0], a_m = p->stride[0][2], b_k = p->stride[1][0], b_n = p->stride[1][1];
    for (int d = 3; d < p->ndim; ++d)
        if (p->stride[0][d] % c != 0 || p->stride[1][d] % c != 0)
            return -1;
    if (((uintptr_t)inputs[0] | (uintptr_t)inputs[1]) % 16 != 0)
        return -1;
    const int a_kmajor = a_k == 1 && a_m % c == 0 && k % c == 0, b_kmajor = b_k == 1 && b_n % c == 0 && k % c == 0;
    const int fits = (a_kmajor || (a_m == 1 && a_k % c == 0 && m % c == 0))
        && (b_kmajor || (b_n == 1 && b_k % c == 0 && n % c == 0));
    return fits ? 2 * a_kmajor + b_kmajor : -1;
}

/* The MFMA kernel for the layouts, over at most 'grid' blocks. */
static int $(k.symbol)_mfma_launch(int layout, unsigned grid, void *stream, $(table.concat(params, ", ")),
    const tkh_plan *plan)
{
    void (*const kernels[4])($(table.concat(params, ", ")), const tkh_plan) = { $(k.symbol)_mfma<false, false>,
        $(k.symbol)_mfma<false, true>, $(k.symbol)_mfma<true, false>, $(k.symbol)_mfma<true, true> };
    const int64_t rows = tkh_mfma_tile<sizeof($(mfma.e))>::rows;
    const int64_t tiles = (plan->size[1] + rows - 1) / rows * ((plan->size[2] + rows - 1) / rows)
        * (plan->count / (plan->size[1] * plan->size[2]));
    const unsigned blocks = tiles < (int64_t)grid ? (unsigned)(tiles > 0 ? tiles : 1) : grid;
    hipLaunchKernelGGL(kernels[layout], dim3(blocks), dim3(256), 0, (hipStream_t)stream, $(pass), *plan);
    return (int)hipGetLastError();
}
#endif
@ end
/* The launcher over a plan of three dimensions or more (k, n, m, then the batch), blocks
 * of 256 threads: the matrix-instruction kernel where it fits (mma.sync on NVIDIA, MFMA on a
 * gfx90a), else the FMA tiles. */
extern "C" TKH_HIDDEN int $(k.launch)_plan(const void *const *inputs, void *const *outputs,
    const void *const *scalars, const tkh_plan *plan, unsigned grid, unsigned block, void *scratch, void *stream)
{
    (void)scalars;
    (void)scratch;
    if (plan->reduced != 1 || plan->ndim < 3 || grid == 0 || block != 256)
        return (int)hipErrorInvalidValue;
@ if mma then
    int a_kmajor = 0, b_kmajor = 0;
    if ($(k.symbol)_mma_fits(inputs, plan, &a_kmajor, &b_kmajor))
        return $(k.symbol)_mma_launch(a_kmajor, b_kmajor, grid, stream, $(table.concat(args, ", ")), plan);
@ end
@ if mfma then
@ -- The loop over the tile's stages from k0 (buffer buf): the products by the instruction's
@ -- function 'op'; with 'check', leaving before a stage's products where a lane of the wave
@ -- holds a value that op would flush.
@ local function stages(op, check)
        for (; k0 < tkhm_k; k0 += T::kt, buf ^= 1) {
            const bool more = k0 + T::kt < tkhm_k;
            if (more)
                fetch(k0 + T::kt);
            $(mfma.f) fa[T::steps][4], fb[T::steps][4]; /* the stage's operands, read before any product */
#pragma unroll
            for (unsigned s = 0; s < T::steps; ++s)
#pragma unroll
                for (unsigned i = 0; i < 4; ++i) {
                    fa[s][i] = tkh_mfma_frag<S, $(mfma.f)>(tkhm_ls[buf][0], tkh_mfma_tile_row(tid, i) + tkh_mfma_frag_row(lane),
                        tkh_mfma_frag_k<S>(lane, s));
                    fb[s][i] = tkh_mfma_frag<S, $(mfma.f)>(tkhm_ls[buf][1], tkh_mfma_tile_col(tid, i) + tkh_mfma_frag_row(lane),
                        tkh_mfma_frag_k<S>(lane, s));
                }
@   if check then
            bool tiny = false;
#pragma unroll
            for (unsigned s = 0; s < T::steps; ++s)
#pragma unroll
                for (unsigned i = 0; i < 4; ++i)
                    tiny |= $(op)_tiny(fa[s][i]) | $(op)_tiny(fb[s][i]);
            if (__any(tiny))
                break;
@   end
#pragma unroll
            for (unsigned s = 0; s < T::steps; ++s)
#pragma unroll
                for (unsigned i = 0; i < 4; ++i)
#pragma unroll
                    for (unsigned j = 0; j < 4; ++j)
                        $(op)(acc[i][j], fa[s][i], fb[s][j]);
            if (more)
                keep((int)buf ^ 1);
            __syncthreads(); /* the next buffer is whole, and this one free for the tile after */
        }
@ end
#if !defined(TKH_PLATFORM_NVIDIA)
    const int layout = $(k.symbol)_mfma_layout(inputs, plan);
    if (layout >= 0)
        return $(k.symbol)_mfma_launch(layout, grid, stream, $(table.concat(args, ", ")), plan);
#endif
@ end
    hipLaunchKernelGGL($(k.symbol)_tiles, dim3(grid), dim3(block), 0, (hipStream_t)stream, $(table.concat(args, ", ")), *plan);
    return (int)hipGetLastError();
}

#undef TKHM_BM
#undef TKHM_BN
#undef TKHM_BK
