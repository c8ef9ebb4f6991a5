@ -- NVIDIA's kernel of asynchronous copies (sm_80 and later) of a matrix product: mma.sync tiles, or
@ -- for f32 the same pipeline feeding fused multiply-adds, after templates/matmul.hip.tpl.
@ local L = matmul_locals(k) -- the names every part of a product's source shares (gen/tkh/shapes/matmul.lua)
@ local S, O, float, R, a, b, params, args, pass, out_index, mma, mfma = L.S, L.O, L.float, L.R, L.a, L.b, L.params, L.args, L.pass, L.out_index, L.mma, L.mfma
@ -- The matrix-instruction kernel of this type, if any (NVIDIA sm_80 and later): 16-bit floats
@ -- and i8 on warp tiles of mma.sync (chunks of 8 or 16 elements), f64 on m16n8k8 tiles, f32 on
@ -- fused multiply-adds (no matrix instruction rounds f32 products as IEEE does).
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
@ elseif mma.fma then
#define TKHM_KT (8 * TKHM_EPC) /* k of a stage: rows of 8 chunks when K-major */
#define TKHM_STAGES 3
#define TKHM_KMAJOR(row, chunk) ((((row) << 3) + ((chunk) ^ ((row) & 7))) * TKHM_EPC)
@ else
#define TKHM_KT (4 * TKHM_EPC) /* k of a stage: rows of 4 chunks when K-major */
#define TKHM_STAGES 4
#define TKHM_KMAJOR(row, chunk) ((((row) << 2) + ((chunk) ^ (((row) >> 1) & 3))) * TKHM_EPC)
@ end
@ if mma.epc ~= 2 then
@   if mma.epc == 8 then
#define TKHM_SWIZZLE(row) ((row) & 7) /* ldmatrix's 8 rows: 8 successive k */
@   elseif mma.fma then
#define TKHM_SWIZZLE(row) 0 /* a warp reads 16 successive chunks of one row */
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
@ elseif mma.fma then
/* Tiles of 128 x 128 outputs a block of 256 threads, 8 x 8 a thread as fused multiply-adds in
 * f32 (the FMA tiles' work, round to nearest, each output's chain in the order of k); a's and
 * b's tiles TKHM_KT along k through TKHM_STAGES stages of asynchronous copies, read from shared
 * memory 16 bytes at a time. The launcher takes this kernel only where every chunk is whole
 * and aligned (docs/matmul.md). */
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
@ if mma.fma then
    const unsigned tx = tid % 16, ty = tid / 16;
    (void)lane;
    (void)wm;
    (void)wn;
    /* A thread's row (column) i of 8 in a tile: t + 16 i where the operand is K-major, so that
     * the 8 lanes of one 16-byte read take 8 rows, in different banks by TKHM_KMAJOR's swizzle;
     * 4 t + i % 4 + 64 (i / 4) where it is MN-major, 4 neighbours a read. */
    auto tkhm_own = [](bool kmajor, unsigned t, unsigned i) { return kmajor ? t + 16 * i : 64 * (i / 4) + 4 * t + i % 4; };
    /* those rows' (columns') elements at k 4 c .. 4 c + 3 of a stage's tile s */
    auto tkhm_fragment = [&](float (&f)[8][4], const float *s, bool kmajor, unsigned t, unsigned c, unsigned per_row) {
#pragma unroll
        for (unsigned i = 0; i < 8; ++i) {
            const float4 v = *(const float4 *)(s + (kmajor ? TKHM_KMAJOR(tkhm_own(true, t, i), c)
                : TKHM_MNMAJOR(4 * c + i % 4, 16 * (i / 4) + t, per_row)));
            if (kmajor) {
                f[i][0] = v.x;
                f[i][1] = v.y;
                f[i][2] = v.z;
                f[i][3] = v.w;
            } else { /* read i: rows (columns) 4 (i / 4) .. 4 (i / 4) + 3 of this thread at k 4 c + i % 4 */
                f[4 * (i / 4)][i % 4] = v.x;
                f[4 * (i / 4) + 1][i % 4] = v.y;
                f[4 * (i / 4) + 2][i % 4] = v.z;
                f[4 * (i / 4) + 3][i % 4] = v.w;
            }
        }
    };
@ end
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
@ if mma.fma then
        float acc[8][8];
#pragma unroll
        for (int i = 0; i < 8; ++i)
#pragma unroll
            for (int j = 0; j < 8; ++j)
                acc[i][j] = 0;
@ else
        $(mma.epc == 2 and "double" or mma.epc == 8 and "float" or "int") acc[4][$(mma.epc == 2 and 4 or 8)][4];
#pragma unroll
        for (int i = 0; i < 4; ++i)
#pragma unroll
            for (int j = 0; j < $(mma.epc == 2 and 4 or 8); ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    acc[i][j][e] = 0;
@ end
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
@ if mma.fma then
            /* the stage's k in chunks of 4: a lane's 8 rows of a and 8 columns of b at those k,
             * then their 4 x 64 products */
#pragma unroll
            for (unsigned c = 0; c < TKHM_KT / TKHM_EPC; ++c) {
                float fa[8][4], fb[8][4];
                tkhm_fragment(fa, sa, AK, ty, c, a_row);
                tkhm_fragment(fb, sb, BK, tx, c, b_row);
#pragma unroll
                for (unsigned q = 0; q < 4; ++q)
#pragma unroll
                    for (int i = 0; i < 8; ++i)
#pragma unroll
                        for (int j = 0; j < 8; ++j)
                            acc[i][j] = fmaf(fa[i][q], fb[j][q], acc[i][j]);
            }
        }
        tkh_copy_wait<0>();
        __syncthreads(); /* before the next tile's fetches */
#pragma unroll
        for (unsigned i = 0; i < 8; ++i)
#pragma unroll
            for (unsigned j = 0; j < 8; ++j) {
                const int64_t m = m0 + tkhm_own(AK, ty, i), n = n0 + tkhm_own(BK, tx, j);
                if (m < tkhm_m && n < tkhm_n)
                    $(k.symbol)_finish($(pass), tkhm_p, at, m, n, acc[i][j]);
            }
@ elseif mma.epc == 2 then
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
    if (!tkh_mma_device_with(TKHM_STAGES * TKHM_STAGE * sizeof($(mma.e))))
        return 0; /* the FMA tiles */
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
